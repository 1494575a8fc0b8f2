"""The experiment's metrics (LoCoMo's evaluation conventions; pure functions)."""

from __future__ import annotations

import re
import string
from collections import Counter
from statistics import mean, pstdev
from typing import Dict, List, Sequence

__all__ = ["token_f1", "recall_at_k", "covered_recall", "spread"]

_PUNCT = set(string.punctuation)


def _norm_tokens(s: str) -> List[str]:
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    s = re.sub(r"\b(a|an|the|and)\b", " ", s)
    return s.split()


def token_f1(prediction: str, truth: str) -> float:
    """SQuAD-style token F1 in [0, 1] (lower-case, no punctuation/articles), as LoCoMo's evaluation."""
    p, t = _norm_tokens(prediction), _norm_tokens(truth)
    if not p or not t:
        return float(p == t)
    same = sum((Counter(p) & Counter(t)).values())
    if same == 0:
        return 0.0
    prec, rec = same / len(p), same / len(t)
    return 2 * prec * rec / (prec + rec)


def recall_at_k(retrieved: Sequence[str], evidence: Sequence[str]) -> float:
    """Strict recall: the fraction of gold evidence turns whose own memory is among ``retrieved``
    (the source turn ids of the top-k memories)."""
    got = set(retrieved)
    return sum(1 for e in evidence if e in got) / len(evidence)


def covered_recall(retrieved: Sequence[str], evidence: Sequence[str], nearest_of: Dict[str, str]) -> float:
    """Recall that also counts a SKIPPED evidence turn as found when the written turn the gate judged
    it redundant with (``nearest_of[turn]``) is retrieved (ours; lenient: the neighbour is credited
    whether or not it holds the answer). ``recall_at_k`` is the strict one."""
    got = set(retrieved)
    return sum(1 for e in evidence if e in got or (nearest_of.get(e, "") != "" and nearest_of[e] in got)) / len(evidence)


def spread(values: Sequence[float]) -> Dict[str, float]:
    """Mean, population standard deviation, min and max of per-conversation values."""
    vs = list(values)
    return {"mean": mean(vs), "sd": pstdev(vs) if len(vs) > 1 else 0.0, "min": min(vs), "max": max(vs)}
