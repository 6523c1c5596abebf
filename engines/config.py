"""Numba settings, decided once for every kernel in the project.

Every kernel is compiled with :data:`JIT` (serial helpers, inlined into kernels),
:data:`PJIT` (the parallel drivers) or :data:`KERNEL` (the combat and campaign kernels).
``cache=True`` everywhere keeps the first-compile cost to the first run on a machine.
"""

from __future__ import annotations

import numba

__all__ = [
    "INLINE",
    "JIT",
    "KERNEL",
    "LEAF",
    "MAX_CHUNKS",
    "MIN_CHUNK_TRIALS",
    "PJIT",
    "set_threads",
]

JIT = {"cache": True, "nogil": True, "fastmath": False}
PJIT = {**JIT, "parallel": True}
INLINE = {**JIT, "inline": "always"}
#: A fight helper compiled once on its own and inlined by LLVM into its callers
#: (``forceinline``), instead of numba copying its IR into every call site
#: (``inline="always"``, whose cost grows with the size and nesting of the callees). It
#: runs without numba's reference counting (``_nrt=False``: it may not allocate arrays;
#: its callers pass every scratch array in) and with the error model numba gives a
#: parallel loop body (``numpy``), so inlined into a kernel it draws the same numbers at
#: the same speed as numba's own inlining, for a fraction of the compile time.
LEAF = {
    "cache": True,
    "nogil": True,
    "fastmath": False,
    "_nrt": False,
    "error_model": "numpy",
    "forceinline": True,
}

#: A combat or campaign kernel: a serial loop over a block of work items, one block per
#: Python thread (:func:`engines.blocks.run_blocks`; ``nogil`` lets the blocks run at
#: once), with the numpy error model of the ``prange`` body it replaces. Serial, the
#: compiled fight is optimised by LLVM once, not again in a parallel loop body and in its
#: driver.
KERNEL = {**JIT, "error_model": "numpy"}

#: Trials per work item below which a run is not split further (keeps tiny runs serial).
MIN_CHUNK_TRIALS = 1 << 15
#: Upper bound on chunks per parameter set. Fixed, so the split (and hence every random
#: stream) depends only on the number of trials, never on the number of threads.
MAX_CHUNKS = 64


def set_threads(n: int | None) -> int:
    """Set the number of numba threads (``None`` = all); returns the number in force."""
    if n is not None:
        numba.set_num_threads(int(n))
    return numba.get_num_threads()
