"""The cure of a failed guardrail: the smallest edits of one knob each that make it pass
(:func:`find_cures`), searched by bisection where a knob is ordered
(:func:`analysis.workflow.solvers.solve_threshold`) and re-measured at the value found.

A cure keeps the question. A guardrail's own terms are held, never searched:

- a **check** guardrail holds every axis of its cell but the competence axis (the task's
  level and difficulty, bonus dice, the degree asked); the competence axis (the rung's
  value: an expert's skill 80) and the system's check rule variants are searched;
- a **fight** guardrail holds the fighters' identities and gear (weapons, armour,
  tactics), where the fight starts (``distance``) and how it ends (``aftermath``, the
  variants of :data:`SETUP_VARIANTS`); the fighters' hit-point trait
  (``both.<trait>``, or ``a.``/``b.`` when they differ) and the combat rule variants are
  searched.

A guardrail's ``fixed`` list holds more knobs (``variant.again``, or ``variant.*``) and
its ``free`` list frees held ones (``a.weapon``, ``both.armour``, ``dice``).

Each cure is an :class:`~.edits.Edit` — a rule variant edits the whole system
(``dice_pool_6:variant.again=8``), a trait or an axis edits the guardrail's own entry
(``even_duel_middle_3d10:both.vigor=8``) — so ``rpg-balance audit --set EDIT`` re-runs the
audit with it applied. Up to :data:`MAX_CURES` cures, one per knob, ranked by the size of
the edit: an edit that moves the system's check cells (:func:`cells_moved`) after one that
moves none, then the steps along the knob's values, then the knob's order above.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Sequence
from typing import Any

import numpy as np

from analysis.rules import is_rule_knob, using
from analysis.text import N_, Text, join
from engines.errors import InputError
from engines.system import get as system_of

from .edits import Edit
from .measuring import (
    Z_DECIDE,
    check_cell,
    check_value,
    guardrail_target,
    ladder_axes,
    nearest,
    status_of,
)
from .search_words import no_cure_text

__all__ = ["CELL_FLOOR", "CURE_TABLES", "MAX_CURES", "SEARCH_STEPS", "SETUP_VARIANTS",
           "STATUS_WORDS", "Cure", "CureSearch", "Knob", "cells_moved", "check_knobs", "cure_text",
           "discovered_cures", "fight_knobs", "find_cures", "guardrail_state", "rule_knobs",
           "side_effects", "suggest", "trait_value", "valid_values", "variant_knobs"]

#: knob values searched on each side of the current value (numeric traits)
SEARCH_STEPS = 8
#: the rule tables of formula numbers every fight uses that the cure search turns when a
#: guardrail frees them (the lethality levers: hit points, wounds, massive damage, damage
#: bonuses); the gear tables are searched for the entries a fight's fighters use
CURE_TABLES = ("health", "damage")
#: cures reported per failed guardrail (the best first, then alternatives)
MAX_CURES = 3
#: a check rule variant "moves" a cell of the system's check grid by more than this
CELL_FLOOR = 0.01
#: a guardrail's status in a sentence (translated with it)
STATUS_WORDS = {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}
#: variants never searched: they set the fight up — where it starts (``distance``, RULES.md
#: "Distance, movement and cover") and how it ends (the aftermath) — so they are part of
#: the question, not a rule edit
SETUP_VARIANTS = ("distance", "aftermath", "leave_horizon", "dying_horizon", "finish_rounds",
                  "finish_bashing", "first_aid_dice", "first_aid_tries", "first_aid_skill",
                  "aid_total", "aid_difficulty", "aid_tries", "aid_bonus")


@dataclasses.dataclass
class Knob:
    """One knob a cure may turn: its current value, the values searched (in order when
    ``ordered``), and whether an edit of it is a rule edit of the whole system."""

    name: str
    current: Any
    values: Sequence
    ordered: bool
    rule: bool


@dataclasses.dataclass
class Cure:
    """One cure: ``edit`` sets ``knob`` from ``current`` to ``value`` and the guardrail's
    metric becomes ``estimate`` ± ``se``; ``steps`` along the knob's values; ``edge`` when
    ``value`` is the first or last value searched (``searched``: that range);
    ``side_effects`` the other guardrails it moves; ``cells_moved`` the share of the
    system's check cells a check rule variant moves by more than :data:`CELL_FLOOR`."""

    knob: str
    current: Any
    value: Any
    estimate: float
    se: float
    steps: int
    edge: bool
    searched: tuple
    edit: Edit
    #: None: not measured (a discovered finding has no other guardrails)
    side_effects: list | None = None
    cells_moved: float | None = None


