"""The benchmark module runs (tiny sizes, no timing assertions), and its numpy and
icepool baselines compute the same checks as the engines (A1, B1, C1, D1/D4, E1/E9)."""

from __future__ import annotations

import numpy as np
import pytest
from check_oracles import assert_mc_matches

from benchmarks import bench_checks as bench
from engines.systems.d20_degrees import checks as d20_degrees
from engines.systems.dice_pool_6 import checks as dice_pool_6
from engines.systems.dice_pool_7 import checks as dice_pool_7
from engines.systems.middle_3d10 import checks as middle_3d10
from engines.systems.percentile import checks as percentile


def test_benchmark_runs_with_tiny_sizes(capsys):
    """``main`` prints a header and one table row per system."""
    assert bench.main(["--dice", "20000", "--numpy-dice", "5000", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    for system in bench.SYSTEM_IDS:
        assert f"| {system} |" in out
    rows = bench.run(dice=10_000, numpy_dice=2000, repeats=1, systems=["dice_pool_6"])
    assert rows[0]["mc_1t_cpu"] > 0
    assert rows[0]["icepool_s"] > 0


@pytest.mark.parametrize(
    ("mod", "rule"),
    [(dice_pool_7, (7, 10, 0)), (dice_pool_6, (6, 11, 2))],
    ids=["dice_pool_7", "dice_pool_6"],
)
def test_numpy_pool_baseline_matches_exact(mod, rule):
    """A1/C1: the numpy baseline rolls the same check (5 SE + 1/n per cell, seed 4)."""
    n = 20_000
    probs, _ = mod.exact(bench.POOLS, codes=60)
    counts = bench.numpy_pool(bench.POOLS, n, np.random.default_rng(4), *rule, 60)
    assert_mc_matches(probs, counts / n, n, "numpy pool")


def test_numpy_baselines_match_exact():
    """B1/B4, D1/D4, E1/E9: the other numpy baselines against the exact models."""
    n = 20_000
    rng = np.random.default_rng(5)
    assert_mc_matches(
        middle_3d10.exact(bench.MIDDLE_MODES),
        bench.numpy_middle(bench.MIDDLE_MODES, n, rng) / n,
        n,
        "middle",
    )
    assert_mc_matches(
        percentile.exact(bench.PERCENTILE_DICE),
        bench.numpy_percentile(bench.PERCENTILE_DICE, n, rng) / n,
        n,
        "d100",
    )
    assert_mc_matches(
        d20_degrees.exact(bench.D20_MODES), bench.numpy_d20(bench.D20_MODES, n, rng) / n, n, "d20"
    )


def test_icepool_baselines_compute_the_same_tables():
    """The icepool side of the exact-table comparison gives the engines' distributions."""
    for system, fn in [
        ("dice_pool_7", bench.icepool_dice_pool_7),
        ("dice_pool_6", bench.icepool_dice_pool_6),
        ("middle_3d10", bench.icepool_middle_3d10),
        ("percentile", bench.icepool_percentile),
        ("d20_degrees", bench.icepool_d20_degrees),
    ]:
        ours = np.asarray(bench.cases()[system]["exact"]())
        for row, ice in zip(ours, fn(), strict=True):
            last = min(row.size, ice.size) - 1  # the engines' last code holds the rest
            np.testing.assert_allclose(row[:last], ice[:last], atol=1e-12, err_msg=system)
            assert abs(row[last:].sum() - ice[last:].sum()) < 1e-12


@pytest.mark.slow
def test_audit_benchmark_runs_for_one_system(capsys):
    """``bench_audit`` prints its baseline and the audit and discover rows (one system,
    no command rows: no timing is checked)."""
    from benchmarks import bench_audit

    assert bench_audit.main(["--systems", "dice_pool_6", "--repeats", "1", "--no-cli"]) == 0
    out = capsys.readouterr().out
    for what in (
        "baseline: one exact even duel per system",
        "audit (evaluate, default guardrails)",
        "audit --discover (discover)",
    ):
        assert f"| {what} |" in out
    assert "rpg-balance audit" not in out


def test_serve_benchmark_runs_for_one_system(capsys):
    """``bench_serve`` prints its baseline, the workbench's four updates and its three A/B
    updates as ratios, and the two-thread line (one system, one repeat; no browser)."""
    from benchmarks import bench_serve

    assert bench_serve.main(["--systems", "dice_pool_6", "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert "dice_pool_6" in out
    header, row = out.splitlines()[:2]
    assert row.count("x)") == 7
    assert "duel A/B" in header
    assert "from two threads" in out


@pytest.mark.slow
def test_rules_benchmark_runs_quick(capsys):
    """``bench_rules`` prints its duel baseline, the edited-rule rows and the tune row
    (``--quick``: no cure-search rows; no timing is checked)."""
    from benchmarks import bench_rules

    assert bench_rules.main(["--quick", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    for what in (
        "baseline: the exact duel, the package's rules",
        "the same duel, an edited rule in force (warm)",
        "tune over 3 rule-data knobs, 48 candidates, exact",
    ):
        assert f"| {what} |" in out
    assert "designer's 20 guardrails" not in out
