"""Guardrails that compare (issue 29 item 4): ``versus = FIGHT`` / ``compare =
"difference" | "ratio"``, or two ``distances`` of one fight.

- The value is the two fights' own numbers, as the two ``rpg-balance duel`` commands of
  the row's ``reproduce`` print them (exact, to 1e-9), and the difference of two
  starting distances is that of the ``solve lethality --grid`` rows.
- Monte Carlo: each side its own stream; the SE of a difference is the root of the sum
  of the two squared SEs, and the value agrees with the exact difference within 5 SE.
- A failing comparison gets a cure that keeps it passing when the audit is re-run with
  the cure (``--set``), or says honestly that no cure was found.
- Bad files exit 2 with one line naming the key path; a ratio by a zero too.
- ``tune`` counts a knob that edits only the ``versus`` fight as touching the guardrail.
"""

from __future__ import annotations

import io
import math
import shlex
from pathlib import Path

import pandas as pd
import pytest

from analysis.workflow import audit
from analysis.workflow.scenario import load_scenario
from cli.main import main

FIGHTS = """
name = "compare"
seed = 1
[[fights]]
name = "armoured"
system = "d20_degrees"
a = {{ archetype = "competent", armour = "heavy" }}
b = "competent"
{exact}
[[fights]]
name = "unarmoured"
system = "d20_degrees"
a = "competent"
b = "competent"
{exact}
[[fights]]
name = "pistol"
system = "d20_degrees"
a = {{ archetype = "competent", weapon = "pistol" }}
b = "competent"
[[fights]]
name = "other_system"
system = "percentile"
a = "competent"
b = "competent"
"""

GUARD = """
[[guardrails]]
name = "{name}"
fight = "{fight}"
{extra}
metric = "{metric}"
{bounds}
reason = "test"
"""


def _file(tmp_path: Path, *guards: dict, exact: str = "") -> Path:
    text = FIGHTS.format(exact=exact)
    for i, g in enumerate(guards):
        text += GUARD.format(
            **{
                "name": f"g{i}",
                "fight": "armoured",
                "extra": "",
                "metric": "p_side0",
                "bounds": "min = 0.1",
                **g,
            }
        )
    p = tmp_path / "c.toml"
    p.write_text(text)
    return p


def _numbers(command: str, capsys) -> pd.DataFrame:
    words = shlex.split(command)
    assert words[0] == "rpg-balance"
    capsys.readouterr()
    assert main([*words[1:], "--format", "csv"]) == 0, command
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def test_difference_is_the_two_duel_commands_numbers(tmp_path, capsys):
    path = _file(
        tmp_path,
        {"extra": 'versus = "unarmoured"'},
        {"extra": 'versus = "unarmoured"\ncompare = "ratio"', "bounds": "min = 1.2"},
    )
    t = audit.evaluate([load_scenario(path)], suggestions=False, progress=False)
    for row, how in zip(t.to_dict("records"), ("difference", "ratio"), strict=True):
        one, two = row["reproduce"].split(" ; ")
        assert one.startswith("rpg-balance duel d20_degrees competent competent --armour-a heavy")
        assert two.startswith("rpg-balance duel d20_degrees competent competent ")
        a = float(_numbers(one, capsys)["p_side0"].iloc[0])
        b = float(_numbers(two, capsys)["p_side0"].iloc[0])
        assert b == pytest.approx(0.5, abs=1e-9)  # an even duel of equals
        want = a - b if how == "difference" else a / b
        assert row["value"] == pytest.approx(want, abs=1e-9)
        assert row["se"] == 0.0
        assert row["solved"] == "exact"
        assert row["status"] == "pass"
    words = t.attrs["comparisons"]["g0"]
    for said in (
        "of armoured minus that of unarmoured",
        "p_side0",
        "at least 0.100",
        f"{t.loc[0, 'value']:.3f}",
    ):
        assert said in words


