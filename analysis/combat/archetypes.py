"""The one archetype loader over the combat archetype libraries of every system.

Each system with combat names its archetype-library hook in its
:class:`engines.system.System` (``Combat.archetypes``: an
:class:`~engines.archetype_library.ArchetypeHook` holding the data file — a built-in's
``engines/systems/<id>/archetypes.toml`` — its pydantic models and how a rung and a style
become an engine combatant). This module is the same for every system:

- :func:`library` — ``{name: model}`` as the system's hook loads it; :func:`combatants`
  — ``{name: engine combatant}``;
- :func:`combatant` — the engine's own combatant object, from an archetype name (with
  gear and tactic overrides such as ``weapon="pistol"``) or from a full trait mapping,
  validated by the same pydantic models as the data file;
- :func:`load_matchup_file` — a TOML file describing a fight (system, sides, overrides,
  variants, round cap), validated with errors naming the file and the key.

Names: every library has the five ladder rungs ``untrained, novice, competent, expert,
master`` as archetypes, and every style at every rung as ``LEVEL_STYLE``
(``competent_swordsman``); an old ``STYLE_LEVEL`` name fails with one line naming the
new one.

``tactic`` is the one override name for each system's fixed fighting choice: the A6 action
pair (``dice_pool_7``), the C13 split of the pool (``dice_pool_6``: ``focus`` or
``split``), the B4 drama-point timing (``middle_3d10``), the DX2 defence (``percentile``)
and the E16 maneuver (``d20_degrees``). Every error is an
:class:`~engines.errors.InputError` such as ``dice_pool_7: unknown archetype 'expret';
known: ...``.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.limits import MAX_ROUND_CAP
from analysis.rules_in_force import active as active_rules
from analysis.rules_in_force import apply_everyone
from analysis.toml_input import file_stamp, read_toml, read_toml_cached
from engines.archetype_library import ArchetypeHook, check_gear, unknown
from engines.archetype_library import validation as _validation
from engines.constants import ROUND_CAP, RULE_DATA
from engines.errors import InputError
from engines.system import Combat, get, registry
from engines.variants import parse_variants

__all__ = [
    "WEAPON_KINDS",
    "Matchup",
    "MatchupEntry",
    "MatchupFile",
    "armours",
    "combatant",
    "combatants",
    "describe",
    "engine",
    "gear",
    "hook",
    "library",
    "load_matchup_file",
    "names",
    "read_library",
    "split_variants",
    "systems",
    "tactics",
    "to_engine",
    "variants",
    "weapon_kinds",
    "weapon_name",
    "weapons",
]


def systems() -> list[str]:
    """Ids of every installed system with an archetype library."""
    return [
        sid
        for sid, s in registry().items()
        if s.combat is not None and s.combat.archetypes is not None
    ]


def _system(system: str) -> str:
    if get(system).require("combat").archetypes is None:
        raise InputError(f"{system}: this system declares no combat archetypes")
    return system


def _combat(system: str) -> Combat:
    """The system's combat hook group (one line, exit 2, for a system without one)."""
    combat = get(_system(system)).combat
    if combat is None:
        raise InputError(str(get(_system(system)).lacks("combat")))
    return combat


def hook(system: str) -> ArchetypeHook:
    """The archetype-library hook the system's ``Combat.archetypes`` names."""
    where = _combat(system).archetypes
    module, _, attr = str(where).partition(":")
    try:
        found = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise InputError(f"{system}: Combat.archetypes {where!r} cannot be loaded: {exc}") from None
    if not isinstance(found, ArchetypeHook):
        raise InputError(f"{system}: Combat.archetypes {where!r} is not an ArchetypeHook")
    return found


def engine(system: str):
    """The combat engine module of ``system`` (the module its ``Combat`` group names)."""
    return _combat(system).engine()


def variants(system: str, given=None):
    """The engine's combat ``Variants`` from a mapping or ``NAME=VALUE`` strings."""
    eng = engine(system)
    if isinstance(given, eng.Variants):
        return given
    return parse_variants(eng.Variants, given or {})


