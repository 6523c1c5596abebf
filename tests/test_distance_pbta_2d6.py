"""Fights that start apart in the example plug-in ``pbta_2d6`` (RULES.md "Distance,
movement and cover"; its rules PD1–PD6 and gaps PD-g1…PD-g5 in
``examples/plugin_system/pbta_2d6/combat.py``): the plug-in fills the same distance
contract as the built-ins (the combat variant ``distance``, the fighter trait ``plan``,
ranged weapons with range bands) and every distance command takes it.

Hand-worked values use the defaults: a move of 10 m (PD-g1), melee reach 1 m (PD-g2), the
pistol's bands (close 10 m, far 30 m; −1 in the far band, PD-g3), a weak hit out of the
foe's reach one harm less (PD-g4), cover 1 harm less (PD-g5). Monte Carlo vs exact:
``|p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n`` (five standard errors plus one count).
"""

from __future__ import annotations

import dataclasses
import io
import re
import shlex
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from distance_support import assert_mc_matches_exact, hist_digest

from engines.errors import InputError

PKG = Path(__file__).resolve().parents[1] / "examples" / "plugin_system"
CROSS = PKG / "scenarios" / "cross_combat.toml"
R = dataclasses.replace


@pytest.fixture(scope="module")
def pb():
    """The plug-in's combat module and its archetype library, from the example folder."""
    sys.path.insert(0, str(PKG))
    try:
        from pbta_2d6 import archetypes, combat
    finally:
        sys.path.remove(str(PKG))
    from analysis.toml_input import read_toml

    lib = archetypes.HOOK.load("archetypes.toml", read_toml(archetypes.DATA_FILE, "data"))
    return dataclasses.make_dataclass("Pb", ["cb", "lib"])(combat, lib)


# ------------------------------------------------------- PD1: engaged is as before


#: sha256 digests (distance_support.DIGEST_FIELDS) of fights recorded before the plug-in had
#: distance rules (main at 38c7928): duels exact and Monte Carlo (3,000 fights, seed 7)
#: under three sets of variants, and two group fights (3,000 fights, seed 11).
ENGAGED = {
    "exact competent expert 0": "32a6321897adf685",
    "mc competent expert 0": "7f416015734e9955",
    "exact competent expert 1": "3e4a4a3a02b9866d",
    "mc competent expert 1": "0a22a1099bef67c6",
    "exact competent expert 2": "fff262f312642464",
    "mc competent expert 2": "0d5cf32c39f35afa",
    "exact competent_shooter competent 0": "59ed0ce4a4b5c28d",
    "mc competent_shooter competent 0": "125d40e09136be84",
    "exact competent_shooter competent 1": "84b209d5713f3275",
    "mc competent_shooter competent 1": "9d8da545dab276fc",
    "exact competent_shooter competent 2": "984a84a27df2735e",
    "mc competent_shooter competent 2": "e2972e055493b515",
    "exact novice_duellist expert_armoured 0": "f3648e8e8d83dc32",
    "mc novice_duellist expert_armoured 0": "b3179b1fe11dfeb4",
    "exact novice_duellist expert_armoured 1": "66beebee3d1b81b3",
    "mc novice_duellist expert_armoured 1": "d96cb54a0ac0b889",
    "exact novice_duellist expert_armoured 2": "5478254bf389bb7b",
    "mc novice_duellist expert_armoured 2": "6a416cc632983b9c",
    "exact master_shooter untrained_brawler 0": "12794b97dc01db88",
    "mc master_shooter untrained_brawler 0": "9cb55c863c8d6a2a",
    "exact master_shooter untrained_brawler 1": "12794b97dc01db88",
    "mc master_shooter untrained_brawler 1": "e90e214cb90c41c4",
    "exact master_shooter untrained_brawler 2": "49436f8cf38b107d",
    "mc master_shooter untrained_brawler 2": "606fd4286683756e",
    "group 0 0": "1fef2823ff47e5a2",
    "group 0 3": "72f2a066aaf4ac55",
    "group 1 0": "24fcc3f561983505",
    "group 1 3": "7977b9708efb45b2",
}
VARIANTS = (
    {},
    {"order": "side0_first"},
    {"aftermath": "finish", "clock": 5},
    {"targeting": "first", "dead_over": 1},
)
GROUPS = (
    (["competent", "competent_shooter"], ["expert"]),
    (["novice_brawler"] * 3, ["master_shooter", "street_thug"]),
)


