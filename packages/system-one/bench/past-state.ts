/**
 * Labelled questions for the routing Nouls `routing.past_state` / `routing.present_state` (ours,
 * issue 37; written for this project, none from LoCoMo or BEAM): does the question ask for an EARLIER
 * state of something that may have changed since ("Where did Jonas live before?", "What was Maya's
 * job in 2023?") — `past` —, for the PRESENT state ("What kind of food does Jonas like?") — `present`
 * —, or for an event (`other`)? Past-tense questions about events ("When did
 * Jonas move to Bergen?", "Why did Maya quit the bank?") are 0: they do not ask what WAS true, they
 * ask what happened, and the newer memory is often the answer.
 *
 * Templates per attribute kind (residence, job, relationship, preference, habit, possession, plan,
 * opinion; in `data/past-state.json`), each instantiated with several people (and "I" / "my"). The split is fixed here: a
 * template whose index i satisfies (i + the kind's index) % 4 == 3 (each cue style is held out in
 * some kinds and trained in others) and the people of `HELD_OUT_PEOPLE` are held out (never trained on).
 */
import templates from './data/past-state.json';

export interface PastStateCase {
  query: string;
  /** 1 = asks for an earlier state; 0 = present state or an event. */
  label: 0 | 1;
  /** The three-way class: the present state, an earlier state, or something else (an event). */
  time: 'present' | 'past' | 'other';
  kind: string;
  /** Which template family: present / present-now / past-state / past-event. */
  family: 'present' | 'present-now' | 'past-state' | 'past-event';
  heldOut: boolean;
}

const PEOPLE = ['Jonas', 'Maya', 'Priya', 'Tomas', 'Lena', 'Omar', 'Sofia', 'Kenji', 'Ana', 'Dmitri'];
export const HELD_OUT_PEOPLE = ['Ana', 'Dmitri'];

/** Per attribute kind, the templates of each family (`data/past-state.json`; {X} = a person's name, a template without it is the "I" variant). */
type Templates = { present: string[]; now: string[]; past: string[]; event: string[] };
const KINDS: Record<string, Templates> = (templates as { kinds: Record<string, Templates> }).kinds;

function fill(t: string, x: string): string {
  return t.replace(/\{X\}/g, x);
}

/** Every labelled case (the split in `heldOut`). */
export function pastStateCases(): PastStateCase[] {
  const out: PastStateCase[] = [];
  const seen = new Set<string>();
  for (const [ki, [kind, t]] of Object.entries(KINDS).entries()) {
    const fams: [PastStateCase['family'], string[], 0 | 1][] = [
      ['present', t.present, 0],
      ['present-now', t.now, 0],
      ['past-state', t.past, 1],
      ['past-event', t.event, 0],
    ];
    for (const [family, list, label] of fams) {
      list.forEach((tpl, i) => {
        const people = tpl.includes('{X}') ? PEOPLE : ['I'];
        for (const x of people) {
          const query = fill(tpl, x);
          if (seen.has(query)) continue;
          seen.add(query);
          const time = family === 'past-state' ? 'past' : family === 'past-event' ? 'other' : 'present';
          out.push({ query, label, time, kind, family, heldOut: (i + ki) % 4 === 3 || HELD_OUT_PEOPLE.includes(x) });
        }
      });
    }
  }
  return out;
}
