"""The one protocol every resolution system implements, and the registry of them.

A system is one :class:`System` object: its id and display name and small immutable hook
groups — :class:`Checks` (the single check: its engine module, axes and their neutral
values, the check hooks), :class:`Ladder`, :class:`Combat` and :class:`Campaign` (optional:
None means the system has no such part), :class:`Report` and :class:`Audit` (data with
defaults). Each group's docstring is its contract; each callable hook has a
:class:`typing.Protocol` (:class:`CheckGrid`, :class:`ChanceMatrix` …). The five built-in
systems define theirs as ``PLUGIN`` in their package (``engines.systems.dice_pool_7.PLUGIN``
...), as a plug-in does; an outside package registers one through the entry-point group
:data:`ENTRY_POINT_GROUP` (``rpg_balance.systems``), whose entry point names a ``System``
object or a function returning one — the convention pytest and Dask use for their plug-ins.

:func:`registry` gives every installed system by id (built-ins first, then plug-ins in
name order); :func:`get` one of them, or an :class:`~engines.errors.InputError`
naming the known ones. Nothing here imports numba, pandas or matplotlib: the modules a
``System`` names load on first use.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from .errors import InputError

__all__ = [
    "BUILT_IN",
    "ENTRY_POINT_GROUP",
    "KNOWN_PROPERTIES",
    "N_",
    "OPTIONAL",
    "Audit",
    "Campaign",
    "CellChance",
    "Cells",
    "ChanceMatrix",
    "CheckExact",
    "CheckGrid",
    "CheckKernel",
    "CheckMonteCarlo",
    "Checks",
    "CodeCount",
    "Combat",
    "CurvePanel",
    "CurveTable",
    "Difficulty",
    "DifficultyAxes",
    "Known",
    "Ladder",
    "LadderRules",
    "Modifier",
    "OpposedRule",
    "Report",
    "System",
    "TextReading",
    "count_label",
    "get",
    "plugin_entry_points",
    "registered",
    "registry",
]

ENTRY_POINT_GROUP = "rpg_balance.systems"
#: The built-in systems (``engines.systems.<id>``), in the order every table lists them:
#: the one list of system ids in the code; everything else asks :func:`registry`.
BUILT_IN = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")


@dataclass(frozen=True)
class Modifier:
    """One entry of a system's modifiers catalogue: what it does to which axis of a check.

    ``sets`` puts axes at a value (a roll mode: ``{"roll": "advantage"}``); ``shifts``
    adds to numeric axes (``{"modifier": 1}``). The base check has every ``sets`` axis at
    its neutral (:attr:`Checks.neutral`)."""

    name: str
    rule: str
    sets: Mapping[str, Any] = field(default_factory=dict)
    shifts: Mapping[str, int] = field(default_factory=dict)
    #: lowest value a shifted axis may reach (``{"difficulty": 1}``: never below 1)
    at_least: Mapping[str, int] = field(default_factory=dict)
    #: attempts at the modified check (2: a second try after a failure,
    #: P = 1 − (1 − p)²)
    attempts: int = 1
    #: where the rules allow it, as the base check's largest axis values
    #: (``{"dc": 10}``: only at DC 10 or below); empty: everywhere
    at_most: Mapping[str, int] = field(default_factory=dict)
    #: ``at_most`` in the rules' own words (an ``N_`` string), for the report
    when: str = ""
    #: a choice the player makes rather than a circumstance: judged only where it is not
    #: worse than the check without it (a player would not take it there)
    chosen: bool = False


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


# --------------------------------------------------------------------------------------
# The callable hooks, one Protocol each (the shapes every caller relies on)

Cells = Mapping[str, Any]


class CheckGrid(Protocol):
    """``grid(cells, variants) -> (settings, setting_of_cell, mask, values)``.

    ``cells`` maps every check axis (native and hidden) to an array of one value per grid
    cell. Returns the roll ``settings`` (a 1-d array of distinct values: what the engine
    module's ``exact`` / ``monte_carlo`` are run for), ``setting_of_cell`` (``int[cells]``,
    an index into ``settings``), ``mask`` (``bool[cells, codes]``: the outcome codes that
    succeed in each cell) and ``values`` (``float[codes]``: each code's outcome value, the
    raw number the outcome section summarises)."""

    def __call__(self, cells: Cells, variants: Any, /) -> tuple: ...


class CheckExact(Protocol):
    """``exact(settings, variants, n_codes) -> float[settings, codes]``: the exact
    distribution of each roll setting over the outcome codes (each row sums to 1)."""

    def __call__(self, settings: Any, variants: Any, n_codes: int, /) -> Any: ...


class CheckMonteCarlo(Protocol):
    """``monte_carlo(settings, trials, seed, variants, n_codes) -> int[settings, codes]``:
    counts of each code over ``trials`` rolls of each setting (each row sums to
    ``trials``); ``seed`` is an int or a ``numpy.random.SeedSequence``."""

    def __call__(
        self, settings: Any, trials: int, seed: Any, variants: Any, n_codes: int, /
    ) -> Any: ...


class CheckKernel(Protocol):
    """``kernel(settings, variants) -> (kernel code, parameters, rule array)``: the
    arguments of :func:`engines.checks.run` / ``run_pairs`` (the shared numba check
    kernel) for these settings; needed for the opposed Monte Carlo."""

    def __call__(self, settings: Any, variants: Any, /) -> tuple: ...


class CodeCount(Protocol):
    """``code_count(settings, variants) -> int``: the number of outcome codes."""

    def __call__(self, settings: Any, variants: Any, /) -> int: ...


class CellChance(Protocol):
    """``p(cells, variants) -> float[cells]``: exact P(success) of each cell (``cells``
    as :class:`CheckGrid` takes them)."""

    def __call__(self, cells: Cells, variants: Any, /) -> Any: ...


class DifficultyAxes(Protocol):
    """``difficulty_axes() -> tuple[Difficulty, ...]``: the ways the system sets
    difficulty, each easiest first."""

    def __call__(self) -> tuple: ...


class ChanceMatrix(Protocol):
    """``chance_matrix(axis, competences, difficulties, variants) ->
    float[competences, difficulties]``: exact P(success) on one difficulty axis (a
    :class:`Difficulty` name) for native competence values × native difficulty values,
    every other check axis at its neutral."""

    def __call__(self, axis: str, competences: Any, difficulties: Any, variants: Any, /) -> Any: ...


class TextReading(Protocol):
    """``reading(query, tr) -> str``: one plain sentence of the report. ``tr`` carries
    ``_`` (translate), ``pct``, ``percent`` and ``decimal``; ``query`` is
    ``p(**axes)`` (an exact P(success)) for the curve reading and ``stat(setting,
    "mean" | "sd")`` for the outcome reading."""

    def __call__(self, query: Callable[..., float], tr: Any, /) -> str: ...


#: Properties a system may declare it does not have (:class:`Known`), each with the
#: weaker property the conformance check tests instead.
KNOWN_PROPERTIES: Mapping[str, str] = MappingProxyType(
    {
        "competence_monotone": (
            "P(success) may fall along the competence axis somewhere (an acing die: a d4 totals "
            "6 more often than a d6); the ladder check then asks only that the highest "
            "competence value succeed at least as often as the lowest at every cell, and that "
            "LadderRules' top rung succeed at least as often as its lowest"
        ),
        "difficulty_monotone": (
            "P(success) may rise along the difficulty axis somewhere; the ladder check then "
            "asks only that the hardest difficulty value succeed at most as often as the "
            "easiest at every cell, and so for LadderRules' difficulties"
        ),
    }
)


@dataclass(frozen=True)
class Known:
    """A property the conformance check would ask of the system that its rules really
    lack, with the reason (``Known("competence_monotone", "acing: a d4 reaches 6 more
    often than a d6")``). ``property`` is a key of :data:`KNOWN_PROPERTIES`, which says
    the weaker property tested instead."""

    property: str
    reason: str

    def __post_init__(self) -> None:
        if self.property not in KNOWN_PROPERTIES:
            raise InputError(
                f"known property {self.property!r}: unknown; known: " + ", ".join(KNOWN_PROPERTIES)
            )
        if not str(self.reason).strip():
            raise InputError(f"known property {self.property!r}: give its reason")


def _axes(value: Mapping[str, Any]) -> Mapping[str, tuple]:
    return MappingProxyType({str(k): tuple(v) for k, v in dict(value).items()})


def _frozen(obj: Any, *names: str) -> None:
    for name in names:
        object.__setattr__(obj, name, MappingProxyType(dict(getattr(obj, name))))


# --------------------------------------------------------------------------------------
# The hook groups


@dataclass(frozen=True)
class Checks:
    """A single check: how it is rolled and read. The one group every system has.

    ``module``
        The engine module, imported on first use (:meth:`engine`): ``Variants`` (a
        dataclass of :func:`engines.variants.variant` fields), ``exact(settings,
        variants)`` → ``float[settings, codes]`` and ``monte_carlo(settings, trials, seed,
        variants)`` → ``int[settings, codes]``, over the same outcome codes (``N_CODES``:
        their number, unless :attr:`code_count` says it).
    ``axes``
        The native axes of the success-curve table, ``{name: values}`` (each a tuple of
        native values: a modifier, a pool size, a roll mode …).
    ``neutral``
        The value each axis is *held at* by a command that does not sweep it — the
        difficulty solver and its inverse table, the report's plain curves and native
        spread, the modifier table's base cell, the workbench's first view: ``{"modifier":
        0, "roll": "normal", "dice": 0}`` (no modifier, a normal roll, no bonus dice).
        Every axis except the ladder's competence and difficulty axes declares one (the
        conformance check fails otherwise); an axis without one is held at its first
        value. Must be one of the axis's values.
    ``grid``
        :class:`CheckGrid`: the success mask of each cell over the outcome codes. None:
        the system has no success curves (and no solver, report curves or scenario checks).
    ``hidden_axes``
        Axes the grid also takes, beyond :attr:`axes`, not in the default table
        (``{"roll": MODES}``); each needs a :attr:`neutral` too.
    ``exact`` / ``monte_carlo`` / ``kernel`` / ``code_count``
        :class:`CheckExact`, :class:`CheckMonteCarlo`, :class:`CheckKernel`,
        :class:`CodeCount`, for distributions that need the code count or a shared numba
        kernel. None: the module's ``exact(settings, variants)``; the kernel on
        :func:`engines.checks.run`, else the module's ``monte_carlo``; no opposed Monte
        Carlo; the module's ``N_CODES``.
    ``opposed``
        :class:`OpposedRule`: the opposed check. None: the rules give none.
    ``modifiers``
        The modifiers catalogue (:class:`Modifier`) the modifier table measures.
    ``modifier_axes`` / ``modifier_base``
        The modifier table's base grid (default: :attr:`axes`, less the axes a modifier
        sets) and other grid axes it holds at a value, not shown (over the neutral).
    ``p``
        :class:`CellChance`: exact P(success) of each cell, for the modifier table. None:
        read off the success curves.
    """

    module: str
    axes: Mapping[str, tuple] = field(default_factory=dict)
    neutral: Mapping[str, Any] = field(default_factory=dict)
    grid: CheckGrid | None = None
    hidden_axes: Mapping[str, tuple] = field(default_factory=dict)
    exact: CheckExact | None = None
    monte_carlo: CheckMonteCarlo | None = None
    kernel: CheckKernel | None = None
    code_count: CodeCount | None = None
    opposed: OpposedRule | None = None
    modifiers: tuple[Modifier, ...] = ()
    modifier_axes: Mapping[str, tuple] = field(default_factory=dict)
    modifier_base: Mapping[str, Any] = field(default_factory=dict)
    p: CellChance | None = None

    def __post_init__(self) -> None:
        for name in ("axes", "hidden_axes", "modifier_axes"):
            object.__setattr__(self, name, _axes(getattr(self, name)))
        _frozen(self, "neutral", "modifier_base")
        object.__setattr__(self, "modifiers", tuple(self.modifiers))
        every = self.all_axes
        for axis, value in self.neutral.items():
            if axis not in every:
                raise InputError(
                    f"neutral {axis}={value!r}: {axis!r} is not an axis ({', '.join(every)})"
                )
            if value not in every[axis]:
                raise InputError(f"neutral {axis}={value!r}: not one of the axis's values")

    @property
    def all_axes(self) -> Mapping[str, tuple]:
        """Every axis the grid takes: the native ones, then the hidden ones."""
        return {**self.axes, **self.hidden_axes}

    def held(self, axis: str) -> Any:
        """The value ``axis`` is held at when not swept: its :attr:`neutral`, else (an
        undeclared neutral, which the conformance check reports) its first value."""
        if axis in self.neutral:
            return self.neutral[axis]
        return self.all_axes[axis][0]

    def engine(self):
        """The engine module (``Variants``, ``exact``, ``monte_carlo``)."""
        return importlib.import_module(self.module)

    @property
    def variants(self) -> type:
        """The system's ``Variants`` dataclass."""
        return self.engine().Variants


