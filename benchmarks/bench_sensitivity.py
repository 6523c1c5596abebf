"""Speed of ``rpg-balance sensitivity``: five knobs over the default guardrails.

Every row is measured against a baseline run in this process: ``rpg-balance tune``'s
exact enumeration of the same file (``scenarios/tune.toml``: the fifteen default
guardrails and five knobs), whose evaluator sensitivity shares. The figure compared is
the time per guardrail measurement (the cache serves the rest), so the ratio says whether
a sensitivity run measures as fast as tune does; the seconds drift with the machine, the
ratios much less.

Rows:

- ``baseline``: :func:`analysis.workflow.tune.tune`, exact, median of ``--repeats`` runs
  (after one untimed run that loads the compiled kernels), each with an empty cache;
- ``sensitivity, exact``: :func:`analysis.workflow.sensitivity.sensitivity` of the same
  file (every level combination of the knobs touching each guardrail);
- ``sensitivity, sobol N``: SALib's Saltelli sampling, ``N`` base points per guardrail;
- ``default report page``: the shipped guardrails against ``analysis/data/sensitivity.toml``;
- ``rpg-balance sensitivity scenarios/tune.toml``: the command in a child process
  (imports included), CPU time from ``RUSAGE_CHILDREN``.

Numba kernels must be compiled already (``rpg-balance warm-up``). No assertion here
depends on speed. Run ``python -m benchmarks.bench_sensitivity`` (about a minute);
``--no-cli`` skips the command row.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from benchmarks.bench_audit import timed_cli
from benchmarks.bench_tune import timed_result

ROOT = Path(__file__).resolve().parents[1]
TUNE = ROOT / "scenarios" / "tune.toml"


def run(repeats: int = 3, samples: int = 64, cli: bool = True) -> list[dict]:
    """The rows: ``what``, ``wall``, ``cpu`` (seconds), ``measured`` (guardrail
    measurements), ``per`` (wall seconds per measurement) and ``per_x`` (its ratio to the
    baseline's)."""
    from analysis.workflow import sensitivity as sens
    from analysis.workflow.audit import DATA
    from analysis.workflow.tune import load_tune, tune

    problem = load_tune(TUNE)
    tune(problem, method="exact")  # loads the compiled kernels

    def row(what, runs, measured):
        return {
            "what": what,
            "wall": statistics.median(r[0] for r in runs),
            "cpu": statistics.median(r[1] for r in runs),
            "measured": measured,
        }

    runs = [timed_result(lambda: tune(problem, method="exact")) for _ in range(repeats)]
    rows = [row("baseline: tune, exact (756 candidates)", runs, runs[0][2].stats["measured"])]
    for what, fn in (
        ("sensitivity, exact (5 knobs)", lambda: sens.sensitivity(problem)),
        (
            f"sensitivity, sobol {samples}",
            lambda: sens.sensitivity(problem, method="sobol", samples=samples),
        ),
        (
            "default report page (11 knobs)",
            lambda: sens.sensitivity(sens.load_problem(DATA, sens.DEFAULT_KNOBS)),
        ),
    ):
        runs = [timed_result(fn) for _ in range(repeats)]
        rows.append(row(what, runs, runs[0][2].stats["measured"]))
    if cli:
        runs_ = [timed_cli(["sensitivity", str(TUNE)]) for _ in range(repeats)]
        rows.append(
            {
                "what": "rpg-balance sensitivity scenarios/tune.toml",
                "wall": statistics.median(w for w, _ in runs_),
                "cpu": statistics.median(c for _, c in runs_),
                "measured": 0,
            }
        )
    base = rows[0]["wall"] / max(rows[0]["measured"], 1)
    for r in rows:
        r["per"] = r["wall"] / r["measured"] if r["measured"] else float("nan")
        r["per_x"] = r["per"] / base if r["measured"] else float("nan")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of the baseline and of each row (median)"
    )
    parser.add_argument("--samples", type=int, default=64, help="sobol base sample")
    parser.add_argument("--no-cli", action="store_true", help="skip the command row")
    args = parser.parse_args(argv)
    rows = run(max(1, args.repeats), args.samples, cli=not args.no_cli)
    print("sensitivity speed (warm kernels); time per measurement against the first row")
    print("| what | wall (s) | CPU (s) | measurements | s per measurement | ÷ baseline |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        per = f"{r['per']:.3f} | {r['per_x']:.2f}×" if r["measured"] else "– | –"
        print(
            f"| {r['what']} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['measured'] or '–'} | {per} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
