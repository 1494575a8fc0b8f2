/**
 * Extraction benchmark (a script, not a test):
 *   cd packages/core && npx tsx --conditions=@mem/source bench/extract.ts
 *
 * Per-call cost of extractKeywords, extractEntities, resolveEventTime and extract() on unique
 * ~20-word sentences (so the parse cache never hits), beside the raw library calls they build on
 * (wink-nlp readDoc with pos+ner; chrono.parse), measured in the same run, with ratios.
 */
import { createRequire } from 'node:module';
import * as chrono from 'chrono-node';
import { extractEntities } from '../src/extract/entities.js';
import { extractKeywords } from '../src/extract/keywords.js';
import { resolveEventTime } from '../src/extract/time.js';
import { extract } from '../src/extract/extract.js';

// Own template sentences: 8 × 8 × 8 = 512 unique texts, 18–24 words each.
const WHO = ['Caroline', 'Melanie and her husband', 'My sister Jane', 'Dr. Alan Moore', 'Our neighbour Tom', 'John from work', 'Grandma Rosa', 'The kids'];
const DID = [
  'went to a pottery class at the community center in Boston',
  'adopted a small brown puppy from the animal shelter downtown',
  'painted a sunrise over the lake near their cabin in Maine',
  'ran the charity marathon and raised money for the children hospital',
  'started volunteering at the food bank on Main Street every week',
  'visited the new science museum with a group of old friends',
  'baked three apple pies for the family reunion in Ohio',
  'signed up for guitar lessons with a teacher from Seattle',
];
const WHEN = ['yesterday', 'last weekend', 'two weekends ago', 'a few days ago', 'the week before last', 'last summer', 'on May 3rd', 'this past Saturday'];
const texts: string[] = [];
for (const w of WHO) for (const d of DID) for (const t of WHEN) texts.push(`${w} ${d} ${t}, and everyone said it was a lot of fun.`);
const words = texts.reduce((s, t) => s + t.split(/\s+/).length, 0) / texts.length;
const OBS = '2023-05-08T13:56:00Z';

const req = createRequire(import.meta.url);
const winkNLP = req('wink-nlp');
const model = req('wink-eng-lite-web-model');
const nlp = winkNLP(model, ['sbd', 'pos', 'ner']);
const its = nlp.its;

/** Best of `rounds` passes over all texts: wall ms and CPU ms (user+system of this process) per call. */
function time(name: string, fn: (t: string, i: number) => unknown, rounds = 3): { wall: number; cpu: number } {
  for (let i = 0; i < 50; i++) fn(`${texts[i]} warm ${name}`, i); // warm-up on texts outside the measured set
  let wall = Infinity;
  let cpu = Infinity;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i++) fn(r === 0 ? texts[i] : `${texts[i]} #${r}`, i);
    wall = Math.min(wall, (performance.now() - t0) / texts.length);
    const c = process.cpuUsage(c0);
    cpu = Math.min(cpu, (c.user + c.system) / 1000 / texts.length);
  }
  return { wall, cpu };
}

const rawWink = time('wink', (t) => {
  const d = nlp.readDoc(t);
  d.tokens().out(its.pos);
  d.tokens().out(its.lemma);
  d.entities().out(its.detail);
});
const rawChrono = time('chrono', (t) => chrono.parse(t, { instant: new Date(OBS), timezone: 0 }));
const kw = time('kw', (t) => extractKeywords(t));
const ent = time('ent', (t) => extractEntities(t + ' ent'));
const tm = time('time', (t) => resolveEventTime(t, OBS));
const all = time('all', (t) => extract(t + ' all', OBS));

const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
type T = { wall: number; cpu: number };
const row = (name: string, t: T, base: T | null, baseName: string) =>
  console.log(`| ${name} | ${us(t.wall)} | ${us(t.cpu)} | ${base ? `${(t.cpu / base.cpu).toFixed(2)} × ${baseName}` : '1.00'} |`);
console.log(`# @mem/core extraction bench (${texts.length} unique sentences, ${words.toFixed(1)} words avg, best of 3 rounds)\n`);
console.log('CPU time is what this process used; wall time also counts waiting for a busy machine.\n');
console.log('| call | wall per call | CPU per call | CPU ratio to its library baseline |');
console.log('|---|---:|---:|---:|');
row('baseline: wink-nlp readDoc + pos + lemma + entities', rawWink, null, '');
row('baseline: chrono.parse', rawChrono, null, '');
row('extractKeywords (cold parse)', kw, rawWink, 'wink');
row('extractEntities (cold parse)', ent, rawWink, 'wink');
row('resolveEventTime', tm, rawChrono, 'chrono');
const both = { wall: rawWink.wall + rawChrono.wall, cpu: rawWink.cpu + rawChrono.cpu };
row('extract() = all three, one parse', all, both, '(wink + chrono)');
console.log(`\nCPU per call: entities + time ${us(ent.cpu + tm.cpu)} (target < 2 ms); keywords ${us(kw.cpu)} (target < 1 ms)`);
