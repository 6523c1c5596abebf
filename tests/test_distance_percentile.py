"""percentile combat that starts apart — the EXTENSION's DX14–DX16 (Call of Cthulhu 7th
ed., not from the seed; docs/RULES.md "Distance, movement and cover in percentile"):
hand-worked rule numbers, the exact chain against Monte Carlo at several distances,
distance 0 unchanged, plans and their validation.

Sources of the figures (cited in engines/systems/percentile/archetypes.toml too): the Call of
Cthulhu Keeper Rulebook, 7th ed. (Chaosium 2014), as the open-source CoC7 system for
Foundry VTT transcribes it (https://github.com/Miskatonic-Investigative-Society/
CoC7-FoundryVTT): MOV from STR, DEX and SIZ (coc7/models/actor/document-class.js), long
and extreme range at 2 and 4 times the base range (coc7/models/item/weapon-system.js),
point-blank within DEX/15 yards (coc7/apps/chat-combat-ranged.js), the weapon table
(compendiums/en-wiki-weapons.yaml: 9mm handgun 15 yards, .30-06 rifle 110 yards, 12-gauge
shotgun 4D6/2D6/1D6 at 10/20/50 yards) and the shotgun's regular difficulty at every
range (its issue #725, citing Keeper Rulebook p. 65)."""

from __future__ import annotations

import dataclasses
import hashlib
from math import sqrt

import numba
import numpy as np
import pytest

from analysis.combat.archetypes import combatant, combatants, library
from engines.distance import PLANS, default_plan
from engines.errors import InputError
from engines.systems.percentile import combat as cp
from engines.systems.percentile.archetypes import DATA_FILE
from engines.systems.percentile.combat import Combatant, Variants
from engines.systems.percentile.combat import exact as ex
from engines.systems.percentile.combat import kernel as kn
from engines.systems.percentile.combat import rules as rl
from engines.variants import parse_variants

LIB = combatants("percentile")
SHOOTER = LIB["competent_shooter"]  # Firearms 50, DEX 60, handgun (base 15 yards)
CHARGER = LIB["competent"]  # Fighting 55, bat, STR = DEX = SIZ = 60: MOV 8
DISTANCES = (0, 10, 20, 40)
TRIALS = 100_000


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity): the
    project's Monte Carlo vs exact tolerance (docs/ARCHITECTURE.md, Tests)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def rounds_of(a, b, d: int, first: int = 0, n: int = 3, **variants):
    """The first ``n`` rounds of the exact chain's schedule: per round, each action as
    (attacker, P(the action hits) summed over its DX12 branches)."""
    g = ex.apart_rounds(a, b, Variants(distance=d, **variants), first)
    out = []
    for _ in range(n):
        out.append(
            [
                (att, round(float(sum(w * br[0].sum() for w, br in branches)), 4))
                for att, branches in next(g)
            ]
        )
    return out


# --------------------------------------------------------------- DX14 movement


@pytest.mark.parametrize(
    ("strength", "dex", "siz", "mov"),
    [(50, 50, 60, 7), (60, 60, 60, 8), (70, 50, 60, 8), (50, 70, 60, 8), (75, 80, 70, 9)],
)
def test_dx14_mov_from_str_dex_siz(strength, dex, siz, mov):
    """DX14: MOV 7 when STR and DEX are both below SIZ, 9 when both are above, else 8."""
    assert rl.mov_of(strength, dex, siz) == mov
    assert Combatant(strength=strength, dex=dex, siz=siz).move == mov
    assert Combatant(strength=strength, dex=dex, siz=siz, mov=12).move == 12


def test_dx14_units_are_yards_converted_to_centimetres():
    """DX14 / DX15 in the engine's unit: MOV 8 yards = 731.52 cm -> 732; the handgun's
    15 / 30 / 60 yards -> 1372 / 2743 / 5486 cm; point-blank DEX/5 feet = 12 feet for DEX
    60 -> 366 cm."""
    row = SHOOTER.row()
    assert (row[rl.MOV_CM], row[rl.MOV_YD]) == (732, 8)
    assert (row[rl.BASE_CM], row[rl.LONG_CM], row[rl.EXT_CM]) == (1372, 2743, 5486)
    assert row[rl.PB_CM] == 366


