"""Campaign mechanics of ``middle_3d10`` (RULES.md section B, seed 001).

- ``arcane`` (**B12, B13, B14, B11**): a sorcerer makes ``uses`` arcane uses of one
  ``level`` (minor / intermediate / major) per session. Each use costs stability: the
  roll's m / C / M die (B13), or with the skill's aspect a fixed 1 / 2 / 3 on an
  advantage roll, and +1 degeneration on a major use (B13, B14). Degeneration is
  subtracted from every later loss (B14: "qualquer perda futura", so an aspect's new point
  counts from the next use on). A loss ≥ Resilience calls the massive-trauma check
  (B12: difficulty 12 with C + Resilience, the B-g6 default reading); failure loses all
  remaining stability. The stability track holds 3 × Resilience points (B12); each time
  it reaches its end (the character is maddened: "perder toda a sanidade ... por causa
  dos Mitos") degeneration rises by 1 (B14). Starting degeneration is ``lore // 5`` (B14:
  +1 per 5 points of Occultism + arcane skills). Losses are temporary (/) until the
  session's rest, when half clears and half consolidates (×) (B11, mirrored for stability
  by B12). The state is degeneration 0..10; at 10 the character is lost (B14) and stays
  so. Threshold: degeneration rising to the threshold or above (default 10, lost).
  Extras: ``consolidated_mean`` (consolidated stability loss at the session's end) and
  ``maddened_mean`` (times maddened so far).
- ``consolidation`` (**B8, B9, B10, B11**): a character with ``vigor`` takes ``hits``
  hits of one weapon category per session (damage = that category's dice of the hit's
  3d10, B8, + ``bonus``). A hit ≥ Vigor calls the massive-damage check (B10, difficulty 12
  with C + Vigor, B-g6); failure → dying (the track's end, 3 × Vigor). At the session's
  rest half the temporary damage clears and half consolidates (B11). Sequelae (B11):
  temporary on reaching incapacitated (2 × Vigor) by consolidated damage or on a critical
  hit (two or more 10s on the hit's dice, B3); permanent on reaching dying with
  consolidated damage. State: consolidated damage 0..3 × Vigor; threshold: consolidated
  damage rising to the threshold or above. Extras: ``temporary_sequelae_mean`` and
  ``permanent_sequelae_mean`` (counts so far).

- ``attrition`` (**B1–B11**, "Lethality outcomes"): a fighter through ``fights``
  consecutive duels against fresh equal opponents (:mod:`engines.campaign_attrition`),
  exact: the duel chain of :mod:`engines.systems.middle_3d10.combat` started with the fighter's
  damage. After each fight the B11 rest: the fight's new (temporary) damage half clears
  and half consolidates (B-g21 for an odd point), then ``recovery`` consolidated points
  heal (B-g22); the fighter carries only consolidated damage into the next fight. Drama
  points are full again at each fight; sequelae are not followed (only the track).

The check dice follow :data:`engines.systems.middle_3d10.checks.DEFAULT` (B3 doubles on;
B-g6 C + trait).

The campaign :class:`Variants`, the parameters' checks and one event's outcome (an arcane
use's cost, one hit's damage) are in :mod:`engines.systems.middle_3d10.campaign_rules`,
re-exported here; this module holds the session chains, their kernels and ``MECHANICS``.

Gaps (listed in RULES.md):

- **B-g20** whether an arcane use's stability cost is paid on a failed use. Default:
  always (the cost dice are those of the roll, whatever its result); variant ``success``.
- **B-g21** odd temporary points at a rest (B11 "metade ... a outra metade"). Default:
  the odd point consolidates (``rest_odd = consolidate``); variant ``clear``.
- **B-g22** how fast consolidated points heal ("cura lenta", no rate). Default: 1 point
  per session (``recovery = 1``), after the rest; variants 0..3.
- **B-g23** what happens to a maddened stability track after the session. Default:
  nothing more than the rest (``after_maddened = keep``); variant ``clear`` (the track
  starts the next session empty).
- **B-g24** a hit's damage in a campaign: the hit's 3d10 are rolled afresh for each hit
  (the attack roll that must hit is not modelled, so the damage dice are not conditioned
  on hitting); the character's own critical failures (the other B11 trigger of a
  temporary sequela) are not modelled. No variant.
- **B-g25** a dying character (track end) has no death rule ("risco de morte"): it
  stabilises and the campaign goes on (the permanent-sequela rule's "e se estabiliza").
  No variant.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.blocks import run_blocks
from engines.campaign import (
    CampaignStats,
    Mechanic,
    Param,
    campaign_variants,
    check_sessions,
    evolve,
    first_passage,
)
from engines.campaign_attrition import attrition_mechanic
from engines.config import KERNEL
from engines.rng import Seed, chunk_states, chunk_trials, d10, plan_chunks
from engines.rolls import ADVANTAGE, NORMAL, middle_code_kernel
from engines.systems.middle_3d10 import checks as m3
from engines.systems.middle_3d10.campaign_rules import (
    DEFAULT,
    LEVELS,
    LOST,
    MAX_USES,
    SYSTEM,
    WEAPONS,
    Variants,
    arcane_cost_pmf,
    arcane_params,
    consolidated_points,
    consolidation_params,
    hit_pmf,
    massive_pass,
)

__all__ = [
    "DEFAULT",
    "LEVELS",
    "LOST",
    "MAX_USES",
    "MECHANICS",
    "SYSTEM",
    "WEAPONS",
    "Variants",
    "arcane_cost_pmf",
    "arcane_exact",
    "arcane_monte_carlo",
    "attrition_exact",
    "attrition_monte_carlo",
    "consolidated_points",
    "consolidation_exact",
    "consolidation_monte_carlo",
    "fight_from",
    "hit_pmf",
    "massive_pass",
]

# ----------------------------------------------------------------------------- arcane


def _arcane_session(D, X, uses, cost_pmf, aspect_degen, R, q_pass, v):
    """One session from (degeneration D, consolidated X): returns {(D', X'): p} and the
    expected number of times maddened."""
    K = 3 * R
    cur = {(D, X): 1.0}
    mad_mean = 0.0
    for _ in range(uses):
        nxt: dict = {}
        for (d, L), p in cur.items():
            if d >= LOST:
                nxt[(d, L)] = nxt.get((d, L), 0.0) + p
                continue
            for c in range(11):
                pc = cost_pmf[c]
                if pc == 0.0:
                    continue
                loss = max(c - d, 0)  # B14: degeneration subtracted from the loss
                branches = [(min(L + loss, K), 1.0)]
                if loss >= R:  # B12 massive trauma
                    branches = [(min(L + loss, K), q_pass), (K, 1.0 - q_pass)]
                for L1, pb in branches:
                    if pb == 0.0:
                        continue
                    mad = int(L < K and L1 == K)  # B14: all stability lost
                    d1 = min(d + mad + aspect_degen, LOST)
                    w = p * pc * pb
                    mad_mean += w * mad
                    nxt[(d1, L1)] = nxt.get((d1, L1), 0.0) + w
        cur = nxt
    out: dict = {}
    for (d, L), p in cur.items():
        if d >= LOST:  # lost: the track is no longer followed
            key = (LOST, X)
        else:
            x1 = X + consolidated_points(L - X, v)  # B11 rest
            if v.after_maddened == "clear" and L == K:
                x1 = 0
            key = (d, max(x1 - v.recovery, 0))  # B-g22
        out[key] = out.get(key, 0.0) + p
    return out, mad_mean


def arcane_exact(
    uses: int = 1,
    level: str = "major",
    aspect: bool = False,
    resilience: int = 3,
    lore: int = 5,
    will: int = 3,
    skill: int = 3,
    sessions: int = 20,
    threshold: int | None = LOST,
    variants: Variants | None = None,
) -> CampaignStats:
    """B11–B14 exact: degeneration 0..10 per session over the joint (degeneration,
    consolidated stability loss) chain; ``passage`` = first session at degeneration ≥
    ``threshold`` (10 = lost, B14)."""
    uses, level, aspect, R, lore, will, skill, threshold = arcane_params(
        uses, level, aspect, resilience, lore, will, skill, threshold
    )
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    K = 3 * R
    cost = arcane_cost_pmf(level, aspect, will, skill, v)
    aspect_degen = int(aspect and level == "major")
    q_pass = massive_pass(R)
    n_x = K + 1
    S = (LOST + 1) * n_x
    P = np.zeros((S, S))
    mad = np.zeros(S)
    for D in range(LOST + 1):
        for X in range(n_x):
            i = D * n_x + X
            if D >= LOST:
                P[i, i] = 1.0
                continue
            out, mad[i] = _arcane_session(D, X, uses, cost, aspect_degen, R, q_pass, v)
            for (d1, x1), p in out.items():
                P[i, d1 * n_x + x1] += p
    start = np.zeros(S)
    start[min(lore // m3.DEGENERATION_PER_POINTS, LOST) * n_x] = 1.0  # B14 lore
    joint = evolve(P, start, sessions)
    dist = joint.reshape(sessions + 1, LOST + 1, n_x).sum(axis=2)
    x_vals = np.tile(np.arange(n_x), LOST + 1)
    mad_cum = np.concatenate([[0.0], np.cumsum(joint[:-1] @ mad)])
    passage = None
    if threshold is not None:
        passage = first_passage(
            P, start, np.repeat(np.arange(LOST + 1), n_x) >= threshold, sessions
        )
    return CampaignStats(
        SYSTEM,
        "arcane",
        np.arange(LOST + 1),
        dist,
        passage,
        threshold,
        {"consolidated_mean": joint @ x_vals, "maddened_mean": mad_cum},
        notes={
            "uses": uses,
            "level": level,
            "aspect": aspect,
            "resilience": R,
            "lore": lore,
            "will": will,
            "skill": skill,
        },
    )


@njit(**KERNEL)
def _arcane_kernel(
    first,
    last,
    uses,
    cost_die,
    fixed_cost,
    aspect,
    aspect_degen,
    difficulty,
    pay_always,
    R,
    start_degen,
    odd_up,
    recovery,
    clear_mad,
    threshold,
    sessions,
    trials,
    states,
    dist,
    passage,
    x_sum,
    x_sq,
    mad_sum,
    mad_sq,
):
    K = 3 * R
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(trials[c]):
            D = start_degen
            X = 0
            n_mad = 0
            dist[c, 0, D] += 1
            hit = threshold >= 0 and threshold <= D
            if hit:
                passage[c, 0] += 1
            for k in range(1, sessions + 1):
                L = X
                for _u in range(uses):
                    if D >= 10:
                        break
                    a = d10(s)
                    b = d10(s)
                    e = d10(s)
                    lo = min(a, b, e)
                    hi = max(a, b, e)
                    mid = a + b + e - lo - hi
                    code = middle_code_kernel(a, b, e, ADVANTAGE if aspect != 0 else NORMAL, 1, 1)
                    kept = code // 3 + 1
                    special = code % 3
                    ok = special == 1 or (special == 0 and kept >= difficulty)
                    cost = fixed_cost
                    if aspect == 0:
                        cost = lo if cost_die == 0 else (mid if cost_die == 1 else hi)
                    if pay_always == 0 and not ok:
                        cost = 0
                    loss = max(cost - D, 0)
                    L1 = min(L + loss, K)
                    if loss >= R:
                        mc = middle_code_kernel(d10(s), d10(s), d10(s), NORMAL, 1, 1)
                        mk = mc // 3 + 1
                        ms = mc % 3
                        if not (ms == 1 or (ms == 0 and mk + R >= 12)):
                            L1 = K
                    if L < K and L1 == K:
                        D += 1
                        n_mad += 1
                    D = min(D + aspect_degen, 10)
                    L = L1
                if D < 10:
                    t = L - X
                    X += (t + 1) // 2 if odd_up != 0 else t // 2
                    if clear_mad != 0 and L == K:
                        X = 0
                    X = max(X - recovery, 0)
                dist[c, k, D] += 1
                x_sum[c, k] += X
                x_sq[c, k] += X * X
                mad_sum[c, k] += n_mad
                mad_sq[c, k] += n_mad * n_mad
                if threshold >= 0 and not hit and threshold <= D:
                    hit = True
                    passage[c, k] += 1
            if threshold >= 0 and not hit:
                passage[c, sessions + 1] += 1


def _means(total, sq, n):
    mean = total.sum(axis=0) / n
    var = np.maximum(sq.sum(axis=0) / n - mean**2, 0.0)
    return mean, np.sqrt(var / n)


def arcane_monte_carlo(
    uses: int = 1,
    level: str = "major",
    aspect: bool = False,
    resilience: int = 3,
    lore: int = 5,
    will: int = 3,
    skill: int = 3,
    sessions: int = 20,
    trials: int = 10_000,
    seed: Seed = None,
    threshold: int | None = LOST,
    variants: Variants | None = None,
) -> CampaignStats:
    """B11–B14 Monte Carlo of :func:`arcane_exact` (counts; extras with ``_se``)."""
    uses, level, aspect, R, lore, will, skill, threshold = arcane_params(
        uses, level, aspect, resilience, lore, will, skill, threshold
    )
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, n_chunks)
    dist = np.zeros((n_chunks, sessions + 1, LOST + 1), dtype=np.int64)
    passage = np.zeros((n_chunks, sessions + 2), dtype=np.int64)
    tallies = [np.zeros((n_chunks, sessions + 1), dtype=np.int64) for _ in range(4)]
    i64 = np.int64
    run_blocks(
        _arcane_kernel,
        (
            i64(uses),
            i64(m3.ARCANE_COST_DIE[level]),
            i64(m3.ARCANE_ASPECT_COST[level]),
            i64(aspect),
            i64(aspect and level == "major"),
            i64(m3.ARCANE_DIFFICULTY[level] - will - skill),
            i64(v.arcane_cost_on == "always"),
            i64(R),
            i64(min(lore // m3.DEGENERATION_PER_POINTS, LOST)),
            i64(v.rest_odd == "consolidate"),
            i64(v.recovery),
            i64(v.after_maddened == "clear"),
            i64(-1 if threshold is None else threshold),
            i64(sessions),
            per_chunk,
            states,
            dist,
            passage,
            *tallies,
        ),
        n_chunks,
    )
    xm, xse = _means(tallies[0], tallies[1], float(trials))
    mm, mse = _means(tallies[2], tallies[3], float(trials))
    return CampaignStats(
        SYSTEM,
        "arcane",
        np.arange(LOST + 1),
        dist.sum(axis=0),
        passage.sum(axis=0) if threshold is not None else None,
        threshold,
        {
            "consolidated_mean": xm,
            "consolidated_mean_se": xse,
            "maddened_mean": mm,
            "maddened_mean_se": mse,
        },
        trials=int(trials),
        notes={
            "uses": uses,
            "level": level,
            "aspect": aspect,
            "resilience": R,
            "lore": lore,
            "will": will,
            "skill": skill,
        },
    )


# ---------------------------------------------------------------------- consolidation


def consolidation_exact(
    vigor: int = 3,
    hits: int = 1,
    weapon: str = "light",
    bonus: int = 0,
    sessions: int = 20,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """B8–B11 exact: consolidated damage 0..3 × Vigor per session; sequelae means."""
    V, hits, weapon, bonus, threshold = consolidation_params(vigor, hits, weapon, bonus, threshold)
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    K = 3 * V
    pmf = hit_pmf(weapon, bonus)
    dmg_p = pmf.sum(axis=1)
    p_crit = pmf[:, 1].sum()
    q_pass = massive_pass(V)
    P = np.zeros((K + 1, K + 1))
    temp_seq = np.zeros(K + 1)
    perm_seq = np.zeros(K + 1)
    for X in range(K + 1):
        cur = np.zeros(K + 1)
        cur[X] = 1.0
        for _ in range(hits):
            nxt = np.zeros(K + 1)
            for L in range(K + 1):
                if cur[L] == 0.0:
                    continue
                for dmg in np.nonzero(dmg_p)[0]:
                    w = cur[L] * dmg_p[dmg]
                    if dmg >= V:  # B10 massive damage
                        nxt[min(L + dmg, K)] += w * q_pass
                        nxt[K] += w * (1 - q_pass)
                    else:
                        nxt[min(L + dmg, K)] += w
            cur = nxt
        for L in range(K + 1):
            if cur[L] == 0.0:
                continue
            x1 = X + consolidated_points(L - X, v)  # B11 rest
            temp_seq[X] += cur[L] * (X < 2 * V <= x1)
            perm_seq[X] += cur[L] * (X < K == x1)
            P[X, max(x1 - v.recovery, 0)] += cur[L]  # B-g22
    temp_seq += hits * p_crit  # B11: a critical hit
    start = np.zeros(K + 1)
    start[0] = 1.0
    dist = evolve(P, start, sessions)
    cum = np.concatenate([[0.0], np.cumsum(dist[:-1] @ temp_seq)])
    cum_p = np.concatenate([[0.0], np.cumsum(dist[:-1] @ perm_seq)])
    passage = None
    if threshold is not None:
        passage = first_passage(P, start, np.arange(K + 1) >= threshold, sessions)
    return CampaignStats(
        SYSTEM,
        "consolidation",
        np.arange(K + 1),
        dist,
        passage,
        threshold,
        {"temporary_sequelae_mean": cum, "permanent_sequelae_mean": cum_p},
        notes={"vigor": V, "hits": hits, "weapon": weapon, "bonus": bonus},
    )


@njit(**KERNEL)
def _consolidation_kernel(
    first,
    last,
    V,
    hits,
    pick,
    bonus,
    odd_up,
    recovery,
    threshold,
    sessions,
    trials,
    states,
    dist,
    passage,
    t_sum,
    t_sq,
    p_sum,
    p_sq,
):
    K = 3 * V
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(trials[c]):
            X = 0
            nt = 0
            npm = 0
            dist[c, 0, 0] += 1
            hit = threshold >= 0 and threshold <= 0
            if hit:
                passage[c, 0] += 1
            for k in range(1, sessions + 1):
                L = X
                for _h in range(hits):
                    a = d10(s)
                    b = d10(s)
                    e = d10(s)
                    lo = min(a, b, e)
                    hi = max(a, b, e)
                    mid = a + b + e - lo - hi
                    dmg = pick[0] * lo + pick[1] * mid + pick[2] * hi + bonus
                    if (a == 10) + (b == 10) + (e == 10) >= 2:
                        nt += 1
                    L1 = min(L + dmg, K)
                    if dmg >= V:
                        mc = middle_code_kernel(d10(s), d10(s), d10(s), NORMAL, 1, 1)
                        mk = mc // 3 + 1
                        ms = mc % 3
                        if not (ms == 1 or (ms == 0 and mk + V >= 12)):
                            L1 = K
                    L = L1
                t = L - X
                x1 = X + ((t + 1) // 2 if odd_up != 0 else t // 2)
                if X < 2 * V and x1 >= 2 * V:
                    nt += 1
                if X < K and x1 == K:
                    npm += 1
                X = max(x1 - recovery, 0)
                dist[c, k, X] += 1
                t_sum[c, k] += nt
                t_sq[c, k] += nt * nt
                p_sum[c, k] += npm
                p_sq[c, k] += npm * npm
                if threshold >= 0 and not hit and threshold <= X:
                    hit = True
                    passage[c, k] += 1
            if threshold >= 0 and not hit:
                passage[c, sessions + 1] += 1


def consolidation_monte_carlo(
    vigor: int = 3,
    hits: int = 1,
    weapon: str = "light",
    bonus: int = 0,
    sessions: int = 20,
    trials: int = 10_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """B8–B11 Monte Carlo of :func:`consolidation_exact`."""
    V, hits, weapon, bonus, threshold = consolidation_params(vigor, hits, weapon, bonus, threshold)
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, n_chunks)
    K = 3 * V
    dist = np.zeros((n_chunks, sessions + 1, K + 1), dtype=np.int64)
    passage = np.zeros((n_chunks, sessions + 2), dtype=np.int64)
    tallies = [np.zeros((n_chunks, sessions + 1), dtype=np.int64) for _ in range(4)]
    i64 = np.int64
    run_blocks(
        _consolidation_kernel,
        (
            i64(V),
            i64(hits),
            np.array(WEAPONS[weapon], dtype=np.int64),
            i64(bonus),
            i64(v.rest_odd == "consolidate"),
            i64(v.recovery),
            i64(-1 if threshold is None else threshold),
            i64(sessions),
            per_chunk,
            states,
            dist,
            passage,
            *tallies,
        ),
        n_chunks,
    )
    tm, tse = _means(tallies[0], tallies[1], float(trials))
    pm, pse = _means(tallies[2], tallies[3], float(trials))
    return CampaignStats(
        SYSTEM,
        "consolidation",
        np.arange(K + 1),
        dist.sum(axis=0),
        passage.sum(axis=0) if threshold is not None else None,
        threshold,
        {
            "temporary_sequelae_mean": tm,
            "temporary_sequelae_mean_se": tse,
            "permanent_sequelae_mean": pm,
            "permanent_sequelae_mean_se": pse,
        },
        trials=int(trials),
        notes={"vigor": V, "hits": hits, "weapon": weapon, "bonus": bonus},
    )


#: Mechanic name -> :class:`engines.campaign.Mechanic`.
MECHANICS = {
    "arcane": Mechanic(
        name="arcane",
        system=SYSTEM,
        rules="B11-B14",
        state="Degeneration",
        direction="up",
        help="arcane practice: stability costs, massive trauma, degeneration until the "
        "character is lost at 10",
        threshold_default=LOST,
        params=(
            Param("uses", int, 1, "B13", "arcane uses per session", range=(0, MAX_USES)),
            Param(
                "level",
                str,
                "major",
                "B13",
                "level of each use (cost die m / C / M)",
                choices=LEVELS,
            ),
            Param(
                "aspect",
                bool,
                False,
                "B13",
                "activate the skill's aspect: fixed cost 1/2/3, +1 degeneration on major",
            ),
            Param(
                "resilience",
                int,
                3,
                "B12",
                "Resilience (stability track 3 × Resilience)",
                range=(1, 10),
            ),
            Param(
                "lore",
                int,
                5,
                "B14",
                "Occultism + arcane skill points (starting degeneration lore // 5)",
                range=(0, 60),
            ),
            Param(
                "will",
                int,
                3,
                "B13",
                "Will (matters only with arcane_cost_on=success)",
                range=(1, 10),
            ),
            Param(
                "skill",
                int,
                3,
                "B13",
                "arcane skill (matters only with arcane_cost_on=success)",
                range=(0, 10),
            ),
        ),
        extra={
            "consolidated_mean": "consolidated stability loss after the session",
            "maddened_mean": "times the stability track reached its end so far",
        },
        exact=arcane_exact,
        monte_carlo=arcane_monte_carlo,
        variants=Variants,
    ),
    "consolidation": Mechanic(
        name="consolidation",
        system=SYSTEM,
        rules="B8-B11",
        state="Consolidated damage",
        direction="up",
        help="temporary and consolidated damage over rests, with sequelae",
        params=(
            Param("vigor", int, 3, "B9", "Vigor (health track 3 × Vigor)", range=(1, 10)),
            Param("hits", int, 1, "B8", "hits taken per session", range=(0, MAX_USES)),
            Param(
                "weapon",
                str,
                "light",
                "B8",
                "weapon category of the hits (which of m, C, M are damage)",
                choices=tuple(WEAPONS),
            ),
            Param("bonus", int, 0, "B8", "damage bonus per hit", range=(0, 20)),
        ),
        extra={
            "temporary_sequelae_mean": "temporary sequelae so far",
            "permanent_sequelae_mean": "permanent sequelae so far",
        },
        exact=consolidation_exact,
        monte_carlo=consolidation_monte_carlo,
        variants=Variants,
    ),
}


# ---------------------------------------------------------------- attrition


def fight_from(fighter, opponent, damage: int, combat=None) -> tuple[np.ndarray, np.ndarray]:
    """One exact duel (B1–B11) of ``fighter`` (side 0) started with ``damage`` against a
    fresh ``opponent``: ``(end, fates)`` as in :func:`engines.campaign_attrition.reachable`."""
    from engines.systems.middle_3d10 import combat as cb

    v = cb.DEFAULT if combat is None else combat
    end = np.zeros(3 * fighter.vigor)
    st = cb.duel_exact(fighter, opponent, v, start_damage=damage, end_a=end)
    return end, st.loser_fate[1].copy()


def _attrition_rest(v: Variants, _opponent, i: int, j: int) -> int:
    """B11 rest between two fights: of the damage ``j`` a fighter ends with, the new part
    ``j - i`` is temporary and consolidates by half (B-g21 rounds the odd point), then
    ``recovery`` heals (B-g22)."""
    return max(i + consolidated_points(j - i, v) - v.recovery, 0)


MECHANICS["attrition"] = attrition_mechanic(
    system=SYSTEM,
    variants=Variants,
    combat="engines.systems.middle_3d10.combat",
    fight=fight_from,
    health=lambda f: 3 * f.vigor,
    rest=_attrition_rest,
    notes=("rest_odd", "recovery"),
    rules="B1-B11, B-g21, B-g22",
    state="Resistance left",
    help="P(alive and able after k consecutive duels against fresh equal opponents), "
    "with the B11 rest (half the new damage consolidates) between fights (one "
    "session = one fight)",
)
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo
