"""The constants the whole suite shares, in one place that imports nothing (no numpy), so
the command line's ``--help``, the argument parsers and the workbench read them cheaply.

- :data:`ROUND_CAP` — the default round cap: a fight still going after this many rounds
  counts as "neither" (every combat engine, matchup and scenario files, the CLI, the
  report, the workbench, the solvers);
- :data:`PLANS` — a fighter's plan in a fight that starts apart, in code order (RULES.md
  "Distance, movement and cover"; :mod:`engines.distance` holds the rest);
- :data:`AFTERMATHS` — the aftermath policies, the same names in every system (RULES.md
  "Lethality outcomes"; :func:`engines.fight.check_aftermath`);
- the default seeds, each named by what it seeds (their values are part of every default
  output: changing one changes the numbers of that output): :data:`REPORT_SEED`,
  :data:`STUDY_SEED`, :data:`WORKBENCH_SEED`, :data:`WARM_UP_SEED`;
- :data:`RULE_DATA` — the metadata key of an engine combatant's field that holds a rule
  constant of the system's data file (its value: the ``KIND.ENTRY.FIELD`` it comes
  from); such fields are rules, not traits, so the archetype listing leaves them out.
"""

from __future__ import annotations

__all__ = [
    "AFTERMATHS",
    "PLANS",
    "REPORT_SEED",
    "ROUND_CAP",
    "RULE_DATA",
    "STUDY_SEED",
    "WARM_UP_SEED",
    "WORKBENCH_SEED",
]

#: Metadata key of a combatant field holding a rule constant of the data file
#: (``dataclasses.field(default=6, metadata={RULE_DATA: "health.vitality.base"})``).
RULE_DATA = "rule_data"

#: Default round cap: a fight still going after this many rounds is reported as "neither".
ROUND_CAP = 50

#: A fighter's plan, in code order: ``charge`` (close, then fight), ``hold`` (attack what
#: is in reach or range, else close), ``kite`` (a shooter keeps out of a melee foe's
#: reach), ``cover`` (take cover first, then shoot).
PLANS = ("charge", "hold", "kite", "cover")

#: Aftermath policies (RULES.md "Lethality outcomes"): ``leave`` — no one helps, dying
#: fighters follow their system's dying rules; ``first_aid`` — each system's stabilising
#: rule is tried on every fallen combatant; ``finish`` — the winners strike fallen foes
#: until they are dead.
AFTERMATHS = ("leave", "first_aid", "finish")

#: The report's fixed default seed (``rpg-balance report``, the report's notebook
#: helpers), so the default report is reproducible bit for bit.
REPORT_SEED = 20261129
#: The seed of a study that gives none: a scenario or guardrail file without ``seed``,
#: a ``[tune]`` table's search, the solvers' and sweeps' Monte Carlo, ``solve lethality``
#: without ``--seed``.
STUDY_SEED = 0
#: The live workbench's default Monte Carlo seed (``rpg-balance serve``).
WORKBENCH_SEED = 1
#: The seed of the warm-up's tiny Monte Carlo runs (they only compile the kernels; any
#: seed would do).
WARM_UP_SEED = 1
