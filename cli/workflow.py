"""``rpg-balance run | sweep | solve``: the designer workflow on the command line.

Only :mod:`argparse` is imported at start-up; scenario validation (pydantic), the
engines (numba) and Dask load inside the commands, so ``rpg-balance --help`` stays fast.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from analysis.rules import put as put_rules
from cli.common import (
    DEFAULT_WORKERS,
    FORMATS,
    add_columns,
    add_rule_set,
    number,
    provenance_of,
    round_cap_int,
    seed_int64,
    select_columns,
    system_id,
    trials_int,
    workers_int,
)
from engines.constants import ROUND_CAP, STUDY_SEED

__all__ = [
    "LETHALITY_EPILOG",
    "RUN_EPILOG",
    "SOLVE_EPILOG",
    "SWEEP_EPILOG",
    "cluster_of",
    "register",
    "run_run",
    "run_solve_competence",
    "run_solve_difficulty",
    "run_solve_lethality",
    "run_sweep",
]

RUN_EPILOG = """examples:
  rpg-balance run scenarios/expert_vs_difficulties.toml
  rpg-balance run scenarios/c7_claim.toml --format markdown -o out/c7
  rpg-balance run scenarios/ten_again_variants.toml --se 0.005 --seed 3 -o out/again
  rpg-balance run scenarios/ten_again_variants.toml --workers 2   # sweep part on Dask
  rpg-balance run scenarios/lethality_solve.toml --format markdown
  rpg-balance run scenarios/even_duels.toml

Tables (and plots) go into the folder given by -o or by output.dir in the file, one file
per table; without either, tables are printed to stdout. Nothing is written unless the
whole run succeeds.
"""

SWEEP_EPILOG = """examples:
  rpg-balance sweep scenarios/ten_again_variants.toml --workers 2 -o sweep.csv
  rpg-balance sweep scenarios/c7_claim.toml --sensitivity sens.md --format markdown
  rpg-balance sweep scenarios/duel_sweep.toml --workers 2 --sensitivity sens.csv \\
      --plot sensitivity.png          # fight knobs: hit points, weapon, maneuver
  rpg-balance sweep scenarios/ten_again_variants.toml --scheduler tcp://10.0.0.5:8786 \\
      --se 0.002 -o sweep.parquet --format parquet --plot sensitivity.png

Each grid cell (a check setting or a fight) draws its random numbers from
(seed, cell position, batch), so the table is
bit-identical on any number of workers. Ctrl-C cancels the remaining cells, closes the
cluster and writes nothing.
"""

SOLVE_EPILOG = """examples:
  rpg-balance solve difficulty --target 0.7 --competence expert
  rpg-balance solve difficulty --target 0.5 --competence 12 --system d20_degrees
  rpg-balance solve competence --levels 0.5,0.75,0.9 --system middle_3d10
  rpg-balance solve lethality --system d20_degrees --a competent --b competent \\
      --knob both.hit_points --range 1:10 --metric p_rounds_between:3:5 --target 0.8
"""

LETHALITY_EPILOG = """examples:
  # hit points at which an even duel of competent fighters lasts 3-5 rounds 80 % of the time
  rpg-balance solve lethality --system d20_degrees --a competent --b competent \\
      --knob both.hit_points --range 1:10 --metric p_rounds_between:3:5 --target 0.8
  # the fewest hit points that keep one pistol attack's knock-out odds at 30 % or less
  rpg-balance solve lethality --system d20_degrees --a novice --set-a weapon=pistol \\
      --b novice \\
      --knob b.hit_points --range 1:20 --metric p_one_hit_incapacitate \\
      --target 0.3 --goal at_most --decreasing
  # the same fight from a scenario file, by Monte Carlo to a standard error of 0.005
  rpg-balance solve lethality --system dice_pool_7 --scenario scenarios/lethality_solve.toml \\
      --knob both.CON --range 1:6 --metric p_rounds_between:3:5 --target 0.5 --se 0.005
