/**
 * Shared harness of the SIGKILL tests (store and write path, ours): bundle a child script once with
 * esbuild (tsx's own copy, so each start takes ~0.2 s instead of ~1 s under the tsx loader), start it,
 * collect the ids it acknowledges (`ack <id>` lines) and SIGKILL it `delayMs` after it prints `ready`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface CrashChild {
  /** node arguments that start the child (the bundle, or `--import tsx` on the source). */
  command: string[];
  /** Remove the bundle. */
  dispose(): void;
}

/** Bundle `entry` into `<pkgDir>/node_modules/.cache/<name>/`; falls back to running it through tsx. */
export async function prepareChild(entry: string, pkgDir: string, name: string, external: string[]): Promise<CrashChild> {
  const outDir = join(pkgDir, 'node_modules', '.cache', name);
  const outfile = join(outDir, `child-${process.pid}.mjs`);
  try {
    const req = createRequire(createRequire(import.meta.url).resolve('tsx'));
    const esbuild = req('esbuild') as { build(options: Record<string, unknown>): Promise<unknown> };
    mkdirSync(outDir, { recursive: true });
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      external,
      conditions: ['@mem/source'],
      logLevel: 'silent',
    });
    return { command: [outfile], dispose: () => rmSync(outfile, { force: true }) };
  } catch {
    return { command: ['--import', 'tsx', '--conditions=@mem/source', entry], dispose: () => {} };
  }
}

/** What a bundled write-path child keeps external: native modules and the packages that load data files or models at run time. */
export const CHILD_EXTERNAL = ['better-sqlite3', 'hnswlib-node', 'wink-*', 'chrono-node', '@huggingface/*', 'openai'];

/**
 * The child of a test file: `prepareChild(entry, pkgDir, name, external)` in the file's `beforeAll`
 * (60 s), disposed in its `afterAll` after `cleanup` (e.g. removing the file's temporary folder).
 * The returned child's `command` is readable once `beforeAll` has run.
 */
export function childForFile(entry: string, pkgDir: string, name: string, options: { external?: string[]; cleanup?: () => void } = {}): CrashChild {
  let prepared: CrashChild | undefined;
  beforeAll(async () => {
    prepared = await prepareChild(entry, pkgDir, name, options.external ?? CHILD_EXTERNAL);
  }, 60_000);
  afterAll(() => {
    options.cleanup?.();
    prepared?.dispose();
  });
  return {
    get command() {
      if (!prepared) throw new Error(`the child ${name} is prepared in beforeAll`);
      return prepared.command;
    },
    dispose: () => prepared?.dispose(),
  };
}

/** Call `onLine` with each complete line the stream prints. */
export function onLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = '';
  stream.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

/**
 * Start the child with `args`; SIGKILL it `delayMs` after it is ready. Resolves with the acknowledged ids.
 * With `until`, the kill also waits until `until(acked)` holds (checked on every ack), so a loaded
 * machine that is slow to reach a step still gets killed after it, not before; `maxMs` after `ready`
 * the child is killed regardless and the caller's own checks then fail with what was acked.
 */
export function runAndKill(
  child: CrashChild,
  args: string[],
  cwd: string,
  delayMs: number,
  opts: { until?: (acked: readonly string[]) => boolean; maxMs?: number } = {},
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...child.command, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const acked: string[] = [];
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    let cap: NodeJS.Timeout | undefined;
    let delayed = false;
    const killIfDue = () => {
      if (delayed && (!opts.until || opts.until(acked))) p.kill('SIGKILL');
    };
    onLines(p.stdout, (line) => {
      if (line === 'ready' && !timer) {
        timer = setTimeout(() => {
          delayed = true;
          killIfDue();
        }, delayMs);
        if (opts.until) cap = setTimeout(() => p.kill('SIGKILL'), Math.max(delayMs, opts.maxMs ?? 45_000));
      } else if (line.startsWith('ack ')) {
        acked.push(line.slice(4));
        killIfDue();
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(cap);
      if (signal === 'SIGKILL') resolve(acked);
      else reject(new Error(`child exited with ${code}: ${err}`));
    });
  });
}

/**
 * `runAndKill` options for tests whose checks need the child to have written something: on a loaded
 * machine a child can take longer than the random delay to commit its first batch, so the kill also
 * waits for two acks (at most 60 s after `ready`).
 */
export const atLeastTwoAcks = { until: (acked: readonly string[]) => acked.length >= 2, maxMs: 60_000 } as const;

/**
 * Start the child with `args` and measure the milliseconds from its `ready` line to its `ack <id>`
 * line, then SIGKILL it. Used to place later kills inside a step whose length depends on the machine
 * (a quiet CI machine migrates in a few ms, a loaded one in hundreds).
 */
export function timeToAck(child: CrashChild, args: string[], cwd: string, id: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...child.command, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let readyAt: bigint | undefined;
    let elapsed: number | undefined;
    onLines(p.stdout, (line) => {
      if (line === 'ready' && readyAt === undefined) readyAt = process.hrtime.bigint();
      else if (line === `ack ${id}` && readyAt !== undefined && elapsed === undefined) {
        elapsed = Number(process.hrtime.bigint() - readyAt) / 1e6;
        p.kill('SIGKILL');
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code, signal) => {
      if (signal === 'SIGKILL' && elapsed !== undefined) resolve(elapsed);
      else reject(new Error(`child exited with ${code ?? signal} before acking ${id}: ${err}`));
    });
  });
}
