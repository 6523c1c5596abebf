"""The ``percentile`` system: single checks (``checks``), combat (``combat``) and campaign
mechanics (``campaign``). Its :class:`~engines.system.System` is :data:`PLUGIN`, made
of the hooks of ``checks`` the way a plug-in makes its own (``examples/plugin_system``)."""

from __future__ import annotations

import numpy as np

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
    DICE_LABELS,
    PERCENTILE,
    REPORT_SKILLS,
    SYSTEM,
    chance_matrix,
    check_grid,
    curve_reading,
    dice_codes,
    difficulty_axes,
    ladder_labels,
    ladder_score,
    level_of_rolls,
    opposed_tie,
    p_success,
)

PLUGIN = System(
    id=SYSTEM,
    name="d100 roll-under with hard and extreme levels",
    checks=Checks(
        module=checks.__name__,
        axes={
            "skill": range(1, 100),
            "level": ("regular", "hard", "extreme"),
            "dice": range(-2, 3),
        },
        neutral={"dice": 0},
        grid=check_grid,
        kernel=lambda settings, variants: (PERCENTILE, dice_codes(settings), variants.rule()),
        # D3: success level (a critical counts as extreme, a fumble as a failure)
        opposed=OpposedRule(
            axes={
                "skill_a": range(5, 100, 5),
                "skill_b": range(5, 100, 5),
                "dice_a": (0,),
                "dice_b": (0,),
            },
            setting_axis="dice",
            rank_axis="skill",
            tie=opposed_tie,
            values=lambda cell, side, variants, n_codes: np.minimum(
                level_of_rolls(int(cell[f"skill_{side}"]), variants), 3
            ),
        ),
        modifiers=(
            Modifier(N_("1 bonus die"), "D4", sets={"dice": 1}),
            Modifier(N_("2 bonus dice"), "D4", sets={"dice": 2}),
            Modifier(N_("1 penalty die"), "D4", sets={"dice": -1}),
            Modifier(N_("2 penalty dice"), "D4", sets={"dice": -2}),
            Modifier(N_("push"), "D2", attempts=2),
        ),
        modifier_axes={"skill": range(5, 100, 5), "level": ("regular", "hard", "extreme")},
        modifier_base={"dice": 0},
    ),
    ladder=Ladder(
        competence_axis="skill",
        difficulty_axis="level",
        # the fallback competence ladder (analysis/data/ladders.toml overrides it)
        rungs={"untrained": 15, "novice": 30, "competent": 50, "expert": 70, "master": 90},
        difficulty_axes=difficulty_axes,
        chance_matrix=chance_matrix,
        competence_search=("skill", range(1, 101)),
        # a difficulty rung is a table {level, dice} (D1, D4)
        rules=LadderRules(
            competence_range=(1, 100),
            difficulty_range=None,
            labels=ladder_labels,
            p=lambda c, d, variants: p_success(c, d.level, d.dice, variants),
            score=ladder_score,
        ),
    ),
    combat=Combat(module=f"{__name__}.combat", archetypes=f"{__name__}.archetypes:HOOK"),
    campaign=Campaign(
        module=f"{__name__}.campaign", example=("skill-growth", {"skill": 40, "uses": 1}, 60, 75)
    ),
    report=Report(
        cover_rules="DX16, DX-g12",
        range_rules="DX15",
        move_rules="DX14, DX16",
        summary=N_(
            "d100 roll-under the skill; hard ≤ half, extreme ≤ a fifth (D1); "
            "bonus/penalty tens dice (D4)"
        ),
        color="#0072B2",
        glance=N_(
            "a d100 rolled under the skill; a hard success needs half the skill, "
            "an extreme one a fifth (D1): an expert meets a hard task {expert_hard} "
            "of the time, and luck is worth {luck_rungs} rungs. Why no skill makes "
            "a hard success more likely than not: half of a skill of at most 99 is "
            "49 (D1). The loser ends dead {loser_dead} of the time because a dying "
            "character left alone rolls CON each round until a roll fails (DX-g6)."
        ),
        label="d100 roll-under",
        ties=N_(
            "the better success level wins; a tie goes to the higher skill, then "
            "the lower d100 roll (D3)"
        ),
        dying=N_(
            "a dying character (0 hit points with a major wound) left alone "
            "rolls CON each round until a roll fails and then dies (DX-g6), so "
            "every dying loser nobody helps ends dead"
        ),
        curve_panels=(
            CurvePanel(
                x="skill",
                lines="level",
                values=("regular", "hard", "extreme"),
                fixed={"dice": 0},
                title=N_("level asked (no extra dice)"),
                xlabel=N_("skill (percent)"),
                legend=N_("level (D1)"),
                legend_loc="upper left",
                markevery=10,
            ),
            CurvePanel(
                x="skill",
                lines="dice",
                values=tuple(range(-2, 3)),
                fixed={"level": "regular"},
                labels=DICE_LABELS,
                title=N_("regular level, bonus/penalty dice (D4)"),
                xlabel=N_("skill (percent)"),
                legend=N_("net dice"),
                legend_loc="upper left",
                markevery=10,
            ),
        ),
        curve_caption=N_(
            "Exact P(success) against skill: by level asked (left) and by net "
            "bonus/penalty dice at the regular level (right)."
        ),
        curve_alt=N_("Line charts of percentile success probability against skill"),
        curve_tables=(
            CurveTable(
                key="levels",
                title=N_("P(success) by skill and level"),
                caption=N_(
                    "Exact probability that d100 reaches the level (columns) for "
                    "a skill (rows), no bonus or penalty dice, criticals and "
                    "fumbles as D-g1."
                ),
                rows="skill",
                columns="level",
                fixed={"dice": 0},
                row_values=REPORT_SKILLS,
                column_values=("regular", "hard", "extreme"),
                column_label=N_("level the keeper asks for"),
                full=True,
            ),
            CurveTable(
                key="dice",
                title=N_("P(regular success) with bonus/penalty dice"),
                caption=N_(
                    "Exact probability of a regular success by skill (rows) and "
                    "net bonus (+) or penalty (−) dice (columns, D4)."
                ),
                rows="skill",
                columns="dice",
                fixed={"level": "regular"},
                row_values=REPORT_SKILLS,
                column_names=DICE_LABELS,
                column_label=N_("net bonus (+) / penalty (−) dice"),
            ),
        ),
        curve_reading=curve_reading,
        outcome_labels=(N_("net bonus (+) / penalty (−) dice"), N_("d100 result (1–100)")),
        spread=("skill", {"level": "regular", "dice": 0}, N_("regular success (D1)")),
    ),
    audit=Audit(
        terms={
            "con": (N_("CON"), "DX6"),
            "siz": (N_("SIZ"), "DX6"),
            "strength": (N_("STR"), "DX3"),
            "dex": (N_("DEX"), "DX1"),
            "fighting": (N_("Fighting"), "DX2"),
            "firearms": (N_("Firearms"), "DX5"),
            "dodge": (N_("Dodge"), "DX2"),
            "armour": (N_("body armour"), "DX11"),
            "weapon": (N_("weapon in hand"), "DX3"),
            "defend": (N_("combat tactic"), "DX2"),
            "tactic": (N_("combat tactic"), "DX2"),
            "skill": (N_("the skill"), "D1"),
            "level": (N_("the success level asked for"), "D1"),
            "dice": (N_("the bonus and penalty dice"), "D4"),
            "weapon=unarmed": (N_("unarmed"), ""),
            "weapon=knife": (N_("knife"), ""),
            "weapon=club": (N_("club"), ""),
            "weapon=handgun": (N_("handgun"), ""),
            "weapon=rifle": (N_("rifle"), ""),
            "weapon=shotgun": (N_("shotgun"), ""),
            "weapon=machete": (N_("machete"), ""),
            "weapon=bat": (N_("bat"), ""),
        },
        health_trait="con",
        interaction_sweep={
            "metric": "p_rounds_between:2:6",
            "knobs": {
                "both.con": [60, 80],
                "variant.extreme_damage": [True, False],
                "both.armour": [0, 4],
            },
        },
    ),
)

__all__ = ["PLUGIN"]
