"""Conflicts in ``dice_pool_6`` (RULES.md C6, C10–C13 and gaps C-g1, C-g2, C-g4).

Oracles: pools enumerated die by die (every face combination), hand-worked contests,
and the rules-first pure-Python simulator (``combat_pools_reference``). Monte Carlo vs
exact: ``|p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n``, fixed seeds.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from functools import cache
from math import sqrt
from pathlib import Path

import numba
import numpy as np
import pytest
from combat_pools_reference import fight6

from analysis.combat.archetypes import combatants
from engines.errors import InputError
from engines.systems.dice_pool_6 import combat as cb
from engines.systems.dice_pool_6.combat import Combatant, Variants, Weapon
from engines.variants import parse_variants

LIB = combatants("dice_pool_6")


@cache
def brute_pmf(n: int) -> np.ndarray:
    """C1 (6+) and C-g2 (each pair of 10s: +2) by enumerating all 10^n rolls."""
    out = np.zeros(3 * max(n, 1) + 2)
    for faces in itertools.product(range(1, 11), repeat=max(n, 0)):
        s = sum(f >= 6 for f in faces) + 2 * (sum(f == 10 for f in faces) // 2)
        out[s] += 1
    return out / out.sum()


def p_win(att: int, dodge: int, tie_needs_success: bool = False) -> float:
    """C10: the challenger wins with equal or more successes."""
    a, d = brute_pmf(att), brute_pmf(max(dodge, 0))
    return float(
        sum(a[i] * d[: i + 1].sum() for i in range(a.size) if not (tie_needs_success and i == 0))
    )


def fighter(name="x", att=(2, 1), dodge=(2, 0), stamina=2, **kw) -> Combatant:
    return Combatant(name, att[0], att[1], dodge[0], dodge[1], stamina=stamina, **kw)


DUMMY = fighter("dummy", att=(0, 0), dodge=(2, 0), stamina=10)
NO_TIES = Variants(tie_needs_success=True)


def assert_mc_matches_exact(mc, ex) -> None:
    n = mc.trials
    for name in ("outcome", "rounds", "loser_dead", "standing"):
        p = getattr(ex, name).ravel()
        p_mc = getattr(mc, name).ravel() / n
        tol = 5 * np.sqrt(np.clip(p * (1 - p), 0, None) / n) + 1 / n
        bad = np.abs(p_mc - p) > tol
        assert not bad.any(), (name, np.flatnonzero(bad), p[bad], p_mc[bad])


def test_c6_health_and_willpower():
    """C6: health = Stamina + 3; willpower = Composure + Resolve."""
    c = fighter(stamina=2, composure=3, resolve=1)
    assert c.health == 5
    assert c.willpower == 4
    assert fighter(att=(3, 2), specialty=True).attack_pool == 6  # C5: +1 die


@pytest.mark.parametrize(("att", "dodge"), [(1, 1), (2, 1), (3, 2), (2, 4), (4, 3), (0, 2)])
def test_c10_contest_win_probability(att, dodge):
    """C10: P(win) = P(attack successes >= dodge successes), pools by enumeration."""
    a = fighter(att=(att, 0))
    t = fighter(dodge=(dodge, 0))
    assert cb.hit_probability(a, t) == pytest.approx(p_win(att, dodge), abs=1e-12)
    assert cb.hit_probability(a, t, NO_TIES) == pytest.approx(p_win(att, dodge, True), abs=1e-12)


def test_c11_damage_margin_plus_weapon_and_c_g4():
    """C11 damage = margin + weapon; C-g4 margin 0 with a +0 weapon: 0 (or 1)."""
    one = fighter(att=(1, 0))
    bare = fighter(dodge=(0, 0))
    # one die vs no dice: 0-0 ties (p 0.5, the challenger wins) and 1-0 wins (p 0.5)
    assert np.allclose(cb.attack_damage(one, bare)[:2], [0.5, 0.5])
    assert np.allclose(cb.attack_damage(one, bare, Variants(min_damage=True))[:2], [0.0, 1.0])
    club = replace(one, weapon=Weapon("club", 2))
    assert np.allclose(cb.attack_damage(club, bare)[:4], [0, 0, 0.5, 0.5])
    assert np.allclose(cb.attack_damage(club, bare, NO_TIES)[:4], [0.5, 0, 0, 0.5])
    # two dice vs one: margin distribution by enumeration
    a2, d1 = brute_pmf(2), brute_pmf(1)
    two = fighter(att=(2, 0))
    dmg = cb.attack_damage(two, fighter(dodge=(1, 0)))
    for m in range(1, 5):
        want = sum(a2[i] * d1[i - m] for i in range(m, a2.size) if i - m < d1.size)
        assert dmg[m] == pytest.approx(want, abs=1e-12)


def test_c12_cover_against_ranged_attacks():
    """C12: vs a ranged attack the defender rolls −2 dice in the open, +1 / +2 in cover."""
    gun = fighter(att=(3, 0), weapon=Weapon("pistol", 2, ranged=True))
    knife = fighter(att=(3, 0), weapon=Weapon("knife", 2))
    for cover, shift in (("none", -2), ("partial", 1), ("full", 2)):
        t = fighter(dodge=(3, 0), cover=cover)
        assert cb.hit_probability(gun, t) == pytest.approx(p_win(3, 3 + shift), abs=1e-12)
        assert cb.hit_probability(knife, t) == pytest.approx(p_win(3, 3), abs=1e-12)


def test_c13_defender_loses_a_die_per_attack():
    """C13: the second attack on a defender in a round faces one die fewer.

    Two attackers, one dummy (never wins, never drops in a round): expected hits in
    round 1 = P(win vs 2 dice) + P(win vs 1 die). Each attack is an independent
    Bernoulli, so the mean hit count has SE sqrt(sum p(1-p) / n).
    """
    a = fighter("a", att=(3, 0))
    n = 40_000
    st = cb.fight_mc([a, a], [DUMMY], n, seed=1, variants=NO_TIES, round_cap=1)
    ps = [p_win(3, 2, True), p_win(3, 1, True)]
    se = sqrt(sum(p * (1 - p) for p in ps) / n)
    assert abs(st.hits.sum() / n - sum(ps)) <= 5 * se + 1 / n


def test_c13_attacker_splits_its_dice():
    """C13: a splitting attacker deals its 5 dice as 3 + 2 over two enemies."""
    a = fighter("a", att=(5, 0), split=True)
    n = 40_000
    st = cb.fight_mc([a], [DUMMY, DUMMY], n, seed=2, variants=NO_TIES, round_cap=1)
    ps = [p_win(3, 2, True), p_win(2, 2, True)]
    se = sqrt(sum(p * (1 - p) for p in ps) / n)
    assert abs(st.hits.sum() / n - sum(ps)) <= 5 * se + 1 / n


def test_order_variants_by_hand():
    """C11 order gap: who strikes first in round 1 (exact, by hand from one attack)."""
    a = fighter("a", att=(4, 0), stamina=0, weapon=Weapon("axe", 3))  # health 3
    b = replace(a, name="b")
    p_drop = float(cb.attack_damage(a, b)[3:].sum())
    first = cb.duel_exact(a, b, Variants(order="side0_first"), round_cap=1)
    assert first.rounds[1, 0] == pytest.approx(p_drop, abs=1e-12)
    assert first.rounds[1, 1] == pytest.approx((1 - p_drop) * p_drop, abs=1e-12)
    coin = cb.duel_exact(a, b, round_cap=1)
    both = 0.5 * p_drop + 0.5 * (1 - p_drop) * p_drop
    assert coin.rounds[1, 0] == pytest.approx(both, abs=1e-12)


def test_death_variant():
    """C-g5: dead at 2 × health damage by default (V5 reading); ``never``: no death."""
    a = fighter("a", att=(6, 0), stamina=0, weapon=Weapon("shotgun", 4))
    assert cb.duel_exact(a, a, Variants(death="never")).loser_dead.sum() == 0.0
    ex = cb.duel_exact(a, a)
    # round 1, first strike: dead when damage >= 6
    assert ex.loser_dead.sum() >= 0.5 * float(cb.attack_damage(a, a)[6:].sum())
    mc = cb.duel_mc(a, a, 100_000, seed=3)
    assert_mc_matches_exact(mc, ex)


MATCHUPS = [
    ("competent_swordsman", "competent_swordsman", {}),
    ("expert_brawler", "competent_shooter", {}),
    ("master_rifleman", "gunman_in_the_open", {"order": "random_fight"}),
    ("novice_knife_fighter", "street_thug", {"min_damage": "true", "criticals": "false"}),
    (
        "untrained_swordsman",
        "novice_brawler",
        {"tie_needs_success": "true", "order": "side0_first", "threshold": "7"},
    ),
]


@pytest.mark.parametrize(("a", "b", "variants"), MATCHUPS)
def test_mc_matches_exact_duels(a, b, variants):
    """C6, C10–C12: Monte Carlo duels agree with the exact chain cell by cell."""
    v = parse_variants(Variants, variants)
    ex = cb.duel_exact(LIB[a], LIB[b], v, round_cap=30)
    assert ex.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    mc = cb.duel_mc(LIB[a], LIB[b], 100_000, seed=12, variants=v, round_cap=30)
    assert_mc_matches_exact(mc, ex)


@pytest.mark.parametrize(
    ("a", "b"),
    [("expert_brawler", "competent_shooter"), ("master_knife_fighter", "novice_swordsman")],
)
def test_mc_hits_match_exact(a, b):
    """Expected hits per fight by damage dealt (A10/C11 damage, per successful attack).

    A fight of 3 rounds has at most m = 2 × 3 hits, so a bin's count X per fight
    has Var X <= E[X^2] <= m E[X]: tolerance 5 sqrt(m E[X] / n) + 1/n.
    """
    ex = cb.duel_exact(LIB[a], LIB[b], round_cap=3)
    n = 100_000
    mc = cb.duel_mc(LIB[a], LIB[b], n, seed=21, round_cap=3)
    m = 2 * 3
    tol = 5 * np.sqrt(m * ex.hits / n) + 1 / n
    assert np.all(np.abs(mc.hits / n - ex.hits) <= tol)
    assert ex.hits.sum() > 0.5


@pytest.mark.slow
def test_n_vs_m_matches_pure_python_reference():
    """C13 in full fights: kernel vs the rules-first simulator (5 SE of the difference)."""
    side0 = [LIB["expert_knife_fighter"], LIB["novice_shooter"]]
    side1 = [LIB["competent_swordsman"], LIB["competent_brawler"], LIB["untrained_rifleman"]]
    n_ref, n_mc = 6_000, 60_000
    rng = random.Random(3)
    ref = [fight6(rng, side0, side1, cap=20) for _ in range(n_ref)]
    mc = cb.fight_mc(side0, side1, n_mc, seed=8, round_cap=20)
    for w in range(3):
        p_ref = sum(r["winner"] == w for r in ref) / n_ref
        p_mc = mc.outcome[w] / n_mc
        p = (p_ref * n_ref + p_mc * n_mc) / (n_ref + n_mc)
        assert abs(p_ref - p_mc) <= 5 * sqrt(p * (1 - p) * (1 / n_ref + 1 / n_mc)) + 1 / n_ref
    counts = [len(r["hits"]) for r in ref]
    assert abs(mc.hits.sum() / n_mc - np.mean(counts)) <= 5 * np.std(counts) * sqrt(
        1 / n_ref + 1 / n_mc
    )


def test_the_fallen_do_not_act():
    """C6: a combatant put down earlier in the round takes no turn.

    Side 0 acts first (variant ``order``); K's every win deals 11 or more (a +10 weapon,
    a margin of at least 1) and its 10 dice beat V's empty dodge pool unless all fail
    (P = 0.5^10), so V (health 3) falls before its turn. V would score small wins
    against K if it acted: no hit below 10 appears (V's 3 dice against K's 10 dodge
    dice win too rarely to matter in the ~20 fights where K misses).
    """
    k = fighter("K", att=(10, 0), dodge=(10, 0), stamina=10, weapon=Weapon("doom", 10))
    v = fighter("V", att=(3, 0), dodge=(0, 0), stamina=0)
    n = 20_000
    v_ = Variants(order="side0_first", targeting="first", tie_needs_success=True)
    st = cb.fight_mc([k], [v, DUMMY], n, seed=5, variants=v_, round_cap=1)
    assert st.hits[:10].sum() == 0
    # K misses ~ n / 1024 times: 5 standard errors above that is 20 + 22
    assert st.hits[10:].sum() >= n - 42


def test_invariants_n_vs_m():
    """Outcomes add up, standing never grows, deaths ≤ combatants, losers all down."""
    side0 = [LIB["master_swordsman"]]
    side1 = [LIB["novice_brawler"], LIB["novice_knife_fighter"]]
    n = 20_000
    st = cb.fight_mc(
        side0, side1, n, seed=4, variants=Variants(death="double_health"), round_cap=15
    )
    assert st.outcome.sum() == n
    assert np.all(np.diff(st.standing, axis=0) <= 0)
    assert tuple(st.standing[0]) == (n, 2 * n)
    assert st.deaths[0] <= n
    assert st.deaths[1] <= 2 * n
    assert np.all(st.loser_dead <= st.outcome[:2])
    assert st.standing[-1, 0] <= n - st.outcome[1]


def test_same_result_on_one_and_two_threads():
    a, b = LIB["expert_knife_fighter"], LIB["expert_brawler"]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cb.fight_mc([a], [b, b], 100_000, seed=6)
        numba.set_num_threads(2)
        two = cb.fight_mc([a], [b, b], 100_000, seed=6)
    finally:
        numba.set_num_threads(before)
    for name in ("outcome", "rounds", "loser_dead", "standing", "deaths", "hits"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name


SOURCE = (Path(__file__).parents[1] / "engines/systems/dice_pool_6/archetypes.toml").read_text()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ('style = "brawler"\nweapon = "light_melee"', 'style = "brawler"\nweapon = "lazer"'),
            "dice_pool_6.toml: archetypes.street_thug.weapon: unknown weapon 'lazer'; known: "
            "heavy_melee, heavy_ranged",
        ),
        (("damage = 4", "damage = 11"), "weapons.shotgun.damage: Input should be less than"),
        (('cover = "full"', 'cover = "bunker"'), "styles.rifleman.cover: Input should be"),
        (("stamina = 4", "stamina = -1"), "levels.master.stamina"),
        (("[levels.untrained]", "[levels.hopeless]"), "levels.hopeless: not a rung"),
        (
            ('style = "shooter"', 'style = "sniper"'),
            "archetypes.gunman_in_the_open.style: unknown style 'sniper'",
        ),
    ],
)
def test_archetype_file_validation(tmp_path, edit, message):
    old, new = edit
    assert old in SOURCE
    p = tmp_path / "dice_pool_6.toml"
    p.write_text(SOURCE.replace(old, new, 1))
    with pytest.raises(InputError) as err:
        combatants("dice_pool_6", p)
    assert message in str(err.value)


def test_bad_inputs_raise_input_error():
    with pytest.raises(InputError, match="round_cap"):
        cb.duel_exact(DUMMY, DUMMY, round_cap=-1)
    with pytest.raises(InputError, match="cover"):
        cb.row(fighter(cover="trench"))
    with pytest.raises(InputError, match="order"):
        parse_variants(Variants, ["order=alphabetical"])
    with pytest.raises(InputError, match="variants"):
        cb.duel_mc(DUMMY, DUMMY, 10, variants="fast")


def test_every_variant_parses_from_text():
    """Each combat variant's every choice round-trips through NAME=VALUE (the CLI path)."""
    import dataclasses

    for f in dataclasses.fields(Variants):
        for choice in f.metadata["choices"] or ():
            text = "none" if choice is None else str(choice).lower()
            assert getattr(parse_variants(Variants, [f"{f.name}={text}"]), f.name) == choice
