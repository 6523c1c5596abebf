"""Section: what each rule's modifiers are worth; a modifier the rules allow only in some
checks (E4 take 10: a routine check) is judged only there, and, when the player chooses
it, only where it is not worse than rolling (:func:`analysis.checks.modifiers.modifier_values`,
``judged``)."""

from __future__ import annotations

import shlex
from typing import Any

import pandas as pd

from analysis.checks import plots
from reports.i18n import N_, _, format_spec, percent, text
from reports.sections.common import figure_block, for_systems_with, table_block
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = ["restricted_readings", "section_modifiers"]


def _command(system: str, variants) -> str:
    words = ["rpg-balance", "modifiers", system]
    for v in variants:
        words += ["--variant", v]
    return " ".join(shlex.quote(w) for w in [*words, "--summary"])


def restricted_readings(settings: ReportSettings, summary: pd.DataFrame) -> list:
    """One sentence per modifier the rules allow only in some checks
    (``Modifier.at_most``) or the player chooses (``Modifier.chosen``): the rule, in the
    rules' words, and its worth over the cells where it is judged, with the command
    that prints it."""
    from engines.system import get

    out: list = []
    for system in settings.systems:
        for m in get(system).checks.modifiers or ():
            if not (m.at_most or m.chosen):
                continue
            row = summary[(summary["system"] == system) & (summary["modifier"] == m.name)]
            where = _(" only in {when}").format(when=text(m.when)) if m.when else ""
            chosen = (
                _(", and a player takes it only where it is not worse than rolling")
                if m.chosen
                else ""
            )
            if row.empty:
                out.append(
                    Reading(
                        _(
                            "{system}: {modifier} ({rule}) is allowed{where}"
                            "{chosen}; no check of the table where it can matter "
                            "qualifies, so it is not judged."
                        ).format(
                            system=system,
                            modifier=text(m.name),
                            rule=m.rule,
                            where=where,
                            chosen=chosen,
                        ),
                        _command(system, settings.variants_of(system)),
                    )
                )
                continue
            r = row.iloc[0]
            out.append(
                Reading(
                    _(
                        "{system}: {modifier} ({rule}) is allowed{where}{chosen}; "
                        "judged only there, it is worth {mean} points on average "
                        "(from {low} to {high}, {n} checks)."
                    ).format(
                        system=system,
                        modifier=text(m.name),
                        rule=m.rule,
                        where=where,
                        chosen=chosen,
                        mean=format_spec(r["mean_delta_pp"], "+.1f"),
                        low=format_spec(r["min_delta_pp"], "+.1f"),
                        high=format_spec(r["max_delta_pp"], "+.1f"),
                        n=int(r["cells"]),
                    ),
                    _command(system, settings.variants_of(system)),
                )
            )
    return out


@for_systems_with("modifiers", "modifiers", N_("What a modifier is worth"))
def section_modifiers(settings: ReportSettings) -> Section:
    """Worth of each rule's modifiers in percentage points (analysis.checks.modifiers)."""
    title = _("What a modifier is worth")
    from analysis.checks.modifiers import modifier_summary, modifier_values

    table = pd.concat(
        [modifier_values(s, list(settings.variants_of(s))) for s in settings.systems],
        ignore_index=True,
    )
    summary = modifier_summary(table)
    reading = [
        _(
            "How many percentage points each modifier the rules offer adds to the "
            "chance of success, averaged over the checks where it can matter (base "
            "chance between {low} and {high}). Compare within a system to see which "
            "resource is worth spending; across systems to see how generous each "
            "is."
        ).format(low=percent(0.05, 0), high=percent(0.95, 0))
    ]
    for system in settings.systems:
        sub = summary[summary["system"] == system]
        if len(sub):
            label: Any = sub["mean_delta_pp"].abs().idxmax()  # a row label
            best = sub.loc[label]
            reading.append(
                Reading(
                    _(
                        "{system}: the strongest modifier is {modifier} "
                        "({rule}), {mean} points on average (from {low} to "
                        "{high})."
                    ).format(
                        system=system,
                        modifier=text(best["modifier"]),
                        rule=best["rule"],
                        mean=format_spec(best["mean_delta_pp"], "+.1f"),
                        low=format_spec(best["min_delta_pp"], "+.1f"),
                        high=format_spec(best["max_delta_pp"], "+.1f"),
                    ),
                    _command(system, settings.variants_of(system)),
                )
            )
    reading += restricted_readings(settings, summary)
    shown = summary.copy()  # the modifier names of analysis/checks/modifiers.py (N_)
    shown["modifier"] = [text(x) for x in shown["modifier"]]
    blocks: list = [
        table_block(
            "modifiers",
            _("Modifier worth (percentage points)"),
            shown,
            _(
                "Per modifier: mean, smallest and largest change in "
                "P(success) in percentage points over the cells whose base "
                "chance is 5–95% and where the rules allow it (a "
                "modifier the player chooses: where it is not worse than "
                "rolling), and how many cells that is (exact)."
            ),
            full=table,
            formats={"mean_delta_pp": "+.2f", "min_delta_pp": "+.2f", "max_delta_pp": "+.2f"},
        )
    ]
    blocks.insert(
        0,
        figure_block(
            "fig-modifiers",
            _("Modifier worth"),
            plots.modifier_plot(table),
            _("Change in P(success) from each modifier (exact), by system."),
            _("Chart of what each modifier is worth"),
            settings,
        ),
    )
    return Section("modifiers", title, reading, blocks)
