"""Solvers for designers: the difficulty that gives a target chance, the competence a
difficulty needs, and a generic threshold search for noisy (Monte Carlo) metrics.

Three pieces:

- :func:`solve_difficulty` — for a target probability and a competence (a native value or
  a competence-ladder name), the difficulty in every system whose chance of success comes
  closest to the target, with the achieved probability. Difficulty axes (native):
  ``dice_pool_7`` successes needed (A1) *or* a dice penalty with one success needed
  (A2), ``middle_3d10`` the difficulty number (B1, B2), ``dice_pool_6`` successes needed
  (C1), ``percentile`` the level (D1) and bonus/penalty dice (D4), ``d20_degrees`` the DC
  (E1–E3). All probabilities come from the exact models. Each system declares its
  difficulty axes and exact chance matrix as hooks of its ``System``
  (``Ladder.difficulty_axes``, ``chance_matrix``, ``competence_search``); a system that
  declares only a check grid and a ``Ladder``'s ``competence_axis`` / ``difficulty_axis``
  is solved from its exact success curves, every other axis at its neutral.
- :func:`competence_table` — the inverse: for each difficulty, the smallest competence
  that succeeds at least 50 / 75 / 90 % of the time.
- :func:`solve_threshold` — the hook for the lethality solver: a monotone search over a
  knob for a metric given as a callable ``metric(knob) -> (estimate, se)``. A Monte Carlo
  cell only counts as meeting the target when its whole interval ``estimate ± z·se``
  does. The combat solvers (``rpg-balance solve lethality``) call it with a metric read
  from :class:`engines.fight.FightStats` (see :mod:`analysis.combat.fights`).

The competence ladder lives in ``analysis/data/ladders.toml`` (a designer-editable data
file); :func:`load_competence_ladder` reads it when present and otherwise uses
:data:`FALLBACK_LADDER`, documented below.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from analysis.checks.ladders import load_competence_ladder
from engines.constants import ROUND_CAP, STUDY_SEED
from engines.errors import InputError
from engines.system import registry

__all__ = [
    "DifficultyAxis",
    "Metric",
    "ThresholdResult",
    "chance_matrix",
    "check_knob_metric",
    "competence_table",
    "competence_value",
    "difficulty_axes",
    "fight_knob_metric",
    "solve_difficulty",
    "solve_lethality",
    "solve_threshold",
    "solver_system",
    "valid_target",
]


def solver_system(system: str):
    """The :class:`engines.system.System` of a system the solver handles (a
    :class:`~engines.system.Ladder` with its own ``difficulty_axes`` / ``chance_matrix``
    hooks, or ``System.solvable``: a check grid and a ladder), or None."""
    spec = registry().get(system)
    if spec is None or spec.ladder is None:
        return None
    if spec.ladder.chance_matrix is not None and spec.ladder.difficulty_axes is not None:
        return spec
    return spec if spec.solvable else None


def _competence_search(spec) -> tuple[str, range]:
    """(axis name, values) the inverse table searches for a system's competence."""
    ladder = spec.ladder
    if ladder.competence_search is not None:
        return ladder.competence_search
    return ladder.competence_axis, spec.checks.axes[ladder.competence_axis]


def __getattr__(name: str):
    # read from each system's hooks on use (a plug-in may be registered later)
    if name == "COMPETENCE_AXIS":  # native competence axis and the range searched
        return {
            sid: _competence_search(s)
            for sid, s in registry().items()
            if solver_system(sid) is not None
        }
    if name == "INVERSE_DIFFICULTIES":  # default difficulty points of the inverse table
        return {
            sid: {ax.name: ax.inverse for ax in difficulty_axes(sid)}
            for sid in registry()
            if solver_system(sid) is not None
        }
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def competence_value(
    system: str, competence: int | str, ladder: dict[str, dict[str, int]] | None = None
) -> tuple[str, int]:
    """``(label, native value)`` of a competence given as a ladder name or a native int."""
    spec = solver_system(system)
    if spec is None:
        raise InputError(f"unknown system {system!r}; known: {', '.join(_solvable())}")
    if isinstance(competence, bool):
        raise InputError(f"competence: expected a ladder name or an integer, got {competence!r}")
    if isinstance(competence, int | np.integer):
        return str(int(competence)), int(competence)
    text = str(competence).strip()
    try:
        return text, int(text)
    except ValueError:
        pass
    rungs = (ladder or load_competence_ladder()).get(system) or dict(spec.ladder.rungs)
    if text not in rungs:
        raise InputError(
            f"competence: unknown ladder name {text!r}; known: "
            f"{', '.join(rungs)} (or a native value for --system)"
        )
    return text, rungs[text]