def split_variants(system: str, given) -> tuple[list[str], list[str]]:
    """``NAME=VALUE`` strings of ``system`` split into those of its single checks and
    those of its combat engine.

    A variant of the check system that the combat engine also has (the two d10-pool
    engines roll their attacks with the check system's dice, so their combat
    ``Variants`` inherit every check variant) lands in both lists; a combat-only
    variant only in the second. A name neither knows is an :class:`InputError` with the
    closest known names."""
    import difflib

    check_names = {f.name for f in dataclasses.fields(get(system).checks.variants)}
    combat_names = {f.name for f in dataclasses.fields(engine(system).Variants)}
    checks, combat = [], []
    for text in given or ():
        name, eq, _ = str(text).partition("=")
        name = name.strip()
        if not eq or not name:
            raise InputError(f"variant {text!r}: expected NAME=VALUE")
        if name not in check_names | combat_names:
            known = sorted(check_names | combat_names)
            close = difflib.get_close_matches(name, known, n=3)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise InputError(
                f"unknown variant {name!r} for {system}{hint}; known: " + ", ".join(known)
            )
        if name in check_names:
            checks.append(text)
        if name in combat_names:
            combat.append(text)
    return checks, combat


def read_library(system: str, path, *, rules: bool = True) -> tuple[str, dict]:
    """``(file name, parsed data file)`` of the system's library: a copy of the parse
    kept while the file stays the same (:func:`analysis.toml_input.read_toml_cached`),
    with the rule edits in force made (:func:`analysis.rules.active`; ``rules=False``:
    the file as it is)."""
    p = hook(system).path(path)
    raw = read_toml_cached(p, "combat data file")
    rs = active_rules(system) if rules else None
    if rs is None or not rs.changes:
        return p.name, raw
    key = (file_stamp(p), rs.key)
    found = _EDITED.get(key)
    if found is None:
        if len(_EDITED) >= 64:
            _EDITED.clear()
        found = _EDITED[key] = rs.apply(raw)
    return p.name, found


#: data files with rule edits made, by (file stamp, rules key)
_EDITED: dict[tuple, dict] = {}


def _stamp(system: str, path) -> tuple | None:
    """The data file's :func:`~analysis.toml_input.file_stamp` and the key of the rules
    in force (None when the file is unreadable)."""
    stamp = file_stamp(hook(system).path(path))
    rs = active_rules(system)
    return stamp if stamp is None or rs is None else (stamp, rs.key)


@lru_cache(maxsize=32)
def _library_cached(system: str, path: str | None, stamp: tuple | None) -> dict:
    fname, raw = read_library(system, path)
    return hook(system).load(fname, raw)


def library(system: str, path: str | Path | None = None) -> dict[str, Any]:
    """The archetype library of ``system``: ``{name: model}`` from its hook (validated).

    Pool systems give engine combatants directly; ``middle_3d10`` / ``percentile`` give
    pydantic models (``.combatant()``), ``d20_degrees`` pydantic models (``.to_engine()``);
    :func:`to_engine` turns any of them into the engine combatant. The library is built
    once per state of the data file (an edited file is loaded again).
    """
    system = _system(system)
    return dict(_library_cached(system, None if path is None else str(path), _stamp(system, path)))


def to_engine(system: str, model: Any):
    """The engine combatant of a library entry."""
    return hook(system).to_engine(model)


def combatants(system: str, path: str | Path | None = None) -> dict[str, Any]:
    """The archetype library of ``system`` as engine combatants: ``{name: combatant}``
    (:func:`library` through :func:`to_engine`; ``path``: another data file).

    Examples
    --------
    >>> combatants("dice_pool_7")["competent_swordsman"].defense
    3
    """
    h = hook(_system(system))
    return {name: h.to_engine(model) for name, model in library(system, path).items()}


def names(system: str, path=None) -> list[str]:
    return sorted(library(system, path))


def weapons(system: str, path=None) -> list[str]:
    """Weapon names of the system's data file."""
    _, raw = read_library(_system(system), path)
    table = raw.get("weapons", {})
    return list(table) if isinstance(table, dict) else []


