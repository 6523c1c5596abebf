"""The example plug-in's rule tables (issue "Rules a designer can edit", item 2: a plug-in
declares its tables the way the built-ins do): ``pbta_2d6``'s hook names ``weapon`` and
``armour`` (PC3, PD4) and ``tactic`` (PC9, the harm a careful weak hit holds back) in its
``tables``, and ``rpg-balance rules``, ``--rules`` files and rule knobs reach them as they
reach a built-in's.

Oracles: the data file read with tomllib; an armour edited to another's points fights
exactly as that armour (PC3: harm minus armour); a weapon added ``like`` another fights
exactly as it; a careful weak hit's harm worked by hand from 2d6; Monte Carlo against
exact under an edit; a bad value is one line naming its key, exit 2."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from analysis import rules

ROOT = Path(__file__).resolve().parents[1]
DATA = tomllib.loads(
    (ROOT / "examples" / "plugin_system" / "pbta_2d6" / "archetypes.toml").read_text(
        encoding="utf-8"
    )
)
SYSTEM = "pbta_2d6"


def p_side0(a, b, rs=(), variants=None):
    from analysis.workflow.fight_sweep import fight_point

    with rules.using(list(rs)):
        return fight_point(SYSTEM, a, b, dict(variants or {}), 50, "p_side0", exact=True)["metric"]


def rules_file(tmp_path, body: str) -> Path:
    p = tmp_path / "pbta_rules.toml"
    p.write_text(f'system = "{SYSTEM}"\n{body}', encoding="utf-8")
    return p


def cli(site, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)])}
    return subprocess.run(
        [sys.executable, "-m", "cli", *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_hook_declares_weapon_and_armour(plugin_installed):
    """PC3: the declared tables are the data file's weapons and armour, every field as the
    file gives it."""
    from analysis.combat import archetypes

    declared = archetypes.hook(SYSTEM).tables
    assert declared == (
        ("weapon", "weapons", "PC3"),
        ("armour", "armour", "PC3"),
        ("tactic", "tactics", "PC9"),
    )
    t = rules.base_tables(SYSTEM)
    assert list(t) == ["weapon", "armour", "tactic"]
    assert t["weapon"] == DATA["weapons"]
    assert t["armour"] == DATA["armour"]
    assert t["tactic"] == DATA["tactics"]
    assert t["tactic"]["careful"]["harm_less"] == 1


def test_rules_command_prints_and_exports_the_tables(plugin_installed, tmp_path):
    """``rpg-balance rules pbta_2d6``: one row per field with its rule (the note's ids,
    PD4 for the range bands); an unedited export read back is no edit."""
    r = cli(plugin_installed, "rules", SYSTEM, "--format", "csv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("system,table,entry,field,value,rule")
    assert f'{SYSTEM},weapon,pistol,close,10,"PC3, PD4"' in r.stdout
    assert f"{SYSTEM},armour,heavy,points,2,PC3" in r.stdout
    fields = sum(
        len([k for k in e if k != "note"])
        for tab in ("weapons", "armour", "tactics")
        for e in DATA[tab].values()
    )
    assert len(lines) - 1 == fields
    p = tmp_path / "export.toml"
    assert cli(plugin_installed, "rules", SYSTEM, "--export", p).returncode == 0
    assert not rules.load_file(p)


def test_armour_edited_to_heavy_points_fights_as_heavy(plugin_installed, tmp_path):
    """PC3: the brawler's light armour edited to heavy armour's 2 points fights exactly as
    the brawler in heavy armour, and no longer as in light."""
    rs = rules.load_file(rules_file(tmp_path, "[armour.light]\npoints = 2\n"))
    edited = p_side0("competent_brawler", "competent", [rs])
    oracle = p_side0({"archetype": "competent_brawler", "armour": "heavy"}, "competent")
    assert edited == pytest.approx(oracle, abs=1e-12)
    assert edited != pytest.approx(p_side0("competent_brawler", "competent"))


def test_a_weapon_added_like_another_fights_as_it(plugin_installed, tmp_path):
    """PC3, PD4: a crossbow added ``like = "rifle"`` gives the rifle's numbers from 40 m;
    the same knob on the new entry (harm 2) moves them."""
    rs = rules.load_file(rules_file(tmp_path, '[weapon.crossbow]\nlike = "rifle"\n'))
    v = {"distance": 40}
    edited = p_side0({"archetype": "competent_shooter", "weapon": "crossbow"}, "competent", [rs], v)
    oracle = p_side0({"archetype": "competent_shooter", "weapon": "rifle"}, "competent", (), v)
    assert edited == pytest.approx(oracle, abs=1e-12)
    weaker = rs.with_knob("rules.weapon.crossbow.harm", 2)
    lower = p_side0(
        {"archetype": "competent_shooter", "weapon": "crossbow"}, "competent", [weaker], v
    )
    assert lower < edited


@pytest.mark.parametrize("less", [0, 1, 2])
def test_careful_harm_less_in_one_roll_hand_worked(plugin_installed, less):
    """PC4, PC5, PC9: the competent duellist (+1, light melee harm 2, careful) against an
    unarmoured foe: 2d6 + 1 ≥ 10 (2d6 ≥ 9: 10/36) strikes for 2, 7–9 (2d6 6..8: 16/36)
    for 2 − harm_less, never below 0."""
    from pbta_2d6 import combat

    from analysis.combat import archetypes

    rs = rules.RuleSet(SYSTEM).with_knob("rules.tactic.careful.harm_less", less)
    with rules.using([rs]):
        a = archetypes.combatant(SYSTEM, "competent_duellist", {})
        b = archetypes.combatant(SYSTEM, "competent", {})
    assert (a.tactic, a.careful_less) == ("careful", less)
    p = combat.attack_damage(a, b)
    want = [0.0] * 3
    want[2] += 10 / 36
    want[max(2 - less, 0)] += 16 / 36
    want[0] += 10 / 36  # 2d6 + 1 ≤ 6
    assert p.tolist() == pytest.approx(want[: p.size], abs=1e-12)
    assert p.sum() == pytest.approx(1)


def test_careful_edit_exact_and_monte_carlo_agree(plugin_installed):
    """PC9 edited (harm_less 1 → 2): the exact chain and the kernel read the same number
    (every outcome within 5 SE + 1/n), and the edit moves the duel."""
    from pbta_2d6 import combat

    from analysis.combat import archetypes

    n = 20_000
    spec = {"archetype": "competent", "tactic": "careful"}
    rs = rules.RuleSet(SYSTEM).with_knob("rules.tactic.careful.harm_less", 2)
    with rules.using([rs]):
        a = archetypes.combatant(SYSTEM, spec, {})
        b = archetypes.combatant(SYSTEM, "expert", {})
    ex = combat.duel_exact(a, b).p_outcome()
    mc = combat.duel_mc(a, b, n, seed=5).p_outcome()
    for p, q in zip(ex, mc, strict=True):
        assert abs(q - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n
    plain = combat.duel_exact(archetypes.combatant(SYSTEM, spec, {}), b).p_outcome()
    assert ex[0] < plain[0] - 1e-3


def test_a_bad_value_is_one_line_exit_2(plugin_installed, tmp_path):
    """PC1: armour is 0..3 points; 9 is one line naming ``armour.light.points``, exit 2."""
    p = rules_file(tmp_path, "[armour.light]\npoints = 9\n")
    r = cli(plugin_installed, "duel", SYSTEM, "competent_brawler", "competent", "--rules", p)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "pbta_rules.toml: armour.light.points" in lines[0]
    assert "Traceback" not in r.stderr
