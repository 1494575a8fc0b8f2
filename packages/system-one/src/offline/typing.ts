/** Offline scorers of the typing Nouls on `{ observation }` (ours): episodic, semantic, procedural, preference. */
import type { ResolvedRef } from '../schema.js';
import { CUES, cueTest, logistic, soft } from './text.js';
import { feat, toItem } from './inputs.js';

// ---------------------------------------------------------------------------------------------
// typing: on { observation }
// (every regex is a module constant, so `cueTest` can memoise its result per text)
// ---------------------------------------------------------------------------------------------

const RE_ED_OBJECT = /\b\w{3,}ed (my|the|a|an|our|his|her|their|to|at|in|on|with|for|up|out)\b/;
const RE_I_WE_MY = /\b(i|we|my)\b/;
const RE_HOW_TO = /\bhow to\b/;
const RE_STATIVE_VERB = /\b(is|are|has|have|am)\b/;
const RE_PRESENT_SIMPLE = /^(the |a |an |our |my |his |her |their )?\w+( \w+)? \w+(s|es)\b/;
const RE_I_WE_YOU = /\b(i|we|you)\b/;
const RE_FEELING = /\b(feel|feeling|felt|tired|excited|happy today)\b/;
const RE_SEQUENCE = /\b(first|then|next|after that|finally)\b.*\b(then|next|after that|finally|and then)\b/;
const RE_YOU = /\b(you|your)\b/;
const RE_THEN_BEFORE = /\b(then|after that|before)\b/;
const RE_CLAUSE_IMPERATIVE = /^(to|when|if|once|after|before)\b[^,]*, (then )?(add|mix|hold|press|take|put|turn|open|close|click|run|use|let|wait|remove|pour|stir|check|fill|select|set|keep|place|leave|cover|cut|wash|rinse|unplug|plug|restart|boil|heat)\b/;
const RE_STRONG_PREFERENCE = /\b(favorite|favourite|prefer|would rather|can't stand|hate|love)\b/;
const RE_LIKE_TO = /\b(like to|likes to|love to|enjoy)\b/;
const RE_LIKE_COMPARISON = /\b(looks like|feel like|like that|like this|like a|just like|like the)\b/;
const RE_LOVE_ENJOY = /\b(love|enjoy|prefer|favorite)\b/;

export function typingEpisodic(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -1.6;
  const past = cueTest(f, CUES.pastEvent) || cueTest(f, RE_ED_OBJECT);
  if (past) x += 1.6;
  if (cueTest(f, CUES.timeExpr)) x += 1.0;
  if (cueTest(f, RE_I_WE_MY)) x += 0.3;
  if (cueTest(f, CUES.habitual)) x -= 1.2;
  if (cueTest(f, CUES.imperative) || cueTest(f, RE_HOW_TO)) x -= 1.0;
  if (cueTest(f, CUES.preference) && !cueTest(f, CUES.pastEvent)) x -= 0.6;
  return soft(logistic(x));
}

export function typingSemantic(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -1.0;
  if (cueTest(f, CUES.fact)) x += 1.8;
  const past = cueTest(f, CUES.pastEvent);
  if (cueTest(f, RE_STATIVE_VERB) && !past) x += 1.0;
  // generic present simple of a third-person subject ("water boils", "the library closes")
  else if (cueTest(f, RE_PRESENT_SIMPLE) && !past && !cueTest(f, RE_I_WE_YOU)) x += 1.0;
  if (cueTest(f, CUES.timeExpr)) x -= 0.7;
  if (past) x -= 0.6;
  if (cueTest(f, CUES.imperative)) x -= 0.8;
  if (cueTest(f, RE_FEELING)) x -= 0.5;
  return soft(logistic(x));
}

export function typingProcedural(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -2.2;
  if (cueTest(f, CUES.procedure)) x += 1.6;
  if (cueTest(f, CUES.imperative)) x += 1.6;
  if (cueTest(f, RE_SEQUENCE)) x += 1.2;
  if (cueTest(f, RE_YOU)) x += 0.3;
  if (cueTest(f, CUES.habitual) && (cueTest(f, CUES.procedure) || cueTest(f, RE_THEN_BEFORE))) x += 1.2;
  // an imperative after a purpose or condition clause: "To reset it, hold …", "When it beeps, take …"
  if (cueTest(f, RE_CLAUSE_IMPERATIVE)) x += 2.4;
  if (cueTest(f, CUES.pastEvent) && !cueTest(f, CUES.imperative)) x -= 0.6;
  return soft(logistic(x));
}

export function typingPreference(refs: ResolvedRef[]): number {
  const f = feat(toItem(refs[0]?.value));
  let x = -2.0;
  if (cueTest(f, CUES.preference)) x += 2.8;
  if (cueTest(f, RE_STRONG_PREFERENCE)) x += 0.8;
  if (cueTest(f, RE_LIKE_TO)) x += 0.4;
  if (cueTest(f, RE_LIKE_COMPARISON) && !cueTest(f, RE_LOVE_ENJOY)) x -= 2.0;
  return soft(logistic(x));
}
