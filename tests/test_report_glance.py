"""The report's first section, "At a glance": its figures are what its commands print.

A small build (two systems, few fights) makes the section in English and Brazilian
Portuguese; every command printed under the table and under each system's paragraph is
run through the CLI, its CSV parsed, and each figure of the table must equal the
command's number within the rounding the table shows (a percentage to its last digit,
odds "about 1 in 38 million" to their two significant digits, rounds and rungs to one
decimal, "1 of 5" guardrails exactly). Each paragraph cites a rule id (B10's
massive-damage check, the A-g7 tie rule …); the pt-BR section speaks Portuguese with
decimal commas; the PDF's first page, after the title, is this section.
"""

from __future__ import annotations

import io
import re
import shlex
import subprocess
from contextlib import redirect_stdout

import pandas as pd
import pytest

from cli.main import main
from reports import sections as S
from reports.build import build_report, write_report
from reports.sections.glance import COLUMNS
from reports.settings import ReportSettings

SYSTEMS = ("dice_pool_7", "middle_3d10")
SEED = 3
COMBAT_TRIALS = 200


def _settings(lang: str, **kw) -> ReportSettings:
    return ReportSettings(
        systems=SYSTEMS,
        trials=1000,
        combat_trials=COMBAT_TRIALS,
        seed=SEED,
        pdf=False,
        progress=False,
        lang=lang,
        **kw,
    )


@pytest.fixture(scope="module")
def en():
    return build_report(_settings("en"), [S.section_glance]).sections[0]


@pytest.fixture(scope="module")
def pt():
    return build_report(_settings("pt-BR"), [S.section_glance]).sections[0]


def run(command: str) -> pd.DataFrame:
    """The CSV a printed ``rpg-balance`` command writes, run through the CLI."""
    args = shlex.split(command)
    assert args[0] == "rpg-balance"
    out = io.StringIO()
    with redirect_stdout(out):
        rc = main(
            [*args[1:], "--no-progress"] if args[1] in ("cross-combat", "audit") else args[1:]
        )
    # the audit exits 1 when a guardrail fails (its table is printed all the same)
    assert rc == 0 or (args[1] == "audit" and rc == 1), (command, rc)
    return pd.read_csv(io.StringIO(out.getvalue()))


def shown_value(cell: str) -> tuple[float, float]:
    """A table cell (English) as ``(value, tolerance)``: the rounding the cell shows."""
    cell = cell.strip()
    if m := re.fullmatch(r"(\d+(?:\.(\d+))?)%", cell):
        digits = len(m[2] or "")
        return float(m[1]) / 100, 0.5 * 10**-digits / 100 + 1e-12
    if m := re.fullmatch(r"about 1 in ([\d.,]+)( million)?", cell):
        odds = float(m[1].replace(",", "")) * (1e6 if m[2] else 1)
        return 1 / odds, None  # compared on the odds, two significant digits
    if cell == "fewer than 1 in a billion":
        return 0.0, 1e-9
    if m := re.fullmatch(r"\d+\.(\d)", cell):
        return float(cell), 0.05 + 1e-12
    raise AssertionError(f"unparsed cell {cell!r}")


def assert_shows(cell: str, value: float, what: str) -> None:
    shown, tol = shown_value(cell)
    if tol is None:  # odds: 1/p to two significant digits
        odds = 1 / value
        assert float(f"{odds:.2g}") == pytest.approx(1 / shown, rel=1e-9), (what, cell, value)
    else:
        assert abs(shown - value) <= tol, (what, cell, value)


def table_cell(section, system: str, key: str) -> str:
    view = section.blocks[0].frame.set_index("system")  # headers in the language
    return str(view.loc[system].iloc[list(COLUMNS).index(key)])


def commands(section) -> dict[str, str]:
    """``{command: kind}`` of the section's small print: the table's, then each
    system's (split at " ; ")."""
    out = {}
    for para in section.reading:
        for cmd in filter(None, (c.strip() for c in para.small.split(" ; "))):
            out[cmd] = para
    return out


