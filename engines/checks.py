"""One parallel Monte Carlo kernel for single checks in every system.

:func:`run` takes a system code (see :mod:`engines.rolls`), an array of per-set
parameters and the rule as integers, and returns outcome-code counts per parameter set.
Work is split into (parameter set × chunk) items, each with its own generator state and
its own histogram, merged after the parallel loop: memory does not grow with the number
of trials, and results are bit-identical for any thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .config import PJIT
from .rng import Seed, chunk_states, chunk_trials, plan_chunks, work_order
from .rolls import roll_any


@njit(**PJIT)
def _check_kernel(system, params, rule, trials, states, order, out):
    n_chunks = trials.size
    n_codes = out.shape[1]
    for i in prange(order.size):
        item = order[i]
        s = states[item].copy()
        hist = np.zeros(n_codes, dtype=np.int64)
        param = params[item // n_chunks]
        for _ in range(trials[item % n_chunks]):
            code = roll_any(system, s, param, rule)
            hist[min(code, n_codes - 1)] += 1
        out[item, :] = hist


def run(system: int, params, rule, n_codes: int, trials: int, seed: Seed) -> np.ndarray:
    """Outcome-code counts ``[n_params, n_codes]``, ``trials`` checks per parameter set."""
    params = np.ascontiguousarray(np.atleast_1d(params), dtype=np.int64)
    rule = np.ascontiguousarray(rule, dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, params.size * n_chunks)
    out = np.zeros((params.size * n_chunks, n_codes), dtype=np.int64)
    _check_kernel(np.int64(system), params, rule, per_chunk, states,
                  work_order(params.size, n_chunks), out)
    return out.reshape(params.size, n_chunks, n_codes).sum(axis=1)
