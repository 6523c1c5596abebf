"""Cures that keep the question (``rpg-balance audit``): a guardrail's own terms are held,
each cure is an ``--set`` edit whose command makes the guardrail pass, with its side
effects on the other guardrails, the share of check cells a rule variant moves, and the
edge of the range searched; discovered one-hit findings get cures the same way.

Rule ids exercised: E1 (d20_degrees: d20 + modifier >= DC), D1 (percentile: d100 <=
skill, a hard task at half the skill), B9 (middle_3d10 vigor), C1 (dice_pool_6 pools).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from analysis.checks.curves import AXES
from analysis.workflow import audit
from analysis.workflow.audit.cures import find_cures
from analysis.workflow.audit.edits import Edit, apply, parse
from analysis.workflow.audit.knobs import check_knobs
from analysis.workflow.scenario import load_scenario
from cli.main import main
from engines.errors import InputError
from engines.system import get

D20 = """
name = "d20 check"
[[checks]]
name = "expert_hard"
system = "d20_degrees"
axes = {{ modifier = [6], dc = [15], degree = [1] }}
[[guardrails]]
name = "expert meets DC 15"
check = "expert_hard"
metric = "p_success"
min = 0.7
{extra}
"""

TWO_ON_ONE_FIGHT = """
name = "glass"
[[fights]]
name = "glass"
system = "middle_3d10"
a = "competent"
b = "competent"
[[guardrails]]
name = "long duel"
fight = "glass"
metric = "rounds_mean"
min = 2
[[guardrails]]
name = "not over in round 1"
fight = "glass"
metric = "p_rounds_between:1:1"
max = 0.95
"""

EDGE = """
name = "edge"
[[checks]]
name = "pro_regular"
system = "percentile"
axes = { skill = [80], level = ["regular"], dice = [0] }
[[guardrails]]
name = "nearly sure"
check = "pro_regular"
metric = "p_success"
min = 0.99
"""


def _write(tmp_path: Path, text: str, name: str = "g.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def _promised(sentence: str) -> tuple[float, float]:
    """The figure the first cure of a sentence promises, and how finely it is shown
    (a percentage to 3 significant digits, mean rounds to one decimal)."""
    m = re.search(r"which makes .*? ([\d.]+)(%| rounds)", sentence)
    assert m, sentence
    if m.group(2) == "%":
        return float(m.group(1)) / 100, 0.0006
    return float(m.group(1)), 0.051


def _run(cmd: str, capsys) -> tuple[int, pd.DataFrame]:
    """Run an ``rpg-balance audit …`` command line in-process; its CSV as a table."""
    import io

    words = shlex.split(cmd)
    assert words[:2] == ["rpg-balance", "audit"], cmd
    capsys.readouterr()
    code = main([*words[1:], "--format", "csv", "--no-suggest"])
    return code, pd.read_csv(io.StringIO(capsys.readouterr().out))


@pytest.fixture(scope="session")
def default_audit():
    return audit.evaluate(audit.load_guardrails(), progress=False)


@pytest.mark.slow
def test_every_default_cure_command_makes_its_guardrail_pass(default_audit, capsys):
    cured = default_audit[default_audit["cure"] != ""]
    assert len(cured) >= 2, default_audit[["guardrail", "status", "suggestion"]]
    for r in cured.itertuples(index=False):
        code, after = _run(r.cure, capsys)
        row = after[after["guardrail"] == r.guardrail].iloc[0]
        assert row["status"] == "pass", (r.cure, row)
        # the figure the cure text promises is the figure the command measures
        promised, fine = _promised(r.suggestion)
        assert row["value"] == pytest.approx(promised, abs=fine), (r.suggestion, row)
        assert code in (0, 1)


def test_no_default_cure_changes_a_guardrails_own_terms(default_audit):
    sc = audit.load_guardrails()[0]
    for g in sc.guardrails:
        row = default_audit[default_audit["guardrail"] == g.name].iloc[0]
        if not row["cure"]:
            continue
        edit = parse(shlex.split(row["cure"])[-1])
        t = audit.guardrail_target(sc, g)
        if t.kind == "check":
            ladder = get(t.system).ladder
            # the task's difficulty (and every other axis but competence) is held
            assert edit.knob == ladder.competence_axis or edit.knob.startswith("variant."), row[
                "cure"
            ]
            assert edit.knob != ladder.difficulty_axis
        else:
            assert not re.match(r"(a|b|both)\.(weapon|armour|tactic)$", edit.knob), row["cure"]
            assert edit.knob != "variant.aftermath"


def test_default_cures_say_what_they_found(default_audit):
    by = default_audit.set_index("guardrail")
    # B9: competent middle_3d10 fighters have vigor 4; an even knife duel lasts 1.10
    # rounds; the cure keeps the fighters and their knives and raises their vigor.
    s = by.loc["even duel length (middle_3d10)", "suggestion"]
    assert s.startswith("both fighters' Vigor (B9) from 4 to ")
    assert "weapon" not in s
    # D1: skill 80 at a hard task needs d100 <= 40: P 0.40. The level is held; even skill
    # 99 gives 49/100 < 0.5, so no cure is within the range searched, and it says so:
    # why (the nearest value reached, 49 % at skill 99), the ranges and what is held.
    s = by.loc["expert vs hard task (percentile)", "suggestion"]
    assert s.startswith(
        "no one-knob edit cures it: the nearest any searched value comes is "
        "49%, with the skill (D1) at 99 (searched: the skill (D1) 1–99"
    )
    assert s.endswith(
        "held as the question: the success level asked for (D1), the bonus and penalty dice (D4))"
    )
    assert "regular" not in s
    assert by.loc["expert vs hard task (percentile)", "cure"] == ""


def test_hand_worked_competence_cure_and_freed_difficulty(tmp_path):
    # E1: d20 + 6 >= 15 is 12 of 20 = 0.6 < 0.7. Held DC: the cure is modifier 6 -> 8
    # (d20 + 8 >= 15 on 7..20: 14 of 20 = 0.7).
    sc = load_scenario(_write(tmp_path, D20.format(extra="")))
    t = audit.evaluate([sc], progress=False)
    assert t.loc[0, "suggestion"].startswith(
        "the modifier (E1) from 6 to 8, which makes the chance to succeed 70%"
    )
    assert "DC" not in t.loc[0, "suggestion"]
    # free = ["dc"]: DC 15 -> 13 is one cure too (d20 + 6 >= 13: 14 of 20 = 0.7), two
    # steps like the modifier's; the competence axis comes first among equals
    sc = load_scenario(_write(tmp_path, D20.format(extra='free = ["dc"]')))
    t = audit.evaluate([sc], progress=False)
    assert (
        "or the DC (E1) from 15 to 13, which makes the chance to succeed 70%"
        in t.loc[0, "suggestion"]
    )
    # fixed = ["modifier", "variant.*"]: nothing left to search, and it says so
    sc = load_scenario(_write(tmp_path, D20.format(extra='fixed = ["modifier", "variant.*"]')))
    t = audit.evaluate([sc], progress=False)
    assert t.loc[0, "suggestion"].startswith("no one-knob cure: nothing is left to search")
    assert t.loc[0, "cure"] == ""


def test_check_knobs_hold_every_axis_but_competence():
    for system in AXES:
        ladder = get(system).ladder
        cell = {axis: next(iter(values)) for axis, values in AXES[system].items()}
        knobs, held = check_knobs(system, cell, None)
        names = {k.name for k in knobs}
        assert ladder.difficulty_axis in held
        assert ladder.difficulty_axis not in names
        assert {n for n in names if not n.startswith("variant.")} == {ladder.competence_axis}


def test_edge_of_the_range_is_said(tmp_path):
    # D1: skill 80 at a regular task is 80/100; at least 0.99 needs skill 99 (99/100),
    # the last value of the skill axis.
    t = audit.evaluate([load_scenario(_write(tmp_path, EDGE))], progress=False)
    assert t.loc[0, "suggestion"].startswith(
        "the skill (D1) from 80 to 99, which makes the chance to succeed 99% (the edge of the "
        "range searched, 1–99)"
    )


def test_side_effects_name_the_other_guardrails_of_the_edited_fight(tmp_path, capsys):
    p = _write(tmp_path, TWO_ON_ONE_FIGHT)
    t = audit.evaluate([load_scenario(p)], progress=False, files=[str(p)])
    row = t.set_index("guardrail").loc["long duel"]
    assert row["status"] == "fail"
    m = re.search(
        r"other guardrails: not over in round 1 ([\d.]+)% → ([\d.]+)% \(pass\)", row["suggestion"]
    )
    assert m, row["suggestion"]
    before = t.set_index("guardrail").loc["not over in round 1", "value"]
    assert float(m.group(1)) / 100 == pytest.approx(before, abs=6e-4)
    # the cure's own command measures the same "after"
    _code, after = _run(row["cure"], capsys)
    assert after.set_index("guardrail").loc["not over in round 1", "value"] == pytest.approx(
        float(m.group(2)) / 100, abs=6e-4
    )
    assert after.set_index("guardrail").loc["long duel", "status"] == "pass"


def test_rule_variant_cure_edits_the_whole_system_and_counts_check_cells(tmp_path):
    # dice_pool_6's threshold is a rule of every roll: held competence, the only cure of
    # a pool 8 / difficulty 5 check besides the pool is a rule variant; it states the
    # share of the system's check cells it moves.
    text = """
