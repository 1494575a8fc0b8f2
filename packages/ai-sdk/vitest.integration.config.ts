// Integration tier (`pnpm test:integration`, run by .ci/run after `pnpm test`): `*.llm.test.ts`
// against llama.cpp + SmolLM2 (needs `pnpm models:fetch`; the global setup starts and stops the server).
import { memLlmVitestConfig } from '../../vitest.shared.mjs';

export default memLlmVitestConfig();
