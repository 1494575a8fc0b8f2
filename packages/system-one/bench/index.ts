/**
 * Bench of the offline backend (run: `pnpm bench` in packages/system-one).
 * 1. Accuracy, AUC and ECE per question kind on the hand-labelled set in ./dataset.ts, asked through
 *    the controller (accuracy at p >= 0.5 for Nouls, argmax for Choices; ECE on the predicted class's
 *    probability, 10 bins). Baseline in the same run: a constant predictor (the majority label).
 * Flags: `--no-speed` (accuracy only), `--speed-only`, `--write-only` (section 3 only).
 * 2. Throughput: questions per second on one core, relation batches (10 candidates x 6 questions) and
 *    6-question routing calls, through the controller vs a plain loop of the same scorers; p50 of one
 *    routing call; overhead ratio = controller / plain.
 * 3. Write-path cost per question (core's typing / relations / consolidation calls, see
 *    ./write-workload.ts) of the controller + offline backend vs the pre-optimisation controller
 *    (formerly src/reference/, now loaded from git tag `system-one-reference` by ./reference.ts; the
 *    baseline, same run, same calls, interleaved), with an answer-identity count.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { batches } from '../src/catalogue.js';
import { createSystemOne } from '../src/controller.js';
import { lexicalContext, scoreQuestion } from '../src/offline/index.js';
import { withCallCache } from '../src/offline/scorers.js';
import { type Question, resolveRefs } from '../src/schema.js';
import { dataset, type LabelledCase } from './dataset.js';
import { TEMPLATES } from './templates.js';
import { holdout } from './holdout.js';
import { locomoRouting } from './locomo-routing.js';
import { auc, ece, percentile } from './metrics.js';
import { loadReferenceController } from './reference.js';
import { locomoObservations, type Observation, type Stage, syntheticObservations, type WriteCall, writeCalls } from './write-workload.js';



// A full GC before each timed run, so no run pays for the garbage of the one before it.
v8.setFlagsFromString('--expose-gc');
const fullGc = vm.runInNewContext('gc') as () => void;

/** CPU time of this process in ms (user + system): robust to other processes sharing the cores. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : ' — ');

async function accuracy(set: readonly LabelledCase[], title: string): Promise<void> {
  const s1 = createSystemOne({ cache: false });
  const rows: { kind: string; n: number; acc: number; auc: number; ece: number; base: number }[] = [];
  const kinds = [...new Set(set.map((c) => c.kind))];
  let totN = 0;
  let totCorrect = 0;
  let totBase = 0;
  for (const kind of kinds) {
    const cs = set.filter((c) => c.kind === kind);
    const q = TEMPLATES[kind]();
    const scores: number[] = [];
    const labels: number[] = [];
    const conf: number[] = [];
    const correct: boolean[] = [];
    for (const c of cs) {
      const { answers } = await s1.ask(c.state, { q });
      const a = answers.q;
      if (typeof a === 'number') {
        scores.push(a);
        labels.push(c.label as number);
        const pred = a >= 0.5 ? 1 : 0;
        conf.push(pred ? a : 1 - a);
        correct.push(pred === c.label);
      } else {
        conf.push(a.probabilities[a.choice]);
        correct.push(a.choice === c.label);
      }
    }
    const counts = new Map<unknown, number>();
    for (const c of cs) counts.set(c.label, (counts.get(c.label) ?? 0) + 1);
    const base = Math.max(...counts.values()) / cs.length;
    const acc = correct.filter(Boolean).length / cs.length;
    rows.push({ kind, n: cs.length, acc, auc: scores.length ? auc(scores, labels) : NaN, ece: ece(conf, correct), base });
    totN += cs.length;
    totCorrect += correct.filter(Boolean).length;
    totBase += base * cs.length;
  }
  console.log(`\n## ${title}\n`);
  console.log('| kind | n | accuracy | majority baseline | AUC | ECE |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.kind} | ${r.n} | ${f2(r.acc)} | ${f2(r.base)} | ${f2(r.auc)} | ${f2(r.ece)} |`);
  console.log(`| **all** | ${totN} | ${f2(totCorrect / totN)} | ${f2(totBase / totN)} | | |`);
  const groups = [...new Set(rows.map((r) => r.kind.split('.')[0]))];
  console.log('\n| group | n | accuracy | majority baseline |');
  console.log('|---|---:|---:|---:|');
  for (const g of groups) {
    const rs = rows.filter((r) => r.kind.startsWith(g + '.'));
    const n = rs.reduce((a, r) => a + r.n, 0);
    const acc = rs.reduce((a, r) => a + r.acc * r.n, 0) / n;
    const base = rs.reduce((a, r) => a + r.base * r.n, 0) / n;
    console.log(`| ${g} (${rs.length} kinds) | ${n} | ${f2(acc)} | ${f2(base)} |`);
  }
  console.log(`| **all** | ${totN} | ${f2(totCorrect / totN)} | ${f2(totBase / totN)} |`);
}

// ---------------------------------------------------------------------------------------------
// speed
// ---------------------------------------------------------------------------------------------

const NAMES = ['Ana', 'Bruno', 'Chen', 'Dara', 'Eli', 'Femi', 'Gus', 'Hiro', 'Ida', 'Jon', 'Kai', 'Lia', 'Milo', 'Nia', 'Odo', 'Pia'];
const TOPICS = ['the pottery class', 'her new bike', 'the trip to Oslo', 'his sister', 'the garden', 'the concert', 'the promotion', 'the move', 'the bakery', 'chess club'];
const FORMS = ['When did {n} talk about {t}?', 'Why did {n} care so much about {t}?', 'What might {n} think of {t}?', 'What did {n} say about {t} recently?', 'Would {n} enjoy {t} again?', 'How long has {n} been into {t}?'];

/** Distinct queries (a fresh set per run, so memoised text features never make a later run faster). */
function queries(count: number, salt: number): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const n = NAMES[i % NAMES.length];
    const t = TOPICS[Math.floor(i / NAMES.length) % TOPICS.length];
    out.push(FORMS[(i + salt) % FORMS.length].replace('{n}', n).replace('{t}', `${t} ${salt}x${i}`));
  }
  return out;
}

