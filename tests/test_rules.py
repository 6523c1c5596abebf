"""Rules as data (analysis.rules, issue "Rules a designer can edit"): the rule tables of
each system's data file (A11/A13 gear of dice_pool_7, B8 categories of middle_3d10, C11,
DX3, E12), rules files, rule knobs and the everyone offsets.

The oracles are the package's own entries: an armour edited to another armour's ratings
must give exactly that armour's numbers; a weapon added ``like`` an existing one must give
exactly its numbers; everyone's Vigor +4 must equal giving both fighters Vigor + 4."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from cli_fuzz_support import cli_here

from analysis import rules
from analysis.combat import archetypes
from engines.errors import InputError
from engines.system import BUILT_IN

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    """``rpg-balance ARGS`` in this process from the folder ``cwd``
    (:func:`cli_fuzz_support.cli_here`; ``test_bad_rule_knobs_are_one_line_exit_2`` runs
    one in a real process too)."""
    return cli_here(*args, cwd=cwd)


def cli_process(*args) -> subprocess.CompletedProcess:
    """``rpg-balance ARGS`` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "cli", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def p_side0(system, a, b, rulesets=()):
    from analysis.workflow.fight_sweep import fight_point

    with rules.using(rulesets):
        return fight_point(system, a, b, {}, 50, "p_side0", exact=True)["metric"]


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("system", [s for s in BUILT_IN if s in archetypes.systems()])
def test_unedited_export_changes_nothing(system, tmp_path):
    """An export read back is no edit at all (empty rule set), for every built-in."""
    text = rules.export_text(system)
    p = write(tmp_path, "rules.toml", text)
    tomllib.loads(text)  # valid TOML
    rs = rules.load_file(p)
    assert rs.system == system
    assert not rs
    assert rs.changes == ()
    assert rs.everyone == ()


def test_unedited_export_keeps_outputs_byte_identical(tmp_path):
    p = tmp_path / "dp7.toml"
    r = cli("rules", "dice_pool_7", "--export", p)
    assert r.returncode == 0, r.stderr
    args = ("duel", "dice_pool_7", "competent_knight", "competent_shooter", "--format", "csv")
    plain, with_rules = cli(*args), cli(*args, "--rules", p)
    assert plain.returncode == 0
    assert with_rules.returncode == 0
    assert plain.stdout == with_rules.stdout


def test_armour_edited_to_another_armours_ratings_gives_its_numbers(tmp_path):
    """A13/AT2: heavy archaic armour given light modern armour's ratings (lethal 0,
    ballistic 1, no move cost) fights exactly as light modern armour does."""
    tables = rules.base_tables("dice_pool_7")
    light = {k: v for k, v in tables["armour"]["light_modern"].items() if k not in rules.DOC_KEYS}
    body = "\n".join(f"{k} = {light.get(k, 0)}" for k in ("lethal", "ballistic", "move"))
    p = write(tmp_path, "r.toml", f'system = "dice_pool_7"\n[armour.heavy_archaic]\n{body}\n')
    rs = rules.load_file(p)
    edited = p_side0(
        "dice_pool_7",
        {"archetype": "competent_swordsman", "armour": "heavy_archaic"},
        "competent_shooter",
        [rs],
    )
    other = p_side0(
        "dice_pool_7",
        {"archetype": "competent_swordsman", "armour": "light_modern"},
        "competent_shooter",
    )
    unedited = p_side0(
        "dice_pool_7",
        {"archetype": "competent_swordsman", "armour": "heavy_archaic"},
        "competent_shooter",
    )
    assert edited == other
    assert abs(edited - unedited) > 0.05  # the edit did something


def test_new_weapon_like_an_existing_one_gives_its_numbers(tmp_path):
    """A11: a crossbow added ``like = "light_ranged"`` is the pistol under another name,
    usable by name in a fight; with one more bonus point it is not."""
    p = write(
        tmp_path,
        "r.toml",
        'system = "dice_pool_7"\n[weapon.crossbow]\n'
        'like = "light_ranged"\n[weapon.arbalest]\nlike = "light_ranged"\nbonus = 2\n',
    )
    rs = rules.load_file(p)
    pistol = p_side0(
        "dice_pool_7",
        "competent_swordsman",
        {"archetype": "competent_swordsman", "weapon": "light_ranged"},
    )
    cross = p_side0(
        "dice_pool_7",
        "competent_swordsman",
        {"archetype": "competent_swordsman", "weapon": "crossbow"},
        [rs],
    )
    arb = p_side0(
        "dice_pool_7",
        "competent_swordsman",
        {"archetype": "competent_swordsman", "weapon": "arbalest"},
        [rs],
    )
    assert cross == pistol
    assert arb < pistol - 0.01  # the arbalest's wielder is fighter B: A wins less often
    with pytest.raises(InputError, match="unknown weapon 'crossbow'"):
        archetypes.combatant("dice_pool_7", "competent_swordsman", {"weapon": "crossbow"})