# --------------------------------------------------------------------------------------
# Exact chance of success over (competence, difficulty)


@dataclass(frozen=True)
class DifficultyAxis:
    """One way a system sets difficulty: labels in order from easiest to hardest;
    ``inverse``: the points the inverse table shows by default."""

    system: str
    name: str
    values: tuple  # native difficulty values (easiest first)
    labels: tuple[str, ...]
    inverse: tuple = ()


def difficulty_axes(system: str) -> list[DifficultyAxis]:
    """The difficulty axes searched for ``system`` (easiest first on each): the system's
    own ``Ladder.difficulty_axes`` hook, or its ``difficulty_axis`` over that axis's values."""
    spec = solver_system(system)
    if spec is None:
        raise InputError(f"unknown system {system!r}; known: {', '.join(_solvable())}")
    ladder = spec.ladder
    if ladder.difficulty_axes is not None:
        return [
            DifficultyAxis(
                system,
                ax.name,
                tuple(ax.values),
                tuple(ax.labels),
                tuple(ax.inverse) or tuple(ax.values),
            )
            for ax in ladder.difficulty_axes()
        ]
    vals = tuple(spec.checks.axes[ladder.difficulty_axis])
    return [DifficultyAxis(system, ladder.difficulty_axis, vals, tuple(map(str, vals)), vals)]


def chance_matrix(
    system: str, axis: str, competences: Sequence[int], difficulties: Sequence, variants=None
) -> np.ndarray:
    """Exact P(success) ``[len(competences), len(difficulties)]`` on one difficulty axis:
    the system's own ``Ladder.chance_matrix`` hook, or read off its exact success curves
    (every other axis held at its neutral, :attr:`engines.system.Checks.neutral`)."""
    from analysis.checks.curves import success_curves, variants_for

    v = variants_for(system, variants)
    spec = solver_system(system)
    if spec is None:
        raise InputError(f"unknown system {system!r}; known: {', '.join(_solvable())}")
    ladder = spec.ladder
    if ladder.chance_matrix is not None:
        return np.asarray(ladder.chance_matrix(axis, competences, difficulties, v))
    comp = np.asarray(list(competences), dtype=np.int64)
    axes = {name: [spec.checks.held(name)] for name in spec.checks.axes}
    axes[ladder.competence_axis] = [int(c) for c in comp]
    axes[ladder.difficulty_axis] = list(difficulties)
    t = success_curves(system, "exact", variants=v, axes=axes)
    view = t.pivot(index=ladder.competence_axis, columns=ladder.difficulty_axis, values="p")
    return view.loc[[int(c) for c in comp], list(difficulties)].to_numpy()


def _solvable() -> list[str]:
    return [s for s in registry() if solver_system(s) is not None]


def valid_target(target: float) -> float:
    """A target probability strictly between 0 and 1, or an :class:`InputError`."""
    if (
        isinstance(target, bool)
        or not isinstance(target, int | float)
        or not 0 < target < 1
        or math.isnan(target)
    ):
        raise InputError(f"target: expected a probability strictly between 0 and 1, got {target!r}")
    return float(target)


def _systems(systems: str | Sequence[str] | None) -> list[str]:
    if systems is None:
        return _solvable()
    if isinstance(systems, str):
        systems = [systems]
    for s in systems:
        if solver_system(s) is None:
            raise InputError(f"unknown system {s!r}; known: {', '.join(_solvable())}")
    return list(systems)


