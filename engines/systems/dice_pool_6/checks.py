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
    N_,
    CurvePanel,
    CurveTable,
    Difficulty,
    LadderRules,
    Modifier,
    OpposedRule,
    System,
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
    threshold: int = variant(6, rule="C-g1", doc="face a die must reach to succeed "
                             "(the seed leaves it unwritten; 6+ as in Vampire 5th ed.)",
                             choices=range(2, 11),
                             term="the success threshold")
    criticals: bool = variant(True, rule="C-g2", doc="each pair of 10s counts 4 successes "
                              "(2 extra); false = no criticals",
                              term="the criticals rule")
    retry_step: int = variant(1, rule="C-g3", doc="difficulty removed per retry of a "
                              "repeatable check (minimum difficulty 1)", choices=(0, 1, 2),
                              term="the retry step")
    min_damage: bool = variant(False, rule="C-g4", doc="a conflict won with margin 0 and a "
                               "+0 weapon deals 1 damage (default: 0, the literal reading)",
                               term="the minimum damage rule")
    opposition: str = variant("trait", rule="C4", doc="fixed opposition: the resisting "
                              "trait (0 counts 1) or half the resisting pool",
                              choices=("trait", "half_pool"),
                              term="the fixed-opposition rule",
                              words={"trait": "the resisting trait",
                                     "half_pool": "half the resisting pool"})

    def rule(self) -> _pools.PoolRule:
        return _pools.PoolRule(threshold=self.threshold, again=11,
                               crit_pair_bonus=2 if self.criticals else 0, chance_die=False)


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


def monte_carlo(pools, trials: int, seed: Seed = None, variants: Variants = DEFAULT,
                codes: int | None = None) -> np.ndarray:
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
    return float(probs[0, 1 + difficulty:].sum()) if difficulty + 1 < probs.shape[1] else 0.0


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
    return (Difficulty("successes", vals, tuple(count_label(k) for k in vals),
                       (1, 2, 3, 4, 5, 6)),)


def _module():
    import sys

    return sys.modules[__name__]
def _curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook)."""
    _ = tr._
    return _("dice_pool_6: each die succeeds half the time, so small pools are "
             "swingy: 2 dice meet difficulty 1 {p2}, 4 dice meet difficulty 2 {p4}, "
             "8 dice difficulty 4 {p8}. Roughly two dice per point of difficulty keeps "
             "the odds near even.").format(
        p2=tr.pct(p(pool=2, difficulty=1)), p4=tr.pct(p(pool=4, difficulty=2)),
        p8=tr.pct(p(pool=8, difficulty=4)))


def _outcome_reading(stat, tr) -> str:
    """The outcome section's sentence (report hook): 5 dice, mean and SD."""
    from engines.systems.dice_pool_7.checks import pool_outcome_reading

    return pool_outcome_reading(SYSTEM, stat, tr)


