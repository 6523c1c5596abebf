"""Build a report: sections → HTML (+ PDF) in memory, then atomic writes.

Nothing is written until every section, the HTML and the PDF have been produced, and
each file is moved into place with :func:`analysis.output.atomic_path`, so a failed or
interrupted build leaves the previous report untouched and no temporary files behind.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from analysis.output import atomic_path
from engines.errors import InputError

from . import sections as S
from .i18n import _, language
from .render_html import render_html
from .rules_words import carrying, with_rules_options
from .settings import ReportSettings
from .structure import Reading, Report, Section

__all__ = ["BuildResult", "build_report", "write_report"]


@dataclass
class BuildResult:
    html: Path
    pdf: Path | None
    seconds: float
    seconds_pdf: float
    report: Report


def build_report(settings: ReportSettings, section_fns=None) -> Report:
    """Run every section function (progress bar on stderr) and assemble the report, in
    the language of ``settings.lang``, under the rules of ``settings.rules``."""
    with language(settings.lang), carrying(settings.rules):
        return _build_report(settings, section_fns)


def _build_report(settings: ReportSettings, section_fns=None) -> Report:
    from tqdm.auto import tqdm

    fns = list(S.SECTIONS if section_fns is None else section_fns)
    start = time.perf_counter()
    out: list[Section] = []
    with tqdm(
        total=len(fns) + 1,
        desc="report",
        unit="section",
        file=sys.stderr,
        disable=None if settings.progress else True,
        leave=False,
    ) as bar:
        for fn in fns:
            bar.set_postfix_str(fn.__name__.removeprefix("section_"))
            section = fn(settings)
            if section is not None:
                out.append(_under_rules(section, settings.rule_files))
            bar.update()
        bar.set_postfix_str("provenance")
        out.append(S.section_provenance(settings, time.perf_counter() - start))
        bar.update()
    built = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return Report(_(settings.title), out, {"built": built})


def _under_rules(section: Section, files) -> Section:
    """``section`` with the commands of its small print under the build's rules files
    (:func:`reports.rules_words.with_rules_options`)."""
    if not files:
        return section
    section.reading = [
        Reading(r, with_rules_options(r.small, files)) if isinstance(r, Reading) and r.small else r
        for r in section.reading
    ]
    return section


def write_report(settings: ReportSettings, section_fns=None) -> BuildResult:
    """Build and write ``report.html`` (and ``report.pdf`` unless ``settings.pdf`` is off)."""
    out = Path(settings.out)
    if out.exists() and not out.is_dir():
        raise InputError(f"-o/--output: {str(out)!r} exists and is not a folder")
    start = time.perf_counter()
    report = build_report(settings, section_fns)
    with language(settings.lang):
        html = render_html(report, settings)
    t_pdf = time.perf_counter()
    pdf = None
    if settings.pdf:
        from .render_pdf import render_pdf

        if settings.progress:
            print("rendering PDF …", file=sys.stderr, flush=True)
        pdf = render_pdf(html)
    t_pdf = time.perf_counter() - t_pdf
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(settings.html_path) as tmp:
        tmp.write_text(html, encoding="utf-8")
        tmp.chmod(0o644)
    if pdf is not None:
        with atomic_path(settings.pdf_path) as tmp:
            tmp.write_bytes(pdf)
            tmp.chmod(0o644)
    return BuildResult(
        settings.html_path,
        settings.pdf_path if pdf is not None else None,
        time.perf_counter() - start,
        t_pdf,
        report,
    )
