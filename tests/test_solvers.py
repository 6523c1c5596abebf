"""Difficulty / competence solvers against brute-force searches over independent exact
tables (closed forms, enumeration, icepool), and the generic threshold search.

Rule ids exercised: A1, A2, A-g1 (dice_pool_7 pools, penalties, chance die), B1, B2, B3
(middle_3d10), C1, C-g1, C-g2 (dice_pool_6 with pairs of 10s), D1, D4, D-g1 (percentile
levels, bonus/penalty dice, criticals and fumbles), E1, E2, E3 (d20_degrees).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analysis.checks import ladders
from analysis.workflow import solvers
from engines.errors import InputError
from engines.system import BUILT_IN

TARGETS = (0.05, 0.2, 0.35, 0.5, 0.65, 0.7, 0.8, 0.95)
LADDER = ladders.FALLBACK_LADDER
#: the ladder in force (the data file when present), which ladder names resolve to
IN_FORCE = ladders.load_competence_ladder()


# ---------------------------------------------------------------- independent oracles


@functools.cache
def _dp7_single(length: int = 80) -> np.ndarray:
    """A1: one die's successes with 10-again: P(0) = 0.6, P(k >= 1) = 0.36 * 0.1**(k-1)."""
    g = np.zeros(length)
    g[0] = 0.6
    k = np.arange(1, length)
    g[1:] = 0.36 * 0.1 ** (k - 1)
    return g


@functools.cache
def dp7_at_least(pool: int, need: int) -> float:
    """A1 / A-g1: P(successes >= need); pool <= 0 rolls one chance die (only a 10, no chain)."""
    if pool <= 0:
        return 0.1 if need <= 1 else 0.0
    dist = np.array([1.0])
    for _ in range(pool):
        dist = np.convolve(dist, _dp7_single())[:80]
    return float(dist[need:].sum())


@functools.cache
def _dp6_dist(pool: int) -> np.ndarray:
    """C1, C-g1, C-g2 by a die-by-die walk over (successes, odd number of 10s so far):
    1–5 nothing, 6–9 one success, a 10 one success plus 2 when it completes a pair."""
    dist = np.zeros((4 * pool + 2, 2))
    dist[0, 0] = 1.0
    for _ in range(pool):
        nxt = np.zeros_like(dist)
        nxt += 0.5 * dist
        nxt[1:] += 0.4 * dist[:-1]
        nxt[1:, 1] += 0.1 * dist[:-1, 0]  # first of a pair
        nxt[3:, 0] += 0.1 * dist[:-3, 1]  # completes a pair: 1 + 2
        dist = nxt
    return dist.sum(axis=1)


def dp6_at_least(pool: int, need: int) -> float:
    return float(_dp6_dist(pool)[max(need, 0) :].sum())


