import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './queue.js';
import { uuidv7 } from './ids.js';

describe('KeyedQueue', () => {
  it('serializes one key, runs different keys concurrently', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const a1 = q.run(['a'], async () => {
      log.push('a1<');
      await sleep(20);
      log.push('a1>');
    });
    const a2 = q.run(['a'], async () => {
      log.push('a2<');
      log.push('a2>');
    });
    const b1 = q.run(['b'], async () => {
      log.push('b1<');
      log.push('b1>');
    });
    await Promise.all([a1, a2, b1]);
    expect(log.indexOf('a2<')).toBeGreaterThan(log.indexOf('a1>'));
    expect(log.indexOf('b1<')).toBeLessThan(log.indexOf('a1>'));
  });
  it('a failing task does not block the next', async () => {
    const q = new KeyedQueue();
    await expect(q.run(['a'], async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(q.run(['a'], async () => 1)).resolves.toBe(1);
    await q.idle();
    expect(q.size).toBe(0);
  });
});

describe('uuidv7', () => {
  it('is strictly increasing within a process, even with a clock going back', () => {
    const ids = [uuidv7(2000), uuidv7(2000), uuidv7(1000), uuidv7(3000)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
