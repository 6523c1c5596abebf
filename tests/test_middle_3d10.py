"""``middle_3d10`` (RULES.md section B): exact model and Monte Carlo against oracles.

Rule ids exercised: B1 (3d10 keep the middle), B2 (difficulties), B3 (doubles),
B4 (advantage / disadvantage, B-g2), B5 (opposed, B-g3), B10 (massive damage, B-g6),
B12 (massive trauma), B13 (arcane use).
"""

from __future__ import annotations

import itertools

import icepool
import numpy as np
import pytest
from check_oracles import assert_mc_matches

from analysis.checks.curves import success_curves
from engines.errors import InputError
from engines.systems.middle_3d10 import checks as m3
from engines.variants import parse_variants

ROLLS = list(itertools.product(range(1, 11), repeat=3))


def variants(**kw):
    return parse_variants(m3.Variants, {k: str(v) for k, v in kw.items()})


def brute_outcome(dice, mode, disadvantage="lowest", doubles=True):
    """(kept die, special) read straight from the rule text: B1, B3, B4 / B-g2."""
    lo, mid, hi = sorted(dice)
    kept = {
        "normal": mid,
        "advantage": hi,
        "disadvantage": lo if disadvantage == "lowest" else mid,
    }[mode]
    special = 0
    if doubles and dice.count(10) >= 2:
        special = 1
    elif doubles and dice.count(1) >= 2:
        special = 2
    return kept, special


def brute_p_success(modifier, difficulty, mode="normal", **kw):
    wins = 0
    for dice in ROLLS:
        kept, special = brute_outcome(dice, mode, **kw)
        wins += special == 1 or (special == 0 and kept + modifier >= difficulty)
    return wins / 1000


@pytest.mark.parametrize("disadvantage", ["lowest", "middle"])
@pytest.mark.parametrize("doubles", [True, False])
def test_b1_b3_b4_exact_codes_match_enumeration(disadvantage, doubles):
    """B1/B3/B4 (B-g2 both readings, B3 on and off): the code distribution per mode."""
    v = variants(disadvantage=disadvantage, doubles=doubles)
    probs = m3.exact(("normal", "advantage", "disadvantage"), v)
    for i, mode in enumerate(("normal", "advantage", "disadvantage")):
        ref = np.zeros(m3.N_CODES)
        for dice in ROLLS:
            kept, special = brute_outcome(dice, mode, disadvantage, doubles)
            ref[3 * (kept - 1) + special] += 1e-3
        np.testing.assert_allclose(probs[i], ref, atol=1e-14, err_msg=mode)


def test_b1_b4_kept_die_matches_icepool():
    """B1 middle of 3d10, B4 highest / lowest of 3d10 (icepool), B3 off."""
    v = variants(doubles="false")
    probs = m3.exact(("normal", "advantage", "disadvantage"), v)
    kept = m3.kept_of_codes()
    for i, die in enumerate((icepool.d10.middle(3), icepool.d10.highest(3), icepool.d10.lowest(3))):
        got = np.bincount(kept, weights=probs[i], minlength=11)[1:]
        ref = np.array([die.probability(k) for k in range(1, 11)], dtype=float)
        np.testing.assert_allclose(got, ref, atol=1e-14)


def test_b3_doubles_by_hand():
    """B3: P(two or three 10s) = (3 * 9 + 1) / 1000 = 0.028, likewise two or three 1s."""
    probs = m3.exact(["normal"])[0]
    assert probs[m3.special_of_codes() == 1].sum() == pytest.approx(0.028, abs=1e-14)
    assert probs[m3.special_of_codes() == 2].sum() == pytest.approx(0.028, abs=1e-14)


def test_b2_difficulties():
    """B2: easy 10, average 15, hard 20, very hard 25."""
    assert m3.DIFFICULTIES == {"easy": 10, "average": 15, "hard": 20, "very_hard": 25}


@pytest.mark.parametrize("mode", ["normal", "advantage", "disadvantage"])
@pytest.mark.parametrize(
    ("modifier", "difficulty"), [(6, 10), (6, 15), (10, 15), (14, 20), (3, 25), (20, 10)]
)
def test_b1_p_success_matches_enumeration(modifier, difficulty, mode):
    """B1/B3/B4: P(C + trait + skill ≥ difficulty) with automatic success and catastrophe."""
    assert m3.p_success(modifier, difficulty, mode) == pytest.approx(
        brute_p_success(modifier, difficulty, mode), abs=1e-12
    )