@pytest.mark.parametrize("pool", [1, 2, 3, 5, 6])
def test_dp6_walk_matches_icepool(pool):
    """The dice_pool_6 oracle itself against icepool's exact pool enumeration (C-g2)."""
    import icepool

    def succ(*faces):
        tens = sum(f == 10 for f in faces)
        return sum(f >= 6 for f in faces) + 2 * (tens // 2)

    die = icepool.d10.pool(pool).expand().map(lambda t: succ(*t))
    for need in range(2 * pool + 2):
        assert dp6_at_least(pool, need) == pytest.approx(
            float(die.probability(">=", need)), abs=1e-12
        )


@functools.cache
def _middle_counts():
    rows = []
    for dice in itertools.product(range(1, 11), repeat=3):
        m = sorted(dice)
        tens, ones = dice.count(10), dice.count(1)
        rows.append((m[1], tens >= 2, ones >= 2))
    return rows


def middle_p(modifier: int, difficulty: int) -> float:
    """B1, B3: C + modifier >= difficulty; two+ 10s always succeed, two+ 1s always fail."""
    ok = sum(
        1 for c, auto, cat in _middle_counts() if auto or (not cat and c + modifier >= difficulty)
    )
    return ok / 1000


def d20_p(modifier: int, dc: int) -> float:
    """E1–E3: a natural 1 fails; a natural 20 counts as +5; else d20 + modifier >= DC."""
    return sum(1 for d in range(2, 21) if d + modifier + (5 if d == 20 else 0) >= dc) / 20


@functools.cache
def _percentile_rolls(dice: int) -> tuple[int, ...]:
    """D4 by enumeration: every equally likely (units, tens...) outcome's d100 result."""
    n = 1 + abs(dice)
    rolls = []
    for units in range(10):
        for tens in itertools.product(range(10), repeat=n):
            vals = [100 if t == 0 and units == 0 else 10 * t + units for t in tens]
            rolls.append(min(vals) if dice >= 0 else max(vals))
    return tuple(rolls)


@functools.cache
def percentile_p(skill: int, level: str, dice: int) -> float:
    """D1, D4, D-g1: keep the lowest tens (bonus) or highest (penalty); 01 always
    succeeds; 100, or 96–100 when the needed value is below 50, fumbles."""
    need = {"regular": skill, "hard": skill // 2, "extreme": skill // 5}[level]
    rolls = _percentile_rolls(dice)
    ok = 0
    for roll in rolls:
        fumble = roll == 100 or (roll >= 96 and skill < 50)
        ok += roll == 1 or (roll <= need and not fumble)
    return ok / len(rolls)


def oracle(system: str, axis: str, competence: int, difficulty) -> float:
    if system == "dice_pool_7":
        if axis == "penalty":
            return dp7_at_least(competence - difficulty, 1)
        return dp7_at_least(competence, difficulty)
    if system == "dice_pool_6":
        return dp6_at_least(competence, difficulty)
    if system == "middle_3d10":
        return middle_p(competence, difficulty)
    if system == "percentile":
        return percentile_p(competence, *difficulty)
    if system == "d20_degrees":
        return d20_p(competence, difficulty)
    raise ValueError(f"no oracle for {system!r}")


def test_oracles_match_seed_examples():
    """Seed examples: STR 60 hard needs <= 30 (D1); one d10 pool succeeds 40 % of the time
    before explosions are counted once (A1: 0.3 + 0.1 = 0.4); B2 average is 15."""
    assert percentile_p(60, "hard", 0) == pytest.approx(0.30)
    assert dp7_at_least(1, 1) == pytest.approx(0.4)
    assert dp7_at_least(1, 2) == pytest.approx(0.04)
    assert d20_p(0, 21) == pytest.approx(0.05)  # only a natural 20, counted as 25


# ---------------------------------------------------------------- difficulty solver


@pytest.mark.parametrize("system", BUILT_IN)
def test_difficulty_solver_matches_brute_force(system):
    """For every rung and target, the solver's difficulty is the brute-force optimum of
    |P − target| over an independently computed exact table (ties: the easier one). The
    oracles know the built-ins' rules (A–E); a plug-in's solver answers are checked by its
    own tests and the conformance checks."""
    for ax in solvers.difficulty_axes(system):
        for rung, comp in IN_FORCE[system].items():
            table = [oracle(system, ax.name, comp, d) for d in ax.values]
            for target in TARGETS:
                got = solvers.solve_difficulty(target, rung, system)
                row = got[got["axis"] == ax.name].iloc[0]
                dist = np.abs(np.array(table) - target)
                best = dist.min()
                # achieved chance is the oracle's at that difficulty, and optimal
                idx = ax.labels.index(row["difficulty"])
                assert row["p"] == pytest.approx(table[idx], abs=1e-9)
                assert abs(row["p"] - target) <= best + 1e-9
                near = np.nonzero(dist <= best + 1e-9)[0]
                assert idx == near[0], (system, ax.name, rung, target)
                assert row["error"] == pytest.approx(row["p"] - target)


def test_difficulty_solver_worked_examples():
    """Hand-worked (E1): d20 + 8 vs DC 18 passes on 10..20, 11 faces = 0.55; DC 19 on
    11..20, 10 faces = 0.5, the target."""
    t = solvers.solve_difficulty(0.5, 8, "d20_degrees")
    assert t["difficulty"].iloc[0] == "DC 19"
    assert t["p"].iloc[0] == pytest.approx(0.5)
    # percentile skill 50: regular with no extra dice is exactly 50 % (D1)
    t = solvers.solve_difficulty(0.5, 50, "percentile")
    assert t["difficulty"].iloc[0] == "regular no extra dice"


def test_difficulty_solver_bad_input():
    with pytest.raises(InputError, match="strictly between 0 and 1"):
        solvers.solve_difficulty(1.5, "expert")
    with pytest.raises(InputError, match="unknown ladder name 'wizard'"):
        solvers.solve_difficulty(0.5, "wizard")
    with pytest.raises(InputError, match="give one --system"):
        solvers.solve_difficulty(0.5, 7)
    with pytest.raises(InputError, match="unknown system"):
        solvers.solve_difficulty(0.5, "expert", "dice_pool_9")


def test_variants_reach_the_solver():
    """A1 variant: with 8-again a 7-die pool needs more successes for the same chance."""
    base = solvers.solve_difficulty(0.3, 7, "dice_pool_7")
    eight = solvers.solve_difficulty(0.3, 7, "dice_pool_7", {"dice_pool_7": ["again=8"]})
    b = base[base["axis"] == "successes"].iloc[0]
    e = eight[eight["axis"] == "successes"].iloc[0]
    assert e["difficulty_value"] >= b["difficulty_value"]


# ---------------------------------------------------------------- inverse table


@pytest.mark.parametrize(
    "system", ["dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees"]
)
def test_competence_table_matches_brute_force(system):
    """Smallest competence with P >= level, by scanning the oracle over the same range."""
    levels = (0.5, 0.75, 0.9)
    table = solvers.competence_table(levels, system)
    _, comp_range = solvers.COMPETENCE_AXIS[system]
    checked = 0
    for ax in solvers.difficulty_axes(system):
        for d in solvers.INVERSE_DIFFICULTIES[system][ax.name]:
            label = ax.labels[ax.values.index(d)]
            for q in levels:
                row = table[
                    (table["axis"] == ax.name)
                    & (table["difficulty"] == label)
                    & (table["level"] == q)
                ].iloc[0]
                needed = None if row["needed"] is pd_na() else int(row["needed"])
                limit = None
                scan = [c for c in comp_range if limit is None or c <= limit]
                expect = next((c for c in scan if oracle(system, ax.name, c, d) >= q - 1e-12), None)
                if expect is None and limit is not None:
                    assert needed is None or needed > limit
                    continue
                assert needed == expect, (system, ax.name, d, q)
                if expect is not None:
                    assert row["p"] == pytest.approx(oracle(system, ax.name, expect, d))
                checked += 1
    assert checked > 0


def pd_na():
    import pandas as pd

    return pd.NA


def test_ladder_file_is_read(tmp_path):
    """The ladder data file, when present, overrides the fallback rung by rung."""
    f = tmp_path / "ladders.toml"
    f.write_text(
        "[competence.d20_degrees]\nexpert = 11\n\n[percentile.competence]\n"
        "master = { value = 85 }\n"
    )
    ladder = ladders.load_competence_ladder(f)
    assert ladder["d20_degrees"]["expert"] == 11
    assert ladder["d20_degrees"]["novice"] == LADDER["d20_degrees"]["novice"]
    assert ladder["percentile"]["master"] == 85
    # the project's data-file shape: [systems.<id>] competence = { rung = value }
    f.write_text(
        'competence = ["untrained", "novice", "competent", "expert", "master"]\n'
        "[systems.dice_pool_7]\n"
        "competence = { untrained = 1, novice = 2, competent = 4, expert = 6, "
        "master = 8 }\n"
    )
    ladder = ladders.load_competence_ladder(f)
    assert ladder["dice_pool_7"] == {
        "untrained": 1,
        "novice": 2,
        "competent": 4,
        "expert": 6,
        "master": 8,
    }
    assert ladder["middle_3d10"] == LADDER["middle_3d10"]
    f.write_text("not = [toml")
    with pytest.raises(InputError, match="ladder"):
        ladders.load_competence_ladder(f)


# ---------------------------------------------------------------- threshold search


def _scan(values, est, target, goal, increasing, z, se):
    """Brute force: every value whose interval surely meets the goal; the boundary one."""
    sign = 1 if goal == "at_least" else -1
    meets = [v for v, e in zip(values, est, strict=True) if sign * (e - target) - z * se >= 0]
    if not meets:
        return None
    suffix = increasing == (goal == "at_least")
    return min(meets) if suffix else max(meets)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.02, 0.98),
    st.floats(-3, 3),
    st.floats(0.2, 3),
    st.booleans(),
    st.sampled_from(["at_least", "at_most"]),
    st.sampled_from([0.0, 0.01, 0.05]),
    st.sampled_from(["bisect", "grid"]),
)
def test_threshold_synthetic_monotone(target, shift, slope, increasing, goal, se, method):
    """A logistic metric with a fixed SE: bisection and grid agree with a linear scan."""
    values = list(range(-20, 21))

    def f(k):
        x = slope * (k / 4 - shift)
        p = 1 / (1 + math.exp(-x))
        return p if increasing else 1 - p

    est = [f(v) for v in values]
    res = solvers.solve_threshold(
        lambda k: (f(k), se), values, target, goal=goal, increasing=increasing, z=2.0, method=method
    )
    assert res.knob == _scan(values, est, target, goal, increasing, 2.0, se)
    if res.found:
        assert res.estimate == pytest.approx(f(res.knob))
    # undecided values are exactly those whose interval contains the target
    sign = 1 if goal == "at_least" else -1
    for v in res.undecided:
        e = f(v)
        assert sign * (e - target) - 2 * se < 0 <= sign * (e - target) + 2 * se
    if method == "bisect":
        assert len(res.evaluated) <= 2 * (math.ceil(math.log2(len(values))) + 2)


