/**
 * The SQLite side of re-embedding a store into a new embedding space (ours, issue 32 point 4); the
 * orchestration (embedding, the gate, progress) is `reembedStore` in src/transfer/reembed.ts.
 *
 * Crash safety: until the switch, the new vectors live only in a staging table
 * (`reembed_vectors`, created on demand, one row per node: its text's SHA-256 and its new vector;
 * `ON DELETE CASCADE` from `nodes`, so a forget removes a staged vector with its node) and the
 * target embedder in the meta key `reembedTarget`; no reader looks at either, so the store is in the
 * old space however often the process dies. The switch is ONE SQLite transaction: it checks that
 * every node has a staged vector of its current text, rewrites every node's embedding and gate
 * decision, replaces the scopes' derived state, records the new embedder in the meta, and drops the
 * staging table. A kill before its commit leaves the old space, after it the new one: never a mix.
 * Staging commits batch by batch, so a killed run resumes where it stopped.
 *
 * One run at a time: the run owning the staging area is recorded in the meta (`reembedOwner`: pid,
 * a per-run token); a second run while the owner's process lives fails with STORE_CONFLICT, and
 * every staging batch and the switch check that the area is still theirs. A dead owner's area is
 * taken over (and resumed when it staged for the same embedder).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { StoreConflictError, StoreMetaMismatchError, MemValidationError } from '../errors.js';
import type { GateDecisionRecord, ResolvedScope, StoreMeta } from '../types.js';
import { fromBlob, toBlob } from './sqlite-rows.js';

/** The embedder a re-embedding writes (recorded in the meta as `reembedTarget` while staging). */
export interface ReembedTarget {
  model: string;
  dimension: number;
}

/** One node handed to the gate replay of the switch, in id (write) order. */
export interface RegateNode {
  id: string;
  gate: GateDecisionRecord | null;
  /** The vector in the old space. */
  oldEmbedding: Float32Array;
  /** The vector in the new space (as staged). */
  embedding: Float32Array;
}

/**
 * Recompute a scope's gate decisions in the new space (called inside the switch transaction,
 * synchronously): one decision (or null) per node, same order, and the derived state to save for
 * the scope (`name` → value; every other derived state of the scope is dropped).
 */
export type Regate = (scope: ResolvedScope, nodes: RegateNode[]) => { gates: (GateDecisionRecord | null)[]; state: { name: string; value: string }[] };

export const textSha = (text: string): string => createHash('sha256').update(text).digest('base64url');

const TABLE = 'reembed_vectors';

/**
 * The run that owns the staging area (meta key `reembedOwner`): one re-embedding per file at a
 * time. `token` is unique per `reembedStore` call; a live owner of another token makes a second run
 * fail with STORE_CONFLICT instead of staging into (or switching away) the first one's table.
 */
export interface ReembedOwner {
  pid: number;
  /** The process's start time in clock ticks since boot (Linux `/proc/<pid>/stat` field 22), when known: a reused pid is another process. */
  pidStart?: number;
  token: string;
  startedAt: string;
  model: string;
}

/** A process's start time in clock ticks since boot (Linux); undefined elsewhere or when unreadable. */
export function processStart(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces and parentheses: fields after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[19]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the run that recorded `owner` still runs: its pid is alive and, where known, is the same process (not a reused pid). */
export function ownerAlive(owner: ReembedOwner, alive: (pid: number) => boolean): boolean {
  if (!alive(owner.pid)) return false;
  if (owner.pidStart === undefined) return true;
  const now = processStart(owner.pid);
  return now === undefined || now === owner.pidStart;
}

function readOwner(db: Database.Database): ReembedOwner | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'reembedOwner'").get() as { value: string } | undefined;
  if (!row) return null;
  try {
    const o = JSON.parse(row.value) as ReembedOwner;
    return Number.isInteger(o?.pid) && typeof o?.token === 'string' ? o : null;
  } catch {
    return null;
  }
}

/** Refuse when the staging area is no longer this run's (another run took it over, or switched). */
function requireOwner(db: Database.Database, token: string): void {
  const owner = readOwner(db);
  if (owner?.token !== token) {
    throw new StoreConflictError(
      owner
        ? `Another re-embedding (process ${owner.pid}, to ${owner.model}, started ${owner.startedAt}) took over this file's staging area; this run stopped, nothing of it was switched`
        : 'Another re-embedding of this file finished or gave up while this one ran; this run stopped (run it again to check the store)',
      { details: { owner } },
    );
  }
}

