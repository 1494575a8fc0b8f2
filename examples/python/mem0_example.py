"""Mem0 behind the gate (``pip install 'mem-gate[mem0]'``): a Noop skips Mem0's LLM extraction and is
stored raw (``infer=False``) with ``duplicate_of``. Needs an LLM for Mem0 (here: any OpenAI-compatible
server at $OPENAI_BASE_URL) and the gate service (``npx mem-gate serve``).

    python examples/python/mem0_example.py --url http://127.0.0.1:8788
"""

from __future__ import annotations

import argparse

from mem0 import Memory
from sentence_transformers import SentenceTransformer

from mem_gate import GateClient, GatedMem0

ap = argparse.ArgumentParser()
ap.add_argument("--url", default="http://127.0.0.1:8788")
ap.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
ap.add_argument("--tau-noop", type=float, default=None, help="from mem-gate-calibrate for this embedder")
args = ap.parse_args()

st = SentenceTransformer(args.model, device="cpu")
memory = Memory.from_config({"embedder": {"provider": "huggingface", "config": {"model": args.model}}})
gated = GatedMem0(memory, GateClient(args.url), embed=lambda t: st.encode(t, normalize_embeddings=True).tolist(), tau_noop=args.tau_noop)
for text in ["I adopted a grey cat named Miso.", "I adopted a grey cat named Miso.", "My sister lives in Lisbon."]:
    out = gated.add(text, user_id="alice")
    print(out["gate"]["action"], [r["memory"] for r in out.get("results", [])])
print(gated.search("What is my cat called?", filters={"user_id": "alice"}, top_k=3))
