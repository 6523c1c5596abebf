"""Lethality outcomes of the two d10-pool combat engines (RULES.md "Lethality outcomes",
A14, A15, A-g8..A-g12 for ``dice_pool_7``; C6, C-g5..C-g7 for ``dice_pool_6``).

Oracles: hand-worked probabilities from success-count pmfs built here (not by the
engines), and exact duels vs Monte Carlo within ``5 sqrt(p(1-p)/n) + 1/n``, fixed seeds.
"""

from __future__ import annotations

from math import comb, sqrt
from pathlib import Path

import numba
import numpy as np
import pytest

from analysis.combat.archetypes import combatants
from engines.fight import AFTERMATHS
from engines.systems.dice_pool_6 import combat as c6
from engines.systems.dice_pool_7 import combat as c7

LIB7 = combatants("dice_pool_7")
LIB6 = combatants("dice_pool_6")
SEED7 = (
    Path(__file__).resolve().parents[1] / "docs" / "seeds" / "000_646bc4c5c3dfdfed.txt"
).read_text(encoding="utf-8")


def die7(length: int = 40) -> np.ndarray:
    """One d10 with 10-again, 7+: P(0)=0.6; P(k)=0.3[k=1] + 0.1 P(k-1)."""
    p = np.zeros(length)
    p[0] = 0.6
    for k in range(1, length):
        p[k] = (0.3 if k == 1 else 0.0) + 0.1 * p[k - 1]
    return p


def pool7(n: int) -> np.ndarray:
    """A1 pool of ``n`` >= 1 dice."""
    out = np.array([1.0])
    for _ in range(n):
        out = np.convolve(out, die7())[:40]
    return out


def within(p_mc: float, p: float, n: int) -> bool:
    return abs(p_mc - p) <= 5 * sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


def f7(name="x", FOR=3, DES=3, SAB=3, CON=3, DET=2, AUT=2, **kw) -> c7.Combatant:
    return c7.Combatant(name, FOR=FOR, DES=DES, SAB=SAB, CON=CON, DET=DET, AUT=AUT, **kw)


HEAVY = c7.Weapon("heavy_melee", 2, initiative=-1, defense=-1)
# FOR 8 + 2 (specialized) + 2 (heavy) = 12 dice; damage = successes + 2 (A7, A10).
SLAYER = f7("slayer", FOR=8, weapon=HEAVY, specialized=True)
VICTIM = f7("victim", DES=1, SAB=1, CON=1)  # Defense 1, vitality 8, CON 1 (A8, A14)


# ------------------------------------------------------------------ dice_pool_7


def test_a_g8_burst_penalty_comes_off_after_the_a2_cap():
    """A-g8: the seed caps "MODIFICADORES (de equipamento ou situacional ... até no máximo
    +5/-5)" and, for bursts, says "subtraia o número de alvos do número de dados do Teste"
    — the targets come off the test's dice, after the cap (default ``after_cap``).

    Masterwork rifle (+2 weapon, +1 quality), long burst (+3): 6 → capped 5; 4 targets:
    after the cap 4 + 5 − 4 − Defense 1 = 4 dice; inside the cap 4 + (6 − 4) − 1 = 5.
    One round, two attacks on each of 4 targets; hits ~ 8 × P(hit).
    """
    assert "subtraia o número de alvos do número de dados do Teste" in SEED7
    assert "até no máximo +5/-5" in SEED7
    assert c7.DEFAULT.burst_penalty == "after_cap"
    rifle = c7.Weapon("rifle", 2, ranged=True, automatic=True, damage_type="ballistic")
    shooter = f7("s", DES=4, AUT=5, weapon=rifle, burst="long", quality=1)
    dummy = f7("d", FOR=1, DES=1, SAB=1, CON=10, AUT=1)
    n = 40_000
    for order, dice in (("after_cap", 4), ("inside_cap", 5)):
        v = c7.Variants(chance_die=False, burst_penalty=order)
        st = c7.fight_mc([shooter], [dummy] * 4, n, seed=3, variants=v, round_cap=1)
        p = 1.0 - pool7(dice)[0]
        mean = st.hits.sum() / n
        assert abs(mean - 8 * p) <= 5 * sqrt(8 * p * (1 - p) / n) + 1 / n, order


def _one_hit_by_hand7():
    """SLAYER on VICTIM: 12 − 1 = 11 dice, damage s + 2; vitality 8, CON 1 (A14, A15).

    Drops at s + 2 >= 8 (s >= 6); dead at once when the excess s + 2 − 8 >= CON 1
    (s >= 7); s = 6 leaves it dying (vitality full of lethal damage, CON 1 left).
    """
    p = pool7(11)
    return float(p[7:].sum()), float(p[6])


