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
from typing import Any

from engines.constants import ROUND_CAP, WORKBENCH_SEED

__all__ = [
    "ADDRESS",
    "ALIASES",
    "ALL",
    "AUDIT_SOURCES",
    "CHECK_KEYS",
    "DEFAULT_DISTANCES",
    "DEFAULT_GROUP_TRIALS",
    "DEFAULT_ROUND_CAP",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "DUEL_KEYS",
    "ENGINE_LOCK",
    "GROUP_KEYS",
    "MAX_PAGE_SEED",
    "MAX_UPLOAD",
    "METHODS",
    "QUERY_KEYS",
    "SENSITIVITY_SOURCES",
    "TABS",
    "UNPINNED",
    "AddressKey",
    "AuditState",
    "Cancelled",
    "CheckState",
    "DuelState",
    "FairLock",
    "GroupState",
    "PageState",
    "SensitivityState",
    "address_table",
    "check_systems",
    "check_variant_fields",
    "combat_systems",
    "combat_variant_fields",
    "default_check",
    "default_duel",
    "default_state",
    "pairs_text",
    "pin_text",
    "to_query",
    "url_param",
    "variant_fields",
    "variant_text",
]


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

TABS = ("checks", "duel", "audit", "groups", "sensitivity")
METHODS = ("exact", "mc")
#: the audit's sources: the shipped guardrails, ``serve --guardrails FILE``, an upload
AUDIT_SOURCES = ("default", "file", "upload")
#: Monte Carlo fights of a duel when the page does not say (the command line's default)
DEFAULT_TRIALS = 20_000
DEFAULT_SEED = WORKBENCH_SEED
DEFAULT_ROUND_CAP = ROUND_CAP
#: the starting distances of the duel's distance table (``duel --table distance``'s)
DEFAULT_DISTANCES = (0, 5, 10, 20, 30, 40)
#: Monte Carlo fights of a group fight on the page (a matchup file's own is larger)
DEFAULT_GROUP_TRIALS = 20_000
#: the sensitivity tab's knobs: the default knob file, or an uploaded one
SENSITIVITY_SOURCES = ("default", "upload")
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

    return [sid for sid, s in registry().items() if s.combat is not None and s.combat.archetypes]


def variant_fields(cls) -> list[dict]:
    """The variant fields of a ``Variants`` class as the page shows them: name, default
    (as text), choices (as text; None: free text), rule id and doc."""
    out = []
    for f in dataclasses.fields(cls):
        meta: Mapping[str, Any] = f.metadata or {}
        choices = meta.get("choices")
        if isinstance(f.default, bool):
            choices = (True, False)
        out.append(
            {
                "name": f.name,
                "default": variant_text(f.default),
                "choices": None if choices is None else [variant_text(c) for c in choices],
                "rule": meta.get("rule", ""),
                "doc": meta.get("doc", ""),
            }
        )
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

    return [
        f
        for f in variant_fields(engine(system).Variants)
        if f["name"] not in ("distance", "aftermath")
    ]


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
    distances: str = ",".join(map(str, DEFAULT_DISTANCES))
    #: each side's traits changed, ``{NAME: VALUE}`` as text (``duel --trait-a``)
    traits_a: dict[str, str] = dataclasses.field(default_factory=dict)
    traits_b: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class GroupState:
    """The Groups tab: a shipped matchup file by name (or ``upload``), and the Monte
    Carlo run's fights and seed (``combat FILE --trials N --seed S``)."""

    scenario: str = "ambush_3v1"
    trials: int = DEFAULT_GROUP_TRIALS
    seed: int = DEFAULT_SEED


@dataclasses.dataclass
class SensitivityState:
    """The Sensitivity tab: the knobs read (the default knob file or an upload)."""

    knobs: str = "default"


@dataclasses.dataclass
class AuditState:
    source: str = "default"
    suggest: bool = True


@dataclasses.dataclass
class PageState:
    """A view of the page; ``pinned``: the setup pinned as A (its own PageState, whose
    tab and language are the page's), compared with this one (B) on every tab."""

    tab: str
    lang: str
    check: CheckState
    duel: DuelState
    audit: AuditState
    groups: GroupState = dataclasses.field(default_factory=GroupState)
    sensitivity: SensitivityState = dataclasses.field(default_factory=SensitivityState)
    #: the page's edits of each system's rules, ``{system: {KNOB: VALUE}}`` as text
    #: (``--set SYSTEM:KNOB=VALUE``, on top of ``serve --rules``; :mod:`.edits`)
    edits: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    pinned: PageState | None = None


