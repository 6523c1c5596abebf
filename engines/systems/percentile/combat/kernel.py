"""``percentile`` combat, Monte Carlo (extension DX1–DX16 and the aftermath): the fight
helpers, the distance rules of a fight that starts apart (:func:`range_band`,
:func:`shot_mods`, :func:`decide`: DX14–DX16, the same steps the exact chain takes) and
the serial kernel :func:`mc_kernel`; every function here is compiled (numba keys a
kernel's cache on its own file only, so its LEAF helpers stay beside it). Its Python
drivers are in :mod:`.montecarlo`."""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import sort_desc
from engines.config import KERNEL, LEAF
from engines.distance import CHARGE, COVER, KITE
from engines.rng import bounded, die
from engines.rolls import roll_percentile

from .rules import (
    ABLE,
    ARMOUR,
    BASE_CM,
    CON,
    DB_F,
    DB_N,
    DB_S,
    DEAD,
    DEFEND,
    DEX,
    DODGE,
    DYING,
    EXT_CM,
    FAST_MOV,
    FB,
    FIGHT,
    FIRE,
    HP,
    LONG_ARM,
    LONG_CM,
    MAJOR_DIV,
    MOV_CM,
    MOV_YD,
    PB_CM,
    PLAN,
    R_AFTER,
    R_AID_SKILL,
    R_AID_TRIES,
    R_CHARGE,
    R_COVER,
    R_CRIT,
    R_DIST,
    R_EXTREME,
    R_FINISH,
    R_HORIZON,
    R_INSTANT,
    R_INTO_MELEE,
    R_MOVING,
    R_OUTNUMBERED,
    R_PB_LONG,
    R_RANGE,
    R_REACH,
    R_READY,
    R_SHOTGUN_REGULAR,
    R_STANCE,
    R_TAKE_COVER,
    R_TARGET,
    READY,
    SHOTGUN,
    SHOTS,
    START,
    UNCONSCIOUS,
    W_DB,
    W_F,
    W_FIREARM,
    W_IMPALE,
    W_LF,
    W_LN,
    W_LS,
    W_N,
    W_S,
    WPN,
    X_F,
    X_N,
    X_S,
)


@njit(**LEAF)
def success_level(v, skill, crit):
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
    return success_level(roll_percentile(s, dice) + 1, skill, crit)


@njit(**LEAF)
def _dice(s, n, sides):
    t = 0
    for _ in range(n):
        t += die(s, sides)
    return t


@njit(**LEAF)
def _damage(s, cmb, rule, i, j, off, extreme, dband):
    """DX3 / DX4 / DX5 / DX11: damage of ``i``'s weapon block at ``off`` on ``j``; a
    firearm rolls its long-range dice when ``dband`` is 1 and its extreme-range dice when
    it is 2 (DX5 ``range`` = long; DX15 a shotgun's bands)."""
    if cmb[i, off + W_FIREARM] != 0 and dband == 1:
        n, sides, flat = cmb[i, off + W_LN], cmb[i, off + W_LS], cmb[i, off + W_LF]
    elif cmb[i, off + W_FIREARM] != 0 and dband == 2:
        n, sides, flat = cmb[i, X_N], cmb[i, X_S], cmb[i, X_F]
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
    major = cmb[j, MAJOR_DIV] * d >= top
    if major:
        mw[j] = 1
    if hp[j] == 0:
        state[j] = DYING if mw[j] != 0 else UNCONSCIOUS
    elif major and _roll_level(s, 0, cmb[j, CON], rule[R_CRIT]) == 0:
        state[j] = UNCONSCIOUS


