"""The tune problem: the knobs of a ``[tune]`` table checked against the rules
(:func:`tune_problems`, :func:`load_tune`), the candidates' edits and audit command
(:func:`reproduce`), and the result type of a run (:class:`TuneResult`)."""

from __future__ import annotations

import dataclasses
import math
import shlex
from pathlib import Path
from typing import Any

from analysis.rules import is_rule_knob
from engines.constants import STUDY_SEED
from engines.errors import InputError

__all__ = [
    "Knob",
    "TuneProblem",
    "TuneResult",
    "current_value",
    "edit_size_of",
    "load_tune",
    "reproduce",
    "tune_problems",
]


@dataclasses.dataclass(frozen=True)
class Knob:
    """One knob of ``[tune]``: ``target:knob`` with its ``levels`` (in order), its
    ``current`` value in the file and its ``weight``."""

    target: str
    knob: str
    levels: tuple
    current: Any
    weight: float = 1.0

    @property
    def name(self) -> str:
        return f"{self.target}:{self.knob}"

    def steps(self, value) -> int:
        """Levels between ``value`` and the current one."""
        return abs(self.levels.index(value) - self.levels.index(self.current))

    def distance(self, value) -> float:
        """``weight * steps / (levels - 1)``: at most the weight."""
        return self.weight * self.steps(value) / max(len(self.levels) - 1, 1)


@dataclasses.dataclass
class TuneProblem:
    """A guardrail file resolved for tuning: its scenario, knobs, which knobs touch each
    guardrail (``deps[g]``: knob positions), and the path as the designer gave it."""

    scenario: Any
    knobs: list[Knob]
    deps: list[tuple[int, ...]]
    file: str
    seed: int = STUDY_SEED
    budget: int = 200

    @property
    def size(self) -> int:
        """The number of candidates (product of the knobs' levels)."""
        return math.prod(len(k.levels) for k in self.knobs)

    @property
    def current(self) -> tuple:
        return tuple(k.current for k in self.knobs)

    def edits(self, setting):
        """The :class:`~analysis.workflow.audit.edits.Edit` of each changed knob."""
        from analysis.workflow.audit.edits import Edit

        return tuple(
            Edit(k.target, k.knob, v)
            for k, v in zip(self.knobs, setting, strict=True)
            if v != k.current
        )


def _same(a, b) -> bool:
    return (type(a) is type(b) and a == b) or (
        not isinstance(a, bool)
        and not isinstance(b, bool)
        and isinstance(a, int | float)
        and isinstance(b, int | float)
        and a == b
    )


def _scalar(val):
    import numpy as np

    if isinstance(val, np.generic):
        val = val.item()
    if val is not None and not isinstance(val, int | float | str | bool):
        val = getattr(val, "name", None)
    return val


def current_value(sc, target: str, knob: str):
    """The value ``target:knob`` has in the file, read from every fight and check it
    edits; an InputError when they disagree or it cannot be read."""
    from analysis.checks.curves import variants_for
    from analysis.combat import fights as reg
    from analysis.workflow.audit.edits import target_entries
    from analysis.workflow.audit.knobs import trait_value
    from analysis.workflow.audit.measuring import check_cell
    from engines.system import registry

    if target in registry():
        chosen = [("fight", i) for i, f in enumerate(sc.fights) if sc.check_system(f) == target] + [
            ("check", i) for i, c in enumerate(sc.checks) if sc.check_system(c) == target
        ]
    else:
        chosen = target_entries(sc, target)
    side, _, name = knob.partition(".")
    if is_rule_knob(knob):
        return _rule_value(sc, target, knob)
    found = []
    for kind, i in chosen:
        if kind == "fight":
            f = sc.fights[i]
            system = sc.check_system(f)
            if side == "variant":
                v = reg.combat_variants(system, dict(f.variants))
                if hasattr(v, name):
                    found.append(_scalar(getattr(v, name)))
            elif side in ("a", "b", "both") and name:
                specs = {"a": [f.a], "b": [f.b], "both": [f.a, f.b]}[side]
                found += [_scalar(trait_value(system, s, name)) for s in specs]
        else:
            c = sc.checks[i]
            system = sc.check_system(c)
            if side == "variant":
                v = variants_for(system, sc.check_variants(c))
                if hasattr(v, name):
                    found.append(_scalar(getattr(v, name)))
            else:
                cell = check_cell(system, c)
                if knob in cell:
                    found.append(_scalar(cell[knob]))
    if not chosen:
        raise InputError(
            f"{target!r} is neither a system with a fight or check in the "
            "file nor a [[fights]] or [[checks]] entry of it"
        )
    if not found:
        raise InputError(f"no fight or check that {target!r} names has {knob!r}")
    if any(x is None for x in found):
        raise InputError("cannot read its current value from the file")
    if any(not _same(x, found[0]) for x in found):
        shown = ", ".join(dict.fromkeys(map(repr, found)))
        raise InputError(f"the entries it edits differ ({shown}): name one entry as the target")
    return found[0]