def default_check(system: str | None = None) -> CheckState:
    from engines.system import get

    system = system or check_systems()[0]
    spec = get(system)
    swept = spec.ladder.swept if spec.ladder else ()
    # the ladder's axes shown whole, every other axis at its neutral (Checks.neutral)
    axes = {
        name: (
            ALL
            if name in swept or len(spec.checks.axes) <= 2
            else variant_text(spec.checks.held(name))
        )
        for name in spec.checks.axes
    }
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
    return PageState(
        "checks",
        "en",
        default_check(),
        default_duel(),
        AuditState("file" if guardrails else "default"),
    )


@dataclasses.dataclass(frozen=True)
class AddressKey:
    """One key of the address bar's query: its name (the command line's name for the
    same thing), the tab it belongs to (``page`` for the tab and the language), the
    attribute of that tab's state, the command line's option, the values it takes, its
    default, what it means, and the short key of earlier addresses (still read)."""

    key: str
    tab: str
    attr: str
    cli: str
    values: str
    default: str
    meaning: str
    old: str = ""


def _address() -> tuple[AddressKey, ...]:
    from analysis.limits import MAX_ROUND_CAP, MAX_TRIALS, shown
    from engines.constants import AFTERMATHS, PLANS
    from engines.distance import MAX_DISTANCE

    from ...i18n import LANGUAGES

    K = AddressKey
    one_of = " | ".join
    out = [
        K(
            "tab",
            "page",
            "tab",
            "(none: the page's tabs)",
            one_of(TABS),
            "checks",
            "the tab on screen",
        ),
        K("lang", "page", "lang", "serve --lang", one_of(LANGUAGES), "en", "the page's language"),
    ]
    out += [
        K(
            "check-system",
            "checks",
            "system",
            "curves SYSTEM",
            "a system with success curves (rpg-balance systems)",
            "the first one",
            "the system of the success curves",
            "cs",
        ),
        K(
            "check-variant",
            "checks",
            "variants",
            "curves --variant NAME=VALUE",
            "NAME=VALUE,... (the system's check variants)",
            "none",
            "the check variants that differ from the defaults",
            "cv",
        ),
        K(
            "check-axes",
            "checks",
            "axes",
            "(none: rows of curves SYSTEM)",
            f"AXIS=VALUE,... (a native value of the axis, or {ALL})",
            "the ladder's axes whole",
            "the slice of the curves table shown and drawn",
            "cx",
        ),
        K(
            "target",
            "checks",
            "target",
            "solve difficulty --target",
            "a chance strictly between 0 and 1",
            "0.7",
            "the target chance of the difficulty solver",
            "ct",
        ),
        K(
            "competence",
            "checks",
            "competence",
            "solve difficulty --competence",
            "a value of the system's competence axis",
            "its middle value",
            "the competence of the difficulty solver",
            "cc",
        ),
    ]
    gear = {
        "weapon": "a weapon of the system's data",
        "armour": "an armour of the system's data (percentile: armour points)",
        "tactic": "a tactic of the system",
        "plan": f"{one_of(PLANS)} (systems with distance rules)",
    }
    duel = [
        K(
            "duel-system",
            "duel",
            "system",
            "duel SYSTEM",
            "a system with combat archetypes (rpg-balance systems)",
            "the first one",
            "the system of the duel",
            "ds",
        ),
        K(
            "a",
            "duel",
            "a",
            "duel SYSTEM A B: A",
            "an archetype of the system's library (rpg-balance archetypes SYSTEM)",
            "competent",
            "fighter A (side 0)",
        ),
        K(
            "b",
            "duel",
            "b",
            "duel SYSTEM A B: B",
            "an archetype of the system's library (rpg-balance archetypes SYSTEM)",
            "competent",
            "fighter B (side 1)",
        ),
    ]
    for kind, short in (("weapon", "w"), ("armour", "x"), ("tactic", "t"), ("plan", "p")):
        for side in "ab":
            duel.append(
                K(
                    f"{kind}-{side}",
                    "duel",
                    f"{kind}_{side}",
                    f"duel --{kind}-{side}",
                    gear[kind],
                    "the archetype's own",
                    f"the {kind} of {side.upper()}",
                    short + side,
                )
            )
    duel += [
        K(
            "distance",
            "duel",
            "distance",
            "duel --distance",
            f"0..{MAX_DISTANCE} whole metres (0 where combat has no distance rules)",
            "0",
            "metres between the fighters when the fight starts",
            "dist",
        ),
        K(
            "duel-variant",
            "duel",
            "variants",
            "duel --variant NAME=VALUE",
            "NAME=VALUE,... (the system's combat variants but distance and aftermath)",
            "none",
            "the combat variants that differ from the defaults",
            "dv",
        ),
        K(
            "aftermath",
            "duel",
            "aftermath",
            "duel --aftermath",
            one_of(AFTERMATHS),
            "leave",
            "what happens to the fallen when the fight ends",
            "after",
        ),
        K(
            "method",
            "duel",
            "method",
            "duel --method",
            one_of(METHODS),
            "exact",
            "the exact chain or Monte Carlo",
            "m",
        ),
        K(
            "trials",
            "duel",
            "trials",
            "duel --trials",
            f"1..{shown(MAX_TRIALS)}",
            str(DEFAULT_TRIALS),
            "Monte Carlo fights",
            "n",
        ),
        K(
            "seed",
            "duel",
            "seed",
            "duel --seed",
            f"0..{shown(MAX_PAGE_SEED)}",
            str(DEFAULT_SEED),
            "the Monte Carlo seed",
        ),
        K(
            "round-cap",
            "duel",
            "round_cap",
            "duel --round-cap",
            f"1..{MAX_ROUND_CAP}",
            str(DEFAULT_ROUND_CAP),
            "rounds after which a fight counts as 'neither'",
            "cap",
        ),
    ]
    duel += [
        K(
            f"trait-{side}",
            "duel",
            f"traits_{side}",
            f"duel --trait-{side} NAME=VALUE",
            "NAME=VALUE,... (whole-number traits of the system's fighters: rpg-balance "
            "rules SYSTEM)",
            "the archetype's own",
            f"the traits of {side.upper()} changed",
        )
        for side in "ab"
    ]
    out += duel
    out += [
        K(
            "set",
            "rules",
            "edits",
            "duel --set SYSTEM:KNOB=VALUE",
            "SYSTEM:KNOB=VALUE;... (KNOB: rules.KIND.ENTRY.FIELD or everyone.TRAIT, as "
            "rpg-balance rules SYSTEM lists them)",
            "none",
            "the page's edits of the systems' rules, on top of serve --rules (also "
            "curves, solve difficulty and audit --set)",
        )
    ]
    out += [
        K(
            "source",
            "audit",
            "source",
            "audit [FILE]",
            "default (the shipped guardrails) | file (serve --guardrails FILE) | "
            "upload (a file uploaded through the page); never a path",
            "default",
            "the guardrail file the audit reads",
            "src",
        ),
        K(
            "suggest",
            "audit",
            "suggest",
            "audit --no-suggest (suggest=0)",
            "1 | 0",
            "1",
            "search for a cure of failed guardrails",
            "sg",
        ),
    ]
    out += [
        K(
            "distances",
            "duel",
            "distances",
            "duel --distances (with --table distance)",
            f"M,M,... (up to 20 starting distances, each 0..{MAX_DISTANCE} whole metres; "
            "systems with distance rules)",
            ",".join(map(str, DEFAULT_DISTANCES)),
            "the starting distances of the duel's distance table",
        ),
        K(
            "scenario",
            "groups",
            "scenario",
            "combat FILE",
            "the name of a matchup file of scenarios/combat (ambush_3v1 …) | upload "
            "(a file uploaded through the page); never a path",
            "ambush_3v1",
            "the group fight of the Groups tab",
        ),
        K(
            "group-trials",
            "groups",
            "trials",
            "combat --trials",
            f"1..{shown(MAX_TRIALS)}",
            str(DEFAULT_GROUP_TRIALS),
            "Monte Carlo fights of the group fight",
        ),
        K(
            "group-seed",
            "groups",
            "seed",
            "combat --seed",
            f"0..{shown(MAX_PAGE_SEED)}",
            str(DEFAULT_SEED),
            "the group fight's Monte Carlo seed",
        ),
        K(
            "knobs",
            "sensitivity",
            "knobs",
            "sensitivity --knobs",
            "default (analysis/data/sensitivity.toml) | upload (a knob file uploaded "
            "through the page); never a path",
            "default",
            "the knobs the sensitivity of the shipped guardrails turns",
        ),
        K(
            "pin",
            "page",
            "pinned",
            "(none: A's own command is shown beside B's)",
            "A's query, URL-encoded: any keys of this table but tab, lang and pin",
            "none (nothing pinned)",
            "the setup pinned as A (the page's Pin as A) and compared with the view on screen, B",
        ),
    ]
    return tuple(out)


