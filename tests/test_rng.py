"""Random-number primitives and the determinism of every Monte Carlo kernel.

Checks that dice are exactly uniform (exhaustively where the construction allows, by a
chi-square test otherwise), that seeds are normalised and validated, that trial splits sum,
and that the same seed gives bit-identical counts on 1 and 2 numba threads.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit
from scipy.stats import chisquare

from engines import rng
from engines.errors import InputError
from engines.systems.d20_degrees import checks as d20_degrees
from engines.systems.dice_pool_6 import checks as dice_pool_6
from engines.systems.dice_pool_7 import checks as dice_pool_7
from engines.systems.middle_3d10 import checks as middle_3d10
from engines.systems.percentile import checks as percentile
from engines.variants import parse_variants

#: Chi-square tests reject uniformity below this p-value. Seeds are fixed, so each test is
#: deterministic; 1e-4 leaves a true-uniform generator a 1-in-10,000 chance per test of a
#: false alarm on a new seed, while a bias of one face by 1 % over 10**6 dice gives p < 1e-6.
ALPHA = 1e-4


@njit
def _d10_faces(state, n):
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = rng.d10(state)
    return out


@njit
def _die_faces(state, n, sides):
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = rng.die(state, sides)
    return out


@njit
def _triple_digits(state, n_draws):
    s0, s1, s2, s3 = rng.load_state(state)
    out = np.zeros(3 * n_draws, dtype=np.int64)
    for i in range(n_draws):
        packed, s0, s1, s2, s3 = rng.d10_triples(s0, s1, s2, s3)
        for j in range(3):
            out[3 * i + j] = np.int64((packed >> np.uint64(10 * j)) & np.uint64(1023))
    rng.store_state(state, s0, s1, s2, s3)
    return out


def test_d10_triples_lemire_is_exact_over_every_21_bit_piece():
    """Exhaustive: of all 2**21 pieces, the accepted ones map to each of 0..999 exactly
    2**21 // 1000 times, so a triple (three d10 digits) is exactly uniform."""
    x = np.arange(1 << 21, dtype=np.uint64)
    m = x * np.uint64(1000)
    accepted = (m & np.uint64((1 << 21) - 1)) >= np.uint64((1 << 21) % 1000)
    counts = np.bincount((m[accepted] >> np.uint64(21)).astype(np.int64), minlength=1000)
    assert counts.size == 1000
    assert (counts == (1 << 21) // 1000).all()


@pytest.mark.slow
def test_d10_chi_square_uniform():
    """d10: 10**6 faces, chi-square over 10 faces, p > ALPHA; and the 10 × 10 table of
    consecutive pairs (independence within a digit buffer)."""
    faces = _d10_faces(rng.chunk_states(2024, 1)[0], 1_000_000)
    assert faces.min() == 1
    assert faces.max() == 10
    assert chisquare(np.bincount(faces, minlength=11)[1:]).pvalue > ALPHA
    pairs = (faces[0::2] - 1) * 10 + (faces[1::2] - 1)
    assert chisquare(np.bincount(pairs, minlength=100)).pvalue > ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("sides", [4, 6, 20, 100])
def test_die_chi_square_uniform(sides):
    """die(s, sides): 400,000 rolls, chi-square over the faces, p > ALPHA."""
    faces = _die_faces(rng.chunk_states(7, 1)[0], 400_000, sides)
    assert faces.min() == 1
    assert faces.max() == sides
    assert chisquare(np.bincount(faces, minlength=sides + 1)[1:]).pvalue > ALPHA


@pytest.mark.slow
def test_d10_triples_chi_square_uniform():
    """d10_triples: 300,000 draws → 900,000 values in 0..999 and their 2.7 million digits,
    chi-square p > ALPHA for the values, for each digit position, and for the three values
    of one draw against each other (pairs of leading digits)."""
    values = _triple_digits(rng.chunk_states(99, 1)[0], 300_000)
    assert values.max() <= 999
    assert chisquare(np.bincount(values, minlength=1000)).pvalue > ALPHA
    for digit in (values % 10, values // 10 % 10, values // 100):
        assert chisquare(np.bincount(digit, minlength=10)).pvalue > ALPHA
    lead = values.reshape(-1, 3) // 100
    for a, b in ((0, 1), (1, 2), (0, 2)):
        assert chisquare(np.bincount(lead[:, a] * 10 + lead[:, b], minlength=100)).pvalue > ALPHA


@pytest.mark.parametrize("bad", [-1, 1.5, True, "7"])
def test_seed_must_be_a_non_negative_integer(bad):
    """One seed argument, validated once: −1, floats, bools and strings are InputErrors."""
    with pytest.raises(InputError, match="seed"):
        rng.normalize_seed(bad)


def test_seed_forms():
    """None gives fresh entropy; an int or a SeedSequence gives the same states."""
    a = rng.chunk_states(5, 3)
    b = rng.chunk_states(np.random.SeedSequence(5), 3)
    np.testing.assert_array_equal(a, b)
    assert (a[:, :4] != 0).any(axis=1).all()
    assert not np.array_equal(rng.chunk_states(None, 3), rng.chunk_states(None, 3))


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_trials_must_be_positive(bad):
    """trials 0 (or negative, fractional, boolean) is an InputError naming trials."""
    with pytest.raises(InputError, match="trials"):
        rng.plan_chunks(bad)
    with pytest.raises(InputError, match="trials"):
        dice_pool_7.monte_carlo([3], bad, 1)


@pytest.mark.parametrize("trials", [1, 7, 32_767, 32_768, 100_003, 5_000_001])
def test_trial_splits_sum(trials):
    """Chunk sizes are as even as possible and sum to the trial count."""
    n_chunks, largest = rng.plan_chunks(trials)
    per = rng.chunk_trials(trials, n_chunks)
    assert per.sum() == trials
    assert per.max() == largest
    assert per.max() - per.min() <= 1


@pytest.mark.parametrize("trials", [1, 65_537, 100_003])
def test_counts_sum_to_trials(trials):
    """Every kernel returns exactly ``trials`` outcomes per parameter set."""
    assert (dice_pool_7.monte_carlo([0, 3, 9], trials, 1).sum(axis=1) == trials).all()
    assert (middle_3d10.monte_carlo(trials=trials, seed=1).sum(axis=1) == trials).all()


RUNS = {
    "dice_pool_7": lambda seed: dice_pool_7.monte_carlo(np.arange(-1, 12), 70_001, seed),
    "dice_pool_7-8again-chance-explodes": lambda seed: dice_pool_7.monte_carlo(
        np.arange(-1, 12),
        70_001,
        seed,
        parse_variants(dice_pool_7.Variants, ["again=8", "chance_die_explodes=true"]),
    ),
    "dice_pool_6": lambda seed: dice_pool_6.monte_carlo(np.arange(0, 12), 70_001, seed),
    "dice_pool_6-no-criticals": lambda seed: dice_pool_6.monte_carlo(
        np.arange(0, 12), 70_001, seed, parse_variants(dice_pool_6.Variants, ["criticals=false"])
    ),
    "middle_3d10": lambda seed: middle_3d10.monte_carlo(trials=70_001, seed=seed),
    "percentile": lambda seed: percentile.monte_carlo(trials=70_001, seed=seed),
    "d20_degrees": lambda seed: d20_degrees.monte_carlo(trials=70_001, seed=seed),
}


@pytest.fixture
def restore_threads():
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


@pytest.mark.parametrize("system", list(RUNS))
def test_same_seed_bit_identical_on_1_and_2_threads(system, restore_threads):
    """Same seed → identical counts on 1 and 2 numba threads; another seed differs."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    numba.set_num_threads(1)
    one = RUNS[system](12345)
    numba.set_num_threads(2)
    two = RUNS[system](12345)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(two, RUNS[system](12345))
    assert not np.array_equal(two, RUNS[system](12346))


@pytest.mark.parametrize(("settings", "chunks"), [(1, 1), (5, 2), (20, 1), (20, 5), (7, 64)])
def test_work_order_is_a_balanced_permutation(settings, chunks):
    """Every (setting × chunk) item is visited exactly once; with settings of cost
    1..n (pools 1..n), the two halves of the order carry nearly equal work."""
    order = rng.work_order(settings, chunks)
    assert sorted(order.tolist()) == list(range(settings * chunks))
    cost = order // chunks + 1
    half = order.size // 2
    if order.size > 1:
        assert abs(cost[:half].sum() - cost[half:].sum()) <= settings