def _rule_value(sc, system: str, knob: str):
    """The value a rule knob has under the rules the scenario puts in force: a rule
    table's field (``rules.KIND.ENTRY[.FIELD]``) or an ``everyone.TRAIT`` offset (0
    when none)."""
    from analysis.combat.archetypes import systems
    from analysis.rules import RuleSet

    if system not in systems():
        raise InputError(
            f"a rule knob's target is a system with rule tables "
            f"({', '.join(systems())}), not {system!r}"
        )
    rs = sc.rule_sets().get(system) or RuleSet(system)
    head, _, rest = knob.partition(".")
    if head == "everyone":
        # the trait's name as the system spells it (an InputError for an unknown one)
        trait = RuleSet(system).with_knob(knob, 1, "").everyone[0][0]
        return dict(rs.everyone).get(trait, 0)
    parts = rest.split(".")
    entry = rs.tables().get(parts[0], {}).get(parts[1]) if len(parts) >= 2 else None
    if entry is None:
        rs.with_knob(knob, 0, "")  # raises with the table's or entry's known names
    if len(parts) == 2:
        return entry
    if not isinstance(entry, dict) or parts[2] not in entry:
        rs.with_knob(knob, 0, "")
        raise InputError(f"{parts[0]}.{parts[1]} has no {parts[2]!r} of its own")
    return entry[parts[2]]


def _why(message: str, edit: str) -> str:
    """An edit's InputError without its ``TARGET:KNOB=VALUE:`` head."""
    head, sep, rest = message.partition(": ")
    return rest if sep and head.strip().startswith(edit) else message


def _target_state(sc, g):
    """What ``g`` measures (both fights of a guardrail that compares), as a comparable
    value: a knob touches ``g`` when an edit of it changes this."""
    from analysis.workflow.audit.cures import guardrail_state
    from analysis.workflow.audit.measuring import guardrail_target

    t = guardrail_target(sc, g)
    return (
        t.system,
        *(
            (repr(e.model_dump()), repr(sorted(v.items())), built)
            for e, v, built in guardrail_state(sc, g)
        ),
    )


