"""middle_3d10 combat (RULES.md B6–B11, gaps B-g4…B-g9): rule-level tests against
hand-worked numbers and brute-force enumeration, Monte Carlo vs the exact Markov chain,
thread invariance, invariants, archetype validation."""

from __future__ import annotations

import itertools
from math import sqrt

import numba
import numpy as np
import pytest

from analysis.combat.archetypes import combatants, library
from engines.errors import InputError
from engines.fight import HIST_FIELDS
from engines.systems.middle_3d10 import combat as cm
from engines.systems.middle_3d10.combat import Combatant, Variants
from engines.variants import parse_variants

LIB = combatants("middle_3d10")


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def p_middle_at_least(k: int) -> float:
    """P(C ≥ k) of 3d10 keep-the-middle: at least two dice ≥ k (closed form)."""
    p = min(1.0, max(0.0, (11 - k) / 10))
    return 3 * p * p * (1 - p) + p**3


def p_check(k: int) -> float:
    """P(a check needing C ≥ k succeeds) with B3: two 10s always, two 1s never."""
    if k <= 1:
        return 1 - 0.028
    if k >= 11:
        return 0.028
    return p_middle_at_least(k)


def brute_attack(att: Combatant, defense: int, adv: bool = False, crit_bonus: int = 0):
    """Brute force over the 1000 rolls: {damage: probability}, 0 = miss (B1, B3, B7, B8)."""
    out: dict[int, float] = {}
    for dice in itertools.product(range(1, 11), repeat=3):
        lo, mid, hi = sorted(dice)
        tens, ones = dice.count(10), dice.count(1)
        kept = hi if adv else mid
        hit = tens >= 2 or (ones < 2 and kept + att.trait + att.combat >= defense)
        d = 0
        if hit:
            picks = {"m": lo, "C": mid, "M": hi}
            bonus = att.combat // 4 if att.ranged else (att.strength + att.combat) // 4
            d = sum(picks[c] for c in att.dice) + bonus + (crit_bonus if tens >= 2 else 0)
        out[d] = out.get(d, 0.0) + 1e-3
    return out


def as_array(pmf: dict[int, float]) -> np.ndarray:
    arr = np.zeros(max(pmf) + 1)
    for k, v in pmf.items():
        arr[k] += v
    return arr


# --------------------------------------------------------------- rule level


def test_b6_b7_bear_vs_flat_footed_gangster():
    """Seed 001's example (B6, B7): the gangster's Defense 10 (an explicit stat, B-g5)
    drops to 7 while flat-footed."""
    bear, gangster = LIB["bear"], LIB["gangster"]
    assert gangster.defense == 10
    assert not gangster.aware
    weak = Combatant(name="weak", trait=1, combat=1, dice="M")  # modifier 2
    # hit when C + 2 ≥ 7 (flat-footed) or ≥ 10: P(C ≥ 5) = 0.648, P(C ≥ 8) = 0.216
    flat = cm.attack_damage(weak, gangster, flat_footed=True)
    alert = cm.attack_damage(weak, gangster, flat_footed=False)
    assert 1 - flat[0] == pytest.approx(p_middle_at_least(5)) == pytest.approx(0.648)
    assert 1 - alert[0] == pytest.approx(p_middle_at_least(8)) == pytest.approx(0.216)
    # the bear (6 + 5) always beats Defense 7 except on two or three 1s (B3): 28 / 1000
    pmf = cm.attack_damage(bear, gangster, flat_footed=True)
    assert pmf[0] == pytest.approx(0.028)
    np.testing.assert_allclose(pmf, as_array(brute_attack(bear, 7)), atol=1e-12)


