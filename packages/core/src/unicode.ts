/**
 * Unicode checks shared by validation (src/write) and the embedding cache (src/embed) (ours); a leaf
 * module, so neither folder imports the other for it.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string has no lone UTF-16 surrogate (String#isWellFormed, ES2024). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
