"""``middle_3d10``: 3d10 keep the middle (RULES.md section B, seed 001).

Check-level rules implemented here:

- **B1** roll 3d10, sort m ≤ C ≤ M, total = C + characteristic + skill ≥ difficulty.
- **B2** difficulties: easy 10, average 15, hard 20, very hard 25.
- **B3** two or three 10s: automatic success; two or three 1s: automatic catastrophe.
- **B4** advantage uses M; disadvantage (B-g2) uses m.
- **B5** opposed: the higher total wins; ties (B-g3) → the higher trait + skill, then a
  re-roll.
- **B10** massive damage check: difficulty 12 with C + Vigor (B-g6); failure → dying.
- **B12** massive trauma: the same check with Resilience.
- **B13** arcane use: C + Will + arcane skill vs 10 / 15 / 20 (+ target's Will); sanity
  cost from the same roll: minor m, intermediate C, major M (with the aspect: advantage
  roll, fixed cost 1 / 2 / 3, and +1 degeneration on a major use).

Outcome codes: ``3 * (kept − 1) + special`` (30 codes; see :func:`engines.rolls.roll_middle`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines import checks
from engines.errors import InputError
from engines.rng import Seed
from engines.rolls import ADVANTAGE, DISADVANTAGE, MIDDLE, NORMAL, middle_code
from engines.system import (
    Difficulty,
)
from engines.variants import variant

SYSTEM = "middle_3d10"
N_CODES = 30
MODES = {"normal": NORMAL, "advantage": ADVANTAGE, "disadvantage": DISADVANTAGE}
DIFFICULTIES = {"easy": 10, "average": 15, "hard": 20, "very_hard": 25}  # B2
MASSIVE_DIFFICULTY = 12  # B10, B12
ARCANE_DIFFICULTY = {"minor": 10, "intermediate": 15, "major": 20}  # B13
ARCANE_COST_DIE = {"minor": 0, "intermediate": 1, "major": 2}  # m, C, M
ARCANE_ASPECT_COST = {"minor": 1, "intermediate": 2, "major": 3}


@dataclass(frozen=True)
class Variants:
    """Rule variants of ``middle_3d10``."""

    system: ClassVar[str] = SYSTEM
    disadvantage: str = variant(
        "lowest",
        rule="B-g2",
        doc="disadvantage rerolls and keeps the lowest die; 'middle' = no effect on the dice",
        choices=("lowest", "middle"),
        term="the disadvantage rule",
        words={"lowest": "keep the lowest die", "middle": "no effect"},
    )
    doubles: bool = variant(
        True,
        rule="B3",
        doc="two or three 10s succeed automatically, two or three 1s fail catastrophically",
        term="the doubles rule",
    )
    tie: str = variant(
        "trait_then_reroll",
        rule="B-g3",
        doc="opposed tie: higher trait + skill wins, then a re-roll; 'reroll' ignores traits",
        choices=("trait_then_reroll", "reroll"),
        term="the opposed-tie rule",
        words={"trait_then_reroll": "higher trait + skill, then a re-roll", "reroll": "a re-roll"},
    )
    massive_traits: str = variant(
        "c_plus_vigor",
        rule="B-g6",
        doc="what the massive damage check adds to C: Vigor (default) or nothing",
        choices=("c_plus_vigor", "c_only"),
        term="the massive-damage check",
        words={"c_plus_vigor": "C + Vigor", "c_only": "C alone"},
    )

    def rule(self) -> np.ndarray:
        return np.array([int(self.disadvantage == "lowest"), int(self.doubles)], dtype=np.int64)


DEFAULT = Variants()


def mode_codes(modes) -> np.ndarray:
    return checks.parse_modes(modes, MODES)


def exact(
    modes=("normal", "advantage", "disadvantage"), variants: Variants = DEFAULT
) -> np.ndarray:
    """Exact outcome-code distribution per roll mode (B1, B3, B4): enumerates 1000 rolls."""
    modes = mode_codes(modes)
    probs = np.zeros((modes.size, N_CODES))
    a, b, c = np.indices((10, 10, 10)).reshape(3, -1) + 1  # every roll of 3d10
    lo = np.minimum(np.minimum(a, b), c)
    hi = np.maximum(np.maximum(a, b), c)
    kept_by_mode = {
        NORMAL: a + b + c - lo - hi,
        ADVANTAGE: hi,
        DISADVANTAGE: lo if variants.disadvantage == "lowest" else a + b + c - lo - hi,
    }
    special = np.zeros(1000, dtype=np.int64)
    if variants.doubles:
        tens = (a == 10).astype(int) + (b == 10) + (c == 10)
        ones = (a == 1).astype(int) + (b == 1) + (c == 1)
        special = np.where(tens >= 2, 1, np.where(ones >= 2, 2, 0))
    for i, mode in enumerate(modes):
        if int(mode) not in kept_by_mode:
            raise InputError(f"roll: unknown mode {int(mode)}; known: {', '.join(MODES)}")
        code = 3 * (kept_by_mode[int(mode)] - 1) + special
        probs[i] = np.bincount(code, minlength=N_CODES) / 1000  # rows sum to exactly 1
    return probs


def monte_carlo(
    modes=("normal", "advantage", "disadvantage"),
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
) -> np.ndarray:
    """Monte Carlo outcome-code counts per roll mode (B1, B3, B4)."""
    return checks.run(MIDDLE, mode_codes(modes), variants.rule(), N_CODES, trials, seed)


def kept_of_codes() -> np.ndarray:
    return np.arange(N_CODES) // 3 + 1


def special_of_codes() -> np.ndarray:
    return np.arange(N_CODES) % 3


def success_mask(modifier: int, difficulty: int) -> np.ndarray:
    """Codes that succeed (B1, B3): auto-success always, catastrophe never."""
    kept, special = kept_of_codes(), special_of_codes()
    return (special == 1) | ((special == 0) & (kept + modifier >= difficulty))


def p_success(
    modifier: int, difficulty: int, mode: str = "normal", variants: Variants = DEFAULT
) -> float:
    """P(success) of one check (B1, B3, B4)."""
    return float(exact([mode], variants)[0] @ success_mask(modifier, difficulty))


def opposed(
    mod_a: int,
    mod_b: int,
    mode_a: str = "normal",
    mode_b: str = "normal",
    variants: Variants = DEFAULT,
) -> float:
    """B5: P(a wins) — higher total wins; ties by B-g3 (higher trait + skill, then re-roll)."""
    pa = exact([mode_a], variants)[0]
    pb = exact([mode_b], variants)[0]
    ta = kept_of_codes() + mod_a
    tb = kept_of_codes() + mod_b
    diff = ta[:, None] - tb[None, :]
    joint = pa[:, None] * pb[None, :]
    win, tie = joint[diff > 0].sum(), joint[diff == 0].sum()
    lose = 1.0 - win - tie
    if variants.tie == "trait_then_reroll" and mod_a != mod_b:
        return float(win + tie * (mod_a > mod_b))
    return float(win / (win + lose)) if win + lose > 0 else 0.5


def massive_check(vigor: int, variants: Variants = DEFAULT) -> float:
    """B10 / B12: P(passing the difficulty-12 check) with C + Vigor (or C alone, B-g6);
    pass ``Resilience`` as ``vigor`` for massive trauma (B12)."""
    bonus = vigor if variants.massive_traits == "c_plus_vigor" else 0
    return p_success(bonus, MASSIVE_DIFFICULTY, "normal", variants)


def arcane_use(
    will: int,
    skill: int,
    level: str,
    target_will: int = 0,
    aspect: bool = False,
    variants: Variants = DEFAULT,
) -> dict:
    """B13: P(success) of an arcane use and the distribution of its sanity cost.

    The check is C + Will + arcane skill against 10 / 15 / 20 (+ the target's Will). The
    cost reuses the roll's own dice (minor m, intermediate C, major M), so success and
    cost are dependent. The arcane skill's name is an aspect (seed 001): activating it
    rerolls the 3d10 and keeps M (B4 advantage) and fixes the cost at 1 / 2 / 3; on a
    major use it costs 1 degeneration instead of a drama point (B14), on the others the
    usual drama point. Returns ``{"p_success", "cost": probs over 0..10, "degeneration"}``.
    """
    if level not in ARCANE_DIFFICULTY:
        raise InputError(f"arcane level: expected minor, intermediate or major, got {level!r}")
    difficulty = ARCANE_DIFFICULTY[level] + target_will
    wins = 0
    cost = np.zeros(11, dtype=np.int64)
    for dice in itertools.product(range(1, 11), repeat=3):
        m, c, big = sorted(dice)
        code = middle_code(*dice, ADVANTAGE if aspect else NORMAL, False, variants.doubles)
        kept, special = code // 3 + 1, code % 3
        if special == 1 or (special == 0 and kept + will + skill >= difficulty):
            wins += 1
        cost[ARCANE_ASPECT_COST[level] if aspect else (m, c, big)[ARCANE_COST_DIE[level]]] += 1
    return {
        "p_success": wins / 1000,
        "cost": cost / 1000,
        "degeneration": int(aspect and level == "major"),
    }


DEGENERATION_PER_POINTS = 5  # B14: +1 per 5 points of Occultism + arcane skills
DEGENERATION_LOST = 10  # B14: at 10 the character is lost


def degeneration(
    occultism_and_arcane: int, major_aspect_uses: int = 0, lost_all_to_mythos: int = 0
) -> int:
    """B14: degeneration from lore (+1 per 5 total points of Occultism and arcane skills),
    +1 per aspect activated on a major arcane use, +1 per time all sanity or health was lost
    to the Mythos."""
    for name, value in (
        ("occultism_and_arcane", occultism_and_arcane),
        ("major_aspect_uses", major_aspect_uses),
        ("lost_all_to_mythos", lost_all_to_mythos),
    ):
        if value < 0:
            raise InputError(f"{name}: must be 0 or more, got {value}")
    return occultism_and_arcane // DEGENERATION_PER_POINTS + major_aspect_uses + lost_all_to_mythos


def stability_loss(loss, degeneration_points: int) -> np.ndarray:
    """B14: degeneration is subtracted from every later stability loss (never below 0)."""
    return np.maximum(np.asarray(loss) - degeneration_points, 0)


def is_lost(degeneration_points: int) -> bool:
    """B14: at degeneration 10 the character is lost."""
    return degeneration_points >= DEGENERATION_LOST


#: This system as the rest of the suite sees it (:mod:`engines.system`): native check
#: axes of the success-curve table, its opposed rule, combat engine and campaign mechanics.
def check_grid(cells, variants: Variants):
    """Success mask of (modifier, difficulty, roll) cells (B1, B3, B4): an automatic
    success always, a catastrophe never, otherwise kept die + modifier ≥ difficulty."""
    settings = np.array(list(MODES))
    known = list(MODES)
    for mode in set(np.asarray(cells["roll"]).tolist()):
        if mode not in MODES:
            raise InputError(f"roll: unknown mode {mode!r}; known: {', '.join(MODES)}")
    setting_of_cell = np.array(
        [known.index(m) for m in np.asarray(cells["roll"]).tolist()], dtype=np.int64
    )
    kept, special = kept_of_codes(), special_of_codes()
    total = kept[None, :] + np.asarray(cells["modifier"])[:, None]
    mask = (special == 1)[None, :] | (
        (special == 0)[None, :] & (total >= np.asarray(cells["difficulty"])[:, None])
    )
    return settings, setting_of_cell, mask, kept.astype(float)


def difficulty_axes() -> tuple[Difficulty, ...]:
    """Difficulty as the difficulty number (B1, B2; B2's named ones in the inverse table)."""
    vals = tuple(range(1, 51))
    return (
        Difficulty("difficulty", vals, tuple(str(v) for v in vals), tuple(DIFFICULTIES.values())),
    )


def chance_matrix(axis: str, competences, difficulties, variants: Variants) -> np.ndarray:
    """Exact P(success) ``[competences, difficulties]`` of a normal roll (B1, B3)."""
    comp = np.asarray(list(competences), dtype=np.int64)
    out = np.zeros((comp.size, len(difficulties)))
    dist = exact(["normal"], variants)[0]
    for j, d in enumerate(difficulties):
        for i, c in enumerate(comp):
            out[i, j] = dist @ success_mask(int(c), int(d))
    return out


def opposed_tie(cell, variants: Variants) -> tuple[float, bool]:
    """B-g3: a tie goes to the higher modifier, equal modifiers re-roll (``tie=reroll``:
    always re-roll)."""
    a, b = int(cell["modifier_a"]), int(cell["modifier_b"])
    if variants.tie == "trait_then_reroll" and a != b:
        return float(a > b), False
    return 0.0, True


def ladder_score(c: int, variants: Variants):
    """(kept die + modifier, probabilities) of a normal roll (B1)."""
    probs = exact(["normal"], variants)[0]
    return (kept_of_codes() + c).astype(float), probs


def curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook): an average person against an
    average task, with advantage and disadvantage."""
    n = p(modifier=6, difficulty=15, roll="normal")
    a = p(modifier=6, difficulty=15, roll="advantage")
    d = p(modifier=6, difficulty=15, roll="disadvantage")
    _ = tr._
    return _(
        "middle_3d10: an average person (modifier 6) meets an average task "
        "(difficulty 15) {n} of the time; advantage raises that to {a}, "
        "disadvantage lowers it to {d}. The middle die bunches results near 5–6, "
        "so each point of modifier matters most near the {half} point and little "
        "at the extremes (the two-10s / two-1s rules keep ~{edge} either way)."
    ).format(n=tr.pct(n), a=tr.pct(a), d=tr.pct(d), half=tr.percent(0.5, 0), edge=tr.percent(0.028))


def outcome_reading(stat, tr) -> str:
    """The outcome section's sentence (report hook): the kept die by roll mode."""
    _ = tr._
    return _(
        "middle_3d10: the kept middle die averages {mean} (SD {sd}), "
        "advantage {adv}, disadvantage {dis}: advantage is worth "
        "about {gain} points of modifier on average."
    ).format(
        mean=tr.decimal(stat("normal", "mean"), 2),
        sd=tr.decimal(stat("normal", "sd"), 2),
        adv=tr.decimal(stat("advantage", "mean"), 2),
        dis=tr.decimal(stat("disadvantage", "mean"), 2),
        gain=tr.decimal(stat("advantage", "mean") - stat("normal", "mean"), 1),
    )
