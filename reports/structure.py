"""Report structure: sections made of paragraphs, tables and figures.

These are plain data; :mod:`reports.sections` fills them from analysis frames and the
renderers turn them into HTML/PDF. A :class:`Table` keeps the frame itself so the
rendered numbers can be checked against it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = [
    "COMPACT_COLUMNS",
    "COMPACT_ROWS",
    "Block",
    "Caption",
    "Figure",
    "Note",
    "Paragraph",
    "Reading",
    "Report",
    "Section",
    "SectionFn",
    "Table",
    "percent_cell",
]


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

    ``percent`` names the columns shown as percentages in the language's style
    (``0.6400`` → "64.0%", pt-BR "64,0 %"); ``None`` finds them: the columns whose format
    is ``".4f"`` (the default, the tables' format for a chance) and whose values are all
    numbers from 0 to 1 (probabilities: success curves, shares of fighters, upset
    chances). ``percent=()`` shows every number in its format.

    ``compact`` is the printed (PDF) view of a large grid: ``True`` picks a few evenly
    spread rows and columns of ``frame`` (:meth:`compact_view`), a frame is shown as
    given, ``False`` prints the whole table; ``None`` (the default) is ``True`` for a grid
    of numbers (every index value a number) larger than :data:`COMPACT_ROWS` rows or
    :data:`COMPACT_COLUMNS` value columns. The HTML page and the CSV keep the full grid.
    ``printed=False`` leaves the table out of the PDF (a second view of a system whose
    first table is printed; the HTML page shows it).
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
    percent: tuple[str, ...] | None = None
    compact: pd.DataFrame | bool | None = None
    printed: bool = True

    @functools.cached_property
    def percent_columns(self) -> frozenset[str]:
        """The columns shown as percentages (``percent``, or the probability columns
        found as its docstring says)."""
        if self.percent is not None:
            return frozenset(str(c) for c in self.percent)
        found = set()
        for c in self.frame.columns:
            name = str(c)
            if name in self.index or self.formats.get(name, self.default_format) != ".4f":
                continue
            values = self.frame[c]
            if values.dtype.kind != "f":
                continue
            finite = values.dropna()  # a share computed as a ratio may pass 1 by 1e-16
            if len(finite) and bool(((finite >= -_EPS) & (finite <= 1 + _EPS)).all()):
                found.add(name)
        return frozenset(found)

    def compact_view(self) -> pd.DataFrame | None:
        """The printed view of the table (``None``: the table itself), see ``compact``."""
        if self.compact is False:
            return None
        if isinstance(self.compact, pd.DataFrame):
            return self.compact
        index = [str(c) for c in self.index]
        values = [c for c in self.frame.columns if str(c) not in index]
        big = len(self.frame) > COMPACT_ROWS or len(values) > COMPACT_COLUMNS
        if self.compact is None:
            grid = bool(index) and all(
                pd.api.types.is_number(v) or _numeric(v) for c in index for v in self.frame[c]
            )
            if not (big and grid):
                return None
        elif not big:
            return None
        rows = _spread(len(self.frame), COMPACT_ROWS)
        keep = [values[i] for i in _spread(len(values), COMPACT_COLUMNS)]
        view = self.frame.iloc[rows]
        return view[[c for c in self.frame.columns if str(c) in index or c in keep]]

    def fmt(self, column: str, value, lang: str = "en") -> str:
        """``value`` as shown in the table, in ``lang``'s number style."""
        from reports.i18n import format_spec, text, translations

        if lang != "en" and isinstance(value, bool | np.bool_):
            tr = translations(lang)  # a yes/no cell in words (English keeps True/False)
            return tr.gettext("yes") if value else tr.gettext("no")
        if isinstance(value, float | int) and not isinstance(value, bool):
            if str(column) in self.percent_columns and -_EPS <= value <= 1 + _EPS:
                return percent_cell(float(value), lang)
            spec = self.formats.get(str(column), self.default_format)
            if isinstance(value, int) and spec == self.default_format:
                return str(value) if str(column) in self.index else format_spec(value, "d", lang)
            try:
                return format_spec(value, spec, lang)
            except (TypeError, ValueError):
                return str(value)
        if lang != "en" and isinstance(value, str):
            return text(value, lang)  # a word of the catalogue ("exact" → "exato"); ids stay
        return "" if value is None else str(value)


#: how far a computed chance may stray outside 0..1 (rounding) and still read as 0 or 1
_EPS = 1e-9

#: the largest grid printed whole: rows, and columns besides the index columns
COMPACT_ROWS = 12
COMPACT_COLUMNS = 8


def _numeric(text) -> bool:
    """Whether a grid's label reads as a number ("5", "-2", "+1 bonus" does not)."""
    try:
        float(str(text).replace("−", "-"))
    except ValueError:
        return False
    return True


def _spread(n: int, most: int) -> list[int]:
    """About ``most`` positions of ``range(n)`` at an even step (every 2nd, 3rd …), the
    first and the last kept (a grid's ends and a regular step read best)."""
    if n <= most:
        return list(range(n))
    step = -(-(n - 1) // (most - 1))
    picked = list(range(0, n, step))
    if picked[-1] != n - 1:
        picked.append(n - 1)
    return picked


def percent_cell(p: float, lang: str = "en") -> str:
    """A probability in a table cell: a percentage with one decimal in ``lang``'s style
    ("64.0%"), 0 and 1 without decimals, a non-zero chance below 0.05 % as "<0.1%" and one
    short of 1 by less than that as ">99.9%" (never a 0.0% that is not zero)."""
    from reports.i18n import format_spec

    p = min(max(p, 0.0), 1.0)  # a ratio's rounding noise past 0 or 1 (within _EPS)
    if p in (0.0, 1.0):
        return format_spec(p, ".0%", lang)
    if p < 0.0005:
        return "<" + format_spec(0.001, ".1%", lang)
    if p > 0.9995:
        return ">" + format_spec(0.999, ".1%", lang)
    return format_spec(p, ".1%", lang)


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
    reading: Sequence[str]
    blocks: Sequence[Block] = field(default_factory=list)
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
