"""Section: the systems on the common competence/difficulty ladder."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from analysis.checks import plots
from analysis.frames import each_row
from engines.system import registry
from reports.i18n import N_, _, decimal
from reports.sections.common import figure_block, pct, skipped, table_block, variant_map
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_ladders", "swing_reading", "with_defending"]


def with_defending(swing: pd.DataFrame, upsets: pd.DataFrame) -> pd.DataFrame:
    """The swinginess table with the upsets seen from the other side:
    ``p_upset_adjacent_defending`` / ``p_upset_two_apart_defending``, the mean P(the
    weaker rung wins) one and two rungs apart when the stronger side attacks (the
    ``p_upset_defending`` column of :func:`analysis.checks.ladders.upset_table`), next
    to the attacking columns."""
    if "p_upset_adjacent_defending" in swing:  # analysis.checks.ladders.swinginess
        return swing
    mean = upsets.groupby(["system", "rungs_apart"])["p_upset_defending"].mean()
    out = swing.copy()
    for apart, col, after in (
        (1, "p_upset_adjacent_defending", "p_upset_adjacent"),
        (2, "p_upset_two_apart_defending", "p_upset_two_apart"),
    ):
        values = [float(mean.get((s, apart), float("nan"))) for s in out["system"]]
        out.insert(int(out.columns.get_loc(after)) + 1, col, values)  # type: ignore[arg-type]
    return out


def swing_reading(
    swing: pd.DataFrame, upsets: pd.DataFrame, ties: Mapping[str, str] | None = None
) -> list[str]:
    """One sentence per system of :func:`with_defending`'s table: the slope of one rung,
    how many rungs one SD of luck is worth, and P(upset) one rung weaker from both sides.

    "One rung weaker" is the report's one pair, a novice against a competent character
    (:data:`reports.sections.glance.UPSET`, the row of
    :func:`analysis.checks.ladders.upset_table` At a glance and the upsets section
    quote), never the table's mean over adjacent pairs; ``ties`` gives each system's tie
    rule in words (:func:`reports.sections.opposed.tie_rule`), said beside its upsets."""
    from reports.sections.glance import UPSET

    pair = upsets[(upsets["weaker"] == UPSET[0]) & (upsets["stronger"] == UPSET[1])]
    pair = pair.set_index("system")
    out = []
    for row in each_row(swing):
        text = _(
            "{system}: one rung of competence adds {slope} points against an "
            "average task; one SD of luck is worth {rungs} rungs."
        ).format(
            system=row.system,
            slope=decimal(row.slope_pp_per_rung, 1),
            rungs=decimal(row.sd_in_rungs, 2),
        )
        if row.system in pair.index:
            up = pair.loc[row.system]
            text += " " + _(
                "One rung weaker: a novice wins {attack} of the opposed rolls "
                "it starts against a competent character and {defend} of those "
                "it defends."
            ).format(attack=pct(up["p_upset_attacking"]), defend=pct(up["p_upset_defending"]))
            tie = (ties or {}).get(row.system, "")
            if tie:
                text += " " + _("Ties: {ties}.").format(ties=tie)
        out.append(text)
    return out


def section_ladders(settings: ReportSettings) -> Section:
    """Cross-system comparison on the common competence/difficulty ladders."""
    title = _("Across systems: the common ladder")
    from analysis.checks.ladders import anchor_report, ladder_table, swinginess, upset_table

    variants = variant_map(settings)
    table = ladder_table(variants=variants)
    laddered = set(table["system"])
    table = table[table["system"].isin(settings.systems)].reset_index(drop=True)
    skips = [
        skipped(s, N_("rungs on the common ladder (analysis/data/ladders.toml)"))
        for s in settings.systems
        if s not in laddered
    ]
    if table.empty:
        return Section("ladders", title, skips, [])
    comps = list(dict.fromkeys(table.sort_values("competence_rank")["competence"]))
    diffs = list(dict.fromkeys(table.sort_values("difficulty_rank")["difficulty"]))
    view = table.pivot_table(
        index=["system", "competence"], columns="difficulty", values="p", sort=False
    )[diffs].reset_index()
    view["competence"] = pd.Categorical(view["competence"], comps, ordered=True)
    view["system"] = pd.Categorical(view["system"], list(settings.systems), ordered=True)
    view = view.sort_values(["system", "competence"]).astype({"system": str, "competence": str})
    view.columns = [str(c) for c in view.columns]
    view["competence"] = view["competence"].map(_)  # rung names (the CSV keeps the ids)
    anchor = anchor_report()
    anchor = anchor[anchor["system"].isin(settings.systems)].reset_index(drop=True)
    swing = swinginess(variants=variants)
    swing = swing[swing["system"].isin(settings.systems)].reset_index(drop=True)
    upsets = upset_table(variants=variants)
    swing = with_defending(swing, upsets)
    reading = [
        _(
            "The same character (untrained … master) against the same task (easy … "
            "very hard) in every system, using the mapping in "
            "analysis/data/ladders.toml (an assumption a designer can edit). The "
            "systems are anchored so that a competent character meets an average "
            "task about equally often; the differences are in how fast the curves "
            "spread from there."
        )
    ]
    reading += skips
    from reports.sections.opposed import tie_rule

    ties = {
        s: tie_rule(s, settings.variants_of(s))
        for s in swing["system"]
        if registry()[s].checks.opposed is not None and registry()[s].report.ties
    }
    reading += swing_reading(swing, upsets, ties)
    pairs = (
        upsets[upsets["system"].isin(settings.systems)]
        .drop_duplicates(["weaker", "stronger"])
        .groupby("rungs_apart")
        .size()
    )
    blocks: list = [
        table_block(
            "ladders",
            _("P(success) on the common ladder"),
            view,
            _(
                "Exact P(success) per system and competence rung (rows) against each "
                "difficulty rung (columns), with the native numbers in the CSV."
            ),
            index=("system", "competence"),
            full=table,
            column_label=_("task difficulty"),
        ),
        table_block(
            "ladders-anchor",
            _("Anchor check"),
            anchor,
            _(
                "P(competent meets average) per system, its gap to the target and "
                "whether it lies within the file's tolerance."
            ),
            formats={"anchor_gap": "+.4f"},
        ),
        table_block(
            "ladders-swing",
            _("Swinginess"),
            swing,
            _(
                "SD of the anchor character's outcome, the mean gain of one rung, their "
                "ratio (how many rungs one SD of luck is worth), P(success) gained per "
                "rung, and P(upset) one and two rungs apart (exact), with the weaker "
                "character attacking and, in the defending columns, defending. The upset "
                "columns are means over every pair of rungs that far apart ({one} "
                "adjacent pairs, {two} pairs two apart), not the text's “one rung "
                "weaker”, which is always a novice against a competent character."
            ).format(one=int(pairs.get(1, 0)), two=int(pairs.get(2, 0))),
            formats={
                "sd_outcome": ".3f",
                "rung_shift": ".3f",
                "sd_in_rungs": ".3f",
                "slope_pp_per_rung": ".2f",
                "p_upset_adjacent": ".4f",
                "p_upset_two_apart": ".4f",
                "p_upset_adjacent_defending": ".4f",
                "p_upset_two_apart_defending": ".4f",
            },
        ),
    ]
    fig = plots.ladder_plot(table)
    blocks.insert(
        0,
        figure_block(
            "fig-ladders",
            _("The common ladder"),
            fig,
            _(
                "Exact P(success) by competence rung, one line per system "
                "(fixed colours), one panel per task difficulty."
            ),
            _("Line charts of success probability on the common ladder"),
            settings,
        ),
    )
    return Section("ladders", title, reading, blocks)
