"""Combat gear and archetypes for ``middle_3d10`` and ``percentile``, loaded from data.

The files ``analysis/data/combat/middle_3d10.toml`` and ``percentile.toml`` hold the
weapon categories (B8), weapons (DX3–DX5), the damage-bonus table (DX3) and the
archetypes of the common competence ladder (untrained … master) and fighting styles
(brawler, swordsman, shooter, armoured) applied to every rung: ``competent_swordsman``
is the competent rung in the swordsman style. Every field is validated; an error names
the file and the key, e.g. ``middle_3d10.toml: archetypes.expert.weapon: unknown weapon
'lazer'; known: ...``. Models convert to the engines' plain frozen dataclasses with ``.combatant()``
(engines never import pydantic).

The ``percentile`` file describes an EXTENSION (RULES.md GAP D-g3): Call of Cthulhu 7th
edition combat, not from the seed.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.combat.library_hook import CUSTOM, LADDER, ArchetypeHook, check_keys, rewrite
from analysis.toml_input import read_toml
from engines.errors import InputError
from engines.systems.middle_3d10 import combat as mid
from engines.systems.percentile import combat as pct

__all__ = ["DATA_DIR", "MIDDLE_3D10", "PERCENTILE", "PERCENTILE_ARMOUR", "MiddleArchetype",
           "MiddleCategory", "MiddleStyle", "PctArchetype", "PctBonusRow", "PctStyle", "PctWeapon",
           "Plan", "PlanMiddle", "combatants", "load_library", "parse_dice"]

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "combat"
_DICE = re.compile(r"^\s*(\d+)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")
_FLAT = re.compile(r"^\s*([+-]?\d+)\s*$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----------------------------------------------------------------- middle_3d10


class MiddleCategory(_Strict):
    """B8: the damage dice of a weapon category and whether it fires at range; BT-g2: the
    metres of one range increment of a ranged category (and where the figure is from)."""

    dice: list[Literal["m", "C", "M"]] = Field(min_length=1, max_length=3)
    ranged: bool
    range: int | None = Field(None, ge=1, le=2000)
    source: str = ""


#: engines.distance.PLANS; the engine refuses the ones middle_3d10 has no rule for
PlanMiddle = Literal["charge", "hold", "kite", "cover"]


class MiddleArchetype(_Strict):
    """A ``middle_3d10`` combatant (B1, B4, B6–B10; Defense explicit, B-g5)."""

    name: str
    trait: int = Field(ge=1, le=10)
    combat: int = Field(ge=0, le=10)
    strength: int = Field(ge=1, le=10)
    vigor: int = Field(ge=1, le=10)
    defense: int = Field(ge=0, le=30)
    reflex: int = Field(ge=1, le=10)
    weapon: str
    dice: str
    ranged: bool
    drama: int = Field(default=5, ge=0, le=20)
    drama_tactic: Literal["never", "early", "late"] = "never"
    aware: bool = True
    range: int = 9
    plan: PlanMiddle | None = None

    def combatant(self) -> mid.Combatant:
        return mid.Combatant(name=self.name, trait=self.trait, combat=self.combat,
                             strength=self.strength, vigor=self.vigor, defense=self.defense,
                             reflex=self.reflex, dice=self.dice, ranged=self.ranged,
                             drama=self.drama, drama_tactic=self.drama_tactic, aware=self.aware,
                             range=self.range, plan=self.plan)


class MiddleStyle(_Strict):
    """A fighting style applied to every rung: gear and tactic replaced, stats adjusted."""

    weapon: str | None = None
    drama_tactic: Literal["never", "early", "late"] | None = None
    plan: PlanMiddle | None = None
    adjust: dict[Literal["trait", "combat", "strength", "vigor", "defense", "reflex", "drama"],
                 int] = {}


# ----------------------------------------------------------------- percentile


class PctWeapon(_Strict):
    """DX3–DX5: damage dice, impaling or blunt, firearm (no DB), long-range dice; DX15: a
    firearm's base range in yards (``range``; long and extreme range twice and four times
    it unless ``long_range`` / ``extreme_range`` say otherwise; a firearm without one
    fights only engaged, distance 0), a shotgun's bands
    (``shotgun``: its damage falls to ``long_damage`` and ``extreme_damage``), and
    whether it is a long arm (rifle, shotgun: no point-blank bonus die, DX-g11); ``note``
    and ``source`` say where the figures come from."""

    damage: str
    long_damage: str | None = None
    extreme_damage: str | None = None
    impale: bool
    firearm: bool = False
    range: int | None = Field(default=None, ge=1, le=10_000)
    long_range: int | None = Field(default=None, ge=1, le=10_000)
    extreme_range: int | None = Field(default=None, ge=1, le=10_000)
    shotgun: bool = False
    long_arm: bool = False
    note: str = ""
    source: str = ""


class PctBonusRow(_Strict):
    """DX3: one row of the damage bonus / build table."""

    max: int = Field(ge=2, le=1000)
    bonus: str
    build: int = Field(ge=-2, le=10)


Plan = Literal["charge", "hold", "kite", "cover"]  # engines.distance.PLANS


class PctArchetype(_Strict):
    """A ``percentile`` combatant of the extension (DX1–DX16); ``plan`` and ``mov`` (DX14)
    matter only in a fight that starts apart."""

    name: str
    strength: int = Field(ge=1, le=200)
    con: int = Field(ge=1, le=200)
    siz: int = Field(ge=1, le=200)
    dex: int = Field(ge=1, le=200)
    fighting: int = Field(ge=0, le=100)
    firearms: int = Field(ge=0, le=100)
    dodge: int = Field(ge=0, le=100)
    armour: int = Field(default=0, ge=0, le=20)
    weapon: str
    melee_weapon: str | None = None
    defend: Literal["dodge", "fight_back", "dive_for_cover"] = "dodge"
    shots: int = Field(default=1, ge=1, le=3)
    plan: Plan | None = None
    mov: int | None = Field(default=None, ge=0, le=50)
    weapon_data: pct.Weapon
    melee_data: pct.Weapon | None = None
    db: tuple[int, int, int]

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    def combatant(self) -> pct.Combatant:
        return pct.Combatant(name=self.name, strength=self.strength, con=self.con, siz=self.siz,
                             dex=self.dex, fighting=self.fighting, firearms=self.firearms,
                             dodge=self.dodge, armour=self.armour, weapon=self.weapon_data,
                             melee_weapon=self.melee_data, defend=self.defend, shots=self.shots,
                             db=self.db, plan=self.plan, mov=self.mov)


class PctStyle(_Strict):
    """A fighting style applied to every rung: gear and defence replaced, stats adjusted."""

    weapon: str | None = None
    melee_weapon: str | None = None
    defend: Literal["dodge", "fight_back", "dive_for_cover"] | None = None
    shots: int | None = Field(default=None, ge=1, le=3)
    armour: int | None = Field(default=None, ge=0, le=20)
    plan: Plan | None = None
    adjust: dict[Literal["strength", "con", "siz", "dex", "fighting", "firearms", "dodge"],
                 int] = {}


# ----------------------------------------------------------------- loading


def _fail(fname: str, key: str, msg: str):
    raise InputError(f"{fname}: {key}: {msg}")


def _validate(model, data: dict, fname: str, prefix: str):
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        _fail(fname, f"{prefix}.{loc}" if loc else prefix, err["msg"])


def _table(raw: dict, key: str, fname: str) -> dict:
    value = raw.get(key)
    if not isinstance(value, dict) or not value:
        _fail(fname, key, "missing or empty table")
    return value


def _resolve(archetypes: dict, fname: str) -> dict[str, dict]:
    """Merge each archetype with its ``base`` chain (the archetype's own keys win)."""
    out: dict[str, dict] = {}

    def resolve(name: str, seen: tuple[str, ...]) -> dict:
        if name in out:
            return out[name]
        entry = archetypes[name]
        if not isinstance(entry, dict):
            _fail(fname, f"archetypes.{name}", "expected a table")
        base = entry.get("base")
        merged: dict = {}
        if base is not None:
            if base not in archetypes:
                _fail(fname, f"archetypes.{name}.base", f"unknown archetype {base!r}; known: "
                      f"{', '.join(sorted(archetypes))}")
            if base in seen:
                _fail(fname, f"archetypes.{name}.base", f"cycle through {base!r}")
            merged.update(resolve(base, (*seen, name)))
        merged.update({k: v for k, v in entry.items() if k != "base"})
        out[name] = merged
        return merged

    for name in archetypes:
        resolve(name, ())
    return out


def _levelled(raw: dict, fname: str, style_model) -> dict[str, dict]:
    """The resolved archetypes, then every style at every ladder rung the file defines
    (``LEVEL_STYLE``): the rung's fields with the style's ``adjust`` added and its other
    keys replacing. (The project's files define all five rungs.)"""
    out = _resolve(_table(raw, "archetypes", fname), fname)
    rungs = [r for r in LADDER if r in out]
    styles = raw.get("styles") or {}
    if not isinstance(styles, dict):
        _fail(fname, "styles", "expected a table")
    for sname, data in styles.items():
        style = _validate(style_model, data, fname, f"styles.{sname}")
        changes = style.model_dump(exclude={"adjust"}, exclude_none=True)
        for rung in rungs:
            base = out[rung]
            fields = {**base, **changes}
            for key, delta in style.adjust.items():
                if not isinstance(base.get(key), int):
                    _fail(fname, f"styles.{sname}.adjust.{key}",
                          f"archetypes.{rung}.{key} is not an integer")
                fields[key] = base[key] + delta
            name = f"{rung}_{sname}"
            if name in out:
                _fail(fname, f"styles.{sname}", f"name {name!r} clashes with an archetype")
            out[name] = fields
    return out


def parse_dice(text: str, fname: str, key: str, flat_ok: bool = False) -> tuple[int, int, int]:
    """``"2D6+4"`` → (2, 6, 4); with ``flat_ok`` also ``"-2"`` → (0, 0, -2)."""
    if not isinstance(text, str):
        _fail(fname, key, f"expected a dice string like '1D6+1', got {text!r}")
    m = _DICE.match(text)
    if m:
        n, sides = int(m.group(1)), int(m.group(2))
        flat = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if not 1 <= n <= 10 or not 2 <= sides <= 100:
            _fail(fname, key, f"dice {text!r} out of range (1..10 dice of 2..100 sides)")
        return n, sides, flat
    m = _FLAT.match(text) if flat_ok else None
    if m:
        return 0, 0, int(m.group(1))
    _fail(fname, key, f"cannot read dice {text!r}; expected e.g. '1D8', '2D6+4'"
          + (" or a number" if flat_ok else ""))
    raise AssertionError  # unreachable


def _load_middle(raw: dict, fname: str) -> dict[str, MiddleArchetype]:
    cats = {k: _validate(MiddleCategory, v, fname, f"categories.{k}")
            for k, v in _table(raw, "categories", fname).items()}
    for k, cat in cats.items():
        if cat.ranged and cat.range is None:
            _fail(fname, f"categories.{k}.range", "a ranged category needs the metres of "
                  "one range increment (BT-g2)")
    weapons = _table(raw, "weapons", fname)
    for w, cat in weapons.items():
        if cat not in cats:
            _fail(fname, f"weapons.{w}", f"unknown category {cat!r}; known: "
                  f"{', '.join(sorted(cats))}")
    out = {}
    for name, data in _levelled(raw, fname, MiddleStyle).items():
        data = dict(data)
        w = data.get("weapon")
        if w not in weapons:
            _fail(fname, f"archetypes.{name}.weapon", f"unknown weapon {w!r}; known: "
                  f"{', '.join(sorted(weapons))}")
        cat = cats[weapons[w]]
        data.update(name=name, dice="".join(sorted(set(cat.dice), key="mCM".index)),
                    ranged=cat.ranged, range=cat.range or 9)
        out[name] = _validate(MiddleArchetype, data, fname, f"archetypes.{name}")
    return out


def _load_percentile(raw: dict, fname: str) -> dict[str, PctArchetype]:
    rows = raw.get("damage_bonus")
    if not isinstance(rows, list) or not rows:
        _fail(fname, "damage_bonus", "missing or empty array of tables")
    table = []
    for k, row in enumerate(rows):
        r = _validate(PctBonusRow, row, fname, f"damage_bonus[{k}]")
        n, sides, flat = parse_dice(r.bonus, fname, f"damage_bonus[{k}].bonus", flat_ok=True)
        if table and r.max <= table[-1][0]:
            _fail(fname, f"damage_bonus[{k}].max", "rows must be in ascending order of max")
        table.append((r.max, n, sides, flat, r.build))
    weapons = {}
    for w, data in _table(raw, "weapons", fname).items():
        wm = _validate(PctWeapon, data, fname, f"weapons.{w}")
        n, s, f = parse_dice(wm.damage, fname, f"weapons.{w}.damage")
        ln, ls, lf = (parse_dice(wm.long_damage, fname, f"weapons.{w}.long_damage")
                      if wm.long_damage else (n, s, f))
        xn, xs, xf = (parse_dice(wm.extreme_damage, fname, f"weapons.{w}.extreme_damage")
                      if wm.extreme_damage else (n, s, f))
        if not wm.firearm and any(x is not None for x in (wm.range, wm.long_range,
                                                          wm.extreme_range)):
            _fail(fname, f"weapons.{w}.range", "only a firearm has a range (DX15); melee "
                  "reaches melee_reach (DX-g9)")
        try:
            weapons[w] = pct.Weapon(name=w, n=n, sides=s, flat=f, impale=wm.impale,
                                    firearm=wm.firearm, adds_db=not wm.firearm, long_n=ln,
                                    long_sides=ls, long_flat=lf, base_range=wm.range or 0,
                                    long_range=wm.long_range, extreme_range=wm.extreme_range,
                                    shotgun=wm.shotgun, long_arm=wm.long_arm, extreme_n=xn,
                                    extreme_sides=xs, extreme_flat=xf)
        except InputError as exc:
            _fail(fname, f"weapons.{w}", str(exc))
    out = {}
    for name, data in _levelled(raw, fname, PctStyle).items():
        data = dict(data)
        for key in ("weapon", "melee_weapon"):
            w = data.get(key)
            if (key == "weapon" or w is not None) and w not in weapons:
                _fail(fname, f"archetypes.{name}.{key}", f"unknown weapon {w!r}; known: "
                      f"{', '.join(sorted(weapons))}")
        melee = data.get("melee_weapon")
        if melee is not None and weapons[melee].firearm:
            _fail(fname, f"archetypes.{name}.melee_weapon", f"{melee!r} is a firearm")
        for key in ("strength", "siz"):
            if not isinstance(data.get(key), int):
                _fail(fname, f"archetypes.{name}.{key}", "missing or not an integer")
        data.update(name=name, weapon_data=weapons[data["weapon"]],
                    melee_data=weapons[melee] if melee else None,
                    db=pct.damage_bonus(data["strength"] + data["siz"], tuple(table)))
        model = _validate(PctArchetype, data, fname, f"archetypes.{name}")
        if (model.con + model.siz) // 10 < 1:
            _fail(fname, f"archetypes.{name}.con", "CON + SIZ must be at least 10 (DX6)")
        out[name] = model
    return out


#: The library loader of each system this module serves (the two hooks below), by id.
_LOADERS = {"middle_3d10": _load_middle, "percentile": _load_percentile}


def load_library(system: str, path: str | Path | None = None) -> dict:
    """Archetype models of ``system`` (``middle_3d10`` or ``percentile``) by name.

    ``path`` defaults to ``analysis/data/combat/<system>.toml``. Raises
    :class:`~engines.errors.InputError` naming the file and key of the first problem.
    """
    if system not in _LOADERS:
        raise InputError(f"combat library: unknown system {system!r}; known: "
                         f"{', '.join(_LOADERS)}")
    path = Path(path) if path is not None else DATA_DIR / f"{system}.toml"
    fname = path.name
    raw = read_toml(path, "combat library file")
    return _LOADERS[system](raw, fname)


def combatants(system: str, path: str | Path | None = None) -> dict:
    """Engine combatants (plain frozen dataclasses) of ``system`` by archetype name."""
    return {k: v.combatant() for k, v in load_library(system, path).items()}


# ----------------------------------------------------------------- loader hooks
# (engines.system.System.archetype_library)

#: Fields the loader computes; the rest an override or a full trait mapping may set.
#: (``plan`` and ``mov``: DX14, a fight that starts apart; ``range``: BT-g2, computed.)
_COMPUTED = {"name", "dice", "ranged", "range", "weapon_data", "melee_data", "db"}


def _builder(system: str, model: type):
    def build(fname: str, raw: dict, lib: dict, name: str | None, over: dict,
              full: dict | None, label: str):
        allowed = set(model.model_fields) - _COMPUTED
        check_keys(system, over, allowed, label)
        if full is not None:
            check_keys(system, full, allowed, label)
            entry = {**full, **over}
        else:
            entry = {**lib[name].model_dump(exclude=_COMPUTED, exclude_none=True), **over}
        data = copy.deepcopy(raw)
        data["archetypes"] = {**(raw.get("archetypes") or {}), CUSTOM: entry}
        try:
            built = _LOADERS[system](data, fname)[CUSTOM]
        except InputError as exc:
            raise rewrite(exc, fname, system, label) from None
        return built.model_copy(update={"name": name or label}).combatant()

    return build


def _middle_ranged(raw: dict, name: str) -> bool:
    """B8: a weapon names its category, and the category says whether it fires at range
    (the firearms; the engine then adds the ranged damage bonus, ⌊Combat/4⌋)."""
    category = (raw.get("weapons") or {}).get(name)
    entry = (raw.get("categories") or {}).get(category) if isinstance(category, str) else None
    return isinstance(entry, dict) and entry.get("ranged", False) is True


def _percentile_ranged(raw: dict, name: str) -> bool:
    """DX5: the data file has no ``ranged`` flag; a weapon is ranged when it is a firearm
    (``firearm = true``: the engine's ranged attack, rolled with Firearms, no fighting
    back or dodging, the readied firearm's DEX + 50, no damage bonus). docs/RULES.md,
    "Melee and ranged weapons"."""
    entry = (raw.get("weapons") or {}).get(name)
    return isinstance(entry, dict) and entry.get("firearm", False) is True


MIDDLE_3D10 = ArchetypeHook(
    system="middle_3d10", load=lambda fname, raw: _load_middle(raw, fname),
    build=_builder("middle_3d10", MiddleArchetype), to_engine=lambda m: m.combatant(),
    tactic_values=lambda: {t: t for t in mid.TACTICS}, tactic_field="drama_tactic",
    armour="none", no_armour_hint=" (Defense is a stat: set defense)", weapon_rule="B8",
    weapon_ranged=_middle_ranged)

#: Armour levels tried for ``percentile`` (DX11 armour points; the data has no table).
PERCENTILE_ARMOUR = (0, 1, 2, 4, 6, 8)

PERCENTILE = ArchetypeHook(
    system="percentile", load=lambda fname, raw: _load_percentile(raw, fname),
    build=_builder("percentile", PctArchetype), to_engine=lambda m: m.combatant(),
    tactic_values=lambda: {t: t for t in pct.DEFENCES}, tactic_field="defend",
    armour="points", armour_points=PERCENTILE_ARMOUR, weapon_rule="DX3", armour_rule="DX11",
    weapon_ranged=_percentile_ranged)