def test_pd1_engaged_fights_are_byte_identical_to_before(pb):
    """PD1: at 0 m (the default, and given explicitly) every histogram of every fight is
    the one recorded before distance existed — the shooters' pistols are ranged weapons
    now (PD4), holding by default (PD6), and that changes nothing engaged."""
    got = {}
    for key in ENGAGED:
        kind, *names, i = key.split()
        for d in ({}, {"distance": 0}):
            v = pb.cb.Variants(**VARIANTS[int(i)], **d)
            if kind == "group":
                s0, s1 = GROUPS[int(names[0])]
                st = pb.cb.fight_mc(
                    [pb.lib[x] for x in s0], [pb.lib[x] for x in s1], 3000, seed=11, variants=v
                )
            elif kind == "exact":
                st = pb.cb.duel_exact(pb.lib[names[0]], pb.lib[names[1]], v)
            else:
                st = pb.cb.duel_mc(pb.lib[names[0]], pb.lib[names[1]], 3000, seed=7, variants=v)
            got.setdefault(key, set()).add(hist_digest(st))
    assert got == {k: {h} for k, h in ENGAGED.items()}


# ---------------------------------------------------------- MC against exact apart


def _cases(pb):
    lib = pb.lib
    rifle = R(
        lib["expert_shooter"],
        weapon=R(lib["expert_shooter"].weapon, name="rifle", harm=3, close=30, far=100),
    )
    return [
        (lib["competent_shooter"], lib["competent"], {}),  # hold vs charge
        (R(lib["competent_shooter"], plan="charge"), lib["competent"], {}),
        (R(lib["competent_shooter"], plan="cover"), rifle, {"order": "coin"}),
        (lib["competent"], lib["novice_duellist"], {"weak_at_range": "full"}),
        (
            lib["competent_shooter"],
            R(lib["expert_shooter"], plan="cover"),
            {"aftermath": "finish", "move": 7},
        ),
    ]


@pytest.mark.parametrize("distance", [0, 10, 20, 40])
def test_pd_monte_carlo_matches_the_exact_chain(pb, distance):
    """PD1–PD6: the kernel's line and the chain's keyed planes agree at every distance, on
    holders, chargers, cover, a rifle's long bands, careful fighters and both PD-g4
    readings (every outcome, round, loser-dead and standing cell within 5 SE + 1/n)."""
    for i, (a, b, v) in enumerate(_cases(pb)):
        var = pb.cb.Variants(distance=distance, **v)
        ex = pb.cb.duel_exact(a, b, var)
        mc = pb.cb.duel_mc(a, b, 20_000, seed=100 + 7 * distance + i, variants=var)
        assert_mc_matches_exact(mc, ex)


# ------------------------------------------------------------------- hand-worked


def test_pd2_closing_from_40_m_is_the_engaged_fight_two_rounds_later(pb):
    """PD2, PD3: two +0 swordsmen 40 m apart, side 0 first. Round 1: side 0 moves 10 m
    (30 m left), side 1 moves 10 m (20 m); round 2: side 0 moves 10 m (10 m), side 1 moves
    9 m, to its 1 m reach. Round 3 is the engaged fight's round 1: side 0 wins in it with
    6/36 · 30/36 + 15/36 · 15/36 = 405/1296 and side 1 with 630/1296 (the example's
    README's hand-worked round), and every later round is the engaged one two rounds later."""
    a = pb.lib["novice"]
    v = pb.cb.Variants(order="side0_first")
    near = pb.cb.duel_exact(a, a, v)
    far = pb.cb.duel_exact(a, a, R(v, distance=40))
    assert far.rounds[1:3].sum() == 0.0
    assert far.rounds[3, 0] == pytest.approx(405 / 1296, abs=1e-15)
    assert far.rounds[3, 1] == pytest.approx(630 / 1296, abs=1e-15)
    np.testing.assert_allclose(far.rounds[3:-2], near.rounds[1:-4], atol=1e-15)
    np.testing.assert_allclose(far.outcome, near.outcome, atol=1e-12)


