"""Whole fights in ``pbta_2d6``: the harm clock, exact and Monte Carlo.

Rules (this package's own ids; the roll is the check's P1/P2):

- **PC1** A fighter has a stat (the P1 modifier, −3 … +4), a weapon that deals *harm*
  (0 … 6; the data file's weapons deal 1 … 3) and armour (0 … 3 points), and starts
  unharmed.
- **PC2** Each round every standing fighter acts once. Turn order (variant ``order``):
  the higher stat acts first, equal stats in a fresh random order each round (``stat``,
  the default; a mirror duel is even), a fresh random order each round (``coin``), or
  side 0 first (``side0_first``). A fighter taken out before its turn does not act.
- **PC3** To act, a fighter picks a standing foe (variant ``targeting``: a random one, or
  the first) and rolls 2d6 + stat. A *strike* deals the striker's weapon harm minus the
  struck fighter's armour, never below 0.
- **PC4** 10+ (strong hit): it strikes the foe.
- **PC5** 7–9 (weak hit): it trades harm — it strikes the foe, then, if the foe is still
  standing, the foe strikes it back (the actor's harm lands first). A fighter with the
  tactic ``careful`` (PC9) does not trade: it strikes with one harm less (the data file's
  ``tactic.careful.harm_less``) and takes none.
- **PC6** 6− (miss): the foe strikes it.
- **PC7** The clock: a fighter with 6 or more harm (variant ``clock``) is out of the
  fight; a side with no one standing loses. Lethality outcomes (RULES.md): the harm beyond
  the clock when it falls decides the fate — 0 beyond is *out* (stable), 2 or more beyond
  (variant ``dead_over``; harm 8 on a 6-clock) is *dead*, in between (harm 7) *dying*:
  alive, but dead without help.
- **PC8** Aftermath of a decided fight (variant ``aftermath``, the same names in every
  system): ``leave`` — no one helps, a dying fighter stays dying (the rules give no roll
  that settles it); ``first_aid`` — every dying fighter gets one roll of 2d6 (no stat):
  7+ (variant ``aid_at``) stabilises it (out), otherwise it stays dying; ``finish`` — the
  winners finish every fallen foe (a helpless foe is struck until dead: dead). A fight
  stopped at the round cap has no aftermath.
- **PC9** Tactic: ``trade`` (PC5 as written, the default) or ``careful``.

Gaps — what the move's text leaves open, each a variant with its default: **PC-g1** the
turn order (``order``), **PC-g2** whom a fighter strikes in a group fight
(``targeting``), **PC-g3** how far past the clock a fall kills (``dead_over``), **PC-g4**
the first-aid roll (``aid_at``). ``clock`` (PC7) and the check's P2 thresholds
(``weak_at``, ``strong_at``) are variants of the rules themselves.

Distance (RULES.md "Distance, movement and cover"; the moves speak of no metres, so every
figure is a gap):

- **PD1** A fight may start apart (variant ``distance``, metres; 0: engaged, PC1–PC9 as
  above, the same numbers). Every fighter stands on one line: side 0 at 0 m, side 1 at
  the distance.
- **PD2** A turn is a move *or* a roll. A fighter whose nearest foe is farther than its
  plan wants (PD6) spends the turn moving up to ``move`` metres toward it (gap **PD-g1**,
  10 m), stopping where its plan wants to be; otherwise it rolls (PC3) at a foe its
  weapon reaches.
- **PD3** A melee weapon reaches a foe within ``reach`` metres (gap **PD-g2**, 1 m).
- **PD4** A ranged weapon (the data file's ``ranged = true``) has two range bands: up to
  ``close`` metres it rolls as engaged, up to ``far`` metres at ``far_penalty`` less
  (gap **PD-g3**, −1); beyond ``far`` it reaches no one.
- **PD5** A foe strikes back (PC5's trade, PC6's miss) only if its own weapon reaches the
  roller. Out of its reach a miss costs nothing and a weak hit strikes with one harm less
  (gap **PD-g4**, ``weak_at_range``: ``less``, the volley's cost, or ``full``).
- **PD6** Plans (``engines.distance.PLANS``): ``charge`` closes to the weapon's best band
  (melee: its reach; ranged: the close band), then rolls; ``hold`` rolls at what its
  weapon reaches, else closes until it does (a melee weapon's only band is its reach, so
  a melee fighter's hold is its charge); ``cover`` (ranged only) holds, but the first
  turn it could roll it takes cover instead, and from then on ranged strikes on it deal
  ``cover_armour`` less harm (gap **PD-g5**, 1); no ``kite``: a turn is a move or a roll
  and every fighter moves alike, so a shooter keeping away would never shoot. Default:
  ``hold`` with a ranged weapon, else ``charge``.

The Monte Carlo kernel uses the suite's flat histogram layout and drivers
(:mod:`engines.combat_pools`: ``run_fight``, ``book_fates``); the exact duel is an
absorbing Markov chain over (harm of side 0, harm of side 1) solved with the suite's
:class:`engines.combat_pools.DuelChain`, one :class:`~engines.combat_pools.AttackOp` per
strike. Both return :class:`engines.fight.FightStats`; ``hits`` counts the harm of every
strike that lands (either fighter's; 0 when armour stops it). Apart (PD1), the chain's
planes are keyed by (distance, side 0 in cover, side 1 in cover): no move depends on the
dice, so each turn moves a plane's mass to one key (:func:`turn_step`); the kernel moves
each fighter along the line (``_turn``, the same steps for any number of fighters).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import (
    DEAD,
    DYING,
    OUT,
    STANDING,
    DuelChain,
    attack_op,
    book_fates,
    check_variants,
    finish_duel,
    run_fight,
)
from engines.config import KERNEL, LEAF
from engines.distance import CHARGE, MAX_DISTANCE, check_distance, check_plan, plan_code
from engines.distance import COVER as COVER_PLAN
from engines.errors import InputError
from engines.fight import AFTERMATHS, DAMAGE_BINS, ROUND_CAP, FightStats, check_round_cap
from engines.rng import Seed, bounded, die
from engines.variants import variant

from . import checks
from .checks import move_odds

SYSTEM = checks.SYSTEM
ORDERS = ("stat", "coin", "side0_first")
TACTICS = ("trade", "careful")

#: PD6: the plans this system has no rule for, and why (engines.distance.check_plan)
NO_RULE = {"kite": "a turn is a move or a roll and every fighter moves alike (PD2), so a "
                   "shooter keeping away would never shoot: pbta_2d6 has no kite rule"}

# kernel row of a combatant
C_STAT, C_HARM, C_ARMOUR, C_CAREFUL, C_START = 0, 1, 2, 3, 4
C_RANGED, C_CLOSE, C_FAR, C_PLAN = 5, 6, 7, 8   # PD4, PD6
C_LESS = 9  # PC9: the harm a careful weak hit holds back (rule data)
N_COLS = 10
# kernel rule array
R_WEAK, R_STRONG, R_ORDER, R_TARGET_FIRST, R_AFTERMATH, R_CLOCK, R_DEAD_OVER, R_AID_AT = \
    range(8)
R_DISTANCE, R_MOVE, R_REACH, R_FAR_PENALTY, R_WEAK_LESS, R_COVER = range(8, 14)
FAR_AWAY = 1 << 30  # farther than any fighter stands
ORDER_STAT, ORDER_COIN, ORDER_SIDE0 = 0, 1, 2
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2


@dataclass(frozen=True)
class Variants(checks.Variants):
    """Combat variants of ``pbta_2d6``: the check's P2 thresholds plus these."""

    system: ClassVar[str] = SYSTEM
    order: str = variant("stat", rule="PC-g1", doc="who acts first each round: the higher "
                         "stat (equal stats: a fresh random order), a fresh random order, "
                         "or side 0 first", choices=ORDERS)
    targeting: str = variant("random", rule="PC-g2", doc="N-vs-M: each fighter picks a random "
                             "standing foe, or the first one (focus fire)",
                             choices=("random", "first"))
    clock: int = variant(6, rule="PC7", doc="harm that takes a fighter out (the clock)",
                         choices=range(2, 13))
    dead_over: int = variant(2, rule="PC-g3", doc="harm beyond the clock, when a fighter "
                             "falls, that kills it (less but more than 0: dying)",
                             choices=range(1, 7))
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="what happens to the "
                             "fallen when a fight is won: leave them (a dying fighter stays "
                             "dying), first aid (PC8: 2d6 to stabilise each dying one), or "
                             "the winners finish them (PC8: dead)", choices=AFTERMATHS)
    aid_at: int = variant(7, rule="PC-g4", doc="first aid: the 2d6 total (no stat) that "
                          "stabilises a dying fighter", choices=range(2, 13))
    distance: int = variant(0, rule="PD1", doc="metres between the two sides when the "
                            "fight starts (0: engaged, as in the fights without distance)",
                            term="the starting distance")
    move: int = variant(10, rule="PD-g1", doc="metres a fighter covers in a turn it spends "
                        "moving (1..MAX_DISTANCE)", term="the move")
    reach: int = variant(1, rule="PD-g2", doc="metres within which a melee weapon strikes",
                         choices=range(4), term="the melee reach")
    far_penalty: int = variant(1, rule="PD-g3", doc="taken off 2d6 + stat when shooting at "
                               "a foe in a ranged weapon's far band", choices=range(4),
                               term="the far-band penalty")
    weak_at_range: str = variant("less", rule="PD-g4", doc="a weak hit on a foe that cannot "
                                 "strike back: one harm less (the volley's cost) or full "
                                 "harm", choices=("less", "full"))
    cover_armour: int = variant(1, rule="PD-g5", doc="harm taken off every ranged strike on "
                                "a fighter that has taken cover (plan cover)",
                                choices=range(4), term="the cover")

    def check(self) -> None:
        """PD1: the starting distance is whole metres 0..MAX_DISTANCE; PD-g1: the move
        at least one metre and no farther than a fight may start."""
        check_distance(self.distance)
        if isinstance(self.move, bool) or not isinstance(self.move, int) \
                or not 1 <= self.move <= MAX_DISTANCE:
            raise InputError(f"variant move: expected whole metres 1..{MAX_DISTANCE}, got "
                             f"{self.move!r}")


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon: the harm its strikes deal (PC1, PC3); a ranged one reaches ``close``
    metres without penalty and ``far`` metres with one (PD4)."""

    name: str
    harm: int = 1
    ranged: bool = False
    close: int = 0
    far: int = 0


@dataclass(frozen=True)
class Armour:
    """Armour: points taken off every strike on its wearer (PC3)."""

    name: str = "none"
    points: int = 0


FISTS = Weapon("unarmed", 1)
NO_ARMOUR = Armour()


@dataclass(frozen=True)
class Combatant:
    """A ``pbta_2d6`` fighter (PC1, PC9); plain values only. ``careful_less`` is rule data
    it carries (the data file's ``tactic.careful.harm_less``, PC9: the harm a careful
    weak hit holds back; marked by its ``rule`` metadata, so the archetype table leaves
    it out)."""

    name: str
    stat: int
    weapon: Weapon = FISTS
    armour: Armour = NO_ARMOUR
    tactic: str = "trade"
    plan: str | None = None
    careful_less: int = dataclasses.field(
        default=1, metadata={"rule": "PC9", "rule_data": "tactic.careful.harm_less"})

    def check(self) -> None:
        if isinstance(self.stat, bool) or not isinstance(self.stat, int) \
                or not -3 <= self.stat <= 4:
            raise InputError(f"{self.name}: stat must be an integer -3..4 (P1), got "
                             f"{self.stat!r}")
        if not 0 <= self.weapon.harm <= 6:
            raise InputError(f"{self.name}: weapon harm must be 0..6 (PC1), got "
                             f"{self.weapon.harm}")
        if not 0 <= self.armour.points <= 3:
            raise InputError(f"{self.name}: armour must be 0..3 points (PC1), got "
                             f"{self.armour.points}")
        if isinstance(self.careful_less, bool) or not isinstance(self.careful_less, int) \
                or not 0 <= self.careful_less <= 6:
            raise InputError(f"{self.name}: a careful weak hit holds back 0..6 harm (PC9), "
                             f"got {self.careful_less!r}")
        if self.tactic not in TACTICS:
            raise InputError(f"{self.name}: unknown tactic {self.tactic!r}; known: "
                             + ", ".join(TACTICS))
        w = self.weapon
        if w.ranged and not 0 <= w.close <= w.far:
            raise InputError(f"{self.name}: weapon {w.name}: the range bands must be "
                             f"0 <= close <= far metres (PD4), got {w.close} and {w.far}")
        _ = self.plan_in_force  # PD6: raises for a plan it cannot follow

    @property
    def plan_in_force(self) -> str:
        """PD6: its plan, else ``hold`` with a ranged weapon and ``charge`` with any other;
        ``cover`` only with a ranged weapon, never ``kite``."""
        plan = check_plan(self.plan, self.name, ranged=self.weapon.ranged,
                          unavailable=NO_RULE)
        if plan == "cover" and not self.weapon.ranged:
            raise InputError(f"{self.name}: plan 'cover' takes cover, then shoots (PD6), so "
                             "it needs a ranged weapon; a melee fighter charges or holds")
        return plan


def row(c: Combatant) -> np.ndarray:
    """The kernel row of one combatant (layout ``C_*``)."""
    c.check()
    r = np.zeros(N_COLS, dtype=np.int64)
    r[C_STAT] = c.stat
    r[C_HARM] = c.weapon.harm
    r[C_ARMOUR] = c.armour.points
    r[C_CAREFUL] = int(c.tactic == "careful")
    r[C_LESS] = c.careful_less
    r[C_RANGED] = int(c.weapon.ranged)
    r[C_CLOSE] = c.weapon.close
    r[C_FAR] = c.weapon.far
    r[C_PLAN] = plan_code(c.plan_in_force)
    return r


def rows(combatants: list[Combatant]) -> np.ndarray:
    return np.stack([row(c) for c in combatants])


def _rule(v: Variants) -> np.ndarray:
    return np.array([v.weak_at, v.strong_at, ORDERS.index(v.order),
                     int(v.targeting == "first"), AFTERMATHS.index(v.aftermath), v.clock,
                     v.dead_over, v.aid_at, v.distance, v.move, v.reach, v.far_penalty,
                     int(v.weak_at_range == "less"), v.cover_armour], dtype=np.int64)


def _variants(variants) -> Variants:
    v = check_variants(variants, Variants, DEFAULT, __name__)
    v.check()
    return v


def wants(c: Combatant, v: Variants) -> int:
    """PD6: the distance (metres) within which ``c`` rolls rather than closes: its reach
    with a melee weapon (PD3); with a ranged one the close band when it charges, else the
    far band (PD4)."""
    if not c.weapon.ranged:
        return v.reach
    return c.weapon.close if c.plan_in_force == "charge" else c.weapon.far


def reaches(c: Combatant, d: int, v: Variants) -> bool:
    """PD3, PD4: whether ``c``'s weapon reaches a foe ``d`` metres away."""
    return d <= (c.weapon.far if c.weapon.ranged else v.reach)