def test_b6_surprise_round_only_the_aware_act():
    """B6: a surprise round (bear aware, gangster not) → only the bear attacks in it
    (before round 1; the tables count it with round 1, round 0 being the start); B8 claws
    M + ⌊(9 + 5)/4⌋, B9 dying at 3 × Vigor, B10 massive check C + 3 ≥ 12."""
    bear, gangster = LIB["bear"], LIB["gangster"]
    res = cm.duel_exact(bear, gangster, round_cap=1)
    p_fail_massive = 1 - p_middle_at_least(12 - 3)
    expect = 0.0
    for d, p in brute_attack(bear, 7).items():
        if d >= 9:
            expect += p
        elif d >= 3:
            expect += p * p_fail_massive
    # the standing after round 1 (surprise round included) and the rounds table agree:
    # round 0 is the start, so no fight ends in it
    assert res.rounds[0].sum() == 0.0
    assert res.standing[0].tolist() == [1.0, 1.0]
    # the gangster, who does not act in the surprise round, can win only if it survives it
    assert res.rounds[1, 1] <= 1 - expect
    assert res.rounds[1, 0] > expect
    assert res.standing[1, 1] == pytest.approx(1 - res.rounds[1, 0])
    mc = cm.duel_mc(bear, gangster, trials=40_000, seed=5, round_cap=1)
    assert mc.rounds[0].sum() == 0
    p1 = float(res.rounds[1, 0])
    assert abs(mc.rounds[1, 0] / 40_000 - p1) <= tol(p1, 40_000)


def test_b6_surprise_round_is_before_the_first_normal_round():
    """B6, seed 001: "ocorre um ataque surpresa antes da primeira rodada normal" — the
    surprise round comes before round 1 and the round cap counts normal rounds only; the
    tables count it with round 1 (round 0 is the start, in ``rounds`` as in ``standing``).

    A (aware, reflex 9: first in every normal round under initiative = reflex) hits the
    unaware B with C + 2 ≥ 10 − 3 (B is flat-footed until it acts, and A acts first), so
    p = P(C ≥ 5) = 0.648 per attack; every hit drops B: damage ≥ m + ⌊(10 + 1)/4⌋ ≥ 3 =
    3 × Vigor 1. B never hits (A's Defense 40, doubles off). With a cap of 1, A attacks
    twice (the surprise round, round 1): P(A wins) = 1 − 0.352² = 0.876096, all of it in
    round 1 of the tables (counting the surprise round against the cap would give 0.648
    only)."""
    a = Combatant(name="a", trait=1, combat=1, strength=10, reflex=9, defense=40, dice="m")
    b = Combatant(name="b", vigor=1, defense=10, reflex=1, aware=False)
    v = Variants(initiative="reflex", doubles=False)
    res = cm.duel_exact(a, b, v, round_cap=1)
    assert res.outcome[0] == pytest.approx(0.876096)
    assert res.rounds[0].sum() == 0.0  # round 0 is the start
    assert res.rounds[1, 0] == pytest.approx(0.876096)
    assert res.standing[0].tolist() == [1.0, 1.0]  # row 0 is the start
    assert res.standing[1, 1] == pytest.approx(1 - 0.876096)
    n = 40_000
    mc = cm.duel_mc(a, b, n, seed=8, variants=v, round_cap=1)
    assert mc.rounds[0].sum() == 0
    assert abs(mc.rounds[1, 0] / n - 0.876096) <= tol(0.876096, n)
    # a cap of 2: A's third attack is in round 2, B no longer flat-footed (C >= 8)
    two = cm.duel_exact(a, b, v, round_cap=2)
    assert two.rounds[2, 0] == pytest.approx(0.352**2 * p_middle_at_least(8))
    # without surprise (both aware) round 0 never happens
    both = cm.duel_exact(a, Combatant(name="b", vigor=1, defense=10, reflex=1), v, 1)
    assert both.rounds[0].sum() == 0.0
    assert both.outcome[0] == pytest.approx(0.648)


def test_b8_weapon_categories_in_data_match_the_rule():
    """B8: unarmed m, light C, blades M, small firearms m+M, medium C+M, heavy m+C+M."""
    import tomllib

    from engines.systems.middle_3d10.archetypes import DATA_FILE

    raw = tomllib.loads(DATA_FILE.read_text())
    expect = {
        "unarmed": (["m"], False),
        "light": (["C"], False),
        "blades": (["M"], False),
        "small_firearms": (["m", "M"], True),
        "medium_firearms": (["C", "M"], True),
        "heavy_firearms": (["m", "C", "M"], True),
    }
    got = {k: (v["dice"], v["ranged"]) for k, v in raw["categories"].items()}
    assert got == expect


