"""Lethality tables from FightStats: hand-built histograms with hand-computed answers."""

import numpy as np
import pytest

from analysis import lethality
from engines.fight import FightStats


def _stats(trials=None):
    dtype = np.int64 if trials else float
    s = FightStats.empty("test", round_cap=4, trials=trials, dtype=dtype)
    n = trials or 1.0
    # 60% side 0 wins in round 2, 30% side 1 in round 3, 10% capped (round 4 = cap)
    s.rounds[2, 0] = 0.6 * n
    s.rounds[3, 1] = 0.3 * n
    s.rounds[4, 2] = 0.1 * n
    s.outcome[:] = [0.6 * n, 0.3 * n, 0.1 * n]
    s.loser_dead[:] = [0.3 * n, 0.0]
    return s


def test_summary_exact_hand_computed():
    row = lethality.summary(_stats(), matchup="x")
    assert row["method"] == "exact"
    assert row["p_side0"] == pytest.approx(0.6)
    assert row["se_side0"] == 0.0
    assert row["rounds_mean"] == pytest.approx(0.6 * 2 + 0.3 * 3 + 0.1 * 4)
    assert row["rounds_q50"] == 2
    assert row["rounds_q90"] == 3
    # loser dies in 0.3 of the 0.9 decided fights
    assert row["p_loser_dies"] == pytest.approx(1 / 3)


def test_summary_mc_standard_errors():
    row = lethality.summary(_stats(trials=1000))
    assert row["se_side0"] == pytest.approx(np.sqrt(0.6 * 0.4 / 1000))
    assert row["se_loser_dies"] == pytest.approx(np.sqrt((1 / 3) * (2 / 3) / 900))
    sd = np.sqrt(0.6 * 4 + 0.3 * 9 + 0.1 * 16 - 2.5**2)
    assert row["rounds_se"] == pytest.approx(sd / np.sqrt(1000))


def test_rounds_table_sums_to_one():
    t = lethality.rounds_table(_stats(trials=1000), matchup="x")
    assert t["p"].sum() == pytest.approx(1.0)
    assert set(t["outcome"]) == {"side0", "side1", "neither"}


def test_summary_table_from_mapping():
    t = lethality.summary_table({"a": _stats(), "b": _stats(trials=100)})
    assert list(t["matchup"]) == ["a", "b"]
    assert list(t["method"]) == ["exact", "mc"]
