"""Writing tables: csv, json, markdown or parquet, to stdout or atomically to a file.

Every output path goes through :func:`check_target` (before any work: a folder, a missing
or unwritable folder, a read-only file are refused with one line naming the path) and
:func:`atomic_path` (a failed write, e.g. a full disk, leaves the previous file as it was
and no temporary file behind, and ends in one :class:`InputError` line).
"""

from __future__ import annotations

import errno
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from engines.errors import InputError

__all__ = [
    "FORMATS",
    "PROVENANCE",
    "atomic_path",
    "check_folder",
    "check_target",
    "render",
    "with_provenance",
    "write_table",
]

FORMATS = ("csv", "json", "markdown", "parquet")


def _reason(exc: OSError) -> str:
    """The plain-language problem of an OSError (no path, no errno number)."""
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "not writable (permission denied or read-only file system)"
    if exc.errno == errno.EISDIR:
        return "is a folder, expected a file"
    if exc.errno == errno.ENOENT:
        return "folder does not exist"
    return (exc.strerror or str(exc)).lower()


def _writable_dir(folder: Path) -> bool:
    """True when a file can be created in ``folder`` (tried for real, then removed).

    A folder without any write permission bit counts as read-only even for a user (root)
    whom the system would let write there."""
    try:
        if not os.access(folder, os.W_OK) or not folder.stat().st_mode & 0o222:
            return False
        fd, probe = tempfile.mkstemp(prefix=".probe.", suffix=".part", dir=folder)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


def check_target(path: str | os.PathLike, flag: str = "-o") -> None:
    """Raise :class:`InputError` (one line naming ``flag`` and ``path``) when a file
    cannot be written at ``path``: it is a folder, its folder is missing or unwritable,
    or it exists and is read-only or not a regular file. Call before long computations."""
    p = Path(path)
    where = f"{flag} {str(path)!r}"
    parent = p.absolute().parent
    if p.is_dir():
        raise InputError(f"{where}: is a folder, expected a file")
    if not parent.exists():
        raise InputError(f"{where}: folder {str(p.parent)!r} does not exist")
    if not parent.is_dir():
        raise InputError(f"{where}: {str(p.parent)!r} is not a folder")
    if p.exists():
        if not p.is_file():
            raise InputError(f"{where}: not a regular file")
        if not os.access(p, os.W_OK) or not p.stat().st_mode & 0o222:
            raise InputError(f"{where}: the file is read-only")
    if not _writable_dir(parent):
        raise InputError(f"{where}: folder {str(p.parent) or '.'!r} is not writable")


def check_folder(path: str | os.PathLike, flag: str = "-o") -> None:
    """Like :func:`check_target` for an output folder (created later if missing, so its
    parent must exist)."""
    p = Path(path)
    where = f"{flag} {str(path)!r}"
    if p.exists():
        if not p.is_dir():
            raise InputError(f"{where}: exists and is not a folder")
        folder = p
    else:
        folder = p.absolute().parent
        if not folder.is_dir():
            raise InputError(f"{where}: folder {str(p.parent)!r} does not exist")
    if not _writable_dir(folder):
        raise InputError(f"{where}: folder {str(folder)!r} is not writable")


@contextmanager
def atomic_path(target: str | os.PathLike, flag: str = "output"):
    """Yield a temporary path beside ``target``; move it into place only on success.

    An exception inside the block leaves any previous ``target`` untouched and removes
    the temporary file, so a failed run never leaves a half-written output. A failing
    write (full disk, permissions) ends in one :class:`InputError` naming ``target``.
    """
    target = Path(target)
    where = f"{flag} {str(target)!r}"
    if target.is_dir():
        raise InputError(f"{where}: is a folder, expected a file")
    if not target.parent.exists():
        raise InputError(f"{where}: folder {str(target.parent)!r} does not exist")
    if target.is_file() and not target.stat().st_mode & 0o222:
        raise InputError(f"{where}: the file is read-only")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    except OSError as exc:
        raise InputError(f"{where}: {_reason(exc)}") from None
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except OSError as exc:
        raise InputError(f"{where}: {_reason(exc)}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


#: Provenance keys every written table records (columns it lacks are added).
PROVENANCE = ("system", "variants", "method", "trials", "rule_edits")


def with_provenance(frame, provenance: dict | None, fmt: str = "csv"):
    """``frame`` recording what produced it: for csv, json and markdown the
    :data:`PROVENANCE` columns it does not already have (same value on every row); for
    parquet the file's metadata (``frame.attrs["provenance"]``, which pandas stores in
    the parquet schema) and no new column. Columns already present win (a table whose
    rows differ in system or method keeps its own)."""
    if not provenance:
        return frame
    prov = {k: provenance[k] for k in PROVENANCE if k in provenance}
    out = frame.copy()
    out.attrs["provenance"] = {k: ("" if v is None else v) for k, v in prov.items()}
    if fmt == "parquet":
        return out
    for key, value in prov.items():
        if key not in out.columns:
            out[key] = value
    return out


def render(frame, fmt: str, provenance: dict | None = None) -> str | bytes:
    frame = with_provenance(frame, provenance, fmt)
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        return frame.to_json(orient="records", indent=1)
    if fmt == "markdown":  # a "|" inside a cell is escaped, as GitHub's tables read it
        cells = frame.copy()
        for col in cells.columns:
            if any(isinstance(v, str) and "|" in v for v in cells[col]):
                cells[col] = [
                    v.replace("|", "\\|") if isinstance(v, str) else v for v in cells[col]
                ]
        cells.columns = [str(c).replace("|", "\\|") for c in cells.columns]
        return cells.to_markdown(index=False) + "\n"
    if fmt == "parquet":
        import io

        from analysis.package import require

        require("parquet", "--format parquet")
        buf = io.BytesIO()
        frame.to_parquet(buf, index=False)
        return buf.getvalue()
    raise InputError(f"format: expected one of {', '.join(FORMATS)}, got {fmt!r}")


def write_table(frame, fmt: str, path: str | None, provenance: dict | None = None) -> None:
    """Render ``frame`` as ``fmt`` (recording ``provenance``: :func:`with_provenance`)
    and print it or write it atomically to ``path``."""
    data = render(frame, fmt, provenance)
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
