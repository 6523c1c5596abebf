"""Rules turned into numbers: exact models and Monte Carlo kernels.

Every resolution system is one package under :mod:`engines.systems` (its checks, combat
and campaign modules and its :class:`~engines.system.System` object, ``PLUGIN``), found
through :func:`engines.system.registry` like an outside plug-in; the modules beside it
here are what the systems share (the protocol, variants, dice and RNG streams, kernel
settings, fight and campaign result types). Nothing here imports pandas or matplotlib:
:mod:`analysis` builds tables from these arrays. System modules load on first use, so
importing :mod:`engines.errors` alone stays cheap (the command line's ``--help``).
"""

from __future__ import annotations

from .errors import InputError

__all__ = ["InputError"]