@dataclasses.dataclass
class CureSearch:
    """What :func:`find_cures` found in ``system``: ``cures`` (best first, at most
    :data:`MAX_CURES`), the :class:`Knob` objects ``searched`` (their ``values``: the
    range searched) and the knob names ``held`` (the question)."""

    cures: list
    searched: list
    held: list
    system: str = ""
    #: with no cure: ``(knob, value, estimate)`` of the searched value nearest the
    #: guardrail's limits (an ordered knob read at the ends of its range, a switch at
    #: each value; None when nothing was read) — why no setting cures it
    closest: tuple | None = None


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


def trait_value(system: str, spec, key: str):
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
    val = trait_value(system, spec, "armour")
    for cand in (val, getattr(val, "name", None), getattr(val, "points", None)):
        if cand is not None and cand in choices:
            return cand
    from analysis.combat import archetypes

    # gear stored by value (d20_degrees): the data file's entry with the same fields
    table = archetypes.read_library(system, None)[1].get("armour", {})
    for name, entry in table.items():
        if isinstance(entry, dict) and entry and all(getattr(val, k, None) == v
                                                     for k, v in entry.items()):
            return name
    return None


def variant_knobs(v, fields) -> list[Knob]:
    """The knobs a cure may turn among a variant object's ``fields``: each variant with
    choices (a switch: its value and the other one), the setup variants left out."""
    out = []
    for fl in fields:
        if fl.name in SETUP_VARIANTS:
            continue
        choices = fl.metadata.get("choices")
        if isinstance(fl.default, bool):
            choices = (getattr(v, fl.name), not getattr(v, fl.name))
        if not choices:
            continue
        choices = list(choices)
        ordered = all(isinstance(c, int) and not isinstance(c, bool) for c in choices)
        out.append(Knob(f"variant.{fl.name}", getattr(v, fl.name), choices, ordered, True))
    return out


def _held(name: str, g) -> bool:
    """Whether knob ``name`` is held by guardrail ``g``'s ``fixed`` list."""
    return any(fnmatch.fnmatchcase(name, pat) for pat in (getattr(g, "fixed", None) or []))


def _freed(name: str, g) -> bool:
    return any(fnmatch.fnmatchcase(name, pat) for pat in (getattr(g, "free", None) or []))


