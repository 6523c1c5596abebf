"""``dice_pool_7`` combat, Monte Carlo (A6–A16, AT1–AT3 and the aftermath): the fight
helpers, the serial kernel :func:`fight_kernel` and its drivers :func:`fight_mc`,
:func:`duel_mc` and :func:`duel_mc_end` (campaign attrition)."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import DEAD, DYING, OUT, STANDING, book_fates, run_fight, run_mc_end
from engines.config import INLINE, KERNEL, LEAF
from engines.constants import ROUND_CAP
from engines.distance import CHARGE, KITE
from engines.fight import DAMAGE_BINS, FightStats, check_round_cap, check_start_damage
from engines.rng import Seed, bounded, d10
from engines.rolls import roll_pool

from .rules import (
    AFTER_FINISH,
    AFTER_FIRST_AID,
    AFTER_LEAVE,
    ATTACK_ATTACK,
    ATTACK_DODGE,
    BAND_FACTORS,
    BASHING,
    BURST_DICE,
    BURST_TARGETS,
    C_ARMOUR,
    C_ATTR,
    C_BURST,
    C_CON,
    C_DEATH,
    C_DEF,
    C_DMG,
    C_DODGE,
    C_DTYPE,
    C_FAR,
    C_FIRST,
    C_FOCUS,
    C_INIT,
    C_MODS,
    C_MOVE,
    C_PLAN,
    C_START,
    C_TACTIC,
    C_THREAT,
    C_VIT,
    C_WP,
    C_WP_DEF,
    C_WP_DICE,
    C_WPPOL,
    FOCUS_ATTACK,
    LETHAL,
    MODIFIER_CAP,
    R_AFTERMATH,
    R_AID_DICE,
    R_AID_TRIES,
    R_ARMOUR_SUCCESSES,
    R_BURST_INSIDE_CAP,
    R_DISTANCE,
    R_DODGE_END_OF_ROUND,
    R_FINISH_LETHAL,
    R_FINISH_ROUNDS,
    R_HELPLESS_FULL,
    R_HORIZON_DAY,
    R_INIT_D10,
    R_RANGE_PENALTY,
    R_TARGET_FIRST,
    SYSTEM,
    WP_ATTACK_EARLY,
    WP_ATTACK_LATE,
    WP_DEFENSE_EARLY,
    WP_DEFENSE_LATE,
    Combatant,
    Variants,
    as_variants,
    rows,
    rule_array,
)


@njit(**INLINE)
def _roll(s, n, rule):
    """Successes of a pool of ``n`` dice (A1, A-g1); a dramatic failure counts none."""
    code = roll_pool(s, n, rule[0], rule[1], rule[2], rule[3], rule[4])
    return code - 1 if code > 0 else 0


#: farther than any distance a fight can reach (engines.distance.MAX_DISTANCE and moves)
FAR_AWAY = 1 << 40


@njit(**INLINE)
def _pick_target(s, side, able, enemy, n_enemy, first, pos, c, far):
    """The ``j``-th able combatant of side ``enemy`` within ``far`` metres of ``c``
    (``n_enemy`` of them): random (or the first)."""
    j = 0
    if first == 0 and n_enemy > 1:
        j = bounded(s, n_enemy)
    for t in range(side.size):
        if side[t] == enemy and able[t] == 1 and abs(pos[t] - pos[c]) <= far:
            if j == 0:
                return t
            j -= 1
    return -1


@njit(**INLINE)
def _gaps(rows, side, able, pos, c):
    """``(near, room)``: metres from ``c`` to its nearest able foe, and how far it may
    close before a melee foe could strike it next turn (negative: one already can;
    reach + a move, ``C_THREAT``)."""
    near = FAR_AWAY
    room = FAR_AWAY
    for j in range(side.size):
        if side[j] != side[c] and able[j] == 1:
            dist = abs(pos[j] - pos[c])
            near = min(near, dist)
            if rows[j, C_THREAT] >= 0:
                room = min(room, dist - rows[j, C_THREAT] - 1)
    return near, room


@njit(**LEAF)
def _moves(rows, side, able, pos, c):
    """AT1: the move actions of ``c``'s turn (0..2) by its plan, updating ``pos[c]``;
    the actions left are its attacks. Every fighter stands on one line (side 0 starts at
    0 m, side 1 at the starting distance) and moves along it: toward its foes while
    closing, away from them while kiting. The steps of ``rules.turn_moves``, the nearest
    able foe standing for the one foe of a duel and the tightest melee threat for its
    threat."""
    plan = rows[c, C_PLAN]
    step = rows[c, C_MOVE]
    toward = 1 - 2 * side[c]
    used = 0
    while used < 2:
        near, room = _gaps(rows, side, able, pos, c)
        if plan == KITE and room < 0:
            pos[c] -= toward * step
            used += 1
            continue
        if plan == KITE:
            gap = min(near - rows[c, C_FAR], room)
        elif plan == CHARGE:
            gap = near - rows[c, C_FIRST]
        else:
            gap = near - rows[c, C_FAR]
        if gap <= 0:
            break
        pos[c] += toward * min(step, gap)
        used += 1
    return used


@njit(**LEAF)
def _in_reach(side, able, pos, c, enemy, far):
    """Able combatants of side ``enemy`` within ``far`` metres of ``c`` (AT3, AT-g2)."""
    k = 0
    for t in range(side.size):
        if side[t] == enemy and able[t] == 1 and abs(pos[t] - pos[c]) <= far:
            k += 1
    return k


@njit(**LEAF)
def _range_dice(rows, rule, c, t, pos):
    """AT3 / AT-g1: dice ``c`` loses shooting at ``t`` (``range_penalty`` a band beyond
    the short one); 0 in melee, whose first band is its reach."""
    dist = abs(pos[t] - pos[c])
    first = rows[c, C_FIRST]
    if dist <= first:
        return 0
    return rule[R_RANGE_PENALTY] * (1 if dist <= BAND_FACTORS[1] * first else 2)


@njit(**LEAF)
def _strike(
    s,
    rows,
    rule,
    c,
    t,
    dice,
    lethal_dmg,
    bash_dmg,
    con_dmg,
    able,
    dead,
    dodging,
    dodge_succ,
    boost,
    n_able,
    side,
    acc,
    hits_off,
):
    """One attack of ``c`` on ``t`` with ``dice`` before the target's defence (A7–A10)."""
    pool = dice
    if dodging[t] == 1:
        pool -= dodge_succ[t]  # A9: instead of Defense
    else:
        pool -= rows[t, C_DEF] + rows[t, C_WP_DEF] * boost[t]  # A8, A4
    succ = _roll(s, pool, rule)
    if succ == 0:
        return
    dtype = rows[c, C_DTYPE]
    armour = rows[t, C_ARMOUR + dtype]  # A13
    if rule[R_ARMOUR_SUCCESSES] != 0:  # variant: armour cancels successes only
        dmg = max(succ - armour, 0) + rows[c, C_DMG]
    else:  # A10: armour ignores points of successes + weapon damage
        dmg = max(succ + rows[c, C_DMG] - armour, 0)
    acc[hits_off + min(dmg, DAMAGE_BINS - 1)] += 1
    if able[t] == 1 and wound(
        t, dmg, dtype, rows[t, C_VIT], rows[t, C_DEATH], lethal_dmg, bash_dmg, con_dmg, dead
    ):
        able[t] = 0
        n_able[side[t]] -= 1


