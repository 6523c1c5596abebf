"""Success-curve tables for single checks on each system's native axes.

Every table is built the same way: the engine gives a distribution over outcome codes
for each *roll setting* (pool size, roll mode, bonus dice), exactly or by Monte Carlo,
and each grid cell is a (roll setting, set of successful codes) pair. So exact and Monte
Carlo tables share one definition of success, and a cell's Monte Carlo standard error is
that of a binomial proportion: ``sqrt(p (1 - p) / trials)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.progress import bar
from engines import checks
from engines.errors import InputError
from engines.rng import Seed
from engines.system import get, registry
from engines.variants import parse_variants

__all__ = [
    "AXES",
    "DEFAULT_TRIALS",
    "METHODS",
    "PROGRESS_WORK",
    "Grid",
    "SystemMap",
    "agreement",
    "axis_product",
    "build_grid",
    "kernel_args",
    "mc_progress",
    "outcome_summary",
    "put_p",
    "settings_exact",
    "settings_mc",
    "success_curves",
    "variants_for",
]

METHODS = ("exact", "mc", "both")
DEFAULT_TRIALS = 200_000


class SystemMap(Mapping):
    """``{system id: read(System)}`` over the systems registered *now*
    (:func:`engines.system.registry`; a system ``read`` gives None for is left out):
    read again whenever the registry changes (a plug-in registered or gone, an entry
    replaced), so a table of every system never keeps one that has left."""

    def __init__(self, read: Callable[[Any], Any]):
        self._read = read
        self._systems: dict = {}
        self._values: dict = {}

    def _sync(self) -> dict:
        systems = registry()
        if len(systems) != len(self._systems) or any(
            self._systems.get(sid) is not spec for sid, spec in systems.items()
        ):
            self._systems = dict(systems)
            values = {sid: self._read(spec) for sid, spec in systems.items()}
            self._values = {sid: v for sid, v in values.items() if v is not None}
        return self._values

    def __getitem__(self, system: str):
        return self._sync()[system]

    def __iter__(self) -> Iterator[str]:
        return iter(self._sync())

    def __len__(self) -> int:
        return len(self._sync())


#: Native axes of each system's success-curve table: each system's ``axes``
#: (:class:`engines.system.System`), built-ins and plug-ins alike (:class:`SystemMap`).
AXES = SystemMap(lambda s: dict(s.checks.axes))


@dataclass
class Grid:
    """A table's cells: axis values, which roll setting each uses, which codes succeed."""

    system: str
    cells: pd.DataFrame  # axis columns
    settings: np.ndarray  # roll-setting values (pool sizes, modes, dice)
    setting_of_cell: np.ndarray  # index into settings, per cell
    mask: np.ndarray  # bool[cells, codes]: the cell's successful codes
    values: np.ndarray  # outcome value of each code (for mean / SD)


def _spec(system: str):
    """The :class:`engines.system.Checks` of ``system`` (an :class:`InputError` naming the
    known ones when it is not installed, or declares no check grid)."""
    spec = get(system).checks
    if spec.grid is None:
        raise InputError(
            f"{system}: this system declares no check grid, so there are no success curves"
        )
    return spec


def variants_for(system: str, variants: Any = None):
    """The system's variant object from ``None``, an object, a mapping or NAME=VALUE strings."""
    mod = get(system).checks.engine()  # InputError if unknown
    if isinstance(variants, mod.Variants):
        return variants
    return parse_variants(mod.Variants, variants)


def axis_product(axes: Mapping[str, Iterable]) -> pd.DataFrame:
    """Every combination of the axes' values, one row each, one column per axis."""
    idx = pd.MultiIndex.from_product([list(v) for v in axes.values()], names=list(axes))
    return idx.to_frame(index=False)


def build_grid(system: str, variants=None, axes: Mapping[str, Iterable] | None = None) -> Grid:
    """The success-curve grid of ``system`` (default: its native axes in :data:`AXES`),
    from the system's own ``Checks.grid`` hook."""
    spec = _spec(system)
    v = variants_for(system, variants)
    axes = {**spec.axes, **(axes or {})}
    cells = axis_product(axes)
    settings, setting_of_cell, mask, values = spec.grid(
        {name: cells[name].to_numpy() for name in cells.columns}, v
    )
    return Grid(
        system,
        cells,
        np.asarray(settings),
        np.asarray(setting_of_cell),
        np.asarray(mask, dtype=bool),
        np.asarray(values, dtype=float),
    )


