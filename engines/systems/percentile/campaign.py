"""Campaign mechanics of ``percentile`` (RULES.md section D, seed 003).

- ``skill-growth`` (**D6**, **D-g2**): a skill is rolled ``uses`` times a session at the
  level the keeper sets (D1; D-g21: regular); any success ticks it ("você só pode ter um
  único ponto por perícia de cada vez"); at the scenario's end a ticked skill rolls d100
  and improves by +1d10 on a roll above the skill (or 96+, D-g2), up to ``skill_cap``
  (D-g20). State: the skill, 0..cap; threshold direction: the skill rising to ≥ X.
  Tally ``improvements``: sessions in which the skill improved (cumulative).
- ``luck`` (**D5**, extension D-g22/D-g23): Luck is rolled against its *current* value
  (D5), so it can change; the seed says no more. Extension from Call of Cthulhu 7th
  edition, marked as such: a failed skill roll (not a fumble, D-g1) can be turned into a
  success by spending Luck points equal to the margin (roll − skill), if the character
  holds them and the margin is at most ``max_spend`` (D-g22); at the session's end a
  d100 roll above the current Luck recovers 1d10 Luck, up to 99 (D-g23). State: Luck
  0..99; threshold direction: Luck falling to ≤ X. Tallies ``saves`` (failed rolls
  bought off) and ``spent`` (Luck points spent), cumulative.

- ``attrition`` (extension **DX1–DX9**, "Lethality outcomes"): a fighter through
  ``fights`` consecutive duels against fresh equal opponents
  (:mod:`engines.campaign_attrition`), exact: the duel chain of
  :mod:`engines.systems.percentile.combat` started with the fighter's hit points left. Between
  fights a rest restores ``rest_hp`` hit points (D-g24).

Gaps (variants of :class:`Variants`): D-g1, D-g2 as in :mod:`engines.systems.percentile.checks`;
D-g20 ``skill_cap``; D-g21 ``use_level``; D-g22 ``luck_spending``; D-g23 ``luck_recovery``;
D-g24 ``rest_hp`` (healing between fights; the seed has no combat. Default, the
extension's Call of Cthulhu 7th ed. reading: 1 hit point a day of rest; the major-wound
flag (DX7) is not carried into the next fight, and the published game's weekly recovery
roll for a major wound is not modelled).
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
from engines.campaign_attrition import attrition_mechanic
from engines.campaign_mc import expected_tallies, hit_mask, run
from engines.config import INLINE, KERNEL
from engines.errors import InputError
from engines.rng import Seed, bounded
from engines.systems.percentile import checks as pct
from engines.variants import variant

SYSTEM = "percentile"
LUCK_CAP = 99  # D-g23: Luck never recovers above 99 (Call of Cthulhu 7th ed.)
LEVEL_CODE = {"regular": 0, "hard": 1, "extreme": 2}


@dataclass(frozen=True)
class Variants:
    """Rule variants of the ``percentile`` campaign mechanics."""

    system: ClassVar[str] = SYSTEM
    criticals: bool = variant(
        True,
        rule="D-g1",
        doc="01 always succeeds; 100 (or 96–100 when the needed value is below 50) fumbles",
    )
    improve_on_96: bool = variant(
        True,
        rule="D-g2",
        doc="an improvement roll of 96+ improves the skill even when the skill is 96 or more",
    )
    skill_cap: int = variant(
        99,
        rule="D-g20",
        doc="the highest value improvement can "
        "bring a skill to (the rules text writes none; 99 keeps it a d100 "
        "percentage)",
    )
    use_level: str = variant(
        "regular",
        rule="D-g21",
        doc="difficulty of each use of the skill; any success at it ticks the skill (D6)",
        choices=tuple(LEVEL_CODE),
    )
    luck_spending: str = variant(
        "margin",
        rule="D-g22",
        doc="extension (Call of Cthulhu "
        "7th ed.): 'margin' buys a failed, non-fumbled skill roll "
        "with Luck points equal to roll − skill; 'none' never "
        "spends Luck",
        choices=("margin", "none"),
    )
    rest_hp: int = variant(
        1,
        rule="D-g24",
        doc="attrition: hit points a rest between two "
        "fights restores (extension, Call of Cthulhu 7th ed.: 1 a day)",
        choices=range(0, 21),
    )
    luck_recovery: str = variant(
        "roll",
        rule="D-g23",
        doc="extension (Call of Cthulhu "
        "7th ed.): 'roll' = at the session's end d100 above the "
        "current Luck gains 1d10 (max 99); 'none' = no recovery",
        choices=("roll", "none"),
    )

    def check(self) -> None:
        if not 1 <= self.skill_cap <= 200:
            raise InputError(f"variant skill_cap: must be 1..200, got {self.skill_cap}")

    def checks(self) -> pct.Variants:
        """The check-level variants (D-g1, D-g2) of :mod:`engines.systems.percentile.checks`."""
        return pct.Variants(criticals=self.criticals, improve_on_96=self.improve_on_96)


DEFAULT = Variants()


_int = check_int


#: Mechanic name -> :class:`engines.campaign.Mechanic` (the functions are filled in
#: below, once defined).
_DESCRIPTIONS = {
    "skill-growth": {
        "rules": "D6, D-g2, D-g20, D-g21",
        "state": "skill",
        "direction": "up",
        "help": "a skill used each session and improved at its end (+1d10 on d100 above it)",
        "params": (
            Param("skill", int, 40, "D6", "starting skill (0..skill_cap)", range=(0, 99)),
            Param(
                "uses",
                int,
                1,
                "D6",
                "rolls of the skill per session; any success ticks it",
                range=(0, 1000),
            ),
        ),
        "extra": {"improvements": "expected sessions so far in which the skill improved"},
    },
    "luck": {
        "rules": "D5, D-g22, D-g23",
        "state": "Luck",
        "direction": "down",
        "help": "Luck spent on failed skill rolls and recovered at each session's end (extension)",
        "params": (
            Param("luck", int, 50, "D5", "starting Luck (0..99)", range=(0, LUCK_CAP)),
            Param(
                "skill", int, 50, "D-g22", "skill of the rolls Luck may be spent on", range=(0, 200)
            ),
            Param("checks", int, 3, "D-g22", "skill rolls per session", range=(0, 1000)),
            Param(
                "max_spend",
                int,
                99,
                "D-g22",
                "the most Luck spent to buy one failed roll",
                range=(0, LUCK_CAP),
            ),
        ),
        "extra": {
            "saves": "expected failed rolls bought with Luck so far",
            "spent": "expected Luck spent so far",
        },
    },
}


# ---------------------------------------------------------------- skill growth


def _tick_improve(skill: int, uses: int, v: Variants) -> tuple[float, float]:
    """P(ticked in a session) and P(the improvement roll succeeds) at ``skill`` (D6, D-g2)."""
    ok = pct.success_mask(skill, v.use_level, v.checks()).mean()
    p_tick = 1.0 - (1.0 - ok) ** uses
    return float(p_tick), pct.improvement(skill, v.checks())["p_improve"]


def skill_matrix(uses: int, variants: Variants | None = None) -> np.ndarray:
    """Transition matrix over skills 0..cap for one session (D6, D-g2, D-g20, D-g21)."""
    v = campaign_variants(Variants, variants)
    uses = _int("uses", uses, 0, 1000)
    cap = v.skill_cap
    P = np.zeros((cap + 1, cap + 1))
    for s in range(cap + 1):
        p_tick, p_imp = _tick_improve(s, uses, v)
        up = p_tick * p_imp if s < cap else 0.0
        P[s, s] += 1.0 - up
        for d in range(1, 11):
            P[s, min(cap, s + d)] += up / 10
    return P


def _start(values: np.ndarray, value: int) -> np.ndarray:
    x = np.zeros(values.size)
    x[value] = 1.0
    return x


def _exact(
    system, mechanic, P, values, start, sessions, threshold, direction, tallies, notes
) -> CampaignStats:
    sessions = check_sessions(sessions)
    x0 = _start(values, start)
    dist = evolve(P, x0, sessions)
    passage = None
    if threshold is not None:
        passage = first_passage(
            P, x0, hit_mask(values, threshold, direction).astype(bool), sessions
        )
    extra = {name: expected_tallies(dist, g) for name, g in tallies.items()}
    return CampaignStats(
        system=system,
        mechanic=mechanic,
        values=values,
        dist=dist,
        passage=passage,
        threshold=threshold,
        extra=extra,
        notes=notes,
    )


def _threshold(threshold, lo, hi):
    return None if threshold is None else _int("threshold", threshold, lo, hi)


def skill_growth_exact(
    skill: int = 40,
    uses: int = 1,
    sessions: int = 20,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """Exact skill distribution per session (D6, D-g2, D-g20, D-g21); ``passage``: the
    session the skill first reaches ≥ ``threshold``."""
    v = campaign_variants(Variants, variants)
    skill = _int("skill", skill, 0, v.skill_cap)
    threshold = _threshold(threshold, 0, v.skill_cap)
    P = skill_matrix(uses, v)
    up = 1.0 - np.diag(P)
    return _exact(
        SYSTEM,
        "skill-growth",
        P,
        np.arange(v.skill_cap + 1),
        skill,
        sessions,
        threshold,
        "up",
        {"improvements": up},
        {"uses": uses},
    )


@njit(**INLINE)
def _succeeds(r, skill, level, criticals):
    """D1 / D-g1: does roll ``r`` (1..100) reach ``level`` (0 regular, 1 hard, 2 extreme)?"""
    need = skill if level == 0 else (skill // 2 if level == 1 else skill // 5)
    if criticals:
        if r == 100 or (r >= 96 and need < 50):
            return False
        if r == 1:
            return True
    return r <= need


@njit(**KERNEL)
def _skill_kernel(
    first,
    last,
    skill0,
    uses,
    level,
    criticals,
    on96,
    cap,
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
            skill = skill0
            dist[c, 0, skill] += 1
            reached = 0 if hit[skill] else -1
            improvements = 0
            for k in range(1, sessions + 1):
                ticked = False
                for _u in range(uses):
                    if _succeeds(bounded(s, 100) + 1, skill, level, criticals):
                        ticked = True  # D6: one tick per skill at a time; rolls go on
                if ticked and skill < cap:
                    r = bounded(s, 100) + 1
                    if r > skill or (on96 and r >= 96):
                        skill = min(cap, skill + bounded(s, 10) + 1)
                        improvements += 1
                dist[c, k, skill] += 1
                if reached < 0 and hit[skill]:
                    reached = k
                ext[c, 0, k] += improvements
                ext_sq[c, 0, k] += improvements * improvements
            passage[c, reached if reached >= 0 else sessions + 1] += 1


def skill_growth_monte_carlo(
    skill: int = 40,
    uses: int = 1,
    sessions: int = 20,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """Monte Carlo of :func:`skill_growth_exact`, one d100 at a time (D6, D-g2)."""
    v = campaign_variants(Variants, variants)
    skill = _int("skill", skill, 0, v.skill_cap)
    uses = _int("uses", uses, 0, 1000)
    sessions = check_sessions(sessions)
    threshold = _threshold(threshold, 0, v.skill_cap)
    values = np.arange(v.skill_cap + 1)
    args = (
        np.int64(skill),
        np.int64(uses),
        np.int64(LEVEL_CODE[v.use_level]),
        v.criticals,
        v.improve_on_96,
        np.int64(v.skill_cap),
    )
    return run(
        _skill_kernel,
        args,
        system=SYSTEM,
        mechanic="skill-growth",
        values=values,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(values, threshold, "up"),
        tallies=("improvements",),
        notes={"uses": uses},
    )


# ---------------------------------------------------------------- luck


def _luck_check(skill: int, max_spend: int, v: Variants):
    """Per-roll transition over Luck 0..99 (D5, D-g1, D-g22): matrix, P(save), E[spent]."""
    ok = pct.success_mask(skill, "regular", v.checks())
    fumble = pct.is_fumble(np.arange(1, 101), skill, v.checks())
    T = np.zeros((LUCK_CAP + 1, LUCK_CAP + 1))
    p_save = np.zeros(LUCK_CAP + 1)
    spent = np.zeros(LUCK_CAP + 1)
    for luck in range(LUCK_CAP + 1):
        for r in range(1, 101):
            margin = r - skill
            if (
                not ok[r - 1]
                and not fumble[r - 1]
                and v.luck_spending == "margin"
                and 0 < margin <= min(luck, max_spend)
            ):
                T[luck, luck - margin] += 0.01
                p_save[luck] += 0.01
                spent[luck] += 0.01 * margin
            else:
                T[luck, luck] += 0.01
    return T, p_save, spent


def _luck_recovery(v: Variants) -> np.ndarray:
    """D-g23: d100 above the current Luck → +1d10 (max 99)."""
    R = np.zeros((LUCK_CAP + 1, LUCK_CAP + 1))
    for luck in range(LUCK_CAP + 1):
        up = (100 - luck) / 100 if v.luck_recovery == "roll" else 0.0
        R[luck, luck] += 1.0 - up
        for d in range(1, 11):
            R[luck, min(LUCK_CAP, luck + d)] += up / 10
    return R


def _luck_params(luck, skill, checks, max_spend):
    return (
        _int("luck", luck, 0, LUCK_CAP),
        _int("skill", skill, 0, 200),
        _int("checks", checks, 0, 1000),
        _int("max_spend", max_spend, 0, LUCK_CAP),
    )


def luck_matrix(skill: int, checks: int, max_spend: int = 99, variants: Variants | None = None):
    """One session over Luck 0..99: ``(P, saves, spent)`` with the expected saves and Luck
    spent per session from each starting Luck (D5, D-g22, D-g23)."""
    v = campaign_variants(Variants, variants)
    _, skill, checks, max_spend = _luck_params(0, skill, checks, max_spend)
    T, p_save, spent = _luck_check(skill, max_spend, v)
    X = np.eye(LUCK_CAP + 1)
    saves = np.zeros(LUCK_CAP + 1)
    points = np.zeros(LUCK_CAP + 1)
    for _ in range(checks):
        saves += X @ p_save
        points += X @ spent
        X = X @ T
    return X @ _luck_recovery(v), saves, points


def luck_exact(
    luck: int = 50,
    skill: int = 50,
    checks: int = 3,
    max_spend: int = 99,
    sessions: int = 20,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """Exact Luck distribution per session (D5, extension D-g22/D-g23); ``passage``: the
    session Luck first falls to ≤ ``threshold``."""
    v = campaign_variants(Variants, variants)
    luck, skill, checks, max_spend = _luck_params(luck, skill, checks, max_spend)
    threshold = _threshold(threshold, 0, LUCK_CAP)
    P, saves, spent = luck_matrix(skill, checks, max_spend, v)
    return _exact(
        SYSTEM,
        "luck",
        P,
        np.arange(LUCK_CAP + 1),
        luck,
        sessions,
        threshold,
        "down",
        {"saves": saves, "spent": spent},
        {"skill": skill, "checks": checks, "max_spend": max_spend},
    )


@njit(**KERNEL)
def _luck_kernel(
    first,
    last,
    luck0,
    skill,
    checks,
    max_spend,
    criticals,
    spending,
    recovery,
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
            luck = luck0
            dist[c, 0, luck] += 1
            reached = 0 if hit[luck] else -1
            saves = 0
            spent = 0
            for k in range(1, sessions + 1):
                for _u in range(checks):
                    r = bounded(s, 100) + 1
                    if _succeeds(r, skill, 0, criticals):
                        continue
                    fumble = criticals and (r == 100 or (r >= 96 and skill < 50))
                    margin = r - skill
                    if spending and not fumble and margin <= min(luck, max_spend):
                        luck -= margin
                        saves += 1
                        spent += margin
                if recovery and bounded(s, 100) + 1 > luck:
                    luck = min(99, luck + bounded(s, 10) + 1)
                dist[c, k, luck] += 1
                if reached < 0 and hit[luck]:
                    reached = k
                ext[c, 0, k] += saves
                ext_sq[c, 0, k] += saves * saves
                ext[c, 1, k] += spent
                ext_sq[c, 1, k] += spent * spent
            passage[c, reached if reached >= 0 else sessions + 1] += 1


def luck_monte_carlo(
    luck: int = 50,
    skill: int = 50,
    checks: int = 3,
    max_spend: int = 99,
    sessions: int = 20,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
) -> CampaignStats:
    """Monte Carlo of :func:`luck_exact` (D5, D-g1, D-g22, D-g23)."""
    v = campaign_variants(Variants, variants)
    luck, skill, checks, max_spend = _luck_params(luck, skill, checks, max_spend)
    sessions = check_sessions(sessions)
    threshold = _threshold(threshold, 0, LUCK_CAP)
    values = np.arange(LUCK_CAP + 1)
    args = (
        np.int64(luck),
        np.int64(skill),
        np.int64(checks),
        np.int64(max_spend),
        v.criticals,
        v.luck_spending == "margin",
        v.luck_recovery == "roll",
    )
    return run(
        _luck_kernel,
        args,
        system=SYSTEM,
        mechanic="luck",
        values=values,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(values, threshold, "down"),
        tallies=("saves", "spent"),
        notes={"skill": skill, "checks": checks, "max_spend": max_spend},
    )


# ---------------------------------------------------------------- dispatch

_EXACT = {"skill-growth": skill_growth_exact, "luck": luck_exact}
_MC = {"skill-growth": skill_growth_monte_carlo, "luck": luck_monte_carlo}


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
        sessions=sessions, threshold=threshold, variants=variants, **_params(mechanic, params)
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
        **_params(mechanic, params),
    )


def _params(mechanic: str, params: dict) -> dict:
    known = {p.name for p in MECHANICS[mechanic].params}
    for key in params:
        if key not in known:
            raise InputError(
                f"{mechanic}: unknown parameter {key!r}; known: {', '.join(sorted(known))}"
            )
    return params


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


def fight_from(fighter, opponent, damage: int, combat=None) -> tuple[np.ndarray, np.ndarray]:
    """One exact duel (DX1–DX9) of ``fighter`` (side 0) started ``damage`` hit points down
    against a fresh ``opponent``: ``(end, fates)`` as in
    :func:`engines.campaign_attrition.reachable` (``end`` by damage taken)."""
    from engines.systems.percentile import combat as cb

    v = cb.DEFAULT if combat is None else combat
    hp = fighter.hit_points
    end_hp = np.zeros(hp + 1)
    st = cb.duel_exact(fighter, opponent, v, start_hp=hp - damage, end_a=end_hp)
    return end_hp[::-1][:hp].copy(), st.loser_fate[1].copy()  # damage d = hp - h


MECHANICS["attrition"] = attrition_mechanic(
    system=SYSTEM,
    variants=Variants,
    combat="engines.systems.percentile.combat",
    fight=fight_from,
    health=lambda f: f.hit_points,
    rest=lambda v, _opponent, _i, j: max(j - v.rest_hp, 0),  # D-g24
    notes=("rest_hp",),
    rules="DX1-DX9, D-g24",
    state="hit points left",
    help="P(alive and able after k consecutive duels against fresh equal opponents), "
    "with a rest between fights (D-g24; one session = one fight)",
)
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo
