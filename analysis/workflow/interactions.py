"""Two-way interaction ranges of a sweep: does one knob's effect depend on another's?

The sensitivity summary (:func:`analysis.workflow.sweep.sensitivity`) ranks each knob by
its main effect. For a pair of knobs A and B the interaction is what is left of the
cell means once both main effects are taken out (the two-way ANOVA residual):
``M[i, j] − mean_j M[i, j] − mean_i M[i, j] + mean M``, with ``M[i, j]`` the metric
averaged over every other knob at A = i, B = j. ``interaction`` is the highest minus the
lowest of those residuals: 0 when the knobs add up, large when one changes what the
other does (e.g. ten-again matters only for big pools). ``joint_range`` is the spread of
``M`` itself. Pairs whose A × B grid has a missing cell are left out.

The *conditional ranges* say the same in the metric's own units: ``range_a_max`` is the
largest range of ``M`` over A at one value of B (``range_a_max_at``), ``range_a_min`` the
smallest; likewise for B. :func:`held_fixed_ranges` goes one step further: the range of
the metric over one knob with *every* other knob held at one value (a cell of the
sweep), which is what a designer reads ("at CON 3 without armour, 9-again cuts
P(3–5 rounds) from 0.765 to 0.615") — and :func:`dependent_effects` flags the knobs whose
effect somewhere is much larger than their main effect, i.e. depends on another knob.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

__all__ = [
    "CONDITIONAL",
    "HELD_COLUMNS",
    "dependent_effects",
    "held_fixed_ranges",
    "interaction_ranges",
    "result_interactions",
]

#: conditional-range columns of :func:`interaction_ranges`
CONDITIONAL = (
    "range_a_min",
    "range_a_max",
    "range_a_max_at",
    "range_b_min",
    "range_b_max",
    "range_b_max_at",
)
#: columns of :func:`held_fixed_ranges` / :func:`dependent_effects`
HELD_COLUMNS = (
    "knob",
    "main_range",
    "fixed_min",
    "fixed_max",
    "given",
    "from_value",
    "to_value",
    "from_level",
    "to_level",
    "depends_on",
    "interaction",
)


def interaction_ranges(table, knobs: Sequence[str], metric: str = "p", group: str = "check"):
    """One row per (group, knob pair): group, knob_a, knob_b, levels_a, levels_b,
    interaction, joint_range, rank (1 = the strongest interaction of its group)."""
    import pandas as pd

    rows = []
    for name, part in table.groupby(group, sort=False):
        usable = [k for k in knobs if k in part and part[k].dropna().nunique() >= 2]
        for a, b in itertools.combinations(usable, 2):
            sub = part.dropna(subset=[a, b])
            m = sub.groupby([a, b], sort=False)[metric].mean().unstack(b)
            if m.isna().to_numpy().any():
                continue
            v = m.to_numpy(dtype=float)
            resid = v - v.mean(axis=1, keepdims=True) - v.mean(axis=0, keepdims=True) + v.mean()
            over_a = v.max(axis=0) - v.min(axis=0)  # range over A at each B level
            over_b = v.max(axis=1) - v.min(axis=1)  # range over B at each A level
            rows.append(
                {
                    group: name,
                    "knob_a": a,
                    "knob_b": b,
                    "levels_a": v.shape[0],
                    "levels_b": v.shape[1],
                    "interaction": float(resid.max() - resid.min()),
                    "joint_range": float(v.max() - v.min()),
                    "range_a_min": float(over_a.min()),
                    "range_a_max": float(over_a.max()),
                    "range_a_max_at": str(m.columns[int(over_a.argmax())]),
                    "range_b_min": float(over_b.min()),
                    "range_b_max": float(over_b.max()),
                    "range_b_max_at": str(m.index[int(over_b.argmax())]),
                }
            )
    out = pd.DataFrame(
        rows,
        columns=[
            group,
            "knob_a",
            "knob_b",
            "levels_a",
            "levels_b",
            "interaction",
            "joint_range",
            *CONDITIONAL,
        ],
    )
    if len(out):
        out["rank"] = (
            out.groupby(group)["interaction"].rank(ascending=False, method="first").astype(int)
        )
        out = out.sort_values([group, "rank"], kind="stable").reset_index(drop=True)
    else:
        out["rank"] = pd.Series(dtype=int)
    return out


def result_interactions(result):
    """The interaction table of a :class:`analysis.workflow.sweep.SweepResult` (check or
    fight sweep), over the knobs its sensitivity summary ranks."""
    sens = result.sensitivity
    group = "fight" if "fight" in sens.columns and "check" not in sens.columns else "check"
    knobs = list(dict.fromkeys(sens["knob"])) if len(sens) else []
    return interaction_ranges(result.table, knobs, result.metric, group)


def _level(x) -> str:
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def held_fixed_ranges(table, knobs: Sequence[str], metric: str = "p", group: str = "check"):
    """One row per (group, knob): its main-effect range (``main_range``, as
    :func:`analysis.workflow.sweep.sensitivity`) and the smallest and largest range of
    ``metric`` over the knob with every other knob held at one value (``fixed_min``,
    ``fixed_max``); for the largest, the other knobs' values (``given``, ``CON=3,
    armour=none``), the metric at the knob's first and last levels there
    (``from_value`` at ``from_level``, ``to_value`` at ``to_level``), the knob it
    depends on most (``depends_on``, the partner of its largest
    :func:`interaction_ranges` interaction) and that ``interaction``."""
    import pandas as pd

    inter = interaction_ranges(table, knobs, metric, group)
    rows = []
    for name, part in table.groupby(group, sort=False):
        usable = [k for k in knobs if k in part and part[k].dropna().nunique() >= 2]
        for knob in usable:
            others = [k for k in usable if k != knob]
            sub = part.dropna(subset=usable)
            main = sub.groupby(knob, sort=False)[metric].mean()
            best = None
            lo_range = None
            cells = sub.groupby(others, sort=False) if others else [((), sub)]
            for key, cell in cells:
                means = cell.groupby(knob, sort=False)[metric].mean()
                if means.size < 2:
                    continue
                r = float(means.max() - means.min())
                lo_range = r if lo_range is None else min(lo_range, r)
                if best is None or r > best[0] + 1e-12:  # ties: the first cell
                    key = key if isinstance(key, tuple) else (key,)
                    given = ", ".join(f"{k}={_level(v)}" for k, v in zip(others, key, strict=True))
                    first, last = means.index[0], means.index[-1]
                    best = (
                        r,
                        given,
                        float(means.loc[first]),
                        float(means.loc[last]),
                        _level(first),
                        _level(last),
                    )
            if best is None:
                continue
            mine = inter[
                (inter[group] == name) & ((inter["knob_a"] == knob) | (inter["knob_b"] == knob))
            ]
            partner, strength = "", 0.0
            if len(mine):
                top = mine.loc[mine["interaction"].idxmax()]
                partner = top["knob_b"] if top["knob_a"] == knob else top["knob_a"]
                strength = float(top["interaction"])
            rows.append(
                {
                    group: name,
                    "knob": knob,
                    "main_range": float(main.max() - main.min()),
                    "fixed_min": lo_range,
                    "fixed_max": best[0],
                    "given": best[1],
                    "from_value": best[2],
                    "to_value": best[3],
                    "from_level": best[4],
                    "to_level": best[5],
                    "depends_on": partner,
                    "interaction": strength,
                }
            )
    return pd.DataFrame(rows, columns=[group, *HELD_COLUMNS])


def dependent_effects(
    table,
    knobs: Sequence[str],
    metric: str = "p",
    group: str = "check",
    *,
    ratio: float = 2.0,
    min_range: float = 0.05,
):
    """The knobs whose effect depends on another knob: rows of :func:`held_fixed_ranges`
    where the largest held-fixed range is at least ``min_range`` and at least ``ratio``
    times the main-effect range (so a main-effect ranking understates the knob
    somewhere), largest ``fixed_max`` first."""
    held = held_fixed_ranges(table, knobs, metric, group)
    keep = (held["fixed_max"] >= min_range) & (held["fixed_max"] >= ratio * held["main_range"])
    return (
        held[keep].sort_values("fixed_max", ascending=False, kind="stable").reset_index(drop=True)
    )
