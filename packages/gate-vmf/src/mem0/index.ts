/**
 * `@mem/gate-vmf/mem0` — drop the SAGE novelty gate (seed 001 §3.4–3.5) in front of an existing
 * `mem0ai` OSS `Memory` (ours; `mem0ai` is an optional peer dependency and is never imported here:
 * the wrapper works on any object with Memory's method shapes).
 *
 * Each added message is embedded with your `embed` and routed in its scope (userId / agentId / runId):
 * - Noop → mem0's extraction is skipped (with `infer: true` that is one LLM call saved). With
 *   `onNoop: 'annotate'` (the default) the message is still stored, raw, by `memory.add(message,
 *   { ...config, infer: false })` with metadata `gate: 'noop'`, `duplicate_of` (the id of the memory
 *   it repeats) and `gate_score`, so it can be searched, shown and deleted; it is not committed to
 *   the gate. With `onNoop: 'skip'` it is dropped (SAGE's drop semantics);
 * - Add → forwarded to `memory.add` (all surviving messages of one call in one forwarded call);
 * - Update → `memory.update(nearest, merge(nearestText, message))` when the policy allows it,
 *   otherwise forwarded as an add.
 * The gate state of a scope is seeded from `memory.getAll` on first use and kept in step with
 * adds, updates, deletes, deleteAll and reset made through the wrapper.
 */
import { createNoveltyGate, type GateDecision, type NoveltyGate } from '../gate.js';
import { isNoopByScore, SAGE_DEFAULTS } from '../math.js';
import type { GateOptions } from '../options.js';
import { GateError } from '../errors.js';

/** The message shape of mem0ai (`{ role, content }`). */
export interface Mem0Message {
  role: string;
  content: string | Record<string, unknown>;
}

export interface Mem0MemoryItem {
  id: string;
  memory: string;
  metadata?: Record<string, any>;
  [key: string]: any;
}

/** Options of mem0ai `Memory.add` that the wrapper reads (others are passed through). */
export interface Mem0AddOptions {
  userId?: string;
  agentId?: string;
  runId?: string;
  filters?: Record<string, any>;
  infer?: boolean;
  metadata?: Record<string, any>;
  [key: string]: any;
}

/** The part of mem0ai's OSS `Memory` the wrapper uses (structural, so no import of mem0ai). */
export interface Mem0MemoryLike {
  add(messages: string | Mem0Message[], config: Mem0AddOptions): Promise<{ results: Mem0MemoryItem[] }>;
  search(query: string, config: any): Promise<{ results: Mem0MemoryItem[] }>;
  get(memoryId: string): Promise<Mem0MemoryItem | null>;
  getAll(config: { filters?: Record<string, any>; topK?: number; [key: string]: any }): Promise<{ results: Mem0MemoryItem[] }>;
  update(memoryId: string, config: string | { text?: string; [key: string]: any }): Promise<{ message: string }>;
  delete(memoryId: string): Promise<{ message: string }>;
  deleteAll(config: { userId?: string; agentId?: string; runId?: string }): Promise<{ message: string }>;
  history(memoryId: string): Promise<any[]>;
  reset(): Promise<void>;
}

export interface Mem0GatePolicy {
  /** 'adaptive': SAGE routing with the adaptive τ_t (§3.4). 'noop-filter': the fixed τ_noop pre-filter (§3.5). Default 'adaptive'. */
  gate?: 'adaptive' | 'noop-filter';
  /** What an Update decision does: 'update' the nearest memory, or forward as an 'add'. Default 'update'. */
  onUpdate?: 'update' | 'add';
  /** τ_noop for 'noop-filter' (seed 001 App. G). Default 0.572. */
  tauNoop?: number;
  /** Merge for Update (System Two hook, e.g. an LLM call). Default: the new message replaces the nearest memory's text. */
  merge?: (existing: string, incoming: string) => string | Promise<string>;
  /**
   * What a Noop does (ours): 'annotate' stores the message raw (`infer: false`, metadata `gate`,
   * `duplicate_of`, `gate_score`), skipping only the LLM; 'skip' drops it. Default 'annotate'.
   */
  onNoop?: 'annotate' | 'skip';
}

export interface WithNoveltyGateOptions {
  /** Embed one text (any length; normalized by the gate). Use the same model for all calls. */
  embed: (text: string) => ArrayLike<number> | Promise<ArrayLike<number>>;
  /** Scope key of an add/getAll call. Default: `user:<id>|agent:<id>|run:<id>` from userId/agentId/runId or filters.*_id. */
  scopeOf?: (ids: { userId?: string; agentId?: string; runId?: string }) => string;
  /** Routing policy, or just its `gate` field. Default 'adaptive' with updates of the nearest memory. */
  policy?: Mem0GatePolicy | 'adaptive' | 'noop-filter';
  /** An existing gate, or options for the one the wrapper creates (default `{ normalize: true }`). */
  gate?: NoveltyGate | GateOptions;
  /** At most this many memories are read per scope when seeding (mem0's getAll topK). Default 100 000. */
  seedLimit?: number;
}

