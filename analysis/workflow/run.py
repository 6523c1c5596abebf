"""Running a scenario end to end: checks, sweeps, solvers, fights, fight sweeps and
lethality solves; tables and plots out.

Everything is computed first and written last, each file atomically, so a failure
(bad input, Ctrl-C) leaves existing outputs byte-identical.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.workflow.scenario import Scenario
from analysis.workflow.sweep import Cluster, run_checks
from engines.errors import InputError

__all__ = [
    "EXTENSIONS",
    "Results",
    "check_output_dir",
    "curves_plot",
    "run_campaign_solve",
    "run_campaign_sweep",
    "run_campaigns",
    "run_fights",
    "run_lethality",
    "run_scenario",
    "write_results",
]

EXTENSIONS = {"csv": "csv", "json": "json", "markdown": "md", "parquet": "parquet"}


@dataclass
class Results:
    """The tables (name → DataFrame) and figures (name → callable(path)) of a run."""

    tables: dict[str, Any] = field(default_factory=dict)
    plots: dict[str, Any] = field(default_factory=dict)


def _solver_variants(sc: Scenario) -> dict[str, Any]:
    return {sc.system: dict(sc.variants)} if sc.system else {}


def run_fights(sc: Scenario):
    """One row per fight: outcome probabilities (with SE) from the system's combat engine,
    the fighters with their overrides and weapon (``a``, ``b``) and the aftermath policy
    behind the loser's fates (``aftermath``)."""
    import pandas as pd

    from analysis.combat import fights as reg
    from analysis.combat.lethality import aftermath_of, fighter_label

    rows = []
    for i, fight in enumerate(sc.fights):
        system = sc.check_system(fight)
        mod = reg.engine(system)
        variants = reg.combat_variants(system, sc.check_variants(fight))
        a, b = reg.fighter(system, fight.a), reg.fighter(system, fight.b)
        if sc.fight_exact(fight):
            stats = mod.duel_exact(a, b, variants=variants, round_cap=fight.round_cap)
        else:
            import numpy as np

            trials = sc.precision.trials or 100_000
            stats = mod.duel_mc(
                a,
                b,
                trials,
                np.random.SeedSequence(sc.seed, spawn_key=(10_000 + i,)),
                variants,
                fight.round_cap,
            )
        row = {
            "fight": fight.name or f"fight{i}",
            "system": system,
            "a": fighter_label(fight.a, built=a, system=system),
            "b": fighter_label(fight.b, built=b, system=system),
            "aftermath": aftermath_of(variants),
            "trials": stats.trials if stats.trials is not None else 0,
        }
        for name, read in reg.METRICS.items():
            est, se = read(stats)
            row[name] = est
            row[f"se_{name}"] = se
        rows.append(row)
    return pd.DataFrame(rows)