@dataclass(frozen=True)
class Ladder:
    """How competence and difficulty map onto the check: with it the difficulty solver,
    the inverse table and the ladder tables handle the system (None: it has no ladder).

    ``competence_axis`` / ``difficulty_axis``
        The check axes a competence and a difficulty move (the difficulty axis's values
        easiest first); every other axis is held at its neutral (:attr:`Checks.neutral`).
    ``rungs``
        The fallback competence ladder, rung (``untrained`` … ``master``) → native
        competence value (the common ladder file ``analysis/data/ladders.toml`` overrides
        it).
    ``difficulty_axes``
        :class:`DifficultyAxes`: the ways the solver sets difficulty. None: one axis,
        :attr:`difficulty_axis` over its values.
    ``chance_matrix``
        :class:`ChanceMatrix`. None: read off the exact success curves, every other axis
        at its neutral.
    ``competence_search``
        ``(axis name, values)`` the inverse table searches for the competence needed.
        None: :attr:`competence_axis` over its values.
    ``rules``
        :class:`LadderRules`: how the common ladder file maps onto the system (None: the
        ladder tables leave it out).
    """

    competence_axis: str
    difficulty_axis: str
    rungs: Mapping[str, int] = field(default_factory=dict)
    difficulty_axes: DifficultyAxes | None = None
    chance_matrix: ChanceMatrix | None = None
    competence_search: tuple[str, range] | None = None
    rules: LadderRules | None = None

    def __post_init__(self) -> None:
        _frozen(self, "rungs")

    @property
    def swept(self) -> tuple[str, str]:
        """The two axes the ladder moves (every other is held at its neutral)."""
        return (self.competence_axis, self.difficulty_axis)


