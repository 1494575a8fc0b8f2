"""``GatedMem0``: the novelty gate in front of a Mem0 ``Memory`` (ours; SAGE drop-in, seed 001 §3.5).

Each ``add`` embeds the observation, asks the gate, and then (policy, see ``mem_gate.policy``):

- write: ``memory.add(...)`` as the caller asked (``infer=True`` = Mem0's LLM extraction), then the
  observation's vector is committed to the gate under the first id Mem0 returned (or under
  ``obs-<uuid>`` when Mem0 extracted nothing, so the gate still knows the observation was seen);
- annotate (a Noop, the default): ``memory.add(..., infer=False)``: Mem0's own no-LLM path stores the
  raw text, with metadata ``gate="noop"``, ``duplicate_of`` (the gate id of the memory it repeats)
  and ``gate_score``; it can be searched, shown and deleted like any memory. Not committed to the gate;
- skip (policy ``skip``): nothing is stored (the result's ``results`` is empty).

The answer is Mem0's own dict plus ``"gate": {"action", "score", "duplicate_of"}``. Every other
attribute (``search``, ``get_all``, ``get``, ``history``...) is the wrapped memory's. Needs the extra
``mem0`` (``pip install 'mem-gate[mem0]'``) only to build a ``Memory``; this module imports nothing
from mem0.
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from .client import GateClient
from .policy import DEFAULT_POLICY, GatePolicy, Verdict

__all__ = ["GatedMem0"]

Messages = Union[str, Dict[str, Any], List[Dict[str, Any]]]


def _text_of(messages: Messages) -> str:
    """The text the gate judges: every non-system message's content, one per line."""
    if isinstance(messages, str):
        return messages
    items = [messages] if isinstance(messages, dict) else list(messages)
    parts = []
    for m in items:
        if m.get("role") == "system":
            continue
        c = m.get("content", "")
        parts.append(c if isinstance(c, str) else str(c))
    return "\n".join(parts)


class GatedMem0:
    """A Mem0 ``Memory`` behind the gate.

    ``embed(text) -> list[float]``: the embedder your Mem0 uses (so the gate and Mem0 share one
    geometry). ``scope_of(user_id, agent_id, run_id) -> str``: the gate scope (default
    ``user:<id>|agent:<id>|run:<id>``). ``policy`` / ``tau_noop`` / ``on_noop``: see ``GatePolicy``.
    Counters per wrapper: ``written``, ``annotated``, ``skipped``.
    Raises what ``GatePolicy`` raises for bad options; ``GateServiceError`` from the service.
    """

    def __init__(
        self,
        memory: Any,
        gate: GateClient,
        embed: Callable[[str], Sequence[float]],
        policy: str = DEFAULT_POLICY,
        tau_noop: Optional[float] = None,
        on_noop: Optional[str] = None,
        scope_of: Optional[Callable[[Optional[str], Optional[str], Optional[str]], str]] = None,
    ) -> None:
        self.memory = memory
        self.gate = gate
        self.embed = embed
        self.policy = policy
        self.tau_noop = tau_noop
        self.on_noop = on_noop
        self.scope_of = scope_of or (lambda u, a, r: f"user:{u or ''}|agent:{a or ''}|run:{r or ''}")
        self._policies: Dict[str, GatePolicy] = {}
        self._scope_of_id: Dict[str, str] = {}
        GatePolicy(gate, "options-check", policy, tau_noop, on_noop)  # refuse bad options now, not on first add
        self.written = 0
        self.annotated = 0
        self.skipped = 0

    def policy_for(self, scope: str) -> GatePolicy:
        """The ``GatePolicy`` of one scope (created on first use)."""
        if scope not in self._policies:
            self._policies[scope] = GatePolicy(self.gate, scope, self.policy, self.tau_noop, self.on_noop)
        return self._policies[scope]

    def add(self, messages: Messages, *, user_id: Optional[str] = None, agent_id: Optional[str] = None, run_id: Optional[str] = None,
            metadata: Optional[Dict[str, Any]] = None, infer: bool = True, **kwargs: Any) -> Dict[str, Any]:  # fmt: skip
        """Mem0's ``add`` behind the gate; returns Mem0's answer plus ``"gate"`` (see the module doc)."""
        scope = self.scope_of(user_id, agent_id, run_id)
        pol = self.policy_for(scope)
        vector = list(self.embed(_text_of(messages)))
        v = pol.check(vector=vector)
        ids = {"user_id": user_id, "agent_id": agent_id, "run_id": run_id}
        ids = {k: x for k, x in ids.items() if x is not None}
        gate_info: Dict[str, Any] = {"action": v.action, "score": v.score, "duplicate_of": v.nearest}
        if v.action == "skip":
            self.skipped += 1
            return {"results": [], "gate": gate_info}
        if v.action == "annotate":
            self.annotated += 1
            out = self.memory.add(messages, **ids, metadata={**(metadata or {}), **v.link()}, infer=False, **kwargs)
            return {**(out or {}), "gate": gate_info}
        out = self.memory.add(messages, **ids, metadata=metadata, infer=infer, **kwargs)
        self.written += 1
        added = [r["id"] for r in (out or {}).get("results", []) if r.get("id") and r.get("event", "ADD") == "ADD"]
        gate_id = added[0] if added else f"obs-{uuid.uuid4()}"
        pol.record(gate_id, vector=vector)
        self._scope_of_id[gate_id] = scope
        gate_info["id"] = gate_id
        return {**(out or {}), "gate": gate_info}

    def delete(self, memory_id: str) -> Any:
        """Delete through Mem0, and from the gate when it holds the id (a raw Noop memory is not in the gate)."""
        out = self.memory.delete(memory_id)
        scope = self._scope_of_id.pop(memory_id, None)
        if scope is not None:
            self.policy_for(scope).forget(memory_id)
        return out

    def __getattr__(self, name: str) -> Any:
        if name == "memory":  # not set yet (a failed __init__): no recursion
            raise AttributeError(name)
        return getattr(self.memory, name)
