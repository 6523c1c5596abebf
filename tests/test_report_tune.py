"""The report's Tune page (``rpg-balance report --guardrails FILE`` with a ``[tune]``
table): the reading, front and command are ``rpg-balance tune``'s, the Key findings audit
the same file, and the page is absent for a file without ``[tune]``."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from reports.i18n import language
from reports.sections.key_findings import section_key_findings
from reports.sections.tune import section_tune
from reports.settings import ReportSettings
from reports.structure import Figure, Reading, Table

ROOT = Path(__file__).resolve().parent.parent
TUNE = ROOT / "scenarios" / "tune.toml"


@pytest.fixture(scope="module")
def settings():
    return ReportSettings(pdf=False, progress=False, guardrails=TUNE)


@pytest.fixture(scope="module")
def section(settings):
    return section_tune(settings)


def test_absent_without_a_tune_table():
    assert section_tune(ReportSettings(pdf=False, progress=False)) is None
    shipped = ROOT / "analysis" / "data" / "guardrails.toml"
    assert section_tune(ReportSettings(pdf=False, progress=False, guardrails=shipped)) is None


@pytest.mark.slow
def test_reading_and_front_are_the_commands(section, capsys):
    """The sentence is the one ``rpg-balance tune`` prints; its small-print command, run,
    passes every guardrail; the page's front is the command's table."""
    said = next(r for r in section.reading if isinstance(r, Reading) and r.small)
    capsys.readouterr()
    assert main(["tune", str(TUNE), "--format", "csv"]) == 0
    out = capsys.readouterr()
    cli_front = pd.read_csv(io.StringIO(out.out))
    assert str(said) in out.err
    assert said.startswith("3 changes make all 15 guardrails of tune.toml pass")
    words = shlex.split(said.small)
    assert words[:2] == ["rpg-balance", "audit"]
    assert main([*words[1:], "--format", "csv", "--columns", "guardrail,status"]) == 0
    audited = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(audited) == 15
    assert (audited["status"] == "pass").all()
    table = next(b for b in section.blocks if isinstance(b, Table))
    view = table.frame.set_index("knob")  # one column per front candidate
    assert list(view.columns) == [f"candidate {i + 1}" for i in range(len(cli_front))]
    knobs = list(view.index[:5])
    assert knobs == [c for c in cli_front.columns if ":" in c and " " not in c]
    for i, col in enumerate(view.columns):
        for k in knobs:
            assert view.loc[k, col] == str(cli_front[k].iloc[i]).lower()
        assert view.loc["knobs changed", col] == str(cli_front["changes"].iloc[i])
    assert list(table.full["reproduce"]) == list(cli_front["reproduce"])
    assert any(isinstance(b, Figure) and b.data[:4] == b"\x89PNG" for b in section.blocks)


@pytest.mark.slow
def test_key_findings_audit_the_same_file(settings):
    sec = section_key_findings(settings)
    counts = next(r for r in sec.reading if "balance guardrails of" in str(r))
    assert str(counts).startswith(f"12 of 15 balance guardrails of {TUNE} pass; failed: 3")
    assert counts.small.startswith(f"rpg-balance audit {TUNE} --columns")


@pytest.mark.slow
def test_in_pt_br(settings):
    with language("pt-BR"):
        sec = section_tune(settings)
    assert sec.title == "Ajuste: todos os limites de balanceamento de uma vez"
    assert str(sec.reading[1]).startswith("3 mudanças fazem passar todos os 15 limites")


@pytest.mark.slow
def test_page_in_the_html(settings, tmp_path):
    from reports.build import build_report
    from reports.render_html import render_html

    report = build_report(settings, [section_key_findings, section_tune])
    html = render_html(report, settings)
    assert "Tune: every guardrail at once" in html
    assert 'id="tune"' in html
    assert html.index("Key findings") < html.index("Tune: every guardrail at once")


def test_bad_guardrails_file_is_one_line(tmp_path, capsys):
    missing = tmp_path / "nope.toml"
    assert (
        main(
            [
                "report",
                "--guardrails",
                str(missing),
                "--no-pdf",
                "--no-warm-up",
                "-o",
                str(tmp_path / "out"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error: ")
    assert "nope.toml" in err[0]
    assert not (tmp_path / "out").exists()