#: the kinds of weapon (:func:`weapon_kinds`)
WEAPON_KINDS = ("melee", "ranged")


def weapon_kinds(system: str, path=None) -> dict[str, str]:
    """``{weapon: "melee" | "ranged"}`` for the weapons of the system's data file, in
    its order, as the system's hook reads the file (``ArchetypeHook.weapon_ranged``: a
    weapon's ``ranged`` flag, or what the engine's ranged attack is told by; docs/RULES.md,
    "Melee and ranged weapons").

    Examples
    --------
    >>> kinds = weapon_kinds("percentile")
    >>> kinds["knife"], kinds["handgun"]
    ('melee', 'ranged')
    """
    h = hook(_system(system))
    _, raw = read_library(system, path)
    return {
        name: "ranged" if h.weapon_ranged(raw, name) else "melee" for name in weapons(system, path)
    }


def armours(system: str, path=None) -> list:
    """Armour choices: names (``dice_pool_7``, ``d20_degrees``) or points (``percentile``);
    ``dice_pool_6`` and ``middle_3d10`` have no armour rules (empty)."""
    h = hook(system)
    if h.armour == "points":
        return list(h.armour_points)
    if h.armour == "none":
        return []
    _, raw = read_library(system, path)
    return list(raw.get("armour", {}))


def tactics(system: str) -> list:
    """The values of the ``tactic`` override."""
    return list(hook(system).tactic_values())


def _translate(system: str, over: Mapping[str, Any], label: str) -> dict:
    """Map the shared override names (``tactic``, ``armour``) to the system's fields."""
    h = hook(system)
    values = h.tactic_values()
    out = dict(over)

    def bad(value):
        return InputError(
            f"{system}: {label}.tactic: unknown tactic {value!r}; known: "
            + ", ".join(map(str, values))
        )

    if "tactic" in out:
        value = out.pop("tactic")
        if value not in values:
            raise bad(value)
        out[h.tactic_field] = values[value]
    elif h.tactic_field in out and out[h.tactic_field] not in list(values.values()):
        raise bad(out[h.tactic_field])
    if "armour" in out and h.armour == "none":
        raise InputError(
            f"{system}: {label}.armour: this system has no armour rules" + h.no_armour_hint
        )
    return out


def _check_gear(system: str, over: Mapping[str, Any], label: str, path) -> None:
    arm = [] if hook(system).armour == "points" else armours(system, path)
    check_gear(system, over, label, weapons(system, path), arm)


#: built combatants by :func:`_built_key`; only frozen dataclasses are kept (shared safely)
_BUILT: dict[tuple, Any] = {}
_BUILT_MAX = 8192


