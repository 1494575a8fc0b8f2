/**
 * What the CLI says when a command names a scope the store has no memory in (ours; break-it point
 * 3): a mistyped `--user alcie` read an empty scope and the hint did not say which scopes exist.
 * {@link unknownScopeNote} lists the store's scopes, closest to the one given first (Levenshtein
 * distance summed over namespace, user, agent and run; fastest-levenshtein), with the flags that
 * name each. Only the CLI uses it: it reads a local file the user can list anyway (`mem export
 * --all`); the HTTP and MCP servers never tell one client another scope's ids.
 */
import { distance } from 'fastest-levenshtein';
import { scopeKey, type MemoryStore, type ResolvedScope } from '@mem/core';
import { formatScope } from './output.js';

/** How many scopes a note names (the closest); the rest are counted. */
export const NOTE_SCOPES = 5;

const FIELDS = [
  ['namespace', '--namespace'],
  ['userId', '--user'],
  ['agentId', '--agent'],
  ['runId', '--run'],
] as const;

/** A shell word: as is when plain, else double-quoted with `"`, `\`, `$` and backquote escaped. */
function shellWord(v: string): string {
  return /^[\w.@:/+-]+$/u.test(v) ? v : `"${v.replace(/["\\$`]/g, '\\$&')}"`;
}

/** The flags that name `scope` on the command line, e.g. `--user alice --run r1` (namespace only when not "default"). */
export function scopeFlags(scope: ResolvedScope): string {
  return FIELDS.filter(([k]) => scope[k] && !(k === 'namespace' && scope[k] === 'default'))
    .map(([k, flag]) => `${flag} ${shellWord(scope[k])}`)
    .join(' ');
}

/** Edit distance between two scopes: the sum over the fields `given` names (all four for a resolved scope; ours). */
export function scopeDistance(given: Partial<ResolvedScope>, b: ResolvedScope): number {
  return FIELDS.reduce((d, [k]) => (given[k] === undefined ? d : d + distance(given[k], b[k] ?? '')), 0);
}

/** `known` ordered closest to `given` first (ties: by scope key), without `given` itself. */
export function closestScopes(given: Partial<ResolvedScope>, known: readonly ResolvedScope[]): ResolvedScope[] {
  const same = (s: ResolvedScope) => FIELDS.every(([k]) => given[k] === undefined || given[k] === s[k]);
  return known
    .filter((s) => !same(s))
    .map((s) => ({ s, d: scopeDistance(given, s), k: scopeKey(s) }))
    .sort((x, y) => x.d - y.d || (x.k < y.k ? -1 : x.k > y.k ? 1 : 0))
    .map((x) => x.s);
}

/**
 * The store's scopes closest to `given` first, as a clause: `the store's scopes, closest first, are:
 * user "alice" (--user alice), …` (at most NOTE_SCOPES named, the rest counted), or `the store holds
 * no memory in any scope`. `given` may name some fields only (a `mem export --user x` filter).
 */
export function knownScopesClause(given: Partial<ResolvedScope>, known: readonly ResolvedScope[]): string {
  const close = closestScopes(given, known);
  if (!close.length) return 'the store holds no memory in any scope';
  const shown = close.slice(0, NOTE_SCOPES).map((s) => `${formatScope(s)} (${scopeFlags(s)})`);
  const more = close.length > NOTE_SCOPES ? `, and ${close.length - NOTE_SCOPES} more (\`mem export --all\` lists every scope)` : '';
  return `the store's ${close.length === 1 ? 'scope is' : 'scopes, closest first, are'}: ${shown.join(', ')}${more}`;
}

/**
 * One sentence for a scope that holds no memory in `store`, or null when it holds one, e.g.
 * `nothing is stored under user "alcie"; the store's scope is: user "alice" (--user alice)`.
 * Reads `store.scopes()` (the scopes holding a memory).
 */
export async function unknownScopeNote(store: MemoryStore, given: ResolvedScope): Promise<string | null> {
  const known = await store.scopes();
  if (known.some((s) => scopeKey(s) === scopeKey(given))) return null;
  return `nothing is stored under ${formatScope(given)}; ${knownScopesClause(given, known)}`;
}
