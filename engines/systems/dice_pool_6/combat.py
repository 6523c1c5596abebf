"""Whole fights in ``dice_pool_6`` (RULES.md C6, C10–C13, seed 002), Monte Carlo and exact.

The seed gives conflicts in a few lines; this module reads them so:

- **C10/C11** an attack is a contest: the attacker rolls its attack pool, the defender
  its dodge pool (C1 dice: 6+ succeed, C-g1; pairs of 10s count 4, C-g2); the attacker
  wins with equal or more successes. Variant ``tie_needs_success`` (C10, not settled by
  the seed): a 0–0 tie is still the attacker's win (literal, default) or a miss.
- **C11** damage = margin + the weapon's damage bonus; **C-g4** (variant
  ``min_damage``): a win with margin 0 and a +0 weapon deals 0 (default) or 1.
  The seed gives no weapon table: the bonuses +0..+4 in the data file are assumptions.
- **C12** against a ranged attack the defender's dodge pool gets −2 dice without cover,
  +1 with partial and +2 with full cover (a property of each combatant's position).
- **C13** a defender loses one die for each earlier attack against it in the round;
  an attacker may split its pool among all able enemies (one attack each, the dice
  dealt out as evenly as possible; the first targets get the odd dice).
- **C6** health = Stamina + 3: a combatant drops when its damage reaches its health.
  Willpower = Composure + Resolve is computed but the seed gives it no use in a fight.
- **C-g5** the seed has no death (variant ``death``). Default ``double_health``, from
  Vampire 5th edition, the game the seed derives from: the seed's one kind of damage is
  read as V5's superficial damage (the seed even counts "o peso de uma enorme humilhação
  pública" as damage); a full track impairs and knocks out, each further point upgrades
  a box to aggravated, and a mortal whose track is all aggravated dies — dead when the
  damage reaches 2 × health. ``never`` is the seed's literal silence (no one ever dies:
  the engine would report 0 deaths); ``at_health`` reads every hit as V5's aggravated
  damage of blades and bullets (a combatant that drops is dead).
- **C-g6** neither the seed nor V5 (for mortals) has bleeding or a stabilising rule: a
  fallen combatant that is not dead is **out** (never dying), and the ``first_aid``
  aftermath changes nothing (a gap: no rule to try).
- **C-g7** ``finish``: each standing winner (side 0 first, then by row) makes one attack a
  round (C10, C11) on the first fallen foe still alive, for at most ``finish_rounds``
  rounds (default 10); the helpless target's dodge pool (variant ``helpless_dodge``) is
  0 dice (``zero``, default: it cannot dodge) or its full pool. Under ``death = never``
  nothing kills, so the foe stays out. The winners' own fallen are left.
- Each combatant makes one attack per round. The seed gives no initiative; variant
  ``order`` (C11, not settled by the seed): a fresh random order every round (default),
  one random order per fight, or side 0 first.

Kernel row layout: the ``C_*`` constants (built by :func:`row`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import (
    DEAD,
    OUT,
    STANDING,
    DuelChain,
    attack_op,
    book_fates,
    check_variants,
    finish_chain,
    finish_duel,
    mix,
    run_fight,
    run_mc_end,
)
from engines.config import KERNEL, LEAF
from engines.errors import InputError
from engines.fight import (
    AFTERMATHS,
    DAMAGE_BINS,
    ROUND_CAP,
    FightStats,
    check_round_cap,
    check_start_damage,
)
from engines.rng import Seed, bounded
from engines.rolls import roll_pool
from engines.systems.dice_pool_6 import checks as _checks
from engines.variants import variant

SYSTEM = _checks.SYSTEM

COVER = ("none", "partial", "full")
COVER_DICE = (-2, 1, 2)  # C12
ORDERS = ("random_round", "random_fight", "side0_first")

C_ATT = 0      # attack pool (C1, C5)
C_DEF = 1      # dodge pool (C11)
C_DMG = 2      # weapon damage bonus (C11)
C_HEALTH = 3   # health (C6)
C_DEATH = 4    # damage that kills, -1: never
C_RANGED = 5   # 1: attacks at range (C12 applies to its targets)
C_COVER = 6    # dice this combatant's dodge gets against ranged attacks (C12)
C_SPLIT = 7    # 1: splits its pool among all able enemies (C13)
C_WP = 8       # willpower (C6; no use in fights)
C_START = 9    # damage already taken when the fight starts (campaign attrition)
N_COLS = 10

R_MIN_DAMAGE, R_TIE_NEEDS_SUCCESS, R_ORDER, R_TARGET_FIRST = 5, 6, 7, 8
R_AFTERMATH, R_HELPLESS_FULL, R_FINISH_ROUNDS = 9, 10, 11
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2
DEATHS = ("double_health", "never", "at_health")


@dataclass(frozen=True)
class Variants(_checks.Variants):
    """Combat variants of ``dice_pool_6``: the check variants (C-g1..C-g4) plus these."""

    system: ClassVar[str] = SYSTEM
    tie_needs_success: bool = variant(False, rule="C10", doc="a 0-0 tie is a miss (true) "
                                      "or, literally, the challenger's win (false)")
    order: str = variant("random_round", rule="C11", doc="who attacks first: a fresh random "
                         "order each round, one random order per fight, or side 0 first "
                         "(the seed gives no initiative)", choices=ORDERS)
    death: str = variant("double_health", rule="C-g5", doc="the seed has no death: dead when "
                         "the damage reaches twice the health (V5: a full track of "
                         "superficial damage upgrades to aggravated, all aggravated kills a "
                         "mortal), never, or at the health (every hit aggravated)",
                         choices=DEATHS)
    targeting: str = variant("random", rule="C13", doc="N-vs-M: each attack picks a random "
                             "able enemy, or the first able one (focus fire)",
                             choices=("random", "first"))
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="what happens to the "
                             "fallen when a conflict is won: leave them, first aid (C-g6: no "
                             "rule, changes nothing), or the winners finish them (C-g7)",
                             choices=AFTERMATHS)
    helpless_dodge: str = variant("zero", rule="C-g7", doc="dodge pool of a fallen, helpless "
                                  "target: zero (0 dice) or its full pool",
                                  choices=("zero", "full"))
    finish_rounds: int = variant(10, rule="C-g7", doc="rounds the winners spend finishing "
                                 "fallen foes (one attack each a round)",
                                 choices=range(1, 101))


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon: its damage bonus (C11; +0..+4, an assumption) and whether it shoots."""

    name: str
    damage: int = 0
    ranged: bool = False