@pytest.mark.parametrize(
    ("dice", "ranged", "bonus"),
    [
        ("m", False, 3),
        ("C", False, 3),
        ("M", False, 3),
        ("mM", True, 1),
        ("CM", True, 1),
        ("mCM", True, 1),
    ],
)
def test_b8_damage_reuses_attack_dice_and_bonus(dice, ranged, bonus):
    """B8: damage from the attack's own dice + ⌊(FOR + Combat)/4⌋ melee, ⌊Combat/4⌋ ranged."""
    att = Combatant(trait=4, combat=7, strength=6, dice=dice, ranged=ranged)
    assert att.damage_bonus == bonus  # (6 + 7) // 4 = 3, 7 // 4 = 1
    tgt = Combatant(defense=15)
    np.testing.assert_allclose(
        cm.attack_damage(att, tgt), as_array(brute_attack(att, 15)), atol=1e-12
    )


def test_b3_doubles_on_attacks():
    """B3: against an unreachable Defense only two or three 10s hit (28 / 1000); with the
    variant off nothing hits. B-g8: crit_bonus adds damage to those hits."""
    att = Combatant(trait=1, combat=1, dice="M")
    tgt = Combatant(defense=40)
    assert 1 - cm.attack_damage(att, tgt)[0] == pytest.approx(0.028)
    assert cm.attack_damage(att, tgt, Variants(doubles=False)).size == 1
    pmf = cm.attack_damage(att, tgt, Variants(crit_bonus=5))
    assert pmf.size - 1 == 10 + (3 + 1) // 4 + 5  # M = 10, bonus 1, crit bonus 5
    assert pmf[16] == pytest.approx(0.028)


@pytest.mark.parametrize("timing", ["after_miss", "before"])
def test_b4_drama_point_advantage(timing):
    """B4 / B-g7: a drama point re-rolls with advantage (keep M), after a miss or before."""
    att = Combatant(trait=3, combat=3, dice="C", drama=1, drama_tactic="early")
    tgt = Combatant(defense=12)
    normal, adv = brute_attack(att, 12), brute_attack(att, 12, adv=True)
    if timing == "before":
        expect = np.pad(as_array(adv), (0, 20))
    else:
        expect = as_array(normal)
        expect[0] = 0.0
        expect = np.pad(expect, (0, 20))[:20] + normal[0] * np.pad(as_array(adv), (0, 20))[:20]
    got = cm.attack_damage(att, tgt, Variants(drama_timing=timing), drama=True)
    np.testing.assert_allclose(np.pad(got, (0, 20 - got.size)), expect[:20], atol=1e-12)


def test_b9_health_states_and_penalties():
    """B9: −2 (wounded) / −5 (incapacitated) on attacks and on Defense; dying at 3 × Vigor."""
    att = Combatant(trait=4, combat=4, strength=4, dice="M")
    tgt = Combatant(defense=14)
    t = cm.attack_table(att, tgt, Variants(), 80)
    for ia, pa in enumerate((0, 2, 5)):
        for it, pt in enumerate((0, 2, 5)):
            # modifier 8 - pa vs Defense 14 - pt: needs C ≥ 6 + pa - pt
            assert 1 - t[ia, it, 0, 0, 0, 0] == pytest.approx(p_check(6 + pa - pt))
    assert [cm.wound_penalty(d, 4) for d in (0, 3, 4, 7, 8, 11, 12)] == [0, 0, 2, 2, 5, 5, -1]


