"""onnxruntime's own Python session on all-MiniLM-L6-v2 (issue 33 point 6 baseline; ours).

Reads {"model": <onnx file>, "tokenizer": <tokenizer.json>, "texts": [...], "max_tokens": 256,
"batch": 32} on stdin; embeds the texts one at a time, then in batches of `batch` (padded to the
longest in the batch), with masked mean pooling and L2 normalisation (the sentence-transformers
recipe); prints one JSON line: sentences per CPU second and per wall second for both, the thread
settings and the first vector (for the agreement check). Needs PyPI onnxruntime, tokenizers, numpy.
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

req = json.load(sys.stdin)
tok = Tokenizer.from_file(req["tokenizer"])
tok.enable_truncation(max_length=req.get("max_tokens", 256))
tok.no_padding()  # padded per batch below, to the longest text (tokenizer.json may ask for a fixed length)
opts = ort.SessionOptions()
threads = req.get("threads")
if threads:
    opts.intra_op_num_threads = threads
sess = ort.InferenceSession(req["model"], sess_options=opts, providers=["CPUExecutionProvider"])
names = [i.name for i in sess.get_inputs()]


def embed(texts):
    encs = tok.encode_batch(texts) if len(texts) > 1 else [tok.encode(texts[0])]
    n = max(len(e.ids) for e in encs)
    ids = np.zeros((len(encs), n), dtype=np.int64)
    mask = np.zeros((len(encs), n), dtype=np.int64)
    for i, e in enumerate(encs):
        ids[i, : len(e.ids)] = e.ids
        mask[i, : len(e.ids)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        feeds["token_type_ids"] = np.zeros_like(ids)
    out = sess.run(None, feeds)[0]
    m = mask[:, :, None].astype(np.float32)
    v = (out * m).sum(1) / np.maximum(m.sum(1), 1e-9)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


texts = req["texts"]
for t in texts[:10]:
    embed([t])


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    r = fn()
    return r, time.process_time() - c0, time.perf_counter() - w0


first, cpu1, wall1 = timed(lambda: [embed([t]) for t in texts][0])
b = req.get("batch", 32)
_, cpub, wallb = timed(lambda: [embed(texts[i : i + b]) for i in range(0, len(texts), b)])
print(
    json.dumps(
        {
            "onnxruntime": ort.__version__,
            "intra_op_threads": opts.intra_op_num_threads,
            "one_cpu_per_s": len(texts) / cpu1,
            "one_wall_per_s": len(texts) / wall1,
            "batch_cpu_per_s": len(texts) / cpub,
            "batch_wall_per_s": len(texts) / wallb,
            "first": first[0].tolist(),
        }
    )
)