UNARMED = Weapon("unarmed", 0)


@dataclass(frozen=True)
class Combatant:
    """A ``dice_pool_6`` combatant (plain values only)."""

    name: str
    attack_attribute: int
    attack_skill: int
    dodge_attribute: int
    dodge_skill: int
    stamina: int
    composure: int = 2
    resolve: int = 2
    specialty: bool = False
    weapon: Weapon = UNARMED
    cover: str = "none"
    split: bool = False

    def check(self) -> None:
        for trait in ("attack_attribute", "attack_skill", "dodge_attribute", "dodge_skill",
                      "stamina", "composure", "resolve"):
            value = getattr(self, trait)
            if not 0 <= value <= 10:
                raise InputError(f"{self.name}: {trait} must be 0..10, got {value}")
        if self.cover not in COVER:
            raise InputError(f"{self.name}: unknown cover {self.cover!r}; known: "
                             + ", ".join(COVER))
        if not 0 <= self.weapon.damage <= 10:
            raise InputError(f"{self.name}: weapon damage must be 0..10, got "
                             f"{self.weapon.damage}")

    @property
    def attack_pool(self) -> int:
        """C1 + C5: attribute + skill (+1 specialty)."""
        return self.attack_attribute + self.attack_skill + _checks.SPECIALTY_DICE * self.specialty

    @property
    def dodge_pool(self) -> int:
        return self.dodge_attribute + self.dodge_skill

    @property
    def health(self) -> int:
        """C6: Stamina + 3."""
        return self.stamina + _checks.HEALTH_BONUS

    @property
    def willpower(self) -> int:
        """C6: Composure + Resolve."""
        return self.composure + self.resolve


def row(c: Combatant, v: Variants = DEFAULT) -> np.ndarray:
    """The kernel row of one combatant (layout: ``C_*``)."""
    c.check()
    r = np.zeros(N_COLS, dtype=np.int64)
    r[C_ATT] = c.attack_pool
    r[C_DEF] = c.dodge_pool
    r[C_DMG] = c.weapon.damage
    r[C_HEALTH] = c.health
    r[C_DEATH] = {"double_health": 2 * c.health, "at_health": c.health, "never": -1}[v.death]
    r[C_RANGED] = int(c.weapon.ranged)
    r[C_COVER] = COVER_DICE[COVER.index(c.cover)]
    r[C_SPLIT] = int(c.split)
    r[C_WP] = c.willpower
    return r


def rows(combatants: list[Combatant], v: Variants = DEFAULT) -> np.ndarray:
    return np.stack([row(c, v) for c in combatants])


def _rule(v: Variants) -> np.ndarray:
    extra = [int(v.min_damage), int(v.tie_needs_success), ORDERS.index(v.order),
             int(v.targeting == "first"), AFTERMATHS.index(v.aftermath),
             int(v.helpless_dodge == "full"), v.finish_rounds]
    return np.concatenate([v.rule().as_array(), np.array(extra, dtype=np.int64)])