def test_dx14_a_charger_with_mov_8_crosses_20_m_in_one_round_and_40_m_in_two():
    """DX14 hand-worked: a MOV 8 charger (7.32 m a round; a charge up to 5 x MOV =
    36.58 m, then one melee attack at the end of the round) against a shooter who holds.

    20 m: the gap to reach (1 m) is 19 m, more than MOV but within 36.58 m, so it charges
    and strikes at the end of round 1 — after the shooter's shot at long range (DX15: 20 m
    is beyond the 13.72 m base, within 27.43 m: a hard success, <= 25 for Firearms 50:
    0.25). 40 m: 39 m is beyond a charge, so in round 1 it runs 36.58 m (to 3.42 m) and
    only the shooter fires (extreme range: <= 10, 0.10); in round 2 it closes the last
    2.42 m (within MOV) and attacks normally, after the shooter's point-blank shot (a
    bonus die, cancelled by the penalty die for a target that ran at full speed, DX16:
    <= 50, 0.5). The bat then hits 0.3972 of the time against Dodge 40 (DX2). With a
    charge of 1 x MOV the 19 m take three rounds: 7.32 + 7.32 = 14.63 m, then 4.37 m."""
    assert kn.decide(0, False, 2000, 732, 100, 0, 0, 5, -1, 0, 0) == (100, 2, 1, 0)
    assert kn.decide(0, False, 4000, 732, 100, 0, 0, 5, -1, 0, 0) == (340, 0, 1, 0)
    assert rounds_of(SHOOTER, CHARGER, 20, n=2) == [
        [(0, 0.25), (1, 0.3972)],
        [(0, 0.5), (1, 0.3972)],
    ]
    assert rounds_of(SHOOTER, CHARGER, 40, n=2) == [[(0, 0.1)], [(0, 0.5), (1, 0.3972)]]
    slow = rounds_of(SHOOTER, CHARGER, 20, n=3, charge_factor=1)
    assert [[a for a, _ in r] for r in slow] == [[0], [0], [0, 1]]


def test_dx14_a_holding_melee_fighter_closes_a_mov_a_turn():
    """DX14: plan hold (melee) closes MOV (7.32 m) a turn and attacks when the rest is
    within MOV; never at full speed."""
    assert kn.decide(1, False, 2000, 732, 100, 0, 0, 5, -1, 0, 0) == (1268, 0, 0, 0)
    assert kn.decide(1, False, 800, 732, 100, 0, 0, 5, -1, 0, 0) == (100, 1, 0, 0)


# --------------------------------------------------------------- DX15 ranges


def _mods(a, b, d, cover=0, fast=0, **variants):
    cmb = np.stack([a.row(), b.row()])
    return tuple(
        int(x)
        for x in kn.shot_mods(cmb, Variants(distance=1, **variants).rule(), 0, 1, d, cover, fast)
    )


def test_dx15_bands_and_the_chance_to_hit_at_extreme_range():
    """DX15 hand-worked for the competent shooter (Firearms 50, handgun base 15 yards =
    13.72 m): point-blank (<= 3.66 m) a bonus die, P(<= 50) = 1 - 0.5^2 = 0.75; base range
    a regular success, 0.50; long (<= 27.43 m) a hard one, <= 25: 0.25; extreme (<= 54.86
    m) an extreme one, <= 10: 0.10 (a critical 01 counts extreme, D-g1); beyond, no shot."""
    v = Variants(distance=50)
    for d, shot, p in (
        (300, (1, 1, 0), 0.75),
        (1300, (0, 1, 0), 0.50),
        (2700, (0, 2, 0), 0.25),
        (5400, (0, 3, 0), 0.10),
    ):
        assert _mods(SHOOTER, CHARGER, d) == shot
        to_t = cp.action_outcomes(SHOOTER, CHARGER, v, 0, shot)[0]
        assert to_t.sum() == pytest.approx(p)
    assert kn.range_band(5487, 366, 1372, 2743, 5486) == 4
    # at extreme range every hit is an extreme success: the handgun impales (DX4),
    # 10 + 1D10, mean 15.5
    to_t = cp.action_outcomes(SHOOTER, CHARGER, v, 0, (0, 3, 0))[0]
    assert (np.arange(to_t.size) * to_t).sum() / to_t.sum() == pytest.approx(15.5)


