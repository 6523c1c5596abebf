"""``dice_pool_7`` combat data: tactics, willpower policies, damage types and bursts; the
kernel row (``C_*``) and rule array (``R_*``) layouts; :class:`Variants`, :class:`Weapon`,
:class:`Armour`, :class:`Combatant` and their kernel rows (:func:`row`, :func:`rows`).
The rules they encode are in the package docstring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engines.combat_pools import check_variants
from engines.constants import AFTERMATHS, RULE_DATA
from engines.distance import CHARGE, KITE, MAX_DISTANCE, check_distance, check_plan, plan_code
from engines.errors import InputError
from engines.systems.dice_pool_7 import checks as _checks
from engines.variants import variant

SYSTEM = _checks.SYSTEM

TACTICS = ("attack_attack", "attack_dodge", "focus_attack")
WILLPOWER_POLICIES = ("none", "attack_early", "attack_late", "defense_early", "defense_late")
DAMAGE_TYPES = ("bashing", "lethal", "ballistic")
BURSTS = ("none", "short", "medium", "long")
BURST_DICE = (0, 1, 2, 3)  # A12
BURST_TARGETS = (1, 1, 3, 1 << 30)  # A12: medium up to 3 adjacent targets, long any number

ATTACK_ATTACK, ATTACK_DODGE, FOCUS_ATTACK = 0, 1, 2
WP_NONE, WP_ATTACK_EARLY, WP_ATTACK_LATE, WP_DEFENSE_EARLY, WP_DEFENSE_LATE = range(5)
BASHING, LETHAL, BALLISTIC = 0, 1, 2

# Kernel row columns.
C_ATTR = 0  # FOR or DES + 2 for the specialization (A7; specialization_dice)
C_MODS = 1  # weapon bonus (A-g4) + equipment quality (A5), before the A2 cap
C_DMG = 2  # weapon damage (A10)
C_DTYPE = 3  # damage type dealt: 0 bashing, 1 lethal, 2 ballistic
C_DEF = 4  # Defense (A8)
C_INIT = 5  # initiative (A16)
C_VIT = 6  # vitality (A14)
C_DEATH = 7  # lethal damage beyond vitality that kills (= CON), -1: never (A15)
C_WP = 8  # willpower points (A4)
C_ARMOUR = 9  # columns 9, 10, 11: armour against bashing, lethal, ballistic (A13)
C_BURST = 12  # 0 none, 1 short, 2 medium, 3 long (A12)
C_TACTIC = 13  # TACTICS index (A6)
C_WPPOL = 14  # WILLPOWER_POLICIES index (A4)
C_CON = 15  # CON: lethal damage beyond vitality that kills in the aftermath (A15)
C_START = 16  # lethal damage already taken when the fight starts (campaign attrition)
C_MOVE = 17  # Deslocamento, metres a move action covers (AT1, AT2)
C_FIRST = 18  # the weapon's best band: melee reach (AT-g2) or the short range (AT-g1)
C_FAR = 19  # the farthest it attacks: melee reach, or 4 × the short range (AT-g1)
C_PLAN = 20  # engines.distance.PLANS index
C_THREAT = 21  # a melee fighter's reach + one move (what a kiter keeps beyond); -1 ranged
C_FOCUS = 22  # dice a focus adds to the next attack (A3; focus_dice)
C_WP_DICE = 23  # dice a willpower point adds to an attack (A4; willpower_dice)
C_WP_DEF = 24  # Defense a willpower point adds until the next turn (A4; willpower_defense)
C_DODGE = 25  # dice a dodge rolls per point of Defense (A9; dodge_per_defense)
N_COLS = 26

#: AT3 / AT-g1: a ranged weapon's class of range (A11: light "Alcance Curto", heavy
#: "Alcance Longo"); the metres of each class are the variants range_short / range_long.
RANGE_CLASSES = ("short", "long")
#: AT-g1: the bands beyond the first reach to twice and four times it (the published
#: table's short / medium / long), each costing ``range_penalty`` dice more.
BAND_FACTORS = (1, 2, 4)
#: A plan this system has no rule for (engines.distance.check_plan).
NO_PLAN = {
    "cover": "the rules text of dice_pool_7 has no cover rule (its actions, A6/AT1, "
    "are attack, move, dodge, focus, a check)"
}

MODIFIER_CAP = _checks.MODIFIER_CAP


@dataclass(frozen=True)
class Variants(_checks.Variants):
    """Combat variants of ``dice_pool_7``: the check variants (A1, A-g1, A-g2) plus these."""

    system: ClassVar[str] = SYSTEM
    dodge_lasts: str = variant(
        "next_turn",
        rule="A-g3",
        doc="a dodge protects until the "
        "start of the dodger's next turn, or only to the end of the "
        "round",
        choices=("next_turn", "end_of_round"),
        term="how long a dodge lasts",
        words={
            "next_turn": "until the dodger's next turn",
            "end_of_round": "to the end of the round",
        },
    )
    weapon_bonus: str = variant(
        "both",
        rule="A-g4",
        doc="the weapon's +1/+2 adds attack dice and damage (literal), or damage only",
        choices=("both", "damage"),
        term="the weapon bonus rule",
        words={"both": "attack dice and damage", "damage": "damage only"},
    )
    initiative_roll: bool = variant(
        False,
        rule="A-g6",
        doc="initiative adds 1d10 once per fight (Chronicles); default static, ties at random",
        term="the initiative roll",
    )
    overflow_to_con: bool = variant(
        True,
        rule="A15",
        doc="lethal damage beyond vitality "
        "from the hit that empties it already lowers CON "
        "(false: only later hits, so a fight never kills)",
        term="damage overflowing into CON",
    )
    armour_vs_bashing: str = variant(
        "ignored",
        rule="A13",
        doc="armour against bashing "
        "damage: ignored (the rules text lists lethal and ballistic "
        "only) or its lethal rating",
        choices=("ignored", "lethal"),
        term="armour against bashing damage",
        words={"ignored": "ignored", "lethal": "its lethal rating"},
    )
    armour_vs_firearms: str = variant(
        "ballistic",
        rule="A13",
        doc="armour against "
        "firearm (ballistic) damage: its ballistic rating "
        "only (the table read type by type), or ballistic + "
        "lethal (a bullet is lethal damage too)",
        choices=("ballistic", "ballistic_and_lethal"),
        term="armour against firearms",
        words={"ballistic": "its ballistic rating", "ballistic_and_lethal": "ballistic + lethal"},
    )
    armour_stops: str = variant(
        "damage",
        rule="A10",
        doc="armour ignores points of the "
        "damage (successes + weapon; the rules text's armour ignores "
        "points of damage) or cancels successes only, the weapon "
        "damage added after",
        choices=("damage", "successes"),
        term="what armour stops",
        words={"damage": "points of damage", "successes": "successes only"},
    )
    targeting: str = variant(
        "random",
        rule="A6",
        doc="N-vs-M: each attack picks a random able enemy, or the first able one (focus fire)",
        choices=("random", "first"),
        term="the choice of target",
        words={"random": "a random enemy", "first": "the first enemy (focus fire)"},
    )
    burst_penalty: str = variant(
        "after_cap",
        rule="A-g8",
        doc="a multi-target burst's "
        "-1 die per target comes off the pool after the +/-5 "
        "modifier cap (the rules text subtracts the targets from the "
        "test's dice) or inside the cap",
        choices=("after_cap", "inside_cap"),
        term="the burst's per-target penalty",
        words={"after_cap": "after the modifier cap", "inside_cap": "inside the modifier cap"},
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="what happens to the "
        "fallen when a fight is won: leave them, first aid (A-g10), or "
        "the winners finish them (A-g12)",
        choices=AFTERMATHS,
        term="the aftermath policy",
        words={
            "leave": "no one helps",
            "first_aid": "first aid",
            "finish": "the winners finish the fallen",
        },
    )
    leave_horizon: str = variant(
        "scene",
        rule="A-g9",
        doc="a dying fighter left alone stays "
        "dying to the end of the scene, or after a day has healed "
        "out of vitality 0 (ends out)",
        choices=("scene", "day"),
        term="how long a dying fighter stays dying",
        words={"scene": "to the end of the scene", "day": "a day"},
    )
    first_aid_dice: int = variant(
        2,
        rule="A-g10",
        doc="dice of the aider's first-aid check (one success stabilises a dying fighter)",
        choices=range(0, 21),
        term="the first-aid dice",
    )
    first_aid_tries: int = variant(
        1,
        rule="A-g10",
        doc="first-aid checks per dying fighter",
        choices=range(1, 11),
        term="the first-aid tries",
    )
    helpless_defense: str = variant(
        "zero",
        rule="A-g11",
        doc="Defense of a fallen, helpless target: zero, or its full Defense",
        choices=("zero", "full"),
        term="a helpless target's Defense",
        words={"zero": "zero", "full": "its full Defense"},
    )
    finish_rounds: int = variant(
        10,
        rule="A-g12",
        doc="rounds the winners spend finishing fallen foes (two attacks each a round)",
        choices=range(1, 101),
        term="the finishing rounds",
    )
    finish_bashing: str = variant(
        "lethal",
        rule="A11",
        doc="an unarmed finisher chooses "
        "lethal damage (the rules text allows it) or keeps bashing "
        "damage (it cannot kill)",
        choices=("lethal", "bashing"),
        term="an unarmed finisher's damage",
        words={"lethal": "lethal", "bashing": "bashing"},
    )
    distance: int = variant(
        0,
        rule="AT1",
        doc="metres between the two sides when the "
        "fight starts (0: engaged, as in the fights without distance)",
        term="the starting distance",
    )
    range_short: int = variant(
        18,
        rule="AT-g1",
        doc="metres of the short band of a "
        "short-range weapon (A11 light ranged, 'Alcance Curto'); "
        "medium reaches twice as far, long four times (World of "
        "Darkness light pistol: 20/40/80 yards)",
        term="the short range of a light firearm",
    )
    range_long: int = variant(
        183,
        rule="AT-g1",
        doc="metres of the short band of a "
        "long-range weapon (A11 heavy ranged, 'Alcance Longo'); "
        "medium twice, long four times (World of Darkness rifle: "
        "200/400/800 yards)",
        term="the short range of a heavy firearm",
    )
    range_penalty: int = variant(
        2,
        rule="AT-g1",
        doc="dice a shot loses per band beyond "
        "short: -2 at medium, -4 at long (World of Darkness); no "
        "shot beyond long",
        choices=(0, 1, 2, 3),
        term="the range penalty",
        words={0: "none", 1: "-1 die a band", 2: "-2 dice a band", 3: "-3 dice a band"},
    )
    melee_reach: int = variant(
        1,
        rule="AT-g2",
        doc="metres within which a melee attack reaches (engaged: within one metre after a move)",
        choices=(0, 1, 2, 3),
        term="the melee reach",
    )

    def check(self) -> None:
        """AT1: the starting distance is whole metres 0..200; AT-g1: the range bands are
        whole metres of at least one."""
        check_distance(self.distance)
        for name, hi in (("range_short", 10 * MAX_DISTANCE), ("range_long", 10 * MAX_DISTANCE)):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or not 1 <= val <= hi:
                raise InputError(f"variant {name}: expected whole metres 1..{hi}, got {val!r}")


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A11: attack/damage bonus, initiative and Defense modifiers, damage type, reach;
    a ranged weapon's class of range (AT3: ``short`` light, ``long`` heavy)."""

    name: str
    bonus: int
    initiative: int = 0
    defense: int = 0
    damage_type: str = "lethal"
    ranged: bool = False
    automatic: bool = False
    range_class: str = "short"


