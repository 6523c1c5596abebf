"""``d20_degrees`` combat data: the rule constants (E3, E8, E12–E17, ET1–ET3; those a
fighter carries as rule data are its defaults), the kernels' array layouts,
:class:`Variants` (E-g4 … E-g19, ET1–ET4, ET-g1) and :class:`Fighter` (package
docstring)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines.constants import AFTERMATHS, PLANS
from engines.distance import default_plan, plan_code
from engines.errors import InputError
from engines.fight import check_aftermath
from engines.variants import variant

SYSTEM = "d20_degrees"

#: E16 maneuvers: (hit, damage, active defences) modifiers.
MANEUVERS = {
    "none": (0, 0, 0),
    "accurate": (2, -2, 0),
    "power": (-2, 2, 0),
    "all_out": (0, 2, -2),
    "defensive": (0, -2, 2),
}
DEFENSIVE = MANEUVERS["defensive"]
#: E9 hero point tactics (E-g12).
HERO_USES = {"none": 0, "attack": 1, "resist": 2}
RECOVERY_HP = 5  # E15
RECOVERY_DEFENCE = 2  # E15
CRIT_DAMAGE = 5  # E3 on attacks
DAMAGE_OFFSET = 15  # E12
DYING_DC = 15  # E14
DEATH_FAILURES = 3  # E14
INSTANT_DEATH_DEGREES = 3  # E13
EFFORT_BONUS = 2  # E8
EXHAUSTED_PENALTY = 2  # E8
MAX_EFFORT = 2  # E8: a third use would incapacitate; never taken by tactic
PRONE_MELEE = 5  # E17 prone: +5 to hit it in melee
PRONE_RANGED = -5  # E17 prone: −5 to hit it at range
AID_DC = 10  # E-g17: the Healing check's DC (the seed names none)
EXACT_STATE_LIMIT = 400_000
MAX_DISTANCE = 200  # ET1: the most metres a fight may start apart
MOVE_M = 8  # ET1: a move action covers 8 m ("8 metros por turno")
DASH_M = 16  # ET1: Athletics DC 15 raises the move one rank (16 m) for the turn
ATHLETICS_DC = 15  # ET1
RANGE_PENALTY = (0, -2, -5)  # ET-g2: short, medium, long range (M&M 3e; E6 minor, major)
PARTIAL_COVER = -2  # ET-g1: partial cover, −2 to ranged attacks (M&M 3e; E6 minor)
NO_RANGE = 1_000_000  # a ranged Fighter built without range bands shoots at any distance
CHARGE, HOLD, KITE, COVER = (plan_code(p) for p in PLANS)
COVER_PRONE, COVER_PARTIAL = 0, 1  # ``rule[R_COVER]``: what a ``cover`` plan takes (ET3)

# Fighter array layout (one int64 row per combatant).
(
    F_INIT,
    F_DODGE,
    F_AGI,
    F_AWA,
    F_ATK,
    F_RANGED,
    F_DMG,
    F_TOUGH,
    F_PARRY,
    F_FORT,
    F_HP,
    F_HERO,
    F_MHIT,
    F_MDMG,
    F_MDEF,
    F_HUSE,
    F_EFFORT,
    F_RECOV,
    F_FEINT,
    F_DECEP,
    F_READ,
    F_START,
) = range(22)  # F_START: hit points lost before the fight (attrition)
# distance (ET1–ET3, ET-g2): the plan's code, the reach it attacks from (metres: 0 for a
# melee weapon or the charge plan, else the long range), the three range bands, Athletics
(F_PLAN, F_REACH, F_RSHORT, F_RMED, F_RLONG, F_ATHL) = range(22, 28)
# the rule data a fighter carries (the data file's rule tables; defaults: the constants
# above): E12 damage DC offset, E3 critical damage, E13 instant-death degrees, E14 dying
# DC, E15 recovery hit points and Defence bonus
(F_DOFF, F_CRITD, F_IDEG, F_DYDC, F_RECHP, F_RECDEF) = range(28, 34)
N_FIELDS = 34
#: bounds of a fighter's rule data (the data file's tables are validated to the same)
RULE_BOUNDS = (
    ("damage_offset", 0, 40),
    ("crit_damage", 0, 30),
    ("instant_death_degrees", 1, 10),
    ("dying_dc", 1, 40),
    ("recovery_hp", 0, 100),
    ("recovery_defence", 0, 20),
)

# Rule array layout (Variants.rule()).
(
    R_DEF_ROLL,
    R_CRIT_DEG,
    R_RES_NAT,
    R_DYING_ACQ,
    R_FINISH,
    R_TARGET_RANDOM,
    R_REC_CAP,
    R_TIES_RANDOM,
    R_REROLL_NAT,
    R_DEGREE_DMG,
    R_DEFENSIVE_PCT,
    R_VUL_UP,
    R_SURPRISE,
    R_AFTERMATH,
    R_AID_BONUS,
    R_AID_TRIES,
    R_SURPRISE_STUN,
    R_DISTANCE,
    R_FAR,
    R_DASH,
    R_SLAM,
    R_COVER,
) = range(22)
# R_FAR: the fight is played on the line (ET1: a starting distance, or a kiter that opens
# one); set by the drivers, which know the fighters' plans
#: ``rule[R_DEF_ROLL]`` codes (ET4): how an attack on a defenceless target is made
DEFENCELESS_MODES = ("routine", "roll", "best", "needed")
DEF_ROUTINE, DEF_ROLL, DEF_BEST, DEF_NEEDED = range(4)
#: ``rule[R_AFTERMATH]`` codes, in :data:`engines.fight.AFTERMATHS` order.
AFT_LEAVE, AFT_FIRST_AID, AFT_FINISH = range(3)

ACTIVE, INCAP, DYING, DEAD = 0, 1, 2, 3
# MC feint/surprise state per combatant (``fst``): ≥ 0 — that foe is vulnerable (E17) to
# the combatant's next attack (E16 feint); FS_NONE — nothing pending (a feinter feints
# next); FS_FAILED — its feint failed, it attacks next; FS_SURPRISE — its first attack of
# the fight is a surprise attack (E16, E-g16); FS_SURPRISED — it is surprised (E17:
# vulnerable and stunned) and loses its first turn.
FS_NONE, FS_FAILED, FS_SURPRISE, FS_SURPRISED = -1, -2, -3, -4


@dataclass(frozen=True)
class Variants:
    """Combat rule variants of ``d20_degrees`` (package docstring: E11, E3, E-g4 … E-g19,
    ET4; a fight that starts apart: ET1, ET2, ET3, ET-g1)."""

    system: ClassVar[str] = SYSTEM
    degree_damage: bool = variant(
        True,
        rule="E11",
        doc="house rule: +1 damage per degree of success beyond the hit",
        term="the degree-damage house rule",
    )
    defenceless_attack: str = variant(
        "best",
        rule="ET4",
        doc="attack on a defenceless "
        "target (E13: routine, or a roll vs DC 10 whose hit is "
        "critical, as the attacker wishes): best — the mode "
        "with the higher chance that this attack kills, then "
        "that it wounds (a tie: routine); routine (take 10); "
        "roll; needed — routine, rolled only when the routine "
        "total cannot hit",
        choices=DEFENCELESS_MODES,
        term="attacks on a defenceless target",
        words={
            "best": "the attacker's better choice",
            "routine": "routine (take 10)",
            "roll": "rolled",
            "needed": "rolled only when routine cannot hit",
        },
    )
    crit_extra_degree: bool = variant(
        False,
        rule="E-g4",
        doc="an attack's natural 20 also counts one degree better (E3) for excess degrees",
        term="the natural 20's extra degree on attacks",
    )
    resistance_naturals: bool = variant(
        False,
        rule="E-g5",
        doc="natural 20 on the resistance d20 counts +5; natural 1 takes at least 1 damage",
        term="naturals on the resistance roll",
    )
    dying_check_on_acquire: bool = variant(
        True,
        rule="E-g6",
        doc="a Fortitude check (E14) as soon as a fighter becomes dying",
        term="the Fortitude check on becoming dying",
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="after the decision: "
        "leave (the dying roll E14 until dead or stabilised), first aid "
        "(E-Healing tried on every dying combatant, E-g17, E-g18) or "
        "finish (winners attack defenceless foes for the finishing "
        "rounds, E16, E-g7; then leave)",
        choices=AFTERMATHS,
        term="the aftermath policy",
        words={
            "leave": "no one helps",
            "first_aid": "first aid",
            "finish": "the winners finish the fallen",
        },
    )
    finish_rounds: int = variant(
        10,
        rule="E-g7",
        doc="the finish horizon: rounds of "
        "finishing attacks on defenceless foes after the decision "
        "(finishing aftermath only)",
        term="the finishing rounds",
    )
    aid_bonus: int = variant(
        0,
        rule="E-g17",
        doc="first aid: the aider's bonus on the "
        "Healing check (d20 + bonus vs DC 10; the first degree "
        "stabilises)",
        term="the aider's Healing bonus",
    )
    aid_tries: int = variant(
        10,
        rule="E-g18",
        doc="first aid: tries per dying combatant, one "
        "a round, each before the patient's E14 check",
        term="the first-aid tries",
    )
    target_rule: str = variant(
        "focus",
        rule="E-g8",
        doc="which able foe an attacker picks",
        choices=("focus", "random"),
        term="the choice of target",
        words={"focus": "focus fire", "random": "a random foe"},
    )
    recovery_cap: bool = variant(
        True,
        rule="E-g9",
        doc="recovery (E15) cannot exceed maximum hit points",
        term="the recovery cap",
    )
    initiative_ties: str = variant(
        "random",
        rule="E-g10",
        doc="a tie left after Dodge, Agility, Awareness (E10)",
        choices=("random", "listed"),
        term="initiative ties",
        words={"random": "at random", "listed": "in listed order"},
    )
    defensive_below: int = variant(
        0,
        rule="E-g12",
        doc="tactic switch: a fighter at or "
        "below this percentage of its hit points fights "
        "defensively (E16) instead of its own maneuver; 0 never",
        term="the defensive switch",
        words={0: "never"},
    )
    reroll_natural: bool = variant(
        False,
        rule="E9",
        doc="a hero-point reroll of 1 (read as 11) is still a natural 1",
        term="a rerolled 1 staying a natural 1",
    )
    vulnerable_rounding: str = variant(
        "up",
        rule="E-g15",
        doc="vulnerable (E17): halved Parry/Dodge rounded up or down",
        choices=("up", "down"),
        term="rounding of a vulnerable defence",
        words={"up": "up", "down": "down"},
    )
    surprise: str = variant(
        "none",
        rule="E-g16",
        doc="surprise attack (E16): every fighter "
        "of this side makes its first attack of the fight against a "
        "vulnerable target (E17); initiative as usual",
        choices=("none", "side0", "side1"),
        term="the surprise attack",
        words={"none": "nobody", "side0": "fighter A", "side1": "fighter B"},
    )
    surprise_stun: str = variant(
        "first_turn",
        rule="E-g19",
        doc="how long the surprised "
        "side is stunned (E17 Surpreso): first turn — it loses its "
        "whole first turn; surprise attack — only until the "
        "surprising side's surprise attacks are made (a surprised "
        "fighter loses its first turn only when a surpriser acts "
        "after it in initiative order)",
        choices=("first_turn", "surprise_attack"),
        term="how long surprise stuns",
        words={
            "first_turn": "the whole first turn",
            "surprise_attack": "until the surprise attacks",
        },
    )
    distance: int = variant(
        0,
        rule="ET1",
        doc="metres between the two sides when the "
        "fight starts (0: engaged; ET1: a move action covers 8 m, a "
        "standard action may be traded for a second move)",
        term="the starting distance",
        words={0: "engaged"},
    )
    athletics_dash: bool = variant(
        True,
        rule="ET1",
        doc="a fighter moving further than one "
        "8 m move can reach tries Athletics (d20 + Strength + "
        "Athletics vs DC 15, a free action): success raises its "
        "move one rank, to 16 m, for the turn",
        term="the Athletics dash",
    )
    charge_slam: bool = variant(
        False,
        rule="ET2",
        doc="a melee fighter that closes into "
        "reach with its move makes the Encontrão: damage rank = the "
        "higher of its movement rank (0) and its damage rank, +1 "
        "(+1 more after a full 8 m move); on a hit it resists half "
        "that rank, rounded down, itself",
        term="the charge (Encontrão)",
    )
    cover: str = variant(
        "prone",
        rule="ET3",
        doc="what a fighter with the cover plan takes: "
        "prone (ET3, a free action: −5 to ranged attacks against it, +5 to "
        "melee ones, standing up costs a move) or partial cover (ET-g1, a "
        "move action: −2 to ranged attacks against it)",
        choices=("prone", "partial"),
        term="the cover taken",
        words={"prone": "dropping prone", "partial": "partial cover"},
    )

    def check(self) -> None:
        if (
            isinstance(self.defensive_below, bool)
            or not isinstance(self.defensive_below, int)
            or not 0 <= self.defensive_below <= 100
        ):
            raise InputError(
                f"variant defensive_below: expected a percentage 0..100, "
                f"got {self.defensive_below!r}"
            )
        for name, lo, hi in (
            ("finish_rounds", 0, 20),
            ("aid_bonus", -60, 60),
            ("aid_tries", 1, 20),
            ("distance", 0, MAX_DISTANCE),
        ):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
                raise InputError(f"variant {name}: expected an integer {lo}..{hi}, got {val!r}")
        check_aftermath(self.aftermath)
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            if choices is not None and getattr(self, f.name) not in choices:
                raise InputError(
                    f"variant {f.name}: {getattr(self, f.name)!r} is not allowed; "
                    f"choose {' | '.join(choices)}"
                )

    def rule(self) -> np.ndarray:
        self.check()
        return np.array(
            [
                DEFENCELESS_MODES.index(self.defenceless_attack),
                self.crit_extra_degree,
                self.resistance_naturals,
                self.dying_check_on_acquire,
                self.finish_rounds if self.aftermath == "finish" else 0,
                self.target_rule == "random",
                self.recovery_cap,
                self.initiative_ties == "random",
                self.reroll_natural,
                self.degree_damage,
                self.defensive_below,
                self.vulnerable_rounding == "up",
                ("none", "side0", "side1").index(self.surprise),
                AFTERMATHS.index(self.aftermath),
                self.aid_bonus,
                self.aid_tries,
                self.surprise_stun == "surprise_attack",
                self.distance,
                self.distance > 0,
                self.athletics_dash,
                self.charge_slam,
                ("prone", "partial").index(self.cover),
            ],
            dtype=np.int64,
        )


DEFAULT = Variants()


def fight_rule(v: Variants, fighters) -> np.ndarray:
    """``v.rule()`` for a fight between ``fighters``: played on the line (``R_FAR``) when
    it starts apart (ET1) or a fighter kites, which opens a distance; else engaged."""
    rule = v.rule()
    if any(f.plan == "kite" for f in fighters):
        rule[R_FAR] = 1
    return rule


def _rule_field(default: int, rule: str, key: str):
    """A fighter field holding a number of the data file's rule tables."""
    return dataclasses.field(default=default, metadata={"rule": rule, "rule_data": key})


