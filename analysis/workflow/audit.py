"""Balance audit: guardrails a designer writes, findings the suite detects by itself,
and the one-knob change that would cure each failure.

Three pieces:

- **Guardrails** — ``[[guardrails]]`` entries of a scenario file (beside ``[[checks]]``,
  ``[[fights]]``, ``[[solve]]``): a ``name``, the ``fight`` or ``check`` entry measured
  (by name or position), a ``metric`` (every fight metric of
  :data:`analysis.combat.fights.METRIC_NAMES`, or ``p_success`` for a one-cell check)
  and ``min`` and/or ``max``. :func:`evaluate` measures each one exactly where the engines
  solve it (duels by their absorbing chains, one-attack odds, checks) and otherwise by
  Monte Carlo with the sample doubled batch by batch — batch ``k`` of guardrail ``g``
  draws from ``SeedSequence(seed, spawn_key=(AUDIT_STREAM, g, k))`` — until the verdict is
  decided at :data:`Z_DECIDE` standard errors or the cap is hit: then the status is
  ``undecided``, never a coin flip.
- **The cure** (:func:`suggest`) — for a failed guardrail, the smallest change of one
  knob (a hit-point trait, weapon, armour, a difficulty or competence axis, or a rule
  variant) that makes it pass, searched with :func:`analysis.workflow.solvers.solve_threshold`
  over the knob metrics of :func:`~analysis.workflow.solvers.fight_knob_metric` and
  :func:`~analysis.workflow.solvers.check_knob_metric`, and re-measured at the value found.
- **Discovery** (:func:`discover`) — findings without a guardrail: dominated weapons,
  armour and tactics over the whole ladder (:func:`dominated_options`), fights decided
  in one hit, the gap variants ranked by how far they move the even competent duel, and
  knobs whose effect depends on another (:func:`knob_interactions`, a small exact sweep
  per system, ``interaction_sweeps``). Thresholds live in the ``[discover]`` table of
  ``analysis/data/guardrails.toml``.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np

from analysis.text import N_, Text, join
from analysis.workflow.guardrails import _index
from engines.errors import InputError
from engines.system import get as system_of

DATA = Path(__file__).resolve().parent.parent / "data" / "guardrails.toml"
CROSS = Path(__file__).resolve().parent.parent / "data" / "cross_combat.toml"
#: a verdict counts as decided when the whole value ± Z_DECIDE·SE interval is on one side
Z_DECIDE = 3.0
#: stream offset of the audit's Monte Carlo batches (never shared with runs or sweeps)
AUDIT_STREAM = 3_000_000
COLUMNS = ("guardrail", "system", "metric", "value", "se", "min", "max", "status",
           "suggestion")

#: knob values searched on each side of the current value
SEARCH_STEPS = 8


# --------------------------------------------------------------------------------------
# Measuring one guardrail


def status_of(value: float, se: float, lo: float | None, hi: float | None,
              z: float = Z_DECIDE) -> str:
    """``pass`` / ``fail`` / ``undecided`` of ``value ± z·se`` against ``[lo, hi]``."""
    if value is None or not math.isfinite(value):
        return "undecided"
    eps = 1e-9  # exact values on a bound (0.8 vs max 0.8) count as inside
    if (lo is not None and value + z * se < lo - eps) \
            or (hi is not None and value - z * se > hi + eps):
        return "fail"
    if (lo is None or value - z * se >= lo - eps) and (hi is None or value + z * se <= hi + eps):
        return "pass"
    return "undecided"


@dataclasses.dataclass
class Target:
    """What a guardrail measures, resolved from the scenario."""

    kind: str            # "fight" | "check" | "campaign"
    system: str
    entry: Any           # the Fight or Check entry
    exact: bool
    variants: dict


def _target(sc, g) -> Target:
    if getattr(g, "campaign", None) is not None:
        c = sc.campaign[_index(sc.campaign, "campaign", g.campaign)]
        return Target("campaign", c.system or sc.system, c,
                      (c.method or sc.method) != "mc", dict(c.variants))
    if g.fight is not None:
        f = sc.fights[_index(sc.fights, "fight", g.fight)]
        return Target("fight", sc.check_system(f), f, sc.fight_exact(f, default=True),
                      sc.check_variants(f))
    c = sc.checks[_index(sc.checks, "check", g.check)]
    return Target("check", sc.check_system(c), c, True, sc.check_variants(c))


def check_cell(system: str, check) -> dict[str, Any]:
    """The one cell of a check entry as ``{axis: value}`` (competence names resolved)."""
    from analysis.checks.curves import AXES
    from analysis.workflow.solvers import competence_value

    cell = {k: v[0] for k, v in check.axes.items()}
    if check.competence:
        axis = _axes_of(system)[1] or next(iter(AXES[system]))
        cell[axis] = competence_value(system, check.competence[0])[1]
    return cell


def check_value(system: str, cell: dict, variants) -> float:
    from analysis.checks.curves import success_curves

    t = success_curves(system, "exact", axes={k: [v] for k, v in cell.items()},
                       variants=variants)
    return float(t["p"].mean())


def measure(sc, g, index: int, *, seed: int = 0, batch: int = 2_000,
            max_trials: int = 200_000) -> dict:
    """Value, SE, trials and status of guardrail ``g`` (position ``index``)."""
    t = _target(sc, g)
    if t.kind == "campaign":
        from analysis.campaign import DEFAULT_TRIALS, measure_campaign

        c = t.entry
        m = measure_campaign(t.system, c.mechanic, c.params, t.variants, g.metric,
                             method="exact" if t.exact else "mc",
                             trials=sc.precision.trials or DEFAULT_TRIALS,
                             seed=np.random.SeedSequence(seed, spawn_key=(AUDIT_STREAM,
                                                                          index)),
                             threshold=c.threshold)
        return {**m, "status": status_of(m["value"], m["se"], g.min, g.max)}
    if t.kind == "check":
        v = check_value(t.system, check_cell(t.system, t.entry), t.variants)
        return {"value": v, "se": 0.0, "trials": 0, "method": "exact",
                "status": status_of(v, 0.0, g.min, g.max)}
    from analysis.workflow.fight_sweep import fight_point

    f = t.entry
    if t.exact:
        row = fight_point(t.system, f.a, f.b, t.variants, f.round_cap, g.metric, exact=True)
        v = float(row["metric"])
        return {"value": v, "se": 0.0, "trials": 0, "method": "exact",
                "status": status_of(v, 0.0, g.min, g.max)}
    return _measure_mc(t, g, index, seed, batch, max_trials)


def _measure_mc(t: Target, g, index: int, seed: int, batch: int, max_trials: int) -> dict:
    """Doubling Monte Carlo batches until decided at Z_DECIDE SE or ``max_trials``."""
    from analysis.combat import fights as reg
    from analysis.combat.lethality import merge_stats

    f = t.entry
    if reg.is_one_hit(g.metric):  # one-attack odds are always exact
        from analysis.workflow.fight_sweep import fight_point

        row = fight_point(t.system, f.a, f.b, t.variants, f.round_cap, g.metric, exact=False)
        v = float(row["metric"])
        return {"value": v, "se": 0.0, "trials": 0, "method": "exact",
                "status": status_of(v, 0.0, g.min, g.max)}
    mod = reg.engine(t.system)
    v = reg.combat_variants(t.system, t.variants)
    fa, fb = reg.fighter(t.system, f.a), reg.fighter(t.system, f.b)
    read = reg.metric(g.metric)
    parts, n, k = [], 0, 0
    while True:
        size = min(batch * 2 ** k, max_trials - n) if max_trials > n else 0
        if size <= 0:
            break
        ss = np.random.SeedSequence(seed, spawn_key=(AUDIT_STREAM, index, k))
        parts.append(mod.duel_mc(fa, fb, size, ss, v, f.round_cap))
        n += size
        k += 1
        stats = parts[0] if len(parts) == 1 else merge_stats(parts)
        est, se = read(stats)
        status = status_of(est, se, g.min, g.max)
        if status != "undecided":
            break
    return {"value": float(est), "se": float(se), "trials": n, "method": "mc",
            "status": status}


# --------------------------------------------------------------------------------------
# The cure: the smallest one-knob change that makes a failed guardrail pass


def _fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.3g}"
    return str(x)


def _plain(x):
    """A knob value as a template field: floats as :func:`_fmt` shows them (so the text
    reads the same in every language), other values as they are."""
    return _fmt(x) if isinstance(x, float) else x


def _find(data, key: str):
    """The first value under ``key`` in nested mappings (None when absent)."""
    if isinstance(data, dict):
        if key in data:
            return data[key]
        for v in data.values():
            found = _find(v, key)
            if found is not None:
                return found
    return None


def _current(system: str, spec, key: str):
    """The current value of trait ``key`` of a fighter spec (None when unknown)."""
    from analysis.combat import archetypes

    if isinstance(spec, dict) and key in spec:
        return spec[key]
    name = spec if isinstance(spec, str) else spec.get("archetype")
    model = archetypes.library(system).get(name) if name is not None else None
    if model is None:
        return None
    if hasattr(model, key):
        val = getattr(model, key)
    elif hasattr(model, "model_dump"):
        val = _find(model.model_dump(), key)
    else:
        val = None
    return val.item() if isinstance(val, np.generic) else val


def _armour_of(system: str, spec, choices: list):
    """The armour a fighter spec wears, as one of ``choices`` (None when unknown)."""
    val = _current(system, spec, "armour")
    for cand in (val, getattr(val, "name", None), getattr(val, "points", None)):
        if cand is not None and cand in choices:
            return cand
    from analysis.combat import archetypes

    # gear stored by value (d20_degrees): the data file's entry with the same fields
    table = archetypes._read(system, None)[1].get("armour", {})
    for name, entry in table.items():
        if isinstance(entry, dict) and entry and all(getattr(val, k, None) == v
                                                     for k, v in entry.items()):
            return name
    return None


def _fight_knobs(system: str, f, variants: dict) -> list[tuple[str, Any, list, bool]]:
    """``(knob, current, values, numeric)`` candidates for a fight guardrail."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg
    from analysis.combat.lethality import gear_name

    out = []
    trait = system_of(system).health_trait
    cur_a, cur_b = ((_current(system, f.a, trait), _current(system, f.b, trait)) if trait
                    else (None, None))
    if isinstance(cur_a, int) and cur_a == cur_b:
        out.append((f"both.{trait}", cur_a, None, True))
    for side, _spec, cur in (("a", f.a, cur_a), ("b", f.b, cur_b)):
        if isinstance(cur, int) and cur_a != cur_b:
            out.append((f"{side}.{trait}", cur, None, True))
    built = reg.fighter(system, f.a)
    out.append(("a.weapon", gear_name(built), archetypes.weapons(system), False))
    arm = archetypes.armours(system)
    if arm:
        out.append(("both.armour", _armour_of(system, f.a, arm), arm, False))
    v = reg.combat_variants(system, variants)
    for fl in dataclasses.fields(v):
        choices = fl.metadata.get("choices")
        if fl.name == "aftermath":
            continue
        if isinstance(fl.default, bool):
            choices = (True, False)
        if not choices or len(choices) > 6:
            continue
        out.append((f"variant.{fl.name}", getattr(v, fl.name), list(choices), False))
    return out


