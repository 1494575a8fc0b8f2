/**
 * Transformers.js backend (ours): zero-shot NLI with `@huggingface/transformers` (an optional peer
 * dependency, imported dynamically) from a LOCAL model folder only (`env.allowRemoteModels = false`).
 * The folder holds a sequence-classification NLI model exported to ONNX: `config.json` (with
 * `label2id` naming `entailment` and `contradiction`), `tokenizer.json`, `tokenizer_config.json` and
 * `onnx/model.onnx` (e.g. an `Xenova/nli-deberta-v3-xsmall` or `Xenova/mobilebert-uncased-mnli` copy).
 *
 * Each question is one premise — the instruction with its `{{path}}` values rendered — against one
 * hypothesis per answer option (a Noul's true / false criteria; a Choice's label descriptions), run as
 * one padded batch. The answer is the softmax of the entailment logits across the options (the
 * standard single-label zero-shot rule, Yin et al. 2019).
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BackendRequest, SystemOneBackend } from '../backend.js';
import { SystemOneError, toSystemOneError } from '../errors.js';
import { type Question, renderInstructions, setOwn } from '../schema.js';

export interface TransformersBackendOptions {
  /** Path of the local model folder. */
  modelPath: string;
  /** ONNX file name under `onnx/` without `.onnx`, as transformers.js names them. Default `model` (fp32). */
  modelFileName?: string;
  /** Max tokens per premise+hypothesis pair (longer pairs are truncated). Default 256. */
  maxLength?: number;
  /** Wrap each option text, e.g. `'This example is {}.'`. Default `'{}'` (the criterion as written). */
  hypothesisTemplate?: string;
}

const REQUIRED = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

/** Throws `SystemOneError('MODEL_NOT_FOUND')` naming the path when the folder or a required file is missing. */
export function checkModelFolder(modelPath: string, modelFileName = 'model'): string {
  const dir = resolve(modelPath);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new SystemOneError('MODEL_NOT_FOUND', `transformers model folder not found: ${dir}`, { details: { path: dir } });
  }
  for (const f of [...REQUIRED, join('onnx', `${modelFileName}.onnx`)]) {
    if (!existsSync(join(dir, f))) {
      throw new SystemOneError('MODEL_NOT_FOUND', `transformers model folder ${dir} has no ${f}`, { details: { path: join(dir, f) } });
    }
  }
  return dir;
}

interface Loaded {
  tokenizer: any;
  model: any;
  entailment: number;
}

/** Softmax of a vector. */
function softmax(xs: number[]): number[] {
  const m = Math.max(...xs);
  const e = xs.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/**
 * Create the Transformers.js NLI backend. The folder is checked immediately (typed error naming the
 * path); the model is loaded on first use.
 * @throws SystemOneError('MODEL_NOT_FOUND') for a missing folder or file.
 */
export function createTransformersBackend(options: TransformersBackendOptions): SystemOneBackend {
  const fileName = options.modelFileName ?? 'model';
  const dir = checkModelFolder(options.modelPath, fileName);
  const maxLength = options.maxLength ?? 256;
  const template = options.hypothesisTemplate ?? '{}';
  let loading: Promise<Loaded> | undefined;

  async function load(): Promise<Loaded> {
    let tf: any;
    try {
      tf = await import('@huggingface/transformers');
    } catch (e) {
      throw new SystemOneError('DEPENDENCY_MISSING', 'the transformers backend needs the optional peer dependency @huggingface/transformers (npm i @huggingface/transformers)', { cause: e });
    }
    tf.env.allowRemoteModels = false;
    tf.env.allowLocalModels = true;
    try {
      const tokenizer = await tf.AutoTokenizer.from_pretrained(dir, { local_files_only: true });
      const model = await tf.AutoModelForSequenceClassification.from_pretrained(dir, {
        local_files_only: true,
        dtype: 'fp32',
        device: 'cpu',
        model_file_name: fileName,
      });
      const label2id: Record<string, number> = Object.fromEntries(
        Object.entries((model.config?.label2id ?? {}) as Record<string, number>).map(([k, v]) => [k.toLowerCase(), Number(v)]),
      );
      const entailment = label2id.entailment ?? Object.entries(label2id).find(([k]) => k.startsWith('entail'))?.[1];
      if (entailment === undefined) {
        throw new SystemOneError('MODEL_NOT_FOUND', `model at ${dir} has no "entailment" label in config.json label2id`, { details: { path: dir } });
      }
      return { tokenizer, model, entailment };
    } catch (e) {
      if (SystemOneError.isInstance(e)) throw e;
      throw new SystemOneError('MODEL_NOT_FOUND', `could not load the NLI model from ${dir}: ${e instanceof Error ? e.message : String(e)}`, { cause: e, details: { path: dir } });
    }
  }

  async function entailmentProbs(m: Loaded, premise: string, hypotheses: string[]): Promise<number[]> {
    const premises = hypotheses.map(() => premise);
    const inputs = m.tokenizer(premises, { text_pair: hypotheses.map((h) => template.replace('{}', h)), padding: true, truncation: true, max_length: maxLength });
    const out = await m.model(inputs);
    const logits = out.logits;
    const [n, k] = logits.dims as number[];
    const data = logits.data as Float32Array;
    const ent: number[] = [];
    for (let i = 0; i < n; i++) ent.push(data[i * k + m.entailment]);
    return softmax(ent);
  }

  return {
    name: `transformers:${dir.split(/[\\/]/).pop()}`,
    async answer(req: BackendRequest) {
      loading ??= load();
      let m: Loaded;
      try {
        m = await loading;
      } catch (e) {
        loading = undefined;
        throw toSystemOneError(e);
      }
      const out: Record<string, unknown> = {};
      for (const [id, q] of Object.entries(req.questions) as [string, Question][]) {
        try {
          const premise = renderInstructions(q, req.state);
          if (q.type === 'noul') {
            const [pt] = await entailmentProbs(m, premise, [q.criteria.true, q.criteria.false]);
            setOwn(out, id, pt);
          } else {
            const labels = Object.keys(q.criteria);
            const ps = await entailmentProbs(m, premise, labels.map((l) => q.criteria[l]));
            setOwn(out, id, { probabilities: Object.fromEntries(labels.map((l, i) => [l, ps[i]])) });
          }
        } catch (e) {
          setOwn(out, id, toSystemOneError(e, 'BACKEND_ERROR'));
        }
      }
      return out;
    },
    async close() {
      const m = await loading?.catch(() => undefined);
      await m?.model?.dispose?.();
    },
  };
}