def test_everyone_offset_equals_giving_each_fighter_the_trait():
    """B9: everyone's Vigor +4 in middle_3d10 is both fighters' Vigor + 4 (the expert's
    own 5 → 9, the novice's 3 → 7), not one value for all."""
    rs = rules.RuleSet("middle_3d10").with_knob("everyone.Vigor", 4)
    assert rs.everyone == (("vigor", 4),)
    expert = archetypes.library("middle_3d10")["expert"].vigor
    novice = archetypes.library("middle_3d10")["novice"].vigor
    assert expert != novice
    by_rule = p_side0("middle_3d10", "expert", "novice", [rs])
    by_hand = p_side0(
        "middle_3d10",
        {"archetype": "expert", "vigor": expert + 4},
        {"archetype": "novice", "vigor": novice + 4},
    )
    assert by_rule == by_hand
    assert by_rule != p_side0("middle_3d10", "expert", "novice")


def test_rules_cli_prints_the_tables_with_rule_ids():
    r = cli("rules", "dice_pool_7", "--format", "json")
    assert r.returncode == 0, r.stderr
    import json

    rows = json.loads(r.stdout)
    row = next(
        x
        for x in rows
        if x["table"] == "armour" and x["entry"] == "heavy_archaic" and x["field"] == "ballistic"
    )
    # the seed's table (A13): heavy archaic armour, ballistic 2
    assert row["value"] == "2"
    assert "A13" in row["rule"]
    assert {x["table"] for x in rows} == {
        "weapon",
        "armour",
        "health",
        "movement",
        "attack",
        "defense",
        "dodge",
    }


def test_a_bad_rules_file_is_one_line_per_problem_exit_2(tmp_path):
    p = write(
        tmp_path,
        "bad.toml",
        'system = "dice_pool_7"\n[armour.heavy_archaic]\n'
        'lethal = "four"\nbalistic = 1\n[spells.x]\na = 1\n',
    )
    out = tmp_path / "out.csv"
    r = cli("duel", "dice_pool_7", "competent", "competent", "--rules", p, "-o", out)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert lines[0].startswith("error: bad.toml: armour.heavy_archaic.lethal: expected a whole")
    assert any("balistic: unknown field (did you mean 'ballistic'?)" in x for x in lines)
    assert any("spells: unknown table" in x for x in lines)
    assert len(lines) == 3
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_bad_rule_knobs_are_one_line_exit_2():
    g = "analysis/data/guardrails.toml"
    for knob, words in [
        ("dice_pool_7:rules.armour.heavy_archaic.balistic=1", "no field"),
        ("dice_pool_7:rules.armour.plate.lethal=1", "no armour 'plate'"),
        ("dice_pool_7:rules.armour.heavy_archaic.lethal=x", "whole number"),
        ("middle_3d10:everyone.vigor=9", "less than or equal to 10"),
        ("even_duel_middle_3d10:everyone.vigor=1", "target is a system"),
    ]:
        run = cli_process if words == "no field" else cli  # one in a process of its own
        r = run("audit", g, "--no-suggest", "--set", knob)
        assert r.returncode == 2, (knob, r.stderr)
        assert words in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.slow
def test_a_rule_knob_and_a_rules_file_agree(tmp_path):
    """``--set SYSTEM:rules.…`` and the same edit in a rules file give the same audit."""
    g = "analysis/data/guardrails.toml"
    p = write(tmp_path, "r.toml", 'system = "dice_pool_7"\n[armour.heavy_archaic]\nballistic = 1\n')
    cols = ("--no-suggest", "--columns", "guardrail,status,value")
    by_knob = cli("audit", g, *cols, "--set", "dice_pool_7:rules.armour.heavy_archaic.ballistic=1")
    by_file = cli("audit", g, *cols, "--rules", p)
    plain = cli("audit", g, *cols)
    assert by_knob.stdout == by_file.stdout != plain.stdout


