"""Scenario validation that needs the rules: systems, variants, axes, ladder names,
fighters, solver questions, sweeps, campaign entries, guardrails and outputs.

:func:`semantic_problems` calls one validator per section of the file, in a fixed order (the
order of the messages), each returning its list of ``(key path, problem)``.
:mod:`analysis.workflow.scenario` checks the structure (pydantic), then calls
:func:`semantic_problems`; the validators take its parsed ``Scenario`` as ``sc`` without importing
that module (it imports this one).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from engines.errors import InputError
from engines.system import registry

__all__ = ["campaign_index", "campaign_knob", "did_you_mean", "known_list", "semantic_problems"]


def known_list(names) -> str:
    """Known names as a message lists them (``a, b, c``)."""
    return ", ".join(names)


def did_you_mean(name: Any, known) -> str:
    """``"; did you mean 'x'?"`` for the closest known names (empty when none is close)."""
    import difflib

    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=2)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def _axis_problem(system: str, axis: str, value: Any) -> str | None:
    """Why ``value`` cannot sit on ``axis`` of ``system`` (None when it can): a named
    value of a system's named axis (``roll``, ``level`` ...), or a whole number in range."""
    from engines.system import get

    def whole(lo=None, hi=None):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number, got {value!r}"
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return f"{value} is out of range {lo}..{hi}"
        return None

    checks = get(system).checks
    ok = {**checks.hidden_axes, **checks.axes}.get(axis, ())
    if ok and all(isinstance(x, str) for x in ok):
        return None if value in ok else f"{value!r} is not allowed; choose {' | '.join(ok)}"
    ranges = {
        "pool": (0, 200),
        "successes": (0, 400),
        "difficulty": (-50, 400),
        "modifier": (-100, 100),
        "skill": (0, 200),
        "dice": (-3, 3),
        "dc": (-100, 200),
        "degree": (-10, 10),
    }
    lo, hi = ranges.get(axis, (None, None))
    return whole(lo, hi)


def _variant_problem(system: str, name: str, value: Any) -> str | None:
    from engines.variants import parse_variants

    cls = registry()[system].checks.variants
    fields = {f.name for f in dataclasses.fields(cls)}
    if name not in fields:
        return (
            f"not a variant of {system}{did_you_mean(name, fields)}; "
            f"known: {known_list(sorted(fields))}"
        )
    try:
        parse_variants(cls, {name: value})
    except InputError as exc:
        text = str(exc)
        prefix = f"variant {name}: "
        return text[len(prefix) :] if text.startswith(prefix) else text
    except (TypeError, ValueError) as exc:
        return f"invalid value {value!r}: {exc}"
    return None


@dataclasses.dataclass(frozen=True)
class _Context:
    """What the section validators read: the scenario, the common ladders, the installed
    systems (the built-ins, then any plug-in systems) and whether the file's top-level
    system is one of them."""

    sc: Any
    ladder: dict
    installed: list[str]
    top_ok: bool

    @classmethod
    def of(cls, sc) -> _Context:
        from analysis.checks.ladders import load_competence_ladder

        ladder = load_competence_ladder()
        installed = list(registry())
        return cls(sc, ladder, installed, sc.system is not None and sc.system in installed)

    def unknown_system(self, system: str) -> str | None:
        """Why ``system`` is not an installed system (None when it is)."""
        if system in self.installed:
            return None
        return (
            f"unknown system {system!r}{did_you_mean(system, self.installed)}; "
            f"known: {known_list(self.installed)}"
        )


def semantic_problems(sc) -> list[tuple[str, str]]:
    """Problems that need the rules: systems, variants, axes, ladder names. One validator
    per section of the file, called in this order (the order of the messages)."""
    ctx = _Context.of(sc)
    return [
        *_top_problems(ctx),
        *_check_problems(ctx),
        *_fight_problems(ctx),
        *_check_name_problems(sc),
        *_solve_problems(ctx),
        *_sweep_problems(ctx),
        *_campaign_problems(sc),
        *_guardrail_problems(sc),
        *_task_problems(sc),
        *_output_problems(sc),
    ]