def test_dx15_shotgun_damage_by_band_and_regular_difficulty():
    """DX15 / DX-g10: the 12-gauge deals 4D6 within 10 yards (9.14 m), 2D6 to 20 (18.29
    m), 1D6 to 50 (45.72 m), needing a regular success at each (Keeper Rulebook p. 65);
    by_range: hard and extreme as any firearm. A long arm: no point-blank bonus die unless
    DX-g11."""
    gun = combatant("percentile", "competent_shooter", {"weapon": "shotgun"})
    assert _mods(gun, CHARGER, 900) == (0, 1, 0)
    assert _mods(gun, CHARGER, 1500) == (0, 1, 1)
    assert _mods(gun, CHARGER, 3000) == (0, 1, 2)
    assert _mods(gun, CHARGER, 3000, shotgun_difficulty="by_range") == (0, 3, 2)
    assert _mods(gun, CHARGER, 200) == (0, 1, 0)
    assert _mods(gun, CHARGER, 200, point_blank_long_arms=True) == (1, 1, 0)
    v = Variants(distance=30)
    means = []
    for dband in (0, 1, 2):
        pmf = ex.weapon_damage(gun, gun.weapon, CHARGER, False, v, dband)
        means.append((np.arange(pmf.size) * pmf).sum())
    assert means == pytest.approx([14.0, 7.0, 3.5])


# --------------------------------------------------------------- DX16 cover, movement


def test_dx16_cover_prone_and_moving_target_penalty_dice():
    """DX16: a target in partial cover gives a penalty die at any range; a prone one not at
    point-blank; a target that ran at full speed (more than MOV) a penalty die when its MOV
    is 8 or more ('fast'), whatever its MOV with 'any', never with 'off'."""
    assert _mods(SHOOTER, CHARGER, 1300, cover=1) == (-1, 1, 0)
    assert _mods(SHOOTER, CHARGER, 300, cover=1) == (0, 1, 0)
    assert _mods(SHOOTER, CHARGER, 300, cover=1, cover_stance="prone") == (1, 1, 0)
    assert _mods(SHOOTER, CHARGER, 1300, cover=1, cover_stance="prone") == (-1, 1, 0)
    slow = LIB["untrained"]  # STR 50, DEX 50, SIZ 60: MOV 7
    assert _mods(SHOOTER, CHARGER, 1300, fast=1) == (-1, 1, 0)
    assert _mods(SHOOTER, slow, 1300, fast=1) == (0, 1, 0)
    assert _mods(SHOOTER, slow, 1300, fast=1, moving_target="any") == (-1, 1, 0)
    assert _mods(SHOOTER, CHARGER, 1300, fast=1, moving_target="off") == (0, 1, 0)


def test_dx16_taking_cover_costs_the_first_turn_then_shots_at_it_take_a_penalty_die():
    """DX16 / DX-g12: a shooter with plan cover spends its first turn reaching cover (no
    shot), then shoots from it; shots at it once it is in cover take a penalty die: at 10
    m (base range) Firearms 50 with a penalty die, P(<= 50) = 0.5^2 = 0.25 (without, 0.5).
    Acting first (``first`` = 0) it is in cover before the other's first shot; acting
    second, that shot comes before. With take_cover=free it shoots in round 1 too."""
    hider = combatant("percentile", "competent_shooter", {"plan": "cover"})
    assert rounds_of(hider, SHOOTER, 10, first=0, n=2) == [[(1, 0.25)], [(0, 0.5), (1, 0.25)]]
    assert rounds_of(hider, SHOOTER, 10, first=1, n=2) == [[(1, 0.5)], [(1, 0.25), (0, 0.5)]]
    assert rounds_of(hider, SHOOTER, 10, n=1, take_cover="free") == [[(0, 0.5), (1, 0.25)]]


# --------------------------------------------------------------- Monte Carlo vs exact


@pytest.mark.slow
@pytest.mark.parametrize("d", DISTANCES)
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("competent_shooter", "competent"),  # shooter vs charger
        ({"archetype": "competent_shooter", "plan": "cover"}, "competent_shooter"),
        ({"archetype": "expert_shooter", "plan": "kite"}, "expert_swordsman"),
        (
            {"archetype": "competent_shooter", "weapon": "shotgun", "tactic": "dive_for_cover"},
            {"archetype": "competent", "plan": "hold"},
        ),
    ],
)
def test_mc_matches_exact_at_distance(d, a, b):
    """DX14–DX16: the exact chain (distance carried per step) and the Monte Carlo kernel
    (positions on a line) agree within 5 SE + 1/n at 0, 10, 20 and 40 m, on the outcome
    and on each round of the end (fixed seed)."""
    fa, fb = combatant("percentile", a), combatant("percentile", b)
    v = Variants(distance=d)
    e = cp.duel_exact(fa, fb, v)
    m = cp.duel_mc(fa, fb, TRIALS, seed=11, variants=v)
    assert e.outcome.sum() == pytest.approx(1.0)
    for p, k in zip(e.outcome, m.outcome, strict=True):
        assert abs(k / TRIALS - p) <= tol(p, TRIALS)
    for p, k in zip(e.rounds.ravel(), m.rounds.ravel(), strict=True):
        assert abs(k / TRIALS - p) <= tol(p, TRIALS)
    for p, k in zip(e.loser_fate.ravel(), m.loser_fate.ravel(), strict=True):
        assert abs(k / TRIALS - p) <= tol(p, TRIALS)


