"""A candidate's evaluation: every guardrail measured by the audit
(:func:`analysis.workflow.audit.measuring.measure`, the file's seed), each measurement
cached by (guardrail, the settings of the knobs touching it), and its margins."""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

from .problem import TuneProblem

__all__ = ["Evaluator", "MeasureTask", "margin", "run_measure_task"]

#: the objectives' floor for a value that cannot be measured (Optuna takes finite values)
_FLOOR = -1e6


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
        m = measure(
            sc, sc.guardrails[i], i, seed=sc.seed, batch=task.batch, max_trials=task.max_trials
        )
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

    def __init__(
        self,
        problem: TuneProblem,
        cluster=None,
        *,
        batch: int = 2_000,
        max_trials: int = 200_000,
        progress: bool | None = False,
    ):
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
        needed: dict[tuple, list[int]] = {}  # setting → guardrails to measure
        planned: set[tuple] = set()
        for s in settings:
            for g in range(len(p.scenario.guardrails)):
                key = self._key(g, s)
                self.lookups += 1
                if key not in self.cache and key not in planned:
                    planned.add(key)
                    needed.setdefault(s, []).append(g)
        tasks = [
            MeasureTask(p.scenario, p.edits(s), tuple(gs), self.batch, self.max_trials)
            for s, gs in needed.items()
        ]
        results = (
            execute(tasks, run_measure_task, self.cluster, progress=self.progress) if tasks else []
        )
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
        return [
            0.0 if m["status"] == "pass" else max(-max(mg, _FLOOR), 1e-9)
            for m, mg in zip(row["_measures"], row["_margins"], strict=True)
        ]
