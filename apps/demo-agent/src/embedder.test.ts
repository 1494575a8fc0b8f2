import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEmbedderFor, resolveEmbedderKind } from './embedder.js';
import { MemValidationError, ModelNotFoundError } from '@mem/core';
import { expectMemError } from '@mem/test-utils';

describe('embedder selection', () => {
  it('option > MEM_EMBEDDER > glove; unknown names are INVALID_INPUT', async () => {
    expect(resolveEmbedderKind(undefined, {})).toBe('glove');
    expect(resolveEmbedderKind(undefined, { MEM_EMBEDDER: 'MiniLM' })).toBe('minilm');
    expect(resolveEmbedderKind('openai', { MEM_EMBEDDER: 'minilm' })).toBe('openai');
    await expectMemError(() => resolveEmbedderKind('bert', {}), MemValidationError, 'INVALID_INPUT');
  });

  it('minilm without its folder names `pnpm models:fetch`; openai without MEM_EMBED_* says what is missing', async () => {
    expect((await expectMemError(() => createEmbedderFor('minilm', { MEM_MODELS_DIR: '/nonexistent/mem-models' }), ModelNotFoundError, 'MODEL_NOT_FOUND')).message).toContain('pnpm models:fetch');
    expect((await expectMemError(() => createEmbedderFor('openai', { MEM_LLM_BASE_URL: 'http://127.0.0.1:9/v1' }), MemValidationError, 'INVALID_INPUT')).message).toContain('MEM_EMBED_MODEL');
    const e = createEmbedderFor('openai', { MEM_EMBED_MODEL: 'm', MEM_EMBED_DIMENSION: '8', MEM_LLM_BASE_URL: 'http://127.0.0.1:9/v1', MEM_LLM_API_KEY: 'k' });
    expect(e.dimension).toBe(8);
    expect(createEmbedderFor('glove', {}).dimension).toBe(100);
  });

  it('MEM_EMBED_CACHE_DIR puts a disk cache in front of the embedder (same model and vectors; a second embedder reads the file)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mem-embcache-cli-'));
    try {
      const plain = createEmbedderFor('glove', {});
      const cached = createEmbedderFor('glove', { MEM_EMBED_CACHE_DIR: dir }) as ReturnType<typeof createEmbedderFor> & { stats(): { hits: number; misses: number } };
      expect(cached.model).toBe(plain.model);
      const [want] = await plain.embed(['the cat sat on the mat']);
      const [got] = await cached.embed(['the cat sat on the mat']);
      expect(Array.from(got!)).toEqual(Array.from(want!));
      expect(cached.stats()).toMatchObject({ hits: 0, misses: 1 });
      const again = createEmbedderFor('glove', { MEM_EMBED_CACHE_DIR: dir }) as typeof cached;
      await again.embed(['the cat sat on the mat']);
      expect(again.stats()).toMatchObject({ hits: 1, misses: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
