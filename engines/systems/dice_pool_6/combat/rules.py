"""``dice_pool_6`` combat data: cover, attack orders and deaths; distance bands and plans
(CT1, CT-g1, CT-g2); the kernel row (``C_*``) and rule array (``R_*``) layouts;
:class:`Variants`, :class:`Weapon`, :class:`Combatant` and their kernel rows (:func:`row`,
:func:`rows`); one fighter's turn at a distance (:func:`turn_step`). The rules they encode
are in the package docstring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engines.combat_pools import check_variants
from engines.constants import AFTERMATHS, RULE_DATA
from engines.distance import COVER as COVER_PLAN
from engines.distance import KITE, MAX_DISTANCE, check_distance, check_plan, plan_code
from engines.errors import InputError
from engines.systems.dice_pool_6 import checks as _checks
from engines.variants import variant

SYSTEM = _checks.SYSTEM

COVER = ("none", "partial", "full")
COVER_DICE = (-2, 1, 2)  # C12 (the seed's; a combatant carries its own, cover_dice)
#: CT-g2: the cover a ``cover`` plan reaches (the seed's "+1 ou +2 caso haja")
COVER_TAKEN = ("partial", "full")
ORDERS = ("random_round", "random_fight", "side0_first")

C_ATT = 0  # attack pool (C1, C5)
C_DEF = 1  # dodge pool (C11)
C_DMG = 2  # weapon damage bonus (C11)
C_HEALTH = 3  # health (C6)
C_DEATH = 4  # damage that kills, -1: never
C_RANGED = 5  # 1: attacks at range (C12 applies to its targets)
C_COVER = 6  # dice this combatant's dodge gets against ranged attacks (C12)
C_SPLIT = 7  # 1: splits its pool among all able enemies (C13)
C_WP = 8  # willpower (C6; no use in fights)
C_START = 9  # damage already taken when the fight starts (campaign attrition)
C_PLAN = 10  # engines.distance.PLANS index (CT1)
C_TAKEN = 11  # dice its dodge gets against ranged attacks once it has taken cover (CT-g2)
C_CROWD = 12  # dice its dodge loses per earlier attack on it in the round (C13)
N_COLS = 13

R_MIN_DAMAGE, R_TIE_NEEDS_SUCCESS, R_ORDER, R_TARGET_FIRST = 5, 6, 7, 8
R_AFTERMATH, R_HELPLESS_FULL, R_FINISH_ROUNDS = 9, 10, 11
R_DISTANCE, R_REACH, R_CLOSE, R_MEDIUM = 12, 13, 14, 15
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2
DEATHS = ("double_health", "never", "at_health")


@dataclass(frozen=True)
class Variants(_checks.Variants):
    """Combat variants of ``dice_pool_6``: the check variants (C-g1..C-g4) plus these."""

    system: ClassVar[str] = SYSTEM
    tie_needs_success: bool = variant(
        False,
        rule="C10",
        doc="a 0-0 tie is a miss (true) or, literally, the challenger's win (false)",
        term="the 0-0 tie rule",
    )
    order: str = variant(
        "random_round",
        rule="C11",
        doc="who attacks first: a fresh random "
        "order each round, one random order per fight, or side 0 first "
        "(the rules text gives no initiative)",
        choices=ORDERS,
        term="the attack order",
        words={
            "random_round": "random each round",
            "random_fight": "random once a fight",
            "side0_first": "fighter A first",
        },
    )
    death: str = variant(
        "double_health",
        rule="C-g5",
        doc="the rules text has no death: dead when "
        "the damage reaches twice the health (V5: a full track of "
        "superficial damage upgrades to aggravated, all aggravated kills a "
        "mortal), never, or at the health (every hit aggravated)",
        choices=DEATHS,
        term="the death rule",
        words={
            "double_health": "at twice the health",
            "never": "never",
            "at_health": "at the health",
        },
    )
    targeting: str = variant(
        "random",
        rule="C13",
        doc="N-vs-M: each attack picks a random able enemy, or the first able one (focus fire)",
        choices=("random", "first"),
        term="the choice of target",
        words={"random": "a random enemy", "first": "the first enemy (focus fire)"},
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="what happens to the "
        "fallen when a conflict is won: leave them, first aid (C-g6: no "
        "rule, changes nothing), or the winners finish them (C-g7)",
        choices=AFTERMATHS,
        term="the aftermath policy",
        words={
            "leave": "no one helps",
            "first_aid": "first aid",
            "finish": "the winners finish the fallen",
        },
    )
    helpless_dodge: str = variant(
        "zero",
        rule="C-g7",
        doc="dodge pool of a fallen, helpless target: zero (0 dice) or its full pool",
        choices=("zero", "full"),
        term="a helpless target's dodge pool",
        words={"zero": "zero", "full": "its full pool"},
    )
    finish_rounds: int = variant(
        10,
        rule="C-g7",
        doc="rounds the winners spend finishing fallen foes (one attack each a round)",
        choices=range(1, 101),
        term="the finishing rounds",
    )
    distance: int = variant(
        0,
        rule="CT1",
        doc="metres between the two sides when the "
        "fight starts (0: engaged, as in the fights without distance)",
        term="the starting distance",
    )
    close_band: int = variant(
        13,
        rule="CT-g1",
        doc="metres within which a fighter closes "
        "on its foe (or a kiter steps away from one) and still attacks "
        "in the same turn (V20: a character may move half its running "
        "speed, 20 + 3 x Dexterity, and act; Dexterity 2: 13 m)",
        term="the close band",
    )
    medium_band: int = variant(
        26,
        rule="CT-g1",
        doc="metres a turn of running covers: "
        "from beyond the close band up to this, closing takes one "
        "turn in which the mover does not attack; farther, each such "
        "turn closes this many metres (V20 running speed, 20 + 3 x "
        "Dexterity; Dexterity 2: 26 m)",
        term="the medium band",
    )
    melee_reach: int = variant(
        1,
        rule="CT-g1",
        doc="metres within which a melee attack reaches (engaged: within one metre after a move)",
        choices=(0, 1, 2, 3),
        term="the melee reach",
    )
    cover_taken: str = variant(
        "partial",
        rule="CT-g2",
        doc="the cover a fighter with the "
        "plan cover reaches after the turn it spends taking it: "
        "partial (+1 die against ranged attacks) or full (+2); never "
        "less than the cover it stood in",
        choices=COVER_TAKEN,
        term="the cover a fighter takes",
        words={"partial": "partial cover (+1 die)", "full": "full cover (+2 dice)"},
    )

    def check(self) -> None:
        """CT1: the starting distance is whole metres 0..200; CT-g1: the close band is
        whole metres of at least one, the medium band at least the close band."""
        check_distance(self.distance)
        hi = 10 * MAX_DISTANCE
        for name, lo in (("close_band", 1), ("medium_band", self.close_band)):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
                raise InputError(f"variant {name}: expected whole metres {lo}..{hi}, got {val!r}")


DEFAULT = Variants()

#: Why a melee fighter cannot follow the plan ``cover`` (Combatant.check)
COVER_NEEDS_RANGED = (
    "plan 'cover' takes cover, then shoots (CT1, C12: cover counts "
    "only against ranged attacks), so it needs a ranged weapon; a melee "
    "fighter charges or holds"
)


@dataclass(frozen=True)
class Weapon:
    """A weapon: its damage bonus (C11; +0..+4, an assumption) and whether it shoots."""

    name: str
    damage: int = 0
    ranged: bool = False


UNARMED = Weapon("unarmed", 0)


@dataclass(frozen=True)
class Combatant:
    """A ``dice_pool_6`` combatant (plain values only).

    The last fields are the rules' constants as the data file gives them (rule data,
    ``rpg-balance rules dice_pool_6``; the defaults are the seed's): C6's health Stamina
    + ``health_base`` (``health.track``), C5's ``specialty_dice`` (``attack.specialty``)
    and C12's ``cover_dice``, the dodge dice against a shot in no, partial and full
    cover (``cover.none`` / ``cover.partial`` / ``cover.full``), and C13's
    ``crowd_dice``, the dodge dice lost per earlier attack on it in the round
    (``dodge.outnumbered``)."""

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
    plan: str | None = None
    health_base: int = field(default=3, metadata={RULE_DATA: "health.track.base"})
    specialty_dice: int = field(default=1, metadata={RULE_DATA: "attack.specialty.dice"})
    cover_dice: tuple[int, int, int] = field(
        default=COVER_DICE, metadata={RULE_DATA: "cover.*.dice"}
    )
    crowd_dice: int = field(default=1, metadata={RULE_DATA: "dodge.outnumbered.dice"})

    def check(self) -> None:
        for trait in (
            "attack_attribute",
            "attack_skill",
            "dodge_attribute",
            "dodge_skill",
            "stamina",
            "composure",
            "resolve",
        ):
            value = getattr(self, trait)
            if not 0 <= value <= 10:
                raise InputError(f"{self.name}: {trait} must be 0..10, got {value}")
        if self.cover not in COVER:
            raise InputError(
                f"{self.name}: unknown cover {self.cover!r}; known: " + ", ".join(COVER)
            )
        if not 0 <= self.weapon.damage <= 10:
            raise InputError(f"{self.name}: weapon damage must be 0..10, got {self.weapon.damage}")
        _plan_in_force(self)
        for name in ("health_base", "specialty_dice", "crowd_dice"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(
                    f"{self.name}: {name} must be a whole number of 0 or more, got {value!r}"
                )
        if self.health < 1:
            raise InputError(f"{self.name}: health must be at least 1, got {self.health}")
        if len(self.cover_dice) != len(COVER):
            raise InputError(
                f"{self.name}: cover_dice needs one number for each of " + ", ".join(COVER)
            )

    @property
    def plan_in_force(self) -> str:
        """The plan it follows (CT1): its own, else hold with a ranged weapon and charge
        with any other (engines.distance.default_plan); ``cover`` only with a ranged
        weapon."""
        return _plan_in_force(self)

    @property
    def attack_pool(self) -> int:
        """C1 + C5: attribute + skill (+1 specialty, ``specialty_dice``)."""
        return self.attack_attribute + self.attack_skill + self.specialty_dice * self.specialty

    @property
    def dodge_pool(self) -> int:
        return self.dodge_attribute + self.dodge_skill

    @property
    def health(self) -> int:
        """C6: Stamina + 3 (``health_base``)."""
        return self.stamina + self.health_base

    @property
    def cover_bonus(self) -> int:
        """C12: the dice its dodge gets against a ranged attack in its own cover (−2 in
        none, +1 partial, +2 full: ``cover_dice``)."""
        return self.cover_dice[COVER.index(self.cover)]

    @property
    def willpower(self) -> int:
        """C6: Composure + Resolve."""
        return self.composure + self.resolve


def _plan_in_force(c: Combatant) -> str:
    plan = check_plan(c.plan, c.name, ranged=c.weapon.ranged)
    if plan == "cover" and not c.weapon.ranged:
        raise InputError(f"{c.name}: {COVER_NEEDS_RANGED}")
    return plan


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
    r[C_COVER] = c.cover_bonus
    r[C_SPLIT] = int(c.split)
    r[C_WP] = c.willpower
    r[C_PLAN] = plan_code(c.plan_in_force, c.weapon.ranged)
    r[C_TAKEN] = taken_cover_dice(c, v)
    r[C_CROWD] = c.crowd_dice
    return r


def rows(combatants: list[Combatant], v: Variants = DEFAULT) -> np.ndarray:
    return np.stack([row(c, v) for c in combatants])


def taken_cover_dice(c: Combatant, v: Variants) -> int:
    """CT-g2: the dice a ``cover`` plan's fighter gets against ranged attacks once it has
    taken cover: the variant ``cover_taken``'s, never fewer than its own cover's (C12)."""
    return max(c.cover_bonus, c.cover_dice[COVER.index(v.cover_taken)])


def turn_step(
    plan: int, ranged: bool, covered: bool, d: int, foe_melee: bool, v: Variants
) -> tuple[bool, bool, int]:
    """CT1, CT-g1, CT-g2: one fighter's turn in a duel at distance ``d`` metres, before its
    attack: ``(attacks, covered after, distance after)``. ``plan`` is its
    engines.distance.PLANS code, ``covered`` whether it has taken cover (plan ``cover``),
    ``foe_melee`` whether its foe fights in melee. Each fighter has one action a turn (the
    seed's conflicts: one attack each):

    - ``cover``: its first turn takes cover (no attack); then it shoots from there.
    - A ranged weapon shoots from where it stands (the seed gives no range penalty:
      ``charge`` and ``hold`` are the same); a kiter whose melee foe is within the close
      band (it could close and strike next turn) first steps the close band away (a step
      that leaves its action), then shoots.
    - A melee weapon (``charge`` and ``hold`` alike: its reach is its only band) attacks
      a foe within ``melee_reach``; within ``close_band`` it closes to its reach and still
      attacks; farther it runs up to ``medium_band`` metres toward its reach (no attack):
      from the medium band (up to ``medium_band``) closing takes that one turn (CT-g1),
      from farther one such turn more for each ``medium_band`` metres.

    The same steps as the Monte Carlo kernel's (``kernel._act``) for one foe."""
    if plan == COVER_PLAN and not covered:
        return False, True, d
    if ranged:
        if plan == KITE and foe_melee and d <= v.close_band:
            d += v.close_band
        return True, covered, d
    reach = v.melee_reach
    if d <= reach:
        return True, covered, d
    if d <= v.close_band:
        return True, covered, reach
    return False, covered, d - min(v.medium_band, d - reach)


def rule_array(v: Variants) -> np.ndarray:
    """The kernel's rule array of ``v``: the pool rule, then the combat switches
    (``R_*`` indexes)."""
    extra = [
        int(v.min_damage),
        int(v.tie_needs_success),
        ORDERS.index(v.order),
        int(v.targeting == "first"),
        AFTERMATHS.index(v.aftermath),
        int(v.helpless_dodge == "full"),
        v.finish_rounds,
        v.distance,
        v.melee_reach,
        v.close_band,
        v.medium_band,
    ]
    return np.concatenate([v.rule().as_array(), np.array(extra, dtype=np.int64)])


def as_variants(variants) -> Variants:
    """Checked :class:`Variants` of an object, a mapping or ``NAME=VALUE`` text (None: the
    defaults)."""
    v = check_variants(variants, Variants, DEFAULT, __package__)
    v.check()
    return v
