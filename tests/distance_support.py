"""What the distance tests of the pool-style engines share (``tests/test_distance_*.py``):
the Monte Carlo-vs-exact check of a duel, and the digest of a fight's histograms that
pins the engaged fights (d0 = 0) to the numbers recorded before distance existed."""

from __future__ import annotations

import hashlib

import numpy as np

from engines.fight import HIST_FIELDS


def assert_mc_matches_exact(mc, ex) -> None:
    """Every outcome, round, loser-dead and standing cell within 5 SE + one count."""
    n = mc.trials
    for name in ("outcome", "rounds", "loser_dead", "standing"):
        p = np.clip(getattr(ex, name).ravel(), 0.0, 1.0)
        p_mc = getattr(mc, name).ravel() / n
        tol = 5 * np.sqrt(p * (1 - p) / n) + 1 / n
        bad = np.abs(p_mc - p) > tol
        assert not bad.any(), (name, np.flatnonzero(bad), p[bad], p_mc[bad])


#: The histograms the pinned digests cover: those of FightStats when the digests were
#: recorded (the later tallies ``dead_any`` and ``deaths_sq`` are tested on their own in
#: tests/test_lethality_deadliness.py), so a new tally does not move an old digest.
DIGEST_FIELDS = tuple(f for f in HIST_FIELDS if f not in ("dead_any", "deaths_sq"))


def hist_digest(stats) -> str:
    """sha256 (first 16 hex digits) of the histograms :data:`DIGEST_FIELDS` of a
    FightStats."""
    h = hashlib.sha256()
    for name in DIGEST_FIELDS:
        h.update(np.ascontiguousarray(getattr(stats, name)).tobytes())
    return h.hexdigest()[:16]
