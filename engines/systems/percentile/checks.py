"""``percentile``: d100 roll-under (RULES.md section D, seed 003).

Check-level rules implemented here:

- **D1** roll d100; regular ≤ skill, hard ≤ ⌊skill/2⌋, extreme ≤ ⌊skill/5⌋; the roll must
  reach the level the keeper set (seed: STR 60, hard → ≤ 30).
- **D-g1** criticals and fumbles (variant ``criticals``): 01 is a critical (always succeeds);
  100 fumbles, or 96–100 when the needed value is below 50.
- **D2** pushing: one second and last attempt.
- **D3** opposed: compare levels; tie → higher skill; still tied → both roll, lower wins.
- **D4** bonus / penalty dice: extra tens dice, keep the lowest / highest result; a bonus
  and a penalty cancel (seed: units 4, tens 2 and 4 → bonus 24; units 1 → penalty 41).
- **D5** luck: a roll ≤ current Luck; group luck: the lowest Luck rolls.
- **D6** improvement roll: above the skill (or 96+, D-g2) → +1d10.

Outcome codes: ``value − 1`` for a d100 result of 1..100.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines import checks
from engines.errors import InputError
from engines.rng import Seed
from engines.rolls import PERCENTILE
from engines.system import (
    N_,
    Difficulty,
)
from engines.variants import variant

SYSTEM = "percentile"
N_CODES = 100
LEVELS = {"fail": 0, "regular": 1, "hard": 2, "extreme": 3, "critical": 4}
MAX_DICE = 3


@dataclass(frozen=True)
class Variants:
    """Rule variants of ``percentile``."""

    system: ClassVar[str] = SYSTEM
    criticals: bool = variant(
        True,
        rule="D-g1",
        doc="01 is a critical success; 100 (or "
        "96–100 when the needed value is below 50) is a fumble",
        term="criticals and fumbles",
    )
    improve_on_96: bool = variant(
        True,
        rule="D-g2",
        doc="an improvement roll of 96+ improves the skill even when the skill is above 95",
        term="improvement on 96+",
    )

    def rule(self) -> np.ndarray:
        return np.zeros(1, dtype=np.int64)


DEFAULT = Variants()


def net_dice(bonus: int = 0, penalty: int = 0) -> int:
    """D4: bonus and penalty dice cancel one for one."""
    if bonus < 0 or penalty < 0:
        raise InputError(f"bonus/penalty dice: counts must be 0 or more, got {bonus}/{penalty}")
    return bonus - penalty


def dice_codes(dice) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(dice))
    if arr.dtype.kind not in "iu" or (arr.size and np.abs(arr).max() > MAX_DICE):
        raise InputError(f"dice: bonus (>0) or penalty (<0) dice within ±{MAX_DICE}, got {dice!r}")
    return arr.astype(np.int64)


def read_roll(units: int, tens: list[int], dice: int) -> int:
    """D4: the result of one roll from its units die and tens dice (0..9 each)."""
    values = [100 if t == 0 and units == 0 else 10 * t + units for t in tens]
    return min(values) if dice >= 0 else max(values)


def exact(dice=(-2, -1, 0, 1, 2), variants: Variants = DEFAULT) -> np.ndarray:
    """Exact distribution of the d100 result for each net bonus/penalty count (D1, D4)."""
    dice = dice_codes(dice)
    probs = np.zeros((dice.size, N_CODES))
    for i, k in enumerate(dice):
        n = 1 + abs(int(k))
        # every face of the units die and the n tens dice, all at once
        faces = np.indices((10,) * (n + 1)).reshape(n + 1, -1)
        units, tens = faces[0], faces[1:]
        reads = np.where((tens == 0) & (units == 0), 100, 10 * tens + units)
        result = reads.min(axis=0) if k >= 0 else reads.max(axis=0)
        counts = np.bincount(result - 1, minlength=N_CODES)
        probs[i] = counts / 10 ** (n + 1)  # integer counts: each row sums to exactly 1
    return probs


def monte_carlo(
    dice=(-2, -1, 0, 1, 2), trials: int = 100_000, seed: Seed = None, variants: Variants = DEFAULT
) -> np.ndarray:
    """Monte Carlo result counts per net bonus/penalty count (D1, D4)."""
    return checks.run(PERCENTILE, dice_codes(dice), variants.rule(), N_CODES, trials, seed)


def level_thresholds(skill: int) -> dict[str, int]:
    """D1: the highest roll that reaches each level."""
    if not 0 <= skill <= 200:
        raise InputError(f"skill: must be 0..200, got {skill}")
    return {"regular": skill, "hard": skill // 2, "extreme": skill // 5}


def is_fumble(
    roll: np.ndarray, skill: int, variants: Variants = DEFAULT, level: str = "regular"
) -> np.ndarray:
    """D-g1: 100 always; 96–100 when the needed value is below 50.

    The needed value is the one of the level the keeper set (``level``): a hard roll at
    skill 80 needs 40 or less, so 96–100 fumble it.
    """
    roll = np.asarray(roll)
    if not variants.criticals:
        return np.zeros(roll.shape, bool)
    if level not in ("regular", "hard", "extreme"):
        raise InputError(f"level: expected regular, hard or extreme, got {level!r}")
    needed = level_thresholds(skill)[level]
    return (roll == 100) | ((roll >= 96) & (needed < 50))


def level_of_rolls(skill: int, variants: Variants = DEFAULT) -> np.ndarray:
    """Success level (0 fail … 3 extreme, 4 critical) of each roll 1..100 (D1, D-g1)."""
    rolls = np.arange(1, 101)
    th = level_thresholds(skill)
    level = np.zeros(100, dtype=np.int64)
    level[rolls <= th["regular"]] = 1
    level[rolls <= th["hard"]] = 2
    level[rolls <= th["extreme"]] = 3
    if variants.criticals:
        level[0] = 4
        level[is_fumble(rolls, skill, variants)] = 0  # a fumble fails even at skill 100+
    return level


def success_mask(skill: int, level: str, variants: Variants = DEFAULT) -> np.ndarray:
    """Rolls that reach ``level`` (regular, hard, extreme) for ``skill`` (D1, D-g1)."""
    if level not in ("regular", "hard", "extreme"):
        raise InputError(f"level: expected regular, hard or extreme, got {level!r}")
    return level_of_rolls(skill, variants) >= LEVELS[level]


def p_success(
    skill: int, level: str = "regular", dice: int = 0, variants: Variants = DEFAULT
) -> float:
    """P(a roll reaches ``level``) with ``dice`` bonus (>0) or penalty (<0) dice."""
    return float(exact([dice], variants)[0] @ success_mask(skill, level, variants))


def push(p: float) -> dict:
    """D2: a pushed roll is one second and last attempt; its failure is a severe consequence."""
    return {"p_success": 1 - (1 - p) ** 2, "p_pushed_failure": (1 - p) ** 2}


def opposed(
    skill_a: int, skill_b: int, dice_a: int = 0, dice_b: int = 0, variants: Variants = DEFAULT
) -> float:
    """D3: P(a wins): higher level wins; tie → higher skill; still tied → roll-off (½)."""
    la = np.bincount(
        level_of_rolls(skill_a, variants), weights=exact([dice_a], variants)[0], minlength=5
    )
    lb = np.bincount(
        level_of_rolls(skill_b, variants), weights=exact([dice_b], variants)[0], minlength=5
    )
    la[3] += la[4]  # a critical counts as an extreme success when levels are compared
    lb[3] += lb[4]
    la, lb = la[:4], lb[:4]
    win = sum(la[i] * lb[:i].sum() for i in range(4))
    tie = float(la @ lb)
    tie_share = 1.0 if skill_a > skill_b else 0.0 if skill_a < skill_b else 0.5
    return float(win + tie * tie_share)


def luck(luck_values: list[int], variants: Variants = DEFAULT) -> float:
    """D5: P(a Luck roll succeeds); with several values (group luck) the lowest rolls."""
    if not luck_values:
        raise InputError("luck: at least one Luck value is needed")
    return p_success(min(luck_values), "regular", 0, variants)


def improvement(skill: int, variants: Variants = DEFAULT) -> dict:
    """D6 / D-g2: P(the improvement roll succeeds) and the expected gain (+1d10 = 5.5)."""
    rolls = np.arange(1, 101)
    improves = rolls > skill
    if variants.improve_on_96:
        improves |= rolls >= 96
    p = improves.mean()
    return {"p_improve": float(p), "expected_gain": float(p * 5.5)}


#: This system as the rest of the suite sees it (:mod:`engines.system`): native check
#: axes of the success-curve table, its opposed rule, combat engine and campaign mechanics.
def check_grid(cells, variants: Variants):
    """Success mask of (skill, level, dice) cells: the roll reaches the level (D1, D-g1)
    with the cell's bonus / penalty dice (D4)."""
    dice = np.asarray(cells["dice"])
    settings = np.array(sorted(set(dice)), dtype=np.int64)
    setting_of_cell = np.searchsorted(settings, dice)
    levels_of_cells = np.asarray(cells["level"]).tolist()
    for level in set(levels_of_cells):
        success_mask(50, level, variants)  # validates the level name
    skills = np.array(sorted(set(cells["skill"])), dtype=np.int64)
    levels = np.stack([level_of_rolls(int(k), variants) for k in skills])
    need = np.array([LEVELS[x] for x in levels_of_cells], dtype=np.int64)
    mask = levels[np.searchsorted(skills, np.asarray(cells["skill"]))] >= need[:, None]
    return settings, setting_of_cell, mask, np.arange(1, 101, dtype=float)


