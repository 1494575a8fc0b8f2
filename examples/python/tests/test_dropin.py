"""Gated tier: the @mem gate in front of REAL A-Mem and REAL Mem0, on a small stream of our own sentences.

Runs with the venv of ``examples/python/scripts/setup-env.sh`` (skipped, with the reason, when the
packages are not importable); the A-Mem test also needs SmolLM2 from ``pnpm models:fetch``: its
llama.cpp server (or $MEM_LLM_BASE_URL) when built, else the same GGUF in-process with transformers;
it is skipped with the reason when neither is there. The gate is the repository's HTTP
service (``mem gate serve``), reached through the stdlib client; vectors come from MiniLM, the
embedder both peers use.

    bash examples/python/scripts/test-dropin.sh
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import dropin_env as env  # noqa: E402
from mem_gate_client import GatePreFilter  # noqa: E402

_missing = env.heavy_packages_missing()
pytestmark = pytest.mark.skipif(_missing is not None, reason=f"python drop-in venv absent: {_missing}")

# Written for these tests (not from any data set): facts, a paraphrase and exact repeats.
STREAM = [
    "I adopted a grey cat named Miso last spring.",
    "My sister lives in Lisbon and works as an architect.",
    "I adopted a grey cat named Miso last spring.",
    "I started learning to play the cello in September.",
    "My sister lives in Lisbon and works as an architect.",
    "We are planning a trip to Japan in April.",
]
REPEATS = {2, 4}  # indices that repeat an earlier sentence word for word


@pytest.fixture(scope="module")
def gate():
    svc = env.start_gate_service()
    try:
        yield env.gate_client(svc.url)
    finally:
        if svc is not None:
            svc.close()


@pytest.fixture(scope="module")
def vectors():
    return env.embed(STREAM)


def _scope(name: str) -> str:
    return f"test-{name}-{uuid.uuid4().hex[:8]}"


def test_minilm_is_the_peers_geometry(vectors):
    # The vectors we send equal what Mem0's HuggingFace embedder computes for the same text (cosine 1).
    import numpy as np

    m = env.minilm()
    theirs = m.encode(STREAM[0])
    ours = np.array(vectors[0])
    assert len(vectors[0]) == 384
    assert float(ours @ theirs / np.linalg.norm(theirs)) > 0.9999


@pytest.mark.parametrize("policy", ["noop-filter", "adaptive"])
def test_mem0_behind_the_gate(gate, vectors, tmp_path, policy):
    mem = env.make_mem0(tmp_path)
    scope = _scope(f"mem0-{policy}")
    pre = GatePreFilter(gate, scope, policy=policy)
    stored = {}
    for i, (text, v) in enumerate(zip(STREAM, vectors)):
        skip, r = pre.check(vector=v)
        if i == 0:
            assert not skip and r["decision"]["n"] == 0
        if skip:
            continue
        res = mem.add([{"role": "user", "content": text}], user_id="alice", metadata={"turn": i}, infer=False)
        for row in res["results"]:
            stored[row["id"]] = i
            pre.record(row["id"], vector=v)
    # Word-for-word repeats score s_vMF near 1 against their original: skipped by either policy
    # under the paper's τ_noop; every novel sentence is stored.
    skipped = {i for i, d in enumerate(pre.decisions) if d["skipped"]}
    if policy == "noop-filter":
        assert skipped == REPEATS, pre.decisions
    else:
        assert skipped <= REPEATS and skipped, pre.decisions
    assert sorted(stored.values()) == [i for i in range(len(STREAM)) if i not in skipped]
    assert gate.stats(scope)["size"] == len(stored)
    # Mem0's own retrieval still finds the fact.
    hits = mem.search("What is the name of my cat?", top_k=3, filters={"user_id": "alice"})["results"]
    assert hits and "Miso" in hits[0]["memory"]


def test_amem_behind_the_gate_saves_llm_calls(gate, vectors, tmp_path):
    # The llama.cpp server of `pnpm models:fetch` when it is there; else the same GGUF in-process.
    svc, backend = None, None
    if env.llm_unavailable() is None:
        svc = env.start_llm_server(tmp_path)
        backend = env.ServerChat(svc.url)
    elif (env.models_dir() / "smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf").exists():
        backend = env.InProcessChat()
    else:
        pytest.skip(env.llm_unavailable())
    try:
        runs = {}
        for gated in (False, True):
            llm = env.local_llm(backend, max_tokens=48)
            mem = env.make_amem(tmp_path / f"chroma-{gated}", llm)
            pre = GatePreFilter(gate, _scope("amem"), policy="noop-filter") if gated else None
            ids = []
            t0 = time.perf_counter()
            for text, v in zip(STREAM, vectors):
                if pre is not None and pre.check(vector=v)[0]:
                    continue
                mid = mem.add_note(text)
                ids.append(mid)
                if pre is not None:
                    pre.record(mid, vector=v)
            runs[gated] = {"notes": len(ids), "calls": llm.calls, "failures": llm.failures, "seconds": time.perf_counter() - t0, "mem": mem, "ids": ids}
        base, gated_run = runs[False], runs[True]
        # The server accepted every call (A-Mem's json_schema format was translated) ...
        assert base["failures"] == 0 and gated_run["failures"] == 0
        # ... A-Mem made one analysis call per note plus one evolution call per note after the first ...
        assert base["calls"] == 2 * len(STREAM) - 1
        # ... and the gate skipped exactly the repeats, saving their LLM calls.
        assert gated_run["notes"] == len(STREAM) - len(REPEATS)
        assert gated_run["calls"] == 2 * gated_run["notes"] - 1
        assert base["calls"] - gated_run["calls"] == 2 * len(REPEATS)
        # A-Mem's own retrieval finds the cat note in the gated store.
        mem = gated_run["mem"]
        hits = mem.search("What is the name of my cat?", k=3)
        assert any("Miso" in mem.read(h["id"]).content for h in hits)
        print(f"A-Mem via {backend.name}: {base['calls']} LLM calls in {base['seconds']:.0f}s without the gate, {gated_run['calls']} in {gated_run['seconds']:.0f}s with it")
    finally:
        if svc is not None:
            svc.close()
