/**
 * The golden file of the System-One identity test (`test/identity.golden.json`, checked by
 * `src/identity.test.ts`): check it, or regenerate kinds of it from the CURRENT controller.
 *
 *   pnpm --filter @mem/system-one golden                     # check: differences per section and kind
 *   pnpm --filter @mem/system-one golden --kinds relation.semantic,typing.episodic
 *                                                            # rewrite those kinds only (every section)
 *   pnpm --filter @mem/system-one golden --all               # rewrite everything (also stats and inputs)
 *   pnpm --filter @mem/system-one golden --impl <dir>        # use the controller in <dir> (controller.ts,
 *                                                            # offline.ts, lru.ts), e.g. an old src/ from git
 *
 * Change offline answers ON PURPOSE only: run the check first, make sure only the kinds you meant
 * differ, rewrite those kinds, and name them in the commit message. `--kinds` also refreshes each
 * touched section's controller stats (they count questions and cache hits, not answers; a change is
 * printed). The file was first recorded from the frozen pre-optimisation controller (git tag
 * `system-one-reference`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compare, currentImpl, encode, goldenOf, type Golden, type Impl, SECTION_NAMES, SECTIONS } from '../test/identity-cases.js';

export const GOLDEN_PATH = resolve(import.meta.dirname, '../test/identity.golden.json');

/** Load an implementation from a directory holding controller.ts, offline.ts and lru.ts (flat-key cache). */
async function implFrom(dir: string): Promise<Impl> {
  const url = (f: string) => pathToFileURL(resolve(dir, f)).href;
  const [{ createSystemOne, stableStringify }, offline, { AnswerCache }] = await Promise.all([import(url('controller.ts')), import(url('offline.ts')), import(url('lru.ts'))]);
  return {
    createSystemOne,
    createOfflineBackend: offline.createOfflineBackend,
    lexicalContext: () => offline.lexicalContext(),
    scoreQuestion: offline.scoreQuestion,
    stableStringify,
    lru(max) {
      const c = new AnswerCache(max);
      const flat = (k: number) => (k < 3 ? `s${k}` : [`a${Math.floor((k - 3) / 3)}`, `b${(k - 3) % 3}`].join('\u0001'));
      return { get: (k) => c.get(flat(k)), put: (k, q, v) => c.put(flat(k), q, v), clear: () => c.clear(), get size() { return c.size; } };
    },
  };
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const all = args.includes('--all');
  const kinds = opt('--kinds')?.split(',').map((k) => k.trim()).filter(Boolean);
  const implDir = opt('--impl');
  const impl = implDir ? await implFrom(implDir) : await currentImpl();
  let golden: Golden;
  try {
    golden = JSON.parse(readFileSync(GOLDEN_PATH, 'utf8')) as Golden;
  } catch {
    if (!all) throw new Error(`${GOLDEN_PATH} not readable: record it with --all`);
    golden = { format: 1, note: '', sections: {} };
  }
  golden.note =
    'System-One identity golden file: per section and kind, 8-character hashes of each answer (+ trace) in order. Check / regenerate: pnpm --filter @mem/system-one golden (see scripts/golden.ts).';
  const perKind = new Map<string, number>();
  const seenKinds = new Set<string>();
  for (const name of SECTION_NAMES) {
    const t0 = performance.now();
    const run = await SECTIONS[name](impl);
    const now = goldenOf(run);
    const old = golden.sections[name];
    const diffs = compare(name, run, old);
    for (const k of Object.keys(now.kinds)) seenKinds.add(k);
    for (const d of diffs) perKind.set(`${name} / ${d.kind}`, (perKind.get(`${name} / ${d.kind}`) ?? 0) + 1);
    console.log(`${name}: ${run.entries.length} entries, ${diffs.length} differences (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
    for (const d of diffs.slice(0, 3)) console.log(`  ${d.kind}${d.label ? ` @ ${d.label} [${d.qids?.join(", ")}]` : ''}: ${d.problem}${d.now !== undefined ? ` — now ${encode(d.now).slice(0, 200)}` : ''}`);
    if (all || !old) golden.sections[name] = now;
    else if (kinds) {
      if (old.inputs !== now.inputs) throw new Error(`${name}: the generated inputs changed; per-kind regeneration needs the same inputs (use --all after checking)`);
      for (const k of kinds) {
        if (now.kinds[k] === undefined) delete old.kinds[k];
        else old.kinds[k] = now.kinds[k];
      }
      if (now.stats !== undefined && encode(now.stats) !== encode(old.stats)) console.log(`  stats changed: ${encode(old.stats)} -> ${encode(now.stats)}`);
      if (now.stats !== undefined) old.stats = now.stats;
      old.kinds = Object.fromEntries(Object.entries(old.kinds).sort(([a], [b]) => (a < b ? -1 : 1)));
    }
  }
  if (kinds) for (const k of kinds) if (!seenKinds.has(k)) throw new Error(`unknown kind ${k} (kinds: ${[...seenKinds].sort().join(', ')})`);
  console.log(perKind.size ? `\nDifferences per section / kind:\n${[...perKind].map(([k, n]) => `  ${k}: ${n}`).join('\n')}` : '\nNo differences.');
  if (all || kinds) {
    writeFileSync(GOLDEN_PATH, `${JSON.stringify(golden, null, 1)}\n`);
    console.log(`wrote ${GOLDEN_PATH}${kinds ? ` (kinds ${kinds.join(', ')})` : ' (all)'}`);
  } else if (perKind.size) process.exitCode = 1;
}

await main();