@pytest.mark.slow
def test_every_figure_is_what_its_command_prints(en):
    cmds = list(commands(en))
    # the table's commands: the first reading's small print (a paragraph repeats those
    # its sentence cites, and adds its failed guardrail's)
    table = [c.strip() for c in en.reading[0].small.split(" ; ")]
    by = {
        re.sub(r" .*", "", c.split("rpg-balance ", 1)[1])
        + (
            " groups"
            if "--table groups" in c
            else " swing"
            if "swinginess" in c
            else " upsets"
            if "--table upsets" in c
            else ""
        ): c
        for c in table
        if c.split()[1] in ("ladder", "cross-combat", "audit")
    }
    cells = run(by["ladder"])
    swing = run(by["ladder swing"]).set_index("system")
    ups = run(by["ladder upsets"])
    duels = run(by["cross-combat"])
    groups = run(by["cross-combat groups"])
    audit = run(by["audit"])
    for system in SYSTEMS:
        for key, (comp, diff) in {
            "competent_average": ("competent", "average"),
            "expert_hard": ("expert", "hard"),
        }.items():
            p = cells[
                (cells["system"] == system)
                & (cells["competence"] == comp)
                & (cells["difficulty"] == diff)
            ]["p"].item()
            assert_shows(table_cell(en, system, key), p, (system, key))
        assert_shows(
            table_cell(en, system, "luck_rungs"), swing.loc[system, "sd_in_rungs"], (system, "luck")
        )
        u = ups[
            (ups["system"] == system)
            & (ups["weaker"] == "novice")
            & (ups["stronger"] == "competent")
        ]
        assert_shows(
            table_cell(en, system, "upset_roll_attacking"),
            u["p_upset_attacking"].item(),
            (system, "upset attacking"),
        )
        assert_shows(
            table_cell(en, system, "upset_roll_defending"),
            u["p_upset_defending"].item(),
            (system, "upset defending"),
        )
        d = duels[(duels["matchup"] == "melee_equal") & (duels["system"] == system)]
        assert_shows(
            table_cell(en, system, "duel_rounds"), d["rounds_mean"].item(), (system, "rounds")
        )
        assert_shows(
            table_cell(en, system, "one_hit_drops"),
            d["one_hit_incap_a_on_b"].item(),
            (system, "one hit"),
        )
        assert_shows(
            table_cell(en, system, "loser_dead"), d["p_loser_dead"].item(), (system, "loser dead")
        )
        g = groups[(groups["fight"] == "3v1") & (groups["system"] == system)]
        assert_shows(
            table_cell(en, system, "three_novices"), g["p_side0"].item(), (system, "three novices")
        )
        a = audit[audit["system"] == system]
        assert (
            table_cell(en, system, "guardrails_failed")
            == f"{(a['status'] == 'fail').sum()} of {len(a)}"
        )
        # the system's own commands: the duel upset and attrition
        mine = [c for c in cmds if f" {system} " in c]
        duel = next(c for c in mine if c.startswith("rpg-balance duel"))
        assert_shows(
            table_cell(en, system, "upset_duel"),
            run(duel)["p_side0"].item(),
            (system, "upset duel"),
        )
        camp = run(next(c for c in mine if c.startswith("rpg-balance campaign")))
        assert_shows(
            table_cell(en, system, "alive_after_3"),
            camp.loc[camp["session"] == 3, "p_able"].item(),
            (system, "alive"),
        )


@pytest.mark.slow
def test_middle_3d10_one_hit_is_most_fights_and_dice_pool_7_almost_never(en):
    """B10 makes one middle_3d10 hit drop an equal most of the time; a dice_pool_7 hit
    almost never does (A-g7 and the damage rules): the table says so in words."""
    assert shown_value(table_cell(en, "middle_3d10", "one_hit_drops"))[0] > 0.5
    assert table_cell(en, "dice_pool_7", "one_hit_drops").startswith(("about 1 in", "fewer than"))


@pytest.mark.slow
def test_each_paragraph_cites_a_rule_and_says_why(en):
    paras = {p.split(":", 1)[0]: p for p in en.reading[1:]}
    assert set(paras) == set(SYSTEMS)
    for system, para in paras.items():
        assert re.search(r"\b[A-E]X?(-[gr])?\d+\b", para), para
        assert "Why" in para
        assert para.small, system  # its own commands in small print
    assert "B10" in paras["middle_3d10"]  # the massive-damage check
    assert "A-g7" in paras["dice_pool_7"]  # the defender wins ties
    # the numbers of the paragraph are the table's
    assert table_cell(en, "middle_3d10", "one_hit_drops") in paras["middle_3d10"]
    assert table_cell(en, "dice_pool_7", "upset_roll_defending") in paras["dice_pool_7"]


