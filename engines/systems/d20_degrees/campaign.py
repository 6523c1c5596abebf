"""Campaign mechanics of ``d20_degrees`` (RULES.md section E, seed 004).

- ``hero-points`` (**E8**, **E9**, **E15**, E17): hero points and extra-effort fatigue
  over sessions of ``fights`` fights. In each fight, in this order:

  1. with ``recover_action`` (E15, E-g23) a fatigued hero spends the once-per-combat
     recovery on one fatigue level;
  2. extra effort (E8, policy ``effort``, E-g22) gives +2 on the fight's key check
     (d20 + ``bonus`` vs ``dc``, E1–E3); its cost, one fatigue level (fatigued, then
     exhausted: −2 on checks, then incapacitated), is cancelled by a hero point when the
     hero holds one and ``cancel_fatigue`` is on; effort that would incapacitate is not
     taken;
  3. a failed key check is improved with a hero point when one is left and
     ``improve_roll`` is on (E9: reroll, keep the better, 1–10 on the reroll adds 10);
  4. the fight awards one hero point with chance ``earn`` % (E-g20), up to
     ``point_cap`` (E-g21).

  Between sessions the hero rests (E17: fatigued and exhausted recover with an hour of
  rest) and keeps the points (``session_start`` carry; ``reset``: every session a new
  adventure starting with 1, E9). Fights within a session are back to back.
  State: hero points 0..cap after each session; threshold: points falling to ≤ X.
  Tallies (cumulative): ``passed`` (key checks passed), ``spent`` (hero points spent),
  ``exhausted`` (fights the hero ended exhausted).

- ``attrition`` (**E10–E15**, "Lethality outcomes"): a fighter through ``fights``
  consecutive duels against fresh equal opponents (:mod:`engines.campaign_attrition`),
  exact: the duel chain of :mod:`engines.systems.d20_degrees.combat` started with the fighter's
  hit points left (E-g2). Between fights the fighter rests ``rest_minutes`` minutes
  (E-g25) and recovers 1 hit point a minute (**E18**, seed "Personagens recuperam 1 PV
  por minuto de descanso"), never above the maximum; hero points, extra effort and the
  E15 recovery are fresh at each fight (the fighter's own settings; fatigue goes with an
  hour's rest, E17). With the default night's rest every fight starts unhurt.

Gaps (variants of :class:`Variants`): E3 as in :mod:`engines.systems.d20_degrees.checks`; E-g20
``earn`` is a parameter; E-g21 ``point_cap``; E-g22 the spending policy
(``effort``, ``cancel_fatigue``, ``improve_roll``); E-g23 ``recover_action``;
E-g24 ``session_start``; E-g25 ``rest_minutes`` (the time between two fights of a
series; default 480, a night).
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
from engines.config import KERNEL
from engines.errors import InputError
from engines.rng import Seed, bounded
from engines.systems.d20_degrees import checks as d20
from engines.variants import variant

SYSTEM = "d20_degrees"
EXHAUSTED = 2  # E8: fatigued (1), exhausted (2, −2 on checks), incapacitated (3)


@dataclass(frozen=True)
class Variants:
    """Rule variants of the ``d20_degrees`` campaign mechanics."""

    system: ClassVar[str] = SYSTEM
    natural_1_fails: bool = variant(True, rule="E3", doc="a natural 1 always fails")
    natural_20_degree: bool = variant(True, rule="E3", doc="a natural 20 counts one degree better")
    point_cap: int = variant(
        5,
        rule="E-g21",
        doc="the most hero points a hero holds (the rules text sets none)",
        choices=range(1, 21),
    )
    effort: bool = variant(
        True,
        rule="E-g22",
        doc="policy: use extra effort (+2, E8) on "
        "every fight's key check unless it would incapacitate",
    )
    cancel_fatigue: bool = variant(
        True,
        rule="E-g22",
        doc="policy: spend a hero point to "
        "cancel the fatigue of extra effort (E8) when one is held",
    )
    improve_roll: bool = variant(
        True,
        rule="E-g22",
        doc="policy: spend a hero point to improve a failed key check (E9) when one is held",
    )
    recover_action: bool = variant(
        False,
        rule="E-g23",
        doc="a fatigued hero spends the once-per-combat recovery (E15) on a fatigue level",
    )
    rest_minutes: int = variant(
        480,
        rule="E-g25",
        doc="attrition: minutes of rest "
        "between two fights (E18: 1 hit point a minute); 480 = a "
        "night",
    )
    session_start: str = variant(
        "carry",
        rule="E-g24",
        doc="points at a session's start: "
        "'carry' (one adventure over many sessions) or 'reset' to "
        "1 (each session a new adventure, E9)",
        choices=("carry", "reset"),
    )

    def check(self) -> None:
        check_int("variant rest_minutes", self.rest_minutes, 0, 100_000)

    def checks(self) -> d20.Variants:
        return d20.Variants(
            natural_1_fails=self.natural_1_fails, natural_20_degree=self.natural_20_degree
        )


DEFAULT = Variants()

#: The mechanic's parameters (:data:`MECHANICS` is built below, once the functions are
#: defined); ranges are those under the default variants.
_PARAMS = (
    Param("points", int, 1, "E9", "hero points at the start (E9: 1)", range=(0, 5)),
    Param("fights", int, 3, "E-g20", "fights per session", range=(0, 100)),
    Param("bonus", int, 8, "E1", "modifier of each fight's key check", range=(-20, 60)),
    Param("dc", int, 15, "E1", "DC of each fight's key check", range=(0, 80)),
    Param(
        "earn", int, 50, "E-g20", "chance (%) that a fight awards one hero point", range=(0, 100)
    ),
)


_int = check_int


def _params(params: dict, v: Variants) -> dict:
    known = {q.name: q.default for q in _PARAMS}
    for key in params:
        if key not in known:
            raise InputError(
                f"hero-points: unknown parameter {key!r}; known: {', '.join(sorted(known))}"
            )
    p = {**known, **params}
    return {
        "points": _int("points", p["points"], 0, v.point_cap),
        "fights": _int("fights", p["fights"], 0, 100),
        "bonus": _int("bonus", p["bonus"], -20, 60),
        "dc": _int("dc", p["dc"], 0, 80),
        "earn": _int("earn", p["earn"], 0, 100),
    }


def pass_table(bonus: int, dc: int, v: Variants) -> np.ndarray:
    """``[4, 2]``: P(the key check passes) by modifier shift (index 0: −2, 1: 0, 2: +2,
    3: unused) and roll mode (0 plain, 1 hero-point improve): E1–E3, E9."""
    out = np.zeros((4, 2))
    for i, shift in enumerate((-2, 0, 2)):
        for j, mode in enumerate(("roll", "hero_point")):
            out[i, j] = d20.p_degree(bonus + shift, dc, 1, mode, v.checks())
    return out


def _fight(points: int, fatigue: int, v: Variants, table: np.ndarray, earn: float):
    """Outcomes of one fight from (points, fatigue): list of (p, points, fatigue, passed,
    spent) (E8, E9, E15, E-g20..E-g23)."""
    if v.recover_action and fatigue > 0:
        fatigue -= 1  # E15
    spent = 0
    use = False
    if v.effort:
        if v.cancel_fatigue and points > 0:
            use, points, spent = True, points - 1, 1
        elif fatigue + 1 <= EXHAUSTED:
            use, fatigue = True, fatigue + 1
    shift = (2 if use else 0) - (2 if fatigue >= EXHAUSTED else 0)
    row = table[{-2: 0, 0: 1, 2: 2}[shift]]
    outs = []
    p_pass = row[0]
    branches = [(p_pass, points, 1, spent)]
    if v.improve_roll and points > 0:
        # E9: the improve roll only follows a failure; P(fail then pass) = P(improved
        # pass) − P(plain pass), since the better of the two is kept
        branches.append((row[1] - p_pass, points - 1, 1, spent + 1))
        branches.append((1 - row[1], points - 1, 0, spent + 1))
    else:
        branches.append((1 - p_pass, points, 0, spent))
    for p, pts, passed, sp in branches:
        if p <= 0:
            continue
        outs.append((p * earn, min(v.point_cap, pts + 1), fatigue, passed, sp))
        outs.append((p * (1 - earn), pts, fatigue, passed, sp))
    return outs


def session_matrix(v: Variants, **params):
    """One session over hero points 0..cap: ``(P, passed, spent, exhausted)`` per start."""
    p = _params(params, v)
    cap = v.point_cap
    table = pass_table(p["bonus"], p["dc"], v)
    earn = p["earn"] / 100
    n = (cap + 1) * 3  # joint (points, fatigue 0..2)
    F = np.zeros((n, n))
    g_pass, g_spent, g_exh = np.zeros(n), np.zeros(n), np.zeros(n)
    for pts in range(cap + 1):
        for fat in range(3):
            i = pts * 3 + fat
            for q, p2, f2, passed, sp in _fight(pts, fat, v, table, earn):
                F[i, p2 * 3 + f2] += q
                g_pass[i] += q * passed
                g_spent[i] += q * sp
                g_exh[i] += q * (f2 >= EXHAUSTED)
    P = np.zeros((cap + 1, cap + 1))
    tallies = np.zeros((3, cap + 1))
    for start in range(cap + 1):
        x = np.zeros(n)
        x[(1 if v.session_start == "reset" else start) * 3] = 1.0
        for _ in range(p["fights"]):
            tallies[:, start] += [x @ g_pass, x @ g_spent, x @ g_exh]
            x = x @ F
        P[start] = x.reshape(cap + 1, 3).sum(axis=1)  # E17: the rest clears fatigue
    return P, tallies


def hero_points_exact(
    sessions: int = 10, threshold: int | None = None, variants: Variants | None = None, **params
) -> CampaignStats:
    """Exact hero-point chain over sessions (E8, E9, E15, E-g20..E-g24); ``passage``: the
    session the points first fall to ≤ ``threshold``."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    p = _params(params, v)
    threshold = None if threshold is None else _int("threshold", threshold, 0, v.point_cap)
    P, tallies = session_matrix(v, **p)
    values = np.arange(v.point_cap + 1)
    x0 = np.zeros(values.size)
    x0[p["points"]] = 1.0
    dist = evolve(P, x0, sessions)
    passage = (
        None
        if threshold is None
        else first_passage(P, x0, hit_mask(values, threshold, "down").astype(bool), sessions)
    )
    extra = {
        name: expected_tallies(dist, g)
        for name, g in zip(("passed", "spent", "exhausted"), tallies, strict=True)
    }
    return CampaignStats(
        system=SYSTEM,
        mechanic="hero-points",
        values=values,
        dist=dist,
        passage=passage,
        threshold=threshold,
        extra=extra,
        notes=p,
    )


