"""``dice_pool_6`` combat data: cover, attack orders and deaths; the kernel row (``C_*``)
and rule array (``R_*``) layouts; :class:`Variants`, :class:`Weapon`, :class:`Combatant`
and their kernel rows (:func:`row`, :func:`rows`). The rules they encode are in the
package docstring."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines.combat_pools import check_variants
from engines.errors import InputError
from engines.fight import AFTERMATHS
from engines.systems.dice_pool_6 import checks as _checks
from engines.variants import variant

SYSTEM = _checks.SYSTEM

COVER = ("none", "partial", "full")
COVER_DICE = (-2, 1, 2)  # C12
ORDERS = ("random_round", "random_fight", "side0_first")

C_ATT = 0      # attack pool (C1, C5)
C_DEF = 1      # dodge pool (C11)
C_DMG = 2      # weapon damage bonus (C11)
C_HEALTH = 3   # health (C6)
C_DEATH = 4    # damage that kills, -1: never
C_RANGED = 5   # 1: attacks at range (C12 applies to its targets)
C_COVER = 6    # dice this combatant's dodge gets against ranged attacks (C12)
C_SPLIT = 7    # 1: splits its pool among all able enemies (C13)
C_WP = 8       # willpower (C6; no use in fights)
C_START = 9    # damage already taken when the fight starts (campaign attrition)
N_COLS = 10

R_MIN_DAMAGE, R_TIE_NEEDS_SUCCESS, R_ORDER, R_TARGET_FIRST = 5, 6, 7, 8
R_AFTERMATH, R_HELPLESS_FULL, R_FINISH_ROUNDS = 9, 10, 11
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2
DEATHS = ("double_health", "never", "at_health")


@dataclass(frozen=True)
class Variants(_checks.Variants):
    """Combat variants of ``dice_pool_6``: the check variants (C-g1..C-g4) plus these."""

    system: ClassVar[str] = SYSTEM
    tie_needs_success: bool = variant(False, rule="C10", doc="a 0-0 tie is a miss (true) "
                                      "or, literally, the challenger's win (false)",
                                      term="the 0-0 tie rule")
    order: str = variant("random_round", rule="C11", doc="who attacks first: a fresh random "
                         "order each round, one random order per fight, or side 0 first "
                         "(the seed gives no initiative)", choices=ORDERS,
                         term="the attack order",
                         words={"random_round": "random each round",
                                "random_fight": "random once a fight",
                                "side0_first": "fighter A first"})
    death: str = variant("double_health", rule="C-g5", doc="the seed has no death: dead when "
                         "the damage reaches twice the health (V5: a full track of "
                         "superficial damage upgrades to aggravated, all aggravated kills a "
                         "mortal), never, or at the health (every hit aggravated)",
                         choices=DEATHS,
                         term="the death rule",
                         words={"double_health": "at twice the health", "never": "never",
                                "at_health": "at the health"})
    targeting: str = variant("random", rule="C13", doc="N-vs-M: each attack picks a random "
                             "able enemy, or the first able one (focus fire)",
                             choices=("random", "first"),
                             term="the choice of target",
                             words={"random": "a random enemy",
                                    "first": "the first enemy (focus fire)"})
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="what happens to the "
                             "fallen when a conflict is won: leave them, first aid (C-g6: no "
                             "rule, changes nothing), or the winners finish them (C-g7)",
                             choices=AFTERMATHS,
                             term="the aftermath policy",
                             words={"leave": "no one helps", "first_aid": "first aid",
                                    "finish": "the winners finish the fallen"})
    helpless_dodge: str = variant("zero", rule="C-g7", doc="dodge pool of a fallen, helpless "
                                  "target: zero (0 dice) or its full pool",
                                  choices=("zero", "full"),
                                  term="a helpless target's dodge pool",
                                  words={"zero": "zero", "full": "its full pool"})
    finish_rounds: int = variant(10, rule="C-g7", doc="rounds the winners spend finishing "
                                 "fallen foes (one attack each a round)",
                                 choices=range(1, 101),
                                 term="the finishing rounds")


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon: its damage bonus (C11; +0..+4, an assumption) and whether it shoots."""

    name: str
    damage: int = 0
    ranged: bool = False


UNARMED = Weapon("unarmed", 0)


@dataclass(frozen=True)
class Combatant:
    """A ``dice_pool_6`` combatant (plain values only)."""

    name: str
    attack_attribute: int
    attack_skill: int
    dodge_attribute: int
    dodge_skill: int
    stamina: int
    composure: int = 2
    resolve: int = 2
    specialty: bool = False
    weapon: Weapon = UNARMED
    cover: str = "none"
    split: bool = False

    def check(self) -> None:
        for trait in ("attack_attribute", "attack_skill", "dodge_attribute", "dodge_skill",
                      "stamina", "composure", "resolve"):
            value = getattr(self, trait)
            if not 0 <= value <= 10:
                raise InputError(f"{self.name}: {trait} must be 0..10, got {value}")
        if self.cover not in COVER:
            raise InputError(f"{self.name}: unknown cover {self.cover!r}; known: "
                             + ", ".join(COVER))
        if not 0 <= self.weapon.damage <= 10:
            raise InputError(f"{self.name}: weapon damage must be 0..10, got "
                             f"{self.weapon.damage}")

    @property
    def attack_pool(self) -> int:
        """C1 + C5: attribute + skill (+1 specialty)."""
        return self.attack_attribute + self.attack_skill + _checks.SPECIALTY_DICE * self.specialty

    @property
    def dodge_pool(self) -> int:
        return self.dodge_attribute + self.dodge_skill

    @property
    def health(self) -> int:
        """C6: Stamina + 3."""
        return self.stamina + _checks.HEALTH_BONUS

    @property
    def willpower(self) -> int:
        """C6: Composure + Resolve."""
        return self.composure + self.resolve


def row(c: Combatant, v: Variants = DEFAULT) -> np.ndarray:
    """The kernel row of one combatant (layout: ``C_*``)."""
    c.check()
    r = np.zeros(N_COLS, dtype=np.int64)
    r[C_ATT] = c.attack_pool
    r[C_DEF] = c.dodge_pool
    r[C_DMG] = c.weapon.damage
    r[C_HEALTH] = c.health
    r[C_DEATH] = {"double_health": 2 * c.health, "at_health": c.health, "never": -1}[v.death]
    r[C_RANGED] = int(c.weapon.ranged)
    r[C_COVER] = COVER_DICE[COVER.index(c.cover)]
    r[C_SPLIT] = int(c.split)
    r[C_WP] = c.willpower
    return r


def rows(combatants: list[Combatant], v: Variants = DEFAULT) -> np.ndarray:
    return np.stack([row(c, v) for c in combatants])


def _rule(v: Variants) -> np.ndarray:
    extra = [int(v.min_damage), int(v.tie_needs_success), ORDERS.index(v.order),
             int(v.targeting == "first"), AFTERMATHS.index(v.aftermath),
             int(v.helpless_dodge == "full"), v.finish_rounds]
    return np.concatenate([v.rule().as_array(), np.array(extra, dtype=np.int64)])


def _variants(variants) -> Variants:
    return check_variants(variants, Variants, DEFAULT, __package__)
