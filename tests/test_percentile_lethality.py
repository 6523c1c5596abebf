"""percentile combat (EXTENSION of GAP D-g3, rules DX1–DX13, not from the seed):
lethality outcomes — DX8 dying rolls, the aftermath policies (RULES.md "Lethality
outcomes"; gaps DX-g6 dying_horizon, DX-g7 First Aid, DX-g8 attacks on a helpless
target), ``one_hit`` fates, MC vs the exact chain, and the DX13 default."""

from __future__ import annotations

from math import sqrt

import numba
import numpy as np
import pytest

from analysis.combat.archetypes import combatants
from engines.errors import InputError
from engines.systems.percentile import combat as cp
from engines.systems.percentile.combat import Combatant, Variants, Weapon
from engines.variants import parse_variants

LIB = combatants("percentile")
HANDGUN = Weapon("handgun", 1, 10, 0, impale=True, firearm=True, adds_db=False)
RIFLE = Weapon("rifle", 2, 6, 4, impale=True, firearm=True, adds_db=False)
# a gun that always deals exactly 5 (no dice; blunt, so an extreme success is 5 too, DX4)
FIVE = Weapon("five", 0, 1, 5, firearm=True, adds_db=False)


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def _target():
    """CON 50, SIZ 50 → 10 HP (DX6); cannot hurt anyone (Fighting 0, criticals off)."""
    t = Combatant(con=50, siz=50, fighting=0, dodge=0)
    assert t.hit_points == 10
    return t


SHOOTER = Combatant(dex=90, firearms=50, weapon=HANDGUN)


# --------------------------------------------------------------- one_hit, hand-worked


@pytest.mark.parametrize(
    ("extra", "dead", "dying", "out"),
    [
        # leave, dying_horizon 0: the dying roll CON until one fails, so they all die
        ({}, 0.10 + 0.04, 0.0, 0.10),
        # leave, one CON roll (q = .5): half the dying (.04) die
        ({"dying_horizon": 1}, 0.10 + 0.02, 0.02, 0.10),
        # first_aid, skill 30, 2 tries, each round: aid (.3 stabilises) then CON (.5 dies):
        # stabilised .04·(.3 + .7·.5·.3) = .0162; the rest (.0238) dies
        ({"aftermath": "first_aid"}, 0.10 + 0.0238, 0.0, 0.10 + 0.0162),
        ({"aftermath": "first_aid", "first_aid_tries": 0}, 0.14, 0.0, 0.10),
    ],
)
def test_one_hit_fates_handgun_hand_worked(extra, dead, dying, out):
    """DX5/DX7/DX8/DX9 + aftermath. Handgun, Firearms 50, criticals off, 10 HP, CON 50:
    extreme (.10): 10 + 1D10 = 11..20 > 10 → dead (DX9, p_kill .10); regular/hard (.40):
    1D10 = 10 (.04) → 0 HP with a major wound → dying (DX8); 5..9 (.20) → major wound,
    CON fails (.5) → unconscious, out (DX7): .10. p_incapacitate = .24."""
    v = Variants(criticals=False, **extra)
    got = cp.one_hit(SHOOTER, _target(), v)
    assert got["p_kill"] == pytest.approx(0.10)
    assert got["p_incapacitate"] == pytest.approx(0.24)
    assert [got["p_dead"], got["p_dying"], got["p_out"]] == pytest.approx([dead, dying, out])
    assert got["p_dead"] + got["p_dying"] + got["p_out"] == pytest.approx(0.24)


