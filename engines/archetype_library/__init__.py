"""The archetype-library hook: what a system gives the one archetype loader
(:mod:`analysis.combat.archetypes`).

A system with combat names its hook in the ``archetypes`` field of the ``Combat`` group of its
:class:`engines.system.System` (``"module:ATTRIBUTE"``, loaded on first use by the
analysis layer only; a built-in's is ``engines.systems.<id>.archetypes:HOOK``, a
plug-in's its own module's): an :class:`ArchetypeHook` carrying the data file (the
built-ins' ``engines/systems/<id>/archetypes.toml``), the pydantic validation of that
file (``load``), the build of one archetype with overrides or from a full trait mapping
(``build``), the system's ``tactic`` field and values, and how it treats armour.
Everything else — reading the file, names, gear checks, matchup files, error wording —
is shared. The helpers here (:data:`LADDER`, :func:`check_keys`, :func:`check_gear`,
:func:`validation`, :func:`rewrite`) are what hooks share; the two layouts that two
built-ins share each live beside it (:mod:`engines.archetype_library.grid`: levels ×
styles; :mod:`engines.archetype_library.chain`: archetypes with a ``base`` and
adjusting styles).

This package and the systems' ``archetypes`` modules are the only engine modules that
import pydantic (data validation); nothing here reads a file or imports numpy.

The naming scheme every library follows: the five rungs of the common competence ladder
(:data:`LADDER`) are archetypes of their own, and every fighting style at every rung is
an archetype named ``LEVEL_STYLE`` (``competent_swordsman``, ``expert_knight``). An
unknown name in the old ``STYLE_LEVEL`` order (or a bare style of ``middle_3d10`` /
``percentile``) fails with one line naming the new one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from engines.errors import InputError

__all__ = [
    "CUSTOM",
    "LADDER",
    "ArchetypeHook",
    "check_gear",
    "check_keys",
    "ranged_flag",
    "renamed",
    "rewrite",
    "unknown",
    "validation",
    "weapon_attribute",
]

#: The common competence ladder: every library has these five archetypes.
LADDER = ("untrained", "novice", "competent", "expert", "master")
#: The name a custom archetype gets inside the data file while its system's own loader
#: validates it.
CUSTOM = "__custom__"


def _identity(model: Any) -> Any:
    return model


def weapon_attribute(model: Any) -> str | None:
    """The weapon name of a library entry whose ``weapon`` is a name or an object with
    a ``name`` (None when it has none)."""
    w = getattr(model, "weapon", None)
    return None if w is None else str(getattr(w, "name", w))


def ranged_flag(raw: dict, name: str) -> bool:
    """Whether weapon ``name`` of the parsed data file is a ranged weapon: its entry's
    ``ranged`` flag (absent: a melee weapon)."""
    entry = (raw.get("weapons") or {}).get(name)
    return isinstance(entry, Mapping) and entry.get("ranged", False) is True


@dataclass(frozen=True)
class ArchetypeHook:
    """The per-system parts of the archetype loader.

    ``load(file_name, raw)`` validates the parsed data file and returns ``{name: model}``
    (a pydantic model or the engine combatant itself); ``to_engine(model)`` gives the
    engine combatant. ``build(file_name, raw, lib, name, over, full, label)`` builds one
    engine combatant: library archetype ``name`` (known to be in ``lib``) with the
    overrides ``over``, or, when ``name`` is None, the full trait mapping ``full``.
    ``tactic_field`` is the field the shared ``tactic`` override sets and
    ``tactic_values`` maps each override value to that field's value. ``armour`` is
    ``"names"`` (a table of the data file), ``"points"`` (the numbers
    ``armour_points``) or ``"none"`` (no armour rules; ``no_armour_hint`` says what to
    do instead). ``weapon_rule`` / ``armour_rule``: the rule a gear row follows when its
    note cites none. ``weapon_of(model)``: the weapon of a library entry by name (what
    tables show beside an archetype: ``competent (weapon=bat)``); the default reads its
    ``weapon`` field. ``weapon_ranged(raw, name)``: whether a weapon of the parsed data
    file is a ranged weapon (the audit judges a weapon only against weapons of its own
    kind); the default reads the weapon's ``ranged`` flag (:func:`ranged_flag`).
    """

    system: str
    load: Callable[[str, dict], dict[str, Any]]
    build: Callable[..., Any]
    tactic_values: Callable[[], Mapping[str, Any]]
    tactic_field: str = "tactic"
    to_engine: Callable[[Any], Any] = _identity
    armour: str = "names"
    armour_points: tuple[int, ...] = ()
    no_armour_hint: str = ""
    weapon_rule: str = ""
    armour_rule: str = ""
    data_file: Path | None = field(default=None)
    weapon_of: Callable[[Any], str | None] = weapon_attribute
    weapon_ranged: Callable[[dict, str], bool] = ranged_flag
    tables: tuple[tuple[str, str, str], ...] = ()

    def rule_tables(self, raw: Mapping) -> tuple[tuple[str, str, str], ...]:
        """The rule tables of the data file (``analysis.rules``): ``(kind, table, rule)``
        — the word ``rpg-balance gear`` and the rules files use, the data file's table,
        the rule id a row follows when its note cites none. :attr:`tables` when the hook
        gives them, else ``weapon`` (``[weapons]``, :attr:`weapon_rule`) and ``armour``
        (``[armour]``, :attr:`armour_rule`) as the file has them."""
        if self.tables:
            return self.tables
        return tuple(
            t
            for t in (
                ("weapon", "weapons", self.weapon_rule),
                ("armour", "armour", self.armour_rule),
            )
            if t[1] in raw
        )

    def path(self, path: str | Path | None = None) -> Path:
        """The data file: ``path``, else the hook's :attr:`data_file`."""
        if path is not None:
            return Path(path)
        if self.data_file is None:
            raise InputError(
                f"{self.system}: the archetype hook names no data_file; "
                "give the library file's path"
            )
        return self.data_file


