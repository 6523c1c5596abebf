"""``rpg-balance tune``: the smallest set of the allowed knob changes that makes every
guardrail of a file pass at once, and the trade-off front when none does.

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

__all__ = ["EPILOG", "budget_int", "cluster_of", "register", "run"]

#: the NSGA-II budget the command line takes (as the [tune] budget key)
budget_int = bounded_int(1, 100_000, "a number of trials")

EPILOG = """examples:
  rpg-balance tune scenarios/tune.toml                       # the default guardrails
  rpg-balance tune scenarios/tune.toml --format markdown --plot front.png
  rpg-balance tune scenarios/tune.toml --search --budget 64 --seed 3 --workers 2
  rpg-balance tune scenarios/tune.toml --scheduler tcp://10.0.0.5:8786 --search

The file's [tune] table names the knobs (TARGET:KNOB, as audit --set takes them) with
values = [...] or min/max/step, and an optional weight. Every [[guardrails]] entry is a
constraint. A space of at most 2000 candidates is enumerated whole (--exact forces it,
up to 20000); a larger one is searched by NSGA-II (--search forces it), --budget trials
seeded by --seed (default: the table's seed and budget), so the same seed gives the same
front on any number of workers.

Each row is one candidate of the front: each knob's value, changes (knobs moved),
distance (sum of weight x steps / (levels - 1)), worst_margin (the smallest distance of
a guardrail's value inside its limits, in units of the limits' width; a Monte Carlo
value at its 3 SE edge), feasible, failing, undecided, every guardrail's value (column
named by the guardrail; "<name> se" for a Monte Carlo one) and "<name> status" (the
audit's: pass | fail | undecided), and reproduce: the audit command of the candidate.
The reading and the run's figures (evaluations per second, the share of measurements
served from the cache) go to stderr.
Exit code 0 when a candidate passes every guardrail, 1 when none does, 2 on bad input.
"""


def register(sub) -> None:
    p = sub.add_parser(
        "tune",
        help="the smallest change that makes every guardrail pass",
        description="Search the knobs of the file's [tune] table for the "
        "smallest edit that makes every [[guardrails]] entry pass, measured "
        "as rpg-balance audit measures them.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help="a guardrail file with a [tune] table")
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--exact",
        dest="method",
        action="store_const",
        const="exact",
        help="enumerate every candidate (default when there are at most 2000)",
    )
    how.add_argument(
        "--search",
        dest="method",
        action="store_const",
        const="search",
        help="run the NSGA-II search (default past 2000 candidates)",
    )
    p.set_defaults(method="auto")
    p.add_argument(
        "--budget",
        type=budget_int,
        default=None,
        help="trials of the search (default: the [tune] budget, else 200)",
    )
    p.add_argument(
        "--seed",
        type=seed_int64,
        default=None,
        help=f"seed of the search (default: the [tune] seed, else {STUDY_SEED}); the "
        "guardrails' Monte Carlo keeps the file's seed, as audit does",
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


def cluster_of(args):
    """The Dask cluster of ``--workers`` / ``--scheduler`` (in process by default)."""
    from analysis.workflow.sweep import Cluster
    from cli.common import DEFAULT_WORKERS
    from engines.errors import InputError

    if args.scheduler is not None:
        text = args.scheduler.strip()
        if "://" not in text or text.endswith("://"):
            raise InputError(
                f"--scheduler: expected an address like tcp://host:8786, got {args.scheduler!r}"
            )
        return Cluster(workers=0, scheduler=text)
    return Cluster(workers=args.workers if args.workers is not None else DEFAULT_WORKERS)


def run(args) -> int:
    import sys

    from analysis.workflow import tune
    from cli.common import check_lang, check_outputs, write_output

    check_outputs(args)
    check_lang(args)
    if args.method == "search":
        from analysis.package import require

        require("tune", "rpg-balance tune --search")
    problem = tune.load_tune(args.file, seed=args.seed, budget=args.budget)
    result = tune.tune(
        problem,
        method=args.method,
        cluster=cluster_of(args),
        batch=args.batch,
        max_trials=args.max_trials,
        progress=args.progress,
    )
    s = result.stats
    provenance = {
        "system": ",".join(dict.fromkeys(str(r) for r in _systems(problem))) or "all",
        "variants": "per file",
        "method": result.method,
        "trials": int(max((m["trials"] for r in result.front for m in r["_measures"]), default=0)),
    }
    from analysis.rules import provenance as rules_in_force
    from cli.common import select_columns

    edited = rules_in_force(problem.scenario.rule_sets().values())
    if edited:
        provenance["rule_edits"] = edited
    select_columns(result.table, args, provenance)  # a bad --columns fails before writing
    if args.plot:
        tune.save_front_plot(result, args.plot)
    if args.lang == "en":
        write_output(result.table, args, provenance)
        said = str(result.reading)
    else:
        from cli.common import write_localised
        from reports.i18n import language, text

        chosen, prov = select_columns(result.table, args, provenance)
        write_localised(chosen, args.format, args.output, prov, args.lang)
        with language(args.lang):
            said = text(result.reading)
    print(said, file=sys.stderr)
    cmd = tune.command(result)
    if cmd:
        print(f"  {cmd}", file=sys.stderr)
    print(
        f"{s['evaluations']} evaluations of {s['candidates']} candidates "
        f"({s['method']}) in {s['seconds']:.2f} s: {s['evaluations_per_second']:.0f} "
        f"per second; {s['measured']} guardrail measurements, "
        f"{100 * s['cache_share']:.1f}% of {s['lookups']} served from the cache",
        file=sys.stderr,
    )
    return 0 if result.feasible else 1


def _systems(problem):
    from analysis.workflow.audit.measuring import guardrail_target

    sc = problem.scenario
    return [guardrail_target(sc, g).system for g in sc.guardrails]
