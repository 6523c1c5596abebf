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
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import shlex
import time
from pathlib import Path
from typing import Any

from analysis.text import N_, Text, join
from engines.errors import InputError

__all__ = ["EXACT_LIMIT", "FIGURE_WORDS", "POPULATION", "Evaluator", "Knob", "MeasureTask",
           "TuneProblem", "TuneResult", "best_row", "command", "current_value", "enumerate_all",
           "front_figure", "front_table", "load_tune", "margin", "pareto", "reading", "reproduce",
           "run_measure_task", "save_front_plot", "search", "tune", "tune_problems"]

#: the largest number of candidates enumerated exactly; past it the NSGA-II search runs
EXACT_LIMIT = 2_000
#: NSGA-II population: the candidates asked, evaluated as one batch and told per generation
POPULATION = 16
#: the objectives' floor for a value that cannot be measured (Optuna takes finite values)
_FLOOR = -1e6


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
    seed: int = 0
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

        return tuple(Edit(k.target, k.knob, v) for k, v in zip(self.knobs, setting,
                                                               strict=True)
                     if v != k.current)


# --------------------------------------------------------------------------------------
# Reading [tune]


def _same(a, b) -> bool:
    return (type(a) is type(b) and a == b) or (
        not isinstance(a, bool) and not isinstance(b, bool)
        and isinstance(a, int | float) and isinstance(b, int | float) and a == b)


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
    from analysis.workflow.audit.cures import trait_value
    from analysis.workflow.audit.edits import target_entries
    from analysis.workflow.audit.measuring import check_cell
    from engines.system import registry

    if target in registry():
        chosen = ([("fight", i) for i, f in enumerate(sc.fights)
                   if sc.check_system(f) == target]
                  + [("check", i) for i, c in enumerate(sc.checks)
                     if sc.check_system(c) == target])
    else:
        chosen = target_entries(sc, target)
    side, _, name = knob.partition(".")
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
        raise InputError(f"{target!r} is neither a system with a fight or check in the "
                         "file nor a [[fights]] or [[checks]] entry of it")
    if not found:
        raise InputError(f"no fight or check that {target!r} names has {knob!r}")
    if any(x is None for x in found):
        raise InputError("cannot read its current value from the file")
    if any(not _same(x, found[0]) for x in found):
        shown = ", ".join(dict.fromkeys(map(repr, found)))
        raise InputError(f"the entries it edits differ ({shown}): name one entry as the "
                         "target")
    return found[0]


def _why(message: str, edit: str) -> str:
    """An edit's InputError without its ``TARGET:KNOB=VALUE:`` head."""
    head, sep, rest = message.partition(": ")
    return rest if sep and head.strip().startswith(edit) else message


def _target_state(sc, g):
    from analysis.workflow.audit.measuring import guardrail_target

    t = guardrail_target(sc, g)
    return (t.system, repr(t.entry.model_dump()), repr(sorted(t.variants.items())))


