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


@pytest.mark.slow
def test_every_system_is_in_it_or_says_why(section):
    text = " ".join(section.reading)
    for system in SYSTEMS:
        assert f"{system}:" in text
        if not has_distance(system):
            assert f"{system}: its fights start engaged" in text


@pytest.mark.slow
def test_sentences_are_the_numbers_their_command_prints(section, capsys):
    readings = [
        r for r in section.reading if isinstance(r, Reading) and r.small and "charging" in r
    ]
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
            assert (t.loc[: first - 1, "p_side0"] <= 0.5 + 1e-9).all()  # 0.5 is even


@pytest.mark.slow
def test_armoured_shooter_sentences_are_the_numbers_their_command_prints(section, capsys):
    """The cross-combat matchup ``armoured_shooter``: each sentence's two shares are the
    rows its ``duel --table distance`` command prints; the systems without armour rules
    say so instead of a number."""
    readings = [r for r in section.reading if isinstance(r, Reading) and "--armour-a" in r.small]
    # the fighters in words, never the label's ids
    assert not any("armour=" in r or "weapon=" in r for r in readings)
    assert {r.split(":")[0] for r in readings} == {
        "dice_pool_7",
        "percentile",
        "d20_degrees",
    } & set(SYSTEMS)
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


@pytest.mark.slow
def test_figure_and_table(section):
    if not distance_systems():
        pytest.skip("no system with distance rules")
    figures = [b for b in section.blocks if isinstance(b, Figure)]
    assert len(figures) == 1
    assert figures[0].data[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_in_pt_br():
    with language("pt-BR"):
        sec = section_distance(ReportSettings(systems=SYSTEMS))
    assert sec.title == "Distância e cobertura"
    for line in sec.reading:
        assert "start engaged" not in line, line
        assert "the shooter" not in line, line


def _csv(capsys, command: str) -> pd.DataFrame:
    words = shlex.split(command)
    capsys.readouterr()
    assert main([*words[1:], "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


@pytest.mark.slow
def test_cover_is_shown_where_a_system_has_a_cover_rule(section):
    """A system whose rules have no cover refuses the plan (dice_pool_7: "the seed of
    dice_pool_7 has no cover rule", A6/AT1) and is named as such; one that has cover
    (CT1/CT-g2, DX16/DX-g12, ET3/ET-g1) gets its rows and the title says "cover" —
    with no such system the title is "Distance"."""
    from analysis.combat.lethality import duel_table
    from engines.errors import InputError
    from reports.sections.distance import cover_frame, takes_cover

    with_cover = [s for s in SYSTEMS if has_distance(s) and takes_cover(s)]
    assert "dice_pool_7" not in with_cover
    with pytest.raises(InputError, match="no cover rule"):
        duel_table(
            "dice_pool_7",
            {"archetype": "competent_shooter", "plan": "cover"},
            "competent_swordsman",
            "exact",
        )
    ids = {getattr(b, "id", "") for b in section.blocks}
    if with_cover:
        assert section.title == "Distance and cover"
        assert {"distance-cover", "distance-cover-shooter"} <= ids
        text = " ".join(section.reading)
        assert "no cover rule, so no cover rows" in text
        assert "dice_pool_7" in text
    else:
        assert section.title == "Distance"
    no_cover = section_distance(ReportSettings(systems=("dice_pool_7",)))
    assert no_cover.title == "Distance"
    assert cover_frame(("dice_pool_7",)).empty


@pytest.mark.slow
def test_cover_sentences_are_the_numbers_their_commands_print(section, capsys):
    """Each cover sentence cites four shares 20 m apart: in cover and holding, against the
    charger and against another shooter; its four commands print them in that order."""
    readings = [
        r for r in section.reading if isinstance(r, Reading) and r.small and ": in cover (" in r
    ]
    assert readings
    for r in readings:
        cmds = r.small.split(" ; ")
        assert len(cmds) == 4
        got = [float(_csv(capsys, c).set_index("distance").loc[20, "p_side0"]) for c in cmds]
        shares = re.findall(r"(more than 99\.9|[\d.]+)%", r)
        assert len(shares) == 4
        cited = [0.9995 if s == "more than 99.9" else float(s) / 100 for s in shares]
        # order in the sentence: charger in cover, holding; shooter in cover, both hold
        assert cited == pytest.approx(got, abs=1e-3)
        if "costs more here than the cover gives" in r:
            assert got[2] < got[3]


@pytest.mark.slow
def test_dice_pool_7_dip_is_the_short_band_edge(section, capsys):
    """dice_pool_7's shooter does worse from 20 m than from 15 m: AT-g1's short band of a
    light pistol ends at 18 m (20 yards), past it a shot loses 2 dice (3 dice → 1 die
    against the charger's Defense: P(hit) 0.784 → 0.4, A1: 1 − 0.6³ and 0.4). The
    reading names the edge and the rule; its commands print the numbers."""
    [r] = [
        r
        for r in section.reading
        if isinstance(r, Reading)
        and r.startswith("dice_pool_7: the shooter's chance falls from")
        and "15 m" in r
    ]
    assert "at a band edge" in r
    assert "AT-g1" in r
    assert "up to 18 m" in r
    curve, hit15, hit20 = r.small.split(" ; ")
    t = _csv(capsys, curve).set_index("distance")
    assert t.loc[20, "p_side0"] < t.loc[15, "p_side0"]
    h15 = float(_csv(capsys, hit15)["p_hit"].iloc[0])
    h20 = float(_csv(capsys, hit20)["p_hit"].iloc[0])
    assert h15 == pytest.approx(1 - 0.6**3, abs=1e-12)
    assert h20 == pytest.approx(0.4, abs=1e-12)
    assert f"{100 * h15:.1f}%" in r
    assert "40%" in r


@pytest.mark.slow
def test_every_dip_is_explained(section):
    """Each fall of a curve as the start moves away has its sentence: a band edge or the
    charge, with the system's rule ids."""
    from reports.sections.distance import DIP, distance_frame

    frame = distance_frame(SYSTEMS)
    text = " ".join(section.reading)
    for system, part in frame.groupby("system"):
        part = part.sort_values("distance")
        d, p = list(part["distance"]), list(part["p_side0"])
        for i in range(len(d) - 1):
            if p[i + 1] < p[i] - DIP:
                assert f"at {d[i]} m to " in text
                assert f"at {d[i + 1]} m " in text
                assert f"{system}: the shooter's chance falls from" in text


@pytest.mark.slow
def test_tables_print_chances_as_percentages(section):
    """Every chance of the distance, cover and armour tables reads as a percentage in
    the report's style (a fraction like 0.859 would be a second way to say a chance)."""
    from reports.structure import Table

    tables = [b for b in section.blocks if isinstance(b, Table)]
    assert tables
    for t in tables:
        values = [c for c in t.frame.columns if str(c) not in t.index]
        assert set(map(str, values)) <= t.percent_columns, t.id
        cell = t.frame[values[0]].dropna().iloc[0]
        shown = t.fmt(str(values[0]), float(cell))
        assert shown.endswith("%"), (t.id, shown)
        assert abs(float(shown.rstrip("%")) - 100 * cell) < 0.06, (t.id, shown, cell)
