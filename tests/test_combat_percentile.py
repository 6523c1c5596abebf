"""percentile combat — the EXTENSION of GAP D-g3 (Call of Cthulhu 7th ed., rules DX1–DX13,
not from the seed): rule-level tests against hand-worked numbers, Monte Carlo vs the exact
Markov chain, thread invariance, invariants, archetype validation."""

from __future__ import annotations

import itertools
from math import sqrt

import numba
import numpy as np
import pytest

from analysis.combat.archetypes import combatants, library
from engines.errors import InputError
from engines.systems.percentile import checks as checks
from engines.systems.percentile import combat as cp
from engines.systems.percentile.combat import Combatant, Variants, Weapon
from engines.variants import parse_variants

LIB = combatants("percentile")
KNIFE = Weapon("knife", 1, 4, 0, impale=True)
BAT = Weapon("bat", 1, 8, 0)
HANDGUN = Weapon("handgun", 1, 10, 0, impale=True, firearm=True, adds_db=False)
RIFLE = Weapon("rifle", 2, 6, 4, impale=True, firearm=True, adds_db=False)
NO_CRIT = Variants(criticals=False)


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


# --------------------------------------------------------------- rule level


def test_extension_is_marked():
    """GAP D-g3: every result says the rules are an extension, not from the rules text."""
    res = cp.duel_exact(LIB["novice"], LIB["novice"], round_cap=2)
    assert "not from the rules text" in res.notes["extension"]
    assert "EXTENSION" in cp.__doc__


def test_dx1_turn_order():
    """DX1: DEX descending; a readied firearm acts at DEX + 50; ties → combat skill, coin."""
    slow_gun = Combatant(dex=20, firearms=40, weapon=HANDGUN)
    quick = Combatant(dex=60, fighting=50)
    assert cp.p_first(slow_gun, quick, Variants()) == 1.0
    assert cp.p_first(slow_gun, quick, Variants(readied_firearms=False)) == 0.0
    assert cp.p_first(Combatant(dex=60, fighting=60), quick, Variants()) == 1.0
    assert cp.p_first(quick, quick, Variants()) == 0.5


@pytest.mark.parametrize("defend", ["dodge", "fight_back"])
def test_dx2_dodge_and_fight_back_tie_rules(defend):
    """DX2 with skill 50 vs 50: levels fail .5 / regular .25 / hard .15 / extreme .10
    (01, the D-g1 critical, counts as extreme).
    Dodge: the attacker needs a higher level: .25·.5 + .15·.75 + .10·.90 = .3275.
    Fight back: the attacker wins ties: .25·.75 + .15·.90 + .10 = .4225, and the defender
    hits back when strictly higher: .3275."""
    att = Combatant(fighting=50, weapon=BAT)
    tgt = Combatant(fighting=50, dodge=50, defend=defend, weapon=BAT)
    to_t, to_a, shots = cp.action_outcomes(att, tgt, Variants())
    assert shots == 1
    if defend == "dodge":
        assert to_t.sum() == pytest.approx(0.3275)
        assert to_a.sum() == 0.0
    else:
        assert to_t.sum() == pytest.approx(0.4225)
        assert to_a.sum() == pytest.approx(0.3275)
    pmf = cp.attack_damage(att, tgt)
    assert 1 - pmf[0] == pytest.approx(to_t.sum())


@pytest.mark.parametrize(
    ("total", "bonus"),
    [
        (64, (0, 0, -2)),
        (65, (0, 0, -1)),
        (84, (0, 0, -1)),
        (85, (0, 0, 0)),
        (124, (0, 0, 0)),
        (125, (1, 4, 0)),
        (165, (1, 6, 0)),
        (204, (1, 6, 0)),
        (205, (2, 6, 0)),
        (285, (3, 6, 0)),
    ],
)
def test_dx3_damage_bonus_table(total, bonus):
    """DX3: DB by STR + SIZ: 2–64 −2, 65–84 −1, 85–124 0, 125–164 +1D4, 165–204 +1D6,
    then one more D6 per 80."""
    assert cp.damage_bonus(total) == bonus


