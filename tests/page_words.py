"""What a designer reads on the workbench page, as lines for the report's text checker
(:mod:`report_text`): every widget's label, name and options, every pane's text and
every table's headers and cells, walked generically from the page's root, so a widget
or tab added later is read too. Tooltips (a widget's ``description``, an ``<abbr
title>``) and commands (code blocks, ``<code>``) are not visible text and are left out.

- :func:`page_lines` — the lines of a :class:`reports.workbench.app.Workbench` (or of
  any Panel object);
- :func:`page_hits` — the checker's hits on them (:func:`report_text.check`:
  identifiers in every language; English words, decimal points and spaced ``%`` in
  pt-BR).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from report_text import Hit, Line, check

__all__ = ["page_hits", "page_lines", "visible"]

_FENCE = re.compile(r"```.*?```", re.S)
_INLINE = re.compile(r"`[^`]*`")
_CODE = re.compile(r"<code>.*?</code>|<pre>.*?</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")


def visible(markup) -> str:
    """The text a reader sees in a pane's markdown or a table cell's HTML: commands
    (code blocks, inline code, ``<code>``) and tags (a tooltip's ``title``) removed."""
    text = str(markup)
    text = _FENCE.sub(" ", text)
    text = _CODE.sub(" ", text)
    text = _INLINE.sub(" ", text)
    text = _TAG.sub("", text)
    return html.unescape(text).replace("**", "").replace("#", " ")


def _walk(obj, where: str) -> Iterator[Line]:
    import pandas as pd
    import panel as pn

    def line(kind: str, value) -> Line | None:
        shown = visible(value).strip()
        return Line(where, kind, shown) if shown else None

    out: list[Line | None] = []
    if isinstance(obj, pn.widgets.Widget):
        kind = type(obj).__name__
        for attr in ("label", "name"):
            value = getattr(obj, attr, None)
            if isinstance(value, str) and not value.startswith(type(obj).__name__):
                out.append(line(f"{kind} {attr}", value))
        opts = getattr(obj, "options", None)
        if isinstance(opts, dict | list):  # a dict's keys are what the menu shows
            out += [line(f"{kind} option", k) for k in opts]
    elif isinstance(obj, pn.pane.DataFrame):
        df = obj.object
        if isinstance(df, pd.DataFrame):
            out += [line("table header", c) for c in df.columns]
            for row in df.itertuples(index=False):
                out += [line("table cell", x) for x in row]
    elif isinstance(
        obj, pn.pane.Markdown | pn.pane.Alert | pn.pane.HTML | pn.pane.Str
    ) and isinstance(obj.object, str):
        out += [line("text", part) for part in visible(obj.object).split("\n")]
    if isinstance(obj, pn.Card):
        out.append(line("card title", obj.title))
    if isinstance(obj, pn.Tabs):
        out += [line("tab title", t) for t in obj._names]
    yield from (x for x in out if x is not None)
    if isinstance(obj, pn.layout.base.ListLike | pn.layout.base.NamedListLike | pn.layout.FlexBox):
        for i, child in enumerate(obj.objects):
            name = where
            if isinstance(obj, pn.Tabs):
                name = f"tab {obj._names[i]}"
            yield from _walk(child, name)


def page_lines(page) -> list[Line]:
    """Every visible text of ``page`` (a Workbench: its ``root``; or a Panel object)."""
    root = getattr(page, "root", page)
    return list(_walk(root, "page"))


def page_hits(page, lang: str) -> list[Hit]:
    """The text checker's hits on the page's lines in a page of language ``lang``."""
    return check(page_lines(page), lang)
