"""Measuring one guardrail: what it measures in its scenario (:class:`Target`), exact where
the engines solve it, else doubling Monte Carlo batches until decided at
:data:`Z_DECIDE` standard errors (:func:`measure`), and its verdict (:func:`status_of`)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from analysis.workflow.guardrails import comparing, entry_index, entry_names
from engines.constants import STUDY_SEED
from engines.system import get as system_of

__all__ = [
    "AUDIT_STREAM",
    "Z_DECIDE",
    "Target",
    "check_cell",
    "check_value",
    "combine",
    "compare_sides",
    "fight_figures",
    "guardrail_target",
    "ladder_axes",
    "margin",
    "measure",
    "measure_compare",
    "nearest",
    "status_of",
    "worst",
]

#: a verdict counts as decided when the whole value ± Z_DECIDE·SE interval is on one side
Z_DECIDE = 3.0
#: stream offset of the audit's Monte Carlo batches (never shared with runs or sweeps)
AUDIT_STREAM = 3_000_000


def status_of(
    value: float, se: float, lo: float | None, hi: float | None, z: float = Z_DECIDE
) -> str:
    """``pass`` / ``fail`` / ``undecided`` of ``value ± z·se`` against ``[lo, hi]``."""
    if value is None or not math.isfinite(value):
        return "undecided"
    eps = 1e-9  # exact values on a bound (0.8 vs max 0.8) count as inside
    if (lo is not None and value + z * se < lo - eps) or (
        hi is not None and value - z * se > hi + eps
    ):
        return "fail"
    if (lo is None or value - z * se >= lo - eps) and (hi is None or value + z * se <= hi + eps):
        return "pass"
    return "undecided"


@dataclasses.dataclass
class Target:
    """What a guardrail measures, resolved from the scenario."""

    kind: str  # "fight" | "check" | "campaign"
    system: str
    entry: Any  # the Fight or Check entry
    exact: bool
    variants: dict


def guardrail_target(sc, g) -> Target:
    """The :class:`Target` a guardrail measures in scenario ``sc``: its campaign, fight or
    check entry, system, whether it is solved exactly, and its variants."""
    if getattr(g, "campaign", None) is not None:
        c = sc.campaign[entry_index(sc.campaign, "campaign", g.campaign)]
        return Target(
            "campaign", c.system or sc.system, c, (c.method or sc.method) != "mc", dict(c.variants)
        )
    if g.fight is not None:
        f = sc.fights[entry_index(sc.fights, "fight", g.fight)]
        return Target(
            "fight", sc.check_system(f), f, sc.fight_exact(f, default=True), sc.check_variants(f)
        )
    c = sc.checks[entry_index(sc.checks, "check", g.check)]
    return Target("check", sc.check_system(c), c, True, sc.check_variants(c))


def check_cell(system: str, check) -> dict[str, Any]:
    """The one cell of a check entry as ``{axis: value}`` (competence names resolved)."""
    from analysis.checks.curves import AXES
    from analysis.workflow.solvers import competence_value

    cell = {k: v[0] for k, v in check.axes.items()}
    if check.competence:
        axis = ladder_axes(system)[1] or next(iter(AXES[system]))
        cell[axis] = competence_value(system, check.competence[0])[1]
    return cell


def check_value(system: str, cell: dict, variants) -> float:
    from analysis.checks.curves import success_curves

    t = success_curves(system, "exact", axes={k: [v] for k, v in cell.items()}, variants=variants)
    return float(t["p"].mean())


def measure(
    sc, g, index: int, *, seed: int = STUDY_SEED, batch: int = 2_000, max_trials: int = 200_000
) -> dict:
    """Value, SE, trials and status of guardrail ``g`` (position ``index``), with the
    rules the scenario puts in force (its ``rules`` files and rule knobs)."""
    from analysis.rules import using

    with using(sc.rule_sets()):
        return _measure(sc, g, index, seed, batch, max_trials)


def _measure(sc, g, index: int, seed: int, batch: int, max_trials: int) -> dict:
    t = guardrail_target(sc, g)
    if t.kind == "campaign":
        from analysis.campaign import DEFAULT_TRIALS, measure_campaign

        c = t.entry
        m = measure_campaign(
            t.system,
            c.mechanic,
            c.params,
            t.variants,
            g.metric,
            method="exact" if t.exact else "mc",
            trials=sc.precision.trials or DEFAULT_TRIALS,
            seed=np.random.SeedSequence(seed, spawn_key=(AUDIT_STREAM, index)),
            threshold=c.threshold,
        )
        return {**m, "status": status_of(m["value"], m["se"], g.min, g.max)}
    if t.kind == "check":
        v = check_value(t.system, check_cell(t.system, t.entry), t.variants)
        return {
            "value": v,
            "se": 0.0,
            "trials": 0,
            "method": "exact",
            "status": status_of(v, 0.0, g.min, g.max),
        }
    if comparing(g):
        return measure_compare(sc, g, index, seed=seed, batch=batch, max_trials=max_trials)
    if getattr(g, "distances", None):
        return _measure_apart(t, g, index, seed, batch, max_trials)
    return _measure_fight(t, g, index, seed, batch, max_trials)


def margin(value: float, lo: float | None, hi: float | None) -> float:
    """How far ``value`` is outside ``[lo, hi]`` (negative: inside, by how much)."""
    out = -math.inf
    if lo is not None:
        out = max(out, lo - value)
    if hi is not None:
        out = max(out, value - hi)
    return out


def nearest(reads: list, lo: float | None, hi: float | None) -> tuple | None:
    """``(knob, value, estimate)`` nearest ``[lo, hi]`` among the values a search read
    (``reads``: ``[(Knob, read)]``, ``read.seen()`` → ``[(value, (estimate, se))]``), the
    knob's current value left out; None when nothing else was read. A failed guardrail's
    search with no cure says by it why no setting cures it."""
    best = None
    for knob, read in reads:
        seen: list = getattr(read, "seen", list)()
        if knob.ordered:  # on a tie the later value along the knob's range
            seen.sort(key=lambda vr: list(knob.values).index(vr[0]) if vr[0] in knob.values else -1)
        for val, (est, _se) in seen:
            if val == knob.current or est is None or not math.isfinite(est):
                continue
            gap = margin(est, lo, hi)
            if best is None or gap < best[0] or (gap == best[0] and best[1] == knob.name):
                best = (gap, knob.name, val, float(est))
    return None if best is None else best[1:]


def worst(figures: dict, lo: float | None, hi: float | None):
    """The key of ``figures`` (``{key: (value, se)}``) farthest outside ``[lo, hi]`` (or
    nearest its edge when every figure is inside); the first such key on a tie."""
    return max(figures, key=lambda k: margin(figures[k][0], lo, hi))


def _measure_apart(t: Target, g, index: int, seed: int, batch: int, max_trials: int) -> dict:
    """A guardrail with ``distances``: the fight measured at each starting distance (the
    combat variant ``distance``); ``fail`` when any distance fails, ``pass`` when all
    pass, else ``undecided``; the value, SE and method are those of the distance
    farthest outside the limits (``distance``), ``by_distance`` every value."""
    per = {}
    for d in g.distances:
        td = dataclasses.replace(t, variants={**t.variants, "distance": int(d)})
        per[int(d)] = _measure_fight(td, g, index, seed, batch, max_trials)
    statuses = {m["status"] for m in per.values()}
    status = "fail" if "fail" in statuses else "pass" if statuses == {"pass"} else "undecided"
    d = worst({k: (m["value"], m["se"]) for k, m in per.items()}, g.min, g.max)
    return {
        **per[d],
        "status": status,
        "distance": d,
        "trials": sum(m["trials"] for m in per.values()),
        "by_distance": {k: m["value"] for k, m in per.items()},
    }


def _measure_fight(t: Target, g, index: int, seed: int, batch: int, max_trials: int) -> dict:
    """One fight guardrail's figure: exact, or :func:`_measure_mc`."""
    from analysis.workflow.fight_sweep import fight_point

    f = t.entry
    if t.exact:
        row = fight_point(t.system, f.a, f.b, t.variants, f.round_cap, g.metric, exact=True)
        v = float(row["metric"])
        return {
            "value": v,
            "se": 0.0,
            "trials": 0,
            "method": "exact",
            "status": status_of(v, 0.0, g.min, g.max),
        }
    return _measure_mc(t, g, index, seed, batch, max_trials)


