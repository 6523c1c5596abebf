"""Verdicts that see the costs of armour and guns (RULES.md "Distance, movement and
cover"): guardrails measured at every starting distance, and discovery judging armour,
tactics and ranged weapons in fights that start apart.

Rule ids exercised: AT1-AT3 and A13 (dice_pool_7: Deslocamento, armour "a custo de
mobilidade", range bands), DX15 and DX-g10 (percentile: firearm base ranges, the
shotgun's 4D6/2D6/1D6 bands), ET1-ET3 (d20_degrees movement and ranges).
"""

from __future__ import annotations

import io
import shlex

import pandas as pd
import pytest

from analysis.combat.lethality import distance_table
from analysis.workflow import audit
from analysis.workflow.audit.measuring import measure
from analysis.workflow.scenario import load_scenario
from cli.main import main
from engines.errors import InputError

ARMOUR = """
name = "armour apart"
[[fights]]
name = "knight_vs_shooter"
system = "{system}"
a = {a}
b = "competent_shooter"
[[guardrails]]
name = "armour has a price"
fight = "knight_vs_shooter"
metric = "p_side0"
max = {limit}
distances = {distances}
"""


def _scenario(tmp_path, **kw):
    p = tmp_path / "g.toml"
    p.write_text(ARMOUR.format(**kw), encoding="utf-8")
    return load_scenario(p), p


@pytest.mark.slow
def test_guardrail_holds_only_when_it_holds_at_every_distance(tmp_path):
    """The value is the figure of the distance farthest outside the limit; one failing
    distance fails the guardrail."""
    a = '{ archetype = "competent", armour = "heavy" }'
    ref = distance_table(
        "d20_degrees",
        {"archetype": "competent", "armour": "heavy"},
        "competent_shooter",
        [0, 20, 40],
    )
    by = dict(zip(ref["distance"], ref["p_side0"], strict=True))
    assert by[0] > by[40]  # the charger pays for the metres it must cross
    limit = (by[0] + by[40]) / 2  # passes far apart, fails engaged
    sc, _ = _scenario(tmp_path, system="d20_degrees", a=a, limit=limit, distances="[0, 20, 40]")
    m = measure(sc, sc.guardrails[0], 0)
    assert m["status"] == "fail"
    assert m["distance"] == max(by, key=by.get)
    assert m["value"] == pytest.approx(max(by.values()), abs=1e-12)
    assert m["by_distance"] == pytest.approx(by, abs=1e-12)
    sc, _ = _scenario(
        tmp_path, system="d20_degrees", a=a, limit=max(by.values()) + 0.01, distances="[0, 20, 40]"
    )
    assert measure(sc, sc.guardrails[0], 0)["status"] == "pass"


