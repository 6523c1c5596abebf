"""The levels × styles layout of an archetype library (the two d10-pool systems' files).

A data file of this layout has gear tables, ``levels`` (one per rung of the common
competence ladder, :data:`~engines.archetype_library.LADDER`), fighting ``styles``, the
``level_style`` of the plain rung archetypes and single ``[archetypes.NAME]`` entries (a
level, a style and overrides). :func:`grid` builds every rung (in the file's
``level_style``), every style at every rung (``LEVEL_STYLE``: ``competent_swordsman``)
and the single archetypes through the system's own ``build`` function; :func:`builder`
is the ``build`` of an :class:`~engines.archetype_library.ArchetypeHook` over such a
file: it injects the one archetype asked for into the parsed file and lets the system's
loader validate and build it, so an override is checked exactly as the file is.

Errors are :class:`~engines.errors.InputError` naming the file and the key, e.g.
``archetypes.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ...``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engines.archetype_library import CUSTOM, LADDER, check_keys, rewrite
from engines.errors import InputError

__all__ = ["Model", "builder", "checked", "entry_of", "grid", "lookup", "parse"]


class Model(BaseModel):
    """A strict, frozen pydantic model refusing unknown keys (every table of the file)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _format_validation(file: str, exc: ValidationError, prefix: str = "") -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    where = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
    more = f" (and {len(exc.errors()) - 1} more problems)" if len(exc.errors()) > 1 else ""
    got = (
        f" (got {err['input']!r})"
        if err["type"] != "missing" and not isinstance(err.get("input"), dict)
        else ""
    )
    return f"{file}: {where}: {err['msg']}{got}{more}"


def lookup(file: str, where: str, kind: str, name: str, table: dict) -> Any:
    """``table[name]``, or an InputError naming the place and the known names."""
    if name not in table:
        raise InputError(
            f"{file}: {where}: unknown {kind} {name!r}; known: " + ", ".join(sorted(table))
        )
    return table[name]


def _check_ladder(file: str, levels: dict) -> None:
    for name in levels:
        if name not in LADDER:
            raise InputError(
                f"{file}: levels.{name}: not a rung of the competence ladder; "
                "known: " + ", ".join(LADDER)
            )
    for name in LADDER:
        if name not in levels:
            raise InputError(f"{file}: levels.{name}: missing (every ladder rung needs one)")


def parse(file: str, model: type, data: dict):
    """``data`` validated as ``model`` (a file with a ``levels`` ladder), or InputError."""
    try:
        spec = model.model_validate(data)
    except ValidationError as exc:
        raise InputError(_format_validation(file, exc)) from None
    _check_ladder(file, spec.levels)
    return spec


def checked(file: str, where: str, c):
    """The engine's own check of combatant ``c``, its message prefixed with the place."""
    try:
        c.check()
    except InputError as exc:
        raise InputError(f"{file}: {where}: {exc}") from None
    return c


def grid(file: str, spec, build: Callable[[str, str, Any, Any, dict], Any]) -> dict:
    """The ladder rungs (each in the file's ``level_style``), every style at every level
    (``LEVEL_STYLE``), then the single archetypes (with their overrides)."""
    out = {}
    plain = lookup(file, "level_style", "style", spec.level_style, spec.styles)
    for level_name, level in spec.levels.items():
        out[level_name] = build(level_name, f"levels.{level_name}", level, plain, {})
    for style_name, style in spec.styles.items():
        for level_name, level in spec.levels.items():
            name = f"{level_name}_{style_name}"
            out[name] = build(name, f"styles.{style_name}", level, style, {})
    for name, arch in spec.archetypes.items():
        where = f"archetypes.{name}"
        level = lookup(file, f"{where}.level", "level", arch.level, spec.levels)
        style = lookup(file, f"{where}.style", "style", arch.style, spec.styles)
        overrides = arch.model_dump(exclude={"level", "style"}, exclude_none=True)
        if name in out:
            raise InputError(
                f"{file}: {where}: the name clashes with a LEVEL_STYLE or ladder archetype"
            )
        out[name] = build(name, where, level, style, overrides)
    return out


def entry_of(raw: dict, name: str) -> dict | None:
    """The ``{level, style, overrides...}`` entry of library archetype ``name`` in the
    parsed file ``raw`` (None when the name is none of its archetypes)."""
    arch = raw.get("archetypes") or {}
    if name in arch:
        return dict(arch[name])
    levels, styles = raw.get("levels") or {}, raw.get("styles") or {}
    if name in levels:
        return {"level": name, "style": raw.get("level_style")}
    for lv in levels:
        for s in styles:
            if f"{lv}_{s}" == name:
                return {"level": lv, "style": s}
    return None


def builder(
    system: str,
    load: Callable[[str, dict], dict],
    archetype: type,
    level_model: type,
    style_model: type,
):
    """The hook's ``build`` for a file of this layout: one archetype (a library name with
    overrides, or a full trait mapping) injected into the parsed file as a single
    ``[archetypes]`` entry and built by the system's ``load``."""

    def build(
        fname: str,
        raw: dict,
        lib: dict,
        name: str | None,
        over: dict,
        full: dict | None,
        label: str,
    ):
        allowed = set(archetype.model_fields) - {"level", "style"}
        check_keys(system, over, allowed, label)
        if full is not None:
            check_keys(system, full, allowed, label)
            need = [k for k, f in level_model.model_fields.items() if f.is_required()]
            missing = [k for k in [*need, "weapon"] if k not in full]
            if missing:
                raise InputError(
                    f"{system}: {label}: missing {', '.join(missing)} (a full "
                    "trait mapping needs every trait and a weapon)"
                )
            levels, styles = raw.get("levels") or {}, raw.get("styles") or {}
            if not levels or not styles:
                raise InputError(f"{fname}: levels and styles are needed")
            defaults = {
                k: f.default
                for m in (level_model, style_model)
                for k, f in m.model_fields.items()
                if not f.is_required()
            }
            entry = {
                "level": next(iter(levels)),
                "style": next(iter(styles)),
                **defaults,
                **full,
                **over,
            }
        else:
            entry = {**(entry_of(raw, name) or {}), **over}
        data = copy.deepcopy(raw)
        data["archetypes"] = {CUSTOM: entry}
        try:
            built = load(fname, data)[CUSTOM]
        except InputError as exc:
            raise rewrite(exc, fname, system, label) from None
        return dataclasses.replace(built, name=name or label)

    return build