def fight_knobs(system: str, f, variants: dict, g=None) -> tuple[list[Knob], list[str]]:
    """``(knobs searched, knobs held)`` for a fight (see the module docstring)."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg
    from analysis.combat.lethality import gear_name

    out: list[Knob] = []
    held = ["a", "b", "a.weapon", "b.weapon", "both.armour", "a.tactic", "b.tactic",
            "variant.aftermath"]
    trait = system_of(system).audit.health_trait
    cur_a, cur_b = ((trait_value(system, f.a, trait), trait_value(system, f.b, trait)) if trait
                    else (None, None))
    if isinstance(cur_a, int) and cur_a == cur_b:
        out.append(Knob(f"both.{trait}", cur_a, [], True, False))
    else:
        for side, cur in (("a", cur_a), ("b", cur_b)):
            if isinstance(cur, int):
                out.append(Knob(f"{side}.{trait}", cur, [], True, False))
    if g is not None and _freed("a.weapon", g):
        out.append(Knob("a.weapon", gear_name(reg.fighter(system, f.a)),
                        archetypes.weapons(system), False, False))
    arm = archetypes.armours(system)
    if arm and g is not None and _freed("both.armour", g):
        out.append(Knob("both.armour", _armour_of(system, f.a, arm), arm, False, False))
    v = reg.combat_variants(system, variants)
    out += variant_knobs(v, dataclasses.fields(v))
    out += rule_knobs(system, f, trait, g)
    if g is not None:
        out = [k for k in out if not _held(k.name, g)]
    return out, [h for h in held if g is None or not _freed(h, g)]


def rule_knobs(system: str, f, trait: str | None, g=None) -> list[Knob]:
    """The rule knobs of a fight (:mod:`analysis.rules`): the offset to every fighter's
    health trait (``everyone.TRAIT``), each whole-number field of the rule-table entries
    its fighters use (``rules.weapon.NAME.FIELD``, ``rules.armour.NAME.FIELD``) and, when
    the guardrail frees them (``free = ["rules.health.*"]``), of the system's health and
    damage numbers (:data:`CURE_TABLES`: every fight uses them, so each costs a search
    of its own), each searched :data:`SEARCH_STEPS` either side of its value in force."""
    from analysis import rules
    from analysis.combat import archetypes
    from analysis.combat import fights as reg
    from analysis.combat.lethality import gear_name

    if system not in archetypes.systems():
        return []
    out: list[Knob] = []
    span = range(-SEARCH_STEPS, SEARCH_STEPS + 1)
    if trait:
        rs = rules.active(system)
        cur = dict(rs.everyone).get(trait, 0) if rs else 0
        out.append(Knob(f"everyone.{trait}", cur, [cur + d for d in span], True, True))
    tables = (rules.active(system) or rules.RuleSet(system)).tables()
    arm = archetypes.armours(system)
    used: list[tuple[str, str | None]] = []
    for spec in (f.a, f.b):
        try:
            used.append(("weapon", gear_name(reg.fighter(system, spec))))
        except InputError:
            continue
        armour = _armour_of(system, spec, arm) if arm else None
        if armour is not None:
            used.append(("armour", str(armour)))
    used += [(kind, entry) for kind in CURE_TABLES for entry in tables.get(kind, {})]
    for kind, entry in dict.fromkeys(used):
        fields = tables.get(kind, {}).get(entry)
        if not isinstance(fields, dict):
            continue
        for field, cur in fields.items():
            name = f"rules.{kind}.{entry}.{field}"
            if kind in CURE_TABLES and (g is None or not _freed(name, g)):
                continue        # searched when the guardrail frees it
            if isinstance(cur, int) and not isinstance(cur, bool):
                out.append(Knob(name, cur, [cur + d for d in span], True, True))
    base = rules.active(system) or rules.RuleSet(system)
    for k in out:   # the values the system's data accept (and, for an offset to a
        # trait, with both fighters built: their traits have bounds of their own)
        k.values = [x for x in k.values if x == k.current
                    or _accepted(base, system, f if k.name.startswith("everyone.") else None,
                                 k.name, x)]
    return out


def _accepted(base, system: str, f, knob: str, value) -> bool:
    from analysis.combat import fights as reg

    try:
        edited = base.with_knob(knob, value)
        with using([edited] if f is not None else []):
            for spec in (f.a, f.b) if f is not None else ():
                reg.fighter(system, spec)
    except InputError:
        return False
    return True


def check_knobs(system: str, cell: dict, variants, g=None) -> tuple[list[Knob], list[str]]:
    """``(knobs searched, knobs held)`` for a one-cell check (see the module docstring)."""
    from analysis.checks.curves import AXES, variants_for

    out: list[Knob] = []
    held = []
    competence = ladder_axes(system)[1]
    for axis in AXES[system]:
        if axis not in cell:
            continue
        if axis != competence and not (g is not None and _freed(axis, g)):
            held.append(axis)
            continue
        values = list(AXES[system][axis])
        ordered = all(isinstance(x, int) for x in values)
        out.append(Knob(axis, cell[axis], values, ordered, False))
    v = variants_for(system, variants)
    out += variant_knobs(v, dataclasses.fields(v))
    if g is not None:
        out = [k for k in out if not _held(k.name, g)]
    return out, held


def _directional(read, values: Sequence, cur, lo, hi, violated: str):
    """The nearest value on each side of ``cur`` that passes, via solve_threshold
    (bisection over an ordered knob): ``[(steps, value, estimate, se)]``."""
    from analysis.workflow.solvers import solve_threshold

    target = lo if violated == "min" else hi
    goal = "at_least" if violated == "min" else "at_most"
    found: list = []
    if cur not in values:
        return found
    up = [x for x in values if values.index(x) > values.index(cur)]
    down = [x for x in values if values.index(x) < values.index(cur)]
    for vals, increasing in ((up, violated == "min"), (down, violated != "min")):
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


def _search(knob: Knob, read, lo, hi, violated) -> list[tuple[int, Any, float, float]]:
    """Passing ``(steps, value, estimate, se)`` of one knob, nearest first."""
    if knob.ordered:
        found = _directional(read, knob.values, knob.current, lo, hi, violated)
    else:
        found = []
        for val in knob.values:
            if val == knob.current:
                continue
            est, se = read(val)
            if status_of(est, se, lo, hi) == "pass":
                steps = (abs(knob.values.index(val) - knob.values.index(knob.current))
                         if knob.current in knob.values else 1)
                found.append((steps, val, est, se))
    return sorted(found, key=lambda c: c[0])


def find_cures(sc, g, measured: dict, *, max_cures: int = MAX_CURES) -> CureSearch:
    """Up to ``max_cures`` one-knob edits that make failed guardrail ``g`` pass (one per
    knob, smallest edit first), with the knobs searched and held. Side effects are added
    by :func:`side_effects` (they need the other guardrails)."""
    from analysis.workflow.guardrails import comparing, entry_index, entry_names
    from analysis.workflow.solvers import fight_knob_metric

    t = guardrail_target(sc, g)
    if t.kind == "campaign":
        return CureSearch([], [], [], t.system)
    if comparing(g):
        return _compare_cures(sc, g, measured, max_cures)
    violated = "min" if g.min is not None and measured["value"] < g.min else "max"
    cands: list[tuple[int, int, Cure]] = []
    searched: list[Knob] = []
    reads: list[tuple[Knob, Any]] = []   # the knobs read by value (for ``closest``)
    if t.kind == "fight":
        f = t.entry
        entry = entry_names(sc.fights, "fight")[entry_index(sc.fights, "fight", g.fight)]
        knobs, held = fight_knobs(t.system, f, t.variants, g)
        for order, knob in enumerate(knobs):
            if is_rule_knob(knob.name):
                found = _rule_cure(sc, g, t.system, knob, violated)
                if found is not None:
                    searched.append(knob)
                    cands.append((found.steps, order, found))
                continue

            def reader(variants, knob=knob):
                return fight_knob_metric(
                    t.system, f.a, f.b, knob.name, g.metric, variants=variants,
                    round_cap=f.round_cap, exact=None if t.exact else False,
                    trials=None if t.exact else 20_000, seed=sc.seed)
            if getattr(g, "distances", None):   # the worst of the starting distances
                read = _cached(_worst_read([reader({**t.variants, "distance": int(d)})
                                            for d in g.distances], g.min, g.max))
            else:
                read = _cached(reader(t.variants))
            # the values the data accept, at every starting distance of the guardrail
            # (a firing-range variant has no meaning in a fight that starts apart)
            settings = ([{**t.variants, "distance": int(d)} for d in g.distances]
                        if getattr(g, "distances", None) else [t.variants])
            if knob.ordered and not knob.values:   # a trait: the values the data accept
                knob.values = range(0, 2 * max(knob.current, 1) + SEARCH_STEPS + 1)
            for v in settings:
                knob.values = valid_values(t.system, f, v, knob.name, knob.values)
            if len(knob.values) < 2:
                continue
            searched.append(knob)
            reads.append((knob, read))
            for steps, val, est, se in _search(knob, read, g.min, g.max, violated)[:1]:
                target = t.system if knob.rule else entry
                cands.append((steps, order, _cure(knob, val, est, se, steps, target)))
    else:
        cell = check_cell(t.system, t.entry)
        entry = entry_names(sc.checks, "check")[entry_index(sc.checks, "check", g.check)]
        knobs, held = check_knobs(t.system, cell, t.variants, g)
        for order, knob in enumerate(knobs):
            read = _cached(_check_read(t.system, cell, t.variants, knob))
            searched.append(knob)
            reads.append((knob, read))
            for steps, val, est, se in _search(knob, read, g.min, g.max, violated)[:1]:
                target = t.system if knob.rule else entry
                cands.append((steps, order, _cure(knob, val, est, se, steps, target)))
    for _, _, c in cands:
        if c.knob.startswith("variant."):
            c.cells_moved = cells_moved(t.system, t.variants, c.knob.split(".", 1)[1],
                                        c.value)
    # the size of the edit: one that moves the system's checks is larger than one that
    # does not, then the steps along the knob, then the knob's order
    cands.sort(key=lambda c: (bool(c[2].cells_moved), c[0], c[1]))
    return CureSearch([c for _, _, c in cands[:max_cures]], searched, held, t.system,
                      None if cands else nearest(reads, g.min, g.max))



def _compare_cures(sc, g, measured: dict, max_cures: int) -> CureSearch:
    """Cures of a failed guardrail that compares (:mod:`.comparing`): only rule knobs
    (edits of the whole system, which reach both sides alike: a knob of one fight's
    fighters would change one side of the question), each value read by the audit's
    own measurement of the guardrail on the edited scenario, so a cure keeps the
    comparison itself passing."""
    from .measuring import compare_sides

    t = guardrail_target(sc, g)
    index = next(i for i, x in enumerate(sc.guardrails) if x is g or x == g)
    pairs = compare_sides(sc, g)
    knobs, held = fight_knobs(t.system, t.entry, t.variants, g)
    held = [*held, *(k.name for k in knobs if not k.rule)]
    violated = "min" if g.min is not None and measured["value"] < g.min else "max"
    cands: list[tuple[int, int, Cure]] = []
    searched: list[Knob] = []
    for order, knob in enumerate(k for k in knobs if k.rule):
        for first, second, _names, _d in pairs:
            for side in (first, second):
                knob.values = valid_values(side.system, side.entry, side.variants,
                                           knob.name, knob.values)
        if len(knob.values) < 2:
            continue
        searched.append(knob)

        read = _edited_read(sc, index, t.system, knob.name)
        for steps, val, est, se in _search(knob, _cached(read), g.min, g.max, violated)[:1]:
            cands.append((steps, order, _cure(knob, val, est, se, steps, t.system)))
    for _, _, c in cands:
        if c.knob.startswith("variant."):
            c.cells_moved = cells_moved(t.system, t.variants, c.knob.split(".", 1)[1],
                                        c.value)
    cands.sort(key=lambda c: (bool(c[2].cells_moved), c[0], c[1]))
    return CureSearch([c for _, _, c in cands[:max_cures]], searched, held, t.system)


def _rule_cure(sc, g, system: str, knob: Knob, violated: str) -> Cure | None:
    """The nearest value of a rule knob that makes ``g`` pass, each value read by the
    audit's own measurement of ``g`` on the scenario with the rule edited (an edit the
    data refuse reads as no value); None when none does."""
    index = next(i for i, x in enumerate(sc.guardrails) if x is g or x == g)
    read = _edited_read(sc, index, system, knob.name)
    try:
        found = _search(knob, _cached(read), g.min, g.max, violated)[:1]
    except InputError:      # a value the engine refuses on the way: no cure on this knob
        return None
    for steps, val, est, se in found:
        return _cure(knob, val, est, se, steps, system)
    return None


def _edited_read(sc, index: int, target: str, knob: str):
    """``read(value)``: ``(value, se)`` of guardrail ``index`` measured by the audit on
    ``sc`` with ``target:knob=value`` applied; NaN when the data or the engine refuse it."""
    from .edits import apply
    from .measuring import measure

    def read(value):
        try:
            new = apply([sc], Edit(target, knob, value))[0]
            m = measure(new, new.guardrails[index], index, seed=sc.seed)
        except InputError:
            return float("nan"), float("nan")
        return m["value"], m["se"]
    return read


def _worst_read(reads, lo, hi):
    """A knob's reading over several starting distances: the figure of the distance
    farthest outside ``[lo, hi]`` (:func:`.measuring.worst`), so a cure holds at all."""
    from .measuring import worst

    def read(value):
        figures = {i: r(value) for i, r in enumerate(reads)}
        return figures[worst(figures, lo, hi)]
    return read


def _cure(knob: Knob, val, est, se, steps, target: str) -> Cure:
    edge = knob.ordered and val in (knob.values[0], knob.values[-1])
    return Cure(knob.name, knob.current, val, float(est), float(se), steps, edge,
                (knob.values[0], knob.values[-1]), Edit(target, knob.name, val))


def _check_read(system: str, cell: dict, variants, knob: Knob):
    """P(success) of the check cell as ``knob`` varies (exact)."""
    base = dict(variants or {})

    def read(value):
        if knob.name.startswith("variant."):
            return check_value(system, cell, {**base, knob.name.split(".", 1)[1]: value}), 0.0
        return check_value(system, {**cell, knob.name: value}, base), 0.0

    return read


_CELLS: dict = {}


def cells_moved(system: str, variants, name: str, value) -> float | None:
    """The share of the system's check cells (its success-curve grid) whose exact
    P(success) moves by more than :data:`CELL_FLOOR` when check variant ``name`` is set to
    ``value``; None when ``name`` is not a check variant of the system."""
    from analysis.checks.curves import success_curves

    if name not in {f.name for f in dataclasses.fields(system_of(system).checks.variants)}:
        return None
    base = {k: v for k, v in dict(variants or {}).items()
            if k in {f.name for f in dataclasses.fields(system_of(system).checks.variants)}}
    key = (system, repr(sorted(base.items())), name, repr(value))
    if key not in _CELLS:
        before = success_curves(system, "exact", variants=base)["p"].to_numpy()
        after = success_curves(system, "exact", variants={**base, name: value})["p"]
        _CELLS[key] = float(np.mean(np.abs(after.to_numpy() - before) > CELL_FLOOR))
    return _CELLS[key]


def side_effects(scenarios, table_rows: list[dict], which: tuple[int, int], cure: Cure, *,
                 seed: int | None, batch: int, max_trials: int) -> list[dict]:
    """The other guardrails ``cure`` moves: one dict each (``guardrail``, ``metric``,
    ``before``, ``after``, ``status_before``, ``status_after``), for every guardrail of
    ``scenarios`` whose fight or check entry the cure's edit changes (``which``: the
    cured guardrail as ``(scenario index, guardrail index)``; ``table_rows``: the measured
    rows of every guardrail, in order)."""
    from analysis.workflow.guardrails import measured_metric

    from .edits import apply
    from .measuring import measure

    edited = apply(scenarios, cure.edit)
    out = []
    row = 0
    for s, (sc, new) in enumerate(zip(scenarios, edited, strict=True)):
        for i, g in enumerate(sc.guardrails):
            before = table_rows[row]
            row += 1
            if (s, i) == which:
                continue
            if guardrail_state(sc, g) == guardrail_state(new, g):
                continue
            m = measure(new, g, i, seed=sc.seed if seed is None else seed, batch=batch,
                        max_trials=max_trials)
            if m["status"] == before["status"] and abs(m["value"] - before["value"]) <= 1e-12:
                continue   # the entry changed, its figure did not
            out.append({"guardrail": g.name, "metric": measured_metric(g),
                        "before": before["value"],
                        "after": m["value"], "se_after": m["se"],
                        "status_before": before["status"], "status_after": m["status"]})
    return out


def guardrail_state(sc, g) -> list[tuple]:
    """What guardrail ``g`` measures in ``sc``: the ``(entry, variants, fighters)`` of its
    target and, for a guardrail that compares two fights, of its ``versus`` fight (an
    edit that changes none leaves its figure as it was); ``fighters`` are the fighters
    as built under the scenario's rules (:func:`_built`)."""
    from analysis.workflow.guardrails import comparing

    t = guardrail_target(sc, g)
    out = [(t.entry, t.variants, _built(sc, t))]
    if comparing(g) and getattr(g, "versus", None) is not None:
        v = guardrail_target(sc, g.model_copy(update={"fight": g.versus}))
        out.append((v.entry, v.variants, _built(sc, v)))
    return out


