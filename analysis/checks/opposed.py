"""Opposed checks: P(attacker wins) over both sides' levels, ties by each system's rules.

Both sides roll (side a is the attacker / challenger, side b the defender). Each system
reduces an outcome code to a comparable *value*, and settles equal values by a tie rule:

- ``dice_pool_7`` (A1, **A-g7**): value = successes (a dramatic failure counts 0). The
  seed gives no opposed rule; this project adds gap A-g7: more successes wins and a tie
  goes to the defender (status quo), variant ``opposed_tie=reroll`` re-rolls ties.
- ``middle_3d10`` (**B5**, **B-g3**): value = kept die + modifier (characteristic +
  skill); a tie goes to the higher modifier, equal modifiers re-roll (variant ``tie=reroll``
  always re-rolls). B3's automatic results do not enter the comparison (as
  :func:`engines.middle_3d10.opposed`).
- ``dice_pool_6`` (**C10**, C1, C-g2): value = successes; the challenger wins ties.
- ``percentile`` (**D3**, D1, D-g1): value = success level (fail < regular < hard <
  extreme; a critical counts as extreme, a fumble as a failure); a tie goes to the higher
  skill, equal skills roll off (lower d100 wins: ½ by symmetry).
- ``d20_degrees`` (**E5**): value = d20 + modifier; a tie goes to the higher bonus, equal
  bonuses roll off (½). Natural 1/20 (E3) do not enter the comparison.

So a cell's result is ``p = (W + share·T) / (1 − reroll·T)`` from the joint distribution
of the two sides' codes (``W``: a's value higher, ``T``: equal), with ``share`` and
``reroll`` fixed by the cell. Exact tables use the product of the two exact code
distributions, Monte Carlo tables the joint counts of :func:`engines.checks.run_pairs`, and
both go through the same :func:`_cell_values` and :func:`_tie_rule`, so they implement
identical tie rules by construction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.checks.curves import (
    DEFAULT_TRIALS,
    METHODS,
    _product,
    kernel_args,
    mc_progress,
    put_p,
    settings_exact,
    variants_for,
)
from engines import SYSTEMS, checks, d20_degrees, dice_pool_6, dice_pool_7, middle_3d10, percentile
from engines.errors import InputError
from engines.rng import Seed

#: Native axes of each system's opposed table: the two sides' levels (and roll settings).
AXES = {
    "dice_pool_7": {"pool_a": range(11), "pool_b": range(11)},
    "middle_3d10": {"modifier_a": range(2, 21), "modifier_b": range(2, 21),
                    "roll_a": ("normal",), "roll_b": ("normal",)},
    "dice_pool_6": {"pool_a": range(11), "pool_b": range(11)},
    "percentile": {"skill_a": range(5, 100, 5), "skill_b": range(5, 100, 5),
                   "dice_a": (0,), "dice_b": (0,)},
    "d20_degrees": {"modifier_a": range(21), "modifier_b": range(21)},
}

#: Which axis of each side picks its roll setting (the kernel parameter).
_SETTING_AXIS = {"dice_pool_7": "pool", "dice_pool_6": "pool", "middle_3d10": "roll",
                 "percentile": "dice", "d20_degrees": None}


@dataclass
class OpposedGrid:
    """Cells, the (setting a, setting b) pairs to roll, and each cell's pair."""

    system: str
    cells: pd.DataFrame
    settings: np.ndarray      # roll settings used by either side
    pairs: np.ndarray         # int[n_pairs, 2]: indices into settings
    pair_of_cell: np.ndarray  # index into pairs, per cell
    n_codes: int


