"""Shared pieces of the report sections: cached check frames, percentages, table and
figure blocks."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd

from analysis.checks import curves as checks
from reports import plotting
from reports.i18n import N_, percent
from reports.settings import ReportSettings
from reports.structure import Caption, Figure, Table

#: What a system's success means and its native axes, in plain words.
SYSTEM_NOTES = {
    "dice_pool_7": (N_("pool of d10, each 7+ is a success, 10s explode (A1); a pool of 0 "
                       "rolls a chance die (A-g1)"), N_("pool (dice)"),
                    N_("successes needed")),
    "middle_3d10": (N_("3d10, keep the middle die, + modifier vs difficulty (B1); two 10s "
                       "always succeed, two 1s always fail (B3)"), N_("difficulty"),
                    N_("modifier")),
    "dice_pool_6": (N_("pool of d10, each 6+ is a success (C-g1), a pair of 10s is worth 4 "
                       "(C-g2), vs a number of successes (C1)"), N_("pool (dice)"),
                    N_("difficulty")),
    "percentile": (N_("d100 roll-under the skill; hard ≤ half, extreme ≤ a fifth (D1); "
                      "bonus/penalty tens dice (D4)"), N_("skill"), N_("level")),
    "d20_degrees": (N_("d20 + modifier vs DC, each full 5 a degree; natural 20 one degree "
                       "better, natural 1 fails (E1–E3)"), N_("modifier"), N_("DC")),
}
"""The texts are msgids: show them through :func:`reports.i18n._`."""


@lru_cache(maxsize=16)
def _curves_cached(system: str, variants: tuple[str, ...], trials: int,
                   seed: int) -> pd.DataFrame:
    return checks.success_curves(system, "both", trials=trials, seed=seed,
                                 variants=list(variants))


def curves(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Success-curve table (exact and Monte Carlo side by side) of ``system``."""
    return _curves_cached(system, settings.variants_of(system), settings.trials,
                          settings.system_seed(system)).copy()


@lru_cache(maxsize=16)
def _outcomes_cached(system: str, variants: tuple[str, ...], trials: int,
                     seed: int) -> pd.DataFrame:
    exact = checks.outcome_summary(system, list(variants))
    mc = checks.outcome_summary(system, list(variants), method="mc", trials=trials,
                                seed=seed)
    out = exact.copy()
    out["mean_mc"] = mc["mean"].to_numpy()
    out["se_mean"] = mc["se_mean"].to_numpy()
    return out


def outcomes(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Exact mean/SD of the raw outcome per roll setting, with a Monte Carlo mean ± SE."""
    return _outcomes_cached(system, settings.variants_of(system), settings.trials,
                            settings.system_seed(system) + 8).copy()


def _p(frame: pd.DataFrame, column: str = "p_exact", **axes) -> float:
    sel = np.ones(len(frame), bool)
    for key, value in axes.items():
        sel &= (frame[key] == value).to_numpy()
    return float(frame.loc[sel, column].iloc[0])


def pct(p: float) -> str:
    """A probability as a percentage for prose in the report's language (``0.4567`` →
    ``"45.7%"``; pt-BR ``"45,7 %"``)."""
    return percent(p)


def _pivot(frame: pd.DataFrame, index: str, columns: str, value: str = "p_exact",
           index_values=None, column_values=None) -> pd.DataFrame:
    view = frame.pivot(index=index, columns=columns, values=value)
    if index_values is not None:
        view = view.loc[list(index_values)]
    if column_values is not None:
        view = view[list(column_values)]
    view.columns = [str(c) for c in view.columns]
    return view.reset_index()


def _table(id_: str, title: str, frame: pd.DataFrame, caption: str, *, index=(),
           full: pd.DataFrame | None = None, column_label: str = "", **kw) -> Table:
    return Table(id=id_, title=title, frame=frame, caption=Caption(caption),
                 index=tuple(index), full=full, column_label=column_label, **kw)


def _figure(id_: str, title: str, fig, caption: str, alt: str,
            settings: ReportSettings) -> Figure:
    return Figure(id=id_, title=title, data=plotting.to_png(fig, settings.dpi),
                  caption=Caption(caption), alt=alt)


def _variant_map(settings: ReportSettings) -> dict[str, list[str]]:
    return {s: list(settings.variants_of(s)) for s in settings.systems
            if settings.variants_of(s)}
