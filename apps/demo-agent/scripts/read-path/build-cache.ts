/**
 * Build the cached memories of the read-path corpus (see corpus.ts):
 *   npx tsx --conditions=@mem/source apps/demo-agent/scripts/read-path/build-cache.ts \
 *     --locomo ../shared/data/locomo/locomo10-dev.json --beam ../shared/data/beam/500K --cache /tmp/mem-read-path
 *
 * `--split train|held` builds only that half (default: all).
 */
import { parseArgs } from 'node:util';
import { createEmbedderFor, resolveEmbedderKind } from '../../src/embedder.js';
import { createEvalSystemOne } from '../../src/eval/systems/mem.js';
import { loadCorpus, memoryOf, type Dataset } from './corpus.js';

const { values } = parseArgs({ options: { embedder: { type: 'string' }, locomo: { type: 'string' }, beam: { type: 'string' }, cache: { type: 'string' }, datasets: { type: 'string' }, split: { type: 'string', default: 'all' } } });
// --embedder glove|minilm|openai (else MEM_EMBEDDER, else glove; MEM_EMBED_CACHE_DIR caches vectors): the
// cache folder holds one embedder's memories (opening it with another embedder is refused).
const embedder = createEmbedderFor(resolveEmbedderKind(values.embedder));
const corpus = loadCorpus({ locomo: values.locomo, beam: values.beam, datasets: values.datasets?.split(',') as Dataset[] | undefined }).filter((c) => values.split === 'all' || c.split === values.split);
for (const conv of corpus) {
  const m = await memoryOf(conv, values.cache!, embedder, createEvalSystemOne(embedder));
  await m.close();
}
