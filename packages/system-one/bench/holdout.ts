/**
 * A second hand-labelled set (ours; new sentences, none from LoCoMo), written after the first bench
 * run and BEFORE any tuning of the scorers. The scorers are never tuned on it: the bench reports
 * it separately as a held-out check of how much tuning on `dataset.ts` over-fitted.
 */
import type { LabelledCase } from './dataset.js';

const cases: LabelledCase[] = [];
const add = (kind: LabelledCase['kind'], state: Record<string, unknown>, label: number | string | undefined) => {
  if (label !== undefined) cases.push({ kind, state, label });
};
const m = (text: string, time?: string, extra: Record<string, unknown> = {}) => ({ text, ...(time ? { time } : {}), ...extra });

const R = ['routing.semantic', 'routing.temporal', 'routing.causal', 'routing.entity', 'routing.multi_hop_need', 'routing.recency_importance'] as const;
const route = (query: string, l: [number, number, number, number, number, number]) => R.forEach((k, i) => add(k, { query }, l[i]));
route('What time does Bianca usually leave for the office?', [1, 1, 0, 1, 0, 0]);
route('Why has Gideon stopped answering his phone?', [1, 0, 1, 1, 0, 1]);
route('Would Noor like a book about ancient Egypt?', [1, 0, 0, 1, 1, 0]);
route('What did the doctor recommend for my back pain?', [1, 0, 0, 0, 0, 0]);
route('Which instrument did Viktor learn after the guitar?', [1, 1, 0, 1, 1, 0]);
route('What is Ayla working on at the moment?', [1, 0, 0, 1, 0, 1]);
route('How did losing the contract change the studio?', [1, 0, 1, 0, 1, 0]);
route('What do Pablo and Ines have in common?', [1, 0, 0, 1, 1, 0]);
route('When was the last time we went camping?', [1, 1, 0, 0, 0, 1]);
route('Who did Selma travel to Iceland with?', [1, 0, 0, 1, 0, 0]);
route('What is the capital of the region where Tomasz grew up?', [1, 0, 0, 1, 1, 0]);
route('How long did the roof repair take?', [1, 1, 0, 0, 0, 0]);
route('What prompted Wen to learn sign language?', [1, 0, 1, 1, 0, 0]);
route('Where did I park the car this morning?', [1, 1, 0, 0, 0, 1]);
route('What sort of gifts might Dmitri appreciate?', [1, 0, 0, 1, 1, 0]);
route('What colour is the new sofa?', [1, 0, 0, 0, 0, 1]);
route('Did Kwame finish the novel before his exams started?', [1, 1, 0, 1, 0, 0]);
route('What happened because the bridge was closed?', [1, 0, 1, 0, 1, 0]);
route('Which friends came to the barbecue on Sunday?', [1, 1, 0, 0, 1, 0]);
route('Is Harriet still vegetarian?', [1, 0, 0, 1, 0, 1]);

