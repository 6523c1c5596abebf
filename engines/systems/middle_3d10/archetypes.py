"""The archetype library of ``middle_3d10`` (RULES.md B1, B4, B6–B10): ``archetypes.toml``
→ the engine's :class:`~engines.systems.middle_3d10.combat.Combatant`.

:data:`HOOK` is the :class:`~engines.archetype_library.ArchetypeHook` that
``PLUGIN.combat.archetypes`` names (``"engines.systems.middle_3d10.archetypes:HOOK"``),
as a plug-in's ``archetypes.py`` is. The data file (``archetypes.toml`` beside this
module) holds the weapon categories (B8: the dice a category adds as damage, BT-g2: the
metres of a ranged category's range increment), the weapons, the archetypes of the
common competence ladder (untrained … master; an entry may name a ``base``) and the
fighting styles (brawler, swordsman, shooter, armoured) applied to every rung, in the
layout of :mod:`engines.archetype_library.chain`: ``competent_swordsman`` is the
competent rung in the swordsman style. Every field is validated; an error names the file
and the key, e.g. ``archetypes.toml: archetypes.expert.weapon: unknown weapon 'lazer';
known: ...``. The models convert to the engine's plain frozen dataclass with
``.combatant()`` (the combat engine never sees a pydantic model).

The numbers of the seed's formulas are rule tables of the file too (:func:`rule_data`):
``damage.bonus.divisor`` (B8, 4), ``defense.flat_footed.penalty`` (B6, 3),
``health.wounds.wounded_penalty`` / ``incapacitated_penalty`` (B9, 2 / 5) and
``health.massive_damage.difficulty`` (B10, 12); every combatant built from the file
carries them into the engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr

from engines.archetype_library import ArchetypeHook
from engines.archetype_library.chain import Strict, builder, fail, levelled, table, validate
from engines.constants import PLANS
from engines.systems.middle_3d10 import combat as mid

__all__ = [
    "DATA_FILE",
    "HOOK",
    "RULE_DATA",
    "MiddleArchetype",
    "load",
    "rule_data",
    "weapon_ranged",
]

#: the library's data file
DATA_FILE = Path(__file__).resolve().with_name("archetypes.toml")


class MiddleCategory(Strict):
    """B8: the damage dice of a weapon category and whether it fires at range; BT-g2: the
    metres of one range increment of a ranged category (and where the figure is from)."""

    dice: list[Literal["m", "C", "M"]] = Field(min_length=1, max_length=3)
    ranged: bool
    range: int | None = Field(None, ge=1, le=2000)
    source: str = ""


class _RuleEntry(Strict):
    """An entry of a rule table: named numbers, the words citing its rule."""

    note: str = ""
    source: str = ""


def _number(lo: int, hi: int):
    return Field(strict=True, ge=lo, le=hi)


class DamageBonus(_RuleEntry):
    """B8: the damage bonus ⌊(FOR + Combat)/divisor⌋ in melee, ⌊Combat/divisor⌋ at range."""

    divisor: int = _number(1, 20)


class FlatFooted(_RuleEntry):
    """B6: the Defense a combatant loses until it has acted."""

    penalty: int = _number(0, 20)


class Wounds(_RuleEntry):
    """B9: the penalty on attacks and Defense while wounded / incapacitated (the latter
    also a dying target's Defense loss, B-g12)."""

    wounded_penalty: int = _number(0, 20)
    incapacitated_penalty: int = _number(0, 20)


class MassiveDamage(_RuleEntry):
    """B10: the difficulty of the massive-damage check."""

    difficulty: int = _number(1, 40)


class DamageRules(Strict):
    bonus: DamageBonus


class DefenseRules(Strict):
    flat_footed: FlatFooted


class HealthRules(Strict):
    wounds: Wounds
    massive_damage: MassiveDamage


#: the rule tables of numbers: (data-file table, model, the Combatant field of each
#: entry.field)
RULE_DATA = (
    ("damage", DamageRules, {"bonus.divisor": "bonus_divisor"}),
    ("defense", DefenseRules, {"flat_footed.penalty": "flat_footed"}),
    (
        "health",
        HealthRules,
        {
            "wounds.wounded_penalty": "wounded_penalty",
            "wounds.incapacitated_penalty": "incapacitated_penalty",
            "massive_damage.difficulty": "massive_difficulty",
        },
    ),
)


def rule_data(fname: str, raw: dict) -> dict[str, int]:
    """The numbers of the rule tables ``damage``, ``defense``, ``health`` (B6, B8–B10) as
    :class:`~engines.systems.middle_3d10.combat.Combatant` fields, each validated (an
    error names the file and the key, e.g. ``archetypes.toml: health.wounds.wounded_penalty:
    Input should be greater than or equal to 0``). A file without one of these tables
    (an older library file) keeps the seed's numbers, the engine's defaults."""
    out: dict[str, int] = {}
    for key, model, fields in RULE_DATA:
        if key not in raw:  # a library file without the table: the seed's numbers
            continue
        data = validate(model, table(raw, key, fname), fname, key)
        for path, name in fields.items():
            entry, field = path.split(".")
            out[name] = getattr(getattr(data, entry), field)
    return out


#: engines.constants.PLANS; the engine refuses the ones middle_3d10 has no rule for
PlanMiddle = Literal[PLANS]


class MiddleArchetype(Strict):
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
    #: the rule data of the file (:func:`rule_data`), set by :func:`load`
    _rules: dict = PrivateAttr(default_factory=dict)

    def combatant(self) -> mid.Combatant:
        return mid.Combatant(
            **self._rules,
            name=self.name,
            trait=self.trait,
            combat=self.combat,
            strength=self.strength,
            vigor=self.vigor,
            defense=self.defense,
            reflex=self.reflex,
            dice=self.dice,
            ranged=self.ranged,
            drama=self.drama,
            drama_tactic=self.drama_tactic,
            aware=self.aware,
            range=self.range,
            plan=self.plan,
        )


class MiddleStyle(Strict):
    """A fighting style applied to every rung: gear and tactic replaced, stats adjusted."""

    weapon: str | None = None
    drama_tactic: Literal["never", "early", "late"] | None = None
    plan: PlanMiddle | None = None
    adjust: dict[
        Literal["trait", "combat", "strength", "vigor", "defense", "reflex", "drama"], int
    ] = Field(default_factory=dict)


def load(fname: str, raw: dict) -> dict[str, MiddleArchetype]:
    """The library of the parsed data file ``raw`` (named ``fname`` in errors):
    ``{name: MiddleArchetype}``, every field validated (B8: a weapon's category gives its
    dice and whether it fires at range)."""
    cats = {
        k: validate(MiddleCategory, v, fname, f"categories.{k}")
        for k, v in table(raw, "categories", fname).items()
    }
    for k, cat in cats.items():
        if cat.ranged and cat.range is None:
            fail(
                fname,
                f"categories.{k}.range",
                "a ranged category needs the metres of one range increment (BT-g2)",
            )
    rules = rule_data(fname, raw)
    weapons = table(raw, "weapons", fname)
    for w, cat in weapons.items():
        if cat not in cats:
            fail(
                fname, f"weapons.{w}", f"unknown category {cat!r}; known: {', '.join(sorted(cats))}"
            )
    out = {}
    for name, data in levelled(raw, fname, MiddleStyle).items():
        data = dict(data)
        w = data.get("weapon")
        if w not in weapons:
            fail(
                fname,
                f"archetypes.{name}.weapon",
                f"unknown weapon {w!r}; known: {', '.join(sorted(weapons))}",
            )
        cat = cats[weapons[w]]
        data.update(
            name=name,
            dice="".join(sorted(set(cat.dice), key="mCM".index)),
            ranged=cat.ranged,
            range=cat.range or 9,
        )
        out[name] = validate(MiddleArchetype, data, fname, f"archetypes.{name}")
        out[name]._rules = rules
    return out


def weapon_ranged(raw: dict, name: str) -> bool:
    """B8: a weapon names its category, and the category says whether it fires at range
    (the firearms; the engine then adds the ranged damage bonus, ⌊Combat/4⌋)."""
    category = (raw.get("weapons") or {}).get(name)
    entry = (raw.get("categories") or {}).get(category) if isinstance(category, str) else None
    return isinstance(entry, dict) and entry.get("ranged", False) is True


HOOK = ArchetypeHook(
    system="middle_3d10",
    load=load,
    build=builder("middle_3d10", MiddleArchetype, load),
    to_engine=lambda m: m.combatant(),
    tactic_values=lambda: {t: t for t in mid.TACTICS},
    tactic_field="drama_tactic",
    armour="none",
    no_armour_hint=" (Defense is a stat: set defense)",
    weapon_rule="B8",
    weapon_ranged=weapon_ranged,
    data_file=DATA_FILE,
    tables=(
        ("category", "categories", "B8"),
        ("weapon", "weapons", "B8"),
        ("damage", "damage", "B8"),
        ("defense", "defense", "B6"),
        ("health", "health", "B9"),
    ),
)
