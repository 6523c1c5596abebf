"""What a reader finds in the built report that is not words: code identifiers in the
prose and tables, English left in the pt-BR report (figure labels included), and numbers
out of the language's style.

The report is read as a designer reads it: the PDF's text (``pdftotext -bbox-layout``,
page by page, each line under the section heading above it) and the texts the figures
draw (the figures are PNGs, so their labels are recorded as :func:`reports.plotting.to_png`
prints them, :func:`reports.plotting.recording_texts`). Four kinds of hit:

- ``identifier`` (every language): a snake_case token (``rounds_mean``, ``p_side0``,
  ``heavy_archaic``), a dotted knob id (``both.CON``, ``variant.again``), an id of the
  registry's variants, archetypes, weapons, tactics and armour that is not a plain word
  (``light_melee``, ``attack_attack``) and a module path (``analysis/checks/curves.py``,
  ``*.py``). System ids (they are the systems' names) and rule ids (``A1``, ``B-g10``,
  ``DX4``: no underscore, no dot) are allowed, and so are the files a designer opens by
  name (a data file ``*.toml``, the rules digest ``*.md``, the ``tasks.py`` of ``python3
  tasks.py report``); so are the commands in small print, which
  are meant to be typed (a monospaced line that starts with ``rpg-balance``, and its
  continuation lines);
- ``english`` (pt-BR): a word of the English catalogue (the msgids) or of the registry's
  ids that the Portuguese catalogue never uses as Portuguese (:data:`SHARED` lists the
  words both languages write alike);
- ``decimal`` (pt-BR): a decimal point (``2.34 rodadas``) where the language writes a
  comma;
- ``percent`` (pt-BR): a ``%`` with a space before it (``3 %``): Babel's pt_BR pattern
  (``#,##0%``) writes none, the one style of :func:`reports.i18n.percent`.

Command line::

    python -m tests.report_text REPORT.pdf [--lang pt-BR]
    python -m tests.report_text --build OUT [--lang pt-BR] [--systems ID,ID] [--trials N]

The first reads the PDF's text only; the second builds the report into ``OUT`` while
recording its figures' texts and checks both. Each hit is printed with its page and
section (or its figure and section). Exit code 1 when there is a hit.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import html
import re
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "SHARED",
    "Hit",
    "Line",
    "build",
    "check",
    "code_hits",
    "english_hits",
    "english_words",
    "figure_lines",
    "main",
    "number_hits",
    "pdf_lines",
    "registry_ids",
]

ROOT = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------- the text


@dataclass(frozen=True)
class Line:
    """One line of the report as a reader sees it: ``where`` is ``p. 3`` (PDF) or
    ``figure 2`` (a figure's texts); ``section`` the heading it sits under."""

    where: str
    section: str
    text: str


@dataclass(frozen=True)
class Hit:
    kind: str
    word: str
    line: Line

    def __str__(self) -> str:
        context = self.line.text if len(self.line.text) <= 110 else self.line.text[:107] + "…"
        return (
            f"{self.kind:10} {self.word!r:28} {self.line.where} · {self.line.section} · {context}"
        )


_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
    r"([^<]*)</word>"
)
_HEADING = re.compile(r"^\d+\.\s+\S")
_FOOTER = re.compile(r"^(page|página)\s+\d+\s+(of|de)\s+\d+$")
#: how far a monospaced word's width per character, over its height, may stray
_MONO_TOLERANCE = 0.008


