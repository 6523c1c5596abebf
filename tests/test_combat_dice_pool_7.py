"""Fights in ``dice_pool_7`` (RULES.md A6–A16 and gaps A-g1, A-g3, A-g4, A-g5, A-g6).

Oracles: hand-worked values, a success-count pmf built here from the 10-again recursion
(not from the engine), and a pure-Python fight simulator written from the rules
(``combat_pools_reference``). Monte Carlo vs exact: ``|p_mc - p| <= 5 sqrt(p(1-p)/n) +
1/n`` (five standard errors plus one count), fixed seeds.
"""

from __future__ import annotations

import random
from dataclasses import replace
from math import sqrt
from pathlib import Path

import numba
import numpy as np
import pytest
from combat_pools_reference import fight7

from analysis.combat.archetypes import combatants
from engines.errors import InputError
from engines.systems.dice_pool_7 import combat as cb
from engines.systems.dice_pool_7.combat import Armour, Combatant, Variants, Weapon
from engines.variants import parse_variants

LIB = combatants("dice_pool_7")
SWORD = Weapon("light_melee", 1, initiative=-1)
HEAVY = Weapon("heavy_melee", 2, initiative=-1, defense=-1)
NO_CHANCE = Variants(chance_die=False)


def die_pmf(length: int = 40) -> np.ndarray:
    """One d10 with 10-again: P(S=0)=0.6; P(S=k)=0.3[k=1] + 0.1 P(S=k-1) for k >= 1."""
    p = np.zeros(length)
    p[0] = 0.6
    for k in range(1, length):
        p[k] = (0.3 if k == 1 else 0.0) + 0.1 * p[k - 1]
    return p


def pool_pmf(n: int, chance: bool = True) -> np.ndarray:
    """A1 pool of ``n`` dice; A-g1 chance die (only a 10, no explosion) for n <= 0."""
    if n <= 0:
        return np.array([0.9, 0.1]) if chance else np.array([1.0])
    out = np.array([1.0])
    for _ in range(n):
        out = np.convolve(out, die_pmf())[:40]
    return out


def p_hit(n: int, chance: bool = True) -> float:
    return 1.0 - pool_pmf(n, chance)[0]


def fighter(name="x", FOR=3, DES=3, SAB=3, CON=3, DET=2, AUT=2, **kw) -> Combatant:
    return Combatant(name, FOR=FOR, DES=DES, SAB=SAB, CON=CON, DET=DET, AUT=AUT, **kw)


# A dummy that never hits (pool <= 0 with the chance die off) and never drops in a round.
DUMMY = fighter("dummy", FOR=1, DES=1, SAB=1, CON=10, AUT=1)


def expected_hits(a, b, v, cap=1) -> float:
    return float(cb.duel_exact(a, b, v, round_cap=cap).hits.sum())


def assert_mc_matches_exact(mc, ex) -> None:
    """Every outcome, round and loser-dead cell within 5 standard errors + one count."""
    n = mc.trials
    for name in ("outcome", "rounds", "loser_dead", "standing"):
        p = getattr(ex, name).ravel()
        p_mc = getattr(mc, name).ravel() / n
        tol = 5 * np.sqrt(np.clip(p * (1 - p), 0, None) / n) + 1 / n
        bad = np.abs(p_mc - p) > tol
        assert not bad.any(), (name, np.flatnonzero(bad), p[bad], p_mc[bad])


# ------------------------------------------------------------------ traits (A7, A8, A14, A16)


def test_a8_defense_a11_heavy_weapon_a13_shield():
    """A8 Defense = min(DES, SAB) + armour/shield (+2 athletics); A11 heavy weapon −1."""
    assert fighter(DES=4, SAB=2).defense == 2
    shield = Armour("shield", defense=1)
    assert fighter(DES=4, SAB=3, armour=shield).defense == 4
    assert fighter(DES=4, SAB=3, armour=shield, weapon=HEAVY).defense == 3
    assert fighter(DES=3, SAB=3, athletics=True).defense == 5
    assert fighter(DES=0, SAB=0, weapon=HEAVY).defense == 0  # never below 0