@dataclass(frozen=True)
class Combat:
    """The combat rules (None: the system has none, so no ``duel``, ``fight``, combat
    sections or discovery).

    ``module``
        The combat engine module, imported on first use (:meth:`engine`): ``Variants``,
        ``duel_exact(a, b, variants)``, ``duel_mc(a, b, trials, seed, variants)``,
        ``fight_mc``, ``attack_damage``, ``one_hit``, each returning
        :class:`engines.fight.FightStats` (the example plug-in's README lists the contract).
    ``archetypes``
        Where the one archetype loader (:mod:`analysis.combat.archetypes`) finds the
        system's archetype library: ``"module:ATTRIBUTE"`` of an ``ArchetypeHook`` (data
        file, its pydantic models, rung and style → combatant). A string, loaded by the
        analysis layer, never by the engines. None: no duel by name.
    """

    module: str
    archetypes: str | None = None

    def engine(self):
        """The combat engine module."""
        return importlib.import_module(self.module)


@dataclass(frozen=True)
class Campaign:
    """The campaign mechanics (None: the system has none).

    ``module``
        The module holding ``MECHANICS`` (:class:`engines.campaign.Mechanic` by name),
        imported on first use (:meth:`engine`).
    ``example``
        The report's campaign example: ``(mechanic, its parameters, sessions,
        threshold)``. None: the campaign section leaves the system out.
    """

    module: str
    example: tuple[str, Mapping[str, Any], int, int] | None = None

    def engine(self):
        """The campaign-mechanics module (its ``MECHANICS``)."""
        return importlib.import_module(self.module)


