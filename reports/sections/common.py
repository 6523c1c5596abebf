"""Shared pieces of the report sections: cached check frames, percentages, table and
figure blocks."""

from __future__ import annotations

import dataclasses
import functools
from functools import lru_cache

import numpy as np
import pandas as pd

from analysis.checks import curves as checks
from engines.system import registry
from reports import plotting
from reports.i18n import N_, _, percent
from reports.settings import ReportSettings
from reports.structure import Caption, Figure, Section, Table

__all__ = [
    "HAS",
    "MAPPED",
    "PARTS",
    "curves",
    "curves_cached",
    "figure_block",
    "for_systems_with",
    "outcomes",
    "p_at",
    "pct",
    "pivot",
    "skipped",
    "system_summary",
    "table_block",
    "variant_map",
]


def system_summary(system: str) -> str:
    """What a system's success means, in plain words (its ``Report.summary``,
    translated; its name when it has none)."""
    spec = registry()[system]
    return _(spec.report.summary) if spec.report.summary else spec.name


#: the parts of a system a section may need (:data:`HAS`) and how the skip sentence
#: names them
PARTS = {
    "opposed": N_("opposed-check rule"),
    "combat": N_("combat rules"),
    "campaign": N_("campaign mechanics"),
    "modifiers": N_("modifiers"),
}
#: whether a :class:`engines.system.System` has each part of :data:`PARTS`
HAS = {
    "opposed": lambda spec: spec.checks.opposed is not None,
    "combat": lambda spec: spec.combat is not None,
    "campaign": lambda spec: spec.campaign is not None,
    "modifiers": lambda spec: bool(spec.checks.modifiers),
}
#: the part the combat sections need: combat rules and fights in the cross-combat
#: mapping file (a plug-in opts in by a mapping)
MAPPED = "cross_combat"


def _mapped(settings: ReportSettings) -> set[str]:
    from analysis.combat import cross_combat

    return set(cross_combat.load_cross(settings.cross_combat)["systems"])


def _left_out(system: str, part: str, settings: ReportSettings) -> str | None:
    """The sentence leaving ``system`` out of a section needing ``part`` (None: in)."""
    spec = registry()[system]
    if part == MAPPED:
        if spec.combat is None:
            return skipped(system, PARTS["combat"])
        if system not in _mapped(settings):
            return _(
                "{system} is not in this section: the cross-combat mapping file "
                "({file}) maps no fights for it."
            ).format(system=system, file=settings.cross_label)
        return None
    return None if HAS[part](spec) else skipped(system, PARTS[part])


def for_systems_with(part: str, section_id: str, title: str):
    """Decorate a section that needs a part of a system (a key of :data:`PARTS`, or
    :data:`MAPPED` for the combat sections): it runs on the report's systems that have
    it, and every other system gets one sentence saying it is left out (with none left,
    the section is those sentences alone)."""

    def wrap(fn):
        @functools.wraps(fn)
        def section(settings: ReportSettings):
            out_notes = {s: _left_out(s, part, settings) for s in settings.systems}
            have = tuple(s for s in settings.systems if out_notes[s] is None)
            notes = [n for n in out_notes.values() if n is not None]
            if not notes:
                return fn(settings)
            if not have:
                return Section(section_id, _(title), notes, [])
            out = fn(dataclasses.replace(settings, systems=have))
            if out is not None:
                out.reading.extend(notes)
            return out

        return section

    return wrap


def skipped(system: str, part: str) -> str:
    """The one sentence saying a section leaves out a system that does not declare the
    part it needs (``part``: a msgid such as "an opposed-check rule")."""
    return _("{system} is not in this section: it declares no {part}.").format(
        system=system, part=_(part)
    )


@lru_cache(maxsize=16)
def curves_cached(system: str, variants: tuple[str, ...], trials: int, seed: int) -> pd.DataFrame:
    """The success curves of ``system`` (exact and Monte Carlo), kept for the report's
    sections; :func:`curves` returns a copy."""
    return checks.success_curves(system, "both", trials=trials, seed=seed, variants=list(variants))


def curves(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Success-curve table (exact and Monte Carlo side by side) of ``system``."""
    return curves_cached(
        system, settings.variants_of(system), settings.trials, settings.system_seed(system)
    ).copy()


@lru_cache(maxsize=16)
def _outcomes_cached(
    system: str, variants: tuple[str, ...], trials: int, seed: int
) -> pd.DataFrame:
    exact = checks.outcome_summary(system, list(variants))
    mc = checks.outcome_summary(system, list(variants), method="mc", trials=trials, seed=seed)
    out = exact.copy()
    out["mean_mc"] = mc["mean"].to_numpy()
    out["se_mean"] = mc["se_mean"].to_numpy()
    return out


def outcomes(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Exact mean/SD of the raw outcome per roll setting, with a Monte Carlo mean ± SE."""
    return _outcomes_cached(
        system, settings.variants_of(system), settings.trials, settings.system_seed(system) + 8
    ).copy()


def p_at(frame: pd.DataFrame, column: str = "p_exact", **axes) -> float:
    """The ``column`` value of the one row of ``frame`` at the given axis values."""
    sel = np.ones(len(frame), bool)
    for key, value in axes.items():
        sel &= (frame[key] == value).to_numpy()
    return float(frame.loc[sel, column].iloc[0])


def pct(p: float) -> str:
    """A probability as a percentage for prose in the report's language (``0.4567`` →
    ``"45.7%"``; pt-BR ``"45,7 %"``)."""
    return percent(p)


def pivot(
    frame: pd.DataFrame,
    index: str,
    columns: str,
    value: str = "p_exact",
    index_values=None,
    column_values=None,
) -> pd.DataFrame:
    """``frame``'s ``value`` as a table of ``index`` rows by ``columns`` columns (in the
    given value orders when given)."""
    view = frame.pivot(index=index, columns=columns, values=value)
    if index_values is not None:
        view = view.loc[list(index_values)]
    if column_values is not None:
        view = view[list(column_values)]
    view.columns = [str(c) for c in view.columns]
    return view.reset_index()


def table_block(
    id_: str,
    title: str,
    frame: pd.DataFrame,
    caption: str,
    *,
    index=(),
    full: pd.DataFrame | None = None,
    column_label: str = "",
    **kw,
) -> Table:
    """A report :class:`~reports.structure.Table` with its caption."""
    return Table(
        id=id_,
        title=title,
        frame=frame,
        caption=Caption(caption),
        index=tuple(index),
        full=full,
        column_label=column_label,
        **kw,
    )


def figure_block(
    id_: str, title: str, fig, caption: str, alt: str, settings: ReportSettings
) -> Figure:
    """A report :class:`~reports.structure.Figure` of a matplotlib figure, drawn at the
    report's dpi."""
    return Figure(
        id=id_,
        title=title,
        data=plotting.to_png(fig, settings.dpi),
        caption=Caption(caption),
        alt=alt,
    )


def variant_map(settings: ReportSettings) -> dict[str, list[str]]:
    """``{system: its variants}`` of the report's systems that set any."""
    return {s: list(settings.variants_of(s)) for s in settings.systems if settings.variants_of(s)}
