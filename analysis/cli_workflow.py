"""``rpg-balance run | sweep | solve``: the designer workflow on the command line.

Only :mod:`argparse` is imported at start-up; scenario validation (pydantic), the
engines (numba) and Dask load inside the commands, so ``rpg-balance --help`` stays fast.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

SYSTEM_IDS = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")
FORMATS = ("csv", "json", "markdown", "parquet")

RUN_EPILOG = """examples:
  rpg-balance run scenarios/expert_vs_difficulties.toml
  rpg-balance run scenarios/c7_claim.toml --format markdown -o out/c7
  rpg-balance run scenarios/ten_again_variants.toml --se 0.005 --seed 3 -o out/again
  rpg-balance run scenarios/ten_again_variants.toml --workers 2   # sweep part on Dask

Tables (and plots) go into the folder given by -o or by output.dir in the file, one file
per table; without either, tables are printed to stdout. Nothing is written unless the
whole run succeeds.
"""

SWEEP_EPILOG = """examples:
  rpg-balance sweep scenarios/ten_again_variants.toml --workers 2 -o sweep.csv
  rpg-balance sweep scenarios/c7_claim.toml --sensitivity sens.md --format markdown
  rpg-balance sweep scenarios/ten_again_variants.toml --scheduler tcp://10.0.0.5:8786 \\
      --se 0.002 -o sweep.parquet --format parquet --plot sensitivity.png

Each grid cell draws its random numbers from (seed, cell position), so the table is
bit-identical on any number of workers. Ctrl-C cancels the remaining cells, closes the
cluster and writes nothing.
"""

SOLVE_EPILOG = """examples:
  rpg-balance solve difficulty --target 0.7 --competence expert
  rpg-balance solve difficulty --target 0.5 --competence 12 --system d20_degrees
  rpg-balance solve competence --levels 0.5,0.75,0.9 --system middle_3d10
  rpg-balance solve lethality --system d20_degrees --scenario duel.toml \\
      --knob a.hit_points --range 1:60 --metric p_side0 --target 0.7