def tune_problems(sc) -> tuple[list[tuple[str, str]], list[Knob], list[tuple[int, ...]]]:
    """Every problem of the file's ``[tune]`` as ``(key path, why)``, and, when there is
    none, its knobs and the knobs touching each guardrail."""
    from analysis.workflow.audit.edits import Edit, apply, format_value

    problems: list[tuple[str, str]] = []
    if sc.tune is None:
        return [("tune", "no [tune] table: name the knobs to turn ([[tune.knobs]] with "
                  "knob = \"TARGET:KNOB\" and values = [...] or min/max)")], [], []
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
            problems.append((f"{path}.knob", f"expected TARGET:KNOB (as audit --set takes "
                             f"it, without =VALUE), got {k.knob!r}"))
            continue
        full = f"{target}:{name}"
        if full in seen:
            problems.append((f"{path}.knob", f"{full!r} is already tune.knobs"
                             f"[{seen[full]}]"))
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
            dup = [j for j, v in enumerate(levels)
                   if any(_same(v, w) for w in levels[:j])]
            if dup:
                problems.append((f"{path}.values[{dup[0]}]",
                                 f"{levels[dup[0]]!r} is listed twice"))
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
            problems.append((path, f"the current value {format_value(cur)} of {full} is "
                             f"not among its levels ({shown}); add it"))
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
                problems.append((path if ranged else f"{path}.values[{j}]",
                                 f"{full}={format_value(v)}: {_why(msg, full)}"))
                break
            for g, gr in enumerate(sc.guardrails):
                if _target_state(edited, gr) != base_state[g]:
                    touched[g].add(len(knobs))
        if bad:
            continue
        knobs.append(Knob(target, name, tuple(match[0] if _same(v, cur) else v
                                              for v in levels), match[0], float(k.weight)))
    if not problems and knobs and not any(touched):
        problems.append(("tune.knobs", "no knob changes a fight or check that a guardrail "
                         "measures"))
    return problems, knobs, [tuple(sorted(t)) for t in touched]


def load_tune(path: str | Path, *, seed: int | None = None,
              budget: int | None = None) -> TuneProblem:
    """A guardrail file with ``[tune]`` (every problem of the file, then of ``[tune]``, in
    one InputError, one line each naming the key path); ``seed``/``budget`` override
    the table's."""
    from analysis.workflow.scenario import load_scenario, raise_problems

    sc = load_scenario(path)
    problems, knobs, deps = tune_problems(sc)
    if problems:
        raise_problems(Path(path).name, problems)
    return TuneProblem(sc, knobs, deps, str(path),
                       sc.tune.seed if seed is None else seed,
                       sc.tune.budget if budget is None else budget)


# --------------------------------------------------------------------------------------
# Evaluation: the audit's measurement of every guardrail, cached


@dataclasses.dataclass(frozen=True)
class MeasureTask:
    """Guardrails ``indices`` of the scenario with ``edits`` applied (one Dask task)."""

    scenario: Any
    edits: tuple
    indices: tuple
    batch: int = 2_000
    max_trials: int = 200_000


def run_measure_task(task: MeasureTask) -> list[dict]:
    """The audit's measurement of each guardrail of ``task`` (the file's seed)."""
    from analysis.workflow.audit.edits import apply
    from analysis.workflow.audit.measuring import measure

    scs = [task.scenario]
    for e in task.edits:
        scs = apply(scs, e)
    sc = scs[0]
    out = []
    for i in task.indices:
        m = measure(sc, sc.guardrails[i], i, seed=sc.seed, batch=task.batch,
                    max_trials=task.max_trials)
        out.append({k: m[k] for k in ("value", "se", "trials", "method", "status")})
    return out


def margin(value: float, se: float, lo, hi, z: float) -> float:
    """How far ``value`` (at its ``z``·SE edge toward each limit) sits inside ``[lo,
    hi]``, in units of the limits' width (of the one limit, or 1 when it is 0);
    negative outside."""
    if value is None or not math.isfinite(value):
        return -math.inf
    out = math.inf
    width = (hi - lo) if lo is not None and hi is not None and hi > lo else None
    if lo is not None:
        out = min(out, (value - z * se - lo) / (width or abs(lo) or 1.0))
    if hi is not None:
        out = min(out, (hi - value - z * se) / (width or abs(hi) or 1.0))
    return out


