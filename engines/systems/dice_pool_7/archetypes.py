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

The rule tables (``HOOK.tables``, what ``rpg-balance rules dice_pool_7`` prints and
``rules.KIND.ENTRY.FIELD`` knobs edit): ``weapon`` (A11), ``armour`` (A13) and the
constants of the rules' formulas — ``health.vitality`` (A14: ``per_con`` × CON +
``base``), ``movement.deslocamento`` (AT1: FOR + DES + ``base``), ``attack.specialization``
(A7), ``attack.focus`` (A3) and ``attack.willpower`` (A4: ``dice``), ``defense.athletics``,
``defense.shield`` (A8) and ``defense.willpower`` (A4: ``bonus``), ``dodge.pool`` (A9:
``per_defense`` × Defense dice). A data file without them has the seed's values.
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


class DicePool7Vitality(Model):
    """A14: vitality = ``per_con`` × CON + ``base``."""

    per_con: int = Field(ge=0, le=10)
    base: int = Field(ge=1, le=50)
    note: str = ""


class DicePool7Health(Model):
    vitality: DicePool7Vitality


class DicePool7Deslocamento(Model):
    """AT1: Deslocamento = FOR + DES + ``base`` metres a move action."""

    base: int = Field(ge=0, le=50)
    note: str = ""


class DicePool7Movement(Model):
    deslocamento: DicePool7Deslocamento


class DicePool7Dice(Model):
    dice: int = Field(ge=0, le=10)
    note: str = ""


class DicePool7Attack(Model):
    """A7, A3, A4: the dice a weapon specialization, a focus and a willpower point add."""

    specialization: DicePool7Dice
    focus: DicePool7Dice
    willpower: DicePool7Dice


class DicePool7Bonus(Model):
    bonus: int = Field(ge=0, le=10)
    note: str = ""


class DicePool7Defense(Model):
    """A8, A4: the Defense athletics, a shield and a willpower point add."""

    athletics: DicePool7Bonus
    shield: DicePool7Bonus
    willpower: DicePool7Bonus


class DicePool7DodgePool(Model):
    """A9: a dodge rolls ``per_defense`` × Defense dice."""

    per_defense: int = Field(ge=0, le=5)
    note: str = ""


class DicePool7Dodge(Model):
    pool: DicePool7DodgePool


#: The seed's constants when a data file has no table of them (A14, AT1, A7, A8).
SEED_HEALTH = {"vitality": {"per_con": 2, "base": 6}}
SEED_MOVEMENT = {"deslocamento": {"base": 5}}
SEED_ATTACK = {"specialization": {"dice": 2}, "focus": {"dice": 1}, "willpower": {"dice": 3}}
SEED_DEFENSE = {"athletics": {"bonus": 2}, "shield": {"bonus": 1}, "willpower": {"bonus": 2}}
SEED_DODGE = {"pool": {"per_defense": 2}}


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
    health: DicePool7Health = DicePool7Health.model_validate(SEED_HEALTH)
    movement: DicePool7Movement = DicePool7Movement.model_validate(SEED_MOVEMENT)
    attack: DicePool7Attack = DicePool7Attack.model_validate(SEED_ATTACK)
    defense: DicePool7Defense = DicePool7Defense.model_validate(SEED_DEFENSE)
    dodge: DicePool7Dodge = DicePool7Dodge.model_validate(SEED_DODGE)


def load(file: str, data: dict) -> dict:
    """The library of the parsed data file ``data`` (named ``file`` in errors):
    ``{name: Combatant}``, every field validated."""
    from engines.systems.dice_pool_7 import combat as eng

    spec = parse(file, DicePool7File, data)

    def build(
        name: str, where: str, level: DicePool7Level, style: DicePool7Style, over: dict
    ) -> eng.Combatant:
        fields = {**level.model_dump(), **style.model_dump(), **over}
        w = lookup(file, f"{where}.weapon", "weapon", fields["weapon"], spec.weapons)
        a = lookup(file, f"{where}.armour", "armour", fields["armour"], spec.armour)
        weapon = eng.Weapon(
            fields["weapon"],
            w.bonus,
            w.initiative,
            w.defense,
            w.damage_type,
            w.ranged,
            w.automatic,
            w.range,
        )
        shield = spec.defense.shield.bonus if fields["shield"] else 0  # A8
        armour = eng.Armour(
            fields["armour"] + ("+shield" if fields["shield"] else ""),
            a.lethal,
            a.ballistic,
            shield,
            a.move,
        )
        c = eng.Combatant(
            name,
            fields["FOR"],
            fields["DES"],
            fields["SAB"],
            fields["CON"],
            fields["DET"],
            fields["AUT"],
            weapon,
            armour,
            fields["specialized"],
            fields["athletics"],
            fields["quality"],
            fields["burst"],
            fields["tactic"],
            fields["willpower"],
            fields["plan"],
            vitality_per_con=spec.health.vitality.per_con,
            vitality_base=spec.health.vitality.base,
            move_base=spec.movement.deslocamento.base,
            specialization_dice=spec.attack.specialization.dice,
            athletics_defense=spec.defense.athletics.bonus,
            focus_dice=spec.attack.focus.dice,
            willpower_dice=spec.attack.willpower.dice,
            willpower_defense=spec.defense.willpower.bonus,
            dodge_per_defense=spec.dodge.pool.per_defense,
        )
        return checked(file, where, c)

    return grid(file, spec, build)


def _tactics() -> dict:
    """A6: the action pairs (the ``tactic`` override's values are the engine's own)."""
    from engines.systems.dice_pool_7 import combat as eng

    return {t: t for t in eng.TACTICS}


HOOK = ArchetypeHook(
    system="dice_pool_7",
    load=load,
    build=builder("dice_pool_7", load, DicePool7Archetype, DicePool7Level, DicePool7Style),
    tactic_values=_tactics,
    tactic_field="tactic",
    armour="names",
    weapon_rule="A11",
    armour_rule="A13",
    data_file=DATA_FILE,
    tables=(
        ("weapon", "weapons", "A11"),
        ("armour", "armour", "A13"),
        ("health", "health", "A14"),
        ("movement", "movement", "AT1"),
        ("attack", "attack", "A7"),
        ("defense", "defense", "A8"),
        ("dodge", "dodge", "A9"),
    ),
)
