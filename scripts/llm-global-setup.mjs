/**
 * Vitest global setup of the integration tier (vitest.integration.config.mjs): starts the local LLM
 * server (scripts/llm-server.mjs: llama.cpp + SmolLM2 on 127.0.0.1, free port) once for the run,
 * exports MEM_TEST_LLM_URL (OpenAI base URL, …/v1) and MEM_TEST_LLM_MODEL to the test workers, and
 * stops the server by its PID at the end.
 *
 * MEM_TEST_LLM_URL already set: that server is used and nothing is started. Server files missing:
 * the LLM tests skip with the reason, unless MEM_REQUIRE_MODELS=1 (CI), where this throws.
 */
import { serverFiles, startLlmServer } from './llm-server.mjs';

export default async function setup() {
  if (process.env.MEM_TEST_LLM_URL) return undefined;
  const { missing } = serverFiles();
  if (missing.length) {
    const why = `LLM server files missing (${missing.join(', ')}): run \`pnpm models:fetch\``;
    if (process.env.MEM_REQUIRE_MODELS === '1') throw new Error(why);
    process.env.MEM_TEST_LLM_SKIP = why;
    console.warn(`integration tier: LLM tests will be skipped — ${why}`);
    return undefined;
  }
  const t0 = Date.now();
  const server = await startLlmServer();
  console.log(`integration tier: llama.cpp server (SmolLM2-135M-Instruct Q4_1) pid ${server.pid} at ${server.baseURL}, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s; log ${server.logFile}`);
  process.env.MEM_TEST_LLM_URL = server.baseURL;
  process.env.MEM_TEST_LLM_MODEL = server.model;
  return async () => {
    await server.stop();
    console.log(`integration tier: llama.cpp server pid ${server.pid} stopped`);
  };
}
