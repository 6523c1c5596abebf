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

Lethality outcomes (RULES.md, "Lethality outcomes"): when a fight ends, every fallen
combatant goes through the *aftermath* under a policy of :data:`AFTERMATHS` (each combat
module's ``aftermath`` variant) and ends in one of :data:`FATES`:

- ``loser_fate[2, 3]``: by winning side ``w``, the number of combatants of the losing side
  that end dead / dying / out, summed over the fights ``w`` won (exact: expected numbers).
  For 1-vs-1 fights each fight adds exactly one count, so row ``w`` sums to ``outcome[w]``.
- ``loser_fate_sq[2, 3]``: the same with each fight's count squared (for standard errors;
  equal to ``loser_fate`` in duels).
- ``fates[2, 4]``: per side, combatants that end standing / dead / dying / out, summed over
  every trial (a fight stopped at the round cap included). Row ``s`` sums to the side's
  size times the trials.
- ``fates_sq[2, 4]``: the same with each trial's count squared.
- ``dead_any[1]``: trials in which at least one combatant (either side) ends dead, and
  ``deaths_sq[1]``: each trial's number of dead combatants (both sides) squared, summed
  (Monte Carlo only; an exact result is a duel, where at most the loser dies, so both
  follow from ``deaths``: :meth:`FightStats.p_someone_dead`).

``loser_dead[w]`` counts the fights won by ``w`` whose whole losing side ends dead, and
``deaths[s]`` equals ``fates[s, 1]``, both after the aftermath.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .constants import AFTERMATHS, ROUND_CAP
from .errors import InputError

__all__ = [
    "AFTERMATHS",
    "DAMAGE_BINS",
    "FATES",
    "HIST_FIELDS",
    "OUTCOMES",
    "ROUND_CAP",
    "SIDE_FATES",
    "FightStats",
    "check_aftermath",
    "check_round_cap",
    "check_side",
    "check_start_damage",
]

