"""rpg-balance tune: the smallest edit that makes every guardrail pass at once.

The oracle of the hand-built problem is brute force through the audit itself
(``audit.evaluate`` with every combination of ``--set`` edits), never through
:mod:`analysis.workflow.tune`; the default tune's rows are re-run through the
``rpg-balance audit`` command they print.
"""

from __future__ import annotations

import itertools
import shlex
from pathlib import Path

import pandas as pd
import pytest

from analysis.workflow import audit, tune
from analysis.workflow.audit.edits import Edit
from analysis.workflow.sweep import Cluster
from cli.main import main

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "scenarios" / "tune.toml"

# Two failing guardrails in two systems, a third that only a rule change could break:
# the even middle_3d10 duel is too short (1.10 rounds at Vigor 4), the expert's hard
# dice_pool_6 task too hard (43.5 % at pool 8). Both Vigor 8 and pool 9 cure one each;
# the threshold 5 cures the check too, at a larger distance (weight 1 over 1 step).
SMALL = """
name = "small tune"
seed = 3

[[fights]]
name = "even_m3"
system = "middle_3d10"
a = "competent"
b = "competent"

[[fights]]
name = "even_dp6"
system = "dice_pool_6"
a = "competent_swordsman"
b = "competent_swordsman"

[[checks]]
name = "hard_dp6"
system = "dice_pool_6"
axes = { pool = [8], difficulty = [5] }

[[guardrails]]
name = "m3 duel length"
fight = "even_m3"
metric = "rounds_mean"
min = 2
max = 6

[[guardrails]]
name = "dp6 hard task"
check = "hard_dp6"
metric = "p_success"
min = 0.5
max = 0.8

[[guardrails]]
name = "dp6 duel length"
fight = "even_dp6"
metric = "rounds_mean"
min = 2
max = 6

[tune]
seed = 0
budget = 96

[[tune.knobs]]
knob = "even_m3:both.vigor"
min = 4
max = 9

[[tune.knobs]]
knob = "hard_dp6:pool"
min = 7
max = 10

[[tune.knobs]]
knob = "dice_pool_6:variant.threshold"
values = [6, 5]
"""
#: (TARGET:KNOB, levels, current) of SMALL, written again here for the oracle
SMALL_KNOBS = [
    ("even_m3:both.vigor", list(range(4, 10)), 4),
    ("hard_dp6:pool", list(range(7, 11)), 8),
    ("dice_pool_6:variant.threshold", [6, 5], 6),
]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tune") / "small.toml"
    path.write_text(SMALL)
    return path


def _oracle_distance(setting) -> float:
    return sum(
        abs(levels.index(v) - levels.index(cur)) / (len(levels) - 1)
        for (_, levels, cur), v in zip(SMALL_KNOBS, setting, strict=True)
    )


@pytest.fixture(scope="module")
def brute_force(small):
    """Every combination audited by ``audit.evaluate`` with its ``--set`` edits: the
    settings passing every guardrail."""
    scenarios = audit.load_guardrails([small])
    passing = []
    for setting in itertools.product(*(levels for _, levels, _ in SMALL_KNOBS)):
        edits = []
        for (name, _, cur), v in zip(SMALL_KNOBS, setting, strict=True):
            if v != cur:
                target, knob = name.split(":")
                edits.append(Edit(target, knob, v))
        table = audit.evaluate(scenarios, suggestions=False, progress=False, edits=edits)
        if (table["status"] == "pass").all():
            passing.append(setting)
    return passing


def test_the_oracle_has_one_smallest_cure(brute_force):
    """The hand-built problem is what it claims: feasible, with a unique smallest cure
    (fewest changes, then distance), which is two changes: Vigor 8 and pool 9."""

    def size(s):
        changes = sum(v != cur for (_, _, cur), v in zip(SMALL_KNOBS, s, strict=True))
        return changes, round(_oracle_distance(s), 12)

    ranked = sorted(brute_force, key=size)
    assert len(ranked) >= 2
    assert size(ranked[0]) < size(ranked[1])
    assert ranked[0] == (8, 9, 6)


