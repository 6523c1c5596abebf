"""One entry point over the combat archetype libraries of the five systems.

The libraries live in ``analysis/data/combat/<system>.toml`` and have three loaders
(:mod:`analysis.combat.combatants` for the two pool systems,
:mod:`analysis.combat.combatants_middle_pct` for ``middle_3d10`` and ``percentile``,
:mod:`analysis.combat.combatants_d20`). This module hides
the difference:

- :func:`library` — ``{name: model}`` as the system's loader returns it;
- :func:`combatant` — the engine's own combatant object, from an archetype name (with
  gear and tactic overrides such as ``weapon="pistol"``) or from a full trait mapping,
  validated by the same pydantic models as the data file;
- :func:`load_matchup_file` — a TOML file describing a fight (system, sides, overrides,
  variants, round cap), validated with errors naming the file and the key.

``tactic`` is the one override name for each system's fixed fighting choice: the A6 action
pair (``dice_pool_7``), the C13 split of the pool (``dice_pool_6``: ``focus`` or
``split``), the B4 drama-point timing (``middle_3d10``), the DX2 defence (``percentile``)
and the E16 maneuver (``d20_degrees``). Every error is an
:class:`~engines.errors.InputError` such as ``dice_pool_7: unknown archetype 'expret';
known: ...``.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.toml_input import read_toml
from engines.errors import InputError
from engines.variants import parse_variants

SYSTEMS = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "combat"
ENGINES = {s: f"engines.combat_{s}" for s in SYSTEMS}

#: The field each system's ``tactic`` override sets.
TACTIC_FIELD = {"dice_pool_7": "tactic", "dice_pool_6": "split", "middle_3d10": "drama_tactic",
                "percentile": "defend", "d20_degrees": "maneuver"}
#: dice_pool_6 tactics (C13): attack one enemy, or split the pool among all of them.
POOL6_TACTICS = {"focus": False, "split": True}
#: Armour levels tried for ``percentile`` (DX11 armour points; the data has no table).
PERCENTILE_ARMOUR = (0, 1, 2, 4, 6, 8)
_CUSTOM = "__custom__"


def _system(system: str) -> str:
    if system not in SYSTEMS:
        raise InputError(f"unknown system {system!r}; known: {', '.join(SYSTEMS)}")
    return system


def engine(system: str):
    """The combat engine module of ``system`` (``engines.combat_<system>``)."""
    return importlib.import_module(ENGINES[_system(system)])


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

    from engines.system import get

    check_names = {f.name for f in dataclasses.fields(get(system).variants)}
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
            raise InputError(f"unknown variant {name!r} for {system}{hint}; known: "
                             + ", ".join(known))
        if name in check_names:
            checks.append(text)
        if name in combat_names:
            combat.append(text)
    return checks, combat


def _path(system: str, path) -> Path:
    return Path(path) if path is not None else DATA_DIR / f"{system}.toml"


def _read(system: str, path) -> tuple[str, dict]:
    p = _path(system, path)
    return p.name, read_toml(p, "combat data file")


@lru_cache(maxsize=32)
def _library_cached(system: str, path: str | None) -> dict:
    if system in ("dice_pool_7", "dice_pool_6"):
        from analysis.combat.combatants import load_library as load
        return load(system, path)
    if system in ("middle_3d10", "percentile"):
        from analysis.combat.combatants_middle_pct import load_library as load
        return load(system, path)
    from analysis.combat.combatants_d20 import load_library as load_d20
    return load_d20(path)


def library(system: str, path: str | Path | None = None) -> dict[str, Any]:
    """The archetype library of ``system``: ``{name: model}`` from its loader (validated).

    Pool systems give engine combatants directly; ``middle_3d10`` / ``percentile`` give
    pydantic models (``.combatant()``), ``d20_degrees`` pydantic models (``.to_engine()``).
    """
    return dict(_library_cached(_system(system), None if path is None else str(path)))


def to_engine(system: str, model: Any):
    """The engine combatant of a library entry."""
    if hasattr(model, "combatant"):
        return model.combatant()
    if hasattr(model, "to_engine"):
        return model.to_engine()
    return model


def names(system: str, path=None) -> list[str]:
    return sorted(library(system, path))


def _unknown(system: str, name: Any, path=None):
    raise InputError(f"{system}: unknown archetype {name!r}; known: "
                     + ", ".join(names(system, path)))


def weapons(system: str, path=None) -> list[str]:
    """Weapon names of the system's data file."""
    _, raw = _read(_system(system), path)
    table = raw.get("weapons", {})
    return list(table) if isinstance(table, dict) else []


