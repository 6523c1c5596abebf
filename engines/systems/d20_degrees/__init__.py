"""The ``d20_degrees`` system: single checks (``checks``), combat (``combat``) and campaign
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
    CIRCUMSTANCE,
    D20,
    EXTRA_EFFORT,
    MODES,
    SYSTEM,
    chance_matrix,
    check_grid,
    check_p,
    curve_reading,
    difficulty_axes,
    ladder_score,
    mode_codes,
    opposed_tie,
    p_degree,
    value_of_codes,
)

PLUGIN = System(
    id=SYSTEM,
    name="d20 + modifier vs DC, degrees of success",
    checks=Checks(
        module=checks.__name__,
        axes={"modifier": range(-5, 31), "dc": range(41), "degree": range(1, 5)},
        neutral={"degree": 1, "roll": "roll"},
        grid=check_grid,
        hidden_axes={"roll": tuple(MODES)},
        kernel=lambda settings, variants: (D20, mode_codes(settings), variants.rule()),
        # E5: d20 + modifier, higher wins; natural 1/20 (E3) do not enter the comparison
        opposed=OpposedRule(
            axes={"modifier_a": range(21), "modifier_b": range(21)},
            setting_axis=None,
            setting="roll",
            rank_axis="modifier",
            tie=opposed_tie,
            values=lambda cell, side, variants, n_codes: (
                value_of_codes() + int(cell[f"modifier_{side}"])
            ),
        ),
        modifiers=(
            Modifier(N_("hero point"), "E9", sets={"roll": "hero_point"}),
            Modifier(N_("extra effort +2"), "E8", shifts={"modifier": EXTRA_EFFORT}),
            Modifier(N_("minor circumstance +2"), "E6", shifts={"modifier": CIRCUMSTANCE["minor"]}),
            Modifier(N_("major circumstance +5"), "E6", shifts={"modifier": CIRCUMSTANCE["major"]}),
            Modifier(
                N_("minor circumstance -2"), "E6", shifts={"modifier": -CIRCUMSTANCE["minor"]}
            ),
            Modifier(
                N_("major circumstance -5"), "E6", shifts={"modifier": -CIRCUMSTANCE["major"]}
            ),
            # E4: only a routine check (no stress, DC 10 or below) may take 10, and a
            # player takes it only where it is not worse than rolling
            Modifier(
                N_("take 10"),
                "E4",
                sets={"roll": "take_10"},
                at_most={"dc": 10},
                when=N_("a routine check, with no stress and a DC of 10 or below"),
                chosen=True,
            ),
        ),
        # the modifier table: at least one degree (E1-E3); take 10 judged where E4 allows it
        modifier_axes={"modifier": range(21), "dc": (5, 10, 15, 20, 25, 30)},
        modifier_base={"degree": 1, "roll": "roll"},
        p=check_p,
    ),
    ladder=Ladder(
        competence_axis="modifier",
        difficulty_axis="dc",
        # the fallback competence ladder (analysis/data/ladders.toml overrides it)
        rungs={"untrained": 0, "novice": 4, "competent": 8, "expert": 12, "master": 16},
        difficulty_axes=difficulty_axes,
        chance_matrix=chance_matrix,
        competence_search=("modifier", range(-10, 51)),
        rules=LadderRules(
            competence_range=(-20, 50),
            difficulty_range=(0, 60),
            labels=lambda c, d: (f"{c:+d}", f"DC {d}"),
            p=lambda c, d, variants: p_degree(c, d, 1, "roll", variants),
            score=ladder_score,
        ),
    ),
    combat=Combat(module=f"{__name__}.combat", archetypes=f"{__name__}.archetypes:HOOK"),
    campaign=Campaign(
        module=f"{__name__}.campaign", example=("hero-points", {"points": 1, "fights": 3}, 20, 0)
    ),
    report=Report(
        cover_rules="ET3, ET-g1",
        range_rules="ET-g2",
        move_rules="ET1",
        summary=N_(
            "d20 + modifier vs DC, each full 5 a degree; natural 20 one degree better, "
            "natural 1 fails (E1–E3)"
        ),
        color="#D55E00",
        glance=N_(
            "a d20 plus modifiers against a difficulty, each full 5 above it one "
            "more degree (E1, E2): a competent character meets an average task "
            "{competent_average} of the time, and an even duel lasts {duel_rounds} "
            "rounds. Why fights run long: damage is the attack's base plus 15 "
            "against the target's Toughness plus a d20 (E12), so one hit drops an "
            "equal {one_hit_drops} of the time, and three novices beat an expert "
            "{three_novices} of the time."
        ),
        label="d20 + mod vs DC",
        ties=N_("the higher total wins; a tie goes to the higher bonus, then a d20 roll-off (E5)"),
        dying=N_(
            "a fighter at 0 hit points is incapacitated (out): only a further "
            "hit makes it dying, and a dying character rolls Fortitude DC 15 "
            "each round: two degrees stabilise it, three failures kill it (E13, "
            "E14)"
        ),
        curve_panels=(
            CurvePanel(
                x="modifier",
                lines="dc",
                values=(10, 15, 20, 25, 30),
                fixed={"degree": 1},
                labels=(N_("DC {dc}"),),
                title=N_("at least one degree of success"),
                xlabel=N_("modifier (added to d20)"),
                legend=N_("DC (E1)"),
                legend_loc="upper left",
                markevery=5,
            ),
            CurvePanel(
                x="modifier",
                lines="degree",
                values=(1, 2, 3, 4),
                fixed={"dc": 15},
                labels=("≥ {v}",),
                title=N_("degrees of success vs DC 15"),
                xlabel=N_("modifier (added to d20)"),
                legend=N_("degrees (E2)"),
                legend_loc="upper left",
                markevery=5,
            ),
        ),
        curve_caption=N_(
            "Exact P(success) against the modifier: by DC (left) and by degrees "
            "of success against DC 15 (right)."
        ),
        curve_alt=N_("Line charts of d20_degrees success probability against modifier"),
        curve_tables=(
            CurveTable(
                key="",
                title=N_("P(success) by DC and modifier"),
                caption=N_(
                    "Exact probability of at least one degree of success: d20 + "
                    "modifier (columns) vs DC (rows)."
                ),
                rows="dc",
                columns="modifier",
                fixed={"degree": 1},
                row_values=tuple(range(0, 41, 5)),
                column_values=tuple(range(-5, 31, 5)),
                column_label=N_("modifier"),
                full=True,
            ),
            CurveTable(
                key="degrees",
                title=N_("P(at least n degrees) at DC 15"),
                caption=N_(
                    "Exact probability of at least n degrees of success (columns) "
                    "against DC 15 (hard) by modifier (rows)."
                ),
                rows="modifier",
                columns="degree",
                fixed={"dc": 15},
                row_values=tuple(range(-5, 31, 5)),
                column_names=("≥ {v}",),
                column_label=N_("degrees of success"),
            ),
        ),
        curve_reading=curve_reading,
        outcome_labels=(N_("roll"), N_("d20 result (1–20)")),
        spread=("modifier", {"dc": 15, "degree": 1}, N_("DC 15, hard (E1)")),
    ),
    audit=Audit(
        terms={
            "hit_points": (N_("hit points"), "E-g2"),
            "strength": (N_("Strength"), "E12"),
            "stamina": (N_("Stamina"), "E12"),
            "fighting": (N_("Fighting"), "E11"),
            "parry": (N_("Parry"), "E11"),
            "dodge": (N_("Dodge"), "E11"),
            "fortitude": (N_("Fortitude"), "E14"),
            "hero_points": (N_("starting hero points"), "E9"),
            "weapon": (N_("weapon in hand"), "E12"),
            "armour": (N_("body armour"), "E12"),
            "maneuver": (N_("maneuver"), "E16"),
            "tactic": (N_("maneuver"), "E16"),
            "modifier": (N_("the modifier"), "E1"),
            "dc": (N_("the DC"), "E1"),
            "degree": (N_("the degrees of success needed"), "E2"),
            "roll": (N_("the roll"), "E9"),
            "weapon=unarmed": (N_("unarmed"), ""),
            "weapon=light_melee": (N_("light melee"), ""),
            "weapon=heavy_melee": (N_("heavy melee"), ""),
            "weapon=pistol": (N_("pistol"), ""),
            "armour=none": (N_("none"), ""),
            "weapon=heavy_pistol": (N_("heavy pistol"), ""),
            "weapon=rifle": (N_("rifle"), ""),
            "armour=light": (N_("light"), ""),
            "armour=medium": (N_("medium"), ""),
            "armour=heavy": (N_("heavy"), ""),
        },
        health_trait="hit_points",
        interaction_sweep={
            "metric": "p_rounds_between:2:6",
            "knobs": {"both.hit_points": [10, 20], "variant.degree_damage": [True, False]},
        },
        duel_search="mc",
    ),
)

__all__ = ["PLUGIN"]
