/**
 * Question and answer schemas of the System-One controller J(S, Q) (Jev-Mem, seed 000, "TypeSafeClient
 * .system_one"): a call carries one shared JSON state S and a batch Q of typed questions keyed by id.
 * - Noul: a binary proposition -> p in [0, 1] (not assumed calibrated).
 * - Choice: mutually exclusive labels (>= 2) -> { choice, probabilities } with probabilities summing to 1.
 * Question ids are bookkeeping, never model input, so every instruction names the state fields it reads
 * as `{{path}}` (dot path; array items by index: `{{candidates.3.text}}` or `{{candidates[3].text}}`).
 */
import { z } from 'zod';
import { SystemOneError } from './errors.js';

const nonEmpty = z.string().trim().min(1);

/** zod schema of a Noul. */
export const NoulSchema = z.object({
  type: z.literal('noul'),
  kind: z.string().min(1).optional(),
  instructions: nonEmpty,
  criteria: z.object({ true: nonEmpty, false: nonEmpty }).strict(),
});

/** zod schema of a Choice (>= 2 labels; labels are non-empty strings). */
export const ChoiceSchema = z.object({
  type: z.literal('choice'),
  kind: z.string().min(1).optional(),
  instructions: nonEmpty,
  criteria: z
    .record(z.string().min(1), nonEmpty)
    .refine((c) => Object.keys(c).length >= 2, { message: 'a Choice needs at least 2 labels' }),
});

export const QuestionSchema = z.discriminatedUnion('type', [NoulSchema, ChoiceSchema]);

/** The shared state S: any JSON object (not an array, not null). */
export const StateSchema = z.record(z.string(), z.unknown());

/** A request J(S, Q): state + questions by id. */
export const RequestSchema = z.object({
  state: StateSchema,
  questions: z.record(z.string().min(1), QuestionSchema),
});

/** Noul answer: p in [0, 1]. */
export const NoulAnswerSchema = z.number().min(0).max(1);
/** Choice answer: the chosen label and a distribution over all labels. */
export const ChoiceAnswerSchema = z.object({
  choice: z.string(),
  probabilities: z.record(z.string(), z.number().min(0).max(1)),
});

export interface Noul {
  type: 'noul';
  /** Catalogue kind (e.g. `routing.temporal`); the offline backend dispatches on it. */
  kind?: string;
  instructions: string;
  criteria: { true: string; false: string };
}

export interface Choice<L extends string = string> {
  type: 'choice';
  kind?: string;
  instructions: string;
  criteria: Record<L, string>;
}

export type Question = Noul | Choice<string>;
export type State = Record<string, unknown>;

export interface ChoiceAnswer<L extends string = string> {
  choice: L;
  probabilities: Record<L, number>;
}

export type Answer = number | ChoiceAnswer<string>;

/** The answer type of one question: Noul -> number, Choice<L> -> ChoiceAnswer<L>. */
export type AnswerOf<Q> = Q extends Noul ? number : Q extends Choice<infer L> ? ChoiceAnswer<L> : never;

/** Answers typed by question id. */
export type Answers<Qs extends Record<string, Question>> = { [K in keyof Qs]: AnswerOf<Qs[K]> };

/** Typed constructor for a Noul (validates eagerly; throws `SystemOneError('INVALID_QUESTION')`). */
export function noul(q: Omit<Noul, 'type'>): Noul {
  return validateQuestion('noul', { type: 'noul', ...q }) as Noul;
}

/** Typed constructor for a Choice; label names are kept in the type. */
export function choice<L extends string>(q: Omit<Choice<L>, 'type'>): Choice<L> {
  return validateQuestion('choice', { type: 'choice', ...q }) as Choice<L>;
}

/** Validate one question; throws `SystemOneError('INVALID_QUESTION')` naming the id and the issue. */
export function validateQuestion(id: string, q: unknown): Question {
  const r = QuestionSchema.safeParse(q);
  if (!r.success) {
    throw new SystemOneError('INVALID_QUESTION', `question "${id}" is invalid: ${z.prettifyError(r.error)}`, {
      details: { id },
    });
  }
  return r.data as Question;
}

// ---------------------------------------------------------------------------------------------
// {{path}} references
// ---------------------------------------------------------------------------------------------

const REF = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const refCache = new Map<string, string[]>();

/** The `{{path}}` references of an instruction, in order of appearance, deduplicated (normalised to dot paths). */
export function referencedPaths(instructions: string): string[] {
  let hit = refCache.get(instructions);
  if (hit) return hit;
  const out: string[] = [];
  for (const m of instructions.matchAll(REF)) {
    const p = m[1].replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
    if (!out.includes(p)) out.push(p);
  }
  if (refCache.size > 10_000) refCache.clear();
  refCache.set(instructions, out);
  hit = out;
  return hit;
}