def test_dx3_table_in_data_matches_engine():
    import tomllib

    from engines.systems.percentile.archetypes import DATA_FILE

    raw = tomllib.loads(DATA_FILE.read_text())
    rows = [(r["max"], r["bonus"], r["build"]) for r in raw["damage_bonus"]]
    assert rows == [(64, "-2", -2), (84, "-1", -1), (124, "0", 0), (164, "1D4", 1), (204, "1D6", 2)]
    dmg = {k: v["damage"] for k, v in raw["weapons"].items()}
    assert dmg == {
        "unarmed": "1D3",
        "knife": "1D4",
        "club": "1D6",
        "machete": "1D8",
        "bat": "1D8",
        "handgun": "1D10",
        "rifle": "2D6+4",
        "shotgun": "4D6",
    }
    assert raw["weapons"]["shotgun"]["long_damage"] == "2D6"


def test_dx3_dx4_damage_with_bonus_and_extreme():
    """DX3: knife 1D4 + DB 1D4 (STR + SIZ 130); DX4: an extreme hit impales:
    max 4 + max DB 4 + 1D4 → 9..12. Against a target that cannot dodge (criticals off):
    P(extreme) = skill/5 = .10, P(regular or hard) = .40."""
    att = Combatant(strength=70, siz=60, fighting=50, weapon=KNIFE)
    tgt = Combatant(dodge=0)
    pmf = cp.attack_damage(att, tgt, NO_CRIT)
    assert pmf[0] == pytest.approx(0.5)
    two_d4 = {
        s: sum(1 for x in range(1, 5) for y in range(1, 5) if x + y == s) / 16 for s in range(2, 9)
    }
    for s in range(2, 9):
        assert pmf[s] == pytest.approx(0.4 * two_d4[s])
    for s in range(9, 13):
        assert pmf[s] == pytest.approx(0.1 / 4)
    blunt = cp.attack_damage(Combatant(strength=70, siz=60, fighting=50, weapon=BAT), tgt, NO_CRIT)
    assert blunt[12] == pytest.approx(0.1 + 0.4 / 32)  # max 8 + max 4, or 8 + 4 rolled
    plain = cp.attack_damage(att, tgt, Variants(criticals=False, extreme_damage=False))
    assert plain.size == 9


def test_dx3_negative_bonus_floors_at_zero_dx11_armour():
    """DX3: 1D3 − 2 never goes below 0; DX11: armour 2 takes 2 off every hit."""
    weak = Combatant(strength=30, siz=30, fighting=100, weapon=Weapon("fist", 1, 3, 0))
    tgt = Combatant(dodge=0)
    pmf = cp.attack_damage(weak, tgt, Variants(criticals=False, extreme_damage=False))
    assert pmf[0] == pytest.approx(2 / 3)  # rolls 1 and 2 do nothing
    assert pmf[1] == pytest.approx(1 / 3)
    bat = Combatant(fighting=100, weapon=BAT)
    arm = cp.attack_damage(
        bat, Combatant(dodge=0, armour=2), Variants(criticals=False, extreme_damage=False)
    )
    np.testing.assert_allclose(arm, [2 / 8] + [1 / 8] * 6)  # 1D8 − 2, floored at 0


def test_dx5_firearms_shots_penalty_and_range():
    """DX5: two shots take a penalty die each; point-blank a bonus die; long range needs a
    hard success (range is DX-g2); no fighting back against gunfire."""
    shooter = Combatant(firearms=50, weapon=HANDGUN, shots=2)
    tgt = Combatant(defend="fight_back", fighting=90)
    to_t, to_a, shots = cp.action_outcomes(shooter, tgt, Variants())
    assert shots == 2
    assert to_a.sum() == 0.0
    assert to_t.sum() == pytest.approx(checks.p_success(50, "regular", -1))
    single = Combatant(firearms=50, weapon=HANDGUN, shots=1)
    pb = cp.action_outcomes(single, tgt, Variants(range="point_blank"))[0].sum()
    assert pb == pytest.approx(checks.p_success(50, "regular", 1))
    far = cp.action_outcomes(single, tgt, Variants(range="long"))[0].sum()
    assert far == pytest.approx(checks.p_success(50, "hard", 0))
    p = to_t.sum()
    assert cp.attack_damage(shooter, tgt)[0] == pytest.approx((1 - p) ** 2)