def test_threshold_interval_must_clear_target():
    """An MC cell whose interval straddles the target does not count as meeting it."""
    table = {1: (0.48, 0.05), 2: (0.62, 0.05), 3: (0.75, 0.05), 4: (0.90, 0.05)}
    res = solvers.solve_threshold(lambda k: table[k], [1, 2, 3, 4], 0.6)
    assert res.knob == 3  # 0.62 - 2 * 0.05 < 0.6 → undecided
    assert res.undecided == [2]
    assert res.last_failing == 1  # 0.48 + 0.10 < 0.6
    exact = solvers.solve_threshold(lambda k: (table[k][0], 0.0), [1, 2, 3, 4], 0.6)
    assert exact.knob == 2


def test_threshold_bad_input():
    with pytest.raises(InputError, match="empty"):
        solvers.solve_threshold(lambda k: (0.5, 0.0), [], 0.5)
    with pytest.raises(InputError, match="non-negative standard error"):
        solvers.solve_threshold(lambda k: (0.5, -1.0), [1, 2], 0.5)
    with pytest.raises(InputError, match="goal"):
        solvers.solve_threshold(lambda k: (0.5, 0.0), [1], 0.5, goal="more")


def test_threshold_on_check_knob_mc_vs_exact():
    """Check-level knob (A1): the smallest dice_pool_7 pool with P(>= 3 successes) >= t,
    searched on Monte Carlo estimates, equals the exact answer when t sits well inside a
    gap of the exact curve: with 20 000 trials SE <= 0.0036, and the gap margin used is
    more than (2 + 5) SE on both sides, so z = 2 decides and 5 SE covers the noise."""
    pools = list(range(1, 16))
    exact = [dp7_at_least(p, 3) for p in pools]
    gaps = [(exact[i] - exact[i - 1], i) for i in range(1, len(pools))]
    gap, i = max(gaps)
    assert gap > 2 * 7 * 0.0036
    target = (exact[i] + exact[i - 1]) / 2
    metric = solvers.check_knob_metric(
        "dice_pool_7", "pool", {"successes": 3}, trials=20_000, seed=11
    )
    res = solvers.solve_threshold(metric, pools, target)
    assert res.knob == pools[i]
    assert (
        abs(res.estimate - exact[i])
        <= 5 * math.sqrt(exact[i] * (1 - exact[i]) / 20_000) + 1 / 20_000
    )
    exact_metric = solvers.check_knob_metric("dice_pool_7", "pool", {"successes": 3})
    assert solvers.solve_threshold(exact_metric, pools, target).knob == pools[i]


