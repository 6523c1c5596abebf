"""Speed of ``rpg-balance tune``: the default tune file, exact and searched.

Every row is measured against a baseline run in this process: one audit of the same
file (:func:`analysis.workflow.audit.evaluate` of ``scenarios/tune.toml``'s fifteen
guardrails, no cure search), the unit a tune candidate is made of. The ratios stay
comparable when the machine's own speed drifts between runs; the seconds do not.

Rows:

- ``baseline``: the audit, median of ``--repeats`` runs (after one untimed run that
  loads the compiled kernels);
- ``tune, exact``: :func:`analysis.workflow.tune.tune` enumerating every candidate
  (756), median of ``--repeats`` runs, each with an empty measurement cache;
- ``tune, NSGA-II``: the search with ``--budget`` trials (seed 1), in process and on
  2 local Dask worker processes (cluster start-up included: what one command does);
- ``rpg-balance tune scenarios/tune.toml``: the command in a child process (imports
  included), median of ``--repeats`` runs, CPU time from ``RUSAGE_CHILDREN``.

Each tune row also gives the candidates evaluated per second and the share of guardrail
measurements served from the cache (a knob that does not touch a guardrail's fight or
check does not measure it again). Numba kernels must be compiled already (``rpg-balance
warm-up``): the figures are warm ones. No assertion here depends on speed.

Run ``python -m benchmarks.bench_tune`` (about half a minute); ``--no-cli`` skips the
command row, ``--no-dask`` the Dask row.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from benchmarks.bench_audit import clocks, timed_cli

ROOT = Path(__file__).resolve().parents[1]
TUNE = ROOT / "scenarios" / "tune.toml"


def timed_result(fn):
    """(wall s, CPU s of this process, result) of one call of ``fn``."""
    w0, c0 = clocks()
    out = fn()
    w1, c1 = clocks()
    return w1 - w0, c1 - c0, out


def run(repeats: int = 3, budget: int = 200, cli: bool = True, dask: bool = True) -> list[dict]:
    """The rows: ``what``, ``wall``, ``cpu`` (seconds), their ratios to the baseline
    (``wall_x``, ``cpu_x``), and for tune rows ``per_s`` (candidates evaluated per second)
    and ``cache`` (share of guardrail measurements served from the cache)."""
    from analysis.workflow.audit import evaluate, load_guardrails
    from analysis.workflow.sweep import Cluster
    from analysis.workflow.tune import load_tune, tune

    scenarios = load_guardrails([TUNE])
    audit = lambda: evaluate(scenarios, suggestions=False, progress=False)  # noqa: E731
    audit()  # loads the compiled kernels
    runs = [timed_result(audit) for _ in range(repeats)]
    base = (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
    rows = [
        {
            "what": "baseline: audit of the 15 guardrails (no cure search)",
            "wall": base[0],
            "cpu": base[1],
        }
    ]

    def tune_row(what, runs_):
        wall = statistics.median(r[0] for r in runs_)
        cpu = statistics.median(r[1] for r in runs_)
        stats = runs_[0][2].stats
        return {
            "what": what,
            "wall": wall,
            "cpu": cpu,
            "per_s": stats["evaluations"] / wall if wall > 0 else float("inf"),
            "cache": stats["cache_share"],
            "evaluations": stats["evaluations"],
            "measured": stats["measured"],
            "feasible": runs_[0][2].feasible,
        }

    problem = load_tune(TUNE)
    rows.append(
        tune_row(
            "tune, exact (every candidate)",
            [timed_result(lambda: tune(problem, method="exact")) for _ in range(repeats)],
        )
    )
    rows.append(
        tune_row(
            f"tune, NSGA-II, budget {budget}, in process",
            [
                timed_result(lambda: tune(problem, method="search", budget=budget, seed=1))
                for _ in range(repeats)
            ],
        )
    )
    if dask:
        rows.append(
            tune_row(
                f"tune, NSGA-II, budget {budget}, 2 Dask workers",
                [
                    timed_result(
                        lambda: tune(
                            problem, method="search", budget=budget, seed=1, cluster=Cluster(2)
                        )
                    )
                ],
            )
        )
    if cli:
        runs_ = [timed_cli(["tune", str(TUNE), "--format", "csv"]) for _ in range(repeats)]
        rows.append(
            {
                "what": "rpg-balance tune scenarios/tune.toml",
                "wall": statistics.median(w for w, _ in runs_),
                "cpu": statistics.median(c for _, c in runs_),
            }
        )
    tiny = 1e-9  # a clock that did not tick
    for r in rows:
        r["wall_x"] = r["wall"] / max(base[0], tiny)
        r["cpu_x"] = r["cpu"] / max(base[1], tiny)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of the baseline and of each row (median)"
    )
    parser.add_argument("--budget", type=int, default=200, help="trials of the search")
    parser.add_argument("--no-cli", action="store_true", help="skip the command row")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask row")
    args = parser.parse_args(argv)
    rows = run(
        max(1, args.repeats), max(1, args.budget), cli=not args.no_cli, dask=not args.no_dask
    )
    print("tune speed (warm kernels); ratios against the first row")
    print(
        "| what | wall (s) | CPU (s) | wall ÷ baseline | CPU ÷ baseline | candidates/s "
        "| from cache |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        extra = (
            f"{r['per_s']:.0f} | {100 * r['cache']:.1f}% ({r['measured']} measured "
            f"for {r['evaluations']} candidates)"
            if "per_s" in r
            else "– | –"
        )
        print(
            f"| {r['what']} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['wall_x']:.1f}× "
            f"| {r['cpu_x']:.1f}× | {extra} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
