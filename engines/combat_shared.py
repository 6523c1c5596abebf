"""Small pieces shared by the combat kernels of ``middle_3d10`` and ``percentile``."""

from __future__ import annotations

import numpy as np
from numba import njit

from .config import INLINE


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