"""


def _probability(text: str) -> float:
    return number(
        text, float, lambda v: 0 < v < 1, "a probability", "a number strictly between 0 and 1"
    )


def _se(text: str) -> float:
    return number(
        text, float, lambda v: 0 < v < 0.5, "a standard error", "a standard error in (0, 0.5)"
    )


def _levels(text: str) -> list[float]:
    return [_probability(t.strip()) for t in text.split(",")]


def _values(text: str) -> list:
    out: list = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise argparse.ArgumentTypeError(f"expected V1,V2,... got {text!r}")
        out.append(int(part) if part.lstrip("-").isdigit() else part)
    return out


def _range(text: str) -> range:
    lo, sep, hi = text.partition(":")
    try:
        a, b = int(lo), int(hi)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH whole numbers, got {text!r}") from None
    if not sep or b < a or b - a > 100_000:
        raise argparse.ArgumentTypeError(f"expected LOW:HIGH with LOW <= HIGH, got {text!r}")
    return range(a, b + 1)


def _common(p: argparse.ArgumentParser, *, precision: bool = True, out_help: str) -> None:
    if precision:
        p.add_argument(
            "--seed",
            type=seed_int64,
            default=None,
            help="random seed (default: the scenario's seed)",
        )
        p.add_argument(
            "--method",
            choices=("exact", "mc", "both"),
            default=None,
            help="override the scenario's method",
        )
        g = p.add_mutually_exclusive_group()
        g.add_argument(
            "--trials",
            type=trials_int,
            default=None,
            help="Monte Carlo trials per roll setting (implies --method mc "
            "when the scenario is exact)",
        )
        g.add_argument(
            "--se",
            type=_se,
            default=None,
            help="sample each cell until its standard error is at most SE",
        )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="table format (default: the scenario's, else csv)",
    )
    p.add_argument("-o", "--output", default=None, metavar="PATH", help=out_help)
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _cluster_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=workers_int,
        default=None,
        help=f"local Dask worker processes (0 = in this process; default "
        f"{DEFAULT_WORKERS}, the same for run and sweep)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="join an existing Dask scheduler, e.g. tcp://host:8786",
    )


def register(sub) -> None:
    fmt = argparse.RawDescriptionHelpFormatter
    p = sub.add_parser(
        "run",
        help="run a scenario file (checks, sweep, solvers)",
        description="Run every check, sweep and solver a scenario file asks "
        "for and write its tables and plots.",
        epilog=RUN_EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("scenario", help="scenario file (TOML)")
    _common(p, out_help="output folder (overrides output.dir)")
    _cluster_options(p)
    p.set_defaults(func=run_run)

    p = sub.add_parser(
        "sweep",
        help="run a scenario's parameter sweep on Dask",
        description="Run the [sweep] grid of a scenario on a Dask cluster "
        "and write one tidy table; optionally the sensitivity table and plot.",
        epilog=SWEEP_EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("scenario", help="scenario file (TOML) with a [sweep] section")
    _common(p, out_help="write the sweep table to PATH (atomically) instead of stdout")
    _cluster_options(p)
    p.add_argument(
        "--sensitivity",
        default=None,
        metavar="PATH",
        help="also write the sensitivity table (same format)",
    )
    p.add_argument("--plot", default=None, metavar="PNG", help="also draw the sensitivity plot")
    p.add_argument(
        "--interactions",
        default=None,
        metavar="PATH",
        help="also write the two-way interaction ranges of the swept knobs (same format)",
    )
    add_columns(p)
    p.set_defaults(func=run_sweep)

    p = sub.add_parser(
        "solve",
        help="difficulty, competence and lethality solvers",
        description="Solve for a difficulty, a competence or (with the combat "
        "engines) a lethality knob.",
        epilog=SOLVE_EPILOG,
        formatter_class=fmt,
    )
    solve = p.add_subparsers(dest="what", metavar="WHAT", parser_class=type(p))
    solve.required = True

    q = solve.add_parser(
        "difficulty",
        help="the difficulty closest to a target chance",
        description="For a competence (ladder name or native value), the "
        "difficulty in each system whose chance of success is closest to "
        "the target, with the achieved chance.",
        epilog="example: rpg-balance solve difficulty --target 0.7 "
        "--competence expert --format markdown",
    )
    q.add_argument("--target", type=_probability, required=True, help="wanted P(success)")
    q.add_argument(
        "--competence",
        required=True,
        help="ladder name (untrained … master) or a native value with --system",
    )
    q.add_argument(
        "--system",
        action="append",
        type=system_id,
        metavar="SYSTEM",
        default=None,
        help="limit to this system (repeatable)",
    )
    q.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="rule variant of the one --system given (repeatable)",
    )
    _common(q, precision=False, out_help="write the table to FILE (atomically)")
    add_columns(q)
    add_rule_set(q)
    q.set_defaults(func=run_solve_difficulty)

    q = solve.add_parser(
        "competence",
        help="competence needed for each difficulty",
        description="For each difficulty, the smallest competence that "
        "succeeds at least 50 / 75 / 90 % of the time.",
        epilog="example: rpg-balance solve competence --levels 0.5,0.9 --system dice_pool_6",
    )
    q.add_argument(
        "--levels",
        type=_levels,
        default=[0.5, 0.75, 0.9],
        help="comma-separated chances (default 0.5,0.75,0.9)",
    )
    q.add_argument("--system", action="append", type=system_id, metavar="SYSTEM", default=None)
    q.add_argument("--variant", action="append", default=[], metavar="NAME=VALUE")
    _common(q, precision=False, out_help="write the table to FILE (atomically)")
    add_columns(q)
    q.set_defaults(func=run_solve_competence)

    q = solve.add_parser(
        "lethality",
        help="a fight knob for a target outcome (combat)",
        description="Search a fight knob (a fighter's trait or gear, both "
        "fighters' at once, or a combat rule variant) for the value where a "
        "fight metric meets a target. Exact duels where the engine solves "
        "them (all five systems); with --trials or --se Monte Carlo, whose "
        "cells count only when their whole interval meets the target.",
        epilog=LETHALITY_EPILOG,
        formatter_class=fmt,
    )
    q.add_argument("--system", type=system_id, metavar="SYSTEM", required=True)
    q.add_argument(
        "--scenario",
        default=None,
        help="scenario file whose [[fights]] entry describes the duel (or give --a and --b)",
    )
    q.add_argument(
        "--fight",
        default=None,
        help="the [[fights]] entry's name (default: the first one for --system)",
    )
    q.add_argument(
        "--a", default=None, metavar="ARCHETYPE", help="side 0 (attacker for one-hit metrics)"
    )
    q.add_argument("--b", default=None, metavar="ARCHETYPE", help="side 1 (the target)")
    q.add_argument(
        "--set-a",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a trait or gear of --a (repeatable), e.g. weapon=pistol",
    )
    q.add_argument(
        "--set-b",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="change a trait or gear of --b (repeatable)",
    )
    q.add_argument(
        "--knob",
        required=True,
        help="a.KEY, b.KEY, both.KEY or variant.NAME (e.g. both.hit_points)",
    )
    g = q.add_mutually_exclusive_group(required=True)
    g.add_argument("--range", type=_range, metavar="LOW:HIGH", help="whole-number knob values")
    g.add_argument(
        "--values",
        type=_values,
        metavar="V1,V2,...",
        help="knob values in increasing order (names allowed: weapons, armour)",
    )
    q.add_argument(
        "--metric",
        default="p_side0",
        help="p_side0 | p_side1 | p_neither | rounds_mean | p_loser_dead | "
        "p_loser_dying | p_loser_out | p_rounds_between:LO:HI | p_one_hit_hit | "
        "p_one_hit_incapacitate | p_one_hit_kill | p_one_hit_dead | "
        "p_one_hit_dying | p_one_hit_out (default p_side0; the loser's and the "
        "one-hit fates follow the variant aftermath, default leave)",
    )
    q.add_argument("--target", type=float, required=True)
    q.add_argument("--goal", choices=("at_least", "at_most"), default="at_least")
    q.add_argument("--decreasing", action="store_true", help="the metric falls as the knob grows")
    q.add_argument(
        "--grid",
        action="store_true",
        help="evaluate every knob value (default: bisection; a scan for "
        "p_rounds_between, which rises then falls)",
    )
    q.add_argument("--z", type=float, default=2.0, help="interval width in standard errors")
    q.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="combat rule variant (repeatable)",
    )
    q.add_argument(
        "--round-cap",
        type=round_cap_int,
        default=None,
        help=f"rounds before a fight counts as neither (default {ROUND_CAP})",
    )
    _common(q, out_help="write the table to FILE (atomically)")
    add_columns(q)
    q.set_defaults(func=run_solve_lethality)


# --------------------------------------------------------------------------------------


def _target_file(path: str | None, flag: str = "-o") -> None:
    """Fail before any work when ``path`` cannot be written."""
    if path is None or path == "-":
        return
    from analysis.output import check_target

    check_target(path, flag)


def _apply_overrides(sc, args) -> None:
    """Command-line options over the file's. A method from the command line (``--method``,
    or ``--trials``/``--se``, which mean Monte Carlo when nothing else says exact)
    applies to checks and fights alike; each fight setting it overrides gets a notice
    on stderr (:meth:`analysis.workflow.scenario.Scenario.fight_exact` is the rule)."""
    if getattr(args, "seed", None) is not None:
        sc.seed = args.seed
    if getattr(args, "method", None) is not None:
        sc.force_method(args.method, f"--method {args.method}")
    trials, se = getattr(args, "trials", None), getattr(args, "se", None)
    if trials is not None or se is not None:
        sc.precision.trials, sc.precision.se = trials, se
        if getattr(args, "method", None) is None:
            option = "--trials" if trials is not None else "--se"
            sc.force_method("mc" if sc.method == "exact" else sc.method, option)
    if args.format is not None:
        sc.output.format = args.format
    for line in sc.method_notices():
        print(line, file=sys.stderr)


def _scenario_provenance(sc) -> dict:
    """What produced a scenario's tables (the columns :mod:`analysis.output` adds)."""
    systems = list(
        dict.fromkeys(
            s for s in [sc.system, *(sc.check_system(x) for x in [*sc.checks, *sc.fights])] if s
        )
    )
    pr = sc.precision
    trials = (
        pr.trials
        if pr.trials is not None
        else (f"se<={pr.se}" if pr.se is not None else (0 if sc.method == "exact" else ""))
    )
    return {
        "system": ",".join(systems) or "none",
        "variants": "; ".join(f"{k}={v}" for k, v in sc.variants.items()) or "defaults",
        "method": sc.method,
        "trials": trials,
    }


