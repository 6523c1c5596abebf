"""Running an audit: the guardrail files (:func:`load_guardrails`), one row per guardrail
(:func:`evaluate`), what-if reruns with one knob changed and the guardrails whose status
flips, and the JUnit XML of a run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engines.errors import InputError

from .cures import (
    cure_text,
    find_cures,
    side_effects,
)
from .knobs import fight_knobs, valid_values
from .measuring import Z_DECIDE, check_cell, guardrail_target, measure
from .search_words import searched_words

__all__ = [
    "COLUMNS",
    "DATA",
    "cure_command",
    "evaluate",
    "flips",
    "junit_xml",
    "knob_options",
    "load_guardrails",
    "reproduce_guardrail",
    "rerun",
    "restrict",
    "with_knob",
]

DATA = Path(__file__).resolve().parents[2] / "data" / "guardrails.toml"
COLUMNS = (
    "guardrail",
    "system",
    "metric",
    "value",
    "se",
    "min",
    "max",
    "status",
    "suggestion",
    "cure",
    "reproduce",
)


def load_guardrails(paths: Sequence[str | Path] | None = None):
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
        raise InputError(
            problems[0]
            if len(problems) == 1
            else f"{len(problems)} files with problems\n  " + "\n  ".join(problems)
        )
    return out


def reproduce_guardrail(sc, g, m: dict) -> str:
    """The ``rpg-balance`` command whose output prints guardrail ``g``'s value
    (:mod:`.reproduce`); a Monte Carlo verdict's command plays as many fights (its own
    stream, so the number agrees within the SE); empty for a campaign guardrail."""
    from analysis.workflow.guardrails import comparing

    from .reproduce import check, fight_metric

    t = guardrail_target(sc, g)
    if comparing(g):
        return _reproduce_compare(sc, g, m)
    if t.kind == "check":
        return check(t.system, check_cell(t.system, t.entry), t.variants)
    if t.kind != "fight":
        return ""
    f = t.entry
    if getattr(g, "distances", None):  # the starting distance whose value is shown
        from .reproduce import grid

        v = {k: val for k, val in t.variants.items() if k != "distance"}
        return grid(
            t.system,
            f.a,
            f.b,
            g.metric,
            "variant.distance",
            [m["distance"]] if "distance" in m else g.distances,
            variants=v,
            round_cap=f.round_cap,
        )
    mc = (m["trials"], None) if m["method"] == "mc" else None
    return fight_metric(
        t.system, f.a, f.b, g.metric, variants=t.variants, round_cap=f.round_cap, mc=mc
    )


def _reproduce_compare(sc, g, m: dict) -> str:
    """The two commands whose numbers make up a comparing guardrail's value (one grid
    over the two starting distances when it compares two distances of one fight)."""
    from .measuring import compare_sides
    from .reproduce import both, fight_metric, grid

    pairs = compare_sides(sc, g)
    if g.versus is None or g.distances:
        sides = [pairs[0][0]] if g.versus is None else [pairs[0][0], pairs[0][1]]
        out = []
        for t in sides:
            v = {k: val for k, val in t.variants.items() if k != "distance"}
            out.append(
                grid(
                    t.system,
                    t.entry.a,
                    t.entry.b,
                    g.metric,
                    "variant.distance",
                    g.distances,
                    variants=v,
                    round_cap=t.entry.round_cap,
                )
            )
        return both(*out)
    first, second, _names, _d = pairs[0]
    trials = m.get("sides_trials", (0, 0))
    return both(
        *(
            fight_metric(
                t.system,
                t.entry.a,
                t.entry.b,
                g.metric,
                variants=t.variants,
                round_cap=t.entry.round_cap,
                mc=(n, None) if n else None,
            )
            for t, n in zip((first, second), trials, strict=True)
        )
    )


def evaluate(
    scenarios,
    *,
    seed: int | None = None,
    batch: int = 2_000,
    max_trials: int = 200_000,
    suggestions: bool = True,
    progress: bool | None = None,
    edits=(),
    files=None,
):
    """One row per guardrail: :data:`COLUMNS` plus ``reason``, ``solved`` (exact | mc),
    ``trials`` (0 when exact) and ``file``.

    ``suggestion`` holds a failure's cures (:func:`.cures.find_cures`: up to three
    one-knob edits that keep the question, each with what it gives, the best one with its
    side effects on every other guardrail), ``cure`` the command that re-runs the audit
    with the best cure applied (``rpg-balance audit [FILES] --set EDIT``; ``files``: the
    paths as the designer gave them, None for the shipped file), ``reproduce`` the command
    printing the value (:func:`reproduce_guardrail`; the two commands of a guardrail
    that compares). A failed guardrail that compares opens its ``suggestion`` with the
    comparison in words (:func:`.comparing.compare_words`); ``attrs["comparisons"]``
    holds those words for every such guardrail, ``attrs["distances"]`` the starting
    distance of the value shown for a guardrail measured at several (the one farthest
    outside its limits; its ``reproduce`` is the one-row grid at that distance).
    ``edits``: :class:`.edits.Edit` applied to the scenarios first (``--set``)."""
    import pandas as pd

    from analysis.progress import bar

    from .edits import apply

    for e in edits:
        scenarios = apply(scenarios, e)
    total = sum(len(sc.guardrails) for sc in scenarios)
    rows, searches, compared, distances = [], {}, {}, {}
    with bar(total, "audit", disable=None if progress is None else not progress) as pb:
        for s, sc in enumerate(scenarios):
            for i, g in enumerate(sc.guardrails):
                m = measure(
                    sc,
                    g,
                    i,
                    seed=sc.seed if seed is None else seed,
                    batch=batch,
                    max_trials=max_trials,
                )
                if "problem" in m:
                    raise InputError(f"{Path(sc.source).name}: guardrails[{i}]: {m['problem']}")
                rows.append(
                    {
                        "guardrail": g.name,
                        "system": guardrail_target(sc, g).system,
                        "metric": g.metric,
                        "value": m["value"],
                        "se": m["se"],
                        "min": g.min,
                        "max": g.max,
                        "status": m["status"],
                        "suggestion": "",
                        "cure": "",
                        "reproduce": reproduce_guardrail(sc, g, m),
                        "reason": g.reason,
                        "searched": "",
                        "solved": m["method"],
                        "trials": m["trials"],
                        "file": Path(sc.source).name,
                    }
                )
                if "distance" in m:  # the starting distance of the value shown
                    distances[g.name] = m["distance"]
                if "compare" in m:
                    from .comparing import compare_words

                    compared[len(rows) - 1] = compare_words(g, m)
                    if m["status"] == "fail":  # the comparison in words (cures follow)
                        rows[-1]["suggestion"] = compared[len(rows) - 1]
                if m["status"] == "fail" and suggestions:
                    searches[len(rows) - 1] = (s, i, m)
                pb.update(1)
    for r, (s, i, m) in searches.items():
        sc, g = scenarios[s], scenarios[s].guardrails[i]
        if guardrail_target(sc, g).kind == "campaign":
            rows[r]["suggestion"] = (
                "no one-knob search for campaign guardrails; [[solve]] "
                "kind = 'campaign' finds the knob value for a target"
            )
            continue
        from analysis.workflow.guardrails import measured_metric

        found = find_cures(sc, g, m)
        for c in found.cures:
            c.side_effects = side_effects(
                scenarios, rows, (s, i), c, seed=seed, batch=batch, max_trials=max_trials
            )
        rows[r]["suggestion"] = cure_text(found, measured_metric(g))
        rows[r]["searched"] = searched_words(found)
        if r in compared:  # the comparison in words, then its cure
            from analysis.text import join

            rows[r]["suggestion"] = join("; ", [compared[r], rows[r]["suggestion"]])
        if found.cures:
            rows[r]["cure"] = cure_command(found.cures[0].edit, files, edits)
    out = pd.DataFrame(rows, columns=[*COLUMNS, "reason", "solved", "trials", "file", "searched"])
    for col in ("min", "max"):
        out[col] = out[col].astype("Float64")
    #: the guardrails that compare: {name: their comparison in words} (the report reads it)
    out.attrs["comparisons"] = {rows[r]["guardrail"]: words for r, words in compared.items()}
    #: the guardrails measured at several starting distances: {name: the distance (m) of
    #: the value shown, the one farthest outside the limits}
    out.attrs["distances"] = distances
    return out


def cure_command(edit, files, edits=()) -> str:
    """``rpg-balance audit [FILES] [--set EARLIER] --set EDIT``: the audit re-run with a
    cure applied (``files`` None: the shipped guardrails)."""
    import shlex

    words = ["rpg-balance", "audit", *(str(f) for f in files or ())]
    for e in [*edits, edit]:
        words += ["--set", str(e)]
    return shlex.join(words)


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
        kept = [g for g in sc.guardrails if guardrail_target(sc, g).system in systems]
        if kept:
            out.append(sc.model_copy(update={"guardrails": kept}))
    return out


def knob_options(scenarios, system: str, *, span: int = 4) -> dict[str, tuple[Any, list]]:
    """``{knob: (current, values)}`` a designer can change for the fight guardrails of
    ``system`` (the first such fight gives the current value; numeric knobs range
    ``span`` steps around it), keeping only values the data files accept."""
    for sc in scenarios:
        for g in sc.guardrails:
            t = guardrail_target(sc, g)
            if t.kind != "fight" or t.system != system:
                continue
            out = {}
            knobs, _held = fight_knobs(system, t.entry, t.variants)
            for k in knobs:
                if k.current is None:
                    continue
                values = (
                    range(k.current - span, k.current + span + 1)
                    if (k.ordered and not k.values)
                    else k.values
                )
                values = valid_values(system, t.entry, t.variants, k.name, values)
                if k.current in values and len(values) > 1:
                    out[k.name] = (k.current, values)
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
    m = before.merge(after[[*keys, "value", "status"]], on=keys, suffixes=("_before", "_after"))
    m = m[m["status_before"] != m["status_after"]].copy()
    m["change"] = m["status_before"] + " → " + m["status_after"]
    cols = [
        "guardrail",
        "system",
        "metric",
        "value_before",
        "value_after",
        "status_before",
        "status_after",
        "change",
    ]
    return m[cols].reset_index(drop=True)


def _bound(x) -> str:
    import pandas as pd

    return "" if x is None or pd.isna(x) else f"{float(x):g}"


def junit_xml(table, suite: str = "rpg-balance audit") -> str:
    """JUnit XML: one testcase per guardrail; ``failure`` for fail, ``skipped`` for
    undecided."""
    import xml.etree.ElementTree as ET

    root = ET.Element(
        "testsuite",
        name=suite,
        tests=str(len(table)),
        failures=str(int((table["status"] == "fail").sum())),
        skipped=str(int((table["status"] == "undecided").sum())),
        errors="0",
    )
    for r in table.itertuples(index=False):
        case = ET.SubElement(root, "testcase", classname=f"{r.file}.{r.system}", name=r.guardrail)
        bounds = f"[{_bound(r.min)}, {_bound(r.max)}]"
        text = f"{r.metric} = {r.value:.6g} ± {r.se:.3g}, wanted {bounds}"
        if r.status == "fail":
            el = ET.SubElement(case, "failure", message=text)
            el.text = f"{text}\nreason: {r.reason}\nsuggestion: {r.suggestion}"
        elif r.status == "undecided":
            ET.SubElement(case, "skipped", message=f"undecided at {Z_DECIDE:g} SE: {text}")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
