/**
 * First come, first served between processes waiting for one SQLite file's write lock (ours, issue
 * 32). SQLite's lock has no queue: a waiter polls, and the process that just committed usually wins
 * the next race, so under load one writer can wait for ever. A waiter leaves a marker file
 * `<db>.waiters/<ms>-<pid>-<n>` (empty: no data); a connection tries the lock only while no other live
 * waiter's marker is older than its own (a connection without a marker only when there is no live
 * marker at all). Markers of dead processes and markers older than the lock timeout are ignored, so
 * a killed waiter never blocks the others. Any file-system failure falls back to plain polling.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './ann-files.js';

let instances = 0;

export class LockQueue {
  private readonly dir: string;
  private readonly instance = ++instances;
  private marker: { name: string; ms: number } | null = null;
  private seq = 0;

  constructor(dbPath: string) {
    this.dir = `${dbPath}.waiters`;
  }

  /** True when no other live waiter came before this connection (markers older than `maxAgeMs` do not count). */
  mayTry(maxAgeMs: number): boolean {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return true; // no folder: nobody waits
    }
    const now = Date.now();
    for (const n of names) {
      if (n === this.marker?.name) continue;
      const m = /^(\d+)-(\d+)-\d+-\d+$/u.exec(n);
      if (!m) continue;
      const ms = Number(m[1]);
      const pid = Number(m[2]);
      if (now - ms > maxAgeMs) continue;
      if (pid !== process.pid && !processAlive(pid)) continue;
      if (!this.marker || ms < this.marker.ms || (ms === this.marker.ms && n < this.marker.name)) return false;
    }
    return true;
  }

  /** Leave a marker (once per wait): this connection now waits in line. */
  enqueue(): void {
    if (this.marker) return;
    const ms = Date.now();
    const name = `${ms}-${process.pid}-${this.instance}-${++this.seq}`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(join(this.dir, name), '');
      this.marker = { name, ms };
    } catch {
      // no marker: plain polling
    }
  }

  /** Remove this connection's marker (it took the lock, or gave up). */
  leave(): void {
    if (!this.marker) return;
    try {
      rmSync(join(this.dir, this.marker.name), { force: true });
    } catch {
      // a leftover marker is ignored once older than the lock timeout
    }
    this.marker = null;
  }
}
