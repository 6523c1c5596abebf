"""Success-curve tables for single checks on each system's native axes.

Every table is built the same way: the engine gives a distribution over outcome codes
for each *roll setting* (pool size, roll mode, bonus dice), exactly or by Monte Carlo,
and each grid cell is a (roll setting, set of successful codes) pair. So exact and Monte
Carlo tables share one definition of success, and a cell's Monte Carlo standard error is
that of a binomial proportion: ``sqrt(p (1 - p) / trials)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.progress import bar
from engines import SYSTEMS, checks, d20_degrees, middle_3d10, percentile, system_module
from engines.errors import InputError
from engines.rng import Seed
from engines.rolls import D20, MIDDLE, PERCENTILE, POOL
from engines.system import registry
from engines.variants import parse_variants

METHODS = ("exact", "mc", "both")
DEFAULT_TRIALS = 200_000

#: Native axes of each system's success-curve table: each system's ``axes``
#: (:class:`engines.system.System`), built-ins and plug-ins alike.
AXES = {sid: dict(s.axes) for sid, s in registry().items()}


@dataclass
class Grid:
    """A table's cells: axis values, which roll setting each uses, which codes succeed."""

    system: str
    cells: pd.DataFrame          # axis columns
    settings: np.ndarray         # roll-setting values (pool sizes, modes, dice)
    setting_of_cell: np.ndarray  # index into settings, per cell
    mask: np.ndarray             # bool[cells, codes]: the cell's successful codes
    values: np.ndarray           # outcome value of each code (for mean / SD)


def _plugin(system: str):
    """The :class:`engines.system.System` of a system that declares its own check grid
    (``check_grid``), else None (the built-in systems: their grids are below)."""
    spec = registry().get(system)
    return spec if spec is not None and spec.check_grid is not None else None


def variants_for(system: str, variants: Any = None):
    """The system's variant object from ``None``, an object, a mapping or NAME=VALUE strings."""
    spec = _plugin(system)
    mod = spec.engine() if spec is not None else system_module(system)  # InputError if unknown
    if isinstance(variants, mod.Variants):
        return variants
    return parse_variants(mod.Variants, variants)


def _product(axes: dict[str, Iterable]) -> pd.DataFrame:
    idx = pd.MultiIndex.from_product([list(v) for v in axes.values()], names=list(axes))
    return idx.to_frame(index=False)


def build_grid(system: str, variants=None, axes: dict[str, Iterable] | None = None) -> Grid:
    """The success-curve grid of ``system`` (default: its native axes in :data:`AXES`)."""
    spec = _plugin(system)
    if system not in SYSTEMS and spec is None:
        raise InputError(f"unknown system {system!r}; known: {', '.join(registry())}")
    v = variants_for(system, variants)
    axes = {**AXES[system], **(axes or {})}
    cells = _product(axes)
    if spec is not None:
        settings, setting_of_cell, mask, values = spec.check_grid(
            {name: cells[name].to_numpy() for name in cells.columns}, v)
        return Grid(system, cells, np.asarray(settings), np.asarray(setting_of_cell),
                    np.asarray(mask, dtype=bool), np.asarray(values, dtype=float))
    if system in ("dice_pool_7", "dice_pool_6"):
        mod = SYSTEMS[system]
        settings = np.array(sorted(set(cells["pool"])), dtype=np.int64)
        ncodes = mod.n_codes(int(settings.max(initial=1)), v)
        succ = mod.successes_of_codes(ncodes)
        need = cells["successes" if system == "dice_pool_7" else "difficulty"].to_numpy()
        mask = succ[None, :] >= need[:, None]
        setting_of_cell = np.searchsorted(settings, cells["pool"].to_numpy())
        return Grid(system, cells, settings, setting_of_cell, mask, succ.astype(float))
    if system == "middle_3d10":
        settings = np.array(list(middle_3d10.MODES))
        setting_of_cell = pd.Index(settings).get_indexer(cells["roll"])
        kept, special = middle_3d10.kept_of_codes(), middle_3d10.special_of_codes()
        total = kept[None, :] + cells["modifier"].to_numpy()[:, None]
        mask = (special == 1)[None, :] | ((special == 0)[None, :]
                                          & (total >= cells["difficulty"].to_numpy()[:, None]))
        return Grid(system, cells, settings, setting_of_cell, mask, kept.astype(float))
    if system == "percentile":
        settings = np.array(sorted(set(cells["dice"])), dtype=np.int64)
        setting_of_cell = np.searchsorted(settings, cells["dice"].to_numpy())
        for level in set(cells["level"]):
            percentile.success_mask(50, level, v)  # validates the level name
        skills = np.array(sorted(set(cells["skill"])), dtype=np.int64)
        levels = np.stack([percentile.level_of_rolls(int(k), v) for k in skills])
        need = cells["level"].map(percentile.LEVELS).to_numpy()
        mask = levels[np.searchsorted(skills, cells["skill"].to_numpy())] >= need[:, None]
        return Grid(system, cells, settings, setting_of_cell, mask,
                    np.arange(1, 101, dtype=float))
    # d20_degrees
    settings = np.array(["roll"])
    setting_of_cell = np.zeros(len(cells), dtype=np.int64)
    value, nat = d20_degrees.value_of_codes(), d20_degrees.nat_of_codes()
    deg = d20_degrees.degrees(value[None, :] + cells["modifier"].to_numpy()[:, None],
                              cells["dc"].to_numpy()[:, None], nat[None, :], v)
    mask = deg >= cells["degree"].to_numpy()[:, None]
    return Grid(system, cells, settings, setting_of_cell, mask, value.astype(float))