class Evaluator:
    """Candidates → rows, every guardrail measured once per (guardrail, settings of the
    knobs touching it); ``lookups``/``measured`` count the cache's use."""

    def __init__(self, problem: TuneProblem, cluster=None, *, batch: int = 2_000,
                 max_trials: int = 200_000, progress: bool | None = False):
        from analysis.workflow.audit.measuring import Z_DECIDE

        self.problem, self.cluster = problem, cluster
        self.batch, self.max_trials, self.progress = batch, max_trials, progress
        self.z = Z_DECIDE
        self.cache: dict[tuple, dict] = {}
        self.rows: dict[tuple, dict] = {}
        self.lookups = self.measured = self.evaluations = 0
        self.seconds = 0.0
        self.total_weight = sum(k.weight for k in problem.knobs)

    def _key(self, g: int, setting: tuple) -> tuple:
        return (g, tuple(setting[k] for k in self.problem.deps[g]))

    def evaluate(self, settings: list[tuple]) -> list[dict]:
        """One row per setting (in order); missing measurements run as one batch."""
        from analysis.workflow.sweep import execute

        start = time.perf_counter()
        p = self.problem
        needed: dict[tuple, list[int]] = {}   # setting → guardrails to measure
        planned: set[tuple] = set()
        for s in settings:
            for g in range(len(p.scenario.guardrails)):
                key = self._key(g, s)
                self.lookups += 1
                if key not in self.cache and key not in planned:
                    planned.add(key)
                    needed.setdefault(s, []).append(g)
        tasks = [MeasureTask(p.scenario, p.edits(s), tuple(gs), self.batch,
                             self.max_trials) for s, gs in needed.items()]
        results = execute(tasks, run_measure_task, self.cluster, progress=self.progress) \
            if tasks else []
        for (s, gs), ms in zip(needed.items(), results, strict=True):
            for g, m in zip(gs, ms, strict=True):
                self.cache[self._key(g, s)] = m
                self.measured += 1
        out = [self._row(s) for s in settings]
        self.evaluations += len(settings)
        self.seconds += time.perf_counter() - start
        return out

    def _row(self, setting: tuple) -> dict:
        if setting in self.rows:
            return self.rows[setting]
        p = self.problem
        row: dict[str, Any] = {k.name: v for k, v in zip(p.knobs, setting, strict=True)}
        changed = [(k, v) for k, v in zip(p.knobs, setting, strict=True) if v != k.current]
        row["changes"] = len(changed)
        row["distance"] = sum(k.distance(v) for k, v in changed)
        measures, margins = [], []
        for g, gr in enumerate(p.scenario.guardrails):
            m = self.cache[self._key(g, setting)]
            measures.append(m)
            margins.append(margin(m["value"], m["se"], gr.min, gr.max, self.z))
        row["worst_margin"] = max(min(margins), _FLOOR) if margins else 0.0
        row["feasible"] = all(m["status"] == "pass" for m in measures)
        row["failing"] = sum(m["status"] == "fail" for m in measures)
        row["undecided"] = sum(m["status"] == "undecided" for m in measures)
        row["_measures"] = measures
        row["_margins"] = margins
        row["_setting"] = setting
        self.rows[setting] = row
        return row

    def edit_size(self, row: dict) -> float:
        """``changes + distance / (total weight + 1)``: one number ordered as (changes,
        then distance), the search's first objective."""
        return row["changes"] + row["distance"] / (self.total_weight + 1.0)

    def constraints(self, row: dict) -> list[float]:
        """Optuna's constraint values (≤ 0 feasible): 0 for a passing guardrail, else how
        far its margin is below 0 (at least 1e-9)."""
        return [0.0 if m["status"] == "pass" else max(-max(mg, _FLOOR), 1e-9)
                for m, mg in zip(row["_measures"], row["_margins"], strict=True)]


# --------------------------------------------------------------------------------------
# Exact enumeration and the NSGA-II search


def enumerate_all(problem: TuneProblem, evaluator: Evaluator) -> list[dict]:
    """Every candidate, in the order of the knobs' levels."""
    settings = list(itertools.product(*(k.levels for k in problem.knobs)))
    return evaluator.evaluate(settings)


