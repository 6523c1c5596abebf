"""``dice_pool_7`` exact duels: the absorbing Markov chain of a 1-vs-1 fight
(:func:`duel_exact`), the aftermath of a fallen loser (A-g9 … A-g12) and what one attack
does to an unhurt target (:func:`one_hit`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from engines.combat_pools import DuelChain, attack_op, finish_chain, finish_duel, mix
from engines.constants import ROUND_CAP
from engines.fight import FightStats, check_round_cap

from .attack import attack_damage, attack_dice, damage_pmf, hit_probability, success_pmf
from .rules import (
    ATTACK_ATTACK,
    ATTACK_DODGE,
    BASHING,
    C_ARMOUR,
    C_DEATH,
    C_DEF,
    C_DMG,
    C_DODGE,
    C_DTYPE,
    C_FAR,
    C_FIRST,
    C_FOCUS,
    C_MOVE,
    C_PLAN,
    C_THREAT,
    C_WP_DEF,
    C_WP_DICE,
    FOCUS_ATTACK,
    LETHAL,
    SYSTEM,
    TACTICS,
    WILLPOWER_POLICIES,
    WP_ATTACK_EARLY,
    WP_ATTACK_LATE,
    WP_DEFENSE_EARLY,
    WP_DEFENSE_LATE,
    WP_NONE,
    Combatant,
    Variants,
    as_variants,
    band_of,
    bands,
    row,
    turn_moves,
)


def _fate_after(winner: Combatant, loser: Combatant, remaining: int, v: Variants) -> np.ndarray:
    """P(dead), P(dying), P(out) after the aftermath (A-g9..A-g12) of a fallen ``loser``
    that is ``remaining`` lethal points from death (vitality left + CON left, A15),
    beaten by ``winner``."""
    rw, rl = row(winner, v), row(loser, v)
    con = loser.CON
    dying = remaining <= con  # lethal damage fills its vitality
    if v.aftermath == "first_aid" and dying:
        p_fail = float(success_pmf(v.first_aid_dice, v)[0]) ** v.first_aid_tries
        pa = 1.0 - p_fail
        out = np.array([0.0, 1.0 - pa, pa])
    elif v.aftermath == "finish" and not (rw[C_DTYPE] == BASHING and v.finish_bashing == "bashing"):
        dtype = LETHAL if rw[C_DTYPE] == BASHING else int(rw[C_DTYPE])
        pool = attack_dice(winner, v) - (loser.defense if v.helpless_defense == "full" else 0)
        dmg, _ = damage_pmf(pool, int(rw[C_DMG]), int(rl[C_ARMOUR + dtype]), v)
        clamp = 0 if v.overflow_to_con else con
        p = finish_chain(remaining, dmg, 2 * v.finish_rounds, clamp)
        out = np.array([p[0], p[1 : con + 1].sum(), p[con + 1 :].sum()])
    else:
        out = np.array([0.0, 1.0, 0.0]) if dying else np.array([0.0, 0.0, 1.0])
    if v.leave_horizon == "day":  # A-g9: a day's healing
        out = np.array([out[0], 0.0, out[1] + out[2]])
    return out


def p_first(a: Combatant, b: Combatant, v: Variants) -> float:
    """A16 / A-g6: P(``a`` acts before ``b``); ties at random."""
    ia, ib = a.initiative, b.initiative
    if not v.initiative_roll:
        return 1.0 if ia > ib else 0.0 if ia < ib else 0.5
    diff = np.add.outer(np.arange(1, 11) + ia, -(np.arange(1, 11) + ib))
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / 100)


class Duel:
    """Exact 1-vs-1 chain for one initiative order (``first`` acts first every round).

    A plane's key: willpower left (each side), the "+2 Defense until my next turn" flag
    (A4, each side), the "my last turn was a dodge" flag (A9, each side) and the
    distance in metres (AT1)."""

    def __init__(
        self, fighters: tuple[Combatant, Combatant], v: Variants, first: int, round_cap: int
    ) -> None:
        self.f = fighters
        self.v = v
        self.first = first
        self.r = [row(c, v) for c in fighters]
        #: attack dice before the target's defence, by range band (AT-g1)
        self.dice = [[attack_dice(c, v, band=k) for k in range(3)] for c in fighters]
        self.pol = [WILLPOWER_POLICIES.index(c.willpower) for c in fighters]
        self.tactic = [TACTICS.index(c.tactic) for c in fighters]
        self.plan = [int(r[C_PLAN]) for r in self.r]
        self.health = (fighters[0].vitality, fighters[1].vitality)
        wp0 = [
            c.willpower_points if p != WP_NONE else 0
            for c, p in zip(fighters, self.pol, strict=True)
        ]
        start = np.zeros(self.health)
        start[0, 0] = 1.0
        self.chain = DuelChain(
            SYSTEM, self.health, round_cap, {(wp0[0], wp0[1], 0, 0, 0, 0, v.distance): start}
        )
        self._ops: dict = {}

    def op(self, attacker: int, pool: int):
        key = (attacker, pool)
        if key not in self._ops:
            ra, rt = self.r[attacker], self.r[1 - attacker]
            dtype = int(ra[C_DTYPE])
            dmg, hit = damage_pmf(pool, int(ra[C_DMG]), int(rt[C_ARMOUR + dtype]), self.v)
            death = int(rt[C_DEATH])
            self._ops[key] = attack_op(
                dmg, hit, self.health[1 - attacker], dtype != BASHING, None if death < 0 else death
            )
        return self._ops[key]

    def _hurt_mask(self, m: int) -> np.ndarray:
        d = np.arange(self.health[m])
        mask = (2 * d >= self.health[m]).astype(float)
        return mask[:, None] if m == 0 else mask[None, :]

    def _moves(self, m: int, d: int) -> tuple[int, int]:
        """AT1: the move actions of ``m``'s turn at distance ``d`` and the distance
        after (:func:`.rules.turn_moves`). No rule of the seed makes a move depend on
        the dice (no wound penalty, a move is a whole Deslocamento), so every plane of a
        turn shares one distance: the key carries it and the chain never splits on it."""
        r, rt = self.r[m], self.r[1 - m]
        return turn_moves(
            self.plan[m], int(r[C_MOVE]), int(r[C_FIRST]), int(r[C_FAR]), int(rt[C_THREAT]), d
        )

    def turn(self, m: int, rnd: int) -> None:
        """The turn of combatant ``m`` (A6): turn start (A-g3, A4), moves (AT1), dodge,
        attacks."""
        chain = self.chain
        new: dict = {}
        pol = self.pol[m]
        for key, plane in chain.planes.items():
            key = list(key)
            key[2 + m] = 0  # A4: a previous +2 Defense ends
            if self.v.dodge_lasts == "next_turn":
                key[4 + m] = 0  # A-g3: a dodge lasts until the dodger's next turn
            used, key[6] = self._moves(m, key[6])
            slots = 2 - used if key[6] <= self.r[m][C_FAR] else 0  # AT3: a foe in reach
            parts = []
            if pol in (WP_ATTACK_LATE, WP_DEFENSE_LATE) and key[m] > 0:
                hurt = plane * self._hurt_mask(m)
                parts += [(hurt, True), (plane - hurt, False)]
            else:
                parts.append((plane, key[m] > 0 and pol != WP_NONE))
            for part, spend in parts:
                k2 = list(key)
                spend_att = spend and pol in (WP_ATTACK_EARLY, WP_ATTACK_LATE) and slots > 0
                if spend and pol in (WP_DEFENSE_EARLY, WP_DEFENSE_LATE):
                    k2[m] -= 1
                    k2[2 + m] = 1
                if slots == 2 and self.tactic[m] == ATTACK_DODGE:
                    k2[4 + m] = 1  # A9: the dodge rolled now, drawn at the foe's attacks
                if slots == 0:
                    chain.add(new, tuple(k2), part)
                else:
                    self._attacks(new, m, tuple(k2), part, spend_att, slots)
        chain.planes = new

    def _attacks(
        self, new: dict, m: int, key: tuple, plane: np.ndarray, spend_att: bool, slots: int
    ) -> None:
        chain = self.chain
        t = 1 - m
        defense_t = int(self.r[t][C_DEF]) + int(self.r[t][C_WP_DEF]) * key[2 + t]  # A4
        dice = self.dice[m][band_of(key[6], int(self.r[m][C_FIRST]))]
        # A9 dodge of the target, rolled in its own last turn: independent of everything
        # since, so it is drawn here ("lazily"); A-g3 decides whether it still counts.
        if key[4 + t]:
            dodge = success_pmf(int(self.r[t][C_DODGE]) * defense_t, self.v)  # A9
            cut = dice + 4  # removing more dice than this changes nothing
            ks = [(float(dodge[k]), k) for k in range(min(cut, dodge.size)) if dodge[k] > 0]
            if dodge.size > cut:
                ks.append((float(dodge[cut:].sum()), cut))
        else:
            ks = [(1.0, None)]
        tactic = self.tactic[m]
        if slots < 2:  # a turn with a move: its action left is one plain attack (AT1)
            n_att, focus = 1, 0
        else:
            n_att = 2 if tactic == ATTACK_ATTACK else 1
            focus = int(self.r[m][C_FOCUS]) if tactic == FOCUS_ATTACK else 0  # A3
        for pk, k in ks:
            cur_key, cur = key, plane * pk
            for a in range(n_att):
                extra = int(self.r[m][C_WP_DICE]) if (spend_att and a == 0) else 0  # A4
                pool = dice + (focus if a == 0 else 0) + extra - (k if k is not None else defense_t)
                nk = list(cur_key)
                if extra:
                    nk[m] -= 1
                nk = tuple(nk)
                if a == n_att - 1:
                    chain.attack(new, m, nk, cur_key, cur, self.op(m, pool))
                else:
                    tmp: dict = {}
                    chain.attack(tmp, m, nk, cur_key, cur, self.op(m, pool))
                    cur_key, cur = nk, tmp[nk]

    def _end_round(self) -> None:
        """A-g3 variant ``end_of_round``: every dodge ends with the round."""
        if self.v.dodge_lasts != "end_of_round":
            return
        planes: dict = {}
        for key, plane in self.chain.planes.items():
            self.chain.add(planes, (*key[:4], 0, 0, key[6]), plane)
        self.chain.planes = planes

    def run(self) -> FightStats:
        order = (self.first, 1 - self.first)
        chain = self.chain
        for rnd in range(1, chain.round_cap + 1):
            for m in order:
                self.turn(m, rnd)
            self._end_round()
            chain.end_round()
            if chain.total() < 1e-16:
                break
        chain.finish()
        return chain.aftermath(self._fate)

    def _fate(self, w: int, e: int) -> np.ndarray:
        """The loser put down alive by ``w`` with ``e`` CON lost (A15): its fates."""
        winner, loser = self.f[w], self.f[1 - w]
        if winner.weapon.damage_type == "bashing":  # A14: knocked out, no lethal damage
            remaining = loser.vitality + loser.CON
        else:
            remaining = loser.CON - e
        return _fate_after(winner, loser, remaining, self.v)


def duel_exact(
    a: Combatant, b: Combatant, variants: Variants | None = None, round_cap: int = ROUND_CAP
) -> FightStats:
    """Exact 1-vs-1 fight (A6–A16, AT1–AT3) as an absorbing Markov chain.

    State: damage taken by each side (one track each: in a duel each side takes only its
    opponent's damage type, so bashing and lethal never mix, A14), willpower left (only
    for combatants with a willpower policy, A4), each side's "+2 Defense this round"
    flag, each side's "dodged in its last turn" flag and the distance in metres (AT1; the
    variant ``distance`` at the start, then each turn's moves: a few values, one per move
    step). The initiative order is fixed per fight (A16), so the result mixes the two
    orders (P(ties) = 1/2; A-g6 adds the exact 1d10 difference). A dodge (A9) would need
    the dodger's successes in the state between its turn and the opponent's; since the
    roll is independent of everything that happens in between, it is drawn at the
    opponent's turn instead, which keeps the chain exact with no extra state. Every
    tactic, willpower policy and plan is supported; only N-vs-M fights need
    :func:`fight_mc`.
    Truncated explosion tails (< 1e-12 per roll) are dropped. The aftermath (variant
    ``aftermath``, A-g9..A-g12) starts from the loser's state when it falls (CON lost, or
    knocked out by bashing) and runs as an exact chain over the lethal points it has left.
    """
    v = as_variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    p = p_first(a, b, v)
    parts = [(w, Duel((a, b), v, first, cap).run()) for w, first in ((p, 0), (1 - p, 1)) if w > 0]
    stats = mix(parts)
    return finish_duel(stats, a, b, dataclasses.asdict(v))


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one plain attack does to an unhurt target (A7, A8, A10, A13, A14, A15, A-g5).

    ``p_hit``: at least one success (:func:`hit_probability`); ``p_incapacitate``: the
    damage (:func:`attack_damage`) reaches the target's vitality, so it drops (A14, A-g5);
    ``p_kill``: lethal or ballistic damage reaches vitality + CON, so the excess empties
    CON (A15, with the ``overflow_to_con`` variant; bashing damage never kills).
    ``p_dead`` / ``p_dying`` / ``p_out``: it drops and then ends dead / dying / out after
    the aftermath (variant ``aftermath``, A-g9..A-g12) with the attacker as the winner;
    they sum to ``p_incapacitate``.

    The attack is made at the starting distance (variant ``distance``, AT1): a shot in its
    range band (AT-g1: ``range_penalty`` dice a band beyond the short one, inside A2's
    cap); beyond its reach (a melee weapon past ``melee_reach``, AT-g2) or its long band
    no attack lands, every figure 0. With ``distance`` > 0 the result also has
    ``in_range`` (whether the attack can be made there). The aftermath is engaged.
    """
    v = as_variants(variants)
    band = 0
    if v.distance > 0:
        first, far = bands(attacker, v)
        if v.distance > far:
            return {
                **dict.fromkeys(
                    ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
                ),
                "in_range": False,
            }
        band = band_of(v.distance, first)
    p = attack_damage(attacker, target, v, band)
    d = np.arange(p.size)
    vit = target.vitality
    kills = attacker.weapon.damage_type != "bashing" and v.overflow_to_con
    fates = np.zeros(3)
    for k in range(vit, p.size):
        if p[k] == 0.0:
            continue
        if attacker.weapon.damage_type == "bashing":
            remaining = vit + target.CON
        else:
            remaining = target.CON - (k - vit if v.overflow_to_con else 0)
        fates += p[k] * (
            np.array([1.0, 0.0, 0.0])
            if remaining <= 0
            else _fate_after(attacker, target, remaining, v)
        )
    out = {
        "p_hit": hit_probability(attacker, target, v, band),
        "p_incapacitate": float(p[d >= vit].sum()),
        "p_kill": float(p[d >= vit + target.CON].sum()) if kills else 0.0,
        "p_dead": float(fates[0]),
        "p_dying": float(fates[1]),
        "p_out": float(fates[2]),
    }
    return {**out, "in_range": True} if v.distance > 0 else out
