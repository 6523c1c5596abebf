"""Machinery shared by the two d10-pool combat engines (``dice_pool_7``, ``dice_pool_6``).

Three pieces, all system-neutral:

- :func:`run_mc` drives a Monte Carlo fight kernel: it splits the trials in chunks (the
  split depends on the trial count only), gives each chunk its own generator state and
  its own flat histogram, runs the kernel once and unpacks the merged histogram into a
  :class:`~engines.fight.FightStats`. Every fight kernel writes the same flat layout
  (:func:`layout`).
- :class:`DuelChain` solves a 1-vs-1 fight exactly as an absorbing Markov chain. The
  state is a dictionary ``key -> plane``: ``plane[d0, d1]`` is the probability that
  side 0 has taken ``d0`` and side 1 ``d1`` damage (both still able to act) and ``key``
  holds the few other things that matter (willpower left, flags). An attack is a
  linear map on the target's damage axis (:class:`AttackOp`): a transition matrix for
  the damage that keeps the target up, and absorption vectors for the damage that puts
  it down (alive or dead).
- the input checks and the ``fight_mc`` driver of both engines (:func:`run_fight`).

Lethality outcomes (RULES.md "Lethality outcomes"): a kernel ends each fight with a fate
per combatant (:data:`STANDING`, :data:`DEAD`, :data:`DYING`, :data:`OUT`) after the
aftermath and books it with :func:`book_fates`. The aftermath draws its random numbers
from a second generator state per chunk (rows ``n_chunks..2·n_chunks - 1`` of the states
handed to the kernel), so the fights themselves draw exactly the same numbers under every
aftermath policy. :meth:`DuelChain.aftermath` fills the same histograms exactly from the
loser's fallen state at the end of the fight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from .blocks import run_blocks
from .config import INLINE
from .errors import InputError
from .fight import DAMAGE_BINS, HIST_FIELDS, FightStats, check_round_cap, check_side
from .rng import Seed, chunk_states, chunk_trials, plan_chunks

__all__ = [
    "DEAD",
    "DYING",
    "KERNEL_OFFSETS",
    "OUT",
    "STANDING",
    "AttackOp",
    "DuelChain",
    "attack_op",
    "book_fates",
    "check_variants",
    "finish_chain",
    "finish_duel",
    "layout",
    "mix",
    "run_fight",
    "run_mc",
    "run_mc_end",
    "standing_from_rounds",
]


def layout(round_cap: int) -> dict[str, int]:
    """Offsets of each histogram in a kernel's flat per-chunk output row.

    ``standing`` counts combatants still able to act after each round *while the fight
    goes on*; ``tail`` counts the final standing at the round the fight ended, and is
    carried forward to every later round (a finished fight keeps its final state).
    """
    rows = round_cap + 1
    off = {"outcome": 0, "rounds": 3}
    off["loser_dead"] = off["rounds"] + 3 * rows
    off["standing"] = off["loser_dead"] + 2
    off["tail"] = off["standing"] + 2 * rows
    off["deaths"] = off["tail"] + 2 * rows
    off["hits"] = off["deaths"] + 2
    off["loser_fate"] = off["hits"] + DAMAGE_BINS
    off["loser_fate_sq"] = off["loser_fate"] + 6
    off["fates"] = off["loser_fate_sq"] + 6
    off["fates_sq"] = off["fates"] + 8
    off["dead_any"] = off["fates_sq"] + 8
    off["deaths_sq"] = off["dead_any"] + 1
    off["size"] = off["deaths_sq"] + 1
    return off


#: Order of the offsets handed to a kernel.
KERNEL_OFFSETS = (
    "rounds",
    "standing",
    "tail",
    "deaths",
    "loser_dead",
    "hits",
    "loser_fate",
    "loser_fate_sq",
    "fates",
    "fates_sq",
    "dead_any",
    "deaths_sq",
)
#: A combatant's fate at the end of a fight, as kernels code it (``FightStats.fates``
#: column order: standing, then :data:`engines.fight.FATES`).
STANDING, DEAD, DYING, OUT = 0, 1, 2, 3


@njit(**INLINE)
def book_fates(acc, off, side, fate, winner, cnt):
    """Add one fight's fates to the flat histogram ``acc`` (offsets ``off``, KERNEL_OFFSETS
    order): ``fate[i]`` of combatant ``i`` of side ``side[i]``; ``winner`` -1 when the
    fight hit the round cap; ``cnt`` is int64[8] scratch. Also books ``deaths`` and
    ``loser_dead`` from the fates (after the aftermath)."""
    for k in range(8):
        cnt[k] = 0
    for i in range(side.size):
        cnt[4 * side[i] + fate[i]] += 1
    for k in range(8):
        acc[off[8] + k] += cnt[k]
        acc[off[9] + k] += cnt[k] * cnt[k]
    for sd in range(2):
        acc[off[3] + sd] += cnt[4 * sd + DEAD]
    dead = cnt[DEAD] + cnt[4 + DEAD]
    if dead > 0:
        acc[off[10]] += 1
    acc[off[11]] += dead * dead
    if winner >= 0:
        lo = 1 - winner
        for f in range(3):
            x = cnt[4 * lo + 1 + f]
            acc[off[6] + 3 * winner + f] += x
            acc[off[7] + 3 * winner + f] += x * x
        if cnt[4 * lo + DEAD] == cnt[4 * lo] + cnt[4 * lo + 1] + cnt[4 * lo + 2] + cnt[4 * lo + 3]:
            acc[off[4] + winner] += 1


def _run(
    kernel: Callable,
    rows: np.ndarray,
    side: np.ndarray,
    rule: np.ndarray,
    trials: int,
    seed: Seed,
    round_cap: int,
    end_columns: int,
) -> tuple[np.ndarray, dict, np.ndarray]:
    """Run ``kernel(first, last, rows, side, rule, round_cap, offsets, per_chunk, states,
    out, end)`` on every chunk (:func:`~engines.blocks.run_blocks`);
    ``offsets`` = the :func:`layout` offsets in :data:`KERNEL_OFFSETS` order, ``end`` with
    ``end_columns`` columns: none for a plain run; campaign attrition (:func:`run_mc_end`)
    asks for one per end state of combatant 0, counted by the same fights (one kernel,
    compiled once, serves both). ``states`` has two rows per chunk:
    the fight's (the first ``n_chunks``, the same as before the aftermath existed) and the
    aftermath's (the next ``n_chunks``). Returns the summed ``out``, the layout and the
    summed ``end``."""
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, 2 * n_chunks)
    off = layout(round_cap)
    out = np.zeros((n_chunks, off["size"]), dtype=np.int64)
    end = np.zeros((n_chunks, end_columns), dtype=np.int64)
    run_blocks(
        kernel,
        (
            np.ascontiguousarray(rows, dtype=np.int64),
            np.ascontiguousarray(side, np.int64),
            np.ascontiguousarray(rule, dtype=np.int64),
            np.int64(round_cap),
            np.array([off[k] for k in KERNEL_OFFSETS], dtype=np.int64),
            per_chunk,
            states,
            out,
            end,
        ),
        n_chunks,
    )
    return out.sum(axis=0), off, end.sum(axis=0)


def run_mc(
    kernel: Callable,
    system: str,
    rows: np.ndarray,
    side: np.ndarray,
    rule: np.ndarray,
    trials: int,
    seed: Seed,
    round_cap: int,
) -> FightStats:
    """Run ``kernel`` (:func:`_run`, no attrition count) and unpack its histograms."""
    tot, off, _ = _run(kernel, rows, side, rule, trials, seed, round_cap, 0)
    rows_n = round_cap + 1
    stats = FightStats.empty(system, round_cap, trials=int(trials))
    stats.outcome[:] = tot[0:3]
    stats.rounds[:] = tot[off["rounds"] : off["rounds"] + 3 * rows_n].reshape(rows_n, 3)
    stats.loser_dead[:] = tot[off["loser_dead"] : off["loser_dead"] + 2]
    standing = tot[off["standing"] : off["standing"] + 2 * rows_n].reshape(rows_n, 2)
    tail = tot[off["tail"] : off["tail"] + 2 * rows_n].reshape(rows_n, 2)
    stats.standing[:] = standing + np.cumsum(tail, axis=0)
    stats.deaths[:] = tot[off["deaths"] : off["deaths"] + 2]
    stats.hits[:] = tot[off["hits"] : off["hits"] + DAMAGE_BINS]
    for name, shape in (
        ("loser_fate", (2, 3)),
        ("loser_fate_sq", (2, 3)),
        ("fates", (2, 4)),
        ("fates_sq", (2, 4)),
        ("dead_any", (1, 1)),
        ("deaths_sq", (1, 1)),
    ):
        getattr(stats, name)[:] = tot[off[name] : off[name] + shape[0] * shape[1]].reshape(shape)
    return stats


def run_mc_end(
    kernel: Callable,
    rows: np.ndarray,
    side: np.ndarray,
    rule: np.ndarray,
    trials: int,
    seed: Seed,
    round_cap: int,
    health: int,
) -> np.ndarray:
    """Campaign attrition: run the same ``kernel`` as :func:`run_mc` (chunks and streams
    alike) with ``end`` holding a column per end state, and return the counts of
    combatant 0's end: ``end[d]`` able with ``d`` damage (``d < health``), then
    ``end[health + f]`` for the fates ``f`` = :data:`DEAD`, :data:`DYING`, :data:`OUT`
    (index ``health`` itself, standing, stays 0)."""
    return _run(kernel, rows, side, rule, trials, seed, round_cap, health + 4)[2]


def check_variants(variants, cls: type, default, module: str):
    """``variants`` (None: ``default``) if it is a ``cls``; anything else raises InputError."""
    if variants is None:
        return default
    if not isinstance(variants, cls):
        raise InputError(f"variants: expected {module}.Variants, got {type(variants).__name__}")
    return variants


def run_fight(
    kernel: Callable,
    system: str,
    cls: type,
    rows_of: Callable,
    rule: np.ndarray,
    side0,
    side1,
    trials: int,
    seed: Seed,
    round_cap: int,
    variants: dict,
) -> FightStats:
    """Check both sides (a lone ``cls`` object is a side of one) and the cap, then run
    ``kernel`` on ``rows_of(side0 + side1)`` (:func:`run_mc`); ``variants`` (a dict) goes
    to the notes with the combatants' names."""
    cap = check_round_cap(round_cap)
    sides = [
        check_side([s] if isinstance(s, cls) else s, label, cls, system)
        for s, label in ((side0, "side0"), (side1, "side1"))
    ]
    side = np.array([0] * len(sides[0]) + [1] * len(sides[1]), dtype=np.int64)
    stats = run_mc(kernel, system, rows_of(sides[0] + sides[1]), side, rule, trials, seed, cap)
    stats.notes["combatants"] = tuple([c.name for c in s] for s in sides)
    stats.notes["variants"] = variants
    return stats


