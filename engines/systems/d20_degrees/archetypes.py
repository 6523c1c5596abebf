"""The archetype library of ``d20_degrees``: gear and archetypes as data (RULES.md E10–E17).

:data:`HOOK` is the :class:`~engines.archetype_library.ArchetypeHook` that
``PLUGIN.combat.archetypes`` names (``"engines.systems.d20_degrees.archetypes:HOOK"``),
as a plug-in's ``archetypes.py`` is. :func:`load` validates the parsed data file
(``archetypes.toml`` beside this module, or another) with pydantic and returns
``{name: Combatant}``: one entry per ladder rung (``untrained`` … ``master``) and one per
rung × style (``expert_brawler``).
:meth:`Combatant.to_engine` turns an entry into the engine's frozen
:class:`engines.systems.d20_degrees.combat.Fighter` (plain integers), composing:

- E11 attack bonus: Fighting + Close Combat (melee) or Dexterity + Ranged Combat (ranged);
- E12 attack base: Strength + weapon damage (``adds_strength``) or the weapon's rank;
- Toughness: Stamina + armour; hit points (GAP E-g2) an explicit stat;
- E10 initiative: Agility; ties by Dodge, Agility, Awareness;
- a fight that starts apart (ET1–ET3, ET-g2): the fighter's ``plan`` (default by weapon),
  its ranged weapon's ``range`` bands and Athletics (Strength + Athletics ranks);
- the numbers of the seed's formulas, rule tables of the file like the gear
  (:meth:`LibraryFile.rule_numbers`): ``damage.resistance.offset`` (E12, 15),
  ``damage.critical.bonus`` (E3, 5), ``health.instant_death.degrees`` (E13, 3),
  ``health.dying.dc`` (E14, 15), ``health.recovery.hit_points`` / ``defence`` (E15,
  5 / 2), carried by every fighter built from the file.

Every error is an :class:`engines.errors.InputError` naming the file and the key, e.g.
``d20_degrees.toml: archetypes.expert.weapon: unknown weapon 'lazer'; known: ...``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from engines.archetype_library import LADDER, ArchetypeHook, check_gear, check_keys, validation
from engines.constants import PLANS
from engines.errors import InputError
from engines.systems.d20_degrees.combat import HERO_USES, MANEUVERS, Fighter

__all__ = ["DATA_FILE", "HOOK", "Combatant", "LibraryFile", "RuleNumbers", "load"]

#: the library's data file
DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")

Stat = Field(ge=-10, le=40)
ManeuverName = Literal["none", "accurate", "power", "all_out", "defensive"]
HeroUse = Literal["none", "attack", "resist"]
STATS = (
    "strength",
    "stamina",
    "agility",
    "dexterity",
    "fighting",
    "awareness",
    "close_combat",
    "ranged_combat",
    "parry",
    "dodge",
    "fortitude",
    "deception",
    "insight",
    "athletics",
)
PlanName = Literal[PLANS]

assert set(MANEUVERS) == set(ManeuverName.__args__)  # one list of names, two views
assert set(HERO_USES) == set(HeroUse.__args__)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Weapon(_Strict):
    """E12 attack base: ``damage`` (+ Strength when ``adds_strength``); E11 ``ranged``;
    ET-g2 ``range``: the short, medium and long range bands of a ranged weapon (metres)."""

    damage: int = Field(ge=-5, le=30)
    adds_strength: bool
    ranged: bool
    source: str
    range: list[int] | None = None

    @model_validator(mode="after")
    def _bands(self):
        if self.ranged and self.range is None:
            raise ValueError("a ranged weapon needs range = [short, medium, long] metres (ET-g2)")
        if not self.ranged and self.range is not None:
            raise ValueError("range is for ranged weapons only (ET-g2)")
        r = self.range
        if r is not None and (len(r) != 3 or not 0 < r[0] <= r[1] <= r[2] <= 100_000):
            raise ValueError(f"range must be three metres, short ≤ medium ≤ long, got {r}")
        return self


class Armour(_Strict):
    """Added to Toughness (E12 resistance roll)."""

    toughness: int = Field(ge=0, le=30)
    source: str


class StatBlock(_Strict):
    """One ladder rung: abilities, skills, defences, hit points (E-g2) and tactics."""

    strength: int = Stat
    stamina: int = Stat
    agility: int = Stat
    dexterity: int = Stat
    fighting: int = Stat
    awareness: int = Stat
    close_combat: int = Stat
    ranged_combat: int = Stat
    parry: int = Stat
    dodge: int = Stat
    fortitude: int = Stat
    hit_points: int = Field(ge=1, le=500)
    hero_points: int = Field(ge=0, le=10)
    hero_use: HeroUse
    maneuver: ManeuverName
    extra_effort: int = Field(ge=0, le=2)
    recover_at: int = Field(ge=0, le=500)
    weapon: str
    armour: str
    deception: int = Field(default=0, ge=-10, le=40)
    insight: int = Field(default=0, ge=-10, le=40)
    feint: bool = False  # E16 feint tactic (engine gap E-g15)
    plan: PlanName | None = None  # ET1–ET3: None is the default by weapon
    athletics: int = Field(default=0, ge=-10, le=40)  # ET1 dash: ranks over Strength


class Style(_Strict):
    """Replaces gear and tactics of a rung and adds ``adjust`` to its stats."""

    weapon: str | None = None
    armour: str | None = None
    maneuver: ManeuverName | None = None
    hero_use: HeroUse | None = None
    feint: bool | None = None
    adjust: dict[str, int] = {}


class _RuleEntry(_Strict):
    """An entry of a rule table: named numbers, the words citing its rule."""

    note: str = ""
    source: str = ""


class ResistanceOffset(_RuleEntry):
    """E12: damage = attack base + excess degrees + ``offset`` (15) − (Toughness + d20)."""

    offset: int = Field(ge=0, le=40)


class CriticalDamage(_RuleEntry):
    """E3 on attacks: a critical hit's extra damage (5)."""

    bonus: int = Field(ge=0, le=30)


