"""``middle_3d10`` combat data: the rule constants (B4, B6, B8–B10), the kernels' row and
rule-array layouts, :class:`Variants` (B-g4 … B-g14, BT1, BT-g1, BT-g2), :class:`Combatant`
and the distance steps of a duel (:func:`bands`, :func:`range_penalty`, :func:`threat`,
:func:`turn_move`). The rules they encode are in the package docstring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engines.constants import AFTERMATHS
from engines.distance import CHARGE, KITE, check_distance, check_plan, plan_code
from engines.errors import InputError
from engines.fight import SIDE_FATES, check_aftermath
from engines.variants import variant

SYSTEM = "middle_3d10"
FLAT_FOOTED = 3  # B6
MASSIVE_DIFFICULTY = 12  # B10
PENALTY = (0, 2, 5)  # B9: healthy, wounded, incapacitated
DICE_BITS = {"m": 1, "C": 2, "M": 4}  # B8 damage dice as a bit mask
TACTICS = {"never": 0, "early": 1, "late": 2}  # B4 drama tactic

# columns of a combatant row
(TRAIT, SKILL, STR, VIGOR, DEFENSE, REFLEX, MASK, RANGED, DRAMA, TACTIC, AWARE, START) = range(
    12
)  # START: damage taken before the fight (campaign attrition)
RANGE = 12  # BT-g2: metres of one range increment of a ranged weapon (unused in melee)
PLAN = 13  # engines.distance.PLANS index
# the rule data a combatant carries (the data file's rule tables; defaults: the constants
# above): B6 flat-footed Defense penalty, B9 wound penalties, B10 massive-damage
# difficulty, B8 damage-bonus divisor
FLAT, PEN_WOUNDED, PEN_INCAP, MASSIVE_DC, BONUS_DIV = range(14, 19)
N_FIELDS = 19
# rule array
(
    R_INIT,
    R_TIMING,
    R_CRIT,
    R_DOUBLES,
    R_MASSIVE_VIGOR,
    R_TARGET,
    R_AFTER,
    R_UNTREATED,
    R_DYING_DMG,
    R_HELPLESS,
    R_FINISH,
    R_AID_TOTAL,
    R_AID_DIFF,
    R_AID_TRIES,
    R_DISTANCE,
    R_MOVE,
    R_RANGE_PENALTY,
    R_INCREMENTS,
    R_REACH,
) = range(19)
#: A plan this system has no rule for (engines.distance.check_plan).
NO_PLAN = {
    "cover": "the rules text of middle_3d10 has no cover rule (its turn, B6/BT1, is a "
    "move and one action: attack, use a skill, interact)"
}
HELPLESS_PENALTY = 5  # B-g12: the incapacitated penalty of B9 carried on to a dying target
BONUS_DIVISOR = 4  # B8: damage bonus ⌊(FOR + Combat)/4⌋ in melee, ⌊Combat/4⌋ at range
#: bounds of a combatant's rule data (the data file's tables are validated to the same)
RULE_BOUNDS = (
    ("flat_footed", 0, 20),
    ("wounded_penalty", 0, 20),
    ("incapacitated_penalty", 0, 20),
    ("massive_difficulty", 1, 40),
    ("bonus_divisor", 1, 20),
)
# per-combatant fate codes in the kernels: the index in fight.SIDE_FATES
F_STANDING, F_DEAD, F_DYING, F_OUT = range(4)
A_LEAVE, A_FIRST_AID, A_FINISH = range(3)  # fight.AFTERMATHS order


@dataclass(frozen=True)
class Variants:
    """Combat rule variants of ``middle_3d10`` (each field cites the gap it settles)."""

    system: ClassVar[str] = SYSTEM
    initiative: str = variant(
        "middle_plus_reflex",
        rule="B-g4",
        doc="initiative: 3d10 middle + "
        "reflex characteristic, or the reflex characteristic alone "
        "('reflex'); ties: higher reflex, then at random",
        choices=("middle_plus_reflex", "reflex"),
        term="the initiative rule",
        words={"middle_plus_reflex": "3d10 middle + reflex", "reflex": "reflex alone"},
    )
    drama_timing: str = variant(
        "after_miss",
        rule="B-g7",
        doc="a drama point (B4) is spent to "
        "re-roll a missed attack with advantage (after a miss) or "
        "declared before rolling ('before')",
        choices=("after_miss", "before"),
        term="when a drama point is spent",
        words={"after_miss": "after a miss", "before": "before rolling"},
    )
    crit_bonus: int = variant(
        0,
        rule="B-g8",
        doc="extra damage on an automatic success (two "
        "or three 10s, B3); the rules text's benefit is narrative",
        term="the critical damage bonus",
    )
    doubles: bool = variant(
        True,
        rule="B3",
        doc="two or three 10s hit automatically, two or three 1s miss",
        term="the doubles rule",
    )
    massive_traits: str = variant(
        "c_plus_vigor",
        rule="B-g6",
        doc="the massive damage check (B10) adds Vigor to C, or nothing",
        choices=("c_plus_vigor", "c_only"),
        term="the massive-damage check",
        words={"c_plus_vigor": "C + Vigor", "c_only": "C alone"},
    )
    targeting: str = variant(
        "first",
        rule="B-g9",
        doc="with several opponents, attack the first "
        "one still standing, a random one, or the most damaged",
        choices=("first", "random", "weakest"),
        term="the choice of target",
        words={
            "first": "the first one standing",
            "random": "a random one",
            "weakest": "the most hurt",
        },
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="what happens to the "
        "fallen when a fight ends: no one helps ('leave'), the winners try "
        "to stabilise every fallen combatant (first aid, B-g14), or they "
        "strike fallen foes until dead ('finish', B-g11…B-g13)",
        choices=AFTERMATHS,
        term="the aftermath policy",
        words={
            "leave": "no one helps",
            "first_aid": "first aid",
            "finish": "the winners finish the fallen",
        },
    )
    untreated_dying: str = variant(
        "dying",
        rule="B-g10",
        doc="what becomes of a dying "
        "combatant (B9) nobody helps or finishes: the rules text gives "
        "only 'risco de morte' and no clock, so it stays 'dying'; "
        "or it dies ('dead'), or stabilises on its own ('out')",
        choices=("dying", "dead", "out"),
        term="the fate of a dying fighter nobody helps",
        words={"dying": "stays dying", "dead": "dies", "out": "stabilises"},
    )
    dying_damage: str = variant(
        "any",
        rule="B-g11",
        doc="what new damage does to a dying "
        "combatant (Resistance already zero, B9): any damage kills "
        "('any'), or only a hit ≥ Vigor that fails the B10 check "
        "('massive')",
        choices=("any", "massive"),
        term="what new damage does to a dying fighter",
        words={"any": "any damage kills", "massive": "only massive damage kills"},
    )
    helpless_defense: str = variant(
        "incapacitated",
        rule="B-g12",
        doc="Defense of a dying "
        "(unconscious) target: Defense − 5, the last penalty B9 "
        "gives, and − 3 more if it never acted (B6) "
        "('incapacitated'); or every strike hits (auto hit)",
        choices=("incapacitated", "auto_hit"),
        term="a dying target's Defense",
        words={"incapacitated": "Defense − 5", "auto_hit": "every strike hits"},
    )
    finish_rounds: int = variant(
        10,
        rule="B-g13",
        doc="aftermath 'finish': rounds in which "
        "each standing winner strikes a dying foe (1..1000)",
        term="the finishing rounds",
    )
    aid_total: int = variant(
        6,
        rule="B-g14",
        doc="first-aid aftermath: characteristic + "
        "skill of the aider's stabilising check (B1; an average person "
        "3 + 3)",
        term="the aider's characteristic + skill",
    )
    aid_difficulty: int = variant(
        15,
        rule="B-g14",
        doc="first-aid aftermath: difficulty of the stabilising check (B2 average, 15)",
        term="the stabilising check's difficulty",
    )
    aid_tries: int = variant(
        1,
        rule="B-g14",
        doc="first-aid aftermath: stabilising checks per fallen combatant (1..20)",
        term="the stabilising tries",
    )

    distance: int = variant(
        0,
        rule="BT1",
        doc="metres between the two sides when the "
        "fight starts (0: engaged, as in the fights without distance)",
        term="the starting distance",
    )
    move: int = variant(
        8,
        rule="BT-g1",
        doc="metres a fighter's move covers (BT1 'Cada "
        "turno: mover + 1 ação' gives no figure; 8 m is the d20 rules text's "
        "move, ET1) (1..50)",
        term="the move of a turn",
    )
    range_penalty: int = variant(
        2,
        rule="BT-g2",
        doc="points a shot loses per full range "
        "increment between shooter and target (d20 Modern SRD: "
        "-2 per full increment)",
        choices=(0, 1, 2, 3),
        term="the range penalty",
        words={0: "none", 1: "-1 an increment", 2: "-2 an increment", 3: "-3 an increment"},
    )
    range_increments: int = variant(
        10,
        rule="BT-g2",
        doc="the farthest shot, in range "
        "increments of the weapon (d20 Modern SRD: 10 for "
        "firearms) (1..20)",
        term="the farthest shot in range increments",
    )
    melee_reach: int = variant(
        1,
        rule="BT1",
        doc="metres within which a melee attack reaches (engaged: within one metre after a move)",
        choices=(0, 1, 2, 3),
        term="the melee reach",
    )

    def check(self) -> None:
        check_distance(self.distance)
        if not isinstance(self.crit_bonus, int) or not 0 <= self.crit_bonus <= 30:
            raise InputError(f"variant crit_bonus: expected 0..30, got {self.crit_bonus!r}")
        check_aftermath(self.aftermath)
        for name, lo, hi in (
            ("finish_rounds", 1, 1000),
            ("aid_total", 0, 40),
            ("aid_difficulty", 1, 40),
            ("aid_tries", 1, 20),
            ("move", 1, 50),
            ("range_increments", 1, 20),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise InputError(f"variant {name}: expected {lo}..{hi}, got {v!r}")

    def rule(self) -> np.ndarray:
        self.check()
        return np.array(
            [
                int(self.initiative == "reflex"),
                int(self.drama_timing == "before"),
                self.crit_bonus,
                int(self.doubles),
                int(self.massive_traits == "c_plus_vigor"),
                ("first", "random", "weakest").index(self.targeting),
                AFTERMATHS.index(self.aftermath),
                SIDE_FATES.index(self.untreated_dying),
                int(self.dying_damage == "massive"),
                int(self.helpless_defense == "auto_hit"),
                self.finish_rounds,
                self.aid_total,
                self.aid_difficulty,
                self.aid_tries,
                self.distance,
                self.move,
                self.range_penalty,
                self.range_increments,
                self.melee_reach,
            ],
            dtype=np.int64,
        )


DEFAULT = Variants()


def _rule_field(default: int, rule: str, key: str):
    """A combatant field holding a number of the data file's rule tables."""
    return field(default=default, metadata={"rule": rule, "rule_data": key})


