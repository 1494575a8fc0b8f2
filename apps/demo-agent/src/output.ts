/** Output helpers shared by the CLI commands (ours). */
import { readFileSync } from 'node:fs';
import { MemError, MemValidationError } from '@mem/core';
import { decodeUtf8Strict } from './utf8.js';

/** Map a MemError category to a process exit code: validation 2, not found 3, others 1. */
export function exitCodeFor(e: unknown): number {
  if (!MemError.isInstance(e)) return 1;
  return e.category === 'validation' ? 2 : e.category === 'not_found' ? 3 : 1;
}

/** `{ error: { code, message } }`, the same shape the HTTP API returns. */
export function errorBody(e: unknown): { error: { code: string; message: string } } {
  if (MemError.isInstance(e)) return { error: { code: e.code, message: e.message } };
  const err = e as any;
  if (err && typeof err.code === 'string' && /^[A-Z_]+$/.test(err.code) && typeof err.message === 'string') {
    return { error: { code: err.code, message: err.message } };
  }
  return { error: { code: 'INTERNAL', message: err?.message ? String(err.message) : String(e) } };
}

/**
 * Exit quietly (code 0) when the reader of `stream` goes away, e.g. `mem inspect <id> | head -8`:
 * a write to a closed pipe fails with EPIPE, which Node otherwise reports as an unhandled error.
 * Other stream errors are rethrown unchanged.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.EventEmitter, exit: (code: number) => void = (code) => process.exit(code)): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e?.code === 'EPIPE') exit(0);
    else throw e;
  });
}

const FS_REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a part of the path is not a directory',
};

/**
 * Read a UTF-8 input file named on the command line. Throws MemValidationError `INVALID_INPUT`
 * (exit code 2) naming the path and the reason, instead of the raw fs error. With `strictUtf8`
 * (`mem ingest`, `mem demo --data`), bytes that are not UTF-8 are `INVALID_INPUT` naming the line,
 * not U+FFFD stored in their place.
 */
export function readInputFile(file: string, what = 'input file', options: { strictUtf8?: boolean } = {}): string {
  let bytes: Buffer;
  try {
    if (!options.strictUtf8) return readFileSync(file, 'utf8');
    bytes = readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code ?? '';
    throw new MemValidationError('INVALID_INPUT', `cannot read ${what} ${file}: ${FS_REASONS[code] ?? (e as Error).message}`, { cause: e });
  }
  return decodeUtf8Strict(bytes, `${what} ${file}`);
}

/**
 * A scope in human form, e.g. `user "maya"`, `user "maya", run "conv-26"`, with the namespace only
 * when it is not "default". Never the internal `namespace|user|agent|run` key.
 */
export function formatScope(scope: { namespace?: string; userId?: string; agentId?: string; runId?: string } | null | undefined): string {
  if (!scope) return '(no scope)';
  const parts: string[] = [];
  if (scope.namespace && scope.namespace !== 'default') parts.push(`namespace "${scope.namespace}"`);
  if (scope.userId) parts.push(`user "${scope.userId}"`);
  if (scope.agentId) parts.push(`agent "${scope.agentId}"`);
  if (scope.runId) parts.push(`run "${scope.runId}"`);
  return parts.join(', ') || '(empty scope)';
}

/** `1 observation`, `3 observations`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/**
 * Round every non-integer number in a JSON-like value to `digits` decimals (for human output only;
 * `--json` keeps full precision).
 */
export function roundNumbers(value: unknown, digits = 3): unknown {
  if (typeof value === 'number') return Number.isInteger(value) || !Number.isFinite(value) ? value : Number(value.toFixed(digits));
  if (Array.isArray(value)) return value.map((v) => roundNumbers(v, digits));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundNumbers(v, digits)]));
  return value;
}

/** `Maya: text`, or the text alone when the memory has no speaker (never `: text`). */
export function withSpeaker(speaker: string | null | undefined, text: string): string {
  return speaker ? `${speaker}: ${text}` : text;
}

/**
 * The short id the CLI prints (issue 36; ours): the last 8 characters of a memory's id. Ids are
 * time-ordered UUIDs (v7), whose first characters are the write time and repeat across memories
 * written together; the end is random. `mem inspect` / `mem forget` take it (Stack.resolveId).
 */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(-8) : id;
}