@njit(**LEAF)
def _hit(s, cmb, rule, i, j, off, extreme, dband, hp, mw, state, hits):
    d = _damage(s, cmb, rule, i, j, off, extreme, dband)
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
def _act(
    s, cmb, side, rule, i, j, r, hp, mw, state, defended, forfeit, eng, hits, dice0, need, dband
):
    """One action of ``i`` against ``j`` in round ``r``: gunfire (DX5, DX12, DX13) or a
    melee attack (DX2, DX10). A shot starts from ``dice0`` bonus (+) or penalty (-) dice,
    needs success level ``need`` and rolls the damage dice of band ``dband``
    (:func:`_damage`): the ``range`` variant's (DX5, a fight that starts engaged) or the
    distance's (DX15, DX16: :func:`shot_mods`)."""
    crit = rule[R_CRIT]
    if cmb[i, WPN + W_FIREARM] != 0:
        shots = cmb[i, SHOTS]
        dice = dice0 - (1 if shots > 1 else 0)
        if rule[R_INTO_MELEE] != 0 and _engaged(cmb, side, i, j, r, state, eng):
            dice -= 1
        if cmb[j, DEFEND] == 2:  # DX12: dive for cover, a Dodge roll
            if _roll_level(s, 0, cmb[j, DODGE], crit) >= 1:
                dice -= 1
            if rule[R_COVER] == 0:
                forfeit[j] = 1
        for _ in range(shots):
            lv = _roll_level(s, dice, cmb[i, FIRE], crit)
            if lv >= need:
                _hit(s, cmb, rule, i, j, WPN, lv >= 3, dband, hp, mw, state, hits)
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
        _hit(s, cmb, rule, src, dst, off, level >= 3, 0, hp, mw, state, hits)


@njit(**LEAF)
def _target(s, cmb, side, rule, i, hp, state):
    """DX-g3: the opponent ``i`` attacks (-1 when none is able)."""
    n = cmb.shape[0]
    count = 0
    best = -1
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE:
            count += 1
            if best < 0 or (rule[R_TARGET] == 2 and cmb[j, HP] - hp[j] > cmb[best, HP] - hp[best]):
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
    """DX1: DEX (+50, the row's ``READY``, with a readied firearm) descending; ties: combat
    skill, then random."""
    n = cmb.shape[0]
    for i in range(n):
        gun = cmb[i, WPN + W_FIREARM] != 0
        dex = cmb[i, DEX] + (cmb[i, READY] if gun and rule[R_READY] != 0 else 0)
        skill = cmb[i, FIRE] if gun else cmb[i, FIGHT]
        key[i] = (dex * 256 + skill) * (1 << 30) + bounded(s, 1 << 30)
    sort_desc(key, order)


@njit(**LEAF)
def range_band(d, pb, base, long, extreme):
    """DX15: the band of a shot at ``d`` cm: 0 point-blank (within DEX/5 feet), 1 base
    range, 2 long range, 3 extreme range, 4 out of range."""
    if d <= pb:
        return 0
    if d <= base:
        return 1
    if d <= long:
        return 2
    if d <= extreme:
        return 3
    return 4


@njit(**LEAF)
def shot_mods(cmb, rule, i, j, d, cover_j, fast_j):
    """``(dice0, need, dband)`` of a shot of ``i`` at ``j`` ``d`` cm away (called in
    range only). DX15: point-blank gives a bonus die (not with a long arm, unless
    DX-g11); long range needs a hard success, extreme range an extreme one — a shotgun a
    regular one at every range (DX-g10), its damage falling to its long- and
    extreme-range dice. DX16: a target in cover gives a penalty die (partial
    concealment; prone: not at point-blank), a target that moved at full speed in its
    last turn a penalty die (``moving_target``: MOV 8+ or any)."""
    b = range_band(d, cmb[i, PB_CM], cmb[i, BASE_CM], cmb[i, LONG_CM], cmb[i, EXT_CM])
    dice = 0
    if b == 0 and (cmb[i, LONG_ARM] == 0 or rule[R_PB_LONG] != 0):
        dice += 1
    if cover_j != 0 and (rule[R_STANCE] == 0 or b != 0):
        dice -= 1
    if fast_j != 0 and (
        rule[R_MOVING] == 2 or (rule[R_MOVING] == 1 and cmb[j, MOV_YD] >= FAST_MOV)
    ):
        dice -= 1
    shotgun = cmb[i, SHOTGUN] != 0
    need = 1 if (b <= 1 or (shotgun and rule[R_SHOTGUN_REGULAR] != 0)) else b
    dband = (b - 1 if b >= 2 else 0) if shotgun else 0
    return dice, need, dband


