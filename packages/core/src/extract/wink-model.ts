/**
 * wink-eng-lite-web-model (MIT), the same model loaded in about half the time (ours; issue 36 point 4:
 * every `mem ask` pays this load once, for the question's parse).
 *
 * The package's own `core()` reads its 3 MB JSON through `require` at import, deep-copies it with
 * `JSON.parse(JSON.stringify(…))`, decodes two base64 tables with `atob` and a per-byte loop, and
 * builds the 87,000-word lexeme lookup; requiring the package also loads the sentiment model (0.4 MB
 * JSON, unused by our `sbd`/`pos`/`ner` pipeline) and WordNet's lemma exception tables (0.2 MB of
 * JavaScript, used only when a word has more than one lemma). `loadWinkModel` builds the same model
 * object: one `JSON.parse` of the file (a fresh object, so no copy is needed), `Buffer` base64
 * decoding, the same lookups (the large one in a Map, `lexemeLookup`); the sentiment automaton is an
 * empty one (sentiment is never in our pipe; `readDoc` runs an automaton only for annotations in
 * the pipe), and the addons (lemmatizer, stemmer, readability statistics) load on their first call.
 *
 * Shape: the object wink-nlp takes as its model (`core`, `sbd`, `pos`, `ner`, `negation`, `sa`,
 * `metaCER`, `featureFn`, `addons`). `core()` returns a new model each call, equal to the package's
 * own `core()` (checked by wink-model.test.ts, which fails if a wink-eng-lite-web-model update
 * changes its layout). Errors: none of its own; `loadWinkModel` throws whatever `require` or
 * `JSON.parse` throws when the package's files are missing or changed (the caller then uses the
 * package's own loader).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The wink model object (wink-nlp's model contract; untyped in the package). */
export type WinkModel = Record<string, any>;

/** An automaton with no states (wink-nlp automaton.js `emptyModelJSON` layout). */
const EMPTY_MACHINE = JSON.stringify([100, 0, { 0: {} }, {}, {}, {}]);

/** A base64 string decoded into a Uint32Array of its own (aligned) buffer. */
function uint32FromBase64(data: string): Uint32Array {
  const bytes = Buffer.from(data, 'base64');
  return new Uint32Array(Uint8Array.prototype.slice.call(bytes).buffer);
}

/** Object.create(null) lookup from each element of `list` to its index. */
function indexOf(list: readonly string[]): Record<string, number> {
  const hash: Record<string, number> = Object.create(null);
  for (let k = 0; k < list.length; k += 1) hash[list[k]!] = k;
  return hash;
}

/**
 * The lexeme lookup (word → index, 87,593 words), held in a Map behind a Proxy that reads and writes
 * like the package's `Object.create(null)` object (get, set, `in`, own keys, delete): wink-nlp only
 * reads `hash[word]` and adds out-of-vocabulary words with `hash[word] = index`. Filling a Map takes
 * about half the time of filling a dictionary-mode object, whose every key V8 must internalize first;
 * a lookup through the Proxy costs tens of nanoseconds more, a few per token.
 */
function lexemeLookup(list: readonly string[]): Record<string, number> {
  const index = new Map<string | symbol, number>();
  for (let k = 0; k < list.length; k += 1) index.set(list[k]!, k);
  return new Proxy(Object.create(null) as Record<string, number>, {
    get: (_t, key) => (typeof key === 'string' ? index.get(key) : undefined),
    set: (_t, key, value: number) => (index.set(key, value), true),
    has: (_t, key) => index.has(key),
    ownKeys: () => [...index.keys()],
    getOwnPropertyDescriptor: (_t, key) => (index.has(key) ? { value: index.get(key), writable: true, enumerable: true, configurable: true } : undefined),
    deleteProperty: (_t, key) => (index.delete(key), true),
  });
}

/**
 * The core model from `file` (eng-core-web-model.json), unpacked as the package's read-core-model.js
 * and load-core-model.js (1.8.x) unpack it.
 */
export function readWinkCoreModel(file: string): WinkModel {
  const model = JSON.parse(readFileSync(file, 'utf8')) as WinkModel;
  const packing = model.packing;
  const features = model.features;
  const pos = model.pos;
  model.lexicon = uint32FromBase64(model.lexicon);
  model.xpansions = uint32FromBase64(model.xpansions);
  for (const f in packing.layout) if (packing.layout[f][3] === 0) features[f].hash = indexOf(features[f].list);
  features.lexeme.hash = lexemeLookup(features.lexeme.list);
  const clusters = features.posClusters.list;
  for (let k = 0; k < clusters.length; k += 1) clusters[k] = new Set(clusters[k].split('_').map((e: string) => pos.hash[e] || 0));
  // load-core-model.js
  packing.efList = [];
  for (const f in packing.layout) {
    const layout = packing.layout[f];
    if (layout[3] === 0) {
      features[f].intrinsicSize = features[f].list.length;
      features[f].index = features[f].list.length;
      features[f].maxIndex = layout[1] >>> layout[2];
    }
    if (layout[4] === 1) packing.efList.push(f);
  }
  features.lexeme.intrinsicSize = features.lexeme.list.length;
  features.lexeme.index = features.lexeme.list.length;
  return model;
}

/**
 * The English lite model for wink-nlp, built from the package's files without loading its entry
 * point. `req` must resolve `wink-eng-lite-web-model` (a `createRequire` of the caller).
 */
export function loadWinkModel(req: NodeRequire): WinkModel {
  const dist = path.join(path.dirname(req.resolve('wink-eng-lite-web-model/package.json')), 'dist');
  const load = (file: string) => req(path.join(dist, file));
  const coreFile = path.join(dist, 'languages', 'cur', 'models', 'eng-core-web-model.json');
  if (!existsSync(coreFile)) throw new Error(`wink-eng-lite-web-model: no ${coreFile}`);
  const lazy = (file: string) => {
    let fn: ((...args: unknown[]) => unknown) | undefined;
    return (...args: unknown[]) => (fn ??= load(file))(...args);
  };
  const model: WinkModel = Object.create(null);
  model.core = () => readWinkCoreModel(coreFile);
  model.sbd = load('load-sbd-model.js');
  model.pos = load('load-pos-model.js');
  model.ner = load('load-ner-model.js');
  model.negation = load('load-negation-model.js');
  model.sa = () => ({ machines: [EMPTY_MACHINE], setter: lazy('sa-setter.js') });
  model.metaCER = load('load-cer-meta-model.js');
  model.featureFn = load('feature.js');
  model.addons = Object.create(null);
  model.addons.stem = lazy('porter-stemmer.js');
  model.addons.lemmatize = lazy('lemmatize.js');
  model.addons.readabilityStats = lazy('readability-stats.js');
  model.addons.wordVectors = undefined;
  return model;
}
