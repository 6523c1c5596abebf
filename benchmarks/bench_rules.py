"""Speed of rules as data (:mod:`analysis.rules`): a duel under an edited rule, the cure
search with rule knobs, and ``tune`` over rule-data knobs.

Every row is a ratio against a baseline run in this process, so the figures stay
comparable when the machine's speed drifts:

- ``duel`` rows: the baseline is the exact duel of ``scenarios/tune_rules.toml``'s
  ``armour_vs_shooter`` (dice_pool_7, a competent swordsman in heavy archaic armour
  against a competent shooter, default variants, round cap 50) under the package's
  rules, fighters built as the audit builds them (:func:`analysis.combat.fights.fighter`),
  median of ``--repeats`` runs. The same duel with heavy archaic armour's ballistic
  rating edited (``rules.armour.heavy_archaic.ballistic``): *warm* (an edit already in
  force, its tables applied and kept) and *cold* (a new edit each run: the rule set made
  and validated, the data file edited, the fighters built again). An edit never
  recompiles: the kernels take the values through the fighters' rows.
- ``cure search`` rows: the baseline is the audit of ``scenarios/designer_guardrails.toml``
  (twenty guardrails over the five systems) without cures, its kernels and data loaded
  by one untimed run; then the same audit with the cure search, rule knobs included
  (each value read by the audit's own measurement on the edited scenario), and its side
  effects: its first run in the process (what one command pays: the edited rule sets
  are validated and their libraries loaded for the first time) and a second run.
- ``tune``: ``scenarios/tune_rules.toml`` restricted to its three dice_pool_7 rule-data
  knobs and guardrails, every candidate enumerated exactly (seconds; the aim is under 60).

Kernels must be compiled already (``rpg-balance warm-up``): the figures are warm ones. No
assertion anywhere depends on speed. Run ``python -m benchmarks.bench_rules`` (about a
minute; ``--quick`` skips the cure-search rows).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DESIGNER = ROOT / "scenarios" / "designer_guardrails.toml"
TUNE = ROOT / "scenarios" / "tune_rules.toml"
KNOB = "rules.armour.heavy_archaic.ballistic"


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall s, CPU s of this process) of one call of ``fn``."""
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def median_of(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def _duel(rulesets=()) -> None:
    from analysis.combat import fights as reg
    from analysis.rules import using

    with using(rulesets):
        a = reg.fighter(
            "dice_pool_7", {"archetype": "competent_swordsman", "armour": "heavy_archaic"}
        )
        b = reg.fighter("dice_pool_7", "competent_shooter")
        reg.engine("dice_pool_7").duel_exact(a, b, reg.combat_variants("dice_pool_7", {}), 50)


def duel_rows(repeats: int) -> list[tuple[str, float, float, str]]:
    from analysis.rules import RuleSet

    _duel()  # loads the compiled kernels
    base = median_of([timed(_duel) for _ in range(repeats)])
    edited = [RuleSet("dice_pool_7").with_knob(KNOB, 1)]
    _duel(edited)
    warm = median_of([timed(lambda: _duel(edited)) for _ in range(repeats)])
    cold = []
    for i in range(repeats):  # a new edit each run (values 0, 3, 4, …: never seen before)
        value = (0, 3, 4, 5, 6, 7, 8, 9, 10)[i % 9]

        def one(value=value, i=i) -> None:
            rs = (
                RuleSet("dice_pool_7")
                .with_knob(KNOB, value)
                .with_knob("rules.armour.heavy_archaic.lethal", 4 + i // 9)
            )
            _duel([rs])

        cold.append(timed(one))
    return [
        ("baseline: the exact duel, the package's rules", *base, "duel"),
        ("the same duel, an edited rule in force (warm)", *warm, "duel"),
        ("the same duel, a new edit each run (cold)", *median_of(cold), "duel"),
    ]


def cure_rows() -> list[tuple[str, float, float, str]]:
    from analysis.workflow.audit import evaluate, load_guardrails

    designer = load_guardrails([DESIGNER])
    evaluate(designer, progress=False, suggestions=False)  # warm every kernel it uses
    base = timed(lambda: evaluate(designer, progress=False, suggestions=False))
    first = timed(lambda: evaluate(load_guardrails([DESIGNER]), progress=False))
    again = timed(lambda: evaluate(load_guardrails([DESIGNER]), progress=False))
    return [
        ("baseline: the designer's 20 guardrails, no cures", *base, "cures"),
        ("the same audit with the cure search (rule knobs included), first run", *first, "cures"),
        ("the same audit with the cure search, run again (its caches warm)", *again, "cures"),
    ]


def tune_row() -> list[tuple[str, float, float, str]]:
    from analysis.workflow.scenario import load_scenario
    from analysis.workflow.tune import TuneProblem, tune, tune_problems

    sc = load_scenario(TUNE)
    keep = [g for g in sc.guardrails if "dice_pool_7" in g.name]
    knobs = [k for k in sc.tune.knobs if k.knob.startswith("dice_pool_7:")]
    sc = sc.model_copy(
        update={"guardrails": keep, "tune": sc.tune.model_copy(update={"knobs": knobs})}
    )
    problems, ks, deps = tune_problems(sc)
    if problems:
        raise RuntimeError(f"{TUNE.name}: {problems}")
    problem = TuneProblem(sc, ks, deps, str(TUNE), sc.tune.seed, sc.tune.budget)
    w, c = timed(lambda: tune(problem, method="exact", progress=False))
    return [
        (f"tune over {len(ks)} rule-data knobs, {problem.size} candidates, exact", w, c, "tune")
    ]


def run(repeats: int = 5, quick: bool = False) -> list[dict]:
    """The rows: ``what``, ``wall``, ``cpu`` and, for the duel and cure rows, their
    ratios to their group's baseline (``wall_x``, ``cpu_x``; None for ``tune``)."""
    rows = duel_rows(repeats) + ([] if quick else cure_rows()) + tune_row()
    base = {g: (w, c) for what, w, c, g in rows if what.startswith("baseline")}
    tiny = 1e-9
    out = []
    for what, w, c, group in rows:
        b = base.get(group)
        out.append(
            {
                "what": what,
                "wall": w,
                "cpu": c,
                "wall_x": None if b is None else w / max(b[0], tiny),
                "cpu_x": None if b is None else c / max(b[1], tiny),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs of each duel (median)")
    parser.add_argument("--quick", action="store_true", help="skip the cure-search rows")
    args = parser.parse_args(argv)
    rows = run(max(1, args.repeats), args.quick)
    print("rules as data (warm kernels); ratios against each group's baseline")
    print("| what | wall (s) | CPU (s) | wall ÷ baseline | CPU ÷ baseline |")
    print("|---|---|---|---|---|")
    for r in rows:
        ratio = ("—", "—") if r["wall_x"] is None else (f"{r['wall_x']:.2f}×", f"{r['cpu_x']:.2f}×")
        print(f"| {r['what']} | {r['wall']:.4f} | {r['cpu']:.4f} | {ratio[0]} | {ratio[1]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
