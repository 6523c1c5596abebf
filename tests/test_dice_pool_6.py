"""``dice_pool_6`` (RULES.md section C): exact model and Monte Carlo against oracles.

Rule ids exercised: C1 (check), C2 (repetition), C3 (equipment), C4 (opposition),
C5 (specialty), C8 (teamwork), C9 (special checks), C10 (contest), C-g1 (6+),
C-g2 (criticals). C7 is measured elsewhere.
"""

from __future__ import annotations

import icepool
import numpy as np
import pytest
from check_oracles import assert_mc_matches, dense, pool_product

from analysis.checks.curves import success_curves
from engines.errors import InputError
from engines.systems.dice_pool_6 import checks as dp6
from engines.variants import parse_variants


def variants(**kw):
    return parse_variants(dp6.Variants, {k: str(v) for k, v in kw.items()})


@pytest.mark.parametrize("criticals", [True, False])
@pytest.mark.parametrize("threshold", [5, 6, 7, 9])
def test_c1_exact_matches_itertools(threshold, criticals):
    """C1, C-g1, C-g2: pools 0..5 against itertools over all 10**n rolls."""
    v = variants(threshold=threshold, criticals=criticals)
    probs, tail = dp6.exact(np.arange(0, 6), v, codes=20)
    for n in range(6):
        ref = dense(pool_product(n, threshold, 2 * criticals), 20)
        np.testing.assert_allclose(probs[n], ref, atol=1e-13, err_msg=f"pool {n}")
    assert tail.max() <= 1e-12


def _icepool_codes(n, threshold, crit, n_codes):
    # one die as successes + 1000 * tens; the sum of n dice then splits back exactly
    die = icepool.d10.map(lambda f: int(f >= threshold) + 1000 * int(f == 10))
    total = n @ die
    row = np.zeros(n_codes)
    for x, q in total.items():
        s, t = x % 1000, x // 1000
        row[min(1 + s + (t // 2) * crit, n_codes - 1)] += q / total.denominator()
    return row


@pytest.mark.parametrize("criticals", [True, False])
def test_c_g2_exact_matches_icepool(criticals):
    """C1/C-g2: pools 1..20 against icepool sums (pairs of 10s count 4 successes)."""
    v = variants(criticals=criticals)
    pools = np.arange(1, 21)
    probs, _ = dp6.exact(pools, v, codes=50)
    for i, n in enumerate(pools):
        np.testing.assert_allclose(
            probs[i], _icepool_codes(int(n), 6, 2 * criticals, 50), atol=1e-12, err_msg=f"pool {n}"
        )


def test_c_g2_pair_of_tens_by_hand():
    """C-g2 by hand: two dice both 10 → 4 successes (P 0.01); without criticals → 2."""
    probs, _ = dp6.exact([2], codes=10)
    assert probs[0, 5] == pytest.approx(0.01, abs=1e-15)
    assert probs[0, 3] == pytest.approx(0.5 * 0.5 - 0.01, abs=1e-15)
    plain, _ = dp6.exact([2], variants(criticals="false"), codes=10)
    assert plain[0, 3] == pytest.approx(0.25, abs=1e-15)


@pytest.mark.parametrize(
    "kw", [{"criticals": "false"}, {"threshold": 8}], ids=["no-criticals", "threshold8"]
)
def test_c1_monte_carlo_matches_exact_every_cell(kw):
    """C1/C-g2: MC vs exact in every cell (pools 0..20 × difficulty 1..10), tolerance
    5 * sqrt(p (1 - p) / n) + 1 / n, seed 23. The default rules: tests/test_conformance.py
    (monte_carlo check, the same grid, 40 000 trials)."""
    n = 20_000
    t = success_curves("dice_pool_6", "both", trials=n, seed=23, variants=variants(**kw))
    assert len(t) == 21 * 10
    assert_mc_matches(t["p_exact"], t["p_mc"], n, f"dice_pool_6 {kw}")


def test_c1_p_at_least_by_hand():
    """C1: one die at 6+ succeeds half the time; difficulty 1 with 3 dice is 1 - 0.5**3."""
    assert dp6.p_at_least(1, 1) == pytest.approx(0.5)
    assert dp6.p_at_least(3, 1) == pytest.approx(1 - 0.5**3)
    assert dp6.p_at_least(0, 1) == 0.0


def test_c1_negative_pool_is_an_input_error():
    """C1: a pool of −3 dice is rejected with a message naming the pool."""
    with pytest.raises(InputError, match="pool"):
        dp6.exact([-3])
    with pytest.raises(InputError, match="pool"):
        dp6.monte_carlo([-3], 100, 1)


def test_c2_repetition():
    """C2 / C-g3: −1 difficulty per retry, never below 1; variant retry_step."""
    assert dp6.retry_difficulty(4, 1) == 3
    assert dp6.retry_difficulty(2, 5) == 1
    assert dp6.retry_difficulty(4, 1, variants(retry_step=2)) == 2
    with pytest.raises(InputError, match="retries"):
        dp6.retry_difficulty(3, -1)


def test_c3_equipment():
    """C3: missing equipment → impossible; improvised → +1 difficulty."""
    assert dp6.equipment_difficulty(3, "proper") == 3
    assert dp6.equipment_difficulty(3, "improvised") == 4
    assert dp6.equipment_difficulty(3, "missing") is None
    with pytest.raises(InputError, match="equipment"):
        dp6.equipment_difficulty(3, "borrowed")


def test_c4_opposition():
    """C4: the resisting trait (0 counts as 1), or half the resisting pool rounded down
    (never below the minimum difficulty of 1, C1)."""
    assert dp6.opposition_difficulty(0) == 1
    assert dp6.opposition_difficulty(4) == 4
    half = variants(opposition="half_pool")
    assert dp6.opposition_difficulty(7, half) == 3
    assert dp6.opposition_difficulty(1, half) == 1


def test_c5_c8_specialty_and_teamwork():
    """C5 specialty +1 die; C8 leader's dice + 1 per helper with at least one dot."""
    assert dp6.SPECIALTY_DICE == 1
    assert dp6.teamwork_pool(5, [2, 0, 1]) == 7


def test_c9_special_check_single_die():
    """C9: a single die (no criticals, no rerolls): P = 5/10 at 6+, 3/10 at 8+."""
    assert dp6.special_check() == pytest.approx(0.5)
    assert dp6.special_check(variants(threshold=8)) == pytest.approx(0.3)


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (3, 2), (0, 2), (4, 4)])
def test_c10_contest_against_enumeration(a, b):
    """C10: the challenger wins with equal or more successes (both pools enumerated)."""
    pa = pool_product(a, 6, 2)
    pb = pool_product(b, 6, 2)
    ref = sum(p * q for ca, p in pa.items() for cb, q in pb.items() if ca >= cb)
    assert dp6.contest(a, b) == pytest.approx(ref, abs=1e-12)