def test_reproduce_prints_the_distance_shown(tmp_path, capsys):
    """The value of a guardrail measured at several distances is the one farthest
    outside its limits; its command is the one-row grid at that distance, which prints
    exactly that value (``attrs["distances"]`` names the distance)."""
    a = '{ archetype = "competent", armour = 8 }'
    sc, _path = _scenario(tmp_path, system="percentile", a=a, limit=0.7, distances="[0, 10, 40]")
    table = audit.evaluate([sc], progress=False)
    row = table.iloc[0]
    words = shlex.split(row["reproduce"])
    assert words[:3] == ["rpg-balance", "solve", "lethality"]
    capsys.readouterr()
    assert main([*words[1:], "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    shown = table.attrs["distances"][row["guardrail"]]
    assert shown in (0, 10, 40)
    assert list(printed["value"]) == [shown]
    assert row["value"] == pytest.approx(printed["estimate"].item(), abs=1e-12)
    # the shown distance is the worst of the three: the other two are at most as high
    others = [d for d in (0, 10, 40) if d != shown]
    at = words.index("--values")
    grid = [*words[: at + 1], ",".join(map(str, others)), *words[at + 2 :]]
    assert main([*grid[1:], "--format", "csv"]) == 0
    rest = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert (rest["estimate"] <= printed["estimate"].item() + 1e-12).all()
    assert row["status"] == ("fail" if printed["estimate"].item() > 0.7 else "pass")


def test_default_guardrails_judge_the_heaviest_armour_apart():
    """The shipped guardrails: the heaviest armour of each system with armour rules
    against an equal shooter at 0/10/20/40 m. dice_pool_7's heavy archaic armour (A13:
    lethal 4, ballistic 2, Deslocamento -3 m, AT2) wins more than 99 % at every distance:
    the 3 m it costs a charger crossing 40 m are less than its protection is worth."""
    table = audit.evaluate(audit.load_guardrails(), progress=False, suggestions=False)
    table["distance_shown"] = [table.attrs["distances"].get(g) for g in table["guardrail"]]
    table = table.set_index("guardrail")
    for system in ("dice_pool_7", "percentile", "d20_degrees"):
        assert f"heaviest armour against a shooter ({system})" in table.index
    row = table.loc["heaviest armour against a shooter (dice_pool_7)"]
    assert row["status"] == "fail"
    assert row["value"] > 0.99
    # the figure shown is the worst distance's; its command prints that one
    assert f"--knob variant.distance --values {int(row['distance_shown'])} " in row["reproduce"]


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("distances = [0, 500]", "guardrails[0].distances: 500: expected whole metres 0..200"),
        ("distances = [10, 10]", "guardrails[0].distances: a distance is listed twice"),
    ],
)
def test_bad_distances(tmp_path, extra, needle):
    p = tmp_path / "g.toml"
    p.write_text(
        ARMOUR.format(system="percentile", a='"competent"', limit=0.8, distances="[0]").replace(
            "distances = [0]", extra
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("]", r"\]")):
        load_scenario(p)


def test_one_hit_metric_takes_no_distances(tmp_path):
    p = tmp_path / "g.toml"
    p.write_text(
        ARMOUR.format(system="percentile", a='"competent"', limit=0.8, distances="[0, 20]").replace(
            'metric = "p_side0"', 'metric = "p_one_hit_kill"'
        ),
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="no starting distance moves"):
        load_scenario(p)


@pytest.mark.slow
def test_discovery_judges_gear_apart():
    """Armour and ranged weapons are judged engaged and 20 m apart (``distances``)."""
    cfg = {**audit.DEFAULT_DISCOVER}
    found = audit.dominated_options("percentile", cfg, "weapon")
    ranged = {f["subject"]: f for f in found if "ranged weapon" in str(f["detail"])}
    # DX15 / DX-g10: 20 m is 21.9 yards, past the shotgun's 20-yard band (1D6 there),
    # while the rifle (2D6+4, base range 110 yards) is at its full damage: engaged the
    # shotgun's 4D6 does better somewhere, apart the rifle does, so no ranged weapon
    # dominates the rifle (engaged only, the shotgun did)
    assert "rifle" not in ranged
    assert "engaged and 20 m apart" in str(ranged["handgun"]["detail"])
    arm = audit.dominated_options("dice_pool_7", cfg, "armour")
    light = next(f for f in arm if f["subject"] == "light_modern")
    assert "72 matchups" in str(light["detail"])
    # apart, light modern armour (no move cost) beats medium archaic (-2 m, AT2)
    # somewhere, so medium archaic no longer dominates it; heavy archaic still does
    assert light["by"] == "heavy_modern, heavy_archaic"
    # with no distances configured, the engaged-only verdict of before
    engaged = audit.dominated_options("dice_pool_7", {**cfg, "distances": []}, "armour")
    light0 = next(f for f in engaged if f["subject"] == "light_modern")
    assert light0["by"] == "heavy_modern, medium_archaic, heavy_archaic"
    assert "36 matchups" in str(light0["detail"])
