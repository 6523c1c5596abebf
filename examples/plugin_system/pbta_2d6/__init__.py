"""``pbta_2d6``: a sixth resolution system for rpg-balance, shipped as an outside package.

Roll 2d6 + a stat; 6 or less misses, 7–9 is a weak hit, 10+ a strong hit. The package
holds one module per part, the way every system of the suite is laid out:

- :mod:`pbta_2d6.checks` — the single check (rules P1–P3): ``Variants``, ``exact``,
  ``monte_carlo``, ``check_grid``;
- :mod:`pbta_2d6.combat` — the harm clock (rules PC1–PC9): ``duel_exact``, ``duel_mc``,
  ``fight_mc``, ``attack_damage``, ``one_hit`` returning :class:`engines.fight.FightStats`
  (the numba kernel there; the fighters and the exact chain in :mod:`pbta_2d6.fighters`,
  re-exported);
- :mod:`pbta_2d6.archetypes` with ``archetypes.toml`` — the archetype library (the
  ladder rungs untrained … master, styles, weapons, armour);
- :mod:`pbta_2d6.campaign` — the ``experience`` mechanic (rules PX1–PX3) and
  ``attrition`` (PX4, from the suite's public factory).

:data:`PLUGIN` (an :class:`engines.system.System`) names them all; the entry point
``pbta_2d6 = "pbta_2d6:PLUGIN"`` of the group ``rpg_balance.systems`` (``pyproject.toml``)
registers it. Only this module and :mod:`pbta_2d6.checks` load when the suite lists its
systems: the combat, campaign and archetype modules (numba kernels, pydantic models)
load when a command first needs them.
"""

from __future__ import annotations

from engines.system import Campaign, Checks, Combat, Ladder, Modifier, System

from .checks import LEVELS, MODES, SYSTEM, check_grid

PLUGIN = System(
    id=SYSTEM,
    name="2d6 + modifier: miss, weak hit, strong hit",
    checks=Checks(
        module="pbta_2d6.checks",
        axes={"modifier": range(-3, 5), "roll": MODES, "level": LEVELS},
        # the value other commands hold an axis at: a normal roll (P3)
        neutral={"roll": "normal"},
        grid=check_grid,
        # the modifiers catalogue: what each modifier does to which axis
        modifiers=(
            Modifier("advantage", "P3", sets={"roll": "advantage"}),
            Modifier("disadvantage", "P3", sets={"roll": "disadvantage"}),
            Modifier("+1 forward", "P1", shifts={"modifier": 1}),
        ),
    ),
    # the ladder mapping: a stat of -1 .. +3 is the usual range of a character sheet
    ladder=Ladder(
        competence_axis="modifier",
        difficulty_axis="level",
        rungs={"untrained": -1, "novice": 0, "competent": 1, "expert": 2, "master": 3},
    ),
    # combat: the engine module (PC1-PC9) and the archetype library ("module:ATTRIBUTE")
    combat=Combat(module="pbta_2d6.combat", archetypes="pbta_2d6.archetypes:HOOK"),
    # campaign: the module holding MECHANICS, and the report's example (mechanic, its
    # parameters, sessions, threshold): a +0 character rolling its move 3 times a session,
    # how soon it reaches +2
    campaign=Campaign(
        module="pbta_2d6.campaign", example=("experience", {"stat": 0, "rolls": 3}, 20, 2)
    ),
)
