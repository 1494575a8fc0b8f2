/**
 * Registry of the systems `mem eval locomo --systems` knows. Add a system with one line:
 * `name: factory` (see `../types.ts` for the EvalSystem interface).
 */
import type { EvalSystemFactory } from '../types.js';
import { createHybridRetriever } from '@mem/retrieval';
import { bm25System, denseSystem, hybridSystem, jevSystem, memSystem } from './mem.js';

export const evalSystems: Record<string, EvalSystemFactory> = {
  jev: jevSystem(),
  bm25: bm25System,
  dense: denseSystem,
  hybrid: hybridSystem,
  mem0: (ctx) => import('./mem0.js').then((m) => m.mem0System(ctx)), // real mem0ai OSS Memory, offline (issue 7)
  // Ablations of jev (issue 5): each mechanism switched off in turn.
  // The learned candidate relevance off: the hand-weighted evidence order (issue 16).
  'jev-no-learned': jevSystem({ relevanceModel: null }),
  'jev-no-routing': jevSystem({ ablation: { routing: true } }),
  'jev-no-traversal': jevSystem({ ablation: { traversal: true } }),
  'jev-no-stopping': jevSystem({ ablation: { stopping: true } }),
  'jev-no-semantic': jevSystem({ ablation: { views: ['semantic'] } }),
  'jev-no-temporal': jevSystem({ ablation: { views: ['temporal'] } }),
  'jev-no-causal': jevSystem({ ablation: { views: ['causal'] } }),
  'jev-no-entity': jevSystem({ ablation: { views: ['entity'] } }),
  // Our additions switched off: the lemma-BM25 anchor ranking, the episode context.
  'jev-no-lemma': jevSystem({ lemmaLexical: false }),
  'jev-no-episode': jevSystem({ episodeBudget: 0 }),
  'jev-no-context': jevSystem({ contextLexical: false }),
  'jev-no-demotion': jevSystem({ obsoleteDemotion: 0 }),
  // The dialogue evidence term (coverage + answer act + speaker + time) off, and each of its signals off.
  'jev-no-dialogue': jevSystem({ dialogueWeight: 0 }),
  'jev-no-coverage': jevSystem({ dialogueWeights: { coverage: 0 } }),
  'jev-no-answer-act': jevSystem({ dialogueWeights: { answer: 0 } }),
  'jev-no-speaker': jevSystem({ dialogueWeights: { speaker: 0 } }),
  'jev-no-time': jevSystem({ dialogueWeights: { time: 0 } }),
  'jev-no-routing-no-demotion': jevSystem({ ablation: { routing: true }, obsoleteDemotion: 0 }),
  // The previous configuration: offline System One without the embedder (its own memory build).
  'jev-lexical-s1': jevSystem({}, { systemOneEmbed: false }),
  'hybrid-lexical-s1': memSystem((m) => createHybridRetriever({ store: m.memory.store, embedder: m.embedder }), { systemOneEmbed: false }),
};

/** The ablation variants, in table order. */
export const JEV_ABLATIONS = [
  'jev-no-learned',
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
