"""Every number in Key findings and At a glance is printed by the command shown with it.

Each sentence (a :class:`reports.structure.Reading`) of the two sections carries its
``rpg-balance`` commands in small print, joined by ``" ; "``. The test runs each command
through the CLI in-process (:func:`cli.main.main`, its standard output captured), and
finds every figure of the sentence in what the commands print: a percentage (``88.2%``),
rounds and rungs (``1.1 rounds``, ``1.3 rungs``), odds in words (``about 1 in 38
million``) and any other decimal, each compared after rounding the printed number to
the digits the sentence shows. Integers without a unit (knob values, rule numbers,
counts) are settings, not measurements, and are not looked for.

The one even duel (issue 30, item 3): the guardrails' even duels
(``analysis/data/guardrails.toml``) are the cross-combat file's ``melee_equal`` fights,
the duel every section calls "the even duel".
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import shlex
from pathlib import Path

import pytest

from analysis.toml_input import read_toml
from cli.main import main
from reports.structure import Reading

ROOT = Path(__file__).resolve().parents[1]

#: the figures of an English sentence: (pattern, kind)
_FIGURES = [
    (re.compile(r"1 in (\d[\d,]*(?:\.\d+)?)( million| billion)?"), "odds"),
    (re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)%"), "percent"),
    (re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) (?:rounds?|rungs?|points)\b"), "plain"),
    (re.compile(r"(?<![\w.\-–])(\d+\.\d+)(?![\w.])"), "plain"),
]
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def figures(sentence: str) -> list[tuple[str, str, float, int]]:
    """``(shown, kind, value, decimals)`` of each figure of ``sentence`` (each place in
    the sentence read once, by the first pattern that matches it)."""
    taken: list[range] = []
    out = []
    for pattern, kind in _FIGURES:
        for m in pattern.finditer(sentence):
            span = range(*m.span(1))
            if any(set(span) & set(t) for t in taken):
                continue
            taken.append(range(*m.span()))
            digits = m.group(1).replace(",", "")
            decimals = len(digits.partition(".")[2])
            value = float(digits)
            if kind == "odds":
                value *= {" million": 1e6, " billion": 1e9}.get(m.group(2) or "", 1.0)
            out.append((m.group(0), kind, value, decimals))
    return out


def printed(out: str) -> list[float]:
    return [float(x) for x in _NUMBER.findall(out)]


def found(kind: str, value: float, decimals: int, numbers: list[float]) -> bool:
    """Whether a printed number shows as the sentence's figure once rounded to its digits."""
    half = 0.5 * 10.0**-decimals + 1e-9
    for y in numbers:
        if kind == "percent" and (abs(100 * y - value) <= half or abs(y - value) <= half):
            return True
        if kind == "plain" and abs(y - value) <= half:
            return True
        # odds in words are 1 / p to two significant digits (analysis.glossary)
        if (
            kind == "odds"
            and 0 < y < 1
            and math.isclose(float(f"{1.0 / y:.2g}"), value, rel_tol=1e-9)
        ):
            return True
    return False


def missing(sentence: str, output: str) -> list[str]:
    """The figures of ``sentence`` that ``output`` does not print."""
    numbers = printed(output)
    return [
        shown
        for shown, kind, value, decimals in figures(sentence)
        if not found(kind, value, decimals, numbers)
    ]


_RUN: dict[str, str] = {}


def run(command: str) -> str:
    """Standard output of one ``rpg-balance`` command run in-process (cached)."""
    if command not in _RUN:
        words = shlex.split(command, comments=True)
        assert words[0] == "rpg-balance", command
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            code = main([*words[1:], "--no-progress"] if words[1] == "audit" else words[1:])
        # the audit exits 1 when a guardrail fails; anything else is an error
        assert code in (0, 1) if words[1] == "audit" else code == 0, (command, code)
        _RUN[command] = buf.getvalue()
        assert _RUN[command].strip(), command
    return _RUN[command]


def outputs(reading: Reading) -> str:
    return "\n".join(run(c.strip()) for c in reading.small.split(" ; ") if c.strip())


@pytest.fixture(scope="module")
def sections():
    """At a glance and Key findings of the default report, built once."""
    from reports.sections.glance import section_glance
    from reports.sections.key_findings import section_key_findings
    from reports.settings import ReportSettings

    settings = ReportSettings(progress=False)
    return {"glance": section_glance(settings), "key-findings": section_key_findings(settings)}


def _readings(sections) -> list[tuple[str, Reading]]:
    return [(sid, r) for sid, sec in sections.items() for r in sec.reading]


@pytest.mark.slow
def test_every_figure_is_printed_by_its_command(sections):
    """Every figure of every sentence of the two sections is in the output of the
    commands in its small print (and a sentence with a figure has commands). At a
    glance's paragraphs quote its table, whose commands are shown once above them: a
    paragraph's figures are looked for in its own commands and the table's."""
    checked = 0
    table = sections["glance"].reading[0]
    for sid, r in _readings(sections):
        if not figures(str(r)):
            continue
        assert isinstance(r, Reading), (sid, str(r))
        assert r.small, (sid, str(r))
        shown = outputs(r) + ("\n" + outputs(table) if sid == "glance" else "")
        gone = missing(str(r), shown)
        assert gone == [], (sid, str(r), r.small, gone)
        checked += len(figures(str(r)))
    assert checked >= 40  # the two sections carry dozens of figures


