"""The reading of a tune run: a translatable :class:`analysis.text.Text` in the
glossary's words (the smallest passing edit, or the closest one), the candidate it
names (:func:`best_row`) and the audit command that re-runs it (:func:`command`)."""

from __future__ import annotations

from pathlib import Path

from analysis.text import N_, Text, join

from .problem import Knob, TuneProblem, TuneResult, edit_size_of, reproduce

__all__ = ["best_row", "command", "how_found", "knob_system", "reading_of"]


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def knob_system(problem: TuneProblem, knob: Knob) -> str:
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

    system = knob_system(problem, knob)
    return Text(
        N_("{knob} of {target} from {old} to {new}"),
        knob=knob_phrase(system, knob.knob),
        target=knob.target,
        old=value_phrase(system, knob.knob, knob.current),
        new=value_phrase(system, knob.knob, value),
    )


def _changes_text(problem: TuneProblem, row: dict) -> Text:
    parts = [_change(problem, k, row[k.name]) for k in problem.knobs if row[k.name] != k.current]
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
    return Text(
        "{guardrail} ({figure})", guardrail=Text(g.name), figure=_figure(g, row["_measures"][k])
    )


def how_found(result: TuneResult) -> Text:
    """How the run found its candidates (all enumerated, or the NSGA-II search's size),
    for the reading and the figure's title."""
    s = result.stats
    if result.method == "exact":
        return Text(N_("all {n} candidates enumerated"), n=s["candidates"])
    return Text(
        N_(
            "an NSGA-II search of {n} candidates: {trials} trials, {distinct} distinct, seed {seed}"
        ),
        n=s["candidates"],
        trials=s["evaluations"],
        distinct=s["evaluated"],
        seed=s["seed"],
    )


def _status(status: str) -> Text:
    return Text(
        {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}.get(status, status)
    )


def best_row(result: TuneResult) -> dict | None:
    """The candidate the reading names: the smallest feasible edit, or, when none is
    feasible, the closest one (fewest guardrails not passing, then the smallest edit,
    then the widest worst margin)."""
    if not result.front:
        return None
    if result.feasible:
        return result.front[0]
    size = edit_size_of(result)
    return min(
        result.candidates,
        key=lambda r: (r["failing"] + r["undecided"], size(r), -r["worst_margin"]),
    )


def command(result: TuneResult) -> str:
    """The ``rpg-balance audit FILE --set …`` command of :func:`best_row` ("" when the
    file as it is is the answer or nothing was evaluated)."""
    row = best_row(result)
    if row is None or row["changes"] == 0:
        return ""
    return reproduce(result.problem, row["_setting"], *result.precision)


def reading_of(result: TuneResult) -> Text:
    """One paragraph in the glossary's words: the smallest change that makes every
    guardrail pass, or the trade-off when none does (its command: :func:`command`)."""
    p, front = result.problem, result.front
    n = len(p.scenario.guardrails)
    name = Path(p.file).name
    if not front:
        return Text(N_("No candidate was evaluated."))
    best = best_row(result)
    assert best is not None  # a front has a best row
    if result.feasible:
        k = best["changes"]
        if k == 0:
            text = Text(
                N_("The file as it is already passes all {n} guardrails of {file} ({how})."),
                n=n,
                file=name,
                how=how_found(result),
            )
            return text
        feasible = sum(r["feasible"] for r in result.candidates)
        template = (
            N_(
                "One change makes all {n} guardrails of {file} pass: {changes} "
                "(worst margin {margin} of the limits' width, at {worst}). "
                "{feasible} of {evaluated} candidates evaluated pass every "
                "guardrail ({how})."
            )
            if k == 1
            else N_(
                "{k} changes make all {n} guardrails of {file} pass; the smallest: "
                "{changes} (worst margin {margin} of the limits' width, at "
                "{worst}). {feasible} of {evaluated} candidates evaluated pass "
                "every guardrail ({how})."
            )
        )
        text = Text(
            template,
            k=k,
            n=n,
            file=name,
            changes=_changes_text(p, best),
            margin=_fmt(best["worst_margin"]),
            worst=_worst(p, best),
            feasible=feasible,
            evaluated=len(result.candidates),
            how=how_found(result),
        )
        others = len(front) - 1
        if others:
            text = Text(
                "{text} {more}",
                text=text,
                more=Text(
                    N_(
                        "Larger edits on the front: {k}; they widen the worst margin up to "
                        "{margin}."
                    ),
                    k=others,
                    margin=_fmt(max(r["worst_margin"] for r in front)),
                ),
            )
        return text
    base = next((r for r in result.candidates if r["changes"] == 0), None)
    short = join(
        "; ",
        (
            Text(
                N_("{guardrail} ({figure}, {status})"),
                guardrail=Text(g.name),
                figure=_figure(g, m),
                status=_status(m["status"]),
            )
            for g, m in zip(p.scenario.guardrails, best["_measures"], strict=True)
            if m["status"] != "pass"
        ),
    )
    left = best["failing"] + best["undecided"]
    if best["changes"] == 0:
        who = Text(N_("The file as it is leaves {k} not passing: {short}"), k=left, short=short)
    else:
        who = Text(
            N_("The closest, {changes}, leaves {k} not passing: {short}"),
            changes=_changes_text(p, best),
            k=left,
            short=short,
        )
    text = Text(
        N_(
            "No candidate makes all {n} guardrails of {file} pass ({how}). {who}; "
            "worst margin {margin} of the limits' width."
        ),
        n=n,
        file=name,
        how=how_found(result),
        who=who,
        margin=_fmt(best["worst_margin"]),
    )
    if base is not None and base is not best:
        text = Text(
            "{text} {more}",
            text=text,
            more=Text(
                N_("The file as it is leaves {k} not passing (worst margin {margin})."),
                k=base["failing"] + base["undecided"],
                margin=_fmt(base["worst_margin"]),
            ),
        )
    return Text(
        "{text} {more}",
        text=text,
        more=Text(
            N_("Candidates on the front: {k}, trading edit size against the worst margin."),
            k=len(front),
        ),
    )
