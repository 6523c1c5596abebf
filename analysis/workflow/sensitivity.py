"""``rpg-balance sensitivity``: which knobs of a guardrail file move each guardrail's
figure most — global sensitivity indices over the knobs' whole ranges.

The knobs and their ranges are the file's ``[tune]`` table (the same ``TARGET:KNOB``
vocabulary as ``rpg-balance tune`` and ``audit --set``: variants, traits, rule-table
fields, ``everyone.`` offsets), read and checked by :func:`analysis.workflow.tune.load_tune`.
Each knob is a factor uniform over its levels; a guardrail's figure is the audit's own
measurement (:class:`analysis.workflow.tune.Evaluator`, the same cache as ``tune``), so an
exact duel or check contributes no Monte Carlo noise.

**Which knobs.** A knob that does not change any fight or check a guardrail measures
(``TuneProblem.deps``) has index 0 for it and is never sampled for it; each guardrail is
analysed over the knobs that touch it only, the others held at the file's values.

**Methods** (per guardrail):

- ``exact`` — when the touching knobs have at most :data:`EXACT_LIMIT` level
  combinations, every combination is measured and the indices are the variance
  decomposition itself: ``S1_i = Var(E[Y | X_i]) / Var(Y)`` and ``ST_i = E[Var(Y | X_~i)]
  / Var(Y)`` (Sobol' 2001, with the knobs independent and uniform over their levels); no
  sampling error, ``*_conf`` 0 for exact measurements.
- ``sobol`` — SALib's Saltelli/Sobol' sampling (scrambled Sobol' sequence, ``N·(k + 2)``
  points, ``N·(2k + 2)`` with second order) and ``SALib.analyze.sobol`` with its bootstrap
  confidence intervals (``num_resamples``, 95 %); a point ``u`` in [0, 1) picks level
  ``floor(u · levels)``, so the factor is uniform over the levels as in ``exact``.
- ``morris`` — SALib's Morris screening (``mu_star``, its bootstrap interval, ``sigma``):
  cheap elementary effects for many knobs, in the knob's level steps scaled to [0, 1].

``auto`` (the default) is ``exact`` where the grid is small enough, else ``sobol``.

**Monte Carlo figures.** A Monte Carlo measurement carries its SE into the interval: the
indices are recomputed on :data:`MC_REPLICATES` copies of the figures each perturbed by
its own normal error (seeded), and the interval becomes ``sqrt(boot² + (z·sd)²)``, the
bootstrap half-width and the replicates' spread combined.

**Reproducible.** Samples and bootstraps are seeded (``seed``); measurements do not
depend on where they run (:func:`analysis.workflow.sweep.execute`, in process or on Dask),
so the same seed gives the same table on any number of workers.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from analysis.text import N_, Text, join
from engines.constants import STUDY_SEED
from engines.errors import InputError

__all__ = [
    "COLUMNS",
    "DEFAULT_KNOBS",
    "EXACT_LIMIT",
    "FIGURE_WORDS",
    "MC_REPLICATES",
    "METHODS",
    "MORRIS_COLUMNS",
    "NEGLIGIBLE",
    "SensitivityResult",
    "command",
    "exact_indices",
    "guardrail_reading",
    "knob_words",
    "level_of",
    "load_problem",
    "save_sensitivity_plot",
    "sensitivity",
    "sensitivity_figure",
    "sensitivity_heatmap",
]

#: Methods of ``--method``.
METHODS = ("auto", "exact", "sobol", "morris")
#: Largest grid of a guardrail's touching knobs measured whole by ``auto`` / ``exact``.
EXACT_LIMIT = 4_096
#: Copies of the figures perturbed by their Monte Carlo error (see the module text).
MC_REPLICATES = 32
#: Columns of the Sobol' table (``exact`` and ``sobol``).
COLUMNS = [
    "guardrail",
    "system",
    "metric",
    "knob",
    "touches",
    "S1",
    "S1_conf",
    "ST",
    "ST_conf",
    "method",
    "evaluations",
]
#: Columns of the Morris table.
MORRIS_COLUMNS = [
    "guardrail",
    "system",
    "metric",
    "knob",
    "touches",
    "mu_star",
    "mu_star_conf",
    "sigma",
    "method",
    "evaluations",
]
#: ST below this: the knob "hardly matters" in the reading.
NEGLIGIBLE = 0.02
_Z95 = 1.959963984540054


@dataclasses.dataclass
class SensitivityResult:
    """The tidy table (one row per guardrail and knob), the reading per guardrail (a
    :class:`~analysis.text.Text`), the second-order pairs when asked, and the run's
    figures."""

    problem: Any
    table: Any
    readings: list
    method: str
    stats: dict
    pairs: Any = None


def level_of(u: np.ndarray, n_levels: int) -> np.ndarray:
    """The level index a point ``u`` in [0, 1] picks: ``floor(u · levels)``, the last
    level for ``u = 1`` (every level equally likely for uniform ``u``)."""
    return np.minimum((np.asarray(u) * n_levels).astype(int), n_levels - 1)


def exact_indices(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First-order and total Sobol' indices of a function given on its whole grid
    (``values``: one axis per knob, every level combination, all equally likely):
    ``S1_i = Var(E[Y | X_i]) / Var(Y)``, ``ST_i = E[Var(Y | X_~i)] / Var(Y)``. Zero
    variance gives zeros (no knob moves the figure)."""
    y = np.asarray(values, dtype=float)
    total = float(y.var())
    k = y.ndim
    if total <= 1e-15 * max(1.0, float(np.abs(y).max(initial=0.0))) ** 2:
        return np.zeros(k), np.zeros(k)
    s1, st = np.empty(k), np.empty(k)
    for i in range(k):
        others = tuple(j for j in range(k) if j != i)
        s1[i] = float(y.mean(axis=others).var()) / total if others else 1.0
        st[i] = float(y.var(axis=i).mean()) / total
    return s1, st