def _top_problems(ctx: _Context) -> list[tuple[str, str]]:
    """The top-level keys: ``system``, its ``variants``, ``[precision]``."""
    sc = ctx.sc
    problems: list[tuple[str, str]] = []
    if sc.system is not None and (why := ctx.unknown_system(sc.system)) is not None:
        problems.append(("system", why))
    if ctx.top_ok:
        for name, value in sc.variants.items():
            if (why := _variant_problem(sc.system, name, value)) is not None:
                problems.append((f"variants.{name}", why))
    if sc.precision.trials is not None and sc.precision.se is not None:
        problems.append(("precision", "give trials or se, not both"))
    return problems


def _entry_system(ctx: _Context, path: str, entry) -> tuple[str | None, list]:
    """The system of a [[checks]] or [[fights]] entry — its own or the file's — and the
    problem with it; None when there is no known system to check the entry against."""
    sc = ctx.sc
    if entry.system is None and sc.system is None:
        return None, [
            (f"{path}.system", "required key is missing (no top-level system to inherit either)")
        ]
    if entry.system is not None:
        if (why := ctx.unknown_system(entry.system)) is not None:
            return None, [(f"{path}.system", why)]
    elif not ctx.top_ok:
        return None, []
    return sc.check_system(entry), []


def _check_systems(ctx: _Context) -> list[str]:
    """The known systems of the [[checks]] entries."""
    found = (_entry_system(ctx, f"checks[{i}]", entry)[0] for i, entry in enumerate(ctx.sc.checks))
    return [system for system in found if system is not None]


def _check_problems(ctx: _Context) -> list[tuple[str, str]]:
    """Each [[checks]] entry: its system, variants, axes and their values, competence
    (ladder names), contrast offsets."""
    from analysis.checks.curves import AXES

    problems: list[tuple[str, str]] = []
    for i, entry in enumerate(ctx.sc.checks):
        path = f"checks[{i}]"
        system, found = _entry_system(ctx, path, entry)
        problems += found
        if system is None:
            continue
        for name, value in entry.variants.items():
            if (why := _variant_problem(system, name, value)) is not None:
                problems.append((f"{path}.variants.{name}", why))
        axes = AXES[system]
        for axis, values in entry.axes.items():
            if axis not in axes:
                problems.append(
                    (
                        f"{path}.axes.{axis}",
                        f"not an axis of {system}"
                        f"{did_you_mean(axis, axes)}; known: {known_list(axes)}",
                    )
                )
                continue
            if not values:
                problems.append((f"{path}.axes.{axis}", "expected at least one value"))
            for j, value in enumerate(values):
                if (why := _axis_problem(system, axis, value)) is not None:
                    problems.append((f"{path}.axes.{axis}[{j}]", why))
        if entry.competence is not None:
            comp_axis = next(iter(axes))
            if comp_axis in entry.axes:
                problems.append(
                    (f"{path}.competence", f"also given as axes.{comp_axis}; use one of them")
                )
            rungs = (
                ctx.ladder[system]
                if system in ctx.ladder
                else dict(getattr(registry()[system].ladder, "rungs", {}))
            )
            for j, c in enumerate(entry.competence):
                if isinstance(c, str) and c not in rungs:
                    problems.append(
                        (
                            f"{path}.competence[{j}]",
                            f"unknown ladder name {c!r}"
                            f"{did_you_mean(c, rungs)}; known: {known_list(rungs)}",
                        )
                    )
        if entry.contrast is not None:
            for arm in ("a", "b"):
                for axis, off in getattr(entry.contrast, arm).items():
                    if axis not in axes or axis in ("roll", "level"):
                        numeric = [a for a in axes if a not in ("roll", "level")]
                        problems.append(
                            (
                                f"{path}.contrast.{arm}.{axis}",
                                f"not a numeric axis of {system}; known: {known_list(numeric)}",
                            )
                        )
                    elif not -100 <= off <= 100:
                        problems.append(
                            (
                                f"{path}.contrast.{arm}.{axis}",
                                f"offset {off} is out of range -100..100",
                            )
                        )
                    else:
                        values = entry.axes.get(axis, list(axes[axis]))
                        bad = [
                            v + off
                            for v in values
                            if isinstance(v, int)
                            and _axis_problem(system, axis, v + off) is not None
                        ]
                        if bad:
                            problems.append(
                                (
                                    f"{path}.contrast.{arm}.{axis}",
                                    f"offset {off} moves {axis} out of range (to {bad[0]})",
                                )
                            )
    return problems