@pytest.mark.parametrize(
    ("rounds", "horizon", "dead", "dying", "out"),
    [
        # F finish rounds: each a shot with a bonus die, P(hit) = .75 (D4: the better of two
        # tens dice, 1 − .5²); a hit (5) takes the 5 HP left to 0 with the major wound → dying,
        # and with dying_horizon 0 dying means dead: P(dead) = .25·(1 − .25^F)
        (1, 0, 0.25 * 0.75, 0.0, 0.25 * 0.25),
        (2, 0, 0.25 * (1 - 0.25**2), 0.0, 0.25 * 0.25**2),
        # one CON roll (q = .5) at the end of the only aftermath round
        (1, 1, 0.25 * 0.75 * 0.5, 0.25 * 0.75 * 0.5, 0.25 * 0.25),
    ],
)
def test_one_hit_finish_hand_worked_dx_g8(rounds, horizon, dead, dying, out):
    """DX-g8: a gun dealing exactly 5 (hit .5, criticals off) on 10 HP: 5 ≥ 10/2 is a major
    wound, the CON roll (50) fails with .5 → unconscious at 5 HP (.25, DX7). Under
    ``finish`` the shooter fires at the helpless target: no dodge, one bonus die."""
    shooter = Combatant(dex=90, firearms=50, weapon=FIVE)
    v = Variants(criticals=False, aftermath="finish", finish_rounds=rounds, dying_horizon=horizon)
    got = cp.one_hit(shooter, _target(), v)
    assert got["p_incapacitate"] == pytest.approx(0.25)
    assert got["p_kill"] == 0.0
    assert [got["p_dead"], got["p_dying"], got["p_out"]] == pytest.approx([dead, dying, out])
    leave = cp.one_hit(shooter, _target(), Variants(criticals=False))
    assert [leave["p_dead"], leave["p_out"]] == pytest.approx([0.0, 0.25])


def test_finish_melee_on_helpless_target_hand_worked():
    """DX-g8 in melee: Fighting 50 with one bonus die hits .75 (no dodge, no fight back).
    A club-like 0D1+5 weapon (DB 0): the duel's first hit (.5 vs Dodge 0, criticals off)
    is a major wound; CON 50 fails .5 → out at 5 HP; one finishing blow (.75) → dying → dead
    (dying_horizon 0)."""
    five = Weapon("five", 0, 1, 5)
    att = Combatant(dex=90, strength=50, siz=50, fighting=50, weapon=five)
    assert att.bonus == (0, 0, 0)
    got = cp.one_hit(att, _target(), Variants(criticals=False, aftermath="finish", finish_rounds=1))
    assert got["p_hit"] == pytest.approx(0.5)
    assert [got["p_dead"], got["p_out"]] == pytest.approx([0.25 * 0.75, 0.25 * 0.25])


def test_readings_dx_r1_to_r4_the_aftermath_starts_in_the_round_of_the_fall():
    """Readings DX-r1–DX-r4 (docs/RULES.md, D-ext): the aftermath's round 1 is the rest of
    the round of the fall; First Aid's first try comes before its CON roll (DX-r2),
    ``dying_horizon`` counts it as round 1 (DX-r3), and under ``finish`` the first blow
    lands in it (DX-r4). Handgun as above: .04 falls dying (0 HP, major wound).

    first_aid, 1 try, horizon 1: the try (.3) stabilises .012, the one CON roll (.5) kills
    .014 and leaves .014 dying — with the try after the roll only .006 would be stabilised,
    and a horizon counted from the next round would leave no CON roll before the try.
    finish, 1 round, horizon 1 (the FIVE gun): .25 lies unconscious at 5 HP; the blow
    (.75) makes it dying and the same round's CON roll (.5) kills half: dead .09375 — a
    blow in round 2 would meet no CON roll within the horizon (dead 0)."""
    v = Variants(criticals=False, aftermath="first_aid", first_aid_tries=1, dying_horizon=1)
    got = cp.one_hit(SHOOTER, _target(), v)
    assert [got["p_dead"], got["p_dying"], got["p_out"]] == pytest.approx(
        [0.10 + 0.014, 0.014, 0.10 + 0.012]
    )
    v = Variants(criticals=False, aftermath="finish", finish_rounds=1, dying_horizon=1)
    got = cp.one_hit(Combatant(dex=90, firearms=50, weapon=FIVE), _target(), v)
    assert [got["p_dead"], got["p_dying"]] == pytest.approx([0.25 * 0.75 * 0.5] * 2)


# --------------------------------------------------------------- DX8 timing, MC


