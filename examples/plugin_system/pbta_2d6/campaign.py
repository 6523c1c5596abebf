"""Campaign mechanics of ``pbta_2d6``: ``experience`` (this package's rules PX1–PX3)
and ``attrition`` (PX4, made by the suite's public factory).

- **PX1** Each session the character rolls its move ``rolls`` times (2d6 + stat, P1);
  every miss (a total below ``weak_at``, P2: 6 or less) marks 1 XP.
- **PX2** When the XP reaches ``xp_to_advance`` (variant, 5) the character advances at
  once: +1 stat, the XP back to 0; the session's later rolls use the new stat.
- **PX3** The stat never rises above ``stat_cap`` (variant, +3); a character at the cap
  marks no more XP.

State: the stat (−3 … cap), threshold direction ``up`` (the stat rising to ≥ X).
Tallies (cumulative over sessions): ``misses`` (XP marked, plus the misses at the cap)
and ``advances`` (stat rises).

Exact: a Markov chain over (stat, XP), one session being ``rolls`` applications of the
one-roll matrix; the state distribution is its stat marginal. Monte Carlo: a numba
kernel rolling the dice, one character at a time, on the suite's campaign driver
(:func:`engines.campaign_mc.run`). Both return :class:`engines.campaign.CampaignStats`.

- **PX4** Attrition (RULES.md "Lethality outcomes"): a fighter goes through one fight a
  session (the harm clock, PC1–PC8) against a fresh opponent; between two fights an able
  fighter heals ``heal`` harm (variant, 1). ``attrition`` is
  :func:`engines.campaign_attrition.attrition_mechanic` filled with this package's
  exact fight started hurt (:func:`attrition_fight`, the combat's ``duel_exact`` with
  ``start_harm``), the clock as the health track and the PX4 rest. The combat module
  gives no ``duel_mc_end``, so the mechanic's Monte Carlo draws each fight from the exact
  one (the factory's generic fallback; its notes say so).
"""

from __future__ import annotations

from dataclasses import dataclass
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
from engines.config import KERNEL
from engines.errors import InputError
from engines.rng import Seed, die
from engines.variants import variant

from . import checks

SYSTEM = checks.SYSTEM
STAT_MIN = -3  # P1: the lowest modifier


@dataclass(frozen=True)
class Variants:
    """Rule variants of the ``experience`` mechanic."""

    system: ClassVar[str] = SYSTEM
    weak_at: int = variant(
        7,
        rule="P2",
        doc="lowest total that is a (weak) hit; below it a roll misses and marks XP (PX1)",
    )
    xp_to_advance: int = variant(
        5, rule="PX2", doc="XP that makes an advance (+1 stat)", choices=range(1, 21)
    )
    stat_cap: int = variant(
        3, rule="PX3", doc="the highest stat advances reach", choices=range(-2, 5)
    )
    heal: int = variant(
        1,
        rule="PX4",
        doc="attrition: harm an able fighter heals between two fights",
        choices=range(0, 13),
    )


DEFAULT = Variants()

PARAMS = (
    Param("stat", int, 0, "P1", "the stat at the start", range=(STAT_MIN, 3)),
    Param("rolls", int, 3, "PX1", "rolls of the move per session", range=(0, 30)),
    Param("xp", int, 0, "PX1", "XP marked at the start", range=(0, 4)),
)


def _params(params: dict, v: Variants) -> dict:
    known = {q.name: q.default for q in PARAMS}
    for key in params:
        if key not in known:
            raise InputError(f"experience: unknown parameter {key!r}; known: {', '.join(known)}")
    p = {**known, **params}
    return {
        "stat": check_int("stat", p["stat"], STAT_MIN, v.stat_cap),
        "rolls": check_int("rolls", p["rolls"], 0, 30),
        "xp": check_int("xp", p["xp"], 0, v.xp_to_advance - 1),
    }


def _threshold(threshold, v: Variants) -> int | None:
    return None if threshold is None else check_int("threshold", threshold, STAT_MIN, v.stat_cap)


def _states(v: Variants) -> tuple[np.ndarray, int]:
    """Stat values and the XP slots per stat: joint state ``(stat − STAT_MIN) * X + xp``."""
    return np.arange(STAT_MIN, v.stat_cap + 1), v.xp_to_advance


def roll_matrix(v: Variants) -> tuple[np.ndarray, np.ndarray]:
    """One roll over the joint (stat, XP) states (PX1–PX3): the transition matrix and
    P(miss) per state."""
    values, x = _states(v)
    n = values.size * x
    R = np.zeros((n, n))
    miss = np.zeros(n)
    for i, stat in enumerate(values):
        q = float(checks.move_odds(int(stat), checks.Variants(weak_at=v.weak_at))[0])
        for xp in range(x):
            s = i * x + xp
            miss[s] = q
            R[s, s] += 1.0 - q
            if stat == v.stat_cap:  # PX3: no more XP
                R[s, s] += q
            elif xp + 1 == x:  # PX2: advance, XP back to 0
                R[s, (i + 1) * x] += q
            else:
                R[s, s + 1] += q
    return R, miss


