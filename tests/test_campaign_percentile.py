"""Campaign mechanics of ``percentile``: skill growth (D6, D-g2, D-g20, D-g21) and Luck
(D5, extension D-g22, D-g23)."""

import itertools

import numba
import numpy as np
import pytest

from engines.errors import InputError
from engines.systems.percentile import campaign as cp


def _close(p, counts, n):
    """MC counts vs exact probabilities within 5 SE + 1/n, cell by cell."""
    p = np.asarray(p, float)
    q = np.asarray(counts, float) / n
    tol = 5 * np.sqrt(p * (1 - p) / n) + 1 / n
    assert np.all(np.abs(q - p) <= tol), np.max(np.abs(q - p) - tol)


def test_d6_seed_example_one_session():
    """D6, seed: "Se você tem Escalar 40% e conseguiu usá-la ... rola 1D100: se sair 58
    (acima de 40), a perícia aumenta em 1D10 pontos."  One use at regular difficulty:
    rolls 01..40 succeed (01 critical is among them; the 100 fumble is a failure anyway)
    → P(tick) = 40/100. Improvement: 41..100 are above 40 (96+ adds nothing new) →
    60/100. P(rise) = 0.4 × 0.6 = 0.24, each of 41..50 gets 0.024, 40 keeps 0.76."""
    e = cp.exact("skill-growth", sessions=1, skill=40, uses=1)
    row = e.pmf()[1]
    assert row[40] == pytest.approx(0.76, abs=1e-12)
    for s in range(41, 51):
        assert row[s] == pytest.approx(0.024, abs=1e-12)
    assert row.sum() == pytest.approx(1.0)
    assert e.extra["improvements"][1] == pytest.approx(0.24)


def test_d6_two_uses_tick_once():
    """D6: "Você só pode ter um único ponto por perícia" — two uses at 40 tick with
    1 − 0.6² = 0.64, still one improvement roll: P(rise) = 0.64 × 0.6 = 0.384."""
    row = cp.exact("skill-growth", sessions=1, skill=40, uses=2).pmf()[1]
    assert 1 - row[40] == pytest.approx(0.384, abs=1e-12)


def test_d_g2_96_plus_and_d_g20_cap():
    """D-g2: at skill 97 an improvement roll of 96+ improves (96..100 → 5/100) instead of
    98..100 only (3/100). Use at 97: 01..97 succeed, 100 fumbles (needed ≥ 50) → 0.97.
    D-g20: the cap 99 keeps every rise at 99 (97 + 1d10 ≥ 98: 98 gets 1/10, 99 9/10)."""
    on = cp.exact("skill-growth", sessions=1, skill=97, uses=1).pmf()[1]
    assert 1 - on[97] == pytest.approx(0.97 * 0.05)
    assert on[98] == pytest.approx(0.97 * 0.05 / 10)
    assert on[99] == pytest.approx(0.97 * 0.05 * 9 / 10)
    off = cp.exact(
        "skill-growth", sessions=1, skill=97, uses=1, variants=cp.Variants(improve_on_96=False)
    ).pmf()[1]
    assert 1 - off[97] == pytest.approx(0.97 * 0.03)


def test_d_g21_hard_uses():
    """D-g21: hard uses at 40 succeed on 01..20 → tick 0.2; rise 0.2 × 0.6 = 0.12."""
    row = cp.exact(
        "skill-growth", sessions=1, skill=40, uses=1, variants=cp.Variants(use_level="hard")
    ).pmf()[1]
    assert 1 - row[40] == pytest.approx(0.12, abs=1e-12)


def test_skill_chain_vs_brute_force_two_sessions():
    """D6: two sessions from 90 with one use, by enumerating every d100 / d10 outcome
    (use roll, improvement roll, gain) of each session."""

    def session(skill):
        out = {}
        for r, imp, d in itertools.product(range(1, 101), range(1, 101), range(1, 11)):
            fumble = r == 100 or (r >= 96 and skill < 50)
            ok = (r == 1 or r <= skill) and not fumble
            new = min(99, skill + d) if ok and (imp > skill or imp >= 96) else skill
            out[new] = out.get(new, 0) + 1
        return {k: v / 100_000 for k, v in out.items()}

    two = {}
    for s1, p1 in session(90).items():
        for s2, p2 in session(s1).items():
            two[s2] = two.get(s2, 0.0) + p1 * p2
    row = cp.exact("skill-growth", sessions=2, skill=90, uses=1).pmf()[2]
    for s, p in two.items():
        assert row[s] == pytest.approx(p, abs=1e-12)


def test_skill_passage_is_first_passage():
    """D6: a skill never falls, so P(first ≥ 75 by session k) = P(skill ≥ 75 after k)."""
    e = cp.exact("skill-growth", sessions=40, threshold=75, skill=40, uses=1)
    cum = np.cumsum(e.passage_pmf()[:-1])
    np.testing.assert_allclose(cum, e.pmf()[:, 75:].sum(axis=1), atol=1e-12)