@njit(**LEAF)
def decide(plan, ranged, d, mov, reach, far, best, charge, threat, covered, cover_free):
    """DX14: one fighter's turn at ``d`` cm from its target, by its plan (code of
    engines.distance.PLANS): ``(distance after its move, action, full speed, takes
    cover)``; action 0 none, 1 now, 2 one melee attack at the end of the round.

    A fighter may move ``mov`` (its MOV, in cm) and act normally, or (a charge) up to
    ``charge`` × MOV and make one melee attack at the end of the round; a move longer
    than MOV is at full speed (DX16). A melee fighter (reach ``reach``) attacks a target
    in reach; ``charge`` closes at full speed, ``hold`` a MOV a turn. A shooter shoots a
    target within ``far`` (extreme range): ``hold`` stands and shoots, closing a MOV
    when out of range; ``charge`` closes to its base range ``best`` (a MOV a turn,
    shooting when in range); ``kite`` steps back a MOV whenever the target could strike
    it next turn (``d <= threat``, the target's reach and move; -1: a shooter) and
    shoots, else holds, never closing within the threat; ``cover`` takes cover (DX16;
    DX-g12: the turn, or free with ``cover_free``) and shoots from it, never moving."""
    take = 0
    if plan == COVER and covered == 0:
        if cover_free == 0:
            return d, 0, 0, 1
        take = 1
        covered = 1
    if not ranged:
        if d <= reach:
            return d, 1, 0, take
        gap = d - reach
        if gap <= mov:
            return reach, 1, 0, take
        if plan == CHARGE:
            if gap <= charge * mov:
                return reach, 2, 1, take
            return d - charge * mov, 0, 1, take
        return d - mov, 0, 0, take
    if covered != 0:
        return d, (1 if d <= far else 0), 0, take
    if plan == KITE and threat >= 0 and d <= threat:
        nd = d + mov
        return nd, (1 if nd <= far else 0), 0, take
    if plan == CHARGE:
        stop = best
    elif plan == KITE and threat >= 0:
        stop = max(far, threat + 1)
    else:
        stop = far
    nd = max(stop, d - mov) if d > stop else d
    return nd, (1 if nd <= far else 0), 0, take


@njit(**LEAF)
def threat_range(cmb, rule, j):
    """What a kiter keeps beyond (cm): a melee target strikes next turn whoever is within
    its reach and its move (a charge's ``charge_factor`` × MOV, a hold's MOV); -1 for a
    shooter."""
    if cmb[j, WPN + W_FIREARM] != 0:
        return -1
    return rule[R_REACH] + cmb[j, MOV_CM] * (rule[R_CHARGE] if cmb[j, PLAN] == CHARGE else 1)


@njit(**LEAF)
def _span(cmb, rule, i):
    """How far ``i`` attacks this turn (cm): a shooter its extreme range, a melee fighter
    its reach and its move."""
    if cmb[i, WPN + W_FIREARM] != 0:
        return cmb[i, EXT_CM]
    return rule[R_REACH] + cmb[i, MOV_CM] * (rule[R_CHARGE] if cmb[i, PLAN] == CHARGE else 1)


@njit(**LEAF)
def _target_apart(s, cmb, side, rule, i, hp, state, pos):
    """DX-g3 in a fight that started apart, targeting by reach: among the able foes ``i``
    can attack this turn (:func:`_span`), or every able foe when none is that close, the
    first, a random one or the most hurt (-1 when none is able)."""
    n = cmb.shape[0]
    span = _span(cmb, rule, i)
    near = 0
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE and abs(pos[j] - pos[i]) <= span:
            near += 1
    count = 0
    best = -1
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE and (near == 0 or abs(pos[j] - pos[i]) <= span):
            count += 1
            if best < 0 or (rule[R_TARGET] == 2 and cmb[j, HP] - hp[j] > cmb[best, HP] - hp[best]):
                best = j
    if count == 0 or rule[R_TARGET] != 1:
        return best
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and state[j] == ABLE and (near == 0 or abs(pos[j] - pos[i]) <= span):
            if k == 0:
                return j
            k -= 1
    return best


