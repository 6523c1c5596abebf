"""Shared random-number primitives for every Monte Carlo kernel.

A generator state is a ``uint64[6]`` row: words 0–3 are a xoshiro256** state, word 4 a
buffer of decimal digits and word 5 how many are left in it. One state per work item
(parameter set × chunk), all derived from the user's seed by :func:`chunk_states`, so a
run's numbers depend on the seed and the trial count only, never on the thread count.

Dice are exact: bounded integers use Lemire's multiply-shift with rejection, and d10s
come six at a time from one 64-bit draw (two exact uniform values in 0..999).

Hot kernels can keep the generator in four local ``uint64`` variables instead of an
array row (:func:`load_state`, :func:`next_local`, :func:`store_state`), which lets the
compiler hold it in registers, and draw d10s three at a time as one exact uniform value
in 0..999 (:func:`d10_triples`: three per 64-bit draw).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .config import INLINE, MAX_CHUNKS, MIN_CHUNK_TRIALS
from .errors import InputError

__all__ = [
    "Seed",
    "bounded",
    "chunk_states",
    "chunk_trials",
    "d10",
    "d10_triples",
    "die",
    "load_state",
    "next_local",
    "next_u64",
    "normalize_seed",
    "plan_chunks",
    "store_state",
    "work_order",
]

Seed = int | np.random.SeedSequence | None

_M32 = np.uint64(0xFFFFFFFF)
_M21 = np.uint64((1 << 21) - 1)
_REJECT_1000_21 = np.uint64((1 << 21) % 1000)  # Lemire threshold for n = 1000 on 21 bits
_M10 = np.uint64(1023)
_REJECT_1000 = np.uint64((1 << 32) % 1000)  # Lemire threshold for n = 1000


def normalize_seed(seed: Seed) -> np.random.SeedSequence:
    """Turn the user's seed into a :class:`numpy.random.SeedSequence` (once, at the API edge)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, bool | float) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InputError(f"seed: expected a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed))


