"""mem-gate: the @mem novelty gate (SAGE, seed 001) in front of Mem0 and A-Mem, over HTTP.

- ``GateClient`` / ``GateServiceError``: the client of the gate service (``npx mem-gate serve``).
- ``GatePolicy``, ``POLICIES``: what a Noop does: ``annotate`` (default: stored raw through the peer's
  no-LLM path, linked to the memory it duplicates), ``skip`` (dropped), ``adaptive``.
- ``GatedMem0``, ``GatedAMem``: the drop-in wrappers.
- ``calibrate_tau_noop``: τ_noop for your embedder (a percentile of s_vMF on a held-out stream:
  ``ANNOTATE_QUANTILE`` 0.7 for ``annotate`` / ``adaptive``, App. G's ``APP_G_QUANTILE`` 0.8 for ``skip``).
"""

from .amem import GatedAMem
from .calibrate import ANNOTATE_QUANTILE, APP_G_QUANTILE, Calibration, calibrate_tau_noop, percentile, quantile_for_policy, svmf_scores
from .client import DEFAULT_URL, GateClient, GateServiceError
from .mem0 import GatedMem0
from .policy import DEFAULT_POLICY, POLICIES, GatePolicy, Verdict

__all__ = [
    "ANNOTATE_QUANTILE", "APP_G_QUANTILE", "DEFAULT_POLICY", "DEFAULT_URL", "POLICIES", "Calibration", "GateClient", "GatePolicy", "GateServiceError", "GatedAMem", "GatedMem0",
    "Verdict", "calibrate_tau_noop", "percentile", "quantile_for_policy", "svmf_scores",
]  # fmt: skip

__version__ = "0.1.0"
