"""Figures for single checks: success curves, the cross-system ladder, C7, modifier values.

Every function builds a fresh :class:`matplotlib.figure.Figure` on the Agg canvas (no
pyplot, no global state) and returns it; callers save it (``fig.savefig(path)``) or embed
it. Each system has one fixed colour from the Okabe–Ito colour-blind-safe palette
(:data:`SYSTEM_COLORS`) in every figure; lines within one system are told apart by line
style and marker. Monte Carlo tables (with an ``se`` column) are drawn with ±2 SE bars.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from analysis.text import N_, Text
from engines.errors import InputError
from engines.system import get

__all__ = [
    "SPARE_COLORS",
    "SYSTEM_COLORS",
    "SYSTEM_LABELS",
    "c7_heatmap",
    "curve_spec",
    "ladder_plot",
    "modifier_plot",
    "new_figure",
    "success_curve_plot",
    "whole_ticks",
]

#: Colours for systems that declare none (their ``color`` hook), in registry order.
SPARE_COLORS = ("#CC79A7", "#000000", "#999999", "#F0E442", "#882255", "#44AA99")


class _BySystem(dict):
    """System id → ``read(spec, systems)`` of the system's ``System`` (``engines.system``),
    read from the registry on first use (iterated, it lists every installed system); an
    id that is not installed is a ``KeyError``. The values follow the registry: when it
    changes (a plug-in registered or gone, an entry replaced), they are read again."""

    def __init__(self, read):
        super().__init__()
        self._read = read
        self._systems: dict = {}  # the registry the values were read from

    def _sync(self):
        from engines.system import registry

        systems = registry()
        if len(systems) != len(self._systems) or any(
            self._systems.get(sid) is not spec for sid, spec in systems.items()
        ):
            super().clear()
            self._systems = dict(systems)
        return systems

    def __getitem__(self, system: str):
        self._sync()
        return super().__getitem__(system)

    def __contains__(self, system) -> bool:
        return system in self._sync()

    def __missing__(self, system: str):
        systems = self._systems
        if system not in systems:
            raise KeyError(system)
        self[system] = value = self._read(systems[system], systems)
        return value

    def get(self, system, default=None):
        try:
            return self[system]
        except KeyError:
            return default

    def _filled(self):
        for system in self._sync():
            self[system]
        return super()

    # read as a whole (iterated, listed, counted), it holds every installed system
    def __iter__(self):
        return self._filled().__iter__()

    def __len__(self):
        return self._filled().__len__()

    def keys(self):
        return self._filled().keys()

    def values(self):
        return self._filled().values()

    def items(self):
        return self._filled().items()


def _colour(spec, systems) -> str:
    """The system's ``color``, else a spare colour by its place among the colourless."""
    if spec.report.color:
        return spec.report.color
    colourless = [s for s in systems if not systems[s].report.color]
    return SPARE_COLORS[colourless.index(spec.id) % len(SPARE_COLORS)]


#: One fixed colour per system in every figure: the system's ``color`` (the built-ins use
#: the Okabe–Ito colour-blind-safe palette), else a spare colour.
SYSTEM_COLORS = _BySystem(_colour)
#: The figure label of a system: ``id (label)`` (its ``label``, else its ``name``).
SYSTEM_LABELS = _BySystem(lambda spec, _systems: f"{spec.id} ({spec.report.label or spec.name})")
_STYLES = ["-", "--", ":", "-.", (0, (5, 1)), (0, (3, 1, 1, 1, 1, 1))]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">"]


def curve_spec(system: str) -> dict[str, Any]:
    """What :func:`success_curve_plot` draws for ``system``: the first panel of its
    ``Report.curve_panels`` hook (x axis, one line per value of ``line``, axes held),
    else a plain view: the competence axis across, one line per difficulty value (at
    most six), every other axis at its neutral (``Checks.neutral``)."""
    s = get(system)
    if s.report.curve_panels:
        panel = s.report.curve_panels[0]
        return {
            "x": panel.x,
            "line": panel.lines,
            "fixed": dict(panel.fixed),
            "lines": list(panel.values),
            "xlabel": panel.xlabel or panel.x,
            "legend": panel.legend or panel.lines,
        }
    checks = s.checks
    names = list(checks.axes)
    x = s.ladder.competence_axis if s.ladder else names[0]
    line = s.ladder.difficulty_axis if s.ladder else next((n for n in names if n != x), x)
    fixed = {n: checks.held(n) for n in names if n not in (x, line)}
    return {
        "x": x,
        "line": line,
        "fixed": fixed,
        "lines": list(checks.axes[line])[:6],
        "xlabel": x,
        "legend": line,
    }


