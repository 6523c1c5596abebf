"""``dice_pool_6`` exact duels: the absorbing Markov chain of a 1-vs-1 conflict
(:func:`duel_exact`), the aftermath of a fallen loser (C-g5 … C-g7) and what one attack
does to an unhurt target (:func:`one_hit`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from engines.combat_pools import DuelChain, attack_op, finish_chain, finish_duel, mix
from engines.fight import ROUND_CAP, FightStats, check_round_cap, check_start_damage

from .attack import _contest_damage, _dodge_against, attack_damage, hit_probability
from .rules import SYSTEM, Combatant, Variants, _variants


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
    dodge = _dodge_against(winner, loser) if v.helpless_dodge == "full" else 0
    dmg, _ = _contest_damage(winner.attack_pool, dodge, winner.weapon.damage, v)
    p = finish_chain(death - excess, dmg, v.finish_rounds)
    return np.array([p[0], 0.0, p[1:].sum()])


def duel_exact(a: Combatant, b: Combatant, variants: Variants | None = None,
               round_cap: int = ROUND_CAP, start_damage: int = 0,
               chains: list | None = None) -> FightStats:
    """Exact 1-vs-1 conflict (C6, C10–C12) as an absorbing Markov chain.

    ``start_damage``: the damage ``a`` has already taken (campaign attrition); the solved
    :class:`DuelChain` objects are appended to ``chains`` when a list is given (their
    ``won_at`` and leftover planes give ``a``'s damage at the end).

    State: the damage each side has taken (nothing else carries over between rounds in a
    duel: one attack each per round, so C13's penalty never applies). The attack order
    (variant ``order``) is a fair coin each round, one coin per fight, or fixed. The
    aftermath (C-g5..C-g7) starts from the loser's damage beyond its health when it falls.
    """
    v = _variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    fighters = (a, b)
    health = (a.health, b.health)
    start_damage = check_start_damage(start_damage, a.health)
    chains = [] if chains is None else chains
    ops = []
    for m in (0, 1):
        att, tgt = fighters[m], fighters[1 - m]
        dmg, hit = _contest_damage(att.attack_pool, _dodge_against(att, tgt),
                                   att.weapon.damage, v)
        death = _death_after(tgt, v)
        ops.append(attack_op(dmg, hit, health[1 - m], True, death))

    def run(orders: list[tuple[float, tuple[int, int]]]) -> FightStats:
        start = np.zeros(health)
        start[start_damage, 0] = 1.0
        chain = DuelChain(SYSTEM, health, cap, {0: start})
        chains.append(chain)
        for _ in range(cap):
            new: dict = {}
            for w, order in orders:
                cur = {0: chain.planes[0] * w}
                for m in order:
                    nxt: dict = {}
                    chain.attack(nxt, m, 0, 0, cur[0], ops[m])
                    cur = nxt
                chain.add(new, 0, cur[0])
            chain.planes = new
            chain.end_round()
            if chain.total() < 1e-16:
                break
        chain.finish()
        return chain.aftermath(
            lambda w, e: _fate_after(fighters[w], fighters[1 - w], e, v))

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
    """
    v = _variants(variants)
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
            fates += p[k] * _fate_after(attacker, target, 0 if death is None else k - health,
                                        v)
    return {"p_hit": hit_probability(attacker, target, v),
            "p_incapacitate": float(p[d >= health].sum()),
            "p_kill": float(p[d >= health + death].sum()) if death is not None else 0.0,
            "p_dead": float(fates[0]), "p_dying": float(fates[1]), "p_out": float(fates[2])}