def test_a14_vitality_a4_willpower_a16_initiative():
    """A14 vitality 2 × CON + 6; A4 willpower DET + AUT; A16 DES + AUT + weapon."""
    c = fighter(CON=3, DET=2, AUT=4, DES=3, weapon=SWORD)
    assert c.vitality == 12
    assert c.willpower_points == 6
    assert c.initiative == 3 + 4 - 1


def test_a7_attack_pool_and_a_g1_chance_die():
    """A7 melee FOR + weapon + 2 (specialization) − Defense; ranged uses DES; A-g1."""
    target = fighter(DES=2, SAB=2)  # Defense 2
    a = fighter(FOR=2, specialized=True, weapon=SWORD)  # 2 + 2 + 1 − 2 = 3 dice
    assert cb.hit_probability(a, target) == pytest.approx(p_hit(3), abs=1e-12)
    gun = Weapon("pistol", 1, ranged=True, damage_type="ballistic")
    s = fighter(FOR=1, DES=4, weapon=gun)  # ranged: DES 4 + 1 − 2 = 3 dice
    assert cb.hit_probability(s, target) == pytest.approx(p_hit(3), abs=1e-12)
    weak = fighter(FOR=1)  # 1 − 2 < 0: chance die, only a 10 (A-g1)
    assert cb.hit_probability(weak, target) == pytest.approx(0.1)
    assert cb.hit_probability(weak, target, NO_CHANCE) == 0.0
    one = fighter(FOR=3)
    assert cb.hit_probability(one, target) == pytest.approx(0.4)  # one die: 7..10


def test_a10_damage_a_g4_weapon_bonus_a13_armour():
    """A10 damage = successes + weapon damage − armour (A13, by type); A-g4 variants."""
    target = fighter(DES=2, SAB=2, armour=Armour("light_archaic", lethal=2))
    a = fighter(FOR=2, weapon=SWORD)  # 2 + 1 − 2 = 1 die
    pmf = pool_pmf(1)
    dmg = cb.attack_damage(a, target)
    # successes s >= 1 deal max(0, s + 1 − 2): s = 1 → 0, s = 2 → 1, ...
    assert dmg[0] == pytest.approx(pmf[0] + pmf[1], abs=1e-12)
    assert dmg[1] == pytest.approx(pmf[2], abs=1e-12)
    # A-g4 variant: the bonus is damage only, so the pool is 0 dice (a chance die)
    only = cb.attack_damage(a, target, Variants(weapon_bonus="damage"))
    assert only[0] == pytest.approx(1.0, abs=1e-12)  # 1 success + 1 − 2 = 0
    # ballistic armour does not stop a blade; lethal armour does not stop bashing (A13)
    vest = fighter(DES=2, SAB=2, armour=Armour("light_modern", ballistic=1))
    full = pool_pmf(1)
    assert cb.attack_damage(a, vest)[2] == pytest.approx(full[1], abs=1e-12)
    fist = fighter(FOR=3)  # unarmed, bashing, 1 die
    assert cb.attack_damage(fist, target)[1] == pytest.approx(full[1], abs=1e-12)
    lethal_rating = Variants(armour_vs_bashing="lethal")
    assert cb.attack_damage(fist, target, lethal_rating)[1] == pytest.approx(full[3], abs=1e-12)


def test_a12_short_burst_and_a2_cap():
    """A12 short burst: +1 die; A2 modifiers (weapon + quality + burst) capped at +5."""
    rifle = Weapon("rifle", 2, ranged=True, automatic=True, damage_type="ballistic")
    target = fighter(DES=1, SAB=1)
    s = fighter(DES=3, weapon=rifle, burst="short")  # 3 + 2 + 1 − 1 = 5
    assert cb.hit_probability(s, target) == pytest.approx(p_hit(5), abs=1e-12)
    big = fighter(DES=3, weapon=rifle, burst="long", quality=2)  # 2 + 2 + 3 = 7 → 5
    assert cb.hit_probability(big, target) == pytest.approx(p_hit(3 + 5 - 1), abs=1e-12)
    with pytest.raises(InputError, match="automatic ranged"):
        cb.row(fighter(burst="short", weapon=SWORD))


