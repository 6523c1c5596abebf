"""The dice of one check in each system, as inlined numba functions returning an outcome code.

One function per system, each citing the rules it rolls; :mod:`engines.checks` runs any of
them in one shared parallel kernel, with the rule passed as integers (``rule``) and one
parameter per parameter set (``param``). Code layouts are documented per function and are
identical to those of the matching exact model.
"""

from __future__ import annotations

from numba import njit

from .config import INLINE, LEAF
from .rng import d10, die

__all__ = [
    "ADVANTAGE",
    "D20",
    "DISADVANTAGE",
    "HERO_REROLL",
    "MIDDLE",
    "NORMAL",
    "PERCENTILE",
    "POOL",
    "ROLL",
    "TAKE_10",
    "middle_code",
    "middle_code_kernel",
    "roll_any",
    "roll_d20",
    "roll_middle",
    "roll_percentile",
    "roll_pool",
]

POOL, MIDDLE, PERCENTILE, D20 = 0, 1, 2, 3

# middle_3d10 roll modes (B1, B4)
NORMAL, ADVANTAGE, DISADVANTAGE = 0, 1, 2
# d20 roll modes (E1, E4, E9)
ROLL, HERO_REROLL, TAKE_10 = 0, 1, 2


@njit(**INLINE)
def roll_pool(s, n, threshold, again, crit_bonus, chance_die, chance_explodes):
    """A1/C1 pool of ``n`` d10 (A-g1 chance die when ``n`` ≤ 0, C-g2 pairs of 10s).

    Code 0: dramatic failure; code ``1 + k``: ``k`` successes.
    """
    if n <= 0:
        if chance_die == 0:
            return 1
        d = d10(s)
        if d == 1:
            return 0
        if d < 10:
            return 1
        succ = 1
        if chance_explodes != 0:
            while d >= again:
                d = d10(s)
                if d >= threshold:
                    succ += 1
        return 1 + succ
    succ = 0
    tens = 0
    k = n
    while k > 0:
        d = d10(s)
        if d >= threshold:
            succ += 1
        if d == 10:
            tens += 1
        if d < again:
            k -= 1
    return 1 + succ + (tens // 2) * crit_bonus


@njit(**INLINE)
def middle_code_kernel(a, b, c, mode, disadvantage_lowest, doubles):
    """The outcome code of a 3d10 roll ``a``, ``b``, ``c`` (B1, B3): the kept die (the
    middle one; the highest with advantage, the lowest with disadvantage when
    ``disadvantage_lowest``) and, when ``doubles``, two 10s or two 1s;
    :func:`middle_code` is its Python twin."""
    lo = min(a, b, c)
    hi = max(a, b, c)
    mid = a + b + c - lo - hi
    kept = mid
    if mode == ADVANTAGE:
        kept = hi
    elif mode == DISADVANTAGE and disadvantage_lowest != 0:
        kept = lo
    special = 0
    if doubles != 0:
        if (a == 10) + (b == 10) + (c == 10) >= 2:
            special = 1
        elif (a == 1) + (b == 1) + (c == 1) >= 2:
            special = 2
    return 3 * (kept - 1) + special


@njit(**LEAF)
def roll_middle(s, mode, disadvantage_lowest, doubles):
    """B1 3d10 keep the middle; B4 advantage keeps the highest, disadvantage the lowest
    (B-g2); B3 two or more 10s / 1s are automatic success / catastrophe.

    Code ``3 * (kept - 1) + special``; special 0 none, 1 automatic success, 2 catastrophe.
    """
    return middle_code_kernel(d10(s), d10(s), d10(s), mode, disadvantage_lowest, doubles)


@njit(**LEAF)
def roll_percentile(s, dice):
    """D1 d100 roll-under; D4 ``dice`` > 0 bonus, < 0 penalty tens dice (lowest / highest
    result kept; tens 0 with units 0 reads 100).

    Code ``value - 1`` for a result of 1..100.
    """
    units = d10(s) - 1
    n_tens = 1 + abs(dice)
    best = -1
    for _ in range(n_tens):
        tens = d10(s) - 1
        v = tens * 10 + units
        if v == 0:
            v = 100
        if best < 0 or (dice >= 0 and v < best) or (dice < 0 and v > best):
            best = v
    return best - 1


@njit(**INLINE)
def roll_d20(s, mode, reroll_natural):
    """E1 one d20; E4 take 10; E9 hero point: reroll, keep the better, a second roll of
    1–10 counts +10 (and is then not natural unless ``reroll_natural``).

    Code ``(value - 1) + 30 * nat`` with value 1..30 and nat 0 none, 1 natural 1,
    2 natural 20.
    """
    if mode == TAKE_10:
        return 9
    first = die(s, 20)
    v = first
    nat = 2 if first == 20 else (1 if first == 1 else 0)
    if mode == HERO_REROLL:
        second = die(s, 20)
        v2 = second + 10 if second <= 10 else second
        nat2 = 2 if second == 20 else 0
        if second == 1 and reroll_natural != 0:
            nat2 = 1
        if v2 > v:
            v = v2
            nat = nat2
    return (v - 1) + 30 * nat


@njit(**INLINE)
def roll_any(system, s, param, rule):
    if system == POOL:
        return roll_pool(s, param, rule[0], rule[1], rule[2], rule[3], rule[4])
    if system == MIDDLE:
        return roll_middle(s, param, rule[0], rule[1])
    if system == PERCENTILE:
        return roll_percentile(s, param)
    return roll_d20(s, param, rule[0])


def middle_code(a: int, b: int, c: int, mode: int, disadvantage_lowest: bool, doubles: bool) -> int:
    """Pure-Python twin of the kernel's code function (for exact enumeration)."""
    return int(middle_code_kernel(a, b, c, mode, int(disadvantage_lowest), int(doubles)))
