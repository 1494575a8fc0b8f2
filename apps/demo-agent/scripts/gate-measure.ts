/**
 * The SAGE gate as a drop-in write filter on LoCoMo (a script; the measured functions are in
 * src/gate/measure.ts, see its header):
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/gate-measure.ts \
 *     [--data /work/shared/data/locomo/locomo10-dev.json] [--systems hybrid,dense,bm25] \
 *     [--conversations 0,1] [--tau-noop 0.572] [--k 10] [--json out.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createWinkEmbedder } from '@mem/core';
import { SAGE_DEFAULTS } from '@mem/gate-vmf';
import { runLocomoEval } from '../src/eval/engine.js';
import { checkLocomo, conversationQuestions } from '../src/eval/locomo.js';
import { evalSystems } from '../src/eval/systems/index.js';
import { CALIBRATION_FILE, POLICIES, calibrateTauNoop, decisionsLog, gatedSystem, type Policy } from '../src/gate/measure.js';

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const f3 = (x: number | undefined) => (x === undefined ? 'n/a' : x.toFixed(3));
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string', default: '/work/shared/data/locomo/locomo10-dev.json' },
      systems: { type: 'string', default: 'hybrid,dense,bm25' },
      conversations: { type: 'string' },
      'tau-noop': { type: 'string', default: String(SAGE_DEFAULTS.tauNoop) },
      calibration: { type: 'string', default: CALIBRATION_FILE },
      k: { type: 'string', default: '10' },
      json: { type: 'string' },
    },
  });
  const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
  const systems = list(values.systems!);
  const tauNoop = Number(values['tau-noop']);
  const k = Number(values.k);
  for (const s of systems) if (!evalSystems[s]) throw new Error(`unknown system ${s}; known: ${Object.keys(evalSystems).join(', ')}`);
  const data = checkLocomo(JSON.parse(readFileSync(values.data!, 'utf8')));
  const convs = values.conversations ? list(values.conversations).map(Number) : data.map((_, i) => i);

  const calib = JSON.parse(readFileSync(values.calibration!, 'utf8')) as { sessions: { turns: { text: string }[] }[] };
  const calibTexts = calib.sessions.flatMap((s) => s.turns.map((t) => t.text));
  const tauCalibrated = calibrateTauNoop(await createWinkEmbedder().embed(calibTexts));
  const tauOf = (p: Policy) => (p === 'noop-calibrated' ? tauCalibrated : tauNoop);
  const entries = POLICIES.flatMap((p) => systems.map((s) => ({ name: `${s}|${p}`, factory: gatedSystem(p, evalSystems[s], tauOf(p)) })));
  const t0 = performance.now();
  const report = await runLocomoEval({
    data: values.data,
    systems: entries,
    ks: [k],
    conversations: convs,
    onProgress: (e) => {
      if (e.phase === 'built') process.stderr.write(`conv ${e.conversation} ${e.system}: built in ${e.seconds.toFixed(1)} s\n`);
    },
  });

  // Skip rates and the share of gold-evidence turns among the skipped ones.
  const lines: string[] = [];
  lines.push(
    `LoCoMo ${values.data!.split('/').pop()}: ${convs.length} conversations, ${report.questions} questions; offline wink embedder; k = ${k}`,
    `τ_noop = ${tauNoop} (paper); calibrated τ_noop = ${tauCalibrated.toFixed(4)} (80th percentile of s_vMF on ${calibTexts.length} turns of ${values.calibration!.split('/').pop()}, App. G)`,
    '',
  );
  lines.push('| policy | turns | skipped | skip rate | of which gold-evidence turns | questions losing ≥1 evidence turn | adaptive add / update / noop |', '|---|---:|---:|---:|---:|---:|---|');
  const skipSummary: Record<string, unknown> = {};
  for (const p of POLICIES.filter((x) => x !== 'all')) {
    let turns = 0;
    let skipped = 0;
    let skippedGold = 0;
    let questions = 0;
    let hurt = 0;
    const actions = { add: 0, update: 0, noop: 0 };
    for (const c of convs) {
      const decisions = decisionsLog.get(`${p}|${c}`) ?? [];
      turns += decisions.length;
      const sk = new Set(decisions.filter((d) => d.skipped).map((d) => d.sourceId));
      skipped += sk.size;
      for (const d of decisions) if (d.action in actions) actions[d.action as keyof typeof actions]++;
      const gold = new Set<string>();
      for (const q of conversationQuestions(data[c], c)) {
        questions++;
        if (q.evidence.some((e) => sk.has(e))) hurt++;
        for (const e of q.evidence) gold.add(e);
      }
      for (const id of sk) if (gold.has(id)) skippedGold++;
    }
    skipSummary[p] = { turns, skipped, skipRate: skipped / turns, skippedGold, questionsLosingEvidence: hurt, questions, actions };
    lines.push(
      `| ${p} (${p === 'adaptive' ? 'ν < τ_t' : `s_vMF > ${tauOf(p).toFixed(3)}`}) | ${turns} | ${skipped} | ${pct(skipped / turns)} | ${skippedGold} | ${hurt} of ${questions} (${pct(hurt / questions)}) | ${p === 'adaptive' ? `${actions.add} / ${actions.update} / ${actions.noop}` : '—'} |`,
    );
  }
  lines.push('', `Evidence recall@${k} (gold = all evidence, including turns the gate dropped)`, '');
  lines.push(`| system | group | all turns | noop-filter | Δ | noop-calibrated | Δ | adaptive | Δ |`, '|---|---|---:|---:|---:|---:|---:|---:|---:|');
  const recallSummary: Record<string, unknown> = {};
  for (const s of systems) {
    for (const g of ['overall', 'overall_1_4', 'multi-hop', 'temporal', 'open-domain', 'single-hop', 'adversarial']) {
      const r = (p: Policy) => report.systems[`${s}|${p}`]?.recall_at_k[g]?.[String(k)];
      const base = r('all');
      const nf = r('noop-filter');
      const nc = r('noop-calibrated');
      const ad = r('adaptive');
      recallSummary[`${s}|${g}`] = { all: base, noopFilter: nf, noopCalibrated: nc, adaptive: ad };
      if (base === undefined) continue;
      const cell = (x: number | undefined) => `${f3(x)} | ${x === undefined ? '' : signed(x - base)}`;
      lines.push(`| ${s} | ${g} | ${f3(base)} | ${cell(nf)} | ${cell(nc)} | ${cell(ad)} |`);
    }
  }
  lines.push('', `| system | policy | stored turns | build s | query p50 ms |`, '|---|---|---:|---:|---:|');
  for (const s of systems) for (const p of POLICIES) {
    const r = report.systems[`${s}|${p}`];
    lines.push(`| ${s} | ${p} | ${r.observations} | ${r.build_seconds.toFixed(1)} | ${r.query_latency_ms.p50.toFixed(1)} |`);
  }
  lines.push('', `total ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  console.log(lines.join('\n'));
  if (values.json) writeFileSync(values.json, JSON.stringify({ tauNoop, tauCalibrated, k, conversations: convs, skip: skipSummary, recall: recallSummary, report }, null, 2));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
