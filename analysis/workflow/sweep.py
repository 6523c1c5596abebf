"""Parameter sweeps: every combination of swept variants and axes is one task, run in
process or on a Dask cluster, gathered into one tidy table with a sensitivity summary.

Reproducibility. A task's random numbers depend only on the scenario seed and the
task's position in the grid: batch ``k`` of arm ``j`` of task ``i`` draws from
``SeedSequence(seed, spawn_key=(i, j, k))``. Results are put back in grid order, so the
same sweep gives bit-identical tables in process, on one worker, on four, or when a
worker dies mid-run and the scheduler reruns its tasks elsewhere.

Precision. With ``precision.trials`` each Monte Carlo arm runs that many trials in one
batch; with ``precision.se`` it runs batches of ``precision.batch`` trials until every
cell's binomial standard error ``sqrt(p (1 - p) / n)`` is at most the target (or
``max_trials`` is reached; the ``trials`` column says how many were used).

Combat. Fights plug in through :mod:`analysis.combat.fights` (a registry of engine modules);
this module only knows tasks, seeds and gathering.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engines.constants import STUDY_SEED
from engines.errors import InputError

__all__ = [
    "DEFAULT_TRIALS",
    "CheckTask",
    "Cluster",
    "SweepInterrupted",
    "SweepResult",
    "check_tasks",
    "execute",
    "run_check_task",
    "run_checks",
    "sensitivity",
    "sensitivity_figure",
    "sensitivity_plot",
    "sweep_knobs",
    "variant_names",
]

DEFAULT_TRIALS = 200_000


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep: the futures were cancelled and the cluster closed."""

    def __init__(self, done: int, total: int):
        super().__init__(f"interrupted: {done} of {total} tasks done; nothing written")
        self.done, self.total = done, total


@dataclass(frozen=True)
class CheckTask:
    """One cell of a sweep: a success-curve table of one system under one setting."""

    index: int  # position in the grid: names the random stream
    check: str
    system: str
    variants: tuple  # ((name, value), ...)
    axes: tuple  # ((axis, (values...)), ...)
    knobs: tuple = ()  # ((column, value), ...) swept values shown as columns
    competence: tuple = ()  # ((native value, rung), ...)
    contrast: tuple | None = None  # (a offsets, b offsets, tolerance)
    method: str = "exact"
    trials: int | None = None
    se: float | None = None
    batch: int = 20_000
    max_trials: int = 2_000_000
    seed: int = STUDY_SEED


def _stream(seed: int, index: int, arm: int, k: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(index, arm, k))


def _arm_table(task: CheckTask, axes: dict, arm: int):
    """Success table of one arm: exact p and/or Monte Carlo p, se, trials."""
    from analysis.checks.curves import build_grid, settings_exact, settings_mc, variants_for

    v = variants_for(task.system, dict(task.variants))
    grid = build_grid(task.system, v, axes)
    n_codes = grid.mask.shape[1]
    out = grid.cells.copy()
    if task.method in ("exact", "both"):
        probs = settings_exact(task.system, grid.settings, v, n_codes)
        out["p_exact"] = np.einsum("ij,ij->i", probs[grid.setting_of_cell], grid.mask)
    if task.method in ("mc", "both"):
        counts = np.zeros((grid.settings.size, n_codes), dtype=np.int64)
        n, k = 0, 0
        while True:
            size = (task.trials or DEFAULT_TRIALS) if task.se is None else task.batch
            counts += settings_mc(
                task.system, grid.settings, v, n_codes, size, _stream(task.seed, task.index, arm, k)
            )
            n += size
            k += 1
            hits = np.einsum("ij,ij->i", counts[grid.setting_of_cell], grid.mask)
            p = hits / n
            se = np.sqrt(p * (1 - p) / n)
            if task.se is None or se.max(initial=0) <= task.se or n >= task.max_trials:
                break
        out["p_mc"] = p
        out["se"] = se
        out["trials"] = n
    return out