@njit(**LEAF)
def _round(
    s,
    cmb,
    side,
    rule,
    r,
    hp,
    mw,
    state,
    defended,
    forfeit,
    eng,
    order,
    up,
    hits,
    apart,
    dice0,
    need,
    dband,
    pos,
    fast,
    cover,
    pend,
):
    """Round ``r``: each able combatant in DX1 order acts (a forfeited action, DX12 /
    DX-g5, is lost); returns the winning side (2: none yet), ``up`` holding the able count
    of each side.

    A fight that started engaged: each attacks its DX-g3 target (:func:`_target`), its
    shots with the ``range`` variant's ``dice0``, ``need``, ``dband`` (DX5). A fight that
    started apart (``apart``; positions ``pos`` on a line, in cm): each takes its turn
    (:func:`decide`) against its target (:func:`_target_apart`), a forfeited turn losing
    its move too, its shots with the DX15 / DX16 dice (:func:`shot_mods`); then the
    chargers' melee attacks at the end of the round, in the same order, on a target still
    able and in reach. One call site of :func:`_act` serves both (a short compile)."""
    n = cmb.shape[0]
    reach = rule[R_REACH]
    for step in range(2 * n if apart else n):
        if step < n:
            i = order[step]
            if state[i] != ABLE:
                continue
            if forfeit[i] != 0:  # DX12 / DX-g5: the action after a dive is lost
                forfeit[i] = 0
                fast[i] = 0
                continue
            if not apart:
                j = _target(s, cmb, side, rule, i, hp, state)
                d = 0
            else:
                j = _target_apart(s, cmb, side, rule, i, hp, state, pos)
                d = abs(pos[j] - pos[i])
                ranged = cmb[i, WPN + W_FIREARM] != 0
                nd, act, f, take = decide(
                    cmb[i, PLAN],
                    ranged,
                    d,
                    cmb[i, MOV_CM],
                    reach,
                    cmb[i, EXT_CM],
                    cmb[i, BASE_CM],
                    rule[R_CHARGE],
                    threat_range(cmb, rule, j) if ranged else -1,
                    cover[i],
                    rule[R_TAKE_COVER],
                )
                fast[i] = f
                if take != 0:
                    cover[i] = 1
                if nd != d:
                    toward = (
                        1
                        if pos[j] > pos[i]
                        else -1
                        if pos[j] < pos[i]
                        else (1 if side[i] == 0 else -1)
                    )
                    pos[i] += toward * (d - nd)
                    d = nd
                if act == 2:
                    pend[i] = j
                if act != 1:
                    continue
        else:  # a charger's melee attack at the end of the round (DX14)
            i = order[step - n]
            j = pend[i]
            if j < 0:
                continue
            pend[i] = -1
            d = abs(pos[j] - pos[i])
            if state[i] != ABLE or state[j] != ABLE or d > reach:
                continue
        if apart and cmb[i, WPN + W_FIREARM] != 0:
            dice0, need, dband = shot_mods(cmb, rule, i, j, d, cover[j], fast[j])
        _act(
            s,
            cmb,
            side,
            rule,
            i,
            j,
            r,
            hp,
            mw,
            state,
            defended,
            forfeit,
            eng,
            hits,
            dice0,
            need,
            dband,
        )
        up[0] = 0
        up[1] = 0
        for q in range(n):
            if state[q] == ABLE:
                up[side[q]] += 1
        if up[0] == 0 or up[1] == 0:
            return 0 if up[0] > 0 else 1
    return 2


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
    if cmb[j, MAJOR_DIV] * d >= top:
        mw[j] = 1
    if hp[j] == 0 and mw[j] != 0:
        state[j] = DYING


