"""Lethality outcomes end to end (RULES.md "Lethality outcomes"): ``--aftermath`` from the
command line through the real combat engines to the fate columns.

No fakes here: each check reads a number the engines compute and compares it with a
hand-derived bound or with the other method (exact vs Monte Carlo within 5·SE + 1/n).
"""

import io
import math

import pandas as pd
import pytest

from cli.main import main

FATES = ("dead", "dying", "out")


def table(argv, capsys) -> pd.DataFrame:
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return pd.read_csv(io.StringIO(out))


def test_d20_loser_is_only_incapacitated_unless_finished(capsys):
    """E13: hit points 0 → incapacitated, and only a *further* hit makes a target dying or
    dead. Under ``leave`` nobody strikes the fallen, so every loser of a competent d20 duel
    ends out (exactly 1). Under ``finish`` the winner attacks a defenceless, prone target
    (E13, E17, the seed's "Incapacitado ... Deitado": +5 in melee) for up to 10 rounds
    (E-g7), and each hit calls a resistance roll that can only go from dying to dead, so
    the loser ends dead almost surely."""
    leave = table(["duel", "d20_degrees", "competent", "competent"], capsys).iloc[0]
    assert leave["aftermath"] == "leave"
    assert (leave["p_loser_dead"], leave["p_loser_dying"]) == (0.0, 0.0)
    assert leave["p_loser_out"] == pytest.approx(1.0)
    finish = table(
        ["duel", "d20_degrees", "competent", "competent", "--aftermath", "finish"], capsys
    ).iloc[0]
    assert finish["aftermath"] == "finish"
    assert finish["p_loser_dead"] > 0.99
    # the fight itself does not depend on the policy
    assert finish["p_side0"] == pytest.approx(leave["p_side0"], abs=1e-12)
    assert finish["rounds_mean"] == pytest.approx(leave["rounds_mean"], abs=1e-12)


@pytest.mark.parametrize(
    ("system", "a", "b"),
    [
        ("percentile", "competent_shooter", "competent"),
        ("dice_pool_7", "competent_swordsman", "competent_swordsman"),
        ("middle_3d10", "competent", "competent"),
    ],
)
@pytest.mark.parametrize("policy", ["leave", "first_aid", "finish"])
def test_fates_exact_vs_mc_through_the_cli(system, a, b, policy, capsys):
    """``duel --method both --aftermath P``: the Monte Carlo fates agree with the exact
    chain within 5·SE + 1/n (n = decided fights), and each row's fates sum to 1."""
    n_trials = 20_000
    t = table(
        [
            "duel",
            system,
            a,
            b,
            "--method",
            "both",
            "--aftermath",
            policy,
            "--trials",
            str(n_trials),
            "--seed",
            "11",
        ],
        capsys,
    )
    ex, mc = t[t.method == "exact"].iloc[0], t[t.method == "mc"].iloc[0]
    for row in (ex, mc):
        assert sum(row[f"p_loser_{f}"] for f in FATES) == pytest.approx(1.0, abs=1e-9)
        assert row["aftermath"] == policy
    decided = n_trials * (1 - mc["p_neither"])
    for f in FATES:
        p, q = ex[f"p_loser_{f}"], mc[f"p_loser_{f}"]
        assert abs(q - p) <= 5 * math.sqrt(p * (1 - p) / decided) + 1 / decided, (f, p, q)


def test_percentile_dying_losers_now_die(capsys):
    """DX8: a loser at 0 hit points with a major wound is dying and rolls CON at the end of
    each round; nobody can stabilise alone, so under ``leave`` (no horizon, DX-g6) every
    dying loser ends dead and P(dead) exceeds the instant-death share (DX9) alone, which
    the one-hit odds bound from below. Under ``first_aid`` (DX-g7) some are saved: P(dead)
    drops and P(out) rises."""
    base = ["duel", "percentile", "competent_shooter", "competent"]
    leave = table(base, capsys).iloc[0]
    aid = table([*base, "--aftermath", "first_aid"], capsys).iloc[0]
    assert leave["p_loser_dying"] == 0.0
    assert leave["p_loser_dead"] > 0.5
    assert aid["p_loser_dead"] < leave["p_loser_dead"]
    assert aid["p_loser_out"] > leave["p_loser_out"]


@pytest.mark.slow
def test_cross_combat_fates_sum_to_one_in_every_system(capsys):
    """cross-combat under each policy: every system reports the three fates, summing to 1,
    and ``finish`` kills at least as often as ``leave`` in every row."""
    cols = "matchup,system,aftermath,p_loser_dead,p_loser_dying,p_loser_out"
    tabs = {
        p: table(["cross-combat", "--aftermath", p, "--columns", cols], capsys)
        for p in ("leave", "finish")
    }
    for p, t in tabs.items():
        assert set(t.system) == {
            "dice_pool_7",
            "middle_3d10",
            "dice_pool_6",
            "percentile",
            "d20_degrees",
        }
        assert (t.aftermath == p).all()
        sums = t[[f"p_loser_{f}" for f in FATES]].sum(axis=1)
        assert ((sums - 1).abs() < 1e-9).all()
    m = tabs["leave"].merge(tabs["finish"], on=["matchup", "system"], suffixes=("_l", "_f"))
    assert (m.p_loser_dead_f >= m.p_loser_dead_l - 1e-12).all()
