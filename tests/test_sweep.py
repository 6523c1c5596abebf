"""Sweeps: grid tasks, deterministic streams, Dask execution, precision-driven sampling,
sensitivity ranking and Ctrl-C.

The same sweep must give bit-identical tables in process, on 1 worker, on 4 workers and
when a worker process is killed mid-run (its tasks rerun elsewhere, with the same
streams, because a task's stream depends only on (seed, grid position, batch)).
Rule ids exercised: A1 (dice_pool_7 explosion variants), C1 (dice_pool_6 pools).
"""

from __future__ import annotations

import math
import os
import signal

import numpy as np
import pandas as pd
import pytest

from analysis.workflow.scenario import parse_scenario
from analysis.workflow.sweep import (
    Cluster,
    SweepInterrupted,
    check_tasks,
    run_check_task,
    run_checks,
    sensitivity,
)
from engines.systems.dice_pool_7 import checks as dice_pool_7
from engines.variants import parse_variants

# pytest-xdist (tasks.py test: --dist loadscope) keeps this module on one worker;
# one 4-process Dask cluster and one in-process sweep (session fixtures).

SWEEP = {
    "name": "sweep test",
    "system": "dice_pool_7",
    "seed": 5,
    "method": "mc",
    "precision": {"trials": 200_000},
    "checks": [{"name": "pools", "axes": {"pool": [2, 4], "successes": [1, 2]}}],
    "sweep": {"variants": {"again": [10, 9, 8, "none"]}, "axes": {"pool": [2, 4, 6]}},
}


def scenario(**over):
    data = {**SWEEP, **over}
    return parse_scenario(data, "test.toml")


@pytest.fixture(scope="session")
def in_process():
    return run_checks(scenario(), Cluster(0), progress=False).table


def test_grid_tasks_and_columns(in_process):
    tasks = check_tasks(scenario())
    assert len(tasks) == 4 * 3
    assert [t.index for t in tasks] == list(range(12))
    # the swept pool replaces the check's own pool axis: one value per task
    assert {dict(t.axes)["pool"] for t in tasks} == {(2,), (4,), (6,)}
    t = in_process
    assert list(t.columns[:4]) == ["check", "system", "again", "pool"]
    assert len(t) == 12 * 2
    assert set(t["again"]) == {"10", "9", "8", "none"}


