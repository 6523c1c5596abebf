"""The workbench's state and numbers, without a web framework.

A view of the page is a :class:`PageState`: the tab on screen, the language, and one
state per tab (:class:`CheckState`, :class:`DuelState`, :class:`AuditState`). It travels
in the address bar as a flat query (:func:`to_query` / :func:`parse_query`): every
value read back goes through the same validation as the command line (the system
registry, :func:`engines.variants.parse_variants`, the archetype loader, the bounds of
:mod:`analysis.limits`); a bad value is dropped for its default with one message, never
an exception. The page reads no file named in the address: the audit reads the shipped
guardrails, the file named by ``rpg-balance serve --guardrails``, or a file uploaded
through the page.

The numbers come from the functions the command line calls
(:func:`analysis.checks.curves.success_curves`,
:func:`analysis.workflow.solvers.solve_difficulty`,
:func:`analysis.combat.lethality.duel_stats` / ``one_hit``,
:func:`analysis.workflow.audit.evaluate`), under :data:`ENGINE_LOCK`: numba's default
threading layer (workqueue) must not be entered by two threads at once, and the server
answers several browser tabs from a thread pool. Each result carries the ``rpg-balance``
command that prints its numbers (:mod:`analysis.workflow.audit.reproduce`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import shlex
import threading
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis import limits
from engines.errors import InputError

from ..i18n import LANGUAGES, _, percent
from ..i18n import decimal as fmt_decimal

__all__ = ["ALL", "AUDIT_COLUMNS", "AUDIT_SOURCES", "CHECK_KEYS", "DEFAULT_ROUND_CAP",
           "DEFAULT_SEED", "DEFAULT_TRIALS", "DUEL_KEYS", "ENGINE_LOCK", "MAX_UPLOAD", "METHODS",
           "QUERY_KEYS", "TABS", "AuditState", "Cancelled", "CheckResult", "CheckState",
           "DuelResult", "DuelState", "FairLock", "PageState", "audit_command", "audit_result",
           "check_aftermath", "check_archetype", "check_axes", "check_competence",
           "check_distance_m", "check_figure", "check_gear", "check_method", "check_result",
           "check_systems", "check_target", "check_variant_fields", "check_variants",
           "combat_systems", "combat_variant_fields", "default_check", "default_duel",
           "default_state", "duel_command", "duel_figure", "duel_result", "duel_sentence",
           "duel_variant_map", "duel_variants", "gear_options", "load_upload", "parse_query",
           "to_query", "variant_fields", "variant_text", "warm"]


class FairLock:
    """A lock served in the order it was asked for (a ticket lock): a Monte Carlo run
    that gives the lock back between batches and asks again goes behind a tab that was
    waiting, instead of taking it straight back (a plain ``threading.Lock`` is not fair,
    and a long run would starve every other tab). Not re-entrant."""

    def __init__(self):
        self._cond = threading.Condition()
        self._next = 0
        self._serving = 0

    def acquire(self) -> None:
        with self._cond:
            ticket = self._next
            self._next += 1
            while ticket != self._serving:
                self._cond.wait()

    def release(self) -> None:
        with self._cond:
            self._serving += 1
            self._cond.notify_all()

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


#: One lock around every engine call of the server (numba's workqueue threading layer
#: must not run two parallel kernels at once); a Monte Carlo run takes it batch by batch
#: and queues again, so an exact update of another tab waits at most one batch.
ENGINE_LOCK = FairLock()

TABS = ("checks", "duel", "audit")
METHODS = ("exact", "mc")
#: the audit's sources: the shipped guardrails, ``serve --guardrails FILE``, an upload
AUDIT_SOURCES = ("default", "file", "upload")
#: Monte Carlo fights of a duel when the page does not say (the command line's default)
DEFAULT_TRIALS = 20_000
DEFAULT_SEED = 1
DEFAULT_ROUND_CAP = 50
#: the largest guardrail file the page accepts as an upload (bytes)
MAX_UPLOAD = 1_000_000
#: the word of the "no difficulty axis chosen" value of a check axis
ALL = "all"


class Cancelled(Exception):
    """Raised between Monte Carlo batches when the designer pressed Stop."""


# ----------------------------------------------------------------------------- systems

def check_systems() -> list[str]:
    """The registered systems with success curves (built-ins, then plug-ins)."""
    from engines.system import registry

    return [sid for sid, s in registry().items() if s.check_grid is not None]


def combat_systems() -> list[str]:
    """The registered systems with combat rules and an archetype library."""
    from engines.system import registry

    return [sid for sid, s in registry().items() if s.has_combat and s.archetype_library]


def variant_fields(cls) -> list[dict]:
    """The variant fields of a ``Variants`` class as the page shows them: name, default
    (as text), choices (as text; None: free text), rule id and doc."""
    out = []
    for f in dataclasses.fields(cls):
        meta = f.metadata or {}
        choices = meta.get("choices")
        if isinstance(f.default, bool):
            choices = (True, False)
        out.append({"name": f.name, "default": variant_text(f.default),
                    "choices": None if choices is None else [variant_text(c) for c in choices],
                    "rule": meta.get("rule", ""), "doc": meta.get("doc", "")})
    return out


def variant_text(value) -> str:
    """A variant value as ``--variant NAME=VALUE`` writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def check_variant_fields(system: str) -> list[dict]:
    from engines.system import get

    return variant_fields(get(system).engine().Variants)