def cluster_of(args):
    """The :class:`analysis.workflow.sweep.Cluster` of ``--workers`` / ``--scheduler``."""
    from analysis.workflow.sweep import Cluster

    workers = args.workers if args.workers is not None else DEFAULT_WORKERS
    if args.scheduler is not None:
        text = args.scheduler.strip()
        if "://" not in text or not text.split("://", 1)[1]:
            from engines.errors import InputError

            raise InputError(
                f"--scheduler: expected an address like tcp://host:8786, got {args.scheduler!r}"
            )
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


def _write_table(table, args, fmt: str, provenance: dict) -> None:
    """The command's table to ``-o`` or stdout: ``--columns`` chosen among every output
    column (:func:`cli.common.select_columns`), else with the provenance columns."""
    from analysis.output import write_table

    chosen, prov = select_columns(table, args, provenance, fmt)
    _to_stdout(write_table, chosen, fmt, args.output, prov)


def _interrupted(exc) -> int:
    print(f"error: {exc}", file=sys.stderr)
    return 130


def run_run(args) -> int:
    from analysis.workflow.run import check_output_dir, run_scenario, write_results
    from analysis.workflow.scenario import load_scenario
    from analysis.workflow.sweep import SweepInterrupted

    sc = load_scenario(args.scenario)
    put_rules(sc.rule_sets())
    _apply_overrides(sc, args)
    out_dir = Path(args.output).resolve() if args.output else sc.output_dir()
    check_output_dir(out_dir, sc.output.format)
    if sc.output.format == "parquet":
        from analysis.package import require

        require("parquet", "format parquet")
    try:
        res = run_scenario(sc, cluster_of(args), progress=False if args.no_progress else None)
    except SweepInterrupted as exc:
        return _interrupted(exc)
    written: list = []
    prov = _scenario_provenance(sc)
    _to_stdout(
        lambda: written.extend(write_results(res, sc.output.format, out_dir, provenance=prov))
    )
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


