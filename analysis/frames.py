"""Reading tidy tables row by row, for the type checker as for the reader.

The pandas stubs type each field of :meth:`pandas.DataFrame.itertuples` as any scalar
(a string, a date, a complex number …), and a group's key likewise; the tables here hold
the columns their builders put in them, so :func:`each_row` and :func:`each_group` hand
them on typed ``Any``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd

__all__ = ["each_group", "each_row"]


def each_group(frame: pd.DataFrame, by: str) -> Iterator[tuple[Any, pd.DataFrame]]:
    """``frame.groupby(by, sort=False)``: (the key, the rows) per value of column ``by``, in
    order of first appearance; the key typed ``Any`` (the stubs: any scalar)."""
    return iter(frame.groupby(by, sort=False))


def each_row(frame: pd.DataFrame, *, index: bool = False) -> Iterator[Any]:
    """``frame.itertuples(index=index)``: one named tuple per row, fields by column name."""
    return frame.itertuples(index=index)
