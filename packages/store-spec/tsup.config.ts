import { memTsupConfig } from '../../tsup.shared.mjs';

// the conformance suite's error check comes from the private @mem/test-utils: bundled, never a dependency
export default memTsupConfig(['src/index.ts', 'src/testing/index.ts'], { noExternal: ['@mem/test-utils'] });