@pytest.mark.parametrize("method", ["exact", "search"])
def test_tune_finds_the_smallest_cure(small, brute_force, method):
    """The exact path and the NSGA-II path both put the oracle's unique smallest cure
    first; every feasible candidate tune evaluated is one the audit passes."""

    def size(s):
        changes = sum(v != cur for (_, _, cur), v in zip(SMALL_KNOBS, s, strict=True))
        return changes, round(_oracle_distance(s), 12)

    best = min(brute_force, key=size)
    result = tune.tune(tune.load_tune(small), method=method)
    assert result.method == ("exact" if method == "exact" else "nsga2")
    assert result.feasible
    assert result.front[0]["_setting"] == best
    row = result.table.iloc[0]
    assert (row["changes"], row["distance"]) == (2, pytest.approx(_oracle_distance(best)))
    assert row["reproduce"] == (
        f"rpg-balance audit {small} --set even_m3:both.vigor=8 --set hard_dp6:pool=9"
    )
    feasible = {r["_setting"] for r in result.candidates if r["feasible"]}
    assert feasible <= set(brute_force)
    if method == "exact":
        assert feasible == set(brute_force)
        assert len(result.candidates) == 6 * 4 * 2
    # the command line's flag forces the same path and prints the same first row
    out = small.parent / f"front_{method}.csv"
    assert main(["tune", str(small), f"--{method}", "-o", str(out)]) == 0
    assert pd.read_csv(out)["reproduce"].iloc[0] == row["reproduce"]


def test_the_cache_measures_each_guardrail_once_per_setting_of_its_knobs(small):
    """Vigor touches only the middle_3d10 duel, pool only the check, the threshold the
    check and the dice_pool_6 duel: 6 + 4·2 + 2 measurements for 48 candidates."""
    result = tune.tune(tune.load_tune(small), method="exact")
    assert result.problem.deps == [(0,), (1, 2), (2,)]
    assert result.stats["measured"] == 6 + 4 * 2 + 2
    assert result.stats["lookups"] == 48 * 3
    assert result.stats["cache_share"] == pytest.approx(1 - 16 / 144)


def test_a_monte_carlo_guardrail_carries_its_se_and_the_audits_verdict(small, tmp_path):
    """The middle_3d10 duel played by Monte Carlo (capped at 16,000 duels): each front
    row's value, SE and status are those of ``audit --set`` with the same cap, and its
    reproduce command carries the cap."""
    path = tmp_path / "mc.toml"
    path.write_text(
        small.read_text().replace('b = "competent"\n', 'b = "competent"\nexact = false\n', 1)
    )
    result = tune.tune(tune.load_tune(path), method="exact", max_trials=16_000)
    table = result.table
    assert "m3 duel length se" in table
    assert "dp6 hard task se" not in table
    scenarios = audit.load_guardrails([path])
    for _, row in table.iterrows():
        assert row["reproduce"].endswith("--max-trials 16000")
        edits = [
            Edit(*name.split(":"), row[name]) for name, _, cur in SMALL_KNOBS if row[name] != cur
        ]
        got = audit.evaluate(
            scenarios, suggestions=False, progress=False, edits=edits, max_trials=16_000
        ).set_index("guardrail")
        assert got.loc["m3 duel length", "se"] > 0
        for g in ("m3 duel length", "dp6 hard task", "dp6 duel length"):
            assert row[g] == got.loc[g, "value"]
            assert row[f"{g} status"] == got.loc[g, "status"]
        assert row["m3 duel length se"] == got.loc["m3 duel length", "se"]


def test_the_margin_reads_the_limits_width_and_the_se():
    assert tune.margin(3.0, 0.0, 2.0, 6.0, 3.0) == pytest.approx(0.25)
    assert tune.margin(0.05, 0.0, None, 0.1, 3.0) == pytest.approx(0.5)
    # a Monte Carlo value counts at its 3 SE edge toward the limit
    assert tune.margin(0.6, 0.01, 0.5, None, 3.0) == pytest.approx(0.07 / 0.5)
    assert tune.margin(1.5, 0.0, 2.0, 6.0, 3.0) < 0


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune_default") / "front.csv"
    plot = out.with_suffix(".png")
    code = main(["tune", str(DEFAULT), "-o", str(out), "--plot", str(plot)])
    return code, pd.read_csv(out), plot


@pytest.mark.slow
def test_default_tune_is_feasible_and_every_row_passes_its_audit(default_run, tmp_path):
    """Exit 0, a feasible front, and each row's reproduce command, run through the
    audit command, passes every one of the fifteen guardrails."""
    code, table, plot = default_run
    assert code == 0
    assert len(table) >= 1
    assert table["feasible"].all()
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for i, cmd in enumerate(table["reproduce"]):
        words = shlex.split(cmd)
        assert words[:3] == ["rpg-balance", "audit", str(DEFAULT)]
        out = tmp_path / f"audit{i}.csv"
        assert main([*words[1:], "-o", str(out), "--columns", "guardrail,status"]) == 0
        audited = pd.read_csv(out)
        assert len(audited) == 15
        assert (audited["status"] == "pass").all()
        # the front's own columns say the same
        for g, status in zip(audited["guardrail"], audited["status"], strict=True):
            assert table.loc[i, f"{g} status"] == status


