"""The ``middle_3d10`` system: single checks (``checks``), combat (``combat``) and campaign
mechanics (``campaign``). Its :class:`~engines.system.System` is :data:`PLUGIN`, made
of the hooks of ``checks`` the way a plug-in makes its own (``examples/plugin_system``)."""

from __future__ import annotations

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
    MIDDLE,
    SYSTEM,
    chance_matrix,
    check_grid,
    curve_reading,
    difficulty_axes,
    kept_of_codes,
    ladder_score,
    mode_codes,
    opposed_tie,
    outcome_reading,
    p_success,
)

PLUGIN = System(
    id=SYSTEM,
    name="3d10 keep the middle die + modifier vs difficulty",
    checks=Checks(
        module=checks.__name__,
        axes={
            "modifier": range(21),
            "difficulty": range(5, 31),
            "roll": ("normal", "advantage", "disadvantage"),
        },
        neutral={"roll": "normal"},
        grid=check_grid,
        kernel=lambda settings, variants: (MIDDLE, mode_codes(settings), variants.rule()),
        # B5: kept die + modifier, higher wins; B3's automatic results do not enter it
        opposed=OpposedRule(
            axes={
                "modifier_a": range(2, 21),
                "modifier_b": range(2, 21),
                "roll_a": ("normal",),
                "roll_b": ("normal",),
            },
            setting_axis="roll",
            rank_axis="modifier",
            tie=opposed_tie,
            values=lambda cell, side, variants, n_codes: (
                kept_of_codes() + int(cell[f"modifier_{side}"])
            ),
        ),
        modifiers=(
            Modifier(N_("advantage"), "B4", sets={"roll": "advantage"}),
            Modifier(N_("disadvantage"), "B4, B-g2", sets={"roll": "disadvantage"}),
        ),
        modifier_axes={"modifier": range(2, 21), "difficulty": (10, 15, 20, 25)},
        modifier_base={"roll": "normal"},
    ),
    ladder=Ladder(
        competence_axis="modifier",
        difficulty_axis="difficulty",
        # the fallback competence ladder (analysis/data/ladders.toml overrides it)
        rungs={"untrained": 3, "novice": 6, "competent": 9, "expert": 12, "master": 15},
        difficulty_axes=difficulty_axes,
        chance_matrix=chance_matrix,
        competence_search=("modifier", range(41)),
        rules=LadderRules(
            competence_range=(0, 40),
            difficulty_range=(0, 60),
            labels=lambda c, d: (f"+{c}", f"difficulty {d}"),
            p=lambda c, d, variants: p_success(c, d, "normal", variants),
            score=ladder_score,
        ),
    ),
    combat=Combat(module=f"{__name__}.combat", archetypes=f"{__name__}.archetypes:HOOK"),
    campaign=Campaign(
        module=f"{__name__}.campaign", example=("arcane", {"uses": 1, "level": "major"}, 52, 10)
    ),
    report=Report(
        range_rules="BT-g2",
        move_rules="BT1, BT-g1",
        summary=N_(
            "3d10, keep the middle die, + modifier vs difficulty (B1); two 10s always "
            "succeed, two 1s always fail (B3)"
        ),
        color="#56B4E9",
        glance=N_(
            "three d10, the middle one kept, plus trait and skill against a "
            "difficulty (B1): luck is worth {luck_rungs} rungs, yet an even duel "
            "lasts {duel_rounds} rounds and one hit drops an equal {one_hit_drops} "
            "of the time. Why: the massive-damage check (B10): almost any hit (damage "
            "of at least the target's Vigor) forces a difficulty-12 check on the "
            "middle die plus Vigor, and a failure loses every point left. The loser "
            "ends dead {loser_dead} of the time because a dying fighter nobody helps "
            "stays dying (B-g10)."
        ),
        label="3d10 keep middle",
        ties=N_(
            "the higher total wins; a tie goes to the higher trait + skill, then a re-roll (B-g3)"
        ),
        dying=N_(
            "a dying fighter (B9) nobody helps stays dying: a risk of death is "
            "not death, and no rule resolves it (B-g10)"
        ),
        curve_panels=tuple(
            CurvePanel(
                x="difficulty",
                lines="roll",
                values=("disadvantage", "normal", "advantage"),
                fixed={"modifier": mod},
                title=N_("modifier {modifier}"),
                xlabel=N_("difficulty (B2: 10 easy … 25 very hard)"),
                legend=N_("roll (B4)"),
                legend_loc="upper right" if mod == 6 else None,
                vlines=(10, 15, 20, 25),
            )
            for mod in (6, 12)
        ),
        curve_caption=N_(
            "Exact P(total ≥ difficulty) for modifiers 6 (average person) and "
            "12, normal, advantage and disadvantage rolls; dotted lines mark "
            "the B2 difficulties."
        ),
        curve_alt=N_("Line charts of middle_3d10 success probability against difficulty"),
        curve_tables=(
            CurveTable(
                key="normal",
                title=N_("P(success), normal roll"),
                caption=N_(
                    "Exact probability of total ≥ difficulty (rows) for a normal "
                    "roll with modifier = characteristic + skill (columns, even "
                    "values; all values in the CSV)."
                ),
                rows="difficulty",
                columns="modifier",
                fixed={"roll": "normal"},
                column_values=tuple(range(0, 21, 2)),
                column_label=N_("modifier (characteristic + skill)"),
                full=True,
            ),
            CurveTable(
                key="advantage",
                title=N_("P(success), advantage roll"),
                caption=N_(
                    "Exact probability of total ≥ difficulty (rows) for an "
                    "advantage roll with modifier = characteristic + skill "
                    "(columns, even values; all values in the CSV)."
                ),
                rows="difficulty",
                columns="modifier",
                fixed={"roll": "advantage"},
                column_values=tuple(range(0, 21, 2)),
                column_label=N_("modifier (characteristic + skill)"),
            ),
            CurveTable(
                key="disadvantage",
                title=N_("P(success), disadvantage roll"),
                caption=N_(
                    "Exact probability of total ≥ difficulty (rows) for a "
                    "disadvantage roll with modifier = characteristic + skill "
                    "(columns, even values; all values in the CSV)."
                ),
                rows="difficulty",
                columns="modifier",
                fixed={"roll": "disadvantage"},
                column_values=tuple(range(0, 21, 2)),
                column_label=N_("modifier (characteristic + skill)"),
            ),
        ),
        curve_reading=curve_reading,
        outcome_labels=(N_("roll"), N_("kept die (1–10)")),
        outcome_reading=outcome_reading,
        spread=(
            "modifier",
            {"difficulty": 15, "roll": "normal"},
            N_("difficulty 15, average (B2)"),
        ),
    ),
    audit=Audit(
        terms={
            "vigor": (N_("Vigor"), "B9"),
            "strength": (N_("Strength"), "B8"),
            "combat": (N_("Combat"), "B8"),
            "trait": (N_("characteristic"), "B1"),
            "defense": (N_("Defense"), "B7"),
            "reflex": (N_("reflex"), "B-g4"),
            "drama": (N_("drama points"), "B4"),
            "weapon": (N_("weapon in hand"), "B8"),
            "drama_tactic": (N_("drama tactic"), "B4"),
            "tactic": (N_("drama tactic"), "B4"),
            "plan": (N_("movement plan"), "BT1"),
            "modifier": (N_("the characteristic + skill"), "B1"),
            "difficulty": (N_("the Difficulty"), "B2"),
            "roll": (N_("advantage or disadvantage"), "B4"),
            "weapon=fists": (N_("fists"), ""),
            "weapon=knife": (N_("knife"), ""),
            "weapon=sword": (N_("sword"), ""),
            "weapon=pistol": (N_("pistol"), ""),
            "weapon=rifle": (N_("rifle"), ""),
            "weapon=shotgun": (N_("shotgun"), ""),
            "weapon=claws": (N_("claws"), ""),
            "weapon=brass_knuckles": (N_("brass knuckles"), ""),
            "weapon=axe": (N_("axe"), ""),
            "weapon=baton": (N_("baton"), ""),
            "weapon=smg": (N_("submachine gun"), ""),
            "weapon=machine_gun": (N_("machine gun"), ""),
        },
        health_trait="vigor",
        interaction_sweep={
            "metric": "p_rounds_between:2:6",
            "knobs": {"both.vigor": [4, 8], "variant.doubles": [True, False]},
        },
    ),
)

__all__ = ["PLUGIN"]
