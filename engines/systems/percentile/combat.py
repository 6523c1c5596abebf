"""``percentile`` combat — an EXTENSION, not from the seed (RULES.md GAP D-g3, "D-ext").

Seed 003 has no combat rules. GAP D-g3 settles this with Call of Cthulhu 7th edition
combat; the rules below carry their own ids **DX1…DX13**, defined here and NOT taken from
the seed. Every result this module returns says so in ``notes["extension"]``.

- **DX1 Turn order:** descending DEX; a readied firearm acts at DEX + 50 (variant
  ``readied_firearms``); ties → the higher combat skill in use, then at random.
- **DX2 Melee:** the attacker rolls Fighting; the defender either *fights back*
  (Fighting) or *dodges* (Dodge), per its tactic; success levels are compared (D1:
  fail < regular < hard < extreme; a critical 01 counts as extreme, D-g1, or as a level
  above extreme with variant ``critical_level``). Fighting back:
  the defender must get a *higher* level (tie → attacker) and then deals its own damage.
  Dodging: the attacker must get a higher level (tie → defender). Both fail → nothing.
- **DX3 Damage** = weapon dice + damage bonus (DB) for melee (firearms add no DB); the DB
  and build come from STR + SIZ: 2–64 → −2, 65–84 → −1, 85–124 → 0, 125–164 → +1D4,
  165–204 → +1D6, then +1D6 per 80 more (205–284 → +2D6 …). Damage never goes below 0.
- **DX4 Extreme success:** blunt weapons deal maximum weapon damage + maximum DB;
  impaling weapons (blades, bullets) maximum weapon damage + maximum DB + one more weapon
  damage roll (variant ``extreme_damage``).
- **DX5 Firearms:** no fighting back and no dodging against gunfire; 2–3 shots in a round
  → a penalty die on each (D4); range (variant ``range``): point-blank gives a bonus die,
  long range needs a hard success; a shotgun rolls its long-range dice far away and never
  impales.
- **DX6 Hit points** = ⌊(CON + SIZ) / 10⌋.
- **DX7 Major wound:** one hit dealing ≥ half the maximum hit points → a CON roll, or the
  victim falls unconscious (out of the fight).
- **DX8 Zero hit points:** with a major wound → dying (out of the fight; a CON roll at the
  end of each round, failure = dead — the published game's "a CON roll at the end of each
  round"; the extension's reading: the first roll comes at the end of the round in which
  the character fell, and a dying character never stabilises by itself); without one →
  unconscious ("out", stable).
- **DX9 Instant death:** one hit dealing more than the maximum hit points kills (gap
  **DX-g1**: ``instant_death`` = ``greater`` (default), ``greater_equal`` or ``off``).
- **DX10 Outnumbered:** once a character has dodged or fought back in a round, later melee
  attacks on it in that round get a bonus die (variant ``outnumbered``; never happens in a
  duel).
- **DX11 Armour** points are subtracted from every hit.
- **DX12 Diving for cover:** a combatant with tactic ``dive_for_cover`` answers every
  firearm action aimed at it (while it can act) with a Dodge roll; on a success the
  shooter's rolls of that action (all its shots) get a penalty die (D4, combined with the
  DX5 dice). Against melee it dodges (DX2). Cost, gap **DX-g5** (variant ``cover_cost``):
  ``forfeit`` (default, the published game) — having dived, successful or not, it loses
  its next action; ``free`` — the dive costs nothing (the digest names only the penalty
  die). A dive does not count as a DX10 defence.
- **DX13 Firing into melee** (variant ``firing_into_melee``, default on: the published
  game and the D-ext digest give such a shot a penalty die): a shot at a target that
  exchanged a melee attack (either way) in this or the previous round with a still-able
  ally of the shooter gets a penalty die. There are no positions, so "engaged" is read
  from those exchanges; it never applies in a duel and is Monte Carlo only.

Lethality outcomes (RULES.md "Lethality outcomes"; variant ``aftermath``): when a fight
ends, the fallen go through an aftermath of rounds ``t = 1, 2, …`` (round 1 is the rest of
the round in which the fight was decided, so its closing CON roll is the first one of the
aftermath; after a fight stopped at the round cap, the round after the cap). In
each round, in this order: under ``finish`` every standing winner (DX1 order) strikes the
first fallen foe not yet dead (t ≤ ``finish_rounds``); under ``first_aid`` every dying
combatant of either side gets one First Aid roll from a standing winner
(t ≤ ``first_aid_tries``), a success stabilises it (→ out); then every dying combatant
rolls CON (DX8; t ≤ ``dying_horizon``, or every round when it is 0), failure = dead. With
``dying_horizon`` = 0 the clock never stops: after the last strike or aid round every
dying combatant whose CON roll can fail is dead (probability 1, no draw). A fight stopped
at the round cap gets ``leave``. Fates: dead; dying (0 HP with a major wound, alive when
the aftermath ends); out (unconscious or stabilised); standing.

- GAP **DX-g6** (``dying_horizon``, default 0 = never stops): how many aftermath rounds
  the dying keep rolling CON under ``leave``; the published game has no self-stabilising,
  so left alone a dying character dies (``leave`` P(dead) counts them all).
- GAP **DX-g7** (``first_aid_skill`` default 30, the published game's base First Aid;
  ``first_aid_tries`` default 2, one roll per round: the roll and one pushed roll, D2,
  the push's worse failure not modelled): First Aid stabilises a dying character (the
  published game then asks for a Medicine roll within the hour — outside the model: a
  stabilised character counts as out). Each dying combatant is reached at once (as if
  there were enough aiders) — optimistic when the fallen outnumber the standing winners.
- GAP **DX-g8** (``finish_rounds``, default 20): attacks on a helpless (unconscious or
  dying) target — the extension's reading, not checked against the published text: no
  dodge or fight back (a regular success hits), one bonus die (D4) as for a target that
  cannot defend itself (DX5 dice still apply to gunfire), damage by DX3–DX6, DX9 and DX11;
  a hit dealing ≥ half the hit points is a major wound, so an unconscious target at 0 HP
  becomes dying (DX8); no automatic kill ("coup de grâce") and no DX7 roll (it is already
  unconscious). The strikes are not counted in ``hits``.

Gaps of the extension: **DX-g1** instant death ≥ vs >, **DX-g2** range, **DX-g3** target
choice with several opponents, **DX-g4** whether a critical 01 outranks an extreme success
when levels are compared (default: it counts as extreme; the published game ranks it
above), **DX-g5** what a dive for cover costs, **DX-g6**–**DX-g8** the aftermath (above).
Not modelled: prone after a major wound, fumble consequences beyond failing, reloading,
the Medicine roll after First Aid.

The aftermath draws from its own generator stream (one per chunk, derived from the seed),
so ``outcome``, ``rounds``, ``hits`` and ``standing`` are the same numbers under every
aftermath policy and horizon; the default (``leave``, ``dying_horizon`` 0) draws nothing.
Exact duels carry the loser's fallen state (hit points, major wound) out of the chain and
run the aftermath as a small exact chain of its own.

Exact duels (:func:`duel_exact`): 1 vs 1 only, state (hit points, major wound) of each —
at most (HP+1)² · 4 states. Several combatants per side are Monte Carlo only: the state is
the product of every track, plus the dying (DX8) and outnumbered (DX10) flags, the order
and the random target choice (DX-g3), exponential in the head count.

A combatant reaches the kernels as one int64 row (see :meth:`Combatant.row`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import merge_standing, run_chunks, sort_desc
from engines.config import INLINE, JIT, KERNEL, LEAF
from engines.errors import InputError
from engines.fight import (
    AFTERMATHS,
    DAMAGE_BINS,
    ROUND_CAP,
    FightStats,
    check_aftermath,
    check_round_cap,
    check_side,
    check_start_damage,
)
from engines.rng import Seed, bounded, chunk_states, die, normalize_seed, plan_chunks
from engines.rolls import roll_percentile
from engines.systems.percentile import checks as check_rules
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
                                     "DEX + 50")
    extreme_damage: bool = variant(True, rule="DX4", doc="an extreme success impales "
                                   "(impaling weapons) or deals maximum damage (blunt)")
    instant_death: str = variant("greater", rule="DX-g1", doc="one hit kills outright when "
                                 "it is greater than (or greater or equal to) the maximum "
                                 "hit points; 'off' disables it",
                                 choices=INSTANT)
    range: str = variant("normal", rule="DX-g2", doc="firing range: point-blank (bonus die), "
                         "normal, long (hard success; shotgun long-range dice)",
                         choices=RANGES)
    outnumbered: bool = variant(True, rule="DX10", doc="after a dodge or fight back in a "
                                "round, later melee attacks on the same target get a bonus "
                                "die")
    criticals: bool = variant(True, rule="D-g1", doc="01 counts as an extreme success; 100 "
                              "(96-100 below skill 50) fails")
    critical_level: str = variant("extreme", rule="DX-g4", doc="a critical 01 (D-g1) counts "
                                  "as an extreme success when levels are compared (DX2), "
                                  "or as a level above extreme ('above_extreme': the "
                                  "published game's six outcomes, a critical beats an "
                                  "extreme); its damage is extreme damage either way (DX4)",
                                  choices=("extreme", "above_extreme"))
    targeting: str = variant("first", rule="DX-g3", doc="with several opponents, attack the "
                             "first one still standing, a random one, or the most hurt",
                             choices=("first", "random", "weakest"))
    cover_cost: str = variant("forfeit", rule="DX-g5", doc="a combatant that dives for "
                              "cover (DX12) loses its next action ('forfeit', as in the "
                              "published game) or nothing ('free')", choices=COVER_COSTS)
    firing_into_melee: bool = variant(True, rule="DX13", doc="a shot at a target engaged "
                                      "in melee with an ally of the shooter (a melee "
                                      "exchange this or last round) gets a penalty die, as "
                                      "in the published game; Monte Carlo only")
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="after the fight: "
                             "'leave' (the dying roll CON each round, DX8), 'first_aid' "
                             "(a standing winner's First Aid stabilises the dying, DX-g7) "
                             "or 'finish' (the winners strike fallen foes, DX-g8)",
                             choices=AFTERMATHS)
    dying_horizon: int = variant(0, rule="DX-g6", doc="aftermath rounds in which the dying "
                                 "roll CON (DX8); 0 = until one fails (a dying character "
                                 "left alone dies)")
    first_aid_skill: int = variant(30, rule="DX-g7", doc="First Aid skill of the aider "
                                   "under aftermath=first_aid (30: the published base)")
    first_aid_tries: int = variant(2, rule="DX-g7", doc="First Aid rolls per dying "
                                   "combatant, one per aftermath round (2: a roll and one "
                                   "pushed roll, D2)")
    finish_rounds: int = variant(20, rule="DX-g8", doc="aftermath rounds in which the "
                                 "winners strike helpless foes under aftermath=finish")

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


# ---------------------------------------------------------------- Monte Carlo


@njit(**LEAF)
def _level(v, skill, crit):
    """D1 / D-g1 success level of roll ``v``: 0 fail, 1 regular, 2 hard, 3 extreme; a
    critical 01 is 3, or 4 when ``crit`` is 2 (DX-g4)."""
    if crit != 0:
        if v == 1:
            return 3 if crit == 1 else 4
        if v == 100 or (v >= 96 and skill < 50):
            return 0
    if v <= skill // 5:
        return 3
    if v <= skill // 2:
        return 2
    if v <= skill:
        return 1
    return 0


@njit(**LEAF)
def _roll_level(s, dice, skill, crit):
    dice = max(-2, min(2, dice))
    return _level(roll_percentile(s, dice) + 1, skill, crit)


@njit(**LEAF)
def _dice(s, n, sides):
    t = 0
    for _ in range(n):
        t += die(s, sides)
    return t


@njit(**LEAF)
def _damage(s, cmb, rule, i, j, off, extreme):
    """DX3 / DX4 / DX5 / DX11: damage of ``i``'s weapon block at ``off`` on ``j``."""
    if cmb[i, off + W_FIREARM] != 0 and rule[R_RANGE] == 2:
        n, sides, flat = cmb[i, off + W_LN], cmb[i, off + W_LS], cmb[i, off + W_LF]
    else:
        n, sides, flat = cmb[i, off + W_N], cmb[i, off + W_S], cmb[i, off + W_F]
    if extreme and rule[R_EXTREME] != 0:
        d = n * sides + flat
        if cmb[i, off + W_IMPALE] != 0:
            d += _dice(s, n, sides) + flat
        if cmb[i, off + W_DB] != 0:
            d += cmb[i, DB_N] * cmb[i, DB_S] + cmb[i, DB_F]
    else:
        d = _dice(s, n, sides) + flat
        if cmb[i, off + W_DB] != 0:
            d += _dice(s, cmb[i, DB_N], cmb[i, DB_S]) + cmb[i, DB_F]
    return max(0, d - cmb[j, ARMOUR])


