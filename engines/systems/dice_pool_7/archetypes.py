"""The archetype library of ``dice_pool_7`` (RULES.md A7–A16): ``archetypes.toml`` → the
engine's :class:`~engines.systems.dice_pool_7.combat.Combatant`.

:data:`HOOK` is the :class:`~engines.archetype_library.ArchetypeHook` that
``PLUGIN.combat.archetypes`` names (``"engines.systems.dice_pool_7.archetypes:HOOK"``),
as a plug-in's ``archetypes.py`` is. The data file (``archetypes.toml`` beside this
module) holds the A11 weapons, the A13 armour, the ``levels`` of the competence ladder
(untrained … master), the fighting ``styles`` and single ``[archetypes.NAME]`` entries,
in the levels × styles layout of :mod:`engines.archetype_library.grid`: every rung is an
archetype of its own name (in the file's ``level_style``), every style at every rung an
archetype ``LEVEL_STYLE`` (``competent_swordsman``). :func:`load` validates every field
with pydantic and returns the engine's own frozen combatants, so the combat engine never
sees a pydantic model.

Errors are :class:`~engines.errors.InputError` naming the file and the key, e.g.
``archetypes.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from engines.archetype_library import ArchetypeHook
from engines.archetype_library.grid import Model, builder, checked, grid, lookup, parse
from engines.constants import PLANS

__all__ = ["DATA_FILE", "HOOK", "load"]

#: the library's data file
DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")

Attr = Field(ge=1, le=10)


class DicePool7Weapon(Model):
    bonus: int = Field(ge=0, le=5)
    initiative: int = Field(0, ge=-5, le=5)
    defense: int = Field(0, ge=-5, le=5)
    damage_type: Literal["bashing", "lethal", "ballistic"]
    ranged: bool = False
    automatic: bool = False
    range: Literal["short", "long"] = "short"
    note: str = ""
    source: str = ""


class DicePool7Armour(Model):
    lethal: int = Field(0, ge=0, le=10)
    ballistic: int = Field(0, ge=0, le=10)
    move: int = Field(0, ge=-10, le=0)
    note: str = ""


class DicePool7Level(Model):
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
#: engines.constants.PLANS; the engine refuses the ones dice_pool_7 has no rule for
Plan7 = Literal[PLANS]
Willpower7 = Literal["none", "attack_early", "attack_late", "defense_early", "defense_late"]
Burst7 = Literal["none", "short", "medium", "long"]


class DicePool7Style(Model):
    weapon: str
    armour: str = "none"
    shield: bool = False
    tactic: Tactic7 = "attack_attack"
    willpower: Willpower7 = "none"
    burst: Burst7 = "none"
    plan: Plan7 | None = None


class DicePool7Archetype(Model):
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


class DicePool7File(Model):
    weapons: dict[str, DicePool7Weapon]
    armour: dict[str, DicePool7Armour]
    levels: dict[str, DicePool7Level]
    styles: dict[str, DicePool7Style]
    level_style: str
    archetypes: dict[str, DicePool7Archetype] = Field(default_factory=dict)


def load(file: str, data: dict) -> dict:
    """The library of the parsed data file ``data`` (named ``file`` in errors):
    ``{name: Combatant}``, every field validated."""
    from engines.systems.dice_pool_7 import combat as eng

    spec = parse(file, DicePool7File, data)

    def build(name: str, where: str, level: DicePool7Level, style: DicePool7Style,
              over: dict) -> eng.Combatant:
        fields = {**level.model_dump(), **style.model_dump(), **over}
        w = lookup(file, f"{where}.weapon", "weapon", fields["weapon"], spec.weapons)
        a = lookup(file, f"{where}.armour", "armour", fields["armour"], spec.armour)
        weapon = eng.Weapon(fields["weapon"], w.bonus, w.initiative, w.defense, w.damage_type,
                            w.ranged, w.automatic, w.range)
        armour = eng.Armour(fields["armour"] + ("+shield" if fields["shield"] else ""),
                            a.lethal, a.ballistic, 1 if fields["shield"] else 0, a.move)
        c = eng.Combatant(name, fields["FOR"], fields["DES"], fields["SAB"], fields["CON"],
                          fields["DET"], fields["AUT"], weapon, armour, fields["specialized"],
                          fields["athletics"], fields["quality"], fields["burst"],
                          fields["tactic"], fields["willpower"], fields["plan"])
        return checked(file, where, c)

    return grid(file, spec, build)


def _tactics() -> dict:
    """A6: the action pairs (the ``tactic`` override's values are the engine's own)."""
    from engines.systems.dice_pool_7 import combat as eng

    return {t: t for t in eng.TACTICS}


HOOK = ArchetypeHook(
    system="dice_pool_7", load=load,
    build=builder("dice_pool_7", load, DicePool7Archetype, DicePool7Level, DicePool7Style),
    tactic_values=_tactics, tactic_field="tactic", armour="names",
    weapon_rule="A11", armour_rule="A13", data_file=DATA_FILE)
