"""``rpg-balance report``: build the HTML (and PDF) report of the suite.

The default build (no options) is reproducible: fixed seed, fixed trial counts. Files are
written atomically once everything has been computed, so a failed or interrupted run
leaves the previous report as it was.
"""

from __future__ import annotations

import argparse
import math
import shlex
from pathlib import Path

from cli.common import MAX_TRIALS, number, seed_int, system_id, trials_int
from engines.constants import AFTERMATHS

__all__ = [
    "MIN_SE",
    "register",
    "run_report",
    "settings_from_args",
    "standard_error",
    "system_list",
]

#: The smallest ``--se``: the one whose trial count, ceil(0.25 / SE^2), is MAX_TRIALS.
MIN_SE = 0.5 / math.sqrt(MAX_TRIALS)


def standard_error(text: str) -> float:
    """A target standard error whose trial count stays within ``MAX_TRIALS``."""
    return number(
        text,
        float,
        lambda v: 0 < v < 0.5 and math.ceil(0.25 / v**2) <= MAX_TRIALS,
        "a standard error",
        f"a standard error from {MIN_SE:g} (10^10 trials) up to 0.5",
    )


def system_list(text: str) -> list[str]:
    """Comma-separated ids of installed systems (built-in or plug-in)."""
    return [system_id(s) for s in text.split(",") if s.strip()]


def register(sub) -> None:
    from reports.settings import DEFAULT_COMBAT_TRIALS, DEFAULT_OUT, DEFAULT_SEED, DEFAULT_TRIALS

    p = sub.add_parser(
        "report",
        help="build the HTML/PDF report (reports/out/)",
        description="Build a self-contained HTML report (and its PDF) of every system: "
        "success curves, Monte Carlo agreement, outcome spread, assumptions, provenance, "
        "and the opposed/modifier/ladder/combat sections when their modules are present.",
        epilog="examples:\n  rpg-balance report\n"
        "  rpg-balance report --systems dice_pool_7,percentile --trials 20000 --no-pdf\n"
        "  rpg-balance report --se 0.0005 --out /tmp/report\n"
        "  rpg-balance report --lang pt-BR\n"
        "  rpg-balance report --cross-combat my_cross.toml   # a plug-in's fighters too\n"
        "  rpg-balance report --rules my_rules.toml   # a designer's rule tables (named on "
        "the first page)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--systems",
        type=system_list,
        action="extend",
        default=None,
        metavar="IDS",
        help="comma-separated system ids (default: every installed "
        "system; rpg-balance systems lists them)",
    )
    prec = p.add_mutually_exclusive_group()
    prec.add_argument(
        "--trials",
        type=trials_int,
        default=None,
        help=f"Monte Carlo trials per roll setting (default {DEFAULT_TRIALS})",
    )
    prec.add_argument(
        "--se",
        type=standard_error,
        default=None,
        metavar="SE",
        help="target standard error of each Monte Carlo proportion "
        "(sets trials = ceil(0.25 / SE^2))",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=DEFAULT_SEED,
        help=f"random seed (default {DEFAULT_SEED}: the default report is reproducible)",
    )
    p.add_argument(
        "--combat-trials",
        type=trials_int,
        default=DEFAULT_COMBAT_TRIALS,
        help=f"Monte Carlo fights per group fight (and per duel without "
        f"an exact solver) in the combat sections (default "
        f"{DEFAULT_COMBAT_TRIALS})",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="SYSTEM:NAME=VALUE",
        help="a check or combat rule variant of one system (repeatable; reaches every "
        "section that uses it), e.g. dice_pool_7:weapon_bonus=damage or "
        "dice_pool_7:again=9",
    )
    p.add_argument(
        "--aftermath",
        choices=AFTERMATHS,
        default="leave",
        help="what happens to the fallen when a fight ends, in every combat "
        "section (the combat variant aftermath of every system): leave, "
        "first_aid or finish (default leave)",
    )
    p.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="report language: en (default) or pt-BR (Brazilian Portuguese: "
        "text, figures and number style; CSV downloads stay machine-readable)",
    )
    p.add_argument(
        "-o",
        "--output",
        "--out",
        dest="output",
        default=str(DEFAULT_OUT),
        metavar="DIR",
        help=f"output folder (default {DEFAULT_OUT}; --out is the older spelling)",
    )
    p.add_argument(
        "--guardrails",
        default=None,
        metavar="FILE",
        help="the guardrail file of Key findings (default: the shipped "
        "analysis/data/guardrails.toml); with a [tune] table the report adds a "
        "Tune page after Key findings (rpg-balance tune)",
    )
    p.add_argument(
        "--cross-combat",
        default=None,
        metavar="FILE",
        help="the cross-combat mapping of the combat sections and of the key "
        "findings' ladder fighters, e.g. one that maps a plug-in's (default: the "
        "--guardrails file's cross_combat key, else the packaged "
        "analysis/data/cross_combat.toml)",
    )
    p.add_argument("--no-pdf", action="store_true", help="write the HTML only")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument(
        "--warm-up",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="first compile every numba kernel in parallel worker processes, "
        "as rpg-balance warm-up does (a no-op when the cache is warm; default "
        "on: a cold cache otherwise compiles the kernels one by one)",
    )
    p.set_defaults(func=run_report)