def tune_problems(sc) -> tuple[list[tuple[str, str]], list[Knob], list[tuple[int, ...]]]:
    """Every problem of the file's ``[tune]`` as ``(key path, why)``, and, when there is
    none, its knobs and the knobs touching each guardrail."""
    from analysis.workflow.audit.edits import Edit, apply, format_value

    problems: list[tuple[str, str]] = []
    if sc.tune is None:
        return (
            [
                (
                    "tune",
                    "no [tune] table: name the knobs to turn ([[tune.knobs]] with "
                    'knob = "TARGET:KNOB" and values = [...] or min/max)',
                )
            ],
            [],
            [],
        )
    if not sc.guardrails:
        problems.append(("guardrails", "no [[guardrails]] entries to tune for"))
    knobs: list[Knob] = []
    base = [sc]
    base_state = [_target_state(sc, g) for g in sc.guardrails]
    touched: list[set[int]] = [set() for _ in sc.guardrails]
    seen: dict[str, int] = {}
    for i, k in enumerate(sc.tune.knobs):
        path = f"tune.knobs[{i}]"
        target, colon, name = k.knob.partition(":")
        target, name = target.strip(), name.strip()
        if not colon or not target or not name or "=" in k.knob:
            problems.append(
                (
                    f"{path}.knob",
                    f"expected TARGET:KNOB (as audit --set takes "
                    f"it, without =VALUE), got {k.knob!r}",
                )
            )
            continue
        full = f"{target}:{name}"
        if full in seen:
            problems.append((f"{path}.knob", f"{full!r} is already tune.knobs[{seen[full]}]"))
            continue
        seen[full] = i
        ranged = k.min is not None or k.max is not None
        if k.values is not None and ranged:
            problems.append((path, "give values = [...] or min/max, not both"))
            continue
        if k.values is None and not ranged:
            problems.append((path, "give values = [...] or min and max"))
            continue
        if ranged:
            if k.min is None or k.max is None:
                problems.append((path, "give both min and max"))
                continue
            if k.max <= k.min:
                problems.append((f"{path}.max", f"{k.max} is not above min = {k.min}"))
                continue
            levels = tuple(range(k.min, k.max + 1, k.step))
        else:
            levels = tuple(k.values)
            dup = [j for j, v in enumerate(levels) if any(_same(v, w) for w in levels[:j])]
            if dup:
                problems.append((f"{path}.values[{dup[0]}]", f"{levels[dup[0]]!r} is listed twice"))
                continue
        if len(levels) < 2:
            problems.append((path, "needs at least two levels"))
            continue
        try:
            cur = current_value(sc, target, name)
        except InputError as exc:
            problems.append((f"{path}.knob", f"{full}: {exc}"))
            continue
        match = [v for v in levels if _same(v, cur)]
        if not match:
            shown = "min..max" if ranged else "values"
            problems.append(
                (
                    path,
                    f"the current value {format_value(cur)} of {full} is "
                    f"not among its levels ({shown}); add it",
                )
            )
            continue
        bad = False
        for j, v in enumerate(levels):
            if _same(v, cur):
                continue
            try:
                edited = apply(base, Edit(target, name, v), where="")[0]
            except InputError as exc:
                msg = str(exc).lstrip()
                bad = True
                problems.append(
                    (
                        path if ranged else f"{path}.values[{j}]",
                        f"{full}={format_value(v)}: {_why(msg, full)}",
                    )
                )
                break
            for g, gr in enumerate(sc.guardrails):
                if _target_state(edited, gr) != base_state[g]:
                    touched[g].add(len(knobs))
        if bad:
            continue
        knobs.append(
            Knob(
                target,
                name,
                tuple(match[0] if _same(v, cur) else v for v in levels),
                match[0],
                float(k.weight),
            )
        )
    if not problems and knobs and not any(touched):
        problems.append(
            ("tune.knobs", "no knob changes a fight or check that a guardrail measures")
        )
    return problems, knobs, [tuple(sorted(t)) for t in touched]


def load_tune(
    path: str | Path, *, seed: int | None = None, budget: int | None = None
) -> TuneProblem:
    """A guardrail file with ``[tune]`` (every problem of the file, then of ``[tune]``, in
    one InputError, one line each naming the key path); ``seed``/``budget`` override
    the table's."""
    from analysis.workflow.scenario import load_scenario, raise_problems

    sc = load_scenario(path)
    problems, knobs, deps = tune_problems(sc)
    if problems:
        raise_problems(Path(path).name, problems)
    assert sc.tune is not None  # tune_problems: a file without [tune] is a problem
    return TuneProblem(
        sc,
        knobs,
        deps,
        str(path),
        sc.tune.seed if seed is None else seed,
        sc.tune.budget if budget is None else budget,
    )


def reproduce(
    problem: TuneProblem, setting: tuple, batch: int = 2_000, max_trials: int = 200_000
) -> str:
    """``rpg-balance audit FILE --set T:K=V ...``: the audit of the candidate (with
    ``--batch``/``--max-trials`` when they are not the audit's defaults)."""
    words = ["rpg-balance", "audit", problem.file]
    for e in problem.edits(setting):
        words += ["--set", str(e)]
    if batch != 2_000:
        words += ["--batch", str(batch)]
    if max_trials != 200_000:
        words += ["--max-trials", str(max_trials)]
    return shlex.join(words)


@dataclasses.dataclass
class TuneResult:
    """The front (``table``), every candidate evaluated (``candidates``: rows), the
    reading, and the figures of the run."""

    problem: TuneProblem
    table: Any
    front: list[dict]
    candidates: list[dict]
    method: str  # "exact" | "nsga2"
    reading: str
    stats: dict
    precision: tuple = (2_000, 200_000)  # (batch, max_trials) of the measurements

    @property
    def feasible(self) -> bool:
        return bool(self.front) and self.front[0]["feasible"]


def edit_size_of(result: TuneResult):
    """The edit-size key of a run's candidates: changes first, then the weighted
    distance (scaled below one change)."""
    total = sum(k.weight for k in result.problem.knobs) + 1.0
    return lambda r: r["changes"] + r["distance"] / total