def search(problem: TuneProblem, evaluator: Evaluator, *, budget: int, seed: int,
           population: int = POPULATION) -> list[dict]:
    """``budget`` trials of Optuna's NSGA-II with one constraint per guardrail,
    generation by generation (ask ``population``, evaluate as one batch, tell in order);
    the current setting is the first trial. Rows of the distinct candidates tried."""
    import optuna
    from optuna.distributions import CategoricalDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    population = max(2, min(population, budget))
    sampler = optuna.samplers.NSGAIISampler(population_size=population, seed=seed)
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=sampler)
    space = {k.name: CategoricalDistribution(list(range(len(k.levels))))
             for k in problem.knobs}
    study.enqueue_trial({k.name: k.levels.index(k.current) for k in problem.knobs})
    seen: dict[tuple, dict] = {}
    told = 0
    while told < budget:
        trials = [study.ask(space) for _ in range(min(population, budget - told))]
        settings = [tuple(k.levels[t.params[k.name]] for k in problem.knobs)
                    for t in trials]
        rows = evaluator.evaluate(settings)
        for t, s, row in zip(trials, settings, rows, strict=True):
            for g, c in enumerate(evaluator.constraints(row)):
                t.set_constraint(f"guardrail{g}", c)
            study.tell(t, [evaluator.edit_size(row), row["worst_margin"]])
            seen.setdefault(s, row)
        told += len(trials)
    return list(seen.values())


# --------------------------------------------------------------------------------------
# The front and its table


def pareto(rows: list[dict], edit_size) -> list[dict]:
    """The candidates not dominated in (edit size ↓, worst margin ↑) — among the feasible
    ones when any is feasible, else among all — ordered by changes, distance, then
    worst margin (highest first). Ties on both objectives are all kept."""
    pool = [r for r in rows if r["feasible"]] or list(rows)
    pool = sorted(pool, key=lambda r: (r["changes"], round(r["distance"], 12),
                                       -r["worst_margin"], repr(r["_setting"])))
    out, best = [], -math.inf
    for _, group in itertools.groupby(pool, key=lambda r: round(edit_size(r), 12)):
        group = list(group)
        top = max(r["worst_margin"] for r in group)
        if top > best:
            out += [r for r in group if r["worst_margin"] == top]
            best = top
    return out


def reproduce(problem: TuneProblem, setting: tuple, batch: int = 2_000,
              max_trials: int = 200_000) -> str:
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


def front_table(problem: TuneProblem, rows: list[dict], evaluator: Evaluator):
    """The tidy table of ``rows``: one row per candidate — each knob's value,
    ``changes``, ``distance``, ``worst_margin``, ``feasible``, ``failing``, for every
    guardrail its value (column named by the guardrail), ``<guardrail> se`` (Monte Carlo
    guardrails only) and ``<guardrail> status``, and ``reproduce``."""
    import pandas as pd

    from analysis.workflow.audit.measuring import guardrail_target

    sc = problem.scenario
    mc = [not guardrail_target(sc, g).exact for g in sc.guardrails]
    records = []
    for r in rows:
        rec = {k.name: r[k.name] for k in problem.knobs}
        rec.update(changes=r["changes"], distance=r["distance"],
                   worst_margin=r["worst_margin"], feasible=r["feasible"],
                   failing=r["failing"], undecided=r["undecided"])
        for g, (gr, m) in enumerate(zip(sc.guardrails, r["_measures"], strict=True)):
            rec[gr.name] = m["value"]
            if mc[g]:
                rec[f"{gr.name} se"] = m["se"]
            rec[f"{gr.name} status"] = m["status"]
        rec["reproduce"] = reproduce(problem, r["_setting"], evaluator.batch,
                                     evaluator.max_trials)
        records.append(rec)
    table = pd.DataFrame.from_records(records)
    for k in problem.knobs:  # one dtype per knob column (levels may mix int and str)
        if len({type(v) for v in k.levels}) > 1:
            table[k.name] = table[k.name].astype(str)
    return table


@dataclasses.dataclass
class TuneResult:
    """The front (``table``), every candidate evaluated (``candidates``: rows), the
    reading, and the figures of the run."""

    problem: TuneProblem
    table: Any
    front: list[dict]
    candidates: list[dict]
    method: str                 # "exact" | "nsga2"
    reading: str
    stats: dict
    precision: tuple = (2_000, 200_000)   # (batch, max_trials) of the measurements

    @property
    def feasible(self) -> bool:
        return bool(self.front) and self.front[0]["feasible"]