def renamed(name: Any, known) -> str | None:
    """The new name of an old archetype name, when the library has it: ``STYLE_LEVEL``
    → ``LEVEL_STYLE``; a bare style (the old competent-level style archetypes of
    ``middle_3d10`` and ``percentile``) → ``competent_STYLE``."""
    if not isinstance(name, str):
        return None
    known = set(known)
    for level in LADDER:
        if name.endswith(f"_{level}"):
            new = f"{level}_{name[: -len(level) - 1]}"
            if new in known:
                return new
    new = f"competent_{name}"
    return new if new in known else None


def unknown(system: str, name: Any, known) -> InputError:
    """The error for an unknown archetype: one line, the new name of an old one, else the
    known names."""
    new = renamed(name, known)
    if new is not None:
        return InputError(f"{system}: unknown archetype {name!r}; did you mean {new}?")
    return InputError(f"{system}: unknown archetype {name!r}; known: " + ", ".join(sorted(known)))


def check_keys(system: str, over: Mapping[str, Any], allowed: set[str], label: str) -> None:
    """An override or trait key of ``over`` outside ``allowed`` (and the shared ``tactic``)
    is an :class:`InputError` naming ``label`` and the key."""
    bad = sorted(set(over) - allowed)
    if bad:
        raise InputError(
            f"{system}: {label}.{bad[0]}: unknown key; known: "
            + ", ".join(sorted(allowed | {"tactic"}))
        )


def check_gear(system: str, over: Mapping[str, Any], label: str, weapons, armours) -> None:
    """Weapon and armour names of ``over`` against the data file's tables."""
    for key, known in (("weapon", weapons), ("melee_weapon", weapons), ("armour", armours)):
        if key in over and over[key] is not None and known and over[key] not in known:
            kind = "weapon" if key != "armour" else "armour"
            raise InputError(
                f"{system}: {label}.{key}: unknown {kind} {over[key]!r}; known: "
                + ", ".join(str(k) for k in known)
            )


def rewrite(exc: InputError, fname: str, system: str, label: str) -> InputError:
    """A data-file error about the injected custom archetype, told about ``label``."""
    msg = str(exc)
    for pre in (f"{fname}: archetypes.{CUSTOM}", f"{fname}: styles.{CUSTOM}"):
        msg = msg.replace(pre, f"{system}: {label}")
    return InputError(msg)


def validation(fname: str, exc: ValidationError) -> str:
    """One line for a pydantic error: ``file: loc: message (got ...)``."""
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    got = (
        ""
        if err["type"] == "missing" or isinstance(err.get("input"), dict | list)
        else f" (got {err.get('input')!r})"
    )
    return f"{fname}: {loc}: {msg}{got}"
