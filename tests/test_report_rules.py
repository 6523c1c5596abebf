"""``rpg-balance report --rules FILE``: the report computes under a designer's rules files
and says so (issue 29 item 2, rules as data).

* the first page and Assumptions name the rules file and each edit in words, and the
  Provenance's command reproduces the build with ``--rules``;
* a figure of the report (the Key findings guardrail "heaviest armour against a shooter",
  dice_pool_7, armour rule A13 with its ballistic rating edited) is what ``rpg-balance
  duel ... --rules FILE`` gives, and not what the package's rules give;
* the words of the edits in Brazilian Portuguese.

One system, few trials: the report builds in seconds once numba's cache is warm.
"""

from __future__ import annotations

import base64
import html
import io
import re

import pandas as pd
import pytest

from analysis.rules import load_files, using
from cli.main import main
from reports.i18n import language
from reports.rules_words import carrying, edit_words, rules_line
from reports.sections.assumptions import section_assumptions
from reports.settings import ReportSettings

SYSTEM = "dice_pool_7"
#: the guardrail of analysis/data/guardrails.toml whose figure the edit moves
GUARDRAIL = "heaviest armour against a shooter (dice_pool_7)"
DISTANCES = (0, 10, 20, 40)  # that guardrail's starting distances
RULES = """system = "dice_pool_7"

[armour.heavy_archaic]
ballistic = 0            # the package says 2 (A13)

[everyone]
CON = 1
"""


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "no_ballistic.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def report_html(rules_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    rc = main(
        [
            "report",
            "--systems",
            SYSTEM,
            "--trials",
            "1000",
            "--combat-trials",
            "200",
            "--no-pdf",
            "--quiet",
            "--no-warm-up",
            "-o",
            str(out),
            "--rules",
            str(rules_file),
        ]
    )
    assert rc == 0
    return (out / "report.html").read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", fragment))


def _section(page: str, sid: str) -> str:
    m = re.search(rf'<section id="{sid}".*?</section>', page, re.S)
    assert m, sid
    return m.group(0)


def _csv(page: str, table_id: str) -> pd.DataFrame:
    m = re.search(rf'download="{table_id}\.csv" href="data:text/csv;base64,([^"]+)"', page)
    assert m, table_id
    return pd.read_csv(io.StringIO(base64.b64decode(m.group(1)).decode("utf-8")))


def _cli_p_side0(capsys, *rules: str, distance: int) -> float:
    capsys.readouterr()
    argv = [
        "duel",
        SYSTEM,
        "competent_swordsman",
        "competent_shooter",
        "--armour-a",
        "heavy_archaic",
        "--variant",
        f"distance={distance}",
        "--format",
        "csv",
        "--columns",
        "p_side0",
    ]
    for f in rules:
        argv += ["--rules", f]
    assert main(argv) == 0
    return float(pd.read_csv(io.StringIO(capsys.readouterr().out))["p_side0"].iloc[0])


@pytest.mark.slow
def test_first_page_names_the_rules_file_and_its_edits(report_html, rules_file):
    header = _text(re.search(r"<header>.*?</header>", report_html, re.S).group(0))
    assert "Rules edited by rules files" in header
    assert f"{SYSTEM} ({rules_file.name}):" in header
    assert "armour.heavy_archaic.ballistic 2 → 0" in header
    assert "everyone's CON +1" in header


@pytest.mark.slow
def test_assumptions_list_the_edits(report_html, rules_file):
    section = _section(report_html, "assumptions")
    words = _text(section)
    assert "built under a designer's rules files" in words
    table = _csv(section, "rules-in-force")
    assert table.to_dict("records") == [
        {
            "system": SYSTEM,
            "rules file": rules_file.name,
            "edit": "armour.heavy_archaic.ballistic 2 → 0",
        },
        {"system": SYSTEM, "rules file": rules_file.name, "edit": "everyone's CON +1"},
    ]


@pytest.mark.slow
def test_provenance_reproduces_the_build_with_the_rules(report_html, rules_file):
    prov = _csv(_section(report_html, "provenance"), "provenance").set_index("item")["value"]
    assert f"--rules {rules_file}" in prov["command to reproduce"]
    assert "armour.heavy_archaic.ballistic 2 → 0" in prov["rules files (rule tables edited)"]