def test_a12_medium_and_long_bursts_split_among_targets():
    """A12: medium: up to 3 targets, +2 − (targets); long: every target, +3 − targets.

    One round, the shooter (acting first) fires twice; expected hits = 2 × targets ×
    P(hit) with the reduced pool. Each attack is an independent Bernoulli, so the Monte
    Carlo mean of the hit count has standard error sqrt(2 k p (1 − p) / n).
    """
    rifle = Weapon("rifle", 2, ranged=True, automatic=True, damage_type="ballistic")
    n = 40_000
    for burst, n_dummies, targets, bonus in (("medium", 4, 3, 2), ("long", 4, 4, 3)):
        shooter = fighter("s", DES=4, AUT=5, weapon=rifle, burst=burst)
        st = cb.fight_mc([shooter], [DUMMY] * n_dummies, n, seed=3, variants=NO_CHANCE, round_cap=1)
        p = p_hit(4 + 2 + bonus - targets - DUMMY.defense)
        k = 2 * targets
        mean = st.hits.sum() / n
        assert abs(mean - k * p) <= 5 * sqrt(k * p * (1 - p) / n) + 1 / n


# ------------------------------------------------------------------ actions (A3, A4, A6, A9)


def test_a6_two_actions_and_a3_focus():
    """A6: attack_attack makes two attacks a turn; A3 focus_attack one with +1 die."""
    a = fighter("a", FOR=4, AUT=5)
    n = 4 - DUMMY.defense
    assert expected_hits(a, DUMMY, NO_CHANCE) == pytest.approx(2 * p_hit(n), abs=1e-9)
    f = replace(a, tactic="focus_attack")
    assert expected_hits(f, DUMMY, NO_CHANCE) == pytest.approx(p_hit(n + 1), abs=1e-9)


def test_a4_willpower_attack_dice_run_out():
    """A4: +3 dice on the first attack of each turn while points last (DET + AUT = 1)."""
    a = fighter("a", FOR=3, DET=0, AUT=5, willpower="attack_early")
    a = replace(a, AUT=1, DES=9)  # one willpower point, still acts first
    n = 3 - DUMMY.defense
    two_rounds = (p_hit(n + 3) + p_hit(n)) + 2 * p_hit(n)
    assert expected_hits(a, DUMMY, NO_CHANCE, cap=2) == pytest.approx(two_rounds, abs=1e-9)


def test_a4_willpower_defense_and_a9_dodge():
    """A4 +2 Defense from the dodger's turn; A9 dodge: 2 × Defense dice whose successes
    replace Defense; A-g3: it lasts until the dodger's next turn (or the round's end)."""
    a = fighter("a", FOR=6, DES=1, SAB=1, AUT=1)  # acts second
    b = fighter("b", FOR=1, DES=3, SAB=3, CON=10, AUT=5, tactic="attack_dodge")  # Defense 3
    dodge = pool_pmf(6)

    def p_vs_dodge(dice: int) -> float:
        return float(sum(dodge[k] * p_hit(dice - k, chance=False) for k in range(dodge.size)))

    assert expected_hits(a, b, NO_CHANCE) == pytest.approx(2 * p_vs_dodge(6), abs=1e-9)
    plain = replace(b, tactic="attack_attack")
    assert expected_hits(a, plain, NO_CHANCE) == pytest.approx(2 * p_hit(3), abs=1e-9)
    guard = replace(plain, willpower="defense_early")
    assert expected_hits(a, guard, NO_CHANCE) == pytest.approx(2 * p_hit(1), abs=1e-9)
    # A-g3: b acts second, so in round 1 it has not dodged yet; in round 2 the dodge of
    # its round-1 turn still counts by default, but not when dodges end with the round.
    b2 = replace(b, AUT=0, DES=3)
    a2 = replace(a, AUT=5)
    two = 2 * p_hit(3) + 2 * p_vs_dodge(6)
    assert expected_hits(a2, b2, NO_CHANCE, cap=2) == pytest.approx(two, abs=1e-6)
    eor = replace(NO_CHANCE, dodge_lasts="end_of_round")
    assert expected_hits(a2, b2, eor, cap=2) == pytest.approx(4 * p_hit(3), abs=1e-6)


