"""``acing_die``: a checks-only system for the tests, registered in process (never shipped).

A trait die that aces, as Savage Worlds rolls it (this file's own rule ids):

- AD1 Roll the trait die (d4, d6, d8, d10 or d12) and add the modifier; the check succeeds
  when the total reaches the target number (TN; 4 is the usual one).
- AD2 The die aces: on its highest face it is rolled again and the new roll added, without
  limit (variant ``aces``, default true).

So an acing d4 totals 6 or more with probability 1/4 × 3/4 = 3/16 (a 4, then 2+), a d6 with
1/6 (a 6): P(success) is not monotone in the die, a real property of such games, which the
system declares (``System.known``). Its modifier axis is listed from −4, with its neutral
(0) declared: the commands that hold it must read it at 0, not at −4.

P(total = t) of an acing dS: t = k·S + r with 0 ≤ k and 1 ≤ r ≤ S − 1 has probability
(1/S)^(k + 1) (k aces, then a face that does not ace); a multiple of S is never a final
total. Outcome codes are totals 1 … CAP − 1 and a last code for CAP or more.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from engines.system import Checks, Known, Ladder, System
from engines.variants import variant

SYSTEM = "acing_die"
DICE = (4, 6, 8, 10, 12)
TNS = (4, 5, 6, 7, 8)
MODIFIERS = tuple(range(-4, 5))
#: totals 1 .. CAP - 1 have a code each; the last code is CAP or more (TN 8 − (−4) = 12 < CAP)
CAP = 13
VALUES = np.arange(1, CAP + 1, dtype=float)


@dataclass(frozen=True)
class Variants:
    system: ClassVar[str] = SYSTEM
    aces: bool = variant(
        True, rule="AD2", doc="the die is rolled again and added on its highest face"
    )


def p_total_at_least(sides: int, need: int, aces: bool = True) -> Fraction:
    """P(an acing dS totals at least ``need``), exactly, by AD1/AD2 (for the tests' hand
    values; independent of :func:`exact`)."""
    if need <= 1:
        return Fraction(1)
    if not aces:
        return Fraction(max(0, sides - need + 1), sides)
    # k aces then a last face r: total k·S + r >= need
    p, k = Fraction(0), 0
    while k * sides + 1 < need:  # once k·S + 1 >= need, every later total counts
        base = k * sides
        good = sum(1 for r in range(1, sides) if base + r >= need)
        p += Fraction(1, sides) ** (k + 1) * good
        k += 1
    return p + Fraction(1, sides) ** k  # k aces reached: the total is already >= need


def exact(settings, variants=None):
    """``[settings, CAP]`` probabilities of the totals (AD1, AD2) for each die size."""
    aces = True if variants is None else variants.aces
    out = np.zeros((len(settings), CAP))
    for i, sides in enumerate(np.asarray(settings, dtype=np.int64).tolist()):
        for t in range(1, CAP):
            if aces:
                k, r = divmod(t, sides)
                out[i, t - 1] = (1 / sides) ** (k + 1) if r else 0.0
            else:
                out[i, t - 1] = 1 / sides if t <= sides else 0.0
        out[i, CAP - 1] = 1.0 - out[i, : CAP - 1].sum()
    return out


def monte_carlo(settings, trials, seed=None, variants=None):
    aces = True if variants is None else variants.aces
    rng = np.random.default_rng(seed)
    out = np.zeros((len(settings), CAP), dtype=np.int64)
    for i, sides in enumerate(np.asarray(settings, dtype=np.int64).tolist()):
        total = np.zeros(trials, dtype=np.int64)
        rolling = np.ones(trials, dtype=bool)
        while rolling.any():
            roll = rng.integers(1, sides + 1, size=int(rolling.sum()))
            total[rolling] += roll
            again = roll == sides if aces else np.zeros(roll.size, dtype=bool)
            rolling[np.flatnonzero(rolling)[~again]] = False
        out[i] = np.bincount(np.minimum(total, CAP) - 1, minlength=CAP)
    return out


def check_grid(cells, variants):
    """AD1: total + modifier >= TN, one roll setting per die size."""
    dice = np.asarray(cells["die"], dtype=np.int64)
    settings, of_cell = np.unique(dice, return_inverse=True)
    need = np.asarray(cells["tn"])[:, None] - np.asarray(cells["modifier"])[:, None]
    return settings, of_cell.astype(np.int64), VALUES[None, :] >= need, VALUES


ACING = System(
    id=SYSTEM,
    name="acing trait die + modifier vs TN",
    checks=Checks(
        module=__name__,
        axes={"die": DICE, "tn": TNS, "modifier": MODIFIERS},
        neutral={"modifier": 0},
        grid=check_grid,
    ),
    ladder=Ladder(
        competence_axis="die",
        difficulty_axis="tn",
        rungs={"untrained": 4, "novice": 6, "competent": 8, "expert": 10, "master": 12},
    ),
    known=(
        Known(
            "competence_monotone", "acing (AD2): an acing d4 totals 6 or more more often than a d6"
        ),
    ),
)

#: the same system without its declared exception
UNDECLARED = dataclasses.replace(ACING, known=())
