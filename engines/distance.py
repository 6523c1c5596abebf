"""Fights that start apart: the plans every combat engine with distance rules shares
(RULES.md "Distance, movement and cover").

A fighter's *plan* is a named tactic for a fight that starts at a distance:

- ``charge`` — close to its foe, then fight;
- ``hold`` — attack what is in reach or range, otherwise close;
- ``kite`` — a shooter keeps out of a melee foe's reach while shooting;
- ``cover`` — take cover first where the system has cover, then shoot.

Default (:func:`default_plan`): a fighter with a ranged weapon holds, any other charges.
Engines take a plan as its code, the index in :data:`PLANS` (:func:`plan_code`).
"""

from __future__ import annotations

from .errors import InputError

PLANS = ("charge", "hold", "kite", "cover")


def plan_code(name) -> int:
    """The engine code of plan ``name``: its index in :data:`PLANS`."""
    if name not in PLANS:
        raise InputError(f"unknown plan {name!r}; choose {' | '.join(PLANS)}")
    return PLANS.index(name)


def default_plan(ranged: bool) -> str:
    """A shooter holds (it attacks what is in range), anyone else charges."""
    return "hold" if ranged else "charge"
