"""The bounds of every count a designer gives, in one place: the command line
(``cli.common``) and the live workbench (``reports.workbench``) read them here, so a value
the one refuses the other refuses too, with the same words.

Memory never grows with the trial count (the kernels fill histograms), so the bounds are
about time and about the 64-bit integers the kernels count in:

- :data:`MAX_TRIALS`: Monte Carlo trials per setting (rolls, fights, characters: every
  ``--trials``, ``report --combat-trials``, ``audit --batch`` / ``--max-trials``, the
  workbench's Monte Carlo duel); 10^10 duels are hours of CPU (a combat kernel runs one
  to two million duels per CPU-second), far past any standard error a table needs
  (SE ≤ 0.5 / sqrt(n) = 5e-6), and far inside int64 counts;
- :data:`MAX_ROUND_CAP`: rounds before a fight counts as "neither" (the engines' own
  limit, as in matchup and scenario files);
- :data:`MAX_SESSIONS`: campaign sessions (or attrition fights), as in scenario files;
- :data:`MAX_WORKERS`: worker processes (``run``/``sweep --workers``, ``warm-up --jobs``);
- :data:`MAX_SEED`: any non-negative integer numpy's SeedSequence takes, bounded so a
  typo cannot make a number of thousands of digits.
"""

from __future__ import annotations

import math

from engines.errors import InputError

__all__ = [
    "MAX_ROUND_CAP",
    "MAX_SEED",
    "MAX_SESSIONS",
    "MAX_TRIALS",
    "MAX_WORKERS",
    "bounded_int",
    "range_words",
    "round_cap",
    "seed",
    "shown",
    "trials",
]

MAX_TRIALS = 10**10
MAX_ROUND_CAP = 1000
MAX_SESSIONS = 1000
MAX_WORKERS = 64
MAX_SEED = 2**128 - 1


def shown(n: int) -> str:
    """``n`` as a reader takes it in: 10^10, 2^63 - 1, else the digits."""
    for base in (10, 2):
        k = round(math.log(n + 1, base)) if n > 0 else 0
        if n >= 10**6 and base**k == n:
            return f"{base}^{k}"
        if n >= 10**6 and base**k - 1 == n:
            return f"{base}^{k} - 1"
    return str(n)


def range_words(low: int, high: int, name: str) -> str:
    """``"NAME low..high"`` (the words of a bound, as the command line's errors say it)."""
    return f"{name} {low}..{shown(high)}"


def bounded_int(text, low: int, high: int, name: str, where: str = "") -> int:
    """``text`` (a string or an int) as a whole number in ``low..high``, else an
    :class:`~engines.errors.InputError` "WHERE: expected NAME low..high, got 'text'"."""
    prefix = f"{where}: " if where else ""
    try:
        value = int(str(text).strip()) if not isinstance(text, bool) else None
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise InputError(f"{prefix}expected {range_words(low, high, name)}, got {str(text)!r}")
    return value


def trials(text, where: str = "trials") -> int:
    """Monte Carlo trials: 1..MAX_TRIALS."""
    return bounded_int(text, 1, MAX_TRIALS, "a number of trials", where)


def round_cap(text, where: str = "round cap") -> int:
    """A round cap: 1..MAX_ROUND_CAP."""
    return bounded_int(text, 1, MAX_ROUND_CAP, "a round cap", where)


def seed(text, where: str = "seed") -> int:
    """A seed: 0..MAX_SEED."""
    return bounded_int(text, 0, MAX_SEED, "a seed", where)
