/**
 * System Two on a real LLM: llama.cpp + SmolLM2-135M-Instruct, started by the integration tier's
 * global setup (scripts/llm-global-setup.mjs → MEM_TEST_LLM_URL). Through the real command line:
 * `pnpm demo` answers, `mem ask` answers, and `mem eval locomo` scores System-Two answers on one
 * conversation (token-F1, BLEU-1, LLM judge). The tiny model's answers are mostly poor; these tests
 * check that the loop runs end to end and reports its numbers, not that the model is good.
 * Skipped (reason printed) without the server: run `pnpm test:integration`.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const url = process.env.MEM_TEST_LLM_URL;
const model = process.env.MEM_TEST_LLM_MODEL ?? 'smollm2';
const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LOCOMO = process.env.MEM_LOCOMO_PATH ?? path.resolve(APP, '..', '..', '..', 'shared', 'data', 'locomo', 'locomo10-dev.json');
if (!url) console.warn(`System Two LLM tests skipped: ${process.env.MEM_TEST_LLM_SKIP ?? 'no MEM_TEST_LLM_URL (run `pnpm test:integration`, which starts the local llama.cpp server)'}`);
else if (!existsSync(LOCOMO)) console.warn(`mem eval locomo with answers skipped: no LoCoMo file at ${LOCOMO} (set MEM_LOCOMO_PATH)`);

const env = { ...process.env, MEM_LLM_BASE_URL: url, MEM_LLM_API_KEY: 'none', MEM_LLM_MODEL: model, FORCE_COLOR: '0', NO_COLOR: '1' };
const mem = async (args: string[]) => {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--conditions=@mem/source', 'src/cli.ts', ...args], { cwd: APP, env, maxBuffer: 64 << 20, timeout: 1_200_000 });
  return JSON.parse(stdout);
};

describe.skipIf(!url)('System Two on llama.cpp + SmolLM2', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'mem-llm-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('pnpm demo: System Two writes the answers', async () => {
    const r = await mem(['demo', '--questions', '3', '--json']);
    expect(r.mode).toBe('llm');
    expect(r.questions).toHaveLength(3);
    for (const q of r.questions) {
      expect(q.mode).toBe('llm');
      expect(q.model).toBe(model);
      expect(q.answer.trim().length).toBeGreaterThan(0);
      expect(q.systemTwoError ?? null).toBeNull();
    }
    console.log(`demo answers by ${model}:\n${r.questions.map((q: any) => `  Q: ${q.question}\n  A: ${q.answer.replace(/\s+/g, ' ').slice(0, 160)}`).join('\n')}`);
  });

  it('mem ask: System Two answers from the stored memory', async () => {
    const db = path.join(tmp, 'ask.sqlite');
    await mem(['--db', db, '--user', 'maya', 'ingest', 'data/sample-conversation.json', '--json']);
    const r = await mem(['--db', db, '--user', 'maya', 'ask', 'Why did Maya miss the planning meeting?', '--json']);
    expect(r.mode).toBe('llm');
    expect(r.model).toBe(model);
    expect(r.answer.trim().length).toBeGreaterThan(0);
    expect(r.evidence.length).toBeGreaterThan(0);
    console.log(`mem ask → ${r.answer.replace(/\s+/g, ' ').slice(0, 200)}`);
  });

  it.skipIf(!existsSync(LOCOMO))('mem eval locomo on one conversation: token-F1, BLEU-1 and judge scores of System-Two answers', async () => {
    const t0 = performance.now();
    const r = await mem(['eval', 'locomo', '--data', LOCOMO, '--systems', 'jev', '--k', '10', '--conversations', '0', '--max-questions', '40', '--budget-tokens', '300', '--json']);
    const a = r.systems.jev.answers;
    expect(a.model).toBe(model);
    expect(a.answered).toBeGreaterThan(0);
    for (const m of [a.token_f1, a.bleu1, a.llm_judge]) {
      expect(Object.keys(m).length).toBeGreaterThan(0);
      for (const v of Object.values(m) as number[]) expect(v >= 0 && v <= 1).toBe(true);
    }
    console.log(`LoCoMo conv 0 (jev, ${model}): ${a.answered} answered, ${a.failed} failed, token-F1 ${JSON.stringify(a.token_f1)}, BLEU-1 ${JSON.stringify(a.bleu1)}, judge ${JSON.stringify(a.llm_judge)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  });
});
