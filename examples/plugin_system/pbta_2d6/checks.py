"""``pbta_2d6``: roll 2d6 + modifier; 6 or less misses, 7–9 is a weak hit, 10+ a strong hit.

Rules (this package's own ids):

- P1 Roll 2d6 and add the modifier (−3 … +4).
- P2 A total of 6 or less is a miss, 7–9 a weak hit, 10 or more a strong hit.
- P3 Advantage rolls 3d6 and keeps the best two; disadvantage keeps the worst two.

This is the check module a :class:`engines.system.System` names as its ``module``
(``Variants``, ``exact``, ``monte_carlo``, and the ``check_grid`` hook); the package's
``PLUGIN`` (in ``pbta_2d6/__init__.py``) is registered under the entry-point group
``rpg_balance.systems`` in ``pyproject.toml``. Outcome codes are the kept two dice's sum
minus 2 (codes 0 … 10 for sums 2 … 12); a roll setting is a roll mode.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines.errors import InputError
from engines.variants import variant

SYSTEM = "pbta_2d6"
MODES = ("normal", "advantage", "disadvantage")
N_CODES = 11  # sums 2..12
LEVELS = ("weak", "strong")


@dataclass(frozen=True)
class Variants:
    """The hit thresholds (P2); the defaults are the rules'."""

    system: ClassVar[str] = SYSTEM
    weak_at: int = variant(7, rule="P2", doc="lowest total that is a (weak) hit")
    strong_at: int = variant(10, rule="P2", doc="lowest total that is a strong hit")


def _modes(settings) -> list[str]:
    out = [str(s) for s in np.atleast_1d(settings)]
    for m in out:
        if m not in MODES:
            raise InputError(f"{SYSTEM}: roll mode {m!r}; known: {', '.join(MODES)}")
    return out


def _kept(mode: str, dice) -> int:
    """P1/P3: the sum of the two dice the mode keeps."""
    if mode == "normal":
        return dice[0] + dice[1]
    best = sorted(dice)
    return best[1] + best[2] if mode == "advantage" else best[0] + best[1]


def exact(settings=MODES, variants: Variants | None = None) -> np.ndarray:
    """P(code) for each roll mode, by enumerating every face of 2d6 (normal) or 3d6."""
    out = np.zeros((len(_modes(settings)), N_CODES))
    for i, mode in enumerate(_modes(settings)):
        n = 2 if mode == "normal" else 3
        for dice in itertools.product(range(1, 7), repeat=n):
            out[i, _kept(mode, dice) - 2] += 1
        out[i] /= 6**n
    return out


def monte_carlo(
    settings=MODES, trials: int = 100_000, seed=None, variants: Variants | None = None
) -> np.ndarray:
    """Counts of each code per roll mode from ``trials`` rolls (numpy's generator)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((len(_modes(settings)), N_CODES), dtype=np.int64)
    for i, mode in enumerate(_modes(settings)):
        dice = rng.integers(1, 7, size=(trials, 3))
        if mode == "normal":
            kept = dice[:, 0] + dice[:, 1]
        else:
            dice.sort(axis=1)
            kept = dice[:, 1] + dice[:, 2] if mode == "advantage" else dice[:, 0] + dice[:, 1]
        out[i] = np.bincount(kept - 2, minlength=N_CODES)
    return out


def check_grid(cells, variants: Variants):
    """The success mask of each (modifier, roll, level) cell: total = kept sum + modifier
    reaches the level's threshold (P2)."""
    settings = np.array(MODES)
    setting_of_cell = np.array([MODES.index(m) for m in _modes(cells["roll"])])
    need = np.array(
        [{"weak": variants.weak_at, "strong": variants.strong_at}[str(x)] for x in cells["level"]]
    )
    sums = np.arange(2, 13)
    total = sums[None, :] + np.asarray(cells["modifier"])[:, None]
    return settings, setting_of_cell, total >= need[:, None], sums.astype(float)


def move_odds(stat: int, variants: Variants | None = None) -> np.ndarray:
    """``[P(miss), P(weak hit), P(strong hit)]`` of one normal roll, 2d6 + ``stat`` (P1,
    P2), exact. The combat (PC3–PC5) and the campaign (PX1) roll this move.

    Examples
    --------
    >>> [round(float(p) * 36) for p in move_odds(1)]   # 2d6 >= 6 hits, >= 9 is strong
    [10, 16, 10]
    """
    v = Variants() if variants is None else variants
    total = np.arange(2, 13) + int(stat)
    p = exact(["normal"], v)[0]
    strong = float(p[total >= v.strong_at].sum())
    weak = float(p[(total >= v.weak_at) & (total < v.strong_at)].sum())
    return np.array([1.0 - weak - strong, weak, strong])
