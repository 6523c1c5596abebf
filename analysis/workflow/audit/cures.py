"""The cure: the smallest change of one knob that makes a failed guardrail pass
(:func:`suggest`), searched with :func:`analysis.workflow.solvers.solve_threshold` and
re-measured at the value found."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from analysis.text import N_, Text
from engines.errors import InputError
from engines.system import get as system_of

from .measuring import Z_DECIDE, _axes_of, _target, check_cell, status_of

#: knob values searched on each side of the current value
SEARCH_STEPS = 8


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def _plain(x):
    """A knob value as a template field: floats as :func:`_fmt` shows them (so the text
    reads the same in every language), other values as they are."""
    return _fmt(x) if isinstance(x, float) else x


def _find(data, key: str):
    """The first value under ``key`` in nested mappings (None when absent)."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        for v in data.values():
            found = _find(v, key)
            if found is not None:
                return found
    return None


def _current(system: str, spec, key: str):
    """The current value of trait ``key`` of a fighter spec (None when unknown)."""
    from analysis.combat import archetypes

    if isinstance(spec, dict) and key in spec:
        return spec[key]
    name = spec if isinstance(spec, str) else spec.get("archetype")
    model = archetypes.library(system).get(name) if name is not None else None
    if model is None:
        return None
    if hasattr(model, key):
        val = getattr(model, key)
    elif hasattr(model, "model_dump"):
        val = _find(model.model_dump(), key)
    else:
        val = None
    return val.item() if isinstance(val, np.generic) else val


def _armour_of(system: str, spec, choices: list):
    """The armour a fighter spec wears, as one of ``choices`` (None when unknown)."""
    val = _current(system, spec, "armour")
    for cand in (val, getattr(val, "name", None), getattr(val, "points", None)):
        if cand is not None and cand in choices:
            return cand
    from analysis.combat import archetypes

    # gear stored by value (d20_degrees): the data file's entry with the same fields
    table = archetypes._read(system, None)[1].get("armour", {})
    for name, entry in table.items():
        if isinstance(entry, dict) and entry and all(getattr(val, k, None) == v
                                                     for k, v in entry.items()):
            return name
    return None


def _fight_knobs(system: str, f, variants: dict) -> list[tuple[str, Any, list, bool]]:
    """``(knob, current, values, numeric)`` candidates for a fight guardrail."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg
    from analysis.combat.lethality import gear_name

    out = []
    trait = system_of(system).health_trait
    cur_a, cur_b = ((_current(system, f.a, trait), _current(system, f.b, trait)) if trait
                    else (None, None))
    if isinstance(cur_a, int) and cur_a == cur_b:
        out.append((f"both.{trait}", cur_a, None, True))
    for side, _spec, cur in (("a", f.a, cur_a), ("b", f.b, cur_b)):
        if isinstance(cur, int) and cur_a != cur_b:
            out.append((f"{side}.{trait}", cur, None, True))
    built = reg.fighter(system, f.a)
    out.append(("a.weapon", gear_name(built), archetypes.weapons(system), False))
    arm = archetypes.armours(system)
    if arm:
        out.append(("both.armour", _armour_of(system, f.a, arm), arm, False))
    v = reg.combat_variants(system, variants)
    for fl in dataclasses.fields(v):
        choices = fl.metadata.get("choices")
        if fl.name == "aftermath":
            continue
        if isinstance(fl.default, bool):
            choices = (True, False)
        if not choices or len(choices) > 6:
            continue
        out.append((f"variant.{fl.name}", getattr(v, fl.name), list(choices), False))
    return out


def _check_metric(system: str, axis: str, fixed: dict, variants):
    """P(success) of a check as one axis varies (exact): the solvers' knob metric, read
    off the system's exact success curve."""
    from analysis.workflow.solvers import check_knob_metric

    return check_knob_metric(system, axis, fixed, variants=variants)


def _check_knobs(system: str, cell: dict) -> list[tuple[str, Any, list, bool]]:
    from analysis.checks.curves import AXES

    out = []
    for axis in _axes_of(system):
        if axis not in cell:
            continue
        values = list(AXES[system][axis])
        numeric = all(isinstance(x, int) for x in values)
        out.append((axis, cell[axis], values, numeric))
    return out