@pytest.mark.slow
def test_a_wrong_figure_fails(sections):
    """The check can fail: the middle_3d10 even duel's mean length with a wrong digit is
    not what its command prints, and the right one is."""
    r = next(
        r
        for r in sections["key-findings"].reading
        if str(r).startswith("even duel length (middle_3d10)")
    )
    assert "1.1 rounds" in r
    assert missing(str(r), outputs(r)) == []
    wrong = str(r).replace("1.1 rounds", "1.4 rounds")
    assert missing(wrong, outputs(r)) == ["1.4 rounds"]
    assert missing("a duel ends in round 1 87.1% of the time", outputs(r)) == ["87.1%"]


def test_figure_reading_hand_worked():
    """The figures of a sentence as written: percentages, rounds, odds, decimals; rule
    ids and plain integers are not figures."""
    said = (
        "dice_pool_7 (A14): wins 4.8% of the time, lasts 2.9 rounds, 1 in 38 million, "
        "a ratio 0.224, CON from 3 to 8 (E-g16)"
    )
    assert [(s, k) for s, k, _v, _d in figures(said)] == [
        ("1 in 38 million", "odds"),
        ("4.8%", "percent"),
        ("2.9 rounds", "plain"),
        ("0.224", "plain"),
    ]
    assert found("percent", 4.8, 1, [0.04763])
    assert not found("percent", 4.8, 1, [0.0474])
    assert found("odds", 38e6, 0, [2.657e-08])  # 1 / 2.657e-8 = 37.6 million
    assert not found("odds", 38e6, 0, [2.5e-08])  # 40 million


@pytest.mark.slow
def test_key_findings_name_fighters_and_say_each_finding_once(sections):
    """Fighters are named (never "fighter A"), no finding is said twice (an opening
    sentence never restates a failed guardrail; one sentence per pair of knobs), and
    "only" never stands before a number."""
    said = [str(r) for r in sections["key-findings"].reading]
    for line in said:
        assert "fighter A" not in line.split(" Cure: ")[0], line
        assert not re.search(r"\bonly \d", line), line
    failed = [line.split(":")[0] for line in said if " Cure: " in line]
    for line in said:
        if " Cure: " not in line:
            assert not any(f"“{name}”" in line for name in failed), line
    pairs = [re.search(r"the effect of (.+?) depends on (.+?):", line) for line in said]
    pairs = [frozenset(m.groups()) for m in pairs if m]
    assert len(pairs) == len(set(pairs)) >= 1
    # the dodge trap of dice_pool_7 (A6: attack + dodge) and its weaker defender (A-g7)
    trap = next(line for line in said if "a trap in the rules" in line)
    assert trap.startswith("dice_pool_7: ")
    assert "4.8%" in trap
    defender = next(line for line in said if "wins most opposed rolls it defends" in line)
    assert defender.startswith("dice_pool_7: ")
    assert "54%" in defender


@pytest.mark.slow
def test_distance_guardrail_names_its_distance(sections):
    """The heaviest-armour guardrail shows the distance of its value and its command is a
    one-row grid at that distance (the figure is what the command prints)."""
    r = next(
        r
        for r in sections["key-findings"].reading
        if str(r).startswith("heaviest armour against a shooter (dice_pool_7)")
    )
    assert "a competent swordsman in heavy archaic armour beats a competent shooter starting" in r
    grid = r.small.split(" ; ")[0]
    assert "--knob variant.distance --values 0 " in grid
    assert "starting engaged (0 m)" in r


@pytest.mark.slow
def test_no_cure_says_why_and_names_three_ranges(sections):
    """percentile's hard success needs half the skill (D1), so no skill of at most 99
    reaches 50%: the sentence says the nearest value a searched setting reaches (49% at
    skill 99) and names at most three ranges searched."""
    r = next(
        str(r)
        for r in sections["key-findings"].reading
        if str(r).startswith("expert vs hard task (percentile)")
    )
    assert "the nearest any searched value comes is 49%, with the skill (D1) at 99" in r
    searched = r.split("(searched: ", 1)[1].split("; held as the question", 1)[0]
    assert len(searched.split("; ")) <= 3 + 1


def test_guardrails_even_duel_is_the_cross_combat_even_duel():
    """One even duel per system: each guardrail fight ``even_duel_<system>`` is the
    cross-combat file's ``melee_equal`` pair, fighter for fighter."""
    guard = read_toml(ROOT / "analysis" / "data" / "guardrails.toml", "guardrails")
    cross = read_toml(ROOT / "analysis" / "data" / "cross_combat.toml", "cross-combat")
    fights = {f["name"]: f for f in guard["fights"]}

    def spec(x):
        return {"archetype": x} if isinstance(x, str) else dict(x)

    equal = cross["matchups"]["melee_equal"]
    systems = [k for k in equal if isinstance(equal[k], dict)]
    assert len(systems) == 5
    for system in systems:
        f = fights[f"even_duel_{system}"]
        assert f["system"] == system
        assert (spec(f["a"]), spec(f["b"])) == (
            spec(equal[system]["a"]),
            spec(equal[system]["b"]),
        ), system


def test_middle_3d10_pistol_guardrail_counts_incapacitation():
    """B10: a hit that forces the massive-damage check drops most targets without killing
    them, so the pistol guardrail counts every way out of the fight."""
    guard = read_toml(ROOT / "analysis" / "data" / "guardrails.toml", "guardrails")
    mine = [g for g in guard["guardrails"] if g.get("fight") == "pistol_middle_3d10"]
    assert "p_one_hit_incapacitate" in {g["metric"] for g in mine}
