"""Attrition: one fighter through ``k`` consecutive fights, with rest between them.

Every system's ``attrition`` mechanic is made by :func:`attrition_mechanic`, the public
factory a plug-in calls too, from what differs between systems: its combat module, the
health track, the exact fight and the rest (RULES.md "Lethality outcomes" and each
system's healing rule). The followed fighter (side 0) meets a fresh, unhurt opponent in
every fight (a "session" is one fight). A fight starts from the fighter's damage after
the last rest and ends with it able to act (it won, or the round cap stopped the fight)
with some damage, or fallen: dead, dying or out after the aftermath of the combat
module's variants (default ``leave``). A fallen fighter leaves the series (the three
fallen states are absorbing); an able one rests, and the system's healing map gives its
damage at the next fight.

State values (``CampaignStats.values``): an able fighter's **health left** (its track
minus the damage it carries, ≥ 1), then ``0`` = out, ``-1`` = dying, ``-2`` = dead; the
threshold (direction "down") ``0`` is reached at the first fight the fighter falls.
Extras: ``p_able``, ``p_out``, ``p_dying``, ``p_dead`` per fight (P(alive and able after
``k`` fights) is ``p_able[k]``).

Exact: the system's exact fight started from a hurt side 0 (the factory's ``fight``)
gives, per start state ``i``, the fight's end distribution (able with damage ``j``, or a
fate); composed with the rest map ``heal(i, j)`` it is one row of the transition matrix.
Only the states reachable from the start are solved (one exact fight each).

Monte Carlo (:func:`monte_carlo`): fighters followed fight by fight, each group of
fighters in the same state running one batch of fights. The fight is the combat module's
optional hook ``duel_mc_end`` when it has one: its Monte Carlo duel kernel started with
the fighter hurt (the built-ins' kernels count the fighter's end in the same run), so the
Monte Carlo is independent of the exact chain but for the rest map, which both share.
A combat module without it gets the generic fallback: each batch is drawn (a
multinomial, from the same spawned seed) from the exact fight's end distribution, and
the notes say so (``"fight": "drawn from the exact fight"``): the composition of fights
and rests is then simulated, the fight itself is the exact chain's.

The contract a plug-in fills (the example plug-in's ``pbta_2d6/campaign.py`` does):

- ``combat`` names a module with the combat contract (``Combatant``, ``duel_exact``,
  ``duel_mc`` …; ``examples/plugin_system/README.md``); optionally ``duel_mc_end(a, b,
  start_damage, trials, seed=None, variants=None, round_cap=50)`` → int64 counts of
  ``a``'s end, ``[health + 4]``: able with ``d`` damage at ``d < health``, then
  standing (unused, 0), dead, dying, out;
- ``fight(fighter, opponent, damage, combat_variants)`` → ``(end, fates)``: the exact
  fight of ``fighter`` started with ``damage`` against a fresh ``opponent``;
  ``end[d]`` = P(it ends able with ``d`` damage), ``d < health``, ``fates`` = P(dead,
  dying, out) (:data:`engines.fight.FATES` order); together they sum to 1;
- ``health(fighter)``: the number of able damage states; ``rest(v, opponent, i, j)``:
  the damage at the next fight after a fight started with ``i`` and ended able with
  ``j`` (``0 <= result < health``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import NamedTuple

import numpy as np

from .campaign import (
    CampaignStats,
    Mechanic,
    Param,
    campaign_variants,
    check_int,
    check_sessions,
    evolve,
    first_passage,
)
from .rng import Seed

__all__ = [
    "ATTRITION_PARAMS",
    "DEAD",
    "DYING",
    "EXTRAS",
    "FALLEN",
    "MAX_FIGHTS",
    "OUT",
    "attrition_mechanic",
    "check_both",
    "check_fights",
    "check_start",
    "drawn_fight",
    "exact",
    "matrix",
    "monte_carlo",
    "pair",
    "reachable",
    "stats",
    "values",
]

#: Values of the absorbing fallen states (``FATES`` order dead, dying, out is reversed).
OUT, DYING, DEAD = 0, -1, -2
FALLEN = ("out", "dying", "dead")
EXTRAS = {
    "p_able": "P(alive and able after the fight)",
    "p_out": "P(out: fallen, stable)",
    "p_dying": "P(dying)",
    "p_dead": "P(dead)",
}
MAX_FIGHTS = 100
#: The parameters of every attrition mechanic: archetype names, turned into the system's
#: combatants by the analysis layer (``Mechanic.combatants``).
ATTRITION_PARAMS = (
    Param(
        "fighter",
        str,
        "",
        "Lethality outcomes",
        "archetype followed through the fights (default: the ladder's competent)",
    ),
    Param(
        "opponent",
        str,
        "",
        "Lethality outcomes",
        "archetype of every fresh opponent (default: the fighter's equal)",
    ),
)


def check_fights(fights) -> int:
    """The number of fights (sessions) as an int in ``0..MAX_FIGHTS``."""
    return check_int("fights", fights, 0, MAX_FIGHTS)


def reachable(
    start: int,
    row: Callable[[int], tuple[np.ndarray, np.ndarray]],
    rest: Callable[[int, int], int],
    size: int,
) -> dict[int, np.ndarray]:
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
    return {
        "p_able": dist[:, :size].sum(axis=1),
        "p_out": dist[:, size],
        "p_dying": dist[:, size + 1],
        "p_dead": dist[:, size + 2],
    }


def stats(
    system: str,
    P: np.ndarray,
    size: int,
    health: int,
    start: int,
    fights: int,
    threshold: int | None,
    notes: dict,
) -> CampaignStats:
    """Exact :class:`CampaignStats` of the chain ``P`` from able state ``start``."""
    x0 = np.zeros(size + 3)
    x0[start] = 1.0
    dist = evolve(P, x0, fights)
    vals = values(health)
    passage = None
    if threshold is not None:
        passage = first_passage(P, x0, vals <= threshold, fights)
    return CampaignStats(
        system, "attrition", vals, dist, passage, threshold, _extras(dist, size), notes=notes
    )


def exact(
    system: str,
    row: Callable[[int], tuple[np.ndarray, np.ndarray]],
    rest: Callable[[int, int], int],
    size: int,
    fights: int,
    threshold: int | None,
    notes: dict,
) -> CampaignStats:
    """Exact attrition of a fighter starting unhurt: the chain of the able states
    :func:`reachable` from 0 (``row`` and ``rest`` as there), evolved by :func:`stats`."""
    P = matrix(reachable(0, row, rest, size) if fights else {}, size)
    return stats(system, P, size, size, 0, fights, threshold, notes)


def monte_carlo(
    system: str,
    fight: Callable[[int, int, object], np.ndarray],
    rest: Callable[[int, int], int],
    size: int,
    health: int,
    start: int,
    fights: int,
    trials: int,
    seed,
    threshold: int | None,
    notes: dict,
) -> CampaignStats:
    """``trials`` fighters followed through ``fights`` fights by the system's Monte Carlo
    duel kernel started hurt: ``fight(i, n, seed)`` -> counts of ``n`` fights from able
    state ``i`` (``[size + 4]``: able end states, then standing (unused), dead, dying,
    out). Fighters are exchangeable, so each fight runs once per (state, reached-yet)
    group with a seed spawned from ``seed`` by (fight, group, state): reproducible, and
    independent of the thread count as the kernels are. The rest is ``rest`` (as in
    :func:`reachable`)."""
    from .rng import normalize_seed

    trials = check_int("trials", trials, 1, 10**9)
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
                ss = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, k, flag, i))
                end = fight(i, int(cnt[flag, i]), ss)
                for j in np.nonzero(end[:size])[0]:
                    new[flag, rest(i, int(j))] += end[j]
                new[flag, size] += end[size + 3]  # out
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
    return CampaignStats(
        system,
        "attrition",
        vals,
        dist,
        passage if threshold is not None else None,
        threshold,
        extra,
        trials=int(trials),
        notes=notes,
    )


def drawn_fight(
    row: Callable[[int], tuple[np.ndarray, np.ndarray]],
) -> Callable[[int, int, object], np.ndarray]:
    """The generic Monte Carlo fight of :func:`monte_carlo` for a combat module without
    ``duel_mc_end``: ``n`` fights from able state ``i`` drawn at once (one multinomial,
    from a generator seeded with the spawned ``seed``) from ``row(i)`` = ``(end, fates)``,
    the exact fight (as in :func:`reachable`; each row computed once). The counts have
    :func:`monte_carlo`'s layout: able end states, standing (0), dead, dying, out."""
    rows: dict[int, np.ndarray] = {}

    def fight(i: int, n: int, seed) -> np.ndarray:
        if i not in rows:
            end, fates = row(i)
            p = np.concatenate([np.asarray(end, float), [0.0], np.asarray(fates, float)])
            total = p.sum()
            if abs(total - 1.0) > 1e-9:
                raise ValueError(f"attrition fight from state {i} sums to {total!r}")
            rows[i] = np.clip(p / total, 0.0, None)
        return np.random.default_rng(seed).multinomial(n, rows[i]).astype(np.int64)

    return fight


