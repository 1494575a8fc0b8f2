"""Wrap A-Mem's note-adding call with the @mem novelty gate (SAGE drop-in, seed 001 section 3.5).

SAGE's drop-in for A-Mem is a fixed-threshold Noop pre-filter: before A-Mem spends LLM calls on a
new note (keywords, tags, links, memory evolution), ask the gate whether the note is redundant
with the user's memories (s_vMF > tau_noop, 0.572 in the paper) and skip it if so. SAGE reports
16-18% of A-Mem's write calls skipped with <= 0.5% change in token-F1 (seed 001, section 4.3).

Run (with the service started by `pnpm mem gate serve`):
    python3 examples/python/amem_example.py --url http://127.0.0.1:8788

With the venv of scripts/setup-env.sh (PyPI `a-mem`, which installs the `agentic_memory` package)
the real AgenticMemorySystem is wrapped: its LLM is the local llama.cpp server of
`pnpm models:fetch`, its embedder MiniLM, and the gate gets MiniLM vectors (see dropin_env.py).
With plain python3 (A-Mem not importable) a clearly labelled STAND-IN class with the same
add_note/delete signature is used, so the example runs anywhere; it does no LLM work.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from typing import Any, Callable, Dict, List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# dropin_env imports only the standard library; importing it first sets the offline switches
# (HF_HUB_OFFLINE, telemetry off, LITELLM_LOCAL_MODEL_COST_MAP) before A-Mem pulls in litellm,
# which otherwise tries to download a price list at import.
import dropin_env  # noqa: E402
from mem_gate_client import GateClient, GatePreFilter  # noqa: E402

try:  # the real A-Mem (PyPI a-mem; the PyPI name agentic-memory is an unrelated project)
    from agentic_memory.memory_system import AgenticMemorySystem  # type: ignore

    USING_STAND_IN = False
except ImportError:  # pragma: no cover - depends on the machine

    class AgenticMemorySystem:  # type: ignore[no-redef]
        """STAND-IN for A-Mem's AgenticMemorySystem (A-Mem is not installed here).

        Same call shape as A-Mem's add_note(content, **kwargs) -> memory id and delete(id); it only
        keeps the notes in a dict and counts calls. It is NOT A-Mem: no LLM, no links, no evolution.
        """

        def __init__(self, **_kwargs: Any) -> None:
            self.notes: Dict[str, str] = {}
            self.add_calls = 0

        def add_note(self, content: str, **_kwargs: Any) -> str:
            self.add_calls += 1
            memory_id = str(uuid.uuid4())
            self.notes[memory_id] = content
            return memory_id

        def delete(self, memory_id: str) -> bool:
            return self.notes.pop(memory_id, None) is not None

    USING_STAND_IN = True


class GatedAgenticMemory:
    """A-Mem with the novelty gate in front of add_note (a ``GatePreFilter`` around it).

    policy="noop-filter" (default, SAGE section 3.5): skip iff s_vMF > tau_noop.
    policy="adaptive": skip iff the adaptive gate says noop (section 3.4); add and update are both
    forwarded to add_note (A-Mem's own memory evolution merges related notes).
    embed: optional ``texts -> vectors`` from the embedder A-Mem uses (e.g. MiniLM), so the gate
    and A-Mem see one geometry; without it the service embeds the text itself.
    """

    def __init__(self, memory: Any, gate: GateClient, scope: str, policy: str = "noop-filter", tau_noop: Optional[float] = None,
                 embed: Optional[Callable[[List[str]], List[List[float]]]] = None) -> None:  # fmt: skip
        self.memory = memory
        self.pre = GatePreFilter(gate, scope, policy=policy, tau_noop=tau_noop)
        self.embed = embed
        self.decisions: List[Dict[str, Any]] = []

    @property
    def skipped(self) -> int:
        return self.pre.skipped

    @property
    def forwarded(self) -> int:
        return self.pre.forwarded

    def add_note(self, content: str, **kwargs: Any) -> Optional[str]:
        """Returns A-Mem's memory id, or None when the gate skipped the note."""
        what: Dict[str, Any] = {"vector": self.embed([content])[0]} if self.embed else {"text": content}
        skip, r = self.pre.check(**what)
        self.decisions.append({"text": content, "action": r["decision"]["action"], "score": r["decision"]["score"], "skipped": skip})
        if skip:
            return None
        memory_id = self.memory.add_note(content, **kwargs)
        self.pre.record(memory_id, **what)
        return memory_id

    def delete(self, memory_id: str) -> bool:
        ok = self.memory.delete(memory_id)
        if ok:
            self.pre.gate.delete(self.pre.scope, memory_id)
        return ok


# Sample notes written for this example (not from any data set): a few facts and near-repeats.
NOTES = [
    "I adopted a grey cat named Miso last spring.",
    "My cat Miso is grey and I adopted her last spring.",
    "I started learning to play the cello in September.",
    "Cello lessons are every Tuesday evening.",
    "I adopted a grey cat named Miso last spring.",
    "My sister lives in Lisbon and works as an architect.",
    "I started learning to play the cello in September.",
    "We are planning a trip to Japan in April.",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", default="http://127.0.0.1:8788")
    ap.add_argument("--scope", default="amem-example:" + uuid.uuid4().hex[:8])
    ap.add_argument("--policy", default="noop-filter", choices=["noop-filter", "adaptive"])
    ap.add_argument("--tau-noop", type=float, help="noop-filter threshold (default: the service's, the paper's 0.572; "
                                                    "0.6435 is MiniLM's calibrated value, see README)")
    ap.add_argument("--json", action="store_true", help="print one JSON summary line")
    args = ap.parse_args()

    llm_server, llm = None, None
    if USING_STAND_IN:
        memory, embed = AgenticMemorySystem(), None
        what = "STAND-IN (A-Mem not installed)"
    else:  # real A-Mem: local LLM server, MiniLM for A-Mem and for the gate (see dropin_env.py)
        import tempfile
        from importlib.metadata import version
        from pathlib import Path

        llm_server = dropin_env.start_llm_server()
        llm = dropin_env.local_llm(llm_server.url)
        memory = dropin_env.make_amem(Path(tempfile.mkdtemp(prefix="amem-example-")), llm)
        embed = dropin_env.embed
        what = f"real A-Mem (a-mem {version('a-mem')}; LLM SmolLM2-135M on llama.cpp at {llm_server.url}; MiniLM)"
    try:
        gated = GatedAgenticMemory(memory, GateClient(args.url), args.scope, policy=args.policy, tau_noop=args.tau_noop, embed=embed)
        for note in NOTES:
            gated.add_note(note, tags=["example"])
    finally:
        if llm_server is not None:
            llm_server.close()
    summary = {
        "amem": what,
        "llm_calls": None if llm is None else llm.calls,
        "llm_seconds": None if llm is None else round(llm.seconds, 1),
        "policy": args.policy,
        "notes": len(NOTES),
        "forwarded": gated.forwarded,
        "skipped": gated.skipped,
        "decisions": gated.decisions,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"A-Mem: {summary['amem']}; policy {args.policy}")
        for d in gated.decisions:
            print(f"  {'SKIP' if d['skipped'] else 'add '}  {d['action']:<6} s_vMF={d['score']:+.3f}  {d['text']}")
        print(f"{gated.skipped} of {len(NOTES)} add_note calls skipped")
        if llm is not None:
            print(f"A-Mem made {llm.calls} LLM calls ({llm.seconds:.0f}s) for the {gated.forwarded} notes it got")
    return 0


if __name__ == "__main__":
    sys.exit(main())
