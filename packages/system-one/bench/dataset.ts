/**
 * A hand-labelled evaluation set for the offline backend (ours; every sentence written for this file,
 * none taken from LoCoMo or any benchmark). Written before the scorers were tuned; labels are what a
 * careful human would answer, not what the scorers output. Pair questions always use candidate 0.
 */
import type { CatalogueKind } from '../src/catalogue.js';

export interface LabelledCase {
  kind: CatalogueKind;
  state: Record<string, unknown>;
  /** 1 / 0 for a Noul; the correct label for a Choice. */
  label: number | string;
}

const cases: LabelledCase[] = [];
const add = (kind: CatalogueKind, state: Record<string, unknown>, label: number | string | undefined) => {
  if (label !== undefined) cases.push({ kind, state, label });
};

// ------------------------------------------------------------------------------------------------
// Routing: [semantic, temporal, causal, entity, multi_hop_need, recency_importance]
// ------------------------------------------------------------------------------------------------
const R = ['routing.semantic', 'routing.temporal', 'routing.causal', 'routing.entity', 'routing.multi_hop_need', 'routing.recency_importance'] as const;
const route = (query: string, l: [number, number, number, number, number, number]) => R.forEach((k, i) => add(k, { query }, l[i]));

route('When did Ingrid start learning the violin?', [1, 1, 0, 1, 0, 0]);
route('Why did Marcus move out of his apartment in Leeds?', [1, 0, 1, 1, 0, 0]);
route('What kind of music would Sofia probably enjoy at a concert?', [1, 0, 0, 1, 1, 0]);
route('How long has Priya been working at the hospital?', [1, 1, 0, 1, 0, 1]);
route("What is the name of Tom's dog?", [1, 0, 0, 1, 0, 0]);
route('What happened after the team lost the final?', [1, 1, 1, 0, 1, 0]);
route('Where is Lucas living now?', [1, 0, 0, 1, 0, 1]);
route('Would Hana be interested in a photography workshop?', [1, 0, 0, 1, 1, 0]);
route('What did Omar and Leila both study at university?', [1, 0, 0, 1, 1, 0]);
route('What made Daniel quit his job at the bank?', [1, 0, 1, 1, 0, 0]);
route('Which city did Chloe visit first, Rome or Vienna?', [1, 1, 0, 1, 1, 0]);
route('What is the best way to water succulents?', [1, 0, 0, 0, 0, 0]);
route('How many times has Felix run a marathon?', [1, 0, 0, 1, 1, 0]);
route('What has Nadia been cooking lately?', [1, 1, 0, 1, 0, 1]);
route('Who introduced Ravi to rock climbing?', [1, 0, 0, 1, 0, 0]);
route('What year did Elena graduate from college?', [1, 1, 0, 1, 0, 0]);
route('How did the flood affect the village bakery?', [1, 0, 1, 1, 0, 0]);
route('What are my favourite hiking snacks?', [1, 0, 0, 0, 0, 0]);
route('Is Jasper still dating the architect he met in spring?', [1, 1, 0, 1, 1, 1]);
route('What might Aisha do to celebrate her promotion?', [1, 0, 0, 1, 1, 0]);
route('Which books did Martin read during his trip to Japan?', [1, 1, 0, 1, 1, 0]);
route('What does Greta think about electric cars?', [1, 0, 0, 1, 0, 0]);
route('When is Yusuf planning to visit his grandmother?', [1, 1, 0, 1, 0, 0]);
route('What caused the delay in the kitchen renovation?', [1, 0, 1, 0, 0, 0]);
route("What is Carla's current job title?", [1, 0, 0, 1, 0, 1]);
route('Did Ben go to the gym before or after the meeting on Friday?', [0, 1, 0, 1, 0, 0]);
route('What personality traits do Mei and Arjun share?', [1, 0, 0, 1, 1, 0]);
route('Why was the concert cancelled last weekend?', [1, 1, 1, 0, 0, 0]);
route('What pet does Olivia have?', [1, 0, 0, 1, 0, 0]);
route('How did Leo feel after finishing his first triathlon?', [1, 1, 0, 1, 0, 0]);
route('What is the latest news about the school fundraiser?', [1, 0, 0, 0, 0, 1]);
route('What languages does Emil speak?', [1, 0, 0, 1, 0, 0]);
route('Which restaurant did we go to on my birthday in March?', [1, 1, 0, 0, 0, 0]);
route('Could Sam be allergic to something, given what he avoids eating?', [1, 0, 0, 1, 1, 0]);
route('What led Ines to start volunteering at the shelter?', [1, 0, 1, 1, 0, 0]);
route('What did Paulo do on the morning of the storm?', [1, 1, 0, 1, 0, 0]);
route('What hobbies has Keiko picked up recently?', [1, 1, 0, 1, 0, 1]);
route('What is the password hint for the home router?', [1, 0, 0, 0, 0, 0]);
route('How are Lina and her brother different in their taste in films?', [1, 0, 0, 1, 1, 0]);
route('What did I tell Gordon right before he left for Canada?', [1, 1, 0, 1, 0, 0]);

