"""One name for one thing on every command: -o/--output wherever a command writes,
--columns and --variant on every table command, one default worker count for run and
sweep, the same column names for the same quantity, and discoverable gear
(``rpg-balance gear``, ``duel --table weapons``)."""

from __future__ import annotations

import argparse
import io
from contextlib import redirect_stdout

import pandas as pd
import pytest

from cli.main import build_parser, main

#: Commands that print or write a table (file writers; ``run`` writes a folder).
TABLE_COMMANDS = [
    "systems",
    "curves",
    "opposed",
    "ladder",
    "modifiers",
    "claim-c7",
    "duel",
    "combat",
    "archetypes",
    "gear",
    "cross-combat",
    "sweep",
    "solve difficulty",
    "solve competence",
    "solve lethality",
    "tune",
]


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = sub
                out.update({f"{name} {k}": v for k, v in _subparsers(sub).items()})
    return out


@pytest.fixture(scope="module")
def commands():
    return _subparsers(build_parser())


def _options(p: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {s: a for a in p._actions for s in a.option_strings}


@pytest.mark.parametrize("name", TABLE_COMMANDS)
def test_every_table_command_has_output_and_columns(commands, name):
    opts = _options(commands[name])
    assert opts["-o"] is opts["--output"], name
    assert "--columns" in opts, name
    assert "--format" in opts, name


@pytest.mark.parametrize(
    "name",
    [
        "curves",
        "opposed",
        "ladder",
        "modifiers",
        "claim-c7",
        "duel",
        "combat",
        "cross-combat",
        "solve difficulty",
        "solve competence",
        "solve lethality",
        "report",
    ],
)
def test_every_table_command_takes_variants(commands, name):
    assert "--variant" in _options(commands[name]), name


def test_report_writes_with_o_and_keeps_out_as_an_alias(commands):
    opts = _options(commands["report"])
    assert opts["-o"] is opts["--output"] is opts["--out"]
    parser = build_parser()
    for flag in ("-o", "--output", "--out"):
        assert parser.parse_args(["report", flag, "somewhere"]).output == "somewhere"


def test_run_and_sweep_share_the_default_worker_count(commands):
    run = _options(commands["run"])["--workers"]
    sweep = _options(commands["sweep"])["--workers"]
    assert run.default is None
    assert sweep.default is None
    from cli import workflow
    from cli.common import DEFAULT_WORKERS

    parser = build_parser()
    for argv in (["run", "x.toml"], ["sweep", "x.toml"]):
        cluster = workflow.cluster_of(parser.parse_args(argv))
        assert cluster.workers == DEFAULT_WORKERS
    assert f"default {DEFAULT_WORKERS}" in run.help
    assert run.help == sweep.help


def _table(argv: list[str]) -> pd.DataFrame:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main([*argv, "--format", "csv"]) == 0
    buf.seek(0)
    return pd.read_csv(buf)


def test_columns_on_curves_keeps_exactly_those():
    t = _table(["curves", "d20_degrees", "--columns", "dc,modifier,degree,p"])
    assert list(t.columns) == ["dc", "modifier", "degree", "p"]
    # E1: d20 + 0 vs DC 11 succeeds (one degree) on 11..20: 10/20
    row = t[(t["modifier"] == 0) & (t["dc"] == 11) & (t["degree"] == 1)]
    assert row["p"].iloc[0] == pytest.approx(0.5)
    assert main(["curves", "d20_degrees", "--columns", "dc,nope"]) == 2


def test_columns_on_ladder():
    t = _table(["ladder", "--columns", "system,competence,difficulty,p"])
    assert list(t.columns) == ["system", "competence", "difficulty", "p"]


def test_gear_finds_the_pistol_class_of_dice_pool_7():
    """A designer looking for a pistol in dice_pool_7 finds the light_ranged class (A11)."""
    t = _table(["gear", "dice_pool_7"])
    pistol = t[t["note"].fillna("").str.contains("pistol")]
    assert list(pistol["name"]) == ["light_ranged"]
    assert pistol["kind"].iloc[0] == "weapon"
    # A11 the class; AT3 and AT-g1 its range band (a fight that starts apart)
    assert pistol["rules"].iloc[0] == "A11, AT3, AT-g1"
    # A11: light ranged is +1 (the data file's bonus), ballistic
    assert "bonus=1" in pistol["stats"].iloc[0]
    armour = t[t["kind"] == "armour"]
    assert len(armour) > 1
    # A13 every armour; AT2 the ones that cost mobility (move −1/−2/−3 m)
    assert set(armour["rules"]) == {"A13", "A13, AT2"}


@pytest.mark.parametrize(
    ("system", "armoured"),
    [
        ("dice_pool_7", True),
        ("middle_3d10", False),
        ("dice_pool_6", False),
        ("percentile", True),
        ("d20_degrees", True),
    ],
)
def test_gear_lists_every_weapon_and_the_armour_rules(system, armoured):
    from analysis.combat import archetypes

    t = _table(["gear", system])
    assert list(t.loc[t["kind"] == "weapon", "name"]) == archetypes.weapons(system)
    assert (t["kind"] == "armour").any() == armoured
    assert t["rules"].notna().all()


def test_duel_weapons_table_is_one_duel_per_weapon_of_a():
    """``duel --table weapons`` joins armour and tactics: each row is the duel with A
    holding that weapon, the same numbers as ``duel --weapon-a W``."""
    from analysis.combat import archetypes

    t = _table(["duel", "middle_3d10", "competent", "competent", "--table", "weapons"])
    weapons = archetypes.weapons("middle_3d10")
    assert list(t["weapon"]) == weapons
    for w in (weapons[0], weapons[-1]):
        one = _table(["duel", "middle_3d10", "competent", "competent", "--weapon-a", w])
        row = t[t["weapon"] == w].iloc[0]
        assert row["p_side0"] == pytest.approx(one["p_side0"].iloc[0], abs=1e-12)
        assert row["rounds_mean"] == pytest.approx(one["rounds_mean"].iloc[0], abs=1e-12)


def test_one_name_for_mean_rounds():
    """The fight metrics say rounds_mean, like every table's column (no mean_rounds)."""
    from analysis.combat import fights

    assert "rounds_mean" in fights.METRIC_NAMES
    assert "mean_rounds" not in fights.METRIC_NAMES


#: Table commands with cheap runs: with ``--columns`` naming every column of the output
#: (the provenance columns ``system``, ``variants``, ``method``, ``trials`` included) in
#: reverse order, the same table comes back reversed.
COLUMN_RUNS = [
    ["systems"],
    ["curves", "d20_degrees", "--variant", "natural_1_fails=false"],
    ["gear", "d20_degrees"],
    ["ladder", "--table", "anchor"],
    ["duel", "middle_3d10", "competent", "novice", "--table", "damage"],
    ["combat", "scenarios/combat/ambush_3v1.toml", "--trials", "300", "--seed", "1"],
    ["campaign", "percentile", "luck", "--sessions", "3"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "expert"],
    ["solve", "competence", "--system", "d20_degrees"],
]


@pytest.mark.parametrize("argv", COLUMN_RUNS, ids=[" ".join(a[:2]) for a in COLUMN_RUNS])
def test_columns_may_name_every_output_column(argv, monkeypatch):
    """``--columns`` refused ``variants`` (and the other provenance columns) although the
    output has them: any column of the output may be named, in any order."""
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    full = _table(argv)
    cols = list(reversed(full.columns))
    picked = _table([*argv, "--columns", ",".join(cols)])
    assert list(picked.columns) == cols
    pd.testing.assert_frame_equal(picked, full[cols])


def test_columns_names_the_provenance_columns():
    t = _table(
        [
            "curves",
            "d20_degrees",
            "--variant",
            "natural_1_fails=false",
            "--columns",
            "variants,system,p,method,trials",
        ]
    )
    assert list(t.columns) == ["variants", "system", "p", "method", "trials"]
    assert set(t["variants"]) == {"natural_1_fails=false"}
    assert set(t["system"]) == {"d20_degrees"}
    assert set(t["method"]) == {"exact"}
    assert set(t["trials"]) == {0}
    # exactly the named columns: no provenance column is added to them
    assert list(_table(["curves", "d20_degrees", "--columns", "p"]).columns) == ["p"]


def test_columns_keeps_the_parquet_provenance(tmp_path):
    """A parquet file records what produced it in its metadata, with or without
    ``--columns`` (the columns are exactly those named)."""
    out = tmp_path / "c.parquet"
    assert (
        main(
            [
                "curves",
                "d20_degrees",
                "--variant",
                "natural_1_fails=false",
                "--columns",
                "dc,p",
                "--format",
                "parquet",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    t = pd.read_parquet(out)
    assert list(t.columns) == ["dc", "p"]
    assert t.attrs["provenance"] == {
        "system": "d20_degrees",
        "variants": "natural_1_fails=false",
        "method": "exact",
        "trials": 0,
    }