@pytest.mark.slow
def test_same_seed_same_front_on_one_and_two_workers(small):
    """The NSGA-II front depends on the seed only: the same on a rerun, in process and
    on 1 and 2 Dask workers."""

    def front(cluster=None, seed=5):
        result = tune.tune(
            tune.load_tune(small), method="search", budget=24, seed=seed, cluster=cluster
        )
        return result.table.to_dict("list"), [r["_setting"] for r in result.candidates]

    ref = front()
    assert front() == ref
    assert front(seed=6)[1] != ref[1]  # the seed matters: the check above can fail
    assert front(Cluster(1)) == ref
    assert front(Cluster(2)) == ref


BAD = """
[tune]
budget = 0

[[tune.knobs]]
knob = "even_m3:both.vigor"
min = 5
max = 9

[[tune.knobs]]
knob = "nosuch:variant.x"
values = [1, 2]

[[tune.knobs]]
knob = "dice_pool_6:variant.threshold"
values = [6, 11]

[[tune.knobs]]
knob = "hard_dp6"
values = [1, 2]

[[tune.knobs]]
knob = "hard_dp6:pool"
values = [8, 9]
colour = "red"
"""


def test_bad_tune_input_exits_2_naming_every_key_path(tmp_path, capsys):
    """Structure first (pydantic, every problem at once), then the knobs' meaning;
    one line per problem naming the key path; nothing written."""
    head = SMALL.split("[tune]")[0]
    path = tmp_path / "bad.toml"
    path.write_text(head + BAD)
    out = tmp_path / "front.csv"
    assert main(["tune", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == "error: bad.toml: 2 problems"
    assert err[1:] == [
        "  bad.toml: tune.budget: expected a value at least 1, got 0",
        "  bad.toml: tune.knobs[4].colour: unknown key; known: knob, values, "
        "min, max, step, weight",
    ]
    assert not out.exists()
    path.write_text(head + BAD.replace("budget = 0", "budget = 5").replace('colour = "red"\n', ""))
    assert main(["tune", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0] == "error: bad.toml: 4 problems"
    assert [line.split(": ")[1] for line in err[1:]] == [
        "tune.knobs[0]",
        "tune.knobs[1].knob",
        "tune.knobs[2].values[1]",
        "tune.knobs[3].knob",
    ]
    assert "current value 4 of even_m3:both.vigor is not among its levels" in err[1]
    assert "11 is not allowed" in err[3]
    assert not out.exists()


def test_no_feasible_candidate_exits_1_with_the_trade_off(small, tmp_path, capsys):
    """Without the knobs that cure the duel, nothing passes: exit 1, and the reading
    names the closest candidate, what it leaves failing and its command."""
    text = small.read_text().replace(
        'knob = "even_m3:both.vigor"\nmin = 4\nmax = 9',
        'knob = "even_m3:both.vigor"\nmin = 3\nmax = 4',
    )
    path = tmp_path / "hopeless.toml"
    path.write_text(text)
    out = tmp_path / "front.csv"
    assert main(["tune", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "No candidate makes all 3 guardrails of hopeless.toml pass" in err
    # the knob in the glossary's words (C1), the guardrail's value in its own units
    assert (
        "The closest, the dice pool (C1) of hard_dp6 from 8 to 9, leaves 1 not "
        "passing: m3 duel length (1.1 rounds, fail)"
    ) in err
    assert "The file as it is leaves 2 not passing" in err
    assert "  rpg-balance audit " in err
    assert "--set hard_dp6:pool=9" in err
    table = pd.read_csv(out)
    assert not table["feasible"].any()
    assert table["changes"].iloc[0] == 0  # the file as it is is always on the front
    assert table["worst_margin"].is_monotonic_increasing


@pytest.mark.slow
def test_the_benchmark_runs_with_tiny_sizes(capsys):
    """``bench_tune`` prints its rows (no timing assertion)."""
    from benchmarks import bench_tune

    assert bench_tune.main(["--repeats", "1", "--budget", "16", "--no-cli", "--no-dask"]) == 0
    out = capsys.readouterr().out
    assert "| tune, exact (every candidate) |" in out
    assert "| tune, NSGA-II, budget 16, in process |" in out
