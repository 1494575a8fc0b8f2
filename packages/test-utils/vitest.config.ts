import { memVitestConfig } from '../../vitest.shared.mjs';

export default memVitestConfig();
