"""Whole fights in d20_degrees: rules E3, E8–E16 and gaps E-g2 … E-g14 (RULES.md section E).

Oracles: brute-force enumeration written here from RULES.md (not from the engine), closed
forms for hand-built fights, and the exact duel chain for the Monte Carlo kernel.
Monte Carlo tolerance everywhere: ``5 * sqrt(p * (1 - p) / n) + 1 / n`` — five standard
errors of a binomial proportion plus one count (continuity for cells whose expected
count is below one); seeds are fixed, so a pass is reproducible.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from math import sqrt

import numpy as np
import pytest
from d20_support import N, assert_mc_matches, fighter, library

from analysis.combat import archetypes
from engines.archetype_library import LADDER
from engines.errors import InputError
from engines.systems.d20_degrees.archetypes import DATA_FILE
from engines.systems.d20_degrees.combat import (
    Fighter,
    Variants,
    attack_damage,
    duel_exact,
    duel_mc,
    fight_mc,
    hit_points_for_rounds,
    initiative_first,
    mean_rounds,
)
from engines.variants import parse_variants

# E16 as written in RULES.md: (hit, damage, active defences)
MANEUVER_TABLE = {
    "none": (0, 0, 0),
    "accurate": (2, -2, 0),
    "power": (-2, 2, 0),
    "all_out": (0, 2, -2),
    "defensive": (0, -2, 2),
}

# A fighter who can never hurt anyone (a natural 20 still hits, E3, but for 0 damage).
HARMLESS = {
    "attack": -40,
    "damage": -60,
    "agility": -60,
    "hit_points": 1,
    "toughness": 0,
    "parry": 0,
    "dodge": 0,
    "fortitude": 0,
}


# ------------------------------------------------------------------------------------
# One attack: E11, E3, E12, E13, E16 against brute force
# ------------------------------------------------------------------------------------


def brute_attack(att: Fighter, tgt: Fighter, v: Variants, defenceless=False) -> dict:
    """P(damage = d) for one attack, straight from RULES.md E11/E3/E12/E13/E16; on a
    defenceless target ET4 picks routine or roll: ``best`` — the one more likely to kill
    the (incapacitated) target, damage ≥ 10 (E13), then to wound it, a tie routine;
    ``needed`` — roll only when the routine total misses."""
    if defenceless and v.defenceless_attack in ("best", "needed"):
        routine = brute_attack(att, tgt, dataclasses.replace(v, defenceless_attack="routine"), True)
        rolled = brute_attack(att, tgt, dataclasses.replace(v, defenceless_attack="roll"), True)
        if v.defenceless_attack == "needed":  # the routine total: 10 + bonus ± 5 (E17)
            bonus = att.attack + MANEUVER_TABLE[att.maneuver][0] + (-5 if att.ranged else 5)
            return rolled if 10 + bonus < 10 else routine

        def odds(dist):
            return (
                sum(p for d, p in dist.items() if d >= 10),
                sum(p for d, p in dist.items() if d >= 1),
            )

        return rolled if odds(rolled) > odds(routine) else routine
    mhit, mdmg, _ = MANEUVER_TABLE[att.maneuver]
    tdef = MANEUVER_TABLE[tgt.maneuver][2]
    bonus = att.attack + mhit
    if defenceless:
        # seed 004: "Incapacitado: ... além de se encontrar Deitado"; "Deitado: ... Seus
        # oponentes recebem +5 para o atingir a curta distância, mas também um redutor de
        # -5 para o acertar com ataques de longa distância"
        bonus += -5 if att.ranged else 5
    dc = 10 if defenceless else (tgt.dodge if att.ranged else tgt.parry) + tdef + 10
    if defenceless and v.defenceless_attack == "routine":
        rolls = [(10, False, Fraction(1))]  # E4 routine: take 10
    else:
        rolls = [(r, True, Fraction(1, 20)) for r in range(1, 21)]
    out: dict[int, Fraction] = {}
    for val, rolled, p in rolls:
        nat20, nat1 = rolled and val == 20, rolled and val == 1
        total = val + bonus
        hit = False if nat1 else True if nat20 else total >= dc
        if not hit:
            out[0] = out.get(0, 0) + p
            continue
        crit = nat20 or (defenceless and rolled)
        deg_total = total + (5 if (nat20 and v.crit_extra_degree) else 0)
        excess = max(0, (deg_total - dc) // 5) if v.degree_damage else 0
        x = att.damage + excess + 15 + mdmg + (5 if crit else 0)
        for r in range(1, 21):
            d = x - (tgt.toughness + r + (5 if (v.resistance_naturals and r == 20) else 0))
            if v.resistance_naturals and r == 1:
                d = max(d, 1)
            out[max(d, 0)] = out.get(max(d, 0), 0) + p / 20
    return out


ATTACK_CASES = [
    (fighter(), fighter()),
    (fighter(attack=12, damage=8, maneuver="power"), fighter(parry=5, maneuver="defensive")),
    (
        fighter(attack=3, ranged=True, damage=4, maneuver="accurate"),
        fighter(dodge=9, parry=1, toughness=5, maneuver="all_out"),
    ),
    (fighter(attack=-3, damage=0), fighter(parry=14, toughness=-2)),
    (fighter(attack=25, damage=10), fighter(parry=0, toughness=9)),
]
VARIANT_CASES = [
    Variants(),
    Variants(crit_extra_degree=True, resistance_naturals=True),
    Variants(degree_damage=False, defenceless_attack="roll"),
    Variants(defenceless_attack="routine"),
    Variants(defenceless_attack="needed", resistance_naturals=True),
]


@pytest.mark.parametrize("case", range(len(ATTACK_CASES)))
@pytest.mark.parametrize("vi", range(len(VARIANT_CASES)))
@pytest.mark.parametrize("defenceless", [False, True])
def test_attack_damage_matches_brute_force(case, vi, defenceless):
    """E11 (+1 damage per excess degree), E3, E12, E13 (defenceless), E16, ET4, E-g4, E-g5."""
    att, tgt = ATTACK_CASES[case]
    v = VARIANT_CASES[vi]
    want = brute_attack(att, tgt, v, defenceless)
    got = attack_damage(att, tgt, v, defenceless=defenceless)
    assert got.sum() == pytest.approx(1.0, abs=1e-12)
    assert (got >= 0).all()
    for d in range(max(len(got), max(want) + 1)):
        g = got[d] if d < len(got) else 0.0
        assert g == pytest.approx(float(want.get(d, 0)), abs=1e-12), d


def test_e12_worked_example_and_e3_naturals():
    """E12: (base 5 + 2 excess degrees + 15) − (Toughness 2 + d20 10) = 10. E3: a natural
    20 always hits for +5 damage; a natural 1 always misses."""
    att = fighter(attack=10, damage=5)
    tgt = fighter(parry=0, toughness=2)  # DC 10: d20 + 10 − 10 gives the excess
    dist = attack_damage(att, tgt)
    # attack d20 = 10 → total 20 vs DC 10: 2 excess degrees → X = 22; resistance d20 = 10 → 10
    # P(damage = 10) collects every (attack, resistance) pair with X − 2 − r = 10.
    p10 = sum(
        1 / 400
        for a in range(2, 21)
        for r in range(1, 21)
        if 5 + (a + 10 - 10) // 5 + 15 + (5 if a == 20 else 0) - 2 - r == 10
    )
    assert dist[10] == pytest.approx(p10)
    # nat 20 against an unreachable Parry: hits 1/20 of the time for X = 10 + 15 + 5 = 30
    dist = attack_damage(fighter(attack=0, damage=10), fighter(parry=50, toughness=0))
    assert dist[0] == pytest.approx(19 / 20)
    assert all(dist[d] == pytest.approx(1 / 400) for d in range(10, 30))
    # nat 1 against Parry 0 with attack +40: the only miss; every hit wounds
    dist = attack_damage(fighter(attack=40, damage=40), fighter(parry=0, toughness=0))
    assert dist[0] == pytest.approx(1 / 20)


def test_e11_degree_damage_house_rule_switch():
    """E11 house rule off: damage no longer grows with the attack's margin."""
    att, tgt = fighter(attack=30), fighter(parry=0)
    on, off = attack_damage(att, tgt), attack_damage(att, tgt, Variants(degree_damage=False))
    mean = lambda d: float(np.arange(d.size) @ d)  # noqa: E731
    assert mean(on) > mean(off) + 4  # 30 + d20 vs DC 10: at least 4 excess degrees


