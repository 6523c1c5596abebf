"""The designer workflow over the combat engines: fight metrics, the lethality solver in
all five systems, and the example scenarios through the CLI (fight sweeps on Dask:
``test_fight_sweep.py``).

Oracles: hand-built FightStats for the round metrics; a brute-force scan of the same
knob grid straight through each engine's ``duel_exact`` / ``one_hit`` (metrics recomputed
here from the raw arrays) for the solver; symmetry (an even duel is won half the time)
for the scenarios.
Rule ids exercised: A14 (dice_pool_7 vitality = 2 CON + 6), B9 (middle_3d10 Vigor),
C6 (dice_pool_6 health from Stamina), DX7–DX9 (percentile hit points from CON + SIZ),
E11/E13 (d20_degrees attack and hit points).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from analysis.combat import archetypes
from analysis.combat import fights as reg
from analysis.workflow.fight_sweep import run_fight_sweep
from analysis.workflow.scenario import parse_scenario
from analysis.workflow.solvers import solve_lethality
from analysis.workflow.sweep import Cluster
from cli.main import main
from engines.errors import InputError
from engines.fight import FightStats
from engines.system import BUILT_IN

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tol(p: float, n: int) -> float:
    """The project's MC-vs-exact tolerance: five binomial SEs plus one count."""
    return 5 * math.sqrt(p * (1 - p) / n) + 1 / n


# ------------------------------------------------------------------ metrics


def _stats(trials=None):
    """Fights ending in rounds 1..6 with weights 1, 2, 3, 2, 1, 1 (of 10)."""
    st = FightStats.empty(
        "d20_degrees", 10, trials=trials, dtype=np.int64 if trials else np.float64
    )
    scale = trials // 10 if trials else 0.1
    for k, w in zip(range(1, 7), (1, 2, 3, 2, 1, 1), strict=True):
        st.rounds[k, k % 2] = w * scale
    st.outcome[:2] = st.rounds.sum(axis=0)[:2]
    return st


def test_rounds_between_hand_worked():
    """P(3..5 rounds) = (3 + 2 + 1) / 10; SE sqrt(p(1-p)/n) for Monte Carlo, 0 exact."""
    assert reg.metric("p_rounds_between:3:5")(_stats()) == pytest.approx((0.6, 0.0))
    est, se = reg.metric("p_rounds_between:3:5")(_stats(1000))
    assert est == pytest.approx(0.6)
    assert se == pytest.approx(math.sqrt(0.6 * 0.4 / 1000))
    assert reg.metric("p_rounds_between:6:99")(_stats())[0] == pytest.approx(0.1)
    # mean rounds: (1 + 4 + 9 + 8 + 5 + 6) / 10
    assert reg.metric("rounds_mean")(_stats())[0] == pytest.approx(3.3)


def _ten_duels():
    """10 Monte Carlo duels: side 0 wins 6 (its losers 3 dead, 1 dying, 2 out), side 1
    wins 3 (1 dead, 0 dying, 2 out), 1 reaches the cap."""
    st = FightStats.empty("d20_degrees", 10, trials=10)
    st.outcome[:] = [6, 3, 1]
    st.rounds[2, 0], st.rounds[3, 1], st.rounds[10, 2] = 6, 3, 1
    st.standing[0] = [10, 10]
    st.loser_fate[:] = [[3, 1, 2], [1, 0, 2]]
    st.loser_fate_sq[:] = st.loser_fate
    st.loser_dead[:] = [3, 1]
    return st


def test_loser_fate_metrics_hand_worked():
    """RULES.md "Lethality outcomes": among the 9 decided duels the loser ends dead in
    3 + 1, dying in 1, out in 2 + 2; SE sqrt(p(1-p)/9) (each duel adds one count); the
    three sum to 1; exact results carry SE 0."""
    st = _ten_duels()
    want = {"p_loser_dead": 4 / 9, "p_loser_dying": 1 / 9, "p_loser_out": 4 / 9}
    for name, p in want.items():
        est, se = reg.metric(name)(st)
        assert est == pytest.approx(p)
        assert se == pytest.approx(math.sqrt(p * (1 - p) / 9))
    assert sum(reg.metric(n)(st)[0] for n in want) == pytest.approx(1.0)
    ex = FightStats.empty("d20_degrees", 10, dtype=np.float64)
    ex.outcome[:] = [0.5, 0.5, 0.0]
    ex.standing[0] = [1.0, 1.0]
    ex.loser_fate[:] = [[0.1, 0.0, 0.4], [0.1, 0.0, 0.4]]
    assert reg.metric("p_loser_dead")(ex) == pytest.approx((0.2, 0.0))
    assert reg.metric("p_loser_out")(ex) == pytest.approx((0.8, 0.0))
    assert "p_loser_dies" not in reg.METRIC_NAMES