def settings_exact(system: str, settings: np.ndarray, variants, n_codes: int) -> np.ndarray:
    """Exact code distribution per roll setting, ``[settings, codes]``."""
    spec = get(system).checks
    if spec.exact is not None:
        return np.asarray(spec.exact(settings, variants, n_codes), dtype=float)
    return np.asarray(spec.engine().exact(settings, variants), dtype=float)


def kernel_args(system: str, settings, variants) -> tuple[int, np.ndarray, np.ndarray]:
    """(system code, kernel parameters, rule array) of a system's roll settings.

    The same arguments each engine module's ``monte_carlo`` passes to
    :func:`engines.checks.run`, so a run here gives exactly the engine's counts.
    """
    spec = get(system).checks
    if spec.kernel is None:
        raise InputError(f"{system}: this system declares no Monte Carlo check kernel")
    return spec.kernel(settings, variants)


#: Trials × settings above which a Monte Carlo run shows a progress bar (about 1 s of work).
PROGRESS_WORK = 20_000_000


def mc_progress(total_sets: int, work: int, desc: str, progress: bool | None):
    """A tqdm bar over parameter sets when ``progress`` is true, or None (the default) and
    the run is long; the bar itself stays hidden when stderr is not a terminal, and
    appears only after one second."""
    if progress is False or (progress is None and work < PROGRESS_WORK):
        return None
    return bar(total_sets, desc, delay=1.0, unit="set")


