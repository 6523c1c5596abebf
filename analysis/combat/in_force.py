"""The variants in force for one system, checks and combat together, from one call.

A designer gives rule variants as ``NAME=VALUE`` strings (a scenario or matchup file, the
command line, the report's ``--variant SYSTEM:NAME=VALUE``) without saying which part of
the rules each belongs to. :func:`variants_in_force` sorts them (a name the check system
knows reaches the checks, and also the combat engine when its ``Variants`` has it too; a
combat-only name reaches only the combat engine), validates them and builds both
``Variants`` objects over the defaults, with the aftermath policy (RULES.md "Lethality
outcomes") when one is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.system import get

__all__ = ["VariantsInForce", "split", "variants_in_force"]


@dataclass(frozen=True)
class VariantsInForce:
    """What :func:`variants_in_force` returns."""

    system: str
    #: the system's check ``Variants``
    checks: Any
    #: its combat ``Variants`` (None: the system declares no combat rules)
    combat: Any | None
    #: the given ``NAME=VALUE`` strings that reach the checks / the combat engine
    check_texts: tuple[str, ...] = ()
    combat_texts: tuple[str, ...] = ()


def split(system: str, given=()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``given`` (``NAME=VALUE`` strings) as (those of the checks, those of the combat
    engine); a system without combat rules takes every one as a check variant."""
    given = tuple(given or ())
    if not given:
        return (), ()
    if get(system).combat is None:
        return given, ()
    from analysis.combat.archetypes import split_variants

    checks, combat = split_variants(system, given)
    return tuple(checks), tuple(combat)


def variants_in_force(system: str, given=(), aftermath: str | None = None) -> VariantsInForce:
    """The check and combat ``Variants`` of ``system`` under ``given`` (``NAME=VALUE``
    strings, either part's names mixed; an unknown name or bad value is an
    :class:`~engines.errors.InputError`) and, for combat, the aftermath policy."""
    from analysis.checks.curves import variants_for

    check_texts, combat_texts = split(system, given)
    checks = variants_for(system, list(check_texts))
    combat = None
    if get(system).combat is not None:
        from analysis.combat.lethality import combat_variants

        combat = combat_variants(system, list(combat_texts), aftermath)
    return VariantsInForce(system, checks, combat, check_texts, combat_texts)