@njit(**LEAF)
def _hurt(s, cmb, rule, j, d, hp, mw, state):
    """DX6–DX9: apply ``d`` damage to ``j``."""
    if d <= 0:
        return
    top = cmb[j, HP]
    if (rule[R_INSTANT] == 0 and d > top) or (rule[R_INSTANT] == 1 and d >= top):
        hp[j] = 0
        state[j] = DEAD
        return
    hp[j] = max(0, hp[j] - d)
    major = 2 * d >= top
    if major:
        mw[j] = 1
    if hp[j] == 0:
        state[j] = DYING if mw[j] != 0 else UNCONSCIOUS
    elif major and _roll_level(s, 0, cmb[j, CON], rule[R_CRIT]) == 0:
        state[j] = UNCONSCIOUS


@njit(**LEAF)
def _hit(s, cmb, rule, i, j, off, extreme, hp, mw, state, hits):
    d = _damage(s, cmb, rule, i, j, off, extreme)
    hits[min(d, hits.shape[0] - 1)] += 1
    _hurt(s, cmb, rule, j, d, hp, mw, state)


@njit(**LEAF)
def _engaged(cmb, side, i, j, r, state, eng):
    """DX13: ``j`` exchanged a melee attack with an able ally of ``i`` this or last round."""
    for k in range(cmb.shape[0]):
        if k != i and side[k] == side[i] and state[k] == ABLE and eng[j, k] >= r - 1:
            return True
    return False