def _fight_problems(ctx: _Context) -> list[tuple[str, str]]:
    """Each [[fights]] entry: a system with combat rules, its combat variants, fighters
    the system's archetype loader accepts."""
    if not ctx.sc.fights:
        return []
    from analysis.combat.fights import available, combat_variants, fighter

    problems: list[tuple[str, str]] = []
    for i, entry in enumerate(ctx.sc.fights):
        path = f"fights[{i}]"
        system, found = _entry_system(ctx, path, entry)
        problems += found
        if system is None:
            continue
        if not available().get(system, False):
            problems.append((f"{path}.system", str(registry()[system].lacks("combat"))))
            continue
        try:
            combat_variants(system, entry.variants)
        except InputError as exc:
            problems.append((f"{path}.variants", str(exc)))
        for side in ("a", "b"):
            try:
                fighter(system, getattr(entry, side))
            except InputError as exc:
                msg = str(exc).removeprefix(f"{system}: ")
                m = re.search(r"([\w.]+): unknown key; known: (.*)$", msg)
                if m:  # the loader's own words, plus the closest known key
                    key = m.group(1).rsplit(".", 1)[-1]
                    hint = did_you_mean(key, m.group(2).split(", "))
                    msg = msg.replace(": unknown key;", f": unknown key{hint};", 1)
                problems.append((f"{path}.{side}", msg))
    return problems


def _check_name_problems(sc) -> list[tuple[str, str]]:
    """Two [[checks]] entries with one name."""
    problems: list[tuple[str, str]] = []
    seen: dict[str, int] = {}
    for i in range(len(sc.checks)):
        name = sc.check_name(i)
        if name in seen:
            problems.append(
                (f"checks[{i}].name", f"{name!r} is already the name of checks[{seen[name]}]")
            )
        seen.setdefault(name, i)
    return problems


def _solve_problems(ctx: _Context) -> list[tuple[str, str]]:
    """Each [[solve]] entry: its systems, then by kind — lethality and campaign questions
    (their own validators), difficulty and competence targets, levels."""
    sc = ctx.sc
    problems: list[tuple[str, str]] = []
    for i, s in enumerate(sc.solve):
        path = f"solve[{i}]"
        for j, system in enumerate(s.systems or []):
            if system is not None and (why := ctx.unknown_system(system)) is not None:
                problems.append((f"{path}.systems[{j}]", why))
        if s.kind == "lethality":
            problems += _lethality_problems(sc, path, s)
            continue
        if s.kind == "campaign":
            problems += _campaign_solve_problems(sc, path, s)
            continue
        if s.target is not None and not 0 < s.target < 1:
            problems.append(
                (
                    f"{path}.target",
                    f"expected a probability strictly between 0 and 1, got {s.target!r}",
                )
            )
        if s.kind == "difficulty":
            if s.target is None:
                problems.append((f"{path}.target", "required for kind = 'difficulty'"))
            if s.competence is None:
                problems.append((f"{path}.competence", "required for kind = 'difficulty'"))
            elif isinstance(s.competence, int) and len(s.systems or list(registry())) != 1:
                problems.append(
                    (
                        f"{path}.competence",
                        "a native value needs exactly one system in systems (or use a ladder name)",
                    )
                )
            elif isinstance(s.competence, str):
                known = ctx.ladder[next(iter(registry()))]
                if s.competence not in known:
                    problems.append(
                        (
                            f"{path}.competence",
                            f"unknown ladder name {s.competence!r}; known: {known_list(known)}",
                        )
                    )
        for j, q in enumerate(s.levels):
            if not 0 < q < 1:
                problems.append(
                    (
                        f"{path}.levels[{j}]",
                        f"expected a probability strictly between 0 and 1, got {q!r}",
                    )
                )
    return problems