def _measure_mc(t: Target, g, index: int, seed: int, batch: int, max_trials: int) -> dict:
    """Doubling Monte Carlo batches until decided at Z_DECIDE SE or ``max_trials``."""
    for figure in fight_figures(t, g.metric, (AUDIT_STREAM, index), seed, batch, max_trials):
        status = status_of(figure[0], figure[1], g.min, g.max)
        if status != "undecided":
            break
    est, se, n, method = figure
    return {"value": float(est), "se": float(se), "trials": n, "method": method, "status": status}


def fight_figures(t: Target, metric: str, stream: tuple, seed: int, batch: int, max_trials: int):
    """``(estimate, se, trials, method)`` of one fight's ``metric``: once when exact (or
    one-attack odds, always exact), else after each doubling Monte Carlo batch (batch
    ``k`` from ``SeedSequence(seed, spawn_key=(*stream, k))``) until ``max_trials``."""
    from analysis.combat import fights as reg
    from analysis.combat.lethality import merge_stats
    from analysis.workflow.fight_sweep import fight_point

    f = t.entry
    if t.exact or reg.is_one_hit(metric):
        row = fight_point(t.system, f.a, f.b, t.variants, f.round_cap, metric, exact=bool(t.exact))
        yield float(row["metric"]), 0.0, 0, "exact"
        return
    mod = reg.engine(t.system)
    v = reg.combat_variants(t.system, t.variants)
    fa, fb = reg.fighter(t.system, f.a), reg.fighter(t.system, f.b)
    read = reg.metric(metric)
    parts, n, k = [], 0, 0
    while True:
        size = min(batch * 2**k, max_trials - n) if max_trials > n else 0
        if size <= 0:
            return
        ss = np.random.SeedSequence(seed, spawn_key=(*stream, k))
        parts.append(mod.duel_mc(fa, fb, size, ss, v, f.round_cap))
        n += size
        k += 1
        stats = parts[0] if len(parts) == 1 else merge_stats(parts)
        est, se = read(stats)
        yield float(est), float(se), n, "mc"


def ladder_axes(system: str) -> tuple[str | None, str | None]:
    """``(difficulty axis, competence axis)`` of a system, from the ladder hook it
    declares (``Ladder.difficulty_axis``, ``competence_axis``; None when it has no ladder)."""
    ladder = system_of(system).ladder
    return (ladder.difficulty_axis, ladder.competence_axis) if ladder else (None, None)


# --------------------------------------------------------------------------------------
# Guardrails that compare: the difference or ratio of one metric between two fights, or
# between two starting distances of one fight (analysis.workflow.guardrails.comparing).
#
# Each side is measured by fight_figures: exact where its fight is solved exactly, else
# doubling Monte Carlo batches, both sides growing together until the comparison is
# decided at Z_DECIDE standard errors. The two sides draw independent streams (side s of
# pair j of guardrail i: spawn_key=(AUDIT_STREAM, i, j, s, k)), so the SE of a difference
# is sqrt(se_a² + se_b²) and that of a ratio a / b (delta method)
# sqrt((se_a / b)² + (a · se_b / b²)²). A ratio whose second side is 0 has no value
# (value NaN, status undecided, ``problem`` says why).


def compare_sides(sc, g) -> list[tuple]:
    """The pairs of ``(first, second)`` :class:`.measuring.Target` a comparing guardrail
    measures, with the ``(first, second)`` names each side goes by and the starting
    distance of the pair (None when the pair is not one distance):
    ``[(first, second, names, distance), ...]``."""
    t = guardrail_target(sc, g)
    names = entry_names(sc.fights, "fight")
    mine = names[entry_index(sc.fights, "fight", g.fight)]
    if g.versus is None:
        d1, d2 = (int(d) for d in g.distances)
        at = [dataclasses.replace(t, variants={**t.variants, "distance": d}) for d in (d1, d2)]
        return [(at[0], at[1], (f"{mine} at {d1} m", f"{mine} at {d2} m"), None)]
    f = sc.fights[entry_index(sc.fights, "fight", g.versus)]
    other = guardrail_target(sc, g.model_copy(update={"fight": g.versus}))
    other = dataclasses.replace(other, entry=f)
    both = (mine, names[entry_index(sc.fights, "fight", g.versus)])
    if not g.distances:
        return [(t, other, both, None)]
    out = []
    for d in g.distances:
        out.append(
            (
                dataclasses.replace(t, variants={**t.variants, "distance": int(d)}),
                dataclasses.replace(other, variants={**other.variants, "distance": int(d)}),
                both,
                int(d),
            )
        )
    return out