def test_one_hit_fates_leave_first_aid_and_horizon():
    """A15 + A-g9 + A-g10: one hit's dead / dying / out, by hand."""
    dead, dying = _one_hit_by_hand7()
    r = c7.one_hit(SLAYER, VICTIM)  # leave: the dying stay dying (no bleeding rule)
    assert r["p_kill"] == pytest.approx(dead, abs=1e-10)
    assert (r["p_dead"], r["p_dying"], r["p_out"]) == pytest.approx((dead, dying, 0.0), abs=1e-10)
    assert r["p_dead"] + r["p_dying"] + r["p_out"] == pytest.approx(r["p_incapacitate"])
    # first aid: 2 dice, P(no success) = 0.6^2 = 0.36 per try (A1)
    r = c7.one_hit(SLAYER, VICTIM, c7.Variants(aftermath="first_aid"))
    assert (r["p_dying"], r["p_out"]) == pytest.approx((0.36 * dying, 0.64 * dying), abs=1e-10)
    r = c7.one_hit(SLAYER, VICTIM, c7.Variants(aftermath="first_aid", first_aid_tries=3))
    assert r["p_dying"] == pytest.approx(0.36**3 * dying, abs=1e-10)
    r = c7.one_hit(SLAYER, VICTIM, c7.Variants(leave_horizon="day"))
    assert (r["p_dying"], r["p_out"]) == pytest.approx((0.0, dying), abs=1e-10)
    # bashing never kills: a knock-out is "out" (A14)
    fists = f7("fists", FOR=10, specialized=True)  # 12 − 1 = 11 dice, damage s
    r = c7.one_hit(fists, VICTIM)
    assert r["p_dead"] == 0.0
    assert r["p_dying"] == 0.0
    assert r["p_out"] == pytest.approx(float(pool7(11)[8:].sum()), abs=1e-10)


def test_one_hit_fates_finish():
    """A-g11, A-g12: the dying victim (CON 1 to go) takes 2 attacks a round from SLAYER
    with no Defense: 12 dice, any hit deals >= 3 and kills. One round: P(dead) =
    1 − (0.6^12)^2. Finishing a bashing knock-out (A11: the unarmed attacker chooses
    lethal damage): 8 vitality + 1 CON = 9 lethal points; damage = s, so with
    ``finish_bashing = bashing`` nothing dies."""
    dead, dying = _one_hit_by_hand7()
    v = c7.Variants(aftermath="finish", finish_rounds=1)
    r = c7.one_hit(SLAYER, VICTIM, v)
    miss = 0.6**12
    assert r["p_dead"] == pytest.approx(dead + dying * (1 - miss**2), abs=1e-10)
    assert r["p_dying"] == pytest.approx(dying * miss**2, abs=1e-10)
    fists = f7("fists", FOR=10, specialized=True)
    assert (
        c7.one_hit(fists, VICTIM, c7.Variants(aftermath="finish", finish_bashing="bashing"))[
            "p_dead"
        ]
        == 0.0
    )
    # lethal fists, 2 attacks of 12 dice: dead when the two totals reach 9 points
    v1 = c7.Variants(aftermath="finish", finish_rounds=1)
    p12 = pool7(12)
    kill2 = sum(p12[i] * p12[j] for i in range(40) for j in range(40) if i + j >= 9)
    knocked = float(pool7(11)[8:].sum())
    assert c7.one_hit(fists, VICTIM, v1)["p_dead"] == pytest.approx(knocked * kill2, abs=1e-9)


MATCH7 = [("competent_swordsman", "expert_brawler"), ("soldier", "bodyguard")]


@pytest.mark.parametrize(("a", "b"), MATCH7)
@pytest.mark.parametrize("policy", AFTERMATHS)
def test_dice_pool_7_exact_fates_match_mc(a, b, policy):
    """Lethality outcomes: exact duel vs Monte Carlo, dead / dying / out per winner."""
    v = c7.Variants(aftermath=policy)
    ex = c7.duel_exact(LIB7[a], LIB7[b], v, round_cap=30)
    mc = c7.duel_mc(LIB7[a], LIB7[b], 40_000, seed=21, variants=v, round_cap=30)
    _check_fates(ex, mc)


