"""Progress display for long runs: a tqdm bar on stderr, silent for short work."""

from __future__ import annotations

import sys

__all__ = ["bar"]


def bar(total: int, desc: str, **kw):
    """A tqdm progress bar on stderr (hidden when not a terminal unless forced)."""
    from tqdm.auto import tqdm

    return tqdm(
        total=total, desc=desc, file=sys.stderr, leave=False, disable=kw.pop("disable", None), **kw
    )