def run_sweep(args) -> int:
    from analysis.output import write_table
    from analysis.workflow.scenario import load_scenario
    from analysis.workflow.sweep import SweepInterrupted, run_checks, sensitivity_plot
    from engines.errors import InputError

    sc = load_scenario(args.scenario)
    put_rules(sc.rule_sets())
    if sc.sweep is None:
        raise InputError(f"{Path(args.scenario).name}: no [sweep] section to run")
    _apply_overrides(sc, args)
    fmt = sc.output.format
    for flag, path in (
        ("-o", args.output),
        ("--sensitivity", args.sensitivity),
        ("--plot", args.plot),
        ("--interactions", args.interactions),
    ):
        _target_file(path, flag)
    if fmt == "parquet" and args.output in (None, "-"):
        raise InputError("format parquet needs an output file (-o FILE)")
    if fmt == "parquet" and args.sensitivity in ("-",):
        raise InputError("format parquet needs a file for --sensitivity")
    if fmt == "parquet":
        from analysis.package import require

        require("parquet", "format parquet")
    from analysis.workflow.fight_sweep import run_fight_sweep

    cluster = cluster_of(args)
    show = False if args.no_progress else None
    results = []
    try:
        if sc.sweep.variants or sc.sweep.axes:
            results.append(run_checks(sc, cluster, progress=show, announce=True))
        if sc.sweep.fights:
            results.append(run_fight_sweep(sc, cluster, progress=show, announce=True))
    except SweepInterrupted as exc:
        return _interrupted(exc)
    if len(results) == 1:
        table, sens = results[0].table, results[0].sensitivity
    else:  # checks and fights in one sweep: one table, blank where a column is not theirs
        import pandas as pd

        table = pd.concat([r.table for r in results], ignore_index=True)
        sens = pd.concat([r.sensitivity for r in results], ignore_index=True)
    prov = _scenario_provenance(sc)
    _write_table(table, args, fmt, prov)
    if args.sensitivity is not None:
        _to_stdout(write_table, sens, fmt, args.sensitivity, prov)
    if args.interactions is not None:
        import pandas as pd

        from analysis.workflow.interactions import result_interactions

        inter = pd.concat([result_interactions(r) for r in results], ignore_index=True)
        _to_stdout(write_table, inter, fmt, args.interactions, prov)
    if args.plot is not None:
        from analysis.workflow.interactions import result_interactions

        result = results[-1]
        sensitivity_plot(
            result.table,
            result.sensitivity,
            args.plot,
            result.metric,
            inter=result_interactions(result),
        )
    return 0


