"""``rpg-balance audit``: guardrails checked, failures with their one-knob cure, and
findings discovered without a guardrail (``--discover``).

Only :mod:`argparse` at import time; the engines load inside the command.
"""

from __future__ import annotations

import argparse

from cli.common import add_lang, add_output, number, seed_int64, trials_int

__all__ = ["EPILOG", "probability_floor", "register", "run"]


def probability_floor(text: str) -> float:
    return number(text, float, lambda v: 0 <= v < 1, "a number from 0 to below 1")


EPILOG = """examples:
  rpg-balance audit                                  # the shipped default guardrails
  rpg-balance audit scenarios/my_guardrails.toml --format markdown --junit audit.xml
  rpg-balance audit --discover --format markdown     # findings without a guardrail
  rpg-balance audit --discover --cross-combat my_cross.toml   # a plug-in's fighters too
  rpg-balance audit --format markdown --lang pt-BR   # in Brazilian Portuguese
  rpg-balance audit --set even_duel_middle_3d10:both.vigor=8   # a cure applied

Each row: guardrail, system, metric, value, se, min, max, status (pass | fail |
undecided); for a failure, suggestion: up to three one-knob edits that make it pass
without changing the question (a check's task and a fight's fighters and gear are held),
the best with its side effects on the other guardrails, and cure: the audit command with
the best edit applied (--set); reproduce: the rpg-balance command whose output prints
the value. --discover rows carry
the same column (two commands joined by " ; " for a comparison); an effect below the
noise floor (--min-effect) is not a finding.
Exit code 0 when every guardrail passes, 1 when any fails, 2 on bad input.
"""


def register(sub) -> None:
    p = sub.add_parser(
        "audit",
        help="check balance guardrails; --discover finds problems",
        description="Evaluate every [[guardrails]] entry of the files "
        "(default: analysis/data/guardrails.toml): exact where the engines "
        "solve it, else Monte Carlo with doubling batches until decided at "
        "3 SE or --max-trials.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="scenario files with [[guardrails]] (default: the shipped guardrails)",
    )
    p.add_argument(
        "--discover",
        action="store_true",
        help="report findings without a guardrail (dominated weapons, one-hit "
        "fights, gap variants ranked) instead",
    )
    p.add_argument(
        "--cross-combat",
        default=None,
        metavar="FILE",
        help="with --discover: the cross-combat mapping whose ladder fighters "
        "every finding is measured on, e.g. one that maps a plug-in's "
        "(default: the cross_combat key of the files, else the packaged "
        "analysis/data/cross_combat.toml)",
    )
    p.add_argument(
        "--min-effect",
        type=probability_floor,
        default=None,
        metavar="P",
        help="with --discover: the noise floor, the smallest change of a "
        "probability that is a finding (default 0.01, or the [discover] "
        "min_effect key; mean rounds have their own floor, min_effect_rounds, "
        "default 0.1)",
    )
    p.add_argument(
        "--junit",
        default=None,
        metavar="FILE",
        help="also write JUnit XML (one testcase per guardrail)",
    )
    p.add_argument(
        "--seed", type=seed_int64, default=None, help="Monte Carlo seed (default: each file's seed)"
    )
    p.add_argument(
        "--batch",
        type=trials_int,
        default=2_000,
        help="first Monte Carlo batch; each next batch doubles (default 2000)",
    )
    p.add_argument(
        "--max-trials",
        type=trials_int,
        default=200_000,
        help="Monte Carlo cap per guardrail; past it the status is undecided",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TARGET:KNOB=VALUE",
        dest="edits",
        help="audit with one edit applied (repeatable; every cure prints its own): "
        "TARGET is a system id (a rule edit of all its fights and checks: "
        "dice_pool_6:variant.again=8) or a [[fights]]/[[checks]] entry name "
        "(even_duel_middle_3d10:both.vigor=8, expert_hard_percentile:skill=90)",
    )
    p.add_argument(
        "--no-suggest", action="store_true", help="skip the search for a cure of failed guardrails"
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when it is a terminal)",
    )
    add_output(p)
    add_lang(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from analysis.output import check_target
    from analysis.workflow import audit
    from cli.common import check_lang, check_outputs, select_columns, write_localised
    from engines.errors import InputError

    check_outputs(args)
    check_lang(args)
    if args.min_effect is not None and not args.discover:
        raise InputError("--min-effect: only with --discover (a guardrail sets its own limits)")
    if args.cross_combat is not None and not args.discover:
        raise InputError(
            "--cross-combat: only with --discover (a guardrail names its own fighters)"
        )
    from analysis.workflow.audit.edits import parse as parse_edit

    edits = [parse_edit(x) for x in args.edits]
    if edits and args.discover:
        raise InputError("--set: only for guardrails, not with --discover")
    if args.junit is not None:
        if args.discover:
            raise InputError("--junit: only for guardrails, not with --discover")
        check_target(args.junit, "--junit")
    if args.discover:
        from analysis.workflow.scenario import load_scenario

        cfg: dict = {}
        cross = None  # the last file's cross_combat key, unless --cross-combat
        for path in args.files or [audit.DATA]:
            sc = load_scenario(path)
            cfg.update(sc.discover)
            cross = sc.cross_combat_file() or cross
        if args.cross_combat is not None:
            from analysis.combat.cross_combat import load_cross

            try:
                load_cross(args.cross_combat)
            except InputError as exc:
                raise InputError(f"--cross-combat: {exc}") from None
            cross = args.cross_combat
        if args.min_effect is not None:
            cfg["min_effect"] = args.min_effect
        unknown = sorted(set(cfg) - set(audit.DEFAULT_DISCOVER))
        if unknown:
            import difflib

            close = difflib.get_close_matches(unknown[0], audit.DEFAULT_DISCOVER, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise InputError(
                f"discover.{unknown[0]}: unknown threshold{hint}; known: "
                f"{', '.join(audit.DEFAULT_DISCOVER)}"
            )
        table = audit.discover(cfg, progress=args.progress, cross=cross)
        import sys

        for note in table.attrs.get("notes", []):
            print(f"note: {note}", file=sys.stderr)
        failed = False
    else:
        scenarios = audit.load_guardrails(args.files)
        table = audit.evaluate(
            scenarios,
            seed=args.seed,
            batch=args.batch,
            max_trials=args.max_trials,
            suggestions=not args.no_suggest,
            progress=args.progress,
            edits=edits,
            files=args.files or None,
        )
        failed = bool((table["status"] == "fail").any())
    full = table
    if args.discover:
        provenance = {"system": "all", "variants": "defaults", "method": "exact", "trials": 0}
    else:
        provenance = {
            "system": "all",
            "variants": "per file",
            "method": "+".join(sorted(set(full["solved"]))) or "exact",
            "trials": int(full["trials"].max()) if len(full) else 0,
        }
    from analysis.rules import provenance as rules_in_force

    files_rules = (
        [] if args.discover else [rs for sc in scenarios for rs in sc.rule_sets().values()]
    )
    edited = rules_in_force(files_rules)
    if edited:
        provenance["rule_edits"] = edited
    table, provenance = select_columns(table, args, provenance)
    if args.junit is not None:
        from analysis.output import atomic_path

        with atomic_path(args.junit, "--junit") as tmp:
            tmp.write_text(audit.junit_xml(full))
    write_localised(
        table,
        args.format,
        args.output,
        provenance,
        args.lang,
        prose=("suggestion", "reason", "detail"),
        words=("status", "solved", "severity"),
    )
    return 1 if failed else 0
