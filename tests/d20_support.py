"""What the d20_degrees combat tests share (``test_combat_d20_degrees*.py``): the trial
count, the Monte Carlo tolerance, a default fighter and the archetype library as engine
fighters.

Monte Carlo tolerance: ``5 * sqrt(p * (1 - p) / n) + 1 / n`` — five standard errors of a
binomial proportion plus one count (continuity for cells whose expected count is below
one); seeds are fixed, so a pass is reproducible.
"""

from __future__ import annotations

from math import sqrt

import numpy as np

from analysis.combat.archetypes import combatants
from engines.systems.d20_degrees.combat import Fighter

__all__ = ["N", "assert_mc_matches", "fighter", "library", "tol"]

N = 200_000


def tol(p: float, n: int) -> float:
    """Five binomial standard errors plus one count (see the module docstring)."""
    return 5 * sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


def assert_mc_matches(p_mc: np.ndarray, p_exact: np.ndarray, n: int) -> None:
    p_mc = np.asarray(p_mc, float).ravel()
    p_exact = np.asarray(p_exact, float).ravel()
    for got, want in zip(p_mc, p_exact, strict=True):
        assert abs(got - want) <= tol(want, n), (got, want)


def fighter(**kw) -> Fighter:
    base = {
        "attack": 7,
        "damage": 5,
        "toughness": 2,
        "parry": 7,
        "dodge": 7,
        "fortitude": 4,
        "hit_points": 12,
        "agility": 2,
        "awareness": 2,
        "hero_points": 0,
        "hero_use": "none",
    }
    base.update(kw)
    return Fighter(**base)


def library() -> dict[str, Fighter]:
    """The shipped d20_degrees archetypes, as engine fighters."""
    return combatants("d20_degrees")