// ------------------------------------------------------------------------------------------------
// Typing: [episodic, semantic, procedural, preference] on { observation }
// ------------------------------------------------------------------------------------------------
const T = ['typing.episodic', 'typing.semantic', 'typing.procedural', 'typing.preference'] as const;
const typ = (observation: string, l: [number, number, number, number]) => T.forEach((k, i) => add(k, { observation }, l[i]));

typ('Yesterday I took my niece to the aquarium and we watched the penguins being fed.', [1, 0, 0, 0]);
typ('My brother is a structural engineer in Glasgow.', [0, 1, 0, 0]);
typ('To reset the thermostat, hold the mode button for five seconds and then press up twice.', [0, 0, 1, 0]);
typ('I absolutely love spicy Thai curries.', [0, 0, 0, 1]);
typ('Last Saturday we hiked to the lighthouse and got caught in the rain.', [1, 0, 0, 0]);
typ("I can't stand horror movies.", [0, 0, 0, 1]);
typ('Greta speaks fluent Portuguese and some Swahili.', [0, 1, 0, 0]);
typ('First soak the beans overnight, then simmer them for two hours with a bay leaf.', [0, 0, 1, 0]);
typ('We adopted a grey kitten from the shelter on Tuesday.', [1, 0, 0, 0]);
typ('Water boils at a lower temperature at high altitude.', [0, 1, 0, 0]);
typ('I prefer trains to planes because I get to see the countryside.', [0, 0, 0, 1]);
typ('This morning I finally submitted my thesis to the committee.', [1, 0, 0, 0]);
typ('Jonah is allergic to peanuts.', [0, 1, 0, 0]);
typ('Make sure to unplug the router and wait thirty seconds before plugging it back in.', [0, 0, 1, 0]);
typ('My favourite painter is Frida Kahlo.', [0, 1, 0, 1]);
typ('Two weeks ago Amara ran her first half marathon in under two hours.', [1, 0, 0, 0]);
typ('Every morning I stretch for ten minutes, then drink a glass of water before coffee.', [0, 0, 1, 0]);
typ('Our office is on the fourth floor of the old post office building.', [0, 1, 0, 0]);
typ('I met Carlos at the book fair last spring and we talked about poetry for hours.', [1, 0, 0, 0]);
typ('I would rather stay home with a good book than go to a loud party.', [0, 0, 0, 1]);
typ('The quickest way to peel garlic is to crush the clove with the flat of a knife.', [0, 0, 1, 0]);
typ('Rosa has two daughters and lives near the harbour.', [0, 1, 0, 0]);
typ('We celebrated our anniversary at a tiny Italian place downtown.', [1, 0, 0, 0]);
typ('Kenji really enjoys building model trains on weekends.', [0, 0, 0, 1]);
typ('I got a flat tyre on the way to work and missed the morning meeting.', [1, 0, 0, 0]);
typ('The library closes at eight on weekdays.', [0, 1, 0, 0]);
typ('Dislike is a strong word, but I am not a fan of olives.', [0, 0, 0, 1]);
typ('When the bread sounds hollow on the bottom, take it out and let it cool on a rack.', [0, 0, 1, 0]);
typ('Mum works as a nurse at the children’s hospital.', [0, 1, 0, 0]);
typ('On Friday my team won the regional chess tournament.', [1, 0, 0, 0]);