def session_matrix(v: Variants, rolls: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One session of ``rolls`` rolls: the joint transition matrix and, per start state,
    the expected misses and advances of the session."""
    R, miss = roll_matrix(v)
    values, x = _states(v)
    stat_of = np.repeat(values, x).astype(float)
    P = np.eye(R.shape[0])
    misses = np.zeros(R.shape[0])
    for _ in range(rolls):
        misses += P @ miss
        P = P @ R
    advances = P @ stat_of - stat_of
    return P, misses, advances


def experience_exact(
    sessions: int = 20, threshold: int | None = None, variants: Variants | None = None, **params
) -> CampaignStats:
    """Exact chain over sessions (PX1–PX3): the stat's distribution after each session
    and, with a ``threshold``, the session it first reaches it."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    p = _params(params, v)
    threshold = _threshold(threshold, v)
    values, x = _states(v)
    P, misses, advances = session_matrix(v, p["rolls"])
    start = np.zeros(values.size * x)
    start[(p["stat"] - STAT_MIN) * x + p["xp"]] = 1.0
    joint = evolve(P, start, sessions)
    dist = joint.reshape(sessions + 1, values.size, x).sum(axis=2)
    passage = None
    if threshold is not None:
        hit = np.repeat(hit_mask(values, threshold, "up"), x).astype(bool)
        passage = first_passage(P, start, hit, sessions)
    extra = {
        "misses": expected_tallies(joint, misses),
        "advances": expected_tallies(joint, advances),
    }
    return CampaignStats(
        system=SYSTEM,
        mechanic="experience",
        values=values,
        dist=dist,
        passage=passage,
        threshold=threshold,
        extra=extra,
        notes=p,
    )


@njit(**KERNEL)
def _kernel(
    first,
    last,
    stat0,
    xp0,
    rolls,
    weak_at,
    xp_to,
    cap,
    lo,
    sessions,
    per_chunk,
    states,
    hit,
    dist,
    passage,
    ext,
    ext_sq,
):
    """Characters of chunks ``first .. last - 1`` (the contract of
    :func:`engines.campaign_mc.run`): PX1–PX3, one 2d6 roll at a time."""
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(per_chunk[c]):
            stat = stat0
            xp = xp0
            dist[c, 0, stat - lo] += 1
            reached = 0 if hit[stat - lo] else -1
            n_miss = 0
            n_adv = 0
            for k in range(1, sessions + 1):
                for _r in range(rolls):
                    if die(s, 6) + die(s, 6) + stat < weak_at:  # PX1
                        n_miss += 1
                        if stat < cap:  # PX3
                            xp += 1
                            if xp == xp_to:  # PX2
                                stat += 1
                                xp = 0
                                n_adv += 1
                dist[c, k, stat - lo] += 1
                if reached < 0 and hit[stat - lo]:
                    reached = k
                ext[c, 0, k] += n_miss
                ext_sq[c, 0, k] += n_miss * n_miss
                ext[c, 1, k] += n_adv
                ext_sq[c, 1, k] += n_adv * n_adv
            passage[c, reached if reached >= 0 else sessions + 1] += 1


def experience_monte_carlo(
    sessions: int = 20,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Monte Carlo of :func:`experience_exact`: ``trials`` characters, dice rolled one at
    a time (PX1–PX3)."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    p = _params(params, v)
    threshold = _threshold(threshold, v)
    values, _ = _states(v)
    args = tuple(
        np.int64(a)
        for a in (p["stat"], p["xp"], p["rolls"], v.weak_at, v.xp_to_advance, v.stat_cap, STAT_MIN)
    )
    return run(
        _kernel,
        args,
        system=SYSTEM,
        mechanic="experience",
        values=values,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(values, threshold, "up"),
        tallies=("misses", "advances"),
        notes=p,
    )


#: Mechanic name -> :class:`engines.campaign.Mechanic` (what ``PLUGIN.campaign.module`` names).
MECHANICS = {
    "experience": Mechanic(
        name="experience",
        system=SYSTEM,
        rules="P1, P2, PX1-PX3",
        help="misses mark XP; at 5 XP the stat rises by 1 (up to +3)",
        state="stat",
        direction="up",
        params=PARAMS,
        extra={"misses": "expected misses so far", "advances": "expected advances so far"},
        exact=experience_exact,
        monte_carlo=experience_monte_carlo,
        variants=Variants,
    ),
}


# ---------------------------------------------------------------- attrition (PX4)


def _clock() -> int:
    """The health track of attrition: the combat's clock (PC7)."""
    from .fighters import DEFAULT as COMBAT

    return COMBAT.clock


def attrition_combat(v: Variants):
    """The combat variants of a campaign's variants: its P2 threshold ``weak_at``."""
    from .fighters import Variants as Combat

    return Combat(weak_at=v.weak_at)


def attrition_fight(fighter, opponent, harm: int, combat=None) -> tuple[np.ndarray, np.ndarray]:
    """One exact fight (PC2–PC8) of ``fighter`` started with ``harm`` against a fresh
    ``opponent``: ``(end, fates)`` — ``end[h]`` = P(the fighter ends able with harm
    ``h``: it won, or the round cap stopped the fight), ``fates`` = P(dead, dying, out)
    after the aftermath (the contract of :func:`engines.campaign_attrition.reachable`)."""
    from .fighters import DEFAULT as COMBAT
    from .fighters import duel_exact

    v = COMBAT if combat is None else combat
    if getattr(v, "clock", None) != _clock():
        raise InputError(
            f"attrition: the clock (PC7) is the health track and stays "
            f"{_clock()}; got combat variants with clock "
            f"{getattr(v, 'clock', None)!r}"
        )
    end = np.zeros(v.clock)
    st = duel_exact(fighter, opponent, v, start_harm=harm, end_a=end)
    return end, st.loser_fate[1].copy()


MECHANICS["attrition"] = attrition_mechanic(
    system=SYSTEM,
    variants=Variants,
    combat="pbta_2d6.combat",
    fight=attrition_fight,
    health=lambda _fighter: _clock(),
    check=check_both,
    rest=lambda v, _opponent, _i, j: max(j - v.heal, 0),  # PX4
    combat_of=attrition_combat,
    notes=("heal",),
    rules="PC1-PC8, PX4",
    state="harm left",
    help="P(alive and able after k consecutive fights against fresh equal opponents), "
    "healing `heal` harm between fights (PX4; one session = one fight)",
)
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo
