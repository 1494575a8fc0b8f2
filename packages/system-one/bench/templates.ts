/** The catalogue template of each kind, candidate index 0 (bench helper). */
import { catalogue, type CatalogueKind } from '../src/catalogue.js';
import type { Question } from '../src/schema.js';

export const TEMPLATES: Record<CatalogueKind, () => Question> = {
  'typing.episodic': catalogue.typing.episodic, 'typing.semantic': catalogue.typing.semantic,
  'typing.procedural': catalogue.typing.procedural, 'typing.preference': catalogue.typing.preference,
  'relation.semantic': () => catalogue.relation.semantic(0), 'relation.causes': () => catalogue.relation.causes(0),
  'relation.caused_by': () => catalogue.relation.causedBy(0), 'relation.same_episode': () => catalogue.relation.sameEpisode(0),
  'relation.entity_alias': () => catalogue.relation.entityAlias(0), 'relation.temporal_order': () => catalogue.relation.temporalOrder(0),
  'consolidation.redundant': () => catalogue.consolidation.redundant(0), 'consolidation.contradiction': () => catalogue.consolidation.contradiction(0),
  'consolidation.obsolete': () => catalogue.consolidation.obsolete(0), 'consolidation.link': () => catalogue.consolidation.link(0),
  'consolidation.representation': () => catalogue.consolidation.representation(0),
  'state.change': () => catalogue.state.change(0),
  'routing.semantic': catalogue.routing.semantic, 'routing.temporal': catalogue.routing.temporal, 'routing.causal': catalogue.routing.causal,
  'routing.entity': catalogue.routing.entity, 'routing.multi_hop_need': catalogue.routing.multiHopNeed,
  'routing.recency_importance': catalogue.routing.recencyImportance,
  'scoring.relevance': () => catalogue.scoring.relevance(0), 'scoring.relation_usefulness': () => catalogue.scoring.relationUsefulness(0),
  'scoring.new_information': () => catalogue.scoring.newInformation(0), 'scoring.supports_current_evidence': () => catalogue.scoring.supportsCurrentEvidence(0),
  'stopping.evidence_sufficient': catalogue.stopping.evidenceSufficient, 'stopping.continue_useful': catalogue.stopping.continueUseful,
  'stopping.missing_evidence': catalogue.stopping.missingEvidence, 'stopping.contradiction': catalogue.stopping.contradiction,
};
