"""The ``pbta_2d6`` plug-in's combat (its rules PC1–PC9) and campaign (PX1–PX3).

The package lives in ``examples/plugin_system``; the engine tests import it from there
(:func:`pbta`), the command-line tests install it into a temporary site folder the way an
installer lays a package out (the package folder with its data file, and a
``.dist-info`` folder with the entry points of its pyproject.toml) and run the real
command line in a subprocess.
"""

from __future__ import annotations

import dataclasses
import io
import math
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest
from plugin_site import kept_site

from engines.fight import HIST_FIELDS

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"
N = 20_000  # Monte Carlo fights / characters of the agreement tests


@pytest.fixture(scope="module")
def pbta():
    """The plug-in's modules, imported from the example folder."""
    sys.path.insert(0, str(PKG))
    try:
        from pbta_2d6 import archetypes, campaign, checks, combat
    finally:
        sys.path.remove(str(PKG))
    return dataclasses.make_dataclass(
        "Pbta", ["checks", "combat", "campaign", "archetypes", "lib"]
    )(checks, combat, campaign, archetypes, _library(archetypes))


def _library(archetypes) -> dict:
    from analysis.toml_input import read_toml

    return archetypes.HOOK.load("archetypes.toml", read_toml(archetypes.DATA_FILE, "data"))


def _careful(c):
    return dataclasses.replace(c, tactic="careful", name=f"{c.name} (careful)")


def _within(p_mc: float, p: float, n: float) -> bool:
    """The suite's MC-vs-exact tolerance: 5 standard errors plus one count."""
    return abs(p_mc - p) <= 5 * math.sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


# ---------------------------------------------------------------- hand-worked numbers


def test_move_odds_hand_worked(pbta):
    """P1, P2: with stat +1 a strong hit needs 2d6 >= 9: 4 + 3 + 2 + 1 = 10 of 36; a hit
    needs 2d6 >= 6: 36 − 10 (sums 2..5: 1 + 2 + 3 + 4) = 26, so a weak hit is 16 of 36 and
    a miss 10 of 36."""
    miss, weak, strong = pbta.checks.move_odds(1)
    assert strong == pytest.approx(10 / 36, abs=1e-15)
    assert weak == pytest.approx(16 / 36, abs=1e-15)
    assert miss == pytest.approx(10 / 36, abs=1e-15)


def test_two_rolls_to_take_out_hand_worked(pbta):
    """PC3–PC7: a stat +0 fighter with a harm-3 weapon against an unarmoured foe deals 3
    harm on any hit (7+ on 2d6: 6 + 5 + 4 + 3 + 2 + 1 = 21 of 36; strong and weak hits
    strike alike) and none on a miss (15 of 36). The 6-harm clock needs two strikes, so
    the foe is out at exactly its 2nd roll with P = (21/36)² = 441/1296 = 49/144, and at
    exactly its 3rd with P = 2 · (21/36)² · (15/36) (one miss among the first two)."""
    c = pbta.combat
    a = c.Combatant("a", 0, c.Weapon("sword", 3))
    foe = c.Combatant("foe", 0)
    p = c.attack_damage(a, foe)
    assert p == pytest.approx([15 / 36, 0, 0, 21 / 36], abs=1e-15)
    harm = np.array([1.0])  # harm after k rolls (the foe's own actions left out)
    out_at = []
    for _ in range(3):
        before = harm[6:].sum() if harm.size > 6 else 0.0
        harm = np.convolve(harm, p)
        out_at.append(harm[6:].sum() - before)
    assert out_at[0] == 0
    assert out_at[1] == pytest.approx(49 / 144, abs=1e-15)
    assert out_at[2] == pytest.approx(2 * (21 / 36) ** 2 * (15 / 36), abs=1e-15)