def _axes_of(system: str) -> tuple[str | None, str | None]:
    """``(difficulty axis, competence axis)`` of a system, from the ladder hook it
    declares (``difficulty_axis``, ``competence_axis``; None when it declares none)."""
    spec = system_of(system)
    return spec.difficulty_axis, spec.competence_axis


def _check_metric(system: str, axis: str, fixed: dict, variants):
    """P(success) of a check as one axis varies (exact): the solvers' knob metric, read
    off the system's exact success curve."""
    from analysis.workflow.solvers import check_knob_metric

    return check_knob_metric(system, axis, fixed, variants=variants)


def _check_knobs(system: str, cell: dict) -> list[tuple[str, Any, list, bool]]:
    from analysis.checks.curves import AXES

    out = []
    for axis in _axes_of(system):
        if axis not in cell:
            continue
        values = list(AXES[system][axis])
        numeric = all(isinstance(x, int) for x in values)
        out.append((axis, cell[axis], values, numeric))
    return out


def _directional(read, values: list, cur, lo, hi, violated: str, steps: int | None = None):
    """The nearest value on each side of ``cur`` that passes, via solve_threshold
    (``steps``: how many values each way; all when None)."""
    from analysis.workflow.solvers import solve_threshold

    target = lo if violated == "min" else hi
    goal = "at_least" if violated == "min" else "at_most"
    found = []
    up = [x for x in values if x > cur]
    down = [x for x in values if x < cur]
    if steps is not None:
        up, down = up[:steps], down[max(len(down) - steps, 0):]
    for _side, vals, increasing in (("up", up, violated == "min"),
                                   ("down", down, violated != "min")):
        if not vals:
            continue
        res = solve_threshold(read, vals, target, goal=goal, increasing=increasing,
                              z=Z_DECIDE)
        if res.found:
            est, se = read(res.knob)
            if status_of(est, se, lo, hi) == "pass":
                found.append((abs(values.index(res.knob) - values.index(cur)), res.knob,
                              est, se))
    return found