DIFFICULTY_LEVELS = ("regular", "hard", "extreme")
DIFFICULTY_DICE = range(2, -3, -1)  # two bonus dice (easiest) ... two penalty dice


def _dice_label(d: int) -> str:
    if d == 0:
        return "no extra dice"
    return f"+{d} bonus" if d > 0 else f"+{-d} penalty"


def difficulty_axes() -> tuple[Difficulty, ...]:
    """Difficulty as the level to reach (D1) with bonus / penalty dice (D4)."""
    vals = tuple((lvl, d) for lvl in DIFFICULTY_LEVELS for d in DIFFICULTY_DICE)
    return (
        Difficulty("level_dice", vals, tuple(f"{lvl} {_dice_label(d)}" for lvl, d in vals), vals),
    )


def chance_matrix(axis: str, competences, difficulties, variants: Variants) -> np.ndarray:
    """Exact P(success) ``[skills, (level, dice)]`` (D1, D4)."""
    comp = np.asarray(list(competences), dtype=np.int64)
    out = np.zeros((comp.size, len(difficulties)))
    dists = {d: exact([d], variants)[0] for d in DIFFICULTY_DICE}
    for j, (level, d) in enumerate(difficulties):
        for i, c in enumerate(comp):
            out[i, j] = dists[d] @ success_mask(int(c), level, variants)
    return out


