"""The sentence-transformers recipe of all-MiniLM-L6-v2, on the same ONNX files we run (ours).

sentence-transformers' all-MiniLM-L6-v2 = BertModel, truncation at max_seq_length 256 word pieces,
mean pooling of the token vectors weighted by the attention mask, then L2 normalisation. This script
does exactly that with PyPI `onnxruntime` + `tokenizers` (the Rust tokenizer sentence-transformers'
fast tokenizer wraps), one text per call (no padding at all), so it is an implementation independent
of Transformers.js (tokenizer in JS, pooling in JS) and of langchain4j (which splits texts over 510
tokens into partitions and averages them, so it is no reference for long texts).

Usage: python st_reference.py <model folder> <texts file, texts separated by lines '---'> <out.json>
Writes {"recipe", "max_tokens", "texts", "tokens": [word pieces incl. [CLS]/[SEP] before truncation],
"fp32": [[384 floats]...], "q8": [...]}. Needs: pip install onnxruntime tokenizers numpy.
"""
import json
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

MAX_TOKENS = 256  # sentence-transformers max_seq_length of all-MiniLM-L6-v2

folder, texts_file, out_file = sys.argv[1:4]
texts = [t.strip('\n') for t in open(texts_file, encoding='utf-8').read().split('\n---\n')]
texts = [t for t in texts if t.strip()]

full = Tokenizer.from_file(f'{folder}/tokenizer.json')
full.no_truncation()
full.no_padding()  # tokenizer.json pads to a fixed 128 tokens; sentence-transformers never does that for one text
tok = Tokenizer.from_file(f'{folder}/tokenizer.json')
tok.enable_truncation(max_length=MAX_TOKENS)
tok.no_padding()


def embed(model_file):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model_file, sess_options=opts, providers=['CPUExecutionProvider'])
    names = [i.name for i in sess.get_inputs()]
    out = []
    for t in texts:
        e = tok.encode(t)
        ids = np.array([e.ids], dtype=np.int64)
        mask = np.array([e.attention_mask], dtype=np.int64)
        feeds = {'input_ids': ids, 'attention_mask': mask}
        if 'token_type_ids' in names:
            feeds['token_type_ids'] = np.zeros_like(ids)
        h = sess.run(None, feeds)[0]  # [1, n, 384] token vectors
        m = mask[:, :, None].astype(np.float32)
        v = (h * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
        out.append([round(float(x), 7) for x in v[0]])
    return out


import tokenizers

res = {
    'versions': {'onnxruntime': ort.__version__, 'tokenizers': tokenizers.__version__},
    'recipe': 'sentence-transformers all-MiniLM-L6-v2: truncate at 256 word pieces, masked mean pooling, L2 normalise (onnxruntime + tokenizers, one text per call)',
    'max_tokens': MAX_TOKENS,
    'texts': texts,
    'tokens': [len(full.encode(t).ids) for t in texts],
    'fp32': embed(f'{folder}/onnx/model.onnx'),
    'q8': embed(f'{folder}/onnx/model_quantized.onnx'),
}
with open(out_file, 'w', encoding='utf-8') as f:
    json.dump(res, f, ensure_ascii=False)
    f.write('\n')
print(f'{len(texts)} texts, tokens {res["tokens"]} -> {out_file}')
