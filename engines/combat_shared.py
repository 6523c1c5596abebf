"""Small pieces shared by the combat engines of ``middle_3d10``, ``percentile`` and
``d20_degrees``: a sort for the kernels, and the Python side of their Monte Carlo drivers
(per-chunk histograms in, :class:`~engines.fight.FightStats` out)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from .blocks import run_blocks
from .config import INLINE
from .fight import DAMAGE_BINS, FightStats
from .rng import Seed, chunk_states, chunk_trials, plan_chunks

__all__ = ["merge_standing", "run_chunks", "sort_desc"]


@njit(**INLINE)
def sort_desc(key, order):
    """Fill ``order`` with the indices of ``key`` by descending key (insertion sort: a
    handful of combatants, no allocation)."""
    n = key.shape[0]
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        j = i
        while j > 0 and key[order[j - 1]] < key[order[j]]:
            t = order[j - 1]
            order[j - 1] = order[j]
            order[j] = t
            j -= 1


def merge_standing(standing: np.ndarray, tail: np.ndarray, start: np.ndarray, trials: int):
    """Complete the ``standing`` histogram in place.

    Kernels add the combatants still able to act after each round a fight lasted, and put
    the final count in ``tail[last round]``; a finished fight keeps that count for every
    later round, and row 0 is the start (``start`` per side, for each of ``trials``).
    """
    standing[0] += start * trials
    standing[1:] += np.cumsum(tail, axis=0)[:-1]


def _shape(name: str, round_cap: int) -> tuple[int, ...]:
    rows = round_cap + 1
    return {
        "outcome": (3,),
        "rounds": (rows, 3),
        "loser_dead": (2,),
        "standing": (rows, 2),
        "tail": (rows, 2),
        "deaths": (2,),
        "hits": (DAMAGE_BINS,),
        "loser_fate": (2, 3),
        "loser_fate_sq": (2, 3),
        "fates": (2, 4),
        "fates_sq": (2, 4),
        "dead_any": (1,),
        "deaths_sq": (1,),
    }[name]


def run_chunks(
    kernel: Callable,
    args: tuple,
    system: str,
    trials: int,
    seed: Seed,
    round_cap: int,
    fields: tuple[str, ...],
    end_columns: int = 0,
) -> tuple[FightStats, dict]:
    """Run ``kernel(first, last, *args, trials_per_chunk, states, *histograms, end)`` on
    every chunk (:func:`~engines.blocks.run_blocks`) and sum the chunks.

    ``histograms`` are zeroed ``int64`` arrays, one row per chunk, named by ``fields``
    (FightStats fields, plus ``tail``) in that order. ``end`` has ``end_columns`` columns:
    none for a plain run; campaign attrition asks for one per end state of combatant 0
    (the same kernel counts them, so the fight is compiled once). Returns the stats with
    every summed field copied in (``standing`` as the kernel left it), and the sums by name
    (``end`` included).
    """
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, n_chunks)
    hist = [np.zeros((n_chunks, *_shape(f, round_cap)), np.int64) for f in fields]
    end = np.zeros((n_chunks, end_columns), np.int64)
    run_blocks(kernel, (*args, per_chunk, states, *hist, end), n_chunks)
    sums = {f: h.sum(axis=0) for f, h in zip(fields, hist, strict=True)}
    stats = FightStats.empty(system, round_cap, trials=int(trials))
    for f, total in sums.items():
        if f != "tail":
            getattr(stats, f)[:] = total
    sums["end"] = end.sum(axis=0)
    return stats, sums
