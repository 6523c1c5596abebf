"""The one protocol every resolution system implements, and the registry of them.

A system is one :class:`System` object: its id and display name, the module holding its
``Variants`` dataclass and its exact / Monte Carlo distributions over outcome codes, its
native check axes, whether it has an opposed-check rule, and the modules of its combat
engine and campaign mechanics (both optional: a system may have neither). The five
built-in systems define theirs as ``PLUGIN`` in their engine module
(``engines.systems.dice_pool_7.checks.PLUGIN`` ...); an outside package registers one through the
entry-point group :data:`ENTRY_POINT_GROUP` (``rpg_balance.systems``), whose entry
point names a ``System`` object or a function returning one — the convention pytest
and Dask use for their plug-ins.

:func:`registry` gives every installed system by id (built-ins first, then plug-ins in
name order); :func:`get` one of them, or an :class:`~engines.errors.InputError`
naming the known ones. Nothing here imports numba, pandas or matplotlib: the modules a
``System`` names load on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import InputError

__all__ = ["BUILT_IN", "ENTRY_POINT_GROUP", "N_", "CurvePanel", "CurveTable", "Difficulty",
           "LadderRules", "Modifier", "OpposedRule", "System", "count_label", "get",
           "plugin_entry_points", "registered", "registry"]

ENTRY_POINT_GROUP = "rpg_balance.systems"
#: The built-in systems (``engines.systems.<id>``), in the order every table lists them:
#: the one list of system ids in the code; everything else asks :func:`registry`.
BUILT_IN = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")


@dataclass(frozen=True)
class Modifier:
    """One entry of a system's modifiers catalogue: what it does to which axis of a check.

    ``sets`` puts axes at a value (a roll mode: ``{"roll": "advantage"}``); ``shifts``
    adds to numeric axes (``{"modifier": 1}``). The base check has every ``sets`` axis at
    its first value."""

    name: str
    rule: str
    sets: Mapping[str, Any] = field(default_factory=dict)
    shifts: Mapping[str, int] = field(default_factory=dict)
    #: lowest value a shifted axis may reach (``{"difficulty": 1}``: never below 1)
    at_least: Mapping[str, int] = field(default_factory=dict)
    #: attempts at the modified check (2: a second try after a failure,
    #: P = 1 − (1 − p)²)
    attempts: int = 1


@dataclass(frozen=True)
class Difficulty:
    """One way a system sets difficulty, for the difficulty solver: native ``values``
    easiest first, their ``labels``, and the ``inverse`` points the inverse
    (competence-needed) table shows by default (empty: all of ``values``)."""

    name: str
    values: tuple
    labels: tuple[str, ...]
    inverse: tuple = ()


@dataclass(frozen=True)
class OpposedRule:
    """A system's opposed check: both sides roll, each outcome code becomes a comparable
    value, and equal values are settled by a tie rule.

    ``axes`` are the native axes of the opposed table (each side's ``NAME_a`` /
    ``NAME_b``). ``setting_axis`` names the side axis (without ``_a``/``_b``) that picks
    the side's roll setting; ``None``: every side rolls ``setting``. ``rank_axis`` is the
    side axis a competence value sets (the ladder's upset table). ``values(cell, side,
    variants, n_codes)`` gives the comparable value of each outcome code for side ``"a"``
    or ``"b"`` of a cell (a mapping of axis values); ``tie(cell, variants)`` gives (the
    share of ties side a wins, whether ties are re-rolled)."""

    axes: Mapping[str, tuple]
    values: Callable[..., Any]
    tie: Callable[..., tuple[float, bool]]
    rank_axis: str
    setting_axis: str | None = None
    setting: Any = "roll"

    def __post_init__(self) -> None:
        axes = {str(k): tuple(v) for k, v in dict(self.axes).items()}
        object.__setattr__(self, "axes", MappingProxyType(axes))


@dataclass(frozen=True)
class LadderRules:
    """How the common ladder file (competence and difficulty rungs) maps onto a system.

    ``competence_range`` / ``difficulty_range``: the native values a rung may take
    (``difficulty_range`` None: a difficulty rung is a table ``{level, dice}`` rather than
    a whole number); ``harder``: +1 when a larger number is a harder task, −1 when
    smaller. ``labels(c, d)`` gives the native text of a competence and a difficulty;
    ``p(c, d, variants)`` the exact P(success) of one ladder cell; ``score(c, variants)``
    the (scores, probabilities) of one check's native outcome, higher = better."""

    competence_range: tuple[int, int]
    difficulty_range: tuple[int, int] | None
    labels: Callable[..., tuple[str, str]]
    p: Callable[..., float]
    score: Callable[..., tuple]
    harder: int = 1