def test_aftermath_at_distance_mc_matches_exact():
    """DX-g8 in a fight that started apart: the winner walks up and finishes the fallen at
    point-blank; the exact aftermath and Monte Carlo agree."""
    v = Variants(distance=20, aftermath="finish")
    e = cp.duel_exact(SHOOTER, CHARGER, v)
    m = cp.duel_mc(SHOOTER, CHARGER, TRIALS, seed=5, variants=v)
    for p, k in zip(e.loser_fate.ravel(), m.loser_fate.ravel(), strict=True):
        assert abs(k / TRIALS - p) <= tol(p, TRIALS)


# --------------------------------------------------------------- what distance does


def test_the_shooter_gains_from_distance():
    """The issue's question: a shooter facing a charger. Exact P(shooter wins): every
    starting distance beats the engaged fight (at 0 m the shooter's first shot is the only
    one before the bat, and later shots have no point-blank bonus), and 40 m beats 20 m —
    one more round of shooting before the charge lands. Within one charge (1-37 m) it
    falls as the first shot moves from base to long range (10 m > 20 m): the race is
    between closing speed and range bands, not only the coin of who acts first."""
    p = {
        d: cp.duel_exact(SHOOTER, CHARGER, Variants(distance=d)).outcome[0] for d in (0, 10, 20, 40)
    }
    assert p[0] == pytest.approx(0.7014, abs=1e-4)
    assert all(p[d] > p[0] for d in (10, 20, 40))
    assert p[40] > p[20]
    assert p[10] > p[20]


def test_distance_zero_is_the_fight_of_before():
    """d0 = 0 gives the numbers of the code before the distance rules, bit for bit: the
    SHA-256 of every FightStats array, exact and Monte Carlo (seed 1), as that code gave
    them."""
    fields = (
        "outcome",
        "rounds",
        "loser_dead",
        "standing",
        "deaths",
        "hits",
        "loser_fate",
        "loser_fate_sq",
        "fates",
        "fates_sq",
    )

    def digest(st):
        h = hashlib.sha256()
        for f in fields:
            h.update(np.ascontiguousarray(getattr(st, f)).tobytes())
        return h.hexdigest()[:16]

    before = {
        ("competent_shooter", "competent"): ("d026adca3318cfcc", "62b980e79d8ecc11"),
        ("expert_shooter", "competent_swordsman"): ("d0e08459c3a89e21", "c60616e2b27675ba"),
        ("competent_armoured", "expert_shooter"): ("d15326adba49fd2d", "240239370b1a8198"),
    }
    for (a, b), (h_exact, h_mc) in before.items():
        assert digest(cp.duel_exact(LIB[a], LIB[b])) == h_exact
        assert digest(cp.duel_mc(LIB[a], LIB[b], 20_000, seed=1)) == h_mc
    group = cp.fight_mc(
        [SHOOTER] * 2, [LIB["competent_swordsman"]] * 2 + [LIB["expert"]], 20_000, seed=7
    )
    assert digest(group) == "6c7931925a73afe6"


# --------------------------------------------------------------- group fights


def test_group_fight_apart_invariants_and_threads():
    """A group fight that starts 30 m apart: each fighter its own position, targeting by
    reach; the histograms add up, and 1 and 2 numba threads give the same numbers."""
    side0 = [SHOOTER, combatant("percentile", "competent_shooter", {"plan": "cover"})]
    side1 = [LIB["competent_swordsman"], LIB["expert"], CHARGER]
    v = Variants(distance=30, targeting="random")
    n = 20_000
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = cp.fight_mc(side0, side1, n, seed=3, variants=v)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = cp.fight_mc(side0, side1, n, seed=3, variants=v)
    finally:
        numba.set_num_threads(old)
    assert np.array_equal(one.outcome, two.outcome)
    assert np.array_equal(one.rounds, two.rounds)
    assert one.outcome.sum() == n
    assert one.fates.sum(axis=1).tolist() == [2 * n, 3 * n]
    # distance changes the fight: the engaged one is another
    near = cp.fight_mc(side0, side1, n, seed=3, variants=Variants(targeting="random"))
    assert not np.array_equal(near.outcome, one.outcome)


