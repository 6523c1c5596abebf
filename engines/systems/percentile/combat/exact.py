"""``percentile`` exact duels (extension DX1–DX9, DX11, DX12, DX14–DX16): the absorbing
Markov chain of a 1-vs-1 fight (:func:`duel_exact`), the exact aftermath of a fallen loser
(DX8, DX-g6 … DX-g8) and what one attack does to an unhurt target (:func:`one_hit`)."""

from __future__ import annotations

import itertools

import numpy as np
from numba import njit

from engines.config import INLINE, JIT
from engines.constants import ROUND_CAP
from engines.errors import InputError
from engines.fight import DAMAGE_BINS, FightStats, check_round_cap, check_side

from .attack import action_branches, dives, level_pmf, weapon_damage
from .kernel import decide, shot_mods, threat_range
from .rules import (
    BASE_CM,
    DEFAULT,
    EXT_CM,
    INSTANT,
    MOV_CM,
    PLAN,
    R_CHARGE,
    R_REACH,
    R_TAKE_COVER,
    SYSTEM,
    W_FIREARM,
    WPN,
    Combatant,
    Variants,
    check_apart,
    variant_notes,
)


@njit(**INLINE)
def _apply(new, w, hp_o, hp_v, mw_o, mw_v, d, top, div, p_con, instant, victim_is_target, fall):
    """DX6–DX9 on the victim (``div``: its DX7 major-wound divisor); returns (mass down,
    mass dead). The mass that falls alive goes to ``fall[hit points, major wound]`` (0 HP
    with a major wound = dying, DX8)."""
    if (instant == 0 and d > top) or (instant == 1 and d >= top):
        return w, w
    if d <= 0:
        h2, m2 = hp_v, mw_v
        stay = w
    else:
        h2 = max(0, hp_v - d)
        major = div * d >= top
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
def _half_step(
    prob,
    to_t,
    to_a,
    top_a,
    top_t,
    div_a,
    div_t,
    con_a,
    con_t,
    instant,
    new,
    hits,
    res,
    fall_t,
    fall_a,
    won_a,
    won_t,
):
    """One attack or shot on every live state ``prob[hp_att, hp_tgt, mw_att, mw_tgt]``.

    ``top_*``: the hit points, ``div_*`` the DX7 major-wound divisors of attacker and target.
    ``res`` += [target down, target dead, attacker down, attacker dead]; the mass that
    falls alive goes to ``fall_t`` / ``fall_a`` ``[hit points, major wound]``. The mass
    of each fall is also added to the winner's hit points at that moment (an exchange
    hurts only one side): ``won_a[hp_att]`` when the target falls, ``won_t[hp_tgt]`` when
    the attacker does (campaign attrition).
    """
    n_a, n_t = prob.shape[0], prob.shape[1]
    p_t = to_t.sum()
    p_none = 1.0 - p_t - to_a.sum()
    # the damage values either side can deal, in ascending order (the rest add nothing)
    ds = np.empty(to_t.shape[0], dtype=np.int64)
    n_d = 0
    for d in range(to_t.shape[0]):
        if to_t[d] > 0.0 or to_a[d] > 0.0:
            ds[n_d] = d
            n_d += 1
    for ha in range(1, n_a):
        for ht in range(1, n_t):
            for ma in range(2):
                for mt in range(2):
                    m = prob[ha, ht, ma, mt]
                    if m == 0.0:
                        continue
                    new[ha, ht, ma, mt] += m * p_none
                    for k in range(n_d):
                        d = ds[k]
                        if to_t[d] > 0.0:
                            w = m * to_t[d]
                            hits[min(d, hits.shape[0] - 1)] += w
                            down, dead = _apply(
                                new,
                                w,
                                ha,
                                ht,
                                ma,
                                mt,
                                d,
                                top_t,
                                div_t,
                                con_t,
                                instant,
                                True,
                                fall_t,
                            )
                            res[0] += down
                            res[1] += dead
                            won_a[ha] += down
                        if to_a[d] > 0.0:
                            w = m * to_a[d]
                            hits[min(d, hits.shape[0] - 1)] += w
                            down, dead = _apply(
                                new,
                                w,
                                ht,
                                ha,
                                mt,
                                ma,
                                d,
                                top_a,
                                div_a,
                                con_a,
                                instant,
                                False,
                                fall_a,
                            )
                            res[2] += down
                            res[3] += dead
                            won_t[ht] += down


