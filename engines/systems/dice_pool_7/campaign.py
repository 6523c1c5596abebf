"""Campaign mechanics of ``dice_pool_7`` (RULES.md section A, seed 000).

- ``morality`` (**A17**): Morality under an infraction schedule. Each session the
  character commits ``per_session`` infractions of level ``infraction``. An infraction of
  level M ≤ current Morality calls a Morality check with ``MORALITY_DICE[M]`` dice (M10–9:
  5, M8–7: 4, M6–4: 3, M3–1: 2); no success → Morality −1, then a Degeneration check with
  dice = the new Morality; no success → a derangement. The state is Morality 0..10; the
  threshold is reached when Morality falls to the threshold or below. The number of
  derangements is the extra tally ``derangements_mean[k]`` (mean derangements gained by
  the end of session ``k``); the exact chain computes it without any cap, by summing, over
  every infraction, P(Morality before it) × P(a derangement from it).
  A Degeneration check at Morality 0 rolls a chance die (**A-g1**, the check rules'
  default: only a 10 succeeds). The dice follow :data:`engines.systems.dice_pool_7.checks.DEFAULT`
  (7+ succeeds; no success means no die reached 7, so explosion does not matter).
- ``attrition`` (**A6–A16**, healing rates, "Lethality outcomes"): a fighter through
  ``fights`` consecutive duels against fresh equal opponents
  (:mod:`engines.campaign_attrition`), exact: the duel chain of
  :mod:`engines.systems.dice_pool_7.combat` started with the fighter's damage. Between fights
  the seed's healing rates (RULES.md A, "Healing rates"): lethal (and ballistic) damage
  heals 2 points a day, bashing 1 point per 15 minutes (a night's rest clears it);
  aggravated damage and lost CON never arise in a duel the fighter wins. The state is
  the damage only: a fighter with a willpower policy (A4) is refused, since the seed
  restores 1 Willpower a night ("Uma noite de descanso recupera 1 ponto") and carrying
  it would need Willpower in the state.

Gaps (listed in RULES.md):

- **A-g20** Morality regain: the seed's only way up is buying it with experience, and
  only for vampires ("Humanidade: 2 XP"); the mechanic follows a mortal, whose Morality
  never rises (no variant: the seed gives no alternative to model).
- **A-g21** several infractions in one session are resolved one after another, each
  against the Morality left by the previous one (``order = sequential``); variant
  ``order = session_start``: every infraction of a session checks against the Morality
  the session began with (only the checks' dice change; each failure still costs 1).
- **A-g22** the time between two fights of a series (the seed gives healing rates, not
  a schedule). Default: one day (``rest_days = 1``: a night's rest, 2 lethal points).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import run_blocks
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
from engines.campaign_attrition import attrition_mechanic
from engines.config import KERNEL
from engines.errors import InputError
from engines.rng import Seed, chunk_states, chunk_trials, plan_chunks
from engines.rolls import roll_pool
from engines.systems.dice_pool_7 import checks as dp7
from engines.variants import variant

SYSTEM = dp7.SYSTEM
MORALITY_MAX = 10
MORALITY_START = 7  # A17: "Cada personagem começa com 7 Pontos de Moralidade"
MAX_PER_SESSION = 50


@dataclass(frozen=True)
class Variants:
    """Campaign rule variants of ``dice_pool_7``."""

    system: ClassVar[str] = SYSTEM
    rest_days: int = variant(
        1,
        rule="A-g22",
        doc="attrition: days of rest between two "
        "fights (lethal heals 2 a day; bashing clears in a night)",
        choices=range(0, 31),
    )
    order: str = variant(
        "sequential",
        rule="A-g21",
        doc="several infractions in a session: "
        "each checks against the Morality left by the previous one "
        "(sequential), or all against the Morality at the session's start",
        choices=("sequential", "session_start"),
    )


DEFAULT = Variants()


_int_param = check_int


def _morality_params(morality, infraction, per_session, threshold):
    morality = _int_param("morality", morality, 0, MORALITY_MAX)
    infraction = _int_param("infraction", infraction, 1, 10)
    per_session = _int_param("per_session", per_session, 0, MAX_PER_SESSION)
    if threshold is not None:
        threshold = _int_param("threshold", threshold, 0, MORALITY_MAX)
    return morality, infraction, per_session, threshold


def p_no_success(dice: int) -> float:
    """P(no success) of an A1 check of ``dice`` dice (A-g1 chance die at 0 dice)."""
    probs, _ = dp7.exact([dice])
    return float(probs[0, :2].sum())


def infraction_step(infraction: int) -> tuple[np.ndarray, np.ndarray]:
    """A17: one infraction as a Markov step over Morality 0..10.

    Returns ``(T, d)``: ``T[m, m']`` = P(Morality m' after the infraction | m before) and
    ``d[m]`` = P(the infraction gives a derangement | m).
    """
    T = np.eye(MORALITY_MAX + 1)
    d = np.zeros(MORALITY_MAX + 1)
    dice = dp7.MORALITY_DICE[infraction]
    p_drop = p_no_success(dice)
    for m in range(infraction, MORALITY_MAX + 1):  # M ≤ current Morality calls a check
        T[m, m] = 1.0 - p_drop
        T[m, m - 1] = p_drop
        d[m] = p_drop * p_no_success(m - 1)  # Degeneration check: dice = the new Morality
    return T, d


def _session_start_step(infraction: int, per_session: int):
    """A-g21 ``session_start``: all ``per_session`` checks use the session's first Morality
    (binomial number of failures; each failure −1 Morality and its own Degeneration check
    at the Morality it leaves)."""
    from math import comb

    S = MORALITY_MAX + 1
    P = np.zeros((S, S))
    dmean = np.zeros(S)
    p_drop = p_no_success(dp7.MORALITY_DICE[infraction])
    for m in range(S):
        if infraction > m or per_session == 0:
            P[m, m] = 1.0
            continue
        for f in range(per_session + 1):
            pf = comb(per_session, f) * p_drop**f * (1 - p_drop) ** (per_session - f)
            end = max(m - f, 0)
            P[m, end] += pf
            # the i-th failure leaves Morality m - i (no lower than 0: nothing left to lose)
            dmean[m] += pf * sum(p_no_success(m - i) for i in range(1, f + 1) if m - i >= 0)
    return P, dmean


def morality_exact(
    morality: int = MORALITY_START,
    infraction: int = 5,
    per_session: int = 1,
    sessions: int = 20,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """A17 exact: Morality 0..10 after each session, first session at Morality ≤
    ``threshold``, and ``extra["derangements_mean"]`` (A17 Degeneration checks failed)."""
    morality, infraction, per_session, threshold = _morality_params(
        morality, infraction, per_session, threshold
    )
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    S = MORALITY_MAX + 1
    start = np.zeros(S)
    start[morality] = 1.0
    der = np.zeros(sessions + 1)
    if v.order == "sequential":
        T, d = infraction_step(infraction)
        P = np.linalg.matrix_power(T, per_session)
        x = start.copy()
        total = 0.0
        for k in range(1, sessions + 1):
            for _ in range(per_session):
                total += x @ d
                x = x @ T
            der[k] = total
    else:
        P, dmean = _session_start_step(infraction, per_session)
        x = start.copy()
        for k in range(1, sessions + 1):
            der[k] = der[k - 1] + x @ dmean
            x = x @ P
    dist = evolve(P, start, sessions)
    passage = None
    if threshold is not None:
        passage = first_passage(P, start, np.arange(S) <= threshold, sessions)
    return CampaignStats(
        SYSTEM,
        "morality",
        np.arange(S),
        dist,
        passage,
        threshold,
        {"derangements_mean": der},
        notes={
            "morality": morality,
            "infraction": infraction,
            "per_session": per_session,
            "order": v.order,
        },
    )


@njit(**KERNEL)
def _morality_kernel(
    first,
    last,
    morality,
    infraction,
    per_session,
    check_dice,
    sequential,
    threshold,
    sessions,
    trials,
    states,
    dist,
    passage,
    der_sum,
    der_sq,
):
    """A17 per session, ``trials[c]`` campaigns per chunk ``c`` from ``states[c]``."""
    for c in range(first, last):
        s = states[c].copy()
        for _ in range(trials[c]):
            m = morality
            der = 0
            dist[c, 0, m] += 1
            hit = threshold >= 0 and m <= threshold
            if hit:
                passage[c, 0] += 1
            for k in range(1, sessions + 1):
                m0 = m
                for _i in range(per_session):
                    level = m if sequential != 0 else m0
                    # a pool of ≥ 2 dice: code 1 = no success (A1)
                    if (
                        infraction <= level
                        and m > 0
                        and roll_pool(s, check_dice, 7, 10, 0, 1, 0) <= 1
                    ):
                        m -= 1
                        if roll_pool(s, m, 7, 10, 0, 1, 0) <= 1:  # A-g1 at 0 dice
                            der += 1
                dist[c, k, m] += 1
                der_sum[c, k] += der
                der_sq[c, k] += der * der
                if threshold >= 0 and not hit and m <= threshold:
                    hit = True
                    passage[c, k] += 1
            if threshold >= 0 and not hit:
                passage[c, sessions + 1] += 1


def morality_monte_carlo(
    morality: int = MORALITY_START,
    infraction: int = 5,
    per_session: int = 1,
    sessions: int = 20,
    trials: int = 10_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """A17 Monte Carlo: counts of Morality per session (and of first passage), the mean
    derangements with their SE (``extra``). Bit-identical on any thread count."""
    morality, infraction, per_session, threshold = _morality_params(
        morality, infraction, per_session, threshold
    )
    sessions = check_sessions(sessions)
    v = campaign_variants(Variants, variants)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, n_chunks)
    S = MORALITY_MAX + 1
    dist = np.zeros((n_chunks, sessions + 1, S), dtype=np.int64)
    passage = np.zeros((n_chunks, sessions + 2), dtype=np.int64)
    der_sum = np.zeros((n_chunks, sessions + 1), dtype=np.int64)
    der_sq = np.zeros((n_chunks, sessions + 1), dtype=np.int64)
    run_blocks(
        _morality_kernel,
        (
            np.int64(morality),
            np.int64(infraction),
            np.int64(per_session),
            np.int64(dp7.MORALITY_DICE[infraction]),
            np.int64(v.order == "sequential"),
            np.int64(-1 if threshold is None else threshold),
            np.int64(sessions),
            per_chunk,
            states,
            dist,
            passage,
            der_sum,
            der_sq,
        ),
        n_chunks,
    )
    n = float(trials)
    mean = der_sum.sum(axis=0) / n
    var = np.maximum(der_sq.sum(axis=0) / n - mean**2, 0.0)
    return CampaignStats(
        SYSTEM,
        "morality",
        np.arange(S),
        dist.sum(axis=0),
        passage.sum(axis=0) if threshold is not None else None,
        threshold,
        {"derangements_mean": mean, "derangements_mean_se": np.sqrt(var / n)},
        trials=int(trials),
        notes={
            "morality": morality,
            "infraction": infraction,
            "per_session": per_session,
            "order": v.order,
        },
    )


# ---------------------------------------------------------------- attrition


def fight_from(
    fighter, opponent, damage: int, combat_variants=None, round_cap: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One exact duel (A6–A16) of ``fighter`` (side 0) started with ``damage`` points
    against a fresh ``opponent``: ``(end, fates)`` — ``end[d]`` = P(the fighter ends able
    with ``d`` damage: it won, or the round cap stopped the fight), ``fates`` =
    P(dead, dying, out) after the aftermath of ``combat_variants``."""
    from engines.constants import ROUND_CAP
    from engines.fight import check_round_cap
    from engines.systems.dice_pool_7 import combat as cb

    v = cb.as_variants(combat_variants)
    cap = check_round_cap(ROUND_CAP if round_cap is None else round_cap)
    fighter.check()
    opponent.check()
    health = fighter.vitality
    damage = check_int("damage", damage, 0, health - 1)
    p = cb.p_first(fighter, opponent, v)
    end = np.zeros(health)
    fates = np.zeros(3)
    for w, first in ((p, 0), (1 - p, 1)):
        if w == 0:
            continue
        duel = cb.Duel((fighter, opponent), v, first, cap)
        (key,) = duel.chain.planes
        start = np.zeros(duel.health)
        start[damage, 0] = 1.0
        duel.chain.planes = {key: start}
        st = duel.run()
        left = sum(plane.sum(axis=1) for plane in duel.chain.planes.values())
        end += w * (duel.chain.won_at[0] + left)
        fates += w * st.loser_fate[1]
    return end, fates


def rest(damage: int, bashing: bool, days: int) -> int:
    """Damage left after ``days`` of rest (RULES.md A "Healing rates"): bashing heals 1 a
    quarter hour (gone after a night), lethal 2 a day."""
    if bashing:
        return 0
    return max(damage - 2 * days, 0)


def _no_willpower(fighter, _opponent) -> None:
    if fighter.willpower != "none":
        raise InputError(
            f"fighter: {fighter.name} spends Willpower (policy "
            f"{fighter.willpower!r}); attrition follows damage only (the rules text "
            "restores 1 Willpower a night), so use a fighter with willpower "
            "'none'"
        )


#: Mechanic name -> description: params (name, type, default, rule, help, range), the
#: state's label, the threshold's direction, and the exact / Monte Carlo functions.
MECHANICS = {
    "morality": Mechanic(
        name="morality",
        system=SYSTEM,
        rules="A17",
        state="Morality",
        direction="down",
        help="Morality under a fixed infraction schedule; derangements from failed "
        "Degeneration checks",
        params=(
            Param(
                "morality",
                int,
                MORALITY_START,
                "A17",
                "starting Morality (the rules text's start is 7)",
                range=(0, MORALITY_MAX),
            ),
            Param(
                "infraction",
                int,
                5,
                "A17",
                "level M of each infraction (1 = worst); M ≤ Morality calls a check",
                range=(1, 10),
            ),
            Param(
                "per_session",
                int,
                1,
                "A17",
                "infractions committed per session",
                range=(0, MAX_PER_SESSION),
            ),
        ),
        extra={"derangements_mean": "mean derangements gained by the end of the session"},
        exact=morality_exact,
        monte_carlo=morality_monte_carlo,
        variants=Variants,
    ),
    "attrition": attrition_mechanic(
        system=SYSTEM,
        variants=Variants,
        combat="engines.systems.dice_pool_7.combat",
        fight=fight_from,
        health=lambda f: f.vitality,
        check=_no_willpower,
        rest=lambda v, opponent, _i, j: rest(
            j, opponent.weapon.damage_type == "bashing", v.rest_days
        ),  # healing rates, A-g22
        notes=("rest_days",),
        rules="A6-A16, healing rates, A-g22",
        state="health left",
        help="P(alive and able after k consecutive duels against fresh equal opponents), "
        "with the rules text's healing rates between fights (one session = one fight)",
    ),
}
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo
