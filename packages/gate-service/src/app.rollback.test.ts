import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoveltyGate } from '@mem/gate-vmf';

import { createGateApp } from './app.js';
import { readState, writeStateAtomic } from './state.js';

/** The first state write fails slowly (as when the target turned into a directory); later ones succeed. */
function failingFirstWrite() {
  let calls = 0;
  return async (path: string, snapshot: Parameters<typeof writeStateAtomic>[1]) => {
    calls += 1;
    if (calls === 1) {
      await new Promise((r) => setTimeout(r, 50));
      throw Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' });
    }
    return writeStateAtomic(path, snapshot);
  };
}

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
const unit = (i: number) => Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0));

describe('gate service: a failed state write rolls back only its own change (break-it)', () => {
  it('a commit acknowledged with 200 while an earlier write fails stays in memory and on disk; the failed one is in neither', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-rollback-'));
    dirs.push(dir);
    const statePath = join(dir, 'gate.json');
    const app = createGateApp({ gate: createNoveltyGate({ normalize: true }), statePath, writeState: failingFirstWrite() });
    const commit = (id: string, i: number) =>
      app.request('/v1/gate/commit', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ scope: 's', id, vector: unit(i) }) });
    const rs = await Promise.all([commit('a', 0), commit('b', 1)]);
    // which of the two reaches the (failing) first write is up to the request handling; one does
    const failed = rs.findIndex((r) => r.status === 503);
    expect(failed).toBeGreaterThanOrEqual(0);
    const [lost, kept] = failed === 0 ? ['a', 'b'] : ['b', 'a'];
    expect(((await rs[failed].json()) as any).error.code).toBe('STATE_NOT_PERSISTED');
    expect(rs[1 - failed].status).toBe(200);
    expect(((await rs[1 - failed].json()) as any).size).toBe(1);
    expect(app.gate.has('s', lost)).toBe(false);
    expect(app.gate.has('s', kept)).toBe(true);
    expect((await readState(statePath))!.scopes[0].ids).toEqual([kept]);
    // a later commit keeps it (it is not rewritten from a rolled-back memory)
    expect((await commit('c', 2)).status).toBe(200);
    expect((await readState(statePath))!.scopes[0].ids).toEqual([kept, 'c']);
  });
});
