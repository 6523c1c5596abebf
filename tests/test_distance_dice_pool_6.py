"""Fights that start apart in ``dice_pool_6`` (RULES.md "Distance, movement and cover":
CT1 "Armas de distância" with C12's cover; gaps CT-g1 movement and its bands, CT-g2 the
cover a ``cover`` plan takes; the plans of ``engines/distance.py``).

The seed gives no movement and no range: "como nos outros conflitos, porém levando em
consideração a cobertura (- 2 dados à parte atacada se não houver; +1 ou +2 caso haja)".
Hand-worked values use the CT-g1 defaults (close band 13 m, medium band 26 m: Vampire:
The Masquerade 20th Anniversary Edition, p. 274, running speed 20 + 3 × Dexterity at
Dexterity 2 and half of it before an action; melee reach 1 m) and success pmfs
enumerated die by die. Monte Carlo vs exact: ``|p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n``
(five standard errors plus one count), fixed seeds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import random
from dataclasses import replace
from functools import cache
from math import sqrt

import numpy as np
import pytest
from combat_pools_reference import fight6
from distance_support import assert_mc_matches_exact, hist_digest

from analysis.combat.archetypes import combatant, combatants
from analysis.workflow.audit.knobs import SETUP_VARIANTS, variant_knobs
from engines.distance import CHARGE, COVER, HOLD, KITE
from engines.errors import InputError
from engines.fight import HIST_FIELDS
from engines.systems.dice_pool_6 import combat as cb
from engines.systems.dice_pool_6.combat import Combatant, Variants, Weapon
from engines.systems.dice_pool_6.combat.rules import C_PLAN, taken_cover_dice, turn_step
from engines.variants import parse_variants

LIB = combatants("dice_pool_6")
PISTOL = Weapon("light_ranged", 2, ranged=True)
SWORD = Weapon("heavy_melee", 2)
NO_TIES = Variants(tie_needs_success=True, order="side0_first")


@cache
def brute_pmf(n: int) -> np.ndarray:
    """C1 (6+) and C-g2 (each pair of 10s: +2) by enumerating all 10^n rolls."""
    out = np.zeros(3 * max(n, 1) + 2)
    for faces in itertools.product(range(1, 11), repeat=max(n, 0)):
        s = sum(f >= 6 for f in faces) + 2 * (sum(f == 10 for f in faces) // 2)
        out[s] += 1
    return out / out.sum()


def p_win(att: int, dodge: int) -> float:
    """C10 with ``tie_needs_success``: the attacker wins with more successes, or as many
    and at least one."""
    a, d = brute_pmf(att), brute_pmf(max(dodge, 0))
    return float(sum(a[i] * d[: i + 1].sum() for i in range(1, a.size)))


def fighter(name="x", att=(2, 0), dodge=(2, 0), stamina=2, **kw) -> Combatant:
    return Combatant(name, att[0], att[1], dodge[0], dodge[1], stamina=stamina, **kw)


#: never wins a contest (no attack dice, ties need a success), never moves (a ranged
#: weapon holds), never falls in three rounds of two-dice attacks (health 13, at most 4
#: damage an attack)
DUMMY = fighter("dummy", att=(0, 0), dodge=(0, 0), stamina=10, weapon=PISTOL)


def expected_hits(a, b, v, cap) -> float:
    return float(cb.duel_exact(a, b, v, round_cap=cap).hits.sum())


# ------------------------------------------------------------------ CT-g1: the bands


def test_ct_g1_bands_and_their_source():
    """CT-g1 defaults: a turn of running covers 26 m (V20 p. 274: 20 + 3 × Dexterity at
    Dexterity 2), a fighter may move half of it, 13 m, and still attack; melee reaches
    1 m. Validation: whole metres, the medium band no shorter than the close band, the
    starting distance 0..200 (CT1)."""
    v = Variants()
    assert (v.distance, v.melee_reach) == (0, 1)
    assert v.medium_band == 20 + 3 * 2 == 26
    assert v.close_band == v.medium_band // 2 == 13
    assert v.cover_taken == "partial"
    assert parse_variants(Variants, ["distance=20"]).distance == 20
    for bad in ("distance=201", "distance=-1", "close_band=0", "medium_band=12", "close_band=ten"):
        with pytest.raises(InputError, match=bad.split("=")[0]):
            parse_variants(Variants, [bad])
    assert parse_variants(Variants, ["close_band=5", "medium_band=5"]).medium_band == 5
    with pytest.raises(InputError, match="distance"):
        cb.duel_exact(LIB["novice"], LIB["novice"], Variants(distance=500))


def test_ct_g1_turn_steps_by_hand():
    """CT-g1: a melee fighter attacks within its reach; within the close band it closes
    and still attacks; from the medium band (13..26 m) closing takes its whole turn, no
    attack; from farther, one such turn of 26 m more. A shooter shoots from where it
    stands (no range in the seed); a kiter first steps the close band back from a melee
    foe within it; ``cover`` spends its first turn taking cover."""
    v = Variants()
    melee = (CHARGE, False, False)
    assert turn_step(*melee, 1, True, v) == (True, False, 1)
    assert turn_step(*melee, 10, True, v) == (True, False, 1)  # close band
    assert turn_step(*melee, 13, True, v) == (True, False, 1)
    assert turn_step(*melee, 14, True, v) == (False, False, 1)  # medium: one turn
    assert turn_step(*melee, 26, True, v) == (False, False, 1)
    assert turn_step(*melee, 30, True, v) == (False, False, 4)  # then close + attack
    assert turn_step(*melee, 40, True, v) == (False, False, 14)  # 40 -> 14 -> 1
    assert turn_step(HOLD, False, False, 40, True, v) == (False, False, 14)  # = charge
    assert turn_step(HOLD, True, False, 150, True, v) == (True, False, 150)
    assert turn_step(CHARGE, True, False, 150, True, v) == (True, False, 150)
    assert turn_step(KITE, True, False, 10, True, v) == (True, False, 23)
    assert turn_step(KITE, True, False, 14, True, v) == (True, False, 14)
    assert turn_step(KITE, True, False, 5, False, v) == (True, False, 5)  # foe shoots
    assert turn_step(COVER, True, False, 20, True, v) == (False, True, 20)
    assert turn_step(COVER, True, True, 20, True, v) == (True, True, 20)


def test_ct_g1_closing_costs_turns_in_whole_fights():
    """CT-g1 in the exact chain: a two-dice brawler against a dummy that never wins.
    Each attack it makes wins with P = 1 - 1/4 (two dice against none, a tie needs a
    success). Engaged or within 13 m it strikes in round 1; from 20 m (medium band) round
    1 goes into closing; from 40 m rounds 1 and 2 (40 -> 14 -> 1)."""
    sword = fighter("s")
    p = p_win(2, 0)
    assert p == pytest.approx(0.75)
    for d, idle in ((0, 0), (10, 0), (13, 0), (20, 1), (26, 1), (30, 1), (40, 2)):
        v = replace(NO_TIES, distance=d)
        for cap in (1, 2, 3):
            assert expected_hits(sword, DUMMY, v, cap) == pytest.approx(
                max(cap - idle, 0) * p, abs=1e-12
            ), (d, cap)
    # the bands are variants: with a close band of 25 m, 20 m costs nothing
    v = replace(NO_TIES, distance=20, close_band=25, medium_band=30)
    assert expected_hits(sword, DUMMY, v, 1) == pytest.approx(p, abs=1e-12)


# ------------------------------------------------------------------ CT1, C12, CT-g2: cover


def test_ct1_cover_plan_by_hand():
    """CT1 / C12: against a shot the defender's dodge gets −2 dice in the open, +1 in
    partial and +2 in full cover. A gunman in the open (dodge 3 dice) with the plan
    ``cover`` spends its first turn taking cover (CT-g2: partial by default, variant
    full); a two-dice shooter firing after that turn meets 3 + 1 dice (4 with full
    cover), and firing before it, 3 − 2 = 1 die."""
    gunman = fighter("g", dodge=(3, 0), stamina=10, weapon=PISTOL, plan="cover")
    shooter = fighter("s", att=(2, 0), weapon=PISTOL)
    assert gunman.cover == "none"
    assert taken_cover_dice(gunman, Variants()) == 1
    assert taken_cover_dice(gunman, Variants(cover_taken="full")) == 2
    # a fighter already in full cover keeps it when it takes partial cover
    assert taken_cover_dice(replace(gunman, cover="full"), Variants()) == 2
    # side 0 (the gunman) acts first: its turn is cover, then the shot at 3 + 1 dice
    assert expected_hits(gunman, shooter, NO_TIES, 1) == pytest.approx(p_win(2, 4), abs=1e-12)
    full = replace(NO_TIES, cover_taken="full")
    assert expected_hits(gunman, shooter, full, 1) == pytest.approx(p_win(2, 5), abs=1e-12)
    # side 0 (the shooter) acts first: the gunman is still in the open
    assert expected_hits(shooter, gunman, NO_TIES, 1) == pytest.approx(p_win(2, 1), abs=1e-12)
    # round 2: the gunman shoots back (2 dice against the shooter's 2 − 2 dice)
    two = expected_hits(shooter, gunman, NO_TIES, 2)
    assert two == pytest.approx(p_win(2, 1) + p_win(2, 4) + p_win(2, 0), abs=1e-12)
    # cover counts only against shots (C12): a swordsman meets the dodge pool alone
    sword = fighter("w", att=(2, 0), weapon=SWORD)
    assert expected_hits(gunman, sword, NO_TIES, 1) == pytest.approx(p_win(2, 3), abs=1e-12)


def test_cover_plan_against_a_shooter_pays_after_one_turn():
    """CT1: a gunman in the open facing a shooter in partial cover (gunman_in_the_open
    against competent_shooter) wins more often when it first takes cover, and more still
    when the cover it finds is full (CT-g2); the distance changes nothing between two
    shooters (no range in the seed)."""
    hold = LIB["gunman_in_the_open"]
    cover = replace(hold, plan="cover")
    b = LIB["competent_shooter"]
    p_hold = cb.duel_exact(hold, b).p_outcome()[0]
    p_cover = cb.duel_exact(cover, b).p_outcome()[0]
    p_full = cb.duel_exact(cover, b, Variants(cover_taken="full")).p_outcome()[0]
    assert p_hold < p_cover < p_full
    far = cb.duel_exact(cover, b, Variants(distance=40)).p_outcome()[0]
    assert far == pytest.approx(p_cover, abs=1e-12)


# ------------------------------------------------------------------ plans


def test_default_plans_and_plan_validation():
    """Plans (engines/distance.py, CT1): a ranged fighter holds, every other charges;
    ``cover`` and ``kite`` need a ranged weapon (cover counts only against shots, C12);
    an unknown plan names the known ones; the data file's styles and archetypes and a
    fighter spec take ``plan``."""
    assert LIB["competent_swordsman"].plan_in_force == "charge"
    assert LIB["competent_shooter"].plan_in_force == "hold"
    assert cb.row(LIB["competent_shooter"])[C_PLAN] == HOLD
    taker = combatant("dice_pool_6", {"archetype": "gunman_in_the_open", "plan": "cover"})
    assert taker.plan == "cover"
    assert cb.row(taker)[C_PLAN] == COVER
    kiter = combatant("dice_pool_6", {"archetype": "competent_rifleman", "plan": "kite"})
    assert cb.row(kiter)[C_PLAN] == KITE
    with pytest.raises(InputError, match="plan 'cover' takes cover, then shoots"):
        combatant("dice_pool_6", {"archetype": "competent_swordsman", "plan": "cover"})
    with pytest.raises(InputError, match="needs a ranged weapon"):
        combatant("dice_pool_6", {"archetype": "competent_brawler", "plan": "kite"})
    with pytest.raises(InputError, match="unknown plan 'flee'; known: charge, hold, kite, cover"):
        cb.row(fighter(plan="flee"))
    with pytest.raises(InputError, match="plan"):
        combatant("dice_pool_6", {"archetype": "competent_swordsman", "plan": "flee"})


def test_kite_steps_back_and_shoots():
    """Plan kite (CT-g1): a kiter steps the close band back whenever a melee foe could
    close and strike it next turn, and shoots in the same turn. From 10 m a kiting
    competent shooter wins more often than a holding one against a competent swordsman,
    and both more often than engaged."""
    sh, sw = LIB["competent_shooter"], LIB["competent_swordsman"]
    kite = replace(sh, plan="kite")
    p = {
        (plan, d): cb.duel_exact(f, sw, Variants(distance=d)).p_outcome()[0]
        for plan, f in (("hold", sh), ("kite", kite))
        for d in (0, 10)
    }
    assert p["hold", 0] == pytest.approx(p["hold", 10], abs=1e-12)  # close band: no cost
    assert p["hold", 10] < p["kite", 10]
    assert p["kite", 0] < p["kite", 10]


# ------------------------------------------------------------------ Monte Carlo vs exact

MATCHUPS = [
    # a shooter holding against a charging swordsman
    ("competent_shooter", "competent", {}),
    # a gunman in the open taking (full) cover against a shooter in partial cover
    (
        "gunman_in_the_open",
        "competent_shooter",
        {"a": {"plan": "cover"}, "v": {"cover_taken": "full"}},
    ),
    # a kiter against a charger, the fight finished, one order a fight
    (
        "novice_rifleman",
        "competent_knife_fighter",
        {"a": {"plan": "kite"}, "v": {"aftermath": "finish", "order": "random_fight"}},
    ),
    # two melee fighters closing on each other, narrower bands
    ("competent_swordsman", "expert_brawler", {"v": {"close_band": 5, "medium_band": 12}}),
    # a cover-taker against a charger, side 0 first
    ("competent_shooter", "master", {"a": {"plan": "cover"}, "v": {"order": "side0_first"}}),
]


@pytest.mark.parametrize("d0", [0, 10, 20, 40])
@pytest.mark.parametrize(("a", "b", "over"), MATCHUPS)
def test_mc_matches_exact_at_distances(a, b, over, d0):
    """CT1, CT-g1, CT-g2: Monte Carlo duels agree with the exact chain cell by cell
    (5 SE + 1/n) at 0, 10, 20 and 40 m."""
    fa = combatant("dice_pool_6", {"archetype": a, **over.get("a", {})})
    fb = combatant("dice_pool_6", {"archetype": b, **over.get("b", {})})
    v = parse_variants(Variants, {**over.get("v", {}), "distance": d0})
    ex = cb.duel_exact(fa, fb, v, round_cap=30)
    assert ex.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    mc = cb.duel_mc(fa, fb, 40_000, seed=17 + d0, variants=v, round_cap=30)
    assert_mc_matches_exact(mc, ex)


def test_p_shooter_wins_rises_with_distance():
    """The issue's check: a competent shooter (holds) against a competent swordsman who
    must close. Within the close band (10 m) the charge costs nothing; from 20 m (medium
    band) round 1 is a free shot, from 40 m two."""
    a, b = LIB["competent_shooter"], LIB["competent"]
    p = [cb.duel_exact(a, b, Variants(distance=d)).p_outcome()[0] for d in (0, 10, 20, 40)]
    assert p[0] == pytest.approx(p[1], abs=1e-12)
    assert p[1] < p[2] < p[3]
    assert p[0] == pytest.approx(0.7083, abs=5e-4)
    assert p[2] == pytest.approx(0.9183, abs=5e-4)
    assert p[3] == pytest.approx(0.9857, abs=5e-4)


@pytest.mark.slow
def test_group_fights_match_the_reference_simulator():
    """Group fights start apart (every fighter on one line, side 0 at 0 m, side 1 at
    d0): the kernel against the rules-first simulator (5 SE of the difference) for a
    kiter and a cover-taker against three chargers at 20 m, and a side-0-only rerun is
    the duel's numbers (the same kernel)."""
    side0 = [
        replace(LIB["competent_shooter"], plan="kite"),
        replace(LIB["gunman_in_the_open"], plan="cover"),
    ]
    side1 = [LIB["competent_swordsman"], LIB["novice_knife_fighter"], LIB["expert_brawler"]]
    n_ref, n_mc = 6_000, 60_000
    rng = random.Random(5)
    ref = [fight6(rng, side0, side1, cap=20, distance=20) for _ in range(n_ref)]
    mc = cb.fight_mc(side0, side1, n_mc, seed=9, round_cap=20, variants=Variants(distance=20))
    for w in range(3):
        p_ref = sum(r["winner"] == w for r in ref) / n_ref
        p_mc = mc.outcome[w] / n_mc
        p = (p_ref * n_ref + p_mc * n_mc) / (n_ref + n_mc)
        assert abs(p_ref - p_mc) <= 5 * sqrt(p * (1 - p) * (1 / n_ref + 1 / n_mc)) + 1 / n_ref
    counts = [len(r["hits"]) for r in ref]
    assert abs(mc.hits.sum() / n_mc - np.mean(counts)) <= 5 * np.std(counts) * sqrt(
        1 / n_ref + 1 / n_mc
    )
    sh, sw = LIB["competent_shooter"], LIB["competent_swordsman"]
    one = cb.fight_mc([sh], [sw], 20_000, seed=5, variants=Variants(distance=40))
    duel = cb.duel_mc(sh, sw, 20_000, seed=5, variants=Variants(distance=40))
    for name in HIST_FIELDS:
        assert np.array_equal(getattr(one, name), getattr(duel, name)), name


