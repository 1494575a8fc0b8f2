/**
 * Memory-state bench (issue 17): prints the targets' table for contradictions, updates and
 * obsolescence.
 *
 *   pnpm --filter @mem/demo-agent bench:memory-state [--beam <dir>] [--ku-convs 6,7,8,9,10] [--stream 5200] [--sample 20]
 *
 * Every pair decision goes through the write path's own code: the offline System One answers the
 * near-duplicate check's state Choice (`state.change`, the trained state model) for (older, newer),
 * and `nearDuplicateEdges` (θ_rel = 0.60) turns the
 * answers into CONTRADICTS / OBSOLETES / REDUNDANT_WITH edges — as for a gate Noop / Update.
 * 1. BEAM dev `contradiction_resolution`: share of pairs (the two statements' closest sentences) joined
 *    by a CONTRADICTS or OBSOLETES (supersedes) edge, per conversation; 1–5 were trained on, 6–10 not.
 * 2. Our held-out labelled pairs (test/relation-pairs.json, scenarios with index % 4 == 3, never
 *    trained on): precision / recall of CONTRADICTS (gold contradiction) and OBSOLETES (gold update),
 *    and of "either edge" against "either label".
 * 3. Unrelated-but-similar held-out pairs: share that get a CONTRADICTS or OBSOLETES edge.
 * 4. `--stream N` synthetic notes (core bench/synthetic.ts, "Mira painted the kite at the harbour
 *    yesterday (note 17).") through `createMemory` (all defaults): share marked obsolete, and a
 *    sample of (older → newer) pairs printed for checking by hand.
 * 5. BEAM dev `knowledge_update` (conversations `--ku-convs`, default 6–10): one memory per
 *    conversation (every message, as `mem eval beam` ingests it), the question asked through the Jev
 *    retriever with `now` = the conversation's last message; share of questions whose newest evidence
 *    turn (`updated_info`) ranks above the older one (`original_info`; absent from the top 50 = last).
 * LoCoMo recall@10 is measured by `pnpm -s mem eval locomo --systems jev --k 10` (see README).
 * The data is read at run time from ../shared (never copied into the repository).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemory, createSqliteStore, defaultQuestions, nearDuplicateEdges, resolveScope } from '@mem/core';
import { createSystemOne } from '@mem/system-one';
import { createJevRetriever } from '@mem/retrieval';
import { createWinkEmbedder } from '@mem/core';
import { beamPairs, BEAM_HELD_OUT, BEAM_TRAIN, ourPairs, type LabelledPair } from '../../../packages/system-one/scripts/relation-data';
import { synthetic } from '../../../packages/core/bench/synthetic';
import { beamObservations } from '../src/eval/beam';
import { createEvalSystemOne } from '../src/eval/systems/mem';

const THETA_REL = 0.6;
const { values } = parseArgs({
  options: {
    // default: ../shared next to the repository; a relative --beam is read from where the command was typed
    // (pnpm --filter runs this in apps/demo-agent and passes the caller's folder as INIT_CWD)
    beam: { type: 'string', default: process.env.MEM_BEAM_DIR ?? resolve(import.meta.dirname, '../../../../shared/data/beam/500K') },
    'ku-convs': { type: 'string', default: '6,7,8,9,10' },
    stream: { type: 'string', default: '5200' },
    sample: { type: 'string', default: '20' },
  },
});
const beamDir = resolve(process.env.INIT_CWD ?? process.cwd(), values.beam!);
const systemOne = createSystemOne({ cache: false });

/** The edges the near-duplicate check would write for (older, newer). */
async function edgesOf(older: string, newer: string): Promise<string[]> {
  const qs = defaultQuestions().nearDuplicate(1);
  const { answers } = await systemOne.ask({ new_memory: { text: newer }, candidates: [{ text: older }] }, qs as never);
  return nearDuplicateEdges('new', ['old'], answers as never, THETA_REL, null).drafts.map((d) => d.subtype);
}
const changes = (e: string[]) => e.includes('CONTRADICTS') || e.includes('OBSOLETES');
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const rows: [string, string, string, string][] = [];
const row = (target: string, goal: string, value: string, ok: boolean | null) => rows.push([target, goal, value, ok === null ? '—' : ok ? 'met' : 'NOT met']);

