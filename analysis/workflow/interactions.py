"""Two-way interaction ranges of a sweep: does one knob's effect depend on another's?

The sensitivity summary (:func:`analysis.workflow.sweep.sensitivity`) ranks each knob by
its main effect. For a pair of knobs A and B the interaction is what is left of the
cell means once both main effects are taken out (the two-way ANOVA residual):
``M[i, j] − mean_j M[i, j] − mean_i M[i, j] + mean M``, with ``M[i, j]`` the metric
averaged over every other knob at A = i, B = j. ``interaction`` is the highest minus the
lowest of those residuals: 0 when the knobs add up, large when one changes what the
other does (e.g. ten-again matters only for big pools). ``joint_range`` is the spread of
``M`` itself. Pairs whose A × B grid has a missing cell are left out.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence


def interaction_ranges(table, knobs: Sequence[str], metric: str = "p",
                       group: str = "check"):
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
            resid = v - v.mean(axis=1, keepdims=True) - v.mean(axis=0, keepdims=True) \
                + v.mean()
            rows.append({group: name, "knob_a": a, "knob_b": b, "levels_a": v.shape[0],
                         "levels_b": v.shape[1],
                         "interaction": float(resid.max() - resid.min()),
                         "joint_range": float(v.max() - v.min())})
    out = pd.DataFrame(rows, columns=[group, "knob_a", "knob_b", "levels_a", "levels_b",
                                      "interaction", "joint_range"])
    if len(out):
        out["rank"] = out.groupby(group)["interaction"].rank(ascending=False,
                                                            method="first").astype(int)
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
