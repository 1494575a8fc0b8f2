import { memVitestConfig } from '../../vitest.shared';

export default memVitestConfig();