# ---------------------------------------------------------------------------------------
# Exact duels


@dataclass
class AttackOp:
    """One attack's effect on the target's damage axis (size ``V`` = its health).

    ``move[d, d2]``: P(the target goes from ``d`` to ``d2`` damage and stays up);
    ``down_alive[d]`` / ``down_dead[d]``: P(it goes down alive / dead from ``d``);
    ``down_excess[d, e]``: P(it goes down alive from ``d`` with ``e`` damage beyond its
    health that counts towards death; ``down_alive`` summed over ``e``);
    ``hits[k]``: P(a successful attack dealing ``k`` damage) (independent of ``d``).
    """

    move: np.ndarray
    down_alive: np.ndarray
    down_dead: np.ndarray
    hits: np.ndarray
    down_excess: np.ndarray


def attack_op(
    damage: np.ndarray, hit: np.ndarray, health: int, lethal: bool, death_after: int | None
) -> AttackOp:
    """Build an :class:`AttackOp` from an attack's damage pmf.

    ``damage[k]``: P(damage ``k``) (misses at 0); ``hit[k]``: P(a hit dealing ``k``).
    The target goes down when its damage reaches ``health``. ``death_after``: it is dead
    when the damage beyond ``health`` reaches this many points (``None``: never); only
    ``lethal`` damage kills. The excess of a fallen, living target (``down_excess``) is
    the damage beyond ``health`` when it can kill (``0..death_after - 1``), else 0.
    """
    size = damage.size
    move = np.zeros((health, health))
    down_alive = np.zeros(health)
    down_dead = np.zeros(health)
    counts = lethal and death_after is not None
    down_excess = np.zeros((health, death_after if counts and death_after > 0 else 1))
    for d in range(health):
        for k in range(size):
            p = damage[k]
            if p == 0.0:
                continue
            t = d + k
            if t < health:
                move[d, t] += p
            elif lethal and death_after is not None and t - health >= death_after:
                down_dead[d] += p
            else:
                down_alive[d] += p
                down_excess[d, t - health if counts else 0] += p
    hits = np.zeros(DAMAGE_BINS)
    np.add.at(hits, np.minimum(np.arange(hit.size), DAMAGE_BINS - 1), hit)
    return AttackOp(move, down_alive, down_dead, hits, down_excess)


