/**
 * The narrow shapes the write path needs from its collaborators (TanStack-style small interfaces).
 * `@mem/gate-vmf`'s `NoveltyGate` and `@mem/system-one`'s `SystemOne` satisfy them structurally,
 * and tests can pass tiny stand-ins.
 */
import type { GateDecisionRecord, MemoryNode, ResolvedScope } from '../types.js';

/** What the write path uses of the SAGE gate (seed 001 §3). Scopes are `scopeKey(...)` strings. */
export interface WriteGate {
  route(scope: string, vector: ArrayLike<number>): GateDecisionRecord;
  commit(scope: string, id: string, vector: ArrayLike<number>): void;
  remove(scope: string, id: string): boolean;
  size(scope: string): number;
}

/** A Noul or Choice question as `@mem/system-one` defines it. */
export type ControllerQuestion =
  | { type: 'noul'; kind?: string; instructions: string; criteria: { true: string; false: string } }
  | { type: 'choice'; kind?: string; instructions: string; criteria: Record<string, string> };

export type ControllerAnswer = number | { choice: string; probabilities: Record<string, number> };

/** What the write path uses of the System-One controller J(S, Q) (seed 000). */
export interface WriteController {
  ask(
    state: Record<string, unknown>,
    questions: Record<string, ControllerQuestion>,
  ): Promise<{ answers: Record<string, ControllerAnswer>; traces?: unknown[] }>;
}

/** Entity / keyword / event-time extraction of one text (default: `@mem/core`'s `extract`). */
export interface Extractor {
  /** Entities (names), keywords, and the event time resolved against the observation time (UTC ISO), or null. */
  extract(
    text: string,
    observedAtIso: string,
    /** `timeZone`: IANA zone whose calendar relative dates use ("today", "on Monday"); absent = UTC. */
    options?: { timeZone?: string },
  ):
    | { entities: string[]; keywords: string[]; eventTime: MemoryNode['eventTime'] }
    | Promise<{ entities: string[]; keywords: string[]; eventTime: MemoryNode['eventTime'] }>;
}

/**
 * System Two for the rare write-side escalations (ours): an SAGE Update merge, or a consolidation
 * merge / promote approved by the controller. Returns the new text. Never called unless configured.
 */
export interface Summarizer {
  summarize(request: {
    kind: 'update' | 'merge' | 'promote';
    scope: ResolvedScope;
    /** Oldest first. */
    memories: { id: string; text: string; speaker: string | null; observedAt: string }[];
  }): Promise<string>;
}