export interface Mem0GateDecision {
  /** the message text */
  message: string;
  action: 'add' | 'update' | 'noop';
  /** Where the message went: `add` (Add), `update` (an Update), `annotate` (a Noop stored raw, `infer: false`), nowhere (a skipped Noop). */
  forwarded: 'add' | 'update' | 'annotate' | false;
  novelty: number;
  score: number;
  threshold: number;
  nearest: { id: string; cosine: number } | null;
}

export interface Mem0GatedAddResult {
  /** mem0's results for the forwarded part, plus `{ event: 'UPDATE' }` items for gate updates. */
  results: Mem0MemoryItem[];
  /** skipped: messages stored nowhere (Noops under onNoop 'skip'); annotated: Noops stored raw; forwardedAdd: whether memory.add ran with the caller's options. */
  gate: { scope: string; decisions: Mem0GateDecision[]; skipped: number; annotated: number; forwardedAdd: boolean };
}

export interface Mem0GateStats {
  messages: number;
  noop: number;
  add: number;
  update: number;
  /** memory.add calls made with the caller's options / not made with them (each one not made with infer: true is one extraction LLM call saved). */
  addCallsForwarded: number;
  addCallsSkipped: number;
  /** Noop messages stored raw (`infer: false`) under onNoop 'annotate'. */
  annotated: number;
  seededScopes: number;
}

export type GatedMem0<M extends Mem0MemoryLike> = Omit<M, 'add'> & {
  add(messages: string | Mem0Message[], config: Mem0AddOptions): Promise<Mem0GatedAddResult>;
  /** The gate holding the scopes' vectors. */
  readonly gate: NoveltyGate;
  /** The wrapped memory. */
  readonly memory: M;
  stats(): Mem0GateStats;
};

const pick = (a?: string, b?: unknown) => (typeof a === 'string' && a.trim() ? a.trim() : typeof b === 'string' && b.trim() ? b.trim() : undefined);

function idsOf(config: Mem0AddOptions | undefined): { userId?: string; agentId?: string; runId?: string } {
  const f = config?.filters ?? {};
  return { userId: pick(config?.userId, f.user_id), agentId: pick(config?.agentId, f.agent_id), runId: pick(config?.runId, f.run_id) };
}

/** Default scope key (ours): the three mem0 entity ids, empty when absent. */
export function defaultMem0Scope(ids: { userId?: string; agentId?: string; runId?: string }): string {
  return `user:${ids.userId ?? ''}|agent:${ids.agentId ?? ''}|run:${ids.runId ?? ''}`;
}

