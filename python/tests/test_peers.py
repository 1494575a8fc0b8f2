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


class ScriptedLLM:
    """A-Mem's LLM slot answered from a script (no server): the analysis of a sentence gives fixed
    keywords / context / tags chosen by its first word; evolution always answers "do not evolve"."""

    ANALYSIS = {
        "I": {"keywords": ["pet", "cat", "adoption"], "context": "The user's household pets", "tags": ["pets", "home"]},
        "My": {"keywords": ["sister", "Lisbon", "architect"], "context": "The user's family and where they live", "tags": ["family"]},
        "We": {"keywords": ["travel", "Japan"], "context": "Travel plans", "tags": ["travel"]},
    }

    def __init__(self) -> None:
        self.calls = 0

    def get_completion(self, prompt: str, response_format: object = None, temperature: float = 0.0, max_tokens: object = None) -> str:
        import json

        self.calls += 1
        if "should_evolve" in json.dumps(response_format):
            return json.dumps({"should_evolve": False, "actions": [], "suggested_connections": [], "tags_to_update": [],
                               "new_context_neighborhood": [], "new_tags_neighborhood": []})  # fmt: skip
        content = prompt.rsplit("Content for analysis:", 1)[-1].strip()
        return json.dumps(self.ANALYSIS[content.split()[0]])


@pytest.mark.parametrize("enrich", ["inherit", "none"])
def test_amem_raw_note_takes_its_originals_enrichment_in_the_retriever(gate, vectors, tmp_path, enrich):
    # real A-Mem and Chroma; its LLM is scripted (what is tested is the no-LLM path, not the model)
    llm = ScriptedLLM()
    mem = env.make_amem(tmp_path / f"chroma-{enrich}", llm)
    g = GatedAMem(mem, gate, f"amem-enrich-{uuid.uuid4().hex[:8]}", embed=lambda t: vectors[t], enrich=enrich)
    ids = [g.add_note(t, time="202401011200") for t in STREAM]
    assert llm.calls == 2 * (len(STREAM) - len(REPEATS)) - 1  # the repeats asked nothing
    repeat, original = mem.retriever.get_by_id(ids[2]), mem.retriever.get_by_id(ids[0])
    assert repeat["duplicate_of"] == ids[0] and repeat["gate"] == "noop"
    if enrich == "inherit":
        # the same keywords / context / tags as its original, so A-Mem embeds it the same way (content + metadata)
        assert (repeat["keywords"], repeat["context"], repeat["tags"]) == (original["keywords"], original["context"], original["tags"])
        assert repeat["enhanced_content"] == original["enhanced_content"]  # a word-for-word repeat: the very same text embedded
        assert g.inherited == len(REPEATS)
    else:
        assert repeat["enhanced_content"] == STREAM[2] and repeat["context"] == "General" and g.inherited == 0
    # a question that only the enrichment answers ("household pets" is in no sentence)
    top2 = {h["id"] for h in mem.search("household pets", k=2)}
    assert (top2 == {ids[0], ids[2]}) == (enrich == "inherit")