@dataclass(frozen=True)
class Report:
    """What the report's sections draw for the system: all data with defaults, so a
    system without them gets a plain view (from the axes, the ladder and the neutrals).
    Texts are English msgids (marked with :func:`N_`); the report translates them.

    ``summary``: one line on what a success means (default: the system's name);
    ``color``: its colour in every cross-system figure (None: a spare colour);
    ``label``: a short description for figure labels (default: the name).
    ``curve_panels`` (:class:`CurvePanel`), ``curve_caption``, ``curve_alt`` (may use
    ``{system}``), ``curve_width`` (inches; None: the default) and ``curve_tables``
    (:class:`CurveTable`): the success-curve figure and tables (empty: the competence axis
    across, one line or column per difficulty, every other axis at its neutral).
    ``curve_reading`` / ``outcome_reading``: :class:`TextReading` sentences of the curve
    and outcome sections. ``outcome_labels``: what a roll setting is and what the raw
    outcome counts. ``pool_settings``: the roll settings are pool sizes (drawn in the
    successes-per-pool figure). ``spread``: the native-spread section's representative
    task, ``(axis a character improves along, the other axes held, a label)`` (None: the
    competence axis, every other axis at its neutral). ``claims``: the claims of the
    rules digest the system carries (``("C7",)``): the claim's table, command and
    section find their system here, never by its id. ``glance``: the system's paragraph
    in the report's "At a glance": what it is in plain words and the rule (its id cited)
    behind its defining numbers; a template whose fields are the figure keys of
    :data:`reports.sections.glance.COLUMNS` (``{one_hit_drops}``), filled with the
    table's figures ("": the summary alone). ``ties``: how its opposed check settles a
    tie, its rule id cited (the sections that show opposed results say it beside them).
    ``dying``: what becomes of a dying fighter nobody helps under the system's default
    reading, its rule id cited (said beside every table of fates). ``range_rules`` /
    ``move_rules``: the rule ids of its range bands and of its movement, cited where a
    distance curve dips; ``cover_rules``: those of its cover, cited in the distance
    section.
    """

    summary: str = ""
    color: str | None = None
    label: str = ""
    curve_panels: tuple[CurvePanel, ...] = ()
    curve_caption: str = ""
    curve_alt: str = ""
    curve_width: float | None = None
    curve_tables: tuple[CurveTable, ...] = ()
    curve_reading: TextReading | None = None
    outcome_labels: tuple[str, str] = (N_("roll setting"), N_("outcome value"))
    outcome_reading: TextReading | None = None
    pool_settings: bool = False
    spread: tuple[str, Mapping[str, Any], str] | None = None
    claims: tuple[str, ...] = ()
    glance: str = ""
    ties: str = ""
    dying: str = ""
    #: the rule ids of the system's range bands and of its movement (``"AT3, AT-g1"``,
    #: ``"AT1"``): the distance section cites them where a curve dips ("": none)
    range_rules: str = ""
    move_rules: str = ""
    #: the rule ids of its cover (``"ET3, ET-g1"``; "": it has no cover rule)
    cover_rules: str = ""


