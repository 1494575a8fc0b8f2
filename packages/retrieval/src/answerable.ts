/**
 * Abstention (ours, issue 37): does memory hold anything on the question? A calibrated p(evidence) of
 * the whole search — p that at least one returned memory is evidence — from a small logistic model
 * over the top candidates' learned relevance p(evidence) and a few of their relevance features
 * (`answerabilityFeatures`), trained on LoCoMo dev 0–3 and BEAM 500K 1–5 questions (label 0 = LoCoMo
 * adversarial / BEAM abstention, 1 = the rest) by apps/demo-agent/scripts/read-path/train-answerable.ts,
 * temperature-calibrated; the threshold below which `search` says `answerable: false` was chosen on
 * those TRAIN conversations. File `models/answerable.json` = `{ threshold, model }` (`model` in the
 * `mem.learned/1` format).
 */
import { MemValidationError } from '@mem/core';
import { parseLearnedModel, predictProbability, type LearnedModel } from '@mem/system-one';
import answerableJson from './models/answerable.json';

/** One candidate as the answerability features read it: its evidence-order value and relevance features. */
export interface RankedCandidate {
  /** Its p(evidence) (the evidence order of jev with the learned relevance model). */
  final: number;
  /** Its relevance features (`RELEVANCE_FEATURES` names; missing ones count 0). */
  features: Readonly<Record<string, number>>;
  /** Its unit embedding (for the term-support features; absent = those features read 0 for it). */
  embedding?: Float32Array;
  /** Its own content terms (lemmas, lower case; `nodeContentTerms`). */
  terms?: ReadonlySet<string>;
}

/**
 * The question's focus as the term-support features read it (ours, issue 37): its content terms
 * (`queryContentTerms`: lemmas, without the scope's speakers' names) and each one's unit embedding by
 * the memories' embedder (null when not embedded). No terms = the term-support features read 1.
 */
export interface QuestionTerms {
  terms: readonly { term: string; vec: Float32Array | null }[];
  /** Unit embeddings of single words of the memories (their content terms), for word-level support; absent = those features read the lexical match only. */
  wordVec?: (word: string) => Float32Array | undefined;
}

export const ANSWERABILITY_FEATURES = [
  'p1_logit',
  'p2_logit',
  'p3_logit',
  'p_sum5',
  'cos_max5',
  'cov1',
  'cov_max5',
  'own_cov_max5',
  'named_speaker1',
  'turn_names_speaker1',
  'candidates',
  'p_gap12',
  'term_sem_min5',
  'term_sem_mean5',
  'term_lex_union5',
  'term_sem_min_named5',
  'term_lex_union_named5',
  'focus_sem5',
  'focus_lex5',
  'other_lex_gap10',
  'other_sem_gap10',
  'other_cos_gap10',
  'other_p_gap10',
  'term_word_min5',
  'term_word_mean5',
  'term_word_min_named5',
  'focus_word5',
] as const;
export type AnswerabilityFeature = (typeof ANSWERABILITY_FEATURES)[number];

const logit = (p: number) => {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, p));
  return Math.log(q / (1 - q));
};

const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return Number.isFinite(s) ? s : 0;
};

/**
 * Term support of the question by a set of memories (ours, issue 37; one equation): for each content
 * term t, its best support over the memories — semantic s_t = max_c cos(e_t, e_c) (the term's
 * embedding against the memory's), lexical l_t = 1 when some memory's own terms contain t. Returns
 * the weakest term's s (`semMin`), the mean s (`semMean`), the share of terms with l_t = 1
 * (`lexUnion`), word-level support w_t = 1 when l_t = 1, else max over the memories' content words u
 * of cos(e_t, e_u) (`q.wordVec`; without it s_t; its weakest `wordMin`, mean `wordMean`), and s, l and w of the FOCUS term — the question's last content term, its head noun in
 * "what is the name of X's dog" (`focusSem`, `focusLex`, `focusWord`). No terms: all 1; no memories: all 0.
 * Independent of the memory's size: it reads only the given memories (the top 5).
 */
