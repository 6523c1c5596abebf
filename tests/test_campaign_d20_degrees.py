"""Campaign mechanics of ``d20_degrees``: hero points (E8, E9, E15, E-g20..E-g24)."""

import numba
import numpy as np
import pytest

from engines.errors import InputError
from engines.systems.d20_degrees import campaign as cd


def _close(p, counts, n):
    p = np.asarray(p, float)
    q = np.asarray(counts, float) / n
    assert np.all(np.abs(q - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n)


def test_e8_e9_one_fight_hand_worked():
    """E8 / E9, one fight, start 1 point (E9: "iniciam uma aventura com 1 Ponto
    Heroico"), no earning: extra effort's fatigue is cancelled with the point (E8: "pode
    ser eliminado ao se usar um Ponto Heroico"), so 0 points left, +2 on the check:
    bonus 5 + 2 vs DC 15 needs 8+ on the d20 → 13/20 pass; no point left to improve."""
    e = cd.exact("hero-points", 1, points=1, fights=1, bonus=5, dc=15, earn=0)
    np.testing.assert_allclose(e.pmf()[1][:2], [1.0, 0.0])
    assert e.extra["passed"][1] == pytest.approx(13 / 20)
    assert e.extra["spent"][1] == pytest.approx(1.0)


def test_e9_improve_roll_hand_worked():
    """E9, no extra effort, 1 point, bonus 5 vs DC 15 (needs 10+): plain pass 11/20; on a
    failure (1..9) every reroll reads 11..20 (1..10 gets +10), and 11 + 5 ≥ 15, so the
    better roll always passes: P(pass) = 1, point spent 9/20."""
    v = cd.Variants(effort=False)
    e = cd.exact("hero-points", 1, points=1, fights=1, bonus=5, dc=15, earn=0, variants=v)
    assert e.extra["passed"][1] == pytest.approx(1.0)
    assert e.extra["spent"][1] == pytest.approx(9 / 20)
    assert e.pmf()[1][1] == pytest.approx(11 / 20)


def test_e8_fatigue_without_points():
    """E8: no points, no cancelling: fights 1 and 2 fatigue then exhaust the hero (−2 on
    checks); the third fight takes no effort (it would incapacitate). Exhausted after
    fights 2 and 3 → 2 exhausted fights per session; rest clears it (E17)."""
    e = cd.exact("hero-points", 2, points=0, fights=3, earn=0)
    assert e.extra["exhausted"][1] == pytest.approx(2.0)
    assert e.extra["exhausted"][2] == pytest.approx(4.0)


def test_e_g20_earning_closed_form():
    """E-g20: no spending at all, earn 50 %: points after one session of 3 fights from 0
    are Binomial(3, 0.5) (cap 5 not reached)."""
    v = cd.Variants(effort=False, improve_roll=False)
    row = cd.exact("hero-points", 1, points=0, fights=3, earn=50, variants=v).pmf()[1]
    np.testing.assert_allclose(row[:4], [1 / 8, 3 / 8, 3 / 8, 1 / 8])


@pytest.mark.parametrize(
    "v",
    [
        cd.Variants(),
        cd.Variants(cancel_fatigue=False),
        cd.Variants(session_start="reset", recover_action=True),
    ],
)
def test_mc_vs_exact(v):
    e = cd.exact("hero-points", 6, threshold=0, variants=v, bonus=6, earn=60)
    m = cd.monte_carlo("hero-points", 6, 30_000, seed=2, threshold=0, variants=v, bonus=6, earn=60)
    _close(e.pmf(), m.dist, m.n)
    _close(e.passage_pmf(), m.passage, m.n)
    for name in ("passed", "spent", "exhausted"):
        se = m.extra[name + "_se"]
        assert np.all(np.abs(m.extra[name] - e.extra[name]) <= 5 * se + 1e-9), name


def test_one_thread_equals_two_threads():
    before = numba.get_num_threads()
    out = []
    try:
        for n in (1, 2):
            numba.set_num_threads(n)
            out.append(cd.monte_carlo("hero-points", 5, 70_000, seed=3, threshold=0))
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(out[0].dist, out[1].dist)
    np.testing.assert_array_equal(out[0].passage, out[1].passage)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cd.exact("hero-points", 3, points=9), "points"),
        (lambda: cd.exact("hero-points", 3, earn=101), "earn"),
        (lambda: cd.exact("hero-points", 3, fights=-1), "fights"),
        (lambda: cd.exact("hero-points", 3, threshold=6), "threshold"),
        (lambda: cd.exact("hero-points", 3, luck=1), "luck"),
        (lambda: cd.exact("fatigue", 3), "mechanic"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(InputError, match=name):
        call()