def tune(problem: TuneProblem, *, method: str = "auto", cluster=None,
         budget: int | None = None, seed: int | None = None, batch: int = 2_000,
         max_trials: int = 200_000, progress: bool | None = False) -> TuneResult:
    """Tune ``problem``: enumerate every candidate (``method="exact"``, or ``"auto"`` when
    there are at most :data:`EXACT_LIMIT`) or run the NSGA-II search (``"search"``);
    the front, its table and reading. ``cluster``: a
    :class:`analysis.workflow.sweep.Cluster` (None: in this process)."""
    if method not in ("auto", "exact", "search"):
        raise InputError(f"method: expected auto, exact or search, got {method!r}")
    budget = problem.budget if budget is None else budget
    seed = problem.seed if seed is None else seed
    exact = method == "exact" or (method == "auto" and problem.size <= EXACT_LIMIT)
    if exact and problem.size > 10 * EXACT_LIMIT:
        raise InputError(f"--exact: {problem.size} candidates is more than "
                         f"{10 * EXACT_LIMIT} to enumerate; use the search (--budget)")
    own = None
    start = time.perf_counter()
    try:
        if cluster is not None and not cluster.local and cluster.client is None:
            from analysis.workflow.sweep import Cluster

            client, local, owned = cluster.connect()
            own = (client, local, owned)
            cluster = Cluster(client=client)
        ev = Evaluator(problem, cluster, batch=batch, max_trials=max_trials,
                       progress=progress)
        rows = (enumerate_all(problem, ev) if exact else
                search(problem, ev, budget=budget, seed=seed))
    finally:
        if own is not None:
            client, local, owned = own
            if owned:
                client.close()
            if local is not None:
                local.close()
    wall = time.perf_counter() - start
    front = pareto(rows, ev.edit_size)
    table = front_table(problem, front, ev)
    stats = {"candidates": problem.size, "evaluated": len(rows),
             "evaluations": ev.evaluations, "lookups": ev.lookups,
             "measured": ev.measured,
             "cache_share": 1 - ev.measured / ev.lookups if ev.lookups else 0.0,
             "seconds": wall,
             "evaluations_per_second": ev.evaluations / wall if wall > 0 else math.inf,
             "method": "exact" if exact else "nsga2", "budget": None if exact else budget,
             "seed": None if exact else seed}
    method_name = "exact" if exact else "nsga2"
    result = TuneResult(problem, table, front, rows, method_name, "", stats,
                        (batch, max_trials))
    result.reading = reading(result)
    return result


# --------------------------------------------------------------------------------------
# The reading


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def _knob_system(problem: TuneProblem, knob: Knob) -> str:
    """The system a knob edits: its target when that is a system id, else the system of
    the ``[[fights]]`` / ``[[checks]]`` entry it names (:func:`.audit.edits.target_entries`)."""
    from analysis.workflow.audit.edits import target_entries
    from engines.system import registry

    if knob.target in registry():
        return knob.target
    sc = problem.scenario
    for kind, i in target_entries(sc, knob.target):
        return sc.check_system((sc.fights if kind == "fight" else sc.checks)[i])
    return sc.system or ""


def _change(problem: TuneProblem, knob: Knob, value) -> Text:
    """One changed knob in words: "both fighters' Vigor (B9) of even_duel_middle_3d10
    from 4 to 8" (the glossary's words for the knob and its values)."""
    from analysis.glossary import knob_phrase, value_phrase

    system = _knob_system(problem, knob)
    return Text(N_("{knob} of {target} from {old} to {new}"),
                knob=knob_phrase(system, knob.knob), target=knob.target,
                old=value_phrase(system, knob.knob, knob.current),
                new=value_phrase(system, knob.knob, value))