@pytest.mark.parametrize(("vigor", "traits", "need"), [(4, "c_plus_vigor", 8), (6, "c_only", 12)])
def test_b10_massive_damage_check(vigor, traits, need):
    """B10 / B-g6: difficulty 12 with C + Vigor (or C alone; then only two 10s pass)."""
    expect = p_middle_at_least(need) if need <= 10 else 0.028
    assert cm.massive_pass(vigor, Variants(massive_traits=traits)) == pytest.approx(expect)


def test_b10_b11_massive_failure_means_dying_in_a_duel():
    """B10: a hit ≥ Vigor that fails the check takes every remaining point (→ dying);
    B11: one fight tracks one damage total (noted in the result)."""
    big = Combatant(trait=10, combat=10, strength=10, vigor=10, dice="mCM", ranged=True, reflex=10)
    frail = Combatant(vigor=10, defense=0, aware=False)  # damage 3..30 + 2, never 30 alone
    res = cm.duel_exact(big, frail, Variants(massive_traits="c_only"), round_cap=1)
    pmf = as_array(brute_attack(big, 0 - 3))  # damage m + C + M + ⌊10/4⌋
    # dying outright at 30; a hit of 10..29 passes C ≥ 12 only on two 10s (B3)
    p_kill = pmf[30:].sum() + pmf[10:30].sum() * (1 - 0.028)
    # the surprise round (B6) counts with round 1 of the table, where big (reflex 10)
    # attacks again first: its round-1 wins are at least the surprise attack's p_kill
    assert res.rounds[0].sum() == 0.0
    assert res.rounds[1, 0] >= p_kill - 1e-12
    assert "b11" in res.notes


@pytest.mark.parametrize("init", ["middle_plus_reflex", "reflex"])
def test_b_g4_initiative(init):
    """B-g4: P(a first) from 3d10 middle + reflex (ties: higher reflex, then a coin)."""
    a, b = Combatant(reflex=5), Combatant(reflex=3)
    p = cm.p_first(a, b, Variants(initiative=init))
    if init == "reflex":
        assert p == 1.0
    else:
        pm = [p_middle_at_least(k) - p_middle_at_least(k + 1) for k in range(1, 11)]
        brute = sum(pa * pb for i, pa in enumerate(pm) for j, pb in enumerate(pm) if i + 5 >= j + 3)
        assert p == pytest.approx(brute)


def test_variants_parse_and_reject():
    """Every gap is a named variant with a default (B-g4, B-g6, B-g7, B-g8, B-g9, B3)."""
    v = parse_variants(Variants, ["drama_timing=before", "crit_bonus=3", "targeting=random"])
    assert v.drama_timing == "before"
    assert v.crit_bonus == 3
    with pytest.raises(InputError, match="crit_bonus"):
        parse_variants(Variants, ["crit_bonus=99"])
    with pytest.raises(InputError, match="unknown variant"):
        parse_variants(Variants, ["bogus=1"])


# --------------------------------------------------------------- MC vs exact

MATCHUPS = [
    ("competent", "competent", Variants()),
    ("competent_swordsman", "competent_brawler", Variants()),
    ("expert", "competent_shooter", Variants(drama_timing="before", crit_bonus=2)),
    ("competent_armoured", "novice", Variants(initiative="reflex", massive_traits="c_only")),
    ("bear", "gangster", Variants()),
]


@pytest.mark.parametrize(("a", "b", "variants"), MATCHUPS)
def test_mc_matches_exact_duel(a, b, variants):
    """B6–B11 MC kernel vs the absorbing Markov chain: every outcome, rounds and standing
    cell within 5σ + 1/n (fixed seed)."""
    n = 100_000
    exact = cm.duel_exact(LIB[a], LIB[b], variants, round_cap=20)
    mc = cm.duel_mc(LIB[a], LIB[b], n, seed=11, variants=variants, round_cap=20)
    assert exact.outcome.sum() == pytest.approx(1.0)
    for p_mc, p in zip(mc.p_outcome(), exact.outcome, strict=True):
        assert abs(p_mc - p) <= tol(p, n)
    for p_mc, p in zip(mc.rounds.ravel() / n, exact.rounds.ravel(), strict=True):
        assert abs(p_mc - p) <= tol(p, n)
    for p_mc, p in zip(mc.standing.ravel() / n, exact.standing.ravel(), strict=True):
        assert abs(p_mc - p) <= tol(min(p, 1.0), n)
    # hits are counts per fight, not Bernoulli cells: a loose sanity bound only
    assert np.abs(mc.hits / n - exact.hits).max() < 0.02


