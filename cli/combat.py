"""``rpg-balance duel``, ``combat``, ``archetypes`` and ``cross-combat``: whole fights.

- ``duel SYSTEM A B``: a 1-vs-1 fight between two archetypes of the system's library, exact,
  Monte Carlo or both (with z-scores), with gear/tactic overrides per side; also the
  one-hit, tactic and armour tables of the same matchup.
- ``combat FILE.toml``: an N-vs-M fight described by a matchup file (see
  ``scenarios/combat/``).
- ``archetypes SYSTEM``: the archetype library, one row per archetype.
- ``cross-combat``: the common-ladder matchups in all five systems side by side.

Outputs go through :func:`analysis.output.write_table` (atomic ``-o FILE``); bad input
ends in one line and exit code 2 before any work or any file is written.
"""

from __future__ import annotations

import argparse

from cli.common import (
    add_output,
    add_rule_set,
    add_traits,
    check_outputs,
    require_part,
    round_cap_int,
    seed_int,
    system_id,
    trials_int,
)
from engines.constants import AFTERMATHS, PLANS, ROUND_CAP
from engines.distance import MAX_DISTANCE  # the most metres a fight may start apart

__all__ = [
    "DEFAULT_DISTANCES",
    "DUEL_TABLES",
    "FIGHT_TABLES",
    "aftermath_list",
    "distance_list",
    "distance_m",
    "register",
    "run_archetypes",
    "run_combat",
    "run_cross",
    "run_duel",
    "run_gear",
]

DUEL_TABLES = (
    "summary",
    "rounds",
    "standing",
    "damage",
    "one-hit",
    "weapons",
    "tactics",
    "armour",
    "distance",
)
#: the starting distances of ``duel --table distance`` (metres)
DEFAULT_DISTANCES = (0, 5, 10, 20, 30, 40)
FIGHT_TABLES = ("summary", "rounds", "standing", "damage")


def distance_m(text: str) -> int:
    from cli.common import number

    return number(
        text,
        int,
        lambda v: 0 <= v <= MAX_DISTANCE,
        f"a whole number of metres from 0 to {MAX_DISTANCE}",
    )


def aftermath_list(text: str) -> list[str]:
    """``--aftermath leave,finish``: one policy or several (each run in turn, the rows
    concatenated; the ``aftermath`` column tells them apart)."""
    parts = [x.strip() for x in str(text).split(",") if x.strip()]
    bad = [x for x in parts if x not in AFTERMATHS]
    if not parts or bad:
        raise argparse.ArgumentTypeError(
            f"invalid choice: {', '.join(map(repr, bad)) or repr(text)} (choose one or more "
            f"of {', '.join(AFTERMATHS)}, separated by commas)"
        )
    return list(dict.fromkeys(parts))


