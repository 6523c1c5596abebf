"""Section: success curves per system (exact and Monte Carlo).

What each system shows comes from its report hooks (:class:`engines.system.Report`:
``summary``, ``curve_panels``, ``curve_tables``, ``curve_reading``); a system without
them gets a plain view built from its axes, its ladder and its axes' neutral values."""

from __future__ import annotations

from itertools import product
from types import SimpleNamespace

import pandas as pd

from engines.system import CurvePanel, CurveTable, System, registry
from reports import plotting
from reports.i18n import _, decimal, percent
from reports.sections.common import (
    curves,
    figure_block,
    p_at,
    pct,
    pivot,
    system_summary,
    table_block,
)
from reports.settings import ReportSettings
from reports.structure import Figure, Paragraph, Section, Table

__all__ = [
    "TR",
    "curve_figure",
    "curve_reading",
    "curve_tables",
    "plain_panels",
    "plain_tables",
    "section_success_curves",
]

#: the formatting helpers a system's reading hooks get (``tr``)
TR = SimpleNamespace(_=lambda text: _(text), pct=pct, percent=percent, decimal=decimal)


def _select(t: pd.DataFrame, fixed) -> pd.DataFrame:
    for key, value in dict(fixed).items():
        t = t[t[key] == value]
    return t


def _name(templates, value, axis: str) -> str:
    """A line or column label from a hook's templates (one, or negative / zero / positive)."""
    if len(templates) == 3:
        template = templates[0 if value < 0 else 1 if value == 0 else 2]
    else:
        template = templates[0]
    shown = _(value) if isinstance(value, str) else value
    return _(template).format(v=shown, n=shown, **{axis: shown})


def _plain_axes(spec: System) -> tuple[str, str, dict]:
    """The x axis, the line axis and the held axes (each at its neutral) of a system
    without curve hooks."""
    names = list(spec.checks.axes)
    x = spec.ladder.competence_axis if spec.ladder else names[0]
    lines = (
        spec.ladder.difficulty_axis
        if spec.ladder
        else next((a for a in reversed(names) if a != x), x)
    )
    fixed = {a: spec.checks.held(a) for a in names if a not in (x, lines)}
    return x, lines, fixed


def plain_tables(spec: System) -> tuple[CurveTable, ...]:
    """One table per setting of the other axes: competence axis down, difficulty across."""
    x, lines, fixed = _plain_axes(spec)
    others = list(fixed)
    out = []
    for i, values in enumerate(product(*(spec.checks.axes[a] for a in others))):
        held = dict(zip(others, values, strict=True))
        where = ", ".join(f"{a} {v}" for a, v in held.items())
        out.append(
            CurveTable(
                key="-".join(str(v) for v in values),
                title=(
                    _("P(success) by {rows} and {columns}, {where}")
                    if held
                    else _("P(success) by {rows} and {columns}")
                ).format(rows=x, columns=lines, where=where),
                caption=_(
                    "Exact probability of success by {rows} (rows) and {columns} (columns)."
                ).format(rows=x, columns=lines),
                rows=x,
                columns=lines,
                fixed=held,
                row_values=tuple(spec.checks.axes[x]),
                column_values=tuple(spec.checks.axes[lines]),
                column_label=lines,
                full=i == 0,
            )
        )
    return tuple(out)


def plain_panels(spec: System) -> tuple[CurvePanel, ...]:
    x, lines, fixed = _plain_axes(spec)
    where = ", ".join(f"{a} {v}" for a, v in fixed.items())
    return (
        CurvePanel(
            x=x,
            lines=lines,
            values=tuple(spec.checks.axes[lines]),
            fixed=fixed,
            title=where,
            xlabel=x,
            legend=lines,
            legend_loc="best",
        ),
    )


def curve_tables(system: str, t: pd.DataFrame) -> list[Table]:
    """The system's success-curve grids (its ``curve_tables`` hook, or one per setting
    of its other axes); the PDF prints the first, compact, the HTML page every one."""
    spec = registry()[system]
    full = t.drop(columns=["z"])
    out: list = []
    for view in spec.report.curve_tables or plain_tables(spec):
        frame = pivot(
            _select(t, view.fixed),
            view.rows,
            view.columns,
            index_values=view.row_values,
            column_values=view.column_values,
        )
        if view.column_names is not None:
            axis_values = view.column_values or spec.checks.axes[view.columns]
            frame.columns = [view.rows] + [
                _name(view.column_names, v, view.columns) for v in axis_values
            ]
        out.append(
            table_block(
                "-".join(x for x in ("curves", system, view.key) if x),
                _(view.title),
                frame,
                _(view.caption),
                index=(view.rows,),
                full=full if view.full else None,
                column_label=_(view.column_label),
                printed=not out,
            )
        )
    return out