const MISSING = Symbol('missing');

/** Resolve a dot path in the state; returns `undefined` when any segment is missing. */
export function resolvePath(state: unknown, path: string): unknown {
  const v = resolveOrMissing(state, path);
  return v === MISSING ? undefined : v;
}

const segCache = new Map<string, string[]>();
function segments(path: string): string[] {
  let s = segCache.get(path);
  if (!s) {
    if (segCache.size > 10_000) segCache.clear();
    segCache.set(path, (s = path.split('.')));
  }
  return s;
}

function resolveOrMissing(state: unknown, path: string): unknown {
  return resolveCompiled(state, compilePath(path));
}

/** A `{{path}}` split once into segments (array index segments pre-parsed). */
export interface CompiledPath {
  path: string;
  segs: string[];
  /** Per segment: its value as an array index, or -1 when it is not all digits. */
  index: number[];
}
const compiledCache = new Map<string, CompiledPath>();

/** Compile a dot path (memoised per path string). */
export function compilePath(path: string): CompiledPath {
  let c = compiledCache.get(path);
  if (!c) {
    const segs = segments(path);
    c = { path, segs, index: segs.map((seg) => (/^\d+$/.test(seg) ? Number(seg) : -1)) };
    if (compiledCache.size > 10_000) compiledCache.clear();
    compiledCache.set(path, c);
  }
  return c;
}

function resolveCompiled(state: unknown, c: CompiledPath): unknown {
  let cur: unknown = state;
  const { segs, index } = c;
  for (let k = 0; k < segs.length; k++) {
    if (cur === null || typeof cur !== 'object') return MISSING;
    if (Array.isArray(cur)) {
      const i = index[k];
      if (i < 0) return MISSING;
      if (i >= cur.length) return MISSING;
      cur = cur[i];
    } else {
      const seg = segs[k];
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return MISSING;
      cur = (cur as Record<string, unknown>)[seg];
    }
    if (cur === undefined) return MISSING;
  }
  return cur;
}

/** A resolved reference: the path and the state value at it. */
export interface ResolvedRef {
  path: string;
  value: unknown;
}

/**
 * Resolve every `{{path}}` of a question against the state.
 * @throws SystemOneError('MISSING_STATE_FIELD') naming the question id and the missing path.
 */
export function resolveRefs(id: string, q: Question, state: State): ResolvedRef[] {
  return resolveCompiledRefs(id, compiledPathsOf(q.instructions), state);
}

/** The compiled `{{path}}` references of an instruction (see `referencedPaths`). */
export function compiledPathsOf(instructions: string): CompiledPath[] {
  return referencedPaths(instructions).map(compilePath);
}

/**
 * `resolveRefs` over already compiled paths (the controller compiles them once per question content).
 * @throws SystemOneError('MISSING_STATE_FIELD') naming the question id and the missing path.
 */
export function resolveCompiledRefs(id: string, paths: readonly CompiledPath[], state: State, memo?: Map<CompiledPath, ResolvedRef>): ResolvedRef[] {
  const out: ResolvedRef[] = new Array(paths.length);
  for (let k = 0; k < paths.length; k++) {
    // questions of one batch that read the same path share one resolved reference (same state, same value)
    const hit = memo?.get(paths[k]);
    if (hit !== undefined) {
      out[k] = hit;
      continue;
    }
    const path = paths[k].path;
    const v = resolveCompiled(state, paths[k]);
    if (v === MISSING) {
      throw new SystemOneError(
        'MISSING_STATE_FIELD',
        `question "${id}" reads {{${path}}} but the state has no such field (state keys: ${Object.keys(state).join(', ') || 'none'})`,
        { details: { id, path } },
      );
    }
    const r = { path, value: v };
    memo?.set(paths[k], r);
    out[k] = r;
  }
  return out;
}

/** Render a state value for a prompt: strings quoted, memory items as `"text" (speaker; time; entities)`, lists numbered, others as JSON. */
export function renderValue(v: unknown): string {
  if (typeof v === 'string') return `"${v}"`;
  if (v && typeof v === 'object' && !Array.isArray(v) && typeof (v as any).text === 'string') {
    const it = v as Record<string, unknown>;
    const meta: string[] = [];
    if (typeof it.speaker === 'string') meta.push(`speaker: ${it.speaker}`);
    if (typeof it.time === 'string') meta.push(`time: ${it.time}`);
    if (Array.isArray(it.entities) && it.entities.length) meta.push(`entities: ${it.entities.join(', ')}`);
    return meta.length ? `"${it.text}" (${meta.join('; ')})` : `"${it.text}"`;
  }
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || (x && typeof x === 'object'))) {
    return v.map((x, i) => `[${i}] ${renderValue(x)}`).join('\n');
  }
  return JSON.stringify(v);
}