def solve_difficulty(
    target: float, competence: int | str, systems=None, variants=None, ladder: dict | None = None
):
    """The difficulty closest to ``target`` in each system, for one competence.

    ``competence`` is a ladder name (``"expert"``) or a native value (then give one
    system). Ties in distance go to the easier difficulty. ``variants`` maps a system id
    to its variants (mapping or ``NAME=VALUE`` strings). Returns a tidy table: system,
    axis, competence, competence_value, difficulty (label), difficulty_value, p, target,
    error (p − target).

    Examples
    --------
    >>> t = solve_difficulty(0.5, 8, "d20_degrees")
    >>> t[["difficulty", "p"]].values.tolist()  # d20 + 8 >= 19 on 11..20: 10 of 20
    [['DC 19', 0.5]]
    """
    import pandas as pd

    target = valid_target(target)
    systems = _systems(systems)
    ladder = ladder or load_competence_ladder()
    if not isinstance(competence, str) and len(systems) > 1:
        raise InputError(
            "competence: a native value means something different in each "
            "system; give one --system or a ladder name"
        )
    variants = variants or {}
    rows = []
    for system in systems:
        label, value = competence_value(system, competence, ladder)
        for ax in difficulty_axes(system):
            p = chance_matrix(system, ax.name, [value], ax.values, variants.get(system))[0]
            dist = np.abs(p - target)
            best = int(np.argmax(dist <= dist.min() + 1e-12))  # easiest among (near-)ties
            val = ax.values[best]
            rows.append(
                {
                    "system": system,
                    "axis": ax.name,
                    "competence": label,
                    "competence_value": value,
                    "difficulty": ax.labels[best],
                    "difficulty_value": (
                        int(val[1] * -1)
                        if isinstance(val, tuple)
                        else int(val)
                        if not isinstance(val, str)
                        else best
                    ),
                    "p": round(float(p[best]), 12),
                    "target": target,
                    "error": round(float(p[best] - target), 12),
                }
            )
    return pd.DataFrame(rows)


def competence_table(
    levels: Sequence[float] = (0.5, 0.75, 0.9),
    systems=None,
    variants=None,
    ladder: dict | None = None,
):
    """For each difficulty, the smallest competence that succeeds at least ``level`` often.

    Competence is searched over :data:`COMPETENCE_AXIS`; ``needed`` is missing (NA) when
    no competence in range gets there. ``rung`` is the lowest ladder rung at or above
    the needed value (``above master`` past the top rung). Returns a tidy table: system,
    axis, competence_axis, difficulty, level, needed, rung, p.
    """
    import pandas as pd

    levels = [valid_target(q) for q in levels]
    ladder = ladder or load_competence_ladder()
    variants = variants or {}
    rows = []
    for system in _systems(systems):
        name, search = _competence_search(solver_system(system))
        comp = list(search)
        rungs = sorted(
            (ladder.get(system) or dict(solver_system(system).ladder.rungs)).items(),
            key=lambda kv: kv[1],
        )
        for ax in difficulty_axes(system):
            vals = ax.inverse
            labels = [ax.labels[ax.values.index(v)] for v in vals]
            p = chance_matrix(system, ax.name, comp, vals, variants.get(system))
            for j, label in enumerate(labels):
                for q in levels:
                    ok = np.nonzero(p[:, j] >= q - 1e-12)[0]
                    needed = comp[int(ok[0])] if ok.size else None
                    rung = next((r for r, v in rungs if needed is not None and v >= needed), None)
                    if rung is None and needed is not None:
                        rung = f"above {rungs[-1][0]}"
                    rows.append(
                        {
                            "system": system,
                            "axis": ax.name,
                            "competence_axis": name,
                            "difficulty": label,
                            "level": q,
                            "needed": needed,
                            "rung": rung,
                            "p": round(float(p[int(ok[0]), j]), 12) if ok.size else None,
                        }
                    )
    out = pd.DataFrame(rows)
    out["needed"] = out["needed"].astype("Int64")
    out["p"] = out["p"].astype("Float64")
    return out


# --------------------------------------------------------------------------------------
# Generic threshold search for noisy metrics (the lethality-solver hook)

Metric = Callable[[Any], tuple[float, float]]


