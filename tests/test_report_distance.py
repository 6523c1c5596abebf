"""The report's *Distance and cover* section: a shooter against a charger at each starting
distance (RULES.md "Distance, movement and cover"), its sentences reproducible from the
command in their small print."""

from __future__ import annotations

import io
import re
import shlex

import pandas as pd
import pytest

from analysis.combat.lethality import distance_systems, has_distance
from cli.main import main
from reports.i18n import language
from reports.sections.distance import DISTANCES, section_distance
from reports.settings import ReportSettings
from reports.structure import Figure, Reading

SYSTEMS = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")


@pytest.fixture(scope="module")
def section():
    return section_distance(ReportSettings(systems=SYSTEMS))


def test_every_system_is_in_it_or_says_why(section):
    text = " ".join(section.reading)
    for system in SYSTEMS:
        assert f"{system}:" in text
        if not has_distance(system):
            assert f"{system}: its fights start engaged" in text


def test_sentences_are_the_numbers_their_command_prints(section, capsys):
    readings = [r for r in section.reading
                if isinstance(r, Reading) and r.small and "charging" in r]
    assert {r.split(":")[0] for r in readings} == set(distance_systems()) & set(SYSTEMS)
    for r in readings:
        words = shlex.split(r.small)
        capsys.readouterr()
        assert main([*words[1:], "--format", "csv"]) == 0
        t = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("distance")
        assert list(t.index) == list(DISTANCES)
        p0, p20 = re.findall(r"([\d.]+)% of", r)
        # shown to 3 significant digits; "more than 99.9%" above it
        assert float(p0) / 100 == pytest.approx(t.loc[0, "p_side0"], abs=1e-3)
        assert float(p20) / 100 == pytest.approx(t.loc[20, "p_side0"], abs=1e-3)
        assert "100%" not in r or t[["p_side0"]].max().item() == 1.0
        # "from N m on": the first distance where the shooter is the favourite
        m = re.search(r"from (\d+) m on", r)
        if m:
            first = int(m.group(1))
            assert t.loc[first, "p_side0"] > 0.5 + 1e-9
            assert (t.loc[:first - 1, "p_side0"] <= 0.5 + 1e-9).all()   # 0.5 is even


def test_armoured_shooter_sentences_are_the_numbers_their_command_prints(section, capsys):
    """The cross-combat matchup ``armoured_shooter``: each sentence's two shares are the
    rows its ``duel --table distance`` command prints; the systems without armour rules
    say so instead of a number."""
    readings = [r for r in section.reading
                if isinstance(r, Reading) and r.small and "armour=" in r]
    assert {r.split(":")[0] for r in readings} == {"dice_pool_7", "percentile",
                                                    "d20_degrees"} & set(SYSTEMS)
    for r in readings:
        words = shlex.split(r.small)
        assert words[1] == "duel"
        assert "--armour-a" in words
        capsys.readouterr()
        assert main([*words[1:], "--format", "csv"]) == 0
        t = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("distance")
        assert list(t.index) == [0, 10, 20, 40]
        shares = re.findall(r"(more than 99\.9|[\d.]+)% of", r)
        p0 = 0.9995 if shares[0] == "more than 99.9" else float(shares[0]) / 100
        assert p0 == pytest.approx(t.loc[0, "p_side0"], abs=1e-3)
        assert float(shares[1]) / 100 == pytest.approx(t.loc[40, "p_side0"], abs=1e-3)
        if "never wins" in r:
            assert t.loc[40, "p_side1"] == 0.0
    controls = [r for r in section.reading if "no armour rules" in str(r)]
    assert {r.split(":")[0] for r in controls} == {"dice_pool_6", "middle_3d10"} & set(SYSTEMS)
    tables = [b for b in section.blocks if getattr(b, "id", "") == "distance-armour"]
    assert len(tables) == 1


def test_figure_and_table(section):
    if not distance_systems():
        pytest.skip("no system with distance rules")
    figures = [b for b in section.blocks if isinstance(b, Figure)]
    assert len(figures) == 1
    assert figures[0].data[:8] == b"\x89PNG\r\n\x1a\n"


def test_in_pt_br():
    with language("pt-BR"):
        sec = section_distance(ReportSettings(systems=SYSTEMS))
    assert sec.title == "Distância e cobertura"
    for line in sec.reading:
        assert "start engaged" not in line, line
        assert "the shooter" not in line, line
