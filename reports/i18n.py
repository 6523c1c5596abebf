"""Report language: gettext catalogues, locale number formatting, the language in force.

The report speaks English (``en``, the msgids themselves) or Brazilian Portuguese
(``pt-BR``). Translations live in the version-controlled gettext catalogue
``reports/locale/pt_BR/LC_MESSAGES/messages.po`` (strings extracted with
``pybabel extract -F babel.cfg``, see README). The catalogue is compiled **at run time, in
memory** (Babel's ``write_mo`` into a buffer read by :class:`gettext.GNUTranslations`), so
no compiled ``.mo`` file is committed or can go stale; the same translations object serves
the section code (:func:`_`), the Jinja2 ``i18n`` extension of the templates and the
matplotlib labels.

The language in force is set for one build with :func:`language` (a context variable,
scoped to the ``with`` block, so concurrent builds do not see each other's language).
Numbers in prose and tables are formatted with Babel (:func:`percent`, :func:`decimal`,
:func:`format_spec`); CSV/Parquet downloads keep the machine-readable frames.
"""

from __future__ import annotations

import contextlib
import gettext
import io
import numbers
import re
import string
from collections.abc import Iterator
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from babel.numbers import format_decimal, format_percent

from engines.errors import InputError

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE_DIR", "N_", "babel_locale", "check_language", "current",
           "decimal", "format_spec", "language", "localise_table", "ngettext", "percent",
           "po_path", "text", "translations"]

#: Languages of the report (``--lang``); English is the default.
LANGUAGES = ("en", "pt-BR")
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_LANG: ContextVar[str] = ContextVar("report_language", default="en")


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise InputError(f"--lang: {lang!r} is not a supported language; choose "
                         + " | ".join(LANGUAGES))
    return lang


def babel_locale(lang: str) -> str:
    """Babel/gettext locale name of a report language (``pt-BR`` → ``pt_BR``)."""
    return check_language(lang).replace("-", "_")


def po_path(lang: str) -> Path:
    return LOCALE_DIR / babel_locale(lang) / "LC_MESSAGES" / f"{DOMAIN}.po"