#: the largest seed the page takes (its number field holds a 64-bit signed integer)
MAX_PAGE_SEED = 2**63 - 1
#: every key of the address bar's query, in the order the address bar shows them: one
#: source for the query, its validation, the aliases and the documented table
#: (:func:`address_table`, printed by ``rpg-balance serve --help`` and docs/workbench.md)
ADDRESS = _address()
#: the key of each setting as it is written now, in address order
QUERY_KEYS = tuple(k.key for k in ADDRESS)
#: the short keys of earlier addresses → the key that replaced them (read, never written)
ALIASES = {k.old: k.key for k in ADDRESS if k.old}
#: query key → attribute of the tab's state
DUEL_KEYS = {k.key: k.attr for k in ADDRESS if k.tab == "duel"}
CHECK_KEYS = {k.key: k.attr for k in ADDRESS if k.tab == "checks"}
GROUP_KEYS = {k.key: k.attr for k in ADDRESS if k.tab == "groups"}


def url_param(key: str) -> str:
    """The name of a query key as a Python identifier (``weapon-a`` → ``weapon_a``): the
    parameter that carries it in the page."""
    return key.replace("-", "_")


def address_table(markdown: bool = False) -> str:
    """The keys of the address as a table: the key (and the short key of earlier
    addresses, still read), the command line's option for the same thing, the values it
    takes, its default and its meaning. Plain text (``serve --help``) or markdown
    (docs/workbench.md)."""
    if markdown:

        def cell(text: str) -> str:
            return text.replace("|", "\\|")

        lines = [
            "| key | old key | command line | values | default | meaning |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{k.key}` | {f'`{k.old}`' if k.old else ''} | "
            f"{k.cli if k.cli.startswith('(') else f'`{k.cli}`'} | {cell(k.values)} | "
            f"{cell(k.default)} | {cell(k.meaning)} |"
            for k in ADDRESS
        ]
        return "\n".join(lines) + "\n"
    import textwrap

    out = []
    for k in ADDRESS:
        name = k.key + (f" ({k.old})" if k.old else "")
        out.append(
            f"  {name:<20}{k.cli}\n"
            + textwrap.fill(
                f"{k.meaning}: {k.values}; default {k.default}",
                width=88,
                initial_indent=" " * 22,
                subsequent_indent=" " * 22,
            )
            + "\n"
        )
    return "".join(out)


