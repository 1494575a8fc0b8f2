/**
 * Registry of the systems `mem eval locomo --systems` knows. Add a system with one line:
 * `name: factory` (see `../types.ts` for the EvalSystem interface).
 */
import type { EvalSystemFactory } from '../types.js';
import { createHybridRetriever, defaultExpansionModel, defaultLinkModel, type JevRetrieverOptions } from '@mem/retrieval';
import { bm25System, denseQueryNamesSystem, denseSystem, hybridQueryNamesSystem, hybridSystem, jevSystem, memSystem } from './mem.js';

/**
 * Jev and its ablation variants as jev options (ours): `mem eval` wraps each in `jevSystem`; the
 * read-path scripts (scripts/read-path/eval-cache.ts) run the same options on cached memories.
 */
export const ABLATION_OPTIONS: Record<string, Partial<Omit<JevRetrieverOptions, 'store' | 'systemOne' | 'embedder'>>> = {
  jev: {},
  // Ablations of jev (issue 5): each mechanism switched off in turn.
  // The learned candidate relevance off: the hand-weighted evidence order (issue 16).
  'jev-no-learned': { relevanceModel: null },
  // Candidate generation: only the fused top anchors, no per-ranking seeds (issue 16).
  'jev-no-seeds': { seedsPerRanking: 0 },
  'jev-no-routing': { ablation: { routing: true } },
  'jev-no-traversal': { ablation: { traversal: true } },
  // The hand rounds (routing budgets, depth, priority) instead of the learned expansion (issue 38).
  'jev-no-learned-expansion': { expansionModel: null },
  // The shipped learned expansion model switched on (it is off by default: it did not help on the held-out conversations; docs/graph.md).
  'jev-learned-expansion': { expansionModel: defaultExpansionModel() },
  // The learned rounds with each neighbour's own p(evidence) (the relevance model) in place of the expansion model (issue 38).
  // The link stage (issue 38) switched off / on with the shipped link model (docs/graph.md).
  'jev-no-links': { linkModel: null },
  'jev-links': { linkModel: defaultLinkModel() },
  // Sub-query anchors (issue 38) switched on: the question's clause / conjunct parts each bring their top memories in (off by default; docs/graph.md).
  'jev-subqueries': { subQueries: {} },
  'jev-expansion-by-relevance': { expansionModel: null, collectExpansion: true },
  'jev-no-stopping': { ablation: { stopping: true } },
  'jev-no-semantic': { ablation: { views: ['semantic'] } },
  'jev-no-temporal': { ablation: { views: ['temporal'] } },
  'jev-no-causal': { ablation: { views: ['causal'] } },
  'jev-no-entity': { ablation: { views: ['entity'] } },
  // Our additions switched off: the lemma-BM25 anchor ranking, the episode context.
  'jev-no-lemma': { lemmaLexical: false },
  'jev-no-episode': { episodeBudget: 0 },
  'jev-no-context': { contextLexical: false },
  'jev-no-demotion': { obsoleteDemotion: 0 },
  // The dialogue evidence term (coverage + answer act + speaker + time) off, and each of its signals off.
  'jev-no-dialogue': { dialogueWeight: 0 },
  'jev-no-coverage': { dialogueWeights: { coverage: 0 } },
  'jev-no-answer-act': { dialogueWeights: { answer: 0 } },
  'jev-no-speaker': { dialogueWeights: { speaker: 0 } },
  'jev-no-time': { dialogueWeights: { time: 0 } },
  // The query embedded with the speakers' names (issue 16: names are removed before embedding by default).
  'jev-query-names': { stripQueryNames: false },
  'jev-no-routing-no-demotion': { ablation: { routing: true }, obsoleteDemotion: 0 },
};

export const evalSystems: Record<string, EvalSystemFactory> = {
  jev: jevSystem(),
  bm25: bm25System,
  dense: denseSystem,
  hybrid: hybridSystem,
  // dense / hybrid embedding the question with the speakers' names (the baselines before issue 38; jev-query-names is jev's)
  'dense-query-names': denseQueryNamesSystem,
  'hybrid-query-names': hybridQueryNamesSystem,
  mem0: (ctx) => import('./mem0.js').then((m) => m.mem0System(ctx)), // real mem0ai OSS Memory, offline (issue 7)
  ...Object.fromEntries(Object.entries(ABLATION_OPTIONS).filter(([n]) => n !== 'jev').map(([n, o]) => [n, jevSystem(o)])),
  // The previous configuration: offline System One without the embedder (its own memory build).
  'jev-lexical-s1': jevSystem({}, { systemOneEmbed: false }),
  'hybrid-lexical-s1': memSystem((m) => createHybridRetriever({ store: m.memory.store, embedder: m.embedder }), { systemOneEmbed: false }),
};

/** The ablation variants, in table order. */
export const JEV_ABLATIONS = [
  'jev-no-learned',
  'jev-no-seeds',
  'jev-no-routing',
  'jev-no-traversal',
  'jev-no-stopping',
  'jev-no-semantic',
  'jev-no-temporal',
  'jev-no-causal',
  'jev-no-entity',
  'jev-no-lemma',
  'jev-no-episode',
  'jev-no-context',
  'jev-no-dialogue',
  'jev-no-coverage',
  'jev-no-answer-act',
  'jev-no-speaker',
  'jev-no-time',
];
