"""Sentences that ``analysis`` builds from numbers, kept translatable.

``analysis`` (and ``engines``) never import ``reports``, so they cannot translate; they
*mark* their sentence templates with the no-op :func:`N_` (Babel extracts the marked
msgids, see ``babel.cfg``) and return a :class:`Text`: the English sentence itself (a
``str``, so tables, CSV files and messages are unchanged) that also remembers its template
and the values filled in. The report and the CLI's ``--lang`` show it in another
language with ``reports.i18n.text``: the template translated first, then filled with the
values in that language's number style. A table keeps only the string (pandas stores text
as its own string type), so the sentences made recently are also remembered by their
English text (:func:`made`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

__all__ = ["N_", "Text", "join", "made"]

#: the most recent sentences made, English text → :class:`Text` (tables store plain
#: strings: pandas keeps a column of text as its own string type, not the objects)
_MADE: OrderedDict[str, Text] = OrderedDict()
_KEEP = 20_000


def N_(message: str) -> str:
    """Mark ``message`` for extraction (it is translated where it is shown)."""
    return message


class Text(str):
    """``template.format(**fields)`` in English, remembering ``template`` and ``fields``
    (a field may itself be a :class:`Text`: translated with its sentence)."""

    template: str
    fields: dict[str, Any]

    def __new__(cls, template: str, **fields: Any) -> Text:
        self = super().__new__(cls, template.format(**fields))
        self.template = template
        self.fields = fields
        _MADE[str(self)] = self
        _MADE.move_to_end(str(self))
        if len(_MADE) > _KEEP:
            _MADE.popitem(last=False)
        return self

    def __reduce__(self):
        return (_rebuild, (self.template, self.fields))


def made(sentence: object) -> Text | None:
    """The :class:`Text` a plain English ``sentence`` was made as in this process (a
    table cell that pandas turned into its own string), or None."""
    if isinstance(sentence, Text):
        return sentence
    return _MADE.get(sentence) if isinstance(sentence, str) else None


def _rebuild(template: str, fields: dict) -> Text:
    return Text(template, **fields)


def join(sep: str, items) -> Text:
    """``sep.join(items)`` that keeps each item translatable."""
    items = list(items)
    fields = {f"item{i}": item for i, item in enumerate(items)}
    return Text(sep.join("{" + k + "}" for k in fields), **fields)