def test_decreasing_check_knob_largest_dc():
    """E1: the largest DC a +5 character still passes at least 60 % of the time is 13:
    d20 >= 8 → 13 faces of 20 = 0.65; DC 14 → 0.6 also meets (>=); DC 15 → 0.55."""
    metric = solvers.check_knob_metric("d20_degrees", "dc", {"modifier": 5, "degree": 1})
    res = solvers.solve_threshold(metric, range(41), 0.6, increasing=False)
    assert res.knob == 14
    assert res.estimate == pytest.approx(0.6)


# ---------------------------------------------------------------- lethality hook


def _fake_combat_module():
    """A stand-in combat engine with a known monotone answer: side 0 wins with
    probability logistic((a.hit_points − 20) / 3); every fight ends in round 1."""
    import types

    from engines.fight import FightStats

    def p_win(a):
        return 1 / (1 + math.exp(-(a["hit_points"] - 20) / 3))

    def duel_mc(a, b, trials, seed, variants, round_cap):
        rng = np.random.default_rng(seed)
        wins = int(rng.binomial(trials, p_win(a)))
        stats = FightStats.empty("d20_degrees", round_cap, trials)
        stats.outcome[:] = [wins, trials - wins, 0]
        stats.rounds[1, :2] = [wins, trials - wins]
        return stats

    mod = types.ModuleType("engines.systems.d20_degrees.combat")
    mod.duel_mc = duel_mc
    mod.p_win = p_win
    return mod