def _changes_text(problem: TuneProblem, row: dict) -> Text:
    parts = [_change(problem, k, row[k.name]) for k in problem.knobs
             if row[k.name] != k.current]
    if not parts:
        return Text(N_("no change"))
    if len(parts) == 1:
        return parts[0]
    return Text(N_("{first} and {last}"), first=join("; ", parts[:-1]), last=parts[-1])


def _figure(g, m: dict) -> Text:
    from analysis.glossary import figure_phrase

    return figure_phrase(g.metric, m["value"], m["se"] if m["method"] != "exact" else 0.0)


def _worst(problem: TuneProblem, row: dict) -> Text:
    """The guardrail holding the worst margin, with its value."""
    k = min(range(len(row["_margins"])), key=row["_margins"].__getitem__)
    g = problem.scenario.guardrails[k]
    return Text("{guardrail} ({figure})", guardrail=Text(g.name),
                figure=_figure(g, row["_measures"][k]))


def _how(result: TuneResult) -> Text:
    s = result.stats
    if result.method == "exact":
        return Text(N_("all {n} candidates enumerated"), n=s["candidates"])
    return Text(N_("an NSGA-II search of {n} candidates: {trials} trials, {distinct} "
                   "distinct, seed {seed}"), n=s["candidates"], trials=s["evaluations"],
                distinct=s["evaluated"], seed=s["seed"])


def _status(status: str) -> Text:
    return Text({"pass": N_("pass"), "fail": N_("fail"),
                 "undecided": N_("undecided")}.get(status, status))


def best_row(result: TuneResult) -> dict | None:
    """The candidate the reading names: the smallest feasible edit, or, when none is
    feasible, the closest one (fewest guardrails not passing, then the smallest edit,
    then the widest worst margin)."""
    if not result.front:
        return None
    if result.feasible:
        return result.front[0]
    size = _edit_size_of(result)
    return min(result.candidates, key=lambda r: (r["failing"] + r["undecided"], size(r),
                                                 -r["worst_margin"]))


def command(result: TuneResult) -> str:
    """The ``rpg-balance audit FILE --set …`` command of :func:`best_row` ("" when the
    file as it is is the answer or nothing was evaluated)."""
    row = best_row(result)
    if row is None or row["changes"] == 0:
        return ""
    return reproduce(result.problem, row["_setting"], *result.precision)