/** Link kinds that read the same both ways (ours): A→B and B→A of one of these is one link. */
export const SYMMETRIC_SUBTYPES: ReadonlySet<string> = new Set(['SAME_EPISODE', 'SAME_ENTITY', 'RELATED_TO', 'ENTITY_ALIAS', 'CONCURRENT']);

/** One line of `mem inspect`'s relations: a related memory, a kind of link, its p and where it points. */
export interface RelationLine {
  view: string;
  subtype: string;
  /** The highest p stored for this memory, kind and direction. */
  probability: number;
  /** '→' from the inspected memory, '←' to it, '↔' a symmetric link stored in both directions. */
  arrow: '→' | '←' | '↔';
  node: { id: string; text: string };
  /** The other stored edges this line stands for (same pair and kind), with who wrote them. */
  also: { origin: string; probability: number; from: string }[];
}

/**
 * `mem inspect`'s relation lines (issue 36; ours): the store keeps every edge the write path drew, so a
 * pair can hold two edges of one kind — the SAME_EPISODE chain rule (previous turn → new turn, p 1)
 * and System One's same-episode answer (new turn → candidate, its p). A symmetric kind
 * ({@link SYMMETRIC_SUBTYPES}) is one line per related memory with the highest p ('↔' when the edges
 * point both ways); a directed kind is one line per memory and direction. Lines keep the order of
 * their first edge (the store's, best first); `also` lists the other edges.
 */
export function relationLines(id: string, neighbors: readonly { relation: { from: string; to: string; view: string; subtype: string; probability: number; origin?: string }; node: { id: string; text: string } }[]): RelationLine[] {
  const groups = new Map<string, { node: { id: string; text: string }; edges: { from: string; view: string; subtype: string; probability: number; origin?: string }[] }>();
  for (const { relation: r, node } of neighbors) {
    const dir = r.from === id ? '→' : '←';
    const key = `${node.id} ${r.view}/${r.subtype}${SYMMETRIC_SUBTYPES.has(r.subtype) ? '' : ` ${dir}`}`;
    const g = groups.get(key);
    if (g) g.edges.push(r);
    else groups.set(key, { node, edges: [r] });
  }
  return [...groups.values()].map(({ node, edges }) => {
    // the line's p is the highest; the other edges are listed in `also`
    const top = edges.reduce((a, b) => (b.probability > a.probability ? b : a));
    const dirs = new Set(edges.map((e) => (e.from === id ? '→' : '←')));
    return {
      view: top.view,
      subtype: top.subtype,
      probability: top.probability,
      arrow: dirs.size > 1 ? '↔' : top.from === id ? '→' : '←',
      node,
      also: edges.filter((e) => e !== top).map((e) => ({ origin: e.origin ?? 'unknown', probability: e.probability, from: e.from })),
    };
  });
}

/**
 * One history row's data in words for `mem history` (ours): the gate's decision of a write
 * (`gate add: novelty 0.150 vs threshold 0.025`), the number of relations of a RELATE row, else the
 * row's data as compact JSON with numbers rounded.
 */
export function historyDetail(h: { op: string; data?: Record<string, unknown> | null }): string {
  const d = (h.data ?? {}) as Record<string, any>;
  const g = d.gate;
  if (g && typeof g === 'object' && typeof g.action === 'string') {
    return `gate ${g.action}: novelty ${fmt(g.novelty)} vs threshold ${fmt(g.threshold)}`;
  }
  if (h.op === 'RELATE' && typeof d.count === 'number') return plural(d.count, 'relation');
  const rest = roundNumbers(d);
  return rest && typeof rest === 'object' && Object.keys(rest).length ? JSON.stringify(rest) : '';
}

export function truncate(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

export function fmt(n: number | null | undefined, digits = 3): string {
  return typeof n === 'number' && Number.isFinite(n) ? n.toFixed(digits) : '–';
}

const useColor = process.stdout.isTTY && !process.env.NO_COLOR;
const wrap = (code: number) => (s: string) => (useColor ? `\u001b[${code}m${s}\u001b[0m` : s);
export const c = { bold: wrap(1), dim: wrap(2), green: wrap(32), yellow: wrap(33), cyan: wrap(36), magenta: wrap(35), red: wrap(31) };

