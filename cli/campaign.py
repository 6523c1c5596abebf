"""``rpg-balance campaign SYSTEM MECHANIC [options]``: a character over many sessions.

The mechanic's own options (``--skill 40 --uses 1``, ``--morality 7 --infraction 5``, …)
are built from its description (the ``MECHANICS`` of the module its ``System.campaign`` names, each
parameter with its rule id), so the command first reads SYSTEM and MECHANIC and then
parses the rest with the mechanic's own parser: ``rpg-balance campaign percentile
skill-growth --help`` lists them. Only :mod:`argparse` at import time.
"""

from __future__ import annotations

import argparse

from .common import (
    add_lang,
    add_output,
    number,
    seed_int,
    sessions_int,
    system_id,
    trials_int,
)

__all__ = ["EPILOG", "mechanic_parser", "register", "run_campaign"]

EPILOG = """mechanics: each system's are in the mechanics column of rpg-balance systems
(an unknown MECHANIC also lists them); each mechanic's options: rpg-balance campaign
SYSTEM MECHANIC --help

examples:
  rpg-balance campaign percentile skill-growth --skill 40 --uses 1 --sessions 20
  rpg-balance campaign dice_pool_7 morality --morality 7 --infraction 5 --sessions 20
  rpg-balance campaign percentile skill-growth --sessions 60 --table passage --threshold 75
  rpg-balance campaign middle_3d10 arcane --uses 2 --method both --trials 20000 --seed 1
  rpg-balance campaign percentile skill-growth --skill 40 --sessions 30 \\
      --solve uses --reach 75
  rpg-balance campaign dice_pool_7 morality --format markdown --lang pt-BR
  rpg-balance campaign dice_pool_7 attrition --fights 5
"""


class _MechanicParser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit code 2 (InputError in analysis.cli)
        from engines.errors import InputError

        raise InputError(f"{self.prog}: {message}")


def register(sub) -> None:
    p = sub.add_parser(
        "campaign",
        help="a campaign mechanic over sessions (fan chart)",
        description="How a campaign mechanic (Morality, arcane degeneration, "
        "skill growth, Luck, Hunger, hero points …) moves a character's state "
        "over N sessions: summary quantiles, the full distribution, or the "
        "first session it reaches a threshold; exact Markov chain, Monte "
        "Carlo, or both.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("system", type=system_id, metavar="SYSTEM")
    p.add_argument("mechanic", help="the mechanic (see below)")
    p.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="...",
        help="the mechanic's options and the output options (see "
        "rpg-balance campaign SYSTEM MECHANIC --help)",
    )
    p.set_defaults(func=run_campaign)


def _int(text: str) -> int:
    return number(text, int, lambda v: True, "an integer")


def mechanic_parser(mech) -> argparse.ArgumentParser:
    """The options of one mechanic: its parameters (from ``mech.params``), then the
    table, method and output options."""
    p = _MechanicParser(
        prog=f"rpg-balance campaign {mech.system} {mech.name}",
        allow_abbrev=False,
        description=f"{mech.help} (rules {mech.rules}). State: {mech.state}.".replace("%", "%%"),
        epilog=f"example: rpg-balance campaign {mech.system} {mech.name} "
        "--sessions 20 --method both --seed 1",
    )
    g = p.add_argument_group(f"{mech.name} parameters")
    for q in mech.params:
        rng = f", {q.range[0]}..{q.range[1]}" if q.range else ""
        # argparse formats help with %: a literal % in a mechanic's text is doubled
        text = f"{q.help} [{q.rule}] (default {q.default}{rng})".replace("%", "%%")
        if q.type is bool:
            g.add_argument(
                q.flag,
                dest=q.name,
                action=argparse.BooleanOptionalAction,
                default=q.default,
                help=text,
            )
        elif q.type is str:
            g.add_argument(q.flag, dest=q.name, choices=q.choices, default=q.default, help=text)
        else:
            g.add_argument(
                q.flag, dest=q.name, type=_int, default=q.default, metavar="N", help=text
            )
    if mech.combatants:  # attrition: one session is one fight
        p.add_argument(
            "--fights",
            "--sessions",
            dest="sessions",
            type=sessions_int,
            default=5,
            metavar="K",
            help="consecutive fights to follow (one session = one fight; default 5)",
        )
    else:
        p.add_argument(
            "--sessions", type=sessions_int, default=20, help="sessions to follow (default 20)"
        )
    side = "≤" if mech.direction == "down" else "≥"
    default = (
        f"default {mech.threshold_default}" if mech.threshold_default is not None else "no default"
    )
    p.add_argument(
        "--threshold",
        type=_int,
        default=None,
        metavar="X",
        help=f"{mech.threshold_help} ({mech.state} {side} X; {default}); needed by --table passage",
    )
    p.add_argument(
        "--table",
        choices=("summary", "distribution", "passage"),
        default="summary",
        help="summary quantiles per session (default), the "
        "whole distribution, or the first session the threshold is reached",
    )
    p.add_argument(
        "--method",
        choices=("exact", "mc", "both"),
        default="exact",
        help="exact chain (default), Monte Carlo, or both side by side with z",
    )
    p.add_argument(
        "--trials", type=trials_int, default=20_000, help="Monte Carlo characters (default 20000)"
    )
    p.add_argument("--seed", type=seed_int, default=None, help="random seed (default: fresh)")
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule variant of the mechanic's module (repeatable): "
        + ", ".join(_variant_names(mech)),
    )
    p.add_argument(
        "--solve",
        default=None,
        metavar="KNOB",
        help="instead of the table: the value of this parameter that makes the "
        "median character reach --reach within --sessions (exact chain)",
    )
    p.add_argument(
        "--reach",
        type=_int,
        default=None,
        metavar="X",
        help="the state value --solve aims at (in the mechanic's direction)",
    )
    p.add_argument(
        "--range",
        dest="knob_range",
        default=None,
        metavar="LO:HI",
        help="narrow the --solve search to LO..HI",
    )
    add_output(p, plot=True)
    add_lang(p)
    return p