def test_dx5_shotgun_long_range_dice():
    """DX5: a shotgun rolls 4D6 close and 2D6 far, and never impales (max 24 / 12)."""
    shotgun = Weapon(
        "shotgun",
        4,
        6,
        0,
        impale=False,
        firearm=True,
        adds_db=False,
        long_n=2,
        long_sides=6,
        long_flat=0,
    )
    s = Combatant(firearms=50, weapon=shotgun)
    tgt = Combatant()
    assert cp.attack_damage(s, tgt).size - 1 == 24
    assert cp.attack_damage(s, tgt, Variants(range="long")).size - 1 == 12


def test_dx6_hit_points():
    """DX6: ⌊(CON + SIZ)/10⌋."""
    assert Combatant(con=55, siz=64).hit_points == 11
    assert Combatant(con=50, siz=60).hit_points == 11


def _ko_duel(target, variants, weapon=HANDGUN):
    """A shooter (first, DX1) fires once; the target cannot hurt it (Fighting 0, criticals
    off); one round."""
    shooter = Combatant(dex=90, firearms=50, weapon=weapon)
    return cp.duel_exact(shooter, target, variants, round_cap=1)


@pytest.mark.parametrize(
    ("rule", "p_kill", "p_dead"),
    [
        ("greater", 0.1, 0.1 + 0.04 * 0.5),
        ("greater_equal", 0.1 + 0.4 / 10, 0.14),
        ("off", 0.0, 0.14 * 0.5),
    ],
)
def test_dx9_instant_death_variants(rule, p_kill, p_dead):
    """DX9 / DX-g1: handgun vs 10 HP: an extreme hit (10 + 1D10 ≥ 11, P .10) kills when
    'greater'; a regular 10 (P .40 · 1/10) too when 'greater_equal'. The loser's deaths
    count after the aftermath (Lethality outcomes): what falls to 0 HP alive (a major
    wound, DX8) is dying — with one CON roll (dying_horizon 1; CON 50 fails .5) half of it
    dies: greater .1 + .04·.5; greater_equal .14; off (.10 + .04)·.5."""
    tgt = Combatant(con=50, siz=50, fighting=0, dodge=0)
    assert tgt.hit_points == 10
    v = Variants(criticals=False, instant_death=rule, dying_horizon=1)
    assert cp.one_hit(Combatant(dex=90, firearms=50, weapon=HANDGUN), tgt, v)[
        "p_kill"
    ] == pytest.approx(p_kill)
    res = _ko_duel(tgt, v)
    assert res.loser_dead[0] == pytest.approx(p_dead)
    assert res.deaths[1] == pytest.approx(p_dead)
    assert res.loser_fate[0, 1] == pytest.approx(0.14 - p_dead)


def test_dx7_major_wound_con_roll():
    """DX7: bat (1D8, DB 0, blunt) vs 12 HP, CON 60: a hit of 6+ (≥ half) is a major wound;
    the CON roll fails with P .4 → unconscious. P(out in round 1) =
    (.40 · 3/8 + .10 [extreme = 8]) · .4 = .1."""
    att = Combatant(dex=90, strength=50, siz=60, fighting=50, weapon=BAT)
    tgt = Combatant(con=60, siz=60, fighting=0, dodge=0)
    assert tgt.hit_points == 12
    res = cp.duel_exact(att, tgt, NO_CRIT, round_cap=1)
    assert res.outcome[0] == pytest.approx(0.1)
    assert res.loser_dead[0] == 0.0


