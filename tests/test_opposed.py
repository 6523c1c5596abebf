"""Opposed checks (A-g7, B5/B-g3, C10, D3, E5): exact vs brute force / icepool, MC vs exact,
and the paired kernel's thread and batch independence."""

import itertools
from math import sqrt

import icepool
import numba
import numpy as np
import pytest

from analysis.checks.opposed import opposed_table
from engines.checks import run_pairs
from engines.errors import InputError
from engines.rolls import D20, POOL
from engines.systems.d20_degrees import checks as d20_degrees
from engines.systems.dice_pool_6 import checks as dice_pool_6
from engines.systems.middle_3d10 import checks as middle_3d10
from engines.systems.percentile import checks as percentile

# ---------------------------------------------------------------- brute-force oracles


def _pool_succ_no_explode(dice, threshold, crit_pairs):
    """Successes of one set of d10 faces: faces >= threshold; C-g2 pairs of 10s +2 each."""
    s = sum(d >= threshold for d in dice)
    if crit_pairs:
        s += 2 * (sum(d == 10 for d in dice) // 2)
    return s


def _pool_dist_brute(n, threshold=7, crit_pairs=False, chance_die=True):
    """{successes: prob} by enumerating every face combination (no explosions)."""
    if n <= 0:
        if not chance_die:
            return {0: 1.0}
        return {0: 0.9, 1: 0.1}  # chance die: only a 10 succeeds (A-g1)
    out = {}
    for dice in itertools.product(range(1, 11), repeat=n):
        s = _pool_succ_no_explode(dice, threshold, crit_pairs)
        out[s] = out.get(s, 0.0) + 0.1**n
    return out


def _compare(da, db, tie_share, reroll=False):
    w = t = l_ = 0.0
    for sa, pa in da.items():
        for sb, pb in db.items():
            if sa > sb:
                w += pa * pb
            elif sa == sb:
                t += pa * pb
            else:
                l_ += pa * pb
    if reroll:
        return w / (w + l_)
    return w + tie_share * t


@pytest.mark.parametrize(("a", "b"), [(0, 0), (0, 2), (1, 1), (2, 1), (1, 3), (3, 2), (3, 3)])
def test_dice_pool_6_contest_matches_enumeration(a, b):
    """C10 (+ C1 6+, C-g2 criticals): challenger wins with equal or more successes."""
    got = opposed_table("dice_pool_6", axes={"pool_a": [a], "pool_b": [b]})["p"].iloc[0]
    want = _compare(
        _pool_dist_brute(a, 6, True, chance_die=False),
        _pool_dist_brute(b, 6, True, chance_die=False),
        tie_share=1.0,
    )
    assert got == pytest.approx(want, abs=1e-12)
    assert got == pytest.approx(dice_pool_6.contest(a, b), abs=1e-12)


@pytest.mark.parametrize("tie", ["defender", "reroll"])
@pytest.mark.parametrize(("a", "b"), [(0, 1), (1, 0), (2, 2), (3, 1), (1, 3)])
def test_dice_pool_7_no_explosion_matches_enumeration(a, b, tie):
    """A1 with again=none, A-g1 chance die, A-g7 tie rule (defender or re-roll)."""
    got = opposed_table(
        "dice_pool_7",
        axes={"pool_a": [a], "pool_b": [b]},
        variants=[f"opposed_tie={tie}", "again=none"],
    )["p"].iloc[0]
    want = _compare(_pool_dist_brute(a), _pool_dist_brute(b), 0.0, reroll=tie == "reroll")
    assert got == pytest.approx(want, abs=1e-12)


def _icepool_pool7(n):
    """A1 10-again pool via icepool: a 10 is coded 11 so its chain can be decoded."""
    one = icepool.Die([0] * 6 + [1] * 3 + [11]).explode([11], depth=25)
    one = one.map(lambda s: s // 11 + s % 11)
    die = n @ one
    total = die.denominator()
    return {int(k): die.quantity(k) / total for k in die.outcomes()}


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 4), (5, 3), (6, 6)])
def test_dice_pool_7_exploding_matches_icepool(a, b):
    """A1 (10-again) + A-g7 default: the attacker needs strictly more successes."""
    got = opposed_table("dice_pool_7", axes={"pool_a": [a], "pool_b": [b]})["p"].iloc[0]
    want = _compare(_icepool_pool7(a), _icepool_pool7(b), 0.0)
    assert got == pytest.approx(want, abs=1e-9)