def plan_chunks(trials: int) -> tuple[int, int]:
    """Split ``trials`` into chunks: returns (number of chunks, trials in the largest)."""
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    n = int(min(MAX_CHUNKS, max(1, trials // MIN_CHUNK_TRIALS)))
    return n, -(-int(trials) // n)


def chunk_states(seed: Seed, n_items: int) -> np.ndarray:
    """Independent generator states for ``n_items`` work items, derived from ``seed``."""
    ss = normalize_seed(seed)
    words = ss.generate_state(4 * n_items, dtype=np.uint64).reshape(n_items, 4)
    words[(words == 0).all(axis=1), 0] = np.uint64(0x9E3779B97F4A7C15)  # never all-zero
    states = np.zeros((n_items, 6), dtype=np.uint64)
    states[:, :4] = words
    return states


def chunk_trials(trials: int, n_chunks: int) -> np.ndarray:
    """Trials per chunk: as even as possible, summing to ``trials``."""
    base, extra = divmod(int(trials), n_chunks)
    out = np.full(n_chunks, base, dtype=np.int64)
    out[:extra] += 1
    return out


def work_order(n_settings: int, n_chunks: int) -> np.ndarray:
    """The order in which a parallel loop visits (setting × chunk) items.

    Item ``setting * n_chunks + chunk`` keeps its own state and histogram whatever the
    order, so the order changes no result; it only balances threads. numba's parallel
    loops hand each thread one contiguous block of iterations, and settings can differ a
    lot in cost (a pool of 20 dice against a pool of 1), so items are visited chunk by
    chunk, and within a chunk the settings alternate from both ends (0, n−1, 1, n−2, …):
    any contiguous block then holds a fair mix of cheap and dear items.
    """
    half = (n_settings + 1) // 2
    zigzag = np.empty(n_settings, dtype=np.int64)
    zigzag[0::2] = np.arange(half)
    zigzag[1::2] = np.arange(n_settings - 1, half - 1, -1)
    chunks = np.arange(n_chunks, dtype=np.int64)
    return (zigzag[None, :] * n_chunks + chunks[:, None]).ravel()


@njit(**INLINE)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(**INLINE)
def next_u64(s):
    """One xoshiro256** output; advances ``s[0:4]``."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(**INLINE)
def bounded(s, n):
    """Exactly uniform integer in ``0..n-1`` (``n`` < 2**32); leaves the d10 buffer alone."""
    nn = np.uint64(n)
    threshold = ((np.uint64(1) << np.uint64(32)) - nn) % nn
    while True:
        x = next_u64(s) >> np.uint64(32)
        m = x * nn
        if (m & _M32) >= threshold:
            return np.int64(m >> np.uint64(32))


@njit(**INLINE)
def d10(s):
    """One d10 (1..10), exact.

    Digits are buffered in ``s[4]`` (``s[5]`` = digits left): one 64-bit draw gives two
    exact uniform values in 0..999 (Lemire on each 32-bit half), i.e. six d10s.
    """
    if s[5] == np.uint64(0):
        while True:
            x = next_u64(s)
            a = (x & _M32) * np.uint64(1000)
            b = (x >> np.uint64(32)) * np.uint64(1000)
            if (a & _M32) >= _REJECT_1000 and (b & _M32) >= _REJECT_1000:
                break
        s[4] = (a >> np.uint64(32)) * np.uint64(1000) + (b >> np.uint64(32))
        s[5] = np.uint64(6)
    v = s[4]
    q = v // np.uint64(10)
    s[4] = q
    s[5] -= np.uint64(1)
    return np.int64(v - q * np.uint64(10)) + 1


@njit(**INLINE)
def die(s, sides):
    """One die with ``sides`` faces (1..sides), exact."""
    return bounded(s, sides) + 1


@njit(**INLINE)
def load_state(s):
    """The four xoshiro words of a state row, as local variables."""
    return s[0], s[1], s[2], s[3]


@njit(**INLINE)
def store_state(s, s0, s1, s2, s3):
    """Write local xoshiro words back into a state row."""
    s[0] = s0
    s[1] = s1
    s[2] = s2
    s[3] = s3


@njit(**INLINE)
def next_local(s0, s1, s2, s3):
    """One xoshiro256** output from a state held in locals: ``(x, s0, s1, s2, s3)``."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(**INLINE)
def d10_triples(s0, s1, s2, s3):
    """Three exact uniform values in 0..999 (nine d10 digits) from one 64-bit draw.

    Each 21-bit piece of the draw goes through Lemire's multiply-shift for n = 1000; a
    piece is accepted when the low 21 bits of ``piece * 1000`` are at least
    ``2**21 mod 1000`` (= 152), which leaves exactly ``2**21 // 1000`` pieces per value.
    The draw is repeated until all three pieces are accepted (probability 1 − 2.2e-4);
    since each acceptance depends only on its own piece, the three values stay
    independent and exactly uniform. Returns ``(packed, s0, s1, s2, s3)`` with the values
    10 bits apart in ``packed`` (read with ``packed & 1023``, then shift by 10).
    """
    while True:
        x, s0, s1, s2, s3 = next_local(s0, s1, s2, s3)
        a = (x & _M21) * np.uint64(1000)
        b = ((x >> np.uint64(21)) & _M21) * np.uint64(1000)
        c = ((x >> np.uint64(42)) & _M21) * np.uint64(1000)
        if (
            (a & _M21) >= _REJECT_1000_21
            and (b & _M21) >= _REJECT_1000_21
            and (c & _M21) >= _REJECT_1000_21
        ):
            packed = (
                (a >> np.uint64(21))
                | ((b >> np.uint64(21)) << np.uint64(10))
                | ((c >> np.uint64(21)) << np.uint64(20))
            )
            return packed, s0, s1, s2, s3