def test_e16_maneuvers_shift_hit_and_damage():
    """E16: accurate = +2 hit −2 damage; power the reverse; all-out/defensive move the
    target's active defences by ∓2."""
    tgt = fighter()
    assert np.allclose(
        attack_damage(fighter(maneuver="accurate"), tgt),
        attack_damage(fighter(attack=9, damage=3), tgt),
    )
    assert np.allclose(
        attack_damage(fighter(maneuver="power"), tgt),
        attack_damage(fighter(attack=5, damage=7), tgt),
    )
    assert np.allclose(
        attack_damage(fighter(), fighter(maneuver="all_out")),
        attack_damage(fighter(), fighter(parry=5)),
    )
    assert np.allclose(
        attack_damage(fighter(), fighter(maneuver="defensive")),
        attack_damage(fighter(), fighter(parry=9)),
    )


# ------------------------------------------------------------------------------------
# E10 initiative, E-g10 ties
# ------------------------------------------------------------------------------------


def test_e10_initiative_brute_force_and_ties():
    """E10: d20 + Agility; ties by Dodge, Agility, Awareness; E-g10 the last tie."""
    a = fighter(agility=2, dodge=7, awareness=1)
    b = fighter(agility=1, dodge=8, awareness=3)
    want = Fraction(0)
    for ra in range(1, 21):
        for rb in range(1, 21):
            if ra + 2 > rb + 1 or (ra + 2 == rb + 1 and 7 > 8):
                want += Fraction(1, 400)
    assert initiative_first(a, b) == pytest.approx(float(want))
    same = fighter()
    assert initiative_first(same, same) == pytest.approx(0.5)
    # listed: the earlier-listed fighter wins the full tie: P(ra > rb) + P(ra = rb)
    assert initiative_first(same, same, Variants(initiative_ties="listed")) == pytest.approx(
        210 / 400
    )
    # Dodge breaks a total tie before anything else
    assert initiative_first(fighter(dodge=8), fighter(dodge=7)) == pytest.approx(210 / 400)


