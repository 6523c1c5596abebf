"""``rpg-balance sensitivity``: which knobs of a guardrail file's ``[tune]`` table move
each guardrail's figure most (Sobol' indices, exact on small grids; Morris screening).

Only :mod:`argparse` at import time; the engines load inside the command.
"""

from __future__ import annotations

import argparse

from cli.common import (
    add_lang,
    add_output,
    bounded_int,
    seed_int64,
    trials_int,
    workers_int,
)
from engines.constants import STUDY_SEED

__all__ = ["EPILOG", "register", "run", "samples_int"]

#: the base sample size the command line takes
samples_int = bounded_int(1, 1 << 16, "a sample size")

EPILOG = """examples:
  rpg-balance sensitivity scenarios/tune_rules.toml                # exact where it can
  rpg-balance sensitivity scenarios/tune_rules.toml --plot sens.png --format markdown
  rpg-balance sensitivity FILE --method sobol --samples 256 --second-order
  rpg-balance sensitivity FILE --method morris --samples 20      # screen many knobs

The knobs and their ranges are the file's [tune] table (TARGET:KNOB with values = [...]
or min/max/step, as tune takes them); each knob is uniform over its levels. For every
guardrail, each knob's first-order index S1 (the share of the figure's variance it
explains alone) and total index ST (alone and with every other knob), each with a 95 %
interval (S1_conf, ST_conf: the half-width). A knob that does not touch a guardrail's
fights or checks gets 0 and is not sampled. Methods: exact (every level combination
of the touching knobs measured, the variance decomposition itself; the default when
there are at most 4096), sobol (SALib's Saltelli/Sobol' sampling, --samples N base
points, a power of two, N*(k+2) evaluations, bootstrap intervals) and morris (SALib's
Morris screening: mu_star, mu_star_conf, sigma; --samples trajectories). Every figure is
measured as rpg-balance audit measures it (exact duels and checks add no noise; a Monte
Carlo figure's SE widens the interval). The reading, one sentence per guardrail, goes
to stderr. Exit code 0, 2 on bad input.
"""


def register(sub) -> None:
    p = sub.add_parser(
        "sensitivity",
        help="which knobs move each guardrail most (Sobol')",
        description="Rank the knobs of the file's [tune] table by how much "
        "of each guardrail's figure they explain: Sobol' first-order and "
        "total indices (exact on small grids, SALib sampling otherwise) or "
        "Morris screening.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="a guardrail file with a [tune] table")
    p.add_argument(
        "--knobs",
        default=None,
        metavar="KNOBS",
        help="a file holding only a [tune] table, used instead of FILE's own "
        "(e.g. analysis/data/sensitivity.toml, the default report's knobs)",
    )
    p.add_argument(
        "--method",
        default="auto",
        metavar="METHOD",
        help="auto (default: exact when a guardrail's knobs have at most 4096 "
        "level combinations, else sobol) | exact | sobol | morris",
    )
    p.add_argument(
        "--samples",
        type=samples_int,
        default=None,
        help="sobol: base sample N, a power of two (default 64); morris: trajectories (default 20)",
    )
    p.add_argument(
        "--second-order",
        action="store_true",
        help="sobol: also the second-order indices of each pair of knobs "
        "(a second table, to stderr as markdown or --pairs FILE)",
    )
    p.add_argument(
        "--pairs", default=None, metavar="FILE", help="write the second-order table to FILE (csv)"
    )
    p.add_argument(
        "--resamples",
        type=bounded_int(10, 10_000, "a number of resamples"),
        default=100,
        help="bootstrap resamples of the intervals (default 100)",
    )
    p.add_argument(
        "--seed",
        type=seed_int64,
        default=STUDY_SEED,
        help=f"seed of the sample and the bootstrap (default {STUDY_SEED}); the "
        "guardrails' "
        "Monte Carlo keeps the file's seed, as audit does",
    )
    p.add_argument(
        "--batch",
        type=trials_int,
        default=2_000,
        help="first Monte Carlo batch of a guardrail (as audit; default 2000)",
    )
    p.add_argument(
        "--max-trials",
        type=trials_int,
        default=200_000,
        help="Monte Carlo cap per guardrail (as audit; default 200000)",
    )
    p.add_argument(
        "--workers",
        type=workers_int,
        default=None,
        help="local Dask worker processes (default 0: in this process)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="join an existing Dask scheduler, e.g. tcp://host:8786",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when it is a terminal)",
    )
    add_output(p, plot=True)
    add_lang(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import sys

    from analysis.output import check_target
    from analysis.workflow import sensitivity as sens
    from cli.common import check_lang, check_outputs, select_columns, write_output
    from cli.tune import cluster_of

    check_outputs(args)
    check_lang(args)
    if args.pairs is not None:
        check_target(args.pairs, "--pairs")
    method = args.method.strip().lower()
    samples = args.samples if args.samples is not None else (20 if method == "morris" else 64)
    problem = sens.load_problem(args.file, args.knobs)
    result = sens.sensitivity(
        problem,
        method=method,
        samples=samples,
        seed=args.seed,
        second_order=args.second_order,
        resamples=args.resamples,
        cluster=cluster_of(args),
        batch=args.batch,
        max_trials=args.max_trials,
        progress=args.progress,
    )
    from analysis.rules import provenance as rules_in_force

    provenance = {"variants": "per file", "trials": result.stats["trials"]}
    edited = rules_in_force(problem.scenario.rule_sets().values())
    if edited:
        provenance["rule_edits"] = edited
    select_columns(result.table, args, provenance)  # a bad --columns fails first
    if args.plot:
        sens.save_sensitivity_plot(result, args.plot)
    if args.pairs is not None and result.pairs is not None:
        from analysis.output import write_table

        write_table(result.pairs, "csv", args.pairs, None)
    if args.lang == "en":
        write_output(result.table, args, provenance)
        said = [str(r) for r in result.readings]
    else:
        from cli.common import write_localised
        from reports.i18n import language, text

        chosen, prov = select_columns(result.table, args, provenance)
        write_localised(chosen, args.format, args.output, prov, args.lang)
        with language(args.lang):
            said = [text(r) for r in result.readings]
    for line in said:
        print(line, file=sys.stderr)
    print(f"  {sens.command(problem, method, samples, args.seed, args.knobs)}", file=sys.stderr)
    s = result.stats
    print(
        f"{s['measured']} guardrail measurements in {s['seconds']:.2f} s "
        f"({result.method}); {100 * s['cache_share']:.1f}% of {s['lookups']} served "
        f"from the cache",
        file=sys.stderr,
    )
    return 0
