/**
 * `createTransformersEmbedder({ model })`: a hub model id is fetched by Transformers.js on the first
 * embed — here from a mirror on 127.0.0.1 serving a tiny ONNX model in the hub's URL layout
 * (`<model>/resolve/main/<file>`), so the download path runs without the real hub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTransformersEmbedder } from './transformers.js';
import { writeTinyBertFolder, type TinyModel } from './fixtures/tiny-onnx.js';
import { EmbedderError, MemValidationError } from '../errors.js';
import { expectMemError } from '@mem/test-utils';

describe('createTransformersEmbedder with a model id (hub mirror on loopback)', () => {
  let root: string;
  let tiny: TinyModel;
  let server: http.Server;
  let host: string;
  const requested: string[] = [];
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'mem-tfjs-hub-'));
    tiny = writeTinyBertFolder(path.join(root, 'served', 'acme', 'tiny-bert'), ['cat', 'dog', 'kitten']);
    server = http.createServer((req, res) => {
      const url = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      requested.push(url);
      const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(url);
      const file = m ? path.join(root, 'served', m[1]!, m[2]!) : '';
      if (!m || !existsSync(file) || !statSync(file).isFile()) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-length': statSync(file).size });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    host = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  it('downloads config, tokenizer and ONNX weights on the first embed and embeds like the local folder', async () => {
    const cacheDir = path.join(root, 'cache');
    const hub = createTransformersEmbedder({ model: 'acme/tiny-bert', dimension: 16, remoteHost: host, cacheDir });
    expect(hub.model).toBe('transformers:acme/tiny-bert:mean');
    expect(requested).toHaveLength(0); // nothing fetched before the first embed
    const [v] = await hub.embed(['cat dog']);
    expect(requested.some((u) => u.endsWith('/onnx/model.onnx'))).toBe(true);
    expect(requested.some((u) => u.endsWith('/config.json'))).toBe(true);
    const [w] = await createTransformersEmbedder({ modelPath: tiny.dir }).embed(['cat dog']);
    for (let d = 0; d < 16; d++) expect(v![d]).toBeCloseTo(w![d]!, 6);
  }, 60_000);

  it('a model id needs `dimension` (INVALID_INPUT); an unknown id fails at embed time with EMBEDDER_ERROR', async () => {
    await expectMemError(() => createTransformersEmbedder({ model: 'acme/tiny-bert' }), MemValidationError, 'INVALID_INPUT');
    const missing = createTransformersEmbedder({ model: 'acme/nope', dimension: 16, remoteHost: host, cacheDir: path.join(root, 'cache2') });
    await expectMemError(missing.embed(['cat']), EmbedderError, 'EMBEDDER_ERROR');
  }, 60_000);
});