# ------------------------------------------------------------------ damage tracks (A14, A15)


@pytest.mark.parametrize(
    ("dtype", "dmg", "start", "down", "dead", "after"),
    [
        (cb.BASHING, 4, (8, 0, 0), True, False, (8, 4, 0)),  # A-g5: bashing 4 ≥ 12 − 8
        (cb.BASHING, 3, (8, 0, 0), False, False, (8, 3, 0)),
        (cb.LETHAL, 14, (0, 0, 0), True, False, (12, 0, 2)),  # A15: 2 beyond → CON
        (cb.BALLISTIC, 15, (0, 0, 0), True, True, (12, 0, 3)),  # CON 3 → 0: dead
        (cb.LETHAL, 2, (0, 10, 0), True, False, (2, 10, 0)),  # A14: the tracks add up
    ],
)
def test_a14_a15_a_g5_damage_tracks(dtype, dmg, start, down, dead, after):
    """A14 bashing and lethal tracks, A-g5 unconscious at bashing ≥ vitality − lethal,
    A15 lethal beyond vitality lowers CON, CON 0 is death (vitality 12, CON 3)."""
    lethal, bash, con = (np.array([x], dtype=np.int64) for x in start)
    dead_arr = np.zeros(1, dtype=np.int64)
    assert cb.wound(0, dmg, dtype, 12, 3, lethal, bash, con, dead_arr) == down
    assert (lethal[0], bash[0], con[0]) == after
    assert bool(dead_arr[0]) == dead
    assert min(lethal[0], bash[0], con[0]) >= 0


def test_a15_deaths_and_overflow_variant():
    """A15: a hit that empties vitality with enough to spare kills; variant off: none."""
    killer = fighter("k", FOR=8, CON=1, weapon=HEAVY, specialized=True)
    ex = cb.duel_exact(killer, killer, round_cap=20)
    assert ex.loser_dead.sum() > 0.01
    assert ex.deaths.sum() == pytest.approx(ex.loser_dead.sum())
    safe = cb.duel_exact(killer, killer, Variants(overflow_to_con=False), round_cap=20)
    assert safe.loser_dead.sum() == 0.0
    fists = cb.duel_exact(fighter("a", FOR=8, CON=1), fighter("b", FOR=8, CON=1))
    assert fists.loser_dead.sum() == 0.0  # bashing never kills (A14)


def test_a16_a_g6_initiative_order():
    """A16 static initiative, ties at random; A-g6 + 1d10: P(first) by hand."""
    a, b = fighter(DES=3, AUT=3), fighter(DES=3, AUT=2)
    assert cb.p_first(a, b, cb.DEFAULT) == 1.0
    assert cb.p_first(b, a, cb.DEFAULT) == 0.0
    assert cb.p_first(a, a, cb.DEFAULT) == 0.5
    # +1 over the other: P(d + 1 > d') + P(d + 1 = d') / 2 = 55/100 + 9/200
    assert cb.p_first(a, b, Variants(initiative_roll=True)) == pytest.approx(0.595)


def test_a16_first_mover_wins_more():
    """A16: in a mirror match the faster fighter wins more often (exact)."""
    a = fighter("fast", DES=3, AUT=3, weapon=SWORD)
    b = replace(a, name="slow", AUT=2)
    ex = cb.duel_exact(a, b)
    assert ex.p_outcome()[0] > ex.p_outcome()[1]
    tie = cb.duel_exact(a, a)
    assert tie.p_outcome()[0] == pytest.approx(tie.p_outcome()[1], abs=1e-12)


