"""The base-chain layout of an archetype library (the ``middle_3d10`` and ``percentile``
files).

A data file of this layout has an ``archetypes`` table whose entries may name a ``base``
archetype and override some of its fields, and fighting ``styles`` applied to every rung
of the common competence ladder the file defines (``LEVEL_STYLE``:
``competent_swordsman``): a style replaces gear and tactics and adds its ``adjust`` to
the rung's numbers. :func:`levelled` resolves both into one flat ``{name: fields}``
mapping the system's own loader validates; :func:`builder` is the ``build`` of an
:class:`~engines.archetype_library.ArchetypeHook` over such a file (the archetype asked
for is injected into the parsed file and built by the system's loader, so an override
is checked exactly as the file is).

Errors are :class:`~engines.errors.InputError` naming the file and the key.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import NoReturn

from pydantic import BaseModel, ConfigDict, ValidationError

from engines.archetype_library import CUSTOM, LADDER, check_keys, rewrite
from engines.errors import InputError

__all__ = ["COMPUTED", "Strict", "builder", "fail", "levelled", "table", "validate"]


class Strict(BaseModel):
    """A frozen pydantic model refusing unknown keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def fail(fname: str, key: str, msg: str) -> NoReturn:
    """Raise the InputError ``fname: key: msg``."""
    raise InputError(f"{fname}: {key}: {msg}")


def validate(model, data: dict, fname: str, prefix: str):
    """``data`` validated as ``model``, or the InputError naming ``prefix`` and the key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        fail(fname, f"{prefix}.{loc}" if loc else prefix, err["msg"])


def table(raw: dict, key: str, fname: str) -> dict:
    """The non-empty table ``key`` of the parsed file."""
    value = raw.get(key)
    if not isinstance(value, dict) or not value:
        fail(fname, key, "missing or empty table")
    return value


def _resolve(archetypes: dict, fname: str) -> dict[str, dict]:
    """Merge each archetype with its ``base`` chain (the archetype's own keys win)."""
    out: dict[str, dict] = {}

    def resolve(name: str, seen: tuple[str, ...]) -> dict:
        if name in out:
            return out[name]
        entry = archetypes[name]
        if not isinstance(entry, dict):
            fail(fname, f"archetypes.{name}", "expected a table")
        base = entry.get("base")
        merged: dict = {}
        if base is not None:
            if base not in archetypes:
                fail(
                    fname,
                    f"archetypes.{name}.base",
                    f"unknown archetype {base!r}; known: {', '.join(sorted(archetypes))}",
                )
            if base in seen:
                fail(fname, f"archetypes.{name}.base", f"cycle through {base!r}")
            merged.update(resolve(base, (*seen, name)))
        merged.update({k: v for k, v in entry.items() if k != "base"})
        out[name] = merged
        return merged

    for name in archetypes:
        resolve(name, ())
    return out


def levelled(raw: dict, fname: str, style_model) -> dict[str, dict]:
    """The resolved archetypes, then every style at every ladder rung the file defines
    (``LEVEL_STYLE``): the rung's fields with the style's ``adjust`` added and its other
    keys replacing. (The project's files define all five rungs.)"""
    out = _resolve(table(raw, "archetypes", fname), fname)
    rungs = [r for r in LADDER if r in out]
    styles = raw.get("styles") or {}
    if not isinstance(styles, dict):
        fail(fname, "styles", "expected a table")
    for sname, data in styles.items():
        style = validate(style_model, data, fname, f"styles.{sname}")
        changes = style.model_dump(exclude={"adjust"}, exclude_none=True)
        for rung in rungs:
            base = out[rung]
            fields = {**base, **changes}
            for key, delta in style.adjust.items():
                if not isinstance(base.get(key), int):
                    fail(
                        fname,
                        f"styles.{sname}.adjust.{key}",
                        f"archetypes.{rung}.{key} is not an integer",
                    )
                fields[key] = base[key] + delta
            name = f"{rung}_{sname}"
            if name in out:
                fail(fname, f"styles.{sname}", f"name {name!r} clashes with an archetype")
            out[name] = fields
    return out


#: Fields the loader computes; the rest an override or a full trait mapping may set.
#: (``plan`` and ``mov``: DX14, a fight that starts apart; ``range``: BT-g2, computed.)
COMPUTED = {"name", "dice", "ranged", "range", "weapon_data", "melee_data", "db"}


def builder(system: str, model: type, load: Callable[[str, dict], dict]):
    """The hook's ``build`` for a file of this layout: a library entry (its fields but
    the :data:`COMPUTED` ones) with overrides, or a full trait mapping, added to the
    file's ``archetypes`` and built by the system's ``load``; the engine combatant of
    the model's ``combatant()``."""

    def build(
        fname: str,
        raw: dict,
        lib: dict,
        name: str | None,
        over: dict,
        full: dict | None,
        label: str,
    ):
        allowed = set(model.model_fields) - COMPUTED
        check_keys(system, over, allowed, label)
        if full is not None:
            check_keys(system, full, allowed, label)
            entry = {**full, **over}
        else:
            entry = {**lib[name].model_dump(exclude=COMPUTED, exclude_none=True), **over}
        data = copy.deepcopy(raw)
        data["archetypes"] = {**(raw.get("archetypes") or {}), CUSTOM: entry}
        try:
            built = load(fname, data)[CUSTOM]
        except InputError as exc:
            raise rewrite(exc, fname, system, label) from None
        return built.model_copy(update={"name": name or label}).combatant()

    return build
