import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const readme = join(here, '..', '..', 'README.md');

describe('README', () => {
  it('starts with a runnable createMemory example using the offline defaults', async () => {
    const text = readFileSync(readme, 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
    expect(block).toContain('createMemory(');
    // run it against the sources (the example imports the published entry point '@mem/core')
    const file = join(here, `.readme-example-${process.pid}.ts`);
    const logs: unknown[][] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void logs.push(args);
    try {
      writeFileSync(file, block!.replaceAll("from '@mem/core'", "from '../index.js'"));
      await import(file);
    } finally {
      console.log = log;
      rmSync(file, { force: true });
    }
    expect(logs.length).toBeGreaterThan(0);
  }, 60_000);
});
