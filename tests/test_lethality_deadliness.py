"""Deadliness of a fight (RULES.md "Lethality outcomes", LO-r3 someone dead):
``p_someone_dead`` (P(at least one fighter of either side ends dead)) and ``deaths_mean``
(expected dead fighters), exact for duels and Monte Carlo for every fight, and the
``--aftermath`` list of ``duel``, ``combat`` and ``cross-combat``.

Monte Carlo vs exact: within 5 standard errors plus one count,
``abs(p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n`` (five SEs keep the false-alarm
rate negligible over the cells tested; 1/n covers cells whose expected count is below
one), fixed seeds.
"""

from __future__ import annotations

import dataclasses
import io
import math
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.combat import archetypes as A
from analysis.combat import fights as F
from analysis.combat import lethality as L
from cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"
N = 20_000

DUELS = [  # (system, a, b): a duel of each built-in, both ways of ending it
    ("dice_pool_7", "competent", "expert"),
    ("dice_pool_6", "competent_swordsman", "competent_brawler"),
    ("middle_3d10", "competent", "novice"),
    ("percentile", "competent_shooter", "novice"),
    ("d20_degrees", "competent_shooter", "novice"),
]


def close(p_mc, p, n):
    return abs(p_mc - p) <= 5 * math.sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


@pytest.fixture(scope="module")
def pbta():
    """The example plug-in's combat module, imported from its folder."""
    sys.path.insert(0, str(PKG))
    try:
        from pbta_2d6 import combat
    finally:
        sys.path.remove(str(PKG))
    return combat


def _hand_duel(combat):
    """PC1-PC8 worked by hand: clock 2 (PC7), a fall 2 or more beyond it is dead
    (PC-g3), side 0 acts first (PC-g1), both stat 0. A deals harm 4: any strike on B
    leaves it 2 beyond the clock, dead. B deals harm 3: a strike on A leaves it 1 beyond,
    dying. A's first roll ends the duel: 10+ (6/36) or 7-9 (15/36: A strikes first and B,
    down, strikes nothing back) kill B; 6- (15/36) lets B strike, A falls dying."""
    a = combat.Combatant(name="A", stat=0, weapon=combat.Weapon("axe", 4))
    b = combat.Combatant(name="B", stat=0, weapon=combat.Weapon("club", 3))
    return a, b, combat.Variants(order="side0_first", clock=2, dead_over=2)


@pytest.mark.parametrize(
    ("aftermath", "p_dead"),
    [
        ("leave", 21 / 36),  # PC8: B dead
        ("first_aid", 21 / 36),  # A never dies
        ("finish", 1.0),
    ],
)  # PC8: A finished too
def test_hand_worked_duel(pbta, aftermath, p_dead):
    a, b, v = _hand_duel(pbta)
    v = dataclasses.replace(v, aftermath=aftermath)
    ex = pbta.duel_exact(a, b, v)
    # the fate distribution: P(A wins) = 21/36, and every loss of B is a death
    assert ex.outcome[0] == pytest.approx(21 / 36, abs=1e-12)
    p, se = ex.p_someone_dead()
    assert p == pytest.approx(p_dead, abs=1e-12)
    assert se == 0.0
    # a duel has one loser: at most one death, so the expected deaths are the same
    assert ex.deaths_mean()[0] == pytest.approx(p_dead, abs=1e-12)
    mc = pbta.duel_mc(a, b, N, seed=5, variants=v)
    p_mc, se_mc = mc.p_someone_dead()
    assert close(p_mc, p_dead, N)
    assert se_mc == pytest.approx(math.sqrt(p_mc * (1 - p_mc) / N))


@pytest.mark.parametrize("aftermath", ["leave", "finish"])
@pytest.mark.parametrize(("system", "a", "b"), DUELS)
def test_duel_exact_vs_mc(system, a, b, aftermath):
    st = L.duel_stats(system, a, b, "both", trials=N, seed=3, aftermath=aftermath)
    ex, mc = st["exact"], st["mc"]
    p, _ = ex.p_someone_dead()
    p_mc, se = mc.p_someone_dead()
    assert close(p_mc, p, N), (p_mc, p, se)
    m, _ = ex.deaths_mean()
    m_mc, se_m = mc.deaths_mean()
    assert abs(m_mc - m) <= 5 * se_m + 1 / N
    # exact: a duel's someone-dead is its loser dead, weighted by who won
    p_loser, _ = ex.p_loser_fates()
    decided = ex.outcome[:2].sum()
    assert p == pytest.approx(p_loser[0] * decided, abs=1e-9)


def test_group_fight_tallies_per_trial(pbta):
    """1 vs 2, side 0 unhurtable (armour 3 against harm 1, PC3) and killing with every
    strike (harm 6 on a clock of 2, PC7): a decided fight leaves both foes dead, so
    P(someone dead) = 1, two deaths in every trial and no spread (SE 0)."""
    a = pbta.Combatant(
        name="A", stat=0, weapon=pbta.Weapon("maul", 6), armour=pbta.Armour("plate", 3)
    )
    b = pbta.Combatant(name="B", stat=0)
    v = pbta.Variants(clock=2, dead_over=2)
    st = pbta.fight_mc([a], [b, b], 4000, seed=2, variants=v, round_cap=200)
    assert st.outcome[0] == 4000
    assert st.p_someone_dead() == (1.0, 0.0)
    assert st.deaths_mean() == (2.0, 0.0)


