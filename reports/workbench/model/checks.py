"""The checks tab: a system's success curves and the difficulty for a target chance
(:func:`analysis.checks.curves.success_curves`,
:func:`analysis.workflow.solvers.solve_difficulty`), under the engine lock, with the
command that prints the same numbers."""

from __future__ import annotations

import dataclasses
import io

import numpy as np
import pandas as pd

from ...i18n import _, decimal, percent
from ...labels import header
from .state import ALL, ENGINE_LOCK, CheckState, variant_text

__all__ = [
    "CheckResult",
    "axis_value_words",
    "check_figure",
    "check_result",
    "hold_extra_axes",
    "ladder_first",
    "png_bytes",
]


@dataclasses.dataclass
class CheckResult:
    table: pd.DataFrame  # the tidy slice (system, axes, p)
    pivot: pd.DataFrame  # competence rows × difficulty columns (or the slice)
    figure: bytes  # PNG (empty when not drawn: see :func:`check_figure`)
    solve: pd.DataFrame | None
    command: str
    solve_command: str | None
    sentence: str
    axes: dict  # the values of each axis in the slice


def check_result(c: CheckState, *, figure: bool = True) -> CheckResult:
    """The success curves of one slice of the system's native axes (exact) and the
    difficulty closest to the target chance for the chosen competence."""
    from analysis.checks.curves import success_curves, variants_for
    from analysis.workflow import solvers
    from analysis.workflow.audit import reproduce
    from engines.system import get

    spec = get(c.system)
    v = variants_for(c.system, [f"{k}={val}" for k, val in c.variants.items()])
    axes = {}
    for name, values in spec.checks.axes.items():
        chosen = c.axes.get(name, ALL)
        axes[name] = (
            list(values)
            if chosen == ALL
            else [values[[variant_text(x) for x in values].index(chosen)]]
        )
    with ENGINE_LOCK:
        table = success_curves(c.system, "exact", variants=v, axes=axes)
    comp, diff = spec.ladder.swept if spec.ladder else (None, None)
    free = [n for n, vals in axes.items() if len(vals) > 1]
    if comp in free and diff in free and len(free) == 2:
        pivot = table.pivot(index=comp, columns=diff, values="p")
    else:
        pivot = table.drop(columns="system").set_index(list(spec.checks.axes))
    fixed = {n: c.axes[n] for n in spec.checks.axes if c.axes.get(n, ALL) != ALL}
    command = " ".join(
        [reproduce.PROG, "curves", c.system, *reproduce.variant_args(c.variants), "--format", "csv"]
    )
    if fixed:
        command += (
            "  # " + _("rows with") + " " + ", ".join(f"{k}={val}" for k, val in fixed.items())
        )
    solve = solve_command = None
    from ..words import value_words, variants_words

    sentence = _("Exact chance of success in {system}, variants: {variants}.").format(
        system=c.system, variants=variants_words(c.system, c.variants)
    )
    if solvers.solver_system(c.system) is not None and c.competence:
        with ENGINE_LOCK:
            solve = solvers.solve_difficulty(c.target, int(c.competence), c.system, {c.system: v})
        words = [
            reproduce.PROG,
            "solve",
            "difficulty",
            "--target",
            repr(float(c.target)),
            "--competence",
            c.competence,
            "--system",
            c.system,
            *reproduce.variant_args(c.variants),
        ]
        solve_command = " ".join(words)
        best = solve.iloc[0]
        sentence += " " + _(
            "For {axis} {competence} and a target of {target}, the "
            "closest difficulty is {difficulty} ({p})."
        ).format(
            axis=header(comp),
            competence=c.competence,
            target=percent(c.target),
            difficulty=value_words(best["difficulty"]),
            p=percent(float(best["p"])),
        )
    png = _curve_figure(table, spec, axes) if figure else b""
    return CheckResult(table, pivot, png, solve, command, solve_command, sentence, axes)


def check_figure(c: CheckState, r: CheckResult) -> bytes:
    """The figure of a :class:`CheckResult` computed without it (the page shows the
    numbers first and draws the figure after)."""
    from engines.system import get

    return _curve_figure(r.table, get(c.system), r.axes)


def axis_value_words(value) -> str:
    """An axis value on a figure: a number in the language's style, a word (a roll mode,
    a level) in the page's words (:func:`reports.workbench.words.value_words`)."""
    import numbers

    from ..words import value_words

    if isinstance(value, numbers.Integral):
        return decimal(int(value))
    return value_words(value)


def ladder_first(spec, free: list[str]) -> list[str]:
    """The free axes with the ladder's (competence, difficulty) first: a figure draws
    those and holds the rest (a plug-in's ``roll`` before its ``level`` would otherwise
    draw roll modes at the easiest level)."""
    swept = spec.ladder.swept if spec.ladder else ()
    return sorted(free, key=lambda n: n not in swept)


def hold_extra_axes(table: pd.DataFrame, spec, extra: list[str]) -> tuple[pd.DataFrame, str]:
    """The slice ``table`` with each axis of ``extra`` (free axes a figure has no room
    for: it draws one axis along x and one as its lines) held at its neutral
    (:meth:`engines.system.Checks.held`; its first value when the slice lacks it), and
    the words that say so for the figure's title ("" when nothing is held)."""
    held = []
    for axis in extra:
        value = spec.checks.held(axis)
        if not (table[axis] == value).any():
            value = table[axis].iloc[0]
        table = table[table[axis] == value]
        held.append(f"{header(axis)} {axis_value_words(value)}")
    if not held:
        return table, ""
    return table, _("Drawn at {held}; the table shows every value.").format(held=", ".join(held))


def _curve_figure(table: pd.DataFrame, spec, axes: dict) -> bytes:
    """P(success) along the competence axis, one line per value of the other free axis
    (at most eight, evenly spread); any further free axis held at its neutral
    (:func:`hold_extra_axes`), as the title says."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    axis = spec.ladder.competence_axis if spec.ladder else None
    comp = axis if len(axes.get(axis, ())) > 1 else None
    free = ladder_first(spec, [n for n, vals in axes.items() if len(vals) > 1 and n != comp])
    table, held = hold_extra_axes(table, spec, free[1:])
    fig = Figure(figsize=(7.5, 3.6))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    if held:
        ax.set_title(held, fontsize=9)
    if comp is None:
        x = free[0] if free else table.columns[1]
        ax.plot(range(len(table)), table["p"], marker="o")
        ax.set_xticks(range(len(table)), [str(v) for v in table[x]], rotation=90, fontsize=7)
        ax.set_xlabel(header(x))
    else:
        other = free[0] if free else None
        groups = [(None, table)] if other is None else list(table.groupby(other, sort=False))
        if len(groups) > 8:
            keep = np.unique(np.linspace(0, len(groups) - 1, 8).round().astype(int))
            groups = [groups[i] for i in keep]
        for key, g in groups:
            ax.plot(
                g[comp],
                g["p"],
                marker=".",
                label=None if key is None else f"{header(other)} {axis_value_words(key)}",
            )
        ax.set_xlabel(header(comp))
        if pd.api.types.is_integer_dtype(table[comp]):  # a pool, a modifier: whole ticks
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if other is not None:  # beside the axes, never over a curve
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_ylabel(_("P(success)"))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    from ..words import figure_numbers

    figure_numbers(ax)
    fig.tight_layout()
    return png_bytes(fig)


def png_bytes(fig) -> bytes:
    """A matplotlib figure as PNG bytes (80 dpi), as the page shows it."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return buf.getvalue()