_ODDS = {
    "p_hit": 0.5,
    "p_incapacitate": 0.3,
    "p_kill": 0.1,
    "p_dead": 0.12,
    "p_dying": 0.08,
    "p_out": 0.1,
}


def _fake_engine(monkeypatch, odds, stats=None):
    import types

    from analysis.workflow import fight_sweep

    mod = types.SimpleNamespace(
        one_hit=lambda a, b, v: dict(odds), duel_exact=lambda a, b, v, cap: stats
    )
    monkeypatch.setattr(fight_sweep.reg, "engine", lambda system: mod)
    monkeypatch.setattr(fight_sweep.reg, "fighter", lambda system, spec: spec)


def test_one_hit_fate_metrics_read_the_engine_keys(monkeypatch):
    """p_one_hit_dead / _dying / _out read one_hit's p_dead / p_dying / p_out (exact,
    SE 0); p_one_hit_kill keeps reading p_kill."""
    from analysis.workflow.fight_sweep import fight_point

    _fake_engine(monkeypatch, _ODDS)
    for name, key in (
        ("p_one_hit_dead", "p_dead"),
        ("p_one_hit_dying", "p_dying"),
        ("p_one_hit_out", "p_out"),
        ("p_one_hit_kill", "p_kill"),
    ):
        assert reg.check_metric(name) == name
        row = fight_point("d20_degrees", "a", "b", {}, 10, name, exact=True)
        assert (row["metric"], row["se_metric"]) == (_ODDS[key], 0.0)


def test_one_hit_fate_metric_missing_from_engine(monkeypatch):
    from analysis.workflow.fight_sweep import fight_point

    _fake_engine(monkeypatch, {"p_hit": 0.5, "p_incapacitate": 0.3, "p_kill": 0.1})
    with pytest.raises(InputError, match=r"p_one_hit_dying.*'p_dying'"):
        fight_point("d20_degrees", "a", "b", {}, 10, "p_one_hit_dying", exact=True)


def test_fight_point_row_has_every_fate(monkeypatch):
    """A sweep row carries the loser's fates with SEs, the one-hit fates and the policy."""
    from analysis.workflow.fight_sweep import fight_point

    ex = FightStats.empty("d20_degrees", 10, dtype=np.float64)
    ex.outcome[:] = [0.6, 0.4, 0.0]
    ex.rounds[1, 0], ex.rounds[1, 1] = 0.6, 0.4
    ex.standing[0] = [1.0, 1.0]
    ex.loser_fate[:] = [[0.3, 0.1, 0.2], [0.0, 0.0, 0.4]]
    _fake_engine(monkeypatch, _ODDS, ex)
    row = fight_point("d20_degrees", "a", "b", {}, 10, "p_loser_dying", exact=True)
    assert row["metric"] == pytest.approx(0.1)
    assert row["p_loser_dead"] == pytest.approx(0.3)
    assert row["p_loser_out"] == pytest.approx(0.6)
    assert row["se_p_loser_out"] == 0.0
    assert row["aftermath"] == "leave"
    assert (row["p_one_hit_dead"], row["p_one_hit_dying"], row["p_one_hit_out"]) == (
        0.12,
        0.08,
        0.1,
    )


@pytest.mark.parametrize(
    "bad",
    [
        "p_rounds_between",
        "p_rounds_between:5:3",
        "p_rounds_between:a:b",
        "p_rounds_between:1:2:3",
        "p_win",
    ],
)
def test_bad_metric_names(bad):
    with pytest.raises(InputError, match="metric"):
        reg.check_metric(bad)


