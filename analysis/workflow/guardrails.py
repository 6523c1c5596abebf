"""Validation of ``[[guardrails]]`` entries of a scenario file (called from
:mod:`analysis.workflow.scenario`; evaluated by :mod:`analysis.workflow.audit`).

A guardrail names the ``fight``, ``check`` or ``campaign`` entry it measures (by name or
position), a ``metric`` (a fight metric of :data:`analysis.combat.fights.METRIC_NAMES`,
``p_success`` for a one-cell check, or a campaign metric of
:data:`analysis.campaign.CAMPAIGN_METRICS`) and ``min`` and/or ``max``. A guardrail that
compares (:func:`comparing`) bounds the difference or ratio of its metric between
``fight`` and a ``versus`` fight of the same system, or between the two starting
distances of ``distances = [FIRST, SECOND]``.

The ``[tune]`` table of the same file (:class:`Tune`, its structure; the knobs' meaning is
checked by :func:`analysis.workflow.tune.tune_problems`) names the knobs ``rpg-balance
tune`` may turn to make every guardrail pass at once.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from engines.constants import STUDY_SEED
from engines.errors import InputError

__all__ = [
    "Tune",
    "TuneKnob",
    "TuneScalar",
    "comparing",
    "entry_index",
    "entry_names",
    "guardrail_problems",
    "measured_metric",
]


def comparing(g) -> str | None:
    """``"difference"`` or ``"ratio"`` for a guardrail that compares (a ``versus`` fight
    or ``compare`` given; ``difference`` by default), None for one that does not."""
    if getattr(g, "versus", None) is None and getattr(g, "compare", None) is None:
        return None
    return g.compare or "difference"


def measured_metric(g) -> str:
    """What a guardrail's value is: its ``metric``, or ``difference:METRIC`` /
    ``ratio:METRIC`` for one that compares (the words of :func:`analysis.glossary.
    metric_phrase`; a difference of probabilities is a plain number, not a chance)."""
    how = comparing(g)
    return f"{how}:{g.metric}" if how else g.metric


def entry_names(entries, prefix):
    """The names of a scenario's entries (``fights``, ``checks``, ``campaign``): its own
    name, or ``prefix`` and its position."""
    return [e.name or f"{prefix}{i}" for i, e in enumerate(entries)]


def entry_index(entries, prefix, ref) -> int | None:
    """The position of the entry a guardrail names (``ref``: a position or a name, see
    :func:`entry_names`), or None when there is none."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref if 0 <= ref < len(entries) else None
    names = entry_names(entries, prefix)
    return names.index(ref) if ref in names else None


