"""Campaign mechanics of ``dice_pool_6`` (RULES.md section C, seed 002).

- ``budgets`` (**C6**, C1, C10, C11): Health (Stamina + 3) and Willpower (Composure +
  Resolve), neither above its starting value (C6). Each session has ``scenes`` scenes;
  in each, an ``attack`` pool challenges the character's ``dodge`` pool (C10: the
  challenger wins with equal or more successes) and a win deals margin + ``weapon``
  Health damage (C11; C-g4 for margin 0). Before the dodge the character spends 1
  Willpower, while it holds more than ``reserve``, to reroll up to ``willpower_reroll``
  failed dodge dice (C-g20). Health 0 knocks the character out for the rest of the
  session (C-g5: a full track knocks out). After each session a rest heals
  ``health_rest`` Health (C-g21) and restores Willpower per ``willpower_rest`` (C-g22).
  State: the joint (Health, Willpower); ``values`` is Health (threshold: Health falling
  to ≤ X); ``notes["willpower"]`` is each state's Willpower. Tallies: ``knockouts``
  (sessions in which Health reached 0), ``spent`` (Willpower spent), cumulative;
  ``willpower`` (mean Willpower after each session, not cumulative).
- ``hunger`` (**C9**): special checks roll one die, no rerolls (C9; success on
  ``threshold``+, C-g1). Each night (session) the character makes ``rouses`` such
  checks (C-g23); each failure raises Hunger by 1, up to ``hunger_cap`` (C-g23). Then,
  if Hunger is at least ``feed_at``, feeding lowers it by ``slake``, not below
  ``feed_floor`` (C-g24). State: Hunger 0..cap; threshold: Hunger rising to ≥ X.
  Tally ``failed`` (failed special checks, cumulative).
- ``attrition`` (**C6, C10–C12**, "Lethality outcomes"): a fighter through ``fights``
  consecutive conflicts against fresh equal opponents (:mod:`engines.campaign_attrition`),
  exact: the duel chain of :mod:`engines.systems.dice_pool_6.combat` started with the fighter's
  damage (``start_damage``), under the check variants C-g1, C-g2, C-g4 of this module.
  Between fights the rest heals ``health_rest`` Health (C-g21, the same rest as
  ``budgets``); Willpower plays no part in a fight (C6).

Gaps (variants of :class:`Variants`): C-g1, C-g2, C-g4 as in
:mod:`engines.systems.dice_pool_6.checks`; C-g20 ``willpower_reroll``; C-g21
``health_rest``; C-g22 ``willpower_rest``; C-g23 ``hunger_cap``; C-g24 ``feed_floor``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import ClassVar

import numpy as np
from numba import njit

from engines.campaign import (
    CampaignStats,
    Mechanic,
    Param,
    campaign_variants,
    check_int,
    check_sessions,
    evolve,
    first_passage,
)
from engines.campaign_attrition import attrition_mechanic, check_both
from engines.campaign_mc import expected_tallies, hit_mask, run
from engines.config import INLINE, KERNEL
from engines.errors import InputError
from engines.rng import Seed, d10
from engines.systems.dice_pool_6 import checks as dp6
from engines.variants import variant

SYSTEM = "dice_pool_6"
MAX_POOL = 15
MAX_TRACK = 15
WP_REST = {"higher": 0, "full": 1, "none": 2}


@dataclass(frozen=True)
class Variants:
    """Rule variants of the ``dice_pool_6`` campaign mechanics."""

    system: ClassVar[str] = SYSTEM
    threshold: int = variant(
        6, rule="C-g1", doc="face a die must reach to succeed", choices=range(2, 11)
    )
    criticals: bool = variant(
        True, rule="C-g2", doc="each pair of 10s counts 4 successes (not on special checks, C9)"
    )
    min_damage: bool = variant(
        False, rule="C-g4", doc="a conflict won with margin 0 and a +0 weapon deals 1 damage"
    )
    willpower_reroll: int = variant(
        3,
        rule="C-g20",
        doc="failed dice one Willpower point "
        "rerolls (Vampire 5th ed.: up to 3; 0 = Willpower is "
        "never spent)",
        choices=(0, 1, 2, 3),
    )
    health_rest: int = variant(
        1,
        rule="C-g21",
        doc="Health healed by the rest after a session",
        choices=range(0, MAX_TRACK + 1),
    )
    willpower_rest: str = variant(
        "higher",
        rule="C-g22",
        doc="Willpower restored by the "
        "rest: the higher of Composure and Resolve (Vampire 5th "
        "ed.), the full track, or none",
        choices=tuple(WP_REST),
    )
    hunger_cap: int = variant(
        5, rule="C-g23", doc="the highest Hunger (Vampire 5th ed.: 5)", choices=range(1, 11)
    )
    feed_floor: int = variant(
        1,
        rule="C-g24",
        doc="feeding never lowers Hunger below this (Vampire 5th ed.: 1 without killing)",
        choices=(0, 1),
    )

    def checks(self) -> dp6.Variants:
        return dp6.Variants(
            threshold=self.threshold, criticals=self.criticals, min_damage=self.min_damage
        )


DEFAULT = Variants()


_int = check_int


def _threshold(threshold, hi):
    return None if threshold is None else _int("threshold", threshold, 0, hi)


#: Mechanic name -> :class:`engines.campaign.Mechanic` (:data:`MECHANICS`, built below
#: once the functions are defined); ranges are those under the default variants.
_DESCRIPTIONS = {
    "budgets": {
        "rules": "C6, C10, C11, C-g20, C-g21, C-g22",
        "state": "Health (joint with Willpower)",
        "direction": "down",
        "help": "Health and Willpower across scenes, Willpower spent on dodge rerolls, "
        "recovered by rest",
        "params": (
            Param(
                "stamina", int, 2, "C6", "Stamina; Health = Stamina + 3", range=(1, MAX_TRACK - 3)
            ),
            Param(
                "composure",
                int,
                2,
                "C6",
                "Composure; Willpower = Composure + Resolve",
                range=(0, MAX_TRACK),
            ),
            Param(
                "resolve",
                int,
                2,
                "C6",
                "Resolve; Willpower = Composure + Resolve",
                range=(0, MAX_TRACK),
            ),
            Param("scenes", int, 3, "C6", "scenes (one attack each) per session", range=(0, 100)),
            Param(
                "attack", int, 4, "C10", "the attacker's pool in each scene", range=(0, MAX_POOL)
            ),
            Param("dodge", int, 4, "C11", "the character's dodge pool", range=(0, MAX_POOL)),
            Param("weapon", int, 0, "C11", "the attacker's weapon damage", range=(0, 20)),
            Param("reserve", int, 0, "C-g20", "Willpower kept unspent", range=(0, MAX_TRACK)),
        ),
        "extra": {
            "knockouts": "expected scenes so far that left Health at 0",
            "spent": "expected Willpower spent so far",
            "willpower": "mean Willpower after the session",
        },
    },
    "hunger": {
        "rules": "C9, C-g23, C-g24",
        "state": "Hunger",
        "direction": "up",
        "help": "one-die special checks each night raise Hunger; feeding lowers it",
        "params": (
            Param("hunger", int, 1, "C9", "starting Hunger", range=(0, 5)),
            Param("rouses", int, 1, "C-g23", "special checks per night", range=(0, 100)),
            Param(
                "feed_at",
                int,
                3,
                "C-g24",
                "Hunger at which the character feeds after the night's checks "
                "(above the cap: never)",
                range=(0, 6),
            ),
            Param("slake", int, 1, "C-g24", "Hunger one feeding removes", range=(0, 5)),
        ),
        "extra": {"failed": "expected failed special checks so far"},
    },
}


# ---------------------------------------------------------------- budgets


def pool_successes(pool: int, reroll: int, variants: Variants | None = None) -> np.ndarray:
    """Distribution of successes of ``pool`` dice (C1, C-g1, C-g2) when up to ``reroll``
    failed dice are rolled again (C-g20); index = successes."""
    v = campaign_variants(Variants, variants)
    pool = _int("pool", pool, 0, MAX_POOL)
    p_ten, p_hit = 0.1, (10 - v.threshold) / 10
    p_miss = 1.0 - p_ten - p_hit

    def split(n):
        for t in range(n + 1):
            for h in range(n - t + 1):
                f = n - t - h
                yield t, h, f, (comb(n, t) * comb(n - t, h) * p_ten**t * p_hit**h * p_miss**f)

    out = np.zeros(3 * pool + 2)
    for t, h, f, p in split(pool):
        for t2, h2, _, q in split(min(reroll, f)):
            tens = t + t2
            succ = h + h2 + tens + (2 * (tens // 2) if v.criticals else 0)
            out[succ] += p * q
    return out


def damage_dist(
    attack: int, dodge: int, weapon: int, reroll: int, variants: Variants | None = None
) -> np.ndarray:
    """Damage of one attack (C10: ties go to the challenger; C11: margin + weapon; C-g4)."""
    v = campaign_variants(Variants, variants)
    a = pool_successes(attack, 0, v)
    d = pool_successes(dodge, reroll, v)
    out = np.zeros(a.size + weapon + 1)
    for i, pa in enumerate(a):
        for j, pd in enumerate(d):
            if pa * pd == 0.0:
                continue
            if i >= j:
                dmg = i - j + weapon
                if dmg == 0 and v.min_damage:
                    dmg = 1
                out[dmg] += pa * pd
            else:
                out[0] += pa * pd
    return out


def _budget_params(p):
    names = ("stamina", "composure", "resolve", "scenes", "attack", "dodge", "weapon", "reserve")
    his = (MAX_TRACK - 3, MAX_TRACK, MAX_TRACK, 100, MAX_POOL, MAX_POOL, 20, MAX_TRACK)
    out = {
        n: _int(n, p[n], 0 if n != "stamina" else 1, hi) for n, hi in zip(names, his, strict=True)
    }
    if out["composure"] + out["resolve"] > MAX_TRACK:
        raise InputError(f"composure + resolve: Willpower must be at most {MAX_TRACK}")
    return out


def _wp_rest(p, v: Variants) -> int:
    w_max = p["composure"] + p["resolve"]
    return {"higher": max(p["composure"], p["resolve"]), "full": w_max, "none": 0}[v.willpower_rest]


def budgets_matrix(v: Variants, **params):
    """One session over joint states ``h * (W + 1) + w``: ``(P, knockouts, spent)``
    (C6, C10, C11, C-g20..C-g22)."""
    p = _budget_params(params)
    H, W = p["stamina"] + 3, p["composure"] + p["resolve"]
    n = (H + 1) * (W + 1)
    dmg = {
        r: damage_dist(p["attack"], p["dodge"], p["weapon"], r, v) for r in {0, v.willpower_reroll}
    }
    M = np.zeros((n, n))
    ko = np.zeros(n)
    spend = np.zeros(n)
    for h in range(H + 1):
        for w in range(W + 1):
            i = h * (W + 1) + w
            if h == 0:
                M[i, i] = 1.0  # out for the rest of the session (C-g5)
                continue
            use = v.willpower_reroll > 0 and w > p["reserve"]
            w2 = w - 1 if use else w
            spend[i] = 1.0 if use else 0.0
            for d, q in enumerate(dmg[v.willpower_reroll if use else 0]):
                h2 = max(0, h - d)
                M[i, h2 * (W + 1) + w2] += q
                if h2 == 0:
                    ko[i] += q
    R = np.zeros((n, n))
    wr = _wp_rest(p, v)
    for h in range(H + 1):
        for w in range(W + 1):
            R[h * (W + 1) + w, min(H, h + v.health_rest) * (W + 1) + min(W, w + wr)] = 1.0
    X = np.eye(n)
    kos = np.zeros(n)
    spent = np.zeros(n)
    for _ in range(p["scenes"]):
        kos += X @ ko
        spent += X @ spend
        X = X @ M
    return X @ R, kos, spent, H, W


def _defaults(mechanic, params):
    known = MECHANICS[mechanic].defaults()
    for key in params:
        if key not in known:
            raise InputError(
                f"{mechanic}: unknown parameter {key!r}; known: {', '.join(sorted(known))}"
            )
    return {**known, **params}


def budgets_exact(
    sessions: int = 10, threshold: int | None = None, variants: Variants | None = None, **params
) -> CampaignStats:
    """Exact joint (Health, Willpower) chain, starting full (C6); ``passage``: the session
    Health first falls to ≤ ``threshold``."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    params = _defaults("budgets", params)
    P, kos, spent, H, W = budgets_matrix(v, **params)
    health = np.repeat(np.arange(H + 1), W + 1)
    will = np.tile(np.arange(W + 1), H + 1)
    threshold = _threshold(threshold, H)
    x0 = np.zeros(health.size)
    x0[H * (W + 1) + W] = 1.0
    dist = evolve(P, x0, sessions)
    passage = (
        None
        if threshold is None
        else first_passage(P, x0, hit_mask(health, threshold, "down").astype(bool), sessions)
    )
    extra = {
        "knockouts": expected_tallies(dist, kos),
        "spent": expected_tallies(dist, spent),
        "willpower": dist @ will,
    }
    return CampaignStats(
        system=SYSTEM,
        mechanic="budgets",
        values=health,
        dist=dist,
        passage=passage,
        threshold=threshold,
        extra=extra,
        notes={"willpower": will, **params},
    )