// ------------------------------------------------------------------------------------------------
// Pair relations on { new_memory, candidates: [c] }
// ------------------------------------------------------------------------------------------------
interface RelLabels { semantic?: number; causes?: number; caused_by?: number; same_episode?: number; alias?: number; order?: string }
const rel = (new_memory: unknown, candidate: unknown, l: RelLabels) => {
  const state = { new_memory, candidates: [candidate] };
  add('relation.semantic', state, l.semantic);
  add('relation.causes', state, l.causes);
  add('relation.caused_by', state, l.caused_by);
  add('relation.same_episode', state, l.same_episode);
  add('relation.entity_alias', state, l.alias);
  add('relation.temporal_order', state, l.order);
};
const m = (text: string, time?: string, extra: Record<string, unknown> = {}) => ({ text, ...(time ? { time } : {}), ...extra });

rel(m('Lena: I had to cancel my trip to Porto because I sprained my ankle.', '2024-03-10T09:00:00Z'),
  m('Lena: I sprained my ankle playing volleyball.', '2024-03-08T18:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 0, order: 'after' });
rel(m('The heavy rain flooded the basement.', '2024-06-02T07:00:00Z'),
  m('We had to throw away the old sofa that was stored in the basement because it was ruined by water.', '2024-06-03T12:00:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 0, order: 'before' });
rel(m('Arjun: I passed my driving test this morning!', '2024-04-12T11:00:00Z'),
  m('Arjun: So now I can finally drive to work instead of taking two buses.', '2024-04-12T11:05:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Mei: We ordered dumplings at the night market.', '2024-08-20T20:10:00Z'),
  m('Mei: After dinner we watched the lantern show by the river.', '2024-08-20T21:30:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Oscar adopted a rescue greyhound named Pepper.', '2024-01-15T10:00:00Z'),
  m('The quarterly tax return is due at the end of April.', '2024-01-10T10:00:00Z'),
  { semantic: 0, causes: 0, caused_by: 0, same_episode: 0, alias: 0, order: 'after' });
rel(m('Bob said the new espresso machine at work is terrible.'),
  m('Robert complained that the office coffee tastes burnt.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1, order: 'unknown' });
rel(m('I flew into NYC for the conference.'),
  m('The conference hotel in New York City was next to Central Park.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1 });
rel(m('Kate finished painting the nursery blue.', '2024-05-05T16:00:00Z'),
  m('Katherine bought three cans of blue paint for the nursery.', '2024-05-03T10:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 0, alias: 1, order: 'after' });
rel(m('The museum was closed for renovation, so we went to the botanical garden instead.', '2024-07-01T10:00:00Z'),
  m('The botanical garden had a huge greenhouse full of orchids.', '2024-07-01T13:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Farah got promoted to team lead.', '2024-02-01T09:00:00Z'),
  m('Farah worked late every night to ship the payments project on time.', '2023-12-15T21:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 0, order: 'after' });
rel(m('Nils bought noise-cancelling headphones.', '2024-09-10T12:00:00Z'),
  m('The neighbours started renovating their flat and the drilling is constant.', '2024-09-05T12:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 0, order: 'after' });
rel(m('My grandmother taught me to knit when I was seven.'),
  m('I knitted a scarf for my friend’s birthday.'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 0, order: 'before' });
rel(m('The power went out during the storm.', '2024-11-02T19:00:00Z'),
  m('We played board games by candlelight.', '2024-11-02T19:30:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Tariq plays bass in a jazz trio.', '2024-02-10T10:00:00Z'),
  m('My sister is training for a marathon in October.', '2024-02-10T10:20:00Z'),
  // order label corrected after the first run: 10:00 is before 10:20 (a labelling slip, not tuning)
  { semantic: 0, causes: 0, caused_by: 0, same_episode: 0, alias: 0, order: 'before' });
rel(m('The workshop ran from 9 to 5 on Saturday.', undefined, { start: '2024-03-16T09:00:00Z', end: '2024-03-16T17:00:00Z' }),
  m('We had a coffee break with pastries at the workshop.', undefined, { start: '2024-03-16T10:30:00Z', end: '2024-03-16T10:50:00Z' }),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'contains' });
rel(m('Our flight was delayed while we waited at the gate.', undefined, { start: '2024-04-01T13:00:00Z', end: '2024-04-01T13:40:00Z' }),
  m('We spent the afternoon at the airport.', undefined, { start: '2024-04-01T12:00:00Z', end: '2024-04-01T17:00:00Z' }),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'during' });
rel(m('The fire alarm went off.', '2024-10-10T14:00:00Z'),
  m('Everyone evacuated the building.', '2024-10-10T14:00:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 1, order: 'same_time' });
rel(m('Dr. Alvarez said my blood pressure is fine now.'),
  m('Maria Alvarez, my GP, asked me to cut down on salt last year.'),
  { semantic: 1, causes: 0, caused_by: 1, alias: 1, order: 'after' });
rel(m('Liz moved to Edinburgh for her new job.'),
  m('Elizabeth started working at a publishing house in Scotland.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1 });
rel(m('Tom planted tomatoes in the back garden.'),
  m('Anna repaired the kitchen tap.'),
  { semantic: 0, causes: 0, caused_by: 0, alias: 0, order: 'unknown' });
rel(m('I lost my wallet on the tram.', '2024-06-10T08:00:00Z'),
  m('I had to cancel both my bank cards and order new ones.', '2024-06-10T10:00:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('I started taking the stairs instead of the lift.', '2024-02-20T08:00:00Z'),
  m('My doctor told me I should exercise more.', '2024-02-12T15:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 0, order: 'after' });
rel(m('The café on Elm Street serves great croissants.'),
  m('I tried the new café on Elm Street and loved their pastries.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 0 });
rel(m('Priya learned to swim at the age of thirty.'),
  m('The bus to the airport leaves every twenty minutes.'),
  { semantic: 0, causes: 0, caused_by: 0, alias: 0, order: 'unknown' });
rel(m('We toasted the bride and groom.', '2024-09-14T17:00:00Z'),
  m('The wedding ceremony took place in an old barn.', '2024-09-14T15:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'after' });
rel(m('Jamie got a parking ticket downtown.', '2024-05-20T12:00:00Z'),
  m('Jim was late to the dentist appointment.', '2024-08-02T12:00:00Z'),
  { semantic: 0, causes: 0, caused_by: 0, same_episode: 0, alias: 1, order: 'before' });
rel(m('UCL offered Sara a place on the master’s programme.'),
  m('Sara applied to University College London in January.'),
  { semantic: 1, causes: 0, caused_by: 1, alias: 1, order: 'after' });
rel(m('The river froze over this winter.', '2024-01-20T10:00:00Z'),
  m('Kids went ice skating on the river.', '2024-01-27T10:00:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 0, order: 'before' });

// ------------------------------------------------------------------------------------------------
// Consolidation on { new_memory, candidates: [c] }
// ------------------------------------------------------------------------------------------------
interface ConLabels { redundant: number; contradiction: number; obsolete: number; link: number; rep: string }
const con = (new_memory: unknown, candidate: unknown, l: ConLabels) => {
  const state = { new_memory, candidates: [candidate] };
  add('consolidation.redundant', state, l.redundant);
  add('consolidation.contradiction', state, l.contradiction);
  add('consolidation.obsolete', state, l.obsolete);
  add('consolidation.link', state, l.link);
  add('consolidation.representation', state, l.rep);
};
con(m('Ruth lives in Bristol.', '2024-05-01T10:00:00Z'), m('Ruth lives in Bristol.', '2024-03-01T10:00:00Z'),
  { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('Ruth moved to Manchester last month.', '2024-06-01T10:00:00Z'), m('Ruth lives in Bristol.', '2024-03-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('I no longer eat meat.', '2024-04-01T10:00:00Z'), m('I love a good steak on Fridays.', '2023-09-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('Hector works as a pharmacist.'), m('Hector is a pharmacist at the Main Street pharmacy.'),
  { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('I went swimming on Monday morning.'), m('I went swimming on Thursday morning.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'promote' });
con(m('I enjoy hiking in the mountains.'), m('I love long walks along mountain trails.'),
  { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('The team meeting is on Wednesdays at 10.', '2024-02-01T10:00:00Z'), m('The team meeting is on Tuesdays at 10.', '2023-10-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('Zara has a cat called Miso.'), m('The train to Oxford was cancelled.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 0, rep: 'keep_separate' });
con(m('Zara has a cat called Miso.'), m('Zara bought a scratching post for Miso.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('Dev quit smoking in January.', '2024-01-15T10:00:00Z'), m('Dev smokes a pack a day.', '2023-06-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('I like green tea.'), m('I really like green tea.'),
  { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('I like green tea.'), m('I hate green tea.'),
  { redundant: 0, contradiction: 1, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('Sven is 34 years old.', '2024-03-01T10:00:00Z'), m('Sven is 33 years old.', '2023-03-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('We played tennis on Saturday.'), m('We played tennis again this Saturday.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'promote' });
con(m('Irene drives a red hatchback.'), m('Irene is learning Italian at night school.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 0, rep: 'keep_separate' });
con(m('Irene now drives an electric van.', '2024-07-01T10:00:00Z'), m('Irene drives a red hatchback.', '2023-07-01T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('I love Korean food.'), m('My favourite dish is bibimbap.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'promote' });
con(m('The printer on floor two is broken.', '2024-05-02T10:00:00Z'), m('The printer on floor two was fixed this morning.', '2024-05-06T10:00:00Z'),
  { redundant: 0, contradiction: 1, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('Maya is married to Jonas.'), m('Maya and Jonas got married in Lisbon.'),
  { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('The gym opens at 6 am.'), m('The gym opens at 6 am on weekdays.'),
  { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });

// ------------------------------------------------------------------------------------------------
// Candidate scoring on { query, candidates: [c], evidence }
// ------------------------------------------------------------------------------------------------
interface ScLabels { relevance: number; usefulness?: number; newInfo: number; supports: number }
const sc = (query: string, candidate: unknown, evidence: unknown[], l: ScLabels) => {
  const state = { query, candidates: [candidate], evidence };
  add('scoring.relevance', state, l.relevance);
  add('scoring.relation_usefulness', state, l.usefulness);
  add('scoring.new_information', state, l.newInfo);
  add('scoring.supports_current_evidence', state, l.supports);
};
sc('When did Ingrid start learning the violin?', m('Ingrid had her first violin lesson in September 2021.', '2021-09-14T10:00:00Z', { relation: 'temporal' }),
  ['Ingrid practises the violin every evening.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('When did Ingrid start learning the violin?', m('Ingrid’s brother plays football on Sundays.', undefined, { relation: 'entity' }),
  ['Ingrid practises the violin every evening.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('Why did Marcus move out of his flat?', m('Marcus said the rent went up by forty percent, so he moved out.', undefined, { relation: 'causal' }),
  ['Marcus moved out of his flat in May.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Why did Marcus move out of his flat?', m('Marcus moved out of his flat in May.', undefined, { relation: 'semantic' }),
  ['Marcus moved out of his flat in May.'], { relevance: 1, usefulness: 0, newInfo: 0, supports: 1 });
sc('What is the name of Tom’s dog?', m('Tom’s dog Biscuit loves chasing seagulls.', undefined, { relation: 'entity' }),
  [], { relevance: 1, usefulness: 1, newInfo: 1, supports: 0 });
sc('What is the name of Tom’s dog?', m('Tom bought a new bicycle helmet.', undefined, { relation: 'entity' }),
  [], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('What did the flood do to the bakery?', m('The bakery lost all its flour stock when the river flooded.', undefined, { relation: 'causal' }),
  ['The river flooded the village in March.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('What did the flood do to the bakery?', m('The baker’s daughter won a spelling contest.', undefined, { relation: 'entity' }),
  ['The river flooded the village in March.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('Which books did Martin read in Japan?', m('Martin finished reading a Murakami novel on the train to Kyoto.', undefined, { relation: 'semantic' }),
  ['Martin travelled around Japan for three weeks.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Which books did Martin read in Japan?', m('Martin travelled around Japan for three weeks.', undefined, { relation: 'temporal' }),
  ['Martin travelled around Japan for three weeks.'], { relevance: 1, usefulness: 1, newInfo: 0, supports: 1 });
sc('What does Greta think about electric cars?', m('Greta says electric cars are the future but charging is still a hassle.', undefined, { relation: 'semantic' }),
  [], { relevance: 1, usefulness: 1, newInfo: 1, supports: 0 });
sc('What does Greta think about electric cars?', m('Greta’s neighbour repairs vintage motorcycles.', undefined, { relation: 'entity' }),
  [], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('How long has Priya worked at the hospital?', m('Priya joined the hospital as a junior nurse in 2016.', '2016-04-01T10:00:00Z', { relation: 'temporal' }),
  ['Priya is a senior nurse at St Anne’s hospital.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('How long has Priya worked at the hospital?', m('Priya likes to bake sourdough bread.', undefined, { relation: 'semantic' }),
  ['Priya is a senior nurse at St Anne’s hospital.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('What happened after the team lost the final?', m('After losing the final, the coach resigned.', undefined, { relation: 'temporal' }),
  ['The team lost the cup final 2-1.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('What happened after the team lost the final?', m('The team lost the cup final 2-1.', undefined, { relation: 'semantic' }),
  ['The team lost the cup final 2-1.'], { relevance: 1, usefulness: 0, newInfo: 0, supports: 1 });
sc('Where is Lucas living now?', m('Lucas just signed a lease on a flat in Valencia.', '2024-05-01T10:00:00Z', { relation: 'temporal' }),
  ['Lucas used to live in Porto.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Where is Lucas living now?', m('The weather in Oslo was grey all week.', undefined, { relation: 'semantic' }),
  ['Lucas used to live in Porto.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('Who introduced Ravi to rock climbing?', m('Ravi’s colleague Nina took him to the climbing gym for the first time.', undefined, { relation: 'entity' }),
  ['Ravi goes bouldering twice a week.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Who introduced Ravi to rock climbing?', m('Ravi goes bouldering twice a week.', undefined, { relation: 'semantic' }),
  ['Ravi goes bouldering twice a week.'], { relevance: 1, usefulness: 0, newInfo: 0, supports: 1 });

// ------------------------------------------------------------------------------------------------
// Stopping on { query, evidence, depth }
// ------------------------------------------------------------------------------------------------
interface StLabels { sufficient: number; cont: number; missing: number; contradiction: number }
const stop = (query: string, evidence: unknown[], depth: number, l: StLabels) => {
  const state = { query, evidence, depth };
  add('stopping.evidence_sufficient', state, l.sufficient);
  add('stopping.continue_useful', state, l.cont);
  add('stopping.missing_evidence', state, l.missing);
  add('stopping.contradiction', state, l.contradiction);
};
stop('When did Ingrid start learning the violin?', ['Ingrid had her first violin lesson in September 2021.'], 1,
  { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('When did Ingrid start learning the violin?', ['Ingrid practises the violin every evening.'], 1,
  { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('Why did Marcus move out of his flat?', ['Marcus moved out of his flat in May.', 'The landlord raised the rent by forty percent, so Marcus moved out.'], 2,
  { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('Why did Marcus move out of his flat?', ['Marcus moved out of his flat in May.'], 1,
  { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('What is the name of Tom’s dog?', [], 0, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('What is the name of Tom’s dog?', ['Tom’s dog Biscuit loves chasing seagulls.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('Where does Ruth live?', ['Ruth lives in Bristol.', 'Ruth lives in Manchester.'], 1, { sufficient: 0, cont: 1, missing: 0, contradiction: 1 });
stop('Does Dev smoke?', ['Dev smokes a pack a day.', 'Dev does not smoke.'], 2, { sufficient: 0, cont: 1, missing: 0, contradiction: 1 });
stop('What languages does Emil speak?', ['Emil speaks Danish and German.', 'Emil is learning Japanese.'], 2, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('What languages does Emil speak?', ['Emil works at a shipping company in Aarhus.'], 1, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('What pet does Olivia have?', ['Olivia has a parrot named Kiwi.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('What pet does Olivia have?', ['Olivia visited the zoo with her nephew.', 'Olivia lives on the third floor.'], 6, { sufficient: 0, cont: 0, missing: 1, contradiction: 0 });
stop('How many times has Felix run a marathon?', ['Felix ran the Berlin marathon in 2019.', 'Felix ran the London marathon in 2022.', 'Felix says he has done three marathons so far.'], 2,
  { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('How many times has Felix run a marathon?', ['Felix likes running in the park.'], 1, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('Who introduced Ravi to rock climbing?', ['Ravi’s colleague Nina took him climbing for the first time.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('Who introduced Ravi to rock climbing?', ['Ravi goes bouldering twice a week.'], 2, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('What is Carla’s job?', ['Carla is a veterinary surgeon.', 'Carla works as a primary school teacher.'], 2, { sufficient: 0, cont: 1, missing: 0, contradiction: 1 });
stop('What did Paulo do on the morning of the storm?', ['On the morning of the storm Paulo tied down the boats in the harbour.'], 1,
  { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('What did Paulo do on the morning of the storm?', ['The storm knocked down trees across the island.'], 1, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('Is the library open on Sundays?', ['The library closes at eight on weekdays.'], 7, { sufficient: 0, cont: 0, missing: 1, contradiction: 0 });

export const dataset: readonly LabelledCase[] = cases;
