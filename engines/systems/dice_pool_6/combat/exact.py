"""``dice_pool_6`` exact duels: the absorbing Markov chain of a 1-vs-1 conflict
(:func:`duel_exact`), the aftermath of a fallen loser (C-g5 … C-g7) and what one attack
does to an unhurt target (:func:`one_hit`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from engines.combat_pools import DuelChain, attack_op, finish_chain, finish_duel, mix
from engines.constants import ROUND_CAP
from engines.fight import FightStats, check_round_cap, check_start_damage

from .attack import attack_damage, contest_damage, dodge_against, hit_probability
from .rules import (
    SYSTEM,
    Combatant,
    Variants,
    as_variants,
    plan_code,
    taken_cover_dice,
    turn_step,
)


def _death_after(target: Combatant, v: Variants) -> int | None:
    """C-g5: damage beyond the health that kills (None: never)."""
    return {"double_health": target.health, "at_health": 0, "never": None}[v.death]


def _fate_after(winner: Combatant, loser: Combatant, excess: int, v: Variants) -> np.ndarray:
    """P(dead), P(dying), P(out) after the aftermath (C-g5..C-g7) of a ``loser`` that fell
    alive with ``excess`` damage beyond its health, ``winner`` standing (one finisher: one
    attack on the loser a round, so C13's lost dice never apply)."""
    death = _death_after(loser, v)
    if v.aftermath != "finish" or death is None:
        return np.array([0.0, 0.0, 1.0])  # C-g6: no dying, first aid has nothing to do
    dodge = dodge_against(winner, loser) if v.helpless_dodge == "full" else 0
    dmg, _ = contest_damage(winner.attack_pool, dodge, winner.weapon.damage, v)
    p = finish_chain(death - excess, dmg, v.finish_rounds)
    return np.array([p[0], 0.0, p[1:].sum()])


def duel_exact(
    a: Combatant,
    b: Combatant,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
    start_damage: int = 0,
    chains: list | None = None,
) -> FightStats:
    """Exact 1-vs-1 conflict (C6, C10–C12, CT1) as an absorbing Markov chain.

    ``start_damage``: the damage ``a`` has already taken (campaign attrition); the solved
    :class:`DuelChain` objects are appended to ``chains`` when a list is given (their
    ``won_at`` and leftover planes give ``a``'s damage at the end).

    State: the damage each side has taken (one attack each per round, so C13's penalty
    never applies), and in each plane's key the distance in metres (CT1: the variant
    ``distance`` at the start, then each turn's moves, :func:`.rules.turn_step`) and
    whether each side has taken cover (plan ``cover``, CT-g2). No rule of the seed makes a
    move depend on the dice, so the key changes only with the turns taken: the chain splits
    on it only where the attack order does. The attack order (variant ``order``) is a
    fair coin each round, one coin per fight, or fixed. The aftermath (C-g5..C-g7) starts
    from the loser's damage beyond its health when it falls.
    """
    v = as_variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    fighters = (a, b)
    health = (a.health, b.health)
    start_damage = check_start_damage(start_damage, a.health)
    chains = [] if chains is None else chains
    plans = [plan_code(c.plan_in_force, c.weapon.ranged) for c in fighters]
    #: the dice each side's dodge gets against a ranged attack: in its own cover, and
    #: once it has taken cover (C12, CT-g2)
    cover = [(c.cover_bonus, taken_cover_dice(c, v)) for c in fighters]
    ops: dict = {}

    def op(m: int, covered_t: int):
        """The attack of side ``m`` on the other, whose cover is its own or taken."""
        if (m, covered_t) not in ops:
            att, tgt = fighters[m], fighters[1 - m]
            dodge = dodge_against(att, tgt)
            if att.weapon.ranged:
                dodge += cover[1 - m][covered_t] - cover[1 - m][0]
            dmg, hit = contest_damage(att.attack_pool, dodge, att.weapon.damage, v)
            ops[m, covered_t] = attack_op(dmg, hit, health[1 - m], True, _death_after(tgt, v))
        return ops[m, covered_t]

    def turn(chain: DuelChain, cur: dict, m: int) -> dict:
        """Side ``m``'s turn on every plane: its moves or cover (the key), then its
        attack."""
        nxt: dict = {}
        for key, plane in cur.items():
            d, covered = key[0], list(key[1:])
            attacks, covered[m], d = turn_step(
                plans[m],
                fighters[m].weapon.ranged,
                bool(covered[m]),
                d,
                not fighters[1 - m].weapon.ranged,
                v,
            )
            key_new = (d, int(covered[0]), int(covered[1]))
            if attacks:
                chain.attack(nxt, m, key_new, key, plane, op(m, key_new[2 - m]))
            else:
                chain.add(nxt, key_new, plane)
        return nxt

    def run(orders: list[tuple[float, tuple[int, int]]]) -> FightStats:
        start = np.zeros(health)
        start[start_damage, 0] = 1.0
        chain = DuelChain(SYSTEM, health, cap, {(v.distance, 0, 0): start})
        chains.append(chain)
        for _ in range(cap):
            new: dict = {}
            for w, order in orders:
                cur = {key: plane * w for key, plane in chain.planes.items()}
                for m in order:
                    cur = turn(chain, cur, m)
                for key, plane in cur.items():
                    chain.add(new, key, plane)
            chain.planes = new
            chain.end_round()
            if chain.total() < 1e-16:
                break
        chain.finish()
        return chain.aftermath(lambda w, e: _fate_after(fighters[w], fighters[1 - w], e, v))

    if v.order == "random_round":
        stats = run([(0.5, (0, 1)), (0.5, (1, 0))])
    elif v.order == "random_fight":
        stats = mix([(0.5, run([(1.0, (0, 1))])), (0.5, run([(1.0, (1, 0))]))])
    else:
        stats = run([(1.0, (0, 1))])
    return finish_duel(stats, a, b, dataclasses.asdict(v))


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one attack (the first on the target this round) does to an unhurt target.

    ``p_hit``: the attacker wins the contest (C10); ``p_incapacitate``: the damage (C11)
    reaches the target's health (C6); ``p_kill``: it reaches the death threshold of the
    ``death`` variant (C-g5: twice the health by default; 0 under ``never``).
    ``p_dead`` / ``p_dying`` / ``p_out``: it drops and then ends dead / dying / out after
    the aftermath (C-g6, C-g7) with the attacker as the winner; they sum to
    ``p_incapacitate``.

    At a starting distance (variant ``distance`` > 0) the attack is made from there: a
    shot is the same at any distance (the seed gives no range bands; CT1's cover is the
    target's own), a melee attack reaches only ``melee_reach`` (CT-g1). Out of reach
    every figure is 0; with ``distance`` > 0 the result also has ``in_range``.
    """
    v = as_variants(variants)
    if v.distance > 0 and not attacker.weapon.ranged and v.distance > v.melee_reach:
        return {
            **dict.fromkeys(
                ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
            ),
            "in_range": False,
        }
    p = attack_damage(attacker, target, v)
    d = np.arange(p.size)
    health = target.health
    death = _death_after(target, v)
    fates = np.zeros(3)
    for k in range(health, p.size):
        if p[k] == 0.0:
            continue
        if death is not None and k - health >= death:
            fates[0] += p[k]
        else:
            fates += p[k] * _fate_after(attacker, target, 0 if death is None else k - health, v)
    odds = {
        "p_hit": hit_probability(attacker, target, v),
        "p_incapacitate": float(p[d >= health].sum()),
        "p_kill": float(p[d >= health + death].sum()) if death is not None else 0.0,
        "p_dead": float(fates[0]),
        "p_dying": float(fates[1]),
        "p_out": float(fates[2]),
    }
    return {**odds, "in_range": True} if v.distance > 0 else odds