# ------------------------------------------------------------------------------------
# Whole fights with closed forms
# ------------------------------------------------------------------------------------


def _both(a, b, v=None, cap=50, n=N, seed=7):
    return duel_exact(a, b, v, cap), duel_mc(a, b, n, seed, v, cap)


def test_incapacitated_do_not_act_closed_form():
    """E13: a fighter at 0 HP is incapacitated and cannot act. A always acts first (E10)
    and drops B unless it rolls a natural 1 (E3); B, when it acts, drops A the same way.
    P(A wins) = (19/20) / (1 − 1/400)."""
    a = fighter(attack=40, damage=40, toughness=0, parry=0, hit_points=1, agility=60)
    b = fighter(attack=40, damage=40, toughness=0, parry=0, hit_points=1, agility=-60)
    exact, mc = _both(a, b)
    pa = (19 / 20) / (1 - 1 / 400)
    assert exact.outcome[0] == pytest.approx(pa)
    assert exact.outcome[1] == pytest.approx(1 - pa, abs=1e-12)
    assert exact.rounds[1, 0] == pytest.approx(19 / 20)
    assert exact.rounds[1, 1] == pytest.approx(19 / 400)
    assert_mc_matches(mc.p_outcome(), exact.outcome, N)
    # E-g14: a massive hit on an able fighter does not kill; nobody finishes (E-g7 = 0)
    assert exact.loser_dead.sum() == 0
    assert mc.loser_dead.sum() == 0
    assert mc.deaths.sum() == 0


def test_e15_recovery_costs_the_action_once():
    """E15: recovery is a standard action, once per combat; E-g9 caps hit points."""
    a = fighter(attack=0, damage=40, hit_points=5, recover_at=5, agility=60)
    b = fighter(**HARMLESS)
    p = 1 - attack_damage(a, b)[0]  # one attack drops B (1 HP)
    exact, mc = _both(a, b)
    assert exact.rounds[1, 0] == pytest.approx(0.0)  # round 1 spent recovering
    assert exact.rounds[2, 0] == pytest.approx(p)  # never again
    assert exact.rounds[3, 0] == pytest.approx((1 - p) * p)
    assert_mc_matches(mc.rounds[:6, 0] / mc.n, exact.rounds[:6, 0], N)


@pytest.mark.parametrize("cap", [True, False])
def test_e_g9_recovery_cap(cap):
    """E-g9: at full hit points a capped recovery adds nothing; uncapped it adds 5."""
    a = fighter(attack=-40, damage=-60, hit_points=5, recover_at=5, agility=60, toughness=0)
    b = fighter(attack=6, damage=8, agility=-60, hit_points=1, parry=0)
    exact = duel_exact(a, b, Variants(recovery_cap=cap), round_cap=2)
    buffed = fighter(attack=-40, damage=-60, hit_points=5, toughness=0, parry=9)  # +2 (E15)
    dist = attack_damage(b, buffed)
    hp = 5 if cap else 10
    assert exact.rounds[1, 1] == pytest.approx(dist[hp:].sum())


