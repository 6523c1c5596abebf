"""engines.blocks: the combat kernels' work items on threads."""

from __future__ import annotations

import itertools
import threading
import time

import numba
import numpy as np
import pytest

from engines.blocks import put, run_blocks
from engines.config import set_threads


@pytest.fixture
def two_threads():
    before = numba.get_num_threads()
    set_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield numba.get_num_threads()
    set_threads(before)


@pytest.mark.parametrize("n_items", [1, 2, 3, 7, 64])
def test_every_item_runs_once_in_contiguous_blocks(n_items, two_threads):
    seen: list[tuple[int, int, int]] = []
    lock = threading.Lock()

    def kernel(first, last, out):
        with lock:
            seen.append((first, last, threading.get_ident()))
        for i in range(first, last):
            out[i] += 1

    out = np.zeros(n_items, np.int64)
    run_blocks(kernel, (out,), n_items)
    assert out.tolist() == [1] * n_items
    blocks = sorted((f, last) for f, last, _ in seen)
    assert blocks[0][0] == 0
    assert blocks[-1][1] == n_items
    assert all(a[1] == b[0] for a, b in itertools.pairwise(blocks))
    assert len(blocks) == min(two_threads, n_items)
    # the calling thread takes the last block; the others run on their own threads
    assert max(seen, key=lambda s: s[0])[2] == threading.get_ident()
    assert len({t for *_, t in seen}) == len(blocks)


def test_an_error_in_a_worker_block_reaches_the_caller(two_threads):
    if two_threads < 2:
        pytest.skip("one numba thread: no worker block")
    done = []

    def kernel(first, last):
        if first == 0:
            raise ValueError("block 0 failed")
        done.append((first, last))

    with pytest.raises(ValueError, match="block 0 failed"):
        run_blocks(kernel, (), 4)
    assert done == [(2, 4)]  # the caller's own block still ran to its end


def test_an_error_in_the_callers_block_waits_for_the_workers(two_threads):
    if two_threads < 2:
        pytest.skip("one numba thread: no worker block")
    done = []

    def kernel(first, last):
        if first > 0:
            raise KeyError("caller's block failed")
        time.sleep(0.2)
        done.append((first, last))

    with pytest.raises(KeyError, match="caller's block failed"):
        run_blocks(kernel, (), 4)
    assert done == [(0, 2)]  # the worker's block had finished before the error surfaced


def test_one_thread_runs_everything_in_the_caller():
    before = numba.get_num_threads()
    set_threads(1)
    try:
        idents = []
        run_blocks(lambda first, last: idents.append((first, last, threading.get_ident())), (), 5)
    finally:
        set_threads(before)
    assert idents == [(0, 5, threading.get_ident())]


def test_put_refuses_arrays_of_different_sizes():
    with pytest.raises(ValueError, match="sizes differ"):
        put(np.zeros((2, 3), np.int64), np.ones(7, np.int64))


def test_put_copies_a_scratch_histogram_into_its_row():
    dst = np.zeros((3, 2, 4), np.int64)
    src = np.arange(8, dtype=np.int64).reshape(2, 4)
    put(dst[1], src)
    assert dst[1].tolist() == src.tolist()
    assert not dst[0].any()
    assert not dst[2].any()


@pytest.mark.parametrize(
    ("system", "kernel"),
    [
        ("dice_pool_7", "fight_kernel"),
        ("dice_pool_6", "fight_kernel"),
        ("middle_3d10", "mc_kernel"),
        ("percentile", "mc_kernel"),
        ("d20_degrees", "fight_kernel"),
    ],
)
def test_combat_kernels_are_serial_and_give_the_same_fights_on_one_or_two_threads(system, kernel):
    """A combat kernel is one serial function (no ``prange``: compiled once); the threads
    only split the work items, so one and two threads give the same counts."""
    from analysis.combat import archetypes

    eng = archetypes.engine(system)
    assert not getattr(eng, kernel).targetoptions.get("parallel", False)
    names = archetypes.names(system)
    a, b = archetypes.combatant(system, names[0]), archetypes.combatant(system, names[-1])
    before = numba.get_num_threads()
    runs = []
    try:
        for k in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            set_threads(k)
            runs.append(eng.duel_mc(a, b, trials=70_000, seed=11))
    finally:
        set_threads(before)
    from engines.fight import HIST_FIELDS

    for f in HIST_FIELDS:
        assert np.array_equal(getattr(runs[0], f), getattr(runs[1], f)), f
    assert runs[0].trials == 70_000
    assert int(runs[0].outcome.sum()) == 70_000
