import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../types.js';
import { createCachedEmbedder } from './cache.js';
import { EmbedderError, MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

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
    await expectMemError(c.embed(['a', 'b']), EmbedderError, 'EMBEDDER_ERROR');
    expect(readFileSync(c.stats().file, 'utf8')).toBe('mem.vec/2 "bad" 3\n'); // the header only
    await expectMemError(() => createCachedEmbedder(bad, { dir: '' }), MemValidationError, 'INVALID_INPUT');
    c.close();
  });

  it('adversarial: a damaged file is an EMBEDDER_ERROR and stays as it is; no valid record is ever dropped', async () => {
    const dir = tmp();
    const a = createCachedEmbedder(counting('m1'), { dir });
    await a.embed(['first', 'second', 'third']);
    const file = a.stats().file;
    a.close();
    const good = readFileSync(file);
    const headerEnd = good.indexOf(10) + 1;
    // an impossible length in the first record (was: the file cut to that record, the later ones lost)
    const huge = Buffer.from(good);
    huge.writeUInt32LE(0x7fffffff, headerEnd);
    writeFileSync(file, huge);
    await expectMemError(createCachedEmbedder(counting('m1'), { dir }).embed(['second']), EmbedderError, 'EMBEDDER_ERROR');
    expect(readFileSync(file).equals(huge)).toBe(true);
    // a plausible but wrong length (was: garbage served as a hit) fails the checksum
    const shifted = Buffer.from(good);
    shifted.writeUInt32LE(4, headerEnd);
    writeFileSync(file, shifted);
    await expectMemError(createCachedEmbedder(counting('m1'), { dir }).embed(['first']), EmbedderError, 'EMBEDDER_ERROR');
    // another model's file under this name is refused by its header
    writeFileSync(file, good);
    const other = createCachedEmbedder(counting('m2'), { dir });
    await other.embed(['x']);
    other.close();
    copyFileSync(other.stats().file, file);
    await expectMemError(createCachedEmbedder(counting('m1'), { dir }).embed(['first']), EmbedderError, 'EMBEDDER_ERROR');
  });

  it('adversarial: model names that sanitise alike keep their own files; non-finite vectors and ill-formed texts are not cached', async () => {
    const dir = tmp();
    const one: Embedder = { model: 'org/model', dimension: 3, embed: async (t) => t.map(() => Float32Array.from([1, 0, 0])) };
    const two: Embedder = { model: 'org_model', dimension: 3, embed: async (t) => t.map(() => Float32Array.from([0, 1, 0])) };
    await createCachedEmbedder(one, { dir }).embed(['hello']);
    const [v] = await createCachedEmbedder(two, { dir }).embed(['hello']);
    expect(Array.from(v!)).toEqual([0, 1, 0]);
    const nan: Embedder = { model: 'nan', dimension: 3, embed: async (t) => t.map(() => Float32Array.from([NaN, 0, 0])) };
    const c = createCachedEmbedder(nan, { dir });
    await expectMemError(c.embed(['x']), EmbedderError, 'EMBEDDER_ERROR');
    expect(c.stats().entries).toBe(0);
    const inner = counting('lone');
    const d = createCachedEmbedder(inner, { dir });
    await d.embed(['x\ud800']);
    d.close();
    const e = createCachedEmbedder(counting('lone'), { dir });
    await e.embed(['x\ufffd']);
    expect(e.stats()).toMatchObject({ hits: 0, misses: 1 });
  });

  it('two cached embedders on one folder, writing in turns, lose no record (appends go to the end of the file)', async () => {
    const dir = tmp();
    const a = createCachedEmbedder(counting(), { dir });
    const b = createCachedEmbedder(counting(), { dir });
    for (let i = 0; i < 200; i++) {
      await a.embed([`a${i}`]);
      await b.embed([`b${i}`]);
    }
    a.close();
    b.close();
    const inner = counting();
    const c = createCachedEmbedder(inner, { dir });
    await c.embed([...Array.from({ length: 200 }, (_, i) => `a${i}`), ...Array.from({ length: 200 }, (_, i) => `b${i}`)]);
    expect(inner.asked).toEqual([]);
    expect(c.stats().entries).toBe(400);
  });
});