def _built(sc, t) -> str:
    """The fighters of a fight target as the rules the scenario puts in force build them
    (a rule knob — ``rules.…``, ``everyone.…`` — touches exactly the fights whose
    fighters it changes); empty for a check or campaign."""
    if t.kind != "fight":
        return ""
    from analysis.combat import fights as reg

    with using(sc.rule_sets()):
        try:
            return repr((reg.fighter(t.system, t.entry.a), reg.fighter(t.system, t.entry.b)))
        except InputError as exc:
            return f"error: {exc}"


def cure_text(search: CureSearch, metric: str) -> Text:
    """The cures as one sentence in the system's words (:mod:`analysis.glossary`): the
    best, the edge of its range, the share of check cells a rule variant moves and its
    side effects, then the alternatives; or that no one-knob edit within the ranges
    searched cures it, with the ranges and what is held."""
    system = search.system
    if not search.cures:
        return no_cure_text(search, metric)
    best, *rest = search.cures
    parts = [_with_effects(system, best, metric)]
    if rest:
        parts.append(Text(N_("or {alternatives}"), alternatives=join("; or ", (
            _with_effects(system, c, metric) for c in rest))))
    return join("; ", parts)



def _with_effects(system: str, c: Cure, metric: str) -> Text:
    """One cure with the share of check cells it moves (a check rule variant) and the
    other guardrails it moves."""
    from analysis.glossary import figure_phrase

    parts = [_one(system, c, metric)]
    if c.cells_moved is not None:
        parts.append(Text(N_("it changes the chance of {share} of the system's checks by "
                             "more than one percentage point"),
                          share=f"{c.cells_moved:.0%}"))
    if c.side_effects is None:
        pass
    elif c.side_effects:
        items = []
        for e in c.side_effects:
            before = figure_phrase(e["metric"], float(e["before"]))
            after = figure_phrase(e["metric"], float(e["after"]), float(e.get("se_after", 0)))
            if str(before) == str(after):     # a move too small for the words: digits
                before, after = _pair(e["metric"], float(e["before"]), float(e["after"]))
            items.append(Text(N_("{guardrail} {before} → {after} ({status})"),
                              guardrail=_name(e["guardrail"]), before=before, after=after,
                              status=Text(STATUS_WORDS.get(e["status_after"],
                                                           e["status_after"]))))
        parts.append(Text(N_("other guardrails: {effects}"), effects=join(", ", items)))
    else:
        parts.append(Text(N_("no other guardrail moves")))
    return join(", ", parts)