class DamageRules(_Strict):
    resistance: ResistanceOffset
    critical: CriticalDamage


class InstantDeath(_RuleEntry):
    """E13: the degrees of a failed resistance that kill an incapacitated target (3)."""

    degrees: int = Field(ge=1, le=10)


class Dying(_RuleEntry):
    """E14: the DC of a dying fighter's Fortitude check (15)."""

    dc: int = Field(ge=1, le=40)


class Recovery(_RuleEntry):
    """E15: the hit points (5) and the active-defence bonus until the next turn (2) the
    recovery action gives."""

    hit_points: int = Field(ge=0, le=100)
    defence: int = Field(ge=0, le=20)


class HealthRules(_Strict):
    instant_death: InstantDeath
    dying: Dying
    recovery: Recovery


class RuleNumbers(_Strict):
    """The rule data every fighter of the file carries (:class:`Fighter` fields)."""

    damage_offset: int
    crit_damage: int
    instant_death_degrees: int
    dying_dc: int
    recovery_hp: int
    recovery_defence: int


#: a fighter with the engine's defaults: the seed's numbers
_SEED = Fighter(attack=0, damage=0, toughness=0, parry=0, dodge=0, fortitude=0, hit_points=1)


class Meta(_Strict):
    system: Literal["d20_degrees"]


class LibraryFile(_Strict):
    meta: Meta
    weapons: dict[str, Weapon]
    armour: dict[str, Armour]
    archetypes: dict[str, StatBlock]
    styles: dict[str, Style] = {}
    damage: DamageRules | None = None
    health: HealthRules | None = None

    def rule_numbers(self) -> RuleNumbers:
        """The numbers of the rule tables as the :class:`Fighter` fields they set (a file
        without a table, an older library file, keeps the seed's numbers: the
        :class:`Fighter` defaults)."""
        out = {k: getattr(_SEED, k) for k in RuleNumbers.model_fields}
        d, h = self.damage, self.health
        if d is not None:
            out.update(damage_offset=d.resistance.offset, crit_damage=d.critical.bonus)
        if h is not None:
            out.update(
                instant_death_degrees=h.instant_death.degrees,
                dying_dc=h.dying.dc,
                recovery_hp=h.recovery.hit_points,
                recovery_defence=h.recovery.defence,
            )
        return RuleNumbers(**out)


class Combatant(_Strict):
    """A ready-to-fight combatant: a stat block with its gear resolved."""

    name: str
    rung: str
    style: str | None
    stats: StatBlock
    weapon: Weapon
    armour: Armour
    rules: RuleNumbers

    def to_engine(self) -> Fighter:
        """The engine's plain-integer :class:`Fighter` (E10, E11, E12, E-g2; ET1–ET3 and
        ET-g2 for a fight that starts apart)."""
        s, w = self.stats, self.weapon
        attack = s.dexterity + s.ranged_combat if w.ranged else s.fighting + s.close_combat
        return Fighter(
            name=self.name,
            attack=attack,
            ranged=w.ranged,
            damage=w.damage + (s.strength if w.adds_strength else 0),
            toughness=s.stamina + self.armour.toughness,
            parry=s.parry,
            dodge=s.dodge,
            fortitude=s.fortitude,
            hit_points=s.hit_points,
            agility=s.agility,
            awareness=s.awareness,
            hero_points=s.hero_points,
            maneuver=s.maneuver,
            hero_use=s.hero_use,
            extra_effort=s.extra_effort,
            recover_at=s.recover_at,
            feint=s.feint,
            deception=s.deception,
            insight=s.insight,
            plan=s.plan,
            ranges=tuple(w.range) if w.range is not None else None,
            athletics=s.strength + s.athletics,
            **self.rules.model_dump(),
        )


def _loc(parts) -> str:
    return ".".join(str(p) for p in parts)


