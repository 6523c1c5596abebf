"""The archetype library of ``dice_pool_6`` (RULES.md C6, C10–C13): ``archetypes.toml`` → the
engine's :class:`~engines.systems.dice_pool_6.combat.Combatant`.

:data:`HOOK` is the :class:`~engines.archetype_library.ArchetypeHook` that
``PLUGIN.combat.archetypes`` names (``"engines.systems.dice_pool_6.archetypes:HOOK"``),
as a plug-in's ``archetypes.py`` is. The data file (``archetypes.toml`` beside this
module) holds the C11 weapons (the seed has no armour rules), the ``levels`` of the
competence ladder (untrained … master), the fighting ``styles`` and single
``[archetypes.NAME]`` entries, in the levels × styles layout of
:mod:`engines.archetype_library.grid`: every rung is an archetype of its own name (in the
file's ``level_style``), every style at every rung an archetype ``LEVEL_STYLE``
(``competent_swordsman``). :func:`load` validates every field
with pydantic and returns the engine's own frozen combatants, so the combat engine never
sees a pydantic model.

Errors are :class:`~engines.errors.InputError` naming the file and the key, e.g.
``archetypes.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ...``.

The rule tables (``HOOK.tables``, what ``rpg-balance rules dice_pool_6`` prints and
``rules.KIND.ENTRY.FIELD`` knobs edit): ``weapon`` (C11) and the constants of the rules'
formulas — ``health.track`` (C6: health = Stamina + ``base``), ``attack.specialty`` (C5:
``dice``), ``cover.none`` / ``cover.partial`` / ``cover.full`` (C12: the dodge's ``dice``
against a shot), ``dodge.outnumbered`` (C13: the ``dice`` a dodge loses per earlier
attack in the round). A data file without them has the seed's values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from engines.archetype_library import ArchetypeHook
from engines.archetype_library.grid import Model, builder, checked, grid, lookup, parse
from engines.constants import PLANS

__all__ = ["DATA_FILE", "HOOK", "TACTICS", "load"]

#: the library's data file
DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")

Trait6 = Field(ge=0, le=10)


class DicePool6Weapon(Model):
    damage: int = Field(ge=0, le=10)
    ranged: bool = False
    assumption: bool = False
    note: str = ""


class DicePool6Track(Model):
    """C6: health = Stamina + ``base``."""

    base: int = Field(ge=1, le=20)
    note: str = ""


class DicePool6Health(Model):
    track: DicePool6Track


class DicePool6Dice(Model):
    dice: int = Field(ge=-5, le=5)
    note: str = ""


class DicePool6Specialty(Model):
    dice: int = Field(ge=0, le=5)
    note: str = ""


class DicePool6Attack(Model):
    """C5: the dice a specialty adds."""

    specialty: DicePool6Specialty


class DicePool6Cover(Model):
    """C12: the dice a dodge gets against a shot in each cover."""

    none: DicePool6Dice
    partial: DicePool6Dice
    full: DicePool6Dice


class DicePool6Outnumbered(Model):
    dice: int = Field(ge=0, le=5)
    note: str = ""


class DicePool6Dodge(Model):
    """C13: the dice a dodge loses per earlier attack on the defender in the round."""

    outnumbered: DicePool6Outnumbered


#: The seed's constants when a data file has no table of them (C6, C5, C12, C13).
SEED_HEALTH = {"track": {"base": 3}}
SEED_ATTACK = {"specialty": {"dice": 1}}
SEED_COVER = {"none": {"dice": -2}, "partial": {"dice": 1}, "full": {"dice": 2}}
SEED_DODGE = {"outnumbered": {"dice": 1}}


class DicePool6Level(Model):
    attack_attribute: int = Trait6
    attack_skill: int = Trait6
    dodge_attribute: int = Trait6
    dodge_skill: int = Trait6
    stamina: int = Trait6
    composure: int = Trait6
    resolve: int = Trait6
    specialty: bool = False


Cover6 = Literal["none", "partial", "full"]
#: engines.constants.PLANS (CT1); the engine refuses cover with a melee weapon
Plan6 = Literal[PLANS]


class DicePool6Style(Model):
    weapon: str
    cover: Cover6 = "none"
    split: bool = False
    plan: Plan6 | None = None


class DicePool6Archetype(Model):
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


class DicePool6File(Model):
    weapons: dict[str, DicePool6Weapon]
    levels: dict[str, DicePool6Level]
    styles: dict[str, DicePool6Style]
    level_style: str
    archetypes: dict[str, DicePool6Archetype] = Field(default_factory=dict)
    health: DicePool6Health = DicePool6Health.model_validate(SEED_HEALTH)
    attack: DicePool6Attack = DicePool6Attack.model_validate(SEED_ATTACK)
    cover: DicePool6Cover = DicePool6Cover.model_validate(SEED_COVER)
    dodge: DicePool6Dodge = DicePool6Dodge.model_validate(SEED_DODGE)


def load(file: str, data: dict) -> dict:
    """The library of the parsed data file ``data`` (named ``file`` in errors):
    ``{name: Combatant}``, every field validated."""
    from engines.systems.dice_pool_6 import combat as eng

    spec = parse(file, DicePool6File, data)
    cover_dice = (spec.cover.none.dice, spec.cover.partial.dice, spec.cover.full.dice)

    def build(
        name: str, where: str, level: DicePool6Level, style: DicePool6Style, over: dict
    ) -> eng.Combatant:
        fields = {**level.model_dump(), **style.model_dump(), **over}
        w = lookup(file, f"{where}.weapon", "weapon", fields["weapon"], spec.weapons)
        c = eng.Combatant(
            name,
            fields["attack_attribute"],
            fields["attack_skill"],
            fields["dodge_attribute"],
            fields["dodge_skill"],
            fields["stamina"],
            fields["composure"],
            fields["resolve"],
            fields["specialty"],
            eng.Weapon(fields["weapon"], w.damage, w.ranged),
            fields["cover"],
            fields["split"],
            fields["plan"],
            health_base=spec.health.track.base,
            specialty_dice=spec.attack.specialty.dice,
            cover_dice=cover_dice,
            crowd_dice=spec.dodge.outnumbered.dice,
        )
        return checked(file, where, c)

    return grid(file, spec, build)


#: C13 tactics: attack one enemy, or split the pool among all of them.
TACTICS = {"focus": False, "split": True}

HOOK = ArchetypeHook(
    system="dice_pool_6",
    load=load,
    build=builder("dice_pool_6", load, DicePool6Archetype, DicePool6Level, DicePool6Style),
    tactic_values=lambda: dict(TACTICS),
    tactic_field="split",
    armour="none",
    weapon_rule="C11",
    data_file=DATA_FILE,
    tables=(
        ("weapon", "weapons", "C11"),
        ("health", "health", "C6"),
        ("attack", "attack", "C5"),
        ("cover", "cover", "C12"),
        ("dodge", "dodge", "C13"),
    ),
)