def _directional(read, values: list, cur, lo, hi, violated: str, steps: int | None = None):
    """The nearest value on each side of ``cur`` that passes, via solve_threshold
    (``steps``: how many values each way; all when None)."""
    from analysis.workflow.solvers import solve_threshold

    target = lo if violated == "min" else hi
    goal = "at_least" if violated == "min" else "at_most"
    found = []
    up = [x for x in values if x > cur]
    down = [x for x in values if x < cur]
    if steps is not None:
        up, down = up[:steps], down[max(len(down) - steps, 0):]
    for _side, vals, increasing in (("up", up, violated == "min"),
                                   ("down", down, violated != "min")):
        if not vals:
            continue
        res = solve_threshold(read, vals, target, goal=goal, increasing=increasing,
                              z=Z_DECIDE)
        if res.found:
            est, se = read(res.knob)
            if status_of(est, se, lo, hi) == "pass":
                found.append((abs(values.index(res.knob) - values.index(cur)), res.knob,
                              est, se))
    return found


def suggest(sc, g, measured: dict) -> str:
    """The smallest single-knob change that makes failed guardrail ``g`` pass, as text
    (``both.vigor 4 → 6 gives rounds_mean 3.1``), or why none was found."""
    from analysis.workflow.solvers import fight_knob_metric

    t = _target(sc, g)
    if t.kind == "campaign":
        return ("no one-knob search for campaign guardrails; [[solve]] kind = 'campaign' "
                "finds the knob value for a target")
    violated = "min" if g.min is not None and measured["value"] < g.min else "max"
    cands: list[tuple[int, int, str, Any, Any, float, float]] = []
    tried: list[str] = []
    if t.kind == "fight":
        f = t.entry
        knobs = _fight_knobs(t.system, f, t.variants)
        for order, (knob, cur, values, numeric) in enumerate(knobs):
            read = _cached(fight_knob_metric(
                t.system, f.a, f.b, knob, g.metric, variants=t.variants,
                round_cap=f.round_cap, exact=None if t.exact else False,
                trials=None if t.exact else 20_000, seed=sc.seed))
            if numeric:
                values = _valid(t.system, f, t.variants, knob,
                                range(0, 2 * max(cur, 1) + SEARCH_STEPS + 1))
                tried.append(f"{knob} {values[0]}–{values[-1]}")
                for steps, val, est, se in _directional(read, values, cur, g.min, g.max,
                                                        violated, SEARCH_STEPS + cur):
                    cands.append((steps, order, knob, cur, val, est, se))
            else:
                tried.append(knob)
                for val in _valid(t.system, f, t.variants, knob, values):
                    if val == cur or (cur is None and knob.endswith("armour")
                                      and val in (0, "none")):
                        continue
                    est, se = read(val)
                    if status_of(est, se, g.min, g.max) == "pass":
                        cands.append((1, order, knob, cur, val, est, se))
                        break
    else:
        cell = check_cell(t.system, t.entry)
        for order, (axis, cur, values, numeric) in enumerate(_check_knobs(t.system, cell)):
            fixed = {k: v for k, v in cell.items() if k != axis}
            read = _cached(_check_metric(t.system, axis, fixed, t.variants))
            tried.append(f"{axis} {values[0]}–{values[-1]}")
            if numeric:
                for steps, val, est, se in _directional(read, values, cur, g.min, g.max,
                                                        violated):
                    cands.append((steps, order, axis, cur, val, est, se))
            else:
                for val in values:
                    if val != cur:
                        est, se = read(val)
                        if status_of(est, se, g.min, g.max) == "pass":
                            cands.append((abs(values.index(val) - values.index(cur)), order,
                                          axis, cur, val, est, se))
    if not cands:
        return Text(N_("no single knob cures it (searched {searched})"),
                    searched=", ".join(tried))
    steps, _, knob, cur, val, est, se = min(cands, key=lambda c: (c[0], c[1]))
    fields = {"knob": knob, "current": "?" if cur is None else _plain(cur),
              "value": _plain(val), "metric": g.metric, "estimate": est}
    if se:
        return Text(N_("{knob} {current} → {value} gives {metric} {estimate:.3g} ± {se:.3g}"),
                    se=se, **fields)
    return Text(N_("{knob} {current} → {value} gives {metric} {estimate:.3g}"), **fields)


def _valid(system: str, f, variants: dict, knob: str, values) -> list:
    """The knob values the data files' validation accepts (e.g. vigor 1..10)."""
    from analysis.combat import fights as reg
    from analysis.workflow.fight_sweep import apply_knob

    out = []
    for value in values:
        try:
            a, b, v = apply_knob(f.a, f.b, variants, knob, value)
            reg.fighter(system, a)
            reg.fighter(system, b)
            reg.combat_variants(system, v)
        except InputError:
            continue
        out.append(value)
    return out


def _cached(read):
    memo: dict = {}

    def inner(value):
        key = repr(value)
        if key not in memo:
            memo[key] = read(value)
        return memo[key]

    return inner