# ------------------------------------------------------------------ Monte Carlo vs exact

MATCHUPS = [
    ("competent_swordsman", "competent_swordsman", {}),
    ("expert_brawler", "competent_fencer", {}),
    ("master_knight", "expert_armoured", {}),
    (
        "soldier",
        "bodyguard",
        {"initiative_roll": "true", "dodge_lasts": "end_of_round", "weapon_bonus": "damage"},
    ),
    ("master_fencer", "street_thug", {"again": "9", "chance_die_explodes": "true"}),
]


@pytest.mark.parametrize(("a", "b", "variants"), MATCHUPS)
def test_mc_matches_exact_duels(a, b, variants):
    """A6–A16: Monte Carlo duels agree with the exact chain cell by cell (5 SE + 1/n)."""
    v = parse_variants(Variants, variants)
    ex = cb.duel_exact(LIB[a], LIB[b], v, round_cap=30)
    assert ex.outcome.sum() == pytest.approx(1.0, abs=1e-9)
    mc = cb.duel_mc(LIB[a], LIB[b], 100_000, seed=11, variants=v, round_cap=30)
    assert_mc_matches_exact(mc, ex)


def test_mc_matches_exact_with_deaths():
    """A15 deaths: P(loser dead) agrees between Monte Carlo and exact."""
    k = fighter("k", FOR=8, CON=1, weapon=HEAVY, specialized=True)
    ex = cb.duel_exact(k, k, round_cap=10)
    mc = cb.duel_mc(k, k, 100_000, seed=5, round_cap=10)
    assert ex.loser_dead.sum() > 0.05
    assert_mc_matches_exact(mc, ex)


def test_round_cap_reports_neither():
    """A fight still running at the cap is "neither" (both MC and exact)."""
    wall = fighter("wall", FOR=1, DES=5, SAB=5, CON=10, AUT=1)
    ex = cb.duel_exact(wall, wall, NO_CHANCE, round_cap=5)
    assert ex.p_outcome()[2] == pytest.approx(1.0)
    mc = cb.duel_mc(wall, wall, 1000, seed=1, variants=NO_CHANCE, round_cap=5)
    assert mc.outcome[2] == 1000
    assert mc.rounds[5, 2] == 1000


# ------------------------------------------------------------------ N vs M


@pytest.mark.parametrize(
    ("a", "b"), [("expert_brawler", "competent_fencer"), ("soldier", "bodyguard")]
)
def test_mc_hits_match_exact(a, b):
    """Expected hits per fight by damage dealt (A10/C11 damage, per successful attack).

    A fight of 3 rounds has at most m = 4 × 3 hits, so a bin's count X per fight
    has Var X <= E[X^2] <= m E[X]: tolerance 5 sqrt(m E[X] / n) + 1/n.
    """
    ex = cb.duel_exact(LIB[a], LIB[b], round_cap=3)
    n = 100_000
    mc = cb.duel_mc(LIB[a], LIB[b], n, seed=21, round_cap=3)
    m = 4 * 3
    tol = 5 * np.sqrt(m * ex.hits / n) + 1 / n
    assert np.all(np.abs(mc.hits / n - ex.hits) <= tol)
    assert ex.hits.sum() > 0.5