def _middle_dist():
    kept = np.zeros(11)
    for dice in itertools.product(range(1, 11), repeat=3):
        kept[sorted(dice)[1]] += 1e-3
    return kept


@pytest.mark.parametrize("tie", ["trait_then_reroll", "reroll"])
@pytest.mark.parametrize(("ma", "mb"), [(5, 5), (6, 5), (5, 8), (12, 3)])
def test_middle_opposed_matches_enumeration(ma, mb, tie):
    """B5: higher total (middle die + modifier) wins; B-g3 ties: higher trait + skill, then
    a re-roll (or always a re-roll)."""
    kept = _middle_dist()
    w = t = l_ = 0.0
    for ka in range(1, 11):
        for kb in range(1, 11):
            m = kept[ka] * kept[kb]
            ta, tb = ka + ma, kb + mb
            w, t, l_ = w + m * (ta > tb), t + m * (ta == tb), l_ + m * (ta < tb)
    want = (w + t * (ma > mb)) if (tie == "trait_then_reroll" and ma != mb) else w / (w + l_)
    v = middle_3d10.Variants(tie=tie)
    got = opposed_table("middle_3d10", axes={"modifier_a": [ma], "modifier_b": [mb]}, variants=v)[
        "p"
    ].iloc[0]
    assert got == pytest.approx(want, abs=1e-12)
    assert got == pytest.approx(middle_3d10.opposed(ma, mb, variants=v), abs=1e-12)


def _pct_level(roll, skill):
    """D1 levels with D-g1: 01 critical (compared as extreme), fumble 100 / 96+ below 50."""
    if roll == 1:
        return 3
    if roll == 100 or (roll >= 96 and skill < 50):
        return 0
    if roll <= skill // 5:
        return 3
    if roll <= skill // 2:
        return 2
    return 1 if roll <= skill else 0


@pytest.mark.parametrize(("sa", "sb"), [(50, 50), (60, 40), (30, 70), (45, 45), (99, 5)])
def test_percentile_opposed_matches_direct_loops(sa, sb):
    """D3: higher level wins; tie → higher skill; still tied → roll-off (½)."""
    p = 0.0
    for ra in range(1, 101):
        for rb in range(1, 101):
            la, lb = _pct_level(ra, sa), _pct_level(rb, sb)
            if la > lb:
                p += 1e-4
            elif la == lb:
                p += 1e-4 * (1.0 if sa > sb else 0.0 if sa < sb else 0.5)
    got = opposed_table("percentile", axes={"skill_a": [sa], "skill_b": [sb]})["p"].iloc[0]
    assert got == pytest.approx(p, abs=1e-12)
    assert got == pytest.approx(percentile.opposed(sa, sb), abs=1e-12)


def test_percentile_opposed_bonus_die_axis():
    """D4 + D3: a bonus die for the attacker raises its chance at equal skills."""
    t = opposed_table(
        "percentile", axes={"skill_a": [50], "skill_b": [50], "dice_a": [0, 1], "dice_b": [0]}
    )
    p = dict(zip(t["dice_a"], t["p"], strict=True))
    assert p[0] == pytest.approx(0.5)
    assert p[1] == pytest.approx(percentile.opposed(50, 50, 1, 0), abs=1e-12)
    assert p[1] > 0.55


@pytest.mark.parametrize(("ba", "bb"), [(0, 0), (3, 0), (0, 7), (10, 10), (20, 0)])
def test_d20_opposed_matches_direct_loops(ba, bb):
    """E5: higher total wins; tie → higher bonus; equal bonuses roll off (½)."""
    p = 0.0
    for da in range(1, 21):
        for db in range(1, 21):
            ta, tb = da + ba, db + bb
            p += (ta > tb) / 400 + (ta == tb) / 400 * (1.0 if ba > bb else 0.0 if ba < bb else 0.5)
    got = opposed_table("d20_degrees", axes={"modifier_a": [ba], "modifier_b": [bb]})
    assert got["p"].iloc[0] == pytest.approx(p, abs=1e-12)
    assert got["p"].iloc[0] == pytest.approx(d20_degrees.opposed(ba, bb), abs=1e-12)


def test_symmetry_of_defaults():
    """Whole grids: ties settled by a fair rule give P(a beats b) + P(b beats a) = 1."""
    for system, axis in [
        ("middle_3d10", "modifier"),
        ("percentile", "skill"),
        ("d20_degrees", "modifier"),
    ]:
        t = opposed_table(system).set_index([f"{axis}_a", f"{axis}_b"])["p"]
        swapped = t.copy()
        swapped.index = swapped.index.swaplevel()
        assert np.allclose(t + swapped.reindex(t.index), 1.0)


