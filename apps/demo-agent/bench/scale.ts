/**
 * Growth curves (issue 33 points 4 and 1; a script, not a test). The store is grown to each size of
 * `--sizes` (default 1000,10000), in one scope or spread evenly over `--scopes` scopes (e.g. 10000),
 * on SQLite (default) or on Neo4j (`--store neo4j`: the integration tier's real server,
 * tools/neo4j-test-server, started by this script unless MEM_NEO4J_URI is set). At each size, with
 * a fresh `createStack` (GloVe, offline System One), in the measured scope (the only scope, or the
 * first of the spread):
 *  - write p50 / p95 and throughput (adds/s) of `--writes` single-observation adds through the full
 *    write path (gate, System One, candidates, relations, store), after a first add timed apart
 *    (wall and CPU, with the rebuild's parts): on SQLite the first add after closing and opening the
 *    store again, the scope's gate snapshot and HNSW graph saved as the write path would have saved
 *    them while growing;
 *  - search p50 / p95 of `--queries` questions × `--rounds` for bm25, dense, hybrid and jev, one
 *    warm-up each, interleaved query by query; on SQLite the stack is closed and opened again first
 *    (the HNSW graph of a scope above 5,000 memories is built and saved; its build time is printed);
 *  - on SQLite, in the same loop, the engines alone as floors (issue 33 point 1): FTS5 `bm25()`
 *    alone on the same file (`MATCH` of the same query words, restricted to the scope by its FTS5
 *    scope column when the scope holds under half the file, as the store does; `ORDER BY bm25 LIMIT
 *    k`, row ids only) and hnswlib-node `searchKnn` alone on the same vectors (the store's own saved
 *    graph when there is one, else a graph built from the scope's vectors with the store's M /
 *    efConstruction / efSearch; query vector given); bm25 and hybrid p50 are printed as multiples of
 *    the FTS5 floor, dense as a multiple of the hnswlib floor;
 *  - the store's size on disk (SQLite file + WAL + saved graphs; Neo4j's data folder) and the RSS of
 *    this process (and of the Neo4j server).
 * Besides wall time, each operation's CPU time (process.cpuUsage, user + system, this process only:
 * on Neo4j the server's work is not in it) is recorded: on a shared machine other jobs inflate wall
 * time far more than CPU time. Growth ratios against the first size come from the same run.
 *
 * The growth between sizes is written straight through the store in batches as gate Adds (core's
 * `seedSyntheticScope`: template sentences, no relations; the full write path at ~50 adds/s would
 * take 6 hours for 1M), so jev's graph is thinner than after real ingestion; the measured writes and
 * searches go through the full path on top of it.
 *
 *   nice -n 10 pnpm --filter @mem/demo-agent bench:scale [--sizes 1000,10000,100000,1000000] [--scopes 1|10000]
 *     [--store sqlite|neo4j] [--writes 30] [--queries 12] [--rounds 2] [--systems bm25,dense,hybrid,jev] [--neo4j-heap 2048]
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import hnswlib from 'hnswlib-node';
import { ANN_DEFAULTS, ftsMatchQuery, scopeKey, type MemoryStore, type ResolvedScope, type Retriever } from '@mem/core';
import { createNoveltyGate } from '@mem/gate-vmf';
import { createBm25Retriever, createDenseRetriever, createHybridRetriever, createJevRetriever } from '@mem/retrieval';
import { seedSyntheticScope, synthetic } from '../../../packages/core/bench/synthetic';
import { scopeToken } from '../../../packages/core/src/store/schema';
import { GATE_SAVE_MIN_SIZE, GATE_STATE_NAME, sealGateState } from '../../../packages/core/src/write/gates';
import { DEFAULT_WRITE_GATE_OPTIONS, noveltyGateCodec } from '../../../packages/core/src/write/memory';
import { createStack, type StoreKind } from '../src/stack';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    scopes: { type: 'string', default: '1' },
    store: { type: 'string', default: 'sqlite' },
    writes: { type: 'string', default: '30' },
    queries: { type: 'string', default: '12' },
    rounds: { type: 'string', default: '2' },
    systems: { type: 'string', default: 'bm25,dense,hybrid,jev' },
    'neo4j-heap': { type: 'string', default: '2048' },
    db: { type: 'string' },
  },
});
const SIZES = values.sizes!.split(',').map(Number);
const SCOPES = Number(values.scopes);
const STORE = values.store as StoreKind;
const WRITES = Number(values.writes);
const QUERIES = Number(values.queries);
const ROUNDS = Number(values.rounds);
const SYSTEMS = new Set(values.systems!.split(','));
const K = 10;
if (STORE !== 'sqlite' && STORE !== 'neo4j') throw new Error(`--store sqlite|neo4j, not ${STORE}`);
if (!(SCOPES >= 1) || SIZES.some((s) => !(s >= SCOPES) || s % SCOPES !== 0)) throw new Error(`every size must be a multiple of --scopes (${SCOPES})`);
const QUESTIONS = [
  'Who painted the kite?',
  'What did Mira buy at the market?',
  'Where did Tom fix the bicycle?',
  'When did Lena sell the guitar?',
  'Which camera did Ravi borrow?',
  'What happened at the harbour last weekend?',
  'Who lost a violin at the station?',
  'What did Sofia build in the workshop?',
  'Did anyone photograph the sculpture at the museum?',
  'Where did Kenji order the sourdough loaf?',
  'Who cleaned the telescope this morning?',
  'What did Nadia share at the cafe on Monday?',
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
/** This process's CPU time in ms (user + system): robust to other jobs on a loaded machine, unlike wall time. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const rssMbOf = (pid: number | 'self') => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return NaN;
  }
};
/** Bytes under a path (a file, or a folder recursively). */
function bytesUnder(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((a, f) => a + bytesUnder(path.join(p, f)), 0);
}
const load = () => loadavg()[0]!.toFixed(1);
const log = (s: string) => console.log(`  [${new Date().toISOString().slice(11, 19)} load ${load()}] ${s}`);