def test_pd2_the_kernel_closes_a_group_the_same_way(pb):
    """PD1, PD2 in the kernel: two swordsmen against one at 40 m, side 0 first, draw no
    dice while they close (rounds 1–2: side 0 at 10 then 20 m, the lone foe at 30 then
    21 m, 1 m from both), so the fight from round 3 on is the engaged fight, draw for
    draw: the same outcomes and hits, every round two rounds later."""
    two, one = [pb.lib["novice"]] * 2, [pb.lib["expert"]]
    v = pb.cb.Variants(order="side0_first")
    near = pb.cb.fight_mc(two, one, 4000, seed=3, variants=v)
    far = pb.cb.fight_mc(two, one, 4000, seed=3, variants=R(v, distance=40))
    assert near.outcome[2] == far.outcome[2] == 0  # no fight reaches the cap
    assert np.array_equal(far.outcome, near.outcome)
    assert np.array_equal(far.hits, near.hits)
    assert far.rounds[1:3].sum() == 0
    assert np.array_equal(far.rounds[3:], near.rounds[1:-2])


def test_pd4_pd5_shots_while_the_charger_closes_hand_worked(pb):
    """PD2–PD5: the competent shooter (+1, pistol: harm 2, close 10 m, far 30 m) holds
    against the competent swordsman charging from 20 m, side 0 first, two rounds.
    Round 1: 20 m is the far band, 2d6 + 1 − 1: a strong hit (10+) 6/36 strikes 2, a weak
    hit 15/36 strikes 1 (out of the sword's reach: PD5, one harm less), a miss 15/36
    costs nothing; the swordsman moves 10 m. Round 2: 10 m is the close band, 2d6 + 1:
    strong 10/36 (harm 2), weak 16/36 (harm 1); the swordsman moves 9 m. No one falls
    (4 harm at most), so the expected strikes are 16/36 of harm 2 and 31/36 of harm 1;
    under ``weak_at_range=full`` (PD-g4) all 47/36 are of harm 2."""
    sh, sw = pb.lib["competent_shooter"], pb.lib["competent"]
    v = pb.cb.Variants(distance=20, order="side0_first")
    for var, want in ((v, {1: 31 / 36, 2: 16 / 36}), (R(v, weak_at_range="full"), {2: 47 / 36})):
        ex = pb.cb.duel_exact(sh, sw, var, round_cap=2)
        assert ex.outcome[2] == pytest.approx(1.0, abs=1e-15)
        expected = np.zeros(ex.hits.size)
        for k, p in want.items():
            expected[k] = p
        np.testing.assert_allclose(ex.hits, expected, atol=1e-15)
        mc = pb.cb.duel_mc(sh, sw, 20_000, seed=5, variants=var, round_cap=2)
        assert_mc_matches_exact(mc, ex)


def test_pd6_cover_hand_worked(pb):
    """PD5, PD6, PD-g5: two competent shooters 20 m apart, side 0 with the plan cover,
    side 0 first, one round. Side 0 takes cover (no roll). Side 1 rolls 2d6 + 1 − 1 (far
    band): strong 6/36 strikes 2 − 1 (cover) = 1; weak 15/36 strikes 1, and side 0's
    pistol reaches 20 m, so side 0 strikes back 2 (PC5); a miss 15/36 lets side 0 strike
    2 (PC6). Expected strikes: 21/36 of harm 1, 30/36 of harm 2."""
    sh = pb.lib["competent_shooter"]
    v = pb.cb.Variants(distance=20, order="side0_first")
    ex = pb.cb.duel_exact(R(sh, plan="cover"), sh, v, round_cap=1)
    assert ex.hits[1] == pytest.approx(21 / 36, abs=1e-15)
    assert ex.hits[2] == pytest.approx(30 / 36, abs=1e-15)
    assert ex.hits.sum() == pytest.approx(51 / 36, abs=1e-15)


# ------------------------------------------------------------------ bad input


