"""Lethality tables from FightStats: hand-built histograms with hand-computed answers."""

import numpy as np
import pytest

from analysis.combat import lethality
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
    # the loser's fate by winner: side 0's losers 0.3 dead, 0.1 dying, 0.2 out; side 1's
    # losers 0 dead, 0.1 dying, 0.2 out (duel: each decided fight adds one count)
    s.loser_fate[:] = [[0.3 * n, 0.1 * n, 0.2 * n], [0.0, 0.1 * n, 0.2 * n]]
    s.loser_fate_sq[:] = s.loser_fate
    s.standing[0] = [n, n]
    return s


def test_summary_exact_hand_computed():
    row = lethality.summary(_stats(), matchup="x")
    assert row["method"] == "exact"
    assert row["p_side0"] == pytest.approx(0.6)
    assert row["se_side0"] == 0.0
    assert row["rounds_mean"] == pytest.approx(0.6 * 2 + 0.3 * 3 + 0.1 * 4)
    assert row["rounds_q50"] == 2
    assert row["rounds_q90"] == 3
    # of the 0.9 decided fights the loser ends dead in 0.3, dying in 0.2, out in 0.4
    assert row["p_loser_dead"] == pytest.approx(1 / 3)
    assert row["p_loser_dying"] == pytest.approx(2 / 9)
    assert row["p_loser_out"] == pytest.approx(4 / 9)
    assert row["se_loser_dead"] == row["se_loser_dying"] == row["se_loser_out"] == 0.0
    assert row["aftermath"] == "leave"
    assert "p_loser_dies" not in row


def test_summary_mc_standard_errors():
    row = lethality.summary(_stats(trials=1000))
    assert row["se_side0"] == pytest.approx(np.sqrt(0.6 * 0.4 / 1000))
    # duels: each decided fight's count is 0 or 1, so the SE is binomial over 900 fights
    assert row["se_loser_dead"] == pytest.approx(np.sqrt((1 / 3) * (2 / 3) / 900))
    assert row["se_loser_dying"] == pytest.approx(np.sqrt((2 / 9) * (7 / 9) / 900))
    assert row["se_loser_out"] == pytest.approx(np.sqrt((4 / 9) * (5 / 9) / 900))
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


# ---------------------------------------------------------------------------------------
# Lethality outcomes (RULES.md "Lethality outcomes"): the loser's fate and per-side fates


def _ten_duels():
    """10 duels: side 0 wins 6 (its losers: 3 dead, 1 dying, 2 out), side 1 wins 3 (its
    losers: 1 dead, 0 dying, 2 out), 1 fight stops at the cap with both standing."""
    s = FightStats.empty("test", round_cap=4, trials=10)
    s.outcome[:] = [6, 3, 1]
    s.rounds[2, 0], s.rounds[3, 1], s.rounds[4, 2] = 6, 3, 1
    s.standing[0] = [10, 10]
    s.loser_fate[:] = [[3, 1, 2], [1, 0, 2]]
    s.loser_fate_sq[:] = s.loser_fate
    # per side [standing, dead, dying, out]: side 0 stands in its 6 wins and the capped
    # fight and, as loser, ends 1 dead, 2 out; side 1 stands 3 + 1 and ends 3/1/2
    s.fates[:] = [[7, 1, 0, 2], [4, 3, 1, 2]]
    s.fates_sq[:] = s.fates
    return s


def test_loser_fates_ten_duels_hand_computed():
    """9 decided fights: dead 3 + 1 = 4, dying 1, out 2 + 2 = 4; SE = sqrt(p(1-p)/9)."""
    row = lethality.summary(_ten_duels())
    assert row["p_loser_dead"] == pytest.approx(4 / 9)
    assert row["p_loser_dying"] == pytest.approx(1 / 9)
    assert row["p_loser_out"] == pytest.approx(4 / 9)
    assert row["p_loser_dead"] + row["p_loser_dying"] + row["p_loser_out"] == pytest.approx(1)
    assert row["se_loser_dead"] == pytest.approx(np.sqrt(4 / 9 * 5 / 9 / 9))
    assert row["se_loser_dying"] == pytest.approx(np.sqrt(1 / 9 * 8 / 9 / 9))
    assert row["se_loser_out"] == pytest.approx(np.sqrt(4 / 9 * 5 / 9 / 9))


def test_side_fates_ten_duels_hand_computed():
    """Per side over all 10 fights: side 0 0.7 standing / 0.1 dead / 0 dying / 0.2 out,
    side 1 0.4 / 0.3 / 0.1 / 0.2; counts are 0/1, so SE = sqrt(p(1-p)/10)."""
    cols = lethality.side_fate_columns(_ten_duels())
    want = {0: (0.7, 0.1, 0.0, 0.2), 1: (0.4, 0.3, 0.1, 0.2)}
    for side, ps in want.items():
        for fate, p in zip(("standing", "dead", "dying", "out"), ps, strict=True):
            assert cols[f"p_side{side}_{fate}"] == pytest.approx(p)
            assert cols[f"se_side{side}_{fate}"] == pytest.approx(np.sqrt(p * (1 - p) / 10))
        assert sum(
            cols[f"p_side{side}_{f}"] for f in ("standing", "dead", "dying", "out")
        ) == pytest.approx(1)


