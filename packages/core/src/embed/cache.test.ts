import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { createCachedEmbedder } from './cache.js';

/** A 3-d embedder whose vectors depend on the text, counting the texts it was asked for. */
function counting(model = 'toy/model v1'): Embedder & { asked: string[] } {
  const asked: string[] = [];
  return {
    model,
    dimension: 3,
    asked,
    async embed(texts: string[]) {
      asked.push(...texts);
      return texts.map((t) => Float32Array.from([t.length, t.charCodeAt(0) / 100, 0.5]));
    },
  };
}

describe('createCachedEmbedder', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'mem-embcache-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('asks the model once per distinct text, in order, and serves repeats and later runs from the file', async () => {
    const dir = tmp();
    const inner = counting();
    const a = createCachedEmbedder(inner, { dir });
    expect(a.model).toBe('toy/model v1');
    expect(a.dimension).toBe(3);
    const first = await a.embed(['héllo wörld', 'b', 'héllo wörld']);
    expect(inner.asked).toEqual(['héllo wörld', 'b']);
    expect(Array.from(first[0]!)).toEqual(Array.from(first[2]!));
    await a.embed(['b', 'cc']);
    expect(inner.asked).toEqual(['héllo wörld', 'b', 'cc']);
    expect(a.stats()).toMatchObject({ hits: 2, misses: 3, entries: 3 });
    a.close();

    // a new process (a new cached embedder on the same folder) reads the vectors back bit for bit
    const inner2 = counting();
    const b = createCachedEmbedder(inner2, { dir });
    const again = await b.embed(['cc', 'héllo wörld', 'new']);
    expect(inner2.asked).toEqual(['new']);
    expect(Array.from(again[1]!)).toEqual(Array.from(first[0]!));
    expect(Array.from(again[0]!)).toEqual(Array.from(Float32Array.from([2, 0.99, 0.5])));
    b.close();
  });

  it('keeps models apart and drops a record cut short by a crash', async () => {
    const dir = tmp();
    const a = createCachedEmbedder(counting('m1'), { dir });
    await a.embed(['x', 'yy']);
    const file = a.stats().file;
    a.close();
    const whole = statSync(file).size;
    appendFileSync(file, Buffer.from([5, 0, 0, 0, 104, 105])); // a record header and 2 of its 5 text bytes
    const other = counting('m2');
    await createCachedEmbedder(other, { dir }).embed(['x']);
    expect(other.asked).toEqual(['x']);
    const inner = counting('m1');
    const b = createCachedEmbedder(inner, { dir });
    const [y] = await b.embed(['yy']);
    expect(inner.asked).toEqual([]);
    expect(Array.from(y!)).toEqual(Array.from(Float32Array.from([2, 1.21, 0.5])));
    expect(statSync(file).size).toBe(whole);
    b.close();
  });

  it('refuses a wrong number of vectors and writes nothing for that call', async () => {
    const dir = tmp();
    const bad: Embedder = { model: 'bad', dimension: 3, embed: async (t) => t.slice(1).map(() => new Float32Array(3)) };
    const c = createCachedEmbedder(bad, { dir });
    await expect(c.embed(['a', 'b'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
    expect(statSync(c.stats().file).size).toBe(0);
    expect(() => createCachedEmbedder(bad, { dir: '' })).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    c.close();
  });
});
