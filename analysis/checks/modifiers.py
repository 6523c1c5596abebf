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
  10 (E4: result 10 + bonus; the rules allow it only without stress at DC ≤ 10 — shown
  on every cell, judged only where allowed); axes ``bonus`` (the check's modifier before
  the one measured) and ``dc``; success = at least one degree (E1–E3).

A cell is ``judged`` where the rules allow the modifier (``Modifier.at_most``) and, for a
modifier the player chooses (``Modifier.chosen``: take 10), where it is not worse than
the check without it; :func:`modifier_summary` averages only judged cells.

The column ``modifier`` names the modifier measured; the base axes follow it.

Each system declares its catalogue and base grid on its ``System`` (``modifiers``,
``modifier_axes``, ``modifier_base``; :class:`engines.system.Modifier` says what a
modifier sets or shifts on which axis). Every probability is exact: read off the
success-curve models of :mod:`analysis.checks.curves`, or the system's own ``check_p``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.checks.curves import success_curves, variants_for
from engines.errors import InputError
from engines.system import get, registry

__all__ = ["BASE_AXES", "modifier_summary", "modifier_table", "modifier_values"]


def _held(spec) -> dict[str, Any]:
    """Check-grid axes the modifier table holds at one value (not shown): the system's
    ``modifier_base``, and each axis a modifier sets, at its neutral (``Checks.neutral``)."""
    held = {a: spec.held(a) for m in spec.modifiers for a in m.sets}
    held.update(spec.modifier_base)
    return held


def _shown_axes(spec) -> dict[str, tuple]:
    """The base axes a system's modifier table shows (its ``modifier`` axis as ``bonus``)."""
    held = _held(spec)
    axes = dict(spec.modifier_axes) or {a: x for a, x in spec.axes.items() if a not in held}
    return {("bonus" if a == "modifier" else a): x for a, x in axes.items()}


#: Base grids (native axes, as the table shows them) of each system's modifier table.
BASE_AXES: dict[str, Mapping[str, Iterable]] = {
    sid: _shown_axes(s.checks) for sid, s in registry().items() if s.checks.modifiers
}


def _lookup(curves: pd.DataFrame, keys: list[str], query: pd.DataFrame) -> np.ndarray:
    got = query[keys].merge(curves[[*keys, "p"]], on=keys, how="left")["p"].to_numpy()
    if np.isnan(got).any():  # a modified cell outside the computed curves: a bug, not input
        raise AssertionError("modifier lookup fell outside the success curves")
    return got