function readTarget(db: Database.Database): ReembedTarget | null {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'reembedTarget'").get() as { value: string } | undefined;
  if (!row) return null;
  try {
    const t = JSON.parse(row.value) as ReembedTarget;
    return typeof t?.model === 'string' && Number.isInteger(t?.dimension) ? t : null;
  } catch {
    return null;
  }
}

/**
 * Start or resume staging for `target` (inside the caller's IMMEDIATE transaction): a staging area
 * of another target is discarded. Returns how many nodes are staged already and how many there are.
 */
export function beginStaging(db: Database.Database, meta: StoreMeta, target: ReembedTarget, owner: ReembedOwner, alive: (pid: number) => boolean): { staged: number; total: number; resumed: boolean } {
  const running = readOwner(db);
  if (running && running.token !== owner.token && ownerAlive(running, alive)) {
    throw new StoreConflictError(
      `Another mem reembed (process ${running.pid}, to ${running.model}, started ${running.startedAt}) is re-embedding this file; wait for it to end, or stop it (a later run resumes from the vectors it staged)`,
      { details: { owner: running } },
    );
  }
  if (target.model === meta.embeddingModel && target.dimension === meta.dimension) {
    throw new MemValidationError('INVALID_INPUT', `The store is already embedded with ${target.model} (${target.dimension}-d)`, { details: { model: target.model } });
  }
  // a dead owner's area (killed run) is taken over: resumed when it staged for the same embedder
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('reembedOwner', ?)").run(JSON.stringify(owner));
  const have = readTarget(db);
  const same = have !== null && have.model === target.model && have.dimension === target.dimension;
  const exists = !!db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(TABLE);
  if (!same || !exists) {
    db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
    db.exec(`CREATE TABLE ${TABLE} (rid INTEGER PRIMARY KEY REFERENCES nodes(rid) ON DELETE CASCADE, text_sha TEXT NOT NULL, embedding BLOB NOT NULL) STRICT`);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('reembedTarget', ?)").run(JSON.stringify({ model: target.model, dimension: target.dimension }));
  }
  const total = (db.prepare('SELECT COUNT(*) AS c FROM nodes').get() as { c: number }).c;
  const staged = (db.prepare(`SELECT COUNT(*) AS c FROM ${TABLE}`).get() as { c: number }).c;
  return { staged, total, resumed: same && exists && staged > 0 };
}

/**
 * Up to `limit` nodes after row id `afterRid` (row order) without a staged vector of their current
 * text (a read). Callers walk the file with the last rid returned as the next `afterRid`.
 */
export function pendingNodes(db: Database.Database, afterRid: number, limit: number): { rows: { rid: number; text: string }[]; lastRid: number | null } {
  const page = db.prepare(`SELECT n.rid, n.text, r.text_sha FROM nodes n LEFT JOIN ${TABLE} r ON r.rid = n.rid WHERE n.rid > ? ORDER BY n.rid LIMIT ?`);
  const out: { rid: number; text: string }[] = [];
  let last = afterRid;
  for (;;) {
    const rows = page.all(last, Math.max(limit, 256)) as { rid: number; text: string; text_sha: string | null }[];
    if (rows.length === 0) return { rows: out, lastRid: out.length ? last : null };
    for (const r of rows) {
      last = r.rid;
      if (r.text_sha !== null && r.text_sha === textSha(r.text)) continue;
      out.push({ rid: r.rid, text: r.text });
      if (out.length >= limit) return { rows: out, lastRid: last };
    }
  }
}

/** Stage new vectors (inside the caller's transaction); a node forgotten meanwhile is skipped. */
export function stageVectors(db: Database.Database, rows: { rid: number; text: string; embedding: Float32Array }[], token: string): number {
  requireOwner(db, token);
  const put = db.prepare(
    `INSERT INTO ${TABLE} (rid, text_sha, embedding) SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM nodes WHERE rid = ?)
     ON CONFLICT (rid) DO UPDATE SET text_sha = excluded.text_sha, embedding = excluded.embedding`,
  );
  let n = 0;
  for (const r of rows) n += put.run(r.rid, textSha(r.text), toBlob(r.embedding), r.rid).changes;
  return n;
}

/**
 * The switch (inside the caller's IMMEDIATE transaction): when every node has a staged vector of
 * its current text, rewrite embeddings and gate decisions scope by scope, replace the derived state,
 * record the new embedder, drop the staging table; otherwise change nothing and return how many
 * nodes still need a vector. `onScope` is called after each scope (inside the transaction).
 */