function relationStates(count: number, salt: number) {
  return Array.from({ length: count }, (_, i) => ({
    new_memory: { text: `${NAMES[i % 16]} bought a ticket for ${TOPICS[i % 10]} (${salt}.${i}) because a friend recommended it.`, time: '2024-05-02T10:00:00Z' },
    candidates: Array.from({ length: 10 }, (_, j) => ({
      text: `${NAMES[(i + j) % 16]} mentioned ${TOPICS[(i + j) % 10]} on day ${j} (${salt}.${i}.${j}).`,
      time: `2024-05-0${1 + (j % 9)}T0${j % 10}:00:00Z`,
    })),
  }));
}

async function speed(): Promise<void> {
  const ctx = lexicalContext();
  const routing = batches.routing();
  const relQs = batches.relations(10);
  const relCount = Object.keys(relQs).length;

  // the scorers of one batch, as the offline backend runs them (with its per-call item cache), minus the controller
  const plain = (state: Record<string, unknown>, qs: Record<string, Question>) =>
    withCallCache(() => {
      const out: Record<string, unknown> = {};
      for (const id of Object.keys(qs)) out[id] = scoreQuestion(qs[id], resolveRefs(id, qs[id], state), ctx);
      return out;
    });

  // warm-up (JIT) on a separate salt
  {
    const s1 = createSystemOne();
    for (const q of queries(2000, 99)) await s1.ask({ query: q }, routing);
    for (const q of queries(2000, 98)) plain({ query: q }, routing);
    for (const st of relationStates(100, 97)) await s1.ask(st, relQs);
    for (const st of relationStates(100, 96)) plain(st, relQs);
  }

  const rounds = 7;
  const N = 2000;
  const routeRatios: number[] = [];
  const ctrlLat: number[] = [];
  const plainLat: number[] = [];
  let ctrlMs = 0;
  let plainMs = 0;
  for (let r = 0; r < rounds; r++) {
    const s1 = createSystemOne();
    const qa = queries(N, 2 * r);
    const qb = queries(N, 2 * r + 1);
    const order = r % 2 === 0;
    const runCtrl = async (qs: string[]) => {
      fullGc();
      const t = cpuMs();
      for (const q of qs) {
        const t0 = performance.now();
        await s1.ask({ query: q }, routing);
        ctrlLat.push(performance.now() - t0);
      }
      ctrlMs += cpuMs() - t;
    };
    const runPlain = (qs: string[]) => {
      fullGc();
      const t = cpuMs();
      for (const q of qs) {
        const t0 = performance.now();
        plain({ query: q }, routing);
        plainLat.push(performance.now() - t0);
      }
      plainMs += cpuMs() - t;
    };
    const c0 = ctrlMs;
    const p0 = plainMs;
    if (order) {
      await runCtrl(qa);
      runPlain(qb);
    } else {
      runPlain(qa);
      await runCtrl(qb);
    }
    routeRatios.push((ctrlMs - c0) / (plainMs - p0));
  }
  const qTot = rounds * N * 6;
  const cP50 = percentile(ctrlLat, 50) * 1000;
  const pP50 = percentile(plainLat, 50) * 1000;

  const RS = 100;
  let relCtrl = 0;
  let relPlain = 0;
  const relRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const s1 = createSystemOne();
    const a = relationStates(RS, 10 + 2 * r);
    const b = relationStates(RS, 11 + 2 * r);
    fullGc();
    let t = cpuMs();
    for (const st of r % 2 ? a : b) await s1.ask(st, relQs);
    const dc = cpuMs() - t;
    fullGc();
    t = cpuMs();
    for (const st of r % 2 ? b : a) plain(st, relQs);
    const dp = cpuMs() - t;
    relCtrl += dc;
    relPlain += dp;
    relRatios.push(dc / dp);
  }
  const relTot = rounds * RS * relCount;

  console.log('\n## Speed (offline backend, one core; throughput from process CPU time, p50 from wall time; distinct states per run)\n');
  const med = (xs: number[]) => percentile(xs, 50);
  console.log('| workload | controller | plain loop of the scorers | overhead ratio (all rounds) | median of per-round ratios |');
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| routing, 6-question calls: questions/s | ${Math.round(qTot / (ctrlMs / 1000)).toLocaleString('en-US')} | ${Math.round(qTot / (plainMs / 1000)).toLocaleString('en-US')} | ${(ctrlMs / plainMs).toFixed(2)}x | ${med(routeRatios).toFixed(2)}x |`);
  console.log(`| routing call p50 (µs, wall) | ${cP50.toFixed(1)} | ${pP50.toFixed(1)} | ${(cP50 / pP50).toFixed(2)}x | |`);
  console.log(`| relation batches (10 candidates x 6 questions): questions/s | ${Math.round(relTot / (relCtrl / 1000)).toLocaleString('en-US')} | ${Math.round(relTot / (relPlain / 1000)).toLocaleString('en-US')} | ${(relCtrl / relPlain).toFixed(2)}x | ${med(relRatios).toFixed(2)}x |`);
  console.log(`\n(${rounds} interleaved rounds; controller with its default LRU cache, every state distinct so every question is a cache miss; node ${process.version})`);

  // the controller alone: a backend that answers at once, this controller vs the frozen reference
  const instant = {
    name: 'instant',
    answer: async () => ({}),
    answerSync: (req: { questions: Record<string, Question> }) => {
      const o: Record<string, unknown> = {};
      for (const id of Object.keys(req.questions)) {
        const q = req.questions[id];
        o[id] = q.type === 'noul' ? 0.5 : { probabilities: Object.fromEntries(Object.keys(q.criteria).map((l) => [l, 1])) };
      }
      return o;
    },
  };
  const alone = { mine: { route: 0, rel: 0 }, ref: { route: 0, rel: 0 } };
  for (let r = 0; r < rounds; r++) {
    for (const who of r % 2 ? (['mine', 'ref'] as const) : (['ref', 'mine'] as const)) {
      const make = who === 'mine' ? createSystemOne : createReferenceSystemOne;
      let s1 = make({ backend: instant });
      const qs = queries(N, 100 + 2 * r + (who === 'mine' ? 0 : 1));
      fullGc();
      let t = cpuMs();
      for (const q of qs) await s1.ask({ query: q }, routing);
      alone[who].route += cpuMs() - t;
      s1 = make({ backend: instant });
      const sts = relationStates(RS, 200 + 2 * r + (who === 'mine' ? 0 : 1));
      fullGc();
      t = cpuMs();
      for (const st of sts) await s1.ask(st, relQs);
      alone[who].rel += cpuMs() - t;
    }
  }
  const perQ = (ms: number, q: number) => ((1000 * ms) / q).toFixed(2);
  console.log('\nThe controller alone (a backend that answers at once; same states as above), µs / question:\n');
  console.log('| workload | this controller | pre-optimisation controller (tag system-one-reference) |');
  console.log('|---|---:|---:|');
  console.log(`| routing, 6-question calls | ${perQ(alone.mine.route, qTot)} | ${perQ(alone.ref.route, qTot)} |`);
  console.log(`| relation batches (10 candidates x 6 questions) | ${perQ(alone.mine.rel, relTot)} | ${perQ(alone.ref.rel, relTot)} |`);
}

// ---------------------------------------------------------------------------------------------
// write path: optimised vs the frozen reference
// ---------------------------------------------------------------------------------------------

type Asker = { ask(state: Record<string, unknown>, questions: Record<string, Question>): Promise<{ answers: Record<string, unknown> }> };

async function runCalls(s1: Asker, calls: WriteCall[], cpu: Record<Stage, number>, answers?: unknown[]): Promise<void> {
  fullGc();
  for (const c of calls) {
    const u0 = process.cpuUsage();
    const r = await s1.ask(c.state, c.questions);
    const u = process.cpuUsage(u0);
    cpu[c.stage] += (u.user + u.system) / 1000;
    answers?.push(r.answers);
  }
}

async function writePath(): Promise<void> {
  const conv = locomoObservations();
  const per = 250;
  const slices: Observation[][] = conv ? conv.map((c) => c.slice(0, per)) : Array.from({ length: 8 }, (_, i) => syntheticObservations(100 + i, 5, per / 5));
  const source = conv ? `LoCoMo (first ${per} turns of each of ${slices.length} conversations, read at run time)` : `generated sentences (${slices.length} x ${per}; LoCoMo file not found)`;
  // JIT warm-up for both on generated text (distinct from the measured texts)
  for (let i = 0; i < 2; i++) {
    await runCalls(createSystemOne(), writeCalls(syntheticObservations(900 + i, 3, 40)), { typing: 0, relations: 0, consolidation: 0 });
    await runCalls(createReferenceSystemOne(), writeCalls(syntheticObservations(900 + i, 3, 40)), { typing: 0, relations: 0, consolidation: 0 });
  }
  const stages: Stage[] = ['typing', 'relations', 'consolidation'];
  const zero = () => ({ typing: 0, relations: 0, consolidation: 0 });
  const refCpu = zero();
  const newCpu = zero();
  const noCacheCpu = zero();
  const nq = zero();
  const roundRatios: number[] = [];
  let writes = 0;
  let compared = 0;
  let differ = 0;
  let cacheHits = 0;
  // every slice twice, in the two orders (the machine is shared: more rounds average out other jobs)
  const rounds = 2 * slices.length;
  for (let r = 0; r < rounds; r++) {
    const obs = slices[r % slices.length];
    const a = writeCalls(obs); // fresh objects for each implementation
    const b = writeCalls(obs);
    const c = writeCalls(obs);
    for (const c of a) nq[c.stage] += Object.keys(c.questions).length;
    writes += obs.length;
    const ansNew: unknown[] = [];
    const ansRef: unknown[] = [];
    const ansNoCache: unknown[] = [];
    const cN = zero();
    const cR = zero();
    const cC = zero();
    const withCache = createSystemOne();
    if ((r + Math.floor(r / slices.length)) % 2 === 0) {
      await runCalls(withCache, a, cN, ansNew);
      await runCalls(createReferenceSystemOne(), b, cR, ansRef);
      await runCalls(createSystemOne({ cache: false }), c, cC, ansNoCache);
    } else {
      await runCalls(createSystemOne({ cache: false }), c, cC, ansNoCache);
      await runCalls(createReferenceSystemOne(), b, cR, ansRef);
      await runCalls(withCache, a, cN, ansNew);
    }
    cacheHits += withCache.stats().cacheHits;
    for (const s of stages) {
      newCpu[s] += cN[s];
      refCpu[s] += cR[s];
      noCacheCpu[s] += cC[s];
    }
    const sum = (x: Record<Stage, number>) => x.typing + x.relations + x.consolidation;
    roundRatios.push(sum(cR) / sum(cN));
    for (let i = 0; i < ansNew.length; i++) {
      const x = ansNew[i] as Record<string, unknown>;
      const y = ansRef[i] as Record<string, unknown>;
      const z = ansNoCache[i] as Record<string, unknown>;
      for (const id of Object.keys(y)) {
        compared++;
        const ref = JSON.stringify(y[id]);
        if (JSON.stringify(x[id]) !== ref || JSON.stringify(z[id]) !== ref) differ++;
      }
    }
  }
  const us = (ms: number, n: number) => ((1000 * ms) / n).toFixed(2);
  console.log(`
