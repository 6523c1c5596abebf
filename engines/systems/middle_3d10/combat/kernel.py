"""``middle_3d10`` combat, Monte Carlo (B1, B3, B4, B6–B11, BT1 and the aftermath): the shared
``LEAF`` rule pieces, the fight helpers, the serial kernel :func:`mc_kernel` and its
drivers :func:`fight_mc`, :func:`duel_mc` and :func:`duel_mc_end` (campaign attrition)."""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import merge_standing, run_chunks, sort_desc
from engines.config import KERNEL, LEAF
from engines.constants import ROUND_CAP
from engines.distance import CHARGE, KITE
from engines.fight import FightStats, check_round_cap, check_side, check_start_damage
from engines.rng import Seed, bounded, chunk_states, d10, normalize_seed, plan_chunks

from .rules import (
    A_FINISH,
    A_FIRST_AID,
    A_LEAVE,
    AWARE,
    BONUS_DIV,
    DEFAULT,
    DEFENSE,
    DRAMA,
    F_DEAD,
    F_DYING,
    F_OUT,
    F_STANDING,
    FLAT,
    MASK,
    MASSIVE_DC,
    NOTES,
    PEN_INCAP,
    PEN_WOUNDED,
    PLAN,
    R_AFTER,
    R_AID_DIFF,
    R_AID_TOTAL,
    R_AID_TRIES,
    R_CRIT,
    R_DISTANCE,
    R_DOUBLES,
    R_DYING_DMG,
    R_FINISH,
    R_HELPLESS,
    R_INCREMENTS,
    R_INIT,
    R_MASSIVE_VIGOR,
    R_MOVE,
    R_RANGE_PENALTY,
    R_REACH,
    R_TARGET,
    R_TIMING,
    R_UNTREATED,
    RANGE,
    RANGED,
    REFLEX,
    SKILL,
    START,
    STR,
    SYSTEM,
    TACTIC,
    TRAIT,
    VIGOR,
    Combatant,
    Variants,
)


@njit(**LEAF)
def wound_penalty(dmg, vigor, wounded=2, incapacitated=5):
    """B9: 0 / ``wounded`` (2) / ``incapacitated`` (5) by health state; -1 for dying."""
    if dmg < vigor:
        return 0
    if dmg < 2 * vigor:
        return wounded
    if dmg < 3 * vigor:
        return incapacitated
    return -1


@njit(**LEAF)
def _penalty(cmb, i, dmg_i):
    """B9: combatant ``i``'s wound penalty at damage ``dmg_i`` (its row's penalties)."""
    return wound_penalty(dmg_i, cmb[i, VIGOR], cmb[i, PEN_WOUNDED], cmb[i, PEN_INCAP])


@njit(**LEAF)
def _bonus(cmb, i):
    """B8: ⌊Combat/4⌋ at range, ⌊(FOR + Combat)/4⌋ in melee (4: the row's divisor)."""
    base = cmb[i, SKILL] if cmb[i, RANGED] != 0 else cmb[i, STR] + cmb[i, SKILL]
    return base // cmb[i, BONUS_DIV]


@njit(**LEAF)
def _sorted3(a, b, c):
    lo = min(a, b, c)
    hi = max(a, b, c)
    return lo, a + b + c - lo - hi, hi


@njit(**LEAF)
def _special(a, b, c, doubles):
    """B3: 1 automatic success (two+ 10s), 2 catastrophe (two+ 1s), else 0."""
    if doubles == 0:
        return 0
    if (a == 10) + (b == 10) + (c == 10) >= 2:
        return 1
    if (a == 1) + (b == 1) + (c == 1) >= 2:
        return 2
    return 0


@njit(**LEAF)
def _dice_damage(lo, mid, hi, mask):
    """B8: the damage dice the weapon category reads from the attack's own roll."""
    return lo * (mask & 1) + mid * ((mask >> 1) & 1) + hi * ((mask >> 2) & 1)


@njit(**LEAF)
def _uses_drama(tactic, drama, dmg, vigor):
    """B4 tactic: never, early (whenever a point is left), late (only once wounded)."""
    if drama <= 0 or tactic == 0:
        return False
    return tactic == 1 or dmg >= vigor