export function switchSpace(
  db: Database.Database,
  meta: StoreMeta,
  target: ReembedTarget,
  regate: Regate,
  now: string,
  onScope?: (done: number, total: number) => void,
  token?: string,
): { missing: number } {
  if (token !== undefined) requireOwner(db, token);
  const have = readTarget(db);
  if (!have || have.model !== target.model || have.dimension !== target.dimension) {
    throw new StoreMetaMismatchError(`Another re-embedding (to ${have?.model ?? 'nothing'}) replaced this one's staging area; nothing was switched`, { details: { target, staging: have } });
  }
  let missing = 0;
  for (const r of db.prepare(`SELECT n.text, r.text_sha FROM nodes n LEFT JOIN ${TABLE} r ON r.rid = n.rid`).iterate() as Iterable<{ text: string; text_sha: string | null }>) {
    if (r.text_sha === null || r.text_sha !== textSha(r.text)) missing++;
  }
  if (missing > 0) return { missing };
  const scopes = db.prepare('SELECT sid, namespace, user_id, agent_id, run_id FROM scopes WHERE node_count > 0 ORDER BY sid').all() as {
    sid: number;
    namespace: string;
    user_id: string;
    agent_id: string;
    run_id: string;
  }[];
  const rowsOf = db.prepare(`SELECT n.rid, n.id, n.gate, n.embedding AS old, r.embedding AS new FROM nodes n JOIN ${TABLE} r ON r.rid = n.rid WHERE n.sid = ? ORDER BY n.id`);
  const update = db.prepare('UPDATE nodes SET embedding = ?, gate = ? WHERE rid = ?');
  const dropState = db.prepare('DELETE FROM scope_state WHERE sid = ?');
  // one REEMBED history row per scope: a writer holding the scope's old state rebuilds it (GateRegistry.catchUp)
  const marker = db.prepare("INSERT INTO history (sid, op, node_id, at, data) VALUES (?, 'REEMBED', NULL, ?, ?)");
  const markerData = JSON.stringify({ from: `${meta.embeddingModel} (${meta.dimension}-d)`, to: `${target.model} (${target.dimension}-d)` });
  const putState = db.prepare('INSERT INTO scope_state (sid, name, value, updated_at) VALUES (?, ?, ?, ?)');
  scopes.forEach((s, i) => {
    const rows = rowsOf.all(s.sid) as { rid: number; id: string; gate: string | null; old: Buffer; new: Buffer }[];
    const nodes: RegateNode[] = rows.map((r) => ({ id: r.id, gate: r.gate ? (JSON.parse(r.gate) as GateDecisionRecord) : null, oldEmbedding: fromBlob(r.old), embedding: fromBlob(r.new) }));
    if (nodes.some((n) => n.embedding.length !== target.dimension)) throw new StoreMetaMismatchError(`A staged vector is not ${target.dimension}-d; nothing was switched`);
    const { gates, state } = regate({ namespace: s.namespace, userId: s.user_id, agentId: s.agent_id, runId: s.run_id }, nodes);
    rows.forEach((r, j) => update.run(toBlob(nodes[j]!.embedding), gates[j] ? JSON.stringify(gates[j]) : null, r.rid));
    dropState.run(s.sid);
    for (const st of state) putState.run(s.sid, st.name, st.value, now);
    marker.run(s.sid, now, markerData);
    onScope?.(i + 1, scopes.length);
  });
  // derived state of scopes without nodes (left by forgets) described the old space too
  db.prepare('DELETE FROM scope_state WHERE sid IN (SELECT sid FROM scopes WHERE node_count = 0)').run();
  const put = db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)');
  put.run('previousEmbeddingModel', `${meta.embeddingModel} (${meta.dimension}-d)`);
  put.run('embeddingModel', target.model);
  put.run('dimension', String(target.dimension));
  put.run('reembeddedAt', now);
  db.prepare("DELETE FROM meta WHERE key IN ('reembedTarget', 'reembedOwner')").run();
  db.exec(`DROP TABLE ${TABLE}`);
  return { missing: 0 };
}

/** Give up ownership of the staging area (the run ended with an error); the staged vectors stay for a resume. */
export function releaseStaging(db: Database.Database, token: string): void {
  db.prepare("DELETE FROM meta WHERE key = 'reembedOwner' AND json_extract(value, '$.token') = ?").run(token);
}

/** Drop a staging area (e.g. the caller gave up); the store stays in its space. */
export function discardStaging(db: Database.Database): void {
  db.exec(`DROP TABLE IF EXISTS ${TABLE}`);
  db.prepare("DELETE FROM meta WHERE key IN ('reembedTarget', 'reembedOwner')").run();
}