@dataclass(frozen=True)
class Armour:
    """A13: damage ignored by type, and the Defense it adds (a shield: +1); AT2: the
    metres it takes off Deslocamento (``move``, 0 or less)."""

    name: str
    lethal: int = 0
    ballistic: int = 0
    defense: int = 0
    move: int = 0


UNARMED = Weapon("unarmed", 0, damage_type="bashing")
NO_ARMOUR = Armour("none")


@dataclass(frozen=True)
class Combatant:
    """A ``dice_pool_7`` combatant: traits, gear and how it fights (plain values only).

    The last fields are the rules' constants as the data file gives them (rule data,
    ``rpg-balance rules dice_pool_7``; the defaults are the seed's): A14's vitality
    ``vitality_per_con`` × CON + ``vitality_base`` (``health.vitality``), AT1's
    Deslocamento FOR + DES + ``move_base`` (``movement.deslocamento``), A7's
    ``specialization_dice`` (``attack.specialization``) and A8's ``athletics_defense``
    (``defense.athletics``; a shield's Defense, ``defense.shield``, is its
    :attr:`Armour.defense`), A3's ``focus_dice`` (``attack.focus``), A4's
    ``willpower_dice`` and ``willpower_defense`` (``attack.willpower``,
    ``defense.willpower``) and A9's ``dodge_per_defense`` (``dodge.pool``)."""

    name: str
    FOR: int
    DES: int
    SAB: int
    CON: int
    DET: int
    AUT: int
    weapon: Weapon = UNARMED
    armour: Armour = NO_ARMOUR
    specialized: bool = False
    athletics: bool = False
    quality: int = 0
    burst: str = "none"
    tactic: str = "attack_attack"
    willpower: str = "none"
    plan: str | None = None
    vitality_per_con: int = field(default=2, metadata={RULE_DATA: "health.vitality.per_con"})
    vitality_base: int = field(default=6, metadata={RULE_DATA: "health.vitality.base"})
    move_base: int = field(default=5, metadata={RULE_DATA: "movement.deslocamento.base"})
    specialization_dice: int = field(default=2, metadata={RULE_DATA: "attack.specialization.dice"})
    athletics_defense: int = field(default=2, metadata={RULE_DATA: "defense.athletics.bonus"})
    focus_dice: int = field(default=1, metadata={RULE_DATA: "attack.focus.dice"})
    willpower_dice: int = field(default=3, metadata={RULE_DATA: "attack.willpower.dice"})
    willpower_defense: int = field(default=2, metadata={RULE_DATA: "defense.willpower.bonus"})
    dodge_per_defense: int = field(default=2, metadata={RULE_DATA: "dodge.pool.per_defense"})

    def check(self) -> None:
        for trait in ("FOR", "DES", "SAB", "CON", "DET", "AUT"):
            value = getattr(self, trait)
            if not 0 <= value <= 10:
                raise InputError(f"{self.name}: {trait} must be 0..10, got {value}")
        if self.CON < 1:
            raise InputError(f"{self.name}: CON must be at least 1, got {self.CON}")
        if self.tactic not in TACTICS:
            raise InputError(
                f"{self.name}: unknown tactic {self.tactic!r}; known: " + ", ".join(TACTICS)
            )
        if self.willpower not in WILLPOWER_POLICIES:
            raise InputError(
                f"{self.name}: unknown willpower policy {self.willpower!r}; "
                "known: " + ", ".join(WILLPOWER_POLICIES)
            )
        if self.burst not in BURSTS:
            raise InputError(
                f"{self.name}: unknown burst {self.burst!r}; known: " + ", ".join(BURSTS)
            )
        if self.burst != "none" and not (self.weapon.ranged and self.weapon.automatic):
            raise InputError(
                f"{self.name}: bursts need an automatic ranged weapon, not {self.weapon.name!r}"
            )
        if self.weapon.damage_type not in DAMAGE_TYPES:
            raise InputError(
                f"{self.name}: weapon damage type must be one of " + ", ".join(DAMAGE_TYPES)
            )
        if self.quality not in _checks.EQUIPMENT_DICE.values():
            raise InputError(f"{self.name}: quality must be 0, 1 or 2, got {self.quality}")
        if self.weapon.range_class not in RANGE_CLASSES:
            raise InputError(
                f"{self.name}: weapon range must be one of "
                + ", ".join(RANGE_CLASSES)
                + f", got {self.weapon.range_class!r}"
            )
        check_plan(self.plan, self.name, ranged=self.weapon.ranged, unavailable=NO_PLAN)
        for name in (
            "vitality_per_con",
            "vitality_base",
            "move_base",
            "specialization_dice",
            "athletics_defense",
            "focus_dice",
            "willpower_dice",
            "willpower_defense",
            "dodge_per_defense",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(
                    f"{self.name}: {name} must be a whole number of 0 or more, got {value!r}"
                )
        if self.vitality < 1:
            raise InputError(f"{self.name}: vitality must be at least 1, got {self.vitality}")

    @property
    def vitality(self) -> int:
        """A14: 2 × CON + 6 (``vitality_per_con`` × CON + ``vitality_base``)."""
        return self.vitality_per_con * self.CON + self.vitality_base

    @property
    def willpower_points(self) -> int:
        """A4: DET + AUT."""
        return self.DET + self.AUT

    @property
    def defense(self) -> int:
        """A8: min(DES, SAB) + a shield's +1 (the armour's ``defense``) + 2 with
        athletics (``athletics_defense``), A11's heavy-weapon −1; never below 0."""
        return max(
            0,
            min(self.DES, self.SAB)
            + self.armour.defense
            + self.athletics_defense * self.athletics
            + self.weapon.defense,
        )

    @property
    def initiative(self) -> int:
        """A16: DES + AUT + the weapon's initiative modifier."""
        return self.DES + self.AUT + self.weapon.initiative

    @property
    def move(self) -> int:
        """AT1: Deslocamento = FOR + DES + 5 (``move_base``) metres a move action; AT2:
        less the armour's metres (heavy modern −1, medium archaic −2, heavy archaic −3);
        never below 0."""
        return max(0, self.FOR + self.DES + self.move_base + self.armour.move)

    @property
    def plan_in_force(self) -> str:
        """The plan it follows: its own, else hold with a ranged weapon and charge with
        any other (engines.distance.default_plan)."""
        return check_plan(self.plan, self.name, ranged=self.weapon.ranged, unavailable=NO_PLAN)


def bands(c: Combatant, v: Variants) -> tuple[int, int]:
    """``(first, far)`` in metres: the band an attack of ``c`` meets no range penalty
    in and the farthest it attacks. Melee: the reach (AT-g2) both. Ranged (AT3, AT-g1):
    the short band of its class (``range_short`` or ``range_long``) and four times it
    (medium to twice, long to four times; nothing beyond)."""
    if not c.weapon.ranged:
        return v.melee_reach, v.melee_reach
    first = v.range_short if c.weapon.range_class == "short" else v.range_long
    return first, BAND_FACTORS[-1] * first


def band_of(dist: int, first: int) -> int:
    """AT-g1: the range band of a target ``dist`` metres away (0 short, 1 medium, 2
    long) for a weapon whose short band is ``first`` metres (called only in reach)."""
    if dist <= first:
        return 0
    return 1 if dist <= BAND_FACTORS[1] * first else 2


def threat(c: Combatant, v: Variants) -> int:
    """What a kiter keeps beyond: a melee fighter strikes on its next turn whoever is
    within its reach + one move (AT1: a move, then an attack); -1 for a shooter."""
    return -1 if c.weapon.ranged else v.melee_reach + c.move


def turn_moves(
    plan: int, move: int, first: int, far: int, threat_foe: int, d: int
) -> tuple[int, int]:
    """AT1 in a duel: ``(move actions, distance after)`` for one turn of a fighter with
    plan code ``plan`` (engines.distance.PLANS), Deslocamento ``move``, bands ``first`` /
    ``far`` (:func:`bands`), its foe's :func:`threat`, at distance ``d``.

    Each of the two actions (A6) is a move while the plan says so; the actions left are
    the turn's attacks. A move covers up to Deslocamento and stops where the plan wants
    to stand: ``charge`` closes until the foe is in its best band (``first``), ``hold``
    until it is in range at all (``far``); ``kite`` first steps away (a whole move)
    whenever the foe could strike it next turn (``d <= threat_foe``), otherwise shoots
    if in range, or closes no nearer than range and one step outside the foe's threat.
    The same steps as the Monte Carlo kernel's (``kernel._moves``) for one foe."""
    used = 0
    while used < 2:
        if plan == KITE and d <= threat_foe:
            d += move
            used += 1
            continue
        if plan == KITE:
            room = d - max(far, threat_foe + 1)
        elif plan == CHARGE:
            room = d - first
        else:
            room = d - far
        if room <= 0:
            break
        d -= min(move, room)
        used += 1
    return used, d


def row(c: Combatant, v: Variants = DEFAULT) -> np.ndarray:
    """The kernel row of one combatant under variants ``v`` (layout: ``C_*``)."""
    c.check()
    r = np.zeros(N_COLS, dtype=np.int64)
    attr = c.DES if c.weapon.ranged else c.FOR
    r[C_ATTR] = attr + c.specialization_dice * c.specialized
    r[C_MODS] = (c.weapon.bonus if v.weapon_bonus == "both" else 0) + c.quality
    r[C_DMG] = c.weapon.bonus
    r[C_DTYPE] = DAMAGE_TYPES.index(c.weapon.damage_type)
    r[C_DEF] = c.defense
    r[C_INIT] = c.initiative
    r[C_VIT] = c.vitality
    r[C_DEATH] = c.CON if v.overflow_to_con else -1
    r[C_WP] = c.willpower_points
    r[C_ARMOUR + BASHING] = c.armour.lethal if v.armour_vs_bashing == "lethal" else 0
    r[C_ARMOUR + LETHAL] = c.armour.lethal
    r[C_ARMOUR + BALLISTIC] = c.armour.ballistic + (
        c.armour.lethal if v.armour_vs_firearms == "ballistic_and_lethal" else 0
    )
    r[C_BURST] = BURSTS.index(c.burst)
    r[C_TACTIC] = TACTICS.index(c.tactic)
    r[C_WPPOL] = WILLPOWER_POLICIES.index(c.willpower)
    r[C_CON] = c.CON
    r[C_MOVE] = c.move
    r[C_FIRST], r[C_FAR] = bands(c, v)
    r[C_PLAN] = plan_code(c.plan, c.weapon.ranged)
    r[C_THREAT] = threat(c, v)
    r[C_FOCUS] = c.focus_dice
    r[C_WP_DICE] = c.willpower_dice
    r[C_WP_DEF] = c.willpower_defense
    r[C_DODGE] = c.dodge_per_defense
    return r


def rows(combatants: list[Combatant], v: Variants = DEFAULT) -> np.ndarray:
    return (
        np.stack([row(c, v) for c in combatants])
        if combatants
        else np.zeros((0, N_COLS), dtype=np.int64)
    )


def rule_array(v: Variants) -> np.ndarray:
    """The kernel's rule array of ``v``: the pool rule, then the combat switches
    (``R_*`` indexes)."""
    pr = v.rule().as_array()
    extra = [
        int(v.dodge_lasts == "end_of_round"),
        int(v.initiative_roll),
        int(v.targeting == "first"),
        int(v.armour_stops == "successes"),
        AFTERMATHS.index(v.aftermath),
        int(v.leave_horizon == "day"),
        v.first_aid_dice,
        v.first_aid_tries,
        int(v.helpless_defense == "full"),
        v.finish_rounds,
        int(v.finish_bashing == "lethal"),
        int(v.burst_penalty == "inside_cap"),
        v.distance,
        v.range_penalty,
    ]
    return np.concatenate([pr, np.array(extra, dtype=np.int64)])


# Rule array: 0..4 the pool rule (engines.pools.PoolRule.as_array), then these.
R_DODGE_END_OF_ROUND, R_INIT_D10, R_TARGET_FIRST, R_ARMOUR_SUCCESSES = 5, 6, 7, 8
R_AFTERMATH, R_HORIZON_DAY, R_AID_DICE, R_AID_TRIES, R_HELPLESS_FULL = 9, 10, 11, 12, 13
R_FINISH_ROUNDS, R_FINISH_LETHAL, R_BURST_INSIDE_CAP = 14, 15, 16
R_DISTANCE, R_RANGE_PENALTY = 17, 18
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2


def as_variants(variants) -> Variants:
    """Checked :class:`Variants` of an object, a mapping or ``NAME=VALUE`` text (None: the
    defaults)."""
    v = check_variants(variants, Variants, DEFAULT, __package__)
    v.check()
    return v
