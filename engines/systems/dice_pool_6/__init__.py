"""The ``dice_pool_6`` system: single checks (``checks``), combat (``combat``) and campaign
mechanics (``campaign``). Its :class:`~engines.system.System` is :data:`PLUGIN`, made
of the hooks of ``checks`` the way a plug-in makes its own (``examples/plugin_system``)."""

from __future__ import annotations

from engines import pool_checks
from engines.system import (
    N_,
    Audit,
    Campaign,
    Checks,
    Combat,
    CurvePanel,
    CurveTable,
    Ladder,
    LadderRules,
    Modifier,
    OpposedRule,
    Report,
    System,
)

from . import checks
from .checks import (
    SPECIALTY_DICE,
    SYSTEM,
    check_grid,
    curve_reading,
    difficulty_axes,
    exact,
    monte_carlo,
    outcome_reading,
    p_at_least,
    successes_of_codes,
)

PLUGIN = System(
    id=SYSTEM,
    name="d10 pool, 6+ succeeds, vs a number of successes",
    checks=Checks(
        module=checks.__name__,
        axes={"pool": range(21), "difficulty": range(1, 11)},
        grid=check_grid,
        exact=lambda settings, variants, n_codes: exact(settings, variants, n_codes)[0],
        monte_carlo=lambda settings, trials, seed, variants, n_codes: monte_carlo(
            settings, trials, seed, variants, n_codes
        ),
        kernel=lambda settings, variants: pool_checks.kernel(checks, settings, variants),
        code_count=lambda settings, variants: pool_checks.code_count(checks, settings, variants),
        # C10: more successes wins; the challenger (side a) wins ties
        opposed=OpposedRule(
            axes={"pool_a": range(11), "pool_b": range(11)},
            setting_axis="pool",
            rank_axis="pool",
            tie=lambda cell, variants: (1.0, False),
            values=lambda cell, side, variants, n_codes: successes_of_codes(n_codes),
        ),
        modifiers=(
            Modifier(N_("specialty +1 die"), "C5", shifts={"pool": SPECIALTY_DICE}),
            Modifier(N_("+2 dice"), "C7", shifts={"pool": 2}),
            # C2/C-g3: a difficulty never drops below 1
            Modifier(
                N_("-1 difficulty"), "C7", shifts={"difficulty": -1}, at_least={"difficulty": 1}
            ),
        ),
        modifier_axes={"pool": range(1, 16), "difficulty": range(1, 7)},
    ),
    ladder=Ladder(
        competence_axis="pool",
        difficulty_axis="difficulty",
        # the fallback competence ladder (analysis/data/ladders.toml overrides it)
        rungs={"untrained": 2, "novice": 3, "competent": 5, "expert": 7, "master": 9},
        difficulty_axes=difficulty_axes,
        chance_matrix=lambda axis, comp, diffs, variants: pool_checks.chance_matrix(
            checks, axis, comp, diffs, variants
        ),
        competence_search=("pool", range(31)),
        rules=LadderRules(
            competence_range=(0, 30),
            difficulty_range=(1, 30),
            labels=lambda c, d: (f"{c} dice", f"{d} successes"),
            p=lambda c, d, variants: p_at_least(c, d, variants),
            score=lambda c, variants: pool_checks.score(checks, c, variants),
        ),
    ),
    combat=Combat(module=f"{__name__}.combat", archetypes=f"{__name__}.archetypes:HOOK"),
    campaign=Campaign(
        module=f"{__name__}.campaign",
        example=("budgets", {"stamina": 2, "scenes": 3, "attack": 4, "dodge": 4}, 20, 1),
    ),
    report=Report(
        cover_rules="CT1, CT-g2",
        range_rules="",
        move_rules="CT1, CT-g1",
        summary=N_(
            "pool of d10, each 6+ is a success (C-g1), a pair of 10s is worth 4 (C-g2), "
            "vs a number of successes (C1)"
        ),
        color="#009E73",
        glance=N_(
            "a pool of d10, each 6 or more a success, a pair of 10s worth four "
            "(C-g1, C-g2), against a number of successes needed (C1): an expert "
            "meets a hard task {expert_hard} of the time, and an even duel lasts "
            "{duel_rounds} rounds. Why the upsets depend on the side: the challenger "
            "wins a tied contest (C10), so a novice wins {upset_roll_attacking} of "
            "the rolls it starts against a competent character and "
            "{upset_roll_defending} of those it answers."
        ),
        label="d10 pool vs successes",
        ties=N_(
            "the challenger wins with equal or more successes, so a tie goes to "
            "the challenger (C10)"
        ),
        dying=N_("no one is ever dying: a fallen fighter who is not dead is out (C-g6)"),
        curve_panels=(
            CurvePanel(
                x="pool",
                lines="difficulty",
                values=tuple(range(1, 7)),
                labels=("≥ {v}",),
                title=N_("{system}: P(success) by pool"),
                xlabel=N_("pool size (number of d10)"),
                legend=N_("difficulty needed"),
                legend_loc="lower right",
                legend_ncols=2,
                xticks=tuple(range(0, 21, 2)),
            ),
        ),
        curve_caption=N_(
            "Exact P(success) against pool size, one line per difficulty (lighter = easier)."
        ),
        curve_alt=N_("Line chart of {system} success probability against pool size"),
        curve_width=6.4,
        curve_tables=(
            CurveTable(
                key="",
                title=N_("P(success) by pool and difficulty"),
                caption=N_(
                    "Exact probability that a pool of N d10 (rows) reaches a difficulty of "
                    "d successes (columns)."
                ),
                rows="pool",
                columns="difficulty",
                column_label=N_("difficulty (successes needed)"),
                full=True,
            ),
        ),
        curve_reading=curve_reading,
        outcome_labels=(N_("pool (dice)"), N_("successes rolled (a pair of 10s = 4)")),
        outcome_reading=outcome_reading,
        pool_settings=True,
        spread=("pool", {"difficulty": 3}, N_("difficulty 3 successes (C1)")),
        claims=("C7",),
    ),
    audit=Audit(
        terms={
            "stamina": (N_("Stamina"), "C6"),
            "composure": (N_("Composure"), "C6"),
            "resolve": (N_("Resolve"), "C6"),
            "weapon": (N_("weapon in hand"), "C11"),
            "split": (N_("combat tactic"), "C13"),
            "tactic": (N_("combat tactic"), "C13"),
            "cover": (N_("cover"), "C12"),
            "plan": (N_("movement plan"), "CT1"),
            "pool": (N_("the dice pool"), "C1"),
            "difficulty": (N_("the difficulty"), "C1"),
            "weapon=unarmed": (N_("unarmed"), ""),
            "weapon=light_melee": (N_("light melee"), ""),
            "weapon=heavy_melee": (N_("heavy melee"), ""),
            "weapon=light_ranged": (N_("light ranged"), ""),
            "weapon=heavy_ranged": (N_("heavy ranged"), ""),
            "weapon=shotgun": (N_("shotgun"), ""),
        },
        health_trait="stamina",
        interaction_sweep={
            "metric": "p_rounds_between:2:6",
            "knobs": {
                "both.stamina": [3, 6],
                "variant.criticals": [True, False],
                "variant.min_damage": [True, False],
            },
        },
    ),
)

__all__ = ["PLUGIN"]
