"""Rules turned into numbers: exact models and Monte Carlo kernels, one module per system.

Nothing here imports pandas or matplotlib; :mod:`analysis` builds tables from these arrays.
"""

from . import d20_degrees, dice_pool_6, dice_pool_7, middle_3d10, percentile
from .errors import InputError

SYSTEMS = {
    "dice_pool_7": dice_pool_7,
    "middle_3d10": middle_3d10,
    "dice_pool_6": dice_pool_6,
    "percentile": percentile,
    "d20_degrees": d20_degrees,
}


def system_module(name: str):
    """The engine module of a system id, or a clear :class:`InputError`."""
    try:
        return SYSTEMS[name]
    except KeyError:
        raise InputError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}") from None


__all__ = ["SYSTEMS", "InputError", "system_module"]
