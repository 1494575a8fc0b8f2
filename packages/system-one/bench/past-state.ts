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
 * opinion), each instantiated with several people (and "I" / "my"). The split is fixed here: a
 * template whose index i satisfies (i + the kind's index) % 4 == 3 (each cue style is held out in
 * some kinds and trained in others) and the people of `HELD_OUT_PEOPLE` are held out (never trained on).
 */

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

/** {X} = name, {X's} = possessive, {does} etc. are literal; "I" variants are written out. */
type T = { present: string[]; now: string[]; past: string[]; event: string[] };
const KINDS: Record<string, T> = {
  residence: {
    present: ['Where does {X} live?', 'Which city is {X} based in?', "Where is {X}'s home?", 'What country does {X} live in?', 'Where do I live?'],
    now: ['Where does {X} live now?', 'Which city is {X} living in these days?', 'Where is {X} currently based?', 'Where do I live now?'],
    past: ['Where did {X} live before?', 'Where did {X} use to live?', 'Which city did {X} originally live in?', 'Where was {X} living in 2023?', 'Where did I live before I moved?', "Where was {X}'s home back then?", 'What city did {X} live in previously?', 'Where did {X} live at first?'],
    event: ['When did {X} move?', 'Why did {X} move to a new city?', 'Who helped {X} move house?', 'How long did the move take {X}?'],
  },
  job: {
    present: ['What does {X} do for a living?', "What is {X}'s job?", 'Where does {X} work?', 'What is my job?', 'Who does {X} work for?'],
    now: ['What does {X} do for work now?', 'Where does {X} work these days?', "What is {X}'s current job?", 'What is my job now?'],
    past: ['What did {X} do for a living before?', 'Where did {X} use to work?', "What was {X}'s job originally?", 'Where was {X} working in 2022?', 'What job did I have before?', 'What was {X} doing for work back then?', 'Which company did {X} work for previously?', "What was {X}'s first job?"],
    event: ['When did {X} quit the job?', 'Why did {X} change jobs?', 'How did {X} celebrate the promotion?', 'When did {X} start the new job?'],
  },
  relationship: {
    present: ["Who is {X}'s partner?", 'Is {X} married?', 'Who is {X} dating?', 'Who is my partner?', "What is {X}'s relationship status?"],
    now: ["Who is {X}'s partner now?", 'Is {X} still single?', 'Who is {X} seeing these days?', 'Am I still with my partner?'],
    past: ["Who was {X}'s partner before?", 'Who did {X} use to date?', "Who was {X}'s first partner?", 'Was {X} married in 2021?', 'Who was I dating before?', 'Who was {X} seeing back then?', "Who was {X}'s previous partner?", 'Who did {X} date originally?'],
    event: ['When did {X} get engaged?', 'Where did {X} meet the partner?', 'Why did {X} break up?', 'How did {X} propose?'],
  },
  preference: {
    present: ['What kind of food does {X} like?', "What is {X}'s favourite music?", 'Which team does {X} support?', 'What food do I like?', "Who is {X}'s favourite player?"],
    now: ['What kind of food does {X} like now?', 'Which team does {X} support these days?', "What is {X}'s favourite dish currently?", 'What do I prefer now?'],
    past: ['What food did {X} use to like?', "What was {X}'s favourite music before?", 'Which team did {X} support originally?', 'What did {X} like to eat in 2023?', 'What food did I like before?', "Who was {X}'s favourite player back then?", 'What kind of food did {X} prefer previously?', 'What did {X} think of spicy food at first?'],
    event: ['When did {X} try sushi for the first time?', 'Where did {X} eat last weekend?', 'Why did {X} go to the concert?', 'Who cooked dinner for {X} on Friday?'],
  },
  habit: {
    present: ['How does {X} get to work?', 'How often does {X} go running?', 'What does {X} drink in the morning?', 'How do I commute?', 'Does {X} smoke?'],
    now: ['How does {X} get to work now?', 'How often does {X} exercise these days?', 'What does {X} drink in the morning currently?', 'Do I still run every day?'],
    past: ['How did {X} use to get to work?', 'How often did {X} go running before?', 'What did {X} drink in the morning originally?', 'Did {X} smoke in 2020?', 'How did I commute before?', 'What was {X} in the habit of doing back then?', 'How did {X} get to work previously?', 'What did {X} do every evening at first?'],
    event: ['When did {X} run the marathon?', 'Why did {X} skip the gym yesterday?', 'Who did {X} go cycling with on Sunday?', 'How long did the hike take {X}?'],
  },
  possession: {
    present: ['What car does {X} drive?', 'What phone does {X} have?', 'Does {X} have a pet?', 'What car do I have?', 'What kind of bike does {X} own?'],
    now: ['What car does {X} drive now?', 'Which phone does {X} use these days?', 'Does {X} still have the dog?', 'What bike do I own now?'],
    past: ['What car did {X} drive before?', 'What phone did {X} use to have?', 'What was the first car {X} owned?', 'What bike did {X} ride in 2022?', 'What car did I have before?', 'Which laptop did {X} have back then?', 'What car did {X} own previously?', 'What pet did {X} have originally?'],
    event: ['When did {X} buy the car?', 'Why did {X} sell the bike?', 'Where did {X} buy the new phone?', 'How much did {X} pay for the laptop?'],
  },
  plan: {
    present: ['Where is {X} going on holiday?', 'What does {X} plan to study?', 'When is {X} getting married?', 'What are my plans for the summer?', "What is {X}'s plan for the weekend?"],
    now: ['Where is {X} going on holiday now?', 'What is {X} planning these days?', "What is {X}'s current plan for the summer?", 'What are my plans now?'],
    past: ['Where was {X} going to travel before the plans changed?', 'What did {X} originally plan to study?', 'What was {X} planning in 2023?', 'Where did {X} first want to go on holiday?', 'What was I planning to do before?', 'What did {X} intend to do back then?', "What were {X}'s plans previously?", 'Where did {X} use to plan to retire?'],
    event: ['When did {X} book the flights?', 'Why did {X} cancel the trip?', 'Who did {X} travel with last summer?', 'How did {X} find the hotel?'],
  },
  opinion: {
    present: ['What does {X} think of the new manager?', 'How does {X} feel about remote work?', 'Does {X} like the neighbourhood?', 'What do I think of the gym?', "What is {X}'s view on the project?"],
    now: ['What does {X} think of the new manager now?', 'How does {X} feel about remote work these days?', 'Does {X} still like the neighbourhood?', 'What do I think of it now?'],
    past: ['What did {X} think of the new manager then?', 'How did {X} feel about remote work before?', 'What did {X} originally think of the neighbourhood?', "What was {X}'s opinion of the project in 2023?", 'What did I think of the gym at first?', 'How did {X} use to feel about the city?', 'What did {X} think of the plan previously?', "What was {X}'s view on the job back then?"],
    event: ['When did {X} meet the new manager?', 'Why did {X} complain to the landlord?', 'Who did {X} talk to about the project?', 'How did {X} react to the news yesterday?'],
  },
};

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
