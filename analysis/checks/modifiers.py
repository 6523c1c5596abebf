"""What each modifier is worth: the change in P(success), in percentage points.

For every system, a grid of base checks on its native axes and the modifiers its rules
give, each citing its rule id:

- ``dice_pool_7``: focus +1 die (A3), willpower +3 dice (A4), masterwork +1 / masterful
  +2 dice (A5), specialization +2 dice (A2); axes ``pool`` (dice before the modifier) and
  ``successes`` needed.
- ``middle_3d10``: advantage keeps the highest die, disadvantage the lowest (B4, B-g2);
  axes ``bonus`` (characteristic + skill) and ``difficulty`` (B2).
- ``dice_pool_6``: specialty +1 die (C5), +2 dice, −1 difficulty (minimum 1, as C2/C-g3);
  axes ``pool`` and ``difficulty``.
- ``percentile``: one or two bonus / penalty dice (D4), pushing (D2: one second attempt,
  P = 1 − (1 − p)²); axes ``skill`` and ``level`` (D1).
- ``d20_degrees``: hero point (E9), extra effort +2 (E8), circumstance ±2 / ±5 (E6), take
  10 (E4: result 10 + bonus; the rules allow it only without stress at DC ≤ 10, or for a
  skill with no opposition — shown on every cell so its value can be read anywhere); axes
  ``bonus`` (the check's modifier before the one measured) and ``dc``; success = at least
  one degree (E1–E3).

The column ``modifier`` names the modifier measured; the base axes follow it.

Every probability is exact (the success-curve models of :mod:`analysis.checks.curves`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.checks.curves import success_curves, variants_for
from analysis.text import N_
from engines import SYSTEMS, d20_degrees
from engines.errors import InputError
from engines.system import registry


@dataclass(frozen=True)
class Modifier:
    """One modifier: its name, rule id and how it changes a base check."""

    name: str
    rule: str
    dice: int = 0        # extra dice (pools), extra tens dice (percentile)
    shift: int = 0       # added to the total (d20) / removed from the difficulty (pool 6)
    roll: str | None = None  # roll mode it switches to (middle_3d10, d20_degrees)
    push: bool = False   # D2: a second attempt


MODIFIERS: dict[str, tuple[Modifier, ...]] = {
    "dice_pool_7": (
        Modifier(N_("focus +1 die"), "A3", dice=1),
        Modifier(N_("masterwork equipment +1"), "A5", dice=1),
        Modifier(N_("masterful equipment +2"), "A5", dice=2),
        Modifier(N_("specialization +2"), "A2", dice=2),
        Modifier(N_("willpower +3 dice"), "A4", dice=3),
    ),
    "middle_3d10": (
        Modifier(N_("advantage"), "B4", roll="advantage"),
        Modifier(N_("disadvantage"), "B4, B-g2", roll="disadvantage"),
    ),
    "dice_pool_6": (
        Modifier(N_("specialty +1 die"), "C5", dice=1),
        Modifier(N_("+2 dice"), "C7", dice=2),
        Modifier(N_("-1 difficulty"), "C7", shift=1),
    ),
    "percentile": (
        Modifier(N_("1 bonus die"), "D4", dice=1),
        Modifier(N_("2 bonus dice"), "D4", dice=2),
        Modifier(N_("1 penalty die"), "D4", dice=-1),
        Modifier(N_("2 penalty dice"), "D4", dice=-2),
        Modifier(N_("push"), "D2", push=True),
    ),
    "d20_degrees": (
        Modifier(N_("hero point"), "E9", roll="hero_point"),
        Modifier(N_("extra effort +2"), "E8", shift=2),
        Modifier(N_("minor circumstance +2"), "E6", shift=2),
        Modifier(N_("major circumstance +5"), "E6", shift=5),
        Modifier(N_("minor circumstance -2"), "E6", shift=-2),
        Modifier(N_("major circumstance -5"), "E6", shift=-5),
        Modifier(N_("take 10"), "E4", roll="take_10"),
    ),
}

#: Base grids (native axes) of the modifier table.
BASE_AXES: dict[str, dict[str, Iterable]] = {
    "dice_pool_7": {"pool": range(16), "successes": range(1, 6)},
    "middle_3d10": {"bonus": range(2, 21), "difficulty": (10, 15, 20, 25)},
    "dice_pool_6": {"pool": range(1, 16), "difficulty": range(1, 7)},
    "percentile": {"skill": range(5, 100, 5), "level": ("regular", "hard", "extreme")},
    "d20_degrees": {"bonus": range(21), "dc": (5, 10, 15, 20, 25, 30)},
}


def _d20_p(modifiers: np.ndarray, dcs: np.ndarray, mode: str, v) -> np.ndarray:
    """P(at least one degree of success) for each (modifier, dc) with a roll mode (E1–E4,
    E9)."""
    probs = d20_degrees.exact([mode], v)[0]
    value, nat = d20_degrees.value_of_codes(), d20_degrees.nat_of_codes()
    deg = d20_degrees.degrees(value[None, :] + modifiers[:, None], dcs[:, None],
                              nat[None, :], v)
    return (deg >= 1) @ probs


def _lookup(curves: pd.DataFrame, keys: list[str], query: pd.DataFrame) -> np.ndarray:
    got = query[keys].merge(curves[[*keys, "p"]], on=keys, how="left")["p"].to_numpy()
    if np.isnan(got).any():  # a modified cell outside the computed curves: a bug, not input
        raise AssertionError("modifier lookup fell outside the success curves")
    return got


def modifier_values(system: str, variants: Any = None,
                    axes: dict[str, Iterable] | None = None) -> pd.DataFrame:
    """What each of ``system``'s modifiers is worth on its base grid (exact).

    Columns: ``system``, ``modifier``, ``rule``, the base axes, ``p_base``, ``p_with``,
    ``delta_pp`` = 100 × (p_with − p_base).

    Examples
    --------
    >>> t = modifier_values("percentile", axes={"skill": [50], "level": ["regular"]})
    >>> row = t[t["modifier"] == "push"].iloc[0]
    >>> round(float(row["p_with"]), 4)  # D2: 1 - (1 - 0.5)**2
    0.75
    """
    spec = registry().get(system)
    if system not in SYSTEMS and spec is not None and spec.check_grid is not None:
        return _plugin_values(spec, variants, axes)
    if system not in SYSTEMS:
        raise InputError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    v = variants_for(system, variants)
    base_axes = {**BASE_AXES[system], **(axes or {})}
    unknown = set(base_axes) - set(BASE_AXES[system])
    if unknown:
        raise InputError(f"modifiers {system}: unknown axis {sorted(unknown)[0]!r}; known: "
                         + ", ".join(BASE_AXES[system]))
    # internally the bonus axis is the success curves' "modifier" axis
    inner = {("modifier" if k == "bonus" else k): x for k, x in base_axes.items()}
    keys = list(inner)
    base = pd.MultiIndex.from_product([list(x) for x in inner.values()],
                                      names=keys).to_frame(index=False)
    frames = []
    if system in ("dice_pool_7", "dice_pool_6"):
        need = "successes" if system == "dice_pool_7" else "difficulty"
        max_dice = max(m.dice for m in MODIFIERS[system])
        pools = range(int(base["pool"].min()), int(base["pool"].max()) + max_dice + 1)
        needs = range(int(base[need].max()) + 1)
        curves = success_curves(system, axes={"pool": pools, need: needs}, variants=v)
        p_base = _lookup(curves, keys, base)
        for m in MODIFIERS[system]:
            q = base.copy()
            q["pool"] = q["pool"] + m.dice
            q[need] = np.maximum(q[need] - m.shift, 1) if m.shift else q[need]
            frames.append((m, p_base, _lookup(curves, keys, q)))
    elif system == "middle_3d10":
        curves = success_curves(system, axes={**inner, "roll": list(
            {"normal"} | {m.roll for m in MODIFIERS[system]})}, variants=v)
        p_base = _lookup(curves, [*keys, "roll"], base.assign(roll="normal"))
        for m in MODIFIERS[system]:
            frames.append((m, p_base, _lookup(curves, [*keys, "roll"], base.assign(roll=m.roll))))
    elif system == "percentile":
        dice = sorted({0} | {m.dice for m in MODIFIERS[system]})
        curves = success_curves(system, axes={**inner, "dice": dice}, variants=v)
        p_base = _lookup(curves, [*keys, "dice"], base.assign(dice=0))
        for m in MODIFIERS[system]:
            if m.push:
                p_with = 1 - (1 - p_base) ** 2
            else:
                p_with = _lookup(curves, [*keys, "dice"], base.assign(dice=m.dice))
            frames.append((m, p_base, p_with))
    else:
        mods = base["modifier"].to_numpy(dtype=np.int64)
        dcs = base["dc"].to_numpy(dtype=np.int64)
        p_base = _d20_p(mods, dcs, "roll", v)
        for m in MODIFIERS[system]:
            frames.append((m, p_base, _d20_p(mods + m.shift, dcs, m.roll or "roll", v)))
    out = []
    for m, pb, pw in frames:
        f = base.rename(columns={"modifier": "bonus"})
        f.insert(0, "rule", m.rule)
        f.insert(0, "modifier", m.name)
        f.insert(0, "system", system)
        f["p_base"] = pb
        f["p_with"] = pw
        f["delta_pp"] = 100 * (pw - pb)
        out.append(f)
    return pd.concat(out, ignore_index=True)


def _plugin_values(spec, variants, axes) -> pd.DataFrame:
    """:func:`modifier_values` of a system that declares its check grid and modifiers
    catalogue (:class:`engines.system.Modifier`): each modifier's cell against the base
    cell, both read off one exact success-curve table."""
    system = spec.id
    if not spec.modifiers:
        raise InputError(f"{system}: this system declares no modifiers, so there is no "
                         "modifier table")
    v = variants_for(system, variants)
    unknown = set(axes or {}) - set(spec.axes)
    if unknown:
        raise InputError(f"modifiers {system}: unknown axis {sorted(unknown)[0]!r}; known: "
                         + ", ".join(spec.axes))
    fixed = {a for m in spec.modifiers for a in m.sets}
    base_axes = {a: ([vals[0]] if a in fixed else list(vals)) for a, vals in spec.axes.items()}
    base_axes.update({a: list(x) for a, x in (axes or {}).items()})
    keys = list(base_axes)
    base = pd.MultiIndex.from_product(list(base_axes.values()), names=keys).to_frame(index=False)
    grid = {a: set(vals) | set(spec.axes[a]) for a, vals in base_axes.items()}
    for m in spec.modifiers:
        for a, value in m.sets.items():
            grid[a].add(value)
        for a, d in m.shifts.items():
            grid[a] |= {x + d for x in base_axes[a]}
    curves = success_curves(system, axes={a: list(x) for a, x in grid.items()}, variants=v)
    p_base = _lookup(curves, keys, base)
    out = []
    for m in spec.modifiers:
        q = base.copy()
        for a, value in m.sets.items():
            q[a] = value
        for a, d in m.shifts.items():
            q[a] = q[a] + d
        p_with = _lookup(curves, keys, q)
        # as for the built-ins, a check's own modifier axis is shown as "bonus"
        f = base.drop(columns=list(fixed)).rename(columns={"modifier": "bonus"})
        f.insert(0, "rule", m.rule)
        f.insert(0, "modifier", m.name)
        f.insert(0, "system", system)
        f["p_base"] = p_base
        f["p_with"] = p_with
        f["delta_pp"] = 100 * (p_with - p_base)
        out.append(f)
    return pd.concat(out, ignore_index=True)


def modifier_table(systems: Iterable[str] | None = None,
                   variants: dict[str, Any] | None = None) -> pd.DataFrame:
    """:func:`modifier_values` for several systems stacked (axes not used by a system are
    empty). ``variants`` maps a system id to its variants."""
    systems = list(systems or SYSTEMS)
    variants = variants or {}
    return pd.concat([modifier_values(s, variants.get(s)) for s in systems],
                     ignore_index=True)


def modifier_summary(table: pd.DataFrame, lo: float = 0.05, hi: float = 0.95) -> pd.DataFrame:
    """Per system and modifier: mean, min and max ``delta_pp`` over the cells whose base
    chance lies in [lo, hi] (where a modifier can matter), and how many cells that is."""
    live = table[(table["p_base"] >= lo) & (table["p_base"] <= hi)]
    g = live.groupby(["system", "modifier", "rule"], sort=False)["delta_pp"]
    out = g.agg(mean_delta_pp="mean", min_delta_pp="min", max_delta_pp="max",
                cells="size").reset_index()
    return out