OUTCOMES = ("side0", "side1", "neither")
#: What becomes of a fallen combatant (RULES.md "Lethality outcomes"), in array order.
FATES = ("dead", "dying", "out")
#: Per-side fates in ``FightStats.fates``: the winners' "standing" first.
SIDE_FATES = ("standing", *FATES)
#: Every histogram field of :class:`FightStats`, for code that sums or mixes results.
HIST_FIELDS = (
    "outcome",
    "rounds",
    "loser_dead",
    "standing",
    "deaths",
    "hits",
    "loser_fate",
    "loser_fate_sq",
    "fates",
    "fates_sq",
    "dead_any",
    "deaths_sq",
)
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
    loser_fate: np.ndarray
    loser_fate_sq: np.ndarray
    fates: np.ndarray
    fates_sq: np.ndarray
    dead_any: np.ndarray
    deaths_sq: np.ndarray
    trials: int | None = None
    notes: dict = field(default_factory=dict)

    @classmethod
    def empty(
        cls, system: str, round_cap: int = ROUND_CAP, trials: int | None = None, dtype=np.int64
    ) -> FightStats:
        return cls(
            system=system,
            outcome=np.zeros(3, dtype),
            rounds=np.zeros((round_cap + 1, 3), dtype),
            loser_dead=np.zeros(2, dtype),
            standing=np.zeros((round_cap + 1, 2), dtype),
            deaths=np.zeros(2, dtype),
            hits=np.zeros(DAMAGE_BINS, dtype),
            loser_fate=np.zeros((2, 3), dtype),
            loser_fate_sq=np.zeros((2, 3), dtype),
            fates=np.zeros((2, 4), dtype),
            fates_sq=np.zeros((2, 4), dtype),
            dead_any=np.zeros(1, dtype),
            deaths_sq=np.zeros(1, dtype),
            trials=trials,
        )

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

    @property
    def sizes(self) -> np.ndarray:
        """Combatants per side (from the start row of ``standing``)."""
        return np.rint(self.standing[0] / self.n).astype(np.int64)

    def p_loser_fates(self) -> tuple[np.ndarray, np.ndarray]:
        """P(dead), P(dying), P(out) of a losing combatant among decided fights, and SEs.

        In a group fight this is the share of the losing side's combatants in each fate,
        averaged over decided fights. Standard errors (zeros when exact) come from the
        per-fight counts and their squares; all NaN when no fight was decided.
        """
        sizes = np.maximum(self.sizes, 1)  # a result without a start row counts no fates
        per = np.array([sizes[1], sizes[0]], dtype=float)[:, None]  # loser size by winner
        decided = float(self.outcome[:2].sum())
        if decided == 0:
            nan = np.full(3, np.nan)
            return nan, nan
        mean = (self.loser_fate / per).sum(axis=0) / decided
        if self.exact:  # exact chains leave rounding dust of order 1e-17
            return np.clip(mean, 0.0, 1.0), np.zeros(3)
        second = (self.loser_fate_sq / per**2).sum(axis=0) / decided
        var = np.maximum(second - mean**2, 0.0)
        return mean, np.sqrt(var / decided)

    def p_side_fates(self) -> tuple[np.ndarray, np.ndarray]:
        """Per side, P(a combatant ends standing / dead / dying / out) and SEs (``[2, 4]``).

        Over every trial, decided or not; each row sums to 1.
        """
        size = np.maximum(self.sizes, 1).astype(float)[:, None]
        mean = self.fates / (self.n * size)
        if self.exact:
            return np.clip(mean, 0.0, 1.0), np.zeros_like(mean)
        second = self.fates_sq / (self.n * size**2)
        var = np.maximum(second - mean**2, 0.0)
        return mean, np.sqrt(var / self.n)

    def p_someone_dead(self) -> tuple[float, float]:
        """P(at least one combatant, of either side, ends dead) after the aftermath, and
        its standard error (RULES.md "Lethality outcomes", LO-r3).

        Exact results are duels: only the loser can fall, so the probability is the
        expected number of deaths and the standard error is 0. Monte Carlo: the share of
        trials in which someone died (``dead_any``), binomial standard error.
        """
        if self.exact:
            return float(np.clip(self.deaths.sum(), 0.0, 1.0)), 0.0
        p = float(self.dead_any[0]) / self.n
        return p, float(np.sqrt(p * (1.0 - p) / self.n))

    def deaths_mean(self) -> tuple[float, float]:
        """Expected number of combatants (both sides) that end dead, and its standard
        error (from each trial's count and its square, ``deaths_sq``; 0 when exact)."""
        mean = float(self.deaths.sum()) / self.n
        if self.exact:
            return max(mean, 0.0), 0.0
        var = max(float(self.deaths_sq[0]) / self.n - mean**2, 0.0)
        return mean, float(np.sqrt(var / self.n))


def check_aftermath(value) -> str:
    """The aftermath policy as one of :data:`AFTERMATHS` (InputError otherwise)."""
    if value not in AFTERMATHS:
        raise InputError(f"aftermath: {value!r} is not allowed; choose " + " | ".join(AFTERMATHS))
    return value


def check_round_cap(round_cap, limit: int = 10_000) -> int:
    """The round cap as an ``int`` in ``1..limit``; anything else raises InputError."""
    if (
        isinstance(round_cap, bool)
        or not isinstance(round_cap, int | np.integer)
        or not 1 <= round_cap <= limit
    ):
        raise InputError(f"round_cap: expected an integer 1..{limit}, got {round_cap!r}")
    return int(round_cap)


def check_start_damage(start_damage, health: int) -> int:
    """Campaign attrition: damage a fighter starts a fight with, an ``int`` in
    ``0..health - 1`` (``health`` would leave it unable to fight); else InputError."""
    if (
        isinstance(start_damage, bool)
        or not isinstance(start_damage, int)
        or not 0 <= start_damage < health
    ):
        raise InputError(f"start_damage: expected an integer 0..{health - 1}, got {start_damage!r}")
    return start_damage


def check_side(combatants, label: str, cls: type, system: str) -> list:
    """One side of a fight as a non-empty list of ``cls`` objects (InputError otherwise)."""
    combatants = list(combatants)
    if not combatants:
        raise InputError(f"{label}: a side needs at least one combatant")
    for c in combatants:
        if not isinstance(c, cls):
            raise InputError(
                f"{label}: expected {system} {cls.__name__} objects, got {type(c).__name__}"
            )
    return combatants