def build_grid(system: str, variants, axes: dict[str, Iterable] | None = None) -> OpposedGrid:
    """The opposed grid of ``system`` (default axes: :data:`AXES`)."""
    if system not in SYSTEMS:
        raise InputError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    axes = {**AXES[system], **(axes or {})}
    unknown = set(axes) - set(AXES[system])
    if unknown:
        raise InputError(f"opposed {system}: unknown axis {sorted(unknown)[0]!r}; known: "
                         + ", ".join(AXES[system]))
    cells = _product(axes)
    key = _SETTING_AXIS[system]
    if key is None:
        side_a = np.array(["roll"] * len(cells), dtype=object)
        side_b = side_a
    else:
        side_a = cells[f"{key}_a"].to_numpy()
        side_b = cells[f"{key}_b"].to_numpy()
    settings = np.array(sorted(set(side_a) | set(side_b), key=str)
                        if key in (None, "roll") else sorted(set(side_a) | set(side_b)))
    if key in ("pool",):
        settings = settings.astype(np.int64)
    index = {s: i for i, s in enumerate(settings.tolist())}
    ia = np.array([index[s] for s in side_a.tolist()], dtype=np.int64)
    ib = np.array([index[s] for s in side_b.tolist()], dtype=np.int64)
    pairs, pair_of_cell = np.unique(np.stack([ia, ib], axis=1), axis=0, return_inverse=True)
    if system in ("dice_pool_7", "dice_pool_6"):
        n_codes = SYSTEMS[system].n_codes(int(np.max(settings, initial=1)), variants)
    else:
        n_codes = SYSTEMS[system].N_CODES
    # validate the settings once (bad pools, modes or dice raise InputError here)
    kernel_args(system, settings, variants)
    return OpposedGrid(system, cells, settings, pairs, pair_of_cell.ravel(), n_codes)


def _cell_values(system: str, v, cell: dict, side: str, n_codes: int) -> np.ndarray:
    """The comparable value of each outcome code for one side of a cell."""
    if system == "dice_pool_7":
        return dice_pool_7.successes_of_codes(n_codes)
    if system == "dice_pool_6":
        return dice_pool_6.successes_of_codes(n_codes)
    if system == "middle_3d10":
        return middle_3d10.kept_of_codes() + int(cell[f"modifier_{side}"])
    if system == "percentile":
        return np.minimum(percentile.level_of_rolls(int(cell[f"skill_{side}"]), v), 3)
    return d20_degrees.value_of_codes() + int(cell[f"modifier_{side}"])


def _tie_rule(system: str, v, cell: dict) -> tuple[float, bool]:
    """(share of ties a wins, whether ties re-roll) for one cell (A-g7, B-g3, C10, D3, E5)."""
    if system == "dice_pool_7":
        return 0.0, v.opposed_tie == "reroll"
    if system == "dice_pool_6":
        return 1.0, False
    if system == "middle_3d10":
        a, b = int(cell["modifier_a"]), int(cell["modifier_b"])
        if v.tie == "trait_then_reroll" and a != b:
            return float(a > b), False
        return 0.0, True
    axis = "skill" if system == "percentile" else "modifier"
    a, b = int(cell[f"{axis}_a"]), int(cell[f"{axis}_b"])
    return (1.0 if a > b else 0.0 if a < b else 0.5), False


def _win_tie(system: str, v, grid: OpposedGrid, joint: np.ndarray) -> np.ndarray:
    """``[cells, 3]``: joint mass (or counts) of a higher, equal, lower, per cell."""
    nc = grid.n_codes
    out = np.zeros((len(grid.cells), 3))
    for i, cell in enumerate(grid.cells.to_dict("records")):
        va = _cell_values(system, v, cell, "a", nc)
        vb = _cell_values(system, v, cell, "b", nc)
        diff = va[:, None] - vb[None, :]
        j = joint[grid.pair_of_cell[i]].reshape(nc, nc)
        out[i] = j[diff > 0].sum(), j[diff == 0].sum(), j[diff < 0].sum()
    return out


