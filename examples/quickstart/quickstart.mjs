import { createMemory } from '@mem/core';
import { createJevRetriever } from '@mem/retrieval';

// Offline defaults: GloVe word vectors, SQLite in memory, the SAGE gate, the Jev read path.
const memory = createMemory({ retriever: (deps) => createJevRetriever(deps) });
const scope = { userId: 'mira' };

await memory.add([
  { text: 'My old bicycle broke on the way to work.', speaker: 'Mira', observedAt: '2024-05-14T08:00:00Z', scope },
  { text: 'I bought a new bicycle yesterday because my old one broke.', speaker: 'Mira', observedAt: '2024-05-16T10:00:00Z', scope },
  { text: 'I prefer tea over coffee.', speaker: 'Mira', observedAt: '2024-05-16T10:05:00Z', scope },
]);

const { evidence } = await memory.search('When did Mira buy a new bicycle?', { scope, k: 2 });
for (const { score, node } of evidence) {
  console.log(score.toFixed(2), node.text, '| happened:', node.eventTime?.start.slice(0, 10) ?? '-');
}
console.log('gate:', (await memory.stats()).gate);
await memory.close();