def test_first_round_of_a_duel_hand_worked(pbta):
    """PC2 (side0_first), PC4–PC6 on two stat +0 swordsmen (harm 3, no armour, 6-clock).

    A acts: strong 6/36 (B at 3), weak 15/36 (B at 3, A at 3: the trade), miss 15/36 (A
    at 3). Then B acts:
    - after A's strong: B's weak (15/36) strikes A (3) and takes A's strike back (B at 6,
      out); B's miss (15/36) takes A's strike (out) — A wins with 30/36;
    - after A's weak: B's strong or weak strike puts A at 6 first (B wins, 21/36); B's
      miss puts B at 6 (A wins, 15/36);
    - after A's miss: B's hit puts A at 6 (B wins, 21/36).
    P(A wins in round 1) = 6/36 · 30/36 + 15/36 · 15/36 = 405/1296;
    P(B wins in round 1) = 15/36 · 21/36 + 15/36 · 21/36 = 630/1296.
    Acting first is a handicap here: a miss harms the one who rolls."""
    c = pbta.combat
    a = c.Combatant("a", 0, c.Weapon("sword", 3))
    st = c.duel_exact(a, a, c.Variants(order="side0_first"))
    assert st.rounds[1, :2] * 1296 == pytest.approx([405, 630], abs=1e-9)
    assert st.p_outcome()[0] == pytest.approx(0.4299768518518519, abs=1e-12)


def test_one_hit(pbta):
    """PC3, PC7: one roll never takes a fresh fighter out on the 6-clock (harm 3 at most);
    on a 3-clock a harm-3 hit (7+: 21/36 at +0) puts it exactly at the clock (out), and a
    harm-5 hit 2 beyond it (dead, ``dead_over`` 2)."""
    c = pbta.combat
    sword = c.Combatant("a", 0, c.Weapon("sword", 3))
    foe = c.Combatant("foe", 0)
    odds = c.one_hit(sword, foe)
    assert odds["p_hit"] == pytest.approx(21 / 36)
    assert odds["p_incapacitate"] == odds["p_kill"] == 0
    short = c.Variants(clock=3)
    odds = c.one_hit(sword, foe, short)
    assert (odds["p_incapacitate"], odds["p_out"], odds["p_kill"]) == pytest.approx(
        (21 / 36, 21 / 36, 0)
    )
    big = c.Combatant("b", 0, c.Weapon("maul", 5))
    odds = c.one_hit(big, foe, short)
    assert (odds["p_kill"], odds["p_dead"]) == pytest.approx((21 / 36, 21 / 36))
    # PC3: armour takes its points off; PC9: a careful weak hit strikes with one less
    careful = c.Combatant("c", 0, c.Weapon("sword", 3), tactic="careful")
    plated = c.Combatant("p", 0, armour=c.Armour("heavy", 2))
    p = c.attack_damage(careful, plated)  # strong 6/36: 1 harm; weak 15/36: 0; miss 0
    assert p == pytest.approx([30 / 36, 6 / 36], abs=1e-15)


# ---------------------------------------------------------------- the exact chain

MATCHUPS = [  # (a, b, variants, careful a, careful b)
    ("competent", "expert", {}, False, False),
    ("competent_duellist", "competent_brawler", {}, False, False),
    ("competent", "novice", {"aftermath": "first_aid"}, True, True),
    ("competent_shooter", "novice", {"order": "coin"}, False, False),
    ("expert_armoured", "expert_armoured", {}, False, False),  # knives on plate: no harm
]


def _pair(pbta, a, b, ca, cb):
    fa, fb = pbta.lib[a], pbta.lib[b]
    return (_careful(fa) if ca else fa), (_careful(fb) if cb else fb)


@pytest.mark.parametrize("aftermath", ["leave", "first_aid", "finish"])
@pytest.mark.parametrize(("a", "b", "kw", "ca", "cb"), MATCHUPS)
def test_exact_duel_sums_to_one(pbta, a, b, kw, ca, cb, aftermath):
    """PC2–PC8: outcomes, rounds, fates of the loser and each side's fates are
    probabilities summing to 1."""
    fa, fb = _pair(pbta, a, b, ca, cb)
    st = pbta.combat.duel_exact(fa, fb, pbta.combat.Variants(**{**kw, "aftermath": aftermath}))
    assert st.outcome.sum() == pytest.approx(1, abs=1e-12)
    assert st.rounds.sum(axis=0) == pytest.approx(st.outcome, abs=1e-12)
    assert st.fates.sum(axis=1) == pytest.approx([1, 1], abs=1e-12)
    fates, _ = st.p_loser_fates()
    if st.outcome[:2].sum() > 0:
        assert fates.sum() == pytest.approx(1, abs=1e-12)
    assert (st.standing[0] == 1).all()


