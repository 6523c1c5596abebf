"""``percentile`` combat data (extension, not from the seed): the damage-bonus table (DX3),
the kernels' row and rule-array layouts, :class:`Variants` (DX-g1 … DX-g12, DX14–DX16),
:class:`Weapon` and :class:`Combatant` (with DX14 MOV, :func:`mov_of`, and the DX15 range
bands of its firearm). The rules they encode are in the package docstring."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engines.constants import AFTERMATHS, RULE_DATA
from engines.distance import MAX_DISTANCE, check_distance, check_plan, plan_code
from engines.errors import InputError
from engines.fight import check_aftermath
from engines.variants import variant

SYSTEM = "percentile"
EXTENSION = (
    "percentile combat is an extension (GAP D-g3): Call of Cthulhu 7th edition "
    "rules DX1-DX16, not from the rules text"
)

#: DX3: (upper bound of STR + SIZ, DB dice count, DB die sides, DB flat, build).
DB_TABLE = (
    (64, 0, 0, -2, -2),
    (84, 0, 0, -1, -1),
    (124, 0, 0, 0, 0),
    (164, 1, 4, 0, 1),
    (204, 1, 6, 0, 2),
)

# weapon columns (offset inside a combatant row), one block for the attack weapon and one
# for the fight-back weapon
(W_N, W_S, W_F, W_LN, W_LS, W_LF, W_IMPALE, W_FIREARM, W_DB) = range(9)
W_SIZE = 9
(DEX, CON, HP, FIGHT, FIRE, DODGE, ARMOUR, DB_N, DB_S, DB_F, DEFEND, SHOTS) = range(12)
WPN = 12
FB = WPN + W_SIZE
START = FB + W_SIZE  # hit points lost before the fight (campaign attrition)
# a fight that starts apart (DX14-DX16; distances in centimetres, see CM_PER_YARD):
# MOV in centimetres and in yards, the plan code (engines.distance.PLANS), point-blank
# distance (DEX/5 feet), the firearm's base / long / extreme range, shotgun and long-arm
# flags, and the extreme-range damage dice of a shotgun
(MOV_CM, MOV_YD, PLAN, PB_CM, BASE_CM, LONG_CM, EXT_CM, SHOTGUN, LONG_ARM, X_N, X_S, X_F) = range(
    START + 1, START + 13
)
# rule data a fighter carries (the data file's [health] and [initiative]): the DX7 major
# wound divisor (a hit of at least the hit points / it) and the DX1 readied firearm's DEX
# bonus
MAJOR_DIV, READY = X_F + 1, X_F + 2
N_FIELDS = READY + 1
# rule array
(
    R_READY,
    R_EXTREME,
    R_INSTANT,
    R_RANGE,
    R_OUTNUMBERED,
    R_CRIT,
    R_TARGET,
    R_COVER,
    R_INTO_MELEE,
    R_AFTER,
    R_HORIZON,
    R_AID_SKILL,
    R_AID_TRIES,
    R_FINISH,
    R_DIST,
    R_CHARGE,
    R_REACH,
    R_SHOTGUN_REGULAR,
    R_PB_LONG,
    R_MOVING,
    R_TAKE_COVER,
    R_STANCE,
) = range(22)
#: The suite measures distance in metres, the game in yards and feet; the engine works in
#: whole centimetres (1 yard = 91.44 cm, 1 foot = 30.48 cm), each converted figure
#: rounded to the nearest centimetre.
CM_PER_YARD = 91.44
CM_PER_FOOT = 30.48
#: DX16: ``moving_target`` choices; ``cover_stance`` choices (DX16); ``take_cover`` (DX-g12)
MOVING = ("off", "fast", "any")
STANCES = ("partial", "prone")
TAKE_COVER = ("turn", "free")
#: DX16 / CoC7-FoundryVTT: a target counts as fast at MOV 8 or more
FAST_MOV = 8
COVER_COSTS = ("forfeit", "free")
RANGES = ("point_blank", "normal", "long")
INSTANT = ("greater", "greater_equal", "off")
DEFENCES = {"dodge": 0, "fight_back": 1, "dive_for_cover": 2}
# combatant states
ABLE, UNCONSCIOUS, DYING, DEAD = 0, 1, 2, 3
#: spawn-key word of the aftermath's generator stream (independent of the fight's)
AFTER_STREAM = 0xAF7E


@dataclass(frozen=True)
class Variants:
    """Combat rule variants of the ``percentile`` extension (DX ids; not from the seed)."""

    system: ClassVar[str] = SYSTEM
    readied_firearms: bool = variant(
        True, rule="DX1", doc="firearms are readied and act at DEX + 50", term="readied firearms"
    )
    extreme_damage: bool = variant(
        True,
        rule="DX4",
        doc="an extreme success impales (impaling weapons) or deals maximum damage (blunt)",
        term="the extreme-damage rule",
    )
    instant_death: str = variant(
        "greater",
        rule="DX-g1",
        doc="one hit kills outright when "
        "it is greater than (or greater or equal to) the maximum "
        "hit points; 'off' disables it",
        choices=INSTANT,
        term="instant death from one hit",
        words={
            "greater": "above the maximum hit points",
            "greater_equal": "at the maximum hit points",
            "off": "never",
        },
    )
    range: str = variant(
        "normal",
        rule="DX-g2",
        doc="firing range of a fight that starts "
        "engaged (distance 0): point-blank (bonus die), normal, long (hard "
        "success; shotgun long-range dice); a fight that starts apart "
        "(distance > 0) takes each shot's band from the distance (DX15), "
        "so there it must stay 'normal'",
        choices=RANGES,
        term="the firing range",
        words={"point_blank": "point-blank", "normal": "normal", "long": "long"},
    )
    outnumbered: bool = variant(
        True,
        rule="DX10",
        doc="after a dodge or fight back in a "
        "round, later melee attacks on the same target get a bonus "
        "die",
        term="the outnumbered bonus die",
    )
    criticals: bool = variant(
        True,
        rule="D-g1",
        doc="01 counts as an extreme success; 100 (96-100 below skill 50) fails",
        term="criticals and fumbles",
    )
    critical_level: str = variant(
        "extreme",
        rule="DX-g4",
        doc="a critical 01 (D-g1) counts "
        "as an extreme success when levels are compared (DX2), "
        "or as a level above extreme (above extreme: the "
        "published game's six outcomes, a critical beats an "
        "extreme); its damage is extreme damage either way (DX4)",
        choices=("extreme", "above_extreme"),
        term="the level of a critical",
        words={"extreme": "extreme", "above_extreme": "above extreme"},
    )
    targeting: str = variant(
        "first",
        rule="DX-g3",
        doc="with several opponents, attack the "
        "first one still standing, a random one, or the most hurt",
        choices=("first", "random", "weakest"),
        term="the choice of target",
        words={
            "first": "the first one standing",
            "random": "a random one",
            "weakest": "the most hurt",
        },
    )
    cover_cost: str = variant(
        "forfeit",
        rule="DX-g5",
        doc="a combatant that dives for "
        "cover (DX12) loses its next action ('forfeit', as in the "
        "published game) or nothing ('free')",
        choices=COVER_COSTS,
        term="the cost of diving for cover",
        words={"forfeit": "the next action", "free": "nothing"},
    )
    firing_into_melee: bool = variant(
        True,
        rule="DX13",
        doc="a shot at a target engaged "
        "in melee with an ally of the shooter (a melee "
        "exchange this or last round) gets a penalty die, as "
        "in the published game; Monte Carlo only",
        term="the penalty die for firing into melee",
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="after the fight: "
        "'leave' (the dying roll CON each round, DX8), 'first aid' "
        "(a standing winner's First Aid stabilises the dying, DX-g7) "
        "or 'finish' (the winners strike fallen foes, DX-g8)",
        choices=AFTERMATHS,
        term="the aftermath policy",
        words={
            "leave": "no one helps",
            "first_aid": "first aid",
            "finish": "the winners finish the fallen",
        },
    )
    dying_horizon: int = variant(
        0,
        rule="DX-g6",
        doc="aftermath rounds in which the dying "
        "roll CON (DX8); 0 = until one fails (a dying character "
        "left alone dies)",
        term="the dying CON rolls",
        words={0: "until one fails"},
    )
    first_aid_skill: int = variant(
        30,
        rule="DX-g7",
        doc="First Aid skill of the aider under the first-aid aftermath (30: the published base)",
        term="the aider's First Aid skill",
    )
    first_aid_tries: int = variant(
        2,
        rule="DX-g7",
        doc="First Aid rolls per dying "
        "combatant, one per aftermath round (2: a roll and one "
        "pushed roll, D2)",
        term="the First Aid tries",
    )
    finish_rounds: int = variant(
        20,
        rule="DX-g8",
        doc="aftermath rounds in which the "
        "winners strike helpless foes under the finishing aftermath",
        term="the finishing rounds",
    )
    distance: int = variant(
        0,
        rule="DX14",
        doc="metres between the two sides when the "
        "fight starts (0: engaged, the fights without distance, numbers "
        "unchanged); the game's yards and feet are converted (1 yard = "
        "0.9144 m)",
        term="the starting distance",
    )
    charge_factor: int = variant(
        5,
        rule="DX14",
        doc="a charger covers up to this many "
        "times its MOV in a round and makes one melee attack at "
        "the end of it (the digest's 5 x MOV); moving no more than "
        "MOV it acts normally",
        term="the charge distance",
    )
    melee_reach: int = variant(
        1,
        rule="DX-g9",
        doc="metres within which a melee attack reaches (engaged: within one metre after a move)",
        term="the melee reach",
    )
    shotgun_difficulty: str = variant(
        "regular",
        rule="DX-g10",
        doc="a shotgun's shot "
        "needs a regular success at every range, its damage "
        "falling by band (4D6/2D6/1D6: Keeper Rulebook p. 65, "
        "as CoC7-FoundryVTT reads it), or by range like any "
        "firearm (hard at long, extreme at extreme range)",
        choices=("regular", "by_range"),
        term="the shotgun's difficulty at range",
        words={"regular": "regular at every range", "by_range": "by range"},
    )
    point_blank_long_arms: bool = variant(
        False,
        rule="DX-g11",
        doc="whether rifles and "
        "shotguns get the point-blank bonus die (DX15 says "
        "not with long arms; CoC7-FoundryVTT gives it to "
        "every firearm)",
        term="the point-blank bonus die for long arms",
    )
    moving_target: str = variant(
        "fast",
        rule="DX16",
        doc="a penalty die on shots at a "
        "target that moved at full speed (more than its MOV) in "
        "its last turn: 'fast' only when its MOV is 8 or more (the "
        "published rule), 'any' whatever its MOV, 'off'",
        choices=MOVING,
        term="the penalty die for a moving target",
        words={"off": "never", "fast": "a fast target (MOV 8+)", "any": "any target at full speed"},
    )
    take_cover: str = variant(
        "turn",
        rule="DX-g12",
        doc="what reaching cover costs a "
        "fighter whose plan is 'cover': its first turn ('turn') or "
        "nothing ('free': cover within reach of a move, and a move of "
        "MOV still lets it act)",
        choices=TAKE_COVER,
        term="the cost of taking cover",
        words={"turn": "its first turn", "free": "nothing"},
    )
    cover_stance: str = variant(
        "partial",
        rule="DX16",
        doc="the cover a 'cover' plan "
        "takes: 'partial' (partly concealed: a penalty die on shots "
        "at it) or 'prone' (a penalty die on shots at it except at "
        "point-blank)",
        choices=STANCES,
        term="the stance in cover",
        words={"partial": "partial concealment", "prone": "prone"},
    )

    def __post_init__(self):
        check_aftermath(self.aftermath)
        for name, lo, hi in (
            ("dying_horizon", 0, 10_000),
            ("first_aid_skill", 0, 200),
            ("first_aid_tries", 0, 100),
            ("finish_rounds", 0, 1_000),
            ("charge_factor", 1, 10),
            ("melee_reach", 0, 10),
        ):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
                raise InputError(f"variant {name}: expected an integer {lo}..{hi}, got {v!r}")
        check_distance(self.distance, MAX_DISTANCE)
        if self.distance > 0 and self.range != "normal":
            raise InputError(
                f"variant range={self.range}: the firing range of a fight that "
                "starts engaged (distance 0); a fight that starts apart takes "
                "each shot's band from the distance (DX15): drop range, or set "
                "distance=0"
            )

    def rule(self) -> np.ndarray:
        return np.array(
            [
                int(self.readied_firearms),
                int(self.extreme_damage),
                INSTANT.index(self.instant_death),
                RANGES.index(self.range),
                int(self.outnumbered),
                self.crit_code(),
                ("first", "random", "weakest").index(self.targeting),
                COVER_COSTS.index(self.cover_cost),
                int(self.firing_into_melee),
                AFTERMATHS.index(self.aftermath),
                self.dying_horizon,
                self.first_aid_skill,
                self.first_aid_tries,
                self.finish_rounds,
                100 * self.distance,
                self.charge_factor,
                100 * self.melee_reach,
                int(self.shotgun_difficulty == "regular"),
                int(self.point_blank_long_arms),
                MOVING.index(self.moving_target),
                TAKE_COVER.index(self.take_cover),
                STANCES.index(self.cover_stance),
            ],
            dtype=np.int64,
        )

    def crit_code(self) -> int:
        """D-g1 / DX-g4 for the kernels: 0 no criticals, 1 a critical is extreme, 2 a
        critical is a level of its own above extreme."""
        return int(self.criticals) * (2 if self.critical_level == "above_extreme" else 1)


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon (DX3–DX5): ``n``D``sides`` + ``flat``; long-range dice for shotguns.

    DX15, for a fight that starts apart: a firearm's ``base_range`` in yards (long range
    ``long_range`` and extreme range ``extreme_range``, default 2 and 4 times the base); a
    ``shotgun`` deals its long-range dice (``long_*``) at long range and its
    ``extreme_*`` dice at extreme range (DX-g10: its difficulty); a ``long_arm`` (rifle,
    shotgun) gets no point-blank bonus die (DX-g11). ``long_factor`` and
    ``extreme_factor`` (the data file's ``ranges.bands``): the multiples of the base range
    a long or extreme range defaults to."""

    name: str = "unarmed"
    n: int = 1
    sides: int = 3
    flat: int = 0
    impale: bool = False
    firearm: bool = False
    adds_db: bool = True
    long_n: int | None = None
    long_sides: int | None = None
    long_flat: int | None = None
    base_range: int = 0
    long_range: int | None = None
    extreme_range: int | None = None
    shotgun: bool = False
    long_arm: bool = False
    extreme_n: int | None = None
    extreme_sides: int | None = None
    extreme_flat: int | None = None
    long_factor: int = 2
    extreme_factor: int = 4

    def __post_init__(self):
        if not 0 <= self.n <= 10 or not 1 <= self.sides <= 100 or not -10 <= self.flat <= 50:
            raise InputError(
                f"weapon {self.name}: dice {self.n}D{self.sides}+{self.flat} out "
                "of range (0..10 dice of 1..100 sides, flat -10..50)"
            )
        if not 0 <= self.base_range <= 10_000:
            raise InputError(
                f"weapon {self.name}: base_range must be 0..10000 yards, got {self.base_range}"
            )
        if (
            self.firearm
            and self.base_range > 0
            and not (self.base_range <= self.ranges[1] <= self.ranges[2] <= 10_000)
        ):
            raise InputError(
                f"weapon {self.name}: ranges must grow: base {self.base_range} "
                f"<= long {self.ranges[1]} <= extreme {self.ranges[2]} yards"
            )

    @property
    def ranges(self) -> tuple[int, int, int]:
        """DX15: (base, long, extreme) range in yards (long and extreme default to
        ``long_factor`` and ``extreme_factor`` × base)."""
        b = self.base_range
        return (
            b,
            self.long_factor * b if self.long_range is None else self.long_range,
            self.extreme_factor * b if self.extreme_range is None else self.extreme_range,
        )

    def block(self) -> list[int]:
        ln = self.n if self.long_n is None else self.long_n
        ls = self.sides if self.long_sides is None else self.long_sides
        lf = self.flat if self.long_flat is None else self.long_flat
        return [
            self.n,
            self.sides,
            self.flat,
            ln,
            ls,
            lf,
            int(self.impale),
            int(self.firearm),
            int(self.adds_db and not self.firearm),
        ]

    def extreme_dice(self) -> tuple[int, int, int]:
        """DX15: the dice of a shotgun at extreme range (others: their usual dice)."""
        return (
            self.n if self.extreme_n is None else self.extreme_n,
            self.sides if self.extreme_sides is None else self.extreme_sides,
            self.flat if self.extreme_flat is None else self.extreme_flat,
        )


