"""The rules of ``middle_3d10``'s campaign mechanics that are not a session chain
(RULES.md section B; the chains, kernels and MECHANICS are in
:mod:`engines.systems.middle_3d10.campaign`, which re-exports these): the campaign
:class:`Variants` (**B-g20** … **B-g23**), the parameters' checks, the B11 rest's
consolidating half, the B10 / B12 massive check, and the outcome of one event: an arcane
use's stability cost (**B13**, B-g20) and one hit's damage (**B8**, B3, B-g24).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines.campaign import check_int
from engines.errors import InputError
from engines.rolls import ADVANTAGE, NORMAL
from engines.systems.middle_3d10 import checks as m3
from engines.variants import variant

__all__ = [
    "DEFAULT",
    "LEVELS",
    "LOST",
    "MAX_USES",
    "SYSTEM",
    "WEAPONS",
    "Variants",
    "arcane_cost_pmf",
    "arcane_params",
    "check_bool",
    "check_choice",
    "consolidated_points",
    "consolidation_params",
    "hit_pmf",
    "massive_pass",
]

SYSTEM = m3.SYSTEM
LEVELS = tuple(m3.ARCANE_DIFFICULTY)  # B13
LOST = m3.DEGENERATION_LOST  # B14
#: B8: which of the hit's dice (m, C, M) each weapon category adds.
WEAPONS = {
    "unarmed": (1, 0, 0),
    "light": (0, 1, 0),
    "blade": (0, 0, 1),
    "small_firearm": (1, 0, 1),
    "medium_firearm": (0, 1, 1),
    "heavy_firearm": (1, 1, 1),
}
MAX_USES = 20


@dataclass(frozen=True)
class Variants:
    """Campaign rule variants of ``middle_3d10``."""

    system: ClassVar[str] = SYSTEM
    arcane_cost_on: str = variant(
        "always",
        rule="B-g20",
        doc="an arcane use's stability cost is paid always, or only when the use succeeds",
        choices=("always", "success"),
    )
    rest_odd: str = variant(
        "consolidate",
        rule="B-g21",
        doc="at a rest, an odd temporary point consolidates, or clears",
        choices=("consolidate", "clear"),
    )
    recovery: int = variant(
        1,
        rule="B-g22",
        doc="consolidated points healed per session, after the rest",
        choices=(0, 1, 2, 3),
    )
    after_maddened: str = variant(
        "keep",
        rule="B-g23",
        doc="a stability track at its end "
        "after a session: rest as usual (keep) or start the next "
        "session empty (clear)",
        choices=("keep", "clear"),
    )


DEFAULT = Variants()


def check_choice(name: str, value, choices) -> str:
    """``value`` when it is one of ``choices``, else an InputError naming ``name``."""
    if value not in choices:
        raise InputError(f"{name}: expected one of {', '.join(choices)}, got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """``value`` as a bool when it is true or false, else an InputError naming ``name``."""
    if not isinstance(value, bool | np.bool_):
        raise InputError(f"{name}: expected true or false, got {value!r}")
    return bool(value)


def consolidated_points(temporary: int, v: Variants) -> int:
    """B11 rest: the consolidating half of ``temporary`` points (B-g21 for odd counts)."""
    return (temporary + 1) // 2 if v.rest_odd == "consolidate" else temporary // 2


def massive_pass(trait: int) -> float:
    """B10 / B12: P(passing the difficulty-12 check with C + trait)."""
    return m3.massive_check(trait)


def arcane_params(uses, level, aspect, resilience, lore, will, skill, threshold):
    """The ``arcane`` mechanic's parameters checked (B12–B14 ranges; InputError names the
    first wrong one)."""
    uses = check_int("uses", uses, 0, MAX_USES)
    level = check_choice("level", level, LEVELS)
    aspect = check_bool("aspect", aspect)
    resilience = check_int("resilience", resilience, 1, 10)
    lore = check_int("lore", lore, 0, 60)
    will = check_int("will", will, 1, 10)
    skill = check_int("skill", skill, 0, 10)
    if threshold is not None:
        threshold = check_int("threshold", threshold, 0, LOST)
    return uses, level, aspect, resilience, lore, will, skill, threshold


def arcane_cost_pmf(level: str, aspect: bool, will: int, skill: int, v: Variants) -> np.ndarray:
    """B13 (B-g20): P(stability cost paid = c), c = 0..10, of one arcane use (before the
    B14 degeneration is subtracted). Enumerates the 1000 rolls of 3d10."""
    out = m3.arcane_use(will, skill, level, aspect=aspect)
    if v.arcane_cost_on == "always":
        return out["cost"]
    difficulty = m3.ARCANE_DIFFICULTY[level]
    pmf = np.zeros(11)
    for dice in itertools.product(range(1, 11), repeat=3):
        lo, mid, hi = sorted(dice)
        code = m3.middle_code(*dice, ADVANTAGE if aspect else NORMAL, False, True)
        kept, special = code // 3 + 1, code % 3
        ok = special == 1 or (special == 0 and kept + will + skill >= difficulty)
        cost = m3.ARCANE_ASPECT_COST[level] if aspect else (lo, mid, hi)[m3.ARCANE_COST_DIE[level]]
        pmf[cost if ok else 0] += 1
    return pmf / 1000


def consolidation_params(vigor, hits, weapon, bonus, threshold):
    """The ``consolidation`` mechanic's parameters checked (B8, B9 ranges; InputError
    names the first wrong one)."""
    vigor = check_int("vigor", vigor, 1, 10)
    hits = check_int("hits", hits, 0, MAX_USES)
    weapon = check_choice("weapon", weapon, tuple(WEAPONS))
    bonus = check_int("bonus", bonus, 0, 20)
    if threshold is not None:
        threshold = check_int("threshold", threshold, 0, 3 * vigor)
    return vigor, hits, weapon, bonus, threshold


def hit_pmf(weapon: str, bonus: int) -> np.ndarray:
    """B8, B3: ``pmf[dmg, crit]`` of one hit: damage = the category's dice of a fresh
    3d10 + ``bonus`` (B-g24), crit = two or more 10s among them."""
    pick = WEAPONS[weapon]
    pmf = np.zeros((30 + bonus + 1, 2))
    for dice in itertools.product(range(1, 11), repeat=3):
        srt = sorted(dice)
        dmg = sum(d for d, use in zip(srt, pick, strict=True) if use) + bonus
        pmf[dmg, int(dice.count(10) >= 2)] += 1
    return pmf / 1000