def _solver_variants(args):
    if not args.variant:
        return None
    from engines.errors import InputError

    if not args.system or len(args.system) != 1:
        raise InputError("--variant: give exactly one --system the variants belong to")
    from analysis.checks.curves import variants_for

    return {args.system[0]: variants_for(args.system[0], args.variant)}


def run_solve_difficulty(args) -> int:
    from analysis.workflow.solvers import solve_difficulty

    fmt = args.format or "csv"
    _target_file(args.output)
    competence = args.competence.strip()
    value: int | str = int(competence) if competence.lstrip("-").isdigit() else competence
    table = solve_difficulty(args.target, value, args.system, _solver_variants(args))
    _write_table(table, args, fmt, provenance_of(args))
    return 0


def run_solve_competence(args) -> int:
    from analysis.workflow.solvers import competence_table

    fmt = args.format or "csv"
    _target_file(args.output)
    table = competence_table(args.levels, args.system, _solver_variants(args))
    _write_table(table, args, fmt, provenance_of(args))
    return 0


def _with_sets(archetype: str, sets: list[str], flag: str):
    """An archetype name, or ``{"archetype": name, KEY: VALUE, ...}`` with --set-a/-b."""
    if not sets:
        return archetype
    from engines.errors import InputError

    spec: dict = {"archetype": archetype}
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise InputError(f"{flag}: expected KEY=VALUE, got {item!r}")
        value = value.strip()
        spec[key.strip()] = int(value) if value.lstrip("-").isdigit() else value
    return spec


