"""Fights that start apart in ``middle_3d10`` (RULES.md "Distance, movement and cover":
BT1 "Cada turno: mover + 1 ação"; gaps BT-g1 the move, BT-g2 ranges and their penalty;
the plans of ``engines/distance.py``).

Hand-worked values from the seed's turn (a move, then one action), the named move of
BT-g1 (8 m, the d20 seed's) and the published range increments of BT-g2 (d20 Modern
SRD: Glock 17 30 ft, M16A2 80 ft, M60 100 ft; −2 per full increment, ten increments at
most). Monte Carlo vs exact: ``|p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n`` (five standard
errors plus one count), fixed seeds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import numpy as np
import pytest
from distance_support import assert_mc_matches_exact, hist_digest

from analysis.combat.archetypes import combatant, combatants, library
from analysis.workflow.audit.knobs import SETUP_VARIANTS, variant_knobs
from engines.distance import CHARGE, HOLD, KITE, PLANS
from engines.errors import InputError
from engines.fight import HIST_FIELDS
from engines.systems.middle_3d10 import combat as cb
from engines.systems.middle_3d10.combat import Combatant, Variants
from engines.systems.middle_3d10.combat.rules import (
    PLAN,
    bands,
    range_penalty,
    threat,
    turn_move,
)
from engines.variants import parse_variants

LIB = combatants("middle_3d10")


def p_middle_at_least(k: int) -> float:
    """P(C >= k) of 3d10 by enumeration (B1)."""
    n = sum(
        1
        for a in range(1, 11)
        for b in range(1, 11)
        for c in range(1, 11)
        if sorted((a, b, c))[1] >= k
    )
    return n / 1000


# A shooter that stands (hold: everyone is in its range), never hits (characteristic and
# skill 0, doubles off: C + 0 never reaches a Defense of 11 or more) and never drops in a
# few rounds (Vigor 20: Resistance 60); Defense 15, reflex 0 (it acts last under the
# variant initiative = reflex).
DUMMY = Combatant(
    name="dummy", trait=0, combat=0, vigor=20, defense=15, dice="mM", ranged=True, reflex=0
)
QUIET = Variants(doubles=False, initiative="reflex")


# ------------------------------------------------------------------ BT1, BT-g1: the move


def test_bt1_bt_g1_turns_to_cross_20_m():
    """BT1: a turn is a move, then one action; BT-g1: the move is 8 m (the d20 seed's,
    ET1). A charger (melee reach 1 m) 20 m from its foe: 20 → 12 → 4 in its first two
    turns (no attack: the foe is out of reach), 4 → 1 in the third, and attacks in it."""
    v = Variants()
    assert v.move == 8
    assert v.melee_reach == 1
    sword = LIB["competent_swordsman"]
    first, far = bands(sword, v)
    assert (first, far) == (1, 1)
    steps = [20]
    for _ in range(3):
        steps.append(turn_move(CHARGE, v.move, first, far, -1, steps[-1]))
    assert steps == [20, 12, 4, 1]
    assert turn_move(CHARGE, v.move, first, far, -1, 1) == 1  # engaged: stays
    # In whole fights against the dummy: the swordsman's expected hits by round cap.
    # Characteristic 4 + Combat 5 against Defense 15 (the dummy has acted by then: B6):
    # C >= 6 (B1, B7), no drama (B4).
    p = p_middle_at_least(6)
    fa = replace(sword, drama=0)
    for cap, swings in ((1, 0), (2, 0), (3, 1), (4, 2)):
        ex = cb.duel_exact(fa, DUMMY, replace(QUIET, distance=20), round_cap=cap)
        assert float(ex.hits.sum()) == pytest.approx(swings * p, abs=1e-12), cap
    # a longer move (variant) closes 20 m in two turns (20 → 8 → 1 with 12 m)
    assert turn_move(CHARGE, 12, 1, 1, -1, turn_move(CHARGE, 12, 1, 1, -1, 20)) == 1


# ------------------------------------------------------------------ BT-g2: ranges


def test_bt_g2_range_increments_from_the_published_table():
    """BT-g2 defaults: the d20 Modern SRD's range increments (Glock 17 30 ft, M16A2 80 ft,
    M60 100 ft, feet × 0.3048 to the nearest metre), −2 per full increment, ten
    increments at most; the data file gives every ranged category its increment."""
    lib = library("middle_3d10")
    assert lib["competent_shooter"].range == round(30 * 0.3048) == 9
    over = {"archetype": "competent_shooter", "weapon": "rifle"}
    assert combatant("middle_3d10", over).range == round(80 * 0.3048) == 24
    over = {"archetype": "competent_shooter", "weapon": "machine_gun"}
    assert combatant("middle_3d10", over).range == round(100 * 0.3048) == 30
    v = Variants()
    assert v.range_penalty == 2
    assert v.range_increments == 10
    pistol = LIB["competent_shooter"]
    assert bands(pistol, v) == (8, 90)
    # "any attack at less than this distance is not penalized ... each full range
    # increment causes a cumulative -2 penalty"
    assert [range_penalty(pistol, v, d) for d in (0, 8, 9, 17, 18, 20, 40, 90)] == [
        0,
        0,
        2,
        2,
        4,
        4,
        8,
        20,
    ]
    assert range_penalty(LIB["competent"], v, 40) == 0  # melee: no range


def test_bt_g2_range_penalty_in_one_shot():
    """The competent shooter (characteristic 4 + Combat 5 = 9) at a flat-footed competent
    (Defense 11 − 3 = 8, B6, B7): engaged it misses only on two 1s (B3):
    1 − (3 · 0.01 · 0.9 + 0.001) = 0.972; from 20 m (−4, BT-g2) it needs C ≥ 3:
    P(C ≥ 3) = 1 − (3 · 0.2² · 0.8 + 0.2³) = 0.896."""
    a, b = LIB["competent_shooter"], LIB["competent"]
    for pen, p in ((0, 0.972), (4, 0.896)):
        t = cb.attack_table(a, b, Variants(), 80, far_pen=pen)
        assert 1.0 - t[0, 0, 1, 0, 0, 0] == pytest.approx(p, abs=1e-12)
    assert p_middle_at_least(3) == pytest.approx(0.896)
    # In a fight: the shooter acts first (reflex 4 against 0) and meets the dummy
    # flat-footed (Defense 15 − 3 = 12, B6): engaged C + 9 >= 12, C >= 3; from 20 m
    # (−4) C >= 7; from 40 m (−8) C >= 11: never (doubles off).
    a = replace(a, drama=0, defense=11)  # above the dummy's best C + 0
    for d0, need in ((0, 3), (20, 7), (40, 11)):
        ex = cb.duel_exact(a, DUMMY, replace(QUIET, distance=d0), round_cap=1)
        assert float(ex.hits.sum()) == pytest.approx(p_middle_at_least(need), abs=1e-12)


# ------------------------------------------------------------------ plans


def test_default_plans_and_plan_validation():
    """A shooter holds, a melee fighter charges (engines.distance.default_plan); `kite`
    needs a ranged weapon; `cover` is refused: the seed has no cover rule."""
    assert LIB["competent_shooter"].plan_in_force == "hold"
    assert LIB["competent"].plan_in_force == "charge"
    assert LIB["competent_shooter"].row()[PLAN] == PLANS.index("hold") == HOLD
    kiter = combatant("middle_3d10", {"archetype": "competent_shooter", "plan": "kite"})
    assert kiter.row()[PLAN] == KITE
    with pytest.raises(InputError, match="no cover rule"):
        Combatant(name="x", ranged=True, dice="mM", plan="cover")
    with pytest.raises(InputError, match="needs a ranged weapon"):
        Combatant(name="x", plan="kite")
    with pytest.raises(InputError, match="unknown plan"):
        Combatant(name="x", plan="flank")
    with pytest.raises(InputError, match="no cover rule"):
        combatant("middle_3d10", {"archetype": "competent_shooter", "plan": "cover"})


def test_distance_variant_is_validated():
    """BT1: the starting distance is whole metres 0..200; BT-g1 the move 1..50 m."""
    assert parse_variants(Variants, ["distance=20"]).distance == 20
    for bad in ({"distance": -1}, {"distance": 201}, {"move": 0}, {"range_increments": 0}):
        with pytest.raises(InputError):
            replace(Variants(), **bad).check()


def test_kite_keeps_out_of_reach():
    """A kiter steps a whole move away whenever the charger could strike it on its next
    turn (reach 1 + move 8 = 9 m), then shoots (BT1: the move does not cost the action).
    With equal moves the charger never reaches it: the kiter is never struck."""
    v = Variants()
    kiter = combatant("middle_3d10", {"archetype": "competent_shooter", "plan": "kite"})
    first, far = bands(kiter, v)
    assert threat(LIB["competent"], v) == 9
    assert turn_move(KITE, 8, first, far, 9, 0) == 8  # engaged: away, then a shot
    assert turn_move(KITE, 8, first, far, 9, 9) == 17  # in the charger's threat: away
    assert turn_move(KITE, 8, first, far, 9, 20) == 20  # safe and in range: stands
    assert turn_move(KITE, 8, first, far, 9, 100) == 92  # closes toward range
    ex = cb.duel_exact(kiter, LIB["competent"], Variants(distance=10), round_cap=30)
    assert ex.p_outcome()[1] == 0.0
    st = cb.fight_mc(
        [kiter], [LIB["competent"]] * 2, 2000, seed=3, variants=Variants(distance=10), round_cap=30
    )
    assert st.outcome[1] == 0


# ------------------------------------------------------------------ Monte Carlo vs exact

MATCHUPS = [
    # a pistol holding against a charging baton
    ("competent_shooter", "competent", {}),
    # the same, sides swapped (side 1 shoots)
    ("expert", "novice_shooter", {}),
    # a kiter against a charger (never caught once apart; most fights reach the cap)
    ("competent_shooter", "expert_armoured", {"a": {"plan": "kite"}}),
    # rifle against pistol, both holding; drama spent before rolling (B-g7)
    (
        "novice_shooter",
        "competent_shooter",
        {"a": {"weapon": "rifle"}, "v": {"drama_timing": "before"}},
    ),
    # a shooter who charges into its first band, against a brawler; a longer move
    ("expert_shooter", "expert_brawler", {"a": {"plan": "charge"}, "v": {"move": 5}}),
]


@pytest.mark.parametrize("d0", [0, 10, 20, 40])
@pytest.mark.parametrize(("a", "b", "over"), MATCHUPS)
def test_mc_matches_exact_at_distances(a, b, over, d0):
    """BT1, BT-g1, BT-g2: Monte Carlo duels agree with the exact chain cell by cell
    (5 SE + 1/n) at 0, 10, 20 and 40 m."""
    fa = combatant("middle_3d10", {"archetype": a, **over.get("a", {})})
    fb = combatant("middle_3d10", {"archetype": b, **over.get("b", {})})
    v = parse_variants(Variants, {**over.get("v", {}), "distance": d0})
    ex = cb.duel_exact(fa, fb, v, round_cap=30)
    assert ex.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    mc = cb.duel_mc(fa, fb, 40_000, seed=17 + d0, variants=v, round_cap=30)
    assert_mc_matches_exact(mc, ex)


def test_p_shooter_wins_rises_with_distance():
    """The issue's check: a competent shooter (holds) against a competent charger wins
    more often the farther the fight starts — every turn the charger spends closing is a
    free shot, even at −2 a range increment."""
    a, b = LIB["competent_shooter"], LIB["competent"]
    p = [cb.duel_exact(a, b, Variants(distance=d)).p_outcome()[0] for d in (0, 10, 20, 40)]
    assert p[0] < p[1] < p[2] < p[3]
    assert p[0] == pytest.approx(0.5549, abs=5e-4)
    assert p[2] > 0.99


def test_group_fights_start_apart():
    """Group fights: every fighter on one line (side 0 at 0 m, side 1 at d0), each
    attacking only foes in its reach or range. Two competent swordsmen charging one
    competent shooter: the shooter's side wins more often from 20 m than engaged, and a
    one-on-one group fight is the duel's numbers (the same kernel)."""
    sh, sw = LIB["competent_shooter"], LIB["competent_swordsman"]
    n = 20_000
    near = cb.fight_mc([sh], [sw, sw], n, seed=5).p_outcome()[0]
    far = cb.fight_mc([sh], [sw, sw], n, seed=5, variants=Variants(distance=20))
    se = np.sqrt(near * (1 - near) / n + far.p_outcome()[0] * (1 - far.p_outcome()[0]) / n)
    assert far.p_outcome()[0] - near > 5 * se
    one = cb.fight_mc([sh], [sw], n, seed=5, variants=Variants(distance=40))
    duel = cb.duel_mc(sh, sw, n, seed=5, variants=Variants(distance=40))
    for name in HIST_FIELDS:
        assert np.array_equal(getattr(one, name), getattr(duel, name)), name