def guardrail_problems(sc, _hint, _known) -> list[tuple[str, str]]:
    """Every problem of the scenario's ``[[guardrails]]`` as ``(key path, why)``
    (``_hint`` / ``_known``: the scenario module's ``did_you_mean`` and ``known_list``)."""
    from analysis.combat.fights import check_metric

    problems: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for i, g in enumerate(sc.guardrails):
        path = f"guardrails[{i}]"
        if g.name in seen:
            problems.append(
                (f"{path}.name", f"{g.name!r} is already the name of guardrails[{seen[g.name]}]")
            )
        seen.setdefault(g.name, i)
        problems += _knob_list_problems(sc, g, path)
        if sum(x is not None for x in (g.fight, g.check, g.campaign)) != 1:
            problems.append(
                (path, "give exactly one of fight = NAME, check = NAME or campaign = NAME")
            )
        elif g.campaign is not None:
            problems += _campaign_problems(sc, g, path, _hint, _known)
        elif g.fight is not None:
            if entry_index(sc.fights, "fight", g.fight) is None:
                names = entry_names(sc.fights, "fight")
                problems.append(
                    (
                        f"{path}.fight",
                        f"no [[fights]] entry {g.fight!r}"
                        f"{_hint(str(g.fight), names)}; known: "
                        f"{_known(names) or 'none'}",
                    )
                )
            if g.metric.strip() == "p_success":
                problems.append(
                    (
                        f"{path}.metric",
                        "p_success is a check metric; a fight "
                        "takes p_side0, rounds_mean, p_loser_dead, ...",
                    )
                )
            else:
                try:
                    check_metric(g.metric)
                except InputError as exc:
                    msg = str(exc).removeprefix("metric: ")
                    from analysis.combat.fights import METRIC_NAMES

                    if "unknown" in msg:
                        msg = (
                            f"unknown {g.metric!r}{_hint(g.metric, list(METRIC_NAMES))}; "
                            f"known: {', '.join(METRIC_NAMES)}"
                        )
                    problems.append((f"{path}.metric", msg))
        else:
            index = entry_index(sc.checks, "check", g.check)
            if index is None:
                names = entry_names(sc.checks, "check")
                problems.append(
                    (
                        f"{path}.check",
                        f"no [[checks]] entry {g.check!r}"
                        f"{_hint(str(g.check), names)}; known: "
                        f"{_known(names) or 'none'}",
                    )
                )
            else:
                c = sc.checks[index]
                many = [k for k, v in c.axes.items() if len(v) != 1]
                if c.competence is not None and len(c.competence) != 1:
                    many.append("competence")
                if many:
                    problems.append(
                        (
                            f"{path}.check",
                            f"checks[{index}] must be one cell "
                            f"for a guardrail (one value of {', '.join(many)})",
                        )
                    )
            if g.metric.strip() != "p_success":
                problems.append(
                    (
                        f"{path}.metric",
                        f"a check guardrail measures p_success, "
                        f"not {g.metric!r}{_hint(g.metric, ['p_success'])}",
                    )
                )
        if g.distances:
            problems += _distance_problems(sc, g, path)
        if comparing(g):
            problems += _compare_problems(sc, g, path, _hint, _known)
        if g.min is None and g.max is None:
            problems.append((path, "give min, max or both"))
        for key in ("min", "max"):
            v = getattr(g, key)
            if v is not None and not math.isfinite(v):
                problems.append((f"{path}.{key}", f"expected a finite number, got {v!r}"))
        if g.min is not None and g.max is not None and g.min > g.max:
            problems.append((f"{path}.max", f"{g.max} is below min = {g.min}"))
    return problems


def _compare_problems(sc, g, path: str, _hint, _known) -> list[tuple[str, str]]:
    """A guardrail that compares: a fight guardrail; ``versus`` a [[fights]] entry of the
    same system (not the fight itself), or, without ``versus``, exactly two
    ``distances``; a ratio's limits are not negative (a metric is never below 0)."""
    if g.fight is None:
        key = "check" if g.check is not None else "campaign" if g.campaign is not None else "versus"
        return [
            (
                f"{path}.{key}",
                "only a fight guardrail compares (fight = NAME with "
                "versus = NAME, or two distances)",
            )
        ]
    out: list[tuple[str, str]] = []
    if g.versus is None:
        if len(g.distances) != 2:
            out.append(
                (
                    f"{path}.distances",
                    "a comparison without versus = FIGHT needs "
                    f"two distances [FIRST, SECOND], got {list(g.distances)}",
                )
            )
    else:
        index = entry_index(sc.fights, "fight", g.versus)
        mine = entry_index(sc.fights, "fight", g.fight)
        if index is None:
            names = entry_names(sc.fights, "fight")
            out.append(
                (
                    f"{path}.versus",
                    f"no [[fights]] entry {g.versus!r}"
                    f"{_hint(str(g.versus), names)}; known: {_known(names) or 'none'}",
                )
            )
        elif index == mine:
            out.append(
                (
                    f"{path}.versus",
                    "a fight compared with itself: name another "
                    "[[fights]] entry, or give two distances",
                )
            )
        elif mine is not None:
            try:
                one = sc.check_system(sc.fights[mine])
                other = sc.check_system(sc.fights[index])
            except InputError:
                return out
            if one != other:
                out.append(
                    (
                        f"{path}.versus",
                        f"{g.metric} of a {one} fight and a {other} "
                        "fight do not compare: name a fight of the same system",
                    )
                )
    if comparing(g) == "ratio":
        for key in ("min", "max"):
            v = getattr(g, key)
            if v is not None and v < 0:
                out.append((f"{path}.{key}", f"{v}: a ratio of metrics is never negative"))
    return out


