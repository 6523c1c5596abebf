"""Combat gear and archetype libraries: TOML data files → validated engine combatants.

Each system keeps its combat data in ``analysis/data/combat/<system>.toml``: gear tables,
the common competence ladder (``levels``: untrained, novice, competent, expert, master),
fighting ``styles`` and extra ``archetypes``. Every rung is an archetype of its own name
(in the file's ``level_style``), every style at every level an archetype named
``LEVEL_STYLE`` (``competent_swordsman``); ``[archetypes.NAME]`` entries add single ones
(a level, a style and overrides). :func:`load_library` validates every field with pydantic and
returns the engine's own frozen combatant objects, so engines never see pydantic models.

Errors are :class:`~engines.errors.InputError` naming the file and the key, e.g.
``dice_pool_7.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ...``.

:data:`DICE_POOL_7` and :data:`DICE_POOL_6` are the systems' archetype-loader hooks
(:class:`~analysis.combat.library_hook.ArchetypeHook`), named by their ``System``.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.combat.library_hook import (
    CUSTOM,
    DATA_DIR,
    LADDER,
    ArchetypeHook,
    check_keys,
    rewrite,
)
from analysis.toml_input import read_toml
from engines.errors import InputError

__all__ = ["BUILDERS", "DICE_POOL_6", "DICE_POOL_7", "POOL6_TACTICS", "Attr", "Burst7", "Cover6",
           "DicePool6Archetype", "DicePool6File", "DicePool6Level", "DicePool6Style",
           "DicePool6Weapon", "DicePool7Archetype", "DicePool7Armour", "DicePool7File",
           "DicePool7Level", "DicePool7Style", "DicePool7Weapon", "Plan6", "Plan7", "Tactic7",
           "Trait6", "Willpower7", "entry_of", "load_library"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


def _format_validation(file: str, exc: ValidationError, prefix: str = "") -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    where = f"{prefix}.{loc}" if prefix and loc else (prefix or loc)
    more = f" (and {len(exc.errors()) - 1} more problems)" if len(exc.errors()) > 1 else ""
    got = f" (got {err['input']!r})" if err["type"] != "missing" and \
        not isinstance(err.get("input"), dict) else ""
    return f"{file}: {where}: {err['msg']}{got}{more}"


def _lookup(file: str, where: str, kind: str, name: str, table: dict) -> Any:
    if name not in table:
        raise InputError(f"{file}: {where}: unknown {kind} {name!r}; known: "
                         + ", ".join(sorted(table)))
    return table[name]


def _check_ladder(file: str, levels: dict) -> None:
    for name in levels:
        if name not in LADDER:
            raise InputError(f"{file}: levels.{name}: not a rung of the competence ladder; "
                             "known: " + ", ".join(LADDER))
    for name in LADDER:
        if name not in levels:
            raise InputError(f"{file}: levels.{name}: missing (every ladder rung needs one)")


def _parse(file: str, model: type, data: dict):
    """``data`` validated as ``model`` (a file with a ``levels`` ladder), or InputError."""
    try:
        spec = model.model_validate(data)
    except ValidationError as exc:
        raise InputError(_format_validation(file, exc)) from None
    _check_ladder(file, spec.levels)
    return spec


def _checked(file: str, where: str, c):
    """The engine's own check of combatant ``c``, its message prefixed with the place."""
    try:
        c.check()
    except InputError as exc:
        raise InputError(f"{file}: {where}: {exc}") from None
    return c


def _grid(file: str, spec, build: Callable[[str, str, Any, Any, dict], Any]) -> dict:
    """The ladder rungs (each in the file's ``level_style``), every style at every level
    (``LEVEL_STYLE``), then the single archetypes (with their overrides)."""
    out = {}
    plain = _lookup(file, "level_style", "style", spec.level_style, spec.styles)
    for level_name, level in spec.levels.items():
        out[level_name] = build(level_name, f"levels.{level_name}", level, plain, {})
    for style_name, style in spec.styles.items():
        for level_name, level in spec.levels.items():
            name = f"{level_name}_{style_name}"
            out[name] = build(name, f"styles.{style_name}", level, style, {})
    for name, arch in spec.archetypes.items():
        where = f"archetypes.{name}"
        level = _lookup(file, f"{where}.level", "level", arch.level, spec.levels)
        style = _lookup(file, f"{where}.style", "style", arch.style, spec.styles)
        overrides = arch.model_dump(exclude={"level", "style"}, exclude_none=True)
        if name in out:
            raise InputError(f"{file}: {where}: the name clashes with a LEVEL_STYLE or "
                             "ladder archetype")
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


# ---------------------------------------------------------------------------------------
# dice_pool_7 (RULES.md A7–A16)

Attr = Field(ge=1, le=10)


class DicePool7Weapon(_Model):
    bonus: int = Field(ge=0, le=5)
    initiative: int = Field(0, ge=-5, le=5)
    defense: int = Field(0, ge=-5, le=5)
    damage_type: Literal["bashing", "lethal", "ballistic"]
    ranged: bool = False
    automatic: bool = False
    range: Literal["short", "long"] = "short"
    note: str = ""
    source: str = ""