## Write-path questions: this controller + offline backend vs the pre-optimisation reference (git tag system-one-reference, same run)
`);
  console.log(`Workload: core's write-path calls (bench/write-workload.ts) over ${source}; ${writes} writes; process CPU time; ${rounds} interleaved rounds (each slice twice, in both orders), a full GC before each run, fresh controllers and item objects per run.
`);
  console.log('| stage | questions | questions / write | reference µs / question | optimised µs / question | reference ms / write | optimised ms / write | speed-up |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  let tq = 0;
  let tr = 0;
  let tn = 0;
  for (const s of stages) {
    tq += nq[s];
    tr += refCpu[s];
    tn += newCpu[s];
    console.log(`| ${s} | ${nq[s]} | ${(nq[s] / writes).toFixed(1)} | ${us(refCpu[s], nq[s])} | ${us(newCpu[s], nq[s])} | ${(refCpu[s] / writes).toFixed(3)} | ${(newCpu[s] / writes).toFixed(3)} | ${(refCpu[s] / newCpu[s]).toFixed(2)}x |`);
  }
  console.log(`| **all** | ${tq} | ${(tq / writes).toFixed(1)} | ${us(tr, tq)} | ${us(tn, tq)} | ${(tr / writes).toFixed(3)} | ${(tn / writes).toFixed(3)} | **${(tr / tn).toFixed(2)}x** |`);
  const tc = noCacheCpu.typing + noCacheCpu.relations + noCacheCpu.consolidation;
  console.log(
    `\nThe same optimised controller with \`cache: false\` (answer-cache hits with the default cache in this workload: ${cacheHits} of ${tq} questions): ${us(tc, tq)} µs / question, ${(tc / writes).toFixed(3)} ms / write, ${(tr / tc).toFixed(2)}x the reference (typing ${(refCpu.typing / noCacheCpu.typing).toFixed(2)}x, relations ${(refCpu.relations / noCacheCpu.relations).toFixed(2)}x, consolidation ${(refCpu.consolidation / noCacheCpu.consolidation).toFixed(2)}x).`,
  );
  console.log(`Per-round speed-up (all stages): median ${percentile(roundRatios, 50).toFixed(2)}x, min ${Math.min(...roundRatios).toFixed(2)}x, max ${Math.max(...roundRatios).toFixed(2)}x.`);
  console.log(`Answers identical to the reference (default cache and cache: false): ${compared - differ} of ${compared}${differ ? ` (${differ} DIFFER)` : ''}.`);
  // not an exit code: offline answers may change on purpose after the reference; identity is guarded by src/identity.test.ts (golden file)
}

/** The pre-optimisation controller, from git history (sections 2 and 3 only). */
let createReferenceSystemOne: Awaited<ReturnType<typeof loadReferenceController>>;
if (!process.argv.includes('--no-speed')) createReferenceSystemOne = await loadReferenceController();

if (process.argv.includes('--write-only')) {
  await writePath();
  process.exit();
}
if (!process.argv.includes('--speed-only')) {
  await accuracy(dataset, 'Offline backend, development set (bench/dataset.ts; the scorers were tuned on it)');
  await accuracy(holdout, 'Offline backend, held-out set (bench/holdout.ts; never tuned on)');
  locomoRouting();
}
if (!process.argv.includes('--no-speed')) {
  await speed();
  await writePath();
}
