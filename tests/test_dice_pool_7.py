"""``dice_pool_7`` (RULES.md section A): exact model and Monte Carlo against oracles.

Rule ids exercised: A1 (check, 10-again), A2 (pool, ±5 cap), A3 (focus), A4 (willpower),
A5 (equipment), A9 (dodge), A17 (morality), A-g1 (chance die), A-g2 (success levels).
"""

from __future__ import annotations

import numpy as np
import pytest
from check_oracles import (
    assert_mc_matches,
    dense,
    icepool_pool_codes,
    pool_codes_brute,
)

from analysis.checks.curves import success_curves
from engines.errors import InputError
from engines.systems.dice_pool_7 import checks as dp7
from engines.variants import parse_variants

AGAIN = [10, 9, 8, None]


def variants(**kw):
    return parse_variants(
        dp7.Variants, {k: ("none" if v is None else str(v)) for k, v in kw.items()}
    )


@pytest.mark.parametrize("again", AGAIN)
@pytest.mark.parametrize("threshold", [6, 7, 8, 10])
def test_a1_exact_matches_face_enumeration(threshold, again):
    """A1: every pool 0..4 equals a recursion over every face of every die (and A-g1 for 0)."""
    v = variants(threshold=threshold, again=again)
    probs, tail = dp7.exact(np.arange(0, 5), v, codes=50)
    for n in range(5):
        ref = dense(pool_codes_brute(n, threshold, again, max_dice=n + 40), 50)
        np.testing.assert_allclose(probs[n], ref, atol=1e-12, err_msg=f"pool {n}")
    assert tail.max() <= 1e-12


@pytest.mark.parametrize("again", AGAIN)
def test_a1_exact_matches_icepool(again):
    """A1: pools 1..15 against icepool's exploding die (``Again``, depth 40)."""
    v = variants(again=again)
    pools = np.arange(1, 16)
    probs, _ = dp7.exact(pools, v, codes=70)
    for i, n in enumerate(pools):
        np.testing.assert_allclose(
            probs[i],
            icepool_pool_codes(int(n), 7, again, 40, 70),
            atol=1e-12,
            err_msg=f"pool {n}, again {again}",
        )


