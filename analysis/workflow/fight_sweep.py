"""Fight sweeps and fight knobs: any knob of a duel swept over a grid, on Dask.

A *knob* names one thing a designer can change in a ``[[fights]]`` entry:

- ``a.KEY`` / ``b.KEY`` — a trait or gear of one fighter, through the archetype loader
  (:func:`analysis.combat.archetypes.combatant`): hit points / vitality / health traits
  (``d20_degrees`` ``hit_points``, ``dice_pool_7`` ``CON`` (A14), ``middle_3d10`` ``vigor``
  (B9), ``dice_pool_6`` ``stamina`` (C6), ``percentile`` ``con`` / ``siz``), ``weapon``,
  ``armour``, Toughness (``d20_degrees`` ``stamina`` + armour, E12), ``tactic`` or any
  other trait;
- ``both.KEY`` — the same change to both fighters (an even duel stays even);
- ``variant.NAME`` — a combat rule variant of the system's combat engine;
- ``rules.KIND.ENTRY.FIELD`` — a field of the system's rule tables
  (``rules.armour.heavy_archaic.ballistic``), and ``everyone.TRAIT`` — an offset to every
  fighter's trait (:mod:`analysis.rules`): each cell computes with the edit in force.

Reproducibility is the check sweep's (:mod:`analysis.workflow.sweep`): batch ``k`` of the cell at
grid position ``i`` draws from ``SeedSequence(seed, spawn_key=(FIGHT_STREAM + i, 0, k))``
whatever runs it, so tables are bit-identical in process, on any number of workers and
after a worker dies. Precision: ``precision.trials`` per cell in one batch, or batches of
``precision.batch`` until the standard error of the sweep's metric is at most
``precision.se`` (``max_trials`` caps it). Exact fights (``exact = true``) have SE 0.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.combat import fights as reg
from engines.constants import STUDY_SEED
from engines.errors import InputError

__all__ = [
    "DEFAULT_FIGHT_TRIALS",
    "FIGHT_STREAM",
    "KNOB_SIDES",
    "RULE_SIDES",
    "FightTask",
    "apply_knob",
    "fight_point",
    "fight_tasks",
    "knob_problems",
    "knob_rules",
    "parse_knob",
    "run_fight_sweep",
    "run_fight_task",
]

#: Trials per Monte Carlo fight cell when the scenario gives no precision.
DEFAULT_FIGHT_TRIALS = 20_000
#: Offset of fight cells' streams, so they never share one with a check task.
FIGHT_STREAM = 1_000_000
KNOB_SIDES = ("a", "b", "both", "variant")


#: knobs that edit the rules (analysis.rules): ``rules.KIND.ENTRY.FIELD``, ``everyone.TRAIT``
RULE_SIDES = ("rules", "everyone")


def parse_knob(key: str) -> tuple[str, str]:
    """``"a.hit_points"`` -> ``("a", "hit_points")``; an InputError for anything else."""
    side, _, name = str(key).partition(".")
    if side not in KNOB_SIDES + RULE_SIDES or not name:
        raise InputError(
            f"knob {key!r}: expected a.KEY, b.KEY, both.KEY, variant.NAME, "
            "rules.KIND.ENTRY.FIELD or everyone.TRAIT"
        )
    return side, name


def knob_rules(system: str, settings) -> tuple:
    """The rule sets to put in force for a fight of ``system`` under ``settings``
    (``(knob, value)`` pairs): the rules in force with each rule knob's edit added
    (:meth:`analysis.rules.RuleSet.with_knob`); empty when no knob is a rule knob. A
    rule knob of a table ``system`` does not have leaves it as it is."""
    from analysis.rules import RuleSet, active, is_rule_knob

    rs = None
    for key, value in settings:
        if not is_rule_knob(str(key)):
            continue
        base = rs or active(system) or RuleSet(system)
        try:
            rs = base.with_knob(str(key), value, "knob")
        except InputError:
            if str(key).startswith("rules.") and str(key).split(".")[1] not in base.tables():
                continue  # another system's table
            raise
    return (rs,) if rs is not None else ()


def apply_knob(a, b, variants: dict, key: str, value) -> tuple[Any, Any, dict]:
    """Fighter specs and combat variants with one knob set (inputs are not changed); a
    rule knob changes neither (:func:`knob_rules` gives the rules to put in force)."""
    side, name = parse_knob(key)
    a, b, variants = copy.deepcopy(a), copy.deepcopy(b), dict(variants)
    if side in ("a", "both"):
        a = reg.with_knob(a, name, value)
    if side in ("b", "both"):
        b = reg.with_knob(b, name, value)
    if side == "variant":
        variants[name] = value
    return a, b, variants


def fight_point(
    system: str,
    a,
    b,
    variants: dict,
    round_cap: int,
    metric: str,
    *,
    exact: bool,
    trials: int | None = None,
    se: float | None = None,
    batch: int = 20_000,
    max_trials: int = 2_000_000,
    stream: Callable[[int], np.random.SeedSequence] | None = None,
) -> dict:
    """Every metric of one duel (fighter specs ``a``, ``b``), as one table row.

    Columns: ``method``, ``trials`` (0 when exact), each :data:`analysis.combat.fights.METRICS`
    entry with its ``se_`` column, ``metric`` / ``se_metric`` for the requested metric
    (e.g. ``p_rounds_between:3:5``), the aftermath policy of the variants
    (``aftermath``), and the exact one-attack odds of ``a`` hitting an unhurt ``b``
    (``p_one_hit_incapacitate``, ``p_one_hit_kill``, ``p_one_hit_dead``,
    ``p_one_hit_dying``, ``p_one_hit_out``; SE 0; those the engine gives).
    """
    mod = reg.engine(system)
    v = reg.combat_variants(system, variants)
    fa, fb = reg.fighter(system, a), reg.fighter(system, b)
    row: dict[str, Any] = {}
    if reg.is_one_hit(metric):
        est = reg.one_hit_value(system, mod.one_hit(fa, fb, v), metric)
        return {"method": "exact", "trials": 0, "metric": est, "se_metric": 0.0}
    read = reg.metric(metric)
    if exact:
        if not hasattr(mod, "duel_exact"):
            raise InputError(f"{system}: no exact duel solver; use Monte Carlo")
        stats = mod.duel_exact(fa, fb, v, round_cap)
        row.update(method="exact", trials=0)
    else:
        from analysis.combat.lethality import merge_stats

        stream = stream or (lambda k: np.random.SeedSequence(0, spawn_key=(k,)))
        parts = []
        n = k = 0
        while True:
            size = (trials or DEFAULT_FIGHT_TRIALS) if se is None else batch
            parts.append(mod.duel_mc(fa, fb, size, stream(k), v, round_cap))
            n += size
            k += 1
            stats = parts[0] if len(parts) == 1 else merge_stats(parts)
            if se is None or read(stats)[1] <= se or n >= max_trials:
                break
        row.update(method="mc", trials=int(n))
    for name, fn in reg.METRICS.items():
        est, s = fn(stats)
        row[name] = est
        row[f"se_{name}"] = s
    est, s = read(stats)
    row["metric"], row["se_metric"] = est, s
    row["aftermath"] = str(getattr(v, "aftermath", "leave"))
    if hasattr(mod, "one_hit"):
        odds = mod.one_hit(fa, fb, v)
        for name, key in reg.ONE_HIT_METRICS.items():
            if name != "p_one_hit_hit" and key in odds:
                row[name] = float(odds[key])
    return row


@dataclass(frozen=True)
class FightTask:
    """One cell of a fight sweep: one duel under one setting of the swept knobs."""

    index: int  # grid position: names the random stream
    fight: str
    system: str
    a: Any  # fighter specs (archetype name or trait table)
    b: Any
    variants: tuple  # ((name, value), ...) combat variants
    round_cap: int
    knobs: tuple  # ((knob, value), ...) shown as columns
    metric: str = "p_side0"
    exact: bool = False
    trials: int | None = None
    se: float | None = None
    batch: int = 20_000
    max_trials: int = 2_000_000
    seed: int = STUDY_SEED
    rules: tuple = ()  # analysis.rules.RuleSet s in force for this cell


def run_fight_task(task: FightTask):
    """The one-row table of one fight cell (a pure function of the task)."""
    from analysis.rules import using

    with using(task.rules):
        return _run_fight_task(task)


def _run_fight_task(task: FightTask):
    import pandas as pd

    def stream(k: int) -> np.random.SeedSequence:
        return np.random.SeedSequence(task.seed, spawn_key=(FIGHT_STREAM + task.index, 0, k))

    row = fight_point(
        task.system,
        task.a,
        task.b,
        dict(task.variants),
        task.round_cap,
        task.metric,
        exact=task.exact,
        trials=task.trials,
        se=task.se,
        batch=task.batch,
        max_trials=task.max_trials,
        stream=stream,
    )
    lead = {"fight": task.fight, "system": task.system}
    lead.update({k: _show(v) for k, v in task.knobs})
    return pd.DataFrame([{**lead, **row}])


def _show(value: Any) -> str:
    return (
        "none" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    )


def fight_tasks(sc) -> list[FightTask]:
    """Every ``[[fights]]`` entry × every point of ``sweep.fights``, in grid order."""
    knobs = dict(sc.sweep.fights) if sc.sweep is not None else {}
    names, values = list(knobs), [list(v) for v in knobs.values()]
    points = list(itertools.product(*values)) if names else [()]
    metric = sc.sweep.fight_metric if sc.sweep is not None else "p_side0"
    tasks: list = []
    for fi, fight in enumerate(sc.fights):
        system = sc.check_system(fight)
        for point in points:
            a, b, variants = fight.a, fight.b, sc.check_variants(fight)
            for key, value in zip(names, point, strict=True):
                a, b, variants = apply_knob(a, b, variants, key, value)
            tasks.append(
                FightTask(
                    index=len(tasks),
                    fight=fight.name or f"fight{fi}",
                    system=system,
                    a=a,
                    b=b,
                    variants=tuple(sorted(variants.items())),
                    round_cap=fight.round_cap,
                    knobs=tuple(zip(names, point, strict=True)),
                    metric=metric,
                    exact=sc.fight_exact(fight),
                    trials=sc.precision.trials,
                    se=sc.precision.se,
                    batch=sc.precision.batch,
                    max_trials=sc.precision.max_trials,
                    seed=sc.seed,
                    rules=knob_rules(system, zip(names, point, strict=True)),
                )
            )
    return tasks


def run_fight_sweep(
    sc,
    cluster=None,
    *,
    progress: bool | None = None,
    on_result: Callable | None = None,
    announce: bool = False,
):
    """Run a scenario's fight sweep; a :class:`analysis.workflow.sweep.SweepResult` whose
    sensitivity ranks the swept knobs by how much they move the sweep's metric."""
    import sys

    import pandas as pd

    from analysis.workflow.sweep import Cluster, SweepResult, execute, sensitivity

    tasks = fight_tasks(sc)
    if not tasks:
        raise InputError(f"{sc.source}: no [[fights]] to sweep")
    if announce:
        cluster = cluster or Cluster()
        print(f"sweep: {len(tasks)} fight cells {cluster.where()}", file=sys.stderr, flush=True)
    rows = execute(tasks, run_fight_task, cluster, progress=progress, on_result=on_result)
    table = pd.concat(rows, ignore_index=True)
    knobs = [k for k in (sc.sweep.fights if sc.sweep is not None else {}) if k in table]
    return SweepResult(
        table, sensitivity(table, knobs, "metric", group="fight"), len(tasks), "metric"
    )


def knob_problems(sc, key: str, values: Sequence) -> list[str]:
    """Why some value of a swept knob cannot be built for the scenario's fights."""
    try:
        parse_knob(key)
    except InputError as exc:
        return [str(exc)]
    out: list[str] = []
    for fight in sc.fights:
        system = sc.check_system(fight)
        for value in values:
            from analysis.rules import using

            a, b, variants = apply_knob(fight.a, fight.b, sc.check_variants(fight), key, value)
            try:
                with using(knob_rules(system, [(key, value)])):
                    reg.combat_variants(system, variants)
                    reg.fighter(system, a)
                    reg.fighter(system, b)
            except InputError as exc:
                out.append(f"{value!r}: {exc}")
                break
    return out
