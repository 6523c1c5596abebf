"""Render a :class:`~reports.structure.Report` as one self-contained HTML file.

Figures are embedded as base64 PNG ``data:`` URIs, CSS is inline, each table's full grid
is attached as an embedded CSV: the file opens offline and references no external URL.
"""

from __future__ import annotations

import base64
from importlib import metadata

import jinja2
import numpy as np
from markupsafe import Markup

from . import i18n, plotting
from .settings import ReportSettings
from .structure import Report, Table

__all__ = ["CELL_PAD_PT", "CHAR_EM", "PRINT_SIZES", "PRINT_WIDTH_PT", "column_header", "data_uri",
           "print_class", "render_html", "table_rows"]


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def table_rows(t: Table, lang: str = "en") -> list[list[tuple[str, str, str | None]]]:
    """Rows of ``(column, shown text, full-precision text or None)`` for a table; the
    shown text in ``lang``'s number style, the full-precision text machine-readable."""
    rows = []
    columns = [str(c) for c in t.frame.columns]
    for values in t.frame.itertuples(index=False, name=None):
        row = []
        for c, v in zip(columns, values, strict=True):
            if isinstance(v, np.generic):
                v = v.item()
            full = repr(float(v)) if isinstance(v, float) else None
            row.append((c, t.fmt(c, v, lang), full))
        rows.append(row)
    return rows


#: Printed tables (report.css, ``@media print``): the font sizes in pt of the classes
#: ``""``, ``"wide"`` and ``"wider"``, the width of the A4 text block in pt (210 mm less
#: 2 × 12 mm), a character's mean advance in em (DejaVu Sans, digits 0.64) and a cell's
#: padding in pt.
PRINT_SIZES = ((6.8, ""), (6.2, "wide"), (5.4, "wider"))
PRINT_WIDTH_PT = 527.0
CHAR_EM = 0.64
CELL_PAD_PT = 3.0


def print_class(t: Table, rows, header) -> str:
    """The print size class of a table: the largest font at which its estimated width
    fits the page (a cell's longest unbreakable word — the whole text of an index cell,
    which does not wrap — or its header's longest word sets a column's width); the
    smallest one when nothing fits."""
    columns = [str(c) for c in t.frame.columns]
    longest = [max((len(w) for w in str(header(c)).split()), default=0) for c in columns]
    for row in rows:
        for i, (c, text, _full) in enumerate(row):
            words = [text] if c in t.index else text.split()
            longest[i] = max(longest[i], max((len(w) for w in words), default=0))
    for size, name in PRINT_SIZES:
        if sum(n * CHAR_EM * size + CELL_PAD_PT for n in longest) <= PRINT_WIDTH_PT:
            return name
    return PRINT_SIZES[-1][1]


def _env(lang: str = "en") -> jinja2.Environment:
    """The templates' environment, with Jinja2's ``i18n`` extension bound to the
    gettext translations of ``lang`` (``{% trans %}`` blocks and ``_()``)."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("reports", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"]),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(i18n.translations(lang), newstyle=True)
    return env


def column_header(column, lang: str = "en") -> str:
    """A table column's header: the frame's column name, translated when the catalogue
    has it (machine names are marked for extraction in :mod:`reports.columns`)."""
    text = str(column)
    return i18n.translations(lang).gettext(text) if text else text


def render_html(report: Report, settings: ReportSettings) -> str:
    """The whole report as an HTML string (self-contained)."""
    lang = settings.lang
    env = _env(lang)
    table_tpl = env.get_template("table.html.j2")

    def table(t: Table) -> Markup:
        source = t.full if t.full is not None else t.frame
        csv = data_uri(source.to_csv(index=False).encode("utf-8"), "text/csv")
        rows = table_rows(t, lang)
        header = lambda c: column_header(c, lang)  # noqa: E731
        return Markup(table_tpl.render(t=t, rows=rows, csv=csv, header=header,
                                       size=print_class(t, rows, header)))

    try:
        version = metadata.version("rpg-balance")
    except metadata.PackageNotFoundError:
        version = "dev"
    meta = {"version": version, "built": report.meta.get("built", "")}
    return env.get_template("report.html.j2").render(
        report=report, settings=settings, meta=meta, table=table, data_uri=data_uri,
        colors=plotting.system_colors(), lang=lang,
        trials=i18n.decimal(settings.trials, lang=lang), rules=_rules_line(settings))


def _rules_line(settings: ReportSettings) -> str:
    """The rules files of the build and their edits, for the first page ("" without)."""
    if not settings.rules:
        return ""
    from .rules_words import rules_line

    return rules_line(settings.rules)
