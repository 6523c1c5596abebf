"""Fights that start apart in ``dice_pool_7`` (RULES.md "Distance, movement and cover":
AT1 Deslocamento, AT2 armour's mobility, AT3 ranges; gaps AT-g1 range bands, AT-g2 melee
reach; the plans of ``engines/distance.py``).

Hand-worked values from the seed's numbers (Deslocamento = FOR + DES + 5 m, armour −1 /
−2 / −3 m) and the published range table of the game it derives from (World of Darkness
Rulebook, 2004, p. 170: light pistol 20/40/80 yd, rifle 200/400/800 yd, −2 / −4 dice at
medium / long range). Monte Carlo vs exact: ``|p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n``
(five standard errors plus one count), fixed seeds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import numpy as np
import pytest
from distance_support import assert_mc_matches_exact, hist_digest

from analysis.combat.archetypes import combatant, combatants, gear
from analysis.workflow.audit.knobs import SETUP_VARIANTS, variant_knobs
from engines.distance import CHARGE, HOLD, KITE, MAX_DISTANCE, PLANS, default_plan
from engines.errors import InputError
from engines.fight import HIST_FIELDS
from engines.systems.dice_pool_7 import combat as cb
from engines.systems.dice_pool_7.combat import Armour, Combatant, Variants, Weapon
from engines.systems.dice_pool_7.combat.rules import C_PLAN, band_of, bands, threat, turn_moves
from engines.variants import parse_variants

LIB = combatants("dice_pool_7")
SWORD = Weapon("light_melee", 1, initiative=-1)
PISTOL = Weapon("light_ranged", 1, initiative=-1, damage_type="ballistic", ranged=True)
RIFLE = Weapon(
    "heavy_ranged",
    2,
    initiative=-1,
    defense=-1,
    damage_type="ballistic",
    ranged=True,
    range_class="long",
)
HEAVY_ARCHAIC = Armour("heavy_archaic", lethal=4, ballistic=2, move=-3)
NO_CHANCE = Variants(chance_die=False)


def fighter(name="x", FOR=3, DES=3, SAB=3, CON=3, DET=2, AUT=2, **kw) -> Combatant:
    return Combatant(name, FOR=FOR, DES=DES, SAB=SAB, CON=CON, DET=DET, AUT=AUT, **kw)


def die_pmf(length: int = 40) -> np.ndarray:
    """One d10 with 10-again: P(S=0)=0.6; P(S=k)=0.3[k=1] + 0.1 P(S=k-1) for k >= 1."""
    p = np.zeros(length)
    p[0] = 0.6
    for k in range(1, length):
        p[k] = (0.3 if k == 1 else 0.0) + 0.1 * p[k - 1]
    return p


def p_hit(n: int) -> float:
    """P(at least one success) of ``n`` dice (A1); 0 for n <= 0 (chance die off)."""
    return 0.0 if n <= 0 else 1.0 - 0.6**n


def expected_hits(a, b, v, cap) -> float:
    return float(cb.duel_exact(a, b, v, round_cap=cap).hits.sum())


# A shooter who never hits (pool <= 0 at any band, chance die off), stands where it is
# (hold: the charger is always in its range) and never drops in three rounds.
DUMMY = fighter("dummy", FOR=1, DES=1, SAB=1, CON=10, AUT=1, weapon=PISTOL)


# ------------------------------------------------------------------ AT1, AT2: Deslocamento


def test_at1_at2_deslocamento_of_the_library():
    """AT1: Deslocamento = FOR + DES + 5 m; AT2: heavy modern −1, medium archaic −2, heavy
    archaic −3 (the seed's "a custo de mobilidade")."""
    assert LIB["competent_swordsman"].move == 3 + 3 + 5  # 11 m
    assert LIB["competent_armoured"].move == 3 + 3 + 5 - 2  # medium archaic: 9 m
    assert LIB["competent_knight"].move == 3 + 3 + 5 - 3  # heavy archaic: 8 m
    assert LIB["soldier"].move == 3 + 3 + 5 - 1  # heavy modern: 10 m
    assert LIB["novice_knight"].move == 2 + 2 + 5 - 3  # 6 m
    assert LIB["master"].move == 5 + 5 + 5  # 15 m
    assert fighter(FOR=0, DES=0, armour=Armour("x", move=-9)).move == 0  # never below 0


def test_at1_at2_turns_to_cross_20_m_in_heavy_archaic_armour():
    """AT1, AT2, AT-g2: a competent charger crosses 20 m to engage (reach 1 m: 19 m to
    cover). Unarmoured, Deslocamento 11 m: two moves (20 → 9 → 1), the whole first turn,
    then two attacks in turn 2. In heavy archaic armour, 8 m: three moves (20 → 12 → 4,
    then 4 → 1), so turn 2 has one move and one attack."""
    free = fighter("free", weapon=SWORD)
    plate = replace(free, name="plate", armour=HEAVY_ARCHAIC)
    assert turn_moves(CHARGE, free.move, 1, 1, -1, 20) == (2, 1)
    assert turn_moves(CHARGE, free.move, 1, 1, -1, 1) == (0, 1)
    assert turn_moves(CHARGE, plate.move, 1, 1, -1, 20) == (2, 4)
    assert turn_moves(CHARGE, plate.move, 1, 1, -1, 4) == (1, 1)
    # The same in whole fights against a dummy that stands and never hits: expected hits
    # per round from the exact chain. Pool: FOR 3 + sword 1 − Defense 1 = 3 dice.
    v = replace(NO_CHANCE, distance=20)
    p = p_hit(3)
    assert expected_hits(free, DUMMY, v, cap=1) == 0.0
    assert expected_hits(plate, DUMMY, v, cap=1) == 0.0
    assert expected_hits(free, DUMMY, v, cap=2) == pytest.approx(2 * p, abs=1e-9)
    assert expected_hits(plate, DUMMY, v, cap=2) == pytest.approx(1 * p, abs=1e-9)
    assert expected_hits(free, DUMMY, v, cap=3) == pytest.approx(4 * p, abs=1e-9)
    assert expected_hits(plate, DUMMY, v, cap=3) == pytest.approx(3 * p, abs=1e-9)
    # engaged (d0 = 0) the armour costs nothing: two attacks from the first turn
    assert expected_hits(plate, DUMMY, NO_CHANCE, cap=1) == pytest.approx(2 * p, abs=1e-9)


# ------------------------------------------------------------------ AT3, AT-g1, AT-g2


def test_at3_at_g1_range_bands_from_the_published_table():
    """AT-g1 defaults: World of Darkness Rulebook (2004) p. 170 — light pistol 20/40/80
    yards (A11 light ranged, "Alcance Curto"), rifle 200/400/800 yards (heavy ranged,
    "Alcance Longo"), in metres (× 0.9144, to the nearest metre); −2 dice at medium, −4
    at long, no shot beyond. AT-g2: melee reaches 1 m."""
    v = Variants()
    assert v.range_short == round(20 * 0.9144) == 18
    assert v.range_long == round(200 * 0.9144) == 183
    assert v.range_penalty == 2
    assert bands(fighter(weapon=PISTOL), v) == (18, 72)
    assert bands(fighter(weapon=RIFLE), v) == (183, 732)
    assert bands(fighter(weapon=SWORD), v) == (1, 1)
    assert [band_of(d, 18) for d in (0, 18, 19, 36, 37, 72)] == [0, 0, 1, 1, 2, 2]
    # the data file gives every ranged weapon its class and cites the table (AT3, AT-g1)
    rows = {r["name"]: r for r in gear("dice_pool_7") if r["kind"] == "weapon"}
    assert "range=short" in rows["light_ranged"]["stats"]
    assert "range=long" in rows["heavy_ranged"]["stats"]
    for name in ("thrown", "light_ranged", "submachine_gun", "heavy_ranged", "assault_rifle"):
        assert "p. 170" in rows[name]["note"]
        assert {"AT3", "AT-g1"} <= set(rows[name]["rules"].split(", "))
    assert LIB["competent_shooter"].weapon.range_class == "short"
    assert LIB["soldier"].weapon.range_class == "long"


def test_at3_range_penalty_in_whole_fights():
    """AT3 / AT-g1: a competent shooter (DES 3 + Armas de Fogo 2 + pistol 1 = 6 dice)
    fires twice in round 1 (it acts first) at a target of Defense 1: 5 dice at short
    range, 3 at medium (−2), 1 at long (−4). Beyond long range (72 m) it holds by closing
    one move to 72 m, then fires once at long range. A rifle's short band reaches 183 m."""
    shooter = fighter("s", DES=3, AUT=5, weapon=PISTOL, specialized=True)
    target = fighter("t", FOR=1, DES=1, SAB=1, CON=10, AUT=1, weapon=SWORD)
    for d, expected in ((10, 2 * p_hit(5)), (30, 2 * p_hit(3)), (60, 2 * p_hit(1)), (80, p_hit(1))):
        got = expected_hits(shooter, target, replace(NO_CHANCE, distance=d), cap=1)
        assert got == pytest.approx(expected, abs=1e-9), d
    rifle = replace(shooter, weapon=RIFLE)  # DES 3 + 2 + 2 = 7 dice − Defense 1
    got = expected_hits(rifle, target, replace(NO_CHANCE, distance=150), cap=1)
    assert got == pytest.approx(2 * p_hit(6), abs=1e-9)
    # the penalty is a situational modifier inside the A2 cap of +/-5 with the weapon's:
    # rifle 2 + masterful 2 + long burst 3 = 7 → 5; at medium 7 − 2 = 5, nothing lost
    # (a long class of 50 m here: medium range is 51..100 m)
    auto = Weapon(
        "assault_rifle",
        2,
        initiative=-1,
        defense=-1,
        damage_type="ballistic",
        ranged=True,
        automatic=True,
        range_class="long",
    )
    stacked = replace(shooter, weapon=auto, quality=2, burst="long")
    near = expected_hits(stacked, target, replace(NO_CHANCE, distance=40, range_long=50), cap=1)
    medium = expected_hits(stacked, target, replace(NO_CHANCE, distance=80, range_long=50), cap=1)
    assert near == pytest.approx(medium, abs=1e-12) == pytest.approx(2 * p_hit(3 + 2 + 5 - 1))
    # AT-g2: with a reach of 3 m a charger 4 m away closes once and still strikes once
    sword = fighter("a", AUT=5, weapon=SWORD)
    v = replace(NO_CHANCE, distance=4, melee_reach=3)
    assert expected_hits(sword, DUMMY, v, cap=1) == pytest.approx(p_hit(3), abs=1e-9)


# ------------------------------------------------------------------ plans


def test_default_plans_and_plan_validation():
    """Plans (engines/distance.py): a ranged fighter holds, every other charges; cover
    is refused (the seed has no cover rule: A6's actions are attack, move, dodge, focus,
    a check); kite needs a ranged weapon; an unknown plan names the known ones."""
    assert PLANS == ("charge", "hold", "kite", "cover")
    assert default_plan(True) == "hold"
    assert default_plan(False) == "charge"
    assert LIB["competent_swordsman"].plan_in_force == "charge"
    assert LIB["competent_shooter"].plan_in_force == "hold"
    assert cb.row(LIB["competent_shooter"])[C_PLAN] == HOLD
    kiter = combatant("dice_pool_7", {"archetype": "competent_shooter", "plan": "kite"})
    assert kiter.plan == "kite"
    assert cb.row(kiter)[C_PLAN] == KITE
    with pytest.raises(InputError, match="no cover rule"):
        combatant("dice_pool_7", {"archetype": "competent_shooter", "plan": "cover"})
    with pytest.raises(InputError, match="needs a ranged weapon"):
        combatant("dice_pool_7", {"archetype": "competent_swordsman", "plan": "kite"})
    with pytest.raises(InputError, match="unknown plan 'flee'; known: charge, hold, kite"):
        cb.row(fighter(plan="flee"))
    with pytest.raises(InputError, match="plan"):
        combatant("dice_pool_7", {"archetype": "competent_swordsman", "plan": "flee"})


def test_distance_variant_is_validated():
    """AT1: the starting distance is whole metres 0..200 (``--variant distance=20``)."""
    assert parse_variants(Variants, ["distance=20"]).distance == 20
    assert MAX_DISTANCE == 200
    for bad in ("201", "-1", "ten"):
        with pytest.raises(InputError, match="distance"):
            parse_variants(Variants, [f"distance={bad}"])
    with pytest.raises(InputError, match="range_short"):
        parse_variants(Variants, ["range_short=0"])
    with pytest.raises(InputError, match="distance"):
        cb.duel_exact(LIB["novice"], LIB["novice"], Variants(distance=500))


def test_kite_keeps_out_of_reach():
    """Plan kite: a shooter steps away (a whole move) while a melee foe could strike it
    next turn (its reach + one move, AT1), else shoots. An expert shooter (FOR 4, DES 4:
    13 m) against novice knights (heavy archaic armour: 2 + 2 + 5 − 3 = 6 m, threat 7 m)
    is never struck, even when two of them start engaged with it (a group fight)."""
    kiter = combatant("dice_pool_7", {"archetype": "expert_shooter", "plan": "kite"})
    knight = LIB["novice_knight"]
    assert threat(knight, Variants()) == 1 + 6
    assert turn_moves(KITE, 13, 18, 72, 7, 0) == (1, 13)  # away, then one shot
    assert turn_moves(KITE, 13, 18, 72, 7, 20) == (0, 20)  # safe and in range: two shots
    assert turn_moves(KITE, 13, 18, 72, 7, 100) == (2, 74)  # closes to range, no shot
    st = cb.fight_mc([kiter], [knight, knight], 2000, seed=3, round_cap=30)
    assert st.outcome[1] == 0
    assert st.fates[0, 0] == 2000  # the kiter ends every fight standing
    ex = cb.duel_exact(kiter, knight, Variants(distance=10), round_cap=30)
    assert ex.p_outcome()[1] == 0.0


# ------------------------------------------------------------------ Monte Carlo vs exact

MATCHUPS = [
    # shooter holding against a charger in medium archaic armour (AT2: 9 m)
    ("competent_shooter", "competent_armoured", {}),
    # armoured against unarmoured (heavy archaic + shield, focus_attack, 8 m a move;
    # a brawler spending willpower, 11 m)
    ("competent_knight", "competent_brawler", {}),
    # a kiter (11 m) against a slower charger in heavy archaic armour (8 m): one shot a
    # turn, never struck once apart; most fights reach the round cap
    ("competent_shooter", "competent_knight", {"a": {"plan": "kite"}}),
    # a rifle (long class) against a charging dodger, dodges to the end of the round
    (
        "bodyguard",
        "master_fencer",
        {
            "a": {"weapon": "heavy_ranged"},
            "b": {"armour": "heavy_archaic"},
            "v": {"dodge_lasts": "end_of_round"},
        },
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("d0", [0, 10, 20, 40])
@pytest.mark.parametrize(("a", "b", "over"), MATCHUPS)
def test_mc_matches_exact_at_distances(a, b, over, d0):
    """AT1–AT3: Monte Carlo duels agree with the exact chain cell by cell (5 SE + 1/n)
    at 0, 10, 20 and 40 m."""
    fa = combatant("dice_pool_7", {"archetype": a, **over.get("a", {})})
    fb = combatant("dice_pool_7", {"archetype": b, **over.get("b", {})})
    v = parse_variants(Variants, {**over.get("v", {}), "distance": d0})
    ex = cb.duel_exact(fa, fb, v, round_cap=30)
    assert ex.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    mc = cb.duel_mc(fa, fb, 40_000, seed=17 + d0, variants=v, round_cap=30)
    assert_mc_matches_exact(mc, ex)


def test_p_shooter_wins_rises_with_distance():
    """The issue's check: a competent shooter (holds) against a competent armoured
    charger (heavy melee, medium archaic armour: 9 m a move) wins more often the farther
    the fight starts — every turn the charger spends closing is two free shots."""
    a, b = LIB["competent_shooter"], LIB["competent_armoured"]
    p = [cb.duel_exact(a, b, Variants(distance=d)).p_outcome()[0] for d in (0, 10, 20, 40)]
    assert p[0] < p[1] < p[2] < p[3]
    assert p[0] == pytest.approx(0.0647, abs=5e-4)
    assert p[3] == pytest.approx(0.4549, abs=5e-4)


def test_group_fights_start_apart():
    """Group fights: every fighter on one line (side 0 at 0 m, side 1 at d0), each
    attacking only foes in its reach or range. Two competent swordsmen charging one
    competent shooter: the shooter's side wins more often from 40 m than engaged, and a
    side-0-only rerun is the duel's numbers (the same kernel)."""
    sh, sw = LIB["competent_shooter"], LIB["competent_swordsman"]
    n = 20_000
    near = cb.fight_mc([sh], [sw, sw], n, seed=5).p_outcome()[0]
    far = cb.fight_mc([sh], [sw, sw], n, seed=5, variants=Variants(distance=40))
    se = np.sqrt(near * (1 - near) / n + far.p_outcome()[0] * (1 - far.p_outcome()[0]) / n)
    assert far.p_outcome()[0] - near > 5 * se
    one = cb.fight_mc([sh], [sw], n, seed=5, variants=Variants(distance=40))
    duel = cb.duel_mc(sh, sw, n, seed=5, variants=Variants(distance=40))
    for name in HIST_FIELDS:
        assert np.array_equal(getattr(one, name), getattr(duel, name)), name


# ------------------------------------------------------------------ d0 = 0 is unchanged

#: sha256 (first 16 hex digits) of the Monte Carlo histograms of these fights, recorded
#: before distance existed: at the default distance 0 not one count may move.
ENGAGED = {
    ("competent_shooter", "competent_armoured"): "d26c70076f56e521",
    ("novice_knight", "expert"): "de0057f0141b19c9",
    ("competent_swordsman", "competent_fencer"): "fa385700fed51013",
    ("soldier", "bodyguard"): "156db40c4d4a1953",
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


def test_group_fight_engaged_is_unchanged():
    """Three thugs on a bodyguard (scenarios/combat/ambush_3v1.toml's fighters), engaged:
    the histograms recorded before distance existed."""
    t, g = LIB["street_thug"], LIB["bodyguard"]
    assert hist_digest(cb.fight_mc([t, t, t], [g], 20_000, seed=7)) == "9f5b2f3b69787f52"


# ------------------------------------------------------------------ the audit's cures


def test_distance_is_the_fights_setup_not_a_cure():
    """The cure search never moves ``distance`` (where the fight starts is part of the
    question); the AT-g gaps are rule edits it may search."""
    assert "distance" in SETUP_VARIANTS
    v = Variants()
    names = {k.name for k in variant_knobs(v, dataclasses.fields(v))}
    assert "variant.distance" not in names
    assert {"variant.range_penalty", "variant.melee_reach"} <= names


@pytest.mark.parametrize("d", [0, 10, 20, 40])
def test_kiting_stalemate_equal_moves(d):
    """RULES.md "Kiting stalemate" (AT1, AT-g2): a kiter against a charger exactly as fast
    never fights after the first round. By hand: both move FOR + DES + 5 = 11 m, so the
    kiter's threat is reach 1 + 11 = 12 m; a charger's two moves (22 m) always end within
    12 m, and one step back (11 m) from within 12 m is still within it, so the kiter's
    turn is two steps and the charger's two moves: no attack, P(neither) ≈ 1 at the cap."""
    shooter = combatant("dice_pool_7", "competent_shooter", {"plan": "kite"})
    charger = combatant("dice_pool_7", "competent_swordsman")
    assert shooter.move == charger.move == 3 + 3 + 5
    assert threat(charger, Variants()) == 1 + 11
    st = cb.duel_exact(shooter, charger, Variants(distance=d))
    p_neither = float(st.outcome[2]) / float(st.outcome.sum())
    assert p_neither > 0.999
    # the same shooter holding (shooting instead of stepping away) fights it out
    holder = combatant("dice_pool_7", "competent_shooter", {"plan": "hold"})
    st = cb.duel_exact(holder, charger, Variants(distance=d))
    assert float(st.outcome[2]) / float(st.outcome.sum()) < 0.01
