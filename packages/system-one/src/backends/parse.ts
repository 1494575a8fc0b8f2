/**
 * Lenient JSON parsing of model replies (ours): strips code fences and surrounding prose, accepts
 * single quotes, trailing commas, unquoted keys and Python literals, then returns the parsed value.
 * Validation against the question happens afterwards (`normalizeAnswer`).
 */
import { SystemOneError } from '../errors.js';

function firstBalanced(text: string): string | undefined {
  const start = text.search(/[{[]/);
  if (start < 0) return undefined;
  const open = text[start];
  const close = open === '{' ? '}' : ']';
  let depth = 0;
  let inStr: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === inStr) inStr = null;
      continue;
    }
    if (c === '"' || c === "'") inStr = c;
    else if (c === open) depth++;
    else if (c === close && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

function repair(s: string): string {
  return s
    .replace(/'((?:[^'\\]|\\.)*)'/g, (_m, inner: string) => JSON.stringify(inner.replace(/\\'/g, "'")))
    .replace(/([{,]\s*)([A-Za-z_][\w-]*)\s*:/g, '$1"$2":')
    .replace(/,\s*([}\]])/g, '$1')
    .replace(/\bTrue\b/g, 'true')
    .replace(/\bFalse\b/g, 'false')
    .replace(/\bNone\b/g, 'null');
}

/**
 * Parse a model's text reply into a JSON value.
 * @throws SystemOneError('INVALID_ANSWER') when nothing JSON-like can be recovered.
 */
export function parseLenientJson(text: string): unknown {
  let t = text.trim();
  const fence = /```(?:json|JSON)?\s*([\s\S]*?)```/.exec(t);
  if (fence) t = fence[1].trim();
  const tries: string[] = [t];
  const block = firstBalanced(t);
  if (block && block !== t) tries.push(block);
  for (const c of [...tries]) tries.push(repair(c));
  for (const c of tries) {
    try {
      return JSON.parse(c);
    } catch {
      /* next */
    }
  }
  const bare = t.replace(/^["'\s]+|["'.\s]+$/g, '');
  if (/^(true|false)$/i.test(bare)) return bare.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?$/.test(bare)) return Number(bare);
  throw new SystemOneError('INVALID_ANSWER', `reply is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
}
