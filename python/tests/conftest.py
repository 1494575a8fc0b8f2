"""Shared test doubles: an in-process stand-in for the gate service (same answer shapes, cosine as the
score) and stand-ins for Mem0's and A-Mem's write paths that record what they were asked to do."""

from __future__ import annotations

import math
import sys
import types
import uuid
from typing import Any, Dict, List, Optional, Sequence

import pytest

from mem_gate import GateServiceError


def _unit(v: Sequence[float]) -> List[float]:
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


class FakeGate:
    """The four endpoints of the gate service with the service's answer shapes. Score = the highest
    cosine against the scope (-1 when empty); the adaptive 'noop' is score > 0.9 (a stand-in for ν < τ_t)."""

    def __init__(self) -> None:
        self.scopes: Dict[str, Dict[str, List[float]]] = {}
        self.routes = 0

    def route(self, scope: str, vector: Optional[Sequence[float]] = None, text: Optional[str] = None, tau_noop: Optional[float] = None) -> Dict[str, Any]:
        self.routes += 1
        v = _unit(vector or [])
        members = self.scopes.get(scope, {})
        best, near = -1.0, None
        for mid, m in members.items():
            c = sum(a * b for a, b in zip(v, m))
            if c > best:
                best, near = c, mid
        tau = 0.572 if tau_noop is None else tau_noop
        action = "noop" if members and best > 0.9 else "add"
        decision = {"action": action, "novelty": 1 - best, "score": best, "threshold": 0.1, "kappa": 1.0, "density": 0.0,
                    "nearest": None if near is None else {"id": near, "cosine": best}, "n": len(members)}  # fmt: skip
        return {"scope": scope, "decision": decision, "noopFilter": {"tauNoop": tau, "noop": bool(members) and best > tau}}

    def commit(self, scope: str, memory_id: str, vector: Optional[Sequence[float]] = None, text: Optional[str] = None, replace: bool = False) -> Dict[str, Any]:
        members = self.scopes.setdefault(scope, {})
        if memory_id in members and not replace:
            raise GateServiceError(409, "DUPLICATE_ID", memory_id)
        members[memory_id] = _unit(vector or [])
        return {"scope": scope, "id": memory_id, "size": len(members), "replaced": False, "unchanged": False}

    def delete(self, scope: str, memory_id: str) -> Dict[str, Any]:
        members = self.scopes.get(scope, {})
        if memory_id not in members:
            raise GateServiceError(404, "UNKNOWN_ID", memory_id)
        del members[memory_id]
        return {"scope": scope, "id": memory_id, "removed": True, "size": len(members)}

    def stats(self, scope: str) -> Dict[str, Any]:
        return {"scope": scope, "size": len(self.scopes.get(scope, {})), "stats": None}


class FakeMem0:
    """Mem0's ``add`` shape: ``infer=True`` stands for the LLM extraction (counted in ``llm_calls``),
    ``infer=False`` stores the raw text; ``search`` is a substring match over stored memories."""

    def __init__(self) -> None:
        self.memories: Dict[str, Dict[str, Any]] = {}
        self.llm_calls = 0
        self.calls: List[Dict[str, Any]] = []

    def add(self, messages: Any, *, user_id: Optional[str] = None, metadata: Optional[Dict[str, Any]] = None, infer: bool = True, **kw: Any) -> Dict[str, Any]:
        self.calls.append({"messages": messages, "user_id": user_id, "metadata": metadata, "infer": infer})
        text = messages if isinstance(messages, str) else messages[0]["content"]
        if infer:
            self.llm_calls += 1
        mid = str(uuid.uuid4())
        self.memories[mid] = {"id": mid, "memory": text, "metadata": dict(metadata or {}), "user_id": user_id}
        return {"results": [{"id": mid, "memory": text, "event": "ADD"}]}

    def search(self, query: str, **kw: Any) -> Dict[str, Any]:
        return {"results": [m for m in self.memories.values() if query.lower() in m["memory"].lower()]}

    def delete(self, memory_id: str) -> Dict[str, str]:
        del self.memories[memory_id]
        return {"message": "deleted"}


class _Note:
    def __init__(self, content: str, id: Optional[str] = None, links: Optional[list] = None, timestamp: Optional[str] = None, **kw: Any) -> None:
        self.content, self.id, self.links, self.timestamp = content, id or str(uuid.uuid4()), links or [], timestamp
        self.keywords, self.context, self.tags = kw.get("keywords", []), kw.get("context", "General"), kw.get("tags", [])


class FakeAMem:
    """A-Mem's shape: ``add_note`` (2 LLM calls: analysis + evolution, counted; the analysis gives
    keywords ``[k-<n>]``, context ``enriched <n>``, tags ``[t-<n>]`` for the n-th note),
    ``retriever.add_document`` / ``get_by_id``, ``cache.put`` / ``get``, ``_memory_note_to_metadata``,
    ``read``, ``delete``."""

    def __init__(self) -> None:
        self.llm_calls = 0
        self.docs: Dict[str, Dict[str, Any]] = {}
        self.cache_enabled = True
        outer = self

        class _Retriever:
            def add_document(self, document: str, metadata: Dict[str, Any], doc_id: str) -> None:
                outer.docs[doc_id] = {"document": document, "metadata": metadata}

            def get_by_id(self, doc_id: str) -> Optional[Dict[str, Any]]:
                d = outer.docs.get(doc_id)
                return None if d is None else dict(d["metadata"])

        class _Cache:
            def __init__(self) -> None:
                self.notes: Dict[str, _Note] = {}

            def put(self, note_id: str, note: _Note) -> None:
                self.notes[note_id] = note

            def get(self, note_id: str) -> Optional[_Note]:
                return self.notes.get(note_id)

        self.retriever = _Retriever()
        self.cache = _Cache()

    def _memory_note_to_metadata(self, note: _Note) -> Dict[str, Any]:
        return {"id": note.id, "content": note.content, "keywords": note.keywords, "links": note.links, "timestamp": note.timestamp, "context": note.context,
                "tags": note.tags}  # fmt: skip

    def add_note(self, content: str, time: Optional[str] = None, **kw: Any) -> str:
        self.llm_calls += 2
        n = len(self.docs)
        note = _Note(content, timestamp=time, keywords=[f"k-{n}"], context=f"enriched {n}", tags=[f"t-{n}"])
        self.cache.put(note.id, note)
        self.retriever.add_document(content, self._memory_note_to_metadata(note), note.id)
        return note.id

    def read(self, note_id: str) -> Optional[_Note]:
        return self.cache.notes.get(note_id)

    def delete(self, note_id: str) -> bool:
        self.docs.pop(note_id, None)
        self.cache.notes.pop(note_id, None)
        return True


@pytest.fixture()
def fake_gate() -> FakeGate:
    return FakeGate()


@pytest.fixture()
def fake_amem(monkeypatch: pytest.MonkeyPatch) -> FakeAMem:
    """A FakeAMem, with ``agentic_memory.memory_system.MemoryNote`` importable (the annotate path's import)."""
    if "agentic_memory.memory_system" not in sys.modules:
        pkg = types.ModuleType("agentic_memory")
        mod = types.ModuleType("agentic_memory.memory_system")
        mod.MemoryNote = _Note  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "agentic_memory", pkg)
        monkeypatch.setitem(sys.modules, "agentic_memory.memory_system", mod)
    return FakeAMem()