@dataclass(frozen=True)
class Audit:
    """What the audit (``rpg-balance audit``) and its findings need of the system.

    ``terms``
        The system's own words for what a finding names (read by
        :mod:`analysis.glossary`): ``{key: (term, rule id)}``. A key is a fighter's trait
        as its archetype library names it (``"vigor"``), ``"weapon"``, ``"armour"``,
        ``"tactic"``, a check axis (``"difficulty"``), or ``"NAME=VALUE"`` for one value of
        a trait, gear or axis (``"armour=heavy_archaic"``; its rule id may be empty). Terms
        are English msgids (:func:`N_`): a trait or gear word bare ("Vigor", "armour"), an
        axis with its article ("the difficulty"). A variant's words are its field's
        ``term`` and ``words``; a key without a term is read from its name.
    ``health_trait``
        The trait that measures a fighter's toughness (``CON``, ``vigor``): the cures move
        it for both fighters of a matchup guardrail. None: no such cure.
    ``interaction_sweep``
        The small exact sweep ``audit --discover`` runs to find knobs whose effect depends
        on another: ``{"metric": fight metric, "knobs": {knob: [two values]}}`` (knobs as
        the audit names them: ``both.<trait>``, ``both.armour``, ``variant.<name>``).
        None: no such sweep.
    ``duel_search``
        How the dominance search runs the system's duels: ``"exact"`` (the chain) or
        ``"mc"`` (Monte Carlo, for an exact chain too slow to search).
    """

    terms: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    health_trait: str | None = None
    interaction_sweep: Mapping[str, Any] | None = None
    duel_search: str = "exact"

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "terms",
            MappingProxyType({str(k): (str(v[0]), str(v[1])) for k, v in dict(self.terms).items()}),
        )
        if self.duel_search not in ("exact", "mc"):
            raise InputError(f"duel_search {self.duel_search!r}: expected 'exact' or 'mc'")