def curves_plot(table, path) -> None:
    """P(success) against the first axis, one line per value of the second, per check."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from analysis.checks.curves import AXES
    from analysis.output import atomic_path

    metric = "p" if "p" in table else "p_exact"
    checks = list(dict.fromkeys(table["check"]))
    fig, axes = plt.subplots(1, len(checks), figsize=(4.2 * len(checks), 3.2), squeeze=False)
    for ax, check in zip(axes[0], checks, strict=True):
        part = table[table["check"] == check]
        names = [a for a in AXES[part["system"].iloc[0]] if a in part]
        x = names[0]
        others = [a for a in names[1:] if part[a].nunique() > 1]
        groups = part.groupby(others, sort=False) if others else [((), part)]
        for n, (key, sub) in enumerate(groups):
            if n >= 8:  # keep the figure readable
                break
            label = ", ".join(
                f"{a}={v}"
                for a, v in zip(others, key if isinstance(key, tuple) else (key,), strict=True)
            )
            sub = sub.groupby(x, sort=True)[metric].mean()
            ax.plot(sub.index.astype(str), sub.to_numpy(), marker=".", label=label or None)
        ax.set_title(check, fontsize=9)
        ax.set_xlabel(x)
        ax.set_ylabel("P(success)")
        ax.set_ylim(-0.02, 1.02)
        if others:
            ax.legend(fontsize=6)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=90)
    plt.close(fig)


def run_scenario(
    sc: Scenario, cluster: Cluster | None = None, *, progress: bool | None = None
) -> Results:
    """Compute every table and plot the scenario asks for (nothing is written here)."""
    from analysis.workflow.interactions import result_interactions
    from analysis.workflow.solvers import competence_table, solve_difficulty
    from analysis.workflow.sweep import sensitivity_plot

    res = Results()
    wanted = sc.tables()
    checks = None
    if sc.checks and ("checks" in wanted or "curves" in sc.output.plots):
        checks = run_checks(sc, None, sweep=False, progress=progress).table
        if "checks" in wanted:
            res.tables["checks"] = checks
        if "curves" in sc.output.plots:
            res.plots["curves"] = lambda path, t=checks: curves_plot(t, path)
    if (
        sc.sweep is not None
        and sc.checks
        and (sc.sweep.variants or sc.sweep.axes)
        and (
            {"sweep", "sensitivity", "interactions"} & set(wanted)
            or "sensitivity" in sc.output.plots
        )
    ):
        result = run_checks(sc, cluster, sweep=True, progress=progress)
        inter = result_interactions(result)
        if "sweep" in wanted:
            res.tables["sweep"] = result.table
        if "sensitivity" in wanted:
            res.tables["sensitivity"] = result.sensitivity
        if "interactions" in wanted:
            res.tables["interactions"] = inter
        if "sensitivity" in sc.output.plots:
            res.plots["sensitivity"] = lambda path, r=result, i=inter: sensitivity_plot(
                r.table, r.sensitivity, path, r.metric, inter=i
            )
    # validated: a difficulty entry has its target and competence
    frames = [
        solve_difficulty(
            s.target,  # type: ignore[arg-type]
            s.competence,  # type: ignore[arg-type]
            s.systems,  # type: ignore[arg-type]
            _solver_variants(sc),
        )
        for s in sc.solve
        if s.kind == "difficulty"
    ]
    if frames and "difficulty" in wanted:
        import pandas as pd

        res.tables["difficulty"] = pd.concat(frames, ignore_index=True)
    frames = [
        competence_table(s.levels, s.systems, _solver_variants(sc))
        for s in sc.solve
        if s.kind == "competence"
    ]
    if frames and "competence" in wanted:
        import pandas as pd

        res.tables["competence"] = pd.concat(frames, ignore_index=True)
    if sc.fights and "fights" in wanted:
        res.tables["fights"] = run_fights(sc)
    if (
        sc.sweep is not None
        and sc.sweep.fights
        and sc.fights
        and (
            {"fight_sweep", "fight_sensitivity", "fight_interactions"} & set(wanted)
            or "fight_sensitivity" in sc.output.plots
        )
    ):
        from analysis.workflow.fight_sweep import run_fight_sweep

        result = run_fight_sweep(sc, cluster, progress=progress)
        inter = result_interactions(result)
        if "fight_sweep" in wanted:
            res.tables["fight_sweep"] = result.table
        if "fight_sensitivity" in wanted:
            res.tables["fight_sensitivity"] = result.sensitivity
        if "fight_interactions" in wanted:
            res.tables["fight_interactions"] = inter
        if "fight_sensitivity" in sc.output.plots:
            res.plots["fight_sensitivity"] = lambda path, r=result, i=inter: sensitivity_plot(
                r.table, r.sensitivity, path, r.metric, group="fight", inter=i
            )
    frames = [run_lethality(sc, s) for s in sc.solve if s.kind == "lethality"]
    if frames and "lethality" in wanted:
        import pandas as pd

        res.tables["lethality"] = pd.concat(frames, ignore_index=True)
    if sc.campaign and "campaign" in wanted:
        res.tables["campaign"] = run_campaigns(sc, progress=progress)
    frames = [run_campaign_solve(sc, s) for s in sc.solve if s.kind == "campaign"]
    if frames and "campaign_solve" in wanted:
        import pandas as pd

        res.tables["campaign_solve"] = pd.concat(frames, ignore_index=True)
    if sc.campaign and "campaign_sweep" in wanted:
        res.tables["campaign_sweep"] = run_campaign_sweep(sc, progress=progress)
    return res


def run_campaigns(sc: Scenario, *, progress: bool | None = None):
    """Every ``[[campaign]]`` entry: its summary rows (``table = "summary"``) and, when it
    has a threshold, its passage rows (``table = "passage"``), one frame. Monte Carlo
    entries draw from ``SeedSequence(seed, spawn_key=(20_000 + entry,))`` with
    ``precision.trials`` characters (default 20000)."""
    import numpy as np
    import pandas as pd

    from analysis import campaign as camp

    frames = []
    for i, c in enumerate(sc.campaign):
        method = c.method or sc.method
        stats = camp.run(
            sc.check_system(c),
            c.mechanic,
            c.params,
            sessions=c.sessions,
            threshold=c.threshold,
            method=method,
            trials=sc.precision.trials or camp.DEFAULT_TRIALS,
            seed=np.random.SeedSequence(sc.seed, spawn_key=(20_000 + i,)),
            variants=dict(c.variants),
            progress=progress,
        )
        kinds = ["summary"]
        if next(iter(stats.values())).passage is not None:
            kinds.append("passage")
        for kind in kinds:
            t = camp.table(stats, kind)
            t.insert(0, "table", kind)
            t.insert(0, "campaign", c.name or f"campaign{i}")
            t["session"] = t["session"].astype(str)
            t["params"] = "; ".join(f"{k}={v}" for k, v in c.params.items()) or "defaults"
            t["variants"] = "; ".join(f"{k}={v}" for k, v in c.variants.items()) or "defaults"
            frames.append(t)
    return pd.concat(frames, ignore_index=True)


def run_campaign_solve(sc: Scenario, s):
    """One ``[[solve]] kind = "campaign"`` entry: the evaluated knob values of
    :func:`analysis.campaign.solve_campaign` (exact chain) with a ``campaign`` column."""
    from analysis import campaign as camp
    from analysis.workflow.scenario import campaign_index

    i = campaign_index(sc, s.campaign)
    assert i is not None  # validated: the entry names a campaign of the file
    c = sc.campaign[i]
    _, table = camp.solve_campaign(
        sc.check_system(c),
        c.mechanic,
        s.knob,
        s.reach,
        c.sessions if s.sessions is None else s.sessions,
        c.params,
        variants=dict(c.variants),
        values=s.values,
        share=0.5 if s.target is None else s.target,
    )
    table.insert(0, "campaign", c.name or f"campaign{i}")
    return table


def run_campaign_sweep(sc: Scenario, *, progress: bool | None = None):
    """``sweep.campaign``: every [[campaign]] entry once per combination of the knobs it
    has (``param.NAME``, ``variant.NAME``, ``sessions``): its summary rows with one column
    per knob, and ``p_reached`` (P(the threshold is reached by that session)) when it has
    a threshold. Monte Carlo entries draw from ``SeedSequence(seed, spawn_key=(30_000 +
    entry, combination))``."""
    import itertools

    import numpy as np
    import pandas as pd

    from analysis import campaign as camp
    from analysis.workflow.scenario import campaign_knob

    frames = []
    assert sc.sweep is not None  # called for a file with a [sweep]
    for i, c in enumerate(sc.campaign):
        system = sc.check_system(c)
        knobs = [k for k in sc.sweep.campaign if campaign_knob(c, system, k)]
        if not knobs:
            continue
        grid = itertools.product(*(sc.sweep.campaign[k] for k in knobs))
        for j, combo in enumerate(grid):
            params, variants = dict(c.params), dict(c.variants)
            sessions: Any = c.sessions
            for knob, value in zip(knobs, combo, strict=True):
                kind, _, name = knob.partition(".")
                if knob == "sessions":
                    sessions = value
                elif kind == "param":
                    params[name] = value
                else:
                    variants[name] = value
            stats = camp.run(
                system,
                c.mechanic,
                params,
                sessions=sessions,
                threshold=c.threshold,
                method=c.method or sc.method,
                trials=sc.precision.trials or camp.DEFAULT_TRIALS,
                seed=np.random.SeedSequence(sc.seed, spawn_key=(30_000 + i, j)),
                variants=variants,
                progress=progress,
            )
            t = camp.table(stats, "summary")
            st = stats.get("exact") or stats["mc"]
            if st.passage is not None:
                t["p_reached"] = np.cumsum(st.passage_pmf()[:-1])
            t.insert(0, "campaign", c.name or f"campaign{i}")
            for pos, (knob, value) in enumerate(zip(knobs, combo, strict=True)):
                t.insert(1 + pos, knob, value)
            frames.append(t)
    return pd.concat(frames, ignore_index=True)


def run_lethality(sc: Scenario, s):
    """One ``[[solve]] kind = "lethality"`` entry: the searched rows of its fight knob."""
    from analysis.workflow.solvers import solve_lethality

    index = sc.fight_index(s.fight)
    assert index is not None  # validated: the entry names a fight of the file
    fight = sc.fights[index]
    mc = not sc.fight_exact(fight, default=sc.precision.trials is None and sc.precision.se is None)
    _, table = solve_lethality(
        sc.check_system(fight),
        fight.a,
        fight.b,
        s.knob,
        s.values,
        s.target,
        s.metric,
        goal=s.goal,
        increasing=s.increasing,
        z=s.z,
        exact=False if mc else None,
        trials=sc.precision.trials,
        se=sc.precision.se,
        seed=sc.seed,
        variants=sc.check_variants(fight),
        round_cap=fight.round_cap,
    )
    table.insert(0, "fight", fight.name or f"fight{sc.fight_index(s.fight)}")
    return table


def check_output_dir(out_dir: Path | None, fmt: str) -> None:
    """Fail before any work when the output cannot be written."""
    if out_dir is None:
        if fmt == "parquet":
            raise InputError("format parquet needs an output folder (-o DIR or output.dir)")
        return
    from analysis.output import check_folder

    check_folder(out_dir, "output")


def write_results(
    res: Results, fmt: str, out_dir: Path | None, stream=None, provenance: dict | None = None
) -> list[Path]:
    """Write every table (and plot) into ``out_dir``, or tables to ``stream`` when None;
    each table records ``provenance`` (:func:`analysis.output.with_provenance`)."""
    from analysis.output import render

    written: list[Path] = []
    if out_dir is None:
        stream = stream or sys.stdout
        many = len(res.tables) > 1
        for name, table in res.tables.items():
            if many:
                stream.write(f"# {name}\n")
            stream.write(render(table, fmt, provenance))
            if many:
                stream.write("\n")
        return written
    from contextlib import ExitStack

    from analysis.output import atomic_path

    created = not out_dir.exists()
    try:
        out_dir.mkdir(exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"output {str(out_dir)!r}: cannot create the folder ({exc.strerror})"
        ) from None
    try:
        # every table goes to a temporary file first; all are moved into place together
        # once every one (and every plot) is written, so a failure writes nothing
        with ExitStack() as stack:
            for name, table in res.tables.items():
                path = out_dir / f"{name}.{EXTENSIONS[fmt]}"
                data = render(table, fmt, provenance)
                tmp = stack.enter_context(atomic_path(path))
                if isinstance(data, bytes):
                    tmp.write_bytes(data)
                else:
                    tmp.write_text(data)
                written.append(path)
            for name, draw in res.plots.items():
                path = out_dir / f"{name}.png"
                draw(path)
                written.append(path)
    except BaseException:
        if created:
            import shutil

            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    return written
