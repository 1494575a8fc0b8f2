"""The experiment's streams, read at run time (never shipped): LoCoMo and BEAM conversations as
ordered observations with ids, and the questions whose gold evidence lies in a prefix.

An observation is ``{"id", "text", "date"}``; a question ``{"question", "answer", "evidence": [ids],
"type"}``. LoCoMo ids are its ``dia_id`` ("D1:3"); BEAM ids are ``"m<chat id>"``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

Obs = Dict[str, str]
Question = Dict[str, Any]


def shared_dir() -> Path:
    """``../shared`` next to the checkout (or the working directory), else /work/shared."""
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[4]):
        if (base.parent / "shared" / "data").is_dir():
            return base.parent / "shared"
    return Path("/work/shared")


def load_locomo(path: Path) -> List[Dict[str, Any]]:
    return json.loads(Path(path).read_text())


def locomo_observations(conv: Dict[str, Any]) -> List[Obs]:
    """Every turn in order as ``speaker: text`` (a shared photo's caption kept in brackets); the
    session's date is the observation's time."""
    c = conv["conversation"]
    keys = sorted((k for k in c if re.fullmatch(r"session_\d+", k) and isinstance(c[k], list)), key=lambda k: int(k.split("_")[1]))
    out = []
    for k in keys:
        for t in c[k]:
            text = t.get("text", "")
            if t.get("blip_caption"):
                text += f" [shares a photo: {t['blip_caption']}]"
            out.append({"id": t["dia_id"], "text": f"{t['speaker']}: {text}", "date": c.get(f"{k}_date_time", "")})
    return out


def locomo_questions(conv: Dict[str, Any], ids: set) -> List[Question]:
    """Categories 1-4 whose gold evidence all lies in ``ids``."""
    qs = []
    for q in conv["qa"]:
        ev = [e for e in q.get("evidence", []) if isinstance(e, str)]
        if q.get("category") in (1, 2, 3, 4) and ev and all(e in ids for e in ev):
            qs.append({"question": q["question"], "answer": str(q.get("answer", "")), "evidence": ev, "type": f"cat{q['category']}"})
    return qs


def _beam_messages(chat: Any) -> List[Dict[str, Any]]:
    return [m for batch in chat for turn in batch.get("turns", []) for m in turn]


def beam_observations(conv_dir: Path, max_chars: int = 0) -> List[Obs]:
    """Every message of a BEAM chat in order as ``role: content`` (the user's "->-> b,t" marker removed);
    ``max_chars`` > 0 cuts each text to that many characters (MiniLM reads ~256 word pieces anyway)."""
    chat = json.loads((Path(conv_dir) / "chat.json").read_text())
    out = []
    for batch in chat:
        date = str(batch.get("time_anchor") or "")
        for turn in batch.get("turns", []):
            for m in turn:
                text = re.sub(r"\s*->->\s*[\d\s,]*$", "", str(m.get("content", ""))).strip()
                text = f"{m.get('role', '')}: {text}"
                if max_chars > 0:
                    text = text[:max_chars]
                out.append({"id": f"m{m['id']}", "text": text, "date": date})
    return out


def _ids_in(value: Any) -> List[str]:
    if isinstance(value, str):
        try:
            value = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            return [f"m{x}" for x in re.findall(r"\d+", value)]
    if isinstance(value, dict):
        return [i for v in value.values() for i in _ids_in(v)]
    if isinstance(value, (list, tuple)):
        return [i for v in value for i in _ids_in(v)]
    if isinstance(value, int):
        return [f"m{value}"]
    return []


def beam_evidence(q: Dict[str, Any]) -> List[str]:
    """``source_chat_ids`` in any shape, else the chat ids named by ``conversation_references``
    (same rule as apps/demo-agent/src/eval/beam.ts, ranges "172-173" expanded)."""
    if q.get("source_chat_ids") is not None:
        return list(dict.fromkeys(_ids_in(q["source_chat_ids"])))
    out: List[str] = []
    refs = q.get("conversation_references")
    for r in refs if isinstance(refs, list) else [refs] if refs else []:
        m = re.search(r"chat[_ ]?ids?\s*:?\s*([\d\s,\-–]+)", str(r), re.I)
        if not m:
            continue
        for part in m.group(1).split(","):
            rng = re.fullmatch(r"\s*(\d+)\s*[-–]\s*(\d+)\s*", part)
            if rng and 0 <= int(rng.group(2)) - int(rng.group(1)) < 50:
                out += [f"m{i}" for i in range(int(rng.group(1)), int(rng.group(2)) + 1)]
            else:
                out += [f"m{x}" for x in re.findall(r"\d+", part)]
    return list(dict.fromkeys(out))


def beam_questions(conv_dir: Path, ids: set) -> List[Question]:
    """Probing questions (every type but abstention, which has no evidence) whose evidence all lies in ``ids``."""
    probing = json.loads((Path(conv_dir) / "probing_questions.json").read_text())
    qs = []
    for qtype, items in probing.items():
        for q in items:
            ev = beam_evidence(q)
            if qtype != "abstention" and ev and all(e in ids for e in ev):
                answer = next((str(q[k]) for k in ("answer", "ideal_answer", "ideal_response", "ideal_summary") if q.get(k)), "")
                qs.append({"question": str(q.get("question", "")), "answer": answer, "evidence": ev, "type": qtype})
    return qs


def stream(dataset: str, conv: int, prefix: Optional[int], locomo: Optional[List[Dict[str, Any]]], beam_dir: Path, max_chars: int) -> List[Obs]:
    """The first ``prefix`` observations (None = all) of LoCoMo or BEAM conversation ``conv``."""
    obs = locomo_observations(locomo[conv]) if dataset == "locomo" else beam_observations(beam_dir / str(conv), max_chars)
    return obs[:prefix] if prefix else obs


def questions(dataset: str, conv: int, obs: Sequence[Obs], locomo: Optional[List[Dict[str, Any]]], beam_dir: Path) -> List[Question]:
    ids = {o["id"] for o in obs}
    return locomo_questions(locomo[conv], ids) if dataset == "locomo" else beam_questions(beam_dir / str(conv), ids)
