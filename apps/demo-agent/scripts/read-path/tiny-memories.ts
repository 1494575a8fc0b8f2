/**
 * Tiny memories for the abstention model (ours, issue 37; our own text, no dataset text): small
 * memories of 3–12 observations, each with questions memory answers and questions it holds nothing
 * on (an attribute never said; the same attribute said of someone else; a detail of a topic the
 * memory does discuss). The split is fixed by position and never tuned on: the first
 * `TINY_TRAIN_COUNT` memories train, the rest are held out.
 */
import { createMemory, createSqliteStore, resolveScope, type Embedder, type MemoryStore, type ResolvedScope } from '@mem/core';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';

export interface TinyMemory {
  name: string;
  /** Observations in order, one day apart; `speaker: text`. */
  observations: { speaker: string; text: string }[];
  answerable: string[];
  unanswerable: string[];
}

const said = (speaker: string, ...texts: string[]) => texts.map((text) => ({ speaker, text }));

export const TINY_MEMORIES: TinyMemory[] = [
  {
    name: 'nadia-baker',
    observations: said('Nadia', 'I run a small bakery on the corner of Elm Street.', 'My sourdough starter is eleven years old.', 'I wake up at four every morning to bake.', 'My brother Karim helps me on Saturdays.'),
    answerable: ['What does Nadia do for a living?', 'How old is Nadia\'s sourdough starter?', 'When does Nadia get up?', 'Who helps Nadia at the weekend?'],
    unanswerable: ['What is Nadia\'s favourite film?', 'Where did Nadia go to school?', 'What is the name of Nadia\'s cat?', 'How much does Nadia charge for a loaf?'],
  },
  {
    name: 'oskar-runner',
    observations: said('Oskar', 'I ran my first marathon in Rotterdam in April.', 'My time was three hours and forty minutes.', 'I train with a club that meets on Tuesday evenings.', 'I hurt my knee in June and had to rest for a month.', 'My physiotherapist told me to stretch more.', 'I work as an accountant for a shipping firm.'),
    answerable: ['Which marathon did Oskar run?', 'How long did Oskar\'s marathon take?', 'When does Oskar\'s running club meet?', 'What injury did Oskar have?', 'What is Oskar\'s job?'],
    unanswerable: ['What is Oskar\'s wife called?', 'Which bank does Oskar use?', 'What car does Oskar drive?', 'What size shoes does Oskar wear?', 'Which language did Oskar study at university?'],
  },
  {
    name: 'lena-garden',
    observations: said('Lena', 'I grow tomatoes and courgettes in my back garden.', 'Slugs ate half of my lettuce this year.', 'I live in a terraced house in Leeds.'),
    answerable: ['What vegetables does Lena grow?', 'What happened to Lena\'s lettuce?', 'Where does Lena live?'],
    unanswerable: ['What is Lena\'s blood type?', 'How many children does Lena have?', 'What instrument does Lena play?'],
  },
  {
    name: 'user-pets',
    observations: said('user', 'My dog is called Biscuit and he is a beagle.', 'I adopted Biscuit from a shelter two years ago.', 'I take him to the beach every Sunday.', 'I am allergic to cats, sadly.', 'My partner works night shifts at the airport.'),
    answerable: ['What is my dog\'s name?', 'Where did I get my dog?', 'Where do I walk the dog on Sundays?', 'What am I allergic to?', 'Where does my partner work?'],
    unanswerable: ['What is my mother\'s maiden name?', 'Which football team do I support?', 'What is my favourite colour?', 'How tall am I?', 'What did I study at college?'],
  },
  {
    name: 'ines-and-marco',
    observations: [
      { speaker: 'Ines', text: 'I just got back from a week of hiking in the Dolomites.' },
      { speaker: 'Marco', text: 'That sounds amazing. I spent my holiday painting the kitchen.' },
      { speaker: 'Ines', text: 'My boots fell apart on the third day, so I bought new ones in Cortina.' },
      { speaker: 'Marco', text: 'I chose a pale green for the walls.' },
      { speaker: 'Ines', text: 'Next year I want to walk the Camino in Spain.' },
      { speaker: 'Marco', text: 'My daughter starts school in September.' },
    ],
    answerable: ['Where did Ines go hiking?', 'What colour did Marco paint the kitchen?', 'Where did Ines buy new boots?', 'What does Ines plan for next year?', 'When does Marco\'s daughter start school?'],
    unanswerable: ['What colour did Ines paint her kitchen?', 'Where did Marco go hiking?', 'When does Ines\'s son start school?', 'What is Marco\'s job?', 'Which hotel did Ines stay in?'],
  },
  {
    name: 'farid-music',
    observations: said('Farid', 'I have played the oud since I was nine.', 'I teach music at a secondary school in Lyon.', 'Our band plays at a cafe every other Friday.', 'I recorded an album with my cousin last winter.', 'I drink my coffee black with no sugar.', 'I am learning Portuguese on my phone.', 'My landlord raised the rent again.', 'I sold my old bicycle to a neighbour.'),
    answerable: ['What instrument does Farid play?', 'Where does Farid teach?', 'How often does Farid\'s band play?', 'Who did Farid record an album with?', 'How does Farid take his coffee?', 'Which language is Farid learning?'],
    unanswerable: ['What is the name of Farid\'s album?', 'How much is Farid\'s rent?', 'What is Farid\'s favourite book?', 'Where was Farid born?', 'What is Farid\'s dog called?'],
  },
  {
    name: 'grace-move',
    observations: said('Grace', 'I lived in Glasgow for ten years.', 'Last spring I moved to Aberdeen for a new job.', 'I work as a marine biologist now.', 'I miss my old neighbours a lot.'),
    answerable: ['Where did Grace live before?', 'Where does Grace live now?', 'What is Grace\'s profession?', 'Why did Grace move to Aberdeen?'],
    unanswerable: ['What is Grace\'s salary?', 'What are Grace\'s neighbours called?', 'Does Grace have a boyfriend?', 'What sport does Grace play?'],
  },
  {
    name: 'user-health',
    observations: said('user', 'I was diagnosed with asthma as a child.', 'I use an inhaler before running.', 'My doctor is Dr. Patel at the Northgate clinic.', 'I stopped eating meat last year.', 'I sleep badly when it is hot.', 'I take vitamin D in the winter.', 'My sister is a pharmacist.'),
    answerable: ['What condition do I have?', 'Who is my doctor?', 'Do I eat meat?', 'What supplement do I take in winter?', 'What does my sister do?', 'When do I use my inhaler?'],
    unanswerable: ['What is my blood pressure?', 'Which hospital was I born in?', 'What is my brother\'s job?', 'How much do I weigh?', 'What is my favourite restaurant?'],
  },
  {
    name: 'tariq-chess',
    observations: said('Tariq', 'I play chess online most evenings.', 'My rating went past 1800 last week.', 'I prefer the Sicilian defence with black.'),
    answerable: ['What game does Tariq play?', 'What is Tariq\'s chess rating?', 'Which opening does Tariq like?'],
    unanswerable: ['Where does Tariq work?', 'What is Tariq\'s phone number?', 'Who is Tariq\'s best friend?'],
  },
  {
    name: 'sofia-wedding',
    observations: said('Sofia', 'My wedding is planned for the twelfth of August.', 'We booked a barn near Bath for the party.', 'My fiance Luis is a firefighter.', 'We still have not chosen a band.', 'My best friend Ana will be my bridesmaid.', 'I found my dress in a vintage shop in Bristol.', 'We want to go to Japan for our honeymoon.', 'My mother is making the cake.', 'I am nervous about the speeches.', 'We invited ninety guests.'),
    answerable: ['When is Sofia\'s wedding?', 'Where is Sofia\'s wedding party?', 'What does Luis do?', 'Who is Sofia\'s bridesmaid?', 'Where did Sofia buy her dress?', 'Where are Sofia and Luis going on honeymoon?', 'Who is making the wedding cake?', 'How many guests did Sofia invite?'],
    unanswerable: ['Which band will play at Sofia\'s wedding?', 'What is Sofia\'s job?', 'What flavour is the wedding cake?', 'Where did Sofia meet Luis?', 'How old is Sofia?', 'What is Luis\'s surname?'],
  },
  // ---- held out from here on (never trained or tuned on) ----
  {
    name: 'tomas-basics',
    observations: said('Tomas', 'I live in Dublin, near the river.', 'I work as a nurse at the children\'s hospital.', 'I love coffee, I have three cups every morning.', 'I have a peanut allergy, so I always check labels.', 'Last weekend I hiked up a mountain in Mayo with my cousin.', 'I quit nursing and now work as a software tester.', 'I used to drink coffee but now I only drink green tea.', 'My friend Aoife moved to Berlin last month.', 'The hike was hard but the view from the top was worth it.'),
    answerable: ['Where does Tomas live?', 'What does Tomas drink now?', 'Is Tomas allergic to anything?', 'What is Tomas\'s job?', 'Where did Aoife move?', 'Who did Tomas hike with?'],
    unanswerable: ['What is the name of Tomas\'s dog?', 'What is Tomas\'s blood type?', 'What car does Tomas drive?', 'Who is Tomas married to?', 'Where did Tomas move last month?', 'What is Tomas\'s favourite band?'],
  },
  {
    name: 'user-work',
    observations: said('user', 'I started a new job as a data analyst in March.', 'My manager is called Priya.', 'I work from home on Mondays and Fridays.', 'The commute takes forty minutes by train.', 'I am taking an evening course in statistics.'),
    answerable: ['What is my job?', 'Who is my manager?', 'Which days do I work from home?', 'How long is my commute?', 'What course am I taking?'],
    unanswerable: ['What is my salary?', 'What is my manager\'s surname?', 'Where did I go on holiday?', 'What is my cat called?', 'Which university did I attend?'],
  },
  {
    name: 'hana-travel',
    observations: said('Hana', 'I visited Lisbon in May with my sister.', 'We ate grilled sardines every night.', 'I lost my passport on the last day.', 'The embassy gave me an emergency travel document.'),
    answerable: ['Where did Hana travel in May?', 'Who did Hana travel with?', 'What did Hana lose?', 'What did the embassy give Hana?'],
    unanswerable: ['What hotel did Hana stay in?', 'How much did Hana\'s trip cost?', 'What is Hana\'s job?', 'Where did Hana go in December?'],
  },
  {
    name: 'pieter-and-joy',
    observations: [
      { speaker: 'Pieter', text: 'I finally finished building the boat in my garage.' },
      { speaker: 'Joy', text: 'Congratulations! I passed my driving test yesterday.' },
      { speaker: 'Pieter', text: 'The boat is named after my grandmother, Hilde.' },
      { speaker: 'Joy', text: 'My instructor said my parking was the best he had seen.' },
      { speaker: 'Pieter', text: 'I will launch it on the lake next Saturday.' },
    ],
    answerable: ['What did Pieter build?', 'What is Pieter\'s boat called?', 'What test did Joy pass?', 'Where will Pieter launch the boat?', 'What did Joy\'s instructor praise?'],
    unanswerable: ['What did Joy build?', 'What is Joy\'s boat called?', 'Which test did Pieter pass?', 'What car does Joy drive?', 'How long is Pieter\'s boat?'],
  },
  {
    name: 'amara-books',
    observations: said('Amara', 'I read about forty novels a year.', 'My book club meets in the library on Thursdays.', 'This month we are reading a novel set in Lagos.', 'I prefer paper books to e-readers.', 'I write short stories in my spare time.', 'One of my stories won a local prize.', 'I work in a dental practice as a receptionist.'),
    answerable: ['How many books does Amara read a year?', 'Where does Amara\'s book club meet?', 'What is the book club reading this month?', 'Does Amara like e-readers?', 'What does Amara write?', 'Where does Amara work?'],
    unanswerable: ['What is Amara\'s favourite author?', 'What was the prize worth?', 'What is the title of Amara\'s story?', 'Who is Amara\'s husband?', 'Where did Amara grow up?'],
  },
  {
    name: 'user-home',
    observations: said('user', 'We bought a flat in Manchester last autumn.', 'The boiler broke in January and cost a fortune to fix.', 'Our neighbour upstairs plays the drums.', 'I painted the living room dark blue.'),
    answerable: ['Where is my flat?', 'What broke in January?', 'What does the upstairs neighbour play?', 'What colour is my living room?'],
    unanswerable: ['How much did the flat cost?', 'What is my neighbour\'s name?', 'What is my dog called?', 'Where do my parents live?'],
  },
];

/** The first this many of `TINY_MEMORIES` train the abstention model; the rest are held out. */
export const TINY_TRAIN_COUNT = 10;

/**
 * One tiny memory built through the write path (the offline eval System One, default gate) into an
 * in-memory store: observations one day apart from 2026-01-02 10:00 UTC; `now` = the day after the last.
 */
export async function buildTinyMemory(tm: TinyMemory, embedder: Embedder): Promise<{ store: MemoryStore; scope: ResolvedScope; now: string; systemOne: ReturnType<typeof createEvalSystemOne>; close(): Promise<void> }> {
  const systemOne = createEvalSystemOne(embedder);
  const store = createSqliteStore({ path: ':memory:' });
  const scope = resolveScope({ userId: `tiny-${tm.name}` });
  const memory = createMemory({ store, embedder, systemOne: systemOne as never });
  const day = (d: number) => new Date(Date.UTC(2026, 0, 1 + d, 10)).toISOString();
  await memory.add(tm.observations.map((o, d) => ({ text: o.text, speaker: o.speaker, observedAt: day(d), scope })));
  return { store, scope, now: day(tm.observations.length), systemOne, close: () => memory.close() };
}
