/**
 * In-process vector index of one scope (ours): unit-normalised copies of the scope's vectors in one
 * contiguous Float32Array (exact k-NN by scan), plus an optional HNSW graph (hnswlib-node, inner
 * product on unit vectors = cosine) built lazily once the scope is large. The index is a cache: the
 * source of truth is the store's BLOBs, and it can always be rebuilt from them.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { threadId } from 'node:worker_threads';

/** Saves started by this thread (part of the temporary file names). */
let saveSeq = 0;

type Hnsw = {
  initIndex(opts: { maxElements: number; m?: number; efConstruction?: number; randomSeed?: number; allowReplaceDeleted?: boolean }): void;
  resizeIndex(n: number): void;
  addPoint(point: number[], label: number): void;
  markDelete(label: number): void;
  readIndexSync(filename: string): void;
  writeIndexSync(filename: string): void;
  getIdsList(): number[];
  getPoint(label: number): number[];
  getNumDimensions(): number;
  searchKnn(q: number[], k: number, filter?: (label: number) => boolean): { distances: number[]; neighbors: number[] };
  setEf(ef: number): void;
  getMaxElements(): number;
  getCurrentCount(): number;
};

let hnswCtor: (new (space: string, dim: number) => Hnsw) | null | undefined;
function loadHnsw(): (new (space: string, dim: number) => Hnsw) | null {
  if (hnswCtor === undefined) {
    try {
      const req = createRequire(import.meta.url);
      hnswCtor = req('hnswlib-node').HierarchicalNSW;
    } catch {
      hnswCtor = null;
    }
  }
  return hnswCtor ?? null;
}

export interface AnnOptions {
  /** Build an HNSW index for a scope once it holds more than this many nodes. Default 5000. */
  threshold?: number;
  /** HNSW graph degree M. Default 16 (hnswlib's default). */
  m?: number;
  /** HNSW efConstruction. Default 64 (ours: build speed over a little recall; results are re-scored exactly). */
  efConstruction?: number;
  /** HNSW ef at query time (raised to 2k when k is larger). Default 256 (ours: recall@10 0.96 on uniform 100-d vectors at N = 10k, see src/store/bench.ts). */
  efSearch?: number;
  /** Vectors written since the HNSW graph last caught up are scanned exactly up to this many; beyond it the next search inserts them. Default 1024. */
  maxTail?: number;
  /**
   * 'background' (default): build in ~20 ms slices between other work (an unref'd timer, so it never
   * keeps the process alive) and one slice per search, scanning exactly until ready; 'blocking':
   * build inside the first search.
   */
  build?: 'background' | 'blocking';
  /**
   * File stores only: on `close()` save each scope's finished HNSW graph next to the SQLite file
   * (`<path>.ann/<scope row id>.hnsw`, hnswlib's own format, with a sha256 header), and load it when
   * the scope's vectors are next read, checked against the stored vectors (forgotten rows deleted,
   * changed ones updated, new ones scanned as the tail; a file that does not match is ignored and the
   * graph rebuilt). Default true (ours).
   */
  persist?: boolean;
}

export type ResolvedAnnOptions = Required<AnnOptions>;

export const ANN_DEFAULTS: ResolvedAnnOptions = { threshold: 5000, m: 16, efConstruction: 64, efSearch: 256, maxTail: 1024, build: 'background', persist: true };

/** Header saved next to a persisted HNSW graph (ours). */
interface AnnFileHeader {
  format: '@mem/core-hnsw';
  version: 1;
  /** Which store and scope the graph belongs to (the store's creation stamp and scope row id). */
  identity: string;
  dim: number;
  m: number;
  efConstruction: number;
  /** sha256 of the graph file: a torn or foreign file is never handed to hnswlib's reader. */
  sha256: string;
  bytes: number;
  /** Alive rows in the graph when saved (the first `rows` slots in row-id order). */
  rows: number;
  /** Labels in the graph (alive + deleted). */
  labels: number;
  /** sha256 of those rows' ids and vectors ({@link ScopeVectors.rowsDigest}): equal on load = nothing to check row by row. */
  rowsDigest: string;
}