def test_dx8_zero_hp_major_wound_dying_and_dying_rolls_kill():
    """DX8: at 0 HP the victim is out (dying with a major wound); with several on a side
    the fight goes on and the dying roll CON each round: some die (instant death off).
    After the fight (aftermath ``leave``) the dying keep rolling CON (25, criticals off:
    fails .75): with one roll (dying_horizon 1) .5·.75 die, .5·.25 stay dying; with the
    default horizon (0: until a roll fails) all .5 die."""
    tgt = Combatant(con=25, siz=25, fighting=0, dodge=0)  # 5 HP, any rifle hit ≥ 6
    one = Variants(criticals=False, instant_death="off", dying_horizon=1)
    res = _ko_duel(tgt, one, weapon=RIFLE)
    assert res.outcome[0] == pytest.approx(0.5)
    assert res.loser_fate[0] == pytest.approx([0.375, 0.125, 0.0])
    res = _ko_duel(tgt, Variants(criticals=False, instant_death="off"), weapon=RIFLE)
    assert res.loser_fate[0] == pytest.approx([0.5, 0.0, 0.0])
    weak = Combatant(con=20, siz=30, dex=30, fighting=20, dodge=10, weapon=KNIFE)
    brute = Combatant(con=80, siz=80, dex=80, fighting=80, dodge=50, weapon=RIFLE)
    mc = cp.fight_mc(
        [weak, weak, weak], [brute], 4000, seed=1, variants=Variants(instant_death="off")
    )
    assert mc.deaths[0] > 0


def test_dx10_outnumbered_bonus_die_helps_the_group():
    """DX10: after a dodge, later melee attacks that round get a bonus die."""
    a = LIB["novice"]
    b = LIB["expert"]
    on = cp.fight_mc([a, a, a], [b], 40_000, seed=7, variants=Variants(outnumbered=True))
    off = cp.fight_mc([a, a, a], [b], 40_000, seed=7, variants=Variants(outnumbered=False))
    n = 40_000
    p_on, p_off = on.p_outcome()[0], off.p_outcome()[0]
    assert p_on - p_off > 5 * sqrt(p_on * (1 - p_on) / n + p_off * (1 - p_off) / n)


def test_variants_parse_and_reject():
    v = parse_variants(Variants, ["instant_death=greater_equal", "range=long"])
    assert v.instant_death == "greater_equal"
    with pytest.raises(InputError, match="instant_death"):
        parse_variants(Variants, ["instant_death=sometimes"])


# --------------------------------------------------------------- MC vs exact

MATCHUPS = [
    ("competent", "competent", Variants()),
    ("competent_swordsman", "competent_brawler", Variants()),
    ("competent_shooter", "competent_armoured", Variants(range="point_blank")),
    ("expert", "novice", Variants(instant_death="greater_equal", extreme_damage=False)),
    ("master", "competent_shooter", Variants(criticals=False)),
]


@pytest.mark.parametrize(("a", "b", "variants"), MATCHUPS)
def test_mc_matches_exact_duel(a, b, variants):
    """DX1–DX9, DX11 MC kernel vs the absorbing Markov chain: outcome, loser dead, rounds
    and standing cells within 5σ + 1/n (fixed seed)."""
    n = 100_000
    exact = cp.duel_exact(LIB[a], LIB[b], variants, round_cap=20)
    mc = cp.duel_mc(LIB[a], LIB[b], n, seed=13, variants=variants, round_cap=20)
    assert exact.outcome.sum() == pytest.approx(1.0)
    cells = [
        (mc.p_outcome(), exact.outcome),
        (mc.loser_dead / n, exact.loser_dead),
        (mc.deaths / n, exact.deaths),
        (mc.rounds.ravel() / n, exact.rounds.ravel()),
        (mc.standing.ravel() / n, exact.standing.ravel()),
    ]
    for got, want in cells:
        for p_mc, p in zip(got, want, strict=True):
            assert abs(p_mc - p) <= tol(min(p, 1.0), n)
    # hits are counts per fight, not Bernoulli cells: a loose sanity bound only
    assert np.abs(mc.hits / n - exact.hits).max() < 0.02