@njit(**INLINE)
def wound(t, dmg, dtype, vit, death, lethal_dmg, bash_dmg, con_dmg, dead):
    """A14, A15, A-g5: book ``dmg`` of type ``dtype`` on ``t``; True when ``t`` is down.

    Bashing and lethal (or ballistic) damage are tracked apart; ``t`` is down when
    bashing + lethal reaches its vitality ``vit``. Lethal damage beyond vitality lowers
    CON (``con_dmg``); ``t`` is dead when that reaches ``death`` (-1: never).
    """
    if dtype == BASHING:
        bash_dmg[t] += dmg
    else:
        lethal_dmg[t] += dmg
        if lethal_dmg[t] > vit:  # A15: beyond vitality, damage lowers CON
            over = lethal_dmg[t] - vit
            lethal_dmg[t] = vit
            if death >= 0:
                con_dmg[t] += over
                if con_dmg[t] >= death:
                    dead[t] = 1
    return dead[t] == 1 or lethal_dmg[t] + bash_dmg[t] >= vit


@njit(**INLINE)
def _fallen_fate(t, rows, lethal_dmg, dead):
    """A15: dead at CON 0; dying when lethal damage fills vitality; else out (A14)."""
    if dead[t] == 1:
        return DEAD
    if lethal_dmg[t] >= rows[t, C_VIT]:
        return DYING
    return OUT