def turn_step(c: Combatant, covered: bool, d: int, v: Variants) -> tuple[bool, bool, int]:
    """PD2, PD6: ``c``'s turn in a duel at ``d`` metres before any roll: ``(rolls,
    covered after, distance after)``. Farther than it :func:`wants`, it moves up to
    ``move`` metres toward its foe (no roll); a ``cover`` plan's first turn in range takes
    cover (no roll); else it rolls. The kernel's ``_turn`` for one foe."""
    want = wants(c, v)
    if d > want:
        return False, covered, d - min(v.move, d - want)
    if c.plan_in_force == "cover" and not covered:
        return False, True, d
    return True, covered, d


# ---------------------------------------------------------------------------------------
# Monte Carlo kernel


@njit(**LEAF)
def _strike(rows, rule, c, t, harm, able, n_able, side, acc, hits_off, less, covered):
    """PC3: ``c`` strikes ``t`` (``less`` harm taken off first: PC9 careful, PD5; PD6: a
    ranged strike on a fighter in cover, ``cover_armour`` less); PC7: the clock takes
    ``t`` out."""
    shield = rule[R_COVER] if covered[t] == 1 and rows[c, C_RANGED] == 1 else 0
    dmg = max(rows[c, C_HARM] - less - rows[t, C_ARMOUR] - shield, 0)
    acc[hits_off + min(dmg, DAMAGE_BINS - 1)] += 1
    harm[t] += dmg
    if able[t] == 1 and harm[t] >= rule[R_CLOCK]:
        able[t] = 0
        n_able[side[t]] -= 1


