"""middle_3d10 lethality outcomes (RULES.md "Lethality outcomes", B9, B10, B11, gaps
B-g10…B-g14): hand-worked fate probabilities, ``one_hit``, MC vs the exact duel under
every aftermath policy, group fights, and the fight's own numbers left untouched."""

from __future__ import annotations

import itertools
from math import sqrt

import numpy as np
import pytest

from analysis.combat.archetypes import combatants
from engines.errors import InputError
from engines.systems.middle_3d10 import combat as cm
from engines.systems.middle_3d10.combat import Combatant, Variants
from engines.variants import parse_variants

LIB = combatants("middle_3d10")
# Custom pairs where a finishing strike (Defense − 5, − 3 more if the target never acted,
# the winner's own wound penalty) often misses, so the MC kernel's finish is checked where
# those rules move the numbers: "clumsy" fights are often decided before the unaware
# loser acts (flat-footed, B6); "tough" ones (Vigor 10, light blows) leave the winner
# wounded or incapacitated (B9) when it strikes.
CLUMSY = {
    "clumsy_a": Combatant(
        name="clumsy_a", trait=2, combat=1, vigor=2, defense=15, dice="M", reflex=3
    ),
    "clumsy_b": Combatant(
        name="clumsy_b", trait=1, combat=2, vigor=3, defense=14, dice="C", reflex=3, aware=False
    ),
    "tough_a": Combatant(
        name="tough_a", trait=3, combat=3, strength=0, vigor=10, defense=13, dice="C", reflex=3
    ),
    "tough_b": Combatant(
        name="tough_b",
        trait=3,
        combat=2,
        strength=0,
        vigor=10,
        defense=13,
        dice="C",
        reflex=3,
        aware=False,
    ),
}


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def p_middle_at_least(k: int) -> float:
    """P(C ≥ k) of 3d10 keep-the-middle: at least two dice ≥ k (closed form)."""
    p = min(1.0, max(0.0, (11 - k) / 10))
    return 3 * p * p * (1 - p) + p**3


def brute_strike(att: Combatant, defense: int) -> dict[int, float]:
    """{damage: probability} of one plain attack (0 = miss) by brute force over the 1000
    rolls (B1, B3 two 10s hit / two 1s miss, B7, B8)."""
    out: dict[int, float] = {}
    for dice in itertools.product(range(1, 11), repeat=3):
        lo, mid, hi = sorted(dice)
        tens, ones = dice.count(10), dice.count(1)
        hit = tens >= 2 or (ones < 2 and mid + att.trait + att.combat >= defense)
        picks = {"m": lo, "C": mid, "M": hi}
        d = sum(picks[c] for c in att.dice) + att.damage_bonus if hit else 0
        out[d] = out.get(d, 0.0) + 1e-3
    return out


# --------------------------------------------------------------- variants (gaps)


def test_gap_variants_defaults_and_parse():
    """B-g10…B-g14 and ``aftermath`` are named variants with documented defaults."""
    v = Variants()
    assert (
        v.aftermath,
        v.untreated_dying,
        v.dying_damage,
        v.helpless_defense,
        v.finish_rounds,
        v.aid_total,
        v.aid_difficulty,
        v.aid_tries,
    ) == ("leave", "dying", "any", "incapacitated", 10, 6, 15, 1)
    w = parse_variants(
        Variants,
        [
            "aftermath=finish",
            "untreated_dying=dead",
            "dying_damage=massive",
            "helpless_defense=auto_hit",
            "finish_rounds=3",
            "aid_tries=2",
        ],
    )
    assert (w.aftermath, w.untreated_dying, w.finish_rounds, w.aid_tries) == (
        "finish",
        "dead",
        3,
        2,
    )
    with pytest.raises(InputError, match="aftermath"):
        parse_variants(Variants, ["aftermath=eat"])
    with pytest.raises(InputError, match="finish_rounds"):
        parse_variants(Variants, ["finish_rounds=0"])
    with pytest.raises(InputError, match="aid_tries"):
        cm.duel_exact(LIB["novice"], LIB["novice"], Variants(aid_tries=21))
    with pytest.raises(InputError, match="aftermath"):
        cm.duel_mc(LIB["novice"], LIB["novice"], 10, variants=Variants(aftermath="x"))