def settings_mc(
    system: str,
    settings: np.ndarray,
    variants,
    n_codes: int,
    trials: int,
    seed: Seed,
    progress: bool | None = False,
) -> np.ndarray:
    """Monte Carlo code counts per roll setting, ``[settings, codes]``.

    Runs in batches of settings with a progress bar (see :func:`mc_progress`); the split
    never changes the counts: they equal the engine module's ``monte_carlo`` for the same
    seed, whatever the batch size or thread count.
    """
    spec = get(system).checks
    if spec.monte_carlo is not None:
        return np.asarray(spec.monte_carlo(settings, trials, seed, variants, n_codes))
    if spec.kernel is None:
        return np.asarray(spec.engine().monte_carlo(settings, trials, seed, variants))
    code, params, rule = kernel_args(system, settings, variants)
    pbar = mc_progress(params.size, params.size * trials, f"{system} Monte Carlo", progress)
    if pbar is None:
        return checks.run(code, params, rule, n_codes, trials, seed)
    with pbar:
        n_batches = min(params.size, 50)
        return checks.run(
            code,
            params,
            rule,
            n_codes,
            trials,
            seed,
            batch_sets=-(-params.size // n_batches),
            progress=pbar.update,
        )


def success_curves(
    system: str,
    method: str = "exact",
    *,
    trials: int = DEFAULT_TRIALS,
    seed: Seed = None,
    variants=None,
    axes: Mapping[str, Iterable] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The success-curve table of ``system``: one row per grid cell.

    Columns: ``system``, the axes, then ``p`` (exact or MC), or for ``method="mc"`` also
    ``se``, or for ``"both"`` ``p_exact``, ``p_mc``, ``se`` and ``z`` = (mc − exact) / se.
    ``progress``: show a progress bar for Monte Carlo (None = only for long runs).

    Examples
    --------
    >>> t = success_curves("percentile", axes={"skill": [60], "level": ["hard"], "dice": [0]})
    >>> float(t["p"].iloc[0])  # needs <= 30 on d100 (seed D1 example)
    0.3
    """
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    v = variants_for(system, variants)
    grid = build_grid(system, v, axes)
    n_codes = grid.mask.shape[1]
    out = grid.cells.copy()
    out.insert(0, "system", system)
    p_exact: Any = None
    p_mc = se = None
    if method in ("exact", "both"):
        probs = settings_exact(system, grid.settings, v, n_codes)
        # clipped: a sum of exact cell probabilities can exceed 1 by a rounding error
        p_exact = np.clip(np.einsum("ij,ij->i", probs[grid.setting_of_cell], grid.mask), 0, 1)
    if method in ("mc", "both"):
        counts = settings_mc(system, grid.settings, v, n_codes, trials, seed, progress)
        p_mc = np.einsum("ij,ij->i", counts[grid.setting_of_cell], grid.mask) / trials
        se = np.sqrt(p_mc * (1 - p_mc) / trials)
    # z against the exact value's own binomial SE (defined even where p_mc is 0 or 1)
    put_p(out, method, p_exact, p_mc, se, lambda: np.sqrt(p_exact * (1 - p_exact) / trials))
    return out


def agreement(table: pd.DataFrame, trials: int, variants=None) -> pd.DataFrame:
    """How the Monte Carlo cells of a ``method="both"`` table of :func:`success_curves`
    (run with ``trials`` and ``variants``) agree with the exact ones, in one row:
    ``system``, ``cells``, ``roll settings`` (the streams of simulated rolls the cells
    are read from: every cell of one roll setting counts the same rolls, so their z
    values move together),
    ``trials``, ``max |z|``, ``mean |z|``, ``cells |z| > 3``, ``max |p_mc − p|``,
    ``max SE`` and ``outside 5σ + 1/n`` (cells beyond the tests' tolerance
    ``5 sqrt(p (1 − p) / n) + 1/n``).

    Examples
    --------
    >>> t = success_curves("dice_pool_7", "both", trials=1000, seed=1)
    >>> int(agreement(t, 1000)["roll settings"].iloc[0])  # pools 0-20: one stream each
    21
    """
    if "z" not in table.columns:
        raise InputError("agreement: needs a table of method both (exact and Monte Carlo)")
    system = str(table["system"].iloc[0])
    axes = {a: sorted(table[a].unique()) for a in AXES[system] if a in table.columns}
    n_settings = len(build_grid(system, variants, axes).settings)
    tol = 5 * np.sqrt(table["p_exact"] * (1 - table["p_exact"]) / trials) + 1 / trials
    diff = (table["p_mc"] - table["p_exact"]).abs()
    z = table["z"].abs()
    return pd.DataFrame(
        [
            {
                "system": system,
                "cells": len(table),
                "roll settings": n_settings,
                "trials": trials,
                "max |z|": float(z.max()),
                "mean |z|": float(z.mean()),
                "cells |z| > 3": int((z > 3).sum()),
                "max |p_mc − p|": float(diff.max()),
                "max SE": float(table["se"].max()),
                "outside 5σ + 1/n": int((diff > tol).sum()),
            }
        ]
    )


def put_p(out, method: str, p_exact, p_mc, se, se_exact: Callable) -> None:
    """Add the probability columns of ``method`` to ``out``: ``p`` (exact), ``p``, ``se``
    (mc), or ``p_exact``, ``p_mc``, ``se`` and ``z`` (both), where ``z`` is measured in
    the exact value's own standard error ``se_exact()`` (0 where that is 0)."""
    if method == "exact":
        out["p"] = p_exact
    elif method == "mc":
        out["p"] = p_mc
        out["se"] = se
    else:
        out["p_exact"] = p_exact
        out["p_mc"] = p_mc
        out["se"] = se
        se_ex = se_exact()
        with np.errstate(divide="ignore", invalid="ignore"):
            out["z"] = np.where(se_ex > 0, (p_mc - p_exact) / se_ex, 0.0)


def outcome_summary(
    system: str,
    variants=None,
    *,
    method: str = "exact",
    trials: int = DEFAULT_TRIALS,
    seed: Seed = None,
) -> pd.DataFrame:
    """Mean and SD of each roll setting's raw outcome (successes, kept die, d100, d20)."""
    v = variants_for(system, variants)
    grid = build_grid(system, v)
    n_codes = grid.mask.shape[1]
    if method == "exact":
        probs = settings_exact(system, grid.settings, v, n_codes)
    else:
        probs = settings_mc(system, grid.settings, v, n_codes, trials, seed) / trials
    mean = probs @ grid.values
    sd = np.sqrt(np.maximum(probs @ grid.values**2 - mean**2, 0))
    out = pd.DataFrame({"system": system, "setting": grid.settings, "mean": mean, "sd": sd})
    if method != "exact":
        out["se_mean"] = sd / np.sqrt(trials)
    return out
