import { memTsupConfig } from '../../tsup.shared.mjs';

export default memTsupConfig(['src/index.ts']);
