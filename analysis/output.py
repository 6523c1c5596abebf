"""Writing tables: csv, json, markdown or parquet, to stdout or atomically to a file."""

from __future__ import annotations

import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from engines.errors import InputError

FORMATS = ("csv", "json", "markdown", "parquet")


@contextmanager
def atomic_path(target: str | os.PathLike):
    """Yield a temporary path beside ``target``; move it into place only on success.

    An exception inside the block leaves any previous ``target`` untouched and removes
    the temporary file, so a failed run never leaves a half-written output.
    """
    target = Path(target)
    if not target.parent.exists():
        raise InputError(f"output: folder {str(target.parent)!r} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def render(frame, fmt: str) -> str | bytes:
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        return frame.to_json(orient="records", indent=1)
    if fmt == "markdown":
        return frame.to_markdown(index=False) + "\n"
    if fmt == "parquet":
        import io

        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()
    raise InputError(f"format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


def write_table(frame, fmt: str, path: str | None) -> None:
    """Render ``frame`` as ``fmt`` and print it or write it atomically to ``path``."""
    data = render(frame, fmt)
    if path is None or path == "-":
        if isinstance(data, bytes):
            raise InputError("format parquet needs an output file (-o FILE)")
        sys.stdout.write(data)
        return
    with atomic_path(path) as tmp:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            tmp.write_text(data)
