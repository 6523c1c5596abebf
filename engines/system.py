"""The one protocol every resolution system implements, and the registry of them.

A system is one :class:`System` object: its id and display name, the module holding its
``Variants`` dataclass and its exact / Monte Carlo distributions over outcome codes, its
native check axes, whether it has an opposed-check rule, and the modules of its combat
engine and campaign mechanics (both optional: a system may have neither). The five
built-in systems define theirs as ``PLUGIN`` in their engine module
(``engines.dice_pool_7.PLUGIN`` ...); an outside package registers one through the
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .errors import InputError

ENTRY_POINT_GROUP = "rpg_balance.systems"
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
    the success-curve tables need. (The five built-in systems still build their grids in
    :mod:`analysis.checks.curves`.)

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
    # --- combat hooks ------------------------------------------------------------------
    # ``archetype_library``: where the one archetype loader
    # (:mod:`analysis.combat.archetypes`) finds the system's archetype library, as
    # ``"module:ATTRIBUTE"`` of an ``ArchetypeHook`` (data file, its pydantic models, rung
    # and style → combatant). A string, loaded on first use by the analysis layer, never
    # by the engines. ``None``: no archetype library (no ``duel``/``fight`` by name).
    archetype_library: str | None = None

    def __post_init__(self) -> None:
        if not self.id or not self.id.replace("_", "").isalnum() or not self.id[0].isalpha():
            raise InputError(f"system id {self.id!r}: expected letters, digits and _")
        axes = {str(k): tuple(v) for k, v in dict(self.axes).items()}
        object.__setattr__(self, "axes", MappingProxyType(axes))
        object.__setattr__(self, "ladder", MappingProxyType(dict(self.ladder)))
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


def _entry_points():
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
        found = {sid: importlib.import_module(f"engines.{sid}").PLUGIN for sid in BUILT_IN}
        for ep in _entry_points():
            system = _load(ep)
            if system.id in found:
                raise InputError(f"entry point {ep.name!r} of group {ENTRY_POINT_GROUP}: "
                                 f"system id {system.id!r} is already registered "
                                 f"({found[system.id].source})")
            found[system.id] = system
        _REGISTRY = found
    return MappingProxyType(_REGISTRY)


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