def curve_figure(system: str, t: pd.DataFrame, settings: ReportSettings) -> Figure:
    spec = registry()[system]
    panels = spec.report.curve_panels or plain_panels(spec)
    if len(panels) == 1:
        fig, axes = plotting.new_figure(1, width=spec.report.curve_width or 6.4)
    else:
        fig, axes = plotting.new_figure(
            len(panels), **({"width": spec.report.curve_width} if spec.report.curve_width else {})
        )
    for ax, panel in zip(axes, panels, strict=True):
        sub = _select(t, panel.fixed)
        for value, style in zip(
            panel.values, plotting.line_styles(system, len(panel.values)), strict=True
        ):
            line = sub[sub[panel.lines] == value].sort_values(panel.x)
            kw = {"markevery": panel.markevery} if panel.markevery else {}
            ax.plot(
                line[panel.x],
                line["p_exact"],
                label=_name(panel.labels, value, panel.lines),
                **kw,
                **style,
            )
        for x in panel.vlines:
            ax.axvline(x, color="#999999", linewidth=0.6, linestyle=":")
        ax.set_xlabel(_(panel.xlabel) if panel.xlabel else panel.x)
        if panel.xticks is not None:
            ax.set_xticks(panel.xticks)
        if panel.title:
            ax.set_title(_(panel.title).format(system=system, **dict(panel.fixed)))
        if panel.legend_loc is not None:
            ax.legend(
                title=_(panel.legend) if panel.legend else None,
                loc=panel.legend_loc,
                **({"ncols": panel.legend_ncols} if panel.legend_ncols > 1 else {}),
            )
    plotting.probability_axis(axes[0])
    caption = (
        _(spec.report.curve_caption)
        if spec.report.curve_caption
        else _("Exact P(success) against {x}, one line per {lines}.").format(
            x=panels[0].x, lines=panels[0].lines
        )
    )
    alt = (
        _(spec.report.curve_alt)
        if spec.report.curve_alt
        else _("Line chart of {system} success probability against {x}").format(
            system=system, x=panels[0].x
        )
    ).format(system=system)
    return figure_block(
        f"fig-curves-{system}",
        _("{system}: success curves").format(system=system),
        fig,
        caption,
        alt,
        settings,
    )


def curve_reading(system: str, t: pd.DataFrame) -> str:
    spec = registry()[system]
    if spec.report.curve_reading is not None:
        return spec.report.curve_reading(lambda **axes: p_at(t, **axes), TR)
    x, lines, fixed = _plain_axes(spec)
    first = _select(t, {**fixed, lines: spec.checks.axes[lines][0]})
    values = {
        "low": pct(first["p_exact"].min()),
        "high": pct(first["p_exact"].max()),
        "x": x,
        "lines": lines,
        "value": spec.checks.axes[lines][0],
        "system": system,
    }
    if not fixed:  # two axes only: nothing else is held
        return _(
            "{system}: P(success) runs from {low} to {high} along its {x} axis ({lines} {value})."
        ).format(**values)
    return _(
        "{system}: at {where}, P(success) runs from {low} to {high} along its {x} "
        "axis ({lines} {value})."
    ).format(where=", ".join(f"{a} {v}" for a, v in fixed.items()), **values)


def section_success_curves(settings: ReportSettings) -> Section:
    """Success curves per system on native axes: exact tables + figures (A1, B1, C1, D1, E1)."""
    blocks: list = []
    reading = [
        _(
            "How often a single check succeeds, on each system's own dials (pool "
            "size, modifier, skill, DC). All numbers here are exact (enumeration or "
            "convolution of the dice), not simulated. The printed report shows one table "
            "per system with a few of its rows and columns; the HTML report and its "
            "CSV downloads hold every grid, to full precision."
        )
    ]
    for system in settings.systems:
        t = curves(settings, system)
        reading.append(curve_reading(system, t))
        blocks.append(Paragraph(f"<b>{system}</b> — {system_summary(system)}."))
        blocks.append(curve_figure(system, t, settings))
        blocks.extend(curve_tables(system, t))
    return Section("success-curves", _("Success curves"), reading, blocks)