# ---------------------------------------------------------------------------------------
# Monte Carlo kernel


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
def _contest(s, rows, rule, c, t, dice, defended, dmg_taken, able, dead, n_able, side, acc,
             hits_off):
    """C10–C13: one attack of ``c`` with ``dice`` on ``t``; ``defended`` = earlier attacks
    on ``t`` this round."""
    dodge = rows[t, C_DEF] - defended  # C13
    if rows[c, C_RANGED] == 1:
        dodge += rows[t, C_COVER]  # C12
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
def _finish_blow(s2, rows, rule, c, t, dmg_taken, dead):
    """C-g7: one attack of ``c`` on the helpless ``t`` (C10, C11, C-g4, C-g5)."""
    dodge = 0
    if rule[R_HELPLESS_FULL] != 0:
        dodge = rows[t, C_DEF] + (rows[t, C_COVER] if rows[c, C_RANGED] == 1 else 0)
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
def _aftermath(s2, rows, side, rule, winner, dmg_taken, able, dead, fate):
    """Lethality outcomes (C-g5..C-g7): every combatant's fate after the aftermath."""
    n = rows.shape[0]
    for i in range(n):
        fate[i] = STANDING if able[i] == 1 else (DEAD if dead[i] == 1 else OUT)
    if winner < 0 or rule[R_AFTERMATH] != AFTER_FINISH:
        return  # leave, and first aid (C-g6): no one is dying
    loser = 1 - winner
    for _r in range(rule[R_FINISH_ROUNDS]):
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
            _finish_blow(s2, rows, rule, c, t, dmg_taken, dead)
            if dead[t] == 1:
                fate[t] = DEAD


@njit(**LEAF)
def _shuffle(s, order, n):
    for k in range(n - 1, 0, -1):
        m = bounded(s, k + 1)
        tmp = order[k]
        order[k] = order[m]
        order[m] = tmp


@njit(**LEAF)
def _fight(s, s2, rows, side, rule, cap, acc, off, dmg_taken, able, dead, defended, order,
           n_able, fate, cnt):
    n = rows.shape[0]
    for sd in range(2):
        n_able[sd] = 0
    for i in range(n):
        dmg_taken[i] = rows[i, C_START]
        able[i] = 1
        dead[i] = 0
        order[i] = i  # side 0 first: rows are side 0 then side 1
        n_able[side[i]] += 1
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
            k = n_able[enemy]
            pool = rows[c, C_ATT]
            split = rows[c, C_SPLIT] == 1 and k > 1  # C13: split the pool
            pick = -1
            if not split:
                j = 0
                if rule[R_TARGET_FIRST] == 0 and k > 1:
                    j = bounded(s, k)
                for u in range(n):
                    if side[u] == enemy and able[u] == 1:
                        if j == 0:
                            pick = u
                            break
                        j -= 1
            # one call site of _contest for both cases (one inlined copy to compile)
            j = 0
            for t in range(n):
                if split:
                    if side[t] != enemy or able[t] != 1:
                        continue
                    dice = pool // k + (1 if j < pool % k else 0)
                    j += 1
                elif t != pick:
                    continue
                else:
                    dice = pool
                _contest(s, rows, rule, c, t, dice, defended[t], dmg_taken, able, dead,
                         n_able, side, acc, hits_off)
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
    _aftermath(s2, rows, side, rule, winner, dmg_taken, able, dead, fate)
    book_fates(acc, off, side, fate, winner, cnt)


@njit(**LEAF)
def _chunk(n_trials, s, s2, rows, side, rule, cap, acc, off, dmg_taken, able, dead, defended,
           order, n_able, fate, cnt, end):
    """``n_trials`` fights of one work item into ``acc``; every scratch array comes from
    :func:`_kernel`. ``end`` (campaign attrition) counts combatant 0's end: able with its
    damage, or its fate; with no columns (a plain run) nothing is counted."""
    health = end.size - 4
    for _ in range(n_trials):
        _fight(s, s2, rows, side, rule, cap, acc, off, dmg_taken, able, dead, defended,
               order, n_able, fate, cnt)
        if health >= 0:
            if fate[0] == 0:
                end[dmg_taken[0]] += 1
            else:
                end[health + fate[0]] += 1


@njit(**KERNEL)
def _kernel(first, last, rows, side, rule, cap, off, trials, states, out, end):
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
        _chunk(trials[item], s, s2, rows, side, rule, cap, acc, off, dmg_taken, able, dead,
               defended, order, n_able, fate, cnt, end[item])
        put(out[item], acc)


