"""Measuring a guardrail that compares (``versus = FIGHT`` or two ``distances``; see
:func:`analysis.workflow.guardrails.comparing`): the difference or ratio of one metric
between two fights, or between two starting distances of one fight.

Each side is measured by the audit's own code (:func:`.measuring.fight_figures`): exact
where its fight is solved exactly, else doubling Monte Carlo batches, both sides growing
together until the comparison is decided at :data:`.measuring.Z_DECIDE` standard errors.
The two sides draw independent streams (side ``s`` of pair ``j`` of guardrail ``i``:
``spawn_key=(AUDIT_STREAM, i, j, s, k)``), so the SE of a difference is
``sqrt(se_a² + se_b²)`` and that of a ratio ``a / b`` (delta method) is
``sqrt((se_a / b)² + (a · se_b / b²)²)``. A ratio whose second side is 0 has no value
(``value`` NaN, status ``undecided``, ``problem`` says why).
"""

from __future__ import annotations

import dataclasses
import math

from analysis.text import N_, Text
from analysis.workflow.guardrails import comparing, entry_index, entry_names

from .measuring import AUDIT_STREAM, fight_figures, guardrail_target, status_of, worst

__all__ = ["combine", "compare_sides", "compare_words", "measure_compare"]


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
        at = [dataclasses.replace(t, variants={**t.variants, "distance": d})
              for d in (d1, d2)]
        return [(at[0], at[1], (f"{mine} at {d1} m", f"{mine} at {d2} m"), None)]
    f = sc.fights[entry_index(sc.fights, "fight", g.versus)]
    other = guardrail_target(sc, g.model_copy(update={"fight": g.versus}))
    other = dataclasses.replace(other, entry=f)
    both = (mine, names[entry_index(sc.fights, "fight", g.versus)])
    if not g.distances:
        return [(t, other, both, None)]
    out = []
    for d in g.distances:
        out.append((dataclasses.replace(t, variants={**t.variants, "distance": int(d)}),
                    dataclasses.replace(other, variants={**other.variants,
                                                         "distance": int(d)}),
                    both, int(d)))
    return out


def combine(how: str, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """``(value, se)`` of ``a − b`` or ``a / b`` from two independent ``(value, se)``
    (NaN when a ratio's second side is 0)."""
    (va, sa), (vb, sb) = a, b
    if how == "difference":
        return va - vb, math.hypot(sa, sb)
    if vb == 0:
        return math.nan, math.nan
    return va / vb, math.hypot(sa / vb, va * sb / vb ** 2)


def _pair(first, second, how, g, stream, seed, batch, max_trials) -> dict:
    gens = [fight_figures(t, g.metric, (*stream, s), seed, batch, max_trials)
            for s, t in enumerate((first, second))]
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
    return {"value": float(value), "se": float(se), "trials": figs[0][2] + figs[1][2],
            "method": method, "status": status,
            "sides": (figs[0][0], figs[1][0]), "sides_se": (figs[0][1], figs[1][1]),
            "sides_trials": (figs[0][2], figs[1][2])}


def measure_compare(sc, g, index: int, *, seed: int, batch: int = 2_000,
                    max_trials: int = 200_000) -> dict:
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
            m["problem"] = (f"a ratio by zero: {g.metric} of {names[1]}{where} is 0")
        per[d] = m
    if len(per) == 1:
        return next(iter(per.values()))
    statuses = {m["status"] for m in per.values()}
    status = ("fail" if "fail" in statuses else "pass" if statuses == {"pass"}
              else "undecided")
    d = worst({k: (m["value"], m["se"]) for k, m in per.items()}, g.min, g.max)
    problem = next((m["problem"] for m in per.values() if "problem" in m), None)
    out = {**per[d], "status": status, "distance": d,
           "trials": sum(m["trials"] for m in per.values()),
           "by_distance": {k: m["value"] for k, m in per.items()}}
    if problem:
        out["problem"] = problem
    return out


def _number(x) -> str:
    x = float(x)
    return f"{x:.3f}" if math.isfinite(x) else "undefined"


def compare_words(g, m: dict) -> Text:
    """The comparison in words: the metric, the two fights (or distances), their values,
    the difference or ratio and the limit, e.g. "p_side0 of armour_in_melee_dice_pool_7
    minus that of even_duel_dice_pool_7: 0.550 − 0.500 = 0.050, limit at least 0.100"."""
    from analysis.glossary import metric_phrase

    if g.min is not None and g.max is not None:
        limit = Text(N_("between {low} and {high}"), low=_number(g.min), high=_number(g.max))
    elif g.min is not None:
        limit = Text(N_("at least {low}"), low=_number(g.min))
    else:
        limit = Text(N_("at most {high}"), high=_number(g.max))
    first, second = m["names"]
    a, b = m["sides"]
    where = Text(N_(" (at {distance} m)"), distance=m["distance"]) if m.get("distance") \
        is not None else ""
    template = (N_("{metric} ({name}) of {first} minus that of {second}{where}: {a} − {b} = "
                   "{value}, limit {limit}") if m["compare"] == "difference" else
                N_("{metric} ({name}) of {first} divided by that of {second}{where}: {a} / {b} "
                   "= {value}, limit {limit}"))
    return Text(template, metric=metric_phrase(g.metric), name=g.metric, first=first,
                second=second, where=where, a=_number(a), b=_number(b),
                value=_number(m["value"]), limit=limit)
