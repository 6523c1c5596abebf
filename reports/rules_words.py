"""The rules files in force, in the words of the report and the workbench page.

A designer's rules files (``--rules FILE``, :mod:`analysis.rules`) change what every
number of a report or of the workbench means, so both name them: the report's first
page and its Assumptions, the page's header. Each edit is one phrase
(:meth:`analysis.rules.RuleSet.words`, with the words around the rule-table names in
the language in force): ``armour.heavy_archaic.ballistic 2 → 1``, ``weapon.crossbow
added``, ``everyone's CON +1``.

:func:`carrying` puts rule sets in force for a block (a report build, a page's
callback, a thread of the page) unless the very same rules are in force already, so the
command line's ``--rules`` are never applied twice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping

from analysis.rules import active, using

from .i18n import _

__all__ = [
    "carrying",
    "edit_words",
    "rules_frame",
    "rules_line",
    "rules_sets",
    "with_rules_options",
]


def rules_sets(rulesets: Mapping | Iterable | None) -> tuple:
    """The rule sets that edit something (an empty set is the package's rules), as a
    tuple in the order given."""
    given = rulesets.values() if isinstance(rulesets, Mapping) else (rulesets or ())
    return tuple(rs for rs in given if rs)


def edit_words(rs) -> list[str]:
    """Each edit of ``rs`` in words, in the language in force (one phrase per change,
    then one per ``everyone`` offset, in the order of :meth:`RuleSet.words`)."""
    words = rs.words()
    items = [*rs.changes, *(("everyone", t, o) for t, o in rs.everyone)]
    out = []
    for item, said in zip(items, words, strict=True):
        if item[0] == "add":
            out.append(_("{entry} added").format(entry=f"{item[1]}.{item[2]}"))
        elif item[0] == "remove":
            out.append(_("{entry} removed").format(entry=f"{item[1]}.{item[2]}"))
        elif item[0] == "everyone":
            phrase = _("everyone's {trait} {offset}").format(trait=item[1], offset=f"{item[2]:+d}")
            lo, hi = next(
                ((lo, hi) for t, lo, hi in getattr(rs, "caps", ()) if t == item[1]), (None, None)
            )
            bounds = ([_("at least {min}").format(min=lo)] if lo is not None else []) + (
                [_("at most {max}").format(max=hi)] if hi is not None else []
            )
            out.append(phrase + (f" ({', '.join(bounds)})" if bounds else ""))
        else:
            out.append(said)
    return out


def _files(rs) -> str:
    return ", ".join(rs.sources) if rs.sources else _("edits given on the command line")


def rules_line(rulesets) -> str:
    """One line naming every rules file and its edits: ``dice_pool_7 (my_rules.toml):
    armour.heavy_archaic.ballistic 2 → 1; everyone's CON +1`` (several systems joined
    by ``" | "``); empty when none edits anything."""
    return " | ".join(
        f"{rs.system} ({_files(rs)}): " + "; ".join(edit_words(rs)) for rs in rules_sets(rulesets)
    )


def rules_frame(rulesets):
    """One row per edit: ``system``, ``rules file``, ``edit`` (in words)."""
    import pandas as pd

    rows = [
        {"system": rs.system, "rules file": _files(rs), "edit": words}
        for rs in rules_sets(rulesets)
        for words in edit_words(rs)
    ]
    return pd.DataFrame(rows, columns=["system", "rules file", "edit"])


@contextlib.contextmanager
def carrying(rulesets) -> Iterator[None]:
    """Put ``rulesets`` in force for the block (:func:`analysis.rules.using`), leaving
    out each one already in force with the same edits (the command line's ``--rules``
    in the thread that parsed them): wherever the block runs — another thread, a
    server's callback — it computes under these rules."""
    missing = []
    for rs in rules_sets(rulesets):
        now = active(rs.system)
        if now is None or now.key != rs.key:
            missing.append(rs)
    with using(missing):
        yield


def with_rules_options(small: str, files) -> str:
    """The small print ``small`` with every ``rpg-balance`` command on it (one per line,
    or several joined by `` ; ``) put under the rules files ``files`` (``--rules FILE``
    before a trailing shell comment), so a command printed by a report built with
    ``--rules`` prints that report's numbers wherever it is run. A ``--rules`` a command
    names already (a file's bare name, as the audit's own commands write it) gives way
    to the paths given."""
    import re
    import shlex

    extra = "".join(f" --rules {shlex.quote(str(f))}" for f in files)
    if not extra:
        return small

    def one(command: str) -> str:
        head, sep, comment = command.partition("  # ")
        if head.lstrip().startswith("rpg-balance "):
            head = re.sub(r" --rules \S+", "", head)
            return head.rstrip() + extra + (f"  # {comment}" if sep else "")
        return command

    return "\n".join(" ; ".join(one(c) for c in line.split(" ; ")) for line in small.split("\n"))