def _sweep_problems(ctx: _Context) -> list[tuple[str, str]]:
    """[sweep]: variants and axes of the checks' systems, something to sweep, the campaign
    and fight sweeps (their own validators), the ``delta`` metric's contrast."""
    from analysis.checks.curves import AXES

    sc = ctx.sc
    problems: list[tuple[str, str]] = []
    if sc.sweep is None:
        return problems
    check_systems = sorted(set(_check_systems(ctx))) or ([sc.system] if ctx.top_ok else [])
    for name, values in sc.sweep.variants.items():
        path = f"sweep.variants.{name}"
        if not values:
            problems.append((path, "expected at least one value"))
        owners = [
            s
            for s in check_systems
            if name in {f.name for f in dataclasses.fields(registry()[s].checks.variants)}
        ]
        if not owners:
            problems.append((path, f"not a variant of {known_list(check_systems) or 'any system'}"))
            continue
        for value in values:
            for s in owners:
                if (why := _variant_problem(s, name, value)) is not None:
                    problems.append((path, why))
                    break
    for name, values in sc.sweep.axes.items():
        path = f"sweep.axes.{name}"
        if not values:
            problems.append((path, "expected at least one value"))
        owners = [s for s in check_systems if name in AXES[s]]
        if not owners:
            problems.append((path, f"not an axis of {known_list(check_systems) or 'any system'}"))
            continue
        for j, value in enumerate(values):
            for s in owners:
                if (why := _axis_problem(s, name, value)) is not None:
                    problems.append((f"{path}[{j}]", why))
                    break
        if name in sc.sweep.variants:
            problems.append((path, "also swept as a variant; rename one"))
    if (sc.sweep.variants or sc.sweep.axes) and not sc.checks:
        problems.append(
            ("sweep", "a sweep of variants or axes needs at least one [[checks]] entry")
        )
    if not (sc.sweep.variants or sc.sweep.axes or sc.sweep.fights or sc.sweep.campaign):
        problems.append(("sweep", "nothing to sweep: give variants, axes, fights or campaign"))
    if sc.sweep.campaign:
        problems += _campaign_sweep_problems(sc)
    if sc.sweep.fights or "fight_metric" in sc.sweep.model_fields_set:
        problems += _fight_sweep_problems(sc)
    if sc.sweep.metric == "delta" and not any(c.contrast for c in sc.checks):
        problems.append(("sweep.metric", "'delta' needs a contrast in [[checks]]"))
    return problems


def _guardrail_problems(sc) -> list[tuple[str, str]]:
    """[[guardrails]] (:func:`analysis.workflow.guardrails.guardrail_problems`)."""
    if not sc.guardrails:
        return []
    from analysis.workflow.guardrails import guardrail_problems

    return guardrail_problems(sc, did_you_mean, known_list)


def _task_problems(sc) -> list[tuple[str, str]]:
    """A file with nothing to do."""
    if not (sc.checks or sc.fights or sc.solve or sc.campaign or sc.discover or sc.cross_combat):
        return [
            ("(top level)", "nothing to do: add [[checks]], [[fights]], [[solve]] or [[campaign]]")
        ]
    return []