# --------------------------------------------------------------------------- the problem

#: The knobs of the default report's page (a ``[tune]`` table, see the file's comments).
DEFAULT_KNOBS = Path(__file__).resolve().parents[1] / "data" / "sensitivity.toml"


def load_problem(path, knobs=None, systems=None):
    """The :class:`~analysis.workflow.tune.TuneProblem` of a guardrail file: its own
    ``[tune]`` table, or the one of ``knobs`` (a file holding only ``[tune]``) in its
    place. ``systems``: keep only the guardrails and system-wide knobs of these systems
    (the report's). Every problem in one :class:`InputError`, one line each."""
    from analysis.toml_input import read_toml
    from analysis.workflow.audit.measuring import guardrail_target
    from analysis.workflow.guardrails import Tune
    from analysis.workflow.scenario import load_scenario, raise_problems
    from analysis.workflow.tune import TuneProblem, tune_problems
    from engines.system import registry

    sc = load_scenario(path)
    if systems is not None:
        keep = [g for g in sc.guardrails if guardrail_target(sc, g).system in systems]
        sc = sc.model_copy(update={"guardrails": keep})
    if knobs is not None:
        data = read_toml(knobs, "knob file")
        name = Path(knobs).name
        extra = sorted(set(data) - {"tune"})
        if "tune" not in data or extra:
            raise InputError(
                f"{name}: expected only a [tune] table"
                + (f", got {', '.join(extra)}" if extra else "")
            )
        table = dict(data["tune"])
        if systems is not None:
            table["knobs"] = [
                k
                for k in table.get("knobs", [])
                if str(k.get("knob", "")).partition(":")[0] not in registry()
                or str(k.get("knob", "")).partition(":")[0] in systems
            ]
            if not table["knobs"]:
                raise InputError(f"{name}: no knob is about the systems " + ", ".join(systems))
        try:
            tune_table = Tune.model_validate(table)
        except Exception as exc:  # pydantic's ValidationError: the first problem
            errors = getattr(exc, "errors", list)()
            if not errors:
                raise
            e = errors[0]
            where = ".".join(str(p) for p in ("tune", *e["loc"]))
            raise InputError(f"{name}: {where}: {e['msg']}") from None
        sc = sc.model_copy(update={"tune": tune_table})
    problems, found, deps = tune_problems(sc)
    if problems:
        raise_problems(Path(knobs).name if knobs is not None else Path(path).name, problems)
    return TuneProblem(sc, found, deps, str(path))