# ------------------------------------------------------------------ lethality solver
#: (system, a, b, knob, values, metric, target, goal, increasing): one question each
CASES = [
    # A14: vitality 2 CON + 6 — how long an even duel of swordsmen lasts
    (
        "dice_pool_7",
        "competent_swordsman",
        "competent_swordsman",
        "both.CON",
        [1, 2, 3, 4, 5],
        "p_rounds_between:3:5",
        0.7,
        "at_least",
        True,
    ),
    # B9: Vigor of side 0 against an equal opponent
    (
        "middle_3d10",
        "competent",
        "competent",
        "a.vigor",
        [2, 3, 4, 5, 6, 7, 8],
        "p_side0",
        0.6,
        "at_least",
        True,
    ),
    # C6: Stamina of both sides — rounds
    (
        "dice_pool_6",
        "competent_swordsman",
        "competent_swordsman",
        "both.stamina",
        [1, 2, 3, 4, 5],
        "p_rounds_between:3:5",
        0.5,
        "at_least",
        True,
    ),
    # DX7–DX9: CON of both sides — mean fight length
    (
        "percentile",
        "competent",
        "competent",
        "both.con",
        [20, 40, 60, 80],
        "rounds_mean",
        3.5,
        "at_least",
        True,
    ),
    # E13: hit points of side 0
    (
        "d20_degrees",
        "competent",
        "competent",
        "a.hit_points",
        [17, 19, 21, 23, 25],
        "p_side0",
        0.55,
        "at_least",
        True,
    ),
]


_SCANS: dict = {}


def brute_force(system, a, b, knob, values, metric, one_hit=False):
    """Metric at every knob value straight from the engine's exact solver (each scan is
    computed once per test session)."""
    memo = repr((system, a, b, knob, values, metric, one_hit))
    if memo not in _SCANS:
        _SCANS[memo] = _scan(system, a, b, knob, values, metric, one_hit)
    return _SCANS[memo]


def _scan(system, a, b, knob, values, metric, one_hit):
    side, key = knob.split(".")
    eng = archetypes.engine(system)
    v = archetypes.variants(system)
    out = []
    for value in values:
        fa = archetypes.combatant(system, a, {key: value} if side in ("a", "both") else None)
        fb = archetypes.combatant(system, b, {key: value} if side in ("b", "both") else None)
        if one_hit:
            out.append(eng.one_hit(fa, fb, v)["p_incapacitate"])
            continue
        st = eng.duel_exact(fa, fb, v, 50)
        by_round = st.rounds.sum(axis=1)
        if metric == "p_side0":
            out.append(st.outcome[0])
        elif metric == "rounds_mean":
            out.append(sum(k * p for k, p in enumerate(by_round)))
        else:
            lo, hi = map(int, metric.split(":")[1:])
            out.append(by_round[lo : hi + 1].sum())
    return out


def first_meeting(values, metric_values, target, goal, increasing):
    """The answer by scanning: the smallest (or, for at_most on a falling metric, the
    first from the failing side) knob value meeting the target."""
    ok = [(m >= target) if goal == "at_least" else (m <= target) for m in metric_values]
    order = (
        range(len(values)) if increasing == (goal == "at_least") else range(len(values) - 1, -1, -1)
    )
    for i in order:
        if ok[i]:
            return values[i]
    return None


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_lethality_exact_matches_brute_force(case):
    system, a, b, knob, values, metric, target, goal, increasing = case
    scan = brute_force(system, a, b, knob, values, metric)
    want = first_meeting(values, scan, target, goal, increasing)
    assert want is not None
    assert want != values[0]
    res, table = solve_lethality(
        system, a, b, knob, values, target, metric, goal=goal, increasing=increasing
    )
    assert res.knob == want
    assert table.loc[table["chosen"], "value"].tolist() == [want]
    for row in table.itertuples():
        assert row.estimate == pytest.approx(scan[values.index(row.value)], abs=1e-12)
        assert row.method == "exact"
        assert row.se == 0


def test_lethality_monte_carlo_brackets_exact():
    """dice_pool_6 (C6) by Monte Carlo: every evaluated estimate within 5 SE + 1/n of
    the exact value, and the answer is the exact answer or one of its undecided
    neighbours (a cell counts only when its whole 2-SE interval meets the target)."""
    system, a, b, knob, values, metric, target, goal, inc = CASES[2]
    scan = brute_force(system, a, b, knob, values, metric)
    want = first_meeting(values, scan, target, goal, inc)
    n = 20_000
    res, table = solve_lethality(
        system, a, b, knob, values, target, metric, exact=False, trials=n, seed=4
    )
    for row in table.itertuples():
        p = scan[values.index(row.value)]
        assert row.method == "mc"
        assert row.trials == n
        assert abs(row.estimate - p) <= tol(p, n)
    assert res.knob == want or want in res.undecided
    assert res.estimate - 2 * res.se >= target