// 1. BEAM contradiction_resolution
{
  const all = [...BEAM_TRAIN, ...BEAM_HELD_OUT];
  const per: string[] = [];
  let joined = 0;
  let n = 0;
  let heldJ = 0;
  let heldN = 0;
  for (const conv of all) {
    const pairs = beamPairs(beamDir, [conv]).pairs.filter((p) => p.label === 'contradiction');
    let j = 0;
    for (const p of pairs) if (changes(await edgesOf(p.older, p.newer))) j++;
    per.push(`conv ${conv}: ${j}/${pairs.length}`);
    joined += j;
    n += pairs.length;
    if (BEAM_HELD_OUT.includes(conv)) {
      heldJ += j;
      heldN += pairs.length;
    }
  }
  console.log(`BEAM contradiction_resolution pairs joined by CONTRADICTS/OBSOLETES: ${per.join(', ')}`);
  row('BEAM contradiction pairs joined (all dev conv 1–10)', '≥ 70%', `${joined}/${n} = ${pct(joined / n)}`, joined / n >= 0.7);
  row('  of which held-out conv 6–10', '(report)', `${heldJ}/${heldN} = ${pct(heldJ / Math.max(1, heldN))}`, null);
}

// 2–3. our held-out pairs
{
  const held = ourPairs().filter((p) => p.heldOut && p.source.startsWith('ours:'));
  const predicted: { p: LabelledPair; e: string[] }[] = [];
  for (const p of held) predicted.push({ p, e: await edgesOf(p.older, p.newer) });
  const pr = (edge: (e: string[]) => boolean, gold: (p: LabelledPair) => boolean) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    for (const x of predicted) {
      const pos = edge(x.e);
      const g = gold(x.p);
      if (pos && g) tp++;
      else if (pos) fp++;
      else if (g) fn++;
    }
    return { precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1, tp, fp, fn };
  };
  const con = pr((e) => e.includes('CONTRADICTS'), (p) => p.label === 'contradiction');
  const obs = pr((e) => e.includes('OBSOLETES'), (p) => p.label === 'update');
  const either = pr(changes, (p) => p.label === 'contradiction' || p.label === 'update');
  const fmt = (r: typeof con) => `P ${r.precision.toFixed(2)} / R ${r.recall.toFixed(2)} (tp ${r.tp}, fp ${r.fp}, fn ${r.fn})`;
  console.log(`held-out pairs: ${held.length} (${new Set(held.map((p) => p.source)).size} scenarios)`);
  row('Held-out CONTRADICTS', 'P ≥ 0.9, R ≥ 0.7', fmt(con), con.precision >= 0.9 && con.recall >= 0.7);
  row('Held-out OBSOLETES (supersedes)', 'P ≥ 0.9, R ≥ 0.7', fmt(obs), obs.precision >= 0.9 && obs.recall >= 0.7);
  row('Held-out either edge vs either label', '(report)', fmt(either), null);
  const unrel = predicted.filter((x) => x.p.label === 'unrelated');
  const hit = unrel.filter((x) => changes(x.e));
  row('Unrelated-but-similar with CONTRADICTS/OBSOLETES', '≤ 5%', `${hit.length}/${unrel.length} = ${pct(hit.length / unrel.length)}`, hit.length / unrel.length <= 0.05);
  for (const x of hit) console.log(`  unrelated-but-similar got ${x.e.join('+')}: "${x.p.older}" → "${x.p.newer}"`);
}