@njit(**LEAF)
def _strike(s, cmb, rule, i, j, hp, mw, state, dice0, need, dband):
    """DX-g8: ``i`` attacks the helpless ``j``: no defence, one bonus die (with the DX5
    dice for gunfire: ``dice0``, ``need``, ``dband`` as in :func:`_act`); a regular
    success hits (a hard one at long range)."""
    crit = rule[R_CRIT]
    if cmb[i, WPN + W_FIREARM] != 0:
        shots = cmb[i, SHOTS]
        dice = 1 + dice0 - (1 if shots > 1 else 0)
        for _ in range(shots):
            lv = _roll_level(s, dice, cmb[i, FIRE], crit)
            if lv >= need:
                _hurt_helpless(
                    cmb, rule, j, _damage(s, cmb, rule, i, j, WPN, lv >= 3, dband), hp, mw, state
                )
                if state[j] == DEAD:
                    return
        return
    lv = _roll_level(s, 1, cmb[i, FIGHT], crit)
    if lv >= 1:
        _hurt_helpless(cmb, rule, j, _damage(s, cmb, rule, i, j, WPN, lv >= 3, 0), hp, mw, state)


@njit(**LEAF)
def _strike_mods(cmb, rule, i):
    """``(dice0, need, dband)`` of ``i``'s finishing shots (DX-g8): in a fight that
    started engaged the ``range`` variant's (DX5); in one that started apart the winner
    walks up to the fallen: point-blank (DX15: a bonus die, not with a long arm unless
    DX-g11), a regular success, the base dice."""
    if rule[R_DIST] == 0:
        return (
            (1 if rule[R_RANGE] == 0 else 0),
            (2 if rule[R_RANGE] == 2 else 1),
            (1 if rule[R_RANGE] == 2 else 0),
        )
    return (1 if (cmb[i, LONG_ARM] == 0 or rule[R_PB_LONG] != 0) else 0), 1, 0


@njit(**LEAF)
def _aftermath(s, cmb, side, rule, winner, hp, mw, state, order):
    """Lethality outcomes: the aftermath of one fight (package docstring; DX8, DX-g6–DX-g8;
    readings DX-r1–DX-r4: round ``t`` = 1 is the rest of the deciding round, its strike,
    First Aid and CON roll in that order) on generator ``s`` (the aftermath stream)."""
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
                dice0, need, dband = _strike_mods(cmb, rule, i)
                for j in range(n):
                    if side[j] != winner and state[j] != ABLE and state[j] != DEAD:
                        _strike(s, cmb, rule, i, j, hp, mw, state, dice0, need, dband)
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
def _fight(
    s,
    cmb,
    side,
    rule,
    cap,
    hp,
    mw,
    state,
    defended,
    forfeit,
    eng,
    key,
    order,
    up,
    outcome,
    rounds,
    loser_dead,
    standing,
    tail,
    deaths,
    hits,
    s2,
    cnt,
    lf,
    lfs,
    fa,
    fas,
    da,
    ds,
    pos,
    fast,
    cover,
    pend,
):
    n = cmb.shape[0]
    apart = rule[R_DIST] > 0
    for i in range(n):
        hp[i] = cmb[i, HP] - cmb[i, START]
        mw[i] = 0
        state[i] = ABLE
        forfeit[i] = 0
        for k in range(n):
            eng[i, k] = -5
        if apart:  # DX14: side 0 on its line at 0, side 1 ``distance`` away
            pos[i] = 0 if side[i] == 0 else rule[R_DIST]
            fast[i] = 0
            cover[i] = 0
            pend[i] = -1
    _order(s, cmb, rule, key, order)
    up[0] = 0
    up[1] = 0
    for i in range(n):
        up[side[i]] += 1
    winner = 2
    last = cap
    # a fight that starts engaged: the ``range`` variant's dice for every shot (DX5)
    dice0 = 1 if rule[R_RANGE] == 0 else 0
    need = 2 if rule[R_RANGE] == 2 else 1
    dband = 1 if rule[R_RANGE] == 2 else 0
    for r in range(1, cap + 1):
        for i in range(n):
            defended[i] = 0
        winner = _round(
            s,
            cmb,
            side,
            rule,
            r,
            hp,
            mw,
            state,
            defended,
            forfeit,
            eng,
            order,
            up,
            hits,
            apart,
            dice0,
            need,
            dband,
            pos,
            fast,
            cover,
            pend,
        )
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
    dead = cnt[0, 1] + cnt[1, 1]
    if dead > 0:
        da[0] += 1
    ds[0] += dead * dead
    if winner != 2:
        lose = 1 - winner
        for f in range(3):
            lf[winner, f] += cnt[lose, f + 1]
            lfs[winner, f] += cnt[lose, f + 1] * cnt[lose, f + 1]
        if cnt[lose, 1] == cnt[lose].sum():
            loser_dead[winner] += 1


