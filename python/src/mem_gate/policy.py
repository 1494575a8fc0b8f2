"""What a wrapper does with the gate's verdict on one observation (ours; the gate is SAGE, seed 001 §3.4-3.5).

Three policies, one question each ("is this observation a Noop?") and one consequence of a Noop:

=============  ====================================================  ===================================
policy         Noop when                                             a Noop is
=============  ====================================================  ===================================
``annotate``   the scope is non-empty and s_vMF > τ_noop (§3.5)       stored raw, through the peer's
(default)                                                            no-LLM path, linked to the memory
                                                                     it duplicates (``duplicate_of``)
``skip``       same test                                             dropped: neither stored nor
                                                                     committed (SAGE's drop semantics)
``adaptive``   the adaptive gate says noop (ν < τ_t, §3.4)           stored raw, as ``annotate``
=============  ====================================================  ===================================

A Noop never reaches the peer's LLM (Mem0's extraction, A-Mem's analysis and evolution): that is the
saving. Only enriched writes are committed to the gate, so the gate's state (and with it every later
decision) is the same under ``annotate`` and ``skip``: the two differ only in what the peer keeps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from .client import GateClient, _check_tau_noop

__all__ = ["POLICIES", "DEFAULT_POLICY", "Verdict", "GatePolicy"]

POLICIES = ("annotate", "skip", "adaptive")
DEFAULT_POLICY = "annotate"

#: What a verdict asks the wrapper to do: the peer's full (LLM) write, its raw no-LLM write, or nothing.
ACTIONS = ("write", "annotate", "skip")


@dataclass(frozen=True)
class Verdict:
    """The gate's answer for one observation, resolved by the policy.

    ``action``: ``"write"`` (full write; commit afterwards with ``GatePolicy.record``), ``"annotate"``
    (raw store, not committed) or ``"skip"`` (nothing stored). ``score``: s_vMF against the scope
    (cosine-like, in [-1, 1]; -1 for an empty scope). ``nearest``: the gate id of the nearest
    committed memory, or None. ``route``: the service's full answer (``decision``, ``noopFilter``).
    """

    action: str
    score: float
    nearest: Optional[str]
    route: Dict[str, Any] = field(repr=False)

    @property
    def noop(self) -> bool:
        """True when the gate judged the observation redundant (``annotate`` or ``skip``)."""
        return self.action != "write"

    def link(self) -> Dict[str, Any]:
        """The metadata a raw (annotated) memory carries: ``gate`` "noop", ``duplicate_of`` (the id of
        the memory it duplicates, "" when unknown) and ``gate_score`` (s_vMF)."""
        return {"gate": "noop", "duplicate_of": self.nearest or "", "gate_score": round(float(self.score), 6)}


class GatePolicy:
    """The gate in front of one scope of a peer's write path.

        pol = GatePolicy(GateClient(url), "user:alice", policy="annotate", tau_noop=0.64)
        v = pol.check(vector=embedding)
        if v.action == "write":
            pol.record(peer.add(text), vector=embedding)
        elif v.action == "annotate":
            peer.add_raw(text, metadata=v.link())

    ``tau_noop`` None = the service default (the paper's 0.572); calibrate it for your embedder with
    ``mem_gate.calibrate_tau_noop``. ``on_noop`` overrides what a Noop does ("annotate" or "skip";
    default: "skip" for policy ``skip``, else "annotate"). Counters: ``checked``, ``written``,
    ``annotated``, ``skipped``; ``verdicts`` keeps every verdict.
    Raises ValueError for an unknown policy or on_noop, GateServiceError(0, INVALID_INPUT) for a
    tau_noop outside [-1, 1].
    """

    def __init__(self, gate: GateClient, scope: str, policy: str = DEFAULT_POLICY, tau_noop: Optional[float] = None, on_noop: Optional[str] = None) -> None:
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
        if on_noop is None:
            on_noop = "skip" if policy == "skip" else "annotate"
        if on_noop not in ("annotate", "skip"):
            raise ValueError(f"on_noop must be 'annotate' or 'skip', got {on_noop!r}")
        self.gate = gate
        self.scope = scope
        self.policy = policy
        self.on_noop = on_noop
        self.tau_noop = None if tau_noop is None else _check_tau_noop(tau_noop)
        self.checked = 0
        self.written = 0
        self.annotated = 0
        self.skipped = 0
        self.verdicts: List[Verdict] = []

    def check(self, vector: Optional[Sequence[float]] = None, text: Optional[str] = None) -> Verdict:
        """The verdict for one candidate (read-only on the service). Give ``vector`` (from the peer's
        embedder) or ``text`` (embedded by the service's own embedder, if it has one)."""
        r = self.gate.route(self.scope, vector=vector, text=text, tau_noop=self.tau_noop)
        d = r["decision"]
        noop = bool(r["noopFilter"]["noop"]) if self.policy != "adaptive" else d["action"] == "noop"
        action = self.on_noop if noop else "write"
        verdict = Verdict(action=action, score=float(d["score"]), nearest=(d.get("nearest") or {}).get("id"), route=r)
        self.checked += 1
        if action == "write":
            self.written += 1
        elif action == "annotate":
            self.annotated += 1
        else:
            self.skipped += 1
        self.verdicts.append(verdict)
        return verdict

    def record(self, memory_id: str, vector: Optional[Sequence[float]] = None, text: Optional[str] = None) -> None:
        """Commit what the peer stored under ``memory_id`` after a ``write`` verdict (same vector/text)."""
        self.gate.commit(self.scope, memory_id, vector=vector, text=text)

    def forget(self, memory_id: str) -> bool:
        """Remove ``memory_id`` from the gate's scope; False when the gate never held it."""
        from .client import GateServiceError

        try:
            self.gate.delete(self.scope, memory_id)
            return True
        except GateServiceError as e:
            if e.code == "UNKNOWN_ID":
                return False
            raise