def armours(system: str, path=None) -> list:
    """Armour choices: names (``dice_pool_7``, ``d20_degrees``) or points (``percentile``);
    ``dice_pool_6`` and ``middle_3d10`` have no armour rules (empty)."""
    _system(system)
    if system == "percentile":
        return list(PERCENTILE_ARMOUR)
    if system in ("dice_pool_6", "middle_3d10"):
        return []
    _, raw = _read(system, path)
    return list(raw.get("armour", {}))


def tactics(system: str) -> list:
    """The values of the ``tactic`` override."""
    eng = engine(system)
    return {"dice_pool_7": lambda: list(eng.TACTICS), "dice_pool_6": lambda: list(POOL6_TACTICS),
            "middle_3d10": lambda: list(eng.TACTICS), "percentile": lambda: list(eng.DEFENCES),
            "d20_degrees": lambda: list(eng.MANEUVERS)}[system]()


def _translate(system: str, over: Mapping[str, Any], label: str) -> dict:
    """Map the shared override names (``tactic``, ``armour``) to the system's fields."""
    out = dict(over)
    if "tactic" in out and TACTIC_FIELD[system] != "tactic":
        value = out.pop("tactic")
        if system == "dice_pool_6":
            if value not in POOL6_TACTICS:
                raise InputError(f"{system}: {label}.tactic: unknown tactic {value!r}; known: "
                                 + ", ".join(POOL6_TACTICS))
            value = POOL6_TACTICS[value]
        out[TACTIC_FIELD[system]] = value
    if "tactic" in out and out["tactic"] not in tactics(system):
        raise InputError(f"{system}: {label}.tactic: unknown tactic {out['tactic']!r}; known: "
                         + ", ".join(tactics(system)))
    if TACTIC_FIELD[system] in out and system not in ("dice_pool_6", "dice_pool_7"):
        value = out[TACTIC_FIELD[system]]
        if value not in tactics(system):
            raise InputError(f"{system}: {label}.tactic: unknown tactic {value!r}; known: "
                             + ", ".join(tactics(system)))
    if "armour" in out and system in ("dice_pool_6", "middle_3d10"):
        raise InputError(f"{system}: {label}.armour: this system has no armour rules"
                         + (" (Defense is a stat: set defense)" if system == "middle_3d10"
                            else ""))
    return out


def _check_keys(system: str, over: Mapping[str, Any], allowed: set[str], label: str) -> None:
    bad = sorted(set(over) - allowed)
    if bad:
        raise InputError(f"{system}: {label}.{bad[0]}: unknown key; known: "
                         + ", ".join(sorted(allowed | {"tactic"})))


def _check_gear(system: str, over: Mapping[str, Any], label: str, path) -> None:
    for key, known in (("weapon", weapons(system, path)), ("melee_weapon", weapons(system, path)),
                       ("armour", [] if system == "percentile" else armours(system, path))):
        if key in over and over[key] is not None and known and over[key] not in known:
            kind = "weapon" if key != "armour" else "armour"
            raise InputError(f"{system}: {label}.{key}: unknown {kind} {over[key]!r}; known: "
                             + ", ".join(str(k) for k in known))


def _rewrite(exc: InputError, fname: str, system: str, label: str) -> InputError:
    msg = str(exc)
    for pre in (f"{fname}: archetypes.{_CUSTOM}", f"{fname}: styles.{_CUSTOM}"):
        msg = msg.replace(pre, f"{system}: {label}")
    return InputError(msg)


# ---------------------------------------------------------------------------------------
# per-loader builders: inject one archetype into the parsed data file and let the
# system's own loader validate and build it