def distance_list(text: str) -> list[int]:
    parts = [x.strip() for x in str(text).split(",") if x.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("expected metres separated by commas, e.g. 0,10,20")
    return [distance_m(x) for x in parts]


def _run_options(
    p: argparse.ArgumentParser,
    method_default: str | None,
    variant_help: str = "a combat rule variant (repeatable)",
    variant_metavar: str = "NAME=VALUE",
) -> None:
    if method_default is not None:
        p.add_argument(
            "--method",
            choices=("exact", "mc", "both"),
            default=method_default,
            help=f"exact chain, Monte Carlo, or both side by side (default {method_default})",
        )
    p.add_argument(
        "--variant", action="append", default=[], metavar=variant_metavar, help=variant_help
    )
    p.add_argument(
        "--aftermath",
        type=aftermath_list,
        default=None,
        metavar="POLICY[,POLICY]",
        help="what happens to the fallen when the fight ends (the combat "
        "variant aftermath): leave them, first_aid (each system's stabilising "
        "rule), or finish (the winners kill fallen foes); several separated by "
        "commas run each in turn (rows told apart by the aftermath column); "
        "default leave, or the matchup file's variant",
    )
    p.add_argument(
        "--trials", type=trials_int, default=None, help="Monte Carlo fights (default 20000)"
    )
    p.add_argument("--seed", type=seed_int, default=None, help="random seed (default: fresh)")
    p.add_argument(
        "--round-cap",
        type=round_cap_int,
        default=None,
        metavar="R",
        help=f"rounds after which a fight counts as 'neither' (default {ROUND_CAP})",
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="force the Monte Carlo progress bar on or off (default: long runs)",
    )


def register(sub) -> None:
    p = sub.add_parser(
        "duel",
        help="a 1-vs-1 fight between two archetypes",
        description="Who wins, how long it lasts, how deadly it is: a duel "
        "between archetypes A (side 0) and B (side 1) of the system's library "
        "(rpg-balance archetypes SYSTEM lists them): a ladder rung (untrained, "
        "novice, competent, expert, master) or a style at a rung, LEVEL_STYLE "
        "(competent_swordsman).",
        epilog="example: rpg-balance duel dice_pool_7 competent_swordsman "
        "competent_fencer --method both --trials 20000 --seed 1",
    )
    p.add_argument(
        "system",
        type=system_id,
        metavar="SYSTEM",
        help="a system id (rpg-balance systems lists them)",
    )
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    for side in ("a", "b"):
        p.add_argument(
            f"--weapon-{side}",
            default=None,
            metavar="W",
            help=f"weapon of {side.upper()} (a name from the system's data file)",
        )
        p.add_argument(
            f"--armour-{side}",
            default=None,
            metavar="X",
            help=f"armour of {side.upper()} (percentile: armour points)",
        )
        p.add_argument(
            f"--tactic-{side}",
            default=None,
            metavar="T",
            help=f"tactic of {side.upper()} (A6, C13, B4, DX2, E16)",
        )
        p.add_argument(
            f"--plan-{side}",
            default=None,
            metavar="P",
            choices=PLANS,
            help=f"plan of {side.upper()} in a fight that starts apart: charge, "
            "hold, kite or cover (default: charge with a melee weapon, hold with "
            "a ranged one)",
        )
    p.add_argument(
        "--table",
        choices=DUEL_TABLES,
        default="summary",
        help="summary (default), rounds, standing, damage, one-hit (A's weapons "
        "against B), tactics (each tactic of A), armour (each armour of A), "
        "distance (the summary at each starting distance of --distances)",
    )
    p.add_argument(
        "--distance",
        type=distance_m,
        default=None,
        metavar="M",
        help="metres between the fighters when the fight starts (the combat "
        "variant distance; default 0: engaged)",
    )
    p.add_argument(
        "--distances",
        type=distance_list,
        default=None,
        metavar="M,M,...",
        help="with --table distance: the starting distances (default "
        + ",".join(map(str, DEFAULT_DISTANCES))
        + ")",
    )
    _run_options(p, "exact")
    add_traits(p)
    add_rule_set(p)
    add_output(p)
    p.set_defaults(func=run_duel)

    p = sub.add_parser(
        "combat",
        help="an N-vs-M fight from a matchup file",
        description="Run the fight a matchup TOML file describes (system, "
        "sides, overrides, variants, round cap). Options given here override "
        "the file's.",
        epilog="example: rpg-balance combat scenarios/combat/ambush_3v1.toml "
        "--table standing --format markdown",
    )
    p.add_argument("file", metavar="FILE.toml")
    p.add_argument("--table", choices=FIGHT_TABLES, default="summary")
    _run_options(p, None)
    p.add_argument(
        "--method",
        choices=("exact", "mc", "both"),
        default=None,
        help="override the file's method (exact needs one combatant a side)",
    )
    add_output(p)
    p.set_defaults(func=run_combat)

    p = sub.add_parser(
        "archetypes",
        help="list a system's combat archetypes",
        description="The archetype library of a system: one row per "
        "archetype with its traits and gear as the engine sees them.",
        epilog="example: rpg-balance archetypes percentile --format markdown",
    )
    p.add_argument(
        "system",
        type=system_id,
        metavar="SYSTEM",
        help="a system id (rpg-balance systems lists them)",
    )
    add_output(p)
    p.set_defaults(func=run_archetypes)

    p = sub.add_parser(
        "gear",
        help="list a system's weapons and armour",
        description="The weapons and armour of a system's data file "
        "(engines/systems/SYSTEM/archetypes.toml): their stats, the note the file "
        "gives (what real weapons a class stands for) and the rule ids cited.",
        epilog="example: rpg-balance gear dice_pool_7 --format markdown",
    )
    p.add_argument(
        "system",
        type=system_id,
        metavar="SYSTEM",
        help="a system id (rpg-balance systems lists them)",
    )
    add_output(p)
    p.set_defaults(func=run_gear)

    p = sub.add_parser(
        "cross-combat",
        help="the same fights in all five systems",
        description="The common-ladder matchups (analysis/data/"
        "cross_combat.toml, or --cross-combat FILE) in every system it "
        "maps: exact where the "
        "duel solver handles it, Monte Carlo with SEs otherwise.",
        epilog="examples:\n  rpg-balance cross-combat --format markdown "
        "--plot cross.png\n  rpg-balance cross-combat --variant "
        "dice_pool_7:again=9 --variant d20_degrees:degree_damage=false",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--cross-combat",
        "--file",
        dest="cross_combat",
        default=None,
        metavar="FILE",
        help="a cross-combat mapping of your own, e.g. one that "
        "maps a plug-in's fighters (default: the packaged analysis/data/"
        "cross_combat.toml; --file is the older spelling)",
    )
    p.add_argument(
        "--table",
        choices=("duels", "groups", "survival"),
        default="duels",
        help="duels (default), groups (2v2, 3v1; MC), survival (groups, round by round)",
    )
    _run_options(
        p,
        "exact",
        "a combat rule variant of one system (repeatable), e.g. "
        "dice_pool_7:weapon_bonus=damage; systems not named keep their defaults",
        "SYSTEM:NAME=VALUE",
    )
    add_output(p, plot=True)
    p.set_defaults(func=run_cross)


def _each_aftermath(args, build):
    """Run ``build(args)`` -> ``(table, variants, named)`` once per ``--aftermath`` policy
    (``args.aftermath`` set to one policy, or None when the option is absent) and write
    the rows of every run, in the order given, as one table (:func:`_write`)."""
    import copy

    import pandas as pd

    policies = args.aftermath or [None]
    runs = []
    for policy in policies:
        one = copy.copy(args)
        one.aftermath = policy
        runs.append(build(one))
    if len(runs) == 1:
        table, variants, named = runs[0]
        _write(table, args, variants, named)
        return
    from analysis.combat.lethality import variants_text

    tables = []
    for t, v, named in runs:  # each run's rows name their own variants
        if v is not None and "variants" not in t.columns:
            t = t.assign(variants=variants_text(v, named))
        tables.append(t)
    _write(pd.concat(tables, ignore_index=True), args, texts=[(v, named) for _, v, named in runs])


def _write(table, args, variants=None, named=(), texts=None) -> None:
    """Select ``--columns`` (unknown names are an error) and write the table; its
    ``variants`` column names the combat variants in force when ``variants`` (the engine's
    ``Variants`` the fights ran with) is given (:func:`analysis.combat.lethality.
    variants_text`: those that differ from the defaults and those ``named``), else those
    given on the command line."""
    from cli.common import provenance_of, write_output

    method = getattr(args, "method", None) or getattr(args, "file_method", None)
    provenance = provenance_of(
        args,
        method=method,
        trials=(args.trials or getattr(args, "file_trials", None) or 20_000)
        if hasattr(args, "trials")
        else None,
    )
    if variants is not None:
        from analysis.combat.lethality import variants_text

        provenance["variants"] = variants_text(variants, named)
    elif texts is not None and texts[0][0] is not None:
        from analysis.combat.lethality import variants_text

        provenance["variants"] = " | ".join(dict.fromkeys(variants_text(v, n) for v, n in texts))
    write_output(table, args, provenance)


def _variant_map(items: list[str]) -> dict:
    from engines.errors import InputError

    out = {}
    for text in items:
        if "=" not in text:
            raise InputError(f"--variant {text!r}: expected NAME=VALUE")
        key, _, val = text.partition("=")
        out[key.strip()] = val.strip()
    return out


def _armour_is_points(system: str) -> bool:
    """Whether the system's archetype library gives armour as points (not names)."""
    from analysis.combat.archetypes import hook

    return hook(system).armour == "points"


def _overrides(args, side: str) -> dict:
    out = {}
    for key in ("weapon", "armour", "tactic", "plan"):
        value = getattr(args, f"{key}_{side}", None)
        if value is not None:
            if key == "armour" and _armour_is_points(args.system):
                try:
                    value = int(value)
                except ValueError:
                    from engines.errors import InputError

                    raise InputError(
                        f"--armour-{side}: {args.system} armour is a number "
                        f"of points, got {value!r}"
                    ) from None
            out[key] = value
    from analysis.rule_edits import trait_values

    out.update(
        trait_values(args.system, getattr(args, f"trait_{side}", None) or [], f"--trait-{side}")
    )
    return out


def _fight_tables(stats: dict, table: str, sizes: tuple[int, int], labels: dict):
    import pandas as pd

    from analysis.combat import lethality

    frames = []
    for st in stats.values():
        if table == "rounds":
            frames.append(lethality.rounds_table(st, **labels))
        elif table == "standing":
            frames.append(lethality.standing_table(st, sizes, **labels))
        else:
            frames.append(lethality.damage_table(st, **labels))
    return pd.concat(frames, ignore_index=True)


def _exact_ignores(args, method: str, what: str) -> None:
    """One notice on stderr when Monte Carlo options meet an exact-only run."""
    import sys

    if method == "exact":
        given = [f for f, v in (("--trials", args.trials), ("--seed", args.seed)) if v is not None]
        if given:
            print(
                f"notice: {' and '.join(given)} ignored: the {what} is solved exactly "
                f"(add --method mc or --method both to simulate it)",
                file=sys.stderr,
            )


def run_duel(args) -> int:
    check_outputs(args)
    require_part(args.system, "combat", "duel")
    if args.table != "one-hit":
        _exact_ignores(args, args.method, "duel")
    _each_aftermath(args, _duel_table)
    return 0


def _duel_table(args):
    """One ``duel`` table under ``args.aftermath`` (one policy or None)."""
    from analysis.combat import lethality
    from analysis.combat.archetypes import combatant

    system = args.system
    given = _variant_map(args.variant)
    _distance_options(args, given)
    v = lethality.combat_variants(system, given, args.aftermath)
    a = combatant(system, args.a, _overrides(args, "a"))
    b = combatant(system, args.b, _overrides(args, "b"))
    kw = {
        "trials": args.trials or 20_000,
        "seed": args.seed,
        "variants": v,
        "round_cap": args.round_cap or ROUND_CAP,
        "progress": args.progress,
    }
    if args.table == "one-hit":
        weapons = [args.weapon_a] if args.weapon_a else None
        table = lethality.one_hit_table(system, _spec(args, "a", weapon=False), [b], weapons, v)
    elif args.table in ("weapons", "tactics", "armour"):
        fn = {
            "weapons": lethality.weapon_table,
            "tactics": lethality.tactic_table,
            "armour": lethality.armour_table,
        }[args.table]
        table = fn(system, _spec(args, "a", skip=args.table), b, method=args.method, **kw)
    elif args.table == "distance":
        table = lethality.distance_table(
            system,
            _spec(args, "a"),
            _spec(args, "b"),
            args.distances or list(DEFAULT_DISTANCES),
            method=args.method,
            **kw,
        )
    else:
        stats = lethality.duel_stats(system, _spec(args, "a"), _spec(args, "b"), args.method, **kw)
        if args.table == "summary":
            table = lethality.duel_table(system, a, b, stats=stats)
        else:
            label_a, label_b = lethality.stats_names(stats)
            table = _fight_tables(
                stats, args.table, (1, 1), {"system": system, "a": label_a, "b": label_b}
            )
    return table, v, given


def _distance_options(args, given: dict) -> None:
    """``--distance`` into the variant map (it is the combat variant ``distance``);
    ``--distances`` only with ``--table distance``; a system whose fights start engaged
    (no ``distance`` variant) says so in one line."""
    from analysis.combat.lethality import has_distance
    from engines.errors import InputError

    if args.distances is not None and args.table != "distance":
        raise InputError(
            "--distances: only with --table distance (--distance M sets one starting distance)"
        )
    wants = (
        args.distance is not None
        or args.table == "distance"
        or any(getattr(args, f"plan_{s}", None) for s in "ab")
    )
    if wants and not has_distance(args.system):
        from analysis.combat.lethality import distance_systems

        known = ", ".join(distance_systems()) or "none yet"
        raise InputError(
            f"--distance: {args.system} fights start engaged (its combat has "
            f"no distance rules); systems with distance rules: {known}"
        )
    if args.distance is not None:
        if "distance" in given:
            raise InputError("--distance and --variant distance=…: give one of them")
        given["distance"] = args.distance


def _spec(args, side: str, weapon: bool = True, skip: str | None = None) -> dict:
    """Side ``side`` as ``{"archetype": name, **overrides}`` (for tables that vary one
    of its overrides themselves)."""
    over = _overrides(args, side)
    if not weapon:
        over.pop("weapon", None)
    if skip is not None:
        over.pop({"weapons": "weapon", "tactics": "tactic", "armour": "armour"}[skip], None)
    return {"archetype": getattr(args, side), **over}


def run_combat(args) -> int:
    from analysis.combat.archetypes import load_matchup_file

    check_outputs(args)
    m = load_matchup_file(args.file)
    method = args.method or m.method
    args.system, args.file_method, args.file_trials = m.system, method, m.trials
    _exact_ignores(args, method, "fight")
    _each_aftermath(args, lambda one: _combat_table(one, m))
    return 0


def _combat_table(args, m):
    """One ``combat`` table of matchup ``m`` under ``args.aftermath`` (one policy or
    None: the file's own)."""
    from analysis.combat import lethality
    from analysis.combat.archetypes import variants

    v = m.variants
    if args.variant:
        import dataclasses

        given = {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
        v = variants(m.system, {**given, **_variant_map(args.variant)})
    v = lethality.combat_variants(m.system, v, args.aftermath)
    method = args.file_method
    methods = ("exact", "mc") if method == "both" else (method,)
    if "exact" in methods and m.sizes != (1, 1):
        from engines.errors import InputError

        raise InputError(
            f"--method {method}: exact results exist for duels only ({m.sizes[0]} vs {m.sizes[1]})"
        )
    stats = {
        x: lethality.run_fight(
            m.system,
            m.sides[0],
            m.sides[1],
            x,
            trials=args.trials or m.trials,
            seed=args.seed if args.seed is not None else m.seed,
            variants=v,
            round_cap=args.round_cap or m.round_cap,
            progress=args.progress,
        )
        for x in methods
    }
    labels = {
        "fight": m.title,
        "system": m.system,
        "side0": lethality.side_label(m.system, m.specs[0], m.sides[0]),
        "side1": lethality.side_label(m.system, m.specs[1], m.sides[1]),
    }
    if args.table == "summary":
        import pandas as pd

        rows = [lethality.summary(st, **labels) for st in stats.values()]
        for row, st in zip(rows, stats.values(), strict=True):
            row.update(lethality.side_fate_columns(st))
        if len(rows) == 2:
            rows[1].update(lethality.agreement(rows[0], rows[1]))
        table = pd.DataFrame(rows)
    else:
        table = _fight_tables(stats, args.table, m.sizes, labels)
    return table, v, {*m.variant_names, *_variant_map(args.variant)}


def run_archetypes(args) -> int:
    import pandas as pd

    from analysis.combat.archetypes import describe

    check_outputs(args)
    require_part(args.system, "combat", "archetype library")
    _write(pd.DataFrame(describe(args.system)), args)
    return 0


def run_gear(args) -> int:
    import pandas as pd

    from analysis.combat.archetypes import gear

    check_outputs(args)
    require_part(args.system, "combat", "gear")
    _write(pd.DataFrame(gear(args.system)), args)
    return 0


def run_cross(args) -> int:
    import pandas as pd

    from analysis.combat import cross_combat
    from analysis.combat.archetypes import variants as combat_variants
    from analysis.output import atomic_path
    from cli.common import system_variants
    from engines.errors import InputError

    check_outputs(args)
    given = system_variants(args.variant)
    for system, items in given.items():  # validate before any work
        try:
            combat_variants(system, items)
        except InputError as exc:
            raise InputError(f"--variant {system}: {exc}") from None
    if args.table == "duels":
        try:
            cross_combat.refuse_distance(given)
        except InputError as exc:
            raise InputError(f"--variant {exc}") from None
    path = args.cross_combat
    try:
        cross_combat.load_cross(path)  # validate before any work
    except InputError as exc:
        raise InputError(f"--cross-combat: {exc}") from None
    tables: list = []
    figs: list = []
    for policy in args.aftermath or ["leave"]:  # the plot shows the first policy
        kw = {
            "trials": args.trials or 20_000,
            "seed": args.seed,
            "round_cap": args.round_cap or ROUND_CAP,
            "progress": args.progress,
            "variants": given,
            "aftermath": policy,
        }
        plot = args.plot and not figs
        if args.table == "duels":
            stats = cross_combat.cross_stats(path, method=args.method, **kw)
            tables.append(
                cross_combat.cross_table(path, stats=stats, variants=given, aftermath=policy)
            )
            figs.append(cross_combat.cross_plot(stats) if plot else None)
        else:
            summary, standing = cross_combat.group_table(path, **kw)
            tables.append(summary if args.table == "groups" else standing)
            figs.append(_group_plot(standing) if plot else None)
    table = tables[0] if len(tables) == 1 else pd.concat(tables, ignore_index=True)
    fig = figs[0]
    if fig is not None:
        with atomic_path(args.plot) as tmp:
            fig.savefig(tmp, format=args.plot.rsplit(".", 1)[-1].lower(), dpi=150)
    _write(table, args)
    return 0


def _group_plot(standing):
    """Share of each side still standing after round k, per group fight and system."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from analysis.checks.plots import SYSTEM_COLORS

    fights = list(dict.fromkeys(standing["fight"]))
    fig = Figure(figsize=(11, 3.8 * len(fights)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(fights), 2, squeeze=False)
    for row, fight in enumerate(fights):
        for side in (0, 1):
            ax = axes[row][side]
            for system, g in standing[
                (standing["fight"] == fight) & (standing["side"] == side)
            ].groupby("system"):
                g = g[g["round"] <= 15]
                ax.step(
                    g["round"],
                    g["standing_share"],
                    where="post",
                    color=SYSTEM_COLORS[system],
                    label=system,
                )
                ax.fill_between(
                    g["round"],
                    g["standing_share"] - 2 * g["se_share"],
                    g["standing_share"] + 2 * g["se_share"],
                    step="post",
                    color=SYSTEM_COLORS[system],
                    alpha=0.2,
                )
            ax.set(
                title=f"{fight}: side {side} still standing",
                xlabel="round",
                ylabel="share of the side",
                ylim=(0, 1.02),
            )
            ax.grid(alpha=0.3)
    axes[0][1].legend(fontsize=7)
    fig.tight_layout()
    return fig
