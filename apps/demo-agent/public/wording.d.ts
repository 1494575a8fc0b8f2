// Types of wording.js (ours, issue 36): the plain words shared by the playground and the mem CLI.
export declare const THETA_ACT: number;
export declare const GLOSSARY: Record<string, [label: string, explanation: string]>;
export declare const STOP_REASONS: Record<string, string>;
export declare const GATE_ACTIONS: Record<'add' | 'update' | 'noop', string>;
export declare const VIEW_WORDS: Record<'semantic' | 'temporal' | 'causal' | 'entity', string>;
export declare const ASK_LEGEND: string;
/** The part of a trace the sentences read (the demo agent's TraceView fits). */
export interface TraceLike {
  retriever: string | null;
  routing: Record<string, number> | null;
  activeViews: string[];
  rounds: { stopping: Record<string, number> | null }[];
  stopReason: string | null;
  controllerCalls: number | null;
}
export declare function linkWords(subtype: string): string;
export declare function whyTheseMemories(trace: TraceLike | null, evidence: { via?: string[] }[]): string;
export declare function whyItStopped(trace: TraceLike | null): string;
export declare function howSure(trace: TraceLike | null, evidence: { score: number }[], pEvidence?: number, answerable?: boolean): string;
export declare function offlineAnswerWords(answerRank: number | null | undefined): string;
