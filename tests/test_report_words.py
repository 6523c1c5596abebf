"""The report speaks words, not code: no code identifier in its prose and PDF tables (en
and pt-BR), no English word left in the pt-BR PDF or its figures, pt-BR numbers in the
language's style (issue 30, "Done when", second bullet; the checker is
:mod:`tests.report_text`).

The checker's own tests come first (made-up lines whose hits are known by reading them);
then the report is built once per language, its PDF read and its figures' texts
recorded, and every hit fails the test with its page or figure and section.
"""

from __future__ import annotations

import pytest

from reports.settings import ReportSettings
from tests import report_text as RT

L = RT.Line


def words(hits):
    return [h.word for h in hits]


# ---------------------------------------------------------------- the checker


def test_identifiers_found_and_names_kept():
    system = sorted(RT.registry_ids()["system"])[0]
    line = L(
        "p. 1",
        "s",
        f"in {system} the rounds_mean of both.CON (A1, B-g10, DX4) "
        "and variant.again, see analysis/data/guardrails.toml and reports/i18n.py",
    )
    # a data file a designer edits is named by its path; a module is code
    assert words(RT.code_hits([line])) == [
        "reports/i18n.py",
        "rounds_mean",
        "both.CON",
        "variant.again",
    ]


def test_plain_words_and_file_kinds_are_not_identifiers():
    line = L(
        "p. 1", "s", "e.g. download report.pdf or duel.csv: 2.5 rounds, 1,234.5, a 10-again pool"
    )
    assert RT.code_hits([line]) == []


def test_registry_ids_that_are_not_words_are_identifiers():
    weapons = RT.registry_ids()["weapon"]
    snake = sorted(w for w in weapons if "_" in w)
    assert snake, "some weapon id has an underscore (light_melee …)"
    assert words(RT.code_hits([L("p. 1", "s", f"with a {snake[0]}")])) == [snake[0]]


def test_english_words_in_portuguese():
    line = L(
        "figure 1",
        "s",
        "desfecho 'leave', 10-again, advantage/disadvantage, a chance de o lutador vencer",
    )
    found = {w.lower() for w in words(RT.english_hits([line]))}
    assert {"leave", "again", "advantage", "disadvantage"} <= found
    assert not found & {"chance", "lutador", "vencer", "desfecho"}


def test_portuguese_words_are_not_english():
    line = L(
        "p. 1",
        "s",
        "Um duelo equilibrado dura 1,1 rodada; a parada de dados, "
        "moribundo, teste oposto, a semente 20261129",
    )
    assert RT.english_hits([line]) == []


def test_numbers_in_pt_br_style():
    lines = [
        L("p. 1", "s", "dura 2.34 rodadas e 57 % dos testes"),
        L("p. 1", "s", "200.000 ensaios, 2,34 rodadas, 57% dos testes, v0.25 não"),
    ]
    assert words(RT.number_hits(lines)) == ["2.34", "7 %"]


# ---------------------------------------------------------------- the built report


@pytest.fixture(scope="module", params=["en", "pt-BR"])
def built(request, tmp_path_factory):
    """The report of every system in one language: its PDF's lines and its figures'."""
    lang = request.param
    out = tmp_path_factory.mktemp(f"report-words-{lang}")
    pdf, figures = RT.build(
        ReportSettings(out=out, lang=lang, trials=1000, combat_trials=200, seed=3, progress=False)
    )
    return lang, RT.pdf_lines(pdf), RT.figure_lines(figures)


def _fail_on(hits):
    if hits:
        pytest.fail(f"{len(hits)} hit(s):\n" + "\n".join(map(str, hits[:200])))


@pytest.mark.slow
def test_commands_are_left_out_and_sections_found(built):
    _, lines, figures = built
    assert lines
    assert figures
    # every small-print command names its columns; no line left to check does
    assert not [x for x in lines if "--columns" in x.text]
    sections = {x.section for x in lines}
    assert len(sections) >= 10, sections


@pytest.mark.slow
def test_no_code_identifier_in_prose_tables_and_figures(built):
    _, lines, figures = built
    _fail_on(RT.code_hits(lines + figures))


@pytest.mark.slow
def test_no_english_word_in_the_pt_br_report(built):
    lang, lines, figures = built
    if lang == "en":
        pytest.skip("English report")
    _fail_on(RT.english_hits(lines + figures))


@pytest.mark.slow
def test_pt_br_numbers_in_one_style(built):
    lang, lines, figures = built
    if lang == "en":
        pytest.skip("English report")
    _fail_on(RT.number_hits(lines + figures))