@njit(**LEAF)
def _act(s, cmb, side, rule, i, j, r, hp, mw, state, defended, forfeit, eng, hits):
    """One action of ``i`` against ``j`` in round ``r``: gunfire (DX5, DX12, DX13) or a
    melee attack (DX2, DX10)."""
    crit = rule[R_CRIT]
    if cmb[i, WPN + W_FIREARM] != 0:
        shots = cmb[i, SHOTS]
        dice = (1 if rule[R_RANGE] == 0 else 0) - (1 if shots > 1 else 0)
        if rule[R_INTO_MELEE] != 0 and _engaged(cmb, side, i, j, r, state, eng):
            dice -= 1
        if cmb[j, DEFEND] == 2:  # DX12: dive for cover, a Dodge roll
            if _roll_level(s, 0, cmb[j, DODGE], crit) >= 1:
                dice -= 1
            if rule[R_COVER] == 0:
                forfeit[j] = 1
        need = 2 if rule[R_RANGE] == 2 else 1
        for _ in range(shots):
            lv = _roll_level(s, dice, cmb[i, FIRE], crit)
            if lv >= need:
                _hit(s, cmb, rule, i, j, WPN, lv >= 3, hp, mw, state, hits)
                if state[j] != ABLE:
                    return
        return
    bonus = 1 if (defended[j] != 0 and rule[R_OUTNUMBERED] != 0) else 0
    la = _roll_level(s, bonus, cmb[i, FIGHT], crit)
    defended[j] = 1
    eng[i, j] = r
    eng[j, i] = r
    src = -1
    dst = j
    off = WPN
    level = la
    if cmb[j, DEFEND] != 1:
        ld = _roll_level(s, 0, cmb[j, DODGE], crit)
        if la >= 1 and la > ld:
            src = i
    else:
        ld = _roll_level(s, 0, cmb[j, FIGHT], crit)
        if la >= 1 and la >= ld:
            src = i
        elif ld > la:
            src, dst, off, level = j, i, FB, ld
    if src >= 0:
        _hit(s, cmb, rule, src, dst, off, level >= 3, hp, mw, state, hits)


@njit(**LEAF)
def _target(s, cmb, side, rule, i, hp, state):
    """DX-g3: the opponent ``i`` attacks (-1 when none is able)."""
    n = cmb.shape[0]
    count = 0
    best = -1
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE:
            count += 1
            if best < 0 or (rule[R_TARGET] == 2 and
                            cmb[j, HP] - hp[j] > cmb[best, HP] - hp[best]):
                best = j
    if count == 0 or rule[R_TARGET] != 1:
        return best
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE:
            if k == 0:
                return j
            k -= 1
    return best


@njit(**LEAF)
def _order(s, cmb, rule, key, order):
    """DX1: DEX (+50 with a readied firearm) descending; ties: combat skill, then random."""
    n = cmb.shape[0]
    for i in range(n):
        gun = cmb[i, WPN + W_FIREARM] != 0
        dex = cmb[i, DEX] + (50 if gun and rule[R_READY] != 0 else 0)
        skill = cmb[i, FIRE] if gun else cmb[i, FIGHT]
        key[i] = (dex * 256 + skill) * (1 << 30) + bounded(s, 1 << 30)
    sort_desc(key, order)


@njit(**LEAF)
def _hurt_helpless(cmb, rule, j, d, hp, mw, state):
    """DX-g8: ``d`` damage to a fallen (helpless) ``j``: DX9 kills; otherwise hit points
    fall, a hit of ≥ half the hit points is a major wound, and 0 HP with a major wound is
    dying (DX8). No DX7 roll: the target is already unconscious."""
    if d <= 0:
        return
    top = cmb[j, HP]
    if (rule[R_INSTANT] == 0 and d > top) or (rule[R_INSTANT] == 1 and d >= top):
        hp[j] = 0
        state[j] = DEAD
        return
    hp[j] = max(0, hp[j] - d)
    if 2 * d >= top:
        mw[j] = 1
    if hp[j] == 0 and mw[j] != 0:
        state[j] = DYING


