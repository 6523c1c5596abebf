"""``middle_3d10`` exact duels: the aftermath of a dying loser (:func:`fate_probs`,
B-g10 … B-g14), the absorbing Markov chain of a 1-vs-1 fight (:func:`duel_exact`) and
what one attack does to an unhurt target (:func:`one_hit`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.config import JIT
from engines.constants import PLANS, ROUND_CAP
from engines.fight import (
    DAMAGE_BINS,
    FATES,
    FightStats,
    check_round_cap,
    check_side,
    check_start_damage,
)

from .attack import (
    HIGH,
    LOW,
    MIDDLE,
    attack_damage,
    attack_table,
    check_pass,
    massive_pass,
    special_all,
)
from .rules import (
    DEFAULT,
    NOTES,
    SYSTEM,
    TACTICS,
    Combatant,
    Variants,
    bands,
    range_penalty,
    threat,
    turn_move,
)


def _kill_chance(
    att: Combatant, tgt: Combatant, penalty: int, flat: bool, variants: Variants
) -> float:
    """Aftermath ``finish``: P(one strike kills the dying ``tgt``) (B-g11, B-g12), the
    attacker carrying its own wound ``penalty`` (B9); ``flat``: ``tgt`` never acted (B6)."""
    sp = special_all(variants.doubles)
    if variants.helpless_defense == "auto_hit":
        hit = np.ones(1000, dtype=bool)
    else:
        defense = tgt.defense - tgt.incapacitated_penalty - tgt.flat_footed * int(flat)
        hit = (sp == 1) | ((sp == 0) & (MIDDLE + att.trait + att.combat - penalty >= defense))
    mask = att.mask
    d = LOW * (mask & 1) + MIDDLE * ((mask >> 1) & 1) + HIGH * ((mask >> 2) & 1)
    d = d + att.damage_bonus + variants.crit_bonus * (sp == 1)
    if variants.dying_damage == "any":
        return float((hit & (d > 0)).mean())
    return float((hit & (d >= tgt.vigor)).mean()) * (
        1.0 - massive_pass(tgt.vigor, variants, tgt.massive_difficulty)
    )


def fate_probs(
    winner: Combatant,
    loser: Combatant,
    variants: Variants = DEFAULT,
    penalty: int = 0,
    flat: bool = False,
) -> np.ndarray:
    """Lethality outcomes of one dying ``loser`` (B9/B10) of a 1-vs-1 fight:
    P(dead), P(dying), P(out) once the ``aftermath`` is over (exact).

    ``leave``: B-g10 (``untreated_dying``); ``first_aid``: ``aid_tries`` checks of C +
    ``aid_total`` ≥ ``aid_difficulty`` (B-g14), a success stabilises (out); ``finish``: up
    to ``finish_rounds`` strikes of ``winner`` (wound ``penalty``, B9) each killing with
    :func:`_kill_chance` (B-g11…B-g13). Whatever help fails leaves the fighter to B-g10.
    """
    variants.check()
    untreated = np.array([f == variants.untreated_dying for f in FATES], dtype=float)
    if variants.aftermath == "leave":
        return untreated
    if variants.aftermath == "first_aid":
        q = check_pass(variants.aid_total, variants.aid_difficulty, variants.doubles)
        p = 1.0 - (1.0 - q) ** variants.aid_tries
        return p * np.array([0.0, 0.0, 1.0]) + (1.0 - p) * untreated
    k = _kill_chance(winner, loser, penalty, flat, variants)
    p = 1.0 - (1.0 - k) ** variants.finish_rounds
    return p * np.array([1.0, 0.0, 0.0]) + (1.0 - p) * untreated


@njit(**JIT)
def _half_step(prob, table, flat, tactic, va, vt, q_massive, new, hits, down_by):
    """One attack (attacker axis 0 / 2, target axis 1 / 3) on every live state.

    ``prob[da, dt, pa, pt]``; writes the surviving mass to ``new`` and returns the mass
    whose target fell to dying (B9, B10), also added to ``down_by[attacker health state]``
    (its wound penalty carries into the aftermath).
    """
    n_a, n_t, n_pa, n_pt = prob.shape
    n_bins = table.shape[5]
    # per table row, the damage bins it gives a chance (ascending; the rest add nothing)
    rows = table.shape[0] * table.shape[1] * table.shape[2] * table.shape[3] * table.shape[4]
    flat_table = table.reshape(rows, n_bins)
    bins = np.empty((rows, n_bins), dtype=np.int64)
    n_nz = np.zeros(rows, dtype=np.int64)
    for row in range(rows):
        for d in range(n_bins):
            if flat_table[row, d] != 0.0:
                bins[row, n_nz[row]] = d
                n_nz[row] += 1
    down = 0.0
    for da in range(n_a):
        ia = 0 if da < va else (1 if da < 2 * va else 2)
        for pa in range(n_pa):
            use = 1 if (pa > 0 and (tactic == 1 or (tactic == 2 and da >= va))) else 0
            for dt in range(n_t):
                it = 0 if dt < vt else (1 if dt < 2 * vt else 2)
                for pt in range(n_pt):
                    m = prob[da, dt, pa, pt]
                    if m == 0.0:
                        continue
                    for spent in range(2):
                        pa2 = pa - spent
                        row = (
                            ((ia * table.shape[1] + it) * table.shape[2] + flat) * table.shape[3]
                            + use
                        ) * table.shape[4] + spent
                        for k in range(n_nz[row]):
                            d = bins[row, k]
                            p = flat_table[row, d]
                            w = m * p
                            if d > 0:
                                hits[min(d, hits.shape[0] - 1)] += w
                            dt2 = dt + d
                            if dt2 >= 3 * vt:
                                down += w
                                down_by[ia] += w
                            elif d >= vt:
                                new[da, dt2, pa2, pt] += w * q_massive
                                down += w * (1.0 - q_massive)
                                down_by[ia] += w * (1.0 - q_massive)
                            else:
                                new[da, dt2, pa2, pt] += w
    return down


def p_first(a: Combatant, b: Combatant, variants: Variants) -> float:
    """B-g4: P(a acts before b): initiative, ties to the higher reflex, then a coin."""
    if variants.initiative == "reflex":
        ia, ib = np.array([a.reflex]), np.array([b.reflex])
        wa = wb = np.array([1.0])
    else:
        pm = np.bincount(MIDDLE, minlength=11)[1:] / 1000.0
        ia, ib = np.arange(1, 11) + a.reflex, np.arange(1, 11) + b.reflex
        wa = wb = pm
    joint = wa[:, None] * wb[None, :]
    diff = ia[:, None] - ib[None, :]
    tie = joint[diff == 0].sum()
    share = 1.0 if a.reflex > b.reflex else 0.0 if a.reflex < b.reflex else 0.5
    return float(joint[diff > 0].sum() + tie * share)


def duel_exact(
    a: Combatant,
    b: Combatant,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
    start_damage: int = 0,
    end_a: np.ndarray | None = None,
) -> FightStats:
    """Exact 1-vs-1 fight as an absorbing Markov chain (B1, B3, B4, B6–B11, B-g4…B-g14,
    BT1, BT-g1, BT-g2).

    The state is (damage of a, damage of b, drama of a, drama of b, distance); who has
    acted (flat-footed, B6) and the distance are the same in every live state, given the
    initiative order and the round — a move rolls no dice and no wound slows it (BT1), so
    each turn's move follows from the plans alone (:func:`.rules.turn_move`) — so the
    chain is run once per order, the distance carried beside the damage and drama planes,
    and mixed by P(order). A turn whose move leaves the foe out of reach or range has no
    attack; an attack at range loses ``range_penalty`` points per full increment (BT-g2).
    A surprise round comes before round 1 and is not counted against the cap (B6);
    round 0 is the start of the fight in ``rounds`` as in ``standing``, so the surprise
    round's decisions and casualties both count with round 1. The mass absorbed
    when the loser falls is split by the winner's health state (B9) and the loser's
    flat-footedness (B6), and the aftermath turns it into fates in closed form
    (:func:`fate_probs`).

    Campaign attrition: ``start_damage`` is the damage ``a`` has already taken; when
    ``end_a`` (length 3 × a's Vigor) is given, P(``a`` ends the fight able — it won, or
    the round cap stopped the fight — with damage ``d``) is added to ``end_a[d]`` (an
    attack never changes its attacker's damage, so ``a``'s wins are the mass its attacks
    remove, by ``a``'s damage).
    """
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    variants.check()
    start_damage = check_start_damage(start_damage, 3 * a.vigor)
    out = FightStats.empty(SYSTEM, round_cap, None, dtype=float)
    p_a = p_first(a, b, variants)
    surprise_a = a.aware and not b.aware
    surprise_b = b.aware and not a.aware
    n_bins = 3 * 10 + 40 + variants.crit_bonus + 1
    # BT1: the move of each turn and the fighter's bands; one attack table per range
    # penalty met (BT-g2), built when first needed
    moves = [
        (PLANS.index(c.plan_in_force), variants.move, *bands(c, variants), threat(o, variants))
        for c, o in ((a, b), (b, a))
    ]
    tables: dict = {}

    def table(att: int, pen: int) -> np.ndarray:
        if (att, pen) not in tables:
            tables[att, pen] = attack_table(cmb[att], cmb[1 - att], variants, n_bins, pen)
        return tables[att, pen]

    qm = {
        0: massive_pass(b.vigor, variants, b.massive_difficulty),
        1: massive_pass(a.vigor, variants, a.massive_difficulty),
    }
    cmb = (a, b)
    fate = {
        (att, ia, flat): fate_probs(cmb[att], cmb[1 - att], variants, pen, bool(flat))
        for att in (0, 1)
        for ia, pen in enumerate(cmb[att].penalties)
        for flat in (0, 1)
    }
    hits = np.zeros(DAMAGE_BINS)
    for first, weight in ((0, p_a), (1, 1.0 - p_a)):
        if weight == 0.0:
            continue
        # prob axes: damage a, damage b, drama a, drama b
        prob = np.zeros((3 * a.vigor, 3 * b.vigor, a.drama + 1, b.drama + 1))
        prob[start_damage, 0, a.drama, b.drama] = weight
        dist = variants.distance  # BT1: the same in every live state (moves roll no dice)
        acted = [False, False]
        lost = [0.0, 0.0]
        out.standing[0] += weight
        surprise = surprise_a or surprise_b
        for r in range(0 if surprise else 1, round_cap + 1):
            order = [first, 1 - first]
            if r == 0:
                order = [0] if surprise_a else [1]
            for att in order:
                tgt = 1 - att
                flat = int(not acted[tgt])
                plan, step, _, far, threat_foe = moves[att]
                dist = turn_move(plan, step, moves[att][2], far, threat_foe, dist)
                if dist > far:  # BT1: a move alone, no foe in reach or range
                    acted[att] = True
                    continue
                pen = range_penalty(cmb[att], variants, dist)
                view = prob if att == 0 else np.ascontiguousarray(prob.transpose(1, 0, 3, 2))
                new = np.zeros_like(view)
                down_by = np.zeros(3)
                down = _half_step(
                    view,
                    table(att, pen),
                    flat,
                    TACTICS[cmb[att].drama_tactic],
                    cmb[att].vigor,
                    cmb[tgt].vigor,
                    qm[att],
                    new,
                    hits,
                    down_by,
                )
                if end_a is not None and att == 0:
                    end_a += view.sum(axis=(1, 2, 3)) - new.sum(axis=(1, 2, 3))
                prob = new if att == 0 else np.ascontiguousarray(new.transpose(1, 0, 3, 2))
                acted[att] = True
                out.outcome[att] += down
                out.rounds[max(r, 1), att] += down  # round 0 is the start (B6 reading)
                lost[tgt] += down
                for ia in range(3):
                    f = down_by[ia] * fate[att, ia, flat]
                    out.loser_fate[att] += f
                    out.fates[tgt, 1:] += f
                    out.fates[att, 0] += down_by[ia]
                    out.loser_dead[att] += f[0]
            if r > 0:
                out.standing[r] += [weight - lost[0], weight - lost[1]]
        alive = prob.sum()
        out.outcome[2] += alive
        out.rounds[round_cap, 2] += alive
        out.fates[:, 0] += alive
        if end_a is not None:
            end_a += prob.sum(axis=(1, 2, 3))
    out.hits[:] = hits
    out.loser_fate_sq[:] = out.loser_fate  # one loser per duel: counts are 0 or 1
    out.fates_sq[:] = out.fates
    out.deaths[:] = out.fates[:, 1]
    out.notes.update(NOTES)
    return out


def one_hit(
    attacker: Combatant,
    target: Combatant,
    variants: Variants | None = None,
    flat_footed: bool = False,
) -> dict:
    """What one attack does to an unhurt target (B1, B3, B6–B10, lethality outcomes).

    ``p_hit``: the attack succeeds (B7, B3); ``p_incapacitate``: the target cannot act
    any more — the damage reaches 3 × Vigor (dying, B9), or reaches Vigor and the massive
    damage check fails (B10, B-g6); ``p_kill``: 0 — the hit itself never kills (the seed
    has no death rule: dying is unconscious with risk of death). ``p_dead``, ``p_dying``,
    ``p_out``: the target is dropped and then ends dead / dying / out under the
    ``aftermath`` variant (:func:`fate_probs`, the attacker unhurt; they sum to
    ``p_incapacitate``). ``flat_footed`` as in :func:`attack_damage` (B6).

    At a starting distance (variant ``distance`` > 0) the attack is made from there: a
    shot loses ``range_penalty`` points per full range increment (BT-g2) and reaches
    ``range_increments`` increments; a melee attack reaches ``melee_reach``. Out of reach
    every figure is 0; with ``distance`` > 0 the result also has ``in_range``. The
    aftermath is engaged.
    """
    v = DEFAULT if variants is None else variants
    pen = 0
    if v.distance > 0:
        if v.distance > bands(attacker, v)[1]:
            return {
                **dict.fromkeys(
                    ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
                ),
                "in_range": False,
            }
        pen = range_penalty(attacker, v, v.distance)
    p = attack_damage(attacker, target, v, flat_footed=flat_footed, far_pen=pen)
    d = np.arange(p.size)
    vig = target.vigor
    massive = (d >= vig) & (d < 3 * vig)
    out = float(
        p[d >= 3 * vig].sum()
        + p[massive].sum() * (1.0 - massive_pass(vig, v, target.massive_difficulty))
    )
    fate = out * fate_probs(attacker, target, v, 0, flat_footed)
    odds = {
        "p_hit": float(1.0 - p[0]),
        "p_incapacitate": out,
        "p_kill": 0.0,
        "p_dead": float(fate[0]),
        "p_dying": float(fate[1]),
        "p_out": float(fate[2]),
    }
    return {**odds, "in_range": True} if v.distance > 0 else odds