def reading(result: TuneResult) -> Text:
    """One paragraph in the glossary's words: the smallest change that makes every
    guardrail pass, or the trade-off when none does (its command: :func:`command`)."""
    p, front = result.problem, result.front
    n = len(p.scenario.guardrails)
    name = Path(p.file).name
    if not front:
        return Text(N_("No candidate was evaluated."))
    best = best_row(result)
    if result.feasible:
        k = best["changes"]
        if k == 0:
            text = Text(N_("The file as it is already passes all {n} guardrails of {file} "
                           "({how})."), n=n, file=name, how=_how(result))
            return text
        feasible = sum(r["feasible"] for r in result.candidates)
        template = (N_("One change makes all {n} guardrails of {file} pass: {changes} "
                       "(worst margin {margin} of the limits' width, at {worst}). "
                       "{feasible} of {evaluated} candidates evaluated pass every "
                       "guardrail ({how}).") if k == 1 else
                    N_("{k} changes make all {n} guardrails of {file} pass; the smallest: "
                       "{changes} (worst margin {margin} of the limits' width, at "
                       "{worst}). {feasible} of {evaluated} candidates evaluated pass "
                       "every guardrail ({how})."))
        text = Text(template, k=k, n=n, file=name, changes=_changes_text(p, best),
                    margin=_fmt(best["worst_margin"]), worst=_worst(p, best),
                    feasible=feasible, evaluated=len(result.candidates), how=_how(result))
        others = len(front) - 1
        if others:
            text = Text("{text} {more}", text=text, more=Text(
                N_("Larger edits on the front: {k}; they widen the worst margin up to "
                   "{margin}."), k=others, margin=_fmt(max(r["worst_margin"]
                                                           for r in front))))
        return text
    base = next((r for r in result.candidates if r["changes"] == 0), None)
    short = join("; ", (Text(N_("{guardrail} ({figure}, {status})"), guardrail=Text(g.name),
                             figure=_figure(g, m), status=_status(m["status"]))
                        for g, m in zip(p.scenario.guardrails, best["_measures"], strict=True)
                        if m["status"] != "pass"))
    left = best["failing"] + best["undecided"]
    if best["changes"] == 0:
        who = Text(N_("The file as it is leaves {k} not passing: {short}"), k=left,
                   short=short)
    else:
        who = Text(N_("The closest, {changes}, leaves {k} not passing: {short}"),
                   changes=_changes_text(p, best), k=left, short=short)
    text = Text(N_("No candidate makes all {n} guardrails of {file} pass ({how}). {who}; "
                   "worst margin {margin} of the limits' width."), n=n, file=name,
                how=_how(result), who=who, margin=_fmt(best["worst_margin"]))
    if base is not None and base is not best:
        text = Text("{text} {more}", text=text, more=Text(
            N_("The file as it is leaves {k} not passing (worst margin {margin})."),
            k=base["failing"] + base["undecided"], margin=_fmt(base["worst_margin"])))
    return Text("{text} {more}", text=text, more=Text(
        N_("Candidates on the front: {k}, trading edit size against the worst margin."),
        k=len(front)))


# --------------------------------------------------------------------------------------
# The figure


#: the words of :func:`front_figure` (the report passes them translated)
FIGURE_WORDS = {"infeasible": "infeasible", "feasible": "feasible", "front": "front",
                "x": "edit size: knobs changed + distance / (total weight + 1)",
                "y": "worst guardrail margin (limits' width)"}


def front_figure(result: TuneResult, words: dict | None = None):
    """Every candidate evaluated as edit size (changes + distance / (total weight + 1))
    against worst margin: grey when it fails a guardrail, blue when feasible, the front
    in red joined by a step line, as Optuna's ``plot_pareto_front`` colours them.
    ``words``: :data:`FIGURE_WORDS` in another language (the title is then left out)."""
    w = {**FIGURE_WORDS, **(words or {})}
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ev_size = _edit_size_of(result)
    fig = Figure(figsize=(7.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    groups = [([r for r in result.candidates if not r["feasible"]], "#cccccc",
               w["infeasible"]),
              ([r for r in result.candidates if r["feasible"]], "#1f77b4", w["feasible"])]
    for rows, colour, label in groups:
        if rows:
            ax.scatter([ev_size(r) for r in rows], [r["worst_margin"] for r in rows],
                       s=14, color=colour, label=f"{label} ({len(rows)})", zorder=2)
    front = result.front
    xs = [ev_size(r) for r in front]
    ys = [r["worst_margin"] for r in front]
    ax.step(xs, ys, where="post", color="#d62728", linewidth=1, zorder=3)
    ax.scatter(xs, ys, s=30, color="#d62728", label=f"{w['front']} ({len(front)})",
               zorder=4)
    ax.axhline(0.0, color="black", linewidth=0.6, linestyle="--")
    ax.set_xlabel(w["x"])
    ax.set_ylabel(w["y"])
    if words is None:
        ax.set_title(f"{Path(result.problem.file).name}: {_how(result)}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def _edit_size_of(result: TuneResult):
    total = sum(k.weight for k in result.problem.knobs) + 1.0
    return lambda r: r["changes"] + r["distance"] / total


def save_front_plot(result: TuneResult, path: str) -> None:
    """:func:`front_figure` written atomically (.png, .svg or .pdf)."""
    from analysis.output import atomic_path

    fig = front_figure(result)
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format=str(path).rsplit(".", 1)[-1].lower(), dpi=120)
