"""Batched Monte Carlo with a progress bar: the split never changes a count (A1, B1, D4,
E9 kernels), and the bar advances over every roll setting."""

import io

import numba
import numpy as np
import pytest
from tqdm import tqdm

import analysis.checks.curves as ac
from engines import checks
from engines.rolls import POOL
from engines.system import BUILT_IN, registry


@pytest.mark.parametrize("system", BUILT_IN)
def test_settings_mc_equals_engine_monte_carlo(system, monkeypatch):
    """analysis.checks.curves.settings_mc (batched, with a bar) gives the engine module's
    monte_carlo counts for the same seed, bit for bit (the built-ins' kernels and calling
    conventions; a plug-in's Monte Carlo is checked by the conformance checks)."""
    made = []

    def fake_bar(total, desc, **kw):
        b = tqdm(total=total, desc=desc, file=io.StringIO(), disable=False, mininterval=0)
        made.append(b)
        return b

    monkeypatch.setattr(ac, "bar", fake_bar)
    v = ac.variants_for(system)
    grid = ac.build_grid(system, v)
    n_codes = grid.mask.shape[1]
    got = ac.settings_mc(system, grid.settings, v, n_codes, 40_000, 11, progress=True)
    mod = registry()[system].checks.engine()
    if system in ("dice_pool_7", "dice_pool_6"):
        want = mod.monte_carlo(grid.settings, 40_000, 11, v, n_codes)
    else:
        want = mod.monte_carlo(grid.settings, 40_000, 11, v)
    assert np.array_equal(got, want)
    if system in ("dice_pool_7", "dice_pool_6"):
        assert made == []  # pools run in their own kernel, in one go, well under a second
        return
    assert len(made) == 1
    assert made[0].n == len(grid.settings)  # the bar reached the end


def test_batches_and_threads_do_not_change_counts():
    args = (POOL, np.arange(0, 9), np.array([7, 10, 0, 1, 0]), 30, 50_000, 3)
    calls = []
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = checks.run(*args)
        numba.set_num_threads(2)
        for k in (1, 2, 4, 100):
            batched = checks.run(*args, batch_sets=k, progress=calls.append)
            assert np.array_equal(one, batched)
    finally:
        numba.set_num_threads(before)
    assert sum(calls) == 4 * 9  # every set reported once per run


def test_short_runs_show_no_bar():
    assert ac.mc_progress(5, 1000, "x", None) is None
    assert ac.mc_progress(5, 10**9, "x", False) is None