/**
 * Whether `bytes` is a whole hnswlib index file of `dim`-dimensional float vectors (ours; the walk
 * hnswlib's `loadIndex` does before it trusts a file, done on our copy): its fixed header (13 fields,
 * 96 bytes on 64-bit builds), the level-0 block of `cur_element_count` elements, then each element's
 * upper-level link list (a uint32 size + that many bytes), ending exactly at the end of the file.
 * hnswlib's writer reports no I/O error, so a save cut short (disk full, file size limit) is caught
 * here before it replaces a good file; on load it also refuses a graph of another dimension.
 */
export function hnswFileComplete(bytes: Buffer, dim: number): boolean {
  const HEADER = 96;
  if (bytes.length < HEADER) return false;
  const count = bytes.readBigUInt64LE(16);
  const perElement = bytes.readBigUInt64LE(24);
  const labelOffset = bytes.readBigUInt64LE(32);
  const dataOffset = bytes.readBigUInt64LE(40);
  if (labelOffset - dataOffset !== BigInt(dim * 4)) return false;
  const level0 = count * perElement;
  if (level0 > BigInt(bytes.length)) return false;
  let pos = HEADER + Number(level0);
  for (let i = 0, n = Number(count); i < n; i++) {
    if (pos + 4 > bytes.length) return false;
    pos += 4 + bytes.readUInt32LE(pos);
  }
  return pos === bytes.length;
}

/** What loading a persisted graph did (ours; for tests and `annStatus`). */
export interface AnnLoadReport {
  loaded: boolean;
  /** Why a file was not used (absent, header, hash, shape mismatch). */
  reason?: string;
  /** Rows of the graph that are no longer in the scope (deleted on load). */
  removed?: number;
  /** Rows whose stored vector changed since the save (updated on load). */
  updated?: number;
  /** Rows stored since the save (scanned exactly as the tail until inserted). */
  tail?: number;
}

/** Share of the coordinates `ScopeVectors.exact` sums before it tries to drop rows by their tail bound (ours). */
export const EXACT_HEAD_FRACTION = 0.5;

/** Run `fn` on a later turn of the event loop without keeping the process alive for it. */
function later(fn: () => void): void {
  setTimeout(fn, 0).unref();
}

export interface Hit {
  rid: number;
  score: number;
}

/** Normalise into `out` (length dim) from `v`; returns false for a zero vector. */
export function normalizeInto(v: ArrayLike<number>, out: Float32Array, offset = 0): boolean {
  let sq = 0;
  for (let i = 0; i < v.length; i++) sq += v[i] * v[i];
  if (!(sq > 0)) return false;
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < v.length; i++) out[offset + i] = v[i] * inv;
  return true;
}

/** Keeps the k best (rid, score) pairs; sorted descending by score, ties by rid ascending. */
class TopK {
  readonly rids: number[] = [];
  readonly scores: number[] = [];
  constructor(private readonly k: number) {}
  get min(): number {
    return this.rids.length < this.k ? -Infinity : this.scores[this.scores.length - 1];
  }
  push(rid: number, score: number): void {
    if (this.k <= 0) return;
    const n = this.rids.length;
    if (n >= this.k) {
      const last = this.scores[n - 1];
      if (score < last || (score === last && rid > this.rids[n - 1])) return;
    }
    let i = n;
    while (i > 0 && (this.scores[i - 1] < score || (this.scores[i - 1] === score && this.rids[i - 1] > rid))) i--;
    this.rids.splice(i, 0, rid);
    this.scores.splice(i, 0, score);
    if (this.rids.length > this.k) {
      this.rids.pop();
      this.scores.pop();
    }
  }
  hits(): Hit[] {
    return this.rids.map((rid, i) => ({ rid, score: this.scores[i] }));
  }
}