def test_scenario_rules_key(tmp_path):
    write(tmp_path, "r.toml", 'system = "middle_3d10"\n[everyone]\nvigor = 4\n')
    sc = write(
        tmp_path,
        "g.toml",
        'name = "x"\nrules = ["r.toml"]\n[[fights]]\n'
        'name = "f"\nsystem = "middle_3d10"\na = "expert"\nb = "novice"\n'
        '[[guardrails]]\nname = "g"\nfight = "f"\nmetric = "p_side0"\nmin = 0.9\n',
    )
    r = cli("audit", sc, "--no-suggest", "--columns", "value,rule_edits")
    assert r.returncode == 0, r.stderr
    value, words = r.stdout.splitlines()[1].split(",", 1)
    rs = rules.RuleSet("middle_3d10").with_knob("everyone.vigor", 4)
    assert float(value) == pytest.approx(
        p_side0("middle_3d10", "expert", "novice", [rs]), abs=1e-12
    )
    assert "r.toml" in words
    assert "vigor +4" in words


@pytest.mark.slow
def test_tune_cures_the_armour_and_knife_guardrails_with_rules_and_audit_rules_agrees(tmp_path):
    """The shipped scenarios/tune_rules.toml: tune answers with rule edits only, and the
    answer, written as rules files, passes ``audit --rules``."""
    r = cli("tune", "scenarios/tune_rules.toml", "--format", "json")
    assert r.returncode == 0, r.stderr
    import json

    best = json.loads(r.stdout)[0]
    assert best["feasible"] in (True, "True")
    sets = [w for w in best["reproduce"].split() if ":" in w and "=" in w]
    assert sets
    assert all(":rules." in w or ":everyone." in w for w in sets)
    files = []
    for w in sets:
        system, _, rest = w.partition(":")
        knob, _, value = rest.partition("=")
        head, _, tail = knob.partition(".")
        if head == "everyone":
            text = f'system = "{system}"\n[everyone]\n{tail} = {value}\n'
        else:
            kind, entry, field = tail.split(".")
            text = f'system = "{system}"\n[{kind}.{entry}]\n{field} = {value}\n'
        files += ["--rules", write(tmp_path, f"{system}.toml", text)]
    audit = cli("audit", "scenarios/tune_rules.toml", "--no-suggest", *files)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert cli("audit", "scenarios/tune_rules.toml", "--no-suggest").returncode == 1


@pytest.mark.slow
def test_cure_search_offers_rule_edits():
    """The default guardrails' dice_pool_7 armour failure is cured in the rules (A11/A13
    fields of the gear its fight uses), and the middle_3d10 even duel by everyone's Vigor."""
    r = cli(
        "audit",
        "analysis/data/guardrails.toml",
        "--format",
        "json",
        "--columns",
        "guardrail,suggestion",
    )
    import json

    rows = {x["guardrail"]: x["suggestion"] or "" for x in json.loads(r.stdout)}
    armour = rows["heaviest armour against a shooter (dice_pool_7)"]
    assert "in the rules" in armour
    assert "every fighter's Vigor" in rows["even duel length (middle_3d10)"]


def test_rules_travel_with_bound_tasks():
    """A task run elsewhere (another thread, a worker) sees the rules in force where it
    was made (analysis.rules.bound)."""
    import threading

    rs = rules.RuleSet("dice_pool_7").with_knob("rules.armour.heavy_archaic.ballistic", 0)
    seen = {}

    def task():
        seen["rs"] = rules.active("dice_pool_7")

    with rules.using([rs]):
        fn = rules.bound(task)
    t = threading.Thread(target=fn)
    t.start()
    t.join()
    assert seen["rs"] is not None
    assert seen["rs"].key == rs.key
    assert rules.active("dice_pool_7") is None


SWEEP = """name = "armour sweep"
[[fights]]
name = "armour_vs_shooter"
system = "dice_pool_7"
a = { archetype = "competent_swordsman", armour = "heavy_archaic" }
b = "competent_shooter"
exact = true
[sweep]
fights = { "rules.armour.heavy_archaic.ballistic" = [0, 2], "everyone.CON" = [0, 1] }
"""


