"""A system built here, registered for the test (``engines.system.registered``), runs the
check tables through the same generic path as the five built-in systems: success curves
(exact and Monte Carlo), the modifier table, the difficulty solver and its inverse, and
the opposed table refuses it in one sentence because it declares no opposed rule.

The fake system ``d6_target`` (this file's own rule ids):

- T1 Roll 1d6 and add the modifier; the check succeeds when the total reaches the target.
- T2 A natural 6 always succeeds (variant ``crit_six``, default true).

So for a modifier m and target t, P = #{faces f in 1..6 : f + m >= t or (T2 and f = 6)} / 6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest

import engines.system as system_mod
from analysis.checks import curves, modifiers, opposed
from analysis.workflow import solvers
from engines.errors import InputError
from engines.system import Checks, Difficulty, Ladder, Modifier, System
from engines.variants import variant

SYSTEM = "d6_target"
FACES = np.arange(1, 7)


@dataclass(frozen=True)
class Variants:
    system: ClassVar[str] = SYSTEM
    crit_six: bool = variant(True, rule="T2", doc="a natural 6 always succeeds")


def exact(settings, variants=None):
    """One roll setting ("roll"); codes 0..5 are faces 1..6, each 1/6."""
    return np.full((len(np.atleast_1d(settings)), 6), 1 / 6)


def monte_carlo(settings, trials, seed=None, variants=None):
    rng = np.random.default_rng(seed)
    return np.stack(
        [np.bincount(rng.integers(0, 6, size=trials), minlength=6) for _ in np.atleast_1d(settings)]
    )


def check_grid(cells, variants):
    """T1, T2: face + modifier >= target, or a natural 6 under ``crit_six``."""
    mods = np.asarray(cells["modifier"])[:, None]
    target = np.asarray(cells["target"])[:, None]
    mask = FACES[None, :] + mods >= target
    if variants.crit_six:
        mask = mask | (FACES == 6)[None, :]
    return np.array(["roll"]), np.zeros(len(mods), dtype=np.int64), mask, FACES.astype(float)


def difficulty_axes():
    vals = tuple(range(2, 10))
    return (Difficulty("target", vals, tuple(f"{t}+" for t in vals), (4, 6)),)


FAKE = System(
    id=SYSTEM,
    name="1d6 + modifier vs a target",
    checks=Checks(
        module=__name__,
        axes={"modifier": range(0, 4), "target": range(2, 10)},
        grid=check_grid,
        modifiers=(
            Modifier("+1 bonus", "T1", shifts={"modifier": 1}),
            Modifier("-1 target", "T1", shifts={"target": -1}, at_least={"target": 2}),
            Modifier("second try", "T1", attempts=2),
        ),
    ),
    ladder=Ladder(
        competence_axis="modifier",
        difficulty_axis="target",
        rungs={"untrained": 0, "novice": 0, "competent": 1, "expert": 2, "master": 3},
        difficulty_axes=difficulty_axes,
        competence_search=("modifier", range(0, 6)),
    ),
)


@pytest.fixture
def fake():
    with system_mod.registered(FAKE):
        yield FAKE


def _p(t, cell, col="p"):
    rows = t
    for k, v in cell.items():
        rows = rows[rows[k] == v]
    assert len(rows) == 1, cell
    return float(rows[col].iloc[0])


def test_curves_exact_by_hand(fake):
    t = curves.success_curves(SYSTEM)
    assert list(t.columns) == ["system", "modifier", "target", "p"]
    assert len(t) == 4 * 8
    # modifier 0, target 4: faces 4, 5, 6
    assert _p(t, {"modifier": 0, "target": 4}) == pytest.approx(3 / 6, abs=1e-15)
    # modifier 2, target 7: faces 5, 6
    assert _p(t, {"modifier": 2, "target": 7}) == pytest.approx(2 / 6, abs=1e-15)
    # modifier 0, target 8: no face reaches 8, but a natural 6 succeeds (T2)
    assert _p(t, {"modifier": 0, "target": 8}) == pytest.approx(1 / 6, abs=1e-15)
    # modifier 3, target 2: every face
    assert _p(t, {"modifier": 3, "target": 2}) == pytest.approx(1.0, abs=1e-15)
    off = curves.success_curves(SYSTEM, variants={"crit_six": False})
    assert _p(off, {"modifier": 0, "target": 8}) == 0.0  # T2 off: nothing reaches 8


def test_curves_monte_carlo_agrees(fake):
    n = 20_000
    t = curves.success_curves(SYSTEM, "both", trials=n, seed=7)
    for p_exact, p_mc in zip(t["p_exact"], t["p_mc"], strict=True):
        tol = 5 * math.sqrt(p_exact * (1 - p_exact) / n) + 1 / n
        assert abs(p_mc - p_exact) <= tol
    again = curves.success_curves(SYSTEM, "mc", trials=n, seed=7)
    assert np.array_equal(again["p"].to_numpy(), t["p_mc"].to_numpy())  # same seed


def test_modifiers_by_hand(fake):
    t = modifiers.modifier_values(SYSTEM)
    assert list(t.columns) == [
        "system",
        "modifier",
        "rule",
        "bonus",
        "target",
        "p_base",
        "p_with",
        "delta_pp",
        "judged",
    ]
    assert set(t["modifier"]) == {"+1 bonus", "-1 target", "second try"}
    row = t[(t["modifier"] == "+1 bonus") & (t["bonus"] == 0) & (t["target"] == 4)].iloc[0]
    # base: faces 4..6 = 3/6; with +1: faces 3..6 = 4/6
    assert row["p_base"] == pytest.approx(3 / 6, abs=1e-15)
    assert row["p_with"] == pytest.approx(4 / 6, abs=1e-15)
    assert row["delta_pp"] == pytest.approx(100 / 6, abs=1e-12)
    row = t[(t["modifier"] == "second try") & (t["bonus"] == 0) & (t["target"] == 4)].iloc[0]
    assert row["p_with"] == pytest.approx(1 - (1 - 0.5) ** 2, abs=1e-15)  # 0.75
    # -1 target never goes below 2: at target 2 the check is unchanged (5/6 both)
    row = t[(t["modifier"] == "-1 target") & (t["bonus"] == 0) & (t["target"] == 2)].iloc[0]
    assert row["p_base"] == pytest.approx(5 / 6, abs=1e-15)
    assert row["p_with"] == pytest.approx(5 / 6, abs=1e-15)
    # at target 5, bonus 1: base faces 4..6 = 3/6, with target 4: faces 3..6 = 4/6
    row = t[(t["modifier"] == "-1 target") & (t["bonus"] == 1) & (t["target"] == 5)].iloc[0]
    assert row["p_with"] - row["p_base"] == pytest.approx(1 / 6, abs=1e-15)
    with pytest.raises(InputError, match="unknown axis 'roll'"):
        modifiers.modifier_values(SYSTEM, axes={"roll": ["x"]})


def test_solve_difficulty_by_hand(fake):
    t = solvers.solve_difficulty(0.5, "competent", SYSTEM)
    row = t.iloc[0]
    # competent = modifier 1; P(d6 + 1 >= t) = (8 - t) / 6 = 1/2 at t = 5
    assert (row["axis"], row["difficulty"], row["difficulty_value"]) == ("target", "5+", 5)
    assert row["p"] == pytest.approx(0.5, abs=1e-12)
    t = solvers.solve_difficulty(0.5, 0, SYSTEM)
    assert t.iloc[0]["difficulty"] == "4+"  # (7 - t) / 6 = 1/2 at t = 4
    inv = solvers.competence_table((0.5,), SYSTEM)
    # target 6 (an inverse point of its difficulty hook): (7 - 6 + m) / 6 >= 1/2 at m = 2
    row = inv[inv["difficulty"] == "6+"].iloc[0]
    assert (row["needed"], row["rung"]) == (2, "expert")
    assert float(row["p"]) == pytest.approx(0.5, abs=1e-12)
    assert list(inv["difficulty"]) == ["4+", "6+"]


def test_no_opposed_rule_is_one_sentence(fake):
    with pytest.raises(
        InputError,
        match=r"^d6_target: this system declares no "
        r"opposed-check rule, so there is no opposed table$",
    ):
        opposed.opposed_table(SYSTEM)
