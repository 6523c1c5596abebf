"""``dice_pool_6``: pool of d10 against a number of successes (RULES.md section C, seed 002).

Check-level rules implemented here:

- **C1** the check: attribute + skill dice, each die at ``threshold`` (C-g1: 6+) or more
  succeeds; success needs at least ``difficulty`` successes. **C-g2**: each pair of 10s
  counts 4 successes (variant ``criticals``).
- **C2** repetition: a retried check's difficulty drops by ``retry_step`` (C-g3), min 1.
- **C3** equipment: missing required equipment → impossible; improvised → +1 difficulty.
- **C4** opposition: the resisting trait (0 counts 1) or ⌊resisting pool / 2⌋.
- **C5** specialty: +1 die.  **C7** the claim "−1 difficulty ≡ +2 dice" is measured in
  :mod:`analysis.checks.curves`.  **C8** teamwork: the leader's dice + 1 per helper.
- **C9** special checks: a single die, no rerolls or automatic wins.
- **C10** contest: the challenger wins with equal or more successes.
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

SYSTEM = "dice_pool_6"
SPECIALTY_DICE = 1  # C5
IMPROVISED_DIFFICULTY = 1  # C3
HEALTH_BONUS = 3  # C6


@dataclass(frozen=True)
class Variants:
    """Rule variants of ``dice_pool_6``."""

    system: ClassVar[str] = SYSTEM
    threshold: int = variant(
        6,
        rule="C-g1",
        doc="face a die must reach to succeed "
        "(the rules text leaves it unwritten; 6+ as in Vampire 5th ed.)",
        choices=range(2, 11),
        term="the success threshold",
    )
    criticals: bool = variant(
        True,
        rule="C-g2",
        doc="each pair of 10s counts 4 successes (2 extra); false = no criticals",
        term="the criticals rule",
    )
    retry_step: int = variant(
        1,
        rule="C-g3",
        doc="difficulty removed per retry of a repeatable check (minimum difficulty 1)",
        choices=(0, 1, 2),
        term="the retry step",
    )
    min_damage: bool = variant(
        False,
        rule="C-g4",
        doc="a conflict won with margin 0 and a "
        "+0 weapon deals 1 damage (default: 0, the literal reading)",
        term="the minimum damage rule",
    )
    opposition: str = variant(
        "trait",
        rule="C4",
        doc="fixed opposition: the resisting trait (0 counts 1) or half the resisting pool",
        choices=("trait", "half_pool"),
        term="the fixed-opposition rule",
        words={"trait": "the resisting trait", "half_pool": "half the resisting pool"},
    )

    def rule(self) -> _pools.PoolRule:
        return _pools.PoolRule(
            threshold=self.threshold,
            again=11,
            crit_pair_bonus=2 if self.criticals else 0,
            chance_die=False,
        )


DEFAULT = Variants()


def _check_pools(pools) -> np.ndarray:
    return _pools.check_pools(pools, min_pool=0)


def n_codes(max_pool: int, variants: Variants = DEFAULT) -> int:
    return _pools.n_codes_for(max_pool, variants.rule())


def exact(pools, variants: Variants = DEFAULT, codes: int | None = None):
    """Exact success-count distribution per pool (C1, C-g1, C-g2); codes as
    :mod:`engines.pools` (code ``1 + k`` = ``k`` successes, code 0 never occurs)."""
    arr, rule = _check_pools(pools), variants.rule()
    return _pools.exact(arr, rule, _pools.codes_for(arr, rule, codes))


def monte_carlo(
    pools, trials: int, seed: Seed = None, variants: Variants = DEFAULT, codes: int | None = None
) -> np.ndarray:
    """Monte Carlo outcome counts per pool (C1, C-g2), ``trials`` checks each."""
    arr, rule = _check_pools(pools), variants.rule()
    return _pools.monte_carlo(arr, rule, _pools.codes_for(arr, rule, codes), trials, seed)


def successes_of_codes(codes: int) -> np.ndarray:
    return np.maximum(np.arange(codes) - 1, 0)


def p_at_least(pool: int, difficulty: int, variants: Variants = DEFAULT) -> float:
    """P(successes ≥ difficulty) for one pool (C1)."""
    if difficulty < 0:
        raise InputError(f"difficulty: must be 0 or more, got {difficulty}")
    probs, _ = exact([pool], variants)
    return float(probs[0, 1 + difficulty :].sum()) if difficulty + 1 < probs.shape[1] else 0.0


def retry_difficulty(difficulty: int, retries: int, variants: Variants = DEFAULT) -> int:
    """C2 / C-g3: difficulty after ``retries`` repetitions (never below 1)."""
    if retries < 0:
        raise InputError(f"retries: must be 0 or more, got {retries}")
    return max(1, difficulty - variants.retry_step * retries)


def equipment_difficulty(difficulty: int, equipment: str) -> int | None:
    """C3: ``'proper'`` keeps the difficulty, ``'improvised'`` adds 1, ``'missing'`` makes
    the check impossible (``None``)."""
    table = {"proper": 0, "improvised": IMPROVISED_DIFFICULTY}
    if equipment == "missing":
        return None
    if equipment not in table:
        raise InputError(f"equipment: expected proper, improvised or missing, got {equipment!r}")
    return difficulty + table[equipment]


def opposition_difficulty(resisting: int, variants: Variants = DEFAULT) -> int:
    """C4: difficulty set by the resisting side (trait, 0 counts 1; or ⌊pool / 2⌋).

    Either way at least 1: C1 makes one success the minimum difficulty, and a difficulty of
    0 would be an automatic success.
    """
    if resisting < 0:
        raise InputError(f"resisting: must be 0 or more, got {resisting}")
    if variants.opposition == "trait":
        return max(1, resisting)
    return max(1, resisting // 2)


def teamwork_pool(leader_dice: int, helper_dots: list[int]) -> int:
    """C8: the leader's dice + 1 per helper with at least one dot in the skill."""
    return leader_dice + sum(1 for d in helper_dots if d >= 1)


