"""The ``dice_pool_7`` system: single checks (``checks``), combat (``combat``) and campaign
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
    EQUIPMENT_DICE,
    FOCUS_DICE,
    SPECIALIZATION_DICE,
    SYSTEM,
    WILLPOWER_DICE,
    check_grid,
    curve_reading,
    difficulty_axes,
    exact,
    ladder_p,
    monte_carlo,
    opposed_tie,
    outcome_reading,
    successes_of_codes,
)

PLUGIN = System(
    id=SYSTEM,
    name="d10 pool, 7+ succeeds, 10-again",
    checks=Checks(
        module=checks.__name__,
        axes={"pool": range(21), "successes": range(1, 11)},
        grid=check_grid,
        exact=lambda settings, variants, n_codes: exact(settings, variants, n_codes)[0],
        monte_carlo=lambda settings, trials, seed, variants, n_codes: monte_carlo(
            settings, trials, seed, variants, n_codes
        ),
        kernel=lambda settings, variants: pool_checks.kernel(checks, settings, variants),
        code_count=lambda settings, variants: pool_checks.code_count(checks, settings, variants),
        opposed=OpposedRule(
            axes={"pool_a": range(11), "pool_b": range(11)},
            setting_axis="pool",
            rank_axis="pool",
            tie=opposed_tie,
            values=lambda cell, side, variants, n_codes: successes_of_codes(n_codes),
        ),
        modifiers=(
            Modifier(N_("focus +1 die"), "A3", shifts={"pool": FOCUS_DICE}),
            Modifier(
                N_("masterwork equipment +1"), "A5", shifts={"pool": EQUIPMENT_DICE["masterwork"]}
            ),
            Modifier(
                N_("masterful equipment +2"), "A5", shifts={"pool": EQUIPMENT_DICE["masterful"]}
            ),
            Modifier(N_("specialization +2"), "A2", shifts={"pool": SPECIALIZATION_DICE}),
            Modifier(N_("willpower +3 dice"), "A4", shifts={"pool": WILLPOWER_DICE}),
        ),
        modifier_axes={"pool": range(16), "successes": range(1, 6)},
    ),
    ladder=Ladder(
        competence_axis="pool",
        difficulty_axis="successes",
        # the fallback competence ladder (analysis/data/ladders.toml overrides it)
        rungs={"untrained": 1, "novice": 3, "competent": 5, "expert": 7, "master": 9},
        difficulty_axes=difficulty_axes,
        chance_matrix=lambda axis, comp, diffs, variants: pool_checks.chance_matrix(
            checks, axis, comp, diffs, variants
        ),
        competence_search=("pool", range(31)),
        rules=LadderRules(
            competence_range=(0, 30),
            difficulty_range=(-5, 5),
            harder=-1,
            labels=lambda c, d: (f"{c} dice", f"{d:+d} dice"),
            p=ladder_p,
            score=lambda c, variants: pool_checks.score(checks, c, variants),
        ),
    ),
    combat=Combat(module=f"{__name__}.combat", archetypes=f"{__name__}.archetypes:HOOK"),
    campaign=Campaign(
        module=f"{__name__}.campaign",
        example=("morality", {"morality": 7, "infraction": 5, "per_session": 1}, 30, 4),
    ),
    report=Report(
        range_rules="AT3, AT-g1",
        move_rules="AT1",
        summary=N_(
            "pool of d10, each 7+ is a success, 10s explode (A1); a pool of 0 rolls a "
            "chance die (A-g1)"
        ),
        color="#E69F00",
        glance=N_(
            "a pool of d10, each 7 or more a success, 10s rolling again (A1): a "
            "competent character meets an average task {competent_average} of the "
            "time, and luck is worth {luck_rungs} rungs. Why the upsets depend on "
            "the side: the defender wins a tied opposed roll (A-g7), so a novice "
            "wins {upset_roll_defending} of the rolls it defends against a competent "
            "character and {upset_roll_attacking} of those it starts. An even duel "
            "lasts {duel_rounds} rounds: one hit drops an equal {one_hit_drops} of "
            "the time."
        ),
        label="d10 pool, 7+, 10-again",
        ties=N_(
            "more successes wins and a tie goes to the defender (A-g7: the rules "
            "text gives no opposed rule; the default reading)"
        ),
        dying=N_(
            "a fighter at vitality 0 is dying (near death, A15), and left alone it "
            "stays dying to the end of the scene, since nothing lowers CON "
            "without new damage (A-g9)"
        ),
        curve_panels=(
            CurvePanel(
                x="pool",
                lines="successes",
                values=tuple(range(1, 6)),
                labels=("≥ {v}",),
                title=N_("{system}: P(success) by pool"),
                xlabel=N_("pool size (number of d10)"),
                legend=N_("successes needed"),
                legend_loc="lower right",
                legend_ncols=2,
                xticks=tuple(range(0, 21, 2)),
            ),
        ),
        curve_caption=N_(
            "Exact P(success) against pool size, one line per number of "
            "successes needed (lighter = easier)."
        ),
        curve_alt=N_("Line chart of {system} success probability against pool size"),
        curve_width=6.4,
        curve_tables=(
            CurveTable(
                key="",
                title=N_("P(at least k successes) by pool"),
                caption=N_(
                    "Exact probability that a pool of N d10 (rows) scores at least k "
                    "successes (columns), 10-again, chance die at pool 0."
                ),
                rows="pool",
                columns="successes",
                column_label=N_("successes needed (k)"),
                full=True,
            ),
        ),
        curve_reading=curve_reading,
        outcome_labels=(N_("pool (dice)"), N_("successes rolled")),
        outcome_reading=outcome_reading,
        pool_settings=True,
        spread=("pool", {"successes": 1}, N_("at least 1 success (A1)")),
    ),
    audit=Audit(
        terms={
            "CON": (N_("CON"), "A14"),
            "FOR": (N_("FOR"), "A7"),
            "DES": (N_("DES"), "A7"),
            "SAB": (N_("SAB"), "A8"),
            "DET": (N_("DET"), "A4"),
            "AUT": (N_("AUT"), "A4"),
            "weapon": (N_("weapon in hand"), "A11"),
            "armour": (N_("body armour"), "A13"),
            "shield": (N_("shield"), "A13"),
            "tactic": (N_("combat tactic"), "A6"),
            "plan": (N_("movement plan"), "AT1"),
            "willpower": (N_("Willpower"), "A4"),
            "quality": (N_("equipment quality"), "A5"),
            "pool": (N_("the dice pool"), "A2"),
            "successes": (N_("the successes needed"), "A1"),
            "weapon=unarmed": (N_("unarmed"), ""),
            "weapon=light_melee": (N_("light melee"), ""),
            "weapon=heavy_melee": (N_("heavy melee"), ""),
            "weapon=thrown": (N_("thrown"), ""),
            "weapon=light_ranged": (N_("light ranged"), ""),
            "weapon=heavy_ranged": (N_("heavy ranged"), ""),
            "weapon=unarmed_lethal": (N_("unarmed, lethal"), ""),
            "weapon=submachine_gun": (N_("submachine gun"), ""),
            "weapon=assault_rifle": (N_("assault rifle"), ""),
            "armour=none": (N_("none"), ""),
            "armour=light_archaic": (N_("light archaic"), ""),
            "armour=medium_archaic": (N_("medium archaic"), ""),
            "armour=heavy_archaic": (N_("heavy archaic"), ""),
            "armour=light_modern": (N_("light modern"), ""),
            "armour=heavy_modern": (N_("heavy modern"), ""),
            "armour=reinforced_clothing": (N_("reinforced clothing"), ""),
        },
        health_trait="CON",
        interaction_sweep={
            "metric": "p_rounds_between:3:5",
            "knobs": {
                "both.CON": [3, 8],
                "variant.again": [10, 9],
                "both.armour": ["none", "heavy_archaic"],
            },
        },
    ),
)

__all__ = ["PLUGIN"]
