"""The installed package: its version and its optional extras.

:func:`version` reads the distribution's metadata (``importlib.metadata``); a source tree
that is not installed falls back to the version in its ``pyproject.toml``.

Panel, Dask, Optuna, WeasyPrint and pyarrow each serve one command and are optional
extras (``pyproject.toml``: ``web``, ``dask``, ``tune``, ``pdf``, ``parquet``; ``all``
pulls them all). A command that needs one calls :func:`require` at its entry, before any
work; a missing library ends in one :class:`MissingExtra` line naming the extra to
install (``cli.main`` prints it, exit code 2). No module of the core (engines, analysis,
reports outside the workbench page, cli) imports an optional library at module level.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from engines.errors import InputError

__all__ = ["DISTRIBUTION", "EXTRAS", "MissingExtra", "require", "version"]

#: The distribution's name (``pip install rpg-balance``).
DISTRIBUTION = "rpg-balance"

#: Each optional extra and the top-level modules it provides (what :func:`require` imports).
EXTRAS: dict[str, tuple[str, ...]] = {
    "web": ("panel",),
    "dask": ("dask", "distributed"),
    "tune": ("optuna",),
    "pdf": ("weasyprint",),
    "parquet": ("pyarrow",),
}


class MissingExtra(InputError):
    """A command needs an optional extra that is not installed (one line, exit code 2)."""


def require(extra: str, what: str) -> None:
    """Import the modules of ``extra`` (:data:`EXTRAS`) or raise :class:`MissingExtra`:
    ``"<what>: needs the optional 'web' extra: pip install 'rpg-balance[web]'"``.

    ``what`` names what needs it, as the designer typed it (``"rpg-balance serve"``,
    ``"--format parquet"``). An import that fails inside an installed library (a broken
    install) counts as missing too; its own message follows in parentheses.
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; expected one of {', '.join(EXTRAS)}")
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            missing = getattr(exc, "name", None)
            detail = "" if missing in (module, None) else f" ({exc})"
            raise MissingExtra(
                f"{what}: needs the optional {extra!r} extra: "
                f"pip install '{DISTRIBUTION}[{extra}]'{detail}"
            ) from None


def version() -> str:
    """The installed version (package metadata); from a source tree that is not installed,
    the version in its ``pyproject.toml``; ``"unknown"`` when neither is there."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        pass
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return "unknown"
    if project.get("name") != DISTRIBUTION:
        return "unknown"
    return str(project.get("version", "unknown"))