def test_no_harm_means_no_result(pbta):
    """PC3: a knife (harm 2) on heavy armour (2) strikes for 0, so two such fighters
    never take each other out: every fight reaches the round cap ("neither")."""
    st = pbta.combat.duel_exact(
        pbta.lib["expert_armoured"], pbta.lib["expert_armoured"], round_cap=10
    )
    assert st.p_outcome() == pytest.approx([0, 0, 1], abs=1e-15)
    assert st.rounds[10, 2] == pytest.approx(1)


@pytest.mark.parametrize("order", ["stat", "coin"])
@pytest.mark.parametrize(
    "name", ["competent", "novice_brawler", "expert_duellist", "master_armoured"]
)
def test_mirror_duel_is_even(pbta, name, order):
    """PC2: equal stats act in a fresh random order each round (``stat``, also ``coin``),
    so a fighter against its copy wins exactly half the fights it decides."""
    f = pbta.lib[name]
    st = pbta.combat.duel_exact(f, f, pbta.combat.Variants(order=order))
    assert st.outcome[0] == pytest.approx(st.outcome[1], abs=1e-12)
    assert st.outcome[0] == pytest.approx((1 - st.outcome[2]) / 2, abs=1e-12)


def test_higher_stat_acts_first(pbta):
    """PC2: under ``stat`` the higher stat acts first every round, which is the
    ``side0_first`` order when side 0 has the higher stat (and the other way round)."""
    c, lib = pbta.combat, pbta.lib
    hi, lo = lib["expert"], lib["competent"]
    by_stat = c.duel_exact(hi, lo)
    first = c.duel_exact(hi, lo, c.Variants(order="side0_first"))
    assert by_stat.outcome == pytest.approx(first.outcome, abs=1e-15)
    swapped = c.duel_exact(lo, hi)
    assert swapped.outcome[:2] == pytest.approx(by_stat.outcome[1::-1], abs=1e-12)


def test_aftermath_policies(pbta):
    """PC7, PC8 on a duel whose losers fall dead, dying and out (careful swordsmen mix
    strikes of 3 and 2 harm): the fight is the same under every policy; ``finish`` kills
    every loser; ``first_aid`` stabilises each dying loser with 2d6 >= 7 (21/36), so
    P(dying) shrinks to 15/36 of itself and the rest becomes out; dead stays dead."""
    c = pbta.combat
    a, b = _careful(pbta.lib["competent"]), _careful(pbta.lib["novice"])
    st = {m: c.duel_exact(a, b, c.Variants(aftermath=m)) for m in c.AFTERMATHS}
    leave = st["leave"].p_loser_fates()[0]
    assert (leave > 0.1).all()  # all three fates occur
    for m in ("first_aid", "finish"):
        assert st[m].outcome == pytest.approx(st["leave"].outcome, abs=1e-15)
    assert st["finish"].p_loser_fates()[0] == pytest.approx([1, 0, 0], abs=1e-12)
    aid = st["first_aid"].p_loser_fates()[0]
    assert aid[0] == pytest.approx(leave[0], abs=1e-12)
    assert aid[1] == pytest.approx(leave[1] * 15 / 36, abs=1e-12)
    assert aid[2] == pytest.approx(leave[2] + leave[1] * 21 / 36, abs=1e-12)


# ---------------------------------------------------------------- Monte Carlo vs exact


def _z(p_mc, p, n):
    se = math.sqrt(max(p * (1 - p), 0.0) / n)
    return (p_mc - p) / se if se > 0 else 0.0


