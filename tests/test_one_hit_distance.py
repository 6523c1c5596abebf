"""The one-attack table at a starting distance (issue 29 §6b; RULES.md "Distance,
movement and cover": AT-g1, DX15, ET-g2, BT-g2, CT-g1): ``duel … --table one-hit
--distance D`` makes the attack at D metres, in its range band, and says when a weapon
cannot reach. Expected values are worked by hand from the rules."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from analysis.combat import lethality
from cli.main import main


def _table(capsys, system: str, a: str, b: str, d: int, *extra: str) -> pd.DataFrame:
    assert (
        main(
            [
                "duel",
                system,
                a,
                b,
                "--table",
                "one-hit",
                "--distance",
                str(d),
                "--format",
                "csv",
                *extra,
            ]
        )
        == 0
    )
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


@pytest.mark.parametrize(
    ("d", "p_hit"),
    [
        # A7: DES 3 + light_ranged 1 + specialization 2 = 6 dice − Defense 3 (A8) = 3 dice,
        # P(≥1 success) = 1 − 0.6³; AT-g1 (short band 18 m): 20 m is medium, −2 dice → 1 die,
        # 0.4; 40 m is long, −4 dice → a chance die (A-g1), only a 10: 0.1
        (0, 1 - 0.6**3),
        (10, 1 - 0.6**3),
        (20, 0.4),
        (40, 0.1),
    ],
)
def test_dice_pool_7_pistol_by_range_band(capsys, d, p_hit):
    t = _table(
        capsys, "dice_pool_7", "competent_shooter", "competent", d, "--weapon-a", "light_ranged"
    )
    assert t["p_hit"].iloc[0] == pytest.approx(p_hit, abs=1e-9)
    if d:
        assert t["distance"].iloc[0] == d
        assert bool(t["in_range"].iloc[0])


def test_dice_pool_7_beyond_the_long_band_and_melee_out_of_reach(capsys):
    """AT-g1: nothing beyond 4 × 18 = 72 m; AT-g2: a melee weapon reaches 1 m."""
    t = _table(
        capsys, "dice_pool_7", "competent_shooter", "competent", 73, "--weapon-a", "light_ranged"
    )
    assert not bool(t["in_range"].iloc[0])
    assert t["p_hit"].iloc[0] == 0.0
    t = _table(capsys, "dice_pool_7", "competent", "competent", 2, "--weapon-a", "light_melee")
    assert not bool(t["in_range"].iloc[0])
    assert t[["p_hit", "p_incapacitate", "p_dead"]].to_numpy().sum() == 0.0
    t = _table(capsys, "dice_pool_7", "competent", "competent", 1, "--weapon-a", "light_melee")
    assert bool(t["in_range"].iloc[0])
    assert t["p_hit"].iloc[0] > 0.0


@pytest.mark.parametrize(
    ("d", "p_hit"),
    [
        # DX15, Firearms 50, handgun base 15 yd = 13.72 m, point-blank DEX 60 / 5 ft = 3.66 m:
        # 1 m point-blank, a bonus die: 1 − P(both tens dice fail) = 1 − 0.5² = 0.75;
        # 10 m base, regular 0.5; 20 m long (≤ 27.43 m), hard (25) 0.25; 40 m extreme
        # (≤ 54.86 m), extreme (10) 0.1
        (1, 0.75),
        (10, 0.5),
        (20, 0.25),
        (40, 0.1),
    ],
)
def test_percentile_handgun_by_range_band(capsys, d, p_hit):
    t = _table(capsys, "percentile", "competent_shooter", "competent", d, "--weapon-a", "handgun")
    assert t["p_hit"].iloc[0] == pytest.approx(p_hit, abs=1e-9)


def test_d20_degrees_pistol_medium_band_costs_two(capsys):
    """ET-g2: medium range −2 on the d20 roll, 2 × 0.05 off P(hit)."""
    near = _table(
        capsys, "d20_degrees", "competent_shooter", "competent", 1, "--weapon-a", "pistol"
    )["p_hit"].iloc[0]
    mid = _table(
        capsys, "d20_degrees", "competent_shooter", "competent", 40, "--weapon-a", "pistol"
    )["p_hit"].iloc[0]
    assert near - mid == pytest.approx(0.10, abs=1e-9)
    t = _table(capsys, "d20_degrees", "competent", "competent", 1, "--weapon-a", "light_melee")
    assert not bool(t["in_range"].iloc[0])  # d20_degrees melee is engaged, 0 m


def test_middle_3d10_pistol_loses_two_an_increment():
    """BT-g2: −2 per full range increment, a pistol's 30 ft = 9 m (the data file): 8 m is
    inside the first increment (the engaged value), 9 m one increment, 18 m two; ten
    increments (90 m) is the farthest shot."""

    def p_hit(d):
        v = {"distance": d} if d else None
        return lethality.one_hit_table(
            "middle_3d10", "competent_shooter", ["competent"], ["pistol"], v
        )["p_hit"].iloc[0]

    assert p_hit(8) == p_hit(0)
    assert p_hit(0) > p_hit(9) == p_hit(17) > p_hit(18) > 0
    out = lethality.one_hit_table(
        "middle_3d10", "competent_shooter", ["competent"], ["pistol"], {"distance": 91}
    )
    assert not bool(out["in_range"].iloc[0])


def test_distance_zero_keeps_the_engaged_table():
    """Without a distance the table has its old columns (outputs unchanged)."""
    t = lethality.one_hit_table("dice_pool_7", "competent_shooter", ["competent"], ["light_ranged"])
    assert "distance" not in t.columns
    assert "in_range" not in t.columns