def suggest(sc, g, measured: dict) -> str:
    """The smallest single-knob change that makes failed guardrail ``g`` pass, as text
    (``both.vigor 4 → 6 gives rounds_mean 3.1``), or why none was found."""
    from analysis.workflow.solvers import fight_knob_metric

    t = _target(sc, g)
    if t.kind == "campaign":
        return ("no one-knob search for campaign guardrails; [[solve]] kind = 'campaign' "
                "finds the knob value for a target")
    violated = "min" if g.min is not None and measured["value"] < g.min else "max"
    cands: list[tuple[int, int, str, Any, Any, float, float]] = []
    tried: list[str] = []
    if t.kind == "fight":
        f = t.entry
        knobs = _fight_knobs(t.system, f, t.variants)
        for order, (knob, cur, values, numeric) in enumerate(knobs):
            read = _cached(fight_knob_metric(
                t.system, f.a, f.b, knob, g.metric, variants=t.variants,
                round_cap=f.round_cap, exact=None if t.exact else False,
                trials=None if t.exact else 20_000, seed=sc.seed))
            if numeric:
                values = _valid(t.system, f, t.variants, knob,
                                range(0, 2 * max(cur, 1) + SEARCH_STEPS + 1))
                tried.append(f"{knob} {values[0]}–{values[-1]}")
                for steps, val, est, se in _directional(read, values, cur, g.min, g.max,
                                                        violated, SEARCH_STEPS + cur):
                    cands.append((steps, order, knob, cur, val, est, se))
            else:
                tried.append(knob)
                for val in _valid(t.system, f, t.variants, knob, values):
                    if val == cur or (cur is None and knob.endswith("armour")
                                      and val in (0, "none")):
                        continue
                    est, se = read(val)
                    if status_of(est, se, g.min, g.max) == "pass":
                        cands.append((1, order, knob, cur, val, est, se))
                        break
    else:
        cell = check_cell(t.system, t.entry)
        for order, (axis, cur, values, numeric) in enumerate(_check_knobs(t.system, cell)):
            fixed = {k: v for k, v in cell.items() if k != axis}
            read = _cached(_check_metric(t.system, axis, fixed, t.variants))
            tried.append(f"{axis} {values[0]}–{values[-1]}")
            if numeric:
                for steps, val, est, se in _directional(read, values, cur, g.min, g.max,
                                                        violated):
                    cands.append((steps, order, axis, cur, val, est, se))
            else:
                for val in values:
                    if val != cur:
                        est, se = read(val)
                        if status_of(est, se, g.min, g.max) == "pass":
                            cands.append((abs(values.index(val) - values.index(cur)), order,
                                          axis, cur, val, est, se))
    if not cands:
        return Text(N_("no single knob cures it (searched {searched})"),
                    searched=", ".join(tried))
    steps, _, knob, cur, val, est, se = min(cands, key=lambda c: (c[0], c[1]))
    fields = {"knob": knob, "current": "?" if cur is None else _plain(cur),
              "value": _plain(val), "metric": g.metric, "estimate": est}
    if se:
        return Text(N_("{knob} {current} → {value} gives {metric} {estimate:.3g} ± {se:.3g}"),
                    se=se, **fields)
    return Text(N_("{knob} {current} → {value} gives {metric} {estimate:.3g}"), **fields)