UNARMED = Weapon()


def cm(value: float) -> int:
    """A length in centimetres, rounded to the nearest (halves up)."""
    return math.floor(value + 0.5)


def mov_of(strength: int, dex: int, siz: int, slow: int = 7, even: int = 8, fast: int = 9) -> int:
    """DX14: MOV ``slow`` (7) when both STR and DEX are below SIZ, ``fast`` (9) when both
    are above it, else ``even`` (8) (the age adjustment of the published game is not
    modelled; the data file's ``movement.mov``)."""
    if strength < siz and dex < siz:
        return slow
    if strength > siz and dex > siz:
        return fast
    return even


def damage_bonus(str_plus_siz: int, table=DB_TABLE) -> tuple[int, int, int]:
    """DX3: (dice, sides, flat) of the damage bonus for STR + SIZ."""
    for upper, n, sides, flat, _build in table:
        if str_plus_siz <= upper:
            return n, sides, flat
    extra = -(-(str_plus_siz - table[-1][0]) // 80)
    return table[-1][1] + extra, 6, 0


def _rule_data(default: int, rule: str, key: str):
    """A combatant field holding a number of the rule tables (``rpg-balance rules``:
    ``key`` is its ``TABLE.ENTRY.FIELD``), not a trait."""
    return field(default=default, metadata={"rule": rule, RULE_DATA: key})


@dataclass(frozen=True)
class Combatant:
    """One combatant of the percentile extension (plain values; built from the data file
    by :mod:`engines.systems.percentile.archetypes`).

    Hit points come from CON and SIZ (DX6), the damage bonus from STR + SIZ (DX3) unless
    ``db`` (dice, sides, flat) is given. ``weapon`` attacks; ``melee_weapon`` fights back
    (unarmed when the weapon is a firearm); ``defend`` is the tactic against melee (DX2);
    ``shots`` the shots fired per round with a handgun (DX5). In a fight that starts
    apart: ``plan`` (engines.distance.PLANS; None: ``hold`` with a firearm, ``charge``
    otherwise; ``kite`` and ``cover`` need a firearm) and ``mov`` (DX14; None: from STR,
    DEX and SIZ, :func:`mov_of`).

    The rule data of the data file's ``health``, ``movement``, ``ranges`` and
    ``initiative`` tables (defaults: the extension's numbers): ``hp_divisor`` (DX6: hit
    points ⌊(CON + SIZ) / 10⌋), ``major_divisor`` (DX7: a major wound is a hit of at
    least the hit points / 2), ``mov_slow`` / ``mov_even`` / ``mov_fast`` (DX14: MOV 7 /
    8 / 9), ``point_blank_dex`` (DX15: point-blank within DEX / 5 feet) and
    ``ready_bonus`` (DX1: a readied firearm acts at DEX + 50).
    """

    name: str = "combatant"
    strength: int = 50
    con: int = 50
    siz: int = 50
    dex: int = 50
    fighting: int = 25
    firearms: int = 20
    dodge: int = 25
    armour: int = 0
    weapon: Weapon = UNARMED
    melee_weapon: Weapon | None = None
    defend: str = "dodge"
    shots: int = 1
    db: tuple[int, int, int] | None = field(default=None)
    plan: str | None = None
    mov: int | None = None
    # rule data, not traits (RULE_DATA metadata: the archetype table leaves it out)
    hp_divisor: int = _rule_data(10, "DX6", "health.hit_points.divisor")
    major_divisor: int = _rule_data(2, "DX7", "health.major_wound.divisor")
    mov_slow: int = _rule_data(7, "DX14", "movement.mov.slow")
    mov_even: int = _rule_data(8, "DX14", "movement.mov.even")
    mov_fast: int = _rule_data(9, "DX14", "movement.mov.fast")
    point_blank_dex: int = _rule_data(5, "DX15", "ranges.point_blank.dex_per_foot")
    ready_bonus: int = _rule_data(50, "DX1", "initiative.readied_firearm.bonus")

    def __post_init__(self):
        for key in ("strength", "con", "siz", "dex", "fighting", "firearms", "dodge"):
            v = getattr(self, key)
            if not isinstance(v, int | np.integer) or not 0 <= v <= 200:
                raise InputError(
                    f"combatant {self.name}: {key} must be an integer 0..200, got {v!r}"
                )
        for key, lo, hi in (
            ("hp_divisor", 1, 100),
            ("major_divisor", 1, 10),
            ("mov_slow", 0, 50),
            ("mov_even", 0, 50),
            ("mov_fast", 0, 50),
            ("point_blank_dex", 1, 100),
            ("ready_bonus", 0, 200),
        ):
            v = getattr(self, key)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
                raise InputError(
                    f"combatant {self.name}: {key} must be an integer {lo}..{hi}, got {v!r}"
                )
        if self.hit_points < 1:
            raise InputError(
                f"combatant {self.name}: CON + SIZ must be at least {self.hp_divisor} (DX6)"
            )
        if not 0 <= self.armour <= 20:
            raise InputError(f"combatant {self.name}: armour must be 0..20, got {self.armour}")
        if self.defend not in DEFENCES:
            raise InputError(
                f"combatant {self.name}: defend {self.defend!r}; known: {', '.join(DEFENCES)}"
            )
        if not 1 <= self.shots <= 3:
            raise InputError(f"combatant {self.name}: shots must be 1..3, got {self.shots}")
        if self.melee_weapon is not None and self.melee_weapon.firearm:
            raise InputError(f"combatant {self.name}: melee_weapon cannot be a firearm")
        if self.mov is not None and (
            isinstance(self.mov, bool)
            or not isinstance(self.mov, int | np.integer)
            or not 0 <= self.mov <= 50
        ):
            raise InputError(
                f"combatant {self.name}: mov must be an integer 0..50, got {self.mov!r}"
            )
        _ = self.plan_in_force

    @property
    def plan_in_force(self) -> str:
        """Its plan, else :func:`engines.distance.default_plan` (hold with a firearm,
        charge otherwise); ``kite`` and ``cover`` (take cover, then shoot from it) need a
        firearm."""
        where = f"combatant {self.name}"
        plan = check_plan(self.plan, where, ranged=self.weapon.firearm)
        if plan == "cover" and not self.weapon.firearm:
            raise InputError(
                f"{where}: plan 'cover' takes cover and shoots from it, so it "
                "needs a firearm; a melee fighter charges or holds"
            )
        return plan

    @property
    def move(self) -> int:
        """DX14: MOV (yards a round): its own ``mov``, else :func:`mov_of`."""
        if self.mov is not None:
            return int(self.mov)
        return mov_of(
            self.strength, self.dex, self.siz, self.mov_slow, self.mov_even, self.mov_fast
        )

    @property
    def hit_points(self) -> int:
        """DX6: ⌊(CON + SIZ) / 10⌋ (``hp_divisor``)."""
        return (self.con + self.siz) // self.hp_divisor

    @property
    def bonus(self) -> tuple[int, int, int]:
        return damage_bonus(self.strength + self.siz) if self.db is None else tuple(self.db)

    @property
    def fight_back_weapon(self) -> Weapon:
        if self.melee_weapon is not None:
            return self.melee_weapon
        return UNARMED if self.weapon.firearm else self.weapon

    def row(self) -> np.ndarray:
        n, s, f = self.bonus
        head = [
            self.dex,
            self.con,
            self.hit_points,
            self.fighting,
            self.firearms,
            self.dodge,
            self.armour,
            n,
            s,
            f,
            DEFENCES[self.defend],
            self.shots,
        ]
        w = self.weapon
        base, long, extreme = w.ranges if w.firearm else (0, 0, 0)
        apart = [
            cm(self.move * CM_PER_YARD),
            self.move,
            plan_code(self.plan_in_force, w.firearm),
            cm(self.dex / self.point_blank_dex * CM_PER_FOOT),
            cm(base * CM_PER_YARD),
            cm(long * CM_PER_YARD),
            cm(extreme * CM_PER_YARD),
            int(w.shotgun),
            int(w.long_arm),
            *w.extreme_dice(),
            self.major_divisor,
            self.ready_bonus,
        ]
        return np.array(
            head + w.block() + self.fight_back_weapon.block() + [0] + apart, dtype=np.int64
        )


def check_apart(combatants, variants: Variants) -> None:
    """DX15: a fight that starts apart needs the base range of every firearm in it."""
    if variants.distance == 0:
        return
    for c in combatants:
        if c.weapon.firearm and c.weapon.base_range < 1:
            raise InputError(
                f"combatant {c.name}: weapon {c.weapon.name} is a firearm "
                "without a base range (DX15), so it cannot fight at distance "
                f"{variants.distance}: give the weapon base_range (yards)"
            )


def variant_notes() -> dict:
    """The notes a fight's statistics carry about its variants (the extension in force)."""
    return {"extension": EXTENSION}