# --------------------------------------------------------------------------- measuring


def _settings(problem, knobs: tuple[int, ...], rows: np.ndarray) -> list[tuple]:
    """Full settings (every knob of the file) from level indices of ``knobs``."""
    base = list(problem.current)
    out = []
    for r in rows:
        s = list(base)
        for pos, j in zip(knobs, r, strict=True):
            s[pos] = problem.knobs[pos].levels[int(j)]
        out.append(tuple(s))
    return out


def _figures(evaluator, problem, g: int, settings: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """Guardrail ``g``'s value and SE at each setting (the audit's measurement, cached)."""
    rows = evaluator.evaluate(settings)
    values = np.array([r["_measures"][g]["value"] for r in rows], dtype=float)
    ses = np.array(
        [r["_measures"][g]["se"] if r["_measures"][g]["method"] != "exact" else 0.0 for r in rows],
        dtype=float,
    )
    if not np.all(np.isfinite(values)):
        bad = settings[int(np.flatnonzero(~np.isfinite(values))[0])]
        name = problem.scenario.guardrails[g].name
        raise InputError(
            f"{name}: cannot be measured at "
            + ", ".join(
                f"{k.name}={v}" for k, v in zip(problem.knobs, bad, strict=True) if v != k.current
            )
            + " (narrow that knob's range)"
        )
    return values, ses


def _replicated(fn, values: np.ndarray, ses: np.ndarray, seed: int, conf):
    """``fn(values)`` → dict of arrays; with Monte Carlo figures, each ``*_conf`` widened
    by the spread of ``fn`` over :data:`MC_REPLICATES` perturbed copies."""
    out = fn(values)
    if not np.any(ses > 0):
        return out
    rng = np.random.default_rng([seed, 7_919])
    reps = [fn(values + ses * rng.standard_normal(values.shape)) for _ in range(MC_REPLICATES)]
    for key, cf in conf.items():
        sd = np.std([r[key] for r in reps], axis=0, ddof=1)
        out[cf] = np.sqrt(np.asarray(out[cf]) ** 2 + (_Z95 * sd) ** 2)
    return out


def _exact(evaluator, problem, g, knobs, seed):
    shape = tuple(len(problem.knobs[j].levels) for j in knobs)
    grid = np.array(list(itertools.product(*(range(n) for n in shape))), dtype=int)
    values, ses = _figures(evaluator, problem, g, _settings(problem, knobs, grid))

    def fn(v):
        s1, st = exact_indices(v.reshape(shape))
        return {
            "S1": s1,
            "ST": st,
            "S1_conf": np.zeros(len(knobs)),
            "ST_conf": np.zeros(len(knobs)),
        }

    return _replicated(fn, values, ses, seed, {"S1": "S1_conf", "ST": "ST_conf"}), len(grid), None


def _salib_problem(problem, knobs):
    return {
        "num_vars": len(knobs),
        "names": [problem.knobs[j].name for j in knobs],
        "bounds": [[0.0, 1.0]] * len(knobs),
    }


def _sobol(evaluator, problem, g, knobs, seed, samples, second_order, resamples):
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sample

    sp = _salib_problem(problem, knobs)
    second = second_order and len(knobs) > 1
    u = sample.sample(sp, samples, calc_second_order=second, seed=seed)
    idx = np.column_stack(
        [level_of(u[:, c], len(problem.knobs[j].levels)) for c, j in enumerate(knobs)]
    )
    values, ses = _figures(evaluator, problem, g, _settings(problem, knobs, idx))

    def fn(v):
        if float(np.var(v)) == 0.0:
            z = np.zeros(len(knobs))
            out = {"S1": z, "S1_conf": z, "ST": z, "ST_conf": z}
            if second:
                out["S2"] = np.zeros((len(knobs), len(knobs)))
            return out
        r = analyze.analyze(sp, v, calc_second_order=second, num_resamples=resamples, seed=seed)
        return {
            k: np.asarray(r[k])
            for k in r
            if k in ("S1", "S1_conf", "ST", "ST_conf", "S2", "S2_conf")
        }

    out = _replicated(fn, values, ses, seed, {"S1": "S1_conf", "ST": "ST_conf"})
    pairs = None
    if second:
        pairs = [
            (
                knobs[a],
                knobs[b],
                float(out["S2"][a, b]),
                float(out.get("S2_conf", np.zeros_like(out["S2"]))[a, b]),
            )
            for a in range(len(knobs))
            for b in range(a + 1, len(knobs))
        ]
    return out, len(u), pairs


def _morris(evaluator, problem, g, knobs, seed, samples, resamples, levels=4):
    from SALib.analyze import morris as analyze
    from SALib.sample import morris as sample

    sp = _salib_problem(problem, knobs)
    u = sample.sample(sp, samples, num_levels=levels, seed=seed)
    idx = np.column_stack(
        [level_of(u[:, c], len(problem.knobs[j].levels)) for c, j in enumerate(knobs)]
    )
    values, ses = _figures(evaluator, problem, g, _settings(problem, knobs, idx))

    def fn(v):
        r = analyze.analyze(sp, u, v, num_resamples=resamples, num_levels=levels, seed=seed)
        return {
            k: np.nan_to_num(np.asarray(r[k], dtype=float))
            for k in ("mu_star", "mu_star_conf", "sigma")
        }

    return _replicated(fn, values, ses, seed, {"mu_star": "mu_star_conf"}), len(u), None


# --------------------------------------------------------------------------- the run


def _check(method: str, samples: int, problem) -> None:
    if method not in METHODS:
        raise InputError(f"--method: {method!r} is not a method; choose " + " | ".join(METHODS))
    if method in ("auto", "sobol") and (samples < 8 or samples & (samples - 1)):
        raise InputError(
            f"--samples: {samples} is not a power of two of at least 8 (the "
            "Sobol' sequence's balance needs one, e.g. 64, 128, 256)"
        )
    if method == "morris" and samples < 4:
        raise InputError(
            f"--samples: {samples} Morris trajectories are too few to screen "
            "with (at least 4; 10–50 is usual)"
        )
    for g, deps in enumerate(problem.deps):
        if method == "exact":
            size = math.prod(len(problem.knobs[j].levels) for j in deps)
            if size > EXACT_LIMIT:
                name = problem.scenario.guardrails[g].name
                raise InputError(
                    f"--method exact: {name}: its knobs have {size} level "
                    f"combinations, over {EXACT_LIMIT}; use --method sobol"
                )


def sensitivity(
    problem,
    *,
    method: str = "auto",
    samples: int = 64,
    seed: int = STUDY_SEED,
    second_order: bool = False,
    resamples: int = 100,
    cluster=None,
    batch: int = 2_000,
    max_trials: int = 200_000,
    progress: bool | None = False,
    on_guardrail: Callable[[int, int], None] | None = None,
) -> SensitivityResult:
    """The sensitivity table of a :class:`~analysis.workflow.tune.TuneProblem`: one row
    per guardrail and knob (knobs that do not touch the guardrail: 0, not sampled).

    ``on_guardrail(done, total)``, when given, is called before each guardrail's study
    (``done`` guardrails finished of ``total``) and once after the last; an exception it
    raises ends the study there (the workbench's Stop), with no result."""
    import pandas as pd

    from analysis.workflow.audit.measuring import guardrail_target
    from analysis.workflow.tune import Evaluator

    _check(method, samples, problem)
    evaluator = Evaluator(problem, cluster, batch=batch, max_trials=max_trials, progress=progress)
    start = time.perf_counter()
    sc = problem.scenario
    rows, readings, pairs_rows, untouched = [], [], [], []
    used = set()
    for g, gr in enumerate(sc.guardrails):
        if on_guardrail is not None:
            on_guardrail(g, len(sc.guardrails))
        system = guardrail_target(sc, gr).system
        knobs = tuple(problem.deps[g])
        size = math.prod(len(problem.knobs[j].levels) for j in knobs)
        how = method if method != "auto" else ("exact" if size <= EXACT_LIMIT else "sobol")
        if not knobs:
            how, out, n, pairs = ("exact" if method == "auto" else method), {}, 0, None
        elif how == "exact":
            out, n, pairs = _exact(evaluator, problem, g, knobs, seed)
        elif how == "sobol":
            out, n, pairs = _sobol(
                evaluator, problem, g, knobs, seed, samples, second_order, resamples
            )
        else:
            out, n, pairs = _morris(evaluator, problem, g, knobs, seed, samples, resamples)
        used.add(how)
        for j, knob in enumerate(problem.knobs):
            c = knobs.index(j) if j in knobs else None
            row = {
                "guardrail": gr.name,
                "system": system,
                "metric": gr.metric,
                "knob": knob.name,
                "touches": c is not None,
                "method": how,
                "evaluations": n,
            }
            keys = (
                ("mu_star", "mu_star_conf", "sigma")
                if how == "morris"
                else ("S1", "S1_conf", "ST", "ST_conf")
            )
            for key in keys:
                row[key] = 0.0 if c is None else float(out[key][c])
            rows.append(row)
        for a, b, s2, conf in pairs or ():
            pairs_rows.append(
                {
                    "guardrail": gr.name,
                    "knob": problem.knobs[a].name,
                    "other": problem.knobs[b].name,
                    "S2": s2,
                    "S2_conf": conf,
                }
            )
        if knobs:
            readings.append(guardrail_reading(problem, g, rows[-len(problem.knobs) :]))
        else:
            untouched.append(gr.name)
    if on_guardrail is not None:
        on_guardrail(len(sc.guardrails), len(sc.guardrails))
    if untouched:
        readings.append(
            Text(
                N_("No knob of the file touches what these guardrails measure: {names}."),
                names=join("; ", [Text(n) for n in untouched]),
            )
        )
    cols = MORRIS_COLUMNS if used == {"morris"} else COLUMNS
    if "morris" in used and len(used) > 1:
        cols = list(dict.fromkeys(COLUMNS + MORRIS_COLUMNS))
    table = pd.DataFrame(rows).reindex(columns=cols)
    seconds = time.perf_counter() - start
    stats = {
        "evaluations": evaluator.evaluations,
        "measured": evaluator.measured,
        "trials": max((int(m.get("trials") or 0) for m in evaluator.cache.values()), default=0),
        "lookups": evaluator.lookups,
        "seconds": seconds,
        "cache_share": (1 - evaluator.measured / evaluator.lookups) if evaluator.lookups else 0.0,
    }
    pairs = (
        pd.DataFrame(pairs_rows, columns=["guardrail", "knob", "other", "S2", "S2_conf"])
        if second_order
        else None
    )
    return SensitivityResult(
        problem, table, readings, "+".join(sorted(used)) or method, stats, pairs
    )


# --------------------------------------------------------------------------- words


def knob_words(problem, name: str) -> Text:
    from analysis.glossary import knob_phrase
    from analysis.workflow.tune import knob_system
    from engines.system import registry

    knob = next(k for k in problem.knobs if k.name == name)
    words = knob_phrase(knob_system(problem, knob), knob.knob, in_rules=False)
    if knob.target in registry():
        return words
    return Text(N_("{knob} of {target}"), knob=words, target=knob.target)


def guardrail_reading(problem, g: int, rows: list[dict], metric=None) -> Text:
    """One guardrail in words: "even duel length (middle_3d10): the duel's mean length
    depends mostly on both fighters' Vigor (B9) (ST 0.71) and …; the 10-again rule
    hardly matters (ST < 0.02)" (the knobs touching it; the table has the others at
    0). ``metric``: the words of what the guardrail measures (default: the glossary's
    phrase of its metric; a report names the fighters in it)."""
    from analysis.glossary import metric_phrase

    gr = problem.scenario.guardrails[g]
    key = "mu_star" if rows and rows[0]["method"] == "morris" else "ST"
    touching = [r for r in rows if r["touches"]]
    # the guardrail's name is a designer's sentence: shown through the catalogue
    head = {
        "guardrail": Text(gr.name),
        "metric": metric_phrase(gr.metric) if metric is None else metric,
    }
    parts: list[Text] = []
    ranked = sorted(touching, key=lambda r: -r[key])
    strong = [r for r in ranked if r[key] >= NEGLIGIBLE] if key == "ST" else ranked[:3]
    weak = [r for r in ranked if r not in strong]
    if not touching:
        return Text(N_("{guardrail}: no knob of the file touches what it measures."), **head)
    if not strong:
        return Text(N_("{guardrail}: no knob moves {metric} over its range."), **head)
    named = [
        Text(
            N_("{knob} ({key} {value:.2f})"),
            knob=knob_words(problem, r["knob"]),
            key=key,
            value=float(r[key]),
        )
        for r in strong[:3]
    ]
    if len(strong) > 3:
        named.append(Text(N_("{count} more"), count=len(strong) - 3))
    parts.append(
        Text(N_("{guardrail}: {metric} depends mostly on {knobs}"), **head, knobs=_and(named))
    )
    if weak:
        parts.append(
            Text(
                N_("{knobs} hardly matter ({key} < {limit:.2f})"),
                knobs=_and([knob_words(problem, r["knob"]) for r in weak]),
                key=key,
                limit=NEGLIGIBLE,
            )
            if len(weak) > 1
            else Text(
                N_("{knobs} hardly matters ({key} < {limit:.2f})"),
                knobs=knob_words(problem, weak[0]["knob"]),
                key=key,
                limit=NEGLIGIBLE,
            )
        )
    return Text(N_("{sentence}."), sentence=join("; ", parts))


def _and(items: list) -> Text:
    if len(items) == 1:
        return items[0] if isinstance(items[0], Text) else Text("{x}", x=items[0])
    return Text(N_("{first} and {last}"), first=join(", ", items[:-1]), last=items[-1])


# --------------------------------------------------------------------------- figure

#: the words of :func:`sensitivity_figure` (the report passes them translated)
FIGURE_WORDS = {
    "S1": "first-order index (S1)",
    "ST": "total index (ST)",
    "mu_star": "mean absolute elementary effect (μ*)",
    "x": "index",
}


def sensitivity_figure(result: SensitivityResult, words: dict | None = None, labels=None):
    """One horizontal bar chart per guardrail a knob touches, those knobs ranked by
    their total index (bars ST and S1 with their intervals; Morris: μ* with its
    interval). ``labels``: knob → shown name (default: the knob as written in the
    file)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    w = {**FIGURE_WORDS, **(words or {})}
    t = result.table[result.table["touches"]]
    names = list(dict.fromkeys(t["guardrail"]))
    if not names:
        names, t = list(dict.fromkeys(result.table["guardrail"]))[:1], result.table
    height = sum(0.3 * int((t["guardrail"] == n).sum()) + 0.85 for n in names)
    fig = Figure(figsize=(7.5, max(2.0, height)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(names), 1, squeeze=False)[:, 0]
    for ax, name in zip(axes, names, strict=True):
        rows = t[t["guardrail"] == name]
        morris = rows["method"].iloc[0] == "morris"
        key = "mu_star" if morris else "ST"
        rows = rows.sort_values(key)
        y = np.arange(len(rows))
        shown = [labels.get(k, k) if labels else k for k in rows["knob"]]
        if morris:
            ax.barh(
                y, rows["mu_star"], xerr=rows["mu_star_conf"], color="#1f77b4", label=w["mu_star"]
            )
        else:
            ax.barh(
                y + 0.2,
                rows["ST"],
                height=0.4,
                xerr=rows["ST_conf"],
                color="#1f77b4",
                label=w["ST"],
            )
            ax.barh(
                y - 0.2,
                rows["S1"],
                height=0.4,
                xerr=rows["S1_conf"],
                color="#ff7f0e",
                label=w["S1"],
            )
            ax.set_xlim(0, max(1.0, float((rows["ST"] + rows["ST_conf"]).max()) * 1.05))
        ax.set_yticks(y, shown, fontsize=7)
        ax.set_title(str(name), fontsize=9)
        ax.set_xlabel(w["x"] if not morris else w["mu_star"], fontsize=8)
        ax.legend(fontsize=7, loc="lower right")
    return fig


def sensitivity_heatmap(
    result: SensitivityResult, labels=None, row_labels=None, colorbar: str = "total index (ST)"
):
    """The total indices on one page: a row per guardrail some knob moves, a column per
    knob that moves one, each cell's ST written in it (blank: the knob does not touch
    the guardrail). ``labels`` / ``row_labels``: knob / guardrail → shown name."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    t = result.table[result.table["touches"]]
    key = "mu_star" if (t["method"] == "morris").any() else "ST"
    moved = [g for g in dict.fromkeys(t["guardrail"]) if t.loc[t["guardrail"] == g, key].max() > 0]
    knobs = [
        k
        for k in dict.fromkeys(result.table["knob"])
        if t.loc[(t["knob"] == k) & t["guardrail"].isin(moved), key].max() > 0
    ]
    grid = np.full((len(moved), len(knobs)), np.nan)
    for r in t.itertuples(index=False):
        if r.guardrail in moved and r.knob in knobs:
            grid[moved.index(r.guardrail), knobs.index(r.knob)] = getattr(r, key)
    fig = Figure(figsize=(7.5, 1.6 + 0.32 * max(len(moved), 1)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    im = ax.imshow(
        np.ma.masked_invalid(grid),
        cmap="Blues",
        vmin=0,
        vmax=1 if key == "ST" else None,
        aspect="auto",
    )
    for (i, j), v in np.ndenumerate(grid):
        if np.isfinite(v):
            ax.text(
                j,
                i,
                f"{v:.2f}",
                ha="center",
                va="center",
                fontsize=6,
                color="white" if key == "ST" and v > 0.6 else "black",
            )
    ax.set_xticks(
        range(len(knobs)),
        [labels.get(k, k) if labels else k for k in knobs],
        rotation=40,
        ha="right",
        fontsize=6,
    )
    ax.set_yticks(
        range(len(moved)), [row_labels.get(g, g) if row_labels else g for g in moved], fontsize=6
    )
    fig.colorbar(im, ax=ax, shrink=0.8).set_label(colorbar, fontsize=7)
    return fig


def save_sensitivity_plot(result: SensitivityResult, path: str) -> None:
    """:func:`sensitivity_figure` written atomically (.png, .svg or .pdf)."""
    from analysis.output import atomic_path

    fig = sensitivity_figure(result)
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format=str(path).rsplit(".", 1)[-1].lower(), dpi=120)


def command(
    problem, method: str = "auto", samples: int = 64, seed: int = STUDY_SEED, knobs=None
) -> str:
    """``rpg-balance sensitivity FILE [--knobs K] …``: the command that prints a run's
    table."""
    import shlex

    words = ["rpg-balance", "sensitivity", problem.file]
    if knobs is not None:
        words += ["--knobs", str(knobs)]
    if method != "auto":
        words += ["--method", method]
    if samples != 64 and method != "exact":
        words += ["--samples", str(samples)]
    if seed != STUDY_SEED:
        words += ["--seed", str(seed)]
    return shlex.join(words)
