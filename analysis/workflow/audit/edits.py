"""One edit of a guardrail file, ``TARGET:KNOB=VALUE`` (``rpg-balance audit --set``): the
form every cure takes, so that a cure's own command re-runs the audit with it applied.

``TARGET`` is a system id (a rule edit: every fight and check of that system) or the name
of one ``[[fights]]`` / ``[[checks]]`` entry (``fight0``, ``check2`` for an unnamed one:
that entry only). ``KNOB`` is

- ``variant.NAME`` — a rule variant: each fight whose combat variants have ``NAME`` and
  each check whose check variants have it;
- ``a.KEY``, ``b.KEY``, ``both.KEY`` — a fighter trait (fights only;
  :func:`analysis.workflow.fight_sweep.apply_knob`);
- a check axis (``skill``, ``pool``, ``difficulty`` …) — the one cell of a check entry;
- ``rules.KIND.ENTRY.FIELD`` — a field of the system's rule tables (``TARGET`` a system:
  ``dice_pool_7:rules.armour.heavy_archaic.ballistic=1``), and ``everyone.TRAIT`` — an
  offset to every fighter's trait (``middle_3d10:everyone.vigor=4``); both are rules
  the scenario puts in force for everything it measures (:mod:`analysis.rules`).

:func:`apply` returns new scenarios (the inputs are not changed) and raises an
:class:`~engines.errors.InputError` naming what is wrong and where.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from analysis.rule_edits import parse_value
from analysis.rules import is_rule_knob
from engines.errors import InputError

__all__ = ["Edit", "apply", "format_value", "parse", "parse_value", "target_entries"]


@dataclasses.dataclass(frozen=True)
class Edit:
    """``target:knob=value`` (see the module docstring)."""

    target: str
    knob: str
    value: Any

    def __str__(self) -> str:
        return f"{self.target}:{self.knob}={format_value(self.value)}"


def format_value(value) -> str:
    """A knob value as ``--set`` reads it back (``true``, ``none``, ``8``, ``hard``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


def parse(text: str, where: str = "--set") -> Edit:
    """``TARGET:KNOB=VALUE`` as an :class:`Edit` (an InputError naming ``where``)."""
    head, eq, raw = str(text).partition("=")
    target, colon, knob = head.partition(":")
    if not eq or not colon or not target.strip() or not knob.strip() or not raw.strip():
        raise InputError(
            f"{where}: expected TARGET:KNOB=VALUE (e.g. middle_3d10:both.vigor=8 "
            f"or expert_hard_percentile:skill=90), got {text!r}"
        )
    return Edit(target.strip(), knob.strip(), parse_value(raw))


def _variant_fields(system: str, fight: bool) -> set[str]:
    from analysis.combat import fights as reg
    from engines.system import get

    cls = type(reg.combat_variants(system, {})) if fight else get(system).checks.variants
    return {f.name for f in dataclasses.fields(cls)}


def target_entries(sc, target: str):
    """``(kind, index)`` of the fights and checks an edit's target names in ``sc``."""
    from analysis.workflow.guardrails import entry_names

    fights = [i for i, n in enumerate(entry_names(sc.fights, "fight")) if n == target]
    checks = [i for i, n in enumerate(entry_names(sc.checks, "check")) if n == target]
    return [("fight", i) for i in fights] + [("check", i) for i in checks]


def apply(scenarios, edit: Edit, where: str = "--set"):
    """The scenarios with ``edit`` applied (see the module docstring); an InputError when
    the target names nothing, or the knob or value does not fit what it names."""
    from engines.system import registry

    systems = set(registry())
    if is_rule_knob(edit.knob):
        return _edit_rules(scenarios, edit, systems, where)
    out, touched = [], 0
    for sc in scenarios:
        fights, checks = list(sc.fights), list(sc.checks)
        if edit.target in systems:
            chosen = [
                ("fight", i) for i, f in enumerate(fights) if sc.check_system(f) == edit.target
            ] + [("check", i) for i, c in enumerate(checks) if sc.check_system(c) == edit.target]
            system_wide = True
        else:
            chosen = target_entries(sc, edit.target)
            system_wide = False
        for kind, i in chosen:
            if kind == "fight":
                new = _edit_fight(sc, fights[i], edit, system_wide, where)
                if new is not None:
                    fights[i] = new
                    touched += 1
            else:
                new = _edit_check(sc, checks[i], edit, system_wide, where)
                if new is not None:
                    checks[i] = new
                    touched += 1
        out.append(sc.model_copy(update={"fights": fights, "checks": checks}))
    if not touched:
        raise InputError(
            f"{where} {edit}: {edit.target!r} is neither a system with a fight "
            f"or check that has {edit.knob!r} nor a [[fights]] or [[checks]] "
            f"entry of the files"
        )
    return out


def _edit_rules(scenarios, edit: Edit, systems: set, where: str):
    """A rule knob (``SYSTEM:rules.KIND.ENTRY.FIELD``, ``SYSTEM:everyone.TRAIT``): the
    scenarios with the edit added to the rules they put in force (analysis.rules)."""
    from analysis.combat.archetypes import systems as with_tables
    from analysis.rules import RuleSet

    if edit.target not in systems:
        raise InputError(
            f"{where} {edit}: a rule knob's target is a system "
            f"({', '.join(sorted(systems))}), not {edit.target!r}"
        )
    if edit.target not in with_tables():
        raise InputError(f"{where} {edit}: {edit.target} has no rule tables")
    from analysis.combat import fights as reg
    from analysis.rules import using
    from analysis.workflow.guardrails import entry_names

    out = []
    for sc in scenarios:
        sets = sc.rule_sets()
        now = sets.get(edit.target) or RuleSet(edit.target)
        sets[edit.target] = now.with_knob(edit.knob, edit.value, where)
        names = entry_names(sc.fights, "fight")
        with using(sets):  # every fighter of the system still builds under the rules
            for name, f in zip(names, sc.fights, strict=True):
                if sc.check_system(f) != edit.target:
                    continue
                try:
                    reg.fighter(edit.target, f.a)
                    reg.fighter(edit.target, f.b)
                except InputError as exc:
                    raise InputError(f"{where} {edit}: fight {name}: {exc}") from None
        out.append(sc.with_rule_sets(sets))
    return out


def _edit_fight(sc, f, edit: Edit, system_wide: bool, where: str):
    from analysis.combat import fights as reg
    from analysis.workflow.fight_sweep import KNOB_SIDES, apply_knob

    system = sc.check_system(f)
    side, _, name = edit.knob.partition(".")
    if side not in KNOB_SIDES or not name:
        if system_wide:
            return None
        raise InputError(
            f"{where} {edit}: a fight takes a.KEY, b.KEY, both.KEY or "
            f"variant.NAME, not {edit.knob!r}"
        )
    if side == "variant" and name not in _variant_fields(system, True):
        if system_wide:
            return None
        raise InputError(f"{where} {edit}: {system} has no combat variant {name!r}")
    a, b, v = apply_knob(f.a, f.b, dict(f.variants), edit.knob, edit.value)
    try:
        reg.fighter(system, a)
        reg.fighter(system, b)
        reg.combat_variants(system, v)
    except InputError as exc:
        raise InputError(f"{where} {edit}: {exc}") from None
    return f.model_copy(update={"a": a, "b": b, "variants": v})


def _edit_check(sc, c, edit: Edit, system_wide: bool, where: str):
    from analysis.checks.curves import AXES
    from engines.system import get
    from engines.variants import parse_variants

    from .measuring import ladder_axes

    system = sc.check_system(c)
    side, _, name = edit.knob.partition(".")
    if side == "variant":
        if name not in _variant_fields(system, False):
            if system_wide:
                return None
            raise InputError(f"{where} {edit}: {system} has no check variant {name!r}")
        variants = {**c.variants, name: edit.value}
        try:
            parse_variants(get(system).checks.variants, {**sc.check_variants(c), name: edit.value})
        except InputError as exc:
            raise InputError(f"{where} {edit}: {exc}") from None
        return c.model_copy(update={"variants": variants})
    if edit.knob not in AXES.get(system, {}):
        if system_wide:
            return None
        raise InputError(
            f"{where} {edit}: a {system} check takes variant.NAME or an axis "
            f"({', '.join(AXES.get(system, {}))}), not {edit.knob!r}"
        )
    allowed = list(AXES[system][edit.knob])
    if edit.value not in allowed:
        raise InputError(
            f"{where} {edit}: {edit.knob} takes {allowed[0]}–{allowed[-1]}"
            if all(isinstance(x, int) for x in allowed)
            else f"{where} {edit}: {edit.knob} takes {' | '.join(map(str, allowed))}"
        )
    axes = {**c.axes, edit.knob: [edit.value]}
    update: dict = {"axes": axes}
    if c.competence and edit.knob == (ladder_axes(system)[1] or next(iter(AXES[system]))):
        update["competence"] = None  # the axis now holds the value, not the rung's name
    return c.model_copy(update=update)