# ------------------------------------------------------------------ d0 = 0 is unchanged

#: sha256 (first 16 hex digits) of the Monte Carlo histograms of these fights, recorded
#: before distance existed: at the default distance 0 not one count may move. The bear's
#: fights have a surprise round (B6): recorded after its decisions moved from round 0 to
#: round 1 of ``rounds`` (round 0 is the start, as in ``standing``); before, d9f7… /
#: 993a…, and every other histogram of them is the same.
ENGAGED = {
    ("competent_shooter", "competent"): "3d2843d8638da53f",
    ("bear", "gangster"): "e443693eacae45f6",
    ("expert_brawler", "competent_swordsman"): "ee6ba62476a35179",
    ("novice_shooter", "master_armoured"): "36a58d8654cb6531",
}


@pytest.mark.parametrize(("pair", "digest"), ENGAGED.items())
def test_engaged_fights_are_unchanged(pair, digest):
    """d0 = 0 (the default) gives byte-identical Monte Carlo histograms to the fights
    without distance, and the exact chain the same probabilities as distance=0 set."""
    a, b = LIB[pair[0]], LIB[pair[1]]
    assert hist_digest(cb.duel_mc(a, b, 20_000, seed=1)) == digest
    assert hist_digest(cb.duel_mc(a, b, 20_000, seed=1, variants=Variants(distance=0))) == digest
    ex, ex0 = cb.duel_exact(a, b), cb.duel_exact(a, b, Variants(distance=0))
    for name in HIST_FIELDS:
        assert np.array_equal(getattr(ex, name), getattr(ex0, name)), name


def test_group_fights_engaged_are_unchanged():
    """A bear on two gangsters and a shooter (random targets), and two novices on a
    swordsman, engaged: the histograms recorded before distance existed."""
    x, y, z = LIB["bear"], LIB["gangster"], LIB["competent_shooter"]
    st = cb.fight_mc([x], [y, y, z], 20_000, seed=7, variants=Variants(targeting="random"))
    assert hist_digest(st) == "8a5d74b1ca4b1126"
    nv, sw = LIB["novice"], LIB["competent_swordsman"]
    assert hist_digest(cb.fight_mc([nv, nv], [sw], 20_000, seed=3)) == "18db4d5ed48d72de"


# ------------------------------------------------------------------ the audit's cures


def test_distance_is_the_fights_setup_not_a_cure():
    """The cure search never moves ``distance``; the BT-g gaps are rule edits it may
    search."""
    assert "distance" in SETUP_VARIANTS
    v = Variants()
    names = {k.name for k in variant_knobs(v, dataclasses.fields(v))}
    assert "variant.distance" not in names
    assert {"variant.range_penalty", "variant.melee_reach"} <= names