function textOf(m: Mem0Message): string | null {
  if (m.role === 'system') return null;
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/**
 * Wrap a mem0ai OSS `Memory` with the novelty gate. Returns an object with the Memory's methods;
 * `add` routes first and returns `{ results, gate }`.
 * @throws GateError BAD_OPTIONS when `embed` is missing
 */
export function withNoveltyGate<M extends Mem0MemoryLike>(memory: M, options: WithNoveltyGateOptions): GatedMem0<M> {
  if (!options || typeof options.embed !== 'function') throw new GateError('BAD_OPTIONS', 'withNoveltyGate: options.embed is required');
  const policy: Mem0GatePolicy = typeof options.policy === 'string' ? { gate: options.policy } : (options.policy ?? {});
  const mode = policy.gate ?? 'adaptive';
  const onUpdate = policy.onUpdate ?? 'update';
  const tauNoop = policy.tauNoop ?? SAGE_DEFAULTS.tauNoop;
  const merge = policy.merge ?? ((_old: string, incoming: string) => incoming);
  const onNoop = policy.onNoop ?? 'annotate';
  if (onNoop !== 'annotate' && onNoop !== 'skip') throw new GateError('BAD_OPTIONS', `withNoveltyGate: policy.onNoop must be 'annotate' or 'skip', got ${JSON.stringify(onNoop)}`);
  const scopeOf = options.scopeOf ?? defaultMem0Scope;
  const seedLimit = options.seedLimit ?? 100_000;
  const gate: NoveltyGate =
    options.gate && typeof (options.gate as NoveltyGate).route === 'function'
      ? (options.gate as NoveltyGate)
      : createNoveltyGate({ normalize: true, ...(options.gate as GateOptions | undefined) });

  const seeded = new Map<string, Promise<void>>();
  const scopeOfId = new Map<string, string>();
  const queues = new Map<string, Promise<unknown>>();
  const stats: Mem0GateStats = { messages: 0, noop: 0, add: 0, update: 0, addCallsForwarded: 0, addCallsSkipped: 0, annotated: 0, seededScopes: 0 };

  const embed = async (text: string) => await options.embed(text);

  /** Run `fn` after every earlier task of the scope (adds of one scope never interleave). */
  const serial = <T>(scope: string, fn: () => Promise<T>): Promise<T> => {
    const prev = queues.get(scope) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    queues.set(scope, next.catch(() => undefined));
    return next;
  };

  const ensureSeeded = (scope: string, ids: { userId?: string; agentId?: string; runId?: string }): Promise<void> => {
    let p = seeded.get(scope);
    if (!p) {
      p = (async () => {
        const filters: Record<string, string> = {};
        if (ids.userId) filters.user_id = ids.userId;
        if (ids.agentId) filters.agent_id = ids.agentId;
        if (ids.runId) filters.run_id = ids.runId;
        const all = await memory.getAll({ filters, topK: seedLimit });
        const items: { id: string; vector: ArrayLike<number> }[] = [];
        for (const m of all.results ?? []) {
          if (!m?.id || typeof m.memory !== 'string' || gate.has(scope, m.id)) continue;
          if (m.metadata?.gate === 'noop') continue; // a raw Noop memory: never in the gate (see onNoop)
          items.push({ id: m.id, vector: await embed(m.memory) });
          scopeOfId.set(m.id, scope);
        }
        gate.seed(scope, items);
        stats.seededScopes++;
      })();
      seeded.set(scope, p);
      p.catch(() => seeded.delete(scope));
    }
    return p;
  };

  const decide = (scope: string, v: ArrayLike<number>): GateDecision & { action: 'add' | 'update' | 'noop' } => {
    const d = gate.route(scope, v);
    if (mode === 'noop-filter') return { ...d, action: d.n > 0 && isNoopByScore(d.score, tauNoop) ? 'noop' : 'add' };
    return d;
  };

  const commitResults = async (scope: string, results: Mem0MemoryItem[], cache: Map<string, ArrayLike<number>>) => {
    for (const r of results) {
      if (!r?.id || typeof r.memory !== 'string' || gate.has(scope, r.id)) continue;
      const v = cache.get(r.memory) ?? (await embed(r.memory));
      gate.commit(scope, r.id, v);
      scopeOfId.set(r.id, scope);
    }
  };

  const g: GatedAdd = { memory, gate, stats, embed, serial, ensureSeeded, decide, commitResults, scopeOf, onUpdate, onNoop, merge };
  const add = (messages: string | Mem0Message[], config: Mem0AddOptions): Promise<Mem0GatedAddResult> => gatedAdd(g, messages, config);

  const forget = (id: string) => {
    const scope = scopeOfId.get(id);
    if (scope !== undefined) {
      gate.remove(scope, id);
      scopeOfId.delete(id);
      return;
    }
    for (const s of gate.scopes()) if (gate.remove(s, id)) return;
  };

  const wrapped = {
    gate,
    memory,
    stats: () => ({ ...stats }),
    add,
    search: (query: string, config: any) => memory.search(query, config),
    get: (id: string) => memory.get(id),
    getAll: (config: any) => memory.getAll(config),
    history: (id: string) => memory.history(id),
    async update(memoryId: string, config: string | { text?: string; [key: string]: any }) {
      const out = await memory.update(memoryId, config);
      const text = typeof config === 'string' ? config : (config?.text ?? config?.data);
      const scope = scopeOfId.get(memoryId);
      if (typeof text === 'string' && scope !== undefined && gate.has(scope, memoryId)) gate.replace(scope, memoryId, await embed(text));
      return out;
    },
    async delete(memoryId: string) {
      const out = await memory.delete(memoryId);
      forget(memoryId);
      return out;
    },
    async deleteAll(config: { userId?: string; agentId?: string; runId?: string }) {
      const out = await memory.deleteAll(config);
      const scope = scopeOf(idsOf(config));
      gate.dropScope(scope);
      seeded.delete(scope);
      for (const [id, s] of scopeOfId) if (s === scope) scopeOfId.delete(id);
      return out;
    },
    async reset() {
      await memory.reset();
      for (const s of gate.scopes()) gate.dropScope(s);
      seeded.clear();
      scopeOfId.clear();
    },
  };
  return new Proxy(wrapped, {
    get(target, prop, receiver) {
      if (prop in target) return Reflect.get(target, prop, receiver);
      const v = (memory as any)[prop];
      return typeof v === 'function' ? v.bind(memory) : v;
    },
  }) as unknown as GatedMem0<M>;
}

/** What a gated add needs of its wrapper (ours). */
interface GatedAdd {
  memory: Mem0MemoryLike;
  gate: NoveltyGate;
  stats: Mem0GateStats;
  embed(text: string): Promise<ArrayLike<number>>;
  /** Run after every earlier task of the scope. */
  serial<T>(scope: string, fn: () => Promise<T>): Promise<T>;
  /** Seed the scope's gate from the memories mem0 already holds (once per scope). */
  ensureSeeded(scope: string, ids: { userId?: string; agentId?: string; runId?: string }): Promise<void>;
  decide(scope: string, v: ArrayLike<number>): GateDecision & { action: 'add' | 'update' | 'noop' };
  commitResults(scope: string, results: Mem0MemoryItem[], cache: Map<string, ArrayLike<number>>): Promise<void>;
  scopeOf(ids: { userId?: string; agentId?: string; runId?: string }): string;
  onUpdate: NonNullable<Mem0GatePolicy['onUpdate']>;
  onNoop: NonNullable<Mem0GatePolicy['onNoop']>;
  merge(old: string, incoming: string): string | Promise<string>;
}

/**
 * The gated `add` (SAGE §3.4 routing in front of mem0, ours in detail): route every message; forward
 * the Adds (and Updates without a nearest memory, or with `onUpdate: 'add'`) in one mem0 add, store
 * Noops raw (`infer: false`, annotated) under `onNoop: 'annotate'`, and merge Updates into their nearest memory.
 */
async function gatedAdd(g: GatedAdd, messages: string | Mem0Message[], config: Mem0AddOptions): Promise<Mem0GatedAddResult> {
  const { memory, gate, stats, embed, serial, ensureSeeded, decide, commitResults, scopeOf, onUpdate, onNoop, merge } = g;
  const ids = idsOf(config);
  const scope = scopeOf(ids);
  return serial(scope, async () => {
    await ensureSeeded(scope, ids);
    const list: Mem0Message[] = typeof messages === 'string' ? [{ role: 'user', content: messages }] : Array.isArray(messages) ? messages : [];
    const decisions: Mem0GateDecision[] = [];
    const forward: Mem0Message[] = [];
    const updates: { text: string; nearest: string; v: ArrayLike<number> }[] = [];
    const raw: { message: Mem0Message; nearest: string; score: number }[] = [];
    const cache = new Map<string, ArrayLike<number>>();
    for (const m of list) {
      const text = textOf(m);
      if (text === null) {
        forward.push(m); // system messages travel with the forwarded part
        continue;
      }
      if (!text.trim()) continue;
      const v = await embed(text);
      cache.set(text, v);
      const d = decide(scope, v);
      stats.messages++;
      stats[d.action]++;
      let forwarded: Mem0GateDecision['forwarded'] = false;
      if (d.action === 'add' || (d.action === 'update' && (onUpdate === 'add' || !d.nearest))) {
        forward.push(m);
        forwarded = 'add';
      } else if (d.action === 'update') {
        updates.push({ text, nearest: d.nearest!.id, v });
        forwarded = 'update';
      } else if (onNoop === 'annotate') {
        raw.push({ message: m, nearest: d.nearest?.id ?? '', score: d.score });
        forwarded = 'annotate';
      }
      decisions.push({ message: text, action: d.action, forwarded, novelty: d.novelty, score: d.score, threshold: d.threshold, nearest: d.nearest });
    }
    const results: Mem0MemoryItem[] = [];
    const forwardAdd = forward.some((m) => textOf(m) !== null);
    if (forwardAdd) {
      const out = await memory.add(typeof messages === 'string' ? String(textOf(forward[forward.length - 1])) : forward, config);
      stats.addCallsForwarded++;
      results.push(...(out?.results ?? []));
      await commitResults(scope, out?.results ?? [], cache);
    } else {
      stats.addCallsSkipped++;
    }
    for (const r of raw) {
      // mem0's own no-LLM path; one call per message, so each keeps its own link
      const metadata = { ...(config?.metadata ?? {}), gate: 'noop', duplicate_of: r.nearest, gate_score: r.score };
      const out = await memory.add([r.message], { ...config, infer: false, metadata });
      stats.annotated++;
      results.push(...(out?.results ?? []));
    }
    for (const u of updates) {
      const existing = await memory.get(u.nearest);
      const merged = await merge(existing?.memory ?? '', u.text);
      await memory.update(u.nearest, { text: merged });
      gate.replace(scope, u.nearest, merged === u.text ? u.v : await embed(merged));
      results.push({ id: u.nearest, memory: merged, metadata: { event: 'UPDATE', previous: existing?.memory ?? null } });
    }
    return { results, gate: { scope, decisions, skipped: decisions.filter((d) => !d.forwarded).length, annotated: raw.length, forwardedAdd: forwardAdd } };
  });
}