class DicePool7Armour(_Model):
    lethal: int = Field(0, ge=0, le=10)
    ballistic: int = Field(0, ge=0, le=10)
    move: int = Field(0, ge=-10, le=0)
    note: str = ""


class DicePool7Level(_Model):
    FOR: int = Attr
    DES: int = Attr
    SAB: int = Attr
    CON: int = Attr
    DET: int = Attr
    AUT: int = Attr
    specialized: bool = False
    athletics: bool = False
    quality: int = Field(0, ge=0, le=2)


Tactic7 = Literal["attack_attack", "attack_dodge", "focus_attack"]
#: engines.distance.PLANS; the engine refuses the ones dice_pool_7 has no rule for
Plan7 = Literal["charge", "hold", "kite", "cover"]
Willpower7 = Literal["none", "attack_early", "attack_late", "defense_early", "defense_late"]
Burst7 = Literal["none", "short", "medium", "long"]


class DicePool7Style(_Model):
    weapon: str
    armour: str = "none"
    shield: bool = False
    tactic: Tactic7 = "attack_attack"
    willpower: Willpower7 = "none"
    burst: Burst7 = "none"
    plan: Plan7 | None = None


class DicePool7Archetype(_Model):
    level: str
    style: str
    weapon: str | None = None
    armour: str | None = None
    shield: bool | None = None
    tactic: Tactic7 | None = None
    willpower: Willpower7 | None = None
    burst: Burst7 | None = None
    plan: Plan7 | None = None
    FOR: int | None = Field(None, ge=1, le=10)
    DES: int | None = Field(None, ge=1, le=10)
    SAB: int | None = Field(None, ge=1, le=10)
    CON: int | None = Field(None, ge=1, le=10)
    DET: int | None = Field(None, ge=1, le=10)
    AUT: int | None = Field(None, ge=1, le=10)
    specialized: bool | None = None
    athletics: bool | None = None
    quality: int | None = Field(None, ge=0, le=2)


class DicePool7File(_Model):
    weapons: dict[str, DicePool7Weapon]
    armour: dict[str, DicePool7Armour]
    levels: dict[str, DicePool7Level]
    styles: dict[str, DicePool7Style]
    level_style: str
    archetypes: dict[str, DicePool7Archetype] = {}


def _build_dice_pool_7(file: str, data: dict) -> dict:
    from engines.systems.dice_pool_7 import combat as eng

    spec = _parse(file, DicePool7File, data)

    def build(name: str, where: str, level: DicePool7Level, style: DicePool7Style,
              over: dict) -> eng.Combatant:
        fields = {**level.model_dump(), **style.model_dump(), **over}
        w = _lookup(file, f"{where}.weapon", "weapon", fields["weapon"], spec.weapons)
        a = _lookup(file, f"{where}.armour", "armour", fields["armour"], spec.armour)
        weapon = eng.Weapon(fields["weapon"], w.bonus, w.initiative, w.defense, w.damage_type,
                            w.ranged, w.automatic, w.range)
        armour = eng.Armour(fields["armour"] + ("+shield" if fields["shield"] else ""),
                            a.lethal, a.ballistic, 1 if fields["shield"] else 0, a.move)
        c = eng.Combatant(name, fields["FOR"], fields["DES"], fields["SAB"], fields["CON"],
                          fields["DET"], fields["AUT"], weapon, armour, fields["specialized"],
                          fields["athletics"], fields["quality"], fields["burst"],
                          fields["tactic"], fields["willpower"], fields["plan"])
        return _checked(file, where, c)

    return _grid(file, spec, build)


# ---------------------------------------------------------------------------------------
# dice_pool_6 (RULES.md C6, C10–C13)

Trait6 = Field(ge=0, le=10)


class DicePool6Weapon(_Model):
    damage: int = Field(ge=0, le=10)
    ranged: bool = False
    assumption: bool = False
    note: str = ""


class DicePool6Level(_Model):
    attack_attribute: int = Trait6
    attack_skill: int = Trait6
    dodge_attribute: int = Trait6
    dodge_skill: int = Trait6
    stamina: int = Trait6
    composure: int = Trait6
    resolve: int = Trait6
    specialty: bool = False


Cover6 = Literal["none", "partial", "full"]
#: engines.distance.PLANS (CT1); the engine refuses cover with a melee weapon
Plan6 = Literal["charge", "hold", "kite", "cover"]


class DicePool6Style(_Model):
    weapon: str
    cover: Cover6 = "none"
    split: bool = False
    plan: Plan6 | None = None


class DicePool6Archetype(_Model):
    level: str
    style: str
    weapon: str | None = None
    cover: Cover6 | None = None
    split: bool | None = None
    plan: Plan6 | None = None
    attack_attribute: int | None = Field(None, ge=0, le=10)
    attack_skill: int | None = Field(None, ge=0, le=10)
    dodge_attribute: int | None = Field(None, ge=0, le=10)
    dodge_skill: int | None = Field(None, ge=0, le=10)
    stamina: int | None = Field(None, ge=0, le=10)
    composure: int | None = Field(None, ge=0, le=10)
    resolve: int | None = Field(None, ge=0, le=10)
    specialty: bool | None = None