@njit(**LEAF)
def _strike(s, cmb, rule, i, j, hp, mw, state):
    """DX-g8: ``i`` attacks the helpless ``j``: no defence, one bonus die (with the DX5
    dice for gunfire); a regular success hits (a hard one at long range)."""
    crit = rule[R_CRIT]
    if cmb[i, WPN + W_FIREARM] != 0:
        shots = cmb[i, SHOTS]
        dice = 1 + (1 if rule[R_RANGE] == 0 else 0) - (1 if shots > 1 else 0)
        need = 2 if rule[R_RANGE] == 2 else 1
        for _ in range(shots):
            lv = _roll_level(s, dice, cmb[i, FIRE], crit)
            if lv >= need:
                _hurt_helpless(cmb, rule, j, _damage(s, cmb, rule, i, j, WPN, lv >= 3), hp,
                               mw, state)
                if state[j] == DEAD:
                    return
        return
    lv = _roll_level(s, 1, cmb[i, FIGHT], crit)
    if lv >= 1:
        _hurt_helpless(cmb, rule, j, _damage(s, cmb, rule, i, j, WPN, lv >= 3), hp, mw,
                       state)


@njit(**LEAF)
def _aftermath(s, cmb, side, rule, winner, hp, mw, state, order):
    """Lethality outcomes: the aftermath of one fight (module docstring; DX8, DX-g6–DX-g8)
    on generator ``s`` (the aftermath stream)."""
    n = cmb.shape[0]
    policy = rule[R_AFTER] if winner != 2 else 0
    horizon = rule[R_HORIZON]
    tries = rule[R_AID_TRIES] if policy == 1 else 0
    strikes = rule[R_FINISH] if policy == 2 else 0
    last = max(horizon, tries, strikes)
    crit = rule[R_CRIT]
    for t in range(1, last + 1):
        if t <= strikes:
            for k in range(n):
                i = order[k]
                if state[i] != ABLE or side[i] != winner:
                    continue
                for j in range(n):
                    if side[j] != winner and state[j] != ABLE and state[j] != DEAD:
                        _strike(s, cmb, rule, i, j, hp, mw, state)
                        break
        for i in range(n):
            if state[i] != DYING:
                continue
            if t <= tries and _roll_level(s, 0, rule[R_AID_SKILL], crit) >= 1:
                state[i] = UNCONSCIOUS  # DX-g7: stabilised
            elif (horizon == 0 or t <= horizon) and _roll_level(s, 0, cmb[i, CON], crit) == 0:
                state[i] = DEAD
    if horizon == 0:  # DX-g6: the clock never stops; a CON roll that can fail, fails
        for i in range(n):
            if state[i] == DYING and (crit != 0 or cmb[i, CON] < 100):
                state[i] = DEAD


@njit(**LEAF)
def _fight(s, cmb, side, rule, cap, hp, mw, state, defended, forfeit, eng, key, order, up,
           outcome, rounds, loser_dead, standing, tail, deaths, hits, s2, cnt, lf, lfs, fa,
           fas):
    n = cmb.shape[0]
    for i in range(n):
        hp[i] = cmb[i, HP] - cmb[i, START]
        mw[i] = 0
        state[i] = ABLE
        forfeit[i] = 0
        for k in range(n):
            eng[i, k] = -5
    _order(s, cmb, rule, key, order)
    up[0] = 0
    up[1] = 0
    for i in range(n):
        up[side[i]] += 1
    winner = 2
    last = cap
    for r in range(1, cap + 1):
        for i in range(n):
            defended[i] = 0
        for k in range(n):
            i = order[k]
            if state[i] != ABLE:
                continue
            if forfeit[i] != 0:  # DX12 / DX-g5: the action after a dive is lost
                forfeit[i] = 0
                continue
            j = _target(s, cmb, side, rule, i, hp, state)
            _act(s, cmb, side, rule, i, j, r, hp, mw, state, defended, forfeit, eng, hits)
            up[:] = 0
            for q in range(n):
                if state[q] == ABLE:
                    up[side[q]] += 1
            if up[0] == 0 or up[1] == 0:
                winner = 0 if up[0] > 0 else 1
                break
        if winner == 2:
            for i in range(n):  # DX8: the dying roll CON at the end of every round
                if state[i] == DYING and _roll_level(s, 0, cmb[i, CON], rule[R_CRIT]) == 0:
                    state[i] = DEAD
        standing[r, 0] += up[0]
        standing[r, 1] += up[1]
        if winner != 2:
            last = r
            break
    tail[last, 0] += up[0]
    tail[last, 1] += up[1]
    outcome[winner] += 1
    rounds[last, winner] += 1
    _aftermath(s2, cmb, side, rule, winner, hp, mw, state, order)
    cnt[:, :] = 0
    for i in range(n):
        f = state[i]
        cnt[side[i], 0 if f == ABLE else 1 if f == DEAD else 2 if f == DYING else 3] += 1
    for q in range(2):
        deaths[q] += cnt[q, 1]
        for f in range(4):
            fa[q, f] += cnt[q, f]
            fas[q, f] += cnt[q, f] * cnt[q, f]
    if winner != 2:
        lose = 1 - winner
        for f in range(3):
            lf[winner, f] += cnt[lose, f + 1]
            lfs[winner, f] += cnt[lose, f + 1] * cnt[lose, f + 1]
        if cnt[lose, 1] == cnt[lose].sum():
            loser_dead[winner] += 1


@njit(**LEAF)
def _chunk(n_trials, s, s2, cmb, side, rule, cap, hp, mw, state, defended, forfeit, eng, key,
           order, up, cnt, o, rd, ld, st, tl, de, h, lf, lfs, fa, fas, end):
    """``n_trials`` fights of one work item into the zeroed histograms ``o`` .. ``fas``;
    every scratch array comes from :func:`_mc_kernel`.

    ``end`` (campaign attrition) counts combatant 0's end: able having lost ``d`` hit
    points at ``d``, else dead, dying, unconscious (out) at ``HP + 1..3``; with no columns
    (a plain run) nothing is counted."""
    health = end.shape[0] - 4
    for _ in range(n_trials):
        _fight(s, cmb, side, rule, cap, hp, mw, state, defended, forfeit, eng, key, order, up,
               o, rd, ld, st, tl, de, h, s2, cnt, lf, lfs, fa, fas)
        if health >= 0:
            if state[0] == ABLE:
                end[cmb[0, HP] - hp[0]] += 1
            else:
                end[health + (1 if state[0] == DEAD else 2 if state[0] == DYING else 3)] += 1


