"""The workbench's validation: every value read back from the address bar goes through
the command line's own checks (the system registry, :func:`engines.variants.parse_variants`,
the archetype loader, the bounds of :mod:`analysis.limits`); :func:`parse_query` drops a
bad value for its default with one message, never an exception."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from analysis import limits
from engines.errors import InputError

from ...i18n import LANGUAGES, _
from .state import (
    ALIASES,
    ALL,
    AUDIT_SOURCES,
    DUEL_KEYS,
    MAX_PAGE_SEED,
    METHODS,
    QUERY_KEYS,
    SENSITIVITY_SOURCES,
    TABS,
    UNPINNED,
    PageState,
    check_systems,
    check_variant_fields,
    combat_systems,
    combat_variant_fields,
    default_check,
    default_duel,
    default_state,
    variant_text,
)

__all__ = [
    "check_aftermath",
    "check_archetype",
    "check_axes",
    "check_competence",
    "check_distance_m",
    "check_gear",
    "check_method",
    "check_target",
    "check_variants",
    "duel_variants",
    "gear_options",
    "parse_query",
]


def _clean_variants(fields: list[dict], given: Mapping[str, str]) -> dict[str, str]:
    """``given`` less the values equal to their default (the page's and the URL's form:
    only what differs is named, as a command line would)."""
    defaults = {f["name"]: f["default"] for f in fields}
    return {
        k: str(v).strip()
        for k, v in given.items()
        if str(v).strip().lower() != defaults.get(k, object())
    }


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


def _first(value) -> str:
    """One query value as text (a server gives lists of bytes; a test gives strings)."""
    if isinstance(value, list | tuple):
        value = value[0] if value else ""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return str(value)


def parse_query(
    query: Mapping[str, Any],
    guardrails: str | None = None,
) -> tuple[PageState, list[str]]:
    """The view a query describes, and one message per value that was refused (the
    default stands in its place). Nothing here raises, and nothing reads a file: a value
    that looks like a path is refused like any other bad value. The short keys of earlier
    addresses (:data:`~.state.ALIASES`: ``n``, ``dist``, ``ds`` …) are read as the keys
    that replaced them, so an old link opens the same view; when both are given the new
    key stands. A message names the key as the address wrote it."""
    from engines.system import get

    given = {str(k): _first(v) for k, v in query.items()}
    given = {k: v for k, v in given.items() if v.strip()}  # an empty value is the default
    q = {k: v for k, v in given.items() if k not in ALIASES}
    written = {k: k for k in q}
    for old, new in ALIASES.items():
        if old in given and new not in q:
            q[new], written[new] = given[old], old
    state = default_state(guardrails)
    messages: list[str] = []

    def refuse(key: str, exc: Exception | str) -> None:
        messages.append(
            _("Address value {key}={value!r} ignored: {why}").format(
                key=written.get(key, key), value=q.get(key, "")[:80], why=str(exc)
            )
        )

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

    take("check-system", check_system)
    c = state.check
    take(
        "check-variant",
        lambda t: setattr(c, "variants", check_variants(c.system, _split_pairs(t, "variant"))),
    )
    take(
        "check-axes",
        lambda t: setattr(c, "axes", {**c.axes, **check_axes(c.system, _split_pairs(t, "axis"))}),
    )
    take("target", lambda t: setattr(c, "target", check_target(t)))
    take("competence", lambda t: setattr(c, "competence", check_competence(c.system, t)))

    # Duel
    def duel_system(text: str) -> None:
        spec = get(text.strip())
        sid = spec.require("combat") and spec.id
        if sid not in combat_systems():  # combat rules without an archetype library
            raise InputError(f"{sid}: this system declares no combat archetypes")
        state.duel = default_duel(sid)

    take("duel-system", duel_system)
    d = state.duel
    for key in ("a", "b"):

        def archetype(t: str, key: str = key) -> None:
            setattr(d, key, check_archetype(d.system, t, key.upper()))

        take(key, archetype)
    for key in (
        "weapon-a",
        "weapon-b",
        "armour-a",
        "armour-b",
        "tactic-a",
        "tactic-b",
        "plan-a",
        "plan-b",
    ):

        def gear(t: str, attr: str = DUEL_KEYS[key]) -> None:
            setattr(d, attr, check_gear(d.system, attr.split("_")[0], t))

        take(key, gear)
    simple = {
        "distance": lambda t: check_distance_m(d.system, t),
        "aftermath": check_aftermath,
        "method": check_method,
        "trials": lambda t: limits.trials(t, "trials"),
        "seed": lambda t: limits.bounded_int(t, 0, MAX_PAGE_SEED, "a seed", "seed"),
        "round-cap": lambda t: limits.round_cap(t, "round cap"),
    }
    for key, check in simple.items():

        def duel_value(
            t: str, attr: str = DUEL_KEYS[key], check: Callable[[str], Any] = check
        ) -> None:
            setattr(d, attr, check(t))

        take(key, duel_value)
    take(
        "duel-variant",
        lambda t: setattr(d, "variants", duel_variants(d.system, _split_pairs(t, "variant"))),
    )
    from .edits import read_edits

    read_edits(state, take, _split_pairs)

    # Audit
    if "source" in q:
        src = q["source"]
        if src == "file" and not guardrails:
            refuse(
                "source",
                _(
                    "no guardrail file was named on the command line "
                    "(rpg-balance serve --guardrails FILE)"
                ),
            )
        elif src in AUDIT_SOURCES:
            state.audit.source = src
        else:
            refuse(
                "source",
                _(
                    "the audit reads the shipped guardrails, the file named by "
                    "rpg-balance serve --guardrails, or a file uploaded through the "
                    "page; never a path written in the address"
                ),
            )
    if "suggest" in q:
        if q["suggest"] in ("0", "1"):
            state.audit.suggest = q["suggest"] == "1"
        else:
            refuse("suggest", _("expected 0 or 1"))
    _more_of_the_cli(state, take)
    if "pin" in q:
        state.pinned = _read_pin(q["pin"], guardrails, messages)
    return state, messages


def _more_of_the_cli(state: PageState, take: Callable) -> None:
    """The distance table's distances, the Groups tab and the Sensitivity tab's knobs."""
    from .distance import check_distances
    from .groups import shipped_scenarios

    d, g = state.duel, state.groups
    take("distances", lambda t: setattr(d, "distances", check_distances(d.system, t)))

    def scenario(text: str) -> None:
        known = [*shipped_scenarios(), "upload"]
        if text not in known:
            raise InputError(_("choose one of {choices}").format(choices=", ".join(known)))
        g.scenario = text

    take("scenario", scenario)
    take("group-trials", lambda t: setattr(g, "trials", limits.trials(t, "group-trials")))
    take(
        "group-seed",
        lambda t: setattr(
            g, "seed", limits.bounded_int(t, 0, MAX_PAGE_SEED, "a seed", "group-seed")
        ),
    )

    def knobs(text: str) -> None:
        if text not in SENSITIVITY_SOURCES:
            raise InputError(
                _("choose one of {choices}").format(choices=", ".join(SENSITIVITY_SOURCES))
            )
        state.sensitivity.knobs = text

    take("knobs", knobs)


def _read_pin(text: str, guardrails: str | None, messages: list[str]) -> PageState:
    """The setup pinned as A from the ``pin`` key (:func:`~.state.pin_text`): its query
    read as the address is, each refused value a message naming ``pin``."""
    from urllib.parse import parse_qsl

    inner = dict(parse_qsl(text))
    nested = [k for k in UNPINNED if k in inner]
    for k in nested:
        messages.append(
            _("Address value {key}={value!r} ignored: {why}").format(
                key="pin",
                value=f"{k}={inner.pop(k)}"[:80],
                why=_("a pinned setup has no tab, language or pin of its own"),
            )
        )
    pinned, more = parse_query(inner, guardrails)
    messages += [f"pin: {m}" for m in more]
    return pinned


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

    axes = get(system).checks.axes
    out = {}
    for name, text in given.items():
        if name not in axes:
            raise InputError(f"{system} has no axis {name!r}; known: {', '.join(axes)}")
        shown = [variant_text(v) for v in axes[name]]
        if text != ALL and text not in shown:
            raise InputError(
                f"axis {name}: {text!r} is not one of its values "
                f"({shown[0]} … {shown[-1]}) or {ALL}"
            )
        out[name] = text
    return out


def check_target(text) -> float:
    """A target chance strictly between 0 and 1 (the solver's own check)."""
    from analysis.workflow.solvers import valid_target

    try:
        value = float(str(text).strip())
    except ValueError:
        raise InputError(
            f"target: expected a probability strictly between 0 and 1, got {str(text)!r}"
        ) from None
    return valid_target(value)


def check_competence(system: str, text: str) -> str:
    """A native competence value of ``system``'s competence axis (as text)."""
    from engines.system import get

    spec = get(system)
    axis = spec.ladder.competence_axis if spec.ladder else None
    values = [variant_text(v) for v in (spec.checks.axes.get(axis, ()) if axis else ())]
    text = str(text).strip()
    if text not in values:
        raise InputError(
            f"competence: {text!r} is not a value of {system}'s "
            f"{axis} axis ({values[0]} … {values[-1]})"
            if values
            else f"{system} declares no competence axis"
        )
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
    from engines.constants import PLANS

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
        raise InputError(
            f"{system}: unknown {kind} {text!r}; known: "
            + (", ".join(options) if options else f"none (no {kind} rules)")
        )
    return text


def check_distance_m(system: str, text) -> int:
    """Metres between the fighters at the start (the combat variant ``distance``)."""
    from analysis.combat.lethality import has_distance
    from engines.distance import MAX_DISTANCE

    value = limits.bounded_int(text, 0, MAX_DISTANCE, "whole metres", "distance")
    if value and not has_distance(system):
        raise InputError(
            f"distance: {system} fights start engaged (its combat has no distance rules)"
        )
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
            raise InputError(f"variant {key}: set it with its own setting, not as a rule variant")
    combat_variants(system, [f"{k}={v}" for k, v in given.items()])
    return _clean_variants(combat_variant_fields(system), given)