@pytest.mark.slow
def test_sweep_and_solve_take_rule_knobs(tmp_path):
    """A sweep cell and a lethality solve under a rule knob equal the same fight with the
    rule edited in force; the same on two Dask workers under --rules."""
    import io

    import pandas as pd

    sc = write(tmp_path, "s.toml", SWEEP)
    cols = "rules.armour.heavy_archaic.ballistic,everyone.CON,p_side0"
    r = cli("sweep", sc, "--no-progress", "--columns", cols)
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(io.StringIO(r.stdout))
    a = {"archetype": "competent_swordsman", "armour": "heavy_archaic"}
    for _, row in t.iterrows():
        rs = rules.RuleSet("dice_pool_7").with_knob(
            "rules.armour.heavy_archaic.ballistic", int(row.iloc[0])
        )
        rs = rs.with_knob("everyone.CON", int(row.iloc[1]))
        assert row["p_side0"] == pytest.approx(
            p_side0("dice_pool_7", a, "competent_shooter", [rs]), abs=1e-12
        )
    assert t["p_side0"].nunique() == 4
    # the rules of --rules reach worker processes
    edit = write(tmp_path, "r.toml", 'system = "dice_pool_7"\n[weapon.light_ranged]\nbonus = 3\n')
    here = cli("sweep", sc, "--no-progress", "--columns", cols, "--rules", edit)
    there = cli("sweep", sc, "--no-progress", "--columns", cols, "--rules", edit, "--workers", "2")
    assert here.returncode == 0, here.stderr
    assert there.returncode == 0, there.stderr
    assert here.stdout.splitlines()[1:] == there.stdout.splitlines()[1:]
    assert here.stdout != r.stdout

    from analysis.workflow.solvers import solve_lethality

    res, _table = solve_lethality(
        "dice_pool_7",
        a,
        "competent_shooter",
        "rules.armour.heavy_archaic.ballistic",
        [0, 1, 2, 3],
        0.8,
        goal="at_most",
        increasing=True,
    )
    assert res.knob == 0  # 0.50 at 0, 0.87 at 1 (the figures)


def test_everyone_offset_with_a_cap(tmp_path):
    """ "+4 Vigor, to at most 10" (B9; the sheet's Vigor runs to 10): a master (Vigor 6)
    reaches 10, a fighter at 9 stops at 10, and without the cap the master's 6 + 5 is
    one line naming the fighter."""
    p = write(
        tmp_path, "v.toml", 'system = "middle_3d10"\n[everyone]\nvigor = { offset = 5, max = 10 }\n'
    )
    rs = rules.load_file(p)
    assert rs.caps == (("vigor", None, 10),)
    assert "everyone's vigor +5 (at most 10)" in rs.words()
    with rules.using([rs]):
        master = archetypes.combatant("middle_3d10", "master")
        nine = archetypes.combatant("middle_3d10", {"archetype": "novice", "vigor": 9})
        seven = archetypes.combatant("middle_3d10", {"archetype": "novice", "vigor": 4})
    assert (master.vigor, nine.vigor, seven.vigor) == (10, 10, 9)
    strict = rules.RuleSet("middle_3d10").with_knob("everyone.vigor", 5)
    with rules.using([strict]), pytest.raises(InputError, match=r"master: .*vigor 6 → 11"):
        archetypes.combatant("middle_3d10", "master")
    # the export writes the cap back
    with rules.using([rs]):
        text = rules.export_text("middle_3d10")
    assert "vigor = { offset = 5, max = 10 }" in text


@pytest.mark.slow
def test_cure_search_turns_health_numbers_a_guardrail_frees(tmp_path):
    """B10: with ``free = ["rules.health.*"]`` the cure search also turns the system's
    health numbers — a lower massive-damage difficulty makes a first-round knockout
    rarer — and the cure's own command makes the guardrail pass; without ``free`` it
    does not search them."""
    body = (
        'name = "freed"\n[[fights]]\nname = "even_m3"\nsystem = "middle_3d10"\n'
        'a = "competent"\nb = "competent"\n[[guardrails]]\n'
        'name = "not over in round 1"\nfight = "even_m3"\n'
        'metric = "p_rounds_between:1:1"\nmax = 0.5\n'
    )
    import json

    held = write(tmp_path, "held.toml", body)
    freed = write(tmp_path, "freed.toml", body + 'free = ["rules.health.*"]\n')
    r = cli("audit", held, "--format", "json", "--columns", "suggestion")
    assert "massive damage" not in r.stdout
    import re

    r = cli("audit", freed, "--format", "json", "--columns", "suggestion")
    said = json.loads(r.stdout)[0]["suggestion"]
    m = re.search(r"massive damage's difficulty \(health, B10\) from 12 to (\d+)", said)
    assert m, said
    edit = f"middle_3d10:rules.health.massive_damage.difficulty={m.group(1)}"
    cure = cli("audit", freed, "--no-suggest", "--columns", "status", "--set", edit)
    assert cure.returncode == 0, cure.stdout + cure.stderr
    assert cli("audit", freed, "--no-suggest").returncode == 1
