"""``percentile`` combat data (extension, not from the seed): the damage-bonus table (DX3),
the kernels' row and rule-array layouts, :class:`Variants` (DX-g1 … DX-g8),
:class:`Weapon` and :class:`Combatant`. The rules they encode are in the package
docstring."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from engines.errors import InputError
from engines.fight import AFTERMATHS, check_aftermath
from engines.variants import variant

SYSTEM = "percentile"
EXTENSION = ("percentile combat is an extension (GAP D-g3): Call of Cthulhu 7th edition "
             "rules DX1-DX13, not from the seed")

#: DX3: (upper bound of STR + SIZ, DB dice count, DB die sides, DB flat, build).
DB_TABLE = ((64, 0, 0, -2, -2), (84, 0, 0, -1, -1), (124, 0, 0, 0, 0), (164, 1, 4, 0, 1),
            (204, 1, 6, 0, 2))

# weapon columns (offset inside a combatant row), one block for the attack weapon and one
# for the fight-back weapon
(W_N, W_S, W_F, W_LN, W_LS, W_LF, W_IMPALE, W_FIREARM, W_DB) = range(9)
W_SIZE = 9
(DEX, CON, HP, FIGHT, FIRE, DODGE, ARMOUR, DB_N, DB_S, DB_F, DEFEND, SHOTS) = range(12)
WPN = 12
FB = WPN + W_SIZE
START = FB + W_SIZE  # hit points lost before the fight (campaign attrition)
N_FIELDS = START + 1
# rule array
(R_READY, R_EXTREME, R_INSTANT, R_RANGE, R_OUTNUMBERED, R_CRIT, R_TARGET, R_COVER,
 R_INTO_MELEE, R_AFTER, R_HORIZON, R_AID_SKILL, R_AID_TRIES, R_FINISH) = range(14)
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
    readied_firearms: bool = variant(True, rule="DX1", doc="firearms are readied and act at "
                                     "DEX + 50",
                                     term="readied firearms")
    extreme_damage: bool = variant(True, rule="DX4", doc="an extreme success impales "
                                   "(impaling weapons) or deals maximum damage (blunt)",
                                   term="the extreme-damage rule")
    instant_death: str = variant("greater", rule="DX-g1", doc="one hit kills outright when "
                                 "it is greater than (or greater or equal to) the maximum "
                                 "hit points; 'off' disables it",
                                 choices=INSTANT,
                                 term="instant death from one hit",
                                 words={"greater": "above the maximum hit points",
                                        "greater_equal": "at the maximum hit points",
                                        "off": "never"})
    range: str = variant("normal", rule="DX-g2", doc="firing range: point-blank (bonus die), "
                         "normal, long (hard success; shotgun long-range dice)",
                         choices=RANGES,
                         term="the firing range",
                         words={"point_blank": "point-blank", "normal": "normal", "long": "long"})
    outnumbered: bool = variant(True, rule="DX10", doc="after a dodge or fight back in a "
                                "round, later melee attacks on the same target get a bonus "
                                "die",
                                term="the outnumbered bonus die")
    criticals: bool = variant(True, rule="D-g1", doc="01 counts as an extreme success; 100 "
                              "(96-100 below skill 50) fails",
                              term="criticals and fumbles")
    critical_level: str = variant("extreme", rule="DX-g4", doc="a critical 01 (D-g1) counts "
                                  "as an extreme success when levels are compared (DX2), "
                                  "or as a level above extreme ('above_extreme': the "
                                  "published game's six outcomes, a critical beats an "
                                  "extreme); its damage is extreme damage either way (DX4)",
                                  choices=("extreme", "above_extreme"),
                                  term="the level of a critical",
                                  words={"extreme": "extreme", "above_extreme": "above extreme"})
    targeting: str = variant("first", rule="DX-g3", doc="with several opponents, attack the "
                             "first one still standing, a random one, or the most hurt",
                             choices=("first", "random", "weakest"),
                             term="the choice of target",
                             words={"first": "the first one standing", "random": "a random one",
                                    "weakest": "the most hurt"})
    cover_cost: str = variant("forfeit", rule="DX-g5", doc="a combatant that dives for "
                              "cover (DX12) loses its next action ('forfeit', as in the "
                              "published game) or nothing ('free')", choices=COVER_COSTS,
                              term="the cost of diving for cover",
                              words={"forfeit": "the next action", "free": "nothing"})
    firing_into_melee: bool = variant(True, rule="DX13", doc="a shot at a target engaged "
                                      "in melee with an ally of the shooter (a melee "
                                      "exchange this or last round) gets a penalty die, as "
                                      "in the published game; Monte Carlo only",
                                      term="the penalty die for firing into melee")
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="after the fight: "
                             "'leave' (the dying roll CON each round, DX8), 'first_aid' "
                             "(a standing winner's First Aid stabilises the dying, DX-g7) "
                             "or 'finish' (the winners strike fallen foes, DX-g8)",
                             choices=AFTERMATHS,
                             term="the aftermath policy",
                             words={"leave": "no one helps", "first_aid": "first aid",
                                    "finish": "the winners finish the fallen"})
    dying_horizon: int = variant(0, rule="DX-g6", doc="aftermath rounds in which the dying "
                                 "roll CON (DX8); 0 = until one fails (a dying character "
                                 "left alone dies)",
                                 term="the dying CON rolls", words={0: "until one fails"})
    first_aid_skill: int = variant(30, rule="DX-g7", doc="First Aid skill of the aider "
                                   "under aftermath=first_aid (30: the published base)",
                                   term="the aider's First Aid skill")
    first_aid_tries: int = variant(2, rule="DX-g7", doc="First Aid rolls per dying "
                                   "combatant, one per aftermath round (2: a roll and one "
                                   "pushed roll, D2)",
                                   term="the First Aid tries")
    finish_rounds: int = variant(20, rule="DX-g8", doc="aftermath rounds in which the "
                                 "winners strike helpless foes under aftermath=finish",
                                 term="the finishing rounds")

    def __post_init__(self):
        check_aftermath(self.aftermath)
        for name, lo, hi in (("dying_horizon", 0, 10_000), ("first_aid_skill", 0, 200),
                             ("first_aid_tries", 0, 100), ("finish_rounds", 0, 1_000)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or not lo <= v <= hi:
                raise InputError(f"variant {name}: expected an integer {lo}..{hi}, got {v!r}")

    def rule(self) -> np.ndarray:
        return np.array([int(self.readied_firearms), int(self.extreme_damage),
                         INSTANT.index(self.instant_death), RANGES.index(self.range),
                         int(self.outnumbered), self.crit_code(),
                         ("first", "random", "weakest").index(self.targeting),
                         COVER_COSTS.index(self.cover_cost), int(self.firing_into_melee),
                         AFTERMATHS.index(self.aftermath), self.dying_horizon,
                         self.first_aid_skill, self.first_aid_tries, self.finish_rounds],
                        dtype=np.int64)

    def crit_code(self) -> int:
        """D-g1 / DX-g4 for the kernels: 0 no criticals, 1 a critical is extreme, 2 a
        critical is a level of its own above extreme."""
        return int(self.criticals) * (2 if self.critical_level == "above_extreme" else 1)


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon (DX3–DX5): ``n``D``sides`` + ``flat``; long-range dice for shotguns."""

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

    def __post_init__(self):
        if not 0 <= self.n <= 10 or not 1 <= self.sides <= 100 or not -10 <= self.flat <= 50:
            raise InputError(f"weapon {self.name}: dice {self.n}D{self.sides}+{self.flat} out "
                             "of range (0..10 dice of 1..100 sides, flat -10..50)")

    def block(self) -> list[int]:
        ln = self.n if self.long_n is None else self.long_n
        ls = self.sides if self.long_sides is None else self.long_sides
        lf = self.flat if self.long_flat is None else self.long_flat
        return [self.n, self.sides, self.flat, ln, ls, lf, int(self.impale),
                int(self.firearm), int(self.adds_db and not self.firearm)]


