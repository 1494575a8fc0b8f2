/**
 * Re-embedding survives kill -9 (issue 32 point 4): a child process re-embeds a copy of a store
 * (real write path data: 3 scopes, relations, a forget, a saved gate state) from the 16-d to the
 * 24-d hash test embedder and is SIGKILLed at a random moment of its run (kill times spread evenly
 * over the measured run time, including the switch transaction, which the child stretches). After
 * each kill the file is exactly the old space (every vector, gate decision and derived state as
 * before) or exactly the new one (as a clean in-process run makes it), never a mix, and integrity
 * holds; a second child then resumes and must end in the new space.
 *
 * Runs MEM_REEMBED_KILLS kills (default 6; the loop: MEM_REEMBED_KILLS=20). Then two child
 * processes re-embed one file at once: one switches, the other is refused with STORE_CONFLICT.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { resolveScope } from '../scope.js';
import { createSqliteStore } from '../store/index.js';
import { childForFile, runAndKill, timeToAck } from '../testdata/crash-harness.js';
import { seededRandom } from '../testing/index.js';
import { GATE_STATE_NAME } from '../write/gates.js';
import { createMemory } from '../write/memory.js';
import { simpleExtractor } from '../write/test-kit.js';
import { hashEmbedder } from '../write/testdata/hash-embedder.js';
import { reembedStore } from './reembed.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = join(here, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'mem-reembed-crash-'));
const KILLS = Number(process.env.MEM_REEMBED_KILLS ?? 6);
const BATCH = '8';
const EMBED_MS = '15';
const SWITCH_MS = '120';
const child = childForFile(join(here, 'testdata', 'reembed-crash-child.ts'), pkgDir, 'mem-reembed-crash-test', { cleanup: () => rmSync(dir, { recursive: true, force: true }) });

/** What a file holds, read raw (no store open, so nothing is checked or changed): per node id its vector bytes and gate JSON; derived state; the recorded model. */
function snapshot(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    const nodes = new Map((db.prepare('SELECT id, embedding, gate FROM nodes').all() as { id: string; embedding: Buffer; gate: string | null }[]).map((r) => [r.id, `${r.embedding.toString('base64')}|${r.gate}`]));
    const state = (db.prepare('SELECT sid, name, value FROM scope_state ORDER BY sid, name').all() as object[]).map((r) => JSON.stringify(r));
    const model = (db.prepare("SELECT value FROM meta WHERE key = 'embeddingModel'").get() as { value: string }).value;
    const dimension = (db.prepare("SELECT value FROM meta WHERE key = 'dimension'").get() as { value: string }).value;
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    return { nodes, state, model, dimension, integrity };
  } finally {
    db.close();
  }
}

/** The seeded old-space file and the new space a clean run makes of it (set by the kill test, used by the two-process test). */
let seededFiles: { base: string; ref: ReturnType<typeof snapshot> } | null = null;