def test_e9_hero_point_rerolls_a_dropping_resistance():
    """E9 ``resist`` (E-g12): a resistance roll that would drop the fighter is rerolled
    (1–10 read +10) and the better kept. Brute force over attack d20, both resistance d20s."""
    a = fighter(attack=10, damage=6, agility=60, toughness=0)
    b = fighter(
        attack=-40,
        damage=-60,
        agility=-60,
        parry=5,
        toughness=3,
        hit_points=6,
        hero_points=1,
        hero_use="resist",
    )
    p_drop = Fraction(0)
    for ra in range(2, 21):  # natural 1 misses (E3)
        total, dc = ra + 10, 15
        if ra != 20 and total < dc:
            continue
        x = 6 + max(0, (total - dc) // 5) + 15 + (5 if ra == 20 else 0)
        for r1 in range(1, 21):
            if x - (3 + r1) < 6:
                continue
            for r2 in range(1, 21):
                kept = max(r1, r2 + 10 if r2 <= 10 else r2)
                if x - (3 + kept) >= 6:
                    p_drop += Fraction(1, 20 * 20 * 20)
    exact, mc = _both(a, b, cap=1)
    assert exact.rounds[1, 0] == pytest.approx(float(p_drop))
    assert_mc_matches(mc.rounds[1, 0] / mc.n, exact.rounds[1, 0], N)


def test_e15_recovery_raises_defences_until_next_turn():
    """E15: +2 active defences until the recovering fighter's next turn."""
    a = fighter(attack=0, damage=-60, hit_points=30, recover_at=30, agility=60, parry=5)
    b = fighter(attack=5, damage=40, toughness=0, parry=0, hit_points=30, agility=-60)
    exact = duel_exact(a, b, round_cap=3)
    # round 1: A recovers, B attacks vs Parry 5 + 2 + 10 = 17: d20 + 5 ≥ 17 → 9/20
    assert exact.rounds[1, 1] == pytest.approx(9 / 20)
    # round 2: buff gone: d20 + 5 ≥ 15 → 11/20
    assert exact.rounds[2, 1] == pytest.approx(11 / 20 * 11 / 20)


def test_e9_hero_point_rerolls_a_missed_attack():
    """E9: reroll, keep the better, 1–10 on the reroll counts +10. Bonus 0 vs DC 20:
    first roll hits on 20 only; the reroll hits on 10 (→ 20) or 20: P = 1/20 + 19/20 · 2/20.
    """
    a = fighter(attack=0, damage=40, agility=60, hero_points=1, hero_use="attack")
    b = fighter(**{**HARMLESS, "parry": 10})
    exact, mc = _both(a, b)
    first = 1 / 20 + 19 / 20 * 2 / 20
    assert exact.rounds[1, 0] == pytest.approx(first)
    assert exact.rounds[2, 0] == pytest.approx((1 - first) / 20)
    assert_mc_matches(mc.rounds[:4, 0] / mc.n, exact.rounds[:4, 0], N)


def test_e8_extra_effort_then_exhausted():
    """E8: +2 on the first two attacks, then exhausted (−2 on later checks). Bonus 0 vs
    DC 20: 3/20, 3/20, then only natural 20s (E3)."""
    a = fighter(attack=0, damage=40, agility=60, extra_effort=2)
    b = fighter(**{**HARMLESS, "parry": 10})
    exact, mc = _both(a, b)
    assert exact.rounds[1:5, 0] == pytest.approx(
        [3 / 20, 17 / 20 * 3 / 20, (17 / 20) ** 2 / 20, (17 / 20) ** 2 * 19 / 400]
    )
    assert_mc_matches(mc.rounds[:6, 0] / mc.n, exact.rounds[:6, 0], N)


def _finishing_oracle(k_rounds: int, on_acquire: bool, fort: int) -> float:
    """P(loser dead) after ``k_rounds`` of finishing; each hit deals 10 − d20 (≥ 1 on 1–9).

    Hand-built from E13/E14: incapacitated + damage → dying (no instant death: damage
    < 10); dying + damage → dead (E-g13); Fortitude vs 15 on acquiring (E-g6) and at the
    start of each of the loser's turns: 2+ degrees stabilised (E-g11: failures cleared),
    1 degree nothing, each degree of failure one failure, 3 → dead.
    """

    def fortitude(fails):
        out = {}
        for r in range(1, 21):
            t = r + fort + (5 if r == 20 else 0)
            deg = 1 + (t - 15) // 5 if t >= 15 else -(1 + (15 - t) // 5)
            if r == 1 and deg > 0:
                deg = -1
            if deg >= 2:
                key = "incap"
            elif deg == 1:
                key = ("dying", fails)
            else:
                key = "dead" if fails - deg >= 3 else ("dying", fails - deg)
            out[key] = out.get(key, 0) + Fraction(1, 20)
        return out

    def add(d, k, p):
        d[k] = d.get(k, 0) + p

    dist = {"incap": Fraction(1)}
    p_wound = Fraction(9, 20)
    for _ in range(k_rounds):
        nxt: dict = {}
        for s, p in dist.items():  # the loser's turn
            if isinstance(s, tuple):
                for t, q in fortitude(s[1]).items():
                    add(nxt, t, p * q)
            else:
                add(nxt, s, p)
        dist, nxt = nxt, {}
        for s, p in dist.items():  # the winner's finishing attack
            if s == "dead":
                add(nxt, s, p)
            elif s == "incap":
                add(nxt, s, p * (1 - p_wound))
                if on_acquire:
                    for t, q in fortitude(0).items():
                        add(nxt, t, p * p_wound * q)
                else:
                    add(nxt, ("dying", 0), p * p_wound)
            else:
                add(nxt, s, p * (1 - p_wound))
                add(nxt, "dead", p * p_wound)
        dist = nxt
    # aftermath "finish" ends in "leave": the dying keep rolling E14, turn after turn,
    # until dead or stabilised (run 300 turns; what is left is below 1e-12)
    dist = {k: float(p) for k, p in dist.items()}
    for _ in range(300):
        nxt = {}
        for s, p in dist.items():
            if isinstance(s, tuple):
                for t, q in fortitude(s[1]).items():
                    add(nxt, t, p * float(q))
            else:
                add(nxt, s, p)
        dist = nxt
    assert sum(p for s, p in dist.items() if isinstance(s, tuple)) < 1e-12
    return float(dist.get("dead", 0))


@pytest.mark.parametrize(
    ("k_rounds", "on_acquire", "fort"), [(1, True, 0), (1, False, 0), (3, True, 2), (4, False, -3)]
)
def test_e13_e14_finishing_dying_and_death(k_rounds, on_acquire, fort):
    """E13/E14 with ET4 routine (a fixed mode), E-g6, E-g7, E-g11, E-g13, ``finish``: the
    loser's fate while the winner keeps attacking, then ``leave`` (E14 until resolved).
    A's routine hit on the prone target (E17: +5 in melee): 10 + 0 + 5 vs DC 10, one
    excess degree, X = 15 + damage −6 + 1 = 10, so damage = 10 − d20 (never ≥ 10: no
    instant death)."""
    a = fighter(attack=0, damage=-6, toughness=0, agility=60)
    b = fighter(**{**HARMLESS, "toughness": 0, "fortitude": fort})
    v = Variants(
        aftermath="finish",
        finish_rounds=k_rounds,
        dying_check_on_acquire=on_acquire,
        defenceless_attack="routine",
    )
    exact, mc = _both(a, b, v, cap=100)
    want = _finishing_oracle(k_rounds, on_acquire, fort)
    assert exact.outcome[0] == pytest.approx(1.0, abs=1e-9)
    assert exact.loser_dead[0] == pytest.approx(want, abs=1e-9)
    assert exact.deaths[1] == pytest.approx(want, abs=1e-9)
    assert_mc_matches(mc.loser_dead / mc.n, exact.loser_dead, N)
    if k_rounds == 1 and on_acquire and fort == 0:
        # hand-worked: wounded on d20 ≤ 9; then the E14 check on acquiring and, left
        # (aftermath leave), every later one until resolved: P(dead | dying, 0 failures)
        # = 2999/3375 at Fortitude 0 (see test_e14_leave_and_first_aid_closed_form)
        assert want == pytest.approx(9 / 20 * 2999 / 3375)


def test_e13_instant_death_on_three_degrees():
    """E13: an incapacitated target failing resistance by 3+ degrees (damage ≥ 10) dies."""
    a = fighter(attack=0, damage=40, toughness=0, agility=60)
    b = fighter(**{**HARMLESS, "toughness": 0})
    exact = duel_exact(a, b, Variants(aftermath="finish", finish_rounds=1), round_cap=100)
    assert exact.loser_dead[0] == pytest.approx(1.0, abs=1e-9)


# ------------------------------------------------------------------------------------
# Monte Carlo vs exact on realistic duels
# ------------------------------------------------------------------------------------


MATCHUPS = [
    ("competent", "competent", Variants()),
    ("novice_brawler", "novice_swordsman", Variants(target_rule="random")),
    (
        "competent_shooter",
        "competent_armoured",
        Variants(aftermath="finish", finish_rounds=2, defenceless_attack="roll"),
    ),
    (
        "untrained",
        "novice",
        Variants(
            resistance_naturals=True,
            crit_extra_degree=True,
            initiative_ties="listed",
            aftermath="finish",
            finish_rounds=1,
        ),
    ),
    ("competent_swordsman", "competent_brawler", Variants(defensive_below=50)),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name_a", "name_b", "v"), MATCHUPS)
def test_mc_matches_exact_duels(name_a, name_b, v):
    """E10–E16 end to end: outcome, rounds, loser dead, standing: MC within 5σ + 1/n."""
    lib = library()
    a, b = lib[name_a], lib[name_b]
    exact, mc = _both(a, b, v, cap=20, seed=11)
    assert exact.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    assert exact.rounds.sum() == pytest.approx(1.0, abs=1e-9)
    assert (exact.loser_dead <= exact.outcome[:2] + 1e-12).all()
    assert_mc_matches(mc.p_outcome(), exact.outcome, N)
    assert_mc_matches(mc.rounds / mc.n, exact.rounds, N)
    assert_mc_matches(mc.loser_dead / mc.n, exact.loser_dead, N)
    assert_mc_matches(mc.standing / mc.n, exact.standing, N)
    assert_mc_matches(mc.deaths / mc.n, exact.deaths, N)


def test_mc_matches_exact_with_all_tactics():
    """E8 + E9 (resist) + E15 + E16 at once, hand-made stat blocks."""
    a = fighter(
        hit_points=14,
        extra_effort=1,
        maneuver="power",
        recover_at=6,
        hero_points=1,
        hero_use="resist",
    )
    b = fighter(
        hit_points=12,
        extra_effort=2,
        maneuver="defensive",
        hero_points=2,
        hero_use="attack",
        toughness=3,
        fortitude=1,
    )
    v = Variants(aftermath="finish", finish_rounds=2)
    exact, mc = _both(a, b, v, cap=25, seed=3)
    assert_mc_matches(mc.p_outcome(), exact.outcome, N)
    assert_mc_matches(mc.rounds / mc.n, exact.rounds, N)
    assert_mc_matches(mc.loser_dead / mc.n, exact.loser_dead, N)


def test_e_g12_defensive_switch_at_100_percent_is_the_defensive_maneuver():
    """E-g12: ``defensive_below=100`` means always defensive (E16), whatever the maneuver."""
    a = fighter(maneuver="power", hit_points=10)
    b = fighter(maneuver="accurate", hit_points=9, parry=6)
    switched = duel_exact(a, b, Variants(defensive_below=100), round_cap=15)
    plain = duel_exact(
        dataclasses.replace(a, maneuver="defensive"),
        dataclasses.replace(b, maneuver="defensive"),
        round_cap=15,
    )
    assert np.allclose(switched.rounds, plain.rounds, atol=1e-12)
    other = duel_exact(a, b, Variants(defensive_below=50), round_cap=15)
    assert not np.allclose(other.rounds, plain.rounds, atol=1e-6)


def test_hits_histogram_is_the_damage_of_each_hit():
    """E12 hits: A always wounds and B (1 HP) falls at the first hit, so each fight holds
    exactly one wounding hit and ``hits[1:]`` is the damage distribution of one attack given
    a hit (bin 0 holds B's harmless natural-20 hits, E3)."""
    a = fighter(attack=3, damage=40, agility=60)
    b = fighter(**{**HARMLESS, "parry": 6, "toughness": 5})
    exact, mc = _both(a, b, cap=200)
    one = attack_damage(a, b)
    want = np.zeros(exact.hits.size)
    want[: one.size] = one / (1 - one[0])
    want[0] = 0.0
    assert exact.hits[1:] == pytest.approx(want[1:], abs=1e-9)
    assert_mc_matches(mc.hits / mc.n, exact.hits, N)


def test_round_cap_is_neither():
    """Two fighters who cannot hurt each other: every fight reaches the cap ("neither")."""
    h = fighter(**HARMLESS)
    exact, mc = _both(h, h, cap=3, n=1000)
    assert exact.outcome == pytest.approx([0, 0, 1])
    assert exact.rounds[3, 2] == pytest.approx(1.0)
    assert mc.outcome.tolist() == [0, 0, 1000]
    assert mc.standing[-1].tolist() == [1000, 1000]


def test_exact_chain_states_invariants():
    """Every reachable state of a rich duel: hit points within 0..max (never negative),
    counters within bounds; the dead and the incapacitated never change on their turn
    (they do not act); transition probabilities sum to 1."""
    from engines.systems.d20_degrees.combat import L_DEAD, L_INCAP, Duel

    a = fighter(
        hit_points=9,
        hero_points=1,
        hero_use="resist",
        recover_at=4,
        extra_effort=2,
        feint=True,
        deception=5,
    )
    b = fighter(hit_points=8, hero_points=2, hero_use="attack", fortitude=-2)
    v = Variants(aftermath="finish", finish_rounds=2, defenceless_attack="roll", surprise="side1")
    duel = Duel(a.array(), b.array(), v.rule())
    start = (0, 0, (9, 0, 1, 0, 3), (8, 0, 2, 0, 1))  # a surprised (3), b surprises (1)
    seen, todo = {start}, [start]
    while todo:
        st = todo.pop()
        outs = duel.step(st)
        assert sum(p for p, _, _ in outs) == pytest.approx(1.0, abs=1e-12)
        turn, _, sa, sb = st
        actor = sa if turn == 0 else sb
        for _, nxt, _ in outs:
            for f, (life, rec, hero, eff, vul) in zip((a, b), nxt[2:], strict=True):
                assert L_DEAD <= life <= f.hit_points
                assert vul in ((0, 1, 2, 3) if f.feint else (0, 1))  # E16 feint / surprise
                assert 0 <= rec <= 2
                assert 0 <= hero <= f.hero_points
                assert 0 <= eff <= f.extra_effort
            if actor[0] in (L_DEAD, L_INCAP):
                assert nxt[2:] == st[2:]
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    assert len(seen) > 1000


def test_e_g2_solve_hit_points_for_duel_length():
    """E-g2: the hit points that make an even competent duel last 3 rounds on average.
    Checked against the exact chain: mean(hp) reaches 3 and mean(hp − 1) does not, each
    within five standard errors of the search's Monte Carlo mean (sd from the exact pmf)."""
    comp = archetypes.library("d20_degrees")["competent"].to_engine()
    trials = 50_000
    hp = hit_points_for_rounds(comp, 3, trials=trials, seed=1)
    for h, reaches in ((hp, True), (hp - 1, False)):
        g = dataclasses.replace(comp, hit_points=h)
        ex = duel_exact(g, g)
        k = np.arange(ex.rounds.shape[0])
        mean = mean_rounds(ex)
        se = sqrt(float((k - mean) ** 2 @ ex.rounds_pmf()) / trials)
        if reaches:
            assert mean >= 3 - 5 * se
        else:
            assert mean < 3 + 5 * se
    with pytest.raises(InputError, match="max_hit_points"):
        hit_points_for_rounds(comp, 40, max_hit_points=5, trials=1000)


def test_exact_refuses_huge_state_space():
    """The exact chain names the rule (E-g2 hit points) when it would be too large."""
    big = fighter(
        hit_points=500,
        hero_points=10,
        hero_use="resist",
        recover_at=100,
        extra_effort=2,
        toughness=30,
        damage=-20,
    )
    with pytest.raises(InputError, match="E-g2"):
        duel_exact(big, big)


# ------------------------------------------------------------------------------------
# Variants and input errors
# ------------------------------------------------------------------------------------


def test_variants_parse_and_reject():
    v = parse_variants(
        Variants,
        [
            "finish_rounds=2",
            "defenceless_attack=roll",
            "aftermath=first_aid",
            "aid_bonus=4",
            "aid_tries=2",
        ],
    )
    assert v.finish_rounds == 2
    assert (v.aftermath, v.aid_bonus, v.aid_tries) == ("first_aid", 4, 2)
    for bad, what in (
        ("aftermath=heal", "aftermath"),
        ("aid_tries=0", "aid_tries"),
        ("aid_bonus=x", "aid_bonus"),
    ):
        with pytest.raises(InputError, match=what):
            parse_variants(Variants, [bad]).rule()
    assert v.defenceless_attack == "roll"
    with pytest.raises(InputError, match="target_rule"):
        parse_variants(Variants, ["target_rule=weakest"])
    with pytest.raises(InputError, match="finish_rounds"):
        Variants(finish_rounds=-1).rule()
    rules = {f.metadata["rule"] for f in dataclasses.fields(Variants)}
    assert {
        "ET4",
        "E-g4",
        "E-g5",
        "E-g6",
        "E-g7",
        "E-g8",
        "E-g9",
        "E-g10",
        "E-g17",
        "E-g18",
        "Lethality outcomes",
    } <= rules


def test_bad_fighter_and_arguments():
    with pytest.raises(InputError, match="maneuver"):
        fighter(maneuver="flurry")
    with pytest.raises(InputError, match="hit_points"):
        fighter(hit_points=0)
    with pytest.raises(InputError, match="trials"):
        duel_mc(fighter(), fighter(), trials=0)
    with pytest.raises(InputError, match="round_cap"):
        duel_exact(fighter(), fighter(), round_cap=0)
    with pytest.raises(InputError, match="side"):
        fight_mc([], [fighter()], 10)


# ------------------------------------------------------------------------------------
# The data library (E-g2 hit points as data; gear as E12 ranks)
# ------------------------------------------------------------------------------------


def test_library_loads_every_rung_and_style():
    lib = archetypes.library("d20_degrees")
    assert set(LADDER) <= set(lib)
    assert {"expert_brawler", "master_swordsman", "novice_shooter", "competent_armoured"} <= set(
        lib
    )
    comp = lib["competent"].to_engine()
    # E11: Fighting 3 + Close Combat 4; E12: Strength 2 + heavy melee 3
    assert (comp.attack, comp.damage, comp.ranged) == (7, 5, False)
    shooter = lib["competent_shooter"].to_engine()
    assert shooter.ranged
    assert shooter.attack == 3 + 4
    assert shooter.damage == 3
    armoured = lib["expert_armoured"].to_engine()
    assert armoured.toughness == 3 + 4
    assert armoured.maneuver == "all_out"
    # attack bonus equals Parry on every rung (the ladder's stated anchor)
    for rung in LADDER:
        f = lib[rung].to_engine()
        assert f.attack == f.parry


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'weapon = "heavy_melee"\narmour = "none"\n\n[archetypes.master]',
            'weapon = "lazer"\narmour = "none"\n\n[archetypes.master]',
            "d20_degrees.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ",
        ),
        ("hit_points = 25", 'hit_points = "many"', "archetypes.expert.hit_points"),
        ("hit_points = 25", "hit_points = 25\nluck = 3", "archetypes.expert.luck: unknown key"),
        ("fortitude = 6\n", "", "archetypes.expert.fortitude: missing"),
        ("adjust = { parry = 1 }", "adjust = { parri = 1 }", "styles.swordsman.adjust.parri"),
        ('armour = "heavy"', 'armour = "mithril"', "styles.armoured.armour: unknown armour"),
        ('maneuver = "power"', 'maneuver = "flurry"', "styles.brawler.maneuver"),
        ("[archetypes.novice]", "[archetypes.novize]", "missing ladder rung(s) novice"),
        ("damage = 5\n", "damage = 99\n", "weapons.rifle.damage"),
    ],
)
def test_library_errors_name_file_and_key(tmp_path, old, new, message):
    text = DATA_FILE.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "d20_degrees.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as info:
        archetypes.library("d20_degrees", path)
    assert message in str(info.value)
    assert str(info.value).startswith("d20_degrees.toml: ")