@njit(**LEAF)
def _attack(s, cmb, rule, i, j, dmg, drama, acted, far_pen):
    """One attack of ``i`` on ``j`` (B1, B3, B4, B6, B7, B8), ``far_pen`` points off for
    range (BT-g2); returns the damage (0 = miss)."""
    vi = cmb[i, VIGOR]
    mod = cmb[i, TRAIT] + cmb[i, SKILL] - _penalty(cmb, i, dmg[i]) - far_pen
    defense = cmb[j, DEFENSE] - _penalty(cmb, j, dmg[j])
    if acted[j] == 0:
        defense -= cmb[j, FLAT]
    use = _uses_drama(cmb[i, TACTIC], drama[i], dmg[i], vi)
    adv = use and rule[R_TIMING] == 1
    if adv:
        drama[i] -= 1
    a, b, c = d10(s), d10(s), d10(s)
    lo, mid, hi = _sorted3(a, b, c)
    sp = _special(a, b, c, rule[R_DOUBLES])
    kept = hi if adv else mid
    hit = sp == 1 or (sp == 0 and kept + mod >= defense)
    if not hit and use and not adv:
        drama[i] -= 1
        a, b, c = d10(s), d10(s), d10(s)
        lo, mid, hi = _sorted3(a, b, c)
        sp = _special(a, b, c, rule[R_DOUBLES])
        hit = sp == 1 or (sp == 0 and hi + mod >= defense)
    if not hit:
        return 0
    d = _dice_damage(lo, mid, hi, cmb[i, MASK]) + _bonus(cmb, i)
    if sp == 1:
        d += rule[R_CRIT]
    return d


@njit(**LEAF)
def _take(s, cmb, rule, j, d, dmg):
    """B9 / B10: add ``d`` to ``j``'s damage; a hit ≥ Vigor calls the massive check."""
    v = cmb[j, VIGOR]
    dmg[j] = min(dmg[j] + d, 3 * v)
    if d >= v and dmg[j] < 3 * v:
        a, b, c = d10(s), d10(s), d10(s)
        _, mid, _ = _sorted3(a, b, c)
        sp = _special(a, b, c, rule[R_DOUBLES])
        total = mid + (v if rule[R_MASSIVE_VIGOR] != 0 else 0)
        if not (sp == 1 or (sp == 0 and total >= cmb[j, MASSIVE_DC])):
            dmg[j] = 3 * v


@njit(**LEAF)
def _target(s, cmb, side, rule, i, dmg, pos, far):
    """B-g9: the opponent ``i`` attacks among those standing within ``far`` metres of it
    (BT1: reach or range; -1 when there is none)."""
    n = cmb.shape[0]
    count = 0
    best = -1
    for j in range(n):
        if side[j] != side[i] and dmg[j] < 3 * cmb[j, VIGOR] and abs(pos[j] - pos[i]) <= far:
            count += 1
            if best < 0 or (rule[R_TARGET] == 2 and dmg[j] > dmg[best]):
                best = j
    if count == 0 or rule[R_TARGET] != 1:
        return best
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and dmg[j] < 3 * cmb[j, VIGOR] and abs(pos[j] - pos[i]) <= far:
            if k == 0:
                return j
            k -= 1
    return best


#: farther than any distance a fight can reach (engines.distance.MAX_DISTANCE and moves)
FAR_AWAY = 1 << 40


@njit(**LEAF)
def _bands(cmb, rule, i):
    """``(first, far)``: metres within which ``i`` attacks without a range penalty and at
    all (``rules.bands``): melee the reach; ranged below one increment and
    ``range_increments`` of them (BT-g2)."""
    if cmb[i, RANGED] == 0:
        return rule[R_REACH], rule[R_REACH]
    return cmb[i, RANGE] - 1, rule[R_INCREMENTS] * cmb[i, RANGE]