@pytest.mark.slow
def test_guardrail_figure_is_the_cli_duel_under_the_same_rules(report_html, rules_file, capsys):
    """A13: with a ballistic rating of 0 the heavy archaic armour no longer stops the
    pistol; the report's figure (the worst of the starting distances: the largest
    P(win) against a maximum) is the CLI's duel under the same file, and not the
    package's."""
    table = _csv(report_html, "guardrails").set_index("guardrail")
    value = float(table.loc[GUARDRAIL, "value"])
    edited = [_cli_p_side0(capsys, str(rules_file), distance=d) for d in DISTANCES]
    shipped = [_cli_p_side0(capsys, distance=d) for d in DISTANCES]
    assert value == pytest.approx(max(edited), abs=1e-12)
    assert abs(value - max(shipped)) > 0.1  # the edit moved it (the package: ~0.998)
    assert table.loc[GUARDRAIL, "status"] == ("pass" if max(edited) <= 0.8 else "fail")


def test_words_in_portuguese_and_no_rules_no_words(rules_file):
    rs = load_files([rules_file])
    with language("pt-BR"):
        words = edit_words(rs[SYSTEM])
        line = rules_line(rs)
        section = section_assumptions(ReportSettings(systems=(SYSTEM,), rules=tuple(rs.values())))
    assert words[0] == "armour.heavy_archaic.ballistic 2 → 0"
    assert words[1] == "CON de todos +1"  # the catalogue's "everyone's {trait} {offset}"
    assert line == f"{SYSTEM} ({rules_file.name}): " + "; ".join(words)
    assert section.blocks[0].id == "rules-in-force"
    assert "everyone" not in " ".join(section.reading[:1])
    # without rules files: no rules table, no sentence (the report as it always was)
    plain = section_assumptions(ReportSettings(systems=(SYSTEM,)))
    assert [b.id for b in plain.blocks] == ["assumptions"]
    assert rules_line({}) == ""


def test_carrying_puts_the_rules_in_force_once(rules_file):
    from analysis.rules import in_force

    rs = load_files([rules_file])
    with carrying(rs):
        inside = in_force()
        with carrying(rs):  # already in force: not applied a second time
            twice = in_force()
    assert inside[SYSTEM].key == rs[SYSTEM].key == twice[SYSTEM].key
    assert in_force() == {}
    with using(rs), carrying(rs):
        assert in_force()[SYSTEM].key == rs[SYSTEM].key


def test_combat_frames_follow_the_rules_in_force(rules_file):
    """The report's cached combat frames are keyed on the rules in force: the same
    settings give the package's fights, then the edited ones (everyone's CON + 1 moves
    every duel, A14), then the package's again."""
    from reports.sections.combat_common import combat_frames

    settings = ReportSettings(systems=(SYSTEM,), trials=1000, combat_trials=200)
    rs = load_files([rules_file])
    before = combat_frames(settings)["cross"]["p_side0"].to_numpy()
    with carrying(rs):
        edited = combat_frames(settings)["cross"]["p_side0"].to_numpy()
    after = combat_frames(settings)["cross"]["p_side0"].to_numpy()
    assert (before == after).all()
    assert not (before == edited).all()


@pytest.mark.slow
def test_every_printed_command_names_the_rules_file(report_html, rules_file, capsys):
    """A report built with ``--rules FILE`` prints its commands with ``--rules FILE``:
    each command of the small print prints that report's numbers, not the package's.
    A duel's command run as printed and without the file print different numbers
    (the file gives everyone CON + 1)."""
    import shlex

    smalls = [
        html.unescape(m)
        for m in re.findall(
            r'<small class="reproduce"><code>(.*?)</code></small>', report_html, re.S
        )
    ]
    commands = [
        c.partition("  # ")[0].strip()
        for s in smalls
        for line in s.split("\n")
        for c in line.split(" ; ")
        if c.lstrip().startswith("rpg-balance ")
    ]
    assert len(commands) > 5
    for c in commands:
        assert f"--rules {rules_file}" in c, c
    duels = [c for c in commands if c.startswith("rpg-balance duel ")]
    assert duels, "no duel command in the small print"
    argv = shlex.split(duels[0])[1:]
    capsys.readouterr()
    assert main(argv) == 0
    edited = capsys.readouterr().out
    i = argv.index("--rules")
    assert main(argv[:i] + argv[i + 2 :]) == 0
    shipped = capsys.readouterr().out
    assert edited != shipped  # everyone's CON +1 moves every duel of the system
