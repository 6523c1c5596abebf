"""The ``d20_degrees`` system: single checks (``checks``), combat (``combat``) and campaign
mechanics (``campaign``); its :class:`~engines.system.System` is ``checks.PLUGIN``."""

from .checks import PLUGIN

__all__ = ["PLUGIN"]