# --------------------------------------------------------------- hand-worked fates


def test_b_g10_leave_keeps_the_dying_dying():
    """B9 "Moribundo | 3×Vigor (Resistência zerada) | inconsciente, risco de morte": a
    risk, with no clock and no death rule, so under ``leave`` the loser stays dying
    (B-g10 default); the other readings put it dead or out."""
    a, b = LIB["novice"], LIB["competent"]
    np.testing.assert_array_equal(cm.fate_probs(a, b), [0.0, 1.0, 0.0])
    np.testing.assert_array_equal(
        cm.fate_probs(a, b, Variants(untreated_dying="dead")), [1.0, 0.0, 0.0]
    )
    np.testing.assert_array_equal(
        cm.fate_probs(a, b, Variants(untreated_dying="out")), [0.0, 0.0, 1.0]
    )


@pytest.mark.parametrize(
    ("tries", "total", "difficulty", "q"),
    [
        (1, 6, 15, 0.104),  # C ≥ 9: 3 · 0.2² · 0.8 + 0.2³
        (3, 6, 15, 0.104),
        (1, 40, 1, 0.972),  # always, except two or three 1s (B3): 28 / 1000
        (2, 0, 25, 0.028),  # never, except two or three 10s (B3)
    ],
)
def test_b_g14_first_aid_stabilises(tries, total, difficulty, q):
    """B-g14: ``first_aid`` tries a B1 check C + aid_total ≥ aid_difficulty (B3 doubles
    apply); a success stabilises the dying fighter (out, B11 "se estabiliza"), a failure
    leaves it to B-g10."""
    v = Variants(aftermath="first_aid", aid_tries=tries, aid_total=total, aid_difficulty=difficulty)
    p_out = 1 - (1 - q) ** tries
    np.testing.assert_allclose(
        cm.fate_probs(LIB["novice"], LIB["novice"], v), [0.0, 1 - p_out, p_out], atol=1e-12
    )
    v2 = Variants(
        aftermath="first_aid",
        aid_tries=tries,
        aid_total=total,
        aid_difficulty=difficulty,
        untreated_dying="dead",
    )
    np.testing.assert_allclose(
        cm.fate_probs(LIB["novice"], LIB["novice"], v2), [1 - p_out, 0.0, p_out], atol=1e-12
    )


@pytest.mark.parametrize(
    ("penalty", "flat", "k"),
    [
        (0, False, 0.216),  # C + 2 ≥ 15 − 5: C ≥ 8
        (0, True, 0.648),  # C + 2 ≥ 15 − 5 − 3 (never acted, B6): C ≥ 5
        (2, False, 0.028),  # wounded winner (B9 −2): C ≥ 10, only two or three 10s
        (5, True, 0.028),  # incapacitated winner (−5), flat target: C − 3 ≥ 7, C ≥ 10
    ],
)
def test_b_g11_b_g12_b_g13_finish(penalty, flat, k):
    """``finish``: the winner strikes the dying loser, Defense − 5 (B-g12; − 3 more if it
    never acted), any damage kills (B-g11: Resistance is already zero), up to
    ``finish_rounds`` strikes (B-g13); a weak winner (trait 1 + Combat 1) against
    Defense 15, two strikes: P(dead) = 1 − (1 − k)²."""
    weak = Combatant(name="weak", trait=1, combat=1, dice="M")
    tgt = Combatant(name="tgt", defense=15)
    v = Variants(aftermath="finish", finish_rounds=2)
    p = 1 - (1 - k) ** 2
    np.testing.assert_allclose(
        cm.fate_probs(weak, tgt, v, penalty, flat), [p, 1 - p, 0.0], atol=1e-12
    )
    auto = Variants(aftermath="finish", finish_rounds=1, helpless_defense="auto_hit")
    np.testing.assert_allclose(cm.fate_probs(weak, tgt, auto, penalty, flat), [1, 0, 0])