@pytest.mark.slow
@pytest.mark.parametrize(("a", "b", "kw", "ca", "cb"), MATCHUPS)
def test_monte_carlo_agrees_with_exact(pbta, a, b, kw, ca, cb):
    """PC2–PC8, the numba kernel against the exact chain: P(side 0), P(side 1),
    P(neither), each round's P(the fight ends), the mean rounds and the loser's fates
    within 5 SE + 1/n (fixed seed; 5 SE leaves a false alarm about once in 3.5 million
    comparisons, and 1/n covers cells whose expected count is below one)."""
    c = pbta.combat
    fa, fb = _pair(pbta, a, b, ca, cb)
    v = c.Variants(**kw)
    ex = c.duel_exact(fa, fb, v, round_cap=20)
    mc = c.duel_mc(fa, fb, N, seed=11, variants=v, round_cap=20)
    for p, q in zip(ex.p_outcome(), mc.p_outcome(), strict=True):
        assert _within(q, p, N), (p, q, _z(q, p, N))
    for p, q in zip(ex.rounds_pmf(), mc.rounds_pmf(), strict=True):
        assert _within(q, p, N)
    k = np.arange(ex.rounds.shape[0])
    mean, mean_mc = ex.rounds_pmf() @ k, mc.rounds_pmf() @ k
    sd = math.sqrt(max(ex.rounds_pmf() @ k**2 - mean**2, 0.0))
    assert abs(mean_mc - mean) <= 5 * sd / math.sqrt(N) + 1 / N
    decided = mc.outcome[:2].sum()
    if decided:
        for p, q in zip(ex.p_loser_fates()[0], mc.p_loser_fates()[0], strict=True):
            assert _within(q, p, decided)
    assert mc.standing[0].tolist() == [N, N]


def test_group_fight_bookkeeping(pbta):
    """N-vs-M (PC2, PC3): every trial ends once, each side's fates count each of its
    fighters once per trial, and two novices beat one (on average)."""
    c, lib = pbta.combat, pbta.lib
    st = c.fight_mc([lib["novice"], lib["novice"]], [lib["novice"]], N, seed=3)
    assert st.outcome.sum() == N
    assert st.fates.sum(axis=1).tolist() == [2 * N, N]
    assert st.standing[0].tolist() == [2 * N, N]
    assert st.p_outcome()[0] > 0.5


def test_same_seed_same_numbers_on_one_and_two_threads(pbta):
    """The same seed gives bit-identical histograms on 1 and 2 numba threads: 70 000
    trials make 2 work items, each with its own streams (the split depends on the trial
    count only)."""
    c, lib = pbta.combat, pbta.lib
    a, b = _careful(lib["competent"]), lib["novice"]
    v = c.Variants(aftermath="first_aid")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = (
            c.duel_mc(a, b, 70_000, seed=9, variants=v),
            c.fight_mc([a, b], [b], 70_000, seed=9, variants=v),
            pbta.campaign.experience_monte_carlo(10, 70_000, seed=9, threshold=2),
        )
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = (
            c.duel_mc(a, b, 70_000, seed=9, variants=v),
            c.fight_mc([a, b], [b], 70_000, seed=9, variants=v),
            pbta.campaign.experience_monte_carlo(10, 70_000, seed=9, threshold=2),
        )
    finally:
        numba.set_num_threads(before)
    for x, y in zip(one[:2], two[:2], strict=True):
        for name in HIST_FIELDS:
            assert np.array_equal(getattr(x, name), getattr(y, name)), name
    assert np.array_equal(one[2].dist, two[2].dist)
    assert np.array_equal(one[2].passage, two[2].passage)
    assert all(np.array_equal(one[2].extra[k], two[2].extra[k]) for k in one[2].extra)


# ---------------------------------------------------------------- the archetype hook


def test_library_names_and_gear(pbta):
    """The ladder rungs untrained … master (PLUGIN.ladder: −1 … +3, the swordsman's sword
    as the level style) and every style at every rung as LEVEL_STYLE."""
    lib = pbta.lib
    assert [lib[r].stat for r in ("untrained", "novice", "competent", "expert", "master")] == [
        -1,
        0,
        1,
        2,
        3,
    ]
    assert lib["competent"].weapon.harm == 3
    b = lib["competent_brawler"]
    assert (b.stat, b.weapon.name, b.weapon.harm, b.armour.points) == (1, "unarmed", 1, 1)
    assert lib["expert_duellist"].tactic == "careful"
    assert len(lib) == 5 + 5 * 5 + 1


