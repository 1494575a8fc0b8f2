"""Gated tier: the wrappers in front of REAL A-Mem and REAL Mem0, on a small stream of our own sentences.

Needs the peers (``pip install 'mem-gate[experiment]'``, or the venv of
``python/scripts/setup-env.sh``): skipped with the reason when they are not importable. The
A-Mem test also needs SmolLM2 on llama.cpp from ``pnpm models:fetch`` (or $MEM_LLM_BASE_URL): skipped
with the reason otherwise. The gate is the real HTTP service (``mem-gate serve``, or $MEM_GATE_URL);
vectors come from MiniLM, the embedder both peers use.
"""

from __future__ import annotations

import uuid

import pytest

from mem_gate import GatedAMem, GatedMem0
from mem_gate.experiment import env

_missing = env.heavy_packages_missing()
pytestmark = pytest.mark.skipif(_missing is not None, reason=f"peers not installed: {_missing}")

# Written for these tests (not from any data set): facts, and exact repeats.
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
    try:
        svc = env.start_gate_service()
    except env.Unavailable as e:
        pytest.skip(f"no gate service: {e}")
    try:
        yield env.gate_client(svc.url)
    finally:
        svc.close()


@pytest.fixture(scope="module")
def vectors():
    return dict(zip(STREAM, env.embed(STREAM)))


@pytest.mark.parametrize("policy", ["annotate", "skip"])
def test_mem0_noops_are_stored_raw_or_dropped(gate, vectors, policy):
    mem = env.make_mem0(None)
    scope = f"test-{policy}-{uuid.uuid4().hex[:8]}"
    g = GatedMem0(mem, gate, embed=lambda t: vectors[t], policy=policy, scope_of=lambda u, a, r: scope)
    outs = [g.add([{"role": "user", "content": t}], user_id="alice", infer=False) for t in STREAM]
    noops = {i for i, o in enumerate(outs) if o["gate"]["action"] != "write"}
    assert noops == REPEATS
    stored = mem.get_all(filters={"user_id": "alice"}, top_k=100)["results"]
    if policy == "skip":
        assert len(stored) == len(STREAM) - len(REPEATS)
    else:
        assert len(stored) == len(STREAM)
        raw = [m for m in stored if (m.get("metadata") or {}).get("gate") == "noop"]
        assert len(raw) == len(REPEATS)
        originals = {o["gate"]["id"] for i, o in enumerate(outs) if i not in REPEATS}
        assert {m["metadata"]["duplicate_of"] for m in raw} <= originals
    hits = mem.search("What is the name of my cat?", top_k=3, filters={"user_id": "alice"})["results"]
    assert hits and "Miso" in hits[0]["memory"]


def test_amem_annotate_saves_the_repeats_llm_calls_and_keeps_their_notes(gate, vectors, tmp_path):
    if env.llm_unavailable() is not None:
        pytest.skip(env.llm_unavailable())
    svc = env.start_llm_server(tmp_path)
    try:
        backend = env.ServerChat(svc.url)
        runs = {}
        for gated in (False, True):
            llm = env.local_llm(backend, max_tokens=48)
            mem = env.make_amem(tmp_path / f"chroma-{gated}", llm)
            peer = GatedAMem(mem, gate, f"amem-{uuid.uuid4().hex[:8]}", embed=lambda t: vectors[t]) if gated else mem
            ids = [peer.add_note(t, time="202401011200") for t in STREAM]
            runs[gated] = {"calls": llm.calls, "failures": llm.failures, "mem": mem, "ids": ids}
        base, gated_run = runs[False], runs[True]
        assert base["failures"] == 0 and gated_run["failures"] == 0
        # one analysis call per note plus one evolution call per note after the first
        assert base["calls"] == 2 * len(STREAM) - 1
        # the repeats made no LLM call, and every sentence is a note
        assert base["calls"] - gated_run["calls"] == 2 * len(REPEATS)
        mem = gated_run["mem"]
        assert all(i is not None for i in gated_run["ids"]) and mem.retriever.count() == len(STREAM)
        repeat_note = mem.read(gated_run["ids"][2])
        assert repeat_note.content == STREAM[2] and repeat_note.links == [gated_run["ids"][0]]
        hits = mem.search("What is the name of my cat?", k=3)
        assert any("Miso" in mem.read(h["id"]).content for h in hits)
    finally:
        svc.close()