def _output_problems(sc) -> list[tuple[str, str]]:
    """[output]: tables and plots whose section is missing, a parquet file with no
    folder."""
    problems: list[tuple[str, str]] = []
    if "campaign" in (sc.output.tables or []) and not sc.campaign:
        problems.append(("output.tables", "table 'campaign' needs a [[campaign]] entry"))
    if "campaign_sweep" in (sc.output.tables or []) and not (
        sc.campaign and sc.sweep is not None and sc.sweep.campaign
    ):
        problems.append(
            (
                "output.tables",
                "table 'campaign_sweep' needs sweep.campaign and a [[campaign]] entry",
            )
        )
    tables = sc.output.tables or []
    for t in tables:
        if t in ("sweep", "sensitivity", "interactions") and sc.sweep is None:
            problems.append(("output.tables", f"table {t!r} needs a [sweep] section"))
    if "sensitivity" in sc.output.plots and sc.sweep is None:
        problems.append(("output.plots", "plot 'sensitivity' needs a [sweep] section"))
    fight_sweep = sc.sweep is not None and bool(sc.sweep.fights)
    for t in tables:
        if t in ("fight_sweep", "fight_sensitivity", "fight_interactions") and not fight_sweep:
            problems.append(("output.tables", f"table {t!r} needs sweep.fights"))
    if "fight_sensitivity" in sc.output.plots and not fight_sweep:
        problems.append(("output.plots", "plot 'fight_sensitivity' needs sweep.fights"))
    if sc.output.format == "parquet" and sc.output.dir is None:
        problems.append(("output.format", "parquet needs an output folder (output.dir or -o)"))
    return problems


def _fights_ok(sc) -> bool:
    """Every fight has a known system with an installed combat engine and fighters that
    load (a broken fighter is reported at its own key path, not against a knob)."""
    from analysis.combat.fights import available, fighter

    have = available()
    for f in sc.fights:
        system = f.system or sc.system
        if not have.get(system, False):
            return False
        try:
            fighter(system, f.a)
            fighter(system, f.b)
        except InputError:
            return False
    return True


def _fight_sweep_problems(sc) -> list[tuple[str, str]]:
    from analysis.combat.fights import check_metric
    from analysis.workflow.fight_sweep import knob_problems

    problems: list[tuple[str, str]] = []
    try:
        check_metric(sc.sweep.fight_metric)
    except InputError as exc:
        problems.append(("sweep.fight_metric", str(exc).removeprefix("metric: ")))
    if not sc.fights:
        problems.append(("sweep.fights", "a fight sweep needs at least one [[fights]] entry"))
        return problems
    if not _fights_ok(sc):
        return problems
    for key, values in sc.sweep.fights.items():
        path = f"sweep.fights.{key}"
        if not values:
            problems.append((path, "expected at least one value"))
            continue
        problems += [(path, why) for why in knob_problems(sc, key, values)[:1]]
    return problems


def _lethality_problems(sc, path: str, s) -> list[tuple[str, str]]:
    import math

    from analysis.combat.fights import check_metric
    from analysis.workflow.fight_sweep import knob_problems

    problems: list[tuple[str, str]] = []
    if s.target is None:
        problems.append((f"{path}.target", "required for kind = 'lethality'"))
    elif not math.isfinite(s.target):
        problems.append((f"{path}.target", f"expected a finite number, got {s.target!r}"))
    try:
        check_metric(s.metric)
    except InputError as exc:
        problems.append((f"{path}.metric", str(exc).removeprefix("metric: ")))
    if s.knob is None:
        problems.append((f"{path}.knob", "required for kind = 'lethality' (e.g. a.hit_points)"))
    if not s.values:
        problems.append(
            (
                f"{path}.values",
                "required for kind = 'lethality': the knob values to search, in increasing order",
            )
        )
    index = sc.fight_index(s.fight)
    if index is None:
        names = [f.name or f"fight{i}" for i, f in enumerate(sc.fights)]
        problems.append(
            (
                f"{path}.fight",
                f"no [[fights]] entry {s.fight!r}; known: {known_list(names) or 'none'}",
            )
        )
    elif s.knob is not None and s.values and _fights_ok(sc):
        one = sc.model_copy(update={"fights": [sc.fights[index]]})
        problems += [(f"{path}.knob", why) for why in knob_problems(one, s.knob, s.values)[:1]]
    return problems


