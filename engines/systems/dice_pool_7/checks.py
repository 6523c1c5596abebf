"""``dice_pool_7``: pool of d10, 7+ succeeds, 10 explodes (RULES.md section A, seed 000).

Check-level rules implemented here:

- **A1** the check: N d10, each 7–10 is a success, each 10 rolls one more die (10-again).
- **A2** the pool: attribute + specialization (+2) + modifiers, modifiers capped to −5..+5.
- **A3** focus: +1 die on the next check.
- **A4** willpower: +3 dice to one pool (or +2 to a resistance value).
- **A5** equipment: normal +0, masterwork +1, masterful +2 dice.
- **A9** dodge: the dodger rolls 2 × Defense dice; each success removes one attack die.
- **A17** morality and degeneration checks (dice from the Morality table).
- **A-g1** pool ≤ 0: chance die (variant ``chance_die``, ``chance_die_explodes``).
- **A-g2** success levels: the success count only; ``exceptional_at`` = 5 names the
  exceptional-success variant.
- **A-g7** (a gap this project adds: the seed has no opposed-check rule) opposed checks:
  both roll, more successes wins; a tie goes to the defender (variant ``opposed_tie``:
  the attacker needs more successes to change the situation), or is re-rolled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines import pool_checks as _checks
from engines import pools as _pools
from engines.errors import InputError
from engines.rng import Seed
from engines.system import (
    Difficulty,
    count_label,
)
from engines.variants import variant

SYSTEM = "dice_pool_7"


@dataclass(frozen=True)
class Variants:
    """Rule variants of ``dice_pool_7`` (each settles a gap or a published alternative)."""

    system: ClassVar[str] = SYSTEM
    threshold: int = variant(
        7,
        rule="A1",
        doc="face a die must reach to succeed",
        choices=range(2, 11),
        term="the success threshold",
    )
    again: int | None = variant(
        10,
        rule="A1",
        doc="faces that explode: 10-again (rules text), 9-again, 8-again, or none",
        choices=(10, 9, 8, None),
        term="the 10-again rule",
        words={10: "10-again", 9: "9-again", 8: "8-again", None: "no re-rolls"},
    )
    chance_die: bool = variant(
        True,
        rule="A-g1",
        doc="a pool of 0 or less rolls one chance "
        "die (10 succeeds, 1 is a dramatic failure); false = automatic "
        "failure",
        term="the chance die",
    )
    chance_die_explodes: bool = variant(
        False,
        rule="A-g1",
        doc="the chance die's 10 explodes (1st edition); default: it does not (2nd edition)",
        term="the exploding chance die",
    )
    exceptional_at: int = variant(
        0,
        rule="A-g2",
        doc="successes that make an exceptional "
        "success (0 = no success levels, the rules text's reading)",
        choices=(0, 3, 4, 5),
        term="the exceptional-success threshold",
        words={0: "none"},
    )
    opposed_tie: str = variant(
        "defender",
        rule="A-g7",
        doc="opposed check (both roll, more "
        "successes wins; the rules text gives no rule): a tie goes to the "
        "defender (status quo), or 'reroll' until one side wins",
        choices=("defender", "reroll"),
        term="the opposed-check tie rule",
        words={"defender": "the defender wins", "reroll": "a re-roll"},
    )

    def rule(self) -> _pools.PoolRule:
        return _pools.PoolRule(
            threshold=self.threshold,
            again=11 if self.again is None else self.again,
            chance_die=self.chance_die,
            chance_explodes=self.chance_die_explodes,
        )


DEFAULT = Variants()

#: A17: Morality check dice by the infraction's level M (M10–9: 5; M8–7: 4; M6–4: 3; M3–1: 2).
MORALITY_DICE = {10: 5, 9: 5, 8: 4, 7: 4, 6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}
#: A5: equipment quality → dice.
EQUIPMENT_DICE = {"normal": 0, "masterwork": 1, "masterful": 2}
FOCUS_DICE = 1  # A3
WILLPOWER_DICE = 3  # A4
WILLPOWER_RESISTANCE = 2  # A4
SPECIALIZATION_DICE = 2  # A2
MODIFIER_CAP = 5  # A2


def pool_size(
    attribute: int,
    specialization: bool = False,
    modifiers: int = 0,
    *,
    focus: bool = False,
    willpower: bool = False,
    equipment: str = "normal",
) -> int:
    """Dice in a pool (A2–A5): situational and equipment modifiers together capped at ±5."""
    if attribute < 0:
        raise InputError(f"attribute: must be 0 or more, got {attribute}")
    if equipment not in EQUIPMENT_DICE:
        raise InputError(
            f"equipment: unknown quality {equipment!r}; known: " + ", ".join(EQUIPMENT_DICE)
        )
    situational = int(np.clip(modifiers + EQUIPMENT_DICE[equipment], -MODIFIER_CAP, MODIFIER_CAP))
    return (
        attribute
        + SPECIALIZATION_DICE * bool(specialization)
        + situational
        + FOCUS_DICE * bool(focus)
        + WILLPOWER_DICE * bool(willpower)
    )


def _check_pools(pools) -> np.ndarray:
    return _pools.check_pools(pools)


def n_codes(max_pool: int, variants: Variants = DEFAULT) -> int:
    return _pools.n_codes_for(max_pool, variants.rule())


def exact(pools, variants: Variants = DEFAULT, codes: int | None = None):
    """Exact success-count distribution per pool (A1, A-g1). Codes: see :mod:`engines.pools`.

    Returns ``(probs[n_pools, n_codes], tail)``; ``tail`` is the truncated mass (≤ 1e-12).

    Examples
    --------
    >>> probs, tail = exact([1])
    >>> round(probs[0, 2], 4)  # exactly one success from one die: 0.3 + 0.1 * 0.6
    0.36
    """
    arr, rule = _check_pools(pools), variants.rule()
    return _pools.exact(arr, rule, _pools.codes_for(arr, rule, codes))


def monte_carlo(
    pools, trials: int, seed: Seed = None, variants: Variants = DEFAULT, codes: int | None = None
) -> np.ndarray:
    """Monte Carlo outcome counts per pool (A1, A-g1), ``trials`` checks each."""
    arr, rule = _check_pools(pools), variants.rule()
    return _pools.monte_carlo(arr, rule, _pools.codes_for(arr, rule, codes), trials, seed)


def successes_of_codes(codes: int) -> np.ndarray:
    """Success count of each outcome code (a dramatic failure counts 0)."""
    return np.maximum(np.arange(codes) - 1, 0)


def dodge_dice(defense: int) -> int:
    """A9: a dodge rolls 2 × Defense dice."""
    if defense < 0:
        raise InputError(f"defense: must be 0 or more, got {defense}")
    return 2 * defense


def attack_vs_dodge(attack_pool: int, defense: int, variants: Variants = DEFAULT) -> np.ndarray:
    """A9: exact attack outcome when the target dodges instead of subtracting Defense.

    The dodge roll's successes remove attack dice one for one; returns the attack's
    outcome distribution (codes as :func:`exact`).
    """
    dd = dodge_dice(defense)
    codes = n_codes(max(attack_pool, dd, 1), variants)
    dodge, _ = exact([dd], variants, codes)
    dodge_succ = dodge[0]
    reduced = attack_pool - np.maximum(np.arange(codes) - 1, 0)
    attack, _ = exact(reduced, variants, codes)
    return dodge_succ @ attack


def morality_check(infraction: int, morality: int, variants: Variants = DEFAULT) -> dict:
    """A17: exact odds of a Morality check and the Degeneration check that may follow.

    An infraction of level M ≤ current Morality calls a check with ``MORALITY_DICE[M]``
    dice; no success → Morality −1, then a Degeneration check with the new Morality as
    dice; no success → a derangement. Returns the probabilities of each step.
    """
    if infraction not in MORALITY_DICE:
        raise InputError(f"infraction: level must be 1..10, got {infraction}")
    if not 0 <= morality <= 10:
        raise InputError(f"morality: must be 0..10, got {morality}")
    if infraction > morality:
        return {
            "check": False,
            "p_drop": 0.0,
            "p_derangement": 0.0,
            "dice": 0,
            "degeneration_dice": 0,
        }
    dice = MORALITY_DICE[infraction]
    probs, _ = exact([dice, morality - 1], variants)
    p_fail = probs[0, :2].sum()  # no success (dramatic failure counts as none)
    p_degen_fail = probs[1, :2].sum()
    return {
        "check": True,
        "p_drop": float(p_fail),
        "p_derangement": float(p_fail * p_degen_fail),
        "dice": dice,
        "degeneration_dice": morality - 1,
    }


#: This system as the rest of the suite sees it (:mod:`engines.system`): native check
#: axes of the success-curve table, its opposed rule, combat engine and campaign mechanics.
def check_grid(cells, variants: Variants):
    """Success mask of (pool, successes) cells: at least ``successes`` successes (A1)."""
    return _checks.check_grid(_module(), "successes", cells, variants)


def difficulty_axes() -> tuple[Difficulty, ...]:
    """Difficulty as successes needed (A1) or as a dice penalty with one success
    needed (A2)."""
    succ, pen = tuple(range(1, 31)), tuple(range(31))
    return (
        Difficulty("successes", succ, tuple(count_label(k) for k in succ), (1, 2, 3, 4, 5)),
        Difficulty("penalty", pen, tuple(f"-{k} dice" for k in pen), (0, 1, 2, 3, 4, 5)),
    )


def opposed_tie(cell, variants: Variants) -> tuple[float, bool]:
    """A-g7: a tie goes to the defender, or (``opposed_tie=reroll``) is re-rolled."""
    return 0.0, variants.opposed_tie == "reroll"


def ladder_p(c: int, d: int, variants: Variants) -> float:
    """P(at least one success) of ``c`` dice with a ``d`` dice modifier (A1, A2)."""
    probs, _ = exact([c + d], variants)
    return float(1 - probs[0, :2].sum())


def _module():
    import sys

    return sys.modules[__name__]


def curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook): the chance die, where k
    successes become more likely than not, and what each extra success costs."""
    even = [min(n for n in range(21) if p(pool=n, successes=k) >= 0.5) for k in range(1, 6)]
    step = (even[-1] - even[0]) / (len(even) - 1)
    _ = tr._
    return _(
        "dice_pool_7: a chance die (pool 0) succeeds {p0} of the time; one "
        "success is more likely than not from {n1} dice ({p1}), three successes "
        "from {n3} dice, five from {n5}. A 5-die pool scores at least one success "
        "{p5} of the time; each extra success asked costs about {step} dice at "
        "even odds."
    ).format(
        p0=tr.pct(p(pool=0, successes=1)),
        n1=even[0],
        p1=tr.pct(p(pool=even[0], successes=1)),
        n3=even[2],
        n5=even[4],
        p5=tr.pct(p(pool=5, successes=1)),
        step=tr.decimal(step, 1),
    )


def outcome_reading(stat, tr) -> str:
    """The outcome section's sentence (report hook): 5 dice, mean and SD."""
    return pool_outcome_reading(SYSTEM, stat, tr)


def pool_outcome_reading(system: str, stat, tr) -> str:
    """A d10 pool's outcome sentence: 5 dice's mean and SD (shared with dice_pool_6)."""
    _ = tr._
    return _(
        "{system}: 5 dice average {mean} successes (SD {sd}); the "
        "mean grows linearly with the pool and the SD like its square "
        "root, so big pools are relatively steadier."
    ).format(system=system, mean=tr.decimal(stat(5, "mean"), 2), sd=tr.decimal(stat(5, "sd"), 2))