def combat_variant_fields(system: str) -> list[dict]:
    """The combat variants the duel tab shows in its rule panel (``distance`` and
    ``aftermath`` have widgets of their own)."""
    from analysis.combat.archetypes import engine

    return [f for f in variant_fields(engine(system).Variants)
            if f["name"] not in ("distance", "aftermath")]


def _clean_variants(fields: list[dict], given: Mapping[str, str]) -> dict[str, str]:
    """``given`` less the values equal to their default (the page's and the URL's form:
    only what differs is named, as a command line would)."""
    defaults = {f["name"]: f["default"] for f in fields}
    return {k: str(v).strip() for k, v in given.items()
            if str(v).strip().lower() != defaults.get(k, object())}


# ----------------------------------------------------------------------------- states

@dataclasses.dataclass
class CheckState:
    """The Checks tab: a system, its check variants (``NAME=VALUE`` texts that differ
    from the defaults), the value of each native axis (:data:`ALL` or one value, as
    text), and the difficulty solver's target chance and competence."""

    system: str
    variants: dict[str, str] = dataclasses.field(default_factory=dict)
    axes: dict[str, str] = dataclasses.field(default_factory=dict)
    target: float = 0.7
    competence: str = ""


@dataclasses.dataclass
class DuelState:
    """The Duel tab: archetypes A (side 0) and B (side 1), each side's weapon, armour,
    tactic and plan (None: the archetype's own), the starting distance, the combat
    variants that differ from the defaults, the aftermath, exact or Monte Carlo."""

    system: str
    a: str
    b: str
    weapon_a: str | None = None
    weapon_b: str | None = None
    armour_a: str | None = None
    armour_b: str | None = None
    tactic_a: str | None = None
    tactic_b: str | None = None
    plan_a: str | None = None
    plan_b: str | None = None
    distance: int = 0
    variants: dict[str, str] = dataclasses.field(default_factory=dict)
    aftermath: str = "leave"
    method: str = "exact"
    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED
    round_cap: int = DEFAULT_ROUND_CAP


@dataclasses.dataclass
class AuditState:
    source: str = "default"
    suggest: bool = True


@dataclasses.dataclass
class PageState:
    tab: str
    lang: str
    check: CheckState
    duel: DuelState
    audit: AuditState


