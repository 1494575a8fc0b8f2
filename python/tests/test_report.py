"""The experiment's report: issue 34's target per conversation, the claim file that lets processes share
one rows file, and the tables printed from rows (no peer, no model)."""

from __future__ import annotations

import io
import os

import pytest

from mem_gate.experiment.run import claim, echoed_prompt, meets_target, print_moves, print_report, read_rows


def row(policy, calls, recall10, recall5=None, pct=None, conv=0, f1=0.1, enrich="inherit"):
    return {"peer": "amem", "enrich": enrich, "dataset": "locomo", "conversation": conv, "policy": policy, "pct": pct, "tau": 0.6 if pct else None,
            "llm_calls": calls, "prompt_tokens": calls * 10, "completion_tokens": calls, "write_seconds": 1.0, "questions": 4,
            "recall10": recall10, "recall5": recall5, "f1": f1, "written": 0, "annotated": 0, "skipped": 0, "evidence_lost": 0,
            "evidence_turns": 3}  # fmt: skip


def test_the_target_needs_30_percent_saved_and_recall_within_001():
    base = row("none", 100, 0.80)
    assert meets_target(row("annotate", 70, 0.79, pct=70), base)  # exactly 30% saved, 0.01 lower
    assert not meets_target(row("annotate", 71, 0.80, pct=70), base)  # 29% saved
    assert not meets_target(row("annotate", 60, 0.78, pct=70), base)  # recall 0.02 lower
    assert meets_target(row("annotate", 60, 0.90, pct=70), base)  # higher recall is fine


def test_the_tables_show_savings_recall_at_5_and_the_target_count():
    rows = [row("none", 60, 1.0, 0.75), row("annotate", 40, 1.0, 0.70, pct=70), row("none", 50, 0.5, 0.5, conv=1), row("annotate", 40, 0.4, 0.4, pct=70, conv=1)]
    out = io.StringIO()
    print_report({"command": "x", "versions": {}, "calibration": {}, "gate_only": [], "rows": rows, "seconds": 0.0}, out)
    text = out.getvalue()
    assert "| locomo | 0 | annotate p70 | 0 / 0 / 0 | 40 | 33.3% |" in text
    assert "| 1.000 | +0.000 | 0.700 | -0.050 |" in text  # recall@10, its delta, recall@5, its delta
    assert text.count("| annotate p70 | 2 |") == 1 and "| 1/2 |" in text  # conv 1 saves only 20%: one of two meets the target
    assert "locomo p70 0.6000" in text


def test_raw_note_runs_are_labelled_apart_and_stay_off_the_curve():
    # an A-Mem annotate run whose raw notes had no enrichment (--amem-enrich none, or a row from before it existed)
    legacy = row("annotate", 40, 0.5, 0.5, pct=70)
    del legacy["enrich"]
    rows = [row("none", 60, 1.0, 0.75), row("annotate", 40, 1.0, 0.70, pct=70), legacy, row("annotate", 50, 1.0, 0.75, pct=90)]
    out = io.StringIO()
    print_report({"command": "x", "versions": {}, "calibration": {}, "gate_only": [], "rows": rows, "seconds": 0.0}, out)
    text = out.getvalue()
    assert "| locomo | 0 | annotate p70 (raw notes) | 0 / 0 / 0 | 40 | 33.3% |" in text
    assert "| annotate p70 (raw notes) | 1 |" in text and "| annotate p70 | 1 |" in text
    curve = text[text.index("trade-off curve"):]
    assert "| 70 | 1 | 33.3% | 1.000 | 1.000 | +0.000 |" in curve and "0.500" not in curve.split("SAGE")[0]


def test_processes_share_a_rows_file_through_claims(tmp_path):
    rows = str(tmp_path / "rows.jsonl")
    assert read_rows(rows) == {}
    assert claim(rows, "a") and claim(rows, "a")  # this process may re-claim its own run
    with open(rows + ".claims", "a") as f:
        f.write('{"key": "b", "pid": %d}\n' % os.getppid())  # a live process
        f.write('{"key": "c", "pid": 999999999}\n')  # a process that is gone
    assert not claim(rows, "b") and claim(rows, "c")


def test_mem0_memories_copied_from_its_prompt_are_counted():
    pytest.importorskip("mem0")
    from mem0.configs.prompts import ADDITIVE_EXTRACTION_PROMPT

    assert "First extracted memory" in ADDITIVE_EXTRACTION_PROMPT  # the placeholder SmolLM2-135M echoed
    assert echoed_prompt(["First extracted memory", "Second extracted memory", "The user adopted a grey cat named Miso", ""]) == 2


def test_moves_list_the_questions_that_changed_with_the_evidence_ranks():
    base = {**row("none", 60, 0.75), "recalls": [1.0, 0.5], "retrieved": [["a", "b"], ["c", "x", "d"]]}
    gated = {**row("annotate", 40, 0.5, pct=70), "recalls": [1.0, 0.0], "retrieved": [["b", "a"], ["x", "y", "z"]], "noop_ids": ["e", "q"]}
    out = io.StringIO()
    print_moves([base, gated], {("locomo", 0): [["a"], ["d", "e"]]}, lambda s="": print(s, file=out))
    lines = [x for x in out.getvalue().splitlines() if x.startswith("| amem")]
    assert lines == ["| amem | locomo | 0 | annotate p70 | 1 | 2 | [3, –] | [–, –] | 0.50 → 0.00 | 1 |"]  # question 0 only moved rank: not listed