def _bbox_pages(pdf: Path) -> list[list[list[tuple[str, float, float]]]]:
    """Pages → lines → words ``(text, height, width per character over height)``."""
    out = subprocess.run(
        ["pdftotext", "-bbox-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    pages = []
    for page in out.split("<page ")[1:]:
        lines = []
        for line in re.findall(r"<line[^>]*>(.*?)</line>", page, flags=re.S):
            words = []
            for x0, y0, x1, y1, w in _WORD.findall(line):
                w = html.unescape(w)
                h = float(y1) - float(y0)
                words.append((w, h, (float(x1) - float(x0)) / max(len(w), 1) / max(h, 1e-6)))
            if words:
                lines.append(words)
        pages.append(lines)
    return pages


def _mono_ratio(pages) -> float | None:
    """The monospaced font's width per character over height (the small-print commands
    are set in it): the median over the words ``rpg-balance`` that start a line."""
    ratios = sorted(line[0][2] for page in pages for line in page if line[0][0] == "rpg-balance")
    return ratios[len(ratios) // 2] if ratios else None


def _is_mono(word, mono: float | None) -> bool:
    return mono is not None and abs(word[2] - mono) <= _MONO_TOLERANCE


def _without_commands(words, mono, in_command: bool) -> tuple[list[str], bool]:
    """The words of a line a reader reads as text: a monospaced run that starts with
    ``rpg-balance`` (or continues the command of the line before) is a command."""
    kept: list[str] = []
    command = in_command and all(_is_mono(w, mono) for w in words)
    if command:
        return kept, True
    i = 0
    while i < len(words):
        w = words[i]
        if w[0] in ("rpg-balance", "rpg-", "python3") and _is_mono(w, mono):
            while i < len(words) and _is_mono(words[i], mono):
                i += 1
            command = i == len(words)
            continue
        kept.append(w[0])
        i += 1
    return kept, command


def pdf_lines(pdf: Path | str) -> list[Line]:
    """The report's PDF as lines of text a reader reads: the small-print commands, the
    page footers and the figures (images) left out; a word hyphenated across lines joined
    again."""
    pages = _bbox_pages(Path(pdf))
    mono = _mono_ratio(pages)
    heights = sorted(w[1] for page in pages for line in page for w in line)
    body = heights[len(heights) // 2] if heights else 0.0
    section, out = "cover", []
    for number, page in enumerate(pages, 1):
        in_command = False
        carry = ""
        for words in page:
            text = " ".join(w[0] for w in words)
            if _FOOTER.match(text):
                continue
            if _HEADING.match(text) and words[0][1] > 1.4 * body:
                section = text
            kept, in_command = _without_commands(words, mono, in_command)
            if carry and kept:
                kept[0] = carry + kept[0]
                carry = ""
            if kept and kept[-1].endswith(("\u2010", "\u00ad")):
                carry = kept.pop()[:-1]
            if kept:
                out.append(Line(f"p. {number}", section, " ".join(kept)))
    return out


def figure_lines(figures: dict[str, list[list[str]]]) -> list[Line]:
    """The recorded figure texts (:func:`build`) as lines: one per text."""
    return [
        Line(f"figure {i}", section, text)
        for section, figs in figures.items()
        for i, texts in enumerate(figs, 1)
        for text in texts
    ]


# --------------------------------------------------------------------------- identifiers


@functools.cache
def registry_ids() -> dict[str, frozenset[str]]:
    """The ids a report must show in words, by kind (``system`` ids are names and stay):
    archetypes, weapons, armour, tactics and variants of every installed system."""
    import dataclasses

    from analysis.combat import archetypes as A
    from engines.system import registry

    ids: dict[str, set[str]] = {
        k: set() for k in ("system", "archetype", "weapon", "armour", "tactic", "variant")
    }
    for sid, spec in registry().items():
        ids["system"].add(sid)
        if spec.combat is not None:
            for kind, get in (
                ("archetype", A.names),
                ("weapon", A.weapons),
                ("armour", A.armours),
                ("tactic", A.tactics),
            ):
                # a plug-in without the hook names none
                with contextlib.suppress(Exception):
                    ids[kind].update(str(x) for x in get(sid) if isinstance(x, str))
        classes = []
        with contextlib.suppress(Exception):
            classes.append(getattr(spec.combat.engine(), "Variants", None))
        classes.append(getattr(spec.checks, "variants", None))
        for cls in classes:
            if cls is not None and dataclasses.is_dataclass(cls):
                ids["variant"].update(f.name for f in dataclasses.fields(cls))
    return {k: frozenset(v) for k, v in ids.items()}


_SNAKE = re.compile(r"(?<![\w/.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")
_DOTTED = re.compile(r"(?<![\w/.])[a-z][a-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*(?![\w(])")
_PATH = re.compile(
    r"(?<![\w])(?:(?:analysis|engines|reports|cli|tests|docs|scenarios|examples"
    r"|notebooks|benchmarks)/[\w./-]*|[\w/.-]+\.(?:py|toml))(?![\w])"
)
#: files a designer opens or edits by name (the data files: guardrails, ladders, the
#: cross-combat file, the rules digest) and the entry script typed in a command
#: (``python3 tasks.py report``): paths, but not code
_DESIGNER_FILE = re.compile(r"(?:^|/)[\w.-]+\.(?:toml|md)$|^tasks\.py$")
#: dotted words that are not knob ids: abbreviations, file kinds a reader downloads
_NOT_DOTTED = {"e.g", "i.e", "etc", "vs", "p.p"}
_FILE_KINDS = {"pdf", "html", "csv", "parquet", "json", "png", "md", "txt"}


def code_hits(lines: Iterable[Line]) -> list[Hit]:
    """Code identifiers in ``lines`` (see the module's docstring)."""
    ids = registry_ids()
    systems = ids["system"]
    coded = {
        i
        for kind, v in ids.items()
        if kind != "system"
        for i in v
        if not re.fullmatch(r"[A-Za-z]+", i)
    }
    hits = []
    for line in lines:
        seen = set()
        for m in _PATH.finditer(line.text):
            seen.update(range(m.start(), m.end()))
            if not _DESIGNER_FILE.search(m.group()):
                hits.append(Hit("identifier", m.group(), line))
        for rx in (_SNAKE, _DOTTED):
            for m in rx.finditer(line.text):
                word = m.group()
                if m.start() in seen or word in systems:
                    continue
                if rx is _DOTTED and (
                    word in _NOT_DOTTED or word.rsplit(".", 1)[1].lower() in _FILE_KINDS
                ):
                    continue
                seen.update(range(m.start(), m.end()))
                hits.append(Hit("identifier", word, line))
        for word in re.findall(r"[\w.-]+", line.text):
            word = word.strip(".-")
            if word in coded and "_" not in word and "." not in word:
                hits.append(Hit("identifier", word, line))
    return hits


# --------------------------------------------------------------------------- English words

#: Words both catalogues write alike: in a Portuguese sentence they are Portuguese (or a
#: name, a unit, an abbreviation every language keeps).
SHARED = frozenset(
    str.split("""
a as ao com da das de do dos e em na nas no nos o os ou para por se um uma
total normal final real sigma monte carlo utc pdf html csv parquet json cli rpg balance
vigor mc se z min max p d d4 d6 d8 d10 d12 d20 d100 pbta regular
markov surpreso base natural extra gradual compare link bit threads software item face
drama superficial zero
""")
)
#: Names a Portuguese sentence keeps: the games and documents the rules cite.
NAMES = frozenset(
    str.split("""
World Darkness Modern SRD FoundryVTT CoC Call Cthulhu Storyteller Chronicles Apocalypse
Fortitude Athletics Encontrão Stamina Composure
""")
)


def _catalogue() -> list[tuple[str, str]]:
    from babel.messages.pofile import read_po

    with (ROOT / "reports/locale/pt_BR/LC_MESSAGES/messages.po").open("rb") as fh:
        catalog = read_po(fh)
    pairs = []
    for msg in catalog:
        if not msg.id:
            continue
        ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
        strs = msg.string if isinstance(msg.string, tuple) else (msg.string,)
        pairs.extend((i, s or "") for i, s in zip(ids * len(strs), strs, strict=False))
        if len(ids) > len(strs):
            pairs.extend((i, "") for i in ids[len(strs) :])
    return pairs


_LETTERS = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _words(text: str) -> Iterator[str]:
    text = re.sub(r"\{[^}]*\}|%\(\w+\)[sd]|<[^>]+>", " ", text)  # placeholders, markup
    yield from _LETTERS.findall(text)


@functools.cache
def english_words() -> frozenset[str]:
    """Words (lower case, 3 letters or more) that are English in the report: the words
    of the catalogue's msgids and of the registry's ids (``light_melee`` → light, melee),
    less the words a Portuguese translation also writes as Portuguese (those its msgid does
    not hold: "total" in "total de …") and :data:`SHARED`."""
    pairs = _catalogue()
    english: set[str] = set()
    for msgid, _ in pairs:
        english.update(w.lower() for w in _words(msgid))
    for kind, ids in registry_ids().items():
        if kind != "system":
            for i in ids:
                english.update(w.lower() for w in re.split(r"[_\W\d]+", i) if w)
    portuguese: set[str] = set()
    for msgid, msgstr in pairs:
        source = {w.lower() for w in _words(msgid)}
        portuguese.update(w.lower() for w in _words(msgstr) if w.lower() not in source)
    return frozenset(w for w in english - portuguese - SHARED if len(w) >= 3)


#: the entry script typed in a command a section names (``python3 tasks.py report``)
_TASKS = re.compile(r"python3 tasks\.py \w+")


def english_hits(lines: Iterable[Line]) -> list[Hit]:
    """English words in the lines of the pt-BR report (ALL-CAPS abbreviations, system
    ids and identifiers — :func:`code_hits` reports those — left out)."""
    english = english_words()
    systems = registry_ids()["system"]
    hits = []
    for line in lines:
        text = _SNAKE.sub(" ", _DOTTED.sub(" ", _PATH.sub(" ", _TASKS.sub(" ", line.text))))
        for word in _words(text):
            if word.isupper() or word in systems or word in NAMES:
                continue
            if word.lower() in english:
                hits.append(Hit("english", word, line))
    return hits


_POINT = re.compile(r"(?<![\w.,])\d+\.\d+(?![\d.,]*\d)")
_PERCENT = re.compile(r"\d[ \u00a0\u202f]%")


#: the section that lists software versions, whose points are not decimal marks
_VERSIONS = re.compile(r"\b(?:Provenance|Procedência)\b")


def number_hits(lines: Iterable[Line]) -> list[Hit]:
    """Numbers out of pt-BR's style: a decimal point (``2.34``; a thousands point
    ``200.000`` — three digits after it — is Portuguese), a space before ``%``."""
    hits = []
    for line in lines:
        text = _PATH.sub(" ", line.text)
        if _VERSIONS.search(line.section):  # software versions (weasyprint 70.0)
            text = _POINT.sub(" ", text)
        for m in _POINT.finditer(text):
            if not re.fullmatch(r"\d{1,3}(\.\d{3})+", m.group()):
                hits.append(Hit("decimal", m.group(), line))
        for m in _PERCENT.finditer(text):
            hits.append(Hit("percent", m.group(), line))
    return hits


def check(lines: Iterable[Line], lang: str) -> list[Hit]:
    """Every hit of ``lines`` in a report of language ``lang``."""
    lines = list(lines)
    hits = code_hits(lines)
    if lang != "en":
        hits += english_hits(lines) + number_hits(lines)
    return hits


# --------------------------------------------------------------------------- a build


def build(settings) -> tuple[Path | None, dict[str, list[list[str]]]]:
    """Write the report of ``settings`` and record its figures' texts, by section
    function: ``(pdf path or None, {section: [[text, …] per figure]})``."""
    from reports import sections as S
    from reports.build import write_report
    from reports.plotting import recording_texts

    figures: dict[str, list[list[str]]] = {}

    def recorded(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with recording_texts() as texts:
                section = fn(*args, **kwargs)
            name = getattr(section, "title", None) or fn.__name__
            if texts:
                figures[str(name)] = texts
            return section

        return run

    result = write_report(settings, [recorded(fn) for fn in S.SECTIONS])
    return result.pdf, figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.report_text", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("pdf", nargs="?", help="a built report.pdf")
    parser.add_argument("--lang", default="en", help="the report's language (en | pt-BR)")
    parser.add_argument(
        "--build",
        metavar="OUT",
        help="build the report into OUT first (its figures' texts are checked too)",
    )
    parser.add_argument("--systems", help="with --build: the systems, comma-separated")
    parser.add_argument(
        "--trials",
        type=int,
        help="with --build: Monte Carlo trials per "
        "roll setting (the report's default if not given)",
    )
    parser.add_argument(
        "--combat-trials",
        type=int,
        help="with --build: fights per group fight (the report's default if not given)",
    )
    args = parser.parse_args(argv)
    if (args.pdf is None) == (args.build is None):
        print("give a report.pdf or --build OUT (one of them)", file=sys.stderr)
        return 2
    lines: list[Line] = []
    if args.build:
        from reports.settings import ReportSettings

        kw = {"systems": tuple(args.systems.split(","))} if args.systems else {}
        kw |= {
            k: v for k, v in (("trials", args.trials), ("combat_trials", args.combat_trials)) if v
        }
        pdf, figures = build(
            ReportSettings(out=Path(args.build), lang=args.lang, progress=False, **kw)
        )
        lines += figure_lines(figures)
    else:
        pdf = Path(args.pdf)
        if not pdf.is_file():
            print(f"{pdf}: no such file", file=sys.stderr)
            return 2
    lines = pdf_lines(pdf) + lines
    hits = check(lines, args.lang)
    for hit in hits:
        print(hit)
    print(f"{len(hits)} hit(s)", file=sys.stderr)
    return 1 if hits else 0


if __name__ == "__main__":
    raise SystemExit(main())
