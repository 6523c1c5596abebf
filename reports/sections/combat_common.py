"""Shared pieces of the combat sections: the cached combat frames, column names and notes."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import pandas as pd

from reports.i18n import N_, _
from reports.settings import ReportSettings

__all__ = [
    "AFTERMATH_TEXT",
    "DEADLINESS_AFTERMATHS",
    "DEADLINESS_COLUMNS",
    "DUEL_COLUMNS",
    "EFFECT_COLUMNS",
    "EVEN_DUEL",
    "FATES",
    "GROUP_COLUMNS",
    "ROUND_FORMATS",
    "UPSET_PAIRS",
    "UPSET_RUNGS",
    "aftermath_words",
    "check_cross",
    "combat_frames",
    "combat_view",
    "cross_source",
    "dying_words",
    "even_duel_words",
    "fate_shares",
    "method_note",
]

#: Cross-system duel columns (``analysis.combat.cross_combat.cross_table``) → shown headers.
DUEL_COLUMNS = {
    "p_side0": "A wins",
    "se_side0": "SE(A)",
    "p_side1": "B wins",
    "se_side1": "SE(B)",
    "p_neither": "neither",
    "rounds_mean": "rounds",
    "rounds_se": "SE(rounds)",
    "rounds_q50": "median",
    "rounds_q90": "90% by",
    "p_loser_dead": "dead",
    "se_loser_dead": "SE(dead)",
    "p_loser_dying": "dying",
    "se_loser_dying": "SE(dying)",
    "p_loser_out": "out",
    "se_loser_out": "SE(out)",
    "one_hit_incap_a_on_b": "A→B inc.",
    "one_hit_kill_a_on_b": "A→B kill",
    "one_hit_incap_b_on_a": "B→A inc.",
    "one_hit_kill_b_on_a": "B→A kill",
}


#: Group-fight columns (``analysis.combat.lethality.group_fight`` rows) → shown headers.
GROUP_COLUMNS = {
    "p_side0": "0 wins",
    "se_side0": "SE(0)",
    "p_side1": "1 wins",
    "se_side1": "SE(1)",
    "p_neither": "neither",
    "se_neither": "SE(n.)",
    "rounds_mean": "rounds",
    "rounds_se": "SE(rounds)",
    "rounds_q50": "median",
    **{
        f"{kind}side{side}_{fate}": (f"{side} {fate}" if kind == "p_" else f"SE({side} {fate})")
        for side in (0, 1)
        for fate in ("dead", "dying", "out")
        for kind in ("p_", "se_")
    },
}


#: The aftermath policies whose deadliness the group-fight section sets side by side, and
#: the deadliness columns (``analysis.combat.lethality.deadliness_columns``) → headers.
DEADLINESS_AFTERMATHS = ("leave", "finish")
DEADLINESS_COLUMNS = {
    "p_someone_dead": "someone dead",
    "se_someone_dead": "SE(someone)",
    "deaths_mean": "dead (mean)",
    "se_deaths_mean": "SE(dead)",
}


#: Effect-table columns (tactics, armour) → shown headers.
EFFECT_COLUMNS = {
    "p_side0": "A wins",
    "se_side0": "SE(A)",
    "p_side1": "B wins",
    "p_neither": "neither",
    "rounds_mean": "rounds",
    "p_loser_dead": "loser dead",
    "p_loser_dying": "loser dying",
    "p_loser_out": "loser out",
}


#: What each aftermath policy means, for captions and the assumptions section.
AFTERMATH_TEXT = {
    "leave": N_("no one helps the fallen; a dying fighter follows its system's own dying rules"),
    "first_aid": N_(
        "a standing winner tries each system's stabilising rule on every "
        "fallen fighter of both sides"
    ),
    "finish": N_("the winners strike each fallen foe until it is dead (their own fallen are left)"),
}


#: Rung pairs of the fight-upset table (weaker first).
UPSET_PAIRS = (("novice", "competent"), ("competent", "expert"), ("novice", "expert"))


ROUND_FORMATS = {"rounds": ".2f", "SE(rounds)": ".3f", "median": ".0f", "90% by": ".0f"}


def _exact_or_mc(system: str, a, b, settings: ReportSettings, seed: int, variants=None):
    """An exact duel where the engine solves it, else Monte Carlo (with its SEs)."""
    from analysis.combat import lethality
    from engines.errors import InputError

    try:
        return lethality.run_fight(
            system,
            [a],
            [b],
            "exact",
            variants=variants,
            round_cap=settings.round_cap,
            aftermath=settings.aftermath,
        )
    except InputError:
        return lethality.run_fight(
            system,
            [a],
            [b],
            "mc",
            trials=settings.combat_trials,
            seed=seed,
            variants=variants,
            round_cap=settings.round_cap,
            progress=False,
            aftermath=settings.aftermath,
        )


#: what the combat sections read of the cross-combat file besides its matchups: the
#: even duel of the weapon and gear tables, and the ladder rungs of the upsets
EVEN_DUEL = "melee_equal"
UPSET_RUNGS = ("novice", "competent", "expert")


#: The fates of a fallen fighter (RULES.md "Lethality outcomes"), in table order.
FATES = ("dead", "dying", "out")


def fate_shares(
    frame: pd.DataFrame, columns: Mapping[str, str], total: str | None = None
) -> pd.DataFrame:
    """The report's one normalisation of fates: dead / dying / out as shares of the
    fighters who fell, summing to 1 in every row (RULES.md "Lethality outcomes", LO-r2).

    ``columns`` maps each of :data:`FATES` to its column of ``frame``; ``total`` names
    the column of P(the fighter fell) the fates are shares of (None: their own sum, for
    columns that are already shares of the decided fights). A row where nobody fell
    gets NaN (no fate to share out)."""
    fates = frame[[columns[f] for f in FATES]].astype(float)
    fell = fates.sum(axis=1) if total is None else frame[total].astype(float)
    # rows already summing to 1 (a duel's loser) are kept as they are, digit for digit
    fell = fell.mask((fell - 1).abs() < 1e-9, 1.0)
    out = fates.div(fell.where(fell > 1e-12), axis=0)
    out.columns = list(FATES)
    return out


def dying_words(systems, settings: ReportSettings | None = None) -> str:
    """The sentence set beside every table of fates: what “dying” means in each system
    when nobody helps, by its default reading with the rule id (each system's
    ``Report.dying``); a system whose combat variants in force differ from the defaults
    says that they may change it."""
    from engines.system import registry

    parts = []
    for system in systems:
        words = registry()[system].report.dying
        if not words:
            continue
        text = f"{system}: {_(words)}"
        if settings is not None and settings.combat_variants_of(system):
            text += " " + _(
                "(the default reading; the variants in force may change it, see Assumptions)"
            )
        parts.append(text)
    if not parts:
        return ""
    return _("What “dying” means when nobody helps: {systems}.").format(systems="; ".join(parts))


def even_duel_words(settings: ReportSettings) -> str:
    """“the even duel (a competent fighter with a light melee weapon against an equal)”:
    the one fight the report calls the even duel, the cross-combat file's
    :data:`EVEN_DUEL` matchup — the same in every section, in At a glance and in the
    guardrails."""
    from analysis.combat import cross_combat

    title = cross_combat.load_cross(settings.cross_combat)["matchups"][EVEN_DUEL]["title"]
    return _("the even duel ({title})").format(title=_(title))


def check_cross(path) -> None:
    """Validate a cross-combat file for the report (``path``; None: the packaged one):
    :func:`analysis.combat.cross_combat.load_cross`, then what the combat sections need
    of it beyond the matchups — the even duel :data:`EVEN_DUEL` and the ladder rungs
    :data:`UPSET_RUNGS` of every system it maps. One :class:`InputError` naming the file
    and the key."""
    from analysis.combat import cross_combat
    from engines.errors import InputError

    spec = cross_combat.load_cross(path)
    name = cross_combat.file_label(path)
    if EVEN_DUEL not in spec["matchups"]:
        raise InputError(
            f"{name}: matchups.{EVEN_DUEL}: missing (the report's weapon and "
            "gear tables play its even duel)"
        )
    for system in spec["systems"]:
        for rung in UPSET_RUNGS:
            if rung not in spec["ladder"].get(system, {}):
                raise InputError(
                    f"{name}: ladder.{system}.{rung}: missing (the report's "
                    "upsets and group fights play the ladder rungs "
                    f"{', '.join(UPSET_RUNGS)})"
                )


@lru_cache(maxsize=4)
def _combat_cached(
    systems: tuple[str, ...],
    trials: int,
    seed: int,
    round_cap: int,
    aftermath: str = "leave",
    given: tuple = (),
    cross=None,
    rules: tuple = (),
) -> dict:
    # ``rules``: the key of the rules in force (analysis.rules), which the fights read
    from analysis.combat import archetypes, cross_combat, lethality

    settings = ReportSettings(
        systems=systems,
        combat_trials=trials,
        seed=seed,
        round_cap=round_cap,
        pdf=False,
        progress=False,
        aftermath=aftermath,
    )
    cv = {s: list(v) for s, v in given}  # each system's combat variants (NAME=VALUE)
    spec = cross_combat.load_cross(cross)
    stats = cross_combat.cross_stats(
        cross,
        method="exact",
        trials=trials,
        seed=seed,
        round_cap=round_cap,
        progress=False,
        systems=systems,
        variants=cv,
        aftermath=aftermath,
    )
    full = cross_combat.cross_table(
        cross, stats=stats, round_cap=round_cap, variants=cv, aftermath=aftermath
    )
    # the fights that start apart (a matchup's ``distances``) belong to the distance section
    engaged = [mid for mid, e in spec["matchups"].items() if "base" not in e]
    cross = full[full["matchup"].isin(engaged)].reset_index(drop=True)
    apart = full[~full["matchup"].isin(engaged)].reset_index(drop=True)
    stats = {k: v for k, v in stats.items() if k[0] in engaged}
    cast = pd.DataFrame(
        [
            {
                "matchup": mid,
                "system": s,
                "A": spec["labels"][mid][s][0],
                "B": spec["labels"][mid][s][1],
            }
            for mid in engaged
            for s in systems
        ]
    )
    rows, standing, deadly = [], [], []
    for gid, g in spec["groups"].items():  # the order of cross_combat.group_table
        for system in systems:
            lad, named = spec["ladder"][system], spec["ladder_specs"][system]
            for policy in dict.fromkeys((aftermath, *DEADLINESS_AFTERMATHS)):
                # the same fights under each policy (the aftermath draws from its own stream)
                row, st = lethality.group_fight(
                    system,
                    [lad[r] for r in g.side0],
                    [lad[r] for r in g.side1],
                    trials=trials,
                    seed=seed,
                    variants=cv.get(system),
                    round_cap=round_cap,
                    label=gid,
                    progress=False,
                    aftermath=policy,
                    specs=([named[r] for r in g.side0], [named[r] for r in g.side1]),
                )
                if policy == aftermath:
                    rows.append(row)
                    standing.append(st)
                if policy in DEADLINESS_AFTERMATHS:
                    deadly.append(
                        {
                            "fight": gid,
                            "system": system,
                            "aftermath": policy,
                            **{k: row[k] for k in DEADLINESS_COLUMNS},
                        }
                    )
    one_hit, effects = [], []
    for system in systems:
        a, b = spec["specs"][EVEN_DUEL][system]
        v = lethality.combat_variants(system, cv.get(system), aftermath)
        one_hit.append(lethality.one_hit_table(system, a, [b], variants=v))
        parts = [
            (
                "tactic",
                lethality.tactic_table(
                    system, a, b, method="exact", round_cap=round_cap, progress=False, variants=v
                ),
            )
        ]
        if archetypes.armours(system):
            parts.append(
                (
                    "armour",
                    lethality.armour_table(
                        system,
                        a,
                        b,
                        method="exact",
                        round_cap=round_cap,
                        progress=False,
                        variants=v,
                    ),
                )
            )
        for kind, t in parts:
            t = t.rename(columns={kind: "choice"})
            t.insert(1, "change", kind)
            t["choice"] = t["choice"].astype(str)
            t["a"], t["b"] = spec["labels"][EVEN_DUEL][system]
            effects.append(t)
    upsets = []
    for k, system in enumerate(systems):
        lad = spec["ladder"][system]
        for j, (weak, strong) in enumerate(UPSET_PAIRS):
            st = _exact_or_mc(
                system, lad[weak], lad[strong], settings, seed + 1000 * (k + 1) + j, cv.get(system)
            )
            s = lethality.summary(st)
            upsets.append(
                {
                    "system": system,
                    "weaker": weak,
                    "stronger": strong,
                    "method": s["method"],
                    "p_fight": s["p_side0"],
                    "se_fight": s["se_side0"],
                    "p_neither": s["p_neither"],
                    "rounds_mean": s["rounds_mean"],
                }
            )
    return {
        "stats": stats,
        "cross": cross,
        "apart": apart,
        "cast": cast,
        "groups": pd.DataFrame(rows),
        "deadly": pd.DataFrame(deadly),
        "standing": pd.concat(standing, ignore_index=True),
        "one_hit": pd.concat(one_hit, ignore_index=True),
        "effects": pd.concat(effects, ignore_index=True),
        "upsets": pd.DataFrame(upsets),
    }


def combat_frames(settings: ReportSettings) -> dict:
    """Every combat frame of the report, computed once per settings (cached).

    ``cross`` is :func:`analysis.combat.cross_combat.cross_table` (exact duels, MC only where an
    engine has no exact solver) for the matchups that start engaged, ``apart`` its rows
    for the matchups that start apart (a matchup's ``distances``; the distance section),
    ``groups``/``standing`` are the rows of
    :func:`analysis.combat.cross_combat.group_table` for the chosen systems (Monte Carlo,
    ``settings.combat_trials`` fights, ``settings.seed``), ``deadly`` the deadliness of
    the same group fights under each of :data:`DEADLINESS_AFTERMATHS` (fight, system,
    aftermath, :data:`DEADLINESS_COLUMNS`), ``one_hit`` / ``effects`` come
    from :mod:`analysis.combat.lethality` on the ``melee_equal`` matchup of each system, and
    ``upsets`` holds duels of a weaker ladder rung against a stronger one. The fights
    are those of ``settings.cross_combat`` (the packaged file when None), under the
    rules in force (:mod:`analysis.rules`; part of the cache's key).
    """
    given = tuple(
        (s, settings.combat_variants_of(s))
        for s in settings.systems
        if settings.combat_variants_of(s)
    )
    cross = None if settings.cross_combat is None else str(settings.cross_combat)
    from analysis.rules import in_force

    rules = tuple(rs.key for rs in in_force().values() if rs)
    return _combat_cached(
        tuple(settings.systems),
        settings.combat_trials,
        settings.seed,
        settings.round_cap,
        settings.aftermath,
        given,
        cross,
        rules,
    )


def cross_source(settings: ReportSettings) -> str:
    """The sentence a combat table's caption ends with when its fights come from a
    designer's cross-combat file ("" for the packaged one: the default captions)."""
    if settings.cross_combat is None:
        return ""
    return " " + _("Fights from the cross-combat file {file}.").format(file=settings.cross_label)


def combat_view(
    frame: pd.DataFrame,
    labels: list[str],
    columns: Mapping[str, str],
    se_columns: tuple[str, ...] = (),
) -> pd.DataFrame:
    """Label columns then the renamed value columns; SE columns only when some row is MC."""
    mc = "method" in frame and (frame["method"] == "mc").any()
    keep = [c for c in columns if c in frame and (mc or c not in se_columns)]
    return frame[labels + keep].rename(columns=dict(columns)).reset_index(drop=True)


def aftermath_words(settings: ReportSettings) -> str:
    """“after the aftermath “leave” (…), the same in every system”, for captions."""
    return _("after the aftermath “{policy}” ({meaning}), the same policy in every system").format(
        policy=_(settings.aftermath), meaning=_(AFTERMATH_TEXT[settings.aftermath])
    )


def method_note(frame: pd.DataFrame) -> str:
    """The caption's sentence on how a table's figures were found (exact, Monte Carlo or
    both)."""
    methods = set(frame["method"])
    if methods == {"exact"}:
        return _("Every figure is exact (method “exact”: the fight solved as a Markov chain).")
    if methods == {"mc"}:
        return _("Every figure is Monte Carlo, with its standard error (SE) beside it.")
    return _(
        "Method “exact” rows are solved exactly (SE 0); “mc” rows are Monte Carlo "
        "with their standard errors."
    )