def test_multi_shot_duel_mc_matches_exact():
    """DX5 two shots with a penalty die each, each shot one chain step."""
    n = 100_000
    two = Combatant(dex=50, con=50, siz=60, firearms=60, weapon=HANDGUN, shots=2)
    foe = LIB["competent_swordsman"]
    exact = cp.duel_exact(two, foe, round_cap=10)
    mc = cp.duel_mc(two, foe, n, seed=21, round_cap=10)
    for p_mc, p in zip(mc.p_outcome(), exact.outcome, strict=True):
        assert abs(p_mc - p) <= tol(p, n)
    assert abs(mc.loser_dead[0] / n - exact.loser_dead[0]) <= tol(exact.loser_dead[0], n)


def test_one_thread_equals_two_threads():
    """Same seed, 1 or 2 numba threads: bit-identical histograms."""
    sides = ([LIB["novice"], LIB["competent_shooter"]], [LIB["expert"]])
    v = Variants(targeting="random")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cp.fight_mc(*sides, 100_000, seed=3, variants=v)
        numba.set_num_threads(2)
        two = cp.fight_mc(*sides, 100_000, seed=3, variants=v)
    finally:
        numba.set_num_threads(before)
    for key in ("outcome", "rounds", "standing", "hits", "deaths", "loser_dead"):
        np.testing.assert_array_equal(getattr(one, key), getattr(two, key))


# --------------------------------------------------------------- invariants


@pytest.mark.parametrize("targeting", ["first", "random", "weakest"])
def test_fight_invariants(targeting):
    """DX-g3 targeting choices: counts add up, standing never grows (the dead and
    unconscious do not come back or act), deaths never exceed the combatants, the dead
    losers are among the losses."""
    n = 20_000
    res = cp.fight_mc(
        [LIB["novice"], LIB["competent_brawler"]],
        [LIB["master"]],
        n,
        seed=2,
        variants=Variants(targeting=targeting),
        round_cap=30,
    )
    assert res.outcome.sum() == n == res.rounds.sum()
    assert (res.standing >= 0).all()
    assert (np.diff(res.standing, axis=0) <= 0).all()
    assert res.standing[0].tolist() == [2 * n, n]
    assert res.deaths[0] <= 2 * n
    assert res.deaths[1] <= n
    assert (res.loser_dead <= res.outcome[:2]).all()
    assert res.loser_dead[1] <= res.deaths[0] / 2
    assert res.loser_dead[0] <= res.deaths[1]


def test_exact_probabilities_sum_to_one_and_neither_at_cap():
    res = cp.duel_exact(LIB["untrained"], LIB["untrained"], round_cap=3)
    assert res.outcome.sum() == pytest.approx(1.0)
    assert res.rounds.sum() == pytest.approx(1.0)
    assert res.outcome[2] > 0
    assert (res.standing >= -1e-12).all()


def test_bad_inputs():
    with pytest.raises(InputError, match="round_cap"):
        cp.duel_exact(LIB["novice"], LIB["novice"], round_cap=0)
    with pytest.raises(InputError, match="defend"):
        Combatant(defend="parry")
    with pytest.raises(InputError, match="shots"):
        Combatant(shots=4)
    with pytest.raises(InputError, match="side 0"):
        cp.fight_mc([], [LIB["novice"]], 10)


# --------------------------------------------------------------- data validation

BASE = """
[[damage_bonus]]
max = 124
bonus = "0"
build = 0
[weapons.knife]
damage = "1D4"
impale = true
[weapons.handgun]
damage = "1D10"
impale = true
firearm = true
[archetypes.competent]
strength = 60
con = 60
siz = 60
dex = 60
fighting = 50
firearms = 50
dodge = 30
weapon = "knife"
"""