def test_dx8_first_dying_roll_at_the_end_of_the_round_of_the_fall():
    """DX8 (published game: "a CON roll at the end of each round"; the extension reads the
    round of the fall as the first): a rifle (2D6+4 ≥ 6 ≥ 5 HP, instant death off) drops a
    5-HP target with a major wound on a hit (.5, criticals off) in round 1; its armoured
    ally keeps the fight going to the cap (1 round). CON 50: the roll at the end of round 1
    (q .5), then one aftermath round (dying_horizon 1, the round after the cap): P(dead) =
    .5·(1 − .5²) = .375, still dying .125. (Rolling only in *later* rounds would give
    .25.)"""
    n = 20_000
    tgt = Combatant(con=50, siz=0, dex=10, fighting=0, dodge=0)
    assert tgt.hit_points == 5
    ally = Combatant(dex=10, fighting=0, dodge=0, armour=20)
    shooter = Combatant(dex=90, firearms=50, weapon=RIFLE)
    v = Variants(criticals=False, instant_death="off", dying_horizon=1)
    mc = cp.fight_mc([tgt, ally], [shooter], n, seed=4, variants=v, round_cap=1)
    assert mc.outcome[2] == n
    p_side, _ = mc.p_side_fates()
    # side 0 has two combatants: per-combatant shares are halves of the target's
    for got, want in zip(p_side[0], [(0.5 + 1) / 2, 0.375 / 2, 0.125 / 2, 0.0], strict=True):
        assert abs(got - want) <= tol(want, n)
    assert mc.loser_fate.sum() == 0  # no fight was decided


# --------------------------------------------------------------- MC vs exact

DUELS = [
    ("competent_shooter", "competent", Variants()),
    ("competent_swordsman", "competent_brawler", Variants()),
    ("expert", "novice", Variants(dying_horizon=2, first_aid_skill=60)),
]


@pytest.mark.parametrize("aftermath", ["leave", "first_aid", "finish"])
@pytest.mark.parametrize(("a", "b", "base"), DUELS)
def test_mc_matches_exact_fates(a, b, base, aftermath):
    """Lethality outcomes: dead / dying / out of the loser (by winner) and the per-side
    fates, MC kernel vs the exact chain + exact aftermath, within 5σ + 1/n."""
    n = 40_000
    v = Variants(**{**base.__dict__, "aftermath": aftermath})
    ex = cp.duel_exact(LIB[a], LIB[b], v, round_cap=30)
    mc = cp.duel_mc(LIB[a], LIB[b], n, seed=17, variants=v, round_cap=30)
    for got, want in (
        (mc.loser_fate / n, ex.loser_fate),
        (mc.fates / n, ex.fates),
        (mc.loser_dead / n, ex.loser_dead),
        (mc.deaths / n, ex.deaths),
    ):
        for p_mc, p in zip(got.ravel(), want.ravel(), strict=True):
            assert abs(p_mc - p) <= tol(min(max(p, 0.0), 1.0), n)
    # duel bookkeeping: one loser per decided fight; squares equal counts (0/1)
    np.testing.assert_array_equal(mc.loser_fate.sum(axis=1), mc.outcome[:2])
    np.testing.assert_array_equal(mc.loser_fate_sq, mc.loser_fate)
    np.testing.assert_array_equal(mc.fates_sq, mc.fates)
    np.testing.assert_allclose(ex.loser_fate.sum(axis=1), ex.outcome[:2])
    np.testing.assert_allclose(ex.fates.sum(axis=1), 1.0)
    np.testing.assert_array_equal(mc.deaths, mc.fates[:, 1])


def test_aftermath_leaves_the_fight_untouched():
    """The aftermath has its own stream: outcome, rounds, hits and standing are the same
    numbers under every policy and horizon (common random numbers)."""
    sides = (
        [LIB["competent_shooter"], LIB["competent_brawler"]],
        [LIB["competent"], LIB["competent"]],
    )
    runs = [
        cp.fight_mc(*sides, 5_000, seed=8, variants=Variants(aftermath=p, dying_horizon=h))
        for p, h in (("leave", 0), ("leave", 3), ("first_aid", 0), ("finish", 0))
    ]
    for other in runs[1:]:
        for key in ("outcome", "rounds", "hits", "standing"):
            np.testing.assert_array_equal(getattr(runs[0], key), getattr(other, key))
    # finishing only adds deaths among the losers; first aid only removes them
    d = [r.fates[:, 1].sum() for r in runs]
    assert d[3] >= d[0] >= d[2]
    assert runs[1].fates[:, 2].sum() > 0 == runs[0].fates[:, 2].sum()


