"""The cure of a failed guardrail: the smallest edits of one knob each that make it pass
(:func:`find_cures`), searched by bisection where a knob is ordered
(:func:`analysis.workflow.solvers.solve_threshold`) and re-measured at the value found.

A cure keeps the question. A guardrail's own terms are held, never searched (the knobs
searched and held: :mod:`.knobs`):

- a **check** guardrail holds every axis of its cell but the competence axis (the task's
  level and difficulty, bonus dice, the degree asked); the competence axis (the rung's
  value: an expert's skill 80) and the system's check rule variants are searched;
- a **fight** guardrail holds the fighters' identities and gear (weapons, armour,
  tactics), where the fight starts (``distance``) and how it ends (``aftermath``, the
  variants of :data:`.knobs.SETUP_VARIANTS`); the fighters' hit-point trait
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
from collections.abc import Sequence
from typing import Any

import numpy as np

from analysis.rules import is_rule_knob, using
from analysis.text import N_, Text, join
from engines.errors import InputError
from engines.system import get as system_of

from .edits import Edit
from .knobs import SEARCH_STEPS, Knob, check_knobs, fight_knobs, valid_values
from .measuring import (
    Z_DECIDE,
    check_cell,
    check_value,
    guardrail_target,
    nearest,
    status_of,
)
from .search_words import no_cure_text

__all__ = [
    "CELL_FLOOR",
    "MAX_CURES",
    "STATUS_WORDS",
    "Cure",
    "CureSearch",
    "cells_moved",
    "cure_text",
    "discovered_cures",
    "find_cures",
    "guardrail_state",
    "side_effects",
    "suggest",
]

#: cures reported per failed guardrail (the best first, then alternatives)
MAX_CURES = 3
#: a check rule variant "moves" a cell of the system's check grid by more than this
CELL_FLOOR = 0.01
#: a guardrail's status in a sentence (translated with it)
STATUS_WORDS = {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}


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
        res = solve_threshold(read, vals, target, goal=goal, increasing=increasing, z=Z_DECIDE)
        if res.found:
            est, se = read(res.knob)
            if status_of(est, se, lo, hi) == "pass":
                found.append((abs(values.index(res.knob) - values.index(cur)), res.knob, est, se))
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
                steps = (
                    abs(knob.values.index(val) - knob.values.index(knob.current))
                    if knob.current in knob.values
                    else 1
                )
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
    reads: list[tuple[Knob, Any]] = []  # the knobs read by value (for ``closest``)
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
                    t.system,
                    f.a,
                    f.b,
                    knob.name,
                    g.metric,
                    variants=variants,
                    round_cap=f.round_cap,
                    exact=None if t.exact else False,
                    trials=None if t.exact else 20_000,
                    seed=sc.seed,
                )

            if getattr(g, "distances", None):  # the worst of the starting distances
                read = _cached(
                    _worst_read(
                        [reader({**t.variants, "distance": int(d)}) for d in g.distances],
                        g.min,
                        g.max,
                    )
                )
            else:
                read = _cached(reader(t.variants))
            # the values the data accept, at every starting distance of the guardrail
            # (a firing-range variant has no meaning in a fight that starts apart)
            settings = (
                [{**t.variants, "distance": int(d)} for d in g.distances]
                if getattr(g, "distances", None)
                else [t.variants]
            )
            if knob.ordered and not knob.values:  # a trait: the values the data accept
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
            c.cells_moved = cells_moved(t.system, t.variants, c.knob.split(".", 1)[1], c.value)
    # the size of the edit: one that moves the system's checks is larger than one that
    # does not, then the steps along the knob, then the knob's order
    cands.sort(key=lambda c: (bool(c[2].cells_moved), c[0], c[1]))
    return CureSearch(
        [c for _, _, c in cands[:max_cures]],
        searched,
        held,
        t.system,
        None if cands else nearest(reads, g.min, g.max),
    )


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
                knob.values = valid_values(
                    side.system, side.entry, side.variants, knob.name, knob.values
                )
        if len(knob.values) < 2:
            continue
        searched.append(knob)

        read = _edited_read(sc, index, t.system, knob.name)
        for steps, val, est, se in _search(knob, _cached(read), g.min, g.max, violated)[:1]:
            cands.append((steps, order, _cure(knob, val, est, se, steps, t.system)))
    for _, _, c in cands:
        if c.knob.startswith("variant."):
            c.cells_moved = cells_moved(t.system, t.variants, c.knob.split(".", 1)[1], c.value)
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
    except InputError:  # a value the engine refuses on the way: no cure on this knob
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
    return Cure(
        knob.name,
        knob.current,
        val,
        float(est),
        float(se),
        steps,
        edge,
        (knob.values[0], knob.values[-1]),
        Edit(target, knob.name, val),
    )


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
    base = {
        k: v
        for k, v in dict(variants or {}).items()
        if k in {f.name for f in dataclasses.fields(system_of(system).checks.variants)}
    }
    key = (system, repr(sorted(base.items())), name, repr(value))
    if key not in _CELLS:
        before = success_curves(system, "exact", variants=base)["p"].to_numpy()
        after = success_curves(system, "exact", variants={**base, name: value})["p"]
        _CELLS[key] = float(np.mean(np.abs(after.to_numpy() - before) > CELL_FLOOR))
    return _CELLS[key]


def side_effects(
    scenarios,
    table_rows: list[dict],
    which: tuple[int, int],
    cure: Cure,
    *,
    seed: int | None,
    batch: int,
    max_trials: int,
) -> list[dict]:
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
            m = measure(
                new,
                g,
                i,
                seed=sc.seed if seed is None else seed,
                batch=batch,
                max_trials=max_trials,
            )
            if m["status"] == before["status"] and abs(m["value"] - before["value"]) <= 1e-12:
                continue  # the entry changed, its figure did not
            out.append(
                {
                    "guardrail": g.name,
                    "metric": measured_metric(g),
                    "before": before["value"],
                    "after": m["value"],
                    "se_after": m["se"],
                    "status_before": before["status"],
                    "status_after": m["status"],
                }
            )
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
        parts.append(
            Text(
                N_("or {alternatives}"),
                alternatives=join("; or ", (_with_effects(system, c, metric) for c in rest)),
            )
        )
    return join("; ", parts)


def _with_effects(system: str, c: Cure, metric: str) -> Text:
    """One cure with the share of check cells it moves (a check rule variant) and the
    other guardrails it moves."""
    from analysis.glossary import figure_phrase

    parts = [_one(system, c, metric)]
    if c.cells_moved is not None:
        parts.append(
            Text(
                N_(
                    "it changes the chance of {share} of the system's checks by "
                    "more than one percentage point"
                ),
                share=f"{c.cells_moved:.0%}",
            )
        )
    if c.side_effects is None:
        pass
    elif c.side_effects:
        items = []
        for e in c.side_effects:
            before = figure_phrase(e["metric"], float(e["before"]))
            after = figure_phrase(e["metric"], float(e["after"]), float(e.get("se_after", 0)))
            if str(before) == str(after):  # a move too small for the words: digits
                before, after = _pair(e["metric"], float(e["before"]), float(e["after"]))
            items.append(
                Text(
                    N_("{guardrail} {before} → {after} ({status})"),
                    guardrail=_name(e["guardrail"]),
                    before=before,
                    after=after,
                    status=Text(STATUS_WORDS.get(e["status_after"], e["status_after"])),
                )
            )
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

    text = Text(
        N_("{knob} from {current} to {value}, which makes {metric} {figure}"),
        knob=knob_phrase(system, c.knob),
        current="?" if c.current is None else value_phrase(system, c.knob, c.current),
        value=value_phrase(system, c.knob, c.value),
        metric=metric_phrase(metric),
        figure=figure_phrase(metric, c.estimate, c.se),
    )
    if c.edge:
        return Text(
            N_("{cure} (the edge of the range searched, {low}–{high})"),
            cure=text,
            low=value_phrase(system, c.knob, c.searched[0]),
            high=value_phrase(system, c.knob, c.searched[1]),
        )
    return text


def suggest(sc, g, measured: dict) -> str:
    """:func:`find_cures` as text (without side effects)."""
    t = guardrail_target(sc, g)
    if t.kind == "campaign":
        return (
            "no one-knob search for campaign guardrails; [[solve]] kind = 'campaign' "
            "finds the knob value for a target"
        )
    from analysis.workflow.guardrails import measured_metric

    return cure_text(find_cures(sc, g, measured), measured_metric(g))


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
        sc = parse_scenario(
            {
                "name": "discovered",
                "fights": [{"name": "finding", "system": r.system, "a": a, "b": base}],
                # a finding is P >= the threshold: the cure must bring it strictly under
                "guardrails": [
                    {
                        "name": str(r.subject),
                        "fight": "finding",
                        "metric": r.metric,
                        "max": limit - 2e-9,
                    }
                ],
            }
        )
        found = find_cures(sc, sc.guardrails[0], {"value": float(r.value)})
        suggestion.append(cure_text(found, r.metric))
        if found.cures:
            c = found.cures[0]
            command.append(grid(r.system, a, base, r.metric, c.knob, [c.current, c.value]))
        else:
            command.append("")
    table["suggestion"] = suggestion
    table["cure"] = command
