"""``d20_degrees`` combat, Monte Carlo (E10–E17, ET1–ET3): the ``LEAF`` fight helpers, the
serial kernel :func:`fight_kernel` and its drivers :func:`fight_mc`, :func:`duel_mc` and
:func:`duel_mc_end` (campaign attrition)."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import run_chunks
from engines.config import KERNEL, LEAF
from engines.constants import ROUND_CAP
from engines.errors import InputError
from engines.fight import FightStats, check_round_cap, check_start_damage
from engines.rng import Seed, bounded, next_u64

from .rules import (
    ACTIVE,
    AFT_FIRST_AID,
    AID_DC,
    ATHLETICS_DC,
    COVER,
    COVER_PRONE,
    DASH_M,
    DEAD,
    DEATH_FAILURES,
    DEF_BEST,
    DEF_NEEDED,
    DEF_ROUTINE,
    DEFENSIVE,
    DYING,
    EFFORT_BONUS,
    EXHAUSTED_PENALTY,
    F_AGI,
    F_ATHL,
    F_ATK,
    F_AWA,
    F_CRITD,
    F_DECEP,
    F_DMG,
    F_DODGE,
    F_DOFF,
    F_DYDC,
    F_EFFORT,
    F_FEINT,
    F_FORT,
    F_HERO,
    F_HP,
    F_HUSE,
    F_IDEG,
    F_INIT,
    F_MDEF,
    F_MDMG,
    F_MHIT,
    F_PARRY,
    F_PLAN,
    F_RANGED,
    F_REACH,
    F_READ,
    F_RECDEF,
    F_RECHP,
    F_RECOV,
    F_RMED,
    F_RSHORT,
    F_START,
    F_TOUGH,
    FS_FAILED,
    FS_NONE,
    FS_SURPRISE,
    FS_SURPRISED,
    INCAP,
    KITE,
    MOVE_M,
    PARTIAL_COVER,
    PRONE_MELEE,
    PRONE_RANGED,
    R_AFTERMATH,
    R_AID_BONUS,
    R_AID_TRIES,
    R_COVER,
    R_CRIT_DEG,
    R_DASH,
    R_DEF_ROLL,
    R_DEFENSIVE_PCT,
    R_DEGREE_DMG,
    R_DISTANCE,
    R_DYING_ACQ,
    R_FAR,
    R_FINISH,
    R_REC_CAP,
    R_REROLL_NAT,
    R_RES_NAT,
    R_SLAM,
    R_SURPRISE,
    R_SURPRISE_STUN,
    R_TARGET_RANDOM,
    R_TIES_RANDOM,
    R_VUL_UP,
    RANGE_PENALTY,
    SYSTEM,
    Variants,
    as_fighter,
    as_variants,
    fight_rule,
)

_M32 = np.uint64(0xFFFFFFFF)
_U20 = np.uint64(20)
_REJECT_20 = np.uint64((1 << 32) % 20)  # Lemire threshold for n = 20


@njit(**LEAF)
def _d20(s):
    """One d20 (1..20), exact: Lemire multiply-shift with rejection on 32 random bits."""
    while True:
        m = (next_u64(s) >> np.uint64(32)) * _U20
        if (m & _M32) >= _REJECT_20:
            return np.int64(m >> np.uint64(32)) + 1


@njit(**LEAF)
def _switched(F, i, hp, rule):
    """E-g12 tactic switch: True when ``i`` fights defensively at its current hit points."""
    return rule[R_DEFENSIVE_PCT] > 0 and hp[i] * 100 <= rule[R_DEFENSIVE_PCT] * F[i, F_HP]


@njit(**LEAF)
def _resist(x, tough, pen, v, nat, res_nat):
    """E12 damage for attack total ``x`` against a resistance roll of value ``v``."""
    tot = tough + v - pen
    if res_nat != 0 and nat == 2:
        tot += 5
    d = x - tot
    if res_nat != 0 and nat == 1 and d < 1:
        d = 1
    return d if d > 0 else 0


@njit(**LEAF)
def _reroll(s, reroll_nat):
    """E9 second roll: value (1–10 read +10) and natural flag (0 none, 1 one, 2 twenty)."""
    r2 = _d20(s)
    v2 = r2 + 10 if r2 <= 10 else r2
    nat2 = 2 if r2 == 20 else (1 if (r2 == 1 and reroll_nat != 0) else 0)
    return v2, nat2


@njit(**LEAF)
def fortitude_check(s, F, i, st, fails, eff):
    """E14 dying check of combatant ``i`` (E3 naturals); returns True if it died."""
    r = _d20(s)
    tot = r + F[i, F_FORT] - (EXHAUSTED_PENALTY if eff[i] >= 2 else 0)
    if r == 20:
        tot += 5
    dc = F[i, F_DYDC]
    deg = 1 + (tot - dc) // 5 if tot >= dc else -(1 + (dc - tot) // 5)
    if r == 1 and deg > 0:
        deg = -1
    if deg >= 2:
        st[i] = INCAP
        fails[i] = 0
    elif deg < 0:
        fails[i] += -deg
        if fails[i] >= DEATH_FAILURES:
            st[i] = DEAD
            return True
    return False


@njit(**LEAF)
def _roll_better(F, j, st, eff, rule, bonus, x0, crit_d):
    """ET4 ``best`` (twin of :func:`.attack._roll_better`): whether rolling (d20 + ``bonus``
    vs DC 10, E3 naturals, a hit is critical) gives this attack on defenceless ``j`` a
    better chance than the routine check to kill it (E13: incapacitated, damage ≥ 10;
    dying, any damage, E-g13), then to wound it; a tie keeps the routine. ``x0``: attack
    base + 15 + maneuver damage, ``crit_d`` the critical damage (E3, 5). Dice only (no
    hero point), in whole 1/400ths."""
    tough = F[j, F_TOUGH] - (EXHAUSTED_PENALTY if eff[j] >= 2 else 0)
    need = 1 if st[j] == DYING else max(1, 5 * (F[j, F_IDEG] - 1))
    res_nat = rule[R_RES_NAT] != 0
    degree = rule[R_DEGREE_DMG] != 0
    rk = 0
    rw = 0
    ok = 0
    ow = 0
    for v in range(1, 21):
        # v == 1 stands for the routine check (take 10); 2..20 are the rolled faces
        if v == 1:
            if bonus < 0:
                continue
            x = x0 + (bonus // 5 if degree else 0)
        else:
            if v < 20 and v + bonus < 10:
                continue
            total = v + bonus + (5 if (v == 20 and rule[R_CRIT_DEG] != 0) else 0)
            x = x0 + ((total - 10) // 5 if (degree and total >= 10) else 0) + crit_d
        kill = 0
        wound = 0
        for r in range(1, 21):
            d = x - (tough + r + (5 if (res_nat and r == 20) else 0))
            if res_nat and r == 1 and d < 1:
                d = 1
            if d >= need:
                kill += 1
            if d >= 1:
                wound += 1
        if v == 1:
            rk = 20 * kill
            rw = 20 * wound
        else:
            ok += kill
            ow += wound
    return ok > rk or (ok == rk and ow > rw)


@njit(**LEAF)
def _attack(s, F, i, j, st, hp, fails, rec, hero, eff, rule, hits, vul, amod, slam):
    """One attack of ``i`` on ``j`` (E11, E3, E12, E13, E9, E8, E16); returns True if some
    fighter stopped being able to act. ``vul``: ``j`` is vulnerable (E17, E-g15). A
    defenceless (incapacitated or dying) target is also prone (E17 "Incapacitado ...
    Deitado"): +5 to hit it in melee, −5 at range. ``amod``: the attack's distance
    modifier (ET-g2 range band, ET3 / ET-g1 the target's cover: :func:`_plan_act`);
    ``slam``: the damage rank of an ET2 charge (0: an ordinary attack), after whose hit
    the charger resists half that rank (:func:`_slam_self`)."""
    defenceless = st[j] != ACTIVE
    a_def = _switched(F, i, hp, rule)
    bonus = F[i, F_ATK] + (0 if a_def else F[i, F_MHIT]) + amod
    if eff[i] >= 2:
        bonus -= EXHAUSTED_PENALTY
    if eff[i] < F[i, F_EFFORT]:
        bonus += EFFORT_BONUS
        eff[i] += 1
    if defenceless:
        dc = 10
        bonus += PRONE_RANGED if F[i, F_RANGED] != 0 else PRONE_MELEE
    else:
        d = F[j, F_DODGE] if F[i, F_RANGED] != 0 else F[j, F_PARRY]
        if vul:
            d = (d + 1) // 2 if rule[R_VUL_UP] != 0 else d // 2
        d += DEFENSIVE[2] if _switched(F, j, hp, rule) else F[j, F_MDEF]
        if rec[j] == 1:
            d += F[j, F_RECDEF]
        dc = d + 10
    mdmg = DEFENSIVE[1] if a_def else F[i, F_MDMG]
    base = slam if slam > 0 else F[i, F_DMG]
    rolls = True
    if defenceless:
        # ET4: routine or a roll, as the variant (or, with ``best``, the attacker) decides
        mode = rule[R_DEF_ROLL]
        if mode == DEF_ROUTINE:
            rolls = False
        elif mode == DEF_BEST:
            rolls = _roll_better(
                F, j, st, eff, rule, bonus, base + F[i, F_DOFF] + mdmg, F[i, F_CRITD]
            )
        elif mode == DEF_NEEDED:
            rolls = 10 + bonus < dc
    crit = False
    if not rolls:
        total = 10 + bonus
        hit = total >= dc
    else:
        v = _d20(s)
        nat = 2 if v == 20 else (1 if v == 1 else 0)
        hit = nat == 2 or (nat != 1 and v + bonus >= dc)
        if not hit and F[i, F_HUSE] == 1 and hero[i] > 0:
            hero[i] -= 1
            v2, nat2 = _reroll(s, rule[R_REROLL_NAT])
            if v2 > v:
                v = v2
                nat = nat2
            hit = nat == 2 or (nat != 1 and v + bonus >= dc)
        crit = hit and (nat == 2 or defenceless)
        total = v + bonus
        if nat == 2 and rule[R_CRIT_DEG] != 0:
            total += 5
    if not hit:
        return False
    excess = (total - dc) // 5 if total >= dc else 0
    if rule[R_DEGREE_DMG] == 0:
        excess = 0
    x = base + excess + F[i, F_DOFF] + mdmg + (F[i, F_CRITD] if crit else 0)
    pen = EXHAUSTED_PENALTY if eff[j] >= 2 else 0
    r = _d20(s)
    rnat = 2 if r == 20 else (1 if r == 1 else 0)
    dmg = _resist(x, F[j, F_TOUGH], pen, r, rnat, rule[R_RES_NAT])
    threshold = hp[j] if st[j] == ACTIVE else 1
    if dmg >= threshold and F[j, F_HUSE] == 2 and hero[j] > 0:
        hero[j] -= 1
        v2, nat2 = _reroll(s, rule[R_REROLL_NAT])
        if v2 > r:
            dmg = _resist(x, F[j, F_TOUGH], pen, v2, nat2, rule[R_RES_NAT])
    hits[min(dmg, hits.size - 1)] += 1
    fell = False
    if dmg < 1:
        pass
    elif st[j] == ACTIVE:
        hp[j] -= dmg
        if hp[j] <= 0:
            hp[j] = 0
            st[j] = INCAP
            fell = True
    elif st[j] == INCAP:
        # E13: failing the resistance by 3+ degrees (damage ≥ 10) kills at once
        if 1 + dmg // 5 >= F[j, F_IDEG]:
            st[j] = DEAD
        else:
            st[j] = DYING
            fails[j] = 0
            if rule[R_DYING_ACQ] != 0:
                fortitude_check(s, F, j, st, fails, eff)
    elif st[j] == DYING:
        st[j] = DEAD  # E-g13
    if slam > 0 and _slam_self(s, F, i, st, hp, eff, rule, slam):
        fell = True
    return fell


@njit(**LEAF)
def _slam_self(s, F, i, st, hp, eff, rule, slam):
    """ET2: the charger resists half the charge's damage rank, rounded down (E12: damage =
    ⌊rank / 2⌋ + 15 − (Toughness + d20), E-g5 naturals, no hero point); True if it falls."""
    pen = EXHAUSTED_PENALTY if eff[i] >= 2 else 0
    r = _d20(s)
    rnat = 2 if r == 20 else (1 if r == 1 else 0)
    dmg = _resist(slam // 2 + F[i, F_DOFF], F[i, F_TOUGH], pen, r, rnat, rule[R_RES_NAT])
    if dmg < 1:
        return False
    hp[i] -= dmg
    if hp[i] <= 0:
        hp[i] = 0
        st[i] = INCAP
        return True
    return False


@njit(**LEAF)
def _pick_target(s, side, st, i, able_only, random_pick):
    n = side.size
    count = 0
    first = -1
    for j in range(n):
        if side[j] != side[i] and (st[j] == ACTIVE if able_only else st[j] != DEAD):
            if first < 0:
                first = j
            count += 1
    if count <= 1 or not random_pick:
        return first
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and st[j] == ACTIVE:
            if k == 0:
                return j
            k -= 1
    return first


@njit(**LEAF)
def _pick_far(s, F, side, st, pos, i, able_only, random_pick):
    """Targeting by reach on the line (ET1): among the foes ``i`` may attack (able, or not
    dead after the decision) those within its reach (:data:`F_REACH`), the first listed
    or, with ``random_pick``, one at random (E-g8); with none in reach the nearest (the
    first listed of the nearest), whom it closes on; -1 when there is no foe."""
    n = side.size
    reach = F[i, F_REACH]
    count = 0
    first = -1
    near = -1
    best = 0
    for j in range(n):
        if side[j] != side[i] and (st[j] == ACTIVE if able_only else st[j] != DEAD):
            d = abs(pos[i] - pos[j])
            if d <= reach:
                if first < 0:
                    first = j
                count += 1
            if near < 0 or d < best:
                near = j
                best = d
    if count == 0:
        return near
    if count == 1 or not random_pick:
        return first
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and st[j] == ACTIVE and abs(pos[i] - pos[j]) <= reach:
            if k == 0:
                return j
            k -= 1
    return first


@njit(**LEAF)
def _plan_act(s, F, side, i, j, st, pos, cov, rule, decided):
    """``i``'s turn on the line under its plan (ET1–ET3, ET-g4, ET-g5; package docstring,
    "Distance"): its moves, then whether it attacks ``j`` now, the attack's distance
    modifier and the ET2 charge rank (0: none). One function, each rule at one place (a
    helper called twice would be compiled twice into the fight)."""
    n = side.size
    plan = F[i, F_PLAN]
    reach = F[i, F_REACH]
    d = abs(pos[i] - pos[j])
    # the turn: 0 attack where it stands; 1 close (a move, then attack if in reach, else
    # a second move); 2 stand up from prone (the move), then one move; 3 step away from
    # ``k`` (the move), then attack if in reach
    act = 1 if d > reach else 0
    k = j
    attacks = True
    slam = 0
    if plan == COVER:
        engaged = False
        if not decided:
            for q in range(n):
                if side[q] != side[i] and st[q] == ACTIVE and pos[q] == pos[i]:
                    engaged = True
        prone = rule[R_COVER] == COVER_PRONE
        if cov[i] != 0:
            if engaged and prone:
                cov[i] = 0  # ET3: standing up is its move action
                act = 0
                attacks = d <= reach
            elif d > reach:
                cov[i] = 0
                if prone:
                    act = 2
        elif d <= reach and not engaged and not decided:
            cov[i] = 1  # ET3 prone: a free action; ET-g1 partial: the move action
    elif plan == KITE and not decided:
        k = -1
        dk = 0
        for q in range(n):
            if side[q] != side[i] and st[q] == ACTIVE and F[q, F_REACH] == 0:
                dq = abs(pos[i] - pos[q])
                if k < 0 or dq < dk:
                    k = q
                    dk = dq
        if k >= 0 and dk <= MOVE_M:
            act = 3  # a foe one move from striking
    if act != 0:
        # ET1 / ET-g4: 8 m a move, 16 m after an Athletics dash (d20 + Athletics vs DC
        # 15, E3 naturals), tried when the turn needs more than one 8 m move
        need = MOVE_M + 1 if act == 3 else d - reach
        m = MOVE_M
        if rule[R_DASH] != 0 and need > MOVE_M:
            r = _d20(s)
            if r != 1 and r + F[i, F_ATHL] + (5 if r == 20 else 0) >= ATHLETICS_DC:
                m = DASH_M
        if act == 3:
            # away from k (from a shared spot, toward its own side's end of the line)
            if pos[i] > pos[k] or (pos[i] == pos[k] and side[i] == 1):
                pos[i] += m
            else:
                pos[i] -= m
            attacks = abs(pos[i] - pos[j]) <= reach
        else:
            # toward j, stopping once j is in reach: one move reaches and it attacks, else
            # the standard action is traded for a second move (or, standing up, none)
            attacks = act == 1 and d - reach <= m
            step = min(m if (attacks or act == 2) else 2 * m, d - reach)
            pos[i] += step if pos[j] > pos[i] else -step
            if (
                attacks
                and rule[R_SLAM] != 0
                and F[i, F_RANGED] == 0
                and st[j] == ACTIVE
                and not decided
            ):
                # ET2: the higher of its movement rank (0) and damage rank, +1, +1 more
                # after a full 8 m move
                slam = max(F[i, F_DMG], 0) + 1 + (1 if d >= MOVE_M else 0)
    amod = 0
    if attacks:
        # ET-g2 range band of a ranged weapon (short 0, medium −2, long −5); on an able
        # target in cover, ET3 prone (−5 at range, +5 in melee) or ET-g1 partial (−2 at
        # range)
        ranged = F[i, F_RANGED] != 0
        if ranged:
            dd = abs(pos[i] - pos[j])
            if dd > F[i, F_RMED]:
                amod += RANGE_PENALTY[2]
            elif dd > F[i, F_RSHORT]:
                amod += RANGE_PENALTY[1]
        if st[j] == ACTIVE and cov[j] != 0:
            if rule[R_COVER] == COVER_PRONE:
                amod += PRONE_RANGED if ranged else PRONE_MELEE
            elif ranged:
                amod += PARTIAL_COVER
    return attacks, amod, slam


@njit(**LEAF)
def _feint_wins(s, F, i, j, eff):
    """E16 feint, an E5 opposed check: d20 + Deception vs d20 + the greater of the
    target's Deception and Insight (E8 exhausted −2 on either); the higher total wins, a
    tie goes to the higher bonus, an equal bonus to the target (E-g15)."""
    ba = F[i, F_DECEP] - (EXHAUSTED_PENALTY if eff[i] >= 2 else 0)
    bb = F[j, F_READ] - (EXHAUSTED_PENALTY if eff[j] >= 2 else 0)
    ta = _d20(s) + ba
    tb = _d20(s) + bb
    return ta > tb or (ta == tb and ba > bb)


@njit(**LEAF)
def _turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, decided, pos, cov):
    """Combatant ``i``'s turn; returns True if some fighter stopped being able to act. On
    the line (``rule[R_FAR]``, ET1–ET3) it targets by reach and moves by its plan."""
    if st[i] == DEAD or st[i] == INCAP:
        return False
    if st[i] == DYING:
        fortitude_check(s, F, i, st, fails, eff)
        return False
    if fst[i] == FS_SURPRISED:
        fst[i] = FS_NONE  # E17 surprised: stunned, it loses this (its first) turn
        return False
    if rec[i] == 1:
        rec[i] = 2  # E15: the +2 lasts until the start of the next turn
    if not decided and rec[i] == 0 and hp[i] <= F[i, F_RECOV]:
        rec[i] = 1
        hp[i] += F[i, F_RECHP]
        if rule[R_REC_CAP] != 0 and hp[i] > F[i, F_HP]:
            hp[i] = F[i, F_HP]
        return False
    far = rule[R_FAR] != 0
    random_pick = (not decided) and rule[R_TARGET_RANDOM] != 0
    if far:
        j = _pick_far(s, F, side, st, pos, i, not decided, random_pick)
    else:
        j = _pick_target(s, side, st, i, not decided, random_pick)
    if j < 0:
        return False
    if (
        F[i, F_FEINT] != 0
        and not decided
        and fst[i] == FS_NONE
        and st[j] == ACTIVE
        and (not far or abs(pos[i] - pos[j]) <= F[i, F_REACH])
    ):
        # E16 feint (E-g15): the standard action goes on the feint
        fst[i] = j if _feint_wins(s, F, i, j, eff) else FS_FAILED
        return False
    amod = 0
    slam = 0
    if far:
        attacks, amod, slam = _plan_act(s, F, side, i, j, st, pos, cov, rule, decided)
        if not attacks:
            return False
    vul = fst[i] == FS_SURPRISE or fst[i] == j
    fst[i] = FS_NONE
    return _attack(s, F, i, j, st, hp, fails, rec, hero, eff, rule, hits, vul, amod, slam)


@njit(**LEAF)
def _finish_turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, pos, cov):
    """A turn after the decision (E-g7): a separate function, so the fight kernel inlines
    :func:`_turn` once only (keeps compile time down; finishing turns are rare)."""
    decided = side.size > 0  # not a literal: one compiled _turn serves both callers
    _turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, decided, pos, cov)


@njit(**LEAF)
def apply_first_aid(s, F, i, st, fails, eff, rule):
    """``first_aid`` on dying combatant ``i`` (E-Healing, E-g17, E-g18): up to
    ``aid_tries`` rounds of a Healing check (d20 + ``aid_bonus`` vs DC 10, E3 naturals;
    the first degree stabilises: incapacitated, stable), each failed try followed by the
    patient's E14 check."""
    for _ in range(rule[R_AID_TRIES]):
        r = _d20(s)
        tot = r + rule[R_AID_BONUS] + (5 if r == 20 else 0)
        if r != 1 and tot >= AID_DC:
            st[i] = INCAP
            fails[i] = 0
            return
        fortitude_check(s, F, i, st, fails, eff)
        if st[i] != DYING:
            return