describe('reembedStore survives SIGKILL', () => {
  it(`${KILLS} kills at spread-out moments: the old space or the new one, never a mix; a resumed run ends in the new space`, async () => {
    const base = join(dir, 'base.sqlite');
    const memory = createMemory({ store: createSqliteStore({ path: base }), embedder: hashEmbedder(16), extractor: simpleExtractor });
    const scopes = [{ userId: 'a' }, { userId: 'b' }, { userId: 'c', runId: 'r' }];
    const NAMES = ['Mira', 'Tom', 'Lena', 'Ravi', 'Sofia'];
    const THINGS = ['bicycle', 'guitar', 'teapot', 'kite', 'canoe', 'lamp', 'camera'];
    await memory.add(
      Array.from({ length: 180 }, (_, i) => ({
        text: `${NAMES[i % 5]} talked about the ${THINGS[(i * 3) % 7]} and the ${THINGS[(i * 5 + 2) % 7]} (turn ${i % 11}).`,
        observedAt: new Date(Date.UTC(2024, 0, 1, 9, 0, i)).toISOString(),
        scope: scopes[i % 3]!,
      })),
    );
    const [first] = await memory.list({ scope: scopes[0]! });
    await memory.forget(first!.id, { scope: scopes[0]! });
    await memory.close();
    {
      // a saved derived state of the old space (dropped by the switch, in the same transaction)
      const s = createSqliteStore({ path: base });
      await s.open({ schemaVersion: 1, embeddingModel: 'test-hash-16', dimension: 16 });
      await s.saveState(resolveScope(scopes[1]!), GATE_STATE_NAME, '{"old":"space"}');
      await s.close();
    }
    const old = snapshot(base);
    // the new space as a clean in-process run makes it (same ids: a copy of the file)
    const refPath = join(dir, 'ref.sqlite');
    copyFileSync(base, refPath);
    await reembedStore(createSqliteStore({ path: refPath }), hashEmbedder(24));
    const ref = snapshot(refPath);
    expect(ref.model).toBe('test-hash-24');
    expect(ref.state).not.toEqual(old.state);

    // how long a whole child run takes on this machine (from `ready` to `ack done`)
    const timing = join(dir, 'timing.sqlite');
    copyFileSync(base, timing);
    const runMs = await timeToAck(child, [timing, BATCH, EMBED_MS, SWITCH_MS], pkgDir, 'done');
    expect(snapshot(timing).nodes).toEqual(ref.nodes);

    const rnd = seededRandom(Date.now() >>> 0);
    const outcome = { old: 0, new: 0 };
    for (let k = 0; k < KILLS; k++) {
      const path = join(dir, `kill-${k}.sqlite`);
      copyFileSync(base, path);
      const delay = Math.floor(((k + rnd()) / KILLS) * runMs * 1.3); // the last fifth or so after the commit
      await runAndKill(child, [path, BATCH, EMBED_MS, SWITCH_MS], pkgDir, delay);
      const after = snapshot(path);
      expect(after.integrity, `kill ${k} at ${delay} ms`).toEqual(['ok']);
      if (after.model === 'test-hash-16') {
        outcome.old++;
        expect(after.dimension).toBe('16');
        expect(after.nodes, `kill ${k} at ${delay} ms: old space`).toEqual(old.nodes);
        expect(after.state).toEqual(old.state);
      } else {
        outcome.new++;
        expect(after.model).toBe('test-hash-24');
        expect(after.dimension).toBe('24');
        expect(after.nodes, `kill ${k} at ${delay} ms: new space`).toEqual(ref.nodes);
        expect(after.state).toEqual(ref.state);
      }
      // resume (or find it done) and end in the new space
      const acked = await runAndKill(child, [path, BATCH, EMBED_MS, SWITCH_MS], pkgDir, 0, { until: (a) => a.includes('done'), maxMs: 60_000 }).catch((e: Error) => {
        // a run on a file already in the new space refuses (INVALID_INPUT: already embedded) and exits 1
        if (after.model === 'test-hash-24' && /already embedded/.test(e.message)) return ['done'];
        throw e;
      });
      expect(acked, `resume after kill ${k}`).toContain('done');
      const resumed = snapshot(path);
      expect(resumed.nodes).toEqual(ref.nodes);
      expect(resumed.state).toEqual(ref.state);
      expect(resumed.integrity).toEqual(['ok']);
      rmSync(path, { force: true });
    }
    console.log(`reembed crash test: ${KILLS} kills over a ${Math.round(runMs)} ms run: ${outcome.old} left the old space, ${outcome.new} the new one, 0 mixed; every resume ended in the new space`);
    expect(outcome.old + outcome.new).toBe(KILLS);
    seededFiles = { base, ref };
  }, Math.max(240_000, KILLS * 40_000)); // each kill is a child run plus a resumed one: minutes for the 20-kill loop on a loaded machine

  // two processes re-embed one file at once (a breaker's finding: the second failed with a raw
  // "no such table" STORE_ERROR): one ends in the new space, the other is refused with
  // STORE_CONFLICT naming the first (or, when it starts after the switch, "already embedded")
  it('two processes re-embedding one file at once: one switches, the other is refused (STORE_CONFLICT); the file ends exactly in the new space', async () => {
    expect(seededFiles, 'the kill test above seeds the file').not.toBeNull();
    const { base, ref } = seededFiles!;
    const seen: string[] = [];
    for (let round = 0; round < 2; round++) {
      const path = join(dir, `two-${round}.sqlite`);
      copyFileSync(base, path);
      const runs = await Promise.allSettled([0, 1].map(() => runAndKill(child, [path, BATCH, EMBED_MS, '0'], pkgDir, 0, { until: (a) => a.includes('done'), maxMs: 60_000 })));
      const done = runs.filter((r) => r.status === 'fulfilled' && r.value.includes('done'));
      const refused = runs.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String((r.reason as Error).message));
      expect(done.length, `round ${round}: ${refused.join(' | ')}`).toBeGreaterThanOrEqual(1);
      for (const m of refused) expect(m, `round ${round}`).toMatch(/Another mem reembed \(process \d+|already embedded/);
      seen.push(...refused.map((m) => (/Another mem reembed/.test(m) ? 'STORE_CONFLICT' : 'already embedded')));
      const after = snapshot(path);
      expect(after.integrity).toEqual(['ok']);
      expect(after.nodes).toEqual(ref.nodes);
      expect(after.state).toEqual(ref.state);
    }
    console.log(`reembed two-process test: the second run was refused with ${seen.join(', ')}`);
  }, 180_000);
});
