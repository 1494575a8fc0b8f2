"""The policies and both wrappers against an in-process stand-in for the service (conftest.FakeGate)
and stand-ins for the peers' write paths: what each policy stores, what it sends to the LLM path,
what it commits, and the link a Noop keeps. No service, no peer packages."""

from __future__ import annotations

import pytest

from conftest import FakeMem0
from mem_gate import DEFAULT_POLICY, POLICIES, GatedAMem, GatedMem0, GatePolicy

CAT = [1.0, 0.0, 0.0]
CAT_AGAIN = [0.99, 0.05, 0.0]  # cosine ~0.999 with CAT
CELLO = [0.0, 1.0, 0.0]
VEC = {"my cat is Miso": CAT, "Miso is my cat": CAT_AGAIN, "I play the cello": CELLO}


def test_policy_names_and_default():
    assert POLICIES == ("annotate", "skip", "adaptive") and DEFAULT_POLICY == "annotate"


def test_unknown_policy_or_on_noop_is_refused(fake_gate):
    with pytest.raises(ValueError):
        GatePolicy(fake_gate, "s", policy="noop-filter")
    with pytest.raises(ValueError):
        GatePolicy(fake_gate, "s", on_noop="drop")


@pytest.mark.parametrize("policy,expected", [("annotate", "annotate"), ("skip", "skip"), ("adaptive", "annotate")])
def test_a_duplicate_gets_the_policys_action_and_links_its_original(fake_gate, policy, expected):
    pol = GatePolicy(fake_gate, "s", policy=policy)
    first = pol.check(vector=CAT)
    assert first.action == "write" and first.nearest is None
    pol.record("m1", vector=CAT)
    dup = pol.check(vector=CAT_AGAIN)
    assert dup.action == expected and dup.noop
    assert dup.link() == {"gate": "noop", "duplicate_of": "m1", "gate_score": round(dup.score, 6)}
    assert pol.check(vector=CELLO).action == "write"
    assert (pol.written, pol.annotated, pol.skipped) == (2, int(expected == "annotate"), int(expected == "skip"))


def test_mem0_annotate_stores_the_noop_raw_with_infer_false_and_a_link(fake_gate):
    mem = FakeMem0()
    g = GatedMem0(mem, fake_gate, embed=lambda t: VEC[t])
    a = g.add("my cat is Miso", user_id="alice")
    b = g.add("Miso is my cat", user_id="alice")
    c = g.add("I play the cello", user_id="alice")
    assert [x["gate"]["action"] for x in (a, b, c)] == ["write", "annotate", "write"]
    assert [call["infer"] for call in mem.calls] == [True, False, True]
    assert mem.llm_calls == 2  # the Noop never reached the extraction path
    raw = mem.memories[b["results"][0]["id"]]
    assert raw["memory"] == "Miso is my cat"
    assert raw["metadata"]["gate"] == "noop" and raw["metadata"]["duplicate_of"] == a["gate"]["id"] == a["results"][0]["id"]
    # the raw memory is searchable through the wrapper (Mem0's own search) ...
    assert {h["memory"] for h in g.search("miso")["results"]} == {"my cat is Miso", "Miso is my cat"}
    # ... and only enriched writes are in the gate
    assert fake_gate.stats("user:alice|agent:|run:")["size"] == 2
    assert (g.written, g.annotated, g.skipped) == (2, 1, 0)


def test_mem0_skip_drops_the_noop(fake_gate):
    mem = FakeMem0()
    g = GatedMem0(mem, fake_gate, embed=lambda t: VEC[t], policy="skip")
    g.add("my cat is Miso", user_id="alice")
    out = g.add("Miso is my cat", user_id="alice")
    assert out == {"results": [], "gate": {"action": "skip", "score": out["gate"]["score"], "duplicate_of": out["gate"]["duplicate_of"]}}
    assert len(mem.memories) == 1 and len(mem.calls) == 1


def test_mem0_delete_keeps_the_gate_in_step(fake_gate):
    mem = FakeMem0()
    g = GatedMem0(mem, fake_gate, embed=lambda t: VEC[t])
    a = g.add("my cat is Miso", user_id="alice")
    g.delete(a["results"][0]["id"])
    assert fake_gate.stats("user:alice|agent:|run:")["size"] == 0
    assert g.add("Miso is my cat", user_id="alice")["gate"]["action"] == "write"  # nothing left to duplicate


def test_amem_annotate_inserts_a_raw_note_without_llm_calls(fake_gate, fake_amem):
    g = GatedAMem(fake_amem, fake_gate, "alice", embed=lambda t: VEC[t])
    first = g.add_note("my cat is Miso", time="202401011200")
    g.add_note("I play the cello", time="202401011300")  # a second enriched note, with other keywords
    dup = g.add_note("Miso is my cat", time="202401021200")
    assert fake_amem.llm_calls == 4  # only the two first notes went through analysis + evolution
    doc = fake_amem.docs[dup]
    assert doc["document"] == "Miso is my cat"  # its own content, not the original's
    assert doc["metadata"]["gate"] == "noop" and doc["metadata"]["duplicate_of"] == first and doc["metadata"]["links"] == [first]
    # the enrichment of the note it duplicates (not of the last note, not A-Mem's defaults): no LLM call
    assert (doc["metadata"]["keywords"], doc["metadata"]["context"], doc["metadata"]["tags"]) == (["k-0"], "enriched 0", ["t-0"])
    assert g.inherited == 1
    assert fake_amem.read(dup).timestamp == "202401021200"
    assert fake_gate.stats("alice")["size"] == 2 and (g.written, g.annotated, g.skipped) == (2, 1, 0)
    assert g.delete(dup) is True and dup not in fake_amem.docs and fake_gate.stats("alice")["size"] == 2
    g.delete(first)
    assert fake_gate.stats("alice")["size"] == 1


def test_amem_enrich_none_keeps_a_defaults_only_raw_note(fake_gate, fake_amem):
    g = GatedAMem(fake_amem, fake_gate, "alice", embed=lambda t: VEC[t], enrich="none")
    g.add_note("my cat is Miso")
    meta = fake_amem.docs[g.add_note("Miso is my cat")]["metadata"]
    assert (meta["keywords"], meta["context"], meta["tags"]) == ([], "General", []) and g.inherited == 0


def test_amem_a_raw_note_whose_original_is_gone_keeps_the_defaults(fake_gate, fake_amem):
    g = GatedAMem(fake_amem, fake_gate, "alice", embed=lambda t: VEC[t])
    first = g.add_note("my cat is Miso")
    fake_amem.delete(first)  # deleted behind the wrapper's back: the gate still holds it
    meta = fake_amem.docs[g.add_note("Miso is my cat")]["metadata"]
    assert meta["duplicate_of"] == first and (meta["keywords"], meta["context"], meta["tags"]) == ([], "General", []) and g.inherited == 0


def test_amem_unknown_enrich_is_refused(fake_gate, fake_amem):
    with pytest.raises(ValueError):
        GatedAMem(fake_amem, fake_gate, "alice", embed=lambda t: VEC[t], enrich="copy")


def test_amem_skip_returns_none_and_stores_nothing(fake_gate, fake_amem):
    g = GatedAMem(fake_amem, fake_gate, "alice", embed=lambda t: VEC[t], policy="skip")
    g.add_note("my cat is Miso")
    assert g.add_note("Miso is my cat") is None
    assert len(fake_amem.docs) == 1 and fake_amem.llm_calls == 2
