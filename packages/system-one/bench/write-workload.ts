/**
 * The write-path workload of `@mem/core` as System-One calls (ours), for the speed bench and the
 * identity tests: per observation one typing batch on `{ observation }`, one relation batch on
 * `{ new_memory, candidates }` (10 earlier observations, with a precomputed `cosine`, the
 * `same_episode` question dropped across sessions, `entity_alias` on some pairs) and, every 20
 * writes, consolidation batches (redundant, contradiction, obsolete, link [, representation]) on the
 * first 3 candidates of each of the last 20 writes, reusing that write's item objects (as core does).
 * Items are fresh objects for every write (core builds them from stored nodes).
 *
 * Texts: LoCoMo turns read at run time (`locomoObservations`, never copied into the repository) or
 * sentences generated from a seed (`syntheticObservations`; our own templates).
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { batches, catalogue } from '../src/catalogue.js';
import type { Question } from '../src/schema.js';
import { seeded } from '../src/learned/train.js';

export interface Observation {
  text: string;
  speaker: string;
  /** ISO-8601 UTC. */
  time: string;
  session: string;
}

export type Stage = 'typing' | 'relations' | 'consolidation';
export interface WriteCall {
  stage: Stage;
  state: Record<string, unknown>;
  questions: Record<string, Question>;
}

/**
 * One question of every catalogue kind on the write and read states (`relations(2)`, `scoring(2)`,
 * stopping, routing_*, typing_*, and the consolidation Nouls/Choice `c{0,1}_*`): the question set the
 * identity and concurrency tests ask.
 */
export function everyKindQuestions(): Record<string, Question> {
  const qs: Record<string, Question> = { ...batches.relations(2), ...batches.scoring(2), ...batches.stopping() };
  for (const [k, q] of Object.entries(batches.routing())) qs[`routing_${k}`] = q;
  for (const [k, q] of Object.entries(batches.typing())) qs[`typing_${k}`] = q;
  for (const i of [0, 1]) {
    qs[`c${i}_red`] = catalogue.consolidation.redundant(i);
    qs[`c${i}_con`] = catalogue.consolidation.contradiction(i);
    qs[`c${i}_obs`] = catalogue.consolidation.obsolete(i);
    qs[`c${i}_link`] = catalogue.consolidation.link(i);
    qs[`c${i}_rep`] = catalogue.consolidation.representation(i);
  }
  return qs;
}

/** Deterministic PRNG (mulberry32; the learned trainer's generator). */
export const rng = seeded;