@dataclass
class ThresholdResult:
    """Outcome of :func:`solve_threshold`.

    ``knob`` is the boundary knob value that surely meets the target (``None`` when none
    in range does); ``last_failing`` the nearest value on the other side that surely does
    not; values strictly between are *undecided* (their intervals contain the target).
    ``evaluated`` lists every ``(knob, estimate, se)`` the search asked for.
    """

    knob: Any
    estimate: float | None
    se: float | None
    last_failing: Any
    target: float
    goal: str
    undecided: list = field(default_factory=list)
    evaluated: list = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.knob is not None


def solve_threshold(
    metric: Metric,
    values: Sequence,
    target: float,
    *,
    goal: str = "at_least",
    increasing: bool = True,
    z: float = 2.0,
    method: str = "bisect",
) -> ThresholdResult:
    """Find where a monotone metric crosses ``target`` over the knob values ``values``.

    Parameters
    ----------
    metric
        ``metric(knob) -> (estimate, se)``; ``se = 0`` for exact metrics. It must be
        monotone in the knob (non-decreasing if ``increasing`` else non-increasing) —
        e.g. P(side 0 wins) against side 0's hit points, or P(success) against a DC.
    values
        Knob values in increasing order (e.g. ``range(1, 40)`` hit points).
    goal
        ``"at_least"`` (metric ≥ target) or ``"at_most"`` (metric ≤ target).
    z
        A cell meets the goal only if its whole interval ``estimate ± z·se`` does:
        ``estimate − z·se ≥ target`` for ``at_least``. It surely fails when the interval
        lies wholly on the other side.
    method
        ``"bisect"`` (about log2(len(values)) metric calls per side) or ``"grid"``
        (evaluate every value; use when the metric is cheap or only roughly monotone).

    Returns
    -------
    ThresholdResult
        The meeting value nearest the failing side (the smallest hit points that make a
        duel at least 70 % winnable; the largest DC still passed 60 % of the time).

    Examples
    --------
    >>> r = solve_threshold(lambda k: (k / 10, 0.0), range(11), 0.35)
    >>> r.knob, r.estimate
    (4, 0.4)
    """
    target = float(target)
    if goal not in ("at_least", "at_most"):
        raise InputError(f"goal: expected at_least or at_most, got {goal!r}")
    if method not in ("bisect", "grid"):
        raise InputError(f"method: expected bisect or grid, got {method!r}")
    if not math.isfinite(z) or z < 0:
        raise InputError(f"z: expected a non-negative number, got {z!r}")
    values = list(values)
    if not values:
        raise InputError("knob values: the search range is empty")
    cache: dict[int, tuple[float, float]] = {}
    evaluated: list = []

    def ask(i: int) -> tuple[float, float]:
        if i not in cache:
            est, se = metric(values[i])
            est, se = float(est), float(se)
            if not math.isfinite(est) or not math.isfinite(se) or se < 0:
                raise InputError(
                    f"metric at knob {values[i]!r}: expected a finite estimate "
                    f"and a non-negative standard error, got ({est}, {se})"
                )
            cache[i] = (est, se)
            evaluated.append((values[i], est, se))
        return cache[i]

    sign = 1.0 if goal == "at_least" else -1.0

    def surely_meets(i: int) -> bool:
        est, se = ask(i)
        return sign * (est - target) - z * se >= 0

    def surely_fails(i: int) -> bool:
        est, se = ask(i)
        return sign * (est - target) + z * se < 0

    # Meeting cells form a suffix when the metric moves towards the goal as the knob
    # grows (increasing & at_least, or decreasing & at_most); otherwise a prefix.
    suffix = increasing == (goal == "at_least")
    n = len(values)
    order = list(range(n)) if suffix else list(range(n - 1, -1, -1))

    def first_true(pred: Callable[[int], bool]) -> int | None:
        """First position in ``order`` where ``pred`` holds (pred monotone along order)."""
        if method == "grid":
            for pos in range(n):
                ask(order[pos])
            return next((pos for pos in range(n) if pred(order[pos])), None)
        lo, hi = 0, n  # answer in [lo, hi]; hi == n means none
        while lo < hi:
            mid = (lo + hi) // 2
            if pred(order[mid]):
                hi = mid
            else:
                lo = mid + 1
        return lo if lo < n else None

    meet_pos = first_true(surely_meets)
    # last surely failing: the last position where surely_fails holds (fails form a prefix)
    not_fail_pos = first_true(lambda i: not surely_fails(i))
    last = n - 1 if not_fail_pos is None else not_fail_pos - 1
    fail_pos = last if last >= 0 else None
    knob = values[order[meet_pos]] if meet_pos is not None else None
    est, se = cache[order[meet_pos]] if meet_pos is not None else (None, None)
    lo = (fail_pos + 1) if fail_pos is not None else 0
    hi = meet_pos if meet_pos is not None else n
    undecided = [values[order[p]] for p in range(lo, hi)]
    return ThresholdResult(
        knob=knob,
        estimate=est,
        se=se,
        last_failing=values[order[fail_pos]] if fail_pos is not None else None,
        target=target,
        goal=goal,
        undecided=undecided,
        evaluated=sorted(evaluated, key=lambda r: values.index(r[0])),
    )


