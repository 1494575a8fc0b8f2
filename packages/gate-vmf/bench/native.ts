/**
 * Native baselines of the exact pass for the bench (ours): the same rows and candidates written to
 * temporary files, scored by
 * - `c`: bench/native/scan.c compiled now with `cc -O3 -march=native` (single-thread sgemv with a
 *   vectorized Float32 loop + shifted log-sum-exp), and
 * - `numpy`: bench/native/scan.py (`X @ q` = OpenBLAS sgemv, + log-sum-exp) with one BLAS thread
 *   (OPENBLAS/OMP/MKL_NUM_THREADS=1; OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE removed for that
 *   process only). Python: $BENCH_PYTHON, else `python3`.
 * Each reports the p50 thread-CPU ms per candidate. A missing compiler or numpy is reported, not fatal.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export interface Baseline {
  name: string;
  /** null when available, else why not. */
  missing: string | null;
  /** p50 ms and the first candidate's score, for one round over the files. */
  run(files: DataFiles, kappa: number): { p50: number; score: number };
}

export interface DataFiles {
  rows: string;
  queries: string;
  n: number;
  d: number;
  nq: number;
}

const dir = mkdtempSync(join(tmpdir(), 'gate-vmf-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** Write rows and candidates (Float32) for the baselines. */
export function writeData(rows: Float32Array, n: number, d: number, queries: ArrayLike<number>[]): DataFiles {
  const q = new Float32Array(queries.length * d);
  queries.forEach((v, i) => q.set(v, i * d));
  const f = { rows: join(dir, 'rows.f32'), queries: join(dir, 'queries.f32'), n, d, nq: queries.length };
  writeFileSync(f.rows, new Uint8Array(rows.buffer, rows.byteOffset, n * d * 4));
  writeFileSync(f.queries, new Uint8Array(q.buffer));
  return f;
}

const parse = (out: string) => {
  const [p50, score] = out.trim().split(/\s+/).map(Number);
  return { p50, score };
};

const why = (e: unknown) => String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim().split('\n').slice(-1)[0];

export function cBaseline(): Baseline {
  const exe = join(dir, 'scan');
  let missing: string | null = null;
  try {
    execFileSync(process.env.CC ?? 'cc', ['-O3', '-march=native', '-o', exe, join(here, 'native', 'scan.c'), '-lm'], { stdio: 'pipe' });
  } catch (e) {
    missing = `no C baseline: \`${process.env.CC ?? 'cc'} -O3 -march=native\` failed (${why(e)})`;
  }
  return {
    name: 'C -O3 -march=native',
    missing,
    run: (f, kappa) => parse(execFileSync(exe, [f.rows, f.queries, `${f.n}`, `${f.d}`, `${f.nq}`, `${kappa}`, '1'], { encoding: 'utf8' })),
  };
}

export function numpyBaseline(): Baseline {
  const python = process.env.BENCH_PYTHON ?? 'python3';
  const env: NodeJS.ProcessEnv = { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  let missing: string | null = null;
  try {
    execFileSync(python, ['-c', 'import numpy'], { stdio: 'pipe', env });
  } catch (e) {
    missing = `no numpy baseline: \`${python} -c "import numpy"\` failed (${why(e)}); set BENCH_PYTHON to a python with numpy`;
  }
  return {
    name: 'numpy (1 BLAS thread)',
    missing,
    run: (f, kappa) => parse(execFileSync(python, [join(here, 'native', 'scan.py'), f.rows, f.queries, `${f.n}`, `${f.d}`, `${f.nq}`, `${kappa}`, '1'], { encoding: 'utf8', env })),
  };
}