@njit(**LEAF)
def _aftermath(
    s,
    F,
    side,
    st,
    fails,
    eff,
    rule,
    winner,
    cnt,
    loser_fate,
    loser_fate_sq,
    fates,
    fates_sq,
    loser_dead,
    deaths,
    dead_any,
    deaths_sq,
):
    """Lethality outcomes after the fight (and any finishing rounds): ``first_aid`` when a
    side won, then ``leave`` — every dying combatant rolls E14 until dead or stabilised;
    then each combatant's fate is counted (standing / dead / dying / out)."""
    n = side.size
    if winner >= 0 and rule[R_AFTERMATH] == AFT_FIRST_AID:
        for i in range(n):
            if st[i] == DYING:
                apply_first_aid(s, F, i, st, fails, eff, rule)
    for i in range(n):
        while st[i] == DYING:
            fortitude_check(s, F, i, st, fails, eff)
    cnt[:] = 0
    for i in range(n):
        k = 0 if st[i] == ACTIVE else (1 if st[i] == DEAD else (2 if st[i] == DYING else 3))
        cnt[side[i], k] += 1
    for sd in range(2):
        deaths[sd] += cnt[sd, 1]
        for k in range(4):
            fates[sd, k] += cnt[sd, k]
            fates_sq[sd, k] += cnt[sd, k] * cnt[sd, k]
    dead = cnt[0, 1] + cnt[1, 1]
    if dead > 0:
        dead_any[0] += 1
    deaths_sq[0] += dead * dead
    if winner >= 0:
        lo = 1 - winner
        for k in range(3):
            loser_fate[winner, k] += cnt[lo, k + 1]
            loser_fate_sq[winner, k] += cnt[lo, k + 1] * cnt[lo, k + 1]
        if cnt[lo, 1] == cnt[lo].sum():
            loser_dead[winner] += 1


