"""The knobs a cure may turn (:func:`.cures.find_cures`) and the knobs it holds as the
question: a check's axes and rule variants (:func:`check_knobs`), a fight's hit-point
trait, gear the guardrail frees and combat rule variants (:func:`fight_knobs`), the rule
knobs of :mod:`analysis.rules` (:func:`rule_knobs`), each with the values the data files
accept (:func:`valid_values`).

A **check** guardrail holds every axis of its cell but the competence axis; a **fight**
guardrail holds the fighters' identities and gear, where the fight starts and how it ends
(:data:`SETUP_VARIANTS`); its ``fixed`` list holds more knobs and its ``free`` list frees
held ones (see :mod:`.cures`).
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Sequence
from typing import Any

import numpy as np

from analysis.rules import using
from engines.errors import InputError
from engines.system import get as system_of

from .measuring import ladder_axes

__all__ = [
    "CURE_TABLES",
    "SEARCH_STEPS",
    "SETUP_VARIANTS",
    "Knob",
    "check_knobs",
    "fight_knobs",
    "rule_knobs",
    "trait_value",
    "valid_values",
    "variant_knobs",
]

#: knob values searched on each side of the current value (numeric traits)
SEARCH_STEPS = 8
#: the rule tables of formula numbers every fight uses that the cure search turns when a
#: guardrail frees them (the lethality levers: hit points, wounds, massive damage, damage
#: bonuses); the gear tables are searched for the entries a fight's fighters use
CURE_TABLES = ("health", "damage")
#: variants never searched: they set the fight up — where it starts (``distance``, RULES.md
#: "Distance, movement and cover") and how it ends (the aftermath) — so they are part of
#: the question, not a rule edit
SETUP_VARIANTS = (
    "distance",
    "aftermath",
    "leave_horizon",
    "dying_horizon",
    "finish_rounds",
    "finish_bashing",
    "first_aid_dice",
    "first_aid_tries",
    "first_aid_skill",
    "aid_total",
    "aid_difficulty",
    "aid_tries",
    "aid_bonus",
)


@dataclasses.dataclass
class Knob:
    """One knob a cure may turn: its current value, the values searched (in order when
    ``ordered``), and whether an edit of it is a rule edit of the whole system."""

    name: str
    current: Any
    values: Sequence
    ordered: bool
    rule: bool


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
        if (
            isinstance(entry, dict)
            and entry
            and all(getattr(val, k, None) == v for k, v in entry.items())
        ):
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
    held = [
        "a",
        "b",
        "a.weapon",
        "b.weapon",
        "both.armour",
        "a.tactic",
        "b.tactic",
        "variant.aftermath",
    ]
    trait = system_of(system).audit.health_trait
    cur_a, cur_b = (
        (trait_value(system, f.a, trait), trait_value(system, f.b, trait))
        if trait
        else (None, None)
    )
    if isinstance(cur_a, int) and cur_a == cur_b:
        out.append(Knob(f"both.{trait}", cur_a, [], True, False))
    else:
        for side, cur in (("a", cur_a), ("b", cur_b)):
            if isinstance(cur, int):
                out.append(Knob(f"{side}.{trait}", cur, [], True, False))
    if g is not None and _freed("a.weapon", g):
        out.append(
            Knob(
                "a.weapon",
                gear_name(reg.fighter(system, f.a)),
                archetypes.weapons(system),
                False,
                False,
            )
        )
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
                continue  # searched when the guardrail frees it
            if isinstance(cur, int) and not isinstance(cur, bool):
                out.append(Knob(name, cur, [cur + d for d in span], True, True))
    base = rules.active(system) or rules.RuleSet(system)
    for k in out:  # the values the system's data accept (and, for an offset to a
        # trait, with both fighters built: their traits have bounds of their own)
        k.values = [
            x
            for x in k.values
            if x == k.current
            or _accepted(base, system, f if k.name.startswith("everyone.") else None, k.name, x)
        ]
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
