"""Section: what matters most — which knobs move each guardrail's figure
(``rpg-balance sensitivity``, :mod:`analysis.workflow.sensitivity`).

With ``report --guardrails FILE`` whose file has a ``[tune]`` table: that table's knobs
against that file's guardrails. Otherwise: the shipped guardrails against the default
knob set (``analysis/data/sensitivity.toml``: two or three rules of each system, each
over a range a designer might try). The reading is one sentence per guardrail a knob
touches (the command's own words, translated), with the command printing its indices in
small print; the table lists each touching knob's total and first-order index; the figure
ranks them per guardrail.
"""

from __future__ import annotations

import pandas as pd

from reports.i18n import _, text
from reports.sections.common import figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Block, Reading, Section

__all__ = [
    "default_knob_systems",
    "metric_words",
    "named_readings",
    "section_sensitivity",
    "sensitivity_result",
    "sensitivity_view",
]


def sensitivity_result(settings: ReportSettings):
    """``(result, knobs file or None)`` of the report's guardrail file (its own ``[tune]``
    table), or of the shipped guardrails against the default knob set; the report's
    systems only."""
    from analysis.workflow import sensitivity as sens
    from analysis.workflow.audit import DATA
    from analysis.workflow.scenario import load_scenario

    systems = tuple(settings.systems)
    if settings.guardrails is not None and load_scenario(settings.guardrails).tune:
        path, knobs = settings.guardrails, None
    elif settings.guardrails is not None:
        return None, None
    else:
        path, knobs = DATA, sens.DEFAULT_KNOBS
        if not default_knob_systems() & set(systems):
            return None, None  # a plug-in alone: the default knobs are the built-ins'
    problem = sens.load_problem(path, knobs, systems=systems)
    problem.file = _shown(path)
    return sens.sensitivity(problem), (_shown(knobs) if knobs is not None else None)


def default_knob_systems() -> set[str]:
    """The systems the default knob set (``analysis/data/sensitivity.toml``) turns."""
    from analysis.toml_input import read_toml
    from analysis.workflow import sensitivity as sens

    knobs = read_toml(sens.DEFAULT_KNOBS, "knob file").get("tune", {}).get("knobs", [])
    return {str(k.get("knob", "")).partition(":")[0] for k in knobs}


def _shown(path) -> str:
    """A path of the package as the commands in small print give it (relative to the
    project, as ``analysis/data/guardrails.toml``)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def sensitivity_view(result) -> pd.DataFrame:
    """The touching knobs of each guardrail, in words, the most influential first: the
    guardrail, the knob, its total index (ST) and first-order index (S1)."""
    from analysis.workflow.sensitivity import knob_words

    t = result.table[result.table["touches"]]
    t = t.sort_values(["guardrail", "ST"], ascending=[True, False], kind="stable")
    order = list(dict.fromkeys(result.table["guardrail"]))
    t = t.sort_values("guardrail", key=lambda c: c.map(order.index), kind="stable")
    return pd.DataFrame(
        {
            _("guardrail"): [text(g) for g in t["guardrail"]],
            _("knob"): [text(knob_words(result.problem, k)) for k in t["knob"]],
            _("total index (ST)"): t["ST"].to_numpy(),
            _("first-order index (S1)"): t["S1"].to_numpy(),
        }
    )


def metric_words(system: str, entry, metric: str) -> str | None:
    """What a duel guardrail measures with its fighters named
    (:func:`reports.sections.finding_words.fighter_words`): "the chance that a competent
    swordsman in heavy archaic armour beats a competent shooter", "the mean length of a
    duel of a competent fighter (knife) against an equal"; None for any other metric or
    a check (the glossary's phrase is used)."""
    from reports.sections.finding_words import fighter_words

    if entry is None or not hasattr(entry, "a"):
        return None
    a, b = fighter_words(system, entry.a), fighter_words(system, entry.b)
    same = ({"archetype": entry.a} if isinstance(entry.a, str) else dict(entry.a)) == (
        {"archetype": entry.b} if isinstance(entry.b, str) else dict(entry.b)
    )
    if same:
        b = _("an equal")
    if metric == "p_side0":
        return _("the chance that {a} beats {b}").format(a=a, b=b)
    if metric == "p_side1":
        return _("the chance that {b} beats {a}").format(a=a, b=b)
    if metric == "rounds_mean":
        return _("the mean length of a duel of {a} against {b}").format(a=a, b=b)
    return None


def named_readings(result) -> list:
    """The result's sentences with each duel guardrail's fighters named
    (:func:`metric_words`) where the glossary's phrase would say "fighter A"."""
    from analysis.workflow import sensitivity as sens
    from reports.sections.key_findings import guardrail_entries

    problem = result.problem
    entries = guardrail_entries(problem.scenario)
    out = []
    for g, gr in enumerate(problem.scenario.guardrails):
        rows = result.table[result.table["guardrail"] == gr.name].to_dict("records")
        if not any(r["touches"] for r in rows):
            continue
        system = rows[0]["system"]
        words = metric_words(system, entries.get(gr.name), gr.metric)
        out.append(sens.guardrail_reading(problem, g, rows, metric=words))
    return out + list(result.readings[len(out) :])  # then "no knob touches …"


def section_sensitivity(settings: ReportSettings) -> Section | None:
    """The "What matters most" page (None when the report's own guardrail file has no
    ``[tune]`` table)."""
    result, knobs = sensitivity_result(settings)
    if result is None:
        return None
    from analysis.workflow import sensitivity as sens

    cmd = sens.command(result.problem, knobs=knobs)
    reading: list = [
        Reading(
            _(
                "Which rule decides each guardrail's figure? Each knob below is turned over its "
                "whole range, all together, and the share of the figure's variation it explains "
                "is measured exactly (every combination of the levels, each figure as the audit "
                "measures it): the total index ST counts a knob alone and with every other, "
                "the first-order index S1 alone; ST well above S1 means the knob acts through "
                "another. A knob that does not touch a guardrail's fights or checks counts 0."
            ),
            cmd,
        )
    ]
    reading += [Reading(text(r), cmd) for r in named_readings(result)]
    view = sensitivity_view(result)
    labels = {k.name: text(sens.knob_words(result.problem, k.name)) for k in result.problem.knobs}
    blocks: list[Block] = [
        table_block(
            "sensitivity",
            _("The knobs each guardrail depends on"),
            view,
            _(
                "Each guardrail with the knobs that touch it, the most influential "
                "first: the total index ST (the share of the figure's variance the "
                "knob explains alone and together with the others) and the "
                "first-order index S1 (alone). The CSV has every knob, the "
                "intervals and the method."
            ),
            full=result.table,
            default_format=".2f",
        ),
        figure_block(
            "fig-sensitivity",
            _("What matters most, per guardrail"),
            sens.sensitivity_heatmap(
                result,
                labels,
                {g.name: text(g.name) for g in result.problem.scenario.guardrails},
                _("total index (ST)"),
            ),
            _(
                "The total index ST of each knob (columns) for each guardrail some "
                "knob moves (rows); a blank cell: the knob does not touch that "
                "guardrail's fights or checks."
            ),
            _("Heat map of the knobs' total Sobol' indices per guardrail."),
            settings,
        ),
    ]
    return Section("sensitivity", _("What matters most"), reading, blocks)