class DuelChain:
    """Probability mass of a running duel, and what has been absorbed so far.

    ``planes[key][d0, d1]``: both up. :meth:`attack` applies one attack of ``side`` to
    every plane selected by a key predicate and a row mask; absorbed mass goes to
    ``won[side]`` (and ``won_dead[side]`` when the loser is dead) for the current round.
    """

    def __init__(self, system: str, health: tuple[int, int], round_cap: int, start: dict) -> None:
        self.system = system
        self.health = health
        self.round_cap = round_cap
        self.planes = {k: np.array(v, dtype=float) for k, v in start.items()}
        self.stats = FightStats.empty(system, round_cap, trials=None, dtype=float)
        self.round = 0
        self.won = np.zeros(2)
        self.won_dead = np.zeros(2)
        #: ``fallen[w][e]``: P(side ``w`` wins with the loser down alive, excess ``e``).
        self.fallen: list[np.ndarray] = [np.zeros(1), np.zeros(1)]
        #: ``won_at[w][d]``: P(side ``w`` wins having taken ``d`` damage itself) (the
        #: winner's damage at the end of the fight, for campaign attrition).
        self.won_at: list[np.ndarray] = [np.zeros(health[0]), np.zeros(health[1])]

    def total(self) -> float:
        return float(sum(p.sum() for p in self.planes.values()))

    def add(self, planes: dict, key, plane: np.ndarray) -> None:
        if key in planes:
            planes[key] = planes[key] + plane
        else:
            planes[key] = plane

    def attack(
        self,
        planes: dict,
        side: int,
        key_new,
        key,
        plane: np.ndarray,
        op: AttackOp,
        weight: float = 1.0,
    ) -> None:
        """Apply ``op`` (an attack by ``side``) to ``plane`` and add the result to
        ``planes[key_new]``; absorbed mass (times ``weight``) is booked as a win."""
        if side == 0:  # side 0 hits side 1: the d1 axis (columns)
            moved = plane @ op.move
            alive = plane @ op.down_alive
            dead = plane @ op.down_dead
            excess = (plane @ op.down_excess).sum(axis=0)
        else:
            moved = op.move.T @ plane
            alive = op.down_alive @ plane
            dead = op.down_dead @ plane
            excess = (op.down_excess.T @ plane).sum(axis=1)
        fallen = self.fallen[side]
        if fallen.size < excess.size:
            fallen = np.concatenate([fallen, np.zeros(excess.size - fallen.size)])
        fallen[: excess.size] += weight * excess
        self.fallen[side] = fallen
        mass = plane.sum()
        self.stats.hits += weight * mass * op.hits
        self.won[side] += weight * (alive.sum() + dead.sum())
        self.won_at[side] += weight * (alive + dead)
        self.won_dead[side] += weight * dead.sum()
        self.add(planes, key_new, moved)

    def end_round(self) -> None:
        """Book the round's absorbed mass and the standing expectations."""
        self.round += 1
        r = self.round
        st = self.stats
        st.rounds[r, 0:2] += self.won
        st.outcome[0:2] += self.won
        st.loser_dead += self.won_dead
        st.deaths[1] += self.won_dead[0]
        st.deaths[0] += self.won_dead[1]
        self.won[:] = 0
        self.won_dead[:] = 0

    def finish(self) -> FightStats:
        """Whatever is left at the cap is "neither"; fill the standing table."""
        st = self.stats
        left = self.total()
        st.outcome[2] += left
        st.rounds[self.round_cap, 2] += left
        return st

    def aftermath(self, fate_of: Callable[[int, int], np.ndarray]) -> FightStats:
        """Fill the lethality histograms of the finished chain (call after :meth:`finish`).

        ``fate_of(w, e)``: P(dead), P(dying), P(out) after the aftermath of a loser that
        side ``w`` put down alive with excess ``e`` (:class:`AttackOp`); a loser dead at
        the end of the fight stays dead. ``loser_dead`` and ``deaths`` are rebooked after
        the aftermath.
        """
        st = self.stats
        for w in (0, 1):
            fate = np.array([st.loser_dead[w], 0.0, 0.0])
            for e, p in enumerate(self.fallen[w]):
                if p > 0.0:
                    fate = fate + p * np.asarray(fate_of(w, e), dtype=float)
            st.loser_fate[w] = fate
            st.fates[w, 0] += st.outcome[w]
            st.fates[1 - w, 1:] += fate
        st.fates[:, 0] += st.outcome[2]
        st.loser_fate_sq[:] = st.loser_fate  # one loser per duel: counts are 0 or 1
        st.fates_sq[:] = st.fates
        st.loser_dead[:] = st.loser_fate[:, 0]
        st.deaths[:] = st.loser_fate[::-1, 0]
        return st