// 4. synthetic stream
{
  const N = Number(values.stream);
  if (N > 0) {
    const t0 = performance.now();
    const m = createMemory({ store: createSqliteStore({ path: ':memory:' }) });
    const scope = { userId: 'stream' };
    const B = 200;
    for (let s = 0; s < N; s += B) {
      await m.add(Array.from({ length: Math.min(B, N - s) }, (_, j) => {
        const x = synthetic(s + j);
        return { text: x.text, speaker: x.name, observedAt: x.observedAt, scope };
      }));
    }
    const nodes = await m.list({ scope, limit: N + 10 });
    const obsolete = nodes.filter((n) => n.obsoleteBy);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const st = await m.stats();
    console.log(`\nsynthetic stream: ${N} notes in ${((performance.now() - t0) / 1000).toFixed(1)} s; gate add/update/noop ${st.gate.add}/${st.gate.update}/${st.gate.noop}; relations ${JSON.stringify(st.relations)}`);
    const k = Math.min(Number(values.sample), obsolete.length);
    console.log(`sample of ${k} obsolete notes (older → the newer one that superseded it), every ${Math.max(1, Math.floor(obsolete.length / Math.max(1, k)))}th:`);
    for (let i = 0; i < k; i++) {
      const o = obsolete[Math.floor((i * obsolete.length) / k)]!;
      console.log(`  "${o.text}" → "${byId.get(o.obsoleteBy!)?.text}"`);
    }
    row(`Synthetic stream (${N} notes): share marked obsolete`, 'report + hand check', `${obsolete.length}/${nodes.length} = ${pct(obsolete.length / nodes.length)}`, null);
    await m.close();
  }
}

// 5. BEAM knowledge_update: newest evidence above the older one
{
  const convs = values['ku-convs']!.split(',').filter(Boolean).map(Number);
  let above = 0;
  let n = 0;
  const per: string[] = [];
  for (const conv of convs) {
    const dir = resolve(beamDir, String(conv));
    const probing = JSON.parse(readFileSync(resolve(dir, 'probing_questions.json'), 'utf8')) as Record<string, any[]>;
    const items = (probing.knowledge_update ?? []).filter((q) => q.source_chat_ids?.original_info?.length && q.source_chat_ids?.updated_info?.length);
    if (!items.length) {
      per.push(`conv ${conv}: no ids`);
      continue;
    }
    const { observations } = beamObservations(JSON.parse(readFileSync(resolve(dir, 'chat.json'), 'utf8')), conv);
    const embedder = createWinkEmbedder();
    const s1 = createEvalSystemOne(embedder);
    const store = createSqliteStore({ path: ':memory:' });
    const memory = createMemory({ store, embedder, systemOne: s1 as never });
    const scope = resolveScope({ userId: `beam-${conv}` });
    await memory.add(observations.map((o) => ({ text: o.text, speaker: o.speaker, observedAt: o.observedAt, sourceId: o.sourceId, scope })));
    const now = observations[observations.length - 1]!.observedAt;
    const retriever = createJevRetriever({ store, embedder, systemOne: s1 });
    let a = 0;
    for (const q of items) {
      const r = await retriever.search({ scope, query: q.question, k: 50, now });
      const rank = (ids: number[]) => {
        const want = new Set(ids.map(String));
        const i = r.evidence.findIndex((e) => want.has(String(e.node.provenance.sourceId)));
        return i < 0 ? Infinity : i;
      };
      const newest = rank(q.source_chat_ids.updated_info);
      const older = rank(q.source_chat_ids.original_info);
      if (newest < older) a++;
      console.log(`  conv ${conv} KU "${String(q.question).slice(0, 70)}": newest rank ${newest === Infinity ? '—' : newest + 1}, older rank ${older === Infinity ? '—' : older + 1}`);
    }
    per.push(`conv ${conv}: ${a}/${items.length}`);
    above += a;
    n += items.length;
    await memory.close();
  }
  console.log(`BEAM knowledge_update: ${per.join(', ')}`);
  row(`BEAM knowledge_update newest evidence above older (conv ${convs.join(',')})`, '≥ 0.8', n ? `${above}/${n} = ${(above / n).toFixed(2)}` : 'no questions', n ? above / n >= 0.8 : null);
}

row('LoCoMo recall@10 does not drop (jev overall ≥ 0.771)', '≥ 0.771', 'pnpm -s mem eval locomo --systems jev --k 10 (separate run)', null);

console.log('\n| target | goal | measured | |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