@dataclass(frozen=True)
class Combatant:
    """One combatant, as the engine sees it (plain values; built from the data file by
    :mod:`engines.systems.middle_3d10.archetypes`).

    ``trait`` is the characteristic added to attacks (B1), ``combat`` the Combat skill,
    ``strength`` FOR (melee damage bonus, B8), ``defense`` the explicit Defense (B-g5),
    ``reflex`` the initiative characteristic (B-g4), ``dice`` the damage dice of its
    weapon (B8, e.g. ``"mM"``), ``drama`` its drama points and ``drama_tactic`` when it
    spends them (B4), ``aware`` whether it acts in a surprise round (B6); ``range`` the
    metres of one range increment of its ranged weapon (BT-g2, the data file's weapon
    category; unused in melee) and ``plan`` its plan in a fight that starts apart
    (engines.distance; None: hold with a ranged weapon, else charge; ``cover`` refused).

    The rule data of the data file's rule tables (defaults: the seed's numbers) travel
    with every combatant into the kernels' rows and the exact chains: ``flat_footed``
    the Defense lost until it has acted (B6, ``defense.flat_footed.penalty``),
    ``wounded_penalty`` / ``incapacitated_penalty`` on its attacks and Defense while
    wounded / incapacitated (B9, ``health.wounds``; the incapacitated one is also a dying
    target's Defense loss, B-g12), ``massive_difficulty`` the difficulty of its B10 check
    (``health.massive_damage.difficulty``) and ``bonus_divisor`` the divisor of its B8
    damage bonus (``damage.bonus.divisor``).
    """

    name: str = "combatant"
    trait: int = 3
    combat: int = 3
    strength: int = 3
    vigor: int = 3
    defense: int = 10
    reflex: int = 3
    dice: str = "m"
    ranged: bool = False
    drama: int = 0
    drama_tactic: str = "never"
    aware: bool = True
    range: int = 9
    plan: str | None = None
    # rule data, not traits (a field's ``rule`` metadata: the archetype table leaves it
    # out; ``rule_data``: the data file's KIND.ENTRY.FIELD it comes from)
    flat_footed: int = _rule_field(FLAT_FOOTED, "B6", "defense.flat_footed.penalty")
    wounded_penalty: int = _rule_field(PENALTY[1], "B9", "health.wounds.wounded_penalty")
    incapacitated_penalty: int = _rule_field(
        PENALTY[2], "B9", "health.wounds.incapacitated_penalty"
    )
    massive_difficulty: int = _rule_field(
        MASSIVE_DIFFICULTY, "B10", "health.massive_damage.difficulty"
    )
    bonus_divisor: int = _rule_field(BONUS_DIVISOR, "B8", "damage.bonus.divisor")

    def __post_init__(self):
        for key in ("trait", "combat", "strength", "vigor", "reflex"):
            v = getattr(self, key)
            if not isinstance(v, int | np.integer) or not 0 <= v <= 20:
                raise InputError(
                    f"combatant {self.name}: {key} must be an integer 0..20, got {v!r}"
                )
        if self.vigor < 1:
            raise InputError(f"combatant {self.name}: vigor must be at least 1")
        if not 0 <= self.defense <= 40:
            raise InputError(f"combatant {self.name}: defense must be 0..40, got {self.defense}")
        if (
            not self.dice
            or any(c not in DICE_BITS for c in self.dice)
            or len(set(self.dice)) != len(self.dice)
        ):
            raise InputError(
                f"combatant {self.name}: dice must be distinct letters of m, C, M; "
                f"got {self.dice!r}"
            )
        if not 0 <= self.drama <= 20:
            raise InputError(f"combatant {self.name}: drama must be 0..20, got {self.drama}")
        if self.drama_tactic not in TACTICS:
            raise InputError(
                f"combatant {self.name}: drama_tactic {self.drama_tactic!r}; known: "
                f"{', '.join(TACTICS)}"
            )
        if (
            isinstance(self.range, bool)
            or not isinstance(self.range, int | np.integer)
            or not 1 <= self.range <= 2000
        ):
            raise InputError(
                f"combatant {self.name}: range must be whole metres 1..2000, got {self.range!r}"
            )
        check_plan(self.plan, f"combatant {self.name}", ranged=self.ranged, unavailable=NO_PLAN)
        for key, lo, hi in RULE_BOUNDS:
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
                raise InputError(
                    f"combatant {self.name}: {key} must be an integer {lo}..{hi}, got {v!r}"
                )

    @property
    def penalties(self) -> tuple[int, int, int]:
        """B9: the penalty on its attacks and Defense healthy, wounded, incapacitated."""
        return 0, self.wounded_penalty, self.incapacitated_penalty

    @property
    def mask(self) -> int:
        return sum(DICE_BITS[c] for c in self.dice)

    @property
    def damage_bonus(self) -> int:
        """B8: ⌊(FOR + Combat)/4⌋ in melee, ⌊Combat/4⌋ at range (4: ``bonus_divisor``)."""
        base = self.combat if self.ranged else self.strength + self.combat
        return base // self.bonus_divisor

    @property
    def plan_in_force(self) -> str:
        """The plan it follows: its own, else hold with a ranged weapon and charge with
        any other (engines.distance.default_plan)."""
        return check_plan(
            self.plan, f"combatant {self.name}", ranged=self.ranged, unavailable=NO_PLAN
        )

    def row(self) -> np.ndarray:
        return np.array(
            [
                self.trait,
                self.combat,
                self.strength,
                self.vigor,
                self.defense,
                self.reflex,
                self.mask,
                int(self.ranged),
                self.drama,
                TACTICS[self.drama_tactic],
                int(self.aware),
                0,
                self.range,
                plan_code(self.plan, self.ranged),
                self.flat_footed,
                self.wounded_penalty,
                self.incapacitated_penalty,
                self.massive_difficulty,
                self.bonus_divisor,
            ],
            dtype=np.int64,
        )


