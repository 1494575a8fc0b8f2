/** First come, first served among waiters for a SQLite file's write lock (lock-queue.ts, issue 32). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LockQueue } from './lock-queue.js';

const dir = mkdtempSync(join(tmpdir(), 'mem-lock-queue-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LockQueue', () => {
  it('the earlier waiter goes first; a newcomer waits behind every live waiter; leaving lets the next one try', async () => {
    const db = join(dir, 'a.sqlite');
    const [a, b, c] = [new LockQueue(db), new LockQueue(db), new LockQueue(db)];
    expect(a.mayTry(60_000)).toBe(true); // nobody waits
    a.enqueue();
    await new Promise((r) => setTimeout(r, 5));
    b.enqueue();
    expect(a.mayTry(60_000)).toBe(true);
    expect(b.mayTry(60_000)).toBe(false);
    expect(c.mayTry(60_000)).toBe(false); // no marker of its own: behind everyone
    a.leave();
    expect(b.mayTry(60_000)).toBe(true);
    b.leave();
    expect(c.mayTry(60_000)).toBe(true);
  });

  it('markers of dead processes and markers older than the timeout are ignored', () => {
    const db = join(dir, 'b.sqlite');
    mkdirSync(`${db}.waiters`, { recursive: true });
    writeFileSync(join(`${db}.waiters`, `${Date.now() - 10}-999999999-1-1`), ''); // no such process
    writeFileSync(join(`${db}.waiters`, `${Date.now() - 120_000}-${process.pid}-1-1`), ''); // too old
    expect(new LockQueue(db).mayTry(60_000)).toBe(true);
    writeFileSync(join(`${db}.waiters`, `${Date.now() - 10}-${process.pid}-7-1`), ''); // live and recent
    expect(new LockQueue(db).mayTry(60_000)).toBe(false);
  });
});