@njit(**LEAF)
def _one_fight(
    s,
    F,
    side,
    rule,
    round_cap,
    order,
    key,
    st,
    hp,
    fails,
    rec,
    hero,
    eff,
    fst,
    pos,
    cov,
    cnt,
    outcome,
    rounds,
    loser_dead,
    standing,
    deaths,
    hits,
    loser_fate,
    loser_fate_sq,
    fates,
    fates_sq,
    dead_any,
    deaths_sq,
):
    n = side.size
    for i in range(n):
        st[i] = ACTIVE
        # ET1: side 0 at 0 m, side 1 at the starting distance, on one line; none in cover
        pos[i] = 0 if side[i] == 0 else rule[R_DISTANCE]
        cov[i] = 0
        hp[i] = F[i, F_HP] - F[i, F_START]
        fails[i] = 0
        rec[i] = 0
        hero[i] = F[i, F_HERO]
        eff[i] = 0
        # E16 surprise attack (E-g16); E17 the other side is surprised
        if rule[R_SURPRISE] == 0:
            fst[i] = FS_NONE
        else:
            fst[i] = FS_SURPRISE if rule[R_SURPRISE] == side[i] + 1 else FS_SURPRISED
        # E10: d20 + Agility; ties by Dodge, Agility, Awareness; then E-g10
        k = _d20(s) + F[i, F_INIT] + 200
        k = k * 256 + F[i, F_DODGE] + 128
        k = k * 256 + F[i, F_AGI] + 128
        k = k * 256 + F[i, F_AWA] + 128
        if rule[R_TIES_RANDOM] != 0:
            tie = np.int64(next_u64(s) >> np.uint64(44))
        else:
            tie = (1 << 20) - 1 - i
        key[i] = k * (1 << 21) + tie
        order[i] = i
    for a in range(1, n):  # insertion sort, highest key first
        x = order[a]
        b = a - 1
        while b >= 0 and key[order[b]] < key[x]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x
    if rule[R_SURPRISE] != 0 and rule[R_SURPRISE_STUN] != 0:
        # E-g19 surprise_attack: the stun ends once the surprising side's surprise attacks
        # are made, so a surprised fighter acting after every surpriser is not stunned
        last = -1
        for q in range(n):
            if fst[order[q]] == FS_SURPRISE:
                last = q
        for q in range(last + 1, n):
            fst[order[q]] = FS_NONE
    able0 = 0
    able1 = 0
    for i in range(n):
        if side[i] == 0:
            able0 += 1
        else:
            able1 += 1
    winner = -1
    ended = False
    undecided = n < 0  # False, not a literal (see _finish_turn)
    end_round = round_cap
    at = 0
    for rnd in range(1, round_cap + 1):
        for at in range(n):
            i = order[at]
            if _turn(
                s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, undecided, pos, cov
            ):
                c0 = 0
                c1 = 0
                for j in range(n):
                    if st[j] == ACTIVE:
                        if side[j] == 0:
                            c0 += 1
                        else:
                            c1 += 1
                standing[rnd, 0] += c0 - able0
                standing[rnd, 1] += c1 - able1
                able0 = c0
                able1 = c1
                if c0 == 0 or c1 == 0:
                    # both at once only by an ET2 charge's impact: neither side won
                    ended = True
                    winner = -1 if c0 == c1 else (0 if c0 > 0 else 1)
                    break
        if ended:
            end_round = rnd
            break
    if not ended:
        outcome[2] += 1
        rounds[round_cap, 2] += 1
    elif winner < 0:
        outcome[2] += 1
        rounds[end_round, 2] += 1
    else:
        outcome[winner] += 1
        rounds[end_round, winner] += 1
        extra = rule[R_FINISH] * n
        p = at
        for _ in range(extra):
            p += 1
            if p == n:
                p = 0
            _finish_turn(
                s, F, side, order[p], st, hp, fails, rec, hero, eff, fst, rule, hits, pos, cov
            )
    _aftermath(
        s,
        F,
        side,
        st,
        fails,
        eff,
        rule,
        winner,
        cnt,
        loser_fate,
        loser_fate_sq,
        fates,
        fates_sq,
        loser_dead,
        deaths,
        dead_any,
        deaths_sq,
    )


