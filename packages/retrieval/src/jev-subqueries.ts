/**
 * Sub-query anchors (ours, issue 38; docs/graph.md "Sub-query anchors"): a multi-hop question needs
 * several pieces, each matched by a different part of the question. Without an LLM, the question is
 * cut into parts at clause and conjunct boundaries (commas, semicolons, "and", "but", "or", and the
 * relative / subordinate words "that", "which", "who", "where", "when", "while", "after", "before",
 * "because"), and each part with at least two content words gets its own vector and lemma-BM25
 * ranking. Their top `seeds` memories join the anchors (as `seedsPerRanking` does for the whole
 * question), and with `priorWeight` > 0 the part rankings are fused into the anchors' prior too.
 * Off by default (jev option `subQueries`): it did not gain on the held-out halves (docs/graph.md).
 */
import type { MemoryNode } from '@mem/core';
import { reciprocalRankFusion } from './equations.js';

/** Words that carry no content of their own in a question part (lower case). */
const STOP = new Set(
  'a an the of to in on at for from with by about as is are was were be been being do does did has have had what which who whom whose when where why how that this these those it its his her their they them he she we you i my your our there any some all not no and or but if than then so'.split(
    ' ',
  ),
);

/** Boundaries a part ends at (matched case-insensitively, the boundary word itself dropped). */
const BOUNDARY = /\s*(?:[,;:]|\b(?:and|but|or|that|which|who|where|when|while|after|before|because)\b)\s*/i;

/** The content words of a text: lower-cased letter / digit runs of ≥ 2 characters, not in {@link STOP}. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}']{2,}/gu) ?? []).filter((w) => !STOP.has(w));
}

/**
 * The parts of a question (shape: [] when it has fewer than two parts of ≥ `minWords` content
 * words, else the parts, trimmed, in question order, without the trailing "?"). Pure; never throws.
 * Example: "What did Ana cook after the trip to Lisbon and who came?" →
 * ["What did Ana cook", "the trip to Lisbon"] ("who came" has one content word).
 */
export function questionParts(query: string, minWords = 2): string[] {
  const parts = query
    .replace(/[?!.]+\s*$/, '')
    .split(BOUNDARY)
    .map((p) => p.trim())
    .filter((p) => contentWords(p).length >= minWords);
  return parts.length >= 2 ? parts : [];
}

/** The resolved `subQueries` option: seeds per part ranking, and the weight of each part ranking in the prior (0 = none). */
export interface SubQueryOptions {
  seeds: number;
  priorWeight: number;
  /** Only for questions whose routing multi-hop need is ≥ this (0 = every question). */
  minMultiHop: number;
}

/** One part's rankings (ids best first) and the nodes they name. */
export interface PartRankings {
  rankings: string[][];
  nodes: MemoryNode[];
}

/**
 * The anchors the parts add (ids, in order, not already in `have`, at most `room`): the top `seeds`
 * of each part ranking, round-robin over the rankings so every part gets its first memories in before
 * any part gets its later ones. `have` is updated.
 */
export function partSeeds(rankings: readonly (readonly string[])[], seeds: number, have: Set<string>, room: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < seeds; i++) {
    for (const r of rankings) {
      const id = r[i];
      if (id === undefined || have.has(id) || out.length >= room) continue;
      have.add(id);
      out.push(id);
    }
  }
  return out;
}

/**
 * The prior with the part rankings fused in (ours): weighted RRF (k = `k`) of the whole question's
 * rankings (`weights`) and the part rankings (each `priorWeight`).
 */
export function priorWithParts(rankings: readonly (readonly string[])[], weights: readonly number[], parts: readonly (readonly string[])[], priorWeight: number, k: number): Map<string, number> {
  return new Map(reciprocalRankFusion([...rankings, ...parts], k, [...weights, ...parts.map(() => priorWeight)]).map((f) => [f.id, f.score]));
}
