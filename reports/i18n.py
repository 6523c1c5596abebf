"""Report language: gettext catalogues, locale number formatting, the language in force.

The report speaks English (``en``, the msgids themselves) or Brazilian Portuguese
(``pt-BR``). Translations live in the version-controlled gettext catalogue
``reports/locale/pt_BR/LC_MESSAGES/messages.po`` (strings extracted with
``pybabel extract -F babel.cfg``, see docs/howto/report.md). The catalogue is compiled
**at run time, in memory** (Babel's ``write_mo`` into a buffer read by
:class:`gettext.GNUTranslations`), so no compiled ``.mo`` file is committed or can go
stale; the same translations object serves the section code (:func:`_`), the Jinja2
``i18n`` extension of the templates and the matplotlib labels.

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

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "agree",
    "babel_locale",
    "check_language",
    "current",
    "decimal",
    "format_spec",
    "language",
    "localise_table",
    "ngettext",
    "percent",
    "po_path",
    "singular_count",
    "text",
    "translations",
]

#: Languages of the report (``--lang``); English is the default.
LANGUAGES = ("en", "pt-BR")
DOMAIN = "messages"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_LANG: ContextVar[str] = ContextVar("report_language", default="en")


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise InputError(
            f"--lang: {lang!r} is not a supported language; choose " + " | ".join(LANGUAGES)
        )
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


def ngettext(singular: str, plural: str, n: float) -> str:
    """``singular`` or ``plural`` translated, by the count ``n`` (a mean like 1.1 too):
    :func:`singular` decides, then the catalogue gives the form."""
    return translations(current()).ngettext(
        singular, plural, 1 if singular_count(n, current()) else 2
    )


def singular_count(n: float, lang: str | None = None) -> bool:
    """Whether ``n`` things take the singular: English only for exactly 1; Portuguese
    for 0 < ``|n|`` < 2 ("1 rodada", "1,1 rodada", "1,9 rodada"; "0 rodadas", "2 rodadas")."""
    lang = lang or current()
    if lang == "en":
        return abs(n) == 1
    return 0 < abs(n) < 2


#: Portuguese nouns the report counts, plural → singular (:func:`agree`).
_PT_NOUNS = {
    "rodadas": "rodada",
    "degraus": "degrau",
    "sessões": "sessão",
    "lutas": "luta",
    "dados": "dado",
    "sucessos": "sucesso",
    "pontos": "ponto",
    "golpes": "golpe",
    "ataques": "ataque",
    "turnos": "turno",
    "células": "célula",
    "vezes": "vez",
    "passos": "passo",
    "combatentes": "combatente",
    "lutadores": "lutador",
    "pontos percentuais": "ponto percentual",
}
_PT_COUNT = re.compile(
    r"(?<![\w.,−-])([−-]?\d+(?:,\d+)?)([ \u00a0]|&nbsp;)("
    + "|".join(sorted(map(re.escape, _PT_NOUNS), key=len, reverse=True))
    + r")\b"
)


def agree(text: str, lang: str | None = None) -> str:
    """``text`` with its counted nouns agreeing with their numbers: in Portuguese a count
    between 0 and 2 takes the singular ("1,1 rodadas" → "1,1 rodada", "1 degraus" →
    "1 degrau"; :func:`singular_count`). Sentences are made from templates with the count
    filled in, so the noun is set once the number is known. Other languages: unchanged."""
    if (lang or current()) != "pt-BR" or not text:
        return text

    def one(m: re.Match) -> str:
        n = float(m.group(1).replace("−", "-").replace(",", "."))
        noun = _PT_NOUNS[m.group(3)] if singular_count(n, "pt-BR") else m.group(3)
        return m.group(1) + m.group(2) + noun

    return _PT_COUNT.sub(one, text)


def N_(message: str) -> str:
    """Mark ``message`` for extraction; translate it later, where it is shown, with
    :func:`_`."""
    return message


# --------------------------------------------------------------------------- numbers


def percent(p: float, digits: int = 1, lang: str | None = None, fixed: bool = False) -> str:
    """A probability as a percentage for prose and tables: ``0.4567`` → ``45.7%`` (en),
    ``45,7%`` (pt-BR: decimal comma, trailing zero decimals dropped unless ``fixed``).

    The sign follows the number with no space in both languages: Babel's pt_BR percent
    pattern (``#,##0%``), the one style of the report's prose, tables and figures."""
    lang = lang or current()
    if lang == "en":
        return f"{100 * p:.{digits}f}%"
    pattern = "#,##0" + ("." + ("0" if fixed else "#") * digits if digits else "") + "%"
    return format_percent(p, pattern, locale=babel_locale(lang))


def decimal(x: float, digits: int | None = None, lang: str | None = None) -> str:
    """A number for prose with thousands separators: ``1234.5`` → ``1,234.5`` (en),
    ``1.234,5`` (pt-BR). ``digits`` fixes the decimals (``None``: as many as needed, up
    to 6)."""
    lang = lang or current()
    if lang == "en":
        return f"{x:,.{digits}f}" if digits is not None else f"{x:,}"
    pattern = (
        "#,##0.######" if digits is None else ("#,##0" + ("." + "0" * digits if digits else ""))
    )
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

_IDENTIFIER = re.compile(r"[a-z]+(?:_[a-z]+)+")
_DECIMAL_STRING = re.compile(r"[−+-]?\d+\.\d+")


class _Filler(string.Formatter):
    """Fills a translated template: numbers in the language's style (the field's format
    spec kept), :class:`analysis.text.Text` fields translated first."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value, spec):
        from analysis.text import Text

        if isinstance(value, Text):
            return format(text(value, self.lang), spec)
        if isinstance(value, str) and _DECIMAL_STRING.fullmatch(value):
            # a number made as a string ("2.34", its decimals chosen by the maker)
            return format(value.replace(".", ","), spec)
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
    too; other strings (knob, metric, weapon names) are identifiers and stay. A snake_case
    id the catalogue has as words (``heavy_archaic`` → "heavy archaic") is shown in those
    words. English (and a string missing from the catalogue) comes back as it is."""
    lang = lang or current()
    if not isinstance(value, str) or lang == "en" or not value.strip():
        return value
    from analysis.text import made

    tr = translations(lang)
    sentence = made(value)
    if sentence is not None and sentence.template != value:
        template = tr.gettext(sentence.template) if sentence.template.strip() else sentence.template
        return _contracted(agree(_Filler(lang).vformat(template, (), sentence.fields), lang), lang)
    found = tr.gettext(value)
    if found == value and _IDENTIFIER.fullmatch(value):
        # an id of the registry (a weapon, tactic, armour, archetype: "heavy_archaic")
        # read as its words, the catalogue's entry for "heavy archaic"
        words = value.replace("_", " ")
        found = tr.gettext(words)
        return value if found == words else found
    return found


#: pt-BR: the preposition "a" before an article, as a filled template can put them ("o
#: acréscimo a {trait}" with "a DES"), contracted as Portuguese writes it ("à DES")
_CRASE = re.compile(r"\b([aA]) (as|os|a|o) (?=\S)")
_CRASE_WORDS = {"a": "à", "o": "ao", "as": "às", "os": "aos"}


def _contracted(sentence: str, lang: str) -> str:
    """``sentence`` with "a a" → "à", "a o" → "ao" (plural too) in Portuguese."""
    if not lang.startswith("pt"):
        return sentence

    def one(m: re.Match) -> str:
        word = _CRASE_WORDS[m.group(2)]
        return (word if m.group(1) == "a" else word.capitalize()) + " "

    return _CRASE.sub(one, sentence)


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
        return format_spec(float(value), "g", lang)  # type: ignore[arg-type]  # a real
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