def test_lethality_solver_through_registry(tmp_path, monkeypatch, capsys):
    """The lethality CLI on a registered engine: the smallest hit points with P(side 0
    wins) >= 0.7 whose whole 2-SE interval clears 0.7. Exact answer: logistic crosses 0.7
    at 22.54, so 23 (p = 0.731; 2 SE at 20 000 trials = 0.006) and 22 (p = 0.661) fails."""
    # the system's archetype library imports names of the real combat module: load it
    # before the stand-in takes that module's place (alone, this test loads it first)
    import engines.systems.d20_degrees.archetypes  # noqa: F401
    from analysis.combat import fights
    from cli.main import main

    mod = _fake_combat_module()
    monkeypatch.setitem(__import__("sys").modules, "engines.systems.d20_degrees.combat", mod)
    # the stand-in engine takes plain mappings: bypass the combatant loader, if installed
    monkeypatch.setattr(fights, "fighter", lambda system, spec: spec)
    f = tmp_path / "duel.toml"
    f.write_text(
        'name = "duel"\nmethod = "mc"\n[[fights]]\nsystem = "d20_degrees"\n'
        "a = { hit_points = 10 }\nb = { hit_points = 20 }\n"
    )
    out = tmp_path / "leth.csv"
    rc = main(
        [
            "solve",
            "lethality",
            "--system",
            "d20_degrees",
            "--scenario",
            str(f),
            "--knob",
            "a.hit_points",
            "--range",
            "1:60",
            "--target",
            "0.7",
            "--trials",
            "20000",
            "--seed",
            "3",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    assert "a.hit_points = 23" in capsys.readouterr().err
    import pandas as pd

    t = pd.read_csv(out)
    assert t.loc[t["chosen"], "value"].tolist() == [23]
    row = t[t["value"] == 23].iloc[0]
    p = mod.p_win({"hit_points": 23})
    assert abs(row["estimate"] - p) <= 5 * math.sqrt(p * (1 - p) / 20000) + 1 / 20000
    # the scenario runner reads the same registry for [[fights]]
    from analysis.workflow.run import run_fights
    from analysis.workflow.scenario import load_scenario

    fights = run_fights(load_scenario(f))
    assert fights["p_side0"].iloc[0] == pytest.approx(mod.p_win({"hit_points": 10}), abs=0.01)
    assert fights["rounds_mean"].iloc[0] == pytest.approx(1.0)
