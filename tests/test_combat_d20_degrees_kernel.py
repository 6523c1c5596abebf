"""The d20_degrees combat kernel's properties: the same numbers on one and two threads,
``duel_mc`` as ``fight_mc`` one a side, invariants and closed forms of N-vs-M fights (rules
E8–E16, RULES.md section E). Tolerances: :mod:`d20_support`."""

from __future__ import annotations

import dataclasses

import numba
import numpy as np
import pytest
from d20_support import N, assert_mc_matches, fighter, library

from engines.systems.d20_degrees.combat import (
    Variants,
    duel_mc,
    fight_mc,
)

# ------------------------------------------------------------------------------------
# Kernel properties: threads, invariants, N-vs-M
# ------------------------------------------------------------------------------------


def _arrays(s):
    return [
        s.outcome,
        s.rounds,
        s.loser_dead,
        s.standing,
        s.deaths,
        s.hits,
        s.loser_fate,
        s.loser_fate_sq,
        s.fates,
        s.fates_sq,
    ]


@pytest.mark.parametrize("stun", ["first_turn", "surprise_attack"])
def test_one_thread_equals_two_threads(stun):
    """Same seed, 1 or 2 numba threads: bit-identical (work split by trials only)."""
    lib = library()
    # with an E16 feinter and the E-g16 surprise attack, so the vulnerable paths run too
    side0 = [lib["competent"], dataclasses.replace(lib["novice_shooter"], feint=True, deception=4)]
    side1 = [lib["expert_brawler"]]
    v = Variants(
        aftermath="finish",
        finish_rounds=1,
        target_rule="random",
        surprise="side1",
        surprise_stun=stun,
    )  # E-g19
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = fight_mc(side0, side1, 100_000, 5, v)
        numba.set_num_threads(2)
        two = fight_mc(side0, side1, 100_000, 5, v)
    finally:
        numba.set_num_threads(before)
    for x, y in zip(_arrays(one), _arrays(two), strict=True):
        assert np.array_equal(x, y)


def test_duel_mc_is_fight_mc_one_a_side():
    lib = library()
    x = duel_mc(lib["expert"], lib["master"], 40_000, 9)
    y = fight_mc([lib["expert"]], [lib["master"]], 40_000, 9)
    for p, q in zip(_arrays(x), _arrays(y), strict=True):
        assert np.array_equal(p, q)


@pytest.mark.parametrize(
    "v",
    [
        Variants(),
        Variants(aftermath="first_aid"),
        Variants(aftermath="finish", finish_rounds=3, target_rule="random"),
    ],
)
def test_invariants_n_vs_m(v):
    """Counts add up; standing never rises nor goes negative; deaths ≤ combatants;
    fates (Lethality outcomes) sum to the side sizes."""
    lib = library()
    side0 = [lib["novice"], lib["novice_brawler"], lib["novice_shooter"]]
    side1 = [lib["expert_armoured"], lib["untrained"]]
    n = 50_000
    s = fight_mc(side0, side1, n, 21, v, round_cap=15)
    assert s.outcome.sum() == n
    assert s.rounds.sum() == n
    assert (s.rounds.sum(axis=0) == s.outcome).all()
    assert (s.loser_dead <= s.outcome[:2]).all()
    assert (s.standing[0] == [3 * n, 2 * n]).all()
    assert (np.diff(s.standing, axis=0) <= 0).all()
    assert (s.standing >= 0).all()
    assert (s.deaths <= [3 * n, 2 * n]).all()
    assert s.rounds[0].sum() == 0
    assert (s.fates.sum(axis=1) == [3 * n, 2 * n]).all()
    assert (s.deaths == s.fates[:, 1]).all()
    # the losers' fates: row w holds side 1 − w's fallen in fights w won, all of them
    assert s.loser_fate[0].sum() == 2 * s.outcome[0]
    assert s.loser_fate[1].sum() == 3 * s.outcome[1]
    assert (s.loser_fate_sq >= s.loser_fate).all()
    assert (s.fates[:, 2] == 0).all()  # E14 always resolves: nobody stays dying
    if v.aftermath != "finish":
        # E13: only a hit on a defenceless target makes it dying, and before the decision
        # attackers pick able foes (E-g8): nobody dies without finishing
        assert s.deaths.sum() == 0
    else:
        assert s.deaths[1] > 0


@pytest.mark.parametrize("rule", ["focus", "random"])
def test_two_vs_one_closed_form(rule):
    """N-vs-M flow (E10 order, E-g8 targeting, E13 the down do not act). Every hit drops
    its target; A1 and B hit unless they roll a natural 1 (h = 19/20, m = 1/20), A2 hits
    on d20 ≥ 10 (h2 = 11/20). Order A1, B, A2. With A1 down, A2 alone:
    P01 = m h2 / (1 − m (1 − h2)); with A2 down, A1 alone: P10 = h / (1 − m²).
    P11 (1 − m² (1 − h2)) = h + m h W + m² h2, where W = h2 + (1 − h2) P01 when B drops
    A1 (focus), and the mean of that and P10 when B picks at random."""
    one_shot = {"damage": 40, "toughness": 0, "parry": 0, "hit_points": 1}
    a1 = fighter(**one_shot, attack=40, agility=60)
    a2 = fighter(**one_shot, attack=0, agility=-60)
    b = fighter(**one_shot, attack=40, agility=0)
    h, m, h2 = 19 / 20, 1 / 20, 11 / 20
    p01 = m * h2 / (1 - m * (1 - h2))
    p10 = h / (1 - m * m)
    w = h2 + (1 - h2) * p01
    if rule == "random":
        w = 0.5 * w + 0.5 * p10
    p11 = (h + m * h * w + m * m * h2) / (1 - m * m * (1 - h2))
    s = fight_mc([a1, a2], [b], N, 17, Variants(target_rule=rule))
    assert_mc_matches(s.outcome[0] / s.n, p11, N)
    # after round 1 B still stands unless A1 hit, or A2 (still up) hit after A1 missed
    a2_up = h * (0.5 if rule == "random" else 1.0) + m
    down_b = h + m * a2_up * h2
    assert_mc_matches(s.standing[1, 1] / s.n, 1 - down_b, N)


def test_outnumbered_side_loses_more():
    """Two competent fighters beat one (sanity of N-vs-M targeting, E-g8)."""
    lib = library()
    c = lib["competent"]
    s = fight_mc([c, c], [c], 40_000, 4)
    assert s.outcome[0] > 0.8 * s.n
