import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appFile, appRoot } from './app-root.js';

describe('appRoot', () => {
  it('is the demo-agent package folder, where public/ and data/ live', () => {
    expect(appRoot()).toBe(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
    expect(JSON.parse(readFileSync(appFile('package.json'), 'utf8')).name).toBe('@mem/demo-agent');
    expect(existsSync(appFile('public', 'index.html'))).toBe(true);
    expect(existsSync(appFile('data', 'sample-conversation.json'))).toBe(true);
  });
});
