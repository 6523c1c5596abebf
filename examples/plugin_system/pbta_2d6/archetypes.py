"""The archetype library of ``pbta_2d6``: ``archetypes.toml`` → :class:`~pbta_2d6.combat.Combatant`.

:data:`HOOK` is the :class:`engines.archetype_library.ArchetypeHook` that
``PLUGIN.combat.archetypes`` names (``"pbta_2d6.archetypes:HOOK"``). The suite's one
archetype loader (:mod:`analysis.combat.archetypes`) does the rest — names, overrides,
gear checks, matchup files, the ``archetypes`` and ``gear`` commands — through it:

- ``load(file_name, raw)`` validates the parsed data file with the pydantic models below
  and returns ``{name: Combatant}``: the five ladder rungs (in the file's
  ``level_style``), every style at every rung (``LEVEL_STYLE``) and the single
  ``[archetypes.NAME]`` entries;
- ``build(file_name, raw, lib, name, overrides, full, label)`` builds one combatant: a
  library archetype with overrides (``weapon``, ``armour``, ``tactic``, ``plan``,
  ``stat``), or a full trait mapping (``stat`` and ``weapon`` needed);
- the ``tactic`` override sets the fighter's PC9 tactic, ``plan`` its PD6 plan in a
  fight that starts apart; armour is a table of names; a weapon with ``ranged = true``
  gives its PD4 range bands (``close``, ``far`` metres);
- ``tables`` names the data file's rule tables (``analysis.rules``): ``weapon`` (the
  file's ``[weapons]``) and ``armour`` (PC3), and ``tactic`` (``[tactics.careful]``,
  PC9: the harm a careful weak hit holds back, carried by every combatant), so
  ``rpg-balance rules pbta_2d6`` prints them, ``--rules FILE`` edits them and
  ``pbta_2d6:rules.weapon.pistol.harm`` is a knob. The rest of the system's numbers are
  variants (``clock``, ``dead_over``, ``move``, ``reach``, ...).

Errors name the file and the key (``archetypes.toml: styles.brawler.weapon: unknown
weapon 'lazer'; known: ...``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engines.archetype_library import LADDER, ArchetypeHook, check_keys, validation
from engines.constants import PLANS
from engines.distance import MAX_DISTANCE
from engines.errors import InputError

from .fighters import SYSTEM, TACTICS, Armour, Combatant, Weapon

DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")
Tactic = Literal["trade", "careful"]
Plan = Literal[PLANS]  # engines.constants.PLANS (PD6: the engine refuses kite)
Stat = Field(ge=-3, le=4)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class WeaponSpec(_Model):
    harm: int = Field(ge=0, le=6)
    ranged: bool = False
    close: int = Field(0, ge=0, le=MAX_DISTANCE)
    far: int = Field(0, ge=0, le=MAX_DISTANCE)
    note: str = ""


class ArmourSpec(_Model):
    points: int = Field(ge=0, le=3)
    note: str = ""


class TacticSpec(_Model):
    """PC9: what a careful weak hit holds back (``harm_less``, 1 in the moves)."""

    harm_less: int = Field(ge=0, le=6)
    note: str = ""


class LevelSpec(_Model):
    stat: int = Stat


class StyleSpec(_Model):
    weapon: str
    armour: str = "none"
    tactic: Tactic = "trade"
    plan: Plan | None = None


class Traits(_Model):
    """One fighter's full traits: a rung's stat and a style's gear and tactic."""

    stat: int = Stat
    weapon: str
    armour: str = "none"
    tactic: Tactic = "trade"
    plan: Plan | None = None


class ArchetypeSpec(_Model):
    level: str
    style: str
    stat: int | None = Field(None, ge=-3, le=4)
    weapon: str | None = None
    armour: str | None = None
    tactic: Tactic | None = None
    plan: Plan | None = None


class FileSpec(_Model):
    weapons: dict[str, WeaponSpec]
    armour: dict[str, ArmourSpec]
    tactics: dict[Literal["careful"], TacticSpec] = {}
    levels: dict[str, LevelSpec]
    styles: dict[str, StyleSpec]
    level_style: str
    archetypes: dict[str, ArchetypeSpec] = {}


def _spec(fname: str, raw: dict) -> FileSpec:
    try:
        spec = FileSpec.model_validate(raw)
    except ValidationError as exc:
        raise InputError(validation(fname, exc)) from None
    for name in spec.levels:
        if name not in LADDER:
            raise InputError(
                f"{fname}: levels.{name}: not a rung of the competence ladder; "
                "known: " + ", ".join(LADDER)
            )
    for name in LADDER:
        if name not in spec.levels:
            raise InputError(f"{fname}: levels.{name}: missing (every ladder rung needs one)")
    return spec