export class ScopeVectors {
  private vecs: Float32Array;
  /** ‖tail‖ of each slot's unit vector: the norm of its coordinates [head, dim) (see `exact`). */
  private tails: Float64Array;
  private readonly head: number;
  private rids: number[] = [];
  private alive: Uint8Array;
  private readonly pos = new Map<number, number>();
  private n = 0; // slots used (alive or dead)
  private ann: Hnsw | null = null;
  private annState: 'none' | 'building' | 'ready' = 'none';
  private annAdded = 0; // slots [0, annAdded) are in the HNSW graph (or dead)
  private annDeleted = 0;
  private annCount = 0;
  private building: Promise<void> | null = null;
  private generation = 0;
  /** The graph changed since it was loaded or saved (see saveAnn). */
  private annDirty = false;
  lastUsed = 0;

  constructor(
    readonly dim: number,
    private readonly ann_: ResolvedAnnOptions | null,
    capacity = 64,
  ) {
    this.vecs = new Float32Array(capacity * dim);
    this.tails = new Float64Array(capacity);
    this.head = Math.ceil(dim * EXACT_HEAD_FRACTION);
    this.alive = new Uint8Array(capacity);
  }

  private setTail(slot: number): void {
    const o = slot * this.dim;
    let t = 0;
    for (let j = this.head; j < this.dim; j++) t += this.vecs[o + j] * this.vecs[o + j];
    this.tails[slot] = Math.sqrt(t);
  }

  get size(): number {
    return this.pos.size;
  }

  /** Bytes held (vectors only). */
  get bytes(): number {
    return this.vecs.byteLength;
  }

  /** Slots written since the HNSW graph last caught up (scanned exactly by searches). */
  get pending(): number {
    return this.annState === 'none' ? 0 : this.n - this.annAdded;
  }

  get annStatus(): 'none' | 'building' | 'ready' {
    return this.annState;
  }

  private grow(): void {
    const cap = this.alive.length * 2;
    const vecs = new Float32Array(cap * this.dim);
    vecs.set(this.vecs.subarray(0, this.n * this.dim));
    const tails = new Float64Array(cap);
    tails.set(this.tails.subarray(0, this.n));
    this.tails = tails;
    const alive = new Uint8Array(cap);
    alive.set(this.alive.subarray(0, this.n));
    this.vecs = vecs;
    this.alive = alive;
  }

  /** Insert or replace the vector of `rid`. */
  upsert(rid: number, v: ArrayLike<number>): void {
    const old = this.pos.get(rid);
    if (old !== undefined) {
      normalizeInto(v, this.vecs, old * this.dim);
      this.setTail(old);
      if (this.ann && old < this.annAdded) {
        this.ann.addPoint(Array.from(this.vecs.subarray(old * this.dim, (old + 1) * this.dim)), rid);
        this.annDirty = true;
      }
      return;
    }
    if (this.n === this.alive.length) this.compactOrGrow();
    const slot = this.n++;
    normalizeInto(v, this.vecs, slot * this.dim);
    this.setTail(slot);
    this.rids[slot] = rid;
    this.alive[slot] = 1;
    this.pos.set(rid, slot);
    // New vectors join the HNSW graph off the write path (a background drain); until then
    // searches scan the tail [annAdded, n) exactly, so results are always complete.
    if (this.annState === 'ready') this.scheduleDrain();
  }

  private draining = false;
  private scheduleDrain(): void {
    if (this.draining) return;
    this.draining = true;
    const tick = () => {
      if (this.annState !== 'ready' || !this.ann) {
        this.draining = false;
        return;
      }
      const t0 = performance.now();
      while (this.annAdded < this.n && performance.now() - t0 < 5) {
        const slot = this.annAdded;
        if (this.alive[slot]) this.annAdd(slot);
        else this.annAdded = slot + 1;
      }
      if (this.annAdded < this.n) later(tick);
      else this.draining = false;
    };
    later(tick);
  }

