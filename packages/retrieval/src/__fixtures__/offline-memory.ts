// The real stack with no service (tests only): an in-memory SQLite store, the wink embedder, the
// offline System One and the write path over them.
import { createMemory, createSqliteStore, createWinkEmbedder } from '@mem/core';
import { createOfflineBackend, createSystemOne } from '@mem/system-one';

export function offlineMemory() {
  const store = createSqliteStore({ path: ':memory:' });
  const embedder = createWinkEmbedder();
  const systemOne = createSystemOne({ backend: createOfflineBackend({ embed: (texts) => embedder.embed(texts) }) });
  const memory = createMemory({ store, embedder, systemOne });
  return { store, embedder, systemOne, memory };
}