def settings_exact(system: str, settings: np.ndarray, variants, n_codes: int) -> np.ndarray:
    """Exact code distribution per roll setting, ``[settings, codes]``."""
    spec = _plugin(system)
    if spec is not None:
        return np.asarray(spec.engine().exact(settings, variants), dtype=float)
    mod = SYSTEMS[system]
    if system in ("dice_pool_7", "dice_pool_6"):
        return mod.exact(settings, variants, n_codes)[0]
    return mod.exact(settings, variants)


def kernel_args(system: str, settings, variants) -> tuple[int, np.ndarray, np.ndarray]:
    """(system code, kernel parameters, rule array) of a system's roll settings.

    The same arguments each engine module's ``monte_carlo`` passes to
    :func:`engines.checks.run`, so a run here gives exactly the engine's counts.
    """
    if system in ("dice_pool_7", "dice_pool_6"):
        return POOL, SYSTEMS[system]._check_pools(settings), variants.rule().as_array()
    if system == "middle_3d10":
        return MIDDLE, middle_3d10._modes(settings), variants.rule()
    if system == "percentile":
        return PERCENTILE, percentile._dice(settings), variants.rule()
    return D20, d20_degrees._modes(settings), variants.rule()


#: Trials × settings above which a Monte Carlo run shows a progress bar (about 1 s of work).
PROGRESS_WORK = 20_000_000


def mc_progress(total_sets: int, work: int, desc: str, progress: bool | None):
    """A tqdm bar over parameter sets when ``progress`` is true, or None (the default) and
    the run is long; the bar itself stays hidden when stderr is not a terminal, and
    appears only after one second."""
    if progress is False or (progress is None and work < PROGRESS_WORK):
        return None
    return bar(total_sets, desc, delay=1.0, unit="set")


def settings_mc(system: str, settings: np.ndarray, variants, n_codes: int, trials: int,
                seed: Seed, progress: bool | None = False) -> np.ndarray:
    """Monte Carlo code counts per roll setting, ``[settings, codes]``.

    Runs in batches of settings with a progress bar (see :func:`mc_progress`); the split
    never changes the counts: they equal the engine module's ``monte_carlo`` for the same
    seed, whatever the batch size or thread count.
    """
    spec = _plugin(system)
    if spec is not None:
        return np.asarray(spec.engine().monte_carlo(settings, trials, seed, variants))
    if system in ("dice_pool_7", "dice_pool_6"):
        # pools have their own specialised kernel (a whole pool run takes well under 1 s)
        return SYSTEMS[system].monte_carlo(settings, trials, seed, variants, n_codes)
    code, params, rule = kernel_args(system, settings, variants)
    pbar = mc_progress(params.size, params.size * trials, f"{system} Monte Carlo", progress)
    if pbar is None:
        return checks.run(code, params, rule, n_codes, trials, seed)
    with pbar:
        n_batches = min(params.size, 50)
        return checks.run(code, params, rule, n_codes, trials, seed,
                          batch_sets=-(-params.size // n_batches), progress=pbar.update)


def success_curves(system: str, method: str = "exact", *, trials: int = DEFAULT_TRIALS,
                   seed: Seed = None, variants=None,
                   axes: dict[str, Iterable] | None = None,
                   progress: bool | None = None) -> pd.DataFrame:
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
    p_exact = p_mc = se = None
    if method in ("exact", "both"):
        probs = settings_exact(system, grid.settings, v, n_codes)
        # clipped: a sum of exact cell probabilities can exceed 1 by a rounding error
        p_exact = np.clip(np.einsum("ij,ij->i", probs[grid.setting_of_cell], grid.mask), 0, 1)
    if method in ("mc", "both"):
        counts = settings_mc(system, grid.settings, v, n_codes, trials, seed, progress)
        p_mc = np.einsum("ij,ij->i", counts[grid.setting_of_cell], grid.mask) / trials
        se = np.sqrt(p_mc * (1 - p_mc) / trials)
    # z against the exact value's own binomial SE (defined even where p_mc is 0 or 1)
    put_p(out, method, p_exact, p_mc, se,
          lambda: np.sqrt(p_exact * (1 - p_exact) / trials))
    return out


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


def outcome_summary(system: str, variants=None, *, method: str = "exact",
                    trials: int = DEFAULT_TRIALS, seed: Seed = None) -> pd.DataFrame:
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