# ---------------------------------------------------------------- Monte Carlo vs exact

MC_TRIALS = 40_000


# The default grid of every system (each side's levels, the default rules): the opposed
# check of tests/test_conformance.py, every cell within 5 SE + 1/n, 40 000 trials.


def test_mc_reroll_variant_matches_exact():
    """A-g7 re-roll variant: n = trials that do not tie; P(tie) from the enumeration."""
    t = opposed_table(
        "dice_pool_7",
        "both",
        trials=MC_TRIALS,
        seed=5,
        variants=["opposed_tie=reroll", "again=none"],
        axes={"pool_a": [0, 1, 2, 3], "pool_b": [0, 1, 2, 3]},
    )
    for row in t.itertuples():
        da, db = _pool_dist_brute(row.pool_a), _pool_dist_brute(row.pool_b)
        p_tie = sum(p * db.get(s, 0.0) for s, p in da.items())
        n = MC_TRIALS * (1 - p_tie)
        p = row.p_exact
        assert abs(row.p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n


# ---------------------------------------------------------------- paired kernel


def test_run_pairs_threads_and_batches_bit_identical():
    """Same seed → same joint counts on 1 or 2 threads and for any batch size."""
    args = (POOL, [0, 3, 5, 2], [4, 3, 1, 2], np.array([7, 10, 0, 1, 0]), 24, 70_000, 42)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run_pairs(*args)
        numba.set_num_threads(2)
        two = run_pairs(*args)
        batched = run_pairs(*args, batch_sets=1)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)
    assert np.array_equal(one, batched)
    assert (one.sum(axis=1) == 70_000).all()


def test_run_pairs_sides_independent_and_uniform():
    """Two plain d20s: each of the 400 joint cells has mass 1/400 (E1 dice)."""
    n = 400_000
    # natural 1 / 20 go to codes 30+ / 60+; fold them back onto values
    full = run_pairs(D20, [0], [0], [0], 90, n, seed=7)[0].reshape(3, 30, 3, 30).sum(axis=(0, 2))
    assert full[:20, :20].sum() == n
    p = 1 / 400
    tol = 5 * sqrt(p * (1 - p) / n) + 1 / n
    assert np.all(np.abs(full[:20, :20] / n - p) <= tol)


def test_bad_input():
    with pytest.raises(InputError, match="unknown axis"):
        opposed_table("d20_degrees", axes={"skill_a": [1]})
    with pytest.raises(InputError, match="method"):
        opposed_table("d20_degrees", "fast")
    with pytest.raises(InputError, match="opposed_tie"):
        opposed_table("dice_pool_7", variants=["opposed_tie=attacker"])
    with pytest.raises(InputError, match="equal length"):
        run_pairs(D20, [0, 0], [0], [0], 90, 10, 1)


def test_mc_matches_exact_with_roll_settings_per_side():
    """D4 bonus/penalty dice and B4 advantage on one side only: the paired kernel rolls
    each side with its own setting. Tolerance: 5 binomial SEs + 1/n (no re-rolled ties
    here: modifiers differ, and D3 ties are settled by skill or a ½ roll-off)."""
    n = 30_000
    t = opposed_table(
        "percentile",
        "both",
        trials=n,
        seed=8,
        axes={"skill_a": [30, 60], "skill_b": [50], "dice_a": [-1, 0, 2], "dice_b": [0, 1]},
    )
    assert len(t) == 12
    p = t["p_exact"].to_numpy()
    assert (np.abs(t["p_mc"] - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n).all()
    for row in t.itertuples():
        assert row.p_exact == pytest.approx(
            percentile.opposed(row.skill_a, row.skill_b, row.dice_a, row.dice_b), abs=1e-12
        )
    t = opposed_table(
        "middle_3d10",
        "both",
        trials=n,
        seed=9,
        axes={
            "modifier_a": [8],
            "modifier_b": [10, 12],
            "roll_a": ["advantage", "normal"],
            "roll_b": ["normal"],
        },
    )
    p = t["p_exact"].to_numpy()
    assert (np.abs(t["p_mc"] - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n).all()
    for row in t.itertuples():
        assert row.p_exact == pytest.approx(
            middle_3d10.opposed(row.modifier_a, row.modifier_b, row.roll_a, row.roll_b), abs=1e-12
        )
    adv = t[t["roll_a"] == "advantage"]["p_exact"].to_numpy()
    assert (adv > t[t["roll_a"] == "normal"]["p_exact"].to_numpy()).all()  # B4 helps
