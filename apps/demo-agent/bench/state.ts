/**
 * The state benchmark (issue 37): what is true now, what was true before, and when memory holds
 * nothing. Every number goes through what a user runs: `createStack` (the CLI's wiring: offline
 * System One, SAGE gate, jev with its learned models), on memories built by the write path.
 *
 *   pnpm --filter @mem/demo-agent bench:state [--cache /tmp/mem-read-path] [--beam …/500K] [--locomo …/locomo10-dev.json]
 *     [--sections current,compatible,sample,abstention,beam-ku] [--beam-convs 6,7,8,9,10] [--locomo-convs 4,5,6,7]
 *
 * Sections:
 * 1. current: our current-state set (bench/state-scenarios.ts: 24 changes over 8 attribute kinds, never
 *    trained or tuned on): one memory per scenario (earlier statement, two compatible ones, the change),
 *    R@1 of the NEWER memory for the present question asked without and with "now", and of the OLDER
 *    memory for the past question; the edge the write path put between the two (p), and whether the
 *    search says the older one is superseded. Per attribute kind.
 * 2. compatible: in the same memories, CONTRADICTS / OBSOLETES edges that touch a compatible statement
 *    (both stay true: every such edge is false), counted and listed.
 * 3. sample: the demo's sample conversation: memories marked superseded, listed for checking by hand.
 * 4. abstention: our held-out tiny memories (scripts/read-path/tiny-memories.ts), held-out LoCoMo (4–7, adversarial = unanswerable) and BEAM (6–10, `abstention` =
 *    unanswerable) conversations, per conversation: share of unanswerable questions where search says
 *    `answerable: false`, share of answerable ones refused. Memories from the read-path cache
 *    (`--cache`, built on first use: scripts/read-path/corpus.ts).
 * 5. beam-ku: BEAM knowledge_update on the held-out conversations (6–10; nothing was trained or tuned on
 *    them): share of questions whose updated statement ranks above the original (absent from the top 50
 *    = last), `now` = the last message — memory-state's rule.
 * The state labels' precision / recall / ECE per label and attribute kind are the write side's
 * (`pnpm --filter @mem/system-one train:state`, see docs/state.md). LoCoMo / BEAM recall@10: see
 * docs/state.md for the eval-cache commands.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createJevRetriever } from '@mem/retrieval';
import { createStack } from '../src/stack.js';
import { SAMPLE_CONVERSATION } from '../src/demo.js';
import { parseIngestFile } from '../src/ingest/formats.js';
import { createEmbedderFor, resolveEmbedderKind } from '../src/embedder.js';
import { createEvalSystemOne } from '../src/eval/systems/mem.js';
import { loadCorpus, memoryOf } from '../scripts/read-path/corpus.js';
import { buildTinyMemory, TINY_MEMORIES, TINY_TRAIN_COUNT } from '../scripts/read-path/tiny-memories.js';
import { STATE_SCENARIOS, withNow, type AttributeKind } from './state-scenarios.js';

const here = import.meta.dirname;
const { values } = parseArgs({
  options: {
    cache: { type: 'string', default: '/tmp/mem-read-path' },
    beam: { type: 'string', default: process.env.MEM_BEAM_DIR ?? resolve(here, '../../../../shared/data/beam/500K') },
    locomo: { type: 'string', default: resolve(here, '../../../../shared/data/locomo/locomo10-dev.json') },
    sections: { type: 'string', default: 'current,compatible,sample,abstention,beam-ku' },
    'beam-convs': { type: 'string', default: '6,7,8,9,10' },
    'locomo-convs': { type: 'string', default: '4,5,6,7' },
  },
});
const cwd = process.env.INIT_CWD ?? process.cwd();
const sections = new Set(values.sections!.split(','));
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
const rows: [string, string, string, string][] = [];
const row = (target: string, goal: string, value: string, ok: boolean | null) => rows.push([target, goal, value, ok === null ? '—' : ok ? 'met' : 'NOT met']);
const NOW = '2026-12-01T12:00:00Z';

// 1–2. current-state set and false edges on compatible statements
if (sections.has('current') || sections.has('compatible')) {
  type Res = { kind: AttributeKind; change: string; present: boolean; presentNow: boolean; past: boolean; edge: string; flagged: boolean };
  const res: Res[] = [];
  const falseEdges: string[] = [];
  let compatiblePairs = 0;
  for (const [i, s] of STATE_SCENARIOS.entries()) {
    const stack = await createStack({ db: ':memory:', scope: { userId: `state-${i}` }, systemTwo: null, env: {} });
    try {
      const texts = [s.older, s.compatible[0], s.compatible[1], s.newer];
      const added = await stack.add(texts.map((text, j) => ({ text, speaker: s.speaker, observedAt: new Date(Date.UTC(2026, 0 + j * 3, 10)).toISOString() })));
      const [older, c1, c2, newer] = added.map((a) => a.node.id);
      const graph = await stack.graph();
      const edge = graph.edges.find((e) => e.from === newer && e.to === older && (e.subtype === 'CONTRADICTS' || e.subtype === 'OBSOLETES'));
      const compat = new Set([c1, c2]);
      compatiblePairs += 5; // each compatible statement with the other three (older, newer, the other compatible one), counted once
      for (const e of graph.edges) {
        if ((e.subtype === 'CONTRADICTS' || e.subtype === 'OBSOLETES') && (compat.has(e.from) || compat.has(e.to))) {
          const t = (id: string) => graph.nodes.find((n) => n.id === id)?.text ?? id;
          falseEdges.push(`${s.kind}: "${t(e.from)}" ─${e.subtype} p=${f2(e.probability)}→ "${t(e.to)}"`);
        }
      }
      const top = async (q: string) => (await stack.ask(q, { k: 5, now: NOW })).evidence;
      const p0 = await top(s.present);
      const p1 = await top(withNow(s.present));
      const p2 = await top(s.past);
      const flagged = [...p0, ...p1].some((e) => e.id === older && e.status === 'superseded' && e.supersededBy?.id === newer);
      res.push({ kind: s.kind, change: s.change, present: p0[0]?.id === newer, presentNow: p1[0]?.id === newer, past: p2[0]?.id === older, edge: edge ? `${edge.subtype} p=${f2(edge.probability)}` : 'none', flagged });
    } finally {
      await stack.close();
    }
  }
  if (sections.has('current')) {
    console.log('\n## Current-state set (our scenarios, never trained on): R@1\n');
    console.log('| attribute kind | scenarios | present | present + "now" | past (old memory first) | edge written | old flagged superseded |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    const kinds = [...new Set(res.map((r) => r.kind))];
    const share = (rs: Res[], k: keyof Res) => rs.filter((r) => r[k] === true).length / rs.length;
    for (const k of [...kinds, 'all'] as const) {
      const rs = k === 'all' ? res : res.filter((r) => r.kind === k);
      console.log(`| ${k} | ${rs.length} | ${f2(share(rs, 'present'))} | ${f2(share(rs, 'presentNow'))} | ${f2(share(rs, 'past'))} | ${rs.filter((r) => r.edge !== 'none').length}/${rs.length} | ${rs.filter((r) => r.flagged).length}/${rs.length} |`);
    }
    for (const [i, r] of res.entries()) if (!r.present || !r.presentNow || !r.past) console.log(`  miss: ${STATE_SCENARIOS[i]!.kind}/${r.change} "${STATE_SCENARIOS[i]!.present}" present ${r.present ? 'ok' : 'MISS'}, now ${r.presentNow ? 'ok' : 'MISS'}, past ${r.past ? 'ok' : 'MISS'} (edge ${r.edge})`);
    row('Current-state R@1, present questions', '≥ 0.9', f2(share(res, 'present')), share(res, 'present') >= 0.9);
    row('Current-state R@1, present questions with "now"', '≥ 0.9', f2(share(res, 'presentNow')), share(res, 'presentNow') >= 0.9);
    row('Old-state R@1, past questions', '≥ 0.8', f2(share(res, 'past')), share(res, 'past') >= 0.8);
  }
  if (sections.has('compatible')) {
    console.log(`\n## False CONTRADICTS / OBSOLETES edges on compatible statements: ${falseEdges.length} of ${compatiblePairs} compatible pairs`);
    for (const l of falseEdges) console.log(`  ${l}`);
    row('False edges on compatible pairs (scenarios)', '≤ 2%', `${falseEdges.length}/${compatiblePairs} = ${f2((100 * falseEdges.length) / compatiblePairs)}%`, falseEdges.length / compatiblePairs <= 0.02);
  }
}

// 3. the sample conversation
if (sections.has('sample')) {
  const stack = await createStack({ db: ':memory:', scope: { userId: 'maya', agentId: 'demo' }, systemTwo: null, env: {} });
  try {
    const parsed = parseIngestFile(readFileSync(SAMPLE_CONVERSATION, 'utf8'));
    await stack.add(parsed.groups.flatMap((g) => g.observations));
    const nodes = await stack.list({ limit: 1000 });
    const byId = new Map(nodes.map((n) => [n.id, n]));
    const graph = await stack.graph({ limit: 1000 });
    const sup = nodes.filter((n) => n.obsoleteBy);
    console.log(`\n## Sample conversation: ${sup.length} of ${nodes.length} turns superseded (check by hand: is the older one still true?)`);
    for (const n of sup) {
      const by = byId.get(n.obsoleteBy!);
      const e = graph.edges.find((x) => x.from === n.obsoleteBy && x.to === n.id && (x.subtype === 'CONTRADICTS' || x.subtype === 'OBSOLETES'));
      console.log(`  ${n.provenance.sourceId} "${n.text}"\n     ─${e?.subtype ?? 'obsoleteBy'} p=${e ? f2(e.probability) : '–'}← ${by?.provenance.sourceId} "${by?.text}"`);
    }
    row('Sample conversation: turns marked superseded', 'list; ≤ 1 false', `${sup.length}/${nodes.length} (listed above)`, null);
  } finally {
    await stack.close();
  }
}

// 4–5. held-out LoCoMo / BEAM conversations
if (sections.has('abstention') || sections.has('beam-ku')) {
  const embedder = createEmbedderFor(resolveEmbedderKind(undefined));
  const beamConvs = new Set(values['beam-convs']!.split(',').map(Number));
  const locomoConvs = new Set(values['locomo-convs']!.split(',').map(Number));
  const corpus = loadCorpus({ locomo: resolve(cwd, values.locomo!), beam: resolve(cwd, values.beam!) }).filter((c) => (c.dataset === 'beam' ? beamConvs : locomoConvs).has(c.index));
  const abst: { name: string; u: number; abstained: number; a: number; refused: number }[] = [];
  const ku: string[] = [];
  let kuAbove = 0;
  let kuN = 0;
  for (const conv of corpus) {
    const systemOne = createEvalSystemOne(embedder);
    const m = await memoryOf(conv, resolve(cwd, values.cache!), embedder, systemOne);
    const jev = createJevRetriever({ store: m.store, systemOne, embedder });
    const nodes = await m.store.list(m.scope, { limit: 1_000_000 });
    const src = new Map(nodes.map((n) => [n.id, String(n.provenance.sourceId)]));
    if (sections.has('abstention')) {
      const r = { name: `${conv.dataset} ${conv.index}`, u: 0, abstained: 0, a: 0, refused: 0 };
      for (const q of conv.questions) {
        const res = await jev.search({ scope: m.scope, query: q.question, k: 10, now: m.now });
        const unanswerable = conv.dataset === 'locomo' ? String(q.category) === '5' : q.category === 'abstention';
        if (unanswerable) {
          r.u++;
          if (res.answerable === false) r.abstained++;
        } else {
          r.a++;
          if (res.answerable === false) r.refused++;
        }
      }
      abst.push(r);
    }
    if (sections.has('beam-ku') && conv.dataset === 'beam') {
      const probing = JSON.parse(readFileSync(resolve(cwd, values.beam!, String(conv.index), 'probing_questions.json'), 'utf8')) as Record<string, any[]>;
      let above = 0;
      let n = 0;
      for (const q of probing.knowledge_update ?? []) {
        const ids = q.source_chat_ids;
        if (!ids?.original_info?.length || !ids?.updated_info?.length) continue;
        const res = await jev.search({ scope: m.scope, query: q.question, k: 50, now: m.now });
        const rank = (want: number[]) => {
          const w = new Set(want.map(String));
          const i = res.evidence.findIndex((e) => w.has(src.get(e.node.id)!));
          return i < 0 ? Infinity : i;
        };
        n++;
        if (rank(ids.updated_info) < rank(ids.original_info)) above++;
      }
      ku.push(`beam ${conv.index}: ${above}/${n}`);
      kuAbove += above;
      kuN += n;
    }
    await m.close();
  }
  if (sections.has('abstention')) {
    // our tiny memories (3–12 observations; tiny-memories.ts), the held-out ones only
    for (const [i, tm] of TINY_MEMORIES.entries()) {
      if (i < TINY_TRAIN_COUNT) continue;
      const m = await buildTinyMemory(tm, embedder);
      const jev = createJevRetriever({ store: m.store, systemOne: m.systemOne, embedder });
      const r = { name: `tiny ${tm.name}`, u: 0, abstained: 0, a: 0, refused: 0 };
      const refuses = async (q: string) => (await jev.search({ scope: m.scope, query: q, k: 10, now: m.now })).answerable === false;
      for (const q of tm.answerable) {
        r.a++;
        if (await refuses(q)) r.refused++;
      }
      for (const q of tm.unanswerable) {
        r.u++;
        if (await refuses(q)) r.abstained++;
      }
      abst.push(r);
      await m.close();
    }
    console.log('\n## Abstention on held-out conversations (unanswerable: LoCoMo adversarial, BEAM abstention, our tiny memories)\n');
    console.log('| conversation | unanswerable | abstained | answerable | refused |');
    console.log('|---|---:|---:|---:|---:|');
    const sum = (d: string) => abst.filter((r) => r.name.startsWith(d)).reduce((s, r) => ({ name: `all ${d}`, u: s.u + r.u, abstained: s.abstained + r.abstained, a: s.a + r.a, refused: s.refused + r.refused }), { name: `all ${d}`, u: 0, abstained: 0, a: 0, refused: 0 });
    for (const r of [...abst, sum('locomo'), sum('beam'), sum('tiny')]) if (r.u + r.a) console.log(`| ${r.name} | ${r.u} | ${f2(r.abstained / Math.max(1, r.u))} | ${r.a} | ${f2(r.refused / Math.max(1, r.a))} |`);
    for (const d of ['locomo', 'beam', 'tiny']) {
      const s = sum(d);
      if (!s.u) continue;
      row(`Abstention ${d} held-out: unanswerable abstained`, '≥ 0.7', f2(s.abstained / s.u), s.abstained / s.u >= 0.7);
      row(`Abstention ${d} held-out: answerable refused`, '≤ 0.05', f2(s.refused / Math.max(1, s.a)), s.refused / Math.max(1, s.a) <= 0.05);
    }
  }
  if (sections.has('beam-ku')) {
    console.log(`\nBEAM knowledge_update, updated ranked above original: ${ku.join(', ')}`);
    row(`BEAM knowledge_update updated above original (held-out conv ${[...beamConvs].join(',')})`, '≥ 0.8', kuN ? `${kuAbove}/${kuN} = ${f2(kuAbove / kuN)}` : 'no questions', kuN ? kuAbove / kuN >= 0.8 : null);
  }
}

console.log('\n| target | goal | measured | |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