@njit(**LEAF)
def _order(s, rows, rule, order, n):
    """PC2: this round's turn order into ``order``."""
    for i in range(n):
        order[i] = i  # rows are side 0, then side 1
    if rule[R_ORDER] == ORDER_SIDE0:
        return
    for k in range(n - 1, 0, -1):  # a fresh random order (Fisher-Yates)
        m = bounded(s, k + 1)
        tmp = order[k]
        order[k] = order[m]
        order[m] = tmp
    if rule[R_ORDER] == ORDER_STAT:  # stable sort by stat, highest first
        for i in range(1, n):
            j = i
            while j > 0 and rows[order[j - 1], C_STAT] < rows[order[j], C_STAT]:
                tmp = order[j - 1]
                order[j - 1] = order[j]
                order[j] = tmp
                j -= 1


@njit(**LEAF)
def _aftermath(s2, rule, side, winner, harm, able, fate):
    """PC7, PC8: every combatant's fate at the end of the fight."""
    n = side.size
    for i in range(n):
        over = harm[i] - rule[R_CLOCK]
        if able[i] == 1:
            fate[i] = STANDING
        elif over >= rule[R_DEAD_OVER]:
            fate[i] = DEAD
        elif over == 0:
            fate[i] = OUT
        else:
            fate[i] = DYING
    if winner < 0:
        return
    for i in range(n):
        if rule[R_AFTERMATH] == AFTER_FIRST_AID and fate[i] == DYING:
            if die(s2, 6) + die(s2, 6) >= rule[R_AID_AT]:
                fate[i] = OUT
        elif rule[R_AFTERMATH] == AFTER_FINISH and side[i] != winner:
            fate[i] = DEAD