def test_one_hit_pistol_vs_novice():
    """E11/E13: the fewest hit points keeping one pistol attack's incapacitation odds at
    or below 30 %, against a scan of the engine's exact one_hit over the same grid."""
    values = list(range(1, 21))
    a = {"archetype": "novice", "weapon": "pistol"}
    scan = brute_force("d20_degrees", a, "novice", "b.hit_points", values, None, one_hit=True)
    want = first_meeting(values, scan, 0.3, "at_most", False)
    res, _table = solve_lethality(
        "d20_degrees",
        a,
        "novice",
        "b.hit_points",
        values,
        0.3,
        "p_one_hit_incapacitate",
        goal="at_most",
        increasing=False,
    )
    assert res.knob == want
    assert res.estimate <= 0.3 < scan[values.index(want) - 1]


# ------------------------------------------------------------------ scenarios via the CLI


def _scenario(name):
    return os.path.join(ROOT, "scenarios", name)


def test_cli_run_lethality_scenario(tmp_path, capsys):
    """scenarios/lethality_solve.toml end to end: the answers equal brute-force scans."""
    rc = main(["run", _scenario("lethality_solve.toml"), "-o", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    t = pd.read_csv(tmp_path / "lethality.csv")
    answers = dict(zip(t.loc[t["chosen"], "fight"], t.loc[t["chosen"], "value"], strict=True))
    con = [1, 2, 3, 4, 5, 6]
    scan = brute_force(
        "dice_pool_7",
        "competent_swordsman",
        "competent_swordsman",
        "both.CON",
        con,
        "p_rounds_between:3:5",
    )
    assert answers["even_swordsmen"] == first_meeting(con, scan, 0.7, "at_least", True)
    hp = list(range(1, 21))
    scan = brute_force(
        "d20_degrees",
        {"archetype": "novice", "weapon": "pistol"},
        "novice",
        "b.hit_points",
        hp,
        None,
        one_hit=True,
    )
    assert answers["pistol_vs_novice"] == first_meeting(hp, scan, 0.3, "at_most", False)


def test_cli_run_even_duels_scenario(tmp_path, capsys):
    """scenarios/even_duels.toml: mirror-image duels are won half the time (symmetry),
    exactly, in all five systems."""
    rc = main(["run", _scenario("even_duels.toml"), "-o", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    t = pd.read_csv(tmp_path / "fights.csv")
    assert sorted(t["system"]) == sorted(BUILT_IN)  # the five the file names
    assert np.allclose(t["p_side0"], 0.5, atol=1e-9)
    assert (t["se_p_side0"] == 0).all()
    assert (t["rounds_mean"] >= 1).all()
    # each side is named with its weapon (issue §4: the percentile duel uses a bat here)
    row = t.set_index("system").loc["percentile"]
    assert row["a"] == row["b"] == "competent (weapon=bat)"
    assert (t["aftermath"] == "leave").all()
    fates = t[["p_loser_dead", "p_loser_dying", "p_loser_out"]].sum(axis=1)
    assert np.allclose(fates, 1.0, atol=1e-9)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cli_solve_lethality(case, tmp_path, capsys):
    """``rpg-balance solve lethality --a --b`` with the real engine of every system."""
    system, a, b, knob, values, metric, target, goal, increasing = case
    out = tmp_path / "l.csv"
    rc = main(
        [
            "solve",
            "lethality",
            "--system",
            system,
            "--a",
            a,
            "--b",
            b,
            "--knob",
            knob,
            "--values",
            ",".join(map(str, values)),
            "--metric",
            metric,
            "--target",
            str(target),
            "-o",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    want = first_meeting(
        values, brute_force(system, a, b, knob, values, metric), target, goal, increasing
    )
    assert f"{knob} = {want}:" in err
    assert pd.read_csv(out).loc[lambda d: d["chosen"], "value"].tolist() == [want]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--knob", "c.hp", "--range", "1:3"], "knob 'c.hp'"),
        (
            ["--knob", "a.hit_points", "--range", "1:3", "--metric", "p_rounds_between:5:1"],
            "p_rounds_between:LO:HI",
        ),
        (["--knob", "a.weapon", "--values", "bazooka"], "unknown weapon 'bazooka'"),
        (["--knob", "a.hit_points", "--range", "1:3", "--b", "wizard"], "unknown archetype"),
    ],
)
def test_cli_solve_lethality_bad_input(argv, message, tmp_path, capsys):
    out = tmp_path / "l.csv"
    base = [
        "solve",
        "lethality",
        "--system",
        "d20_degrees",
        "--a",
        "novice",
        "--b",
        "novice",
        "--target",
        "0.5",
        "-o",
        str(out),
    ]
    rc = main(base + argv)
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("error: ")
    assert message in err
    assert "Traceback" not in err
    assert not out.exists()


def test_cli_one_hit_with_set_a(capsys):
    """E11/E13: ``--set-a weapon=pistol``: the answer equals the brute-force scan."""
    values = list(range(1, 21))
    scan = brute_force(
        "d20_degrees",
        {"archetype": "novice", "weapon": "pistol"},
        "novice",
        "b.hit_points",
        values,
        None,
        one_hit=True,
    )
    want = first_meeting(values, scan, 0.3, "at_most", False)
    rc = main(
        [
            "solve",
            "lethality",
            "--system",
            "d20_degrees",
            "--a",
            "novice",
            "--set-a",
            "weapon=pistol",
            "--b",
            "novice",
            "--knob",
            "b.hit_points",
            "--range",
            "1:20",
            "--metric",
            "p_one_hit_incapacitate",
            "--target",
            "0.3",
            "--goal",
            "at_most",
            "--decreasing",
        ]
    )
    err = capsys.readouterr().err
    assert rc == 0, err
    assert f"b.hit_points = {want}: p_one_hit_incapacitate = " in err
    assert "(exact)" in err


def test_cli_method_exact_overrides_mc_scenario(tmp_path, capsys):
    """A scenario asking for Monte Carlo, solved with ``--method exact``: exact rows."""
    f = tmp_path / "duel.toml"
    f.write_text(
        'name = "duel"\nmethod = "mc"\n[precision]\ntrials = 2000\n[[fights]]\n'
        'system = "dice_pool_6"\na = "competent_swordsman"\n'
        'b = "competent_swordsman"\n'
    )
    out = tmp_path / "l.csv"
    system, _, _, knob, values, metric, target, _, _ = CASES[2]
    for method in ("exact", "mc"):
        rc = main(
            [
                "solve",
                "lethality",
                "--system",
                system,
                "--scenario",
                str(f),
                "--knob",
                knob,
                "--values",
                ",".join(map(str, values)),
                "--metric",
                metric,
                "--target",
                str(target),
                "--method",
                method,
                "-o",
                str(out),
            ]
        )
        assert rc == 0, capsys.readouterr().err
        t = pd.read_csv(out)
        assert set(t["method"]) == {method}
        assert set(t["trials"]) == ({0} if method == "exact" else {2000})


def test_variant_and_toughness_knobs():
    """``variant.NAME`` reaches the combat engine (C-g4: dice_pool_6 ``min_damage``), and
    Toughness (E12: d20_degrees ``stamina`` + armour) as a one-hit knob agrees with a
    brute-force scan."""
    from analysis.workflow.fight_sweep import fight_point

    eng = archetypes.engine("dice_pool_6")
    a = archetypes.combatant("dice_pool_6", "competent_brawler")  # +0 weapon: C-g4 matters
    means = []
    for value in (False, True):
        row = fight_point(
            "dice_pool_6",
            "competent_brawler",
            "competent_brawler",
            {"min_damage": value},
            50,
            "p_side0",
            exact=True,
        )
        st = eng.duel_exact(a, a, archetypes.variants("dice_pool_6", {"min_damage": value}), 50)
        assert row["rounds_mean"] == pytest.approx(
            sum(k * p for k, p in enumerate(st.rounds.sum(axis=1))), abs=1e-12
        )
        means.append(row["rounds_mean"])
    assert means[1] < means[0]  # a minimum of 1 damage shortens fights
    sc = parse_scenario(
        {
            "name": "v",
            "system": "dice_pool_6",
            "fights": [{"a": "competent_brawler", "b": "competent_brawler", "exact": True}],
            "sweep": {
                "fights": {"variant.min_damage": [False, True]},
                "fight_metric": "rounds_mean",
            },
        },
        "v.toml",
    )
    t = run_fight_sweep(sc, Cluster(0), progress=False).table
    assert t["variant.min_damage"].tolist() == ["false", "true"]
    assert t["metric"].tolist() == pytest.approx(means, abs=1e-12)
    values = [0, 1, 2, 3, 4, 5, 6]
    a = {"archetype": "novice", "weapon": "pistol"}
    side, key = "b", "stamina"
    scan = brute_force("d20_degrees", a, "novice", f"{side}.{key}", values, None, one_hit=True)
    assert scan == sorted(scan, reverse=True)  # tougher targets fall less often
    want = first_meeting(values, scan, 0.2, "at_most", False)
    res, _ = solve_lethality(
        "d20_degrees",
        a,
        "novice",
        "b.stamina",
        values,
        0.2,
        "p_one_hit_incapacitate",
        goal="at_most",
        increasing=False,
    )
    assert res.knob == want


def test_lethality_meets_marks_every_row_meeting_the_target(tmp_path, capsys):
    """The CON example of docs/howto/checks.md (dice_pool_7, P(the duel ends in rounds 3–5) ≥ 0.8):
    ``meets`` is true on every row whose exact estimate reaches the target (CON 4, 5 and
    6 all do: 0.949, 0.986, 0.963), ``chosen`` only on the answer, the smallest (CON 4)."""
    out = tmp_path / "l.csv"
    rc = main(
        [
            "solve",
            "lethality",
            "--system",
            "dice_pool_7",
            "--a",
            "competent_swordsman",
            "--b",
            "competent_swordsman",
            "--knob",
            "both.CON",
            "--range",
            "1:6",
            "--metric",
            "p_rounds_between:3:5",
            "--target",
            "0.8",
            "-o",
            str(out),
        ]
    )
    assert rc == 0, capsys.readouterr().err
    t = pd.read_csv(out)
    assert t.loc[t["chosen"], "value"].tolist() == [4]
    assert (t["meets"] == (t["estimate"] >= 0.8)).all()
    assert t.loc[t["meets"], "value"].tolist() == [4, 5, 6]


DUEL_EXACT = """name = "duel"
[[fights]]
name = "even"
system = "d20_degrees"
a = "competent"
b = "competent"
exact = true
"""
SWEEP_EXACT = """name = "sweep"
method = "exact"
[[fights]]
name = "even"
system = "d20_degrees"
a = "competent"
b = "competent"
[sweep]
fights = { "both.hit_points" = [3, 4] }
"""


def test_method_override_of_an_exact_fight_is_announced(tmp_path, capsys):
    """One rule: ``--method mc`` overrides a fight's ``exact = true`` (Monte Carlo
    rows with trials) and says so in one notice line naming the fight."""
    f = tmp_path / "duel.toml"
    f.write_text(DUEL_EXACT)
    rc = main(["run", str(f), "--method", "mc", "--trials", "2000", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 0, err
    notices = [ln for ln in err.splitlines() if ln.startswith("notice:")]
    assert len(notices) == 1
    assert "fights[0]" in notices[0]
    assert "--method mc" in notices[0]
    t = pd.read_csv(tmp_path / "o" / "fights.csv")
    assert t["trials"].tolist() == [2000]
    rc = main(["run", str(f), "-o", str(tmp_path / "e")])  # no override: exact, no notice
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "notice" not in err
    assert pd.read_csv(tmp_path / "e" / "fights.csv")["trials"].tolist() == [0]


def test_top_level_exact_method_makes_fight_sweeps_exact(tmp_path, capsys):
    """``method = "exact"`` at the top of the file and no ``exact`` key on the fight:
    the fight sweep runs the exact solver (method exact, SE 0)."""
    f = tmp_path / "sweep.toml"
    f.write_text(SWEEP_EXACT)
    out = tmp_path / "s.csv"
    rc = main(["sweep", str(f), "--workers", "0", "--no-progress", "-o", str(out)])
    assert rc == 0, capsys.readouterr().err
    t = pd.read_csv(out)
    assert t["method"].tolist() == ["exact", "exact"]
    assert (t["se_p_side0"] == 0).all()