def test_one_thread_equals_two_threads():
    """Same seed, 1 or 2 numba threads: bit-identical histograms."""
    a, b = LIB["competent"], LIB["competent_swordsman"]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cm.fight_mc(
            [a, b],
            [LIB["competent_brawler"]],
            100_000,
            seed=3,
            variants=Variants(targeting="random"),
        )
        numba.set_num_threads(2)
        two = cm.fight_mc(
            [a, b],
            [LIB["competent_brawler"]],
            100_000,
            seed=3,
            variants=Variants(targeting="random"),
        )
    finally:
        numba.set_num_threads(before)
    for key in ("outcome", "rounds", "standing", "hits", "deaths", "loser_dead"):
        np.testing.assert_array_equal(getattr(one, key), getattr(two, key))


@pytest.mark.parametrize("aftermath", ["first_aid", "finish"])
def test_aftermath_one_thread_equals_two_threads(aftermath):
    """Lethality outcomes with random draws: bit-identical on 1 or 2 numba threads."""
    a, b = LIB["competent"], LIB["competent_swordsman"]
    v = Variants(
        targeting="random",
        aftermath=aftermath,
        finish_rounds=1,
        dying_damage="massive",
        aid_tries=2,
    )
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cm.fight_mc([a, b], [LIB["competent_brawler"], a], 60_000, seed=3, variants=v)
        numba.set_num_threads(2)
        two = cm.fight_mc([a, b], [LIB["competent_brawler"], a], 60_000, seed=3, variants=v)
    finally:
        numba.set_num_threads(before)
    for key in HIST_FIELDS:
        np.testing.assert_array_equal(getattr(one, key), getattr(two, key))


# --------------------------------------------------------------- invariants / N vs M


@pytest.mark.parametrize("targeting", ["first", "random", "weakest"])
def test_fight_invariants(targeting):
    """Counts add up, standing never grows, nobody comes back (the dying do not act)."""
    n = 20_000
    res = cm.fight_mc(
        [LIB["novice"], LIB["novice"]],
        [LIB["expert"]],
        n,
        seed=2,
        variants=Variants(targeting=targeting),
        round_cap=30,
    )
    assert res.outcome.sum() == n == res.rounds.sum()
    assert (res.standing >= 0).all()
    assert (np.diff(res.standing, axis=0) <= 0).all()
    assert res.standing[0].tolist() == [2 * n, n]
    # a side that lost has nobody standing at the end
    assert res.standing[-1, 1] <= n - res.outcome[0]
    assert res.deaths.sum() == 0
    assert res.loser_dead.sum() == 0
    assert (res.hits >= 0).all()


def test_two_against_one_beats_one_on_one():
    duel = cm.duel_mc(LIB["competent"], LIB["expert"], 20_000, seed=4)
    pair = cm.fight_mc([LIB["competent"]] * 2, [LIB["expert"]], 20_000, seed=4)
    assert pair.p_outcome()[0] > duel.p_outcome()[0] + 0.1


def test_duel_mc_is_fight_mc_one_on_one():
    a, b = LIB["competent"], LIB["competent_shooter"]
    x = cm.duel_mc(a, b, 5_000, seed=9)
    y = cm.fight_mc([a], [b], 5_000, seed=9)
    np.testing.assert_array_equal(x.rounds, y.rounds)


def test_round_cap_neither():
    """A fight nobody can win (Defense out of reach, no doubles) ends at the cap: neither."""
    wall = Combatant(trait=1, combat=0, defense=40)
    v = Variants(doubles=False)
    assert cm.duel_exact(wall, wall, v, round_cap=5).outcome[2] == pytest.approx(1.0)
    assert cm.duel_mc(wall, wall, 1000, seed=1, variants=v, round_cap=5).rounds[5, 2] == 1000


