"""``d20_degrees`` (RULES.md section E): exact model and Monte Carlo against oracles.

Rule ids exercised: E1 (d20 + modifier vs DC), E2 (degrees), E3 (natural 20 / natural 1),
E4 (take 10), E5 (opposed), E6 (circumstance), E7 (assisted checks, E-g1), E8 (extra
effort), E9 (hero point reroll).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from check_oracles import assert_mc_matches

from analysis.checks.curves import success_curves
from engines.errors import InputError
from engines.systems.d20_degrees import checks as d20
from engines.variants import parse_variants


def variants(**kw):
    return parse_variants(d20.Variants, {k: str(v) for k, v in kw.items()})


def brute_degree(total, dc, nat20=False, nat1=False, nat_20_degree=True, nat_1_fails=True):
    """E2/E3 from the text: success → 1 + full 5s above; failure → 1 + full 5s below;
    a natural 20 is one degree better; a natural 1 always fails."""

    def deg(t):
        return 1 + (t - dc) // 5 if t >= dc else -(1 + (dc - t) // 5)

    d = deg(total)
    if nat20 and nat_20_degree:
        d = deg(total + 5)  # "as if +5"
    if nat1 and nat_1_fails and d > 0:
        d = -1
    return d


def test_e1_dc_names():
    """E1: 0 trivial, 5 easy, 10 moderate, 15 hard, 20 challenging, 30 heroic, 40 near
    impossible."""
    assert d20.DCS == {
        "trivial": 0,
        "easy": 5,
        "moderate": 10,
        "hard": 15,
        "challenging": 20,
        "heroic": 30,
        "near_impossible": 40,
    }


def test_e2_degrees_by_hand():
    """E2: DC 15 — total 15 and 19 one degree of success, 20 two, 25 three; 14 and 11
    one degree of failure, 10 two, 5 three."""
    totals = np.array([15, 19, 20, 25, 14, 11, 10, 6, 5])
    np.testing.assert_array_equal(d20.degrees(totals, 15), [1, 1, 2, 3, -1, -1, -2, -2, -3])


def test_e3_natural_20_and_natural_1():
    """E3: a natural 20 counts one degree better (−1 → +1, +1 → +2); a natural 1 fails."""
    assert d20.degrees(13, 15, nat=2) == 1
    assert d20.degrees(15, 15, nat=2) == 2
    assert d20.degrees(9, 15, nat=2) == -1
    assert d20.degrees(30, 15, nat=1) == -1
    assert d20.degrees(13, 15, nat=2, variants=variants(natural_20_degree="false")) == -1
    assert d20.degrees(30, 15, nat=1, variants=variants(natural_1_fails="false")) == 4


@pytest.mark.parametrize("n20", [True, False])
@pytest.mark.parametrize("n1", [True, False])
def test_e2_e3_degree_table_matches_text(n20, n1):
    """E2/E3 over totals −10..50 × DC 0..40 × natural flags, all variant combinations."""
    v = variants(natural_20_degree=n20, natural_1_fails=n1)
    for total, dc, nat in itertools.product(range(-10, 51, 3), range(0, 41, 5), (0, 1, 2)):
        ref = brute_degree(total, dc, nat == 2, nat == 1, n20, n1)
        assert int(d20.degrees(total, dc, nat, v)) == ref, (total, dc, nat)


def brute_codes(mode, reroll_natural=False):
    """E1 / E9 from the text: one d20, or with a hero point a reroll where 1–10 reads
    11–20 and the better result is kept (the first on a tie)."""
    out = np.zeros(d20.N_CODES)
    if mode == "take_10":
        out[9] = 1.0
        return out
    for first in range(1, 21):
        nat1 = 2 if first == 20 else 1 if first == 1 else 0
        if mode == "roll":
            out[(first - 1) + 30 * nat1] += 1 / 20
            continue
        for second in range(1, 21):
            v2 = second + 10 if second <= 10 else second
            nat2 = 2 if second == 20 else (1 if second == 1 and reroll_natural else 0)
            v, nat = (v2, nat2) if v2 > first else (first, nat1)
            out[(v - 1) + 30 * nat] += 1 / 400
    return out


@pytest.mark.parametrize("reroll_natural", [False, True])
def test_e1_e4_e9_exact_codes_match_enumeration(reroll_natural):
    """E1 roll, E4 take 10, E9 hero point (with and without reroll_natural)."""
    v = variants(reroll_natural=reroll_natural)
    probs = d20.exact(("roll", "hero_point", "take_10"), v)
    for i, mode in enumerate(("roll", "hero_point", "take_10")):
        np.testing.assert_allclose(probs[i], brute_codes(mode, reroll_natural), atol=1e-15)


def test_e9_hero_point_by_hand():
    """E9 by hand: the kept result is ≥ 11 unless the first roll is above the second's
    11..20 reading; P(result ≤ 10) = 0 (the second roll alone is ≥ 11)."""
    probs = d20.exact(["hero_point"])[0]
    values = d20.value_of_codes()
    assert probs[values <= 10].sum() == 0.0
    # P(result = 20): first 20, or second 10 or 20 (first < 20): 1/20 + (19/20)(2/20)
    assert probs[values == 20].sum() == pytest.approx(1 / 20 + 19 / 20 * 2 / 20, abs=1e-15)


def test_e4_take_10():
    """E4: a routine check takes 10: result 10 + bonus, always (DC 15 with +5 succeeds)."""
    assert d20.p_degree(5, 15, 1, "take_10") == 1.0
    assert d20.p_degree(4, 15, 1, "take_10") == 0.0


def test_e1_e3_p_success_by_hand():
    """E1/E3: +5 vs DC 15 needs 10+ on the die: 11/20; a natural 1 never succeeds even at
    +20 (19/20); a natural 20 lifts +0 vs DC 25 (20 + 5 = 25) to 1/20."""
    assert d20.p_degree(5, 15) == pytest.approx(11 / 20)
    assert d20.p_degree(20, 15) == pytest.approx(19 / 20)
    assert d20.p_degree(0, 25) == pytest.approx(1 / 20)
    assert d20.p_degree(0, 26) == 0.0


@pytest.mark.parametrize(
    "kw",
    [{"natural_1_fails": "false"}, {"natural_20_degree": "false"}],
    ids=["no-nat1", "no-nat20"],
)
def test_e2_monte_carlo_matches_exact_every_cell(kw):
    """E1–E3: MC vs exact in every cell (modifier −5..30 × DC 0..40 × degree 1..4),
    tolerance 5 * sqrt(p (1 - p) / n) + 1 / n, seed 53. The default rules:
    tests/test_conformance.py (monte_carlo check, the same grid in all three roll modes,
    the same trials)."""
    n = 40_000
    t = success_curves("d20_degrees", "both", trials=n, seed=53, variants=variants(**kw))
    assert len(t) == 36 * 41 * 4
    assert_mc_matches(t["p_exact"], t["p_mc"], n, f"d20 {kw}")


@pytest.mark.parametrize("reroll_natural", [False, True])
def test_e9_monte_carlo_codes_match_exact(reroll_natural):
    """E1/E4/E9: the whole outcome-code histogram per roll mode."""
    n = 100_000
    v = variants(reroll_natural=reroll_natural)
    counts = d20.monte_carlo(trials=n, seed=7, variants=v)
    assert (counts.sum(axis=1) == n).all()
    assert_mc_matches(d20.exact(variants=v), counts / n, n, "d20 codes")


@pytest.mark.parametrize(("a", "b"), [(5, 5), (7, 3), (0, 12), (4, 5)])
def test_e5_opposed_against_enumeration(a, b):
    """E5: compare totals; tie → higher bonus; equal bonuses → roll-off (½)."""
    win = tie = 0
    for x, y in itertools.product(range(1, 21), repeat=2):
        win += x + a > y + b
        tie += x + a == y + b
    ref = (win + tie * (1.0 if a > b else 0.0 if a < b else 0.5)) / 400
    assert d20.opposed(a, b) == pytest.approx(ref, abs=1e-14)


def test_e6_e8_circumstance_and_extra_effort():
    """E6 minor ±2, major ±5; E8 extra effort +2."""
    assert d20.CIRCUMSTANCE == {"minor": 2, "major": 5}
    assert d20.EXTRA_EFFORT == 2


def brute_assist(bonuses, three=5, total="net"):
    """E7 / E-g1 from the text, by enumerating every helper roll vs DC 10: "the degrees of
    success (or failure) are summed"; one or two → +2, more than 3 → +5 (exactly 3: E-g1),
    a negative total beyond two → −2. ``total="separate"``: successes and failures apart."""
    out = {}
    for rolls in itertools.product(range(1, 21), repeat=len(bonuses)):
        degs = [
            brute_degree(r + b, 10, r == 20, r == 1) for r, b in zip(rolls, bonuses, strict=True)
        ]
        if total == "net":
            s = sum(degs)
            f = -s
        else:
            s = sum(max(d, 0) for d in degs)
            f = sum(max(-d, 0) for d in degs)
        mod = 5 if s > 3 else three if s == 3 else 2 if s >= 1 else -2 if f > 2 else 0
        out[mod] = out.get(mod, 0) + 1 / 20 ** len(bonuses)
    return out


@pytest.mark.parametrize("bonuses", [[0], [5], [3, -2], [8, 8], [-6, -6], [9, -9, 0]])
@pytest.mark.parametrize("three", [5, 2])
@pytest.mark.parametrize("total", ["net", "separate"])
def test_e7_e_g1_assist_against_enumeration(bonuses, three, total):
    """E7: helpers vs DC 10, degrees summed: 1–2 → +2, 3 → E-g1 (+5 default, +2 variant),
    more → +5; a total below −2 → −2 (one signed total by default, or apart)."""
    got = d20.assist_bonus(bonuses, variants(assist_three=three, assist_total=total))
    ref = brute_assist(bonuses, three, total)
    assert set(got) == {k for k, p in ref.items() if p > 0}
    for k, p in ref.items():
        assert got[k] == pytest.approx(p, abs=1e-12)


def test_e7_net_total_by_hand():
    """E7 by hand: a +30 helper gets at least 5 degrees (+5) except on a natural 1, which
    fails with one degree (total −1: no modifier). Two such helpers: the net total is +5
    or more unless both roll 1 (−2: still no modifier, as −2 is not below −2)."""
    got = d20.assist_bonus([30])
    assert got[5] == pytest.approx(19 / 20)
    assert got[0] == pytest.approx(1 / 20)  # natural 1: one degree of failure, total −1
    two = d20.assist_bonus([30, 30])
    assert two == pytest.approx({5: 1 - 1 / 400, 0: 1 / 400})
    # summed apart, one success and one natural 1 still give +5: the readings agree here
    assert d20.assist_bonus([30, 30], variants(assist_total="separate")) == pytest.approx(
        {5: 1 - 1 / 400, 0: 1 / 400}
    )


def test_bad_input():
    """E1/E9: unknown roll mode and variant values raise InputError naming them."""
    with pytest.raises(InputError, match="mode"):
        d20.exact(["take_20"])
    with pytest.raises(InputError, match="assist_three"):
        variants(assist_three=3)
    with pytest.raises(InputError, match="natural_1_fails"):
        variants(natural_1_fails="sometimes")


@pytest.mark.parametrize("mode", ["roll", "hero_point"])
def test_e1_e9_result_distribution_matches_icepool(mode):
    """E1 one d20; E9 the better of the first roll and a reroll read 11–20 when 1–10
    (icepool); natural flags aside, the result distribution must agree."""
    import icepool

    if mode == "roll":
        die = icepool.d20
    else:
        die = icepool.map(lambda a, b: max(a, b + 10 if b <= 10 else b), icepool.d20, icepool.d20)
    ref = np.array([float(die.probability(v)) for v in range(1, 31)])
    probs = d20.exact([mode])[0]
    got = np.bincount(d20.value_of_codes() - 1, weights=probs, minlength=30)
    np.testing.assert_allclose(got, ref, atol=1e-15)
