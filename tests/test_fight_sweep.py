"""Fight sweeps on Dask: the sweep table and its random streams, Monte Carlo against
exact, the precision-driven trial counts, one worker and three, a worker killed mid-run,
Ctrl-C, bad knobs, and the fight-sweep scenario through ``rpg-balance sweep`` and ``run``
(the metrics, the lethality solver and the other scenarios: ``test_fight_workflow.py``).

Oracles: direct engine calls with the documented seeds for the sweep streams; the exact
duel within the project's Monte Carlo tolerance; the same table from ``run`` and
``sweep``. Rule ids exercised: E11/E13 (d20_degrees attack and hit points).
"""

from __future__ import annotations

import math
import os
import signal

import numpy as np
import pandas as pd
import pytest

from analysis.combat import archetypes
from analysis.workflow.fight_sweep import FIGHT_STREAM, fight_tasks, run_fight_sweep, run_fight_task
from analysis.workflow.scenario import parse_scenario
from analysis.workflow.sweep import Cluster
from cli.main import main
from engines.errors import InputError

# pytest-xdist (tasks.py test: --dist loadscope) keeps this module on one worker;
# one 3-process Dask cluster and one in-process sweep (session fixtures).

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tol(p: float, n: int) -> float:
    """The project's MC-vs-exact tolerance: five binomial SEs plus one count."""
    return 5 * math.sqrt(p * (1 - p) / n) + 1 / n


def _scenario(name):
    return os.path.join(ROOT, "scenarios", name)


# ------------------------------------------------------------------ fight sweeps

SWEEP = {
    "name": "fight sweep test",
    "system": "d20_degrees",
    "seed": 11,
    "precision": {"trials": 4000},
    "fights": [{"name": "duel", "a": "competent", "b": "competent"}],
    "sweep": {"fights": {"both.hit_points": [6, 12], "a.weapon": ["light_melee", "heavy_melee"]}},
}


def scenario(**over):
    return parse_scenario({**SWEEP, **over}, "fights.toml")


@pytest.fixture(scope="session")
def in_process():
    return run_fight_sweep(scenario(), Cluster(0), progress=False)


def test_fight_sweep_table_and_streams(in_process):
    """Grid order, knob columns, and cell i batch 0 = a direct engine call seeded
    SeedSequence(seed, (FIGHT_STREAM + i, 0, 0))."""
    t = in_process.table
    assert list(t.columns[:4]) == ["fight", "system", "both.hit_points", "a.weapon"]
    assert t[["both.hit_points", "a.weapon"]].values.tolist() == [
        ["6", "light_melee"],
        ["6", "heavy_melee"],
        ["12", "light_melee"],
        ["12", "heavy_melee"],
    ]
    eng = archetypes.engine("d20_degrees")
    fa = archetypes.combatant(
        "d20_degrees", "competent", {"hit_points": 12, "weapon": "light_melee"}
    )
    fb = archetypes.combatant("d20_degrees", "competent", {"hit_points": 12})
    st = eng.duel_mc(
        fa,
        fb,
        4000,
        np.random.SeedSequence(11, spawn_key=(FIGHT_STREAM + 2, 0, 0)),
        archetypes.variants("d20_degrees"),
        50,
    )
    assert t.loc[2, "p_side0"] == st.outcome[0] / 4000
    # sensitivity ranks both knobs by the range of mean P(side 0 wins)
    s = in_process.sensitivity
    assert set(s["knob"]) == {"both.hit_points", "a.weapon"}
    by_weapon = t.groupby("a.weapon")["metric"].mean()
    row = s[s["knob"] == "a.weapon"].iloc[0]
    assert row["range"] == pytest.approx(by_weapon.max() - by_weapon.min())


def test_fight_sweep_mc_matches_exact(in_process):
    """E11/E13 duels: each swept cell within 5 SE + 1/n of the exact duel (two cells;
    the exact solver is the slow part)."""
    eng = archetypes.engine("d20_degrees")
    t = in_process.table
    for i in (0, 3):
        hp, weapon = int(t.loc[i, "both.hit_points"]), t.loc[i, "a.weapon"]
        fa = archetypes.combatant("d20_degrees", "competent", {"hit_points": hp, "weapon": weapon})
        fb = archetypes.combatant("d20_degrees", "competent", {"hit_points": hp})
        p = float(eng.duel_exact(fa, fb, archetypes.variants("d20_degrees"), 50).outcome[0])
        assert abs(t.loc[i, "p_side0"] - p) <= tol(p, 4000)


def test_fight_sweep_precision_driven():
    """Batches of 500 until the metric's SE <= 0.015: every cell reaches it (or the cap),
    in whole batches, and each task is a pure function of itself."""
    sc = scenario(precision={"se": 0.015, "batch": 500, "max_trials": 20_000})
    t = run_fight_sweep(sc, Cluster(0), progress=False).table
    assert (t["trials"] % 500 == 0).all()
    assert ((t["se_metric"] <= 0.015) | (t["trials"] >= 20_000)).all()
    # p(1 - p)/n <= 0.015^2 holds for any p once n >= 1112: never more than 3 batches,
    # and cells with p near 1/2 need more than one
    assert (t["trials"] <= 1500).all()
    assert (t["trials"] > 500).any()
    tasks = fight_tasks(sc)
    assert run_fight_task(tasks[1]).equals(run_fight_task(tasks[1]))