@njit(**LEAF)
def _reaches(rows, rule, pos, c, t):
    """PD3, PD4: whether ``c``'s weapon reaches ``t``."""
    d = abs(pos[t] - pos[c])
    if rows[c, C_RANGED] == 1:
        return d <= rows[c, C_FAR]
    return d <= rule[R_REACH]


@njit(**LEAF)
def _turn(rows, rule, side, able, pos, covered, c):
    """PD2, PD6: the part of ``c``'s turn before any roll; moves ``pos[c]`` along the line
    toward its nearest able foe and returns 1 when ``c`` rolls this turn (the steps of
    :func:`turn_step`)."""
    near = FAR_AWAY
    for j in range(side.size):
        if side[j] != side[c] and able[j] == 1:
            near = min(near, abs(pos[j] - pos[c]))
    if rows[c, C_RANGED] == 0:
        want = rule[R_REACH]
    elif rows[c, C_PLAN] == CHARGE:
        want = rows[c, C_CLOSE]
    else:
        want = rows[c, C_FAR]
    if near > want:
        pos[c] += (1 - 2 * side[c]) * min(rule[R_MOVE], near - want)
        return 0
    if rows[c, C_PLAN] == COVER_PLAN and covered[c] == 0:
        covered[c] = 1
        return 0
    return 1


