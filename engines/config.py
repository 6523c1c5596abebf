"""Numba settings, decided once for every kernel in the project.

Every kernel is compiled with :data:`JIT` (serial helpers, inlined into kernels) or
:data:`PJIT` (the parallel drivers). ``cache=True`` everywhere keeps the first-compile
cost to the first run on a machine.
"""

from __future__ import annotations

import numba

JIT = {"cache": True, "nogil": True, "fastmath": False}
PJIT = {**JIT, "parallel": True}
INLINE = {**JIT, "inline": "always"}

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
