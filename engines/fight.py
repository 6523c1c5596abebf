"""What every combat engine returns: :class:`FightStats`, exact or Monte Carlo.

A fight has sides 0 and 1 (each one or more combatants) and ends when one side has no
one able to act, or at the round cap (``neither``). Kernels fill raw integer histograms;
exact solvers fill the same arrays with probabilities (``trials is None``). Analysis code
reads only this type, so it treats every system alike.

Arrays (``R`` = round cap):

- ``outcome[3]``: side 0 wins, side 1 wins, neither within the cap.
- ``rounds[R + 1, 3]``: the round in which the fight ended, by outcome (row R for
  "neither" — the cap).
- ``loser_dead[2]``: fights won by side 0 / side 1 in which every combatant of the losing
  side is dead (not merely incapacitated).
- ``standing[R + 1, 2]``: combatants of each side still able to act after round k (row 0
  is the start), summed over trials (or expected, for exact results).
- ``deaths[2]``: combatants of each side dead at the end, summed over trials.
- ``hits[D + 1]``: damage dealt per successful attack (0..D, D = the last bin, "D or more").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

OUTCOMES = ("side0", "side1", "neither")
#: Default round cap: a fight still going after this many rounds is reported as "neither".
ROUND_CAP = 50
#: Damage histogram bins (the last bin holds "this much or more").
DAMAGE_BINS = 64


@dataclass
class FightStats:
    """Outcome histograms of a fight; probabilities when ``trials`` is None (exact)."""

    system: str
    outcome: np.ndarray
    rounds: np.ndarray
    loser_dead: np.ndarray
    standing: np.ndarray
    deaths: np.ndarray
    hits: np.ndarray
    trials: int | None = None
    notes: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, system: str, round_cap: int = ROUND_CAP, trials: int | None = None,
              dtype=np.int64) -> FightStats:
        return cls(system=system, outcome=np.zeros(3, dtype),
                   rounds=np.zeros((round_cap + 1, 3), dtype),
                   loser_dead=np.zeros(2, dtype), standing=np.zeros((round_cap + 1, 2), dtype),
                   deaths=np.zeros(2, dtype), hits=np.zeros(DAMAGE_BINS, dtype), trials=trials)

    @property
    def exact(self) -> bool:
        return self.trials is None

    @property
    def n(self) -> float:
        return 1.0 if self.trials is None else float(self.trials)

    def p_outcome(self) -> np.ndarray:
        """P(side 0 wins), P(side 1 wins), P(neither)."""
        return self.outcome / self.n

    def se_outcome(self) -> np.ndarray:
        """Binomial standard errors of :meth:`p_outcome` (zeros when exact)."""
        if self.exact:
            return np.zeros(3)
        p = self.p_outcome()
        return np.sqrt(p * (1 - p) / self.n)

    def rounds_pmf(self) -> np.ndarray:
        """P(the fight ends in round k), any outcome, k = 0..R (R = the cap)."""
        return self.rounds.sum(axis=1) / self.n

    @property
    def round_cap(self) -> int:
        return self.rounds.shape[0] - 1


def check_round_cap(round_cap, limit: int = 10_000) -> int:
    """The round cap as an ``int`` in ``1..limit``; anything else raises InputError."""
    if isinstance(round_cap, bool) or not isinstance(round_cap, int | np.integer) \
            or not 1 <= round_cap <= limit:
        raise InputError(f"round_cap: expected an integer 1..{limit}, got {round_cap!r}")
    return int(round_cap)


def check_side(combatants, label: str, cls: type, system: str) -> list:
    """One side of a fight as a non-empty list of ``cls`` objects (InputError otherwise)."""
    combatants = list(combatants)
    if not combatants:
        raise InputError(f"{label}: a side needs at least one combatant")
    for c in combatants:
        if not isinstance(c, cls):
            raise InputError(f"{label}: expected {system} {cls.__name__} objects, got "
                             f"{type(c).__name__}")
    return combatants