def run_solve_lethality(args) -> int:
    """Lethality solver over the combat engines (see
    :func:`analysis.workflow.solvers.solve_lethality`)."""
    from analysis.combat import fights as reg
    from analysis.workflow.solvers import solve_lethality
    from engines.errors import InputError

    fmt = args.format or "csv"
    _target_file(args.output)
    if not math.isfinite(args.target):
        raise InputError(f"--target: expected a finite number, got {args.target}")
    if not math.isfinite(args.z) or args.z < 0:
        raise InputError(f"--z: expected a non-negative number, got {args.z}")
    from analysis.workflow.fight_sweep import parse_knob

    parse_knob(args.knob)
    metric = reg.check_metric(args.metric)
    reg.engine(args.system)  # a clear InputError when the combat engine is absent
    round_cap = args.round_cap
    variants = {}
    seed, exact, trials, se = STUDY_SEED, None, None, None
    if args.scenario is not None:
        if args.a is not None or args.b is not None or args.set_a or args.set_b:
            raise InputError("--a/--b: give either --scenario or --a and --b, not both")
        from analysis.workflow.scenario import load_scenario

        sc = load_scenario(args.scenario)
        put_rules(sc.rule_sets())
        _apply_overrides(sc, args)
        fights = [
            (i, f)
            for i, f in enumerate(sc.fights)
            if sc.check_system(f) == args.system
            and (args.fight is None or (f.name or f"fight{i}") == args.fight)
        ]
        if not fights:
            what = f"named {args.fight!r} " if args.fight else ""
            raise InputError(
                f"{Path(args.scenario).name}: no [[fights]] entry {what}for {args.system}"
            )
        fight = fights[0][1]
        a, b, variants = fight.a, fight.b, sc.check_variants(fight)
        round_cap = round_cap or fight.round_cap
        seed, trials, se = sc.seed, sc.precision.trials, sc.precision.se
        exact = None if sc.fight_exact(fight, default=trials is None and se is None) else False
    else:
        if args.a is None or args.b is None:
            raise InputError("--a and --b: both fighters are needed (or --scenario)")
        a, b = _with_sets(args.a, args.set_a, "--set-a"), _with_sets(args.b, args.set_b, "--set-b")
        seed = args.seed or STUDY_SEED
        trials, se = args.trials, args.se
        exact = False if (trials or se or args.method == "mc") else None
    if args.method == "exact":
        exact, trials, se = None, None, None
    if args.method == "mc" and trials is None and se is None:
        trials = 20_000
    if args.method == "both":
        raise InputError("--method: the solver uses exact or mc, not both")
    for item in args.variant:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise InputError(f"--variant: expected NAME=VALUE, got {item!r}")
        variants[name.strip()] = value.strip()
    values = args.range if args.range is not None else args.values
    res, table = solve_lethality(
        args.system,
        a,
        b,
        args.knob,
        values,
        args.target,
        metric,
        goal=args.goal,
        increasing=not args.decreasing,
        z=args.z,
        method="grid" if args.grid else None,
        exact=exact,
        trials=trials,
        se=se,
        seed=seed,
        variants=variants,
        round_cap=round_cap or ROUND_CAP,
    )
    _write_table(table, args, fmt, provenance_of(args))
    if res.found:
        exact_row = table.loc[table["chosen"], "method"].iloc[0] == "exact"
        spread = "(exact)" if exact_row else f"± {res.se:.4f}"
        print(f"{args.knob} = {res.knob}: {metric} = {res.estimate:.4f} {spread}", file=sys.stderr)
    else:
        values = list(values)
        print(
            f"no {args.knob} in {values[0]}..{values[-1]} meets {metric} {args.goal} {args.target}",
            file=sys.stderr,
        )
    return 0