def check_knob_metric(
    system: str,
    knob: str,
    fixed: dict,
    *,
    trials: int | None = None,
    seed: int = STUDY_SEED,
    variants=None,
) -> Metric:
    """A check-level metric for :func:`solve_threshold`: P(success) as one axis varies.

    ``knob`` is a native axis of :data:`analysis.checks.curves.AXES` (``pool``, ``dc``, ...),
    ``fixed`` gives the other axes one value each. With ``trials`` the estimate is Monte
    Carlo (each knob value its own stream, from ``(seed, knob value)``); otherwise exact.
    """
    from analysis.checks.curves import AXES, success_curves

    if system not in AXES:
        raise InputError(f"unknown system {system!r}; known: {', '.join(AXES)}")
    if knob not in AXES[system]:
        raise InputError(f"knob: {system} has axes {', '.join(AXES[system])}, not {knob!r}")

    def metric(value):
        axes = {k: [v] for k, v in fixed.items()}
        axes[knob] = [value]
        if trials is None:
            t = success_curves(system, "exact", axes=axes, variants=variants)
            return float(t["p"].iloc[0]), 0.0
        key = int(value) if isinstance(value, int | np.integer) else sum(map(ord, str(value)))
        ss = np.random.SeedSequence(seed, spawn_key=(abs(key),))
        t = success_curves(system, "mc", trials=trials, seed=ss, axes=axes, variants=variants)
        return float(t["p"].iloc[0]), float(t["se"].iloc[0])

    return metric


# --------------------------------------------------------------------------------------
# Lethality: a fight knob for a target fight metric


def _value_key(value) -> int:
    """A stable stream key for a knob value (the same value always draws the same fights)."""
    import zlib

    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return int(value) & (2**62 - 1)
    return 2**62 + zlib.crc32(str(value).encode())


def fight_knob_metric(
    system: str,
    a,
    b,
    knob: str,
    metric: str = "p_side0",
    *,
    variants=None,
    round_cap: int = ROUND_CAP,
    exact: bool | None = None,
    trials: int | None = None,
    se: float | None = None,
    batch: int = 20_000,
    max_trials: int = 2_000_000,
    seed: int = STUDY_SEED,
) -> Metric:
    """A fight metric as a function of one knob, for :func:`solve_threshold`.

    ``a`` and ``b`` are fighter specs (archetype names or trait tables), ``knob`` is
    ``a.KEY``, ``b.KEY``, ``both.KEY``, ``variant.NAME``, ``rules.KIND.ENTRY.FIELD`` or
    ``everyone.TRAIT`` (see
    :mod:`analysis.workflow.fight_sweep`), ``metric`` a name of
    :data:`analysis.combat.fights.METRIC_NAMES`
    (``p_rounds_between:3:5``, ``p_one_hit_incapacitate`` ...). ``exact=None`` uses the
    engine's ``duel_exact`` (every system has one); ``exact=False`` runs Monte Carlo, each
    knob value on its own stream ``SeedSequence(seed, spawn_key=(key(value), 0, batch))``.
    One-attack metrics are always exact (the engines' ``one_hit``).
    """
    from analysis.combat import fights as reg
    from analysis.workflow.fight_sweep import apply_knob, fight_point, parse_knob

    parse_knob(knob)
    reg.check_metric(metric)
    mod = reg.engine(system)
    if exact is None:
        exact = hasattr(mod, "duel_exact")
    base = dict(variants or {})

    def read(value):
        from analysis.rules import using
        from analysis.workflow.fight_sweep import knob_rules

        fa, fb, v = apply_knob(a, b, base, knob, value)
        key = _value_key(value)
        with using(knob_rules(system, [(knob, value)])):
            row = fight_point(
                system,
                fa,
                fb,
                v,
                round_cap,
                metric,
                exact=exact,
                trials=trials,
                se=se,
                batch=batch,
                max_trials=max_trials,
                stream=lambda k: np.random.SeedSequence(seed, spawn_key=(key, 0, k)),
            )
        read.rows[value] = row  # type: ignore[attr-defined]  # the rows read, kept on it
        return row["metric"], row["se_metric"]

    read.rows = {}  # type: ignore[attr-defined]
    return read