@pytest.mark.parametrize("effort", [0, 1, 2])
def test_e8_one_hit_fatigue_is_not_exhausted(effort):
    """E8: one use of extra effort leaves the fighter fatigued (movement only), only the
    second leaves it exhausted (−2 on checks). ``one_hit`` reads a fighter after its
    effort uses (no +2 left): attack 5 vs Parry 5 (DC 15, E11) needs d20 ≥ 10 → 11/20
    with 0 or 1 use, d20 ≥ 12 → 9/20 once exhausted (2 uses). Damage (E12): base 0 +
    excess + 15 [+5 on a natural 20] − (Toughness 0 + d20) against 8 hit points:
    p_incapacitate is a brute-force sum over both d20s."""
    from engines.systems.d20_degrees.combat import one_hit

    att = fighter(attack=5, damage=0, extra_effort=effort)
    tgt = fighter(parry=5, toughness=0, hit_points=8)
    pen = 2 if effort == 2 else 0
    p_hit = Fraction(0)
    p_out = Fraction(0)
    for r in range(1, 21):
        total = r + 5 - pen
        if r == 1 or (r != 20 and total < 15):
            continue
        p_hit += Fraction(1, 20)
        excess = (total - 15) // 5 if total >= 15 else 0
        x = excess + 15 + (5 if r == 20 else 0)
        for t in range(1, 21):
            if x - t >= 8:
                p_out += Fraction(1, 400)
    got = one_hit(att, tgt)
    assert got["p_hit"] == pytest.approx(float(p_hit), abs=1e-12)
    assert got["p_incapacitate"] == pytest.approx(float(p_out), abs=1e-12)