def count_label(k: int, one: str = "success", many: str = "successes") -> str:
    """``"1 success"``, ``"3 successes"``."""
    return f"1 {one}" if k == 1 else f"{k} {many}"


def N_(text: str) -> str:
    """Mark a report string of a system's report hooks for the translation catalogue
    (the report shows it through its gettext catalogue; it is English otherwise)."""
    return text


@dataclass(frozen=True)
class CurvePanel:
    """One panel of a system's success-curve figure (a report hook): exact P(success)
    against axis ``x``, one line per value of axis ``lines`` (``values``), every axis in
    ``fixed`` held at its value. ``labels`` are line-label templates (``{v}`` the value,
    also ``{n}`` and ``{<lines axis>}``): one for every line, or three for a negative,
    zero and positive value. ``title`` may use ``{system}`` and the ``fixed`` axes;
    ``legend`` is the legend's title (no legend when ``legend_loc`` is None)."""

    x: str
    lines: str
    values: tuple
    fixed: Mapping[str, Any] = field(default_factory=dict)
    labels: tuple[str, ...] = ("{v}",)
    title: str = ""
    xlabel: str = ""
    legend: str = ""
    legend_loc: str | None = "best"
    legend_ncols: int = 1
    markevery: int | None = None
    xticks: tuple | None = None
    vlines: tuple = ()


@dataclass(frozen=True)
class CurveTable:
    """One table of a system's success-curve section (a report hook): exact P(success)
    with axis ``rows`` down and axis ``columns`` across (``row_values`` /
    ``column_values`` pick and order them; None: all), every axis in ``fixed`` held.
    ``column_names`` relabels the columns like :attr:`CurvePanel.labels`; ``full``: the
    table's CSV carries the whole grid."""

    key: str
    title: str
    caption: str
    rows: str
    columns: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    row_values: tuple | None = None
    column_values: tuple | None = None
    column_label: str = ""
    column_names: tuple[str, ...] | None = None
    full: bool = False