  remove(rid: number): void {
    const slot = this.pos.get(rid);
    if (slot === undefined) return;
    this.pos.delete(rid);
    this.alive[slot] = 0;
    if (this.ann && slot < this.annAdded) {
      this.ann.markDelete(rid);
      this.annDeleted++;
      this.annDirty = true;
    }
  }

  private compactOrGrow(): void {
    const dead = this.n - this.pos.size;
    // Compaction reorders slots; only when no HNSW build is in progress (slots < annAdded must stay put).
    const graphComplete = this.annState === 'none' || (this.annState === 'ready' && this.annAdded === this.n);
    if (dead > this.n / 4 && graphComplete) {
      let w = 0;
      for (let r = 0; r < this.n; r++) {
        if (!this.alive[r]) continue;
        if (w !== r) {
          this.vecs.copyWithin(w * this.dim, r * this.dim, (r + 1) * this.dim);
          this.tails[w] = this.tails[r];
          this.rids[w] = this.rids[r];
          this.alive[w] = 1;
        }
        this.pos.set(this.rids[w], w);
        w++;
      }
      this.alive.fill(0, w, this.n);
      this.rids.length = w;
      this.n = w;
      this.annAdded = this.annState === 'ready' ? w : 0;
      if (this.n < this.alive.length * 0.75) return;
    }
    this.grow();
  }

  private annAdd(slot: number): void {
    const ann = this.ann!;
    this.annDirty = true;
    if (this.annCount + 1 > ann.getMaxElements()) ann.resizeIndex(Math.max(1024, ann.getMaxElements() * 2));
    ann.addPoint(Array.from(this.vecs.subarray(slot * this.dim, (slot + 1) * this.dim)), this.rids[slot]);
    this.annCount++;
    if (slot >= this.annAdded) this.annAdded = slot + 1;
  }

  /** Whether the scope is large enough for an HNSW graph. */
  wantsAnn(): boolean {
    return !!this.ann_ && this.size > this.ann_.threshold && loadHnsw() !== null;
  }

  /** Add pending slots to the graph for up to `sliceMs` (0 = until done). True when the graph is complete. */
  private buildStep(sliceMs: number): boolean {
    const t0 = performance.now();
    while (this.annAdded < this.n) {
      const slot = this.annAdded;
      if (this.alive[slot]) this.annAdd(slot);
      else this.annAdded = slot + 1;
      if (sliceMs > 0 && (slot & 63) === 0 && performance.now() - t0 > sliceMs) return false;
    }
    this.annState = 'ready';
    return true;
  }

  /**
   * Build the HNSW graph (idempotent). `slice` = ms of work per event-loop turn; 0 = build (or
   * finish a background build) synchronously now. Resolves when ready.
   */
  buildAnn(slice = 20): Promise<void> {
    if (this.annState === 'ready') return Promise.resolve();
    if (this.annState === 'building') {
      if (slice <= 0) this.buildStep(0);
      return this.building ?? Promise.resolve();
    }
    const Ctor = loadHnsw();
    if (!Ctor || !this.ann_) return Promise.resolve();
    const opts = this.ann_;
    const ann = new Ctor('ip', this.dim);
    ann.initIndex({ maxElements: Math.max(1024, Math.ceil(this.size * 1.25)), m: opts.m, efConstruction: opts.efConstruction, randomSeed: 42 });
    this.ann = ann;
    this.annState = 'building';
    this.annAdded = 0;
    this.annCount = 0;
    this.annDeleted = 0;
    const generation = ++this.generation;
    if (slice <= 0) {
      this.buildStep(0);
      return Promise.resolve();
    }
    this.building = new Promise<void>((resolve) => {
      const tick = () => {
        if (generation !== this.generation || this.annState !== 'building') return resolve();
        if (this.buildStep(slice)) resolve();
        else later(tick);
      };
      later(tick);
    }).finally(() => {
      if (generation === this.generation) this.building = null;
    });
    return this.building;
  }

