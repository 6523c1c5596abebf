"""Slow, obviously-correct references shared by the check-engine tests.

Nothing here calls the engines: every function enumerates faces or builds icepool dice
from the rule text, so a test comparing an engine with these can fail.
"""

from __future__ import annotations

import functools
import itertools

import icepool
import numpy as np


def mc_tolerance(p, n):
    """Five binomial standard errors plus one count (cells with expected count below one)."""
    p = np.asarray(p, dtype=float)
    return 5 * np.sqrt(p * (1 - p) / n) + 1 / n


def assert_mc_matches(p_exact, p_mc, n, label=""):
    """Every cell: ``|p_mc - p| <= 5 * sqrt(p (1 - p) / n) + 1 / n``."""
    p_exact = np.asarray(p_exact, dtype=float)
    p_mc = np.asarray(p_mc, dtype=float)
    bad = np.abs(p_mc - p_exact) > mc_tolerance(p_exact, n)
    assert not bad.any(), (
        f"{label}: {int(bad.sum())} of {bad.size} cells outside 5 SE + 1/n; first at "
        f"{np.argwhere(bad)[0].tolist()}: mc {p_mc[bad][0]:.6f} vs exact {p_exact[bad][0]:.6f}"
    )


def pool_codes_brute(
    n,
    threshold=7,
    again=10,
    crit_bonus=0,
    chance_die=True,
    chance_explodes=False,
    max_dice=60,
    n_codes=None,
):
    """Outcome codes of a d10 pool by recursion over every face of every die (A1, C1).

    Code 0: a chance die's 1 (dramatic failure); code ``1 + k``: ``k`` successes. Dice
    beyond ``max_dice`` rolled in one check are dropped (their mass is the returned tail).
    ``again`` None: no explosions.
    """
    again = 11 if again is None else again

    @functools.cache
    def roll(k, budget):
        """Joint distribution {(successes, tens): p} of ``k`` dice plus their explosions."""
        if k == 0:
            return {(0, 0): 1.0}
        if budget == 0:
            return {}
        out = {}
        for face in range(1, 11):
            rest = roll(k - 1 + (face >= again), budget - 1)
            for (s, t), p in rest.items():
                key = (s + (face >= threshold), t + (face == 10))
                out[key] = out.get(key, 0.0) + p / 10
        return out

    codes = {}
    if n <= 0:
        if not chance_die:
            return {1: 1.0}
        codes = {0: 0.1, 1: 0.8}
        if chance_explodes and again <= 10:
            for (s, _), p in roll(1, max_dice).items():
                codes[2 + s] = codes.get(2 + s, 0.0) + 0.1 * p
        else:
            codes[2] = 0.1
        return codes
    for (s, t), p in roll(n, max_dice).items():
        c = 1 + s + (t // 2) * crit_bonus
        codes[c] = codes.get(c, 0.0) + p
    return codes


def pool_product(n, threshold, crit_bonus=0):
    """Outcome codes of ``n`` non-exploding d10 by itertools over all 10**n rolls (C1)."""
    out = {}
    for faces in itertools.product(range(1, 11), repeat=n):
        s = sum(f >= threshold for f in faces)
        t = sum(f == 10 for f in faces)
        c = 1 + s + (t // 2) * crit_bonus
        out[c] = out.get(c, 0) + 1
    return {c: k / 10**n for c, k in out.items()}


def dense(codes: dict, n_codes: int) -> np.ndarray:
    row = np.zeros(n_codes)
    for c, p in codes.items():
        row[min(c, n_codes - 1)] += p
    return row


def icepool_success_die(threshold=7, again=10, depth=40):
    """One d10 and its explosion chain as an icepool die of success counts (A1)."""
    again = 11 if again is None else again
    faces = []
    for f in range(1, 11):
        s = int(f >= threshold)
        faces.append(s + icepool.Again if f >= again else s)
    return icepool.Die(faces, again_depth=depth)


def icepool_pool_codes(n, threshold=7, again=10, depth=40, n_codes=60):
    """Pool outcome codes from icepool (positive pools only)."""
    total = n @ icepool_success_die(threshold, again, depth)
    row = np.zeros(n_codes)
    for k, q in total.items():
        row[min(1 + k, n_codes - 1)] += q / total.denominator()
    return row