def _pool(system: str, name: str | None, over: dict, full: dict | None, label: str, path):
    from analysis.combat import combatants as c7

    fname, raw = _read(system, path)
    model = c7.DicePool7Archetype if system == "dice_pool_7" else c7.DicePool6Archetype
    level_model = c7.DicePool7Level if system == "dice_pool_7" else c7.DicePool6Level
    allowed = set(model.model_fields) - {"level", "style"}
    _check_keys(system, over, allowed, label)
    if full is not None:
        _check_keys(system, full, allowed, label)
        need = [k for k, f in level_model.model_fields.items() if f.is_required()] + ["weapon"]
        missing = [k for k in need if k not in full]
        if missing:
            raise InputError(f"{system}: {label}: missing {', '.join(missing)} (a full trait "
                             "mapping needs every trait and a weapon)")
        levels, styles = raw.get("levels") or {}, raw.get("styles") or {}
        if not levels or not styles:
            raise InputError(f"{fname}: levels and styles are needed")
        style_model = c7.DicePool7Style if system == "dice_pool_7" else c7.DicePool6Style
        defaults = {k: f.default for m in (level_model, style_model)
                    for k, f in m.model_fields.items() if not f.is_required()}
        entry = {"level": next(iter(levels)), "style": next(iter(styles)), **defaults, **full,
                 **over}
    else:
        arch = raw.get("archetypes") or {}
        if name in arch:
            entry = {**arch[name], **over}
        else:
            levels, styles = raw.get("levels") or {}, raw.get("styles") or {}
            pair = [(s, lv) for s in styles for lv in levels if f"{s}_{lv}" == name]
            if not pair:
                _unknown(system, name, path)
            entry = {"style": pair[0][0], "level": pair[0][1], **over}
    data = copy.deepcopy(raw)
    data["archetypes"] = {_CUSTOM: entry}
    try:
        built = c7.BUILDERS[system](fname, data)[_CUSTOM]
    except InputError as exc:
        raise _rewrite(exc, fname, system, label) from None
    return dataclasses.replace(built, name=name or label)


def _middle_pct(system: str, name: str | None, over: dict, full: dict | None, label: str,
                path):
    from analysis.combat import combatants_middle_pct as mp

    fname, raw = _read(system, path)
    model = mp.MiddleArchetype if system == "middle_3d10" else mp.PctArchetype
    allowed = set(model.model_fields) - {"name", "dice", "ranged", "weapon_data", "melee_data",
                                         "db"}
    _check_keys(system, over, allowed, label)
    arch = raw.get("archetypes") or {}
    if full is not None:
        _check_keys(system, full, allowed, label)
        entry = {**full, **over}
    else:
        if name not in arch:
            _unknown(system, name, path)
        entry = {"base": name, **over}
    data = copy.deepcopy(raw)
    data["archetypes"] = {**arch, _CUSTOM: entry}
    loader = mp._load_middle if system == "middle_3d10" else mp._load_percentile
    try:
        built = loader(data, fname)[_CUSTOM]
    except InputError as exc:
        raise _rewrite(exc, fname, system, label) from None
    return built.model_copy(update={"name": name or label}).combatant()


def _d20(name: str | None, over: dict, full: dict | None, label: str, path):
    from analysis.combat import combatants_d20 as cd

    system = "d20_degrees"
    allowed = set(cd.StatBlock.model_fields)
    _check_keys(system, over, allowed, label)
    fname, raw = _read(system, path)
    try:
        lib_file = cd.LibraryFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(cd._validation_message(fname, exc)) from None
    if full is not None:
        _check_keys(system, full, allowed, label)
        fields, rung, style = {**full, **over}, "custom", None
    else:
        lib = library(system, path)
        if name not in lib:
            _unknown(system, name, path)
        base = lib[name]
        fields, rung, style = {**base.stats.model_dump(), **over}, base.rung, base.style
    try:
        block = cd.StatBlock.model_validate(fields)
    except ValidationError as exc:
        raise InputError(_validation(system, exc).replace(": ", f": {label}.", 1)) from None
    _check_gear(system, {"weapon": block.weapon, "armour": block.armour}, label, path)
    return cd._combatant(name or label, rung, style, block, lib_file).to_engine()


def combatant(system: str, spec: str | Mapping[str, Any], overrides: Mapping | None = None,
              *, path: str | Path | None = None, label: str | None = None):
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
        Another data file for the system (default ``analysis/data/combat/<system>.toml``).

    Examples
    --------
    >>> c = combatant("dice_pool_7", "swordsman_competent", {"weapon": "heavy_melee"})
    >>> c.weapon.name, c.defense
    ('heavy_melee', 2)
    """
    _system(system)
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
        raise InputError(f"{system}: an archetype is a name or a table of traits, "
                         f"got {type(spec).__name__}")
    if name is not None and not isinstance(name, str):
        raise InputError(f"{system}: {label}.archetype: expected a name, got {name!r}")
    over = _translate(system, over, label)
    _check_gear(system, over, label, path)
    if system in ("dice_pool_7", "dice_pool_6"):
        return _pool(system, name, over, full, label, path)
    if system in ("middle_3d10", "percentile"):
        return _middle_pct(system, name, over, full, label, path)
    return _d20(name, over, full, label, path)


def describe(system: str, path=None) -> list[dict]:
    """One row per archetype: its engine combatant's plain fields (gear by name)."""
    rows = []
    for name, model in sorted(library(system, path).items()):
        c = to_engine(system, model)
        row = {"system": system, "archetype": name}
        for f in dataclasses.fields(c):
            v = getattr(c, f.name)
            if f.name == "name":
                continue
            if dataclasses.is_dataclass(v):
                v = getattr(v, "name", str(v))
            elif isinstance(v, tuple):
                v = str(v)
            row[f.name] = v
        rows.append(row)
    return rows