def _valid(system: str, f, variants: dict, knob: str, values) -> list:
    """The knob values the data files' validation accepts (e.g. vigor 1..10)."""
    from analysis.combat import fights as reg
    from analysis.workflow.fight_sweep import apply_knob

    out = []
    for value in values:
        try:
            a, b, v = apply_knob(f.a, f.b, variants, knob, value)
            reg.fighter(system, a)
            reg.fighter(system, b)
            reg.combat_variants(system, v)
        except InputError:
            continue
        out.append(value)
    return out


def _cached(read):
    memo: dict = {}

    def inner(value):
        key = repr(value)
        if key not in memo:
            memo[key] = read(value)
        return memo[key]

    return inner


# --------------------------------------------------------------------------------------
# Running an audit


def load_guardrails(paths: list[str | Path] | None = None):
    """The scenarios to audit (the shipped default set when ``paths`` is empty)."""
    from analysis.workflow.scenario import load_scenario

    paths = list(paths or [DATA])
    out, problems = [], []
    for p in paths:
        try:
            sc = load_scenario(p)
        except InputError as exc:
            problems.append(str(exc))
            continue
        if not sc.guardrails:
            problems.append(f"{Path(p).name}: no [[guardrails]] entries to audit")
        out.append(sc)
    if problems:
        raise InputError(problems[0] if len(problems) == 1 else
                         f"{len(problems)} files with problems\n  " + "\n  ".join(problems))
    return out


def evaluate(scenarios, *, seed: int | None = None, batch: int = 2_000,
             max_trials: int = 200_000, suggestions: bool = True,
             progress: bool | None = None):
    """One row per guardrail: :data:`COLUMNS` plus ``reason``, ``solved`` (exact | mc),
    ``trials`` (0 when exact) and ``file``."""
    import pandas as pd

    from analysis.progress import bar

    total = sum(len(sc.guardrails) for sc in scenarios)
    rows = []
    with bar(total, "audit", disable=None if progress is None else not progress) as pb:
        for sc in scenarios:
            for i, g in enumerate(sc.guardrails):
                m = measure(sc, g, i, seed=sc.seed if seed is None else seed, batch=batch,
                            max_trials=max_trials)
                suggestion = ""
                if m["status"] == "fail" and suggestions:
                    suggestion = suggest(sc, g, m)
                rows.append({"guardrail": g.name, "system": _target(sc, g).system,
                             "metric": g.metric, "value": m["value"], "se": m["se"],
                             "min": g.min, "max": g.max, "status": m["status"],
                             "suggestion": suggestion, "reason": g.reason,
                             "solved": m["method"], "trials": m["trials"],
                             "file": Path(sc.source).name})
                pb.update(1)
    out = pd.DataFrame(rows, columns=[*COLUMNS, "reason", "solved", "trials", "file"])
    for col in ("min", "max"):
        out[col] = out[col].astype("Float64")
    return out


# --------------------------------------------------------------------------------------
# What-if: one knob changed, and the guardrails whose status flips


def restrict(scenarios, systems: list[str] | None):
    """The scenarios with only the guardrails measuring one of ``systems`` (all when None;
    a scenario left with none is dropped)."""
    if systems is None:
        return list(scenarios)
    from engines.system import registry

    installed = list(registry())
    unknown = sorted(set(systems) - set(installed))
    if unknown:
        raise InputError(f"systems: unknown {unknown[0]!r}; known: {', '.join(installed)}")
    out = []
    for sc in scenarios:
        kept = [g for g in sc.guardrails if _target(sc, g).system in systems]
        if kept:
            out.append(sc.model_copy(update={"guardrails": kept}))
    return out


def knob_options(scenarios, system: str, *, span: int = 4) -> dict[str, tuple[Any, list]]:
    """``{knob: (current, values)}`` a designer can change for the fight guardrails of
    ``system`` (the first such fight gives the current value; numeric knobs range
    ``span`` steps around it), keeping only values the data files accept."""
    for sc in scenarios:
        for g in sc.guardrails:
            t = _target(sc, g)
            if t.kind != "fight" or t.system != system:
                continue
            out = {}
            for knob, cur, values, numeric in _fight_knobs(system, t.entry, t.variants):
                if cur is None:
                    continue
                if numeric:
                    values = range(cur - span, cur + span + 1)
                values = _valid(system, t.entry, t.variants, knob, values)
                if cur in values and len(values) > 1:
                    out[knob] = (cur, values)
            return out
    raise InputError(f"system {system!r}: no fight guardrail to change a knob of")