def test_two_distances_of_one_fight(tmp_path, capsys):
    path = _file(
        tmp_path,
        {
            "fight": "pistol",
            "extra": 'compare = "difference"\ndistances = [20, 0]',
            "bounds": "min = -1\nmax = 1",
        },
    )
    t = audit.evaluate([load_scenario(path)], suggestions=False, progress=False)
    grid = _numbers(t.loc[0, "reproduce"], capsys)
    at = dict(zip(grid["value"].astype(int), grid["estimate"], strict=True))
    assert t.loc[0, "value"] == pytest.approx(at[20] - at[0], abs=1e-9)


def test_monte_carlo_difference_and_its_se(tmp_path):
    exact = audit.evaluate(
        [load_scenario(_file(tmp_path, {"extra": 'versus = "unarmoured"', "bounds": "min = 0.1"}))],
        suggestions=False,
        progress=False,
    ).loc[0, "value"]
    sc = load_scenario(
        _file(
            tmp_path,
            {"extra": 'versus = "unarmoured"', "bounds": "min = 0.1"},
            exact="exact = false",
        )
    )
    m = audit.measure(sc, sc.guardrails[0], 0, seed=sc.seed, batch=1_000)
    assert m["method"] == "mc"
    assert m["status"] == "pass"
    # independent streams: the SE of a difference is sqrt(se_a^2 + se_b^2)
    assert m["se"] == pytest.approx(math.hypot(*m["sides_se"]), rel=1e-12)
    assert m["value"] == pytest.approx(m["sides"][0] - m["sides"][1], abs=1e-12)
    # 5 SE: a fixed seed, and a 5-sigma miss is about 1 in 1.7 million
    assert abs(m["value"] - exact) <= 5 * m["se"]
    assert m["trials"] == sum(m["sides_trials"])


@pytest.mark.slow
def test_failing_comparison_gets_a_cure_that_keeps_it_passing(tmp_path, capsys):
    # heavy armour adds 0.224 to P(win) in d20_degrees melee; at most 0.2 fails
    path = _file(tmp_path, {"extra": 'versus = "unarmoured"', "bounds": "max = 0.2"})
    t = audit.evaluate([load_scenario(path)], files=[str(path)], progress=False)
    row = t.iloc[0]
    assert row["status"] == "fail"
    assert row["suggestion"].startswith(
        "the chance that fighter A wins (p_side0) of "
        "armoured minus that of unarmoured: 0.724 − 0.500 "
        "= 0.224, limit at most 0.200; "
    )
    assert row["cure"].startswith("rpg-balance audit ")
    edit = shlex.split(row["cure"])[-1]
    capsys.readouterr()
    out = tmp_path / "cured.csv"
    assert main(["audit", str(path), "--set", edit, "--no-progress", "-o", str(out)]) == 0
    cured = pd.read_csv(out)
    assert cured.loc[0, "status"] == "pass"
    assert cured.loc[0, "value"] <= 0.2


@pytest.mark.slow
def test_no_cure_is_said(tmp_path):
    path = _file(tmp_path, {"extra": 'versus = "unarmoured"', "bounds": "min = 0.9"})
    t = audit.evaluate([load_scenario(path)], progress=False)
    assert t.loc[0, "status"] == "fail"
    assert "no cure within the searched range" in t.loc[0, "suggestion"]
    assert t.loc[0, "cure"] == ""


