"""What a fight table says about itself: the fighters with their gear and overrides, the
variants in force and the aftermath policy, on ``duel`` and ``combat`` alike.

A number a designer cannot tie to the fight behind it is not a finding (docs: "Verdicts a
designer can act on"): each label is checked against the matchup file or the command line
that set it, and the weapon a label names against the fight that used it.
"""

from __future__ import annotations

import contextlib
import io
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[1]
MATCHUPS = sorted((ROOT / "scenarios" / "combat").glob("*.toml"))
SYSTEMS = ["dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees"]


def _table(argv: list[str]) -> pd.DataFrame:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([*argv, "--format", "csv"])
    assert rc == 0, err.getvalue()
    return pd.read_csv(io.StringIO(out.getvalue()))


def _matchup(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _spelled(value) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# ---------------------------------------------------------------- duel labels name the weapon


@pytest.mark.parametrize("system", SYSTEMS)
def test_duel_labels_name_the_weapon_the_fight_used(system):
    """Columns ``a`` and ``b`` name each fighter's weapon in every system (middle_3d10
    named none), and it is the weapon the fight ran with: the same duel with that weapon
    given as an override gives the same numbers and the same label."""
    weapons = set(_table(["gear", system]).query("kind == 'weapon'")["name"])
    plain = _table(["duel", system, "competent", "competent_shooter"])
    labelled = {}
    for side in ("a", "b"):
        label = plain.loc[0, side]
        name, _, rest = label.partition(" (")
        assert name == {"a": "competent", "b": "competent_shooter"}[side]
        given = dict(kv.split("=", 1) for kv in rest.rstrip(")").split(", ") if kv)
        assert given["weapon"] in weapons, label
        labelled[side] = given["weapon"]
    again = _table(
        [
            "duel",
            system,
            "competent",
            "competent_shooter",
            "--weapon-a",
            labelled["a"],
            "--weapon-b",
            labelled["b"],
        ]
    )
    assert again.loc[0, "a"] == plain.loc[0, "a"]
    assert again.loc[0, "b"] == plain.loc[0, "b"]
    for col in ("p_side0", "p_side1", "rounds_mean"):
        assert again.loc[0, col] == pytest.approx(plain.loc[0, col], abs=1e-12)


@pytest.mark.parametrize("system", ["middle_3d10", "d20_degrees"])
def test_duel_label_follows_a_weapon_override(system):
    weapons = list(_table(["gear", system]).query("kind == 'weapon'")["name"])
    for w in (weapons[0], weapons[-1]):
        t = _table(["duel", system, "competent", "competent", "--weapon-a", w, "--table", "rounds"])
        assert set(t["a"]) == {f"competent (weapon={w})"}


# ---------------------------------------------------------------- aftermath on every table


@pytest.mark.parametrize("table", ["summary", "rounds", "standing", "damage"])
@pytest.mark.parametrize("policy", ["leave", "first_aid", "finish"])
def test_every_duel_table_says_its_aftermath(table, policy):
    """``duel --table damage|standing`` lacked the ``aftermath`` column the summary has;
    now every fight table names the policy its fates ran under, for each method."""
    t = _table(
        [
            "duel",
            "percentile",
            "competent",
            "competent",
            "--table",
            table,
            "--aftermath",
            policy,
            "--method",
            "both",
            "--trials",
            "500",
            "--seed",
            "2",
        ]
    )
    assert set(t["aftermath"]) == {policy}
    assert set(t["method"]) == {"exact", "mc"}


@pytest.mark.parametrize("table", ["rounds", "standing", "damage"])
def test_combat_tables_say_their_aftermath_and_sides(table):
    path = ROOT / "scenarios" / "combat" / "ambush_3v1.toml"
    t = _table(
        [
            "combat",
            str(path),
            "--table",
            table,
            "--trials",
            "400",
            "--seed",
            "3",
            "--aftermath",
            "finish",
        ]
    )
    assert set(t["aftermath"]) == {"finish"}
    summary = _table(["combat", str(path), "--trials", "400", "--seed", "3"])
    assert set(t["side0"]) == set(summary["side0"])
    assert set(t["side1"]) == set(summary["side1"])


# ---------------------------------------------------------------- combat: variants and sides


@pytest.mark.parametrize("path", MATCHUPS, ids=[p.stem for p in MATCHUPS])
def test_combat_names_the_file_variants_in_force(path):
    """The ``variants`` column of a matchup's table lists the file's variants (it said
    ``defaults``), with a ``--variant`` given on the command line over them."""
    spec = _matchup(path)
    t = _table(["combat", str(path), "--trials", "300", "--seed", "1"])
    shown = set(t["variants"])
    assert len(shown) == 1
    text = shown.pop()
    for name, value in spec.get("variants", {}).items():
        assert f"{name}={_spelled(value)}" in text.split("; "), text
    if not spec.get("variants"):
        assert text == "defaults"
    over = _table(["combat", str(path), "--trials", "300", "--seed", "1", "--aftermath", "finish"])
    assert "aftermath=finish" in over.loc[0, "variants"].split("; ")


@pytest.mark.parametrize("path", MATCHUPS, ids=[p.stem for p in MATCHUPS])
def test_combat_side_labels_carry_the_file_overrides(path):
    """Each side's label names every fighter the file lists with the overrides the file
    gives it (``tactic = "attack_attack"`` → ``tactic=attack_attack``), counted when a
    fighter comes several times, and a trait-table fighter by its name and weapon."""
    spec = _matchup(path)
    row = _table(["combat", str(path), "--trials", "300", "--seed", "1"]).iloc[0]
    for side in ("side0", "side1"):
        label = row[side]
        for entry in spec[side]:
            entry = dict(entry)
            count = entry.pop("count", 1)
            if "traits" in entry:
                name = entry.pop("name")
                weapon = entry.pop("traits").get("weapon")
                assert f"{name} (weapon={weapon}" in label, label
            else:
                name = entry.pop("archetype")
                assert (f"{count} × {name} (" if count > 1 else f"{name} (") in label, label
            for key, value in entry.items():
                assert f"{key}={_spelled(value)}" in label, (key, label)


D20_MATCHUPS = [
    p
    for p in MATCHUPS
    if _matchup(p)["system"] == "d20_degrees" and "surprise" not in _matchup(p).get("variants", {})
]


def test_there_is_a_d20_matchup_to_try():
    assert D20_MATCHUPS


@pytest.mark.parametrize("value", ["none", "side0", "side1"])
@pytest.mark.parametrize("path", D20_MATCHUPS, ids=[p.stem for p in D20_MATCHUPS])
def test_d20_matchups_take_every_surprise_value(path, value):
    """E-g16 ``--variant surprise=none`` was refused ("'none' is not allowed; choose none
    | side0 | side1"), and so was any ``--variant`` on a d20 matchup file (the file's
    variants are merged with the command line's and validated again)."""
    t = _table(
        ["combat", str(path), "--variant", f"surprise={value}", "--trials", "300", "--seed", "1"]
    )
    assert f"surprise={value}" in t.loc[0, "variants"].split("; ")
    other = _table(
        [
            "combat",
            str(path),
            "--variant",
            "initiative_ties=listed",
            "--trials",
            "300",
            "--seed",
            "1",
        ]
    )
    assert "initiative_ties=listed" in other.loc[0, "variants"].split("; ")


def test_d20_surprise_changes_the_fight():
    """The surprise variant reaches the engine: side 1 surprising side 0 (E16, E17) lowers
    side 0's wins below what it wins when side 0 surprises, at a fixed seed, by far more
    than five standard errors of the difference."""
    import math

    path = D20_MATCHUPS[0]
    n = 4000
    p = {
        v: _table(
            ["combat", str(path), "--variant", f"surprise={v}", "--trials", str(n), "--seed", "4"]
        ).loc[0, "p_side0"]
        for v in ("side0", "side1")
    }
    se = math.sqrt(sum(q * (1 - q) / n for q in p.values()))
    assert p["side0"] - p["side1"] > 5 * se