@pytest.mark.parametrize(("system", "a", "b"), [DUELS[0], DUELS[3]])
def test_group_fight_columns(system, a, b):
    """2 vs 2: someone dead is a per-trial event — at most the expected deaths, at least
    the expected deaths over the four fighters; the metrics read the same numbers."""
    row, _ = L.group_fight(system, [a, a], [b, b], trials=N, seed=4, aftermath="finish")
    p, se, m, se_m = (
        row[k] for k in ("p_someone_dead", "se_someone_dead", "deaths_mean", "se_deaths_mean")
    )
    assert 0 < p <= m <= 4 * p
    assert se == pytest.approx(math.sqrt(p * (1 - p) / N))
    assert se_m > 0
    dead = row["p_side0_dead"] * 2 + row["p_side1_dead"] * 2
    assert m == pytest.approx(dead)
    fa, fb = A.combatant(system, a), A.combatant(system, b)
    st = L.run_fight(system, [fa, fa], [fb, fb], "mc", trials=N, seed=4, aftermath="finish")
    assert F.metric("p_someone_dead")(st) == pytest.approx((p, se))
    assert F.metric("deaths_mean")(st) == pytest.approx((m, se_m))


def _run(argv) -> str:
    out = io.StringIO()
    old = sys.stdout
    sys.stdout = out
    try:
        assert main(argv) == 0
    finally:
        sys.stdout = old
    return out.getvalue()


COMBAT_FILE = str(ROOT / "scenarios" / "combat" / "ambush_3v1.toml")


@pytest.mark.parametrize(
    "base",
    [
        ["duel", "dice_pool_7", "competent", "expert"],
        ["combat", COMBAT_FILE, "--trials", "400", "--seed", "2"],
        ["cross-combat", "--table", "groups", "--trials", "200", "--seed", "2"],
    ],
)
def test_cli_aftermath_list(base):
    """``--aftermath leave,finish``: each policy's rows in turn, the same numbers as one
    run per policy; one policy is today's output."""
    base = [*base, "--format", "csv"]
    both = pd.read_csv(io.StringIO(_run([*base, "--aftermath", "leave,finish"])))
    leave = pd.read_csv(io.StringIO(_run([*base, "--aftermath", "leave"])))
    finish = pd.read_csv(io.StringIO(_run([*base, "--aftermath", "finish"])))
    assert list(both["aftermath"]) == ["leave"] * len(leave) + ["finish"] * len(finish)
    pd.testing.assert_frame_equal(both.iloc[: len(leave)].reset_index(drop=True), leave)
    pd.testing.assert_frame_equal(both.iloc[len(leave) :].reset_index(drop=True), finish)
    assert _run([*base, "--aftermath", "leave"]) == _run(base)


def test_cli_aftermath_bad(capsys):
    try:
        rc = main(["duel", "dice_pool_7", "competent", "expert", "--aftermath", "leave,kill"])
    except SystemExit as exc:
        rc = exc.code
    assert rc == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "'kill'" in err[0]
    assert "--aftermath" in err[0]


def test_report_group_section_shows_both_aftermaths():
    """The report's group-fight section: the deadliness table holds the numbers of
    ``cross-combat --table groups`` under ``leave`` and under ``finish`` (each fight named
    by its title in the cross-combat file), and its CSV frame the same rows with SEs."""
    from analysis.combat import cross_combat
    from reports.sections.combat_groups import section_combat_groups
    from reports.settings import ReportSettings

    system = DUELS[0][0]
    settings = ReportSettings(
        systems=(system,), combat_trials=400, seed=7, pdf=False, progress=False
    )
    section = section_combat_groups(settings)
    table = next(b for b in section.blocks if b.id == "combat-groups-deadliness")
    shown = table.frame.set_index(["fight", "system"])
    titles = {gid: g.title for gid, g in cross_combat.load_cross(None)["groups"].items()}
    heads = {
        "leave": ("someone dead, fallen left", "dead (mean), fallen left"),
        "finish": ("someone dead, winners finish", "dead (mean), winners finish"),
    }
    for policy in ("leave", "finish"):
        rows, _ = cross_combat.group_table(trials=400, seed=7, progress=False, aftermath=policy)
        rows = rows[rows["system"] == system]
        full = table.full[table.full["aftermath"] == policy].set_index(["fight", "system"])
        assert len(rows) == len(shown) == len(full)
        for key, head in zip(("p_someone_dead", "deaths_mean"), heads[policy], strict=True):
            for row in rows.itertuples(index=False):
                assert shown.loc[(titles[row.fight], system), head] == pytest.approx(
                    getattr(row, key)
                )
        by_id = rows.set_index(["fight", "system"])
        for key in ("p_someone_dead", "se_someone_dead", "deaths_mean", "se_deaths_mean"):
            assert list(full[key]) == pytest.approx(list(by_id.loc[full.index, key]))
    assert any("when the winners finish them" in r for r in section.reading)
