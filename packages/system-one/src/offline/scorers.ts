/**
 * Offline scorers (ours): one documented heuristic per catalogue kind. Inputs are the question's
 * resolved `{{path}}` references; outputs are a probability (Noul) or a label distribution (Choice).
 * They use cue lexicons, entity and keyword overlap, time arithmetic over ISO times, and a similarity
 * that prefers precomputed `cosine` fields, then injected embeddings, then lexical overlap.
 * The numbers (weights, offsets) are hand-set, not fitted; see the package README for measured accuracy.
 */
import type { ResolvedRef } from '../schema.js';
import { scNewInformation, scRelationUsefulness, scRelevance, scSupports } from './candidate-scoring.js';
import { conContradiction, conLink, conObsolete, conRedundant, conRepresentation } from './consolidation.js';
import { type Scorer, toItems } from './inputs.js';
import { relCausedBy, relCauses, relEntityAlias, relSameEpisode, relSemantic, relTemporalOrder } from './relations.js';
import { route } from './routing.js';
import { stateChange } from './state-model.js';
import { stContinue, stContradiction, stEvidenceSufficient, stMissing } from './stopping.js';
import { typingEpisodic, typingPreference, typingProcedural, typingSemantic } from './typing.js';

export { withCallCache, toItem, type Item, type ScoreContext, type ScoreResult, type Scorer } from './inputs.js';
export { routeFeatures, type RouteFeatures } from './routing.js';
export { aliasScore, jaroWinkler } from './relations.js';

/** The scorer of every catalogue kind. */
export const SCORERS: Record<string, Scorer> = {
  'typing.episodic': typingEpisodic,
  'typing.semantic': typingSemantic,
  'typing.procedural': typingProcedural,
  'typing.preference': typingPreference,
  'relation.semantic': relSemantic,
  'relation.causes': relCauses,
  'relation.caused_by': relCausedBy,
  'relation.same_episode': relSameEpisode,
  'relation.entity_alias': relEntityAlias,
  'relation.temporal_order': relTemporalOrder,
  'consolidation.redundant': conRedundant,
  'consolidation.contradiction': conContradiction,
  'consolidation.obsolete': conObsolete,
  'consolidation.link': conLink,
  'consolidation.representation': conRepresentation,
  'state.change': stateChange,
  'routing.semantic': route('semantic'),
  'routing.temporal': route('temporal'),
  'routing.causal': route('causal'),
  'routing.entity': route('entity'),
  'routing.multi_hop_need': route('multi_hop_need'),
  'routing.recency_importance': route('recency_importance'),
  'scoring.relevance': scRelevance,
  'scoring.relation_usefulness': scRelationUsefulness,
  'scoring.new_information': scNewInformation,
  'scoring.supports_current_evidence': scSupports,
  'stopping.evidence_sufficient': stEvidenceSufficient,
  'stopping.continue_useful': stContinue,
  'stopping.missing_evidence': stMissing,
  'stopping.contradiction': stContradiction,
};

/** Texts a question's scorer may embed (so the backend can embed them in one batch). */
export function textsOf(refs: ResolvedRef[]): string[] {
  const out: string[] = [];
  for (const r of refs) for (const it of toItems(r.value)) if (it.text) out.push(it.text);
  return out;
}
