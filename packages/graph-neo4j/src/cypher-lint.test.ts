// Every generated query is checked by Neo4j's own Cypher 5 parser and semantic analysis
// (@neo4j-cypher/language-support, the library behind Neo4j's editors): syntax, variable scoping,
// clause order. This needs no server; it does not check runtime behaviour (see the gated
// integration test for that).
import { describe, expect, it } from 'vitest';
import { isNotParamError, lintCypherQuery } from '@neo4j-cypher/language-support';
import { allQueries } from './test/all-queries.js';
import * as Q from './queries.js';
import { scopeA } from './test/fixtures.js';

/** Error-level diagnostics (severity 1) other than "parameter not defined" (parameters are bound at run time). */
function errors(cypher: string): string[] {
  const { diagnostics } = lintCypherQuery(`CYPHER 5 ${cypher}`, {});
  const text = (m: unknown) => (typeof m === 'string' ? m : String((m as { value?: unknown })?.value ?? m));
  return diagnostics.filter((d) => d.severity === 1 && isNotParamError({ message: text(d.message) })).map((d) => text(d.message));
}

describe('generated Cypher passes Neo4j\'s Cypher 5 parser and semantic analysis', () => {
  it('the linter rejects broken Cypher (so the check can fail)', () => {
    expect(errors('MATCH (n:Memory RETURN n')).not.toEqual([]);
    expect(errors('MATCH (n:Memory) WITH n.id AS id RETURN n')).not.toEqual([]); // n out of scope after WITH
  }, 60_000);

  it('every query the store builds', () => {
    const qs = [
      ...allQueries(),
      Q.buildAwaitIndexesQuery(60),
      Q.buildListQuery(scopeA),
      Q.buildHistoryQuery(scopeA),
      Q.buildRelationsQuery(scopeA),
      Q.buildNeighborsQuery(scopeA, ['a'], { direction: 'out', views: ['causal'] }),
    ];
    const seen = new Map<string, string[]>();
    for (const q of qs) {
      if (seen.has(q.cypher)) continue;
      seen.set(q.cypher, errors(q.cypher));
    }
    const bad = [...seen.entries()].filter(([, e]) => e.length > 0).map(([c, e]) => `${c}\n  → ${e.join('; ')}`);
    expect(bad).toEqual([]);
    expect(seen.size).toBeGreaterThan(30);
  }, 180_000);
});
