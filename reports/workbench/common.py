"""What the workbench's tabs share: the server's log, the label of "the archetype's
own" gear, a command as a code block and a table in the page's words."""

from __future__ import annotations

import contextlib
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
    """A table for the page: probabilities as percentages with 2 decimals, the columns
    named in the report's words (:func:`reports.labels.header`, the language in force)."""
    from reports.labels import header

    out = df.copy()
    for col in out.columns:
        if col in percent_cols or (str(col).startswith(("p_", "se_")) or col == "p"):
            with contextlib.suppress(TypeError, ValueError):
                out[col] = [f"{100 * float(x):.2f}%" for x in out[col]]
    return out.rename(columns={c: header(c) for c in out.columns})
