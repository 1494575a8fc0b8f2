/**
 * Lifetime of the long-running commands (`mem serve`, `mem gate serve`) (ours): stop cleanly on
 * SIGINT / SIGTERM / SIGHUP, and when the process that launched us goes away.
 *
 * `pnpm mem serve` runs pnpm → sh → tsx → node; `kill <pid of pnpm>` signals only pnpm, which does
 * not forward it, so the server used to keep listening. We therefore record the launcher chain at
 * start (the parent and the further `node` / `sh` / `pnpm` ancestors, read from /proc on Linux; just
 * the parent elsewhere) and check every `intervalMs` (default 2 s) that each is still alive and that
 * we were not re-parented. The chain stops at the first other process (the user's shell, init), so
 * `nohup`-style daemons started from a shell are not tied to that shell.
 */
import { readFileSync } from 'node:fs';

export interface StopOptions {
  /** Close the server and stores; awaited before exit. */
  close: () => Promise<void>;
  /** Check the launcher chain this often, ms. Default 2000; 0 disables the check. */
  intervalMs?: number;
  /** Exit anyway this long after shutdown starts, ms (e.g. a keep-alive connection). Default 5000. */
  graceMs?: number;
  /** Called with the reason before closing (e.g. to log). */
  onStop?: (reason: string) => void;
  exit?: (code: number) => void;
}

const LAUNCHERS = new Set(['node', 'sh', 'dash', 'pnpm', 'npm', 'npx', 'tsx']);

function parentOf(pid: number): { ppid: number; comm: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid …; comm may contain spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? { ppid, comm } : null;
  } catch {
    return null;
  }
}

function commOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The parent, then further ancestors while they are launchers (node, sh, pnpm, …); never pid 1. */
export function launcherChain(start: number = process.ppid): number[] {
  const chain: number[] = [];
  let pid = start;
  for (let i = 0; i < 8 && pid > 1; i++) {
    chain.push(pid);
    const comm = commOf(pid);
    const up = parentOf(pid);
    if (!comm || !up || !LAUNCHERS.has(comm) || up.ppid <= 1) break;
    const upComm = commOf(up.ppid);
    if (!upComm || !LAUNCHERS.has(upComm)) break;
    pid = up.ppid;
  }
  return chain;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Install the signal handlers and the launcher watch. Returns a function that removes them (for
 * tests). A second signal during shutdown exits at once with code 1.
 */
export function stopOnSignalsAndOrphaning(options: StopOptions): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const ppid = process.ppid;
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) {
      exit(1);
      return;
    }
    stopping = true;
    options.onStop?.(reason);
    const force = setTimeout(() => exit(0), options.graceMs ?? 5000);
    force.unref();
    options
      .close()
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(force);
        exit(0);
      });
  };
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
    const h = () => stop(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  const chain = options.intervalMs === 0 ? [] : launcherChain(ppid);
  const timer =
    options.intervalMs === 0
      ? null
      : setInterval(() => {
          const gone = process.ppid !== ppid ? ppid : chain.find((pid) => !isAlive(pid));
          if (gone !== undefined) stop(`launcher process ${gone} exited`);
        }, options.intervalMs ?? 2000);
  timer?.unref();
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
    if (timer) clearInterval(timer);
  };
}
