"""The archetype library of ``percentile`` (RULES.md DX1–DX16): ``archetypes.toml`` → the
engine's :class:`~engines.systems.percentile.combat.Combatant`.

The combat it describes is an EXTENSION (RULES.md GAP D-g3): Call of Cthulhu 7th
edition combat, not from the seed. :data:`HOOK` is the
:class:`~engines.archetype_library.ArchetypeHook` that ``PLUGIN.combat.archetypes`` names
(``"engines.systems.percentile.archetypes:HOOK"``), as a plug-in's ``archetypes.py`` is.
The data file (``archetypes.toml`` beside this module) holds the DX3 damage-bonus table,
the weapons (DX3–DX5, DX15), the archetypes of the common competence ladder (untrained …
master; an entry may name a ``base``) and the fighting styles applied to every rung, in
the layout of :mod:`engines.archetype_library.chain` (``competent_shooter``), and the
numbers of the extension's formulas as rule tables (:data:`CONSTANTS`: ``health``
DX6/DX7, ``movement`` DX14, ``ranges`` DX15, ``initiative`` DX1; a file without one
keeps the extension's numbers). Every field is validated; an error names the file and
the key. The models convert to the engine's plain frozen dataclass with
``.combatant()``, which carries the rule tables' numbers.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, PrivateAttr

from engines.archetype_library import ArchetypeHook
from engines.archetype_library.chain import Strict, builder, fail, levelled, table, validate
from engines.constants import PLANS
from engines.errors import InputError
from engines.systems.percentile import combat as pct

__all__ = [
    "ARMOUR_POINTS",
    "CONSTANTS",
    "DATA_FILE",
    "HOOK",
    "PctArchetype",
    "constants",
    "load",
    "parse_dice",
    "weapon_ranged",
]

#: the library's data file
DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")
_DICE = re.compile(r"^\s*(\d+)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")
_FLAT = re.compile(r"^\s*([+-]?\d+)\s*$")


class PctWeapon(Strict):
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


class PctBonusRow(Strict):
    """DX3: one row of the damage bonus / build table."""

    max: int = Field(ge=2, le=1000)
    bonus: str
    build: int = Field(ge=-2, le=10)


class PctHitPoints(Strict):
    """DX6: hit points = ⌊(CON + SIZ) / ``divisor``⌋."""

    divisor: int = Field(ge=1, le=100)
    note: str = ""


class PctMajorWound(Strict):
    """DX7: a major wound is one hit dealing at least the maximum hit points /
    ``divisor``."""

    divisor: int = Field(ge=1, le=10)
    note: str = ""


class PctMov(Strict):
    """DX14: MOV ``slow`` when STR and DEX are both below SIZ, ``fast`` when both are
    above, else ``even``."""

    slow: int = Field(ge=0, le=50)
    even: int = Field(ge=0, le=50)
    fast: int = Field(ge=0, le=50)
    note: str = ""


class PctPointBlank(Strict):
    """DX15: point-blank within DEX / ``dex_per_foot`` feet."""

    dex_per_foot: int = Field(ge=1, le=100)
    note: str = ""


class PctBands(Strict):
    """DX15: a firearm's long range defaults to ``long`` × its base range, its extreme
    range to ``extreme`` × it."""

    long: int = Field(ge=1, le=100)
    extreme: int = Field(ge=1, le=100)
    note: str = ""


class PctReady(Strict):
    """DX1: a readied firearm acts at DEX + ``bonus``."""

    bonus: int = Field(ge=0, le=200)
    note: str = ""


#: The rule tables of the extension's formulas, each ``(table, entry, model, fields)``
#: with ``fields`` mapping a field to the Combatant / Weapon field it sets; a table or
#: entry the file lacks keeps the engine's default (the extension's number).
CONSTANTS = (
    ("health", "hit_points", PctHitPoints, {"divisor": "hp_divisor"}),
    ("health", "major_wound", PctMajorWound, {"divisor": "major_divisor"}),
    ("movement", "mov", PctMov, {"slow": "mov_slow", "even": "mov_even", "fast": "mov_fast"}),
    ("ranges", "point_blank", PctPointBlank, {"dex_per_foot": "point_blank_dex"}),
    ("ranges", "bands", PctBands, {"long": "long_factor", "extreme": "extreme_factor"}),
    ("initiative", "readied_firearm", PctReady, {"bonus": "ready_bonus"}),
)
#: the fields of :data:`CONSTANTS` a weapon carries (the rest: the combatant)
_WEAPON_FIELDS = ("long_factor", "extreme_factor")


def constants(fname: str, raw: dict) -> dict[str, int]:
    """The numbers of the file's rule tables (:data:`CONSTANTS`) as engine field values:
    ``{field: value}``, only those the file gives; an error names the file and the key."""
    out: dict[str, int] = {}
    names = {t for t, *_ in CONSTANTS}
    for tname in names:
        value = raw.get(tname)
        if value is None:
            continue
        if not isinstance(value, dict):
            fail(fname, tname, "expected a table of entries")
        known = [e for t, e, *_ in CONSTANTS if t == tname]
        for entry in value:
            if entry not in known:
                fail(fname, f"{tname}.{entry}", "unknown entry; known: " + ", ".join(known))
    for tname, entry, model, fields in CONSTANTS:
        data = (raw.get(tname) or {}).get(entry)
        if data is None:
            continue
        if not isinstance(data, dict):
            fail(fname, f"{tname}.{entry}", "expected a table of fields")
        m = validate(model, data, fname, f"{tname}.{entry}")
        out.update({field: getattr(m, key) for key, field in fields.items()})
    if out.get("mov_slow", 7) > out.get("mov_even", 8) or out.get("mov_even", 8) > out.get(
        "mov_fast", 9
    ):
        fail(fname, "movement.mov", "expected slow <= even <= fast (DX14)")
    if out.get("long_factor", 2) > out.get("extreme_factor", 4):
        fail(fname, "ranges.bands", "expected long <= extreme (DX15)")
    return out


Plan = Literal[PLANS]  # engines.constants.PLANS


class PctArchetype(Strict):
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
    #: the rule tables' numbers (:func:`constants`) the engine combatant carries
    _rules: dict = PrivateAttr(default_factory=dict)

    def combatant(self) -> pct.Combatant:
        rules = {k: v for k, v in self._rules.items() if k not in _WEAPON_FIELDS}
        return pct.Combatant(
            **rules,
            name=self.name,
            strength=self.strength,
            con=self.con,
            siz=self.siz,
            dex=self.dex,
            fighting=self.fighting,
            firearms=self.firearms,
            dodge=self.dodge,
            armour=self.armour,
            weapon=self.weapon_data,
            melee_weapon=self.melee_data,
            defend=self.defend,
            shots=self.shots,
            db=self.db,
            plan=self.plan,
            mov=self.mov,
        )


class PctStyle(Strict):
    """A fighting style applied to every rung: gear and defence replaced, stats adjusted."""

    weapon: str | None = None
    melee_weapon: str | None = None
    defend: Literal["dodge", "fight_back", "dive_for_cover"] | None = None
    shots: int | None = Field(default=None, ge=1, le=3)
    armour: int | None = Field(default=None, ge=0, le=20)
    plan: Plan | None = None
    adjust: dict[Literal["strength", "con", "siz", "dex", "fighting", "firearms", "dodge"], int] = (
        Field(default_factory=dict)
    )


def parse_dice(text: str, fname: str, key: str, flat_ok: bool = False) -> tuple[int, int, int]:
    """``"2D6+4"`` → (2, 6, 4); with ``flat_ok`` also ``"-2"`` → (0, 0, -2)."""
    if not isinstance(text, str):
        fail(fname, key, f"expected a dice string like '1D6+1', got {text!r}")
    m = _DICE.match(text)
    if m:
        n, sides = int(m.group(1)), int(m.group(2))
        flat = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
        if not 1 <= n <= 10 or not 2 <= sides <= 100:
            fail(fname, key, f"dice {text!r} out of range (1..10 dice of 2..100 sides)")
        return n, sides, flat
    m = _FLAT.match(text) if flat_ok else None
    if m:
        return 0, 0, int(m.group(1))
    fail(
        fname,
        key,
        f"cannot read dice {text!r}; expected e.g. '1D8', '2D6+4'"
        + (" or a number" if flat_ok else ""),
    )
    raise AssertionError  # unreachable


def load(fname: str, raw: dict) -> dict[str, PctArchetype]:
    """The library of the parsed data file ``raw`` (named ``fname`` in errors):
    ``{name: PctArchetype}``, every field validated (DX3 damage bonus table, DX3–DX5
    and DX15 weapons, DX6 hit points, the rule tables of :data:`CONSTANTS`)."""
    rules = constants(fname, raw)
    bands = {k: rules[k] for k in _WEAPON_FIELDS if k in rules}
    rows = raw.get("damage_bonus")
    if not isinstance(rows, list) or not rows:
        fail(fname, "damage_bonus", "missing or empty array of tables")
    bonus_table = []
    for k, row in enumerate(rows):
        r = validate(PctBonusRow, row, fname, f"damage_bonus[{k}]")
        n, sides, flat = parse_dice(r.bonus, fname, f"damage_bonus[{k}].bonus", flat_ok=True)
        if bonus_table and r.max <= bonus_table[-1][0]:
            fail(fname, f"damage_bonus[{k}].max", "rows must be in ascending order of max")
        bonus_table.append((r.max, n, sides, flat, r.build))
    weapons = {}
    for w, data in table(raw, "weapons", fname).items():
        wm = validate(PctWeapon, data, fname, f"weapons.{w}")
        n, s, f = parse_dice(wm.damage, fname, f"weapons.{w}.damage")
        ln, ls, lf = (
            parse_dice(wm.long_damage, fname, f"weapons.{w}.long_damage")
            if wm.long_damage
            else (n, s, f)
        )
        xn, xs, xf = (
            parse_dice(wm.extreme_damage, fname, f"weapons.{w}.extreme_damage")
            if wm.extreme_damage
            else (n, s, f)
        )
        if not wm.firearm and any(
            x is not None for x in (wm.range, wm.long_range, wm.extreme_range)
        ):
            fail(
                fname,
                f"weapons.{w}.range",
                "only a firearm has a range (DX15); melee reaches melee_reach (DX-g9)",
            )
        try:
            weapons[w] = pct.Weapon(
                name=w,
                n=n,
                sides=s,
                flat=f,
                impale=wm.impale,
                firearm=wm.firearm,
                adds_db=not wm.firearm,
                long_n=ln,
                long_sides=ls,
                long_flat=lf,
                base_range=wm.range or 0,
                long_range=wm.long_range,
                extreme_range=wm.extreme_range,
                shotgun=wm.shotgun,
                long_arm=wm.long_arm,
                extreme_n=xn,
                extreme_sides=xs,
                extreme_flat=xf,
                **bands,
            )
        except InputError as exc:
            fail(fname, f"weapons.{w}", str(exc))
    out = {}
    for name, data in levelled(raw, fname, PctStyle).items():
        data = dict(data)
        for key in ("weapon", "melee_weapon"):
            w = data.get(key)
            if (key == "weapon" or w is not None) and w not in weapons:
                fail(
                    fname,
                    f"archetypes.{name}.{key}",
                    f"unknown weapon {w!r}; known: {', '.join(sorted(weapons))}",
                )
        melee = data.get("melee_weapon")
        if melee is not None and weapons[melee].firearm:
            fail(fname, f"archetypes.{name}.melee_weapon", f"{melee!r} is a firearm")
        for key in ("strength", "siz"):
            if not isinstance(data.get(key), int):
                fail(fname, f"archetypes.{name}.{key}", "missing or not an integer")
        data.update(
            name=name,
            weapon_data=weapons[data["weapon"]],
            melee_data=weapons[melee] if melee else None,
            db=pct.damage_bonus(data["strength"] + data["siz"], tuple(bonus_table)),
        )
        model = validate(PctArchetype, data, fname, f"archetypes.{name}")
        model._rules = rules
        div = rules.get("hp_divisor", 10)
        if (model.con + model.siz) // div < 1:
            fail(fname, f"archetypes.{name}.con", f"CON + SIZ must be at least {div} (DX6)")
        out[name] = model
    return out


def weapon_ranged(raw: dict, name: str) -> bool:
    """DX5: the data file has no ``ranged`` flag; a weapon is ranged when it is a firearm
    (``firearm = true``: the engine's ranged attack, rolled with Firearms, no fighting
    back or dodging, the readied firearm's DEX + 50, no damage bonus). docs/RULES.md,
    "Melee and ranged weapons"."""
    entry = (raw.get("weapons") or {}).get(name)
    return isinstance(entry, dict) and entry.get("firearm", False) is True


#: Armour levels tried for ``percentile`` (DX11 armour points; the data has no table).
ARMOUR_POINTS = (0, 1, 2, 4, 6, 8)

HOOK = ArchetypeHook(
    system="percentile",
    load=load,
    build=builder("percentile", PctArchetype, load),
    to_engine=lambda m: m.combatant(),
    tactic_values=lambda: {t: t for t in pct.DEFENCES},
    tactic_field="defend",
    armour="points",
    armour_points=ARMOUR_POINTS,
    weapon_rule="DX3",
    armour_rule="DX11",
    weapon_ranged=weapon_ranged,
    data_file=DATA_FILE,
    tables=(
        ("weapon", "weapons", "DX3"),
        ("damage_bonus", "damage_bonus", "DX3"),
        ("health", "health", "DX6"),
        ("movement", "movement", "DX14"),
        ("ranges", "ranges", "DX15"),
        ("initiative", "initiative", "DX1"),
    ),
)