def test_pd6_plans_and_the_variants_are_checked(pb):
    """PD6: the default plan is hold with a ranged weapon, else charge; kite has no rule
    here and says why; cover needs a ranged weapon; PD1 and PD-g1 take whole metres."""
    sh, sw = pb.lib["competent_shooter"], pb.lib["competent"]
    assert (sh.plan_in_force, sw.plan_in_force) == ("hold", "charge")
    with pytest.raises(InputError, match="no kite rule"):
        R(sh, plan="kite").check()
    with pytest.raises(InputError, match="needs a ranged weapon"):
        R(sw, plan="cover").check()
    with pytest.raises(InputError, match="unknown plan 'run'"):
        R(sw, plan="run").check()
    with pytest.raises(InputError, match="range bands must be 0 <= close <= far"):
        R(sh, weapon=R(sh.weapon, close=40, far=30)).check()
    with pytest.raises(InputError, match=r"variant distance: expected whole metres 0\.\.200"):
        pb.cb.duel_exact(sh, sw, pb.cb.Variants(distance=201))
    with pytest.raises(InputError, match=r"variant move: expected whole metres 1\.\.200"):
        pb.cb.duel_mc(sh, sw, 10, variants=pb.cb.Variants(move=0))


# ----------------------------------------------------------- the commands take it


