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

Layout: this module holds the kernel — its row and rule-array layouts (``C_*``, ``R_*``)
with :func:`row`, :func:`rows` that fill them, the ``@njit`` LEAF helpers, the kernel and
its drivers :func:`fight_mc`, :func:`duel_mc`. They stay in one file: numba keys a
kernel's cache on its own file only, so a helper or a layout edited in another file would
leave a stale compiled kernel. The Python side — :class:`Variants`, :class:`Weapon`,
:class:`Armour`, :class:`Combatant`, one turn's move (:func:`turn_step`) and the exact
duel (:func:`duel_exact`, :func:`attack_damage`, :func:`one_hit`) — is
:mod:`pbta_2d6.fighters`, re-exported here, so the suite reads every combat name from
this one engine module (``Combat.module``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import (
    DEAD,
    DYING,
    OUT,
    STANDING,
    book_fates,
    run_fight,
)
from engines.config import KERNEL, LEAF
from engines.distance import CHARGE, plan_code
from engines.distance import COVER as COVER_PLAN
from engines.fight import AFTERMATHS, DAMAGE_BINS, ROUND_CAP, FightStats
from engines.rng import Seed, bounded, die

from .fighters import (
    DEFAULT,
    FISTS,
    NO_ARMOUR,
    NO_RULE,
    ORDERS,
    SYSTEM,
    TACTICS,
    Armour,
    Combatant,
    Variants,
    Weapon,
    attack_damage,
    checked_variants,
    duel_exact,
    one_hit,
    reaches,
    turn_step,
    wants,
)

#: The engine module's names (the suite reads the combat hooks here): the kernel's layouts
#: and drivers defined below, and :mod:`pbta_2d6.fighters` re-exported.
__all__ = [
    "AFTER_FINISH",
    "AFTER_FIRST_AID",
    "AFTER_LEAVE",
    "C_ARMOUR",
    "C_CAREFUL",
    "C_CLOSE",
    "C_FAR",
    "C_HARM",
    "C_LESS",
    "C_PLAN",
    "C_RANGED",
    "C_START",
    "C_STAT",
    "DEFAULT",
    "FAR_AWAY",
    "FISTS",
    "NO_ARMOUR",
    "NO_RULE",
    "N_COLS",
    "ORDERS",
    "ORDER_COIN",
    "ORDER_SIDE0",
    "ORDER_STAT",
    "R_AFTERMATH",
    "R_AID_AT",
    "R_CLOCK",
    "R_COVER",
    "R_DEAD_OVER",
    "R_DISTANCE",
    "R_FAR_PENALTY",
    "R_MOVE",
    "R_ORDER",
    "R_REACH",
    "R_STRONG",
    "R_TARGET_FIRST",
    "R_WEAK",
    "R_WEAK_LESS",
    "SYSTEM",
    "TACTICS",
    "Armour",
    "Combatant",
    "Variants",
    "Weapon",
    "attack_damage",
    "checked_variants",
    "duel_exact",
    "duel_mc",
    "fight_mc",
    "one_hit",
    "reaches",
    "row",
    "rows",
    "turn_step",
    "wants",
]

# kernel row of a combatant
C_STAT, C_HARM, C_ARMOUR, C_CAREFUL, C_START = 0, 1, 2, 3, 4
C_RANGED, C_CLOSE, C_FAR, C_PLAN = 5, 6, 7, 8  # PD4, PD6
C_LESS = 9  # PC9: the harm a careful weak hit holds back (rule data)
N_COLS = 10
# kernel rule array
R_WEAK, R_STRONG, R_ORDER, R_TARGET_FIRST, R_AFTERMATH, R_CLOCK, R_DEAD_OVER, R_AID_AT = range(8)
R_DISTANCE, R_MOVE, R_REACH, R_FAR_PENALTY, R_WEAK_LESS, R_COVER = range(8, 14)
FAR_AWAY = 1 << 30  # farther than any fighter stands
ORDER_STAT, ORDER_COIN, ORDER_SIDE0 = 0, 1, 2
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2


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
    return np.array(
        [
            v.weak_at,
            v.strong_at,
            ORDERS.index(v.order),
            int(v.targeting == "first"),
            AFTERMATHS.index(v.aftermath),
            v.clock,
            v.dead_over,
            v.aid_at,
            v.distance,
            v.move,
            v.reach,
            v.far_penalty,
            int(v.weak_at_range == "less"),
            v.cover_armour,
        ],
        dtype=np.int64,
    )


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
def _fight(
    s, s2, rows, side, rule, cap, acc, off, harm, able, order, n_able, fate, cnt, pos, covered
):
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
                if (
                    side[u] == enemy
                    and able[u] == 1
                    and (not moving or _reaches(rows, rule, pos, c, u))
                ):
                    if j == 0:
                        t = u
                        break
                    j -= 1
            total = die(s, 6) + die(s, 6) + rows[c, C_STAT]  # P1
            if rows[c, C_RANGED] == 1 and abs(pos[t] - pos[c]) > rows[c, C_CLOSE]:
                total -= rule[R_FAR_PENALTY]  # PD4: the far band
            back = not moving or _reaches(rows, rule, pos, t, c)  # PD5
            if total >= rule[R_STRONG]:  # PC4
                _strike(rows, rule, c, t, harm, able, n_able, side, acc, hits_off, 0, covered)
            elif total >= rule[R_WEAK]:  # PC5
                careful = rows[c, C_CAREFUL]
                less = rows[c, C_LESS] if careful == 1 else 0  # PC9
                if not back and rule[R_WEAK_LESS] == 1:
                    less = max(less, 1)  # PD5: the volley's cost
                _strike(rows, rule, c, t, harm, able, n_able, side, acc, hits_off, less, covered)
                if back and careful == 0 and able[t] == 1:
                    _strike(rows, rule, t, c, harm, able, n_able, side, acc, hits_off, 0, covered)
            elif back:  # PC6 (PD5: a foe out of reach strikes no one)
                _strike(rows, rule, t, c, harm, able, n_able, side, acc, hits_off, 0, covered)
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
            _fight(
                s,
                s2,
                rows,
                side,
                rule,
                cap,
                acc,
                off,
                harm,
                able,
                order,
                n_able,
                fate,
                cnt,
                pos,
                covered,
            )
        put(out[item], acc)


def fight_mc(
    side0: list[Combatant],
    side1: list[Combatant],
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo N-vs-M fights to the end or the round cap (PC2–PC8).

    Examples
    --------
    >>> from pbta_2d6.combat import Combatant, fight_mc
    >>> a = Combatant("a", 1)
    >>> st = fight_mc([a, a], [a], trials=1000, seed=1)
    >>> int(st.outcome.sum())
    1000
    """
    v = checked_variants(variants)
    return run_fight(
        _kernel,
        SYSTEM,
        Combatant,
        rows,
        _rule(v),
        side0,
        side1,
        trials,
        seed,
        round_cap,
        dataclasses.asdict(v),
    )


def duel_mc(
    a: Combatant,
    b: Combatant,
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo 1-vs-1 fights (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
