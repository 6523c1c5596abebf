"""``rpg-balance rules``: a system's rule tables (weapons, armour, categories …) as a tidy
table, or a complete rules file to edit (``--export``); see :mod:`analysis.rules`."""

from __future__ import annotations

from cli.common import add_output, check_outputs, system_id, write_output

__all__ = ["EPILOG", "register", "run_rules"]

EPILOG = """examples:
  rpg-balance rules dice_pool_7
  rpg-balance rules dice_pool_7 --export my_rules.toml
  rpg-balance duel dice_pool_7 competent_knight competent_shooter --rules my_rules.toml
  rpg-balance audit analysis/data/guardrails.toml --rules my_rules.toml
  rpg-balance audit analysis/data/guardrails.toml \\
      --set dice_pool_7:rules.armour.heavy_archaic.ballistic=1
"""


def register(sub) -> None:
    import argparse

    p = sub.add_parser(
        "rules",
        help="a system's rule tables, or a rules file to edit",
        description="The rule tables of a system with combat — weapons, "
        "armour, weapon categories, the damage-bonus table, and the numbers "
        "of its formulas (health, movement, damage …) — one row per "
        "field (table, entry, field, value, rule), with the rules files of "
        "--rules applied. --export FILE writes a complete, commented rules "
        'file: edit any field, add an entry (like = "NAME" copies one), '
        "remove one (remove = true), offset everyone's traits ([everyone]), "
        "then give it to any command with --rules FILE. Each field is also "
        "a knob, SYSTEM:rules.TABLE.ENTRY.FIELD=VALUE (audit --set, [tune]), "
        "and SYSTEM:everyone.TRAIT=OFFSET moves every fighter's trait.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("system", type=system_id, help="a system with combat, e.g. dice_pool_7")
    p.add_argument(
        "--export",
        default=None,
        metavar="FILE",
        help="write a complete rules file (TOML) to edit, instead of the table",
    )
    add_output(p)
    p.set_defaults(func=run_rules)


def run_rules(args) -> int:
    from analysis import rules
    from analysis.combat.archetypes import systems
    from engines.errors import InputError

    if args.system not in systems():
        raise InputError(
            f"rules: {args.system} has no rule tables (no combat archetypes); "
            "systems with them: " + ", ".join(systems())
        )
    if args.export is not None:
        from analysis.output import atomic_path

        text = rules.export_text(args.system)
        with atomic_path(args.export, "--export") as tmp:
            tmp.write_text(text, encoding="utf-8")
        return 0
    check_outputs(args)
    import pandas as pd

    table = pd.DataFrame(
        rules.table_rows(args.system),
        columns=["system", "table", "entry", "field", "value", "rule"],
    )
    prov = {"system": args.system, "variants": "defaults", "method": "exact", "trials": 0}
    edited = rules.provenance()
    if edited:
        prov["rule_edits"] = edited
    write_output(table, args, prov)
    return 0
