"""The report's promises kept: the appendix (Monte Carlo agreement printed by the command
under each sentence, Assumptions only where the code reads a silent rules text) after
every content section and before Provenance; take 10 (E4) judged only where the rules
allow it; the C7 verdict in one sentence, its numbers printed by its command."""

from __future__ import annotations

import io
import re
import shlex

import numpy as np
import pandas as pd
import pytest

from analysis.checks.curves import success_curves
from analysis.checks.modifiers import modifier_summary, modifier_values
from cli.main import main
from reports import sections as S
from reports.settings import ReportSettings
from reports.structure import Reading

TRIALS = 2_000  # few rolls: the figures only have to match their command, not be precise


def _run(capsys, command: str) -> str:
    """The output of one ``rpg-balance`` command of a reading's small print."""
    words = shlex.split(command)
    assert words[0] == "rpg-balance"
    capsys.readouterr()
    assert main(words[1:]) == 0
    return capsys.readouterr().out


# ---------------------------------------------------------------- the appendix


def test_appendix_closes_the_report_before_provenance():
    """Monte Carlo agreement, then Assumptions, after every content section; the builder
    adds Provenance after them (reports/build.py)."""
    assert S.SECTIONS[-2:] == [S.section_mc_agreement, S.section_assumptions]
    assert S.SECTIONS.count(S.section_mc_agreement) == 1
    assert S.SECTIONS.index(S.section_campaign) < S.SECTIONS.index(S.section_mc_agreement)
    from reports.build import build_report

    report = build_report(
        ReportSettings(systems=("dice_pool_7",), trials=200, progress=False), S.APPENDIX
    )
    assert [s.id for s in report.sections] == ["mc-agreement", "assumptions", "provenance"]
    assert all(s.title.startswith("Appendix: ") for s in report.sections[:2])


@pytest.fixture(scope="module")
def mc_section():
    return S.section_mc_agreement(
        ReportSettings(systems=("dice_pool_7", "d20_degrees"), trials=TRIALS)
    )


def test_mc_agreement_sentence_numbers_are_what_its_command_prints(mc_section, capsys):
    """Each system's sentence cites the max |z| and mean |z| that ``rpg-balance curves …
    --method both --summary`` prints, run with the system's own seed (report seed × 16 +
    its place in the registry), which the sentence's command carries."""
    readings = [r for r in mc_section.reading if isinstance(r, Reading) and r.small]
    assert [r.split(":")[0] for r in readings] == ["dice_pool_7", "d20_degrees"]
    shown = mc_section.tables()[0].frame.set_index("system")
    settings = ReportSettings(systems=("dice_pool_7", "d20_degrees"), trials=TRIALS)
    for r in readings:
        system = r.split(":")[0]
        assert f"--seed {settings.system_seed(system)} " in r.small + " "
        assert f"--trials {TRIALS}" in r.small
        row = pd.read_csv(io.StringIO(_run(capsys, r.small))).iloc[0]
        z = re.search(r"largest \|z\| ([\d.]+), mean \|z\| ([\d.]+)", r)
        assert float(z.group(1)) == pytest.approx(row["max |z|"], abs=0.005)
        assert float(z.group(2)) == pytest.approx(row["mean |z|"], abs=0.005)
        assert shown.loc[system, "max |z|"] == pytest.approx(row["max |z|"], rel=1e-12)
        # the number is the curves table's own: max |z| over its cells, same seed
        t = success_curves(system, "both", trials=TRIALS, seed=settings.system_seed(system))
        assert row["max |z|"] == pytest.approx(float(t["z"].abs().max()), rel=1e-12)


def test_mc_agreement_says_the_cells_share_their_rolls(mc_section):
    """E1: every d20_degrees check rolls one d20, so its whole grid is read from one stream
    of rolls (A1: dice_pool_7 one per pool size 0–20, 21); the reading says so, naming
    the system whose cells share the fewest streams, rather than "what chance gives"."""
    shown = mc_section.tables()[0].frame.set_index("system")
    assert shown.loc["d20_degrees", "roll settings"] == 1
    assert shown.loc["dice_pool_7", "roll settings"] == 21
    text = " ".join(mc_section.reading)
    assert "not independent draws" in text
    assert f"d20_degrees: all {shown.loc['d20_degrees', 'cells']:,} cells from 1 stream" in text
    assert "what chance alone gives" not in text


