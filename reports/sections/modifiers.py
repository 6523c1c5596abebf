"""Section: what each rule's modifiers are worth."""

from __future__ import annotations

import pandas as pd

from analysis.checks import plots
from reports.i18n import N_, _, format_spec, percent, text
from reports.sections.common import figure_block, for_systems_with, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_modifiers"]


@for_systems_with("modifiers", "modifiers", N_("What a modifier is worth"))
def section_modifiers(settings: ReportSettings) -> Section:
    """Worth of each rule's modifiers in percentage points (analysis.checks.modifiers)."""
    title = _("What a modifier is worth")
    from analysis.checks.modifiers import modifier_summary, modifier_values
    table = pd.concat([modifier_values(s, list(settings.variants_of(s)))
                       for s in settings.systems], ignore_index=True)
    summary = modifier_summary(table)
    reading = [_("How many percentage points each modifier the rules offer adds to the "
                 "chance of success, averaged over the checks where it can matter (base "
                 "chance between {low} and {high}). Compare within a system to see which "
                 "resource is worth spending; across systems to see how generous each "
                 "is.").format(low=percent(0.05, 0), high=percent(0.95, 0))]
    for system in settings.systems:
        sub = summary[summary["system"] == system]
        if len(sub):
            best = sub.loc[sub["mean_delta_pp"].abs().idxmax()]
            reading.append(_("{system}: the strongest modifier is {modifier} ({rule}), "
                             "{mean} points on average (from {low} to {high}).").format(
                system=system, modifier=text(best["modifier"]), rule=best["rule"],
                mean=format_spec(best["mean_delta_pp"], "+.1f"),
                low=format_spec(best["min_delta_pp"], "+.1f"),
                high=format_spec(best["max_delta_pp"], "+.1f")))
    shown = summary.copy()  # the modifier names of analysis/checks/modifiers.py (N_)
    shown["modifier"] = [text(x) for x in shown["modifier"]]
    blocks: list = [table_block("modifiers", _("Modifier worth (percentage points)"), shown,
                                _("Per modifier: mean, smallest and largest change in "
                             "P(success) in percentage points over the cells whose base "
                             "chance is 5–95%, and how many cells that is (exact)."),
                                full=table,
                                formats={"mean_delta_pp": "+.2f", "min_delta_pp": "+.2f",
                                    "max_delta_pp": "+.2f"})]
    blocks.insert(0, figure_block("fig-modifiers", _("Modifier worth"), plots.modifier_plot(table),
                                  _("Change in P(success) from each modifier (exact), by "
                               "system."), _("Chart of what each modifier is worth"),
                                  settings))
    return Section("modifiers", title, reading, blocks)