@njit(**LEAF)
def _chunk(
    n_trials,
    s,
    F,
    side,
    rule,
    round_cap,
    order,
    key,
    st,
    hp,
    fails,
    rec,
    hero,
    eff,
    fst,
    pos,
    cov,
    cnt,
    outcome,
    rounds,
    loser_dead,
    standing,
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
    """``n_trials`` fights of one work item into its histograms; every scratch array comes
    from :func:`fight_kernel`. ``end`` (campaign attrition) counts combatant 0's end: able
    having lost ``d`` hit points at ``d``, else dead, dying, incapacitated (out) at
    ``HP + 1..3``; with no columns (a plain run) nothing is counted."""
    health = end.size - 4
    for _ in range(n_trials):
        _one_fight(
            s,
            F,
            side,
            rule,
            round_cap,
            order,
            key,
            st,
            hp,
            fails,
            rec,
            hero,
            eff,
            fst,
            pos,
            cov,
            cnt,
            outcome,
            rounds,
            loser_dead,
            standing,
            deaths,
            hits,
            loser_fate,
            loser_fate_sq,
            fates,
            fates_sq,
            dead_any,
            deaths_sq,
        )
        if health >= 0:
            if st[0] == ACTIVE:
                end[max(F[0, F_HP] - hp[0], 0)] += 1
            else:
                end[health + (1 if st[0] == DEAD else 2 if st[0] == DYING else 3)] += 1


@njit(**KERNEL)
def fight_kernel(
    first,
    last,
    F,
    side,
    rule,
    round_cap,
    trials,
    states,
    outcome,
    rounds,
    loser_dead,
    standing,
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
    :func:`engines.blocks.run_blocks`), ``trials[item]`` per item, each item into its own
    histogram rows.

    ``end`` (campaign attrition) counts combatant 0's end in ``end[item]``: able having
    lost ``d`` hit points at ``d``, else dead, dying, incapacitated (out) at ``HP + 1..3``;
    with no columns (a plain run) nothing is counted, so the fight is compiled once."""
    n = side.size
    for item in range(first, last):
        s = states[item].copy()
        o = np.zeros(3, dtype=np.int64)
        rd = np.zeros((round_cap + 1, 3), dtype=np.int64)
        ld = np.zeros(2, dtype=np.int64)
        sd = np.zeros((round_cap + 1, 2), dtype=np.int64)
        de = np.zeros(2, dtype=np.int64)
        h = np.zeros(hits.shape[1], dtype=np.int64)
        lf = np.zeros((2, 3), dtype=np.int64)
        lfs = np.zeros((2, 3), dtype=np.int64)
        fa = np.zeros((2, 4), dtype=np.int64)
        fas = np.zeros((2, 4), dtype=np.int64)
        da = np.zeros(1, dtype=np.int64)
        ds = np.zeros(1, dtype=np.int64)
        cnt = np.zeros((2, 4), dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        st = np.zeros(n, dtype=np.int64)
        hp = np.zeros(n, dtype=np.int64)
        fails = np.zeros(n, dtype=np.int64)
        rec = np.zeros(n, dtype=np.int64)
        hero = np.zeros(n, dtype=np.int64)
        eff = np.zeros(n, dtype=np.int64)
        fst = np.zeros(n, dtype=np.int64)
        pos = np.zeros(n, dtype=np.int64)
        cov = np.zeros(n, dtype=np.int64)
        _chunk(
            trials[item],
            s,
            F,
            side,
            rule,
            round_cap,
            order,
            key,
            st,
            hp,
            fails,
            rec,
            hero,
            eff,
            fst,
            pos,
            cov,
            cnt,
            o,
            rd,
            ld,
            sd,
            de,
            h,
            lf,
            lfs,
            fa,
            fas,
            da,
            ds,
            end[item],
        )
        put(outcome[item], o)
        put(rounds[item], rd)
        put(loser_dead[item], ld)
        put(standing[item], sd)
        put(deaths[item], de)
        put(hits[item], h)
        put(loser_fate[item], lf)
        put(loser_fate_sq[item], lfs)
        put(fates[item], fa)
        put(fates_sq[item], fas)
        put(dead_any[item], da)
        put(deaths_sq[item], ds)


#: The histograms of :func:`fight_kernel`, in its argument order.
_FIELDS = (
    "outcome",
    "rounds",
    "loser_dead",
    "standing",
    "deaths",
    "hits",
    "loser_fate",
    "loser_fate_sq",
    "fates",
    "fates_sq",
    "dead_any",
    "deaths_sq",
)


def duel_mc_end(
    a,
    b,
    start_damage: int,
    trials: int,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started ``start_damage``
    hit points down against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able having lost ``d`` (``d < a.hit_points``; a recovery above the
    maximum counts 0), then dead, dying, out at ``a.hit_points + 1..3``."""

    fa, fb = as_fighter(a, "a"), as_fighter(b, "b")
    v = as_variants(variants)
    cap = check_round_cap(round_cap, 1000)
    health = fa.hit_points
    start_damage = check_start_damage(start_damage, health)
    F = np.ascontiguousarray(np.stack([fa.array(), fb.array()]))
    F[0, F_START] = start_damage
    args = (F, np.array([0, 1], dtype=np.int64), fight_rule(v, (fa, fb)), np.int64(cap))
    _, sums = run_chunks(
        fight_kernel, args, SYSTEM, trials, seed, cap, _FIELDS, end_columns=health + 4
    )
    return sums["end"]


def fight_mc(
    side0: list,
    side1: list,
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (E10–E16; package docstring for the gaps).

    Returns raw counts in a :class:`~engines.fight.FightStats` (``trials`` set).

    Examples
    --------
    >>> a = Fighter(attack=7, damage=6, toughness=3, parry=7, dodge=7, fortitude=4,
    ...             hit_points=25)
    >>> int(fight_mc([a], [a], trials=10_000, seed=1).outcome.sum())
    10000
    """
    fighters = [as_fighter(x, f"side0[{k}]") for k, x in enumerate(side0)] + [
        as_fighter(x, f"side1[{k}]") for k, x in enumerate(side1)
    ]
    if not side0 or not side1:
        raise InputError("fight_mc: each side needs at least one fighter")
    if len(fighters) > 64:
        raise InputError(f"fight_mc: at most 64 combatants, got {len(fighters)}")
    v = as_variants(variants)
    cap = check_round_cap(round_cap, 1000)
    F = np.ascontiguousarray(np.stack([f.array() for f in fighters]))
    side = np.array([0] * len(side0) + [1] * len(side1), dtype=np.int64)
    stats, _ = run_chunks(
        fight_kernel,
        (F, side, fight_rule(v, fighters), np.int64(cap)),
        SYSTEM,
        trials,
        seed,
        cap,
        _FIELDS,
    )
    start = np.array([len(side0), len(side1)], dtype=np.int64) * int(trials)
    stats.standing[:] = start + np.cumsum(stats.standing, axis=0)
    stats.notes.update(
        method="monte_carlo", variants=dataclasses.asdict(v), fighters=[f.name for f in fighters]
    )
    return stats


def duel_mc(
    a,
    b,
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo 1-vs-1 duel (``a`` is side 0): :func:`fight_mc` with one fighter a side."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