PLUGIN = System(
    id=SYSTEM, name="d10 pool, 6+ succeeds, vs a number of successes", module=__name__,
    axes={"pool": range(21), "difficulty": range(1, 11)},
    opposed=True, combat=f"{__package__}.combat", campaign=f"{__package__}.campaign",
    check_grid=check_grid, competence_axis="pool", difficulty_axis="difficulty",
    modifiers=(
        Modifier(N_("specialty +1 die"), "C5", shifts={"pool": SPECIALTY_DICE}),
        Modifier(N_("+2 dice"), "C7", shifts={"pool": 2}),
        # C2/C-g3: a difficulty never drops below 1
        Modifier(N_("-1 difficulty"), "C7", shifts={"difficulty": -1}, at_least={"difficulty": 1}),
    ),
    # the fallback competence ladder (analysis/data/ladders.toml overrides it)
    ladder={"untrained": 2, "novice": 3, "competent": 5, "expert": 7, "master": 9},
    # ---- check hooks
    check_exact=lambda settings, variants, n_codes: exact(settings, variants, n_codes)[0],
    check_mc=lambda settings, trials, seed, variants, n_codes: monte_carlo(
        settings, trials, seed, variants, n_codes),
    check_kernel=lambda settings, variants: _checks.kernel(_module(), settings, variants),
    code_count=lambda settings, variants: _checks.code_count(_module(), settings, variants),
    # C10: more successes wins; the challenger (side a) wins ties
    opposed_rule=OpposedRule(
        axes={"pool_a": range(11), "pool_b": range(11)}, setting_axis="pool",
        rank_axis="pool", tie=lambda cell, variants: (1.0, False),
        values=lambda cell, side, variants, n_codes: successes_of_codes(n_codes)),
    modifier_axes={"pool": range(1, 16), "difficulty": range(1, 7)},
    difficulty_axes=difficulty_axes,
    chance_matrix=lambda axis, comp, diffs, variants: _checks.chance_matrix(
        _module(), axis, comp, diffs, variants),
    competence_search=("pool", range(31)),
    ladder_rules=LadderRules(
        competence_range=(0, 30), difficulty_range=(1, 30),
        labels=lambda c, d: (f"{c} dice", f"{d} successes"),
        p=lambda c, d, variants: p_at_least(c, d, variants),
        score=lambda c, variants: _checks.score(_module(), c, variants)),
    # report hooks
    summary=N_("pool of d10, each 6+ is a success (C-g1), a pair of 10s is worth 4 (C-g2), "
               "vs a number of successes (C1)"),
    color="#009E73",
    label="d10 pool vs successes",
    curve_panels=(CurvePanel(
        x="pool", lines="difficulty", values=tuple(range(1, 7)), labels=("≥ {v}",),
        title=N_("{system}: P(success) by pool"), xlabel=N_("pool size (number of d10)"),
        legend=N_("difficulty needed"), legend_loc="lower right", legend_ncols=2,
        xticks=tuple(range(0, 21, 2))),),
    curve_caption=N_("Exact P(success) against pool size, one line per difficulty "
                     "(lighter = easier)."),
    curve_alt=N_("Line chart of {system} success probability against pool size"),
    curve_width=6.4,
    curve_tables=(CurveTable(
        key="", title=N_("P(success) by pool and difficulty"),
        caption=N_("Exact probability that a pool of N d10 (rows) reaches a difficulty of "
                   "d successes (columns)."),
        rows="pool", columns="difficulty", column_label=N_("difficulty (successes needed)"),
        full=True),),
    curve_reading=_curve_reading,
    outcome_labels=(N_("pool (dice)"), N_("successes rolled (a pair of 10s = 4)")),
    outcome_reading=_outcome_reading,
    pool_settings=True,
    spread=("pool", {"difficulty": 3}, N_("difficulty 3 successes (C1)")),
    campaign_example=("budgets", {"stamina": 2, "scenes": 3, "attack": 4, "dodge": 4}, 20, 1),
    terms={
        "stamina": (N_("Stamina"), "C6"), "composure": (N_("Composure"), "C6"),
        "resolve": (N_("Resolve"), "C6"), "weapon": (N_("weapon in hand"), "C11"),
        "split": (N_("combat tactic"), "C13"), "tactic": (N_("combat tactic"), "C13"),
        "cover": (N_("cover"), "C12"), "plan": (N_("movement plan"), "CT1"),
        "pool": (N_("the dice pool"), "C1"),
        "difficulty": (N_("the difficulty"), "C1"),
        "weapon=unarmed": (N_("unarmed"), ""), "weapon=light_melee": (N_("light melee"), ""),
        "weapon=heavy_melee": (N_("heavy melee"), ""),
        "weapon=light_ranged": (N_("light ranged"), ""),
        "weapon=heavy_ranged": (N_("heavy ranged"), ""), "weapon=shotgun": (N_("shotgun"), ""),
    },
    archetype_library="engines.systems.dice_pool_6.archetypes:HOOK",
    health_trait="stamina",
    interaction_sweep={"metric": "p_rounds_between:2:6",
                       "knobs": {"both.stamina": [3, 6], "variant.criticals": [True, False],
                                 "variant.min_damage": [True, False]}},
)