def test_n_vs_m_matches_pure_python_reference():
    """N-vs-M fights: the kernel and the rules-first pure-Python simulator agree (two
    independent samples: 5 SE of the difference + 1/n). Fragile members fall mid-round,
    so this also checks that the fallen do not act."""
    side0 = [LIB["expert_swordsman"], replace(LIB["novice_brawler"], CON=1)]
    side1 = [
        LIB["competent_armoured"],
        LIB["novice_fencer"],
        replace(LIB["untrained_shooter"], CON=1),
    ]
    n_ref, n_mc = 6_000, 60_000
    rng = random.Random(7)
    ref = [fight7(rng, side0, side1, cap=20) for _ in range(n_ref)]
    mc = cb.fight_mc(side0, side1, n_mc, seed=9, round_cap=20)
    for w in range(3):
        p_ref = sum(r["winner"] == w for r in ref) / n_ref
        p_mc = mc.outcome[w] / n_mc
        p = (p_ref * n_ref + p_mc * n_mc) / (n_ref + n_mc)
        assert abs(p_ref - p_mc) <= 5 * sqrt(p * (1 - p) * (1 / n_ref + 1 / n_mc)) + 1 / n_ref
    mean_hits_ref = np.mean([len(r["hits"]) for r in ref])
    sd = np.std([len(r["hits"]) for r in ref])
    assert abs(mc.hits.sum() / n_mc - mean_hits_ref) <= 5 * sd * sqrt(1 / n_ref + 1 / n_mc)


def test_the_fallen_do_not_act():
    """A14/A15: a combatant put down earlier in the round takes no turn.

    K acts first and strikes twice at the first able enemy: its hits deal at least 21
    (a +20 weapon; its dice are capped at +5 by A2: 10 + 2 + 5 = 17 against V's
    Defense 0), so its first one drops (and kills) V; its second goes to the dummy W.
    V would hit K for small damage if it acted; hits below 21 could come only from fights
    in which K misses V twice (P = 0.6^34).
    """
    doom = Weapon("doom", 20)
    k = fighter("K", FOR=10, DES=10, SAB=1, CON=10, AUT=10, weapon=doom, specialized=True)
    v = fighter("V", FOR=10, DES=0, CON=1, AUT=1)
    n = 20_000
    st = cb.fight_mc(
        [k], [v, DUMMY], n, seed=5, variants=replace(NO_CHANCE, targeting="first"), round_cap=1
    )
    assert st.hits[:21].sum() == 0
    # K misses n (0.6^17 + 0.6^16) ~ 9 times; 5 standard errors above that is 9 + 15
    assert st.hits[21:].sum() >= 2 * n - 24
    assert st.deaths[1] >= n  # V is dead (A15: CON 1)


def test_invariants_n_vs_m():
    """Outcomes add up to the trials, standing never grows, deaths ≤ combatants."""
    side0 = [LIB["master_armoured"], LIB["novice_shooter"]]
    side1 = [LIB["soldier"], LIB["street_thug"], LIB["untrained_brawler"]]
    n = 20_000
    st = cb.fight_mc(side0, side1, n, seed=2, round_cap=15)
    assert st.outcome.sum() == n
    assert st.rounds.sum() == n
    assert np.all(np.diff(st.standing, axis=0) <= 0)
    assert tuple(st.standing[0]) == (2 * n, 3 * n)
    assert st.deaths[0] <= 2 * n
    assert st.deaths[1] <= 3 * n
    assert np.all(st.loser_dead <= st.outcome[:2])
    assert st.hits.min() >= 0
    # at the end, the losing side has nobody standing: final standing ≤ winners' sizes
    assert st.standing[-1, 1] <= 3 * (n - st.outcome[0])