def _value_key(value) -> tuple:
    """A hashable key of a spec value, in order, with each value's type (so ``1``,
    ``1.0`` and ``True``, equal to Python, stay apart); TypeError when unhashable."""
    if isinstance(value, Mapping):
        return ("mapping", tuple((_value_key(k), _value_key(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_value_key(v) for v in value))
    hash(value)
    return (type(value), value)


def _built_key(system: str, spec, overrides, path, label) -> tuple | None:
    """The key of one :func:`combatant` call: the system, its data file's stamp (an
    edited file builds again), the spec, the overrides and the label as given; None when
    the file cannot be read or a value is unhashable (then nothing is kept)."""
    stamp = _stamp(system, path)
    if stamp is None:
        return None
    try:
        return (system, stamp, _value_key(spec), _value_key(overrides), label)
    except TypeError:
        return None


def combatant(
    system: str,
    spec: str | Mapping[str, Any],
    overrides: Mapping | None = None,
    *,
    path: str | Path | None = None,
    label: str | None = None,
):
    """The engine combatant of ``system`` for an archetype name or a trait mapping.

    Parameters
    ----------
    spec
        An archetype name of the library, or a mapping: ``{"archetype": NAME, **overrides}``
        or a full set of traits (every field the system's data file gives an archetype,
        weapon and armour by name), validated by the same pydantic models.
    overrides
        Gear and tactic changes, e.g. ``{"weapon": "pistol", "armour": "light",
        "tactic": "attack_dodge"}``, or any trait of the archetype.
    path
        Another data file for the system (default: its hook's ``data_file``, a built-in's
        ``engines/systems/<system>/archetypes.toml``).

    Examples
    --------
    >>> c = combatant("dice_pool_7", "competent_swordsman", {"weapon": "heavy_melee"})
    >>> c.weapon.name, c.defense
    ('heavy_melee', 2)

    A combatant built once is kept (per state of the data file) and the same object is
    returned for the same arguments: engine combatants are frozen dataclasses.
    """
    _system(system)
    key = _built_key(system, spec, overrides, path, label)
    found = None if key is None else _BUILT.get(key)
    if found is not None:
        return found
    c = _build(system, spec, overrides, path, label)
    if key is not None and dataclasses.is_dataclass(c) and type(c).__dataclass_params__.frozen:  # type: ignore[union-attr]
        if len(_BUILT) >= _BUILT_MAX:
            _BUILT.clear()
        _BUILT[key] = c
    return c


def _build(system: str, spec, overrides, path, label):
    """:func:`combatant` without the memo."""
    over = dict(overrides or {})
    full = None
    name: str | None
    if isinstance(spec, Mapping):
        spec = dict(spec)
        given_name = spec.pop("name", None)
        label = label or str(given_name or "custom")
        if "archetype" in spec:
            name = spec.pop("archetype")
            over = {**spec, **over}
        else:
            name, full = None, _translate(system, spec, label)
    elif isinstance(spec, str):
        name = spec
        label = label or spec
    else:
        raise InputError(
            f"{system}: an archetype is a name or a table of traits, got {type(spec).__name__}"
        )
    if name is not None and not isinstance(name, str):
        raise InputError(f"{system}: {label}.archetype: expected a name, got {name!r}")
    over = _translate(system, over, label)
    _check_gear(system, over, label, path)
    lib = library(system, path)
    if name is not None and name not in lib:
        raise unknown(system, name, lib)
    fname, raw = read_library(system, path)
    target = full if full is not None else over
    before = dict(target)
    offsets = apply_everyone(
        system,
        lambda t: (
            _trait_of(full, t, system, label)
            if full is not None
            else over[t]
            if t in over
            else _trait_of(lib[str(name)], t, system, label)
        ),
    )
    target.update(offsets)
    try:
        return hook(system).build(fname, raw, lib, name, over, full, label)
    except InputError as exc:
        if not offsets:
            raise
        who = name or label
        moved = ", ".join(
            f"{t} {before.get(t, v - _offset(system, t))} → {v}" for t, v in offsets.items()
        )
        raise InputError(
            f"{system}: {who}: the everyone offsets in force take its {moved}, "
            f"which the data refuse: {exc}"
        ) from None


def _offset(system: str, trait: str) -> int:
    rs = active_rules(system)
    return dict(rs.everyone).get(trait, 0) if rs else 0


def _trait_of(model, trait: str, system: str, label: str) -> int:
    """A fighter's own value of ``trait`` (a library entry, its stat block, or a trait
    mapping), for the ``everyone`` offsets (:mod:`analysis.rules`)."""
    for holder in (model, getattr(model, "stats", None)):
        if isinstance(holder, Mapping) and trait in holder:
            return holder[trait]
        if holder is not None and not isinstance(holder, Mapping) and hasattr(holder, trait):
            return getattr(holder, trait)
    raise InputError(f"{system}: {label}: everyone.{trait}: this fighter has no {trait}")


def weapon_name(
    system: str, spec: str | Mapping[str, Any], overrides: Mapping | None = None
) -> str | None:
    """The weapon, by name, that an archetype fights with: the ``weapon`` of the
    overrides or of the spec mapping, else the library entry's (its hook's
    ``weapon_of``); None for a name the library does not have.

    Examples
    --------
    >>> weapon_name("middle_3d10", "competent"), weapon_name("d20_degrees", "competent",
    ...                                                      {"weapon": "rifle"})
    ('baton', 'rifle')
    """
    for source in (overrides or {}, spec if isinstance(spec, Mapping) else {}):
        if source.get("weapon") is not None:
            return str(source["weapon"])
    name = spec.get("archetype") if isinstance(spec, Mapping) else spec
    model = library(system).get(name) if isinstance(name, str) else None
    return None if model is None else hook(system).weapon_of(model)


def describe(system: str, path=None) -> list[dict]:
    """One row per archetype: its engine combatant's plain fields (gear by name); the
    fields holding rule data (``engines.constants.RULE_DATA``: ``rpg-balance rules``
    lists them) are left out."""
    rows = []
    for name, model in sorted(library(system, path).items()):
        c = to_engine(system, model)
        row = {"system": system, "archetype": name}
        for f in dataclasses.fields(c):
            v = getattr(c, f.name)
            if f.name == "name" or RULE_DATA in f.metadata:
                continue
            if dataclasses.is_dataclass(v):
                v = getattr(v, "name", str(v))
            elif isinstance(v, tuple):
                v = str(v)
            row[f.name] = v
        rows.append(row)
    return rows


_RULE_ID = re.compile(r"\b(?:DX|[A-E]T?)(?:-g|-ext)?\d*\b(?=[\s,;:.)]|$)")
_DOC_KEYS = ("note", "source", "assumption")


def _rule_ids(*texts) -> str:
    """The rule ids (A11, DX7, E12, B-g3, AT3, AT-g1 ...) cited in the data file's notes."""
    found: list[str] = []
    for text in texts:
        if isinstance(text, str):
            found.extend(
                m for m in _RULE_ID.findall(text) if any(ch.isdigit() for ch in m) or "-" in m
            )
    return ", ".join(dict.fromkeys(found))


def gear(system: str, path=None) -> list[dict]:
    """One row per weapon and armour of the system's data file: ``kind``, ``name``, its
    stats (``key=value``, as the file gives them), the note or source the file gives and
    the rule ids that note cites (else the hook's ``weapon_rule`` / ``armour_rule``:
    A11, B8, C11, DX3, E12 for weapons; A13, DX11, E12 for armour). ``middle_3d10``
    weapons show their category's dice; ``percentile`` armour is a number of points
    (DX11); ``dice_pool_6`` and ``middle_3d10`` have no armour rules."""
    system = _system(system)
    h = hook(system)
    _, raw = read_library(system, path)
    rows = []
    default_rule = {"weapon": h.weapon_rule, "armour": h.armour_rule}

    def add(kind: str, name: str, entry) -> None:
        entry = dict(entry) if isinstance(entry, Mapping) else {"value": entry}
        docs = [entry.pop(k) for k in _DOC_KEYS if k in entry]
        notes = [d for d in docs if isinstance(d, str)]
        if any(d is True for d in docs):
            notes.append("assumption")
        rules = _rule_ids(*notes) or default_rule[kind]
        rows.append(
            {
                "system": system,
                "kind": kind,
                "name": name,
                "stats": "; ".join(f"{k}={v}" for k, v in entry.items()),
                "note": "; ".join(notes),
                "rules": rules,
            }
        )

    categories = raw.get("categories", {})
    for name, entry in raw.get("weapons", {}).items():
        if isinstance(entry, str) and entry in categories:
            entry = {"category": entry, **categories[entry]}
        add("weapon", name, entry)
    if h.armour == "points":
        for points in h.armour_points:
            add("armour", str(points), {"points": points, "note": "DX11: armour points"})
    else:
        for name, entry in raw.get("armour", {}).items():
            add("armour", name, entry)
    return rows


# ---------------------------------------------------------------------------------------
# matchup files


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class MatchupEntry(BaseModel):
    """One line of a side: an archetype (or full traits), how many, and overrides."""

    model_config = ConfigDict(extra="allow")

    archetype: str | None = None
    traits: dict[str, Any] | None = None
    count: int = Field(1, ge=1, le=20)
    name: str | None = None


class MatchupFile(_Strict):
    system: str
    title: str = ""
    round_cap: int = Field(ROUND_CAP, ge=1, le=MAX_ROUND_CAP)
    trials: int = Field(20_000, ge=1, le=100_000_000)
    seed: int | None = Field(None, ge=0)
    method: Literal["exact", "mc", "both"] = "mc"
    variants: dict[str, str | int | bool] = {}
    side0: list[MatchupEntry] = Field(min_length=1)
    side1: list[MatchupEntry] = Field(min_length=1)


@dataclasses.dataclass
class Matchup:
    """A validated fight: engine combatants of each side and the run settings."""

    system: str
    title: str
    sides: tuple[list, list]
    variants: Any
    round_cap: int
    trials: int
    seed: int | None
    method: str
    source: str = ""
    #: Each combatant as the file gives it, for labels: ``{"archetype": NAME, **overrides}``
    #: or, for full traits, ``{"name": NAME, "weapon": W, **overrides}``.
    specs: tuple[list, list] = ([], [])
    #: The variants the file sets (by name; ``variants`` holds their values).
    variant_names: tuple[str, ...] = ()

    @property
    def sizes(self) -> tuple[int, int]:
        return len(self.sides[0]), len(self.sides[1])


def load_matchup_file(path: str | Path) -> Matchup:
    """Read and validate a matchup TOML file (see ``scenarios/combat/*.toml``).

    Keys: ``system``, optional ``title``, ``round_cap``, ``trials``, ``seed``, ``method``
    (``exact`` needs one combatant a side), a ``[variants]`` table, and arrays of tables
    ``[[side0]]`` / ``[[side1]]`` whose entries name an ``archetype`` (or give full
    ``traits``), an optional ``count`` and ``name``, and any overrides (``weapon``,
    ``armour``, ``tactic``, traits). Errors name the file and the key, e.g.
    ``duel.toml: side1[0].weapon: unknown weapon 'lazer'; known: ...``.
    """
    p = Path(path)
    fname = p.name
    raw = read_toml(p, "matchup file")
    try:
        spec = MatchupFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(_validation(fname, exc)) from None
    system = spec.system
    try:
        _system(system)
    except InputError as exc:
        raise InputError(f"{fname}: system: {exc}") from None
    try:
        v = variants(system, spec.variants)
    except InputError as exc:
        raise InputError(f"{fname}: variants: {exc}") from None
    sides: tuple[list, list] = ([], [])
    specs: tuple[list, list] = ([], [])
    for s, entries in enumerate((spec.side0, spec.side1)):
        for k, e in enumerate(entries):
            where = f"side{s}[{k}]"
            over = dict(e.model_extra or {})
            if (e.archetype is None) == (e.traits is None):
                raise InputError(f"{fname}: {where}: give exactly one of archetype or traits")
            label = e.name or e.archetype or f"side{s}_{k}"
            try:
                if e.archetype is not None:
                    c = combatant(system, e.archetype, over, label=label)
                else:
                    assert e.traits is not None  # exactly one of the two, checked above
                    c = combatant(system, {**e.traits, "name": label}, over, label=label)
            except InputError as exc:
                msg = str(exc).replace(f"{system}: {label}", where, 1)
                if msg.startswith(f"{system}: "):
                    msg = f"{where}: " + msg[len(system) + 2 :]
                raise InputError(f"{fname}: {msg}") from None
            if e.archetype is not None:
                shown = {"archetype": e.archetype, **over}
            else:
                shown = {"name": label, "weapon": (e.traits or {}).get("weapon"), **over}
            for j in range(e.count):
                sides[s].append(
                    c if e.count == 1 else dataclasses.replace(c, name=f"{c.name}#{j + 1}")
                )
                specs[s].append({k: v for k, v in shown.items() if v is not None})
    if spec.method != "mc" and (len(sides[0]) > 1 or len(sides[1]) > 1):
        raise InputError(
            f"{fname}: method: {spec.method!r} needs one combatant a side "
            '(exact duels only); use method = "mc"'
        )
    return Matchup(
        system=system,
        title=spec.title or p.stem,
        sides=sides,
        variants=v,
        round_cap=spec.round_cap,
        trials=spec.trials,
        seed=spec.seed,
        method=spec.method,
        source=str(p),
        specs=specs,
        variant_names=tuple(spec.variants),
    )