# --------------------------------------------------------------- plans, validation


def test_plans_default_and_validation():
    """engines.distance: a firearm holds, any other weapon charges; kite and cover need a
    firearm; an unknown plan is a one-line error naming the plans."""
    assert PLANS == ("charge", "hold", "kite", "cover")
    assert (default_plan(True), default_plan(False)) == ("hold", "charge")
    assert SHOOTER.plan_in_force == "hold"
    assert CHARGER.plan_in_force == "charge"
    assert combatant("percentile", "competent_shooter", {"plan": "kite"}).plan == "kite"
    for plan in ("kite", "cover"):
        with pytest.raises(InputError, match="needs a"):
            combatant("percentile", "competent", {"plan": plan})
    with pytest.raises(InputError, match="plan"):
        combatant("percentile", "competent", {"plan": "jump"})
    with pytest.raises(InputError, match="unknown plan 'jump'"):
        Combatant(plan="jump")


def test_distance_variant_validation():
    """DX14: distance is whole metres 0..200; the range variant (DX-g2) belongs to a fight
    that starts engaged; a firearm needs a base range (DX15) to fight apart."""
    assert parse_variants(Variants, ["distance=20"]).distance == 20
    for bad in ("distance=201", "distance=-1", "distance=far"):
        with pytest.raises(InputError, match="distance"):
            parse_variants(Variants, [bad])
    with pytest.raises(InputError, match="range=long"):
        Variants(distance=10, range="long")
    assert Variants(distance=0, range="long").range == "long"
    bare = dataclasses.replace(
        SHOOTER, weapon=cp.Weapon("pistol", 1, 10, 0, impale=True, firearm=True, adds_db=False)
    )
    with pytest.raises(InputError, match="base range"):
        cp.duel_exact(bare, CHARGER, Variants(distance=10))
    with pytest.raises(InputError, match="base range"):
        cp.duel_mc(bare, CHARGER, 100, seed=1, variants=Variants(distance=10))
    cp.duel_exact(bare, CHARGER)  # engaged: no range needed


def test_data_file_ranges_are_validated(tmp_path):
    """DX15 in the data file: a melee weapon with a range is an error naming the key; a
    firearm without one loads (engaged fights need none) and is refused only in a fight
    that starts apart."""
    text = DATA_FILE.read_text(encoding="utf-8")
    bad = tmp_path / "percentile.toml"
    bad.write_text(text.replace("range = 15\n", ""), encoding="utf-8")
    gun = library("percentile", bad)["competent_shooter"].combatant()
    assert gun.weapon.base_range == 0
    cp.duel_exact(gun, CHARGER)
    with pytest.raises(InputError, match="without a base range"):
        cp.duel_exact(gun, CHARGER, Variants(distance=5))
    bad.write_text(
        text.replace('damage = "1D4"\n', 'damage = "1D4"\nrange = 3\n'), encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"weapons\.knife\.range"):
        library("percentile", bad)


def test_point_blank_at_zero_is_the_range_variant():
    """RULES.md "Point-blank at 0 m" (DX15, DX-g2). DX15: "point-blank (within DEX/5
    feet) gives a bonus die (not with long arms)". 1 m is within it (the band comes from
    the distance); 0 m is the engaged fight, whose firing range is DX-g2 ``range``
    (default normal, no bonus die); ``range = point_blank`` gives 0 m the 1 m figure."""
    from pathlib import Path

    rules = " ".join(
        (Path(__file__).resolve().parent.parent / "docs" / "RULES.md").read_text().split()
    )
    assert "point-blank (within DEX/5 feet) gives a bonus die (not with long arms)" in rules
    a = combatant("percentile", "competent_shooter")
    b = combatant("percentile", "competent")

    def p_a(**v):
        st = cp.duel_exact(a, b, Variants(**v))
        return float(st.outcome[0])

    at0, at1 = p_a(distance=0), p_a(distance=1)
    assert round(at0, 3) == 0.701
    assert round(at1, 3) == 0.845
    assert p_a(distance=0, range="point_blank") == pytest.approx(at1, abs=1e-12)