"""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 0 or a positive integer, got {text!r}") \
            from None
    if not 0 <= value <= 64:
        raise argparse.ArgumentTypeError(f"expected 0..64, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") \
            from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a probability, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, "
                                         f"got {text!r}")
    return value


def _se(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a standard error, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a standard error in (0, 0.5), got {text!r}")
    return value


def _levels(text: str) -> list[float]:
    return [_probability(t.strip()) for t in text.split(",")]


def _range(text: str) -> range:
    lo, sep, hi = text.partition(":")
    try:
        a, b = int(lo), int(hi)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH whole numbers, got {text!r}") \
            from None
    if not sep or b < a or b - a > 100_000:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH with LOW <= HIGH, got {text!r}")
    return range(a, b + 1)


def _common(p: argparse.ArgumentParser, *, precision: bool = True, out_help: str) -> None:
    if precision:
        p.add_argument("--seed", type=_seed, default=None,
                       help="random seed (default: the scenario's seed)")
        p.add_argument("--method", choices=("exact", "mc", "both"), default=None,
                       help="override the scenario's method")
        g = p.add_mutually_exclusive_group()
        g.add_argument("--trials", type=_positive_int, default=None,
                       help="Monte Carlo trials per roll setting (implies --method mc "
                       "when the scenario is exact)")
        g.add_argument("--se", type=_se, default=None,
                       help="sample each cell until its standard error is at most SE")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="table format (default: the scenario's, else csv)")
    p.add_argument("-o", "--output", default=None, metavar="PATH", help=out_help)
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _cluster_options(p: argparse.ArgumentParser, default_workers: int) -> None:
    p.add_argument("--workers", type=_count, default=None,
                   help=f"local Dask worker processes (0 = in this process; default "
                   f"{default_workers})")
    p.add_argument("--scheduler", default=None, metavar="ADDR",
                   help="join an existing Dask scheduler, e.g. tcp://host:8786")


def register(sub) -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser("run", help="run a scenario file (checks, sweep, solvers)",
                       description="Run every check, sweep and solver a scenario file asks "
                       "for and write its tables and plots.", epilog=RUN_EPILOG,
                       formatter_class=fmt)
    p.add_argument("scenario", help="scenario file (TOML)")
    _common(p, out_help="output folder (overrides output.dir)")
    _cluster_options(p, 0)
    p.set_defaults(func=run_run)

    p = sub.add_parser("sweep", help="run a scenario's parameter sweep on Dask",
                       description="Run the [sweep] grid of a scenario on a Dask cluster "
                       "and write one tidy table; optionally the sensitivity table and plot.",
                       epilog=SWEEP_EPILOG, formatter_class=fmt)
    p.add_argument("scenario", help="scenario file (TOML) with a [sweep] section")
    _common(p, out_help="write the sweep table to PATH (atomically) instead of stdout")
    _cluster_options(p, 2)
    p.add_argument("--sensitivity", default=None, metavar="PATH",
                   help="also write the sensitivity table (same format)")
    p.add_argument("--plot", default=None, metavar="PNG", help="also draw the sensitivity plot")
    p.set_defaults(func=run_sweep)

    p = sub.add_parser("solve", help="difficulty, competence and lethality solvers",
                       description="Solve for a difficulty, a competence or (with the combat "
                       "engines) a lethality knob.", epilog=SOLVE_EPILOG, formatter_class=fmt)
    solve = p.add_subparsers(dest="what", metavar="WHAT", parser_class=type(p))
    solve.required = True

    q = solve.add_parser("difficulty", help="the difficulty closest to a target chance",
                         description="For a competence (ladder name or native value), the "
                         "difficulty in each system whose chance of success is closest to "
                         "the target, with the achieved chance.",
                         epilog="example: rpg-balance solve difficulty --target 0.7 "
                         "--competence expert --format markdown")
    q.add_argument("--target", type=_probability, required=True, help="wanted P(success)")
    q.add_argument("--competence", required=True,
                   help="ladder name (untrained … master) or a native value with --system")
    q.add_argument("--system", action="append", choices=SYSTEM_IDS, default=None,
                   help="limit to this system (repeatable)")
    q.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE",
                   help="rule variant of the one --system given (repeatable)")
    _common(q, precision=False, out_help="write the table to FILE (atomically)")
    q.set_defaults(func=run_solve_difficulty)

    q = solve.add_parser("competence", help="competence needed for each difficulty",
                         description="For each difficulty, the smallest competence that "
                         "succeeds at least 50 / 75 / 90 % of the time.",
                         epilog="example: rpg-balance solve competence --levels 0.5,0.9 "
                         "--system dice_pool_6")
    q.add_argument("--levels", type=_levels, default=[0.5, 0.75, 0.9],
                   help="comma-separated chances (default 0.5,0.75,0.9)")
    q.add_argument("--system", action="append", choices=SYSTEM_IDS, default=None)
    q.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE")
    _common(q, precision=False, out_help="write the table to FILE (atomically)")
    q.set_defaults(func=run_solve_competence)

    q = solve.add_parser("lethality", help="a fight knob for a target outcome (combat)",
                         description="Search a fighter's knob (e.g. a.hit_points) for the "
                         "value where a fight metric meets a target; Monte Carlo cells count "
                         "only when their whole interval does. Needs the combat engines.",
                         epilog="example: rpg-balance solve lethality --system d20_degrees "
                         "--scenario duel.toml --knob a.hit_points --range 1:60 --target 0.7",
                         formatter_class=fmt)
    q.add_argument("--system", choices=SYSTEM_IDS, required=True)
    q.add_argument("--scenario", required=True, help="scenario file whose first [[fights]] "
                   "entry describes the duel")
    q.add_argument("--knob", required=True, help="a.KEY or b.KEY: the fighter stat to vary")
    q.add_argument("--range", type=_range, required=True, metavar="LOW:HIGH")
    q.add_argument("--metric", default="p_side0",
                   choices=("p_side0", "p_side1", "p_neither", "mean_rounds", "p_loser_dead"))
    q.add_argument("--target", type=float, required=True)
    q.add_argument("--goal", choices=("at_least", "at_most"), default="at_least")
    q.add_argument("--decreasing", action="store_true",
                   help="the metric falls as the knob grows")
    q.add_argument("--z", type=float, default=2.0, help="interval width in standard errors")
    _common(q, out_help="write the table to FILE (atomically)")
    q.set_defaults(func=run_solve_lethality)


# --------------------------------------------------------------------------------------


def _target_file(path: str | None) -> None:
    """Fail before any work when ``path`` cannot be written."""
    if path is None or path == "-":
        return
    from engines.errors import InputError

    p = Path(path)
    if p.is_dir():
        raise InputError(f"output: {path!r} is a folder, expected a file")
    if not p.parent.exists():
        raise InputError(f"output: folder {str(p.parent)!r} does not exist")


def _apply_overrides(sc, args) -> None:
    if getattr(args, "seed", None) is not None:
        sc.seed = args.seed
    if getattr(args, "method", None) is not None:
        sc.method = args.method
    trials, se = getattr(args, "trials", None), getattr(args, "se", None)
    if trials is not None or se is not None:
        sc.precision.trials, sc.precision.se = trials, se
        if sc.method == "exact" and args.method is None:
            sc.method = "mc"
    if args.format is not None:
        sc.output.format = args.format


def _cluster(args, default_workers: int):
    from .sweep import Cluster

    workers = args.workers if args.workers is not None else default_workers
    if args.scheduler is not None:
        text = args.scheduler.strip()
        if "://" not in text or not text.split("://", 1)[1]:
            from engines.errors import InputError

            raise InputError(f"--scheduler: expected an address like tcp://host:8786, "
                             f"got {args.scheduler!r}")
        return Cluster(workers=0, scheduler=text)
    return Cluster(workers=workers)


def _to_stdout(write, *a) -> None:
    """Run a writer that may print to stdout; a closed pipe (``| head``) is not an error."""
    import os

    try:
        write(*a)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def _interrupted(exc) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 130


def run_run(args) -> int:
    from .scenario import load_scenario
    from .sweep import SweepInterrupted
    from .workflow import check_output_dir, run_scenario, write_results

    sc = load_scenario(args.scenario)
    _apply_overrides(sc, args)
    out_dir = Path(args.output).resolve() if args.output else sc.output_dir()
    check_output_dir(out_dir, sc.output.format)
    try:
        res = run_scenario(sc, _cluster(args, 0), progress=False if args.no_progress else None)
    except SweepInterrupted as exc:
        return _interrupted(exc)
    written: list = []
    _to_stdout(lambda: written.extend(write_results(res, sc.output.format, out_dir)))
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


def run_sweep(args) -> int:
    from engines.errors import InputError

    from .output import write_table
    from .scenario import load_scenario
    from .sweep import SweepInterrupted, run_checks, sensitivity_plot

    sc = load_scenario(args.scenario)
    if sc.sweep is None:
        raise InputError(f"{Path(args.scenario).name}: no [sweep] section to run")
    _apply_overrides(sc, args)
    fmt = sc.output.format
    for path in (args.output, args.sensitivity, args.plot):
        _target_file(path)
    if fmt == "parquet" and args.output in (None, "-"):
        raise InputError("format parquet needs an output file (-o FILE)")
    if fmt == "parquet" and args.sensitivity in ("-",):
        raise InputError("format parquet needs a file for --sensitivity")
    try:
        result = run_checks(sc, _cluster(args, 2), progress=False if args.no_progress else None,
                            announce=True)
    except SweepInterrupted as exc:
        return _interrupted(exc)
    _to_stdout(write_table, result.table, fmt, args.output)
    if args.sensitivity is not None:
        _to_stdout(write_table, result.sensitivity, fmt, args.sensitivity)
    if args.plot is not None:
        sensitivity_plot(result.table, result.sensitivity, args.plot, result.metric)
    return 0


def _solver_variants(args):
    if not args.variant:
        return None
    from engines.errors import InputError

    if not args.system or len(args.system) != 1:
        raise InputError("--variant: give exactly one --system the variants belong to")
    from .checks import variants_for

    return {args.system[0]: variants_for(args.system[0], args.variant)}


def run_solve_difficulty(args) -> int:
    from .output import write_table
    from .solvers import solve_difficulty

    fmt = args.format or "csv"
    _target_file(args.output)
    competence = args.competence.strip()
    value: int | str = int(competence) if competence.lstrip("-").isdigit() else competence
    table = solve_difficulty(args.target, value, args.system, _solver_variants(args))
    _to_stdout(write_table, table, fmt, args.output)
    return 0


def run_solve_competence(args) -> int:
    from .output import write_table
    from .solvers import competence_table

    fmt = args.format or "csv"
    _target_file(args.output)
    table = competence_table(args.levels, args.system, _solver_variants(args))
    _to_stdout(write_table, table, fmt, args.output)
    return 0


def run_solve_lethality(args) -> int:
    """Lethality solver: needs ``engines/combat_<system>.py`` (see :mod:`analysis.fights`)."""
    import copy

    import numpy as np

    from engines.errors import InputError

    from . import fights as reg
    from .output import write_table
    from .scenario import load_scenario
    from .solvers import solve_threshold

    fmt = args.format or "csv"
    _target_file(args.output)
    if not math.isfinite(args.target):
        raise InputError(f"--target: expected a finite number, got {args.target}")
    side, _, key = args.knob.partition(".")
    if side not in ("a", "b") or not key:
        raise InputError(f"--knob: expected a.KEY or b.KEY, got {args.knob!r}")
    mod = reg.engine(args.system)  # a clear InputError when the combat engine is absent
    sc = load_scenario(args.scenario)
    _apply_overrides(sc, args)
    fights = [f for f in sc.fights if sc.check_system(f) == args.system]
    if not fights:
        raise InputError(f"{Path(args.scenario).name}: no [[fights]] entry for {args.system}")
    fight = fights[0]
    read = reg.metric(args.metric)
    variants = reg.combat_variants(args.system, sc.check_variants(fight))
    exact = sc.method == "exact" and hasattr(mod, "duel_exact")
    trials = sc.precision.trials or 20_000

    def metric(value):
        specs = {"a": copy.deepcopy(fight.a), "b": copy.deepcopy(fight.b)}
        specs[side] = reg.with_knob(specs[side], key, value)
        a, b = reg.fighter(args.system, specs["a"]), reg.fighter(args.system, specs["b"])
        if exact:
            stats = mod.duel_exact(a, b, variants=variants, round_cap=fight.round_cap)
        else:
            seed = np.random.SeedSequence(sc.seed, spawn_key=(int(value) & (2**62 - 1),))
            stats = mod.duel_mc(a, b, trials, seed, variants, fight.round_cap)
        return read(stats)

    res = solve_threshold(metric, args.range, args.target, goal=args.goal,
                          increasing=not args.decreasing, z=args.z)
    import pandas as pd

    table = pd.DataFrame([{"knob": args.knob, "value": v, "estimate": e, "se": s,
                           "meets": v == res.knob,
                           "undecided": v in res.undecided} for v, e, s in res.evaluated])
    _to_stdout(write_table, table, fmt, args.output)
    if res.found:
        print(f"{args.knob} = {res.knob}: {args.metric} = {res.estimate:.4f} "
              f"± {res.se:.4f}", file=sys.stderr)
    else:
        print(f"no {args.knob} in {args.range.start}..{args.range.stop - 1} meets "
              f"{args.metric} {args.goal} {args.target}", file=sys.stderr)
    return 0