  /**
   * Save the finished graph to `file` (plus `file.json`, its header) when it changed since it was
   * loaded or saved (ours; `AnnOptions.persist`). The tail is inserted first, so the file holds every
   * row. Written to temporary names and renamed, so a reader sees a whole file or the previous one.
   * Returns whether a file was written.
   */
  saveAnn(file: string, identity: string): boolean {
    if (this.annState !== 'ready' || !this.ann || !this.ann_) return false;
    if (this.annAdded < this.n) this.buildStep(0);
    if (!this.annDirty && existsSync(file) && existsSync(`${file}.json`)) return false;
    // unique per process, thread and save (leftovers of killed saves are swept by the store's close)
    const token = `${Date.now()}${String(threadId).padStart(4, '0')}${String(++saveSeq % 10_000).padStart(4, '0')}`;
    const tmp = `${file}.${process.pid}.${token}.tmp`;
    try {
      this.ann.writeIndexSync(tmp);
      const bytes = readFileSync(tmp);
      if (!hnswFileComplete(bytes, this.dim)) throw new Error('graph file written short');
      const header: AnnFileHeader = {
        format: '@mem/core-hnsw',
        version: 1,
        identity,
        dim: this.dim,
        m: this.ann_.m,
        efConstruction: this.ann_.efConstruction,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
        rows: this.size,
        labels: this.annCount,
        rowsDigest: this.rowsDigest(this.n),
      };
      writeFileSync(`${tmp}.json`, JSON.stringify(header));
      renameSync(tmp, file);
      renameSync(`${tmp}.json`, `${file}.json`);
      this.annDirty = false;
      return true;
    } catch {
      rmSync(tmp, { force: true });
      rmSync(`${tmp}.json`, { force: true });
      return false;
    }
  }

  /**
   * Adopt the graph saved in `file` (ours): only when its header and sha256 match and this index has
   * no graph yet. Every row of the graph is checked against the vectors loaded from the store: rows no
   * longer in the scope are deleted, rows whose vector changed are updated, and rows stored since the
   * save are left to the tail (scanned exactly, inserted later). When the graph's rows are not a
   * prefix of this index's slots (they are in row-id order on load), the file is not used.
   */
  loadAnn(file: string, identity: string): AnnLoadReport {
    if (this.annState !== 'none' || !this.ann_) return { loaded: false, reason: 'graph already present or ANN off' };
    const Ctor = loadHnsw();
    if (!Ctor) return { loaded: false, reason: 'hnswlib-node not available' };
    let header: AnnFileHeader;
    let bytes: Buffer;
    try {
      if (!existsSync(file) || !existsSync(`${file}.json`)) return { loaded: false, reason: 'no saved graph' };
      header = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as AnnFileHeader;
      bytes = readFileSync(file);
    } catch {
      return { loaded: false, reason: 'unreadable' };
    }
    if (header?.format !== '@mem/core-hnsw' || header.version !== 1 || header.identity !== identity || header.dim !== this.dim || header.m !== this.ann_.m || header.efConstruction !== this.ann_.efConstruction) {
      return { loaded: false, reason: 'header does not match the options' };
    }
    if (bytes.length !== header.bytes || createHash('sha256').update(bytes).digest('hex') !== header.sha256) return { loaded: false, reason: 'hash mismatch' };
    if (!hnswFileComplete(bytes, this.dim)) return { loaded: false, reason: 'not a whole graph of this dimension' };
    const ann = new Ctor('ip', this.dim);
    let labels: number[];
    try {
      ann.readIndexSync(file);
      if (ann.getNumDimensions() !== this.dim) return { loaded: false, reason: 'dimension mismatch' };
      labels = ann.getIdsList();
    } catch {
      return { loaded: false, reason: 'hnswlib could not read it' };
    }
    // fast path: the first header.rows slots are exactly the rows saved (ids and vectors), all
    // alive (a fresh load holds no dead slots), so the graph needs no row-by-row check
    if (
      typeof header.rows === 'number' &&
      header.rows <= this.n &&
      labels.length === header.labels &&
      this.size === this.n &&
      header.rowsDigest === this.rowsDigest(header.rows)
    ) {
      this.adopt(ann, header.rows, labels.length, false);
      return { loaded: true, removed: 0, updated: 0, tail: this.n - header.rows };
    }
    const inGraph = new Set(labels);
    // the graph's rows must be exactly the first slots (row-id order), the rest the tail
    let m = 0;
    while (m < this.n && inGraph.has(this.rids[m]!)) m++;
    for (let s = m; s < this.n; s++) if (inGraph.has(this.rids[s]!)) return { loaded: false, reason: 'graph rows are not a prefix' };
    let removed = 0;
    let updated = 0;
    const d = this.dim;
    for (const label of labels) {
      const slot = this.pos.get(label);
      let point: number[] | null = null;
      try {
        point = ann.getPoint(label);
      } catch {
        point = null; // deleted before the save
      }
      if (slot === undefined) {
        if (point) {
          ann.markDelete(label);
          removed++;
        }
        continue;
      }
      const o = slot * d;
      let same = point !== null && point.length === d;
      for (let j = 0; same && j < d; j++) if (Math.fround(point![j]!) !== this.vecs[o + j]) same = false;
      if (!same) {
        ann.addPoint(Array.from(this.vecs.subarray(o, o + d)), label); // updates (and undeletes) the row
        updated++;
      }
    }
    this.adopt(ann, m, labels.length, removed > 0 || updated > 0);
    return { loaded: true, removed, updated, tail: this.n - m };
  }