def pairs_text(mapping: Mapping[str, str]) -> str:
    """``k=v,k=v``: a mapping as the address bar's query and the page's captions write it."""
    return ",".join(f"{k}={v}" for k, v in mapping.items())


#: the keys a pinned setup leaves out: the page's own (the tab on screen, the language)
UNPINNED = ("tab", "lang", "pin")


def pin_text(pinned: PageState | None) -> str:
    """The value of the ``pin`` key: the pinned setup's query (:func:`to_query`, every key
    but :data:`UNPINNED`, so a key added to :data:`ADDRESS` is pinned too), URL-encoded;
    empty when nothing is pinned."""
    from urllib.parse import urlencode

    if pinned is None:
        return ""
    query = {k: v for k, v in to_query(pinned).items() if k not in UNPINNED}
    return urlencode(query) or "pinned"


def to_query(state: PageState) -> dict[str, str]:
    """The address bar's query of a view: every key of :data:`QUERY_KEYS` whose value
    differs from the default view's (so a link stays short and reads as the command
    does), under the names the address writes now (never an old short key)."""
    base = default_state()
    c, c0 = state.check, default_check(state.check.system)
    d, d0 = state.duel, default_duel(state.duel.system)
    text = {
        "tab": (state.tab, base.tab),
        "lang": (state.lang, base.lang),
        "check-system": (c.system, base.check.system),
        "check-variant": (pairs_text(c.variants), ""),
        "check-axes": (pairs_text({k: v for k, v in c.axes.items() if v != c0.axes.get(k)}), ""),
        "target": (repr(float(c.target)), repr(base.check.target)),
        "competence": (c.competence, c0.competence),
        "duel-system": (d.system, base.duel.system),
        "duel-variant": (pairs_text(d.variants), ""),
        "source": (state.audit.source, base.audit.source),
        "suggest": ("1" if state.audit.suggest else "0", "1"),
        "knobs": (state.sensitivity.knobs, "default"),
        "pin": (pin_text(state.pinned), ""),
    }
    g0 = GroupState()
    for key, attr in GROUP_KEYS.items():
        text[key] = (str(getattr(state.groups, attr)), str(getattr(g0, attr)))
    # the page's edits (:mod:`.edits`; ``;`` between rule edits: a list value holds commas)
    text.update(
        {
            "trait-a": (pairs_text(d.traits_a), ""),
            "trait-b": (pairs_text(d.traits_b), ""),
            "set": (
                ";".join(
                    f"{s}:{k}={v}" for s, knobs in state.edits.items() for k, v in knobs.items()
                ),
                "",
            ),
        }
    )
    for key, attr in DUEL_KEYS.items():
        if key not in text:
            value, default = getattr(d, attr), getattr(d0, attr)
            text[key] = (
                "" if value is None else str(value),
                "" if default is None else str(default),
            )
    return {key: text[key][0] for key in QUERY_KEYS if text[key][0] != text[key][1]}