# --------------------------------------------------------------- group fights


@pytest.mark.parametrize("aftermath", ["leave", "first_aid", "finish"])
def test_group_fates_bookkeeping(aftermath):
    """Group fights fill the per-side fates: every combatant in one fate per trial, the
    losing side has no one standing, deaths and loser_dead agree with the fates."""
    n = 5_000
    mc = cp.fight_mc(
        [LIB["novice"]] * 3,
        [LIB["expert"], LIB["competent_shooter"]],
        n,
        seed=6,
        variants=Variants(aftermath=aftermath, dying_horizon=2),
        round_cap=30,
    )
    np.testing.assert_array_equal(mc.fates.sum(axis=1), [3 * n, 2 * n])
    np.testing.assert_array_equal(mc.deaths, mc.fates[:, 1])
    assert (mc.fates_sq >= mc.fates).all()
    # loser rows: side 1 losers are 2 per fight won by side 0, side 0 losers 3 per fight
    assert mc.loser_fate[0].sum() == 2 * mc.outcome[0]
    assert mc.loser_fate[1].sum() == 3 * mc.outcome[1]
    assert (mc.loser_dead * np.array([2, 3]) <= mc.loser_fate[:, 0]).all()
    mean, _ = mc.p_loser_fates()
    assert mean.sum() == pytest.approx(1.0)


def test_one_thread_equals_two_threads_with_aftermath():
    """Same seed, 1 or 2 numba threads: bit-identical fates under first aid and finish."""
    sides = ([LIB["novice"], LIB["competent_shooter"]], [LIB["expert"]])
    before = numba.get_num_threads()
    for pol in ("first_aid", "finish"):
        v = Variants(targeting="random", aftermath=pol, dying_horizon=3)
        try:
            numba.set_num_threads(1)
            one = cp.fight_mc(*sides, 20_000, seed=3, variants=v)
            numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
            two = cp.fight_mc(*sides, 20_000, seed=3, variants=v)
        finally:
            numba.set_num_threads(before)
        for key in (
            "outcome",
            "fates",
            "fates_sq",
            "loser_fate",
            "loser_fate_sq",
            "deaths",
            "loser_dead",
        ):
            np.testing.assert_array_equal(getattr(one, key), getattr(two, key))


# --------------------------------------------------------------- variants


def test_aftermath_variants_parse_and_reject():
    """Lethality outcomes / DX-g6–DX-g8 are named variants with documented defaults."""
    v = Variants()
    assert (
        v.aftermath,
        v.dying_horizon,
        v.first_aid_skill,
        v.first_aid_tries,
        v.finish_rounds,
    ) == ("leave", 0, 30, 2, 20)
    v = parse_variants(Variants, ["aftermath=finish", "finish_rounds=5", "dying_horizon=3"])
    assert (v.aftermath, v.finish_rounds, v.dying_horizon) == ("finish", 5, 3)
    with pytest.raises(InputError, match="aftermath"):
        parse_variants(Variants, ["aftermath=bury"])
    with pytest.raises(InputError, match="dying_horizon"):
        Variants(dying_horizon=-1)
    with pytest.raises(InputError, match="first_aid_skill"):
        parse_variants(Variants, ["first_aid_skill=300"])


def test_dx13_firing_into_melee_is_on_by_default():
    """DX13: the D-ext digest lists "firing into melee → a penalty die" among the published
    firearm rules, so the variant defaults on; a duel never has an engaged ally."""
    assert Variants().firing_into_melee is True
    a, b = LIB["competent_shooter"], LIB["competent"]
    on = cp.duel_mc(a, b, 3_000, seed=2)
    off = cp.duel_mc(a, b, 3_000, seed=2, variants=Variants(firing_into_melee=False))
    np.testing.assert_array_equal(on.outcome, off.outcome)
