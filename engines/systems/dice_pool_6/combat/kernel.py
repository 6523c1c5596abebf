"""``dice_pool_6`` combat, Monte Carlo (C6, C10–C13, CT1 and the aftermath): the fight
helpers, the serial kernel :func:`fight_kernel` and its drivers :func:`fight_mc`,
:func:`duel_mc` and :func:`duel_mc_end` (campaign attrition)."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import DEAD, OUT, STANDING, book_fates, run_fight, run_mc_end
from engines.config import KERNEL, LEAF
from engines.constants import ROUND_CAP
from engines.distance import COVER as COVER_PLAN
from engines.distance import KITE
from engines.fight import DAMAGE_BINS, FightStats, check_round_cap, check_start_damage
from engines.rng import Seed, bounded
from engines.rolls import roll_pool

from .rules import (
    AFTER_FINISH,
    C_ATT,
    C_COVER,
    C_CROWD,
    C_DEATH,
    C_DEF,
    C_DMG,
    C_HEALTH,
    C_PLAN,
    C_RANGED,
    C_SPLIT,
    C_START,
    C_TAKEN,
    R_AFTERMATH,
    R_CLOSE,
    R_DISTANCE,
    R_FINISH_ROUNDS,
    R_HELPLESS_FULL,
    R_MEDIUM,
    R_MIN_DAMAGE,
    R_ORDER,
    R_REACH,
    R_TARGET_FIRST,
    R_TIE_NEEDS_SUCCESS,
    SYSTEM,
    Combatant,
    Variants,
    as_variants,
    rows,
    rule_array,
)


@njit(**LEAF)
def _roll(s, n, rule):
    """C1/C-g2 successes of ``n`` dice (0 dice: none)."""
    return roll_pool(s, n, rule[0], rule[1], rule[2], rule[3], rule[4]) - 1


@njit(**LEAF)
def _roll2(s, n_first, n_second, rule):
    """Two pools rolled in turn (attack, then dodge) through one inlined copy of the pool
    roll: the kernel compiles one copy of ``roll_pool`` per caller instead of two."""
    first = 0
    second = 0
    for k in range(2):
        v = _roll(s, n_first if k == 0 else n_second, rule)
        if k == 0:
            first = v
        else:
            second = v
    return first, second


@njit(**LEAF)
def _contest(
    s, rows, rule, c, t, dice, defended, covered, dmg_taken, able, dead, n_able, side, acc, hits_off
):
    """C10–C13: one attack of ``c`` with ``dice`` on ``t``; ``defended`` = earlier attacks
    on ``t`` this round; ``covered[t]``: ``t`` has taken cover (CT-g2)."""
    dodge = rows[t, C_DEF] - rows[t, C_CROWD] * defended  # C13
    if rows[c, C_RANGED] == 1:
        dodge += rows[t, C_TAKEN] if covered[t] == 1 else rows[t, C_COVER]  # C12, CT-g2
    att, dfn = _roll2(s, dice, dodge, rule)
    if att < dfn or (att == 0 and rule[R_TIE_NEEDS_SUCCESS] != 0):
        return
    dmg = att - dfn + rows[c, C_DMG]  # C11
    if dmg == 0 and rule[R_MIN_DAMAGE] != 0:  # C-g4
        dmg = 1
    acc[hits_off + min(dmg, DAMAGE_BINS - 1)] += 1
    dmg_taken[t] += dmg
    if rows[t, C_DEATH] >= 0 and dmg_taken[t] >= rows[t, C_DEATH]:
        dead[t] = 1
    if able[t] == 1 and dmg_taken[t] >= rows[t, C_HEALTH]:  # C6
        able[t] = 0
        n_able[side[t]] -= 1


@njit(**LEAF)
def _finish_blow(s2, rows, rule, c, t, defended, dmg_taken, dead):
    """C-g7: one attack of ``c`` on the helpless ``t`` (C10, C11, C-g4, C-g5); under
    ``helpless_dodge = full`` its dodge pool loses a die for each earlier finishing attack
    on it this round (C13, ``defended``), as in the fight."""
    dodge = 0
    if rule[R_HELPLESS_FULL] != 0:
        cover = rows[t, C_COVER] if rows[c, C_RANGED] == 1 else 0  # C12
        dodge = rows[t, C_DEF] - rows[t, C_CROWD] * defended + cover  # C13
    att, dfn = _roll2(s2, rows[c, C_ATT], dodge, rule)
    if att < dfn or (att == 0 and rule[R_TIE_NEEDS_SUCCESS] != 0):
        return
    dmg = att - dfn + rows[c, C_DMG]
    if dmg == 0 and rule[R_MIN_DAMAGE] != 0:
        dmg = 1
    dmg_taken[t] += dmg
    if dmg_taken[t] >= rows[t, C_DEATH]:
        dead[t] = 1


@njit(**LEAF)
def _aftermath(s2, rows, side, rule, winner, dmg_taken, able, dead, defended, fate):
    """Lethality outcomes (C-g5..C-g7): every combatant's fate after the aftermath;
    ``defended`` is scratch (the finishing attacks on each fallen foe this round, C13)."""
    n = rows.shape[0]
    for i in range(n):
        fate[i] = STANDING if able[i] == 1 else (DEAD if dead[i] == 1 else OUT)
    if winner < 0 or rule[R_AFTERMATH] != AFTER_FINISH:
        return  # leave, and first aid (C-g6): no one is dying
    loser = 1 - winner
    for _r in range(rule[R_FINISH_ROUNDS]):
        for i in range(n):
            defended[i] = 0
        for c in range(n):
            if side[c] != winner or able[c] == 0:
                continue
            t = -1
            for u in range(n):
                if side[u] == loser and fate[u] != DEAD and rows[u, C_DEATH] >= 0:
                    t = u
                    break
            if t < 0:
                return
            _finish_blow(s2, rows, rule, c, t, defended[t], dmg_taken, dead)
            defended[t] += 1
            if dead[t] == 1:
                fate[t] = DEAD


#: farther than any distance a fight can reach (engines.distance.MAX_DISTANCE and moves)
FAR_AWAY = 1 << 40


@njit(**LEAF)
def _act(rows, rule, side, able, pos, covered, c):
    """CT1, CT-g1, CT-g2: the part of ``c``'s turn before its attack, by its plan; moves
    ``pos[c]`` and returns 1 when ``c`` still attacks this turn. Every fighter stands on
    one line (side 0 starts at 0 m, side 1 at the starting distance) and moves along it,
    toward its foes (closing on the nearest able one) or away (a kiter stepping back from
    the nearest able melee foe). The steps of ``rules.turn_step``."""
    plan = rows[c, C_PLAN]
    if plan == COVER_PLAN and covered[c] == 0:
        covered[c] = 1  # CT-g2: the turn goes into taking cover
        return 0
    near = FAR_AWAY
    threat = FAR_AWAY
    for j in range(side.size):
        if side[j] != side[c] and able[j] == 1:
            dist = abs(pos[j] - pos[c])
            near = min(near, dist)
            if rows[j, C_RANGED] == 0:
                threat = min(threat, dist)
    toward = 1 - 2 * side[c]
    if rows[c, C_RANGED] == 1:  # no range penalty: it shoots from where it stands
        if plan == KITE and threat <= rule[R_CLOSE]:
            pos[c] -= toward * rule[R_CLOSE]  # a step away that leaves its action
        return 1
    reach = rule[R_REACH]
    if near <= reach:
        return 1
    if near <= rule[R_CLOSE]:  # CT-g1: close, and still attack
        pos[c] += toward * (near - reach)
        return 1
    pos[c] += toward * min(rule[R_MEDIUM], near - reach)  # CT-g1: a turn of running
    return 0


@njit(**LEAF)
def _in_reach(rows, rule, side, able, pos, c, t, enemy):
    """Whether ``c`` can attack ``t``: an able foe within its melee reach, or any able
    foe for a ranged weapon (no range limit: the seed gives none)."""
    if side[t] != enemy or able[t] != 1:
        return False
    return rows[c, C_RANGED] == 1 or abs(pos[t] - pos[c]) <= rule[R_REACH]


@njit(**LEAF)
def _shuffle(s, order, n):
    for k in range(n - 1, 0, -1):
        m = bounded(s, k + 1)
        tmp = order[k]
        order[k] = order[m]
        order[m] = tmp


@njit(**LEAF)
def _fight(
    s,
    s2,
    rows,
    side,
    rule,
    cap,
    acc,
    off,
    dmg_taken,
    able,
    dead,
    defended,
    order,
    n_able,
    fate,
    cnt,
    pos,
    covered,
):
    n = rows.shape[0]
    for sd in range(2):
        n_able[sd] = 0
    for i in range(n):
        dmg_taken[i] = rows[i, C_START]
        able[i] = 1
        dead[i] = 0
        order[i] = i  # side 0 first: rows are side 0 then side 1
        n_able[side[i]] += 1
        # CT1: side 0 stands at 0 m, side 1 at the starting distance
        pos[i] = side[i] * rule[R_DISTANCE]
        covered[i] = 0
    # engaged (0 m) with no kiter and no cover plan nobody moves and every foe is in
    # reach: the fights without distance, which draw the same numbers as before
    moving = rule[R_DISTANCE] > 0
    for i in range(n):
        if rows[i, C_PLAN] == KITE or rows[i, C_PLAN] == COVER_PLAN:
            moving = True
    if rule[R_ORDER] == 1:
        _shuffle(s, order, n)
    for sd in range(2):
        acc[off[1] + sd] += n_able[sd]
    hits_off = off[5]
    winner = -1
    r_end = cap
    for r in range(1, cap + 1):
        if rule[R_ORDER] == 0:
            _shuffle(s, order, n)
        for i in range(n):
            defended[i] = 0
        for oi in range(n):
            c = order[oi]
            if able[c] == 0:  # the fallen do not act
                continue
            enemy = 1 - side[c]
            k = n_able[enemy]  # the able foes it can attack
            if moving:
                if _act(rows, rule, side, able, pos, covered, c) == 0:
                    continue  # CT1: its turn went into moving or taking cover
                k = 0
                for u in range(n):
                    if _in_reach(rows, rule, side, able, pos, c, u, enemy):
                        k += 1
                if k == 0:
                    continue
            pool = rows[c, C_ATT]
            split = rows[c, C_SPLIT] == 1 and k > 1  # C13: split the pool
            pick = -1
            if not split:
                j = 0
                if rule[R_TARGET_FIRST] == 0 and k > 1:
                    j = bounded(s, k)
                for u in range(n):
                    if _in_reach(rows, rule, side, able, pos, c, u, enemy):
                        if j == 0:
                            pick = u
                            break
                        j -= 1
            # one call site of _contest for both cases (one inlined copy to compile)
            j = 0
            for t in range(n):
                if split:
                    if not _in_reach(rows, rule, side, able, pos, c, t, enemy):
                        continue
                    dice = pool // k + (1 if j < pool % k else 0)
                    j += 1
                elif t != pick:
                    continue
                else:
                    dice = pool
                _contest(
                    s,
                    rows,
                    rule,
                    c,
                    t,
                    dice,
                    defended[t],
                    covered,
                    dmg_taken,
                    able,
                    dead,
                    n_able,
                    side,
                    acc,
                    hits_off,
                )
                defended[t] += 1
            if n_able[enemy] == 0:
                winner = side[c]
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
    _aftermath(s2, rows, side, rule, winner, dmg_taken, able, dead, defended, fate)
    book_fates(acc, off, side, fate, winner, cnt)


@njit(**LEAF)
def _chunk(
    n_trials,
    s,
    s2,
    rows,
    side,
    rule,
    cap,
    acc,
    off,
    dmg_taken,
    able,
    dead,
    defended,
    order,
    n_able,
    fate,
    cnt,
    pos,
    covered,
    end,
):
    """``n_trials`` fights of one work item into ``acc``; every scratch array comes from
    :func:`fight_kernel`. ``end`` (campaign attrition) counts combatant 0's end: able with its
    damage, or its fate; with no columns (a plain run) nothing is counted."""
    health = end.size - 4
    for _ in range(n_trials):
        _fight(
            s,
            s2,
            rows,
            side,
            rule,
            cap,
            acc,
            off,
            dmg_taken,
            able,
            dead,
            defended,
            order,
            n_able,
            fate,
            cnt,
            pos,
            covered,
        )
        if health >= 0:
            if fate[0] == 0:
                end[dmg_taken[0]] += 1
            else:
                end[health + fate[0]] += 1


@njit(**KERNEL)
def fight_kernel(first, last, rows, side, rule, cap, off, trials, states, out, end):
    """Whole fights of chunks ``first .. last - 1``, ``trials[chunk]`` per chunk, each into
    its own ``out`` row and ``end[chunk]`` (arguments, offsets and the attrition count:
    :func:`engines.combat_pools._run`)."""
    n = rows.shape[0]
    for item in range(first, last):
        s = states[item].copy()
        s2 = states[trials.size + item].copy()  # the aftermath's own stream
        acc = np.zeros(out.shape[1], dtype=np.int64)
        z = np.zeros(n, dtype=np.int64)
        dmg_taken, able, dead, defended, order = z.copy(), z.copy(), z.copy(), z.copy(), z.copy()
        fate, cnt, n_able = z.copy(), np.zeros(8, np.int64), np.zeros(2, np.int64)
        pos, covered = z.copy(), z.copy()
        _chunk(
            trials[item],
            s,
            s2,
            rows,
            side,
            rule,
            cap,
            acc,
            off,
            dmg_taken,
            able,
            dead,
            defended,
            order,
            n_able,
            fate,
            cnt,
            pos,
            covered,
            end[item],
        )
        put(out[item], acc)


def duel_mc_end(
    a: Combatant,
    b: Combatant,
    start_damage: int,
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` conflicts of ``a`` started with
    ``start_damage`` against a fresh ``b``; counts of ``a``'s end (able with ``d`` damage
    for ``d < a.health``, then dead, dying, out at ``a.health + 1..3``)."""
    v = as_variants(variants)
    cap = check_round_cap(round_cap)
    start_damage = check_start_damage(start_damage, a.health)
    r = rows([a, b], v)
    r[0, C_START] = start_damage
    return run_mc_end(fight_kernel, r, np.array([0, 1]), rule_array(v), trials, seed, cap, a.health)


def fight_mc(
    side0: list[Combatant],
    side1: list[Combatant],
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo N-vs-M conflicts to the end or the round cap (C6, C10–C13), started
    ``variants.distance`` metres apart (CT1, CT-g1, CT-g2; every fighter on one line).

    Examples
    --------
    >>> from engines.systems.dice_pool_6.combat import Combatant, fight_mc
    >>> a = Combatant("a", 3, 2, 3, 2, stamina=2)
    >>> st = fight_mc([a, a], [a], trials=1000, seed=1)
    >>> int(st.outcome.sum())
    1000
    """
    v = as_variants(variants)
    return run_fight(
        fight_kernel,
        SYSTEM,
        Combatant,
        lambda cs: rows(cs, v),
        rule_array(v),
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
    """Monte Carlo 1-vs-1 conflicts (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
