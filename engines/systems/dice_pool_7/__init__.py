"""The ``dice_pool_7`` system: single checks (``checks``), combat (``combat``) and campaign
mechanics (``campaign``); its :class:`~engines.system.System` is ``checks.PLUGIN``."""

from .checks import PLUGIN

__all__ = ["PLUGIN"]
