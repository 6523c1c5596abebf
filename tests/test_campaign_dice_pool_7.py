"""``dice_pool_7`` campaign mechanics (RULES.md A17, A-g1, A-g20, A-g21).

Morality under an infraction schedule: hand-worked cases from the seed, closed forms,
a brute-force enumeration of check outcomes, Monte Carlo against the exact chain, thread
reproducibility and bad input.
"""

from __future__ import annotations

import itertools
from math import comb, sqrt

import numba
import numpy as np
import pytest

from engines.errors import InputError
from engines.systems.dice_pool_7 import campaign as cp
from engines.systems.dice_pool_7 import checks as dp7

# A1: a die fails (no success) on 1..6, so n dice give no success with probability 0.6**n
# (a 10 is itself a success, so explosion never matters for "no success").
FAIL = 0.6


def within(p_mc, p, n):
    return abs(p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n


def test_a17_seed_worked_example():
    """A17, seed 000: "Se um Changeling com Moralidade 6 sequestra alguém, ele precisa fazer
    um Teste de Moralidade, rolando 2 dados (como o ato é uma infração de M3). Se não obtiver
    nenhum sucesso, a Moralidade dele caí para 5. Se isso acontecer, ele precisa então fazer
    um Teste de Degeneração, rolando 5 dados".

    P(Morality 5) = P(2 dice, no success) = 0.6**2 = 0.36;
    P(derangement) = 0.36 * P(5 dice, no success) = 0.36 * 0.6**5 = 0.36 * 0.07776 = 0.0279936.
    """
    st = cp.morality_exact(morality=6, infraction=3, per_session=1, sessions=1)
    assert st.pmf()[1, 5] == pytest.approx(0.36, abs=1e-12)
    assert st.pmf()[1, 6] == pytest.approx(0.64, abs=1e-12)
    assert st.extra["derangements_mean"][1] == pytest.approx(0.0279936, abs=1e-12)
    # the check-level oracle agrees
    one = dp7.morality_check(3, 6)
    assert (one["dice"], one["degeneration_dice"]) == (2, 5)


def test_a17_infraction_above_morality_calls_no_check():
    """A17: only an infraction of level M ≤ current Morality calls a check (M5 at Morality 4)."""
    st = cp.morality_exact(morality=4, infraction=5, per_session=3, sessions=10)
    assert np.all(st.pmf()[:, 4] == 1.0)
    assert np.all(st.extra["derangements_mean"] == 0.0)


def test_a17_level5_settles_at_4_closed_form():
    """A17: M5 calls 3-dice checks while Morality ≥ 5, so Morality 7 falls to 4 and stays.

    Each check fails with q = 0.6**3 = 0.216. P(still 7 after k sessions) = 0.784**k; the
    first session at Morality ≤ 4 is the third failure: C(k-1, 2) q**3 (1-q)**(k-3).
    Derangements in the limit: one Degeneration check per drop, at the new Morality 6, 5, 4:
    0.6**6 + 0.6**5 + 0.6**4 = 0.046656 + 0.07776 + 0.1296 = 0.254016.
    """
    q = FAIL**3
    st = cp.morality_exact(morality=7, infraction=5, per_session=1, sessions=400, threshold=4)
    k = np.arange(401)
    np.testing.assert_allclose(st.pmf()[:, 7], (1 - q) ** k, atol=1e-12)
    ref = np.array([comb(int(j) - 1, 2) * q**3 * (1 - q) ** (j - 3) if j >= 3 else 0.0 for j in k])
    np.testing.assert_allclose(st.passage_pmf()[:-1], ref, atol=1e-12)
    assert st.pmf()[-1, 4] == pytest.approx(1.0, abs=1e-12)
    assert st.extra["derangements_mean"][-1] == pytest.approx(0.254016, abs=1e-9)


def test_a17_chance_die_degeneration_at_morality_0():
    """A17 + A-g1: Morality 1, an M1 infraction: 2 dice (0.36 to fall); the Degeneration
    check then rolls 0 dice = a chance die, which fails unless it shows 10: 0.9.
    Derangements: 0.36 * 0.9 = 0.324; at Morality 0 nothing more can happen."""
    st = cp.morality_exact(morality=1, infraction=1, per_session=1, sessions=3)
    assert st.pmf()[1, 0] == pytest.approx(0.36)
    assert st.extra["derangements_mean"][1] == pytest.approx(0.324)
    assert st.extra["derangements_mean"][3] == pytest.approx(0.324 * (1 + 0.64 + 0.64**2))


def _brute(morality, infraction, per_session, sessions, order):
    """Enumerate every pass/fail of every Morality and Degeneration check (A17)."""
    dice = dp7.MORALITY_DICE[infraction]
    dist = {}
    der = 0.0

    def no_success(n):
        return 0.9 if n == 0 else FAIL**n  # A-g1 chance die at 0 dice

    def walk(m, k, i, m0, p, d):
        nonlocal der
        if k == sessions:
            dist[m] = dist.get(m, 0.0) + p
            der += p * d
            return
        if i == per_session:
            walk(m, k + 1, 0, m, p, d)
            return
        level = m if order == "sequential" else m0
        if infraction > level or m == 0:
            walk(m, k, i + 1, m0, p, d)
            return
        pf = no_success(dice)
        walk(m, k, i + 1, m0, p * (1 - pf), d)
        pd = no_success(m - 1)
        walk(m - 1, k, i + 1, m0, p * pf * pd, d + 1)
        walk(m - 1, k, i + 1, m0, p * pf * (1 - pd), d)

    walk(morality, 0, 0, morality, 1.0, 0)
    return dist, der


@pytest.mark.parametrize(
    ("morality", "infraction", "per_session", "sessions", "order"),
    [
        (7, 5, 2, 3, "sequential"),
        (7, 5, 2, 3, "session_start"),
        (3, 2, 3, 2, "sequential"),
        (3, 2, 3, 2, "session_start"),
        (10, 8, 1, 4, "sequential"),
    ],
)
def test_a17_a_g21_chain_matches_brute_force(morality, infraction, per_session, sessions, order):
    """A17 with A-g21 (both orders): the chain equals an enumeration of every check."""
    v = cp.Variants(order=order)
    st = cp.morality_exact(morality, infraction, per_session, sessions, variants=v)
    dist, der = _brute(morality, infraction, per_session, sessions, order)
    ref = np.zeros(11)
    for m, p in dist.items():
        ref[m] = p
    np.testing.assert_allclose(st.pmf()[-1], ref, atol=1e-12)
    assert st.extra["derangements_mean"][-1] == pytest.approx(der, abs=1e-12)


def test_a_g21_session_start_by_hand():
    """A-g21: Morality 5, two M5 infractions in a session. Sequential: a first failure
    (0.216) leaves Morality 4, so the second calls no check; after a pass (0.784) the
    second checks at 5: P(4) = 0.216 + 0.784 * 0.216 = 0.385344, P(3) = 0. Session start:
    both check at 5, so two failures (0.216**2 = 0.046656) leave Morality 3."""
    seq = cp.morality_exact(5, 5, 2, 1)
    start = cp.morality_exact(5, 5, 2, 1, variants=cp.Variants(order="session_start"))
    assert seq.pmf()[1, 4] == pytest.approx(0.385344)
    assert seq.pmf()[1, 3] == 0.0
    assert start.pmf()[1, 3] == pytest.approx(0.216**2)
    assert start.pmf()[1, 4] == pytest.approx(2 * 0.216 * 0.784)


@pytest.mark.parametrize("order", ["sequential", "session_start"])
def test_a17_monte_carlo_matches_exact(order):
    """A17: MC per-session Morality, first passage and mean derangements vs the chain."""
    v = cp.Variants(order=order)
    n = 20_000
    ex = cp.morality_exact(8, 4, 2, 8, threshold=5, variants=v)
    mc = cp.morality_monte_carlo(8, 4, 2, 8, n, seed=7, threshold=5, variants=v)
    assert mc.dist.sum(axis=1).tolist() == [n] * 9
    for p_mc, p in zip(mc.pmf().ravel(), ex.pmf().ravel(), strict=True):
        assert within(p_mc, p, n)
    for p_mc, p in zip(mc.passage_pmf(), ex.passage_pmf(), strict=True):
        assert within(p_mc, p, n)
    se = mc.extra["derangements_mean_se"]
    diff = np.abs(mc.extra["derangements_mean"] - ex.extra["derangements_mean"])
    assert np.all(diff <= 5 * se + 1 / n)


def test_morality_mc_same_seed_on_1_and_2_threads():
    """Same seed → identical counts on 1 and 2 numba threads (two chunks of trials)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    before = numba.get_num_threads()
    try:
        runs = []
        for t in (1, 2):
            numba.set_num_threads(t)
            runs.append(cp.morality_monte_carlo(7, 5, 2, 5, 70_000, seed=11, threshold=5))
    finally:
        numba.set_num_threads(before)
    a, b = runs
    np.testing.assert_array_equal(a.dist, b.dist)
    np.testing.assert_array_equal(a.passage, b.passage)
    np.testing.assert_array_equal(a.extra["derangements_mean"], b.extra["derangements_mean"])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"morality": 11}, "morality"),
        ({"infraction": 0}, "infraction"),
        ({"per_session": -1}, "per_session"),
        ({"sessions": 1.5}, "sessions"),
        ({"threshold": 12}, "threshold"),
        ({"infraction": True}, "infraction"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, name):
    with pytest.raises(InputError, match=name):
        cp.morality_exact(**kwargs)
    with pytest.raises(InputError, match=name):
        cp.morality_monte_carlo(**kwargs, trials=10, seed=1)
    with pytest.raises(InputError, match="variants"):
        cp.morality_exact(variants=dp7.DEFAULT)


def test_mechanics_description_matches_functions():
    """MECHANICS lists every parameter of the functions with its default."""
    import inspect

    mech = cp.MECHANICS["morality"]
    sig = inspect.signature(mech.exact).parameters
    for p in mech.params:
        assert sig[p.name].default == p.default
    assert set(
        itertools.chain([p.name for p in mech.params], ["sessions", "threshold", "variants"])
    ) == set(sig)