@njit(**KERNEL)
def _mc_kernel(first, last, cmb, side, rule, cap, after_states, trials, states, outcome, rounds,
               loser_dead, standing, tail, deaths, hits, loser_fate, loser_fate_sq, fates,
               fates_sq, end):
    """Whole fights of work items ``first .. last - 1`` (one thread's block:
    :func:`engines.blocks.run_blocks`), ``trials[item]`` per item; each item fills its own
    row of every histogram (and of ``end``: :func:`_chunk`) from its own scratch arrays."""
    n = cmb.shape[0]
    for item in range(first, last):
        s = states[item].copy()
        s2 = after_states[item].copy()  # the aftermath's own stream
        hp = np.zeros(n, dtype=np.int64)
        mw = np.zeros(n, dtype=np.int64)
        state = np.zeros(n, dtype=np.int64)
        defended = np.zeros(n, dtype=np.int64)
        forfeit = np.zeros(n, dtype=np.int64)
        eng = np.zeros((n, n), dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        up = np.zeros(2, dtype=np.int64)
        cnt = np.zeros((2, 4), dtype=np.int64)
        o = np.zeros(3, dtype=np.int64)
        rd = np.zeros((cap + 1, 3), dtype=np.int64)
        ld = np.zeros(2, dtype=np.int64)
        st = np.zeros((cap + 1, 2), dtype=np.int64)
        tl = np.zeros((cap + 1, 2), dtype=np.int64)
        de = np.zeros(2, dtype=np.int64)
        h = np.zeros(hits.shape[1], dtype=np.int64)
        lf = np.zeros((2, 3), dtype=np.int64)
        lfs = np.zeros((2, 3), dtype=np.int64)
        fa = np.zeros((2, 4), dtype=np.int64)
        fas = np.zeros((2, 4), dtype=np.int64)
        _chunk(trials[item], s, s2, cmb, side, rule, cap, hp, mw, state, defended, forfeit,
               eng, key, order, up, cnt, o, rd, ld, st, tl, de, h, lf, lfs, fa, fas, end[item])
        put(outcome[item], o)
        put(rounds[item], rd)
        put(loser_dead[item], ld)
        put(standing[item], st)
        put(tail[item], tl)
        put(deaths[item], de)
        put(hits[item], h)
        put(loser_fate[item], lf)
        put(loser_fate_sq[item], lfs)
        put(fates[item], fa)
        put(fates_sq[item], fas)


#: The histograms of :func:`_mc_kernel`, in its argument order.
_FIELDS = ("outcome", "rounds", "loser_dead", "standing", "tail", "deaths", "hits",
           "loser_fate", "loser_fate_sq", "fates", "fates_sq")


def duel_mc_end(a: Combatant, b: Combatant, start_damage: int, trials: int,
                seed: Seed = None, variants: Variants = DEFAULT,
                round_cap: int = ROUND_CAP) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started ``start_damage``
    hit points down against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able having lost ``d`` (``d < a.hit_points``), then dead, dying, out at
    ``a.hit_points + 1..3``."""
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    health = a.hit_points
    start_damage = check_start_damage(start_damage, health)
    cmb = np.stack([a.row(), b.row()])
    cmb[0, START] = start_damage
    side = np.array([0, 1], dtype=np.int64)
    seq = normalize_seed(seed)
    n_chunks = plan_chunks(trials)[0]
    after = chunk_states(np.random.SeedSequence(seq.entropy,
                                                spawn_key=(*seq.spawn_key, AFTER_STREAM)),
                         n_chunks)
    _, sums = run_chunks(_mc_kernel, (cmb, side, variants.rule(), np.int64(round_cap),
                                      after), SYSTEM, trials, seq, round_cap, _FIELDS,
                         end_columns=health + 4)
    return sums["end"]


def _notes() -> dict:
    return {"extension": EXTENSION}


def fight_mc(side0: list[Combatant], side1: list[Combatant], trials: int = 100_000,
             seed: Seed = None, variants: Variants = DEFAULT,
             round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (extension DX1–DX13; not from the seed), then
    the aftermath of the ``aftermath`` variant (DX8, DX-g6–DX-g8): ``fates``,
    ``loser_fate`` and their squares; ``deaths`` and ``loser_dead`` count after it."""
    s0 = check_side(side0, "side 0", Combatant, SYSTEM)
    s1 = check_side(side1, "side 1", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    cmb = np.stack([c.row() for c in s0 + s1])
    side = np.array([0] * len(s0) + [1] * len(s1), dtype=np.int64)
    seq = normalize_seed(seed)
    after = chunk_states(np.random.SeedSequence(seq.entropy,
                                                spawn_key=(*seq.spawn_key, AFTER_STREAM)),
                         plan_chunks(trials)[0])
    out, sums = run_chunks(_mc_kernel, (cmb, side, variants.rule(), np.int64(round_cap),
                                        after),
                           SYSTEM, trials, seq, round_cap, _FIELDS)
    merge_standing(out.standing, sums["tail"], np.array([len(s0), len(s1)]), trials)
    out.notes.update(_notes())
    return out


def duel_mc(a: Combatant, b: Combatant, trials: int = 100_000, seed: Seed = None,
            variants: Variants = DEFAULT, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo of a 1-vs-1 fight (see :func:`fight_mc`; extension, not from the seed)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


# ---------------------------------------------------------------- exact


def level_pmf(skill: int, dice: int, variants: Variants = DEFAULT) -> np.ndarray:
    """P(level 0..4) of one roll (D1, D4, D-g1; a critical is level 3, extreme, or 4 with
    ``critical_level`` = ``above_extreme``, DX-g4)."""
    pv = check_rules.exact([max(-2, min(2, dice))])[0]
    rolls = np.arange(1, 101)
    lv = np.array([int(_level(int(v), skill, variants.crit_code())) for v in rolls])
    return np.bincount(lv, weights=pv, minlength=5)


def _dice_pmf(n: int, sides: int) -> np.ndarray:
    if n == 0:
        return np.ones(1)
    pmf = np.ones(1)
    face = np.ones(sides) / sides
    for _ in range(n):
        pmf = np.convolve(pmf, face)
    return np.concatenate([np.zeros(n), pmf])  # index = total


def _shift(pmf: np.ndarray, k: int) -> dict[int, float]:
    return {i + k: p for i, p in enumerate(pmf) if p > 0}


def _weapon_damage(c: Combatant, w: Weapon, tgt: Combatant, extreme: bool,
                   variants: Variants) -> np.ndarray:
    """Exact damage pmf of one hit (DX3, DX4, DX5, DX11), index = damage after armour."""
    long = w.firearm and variants.range == "long"
    b = w.block()
    n, sides, flat = (b[W_LN], b[W_LS], b[W_LF]) if long else (b[W_N], b[W_S], b[W_F])
    dbn, dbs, dbf = c.bonus if b[W_DB] else (0, 1, 0)
    if extreme and variants.extreme_damage:
        base = n * sides + flat + (dbn * dbs + dbf if b[W_DB] else 0)
        terms = _shift(_dice_pmf(n, sides), base + flat) if w.impale else {base: 1.0}
    else:
        wd = _dice_pmf(n, sides)
        dd = _dice_pmf(dbn, dbs) if b[W_DB] else np.ones(1)
        terms = _shift(np.convolve(wd, dd), flat + (dbf if b[W_DB] else 0))
    out = np.zeros(DAMAGE_BINS * 4)
    for v, p in terms.items():
        out[max(0, v - tgt.armour)] += p
    return out


def _outcomes(att: Combatant, tgt: Combatant, variants: Variants, cover: int = 0):
    """One action's hits: (pmf of damage to target per shot, pmf to attacker, shots);
    ``cover`` = 1 adds the DX12 penalty die of a successful dive to gunfire."""
    w = att.weapon
    if w.firearm:
        dice = (1 if variants.range == "point_blank" else 0) - (1 if att.shots > 1 else 0)
        dice -= cover
        lv = level_pmf(att.firearms, dice, variants)
        need = 2 if variants.range == "long" else 1
        p_reg = lv[need:3].sum()
        to_t = p_reg * _weapon_damage(att, w, tgt, False, variants) + \
            lv[3:].sum() * _weapon_damage(att, w, tgt, True, variants)
        return to_t, np.zeros_like(to_t), att.shots
    la = level_pmf(att.fighting, 0, variants)
    fb = tgt.defend == "fight_back"
    ld = level_pmf(tgt.fighting if fb else tgt.dodge, 0, variants)
    p_t = np.zeros(5)  # by attacker level
    p_a = np.zeros(5)  # by defender level
    for i, j in itertools.product(range(5), range(5)):
        if fb:
            if i >= 1 and i >= j:
                p_t[i] += la[i] * ld[j]
            elif j > i:
                p_a[j] += la[i] * ld[j]
        elif i >= 1 and i > j:
            p_t[i] += la[i] * ld[j]
    to_t = p_t[1:3].sum() * _weapon_damage(att, w, tgt, False, variants) + \
        p_t[3:].sum() * _weapon_damage(att, w, tgt, True, variants)
    fw = tgt.fight_back_weapon
    to_a = p_a[1:3].sum() * _weapon_damage(tgt, fw, att, False, variants) + \
        p_a[3:].sum() * _weapon_damage(tgt, fw, att, True, variants)
    return to_t, to_a, 1


def dives(att: Combatant, tgt: Combatant) -> bool:
    """DX12: ``tgt`` dives for cover from ``att``'s action (gunfire at a diver)."""
    return att.weapon.firearm and tgt.defend == "dive_for_cover"


def _branches(att: Combatant, tgt: Combatant, variants: Variants):
    """DX12: [(probability, _outcomes)] of one action — the dive's Dodge roll succeeds or
    fails once for all the shots of the action; a single branch without a dive."""
    if not dives(att, tgt):
        return [(1.0, _outcomes(att, tgt, variants))]
    p = float(level_pmf(tgt.dodge, 0, variants)[1:].sum())
    return [(p, _outcomes(att, tgt, variants, 1)), (1.0 - p, _outcomes(att, tgt, variants))]


def attack_damage(attacker: Combatant, target: Combatant,
                  variants: Variants = DEFAULT) -> np.ndarray:
    """Exact distribution of the damage one action of ``attacker`` deals ``target``
    (DX2–DX5, DX11; extension): index 0 = miss, parried or no damage. Several shots add up
    (the target is assumed to stay up); a successful fight back is a 0 here. A target
    diving for cover (DX12) makes it a mixture over its Dodge roll."""
    mix = np.zeros(1)
    for weight, (to_t, _, shots) in _branches(attacker, target, variants):
        one = to_t.copy()
        one[0] += 1.0 - to_t.sum()
        total = np.ones(1)
        for _ in range(shots):
            total = np.convolve(total, one)
        if total.size > mix.size:
            mix = np.concatenate([mix, np.zeros(total.size - mix.size)])
        mix[:total.size] += weight * total
    return np.trim_zeros(mix, "b")


@njit(**INLINE)
def _apply(new, w, hp_o, hp_v, mw_o, mw_v, d, top, p_con, instant, victim_is_target, fall):
    """DX6–DX9 on the victim; returns (mass down, mass dead). The mass that falls alive
    goes to ``fall[hit points, major wound]`` (0 HP with a major wound = dying, DX8)."""
    if (instant == 0 and d > top) or (instant == 1 and d >= top):
        return w, w
    if d <= 0:
        h2, m2 = hp_v, mw_v
        stay = w
    else:
        h2 = max(0, hp_v - d)
        major = 2 * d >= top
        m2 = 1 if (major or mw_v == 1) else 0
        if h2 == 0:
            fall[0, m2] += w
            return w, 0.0
        stay = w * p_con if major else w
        fall[h2, m2] += w - stay
    if victim_is_target:
        new[hp_o, h2, mw_o, m2] += stay
    else:
        new[h2, hp_o, m2, mw_o] += stay
    return w - stay, 0.0


@njit(**JIT)
def _half_step(prob, to_t, to_a, top_a, top_t, con_a, con_t, instant, new, hits, res,
               fall_t, fall_a, won_a, won_t):
    """One attack or shot on every live state ``prob[hp_att, hp_tgt, mw_att, mw_tgt]``.

    ``res`` += [target down, target dead, attacker down, attacker dead]; the mass that
    falls alive goes to ``fall_t`` / ``fall_a`` ``[hit points, major wound]``. The mass
    of each fall is also added to the winner's hit points at that moment (an exchange
    hurts only one side): ``won_a[hp_att]`` when the target falls, ``won_t[hp_tgt]`` when
    the attacker does (campaign attrition).
    """
    n_a, n_t = prob.shape[0], prob.shape[1]
    p_t = to_t.sum()
    p_none = 1.0 - p_t - to_a.sum()
    for ha in range(1, n_a):
        for ht in range(1, n_t):
            for ma in range(2):
                for mt in range(2):
                    m = prob[ha, ht, ma, mt]
                    if m == 0.0:
                        continue
                    new[ha, ht, ma, mt] += m * p_none
                    for d in range(to_t.shape[0]):
                        if to_t[d] > 0.0:
                            w = m * to_t[d]
                            hits[min(d, hits.shape[0] - 1)] += w
                            down, dead = _apply(new, w, ha, ht, ma, mt, d, top_t, con_t,
                                                instant, True, fall_t)
                            res[0] += down
                            res[1] += dead
                            won_a[ha] += down
                        if to_a[d] > 0.0:
                            w = m * to_a[d]
                            hits[min(d, hits.shape[0] - 1)] += w
                            down, dead = _apply(new, w, ht, ha, mt, ma, d, top_a, con_a,
                                                instant, False, fall_a)
                            res[2] += down
                            res[3] += dead
                            won_t[ht] += down


def _helpless_damage(att: Combatant, tgt: Combatant, variants: Variants):
    """DX-g8: (damage pmf of one attack or shot on a helpless ``tgt``, shots): no defence,
    one bonus die on top of the DX5 dice; index = damage after armour."""
    w = att.weapon
    if w.firearm:
        dice = 1 + (1 if variants.range == "point_blank" else 0) - (1 if att.shots > 1 else 0)
        lv = level_pmf(att.firearms, dice, variants)
        need, shots = (2 if variants.range == "long" else 1), att.shots
    else:
        lv = level_pmf(att.fighting, 1, variants)
        need, shots = 1, 1
    return (lv[need:3].sum() * _weapon_damage(att, w, tgt, False, variants)
            + lv[3:].sum() * _weapon_damage(att, w, tgt, True, variants)), shots


def _aftermath_exact(fall: np.ndarray, dead: float, winner: Combatant, loser: Combatant,
                     variants: Variants, policy: str | None = None) -> np.ndarray:
    """Exact aftermath (module docstring; DX8, DX-g6–DX-g8) of one fallen ``loser``:
    ``fall[hit points, major wound]`` is the mass fallen alive, ``dead`` the mass dead in
    the fight; returns the masses [dead, dying, out]. ``winner`` is the one standing."""
    policy = variants.aftermath if policy is None else policy
    prob = np.array(fall, dtype=float)
    top = loser.hit_points
    horizon = variants.dying_horizon
    tries = variants.first_aid_tries if policy == "first_aid" else 0
    strikes = variants.finish_rounds if policy == "finish" else 0
    q = float(level_pmf(loser.con, 0, variants)[0])  # DX8: the CON roll fails
    p_aid = float(level_pmf(variants.first_aid_skill, 0, variants)[1:].sum())
    stable = 0.0
    if strikes:
        dmg, shots = _helpless_damage(winner, loser, variants)
        kill = _kills(np.arange(dmg.size), top, variants.instant_death)
    for t in range(1, max(horizon, tries, strikes) + 1):
        if t <= strikes:
            for _ in range(shots):
                new = prob * (1.0 - dmg.sum())
                dead += prob.sum() * dmg[kill].sum()
                for d in np.nonzero(dmg > 0)[0]:
                    if kill[d]:
                        continue
                    for h, m in itertools.product(range(top + 1), range(2)):
                        if d == 0:
                            new[h, m] += prob[h, m] * dmg[0]
                        else:
                            m2 = 1 if (m or 2 * d >= top) else 0
                            new[max(0, h - d), m2] += prob[h, m] * dmg[d]
                prob = new
        if t <= tries:
            stable += prob[0, 1] * p_aid
            prob[0, 1] *= 1.0 - p_aid
        if horizon == 0 or t <= horizon:
            dead += prob[0, 1] * q
            prob[0, 1] *= 1.0 - q
    if horizon == 0 and q > 0.0:
        dead += prob[0, 1]
        prob[0, 1] = 0.0
    dying = prob[0, 1]
    return np.array([dead, dying, prob.sum() - dying + stable])


def _kills(d: np.ndarray, top: int, instant: str) -> np.ndarray:
    """DX9 / DX-g1: which damage values kill outright."""
    if instant == "greater":
        return d > top
    if instant == "greater_equal":
        return d >= top
    return np.zeros(d.size, dtype=bool)


def _p_first(a: Combatant, b: Combatant, variants: Variants) -> float:
    """DX1: P(a acts before b)."""
    def key(c):
        gun = c.weapon.firearm
        return (c.dex + (50 if gun and variants.readied_firearms else 0),
                c.firearms if gun else c.fighting)
    ka, kb = key(a), key(b)
    return 1.0 if ka > kb else 0.0 if ka < kb else 0.5


def duel_exact(a: Combatant, b: Combatant, variants: Variants = DEFAULT,
               round_cap: int = ROUND_CAP, start_hp: int | None = None,
               end_a: np.ndarray | None = None) -> FightStats:
    """Exact 1-vs-1 fight as an absorbing Markov chain (extension DX1–DX9, DX11).

    Campaign attrition: ``start_hp`` (1..a's hit points; None: full) is the hit points
    ``a`` starts with; when ``end_a`` (length a's hit points + 1) is given, P(``a`` ends
    the fight able — it won, or the cap stopped it — with ``h`` hit points) is added to
    ``end_a[h]`` (its major-wound flag is not reported).

    State: (hit points of a, of b, major-wound flags of a and b); unconscious, dying and
    dead are absorbing (the fight ends when one side cannot act, so the DX8 dying roll
    never comes up in a duel, nor DX10). Each shot of a multi-shot action is one step.
    DX12: gunfire at a diver splits the mass by the dive's Dodge roll (one roll for all the
    shots of the action); with ``cover_cost`` = ``forfeit`` (DX-g5) the diver then loses its
    next action — in a duel the shooter acts every round, so this is deterministic.
    DX13 never applies in a duel.
    """
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    out = FightStats.empty(SYSTEM, round_cap, None, dtype=float)
    cmb = (a, b)
    tables = {0: _branches(a, b, variants), 1: _branches(b, a, variants)}
    con = (level_pmf(a.con, 0, variants)[1:].sum(), level_pmf(b.con, 0, variants)[1:].sum())
    instant = INSTANT.index(variants.instant_death)
    hits = np.zeros(DAMAGE_BINS)
    fall = (np.zeros((a.hit_points + 1, 2)), np.zeros((b.hit_points + 1, 2)))
    won = (np.zeros(a.hit_points + 1), np.zeros(b.hit_points + 1))
    if start_hp is not None and (isinstance(start_hp, bool) or not isinstance(start_hp, int)
                                 or not 1 <= start_hp <= a.hit_points):
        raise InputError(f"start_hp: expected an integer 1..{a.hit_points}, got "
                         f"{start_hp!r}")
    p_a = _p_first(a, b, variants)
    for first, weight in ((0, p_a), (1, 1.0 - p_a)):
        if weight == 0.0:
            continue
        prob = np.zeros((a.hit_points + 1, b.hit_points + 1, 2, 2))
        prob[a.hit_points if start_hp is None else start_hp, b.hit_points, 0, 0] = weight
        lost = [0.0, 0.0]
        forfeit = [False, False]
        out.standing[0] += weight
        for r in range(1, round_cap + 1):
            for att in (first, 1 - first):
                tgt = 1 - att
                if forfeit[att]:  # DX12 / DX-g5: the action after a dive is lost
                    forfeit[att] = False
                    continue
                if dives(cmb[att], cmb[tgt]) and variants.cover_cost == "forfeit":
                    forfeit[tgt] = True
                start = prob if att == 0 else np.ascontiguousarray(prob.transpose(1, 0, 3, 2))
                view_sum = np.zeros_like(start)
                res = np.zeros(4)
                for w_branch, (to_t, to_a, shots) in tables[att]:
                    view = start * w_branch
                    for _ in range(shots):
                        new = np.zeros_like(view)
                        _half_step(view, to_t, to_a, cmb[att].hit_points,
                                   cmb[tgt].hit_points, con[att], con[tgt], instant, new,
                                   hits, res, fall[tgt], fall[att], won[att], won[tgt])
                        view = new
                    view_sum += view
                prob = view_sum if att == 0 else np.ascontiguousarray(
                    view_sum.transpose(1, 0, 3, 2))
                out.outcome[att] += res[0]
                out.rounds[r, att] += res[0]
                out.loser_dead[att] += res[1]
                out.deaths[tgt] += res[1]
                lost[tgt] += res[0]
                out.outcome[tgt] += res[2]
                out.rounds[r, tgt] += res[2]
                out.loser_dead[tgt] += res[3]
                out.deaths[att] += res[3]
                lost[att] += res[2]
            out.standing[r] += [weight - lost[0], weight - lost[1]]
        alive = prob.sum()
        out.outcome[2] += alive
        out.rounds[round_cap, 2] += alive
        if end_a is not None:
            end_a += prob.sum(axis=(1, 2, 3))
    if end_a is not None:
        end_a += won[0]
    out.hits[:] = hits
    for w in (0, 1):  # the aftermath of the loser (module docstring)
        lose = 1 - w
        fate = _aftermath_exact(fall[lose], out.loser_dead[w], cmb[w], cmb[lose], variants)
        out.loser_fate[w] = fate
        out.loser_fate_sq[w] = fate
        out.fates[lose, 1:] += fate
        out.fates[w, 0] += out.outcome[w]
        out.loser_dead[w] = fate[0]
        out.deaths[lose] = fate[0]
    out.fates[:, 0] += out.outcome[2]
    out.fates_sq[:] = out.fates
    out.notes.update(_notes())
    return out


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one attack (one shot of a multi-shot action) does to an unhurt target
    (extension DX2–DX9, DX11; not from the seed).

    ``p_hit``: the attack (or shot) succeeds against the target's defence (DX2, DX5);
    ``p_incapacitate``: the target is out of the fight — instant death (DX9), 0 hit
    points (DX8), or a major wound (≥ half the hit points) and a failed CON roll (DX7);
    ``p_kill``: instant death, more than (variant DX-g1) the maximum hit points;
    ``p_dead``, ``p_dying``, ``p_out``: the target is dropped and then ends dead / dying /
    out under the ``aftermath`` variant, the attacker standing (DX8, DX-g6–DX-g8); they
    add up to ``p_incapacitate``.
    """
    v = DEFAULT if variants is None else variants
    to_t = sum(w * b[0] for w, b in _branches(attacker, target, v))
    d = np.arange(to_t.size)
    top = target.hit_points
    dead = _kills(d, top, v.instant_death)
    p_con = level_pmf(target.con, 0, v)[1:].sum()
    zero = ~dead & (d >= top)
    major = ~dead & ~zero & (d > 0) & (2 * d >= top)
    out = to_t[dead].sum() + to_t[zero].sum() + to_t[major].sum() * (1.0 - p_con)
    fall = np.zeros((top + 1, 2))
    fall[0, 1] = to_t[zero].sum()  # one hit to 0 HP is ≥ half the hit points: dying (DX8)
    for k in np.nonzero(major)[0]:
        fall[top - k, 1] += to_t[k] * (1.0 - p_con)  # DX7: unconscious
    fate = _aftermath_exact(fall, float(to_t[dead].sum()), attacker, target, v)
    return {"p_hit": float(to_t.sum()), "p_incapacitate": float(out),
            "p_kill": float(to_t[dead].sum()), "p_dead": float(fate[0]),
            "p_dying": float(fate[1]), "p_out": float(fate[2])}
