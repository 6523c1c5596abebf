"""Render a :class:`~reports.structure.Report` as one self-contained HTML file.

Figures are embedded as base64 PNG ``data:`` URIs, CSS is inline, each table's full grid
is attached as an embedded CSV: the file opens offline and references no external URL.
"""

from __future__ import annotations

import base64
import dataclasses
import re
from importlib import metadata

import jinja2
import numpy as np
from markupsafe import Markup, escape

from . import i18n, labels, plotting
from .i18n import N_
from .settings import ReportSettings
from .structure import Report, Table

__all__ = [
    "CELL_PAD_PT",
    "CHAR_EM",
    "PRINTED_NOTE",
    "PRINT_SIZES",
    "PRINT_WIDTH_PT",
    "column_header",
    "data_uri",
    "print_class",
    "printed",
    "prose",
    "render_html",
    "table_rows",
]


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


def table_rows(t: Table, lang: str = "en") -> list[list[tuple[str, str, str | None]]]:
    """Rows of ``(column, shown text, full-precision text or None)`` for a table; the
    shown text in ``lang``'s number style (probabilities as percentages, identifiers in
    words: :func:`reports.labels.cell_words`), the full-precision text machine-readable."""
    rows = []
    columns = [str(c) for c in t.frame.columns]
    for values in t.frame.itertuples(index=False, name=None):
        row = []
        for c, v in zip(columns, values, strict=True):
            if isinstance(v, np.generic):
                v = v.item()
            full = repr(float(v)) if isinstance(v, float) else None
            text = t.fmt(c, v, lang)
            if isinstance(v, str) and c != "system":
                text = labels.cell_words(text, lang)
            row.append((c, text, full))
        rows.append(row)
    return rows


#: the sentence under a table whose printed view is compact
PRINTED_NOTE = N_(
    "The printed page shows {rows} of the {all_rows} rows and {columns} of the "
    "{all_columns} columns; the HTML report and the CSV download hold the full "
    "table."
)


def printed(t: Table) -> Table | None:
    """The table's printed view (:meth:`~reports.structure.Table.compact_view`) as a
    table of its own, shown as the full one is (same percentage columns); ``None`` when
    the page prints the table whole."""
    view = t.compact_view()
    if view is None:
        return None
    return dataclasses.replace(
        t, id=f"{t.id}-print", frame=view, compact=False, percent=tuple(t.percent_columns)
    )


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
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("reports", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.install_gettext_translations(  # type: ignore[attr-defined]  # jinja2.ext.i18n's
        i18n.translations(lang), newstyle=True
    )
    env.filters["prose"] = lambda text, html=False: prose(text, html, lang)
    return env


_TICKS = re.compile(r"`([^`\n]+)`")


def prose(text, html: bool = False, lang: str | None = None) -> Markup:
    """A sentence for the page: escaped (unless ``html``: a paragraph built as HTML),
    a markdown code span (`` `rpg-balance audit` ``) set as code rather than shown with
    its backticks, and outside code spans and commands the identifiers of gear, tactics
    and fighters in words (:func:`reports.labels.cell_words`; not in ``html``)."""
    if html:
        return Markup(_TICKS.sub(r"<code>\1</code>", str(Markup(text))))
    parts = _TICKS.split(str(text))  # even: prose, odd: the code spans' text
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{escape(part)}</code>")
        elif "rpg-balance" in part or " --" in part:
            out.append(str(escape(part)))  # a command written out: as it is
        else:
            out.append(str(escape(labels.cell_words(part, lang))))
    return Markup("".join(out))


def column_header(column, lang: str = "en") -> str:
    """A table column's header: the frame's column name in words
    (:func:`reports.labels.header`; machine names are marked for extraction in
    :mod:`reports.labels`)."""
    return labels.header(column, lang)


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
        small = printed(t)
        if small is None:
            return Markup(
                table_tpl.render(
                    t=t,
                    rows=rows,
                    csv=csv,
                    header=header,
                    size=print_class(t, rows, header),
                    small=None,
                )
            )
        small_rows = table_rows(small, lang)
        note = (
            i18n.translations(lang)
            .gettext(PRINTED_NOTE)
            .format(
                rows=len(small.frame),
                all_rows=len(t.frame),
                columns=len(small.frame.columns) - len(t.index),
                all_columns=len(t.frame.columns) - len(t.index),
            )
        )
        return Markup(
            table_tpl.render(
                t=t,
                rows=rows,
                csv=csv,
                header=header,
                size="",
                small=small,
                small_rows=small_rows,
                note=note,
                small_size=print_class(small, small_rows, header),
            )
        )

    try:
        version = metadata.version("rpg-balance")
    except metadata.PackageNotFoundError:
        version = "dev"
    meta = {"version": version, "built": report.meta.get("built", "")}
    page = env.get_template("report.html.j2").render(
        report=report,
        settings=settings,
        meta=meta,
        table=table,
        data_uri=data_uri,
        colors=plotting.system_colors(),
        lang=lang,
        trials=i18n.decimal(settings.trials, lang=lang),
        rules=_rules_line(settings),
    )
    return i18n.agree(page, lang)  # "1,1 rodada": counted nouns agree once filled in


def _rules_line(settings: ReportSettings) -> str:
    """The rules files of the build and their edits, for the first page ("" without)."""
    if not settings.rules:
        return ""
    from .rules_words import rules_line

    return rules_line(settings.rules)