def _name(guardrail: str):
    """A guardrail's name, translatable when the catalogue has it (the shipped ones)."""
    return Text(guardrail) if "{" not in guardrail and "}" not in guardrail else guardrail


def _pair(metric: str, before: float, after: float) -> tuple[Text, Text]:
    """``before`` and ``after`` in the metric's units (a percentage, rounds) with as many
    decimals (1 to 7) as it takes to tell them apart: a move is never shown as
    ``70.1% → 70.1%``."""
    from analysis.glossary import probability_metric, rounds_metric

    scale, template = 1.0, "{x}"
    if probability_metric(metric):
        scale, template = 100.0, N_("{x}%")
    elif rounds_metric(metric):
        template = N_("{x} rounds")
    for decimals in range(1, 8):
        b, a = f"{scale * before:.{decimals}f}", f"{scale * after:.{decimals}f}"
        if b != a:
            break
    return Text(template, x=b), Text(template, x=a)


def _one(system: str, c: Cure, metric: str) -> Text:
    from analysis.glossary import figure_phrase, knob_phrase, metric_phrase, value_phrase

    text = Text(N_("{knob} from {current} to {value}, which makes {metric} {figure}"),
                knob=knob_phrase(system, c.knob),
                current="?" if c.current is None else value_phrase(system, c.knob, c.current),
                value=value_phrase(system, c.knob, c.value), metric=metric_phrase(metric),
                figure=figure_phrase(metric, c.estimate, c.se))
    if c.edge:
        return Text(N_("{cure} (the edge of the range searched, {low}–{high})"), cure=text,
                    low=value_phrase(system, c.knob, c.searched[0]),
                    high=value_phrase(system, c.knob, c.searched[1]))
    return text