@dataclass(frozen=True)
class System:
    """Everything the rest of the suite asks of a resolution system.

    ``module`` is the engine module: ``Variants`` (a dataclass of
    :func:`engines.variants.variant` fields), ``exact(...)`` → probabilities over outcome
    codes and ``monte_carlo(...)`` → counts over the same codes. ``axes`` are the native
    axes of its success-curve table, each a tuple of values. ``opposed`` says whether the
    rules give an opposed check; ``combat`` and ``campaign`` name the modules of its
    combat engine and campaign mechanics (``None``: the system has none).

    ``check_grid(cells, variants)`` is the success mask of a grid cell over outcome codes:
    given the axis values of every cell (``{axis: array}``) it returns ``(settings,
    setting_of_cell, mask, values)`` — the roll settings, which setting each cell rolls,
    ``bool[cells, codes]`` (the codes that succeed in the cell) and each code's outcome
    value. With it the module's ``exact(settings, variants)`` → ``[settings, codes]``
    probabilities and ``monte_carlo(settings, trials, seed, variants)`` → counts are all
    the success-curve tables need; the hooks at the end of the class (each documented
    where it is declared) refine this: distributions that need the number of codes,
    Monte Carlo kernels, the opposed rule, the modifier table, the difficulty solver and
    the ladder mapping. Every default keeps a minimal plug-in working.

    The ladder mapping hook: ``competence_axis`` and ``difficulty_axis`` name the axes a
    competence and a difficulty move (the difficulty axis's values easiest first; every
    other axis stays at its first value), and ``ladder`` maps the competence rungs
    (untrained … master) to native competence values. With them the difficulty solver
    handles the system. ``modifiers`` is the modifiers catalogue (:class:`Modifier`)
    the modifier tables measure.
    """

    id: str
    name: str
    module: str
    axes: Mapping[str, tuple] = field(default_factory=dict)
    opposed: bool = True
    combat: str | None = None
    campaign: str | None = None
    source: str = "built-in"
    check_grid: Callable[..., tuple] | None = None
    competence_axis: str | None = None
    difficulty_axis: str | None = None
    ladder: Mapping[str, int] = field(default_factory=dict)
    modifiers: tuple[Modifier, ...] = ()
    # ---- check hooks (read by analysis.checks and analysis.workflow.solvers) --------
    #: ``(settings, variants, n_codes)`` → exact ``[settings, codes]`` probabilities;
    #: None: the engine module's ``exact(settings, variants)``.
    check_exact: Callable[..., Any] | None = None
    #: ``(settings, trials, seed, variants, n_codes)`` → Monte Carlo counts; None: the
    #: :attr:`check_kernel` run by :func:`engines.checks.run`, else the module's
    #: ``monte_carlo(settings, trials, seed, variants)``.
    check_mc: Callable[..., Any] | None = None
    #: ``(settings, variants)`` → ``(kernel code, parameters, rule array)`` of
    #: :func:`engines.checks.run` / ``run_pairs`` (needed for opposed Monte Carlo).
    check_kernel: Callable[..., tuple] | None = None
    #: ``(settings, variants)`` → the number of outcome codes; None: module ``N_CODES``.
    code_count: Callable[..., int] | None = None
    #: axes the check grid also takes, beyond :attr:`axes` (not in the default table).
    hidden_axes: Mapping[str, tuple] = field(default_factory=dict)
    #: the opposed-check rule (:class:`OpposedRule`); None: the rules give none.
    opposed_rule: OpposedRule | None = None
    #: base grid of the modifier table (default: :attr:`axes`, less the axes a modifier
    #: sets); ``modifier_base`` holds other check-grid axes at a value, not shown.
    modifier_axes: Mapping[str, tuple] = field(default_factory=dict)
    modifier_base: Mapping[str, Any] = field(default_factory=dict)
    #: ``(cells, variants)`` → exact P(success) of each cell (``{axis: array}``, as
    #: :attr:`check_grid`), for the modifier table; None: read off the success curves.
    check_p: Callable[..., Any] | None = None
    #: ``()`` → the difficulty axes the solver searches (:class:`Difficulty`); None: one
    #: axis, :attr:`difficulty_axis` with its values.
    difficulty_axes: Callable[[], tuple] | None = None
    #: ``(axis, competences, difficulties, variants)`` → exact P(success)
    #: ``[competences, difficulties]``; None: read off the exact success curves.
    chance_matrix: Callable[..., Any] | None = None
    #: ``(axis name, values)`` the inverse table searches for the competence needed;
    #: None: :attr:`competence_axis` over its values.
    competence_search: tuple[str, range] | None = None
    #: how the common ladder file maps onto the system (:class:`LadderRules`).
    ladder_rules: LadderRules | None = None

    # ---- report hooks --------------------------------------------------------------
    # What the report's sections draw for the system. Every one is optional: without
    # them the report draws a plain view from the axes and the ladder hook above.
    # Texts are English msgids (marked with :func:`N_`); the report translates them.
    #: one line on what a success means (default: :attr:`name`)
    summary: str = ""
    #: the system's colour in every cross-system figure (default: a spare colour)
    color: str | None = None
    #: a short description for figure labels, "id (label)" (default: :attr:`name`)
    label: str = ""
    #: the success-curve figure's panels, its caption and its alt text (may use
    #: ``{system}``; the figure's width in inches, None: the default)
    curve_panels: tuple[CurvePanel, ...] = ()
    curve_caption: str = ""
    curve_alt: str = ""
    curve_width: float | None = None
    #: the success-curve tables
    curve_tables: tuple[CurveTable, ...] = ()
    #: ``curve_reading(p, tr)`` → one plain sentence: ``p(**axes)`` is an exact
    #: P(success), ``tr`` carries ``_`` (translate), ``pct``, ``percent``, ``decimal``
    curve_reading: Callable[..., str] | None = None
    #: what a roll setting is and what the raw outcome counts (outcome section)
    outcome_labels: tuple[str, str] = (N_("roll setting"), N_("outcome value"))
    #: ``outcome_reading(stat, tr)`` → a sentence; ``stat(setting, "mean" | "sd")``
    outcome_reading: Callable[..., str] | None = None
    #: the roll settings are pool sizes (drawn in the successes-per-pool figure)
    pool_settings: bool = False
    #: the representative task of the native-spread section: (axis a character improves
    #: along, the other axes held, a label); default: the competence axis, every other
    #: axis at its first value
    spread: tuple[str, Mapping[str, Any], str] | None = None
    #: the campaign section's example: (mechanic, its parameters, sessions, threshold)
    #: of the system's :attr:`campaign` module (None: the section leaves it out)
    campaign_example: tuple[str, Mapping[str, Any], int, int] | None = None
    #: the system's own words for what the audit's findings name (read by
    #: :mod:`analysis.glossary`): ``{key: (term, rule id)}``. A key is a fighter's trait
    #: as its archetype library names it (``"vigor"``), ``"weapon"``, ``"armour"``,
    #: ``"tactic"``, a check axis (``"difficulty"``), or ``"NAME=VALUE"`` for one value
    #: of a trait, gear or axis (``"armour=heavy_archaic"``; its rule id may be empty).
    #: Terms are English msgids (:func:`N_`): a trait or gear word bare ("Vigor",
    #: "armour"), an axis with its article ("the difficulty"). A variant's words are its
    #: field's ``term`` and ``words`` (:func:`engines.variants.variant`); a key without a
    #: term is read from its name.
    terms: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # --- combat hooks ------------------------------------------------------------------
    # ``archetype_library``: where the one archetype loader
    # (:mod:`analysis.combat.archetypes`) finds the system's archetype library, as
    # ``"module:ATTRIBUTE"`` of an ``ArchetypeHook`` (data file, its pydantic models, rung
    # and style → combatant). A string, loaded on first use by the analysis layer, never
    # by the engines. ``None``: no archetype library (no ``duel``/``fight`` by name).
    archetype_library: str | None = None
    #: the trait that measures a fighter's toughness (``CON``, ``vigor``): the audit's
    #: cures move it for both fighters of a matchup guardrail; None: no such cure.
    health_trait: str | None = None
    #: the small exact sweep ``audit --discover`` runs to find knobs whose effect depends
    #: on another: ``{"metric": fight metric, "knobs": {knob: [two values]}}`` (knobs as
    #: the audit names them: ``both.<trait>``, ``both.armour``, ``variant.<name>``);
    #: None: the system has no such sweep.
    interaction_sweep: Mapping[str, Any] | None = None
    #: how the audit's dominance search runs the system's duels: ``"exact"`` (the chain)
    #: or ``"mc"`` (Monte Carlo, for a system whose exact chain is too slow to search).
    duel_search: str = "exact"

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("_", "").isalnum() or not self.id[0].isalpha():
            raise InputError(f"system id {self.id!r}: expected letters, digits and _")
        axes = {str(k): tuple(v) for k, v in dict(self.axes).items()}
        object.__setattr__(self, "axes", MappingProxyType(axes))
        object.__setattr__(self, "ladder", MappingProxyType(dict(self.ladder)))
        for name in ("hidden_axes", "modifier_axes"):
            value = {str(k): tuple(v) for k, v in dict(getattr(self, name)).items()}
            object.__setattr__(self, name, MappingProxyType(value))
        object.__setattr__(self, "modifier_base", MappingProxyType(dict(self.modifier_base)))
        object.__setattr__(self, "terms", MappingProxyType(
            {str(k): (str(v[0]), str(v[1])) for k, v in dict(self.terms).items()}))
        for name in (self.competence_axis, self.difficulty_axis):
            if name is not None and name not in axes:
                raise InputError(f"system {self.id}: axis {name!r} is not one of its axes "
                                 f"({', '.join(axes)})")

    @property
    def solvable(self) -> bool:
        """Whether the difficulty solver can handle it (a check grid and both axes)."""
        return (self.check_grid is not None and self.competence_axis is not None
                and self.difficulty_axis is not None)

    @property
    def has_combat(self) -> bool:
        return self.combat is not None

    @property
    def has_campaign(self) -> bool:
        return self.campaign is not None

    def engine(self):
        """The engine module (``Variants``, ``exact``, ``monte_carlo``)."""
        return importlib.import_module(self.module)

    @property
    def variants(self) -> type:
        """The system's ``Variants`` dataclass."""
        return self.engine().Variants

    def combat_engine(self):
        """The combat engine module, or an :class:`InputError` saying there is none."""
        if self.combat is None:
            raise InputError(f"{self.id}: this system declares no combat rules")
        return importlib.import_module(self.combat)

    def campaign_engine(self):
        """The campaign-mechanics module (its ``MECHANICS``), or an :class:`InputError`."""
        if self.campaign is None:
            raise InputError(f"{self.id}: this system declares no campaign mechanics")
        return importlib.import_module(self.campaign)