@lru_cache(maxsize=4)
def translations(lang: str) -> gettext.NullTranslations:
    """The gettext translations of ``lang`` (English: the msgids, no catalogue)."""
    if check_language(lang) == "en":
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path(lang).open("rb") as fh:
        catalog = read_po(fh, locale=babel_locale(lang), domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def current() -> str:
    """The language in force (``en`` outside :func:`language`)."""
    return _LANG.get()


@contextlib.contextmanager
def language(lang: str) -> Iterator[gettext.NullTranslations]:
    """Make ``lang`` the language in force inside the block."""
    token = _LANG.set(check_language(lang))
    try:
        yield translations(lang)
    finally:
        _LANG.reset(token)


def _(message: str) -> str:
    """``message`` translated into the language in force."""
    return translations(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return translations(current()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark ``message`` for extraction; translate it later, where it is shown, with
    :func:`_`."""
    return message


# --------------------------------------------------------------------------- numbers

def percent(p: float, digits: int = 1, lang: str | None = None, fixed: bool = False) -> str:
    """A probability as a percentage for prose: ``0.4567`` → ``45.7%`` (en),
    ``45,7 %`` (pt-BR: decimal comma, a space before %, trailing zero decimals dropped)."""
    lang = lang or current()
    if lang == "en":
        return f"{100 * p:.{digits}f}%"
    pattern = "#,##0" + ("." + ("0" if fixed else "#") * digits if digits else "") + "\u00a0%"
    return format_percent(p, pattern, locale=babel_locale(lang)).replace("\u00a0", " ")


def decimal(x: float, digits: int | None = None, lang: str | None = None) -> str:
    """A number for prose with thousands separators: ``1234.5`` → ``1,234.5`` (en),
    ``1.234,5`` (pt-BR). ``digits`` fixes the decimals (``None``: as many as needed, up
    to 6)."""
    lang = lang or current()
    if lang == "en":
        return f"{x:,.{digits}f}" if digits is not None else f"{x:,}"
    pattern = "#,##0.######" if digits is None else (
        "#,##0" + ("." + "0" * digits if digits else ""))
    return format_decimal(x, pattern, locale=babel_locale(lang))


_SPEC = re.compile(r"^(?P<comma>,)?(?:\.(?P<digits>\d+))?(?P<kind>[fd%])?$")


def format_spec(value, spec: str, lang: str | None = None) -> str:
    """``format(value, spec)`` in the language's number style (tables). English is
    Python's own ``format``; pt-BR maps ``.Nf`` / ``.N%`` / ``d`` / ``,`` specs to
    Babel patterns (other specs: Python's format with the separators swapped)."""
    lang = lang or current()
    if lang == "en":
        return format(value, spec)
    m = _SPEC.match(spec)
    if m is None:
        text = format(value, spec)
        return text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    digits = int(m["digits"]) if m["digits"] is not None else None
    if m["kind"] == "%":
        return percent(value, digits if digits is not None else 0, lang, fixed=True)
    if m["kind"] == "d" or (digits is None and isinstance(value, int)):
        return format_decimal(int(value), "#,##0", locale=babel_locale(lang))
    return decimal(value, digits if digits is not None else 6, lang)


# --------------------------------------------------------------------------- text from outside

class _Filler(string.Formatter):
    """Fills a translated template: numbers in the language's style (the field's format
    spec kept), :class:`analysis.text.Text` fields translated first."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value, spec):
        from analysis.text import Text

        if isinstance(value, Text):
            return format(text(value, self.lang), spec)
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            if isinstance(value, numbers.Integral):
                return format_spec(int(value), spec or "d", self.lang)
            return format_spec(float(value), spec or "g", self.lang)
        return super().format_field(value, spec)


def text(value, lang: str | None = None) -> str:
    """A sentence made outside ``reports/`` in the language in force: an
    :class:`analysis.text.Text` is its template translated, then filled with its values in
    the language's number style; any other string (a variant's doc, a guardrail's reason)
    is looked up as a msgid. Fields that are :class:`~analysis.text.Text` are translated
    too; other strings (knob, metric, weapon names) are identifiers and stay. English (and
    a string missing from the catalogue) comes back as it is."""
    lang = lang or current()
    if not isinstance(value, str) or lang == "en" or not value.strip():
        return value
    from analysis.text import made

    tr = translations(lang)
    sentence = made(value)
    if sentence is not None:
        template = tr.gettext(sentence.template) if sentence.template.strip() \
            else sentence.template
        return _Filler(lang).vformat(template, (), sentence.fields)
    return tr.gettext(value)


def _cell(value, lang: str):
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        tr = translations(lang)
        return tr.gettext("yes") if value else tr.gettext("no")
    if isinstance(value, numbers.Number):
        if isinstance(value, numbers.Integral):
            return format_spec(int(value), "d", lang)
        return format_spec(float(value), "g", lang)
    return value


def localise_table(frame, lang: str, fmt: str, *, prose=(), words=()):
    """A command's table in ``lang`` (``rpg-balance audit --lang``, ``campaign --lang``):

    - in every format, the ``prose`` columns (sentences such as an audit's cure) are
      shown in ``lang`` (:func:`text`);
    - in markdown, the human format, the headers are translated from the catalogue
      (:func:`reports.render_html.column_header`'s msgids), the ``words`` columns (status,
      method …) too, and numbers take the language's style;
    - csv, json and parquet keep machine names, machine words and plain numbers.

    English returns ``frame`` untouched."""
    if check_language(lang) == "en" or frame is None:
        return frame
    out = frame.copy()
    for col in prose:
        if col in out.columns:
            out[col] = [text(x, lang) if isinstance(x, str) else x for x in out[col]]
    if fmt != "markdown":
        return out
    for col in words:
        if col in out.columns:
            out[col] = [text(x, lang) if isinstance(x, str) else x for x in out[col]]
    for col in out.columns:
        out[col] = [_cell(x, lang) for x in out[col]]
    tr = translations(lang)
    out.columns = [tr.gettext(str(c)) if str(c) else str(c) for c in out.columns]
    return out