@njit(**INLINE)
def _helpless_dice(rows, c):
    """A7 with A2, A5, A12 for one target: the attack dice of ``c`` on a helpless foe."""
    mods = min(max(rows[c, C_MODS] + BURST_DICE[rows[c, C_BURST]], -MODIFIER_CAP), MODIFIER_CAP)
    return rows[c, C_ATTR] + mods


@njit(**LEAF)
def _finish_blow(s2, rows, rule, c, t, lethal_dmg, bash_dmg, con_dmg, dead):
    """A-g11, A-g12: one plain attack of ``c`` on the helpless ``t`` (A7, A10, A13, A15)."""
    pool = _helpless_dice(rows, c)
    if rule[R_HELPLESS_FULL] != 0:
        pool -= rows[t, C_DEF]
    succ = _roll(s2, pool, rule)
    if succ == 0:
        return
    dtype = rows[c, C_DTYPE]
    if dtype == BASHING and rule[R_FINISH_LETHAL] != 0:  # A11: the attacker chooses lethal
        dtype = LETHAL
    armour = rows[t, C_ARMOUR + dtype]
    if rule[R_ARMOUR_SUCCESSES] != 0:
        dmg = max(succ - armour, 0) + rows[c, C_DMG]
    else:
        dmg = max(succ + rows[c, C_DMG] - armour, 0)
    if dtype == BASHING:
        bash_dmg[t] += dmg  # bashing damage never kills (A14)
        return
    vit = rows[t, C_VIT]
    if lethal_dmg[t] < vit and rows[t, C_DEATH] < 0:  # overflow_to_con off: excess lost
        lethal_dmg[t] = min(lethal_dmg[t] + dmg, vit)
        return
    lethal_dmg[t] += dmg
    if lethal_dmg[t] > vit:  # A15: beyond vitality, damage lowers CON; CON 0 is death
        con_dmg[t] += lethal_dmg[t] - vit
        lethal_dmg[t] = vit
        if con_dmg[t] >= rows[t, C_CON]:
            dead[t] = 1