def plugin_entry_points():
    """The entry points of group ``rpg_balance.systems``, by name (what :func:`registry`
    loads after the built-ins)."""
    from importlib.metadata import entry_points

    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


def _load(ep) -> System:
    where = f"entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP}"
    try:
        obj: Any = ep.load()
    except Exception as exc:  # a broken plug-in names itself, it does not take all down
        raise InputError(f"{where}: cannot be loaded: {exc.__class__.__name__}: {exc}") \
            from None
    if callable(obj) and not isinstance(obj, System):
        obj = obj()
    if not isinstance(obj, System):
        raise InputError(f"{where}: expected an engines.system.System, got "
                         f"{type(obj).__name__}")
    if obj.source == "built-in":
        dist = getattr(ep, "dist", None)
        name = getattr(dist, "name", None) or ep.value.split(":")[0].split(".")[0]
        obj = System(**{**{f: getattr(obj, f) for f in obj.__dataclass_fields__},
                        "source": f"plug-in {name}"})
    return obj


_REGISTRY: dict[str, System] | None = None


def registry(refresh: bool = False) -> Mapping[str, System]:
    """Every installed system by id: the built-ins, then the plug-ins of the entry-point
    group (a plug-in may not reuse an id)."""
    global _REGISTRY
    if _REGISTRY is None or refresh:
        found = {sid: importlib.import_module(f"engines.systems.{sid}").PLUGIN for sid in BUILT_IN}
        for ep in plugin_entry_points():
            system = _load(ep)
            if system.id in found:
                raise InputError(f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP}: "
                                 f"system id {system.id!r} is already registered "
                                 f"({found[system.id].source})")
            found[system.id] = system
        _REGISTRY = found
    return MappingProxyType(_REGISTRY)


@contextmanager
def registered(*systems: System) -> Iterator[Mapping[str, System]]:
    """The registry with ``systems`` added for the duration of a ``with`` block, each
    taking its id's place: a System checked before it is installed, or a modified copy
    of an installed one (the conformance checks, tests). Yields the registry."""
    global _REGISTRY
    saved = _REGISTRY
    _REGISTRY = {**registry(), **{s.id: s for s in systems}}
    try:
        yield MappingProxyType(_REGISTRY)
    finally:
        _REGISTRY = saved


def get(system_id: str) -> System:
    """The :class:`System` of an id, or an :class:`InputError` naming the known ones."""
    systems = registry()
    if system_id not in systems:
        import difflib

        close = difflib.get_close_matches(str(system_id), list(systems), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InputError(f"unknown system {system_id!r}{hint}; known: "
                         + ", ".join(systems))
    return systems[system_id]