def _variant_names(mech) -> list[str]:
    import dataclasses

    out = []
    for f in dataclasses.fields(mech.variants):
        rule = f.metadata.get("rule") if f.metadata else None
        out.append(f"{f.name} [{rule}]" if rule else f.name)
    return out


def run_campaign(args) -> int:
    from engines.campaign import mechanic
    from engines.errors import InputError

    from .common import check_lang, check_outputs, require_part

    require_part(args.system, "campaign", "campaign")
    mech = mechanic(args.system, args.mechanic)  # InputError naming the known ones
    opts = mechanic_parser(mech).parse_args(args.options)
    opts.system = args.system
    check_outputs(opts)
    check_lang(opts)
    params = {q.name: getattr(opts, q.name) for q in mech.params}
    if opts.solve is not None:
        return _run_solve(mech, params, opts)
    for flag, value in (("--reach", opts.reach), ("--range", opts.knob_range)):
        if value is not None:
            raise InputError(f"{flag} goes with --solve KNOB")
    from analysis import campaign as camp

    stats = camp.run(
        mech.system,
        mech.name,
        params,
        sessions=opts.sessions,
        threshold=opts.threshold,
        method=opts.method,
        trials=opts.trials,
        seed=opts.seed,
        variants=opts.variant,
    )
    table = camp.table(stats, opts.table)
    if opts.plot:
        fig = camp.fan_chart(stats.get("exact") or stats["mc"], state=mech.state)
        if opts.lang != "en":
            from reports.plotting import translate_figure

            translate_figure(fig, opts.lang)
        _save(fig, opts.plot)
    _write(table, opts)
    return 0


def _run_solve(mech, params: dict, opts) -> int:
    from analysis import campaign as camp
    from engines.errors import InputError

    if opts.reach is None:
        raise InputError("--solve needs --reach X (the state value to reach)")
    if opts.plot:
        raise InputError("--plot draws the fan chart of a table run, not of --solve")
    mech.param(opts.solve)  # InputError naming the known parameters
    values = None
    if opts.knob_range is not None:
        lo, sep, hi = opts.knob_range.partition(":")
        try:
            lo, hi = int(lo), int(hi)
        except ValueError:
            raise InputError(f"--range {opts.knob_range!r}: expected LO:HI integers") from None
        if not sep:
            raise InputError(f"--range {opts.knob_range!r}: expected LO:HI integers")
        values = camp.knob_values(mech, opts.solve, lo, hi)
    _, table = camp.solve_campaign(
        mech.system,
        mech.name,
        opts.solve,
        opts.reach,
        opts.sessions,
        params,
        variants=opts.variant,
        values=values,
    )
    opts.method = "exact"
    _write(table, opts)
    return 0


def _save(fig, path: str) -> None:
    from analysis.output import atomic_path

    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.rsplit(".", 1)[-1].lower(), dpi=150)


def _write(table, opts) -> None:
    from analysis.output import write_table

    from .common import provenance_of, select_columns, write_localised

    table, provenance = select_columns(table, opts, provenance_of(opts))
    if opts.lang == "en":
        write_table(table, opts.format, opts.output, provenance)
        return
    write_localised(
        table, opts.format, opts.output, provenance, opts.lang, words=("session", "meets", "chosen")
    )