def test_b_g11_massive_only_kills_through_the_b10_check():
    """B-g11 ``massive``: a strike kills only when its damage ≥ Vigor and the B10 check
    (C + Vigor ≥ 12, B-g6) fails. Brawler-like winner (fists: m + ⌊(6 + 5)/4⌋ = m + 2)
    on a Vigor-8 target with Defense 10 − 5: hit and m + 2 ≥ 8 by brute force; the check
    fails when C < 4: 1 − P(C ≥ 4) = 1 − 0.784 = 0.216."""
    att = Combatant(name="att", trait=4, combat=5, strength=6, dice="m")
    tgt = Combatant(name="tgt", vigor=8, defense=10)
    pmf = brute_strike(att, 10 - 5)
    p_big = sum(p for d, p in pmf.items() if d >= 8)
    assert 1 - p_middle_at_least(4) == pytest.approx(0.216)
    k = p_big * 0.216
    v = Variants(aftermath="finish", finish_rounds=3, dying_damage="massive")
    p = 1 - (1 - k) ** 3
    np.testing.assert_allclose(cm.fate_probs(att, tgt, v), [p, 1 - p, 0.0], atol=1e-12)


def test_one_hit_fates_split_p_incapacitate():
    """one_hit: p_dead + p_dying + p_out == p_incapacitate; p_kill stays 0 (the hit itself
    never kills, B9). Bear on the flat-footed gangster (B6): finish with auto_hit kills
    every dropped target, first_aid stabilises 0.104 of them (B-g14 default)."""
    bear, gangster = LIB["bear"], LIB["gangster"]
    base = cm.one_hit(bear, gangster, flat_footed=True)
    assert base["p_kill"] == 0.0
    assert base["p_dying"] == pytest.approx(base["p_incapacitate"])
    assert base["p_dead"] == base["p_out"] == 0.0
    fin = cm.one_hit(
        bear, gangster, Variants(aftermath="finish", helpless_defense="auto_hit"), flat_footed=True
    )
    assert fin["p_dead"] == pytest.approx(base["p_incapacitate"])
    aid = cm.one_hit(bear, gangster, Variants(aftermath="first_aid"), flat_footed=True)
    assert aid["p_out"] == pytest.approx(0.104 * base["p_incapacitate"])
    assert aid["p_dying"] == pytest.approx(0.896 * base["p_incapacitate"])
    for r in (base, fin, aid):
        assert r["p_dead"] + r["p_dying"] + r["p_out"] == pytest.approx(r["p_incapacitate"])
        assert r["p_incapacitate"] == base["p_incapacitate"]


# --------------------------------------------------------------- MC vs exact

POLICIES = [
    Variants(),
    Variants(aftermath="first_aid", aid_tries=2),
    Variants(aftermath="finish", finish_rounds=1, dying_damage="massive"),
]


@pytest.mark.slow
@pytest.mark.parametrize("variants", POLICIES, ids=["leave", "first_aid", "finish"])
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("competent_swordsman", "competent_brawler"),
        ("novice", "competent"),
        ("bear", "gangster"),
        ("clumsy_a", "clumsy_b"),
        ("tough_a", "tough_b"),
    ],
)
def test_mc_matches_exact_fates(a, b, variants):
    """Lethality outcomes, MC kernel vs the exact chain + closed-form aftermath: every
    loser_fate and fates cell within 5σ + 1/n (fixed seed); duels give one count per
    decided fight, so the squares equal the counts and loser_fate[w] sums to outcome[w]."""
    n = 60_000
    a, b = LIB.get(a) or CLUMSY[a], LIB.get(b) or CLUMSY[b]
    exact = cm.duel_exact(a, b, variants, round_cap=40)
    mc = cm.duel_mc(a, b, n, seed=21, variants=variants, round_cap=40)
    np.testing.assert_allclose(exact.loser_fate.sum(axis=1), exact.outcome[:2])
    np.testing.assert_array_equal(mc.loser_fate.sum(axis=1), mc.outcome[:2])
    np.testing.assert_array_equal(mc.loser_fate_sq, mc.loser_fate)
    np.testing.assert_array_equal(mc.fates_sq, mc.fates)
    np.testing.assert_array_equal(mc.fates.sum(axis=1), [n, n])
    for p_mc, p in zip((mc.loser_fate / n).ravel(), exact.loser_fate.ravel(), strict=True):
        assert abs(p_mc - p) <= tol(p, n)
    for p_mc, p in zip((mc.fates / n).ravel(), exact.fates.ravel(), strict=True):
        assert abs(p_mc - p) <= tol(p, n)
    np.testing.assert_array_equal(mc.deaths, mc.fates[:, 1])
    np.testing.assert_array_equal(mc.loser_dead, mc.loser_fate[:, 0])
    assert np.allclose(exact.loser_dead, exact.loser_fate[:, 0])
    pm, se = exact.p_loser_fates()
    assert pm.sum() == pytest.approx(1.0)
    assert (se == 0).all()