def run_check_task(task: CheckTask):
    """The tidy table of one task (a pure function of the task: same task, same table)."""
    import pandas as pd

    axes = {k: list(v) for k, v in task.axes}
    base = _arm_table(task, axes, 0)
    primary = "p_exact" if task.method != "mc" else "p_mc"
    table = base.rename(
        columns={"p_exact": "p"}
        if task.method == "exact"
        else {"p_mc": "p"}
        if task.method == "mc"
        else {}
    )
    if task.method == "both":
        table["z"] = np.where(
            table["se"] > 0,
            (table["p_mc"] - table["p_exact"]) / np.maximum(table["se"], 1e-300),
            0.0,
        )
    if task.contrast is not None:
        a, b, tol = task.contrast
        arms = []
        for arm, offsets in ((1, dict(a)), (2, dict(b))):
            shifted = {k: [x + offsets.get(k, 0) for x in vals] for k, vals in axes.items()}
            arms.append(_arm_table(task, shifted, arm))
        table["p_a"] = arms[0][primary].to_numpy()
        table["p_b"] = arms[1][primary].to_numpy()
        table["delta"] = table["p_b"] - table["p_a"]
        if task.method == "mc":
            table["se_delta"] = np.sqrt(
                arms[0]["se"].to_numpy() ** 2 + arms[1]["se"].to_numpy() ** 2
            )
        table["holds"] = table["delta"].abs() <= tol
    lead = {"check": task.check, "system": task.system}
    lead.update({name: _show(value) for name, value in task.knobs})
    for i, (name, value) in enumerate(lead.items()):
        table.insert(i, name, value)
    if task.competence:
        names = dict(task.competence)
        from analysis.checks.curves import AXES

        comp_axis = next(iter(AXES[task.system]))
        table.insert(len(lead), "competence", table[comp_axis].map(names).fillna(""))
    return pd.DataFrame(table).reset_index(drop=True)


