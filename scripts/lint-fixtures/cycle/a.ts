// Planted import cycle (a.ts ⇄ b.ts) for scripts/lint-selftest.mjs: lint must report it. Never imported.
import { b } from './b.js';
export const a = (): number => b() + 1;