def combine(how: str, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``(value, se)`` of ``a − b`` or ``a / b`` from two independent ``(value, se)``
    (NaN when a ratio's second side is 0)."""
    (va, sa), (vb, sb) = a, b
    if how == "difference":
        return va - vb, math.hypot(sa, sb)
    if vb == 0:
        return math.nan, math.nan
    return va / vb, math.hypot(sa / vb, va * sb / vb**2)


def _pair(first, second, how, g, stream, seed, batch, max_trials) -> dict:
    gens = [
        fight_figures(t, g.metric, (*stream, s), seed, batch, max_trials)
        for s, t in enumerate((first, second))
    ]
    figs = [next(x) for x in gens]
    while True:
        value, se = combine(how, figs[0][:2], figs[1][:2])
        status = status_of(value, se, g.min, g.max)
        if status != "undecided" or math.isnan(value):
            break
        moved = False
        for s in (0, 1):
            nxt = next(gens[s], None)
            if nxt is not None:
                figs[s], moved = nxt, True
        if not moved:
            break
    method = "exact" if all(f[3] == "exact" for f in figs) else "mc"
    return {
        "value": float(value),
        "se": float(se),
        "trials": figs[0][2] + figs[1][2],
        "method": method,
        "status": status,
        "sides": (figs[0][0], figs[1][0]),
        "sides_se": (figs[0][1], figs[1][1]),
        "sides_trials": (figs[0][2], figs[1][2]),
    }


def measure_compare(
    sc, g, index: int, *, seed: int, batch: int = 2_000, max_trials: int = 200_000
) -> dict:
    """Value (the difference or ratio), SE, trials, method and status of comparing
    guardrail ``g`` (position ``index``), with ``compare`` (difference | ratio),
    ``sides`` (the two values), ``names`` (the two sides' names) and, for a guardrail
    measured at several starting distances, ``distance`` (the one farthest outside its
    limits; fail when any fails) and ``by_distance``; ``problem`` when a ratio divides by
    a zero."""
    how = comparing(g)
    per = {}
    for j, (first, second, names, d) in enumerate(compare_sides(sc, g)):
        m = _pair(first, second, how, g, (AUDIT_STREAM, index, j), seed, batch, max_trials)
        m.update(compare=how, names=names)
        if math.isnan(m["value"]):
            where = f" at {d} m" if d is not None else ""
            m["problem"] = f"a ratio by zero: {g.metric} of {names[1]}{where} is 0"
        per[d] = m
    if len(per) == 1:
        return next(iter(per.values()))
    statuses = {m["status"] for m in per.values()}
    status = "fail" if "fail" in statuses else "pass" if statuses == {"pass"} else "undecided"
    d = worst({k: (m["value"], m["se"]) for k, m in per.items()}, g.min, g.max)
    problem = next((m["problem"] for m in per.values() if "problem" in m), None)
    out = {
        **per[d],
        "status": status,
        "distance": d,
        "trials": sum(m["trials"] for m in per.values()),
        "by_distance": {k: m["value"] for k, m in per.items()},
    }
    if problem:
        out["problem"] = problem
    return out
