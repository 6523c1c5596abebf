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
        return Markup(table_tpl.render(t=t, rows=table_rows(t, lang), csv=csv,
                                       header=lambda c: column_header(c, lang)))

    try:
        version = metadata.version("rpg-balance")
    except metadata.PackageNotFoundError:
        version = "dev"
    meta = {"version": version, "built": report.meta.get("built", "")}
    return env.get_template("report.html.j2").render(
        report=report, settings=settings, meta=meta, table=table, data_uri=data_uri,
        colors=plotting.system_colors(), lang=lang,
        trials=i18n.decimal(settings.trials, lang=lang))