@njit(**LEAF)
def _move(cmb, side, rule, dmg, pos, i):
    """BT1: the move of ``i``'s turn by its plan, updating ``pos[i]``. Every fighter
    stands on one line (side 0 starts at 0 m, side 1 at the starting distance) and moves
    along it: toward its foes while closing, away while kiting. The steps of
    ``rules.turn_move``, the nearest standing foe taking the place of the one foe of a
    duel and the tightest melee threat (reach + a move) its threat."""
    near = FAR_AWAY
    room = FAR_AWAY
    for j in range(side.size):
        if side[j] != side[i] and dmg[j] < 3 * cmb[j, VIGOR]:
            dist = abs(pos[j] - pos[i])
            near = min(near, dist)
            if cmb[j, RANGED] == 0:
                room = min(room, dist - rule[R_REACH] - rule[R_MOVE] - 1)
    plan = cmb[i, PLAN]
    step = rule[R_MOVE]
    toward = 1 - 2 * side[i]
    first, far = _bands(cmb, rule, i)
    if plan == KITE and room < 0:
        pos[i] -= toward * step
        return
    if plan == KITE:
        gap = min(near - far, room)
    elif plan == CHARGE:
        gap = near - first
    else:
        gap = near - far
    if gap > 0:
        pos[i] += toward * min(step, gap)