def test_curves_summary_needs_both_methods(capsys):
    assert main(["curves", "dice_pool_7", "--summary"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--method both" in err[0]


def test_assumptions_are_the_silent_rules_in_words():
    """Only what differs from the rules text: every gap reading (A-g7: an opposed tie goes
    to the defender) in words, no value/default columns; a variant changed from the rules
    text (A1: 9-again) joins them and the reading names it."""
    plain = S.section_assumptions(ReportSettings(systems=("dice_pool_7",), trials=200))
    table = plain.tables()[0]
    assert list(table.frame.columns) == ["system", "rule", "reading"]
    assert table.frame["rule"].str.contains("-g").all()
    assert "A-g7" in set(table.frame["rule"])
    assert "A1" not in set(table.frame["rule"])
    assert {"value", "default"} <= set(table.full.columns)  # the CSV keeps them
    assert "No rule variant of this report is changed" in plain.reading[0]
    nine = S.section_assumptions(
        ReportSettings(systems=("dice_pool_7",), trials=200, variants=(("dice_pool_7", "again=9"),))
    )
    assert "A1" in set(nine.tables()[0].frame["rule"])
    assert "dice_pool_7 A1 (again = 9)" in nine.reading[0]


# ---------------------------------------------------------------- take 10 (E4)


def _take10_oracle() -> tuple[float, float, float, int]:
    """E4 by hand: take 10 is allowed at DC ≤ 10 (no stress); there 10 + bonus ≥ DC for
    every bonus ≥ 0, so it always succeeds, while rolling needs d20 ≥ DC − bonus and a
    natural 1 fails (E3): P(roll) = min(0.95, (21 − (DC − bonus)) / 20). Judged over the
    cells whose base chance is 5–95 %: mean, min, max gain in points and their count."""
    gains = []
    for dc in (5, 10):
        for bonus in range(21):
            p = min(0.95, (21 - max(dc - bonus, 1)) / 20)
            if 0.05 <= p <= 0.95:
                gains.append(100 * (1 - p))
    return float(np.mean(gains)), min(gains), max(gains), len(gains)


def test_take_10_is_judged_only_where_e4_allows_it():
    t = modifier_values("d20_degrees")
    take = t[t["modifier"] == "take 10"]
    assert not take.loc[take["dc"] > 10, "judged"].any()
    assert take.loc[take["dc"] <= 10, "judged"].all()
    # where it is not allowed it is often worse than rolling: that is what was averaged in
    assert (take.loc[take["dc"] > 10, "delta_pp"] < 0).any()
    row = modifier_summary(t).set_index("modifier").loc["take 10"]
    mean, low, high, n = _take10_oracle()
    assert row["mean_delta_pp"] == pytest.approx(mean, abs=1e-9)
    assert row["min_delta_pp"] == pytest.approx(low, abs=1e-9)
    assert row["max_delta_pp"] == pytest.approx(high, abs=1e-9)
    assert row["cells"] == n


def test_take_10_sentence_states_the_rule_and_its_command_prints_it(capsys):
    section = S.section_modifiers(ReportSettings(systems=("d20_degrees",), trials=200))
    [r] = [r for r in section.reading if "take 10 (E4)" in r]
    assert "routine check, with no stress and a DC of 10 or below" in r
    assert "not worse than rolling" in r
    out = pd.read_csv(io.StringIO(_run(capsys, r.small))).set_index("modifier")
    m = re.search(
        r"worth ([+-][\d.]+) points on average \(from ([+-][\d.]+) to "
        r"([+-][\d.]+), (\d+) checks\)",
        r,
    )
    assert float(m.group(1)) == pytest.approx(out.loc["take 10", "mean_delta_pp"], abs=0.05)
    assert float(m.group(2)) == pytest.approx(out.loc["take 10", "min_delta_pp"], abs=0.05)
    assert float(m.group(3)) == pytest.approx(out.loc["take 10", "max_delta_pp"], abs=0.05)
    assert int(m.group(4)) == out.loc["take 10", "cells"] == _take10_oracle()[3]


# ---------------------------------------------------------------- claim C7


def test_c7_has_a_verdict_sentence_printed_by_its_command(capsys):
    """C7 (dice_pool_6): "−1 difficulty and +2 dice are equivalent". The section opens
    with one verdict sentence; its share, gap, pool and difficulty are the ones
    ``rpg-balance claim-c7 --summary`` prints, and the pool from which it always holds
    is one above the largest breaking pool the command lists."""
    section = S.section_c7(ReportSettings(systems=("dice_pool_6",), trials=200))
    verdict = section.reading[0]
    assert verdict.startswith("Verdict: ")
    assert verdict.count(". ") == 0
    assert verdict.endswith(".")
    out = _run(capsys, verdict.small).splitlines()[0]  # the defaults' sentence
    share = re.search(r"in (\d+)% of cells", verdict).group(1)
    assert f"({share} %;" in out
    gap, pool, dc = re.search(
        r"pool (\d+), difficulty (\d+), where \+2 dice is worth "
        r"([\d.]+) points more",
        verdict,
    ).group(3, 1, 2)
    assert f"The largest gap is {gap} points at pool {pool}, difficulty {dc}, where +2 dice" in out
    breaking = [int(b) for b in re.findall(r"pools (?:[\d]+–)?(\d+)", out)]
    first = int(re.search(r"from pool (\d+) up", verdict).group(1))
    assert first == max(breaking) + 1