def bands(c: Combatant, v: Variants) -> tuple[int, int]:
    """``(first, far)`` in metres: the farthest an attack of ``c`` meets no range penalty
    and the farthest it attacks at all. Melee: the reach (BT1 reading, ``melee_reach``)
    both. Ranged (BT-g2): less than one range increment, and ``range_increments`` of
    them."""
    if not c.ranged:
        return v.melee_reach, v.melee_reach
    return c.range - 1, v.range_increments * c.range


def range_penalty(c: Combatant, v: Variants, dist: int) -> int:
    """BT-g2: points off a shot of ``c`` at a target ``dist`` metres away: ``range_penalty``
    per full range increment between them (d20 Modern); 0 in melee."""
    return v.range_penalty * (dist // c.range) if c.ranged else 0


def threat(c: Combatant, v: Variants) -> int:
    """What a kiter keeps beyond: a melee fighter strikes on its next turn whoever is
    within one move + its reach (BT1: move, then attack); -1 for a shooter."""
    return -1 if c.ranged else v.melee_reach + v.move


def turn_move(plan: int, move: int, first: int, far: int, threat_foe: int, d: int) -> int:
    """BT1 in a duel: the distance after the move of one turn of a fighter with plan code
    ``plan`` (engines.distance.PLANS), bands ``first`` / ``far`` (:func:`bands`), its
    foe's :func:`threat`, at distance ``d``; its one action follows the move.

    The move covers up to ``move`` metres and stops where the plan wants to stand:
    ``charge`` closes until the foe is in its best band (``first``), ``hold`` until it is
    in reach or range at all (``far``); ``kite`` steps a whole move away whenever the foe
    could strike it next turn (``d <= threat_foe``), otherwise closes no nearer than its
    range and one metre outside the foe's threat. The same steps as the Monte Carlo
    kernel's (``kernel._move``) for one foe."""
    if plan == KITE and d <= threat_foe:
        return d + move
    if plan == KITE:
        room = d - max(far, threat_foe + 1)
    elif plan == CHARGE:
        room = d - first
    else:
        room = d - far
    return d - min(move, room) if room > 0 else d


NOTES = {
    "death": "the rules text has no death rule (B9 dying = unconscious, 'risco de morte'): "
    "deaths come only from the aftermath (B-g10 untreated dying, B-g11 finish)",
    "b11": "B11 temporary vs consolidated damage only matters after rest; one fight "
    "tracks one damage total",
}
