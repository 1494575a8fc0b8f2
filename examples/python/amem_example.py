"""A-Mem behind the gate (``pip install 'mem-gate[amem]'``): a Noop skips A-Mem's analysis and
evolution calls and is inserted as a raw note linked to the note it repeats, carrying that note's
keywords, context and tags (so A-Mem's retriever embeds it like an enriched note; ``enrich="none"``
stores the content alone).

    npx mem-gate serve --port 8788 &
    OPENAI_API_KEY=... python examples/python/amem_example.py --url http://127.0.0.1:8788

The gate gets A-Mem's own embeddings (``GatedAMem``'s default). For the fully local set-up (SmolLM2 on
llama.cpp, MiniLM, offline) see ``mem-gate-experiment`` in python/README.md.
"""

from __future__ import annotations

import argparse

from agentic_memory.memory_system import AgenticMemorySystem

from mem_gate import GateClient, GatedAMem

ap = argparse.ArgumentParser()
ap.add_argument("--url", default="http://127.0.0.1:8788")
ap.add_argument("--tau-noop", type=float, default=None, help="from mem-gate-calibrate for A-Mem's embedder")
args = ap.parse_args()

amem = GatedAMem(AgenticMemorySystem(model_name="all-MiniLM-L6-v2", llm_backend="openai", llm_model="gpt-4o-mini"), GateClient(args.url), "user:alice",
                 tau_noop=args.tau_noop)  # fmt: skip
for text in ["I adopted a grey cat named Miso.", "I adopted a grey cat named Miso.", "My sister lives in Lisbon."]:
    note_id = amem.add_note(text)
    print(amem.gate_policy.verdicts[-1].action, note_id)
print(f"{amem.written} notes with LLM calls, {amem.annotated} raw notes, {amem.skipped} dropped")