def duel_mc_end(a: Combatant, b: Combatant, start_damage: int, trials: int,
                seed: Seed = None, variants: Variants | None = None,
                round_cap: int = ROUND_CAP) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` conflicts of ``a`` started with
    ``start_damage`` against a fresh ``b``; counts of ``a``'s end (able with ``d`` damage
    for ``d < a.health``, then dead, dying, out at ``a.health + 1..3``)."""
    v = _variants(variants)
    cap = check_round_cap(round_cap)
    start_damage = check_start_damage(start_damage, a.health)
    r = rows([a, b], v)
    r[0, C_START] = start_damage
    return run_mc_end(_kernel, r, np.array([0, 1]), _rule(v), trials, seed, cap,
                      a.health)


def _variants(variants) -> Variants:
    return check_variants(variants, Variants, DEFAULT, __name__)


def fight_mc(side0: list[Combatant], side1: list[Combatant], trials: int, seed: Seed = None,
             variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo N-vs-M conflicts to the end or the round cap (C6, C10–C13).

    Examples
    --------
    >>> from engines.systems.dice_pool_6.combat import Combatant, fight_mc
    >>> a = Combatant("a", 3, 2, 3, 2, stamina=2)
    >>> st = fight_mc([a, a], [a], trials=1000, seed=1)
    >>> int(st.outcome.sum())
    1000
    """
    v = _variants(variants)
    return run_fight(_kernel, SYSTEM, Combatant, lambda cs: rows(cs, v), _rule(v), side0, side1,
                     trials, seed, round_cap, dataclasses.asdict(v))


def duel_mc(a: Combatant, b: Combatant, trials: int, seed: Seed = None,
            variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo 1-vs-1 conflicts (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


# ---------------------------------------------------------------------------------------
# Exact


@lru_cache(maxsize=1024)
def _successes(pool: int, v: Variants) -> np.ndarray:
    """Exact success pmf of a pool (C1, C-g2); 0 dice or fewer: no success."""
    pool = max(pool, 0)
    codes = _checks.n_codes(max(pool, 1), v)
    probs, _ = _checks.exact([pool], v, codes)
    return probs[0, 1:].copy()


def _contest_damage(att_pool: int, dodge_pool: int, weapon: int,
                    v: Variants) -> tuple[np.ndarray, np.ndarray]:
    """C10, C11, C-g4: pmf of damage dealt (misses count 0) and of wins by damage."""
    a = _successes(att_pool, v)
    d = _successes(dodge_pool, v)
    hit = np.zeros(a.size + weapon + 1)
    for i, pa in enumerate(a):
        if pa == 0.0:
            continue
        for j in range(min(i, d.size - 1) + 1):
            if i == 0 and v.tie_needs_success:
                continue
            dmg = i - j + weapon
            if dmg == 0 and v.min_damage:
                dmg = 1
            hit[dmg] += pa * d[j]
    out = hit.copy()
    out[0] += 1.0 - hit.sum()
    return out, hit


def _dodge_against(attacker: Combatant, target: Combatant, defended: int = 0) -> int:
    """The target's dodge dice against this attacker (C12, C13)."""
    cover = COVER_DICE[COVER.index(target.cover)] if attacker.weapon.ranged else 0
    return target.dodge_pool - defended + cover


def attack_damage(attacker: Combatant, target: Combatant,
                  variants: Variants | None = None) -> np.ndarray:
    """Exact damage distribution of one attack, the first on the target this round
    (C10–C12, C-g4). ``p[0]`` holds the misses and the 0-damage wins; the win
    probability is :func:`hit_probability`."""
    v = _variants(variants)
    attacker.check()
    target.check()
    return _contest_damage(attacker.attack_pool, _dodge_against(attacker, target),
                           attacker.weapon.damage, v)[0]


def hit_probability(attacker: Combatant, target: Combatant,
                    variants: Variants | None = None) -> float:
    """P(the attacker wins the contest), C10 (and the ``tie_needs_success`` variant)."""
    v = _variants(variants)
    return float(_contest_damage(attacker.attack_pool, _dodge_against(attacker, target),
                                 attacker.weapon.damage, v)[1].sum())


def _death_after(target: Combatant, v: Variants) -> int | None:
    """C-g5: damage beyond the health that kills (None: never)."""
    return {"double_health": target.health, "at_health": 0, "never": None}[v.death]


def _fate_after(winner: Combatant, loser: Combatant, excess: int, v: Variants) -> np.ndarray:
    """P(dead), P(dying), P(out) after the aftermath (C-g5..C-g7) of a ``loser`` that fell
    alive with ``excess`` damage beyond its health, ``winner`` standing."""
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