#: What each optional group's absence means, in the one standard line (:meth:`System.require`).
OPTIONAL = MappingProxyType(
    {"ladder": "ladder mapping", "combat": "combat rules", "campaign": "campaign mechanics"}
)


@dataclass(frozen=True)
class System:
    """A resolution system, as the suite asks of it: its id and display name, and the hook
    groups a plug-in fills — each a frozen dataclass whose docstring is its contract.

    ``checks`` (:class:`Checks`, always): the single check. ``ladder`` (:class:`Ladder`),
    ``combat`` (:class:`Combat`) and ``campaign`` (:class:`Campaign`): optional; None means
    the system has no such part, and every command or section that needs it says so in
    one line (:meth:`require`). ``report`` (:class:`Report`) and ``audit``
    (:class:`Audit`): data with defaults. ``known``: properties the conformance check
    would ask that the rules really lack, each with its reason (:class:`Known`).
    ``source``: where it came from (``built-in``, ``plug-in <distribution>``).
    """

    id: str
    name: str
    checks: Checks
    ladder: Ladder | None = None
    combat: Combat | None = None
    campaign: Campaign | None = None
    report: Report = field(default_factory=Report)
    audit: Audit = field(default_factory=Audit)
    known: tuple[Known, ...] = ()
    source: str = "built-in"

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("_", "").isalnum() or not self.id[0].isalpha():
            raise InputError(f"system id {self.id!r}: expected letters, digits and _")
        for name, kind in (
            ("checks", Checks),
            ("ladder", Ladder),
            ("combat", Combat),
            ("campaign", Campaign),
            ("report", Report),
            ("audit", Audit),
        ):
            value = getattr(self, name)
            if not (isinstance(value, kind) or (value is None and name in OPTIONAL)):
                raise InputError(
                    f"system {self.id}: {name}: expected an "
                    f"engines.system.{kind.__name__}, got {type(value).__name__}"
                )
        object.__setattr__(self, "known", tuple(self.known))
        if self.ladder is not None:
            axes = self.checks.axes
            for name in self.ladder.swept:
                if name not in axes:
                    raise InputError(
                        f"system {self.id}: axis {name!r} is not one of its "
                        f"axes ({', '.join(axes)})"
                    )

    def lacks(self, group: str) -> str | None:
        """The one standard line saying the system has no optional group ``group``
        (``"ladder"``, ``"combat"``, ``"campaign"``): ``"<id>: this system declares no
        combat rules"``; None when it has it. A command or section that goes on without the
        group starts its note with this line."""
        if group not in OPTIONAL:
            raise ValueError(f"{group!r} is not an optional group ({', '.join(OPTIONAL)})")
        if getattr(self, group) is not None:
            return None
        return f"{self.id}: this system declares no {OPTIONAL[group]}"

    def require(self, group: str):
        """The optional group ``group`` (``"ladder"``, ``"combat"``, ``"campaign"``), or an
        :class:`InputError` carrying the one standard line (:meth:`lacks`)."""
        why = self.lacks(group)
        if why is not None:
            raise InputError(why)
        return getattr(self, group)

    def knows(self, prop: str) -> Known | None:
        """The declared :class:`Known` exception for ``prop`` (None: not declared)."""
        return next((k for k in self.known if k.property == prop), None)

    @property
    def solvable(self) -> bool:
        """Whether the difficulty solver can handle it (a check grid and a ladder)."""
        return self.checks.grid is not None and self.ladder is not None


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
        raise InputError(f"{where}: cannot be loaded: {exc.__class__.__name__}: {exc}") from None
    if callable(obj) and not isinstance(obj, System):
        obj = obj()
    if not isinstance(obj, System):
        raise InputError(f"{where}: expected an engines.system.System, got {type(obj).__name__}")
    if obj.source == "built-in":
        dist = getattr(ep, "dist", None)
        name = getattr(dist, "name", None) or ep.value.split(":")[0].split(".")[0]
        obj = dataclasses.replace(obj, source=f"plug-in {name}")
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
                raise InputError(
                    f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP}: "
                    f"system id {system.id!r} is already registered "
                    f"({found[system.id].source})"
                )
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
        raise InputError(f"unknown system {system_id!r}{hint}; known: " + ", ".join(systems))
    return systems[system_id]