  /** Use a loaded graph holding slots [0, added) (of `labels` labels, the rest deleted). */
  private adopt(ann: Hnsw, added: number, labels: number, dirty: boolean): void {
    this.ann = ann;
    this.annState = 'ready';
    this.annAdded = added;
    this.annCount = labels;
    this.annDeleted = labels - added;
    this.annDirty = dirty;
    this.generation++;
    if (this.annAdded < this.n) this.scheduleDrain();
  }

  /** sha256 of the row ids and unit vectors of the alive slots among [0, upTo), in slot order (ours). */
  private rowsDigest(upTo: number): string {
    const h = createHash('sha256');
    const rid = new Float64Array(1);
    for (let s = 0; s < upTo; s++) {
      if (!this.alive[s]) continue;
      rid[0] = this.rids[s]!;
      h.update(new Uint8Array(rid.buffer));
      h.update(new Uint8Array(this.vecs.buffer, this.vecs.byteOffset + s * this.dim * 4, this.dim * 4));
    }
    return h.digest('hex');
  }

  /** Stop a background build and drop the HNSW graph (e.g. on close or eviction). */
  dispose(): void {
    this.generation++;
    this.annAdded = 0;
    this.ann = null;
    this.annState = 'none';
    this.building = null;
  }

  /**
   * Exact k-NN by cosine (q must be unit-norm), in groups of four rows: each row's dot product is
   * still summed in coordinate order (scores bit-identical to a one-row loop), but four independent
   * sums run side by side. A group's rows are dropped after their first `head` coordinates when even
   * the Cauchy–Schwarz bound on the rest, ‖row_tail‖·‖q_tail‖, cannot lift any of them to the current
   * k-th best (ours; the bound carries a 1e−9 margin for rounding, so no row a plain scan would keep
   * is dropped).
   */
  exact(q: Float32Array, k: number): Hit[] {
    const top = new TopK(k);
    const d = this.dim;
    const h = this.head;
    const v = this.vecs;
    const tails = this.tails;
    const alive = this.alive;
    let qt = 0;
    for (let j = h; j < d; j++) qt += q[j] * q[j];
    const qTail = Math.sqrt(qt) + 1e-9;
    const n = this.n;
    let s = 0;
    for (; s + 4 <= n; s += 4) {
      const o0 = s * d;
      const o1 = o0 + d;
      const o2 = o1 + d;
      const o3 = o2 + d;
      let d0 = 0;
      let d1 = 0;
      let d2 = 0;
      let d3 = 0;
      for (let j = 0; j < h; j++) {
        const x = q[j];
        d0 += v[o0 + j] * x;
        d1 += v[o1 + j] * x;
        d2 += v[o2 + j] * x;
        d3 += v[o3 + j] * x;
      }
      const min = top.min - 1e-9;
      if (
        d0 + tails[s] * qTail < min &&
        d1 + tails[s + 1] * qTail < min &&
        d2 + tails[s + 2] * qTail < min &&
        d3 + tails[s + 3] * qTail < min
      ) {
        continue;
      }
      for (let j = h; j < d; j++) {
        const x = q[j];
        d0 += v[o0 + j] * x;
        d1 += v[o1 + j] * x;
        d2 += v[o2 + j] * x;
        d3 += v[o3 + j] * x;
      }
      if (alive[s] && d0 >= top.min) top.push(this.rids[s], d0);
      if (alive[s + 1] && d1 >= top.min) top.push(this.rids[s + 1], d1);
      if (alive[s + 2] && d2 >= top.min) top.push(this.rids[s + 2], d2);
      if (alive[s + 3] && d3 >= top.min) top.push(this.rids[s + 3], d3);
    }
    for (; s < n; s++) {
      if (!alive[s]) continue;
      let dot = 0;
      const o = s * d;
      for (let j = 0; j < d; j++) dot += v[o + j] * q[j];
      if (dot >= top.min) top.push(this.rids[s], dot);
    }
    return top.hits();
  }