def _two_vs_one():
    """4 fights, 2 fighters (side 0) against 1 (side 1):
    f1 side 0 wins, both stand, the loser dead; f2 side 0 wins, one of side 0 dead, the
    loser out; f3 side 1 wins, its losers one dead one out; f4 side 1 wins, both dying."""
    s = FightStats.empty("test", round_cap=4, trials=4)
    s.outcome[:] = [2, 2, 0]
    s.rounds[1, 0], s.rounds[2, 1] = 2, 2
    s.standing[0] = [8, 4]
    s.loser_fate[:] = [[1, 0, 1], [1, 2, 1]]
    s.loser_fate_sq[:] = [[1, 0, 1], [1, 4, 1]]  # f4 adds 2 dying: 2² = 4
    # side 0 per fight [standing, dead, dying, out]: [2,0,0,0] [1,1,0,0] [0,1,0,1] [0,0,2,0]
    s.fates[0] = [3, 2, 2, 1]
    s.fates_sq[0] = [4 + 1, 1 + 1, 4, 1]
    # side 1: f1 dead, f2 out, f3 and f4 standing
    s.fates[1] = [2, 1, 0, 1]
    s.fates_sq[1] = s.fates[1]
    return s


def test_loser_fates_group_fight_hand_computed():
    """Shares of the losing side per fight: dead 1, 0, 1/2, 0 → mean 3/8; dying 0, 0, 0,
    1 → 1/4; out 0, 1, 1/2, 0 → 3/8. SE = sqrt((mean of squares − mean²) / 4)."""
    row = lethality.summary(_two_vs_one())
    assert row["p_loser_dead"] == pytest.approx(0.375)
    assert row["p_loser_dying"] == pytest.approx(0.25)
    assert row["p_loser_out"] == pytest.approx(0.375)
    assert row["se_loser_dead"] == pytest.approx(np.sqrt(((1 + 0.25) / 4 - 0.375**2) / 4))
    assert row["se_loser_dying"] == pytest.approx(np.sqrt((1 / 4 - 0.25**2) / 4))
    assert row["se_loser_out"] == pytest.approx(np.sqrt(((1 + 0.25) / 4 - 0.375**2) / 4))


def test_side_fates_group_fight_hand_computed():
    """Side 0 (2 fighters) shares standing per fight 1, 1/2, 0, 0 → 3/8, squares
    (1 + 1/4)/4; dying 0, 0, 0, 1 → 1/4. Side 1: standing in 2 of 4 → 1/2, SE 1/4."""
    cols = lethality.side_fate_columns(_two_vs_one())
    assert cols["p_side0_standing"] == pytest.approx(0.375)
    assert cols["se_side0_standing"] == pytest.approx(np.sqrt(((1 + 0.25) / 4 - 0.375**2) / 4))
    assert cols["p_side0_dead"] == pytest.approx(0.25)  # shares 0, 1/2, 1/2, 0
    assert cols["se_side0_dead"] == pytest.approx(np.sqrt((0.5 / 4 - 0.25**2) / 4))
    assert cols["p_side0_dying"] == pytest.approx(0.25)
    assert cols["p_side0_out"] == pytest.approx(0.125)
    assert cols["p_side1_standing"] == pytest.approx(0.5)
    assert cols["se_side1_standing"] == pytest.approx(0.25)
    assert cols["p_side1_dead"] == pytest.approx(0.25)
    assert cols["se_side1_dead"] == pytest.approx(np.sqrt(0.25 * 0.75 / 4))


def test_loser_fates_nan_without_decided_fights():
    s = FightStats.empty("test", round_cap=4, trials=5)
    s.outcome[:] = [0, 0, 5]
    s.standing[0] = [5, 5]
    row = lethality.summary(s)
    assert np.isnan(row["p_loser_dead"])
    assert np.isnan(row["p_loser_out"])


@pytest.mark.parametrize(
    ("spec", "over", "want"),
    [
        ("competent", {"weapon": "pistol"}, "competent (weapon=pistol)"),
        (
            {"archetype": "competent", "weapon": "knife", "tactic": "focus"},
            None,
            "competent (weapon=knife, tactic=focus)",
        ),
        ("competent", None, "competent"),
    ],
)
def test_fighter_label_names_overrides(spec, over, want):
    assert lethality.fighter_label(spec, over) == want


def test_fighter_label_names_the_built_weapon():
    """Without a weapon override the label names the weapon the combatant carries."""

    class W:
        name = "bat"

    class C:
        name = "competent"
        weapon = W()

    assert lethality.fighter_label("competent", None, C()) == "competent (weapon=bat)"
    assert lethality.fighter_label(C()) == "competent (weapon=bat)"
    assert (
        lethality.fighter_label("competent", {"tactic": "dodge"}, C())
        == "competent (weapon=bat, tactic=dodge)"
    )