UNARMED = Weapon()


def damage_bonus(str_plus_siz: int, table=DB_TABLE) -> tuple[int, int, int]:
    """DX3: (dice, sides, flat) of the damage bonus for STR + SIZ."""
    for upper, n, sides, flat, _build in table:
        if str_plus_siz <= upper:
            return n, sides, flat
    extra = -(-(str_plus_siz - table[-1][0]) // 80)
    return table[-1][1] + extra, 6, 0


@dataclass(frozen=True)
class Combatant:
    """One combatant of the percentile extension (plain values; built from the data files
    by :mod:`analysis.combat.combatants_middle_pct`).

    Hit points come from CON and SIZ (DX6), the damage bonus from STR + SIZ (DX3) unless
    ``db`` (dice, sides, flat) is given. ``weapon`` attacks; ``melee_weapon`` fights back
    (unarmed when the weapon is a firearm); ``defend`` is the tactic against melee (DX2);
    ``shots`` the shots fired per round with a handgun (DX5).
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

    def __post_init__(self):
        for key in ("strength", "con", "siz", "dex", "fighting", "firearms", "dodge"):
            v = getattr(self, key)
            if not isinstance(v, int | np.integer) or not 0 <= v <= 200:
                raise InputError(f"combatant {self.name}: {key} must be an integer 0..200, "
                                 f"got {v!r}")
        if self.hit_points < 1:
            raise InputError(f"combatant {self.name}: CON + SIZ must be at least 10 (DX6)")
        if not 0 <= self.armour <= 20:
            raise InputError(f"combatant {self.name}: armour must be 0..20, got {self.armour}")
        if self.defend not in DEFENCES:
            raise InputError(f"combatant {self.name}: defend {self.defend!r}; known: "
                             f"{', '.join(DEFENCES)}")
        if not 1 <= self.shots <= 3:
            raise InputError(f"combatant {self.name}: shots must be 1..3, got {self.shots}")
        if self.melee_weapon is not None and self.melee_weapon.firearm:
            raise InputError(f"combatant {self.name}: melee_weapon cannot be a firearm")

    @property
    def hit_points(self) -> int:
        """DX6: ⌊(CON + SIZ) / 10⌋."""
        return (self.con + self.siz) // 10

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
        head = [self.dex, self.con, self.hit_points, self.fighting, self.firearms, self.dodge,
                self.armour, n, s, f, DEFENCES[self.defend], self.shots]
        return np.array(head + self.weapon.block() + self.fight_back_weapon.block() + [0],
                        dtype=np.int64)


def _notes() -> dict:
    return {"extension": EXTENSION}
