"""Balance audit: guardrails a designer writes, findings the suite detects by itself,
and the one-knob change that would cure each failure.

Three pieces:

- **Guardrails** — ``[[guardrails]]`` entries of a scenario file (beside ``[[checks]]``,
  ``[[fights]]``, ``[[solve]]``): a ``name``, the ``fight`` or ``check`` entry measured
  (by name or position), a ``metric`` (every fight metric of
  :data:`analysis.combat.fights.METRIC_NAMES`, or ``p_success`` for a one-cell check)
  and ``min`` and/or ``max``. :func:`evaluate` measures each one exactly where the engines
  solve it (duels by their absorbing chains, one-attack odds, checks) and otherwise by
  Monte Carlo with the sample doubled batch by batch — batch ``k`` of guardrail ``g``
  draws from ``SeedSequence(seed, spawn_key=(AUDIT_STREAM, g, k))`` — until the verdict is
  decided at :data:`Z_DECIDE` standard errors or the cap is hit: then the status is
  ``undecided``, never a coin flip.
- **The cures** (:func:`.cures.find_cures`) — for a failed guardrail, up to three
  one-knob edits that make it pass without changing the question (a check's task and a
  fight's fighters and gear are held; a guardrail's ``fixed``/``free`` lists adjust that),
  searched with :func:`analysis.workflow.solvers.solve_threshold` where a knob is
  ordered, each re-measured, ranked by the size of the edit, with its side effects on
  the other guardrails; each is an :class:`.edits.Edit` that ``rpg-balance audit --set``
  applies (the row's ``cure`` command).
- **Discovery** (:func:`discover`) — findings without a guardrail: dominated weapons,
  armour and tactics over the whole ladder (:func:`dominated_options`), fights decided
  in one hit, the gap variants ranked by how far they move the even competent duel, and
  knobs whose effect depends on another (:func:`knob_interactions`, a small exact sweep
  per system, ``interaction_sweeps``). Thresholds live in the ``[discover]`` table of
  ``analysis/data/guardrails.toml``.

Layout: :mod:`.measuring` (a guardrail's target, value and status; a guardrail that
compares two fights or two distances: :func:`.measuring.measure_compare`), :mod:`.comparing`
(its words), :mod:`.cures` (the cures), :mod:`.knobs` (the knobs a cure turns and holds),
:mod:`.edits` (``TARGET:KNOB=VALUE``), :mod:`.search_words` (a cure search in
words: the ranges searched, why none cures), :mod:`.running` (the guardrail files,
:func:`evaluate`, the what-if reruns, JUnit XML), :mod:`.discovery` (findings without a
guardrail; the gap variants and knob interactions: :mod:`.variant_findings`; the ladder
fighters and their duels: :mod:`.ladder_duels`), :mod:`.reproduce` (the command
printing each row's number: the ``reproduce`` column); this package
re-exports their public names, and the private ones (``from .m import _x as _x``) that the
report's key findings and the tests reach.
"""

from .cures import MAX_CURES, Cure, CureSearch, find_cures, suggest
from .discovery import (
    DEFAULT_DISCOVER,
    DOMINANCE_STREAM,
    OPTION_KINDS,
    baseline,
    discover,
    dominated_gear,
    dominated_options,
    dominated_weapons,
    one_hit_fights,
)
from .discovery import ladder_matchups as ladder_matchups
from .edits import Edit
from .knobs import SEARCH_STEPS
from .ladder_duels import CROSS
from .ladder_duels import ladder_specs as ladder_specs
from .measuring import AUDIT_STREAM, Z_DECIDE, Target, check_cell, check_value, measure, status_of
from .measuring import guardrail_target as guardrail_target
from .running import (
    COLUMNS,
    DATA,
    evaluate,
    flips,
    junit_xml,
    knob_options,
    load_guardrails,
    rerun,
    restrict,
    with_knob,
)
from .variant_findings import gap_variants, interaction_sweep, knob_interactions

__all__ = [
    "AUDIT_STREAM",
    "COLUMNS",
    "CROSS",
    "DATA",
    "DEFAULT_DISCOVER",
    "DOMINANCE_STREAM",
    "MAX_CURES",
    "OPTION_KINDS",
    "SEARCH_STEPS",
    "Z_DECIDE",
    "Cure",
    "CureSearch",
    "Edit",
    "Target",
    "baseline",
    "check_cell",
    "check_value",
    "discover",
    "dominated_gear",
    "dominated_options",
    "dominated_weapons",
    "evaluate",
    "find_cures",
    "flips",
    "gap_variants",
    "interaction_sweep",
    "junit_xml",
    "knob_interactions",
    "knob_options",
    "load_guardrails",
    "measure",
    "one_hit_fights",
    "rerun",
    "restrict",
    "status_of",
    "suggest",
    "with_knob",
]