# ------------------------------------------------------------------ d0 = 0 is unchanged

#: sha256 (first 16 hex digits) of the histograms of these fights, recorded before
#: distance existed: at the default distance 0 not one count (nor one exact bit) moves.
ENGAGED = {
    ("expert_brawler", "competent_shooter", ()): ("1c0f88b5f55ee0b6", "b5fc959bd03fa4a3"),
    ("master_rifleman", "gunman_in_the_open", ("order=random_fight",)): (
        "07c401421b0bd9ef",
        "0e3883dfa47253ef",
    ),
    ("competent_swordsman", "competent_swordsman", ("aftermath=finish",)): (
        "3de2b71f1f76ae82",
        "223e6f1826b42b3c",
    ),
    ("novice_knife_fighter", "street_thug", ("order=side0_first", "min_damage=true")): (
        "d1369ac1de5da814",
        "390dc4c4f043f199",
    ),
}
GROUPS = {
    (("novice",) * 3, ("expert_brawler",), ("aftermath=finish",)): "5e957c37a9187cf2",
    (
        ("expert_knife_fighter", "novice_shooter"),
        ("competent_swordsman", "competent_brawler", "untrained_rifleman"),
        (),
    ): "e373836eaa73091b",
    (
        ("competent_shooter",),
        ("competent_swordsman",) * 2,
        ("targeting=first",),
    ): "b2c9534314467240",
}