@njit(**LEAF)
def _fight(s, s2, rows, side, rule, cap, acc, off, harm, able, order, n_able, fate, cnt,
           pos, covered):
    """One fight (PC2–PC7, PD1–PD6), booked into the flat histogram ``acc`` (offsets
    ``off``)."""
    n = rows.shape[0]
    n_able[0] = 0
    n_able[1] = 0
    # PD1: engaged (0 m) with no cover plan nobody moves and every foe is in reach: the
    # fights without distance, drawing the same numbers
    moving = rule[R_DISTANCE] > 0
    for i in range(n):
        harm[i] = rows[i, C_START]
        able[i] = 1
        n_able[side[i]] += 1
        pos[i] = side[i] * rule[R_DISTANCE]
        covered[i] = 0
        if rows[i, C_PLAN] == COVER_PLAN:
            moving = True
    for sd in range(2):
        acc[off[1] + sd] += n_able[sd]
    hits_off = off[5]
    winner = -1
    r_end = cap
    for r in range(1, cap + 1):
        _order(s, rows, rule, order, n)
        for oi in range(n):
            c = order[oi]
            if able[c] == 0:  # PC2: the fallen do not act
                continue
            enemy = 1 - side[c]
            k = n_able[enemy]
            if moving:
                if _turn(rows, rule, side, able, pos, covered, c) == 0:
                    continue  # PD2: its turn went into moving or taking cover
                k = 0
                for u in range(n):
                    if side[u] == enemy and able[u] == 1 and _reaches(rows, rule, pos, c, u):
                        k += 1
            j = 0
            if rule[R_TARGET_FIRST] == 0 and k > 1:
                j = bounded(s, k)
            t = -1
            for u in range(n):
                if side[u] == enemy and able[u] == 1 and (
                        not moving or _reaches(rows, rule, pos, c, u)):
                    if j == 0:
                        t = u
                        break
                    j -= 1
            total = die(s, 6) + die(s, 6) + rows[c, C_STAT]  # P1
            if rows[c, C_RANGED] == 1 and abs(pos[t] - pos[c]) > rows[c, C_CLOSE]:
                total -= rule[R_FAR_PENALTY]  # PD4: the far band
            back = not moving or _reaches(rows, rule, pos, t, c)  # PD5
            if total >= rule[R_STRONG]:  # PC4
                _strike(rows, rule, c, t, harm, able, n_able, side, acc, hits_off, 0,
                        covered)
            elif total >= rule[R_WEAK]:  # PC5
                careful = rows[c, C_CAREFUL]
                less = rows[c, C_LESS] if careful == 1 else 0  # PC9
                if not back and rule[R_WEAK_LESS] == 1:
                    less = max(less, 1)  # PD5: the volley's cost
                _strike(rows, rule, c, t, harm, able, n_able, side, acc, hits_off, less,
                        covered)
                if back and careful == 0 and able[t] == 1:
                    _strike(rows, rule, t, c, harm, able, n_able, side, acc, hits_off, 0,
                            covered)
            elif back:  # PC6 (PD5: a foe out of reach strikes no one)
                _strike(rows, rule, t, c, harm, able, n_able, side, acc, hits_off, 0,
                        covered)
            if n_able[enemy] == 0:
                winner = side[c]
                break
            if n_able[side[c]] == 0:
                winner = enemy
                break
        if winner >= 0:
            r_end = r
            break
        if r < cap:
            for sd in range(2):
                acc[off[1] + 2 * r + sd] += n_able[sd]
    outcome = winner if winner >= 0 else 2
    acc[outcome] += 1
    acc[off[0] + 3 * r_end + outcome] += 1
    for sd in range(2):
        acc[off[2] + 2 * r_end + sd] += n_able[sd]
    _aftermath(s2, rule, side, winner, harm, able, fate)
    book_fates(acc, off, side, fate, winner, cnt)