def _resolve(system: str, v, grid: OpposedGrid, wtl: np.ndarray, n: float | None):
    """P(a wins) per cell from win/tie/lose masses (exact, ``n`` None) or counts (MC, with
    its standard error: the SD of the per-trial score over the trials that decide)."""
    records = grid.cells.to_dict("records")
    p = np.empty(len(records))
    se = np.zeros(len(records))
    for i, cell in enumerate(records):
        w, t, l_ = wtl[i]
        share, reroll = _tie_rule(system, v, cell)
        if reroll:
            decided = w + l_
            p[i] = w / decided if decided > 0 else 0.5
            if n is not None and decided > 0:
                se[i] = np.sqrt(p[i] * (1 - p[i]) / decided)
        else:
            total = w + t + l_
            p[i] = (w + share * t) / total
            if n is not None:
                second = (w + share * share * t) / total
                se[i] = np.sqrt(max(second - p[i] ** 2, 0.0) / total)
    return p, se


def opposed_exact_joint(system: str, v, grid: OpposedGrid) -> np.ndarray:
    """Exact joint code distribution per pair, ``[n_pairs, n_codes²]`` (independent sides)."""
    probs = settings_exact(system, grid.settings, v, grid.n_codes)
    pa = probs[grid.pairs[:, 0]]
    pb = probs[grid.pairs[:, 1]]
    return (pa[:, :, None] * pb[:, None, :]).reshape(len(grid.pairs), -1)


def opposed_mc_joint(system: str, v, grid: OpposedGrid, trials: int, seed: Seed,
                     progress: bool | None = False) -> np.ndarray:
    """Monte Carlo joint code counts per pair (:func:`engines.checks.run_pairs`)."""
    code, params, rule = kernel_args(system, grid.settings, v)
    pa, pb = params[grid.pairs[:, 0]], params[grid.pairs[:, 1]]
    pbar = mc_progress(len(pa), len(pa) * trials, f"{system} opposed Monte Carlo", progress)
    if pbar is None:
        return checks.run_pairs(code, pa, pb, rule, grid.n_codes, trials, seed)
    with pbar:
        return checks.run_pairs(code, pa, pb, rule, grid.n_codes, trials, seed,
                                batch_sets=-(-len(pa) // min(len(pa), 50)),
                                progress=pbar.update)


def opposed_table(system: str, method: str = "exact", *, trials: int = DEFAULT_TRIALS,
                  seed: Seed = None, variants=None, axes: dict[str, Iterable] | None = None,
                  progress: bool | None = None) -> pd.DataFrame:
    """P(attacker ``a`` wins) over both sides' levels, ties by the system's rules.

    Rules: A1 + A-g7, B5 + B-g3, C10, D3, E5 (see the module docstring). Columns:
    ``system``, the axes (``pool_a, pool_b`` / ``modifier_a, modifier_b`` / ``skill_a,
    skill_b`` and roll settings), then ``p`` (exact) — for ``method="mc"`` ``p`` and ``se``,
    for ``"both"`` ``p_exact``, ``p_mc``, ``se`` and ``z`` = (mc − exact) / se.

    Examples
    --------
    >>> t = opposed_table("d20_degrees", axes={"modifier_a": [5], "modifier_b": [5]})
    >>> float(t["p"].iloc[0])  # equal bonuses: symmetric (E5 roll-off)
    0.5
    """
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    v = variants_for(system, variants)
    grid = build_grid(system, v, axes)
    out = grid.cells.copy()
    out.insert(0, "system", system)
    p_exact = p_mc = se = None
    if method in ("exact", "both"):
        wtl_exact = _win_tie(system, v, grid, opposed_exact_joint(system, v, grid))
        p_exact, _ = _resolve(system, v, grid, wtl_exact, None)
    if method in ("mc", "both"):
        counts = opposed_mc_joint(system, v, grid, trials, seed, progress)
        p_mc, se = _resolve(system, v, grid,
                            _win_tie(system, v, grid, counts.astype(float)), trials)
    # z against the exact value's own standard error (defined where p_mc is 0 or 1)
    put_p(out, method, p_exact, p_mc, se,
          lambda: _resolve(system, v, grid, wtl_exact * trials, trials)[1])
    return out