def test_aftermath_leaves_the_fight_numbers_alone():
    """The aftermath draws from its own stream: outcome, rounds, hits and standing are
    bit-identical under every policy (same seed), and only the fates move."""
    a, b = LIB["competent"], LIB["competent_brawler"]
    runs = [cm.fight_mc([a, a], [b, b], 20_000, seed=13, variants=v) for v in POLICIES]
    for r in runs[1:]:
        for key in ("outcome", "rounds", "hits", "standing"):
            np.testing.assert_array_equal(getattr(r, key), getattr(runs[0], key))
    assert runs[0].fates[:, 1].sum() == 0  # leave: no one dies
    assert runs[1].fates[:, 3].sum() > 0  # first_aid: some are out
    assert runs[2].fates[:, 1].sum() > 0  # finish: some are dead


# --------------------------------------------------------------- group fights


def test_group_fates_add_up_and_first_aid_reaches_both_sides():
    """N vs M: each side's fates sum to size × trials; a winner's fallen (B9 dying) stay
    on its side, and ``first_aid`` reaches the fallen of both sides: with a check that
    only fails on two or three 1s (B3) the out share of the fallen is 0.972."""
    n = 30_000
    v = Variants(aftermath="first_aid", aid_total=40, aid_difficulty=1)
    res = cm.fight_mc([LIB["competent"]] * 2, [LIB["competent_brawler"]] * 2, n, seed=4, variants=v)
    np.testing.assert_array_equal(res.fates.sum(axis=1), [2 * n, 2 * n])
    assert (res.fates_sq >= res.fates).all()
    assert (res.loser_fate_sq >= res.loser_fate).all()
    fallen = res.fates[:, 2:].sum()
    share = res.fates[:, 3].sum() / fallen
    assert abs(share - 0.972) <= 5 * sqrt(0.972 * 0.028 / fallen) + 1 / fallen
    # the winners' side keeps standing members and some of its own fallen
    w0 = res.outcome[0]
    assert res.loser_fate[0].sum() == pytest.approx(2 * w0)  # the whole losing side fell
    assert res.fates[0, 2:].sum() > 0


def test_group_finish_kills_every_fallen_foe_but_leaves_own_fallen():
    """``finish`` with auto_hit (B-g12) and any damage killing (B-g11): every fallen foe
    of the winners dies within one round, so loser_dead == outcome for both sides; the
    winners' own fallen are left (B-g10: still dying); round-cap fights are left too."""
    n = 20_000
    v = Variants(aftermath="finish", helpless_defense="auto_hit", finish_rounds=2)
    res = cm.fight_mc(
        [LIB["competent"]] * 2, [LIB["competent_brawler"], LIB["competent"]], n, seed=6, variants=v
    )
    np.testing.assert_array_equal(res.loser_dead, res.outcome[:2])
    assert res.loser_fate[:, 1:].sum() == 0
    np.testing.assert_array_equal(res.deaths, res.fates[:, 1])
    assert res.fates[:, 2].sum() > 0  # winners' own dying
    assert res.fates[:, 3].sum() == 0
    pm, _se = res.p_loser_fates()
    assert pm[0] == pytest.approx(1.0)
    # a fight stopped at the cap: nobody finishes anyone
    wall = Combatant(trait=1, combat=0, defense=40)
    capped = cm.fight_mc(
        [wall],
        [wall],
        500,
        seed=1,
        variants=Variants(aftermath="finish", doubles=False),
        round_cap=3,
    )
    assert capped.outcome[2] == 500
    np.testing.assert_array_equal(capped.fates, [[500, 0, 0, 0], [500, 0, 0, 0]])