class DicePool6File(_Model):
    weapons: dict[str, DicePool6Weapon]
    levels: dict[str, DicePool6Level]
    styles: dict[str, DicePool6Style]
    level_style: str
    archetypes: dict[str, DicePool6Archetype] = {}


def _build_dice_pool_6(file: str, data: dict) -> dict:
    from engines.systems.dice_pool_6 import combat as eng

    spec = _parse(file, DicePool6File, data)

    def build(name: str, where: str, level: DicePool6Level, style: DicePool6Style,
              over: dict) -> eng.Combatant:
        fields = {**level.model_dump(), **style.model_dump(), **over}
        w = _lookup(file, f"{where}.weapon", "weapon", fields["weapon"], spec.weapons)
        c = eng.Combatant(name, fields["attack_attribute"], fields["attack_skill"],
                          fields["dodge_attribute"], fields["dodge_skill"], fields["stamina"],
                          fields["composure"], fields["resolve"], fields["specialty"],
                          eng.Weapon(fields["weapon"], w.damage, w.ranged), fields["cover"],
                          fields["split"], fields["plan"])
        return _checked(file, where, c)

    return _grid(file, spec, build)


# ---------------------------------------------------------------------------------------
# the archetype-loader hooks (engines.system.System.archetype_library)

#: system id -> builder(file name, parsed TOML) -> {archetype name: engine combatant}.
BUILDERS: dict[str, Callable[[str, dict], dict]] = {
    "dice_pool_7": _build_dice_pool_7,
    "dice_pool_6": _build_dice_pool_6,
}


def _pool_builder(system: str, archetype: type, level_model: type, style_model: type):
    """One archetype of a pool system: inject it into the parsed data file and let the
    system's own builder validate and build it."""

    def build(fname: str, raw: dict, lib: dict, name: str | None, over: dict,
              full: dict | None, label: str):
        allowed = set(archetype.model_fields) - {"level", "style"}
        check_keys(system, over, allowed, label)
        if full is not None:
            check_keys(system, full, allowed, label)
            need = [k for k, f in level_model.model_fields.items() if f.is_required()]
            missing = [k for k in [*need, "weapon"] if k not in full]
            if missing:
                raise InputError(f"{system}: {label}: missing {', '.join(missing)} (a full "
                                 "trait mapping needs every trait and a weapon)")
            levels, styles = raw.get("levels") or {}, raw.get("styles") or {}
            if not levels or not styles:
                raise InputError(f"{fname}: levels and styles are needed")
            defaults = {k: f.default for m in (level_model, style_model)
                        for k, f in m.model_fields.items() if not f.is_required()}
            entry = {"level": next(iter(levels)), "style": next(iter(styles)), **defaults,
                     **full, **over}
        else:
            entry = {**(entry_of(raw, name) or {}), **over}
        data = copy.deepcopy(raw)
        data["archetypes"] = {CUSTOM: entry}
        try:
            built = BUILDERS[system](fname, data)[CUSTOM]
        except InputError as exc:
            raise rewrite(exc, fname, system, label) from None
        return dataclasses.replace(built, name=name or label)

    return build


def _tactics_7() -> dict:
    from engines.systems.dice_pool_7 import combat as eng

    return {t: t for t in eng.TACTICS}


#: dice_pool_6 tactics (C13): attack one enemy, or split the pool among all of them.
POOL6_TACTICS = {"focus": False, "split": True}

DICE_POOL_7 = ArchetypeHook(
    system="dice_pool_7", load=_build_dice_pool_7,
    build=_pool_builder("dice_pool_7", DicePool7Archetype, DicePool7Level, DicePool7Style),
    tactic_values=_tactics_7, tactic_field="tactic", armour="names",
    weapon_rule="A11", armour_rule="A13")

DICE_POOL_6 = ArchetypeHook(
    system="dice_pool_6", load=_build_dice_pool_6,
    build=_pool_builder("dice_pool_6", DicePool6Archetype, DicePool6Level, DicePool6Style),
    tactic_values=lambda: dict(POOL6_TACTICS), tactic_field="split", armour="none",
    weapon_rule="C11")


def load_library(system: str, path: str | Path | None = None) -> dict[str, Any]:
    """Archetype library of ``system``: ``{name: engine combatant}``, validated.

    ``path`` defaults to ``analysis/data/combat/<system>.toml``.

    Examples
    --------
    >>> lib = load_library("dice_pool_7")
    >>> lib["competent_swordsman"].defense
    3
    """
    if system not in BUILDERS:
        raise InputError(f"unknown system {system!r} for combat archetypes; known: "
                         + ", ".join(BUILDERS))
    path = Path(path) if path is not None else DATA_DIR / f"{system}.toml"
    data = read_toml(path, "combat data file")
    return BUILDERS[system](path.name, data)
