"""The calibration helper (App. G): percentiles, s_vMF of each item against the earlier ones, save/load."""

from __future__ import annotations

import pytest

from mem_gate import Calibration, calibrate_tau_noop, percentile, svmf_scores


def test_percentile_interpolates_linearly():
    assert percentile([0.0, 1.0], 0.8) == pytest.approx(0.8)
    assert percentile([3.0, 1.0, 2.0], 0.5) == 2.0
    with pytest.raises(ValueError):
        percentile([], 0.5)
    with pytest.raises(ValueError):
        percentile([1.0], 1.5)


def test_scores_are_each_item_against_the_earlier_ones_and_the_scope_is_cleaned(fake_gate):
    vs = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    scores = svmf_scores(fake_gate, vs, scope="cal")
    assert scores == pytest.approx([1.0, 0.0, 0.8])
    assert fake_gate.stats("cal")["size"] == 0


def test_calibration_is_the_80th_percentile_and_round_trips(fake_gate, tmp_path):
    vs = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    c = calibrate_tau_noop(fake_gate, vs, embedder="toy")
    assert c.tau_noop == pytest.approx(percentile([1.0, 0.0, 0.8], 0.8)) and c.quantile == 0.8 and c.scores == 3
    assert set(c.percentiles) == {"50", "60", "70", "80", "90", "95"}
    c.save(tmp_path / "cal.json")
    assert Calibration.load(tmp_path / "cal.json") == c
    with pytest.raises(ValueError):
        calibrate_tau_noop(fake_gate, vs[:2])
