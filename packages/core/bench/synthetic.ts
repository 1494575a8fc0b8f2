/**
 * Synthetic observations of the core benches (ours): template sentences from a seeded generator
 * ("Mira painted the kite at the harbour yesterday (note 17)."), one per index, deterministic.
 */
import { createHash } from 'node:crypto';
import { scopeKey } from '../src/scope.js';
import { seededRandom } from '../src/testing/index.js';
import type { Embedder, MemoryNode, MemoryStore, ResolvedScope } from '../src/types.js';
import { uuidv7 } from '../src/write/ids.js';

const NAMES = ['Mira', 'Tom', 'Lena', 'Ravi', 'Sofia', 'Kenji', 'Amara', 'Lucas', 'Ines', 'Omar', 'Hana', 'Felix', 'Zoe', 'Pablo', 'Yuki', 'Nadia', 'Ezra', 'Greta', 'Malik', 'Chloe'];
const VERBS = ['bought', 'painted', 'fixed', 'borrowed', 'sold', 'found', 'lost', 'cleaned', 'photographed', 'repaired', 'ordered', 'returned', 'built', 'shared', 'wrapped'];
const OBJECTS = ['bicycle', 'guitar', 'teapot', 'laptop', 'kite', 'canoe', 'telescope', 'lamp', 'backpack', 'camera', 'violin', 'garden bench', 'sourdough loaf', 'chess set', 'bookshelf', 'skateboard', 'quilt', 'drone', 'piano', 'tent', 'scarf', 'clock', 'sculpture', 'vase', 'typewriter'];
const PLACES = ['market', 'library', 'harbour', 'museum', 'park', 'bakery', 'station', 'workshop', 'beach', 'garden', 'school', 'cafe', 'gallery', 'stadium', 'farm'];
const WHEN = ['yesterday', 'last weekend', 'this morning', 'two days ago', 'last month', 'on Monday', 'in the evening', 'after lunch', 'before work', 'last summer'];

/** Observation i: its text, the words it was built from, and observedAt = 2023-01-01 + i minutes (UTC). */
export function synthetic(i: number) {
  const r = seededRandom(i * 7919 + 1);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const name = pick(NAMES);
  const verb = pick(VERBS);
  const object = pick(OBJECTS);
  const place = pick(PLACES);
  const text = `${name} ${verb} the ${object} at the ${place} ${pick(WHEN)} (note ${i}).`;
  return { text, name, verb, object, place, observedAt: new Date(Date.UTC(2023, 0, 1) + i * 60_000).toISOString() };
}

/**
 * Fill a scope with synthetic nodes `from` … `from + n - 1` straight through the store (batched), as
 * the write path would have stored them (all gate Adds). `from` lets a caller grow a scope in steps.
 */
export async function seedSyntheticScope(store: MemoryStore, embedder: Embedder, scope: ResolvedScope, n: number, from = 0) {
  const key = scopeKey(scope);
  const B = 2000;
  for (let start = from; start < from + n; start += B) {
    const items = Array.from({ length: Math.min(B, from + n - start) }, (_, j) => synthetic(start + j));
    const vs = await embedder.embed(items.map((x) => x.text));
    const nodes: MemoryNode[] = items.map((x, j) => ({
      id: uuidv7(),
      scope,
      text: x.text,
      speaker: x.name,
      observedAt: x.observedAt,
      eventTime: null,
      entities: [x.name.toLowerCase()],
      keywords: [x.verb, ...x.object.split(' '), x.place],
      types: { episodic: 0.8, semantic: 0.1, procedural: 0.05, preference: 0.05 },
      embedding: vs[j]!,
      gate: { action: 'add', novelty: 1, score: -1, threshold: 0, kappa: 1, density: 1, nearest: null },
      provenance: {
        sourceId: `syn:${start + j}`,
        contentHash: createHash('sha256').update(`${key}\u0000${x.text}`).digest('hex'),
        metadata: {},
      },
      obsoleteBy: null,
      createdAt: new Date().toISOString(),
    }));
    await store.write({ scope, nodes });
  }
}
