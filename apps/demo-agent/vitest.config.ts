import { memVitestConfig } from '../../vitest.shared';

export default memVitestConfig({ testTimeout: 120_000 });