def _check_fates(ex, mc) -> None:
    n = mc.trials
    assert np.allclose(ex.loser_fate.sum(axis=1), ex.outcome[:2])
    assert np.allclose(ex.fates.sum(axis=1), 1.0)
    assert np.array_equal(mc.loser_fate.sum(axis=1), mc.outcome[:2])
    assert np.array_equal(mc.fates.sum(axis=1), [n, n])
    assert np.array_equal(mc.deaths, mc.fates[:, 1])
    assert np.array_equal(mc.loser_dead, mc.loser_fate[:, 0])
    for name in ("loser_fate", "fates"):
        p, got = getattr(ex, name).ravel(), getattr(mc, name).ravel() / n
        for x, y in zip(p, got, strict=True):
            assert within(y, x, n), (name, p, got)


def test_aftermath_leaves_the_fight_stream_alone():
    """The aftermath draws from its own stream: outcome, rounds, hits and standing are
    bit-identical under every policy (N-vs-M, both systems)."""
    a, b = LIB7["competent_swordsman"], LIB7["expert_brawler"]
    x, y = LIB6["competent_swordsman"], LIB6["expert_brawler"]
    runs7 = [
        c7.fight_mc([a, a], [b, b, b], 5000, seed=8, variants=c7.Variants(aftermath=p))
        for p in AFTERMATHS
    ]
    runs6 = [
        c6.fight_mc([x, x], [y, y, y], 5000, seed=8, variants=c6.Variants(aftermath=p))
        for p in AFTERMATHS
    ]
    for runs in (runs7, runs6):
        for other in runs[1:]:
            for name in ("outcome", "rounds", "hits", "standing"):
                assert np.array_equal(getattr(runs[0], name), getattr(other, name)), name


@pytest.mark.parametrize("mod", [c7, c6])
def test_group_fates_invariants_and_finish(mod):
    """N-vs-M: per-side fates sum to size × trials; losers' fates to at most their size
    per decided fight; a long finish kills every fallen foe (no Defense, 100 rounds)."""
    lib = LIB7 if mod is c7 else LIB6
    a, b = lib["competent_swordsman"], lib["novice_brawler"]
    n = 4000
    st = mod.fight_mc(
        [a, a], [b, b, b], n, seed=5, variants=mod.Variants(aftermath="finish", finish_rounds=100)
    )
    assert np.array_equal(st.fates.sum(axis=1), [2 * n, 3 * n])
    assert np.array_equal(st.deaths, st.fates[:, 1])
    sizes = np.array([3, 2])
    assert (st.loser_fate.sum(axis=1) == sizes * st.outcome[:2]).all()
    assert st.loser_fate[:, 1:].sum() == 0  # every loser ends dead
    assert np.array_equal(st.loser_dead, st.outcome[:2])
    assert (st.fates_sq >= st.fates).all()
    assert (st.loser_fate_sq >= st.loser_fate).all()
    mean, _se = st.p_side_fates()
    assert np.allclose(mean.sum(axis=1), 1.0)


