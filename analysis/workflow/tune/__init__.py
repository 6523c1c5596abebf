"""``rpg-balance tune``: the smallest set of rule and stat changes that makes every
guardrail of a file pass at once, and the trade-offs when none does.

The ``[tune]`` table of a guardrail file names the knobs a designer allows, each in the
``rpg-balance audit --set`` vocabulary (:mod:`analysis.workflow.audit.edits`)::

    [tune]
    seed = 1          # the NSGA-II search's seed (default 0)
    budget = 200      # its trials (default 200; the exact path ignores it)

    [[tune.knobs]]
    knob = "even_duel_middle_3d10:both.vigor"   # TARGET:KNOB
    min = 4
    max = 9           # an ordered whole-number knob: min..max by step (default 1)

    [[tune.knobs]]
    knob = "dice_pool_6:variant.threshold"
    values = [6, 5]   # or its levels, in order
    weight = 2        # the cost of moving it over its whole range (default 1)

Every knob's current value (what the file says) must be one of its levels.

**Constraints and objectives.** Every guardrail of the file is a constraint. A
candidate (one level per knob) is scored by its *edit size* — the number of knobs it
changes, then its *distance* ``sum(weight * |steps moved| / (levels - 1))`` (each knob's
share is at most its weight) — and by its *worst margin*: the smallest, over the
guardrails, of how far the value sits inside its limits, in units of the limits' width
(``(value - min) / (max - min)`` and ``(max - value) / (max - min)``; a one-sided limit
is measured in units of the limit itself, or of 1 when the limit is 0; negative:
outside). A Monte Carlo value counts at its interval's edge toward the limit,
``value ∓ Z_DECIDE·SE`` (3 SE, the audit's own rule).

**Evaluation** is the audit's: the candidate's changed knobs are applied with
:func:`analysis.workflow.audit.edits.apply` (in the order of ``[[tune.knobs]]``) and
every guardrail is measured by :func:`analysis.workflow.audit.measuring.measure` with the
file's seed, so a candidate's statuses are those ``rpg-balance audit FILE --set ...``
prints (its ``reproduce`` column); a Monte Carlo guardrail passes only when its value ±
3 SE clears the limit, and is ``undecided`` when the interval straddles it. Each
measurement is cached by (guardrail, the settings of the knobs that touch its entry):
a knob that does not change a guardrail's fight or check never causes it to be measured
again.

**Exact or search.** A space of at most :data:`EXACT_LIMIT` candidates is enumerated
whole; a larger one is searched by Optuna's NSGA-II with constraints (seeded, ``budget``
trials, generations of :data:`POPULATION` asked, evaluated as one batch and told in
order; the current setting is the first trial), so the same seed gives the same front.
Batches run through :func:`analysis.workflow.sweep.execute`, in process or on Dask
(``--workers``, ``--scheduler``); measurements do not depend on where they run, so the
front is the same on any worker count.

**The front** (:func:`pareto`): when some candidate passes every guardrail, the
feasible candidates not dominated in (edit size, worst margin) — fewest changes, then
distance, first; when none does, the same trade-off over every candidate.

The package's modules: :mod:`.problem` (the ``[tune]`` table and its knobs),
:mod:`.evaluation` (the audit's measurement of a candidate, cached), :mod:`.search`
(enumeration, NSGA-II, the front, :func:`tune`), :mod:`.reading` and :mod:`.plot`.
"""

from __future__ import annotations

from .evaluation import (
    Evaluator,
    MeasureTask,
    margin,
    run_measure_task,
)
from .plot import (
    FIGURE_WORDS,
    front_figure,
    save_front_plot,
)
from .problem import (
    Knob,
    TuneProblem,
    TuneResult,
    current_value,
    edit_size_of,
    load_tune,
    reproduce,
    tune_problems,
)
from .reading import (
    best_row,
    command,
    how_found,
    knob_system,
    reading_of,
)
from .search import (
    EXACT_LIMIT,
    POPULATION,
    enumerate_all,
    front_table,
    nsga2_search,
    pareto,
    tune,
)

__all__ = [
    "EXACT_LIMIT",
    "FIGURE_WORDS",
    "POPULATION",
    "Evaluator",
    "Knob",
    "MeasureTask",
    "TuneProblem",
    "TuneResult",
    "best_row",
    "command",
    "current_value",
    "edit_size_of",
    "enumerate_all",
    "front_figure",
    "front_table",
    "how_found",
    "knob_system",
    "load_tune",
    "margin",
    "nsga2_search",
    "pareto",
    "reading_of",
    "reproduce",
    "run_measure_task",
    "save_front_plot",
    "tune",
    "tune_problems",
]
