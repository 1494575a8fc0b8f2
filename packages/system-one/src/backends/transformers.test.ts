import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystemOne } from '../controller.js';
import { SystemOneError } from '../errors.js';
import { choice, noul, renderInstructions } from '../schema.js';
import { referenceLogits, SPECIALS, type TinyNliWeights, writeTinyNliModel } from './tiny-nli.fixture.js';
import { createTransformersBackend } from './transformers.js';

const words = ['is', 'it', 'a', 'an', 'cat', 'dog', 'car', 'bus', 'animal', 'vehicle', 'pet', 'thing', 'the', 'about'];
// dim 3: [animal-ness, vehicle-ness, bias]; entailment <- animal-ness, contradiction <- vehicle-ness
const emb: Record<string, number[]> = { cat: [2, 0, 0], dog: [2, 0, 0], pet: [1.5, 0, 0], animal: [3, 0, 0], car: [0, 2, 0], bus: [0, 2, 0], vehicle: [0, 3, 0] };
const weights: TinyNliWeights = {
  words,
  embeddings: [...SPECIALS.map((_, i) => [0, 0, i === 1 ? 0.1 : 0]), ...words.map((w) => emb[w] ?? [0, 0, 0.2])],
  typeEmbeddings: [[0, 0, 0], [0.1, -0.1, 0]],
  wOut: [[1.5, 0, -1], [-1, 0, 1.5], [0, 0.5, 0]],
  bias: [0, 0.1, 0],
};
const vocab = new Map([...SPECIALS, ...words].map((t, i) => [t, i]));
const ids = (text: string) => (text.toLowerCase().match(/\w+|[^\w\s]+/g) ?? []).map((t) => vocab.get(t) ?? 1);

let dir: string;
beforeAll(async () => {
  dir = await writeTinyNliModel(join(mkdtempSync(join(tmpdir(), 'mem-s1-nli-')), 'tiny-nli'), weights);
});
afterAll(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

describe('createTransformersBackend', () => {
  it('a missing folder is a typed error naming the path', () => {
    const err = (() => {
      try {
        createTransformersBackend({ modelPath: '/definitely/not/here/nli' });
      } catch (e) {
        return e;
      }
    })();
    expect(SystemOneError.isInstance(err)).toBe(true);
    expect((err as SystemOneError).code).toBe('MODEL_NOT_FOUND');
    expect((err as SystemOneError).message).toContain('/definitely/not/here/nli');
  });

  it('runs zero-shot NLI on a tiny ONNX model built offline, matching a reference forward pass', async () => {
    const backend = createTransformersBackend({ modelPath: dir });
    const s1 = createSystemOne({ backend, fallback: null });
    const q = noul({ instructions: 'is {{x}} a pet', criteria: { true: 'an animal', false: 'a vehicle' } });
    const pick = choice({ instructions: 'the {{y}} is about', criteria: { creature: 'animal', machine: 'vehicle', other: 'thing' } });
    const state = { x: 'cat', y: 'bus' };
    const r = await s1.ask(state, { q, pick });
    expect(r.traces.every((t) => !t.error && t.backend === 'transformers:tiny-nli')).toBe(true);

    // reference: [CLS] premise [SEP] hypothesis [SEP], type ids 0 then 1, softmax of entailment logits across options
    const entail = (premise: string, hyp: string) => {
      const a = ids(premise);
      const b = ids(hyp);
      const seq = [2, ...a, 3, ...b, 3];
      const types = [0, ...a.map(() => 0), 0, ...b.map(() => 1), 1];
      return referenceLogits(weights, seq, types)[0];
    };
    const premiseQ = renderInstructions(q, state);
    const et = entail(premiseQ, 'an animal');
    const ef = entail(premiseQ, 'a vehicle');
    const expected = Math.exp(et) / (Math.exp(et) + Math.exp(ef));
    expect(r.answers.q).toBeCloseTo(expected, 4);
    expect(r.answers.q).not.toBeCloseTo(0.5, 2); // the options are really distinguished

    const premiseC = renderInstructions(pick, state);
    const es = ['animal', 'vehicle', 'thing'].map((h) => entail(premiseC, h));
    const z = es.reduce((s, e) => s + Math.exp(e), 0);
    expect(r.answers.pick.probabilities.machine).toBeCloseTo(Math.exp(es[1]) / z, 4);
    const labels = ['creature', 'machine', 'other'];
    expect(r.answers.pick.choice).toBe(labels[es.indexOf(Math.max(...es))]);
    // (a mean-pooled linear toy cannot model premise-hypothesis interaction, so no semantic claim here)
    await s1.close();
  });

  it('never loads remote models', async () => {
    const tf = await import('@huggingface/transformers');
    const backend = createTransformersBackend({ modelPath: dir });
    await backend.answer({ state: { x: 'dog' }, questions: { q: noul({ instructions: 'is {{x}} an animal', criteria: { true: 'animal', false: 'vehicle' } }) }, refs: { q: [{ path: 'x', value: 'dog' }] } }, { signal: new AbortController().signal });
    expect(tf.env.allowRemoteModels).toBe(false);
  });
});