@pytest.mark.parametrize(
    ("guard", "where"),
    [
        (
            {"extra": 'versus = "unarmored"'},
            "guardrails[0].versus: no [[fights]] entry 'unarmored' (did you mean 'unarmoured'",
        ),
        (
            {"extra": 'versus = "other_system"'},
            "guardrails[0].versus: p_side0 of a d20_degrees "
            "fight and a percentile fight do not compare",
        ),
        ({"extra": 'versus = "armoured"'}, "guardrails[0].versus: a fight compared with itself"),
        (
            {"extra": 'compare = "difference"\ndistances = [0]'},
            "guardrails[0].distances: a comparison without versus = FIGHT needs two distances",
        ),
        (
            {"extra": 'versus = "unarmoured"\ncompare = "ratio"', "bounds": "min = -1"},
            "guardrails[0].min: -1.0: a ratio of metrics is never negative",
        ),
        ({"extra": 'versus = "unarmoured"\ncompare = "quotient"'}, "guardrails[0].compare"),
        # one pistol attack never kills in d20_degrees (exact 0): a ratio by a zero
        (
            {"extra": 'versus = "pistol"\ncompare = "ratio"', "metric": "p_one_hit_kill"},
            "guardrails[0]: a ratio by zero: p_one_hit_kill of pistol is 0",
        ),
    ],
)
def test_bad_files_exit_2_with_one_line(tmp_path, capsys, guard, where):
    path = _file(tmp_path, guard)
    capsys.readouterr()
    assert main(["audit", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert where in err, err
    assert "Traceback" not in err


def test_a_check_guardrail_does_not_compare(tmp_path, capsys):
    path = _file(tmp_path)
    path.write_text(
        path.read_text()
        + """
[[checks]]
name = "c"
system = "d20_degrees"
axes = { modifier = [6], dc = [15], degree = [1] }
[[guardrails]]
name = "cc"
check = "c"
versus = "unarmoured"
metric = "p_success"
min = 0.1
"""
    )
    capsys.readouterr()
    assert main(["audit", str(path), "--no-progress"]) == 2
    assert "guardrails[0].check: only a fight guardrail compares" in capsys.readouterr().err


def test_tune_counts_a_knob_of_the_versus_fight(tmp_path):
    from analysis.workflow.tune import tune_problems

    path = _file(tmp_path, {"extra": 'versus = "unarmoured"'})
    path.write_text(
        path.read_text()
        + """
[tune]
knobs = [{ knob = "unarmoured:variant.surprise", values = ["none", "side0"] }]
"""
    )
    problems, _knobs, touched = tune_problems(load_scenario(path))
    assert not problems
    assert touched == [(0,)]


def test_tune_honours_a_comparison(tmp_path, capsys):
    """Heavy armour adds 0.224 to P(win) in d20_degrees melee; at most 0.2 fails. The
    surprise attack (E-g16) is a rule of both fights: tune's first row passes, and its
    ``rpg-balance audit --set`` command, re-run, passes too (the oracle is the audit)."""
    from analysis.workflow import tune

    path = _file(tmp_path, {"extra": 'versus = "unarmoured"', "bounds": "max = 0.2"})
    path.write_text(
        path.read_text()
        + """
[tune]
[[tune.knobs]]
knob = "d20_degrees:variant.surprise"
values = ["none", "side0", "side1"]
"""
    )
    result = tune.tune(tune.load_tune(path), method="exact")
    assert result.feasible
    row = result.table.iloc[0]
    assert row["g0 status"] == "pass"
    words = shlex.split(row["reproduce"])
    assert words[:3] == ["rpg-balance", "audit", str(path)]
    capsys.readouterr()
    assert main([*words[1:], "--no-progress"]) == 0


@pytest.mark.slow
def test_the_reports_reading_names_both_fights(tmp_path):
    from reports.sections.key_findings import key_findings_reading

    path = _file(tmp_path, {"extra": 'versus = "unarmoured"', "bounds": "max = 0.2"})
    t = audit.evaluate([load_scenario(path)], progress=False)
    said = [str(r) for r in key_findings_reading(t, file="c.toml")]
    failure = next(s for s in said if s.startswith("g0: "))
    assert (
        "of armoured minus that of unarmoured: 0.724 − 0.500 = 0.224, limit at most "
        "0.200 (test). Cure: the surprise attack (E-g16)"
    ) in failure
