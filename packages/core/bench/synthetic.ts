/**
 * Synthetic observations of the core benches (ours): template sentences from a seeded generator
 * ("Mira painted the kite at the harbour yesterday (note 17)."), one per index, deterministic.
 */
import { seededRandom } from '../src/testing/fixtures.js';

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

