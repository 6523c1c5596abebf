"""Section: opposed checks per system (A-g7, B5, C10, D3, E5)."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from reports import plotting
from reports.i18n import N_, _
from reports.sections.common import figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["opposed_view", "section_opposed", "tie_rule"]


def tie_rule(system: str, variants=()) -> str:
    """How ``system``'s opposed check settles a tie, in words with its rule id (the
    system's ``Report.ties`` text: A-g7, B-g3, C10, D3, E5), translated; when the
    ``variants`` in force (NAME=VALUE strings) settle ties otherwise than the defaults
    (:func:`analysis.checks.opposed.opposed_split` on a small grid), it says so."""
    from analysis.checks.opposed import AXES, opposed_split
    from engines.system import registry

    text = _(registry()[system].report.ties)
    if variants:
        axes = {k: list(v)[:3] for k, v in AXES[system].items()}
        given = opposed_split(system, variants=list(variants), axes=axes)["p_tie_won"]
        plain = opposed_split(system, axes=axes)["p_tie_won"]
        if not np.allclose(given.to_numpy(), plain.to_numpy()):
            text += " " + _(
                "(the default reading; the variants in force settle ties "
                "otherwise, see Assumptions)"
            )
    return text


def _level_axis(frame: pd.DataFrame) -> str:
    """The varying level axis of an opposed table (``pool``, ``modifier`` or ``skill``)."""
    for col in frame.columns:
        if (
            col.endswith("_a")
            and f"{col[:-2]}_b" in frame
            and pd.api.types.is_numeric_dtype(frame[col])
            and frame[col].nunique() > 1
        ):
            return col[:-2]
    raise ValueError("opposed table has no level axis")


def opposed_view(frame: pd.DataFrame, value: str = "p") -> tuple[str, pd.DataFrame]:
    """Attacker level (rows) × defender level (columns) at the first roll setting."""
    level = _level_axis(frame)
    sel = np.ones(len(frame), bool)
    for col in frame.columns:
        if col.endswith(("_a", "_b")) and col[:-2] != level:
            sel &= (frame[col] == frame[col].iloc[0]).to_numpy()
    view = frame[sel].pivot(index=f"{level}_a", columns=f"{level}_b", values=value)
    view.columns = [str(c) for c in view.columns]
    return level, view.reset_index()


def _heatmap(ax, matrix: np.ndarray, xs, ys, *, vmin, vmax, cmap, label=None):
    im = ax.imshow(
        matrix,
        origin="lower",
        aspect="auto",
        cmap=cmap,
        vmin=vmin,
        vmax=vmax,
        extent=(xs[0] - 0.5, xs[-1] + 0.5, ys[0] - 0.5, ys[-1] + 0.5),
        interpolation="nearest",
    )
    if label:
        ax.set_title(label, fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    return im


@for_systems_with("opposed", "opposed", N_("Opposed checks"))
def section_opposed(settings: ReportSettings) -> Section:
    """Opposed checks per system (A-g7, B5, C10, D3, E5) from :mod:`analysis.checks.opposed`."""
    title = _("Opposed checks")
    from analysis.checks.opposed import opposed_split, opposed_table

    blocks: list = []
    reading = [
        _(
            "Who wins when two characters roll against each other (the attacker or "
            "challenger is side a). Equal levels show what each system's tie rule "
            "does; one level up shows how much a single step of skill is worth in a "
            "contest, and how much of that the tie rule hands over: the share of all "
            "rolls won on a tie, against what an even split of the ties would give."
        )
    ]
    views = {}
    for system in settings.systems:
        frame = opposed_table(system, "exact", variants=list(settings.variants_of(system)))
        level, view = opposed_view(frame)
        views[system] = (level, view)
        m: Any = view.set_index(f"{level}_a")
        levels = [int(x) for x in m.index]
        mid = levels[len(levels) // 2]
        step = levels[1] - levels[0]
        even = float(m.loc[mid, str(mid)])
        up = float(m.loc[mid + step, str(mid)]) if mid + step in m.index else float("nan")
        name = _(level)
        ties = tie_rule(system, settings.variants_of(system))
        text = _(
            "{system} — ties: {ties}. At equal {level} {mid} the attacker wins "
            "{even}; one step up ({level} {up_level} vs {mid}) {up}."
        ).format(
            system=system,
            ties=ties,
            level=name,
            mid=mid,
            even=pct(even),
            up_level=mid + step,
            up=pct(up),
        )
        if np.isfinite(up):
            first = {
                str(c): v.iloc[0]
                for c, v in frame.items()
                if str(c).endswith(("_a", "_b")) and str(c)[:-2] != level
            }
            split = opposed_split(
                system,
                variants=list(settings.variants_of(system)),
                axes={
                    **{k: [v] for k, v in first.items()},
                    f"{level}_a": [mid + step],
                    f"{level}_b": [mid],
                },
            ).iloc[0]
            won, tied = float(split["p_tie_won"]), float(split["p_tie"])
            text += " " + _(
                "Of the {up}, {won} are ties the rule hands to the attacker "
                "({tied} of the rolls tie); with the ties split evenly it "
                "would win {fair}."
            ).format(up=pct(up), won=pct(won), tied=pct(tied), fair=pct(up - won + tied / 2))
            edge, from_ties = up - 0.5, won - tied / 2
            if edge > 0 and from_ties > edge / 2:
                text += " " + _("Most of the step's edge over an even contest is the tie-break.")
        reading.append(text)
        blocks.append(
            table_block(
                f"opposed-{system}",
                _("{system}: P(attacker wins)").format(system=system),
                view,
                _(
                    "Exact P(side a wins) by attacker {level} (rows) and "
                    "defender {level} (columns); ties: {ties}."
                ).format(level=name, ties=ties),
                index=(f"{level}_a",),
                full=frame,
                column_label=_("defender {level}").format(level=name),
            )
        )
    fig, axes = plotting.new_figure(len(views), width=7.2, height=2.5, sharey=False)
    im = None
    for ax, (system, (level, view)) in zip(axes, views.items(), strict=True):
        xs = [int(c) for c in view.columns[1:]]
        ys = [int(y) for y in view[f"{level}_a"]]
        im = _heatmap(
            ax, view.iloc[:, 1:].to_numpy(float), xs, ys, vmin=0, vmax=1, cmap="PuOr", label=system
        )
        # five panels side by side: wrap the label so neighbours do not run together
        ax.set_xlabel(
            textwrap.fill(_("defender {level}").format(level=_(level)), 12), fontsize="small"
        )
        ax.set_ylabel(_("attacker {level}").format(level=_(level)))
        ax.grid(False)
    fig.colorbar(im, ax=axes, shrink=0.9, label=_("P(attacker wins)"))
    blocks.insert(
        0,
        figure_block(
            "fig-opposed",
            _("P(attacker wins)"),
            fig,
            _(
                "Exact P(attacker wins) by both sides' levels; orange = the "
                "defender is favoured, purple = the attacker, white = even."
            ),
            _("Heat maps of opposed-check win probability"),
            settings,
        ),
    )
    return Section("opposed", title, reading, blocks)