@njit(**LEAF)
def _far_penalty(cmb, rule, i, j, pos):
    """BT-g2: points ``i`` loses shooting at ``j``: ``range_penalty`` per full range
    increment between them; 0 in melee."""
    if cmb[i, RANGED] == 0:
        return 0
    return rule[R_RANGE_PENALTY] * (abs(pos[j] - pos[i]) // cmb[i, RANGE])


@njit(**LEAF)
def _order(s, cmb, rule, key, order):
    """B-g4: initiative (3d10 middle + reflex, or reflex), descending; ties: reflex, random."""
    n = cmb.shape[0]
    for i in range(n):
        init = cmb[i, REFLEX]
        if rule[R_INIT] == 0:
            a, b, c = d10(s), d10(s), d10(s)
            init += a + b + c - min(a, b, c) - max(a, b, c)
        key[i] = (init * 64 + cmb[i, REFLEX]) * (1 << 30) + bounded(s, 1 << 30)
    sort_desc(key, order)


@njit(**LEAF)
def _fight(
    s,
    cmb,
    side,
    rule,
    cap,
    dmg,
    drama,
    acted,
    key,
    order,
    up,
    outcome,
    rounds,
    standing,
    tail,
    hits,
    pos,
):
    """One whole fight; adds it to the histograms and returns the winning side (2: none).

    B6: the surprise round, when there is one, comes "antes da primeira rodada normal",
    so it is not counted against the cap. Round 0 is the start of the fight in every
    table: the surprise round counts with round 1 — ``standing`` row 1 is "after normal
    round 1" with the surprise round's casualties included, and a fight the surprise round
    decides ends in round 1 of ``rounds``.

    BT1: each turn is a move (:func:`_move`) and one attack on a standing foe in reach or
    range, its range band costing points (BT-g2); a turn with no foe in reach or range is
    a move alone, and still counts as the fighter acting (B6). Engaged with no kiter,
    nobody ever moves and every foe is in reach: the fight draws the same numbers as a
    fight without distance.
    """
    n = cmb.shape[0]
    n_bins = hits.shape[0]
    moving = rule[R_DISTANCE] > 0
    for i in range(n):
        pos[i] = side[i] * rule[R_DISTANCE]
        if cmb[i, PLAN] == KITE:
            moving = True
    for i in range(n):
        dmg[i] = cmb[i, START]
        drama[i] = cmb[i, DRAMA]
        acted[i] = 0
    n_aware = 0
    for i in range(n):
        n_aware += cmb[i, AWARE]
    surprise = 0 < n_aware < n
    _order(s, cmb, rule, key, order)
    up[0] = 0
    up[1] = 0
    for i in range(n):
        up[side[i]] += 1
    winner = 2
    last = cap
    for r in range(0 if surprise else 1, cap + 1):
        for k in range(n):
            i = order[k]
            if dmg[i] >= 3 * cmb[i, VIGOR]:
                continue
            if r == 0 and cmb[i, AWARE] == 0:
                continue
            far = FAR_AWAY
            if moving:
                _move(cmb, side, rule, dmg, pos, i)
                far = _bands(cmb, rule, i)[1]
            j = _target(s, cmb, side, rule, i, dmg, pos, far)
            if j < 0:  # BT1: a move alone
                acted[i] = 1
                continue
            pen = _far_penalty(cmb, rule, i, j, pos) if moving else 0
            d = _attack(s, cmb, rule, i, j, dmg, drama, acted, pen)
            acted[i] = 1
            if d > 0:
                hits[min(d, n_bins - 1)] += 1
                _take(s, cmb, rule, j, d, dmg)
                if dmg[j] >= 3 * cmb[j, VIGOR]:
                    up[side[j]] -= 1
                    if up[side[j]] == 0:
                        winner = side[i]
                        break
        if r > 0:
            standing[r, 0] += up[0]
            standing[r, 1] += up[1]
        if winner != 2:
            last = r
            break
    tail[last, 0] += up[0]
    tail[last, 1] += up[1]
    outcome[winner] += 1
    rounds[max(last, 1), winner] += 1  # round 0 is the start: the surprise round is in 1
    return winner


@njit(**LEAF)
def _check(s, mod, difficulty, doubles):
    """B1 + B3: 3d10, C + ``mod`` ≥ ``difficulty``; two 10s pass, two 1s fail."""
    a, b, c = d10(s), d10(s), d10(s)
    _, mid, _ = _sorted3(a, b, c)
    sp = _special(a, b, c, doubles)
    return sp == 1 or (sp == 0 and mid + mod >= difficulty)


@njit(**LEAF)
def _strike(s, cmb, rule, i, j, dmg, acted):
    """Aftermath ``finish``: one plain attack (B1, B3, B7, B8; no drama) of standing ``i``
    on dying ``j``; True when it kills ``j``.

    B-g12 the helpless Defense: Defense − 5, and − 3 more if ``j`` never acted (B6), or
    every strike hits; B-g11: any damage kills a dying combatant, or only a hit ≥ Vigor
    that fails the B10 check (difficulty 12, traits by B-g6).
    """
    a, b, c = d10(s), d10(s), d10(s)
    lo, mid, hi = _sorted3(a, b, c)
    sp = _special(a, b, c, rule[R_DOUBLES])
    if rule[R_HELPLESS] == 0:
        mod = cmb[i, TRAIT] + cmb[i, SKILL] - _penalty(cmb, i, dmg[i])
        defense = cmb[j, DEFENSE] - cmb[j, PEN_INCAP]
        if acted[j] == 0:
            defense -= cmb[j, FLAT]
        if not (sp == 1 or (sp == 0 and mid + mod >= defense)):
            return False
    d = _dice_damage(lo, mid, hi, cmb[i, MASK]) + _bonus(cmb, i)
    if sp == 1:
        d += rule[R_CRIT]
    if rule[R_DYING_DMG] == 0:
        return d > 0
    v = cmb[j, VIGOR]
    if d < v:
        return False
    return not _check(
        s, v if rule[R_MASSIVE_VIGOR] != 0 else 0, cmb[j, MASSIVE_DC], rule[R_DOUBLES]
    )


@njit(**LEAF)
def _aftermath(s, cmb, side, rule, winner, dmg, acted, order, fate):
    """Lethality outcomes: the fate of every combatant once the fight is over.

    Fallen = dying (damage 3 × Vigor, B9/B10): the only combatants who cannot act; an
    incapacitated combatant (−5) still fights. ``leave`` (and every fight stopped at the
    cap): the dying follow B-g10. ``first_aid``: every fallen combatant of both sides gets
    up to ``aid_tries`` stabilising checks (B-g14; success → out, B11 "se estabiliza").
    ``finish``: for up to ``finish_rounds`` rounds (B-g13) each standing winner, in
    initiative order, strikes the first dying foe (B-g11, B-g12); the winners' own fallen
    are left. Draws come from the aftermath's own stream ``s``.
    """
    n = cmb.shape[0]
    for i in range(n):
        fate[i] = F_DYING if dmg[i] >= 3 * cmb[i, VIGOR] else F_STANDING
    policy = rule[R_AFTER] if winner != 2 else A_LEAVE
    if policy == A_FIRST_AID:
        for i in range(n):
            if fate[i] == F_DYING:
                for _ in range(rule[R_AID_TRIES]):
                    if _check(s, rule[R_AID_TOTAL], rule[R_AID_DIFF], rule[R_DOUBLES]):
                        fate[i] = F_OUT
                        break
    elif policy == A_FINISH:
        for _ in range(rule[R_FINISH]):
            left = False
            for k in range(n):
                i = order[k]
                if side[i] != winner or fate[i] != F_STANDING:
                    continue
                j = -1
                for t in range(n):
                    if side[t] != winner and fate[t] == F_DYING:
                        j = t
                        break
                if j < 0:
                    break
                left = True
                if _strike(s, cmb, rule, i, j, dmg, acted):
                    fate[j] = F_DEAD
            if not left:
                break
    for i in range(n):
        if fate[i] == F_DYING:
            fate[i] = rule[R_UNTREATED]


@njit(**LEAF)
def _tally(
    side,
    fate,
    winner,
    size,
    cnt,
    loser_dead,
    loser_fate,
    loser_fate_sq,
    fates,
    fates_sq,
    dead_any,
    deaths_sq,
):
    """Add one fight's fates to the lethality histograms (see :mod:`engines.fight`)."""
    cnt[:] = 0
    for i in range(side.shape[0]):
        cnt[side[i], fate[i]] += 1
    for sd in range(2):
        for f in range(4):
            fates[sd, f] += cnt[sd, f]
            fates_sq[sd, f] += cnt[sd, f] * cnt[sd, f]
    dead = cnt[0, F_DEAD] + cnt[1, F_DEAD]
    if dead > 0:
        dead_any[0] += 1
    deaths_sq[0] += dead * dead
    if winner < 2:
        lo = 1 - winner
        for f in range(1, 4):
            loser_fate[winner, f - 1] += cnt[lo, f]
            loser_fate_sq[winner, f - 1] += cnt[lo, f] * cnt[lo, f]
        if cnt[lo, F_DEAD] == size[lo]:
            loser_dead[winner] += 1


@njit(**LEAF)
def _chunk(
    s,
    a,
    cmb,
    side,
    rule,
    cap,
    n_trials,
    dmg,
    drama,
    acted,
    key,
    order,
    fate,
    up,
    size,
    cnt,
    o,
    rd,
    st,
    tl,
    h,
    ld,
    lf,
    lfs,
    fs,
    fss,
    da,
    ds,
    end,
    pos,
):
    """``n_trials`` fights of one work item into the histograms ``o`` … ``fss``; every
    scratch array comes from :func:`mc_kernel`. ``a`` is the aftermath's own stream, so
    the fights draw the same numbers under every aftermath policy.

    ``end`` (campaign attrition) counts combatant 0's end: able with ``d`` damage at ``d``,
    else its fate at ``3 × Vigor + fate``; with no columns (a plain run) nothing is
    counted."""
    health = end.shape[0] - 4
    for i in range(cmb.shape[0]):
        size[side[i]] += 1
    for _ in range(n_trials):
        w = _fight(
            s, cmb, side, rule, cap, dmg, drama, acted, key, order, up, o, rd, st, tl, h, pos
        )
        _aftermath(a, cmb, side, rule, w, dmg, acted, order, fate)
        _tally(side, fate, w, size, cnt, ld, lf, lfs, fs, fss, da, ds)
        if health >= 0:
            if fate[0] == F_STANDING:
                end[dmg[0]] += 1
            else:
                end[health + fate[0]] += 1


@njit(**KERNEL)
def mc_kernel(
    first,
    last,
    cmb,
    side,
    rule,
    cap,
    astates,
    trials,
    states,
    outcome,
    rounds,
    standing,
    tail,
    hits,
    loser_dead,
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
        a = astates[item].copy()
        dmg = np.zeros(n, dtype=np.int64)
        drama = np.zeros(n, dtype=np.int64)
        acted = np.zeros(n, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        fate = np.zeros(n, dtype=np.int64)
        up = np.zeros(2, dtype=np.int64)
        size = np.zeros(2, dtype=np.int64)
        cnt = np.zeros((2, 4), dtype=np.int64)
        o = np.zeros(3, dtype=np.int64)
        rd = np.zeros((cap + 1, 3), dtype=np.int64)
        st = np.zeros((cap + 1, 2), dtype=np.int64)
        tl = np.zeros((cap + 1, 2), dtype=np.int64)
        h = np.zeros(hits.shape[1], dtype=np.int64)
        ld = np.zeros(2, dtype=np.int64)
        lf = np.zeros((2, 3), dtype=np.int64)
        lfs = np.zeros((2, 3), dtype=np.int64)
        fs = np.zeros((2, 4), dtype=np.int64)
        fss = np.zeros((2, 4), dtype=np.int64)
        da = np.zeros(1, dtype=np.int64)
        ds = np.zeros(1, dtype=np.int64)
        pos = np.zeros(n, dtype=np.int64)
        _chunk(
            s,
            a,
            cmb,
            side,
            rule,
            cap,
            trials[item],
            dmg,
            drama,
            acted,
            key,
            order,
            fate,
            up,
            size,
            cnt,
            o,
            rd,
            st,
            tl,
            h,
            ld,
            lf,
            lfs,
            fs,
            fss,
            da,
            ds,
            end[item],
            pos,
        )
        put(outcome[item], o)
        put(rounds[item], rd)
        put(standing[item], st)
        put(tail[item], tl)
        put(hits[item], h)
        put(loser_dead[item], ld)
        put(loser_fate[item], lf)
        put(loser_fate_sq[item], lfs)
        put(fates[item], fs)
        put(fates_sq[item], fss)
        put(dead_any[item], da)
        put(deaths_sq[item], ds)


#: Spawn key appended to the user's seed for the aftermath's own random stream.
_AFTERMATH_STREAM = 0xAF7E
#: The histograms of :func:`mc_kernel`, in its argument order.
_FIELDS = (
    "outcome",
    "rounds",
    "standing",
    "tail",
    "hits",
    "loser_dead",
    "loser_fate",
    "loser_fate_sq",
    "fates",
    "fates_sq",
    "dead_any",
    "deaths_sq",
)


def duel_mc_end(
    a: Combatant,
    b: Combatant,
    start_damage: int,
    trials: int,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started with
    ``start_damage`` against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able with ``d`` damage (``d < 3 × Vigor``), then dead, dying, out at
    ``3 × Vigor + 1..3``."""
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    health = 3 * a.vigor
    start_damage = check_start_damage(start_damage, health)
    cmb = np.stack([a.row(), b.row()])
    cmb[0, START] = start_damage
    side = np.array([0, 1], dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    ss = normalize_seed(seed)
    astates = chunk_states(
        np.random.SeedSequence(
            ss.entropy, spawn_key=(*ss.spawn_key, _AFTERMATH_STREAM), pool_size=ss.pool_size
        ),
        n_chunks,
    )
    _, sums = run_chunks(
        mc_kernel,
        (cmb, side, variants.rule(), np.int64(round_cap), astates),
        SYSTEM,
        trials,
        ss,
        round_cap,
        _FIELDS,
        end_columns=health + 4,
    )
    return sums["end"]


def fight_mc(
    side0: list[Combatant],
    side1: list[Combatant],
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (B1, B3, B4, B6–B11, B-g4…B-g14) with the
    lethality outcomes of the ``aftermath`` variant (fates, loser_fate, loser_dead, deaths),
    started ``variants.distance`` metres apart (BT1, BT-g1, BT-g2; every fighter on one
    line).

    Examples
    --------
    >>> a = Combatant(trait=4, combat=4, dice="M")
    >>> int(fight_mc([a], [a, a], trials=1000, seed=1).outcome.sum())
    1000
    """
    s0 = check_side(side0, "side 0", Combatant, SYSTEM)
    s1 = check_side(side1, "side 1", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    rule = variants.rule()
    cmb = np.stack([c.row() for c in s0 + s1])
    side = np.array([0] * len(s0) + [1] * len(s1), dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    ss = normalize_seed(seed)
    astates = chunk_states(
        np.random.SeedSequence(
            ss.entropy, spawn_key=(*ss.spawn_key, _AFTERMATH_STREAM), pool_size=ss.pool_size
        ),
        n_chunks,
    )
    out, sums = run_chunks(
        mc_kernel,
        (cmb, side, rule, np.int64(round_cap), astates),
        SYSTEM,
        trials,
        ss,
        round_cap,
        _FIELDS,
    )
    merge_standing(out.standing, sums["tail"], np.array([len(s0), len(s1)]), trials)
    out.deaths[:] = out.fates[:, F_DEAD]
    out.notes.update(NOTES)
    return out


def duel_mc(
    a: Combatant,
    b: Combatant,
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo of a 1-vs-1 fight (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