export function termSupport(q: QuestionTerms, memories: readonly RankedCandidate[]): { semMin: number; semMean: number; lexUnion: number; focusSem: number; focusLex: number; wordMin: number; wordMean: number; focusWord: number } {
  if (q.terms.length === 0) return { semMin: 1, semMean: 1, lexUnion: 1, focusSem: 1, focusLex: 1, wordMin: 1, wordMean: 1, focusWord: 1 };
  if (memories.length === 0) return { semMin: 0, semMean: 0, lexUnion: 0, focusSem: 0, focusLex: 0, wordMin: 0, wordMean: 0, focusWord: 0 };
  const sem = q.terms.map(({ vec }) => (vec ? memories.reduce((m, c) => (c.embedding ? Math.max(m, dot(vec, c.embedding)) : m), 0) : 0));
  const lex = q.terms.map(({ term }) => (memories.some((c) => c.terms?.has(term)) ? 1 : 0));
  // word-level: w_t = 1 when a memory holds t, else max over the memories' words u of cos(e_t, e_u)
  const word = q.terms.map(({ vec }, i) => {
    if (lex[i]) return 1;
    if (!vec) return 0;
    // without single-word embeddings: the term against the memories' own embeddings (s_t)
    if (!q.wordVec) return sem[i]!;
    let best = 0;
    for (const c of memories) for (const u of c.terms ?? []) {
      const e = q.wordVec(u);
      if (e) best = Math.max(best, dot(vec, e));
    }
    return best;
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    semMin: Math.min(...sem),
    semMean: mean(sem),
    lexUnion: mean(lex),
    focusSem: sem[sem.length - 1]!,
    focusLex: lex[lex.length - 1]!,
    wordMin: Math.min(...word),
    wordMean: mean(word),
    focusWord: word[word.length - 1]!,
  };
}

/**
 * The answerability features of a search from its candidates in evidence order (best first): logits of
 * the top three p(evidence), their top-5 sum, the best cosine / query coverage / own coverage of the
 * top 5, the top item's coverage, named-speaker and names-speaker flags, the candidate count / 100
 * (`total`, when `ranked` holds only the top of the list), the gap p1 − p2, the term support
 * (`termSupport`) of the question's terms `q` by the top 5, and by those of the top 5 that are not
 * another speaker's than the one the question names (`named_speaker` ≥ 0); and, among the top 10,
 * how much better another speaker's memories support the question than the named speaker's (or
 * unnamed) ones: gaps in term coverage, mean term support, best cosine and best p(evidence) (0 when
 * no other speaker's memory is in the top 10). `ranked` should hold the top 10 at least.
 */
export function answerabilityFeatures(ranked: readonly RankedCandidate[], total = ranked.length, q: QuestionTerms = { terms: [] }): Record<AnswerabilityFeature, number> {
  const top = ranked.slice(0, 5);
  const f = (i: number, name: string) => top[i]?.features[name] ?? 0;
  const max5 = (name: string) => top.reduce((m, c) => Math.max(m, c.features[name] ?? 0), 0);
  const all = termSupport(q, top);
  const named = termSupport(
    q,
    top.filter((c) => (c.features.named_speaker ?? 0) >= 0),
  );
  // the question names a speaker and the top 10 hold another speaker's memories: how much better do
  // those support the question than the named speaker's own (a question about the wrong person)
  const top10 = ranked.slice(0, 10);
  const others = top10.filter((c) => (c.features.named_speaker ?? 0) < 0);
  const own = top10.filter((c) => (c.features.named_speaker ?? 0) >= 0);
  const so = others.length ? termSupport(q, others) : null;
  const sn = termSupport(q, own);
  const maxOf = (cs: readonly RankedCandidate[], get: (c: RankedCandidate) => number) => cs.reduce((m, c) => Math.max(m, get(c)), 0);
  return {
    p1_logit: logit(top[0]?.final ?? 0),
    p2_logit: logit(top[1]?.final ?? 0),
    p3_logit: logit(top[2]?.final ?? 0),
    p_sum5: top.reduce((s, c) => s + c.final, 0),
    cos_max5: max5('cosine'),
    cov1: f(0, 'coverage'),
    cov_max5: max5('coverage'),
    own_cov_max5: max5('own_coverage'),
    named_speaker1: f(0, 'named_speaker'),
    turn_names_speaker1: f(0, 'turn_names_speaker'),
    candidates: Math.min(1, total / 100),
    p_gap12: (top[0]?.final ?? 0) - (top[1]?.final ?? 0),
    term_sem_min5: all.semMin,
    term_sem_mean5: all.semMean,
    term_lex_union5: all.lexUnion,
    term_sem_min_named5: named.semMin,
    term_lex_union_named5: named.lexUnion,
    focus_sem5: all.focusSem,
    focus_lex5: all.focusLex,
    other_lex_gap10: so ? so.lexUnion - sn.lexUnion : 0,
    other_sem_gap10: so ? so.semMean - sn.semMean : 0,
    other_cos_gap10: so ? maxOf(others, (c) => c.features.cosine ?? 0) - maxOf(own, (c) => c.features.cosine ?? 0) : 0,
    other_p_gap10: so ? maxOf(others, (c) => c.final) - maxOf(own, (c) => c.final) : 0,
    term_word_min5: all.wordMin,
    term_word_mean5: all.wordMean,
    term_word_min_named5: named.wordMin,
    focus_word5: all.focusWord,
  };
}

let shipped: { model: LearnedModel; threshold: number } | null = null;
/**
 * The shipped answerability model and its threshold (`models/answerable.json` = `{ threshold, model }`),
 * validated once. Throws SystemOneError INVALID_MODEL for a bad model, MemValidationError
 * INVALID_INPUT for a threshold outside [0, 1].
 */
export function defaultAnswerability(): { model: LearnedModel; threshold: number } {
  if (!shipped) {
    const raw = answerableJson as { threshold: unknown; model: unknown };
    const threshold = Number(raw.threshold);
    if (!(threshold >= 0 && threshold <= 1)) throw new MemValidationError('INVALID_INPUT', `models/answerable.json: threshold ${String(raw.threshold)} is not in [0, 1]`);
    shipped = { model: parseLearnedModel(raw.model), threshold };
  }
  return shipped;
}

/** Calibrated p that memory holds evidence for the question, from its ranked candidates. */
export function answerabilityProbability(model: LearnedModel, ranked: readonly RankedCandidate[], total = ranked.length, q: QuestionTerms = { terms: [] }): number {
  const x = answerabilityFeatures(ranked, total, q) as Record<string, number>;
  return predictProbability(model, model.features.map((n) => x[n] ?? 0));
}