@dataclass(frozen=True)
class Fighter:
    """One combatant, as the engine sees it (the analysis layer composes it from data).

    ``attack`` is the full attack bonus (E11: Fighting + close skill, or Dexterity +
    ranged skill); ``damage`` the attack base (E12: Strength + weapon modifiers, or the
    weapon's effect rank); ``toughness`` includes armour; ``hit_points`` is E-g2.

    In a fight that starts apart (variant ``distance``): ``plan`` (:data:`engines.distance.
    PLANS`; default ``hold`` with a ranged weapon, else ``charge``; ``kite`` and ``cover``
    need a ranged weapon), ``ranges`` the metres of the short, medium and long range bands
    of a ranged weapon (ET-g2; None: no bands, it shoots at any distance without penalty)
    and ``athletics`` the Athletics bonus of the ET1 dash (Strength + Athletics ranks).

    The rule data of the data file's rule tables (defaults: the seed's numbers) travel
    with every fighter into the kernels' rows and the exact chain: ``damage_offset`` the
    15 of its attacks' damage (E12, ``damage.resistance.offset``), ``crit_damage`` a
    critical hit's extra damage (E3, ``damage.critical.bonus``),
    ``instant_death_degrees`` the degrees of a failed resistance that kill it while
    incapacitated (E13, ``health.instant_death.degrees``), ``dying_dc`` its E14
    Fortitude DC while dying (``health.dying.dc``), ``recovery_hp`` /
    ``recovery_defence`` what its E15 recovery gives (``health.recovery``).
    """

    attack: int
    damage: int
    toughness: int
    parry: int
    dodge: int
    fortitude: int
    hit_points: int
    ranged: bool = False
    agility: int = 0
    awareness: int = 0
    initiative: int = 0
    hero_points: int = 1
    maneuver: str = "none"
    hero_use: str = "attack"
    extra_effort: int = 0
    recover_at: int = 0
    feint: bool = False
    deception: int = 0
    insight: int = 0
    name: str = "fighter"
    plan: str | None = None
    ranges: tuple[int, int, int] | None = None
    athletics: int = 0
    # rule data, not traits (a field's ``rule`` metadata: the archetype table leaves it
    # out; ``rule_data``: the data file's KIND.ENTRY.FIELD it comes from)
    damage_offset: int = _rule_field(DAMAGE_OFFSET, "E12", "damage.resistance.offset")
    crit_damage: int = _rule_field(CRIT_DAMAGE, "E3", "damage.critical.bonus")
    instant_death_degrees: int = _rule_field(
        INSTANT_DEATH_DEGREES, "E13", "health.instant_death.degrees"
    )
    dying_dc: int = _rule_field(DYING_DC, "E14", "health.dying.dc")
    recovery_hp: int = _rule_field(RECOVERY_HP, "E15", "health.recovery.hit_points")
    recovery_defence: int = _rule_field(RECOVERY_DEFENCE, "E15", "health.recovery.defence")

    def __post_init__(self) -> None:
        where = f"fighter {self.name!r}"
        if self.plan is None:
            object.__setattr__(self, "plan", default_plan(bool(self.ranged)))
        try:
            plan_code(self.plan)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        if self.plan in ("kite", "cover") and not self.ranged:
            raise InputError(
                f"{where}: plan {self.plan!r} needs a ranged weapon (it shoots "
                "while it keeps away or stays in cover); a melee fighter "
                "charges or holds"
            )
        if self.ranges is not None:
            r = tuple(self.ranges)
            if not self.ranged:
                raise InputError(f"{where}: ranges are for a ranged weapon (ET-g2)")
            if (
                len(r) != 3
                or any(isinstance(x, bool) or not isinstance(x, int | np.integer) for x in r)
                or not 0 < r[0] <= r[1] <= r[2] <= 100_000
            ):
                raise InputError(
                    f"{where}: ranges must be three whole metres, short ≤ "
                    f"medium ≤ long (ET-g2), got {self.ranges!r}"
                )
            object.__setattr__(self, "ranges", tuple(int(x) for x in r))
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("int",) and (isinstance(v, bool) or not isinstance(v, int | np.integer)):
                raise InputError(f"{where}: {f.name} must be an integer, got {v!r}")
        if not 1 <= self.hit_points <= 500:
            raise InputError(f"{where}: hit_points must be 1..500, got {self.hit_points}")
        if not 0 <= self.hero_points <= 10:
            raise InputError(f"{where}: hero_points must be 0..10, got {self.hero_points}")
        if not 0 <= self.extra_effort <= MAX_EFFORT:
            raise InputError(
                f"{where}: extra_effort must be 0..{MAX_EFFORT}, got {self.extra_effort}"
            )
        if not isinstance(self.feint, bool | np.bool_):
            raise InputError(f"{where}: feint must be true or false, got {self.feint!r}")
        if self.recover_at < 0:
            raise InputError(f"{where}: recover_at must be ≥ 0, got {self.recover_at}")
        if self.maneuver not in MANEUVERS:
            raise InputError(
                f"{where}: unknown maneuver {self.maneuver!r}; known: {', '.join(MANEUVERS)}"
            )
        if self.hero_use not in HERO_USES:
            raise InputError(
                f"{where}: unknown hero_use {self.hero_use!r}; known: {', '.join(HERO_USES)}"
            )
        for name in (
            "attack",
            "damage",
            "toughness",
            "parry",
            "dodge",
            "fortitude",
            "agility",
            "awareness",
            "initiative",
            "deception",
            "insight",
            "athletics",
        ):
            if abs(getattr(self, name)) > 60:
                raise InputError(
                    f"{where}: {name} must be within −60..60, got {getattr(self, name)}"
                )
        for name, lo, hi in RULE_BOUNDS:
            if not lo <= getattr(self, name) <= hi:
                raise InputError(f"{where}: {name} must be {lo}..{hi}, got {getattr(self, name)}")

    def array(self) -> np.ndarray:
        """The kernel's int64 row (layout ``F_*``)."""
        mhit, mdmg, mdef = MANEUVERS[self.maneuver]
        row = np.zeros(N_FIELDS, dtype=np.int64)
        row[
            [
                F_INIT,
                F_DODGE,
                F_AGI,
                F_AWA,
                F_ATK,
                F_RANGED,
                F_DMG,
                F_TOUGH,
                F_PARRY,
                F_FORT,
                F_HP,
                F_HERO,
                F_MHIT,
                F_MDMG,
                F_MDEF,
                F_HUSE,
                F_EFFORT,
                F_RECOV,
                F_FEINT,
                F_DECEP,
                F_READ,
            ]
        ] = [
            self.agility + self.initiative,
            self.dodge,
            self.agility,
            self.awareness,
            self.attack,
            int(self.ranged),
            self.damage,
            self.toughness,
            self.parry,
            self.fortitude,
            self.hit_points,
            self.hero_points,
            mhit,
            mdmg,
            mdef,
            HERO_USES[self.hero_use],
            self.extra_effort,
            self.recover_at,
            int(self.feint),
            self.deception,
            max(self.deception, self.insight),
        ]
        bands = (self.ranges or (NO_RANGE,) * 3) if self.ranged else (0, 0, 0)
        code = plan_code(self.plan)
        reach = 0 if (code == CHARGE or not self.ranged) else bands[2]
        row[[F_PLAN, F_REACH, F_RSHORT, F_RMED, F_RLONG, F_ATHL]] = [
            code,
            reach,
            *bands,
            self.athletics,
        ]
        row[[F_DOFF, F_CRITD, F_IDEG, F_DYDC, F_RECHP, F_RECDEF]] = [
            self.damage_offset,
            self.crit_damage,
            self.instant_death_degrees,
            self.dying_dc,
            self.recovery_hp,
            self.recovery_defence,
        ]
        return row


def as_fighter(x, where: str) -> Fighter:
    """A :class:`Fighter`, or an archetype that converts to one (``to_engine``); else an
    :class:`InputError` naming ``where``."""
    if isinstance(x, Fighter):
        return x
    to_engine = getattr(x, "to_engine", None)
    if to_engine is not None:
        return to_engine()
    raise InputError(f"{where}: expected a Fighter, got {type(x).__name__}")


def as_variants(v) -> Variants:
    """Checked :class:`Variants` of an object, a mapping or ``NAME=VALUE`` text (None: the
    defaults)."""
    if v is None:
        return DEFAULT
    if isinstance(v, Variants):
        v.check()
        return v
    from engines.variants import parse_variants

    return parse_variants(Variants, v)