def test_same_result_on_one_and_two_threads():
    """Chunked streams: the same seed gives bit-identical results on 1 and 2 threads."""
    a, b = LIB["expert_fencer"], LIB["expert_brawler"]
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cb.fight_mc([a, a], [b], 100_000, seed=4)
        numba.set_num_threads(2)
        two = cb.fight_mc([a, a], [b], 100_000, seed=4)
    finally:
        numba.set_num_threads(before)
    for name in ("outcome", "rounds", "loser_dead", "standing", "deaths", "hits"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name


# ------------------------------------------------------------------ input checking


def test_bad_inputs_raise_input_error():
    with pytest.raises(InputError, match="round_cap"):
        cb.duel_mc(LIB["novice_swordsman"], LIB["novice_swordsman"], 10, round_cap=0)
    with pytest.raises(InputError, match="side1"):
        cb.fight_mc([LIB["novice_swordsman"]], [], 10)
    with pytest.raises(InputError, match="tactic"):
        cb.row(fighter(tactic="berserk"))
    with pytest.raises(InputError, match="dodge_lasts"):
        parse_variants(Variants, ["dodge_lasts=forever"])


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "dice_pool_7.toml"
    p.write_text(text)
    return p


SOURCE = (Path(__file__).parents[1] / "engines/systems/dice_pool_7/archetypes.toml").read_text()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ('style = "shooter"\narmour = "light_modern"', 'style = "shooter"\nweapon = "lazer"'),
            "dice_pool_7.toml: archetypes.bodyguard.weapon: unknown weapon 'lazer'; known: "
            "assault_rifle, heavy_melee",
        ),
        (("FOR = 5", "FOR = 12"), "dice_pool_7.toml: levels.master.FOR: Input should be less"),
        (('tactic = "focus_attack"', 'tactic = "berserk"'), "styles.knight.tactic"),
        (("[levels.master]", "[levels.grandmaster]"), "levels.grandmaster: not a rung"),
        (
            ("lethal = 4", 'lethal = "four"'),
            "armour.heavy_archaic.lethal: Input should be a valid integer",
        ),
        (
            ('armour = "medium_archaic"', 'armour = "plate"'),
            "styles.armoured.armour: unknown armour 'plate'",
        ),
        (('level = "competent"', 'level = "godlike"'), "archetypes.soldier.level: unknown level"),
        (
            ('weapon = "assault_rifle"', 'weapon = "light_melee"'),
            "archetypes.soldier: soldier: bursts need an automatic ranged weapon",
        ),
        (("[armour.none]", "[armour.none]\nfoo = 1"), "armour.none.foo: Extra inputs"),
    ],
)
def test_archetype_file_validation(tmp_path, edit, message):
    """Every field is validated; the message names the file and the key."""
    old, new = edit
    assert old in SOURCE
    with pytest.raises(InputError) as err:
        combatants("dice_pool_7", _write(tmp_path, SOURCE.replace(old, new, 1)))
    assert message in str(err.value)


def test_archetype_library_contents(tmp_path):
    """The ladder × styles grid plus single archetypes, with the rules' derived traits."""
    lib = combatants("dice_pool_7")
    for level in ("untrained", "novice", "competent", "expert", "master"):
        for style in ("brawler", "swordsman", "shooter", "armoured"):
            assert f"{level}_{style}" in lib
    k = lib["master_knight"]
    assert k.defense == min(5, 4) + 1 + 2  # shield, athletics (A8)
    assert k.armour.lethal == 4
    assert lib["soldier"].weapon.damage_type == "ballistic"
    assert lib["competent_swordsman"].vitality == 12
    with pytest.raises(InputError, match="unknown system"):
        combatants("dice_pool_9")
    with pytest.raises(InputError, match="not valid TOML"):
        combatants("dice_pool_7", _write(tmp_path, "x = ["))


def test_every_variant_parses_from_text():
    """Each combat variant's every choice round-trips through NAME=VALUE (the CLI path)."""
    import dataclasses

    for f in dataclasses.fields(Variants):
        for choice in f.metadata["choices"] or ():
            text = "none" if choice is None else str(choice).lower()
            assert getattr(parse_variants(Variants, [f"{f.name}={text}"]), f.name) == choice


# ------------------------------------------------------------------ review: armour readings