def default_check(system: str | None = None) -> CheckState:
    from engines.system import get

    system = system or check_systems()[0]
    spec = get(system)
    axes = {name: (ALL if name in (spec.competence_axis, spec.difficulty_axis) or
                   len(spec.axes) <= 2 else variant_text(0 if 0 in values else values[0]))
            for name, values in spec.axes.items()}
    comp = spec.axes.get(spec.competence_axis, ())
    competence = variant_text(comp[len(comp) // 2]) if comp else ""
    return CheckState(system, {}, axes, 0.7, competence)


def default_duel(system: str | None = None) -> DuelState:
    from analysis.combat import archetypes

    system = system or combat_systems()[0]
    names = archetypes.names(system)
    first = next((n for n in names if n == "competent"), names[0])
    return DuelState(system, first, first)


def default_state(guardrails: str | None = None) -> PageState:
    return PageState("checks", "en", default_check(), default_duel(),
                     AuditState("file" if guardrails else "default"))


# ----------------------------------------------------------------------------- the query

#: query key → (tab state, attribute); the order the address bar shows them in
DUEL_KEYS = {"ds": "system", "a": "a", "b": "b", "wa": "weapon_a", "wb": "weapon_b",
             "xa": "armour_a", "xb": "armour_b", "ta": "tactic_a", "tb": "tactic_b",
             "pa": "plan_a", "pb": "plan_b", "dist": "distance", "dv": "variants",
             "after": "aftermath", "m": "method", "n": "trials", "seed": "seed",
             "cap": "round_cap"}
CHECK_KEYS = {"cs": "system", "cv": "variants", "cx": "axes", "ct": "target",
              "cc": "competence"}
#: every key the page writes into (and reads from) the address bar's query
QUERY_KEYS = ("tab", "lang", *CHECK_KEYS, *DUEL_KEYS, "src", "sg")


def _pairs(mapping: Mapping[str, str]) -> str:
    return ",".join(f"{k}={v}" for k, v in mapping.items())


def _split_pairs(text: str, what: str) -> dict[str, str]:
    out = {}
    for item in (x.strip() for x in text.split(",")):
        if not item:
            continue
        if "=" not in item:
            raise InputError(f"{what} {item!r}: expected NAME=VALUE")
        k, _sep, v = item.partition("=")
        out[k.strip()] = v.strip()
    return out


def to_query(state: PageState) -> dict[str, str]:
    """The address bar's query of a view: every key of :data:`QUERY_KEYS` whose value
    differs from the default view's (so a link stays short and reads as the command
    does)."""
    base = default_state()
    q: dict[str, str] = {}

    def put(key, value, default):
        if value != default:
            q[key] = value

    put("tab", state.tab, base.tab)
    put("lang", state.lang, base.lang)
    c, c0 = state.check, default_check(state.check.system)
    put("cs", c.system, base.check.system)
    put("cv", _pairs(c.variants), "")
    put("cx", _pairs({k: v for k, v in c.axes.items() if v != c0.axes.get(k)}), "")
    put("ct", repr(float(c.target)), repr(base.check.target))
    put("cc", c.competence, c0.competence)
    d, d0 = state.duel, default_duel(state.duel.system)
    put("ds", d.system, base.duel.system)
    for key, attr in DUEL_KEYS.items():
        if key in ("ds", "dv"):
            continue
        value, default = getattr(d, attr), getattr(d0, attr)
        put(key, "" if value is None else str(value), "" if default is None else str(default))
    put("dv", _pairs(d.variants), "")
    put("src", state.audit.source, base.audit.source)
    put("sg", "1" if state.audit.suggest else "0", "1")
    return q


def _first(value) -> str:
    """One query value as text (a server gives lists of bytes; a test gives strings)."""
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)


def parse_query(query: Mapping[str, Any], guardrails: str | None = None,
                ) -> tuple[PageState, list[str]]:
    """The view a query describes, and one message per value that was refused (the
    default stands in its place). Nothing here raises, and nothing reads a file: a value
    that looks like a path is refused like any other bad value."""
    from engines.system import get

    q = {str(k): _first(v) for k, v in query.items()}
    q = {k: v for k, v in q.items() if v.strip()}  # an empty value is the default
    state = default_state(guardrails)
    messages: list[str] = []

    def refuse(key: str, exc: Exception | str) -> None:
        messages.append(_("Address value {key}={value!r} ignored: {why}").format(
            key=key, value=q.get(key, "")[:80], why=str(exc)))

    unknown = sorted(set(q) - set(QUERY_KEYS))
    for key in unknown:
        refuse(key, _("the page has no such setting"))
    if "tab" in q:
        if q["tab"] in TABS:
            state.tab = q["tab"]
        else:
            refuse("tab", _("choose one of {choices}").format(choices=", ".join(TABS)))
    if "lang" in q:
        if q["lang"] in LANGUAGES:
            state.lang = q["lang"]
        else:
            refuse("lang", _("choose one of {choices}").format(choices=", ".join(LANGUAGES)))

    def take(key: str, apply: Callable[[str], Any]) -> None:
        """``apply`` the value of ``key`` when the query has one; a value the CLI's
        validation refuses becomes a message and the default stands."""
        if key in q:
            try:
                apply(q[key])
            except InputError as exc:
                refuse(key, exc)

    # Checks
    def check_system(text: str) -> None:
        sid = get(text.strip()).id
        if sid not in check_systems():
            raise InputError(f"{sid}: this system declares no check grid")
        state.check = default_check(sid)

    take("cs", check_system)
    c = state.check
    take("cv", lambda t: setattr(c, "variants", check_variants(
        c.system, _split_pairs(t, "variant"))))
    take("cx", lambda t: setattr(c, "axes", {**c.axes, **check_axes(
        c.system, _split_pairs(t, "axis"))}))
    take("ct", lambda t: setattr(c, "target", check_target(t)))
    take("cc", lambda t: setattr(c, "competence", check_competence(c.system, t)))

    # Duel
    def duel_system(text: str) -> None:
        sid = get(text.strip()).id
        if sid not in combat_systems():
            raise InputError(f"{sid}: this system declares no combat rules, so there "
                             "is no duel")
        state.duel = default_duel(sid)

    take("ds", duel_system)
    d = state.duel
    for key in ("a", "b"):
        take(key, lambda t, key=key: setattr(d, key, check_archetype(d.system, t,
                                                                      key.upper())))
    for key in ("wa", "wb", "xa", "xb", "ta", "tb", "pa", "pb"):
        attr = DUEL_KEYS[key]
        take(key, lambda t, attr=attr: setattr(d, attr, check_gear(
            d.system, attr.split("_")[0], t)))
    simple = {"dist": ("distance", lambda t: check_distance_m(d.system, t)),
              "after": ("aftermath", check_aftermath),
              "m": ("method", check_method),
              "n": ("trials", lambda t: limits.trials(t, "trials")),
              "seed": ("seed", lambda t: limits.bounded_int(t, 0, 2**63 - 1, "a seed",
                                                             "seed")),
              "cap": ("round_cap", lambda t: limits.round_cap(t, "round cap"))}
    for key, (attr, check) in simple.items():
        take(key, lambda t, attr=attr, check=check: setattr(d, attr, check(t)))
    take("dv", lambda t: setattr(d, "variants", duel_variants(
        d.system, _split_pairs(t, "variant"))))

    # Audit
    if "src" in q:
        src = q["src"]
        if src == "file" and not guardrails:
            refuse("src", _("no guardrail file was named on the command line "
                           "(rpg-balance serve --guardrails FILE)"))
        elif src in AUDIT_SOURCES:
            state.audit.source = src
        else:
            refuse("src", _("the audit reads the shipped guardrails, the file named by "
                           "rpg-balance serve --guardrails, or a file uploaded through the "
                           "page; never a path written in the address"))
    if "sg" in q:
        if q["sg"] in ("0", "1"):
            state.audit.suggest = q["sg"] == "1"
        else:
            refuse("sg", _("expected 0 or 1"))
    return state, messages


# ----------------------------------------------------------------------------- validation

def check_variants(system: str, given: Mapping[str, str]) -> dict[str, str]:
    """Check variants as ``--variant`` validates them (:func:`engines.variants.
    parse_variants`); returns those that differ from the defaults."""
    from analysis.checks.curves import variants_for

    variants_for(system, [f"{k}={v}" for k, v in given.items()])
    return _clean_variants(check_variant_fields(system), given)


def check_axes(system: str, given: Mapping[str, str]) -> dict[str, str]:
    """Axis values of the curves' slice: each one of the system's native values, or
    :data:`ALL`."""
    from engines.system import get

    axes = get(system).axes
    out = {}
    for name, text in given.items():
        if name not in axes:
            raise InputError(f"{system} has no axis {name!r}; known: {', '.join(axes)}")
        shown = [variant_text(v) for v in axes[name]]
        if text != ALL and text not in shown:
            raise InputError(f"axis {name}: {text!r} is not one of its values "
                             f"({shown[0]} … {shown[-1]}) or {ALL}")
        out[name] = text
    return out


def check_target(text) -> float:
    """A target chance strictly between 0 and 1 (the solver's own check)."""
    from analysis.workflow.solvers import valid_target

    try:
        value = float(str(text).strip())
    except ValueError:
        raise InputError(f"target: expected a probability strictly between 0 and 1, "
                         f"got {str(text)!r}") from None
    return valid_target(value)


def check_competence(system: str, text: str) -> str:
    """A native competence value of ``system``'s competence axis (as text)."""
    from engines.system import get

    spec = get(system)
    values = [variant_text(v) for v in spec.axes.get(spec.competence_axis, ())]
    text = str(text).strip()
    if text not in values:
        raise InputError(f"competence: {text!r} is not a value of {system}'s "
                         f"{spec.competence_axis} axis ({values[0]} … {values[-1]})"
                         if values else f"{system} declares no competence axis")
    return text


def check_archetype(system: str, name: str, side: str) -> str:
    """An archetype of the system's library (the loader's own message otherwise)."""
    from analysis.combat import archetypes

    name = str(name).strip()
    if name not in archetypes.names(system):
        archetypes.combatant(system, name)  # raises with the loader's words
        raise InputError(f"side {side}: unknown archetype {name!r}")
    return name


def gear_options(system: str, kind: str) -> list[str]:
    """The choices of one kind of gear (weapon, armour, tactic, plan) as text."""
    from analysis.combat import archetypes, lethality
    from engines.distance import PLANS

    if kind == "weapon":
        return [str(x) for x in archetypes.weapons(system)]
    if kind == "armour":
        return [str(x) for x in archetypes.armours(system)]
    if kind == "tactic":
        return [str(x) for x in archetypes.tactics(system)]
    if kind == "plan":
        return list(PLANS) if lethality.has_distance(system) else []
    raise InputError(f"unknown kind of gear {kind!r}")


def check_gear(system: str, kind: str, text: str) -> str:
    options = gear_options(system, kind)
    text = str(text).strip()
    if text not in options:
        raise InputError(f"{system}: unknown {kind} {text!r}; known: "
                         + (", ".join(options) if options else f"none (no {kind} rules)"))
    return text


def check_distance_m(system: str, text) -> int:
    """Metres between the fighters at the start (the combat variant ``distance``)."""
    from analysis.combat.lethality import has_distance
    from engines.distance import MAX_DISTANCE

    value = limits.bounded_int(text, 0, MAX_DISTANCE, "whole metres", "distance")
    if value and not has_distance(system):
        raise InputError(f"distance: {system} fights start engaged (its combat has no "
                         "distance rules)")
    return value


def check_aftermath(text: str) -> str:
    from engines.fight import check_aftermath as check

    return check(str(text).strip())


def check_method(text: str) -> str:
    if text not in METHODS:
        raise InputError(f"method: expected exact or mc, got {text!r}")
    return text


def duel_variants(system: str, given: Mapping[str, str]) -> dict[str, str]:
    """Combat variants as ``duel --variant`` validates them; those that differ from the
    defaults (``distance`` and ``aftermath`` have their own settings)."""
    from analysis.combat.lethality import combat_variants

    for key in ("distance", "aftermath"):
        if key in given:
            raise InputError(f"variant {key}: set it with its own setting, not as a "
                             "rule variant")
    combat_variants(system, [f"{k}={v}" for k, v in given.items()])
    return _clean_variants(combat_variant_fields(system), given)


# ----------------------------------------------------------------------------- checks

@dataclasses.dataclass
class CheckResult:
    table: pd.DataFrame        # the tidy slice (system, axes, p)
    pivot: pd.DataFrame        # competence rows × difficulty columns (or the slice)
    figure: bytes              # PNG (empty when not drawn: see :func:`check_figure`)
    solve: pd.DataFrame | None
    command: str
    solve_command: str | None
    sentence: str
    axes: dict                 # the values of each axis in the slice


def check_result(c: CheckState, *, figure: bool = True) -> CheckResult:
    """The success curves of one slice of the system's native axes (exact) and the
    difficulty closest to the target chance for the chosen competence."""
    from analysis.checks.curves import success_curves, variants_for
    from analysis.workflow import solvers
    from analysis.workflow.audit import reproduce
    from engines.system import get

    spec = get(c.system)
    v = variants_for(c.system, [f"{k}={val}" for k, val in c.variants.items()])
    axes = {}
    for name, values in spec.axes.items():
        chosen = c.axes.get(name, ALL)
        axes[name] = list(values) if chosen == ALL else \
            [values[[variant_text(x) for x in values].index(chosen)]]
    with ENGINE_LOCK:
        table = success_curves(c.system, "exact", variants=v, axes=axes)
    comp, diff = spec.competence_axis, spec.difficulty_axis
    free = [n for n, vals in axes.items() if len(vals) > 1]
    if comp in free and diff in free and len(free) == 2:
        pivot = table.pivot(index=comp, columns=diff, values="p")
    else:
        pivot = table.drop(columns="system").set_index(list(spec.axes))
    fixed = {n: c.axes[n] for n in spec.axes if c.axes.get(n, ALL) != ALL}
    command = " ".join([reproduce.PROG, "curves", c.system,
                        *reproduce.variant_args(c.variants), "--format", "csv"])
    if fixed:
        command += "  # " + _("rows with") + " " + ", ".join(
            f"{k}={val}" for k, val in fixed.items())
    solve = solve_command = None
    sentence = _("Exact chance of success in {system}, variants: {variants}.").format(
        system=c.system, variants=_pairs(c.variants) or _("defaults"))
    if solvers.solver_system(c.system) is not None and c.competence:
        with ENGINE_LOCK:
            solve = solvers.solve_difficulty(c.target, int(c.competence), c.system,
                                             {c.system: v})
        words = [reproduce.PROG, "solve", "difficulty", "--target", repr(float(c.target)),
                 "--competence", c.competence, "--system", c.system,
                 *reproduce.variant_args(c.variants)]
        solve_command = " ".join(words)
        best = solve.iloc[0]
        sentence += " " + _("For {axis} {competence} and a target of {target}, the "
                            "closest difficulty is {difficulty} ({p}).").format(
            axis=comp, competence=c.competence, target=percent(c.target),
            difficulty=best["difficulty"], p=percent(float(best["p"])))
    png = _curve_figure(table, spec, axes) if figure else b""
    return CheckResult(table, pivot, png, solve, command, solve_command, sentence, axes)


def check_figure(c: CheckState, r: CheckResult) -> bytes:
    """The figure of a :class:`CheckResult` computed without it (the page shows the
    numbers first and draws the figure after)."""
    from engines.system import get

    return _curve_figure(r.table, get(c.system), r.axes)


def _curve_figure(table: pd.DataFrame, spec, axes: dict) -> bytes:
    """P(success) along the competence axis, one line per value of the other free axis
    (at most eight, evenly spread)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    comp = spec.competence_axis if len(axes.get(spec.competence_axis, ())) > 1 else None
    free = [n for n, vals in axes.items() if len(vals) > 1 and n != comp]
    fig = Figure(figsize=(7.5, 3.6))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    if comp is None:
        x = free[0] if free else table.columns[1]
        ax.plot(range(len(table)), table["p"], marker="o")
        ax.set_xticks(range(len(table)), [str(v) for v in table[x]], rotation=90, fontsize=7)
        ax.set_xlabel(x)
    else:
        other = free[0] if free else None
        groups = [(None, table)] if other is None else list(table.groupby(other, sort=False))
        if len(groups) > 8:
            keep = np.unique(np.linspace(0, len(groups) - 1, 8).round().astype(int))
            groups = [groups[i] for i in keep]
        for key, g in groups:
            ax.plot(g[comp], g["p"], marker=".",
                    label=None if key is None else f"{other} {key}")
        ax.set_xlabel(comp)
        if other is not None:
            ax.legend(fontsize=7, ncol=2)
    ax.set_ylabel(_("P(success)"))
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return _png(fig)


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return buf.getvalue()


# ----------------------------------------------------------------------------- duel

@dataclasses.dataclass
class DuelResult:
    row: dict                  # lethality.summary (the duel command's summary row)
    one_hit: pd.DataFrame      # A on B and B on A, exact
    sentence: str
    command: str
    one_hit_command: str
    figure: bytes              # PNG (empty when not drawn: see :func:`duel_figure`)
    stats: Any = None          # the FightStats behind the row


def _spec(d: DuelState, side: str) -> dict:
    spec: dict = {"archetype": getattr(d, side)}
    for key in ("weapon", "armour", "tactic", "plan"):
        value = getattr(d, f"{key}_{side}")
        if value is not None:
            spec[key] = _armour_value(d.system, value) if key == "armour" else value
    return spec


def _armour_value(system: str, value: str):
    """Armour as the library gives it (points are numbers, as ``--armour-a 4``)."""
    from analysis.combat import archetypes

    for x in archetypes.armours(system):
        if str(x) == str(value):
            return x
    return value


def duel_variant_map(d: DuelState) -> dict[str, str]:
    """The combat variants of the duel as ``--variant`` gives them (distance and
    aftermath included when they are not the defaults)."""
    out = dict(d.variants)
    if d.distance:
        out["distance"] = str(d.distance)
    if d.aftermath != "leave":
        out["aftermath"] = d.aftermath
    return out


def duel_command(d: DuelState, table: str | None = None) -> str:
    from analysis.workflow.audit import reproduce

    mc = (d.trials, d.seed) if d.method == "mc" and table is None else None
    return reproduce.duel(d.system, _spec(d, "a"), _spec(d, "b"),
                          variants=duel_variant_map(d), table=table, mc=mc,
                          round_cap=d.round_cap) + " --format csv"


def duel_result(d: DuelState, *, on_batch: Callable[[int, int], None] | None = None,
                figure: bool = True) -> DuelResult:
    """The duel as ``rpg-balance duel`` computes it: exact (the default), or Monte Carlo
    over ``d.trials`` fights from ``d.seed`` (``on_batch(done, total)`` after each batch
    of :data:`analysis.combat.lethality.MC_BATCH` fights; raise :class:`Cancelled` in it
    to stop). The lock is held batch by batch, never for a whole long run."""
    from analysis.combat import lethality

    v = lethality.combat_variants(d.system, duel_variant_map(d))
    sa, sb = _spec(d, "a"), _spec(d, "b")
    if d.method == "exact":
        with ENGINE_LOCK:
            stats = lethality.duel_stats(d.system, sa, sb, "exact", variants=v,
                                         round_cap=d.round_cap)
    else:
        def batch(done: int, total: int) -> None:
            ENGINE_LOCK.release()
            try:
                if on_batch is not None:
                    on_batch(done, total)
            finally:
                ENGINE_LOCK.acquire()

        with ENGINE_LOCK:
            stats = lethality.duel_stats(d.system, sa, sb, "mc", trials=d.trials, seed=d.seed,
                                         variants=v, round_cap=d.round_cap, progress=False,
                                         on_batch=batch)
    st = next(iter(stats.values()))
    name_a, name_b = lethality.stats_names(stats)
    row = lethality.summary(st, system=d.system, a=name_a, b=name_b)
    with ENGINE_LOCK:
        hits = pd.DataFrame([
            {"attacker": f"{x} ({side})", "target": y, **lethality.one_hit(d.system, s1, s2, v)}
            for side, x, y, s1, s2 in (("A", name_a, name_b, sa, sb),
                                       ("B", name_b, name_a, sb, sa))])
    png = _duel_figure(st, name_a, name_b, d.round_cap) if figure else b""
    from analysis.combat.archetypes import weapon_name

    # ``duel --table one-hit`` lists every weapon of A unless one is named: name A's
    one_hit = dataclasses.replace(d, method="exact",
                                  weapon_a=d.weapon_a or weapon_name(d.system, sa))
    return DuelResult(row, hits, duel_sentence(d, row), duel_command(d),
                      duel_command(one_hit, "one-hit"), png, st)


def duel_figure(d: DuelState, r: DuelResult) -> bytes:
    """The figure of a :class:`DuelResult` computed without it."""
    return _duel_figure(r.stats, r.row["a"], r.row["b"], d.round_cap)


def _p(row: dict, key: str, se_key: str | None, exact: bool) -> str:
    text = percent(float(row[key]))
    if not exact and se_key is not None:
        text += " ± " + percent(float(row[se_key]), 2)
    return text


def duel_sentence(d: DuelState, row: dict) -> str:
    """Who wins, how the loser ends and how long it lasts, in words that name the
    fighters, gear, variants and method (the command beside it prints the numbers)."""
    exact = row["method"] == "exact"
    variants = _pairs(duel_variant_map(d)) or _("defaults")
    how = _("exact") if exact else _(
        "Monte Carlo, {trials} fights from seed {seed}, ± one standard error").format(
        trials=fmt_decimal(int(row["trials"])), seed=d.seed)
    head = _("{a} (A) against {b} (B) in {system} ({how}; variants: {variants}; round cap "
             "{cap}):").format(a=row["a"], b=row["b"], system=d.system, how=how,
                               variants=variants, cap=d.round_cap)
    wins = _("A wins {pa}, B wins {pb}, neither {pn}.").format(
        pa=_p(row, "p_side0", "se_side0", exact), pb=_p(row, "p_side1", "se_side1", exact),
        pn=_p(row, "p_neither", "se_neither", exact))
    fates = _("The loser ends dead {dead}, dying {dying}, out {out} (aftermath: "
              "{aftermath}).").format(
        dead=_p(row, "p_loser_dead", "se_loser_dead", exact),
        dying=_p(row, "p_loser_dying", "se_loser_dying", exact),
        out=_p(row, "p_loser_out", "se_loser_out", exact), aftermath=row["aftermath"])
    mean = fmt_decimal(round(float(row["rounds_mean"]), 2))
    if not exact:
        mean += " ± " + fmt_decimal(round(float(row["rounds_se"]), 3))
    rounds = _("A fight lasts {mean} rounds on average (median {median}).").format(
        mean=mean, median=fmt_decimal(int(row["rounds_q50"])))
    return " ".join([head, wins, fates, rounds])


def _duel_figure(st, name_a: str, name_b: str, round_cap: int) -> bytes:
    """P(the fight is still on after round k), and the round it ends in; Monte Carlo
    lines carry ±2 SE bands."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pmf = np.asarray(st.rounds_pmf(), dtype=float)
    top = int(min(max(np.nonzero(pmf > 1e-4)[0].max(initial=1) + 1, 5), round_cap, 30))
    k = np.arange(top + 1)
    on = 1 - np.cumsum(pmf)[: top + 1]
    fig = Figure(figsize=(7.5, 2.8))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    left.step(k, on, where="post")
    right.bar(k, pmf[: top + 1])
    if not st.exact:
        n = st.n
        se_on = np.sqrt(np.clip(on * (1 - on), 0, None) / n)
        left.fill_between(k, on - 2 * se_on, on + 2 * se_on, step="post", alpha=0.25)
        se_p = np.sqrt(np.clip(pmf[: top + 1] * (1 - pmf[: top + 1]), 0, None) / n)
        right.errorbar(k, pmf[: top + 1], yerr=2 * se_p, fmt="none", ecolor="k", lw=0.8)
    left.set(xlabel=_("round"), ylabel=_("P(fight still on)"), ylim=(0, 1.02))
    right.set(xlabel=_("round"), ylabel=_("P(ends in this round)"))
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.suptitle(f"{name_a} vs {name_b}", fontsize=9)
    fig.tight_layout()
    return _png(fig)


def warm() -> None:
    """Each system's default check and exact duel once (kernels loaded from numba's
    cache, libraries read), so a server's first page does not pay for them."""
    for system in check_systems():
        check_result(default_check(system), figure=False)
    for system in combat_systems():
        with contextlib.suppress(InputError):
            duel_result(default_duel(system), figure=False)


# ----------------------------------------------------------------------------- audit

#: the columns the audit tab shows (the rest is in the command's csv)
AUDIT_COLUMNS = ("guardrail", "system", "metric", "value", "se", "min", "max", "status",
                 "reason", "suggestion", "cure", "reproduce")


def load_upload(data: bytes, filename: str = "upload.toml"):
    """The scenarios of an uploaded guardrail file: its bytes are parsed as TOML in
    memory (the upload's name is only a label; no path of the server is read)."""
    import tomllib

    from analysis.workflow.scenario import parse_scenario

    if len(data) > MAX_UPLOAD:
        raise InputError(f"{filename}: larger than {MAX_UPLOAD // 1000} kB; a guardrail "
                         "file is a few kB")
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{filename}: not a TOML file: {exc}") from None
    name = filename.replace("/", "_").replace("\\", "_")[:80] or "upload.toml"
    sc = parse_scenario(parsed, name)
    if not sc.guardrails:
        raise InputError(f"{name}: no [[guardrails]] entries to audit")
    return [sc]


def audit_result(scenarios, *, suggest: bool = True, files: list[str] | None = None,
                 ) -> pd.DataFrame:
    """The audit of ``scenarios`` as ``rpg-balance audit`` prints it (default seed,
    batch and trial cap; its sentences are shown in the page's language with
    :func:`reports.i18n.localise_table`)."""
    from analysis.workflow import audit

    with ENGINE_LOCK:
        return audit.evaluate(scenarios, suggestions=suggest, progress=False,
                              files=files or None)


def audit_command(source: str, guardrails: str | None, suggest: bool) -> str:
    words = ["rpg-balance", "audit"]
    if source == "file" and guardrails:
        words.append(shlex.quote(guardrails))
    elif source == "upload":
        words.append(_("UPLOADED_FILE.toml"))
    if not suggest:
        words.append("--no-suggest")
    return " ".join([*words, "--format", "csv"])
