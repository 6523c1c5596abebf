"""d10 dice pools, shared by ``dice_pool_7`` (A1, A-g1) and ``dice_pool_6`` (C1, C-g1, C-g2).

One rule set covers both systems: a per-die success threshold, an explosion face
("again"; 11 = none), a bonus per *pair* of 10s (criticals), and what a pool of zero or
less does (a chance die, or nothing). The rule travels into the kernel as plain integers,
so both systems share one compiled kernel.

Outcome codes, identical in the exact model and in Monte Carlo: code 0 is a dramatic
failure (a chance die showing 1), code ``1 + k`` is ``k`` successes; the last code also
holds anything larger (its mass is reported, and is below 1e-12 for the exact model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from .config import INLINE, PJIT
from .errors import InputError
from .rng import (
    Seed,
    chunk_states,
    chunk_trials,
    d10_triples,
    load_state,
    plan_chunks,
    store_state,
    work_order,
)

__all__ = [
    "TAIL_TOLERANCE",
    "PoolRule",
    "check_pools",
    "codes_for",
    "digit_table",
    "exact",
    "monte_carlo",
    "n_codes_for",
]

#: Neglected tail mass allowed when an explosion chain is truncated.
TAIL_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PoolRule:
    """How one d10 pool is read (the kernel receives it as :meth:`as_array`)."""

    threshold: int = 7  # a die succeeds on this face or higher
    again: int = 10  # faces >= again roll one more die (11 = no explosion)
    crit_pair_bonus: int = 0  # extra successes per pair of 10s (V5: 2)
    chance_die: bool = True  # pool <= 0 rolls one die: 10 succeeds, 1 is a dramatic failure
    chance_explodes: bool = False

    def as_array(self) -> np.ndarray:
        return np.array(
            [
                self.threshold,
                self.again,
                self.crit_pair_bonus,
                int(self.chance_die),
                int(self.chance_explodes),
            ],
            dtype=np.int64,
        )

    def check(self) -> None:
        if not 2 <= self.threshold <= 10:
            raise InputError(f"threshold: must be 2..10, got {self.threshold}")
        if not 2 <= self.again <= 11:
            raise InputError(f"again: must be 2..10 or none, got {self.again}")
        if self.again <= 10 and self.crit_pair_bonus:
            raise InputError("criticals and exploding dice cannot be combined in one pool rule")


def n_codes_for(max_pool: int, rule: PoolRule) -> int:
    """Number of outcome codes that keep the exact tail below :data:`TAIL_TOLERANCE`."""
    n = max(int(max_pool), 1)
    if rule.crit_pair_bonus:
        return 2 + n * (1 + rule.crit_pair_bonus) // 1 + 1
    if rule.again > 10:
        return 2 + n + 1
    p_exp = (11 - rule.again) / 10
    # Successes beyond n come only from explosions: k extra dice need k explosions.
    extra = 1
    while n * p_exp**extra > TAIL_TOLERANCE * 1e-3:
        extra += 1
    return 2 + n + extra + 1


def check_pools(pools, min_pool: int | None = None) -> np.ndarray:
    """Pool sizes as ``int64``: whole numbers of at most 200 dice (and at least
    ``min_pool`` when given); anything else raises InputError."""
    arr = np.atleast_1d(np.asarray(pools))
    if arr.dtype.kind not in "iu":
        raise InputError(f"pool: expected whole numbers of dice, got {pools!r}")
    if min_pool is not None and arr.size and arr.min() < min_pool:
        raise InputError(f"pool: must be {min_pool} or more dice, got {int(arr.min())}")
    if arr.size and arr.max() > 200:
        raise InputError(f"pool: at most 200 dice, got {int(arr.max())}")
    return arr.astype(np.int64)


def codes_for(arr: np.ndarray, rule: PoolRule, codes: int | None) -> int:
    """``codes`` if given, else enough outcome codes for the largest pool of ``arr``."""
    return codes or n_codes_for(int(arr.max(initial=1)), rule)


def _die_series(rule: PoolRule, length: int) -> np.ndarray:
    """Success distribution of one die and its explosion chain (A1), truncated to ``length``."""
    faces = np.arange(1, 11)
    succ = (faces >= rule.threshold).astype(int)
    a = np.zeros(length)
    b = np.zeros(length)
    for f, s in zip(faces, succ, strict=True):
        (b if f >= rule.again else a)[s] += 0.1
    g = a.copy()
    for _ in range(200):  # g = a + b * g, a contraction with factor P(explode) <= 0.9
        nxt = a + np.convolve(b, g)[:length]
        if np.max(np.abs(nxt - g)) < 1e-18:
            g = nxt
            break
        g = nxt
    return g


def _crit_rows(max_n: int, rule: PoolRule) -> np.ndarray:
    """Joint law of (10s, other successes) for 0..max_n dice, one die added at a time.

    ``joint[n, t, s]``: P(``t`` tens and ``s`` successes among the other faces) with ``n``
    non-exploding d10 (C1, C-g2); built by the recursion over one more die's face.
    """
    p_ten = 0.1
    p_succ = (10 - rule.threshold) / 10  # faces threshold..9
    p_fail = 1 - p_ten - p_succ
    joint = np.zeros((max_n + 1, max_n + 1, max_n + 1))
    joint[0, 0, 0] = 1.0
    for n in range(1, max_n + 1):
        prev = joint[n - 1]
        cur = joint[n]
        cur += p_fail * prev
        cur[:, 1:] += p_succ * prev[:, :-1]
        cur[1:, :] += p_ten * prev[:-1, :]
    return joint


def exact(pools: np.ndarray, rule: PoolRule, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact outcome distribution for each pool (A1, A-g1, C1, C-g2).

    Returns ``(probs[n_pools, n_codes], tail[n_pools])`` where ``tail`` is the mass
    beyond the last code that truncation dropped (folded into no code).
    """
    pools = np.asarray(pools, dtype=np.int64)
    length = n_codes - 1  # successes 0..n_codes-2
    probs = np.zeros((pools.size, n_codes))
    max_n = int(pools.max(initial=0))
    if rule.crit_pair_bonus:
        joint = _crit_rows(max(max_n, 0), rule)
        t, s = np.indices(joint.shape[1:])
        code = np.minimum(1 + s + t + (t // 2) * rule.crit_pair_bonus, n_codes - 1).ravel()
        by_size = np.zeros((max(max_n, 0) + 1, n_codes))
        for n in range(max_n + 1):
            by_size[n] = np.bincount(code, weights=joint[n].ravel(), minlength=n_codes)
    else:
        die = _die_series(rule, length)
        by_size = np.zeros((max(max_n, 0) + 1, n_codes))
        dist = np.array([1.0])
        by_size[0, 1] = 1.0
        for n in range(1, max_n + 1):  # one more die (and its chain) at a time
            dist = np.convolve(dist, die)[:length]
            by_size[n, 1 : 1 + dist.size] = dist
    for i, n in enumerate(pools):
        row = probs[i]
        if n > 0:
            row[:] = by_size[n]
            continue
        if not rule.chance_die:
            row[1] = 1.0
            continue
        row[0] = 0.1  # a 1: dramatic failure
        row[1] = 0.8
        if rule.chance_explodes and rule.again <= 10:
            # the 10 succeeds and its chain continues with ordinary dice
            chain = np.convolve([0.0, 1.0], _die_series(rule, length))[:length]
            row[1:] += 0.1 * chain
        else:
            row[2] += 0.1
    tail = np.clip(1.0 - probs.sum(axis=1), 0.0, None)
    return probs, tail


# Packed per-triple counts (see :func:`digit_table`): 21 bits per field.
_FIELD = 21
_FIELD_MASK = (1 << _FIELD) - 1


def digit_table(rule: PoolRule) -> np.ndarray:
    """Packed counts of three d10 read from one uniform value ``v`` in 0..999 (A1, C1).

    Digit ``d`` of ``v`` is the face ``d + 1``. Row ``j`` counts only the last ``j``
    digits (row 0 counts nothing; rows 1 and 2 serve the last one or two dice of a
    pool): a leading digit 0 is a face 1, which never succeeds, explodes or shows 10
    (thresholds and ``again`` are at least 2), so row ``j`` at ``v`` equals the full count
    at ``v mod 10**j``. Each entry packs successes, 10s and exploding faces in 21-bit
    fields: ``succ | tens << 21 | expl << 42``.
    """
    v = np.arange(1000)
    digits = np.stack([0 * v, v % 10, v // 10 % 10, v // 100])  # last digit first
    faces = digits + 1
    per_die = (
        (faces >= rule.threshold).astype(np.int64)
        | (faces == 10).astype(np.int64) << _FIELD
        | (faces >= rule.again).astype(np.int64) << 2 * _FIELD
    )
    per_die[0] = 0
    return np.cumsum(per_die, axis=0)  # row j: the last j digits


@njit(**INLINE)
def _round(k, acc, table, s0, s1, s2, s3, buf, nbuf):
    """One round: ``k`` dice (at least one triple is read, even for ``k`` ≤ 0)."""
    while True:
        if nbuf == 0:
            buf, s0, s1, s2, s3 = d10_triples(s0, s1, s2, s3)
            nbuf = 3
        v = np.int64(buf & np.uint64(1023))
        buf >>= np.uint64(10)
        nbuf -= 1
        acc += table[max(min(k, 3), 0), v]
        k -= 3
        if k <= 0:
            return acc, s0, s1, s2, s3, buf, nbuf


@njit(**INLINE)
def _pool_dice(k, table, explodes, s0, s1, s2, s3, buf, nbuf):
    """Roll ``k`` dice and every explosion they cause; packed counts summed (A1, C1).

    Three dice per table lookup and no per-die branch. Explosions are rolled in rounds
    (the dice a round adds are its growth of the packed explosion count), so within a
    round the dice count does not wait on the table lookups. With explosions on, the
    second round always reads one triple, used or not (discarding dice keeps them exact),
    instead of branching on whether any die exploded: that branch is a coin toss for
    mid-sized pools.
    """
    shift = np.int64(2 * _FIELD)
    acc, s0, s1, s2, s3, buf, nbuf = _round(k, np.int64(0), table, s0, s1, s2, s3, buf, nbuf)
    if explodes:
        before = acc >> shift
        k = before
        while True:
            acc, s0, s1, s2, s3, buf, nbuf = _round(k, acc, table, s0, s1, s2, s3, buf, nbuf)
            k = (acc >> shift) - before
            before = acc >> shift
            if k <= 0:
                break
    return acc, s0, s1, s2, s3, buf, nbuf


@njit(**PJIT)
def _pool_kernel(
    pools, table, explodes, crit_bonus, chance_die, chance_chain, trials, states, order, out
):
    """Outcome-code histograms of pool checks, one per (pool × chunk) item."""
    n_chunks = trials.size
    n_codes = out.shape[1]
    mask = np.int64(_FIELD_MASK)
    for i in prange(order.size):
        item = order[i]
        s0, s1, s2, s3 = load_state(states[item])
        buf = np.uint64(0)
        nbuf = 0
        hist = np.zeros(n_codes, dtype=np.int64)
        n = pools[item // n_chunks]
        for _ in range(trials[item % n_chunks]):
            if n > 0:
                acc, s0, s1, s2, s3, buf, nbuf = _pool_dice(
                    n, table, explodes, s0, s1, s2, s3, buf, nbuf
                )
                code = 1 + (acc & mask) + ((acc >> np.int64(_FIELD)) & mask) // 2 * crit_bonus
            elif chance_die == 0:
                code = 1
            else:  # A-g1: one chance die; only a 10 succeeds, a 1 is a dramatic failure
                if nbuf == 0:
                    buf, s0, s1, s2, s3 = d10_triples(s0, s1, s2, s3)
                    nbuf = 3
                face = np.int64(buf & np.uint64(1023)) % 10 + 1
                buf >>= np.uint64(10)
                nbuf -= 1
                if face == 1:
                    code = 0
                elif face < 10:
                    code = 1
                else:
                    acc, s0, s1, s2, s3, buf, nbuf = _pool_dice(
                        chance_chain, table, explodes, s0, s1, s2, s3, buf, nbuf
                    )
                    code = 2 + (acc & mask)
            hist[min(code, n_codes - 1)] += 1
        out[item, :] = hist
        store_state(states[item], s0, s1, s2, s3)


def monte_carlo(
    pools: np.ndarray, rule: PoolRule, n_codes: int, trials: int, seed: Seed
) -> np.ndarray:
    """Monte Carlo outcome counts ``[n_pools, n_codes]`` for each pool, ``trials`` each.

    Same outcome codes as :func:`exact`; work split in (pool × chunk) items with their own
    generator state and histogram, so counts are bit-identical for any thread count.
    """
    pools = np.ascontiguousarray(np.atleast_1d(pools), dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, pools.size * n_chunks)
    out = np.zeros((pools.size * n_chunks, n_codes), dtype=np.int64)
    # a chance die's 10 rolls one more ordinary die when it explodes (A-g1 variant)
    chain = int(rule.chance_explodes and rule.again <= 10)
    _pool_kernel(
        pools,
        digit_table(rule),
        rule.again <= 10,
        np.int64(rule.crit_pair_bonus),
        np.int64(rule.chance_die),
        np.int64(chain),
        per_chunk,
        states,
        work_order(pools.size, n_chunks),
        out,
    )
    return out.reshape(pools.size, n_chunks, n_codes).sum(axis=1)