def _validation_message(fname: str, exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = _loc(err["loc"])
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    elif err["type"] == "missing":
        msg = "missing"
    got = "" if err["type"] == "missing" else f" (got {err.get('input')!r})"
    more = len(exc.errors()) - 1
    tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
    return f"{fname}: {where}: {msg}{got}{tail}"


def _known(kind: str, name: Any, table: dict, fname: str, where: str) -> None:
    if name not in table:
        raise InputError(
            f"{fname}: {where}: unknown {kind} {name!r}; known: {', '.join(sorted(table))}"
        )


def load(fname: str, raw: dict) -> dict[str, Combatant]:
    """Validated combatants of the parsed data file ``raw`` (named ``fname`` in errors).

    Keys: each archetype name, and ``"<archetype>_<style>"`` for every style.
    """
    try:
        lib = LibraryFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(_validation_message(fname, exc)) from None
    missing = [r for r in LADDER if r not in lib.archetypes]
    if missing:
        raise InputError(
            f"{fname}: archetypes: missing ladder rung(s) {', '.join(missing)}; "
            f"the ladder is {', '.join(LADDER)}"
        )
    for name, block in lib.archetypes.items():
        _known("weapon", block.weapon, lib.weapons, fname, f"archetypes.{name}.weapon")
        _known("armour", block.armour, lib.armour, fname, f"archetypes.{name}.armour")
    for name, style in lib.styles.items():
        if style.weapon is not None:
            _known("weapon", style.weapon, lib.weapons, fname, f"styles.{name}.weapon")
        if style.armour is not None:
            _known("armour", style.armour, lib.armour, fname, f"styles.{name}.armour")
        for stat in style.adjust:
            if stat not in STATS:
                raise InputError(
                    f"{fname}: styles.{name}.adjust.{stat}: unknown stat; known: {', '.join(STATS)}"
                )
    out: dict[str, Combatant] = {}
    for rung, block in lib.archetypes.items():
        out[rung] = _combatant(rung, rung, None, block, lib)
        for sname, style in lib.styles.items():
            changes: dict[str, Any] = {k: getattr(block, k) + d for k, d in style.adjust.items()}
            for key in ("weapon", "armour", "maneuver", "hero_use", "feint"):
                if getattr(style, key) is not None:
                    changes[key] = getattr(style, key)
            try:
                styled = StatBlock.model_validate({**block.model_dump(), **changes})
            except ValidationError as exc:
                raise InputError(
                    _validation_message(fname, exc).replace(
                        f"{fname}: ", f"{fname}: styles.{sname} on archetypes.{rung}: ", 1
                    )
                ) from None
            key = f"{rung}_{sname}"
            if key in out or key in lib.archetypes:
                raise InputError(f"{fname}: styles.{sname}: name {key!r} clashes with an archetype")
            out[key] = _combatant(key, rung, sname, styled, lib)
    return out


def _combatant(
    name: str, rung: str, style: str | None, block: StatBlock, lib: LibraryFile
) -> Combatant:
    return Combatant(
        name=name,
        rung=rung,
        style=style,
        stats=block,
        weapon=lib.weapons[block.weapon],
        armour=lib.armour[block.armour],
        rules=lib.rule_numbers(),
    )


# ---------------------------------------------------------------------------------------
# the archetype-loader hook (engines.system.Combat.archetypes)


def _build(
    fname: str, raw: dict, lib: dict, name: str | None, over: dict, full: dict | None, label: str
) -> Fighter:
    """One fighter: library entry ``name`` with the stat overrides ``over``, or the full
    stat block ``full``, validated by :class:`StatBlock`."""
    system = "d20_degrees"
    allowed = set(StatBlock.model_fields)
    check_keys(system, over, allowed, label)
    try:
        lib_file = LibraryFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(_validation_message(fname, exc)) from None
    if full is not None:
        check_keys(system, full, allowed, label)
        fields, rung, style = {**full, **over}, "custom", None
    else:
        base = lib[name]
        fields, rung, style = {**base.stats.model_dump(), **over}, base.rung, base.style
    try:
        block = StatBlock.model_validate(fields)
    except ValidationError as exc:
        raise InputError(validation(system, exc).replace(": ", f": {label}.", 1)) from None
    check_gear(
        system,
        {"weapon": block.weapon, "armour": block.armour},
        label,
        list(lib_file.weapons),
        list(lib_file.armour),
    )
    return _combatant(name or label, rung, style, block, lib_file).to_engine()


HOOK = ArchetypeHook(
    system="d20_degrees",
    load=load,
    build=_build,
    to_engine=lambda m: m.to_engine(),
    tactic_values=lambda: {m: m for m in MANEUVERS},
    tactic_field="maneuver",
    armour="names",
    weapon_rule="E12",
    armour_rule="E12",
    data_file=DATA_FILE,
    weapon_of=lambda m: m.stats.weapon,
    tables=(
        ("weapon", "weapons", "E12"),
        ("armour", "armour", "E12"),
        ("damage", "damage", "E12"),
        ("health", "health", "E13"),
    ),
)