@njit(**KERNEL)
def _kernel(first, last, rows, side, rule, cap, off, trials, states, out, end):
    """Whole fights of work items ``first .. last - 1``, ``trials[item]`` each, into
    their own ``out`` rows (the kernel contract of :func:`engines.combat_pools.run_mc`;
    ``end``, the campaign-attrition count, is not used: the module gives no
    ``duel_mc_end``, so attrition's Monte Carlo draws its fights from the exact chain)."""
    n = rows.shape[0]
    for item in range(first, last):
        s = states[item].copy()
        s2 = states[trials.size + item].copy()  # the aftermath's own stream
        acc = np.zeros(out.shape[1], dtype=np.int64)
        z = np.zeros(n, dtype=np.int64)
        harm, able, order, fate = z.copy(), z.copy(), z.copy(), z.copy()
        pos, covered = z.copy(), z.copy()
        n_able, cnt = np.zeros(2, np.int64), np.zeros(8, np.int64)
        for _ in range(trials[item]):
            _fight(s, s2, rows, side, rule, cap, acc, off, harm, able, order, n_able, fate,
                   cnt, pos, covered)
        put(out[item], acc)


def fight_mc(side0: list[Combatant], side1: list[Combatant], trials: int, seed: Seed = None,
             variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo N-vs-M fights to the end or the round cap (PC2–PC8).

    Examples
    --------
    >>> from pbta_2d6.combat import Combatant, fight_mc
    >>> a = Combatant("a", 1)
    >>> st = fight_mc([a, a], [a], trials=1000, seed=1)
    >>> int(st.outcome.sum())
    1000
    """
    v = _variants(variants)
    return run_fight(_kernel, SYSTEM, Combatant, rows, _rule(v), side0, side1, trials, seed,
                     round_cap, dataclasses.asdict(v))


def duel_mc(a: Combatant, b: Combatant, trials: int, seed: Seed = None,
            variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo 1-vs-1 fights (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


# ---------------------------------------------------------------------------------------
# Exact


def _harm(striker: Combatant, struck: Combatant, less: int = 0, shield: int = 0) -> int:
    """PC3: harm of one strike (PC9, PD5: ``less`` taken off for a careful weak hit or
    the volley's cost; PD6: ``shield``, the struck fighter's cover)."""
    return max(striker.weapon.harm - less - struck.armour.points - shield, 0)


def attack_damage(attacker: Combatant, target: Combatant,
                  variants: Variants | None = None, at: int = 0) -> np.ndarray:
    """Exact distribution of the harm ``attacker`` deals ``target`` with one roll (PC3–PC6):
    ``p[k]`` = P(harm ``k``); ``p[0]`` holds the misses (the harm the attacker then takes
    is not counted here). ``at``: metres apart (0 engaged; called in reach only): PD4's
    far band costs ``far_penalty``, and PD5 a weak hit on a foe that cannot reach back
    strikes one harm less under ``weak_at_range = less``."""
    v = _variants(variants)
    attacker.check()
    target.check()
    far = at > 0 and attacker.weapon.ranged and at > attacker.weapon.close
    miss, weak, strong = move_odds(attacker.stat - (v.far_penalty if far else 0), v)
    full = _harm(attacker, target)
    volley = at > 0 and not reaches(target, at, v) and v.weak_at_range == "less"
    weak_harm = _harm(attacker, target, _weak_less(attacker, volley))
    p = np.zeros(full + 1)
    p[full] += strong
    p[weak_harm] += weak
    p[0] += miss
    return p


def _weak_less(f: Combatant, volley: bool) -> int:
    """PC9, PD5: the harm a weak hit holds back: a careful fighter's ``careful_less``, the
    volley's 1 (the larger when both)."""
    return max(f.careful_less if f.tactic == "careful" else 0, 1 if volley else 0)


def _aid(v: Variants) -> float:
    """PC8: P(first aid stabilises a dying fighter) = P(2d6 >= aid_at)."""
    return float(checks.exact(["normal"], v)[0][np.arange(2, 13) >= v.aid_at].sum())


def _fate_after(excess: int, v: Variants) -> np.ndarray:
    """PC7, PC8: P(dead), P(dying), P(out) of a loser that fell alive with ``excess`` harm
    beyond the clock (``0 .. dead_over - 1``), after the aftermath."""
    if v.aftermath == "finish":
        return np.array([1.0, 0.0, 0.0])
    if excess == 0:
        return np.array([0.0, 0.0, 1.0])
    if v.aftermath == "first_aid":
        q = _aid(v)
        return np.array([0.0, 1.0 - q, q])
    return np.array([0.0, 1.0, 0.0])


def _strike_op(striker: Combatant, struck: Combatant, v: Variants, less: int = 0,
               shield: int = 0):
    """One strike (PC3) on the struck fighter's harm axis, with the clock (PC7)."""
    k = _harm(striker, struck, less, shield)
    pmf = np.zeros(k + 1)
    pmf[k] = 1.0
    return attack_op(pmf, pmf, v.clock, True, v.dead_over)


def duel_exact(a: Combatant, b: Combatant, variants: Variants | None = None,
               round_cap: int = ROUND_CAP, start_harm: int = 0,
               end_a: np.ndarray | None = None) -> FightStats:
    """Exact 1-vs-1 fight (PC2–PC8, PD1–PD6) as an absorbing Markov chain.

    ``start_harm``: the harm ``a`` starts with (0 … clock − 1; campaign attrition's
    fights); ``end_a`` (a float array of ``clock`` cells), when given, receives P(``a``
    ends able with harm ``h``): it won, or the round cap stopped the fight.

    State: the harm each fighter has taken (both still standing), ``clock × clock``
    cells, on planes keyed by (distance, side 0 in cover, side 1 in cover) (PD1, PD6);
    nothing else carries over between rounds. A round is each fighter's turn in the PC2
    order (a fixed order, or an even mixture of both when it is random). A turn first
    moves or takes cover (:func:`turn_step`: no dice, so a plane's mass goes to one key);
    a roll mixes its three results with the P2 odds of 2d6 + stat (PD4: less in the far
    band): PC4 one strike on the foe, PC5 a strike and, on what is left standing, the
    foe's strike back (careful: one weaker strike), PC6 the foe's strike — the foe's
    strikes only where its weapon reaches (PD5). Mass whose harm reaches the clock is
    absorbed as a win for the striker, with the harm beyond the clock that PC7/PC8 turn
    into a fate.
    """
    v = _variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    fighters = (a, b)
    if isinstance(start_harm, bool) or not isinstance(start_harm, int | np.integer) \
            or not 0 <= start_harm < v.clock:
        raise InputError(f"start_harm: expected an integer 0..{v.clock - 1} (PC7), got "
                         f"{start_harm!r}")
    ops: dict = {}

    def strike(m: int, less: int, covered: int):
        """Side ``m``'s strike on the other (``covered``: the struck one is in cover)."""
        key = (m, less, covered)
        if key not in ops:
            shield = v.cover_armour if covered and fighters[m].weapon.ranged else 0
            ops[key] = _strike_op(fighters[m], fighters[1 - m], v, less, shield)
        return ops[key]

    def roll(m: int, key, plane: np.ndarray, nxt: dict) -> None:
        """PC3–PC6, PD4, PD5: side ``m`` rolls at distance ``key[0]``."""
        d, cov_m, cov_t = key[0], key[1 + m], key[2 - m]
        f = fighters[m]
        far = f.weapon.ranged and d > f.weapon.close
        miss, weak, strong = move_odds(f.stat - (v.far_penalty if far else 0), v)
        chain.attack(nxt, m, key, key, strong * plane, strike(m, 0, cov_t))  # PC4
        if not reaches(fighters[1 - m], d, v):  # PD5: no strike back
            less = _weak_less(f, v.weak_at_range == "less")
            chain.attack(nxt, m, key, key, weak * plane, strike(m, less, cov_t))
            chain.add(nxt, key, miss * plane)
            return
        if f.tactic == "careful":  # PC5 / PC9
            chain.attack(nxt, m, key, key, weak * plane, strike(m, f.careful_less, cov_t))
        else:  # PC5: strike, then the foe strikes back if it still stands
            hit: dict = {}
            chain.attack(hit, m, key, key, weak * plane, strike(m, 0, cov_t))
            chain.attack(nxt, 1 - m, key, key, hit[key], strike(1 - m, 0, cov_m))
        chain.attack(nxt, 1 - m, key, key, miss * plane, strike(1 - m, 0, cov_m))  # PC6

    def turn(m: int, cur: dict) -> dict:
        nxt: dict = {}
        for key, plane in cur.items():
            covered = [key[1], key[2]]
            rolls, cov, d = turn_step(fighters[m], bool(covered[m]), key[0], v)
            covered[m] = int(cov)
            if rolls:
                roll(m, key, plane, nxt)
            else:
                chain.add(nxt, (d, *covered), plane)
        return nxt

    if v.order == "side0_first" or (v.order == "stat" and a.stat > b.stat):
        orders = [(1.0, (0, 1))]
    elif v.order == "stat" and a.stat < b.stat:
        orders = [(1.0, (1, 0))]
    else:  # a fresh random order each round (coin, or equal stats)
        orders = [(0.5, (0, 1)), (0.5, (1, 0))]
    chain = DuelChain(SYSTEM, (v.clock, v.clock), cap,
                      {(v.distance, 0, 0): _start(v.clock, int(start_harm))})
    for _ in range(cap):
        new: dict = {}
        for w, order in orders:
            cur = {key: w * plane for key, plane in chain.planes.items()}
            for m in order:
                cur = turn(m, cur)
            for key, plane in cur.items():
                chain.add(new, key, plane)
        chain.planes = new
        chain.end_round()
        if chain.total() < 1e-16:
            break
    chain.finish()
    if end_a is not None:  # a won with harm h, or stands at the cap with harm h
        end_a += chain.won_at[0] + sum(p.sum(axis=1) for p in chain.planes.values())
    stats = chain.aftermath(lambda _w, e: _fate_after(e, v))
    return finish_duel(stats, a, b, dataclasses.asdict(v))


def _start(clock: int, harm_a: int = 0) -> np.ndarray:
    start = np.zeros((clock, clock))
    start[harm_a, 0] = 1.0
    return start


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one roll of ``attacker`` does to an unharmed ``target`` (PC3–PC8).

    ``p_hit``: a weak or strong hit (P2); ``p_incapacitate``: its strike reaches the
    clock (PC7: never with the data file's weapons, harm 3 at most on a 6-clock);
    ``p_kill``: it reaches the clock plus ``dead_over``; ``p_dead`` / ``p_dying`` /
    ``p_out``: it takes the target out and the target then ends dead / dying / out after
    the aftermath with the attacker as the winner (they sum to ``p_incapacitate``).

    At a starting distance (variant ``distance`` > 0) the roll is made from there (PD3,
    PD4, PD5; :func:`attack_damage`), and the result also has ``in_range``: False, every
    figure 0, when the attacker's weapon does not reach.
    """
    v = _variants(variants)
    if v.distance > 0 and not reaches(attacker, v.distance, v):
        return {**dict.fromkeys(("p_hit", "p_incapacitate", "p_kill", "p_dead",
                                 "p_dying", "p_out"), 0.0), "in_range": False}
    p = attack_damage(attacker, target, v, v.distance)
    far = v.distance > 0 and attacker.weapon.ranged and v.distance > attacker.weapon.close
    _miss, weak, strong = move_odds(attacker.stat - (v.far_penalty if far else 0), v)
    fates = np.zeros(3)
    for k in range(v.clock, p.size):
        if k - v.clock >= v.dead_over:
            fates[0] += p[k]
        else:
            fates += p[k] * _fate_after(k - v.clock, v)
    odds = {"p_hit": float(weak + strong),
            "p_incapacitate": float(p[v.clock:].sum()),
            "p_kill": float(p[v.clock + v.dead_over:].sum()),
            "p_dead": float(fates[0]), "p_dying": float(fates[1]), "p_out": float(fates[2])}
    return {**odds, "in_range": True} if v.distance > 0 else odds
