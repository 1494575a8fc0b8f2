import { describe, expect, it } from 'vitest';
import { createBuildLog } from './build-log.js';

describe('createBuildLog', () => {
  it('prints the shared build once per conversation and names the systems sharing it', () => {
    const lines: string[] = [];
    const b = createBuildLog((l) => lines.push(l));
    for (const conversation of [0, 1]) {
      const shared = 12.345 + conversation;
      for (const system of ['jev', 'bm25', 'dense']) {
        b.build({ system, conversation, observations: 400 });
        b.built({ system, conversation, seconds: shared });
      }
      b.build({ system: 'mem0', conversation, observations: 400 });
      b.built({ system: 'mem0', conversation, seconds: 3.21 });
    }
    b.flush();
    expect(lines).toEqual([
      'conversation 0: building memory from 400 observations…',
      'conversation 0: built in 12.3 s',
      'conversation 0 · mem0: built its own memory from 400 observations in 3.2 s',
      'conversation 0: jev, bm25, dense share the memory built in 12.3 s (built once)',
      'conversation 1: building memory from 400 observations…',
      'conversation 1: built in 13.3 s',
      'conversation 1 · mem0: built its own memory from 400 observations in 3.2 s',
      'conversation 1: jev, bm25, dense share the memory built in 13.3 s (built once)',
    ]);
  });

  it('prints no "share" line for a single system', () => {
    const lines: string[] = [];
    const b = createBuildLog((l) => lines.push(l));
    b.build({ system: 'jev', conversation: 3, observations: 10 });
    b.built({ system: 'jev', conversation: 3, seconds: 1 });
    b.flush();
    expect(lines).toEqual(['conversation 3: building memory from 10 observations…', 'conversation 3: built in 1.0 s']);
  });
});
