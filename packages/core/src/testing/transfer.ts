import { EXPORT_VOLATILE_FIELDS, exportLines } from '../transfer/index.js';

/**
 * An `@mem/export` JSONL text with the header's volatile fields (`EXPORT_VOLATILE_FIELDS`:
 * exportedAt, source) removed, lines joined by `\n`: two exports of the same memories compare equal
 * (ours, issue 32; shared by the CLI, HTTP and Neo4j transfer tests).
 */
export function stableExport(text: string): string {
  return exportLines(text)
    .map((line, i) => {
      if (i > 0) return line;
      const header = JSON.parse(line) as Record<string, unknown>;
      for (const f of EXPORT_VOLATILE_FIELDS) delete header[f];
      return JSON.stringify(header);
    })
    .join('\n');
}
