#!/usr/bin/env node
// `pnpm models:install <weights.json> <package>/<path under src/models>` (issue 35): the one explicit
// step that copies a trained System-One weights file into a package. Training scripts write under
// their own folder (or --out), never into another package's src/; this step checks the file first:
// valid JSON, the `mem.learned/1` format (one model or a list of them; a list may also hold a
// `mem.lexicon/1` word table, issue 37: a positive scale and base64 values), every weight finite, and a
// destination under packages/<pkg>/src/ in a `models` folder. It prints what it replaced.
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const [from, to] = process.argv.slice(2);
const fail = (msg) => {
  console.error(`models:install: ${msg}`);
  process.exit(2);
};
if (!from || !to) fail('usage: pnpm models:install <weights.json> <package>/<path>, e.g. out/relevance.json retrieval/src/models/relevance.json');
const src = resolve(process.env.INIT_CWD ?? process.cwd(), from);
if (!existsSync(src)) fail(`no such file: ${src}`);
const dest = resolve(root, 'packages', to);
const rel = relative(resolve(root, 'packages'), dest).split(sep);
if (rel[0] === '..' || rel[1] !== 'src' || !rel.slice(2, -1).includes('models') || !dest.endsWith('.json')) {
  fail(`destination must be packages/<pkg>/src/…/models/<name>.json, got ${relative(root, dest)}`);
}
let parsed;
try {
  parsed = JSON.parse(readFileSync(src, 'utf8'));
} catch (e) {
  fail(`${from} is not JSON: ${e.message}`);
}
const models = Array.isArray(parsed) ? parsed : [parsed];
for (const m of models) {
  if (m?.format === 'mem.lexicon/1' && typeof m.name === 'string') {
    if (!(typeof m.scale === 'number' && m.scale > 0 && Number.isFinite(m.scale)) || typeof m.words !== 'string' || typeof m.values !== 'string' || !/^[A-Za-z0-9+/]*=*$/.test(m.values)) {
      fail(`${from}: lexicon ${m.name} needs a positive scale, words and base64 values`);
    }
    continue;
  }
  if (m?.format !== 'mem.learned/1' || typeof m.name !== 'string') fail(`${from}: every model needs format "mem.learned/1" and a name`);
  const finite = (v) => (Array.isArray(v) ? v.every(finite) : typeof v !== 'number' || Number.isFinite(v));
  if (!finite(m.weights ?? [])) fail(`${from}: model ${m.name} has a non-finite weight`);
}
const replaced = existsSync(dest);
copyFileSync(src, dest);
console.log(`models:install: ${relative(root, src)} -> ${relative(root, dest)} (${models.map((m) => m.name).join(', ')}${replaced ? '; replaced the file there' : ''})`);