def pair(system: str, fighter, opponent, cls: type):
    """The fighter and its opponent (None: the fighter's equal) as ``cls`` objects."""
    from .errors import InputError

    if not isinstance(fighter, cls):
        raise InputError(
            f"fighter: expected a {system} {cls.__name__} (an archetype), got "
            f"{type(fighter).__name__}"
        )
    if opponent is None:
        opponent = fighter
    if not isinstance(opponent, cls):
        raise InputError(
            f"opponent: expected a {system} {cls.__name__} (an archetype), got "
            f"{type(opponent).__name__}"
        )
    return fighter, opponent


def check_start(fights, threshold, health: int):
    fights = check_fights(check_sessions(fights))
    if threshold is not None:
        threshold = check_int("threshold", threshold, DEAD, health)
    return fights, threshold


class _Run(NamedTuple):
    """One attrition run's checked inputs (:func:`attrition_mechanic`)."""

    module: ModuleType
    fighter: object
    opponent: object
    size: int
    fights: int
    threshold: int | None
    combat: object
    rest: Callable[[int, int], int]
    notes: dict


def check_both(fighter, opponent) -> None:
    """Both combatants' own ``check()`` (a ``check`` for :func:`attrition_mechanic`)."""
    fighter.check()
    opponent.check()


def attrition_mechanic(
    *,
    system: str,
    variants: type,
    combat: str,
    fight: Callable[[object, object, int, object], tuple[np.ndarray, np.ndarray]],
    health: Callable[[object], int],
    rest: Callable[[object, object, int, int], int],
    notes: Sequence[str],
    rules: str,
    state: str,
    help: str,
    combatant: str = "Combatant",
    check: Callable[[object, object], None] | None = None,
    combat_of: Callable[[object], object] | None = None,
) -> Mechanic:
    """The ``attrition`` :class:`~engines.campaign.Mechanic` of one system (the public
    factory: every built-in and a plug-in make theirs with it; see the module docstring
    for the contract).

    - ``system``: the system id; ``variants``: its campaign ``Variants`` dataclass;
    - ``combat``: the import name of its combat module, loaded when a run starts; the
      module's ``combatant`` class (default ``Combatant``) is the type of both sides, and
      its optional ``duel_mc_end`` the Monte Carlo fight started hurt (without it the
      Monte Carlo draws each fight from ``fight``: :func:`drawn_fight`);
    - ``fight(fighter, opponent, damage, combat_variants)`` -> ``(end, fates)`` of one
      exact fight started with ``damage`` (as in :func:`reachable`);
    - ``health(fighter)``: the fighter's track, the number of able states;
    - ``rest(v, opponent, i, j)``: the damage at the next fight of a fighter that started
      the fight with ``i`` and ended it able with ``j``, under campaign variants ``v``;
    - ``notes``: the names of the variants the rest reads, recorded in the notes after
      ``fighter`` and ``opponent``;
    - ``rules``, ``state``, ``help``: the mechanic's rule ids, state label and help line;
    - ``check(fighter, opponent)``: what the system refuses in a pair (None: nothing
      beyond the type; :func:`check_both` runs the combatants' own ``check()``);
    - ``combat_of(v)``: the combat variants the campaign variants imply (None: the
      combat module's defaults).

    The mechanic's ``exact`` and ``monte_carlo`` also take ``combat_variants``: the
    combat module's variants for every fight, instead of those ``combat_of`` gives.
    """

    def start(fighter, opponent, sessions, threshold, given, combat_variants) -> _Run:
        module = importlib.import_module(combat)
        fighter, opponent = pair(system, fighter, opponent, getattr(module, combatant))
        if check is not None:
            check(fighter, opponent)
        v = campaign_variants(variants, given)
        size = health(fighter)
        fights, threshold = check_start(sessions, threshold, size)
        if combat_variants is None and combat_of is not None:
            combat_variants = combat_of(v)
        return _Run(
            module,
            fighter,
            opponent,
            size,
            fights,
            threshold,
            combat_variants,
            lambda i, j: rest(v, opponent, i, j),
            {
                "fighter": fighter.name,
                "opponent": opponent.name,
                **{name: getattr(v, name) for name in notes},
            },
        )

    def attrition_exact(
        fighter=None,
        opponent=None,
        sessions: int = 5,
        threshold: int | None = 0,
        variants=None,
        combat_variants=None,
    ) -> CampaignStats:
        r = start(fighter, opponent, sessions, threshold, variants, combat_variants)
        return exact(
            system,
            lambda i: fight(r.fighter, r.opponent, i, r.combat),
            r.rest,
            r.size,
            r.fights,
            r.threshold,
            r.notes,
        )

    def attrition_monte_carlo(
        fighter=None,
        opponent=None,
        sessions: int = 5,
        trials: int = 10_000,
        seed: Seed = None,
        threshold: int | None = 0,
        variants=None,
        combat_variants=None,
    ) -> CampaignStats:
        r = start(fighter, opponent, sessions, threshold, variants, combat_variants)
        given = () if r.combat is None else (r.combat,)
        end = getattr(r.module, "duel_mc_end", None)
        notes = r.notes
        if end is None:  # the generic fallback: fights drawn from the exact chain
            one = drawn_fight(lambda i: fight(r.fighter, r.opponent, i, r.combat))
            notes = {**notes, "fight": "drawn from the exact fight"}
        else:

            def one(i, n, ss):
                return end(r.fighter, r.opponent, i, n, ss, *given)

        return monte_carlo(
            system, one, r.rest, r.size, r.size, 0, r.fights, trials, seed, r.threshold, notes
        )

    attrition_exact.__doc__ = (
        f"Attrition ({rules}), exact: {state} after each fight and the rest "
        f"(:mod:`engines.campaign_attrition`, the duel chain of :mod:`{combat}`)."
    )
    attrition_monte_carlo.__doc__ = (
        f"Attrition ({rules}), Monte Carlo: the duel kernel of :mod:`{combat}` started "
        f"hurt (``duel_mc_end``; without it each fight drawn from the exact one), the "
        f"same rest."
    )
    for f in (attrition_exact, attrition_monte_carlo):
        f.__module__ = variants.__module__
        f.__qualname__ = f.__name__
    return Mechanic(
        name="attrition",
        system=system,
        rules=rules,
        state=state,
        direction="down",
        help=help,
        params=ATTRITION_PARAMS,
        extra=dict(EXTRAS),
        threshold_default=0,
        combatants=("fighter", "opponent"),
        exact=attrition_exact,
        monte_carlo=attrition_monte_carlo,
        variants=variants,
    )
