"""Attrition: one fighter through ``k`` consecutive fights, with rest between them.

Shared by the ``attrition`` mechanic of every ``engines/campaign_<system>.py`` module
(RULES.md "Lethality outcomes" and each system's healing rule). The followed fighter
(side 0) meets a fresh, unhurt opponent in every fight (a "session" is one fight). A
fight starts from the fighter's damage after the last rest and ends with it able to act
(it won, or the round cap stopped the fight) with some damage, or fallen: dead, dying
or out after the aftermath of the combat module's variants (default ``leave``). A fallen
fighter leaves the series (the three fallen states are absorbing); an able one rests,
and the system's healing map gives its damage at the next fight.

State values (``CampaignStats.values``): an able fighter's **health left** (its track
minus the damage it carries, ≥ 1), then ``0`` = out, ``-1`` = dying, ``-2`` = dead; the
threshold (direction "down") ``0`` is reached at the first fight the fighter falls.
Extras: ``p_able``, ``p_out``, ``p_dying``, ``p_dead`` per fight (P(alive and able after
``k`` fights) is ``p_able[k]``).

Exact: each system's exact duel chain started from a hurt side 0 gives, per start
state ``i``, the fight's end distribution (able with damage ``j``, or a fate); composed
with the rest map ``heal(i, j)`` it is one row of the transition matrix. Only the states
reachable from the start are solved (one exact duel each).

Monte Carlo (:func:`monte_carlo`): each system's Monte Carlo duel kernel started with
the fighter hurt (a separate kernel entry that runs the same fight code and also counts
the fighter's end), fighters followed fight by fight; independent of the exact chain
but for the rest map, which both share.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .campaign import CampaignStats, Param, check_int, check_sessions, evolve, first_passage

#: Values of the absorbing fallen states (``FATES`` order dead, dying, out is reversed).
OUT, DYING, DEAD = 0, -1, -2
FALLEN = ("out", "dying", "dead")
EXTRAS = {"p_able": "P(alive and able after the fight)",
          "p_out": "P(out: fallen, stable)", "p_dying": "P(dying)", "p_dead": "P(dead)"}
MAX_FIGHTS = 100
#: The parameters of every attrition mechanic: archetype names, turned into the system's
#: combatants by the analysis layer (``Mechanic.combatants``).
ATTRITION_PARAMS = (
    Param("fighter", str, "", "Lethality outcomes",
          "archetype followed through the fights (default: the ladder's competent)"),
    Param("opponent", str, "", "Lethality outcomes",
          "archetype of every fresh opponent (default: the fighter's equal)"),
)


def check_fights(fights) -> int:
    """The number of fights (sessions) as an int in ``0..MAX_FIGHTS``."""
    return check_int("fights", fights, 0, MAX_FIGHTS)


def reachable(start: int, row: Callable[[int], tuple[np.ndarray, np.ndarray]],
              rest: Callable[[int, int], int], size: int) -> dict[int, np.ndarray]:
    """Transition rows of the able states reachable from ``start`` (each row computed
    once).

    ``row(i)`` -> ``(end, fates)``: ``end[j]`` = P(the fight started in able state ``i``
    ends with the fighter able in damage state ``j``), ``fates`` = P(dead, dying, out)
    (:data:`engines.fight.FATES` order). ``rest(i, j)``: the able state after the rest of
    a fighter that started the fight in ``i`` and ended in ``j`` (every system's rest is
    a fixed amount of healing). Returns ``{i: row over size + 3 states}`` (able states,
    then out, dying, dead).
    """
    rows: dict[int, np.ndarray] = {}
    todo = [start]
    while todo:
        i = todo.pop()
        if i in rows:
            continue
        end, fates = row(i)
        r = np.zeros(size + 3)
        for j in np.nonzero(end > 0)[0]:
            r[rest(i, int(j))] += end[j]
        r[size] = fates[2]
        r[size + 1] = fates[1]
        r[size + 2] = fates[0]
        rows[i] = r
        todo += [int(j) for j in np.nonzero(r[:size] > 0)[0] if int(j) not in rows]
    return rows


def matrix(rows: dict[int, np.ndarray], size: int) -> np.ndarray:
    """The full transition matrix (unreachable able states and the fallen ones stay put);
    each row renormalised against float round-off (total mass 1 ± 1e-9 is checked)."""
    P = np.eye(size + 3)
    for i, r in rows.items():
        total = r.sum()
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"attrition row {i} sums to {total!r}")
        P[i] = r / total
    return P


def values(health: int) -> np.ndarray:
    """State values: health left ``health - d`` of damage states ``d = 0..health - 1``,
    then out (0), dying (−1), dead (−2)."""
    return np.concatenate([health - np.arange(health), [OUT, DYING, DEAD]]).astype(np.int64)


def _extras(dist: np.ndarray, size: int) -> dict[str, np.ndarray]:
    return {"p_able": dist[:, :size].sum(axis=1), "p_out": dist[:, size],
            "p_dying": dist[:, size + 1], "p_dead": dist[:, size + 2]}


def stats(system: str, P: np.ndarray, size: int, health: int, start: int, fights: int,
          threshold: int | None, notes: dict) -> CampaignStats:
    """Exact :class:`CampaignStats` of the chain ``P`` from able state ``start``."""
    x0 = np.zeros(size + 3)
    x0[start] = 1.0
    dist = evolve(P, x0, fights)
    vals = values(health)
    passage = None
    if threshold is not None:
        passage = first_passage(P, x0, vals <= threshold, fights)
    return CampaignStats(system, "attrition", vals, dist, passage, threshold,
                         _extras(dist, size), notes=notes)


def exact(system: str, row: Callable[[int], tuple[np.ndarray, np.ndarray]],
          rest: Callable[[int, int], int], size: int, fights: int, threshold: int | None,
          notes: dict) -> CampaignStats:
    """Exact attrition of a fighter starting unhurt: the chain of the able states
    :func:`reachable` from 0 (``row`` and ``rest`` as there), evolved by :func:`stats`."""
    P = matrix(reachable(0, row, rest, size) if fights else {}, size)
    return stats(system, P, size, size, 0, fights, threshold, notes)


def monte_carlo(system: str, fight: Callable[[int, int, object], np.ndarray],
                rest: Callable[[int, int], int], size: int, health: int, start: int,
                fights: int, trials: int, seed, threshold: int | None,
                notes: dict) -> CampaignStats:
    """``trials`` fighters followed through ``fights`` fights by the system's Monte Carlo
    duel kernel started hurt: ``fight(i, n, seed)`` -> counts of ``n`` fights from able
    state ``i`` (``[size + 4]``: able end states, then standing (unused), dead, dying,
    out). Fighters are exchangeable, so each fight runs once per (state, reached-yet)
    group with a seed spawned from ``seed`` by (fight, group, state): reproducible, and
    independent of the thread count as the kernels are. The rest is ``rest`` (as in
    :func:`reachable`)."""
    from .campaign import check_int as _ci
    from .rng import normalize_seed

    trials = _ci("trials", trials, 1, 10**9)
    root = normalize_seed(seed)
    vals = values(health)
    n = size + 3
    hit = vals <= threshold if threshold is not None else np.zeros(n, bool)
    cnt = np.zeros((2, n), dtype=np.int64)  # [reached yet, state]
    cnt[int(hit[start]), start] = trials
    dist = np.zeros((fights + 1, n), dtype=np.int64)
    dist[0] = cnt.sum(axis=0)
    passage = np.zeros(fights + 2, dtype=np.int64)
    passage[0] = cnt[1].sum()
    for k in range(1, fights + 1):
        new = np.zeros_like(cnt)
        new[:, size:] = cnt[:, size:]  # the fallen stay fallen
        for flag in (0, 1):
            for i in np.nonzero(cnt[flag, :size])[0]:
                i = int(i)
                ss = np.random.SeedSequence(root.entropy,
                                            spawn_key=(*root.spawn_key, k, flag, i))
                end = fight(i, int(cnt[flag, i]), ss)
                for j in np.nonzero(end[:size])[0]:
                    new[flag, rest(i, int(j))] += end[j]
                new[flag, size] += end[size + 3]      # out
                new[flag, size + 1] += end[size + 2]  # dying
                new[flag, size + 2] += end[size + 1]  # dead
        if threshold is not None:  # first reached after fight k
            moved = new[0] * hit
            passage[k] = moved.sum()
            new[1] += moved
            new[0] -= moved
        cnt = new
        dist[k] = cnt.sum(axis=0)
    passage[-1] = cnt[0].sum()
    extra = {}
    for name, p in _extras(dist / trials, size).items():
        extra[name] = p
        extra[name + "_se"] = np.sqrt(p * (1 - p) / trials)
    return CampaignStats(system, "attrition", vals, dist,
                         passage if threshold is not None else None, threshold, extra,
                         trials=int(trials), notes=notes)


def pair(system: str, fighter, opponent, cls: type):
    """The fighter and its opponent (None: the fighter's equal) as ``cls`` objects."""
    from .errors import InputError

    if not isinstance(fighter, cls):
        raise InputError(f"fighter: expected a {system} {cls.__name__} (an archetype), got "
                         f"{type(fighter).__name__}")
    if opponent is None:
        opponent = fighter
    if not isinstance(opponent, cls):
        raise InputError(f"opponent: expected a {system} {cls.__name__} (an archetype), got "
                         f"{type(opponent).__name__}")
    return fighter, opponent


def check_start(fights, threshold, health: int):
    fights = check_fights(check_sessions(fights))
    if threshold is not None:
        threshold = check_int("threshold", threshold, DEAD, health)
    return fights, threshold