def test_library_loads_the_ladder_and_styles():
    lib = library("percentile")
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
    assert lib["competent_brawler"].db == (1, 4, 0)  # STR 75 + SIZ 70 = 145
    assert lib["competent_armoured"].armour > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[archetypes.expert]\nbase = "competent"\nweapon = "lazer"\n',
            "percentile.toml: archetypes.expert.weapon: unknown weapon 'lazer'; "
            "known: handgun, knife",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\nmelee_weapon = "handgun"\n',
            "percentile.toml: archetypes.expert.melee_weapon: 'handgun' is a firearm",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\nfighting = 130\n',
            "percentile.toml: archetypes.expert.fighting: "
            "Input should be less than or equal to 100",
        ),
        (
            '[archetypes.expert]\nbase = "competent"\ndefend = "parry"\n',
            "percentile.toml: archetypes.expert.defend:",
        ),
        (
            '[weapons.bow]\ndamage = "d6"\nimpale = true\n',
            "percentile.toml: weapons.bow.damage: cannot read dice 'd6'",
        ),
        ('[weapons.bow]\ndamage = "1D6"\n', "percentile.toml: weapons.bow.impale: Field required"),
    ],
)
def test_library_validation_errors(tmp_path, extra, message):
    path = tmp_path / "percentile.toml"
    path.write_text(BASE + extra)
    with pytest.raises(InputError) as info:
        library("percentile", path)
    assert str(info.value).startswith(message)


def test_pure_python_baseline_agrees_with_exact():
    """The benchmark's pure-Python duel (an independent implementation of DX1–DX9, dodging
    defenders) agrees with the exact chain within 5σ + 1/n."""
    import importlib.util
    import random
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_combat_middle_pct.py"
    spec = importlib.util.spec_from_file_location("bench_combat_middle_pct", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    a = Combatant(strength=70, con=50, siz=60, dex=60, fighting=60, dodge=40, weapon=KNIFE)
    b = Combatant(strength=50, con=40, siz=50, dex=50, fighting=50, dodge=45, weapon=BAT, armour=1)
    n = 20_000
    rng = random.Random(7)
    wins = [0, 0, 0]
    for _ in range(n):
        wins[bench.py_percentile_duel(a, b, rng, 20)] += 1
    exact = cp.duel_exact(a, b, round_cap=20)
    for k in range(3):
        assert abs(wins[k] / n - exact.outcome[k]) <= tol(exact.outcome[k], n)


ABOVE = Variants(critical_level="above_extreme")


@pytest.mark.parametrize("defend", ["dodge", "fight_back"])
def test_dx_g4_critical_outranks_extreme(defend):
    """DX-g4 ``above_extreme`` (the published game's six outcomes: a critical beats an
    extreme). Skill 50: fail .5, regular .25, hard .15, extreme .09 (02–10), critical .01.
    Dodge (DX2, the attacker needs a higher level):
    .25·.5 + .15·.75 + .09·.90 + .01·.99 = .3284.
    Fight back (the attacker wins ties): .25·.75 + .15·.90 + .09·.99 + .01·1 = .4216;
    the defender strictly higher: .3284 (symmetric). A critical deals extreme damage
    (DX4): bat 1D8 blunt → 8."""
    att = Combatant(fighting=50, weapon=BAT)
    tgt = Combatant(fighting=50, dodge=50, defend=defend, weapon=BAT)
    assert cp.level_pmf(50, 0, ABOVE) == pytest.approx([0.5, 0.25, 0.15, 0.09, 0.01])
    to_t, to_a, _ = cp.action_outcomes(att, tgt, ABOVE)
    if defend == "dodge":
        assert to_t.sum() == pytest.approx(0.3284)
        assert to_a.sum() == 0.0
        # P(8 damage) = extreme-or-critical wins .09·.90 + .01·.99 + regular/hard wins /8
        p8 = 0.09 * 0.90 + 0.01 * 0.99 + (0.25 * 0.5 + 0.15 * 0.75) / 8
        assert to_t[8] == pytest.approx(p8)
    else:
        assert to_t.sum() == pytest.approx(0.4216)
        assert to_a.sum() == pytest.approx(0.3284)
    # the default keeps a critical at the extreme level (test_dx2_dodge_and_fight_back...)
    assert cp.level_pmf(50, 0, Variants()) == pytest.approx([0.5, 0.25, 0.15, 0.10, 0.0])


def test_dx_g4_mc_matches_exact():
    """DX-g4 in the Monte Carlo kernel: a fight-back duel, MC vs the exact chain,
    tolerance 5·sqrt(p(1−p)/n) + 1/n on each outcome."""
    a = Combatant(fighting=60, dodge=40, con=50, siz=50, weapon=BAT, defend="fight_back")
    b = Combatant(fighting=55, dodge=50, con=50, siz=60, weapon=KNIFE, defend="fight_back")
    n = 40_000
    ex = cp.duel_exact(a, b, ABOVE, round_cap=20)
    mc = cp.duel_mc(a, b, trials=n, seed=11, variants=ABOVE, round_cap=20)
    for k in range(3):
        p = ex.outcome[k]
        assert abs(mc.outcome[k] / n - p) <= tol(p, n)
    assert ex.outcome.sum() == pytest.approx(1.0)


# --------------------------------------------------------------- DX12 / DX13 (cover, melee)


def _value(tens: int, units: int) -> int:
    """D4: tens 0 with units 0 reads 100."""
    return 100 if tens == 0 and units == 0 else 10 * tens + units


def _p_at_most(skill: int, penalty: int) -> float:
    """P(d100 ≤ skill) with ``penalty`` penalty dice, by enumerating every tens die (D4:
    the penalty keeps the highest tens, i.e. the highest reading)."""
    hit = total = 0
    for units in range(10):
        for tens in itertools.product(range(10), repeat=penalty + 1):
            total += 1
            hit += max(_value(t, units) for t in tens) <= skill
    return hit / total


def test_dx12_dive_for_cover_penalty_die_hand_worked():
    """DX12 + D4: a diver (Dodge 40 → dive succeeds on 01–40, D1) gives the shooter a
    penalty die; Firearms 50 with one penalty die hits 25% (enumerated tens dice, = ½²),
    so one shot hits 0.4·0.25 + 0.6·0.5 = 0.40. Criticals off (D-g1) so 01 is plain."""
    assert _p_at_most(50, 1) == pytest.approx(0.25)
    assert _p_at_most(50, 2) == pytest.approx(0.125)
    shooter = Combatant(firearms=50, weapon=HANDGUN)
    diver = Combatant(dodge=40, weapon=KNIFE, defend="dive_for_cover")
    p_dive = 0.40
    want = p_dive * _p_at_most(50, 1) + (1 - p_dive) * _p_at_most(50, 0)
    assert want == pytest.approx(0.40)
    assert cp.one_hit(shooter, diver, NO_CRIT)["p_hit"] == pytest.approx(want)
    # a diver still just dodges a melee attack (DX2)
    brawler = Combatant(fighting=50)
    dodger = Combatant(dodge=40)
    assert cp.one_hit(brawler, diver, NO_CRIT)["p_hit"] == pytest.approx(
        cp.one_hit(brawler, dodger, NO_CRIT)["p_hit"]
    )
    # two shots (DX5 penalty die each) share one dive: P(no hit) mixes per dive roll
    two = Combatant(firearms=50, weapon=HANDGUN, shots=2)
    miss = p_dive * (1 - _p_at_most(50, 2)) ** 2 + (1 - p_dive) * (1 - _p_at_most(50, 1)) ** 2
    assert cp.attack_damage(two, diver, NO_CRIT)[0] == pytest.approx(miss)
    assert cp.one_hit(two, diver, NO_CRIT)["p_hit"] == pytest.approx(
        p_dive * 0.125 + (1 - p_dive) * 0.25
    )


DIVE_CASES = [
    # DX12 / DX-g5 forfeit: the gun acts first (DX1, DEX + 50), the diver never attacks
    (Combatant(firearms=55, weapon=HANDGUN), Variants(), True),
    # the diver acts first (no readied firearms): one attack in round 1, then it dives
    (
        Combatant(dex=40, firearms=55, weapon=HANDGUN, shots=2),
        Variants(readied_firearms=False),
        False,
    ),
    # DX-g5 free: the dive costs nothing, the knife fights on
    (Combatant(firearms=55, weapon=HANDGUN, shots=2), Variants(cover_cost="free"), False),
]


@pytest.mark.parametrize(("gun", "variants", "diver_never_wins"), DIVE_CASES)
def test_dx12_mc_matches_exact_duel_with_a_diver(gun, variants, diver_never_wins):
    """DX12 / DX-g5 MC kernel vs the exact chain, outcome, rounds and deaths within
    5σ + 1/n (fixed seed)."""
    n = 60_000
    diver = Combatant(
        dex=70, con=60, siz=60, fighting=50, dodge=50, weapon=KNIFE, defend="dive_for_cover"
    )
    exact = cp.duel_exact(gun, diver, variants, round_cap=12)
    mc = cp.duel_mc(gun, diver, n, seed=5, variants=variants, round_cap=12)
    assert exact.outcome.sum() == pytest.approx(1.0)
    cells = [
        (mc.p_outcome(), exact.outcome),
        (mc.deaths / n, exact.deaths),
        (mc.rounds.ravel() / n, exact.rounds.ravel()),
    ]
    for got, want in cells:
        for p_mc, p in zip(got, want, strict=True):
            assert abs(p_mc - p) <= tol(min(p, 1.0), n)
    if diver_never_wins:
        assert exact.outcome[1] == 0.0
        assert mc.outcome[1] == 0
    else:
        assert exact.outcome[1] > 0.01
    # a free dive only helps: a plain dodger is shot down more often (DX5)
    plain = cp.duel_exact(
        gun,
        Combatant(dex=70, con=60, siz=60, fighting=50, dodge=50, weapon=KNIFE),
        variants,
        round_cap=12,
    )
    if variants.cover_cost == "free":
        assert exact.outcome[0] < plain.outcome[0]


@pytest.mark.parametrize("into_melee", [False, True])
def test_dx13_firing_into_melee_hand_worked(into_melee):
    """DX13: the target exchanges a (never landing) melee attack with the shooter's ally
    every round, so from round 2 on each shot gets a penalty die: expected hits in R
    rounds = 0.5 + 0.25·(R − 1) (D4 enumeration; criticals off) instead of 0.5·R. Armour 20
    (DX11) makes every hit 0 damage, so the fight runs to the cap; the hit count is a sum
    of independent Bernoulli shots, checked within 5σ + 1/n."""
    n, cap = 20_000, 6
    ally = Combatant(fighting=0, dodge=0)
    shooter = Combatant(firearms=50, weapon=HANDGUN)
    target = Combatant(fighting=0, dodge=0, armour=20)
    v = Variants(criticals=False, firing_into_melee=into_melee)
    mc = cp.fight_mc([ally, shooter], [target], n, seed=3, variants=v, round_cap=cap)
    assert mc.outcome[2] == n
    later = _p_at_most(50, 1 if into_melee else 0)
    mean = 0.5 + later * (cap - 1)
    var = 0.25 + (cap - 1) * later * (1 - later)
    assert abs(mc.hits.sum() / n - mean) <= 5 * sqrt(var / n) + 1 / n


def test_dx12_dx13_variants_and_tactic_validation():
    """DX-g5 / DX13 are named variants; a bad tactic names the known ones."""
    v = parse_variants(Variants, ["cover_cost=free", "firing_into_melee=true"])
    assert v.cover_cost == "free"
    assert v.firing_into_melee
    with pytest.raises(InputError, match="cover_cost"):
        parse_variants(Variants, ["cover_cost=sometimes"])
    with pytest.raises(InputError, match="dive_for_cover"):
        Combatant(defend="hide")


def test_dx12_dx13_one_thread_equals_two_threads():
    """DX12 forfeits and DX13 engagement live in per-chunk arrays: same seed, 1 or 2 numba
    threads give bit-identical histograms."""
    diver = Combatant(fighting=40, dodge=45, weapon=KNIFE, defend="dive_for_cover")
    sides = (
        [LIB["competent_brawler"], Combatant(firearms=50, weapon=HANDGUN)],
        [diver, LIB["novice"]],
    )
    v = Variants(firing_into_melee=True, targeting="random")
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cp.fight_mc(*sides, trials=20_000, seed=9, variants=v)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = cp.fight_mc(*sides, trials=20_000, seed=9, variants=v)
    finally:
        numba.set_num_threads(old)
    for name in ("outcome", "rounds", "loser_dead", "deaths", "hits"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
