"""Parallel Monte Carlo kernels for single checks and opposed checks in every system.

:func:`run` takes a system code (see :mod:`engines.rolls`), an array of per-set
parameters and the rule as integers, and returns outcome-code counts per parameter set.
:func:`run_pairs` rolls *both* sides of an opposed check in each trial (same roll
functions) and returns the joint histogram of (code a, code b) per pair of parameters.

Work is split into (parameter set × chunk) items, each with its own generator state and
its own histogram, merged after the parallel loop: memory does not grow with the number
of trials, and results are bit-identical for any thread count. Items are numbered
parameter-major, and their states, trial counts and parameters depend on the item number
only, so a run may be executed in batches of consecutive items (for a progress bar, or to
bound memory) without changing a single count.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit, prange

from .config import PJIT
from .errors import InputError
from .rng import Seed, chunk_states, chunk_trials, plan_chunks
from .rolls import roll_any

__all__ = ["BATCH_CELLS", "Progress", "parse_modes", "run", "run_pairs"]

#: Histogram cells (items × codes) held in memory at once by one batch.
BATCH_CELLS = 1 << 22

Progress = Callable[[int], object]


@njit(**PJIT)
def _check_kernel(system, params, rule, trials, states, first, out):
    """Items ``first .. first + out.shape[0]``: item ``g`` rolls ``params[g // n_chunks]``
    ``trials[g % n_chunks]`` times from ``states[g]``."""
    n_chunks = trials.size
    n_codes = out.shape[1]
    for local in prange(out.shape[0]):
        item = first + local
        s = states[item].copy()
        hist = np.zeros(n_codes, dtype=np.int64)
        param = params[item // n_chunks]
        for _ in range(trials[item % n_chunks]):
            code = roll_any(system, s, param, rule)
            hist[min(code, n_codes - 1)] += 1
        out[local, :] = hist


@njit(**PJIT)
def _pairs_kernel(system, params_a, params_b, rule, n_codes, trials, states, first, out):
    """Like :func:`_check_kernel`, rolling side a then side b in every trial; the joint
    code ``code_a * n_codes + code_b`` is counted."""
    n_chunks = trials.size
    for local in prange(out.shape[0]):
        item = first + local
        s = states[item].copy()
        hist = np.zeros(out.shape[1], dtype=np.int64)
        k = item // n_chunks
        pa = params_a[k]
        pb = params_b[k]
        for _ in range(trials[item % n_chunks]):
            # side a, then side b, through one call site of the roll (one inlined copy
            # to compile instead of two; the same draws in the same order)
            joint = 0
            for side in range(2):
                code = min(roll_any(system, s, pa if side == 0 else pb, rule), n_codes - 1)
                joint = joint * n_codes + code
            hist[joint] += 1
        out[local, :] = hist


def _batches(n_sets: int, n_chunks: int, width: int, batch_sets: int | None):
    """Consecutive parameter-set ranges to run at once (whole sets, so merging is simple)."""
    if batch_sets is None:
        batch_sets = max(1, BATCH_CELLS // max(1, n_chunks * width))
    batch_sets = max(1, int(batch_sets))
    return [(lo, min(n_sets, lo + batch_sets)) for lo in range(0, n_sets, batch_sets)]


def _drive(
    kernel_call,
    n_sets: int,
    n_chunks: int,
    width: int,
    batch_sets: int | None,
    progress: Progress | None,
) -> np.ndarray:
    result = np.zeros((n_sets, width), dtype=np.int64)
    for lo, hi in _batches(n_sets, n_chunks, width, batch_sets):
        out = np.zeros(((hi - lo) * n_chunks, width), dtype=np.int64)
        kernel_call(lo * n_chunks, out)
        result[lo:hi] = out.reshape(hi - lo, n_chunks, width).sum(axis=1)
        if progress is not None:
            progress(hi - lo)
    return result


def parse_modes(modes, names: dict[str, int]) -> np.ndarray:
    """Roll modes as integer codes: each item a name from ``names`` or already a code."""
    out = []
    for m in np.atleast_1d(modes):
        if isinstance(m, str):
            if m not in names:
                raise InputError(f"roll: unknown mode {m!r}; known: {', '.join(names)}")
            out.append(names[m])
        else:
            out.append(int(m))
    return np.array(out, dtype=np.int64)


def run(
    system: int,
    params,
    rule,
    n_codes: int,
    trials: int,
    seed: Seed,
    *,
    batch_sets: int | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """Outcome-code counts ``[n_params, n_codes]``, ``trials`` checks per parameter set.

    ``batch_sets`` parameter sets are run per kernel call (default: as many as fit in
    :data:`BATCH_CELLS` histogram cells); ``progress(k)`` is called after each batch with
    the number of sets done. Neither changes the result.
    """
    params = np.ascontiguousarray(np.atleast_1d(params), dtype=np.int64)
    rule = np.ascontiguousarray(rule, dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, params.size * n_chunks)
    sysc = np.int64(system)

    def call(first, out):
        _check_kernel(sysc, params, rule, per_chunk, states, np.int64(first), out)

    return _drive(call, params.size, n_chunks, int(n_codes), batch_sets, progress)


def run_pairs(
    system: int,
    params_a,
    params_b,
    rule,
    n_codes: int,
    trials: int,
    seed: Seed,
    *,
    batch_sets: int | None = None,
    progress: Progress | None = None,
) -> np.ndarray:
    """Joint outcome counts of opposed checks, ``[n_pairs, n_codes * n_codes]``.

    Each trial rolls side a with ``params_a[k]`` and then side b with ``params_b[k]``
    (both with ``rule``, from one generator stream); cell ``code_a * n_codes + code_b``
    counts the trials with that pair of outcome codes (codes above ``n_codes - 1`` are
    folded into the last). Same chunk/state scheme as :func:`run`: bit-identical for any
    thread count and any ``batch_sets``.

    Examples
    --------
    >>> from engines.rolls import D20
    >>> c = run_pairs(D20, [0], [0], [0], 90, 1000, seed=1)
    >>> int(c.sum()), c.shape
    (1000, (1, 8100))
    """
    params_a = np.ascontiguousarray(np.atleast_1d(params_a), dtype=np.int64)
    params_b = np.ascontiguousarray(np.atleast_1d(params_b), dtype=np.int64)
    if params_a.shape != params_b.shape or params_a.ndim != 1:
        raise InputError(
            f"run_pairs: params_a and params_b must be 1-d and of equal length, "
            f"got {params_a.shape} and {params_b.shape}"
        )
    rule = np.ascontiguousarray(rule, dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, params_a.size * n_chunks)
    sysc, nc = np.int64(system), np.int64(n_codes)

    def call(first, out):
        _pairs_kernel(sysc, params_a, params_b, rule, nc, per_chunk, states, np.int64(first), out)

    return _drive(call, params_a.size, n_chunks, int(n_codes) ** 2, batch_sets, progress)
