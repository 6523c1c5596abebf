"""A/B on the workbench: a setup pinned as A beside the setup on screen (B), as numbers.

Pure functions over the results the other model modules compute (no web framework, so
the tests compare them with two command-line runs):

* :func:`duel_table` — every figure of two duels (:class:`~.duel.DuelResult`): A, B,
  B − A and, when either side is Monte Carlo, the standard error of the difference;
* :func:`check_table` and :func:`check_figure` — two slices of success curves
  (:class:`~.checks.CheckResult`): the difference cell by cell, and both curves on one
  figure;
* :func:`audit_flips` — the guardrails whose verdict differs between an audit under A's
  setup and one under B's, with both values.

The standard error of a difference (:func:`se_difference`) is computed as for two
independent runs, ``sqrt(SE_A² + SE_B²)`` (an exact side has SE 0). A paired SE would need
each fight's outcome under A and under B, and a run keeps only its histograms
(:class:`engines.fight.FightStats`), so it is not computed. When A and B are both Monte
Carlo from the same seed, the two runs draw the same random numbers (common random
numbers): if that correlates their estimates positively the true SE of B − A is smaller
and the formula is conservative, if negatively it is larger. Measured
(tests/test_serve_ab.py: 30 seed pairs, dice_pool_7, B with other armour), the spread of
B − A with shared seeds matched the formula as closely as with independent seeds: a
changed rule consumes the stream differently, so the fights do not stay paired and the
correlation is near zero. The page says which case it shows.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...i18n import _
from ...labels import header
from .checks import axis_value_words, hold_extra_axes, ladder_first, png_bytes

__all__ = [
    "DUEL_FIGURES",
    "ONE_HIT_FIGURES",
    "audit_flips",
    "check_figure",
    "check_table",
    "duel_table",
    "se_difference",
    "se_note",
    "shared_rolls",
]

#: the figures of the duel's summary row compared, each with the key of its standard
#: error (None: no SE, e.g. the median round)
DUEL_FIGURES = (
    ("p_side0", "se_side0"),
    ("p_side1", "se_side1"),
    ("p_neither", "se_neither"),
    ("p_loser_dead", "se_loser_dead"),
    ("p_loser_dying", "se_loser_dying"),
    ("p_loser_out", "se_loser_out"),
    ("p_someone_dead", "se_someone_dead"),
    ("rounds_mean", "rounds_se"),
    ("rounds_q50", None),
)
#: the one-hit odds compared (exact on both sides)
ONE_HIT_FIGURES = ("p_hit", "p_incapacitate", "p_kill")


def se_difference(se_a: float, se_b: float) -> float:
    """The standard error of B − A for two independent estimates: ``sqrt(SE_A² + SE_B²)``
    (an exact figure has SE 0). For two Monte Carlo runs from one seed, see the module's
    docstring (conservative under a positive correlation; measured: near the truth)."""
    return math.sqrt(float(se_a) ** 2 + float(se_b) ** 2)


def shared_rolls(a, b) -> bool:
    """Whether two duel setups (:class:`~.state.DuelState`) are both Monte Carlo from the
    same seed, so their runs share their rolls."""
    return a.method == b.method == "mc" and a.seed == b.seed


def se_note(a, b) -> str:
    """How the page's SE of a difference was computed, in the page's words."""
    if a.method == b.method == "exact":
        return ""
    text = _("SE of B − A = √(SE_A² + SE_B²), as for two independent runs.")
    if shared_rolls(a, b):
        text += " " + _(
            "A and B share the seed {seed}: both runs draw the same random "
            "numbers. If that correlates them positively this SE is "
            "conservative (too large); measured for a change of gear, it "
            "matched the spread of B − A over many seeds. Give B another seed "
            "for two independent runs."
        ).format(seed=a.seed)
    return text


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def duel_table(a, b) -> pd.DataFrame:
    """Every figure of two duels (:class:`~.duel.DuelResult` A and B): one row per figure
    with ``A``, ``B``, ``B − A`` (column ``diff``) and ``se_diff`` (NaN when both sides
    are exact or the figure has no SE). The summary row's figures first, then each
    attacker's one-hit odds (``one_hit_A.p_hit`` …, exact)."""
    exact = a.row["method"] == b.row["method"] == "exact"
    rows = []
    for key, se_key in DUEL_FIGURES:
        va, vb = _number(a.row.get(key)), _number(b.row.get(key))
        se = math.nan
        if not exact and se_key is not None:
            se = se_difference(_number(a.row.get(se_key)) or 0.0, _number(b.row.get(se_key)) or 0.0)
        rows.append({"figure": key, "A": va, "B": vb, "diff": vb - va, "se_diff": se})
    for i, side in enumerate("AB"):
        for key in ONE_HIT_FIGURES:
            if key in a.one_hit.columns and key in b.one_hit.columns:
                va, vb = float(a.one_hit.loc[i, key]), float(b.one_hit.loc[i, key])
                rows.append(
                    {
                        "figure": f"one_hit_{side}.{key}",
                        "A": va,
                        "B": vb,
                        "diff": vb - va,
                        "se_diff": math.nan,
                    }
                )
    return pd.DataFrame(rows)


