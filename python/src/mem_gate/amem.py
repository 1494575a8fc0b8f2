"""``GatedAMem``: the novelty gate in front of A-Mem's ``AgenticMemorySystem`` (ours; SAGE drop-in, seed 001 §3.5).

``add_note(content, time=...)`` embeds the note, asks the gate, and then (policy, ``mem_gate.policy``):

- write: A-Mem's own ``add_note`` (one LLM call for ``analyze_content``, one for evolution once the
  store is non-empty); the note's vector is committed to the gate under the note id;
- annotate (a Noop, the default): the closest no-LLM path A-Mem's API offers: a ``MemoryNote`` with
  the raw content is put in A-Mem's cache and added to its retriever (``retriever.add_document``),
  exactly as ``add_note`` stores it but without ``analyze_content`` and evolution. Its ``links`` hold
  the id of the note it duplicates; the retriever's metadata also carries ``gate="noop"``,
  ``duplicate_of`` and ``gate_score``. By default (``enrich="inherit"``) the raw note takes the
  ``keywords``, ``context`` and ``tags`` of the note it duplicates (read from A-Mem's store, no LLM
  call), so that A-Mem's retriever embeds it as it embeds an enriched note (content + context +
  keywords + tags) and ranks it among enriched notes on the same footing; ``enrich="none"`` stores
  the content alone (an A-Mem note with its defaults). It is found by ``search``, read by ``read``
  and removed by ``delete`` like any note. Not committed to the gate;
- skip (policy ``skip``): nothing is stored; ``add_note`` returns None.

Every other attribute is the wrapped system's. Needs the extra ``amem`` (``pip install
'mem-gate[amem]'``, PyPI ``a-mem``) for the annotate path (``agentic_memory.memory_system.MemoryNote``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, Optional, Sequence

from .client import GateClient
from .policy import DEFAULT_POLICY, GatePolicy, Verdict

__all__ = ["GatedAMem", "ENRICH_MODES"]

#: What an annotated (raw) note carries besides its content: ``inherit`` (default) the keywords,
#: context and tags of the note it duplicates; ``none`` A-Mem's defaults (no keywords, context
#: "General", no tags), which A-Mem's retriever embeds as the content alone.
ENRICH_MODES = ("inherit", "none")


class GatedAMem:
    """An A-Mem ``AgenticMemorySystem`` behind the gate, for one scope.

    ``embed(text) -> list[float]``: default A-Mem's own embedding function
    (``memory.retriever.embedding_function``, so the gate sees A-Mem's geometry). ``policy`` /
    ``tau_noop`` / ``on_noop``: see ``GatePolicy``. ``enrich``: what a raw note carries
    (``ENRICH_MODES``; default ``inherit``: the keywords / context / tags of the note it duplicates).
    Counters: ``written``, ``annotated``, ``skipped`` (on ``gate_policy``), ``inherited`` (raw notes
    that took an original's enrichment). Raises what ``GatePolicy`` raises for bad options and
    ValueError for an unknown ``enrich``; ``GateServiceError`` from the service.
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
        enrich: str = "inherit",
    ) -> None:
        if enrich not in ENRICH_MODES:
            raise ValueError(f"enrich must be one of {ENRICH_MODES}, got {enrich!r}")
        self.memory = memory
        self.enrich = enrich
        self.inherited = 0
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
        mem = self.memory
        if self.enrich == "inherit" and verdict.nearest:
            origin = self.enrichment_of(verdict.nearest)
            if origin:
                for k, v in origin.items():
                    kwargs.setdefault(k, v)
                self.inherited += 1
        note = MemoryNote(content=content, links=links, **kwargs)
        if getattr(mem, "cache_enabled", False):
            mem.cache.put(note.id, note)
        metadata: Dict[str, Any] = {**mem._memory_note_to_metadata(note), **verdict.link()}
        mem.retriever.add_document(note.content, metadata, note.id)
        return note.id

    def enrichment_of(self, note_id: str) -> Dict[str, Any]:
        """The ``keywords``, ``context`` and ``tags`` A-Mem holds for ``note_id`` (as evolution left
        them), only those that are not A-Mem's defaults; {} when the note is gone. Reads the
        retriever's stored metadata (``get_by_id``; no LLM call, no access count), else the cache."""
        meta: Any = None
        get_by_id = getattr(getattr(self.memory, "retriever", None), "get_by_id", None)
        if get_by_id is not None:
            meta = get_by_id(note_id)
        if not meta:
            cache = getattr(self.memory, "cache", None)
            note = cache.get(note_id) if cache is not None and getattr(self.memory, "cache_enabled", False) else None
            meta = None if note is None else {"keywords": note.keywords, "context": note.context, "tags": note.tags}
        if not meta:
            return {}
        out: Dict[str, Any] = {}
        for k in ("keywords", "tags"):
            v = meta.get(k)
            if isinstance(v, str):  # a retriever that did not deserialise its JSON lists
                try:
                    v = json.loads(v)
                except ValueError:
                    v = [v]
            if v:
                out[k] = [str(x) for x in v]
        ctx = meta.get("context")
        if ctx and ctx != "General":
            out["context"] = str(ctx)
        return out

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