def suggest(sc, g, measured: dict) -> str:
    """:func:`find_cures` as text (without side effects)."""
    t = guardrail_target(sc, g)
    if t.kind == "campaign":
        return ("no one-knob search for campaign guardrails; [[solve]] kind = 'campaign' "
                "finds the knob value for a target")
    from analysis.workflow.guardrails import measured_metric

    return cure_text(find_cures(sc, g, measured), measured_metric(g))


def valid_values(system: str, f, variants: dict, knob: str, values) -> list:
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
    """``read`` remembering each value's result; ``.seen()`` lists ``(value, result)``
    of every value read (a search with no cure tells its nearest value from them)."""
    memo: dict = {}

    def inner(value):
        key = repr(value)
        if key not in memo:
            memo[key] = (value, read(value))
        return memo[key][1]

    inner.seen = lambda: list(memo.values())
    return inner


def discovered_cures(table, cfg: dict, ladder: dict) -> None:
    """Cures of the discovered findings that cross a threshold of the ``[discover]``
    table, searched as a guardrail's are (:func:`find_cures`): a weapon whose one attack
    drops an unhurt equal with P ≥ ``one_hit_incapacitate`` and an even duel over in
    round 1 with P ≥ ``one_round_duel`` get the one-knob edits (the fighters' hit-point
    trait, a combat rule variant; the fighters and gear held) that bring the figure under
    the threshold. Sets the ``suggestion`` column (the cures as text) and ``cure`` (the
    ``rpg-balance solve lethality --grid`` command printing the figure before and after
    the best edit) in place; other kinds get neither (a dominated option or a gap
    variant is a fact about the rules, not a figure past a limit)."""
    from analysis.workflow.scenario import parse_scenario

    from .reproduce import grid

    suggestion, command = [], []
    for r in table.itertuples(index=False):
        if r.kind != "one_hit" or r.system not in ladder:
            suggestion.append("")
            command.append("")
            continue
        base = dict(ladder[r.system][cfg["attacker"]])
        if r.subject == "even duel":
            a, limit = base, cfg["one_round_duel"]
        else:
            a, limit = {**base, "weapon": r.subject}, cfg["one_hit_incapacitate"]
        sc = parse_scenario({
            "name": "discovered", "fights": [{"name": "finding", "system": r.system,
                                               "a": a, "b": base}],
            # a finding is P >= the threshold: the cure must bring it strictly under
            "guardrails": [{"name": str(r.subject), "fight": "finding", "metric": r.metric,
                            "max": limit - 2e-9}]})
        found = find_cures(sc, sc.guardrails[0], {"value": float(r.value)})
        suggestion.append(cure_text(found, r.metric))
        if found.cures:
            c = found.cures[0]
            command.append(grid(r.system, a, base, r.metric, c.knob, [c.current, c.value]))
        else:
            command.append("")
    table["suggestion"] = suggestion
    table["cure"] = command