def settings_from_args(args):
    """The :class:`reports.settings.ReportSettings` of parsed arguments (validated)."""
    from analysis.checks.curves import variants_for
    from engines.errors import InputError
    from engines.system import get
    from reports.i18n import check_language
    from reports.settings import DEFAULT_TRIALS, ReportSettings, system_ids, trials_for_se

    check_language(args.lang)
    ALL = system_ids()
    trials = args.trials or (trials_for_se(args.se) if args.se else DEFAULT_TRIALS)
    variants = []
    for text in args.variant:
        system, sep, rest = text.partition(":")
        if not sep or system not in ALL:
            raise InputError(
                f"--variant {text!r}: expected SYSTEM:NAME=VALUE with SYSTEM "
                f"one of {', '.join(ALL)}"
            )
        variants.append((system, rest))
    systems = tuple(dict.fromkeys(args.systems)) if args.systems else ALL
    for system in ALL:  # validate early: a bad variant fails before any work
        given = [v for s, v in variants if s == system]
        try:
            checks = given
            if get(system).combat is not None:
                from analysis.combat.archetypes import split_variants
                from analysis.combat.archetypes import variants as combat_variants

                checks, combat = split_variants(system, given)
                combat_variants(system, combat)
            variants_for(system, checks)
        except InputError as exc:
            raise InputError(f"--variant {system}: {exc}") from None
    cmd = ["rpg-balance", "report"]
    if args.systems:
        cmd += ["--systems", ",".join(systems)]
    cmd += [
        "--trials",
        str(trials),
        "--seed",
        str(args.seed),
        "--combat-trials",
        str(args.combat_trials),
    ]
    for system, text in variants:
        cmd += ["--variant", f"{system}:{text}"]
    if args.aftermath != "leave":
        cmd += ["--aftermath", args.aftermath]
    if args.lang != "en":
        cmd += ["--lang", args.lang]
    for path in getattr(args, "rules", None) or ():
        cmd += ["--rules", path]
    from analysis.rules import in_force

    rules = tuple(rs for rs in in_force().values() if rs)  # --rules (cli.main puts them)
    guardrails = cross = None
    if args.guardrails is not None:
        from analysis.workflow.audit import load_guardrails

        # a bad file (or a bad cross_combat mapping it names) fails in one line before
        # any work
        cross = load_guardrails([args.guardrails])[0].cross_combat_file()
        guardrails = Path(args.guardrails)
        cmd += ["--guardrails", args.guardrails]
    if args.cross_combat is not None:
        cross = Path(args.cross_combat)
        cmd += ["--cross-combat", args.cross_combat]
    if cross is not None:
        from reports.sections.combat_common import check_cross

        try:
            check_cross(cross)
        except InputError as exc:
            where = (
                "--cross-combat"
                if args.cross_combat is not None
                else f"{guardrails.name}: cross_combat"
            )
            raise InputError(f"{where}: {exc}") from None
    default_cmd = (
        not args.systems
        and not args.variant
        and trials == DEFAULT_TRIALS
        and guardrails is None
        and cross is None
        and args.aftermath == "leave"
        and args.lang == "en"
        and args.seed == ReportSettings.seed
        and args.combat_trials == ReportSettings.combat_trials
        and not rules
        and not getattr(args, "rules", None)
    )
    command = (
        "python3 tasks.py report   (= " + shlex.join(cmd) + ")" if default_cmd else shlex.join(cmd)
    )
    return ReportSettings(
        systems=systems,
        trials=trials,
        seed=args.seed,
        out=args.output,
        pdf=not args.no_pdf,
        variants=tuple(variants),
        combat_trials=args.combat_trials,
        progress=not args.quiet,
        command=command,
        aftermath=args.aftermath,
        lang=args.lang,
        guardrails=guardrails,
        cross_combat=cross,
        rules=rules,
        rule_files=tuple(getattr(args, "rules", None) or ()),
    )


def run_report(args) -> int:
    import sys

    from analysis.output import check_folder
    from reports.build import write_report

    settings = settings_from_args(args)
    check_folder(settings.out, "-o/--output")
    if settings.pdf:
        from analysis.package import require

        require("pdf", "rpg-balance report's PDF (--no-pdf writes the HTML only)")
    if args.warm_up:
        _warm_up(quiet=args.quiet)
    result = write_report(settings)
    size = result.html.stat().st_size / 1e6
    msg = f"wrote {result.html} ({size:.1f} MB)"
    if result.pdf is not None:
        msg += f" and {result.pdf} ({result.pdf.stat().st_size / 1e6:.1f} MB)"
    print(f"{msg} in {result.seconds:.1f} s", file=sys.stderr)
    return 0


def _warm_up(quiet: bool) -> None:
    """:func:`analysis.warmup.warm_up` (every kernel group, two worker processes, its
    progress bar on stderr unless ``quiet``) before the report's first kernel call; what
    it compiled and skipped on stderr (:func:`cli.warmup.warm_up_and_say`)."""
    from cli.warmup import warm_up_and_say

    warm_up_and_say(quiet=quiet, say_warm=False)
