"""Section: how steeply each system's success curve rises on its native axis."""

from __future__ import annotations

import numpy as np
import pandas as pd

from engines.system import registry
from reports import plotting
from reports.i18n import _, decimal, percent
from reports.sections.common import curves, figure_block, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_native_spread", "spread_curve", "spread_frame", "spread_task"]


def spread_task(system: str) -> tuple[str, dict, str]:
    """A system's representative task: the axis a character improves along, the other
    axes held, a label (its ``Report.spread``; by default its competence axis with
    every other axis at its neutral)."""
    spec = registry()[system]
    if spec.report.spread is not None:
        axis, fixed, label = spec.report.spread
        return axis, dict(fixed), _(label)
    axis = spec.ladder.competence_axis if spec.ladder else next(iter(spec.checks.axes))
    fixed = {a: spec.checks.held(a) for a in spec.checks.axes if a != axis}
    return axis, fixed, ", ".join(f"{a} {v}" for a, v in fixed.items())


def _crossing(x: np.ndarray, p: np.ndarray, level: float) -> float:
    """First axis value where the rising curve reaches ``level`` (linear interpolation)."""
    above = np.nonzero(p >= level)[0]
    if not len(above):
        return float("nan")
    i = int(above[0])
    if i == 0:
        return float(x[0]) if p[0] == level else float("nan")
    return float(x[i - 1] + (level - p[i - 1]) * (x[i] - x[i - 1]) / (p[i] - p[i - 1]))


def spread_curve(settings: ReportSettings, system: str) -> tuple[np.ndarray, np.ndarray]:
    axis, fixed, _task = spread_task(system)
    t = curves(settings, system)
    for key, value in fixed.items():
        t = t[t[key] == value]
    t = t.sort_values(axis)
    return t[axis].to_numpy(float), t["p_exact"].to_numpy(float)


def spread_frame(settings: ReportSettings) -> pd.DataFrame:
    """How fast each system's representative curve rises along its own axis (exact)."""
    rows = []
    for system in settings.systems:
        axis, _fixed, task = spread_task(system)
        x, p = spread_curve(settings, system)
        x10, x50, x90 = (_crossing(x, p, q) for q in (0.1, 0.5, 0.9))
        rows.append(
            {
                "system": system,
                "task": task,
                "axis": _(axis),
                "value at 50%": x50,
                "steps 10% → 90%": x90 - x10,
                "largest gain per step (pp)": float(100 * np.max(np.diff(p))),
                "lowest P": float(p.min()),
                "highest P": float(p.max()),
            }
        )
    return pd.DataFrame(rows)


def section_native_spread(settings: ReportSettings) -> Section:
    """Cross-system view available from the check models alone: slope on native axes."""
    frame = spread_frame(settings)
    reading = [
        _(
            "Each system's dial moves in its own units (a die, a point of modifier, "
            "a percent of skill). For one representative task per system, this counts "
            "how many of those steps separate a {low} chance from a {high} chance: "
            "few steps means each improvement is a big jump (and the character sheet "
            "matters a lot); many steps means fine-grained, gradual progress."
        ).format(low=percent(0.1, 0), high=percent(0.9, 0)),
        _(
            "The common competence/difficulty ladder (its own section) compares the "
            "systems on shared terms; this view needs no mapping at all."
        ),
    ]
    for row in frame.itertuples(index=False):
        if np.isnan(row[4]):  # the axis never spans 10% to 90% (a short plug-in axis)
            reading.append(
                _(
                    "{system}: along its {axis} axis ({task}) the chance stays "
                    "between {floor} and {ceiling}, so it never spans {low} to "
                    "{high}; one step can add up to {gain} points."
                ).format(
                    system=row.system,
                    axis=row.axis,
                    task=row.task,
                    floor=pct(row[6]),
                    ceiling=pct(row[7]),
                    low=percent(0.1, 0),
                    high=percent(0.9, 0),
                    gain=decimal(row[5], 1),
                )
            )
            continue
        reading.append(
            _(
                "{system}: {steps} {axis} steps from {low} to {high} ({task}); "
                "one step can add up to {gain} points; the chance stays between "
                "{floor} and {ceiling}."
            ).format(
                system=row.system,
                steps=decimal(row[4], 1),
                axis=row.axis,
                task=row.task,
                low=percent(0.1, 0),
                high=percent(0.9, 0),
                gain=decimal(row[5], 1),
                floor=pct(row[6]),
                ceiling=pct(row[7]),
            )
        )
    blocks: list = [
        table_block(
            "native-spread",
            _("Slope on native axes"),
            frame,
            _(
                "Representative task per system; axis value where P reaches "
                "50%, number of axis steps from 10% to 90% (interpolated), "
                "largest single-step gain, and the floor/ceiling of P on the "
                "axis range (exact)."
            ),
            formats={
                "value at 50%": ".2f",
                "steps 10% → 90%": ".2f",
                "largest gain per step (pp)": ".1f",
            },
        )
    ]
    fig, (ax,) = plotting.new_figure(1, width=6.8, height=3.2)
    for i, system in enumerate(settings.systems):
        x, p = spread_curve(settings, system)
        x50 = frame.loc[frame["system"] == system, "value at 50%"].iloc[0]
        ax.plot(
            x - x50,
            p,
            color=plotting.system_color(system),
            linestyle=plotting.LINESTYLES[i % len(plotting.LINESTYLES)],
            marker=plotting.MARKERS[i % len(plotting.MARKERS)],
            markersize=3,
            markevery=max(1, len(x) // 20),
            label=system,
            linewidth=1.6,
        )
    ax.set_xlim(-25, 25)
    ax.set_xlabel(_("steps on the system's own axis, from its 50% point (dice or points)"))
    plotting.probability_axis(ax)
    ax.legend(loc="lower right")
    blocks.insert(
        0,
        figure_block(
            "fig-native-spread",
            _("Curves centred on their 50% point"),
            fig,
            _(
                "Exact P(success) of each system's representative task "
                "against native axis steps, shifted so every curve crosses "
                "50% at 0."
            ),
            _("Line chart comparing how steeply each system's success curve rises"),
            settings,
        ),
    )
    return Section("native-spread", _("Across systems: steps on native axes"), reading, blocks)