def _distance_problems(sc, g, path: str) -> list[tuple[str, str]]:
    """``distances`` of a guardrail: a fight guardrail of a system with distance rules,
    whole metres in 0..MAX_DISTANCE, each once, a metric a starting distance can move."""
    from engines.distance import MAX_DISTANCE

    where = f"{path}.distances"
    if g.fight is None:
        return [(where, "only a fight guardrail is measured at starting distances")]
    out = []
    bad = [d for d in g.distances if not 0 <= d <= MAX_DISTANCE]
    if bad:
        out.append((where, f"{bad[0]}: expected whole metres 0..{MAX_DISTANCE}"))
    if len(set(g.distances)) != len(g.distances):
        out.append((where, "a distance is listed twice"))
    if g.metric.startswith("p_one_hit_"):
        out.append(
            (where, f"{g.metric} is the odds of one attack, which no starting distance moves")
        )
    index = entry_index(sc.fights, "fight", g.fight)
    if index is not None:
        from analysis.combat.lethality import has_distance

        try:
            system = sc.check_system(sc.fights[index])
        except InputError:
            return out
        if not has_distance(system):
            out.append(
                (where, f"{system}'s fights start engaged (its combat has no distance rules)")
            )
    return out


def _campaign_problems(sc, g, path: str, _hint, _known) -> list[tuple[str, str]]:
    """A campaign guardrail: a [[campaign]] entry and a campaign metric whose session is
    within 0..1000."""
    from analysis.campaign import campaign_metric

    problems: list[tuple[str, str]] = []
    if entry_index(sc.campaign, "campaign", g.campaign) is None:
        names = entry_names(sc.campaign, "campaign")
        problems.append(
            (
                f"{path}.campaign",
                f"no [[campaign]] entry {g.campaign!r}"
                f"{_hint(str(g.campaign), names)}; known: "
                f"{_known(names) or 'none'}",
            )
        )
    try:
        n, _, _ = campaign_metric(g.metric)
        if not 0 <= n <= 1000:
            problems.append((f"{path}.metric", f"session {n} outside 0..1000"))
    except InputError as exc:
        problems.append((f"{path}.metric", str(exc).removeprefix("metric: ")))
    return problems


def _knob_list_problems(sc, g, path: str) -> list[tuple[str, str]]:
    """``fixed`` / ``free`` lists: knob names (``a.KEY``, ``b.KEY``, ``both.KEY``,
    ``variant.NAME``, ``rules.TABLE.ENTRY.FIELD``, ``everyone.TRAIT``, ``*`` patterns
    allowed; a check axis name for a check guardrail)."""
    import re

    problems = []
    for key in ("fixed", "free"):
        for j, name in enumerate(getattr(g, key)):
            ok = bool(
                re.fullmatch(r"(a|b|both|variant|everyone)\.[\w*?\[\]-]+", name)
                or re.fullmatch(r"rules(\.[\w*?\[\]-]+){1,3}", name)
            )
            if not ok and g.check is not None:
                ok = bool(re.fullmatch(r"[\w*?]+", name))
            if not ok:
                problems.append(
                    (
                        f"{path}.{key}[{j}]",
                        f"{name!r} is not a knob: give a.KEY, "
                        "b.KEY, both.KEY, variant.NAME, rules.TABLE.ENTRY.FIELD, "
                        "everyone.TRAIT (or a check axis for a check guardrail)",
                    )
                )
    return problems


# --------------------------------------------------------------------------------------
# [tune]: the knobs ``rpg-balance tune`` may turn (the search: analysis.workflow.tune)

TuneScalar = int | float | str | bool


class TuneKnob(BaseModel):
    """One knob of ``[[tune.knobs]]``: ``knob = "TARGET:KNOB"`` in the ``audit --set``
    vocabulary, with ``values = [...]`` (its levels, in order) or ``min``/``max``/``step``
    (an ordered whole-number knob), and ``weight``, the cost of moving it over its whole
    range (default 1)."""

    model_config = ConfigDict(extra="forbid", strict=False)

    knob: str = Field(min_length=1)
    values: list[TuneScalar] | None = None
    min: int | None = None
    max: int | None = None
    step: int = Field(1, ge=1)
    weight: float = Field(1.0, gt=0, le=1e6)


class Tune(BaseModel):
    """``[tune]``: the knobs a designer allows, the search's ``seed`` and ``budget``
    (trials of the NSGA-II search when the space is too large to enumerate)."""

    model_config = ConfigDict(extra="forbid", strict=False)

    seed: int = Field(STUDY_SEED, ge=0, le=2**63 - 1)
    budget: int = Field(200, ge=1, le=100_000)
    knobs: list[TuneKnob] = Field(min_length=1)