def _csv(capsys, *argv) -> pd.DataFrame:
    from cli.main import main

    capsys.readouterr()
    assert main([*argv, "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_duel_distance_plans_and_table(plugin_installed, capsys, pb):
    """``duel pbta_2d6 … --distance 20`` is the exact chain at 20 m; ``--plan-a charge``
    sends the shooter into its close band (PD6: at 20 m it gives up a far-band shot for
    two steps closer, and wins less often); ``--table distance`` rows are the single
    runs."""
    from analysis.combat.lethality import distance_systems, has_distance

    assert has_distance("pbta_2d6")
    assert "pbta_2d6" in distance_systems()
    duel = ("duel", "pbta_2d6", "competent_shooter", "competent")
    hold = _csv(capsys, *duel, "--distance", "20")
    sh, sw = pb.lib["competent_shooter"], pb.lib["competent"]
    want = pb.cb.duel_exact(sh, sw, pb.cb.Variants(distance=20)).outcome[0]
    assert hold["p_side0"].iloc[0] == pytest.approx(want, abs=1e-12)
    assert hold["variants"].iloc[0] == "distance=20"
    charge = _csv(capsys, *duel, "--distance", "20", "--plan-a", "charge")
    want = pb.cb.duel_exact(R(sh, plan="charge"), sw, pb.cb.Variants(distance=20)).outcome[0]
    assert charge["p_side0"].iloc[0] == pytest.approx(want, abs=1e-12)
    assert charge["p_side0"].iloc[0] < hold["p_side0"].iloc[0] - 0.01
    table = _csv(capsys, *duel, "--table", "distance", "--distances", "0,20,40")
    assert list(table["distance"]) == [0, 20, 40]
    assert table["p_side0"].iloc[1] == pytest.approx(hold["p_side0"].iloc[0], abs=1e-15)
    # the shooter gets shots the engaged fight does not give it
    assert table["p_side0"].iloc[2] > table["p_side0"].iloc[1] > table["p_side0"].iloc[0]
    engaged = _csv(capsys, *duel)
    assert engaged["p_side0"].iloc[0] == table["p_side0"].iloc[0]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--plan-a", "kite", "--distance", "10"], "pbta_2d6 has no kite rule"),
        (["--plan-b", "cover"], "plan 'cover' takes cover, then shoots (PD6)"),
        (["--variant", "move=0"], "variant move: expected whole metres 1..200"),
    ],
)
def test_bad_plans_are_one_line_exit_2(plugin_installed, capsys, argv, says):
    from cli.main import main

    capsys.readouterr()
    assert main(["duel", "pbta_2d6", "competent_shooter", "competent", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert says in err, err


def test_group_fight_from_a_matchup_file_that_starts_apart(plugin_installed, capsys, tmp_path):
    """``combat scenarios/standoff_2v3.toml``: two shooters in cover against three thugs
    charging from 30 m (PD1–PD6, Monte Carlo). The thugs spend two turns closing under
    fire, so the shooters win clearly more often than in the same fight engaged (more
    than 10 standard errors of the difference apart)."""
    path = PKG / "scenarios" / "standoff_2v3.toml"
    apart = _csv(capsys, "combat", str(path)).iloc[0]
    assert apart["variants"] == "distance=30"
    engaged_file = tmp_path / "engaged.toml"
    engaged_file.write_text(path.read_text().replace("distance = 30 ", "distance = 0 "))
    engaged = _csv(capsys, "combat", str(engaged_file)).iloc[0]
    se = np.hypot(apart["se_side0"], engaged["se_side0"])
    assert apart["p_side0"] - engaged["p_side0"] > 10 * se


def test_cross_combat_file_fights_apart(plugin_installed, capsys):
    """The example's cross-combat file maps the plug-in into the matchups that start
    apart: one row per starting distance, each the ``duel --distance`` of its
    fighters; engaged the pistol and the knife are a mirror (harm 2 each, +1 each)."""
    t = _csv(capsys, "cross-combat", "--cross-combat", str(CROSS))
    rows = t[(t["system"] == "pbta_2d6") & t["matchup"].str.startswith("shooter_vs_charger")]
    assert list(rows["matchup"]) == [f"shooter_vs_charger_{d}m" for d in (0, 10, 20, 40)]
    assert rows["p_side0"].iloc[0] == pytest.approx(0.5, abs=1e-12)
    one = _csv(
        capsys,
        "duel",
        "pbta_2d6",
        "competent_shooter",
        "competent",
        "--weapon-b",
        "light_melee",
        "--distance",
        "20",
    )
    assert rows["p_side0"].iloc[2] == pytest.approx(one["p_side0"].iloc[0], abs=1e-12)


def test_report_distance_section_takes_the_plugin(plugin_installed, capsys):
    """The report's *Distance and cover* section with the example's cross-combat file
    (``report --cross-combat``): the plug-in gets its sentence, the sentence's numbers are
    what its command prints, and its armoured shooter has a row."""
    from reports.sections.distance import section_distance
    from reports.settings import ReportSettings

    sec = section_distance(
        ReportSettings(
            systems=("pbta_2d6",), combat_trials=400, pdf=False, progress=False, cross_combat=CROSS
        )
    )
    line = next(r for r in sec.reading if str(r).startswith("pbta_2d6:") and "charging" in r)
    assert "its fights start engaged" not in " ".join(map(str, sec.reading))
    words = shlex.split(line.small)
    t = _csv(capsys, *words[1:]).set_index("distance")
    p0, p20 = re.findall(r"([\d.]+)% of", line)
    assert float(p0) / 100 == pytest.approx(t.loc[0, "p_side0"], abs=1e-3)
    assert float(p20) / 100 == pytest.approx(t.loc[20, "p_side0"], abs=1e-3)
    assert {getattr(b, "id", None) for b in sec.blocks} >= {"distance", "distance-armour"}


GUARDRAIL = """
name = "a shooter apart"
[[fights]]
name = "sword_vs_pistol"
system = "pbta_2d6"
a = "competent"
b = "competent_shooter"
[[guardrails]]
name = "a charger can close the gap"
fight = "sword_vs_pistol"
metric = "p_side0"
min = {limit}
distances = [0, 20, 40]
"""


def test_guardrail_at_every_distance(plugin_installed, tmp_path):
    """A guardrail with ``distances`` on a plug-in fight is measured at each starting
    distance (the values ``duel --table distance`` prints); the worst one decides."""
    from analysis.combat.lethality import distance_table
    from analysis.workflow.audit.measuring import measure
    from analysis.workflow.scenario import load_scenario

    ref = distance_table("pbta_2d6", "competent", "competent_shooter", [0, 20, 40])
    by = dict(zip(ref["distance"], ref["p_side0"], strict=True))
    assert by[0] > by[20] > by[40]  # PD2: the swordsman is shot at while it closes
    for limit, status in (((by[0] + by[40]) / 2, "fail"), (by[40] - 0.01, "pass")):
        path = tmp_path / "g.toml"
        path.write_text(GUARDRAIL.format(limit=limit), encoding="utf-8")
        sc = load_scenario(path)
        m = measure(sc, sc.guardrails[0], 0)
        assert m["status"] == status
        assert m["by_distance"] == pytest.approx(by, abs=1e-12)
        assert m["value"] == pytest.approx(by[40], abs=1e-12)