interface Neo4jServer {
  uri: string;
  user: string;
  password: string;
  version: string;
  dataDir: string;
  pid: number;
  stop(): Promise<void>;
}

/** One timed line of the search loop: what it runs per query, and which floor it is compared with. */
interface Line {
  name: string;
  floor: 'fts5' | 'hnsw' | null;
  run: (q: string, i: number) => unknown;
}

/**
 * Save the measured scope's gate as the write path saves it (a snapshot every 10 % of growth, and on
 * close): the seeded growth bypasses the write path, so without this the first add after it replays
 * every memory through the gate (any store with `scanNodes` and `saveState`: SQLite and Neo4j; the
 * gate members' ids and vectors read in id order, i.e. write order; gate-vmf `seed`, one density
 * refit; the default write gate's options, so the write path adopts it). Returns the seconds it took.
 */
async function snapshotGate(store: MemoryStore, scope: ResolvedScope): Promise<number> {
  if (!store.scanNodes || !store.saveState) return 0;
  const t = performance.now();
  const rows: { id: string; vector: Float32Array }[] = [];
  for (let after = ''; ; ) {
    const page = await store.scanNodes(scope, { afterId: after || undefined, limit: 2000 });
    for (const n of page) if (n.gate?.action !== 'noop') rows.push({ id: n.id, vector: n.embedding });
    if (page.length < 2000) break;
    after = page[page.length - 1]!.id;
  }
  if (rows.length < GATE_SAVE_MIN_SIZE) return 0;
  const key = scopeKey(scope);
  const gate = createNoveltyGate({ ...DEFAULT_WRITE_GATE_OPTIONS } as Parameters<typeof createNoveltyGate>[0]);
  gate.seed(key, rows);
  await store.saveState(scope, GATE_STATE_NAME, sealGateState(noveltyGateCodec(gate.options).save(gate as never, key) as object));
  return (performance.now() - t) / 1000;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'mem-scale-'));
  // --db: grow (and keep) that SQLite file; sizes below 90 % of what it already holds use a fresh file in `dir`
  const kept = values.db ? path.resolve(values.db) : null;
  const keptCount = kept && existsSync(kept) ? (((new Database(kept, { readonly: true }).prepare('SELECT SUM(node_count) AS n FROM scopes').get() as { n: number | null }).n) ?? 0) : 0;
  if (kept && STORE !== 'sqlite') throw new Error('--db is for --store sqlite');
  let server: Neo4jServer | null = null;
  const env = { ...process.env };
  if (STORE === 'neo4j' && !env.MEM_NEO4J_URI) {
    // @ts-expect-error: test tooling in plain JS (tools/neo4j-test-server/server.mjs), typed by its JSDoc only
    const { startServer } = (await import('../../../tools/neo4j-test-server/server.mjs')) as { startServer: (o: { heapMb: number }) => Promise<Neo4jServer> };
    server = await startServer({ heapMb: Number(values['neo4j-heap']) });
    Object.assign(env, { MEM_NEO4J_URI: server.uri, MEM_NEO4J_USER: server.user, MEM_NEO4J_PASSWORD: server.password });
  }
  const layout = SCOPES === 1 ? 'one scope' : `${SCOPES} scopes (${SIZES.map((s) => s / SCOPES).join(' / ')} memories each)`;
  console.log(
    `scale: ${STORE === 'neo4j' ? `Neo4j ${server?.version ?? '(MEM_NEO4J_URI)'}` : 'SQLite'}, ${layout}, GloVe, sizes ${SIZES.join(', ')}; ${WRITES} writes, ${QUERIES} queries × ${ROUNDS} rounds, k = ${K}; ` +
      `${cpus().length} × ${cpus()[0]?.model ?? '?'}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`,
  );
  const rows: Record<string, number>[] = [];
  /** Per file: memories in it, synthetic index of the next seeded one, memories in the measured scope. */
  const files = new Map<string, { stored: number; seq: number; inScope: number }>();
  let next = 100_000_000 + keptCount; // synthetic indices of the measured writes (not those of an earlier run on --db)
  const loads: number[] = [loadavg()[0]!];
  try {
    for (const size of SIZES) {
      const db = kept && size >= 0.9 * keptCount ? kept : path.join(dir, 'scale.db');
      if (!files.has(db)) {
        const known = db === kept && keptCount > 0 ? new Database(db, { readonly: true }).prepare("SELECT SUM(node_count) AS n, SUM(CASE WHEN user_id = 'scale-0' THEN node_count ELSE 0 END) AS own FROM scopes").get() as { n: number; own: number } : null;
        files.set(db, { stored: known?.n ?? 0, seq: 200_000_000 + (known?.n ?? 0), inScope: known?.own ?? 0 });
      }
      const file = files.get(db)!;
      const open = () => createStack({ db, store: STORE, env, scope: { userId: 'scale-0' }, retriever: 'jev', embedder: 'glove', systemTwo: null });
      let stack = await open();
      const scopeOf = (j: number): ResolvedScope => ({ ...stack.scope, userId: `scale-${j}` });
      // grow to `size` straight through the store (gate Adds, as the write path would store them)
      let t = performance.now();
      const grown = Math.max(0, size - file.stored);
      if (grown > 0) {
        const per = Math.floor(grown / SCOPES);
        for (let j = 0; j < SCOPES; j++) {
          await seedSyntheticScope(stack.store, stack.embedder, scopeOf(j), per, file.seq);
          if (j === 0) file.inScope += per;
          file.seq += per;
          if (SCOPES > 1 && j % 2000 === 1999) log(`seeded ${j + 1} of ${SCOPES} scopes`);
        }
        file.stored += per * SCOPES;
      }
      const seedS = (performance.now() - t) / 1000;
      // the gate snapshot the write path would have saved while growing (see snapshotGate)
      const gateS = await snapshotGate(stack.store, stack.scope);
      // SQLite: the scope's HNSW graph, built and saved as a store that grew through the write path
      // would hold it (its k-NN builds it in the background, close saves it); then the stack is
      // opened again (both stores), so the first add below is the first add after opening an existing scope
      let preAnnS = 0;
      if (STORE === 'sqlite') {
        t = performance.now();
        await (stack.store as { buildAnnIndex?: (s: ResolvedScope) => Promise<void> }).buildAnnIndex?.(stack.scope);
        preAnnS = (performance.now() - t) / 1000;
      }
      await stack.close();
      stack = await open();
      log(
        `${size}: grown by ${grown} in ${seedS.toFixed(1)} s (${(grown / Math.max(seedS, 1e-9)).toFixed(0)} memories/s in batches), gate snapshot ${gateS.toFixed(1)} s, ` +
          `HNSW graph built and saved ${preAnnS.toFixed(1)} s; ${file.stored} in the store; stack opened again`,
      );
      const obs = () => {
        const x = synthetic(next++);
        return { text: x.text, speaker: x.name, observedAt: x.observedAt };
      };
      t = performance.now();
      const warmC = cpuMs();
      await stack.add([obs()]); // rebuilds the scope's gate and indexes: timed apart from the writes
      const warmS = (performance.now() - t) / 1000;
      const warmCpuS = (cpuMs() - warmC) / 1000;
      const writes: number[] = [];
      const writeCpu: number[] = [];
      for (let i = 0; i < WRITES; i++) {
        t = performance.now();
        const c = cpuMs();
        await stack.add([obs()]);
        writes.push(performance.now() - t);
        writeCpu.push(cpuMs() - c);
      }
      file.stored += WRITES + 1;
      file.inScope += WRITES + 1;
      const writeS = writes.reduce((a, b) => a + b, 0) / 1000;
      const gs = (await stack.memory.stats()).gateState;
      const rb = gs.rebuildMs;
      log(
        `${size}: first add ${warmS.toFixed(1)} s (${warmCpuS.toFixed(1)} s CPU; gate: ${gs.restored} restored from its snapshot, ${gs.replayedCommits} commits replayed; rebuild read ${gs.rebuildReads} memories: ` +
          `store reads ${(rb.read / 1000).toFixed(1)} s, candidate index ${(rb.index / 1000).toFixed(1)} s, gate ${(rb.gate / 1000).toFixed(1)} s), ${WRITES} adds in ${writeS.toFixed(1)} s, write p50 ${pct(writes, 0.5).toFixed(1)} ms`,
      );

      // SQLite: build the scope's HNSW graph (a server does it in the background), save it by closing,
      // and open again, so the floor can read the very graph the store searches
      let annS = 0;
      if (STORE === 'sqlite') {
        t = performance.now();
        await (stack.store as { buildAnnIndex?: (s: ResolvedScope) => Promise<void> }).buildAnnIndex?.(stack.scope);
        annS = (performance.now() - t) / 1000;
        await stack.close();
        stack = await open();
      }
      const scope = stack.scope;
      const queries = Array.from({ length: QUERIES }, (_, i) => QUESTIONS[i % QUESTIONS.length]!);
      const qvecs = (await stack.embedder.embed(queries)).map((v) => Array.from(v));
      const lines: Line[] = [];
      let raw: InstanceType<typeof Database> | null = null;
      let floorGraph = '';
      if (STORE === 'sqlite') {
        raw = new Database(db, { readonly: true });
        const { sid, node_count: own } = raw.prepare('SELECT sid, node_count FROM scopes WHERE user_id = ?').get('scale-0') as { sid: number; node_count: number };
        const total = (raw.prepare('SELECT SUM(node_count) AS n FROM scopes').get() as { n: number }).n;
        const fts = raw.prepare('SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY bm25(nodes_fts, 0.0, 1.0) LIMIT ?');
        const expr = (q: string) => (own * 2 < total ? `scope : "${scopeToken(sid)}" AND body : (${ftsMatchQuery(q)})` : `body : (${ftsMatchQuery(q)})`);
        const ftsExprs = queries.map(expr);
        const hnsw = new hnswlib.HierarchicalNSW('ip', stack.embedder.dimension);
        const saved = `${db}.ann/${sid}.hnsw`;
        t = performance.now();
        if (existsSync(saved)) {
          hnsw.readIndexSync(saved);
          floorGraph = `the store's saved graph (${hnsw.getCurrentCount()} points)`;
        } else {
          const vs = raw.prepare('SELECT rid, embedding FROM nodes WHERE sid = ?').all(sid) as { rid: number; embedding: Buffer }[];
          hnsw.initIndex(vs.length, ANN_DEFAULTS.m, ANN_DEFAULTS.efConstruction, 100);
          for (const r of vs) hnsw.addPoint(Array.from(new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4)), r.rid);
          floorGraph = `a graph built from the scope's ${vs.length} vectors in ${((performance.now() - t) / 1000).toFixed(1)} s`;
        }
        hnsw.setEf(ANN_DEFAULTS.efSearch);
        // query vectors as the store sees them (unit length: the graph is inner product)
        const unit = qvecs.map((v) => {
          const n = Math.hypot(...v) || 1;
          return v.map((x) => x / n);
        });
        lines.push({ name: 'fts5', floor: null, run: (_q, i) => fts.all(ftsExprs[i]!, K) });
        lines.push({ name: 'hnsw', floor: null, run: (_q, i) => hnsw.searchKnn(unit[i]!, K) });
      }
      const retrievers: Retriever[] = [
        createBm25Retriever({ store: stack.store }),
        createDenseRetriever({ store: stack.store, embedder: stack.embedder }),
        createHybridRetriever({ store: stack.store, embedder: stack.embedder }),
        createJevRetriever({ store: stack.store, embedder: stack.embedder, systemOne: stack.systemOne }),
      ].filter((r) => SYSTEMS.has(r.name));
      for (const r of retrievers) lines.push({ name: r.name, floor: r.name === 'dense' ? 'hnsw' : r.name === 'jev' ? null : 'fts5', run: (q) => r.search({ scope, query: q, k: K }) });
      // warm-up: the first search of each builds what it caches (vectors, lexical index, jev's snapshot)
      t = performance.now();
      for (const l of lines) {
        const w = performance.now();
        await l.run(queries[0]!, 0);
        if (performance.now() - w > 1000) log(`${size}: first ${l.name} search ${((performance.now() - w) / 1000).toFixed(1)} s`);
      }
      const firstSearchS = (performance.now() - t) / 1000;
      const wall = new Map<string, number[]>(lines.map((l) => [l.name, []]));
      const cpu = new Map<string, number[]>(lines.map((l) => [l.name, []]));
      // interleaved query by query, so a load spike on the shared machine hits every line alike
      for (let r = 0; r < ROUNDS; r++) {
        for (let i = 0; i < queries.length; i++) {
          for (const l of lines) {
            const w = performance.now();
            const c = cpuMs();
            await l.run(queries[i]!, i);
            wall.get(l.name)!.push(performance.now() - w);
            cpu.get(l.name)!.push(cpuMs() - c);
          }
        }
      }
      raw?.close();
      const row: Record<string, number> = {
        size,
        inScope: file.inScope,
        seedS,
        gateS,
        preAnnS,
        warmS,
        warmCpuS,
        rebuildReadS: gs.rebuildMs.read / 1000,
        rebuildIndexS: gs.rebuildMs.index / 1000,
        rebuildGateS: gs.rebuildMs.gate / 1000,
        annS,
        firstSearchS,
        writeP50: pct(writes, 0.5),
        writeP95: pct(writes, 0.95),
        writeCpuP50: pct(writeCpu, 0.5),
        writesPerS: WRITES / writeS,
      };
      for (const l of lines) {
        row[`${l.name}P50`] = pct(wall.get(l.name)!, 0.5);
        row[`${l.name}P95`] = pct(wall.get(l.name)!, 0.95);
        row[`${l.name}CpuP50`] = pct(cpu.get(l.name)!, 0.5);
        if (l.floor && row[`${l.floor}P50`] !== undefined) {
          row[`${l.name}Floor`] = row[`${l.name}P50`]! / row[`${l.floor}P50`]!;
          row[`${l.name}FloorCpu`] = row[`${l.name}CpuP50`]! / row[`${l.floor}CpuP50`]!;
        }
      }
      row.diskMb = (STORE === 'sqlite' ? bytesUnder(db) + bytesUnder(`${db}-wal`) + bytesUnder(`${db}.ann`) : server ? bytesUnder(server.dataDir) : NaN) / 1048576;
      row.rssMb = rssMbOf('self');
      row.serverRssMb = server ? rssMbOf(server.pid) : NaN;
      rows.push(row);
      await stack.close();
      loads.push(loadavg()[0]!);
      log(
        `${size}: HNSW build ${annS.toFixed(1)} s, first searches ${firstSearchS.toFixed(1)} s; hnsw floor on ${floorGraph || 'n/a'}; ` +
          lines.map((l) => `${l.name} ${row[`${l.name}P50`]!.toFixed(2)}`).join(', ') +
          ` ms; disk ${row.diskMb!.toFixed(0)} MB, RSS ${row.rssMb!.toFixed(0)} MB`,
      );
      log(`${size}: row ${JSON.stringify(row)}`); // every measure of this size, should a later size not finish
    }
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true }); // a --db file is kept
  }
  const f = (x: number | undefined, d = 1) => (x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(d));
  const names = ['fts5', 'hnsw', 'bm25', 'dense', 'hybrid', 'jev'].filter((n) => rows[0]![`${n}P50`] !== undefined);
  const first = rows[0]!;
  console.log(`\nwrites (full write path, ms; CPU = this process's CPU time per add; growth = p50 / p50 at ${first.size}):`);
  console.log('| memories in the store | in the measured scope | write p50 | p95 | CPU p50 | adds/s | p50 growth | CPU growth | disk MB | RSS MB |' + (server || STORE === 'neo4j' ? ' server RSS MB |' : ''));
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|' + (server || STORE === 'neo4j' ? '---:|' : ''));
  for (const r of rows) {
    console.log(
      `| ${r.size} | ${r.inScope} | ${f(r.writeP50)} | ${f(r.writeP95)} | ${f(r.writeCpuP50)} | ${f(r.writesPerS)} | ${f(r.writeP50! / first.writeP50!, 2)}× | ${f(r.writeCpuP50! / first.writeCpuP50!, 2)}× | ${f(r.diskMb)} | ${f(r.rssMb, 0)} |` +
        (server || STORE === 'neo4j' ? ` ${f(r.serverRssMb, 0)} |` : ''),
    );
  }
  console.log(`\nsearch, p50 / p95 ms (wall; CPU p50 in brackets)${STORE === 'sqlite' ? '; × floor = p50 / the FTS5 floor (bm25, hybrid) or the hnswlib floor (dense), same loop (CPU p50 ratio in brackets)' : ''}:`);
  const withFloor = names.filter((n) => rows[0]![`${n}Floor`] !== undefined);
  const header = [...names.map((n) => (n === 'fts5' ? 'FTS5 bm25() floor' : n === 'hnsw' ? 'hnswlib floor' : n)), ...withFloor.map((n) => `${n} × floor`)];
  console.log(`| memories in the store | ${header.join(' | ')} |`);
  console.log(`|---:|${header.map(() => '---:').join('|')}|`);
  for (const r of rows) {
    const cells = [
      ...names.map((n) => `${f(r[`${n}P50`], 2)} / ${f(r[`${n}P95`], 2)} (${f(r[`${n}CpuP50`], 2)})`),
      ...withFloor.map((n) => `${f(r[`${n}Floor`], 2)}× (${f(r[`${n}FloorCpu`], 2)}×)`),
    ];
    console.log(`| ${r.size} | ${cells.join(' | ')} |`);
  }
  console.log(`\nset-up per size (s): ${rows.map((r) => `${r.size}: grown ${f(r.seedS)}, gate snapshot ${f(r.gateS)}, HNSW graph ${f(r.preAnnS)}, first add after opening ${f(r.warmS)} (CPU ${f(r.warmCpuS)}; rebuild: reads ${f(r.rebuildReadS)}, index ${f(r.rebuildIndexS)}, gate ${f(r.rebuildGateS)}), HNSW build ${f(r.annS)}, first searches ${f(r.firstSearchS)}`).join('; ')}`);
  console.log(`load average (1 min) at the start and after each size: ${loads.map((x) => x.toFixed(1)).join(', ')}`);
}

await main();