def finish_chain(remaining: int, dmg: np.ndarray, attacks: int, clamp: int = 0) -> np.ndarray:
    """A helpless target ``remaining`` damage points from death takes ``attacks`` attacks,
    each dealing damage with pmf ``dmg`` (0 for a miss): returns ``p[r]``, P(it ends
    ``r`` points from death), ``r = 0..remaining`` (``p[0]``: dead).

    ``clamp``: a hit on a target more than ``clamp`` points from death leaves it at least
    ``clamp`` points away (the rest of that hit is lost; 0: every point counts).
    """
    if remaining <= 0:
        return np.ones(1)
    p = np.zeros(remaining + 1)  # p[r]: r points to go (0: dead, absorbing)
    p[remaining] = 1.0
    k = np.arange(dmg.size)
    for _ in range(attacks):
        q = np.zeros(remaining + 1)
        q[0] = p[0]
        for r in range(1, remaining + 1):
            if p[r] == 0.0:
                continue
            left = np.maximum(r - k, clamp if r > clamp else 0)
            np.add.at(q, left, p[r] * dmg)
        p = q
    return p


def standing_from_rounds(stats: FightStats) -> None:
    """Expected able combatants per side after each round, for a 1-vs-1 exact result.

    Side ``s`` is up after round ``r`` unless the other side won in a round ``<= r``.
    """
    won_by = np.cumsum(stats.rounds[:, 0:2], axis=0)
    stats.standing[:, 0] = 1.0 - won_by[:, 1]
    stats.standing[:, 1] = 1.0 - won_by[:, 0]


def finish_duel(stats: FightStats, a, b, variants: dict) -> FightStats:
    """Complete an exact 1-vs-1 result: the standing table and the notes."""
    standing_from_rounds(stats)
    stats.notes["combatants"] = ([a.name], [b.name])
    stats.notes["variants"] = variants
    return stats


def mix(stats: list[tuple[float, FightStats]]) -> FightStats:
    """Weighted sum of exact results (e.g. over who acts first)."""
    s0 = stats[0][1]
    out = FightStats.empty(s0.system, s0.round_cap, trials=None, dtype=float)
    for w, s in stats:
        for name in HIST_FIELDS:
            getattr(out, name)[...] += w * getattr(s, name)
    return out
