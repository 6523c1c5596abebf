"""Speed of ``rpg-balance audit``: the default guardrails and ``--discover``.

Every row is measured against a baseline run in this process: one exact even duel per
system (the ladder's ``competent`` fighter of ``analysis/data/cross_combat.toml`` against
itself, default variants, round cap 50), the unit most of the audit is made of. The
ratios stay comparable when the machine's own speed drifts between runs; the seconds do
not.

Rows:

- ``baseline``: the even duels, median of ``--repeats`` runs (after one untimed run that
  loads the compiled kernels);
- ``audit`` and ``audit --discover``: :func:`analysis.workflow.audit.evaluate` of the
  shipped guardrails and :func:`analysis.workflow.audit.discover`, each the first run in
  this process (what one command does);
- a designer's file: ``evaluate`` of ``scenarios/designer_guardrails.toml`` (twenty
  guardrails, a dozen failing, so the cures and their side effects are searched);
- ``rpg-balance audit`` and ``rpg-balance audit --discover``: the commands in a child
  process (imports included: what a designer waits for), median of ``--repeats`` runs,
  CPU time from ``RUSAGE_CHILDREN``.

Wall time is what a user waits; CPU time counts what this process (or the child) ran
on either core, so it is the figure to compare on a shared machine. Numba kernels must be
compiled already (``rpg-balance warm-up``): the figures are warm ones. No assertion here
depends on speed.

Run ``python -m benchmarks.bench_audit`` (about 1 minute); ``--systems dice_pool_6``
restricts every row to some systems (the command rows then are skipped: the command has
no such option), ``--no-cli`` skips the command rows.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: twenty guardrails over the five systems, a dozen failing: the cure search at work
DESIGNER = ROOT / "scenarios" / "designer_guardrails.toml"


def clocks() -> tuple[float, float]:
    """(wall clock, this process's CPU time) now."""
    return time.perf_counter(), time.process_time()


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall s, CPU s of this process) of one call of ``fn``."""
    w0, c0 = clocks()
    fn()
    w1, c1 = clocks()
    return w1 - w0, c1 - c0


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_cli(args: list[str]) -> tuple[float, float]:
    """(wall s, CPU s) of ``python -m cli ARGS`` in a child process (output discarded;
    exit codes 0 and 1 — a failed guardrail — are both a finished run)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cli", *args, "--no-progress"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode not in (0, 1):
        raise RuntimeError(f"rpg-balance {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return wall, cpu


def even_duels(systems: list[str]) -> Callable[[], None]:
    """One exact even duel of the ladder's competent fighter per system."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg
    from analysis.workflow.audit import ladder_specs

    ladder = ladder_specs()
    plan = []
    for system in systems:
        fighter = archetypes.combatant(system, ladder[system]["competent"])
        plan.append((reg.engine(system), fighter, reg.combat_variants(system, {})))

    def run() -> None:
        for mod, fighter, v in plan:
            mod.duel_exact(fighter, fighter, v, 50)

    return run


def median_of(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return (statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs))


def run(systems: list[str] | None = None, repeats: int = 3, cli: bool = True) -> list[dict]:
    """The rows: ``what``, ``wall``, ``cpu`` (seconds) and their ratios to the baseline
    (``wall_x``, ``cpu_x``)."""
    from analysis.combat.archetypes import systems as with_combat
    from analysis.workflow.audit import discover, evaluate, load_guardrails, restrict

    chosen = with_combat() if systems is None else list(systems)
    duels = even_duels(chosen)
    duels()  # loads the compiled kernels
    base = median_of([timed(duels) for _ in range(repeats)])
    rows = [("baseline: one exact even duel per system", *base)]
    scenarios = restrict(load_guardrails(), None if systems is None else chosen)
    rows.append(
        (
            "audit (evaluate, default guardrails)",
            *timed(lambda: evaluate(scenarios, progress=False)),
        )
    )
    rows.append(
        (
            "audit --discover (discover)",
            *timed(lambda: discover({"systems": systems}, progress=False)),
        )
    )
    if systems is None:
        designer = load_guardrails([DESIGNER])
        rows.append(
            (
                "audit of a designer's 20 guardrails with cures (evaluate)",
                *timed(lambda: evaluate(designer, progress=False)),
            )
        )
    if cli and systems is None:
        for label, args in (
            ("rpg-balance audit", ["audit", "--format", "csv"]),
            (
                "rpg-balance audit scenarios/designer_guardrails.toml",
                ["audit", str(DESIGNER), "--format", "csv"],
            ),
            ("rpg-balance audit --discover", ["audit", "--discover", "--format", "csv"]),
        ):
            rows.append((label, *median_of([timed_cli(args) for _ in range(repeats)])))
    tiny = 1e-9  # a clock that did not tick
    return [
        {
            "what": what,
            "wall": wall,
            "cpu": cpu,
            "wall_x": wall / max(base[0], tiny),
            "cpu_x": cpu / max(base[1], tiny),
        }
        for what, wall, cpu in rows
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--systems",
        help="comma-separated system ids (default: every "
        "system with combat; the command rows need all of them)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="runs of the baseline and of each command (median)"
    )
    parser.add_argument("--no-cli", action="store_true", help="skip the command rows")
    args = parser.parse_args(argv)
    systems = args.systems.split(",") if args.systems else None
    rows = run(systems, max(1, args.repeats), cli=not args.no_cli)
    print("audit speed (warm kernels); ratios against the first row")
    print("| what | wall (s) | CPU (s) | wall ÷ baseline | CPU ÷ baseline |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['what']} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['wall_x']:.1f}× "
            f"| {r['cpu_x']:.1f}× |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
