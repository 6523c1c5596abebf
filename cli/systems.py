"""``rpg-balance systems``: the resolution systems installed (built-in and plug-ins)."""

from __future__ import annotations

from cli.common import add_output, check_outputs, write_output

__all__ = ["register", "run_systems", "systems_table"]


def register(sub) -> None:
    p = sub.add_parser(
        "systems",
        help="list the installed resolution systems",
        description="Every resolution system the suite knows: the five "
        "built-in ones and those outside packages register through the "
        "entry-point group rpg_balance.systems; with its source and what "
        "it declares (opposed rule, combat, campaign mechanics).",
        epilog="example: rpg-balance systems --format markdown",
    )
    add_output(p)
    p.set_defaults(func=run_systems)


def systems_table():
    """One row per installed system (:func:`engines.system.registry`)."""
    import pandas as pd

    from engines.system import registry

    return pd.DataFrame(
        [
            {
                "id": s.id,
                "name": s.name,
                "source": s.source,
                "has_opposed": s.checks.opposed is not None,
                "has_combat": s.combat is not None,
                "has_campaign": s.campaign is not None,
                "axes": ", ".join(s.checks.axes),
                "mechanics": ", ".join(s.campaign.engine().MECHANICS) if s.campaign else "",
            }
            for s in registry().values()
        ]
    )


def run_systems(args) -> int:
    check_outputs(args)
    write_output(systems_table(), args)
    return 0