_RULE_ID = re.compile(r"\b(?:DX|[A-E])(?:-g|-ext)?\d*\b(?=[\s,;:.)]|$)")
_DOC_KEYS = ("note", "source", "assumption")
#: The rule a weapon or armour row follows when its own note cites none: weapons A11,
#: B8 (damage dice by category), C11 (damage bonus), DX3 (damage dice), E12 (Damage
#: rank); armour A13, DX11, E12 (Toughness).
GEAR_RULE = {
    "weapon": {"dice_pool_7": "A11", "middle_3d10": "B8", "dice_pool_6": "C11",
               "percentile": "DX3", "d20_degrees": "E12"},
    "armour": {"dice_pool_7": "A13", "percentile": "DX11", "d20_degrees": "E12"},
}


def _rule_ids(*texts) -> str:
    """The rule ids (A11, DX7, E12, B-g3 ...) cited in the data file's notes."""
    found = []
    for text in texts:
        if isinstance(text, str):
            found.extend(m for m in _RULE_ID.findall(text) if any(ch.isdigit() for ch in m)
                         or "-" in m)
    return ", ".join(dict.fromkeys(found))


def gear(system: str, path=None) -> list[dict]:
    """One row per weapon and armour of the system's data file: ``kind``, ``name``, its
    stats (``key=value``, as the file gives them), the note or source the file gives and
    the rule ids that note cites. ``middle_3d10`` weapons show their category's dice;
    ``percentile`` armour is a number of points (DX11); ``dice_pool_6`` and
    ``middle_3d10`` have no armour rules."""
    system = _system(system)
    _, raw = _read(system, path)
    rows = []

    def add(kind: str, name: str, entry) -> None:
        entry = dict(entry) if isinstance(entry, Mapping) else {"value": entry}
        docs = [entry.pop(k) for k in _DOC_KEYS if k in entry]
        notes = [d for d in docs if isinstance(d, str)]
        if any(d is True for d in docs):
            notes.append("assumption")
        rules = _rule_ids(*notes)
        if not rules:
            rules = GEAR_RULE[kind].get(system, "")
        rows.append({"system": system, "kind": kind, "name": name,
                     "stats": "; ".join(f"{k}={v}" for k, v in entry.items()),
                     "note": "; ".join(notes), "rules": rules})

    categories = raw.get("categories", {})
    for name, entry in raw.get("weapons", {}).items():
        if isinstance(entry, str) and entry in categories:
            entry = {"category": entry, **categories[entry]}
        add("weapon", name, entry)
    if system == "percentile":
        for points in PERCENTILE_ARMOUR:
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
    system: Literal["dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees"]
    title: str = ""
    round_cap: int = Field(50, ge=1, le=1000)
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

    @property
    def sizes(self) -> tuple[int, int]:
        return len(self.sides[0]), len(self.sides[1])


def _validation(fname: str, exc: ValidationError) -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    got = "" if err["type"] == "missing" or isinstance(err.get("input"), dict | list) \
        else f" (got {err.get('input')!r})"
    return f"{fname}: {loc}: {msg}{got}"


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
        v = variants(system, spec.variants)
    except InputError as exc:
        raise InputError(f"{fname}: variants: {exc}") from None
    sides: tuple[list, list] = ([], [])
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
                    c = combatant(system, {**e.traits, "name": label}, over, label=label)
            except InputError as exc:
                msg = str(exc).replace(f"{system}: {label}", where, 1)
                if msg.startswith(f"{system}: "):
                    msg = f"{where}: " + msg[len(system) + 2:]
                raise InputError(f"{fname}: {msg}") from None
            for j in range(e.count):
                sides[s].append(c if e.count == 1 else dataclasses.replace(
                    c, name=f"{c.name}#{j + 1}"))
    if spec.method != "mc" and (len(sides[0]) > 1 or len(sides[1]) > 1):
        raise InputError(f"{fname}: method: {spec.method!r} needs one combatant a side "
                         "(exact duels only); use method = \"mc\"")
    return Matchup(system=system, title=spec.title or p.stem, sides=sides, variants=v,
                   round_cap=spec.round_cap, trials=spec.trials, seed=spec.seed,
                   method=spec.method, source=str(p))