def _campaign_problems(sc) -> list[tuple[str, str]]:
    """Each [[campaign]] entry: a system with campaign mechanics, a known mechanic, known
    parameters of the right type and range, known variants, a valid threshold."""
    from analysis.campaign import resolve
    from engines.campaign import campaign_systems, mechanic

    problems: list[tuple[str, str]] = []
    for i, c in enumerate(sc.campaign):
        path = f"campaign[{i}]"
        system = c.system or sc.system
        if system is None:
            problems.append((f"{path}.system", "required (or a top-level system)"))
            continue
        with_campaign = campaign_systems()
        if system not in with_campaign:
            if system in registry():
                problems.append((f"{path}.system", str(registry()[system].lacks("campaign"))))
                continue
            problems.append(
                (
                    f"{path}.system",
                    f"unknown system {system!r}"
                    f"{did_you_mean(system, with_campaign)}; known: "
                    f"{known_list(with_campaign)}",
                )
            )
            continue
        try:
            mech = mechanic(system, c.mechanic)
        except InputError as exc:
            problems.append((f"{path}.mechanic", str(exc).removeprefix("mechanic: ")))
            continue
        names = [q.name for q in mech.params]
        ok = True
        for key, value in c.params.items():
            if key not in names:
                problems.append(
                    (
                        f"{path}.params.{key}",
                        f"not a parameter of {c.mechanic}"
                        f"{did_you_mean(key, names)}; known: {known_list(names)}",
                    )
                )
                ok = False
                continue
            try:
                resolve(system, c.mechanic, {key: value})
            except InputError as exc:
                problems.append((f"{path}.params.{key}", str(exc).removeprefix(f"{key}: ")))
                ok = False
        fields = [f.name for f in dataclasses.fields(mech.variants)]
        for key, value in c.variants.items():
            if key not in fields:
                problems.append(
                    (
                        f"{path}.variants.{key}",
                        f"not a variant of {system} "
                        f"{c.mechanic}{did_you_mean(key, fields)}; known: "
                        f"{known_list(fields)}",
                    )
                )
                ok = False
                continue
            try:
                resolve(system, c.mechanic, variants={key: value})
            except (InputError, TypeError, ValueError) as exc:
                text = str(exc).removeprefix(f"variant {key}: ")
                problems.append((f"{path}.variants.{key}", text))
                ok = False
        if not ok:
            continue
        try:  # the engine's own range checks, on a zero-session chain (cheap)
            _, params, v = resolve(system, c.mechanic, c.params, c.variants)
            mech.exact(
                sessions=0,
                threshold=c.threshold if c.threshold is not None else mech.threshold_default,
                variants=v,
                **params,
            )
        except InputError as exc:
            name, sep, why = str(exc).partition(": ")
            where = (
                f"{path}.threshold"
                if name == "threshold"
                else f"{path}.params.{name}"
                if name in names
                else f"{path}.params"
            )
            problems.append((where, why if sep and name in (*names, "threshold") else str(exc)))
    return problems


def campaign_knob(entry, system: str, knob: str) -> bool:
    """Whether the [[campaign]] ``entry`` has the sweep knob ``knob``."""
    import dataclasses as dc

    from engines.campaign import mechanic

    kind, _, name = knob.partition(".")
    if knob == "sessions":
        return True
    try:
        mech = mechanic(system, entry.mechanic)
    except InputError:
        return False
    if kind == "param":
        return name in [q.name for q in mech.params]
    if kind == "variant":
        return name in [f.name for f in dc.fields(mech.variants)]
    return False


