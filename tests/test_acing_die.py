"""A system with a declared exception and a neutral that is not its axis's first value:
``acing_die`` (tests/acing_die.py, rules AD1, AD2), registered in process.

- Conformance: with its declared exception (``competence_monotone``: an acing d4 totals 6
  more often than a d6) every check passes, one pytest id per check; without it the ladder
  check fails at the first step that falls; the exception is no blanket pass (a die axis
  listed largest first still fails its weaker property); an axis without a declared
  neutral fails the ``neutral`` check.
- Neutral values: its modifier axis is listed from −4 with neutral 0; the difficulty
  solver, the report's plain views and the workbench read it at 0.

Hand values come from :func:`acing_die.p_total_at_least` (fractions, AD1/AD2), not from
the system's ``exact``.
"""

from __future__ import annotations

import dataclasses

import pytest
from acing_die import ACING, DICE, SYSTEM, UNDECLARED, p_total_at_least

from analysis.conformance import (
    CHECKS,
    ConformanceError,
    check_system,
    parametrize_with_checks,
)
from analysis.conformance.base import standing_in
from engines.errors import InputError
from engines.system import Known

TRIALS = 20_000
SEED = 20_261_206


@pytest.fixture
def acing():
    """acing_die registered for the test's duration (the registry restored after)."""
    with standing_in(ACING):
        yield ACING


# ------------------------------------------------------------------ conformance


@parametrize_with_checks([ACING], trials=TRIALS, seed=SEED)
def test_the_acing_die_conforms_with_its_declared_exception(system, check):
    result = check(system)  # a check that does not apply skips with its sentence
    assert result.status == "passed"
    if result.check == "ladder":
        # the exception is quoted, the steps that fall counted, the weaker property held
        assert "declared competence_monotone: acing (AD2)" in result.detail
        assert "the highest succeeds at least as often as the lowest everywhere" in result.detail


def test_each_check_is_one_pytest_id():
    mark = parametrize_with_checks([ACING, "pbta_2d6"])
    assert mark.args[0] == ("system", "check")
    assert [p.id for p in mark.args[1]] == [
        f"{s}-{c}" for s in (SYSTEM, "pbta_2d6") for c in CHECKS
    ]
    with pytest.raises(InputError, match="check 'ladders': unknown"):
        parametrize_with_checks([ACING], checks=["ladders"])


def test_without_its_declared_exception_the_ladder_check_fails():
    with pytest.raises(ConformanceError) as caught:
        check_system(UNDECLARED, trials=TRIALS, seed=SEED, checks=["ladder"])
    # AD1/AD2: at TN 4 and modifier -2 a total of 6 is needed: d4 3/16, d6 1/6
    assert p_total_at_least(4, 6) == pytest.approx(0.1875)
    assert p_total_at_least(6, 6) == pytest.approx(1 / 6)
    assert (
        "acing_die: ladder: competence axis 'die': 4 → 6 at tn=4, modifier=-2: "
        "P(success) falls from 0.1875 to 0.166667"
    ) in str(caught.value)
    assert caught.value.report.failed == ("ladder",)


def test_the_exception_still_holds_the_weaker_property():
    """Listed largest die first, the highest competence value (a d4 now) succeeds less
    often than the lowest (a d12): the declared exception does not excuse that."""
    reversed_dice = dataclasses.replace(
        ACING,
        checks=dataclasses.replace(
            ACING.checks, axes={**ACING.checks.axes, "die": tuple(reversed(DICE))}
        ),
    )
    with pytest.raises(ConformanceError) as caught:
        check_system(reversed_dice, trials=TRIALS, seed=SEED, checks=["ladder"])
    # TN 4, modifier -4: a total of 8: d12 5/12, d4 1/4 × 1/4 (4, then 4: an ace again)
    assert float(p_total_at_least(12, 8)) == pytest.approx(5 / 12)
    assert float(p_total_at_least(4, 8)) == pytest.approx(1 / 16)
    assert (
        "acing_die: ladder: competence axis 'die': 12 → 4 at tn=4, modifier=-4: "
        "P(success) falls from 0.416667 to 0.0625, though the declared exception "
        "competence_monotone"
    ) in str(caught.value)


def test_an_axis_without_a_neutral_fails_the_neutral_check():
    bare = dataclasses.replace(ACING, checks=dataclasses.replace(ACING.checks, neutral={}))
    with pytest.raises(ConformanceError) as caught:
        check_system(bare, trials=TRIALS, seed=SEED, checks=["grid", "neutral"])
    assert caught.value.report.failed == ("neutral",)
    assert (
        "acing_die: neutral: no neutral declared for axis 'modifier' (it would be held "
        "at its first value, -4)"
    ) in str(caught.value)
    # the competence and difficulty axes need none
    assert (
        check_system(ACING, checks=["neutral"])["neutral"].detail
        == "held at their neutral: modifier=0"
    )


def test_a_known_property_is_one_of_the_declared_kinds():
    with pytest.raises(
        InputError,
        match="known property 'acing': unknown; known: competence_monotone, difficulty_monotone",
    ):
        Known("acing", "a d4 reaches 6 more often than a d6")
    with pytest.raises(InputError, match="give its reason"):
        Known("competence_monotone", " ")


# ------------------------------------------------------------------ neutral values


def test_the_solver_holds_the_modifier_at_its_neutral(acing):
    from analysis.workflow.solvers import solve_difficulty

    t = solve_difficulty(0.5, "competent", SYSTEM)  # competent = d8 (the system's rungs)
    row = t.iloc[0]
    # AD1: d8 + 0 vs TN 5 is 4/8 exactly; at the first value (-4) the best would be TN 4
    # at P(total >= 8) = 1/8
    assert float(p_total_at_least(8, 5)) == 0.5
    assert (row["difficulty"], row["p"]) == ("5", 0.5)


def test_the_report_holds_the_modifier_at_its_neutral(acing):
    from reports.sections.native_spread import spread_task
    from reports.sections.success_curves import plain_panels

    (panel,) = plain_panels(ACING)
    assert (panel.x, panel.lines, dict(panel.fixed)) == ("die", "tn", {"modifier": 0})
    axis, fixed, label = spread_task(SYSTEM)
    assert (axis, fixed, label) == ("die", {"tn": 4, "modifier": 0}, "tn 4, modifier 0")


def test_the_workbench_starts_at_the_neutral(acing):
    from reports.workbench.model import default_check

    assert default_check(SYSTEM).axes == {"die": "all", "tn": "all", "modifier": "0"}


def test_a_neutral_must_be_a_value_of_its_axis():
    with pytest.raises(InputError, match=r"neutral modifier=9: not one of the axis's values"):
        dataclasses.replace(ACING.checks, neutral={"modifier": 9})
    with pytest.raises(InputError, match=r"neutral roll='normal': 'roll' is not an axis"):
        dataclasses.replace(ACING.checks, neutral={"roll": "normal"})
