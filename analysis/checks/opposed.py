"""Opposed checks: P(attacker wins) over both sides' levels, ties by each system's rules.

Both sides roll (side a is the attacker / challenger, side b the defender). Each system
reduces an outcome code to a comparable *value*, and settles equal values by a tie rule:

- ``dice_pool_7`` (A1, **A-g7**): value = successes (a dramatic failure counts 0). The
  seed gives no opposed rule; this project adds gap A-g7: more successes wins and a tie
  goes to the defender (status quo), variant ``opposed_tie=reroll`` re-rolls ties.
- ``middle_3d10`` (**B5**, **B-g3**): value = kept die + modifier (characteristic +
  skill); a tie goes to the higher modifier, equal modifiers re-roll (variant ``tie=reroll``
  always re-rolls). B3's automatic results do not enter the comparison (as
  :func:`engines.systems.middle_3d10.checks.opposed`).
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
identical tie rules by construction. Each system declares its rule as an
:class:`engines.system.OpposedRule` (``Checks.opposed`` of its ``System``);
a system without one gets an :class:`~engines.errors.InputError` saying so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.checks.curves import (
    DEFAULT_TRIALS,
    METHODS,
    SystemMap,
    axis_product,
    kernel_args,
    mc_progress,
    put_p,
    settings_exact,
    variants_for,
)
from engines import checks
from engines.errors import InputError
from engines.rng import Seed
from engines.system import get

__all__ = [
    "AXES",
    "OpposedGrid",
    "build_grid",
    "opposed_exact_joint",
    "opposed_mc_joint",
    "opposed_split",
    "opposed_table",
]


def _rule(system: str):
    """The system's :class:`engines.system.OpposedRule`, or an :class:`InputError` saying
    it declares none."""
    rule = get(system).checks.opposed
    if rule is None:
        raise InputError(
            f"{system}: this system declares no opposed-check rule, so there is no opposed table"
        )
    return rule


#: Native axes of each system's opposed table: the two sides' levels (and roll settings),
#: from each system's opposed rule (:class:`engines.system.OpposedRule`).
AXES = SystemMap(lambda s: dict(s.checks.opposed.axes) if s.checks.opposed is not None else None)


@dataclass
class OpposedGrid:
    """Cells, the (setting a, setting b) pairs to roll, and each cell's pair."""

    system: str
    cells: pd.DataFrame
    settings: np.ndarray  # roll settings used by either side
    pairs: np.ndarray  # int[n_pairs, 2]: indices into settings
    pair_of_cell: np.ndarray  # index into pairs, per cell
    n_codes: int


def build_grid(system: str, variants, axes: Mapping[str, Iterable] | None = None) -> OpposedGrid:
    """The opposed grid of ``system`` (default axes: the system's opposed rule's)."""
    spec = get(system).checks
    rule = _rule(system)
    axes = {**rule.axes, **(axes or {})}
    unknown = set(axes) - set(rule.axes)
    if unknown:
        raise InputError(
            f"opposed {system}: unknown axis {sorted(unknown)[0]!r}; known: " + ", ".join(rule.axes)
        )
    cells = axis_product(axes)
    key = rule.setting_axis
    if key is None:
        side_a = np.array([rule.setting] * len(cells), dtype=object)
        side_b = side_a
    else:
        side_a = cells[f"{key}_a"].to_numpy()
        side_b = cells[f"{key}_b"].to_numpy()
    both = set(side_a) | set(side_b)
    named = any(isinstance(x, str) for x in both)
    settings = np.array(sorted(both, key=str) if named else sorted(both))
    index = {s: i for i, s in enumerate(settings.tolist())}
    ia = np.array([index[s] for s in side_a.tolist()], dtype=np.int64)
    ib = np.array([index[s] for s in side_b.tolist()], dtype=np.int64)
    pairs, pair_of_cell = np.unique(np.stack([ia, ib], axis=1), axis=0, return_inverse=True)
    n_codes = (
        spec.code_count(settings, variants)
        if spec.code_count is not None
        else spec.engine().N_CODES
    )
    # validate the settings once (bad pools, modes or dice raise InputError here)
    if spec.kernel is not None:
        kernel_args(system, settings, variants)
    return OpposedGrid(system, cells, settings, pairs, pair_of_cell.ravel(), n_codes)


