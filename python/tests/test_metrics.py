"""The experiment's metrics (pure functions)."""

from __future__ import annotations

from mem_gate.metrics import covered_recall, recall_at_k, spread, token_f1


def test_strict_recall_counts_only_retrieved_evidence_turns():
    assert recall_at_k(["D1:1", "D1:3"], ["D1:1", "D1:2"]) == 0.5
    assert recall_at_k([], ["D1:1"]) == 0.0


def test_covered_recall_credits_a_skipped_turn_only_through_its_retrieved_nearest_member():
    evidence = ["D1:2", "D1:5"]
    nearest_of = {"D1:2": "D1:1", "D1:5": "D1:4"}  # both evidence turns were skipped by the gate
    # D1:1 retrieved -> D1:2 covered; D1:4 not retrieved -> D1:5 not covered.
    assert covered_recall(["D1:1", "D1:9"], evidence, nearest_of) == 0.5
    assert recall_at_k(["D1:1", "D1:9"], evidence) == 0.0
    # A turn that was not skipped is never credited through another turn.
    assert covered_recall(["D1:4"], ["D1:3"], {}) == 0.0
    # An unknown nearest member ("" when the gate's id was not mapped) matches nothing, even "".
    assert covered_recall([""], ["D1:7"], {"D1:7": ""}) == 0.0


def test_token_f1_is_squad_style():
    assert token_f1("The cat, Miso!", "miso cat") == 1.0
    assert abs(token_f1("a grey cat", "grey dog") - 0.5) < 1e-9
    assert token_f1("", "x") == 0.0


def test_spread_is_over_conversations():
    sp = spread([0.5, 0.7])
    assert abs(sp["mean"] - 0.6) < 1e-12 and abs(sp["sd"] - 0.1) < 1e-12 and sp["min"] == 0.5 and sp["max"] == 0.7
    assert spread([0.3])["sd"] == 0.0