def test_bad_inputs():
    with pytest.raises(InputError, match="round_cap"):
        cm.duel_exact(LIB["novice"], LIB["novice"], round_cap=0)
    with pytest.raises(InputError, match="side 1"):
        cm.fight_mc([LIB["novice"]], [], 10)
    with pytest.raises(InputError, match="dice"):
        Combatant(dice="x")
    with pytest.raises(InputError, match="trials"):
        cm.duel_mc(LIB["novice"], LIB["novice"], trials=0)


# --------------------------------------------------------------- data validation


def _write(tmp_path, text):
    path = tmp_path / "middle_3d10.toml"
    path.write_text(text)
    return path


BASE = """
[categories.blades]
dice = ["M"]
ranged = false
[weapons]
sword = "blades"
[archetypes.competent]
trait = 4
combat = 5
strength = 4
vigor = 4
defense = 11
reflex = 4
weapon = "sword"
"""


def test_library_loads_the_ladder_and_styles():
    lib = library("middle_3d10")
    for name in (
        "untrained",
        "novice",
        "competent",
        "expert",
        "master",
        "competent_brawler",
        "competent_swordsman",
        "competent_shooter",
        "competent_armoured",
    ):
        assert name in lib
    ladder = [
        lib[k].trait + lib[k].combat
        for k in ("untrained", "novice", "competent", "expert", "master")
    ]
    assert ladder == sorted(ladder)
    assert len(set(ladder)) == 5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[archetypes.expert]\nbase = "competent"\nweapon = "lazer"\n',
            "middle_3d10.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: sword",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\ntrait = 11\n',
            "middle_3d10.toml: archetypes.expert.trait: Input should be less than or equal to 10",
        ),
        (
            '[archetypes.expert]\nbase = "nobody"\n',
            "middle_3d10.toml: archetypes.expert.base: unknown archetype 'nobody'",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\nluck = 3\n',
            "middle_3d10.toml: archetypes.expert.luck: Extra inputs are not permitted",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\ndrama_tactic = "sometimes"\n',
            "middle_3d10.toml: archetypes.expert.drama_tactic:",
        ),
    ],
)
def test_library_validation_errors(tmp_path, extra, message):
    path = _write(tmp_path, BASE + extra)
    with pytest.raises(InputError) as info:
        library("middle_3d10", path)
    assert str(info.value).startswith(message)


def test_library_bad_category_and_toml(tmp_path):
    with pytest.raises(InputError, match=r"weapons.gun: unknown category 'laser'"):
        library(
            "middle_3d10",
            _write(tmp_path, BASE.replace('sword = "blades"', 'sword = "blades"\ngun = "laser"')),
        )
    with pytest.raises(InputError, match="not valid TOML"):
        library("middle_3d10", _write(tmp_path, "[["))
    with pytest.raises(InputError, match="unknown system"):
        library("dice_pool_9")


def test_pure_python_baseline_agrees_with_exact():
    """The benchmark's pure-Python duel (an independent implementation of B6–B10) agrees
    with the exact chain within 5σ + 1/n."""
    import importlib.util
    import random
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_combat_middle_pct.py"
    spec = importlib.util.spec_from_file_location("bench_combat_middle_pct", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    a = Combatant(name="a", trait=4, combat=4, strength=5, vigor=5, defense=12, reflex=4, dice="M")
    b = Combatant(
        name="b",
        trait=3,
        combat=5,
        strength=3,
        vigor=6,
        defense=11,
        reflex=5,
        dice="mM",
        ranged=True,
    )
    n = 20_000
    rng = random.Random(7)
    wins = [0, 0, 0]
    for _ in range(n):
        wins[bench.py_middle_duel(a, b, rng, 20)] += 1
    exact = cm.duel_exact(a, b, round_cap=20)
    for k in range(3):
        assert abs(wins[k] / n - exact.outcome[k]) <= tol(exact.outcome[k], n)