def _helpless_damage(att: Combatant, tgt: Combatant, variants: Variants):
    """DX-g8: (damage pmf of one attack or shot on a helpless ``tgt``, shots): no defence,
    one bonus die on top of the DX5 dice (a fight that started apart: the winner walks up,
    point-blank, DX15 / DX-g11, a regular success, the base dice, as the kernel's
    ``_strike_mods``); index = damage after armour."""
    w = att.weapon
    dband = None
    if w.firearm:
        if variants.distance == 0:
            dice = 1 + (1 if variants.range == "point_blank" else 0) - (1 if att.shots > 1 else 0)
            need = 2 if variants.range == "long" else 1
        else:
            point_blank = not w.long_arm or variants.point_blank_long_arms
            dice = 1 + (1 if point_blank else 0) - (1 if att.shots > 1 else 0)
            need, dband = 1, 0
        lv = level_pmf(att.firearms, dice, variants)
        shots = att.shots
    else:
        lv = level_pmf(att.fighting, 1, variants)
        need, shots = 1, 1
    return (
        lv[need:3].sum() * weapon_damage(att, w, tgt, False, variants, dband)
        + lv[3:].sum() * weapon_damage(att, w, tgt, True, variants, dband)
    ), shots


def _aftermath_exact(
    fall: np.ndarray,
    dead: float,
    winner: Combatant,
    loser: Combatant,
    variants: Variants,
    policy: str | None = None,
) -> np.ndarray:
    """Exact aftermath (package docstring; DX8, DX-g6–DX-g8; readings DX-r1–DX-r4: round
    1 is the rest of the deciding round, its strike, First Aid and CON roll in that order)
    of one fallen ``loser``:
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
                            m2 = 1 if (m or loser.major_divisor * d >= top) else 0
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


def p_first(a: Combatant, b: Combatant, variants: Variants) -> float:
    """DX1: P(a acts before b) (a readied firearm: DEX + its ``ready_bonus``)."""

    def key(c):
        gun = c.weapon.firearm
        return (
            c.dex + (c.ready_bonus if gun and variants.readied_firearms else 0),
            c.firearms if gun else c.fighting,
        )

    ka, kb = key(a), key(b)
    return 1.0 if ka > kb else 0.0 if ka < kb else 0.5


def _engaged_rounds(a: Combatant, b: Combatant, variants: Variants, first: int, tables):
    """The actions of each round of a duel that starts engaged: ``[(attacker, branches)]``
    in DX1 order, a forfeited action (DX12 / DX-g5) left out."""
    cmb = (a, b)
    forfeit = [False, False]
    while True:
        acts = []
        for att in (first, 1 - first):
            tgt = 1 - att
            if forfeit[att]:  # DX12 / DX-g5: the action after a dive is lost
                forfeit[att] = False
                continue
            if dives(cmb[att], cmb[tgt]) and variants.cover_cost == "forfeit":
                forfeit[tgt] = True
            acts.append((att, tables[att]))
        yield acts


def apart_rounds(a: Combatant, b: Combatant, variants: Variants, first: int):
    """DX14–DX16: the actions of each round of a duel that starts ``distance`` metres
    apart, ``[(attacker, branches)]`` in order: each fighter's turn in DX1 order
    (:func:`~.kernel.decide`, its move and maybe its action; a forfeited turn, DX12 /
    DX-g5, loses its move too), then a charger's melee attack at the end of the round,
    each shot with its DX15 / DX16 dice (:func:`~.kernel.shot_mods`). The same steps as
    the Monte Carlo kernel's ``_round``, on the same rows.

    Where the two stand never depends on hit points or dice (moves follow the plans and
    the distance; a dive's forfeit follows the shot, not its roll), so every live state
    of the chain shares one distance after each step: the chain carries it beside the
    hit points, as one number per step, not as a factor of the state."""
    cmb = np.stack([a.row(), b.row()])
    rule = variants.rule()
    reach = int(rule[R_REACH])
    pos = [0, 100 * variants.distance]
    fast, cover, forfeit = [0, 0], [0, 0], [False, False]
    cache: dict = {}
    fighters = (a, b)

    def act(att: int, d: int):
        tgt = 1 - att
        shot = None
        if fighters[att].weapon.firearm:
            shot = tuple(int(x) for x in shot_mods(cmb, rule, att, tgt, d, cover[tgt], fast[tgt]))
        if dives(fighters[att], fighters[tgt]) and variants.cover_cost == "forfeit":
            forfeit[tgt] = True
        if (att, shot) not in cache:
            cache[(att, shot)] = action_branches(fighters[att], fighters[tgt], variants, shot)
        return att, cache[(att, shot)]

    while True:
        acts, pend = [], [False, False]
        for att in (first, 1 - first):
            tgt = 1 - att
            if forfeit[att]:
                forfeit[att] = False
                fast[att] = 0
                continue
            d = abs(pos[tgt] - pos[att])
            ranged = bool(cmb[att, WPN + W_FIREARM])
            nd, what, f, take = (
                int(x)
                for x in decide(
                    int(cmb[att, PLAN]),
                    ranged,
                    d,
                    int(cmb[att, MOV_CM]),
                    reach,
                    int(cmb[att, EXT_CM]),
                    int(cmb[att, BASE_CM]),
                    int(rule[R_CHARGE]),
                    int(threat_range(cmb, rule, tgt)) if ranged else -1,
                    cover[att],
                    int(rule[R_TAKE_COVER]),
                )
            )
            fast[att] = f
            if take:
                cover[att] = 1
            if nd != d:
                toward = (
                    1
                    if pos[tgt] > pos[att]
                    else -1
                    if pos[tgt] < pos[att]
                    else (1 if att == 0 else -1)
                )
                pos[att] += toward * (d - nd)
            if what == 1:
                acts.append(act(att, nd))
            elif what == 2:
                pend[att] = True
        for att in (first, 1 - first):
            d = abs(pos[1 - att] - pos[att])
            if pend[att] and d <= reach:
                acts.append(act(att, d))
        yield acts


def duel_exact(
    a: Combatant,
    b: Combatant,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
    start_hp: int | None = None,
    end_a: np.ndarray | None = None,
) -> FightStats:
    """Exact 1-vs-1 fight as an absorbing Markov chain (extension DX1–DX9, DX11, DX12,
    DX14–DX16).

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

    A duel that starts ``distance`` metres apart (DX14–DX16) takes each round's actions
    from :func:`apart_rounds` (moves, a charger's attack at the end of the round, each
    shot's band and dice); the distance is the same for every live state after each step,
    so the chain carries it as one number per step.
    """
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    out = FightStats.empty(SYSTEM, round_cap, None, dtype=float)
    cmb = (a, b)
    tables = {0: action_branches(a, b, variants), 1: action_branches(b, a, variants)}
    con = (level_pmf(a.con, 0, variants)[1:].sum(), level_pmf(b.con, 0, variants)[1:].sum())
    instant = INSTANT.index(variants.instant_death)
    hits = np.zeros(DAMAGE_BINS)
    fall = (np.zeros((a.hit_points + 1, 2)), np.zeros((b.hit_points + 1, 2)))
    won = (np.zeros(a.hit_points + 1), np.zeros(b.hit_points + 1))
    if start_hp is not None and (
        isinstance(start_hp, bool)
        or not isinstance(start_hp, int)
        or not 1 <= start_hp <= a.hit_points
    ):
        raise InputError(f"start_hp: expected an integer 1..{a.hit_points}, got {start_hp!r}")
    p_a = p_first(a, b, variants)
    check_apart([a, b], variants)
    for first, weight in ((0, p_a), (1, 1.0 - p_a)):
        if weight == 0.0:
            continue
        prob = np.zeros((a.hit_points + 1, b.hit_points + 1, 2, 2))
        prob[a.hit_points if start_hp is None else start_hp, b.hit_points, 0, 0] = weight
        lost = [0.0, 0.0]
        out.standing[0] += weight
        rounds = (
            _engaged_rounds(a, b, variants, first, tables)
            if variants.distance == 0
            else apart_rounds(a, b, variants, first)
        )
        for r, acts in zip(range(1, round_cap + 1), rounds, strict=False):
            for att, branches in acts:
                tgt = 1 - att
                start = prob if att == 0 else np.ascontiguousarray(prob.transpose(1, 0, 3, 2))
                view_sum = np.zeros_like(start)
                res = np.zeros(4)
                for w_branch, (to_t, to_a, shots) in branches:
                    view = start * w_branch
                    for _ in range(shots):
                        new = np.zeros_like(view)
                        _half_step(
                            view,
                            to_t,
                            to_a,
                            cmb[att].hit_points,
                            cmb[tgt].hit_points,
                            cmb[att].major_divisor,
                            cmb[tgt].major_divisor,
                            con[att],
                            con[tgt],
                            instant,
                            new,
                            hits,
                            res,
                            fall[tgt],
                            fall[att],
                            won[att],
                            won[tgt],
                        )
                        view = new
                    view_sum += view
                prob = (
                    view_sum if att == 0 else np.ascontiguousarray(view_sum.transpose(1, 0, 3, 2))
                )
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
    for w in (0, 1):  # the aftermath of the loser (package docstring)
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
    out.notes.update(variant_notes())
    return out


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one attack (one shot of a multi-shot action) does to an unhurt target
    (extension DX2–DX9, DX11; not from the seed). Engaged (``distance`` 0) with the
    ``range`` variant's dice (DX-g2); at a starting distance (``distance`` > 0) a shot is
    made from there, in its DX15 band (:func:`~.kernel.shot_mods`: point-blank bonus die,
    hard success at long range, extreme at extreme range, the shotgun's dice by band; an
    unhurt target standing in the open, not moving), and a melee attack or a shot beyond
    extreme range cannot be made (every figure 0); the result then also has ``in_range``.

    ``p_hit``: the attack (or shot) succeeds against the target's defence (DX2, DX5);
    ``p_incapacitate``: the target is out of the fight — instant death (DX9), 0 hit
    points (DX8), or a major wound (≥ half the hit points) and a failed CON roll (DX7);
    ``p_kill``: instant death, more than (variant DX-g1) the maximum hit points;
    ``p_dead``, ``p_dying``, ``p_out``: the target is dropped and then ends dead / dying /
    out under the ``aftermath`` variant, the attacker standing (DX8, DX-g6–DX-g8); they
    add up to ``p_incapacitate``.
    """
    v = DEFAULT if variants is None else variants
    shot = None
    if v.distance > 0:
        cmb = np.stack([attacker.row(), target.row()])
        rule = v.rule()
        d = 100 * v.distance
        far = int(cmb[0, EXT_CM]) if attacker.weapon.firearm else int(rule[R_REACH])
        if d > far:
            return {
                **dict.fromkeys(
                    ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
                ),
                "in_range": False,
            }
        if attacker.weapon.firearm:
            shot = tuple(int(x) for x in shot_mods(cmb, rule, 0, 1, d, 0, 0))
    to_t = sum(w * b[0] for w, b in action_branches(attacker, target, v, shot))
    d = np.arange(to_t.size)
    top = target.hit_points
    dead = _kills(d, top, v.instant_death)
    p_con = level_pmf(target.con, 0, v)[1:].sum()
    zero = ~dead & (d >= top)
    major = ~dead & ~zero & (d > 0) & (target.major_divisor * d >= top)
    out = to_t[dead].sum() + to_t[zero].sum() + to_t[major].sum() * (1.0 - p_con)
    fall = np.zeros((top + 1, 2))
    fall[0, 1] = to_t[zero].sum()  # one hit to 0 HP is ≥ half the hit points: dying (DX8)
    for k in np.nonzero(major)[0]:
        fall[top - k, 1] += to_t[k] * (1.0 - p_con)  # DX7: unconscious
    fate = _aftermath_exact(fall, float(to_t[dead].sum()), attacker, target, v)
    odds = {
        "p_hit": float(to_t.sum()),
        "p_incapacitate": float(out),
        "p_kill": float(to_t[dead].sum()),
        "p_dead": float(fate[0]),
        "p_dying": float(fate[1]),
        "p_out": float(fate[2]),
    }
    return {**odds, "in_range": True} if v.distance > 0 else odds
