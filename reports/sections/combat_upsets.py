"""Section: swinginess and upsets (one roll against a whole fight)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from reports.i18n import N_, _, decimal
from reports.sections.combat_common import (
    ROUND_FORMATS,
    combat_frames,
    cross_source,
    method_note,
)
from reports.sections.common import MAPPED, for_systems_with, pct, table_block, variant_map
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_combat_upsets", "upset_reading"]


def upset_reading(frame, swing, ties: Mapping[str, str] | None = None) -> list[str]:
    """The section's sentences from the merged upset frame (columns ``system``,
    ``weaker``, ``stronger``, ``p_upset_attacking``, ``p_upset_defending`` of
    :func:`analysis.checks.ladders.upset_table` and the duel's ``p_fight``) and the
    swinginess table indexed by system. A single roll is quoted from both sides: the
    weaker character attacking and defending (in ``dice_pool_7`` ties go to the
    defender, A-g7, so the two differ widely). A system with no single-roll upset (no
    opposed-check rule or no rungs on the common ladder: a plug-in mapped by a
    cross-combat file) gets its duel alone, saying why. "One rung weaker" is a novice
    against a competent character (:data:`reports.sections.glance.UPSET`), as everywhere
    in the report; ``ties`` gives each system's tie rule in words
    (:func:`reports.sections.opposed.tie_rule`: A-g7, B-g3, C10, D3, E5), said beside
    its single rolls."""
    adj = frame[(frame["weaker"] == "novice") & (frame["stronger"] == "competent")]
    adj = adj[adj[["p_upset_attacking", "p_upset_defending"]].notna().all(axis=1)]
    low = adj[["p_upset_attacking", "p_upset_defending"]].min(axis=1)
    sharper = int((adj["p_fight"] < low).sum())
    reading = [
        _(
            "An upset is the weaker character winning; the text reads it one rung "
            "weaker, a novice against a competent character, as At a glance does. One "
            "opposed roll (exact) and a whole duel to the end (the ladder fighters of "
            "the group fights, light melee weapons) can differ a lot: many rolls "
            "can average luck out, or one lucky blow can end a fight. In {sharper} of "
            "{n} systems the duel favours the stronger side more than a single roll "
            "does, whichever side rolls."
        ).format(sharper=sharper, n=len(adj))
    ]
    for system, part in frame.groupby("system", sort=False):
        adj = part[(part["weaker"] == "novice") & (part["stronger"] == "competent")]
        if adj.empty:
            continue
        row = adj.iloc[0]
        attack, defend, fight = (row["p_upset_attacking"], row["p_upset_defending"], row["p_fight"])
        if pd.isna(attack) or pd.isna(defend):
            reading.append(
                _(
                    "{system}: a novice wins {fight} of duels against a competent "
                    "character; there is no single roll to set beside it (that "
                    "needs an opposed-check rule and rungs on the common ladder, "
                    "which it does not declare)."
                ).format(system=system, fight=pct(fight))
            )
            continue
        if fight < min(attack, defend):
            verdict = _("the fight sharpens the edge of skill")
        elif fight > max(attack, defend):
            verdict = _("skill counts for less in a fight than in one roll")
        else:
            verdict = _("the fight lies between the two single rolls")
        text = _(
            "{system}: a novice beats a competent character in {attack} of opposed "
            "rolls when attacking and {defend} when defending, and wins {fight} of "
            "duels — {verdict}"
        ).format(
            system=system, attack=pct(attack), defend=pct(defend), fight=pct(fight), verdict=verdict
        )
        if system in swing.index:
            text += _("; one SD of luck is worth {rungs} rungs on a single check").format(
                rungs=decimal(swing.loc[system, "sd_in_rungs"], 2)
            )
        text += "."
        tie = (ties or {}).get(system)
        if tie:
            text += " " + _("Ties: {ties}.").format(ties=tie)
        reading.append(text)
    return reading


@for_systems_with(MAPPED, "combat-upsets", N_("Combat: swinginess and upsets"))
def section_combat_upsets(settings: ReportSettings) -> Section:
    """Swinginess: how often the weaker rung wins one roll vs a whole fight."""
    title = _("Combat: swinginess and upsets")
    from analysis.checks.ladders import swinginess, upset_table

    fights = combat_frames(settings)["upsets"]
    variants = variant_map(settings)
    rolls = upset_table(variants=variants)
    rolls = rolls[rolls["system"].isin(settings.systems)]
    frame = fights.merge(
        rolls[["system", "weaker", "stronger", "p_upset_attacking", "p_upset_defending"]],
        on=["system", "weaker", "stronger"],
        how="left",
    )
    swing = swinginess(variants=variants)
    swing = swing[swing["system"].isin(settings.systems)].set_index("system")
    from engines.system import registry
    from reports.sections.opposed import tie_rule

    ties = {
        s: tie_rule(s, settings.variants_of(s))
        for s in settings.systems
        if registry()[s].checks.opposed is not None and registry()[s].report.ties
    }
    reading = upset_reading(frame, swing, ties)
    reading[0] += " " + method_note(fights)
    view = frame[
        [
            "system",
            "weaker",
            "stronger",
            "method",
            "p_upset_attacking",
            "p_upset_defending",
            "p_fight",
            "se_fight",
            "p_neither",
            "rounds_mean",
        ]
    ].rename(
        columns={
            "p_upset_attacking": "upset, one roll",
            "p_upset_defending": "upset, one roll defending",
            "p_fight": "upset, duel",
            "se_fight": "SE(duel)",
            "p_neither": "neither",
            "rounds_mean": "rounds",
        }
    )
    view["weaker"], view["stronger"] = view["weaker"].map(_), view["stronger"].map(_)
    if (frame["method"] == "exact").all():
        view = view.drop(columns=["SE(duel)"])
    blocks = [
        table_block(
            "combat-upsets",
            _("Upsets: one roll against a whole fight"),
            view,
            _(
                "P(the weaker rung wins): in one opposed roll it initiates, in one "
                "it defends (both exact; each system's tie rule, said in the "
                "text, decides how far the two differ) and in a duel to the end "
                "(round cap {cap}); neither = P(no result at the cap); rounds = "
                "mean length of the duel."
            ).format(cap=settings.round_cap)
            + " "
            + method_note(fights)
            + cross_source(settings),
            index=("system",),
            full=frame,
            formats=ROUND_FORMATS,
        )
    ]
    return Section("combat-upsets", title, reading, blocks)
