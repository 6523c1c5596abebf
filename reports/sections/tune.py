"""Section: tune — the smallest set of knob changes that makes every guardrail of the
report's guardrail file pass at once (``rpg-balance tune``, :mod:`analysis.workflow.tune`).

Shown after Key findings when the guardrail file (``report --guardrails FILE``) has a
``[tune]`` table; absent otherwise. The reading is the command's own paragraph (in the
glossary's words, translated), with the ``rpg-balance audit FILE --set …`` command of
the candidate it names in small print; the table is the front (the knobs' values, the
edit size, the worst margin, whether every guardrail passes; the CSV holds every
guardrail's value and status and each row's command); the figure is the front over every
candidate evaluated.
"""

from __future__ import annotations

import pandas as pd

from reports.i18n import _, text
from reports.sections.common import figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Block, Reading, Section


def tune_result(settings: ReportSettings):
    """:func:`analysis.workflow.tune.tune` of the report's guardrail file, or None when
    it has no ``[tune]`` table (or the report uses the shipped file)."""
    if settings.guardrails is None:
        return None
    from analysis.workflow import tune
    from analysis.workflow.scenario import load_scenario

    if load_scenario(settings.guardrails).tune is None:
        return None
    problem = tune.load_tune(settings.guardrails)
    return tune.tune(problem, progress=False)


def front_view(result) -> pd.DataFrame:
    """The front as the page shows it, one column per candidate (the front is short, the
    knob names are long): a row per knob with its value, then the knobs changed, the
    distance, the worst margin and whether every guardrail passes."""
    from analysis.workflow.audit.edits import format_value

    t = result.table
    rows = [(k.name, [format_value(v) for v in t[k.name]]) for k in result.problem.knobs]
    rows += [
        (_("knobs changed"), [str(int(v)) for v in t["changes"]]),
        (_("distance"), [f"{v:.3g}" for v in t["distance"]]),
        (_("worst margin"), [f"{v:.3g}" for v in t["worst_margin"]]),
        (_("every guardrail passes"), [_("yes") if v else _("no") for v in t["feasible"]]),
    ]
    cols = [_("candidate {n}").format(n=i + 1) for i in range(len(t))]
    return pd.DataFrame([[name, *vals] for name, vals in rows], columns=[_("knob"), *cols])


def section_tune(settings: ReportSettings) -> Section | None:
    """The Tune page (None without a ``[tune]`` table)."""
    result = tune_result(settings)
    if result is None:
        return None
    from analysis.workflow import tune

    title = _("Tune: every guardrail at once")
    reading: list = [
        _(
            "Every guardrail of {file} is a constraint; the knobs its [tune] table allows are "
            "turned together, and the smallest edit (fewest knobs changed, then the shortest "
            "distance along them) is sought, with the worst guardrail margin as the second "
            "objective (rpg-balance tune {file})."
        ).format(file=settings.guardrails)
    ]
    reading.append(Reading(text(result.reading), tune.command(result)))
    words = {
        "infeasible": _("fails a guardrail"),
        "feasible": _("every guardrail passes"),
        "front": _("front"),
        "x": _("edit size: knobs changed + distance / (total weight + 1)"),
        "y": _("worst guardrail margin (share of the limits' width)"),
    }
    blocks: list[Block] = [
        table_block(
            "tune-front",
            _("The front"),
            front_view(result),
            _(
                "One column per candidate on the front: each knob's value, the knobs "
                "changed, the distance along them, the worst guardrail margin (negative: "
                "outside a limit) and whether every guardrail passes. The CSV has every "
                "guardrail's value and status and each candidate's rpg-balance audit "
                "--set command."
            ),
            full=result.table,
            index=(_("knob"),),
        ),
        figure_block(
            "fig-tune-front",
            _("Edit size against the worst margin"),
            tune.front_figure(result, words),
            _(
                "Every candidate evaluated: grey when a guardrail fails, blue when every "
                "guardrail passes; the front in red."
            ),
            _(
                "Scatter plot of the candidates' edit size against their worst "
                "guardrail margin, the front joined by a step line."
            ),
            settings,
        ),
    ]
    return Section("tune", title, reading, blocks)


__all__ = ["front_view", "section_tune", "tune_result"]