def _cell_values(system: str, v, cell: dict, side: str, n_codes: int) -> np.ndarray:
    """The comparable value of each outcome code for one side of a cell."""
    return np.asarray(_rule(system).values(cell, side, v, n_codes))


def _tie_rule(system: str, v, cell: dict) -> tuple[float, bool]:
    """(share of ties a wins, whether ties re-roll) for one cell (A-g7, B-g3, C10, D3, E5)."""
    return _rule(system).tie(cell, v)


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


def opposed_mc_joint(
    system: str, v, grid: OpposedGrid, trials: int, seed: Seed, progress: bool | None = False
) -> np.ndarray:
    """Monte Carlo joint code counts per pair (:func:`engines.checks.run_pairs`)."""
    code, params, rule = kernel_args(system, grid.settings, v)
    pa, pb = params[grid.pairs[:, 0]], params[grid.pairs[:, 1]]
    pbar = mc_progress(len(pa), len(pa) * trials, f"{system} opposed Monte Carlo", progress)
    if pbar is None:
        return checks.run_pairs(code, pa, pb, rule, grid.n_codes, trials, seed)
    with pbar:
        return checks.run_pairs(
            code,
            pa,
            pb,
            rule,
            grid.n_codes,
            trials,
            seed,
            batch_sets=-(-len(pa) // min(len(pa), 50)),
            progress=pbar.update,
        )


def opposed_split(
    system: str, *, variants=None, axes: Mapping[str, Iterable] | None = None
) -> pd.DataFrame:
    """Where an exact opposed win comes from: per cell (the axes of
    :func:`opposed_table`) ``p_higher`` / ``p_tie`` / ``p_lower``, the exact chance that
    side a's result is above, equal to or below side b's, and ``p_tie_won``, the share of
    all rolls side a wins through the tie rule (A-g7, B-g3, C10, D3, E5): the tie mass
    times the share of ties it wins, or, where ties re-roll, its share of the re-rolled
    ties. ``p_higher + p_tie_won`` is :func:`opposed_table`'s ``p``.

    Examples
    --------
    >>> t = opposed_split("dice_pool_6", axes={"pool_a": [3], "pool_b": [3]})
    >>> bool(t["p_tie_won"].iloc[0] == t["p_tie"].iloc[0])  # C10: the challenger's ties
    True
    """
    v = variants_for(system, variants)
    grid = build_grid(system, v, axes)
    wtl = _win_tie(system, v, grid, opposed_exact_joint(system, v, grid))
    out = grid.cells.copy()
    out.insert(0, "system", system)
    total = wtl.sum(axis=1)
    out["p_higher"], out["p_tie"], out["p_lower"] = (wtl[:, k] / total for k in range(3))
    won = np.empty(len(out))
    for i, cell in enumerate(grid.cells.to_dict("records")):
        w, t, l_ = wtl[i] / total[i]
        share, reroll = _tie_rule(system, v, cell)
        # a re-rolled tie is won as often as a decided roll: w / (w + l)
        won[i] = t * ((w / (w + l_) if w + l_ > 0 else 0.5) if reroll else share)
    out["p_tie_won"] = won
    return out


def opposed_table(
    system: str,
    method: str = "exact",
    *,
    trials: int = DEFAULT_TRIALS,
    seed: Seed = None,
    variants=None,
    axes: Mapping[str, Iterable] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
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
        p_mc, se = _resolve(
            system, v, grid, _win_tie(system, v, grid, counts.astype(float)), trials
        )
    # z against the exact value's own standard error (defined where p_mc is 0 or 1)
    put_p(
        out,
        method,
        p_exact,
        p_mc,
        se,
        lambda: _resolve(system, v, grid, wtl_exact * trials, trials)[1],
    )
    return out