def test_skill_mc_vs_exact():
    """D6 / D-g2: per-session skill probabilities, passage to ≥ 75 and the improvement
    tally, MC vs exact."""
    kw = {"skill": 40, "uses": 2}
    e = cp.exact("skill-growth", sessions=12, threshold=75, **kw)
    m = cp.monte_carlo("skill-growth", sessions=12, trials=40_000, seed=11, threshold=75, **kw)
    _close(e.pmf(), m.dist, m.n)
    _close(e.passage_pmf(), m.passage, m.n)
    se = m.extra["improvements_se"]
    assert np.all(np.abs(m.extra["improvements"] - e.extra["improvements"]) <= 5 * se + 1e-9)


def test_d5_luck_spend_hand_worked():
    """D-g22 / D-g23 (extension), one roll at skill 50 with Luck 10 and no recovery:
    rolls 51..60 fail by 1..10 and are bought off (Luck 10 − margin): each 0.01;
    01..50 succeed, 61..100 fail unbought (60..100 are no fumbles: needed 50 ≥ 50,
    except 100) → Luck stays 10 with 0.90. Expected Luck spent 0.01 × (1+…+10) = 0.55."""
    v = cp.Variants(luck_recovery="none")
    e = cp.exact("luck", sessions=1, luck=10, skill=50, checks=1, variants=v)
    row = e.pmf()[1]
    assert row[10] == pytest.approx(0.90)
    for luck in range(0, 10):
        assert row[luck] == pytest.approx(0.01)
    assert e.extra["saves"][1] == pytest.approx(0.10)
    assert e.extra["spent"][1] == pytest.approx(0.55)


def test_d_g1_fumbles_not_bought():
    """D-g1 / D-g22: at skill 40 rolls 96..100 fumble and cannot be bought: with Luck 99
    rolls 41..95 are bought (55 of them), the rest stays."""
    v = cp.Variants(luck_recovery="none")
    e = cp.exact("luck", sessions=1, luck=99, skill=40, checks=1, variants=v)
    assert e.extra["saves"][1] == pytest.approx(0.55)
    assert e.pmf()[1][99] == pytest.approx(0.45)


def test_d_g23_recovery_hand_worked():
    """D-g23: no spending, Luck 95: d100 above 95 (96..100, 0.05) gains 1d10, capped at
    99: 96..98 get 0.005 each, 99 gets 0.035."""
    v = cp.Variants(luck_spending="none")
    row = cp.exact("luck", sessions=1, luck=95, checks=2, variants=v).pmf()[1]
    assert row[95] == pytest.approx(0.95)
    assert row[96] == pytest.approx(0.005)
    assert row[98] == pytest.approx(0.005)
    assert row[99] == pytest.approx(0.035)


def test_luck_mc_vs_exact():
    """D5 / D-g22 / D-g23: Luck per session, passage to ≤ 25 and the tallies."""
    kw = {"luck": 60, "skill": 45, "checks": 2, "max_spend": 20}
    e = cp.exact("luck", sessions=10, threshold=25, **kw)
    m = cp.monte_carlo("luck", sessions=10, trials=40_000, seed=5, threshold=25, **kw)
    _close(e.pmf(), m.dist, m.n)
    _close(e.passage_pmf(), m.passage, m.n)
    for name in ("saves", "spent"):
        se = m.extra[name + "_se"]
        assert np.all(np.abs(m.extra[name] - e.extra[name]) <= 5 * se + 1e-9)


def test_one_thread_equals_two_threads():
    """Same seed on 1 or 2 numba threads: bit-identical counts."""
    before = numba.get_num_threads()
    out = []
    try:
        for n in (1, 2):
            numba.set_num_threads(n)
            out.append(
                (
                    cp.monte_carlo("skill-growth", 8, 70_000, seed=3, threshold=60),
                    cp.monte_carlo("luck", 8, 70_000, seed=3, threshold=30),
                )
            )
    finally:
        numba.set_num_threads(before)
    for a, b in zip(out[0], out[1], strict=True):
        np.testing.assert_array_equal(a.dist, b.dist)
        np.testing.assert_array_equal(a.passage, b.passage)
        for k in a.extra:
            np.testing.assert_array_equal(a.extra[k], b.extra[k])


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: cp.exact("skill-growth", 5, skill=120), "skill"),
        (lambda: cp.exact("skill-growth", 5, uses=-1), "uses"),
        (lambda: cp.exact("skill-growth", 5, threshold=150), "threshold"),
        (lambda: cp.exact("skill-growth", -1), "sessions"),
        (lambda: cp.exact("luck", 5, luck=100), "luck"),
        (lambda: cp.exact("luck", 5, max_spend=1.5), "max_spend"),
        (lambda: cp.exact("luck", 5, checks="3"), "checks"),
        (lambda: cp.exact("luck", 5, spend=3), "spend"),
        (lambda: cp.exact("sanity", 5), "mechanic"),
        (lambda: cp.monte_carlo("luck", 5, 0), "trials"),
        (lambda: cp.exact("skill-growth", 5, variants=cp.Variants(skill_cap=0)), "skill_cap"),
    ],
)
def test_bad_input(call, name):
    with pytest.raises(InputError, match=name):
        call()


def test_mechanics_describe_params():
    for name, mech in cp.MECHANICS.items():
        assert mech.state
        assert mech.direction in ("up", "down")
        for p in mech.params:
            assert p.name
            assert p.type in (int, str, bool)
            assert p.rule
            assert p.help
        assert callable(mech.exact), name
        assert callable(mech.monte_carlo), name