def _free_axes(r) -> list[str]:
    return [n for n, vals in r.axes.items() if len(vals) > 1]


def check_table(a, b) -> pd.DataFrame | None:
    """Two success-curve slices (:class:`~.checks.CheckResult`) cell by cell: the axes'
    values, ``p_A``, ``p_B`` and ``diff`` (B − A), on the cells both slices hold (exact
    on both sides). None when they share no cell (another system, other axes)."""
    ta, tb = a.table, b.table
    if set(ta["system"]) != set(tb["system"]):
        return None
    keys = [c for c in ta.columns if c in tb.columns and c not in ("system", "p")]
    both = ta.merge(tb, on=keys, suffixes=("_A", "_B"))
    if both.empty:
        return None
    both = both[[*keys, "p_A", "p_B"]].copy()
    both["diff"] = both["p_B"] - both["p_A"]
    return both.reset_index(drop=True)


def check_figure(a, b, spec, png: bool = True):
    """Both slices' success curves on one figure: A solid, B dashed, one colour per value
    of the other free axis (at most four, evenly spread), any further free axis held at
    its neutral (:func:`~.checks.hold_extra_axes`, said in the title). PNG bytes
    (``png=False``: the matplotlib Figure)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    axis = spec.ladder.competence_axis if spec.ladder else None
    fig = Figure(figsize=(7.5, 3.6))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    colours = iter(range(100))
    colour_of: dict = {}
    held_words: list[str] = []
    for side, r, style in (("A", a, "-"), ("B", b, "--")):
        t = r.table
        x = axis if axis in t.columns and len(r.axes.get(axis, ())) > 1 else None
        if x is None:
            free = ladder_first(spec, _free_axes(r))
            x = free[0] if free else t.columns[1]
        others = ladder_first(spec, [n for n in _free_axes(r) if n != x])
        t, held = hold_extra_axes(t, spec, others[1:])
        if held and held not in held_words:
            held_words.append(held)
        groups = [(None, t)] if not others else list(t.groupby(others[0], sort=False))
        if len(groups) > 4:
            keep = np.unique(np.linspace(0, len(groups) - 1, 4).round().astype(int))
            groups = [groups[i] for i in keep]
        for key, g in groups:
            c = colour_of.setdefault(key, f"C{next(colours) % 10}")
            label = side if key is None else f"{side}: {header(others[0])} {axis_value_words(key)}"
            xs = pd.to_numeric(g[x], errors="coerce")
            xs = xs if xs.notna().all() else pd.Series(range(len(g)))
            ax.plot(xs.to_numpy(), g["p"].to_numpy(), style, color=c, marker=".", label=label)
        ax.set_xlabel(header(x))
    ax.set_ylabel(_("P(success)"))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    # beside the axes, never over a curve
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    ax.set_title(" · ".join([_("A (solid) and B (dashed)"), *held_words]), fontsize=9)
    from ..words import figure_numbers

    figure_numbers(ax)
    fig.tight_layout()
    return png_bytes(fig) if png else fig


def audit_flips(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """The guardrails whose status differs between audit table A and audit table B
    (``rpg-balance audit``'s columns), matched by guardrail and system: ``guardrail``,
    ``system``, ``metric``, ``value_A``, ``status_A``, ``value_B``, ``status_B``. A
    guardrail in one table only shows with the other side's status ``absent``."""
    cols = ["guardrail", "system", "metric", "value", "status"]
    left, right = a[cols], b[cols]
    both = left.merge(right, on=["guardrail", "system"], how="outer", suffixes=("_A", "_B"))
    both["metric"] = both["metric_A"].fillna(both["metric_B"])
    for side in "AB":
        both[f"status_{side}"] = both[f"status_{side}"].fillna("absent")
    flipped = both[both["status_A"] != both["status_B"]]
    return flipped[
        ["guardrail", "system", "metric", "value_A", "status_A", "value_B", "status_B"]
    ].reset_index(drop=True)