@njit(**LEAF)
def _chunk(
    n_trials,
    s,
    s2,
    cmb,
    side,
    rule,
    cap,
    hp,
    mw,
    state,
    defended,
    forfeit,
    eng,
    key,
    order,
    up,
    cnt,
    o,
    rd,
    ld,
    st,
    tl,
    de,
    h,
    lf,
    lfs,
    fa,
    fas,
    da,
    ds,
    end,
    pos,
    fast,
    cover,
    pend,
):
    """``n_trials`` fights of one work item into the zeroed histograms ``o`` .. ``fas``;
    every scratch array comes from :func:`mc_kernel`.

    ``end`` (campaign attrition) counts combatant 0's end: able having lost ``d`` hit
    points at ``d``, else dead, dying, unconscious (out) at ``HP + 1..3``; with no columns
    (a plain run) nothing is counted."""
    health = end.shape[0] - 4
    for _ in range(n_trials):
        _fight(
            s,
            cmb,
            side,
            rule,
            cap,
            hp,
            mw,
            state,
            defended,
            forfeit,
            eng,
            key,
            order,
            up,
            o,
            rd,
            ld,
            st,
            tl,
            de,
            h,
            s2,
            cnt,
            lf,
            lfs,
            fa,
            fas,
            da,
            ds,
            pos,
            fast,
            cover,
            pend,
        )
        if health >= 0:
            if state[0] == ABLE:
                end[cmb[0, HP] - hp[0]] += 1
            else:
                end[health + (1 if state[0] == DEAD else 2 if state[0] == DYING else 3)] += 1


@njit(**KERNEL)
def mc_kernel(
    first,
    last,
    cmb,
    side,
    rule,
    cap,
    after_states,
    trials,
    states,
    outcome,
    rounds,
    loser_dead,
    standing,
    tail,
    deaths,
    hits,
    loser_fate,
    loser_fate_sq,
    fates,
    fates_sq,
    dead_any,
    deaths_sq,
    end,
):
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
        da = np.zeros(1, dtype=np.int64)
        ds = np.zeros(1, dtype=np.int64)
        pos = np.zeros(n, dtype=np.int64)  # a fight that starts apart: DX14-DX16
        fast = np.zeros(n, dtype=np.int64)
        cover = np.zeros(n, dtype=np.int64)
        pend = np.zeros(n, dtype=np.int64)
        _chunk(
            trials[item],
            s,
            s2,
            cmb,
            side,
            rule,
            cap,
            hp,
            mw,
            state,
            defended,
            forfeit,
            eng,
            key,
            order,
            up,
            cnt,
            o,
            rd,
            ld,
            st,
            tl,
            de,
            h,
            lf,
            lfs,
            fa,
            fas,
            da,
            ds,
            end[item],
            pos,
            fast,
            cover,
            pend,
        )
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
        put(dead_any[item], da)
        put(deaths_sq[item], ds)