def test_hook_builds_overrides_and_names_mistakes(pbta):
    from analysis.toml_input import read_toml
    from engines.errors import InputError

    h = pbta.archetypes.HOOK
    raw = read_toml(h.path(), "data")
    c = h.build(
        "archetypes.toml",
        raw,
        pbta.lib,
        "competent",
        {"armour": "heavy", "tactic": "careful"},
        None,
        "competent",
    )
    assert (c.name, c.armour.points, c.tactic, c.weapon.harm) == ("competent", 2, "careful", 3)
    full = h.build(
        "archetypes.toml", raw, pbta.lib, None, {}, {"stat": 2, "weapon": "rifle"}, "sniper"
    )
    assert (full.name, full.stat, full.weapon.harm, full.armour.name) == ("sniper", 2, 3, "none")
    with pytest.raises(InputError, match=r"^pbta_2d6: hero\.weapon: unknown weapon 'lazer'"):
        h.build("archetypes.toml", raw, pbta.lib, "competent", {"weapon": "lazer"}, None, "hero")
    with pytest.raises(InputError, match=r"^pbta_2d6: hero\.stat: Input should be less"):
        h.build("archetypes.toml", raw, pbta.lib, "competent", {"stat": 9}, None, "hero")
    bad = raw | {"styles": raw["styles"] | {"brawler": {"weapon": "lazer"}}}
    with pytest.raises(
        InputError,
        match=r"^archetypes\.toml: styles\.brawler\.weapon: "
        r"unknown weapon 'lazer'; known: unarmed, ",
    ):
        h.load("archetypes.toml", bad)


# ---------------------------------------------------------------- campaign (PX1–PX3)


def test_experience_hand_worked(pbta):
    """PX1: at +0 a miss is 2d6 <= 6: 15 of 36, so 3 rolls a session mark 3 · 15/36 = 1.25
    XP on average in session 1. PX2: from 4 XP, one roll advances the stat with P = 15/36.
    PX3: a character at the +3 cap stays there."""
    cp = pbta.campaign
    st = cp.experience_exact(1, stat=0, rolls=3)
    assert st.extra["misses"][1] == pytest.approx(1.25, abs=1e-12)
    assert st.pmf()[1, st.values == 0] == pytest.approx(1, abs=1e-12)  # 3 XP < 5
    st = cp.experience_exact(1, stat=0, rolls=1, xp=4)
    assert st.pmf()[1, st.values == 1] == pytest.approx(15 / 36, abs=1e-12)
    assert st.extra["advances"][1] == pytest.approx(15 / 36, abs=1e-12)
    st = cp.experience_exact(5, stat=3, rolls=4)
    assert st.pmf()[:, st.values == 3] == pytest.approx(np.ones((6, 1)), abs=1e-12)


@pytest.mark.parametrize("params", [{"stat": 0, "rolls": 3}, {"stat": -2, "rolls": 5, "xp": 2}])
def test_experience_chain_sums_to_one_and_mc_agrees(pbta, params):
    """PX1–PX3: each session's distribution sums to 1 (and the passage row too); the
    numba kernel's distribution, first-passage row and tallies agree with the chain
    within 5 SE + 1/n (fixed seed)."""
    cp = pbta.campaign
    ex = cp.experience_exact(25, threshold=2, **params)
    assert ex.pmf().sum(axis=1) == pytest.approx(np.ones(26), abs=1e-12)
    assert ex.passage.sum() == pytest.approx(1, abs=1e-12)
    assert np.all(np.diff(ex.mean()) >= -1e-12)  # the stat never falls
    mc = cp.experience_monte_carlo(25, N, seed=4, threshold=2, **params)
    for p, q in zip(ex.pmf().ravel(), mc.pmf().ravel(), strict=True):
        assert _within(q, p, N)
    for p, q in zip(ex.passage_pmf(), mc.passage_pmf(), strict=True):
        assert _within(q, p, N)
    for name in ("misses", "advances"):
        assert np.all(
            np.abs(mc.extra[name] - ex.extra[name]) <= 5 * mc.extra[name + "_se"] + 1 / N
        ), name


# ---------------------------------------------------------------- the command line


@pytest.fixture(scope="session")
def site() -> Path:
    """The package installed into a site folder kept between sessions
    (:func:`plugin_site.kept_site`)."""
    return kept_site()


def cli(site: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "cli", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def table(site: Path, *argv: str) -> pd.DataFrame:
    done = cli(site, *argv, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return pd.read_csv(io.StringIO(done.stdout))


@pytest.mark.slow
def test_the_installed_package_ships_its_data_file(site):
    assert (site / "pbta_2d6" / "archetypes.toml").is_file()
    t = table(site, "systems")
    row = t[t["id"] == "pbta_2d6"].iloc[0]
    assert bool(row["has_combat"])
    assert bool(row["has_campaign"])


@pytest.mark.slow
def test_cli_archetypes_and_gear(site):
    t = table(site, "archetypes", "pbta_2d6").set_index("archetype")
    assert len(t) == 31
    assert t.loc["competent_brawler", ["stat", "weapon", "armour", "tactic"]].tolist() == [
        1,
        "unarmed",
        "light",
        "trade",
    ]
    g = table(site, "gear", "pbta_2d6").set_index("name")
    assert g.loc["heavy_melee", "stats"] == "harm=3"
    assert g.loc["heavy", "stats"] == "points=2"
    assert set(g["rules"]) == {"PC3"}


@pytest.mark.slow
def test_cli_duel_both_methods(site, pbta):
    """The duel command reaches the plug-in's exact chain and kernel: the exact row is
    the in-process chain's, the Monte Carlo row agrees within 5 SE + 1/n."""
    t = table(
        site,
        "duel",
        "pbta_2d6",
        "competent",
        "expert",
        "--method",
        "both",
        "--trials",
        str(N),
        "--seed",
        "1",
    )
    ex = pbta.combat.duel_exact(pbta.lib["competent"], pbta.lib["expert"])
    assert t.loc[0, "p_side0"] == pytest.approx(ex.p_outcome()[0], abs=1e-12)
    assert bool(t.loc[1, "within_5se"])
    armour = table(site, "duel", "pbta_2d6", "competent", "expert", "--table", "armour")
    assert armour["armour"].tolist() == ["none", "light", "heavy"]
    hit = table(site, "duel", "pbta_2d6", "competent", "expert", "--table", "one-hit")
    assert hit["p_hit"].tolist() == pytest.approx([26 / 36] * 5)  # +1: 2d6 >= 6


@pytest.mark.slow
def test_cli_combat_file(site):
    t = table(site, "combat", str(PKG / "scenarios" / "ambush_2v1.toml"), "--trials", "2000")
    row = t.iloc[0]
    assert (row["system"], row["trials"]) == ("pbta_2d6", 2000)
    assert row["p_side0"] + row["p_side1"] + row["p_neither"] == pytest.approx(1)


@pytest.mark.slow
def test_campaign_command_takes_the_plugin_mechanic(site):
    """``campaign pbta_2d6 experience`` through the registry (PX1, PX2): a +0 character
    rolling 3 times a session misses with 15/36 (2d6 ≤ 6); it advances by session 2
    exactly when at least 5 of its 6 rolls miss: 6·p⁵·(1 − p) + p⁶."""
    t = table(
        site, "campaign", "pbta_2d6", "experience", "--sessions", "3", "--table", "distribution"
    )
    p = 15 / 36
    want = 6 * p**5 * (1 - p) + p**6
    got = t[(t["session"] == 2) & (t["value"] == 1)]["p"].iloc[0]
    assert got == pytest.approx(want, abs=1e-12)
    assert t[t["session"] == 1]["p"].tolist() == [1.0]  # 3 rolls cannot mark 5 XP


@pytest.mark.slow
def test_run_takes_the_plugin_fights(site, tmp_path):
    """A scenario's [[fights]] on pbta_2d6 run through the registry: the mirror duel is
    a coin toss exactly (PC2: equal stats act in a fresh random order)."""
    done = cli(
        site,
        "run",
        str(PKG / "scenarios" / "even_duel.toml"),
        "--method",
        "exact",
        "-o",
        str(tmp_path / "out"),
    )
    assert done.returncode == 0, done.stderr
    fights = pd.read_csv(tmp_path / "out" / "fights.csv")
    row = fights[fights["fight"] == "even_duel_pbta_2d6"].iloc[0]
    assert row["p_side0"] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.slow
def test_cross_combat_takes_a_plugin_the_file_maps(site):
    """The plug-in opts into the cross-system table by a mapping in the file: its row of
    the mirror matchup is even, and the built-ins keep theirs."""
    t = table(site, "cross-combat", "--file", str(PKG / "scenarios" / "cross_combat.toml"))
    assert "pbta_2d6" in set(t["system"])
    row = t[(t["matchup"] == "melee_equal") & (t["system"] == "pbta_2d6")].iloc[0]
    assert row["p_side0"] == pytest.approx(0.5, abs=1e-12)
    assert {"dice_pool_7", "d20_degrees"} <= set(t["system"])


SWEEP = """
name = "pbta sweep"
system = "pbta_2d6"
seed = 7

[[fights]]
name = "even_duel"
a = "competent"
b = "competent"
exact = true

[sweep]
fights = { "a.stat" = [0, 1, 2], "a.weapon" = ["light_melee", "heavy_melee"] }
fight_metric = "p_side0"

[output]
tables = ["fight_sweep"]
"""


@pytest.mark.slow
def test_sweep_takes_the_plugin_fights(site, tmp_path):
    """``sweep`` over a plug-in fight's knobs: at the competent fighter's own stat and
    weapon the cell is the mirror duel (0.5 exactly, PC2); a higher stat wins more."""
    path = tmp_path / "sweep.toml"
    path.write_text(SWEEP)
    out = tmp_path / "sweep.csv"
    done = cli(site, "sweep", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    t = pd.read_csv(out).set_index(["a.stat", "a.weapon"])["p_side0"]
    assert len(t) == 6
    assert t[(1, "heavy_melee")] == pytest.approx(0.5, abs=1e-12)
    assert t[(0, "heavy_melee")] < t[(1, "heavy_melee")] < t[(2, "heavy_melee")]


@pytest.mark.slow
def test_solve_lethality_and_audit_take_the_plugin(site):
    """``solve lethality`` searches a plug-in fighter's stat on the exact chain, and
    ``audit`` judges a plug-in fight guardrail (the mirror duel is even: pass)."""
    done = cli(
        site,
        "solve",
        "lethality",
        "--system",
        "pbta_2d6",
        "--a",
        "competent",
        "--b",
        "competent",
        "--knob",
        "b.stat",
        "--range=-1:3",
        "--target",
        "0.3",
        "--metric",
        "p_side0",
        "--format",
        "csv",
    )
    assert done.returncode == 0, done.stderr
    t = pd.read_csv(io.StringIO(done.stdout)).set_index("value")
    assert t.loc[1, "estimate"] == pytest.approx(0.5, abs=1e-12)  # b's own stat: a mirror
    assert t.loc[-1, "estimate"] > t.loc[0, "estimate"] > 0.5  # a weaker b loses more
    assert t["chosen"].sum() == 1
    done = cli(site, "audit", str(PKG / "scenarios" / "even_duel.toml"), "--format", "csv")
    assert done.returncode in (0, 1), done.stderr
    a = pd.read_csv(io.StringIO(done.stdout)).set_index("guardrail")
    assert a.loc["even duel is even (pbta_2d6)", "status"] == "pass"
    assert a.loc["even duel is even (pbta_2d6)", "value"] == pytest.approx(0.5, abs=1e-12)


def test_one_hit_at_a_distance(pbta):
    """PD3, PD4 (issue 29 §6b): one roll made from the starting distance. Stat +0, a
    pistol (close 10 m, far 30 m): within 10 m a hit is 7+ on 2d6 (21/36); at 20 m the far
    band costs 1 (PD-g3), 8+ (15/36); past 30 m and a sword past 1 m (PD-g2) reach no one."""
    c = pbta.combat
    pistol = c.Combatant("s", 0, c.Weapon("pistol", 2, ranged=True, close=10, far=30))
    sword = c.Combatant("a", 0, c.Weapon("sword", 3))
    foe = c.Combatant("foe", 0)
    assert "in_range" not in c.one_hit(pistol, foe)
    near = c.one_hit(pistol, foe, c.Variants(distance=5))
    assert near["p_hit"] == pytest.approx(21 / 36)
    assert near["in_range"]
    assert c.one_hit(pistol, foe, c.Variants(distance=20))["p_hit"] == pytest.approx(15 / 36)
    gone = c.one_hit(pistol, foe, c.Variants(distance=31))
    assert not gone["in_range"]
    assert gone["p_hit"] == 0.0
    assert not c.one_hit(sword, foe, c.Variants(distance=2))["in_range"]
    assert c.one_hit(sword, foe, c.Variants(distance=1))["p_hit"] == pytest.approx(21 / 36)