def campaign_index(sc, ref: str | int | None) -> int | None:
    """Position of a [[campaign]] entry given by name or position (None: the first)."""
    if ref is None:
        ref = 0
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref if 0 <= ref < len(sc.campaign) else None
    names = [c.name or f"campaign{i}" for i, c in enumerate(sc.campaign)]
    return names.index(ref) if ref in names else None


def _campaign_solve_problems(sc, path: str, s) -> list[tuple[str, str]]:
    """[[solve]] kind = "campaign": a [[campaign]] entry, one of its int/str/bool
    parameters as the knob, a reach, a share strictly between 0 and 1."""
    from engines.campaign import mechanic

    problems: list[tuple[str, str]] = []
    i = campaign_index(sc, s.campaign)
    if i is None:
        names = [c.name or f"campaign{j}" for j, c in enumerate(sc.campaign)]
        return [
            (
                f"{path}.campaign",
                f"no [[campaign]] entry {s.campaign!r}; known: "
                f"{known_list(names) if names else '(none)'}",
            )
        ]
    c = sc.campaign[i]
    try:
        mech = mechanic(c.system or sc.system, c.mechanic)
    except InputError:
        return problems  # reported at the entry itself
    names = [q.name for q in mech.params if q.name not in mech.combatants]
    if s.knob is None:
        problems.append(
            (f"{path}.knob", f"required: a parameter of {c.mechanic}; known: {known_list(names)}")
        )
    elif s.knob not in names:
        problems.append(
            (
                f"{path}.knob",
                f"not a parameter of {c.mechanic}"
                f"{did_you_mean(s.knob, names)}; known: {known_list(names)}",
            )
        )
    if s.reach is None:
        problems.append(
            (f"{path}.reach", "required for kind = 'campaign' (the state value to reach)")
        )
    if s.target is not None and not 0 < s.target < 1:
        problems.append(
            (f"{path}.target", f"expected a share strictly between 0 and 1, got {s.target!r}")
        )
    return problems


def _campaign_sweep_problems(sc) -> list[tuple[str, str]]:
    """sweep.campaign: knobs named ``param.NAME``, ``variant.NAME`` or ``sessions``, each
    a knob of at least one [[campaign]] entry, every value accepted by each entry that
    has the knob."""
    from analysis.campaign import resolve
    from engines.campaign import check_sessions

    problems: list[tuple[str, str]] = []
    if not sc.campaign:
        return [("sweep.campaign", "needs at least one [[campaign]] entry")]
    for knob, values in sc.sweep.campaign.items():
        path = f"sweep.campaign.{knob}"
        kind, _, name = knob.partition(".")
        if knob != "sessions" and (kind not in ("param", "variant") or not name):
            problems.append((path, "expected param.NAME, variant.NAME or sessions"))
            continue
        if not values:
            problems.append((path, "give at least one value"))
            continue
        owners = [
            (c, c.system or sc.system)
            for c in sc.campaign
            if campaign_knob(c, c.system or sc.system, knob)
        ]
        if not owners:
            problems.append((path, "no [[campaign]] entry has this knob"))
            continue
        for j, value in enumerate(values):
            for c, system in owners:
                try:
                    if knob == "sessions":
                        check_sessions(value)
                    else:
                        params = {**c.params, name: value} if kind == "param" else c.params
                        variants = {**c.variants, name: value} if kind == "variant" else c.variants
                        mech, params, v = resolve(system, c.mechanic, params, variants)
                        mech.exact(
                            sessions=0,
                            threshold=c.threshold
                            if c.threshold is not None
                            else mech.threshold_default,
                            variants=v,
                            **params,
                        )  # the engine's own range checks
                except (InputError, TypeError, ValueError) as exc:
                    problems.append((f"{path}[{j}]", str(exc)))
                    break
    return problems