const STOP = new Set('the a an and or but to of in on at for with from is are was were be been i you he she we they it my your our their this that me so just really very have has had do did not'.split(' '));
const words = (t: string) => t.toLowerCase().match(/[a-z']+/g) ?? [];

/** Core-like keywords: content words, at most 10. */
function keywordsOf(text: string): string[] {
  const out: string[] = [];
  for (const w of words(text)) if (w.length > 3 && !STOP.has(w) && !out.includes(w) && out.length < 10) out.push(w);
  return out;
}
/** Capitalised words after the first one (a crude stand-in for core's entity extraction). */
function entitiesOf(text: string): string[] {
  const out: string[] = [];
  const ms = text.match(/(?<=\s)[A-Z][a-z]+(?: [A-Z][a-z]+)*/g) ?? [];
  for (const m of ms) if (!out.includes(m.toLowerCase())) out.push(m.toLowerCase());
  return out;
}
function overlap(a: string, b: string): number {
  const wa = new Set(words(a).filter((w) => !STOP.has(w)));
  const wb = new Set(words(b).filter((w) => !STOP.has(w)));
  let n = 0;
  for (const w of wa) if (wb.has(w)) n++;
  return wa.size && wb.size ? n / Math.sqrt(wa.size * wb.size) : 0;
}

function item(o: Observation, cosine?: number): Record<string, unknown> {
  const it: Record<string, unknown> = { text: o.text, time: o.time, speaker: o.speaker };
  const e = entitiesOf(o.text);
  if (e.length) it.entities = e;
  const k = keywordsOf(o.text);
  if (k.length) it.keywords = k;
  it.session = o.session;
  if (cosine !== undefined) it.cosine = cosine;
  return it;
}

/**
 * The calls of ingesting `obs` in order (fresh objects on every call of this function).
 * `representation`: also ask the representation Choice in consolidation (core does when a summarizer is set).
 */
export function writeCalls(obs: readonly Observation[], opts: { seed?: number; representation?: boolean } = {}): WriteCall[] {
  const rand = rng(opts.seed ?? 7);
  const calls: WriteCall[] = [];
  const recent: { node: Record<string, unknown>; candidates: Record<string, unknown>[] }[] = [];
  let since = 0;
  for (let w = 0; w < obs.length; w++) {
    const o = obs[w];
    calls.push({ stage: 'typing', state: { observation: o.text }, questions: batches.typing() });
    if (w > 0) {
      // candidates: the most similar earlier observations among the last 60, plus random older ones, 10 at most
      const lo = Math.max(0, w - 60);
      const scored = [];
      for (let j = lo; j < w; j++) scored.push({ j, s: overlap(o.text, obs[j].text) + 0.02 * (j - lo) / (w - lo) });
      scored.sort((a, b) => b.s - a.s);
      const picked = scored.slice(0, 7).map((x) => x.j);
      while (picked.length < Math.min(10, w)) {
        const j = Math.floor(rand() * w);
        if (!picked.includes(j)) picked.push(j);
      }
      const candidates = picked.map((j) => item(obs[j], Math.round((0.45 + 0.5 * overlap(o.text, obs[j].text) + 0.1 * rand()) * 1e6) / 1e6));
      const node = item(o);
      const state = { new_memory: node, candidates };
      const qs = batches.relations(candidates.length, {
        alias: (i) => !(candidates[i].entities as string[] | undefined)?.length,
        temporalOrder: () => false,
      }) as Record<string, Question>;
      for (let i = 0; i < candidates.length; i++) if (candidates[i].session !== node.session) delete qs[`pair_${i}_same_episode`];
      calls.push({ stage: 'relations', state, questions: qs });
      recent.push({ node, candidates: candidates.slice(0, 3) });
      if (recent.length > 20) recent.shift();
    }
    if (++since >= 20) {
      since = 0;
      for (const r of recent) {
        const qs: Record<string, Question> = {};
        for (let i = 0; i < r.candidates.length; i++) {
          qs[`pair_${i}_redundant`] = catalogue.consolidation.redundant(i);
          qs[`pair_${i}_contradiction`] = catalogue.consolidation.contradiction(i);
          qs[`pair_${i}_obsolete`] = catalogue.consolidation.obsolete(i);
          qs[`pair_${i}_link`] = catalogue.consolidation.link(i);
          if (opts.representation) qs[`pair_${i}_representation`] = catalogue.consolidation.representation(i);
        }
        calls.push({ stage: 'consolidation', state: { new_memory: r.node, candidates: r.candidates }, questions: qs });
      }
      recent.length = 0;
    }
  }
  return calls;
}

/** LoCoMo path: env MEM_LOCOMO_PATH, default <repo>/../shared/data/locomo/locomo10-dev.json. */
export function locomoPath(): string {
  return resolve(process.env.MEM_LOCOMO_PATH ?? resolve(import.meta.dirname, '../../../../shared/data/locomo/locomo10-dev.json'));
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** LoCoMo turns per conversation (read at run time; null when the file is absent). */
export function locomoObservations(path = locomoPath()): Observation[][] | null {
  if (!existsSync(path)) return null;
  const data = JSON.parse(readFileSync(path, 'utf8')) as { conversation: Record<string, unknown> }[];
  return data.map((sample, c) => {
    const conv = sample.conversation;
    const out: Observation[] = [];
    for (let n = 1; Array.isArray(conv[`session_${n}`]); n++) {
      const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(String(conv[`session_${n}_date_time`] ?? ''));
      const ms = m
        ? Date.UTC(Number(m[6]), MONTHS.indexOf(m[5].toLowerCase().slice(0, 3)), Number(m[4]), (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0), Number(m[2]))
        : Date.UTC(2023, 0, n);
      for (const t of conv[`session_${n}`] as { text?: unknown; speaker?: unknown; blip_caption?: unknown }[]) {
        if (typeof t.text !== 'string') continue;
        out.push({
          text: typeof t.blip_caption === 'string' ? `${t.text} [image: ${t.blip_caption}]` : t.text,
          speaker: String(t.speaker),
          time: new Date(ms).toISOString(),
          session: `${c}:${n}`,
        });
      }
    }
    return out;
  });
}

// Our own sentence templates (not from LoCoMo): names, places, times, causes, negations, numbers,
// frames (residence, job, vehicle), preferences and procedures, so every scorer branch is exercised.
const NAMES = ['Ana', 'Bruno', 'Chen', 'Dara', 'Eli', 'Femi', 'Gus', 'Hiro', 'Ida', 'Jon', 'Kai', 'Lia', 'Mike', 'Michael', 'Liz', 'Elizabeth'];
const PLACES = ['Oslo', 'Lisbon', 'the park', 'the museum', 'New York', 'NYC', 'the library', 'Kyoto'];
const THINGS = ['pottery', 'the bike', 'chess', 'the garden', 'a puppy', 'the concert', 'painting', 'running', 'the bakery', 'guitar'];
const TIMES = ['yesterday', 'last week', 'two days ago', 'last Saturday', 'next Friday', 'this morning', 'in 2019', 'on Monday', 'last night', 'tomorrow', '3 weeks ago', ''];
const FORMS = [
  '{n} went to {p} {t} and loved it.',
  'I bought {x} {t} because my old one broke.',
  '{n} lives in {p} now.',
  '{n} works as a nurse at the hospital.',
  '{n} is a teacher and has two kids.',
  'We never went to {p} again after the storm.',
  'My favorite hobby is {x}, I could do it every day.',
  'To fix {x}, first unplug it, then wait 10 seconds and plug it back in.',
  'I quit smoking {t}, so now I run every morning.',
  '{n} doesn\'t like {x} anymore.',
  'Since {n} moved to {p}, we talk on Sundays.',
  'Because of the rain, {n} stayed home {t}.',
  '{n} and {m} met at {p} {t}.',
  'The {x} class starts at 7 pm on Tuesday.',
  'Honestly I hate {x}, but {n} loves it.',
  'Then we had dinner at {p}, while there we saw {m}.',
  'I won the {x} contest {t}! So happy.',
  '{n} said the trip cost 300 dollars.',
  'Do you still play {x}?',
  '{n}: I started {x} {t}, it changed my life.',
];

/** Generated observations (deterministic per seed), `sessions` sessions of `perSession` turns. */
export function syntheticObservations(seed: number, sessions = 4, perSession = 25): Observation[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const out: Observation[] = [];
  for (let s = 0; s < sessions; s++) {
    const t0 = Date.UTC(2023, 4, 1 + 9 * s, 10 + s, 30);
    for (let i = 0; i < perSession; i++) {
      const text = pick(FORMS)
        .replace('{n}', pick(NAMES))
        .replace('{m}', pick(NAMES))
        .replace('{p}', pick(PLACES))
        .replace('{x}', pick(THINGS))
        .replace(' {t}', (x) => {
          const t = pick(TIMES);
          return t ? ` ${t}` : x.slice(0, 0);
        });
      out.push({ text, speaker: pick(NAMES.slice(0, 4)), time: new Date(t0 + i * 60_000 * Math.floor(1 + r() * 30)).toISOString(), session: `s${seed}:${s}` });
    }
  }
  return out;
}