def with_knob(scenarios, system: str, knob: str, value):
    """The scenarios with ``knob`` (``both.vigor``, ``a.weapon``, ``variant.<name>`` …, as
    :func:`analysis.workflow.fight_sweep.apply_knob`) set to ``value`` in every fight of
    ``system``; other fights and every check are unchanged (inputs are not modified)."""
    from analysis.workflow.fight_sweep import apply_knob

    out = []
    for sc in scenarios:
        fights = []
        for f in sc.fights:
            if sc.check_system(f) == system:
                a, b, v = apply_knob(f.a, f.b, dict(f.variants), knob, value)
                f = f.model_copy(update={"a": a, "b": b, "variants": v})
            fights.append(f)
        out.append(sc.model_copy(update={"fights": fights}))
    return out


def rerun(scenarios, system: str, knob: str, value, **kwargs):
    """:func:`evaluate` of the scenarios with one knob changed (no cure search unless
    ``suggestions=True`` is passed)."""
    kwargs.setdefault("suggestions", False)
    return evaluate(with_knob(scenarios, system, knob, value), **kwargs)


def flips(before, after):
    """The guardrails whose status differs between two :func:`evaluate` tables (matched
    by ``file`` and ``guardrail`` when both have ``file``, else by ``guardrail``): one row
    each with ``system``, ``metric``, ``value_before``, ``value_after``, ``status_before``,
    ``status_after`` and ``change`` (``pass → fail``); a guardrail in only one table is
    not a flip."""
    keys = ["file", "guardrail"] if "file" in before and "file" in after else ["guardrail"]
    m = before.merge(after[[*keys, "value", "status"]], on=keys, suffixes=("_before",
                                                                          "_after"))
    m = m[m["status_before"] != m["status_after"]].copy()
    m["change"] = m["status_before"] + " → " + m["status_after"]
    cols = ["guardrail", "system", "metric", "value_before", "value_after",
            "status_before", "status_after", "change"]
    return m[cols].reset_index(drop=True)


def _bound(x) -> str:
    import pandas as pd

    return "" if x is None or pd.isna(x) else f"{float(x):g}"


