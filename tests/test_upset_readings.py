"""The report quotes upsets from both sides (issue 10, §5): a single opposed roll with the
weaker character attacking and defending. In ``dice_pool_7`` ties go to the defender
(A-g7, default "defender"), so a novice (2 dice) beats a competent opponent (4 dice)
about 16 % of the time attacking and about 40 % defending — the readings must say both,
with the numbers of ``rpg-balance ladder --table upsets``.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from cli.main import main
from reports.sections.common import pct


@pytest.fixture(scope="session")
def upsets(tmp_path_factory):
    out = tmp_path_factory.mktemp("u") / "upsets.csv"
    assert main(["ladder", "--table", "upsets", "-o", str(out)]) == 0
    return pd.read_csv(out)


def _pcts(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?\s?%", text)


def test_novice_vs_competent_sentence_quotes_both_sides(upsets):
    from reports.sections.combat_upsets import upset_reading

    t = upsets[upsets["system"] == "dice_pool_7"]
    row = t[(t["weaker"] == "novice") & (t["stronger"] == "competent")].iloc[0]
    # the figures, worked independently: about 16 % attacking, 40 % defending
    assert row["p_upset_attacking"] == pytest.approx(0.16, abs=0.01)
    assert row["p_upset_defending"] == pytest.approx(0.40, abs=0.01)
    frame = t.assign(p_fight=0.30)  # a duel figure between the two rolls
    swing = pd.DataFrame({"sd_in_rungs": [1.0]}, index=pd.Index(["dice_pool_7"], name="system"))
    lines = upset_reading(frame, swing)
    line = next(x for x in lines if x.startswith("dice_pool_7: a novice"))
    assert _pcts(line)[:3] == [
        pct(row["p_upset_attacking"]),
        pct(row["p_upset_defending"]),
        pct(0.30),
    ]
    assert "when attacking" in line
    assert "when defending" in line
    assert "lies between the two single rolls" in line
    # a duel below both rolls sharpens skill; counted in the opening sentence
    lines = upset_reading(t.assign(p_fight=0.10), swing)
    assert "In 1 of 1 systems" in lines[0]
    assert "sharpens the edge of skill" in lines[1]


def test_swinginess_sentence_quotes_both_sides(upsets):
    from analysis.checks.ladders import swinginess
    from reports.sections.ladders import swing_reading, with_defending

    swing = with_defending(swinginess(), upsets)
    t = upsets[(upsets["system"] == "dice_pool_7") & (upsets["rungs_apart"] == 1)]
    attack, defend = t["p_upset_attacking"].mean(), t["p_upset_defending"].mean()
    row = swing.set_index("system").loc["dice_pool_7"]
    assert row["p_upset_adjacent"] == pytest.approx(attack)
    assert row["p_upset_adjacent_defending"] == pytest.approx(defend)
    two = upsets[(upsets["system"] == "dice_pool_7") & (upsets["rungs_apart"] == 2)]
    assert row["p_upset_two_apart_defending"] == pytest.approx(two["p_upset_defending"].mean())
    # ties to the defender: defending upsets are the more likely ones
    assert defend > attack
    # the sentence's "one rung weaker" is the novice against the competent character
    # (At a glance's pair), not the table's mean over the adjacent pairs
    line = next(x for x in swing_reading(swing, upsets) if x.startswith("dice_pool_7:"))
    pair = upsets[
        (upsets["system"] == "dice_pool_7")
        & (upsets["weaker"] == "novice")
        & (upsets["stronger"] == "competent")
    ].iloc[0]
    assert _pcts(line) == [pct(pair["p_upset_attacking"]), pct(pair["p_upset_defending"])]
    assert pct(attack) not in line
    # middle_3d10 (B5): the upset table gives the same P from both sides
    m = swing.set_index("system").loc["middle_3d10"]
    assert m["p_upset_adjacent"] == pytest.approx(m["p_upset_adjacent_defending"])
