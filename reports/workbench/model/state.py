"""The workbench's state: the tab on screen, the language and one state per tab
(:class:`CheckState`, :class:`DuelState`, :class:`AuditState`, together a
:class:`PageState`), their defaults, and the flat query the address bar carries
(:func:`to_query`; read back by :func:`reports.workbench.model.validation.parse_query`).
Also the engine lock every tab's numbers run under (:data:`ENGINE_LOCK`: numba's default
threading layer must not be entered by two threads at once) and the systems and variant
fields a state may name."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Mapping

from engines.constants import ROUND_CAP, WORKBENCH_SEED

__all__ = ["ALL", "AUDIT_SOURCES", "CHECK_KEYS", "DEFAULT_ROUND_CAP", "DEFAULT_SEED",
           "DEFAULT_TRIALS", "DUEL_KEYS", "ENGINE_LOCK", "MAX_UPLOAD", "METHODS", "QUERY_KEYS",
           "TABS", "AuditState", "Cancelled", "CheckState", "DuelState", "FairLock", "PageState",
           "check_systems", "check_variant_fields", "combat_systems", "combat_variant_fields",
           "default_check", "default_duel", "default_state", "pairs_text", "to_query",
           "variant_fields", "variant_text"]


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
DEFAULT_SEED = WORKBENCH_SEED
DEFAULT_ROUND_CAP = ROUND_CAP
#: the largest guardrail file the page accepts as an upload (bytes)
MAX_UPLOAD = 1_000_000
#: the word of the "no difficulty axis chosen" value of a check axis
ALL = "all"


class Cancelled(Exception):
    """Raised between Monte Carlo batches when the designer pressed Stop."""



def check_systems() -> list[str]:
    """The registered systems with success curves (built-ins, then plug-ins)."""
    from engines.system import registry

    return [sid for sid, s in registry().items() if s.checks.grid is not None]


def combat_systems() -> list[str]:
    """The registered systems with combat rules and an archetype library."""
    from engines.system import registry

    return [sid for sid, s in registry().items()
            if s.combat is not None and s.combat.archetypes]


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

    return variant_fields(get(system).checks.variants)


def combat_variant_fields(system: str) -> list[dict]:
    """The combat variants the duel tab shows in its rule panel (``distance`` and
    ``aftermath`` have widgets of their own)."""
    from analysis.combat.archetypes import engine

    return [f for f in variant_fields(engine(system).Variants)
            if f["name"] not in ("distance", "aftermath")]



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
    swept = spec.ladder.swept if spec.ladder else ()
    # the ladder's axes shown whole, every other axis at its neutral (Checks.neutral)
    axes = {name: (ALL if name in swept or len(spec.checks.axes) <= 2
                   else variant_text(spec.checks.held(name)))
            for name in spec.checks.axes}
    comp = spec.checks.axes.get(swept[0], ()) if swept else ()
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


def pairs_text(mapping: Mapping[str, str]) -> str:
    """``k=v,k=v``: a mapping as the address bar's query and the page's captions write it."""
    return ",".join(f"{k}={v}" for k, v in mapping.items())


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
    put("cv", pairs_text(c.variants), "")
    put("cx", pairs_text({k: v for k, v in c.axes.items() if v != c0.axes.get(k)}), "")
    put("ct", repr(float(c.target)), repr(base.check.target))
    put("cc", c.competence, c0.competence)
    d, d0 = state.duel, default_duel(state.duel.system)
    put("ds", d.system, base.duel.system)
    for key, attr in DUEL_KEYS.items():
        if key in ("ds", "dv"):
            continue
        value, default = getattr(d, attr), getattr(d0, attr)
        put(key, "" if value is None else str(value), "" if default is None else str(default))
    put("dv", pairs_text(d.variants), "")
    put("src", state.audit.source, base.audit.source)
    put("sg", "1" if state.audit.suggest else "0", "1")
    return q