def _show(value: Any) -> str:
    return (
        "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


# --------------------------------------------------------------------------------------
# Building tasks from a scenario


def check_tasks(sc, *, sweep: bool = True) -> list[CheckTask]:
    """The scenario's check tasks: each check × each sweep grid point, in grid order."""
    from analysis.checks.curves import AXES
    from analysis.checks.ladders import load_competence_ladder

    ladder = load_competence_ladder()
    grid_names: list[tuple[str, str]] = []
    grid_values: list[list] = []
    if sweep and sc.sweep is not None:
        for name, values in sc.sweep.variants.items():
            grid_names.append(("variant", name))
            grid_values.append(list(values))
        for name, values in sc.sweep.axes.items():
            grid_names.append(("axis", name))
            grid_values.append(list(values))
    points = list(itertools.product(*grid_values)) if grid_names else [()]
    tasks = []
    index = 0
    for ci, check in enumerate(sc.checks):
        system = sc.check_system(check)
        base_vars = sc.check_variants(check)
        comp_axis = next(iter(AXES[system]))
        base_axes = {k: list(v) for k, v in AXES[system].items()}
        base_axes.update({k: list(v) for k, v in check.axes.items()})
        competence: tuple = ()
        if check.competence is not None:
            vals, labels = [], []
            for c in check.competence:
                value = ladder[system][c] if isinstance(c, str) else int(c)
                if value not in vals:
                    vals.append(value)
                    labels.append((value, c if isinstance(c, str) else ""))
            base_axes[comp_axis] = vals
            competence = tuple(labels)
        variant_fields = set(variant_names(system))
        for point in points:
            variants = dict(base_vars)
            axes = {k: list(v) for k, v in base_axes.items()}
            knobs = []
            for (kind, name), value in zip(grid_names, point, strict=True):
                if kind == "variant":
                    if name in variant_fields:  # other systems' checks leave it blank
                        variants[name] = value
                        knobs.append((name, value))
                elif name in axes:
                    axes[name] = [value]
            contrast = None
            if check.contrast is not None:
                contrast = (
                    tuple(sorted(check.contrast.a.items())),
                    tuple(sorted(check.contrast.b.items())),
                    check.contrast.tolerance,
                )
            tasks.append(
                CheckTask(
                    index=index,
                    check=sc.check_name(ci),
                    system=system,
                    variants=tuple(sorted(variants.items())),
                    axes=tuple((k, tuple(v)) for k, v in axes.items()),
                    knobs=tuple(knobs),
                    competence=competence,
                    contrast=contrast,
                    method=sc.method,
                    trials=sc.precision.trials,
                    se=sc.precision.se,
                    batch=sc.precision.batch,
                    max_trials=sc.precision.max_trials,
                    seed=sc.seed,
                )
            )
            index += 1
    return tasks


def variant_names(system: str) -> list[str]:
    """The names of ``system``'s check variants (any installed system, plug-ins too)."""
    import dataclasses

    from engines.system import get

    return [f.name for f in dataclasses.fields(get(system).checks.variants)]


# --------------------------------------------------------------------------------------
# Execution: in process or on Dask


@dataclass
class Cluster:
    """Where tasks run: ``workers=0`` in this process; else a Dask cluster.

    ``scheduler`` (``tcp://host:8786``) joins an existing cluster; ``client`` uses an
    open :class:`distributed.Client` (left open); otherwise a
    ``LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)`` is started
    for the run and closed after it.
    """

    workers: int = 0
    scheduler: str | None = None
    client: Any = None
    env: dict = field(default_factory=lambda: {"NUMBA_NUM_THREADS": "1"})

    def __post_init__(self) -> None:
        if self.client is None and not self.local:
            from analysis.package import require

            require(
                "dask",
                "--workers N or --scheduler (Dask workers; --workers 0 runs in this process)",
            )

    @property
    def local(self) -> bool:
        return self.workers == 0 and self.scheduler is None and self.client is None

    def where(self) -> str:
        """Where the tasks run, in words (for the start-of-sweep line on stderr)."""
        return (
            "in this process"
            if self.local
            else f"on {self.scheduler}"
            if self.scheduler
            else "on the given client"
            if self.client is not None
            else f"on {self.workers} local worker process(es)"
        )

    def connect(self):
        """A (client, cluster-or-None, owned) triple; the caller closes what it owns."""
        import logging

        from distributed import Client, LocalCluster

        if self.client is not None:
            return self.client, None, False
        if self.scheduler is not None:
            try:
                client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError(f"--scheduler: cannot reach {self.scheduler!r}: {exc}") from None
            return client, None, True
        env = {**self.env, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        cluster = LocalCluster(
            n_workers=self.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
            env=env,
        )
        return Client(cluster), cluster, True


def execute(
    tasks: Sequence,
    fn: Callable,
    cluster: Cluster | None = None,
    *,
    progress: bool | None = None,
    on_result: Callable | None = None,
) -> list:
    """Run ``fn(task)`` for every task; results in task order whatever the completion order.

    ``on_result(done, total, client)`` is called after each finished task (tests use it to
    kill a worker mid-run). Ctrl-C cancels what is left, closes the cluster and raises
    :class:`SweepInterrupted` saying how much was done.
    """
    from analysis.progress import bar
    from analysis.rules import bound

    cluster = cluster or Cluster()
    fn = bound(fn)  # the rules in force travel with each task
    total = len(tasks)
    results: list = [None] * total
    done = 0
    with bar(total, "tasks", disable=None if progress is None else not progress) as pbar:
        if cluster.local:
            try:
                for i, task in enumerate(tasks):
                    results[i] = fn(task)
                    done += 1
                    pbar.update(1)
                    if on_result is not None:
                        on_result(done, total, None)
            except KeyboardInterrupt:
                raise SweepInterrupted(done, total) from None
            return results
        from distributed import as_completed

        client = local_cluster = None
        owned = False
        futures = []
        try:
            client, local_cluster, owned = cluster.connect()
            import uuid

            run_id = uuid.uuid4().hex[:12]  # keys never collide across runs on one cluster
            futures = [
                client.submit(fn, task, key=f"rpg-balance-{run_id}-{i}", pure=False)
                for i, task in enumerate(tasks)
            ]
            position = {f.key: i for i, f in enumerate(futures)}
            for fut in as_completed(futures):
                results[position[fut.key]] = fut.result()
                done += 1
                pbar.update(1)
                if on_result is not None:
                    on_result(done, total, client)
        except KeyboardInterrupt:
            if client is not None and futures:
                client.cancel(futures)
            raise SweepInterrupted(done, total) from None
        finally:
            if owned and client is not None:
                client.close()
            if local_cluster is not None:
                local_cluster.close()
    return results


# --------------------------------------------------------------------------------------
# Results


@dataclass
class SweepResult:
    table: Any  # tidy DataFrame: one row per (task, cell)
    sensitivity: Any  # DataFrame: one row per (check, knob)
    tasks: int
    metric: str = "p"  # the column the sensitivity ranks by


def run_checks(
    sc,
    cluster: Cluster | None = None,
    *,
    sweep: bool = True,
    progress: bool | None = None,
    on_result: Callable | None = None,
    announce: bool = False,
) -> SweepResult:
    """Run every check task of a scenario (with its sweep grid) and gather the results."""
    import pandas as pd

    tasks = check_tasks(sc, sweep=sweep)
    if not tasks:
        raise InputError(f"{sc.source}: no [[checks]] to run")
    if announce:
        cluster = cluster or Cluster()
        print(f"sweep: {len(tasks)} tasks {cluster.where()}", file=sys.stderr, flush=True)
    tables = execute(tasks, run_check_task, cluster, progress=progress, on_result=on_result)
    table = _tidy(pd.concat(tables, ignore_index=True))
    knobs = sweep_knobs(sc, table) if sweep else []
    metric = "p" if "p" in table else "p_exact"
    if sc.sweep is not None and sc.sweep.metric != "p" and sc.sweep.metric in table:
        metric = sc.sweep.metric
    return SweepResult(table, sensitivity(table, knobs, metric), len(tasks), metric)


def _tidy(table):
    """Axis columns that gained NaN from other systems' checks stay whole numbers (Int64)."""
    from analysis.checks.curves import AXES

    axes = {a for system_axes in AXES.values() for a in system_axes}
    for col in table.columns:
        s = table[col]
        if col in axes and s.dtype.kind == "f" and s.isna().any():
            vals = s.dropna()
            if len(vals) and (vals == vals.round()).all():
                table[col] = s.astype("Int64")
    return table


def sweep_knobs(sc, table) -> list[str]:
    """Columns a sensitivity summary ranks: swept variants and axes, then varying axes."""
    names = []
    if sc.sweep is not None:
        names += list(sc.sweep.variants) + list(sc.sweep.axes)
    from analysis.checks.curves import AXES

    for check in sc.checks:
        for axis in AXES[sc.check_system(check)]:
            if axis in table and axis not in names:
                names.append(axis)
    return [n for n in names if n in table]


def sensitivity(table, knobs: Sequence[str], metric: str = "p", group: str = "check"):
    """Which knob moves the result most: the main-effect range of each knob, per check.

    For each knob, the metric is averaged over every other cell at each of the knob's
    levels; ``range`` = highest − lowest of those means. Knobs with one level are left
    out. Ranked per check (1 = moves the result most); ``group`` names the column that
    tells checks (or fights) apart, and the output keeps that name.
    """
    import pandas as pd

    rows = []
    for check, part in table.groupby(group, sort=False):
        for knob in knobs:
            sub = part.dropna(subset=[knob])
            if sub[knob].nunique() < 2:
                continue
            means = sub.groupby(knob, sort=False)[metric].mean()  # grid order
            rows.append(
                {
                    group: check,
                    "knob": knob,
                    "levels": int(means.size),
                    "low": float(means.min()),
                    "high": float(means.max()),
                    "at_low": str(means.idxmin()),
                    "at_high": str(means.idxmax()),
                    "range": float(means.max() - means.min()),
                }
            )
    out = pd.DataFrame(
        rows, columns=[group, "knob", "levels", "low", "high", "at_low", "at_high", "range"]
    )
    if len(out):
        out["rank"] = out.groupby(group)["range"].rank(ascending=False, method="first").astype(int)
        out = out.sort_values([group, "rank"], kind="stable").reset_index(drop=True)
    else:
        out["rank"] = pd.Series(dtype=int)
    return out


def sensitivity_figure(table, sens, metric: str = "p", group: str | None = None, inter=None):
    """The figure of :func:`sensitivity_plot` (returned, not written): every panel on one
    shared y axis, so a knob that moves the metric by 0.01 looks small next to one that
    moves it by 0.22. With ``inter`` (:func:`analysis.workflow.interactions.
    interaction_ranges` of the same sweep) each panel also draws, dashed, the knob's
    curve at each value of the knob it interacts with most, so a knob whose main effect
    is flat but whose effect depends on another shows it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    group = group or ("fight" if "fight" in sens and "check" not in sens else "check")
    checks = list(dict.fromkeys(sens[group])) or ["(none)"]
    ncols = max(1, int(sens.groupby(group).size().max())) if len(sens) else 1
    fig, axes = plt.subplots(
        len(checks), ncols, figsize=(3.2 * ncols, 2.8 * len(checks)), squeeze=False
    )
    used, lo, hi = [], math.inf, -math.inf
    for r, check in enumerate(checks):
        part = table[table[group] == check]
        knobs = sens[sens[group] == check]
        for c in range(ncols):
            ax = axes[r][c]
            if c >= len(knobs):
                ax.axis("off")
                continue
            row = knobs.iloc[c]
            means = part.groupby(row["knob"], sort=False)[metric].mean()
            values = means.to_numpy(dtype=float)
            ax.plot([str(x) for x in means.index], values, marker="o", label="mean")
            title = f"{check}: {row['knob']} (range {row['range']:.3f})"
            partner = _partner(inter, group, check, row["knob"])
            if partner is not None:
                cond = (
                    part.groupby([row["knob"], partner], sort=False)[metric]
                    .mean()
                    .unstack(partner)
                    .reindex(means.index)
                )
                for level in cond.columns:
                    ax.plot(
                        [str(x) for x in cond.index],
                        cond[level].to_numpy(dtype=float),
                        linestyle="--",
                        linewidth=0.8,
                        marker=".",
                        label=f"{partner}={level}",
                    )
                spread = (cond.max() - cond.min()).max()
                values = np.concatenate([values, cond.to_numpy(dtype=float).ravel()])
                title += f"\nup to {spread:.3f} at one {partner}"
                ax.legend(fontsize=6)
            ax.set_title(title, fontsize=8)
            ax.set_ylabel(f"mean {metric}", fontsize=8)
            ax.tick_params(labelsize=7)
            finite = values[np.isfinite(values)]
            if finite.size:
                lo, hi = min(lo, float(finite.min())), max(hi, float(finite.max()))
            used.append(ax)
    if used and math.isfinite(lo):
        pad = 0.05 * (hi - lo) if hi > lo else max(0.05 * abs(hi), 0.01)
        for ax in used:
            ax.set_ylim(lo - pad, hi + pad)
    fig.tight_layout()
    return fig


def _partner(inter, group: str, check, knob: str):
    """The knob that ``knob`` interacts with most in ``check`` (None when no table or
    no pair, or the strongest interaction is 0)."""
    if inter is None or not len(inter) or group not in inter:
        return None
    mine = inter[(inter[group] == check) & ((inter["knob_a"] == knob) | (inter["knob_b"] == knob))]
    if not len(mine):
        return None
    top = mine.loc[mine["interaction"].idxmax()]
    if not top["interaction"] > 1e-12:
        return None
    return top["knob_b"] if top["knob_a"] == knob else top["knob_a"]


def sensitivity_plot(
    table, sens, path, metric: str = "p", group: str | None = None, inter=None
) -> None:
    """One row of panels per check (or fight): the marginal mean of ``metric`` against
    each knob, panels ordered by how much the knob moves it, all on one shared y axis,
    with ``inter`` each knob's curves at the values of its strongest interaction partner
    (written atomically as PNG)."""
    import matplotlib.pyplot as plt

    from analysis.output import atomic_path

    fig = sensitivity_figure(table, sens, metric, group, inter)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=90)
    plt.close(fig)