@njit(**KERNEL)
def _hero_kernel(
    first,
    last,
    start,
    fights,
    bonus,
    dc,
    earn,
    cap,
    nat1,
    nat20,
    effort,
    cancel,
    improve,
    recover,
    reset,
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
            pts = start
            dist[c, 0, pts] += 1
            reached = 0 if hit[pts] else -1
            n_pass = 0
            n_spent = 0
            n_exh = 0
            for k in range(1, sessions + 1):
                fat = 0  # E17: rested between sessions
                if reset:
                    pts = 1
                for _f in range(fights):
                    if recover and fat > 0:
                        fat -= 1
                    use = False
                    if effort:
                        if cancel and pts > 0:
                            use = True
                            pts -= 1
                            n_spent += 1
                        elif fat + 1 <= 2:
                            use = True
                            fat += 1
                    mod = bonus + (2 if use else 0) - (2 if fat >= 2 else 0)
                    r = bounded(s, 20) + 1
                    ok = _passes(r, r, mod, dc, nat1, nat20)
                    if not ok and improve and pts > 0:
                        pts -= 1
                        n_spent += 1
                        r2 = bounded(s, 20) + 1
                        v2 = r2 + 10 if r2 <= 10 else r2  # E9
                        if v2 > r:
                            ok = _passes(v2, 20 if r2 == 20 else 0, mod, dc, nat1, nat20)
                    if ok:
                        n_pass += 1
                    if bounded(s, 100) < earn:
                        pts = min(cap, pts + 1)
                    if fat >= 2:
                        n_exh += 1
                dist[c, k, pts] += 1
                if reached < 0 and hit[pts]:
                    reached = k
                ext[c, 0, k] += n_pass
                ext_sq[c, 0, k] += n_pass * n_pass
                ext[c, 1, k] += n_spent
                ext_sq[c, 1, k] += n_spent * n_spent
                ext[c, 2, k] += n_exh
                ext_sq[c, 2, k] += n_exh * n_exh
            passage[c, reached if reached >= 0 else sessions + 1] += 1


@njit(cache=True, nogil=True, inline="always")
def _passes(value, nat, mod, dc, nat1, nat20):
    """E1–E3: does a d20 reading ``value`` (natural ``nat``) + ``mod`` reach ``dc``?"""
    total = value + mod + (5 if nat20 and nat == 20 else 0)
    if nat1 and nat == 1:
        return False
    return total >= dc


def hero_points_monte_carlo(
    sessions: int = 10,
    trials: int = 100_000,
    seed: Seed = None,
    threshold: int | None = None,
    variants: Variants | None = None,
    **params,
) -> CampaignStats:
    """Monte Carlo of :func:`hero_points_exact`, one d20 at a time (E8, E9, E15)."""
    v = campaign_variants(Variants, variants)
    sessions = check_sessions(sessions)
    p = _params(params, v)
    threshold = None if threshold is None else _int("threshold", threshold, 0, v.point_cap)
    values = np.arange(v.point_cap + 1)
    ints = [np.int64(p[k]) for k in ("points", "fights", "bonus", "dc", "earn")]
    args = (
        *ints,
        np.int64(v.point_cap),
        v.natural_1_fails,
        v.natural_20_degree,
        v.effort,
        v.cancel_fatigue,
        v.improve_roll,
        v.recover_action,
        v.session_start == "reset",
    )
    return run(
        _hero_kernel,
        args,
        system=SYSTEM,
        mechanic="hero-points",
        values=values,
        sessions=sessions,
        trials=trials,
        seed=seed,
        threshold=threshold,
        hit=hit_mask(values, threshold, "down"),
        tallies=("passed", "spent", "exhausted"),
        notes=p,
    )


#: Mechanic name -> :class:`engines.campaign.Mechanic`.
MECHANICS = {
    "hero-points": Mechanic(
        name="hero-points",
        system=SYSTEM,
        rules="E8, E9, E15, E-g20..E-g24",
        help="hero points earned and spent over fights; extra effort fatigue",
        state="hero points",
        direction="down",
        params=_PARAMS,
        extra={
            "passed": "expected key checks passed so far",
            "spent": "expected hero points spent so far",
            "exhausted": "expected fights fought exhausted so far",
        },
        exact=hero_points_exact,
        monte_carlo=hero_points_monte_carlo,
        variants=Variants,
    ),
}


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


# ---------------------------------------------------------------- attrition


def fight_from(fighter, opponent, damage: int, combat=None) -> tuple[np.ndarray, np.ndarray]:
    """One exact duel (E10–E16) of ``fighter`` (side 0) started ``damage`` hit points down
    against a fresh ``opponent``: ``(end, fates)`` as in
    :func:`engines.campaign_attrition.reachable` (``end`` by damage taken)."""
    from engines.systems.d20_degrees import combat as cb

    hp = fighter.hit_points
    end_hp = np.zeros(hp + 1)
    st = cb.duel_exact(fighter, opponent, combat, start_hp=hp - damage, end_a=end_hp)
    return end_hp[::-1][:hp].copy(), st.loser_fate[1].copy()  # damage d = hp - h


def rest(damage: int, minutes: int) -> int:
    """E18: damage left after ``minutes`` of rest (1 hit point a minute)."""
    return max(damage - minutes, 0)


MECHANICS["attrition"] = attrition_mechanic(
    system=SYSTEM,
    variants=Variants,
    combat="engines.systems.d20_degrees.combat",
    combatant="Fighter",
    fight=fight_from,
    health=lambda f: f.hit_points,
    rest=lambda v, _opponent, _i, j: rest(j, v.rest_minutes),  # E18, E-g25
    notes=("rest_minutes",),
    rules="E10-E16, E18, E-g25",
    state="hit points left",
    help="P(alive and able after k consecutive duels against fresh equal opponents), "
    "with a rest between fights (E18, E-g25; one session = one fight)",
)
attrition_exact = MECHANICS["attrition"].exact
attrition_monte_carlo = MECHANICS["attrition"].monte_carlo