const T = ['typing.episodic', 'typing.semantic', 'typing.procedural', 'typing.preference'] as const;
const typ = (observation: string, l: [number, number, number, number]) => T.forEach((k, i) => add(k, { observation }, l[i]));
typ('On Wednesday evening Bianca and I cooked paella for the neighbours.', [1, 0, 0, 0]);
typ('Gideon is a firefighter and has twin sons.', [0, 1, 0, 0]);
typ('To descale the kettle, fill it with vinegar, boil it, and rinse it twice.', [0, 0, 1, 0]);
typ('Noor adores old black-and-white films.', [0, 0, 0, 1]);
typ('The meeting with the landlord went badly yesterday.', [1, 0, 0, 0]);
typ('Honey never spoils if it is sealed.', [0, 1, 0, 0]);
typ('I’d much rather cycle than drive in the city.', [0, 0, 0, 1]);
typ('Press and hold the power button, then select safe mode from the menu.', [0, 0, 1, 0]);
typ('Last month Viktor played his first gig at a bar in Riga.', [1, 0, 0, 0]);
typ('Ayla’s flat has a balcony facing the river.', [0, 1, 0, 0]);
typ('I really dislike crowded beaches.', [0, 0, 0, 1]);
typ('We got lost in the forest for an hour before finding the trail.', [1, 0, 0, 0]);
typ('Always store the batteries in a cool, dry place.', [0, 0, 1, 0]);
typ('Pablo teaches chemistry at the local secondary school.', [0, 1, 0, 0]);
typ('My favourite season is autumn because of the colours.', [0, 0, 0, 1]);

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
rel(m('Wen missed the ferry because her alarm did not go off.', '2024-04-03T09:00:00Z'), m('Wen’s phone alarm failed to ring this morning.', '2024-04-03T07:30:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 1, order: 'after' });
rel(m('The bakery raised its prices.', '2024-02-01T09:00:00Z'), m('Fewer customers came to the bakery in February.', '2024-02-28T09:00:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 0, order: 'before' });
rel(m('Selma packed her hiking boots.', '2024-07-10T08:00:00Z'), m('Selma’s flight to Reykjavik left at noon.', '2024-07-10T12:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Kwame is reading a novel about sailors.', '2024-03-01T09:00:00Z'), m('The dentist moved my appointment to Thursday.', '2024-03-01T10:00:00Z'),
  { semantic: 0, causes: 0, caused_by: 0, same_episode: 0, alias: 0, order: 'before' });
rel(m('Becky called to say the party is cancelled.'), m('Rebecca’s birthday party was supposed to be at the boathouse.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1 });
rel(m('We landed in LA after a long flight.'), m('Los Angeles was hot and smoggy when we arrived.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1 });
rel(m('The road was icy, so Harriet drove very slowly.', '2024-01-12T08:00:00Z'), m('Harriet arrived at work forty minutes late.', '2024-01-12T09:40:00Z'),
  { semantic: 1, causes: 1, caused_by: 0, same_episode: 1, order: 'before' });
rel(m('Gideon’s team won the charity quiz.', '2024-05-05T21:00:00Z'), m('Gideon bought new running shoes.', '2024-04-02T12:00:00Z'),
  { semantic: 0, causes: 0, caused_by: 0, same_episode: 0, order: 'after' });
rel(m('The festival lasted all weekend.', undefined, { start: '2024-08-10T10:00:00Z', end: '2024-08-11T23:00:00Z' }),
  m('The headline band played on Saturday night.', undefined, { start: '2024-08-10T21:00:00Z', end: '2024-08-10T23:00:00Z' }),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'contains' });
rel(m('Tomasz got a scholarship to study in Krakow.', '2024-06-20T10:00:00Z'), m('Tomasz received top marks in his final exams.', '2024-06-01T10:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 0, order: 'after' });
rel(m('Dima fixed the leaking sink.'), m('Dmitri replaced the washer under the kitchen tap.'),
  { semantic: 1, causes: 0, caused_by: 0, alias: 1 });
rel(m('The concert started at eight.', '2024-09-01T20:00:00Z'), m('The concert started at eight.', '2024-09-01T20:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 0, same_episode: 1, order: 'same_time' });
rel(m('I planted sunflowers along the fence.'), m('My cousin is moving to Toronto next year.'),
  { semantic: 0, causes: 0, caused_by: 0, alias: 0, order: 'unknown' });
rel(m('Because the printer jammed, Noor handed in her essay late.', '2024-11-05T12:00:00Z'), m('The library printer jammed again.', '2024-11-05T10:00:00Z'),
  { semantic: 1, causes: 0, caused_by: 1, same_episode: 1, order: 'after' });

interface ConLabels { redundant: number; contradiction: number; obsolete: number; link: number; rep: string }
const con = (new_memory: unknown, candidate: unknown, l: ConLabels) => {
  const state = { new_memory, candidates: [candidate] };
  add('consolidation.redundant', state, l.redundant);
  add('consolidation.contradiction', state, l.contradiction);
  add('consolidation.obsolete', state, l.obsolete);
  add('consolidation.link', state, l.link);
  add('consolidation.representation', state, l.rep);
};
con(m('Pablo teaches chemistry.'), m('Pablo is a chemistry teacher.'), { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('Pablo now teaches physics.', '2024-09-01T10:00:00Z'), m('Pablo teaches chemistry.', '2023-09-01T10:00:00Z'), { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('Ayla owns a bike.'), m('Ayla does not own a bike.'), { redundant: 0, contradiction: 1, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('We went bowling on Friday.'), m('We went bowling again last Friday.'), { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'promote' });
con(m('Noor likes jazz.'), m('The car needs new tyres.'), { redundant: 0, contradiction: 0, obsolete: 0, link: 0, rep: 'keep_separate' });
con(m('Harriet became vegetarian this year.', '2024-03-01T10:00:00Z'), m('Harriet’s favourite dish is beef stew.', '2022-03-01T10:00:00Z'), { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });
con(m('The shop closes at 6 pm.'), m('The shop closes at 6 pm.'), { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('Viktor plays the guitar.'), m('Viktor bought a new guitar amplifier.'), { redundant: 0, contradiction: 0, obsolete: 0, link: 1, rep: 'keep_separate' });
con(m('I love hot chocolate.'), m('I adore hot chocolate.'), { redundant: 1, contradiction: 0, obsolete: 0, link: 0, rep: 'merge' });
con(m('Selma lives in Oslo.', '2024-06-01T10:00:00Z'), m('Selma lives in Bergen.', '2022-06-01T10:00:00Z'), { redundant: 0, contradiction: 1, obsolete: 1, link: 1, rep: 'keep_separate' });

interface ScLabels { relevance: number; usefulness?: number; newInfo: number; supports: number }
const sc = (query: string, candidate: unknown, evidence: unknown[], l: ScLabels) => {
  const state = { query, candidates: [candidate], evidence };
  add('scoring.relevance', state, l.relevance);
  add('scoring.relation_usefulness', state, l.usefulness);
  add('scoring.new_information', state, l.newInfo);
  add('scoring.supports_current_evidence', state, l.supports);
};
sc('Who did Selma travel to Iceland with?', m('Selma went to Iceland with her friend Maren.', undefined, { relation: 'entity' }), ['Selma flew to Reykjavik in July.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Who did Selma travel to Iceland with?', m('Selma is allergic to cats.', undefined, { relation: 'entity' }), ['Selma flew to Reykjavik in July.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('Why has Gideon stopped answering his phone?', m('Gideon dropped his phone in the lake last week, so it no longer works.', undefined, { relation: 'causal' }), ['Gideon has not replied to messages for days.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('Why has Gideon stopped answering his phone?', m('Gideon has not replied to messages for days.', undefined, { relation: 'semantic' }), ['Gideon has not replied to messages for days.'], { relevance: 1, usefulness: 0, newInfo: 0, supports: 1 });
sc('How long did the roof repair take?', m('The roofers started on Monday and finished the following Thursday.', undefined, { relation: 'temporal' }), ['The roof was repaired in October.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('How long did the roof repair take?', m('The garden shed needs painting.', undefined, { relation: 'semantic' }), ['The roof was repaired in October.'], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('What colour is the new sofa?', m('The new sofa we bought is dark green velvet.', '2024-05-01T10:00:00Z', { relation: 'semantic' }), [], { relevance: 1, usefulness: 1, newInfo: 1, supports: 0 });
sc('What colour is the new sofa?', m('The old sofa was donated to a charity shop.', '2024-04-01T10:00:00Z', { relation: 'temporal' }), [], { relevance: 0, usefulness: 0, newInfo: 0, supports: 0 });
sc('What prompted Wen to learn sign language?', m('Wen’s nephew was born deaf, which is why she started learning sign language.', undefined, { relation: 'causal' }), ['Wen takes a sign language class on Tuesdays.'], { relevance: 1, usefulness: 1, newInfo: 1, supports: 1 });
sc('What prompted Wen to learn sign language?', m('Wen takes a sign language class on Tuesdays.', undefined, { relation: 'temporal' }), ['Wen takes a sign language class on Tuesdays.'], { relevance: 1, usefulness: 0, newInfo: 0, supports: 1 });

interface StLabels { sufficient: number; cont: number; missing: number; contradiction: number }
const stop = (query: string, evidence: unknown[], depth: number, l: StLabels) => {
  const state = { query, evidence, depth };
  add('stopping.evidence_sufficient', state, l.sufficient);
  add('stopping.continue_useful', state, l.cont);
  add('stopping.missing_evidence', state, l.missing);
  add('stopping.contradiction', state, l.contradiction);
};
stop('Who did Selma travel to Iceland with?', ['Selma went to Iceland with her friend Maren.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('Who did Selma travel to Iceland with?', ['Selma flew to Reykjavik in July.'], 1, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('Why has Gideon stopped answering his phone?', ['Gideon dropped his phone in the lake, so it no longer works.'], 2, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('Why has Gideon stopped answering his phone?', [], 0, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('Is Harriet vegetarian?', ['Harriet is vegetarian.', 'Harriet is not vegetarian.'], 2, { sufficient: 0, cont: 1, missing: 0, contradiction: 1 });
stop('When did Viktor play his first gig?', ['Viktor played his first gig at a bar in Riga in March 2023.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('When did Viktor play his first gig?', ['Viktor plays the guitar and the bass.'], 3, { sufficient: 0, cont: 1, missing: 1, contradiction: 0 });
stop('What colour is the new sofa?', ['The new sofa is dark green velvet.'], 1, { sufficient: 1, cont: 0, missing: 0, contradiction: 0 });
stop('What colour is the new sofa?', ['We bought a sofa in May.', 'The living room gets a lot of light.'], 8, { sufficient: 0, cont: 0, missing: 1, contradiction: 0 });
stop('Where does Selma live?', ['Selma lives in Oslo.', 'Selma lives in Bergen.'], 1, { sufficient: 0, cont: 1, missing: 0, contradiction: 1 });

export const holdout: readonly LabelledCase[] = cases;
