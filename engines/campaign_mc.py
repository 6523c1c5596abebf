"""The Python side of the campaign Monte Carlo kernels, shared by every
campaign module (``engines/systems/<id>/campaign.py`` for the built-ins).

A campaign kernel is a serial loop over chunks ``first .. last - 1`` (one thread's block:
:func:`engines.blocks.run_blocks`). It follows ``per_chunk[c]`` characters of chunk ``c``
from its own generator state ``states[c]`` and fills, per chunk (so the result never
depends on the thread count):

- ``dist[c, k, i]``: characters in state index ``i`` after session ``k`` (``k = 0..N``);
- ``passage[c, k]``: characters first in a ``hit`` state after session ``k``; the last
  entry counts those that never got there by session ``N``;
- ``ext[c, e, k]`` / ``ext_sq[c, e, k]``: the sum over characters of tally ``e``
  (cumulative up to session ``k``), and of its square.

:func:`run` allocates these, calls the kernel and turns the sums into a
:class:`~engines.campaign.CampaignStats` (tally means in ``extra[name]``, their standard
errors in ``extra[name + "_se"]``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .blocks import run_blocks
from .campaign import CampaignStats
from .rng import Seed, chunk_states, chunk_trials, plan_chunks

__all__ = ["expected_tallies", "hit_mask", "run"]


def hit_mask(values: np.ndarray, threshold: int | None, direction: str) -> np.ndarray:
    """``int64`` mask of the states at or beyond ``threshold`` (``"up"``: value ≥
    threshold; ``"down"``: value ≤ threshold); all zeros without a threshold."""
    if threshold is None:
        return np.zeros(values.size, np.int64)
    hit = values >= threshold if direction == "up" else values <= threshold
    return hit.astype(np.int64)


def run(
    kernel: Callable,
    args: tuple,
    *,
    system: str,
    mechanic: str,
    values: np.ndarray,
    sessions: int,
    trials: int,
    seed: Seed,
    threshold: int | None,
    hit: np.ndarray,
    tallies: Sequence[str] = (),
    notes: dict | None = None,
) -> CampaignStats:
    """Run ``kernel(first, last, *args, sessions, per_chunk, states, hit, dist, passage,
    ext, ext_sq)`` on every chunk (:func:`~engines.blocks.run_blocks`) and sum the chunks
    into a :class:`CampaignStats` of counts."""
    n_chunks, _ = plan_chunks(trials)
    per_chunk = chunk_trials(trials, n_chunks)
    states = chunk_states(seed, n_chunks)
    n_ext = max(1, len(tallies))
    dist = np.zeros((n_chunks, sessions + 1, values.size), np.int64)
    passage = np.zeros((n_chunks, sessions + 2), np.int64)
    ext = np.zeros((n_chunks, n_ext, sessions + 1), np.int64)
    ext_sq = np.zeros((n_chunks, n_ext, sessions + 1), np.int64)
    run_blocks(
        kernel,
        (
            *args,
            np.int64(sessions),
            per_chunk,
            states,
            np.ascontiguousarray(hit, np.int64),
            dist,
            passage,
            ext,
            ext_sq,
        ),
        n_chunks,
    )
    n = float(trials)
    extra: dict[str, np.ndarray] = {}
    tot, tot_sq = ext.sum(axis=0), ext_sq.sum(axis=0)
    for e, name in enumerate(tallies):
        mean = tot[e] / n
        var = np.maximum(tot_sq[e] / n - mean**2, 0.0)
        extra[name] = mean
        extra[name + "_se"] = np.sqrt(var / n)
    return CampaignStats(
        system=system,
        mechanic=mechanic,
        values=values,
        dist=dist.sum(axis=0),
        passage=None if threshold is None else passage.sum(axis=0),
        threshold=threshold,
        extra=extra,
        trials=int(trials),
        notes=dict(notes or {}),
    )


def expected_tallies(dist: np.ndarray, per_session: np.ndarray) -> np.ndarray:
    """Exact cumulative tallies: ``per_session[i]`` is the expected tally of one session
    started in state ``i``; entry ``k`` is the expected total over sessions ``1..k``."""
    out = np.zeros(dist.shape[0])
    out[1:] = np.cumsum(dist[:-1] @ per_session)
    return out
