"""``GatedAMem``: the novelty gate in front of A-Mem's ``AgenticMemorySystem`` (ours; SAGE drop-in, seed 001 §3.5).

``add_note(content, time=...)`` embeds the note, asks the gate, and then (policy, ``mem_gate.policy``):

- write: A-Mem's own ``add_note`` (one LLM call for ``analyze_content``, one for evolution once the
  store is non-empty); the note's vector is committed to the gate under the note id;
- annotate (a Noop, the default): the closest no-LLM path A-Mem's API offers: a ``MemoryNote`` with
  the raw content is put in A-Mem's cache and added to its retriever (``retriever.add_document``),
  exactly as ``add_note`` stores it but without ``analyze_content`` and evolution. Its ``links`` hold
  the id of the note it duplicates; the retriever's metadata also carries ``gate="noop"``,
  ``duplicate_of`` and ``gate_score``. It is found by ``search``, read by ``read`` and removed by
  ``delete`` like any note. Not committed to the gate;
- skip (policy ``skip``): nothing is stored; ``add_note`` returns None.

Every other attribute is the wrapped system's. Needs the extra ``amem`` (``pip install
'mem-gate[amem]'``, PyPI ``a-mem``) for the annotate path (``agentic_memory.memory_system.MemoryNote``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence

from .client import GateClient
from .policy import DEFAULT_POLICY, GatePolicy, Verdict

__all__ = ["GatedAMem"]


class GatedAMem:
    """An A-Mem ``AgenticMemorySystem`` behind the gate, for one scope.

    ``embed(text) -> list[float]``: default A-Mem's own embedding function
    (``memory.retriever.embedding_function``, so the gate sees A-Mem's geometry). ``policy`` /
    ``tau_noop`` / ``on_noop``: see ``GatePolicy``. Counters: ``written``, ``annotated``, ``skipped``
    (on ``gate_policy``). Raises what ``GatePolicy`` raises for bad options; ``GateServiceError``
    from the service.
    """

    def __init__(
        self,
        memory: Any,
        gate: GateClient,
        scope: str,
        embed: Optional[Callable[[str], Sequence[float]]] = None,
        policy: str = DEFAULT_POLICY,
        tau_noop: Optional[float] = None,
        on_noop: Optional[str] = None,
    ) -> None:
        self.memory = memory
        self.gate_policy = GatePolicy(gate, scope, policy, tau_noop, on_noop)
        self.embed = embed or (lambda text: [float(x) for x in memory.retriever.embedding_function([text])[0]])
        self._committed: set = set()

    @property
    def written(self) -> int:
        return self.gate_policy.written

    @property
    def annotated(self) -> int:
        return self.gate_policy.annotated

    @property
    def skipped(self) -> int:
        return self.gate_policy.skipped

    def add_note(self, content: str, time: Optional[str] = None, **kwargs: Any) -> Optional[str]:
        """A-Mem's ``add_note`` behind the gate: the note id, or None when the policy skipped it."""
        vector = list(self.embed(content))
        v = self.gate_policy.check(vector=vector)
        if v.action == "skip":
            return None
        if v.action == "annotate":
            return self.add_raw_note(content, v, time=time, **kwargs)
        note_id = self.memory.add_note(content, time=time, **kwargs)
        self.gate_policy.record(note_id, vector=vector)
        self._committed.add(note_id)
        return note_id

    def add_raw_note(self, content: str, verdict: Verdict, time: Optional[str] = None, **kwargs: Any) -> str:
        """Store ``content`` as A-Mem stores a note, without its LLM calls (no analysis, no evolution)."""
        from agentic_memory.memory_system import MemoryNote

        if time is not None:
            kwargs["timestamp"] = time
        links = list(kwargs.pop("links", None) or [])
        if verdict.nearest and verdict.nearest not in links:
            links.append(verdict.nearest)
        note = MemoryNote(content=content, links=links, **kwargs)
        mem = self.memory
        if getattr(mem, "cache_enabled", False):
            mem.cache.put(note.id, note)
        metadata: Dict[str, Any] = {**mem._memory_note_to_metadata(note), **verdict.link()}
        mem.retriever.add_document(note.content, metadata, note.id)
        return note.id

    def delete(self, memory_id: str) -> bool:
        """A-Mem's ``delete``, and the gate forgets the note when it held it."""
        out = self.memory.delete(memory_id)
        if memory_id in self._committed:
            self._committed.discard(memory_id)
            self.gate_policy.forget(memory_id)
        return out

    def __getattr__(self, name: str) -> Any:
        if name == "memory":
            raise AttributeError(name)
        return getattr(self.memory, name)
