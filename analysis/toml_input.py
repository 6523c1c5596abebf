"""Reading the suite's TOML input files with one clear error per problem."""

from __future__ import annotations

import tomllib
from pathlib import Path

from engines.errors import InputError


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