def test_mc_cells_match_exact(in_process):
    """A1 variants: each MC cell within 5·sqrt(p(1−p)/n) + 1/n of the exact model
    (five standard errors, plus one count for cells whose expected count is tiny)."""
    for row in in_process.itertuples():
        v = parse_variants(dice_pool_7.Variants, {"again": row.again})
        probs, _ = dice_pool_7.exact([row.pool], v)
        p = float(probs[0, 1 + row.successes :].sum())
        n = row.trials
        assert abs(row.p - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n


def test_stream_depends_on_grid_position_only():
    """Task i's counts equal a direct engine call seeded SeedSequence(seed, (i, 0, 0))."""
    sc = scenario()
    task = check_tasks(sc)[7]
    table = run_check_task(task)
    v = parse_variants(dice_pool_7.Variants, dict(task.variants))
    pool = dict(task.axes)["pool"][0]
    counts = dice_pool_7.monte_carlo(
        [pool],
        200_000,
        np.random.SeedSequence(5, spawn_key=(7, 0, 0)),
        v,
        dice_pool_7.n_codes(pool, v),
    )
    for row in table.itertuples():
        assert row.p == counts[0, 1 + row.successes :].sum() / 200_000


def test_precision_driven_batches():
    """A target SE: every cell reaches it, trials are whole batches, and the counts are
    the sum of batches k = 0, 1, ... seeded from (seed, task, k)."""
    sc = scenario(precision={"se": 0.004, "batch": 5000})
    tasks = check_tasks(sc)
    task = tasks[3]
    table = run_check_task(task)
    assert (table["se"] <= 0.004).all()
    n = int(table["trials"].iloc[0])
    assert n % 5000 == 0
    # the worst cell (p nearest 1/2) needs p(1-p)/n <= 0.004², so at least this many:
    p_worst = table["p"].iloc[(table["p"] - 0.5).abs().argmin()]
    assert n >= p_worst * (1 - p_worst) / 0.004**2 - 5000
    # and one batch fewer would not have been enough (else sampling went on too long)
    v = parse_variants(dice_pool_7.Variants, dict(task.variants))
    pool = dict(task.axes)["pool"][0]
    codes = dice_pool_7.n_codes(pool, v)
    total = sum(
        dice_pool_7.monte_carlo(
            [pool], 5000, np.random.SeedSequence(5, spawn_key=(3, 0, k)), v, codes
        )
        for k in range(n // 5000)
    )
    for row in table.itertuples():
        assert row.p == total[0, 1 + row.successes :].sum() / n
    if n > 5000:
        fewer = total - dice_pool_7.monte_carlo(
            [pool], 5000, np.random.SeedSequence(5, spawn_key=(3, 0, n // 5000 - 1)), v, codes
        )
        p = np.array([fewer[0, 1 + s :].sum() for s in table["successes"]]) / (n - 5000)
        assert np.sqrt(p * (1 - p) / (n - 5000)).max() > 0.004


def test_sensitivity_ranks_by_main_effect_range():
    """Hand-built table: knob a moves the mean by 0.4, knob b by 0.1."""
    t = pd.DataFrame(
        {"check": "c", "a": [0, 0, 1, 1], "b": ["x", "y", "x", "y"], "p": [0.1, 0.2, 0.5, 0.6]}
    )
    s = sensitivity(t, ["a", "b"])
    assert list(s["knob"]) == ["a", "b"]
    assert s["range"].tolist() == pytest.approx([0.4, 0.1])
    assert s["rank"].tolist() == [1, 2]
    assert s.iloc[0]["at_high"] == "1"


def test_sensitivity_plot_panels_share_one_y_axis(tmp_path):
    """Knob a moves the mean by 0.22, knob b by 0.01 (hand-built cells): both panels get
    the same y limits, so b's panel is nearly flat next to a's."""
    import matplotlib.pyplot as plt

    from analysis.workflow.sweep import sensitivity_figure, sensitivity_plot

    # a-means: (0.30 + 0.31) / 2 = 0.305 and (0.52 + 0.53) / 2 = 0.525 -> range 0.22;
    # b-means: (0.30 + 0.52) / 2 = 0.41 and (0.31 + 0.53) / 2 = 0.42 -> range 0.01.
    t = pd.DataFrame(
        {"check": "c", "a": [0, 0, 1, 1], "b": ["x", "y", "x", "y"], "p": [0.30, 0.31, 0.52, 0.53]}
    )
    s = sensitivity(t, ["a", "b"])
    assert s["range"].tolist() == pytest.approx([0.22, 0.01])
    fig = sensitivity_figure(t, s)
    try:
        shown = [ax for ax in fig.axes if ax.axison]
        assert len(shown) == 2
        limits = [ax.get_ylim() for ax in shown]
        assert limits[0] == pytest.approx(limits[1])
        lo, hi = limits[0]
        # the shared axis spans every panel's means (0.305 .. 0.525)
        assert lo <= 0.305
        assert hi >= 0.525
        # b's 0.01 range fills under 5 % of the height it shares with a's 0.22
        assert 0.01 / (hi - lo) < 0.05
    finally:
        plt.close(fig)
    sensitivity_plot(t, s, tmp_path / "s.png")
    assert (tmp_path / "s.png").stat().st_size > 0


@pytest.mark.slow
def test_one_worker_equals_in_process(in_process):
    got = run_checks(scenario(), Cluster(1), progress=False).table
    pd.testing.assert_frame_equal(got, in_process, check_exact=True)


@pytest.fixture(scope="session")
def four_workers():
    """One 4-process LocalCluster shared by the tests that need it (start-up is slow)."""
    import logging

    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=4,
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
def test_four_workers_equal_in_process(in_process, four_workers):
    got = run_checks(scenario(), Cluster(client=four_workers), progress=False).table
    pd.testing.assert_frame_equal(got, in_process, check_exact=True)


@pytest.mark.slow
def test_existing_scheduler_address(in_process, four_workers):
    """``--scheduler ADDR``: join a running cluster by address (and leave it running)."""
    addr = four_workers.scheduler.address
    got = run_checks(scenario(), Cluster(scheduler=addr), progress=False).table
    pd.testing.assert_frame_equal(got, in_process, check_exact=True)
    assert four_workers.status == "running"


@pytest.mark.slow
def test_worker_killed_mid_run(four_workers):
    """Kill (SIGKILL) a worker process that is processing tasks after the first result:
    the scheduler reruns its tasks and the table is still bit-identical."""
    killed = []

    def kill_one(done, total, client):
        if killed or client is None:
            return
        busy = [w for w, keys in client.processing().items() if keys]
        pids = client.run(os.getpid, workers=busy[:1] or None)
        pid = next(iter(pids.values()))
        os.kill(pid, signal.SIGKILL)
        killed.append((pid, done, total, bool(busy)))

    sc = scenario(precision={"trials": 1_000_000})  # tasks long enough to be in flight
    ref = run_checks(sc, Cluster(0), progress=False).table
    got = run_checks(sc, Cluster(client=four_workers), progress=False, on_result=kill_one).table
    assert killed
    assert killed[0][1] < killed[0][2]  # the kill happened mid-run
    assert killed[0][3]  # ... to a worker that was running a task
    pd.testing.assert_frame_equal(got, ref, check_exact=True)


@pytest.mark.slow
def test_ctrl_c_cancels_and_closes():
    """Ctrl-C (KeyboardInterrupt) after the first result: remaining futures cancelled,
    client and cluster closed, and the error says how much was done."""
    seen = {}

    def interrupt(done, total, client):
        seen["client"] = client
        raise KeyboardInterrupt

    with pytest.raises(SweepInterrupted) as info:
        run_checks(scenario(), Cluster(1), progress=False, on_result=interrupt)
    assert info.value.done == 1
    assert info.value.total == 12
    assert "1 of 12 tasks done" in str(info.value)
    client = seen["client"]
    assert client.status == "closed"
    assert client.cluster is None or client.cluster.status.name == "closed"

    with pytest.raises(SweepInterrupted, match="1 of 12 tasks done"):
        run_checks(scenario(), Cluster(0), progress=False, on_result=interrupt)


@pytest.mark.slow
def test_cli_sweep_sigint_stops_cleanly(tmp_path):
    """A real Ctrl-C (SIGINT) to ``rpg-balance sweep`` mid-run: exit 130, a message
    saying how many tasks were done, and no output file."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    f = tmp_path / "long.toml"
    # minutes of work: every cell's P(success) is mid-range (pool 10-20 for 5 successes),
    # so an SE of 2e-5 needs hundreds of millions of checks (the sweep must still be
    # running when the signal comes, however fast or loaded the machine)
    f.write_text(
        'name = "long"\nsystem = "dice_pool_7"\nmethod = "mc"\n'
        "[precision]\nse = 0.00002\nbatch = 20000\nmax_trials = 1000000000\n"
        "[[checks]]\naxes = { pool = [10, 15, 20], successes = [5] }\n"
        '[sweep]\nvariants = { again = [10, 9, 8, "none"] }\n'
    )
    out = tmp_path / "out.csv"
    # the default Ctrl-C handling, as a shell gives it: a test worker that ignores SIGINT
    # (a server or cluster started in it earlier may leave it so) would pass that on
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli",
            "sweep",
            str(f),
            "--workers",
            "0",
            "-o",
            str(out),
            "--no-progress",
        ],
        cwd=Path(__file__).resolve().parents[1],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    first = proc.stderr.readline()  # printed once the tasks are built, before they run
    assert first.startswith("sweep: 4 tasks in this process"), first
    time.sleep(2)
    assert proc.poll() is None, "the sweep finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError("the sweep did not stop on SIGINT") from None
    assert proc.returncode == 130, err
    assert "interrupted:" in err
    assert "of 4 tasks done; nothing written" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert not list(tmp_path.glob(".*.part"))
