"""Campaign mechanics of ``dice_pool_6``: budgets (C6, C10, C11, C-g20..C-g22) and
hunger (C9, C-g23, C-g24)."""

import numba
import numpy as np
import pytest

from engines.errors import InputError
from engines.systems.dice_pool_6 import campaign as cd
from engines.systems.dice_pool_6 import checks as dp6


def _close(p, counts, n):
    p = np.asarray(p, float)
    q = np.asarray(counts, float) / n
    assert np.all(np.abs(q - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n)


@pytest.mark.parametrize("pool", [0, 1, 2, 4])
def test_c1_pool_without_reroll_matches_check_engine(pool):
    """C1 / C-g2: with no reroll the pool distribution is the check engine's."""
    probs, _ = dp6.exact([pool])
    mine = cd.pool_successes(pool, 0)
    np.testing.assert_allclose(mine, probs[0, 1 : 1 + mine.size], atol=1e-12)


def test_c_g20_one_die_reroll_hand_worked():
    """C-g20: one die, one reroll of a failure (6+ succeeds, no pair possible):
    P(0) = 0.5 × 0.5 = 0.25, P(1) = 0.75."""
    np.testing.assert_allclose(cd.pool_successes(1, 3)[:2], [0.25, 0.75])


def test_c6_c11_one_scene_hand_worked():
    """C6 / C10 / C11: stamina 1 (Health 4), Willpower 0 (no reroll), one scene, attack
    1 die vs dodge 0 dice: the challenger always wins (ties too, C10); damage = its
    successes (0 with 0.5, 1 with 0.5, C-g4 literal); rest heals 1 (C-g21), capped at 4
    (C6: never above the start). Health 4 with 0.5 (3 + 1), 4 with 0.5 → always 4."""
    e = cd.exact("budgets", 1, stamina=1, composure=0, resolve=0, scenes=1, attack=1, dodge=0)
    np.testing.assert_allclose(e.pmf()[1], [0, 0, 0, 0, 1.0], atol=1e-12)
    v = cd.Variants(health_rest=0)
    e = cd.exact(
        "budgets", 1, variants=v, stamina=1, composure=0, resolve=0, scenes=1, attack=1, dodge=0
    )
    np.testing.assert_allclose(e.pmf()[1], [0, 0, 0, 0.5, 0.5], atol=1e-12)


def test_budgets_mc_vs_exact():
    """C6 / C-g20..C-g22: joint (Health, Willpower) state per session, Health passage to
    ≤ 2 and the tallies, MC vs exact."""
    kw = {"stamina": 2, "composure": 1, "resolve": 2, "scenes": 3, "attack": 5, "dodge": 3}
    e = cd.exact("budgets", 6, threshold=2, **kw)
    m = cd.monte_carlo("budgets", 6, 40_000, seed=4, threshold=2, **kw)
    _close(e.pmf(), m.dist, m.n)
    _close(e.passage_pmf(), m.passage, m.n)
    for name in ("knockouts", "spent", "willpower"):
        se = m.extra[name + "_se"]
        assert np.all(np.abs(m.extra[name] - e.extra[name]) <= 5 * se + 1e-9), name


def test_c9_hunger_closed_form():
    """C9: one die, success 6+ (0.5). No feeding (feed_at above the cap): Hunger from 1
    after n nights is 1 + Binomial(n, 0.5) capped at 5; first reaching 5 after the 4th
    failure: P(first at night k) = C(k−1, 3) 0.5^k."""
    from math import comb

    e = cd.exact("hunger", 10, threshold=5, hunger=1, feed_at=6)
    for k in range(1, 11):
        assert e.passage_pmf()[k] == pytest.approx(comb(k - 1, 3) * 0.5**k, abs=1e-12)
    assert e.pmf()[2][3] == pytest.approx(0.25)


def test_c_g24_feeding_hand_worked():
    """C-g24: Hunger 3, one check: fail (0.5) → 4, success → 3; both ≥ feed_at 3 so
    feeding slakes 2, not below 1: → 2 or 1, each 0.5."""
    row = cd.exact("hunger", 1, hunger=3, feed_at=3, slake=2).pmf()[1]
    np.testing.assert_allclose(row, [0, 0.5, 0.5, 0, 0, 0], atol=1e-12)


def test_hunger_mc_vs_exact():
    e = cd.exact("hunger", 12, threshold=4, rouses=2, feed_at=3, slake=2)
    m = cd.monte_carlo("hunger", 12, 40_000, seed=8, threshold=4, rouses=2, feed_at=3, slake=2)
    _close(e.pmf(), m.dist, m.n)
    _close(e.passage_pmf(), m.passage, m.n)
    assert np.all(np.abs(m.extra["failed"] - e.extra["failed"]) <= 5 * m.extra["failed_se"] + 1e-9)


def test_one_thread_equals_two_threads():
    before = numba.get_num_threads()
    out = []
    try:
        for n in (1, 2):
            numba.set_num_threads(n)
            out.append(
                (
                    cd.monte_carlo("budgets", 5, 70_000, seed=3, threshold=2),
                    cd.monte_carlo("hunger", 5, 70_000, seed=3, threshold=4),
                )
            )
    finally:
        numba.set_num_threads(before)
    for a, b in zip(out[0], out[1], strict=True):
        np.testing.assert_array_equal(a.dist, b.dist)
        np.testing.assert_array_equal(a.passage, b.passage)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cd.exact("budgets", 3, stamina=0), "stamina"),
        (lambda: cd.exact("budgets", 3, dodge=-1), "dodge"),
        (lambda: cd.exact("budgets", 3, threshold=99), "threshold"),
        (lambda: cd.exact("budgets", 3, health=3), "health"),
        (lambda: cd.exact("hunger", 3, hunger=6), "hunger"),
        (lambda: cd.exact("hunger", 3, rouses=1.5), "rouses"),
        (lambda: cd.exact("blood", 3), "mechanic"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(InputError, match=name):
        call()