def test_a1_one_die_by_hand():
    """A1 by hand: one die succeeds once with P = 0.3 + 0.1 * 0.6 = 0.36, never with 0.6."""
    probs, _ = dp7.exact([1])
    assert probs[0, 1] == pytest.approx(0.6, abs=1e-15)
    assert probs[0, 2] == pytest.approx(0.36, abs=1e-15)
    assert probs[0, 3] == pytest.approx(0.1 * 0.36, abs=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("again", [10, 9, 8])
def test_a1_explosion_truncation_tail_below_1e12(again):
    """A1: the exact model's truncated explosion mass is reported and at most 1e-12 (up to
    200 dice), and the kept codes agree with a far longer chain (icepool, depth 80)."""
    v = variants(again=again)
    pools = np.array([1, 5, 20, 60, 200])
    probs, tail = dp7.exact(pools, v)
    assert (tail <= 1e-12).all()
    np.testing.assert_allclose(probs.sum(axis=1) + tail, 1.0, atol=1e-13)
    deep = icepool_pool_codes(20, 7, again, 80, probs.shape[1] + 1)
    np.testing.assert_allclose(probs[2], deep[:-1], atol=1e-12)


def test_a_g1_chance_die_default():
    """A-g1 default: a pool of 0 or less rolls one chance die; 10 succeeds (no explosion),
    1 is a dramatic failure (code 0)."""
    probs, _ = dp7.exact([0, -2], codes=10)
    for row in probs:
        np.testing.assert_allclose(row[:4], [0.1, 0.8, 0.1, 0.0], atol=1e-15)


def test_a_g1_chance_die_explodes_variant():
    """A-g1 variant chance_die_explodes: the chance die's 10 rolls one more ordinary die."""
    v = variants(chance_die_explodes="true")
    probs, _ = dp7.exact([0], v, codes=40)
    ref = dense(pool_codes_brute(0, chance_explodes=True), 40)
    np.testing.assert_allclose(probs[0], ref, atol=1e-12)
    assert probs[0, 3] == pytest.approx(0.1 * 0.36, abs=1e-15)  # 10, then exactly one more


def test_a_g1_chance_die_off_is_automatic_failure():
    """A-g1 variant chance_die=false: a pool of 0 or less simply fails (0 successes)."""
    probs, _ = dp7.exact([0, -1], variants(chance_die="false"), codes=10)
    np.testing.assert_allclose(probs[:, 1], 1.0)
    mc = dp7.monte_carlo([0], 1000, 1, variants(chance_die="false"), codes=10)
    assert mc[0, 1] == 1000


# the default rules: tests/test_conformance.py (monte_carlo check: every cell and code of
# the same grid, 40 000 trials)
MC_VARIANTS = [
    {"again": 9},
    {"again": 8},
    {"again": None},
    {"threshold": 8},
    {"chance_die": "false"},
    {"chance_die_explodes": "true"},
]


@pytest.mark.parametrize("kw", MC_VARIANTS, ids=lambda kw: ",".join(map(str, kw.items())))
def test_a1_monte_carlo_matches_exact_every_cell(kw):
    """A1, A-g1, A-g2: Monte Carlo vs exact in every cell of the success-curve grid (pools
    0..20 × at least 1..10 successes), tolerance 5 * sqrt(p (1 - p) / n) + 1 / n, seed 11."""
    n = 20_000
    t = success_curves("dice_pool_7", "both", trials=n, seed=11, variants=variants(**kw))
    assert len(t) == 21 * 10
    assert_mc_matches(t["p_exact"], t["p_mc"], n, f"dice_pool_7 {kw}")


def test_a1_monte_carlo_code_distribution_matches_exact():
    """A1/A-g1: the whole outcome-code histogram (including dramatic failures) per pool."""
    n = 50_000
    pools = np.arange(-1, 9)
    probs, _ = dp7.exact(pools)
    counts = dp7.monte_carlo(pools, n, 5, codes=probs.shape[1])
    assert (counts.sum(axis=1) == n).all()
    assert_mc_matches(probs, counts / n, n, "codes")


def test_a_g2_exceptional_success_from_full_distribution():
    """A-g2: no level beyond the success count by default (exceptional_at=5 is a named
    variant); the table reads P(5+ successes) straight from the full distribution."""
    assert dp7.DEFAULT.exceptional_at == 0
    assert variants(exceptional_at=5).exceptional_at == 5
    with pytest.raises(InputError, match="exceptional_at"):
        variants(exceptional_at=7)
    probs, _ = dp7.exact([5], codes=40)
    ref = dense(pool_codes_brute(5, max_dice=45), 40)
    assert probs[0, 6:].sum() == pytest.approx(ref[6:].sum(), abs=1e-12)
    t = success_curves("dice_pool_7", axes={"pool": [5], "successes": [5]})
    assert float(t["p"].iloc[0]) == pytest.approx(probs[0, 6:].sum(), abs=1e-15)


def test_a2_pool_size_and_modifier_cap():
    """A2: attribute + specialization (+2) + modifiers, situational + equipment capped ±5."""
    assert dp7.pool_size(3) == 3
    assert dp7.pool_size(3, specialization=True) == 5
    assert dp7.pool_size(3, modifiers=-2) == 1
    assert dp7.pool_size(2, modifiers=9) == 7  # capped at +5
    assert dp7.pool_size(2, modifiers=-9) == -3  # capped at -5: a chance die (A-g1)
    assert dp7.pool_size(2, modifiers=4, equipment="masterful") == 7  # 4 + 2 capped to 5


def test_a3_a4_a5_focus_willpower_equipment():
    """A3 focus +1 die; A4 willpower +3 dice (or +2 resistance); A5 equipment 0/+1/+2."""
    assert dp7.pool_size(4, focus=True) == 5
    assert dp7.pool_size(4, willpower=True) == 7
    assert dp7.WILLPOWER_RESISTANCE == 2
    assert [dp7.pool_size(4, equipment=q) for q in ("normal", "masterwork", "masterful")] == [
        4,
        5,
        6,
    ]
    with pytest.raises(InputError, match="equipment"):
        dp7.pool_size(4, equipment="legendary")
    with pytest.raises(InputError, match="attribute"):
        dp7.pool_size(-1)


def test_a9_dodge_against_enumeration():
    """A9: the dodger rolls 2 × Defense dice; each success removes one attack die. Reference
    built from face enumeration: attack pool minus dodge successes, a chance die at 0."""
    attack, defense = 6, 2
    assert dp7.dodge_dice(defense) == 4
    got = dp7.attack_vs_dodge(attack, defense)
    n_codes = got.size
    dodge = pool_codes_brute(4)
    ref = np.zeros(n_codes)
    for code, p in dodge.items():
        removed = max(code - 1, 0)
        ref += p * dense(pool_codes_brute(attack - removed), n_codes)
    np.testing.assert_allclose(got, ref, atol=1e-12)
    with pytest.raises(InputError, match="defense"):
        dp7.dodge_dice(-1)


def test_a17_changeling_worked_example():
    """A17 seed example: a changeling at Morality 6 kidnaps (M3): 2 dice; on failure
    Morality 5, then a Degeneration check with 5 dice. No success on one die is 0.6."""
    r = dp7.morality_check(3, 6)
    assert r["check"] is True
    assert r["dice"] == 2
    assert r["degeneration_dice"] == 5
    assert r["p_drop"] == pytest.approx(0.6**2, abs=1e-14)
    assert r["p_derangement"] == pytest.approx(0.6**2 * 0.6**5, abs=1e-14)


def test_a17_morality_table_and_no_check_above_morality():
    """A17: dice by level (M10–9: 5; M8–7: 4; M6–4: 3; M3–1: 2); M > Morality: no check."""
    expect = {10: 5, 9: 5, 8: 4, 7: 4, 6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
    for level, dice in expect.items():
        assert dp7.morality_check(level, 10)["dice"] == dice
    assert dp7.morality_check(8, 7)["check"] is False
    with pytest.raises(InputError, match="infraction"):
        dp7.morality_check(11, 7)


def test_bad_pool_input():
    """A1: a pool is a whole number of dice, at most 200."""
    with pytest.raises(InputError, match="pool"):
        dp7.exact([1.5])
    with pytest.raises(InputError, match="pool"):
        dp7.monte_carlo([201], 10, 1)


def test_unknown_and_invalid_variants():
    """A1/A-g1 variants: unknown names and invalid values raise InputError naming them."""
    with pytest.raises(InputError, match="unknown variant 'agian'"):
        parse_variants(dp7.Variants, ["agian=9"])
    with pytest.raises(InputError, match="again"):
        parse_variants(dp7.Variants, ["again=7"])
    with pytest.raises(InputError, match="chance_die"):
        parse_variants(dp7.Variants, ["chance_die=maybe"])