def opposed_tie(cell, variants: Variants) -> tuple[float, bool]:
    """D3: a tie goes to the higher skill; equal skills roll off (½ by symmetry)."""
    a, b = int(cell["skill_a"]), int(cell["skill_b"])
    return (1.0 if a > b else 0.0 if a < b else 0.5), False


def ladder_labels(c: int, d) -> tuple[str, str]:
    extra = "" if d.dice == 0 else f", {d.dice:+d} {'bonus' if d.dice > 0 else 'penalty'}"
    return f"{c} %", f"{d.level}{extra}"


def ladder_score(c: int, variants: Variants):
    """(skill − d100: the D1 margin, probabilities) of a plain roll."""
    probs = exact([0], variants)[0]
    return (c - np.arange(1, 101)).astype(float), probs


#: report hooks: the skills the tables show, and the label of a net number of dice
REPORT_SKILLS = (1, *range(5, 100, 5), 99)
DICE_LABELS = (N_("{n} penalty"), "0", N_("+{n} bonus"))


def curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook): skill 50 by level and dice."""
    _ = tr._
    return _(
        "percentile: skill 50 succeeds {reg} at the regular level, {hard} hard "
        "and {ext} extreme; one bonus die lifts the regular chance to {bonus} and "
        "one penalty die drops it to {penalty}. The curve is a straight line in "
        "skill: every point of skill is worth {one}."
    ).format(
        reg=tr.pct(p(skill=50, level="regular", dice=0)),
        hard=tr.pct(p(skill=50, level="hard", dice=0)),
        ext=tr.pct(p(skill=50, level="extreme", dice=0)),
        bonus=tr.pct(p(skill=50, level="regular", dice=1)),
        penalty=tr.pct(p(skill=50, level="regular", dice=-1)),
        one=tr.percent(0.01, 0),
    )
