"""Work items on threads: the driver of the combat and campaign kernels.

Such a kernel is a serial numba function ``kernel(first, last, *args)`` that runs work items
``first .. last - 1`` (each item: its own random stream, its own scratch arrays, its own
row of every histogram). :func:`run_blocks` splits the items into one contiguous block per
numba thread and runs the blocks at once on Python threads (the kernels release the GIL:
``nogil``). The numbers never depend on the split: an item's result depends only on its
own stream.

Why not ``prange``: a ``parallel=True`` kernel links the whole compiled fight into its
parallel loop body and then into the kernel itself, and LLVM optimises it again at both
levels; the serial kernel is compiled once, in about half the time (``benchmarks/README.md``,
"Serial combat kernels"), at the same speed per core.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numba
from numba import njit

from .config import INLINE

__all__ = ["put", "run_blocks"]


def run_blocks(kernel: Callable, args: tuple, n_items: int) -> None:
    """``kernel(first, last, *args)`` over items ``0 .. n_items - 1``: one contiguous block
    per numba thread (:func:`numba.get_num_threads`), the calling thread taking the last.
    Returns once every started block has stopped; then an error in the caller's block is
    raised, else the first error of a worker block."""
    k = max(1, min(numba.get_num_threads(), n_items))
    cuts = [n_items * i // k for i in range(k + 1)]
    errors: list[BaseException] = []

    def block(i: int) -> None:
        try:
            kernel(cuts[i], cuts[i + 1], *args)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=block, args=(i,), daemon=True) for i in range(k - 1)]
    started: list[threading.Thread] = []
    try:
        for t in threads:
            t.start()
            started.append(t)
        kernel(cuts[k - 1], cuts[k], *args)
    finally:
        for t in started:
            t.join()
    if errors:
        raise errors[0]


@njit(**INLINE)
def put(dst, src):
    """``dst[...] = src`` for two C-contiguous arrays of the same size (an item's scratch
    histogram into its row), without the broadcasting checks numba compiles for a slice
    assignment (a size mismatch still raises)."""
    if dst.size != src.size:
        raise ValueError("put: source and destination sizes differ")
    d = dst.reshape(dst.size)
    z = src.reshape(src.size)
    for k in range(z.size):
        d[k] = z[k]
