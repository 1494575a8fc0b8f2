/**
 * The current-state set of `bench:state` (ours, issue 37; written for this project, no dataset text):
 * small memories where one fact changes. Each scenario: an earlier statement, a later one that changes
 * it (an update of the value, or a contradiction of the earlier claim), two compatible statements
 * about the same person (both stay true: hard negatives), a question about the present (asked with and
 * without "now") and one about the earlier state. Never used for training or tuning anything.
 */

export type AttributeKind = 'residence' | 'job' | 'relationship' | 'preference' | 'habit' | 'possession' | 'plan' | 'opinion';

export interface StateScenario {
  kind: AttributeKind;
  change: 'update' | 'contradiction';
  speaker: string;
  older: string;
  newer: string;
  /** Statements that stay true beside both (same person, same topic area). */
  compatible: [string, string];
  /** About the present (the word "now" is added by the bench for the second variant). */
  present: string;
  /** About the earlier state. */
  past: string;
}

export const STATE_SCENARIOS: StateScenario[] = [
  {
    kind: 'residence', change: 'update', speaker: 'Jonas',
    older: 'I live in Oslo, in a small flat near the fjord.',
    newer: 'I moved to Bergen last month and I live there now.',
    compatible: ['My dog loves the harbour walks.', 'I grew up on a farm outside Trondheim.'],
    present: 'Where does Jonas live?', past: 'Where did Jonas live before he moved?',
  },
  {
    kind: 'residence', change: 'update', speaker: 'Ines',
    older: 'Our home is a rented apartment in Lisbon.',
    newer: 'We bought a house in Porto and left Lisbon for good.',
    compatible: ['My brother still visits Lisbon every summer.', 'I work remotely for a design studio.'],
    present: 'Where is Ines living?', past: 'Where did Ines use to live?',
  },
  {
    kind: 'residence', change: 'contradiction', speaker: 'Arjun',
    older: 'I have lived in Pune my whole life.',
    newer: 'Actually I never lived in Pune, I only studied there; home has always been Nagpur.',
    compatible: ['I travel to Mumbai for work twice a month.', 'My parents run a bakery.'],
    present: 'Which city is Arjun from?', past: 'What did Arjun originally say about where he lived?',
  },
  {
    kind: 'job', change: 'update', speaker: 'Jonas',
    older: 'I work at the bank as a loan officer.',
    newer: 'I quit the bank and became a data engineer at a startup.',
    compatible: ['I take the train to work every morning.', 'I studied economics at university.'],
    present: 'What does Jonas do for a living?', past: 'What was Jonas\'s job before?',
  },
  {
    kind: 'job', change: 'update', speaker: 'Mira',
    older: 'I teach maths at the secondary school in town.',
    newer: 'I left teaching and I now work as a software tester.',
    compatible: ['I coach the girls\' football team on Saturdays.', 'My classroom had a view of the river.'],
    present: 'What is Mira\'s job?', past: 'What did Mira do for work originally?',
  },
  {
    kind: 'job', change: 'contradiction', speaker: 'Kofi',
    older: 'I am a nurse at the children\'s hospital.',
    newer: 'I was never a nurse, I work at the hospital as a cleaner.',
    compatible: ['The hospital is a short bus ride from my home.', 'I like the night shifts.'],
    present: 'What does Kofi do at the hospital?', past: 'What job did Kofi first claim to have?',
  },
  {
    kind: 'relationship', change: 'update', speaker: 'Lena',
    older: 'My boyfriend Marco and I have been together for three years.',
    newer: 'Marco and I broke up, and I am seeing Tobias now.',
    compatible: ['My best friend is called Sara.', 'I met Marco at a climbing gym.'],
    present: 'Who is Lena dating?', past: 'Who was Lena\'s partner before?',
  },
  {
    kind: 'relationship', change: 'update', speaker: 'Omar',
    older: 'I am single and not looking for anyone.',
    newer: 'I got engaged to Yasmin in the spring.',
    compatible: ['My sister lives in Cairo.', 'I have two nephews.'],
    present: 'Is Omar in a relationship?', past: 'Was Omar single back then?',
  },
  {
    kind: 'relationship', change: 'contradiction', speaker: 'Hana',
    older: 'My husband Kenji is a pilot.',
    newer: 'I am not married, Kenji is my cousin.',
    compatible: ['Kenji flies to Singapore a lot.', 'My mother lives with us.'],
    present: 'Who is Kenji to Hana?', past: 'What did Hana originally say Kenji was?',
  },
  {
    kind: 'preference', change: 'update', speaker: 'Jonas',
    older: 'I love spicy food, the hotter the better.',
    newer: 'I have stopped eating spicy food, these days I prefer mild dishes.',
    compatible: ['I cook dinner for my family on Sundays.', 'My favourite restaurant is by the harbour.'],
    present: 'What kind of food does Jonas like?', past: 'What food did Jonas use to like?',
  },
  {
    kind: 'preference', change: 'update', speaker: 'Priya',
    older: 'My favourite football player is Haaland.',
    newer: 'My favourite player is Odegaard, I went off Haaland.',
    compatible: ['I watch every match with my dad.', 'I play in a Sunday league team.'],
    present: 'Who is Priya\'s favourite player?', past: 'Who was Priya\'s favourite player before?',
  },
  {
    kind: 'preference', change: 'contradiction', speaker: 'Tomas',
    older: 'I really enjoy jazz, it is my favourite music.',
    newer: 'I have never liked jazz, I can\'t stand it.',
    compatible: ['I play the piano a little.', 'I go to concerts with my sister.'],
    present: 'Does Tomas like jazz?', past: 'What did Tomas say about jazz at first?',
  },
  {
    kind: 'habit', change: 'update', speaker: 'Sofia',
    older: 'I drive to work every day.',
    newer: 'I sold the car and I cycle to work now.',
    compatible: ['My office is in the old harbour district.', 'I start work at eight.'],
    present: 'How does Sofia get to work?', past: 'How did Sofia get to work before?',
  },
  {
    kind: 'habit', change: 'update', speaker: 'Dmitri',
    older: 'I drink three cups of black coffee every morning.',
    newer: 'I gave up coffee, I only drink green tea in the mornings.',
    compatible: ['I wake up at six for a run.', 'Breakfast is usually oatmeal.'],
    present: 'What does Dmitri drink in the morning?', past: 'What did Dmitri use to drink in the morning?',
  },
  {
    kind: 'habit', change: 'contradiction', speaker: 'Ana',
    older: 'I go swimming every evening after work.',
    newer: 'I don\'t swim at all, I am afraid of water.',
    compatible: ['I finish work at five.', 'I walk my neighbour\'s dog sometimes.'],
    present: 'Does Ana swim?', past: 'What did Ana say she did every evening before?',
  },
  {
    kind: 'possession', change: 'update', speaker: 'Kenji',
    older: 'I drive an old red Volvo.',
    newer: 'I sold the Volvo and bought an electric Kia.',
    compatible: ['I park in the garage under my building.', 'My brother taught me to drive.'],
    present: 'What car does Kenji drive?', past: 'What car did Kenji have before?',
  },
  {
    kind: 'possession', change: 'update', speaker: 'Maya',
    older: 'We have a grey cat called Pixel.',
    newer: 'Pixel died in the winter, and we adopted a puppy named Biscuit.',
    compatible: ['Our flat has a small balcony.', 'My son feeds the pets every morning.'],
    present: 'What pet does Maya have?', past: 'What pet did Maya have originally?',
  },
  {
    kind: 'possession', change: 'contradiction', speaker: 'Leo',
    older: 'I own a sailing boat on the lake.',
    newer: 'The boat was never mine, it belongs to my uncle.',
    compatible: ['I sail on the lake most weekends.', 'My uncle taught me to sail.'],
    present: 'Who owns the sailing boat Leo uses?', past: 'What did Leo first say about the boat?',
  },
  {
    kind: 'plan', change: 'update', speaker: 'Priya',
    older: 'We are going to Japan for our summer holiday.',
    newer: 'We cancelled Japan, this summer we are going to Portugal instead.',
    compatible: ['I have two weeks off in August.', 'My husband booked the flights last year.'],
    present: 'Where is Priya going on holiday?', past: 'Where was Priya going to travel before the plans changed?',
  },
  {
    kind: 'plan', change: 'update', speaker: 'Tomas',
    older: 'I plan to study medicine next year.',
    newer: 'I changed my mind, I will study architecture instead of medicine.',
    compatible: ['I am taking a gap year to work in a cafe.', 'My mother is a doctor.'],
    present: 'What does Tomas plan to study?', past: 'What did Tomas originally plan to study?',
  },
  {
    kind: 'plan', change: 'contradiction', speaker: 'Lena',
    older: 'The wedding is planned for June.',
    newer: 'There is no wedding in June, we never set a date.',
    compatible: ['We want a small party with close friends.', 'My sister offered to bake the cake.'],
    present: 'When is Lena\'s wedding?', past: 'When did Lena first say the wedding was?',
  },
  {
    kind: 'opinion', change: 'update', speaker: 'Omar',
    older: 'I think the new manager is great, very organised.',
    newer: 'I have changed my view, the new manager is chaotic and unfair.',
    compatible: ['The manager joined the team in March.', 'Our team has six people.'],
    present: 'What does Omar think of the new manager?', past: 'What did Omar think of the new manager then?',
  },
  {
    kind: 'opinion', change: 'update', speaker: 'Sofia',
    older: 'Remote work suits me perfectly.',
    newer: 'I am tired of remote work, I want to be back in the office.',
    compatible: ['My office is in the old harbour district.', 'I have a desk by the window at home.'],
    present: 'How does Sofia feel about remote work?', past: 'How did Sofia feel about remote work before?',
  },
  {
    kind: 'opinion', change: 'contradiction', speaker: 'Dmitri',
    older: 'The neighbourhood is quiet and safe.',
    newer: 'The neighbourhood is not quiet at all, there are break-ins every week.',
    compatible: ['I moved here two years ago.', 'There is a park behind my building.'],
    present: 'What is Dmitri\'s neighbourhood like?', past: 'What did Dmitri originally say about the neighbourhood?',
  },
];

/** The present question with the word "now" ("Where does Jonas live?" → "Where does Jonas live now?"). */
export function withNow(q: string): string {
  return q.replace(/\?\s*$/, ' now?');
}
