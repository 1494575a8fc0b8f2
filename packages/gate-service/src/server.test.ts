// Real listening servers on loopback: restart from the state file decides the same; the Python
// standard-library client (python/, package mem-gate) talks to the service and gets real decisions.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createNoveltyGate } from '@mem/gate-vmf';
import { createWinkEmbedder } from '@mem/core';
import { startGateServer, type RunningGateServer } from './server.js';

const run = promisify(execFile);
const PY_SRC = resolve(__dirname, '../../../python/src');
const EXAMPLE = resolve(__dirname, '../../../examples/python/policy_example.py');
const dirs: string[] = [];
const servers: RunningGateServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close().catch(() => {});
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function rand(seed: number, d: number): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < d; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5);
  }
  return out;
}

async function postJson(url: string, body: unknown) {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

describe('gate server (real loopback listen)', () => {
  it('listens on 127.0.0.1 and a restart from the state file decides exactly the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-srv-'));
    dirs.push(dir);
    const statePath = join(dir, 'gate.json');
    const first = await startGateServer({ port: 0, statePath, embedder: null });
    servers.push(first);
    expect(first.host).toBe('127.0.0.1');
    expect(first.restored).toBe(false);
    // a clustered scope of 40 memories in 32-d, plus a second scope
    const base = rand(1, 32);
    const vec = (i: number) => base.map((x, j) => x + 0.35 * rand(100 + i, 32)[j]);
    for (let i = 0; i < 40; i++) expect((await postJson(`${first.url}/v1/gate/commit`, { scope: 'user:a', id: `m${i}`, vector: vec(i) })).status).toBe(200);
    await postJson(`${first.url}/v1/gate/commit`, { scope: 'user:b', id: 'x', vector: rand(7, 32) });
    const del = await fetch(`${first.url}/v1/gate/user%3Aa/m5`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    const probes = Array.from({ length: 12 }, (_, i) => (i % 2 ? vec(200 + i) : rand(300 + i, 32)));
    const before = [];
    for (const p of probes) before.push((await postJson(`${first.url}/v1/gate/route`, { scope: 'user:a', vector: p })).body.decision);
    expect(new Set(before.map((d) => d.action)).size).toBeGreaterThan(1); // the probes exercise more than one action
    await first.close();

    const second = await startGateServer({ port: 0, statePath, embedder: null });
    servers.push(second);
    expect(second.restored).toBe(true);
    const after = [];
    for (const p of probes) after.push((await postJson(`${second.url}/v1/gate/route`, { scope: 'user:a', vector: p })).body.decision);
    expect(after).toEqual(before); // bit-for-bit: same scores, thresholds, κ, actions
    const stats: any = await (await fetch(`${second.url}/v1/gate/user%3Aa/stats`)).json();
    expect(stats.size).toBe(39);
    // and it equals a library gate that saw the same commits
    const lib = createNoveltyGate({ normalize: true });
    for (let i = 0; i < 40; i++) lib.commit('user:a', `m${i}`, vec(i));
    lib.remove('user:a', 'm5');
    expect(after.map((d) => d.score)).toEqual(probes.map((p) => lib.route('user:a', p).score));
    await second.close();
  });

  it('on start, removes the temporary state files a SIGKILLed writer left, says so on stderr, and keeps a live writer\'s (break-it finding 9)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-stale-'));
    dirs.push(dir);
    const statePath = join(dir, 'gate.json');
    // a process that wrote a temporary file and was SIGKILLed before its rename
    const child = await run(process.execPath, [
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(dir)} + '/.gate.json.' + process.pid + '.0badf00d.tmp', '{"format":'); process.kill(process.pid, 'SIGKILL')`,
    ]).then(
      () => null,
      (e) => e,
    );
    expect(child?.signal).toBe('SIGKILL');
    const names = await readdir(dir);
    expect(names).toHaveLength(1);
    const stale = names[0]!;
    const live = `.gate.json.${process.pid}.12345678.tmp`;
    await writeFile(join(dir, live), '{}');
    await writeFile(join(dir, 'keep.txt'), 'x');
    const lines: string[] = [];
    const srv = await startGateServer({ port: 0, statePath, embedder: null, log: (l) => lines.push(l) });
    servers.push(srv);
    expect(srv.restored).toBe(false);
    expect((await readdir(dir)).sort()).toEqual([live, 'keep.txt'].sort());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(dir, stale));
    expect((await postJson(`${srv.url}/v1/gate/commit`, { scope: 's', id: 'a', vector: [1, 0] })).status).toBe(200);
    await srv.close();
  });

  it('the Python client (stdlib only) gets real decisions; the policy example keeps repeated notes raw', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mem-gate-py-'));
    dirs.push(dir);
    const embedder = createWinkEmbedder();
    const srv = await startGateServer({ port: 0, statePath: join(dir, 'gate.json'), embedder });
    servers.push(srv);
    const py = `
