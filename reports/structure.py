"""Report structure: sections made of paragraphs, tables and figures.

These are plain data; :mod:`reports.sections` fills them from analysis frames and the
renderers turn them into HTML/PDF. A :class:`Table` keeps the frame itself so the
rendered numbers can be checked against it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["Block", "Caption", "Figure", "Note", "Paragraph", "Reading", "Report", "Section",
           "SectionFn", "Table"]


@dataclass(frozen=True)
class Caption:
    """What a table or figure shows, in one or two sentences (units included)."""

    text: str


@dataclass
class Table:
    """A frame shown as a table. ``formats`` maps a column to a format spec (``".4f"``).

    ``index`` names the columns that label rows (rendered as row headers).
    ``download`` attaches the frame (or ``full``, when the shown frame is a view of a
    larger one) as an embedded CSV file.
    """

    id: str
    title: str
    frame: pd.DataFrame
    caption: Caption
    formats: Mapping[str, str] = field(default_factory=dict)
    default_format: str = ".4f"
    index: tuple[str, ...] = ()
    full: pd.DataFrame | None = None
    column_label: str = ""

    def fmt(self, column: str, value, lang: str = "en") -> str:
        """``value`` as shown in the table, in ``lang``'s number style."""
        from reports.i18n import format_spec, translations

        if lang != "en" and isinstance(value, bool | np.bool_):
            tr = translations(lang)  # a yes/no cell in words (English keeps True/False)
            return tr.gettext("yes") if value else tr.gettext("no")
        if isinstance(value, float | int) and not isinstance(value, bool):
            spec = self.formats.get(str(column), self.default_format)
            if isinstance(value, int) and spec == self.default_format:
                return str(value) if str(column) in self.index else format_spec(value, "d", lang)
            try:
                return format_spec(value, spec, lang)
            except (TypeError, ValueError):
                return str(value)
        return "" if value is None else str(value)


@dataclass
class Figure:
    """A figure as embedded PNG bytes (``data``) with alt text and a caption."""

    id: str
    title: str
    data: bytes
    caption: Caption
    alt: str
    mime: str = "image/png"


@dataclass
class Paragraph:
    text: str


@dataclass
class Note:
    """A highlighted remark (e.g. a section not available in this build)."""

    text: str
    kind: str = "info"


Block = Table | Figure | Paragraph | Note


class Reading(str):
    """A sentence of a section's reading with ``small``: text shown under it in small
    print (the ``rpg-balance`` command that prints the sentence's number)."""

    small: str

    def __new__(cls, text: str, small: str = "") -> Reading:
        self = super().__new__(cls, text)
        self.small = small
        return self


@dataclass
class Section:
    """A report section: title, a plain-language reading for designers, then blocks."""

    id: str
    title: str
    reading: list[str]
    blocks: list[Block] = field(default_factory=list)
    available: bool = True
    #: the blocks shown before the reading (a section whose table comes first)
    blocks_first: bool = False

    def tables(self) -> list[Table]:
        return [b for b in self.blocks if isinstance(b, Table)]

    def figures(self) -> list[Figure]:
        return [b for b in self.blocks if isinstance(b, Figure)]


@dataclass
class Report:
    title: str
    sections: list[Section]
    meta: dict = field(default_factory=dict)


SectionFn = Callable[..., Section | None]
