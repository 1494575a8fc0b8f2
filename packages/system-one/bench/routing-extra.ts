/**
 * Extra hand-labelled routing queries (ours; every query written for this file, none taken from a
 * benchmark), added to train the learned routing models (scripts/train-routing.ts): questions whose
 * reason is asked anywhere in the sentence ("…, and why?", "what was the reason …"), and questions
 * that mention a reason word without asking for one. Labels: [semantic, temporal, causal, entity,
 * multi_hop_need, recency_importance]. The paper's running example is NOT in this list (it is the
 * check the script prints).
 */
import type { LabelledCase } from './dataset.js';

const cases: LabelledCase[] = [];
const R = ['routing.semantic', 'routing.temporal', 'routing.causal', 'routing.entity', 'routing.multi_hop_need', 'routing.recency_importance'] as const;
const route = (query: string, l: [number, number, number, number, number, number]) => R.forEach((k, i) => cases.push({ kind: k, state: { query }, label: l[i] }));

route('Where did Tessa move last spring, and why?', [1, 1, 1, 1, 0, 0]);
route('Which laptop did Arjun return, and why did he return it?', [1, 0, 1, 1, 0, 0]);
route('When did Bruno sell his car, and for what reason?', [1, 1, 1, 1, 0, 0]);
route('What did Maeve cancel on Friday and why?', [1, 1, 1, 1, 0, 0]);
route('How did the flood affect the bakery?', [1, 0, 1, 0, 1, 0]);
route('What was the reason Hiro switched teams?', [1, 0, 1, 1, 0, 0]);
route('What led Olga to start running?', [1, 0, 1, 1, 0, 0]);
route('Did I skip the gym because of my knee?', [1, 0, 1, 0, 0, 0]);
route('What caused the delay in my deployment?', [1, 0, 1, 0, 0, 0]);
route('Why is my build failing now?', [1, 0, 1, 0, 0, 1]);
route('I changed the database schema; why did the tests break afterwards?', [1, 1, 1, 0, 1, 0]);
route('What made Ines so nervous before the interview?', [1, 1, 1, 1, 0, 0]);
route('Because of the storm, what did Karim do with the boat?', [1, 0, 1, 1, 0, 0]);
route('What happened to the garden as a result of the frost?', [1, 0, 1, 0, 1, 0]);
route('Who picked Lena up from the station?', [1, 0, 0, 1, 0, 0]);
route('What colour did I paint the kitchen?', [1, 0, 0, 0, 0, 0]);
route('When is my dentist appointment?', [1, 1, 0, 0, 0, 1]);
route('Which framework did I choose for the frontend?', [1, 0, 0, 0, 0, 0]);
route('How many people came to Zara’s birthday?', [1, 0, 0, 1, 0, 0]);
route('What is the current version of my API?', [1, 0, 0, 0, 0, 1]);
route('What does Theo do for a living?', [1, 0, 0, 1, 0, 0]);
route('Where did we have dinner on our anniversary?', [1, 1, 0, 0, 0, 0]);
route('What time did the meeting with the landlord start?', [1, 1, 0, 0, 0, 0]);
route('Which books has Amara read this year?', [1, 1, 0, 1, 1, 0]);

export const routingExtra: readonly LabelledCase[] = cases;
