"""``percentile`` (RULES.md section D): exact model and Monte Carlo against oracles.

Rule ids exercised: D1 (roll-under levels), D2 (pushing), D3 (opposed), D4 (bonus and
penalty dice), D5 (luck), D6 (improvement, D-g2), D-g1 (criticals and fumbles).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from check_oracles import assert_mc_matches

from analysis.checks.curves import success_curves
from engines.errors import InputError
from engines.systems.percentile import checks as pc
from engines.variants import parse_variants


def variants(**kw):
    return parse_variants(pc.Variants, {k: str(v) for k, v in kw.items()})


def brute_distribution(dice):
    """D4 from the text: one units die, 1 + |dice| tens dice, keep the lowest (bonus) or
    highest (penalty) reading; tens 0 with units 0 reads 100. Loops over every face."""
    n = 1 + abs(dice)
    out = np.zeros(101)
    for units in range(10):
        for tens in itertools.product(range(10), repeat=n):
            reads = [100 if (t == 0 and units == 0) else 10 * t + units for t in tens]
            out[min(reads) if dice > 0 else max(reads)] += 1
    return out[1:] / 10 ** (n + 1)


def brute_level(roll, skill, criticals=True):
    """D1 / D-g1 from the text: 0 fail, 1 regular, 2 hard, 3 extreme (critical → 3)."""
    if criticals and roll == 1:
        return 3
    if criticals and (roll == 100 or (roll >= 96 and skill < 50)):
        return 0
    if roll <= skill // 5:
        return 3
    if roll <= skill // 2:
        return 2
    return 1 if roll <= skill else 0


def test_d1_seed_example_str_60_hard():
    """D1 seed example: STR 60, hard → needs ≤ 30; P = 30 / 100."""
    assert pc.level_thresholds(60) == {"regular": 60, "hard": 30, "extreme": 12}
    assert pc.p_success(60, "hard") == pytest.approx(0.30, abs=1e-15)
    mask = pc.success_mask(60, "hard")
    assert mask[29]
    assert not mask[30]


def test_d4_seed_examples():
    """D4 seed examples: units 4, tens 2 and 4 → bonus takes 24; units 1, tens 2 and 4 →
    penalty takes 41; tens 0 with units 0 reads 100."""
    assert pc.read_roll(4, [2, 4], 1) == 24
    assert pc.read_roll(1, [2, 4], -1) == 41
    assert pc.read_roll(0, [0], 0) == 100
    assert pc.read_roll(0, [0, 3], 1) == 30  # 100 vs 30: the bonus keeps 30
    assert pc.net_dice(bonus=2, penalty=1) == 1  # a bonus and a penalty cancel


@pytest.mark.parametrize("dice", [-3, -2, -1, 0, 1, 2, 3])
def test_d4_exact_matches_enumeration(dice):
    """D1/D4: the d100 distribution with bonus/penalty dice against a face enumeration."""
    np.testing.assert_allclose(pc.exact([dice])[0], brute_distribution(dice), atol=1e-15)


def test_d4_one_extra_die_by_hand():
    """D4 by hand: 100 needs units 0 and every kept tens 0: bonus 0.1 * 0.1², penalty
    0.1 * (1 − 0.9²); 01..09 needs units ≠ 0 and the kept tens 0: bonus 0.9 * (1 − 0.9²),
    penalty 0.9 * 0.1²."""
    bonus, penalty = pc.exact([1, -1])
    assert bonus[99] == pytest.approx(0.001, abs=1e-15)
    assert penalty[99] == pytest.approx(0.019, abs=1e-15)
    assert bonus[:9].sum() == pytest.approx(0.171, abs=1e-15)
    assert penalty[:9].sum() == pytest.approx(0.009, abs=1e-15)


@pytest.mark.parametrize("criticals", [True, False])
@pytest.mark.parametrize("skill", [1, 5, 30, 49, 50, 60, 99, 100, 120])
def test_d1_d_g1_levels_match_text(skill, criticals):
    """D1 levels and D-g1 criticals (01) and fumbles (100; 96–100 below 50), per roll."""
    v = variants(criticals=criticals)
    got = pc.level_of_rolls(skill, v)
    got = np.minimum(got, 3)  # a critical compares as an extreme success
    ref = [brute_level(r, skill, criticals) for r in range(1, 101)]
    np.testing.assert_array_equal(got, ref)


def test_d_g1_roll_100_fails_even_at_skill_100():
    """D-g1: 100 is always a fumble, so a skill of 100 or more still fails on 100."""
    assert not pc.success_mask(100, "regular")[99]
    assert pc.success_mask(100, "regular", variants(criticals="false"))[99]
    assert pc.p_success(100, "regular") == pytest.approx(0.99, abs=1e-15)
    assert pc.success_mask(1, "extreme")[0]  # 01 succeeds at every level


def test_d_g1_fumble_range_follows_the_needed_value():
    """D-g1: 96–100 fumble when the value needed at the set level is below 50 (skill 80:
    regular needs 80, only 100 fumbles; hard needs 40, 96–100 fumble)."""
    rolls = np.arange(95, 101)
    np.testing.assert_array_equal(pc.is_fumble(rolls, 80), [0, 0, 0, 0, 0, 1])
    np.testing.assert_array_equal(pc.is_fumble(rolls, 80, level="hard"), [0, 1, 1, 1, 1, 1])
    np.testing.assert_array_equal(pc.is_fumble(rolls, 40), [0, 1, 1, 1, 1, 1])
    assert not pc.is_fumble(rolls, 40, variants(criticals="false")).any()


@pytest.mark.parametrize("kw", [{"criticals": "false"}], ids=["no-criticals"])
def test_d1_monte_carlo_matches_exact_every_cell(kw):
    """D1/D4: MC vs exact in every cell (skill 1..99 × 3 levels × dice −2..2), tolerance
    5 * sqrt(p (1 - p) / n) + 1 / n, seed 41. The default rules: tests/test_conformance.py
    (monte_carlo check, the same grid and trials)."""
    n = 40_000
    t = success_curves("percentile", "both", trials=n, seed=41, variants=variants(**kw))
    assert len(t) == 99 * 3 * 5
    assert_mc_matches(t["p_exact"], t["p_mc"], n, f"percentile {kw}")


def test_d4_monte_carlo_distribution_matches_exact():
    """D4: the whole d100 histogram for −3..3 bonus/penalty dice."""
    n = 100_000
    dice = [-3, -2, -1, 0, 1, 2, 3]
    counts = pc.monte_carlo(dice, n, 2)
    assert (counts.sum(axis=1) == n).all()
    assert_mc_matches(pc.exact(dice), counts / n, n, "d100")


def test_d2_push():
    """D2: one second and last attempt: P = 1 − (1 − p)²; both failing is the severe case."""
    r = pc.push(0.4)
    assert r["p_success"] == pytest.approx(0.64)
    assert r["p_pushed_failure"] == pytest.approx(0.36)


@pytest.mark.parametrize(
    ("a", "b", "da", "db"), [(50, 50, 0, 0), (60, 40, 0, 0), (30, 70, 1, -1), (45, 45, 0, 1)]
)
def test_d3_opposed_against_enumeration(a, b, da, db):
    """D3: compare levels; tie → higher skill; still tied → roll-off (½)."""
    pa, pb = brute_distribution(da), brute_distribution(db)
    la = np.array([brute_level(r, a) for r in range(1, 101)])
    lb = np.array([brute_level(r, b) for r in range(1, 101)])
    joint = pa[:, None] * pb[None, :]
    win = joint[la[:, None] > lb[None, :]].sum()
    tie = joint[la[:, None] == lb[None, :]].sum()
    ref = win + tie * (1.0 if a > b else 0.0 if a < b else 0.5)
    assert pc.opposed(a, b, da, db) == pytest.approx(ref, abs=1e-12)


def test_d5_luck_and_group_luck():
    """D5: a roll ≤ current Luck; group luck: the lowest Luck rolls."""
    assert pc.luck([55]) == pytest.approx(0.55, abs=1e-15)
    assert pc.luck([70, 35, 60]) == pytest.approx(0.35, abs=1e-15)
    with pytest.raises(InputError, match="luck"):
        pc.luck([])


def test_d6_improvement_and_d_g2():
    """D6: roll above the skill → +1d10 (mean 5.5); D-g2: 96+ also improves (default)."""
    assert pc.improvement(50)["p_improve"] == pytest.approx(0.50)
    assert pc.improvement(50)["expected_gain"] == pytest.approx(0.50 * 5.5)
    assert pc.improvement(97)["p_improve"] == pytest.approx(0.05)  # 96..100
    assert pc.improvement(97, variants(improve_on_96="false"))["p_improve"] == pytest.approx(
        0.03
    )  # 98..100


def test_bad_input():
    """D1/D4: out-of-range skill, dice and level raise InputError naming them."""
    with pytest.raises(InputError, match="skill"):
        pc.level_thresholds(-1)
    with pytest.raises(InputError, match="dice"):
        pc.exact([4])
    with pytest.raises(InputError, match="level"):
        pc.success_mask(50, "impossible")
    with pytest.raises(InputError, match="bonus/penalty"):
        pc.net_dice(-1, 0)


@pytest.mark.parametrize("dice", [-2, -1, 0, 1, 2])
def test_d4_exact_matches_icepool(dice):
    """D1/D4 against icepool: the units die and 1 + |dice| tens dice mapped to a reading."""
    import icepool

    n = 1 + abs(dice)
    pick = min if dice >= 0 else max

    def reading(units, *tens):
        return pick(100 if (t == 0 and units == 0) else 10 * t + units for t in tens)

    die = icepool.map(reading, *([icepool.d10 - 1] * (n + 1)))
    ref = np.array([float(die.probability(v)) for v in range(1, 101)])
    np.testing.assert_allclose(pc.exact([dice])[0], ref, atol=1e-15)


def test_d3_d4_seed_opposed_examples():
    """D3/D4 seed examples. Hugh (Charm 55) rolls 45: regular; Malcolm (Charm 55 assumed:
    the seed gives none) with a bonus die reads units 4, tens 2 and 4 → 24: hard; Malcolm
    wins. Felix (STR 65) rolls 51: regular; Harrison (STR 55) with a penalty die reads
    units 1, tens 2 and 4 → 41: regular; same level, Felix's higher STR wins."""
    hugh = pc.level_of_rolls(55)[45 - 1]
    malcolm = pc.level_of_rolls(55)[pc.read_roll(4, [2, 4], 1) - 1]
    assert (hugh, malcolm) == (1, 2)
    felix = pc.level_of_rolls(65)[51 - 1]
    harrison = pc.level_of_rolls(55)[pc.read_roll(1, [2, 4], -1) - 1]
    assert (felix, harrison) == (1, 1)
    # the same tie rule inside opposed(): with both sides certain to reach only "regular"
    # the higher skill wins outright
    assert pc.opposed(65, 55) > pc.opposed(55, 65)


def test_d6_seed_example_climb_40():
    """D6 seed example: Climb 40 used successfully; at the end a roll of 58 (above 40)
    raises it by 1D10. P(improve) = 60 / 100."""
    assert pc.improvement(40)["p_improve"] == pytest.approx(0.60)