def junit_xml(table, suite: str = "rpg-balance audit") -> str:
    """JUnit XML: one testcase per guardrail; ``failure`` for fail, ``skipped`` for
    undecided."""
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuite", name=suite, tests=str(len(table)),
                      failures=str(int((table["status"] == "fail").sum())),
                      skipped=str(int((table["status"] == "undecided").sum())), errors="0")
    for r in table.itertuples(index=False):
        case = ET.SubElement(root, "testcase", classname=f"{r.file}.{r.system}",
                             name=r.guardrail)
        bounds = f"[{_bound(r.min)}, {_bound(r.max)}]"
        text = f"{r.metric} = {r.value:.6g} ± {r.se:.3g}, wanted {bounds}"
        if r.status == "fail":
            el = ET.SubElement(case, "failure", message=text)
            el.text = f"{text}\nreason: {r.reason}\nsuggestion: {r.suggestion}"
        elif r.status == "undecided":
            ET.SubElement(case, "skipped", message=f"undecided at {Z_DECIDE:g} SE: {text}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


# --------------------------------------------------------------------------------------
# Discovery: findings without a guardrail


DEFAULT_DISCOVER = {
    "systems": None,          # every installed system: the built-ins, then plug-ins
    "attacker": "competent",
    "opponents": ["novice", "competent", "expert"],
    "dominance_z": 2.0,
    "dominance_mc": None,     # None: the systems whose System.duel_search is "mc"
    "dominance_trials": 8_000,
    "dominated_high": 0.10,
    "one_hit_incapacitate": 0.5,
    "one_hit_high": 0.8,
    "one_round_duel": 0.5,
    "variant_medium": 0.05,
    "variant_high": 0.15,
    "interaction_ratio": 2.0,
    "interaction_min": 0.05,
    "interaction_high": 0.15,
    # None: each system's own (``System.interaction_sweep``); a mapping replaces them all
    "interaction_sweeps": None,
}


def _ladder_specs() -> dict:
    from analysis.toml_input import read_toml

    return read_toml(CROSS, "cross-combat file").get("ladder", {})


#: stream offset of the Monte Carlo duels of the dominance search
DOMINANCE_STREAM = 3_100_000


def _duel_mc(system, a, b, trials: int, ss, data=None):
    """Monte Carlo duel of fighter specs (default variants, round cap 50)."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    mod = reg.engine(system)
    v = reg.combat_variants(system, {})
    return mod.duel_mc(archetypes.combatant(system, a, path=data),
                       archetypes.combatant(system, b, path=data), trials, ss, v, 50)


def _duel(system, a, b, data=None, variants=None):
    """Exact duel of fighter specs (``data``: the system's archetype library file)."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    mod = reg.engine(system)
    v = reg.combat_variants(system, variants or {})
    fa = archetypes.combatant(system, a, path=data)
    fb = archetypes.combatant(system, b, path=data)
    return mod.duel_exact(fa, fb, v, 50)


#: the option kinds searched for domination, with the override key each one sets
OPTION_KINDS = ("weapon", "armour", "tactic")


def _options(system: str, kind: str, data=None) -> list:
    from analysis.combat import archetypes

    if kind == "weapon":
        return archetypes.weapons(system, data)
    if kind == "armour":
        return archetypes.armours(system, data)
    return archetypes.tactics(system)


def _matchups(ladder: dict, cfg: dict) -> list[tuple[str, str, int]]:
    """``(holder rung, opponent rung, holder's side)`` for every rung of the ladder as
    side 0 and side 1 against every rung; the attacker-vs-opponents matchups first (they
    settle most pairs early)."""
    rungs = list(ladder)
    first = [(cfg["attacker"], r, 0) for r in cfg["opponents"]
             if cfg["attacker"] in ladder and r in ladder]
    rest = [(h, o, side) for h in rungs for o in rungs for side in (0, 1)]
    return first + [m for m in rest if m not in first]


def dominated_options(system: str, cfg: dict, kind: str = "weapon", data=None,
                      ladder=None) -> list[dict]:
    """Options of one ``kind`` (weapon, armour or tactic) never better than another of
    the system in any ladder matchup — every rung holding the option against every rung,
    as side 0 and as side 1 — beyond ``dominance_z`` SE (exact duels have SE 0), and
    strictly worse in at least one.

    Pairs are settled lazily: each matchup is solved only for options still in a
    candidate pair, and a pair is dropped at the first matchup where the dominated one
    is better. Systems listed in ``dominance_mc`` (those whose exact duels are slow) play
    ``dominance_trials`` Monte Carlo fights per matchup instead, matchup ``m`` drawing
    from ``SeedSequence(0, spawn_key=(DOMINANCE_STREAM, m))`` for every option."""
    from analysis.combat import fights as reg

    ladder = ladder or _ladder_specs()[system]
    names = _options(system, kind, data)
    if len(names) < 2:
        return []
    matchups = _matchups(ladder, cfg)
    z = cfg["dominance_z"]
    cache: dict = {}
    wins = (reg.METRICS["p_side0"], reg.METRICS["p_side1"])
    mc_systems = cfg.get("dominance_mc")
    mc = (system in mc_systems if mc_systems is not None
          else system_of(system).duel_search == "mc")

    def p(i: int, m: int):
        key = (i, m)
        if key not in cache:
            holder, opp, side = matchups[m]
            mine = {**ladder[holder], kind: names[i]}
            pair = (mine, ladder[opp]) if side == 0 else (ladder[opp], mine)
            try:
                if mc:
                    ss = np.random.SeedSequence(0, spawn_key=(DOMINANCE_STREAM, m))
                    stats = _duel_mc(system, *pair, cfg["dominance_trials"], ss, data)
                else:
                    stats = _duel(system, *pair, data)
                cache[key] = wins[side](stats)
            except InputError:                # the option cannot be built here
                cache[key] = None
        return cache[key]

    # candidate (dominated, dominating) pairs with their per-matchup gaps
    cands = {(i, k): [] for i in range(len(names)) for k in range(len(names)) if i != k}
    for m in range(len(matchups)):
        if not cands:
            break
        for (i, k) in list(cands):
            pi, pk = p(i, m), p(k, m)
            if pi is None or pk is None:
                del cands[(i, k)]
                continue
            sd = math.hypot(pi[1], pk[1])
            gap = pk[0] - pi[0]
            if gap < -z * sd - 1e-12:       # i better than k here: not dominated by k
                del cands[(i, k)]
            else:
                cands[(i, k)].append((gap, sd, m, pi[0], pk[0]))
    out = []
    for i, name in enumerate(names):
        by = [(k, gaps) for (j, k), gaps in cands.items()
              if j == i and any(g > z * sd + 1e-9 for g, sd, *_ in gaps)]
        if not by:
            continue
        k, gaps = max(by, key=lambda kg: max(g for g, *_ in kg[1]))
        gap, sd, m, pi, pk = max(gaps, key=lambda g: g[0])
        holder, opp, side = matchups[m]
        where = (Text(N_("{holder} with it as side 0 vs {opponent}"), holder=Text(holder),
                      opponent=Text(opp)) if side == 0 else
                 Text(N_("{opponent} vs {holder} with it as side 1"), holder=Text(holder),
                      opponent=Text(opp)))
        out.append({"kind": f"dominated_{kind}", "system": system, "subject": str(name),
                    "detail": Text(N_(
                        "{kind} {name} is never better than {other} in {n} matchups "
                        "(every rung holding it against every rung of {rungs}, as side 0 "
                        "and side 1); largest gap, {where}: P(win) {p:.3f} vs {p_other:.3f}"),
                        kind=Text(kind), name=str(name), other=str(names[k]),
                        n=len(matchups), rungs=join(", ", (Text(r) for r in ladder)),
                        where=where, p=pi, p_other=pk),
                    "value": float(gap), "se": float(sd),
                    "by": ", ".join(str(names[kk]) for kk, _ in by),
                    "severity": "high" if gap >= cfg["dominated_high"] else "medium"})
    return out


def dominated_weapons(system: str, cfg: dict, data=None, ladder=None) -> list[dict]:
    """Weapons never better than another of the system in any ladder matchup
    (:func:`dominated_options` of kind ``weapon``)."""
    return dominated_options(system, cfg, "weapon", data, ladder)


def dominated_gear(system: str, cfg: dict, ladder=None) -> list[dict]:
    """Dominated weapons, armour and tactics of the system (:func:`dominated_options`)."""
    out = []
    for kind in OPTION_KINDS:
        out += dominated_options(system, cfg, kind, ladder=ladder)
    return out


def one_hit_fights(system: str, cfg: dict, ladder=None) -> list[dict]:
    """Weapons whose single plain attack drops an unhurt equal too often, and even
    duels mostly over in the first round."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    ladder = ladder or _ladder_specs()[system]
    base = dict(ladder[cfg["attacker"]])
    mod = reg.engine(system)
    v = reg.combat_variants(system, {})
    target = archetypes.combatant(system, base)
    out = []
    for w in archetypes.weapons(system):
        odds = mod.one_hit(archetypes.combatant(system, {**base, "weapon": w}), target, v)
        p = float(odds["p_incapacitate"])
        if p >= cfg["one_hit_incapacitate"]:
            out.append({"kind": "one_hit", "system": system, "subject": w,
                        "detail": Text(N_("one {weapon} attack by a {attacker} fighter "
                                          "drops an unhurt equal with P {p:.3f} (kills "
                                          "{p_kill:.3f})"), weapon=w,
                                       attacker=Text(cfg["attacker"]), p=p,
                                       p_kill=odds["p_kill"]),
                        "value": p, "se": 0.0,
                        "severity": "high" if p >= cfg["one_hit_high"] else "medium"})
    stats = _duel(system, base, base)
    p1, s1 = reg.metric("p_rounds_between:1:1")(stats)
    if p1 >= cfg["one_round_duel"]:
        out.append({"kind": "one_hit", "system": system, "subject": "even duel",
                    "detail": Text(N_("an even {attacker} duel ends in round 1 with P "
                                      "{p:.3f}"), attacker=Text(cfg["attacker"]), p=p1),
                    "value": p1, "se": s1,
                    "severity": "high" if p1 >= cfg["one_hit_high"] else "medium"})
    return out


def gap_variants(system: str, cfg: dict, ladder=None) -> list[dict]:
    """Every non-default choice of each gap variant (rule id ``X-gN``) of the combat
    engine, with how far it moves the even duel's P(side0), mean rounds and
    P(loser dead)."""
    from analysis.combat import fights as reg

    ladder = ladder or _ladder_specs()[system]
    base = dict(ladder[cfg["attacker"]])
    v0 = reg.combat_variants(system, {})
    heads = ("p_side0", "rounds_mean", "p_loser_dead")

    def headline(variants):
        stats = _duel(system, base, base, variants=variants)
        return {h: reg.METRICS[h](stats) for h in heads}

    ref = headline({})
    out = []
    for fl in dataclasses.fields(v0):
        rule = str(fl.metadata.get("rule", ""))
        if "-g" not in rule:
            continue
        choices = fl.metadata.get("choices")
        if isinstance(fl.default, bool):
            choices = (True, False)
        if not choices or len(choices) > 6:
            continue
        for c in choices:
            if c == fl.default:
                continue
            try:
                h = headline({fl.name: c})
            except InputError:
                continue
            d = {k: h[k][0] - ref[k][0] for k in heads}
            sd = {k: math.hypot(h[k][1], ref[k][1]) for k in heads}
            rounds = ref["rounds_mean"][0] or 1.0
            score = max(abs(d["p_side0"]), abs(d["p_loser_dead"]),
                        abs(d["rounds_mean"]) / rounds)
            sev = ("high" if score >= cfg["variant_high"] else
                   "medium" if score >= cfg["variant_medium"] else "low")
            out.append({"kind": "gap_variant", "system": system,
                        "subject": f"{fl.name}={str(c).lower()} ({rule})",
                        "detail": Text(N_(
                            "P(side0) {win:.3f} → {win_new:.3f} (±{win_sd:.3g}), rounds "
                            "{rounds:.2f} → {rounds_new:.2f} (±{rounds_sd:.3g}), P(loser "
                            "dead) {dead:.3f} → {dead_new:.3f} (±{dead_sd:.3g})"),
                            win=ref["p_side0"][0], win_new=h["p_side0"][0],
                            win_sd=sd["p_side0"], rounds=ref["rounds_mean"][0],
                            rounds_new=h["rounds_mean"][0], rounds_sd=sd["rounds_mean"],
                            dead=ref["p_loser_dead"][0], dead_new=h["p_loser_dead"][0],
                            dead_sd=sd["p_loser_dead"]),
                        "value": score, "se": max(sd.values()), "severity": sev})
    return out


def interaction_sweep(system: str, spec: dict, base, variants: dict | None = None):
    """The exact even duel of ladder fighter ``base`` over every cell of the knob grid
    ``spec["knobs"]`` (``{knob: values}``, knobs as
    :func:`analysis.workflow.fight_sweep.apply_knob`), metric ``spec["metric"]``: one
    row per cell with the knob columns, ``metric`` and ``fight``."""
    import itertools

    import pandas as pd

    from analysis.workflow.fight_sweep import apply_knob, fight_point

    knobs = dict(spec["knobs"])
    rows = []
    for cell in itertools.product(*knobs.values()):
        a, b, v = dict(base), dict(base), dict(variants or {})
        for knob, value in zip(knobs, cell, strict=True):
            a, b, v = apply_knob(a, b, v, knob, value)
        row = fight_point(system, a, b, v, 50, spec["metric"], exact=True)
        rows.append({"fight": "even duel", **dict(zip(knobs, cell, strict=True)),
                     "metric": float(row["metric"])})
    return pd.DataFrame(rows)


def knob_interactions(system: str, cfg: dict, ladder=None, variants=None) -> list[dict]:
    """Knobs whose effect depends on another (:func:`analysis.workflow.interactions.
    dependent_effects`) on the small exact sweep ``cfg["interaction_sweeps"][system]`` of
    an even duel of the ``attacker`` rung: each knob whose largest range with the other
    knobs held fixed is at least ``interaction_min`` and ``interaction_ratio`` times its
    main-effect range — the main-effect ranking alone would understate it."""
    from analysis.workflow.interactions import dependent_effects
    from analysis.workflow.sweep import sensitivity

    sweeps = cfg.get("interaction_sweeps")
    spec = (system_of(system).interaction_sweep if sweeps is None
            else sweeps.get(system))
    if not spec:
        return []
    ladder = ladder or _ladder_specs()[system]
    table = interaction_sweep(system, spec, dict(ladder[cfg["attacker"]]), variants)
    knobs = list(spec["knobs"])
    ranks = sensitivity(table, knobs, "metric", group="fight").set_index("knob")["rank"]
    dep = dependent_effects(table, knobs, "metric", "fight", ratio=cfg["interaction_ratio"],
                            min_range=cfg["interaction_min"])
    out = []
    metric = spec["metric"]
    for r in dep.itertuples(index=False):
        out.append({"kind": "interaction", "system": system,
                    "subject": f"{r.knob} × {r.depends_on}",
                    "detail": f"{r.knob} ranks {int(ranks.get(r.knob, 0))} of {len(ranks)} "
                              f"by main effect (range {r.main_range:.3f}) in an even "
                              f"{cfg['attacker']} duel, but at {r.given} it moves {metric} "
                              f"from {r.from_value:.3f} ({r.knob}={r.from_level}) to "
                              f"{r.to_value:.3f} ({r.knob}={r.to_level}): its effect depends "
                              f"on {r.depends_on} (interaction range {r.interaction:.3f})",
                    "value": float(r.fixed_max), "se": 0.0,
                    "severity": "high" if r.fixed_max >= cfg["interaction_high"]
                    else "medium",
                    "knob": r.knob, "depends_on": r.depends_on, "given": r.given,
                    "metric": metric, "main_range": float(r.main_range),
                    "from_value": float(r.from_value), "to_value": float(r.to_value),
                    "from_level": r.from_level, "to_level": r.to_level})
    return out


def discover(cfg: dict | None = None, *, progress: bool | None = None):
    """Findings table: rank, kind, system, subject, detail, value, se, severity, by
    (dominated options: every option that dominates it). Dominated options first, then
    one-hit fights, then the gap variants ranked by how far they move the headline
    numbers (largest first), then knobs whose effect depends on another
    (:func:`knob_interactions`); within a kind by severity, then value."""
    import pandas as pd

    from analysis.progress import bar
    from engines.system import registry

    cfg = {**DEFAULT_DISCOVER, **(cfg or {})}
    installed = list(registry())
    systems = installed if cfg["systems"] is None else list(cfg["systems"])
    unknown = [x for x in systems if x not in installed]
    if unknown:
        raise InputError(f"discover.systems: unknown system {unknown[0]!r}; known: "
                         f"{', '.join(installed)}")
    ladder = _ladder_specs()
    rows: list[dict] = []
    notes: list[str] = []
    with bar(4 * len(systems), "discover",
             disable=None if progress is None else not progress) as pb:
        for system in systems:
            why = _no_discovery(system, ladder)
            if why is not None:
                notes.append(why)
                pb.update(4)
                continue
            for fn in (dominated_gear, one_hit_fights, gap_variants, knob_interactions):
                rows += fn(system, cfg, ladder=ladder[system])
                pb.update(1)
    out = pd.DataFrame(rows, columns=["kind", "system", "subject", "detail", "value", "se",
                                      "severity", "by"]).fillna({"by": ""})
    sev = {"high": 0, "medium": 1, "low": 2}
    out["_k"] = out["kind"].map({**{f"dominated_{k}": 0 for k in OPTION_KINDS},
                                 "one_hit": 1, "gap_variant": 2, "interaction": 3})
    out["_s"] = out["severity"].map(sev)
    out = out.sort_values(["_k", "_s", "value"], ascending=[True, True, False],
                          kind="stable").drop(columns=["_k", "_s"]).reset_index(drop=True)
    out.insert(0, "rank", range(1, len(out) + 1))
    out.attrs["notes"] = notes
    return out


def _no_discovery(system: str, ladder: dict) -> str | None:
    """Why ``--discover`` skips a system, in one sentence (None when it does not): every
    finding is measured on duels of the system's ladder fighters, so a system that
    declares no combat rules (a plug-in of checks only), or has no ladder fighters in
    ``analysis/data/cross_combat.toml``, is skipped."""
    from engines.system import registry

    if not registry()[system].has_combat:
        return (f"{system}: this system declares no combat rules, so --discover skips it "
                "(dominated options, one-hit fights, gap variants and knob interactions "
                "are all measured on duels)")
    if system not in ladder:
        return (f"{system}: no ladder fighters for it in cross_combat.toml, so --discover "
                "skips it (every finding is measured on duels of the ladder fighters)")
    return None