  /** k-NN: HNSW candidates re-scored exactly when the graph is ready, otherwise an exact scan. `efSearch` overrides the configured HNSW ef for this query. */
  search(q: Float32Array, k: number, efSearch?: number): Hit[] {
    if (k <= 0 || this.size === 0) return [];
    // A background build also advances by one slice per search, so it finishes even when the
    // event loop never idles (a tight ingest loop).
    if (this.annState === 'building') this.buildStep(20);
    if (this.annState === 'ready' && this.ann && this.ann_) {
      // Rebuild when more than half of the graph is tombstones.
      if (this.annDeleted > this.annCount / 2) {
        this.dispose();
        return this.exact(q, k);
      }
      // Vectors written since the graph last caught up are scanned exactly; when that tail is
      // longer than `maxTail`, they are inserted now (each vector is inserted once, so the cost is
      // amortised over the writes; the write itself never touches the graph).
      if (this.n - this.annAdded > this.ann_.maxTail) this.buildStep(0);
      const inGraph = this.annCount - this.annDeleted;
      const want = Math.min(inGraph, Math.max(k * 2, k + 10));
      this.ann.setEf(Math.max(efSearch ?? this.ann_.efSearch, want));
      let res: { neighbors: number[] };
      try {
        res = want > 0 ? this.ann.searchKnn(Array.from(q), want) : { neighbors: [] };
      } catch {
        return this.exact(q, k);
      }
      const top = new TopK(k);
      const d = this.dim;
      for (const rid of res.neighbors) {
        const s = this.pos.get(rid);
        if (s === undefined || !this.alive[s]) continue; // not in this scope any more
        let dot = 0;
        const o = s * d;
        for (let j = 0; j < d; j++) dot += this.vecs[o + j] * q[j];
        top.push(rid, dot);
      }
      // Exact scan of the vectors written since the graph last caught up.
      for (let s = this.annAdded; s < this.n; s++) {
        if (!this.alive[s]) continue;
        let dot = 0;
        const o = s * d;
        for (let j = 0; j < d; j++) dot += this.vecs[o + j] * q[j];
        top.push(this.rids[s], dot);
      }
      return top.hits();
    }
    return this.exact(q, k);
  }
}
