"""``rpg-balance curves`` and ``rpg-balance opposed``: single-check tables."""

from __future__ import annotations

import argparse

from cli.common import (
    add_output,
    add_rule_set,
    check_outputs,
    provenance_of,
    seed_int,
    system_id,
    trials_int,
    write_output,
)

__all__ = ["add_common", "register", "run_curves", "run_opposed", "seed_int", "trials_int"]


def add_common(p: argparse.ArgumentParser, *, method: bool = True) -> None:
    """Options shared by every table command."""
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule variant (repeatable); see RULES ids in the docs",
    )
    if method:
        p.add_argument(
            "--method",
            choices=("exact", "mc", "both"),
            default="exact",
            help="exact model, Monte Carlo, or both side by side (default exact)",
        )
    p.add_argument(
        "--trials",
        type=trials_int,
        default=200_000,
        help="Monte Carlo trials per roll setting (default 200000)",
    )
    p.add_argument("--seed", type=seed_int, default=None, help="random seed (default: fresh)")
    add_output(p)


def register(sub) -> None:
    p = sub.add_parser(
        "curves",
        help="success-curve table of one system",
        description="Success-curve table on the system's native axes.",
        epilog="example: rpg-balance curves dice_pool_7 --variant again=8 "
        "--method both --seed 1 --summary",
    )
    p.add_argument(
        "system",
        type=system_id,
        metavar="SYSTEM",
        help="a system id (rpg-balance systems lists them)",
    )
    add_common(p)
    add_rule_set(p)
    p.add_argument(
        "--summary",
        action="store_true",
        help="with --method both: one row on how the Monte Carlo cells agree "
        "with the exact ones (max and mean |z|, cells beyond 3 SE, ...)",
    )
    p.set_defaults(func=run_curves)

    p = sub.add_parser(
        "opposed",
        help="opposed-check table of one system",
        description="P(attacker wins) over both sides' levels, ties by the system's rules.",
        epilog="example: rpg-balance opposed middle_3d10 --format markdown",
    )
    p.add_argument(
        "system",
        type=system_id,
        metavar="SYSTEM",
        help="a system id (rpg-balance systems lists them)",
    )
    add_common(p)
    p.set_defaults(func=run_opposed)


def run_curves(args) -> int:
    from analysis.checks.curves import agreement, success_curves
    from engines.errors import InputError

    if args.summary and args.method != "both":
        raise InputError(
            "--summary: needs --method both (it compares the Monte Carlo cells with the exact ones)"
        )
    check_outputs(args)
    # Monte Carlo runs longer than about a second show a tqdm bar on stderr (a terminal)
    table = success_curves(
        args.system,
        args.method,
        trials=args.trials,
        seed=args.seed,
        variants=args.variant,
        progress=None,
    )
    if args.summary:
        table = agreement(table, args.trials, args.variant)
    write_output(table, args, provenance_of(args))
    return 0


def run_opposed(args) -> int:
    from analysis.checks.opposed import opposed_table
    from cli.common import require_part

    check_outputs(args)
    require_part(args.system, "opposed", "opposed table")
    table = opposed_table(
        args.system,
        args.method,
        trials=args.trials,
        seed=args.seed,
        variants=args.variant,
        progress=None,
    )
    write_output(table, args, provenance_of(args))
    return 0
