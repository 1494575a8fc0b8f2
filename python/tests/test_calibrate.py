"""The calibration helper (App. G): percentiles, s_vMF of each item against the earlier ones, save/load."""

from __future__ import annotations

import pytest

from mem_gate import APP_G_QUANTILE, ANNOTATE_QUANTILE, Calibration, calibrate_tau_noop, percentile, quantile_for_policy, svmf_scores


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


def test_the_quantile_follows_what_a_noop_costs():
    # annotate / adaptive store a Noop raw: 70th percentile; skip drops it: App. G's 80th
    assert (ANNOTATE_QUANTILE, APP_G_QUANTILE) == (0.7, 0.8)
    assert [quantile_for_policy(p) for p in ("annotate", "adaptive", "skip")] == [0.7, 0.7, 0.8]
    with pytest.raises(ValueError):
        quantile_for_policy("drop")


def test_calibration_defaults_to_the_annotate_percentile_keeps_app_g_and_round_trips(fake_gate, tmp_path):
    vs = [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.6, 0.8]]
    scores = [1.0, 0.0, 0.8]
    c = calibrate_tau_noop(fake_gate, vs, embedder="toy")
    assert c.tau_noop == pytest.approx(percentile(scores, 0.7)) and c.quantile == 0.7 and c.scores == 3
    skip = calibrate_tau_noop(fake_gate, vs, policy="skip")
    assert skip.tau_noop == pytest.approx(percentile(scores, 0.8)) and skip.quantile == 0.8
    app_g = calibrate_tau_noop(fake_gate, vs, quantile=APP_G_QUANTILE)
    assert app_g.tau_noop == pytest.approx(skip.tau_noop) and app_g.tau_noop > c.tau_noop
    with pytest.raises(ValueError):
        calibrate_tau_noop(fake_gate, vs, policy="drop")
    assert set(c.percentiles) == {"50", "60", "70", "80", "90", "95"}
    c.save(tmp_path / "cal.json")
    assert Calibration.load(tmp_path / "cal.json") == c
    with pytest.raises(ValueError):
        calibrate_tau_noop(fake_gate, vs[:2])
