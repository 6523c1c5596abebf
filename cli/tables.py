"""``rpg-balance ladder``, ``rpg-balance modifiers`` and ``rpg-balance claim-c7``.

Cross-system and modifier tables (exact, no Monte Carlo), in the same style as
:mod:`cli.checks`: ``--format``, ``-o FILE`` (written atomically), and
``--plot FILE`` for the matching figure (PNG, SVG or PDF by the file's extension).
"""

from __future__ import annotations

from cli.common import (
    add_output,
    check_outputs,
    number,
    provenance_of,
    system_id,
    write_output,
)

__all__ = ["non_negative_float", "register", "run_claim_c7", "run_ladder", "run_modifiers"]


def non_negative_float(text: str) -> float:
    return number(text, float, lambda v: v >= 0, "a number", "a number of 0 or more")


def _system_or_all(text: str) -> str:
    return "all" if text.strip() == "all" else system_id(text)


def register(sub) -> None:
    p = sub.add_parser(
        "ladder",
        help="cross-system table on the common ladders",
        description="P(success) for each system × competence × difficulty on "
        "the common ladders (analysis/data/ladders.toml, or --ladders FILE), "
        "or swinginess, upsets, or the anchor check.",
        epilog="example: rpg-balance ladder --table swinginess --format markdown",
    )
    p.add_argument(
        "--ladders",
        default=None,
        metavar="FILE",
        help="an edited ladder file (default: the packaged ladders.toml)",
    )
    p.add_argument(
        "--table",
        choices=("cells", "swinginess", "upsets", "anchor"),
        default="cells",
        help="which table (default cells)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="SYSTEM:NAME=VALUE",
        help="a check rule variant of one system (repeatable), e.g. "
        "dice_pool_7:again=9; systems not named keep their defaults (the "
        "anchor table is always the defaults')",
    )
    add_output(p, plot=True)
    p.set_defaults(func=run_ladder)

    p = sub.add_parser(
        "modifiers",
        help="what each modifier is worth, in percentage points",
        description="Change in P(success) that each modifier brings, on each "
        "system's native grid (exact).",
        epilog="example: rpg-balance modifiers percentile --summary",
    )
    p.add_argument(
        "system",
        nargs="?",
        type=_system_or_all,
        metavar="SYSTEM",
        default="all",
        help="a system id (rpg-balance systems lists them) or all (default)",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule variant (repeatable; needs a single system)",
    )
    p.add_argument(
        "--summary",
        action="store_true",
        help="one row per modifier: mean, min and max over live cells",
    )
    add_output(p, plot=True)
    p.set_defaults(func=run_modifiers)

    p = sub.add_parser(
        "claim-c7",
        help="verdict on claim C7 (−1 difficulty ≡ +2 dice)",
        description="dice_pool_6 claim C7 over pools 1–20 and difficulties "
        "2–10: with no --variant, under the defaults and criticals=false.",
        epilog="example: rpg-balance claim-c7 --summary",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a dice_pool_6 rule variant (repeatable)",
    )
    p.add_argument(
        "--tolerance",
        type=non_negative_float,
        default=3.0,
        metavar="PP",
        help="|delta| in percentage points within which the claim holds (3)",
    )
    p.add_argument(
        "--summary",
        action="store_true",
        help="print the plain-language verdict instead of the table",
    )
    add_output(p, plot=True)
    p.set_defaults(func=run_claim_c7)


def _save_plot(fig, path: str) -> None:
    from analysis.output import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.rsplit(".", 1)[-1].lower(), dpi=150)


def run_ladder(args) -> int:
    from analysis.checks.curves import variants_for
    from analysis.checks.ladders import (
        anchor_report,
        ladder_table,
        load_ladders,
        swinginess,
        upset_table,
    )
    from cli.common import system_variants
    from engines.errors import InputError

    check_outputs(args)
    given = system_variants(args.variant)
    for system, items in given.items():  # validate before any work
        try:
            variants_for(system, items)
        except InputError as exc:
            raise InputError(f"--variant {system}: {exc}") from None
    if given and args.table == "anchor":
        raise InputError(
            "--variant: the anchor table checks the packaged defaults; use "
            "--table cells, swinginess or upsets"
        )
    lad = load_ladders(args.ladders)
    cells = ladder_table(lad, given)
    import sys

    from analysis.checks.ladders import left_out

    for note in left_out(lad):
        print(f"note: {note}", file=sys.stderr)
    table = {
        "cells": lambda: cells,
        "swinginess": lambda: swinginess(lad, given),
        "upsets": lambda: upset_table(lad, given),
        "anchor": lambda: anchor_report(lad),
    }[args.table]()
    if args.plot:
        from analysis.checks.plots import ladder_plot

        _save_plot(ladder_plot(cells), args.plot)
    write_output(table, args, provenance_of(args))
    return 0


def run_modifiers(args) -> int:
    from analysis.checks.modifiers import modifier_summary, modifier_table, modifier_values
    from engines.errors import InputError

    check_outputs(args)
    if args.system == "all":
        if args.variant:
            raise InputError(
                "--variant needs a single system (e.g. rpg-balance modifiers "
                "percentile --variant criticals=false)"
            )
        table = modifier_table()
    else:
        table = modifier_values(args.system, args.variant)
    if args.plot:
        from analysis.checks.plots import modifier_plot

        _save_plot(modifier_plot(table), args.plot)
    write_output(modifier_summary(table) if args.summary else table, args, provenance_of(args))
    return 0


def run_claim_c7(args) -> int:
    import sys

    from analysis.checks.claims import claim_c7, claim_system
    from analysis.output import atomic_path

    check_outputs(args)
    sets = [args.variant] if args.variant else [None, ["criticals=false"]]
    table, sentences = claim_c7(sets, tolerance=args.tolerance)
    if args.plot:
        from analysis.checks.plots import c7_heatmap

        _save_plot(c7_heatmap(table), args.plot)
    if args.summary:
        text = "\n".join(sentences) + "\n"
        if args.output is None or args.output == "-":
            sys.stdout.write(text)
        else:
            with atomic_path(args.output) as tmp:
                tmp.write_text(text)
        return 0
    write_output(table, args, provenance_of(args, system=claim_system("C7")))
    return 0