@pytest.mark.slow
def test_no_code_identifier_in_prose_or_table(en, pt):
    ids = re.compile(
        r"\b(rounds_mean|p_side0|p_loser_dead|one_hit_incap\w*|sd_in_rungs|"
        r"p_upset\w*|competent_swordsman|light_melee|melee_equal)\b|\w+\.\w+\("
    )
    for sec in (en, pt):
        prose = [str(p) for p in sec.reading] + [sec.blocks[0].caption.text]
        table = sec.blocks[0].frame
        prose += [str(c) for c in table.columns] + [str(v) for v in table.to_numpy().ravel()]
        assert not [t for t in prose if ids.search(t)]


FORBIDDEN = re.compile(
    r"\b(the|of|and|with|against|rounds|fails|Biggest|risk|cure|upset|"
    r"duel|Why|novice|expert|luck|time|hit|drops)\b"
)


@pytest.mark.slow
def test_pt_br_speaks_portuguese_with_decimal_commas(pt, en):
    prose = [str(p) for p in pt.reading] + [pt.title, pt.blocks[0].title, pt.blocks[0].caption.text]
    table = pt.blocks[0].frame
    cells = [str(c) for c in table.columns] + [str(v) for v in table.to_numpy().ravel()]
    left = [t for t in prose + cells if FORBIDDEN.search(t)]
    assert not left, left
    assert not [t for t in prose + cells if re.search(r"\d\.\d", t)]
    assert any(re.search(r"\d,\d", t) for t in cells)
    # one percent style: the sign right after the number (Babel's pt_BR pattern)
    assert all(
        re.fullmatch(r"[\d,]+%|—|\d+ de \d+|[\d,]+|cerca de .*|menos de .*", str(v))
        for v in table.drop(columns="system").to_numpy().ravel()
    )
    # the same figures as in English, in the other number style
    assert table_cell(pt, "middle_3d10", "one_hit_drops").replace(",", ".") == table_cell(
        en, "middle_3d10", "one_hit_drops"
    )


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_pdf_first_page_is_at_a_glance(lang, tmp_path):
    out = tmp_path / lang
    settings = ReportSettings(
        systems=SYSTEMS,
        trials=1000,
        combat_trials=COMBAT_TRIALS,
        seed=SEED,
        progress=False,
        lang=lang,
        out=out,
    )
    write_report(settings, [S.section_glance, S.section_key_findings])
    html = (out / "report.html").read_text(encoding="utf-8")
    # the first screen: the title, then the section, then the contents
    assert html.index('id="glance"') < html.index('class="toc"') < html.index('id="key-findings"')
    assert re.search(r"<h2>2\. (Key findings|Principais)", html)
    first = subprocess.run(
        ["pdftotext", "-f", "1", "-l", "1", "-layout", str(out / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    title = "At a glance" if lang == "en" else "Num relance"
    assert f"1. {title}" in first
    for system in SYSTEMS:
        assert f"{system}:" in first  # each paragraph on the first page
    assert "Contents" not in first
    assert "Sumário" not in first


def test_a_plugin_without_the_parts_gets_dashes_and_its_summary(plugin_installed):
    """A plug-in system with no combat mapping, no ladder rungs and no glance text: its
    row is dashes where it has no figure, its paragraph is its summary; the built-in
    system beside it keeps its figures."""
    from engines.system import registry

    settings = ReportSettings(
        systems=("pbta_2d6", "dice_pool_7"),
        trials=1000,
        combat_trials=COMBAT_TRIALS,
        seed=SEED,
        pdf=False,
        progress=False,
    )
    sec = build_report(settings, [S.section_glance]).sections[0]
    row = sec.blocks[0].frame.set_index("system").loc["pbta_2d6"]
    assert row.iloc[list(COLUMNS).index("duel_rounds")] == "—"
    assert row.iloc[list(COLUMNS).index("competent_average")] == "—"
    para = next(p for p in sec.reading if p.startswith("pbta_2d6:"))
    assert registry()["pbta_2d6"].report.summary in para
    assert table_cell(sec, "dice_pool_7", "duel_rounds") != "—"
