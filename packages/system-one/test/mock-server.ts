import { afterEach } from 'vitest';
import { startOpenAICompatibleServer, type MockOpenAIServer } from '../src/testing/index.js';

/**
 * A loopback OpenAI-compatible server per test: call once at the top of a test file; `start` starts
 * one (as `startOpenAICompatibleServer`), and the one a test started is closed after it.
 */
export function mockServerPerTest(): { start: typeof startOpenAICompatibleServer } {
  let server: MockOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return { start: async (...args) => (server = await startOpenAICompatibleServer(...args)) };
}