@pytest.mark.parametrize("mod", [c7, c6])
def test_fates_same_on_one_and_two_threads(mod):
    """Both streams are chunked: bit-identical on 1 and 2 threads, finish included."""
    lib = LIB7 if mod is c7 else LIB6
    a, b = lib["competent_swordsman"], lib["expert_brawler"]
    v = mod.Variants(aftermath="finish")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = mod.fight_mc([a, a], [b], 20_000, seed=4, variants=v)
        numba.set_num_threads(2)
        two = mod.fight_mc([a, a], [b], 20_000, seed=4, variants=v)
    finally:
        numba.set_num_threads(before)
    for name in ("loser_fate", "loser_fate_sq", "fates", "fates_sq", "deaths", "loser_dead"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name


# ------------------------------------------------------------------ dice_pool_6


def binom_half(n: int) -> np.ndarray:
    """C1 6+ on a d10 (p = 1/2) with C-g2 criticals off: Binomial(n, 1/2)."""
    return np.array([comb(n, k) for k in range(n + 1)]) / 2.0**n


def f6(name="x", att=(3, 3), dodge=(0, 0), stamina=0, **kw) -> c6.Combatant:
    return c6.Combatant(name, att[0], att[1], dodge[0], dodge[1], stamina=stamina, **kw)


def test_c_g5_death_default_and_one_hit_by_hand():
    """C-g5: dead at 2 × health by default (V5 reading). 6 dice vs 0 dodge dice, +0
    weapon, criticals off: damage = successes ~ Bin(6, 1/2); health 3 (C6).
    Drops at >= 3; dead at once at >= 6; else out (C-g6: no dying)."""
    assert c6.DEFAULT.death == "double_health"
    a, t = f6("a"), f6("t")
    p = binom_half(6)
    v = c6.Variants(criticals=False)
    r = c6.one_hit(a, t, v)
    assert r["p_incapacitate"] == pytest.approx(p[3:].sum(), abs=1e-12)
    assert (r["p_dead"], r["p_dying"], r["p_out"]) == pytest.approx(
        (p[6], 0.0, p[3:6].sum()), abs=1e-12
    )
    assert r["p_kill"] == pytest.approx(p[6], abs=1e-12)
    assert c6.one_hit(a, t, c6.Variants(criticals=False, aftermath="first_aid")) == r
    never = c6.one_hit(a, t, c6.Variants(criticals=False, death="never"))
    assert never["p_dead"] == 0.0
    assert never["p_out"] == pytest.approx(p[3:].sum())
    at = c6.one_hit(a, t, c6.Variants(criticals=False, death="at_health"))
    assert at["p_dead"] == pytest.approx(p[3:].sum(), abs=1e-12)
    # finish, one round: one more attack (6 dice vs 0) must deal 6 − damage so far
    fin = c6.one_hit(a, t, c6.Variants(criticals=False, aftermath="finish", finish_rounds=1))
    dead = p[6] + sum(p[k] * p[6 - k :].sum() for k in range(3, 6))
    assert fin["p_dead"] == pytest.approx(dead, abs=1e-12)
    assert fin["p_dead"] + fin["p_out"] == pytest.approx(p[3:].sum(), abs=1e-12)


def test_c_g7_helpless_dodge_variant():
    """C-g7: with ``helpless_dodge = full`` the target's dodge pool opposes the finisher."""
    a, t = f6("a"), f6("t", dodge=(3, 3))
    none = c6.one_hit(a, t, c6.Variants(aftermath="finish", finish_rounds=1))
    full = c6.one_hit(a, t, c6.Variants(aftermath="finish", finish_rounds=1, helpless_dodge="full"))
    assert full["p_dead"] < none["p_dead"]
    assert full["p_incapacitate"] == none["p_incapacitate"]


def test_c_g7_full_dodge_loses_a_die_per_finishing_attack_c13():
    """C-g7 with C13: under ``helpless_dodge = full`` each finishing attack on a fallen
    foe after the first in a round meets one die fewer ("apanhando = menos um dado a cada
    ataque sucessivo"), as in the fight. Three novice brawlers finishing an expert
    brawler: the kernel against the rules-first simulator (5 SE of the difference); the
    reading that ignored C13 gave P(side 1 dead) 0.129 (200,000 fights, seed 1), C13
    gives 0.185."""
    import random

    from combat_pools_reference import fight6

    side0, side1 = [LIB6["novice_brawler"]] * 3, [LIB6["expert_brawler"]]
    v = c6.Variants(aftermath="finish", helpless_dodge="full")
    n_mc, n_ref = 100_000, 6_000
    p_mc = c6.fight_mc(side0, side1, n_mc, seed=1, variants=v).deaths[1] / n_mc
    rng = random.Random(11)
    ref = [fight6(rng, side0, side1, aftermath="finish", helpless="full") for _ in range(n_ref)]
    p_ref = sum(r["dead"][1] for r in ref) / n_ref
    p = (p_mc * n_mc + p_ref * n_ref) / (n_mc + n_ref)
    assert abs(p_mc - p_ref) <= 5 * sqrt(p * (1 - p) * (1 / n_mc + 1 / n_ref)) + 1 / n_ref
    assert p_mc == pytest.approx(0.185, abs=0.006)  # 5 SE at n = 100,000
    # helpless_dodge = zero: 0 dice whatever C13 takes, unchanged
    zero = c6.fight_mc(side0, side1, n_mc, seed=1, variants=c6.Variants(aftermath="finish"))
    assert zero.deaths[1] / n_mc == pytest.approx(0.2896, abs=0.007)


MATCH6 = [("competent_swordsman", "expert_brawler"), ("master_rifleman", "gunman_in_the_open")]


@pytest.mark.parametrize(("a", "b"), MATCH6)
@pytest.mark.parametrize("policy", AFTERMATHS)
def test_dice_pool_6_exact_fates_match_mc(a, b, policy):
    """Lethality outcomes: exact duel vs Monte Carlo (C-g5..C-g7)."""
    v = c6.Variants(aftermath=policy)
    ex = c6.duel_exact(LIB6[a], LIB6[b], v, round_cap=30)
    mc = c6.duel_mc(LIB6[a], LIB6[b], 40_000, seed=22, variants=v, round_cap=30)
    _check_fates(ex, mc)
