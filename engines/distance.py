"""Distance and plans, the part every combat engine shares (RULES.md "Distance, movement
and cover").

A fight may start at a distance d₀ (metres; 0 = engaged, the fights without distance,
whose numbers do not change). Each turn a fighter spends its system's actions to close,
hold or open the distance, take cover, or attack a foe in reach (melee) or in range
(ranged). How far a move goes, how far a weapon reaches and what a band of range costs are
each system's rules (its own ids: AT1–AT3 for ``dice_pool_7`` …); what this module holds
is what they have in common, for the built-in engines and a plug-in's alike (the combat
contract: ``examples/plugin_system/README.md``, "Distance"):

- :data:`PLANS` — the names of a fighter's plan and their codes (the ``C_PLAN`` column a
  kernel reads): ``charge`` (close until the foe is in the weapon's best band, then
  fight), ``hold`` (attack what is in reach or range, otherwise close), ``kite`` (a
  shooter keeps out of a melee foe's reach while shooting), ``cover`` (take cover first,
  then shoot: only in a system with a cover rule);
- :func:`default_plan` — the documented default: a fighter whose weapon is ranged holds,
  every other fighter charges;
- :func:`check_plan` — one :class:`~engines.errors.InputError` wording for an unknown
  plan, a plan the weapon cannot follow and a plan the system has no rule for;
- :func:`check_distance` — the starting distance, a whole number of metres in
  ``0..MAX_DISTANCE``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .constants import PLANS
from .errors import InputError

__all__ = [
    "CHARGE",
    "COVER",
    "HOLD",
    "KITE",
    "MAX_DISTANCE",
    "PLANS",
    "check_distance",
    "check_plan",
    "default_plan",
    "plan_code",
]

#: The code of each plan (its index in :data:`~engines.constants.PLANS`).
CHARGE, HOLD, KITE, COVER = range(len(PLANS))
#: The farthest a fight may start, in metres (a designer's table rarely needs more; the
#: exact duel chains carry the distance in their state, so it stays bounded).
MAX_DISTANCE = 200


def default_plan(ranged: bool) -> str:
    """The plan of a fighter that names none: ``hold`` with a ranged weapon, else
    ``charge`` (melee fighters close, shooters shoot from where they stand)."""
    return "hold" if ranged else "charge"


def plan_code(plan: str | None, ranged: bool | None = None) -> int:
    """The code of ``plan`` for a kernel's row: its index in :data:`PLANS` (None: the
    :func:`default_plan` of a fighter whose weapon is ``ranged`` or not); an unknown
    name is an :class:`~engines.errors.InputError`."""
    if plan is None:
        if ranged is None:
            raise InputError("plan: none given, and no weapon to choose the default from")
        plan = default_plan(ranged)
    if plan not in PLANS:
        raise InputError(f"unknown plan {plan!r}; choose {' | '.join(PLANS)}")
    return PLANS.index(plan)


def check_plan(
    plan, where: str, *, ranged: bool, unavailable: Mapping[str, str] | None = None
) -> str:
    """``plan`` (None: :func:`default_plan`) checked for a fighter: a name of
    :data:`PLANS`, ``kite`` only with a ranged weapon (it shoots while it keeps away),
    and none of ``unavailable`` (plan → why the system has no rule for it, e.g. ``cover``
    in a system whose seed gives no cover). Returns the plan in force."""
    if plan is None:
        return default_plan(ranged)
    usable = [p for p in PLANS if p not in (unavailable or {})]
    if plan not in PLANS:
        raise InputError(f"{where}: unknown plan {plan!r}; known: " + ", ".join(usable))
    if unavailable and plan in unavailable:
        raise InputError(
            f"{where}: plan {plan!r}: {unavailable[plan]}; choose " + ", ".join(usable)
        )
    if plan == "kite" and not ranged:
        raise InputError(
            f"{where}: plan 'kite' keeps out of a melee foe's reach while "
            "shooting, so it needs a ranged weapon; a melee fighter charges "
            "or holds"
        )
    return plan


def check_distance(value, limit: int = MAX_DISTANCE) -> int:
    """The starting distance as an ``int`` of metres in ``0..limit`` (InputError
    otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
        raise InputError(f"variant distance: expected whole metres 0..{limit}, got {value!r}")
    return int(value)
