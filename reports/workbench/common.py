"""What the workbench's tabs share: the server's log, the label of "the archetype's
own" gear, a command as a code block and a table in the page's words."""

from __future__ import annotations

import logging

from ..i18n import N_

__all__ = ["GEAR_WORDS", "OWN", "code_block", "frame", "log"]

log = logging.getLogger("rpg_balance.workbench")

#: the label of "keep the archetype's own" in the gear menus
OWN = ""
#: the words of each side's gear menus (translated where they are shown)
GEAR_WORDS = (N_("weapon"), N_("armour"), N_("tactic"), N_("plan"))


def code_block(text: str) -> str:
    """A command (or several, one per line) as the page shows it."""
    return f"```sh\n{text}\n```"


def frame(df, percent_cols=()):
    """A table for the page in the report's words (:func:`.words.frame`: headers and ids
    in words with the identifier in a tooltip, probabilities as percentages with 2
    decimals in the language's style); its cells are HTML, so the pane that shows it
    has ``escape=False``."""
    from .words import frame as in_words

    return in_words(df, percent_cols)