@pytest.mark.slow
def test_fight_sweep_one_worker(in_process):
    got = run_fight_sweep(scenario(), Cluster(1), progress=False).table
    pd.testing.assert_frame_equal(got, in_process.table, check_exact=True)


@pytest.fixture(scope="session")
def three_workers():
    import logging

    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=3,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
        env={"NUMBA_NUM_THREADS": "1"},
    )
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.slow
def test_fight_sweep_three_workers(in_process, three_workers):
    got = run_fight_sweep(scenario(), Cluster(client=three_workers), progress=False).table
    pd.testing.assert_frame_equal(got, in_process.table, check_exact=True)


@pytest.mark.slow
def test_fight_sweep_worker_killed_mid_run(three_workers):
    """SIGKILL a worker that is running a fight cell after the first result: its cells
    rerun elsewhere with the same streams and the table is bit-identical."""
    killed = []

    def kill_one(done, total, client):
        if killed or client is None:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1] or None)
        pid = next(iter(pids.values()))
        os.kill(pid, signal.SIGKILL)
        killed.append((done, total, bool(busy)))

    sc = scenario(
        precision={"trials": 300_000},  # cells long enough to be in flight
        sweep={
            "fights": {"both.hit_points": [6, 12, 18], "a.weapon": ["light_melee", "heavy_melee"]}
        },
    )
    ref = run_fight_sweep(sc, Cluster(0), progress=False).table
    got = run_fight_sweep(
        sc, Cluster(client=three_workers), progress=False, on_result=kill_one
    ).table
    assert killed
    assert killed[0][0] < killed[0][1]
    assert killed[0][2]
    pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_fight_knob_errors_all_at_once():
    with pytest.raises(InputError) as info:
        parse_scenario(
            {
                **SWEEP,
                "sweep": {
                    "fights": {"c.hit_points": [1], "a.weapon": ["bazooka"]},
                    "fight_metric": "p_win",
                },
                "solve": [
                    {
                        "kind": "lethality",
                        "fight": "nope",
                        "knob": "a.x",
                        "values": [1],
                        "target": 0.5,
                    }
                ],
            },
            "f.toml",
        )
    text = str(info.value)
    assert "4 problems" in text
    assert "f.toml: sweep.fight_metric: unknown 'p_win'" in text
    assert "f.toml: sweep.fights.c.hit_points: knob 'c.hit_points': expected a.KEY" in text
    assert (
        "f.toml: sweep.fights.a.weapon: 'bazooka': d20_degrees: duel.weapon: unknown "
        "weapon 'bazooka'"
        in text
        or "sweep.fights.a.weapon: 'bazooka'" in text
    )
    assert "f.toml: solve[0].fight: no [[fights]] entry 'nope'; known: duel" in text


def test_cli_sweep_fight_scenario(tmp_path, capsys):
    """scenarios/duel_sweep.toml through ``rpg-balance sweep``: 12 cells, each to the
    file's SE target of 0.01 in whole batches of 2000; sensitivity file and plot."""
    out, sens, png = tmp_path / "s.csv", tmp_path / "sens.csv", tmp_path / "s.png"
    rc = main(
        [
            "sweep",
            _scenario("duel_sweep.toml"),
            "--workers",
            "0",
            "--no-progress",
            "-o",
            str(out),
            "--sensitivity",
            str(sens),
            "--plot",
            str(png),
        ]
    )
    assert rc == 0, capsys.readouterr().err
    t = pd.read_csv(out)
    assert len(t) == 3 * 2 * 2
    assert (t["se_p_side0"] <= 0.01).all()
    assert (t["trials"] % 2000 == 0).all()
    s = pd.read_csv(sens)
    assert sorted(s["knob"]) == ["a.tactic", "a.weapon", "both.hit_points"]
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_fight_sweep_ctrl_c():
    """Ctrl-C after the first fight cell: SweepInterrupted says how much was done."""
    from analysis.workflow.sweep import SweepInterrupted

    def interrupt(done, total, client):
        raise KeyboardInterrupt

    with pytest.raises(SweepInterrupted, match="1 of 4 tasks done"):
        run_fight_sweep(scenario(), Cluster(0), progress=False, on_result=interrupt)


def test_cli_run_fight_sweep_scenario_matches_sweep(tmp_path, capsys):
    """``rpg-balance run`` on the fight-sweep file writes the same table as
    ``rpg-balance sweep`` (same seeds), its sensitivity table and the plot."""
    rc = main(["run", _scenario("duel_sweep.toml"), "-o", str(tmp_path / "run")])
    assert rc == 0, capsys.readouterr().err
    rc = main(
        [
            "sweep",
            _scenario("duel_sweep.toml"),
            "--workers",
            "0",
            "--no-progress",
            "-o",
            str(tmp_path / "sweep.csv"),
        ]
    )
    assert rc == 0
    ran = pd.read_csv(tmp_path / "run" / "fight_sweep.csv")
    pd.testing.assert_frame_equal(ran, pd.read_csv(tmp_path / "sweep.csv"), check_exact=True)
    sens = pd.read_csv(tmp_path / "run" / "fight_sensitivity.csv")
    assert sens.loc[0, "rank"] == 1
    assert (tmp_path / "run" / "fight_sensitivity.png").read_bytes()[:4] == b"\x89PNG"
