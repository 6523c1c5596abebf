"""The check hooks the two dice-pool systems share (``dice_pool_7``, ``dice_pool_6``).

Both roll a pool of d10 and count successes; an outcome code is a success count (see
:mod:`engines.pools`). These functions take the system's engine module and build what
its :class:`engines.system.System` hands to the generic analysis code: the success-curve
grid, exact / Monte Carlo distributions, the kernel arguments and the chance matrix of
the difficulty solver. numpy only.
"""

from __future__ import annotations

import numpy as np

from .rolls import POOL

__all__ = ["chance_matrix", "check_grid", "code_count", "kernel", "score"]


def check_grid(mod, need_axis: str, cells, variants):
    """Success mask of (pool, ``need_axis``) cells: at least ``need`` successes."""
    pools = np.asarray(cells["pool"])
    settings = np.array(sorted(set(pools)), dtype=np.int64)
    ncodes = mod.n_codes(int(settings.max(initial=1)), variants)
    succ = mod.successes_of_codes(ncodes)
    need = np.asarray(cells[need_axis])
    mask = succ[None, :] >= need[:, None]
    return settings, np.searchsorted(settings, pools), mask, succ.astype(float)


def code_count(mod, settings, variants) -> int:
    """Outcome codes needed for the largest pool of ``settings``."""
    return mod.n_codes(int(np.max(settings, initial=1)), variants)


def kernel(mod, settings, variants):
    """Arguments of :func:`engines.checks.run` for pools."""
    return POOL, mod._check_pools(settings), variants.rule().as_array()


def chance_matrix(mod, axis: str, competences, difficulties, variants) -> np.ndarray:
    """Exact P(success) ``[competences, difficulties]``: pools of ``competence`` dice need
    ``difficulty`` successes (``axis="successes"``), or lose ``difficulty`` dice and need
    one success (``axis="penalty"``)."""
    comp = np.asarray(list(competences), dtype=np.int64)
    diffs = np.asarray(difficulties, dtype=np.int64)
    if axis == "penalty":
        pools = np.maximum(comp[:, None] - diffs[None, :], 0)
        need = np.ones_like(pools)
    else:
        pools = np.broadcast_to(comp[:, None], (comp.size, diffs.size))
        need = np.broadcast_to(diffs[None, :], pools.shape)
    uniq = np.unique(np.maximum(pools, 0))
    codes = mod.n_codes(int(uniq.max(initial=1)), variants)
    probs, _ = mod.exact(uniq, variants, codes)
    # tail[k] = P(successes >= k) for k = 0..codes-2
    succ_tail = np.cumsum(probs[:, ::-1], axis=1)[:, ::-1][:, 1:]
    row = np.searchsorted(uniq, pools)
    col = np.minimum(need, succ_tail.shape[1] - 1)
    return np.where(need < succ_tail.shape[1], succ_tail[row, col], 0.0)


def score(mod, pool: int, variants):
    """(successes, probabilities) of one check of ``pool`` dice."""
    probs, _ = mod.exact([pool], variants)
    return mod.successes_of_codes(probs.shape[1]).astype(float), probs[0]
