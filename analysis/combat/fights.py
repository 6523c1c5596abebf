"""Registry of combat engines, so fights plug into scenarios, sweeps and solvers.

Each system's combat engine is the module its ``System.combat`` names, exposing
``duel_mc(a, b, trials, seed, variants, round_cap)`` and (where cheap enough)
``duel_exact(a, b, variants, round_cap)``, both returning
:class:`engines.fight.FightStats`. This module finds them lazily, so the check workflow
runs whether or not they are installed, and reads the metrics designers solve for.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
from collections.abc import Callable

import numpy as np

from engines.errors import InputError
from engines.system import get, registry

__all__ = [
    "METRICS",
    "METRIC_NAMES",
    "ONE_HIT_METRICS",
    "available",
    "check_metric",
    "combat_variants",
    "engine",
    "fighter",
    "is_one_hit",
    "metric",
    "one_hit_value",
    "with_knob",
]


def _metric_win(side: int):
    def read(stats) -> tuple[float, float]:
        return float(stats.p_outcome()[side]), float(stats.se_outcome()[side])

    return read


def _metric_rounds(stats) -> tuple[float, float]:
    pmf = stats.rounds_pmf()
    k = np.arange(pmf.size)
    mean = float(pmf @ k)
    if stats.exact:
        return mean, 0.0
    var = float(pmf @ k**2 - mean**2)
    return mean, math.sqrt(max(var, 0.0) / stats.n)


def _metric_loser_fate(index: int):
    """P(the loser ends dead / dying / out) among decided fights, after the aftermath
    policy of the fight's variants (RULES.md "Lethality outcomes";
    ``FightStats.p_loser_fates``). NaN when no fight was decided."""

    def read(stats) -> tuple[float, float]:
        p, se = stats.p_loser_fates()
        return float(p[index]), float(se[index])

    return read


def _metric_rounds_between(lo: int, hi: int):
    """P(the fight ends in a round lo..hi, both included), whatever its outcome."""

    def read(stats) -> tuple[float, float]:
        pmf = stats.rounds_pmf()
        p = float(pmf[max(lo, 0) : min(hi, pmf.size - 1) + 1].sum())
        return p, 0.0 if stats.exact else math.sqrt(max(p * (1 - p), 0.0) / stats.n)

    return read


#: FightStats metrics a lethality solver can target: name -> stats -> (estimate, se).
#: ``p_rounds_between:LO:HI`` (see :func:`metric`) is the parametrised one.
METRICS: dict[str, Callable] = {
    "p_side0": _metric_win(0),
    "p_side1": _metric_win(1),
    "p_neither": _metric_win(2),
    "rounds_mean": _metric_rounds,
    "p_loser_dead": _metric_loser_fate(0),
    "p_loser_dying": _metric_loser_fate(1),
    "p_loser_out": _metric_loser_fate(2),
    # RULES.md "Lethality outcomes" LO-r3: someone of either side dead, every fight
    "p_someone_dead": lambda stats: stats.p_someone_dead(),
    "deaths_mean": lambda stats: stats.deaths_mean(),
}

#: One-attack metrics: fighter ``a`` attacks an unhurt ``b`` once, read from the engine's
#: exact ``one_hit`` (A14/A15, B9/B10, C6, DX7–DX9, E13): name -> key of its result.
#: ``p_one_hit_kill`` is the hit itself killing; ``p_one_hit_dead`` / ``_dying`` / ``_out``
#: are the hit dropping the target and the target then ending dead / dying / out under the
#: aftermath policy of the variants (they sum to ``p_one_hit_incapacitate``).
ONE_HIT_METRICS = {
    "p_one_hit_hit": "p_hit",
    "p_one_hit_incapacitate": "p_incapacitate",
    "p_one_hit_kill": "p_kill",
    "p_one_hit_dead": "p_dead",
    "p_one_hit_dying": "p_dying",
    "p_one_hit_out": "p_out",
}

#: Every metric name a solver or sweep accepts (``p_rounds_between:LO:HI`` besides).
METRIC_NAMES = (*METRICS, "p_rounds_between:LO:HI", *ONE_HIT_METRICS)


def available() -> dict[str, bool]:
    """Which installed systems declare combat rules (a ``Combat`` group)."""
    return {sid: s.combat is not None for sid, s in registry().items()}


def engine(system: str):
    """The combat engine module of ``system`` (its ``Combat`` group's), or an
    InputError: an unknown system names the known ones, a system without combat rules
    says so in the one standard line."""
    return get(system).require("combat").engine()


def metric(name: str) -> Callable:
    """``stats -> (estimate, se)`` for a FightStats metric name.

    ``p_rounds_between:LO:HI`` is P(the fight ends in round LO..HI, both included), e.g.
    ``p_rounds_between:3:5`` for "an even duel lasts 3 to 5 rounds".
    """
    name = str(name).strip()
    if name.startswith("p_rounds_between"):
        parts = name.split(":")
        try:
            lo, hi = int(parts[1]), int(parts[2])
            if len(parts) != 3 or lo < 0 or hi < lo:
                raise ValueError
        except (ValueError, IndexError):
            raise InputError(
                f"metric: expected p_rounds_between:LO:HI with 0 <= LO <= HI "
                f"whole rounds, got {name!r}"
            ) from None
        return _metric_rounds_between(lo, hi)
    if name not in METRICS:
        raise InputError(f"metric: unknown {name!r}; known: {', '.join(METRIC_NAMES)}")
    return METRICS[name]


def is_one_hit(name: str) -> bool:
    return str(name).strip() in ONE_HIT_METRICS


def one_hit_value(system: str, odds: dict, name: str) -> float:
    """The one-hit metric ``name`` from an engine's ``one_hit`` result (InputError when
    the engine does not give it)."""
    key = ONE_HIT_METRICS[str(name).strip()]
    if key not in odds:
        raise InputError(
            f"metric {name}: the {system} combat engine's one_hit gives no "
            f"{key!r} (it gives {', '.join(sorted(odds))})"
        )
    return float(odds[key])


def check_metric(name: str) -> str:
    """The metric name, validated (an InputError naming the known ones otherwise)."""
    name = str(name).strip()
    if not is_one_hit(name):
        metric(name)
    return name


def fighter(system: str, spec):
    """The engine's combatant for a scenario's fighter spec.

    A spec is an archetype name or a table of traits (``{"archetype": NAME, **changes}``
    or every trait). When the project's combatant loader (``analysis.combat.archetypes``) is
    installed it builds and validates the combatant; otherwise the spec goes to the
    engine as given (engines that take plain mappings).
    """
    try:
        found = importlib.util.find_spec("analysis.combat.archetypes") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        return spec
    archetypes = importlib.import_module("analysis.combat.archetypes")
    return archetypes.combatant(system, spec)


def combat_variants(system: str, given):
    """The combat engine's variant object from a mapping (or the mapping itself when the
    engine declares no ``Variants`` class)."""
    mod = engine(system)
    cls = getattr(mod, "Variants", None)
    if cls is None:
        return dict(given or {})
    from engines.variants import parse_variants

    return parse_variants(cls, dict(given or {}))


def with_knob(spec, key: str, value):
    """A copy of a fighter spec with one trait set (an archetype name becomes a table)."""
    import copy

    out = {"archetype": spec} if isinstance(spec, str) else copy.deepcopy(dict(spec))
    out[key] = value
    return out
