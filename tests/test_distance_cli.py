"""``rpg-balance duel --distance / --plan-a / --table distance``: the plumbing every
system's distance rules go through (RULES.md "Distance, movement and cover": the starting
distance is the combat variant ``distance``, a fighter's plan its trait ``plan``)."""

from __future__ import annotations

import pytest

from analysis.combat.lethality import distance_systems, has_distance
from cli.main import main
from engines.system import registry

COMBAT = [sid for sid, s in registry().items() if s.combat is not None]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--distance", "201"], "from 0 to 200"),
        (["--distance", "-1"], "from 0 to 200"),
        (["--distances", "0,10"], "only with --table distance"),
        (["--table", "distance", "--distances", ","], "metres separated by commas"),
        (["--plan-a", "jump"], "invalid choice"),
    ],
)
def test_bad_distance_options_are_one_line_exit_2(argv, says, capsys):
    system = (distance_systems() or COMBAT)[0]
    assert main(["duel", system, "competent", "competent", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert says in err, err


def test_distance_systems_are_those_with_the_variant():
    assert distance_systems() == [s for s in COMBAT if has_distance(s)]


@pytest.mark.parametrize("system", distance_systems())
def test_table_distance_gives_the_shooter_time_to_shoot(system, capsys):
    """A shooter holding against a melee fighter who must close the gap: starting 20 m
    apart gives the shooter turns of shots the engaged fight does not (RULES.md
    "Distance, movement and cover"); the table has one row per distance, and each row
    is the plain ``duel --distance D`` of the same fighters."""
    import io

    import pandas as pd

    argv = ["duel", system, "competent_shooter", "competent", "--format", "csv"]
    assert main([*argv, "--table", "distance", "--distances", "0,20"]) == 0
    t = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(t["distance"]) == [0, 20]
    assert t["p_side0"].iloc[1] > t["p_side0"].iloc[0] + 0.02
    assert main([*argv, "--distance", "20", "--columns", "p_side0"]) == 0
    one = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert one["p_side0"].iloc[0] == pytest.approx(t["p_side0"].iloc[1], abs=1e-15)


def test_a_plugin_with_distance_rules_takes_every_option(plugin_installed, capsys):
    """The example plug-in's combat declares the distance contract (its PD1–PD6:
    ``distance``, moves, reach, range bands, plans), so it is a system with distance
    rules and every distance option runs for it."""
    assert has_distance("pbta_2d6")
    assert "pbta_2d6" in distance_systems()
    for argv in (["--distance", "10"], ["--table", "distance"], ["--plan-a", "charge"]):
        capsys.readouterr()
        assert main(["duel", "pbta_2d6", "competent_shooter", "competent", *argv]) == 0, argv


def test_a_system_without_distance_rules_says_so(plugin_installed, capsys, monkeypatch):
    """A system whose combat variants have no ``distance`` (the contract's switch, read by
    ``lethality.has_distance``) fights engaged only: every distance option says so in one
    line, naming the systems that have distance rules."""
    import dataclasses

    from analysis.combat import archetypes

    real = archetypes.engine

    class Engaged:
        """The plug-in's combat module with the check's variants (no ``distance``)."""

        Variants = dataclasses.make_dataclass("Variants", [("weak_at", int, 7)])

    monkeypatch.setattr(archetypes, "engine", lambda s: Engaged if s == "pbta_2d6" else real(s))
    assert not has_distance("pbta_2d6")
    for argv in (["--distance", "10"], ["--table", "distance"], ["--plan-a", "kite"]):
        capsys.readouterr()
        assert main(["duel", "pbta_2d6", "competent", "competent", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, err
        assert "pbta_2d6 fights start engaged" in err, err
        assert "systems with distance rules: dice_pool_7" in err, err