def test_a13_armour_vs_firearms_variant():
    """A13: the seed lists armour by damage type (lethal, ballistic) and says most weapons
    deal lethal damage, so whether a bullet (ballistic) is also stopped by the lethal
    rating is debatable. Default: only the ballistic rating (the table read type by
    type); variant ``armour_vs_firearms = "ballistic_and_lethal"``: both ratings add up.

    Heavy archaic armour (4 lethal, 2 ballistic), a pistol (+1) with 3 dice after
    Defense: damage = max(0, s + 1 − 2) by default, max(0, s + 1 − 6) with the variant.
    """
    pistol = Weapon("pistol", 1, initiative=-1, ranged=True, damage_type="ballistic")
    plate = Armour("heavy_archaic", lethal=4, ballistic=2)
    target = fighter(DES=2, SAB=2, armour=plate)  # Defense 2
    s = fighter(DES=4, weapon=pistol)  # 4 + 1 − 2 = 3 dice
    pmf = pool_pmf(3)
    dflt = cb.attack_damage(s, target)
    assert dflt[0] == pytest.approx(pmf[0] + pmf[1], abs=1e-12)  # s = 1: 1 + 1 − 2 = 0
    assert dflt[1] == pytest.approx(pmf[2], abs=1e-12)
    both = Variants(armour_vs_firearms="ballistic_and_lethal")
    dmg = cb.attack_damage(s, target, both)
    assert dmg[0] == pytest.approx(pmf[:6].sum(), abs=1e-12)  # s <= 5 stopped by 6
    assert dmg[1] == pytest.approx(pmf[6], abs=1e-12)
    # a blade still meets only the lethal rating under the variant
    a = fighter(FOR=4, weapon=SWORD)  # 4 + 1 − 2 = 3 dice, damage s + 1 − 4
    blade = cb.attack_damage(a, target, both)
    assert blade[0] == pytest.approx(pmf[:4].sum(), abs=1e-12)
    assert blade[1] == pytest.approx(pmf[4], abs=1e-12)
    # the Monte Carlo kernel reads the same armour column (A13 in both paths)
    ex = cb.duel_exact(s, target, both, round_cap=3)
    mc = cb.duel_mc(s, target, 20_000, seed=4, variants=both, round_cap=3)
    assert_mc_matches_exact(mc, ex)


def test_a10_a13_armour_stops_variant():
    """A10/A13: armour "ignores N points of damage" (seed), damage = successes + weapon:
    default max(0, s + w − armour). The digest's "successes remaining after armour +
    weapon damage" also parses as max(0, s − armour) + w: variant
    ``armour_stops = "successes"``.

    Light archaic armour (2 lethal), a sword (+1), 3 dice after Defense 2:
    default s = 1 → 0, 2 → 1, 3 → 2; variant s = 1 → 1, 2 → 1, 3 → 2, s → s − 1.
    """
    target = fighter(DES=2, SAB=2, armour=Armour("light_archaic", lethal=2))
    a = fighter(FOR=4, weapon=SWORD)  # 4 + 1 − 2 = 3 dice
    pmf = pool_pmf(3)
    dflt = cb.attack_damage(a, target)
    assert dflt[0] == pytest.approx(pmf[0] + pmf[1], abs=1e-12)
    assert dflt[1] == pytest.approx(pmf[2], abs=1e-12)
    v = Variants(armour_stops="successes")
    dmg = cb.attack_damage(a, target, v)
    assert dmg[0] == pytest.approx(pmf[0], abs=1e-12)
    assert dmg[1] == pytest.approx(pmf[1] + pmf[2], abs=1e-12)
    assert dmg[2] == pytest.approx(pmf[3], abs=1e-12)
    assert cb.one_hit(a, target, v)["p_hit"] == pytest.approx(1 - pmf[0], abs=1e-12)
    # hits by damage, Monte Carlo kernel vs the hand pmf: one round, the attacker acts
    # first (AUT 5) against a target that cannot drop in one round (vitality 26) and
    # never hits back (FOR 0 against Defense 3, no chance die)
    fast = replace(a, AUT=5)
    wall = replace(target, CON=10, FOR=0)
    n = 40_000
    mc = cb.duel_mc(fast, wall, n, seed=9, variants=replace(v, chance_die=False), round_cap=1)
    for k, p in ((1, 2 * (pmf[1] + pmf[2])), (2, 2 * pmf[3])):
        # two attacks: a bin count per fight is 0..2, Var <= 2 p
        assert abs(mc.hits[k] / n - p) <= 5 * sqrt(2 * p / n) + 1 / n
