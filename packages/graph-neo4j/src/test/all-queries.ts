// Every query the store can send, built with hostile caller strings in every field (shared by the
// builder tests and the Cypher lint test).
import * as Q from '../queries.js';
import { HOSTILE, makeNode, makeRelation, scopeA } from './fixtures.js';

export const nodes = HOSTILE.map((t, i) => makeNode(`id-${i}-${t}`, t));

/** Every query a store method can send, built with hostile user strings everywhere. */
export function allQueries(): Q.CypherQuery[] {
  return [
    ...Q.buildSchemaQueries(100),
    Q.buildReadMetaQuery(),
    Q.buildInitMetaQuery({ schemaVersion: 1, embeddingModel: HOSTILE[1], dimension: 100 }),
    Q.buildUpsertNodesQuery(scopeA, nodes),
    Q.buildNodeUpdatesQuery(scopeA, [{ id: HOSTILE[1], obsoleteBy: HOSTILE[2] }]),
    ...Q.buildCreateRelationsQueries(scopeA, [
      makeRelation(HOSTILE[0], nodes[0].id, nodes[1].id, 'RELATED_TO'),
      makeRelation(HOSTILE[1], nodes[1].id, nodes[2].id, 'LEADS_TO'),
      makeRelation(HOSTILE[2], nodes[2].id, nodes[3].id, 'PRECEDES'),
      makeRelation(HOSTILE[3], nodes[3].id, nodes[4].id, 'SAME_ENTITY'),
    ]),
    ...Q.buildClearRelationsQueries(scopeA, [makeRelation(HOSTILE[0], nodes[0].id, nodes[1].id)]),
    Q.buildReserveSeqQuery(3),
    Q.buildAppendHistoryQuery(scopeA, [{ scope: scopeA, op: 'ADD', nodeId: HOSTILE[3], at: '2024-01-01T00:00:00Z', data: { t: HOSTILE[0] } }]),
    Q.buildForgetQuery(scopeA, HOSTILE[1]),
    Q.buildCountScopeForForgetQuery(scopeA),
    Q.buildForgetScopeQuery(scopeA, 10),
    Q.buildGetQuery(scopeA, HOSTILE[0]),
    Q.buildGetManyQuery(scopeA, HOSTILE),
    Q.buildListQuery(scopeA, { limit: 5, offset: 1, orderBy: 'createdAt', order: 'desc' }),
    Q.buildCountQuery(scopeA),
    Q.buildFindByContentHashQuery(scopeA, HOSTILE[4]),
    Q.buildVectorSearchExactQuery(scopeA, [1, 0, 0, 0], 3),
    Q.buildVectorSearchIndexQuery(scopeA, [1, 0, 0, 0], 3, 50),
    Q.buildLexicalSearchQuery(scopeA, Q.toLuceneQuery(HOSTILE.join(' '))!, 3),
    Q.buildNeighborsQuery(scopeA, HOSTILE, { views: ['semantic', 'causal'], subtypes: ['RELATED_TO'], direction: 'out', limit: 4 }),
    Q.buildNeighborsQuery(scopeA, HOSTILE, { direction: 'in' }),
    Q.buildNeighborsQuery(scopeA, HOSTILE),
    Q.buildRelationsQuery(scopeA, { nodeId: HOSTILE[2], limit: 3 }),
    Q.buildHistoryQuery(scopeA, { nodeId: HOSTILE[2], limit: 3 }),
    Q.buildScopesQuery(),
    Q.buildSaveStateQuery(scopeA, HOSTILE[2], HOSTILE[3]),
    Q.buildDeleteStateQuery(scopeA, HOSTILE[2]),
    Q.buildDropScopeStateQuery(scopeA),
    Q.buildLoadStateQuery(scopeA, HOSTILE[4]),
  ];
}