@njit(**LEAF)
def _aftermath(
    s2, rows, side, rule, winner, order, lethal_dmg, bash_dmg, con_dmg, able, dead, fate
):
    """Lethality outcomes, A-g9..A-g12: every combatant's fate after the aftermath."""
    n = rows.shape[0]
    for i in range(n):
        fate[i] = STANDING if able[i] == 1 else _fallen_fate(i, rows, lethal_dmg, dead)
    policy = rule[R_AFTERMATH] if winner >= 0 else AFTER_LEAVE  # the cap: leave
    if policy == AFTER_FIRST_AID:  # A-g10: every dying combatant, either side
        for i in range(n):
            if fate[i] == DYING:
                for _ in range(rule[R_AID_TRIES]):
                    if _roll(s2, rule[R_AID_DICE], rule) > 0:
                        fate[i] = OUT
                        break
    elif policy == AFTER_FINISH:  # A-g12: the standing winners strike the fallen foes
        loser = 1 - winner
        done = False
        for _r in range(rule[R_FINISH_ROUNDS]):
            for oi in range(n):
                c = order[oi]
                if side[c] != winner or able[c] == 0:
                    continue
                for _a in range(2):  # A6: both actions are attacks
                    t = -1
                    for u in range(n):
                        if side[u] == loser and fate[u] != DEAD:
                            t = u
                            break
                    if t < 0:
                        done = True
                        break
                    _finish_blow(s2, rows, rule, c, t, lethal_dmg, bash_dmg, con_dmg, dead)
                    fate[t] = _fallen_fate(t, rows, lethal_dmg, dead)
                if done:
                    break
            if done:
                break
    if rule[R_HORIZON_DAY] != 0:  # A-g9: a day's healing lifts the dying out of danger
        for i in range(n):
            if fate[i] == DYING:
                fate[i] = OUT


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
    lethal_dmg,
    bash_dmg,
    con_dmg,
    wp,
    able,
    dead,
    dodging,
    dodge_succ,
    boost,
    order,
    ini,
    targets,
    n_able,
    fate,
    cnt,
    pos,
):
    n = rows.shape[0]
    for sd in range(2):
        n_able[sd] = 0
    # AT1: side 0 stands at 0 m, side 1 at the starting distance; engaged with no kiter,
    # nobody ever moves and every foe is in reach (the fights without distance)
    moving = rule[R_DISTANCE] > 0
    for i in range(n):
        pos[i] = side[i] * rule[R_DISTANCE]
        if rows[i, C_PLAN] == KITE:
            moving = True
        lethal_dmg[i] = rows[i, C_START]
        bash_dmg[i] = 0
        con_dmg[i] = 0
        wp[i] = rows[i, C_WP]
        able[i] = 1
        dead[i] = 0
        dodging[i] = 0
        dodge_succ[i] = 0
        boost[i] = 0
        n_able[side[i]] += 1
        ini[i] = rows[i, C_INIT] + (d10(s) if rule[R_INIT_D10] != 0 else 0)  # A16, A-g6
    # Initiative order: descending, ties shuffled (insertion sort, then Fisher-Yates per run).
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        x = order[i]
        j = i - 1
        while j >= 0 and ini[order[j]] < ini[x]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x
    i = 0
    while i < n:
        j = i
        while j + 1 < n and ini[order[j + 1]] == ini[order[i]]:
            j += 1
        for k in range(j, i, -1):  # shuffle order[i..j]
            m = i + bounded(s, k - i + 1)
            tmp = order[k]
            order[k] = order[m]
            order[m] = tmp
        i = j + 1
    for sd in range(2):
        acc[off[1] + sd] += n_able[sd]  # standing, row 0
    hits_off = off[5]
    winner = -1
    r_end = cap
    for r in range(1, cap + 1):
        for oi in range(n):
            c = order[oi]
            if able[c] == 0:  # the fallen do not act
                continue
            enemy = 1 - side[c]
            if rule[R_DODGE_END_OF_ROUND] == 0:
                dodging[c] = 0  # A-g3: a dodge lasts until the dodger's next turn
            boost[c] = 0
            pol = rows[c, C_WPPOL]
            hurt = 2 * (lethal_dmg[c] + bash_dmg[c]) >= rows[c, C_VIT]
            spent = False
            if wp[c] > 0 and (pol == WP_DEFENSE_EARLY or (pol == WP_DEFENSE_LATE and hurt)):
                wp[c] -= 1  # A4: +2 Defense until the next turn
                boost[c] = 1
                spent = True
            far = FAR_AWAY
            n_att = 2
            n_in = n_able[enemy]  # able foes in reach or range (AT3)
            if moving:
                far = rows[c, C_FAR]
                n_att -= _moves(rows, side, able, pos, c)  # AT1: a move costs an action
                n_in = _in_reach(side, able, pos, c, enemy, far)
            if n_in == 0:
                n_att = 0
            # the tactic fills a turn without a move; after one, one plain attack is left
            tactic = rows[c, C_TACTIC] if n_att == 2 else ATTACK_ATTACK
            focus = 0
            if tactic == ATTACK_DODGE:  # A9
                dodging[c] = 1
                guard = rows[c, C_DEF] + rows[c, C_WP_DEF] * boost[c]  # A8, A4
                dodge_succ[c] = _roll(s, rows[c, C_DODGE] * guard, rule)
                n_att = 1
            elif tactic == FOCUS_ATTACK:  # A3
                n_att = 1
                focus = rows[c, C_FOCUS]
            for _a in range(n_att):
                extra = 0
                if (
                    not spent
                    and wp[c] > 0
                    and (pol == WP_ATTACK_EARLY or (pol == WP_ATTACK_LATE and hurt))
                ):
                    wp[c] -= 1  # A4: +3 dice
                    spent = True
                    extra = rows[c, C_WP_DICE]
                burst = rows[c, C_BURST]
                n_targets = min(n_in, BURST_TARGETS[burst])
                bd = BURST_DICE[burst]
                penalty = n_targets if n_targets > 1 else 0  # A12: -1 die per target
                if rule[R_BURST_INSIDE_CAP] != 0:  # A-g8 variant: inside the A2 cap
                    bd -= penalty
                    penalty = 0
                n_t = 1
                if n_targets > 1:
                    n_t = 0
                    for t in range(n):
                        if (
                            n_t < n_targets
                            and side[t] == enemy
                            and able[t] == 1
                            and abs(pos[t] - pos[c]) <= far
                        ):
                            targets[n_t] = t
                            n_t += 1
                else:
                    targets[0] = _pick_target(
                        s, side, able, enemy, n_in, rule[R_TARGET_FIRST], pos, c, far
                    )
                for k in range(n_t):
                    t = targets[k]
                    # A2: equipment, burst and range (AT-g1) modifiers capped together
                    rd = _range_dice(rows, rule, c, t, pos) if moving else 0
                    mods = min(max(rows[c, C_MODS] + bd - rd, -MODIFIER_CAP), MODIFIER_CAP)
                    dice = rows[c, C_ATTR] + mods + focus + extra - penalty  # A-g8
                    _strike(
                        s,
                        rows,
                        rule,
                        c,
                        t,
                        dice,
                        lethal_dmg,
                        bash_dmg,
                        con_dmg,
                        able,
                        dead,
                        dodging,
                        dodge_succ,
                        boost,
                        n_able,
                        side,
                        acc,
                        hits_off,
                    )
                focus = 0
                if n_able[enemy] == 0:
                    winner = side[c]
                    break
                n_in = _in_reach(side, able, pos, c, enemy, far) if moving else n_able[enemy]
                if n_in == 0:
                    break
            if winner >= 0:
                break
        if rule[R_DODGE_END_OF_ROUND] != 0:
            for i in range(n):
                dodging[i] = 0
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
    _aftermath(s2, rows, side, rule, winner, order, lethal_dmg, bash_dmg, con_dmg, able, dead, fate)
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
    lethal_dmg,
    bash_dmg,
    con_dmg,
    wp,
    able,
    dead,
    dodging,
    dodge_succ,
    boost,
    order,
    ini,
    targets,
    n_able,
    fate,
    cnt,
    pos,
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
            lethal_dmg,
            bash_dmg,
            con_dmg,
            wp,
            able,
            dead,
            dodging,
            dodge_succ,
            boost,
            order,
            ini,
            targets,
            n_able,
            fate,
            cnt,
            pos,
        )
        if health >= 0:
            if fate[0] == 0:
                end[lethal_dmg[0] + bash_dmg[0]] += 1
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
        lethal_dmg, bash_dmg, con_dmg, wp = z.copy(), z.copy(), z.copy(), z.copy()
        able, dead, dodging, dodge_succ = z.copy(), z.copy(), z.copy(), z.copy()
        boost, order, ini, targets = z.copy(), z.copy(), z.copy(), z.copy()
        fate, cnt, n_able, pos = z.copy(), np.zeros(8, np.int64), np.zeros(2, np.int64), z.copy()
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
            lethal_dmg,
            bash_dmg,
            con_dmg,
            wp,
            able,
            dead,
            dodging,
            dodge_succ,
            boost,
            order,
            ini,
            targets,
            n_able,
            fate,
            cnt,
            pos,
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
    """Campaign attrition, Monte Carlo: ``trials`` fights of ``a`` started with
    ``start_damage`` lethal points against a fresh ``b``; counts of ``a``'s end (able
    with ``d`` damage for ``d < a.vitality``, then dead, dying, out at
    ``a.vitality + 1..3``)."""
    v = as_variants(variants)
    cap = check_round_cap(round_cap)
    start_damage = check_start_damage(start_damage, a.vitality)
    r = rows([a, b], v)
    r[0, C_START] = start_damage
    return run_mc_end(
        fight_kernel, r, np.array([0, 1]), rule_array(v), trials, seed, cap, a.vitality
    )


def fight_mc(
    side0: list[Combatant],
    side1: list[Combatant],
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo N-vs-M fights to the end or the round cap (A6–A16), started
    ``variants.distance`` metres apart (AT1–AT3; every fighter on one line).

    Examples
    --------
    >>> from engines.systems.dice_pool_7.combat import Combatant, fight_mc
    >>> a = Combatant("a", FOR=3, DES=3, SAB=2, CON=3, DET=2, AUT=2)
    >>> st = fight_mc([a], [a, a], trials=1000, seed=1)
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
    """Monte Carlo 1-vs-1 fights (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
