"""Reading the suite's TOML input files with one clear error per problem."""

from __future__ import annotations

import hashlib
import os
import stat
import threading
import time
import tomllib
from pathlib import Path

from engines.errors import InputError

__all__ = ["RECENT_NS", "file_stamp", "read_toml", "read_toml_cached"]


def read_toml(path: str | Path, what: str) -> dict:
    """The parsed TOML file at ``path`` (``what`` names the kind of file in messages).

    Every failure is one :class:`InputError` naming the file: ``<path>: no such <what>``,
    ``<path>: is a folder, not a <what>``, ``<name>: not UTF-8 text``, ``<path>: cannot
    read: ...`` or ``<name>: not valid TOML: ...``.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{p}: no such {what}") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a folder, not a {what}") from None
    except UnicodeDecodeError:
        raise InputError(f"{p.name}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name}: not valid TOML: {exc}") from None


#: A file modified this recently (ns) may be rewritten again within one tick of its
#: timestamp (milliseconds on many file systems) with its mtime and size unchanged, so
#: its stamp also holds a digest of its bytes.
RECENT_NS = 2_000_000_000


def file_stamp(path: str | Path) -> tuple | None:
    """``(resolved path, mtime_ns, size, digest)`` of a regular file, the key under which
    its parsed contents are kept: ``digest`` is the SHA-1 of its bytes when it was modified
    in the last :data:`RECENT_NS` (else None). None when it is not a readable regular
    file (the read then says why)."""
    try:
        resolved = os.path.realpath(path)
        st = os.stat(resolved)
        if not stat.S_ISREG(st.st_mode):
            return None
        digest = None
        if time.time_ns() - st.st_mtime_ns < RECENT_NS:
            with open(resolved, "rb") as fh:
                digest = hashlib.sha1(fh.read()).hexdigest()
    except (OSError, ValueError):
        return None
    return resolved, st.st_mtime_ns, st.st_size, digest


#: the parsed data files: resolved path -> (stamp, parsed TOML); never handed out
_PARSED: dict[str, tuple[tuple, dict]] = {}
_LOCK = threading.Lock()


def _copy(value):
    """A copy of parsed TOML: new dicts and lists all the way down (the other values
    tomllib gives — str, int, float, bool, dates and times — are immutable)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def read_toml_cached(path: str | Path, what: str) -> dict:
    """:func:`read_toml`, parsing each file once while it stays the same.

    The parse is kept under the file's :func:`file_stamp` (resolved path, modification
    time in ns, size, and the bytes' digest while the file is new), so an edited file is
    read again. Each call returns its own copy, so a caller that changes what it gets
    changes nothing for the next one. Errors are :func:`read_toml`'s (a file that cannot
    be read is never kept).
    """
    stamp = file_stamp(path)
    if stamp is None:
        return read_toml(path, what)
    with _LOCK:
        kept = _PARSED.get(stamp[0])
    if kept is None or kept[0] != stamp:
        kept = (stamp, read_toml(path, what))
        with _LOCK:
            _PARSED[stamp[0]] = kept
    return _copy(kept[1])
