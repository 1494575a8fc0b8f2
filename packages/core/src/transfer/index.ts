// Moving memories between stores (issue 32): the versioned JSONL export / import.
export {
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  EXPORTED_STATE_NAMES,
  EXPORT_VOLATILE_FIELDS,
  canonicalJson,
  vectorToBase64,
  vectorFromBase64,
  exportMemories,
  importMemories,
  exportLines,
  type ExportOptions,
  type ExportCounts,
  type ExportHeader,
  type ImportOptions,
  type ImportReport,
  type ScopeMatch,
} from './jsonl.js';
// Re-embedding a SQLite store into a new embedding space (crash-safe, resumable).
export { reembedStore, quantile, TAU_CALIBRATION_ITEMS, TAU_NOOP_QUANTILE, type ReembedOptions, type ReembedProgress, type ReembedReport } from './reembed.js';
