/**
 * MiniLM encoding at its engine's pace (issue 33 point 6; a script, not a test). In one run, on the
 * same ONNX file (all-MiniLM-L6-v2 fp32 from `pnpm models:fetch`) and the same LoCoMo turns (read at
 * run time, never copied): our `createMiniLmEmbedder` one text at a time and batched (32), against
 * onnxruntime's own Python session (PyPI `onnxruntime` + `tokenizers`, bench/minilm_ort_baseline.py)
 * doing the same. Prints sentences per CPU second (process CPU time: steadier than wall time on a
 * shared machine) and per wall second, the ratios ours / Python, and the cosine of the two
 * implementations' vectors for the first turn.
 *
 *   cd packages/core && nice -n 10 npx tsx --conditions=@mem/source bench/minilm-ort.ts [--n 300] [--python path] [--threads N]
 *
 * `--python`: an interpreter with onnxruntime, tokenizers and numpy (default $MEM_ORT_PYTHON, else
 * `python3`); e.g. `python3 -m venv /tmp/ort && /tmp/ort/bin/pip install onnxruntime tokenizers numpy`.
 * `--threads`: intra-op threads for both sides (default: each runtime's own default).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createMiniLmEmbedder, defaultModelsDir, MINILM_FOLDER } from '../src/embed/minilm.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '300' },
    python: { type: 'string' },
    threads: { type: 'string' },
    data: { type: 'string' },
  },
});
const N = Number(values.n);
const data = values.data ?? process.env.MEM_LOCOMO_PATH ?? path.resolve(here, '../../../../shared/data/locomo/locomo10-dev.json');
const folder = path.join(defaultModelsDir(), MINILM_FOLDER);
const onnx = path.join(folder, 'onnx', 'model.onnx');
if (!existsSync(onnx) || !existsSync(data)) {
  console.log(`minilm-ort bench skipped: needs ${onnx} (pnpm models:fetch) and the LoCoMo file ${data}`);
  process.exit(0);
}

/** The first N turn texts of the LoCoMo conversations, in order. */
function turns(): string[] {
  const out: string[] = [];
  for (const conv of JSON.parse(readFileSync(data, 'utf8')) as { conversation: Record<string, unknown> }[]) {
    const c = conv.conversation;
    for (let s = 1; c[`session_${s}`]; s++) for (const t of c[`session_${s}`] as { text?: string }[]) if (t.text?.trim()) out.push(t.text);
    if (out.length >= N) break;
  }
  return out.slice(0, N);
}

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function measure(fn: () => Promise<unknown>): Promise<{ cpu: number; wall: number }> {
  const c0 = cpuSeconds();
  const w0 = performance.now();
  await fn();
  return { cpu: cpuSeconds() - c0, wall: (performance.now() - w0) / 1000 };
}

async function main(): Promise<void> {
  const texts = turns();
  const threads = values.threads ? Number(values.threads) : undefined;
  console.log(`minilm-ort: ${texts.length} LoCoMo turns, ${onnx}; ${cpus().length} × ${cpus()[0]?.model ?? '?'} (AVX-512), load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} (shared machine)`);

  // ours
  const one = createMiniLmEmbedder({ batchSize: 1, ...(threads ? { threads } : {}) });
  const batched = createMiniLmEmbedder({ batchSize: 32, ...(threads ? { threads } : {}) });
  for (const t of texts.slice(0, 10)) await one.embed([t]);
  await batched.embed(texts.slice(0, 32));
  let firstOurs: Float32Array | null = null;
  const ours1 = await measure(async () => {
    for (const t of texts) {
      const [v] = await one.embed([t]);
      firstOurs ??= v;
    }
  });
  const oursB = await measure(() => batched.embed(texts));

  // onnxruntime's Python session
  const python = values.python ?? process.env.MEM_ORT_PYTHON ?? 'python3';
  const r = spawnSync(python, [path.join(here, 'minilm_ort_baseline.py')], {
    input: JSON.stringify({ model: onnx, tokenizer: path.join(folder, 'tokenizer.json'), texts, max_tokens: 256, batch: 32, ...(threads ? { threads } : {}) }),
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) {
    console.log(`Python baseline failed (${python}; needs onnxruntime, tokenizers, numpy):\n${r.stderr}`);
    process.exit(1);
  }
  const py = JSON.parse(r.stdout.trim().split('\n').pop()!) as { onnxruntime: string; intra_op_threads: number; one_cpu_per_s: number; one_wall_per_s: number; batch_cpu_per_s: number; batch_wall_per_s: number; first: number[] };
  const cos = firstOurs ? py.first.reduce((s, x, i) => s + x * firstOurs![i]!, 0) : NaN;

  const rate = (n: number, s: number) => n / s;
  console.log(`Python onnxruntime ${py.onnxruntime} (intra-op threads ${py.intra_op_threads || 'default'}); cosine of the first turn's vectors ours vs Python ${cos.toFixed(6)}`);
  console.log('| path | ours /CPU s | Python /CPU s | ours / Python (CPU) | ours /wall s | Python /wall s | ours / Python (wall) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  const row = (name: string, o: { cpu: number; wall: number }, pyCpu: number, pyWall: number) => {
    const oc = rate(texts.length, o.cpu);
    const ow = rate(texts.length, o.wall);
    console.log(`| ${name} | ${oc.toFixed(1)} | ${pyCpu.toFixed(1)} | ${(oc / pyCpu).toFixed(2)}× | ${ow.toFixed(1)} | ${pyWall.toFixed(1)} | ${(ow / pyWall).toFixed(2)}× |`);
  };
  row('one at a time', ours1, py.one_cpu_per_s, py.one_wall_per_s);
  row('batched (32)', oursB, py.batch_cpu_per_s, py.batch_wall_per_s);
}

await main();