name = "pool"
[[checks]]
name = "hard"
system = "dice_pool_6"
axes = { pool = [8], difficulty = [5] }
[[guardrails]]
name = "expert hard"
check = "hard"
metric = "p_success"
min = 0.5
fixed = ["pool"]
"""
    sc = load_scenario(_write(tmp_path, text))
    found = find_cures(sc, sc.guardrails[0], {"value": 0.43})
    assert found.cures, found
    best = found.cures[0]
    assert best.knob.startswith("variant.")
    assert best.edit.target == "dice_pool_6"  # a rule edit: the system
    assert 0 < best.cells_moved <= 1
    assert "pool" in found.held or "pool" not in {c.knob for c in found.cures}


def test_set_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    p = _write(tmp_path, TWO_ON_ONE_FIGHT)
    for bad, says in (
        ("nonsense", "expected TARGET:KNOB=VALUE"),
        ("nosuch:both.vigor=8", "'nosuch'"),
        ("glass:both.vigor=99", "vigor"),
        ("glass:skill=3", "a fight takes"),
        ("percentile:variant.nosuch=1", "'percentile'"),
    ):
        capsys.readouterr()
        assert main(["audit", str(p), "--set", bad]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1, (bad, err)
        assert says in err, (bad, err)
        assert "Traceback" not in err


def test_fixed_and_free_lists_are_validated(tmp_path, capsys):
    p = _write(tmp_path, D20.format(extra='fixed = ["not a knob!"]'))
    assert main(["audit", str(p)]) == 2
    err = capsys.readouterr().err
    assert "guardrails[0].fixed[0]" in err
    assert "is not a knob" in err


def test_edits_do_not_change_their_inputs(tmp_path):
    sc = load_scenario(_write(tmp_path, TWO_ON_ONE_FIGHT))
    before = sc.model_dump()
    out = apply([sc], Edit("glass", "both.vigor", 8))
    assert sc.model_dump() == before
    assert out[0].fights[0].a == {"archetype": "competent", "vigor": 8}
    with pytest.raises(InputError, match="vigor"):
        apply([sc], Edit("glass", "both.vigor", 99))


def test_discovered_one_hit_findings_get_cures_that_reproduce():
    import subprocess
    import sys

    from analysis.workflow.audit.cures import discovered_cures
    from analysis.workflow.audit.discovery import one_hit_fights
    from analysis.workflow.audit.ladder_duels import ladder_specs

    cfg = {**audit.DEFAULT_DISCOVER}
    ladder = ladder_specs()
    table = pd.DataFrame(one_hit_fights("middle_3d10", cfg, ladder=ladder["middle_3d10"]))
    discovered_cures(table, cfg, ladder)
    duel = table[table["subject"] == "even duel"].iloc[0]
    # B9: the even knife duel ends in round 1 with P 0.882 >= one_round_duel; the cure
    # keeps the knives and raises both fighters' vigor
    assert duel["suggestion"].startswith("both fighters' Vigor (B9) from 4 to ")
    words = shlex.split(duel["cure"])
    out = subprocess.run(
        [sys.executable, "-m", "cli", *words[1:], "--format", "csv"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    grid = pd.read_csv(__import__("io").StringIO(out))
    assert grid["estimate"].iloc[0] == pytest.approx(duel["value"], abs=1e-12)
    assert grid["estimate"].iloc[1] < cfg["one_round_duel"]
    promised, fine = _promised(duel["suggestion"])
    assert grid["estimate"].iloc[1] == pytest.approx(promised, abs=fine)


@pytest.mark.slow
def test_designer_file_holds_what_it_fixes_and_frees(capsys):
    """scenarios/designer_guardrails.toml: twenty guardrails, a dozen failing; the
    ``fixed`` lists hold what they name, and the cure commands run."""
    path = Path(__file__).resolve().parents[1] / "scenarios" / "designer_guardrails.toml"
    t = audit.evaluate(audit.load_guardrails([path]), progress=False, files=[str(path)])
    assert len(t) == 20
    by = t.set_index("guardrail")
    # fixed = ["variant.threshold"]: the dice_pool_7 duel's cures never turn it
    s = by.loc["even duels last (dice_pool_7)", "suggestion"]
    assert by.loc["even duels last (dice_pool_7)", "status"] == "fail"
    assert s
    assert "success threshold" not in s
    # fixed = ["variant.*"]: only the competence axis is left
    s = by.loc["expert meets a hard task, rules held (dice_pool_6)", "suggestion"]
    assert s.startswith("the dice pool (C1) from 8 to 9, which makes the chance to succeed 56.2%")
    assert " or " not in s
    # without it the same check is offered the threshold rule too, with its cells moved
    s = by.loc["expert meets a hard task (dice_pool_6)", "suggestion"]
    assert "the success threshold (C-g1) from 6 to 5" in s
    assert "of the system's checks by more than one percentage point" in s
    # a side effect shown on a guardrail of the same fight (B9: vigor 4 -> 8)
    s = by.loc["even duels last (middle_3d10)", "suggestion"]
    assert "not over in round 1 (middle_3d10) 89.9% → 32% (pass)" in s
    for name in ("even duels last (middle_3d10)", "a novice meets an easy task (middle_3d10)"):
        _code, after = _run(by.loc[name, "cure"], capsys)
        assert after.set_index("guardrail").loc[name, "status"] == "pass"