@pytest.mark.parametrize(("key", "digests"), ENGAGED.items())
def test_engaged_duels_are_unchanged(key, digests):
    """d0 = 0 (the default) gives byte-identical Monte Carlo histograms and exact
    probabilities to the fights without distance."""
    a, b, given = key
    for v in (
        parse_variants(Variants, list(given)),
        parse_variants(Variants, [*given, "distance=0"]),
    ):
        assert hist_digest(cb.duel_mc(LIB[a], LIB[b], 20_000, seed=1, variants=v)) == digests[0]
        assert hist_digest(cb.duel_exact(LIB[a], LIB[b], v)) == digests[1]


@pytest.mark.parametrize(("key", "digest"), GROUPS.items())
def test_engaged_group_fights_are_unchanged(key, digest):
    s0, s1, given = key
    st = cb.fight_mc(
        [LIB[x] for x in s0],
        [LIB[x] for x in s1],
        20_000,
        seed=7,
        variants=parse_variants(Variants, list(given)),
    )
    assert hist_digest(st) == digest


def test_campaign_attrition_is_unchanged():
    end = cb.duel_mc_end(LIB["competent"], LIB["novice_shooter"], 2, 20_000, seed=3)
    assert hashlib.sha256(end.tobytes()).hexdigest()[:16] == "de97de7c98bb53dc"


# ------------------------------------------------------------------ the audit's cures


def test_distance_is_the_fights_setup_not_a_cure():
    """The cure search never moves ``distance`` (where the fight starts is part of the
    question); the reach and the cover taken are rule edits it may search (the bands,
    whole metres without a list of choices, are not searched)."""
    assert "distance" in SETUP_VARIANTS
    v = Variants()
    names = {k.name for k in variant_knobs(v, dataclasses.fields(v))}
    assert "variant.distance" not in names
    assert {"variant.melee_reach", "variant.cover_taken"} <= names
