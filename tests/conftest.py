"""Shared test settings."""

import os

# Tests run the kernels on both cores unless a test pins the thread count itself.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
