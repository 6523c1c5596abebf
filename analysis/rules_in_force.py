"""The rules in force while a command runs (:mod:`analysis.rules`): which
:class:`~analysis.rules.RuleSet` of each system the archetype loader
(:mod:`analysis.combat.archetypes`) builds fighters and lists gear under.

:func:`using` puts rule sets in force for a block (a scenario's ``rules``, a knob's
edit); :func:`only` puts exactly these in force for a block, whatever was before (a
setup compared with the one in force: the workbench's pinned A); :func:`put` for the
rest of the current context (the command line runs each
command in a context of its own); :func:`bound` carries the rules in force into a task
run elsewhere (a Dask worker, another thread). This module imports nothing of the
project, so the loader and the rules can both read it.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

__all__ = ["active", "apply_everyone", "bound", "in_force", "only", "put", "using"]

_ACTIVE: contextvars.ContextVar[tuple] = contextvars.ContextVar("rpg_balance_rules", default=())


def in_force() -> dict[str, Any]:
    """``{system: RuleSet}`` of the rules in force (empty: the package's rules)."""
    return {rs.system: rs for rs in _ACTIVE.get()}


def active(system: str) -> Any:
    """The rules of ``system`` in force (None: the package's)."""
    for rs in _ACTIVE.get():
        if rs.system == system:
            return rs if rs else None
    return None


@contextlib.contextmanager
def using(rulesets: Mapping[str, Any] | Iterable[Any] | None) -> Iterator[None]:
    """Put ``rulesets`` in force for the block, on top of those already in force (a
    second set for a system already in force adds its edits after the first's)."""
    given = list(rulesets.values()) if isinstance(rulesets, Mapping) else list(rulesets or ())
    if not given:
        yield
        return
    now = in_force()
    for rs in given:
        now[rs.system] = now[rs.system].merged(rs) if rs.system in now else rs
    token = _ACTIVE.set(tuple(now.values()))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def only(rulesets: Mapping[str, Any] | Iterable[Any] | None) -> Iterator[None]:
    """Put exactly ``rulesets`` in force for the block (none: the package's rules),
    leaving out those in force around it."""
    given = list(rulesets.values()) if isinstance(rulesets, Mapping) else list(rulesets or ())
    token = _ACTIVE.set(tuple(given))
    try:
        yield
    finally:
        _ACTIVE.reset(token)


def put(rulesets: Mapping[str, Any] | Iterable[Any] | None) -> None:
    """Put ``rulesets`` in force for the rest of the current context, on top of those
    in force (the command line runs each command in a context of its own, so a
    scenario's ``rules`` end with its command); elsewhere prefer :func:`using`."""
    given = list(rulesets.values()) if isinstance(rulesets, Mapping) else list(rulesets or ())
    now = in_force()
    for rs in given:
        now[rs.system] = now[rs.system].merged(rs) if rs.system in now else rs
    _ACTIVE.set(tuple(now.values()))


def _call_with(rulesets: tuple, fn: Callable, *args, **kwargs):
    with using(rulesets):
        return fn(*args, **kwargs)


def bound(fn: Callable) -> Callable:
    """``fn`` carrying the rules in force now into wherever it runs (picklable when
    ``fn`` is)."""
    now = _ACTIVE.get()
    return fn if not now else functools.partial(_call_with, now, fn)


def apply_everyone(system: str, base: Callable[[str], Any]) -> dict[str, int]:
    """``{trait: value}`` overrides of the ``everyone`` offsets in force for one fighter
    whose own value of a trait is ``base(trait)`` (empty when none are in force): its own
    value plus the offset, held at the rule set's ``max`` (a rise) or ``min`` (a fall)
    when it gives one — a fighter already past it keeps its own value."""
    rs = active(system)
    if rs is None or not rs.everyone:
        return {}
    caps = {t: (lo, hi) for t, lo, hi in getattr(rs, "caps", ())}
    out = {}
    for trait, off in rs.everyone:
        own = base(trait)
        value = own + off
        lo, hi = caps.get(trait, (None, None))
        if hi is not None and off > 0:
            value = max(own, min(value, hi))  # never past max; never below its own
        if lo is not None and off < 0:
            value = min(own, max(value, lo))
        out[trait] = value
    return out
