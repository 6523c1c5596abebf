"""Rules turned into numbers: exact models and Monte Carlo kernels, one module per system.

Nothing here imports pandas or matplotlib; :mod:`analysis` builds tables from these arrays.
System modules load on first use (``engines.SYSTEMS``, ``engines.dice_pool_7``, ...), so
importing :mod:`engines.errors` alone stays cheap (the command line's ``--help``).
"""

from __future__ import annotations

import importlib

from .errors import InputError

SYSTEM_IDS = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")


def _systems() -> dict:
    return {name: importlib.import_module(f"{__name__}.{name}") for name in SYSTEM_IDS}


def __getattr__(name: str):
    if name == "SYSTEMS":
        systems = _systems()
        globals()["SYSTEMS"] = systems
        return systems
    if name in SYSTEM_IDS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def system_module(name: str):
    """The engine module of a system id, or a clear :class:`InputError`."""
    if name not in SYSTEM_IDS:
        raise InputError(f"unknown system {name!r}; known: {', '.join(SYSTEM_IDS)}")
    return importlib.import_module(f"{__name__}.{name}")


__all__ = ["SYSTEMS", "SYSTEM_IDS", "InputError", "system_module"]