def _pick(fname: str, where: str, kind: str, name: str, table: dict):
    if name not in table:
        raise InputError(f"{fname}: {where}: unknown {kind} {name!r}; known: " + ", ".join(table))
    return table[name]


def _combatant(fname: str, spec: FileSpec, name: str, where: str, traits: dict) -> Combatant:
    """A validated :class:`Combatant` from a full trait mapping."""
    try:
        t = Traits.model_validate(traits)
    except ValidationError as exc:
        raise InputError(
            validation(fname, exc).replace(f"{fname}: ", f"{fname}: {where}.", 1)
        ) from None
    w = _pick(fname, f"{where}.weapon", "weapon", t.weapon, spec.weapons)
    a = _pick(fname, f"{where}.armour", "armour", t.armour, spec.armour)
    careful = spec.tactics.get("careful")
    rules = {} if careful is None else {"careful_less": careful.harm_less}
    c = Combatant(
        name,
        t.stat,
        Weapon(t.weapon, w.harm, w.ranged, w.close, w.far),
        Armour(t.armour, a.points),
        t.tactic,
        t.plan,
        **rules,
    )
    try:
        c.check()
    except InputError as exc:
        raise InputError(f"{fname}: {where}: {exc}") from None
    return c


def load(fname: str, raw: dict) -> dict[str, Combatant]:
    """The library: ladder rungs, ``LEVEL_STYLE`` for every style and rung, then the
    single archetypes (each a level, a style and overrides)."""
    spec = _spec(fname, raw)
    plain = _pick(fname, "level_style", "style", spec.level_style, spec.styles)
    out: dict[str, Combatant] = {}
    for lv, level in spec.levels.items():
        out[lv] = _combatant(
            fname, spec, lv, f"levels.{lv}", {**plain.model_dump(), **level.model_dump()}
        )
    for st, style in spec.styles.items():
        for lv, level in spec.levels.items():
            out[f"{lv}_{st}"] = _combatant(
                fname,
                spec,
                f"{lv}_{st}",
                f"styles.{st}",
                {**style.model_dump(), **level.model_dump()},
            )
    for name, arch in spec.archetypes.items():
        where = f"archetypes.{name}"
        level = _pick(fname, f"{where}.level", "level", arch.level, spec.levels)
        style = _pick(fname, f"{where}.style", "style", arch.style, spec.styles)
        if name in out:
            raise InputError(
                f"{fname}: {where}: the name clashes with a LEVEL_STYLE or ladder archetype"
            )
        over = arch.model_dump(exclude={"level", "style"}, exclude_none=True)
        out[name] = _combatant(
            fname, spec, name, where, {**style.model_dump(), **level.model_dump(), **over}
        )
    return out


ALLOWED = {"stat", "weapon", "armour", "tactic", "plan"}


def build(
    fname: str, raw: dict, lib: dict, name: str | None, over: dict, full: dict | None, label: str
) -> Combatant:
    """One combatant: library archetype ``name`` with the overrides ``over``, or (``name``
    None) the full trait mapping ``full``; errors name ``label``."""
    check_keys(SYSTEM, over, ALLOWED, label)
    if full is None:
        base = lib[name]
        traits = {
            "stat": base.stat,
            "weapon": base.weapon.name,
            "armour": base.armour.name,
            "tactic": base.tactic,
            "plan": base.plan,
        }
    else:
        check_keys(SYSTEM, full, ALLOWED, label)
        missing = [k for k in ("stat", "weapon") if k not in full]
        if missing:
            raise InputError(
                f"{SYSTEM}: {label}: missing {', '.join(missing)} (a full "
                "trait mapping needs a stat and a weapon)"
            )
        traits = dict(full)
    try:
        return _combatant(fname, _spec(fname, raw), name or label, "__label__", {**traits, **over})
    except InputError as exc:
        raise InputError(str(exc).replace(f"{fname}: __label__", f"{SYSTEM}: {label}")) from None


HOOK = ArchetypeHook(
    system=SYSTEM,
    load=load,
    build=build,
    tactic_values=lambda: {t: t for t in TACTICS},
    tactic_field="tactic",
    armour="names",
    weapon_rule="PC3",
    armour_rule="PC3",
    data_file=DATA_FILE,
    tables=(
        ("weapon", "weapons", "PC3"),
        ("armour", "armour", "PC3"),
        ("tactic", "tactics", "PC9"),
    ),
)