import json, sys
from mem_gate import GateClient, GateServiceError
g = GateClient(sys.argv[1])
out = {}
out["empty"] = g.route("py:user", text="I adopted a grey cat named Miso")
g.commit("py:user", "n1", text="I adopted a grey cat named Miso")
g.commit("py:user", "n2", text="My sister works as an architect in Lisbon")
g.commit("py:user", "n3", text="We plan a trip to Japan in April")
out["repeat"] = g.route("py:user", text="I adopted a grey cat named Miso")
out["vector"] = g.route("py:user", vector=[0.1] * 100)
out["stats"] = g.stats("py:user")
out["delete"] = g.delete("py:user", "n3")
try:
    g.commit("py:user", "n1", text="again")
except GateServiceError as e:
    out["dup"] = {"status": e.status, "code": e.code}
try:
    g.route("py:user", vector=[1.0, 2.0])
except GateServiceError as e:
    out["dim"] = {"status": e.status, "code": e.code}
print(json.dumps(out))
`;
    const { stdout } = await run('python3', ['-c', py, srv.url], { env: { ...process.env, PYTHONPATH: PY_SRC }, timeout: 60_000 });
    const out = JSON.parse(stdout);
    expect(out.empty.decision).toMatchObject({ action: 'add', n: 0 });
    expect(out.repeat.decision.nearest.id).toBe('n1');
    expect(out.repeat.decision.nearest.cosine).toBeCloseTo(1, 5);
    expect(out.repeat.noopFilter.noop).toBe(true);
    expect(out.vector.decision.n).toBe(3);
    expect(out.stats).toMatchObject({ scope: 'py:user', size: 3, stats: { n: 3, dimension: 100 } });
    expect(out.delete).toEqual({ scope: 'py:user', id: 'n3', removed: true, size: 2 });
    expect(out.dup).toEqual({ status: 409, code: 'DUPLICATE_ID' });
    expect(out.dim).toEqual({ status: 400, code: 'DIMENSION_MISMATCH' });
    // the decision the Python client saw is the one the in-process gate computes
    const [v] = await embedder.embed(['I adopted a grey cat named Miso']);
    const lib = createNoveltyGate({ normalize: true });
    const texts = ['I adopted a grey cat named Miso', 'My sister works as an architect in Lisbon', 'We plan a trip to Japan in April'];
    const vs = await embedder.embed(texts);
    vs.forEach((x, i) => lib.commit('py:user', `n${i + 1}`, x));
    expect(out.repeat.decision.score).toBe(lib.route('py:user', v).score);

    const env = { ...process.env, PYTHONPATH: PY_SRC };
    const ex = await run('python3', [EXAMPLE, '--url', srv.url, '--json'], { env, timeout: 60_000 });
    const summary = JSON.parse(ex.stdout);
    expect(summary.notes).toBe(8);
    // annotate (the default): the two verbatim repeats are Noops kept raw, linked to their first mention
    const raw = summary.decisions.filter((d: any) => d.action === 'annotate');
    expect(raw.map((d: any) => d.text)).toEqual(expect.arrayContaining(['I adopted a grey cat named Miso last spring.', 'I started learning to play the cello in September.']));
    expect(raw.every((d: any) => typeof d.duplicate_of === 'string')).toBe(true);
    expect(summary.decisions[0].action).toBe('write');
    expect(summary.decisions[2].action).toBe('write');
    expect(summary.stored).toBe(8);
    expect(summary.written + summary.annotated).toBe(8);
    // skip (the old behaviour): the same Noops are dropped
    const skip = JSON.parse((await run('python3', [EXAMPLE, '--url', srv.url, '--json', '--policy', 'skip'], { env, timeout: 60_000 })).stdout);
    expect(skip.skipped).toBe(summary.annotated);
    expect(skip.stored).toBe(8 - summary.annotated);
    await srv.close();
  });
});
