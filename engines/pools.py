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
from scipy.stats import binom

from . import checks
from .errors import InputError
from .rng import Seed
from .rolls import POOL

#: Neglected tail mass allowed when an explosion chain is truncated.
TAIL_TOLERANCE = 1e-12


@dataclass(frozen=True)
class PoolRule:
    """How one d10 pool is read (the kernel receives it as :meth:`as_array`)."""

    threshold: int = 7       # a die succeeds on this face or higher
    again: int = 10          # faces >= again roll one more die (11 = no explosion)
    crit_pair_bonus: int = 0  # extra successes per pair of 10s (V5: 2)
    chance_die: bool = True  # pool <= 0 rolls one die: 10 succeeds, 1 is a dramatic failure
    chance_explodes: bool = False

    def as_array(self) -> np.ndarray:
        return np.array([self.threshold, self.again, self.crit_pair_bonus,
                         int(self.chance_die), int(self.chance_explodes)], dtype=np.int64)

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
    while n * p_exp ** extra > TAIL_TOLERANCE * 1e-3:
        extra += 1
    return 2 + n + extra + 1


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


def exact(pools: np.ndarray, rule: PoolRule, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact outcome distribution for each pool (A1, A-g1, C1, C-g2).

    Returns ``(probs[n_pools, n_codes], tail[n_pools])`` where ``tail`` is the mass
    beyond the last code that truncation dropped (folded into no code).
    """
    pools = np.asarray(pools, dtype=np.int64)
    length = n_codes - 1  # successes 0..n_codes-2
    probs = np.zeros((pools.size, n_codes))
    die = _die_series(rule, length) if not rule.crit_pair_bonus else None
    for i, n in enumerate(pools):
        row = probs[i]
        if n <= 0:
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
            continue
        if rule.crit_pair_bonus:
            p_other = (10 - rule.threshold) / 9  # success among non-10 faces
            tens = np.arange(n + 1)
            p_tens = binom.pmf(tens, n, 0.1)
            for t, pt in zip(tens, p_tens, strict=True):
                others = np.arange(n - t + 1)
                s = others + t + (t // 2) * rule.crit_pair_bonus
                np.add.at(row, 1 + np.minimum(s, length - 1),
                          pt * binom.pmf(others, n - t, p_other))
            continue
        dist = np.array([1.0])
        for _ in range(n):
            dist = np.convolve(dist, die)[:length]
        row[1:1 + dist.size] = dist
    tail = np.clip(1.0 - probs.sum(axis=1), 0.0, None)
    return probs, tail


def monte_carlo(pools: np.ndarray, rule: PoolRule, n_codes: int, trials: int,
                seed: Seed) -> np.ndarray:
    """Monte Carlo outcome counts ``[n_pools, n_codes]`` for each pool, ``trials`` each."""
    return checks.run(POOL, pools, rule.as_array(), n_codes, trials, seed)
