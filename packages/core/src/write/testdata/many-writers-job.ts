/**
 * The observations of one writer of the many-writers tests (test data, ours): `count` items, every
 * third one shared by all writers (the same text, time and scope in each), the others the writer's
 * own; two scopes (`kill-a`, `kill-b`). Every writer walks the list in the same order, so a shared
 * item is written by several processes at nearly the same moment.
 */
export interface ManyWritersItem {
  text: string;
  observedAt: string;
  user: string;
}

const PEOPLE = ['Mira', 'Tomas', 'Lena', 'Ravi', 'Sofia', 'Jonah', 'Ines'];
const THINGS = ['bicycle', 'guitar', 'teapot', 'kite', 'canoe', 'lamp', 'camera', 'atlas', 'violin', 'compass', 'telescope'];
const PLACES = ['harbour', 'library', 'market', 'station', 'garden', 'bakery', 'museum'];

function item(key: string, n: number): ManyWritersItem {
  const text = `${PEOPLE[n % PEOPLE.length]} left the ${THINGS[(n * 7) % THINGS.length]} at the ${PLACES[(n * 3) % PLACES.length]} (${key} ${n}).`;
  return { text, observedAt: new Date(Date.UTC(2024, 2, 1, 8, 0, 0) + n * 60_000).toISOString(), user: n % 2 ? 'kill-a' : 'kill-b' };
}

/** Writer `w`'s observations (deterministic). */
export function manyWritersJob(w: number, count: number): ManyWritersItem[] {
  const out: ManyWritersItem[] = [];
  for (let i = 0; i < count; i++) out.push(i % 3 === 0 ? item('shared note', i) : item(`writer ${w} note`, i));
  return out;
}
