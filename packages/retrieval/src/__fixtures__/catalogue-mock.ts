// Used by tests through vi.mock: the real @mem/system-one catalogue when it is exported, else a
// minimal stand-in with the same kinds (question wording ours).
const noul = (kind: string, instructions: string) => ({ type: 'noul' as const, kind, instructions, criteria: { true: 'yes', false: 'no' } });
export const standInCatalogue = {
  routing: {
    semantic: () => noul('routing.semantic', 'semantic {{query}}'),
    temporal: () => noul('routing.temporal', 'temporal {{query}}'),
    causal: () => noul('routing.causal', 'causal {{query}}'),
    entity: () => noul('routing.entity', 'entity {{query}}'),
    multiHopNeed: () => noul('routing.multi_hop_need', 'multi-hop {{query}}'),
    recencyImportance: () => noul('routing.recency_importance', 'recency {{query}}'),
  },
  scoring: {
    relevance: (i: number) => noul('scoring.relevance', `{{candidates.${i}}} {{query}}`),
    relationUsefulness: (i: number) => noul('scoring.relation_usefulness', `{{candidates.${i}}} {{query}}`),
    newInformation: (i: number) => noul('scoring.new_information', `{{candidates.${i}}} {{evidence}}`),
    supportsCurrentEvidence: (i: number) => noul('scoring.supports_current_evidence', `{{candidates.${i}}} {{evidence}}`),
  },
  stopping: {
    evidenceSufficient: () => noul('stopping.evidence_sufficient', '{{evidence}} {{query}}'),
    continueUseful: () => noul('stopping.continue_useful', '{{evidence}} {{depth}}'),
    missingEvidence: () => noul('stopping.missing_evidence', '{{evidence}} {{query}}'),
    contradiction: () => noul('stopping.contradiction', '{{evidence}} {{query}}'),
  },
};