def solve_lethality(
    system: str,
    a,
    b,
    knob: str,
    values: Sequence,
    target: float,
    metric: str = "p_side0",
    *,
    goal: str = "at_least",
    increasing: bool = True,
    z: float = 2.0,
    method: str | None = None,
    exact: bool | None = None,
    trials: int | None = None,
    se: float | None = None,
    seed: int = STUDY_SEED,
    variants=None,
    round_cap: int = ROUND_CAP,
):
    """The knob value where a fight metric meets a target (e.g. an even duel of
    competent fighters lasts 3–5 rounds in 80 % of fights; one pistol hit incapacitates
    an unarmoured novice 30 % of the time).

    Searches ``values`` (increasing) with :func:`solve_threshold` over the metric of
    :func:`fight_knob_metric` (exact where the engine solves duels exactly, else Monte
    Carlo with each cell counted only when its whole ``estimate ± z·se`` interval meets
    the target). ``method`` is ``"bisect"`` or ``"grid"``; by default ``grid`` for
    ``p_rounds_between`` (P(3–5 rounds) first rises then falls as hit points grow, so
    only a scan finds the smallest value that meets it) and ``bisect`` otherwise.
    Returns ``(result, table)``: the :class:`ThresholdResult` and one row per
    evaluated knob value (system, knob, value, metric, estimate, se, method, trials,
    target, goal, meets (this row meets the target: its whole interval, for Monte Carlo),
    chosen (the answer), undecided).

    Examples
    --------
    >>> r, t = solve_lethality("d20_degrees", "novice", "novice", "b.hit_points",
    ...                        range(1, 6), 0.3, "p_one_hit_incapacitate",
    ...                        goal="at_most", increasing=False)
    >>> r.knob
    2
    """
    import pandas as pd

    if isinstance(target, bool) or not isinstance(target, int | float) or not math.isfinite(target):
        raise InputError(f"target: expected a finite number, got {target!r}")
    read = fight_knob_metric(
        system,
        a,
        b,
        knob,
        metric,
        variants=variants,
        round_cap=round_cap,
        exact=exact,
        trials=trials,
        se=se,
        seed=seed,
    )
    if method is None:
        method = "grid" if metric.strip().startswith("p_rounds_between") else "bisect"
    res = solve_threshold(
        read, values, target, goal=goal, increasing=increasing, z=z, method=method
    )
    rows = []
    sign = 1.0 if goal == "at_least" else -1.0
    for value, est, s in res.evaluated:
        row = read.rows[value]  # type: ignore[attr-defined]
        # meets: this row's whole estimate ± z·se interval is on the goal's side of the
        # target (for exact rows se = 0: the value itself); chosen: the answer
        meets = bool(sign * (est - target) - z * s >= 0)
        rows.append(
            {
                "system": system,
                "knob": knob,
                "value": _plain(value),
                "metric": metric,
                "estimate": est,
                "se": s,
                "method": row["method"],
                "trials": row["trials"],
                "target": float(target),
                "goal": goal,
                "meets": meets,
                "chosen": value == res.knob,
                "undecided": value in res.undecided,
            }
        )
    return res, pd.DataFrame(rows)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value
