// Planted import cycle (b.ts ⇄ a.ts) for scripts/lint-selftest.mjs: lint must report it. Never imported.
import { a } from './a.js';
export const b = (): number => (a.length > 0 ? 0 : 1);
