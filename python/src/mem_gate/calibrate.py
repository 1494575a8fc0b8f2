"""τ_noop calibration for an embedder (seed 001 App. G): a percentile of s_vMF on a held-out stream.

s_vMF of an item is the gate's score of that item against every earlier item of the stream (the
scope the gate would have built by then). τ_noop must be calibrated per embedder (and, measured
here, per kind of stream): MiniLM on raw chat turns scores far higher than SAGE's encoder on its
notes, so the paper's 0.572 skips two to three times as much.

    cal = calibrate_tau_noop(GateClient(url), held_out_vectors, embedder="all-MiniLM-L6-v2")
    GatedMem0(memory, gate, embed, tau_noop=cal.tau_noop)

Which percentile depends on what a Noop costs (``quantile_for_policy``; ours, decision 0005):

- ``skip`` drops a Noop, so it keeps App. G's 80th percentile (``APP_G_QUANTILE``): SAGE's setting
  for a gate whose Noop is a lost fact;
- ``annotate`` (the default) and ``adaptive`` store a Noop raw, so a Noop costs enrichment, not a
  memory: they use the 70th percentile (``ANNOTATE_QUANTILE``), the τ_noop above which 30% of the
  held-out stream's items lie. Pass ``quantile=APP_G_QUANTILE`` to keep App. G's setting.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Union

from .client import GateClient, GateServiceError

__all__ = ["APP_G_QUANTILE", "ANNOTATE_QUANTILE", "Calibration", "calibrate_tau_noop", "percentile", "quantile_for_policy", "svmf_scores"]

#: seed 001 App. G: τ_noop is the 80th percentile of s_vMF on held-out data (SAGE's drop semantics).
APP_G_QUANTILE = 0.8
#: ours (decision 0005): under ``annotate`` a Noop is still stored, so the gate may fire more often:
#: the 70th percentile, i.e. ~30% of a held-out stream's items judged Noop.
ANNOTATE_QUANTILE = 0.7
#: the quantile of the default policy (``annotate``).
DEFAULT_QUANTILE = ANNOTATE_QUANTILE
_POLICY_QUANTILE = {"annotate": ANNOTATE_QUANTILE, "adaptive": ANNOTATE_QUANTILE, "skip": APP_G_QUANTILE}


def quantile_for_policy(policy: str) -> float:
    """The calibration quantile for a wrapper policy: 0.7 for ``annotate`` / ``adaptive`` (a Noop is
    stored raw), 0.8 (App. G) for ``skip`` (a Noop is dropped). Raises ValueError for an unknown policy."""
    if policy not in _POLICY_QUANTILE:
        raise ValueError(f"policy must be one of {tuple(_POLICY_QUANTILE)}, got {policy!r}")
    return _POLICY_QUANTILE[policy]


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile, q in [0, 1] (same rule as apps/demo-agent/scripts/gate-measure.ts).
    Raises ValueError for an empty list or q outside [0, 1]."""
    if not values:
        raise ValueError("percentile of an empty list")
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    s = sorted(values)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def svmf_scores(gate: GateClient, vectors: Sequence[Sequence[float]], scope: Optional[str] = None, cleanup: bool = True) -> List[float]:
    """s_vMF of each item after the first against all earlier items (one route + one commit each), in a
    fresh scope of the gate service; with ``cleanup`` the scope's items are deleted afterwards."""
    scope = scope or f"calibration-{uuid.uuid4().hex}"
    scores: List[float] = []
    try:
        for i, v in enumerate(vectors):
            if i > 0:
                scores.append(float(gate.route(scope, vector=v)["decision"]["score"]))
            gate.commit(scope, str(i), vector=v)
    finally:
        if cleanup:
            for i in range(len(vectors)):
                try:
                    gate.delete(scope, str(i))
                except GateServiceError:
                    pass
    return scores


@dataclass
class Calibration:
    """A calibrated τ_noop: ``tau_noop`` = the ``quantile`` of ``scores`` s_vMF values of a held-out
    stream embedded by ``embedder``. ``save``/``load`` keep it as JSON next to your config."""

    tau_noop: float
    quantile: float
    scores: int
    embedder: str
    stream: str = ""
    percentiles: dict = field(default_factory=dict)

    def save(self, path: Union[str, Path]) -> None:
        Path(path).write_text(json.dumps(asdict(self), indent=2))

    @classmethod
    def load(cls, path: Union[str, Path]) -> "Calibration":
        return cls(**json.loads(Path(path).read_text()))


def calibrate_tau_noop(gate: GateClient, vectors: Sequence[Sequence[float]], quantile: Optional[float] = None, embedder: str = "",
                       stream: str = "", scores: Optional[List[float]] = None, policy: str = "annotate") -> Calibration:  # fmt: skip
    """τ_noop for an embedder (seed 001 App. G): ``quantile`` of s_vMF over the held-out ``vectors`` (at
    least 3, in stream order, from that embedder). ``quantile`` None = ``quantile_for_policy(policy)``:
    0.7 for ``annotate`` (the default) and ``adaptive``, 0.8 (App. G) for ``skip``. ``percentiles`` also
    holds the 50th-95th percentiles (for a trade-off curve). Pass ``scores`` to reuse ones already
    computed. Raises ValueError for fewer than 3 vectors, an unknown policy or a quantile outside [0, 1]."""
    if quantile is None:
        quantile = quantile_for_policy(policy)
    if scores is None:
        if len(vectors) < 3:
            raise ValueError("calibration needs a held-out stream of at least 3 items")
        scores = svmf_scores(gate, vectors)
    pcts = {str(p): percentile(scores, p / 100) for p in (50, 60, 70, 80, 90, 95)}
    return Calibration(tau_noop=percentile(scores, quantile), quantile=quantile, scores=len(scores), embedder=embedder, stream=stream, percentiles=pcts)
