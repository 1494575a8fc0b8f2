/**
 * Test fixture (not exported): writes a tiny NLI sequence-classification model folder offline —
 * `config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx` — so the transformers
 * backend runs a real ONNX session in tests.
 *
 * Graph (opset 13): E = Gather(W_emb, input_ids) + Gather(W_type, token_type_ids); masked mean over
 * the sequence with attention_mask; logits = mean · W_out + b (labels entailment / neutral / contradiction).
 * Tokenizer: transformers.js 3.x has no `WordLevel` model, so the vocabulary is a whole-word
 * `WordPiece` one (no `##` pieces), which tokenises exactly like a word-level tokenizer; lower-casing
 * normaliser, `Whitespace` pre-tokenizer, BERT-style `[CLS] A [SEP] B [SEP]` template.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

let onnx: any;
/**
 * onnx-proto is generated for protobufjs 6, which finds the `long` package through an eval'd
 * `require` that fails under vitest's module loader (leaving a broken `util.Long`). Load it with
 * Node's own `require` and hand protobufjs its `long` dependency explicitly.
 */
async function loadOnnx(): Promise<any> {
  if (onnx) return onnx;
  const req = createRequire(import.meta.url);
  const fromOnnx = createRequire(req.resolve('onnx-proto'));
  const pbPath = fromOnnx.resolve('protobufjs/minimal');
  const pb = fromOnnx(pbPath);
  if (typeof pb.util?.Long?.fromBits !== 'function') {
    pb.util.Long = createRequire(pbPath)('long');
    pb.configure();
  }
  onnx = fromOnnx('onnx-proto').onnx;
  return onnx;
}

export interface TinyNliWeights {
  /** Words of the vocabulary (after the 4 special tokens [PAD] [UNK] [CLS] [SEP]). */
  words: string[];
  /** Embedding per token id (4 specials first), each of length `dim`. */
  embeddings: number[][];
  /** Token-type embeddings (2 rows). */
  typeEmbeddings: number[][];
  /** `dim x 3` output projection and bias; columns are entailment, neutral, contradiction. */
  wOut: number[][];
  bias: number[];
}

export const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

function tensor(name: string, dims: number[], values: number[], int64 = false) {
  return int64
    ? { name, dims, dataType: onnx.TensorProto.DataType.INT64, int64Data: values }
    : { name, dims, dataType: onnx.TensorProto.DataType.FLOAT, floatData: values };
}

function valueInfo(name: string, elemType: number, dims: (string | number)[]) {
  return {
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
  };
}

/** Write the model folder; returns its path. */
export async function writeTinyNliModel(dir: string, w: TinyNliWeights): Promise<string> {
  await loadOnnx();
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const vocabList = [...SPECIALS, ...w.words];
  const dim = w.embeddings[0].length;
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const INT64 = onnx.TensorProto.DataType.INT64;
  const node = (opType: string, input: string[], output: string[], attribute: any[] = []) => ({ opType, input, output, attribute, name: output[0] });
  const graph = {
    name: 'tiny_nli',
    node: [
      node('Gather', ['w_emb', 'input_ids'], ['e_tok'], [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
      node('Gather', ['w_type', 'token_type_ids'], ['e_type'], [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
      node('Add', ['e_tok', 'e_type'], ['e']),
      node('Cast', ['attention_mask'], ['mask_f'], [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: FLOAT }]),
      node('Unsqueeze', ['mask_f', 'axes_2'], ['mask_3']),
      node('Mul', ['e', 'mask_3'], ['e_masked']),
      node('ReduceSum', ['e_masked', 'axes_1'], ['sum'], [{ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
      node('ReduceSum', ['mask_3', 'axes_1'], ['count'], [{ name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }]),
      node('Div', ['sum', 'count'], ['pooled']),
      node('MatMul', ['pooled', 'w_out'], ['proj']),
      node('Add', ['proj', 'b_out'], ['logits']),
    ],
    initializer: [
      tensor('w_emb', [vocabList.length, dim], w.embeddings.flat()),
      tensor('w_type', [2, dim], w.typeEmbeddings.flat()),
      tensor('w_out', [dim, 3], w.wOut.flat()),
      tensor('b_out', [3], w.bias),
      tensor('axes_1', [1], [1], true),
      tensor('axes_2', [1], [2], true),
    ],
    input: [
      valueInfo('input_ids', INT64, ['batch', 'sequence']),
      valueInfo('attention_mask', INT64, ['batch', 'sequence']),
      valueInfo('token_type_ids', INT64, ['batch', 'sequence']),
    ],
    output: [valueInfo('logits', FLOAT, ['batch', 3])],
  };
  const model = { irVersion: 8, producerName: '@mem/system-one tests', opsetImport: [{ domain: '', version: 13 }], graph };
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`invalid ONNX model: ${err}`);
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish());

  const vocab = Object.fromEntries(vocabList.map((t, i) => [t, i]));
  const special = (id: string, type_id: number) => ({ SpecialToken: { id, type_id } });
  const seq = (id: 'A' | 'B', type_id: number) => ({ Sequence: { id, type_id } });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIALS.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
      normalizer: { type: 'Lowercase' },
      pre_tokenizer: { type: 'Whitespace' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [special('[CLS]', 0), seq('A', 0), special('[SEP]', 0)],
        pair: [special('[CLS]', 0), seq('A', 0), special('[SEP]', 0), seq('B', 1), special('[SEP]', 1)],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512,
      pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]', clean_up_tokenization_spaces: true,
    }),
  );
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert', architectures: ['BertForSequenceClassification'], vocab_size: vocabList.length, hidden_size: dim,
      id2label: { 0: 'entailment', 1: 'neutral', 2: 'contradiction' }, label2id: { entailment: 0, neutral: 1, contradiction: 2 },
    }),
  );
  return dir;
}

/** The same forward pass in plain JS (reference for tests): entailment logit of a token-id/type-id sequence. */
export function referenceLogits(w: TinyNliWeights, ids: number[], types: number[]): number[] {
  const dim = w.embeddings[0].length;
  const mean = new Array(dim).fill(0);
  ids.forEach((id, t) => {
    for (let d = 0; d < dim; d++) mean[d] += (w.embeddings[id][d] + w.typeEmbeddings[types[t]][d]) / ids.length;
  });
  return [0, 1, 2].map((k) => w.bias[k] + mean.reduce((s, v, d) => s + v * w.wOut[d][k], 0));
}
