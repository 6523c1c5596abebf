"""Report sections: analysis frames → :mod:`reports.structure`, each with a plain reading.

One module per section (``glance`` (opens the report: the systems side by side on one
page), ``key_findings``, ``tune`` (after it, when the report's guardrail file has a
``[tune]`` table), ``sensitivity`` (what matters most), ``success_curves``,
``outcome_summary``, ``native_spread``, ``opposed``, ``modifiers``,
``claim_c7``, ``ladders``, ``combat_duels``, ``combat_groups``, ``combat_weapons``,
``combat_gear``, ``combat_upsets``, ``campaign``, then the appendix: ``mc_agreement``,
``assumptions``; ``provenance`` closes the report), with
the shared pieces in ``common`` and ``combat_common``, and the key findings' words (also
read by ``glance`` and ``sensitivity``) in ``finding_words``. Every section is a function
``section_xxx(settings) -> Section | None`` listed in :data:`SECTIONS` (``None`` leaves
the section out); any error stops the build, so a broken analysis never yields a
quietly partial report.
"""

from __future__ import annotations

from reports.sections.assumptions import assumptions_frame, section_assumptions
from reports.sections.campaign import section_campaign
from reports.sections.claim_c7 import section_c7
from reports.sections.combat_common import (
    DUEL_COLUMNS,
    EFFECT_COLUMNS,
    GROUP_COLUMNS,
    combat_frames,
)
from reports.sections.combat_duels import fate_reading, section_combat_duels
from reports.sections.combat_gear import section_combat_gear
from reports.sections.combat_groups import section_combat_groups
from reports.sections.combat_upsets import section_combat_upsets
from reports.sections.combat_weapons import section_combat_weapons
from reports.sections.common import curves, outcomes, pct, skipped, system_summary
from reports.sections.distance import section_distance
from reports.sections.glance import section_glance
from reports.sections.key_findings import section_key_findings
from reports.sections.ladders import section_ladders
from reports.sections.mc_agreement import agreement_frame, section_mc_agreement
from reports.sections.modifiers import section_modifiers
from reports.sections.native_spread import section_native_spread, spread_frame
from reports.sections.opposed import section_opposed
from reports.sections.outcome_summary import section_outcomes
from reports.sections.provenance import provenance_frame, section_provenance
from reports.sections.sensitivity import section_sensitivity
from reports.sections.success_curves import curve_figure, curve_reading, section_success_curves
from reports.sections.tune import section_tune

#: The appendix, after every content section and before Provenance.
APPENDIX = [section_mc_agreement, section_assumptions]

#: Content sections in report order (the :data:`APPENDIX` last); provenance is added
#: last by the builder (it needs the build time).
SECTIONS = [
    section_glance,
    section_key_findings,
    section_tune,
    section_sensitivity,
    section_success_curves,
    section_outcomes,
    section_native_spread,
    section_opposed,
    section_modifiers,
    section_c7,
    section_ladders,
    section_combat_duels,
    section_combat_groups,
    section_combat_weapons,
    section_combat_gear,
    section_distance,
    section_combat_upsets,
    section_campaign,
    # the appendix: how far the simulator agrees with the exact models, and the readings
    # the code makes where the rules text is silent
    *APPENDIX,
]

__all__ = [
    "APPENDIX",
    "DUEL_COLUMNS",
    "EFFECT_COLUMNS",
    "GROUP_COLUMNS",
    "SECTIONS",
    "agreement_frame",
    "assumptions_frame",
    "combat_frames",
    "curve_figure",
    "curve_reading",
    "curves",
    "fate_reading",
    "outcomes",
    "pct",
    "provenance_frame",
    "section_assumptions",
    "section_c7",
    "section_combat_duels",
    "section_combat_gear",
    "section_combat_groups",
    "section_combat_upsets",
    "section_combat_weapons",
    "section_glance",
    "section_key_findings",
    "section_ladders",
    "section_mc_agreement",
    "section_modifiers",
    "section_native_spread",
    "section_opposed",
    "section_outcomes",
    "section_provenance",
    "section_success_curves",
    "section_tune",
    "skipped",
    "spread_frame",
    "system_summary",
]