/** The instruction with every `{{path}}` replaced by its rendered state value. */
export function renderInstructions(q: Question, state: State): string {
  return q.instructions.replace(REF, (_m, raw: string) => {
    const p = raw.replace(/\[(\d+)\]/g, '.$1').replace(/^\./, '');
    return renderValue(resolvePath(state, p));
  });
}

/** Labels of a question: `['true', 'false']` for a Noul, the criteria keys for a Choice. */
export function labelsOf(q: Question): string[] {
  return q.type === 'noul' ? ['true', 'false'] : Object.keys(q.criteria);
}

/**
 * Normalise a backend's raw answer into the question's answer type.
 * Accepts for a Noul: a number, a boolean, `{p}`, `{probability}`, `{true: x, false: y}` (normalised).
 * Accepts for a Choice: `{probabilities}` (renormalised; unknown labels rejected), or `{choice}` / a label string (one-hot).
 * @throws SystemOneError('INVALID_ANSWER')
 */
function badAnswer(id: string, raw: unknown, why: string): SystemOneError {
  return new SystemOneError('INVALID_ANSWER', `answer to "${id}" is invalid: ${why}`, { details: { id, raw } });
}

export function normalizeAnswer(id: string, q: Question, raw: unknown): Answer {
  if (q.type === 'noul') {
    if (typeof raw === 'number' && raw >= 0 && raw <= 1) return raw;
    let p: unknown = raw;
    if (typeof raw === 'boolean') p = raw ? 1 : 0;
    else if (raw && typeof raw === 'object') {
      const o = raw as Record<string, unknown>;
      if (typeof o.p === 'number') p = o.p;
      else if (typeof o.probability === 'number') p = o.probability;
      else if (typeof o.true === 'number' && typeof o.false === 'number') {
        const s = (o.true as number) + (o.false as number);
        p = s > 0 ? (o.true as number) / s : NaN;
      } else if (typeof o.answer === 'boolean') p = o.answer ? 1 : 0;
    }
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) throw badAnswer(id, raw, `expected p in [0, 1], got ${JSON.stringify(raw)}`);
    return p;
  }
  const labels = Object.keys(q.criteria);
  const bad = (why: string) => badAnswer(id, raw, why);
  let probs: Record<string, number> | undefined;
  if (typeof raw === 'string') raw = { choice: raw };
  if (raw && typeof raw === 'object') {
    const o = raw as Record<string, unknown>;
    if (o.probabilities && typeof o.probabilities === 'object') {
      const src = o.probabilities as Record<string, unknown>;
      probs = {};
      for (const k of Object.keys(src)) if (!labels.includes(k)) throw bad(`unknown label "${k}"`);
      for (const l of labels) {
        // own properties only: a label such as "constructor" must not read Object.prototype
        const x = Object.prototype.hasOwnProperty.call(src, l) ? (src[l] ?? 0) : 0;
        if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw bad(`probability of "${l}" is ${JSON.stringify(x)}`);
        setOwn(probs, l, x);
      }
    } else if (typeof o.choice === 'string') {
      if (!labels.includes(o.choice)) throw bad(`unknown label "${o.choice}"`);
      probs = Object.fromEntries(labels.map((l) => [l, l === o.choice ? 1 : 0]));
    }
  }
  if (!probs) throw bad(`expected {probabilities} or {choice}, got ${JSON.stringify(raw)}`);
  return toChoiceAnswer(labels, probs, () => bad('probabilities sum to 0 or overflow'));
}

/** Renormalise a distribution over `labels` and pick the argmax (first label wins ties). */
export function toChoiceAnswer(
  labels: string[],
  probs: Record<string, number>,
  onZero: () => Error = () => new SystemOneError('INVALID_ANSWER', 'probabilities sum to 0 or overflow'),
): ChoiceAnswer {
  const own = (l: string) => (Object.prototype.hasOwnProperty.call(probs, l) ? (probs[l] ?? 0) : 0);
  let s = 0;
  for (const l of labels) s += own(l);
  // s = Infinity (e.g. two probabilities of 1e308) would turn every label into 0
  if (!(s > 0) || !Number.isFinite(s)) throw onZero();
  const out: Record<string, number> = {};
  let best = labels[0];
  let bestP = -1;
  for (const l of labels) {
    const p = own(l) / s;
    setOwn(out, l, p);
    if (p > bestP) {
      best = l;
      bestP = p;
    }
  }
  return { choice: best, probabilities: out };
}

/**
 * `o[k] = v` that also works for the key `__proto__` (a label or question id may be any string;
 * plain assignment of `__proto__` would set the prototype instead of a property).
 */
export function setOwn<V>(o: Record<string, V>, k: string, v: V): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}
