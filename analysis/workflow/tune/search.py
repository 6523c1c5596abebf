"""The search: every candidate enumerated (at most :data:`EXACT_LIMIT`) or Optuna's
NSGA-II by generations of :data:`POPULATION`, the front (:func:`pareto`) and its table,
and :func:`tune`, the run of ``rpg-balance tune``."""

from __future__ import annotations

import itertools
import math
import time

from engines.errors import InputError

from .evaluation import Evaluator
from .problem import TuneProblem, TuneResult, reproduce
from .reading import reading_of

__all__ = [
    "EXACT_LIMIT",
    "POPULATION",
    "enumerate_all",
    "front_table",
    "nsga2_search",
    "pareto",
    "tune",
]

#: the largest number of candidates enumerated exactly; past it the NSGA-II search runs
EXACT_LIMIT = 2_000
#: NSGA-II population: the candidates asked, evaluated as one batch and told per generation
POPULATION = 16


def enumerate_all(problem: TuneProblem, evaluator: Evaluator) -> list[dict]:
    """Every candidate, in the order of the knobs' levels."""
    settings = list(itertools.product(*(k.levels for k in problem.knobs)))
    return evaluator.evaluate(settings)


def nsga2_search(
    problem: TuneProblem,
    evaluator: Evaluator,
    *,
    budget: int,
    seed: int,
    population: int = POPULATION,
) -> list[dict]:
    """``budget`` trials of Optuna's NSGA-II with one constraint per guardrail,
    generation by generation (ask ``population``, evaluate as one batch, tell in order);
    the current setting is the first trial. Rows of the distinct candidates tried."""
    from analysis.package import require

    require("tune", f"rpg-balance tune's search (more than {EXACT_LIMIT} candidates, or --search)")
    import optuna
    from optuna.distributions import BaseDistribution, CategoricalDistribution

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    population = max(2, min(population, budget))
    sampler = optuna.samplers.NSGAIISampler(population_size=population, seed=seed)
    study = optuna.create_study(directions=["minimize", "maximize"], sampler=sampler)
    space: dict[str, BaseDistribution] = {
        k.name: CategoricalDistribution(list(range(len(k.levels)))) for k in problem.knobs
    }
    study.enqueue_trial({k.name: k.levels.index(k.current) for k in problem.knobs})
    seen: dict[tuple, dict] = {}
    told = 0
    while told < budget:
        trials = [study.ask(space) for _ in range(min(population, budget - told))]
        settings = [tuple(k.levels[t.params[k.name]] for k in problem.knobs) for t in trials]
        rows = evaluator.evaluate(settings)
        for t, s, row in zip(trials, settings, rows, strict=True):
            for g, c in enumerate(evaluator.constraints(row)):
                t.set_constraint(f"guardrail{g}", c)
            study.tell(t, [evaluator.edit_size(row), row["worst_margin"]])
            seen.setdefault(s, row)
        told += len(trials)
    return list(seen.values())


def pareto(rows: list[dict], edit_size) -> list[dict]:
    """The candidates not dominated in (edit size ↓, worst margin ↑) — among the feasible
    ones when any is feasible, else among all — ordered by changes, distance, then
    worst margin (highest first). Ties on both objectives are all kept."""
    pool = [r for r in rows if r["feasible"]] or list(rows)
    pool = sorted(
        pool,
        key=lambda r: (
            r["changes"],
            round(r["distance"], 12),
            -r["worst_margin"],
            repr(r["_setting"]),
        ),
    )
    out, best = [], -math.inf
    for _, group in itertools.groupby(pool, key=lambda r: round(edit_size(r), 12)):
        ties = list(group)
        top = max(r["worst_margin"] for r in ties)
        if top > best:
            out += [r for r in ties if r["worst_margin"] == top]
            best = top
    return out


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
        rec.update(
            changes=r["changes"],
            distance=r["distance"],
            worst_margin=r["worst_margin"],
            feasible=r["feasible"],
            failing=r["failing"],
            undecided=r["undecided"],
        )
        for g, (gr, m) in enumerate(zip(sc.guardrails, r["_measures"], strict=True)):
            rec[gr.name] = m["value"]
            if mc[g]:
                rec[f"{gr.name} se"] = m["se"]
            rec[f"{gr.name} status"] = m["status"]
        rec["reproduce"] = reproduce(problem, r["_setting"], evaluator.batch, evaluator.max_trials)
        records.append(rec)
    table = pd.DataFrame.from_records(records)
    for k in problem.knobs:  # one dtype per knob column (levels may mix int and str)
        if len({type(v) for v in k.levels}) > 1:
            table[k.name] = table[k.name].astype(str)
    return table


def tune(
    problem: TuneProblem,
    *,
    method: str = "auto",
    cluster=None,
    budget: int | None = None,
    seed: int | None = None,
    batch: int = 2_000,
    max_trials: int = 200_000,
    progress: bool | None = False,
) -> TuneResult:
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
        raise InputError(
            f"--exact: {problem.size} candidates is more than "
            f"{10 * EXACT_LIMIT} to enumerate; use the search (--budget)"
        )
    own = None
    start = time.perf_counter()
    try:
        if cluster is not None and not cluster.local and cluster.client is None:
            from analysis.workflow.sweep import Cluster

            client, local, owned = cluster.connect()
            own = (client, local, owned)
            cluster = Cluster(client=client)
        ev = Evaluator(problem, cluster, batch=batch, max_trials=max_trials, progress=progress)
        rows = (
            enumerate_all(problem, ev)
            if exact
            else nsga2_search(problem, ev, budget=budget, seed=seed)
        )
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
    stats = {
        "candidates": problem.size,
        "evaluated": len(rows),
        "evaluations": ev.evaluations,
        "lookups": ev.lookups,
        "measured": ev.measured,
        "cache_share": 1 - ev.measured / ev.lookups if ev.lookups else 0.0,
        "seconds": wall,
        "evaluations_per_second": ev.evaluations / wall if wall > 0 else math.inf,
        "method": "exact" if exact else "nsga2",
        "budget": None if exact else budget,
        "seed": None if exact else seed,
    }
    method_name = "exact" if exact else "nsga2"
    result = TuneResult(problem, table, front, rows, method_name, "", stats, (batch, max_trials))
    result.reading = reading_of(result)
    return result
