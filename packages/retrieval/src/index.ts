/**
 * @mem/retrieval — Jev-Mem's closed-loop, budgeted, multi-relational read path (seed 000 §4) and the
 * flat BM25 / dense / hybrid baselines, all implementing `@mem/core`'s `Retriever`.
 */
export * from './equations.js';
export { bm25Term, buildLemmaIndex, contextLemmaIndex, createSnapshotCache, previousTurn, snapshotNeighbors, nodeTerms, type LemmaIndex, type ScopeSnapshot } from './lexical.js';
export * from './dialogue.js';
export { createJevRetriever, edgeDecay, JEV_DEFAULTS, validateRequest, type JevRetrieverOptions } from './jev.js';
export { createBm25Retriever, createDenseRetriever, createHybridRetriever } from './flat.js';
export { toContext, renderContext, excerpt, formatTime, formatDate, type ToContextOptions, type PackedContext } from './context.js';
export { probabilityOf, type SystemOneLike, type Question, type Answer } from './controller.js';
export type * from './types.js';
export { RELEVANCE_FEATURES, RELATIVE_FEATURES, RELEVANCE_MODEL_FEATURES, candidateSetStats, relativeFeatures, type CandidateSetStats, type RelativeFeature, createRelevanceFeaturizer, defaultRelevanceModel, relevanceModelFor, relevanceProbability, personShares, queryFirstPerson, speakerStats, rankFeature, turnNamesSpeaker, type RelevanceFeature, type CandidateView } from './relevance.js';
export { EXPANSION_FEATURES, EXPANSION_ON_BY_DEFAULT, defaultExpansionModel, expansionFeatures, expansionModelFor, sharedEntities, type ExpansionEdge, type ExpansionFeature } from './expansion.js';
export { LINK_FEATURES, LINK_GROUPS, LINKS_ON_BY_DEFAULT, defaultLinkModel, linkFeatures, linkGroupOf, linkModelFor, type LinkCandidate, type LinkFeature, type LinkGroup } from './links.js';
export { MANY_EVIDENCE, breadthFeatureRecord, breadthProbability, defaultBreadthModel, questionWords } from './breadth.js';
export { ANSWERABILITY_FEATURES, answerabilityFeatures, answerabilityProbability, defaultAnswerability, termSupport, type AnswerabilityFeature, type QuestionTerms, type RankedCandidate } from './answerable.js';
export { jointStateEvidence, orderByState, predecessorsOf, snapshotState, stateEdgeP, successorsOf, PAST_STATE_THRESHOLD, STATE_EDGE_MIN_P } from './state-order.js';