def modifier_values(
    system: str, variants: Any = None, axes: Mapping[str, Iterable] | None = None
) -> pd.DataFrame:
    """What each of ``system``'s modifiers is worth on its base grid (exact).

    The system's ``System`` gives the catalogue (``modifiers``: what each modifier sets
    or shifts on which axis of its check grid), the base grid (``modifier_axes``, the
    other grid axes held at ``modifier_base`` or at a value a modifier sets, first
    value first) and, optionally, a direct exact ``check_p``; otherwise every
    probability is read off one exact success-curve table. Columns: ``system``,
    ``modifier``, ``rule``, the base axes (a check's own ``modifier`` axis shown as
    ``bonus``), ``p_base``, ``p_with``, ``delta_pp`` = 100 × (p_with − p_base),
    ``judged`` (the rules allow the modifier there and, if the player chooses it, it is
    not worse than the check without it).

    Examples
    --------
    >>> t = modifier_values("percentile", axes={"skill": [50], "level": ["regular"]})
    >>> row = t[t["modifier"] == "push"].iloc[0]
    >>> round(float(row["p_with"]), 4)  # D2: 1 - (1 - 0.5)**2
    0.75
    """
    spec = get(system).checks
    if spec.grid is None or not spec.modifiers:
        raise InputError(
            f"{system}: this system declares no modifiers, so there is no modifier table"
        )
    v = variants_for(system, variants)
    shown = _shown_axes(spec)
    given = {("bonus" if a == "modifier" else a): x for a, x in (axes or {}).items()}
    unknown = set(given) - set(shown)
    if unknown:
        raise InputError(
            f"modifiers {system}: unknown axis {sorted(unknown)[0]!r}; known: " + ", ".join(shown)
        )
    # internally the bonus axis is the check grid's "modifier" axis
    base_axes = {
        ("modifier" if a == "bonus" else a): list(x) for a, x in {**shown, **given}.items()
    }
    fixed = _held(spec)
    for a, value in fixed.items():
        base_axes[a] = [value]
    keys = list(base_axes)
    base = pd.MultiIndex.from_product(list(base_axes.values()), names=keys).to_frame(index=False)
    queries = []
    for m in spec.modifiers:
        q = base.copy()
        for a, value in m.sets.items():
            q[a] = value
        for a, d in m.shifts.items():
            q[a] = q[a] + d
            if a in m.at_least:
                q[a] = np.maximum(q[a], m.at_least[a])
        queries.append(q)
    if spec.p is not None:

        def p_of(frame):
            return np.asarray(spec.p({a: frame[a].to_numpy() for a in keys}, v))
    else:
        grid = {a: set(x) for a, x in base_axes.items()}
        for m, q in zip(spec.modifiers, queries, strict=True):
            for a in [*m.sets, *m.shifts]:
                grid[a] |= set(q[a])
            for a, d in m.shifts.items():  # the unclamped shift too (harmless extra cells)
                grid[a] |= {x + d for x in base_axes[a]}
        curves = success_curves(
            system,
            axes={
                a: sorted(x, key=str) if any(isinstance(y, str) for y in x) else sorted(x)
                for a, x in grid.items()
            },
            variants=v,
        )

        def p_of(frame):
            return _lookup(curves, keys, frame)

    p_base = p_of(base)
    out = []
    for m, q in zip(spec.modifiers, queries, strict=True):
        p_with = p_of(q)
        if m.attempts != 1:  # D2-style second attempts: P = 1 - (1 - p)^attempts
            p_with = 1 - (1 - p_with) ** m.attempts
        f = base.drop(columns=list(fixed)).rename(columns={"modifier": "bonus"})
        f.insert(0, "rule", m.rule)
        f.insert(0, "modifier", m.name)
        f.insert(0, "system", system)
        f["p_base"] = p_base
        f["p_with"] = p_with
        f["delta_pp"] = 100 * (p_with - p_base)
        allowed = np.ones(len(base), bool)
        for a, top in m.at_most.items():
            allowed &= (base[a] <= top).to_numpy()
        f["judged"] = allowed & ((f["delta_pp"] >= 0).to_numpy() if m.chosen else True)
        out.append(f)
    return pd.concat(out, ignore_index=True)


def modifier_table(
    systems: Iterable[str] | None = None, variants: dict[str, Any] | None = None
) -> pd.DataFrame:
    """:func:`modifier_values` for several systems stacked (axes not used by a system are
    empty). ``variants`` maps a system id to its variants. Without ``systems``: every
    installed system that declares a modifiers catalogue (a named one without is an
    :class:`InputError`)."""
    systems = list(
        systems
        or [
            sid for sid, s in registry().items() if s.checks.modifiers and s.checks.grid is not None
        ]
    )
    variants = variants or {}
    return pd.concat([modifier_values(s, variants.get(s)) for s in systems], ignore_index=True)


def modifier_summary(table: pd.DataFrame, lo: float = 0.05, hi: float = 0.95) -> pd.DataFrame:
    """Per system and modifier: mean, min and max ``delta_pp`` over the judged cells whose
    base chance lies in [lo, hi] (where a modifier can matter: the rules allow it and a
    player would take it, see :func:`modifier_values`), and how many cells that is."""
    live = table[(table["p_base"] >= lo) & (table["p_base"] <= hi)]
    if "judged" in live.columns:
        live = live[live["judged"].astype(bool)]
    g = live.groupby(["system", "modifier", "rule"], sort=False)["delta_pp"]
    out = g.agg(
        mean_delta_pp="mean", min_delta_pp="min", max_delta_pp="max", cells="size"
    ).reset_index()
    return out