@njit(**INLINE)
def _roll_pool(s, n, reroll, thr, crit):
    """C1 / C-g2 successes of ``n`` dice, up to ``reroll`` failed dice rolled again."""
    tens = 0
    hits = 0
    fails = 0
    for _ in range(n):
        f = d10(s)
        if f == 10:
            tens += 1
        elif f >= thr:
            hits += 1
        else:
            fails += 1
    for _ in range(min(reroll, fails)):
        f = d10(s)
        if f == 10:
            tens += 1
        elif f >= thr:
            hits += 1
    return hits + tens + (2 * (tens // 2) if crit else 0)


@njit(**KERNEL)
def _budgets_kernel(
    first,
    last,
    H,
    W,
    scenes,
    attack,
    dodge,
    weapon,
    reserve,
    reroll,
    thr,
    crit,
    mindmg,
    heal,
    wrest,
    sessions,
    per_chunk,
    states,
    hit,
    dist,
    passage,
    ext,
    ext_sq,
):
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(per_chunk[c]):
            h = H
            w = W
            dist[c, 0, h * (W + 1) + w] += 1
            reached = 0 if hit[h * (W + 1) + w] else -1
            kos = 0
            spent = 0
            for k in range(1, sessions + 1):
                for _sc in range(scenes):
                    if h == 0:
                        break
                    r = 0
                    if reroll > 0 and w > reserve:
                        w -= 1
                        spent += 1
                        r = reroll
                    a = _roll_pool(s, attack, 0, thr, crit)
                    d = _roll_pool(s, dodge, r, thr, crit)
                    if a >= d:
                        dmg = a - d + weapon
                        if dmg == 0 and mindmg:
                            dmg = 1
                        h = max(0, h - dmg)
                        if h == 0:
                            kos += 1
                h = min(H, h + heal)
                w = min(W, w + wrest)
                i = h * (W + 1) + w
                dist[c, k, i] += 1
                if reached < 0 and hit[i]:
                    reached = k
                ext[c, 0, k] += kos
                ext_sq[c, 0, k] += kos * kos
                ext[c, 1, k] += spent
                ext_sq[c, 1, k] += spent * spent
            passage[c, reached if reached >= 0 else sessions + 1] += 1


def budgets_monte_carlo(
    sessions: int = 10,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Monte Carlo of :func:`budgets_exact`, die by die (C6, C10, C11, C-g20..C-g22)."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    params = _defaults("budgets", params)
    p = _budget_params(params)
    H, W = p["stamina"] + 3, p["composure"] + p["resolve"]
    health = np.repeat(np.arange(H + 1), W + 1)
    will = np.tile(np.arange(W + 1), H + 1)
    threshold = _threshold(threshold, H)
    ints = [
        np.int64(x)
        for x in (
            H,
            W,
            p["scenes"],
            p["attack"],
            p["dodge"],
            p["weapon"],
            p["reserve"],
            v.willpower_reroll,
            v.threshold,
        )
    ]
    args = (*ints, v.criticals, v.min_damage, np.int64(v.health_rest), np.int64(_wp_rest(p, v)))
    st = run(
        _budgets_kernel,
        args,
        system=SYSTEM,
        mechanic="budgets",
        values=health,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(health, threshold, "down"),
        tallies=("knockouts", "spent"),
        notes={"willpower": will, **params},
    )
    pw = st.pmf()
    mean = pw @ will
    st.extra["willpower"] = mean
    st.extra["willpower_se"] = np.sqrt(np.maximum(pw @ will**2 - mean**2, 0) / st.n)
    return st


# ---------------------------------------------------------------- hunger


def _hunger_params(p, v):
    cap = v.hunger_cap
    return (
        _int("hunger", p["hunger"], 0, cap),
        _int("rouses", p["rouses"], 0, 100),
        _int("feed_at", p["feed_at"], 0, cap + 1),
        _int("slake", p["slake"], 0, cap),
    )


def hunger_matrix(v: Variants, **params):
    """One night over Hunger 0..cap: ``(P, failed)`` (C9, C-g23, C-g24)."""
    _, rouses, feed_at, slake = _hunger_params(params, v)
    cap = v.hunger_cap
    q = dp6.special_check(v.checks())  # C9: one die, success on threshold+
    T = np.zeros((cap + 1, cap + 1))
    for x in range(cap + 1):
        T[x, x] += q
        T[x, min(cap, x + 1)] += 1 - q
    F = np.zeros((cap + 1, cap + 1))
    for x in range(cap + 1):
        F[x, max(min(x, v.feed_floor), x - slake) if x >= feed_at else x] = 1.0
    X = np.eye(cap + 1)
    for _ in range(rouses):
        X = X @ T
    return X @ F, np.full(cap + 1, rouses * (1 - q))


def hunger_exact(
    sessions: int = 10, threshold: int | None = None, variants: Variants | None = None, **params
) -> CampaignStats:
    """Exact Hunger chain (C9, C-g23, C-g24); ``passage``: Hunger first ≥ ``threshold``."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    params = _defaults("hunger", params)
    start = _hunger_params(params, v)[0]
    P, failed = hunger_matrix(v, **params)
    values = np.arange(v.hunger_cap + 1)
    threshold = _threshold(threshold, v.hunger_cap)
    x0 = np.zeros(values.size)
    x0[start] = 1.0
    dist = evolve(P, x0, sessions)
    passage = (
        None
        if threshold is None
        else first_passage(P, x0, hit_mask(values, threshold, "up").astype(bool), sessions)
    )
    return CampaignStats(
        system=SYSTEM,
        mechanic="hunger",
        values=values,
        dist=dist,
        passage=passage,
        threshold=threshold,
        extra={"failed": expected_tallies(dist, failed)},
        notes=params,
    )


@njit(**KERNEL)
def _hunger_kernel(
    first,
    last,
    start,
    rouses,
    feed_at,
    slake,
    cap,
    floor,
    thr,
    sessions,
    per_chunk,
    states,
    hit,
    dist,
    passage,
    ext,
    ext_sq,
):
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(per_chunk[c]):
            x = start
            dist[c, 0, x] += 1
            reached = 0 if hit[x] else -1
            failed = 0
            for k in range(1, sessions + 1):
                for _r in range(rouses):
                    if d10(s) < thr:  # C9: one die, no rerolls, no criticals
                        failed += 1
                        x = min(cap, x + 1)
                if x >= feed_at:
                    x = max(min(x, floor), x - slake)
                dist[c, k, x] += 1
                if reached < 0 and hit[x]:
                    reached = k
                ext[c, 0, k] += failed
                ext_sq[c, 0, k] += failed * failed
            passage[c, reached if reached >= 0 else sessions + 1] += 1


def hunger_monte_carlo(
    sessions: int = 10,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Monte Carlo of :func:`hunger_exact` (C9, C-g23, C-g24)."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    params = _defaults("hunger", params)
    start, rouses, feed_at, slake = _hunger_params(params, v)
    values = np.arange(v.hunger_cap + 1)
    threshold = _threshold(threshold, v.hunger_cap)
    args = tuple(
        np.int64(x)
        for x in (start, rouses, feed_at, slake, v.hunger_cap, v.feed_floor, v.threshold)
    )
    return run(
        _hunger_kernel,
        args,
        system=SYSTEM,
        mechanic="hunger",
        values=values,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(values, threshold, "up"),
        tallies=("failed",),
        notes=params,
    )


# ---------------------------------------------------------------- dispatch

_EXACT = {"budgets": budgets_exact, "hunger": hunger_exact}
_MC = {"budgets": budgets_monte_carlo, "hunger": hunger_monte_carlo}
MECHANICS = {
    name: Mechanic(
        name=name,
        system=SYSTEM,
        exact=_EXACT[name],
        monte_carlo=_MC[name],
        variants=Variants,
        **desc,
    )
    for name, desc in _DESCRIPTIONS.items()
}


# ---------------------------------------------------------------- attrition


def combat_variants(v: Variants):
    """The combat variants of a campaign's check variants (C-g1, C-g2, C-g4)."""
    from engines.systems.dice_pool_6 import combat as cb

    return cb.Variants(threshold=v.threshold, criticals=v.criticals, min_damage=v.min_damage)


def fight_from(fighter, opponent, damage: int, combat=None) -> tuple[np.ndarray, np.ndarray]:
    """One exact conflict (C6, C10–C12) of ``fighter`` (side 0) started with ``damage``
    against a fresh ``opponent``: ``(end, fates)`` as in
    :func:`engines.campaign_attrition.reachable`."""
    from engines.systems.dice_pool_6 import combat as cb

    v = cb.as_variants(combat)
    chains: list = []
    st = cb.duel_exact(fighter, opponent, v, start_damage=damage, chains=chains)
    weights = [1.0] if len(chains) == 1 else [0.5] * len(chains)  # C11 order: one coin
    end = np.zeros(fighter.health)
    for w, chain in zip(weights, chains, strict=True):
        left = sum(plane.sum(axis=1) for plane in chain.planes.values())
        end += w * (chain.won_at[0] + left)
    return end, st.loser_fate[1].copy()


MECHANICS["attrition"] = attrition_mechanic(
    system=SYSTEM,
    variants=Variants,
    combat="engines.systems.dice_pool_6.combat",
    fight=fight_from,
    health=lambda f: f.health,
    check=check_both,
    rest=lambda v, _opponent, _i, j: max(j - v.health_rest, 0),  # C-g21
    combat_of=combat_variants,
    notes=("health_rest",),
    rules="C6, C10-C12, C-g21",
    state="health left",
    help="P(alive and able after k consecutive conflicts against fresh equal opponents), "
    "with the rest's healing between fights (one session = one fight)",
)
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo


def _mechanic(name: str) -> Mechanic:
    if name not in MECHANICS:
        raise InputError(f"mechanic: unknown {name!r} for {SYSTEM}; known: {', '.join(MECHANICS)}")
    return MECHANICS[name]


def exact(
    mechanic: str,
    sessions: int,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Exact chain of ``mechanic`` (a key of :data:`MECHANICS`) with its ``params``."""
    return _mechanic(mechanic).exact(
        sessions=sessions, threshold=threshold, variants=variants, **params
    )


def monte_carlo(
    mechanic: str,
    sessions: int,
    trials: int,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Monte Carlo of ``mechanic`` (a key of :data:`MECHANICS`) with its ``params``."""
    return _mechanic(mechanic).monte_carlo(
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        variants=variants,
        **params,
    )