def new_figure(width: float = 7.0, height: float = 4.5) -> Figure:
    """A matplotlib figure (constrained layout, Agg canvas) of ``width`` × ``height`` inches,
    outside pyplot's global state."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _whole(values) -> bool:
    values = np.asarray(values, dtype=float).ravel()
    values = values[np.isfinite(values)]
    return values.size > 0 and bool(np.all(values == np.round(values)))


def whole_ticks(fig: Figure) -> Figure:
    """Whole ticks on every axis that only counts whole things: an x or y axis whose
    lines and markers all sit on whole numbers (a pool, a session, a round, a DC, a state
    of a campaign) gets :class:`~matplotlib.ticker.MaxNLocator` ``(integer=True)``, so
    no "2.5 dice" tick appears; an axis with ticks set by hand (names, chosen values)
    or any fractional datum keeps its ticks. Returns ``fig``."""
    from matplotlib.ticker import FixedLocator, MaxNLocator

    for ax in fig.axes:
        lines = [ln for ln in ax.get_lines() if np.size(ln.get_xdata())]
        if not lines:
            continue
        for axis, data in (
            (ax.xaxis, [ln.get_xdata() for ln in lines]),
            (ax.yaxis, [ln.get_ydata() for ln in lines]),
        ):
            if isinstance(axis.get_major_locator(), FixedLocator):
                continue
            if all(_whole(d) for d in data):
                axis.set_major_locator(MaxNLocator(integer=True))
    return fig


def _p_column(table: pd.DataFrame) -> str:
    for col in ("p", "p_mc", "p_exact"):
        if col in table:
            return col
    raise InputError("plot: the table has no probability column (p, p_mc or p_exact)")


def success_curve_plot(system: str, table: pd.DataFrame | None = None, variants=None) -> Figure:
    """P(success) on ``system``'s native axes, one line per difficulty (or level / DC):
    the view :func:`curve_spec` gives.

    ``table`` is a :func:`analysis.checks.curves.success_curves` table (default: exact, computed
    here); a Monte Carlo table is drawn with ±2 SE error bars.
    """
    spec = curve_spec(system)
    if table is None:
        from analysis.checks.curves import success_curves

        table = success_curves(system, variants=variants)
    pcol = _p_column(table)
    sel = table
    for k, v in spec["fixed"].items():
        if k in sel:
            sel = sel[sel[k] == v]
    fig = new_figure()
    ax = fig.add_subplot()
    color = SYSTEM_COLORS[system]
    lines = [x for x in spec["lines"] if (sel[spec["line"]] == x).any()]
    for i, value in enumerate(lines):
        part = sel[sel[spec["line"]] == value].sort_values(spec["x"])
        kw = {
            "color": color,
            "linestyle": _STYLES[i % len(_STYLES)],
            "marker": _MARKERS[i % len(_MARKERS)],
            "markersize": 3,
            "label": f"{value}",
        }
        if "se" in part and pcol in ("p", "p_mc"):
            ax.errorbar(part[spec["x"]], part[pcol], yerr=2 * part["se"], capsize=2, **kw)
        else:
            ax.plot(part[spec["x"]], part[pcol], **kw)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel("P(success)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(SYSTEM_LABELS[system])
    ax.grid(alpha=0.3)
    ax.legend(title=spec["legend"], fontsize="small")
    return whole_ticks(fig)


def ladder_plot(table: pd.DataFrame | None = None) -> Figure:
    """The common ladder: P(success) by competence rung, one line per system (fixed
    colours), one panel per difficulty rung (a :func:`analysis.checks.ladders.ladder_table`)."""
    if table is None:
        from analysis.checks.ladders import ladder_table

        table = ladder_table()
    diffs = table.sort_values("difficulty_rank")["difficulty"].drop_duplicates().tolist()
    comps = table.sort_values("competence_rank")["competence"].drop_duplicates().tolist()
    fig = new_figure(3.2 * len(diffs), 3.8)
    axes = fig.subplots(1, len(diffs), sharey=True, squeeze=False)[0]
    for ax, diff in zip(axes, diffs, strict=True):
        part = table[table["difficulty"] == diff]
        for j, system in enumerate(dict.fromkeys(part["system"])):
            s = part[part["system"] == system].sort_values("competence_rank")
            ax.plot(
                s["competence_rank"],
                s["p"],
                color=SYSTEM_COLORS.get(system, "#000000"),
                marker=_MARKERS[j % len(_MARKERS)],
                label=system,
            )
        ax.set_title(f"{diff.replace('_', ' ')} task")
        ax.set_xticks(range(len(comps)), [c.replace("_", " ") for c in comps], rotation=30)
        ax.set_xlabel("competence")
        ax.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("P(success)")
    axes[-1].legend(fontsize="small", loc="lower right")
    return fig


def c7_heatmap(table: pd.DataFrame | None = None) -> Figure:
    """C7: delta (pp) of "+2 dice" over "−1 difficulty" per pool × difficulty; cells where
    the claim breaks (``|delta|`` above the tolerance) are marked ×. One panel per variant set
    (a :func:`analysis.checks.claims.claim_c7_table`, or several stacked)."""
    if table is None:
        from analysis.checks.claims import claim_c7

        table, _ = claim_c7()
    labels = list(dict.fromkeys(table["variants"])) if "variants" in table else ["default"]
    fig = new_figure(5.0 * len(labels) + 1.0, 4.5)
    axes = fig.subplots(1, len(labels), squeeze=False)[0]
    vmax = max(float(table["delta_pp"].abs().max()), 1e-9)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-vmax, vmax=vmax)
    image = None
    for ax, label in zip(axes, labels, strict=True):
        part = table[table["variants"] == label] if "variants" in table else table
        grid = part.pivot(index="difficulty", columns="pool", values="delta_pp")
        holds = part.pivot(index="difficulty", columns="pool", values="holds")
        image = ax.imshow(
            grid.to_numpy(),
            origin="lower",
            aspect="auto",
            cmap="PuOr_r",
            norm=norm,
            extent=(
                float(grid.columns.min()) - 0.5,
                float(grid.columns.max()) + 0.5,
                grid.index.min() - 0.5,
                grid.index.max() + 0.5,
            ),
        )
        ys, xs = np.nonzero(~holds.to_numpy(dtype=bool))
        ax.scatter(
            grid.columns.to_numpy()[xs],
            grid.index.to_numpy()[ys],
            marker="x",
            color="black",
            s=14,
            label="claim breaks",
        )
        ax.set_xlabel("pool (dice before +2)")
        ax.set_ylabel("difficulty (successes before −1)")
        ax.set_title(
            Text(
                N_("C7, dice_pool_6 — {label}"),
                label=Text(N_("default")) if label == "default" else label,
            )
        )
        if len(xs):
            ax.legend(loc="upper left", fontsize="small")
    assert image is not None  # a figure of at least one variant
    fig.colorbar(image, ax=list(axes), label="P(+2 dice) − P(−1 difficulty), pp")
    return fig


def modifier_plot(table: pd.DataFrame | None = None, lo: float = 0.05, hi: float = 0.95) -> Figure:
    """What each modifier is worth: mean change in P(success) (pp) over the base cells
    whose chance is in [lo, hi], with the min–max range; bars in the system's colour."""
    from analysis.checks.modifiers import modifier_summary, modifier_table

    if table is None:
        table = modifier_table()
    s = modifier_summary(table, lo, hi)
    fig = new_figure(7.5, 0.32 * len(s) + 1.5)
    ax = fig.add_subplot()
    y = np.arange(len(s))[::-1]
    colors = [SYSTEM_COLORS.get(x, "#000000") for x in s["system"]]
    err = np.vstack(
        [s["mean_delta_pp"] - s["min_delta_pp"], s["max_delta_pp"] - s["mean_delta_pp"]]
    )
    ax.barh(y, s["mean_delta_pp"], color=colors, xerr=err, capsize=2, error_kw={"elinewidth": 0.8})
    # each label a sentence of its own (the modifier's name is a msgid of the catalogue),
    # so the report shows it in its language (reports.i18n.text)
    ax.set_yticks(
        y,
        [
            Text(N_("{modifier} ({rule})"), modifier=Text(m), rule=r)
            for m, r in zip(s["modifier"], s["rule"], strict=True)
        ],
        fontsize="small",
    )
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(
        Text(
            N_(
                "change in P(success), percentage points\n(mean and min–max over "
                "base chances {lo:g}–{hi:g})"
            ),
            lo=lo,
            hi=hi,
        )
    )
    ax.grid(axis="x", alpha=0.3)
    systems = list(dict.fromkeys(s["system"]))
    ax.legend(
        handles=[Patch(color=SYSTEM_COLORS[x], label=x) for x in systems],
        fontsize="small",
        loc="lower right",
    )
    return fig