def special_check(variants: Variants = DEFAULT) -> float:
    """C9: a special check rolls one die — no rerolls, no criticals; P(success)."""
    return (11 - variants.threshold) / 10


def contest(pool_a: int, pool_b: int, variants: Variants = DEFAULT) -> float:
    """C10: P(challenger ``a`` wins) — equal or more successes than ``b``."""
    probs, _ = exact([pool_a, pool_b], variants, n_codes(max(pool_a, pool_b, 1), variants))
    sa, sb = probs[0], probs[1]
    return float(np.sum(sa * np.cumsum(sb)))


#: This system as the rest of the suite sees it (:mod:`engines.system`): native check
#: axes of the success-curve table, its opposed rule, combat engine and campaign mechanics.
def check_grid(cells, variants: Variants):
    """Success mask of (pool, difficulty) cells: at least ``difficulty`` successes (C1)."""
    return _checks.check_grid(_module(), "difficulty", cells, variants)


def difficulty_axes() -> tuple[Difficulty, ...]:
    """Difficulty as the successes needed (C1)."""
    vals = tuple(range(1, 41))
    return (Difficulty("successes", vals, tuple(count_label(k) for k in vals), (1, 2, 3, 4, 5, 6)),)


def _module():
    import sys

    return sys.modules[__name__]


def curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook)."""
    _ = tr._
    return _(
        "dice_pool_6: each die succeeds half the time, so small pools are "
        "swingy: 2 dice meet difficulty 1 {p2}, 4 dice meet difficulty 2 {p4}, "
        "8 dice difficulty 4 {p8}. Roughly two dice per point of difficulty keeps "
        "the odds near even."
    ).format(
        p2=tr.pct(p(pool=2, difficulty=1)),
        p4=tr.pct(p(pool=4, difficulty=2)),
        p8=tr.pct(p(pool=8, difficulty=4)),
    )


def outcome_reading(stat, tr) -> str:
    """The outcome section's sentence (report hook): 5 dice, mean and SD."""
    from engines.systems.dice_pool_7.checks import pool_outcome_reading

    return pool_outcome_reading(SYSTEM, stat, tr)