@pytest.mark.parametrize(
    "kw",
    [{"disadvantage": "middle"}, {"doubles": "false"}],
    ids=["disadvantage-middle", "no-doubles"],
)
def test_b1_monte_carlo_matches_exact_every_cell(kw):
    """B1/B3/B4: MC vs exact in every cell (modifier 0..20 × difficulty 5..30 × 3 modes),
    tolerance 5 * sqrt(p (1 - p) / n) + 1 / n, seed 31. The default rules:
    tests/test_conformance.py (monte_carlo check, the same grid and trials)."""
    n = 40_000
    t = success_curves("middle_3d10", "both", trials=n, seed=31, variants=variants(**kw))
    assert len(t) == 21 * 26 * 3
    assert_mc_matches(t["p_exact"], t["p_mc"], n, f"middle_3d10 {kw}")


def test_b1_monte_carlo_codes_match_exact():
    """B1/B3/B4: the whole outcome-code histogram per roll mode."""
    n = 100_000
    probs = m3.exact()
    counts = m3.monte_carlo(trials=n, seed=3)
    assert (counts.sum(axis=1) == n).all()
    assert_mc_matches(probs, counts / n, n, "middle codes")


def _brute_opposed(mod_a, mod_b, tie):
    totals = np.array([sorted(d)[1] for d in ROLLS])
    ta, tb = totals[:, None] + mod_a, totals[None, :] + mod_b
    win, draw = (ta > tb).mean(), (ta == tb).mean()
    if tie == "trait_then_reroll" and mod_a != mod_b:
        return win + draw * (mod_a > mod_b)
    return win / (1 - draw)  # re-roll until someone wins


@pytest.mark.parametrize("tie", ["trait_then_reroll", "reroll"])
@pytest.mark.parametrize(("a", "b"), [(8, 8), (9, 7), (5, 10), (12, 11)])
def test_b5_opposed_against_enumeration(a, b, tie):
    """B5 / B-g3: higher total wins; ties → higher trait + skill, then a re-roll."""
    got = m3.opposed(a, b, variants=variants(tie=tie))
    assert got == pytest.approx(_brute_opposed(a, b, tie), abs=1e-12)


def test_b5_equal_sides_are_even():
    """B5: identical sides win half the time under either tie rule."""
    assert m3.opposed(7, 7) == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize("vigor", [1, 3, 5, 9])
def test_b10_b12_massive_check(vigor):
    """B10 (B-g6 default C + Vigor vs 12; variant C only), B12 the same with Resilience."""
    assert m3.MASSIVE_DIFFICULTY == 12
    assert m3.massive_check(vigor) == pytest.approx(brute_p_success(vigor, 12), abs=1e-12)
    c_only = variants(massive_traits="c_only")
    assert m3.massive_check(vigor, c_only) == pytest.approx(brute_p_success(0, 12), abs=1e-12)


@pytest.mark.parametrize("level", ["minor", "intermediate", "major"])
@pytest.mark.parametrize("aspect", [False, True])
def test_b13_arcane_use_against_enumeration(level, aspect):
    """B13: C + Will + arcane skill vs 10 / 15 / 20 (+ target Will); sanity cost from the
    same roll (minor m, intermediate C, major M). With the skill's aspect (seed 001): a
    reroll keeping M (B4), a fixed cost of 1 / 2 / 3, and 1 degeneration on a major use."""
    will, skill, target = 4, 3, 2
    difficulty = {"minor": 10, "intermediate": 15, "major": 20}[level] + target
    pick = {"minor": 0, "intermediate": 1, "major": 2}[level]
    p = 0.0
    cost = np.zeros(11)
    for dice in ROLLS:
        kept, special = brute_outcome(dice, "advantage" if aspect else "normal")
        p += (special == 1 or (special == 0 and kept + will + skill >= difficulty)) / 1000
        cost[
            {"minor": 1, "intermediate": 2, "major": 3}[level] if aspect else sorted(dice)[pick]
        ] += 1e-3
    got = m3.arcane_use(will, skill, level, target_will=target, aspect=aspect)
    assert got["p_success"] == pytest.approx(p, abs=1e-12)
    np.testing.assert_allclose(got["cost"], cost, atol=1e-12)
    assert got["degeneration"] == int(aspect and level == "major")


def test_b13_seed_example_major_use_against_will_6():
    """B13 seed example: a major use (20) against a target with Will 6 → difficulty 26;
    with C + Will + skill = C + 16 that needs C = 10 (or two 10s): P = 0.028."""
    got = m3.arcane_use(8, 8, "major", target_will=6)
    assert got["p_success"] == pytest.approx(0.028, abs=1e-12)


def test_bad_input():
    """B1/B4: unknown roll mode, arcane level and variant value raise InputError."""
    with pytest.raises(InputError, match="mode"):
        m3.exact(["sideways"])
    with pytest.raises(InputError, match="arcane level"):
        m3.arcane_use(3, 3, "huge")
    with pytest.raises(InputError, match="disadvantage"):
        variants(disadvantage="highest")
