/**
 * The character rules of scope and id strings (ours), shared by the gate service
 * (`@mem/gate-service`) and `@mem/core`'s scopes, so a key means the same everywhere.
 */

/**
 * Characters that show nothing on their own: whitespace, format characters (Cf: zero-width space,
 * joiners, BOM, bidi controls, soft hyphen), other default-ignorable code points (variation
 * selectors, Hangul fillers) and the blank braille pattern U+2800.
 */
const INVISIBLE_RE = /[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/gu;

/** True when `v` is empty once every invisible character is removed (ours). */
function isBlank(v: string): boolean {
  return v.replace(INVISIBLE_RE, '') === '';
}

/**
 * The character rules every scope value obeys (ours), for services that take opaque scope or id
 * strings (the gate service): what is wrong with `v` — control characters (U+0000–U+001F, U+007F),
 * or nothing but whitespace and invisible characters (zero-width, format, default-ignorable) — or
 * null when it is fine. Length and `|` are not checked here (core's resolveScope checks them for scope fields).
 */
export function scopeValueProblem(v: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(v)) return 'must not contain control characters';
  if (isBlank(v)) return 'must not be only whitespace or invisible characters (zero-width, format)';
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** True when the string has no lone UTF-16 surrogate (String#isWellFormed, ES2024). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
