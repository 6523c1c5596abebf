"""The example plug-in (``examples/plugin_system``) laid out as an installer would lay it
out in a site folder: its packages (with their package data, without caches) and a
``.dist-info`` folder carrying its entry points, read from its own ``pyproject.toml``.
With the folder on ``PYTHONPATH`` the suite finds ``pbta_2d6`` through the entry-point
group, as it would after ``pip install``.

The suite's sites (:func:`kept_site`) are kept between sessions in ``.test-sites/``
(ignored by git), one folder per content of the example and of ``engines/``, so the
plug-in's numba kernels compile once per change of either, as the built-ins' do, not once
per session and worker. A test of the first compile itself (``test_fresh_install``)
makes its own."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"
#: where :func:`kept_site` keeps the suite's installed sites between sessions
SITES = ROOT / ".test-sites"


def _not_shipped(data: list[str]):
    """A ``copytree`` filter: what an installer leaves out of a package folder (caches,
    and files that are neither modules nor matched by its package-data globs)."""

    def ignore(folder: str, names: list[str]) -> list[str]:
        return [
            n
            for n in names
            if n == "__pycache__"
            or (
                (Path(folder) / n).is_file()
                and not n.endswith(".py")
                and not any(Path(n).match(g) for g in data)
            )
        ]

    return ignore


#: A second plug-in for the tests, ``pbta_checks``: the example's checks alone (no combat,
#: no campaign, no archetypes), for the commands and sections that need a part a system
#: does not declare.
CHECKS_ONLY = """import dataclasses

from pbta_2d6 import PLUGIN as _FULL

PLUGIN = dataclasses.replace(
    _FULL, id="pbta_checks", name="2d6 + modifier, checks only", combat=None,
    campaign=None, checks=dataclasses.replace(_FULL.checks, modifiers=()),
    audit=dataclasses.replace(_FULL.audit, health_trait=None, interaction_sweep=None))
"""


def install_plugin(out: Path, checks_only: bool = False) -> Path:
    """Install the example plug-in into the folder ``out`` (with ``checks_only`` also
    :data:`CHECKS_ONLY` as a second system); returns ``out``."""
    meta = tomllib.loads((PKG / "pyproject.toml").read_text())
    project, setup = meta["project"], meta["tool"]["setuptools"]
    out.mkdir(parents=True, exist_ok=True)
    for pkg in setup["packages"]:
        shutil.copytree(
            PKG / pkg, out / pkg, ignore=_not_shipped(setup.get("package-data", {}).get(pkg, []))
        )
    dist = out / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    lines = []
    for group, eps in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines.extend(f"{k} = {v}" for k, v in eps.items())
        if checks_only and group == "rpg_balance.systems":
            (out / "pbta_checks.py").write_text(CHECKS_ONLY)
            lines.append("pbta_checks = pbta_checks:PLUGIN")
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return out


def _content_key(checks_only: bool) -> str:
    """A digest of what an install lays out and what its compiled kernels depend on:
    every file of the example (caches left out), every source of ``engines/`` (numba
    keys a cached kernel on its own file only, and the example's kernels call the
    engines' helpers: an engine edit must not leave a stale compiled plug-in kernel),
    this module, and the ``checks_only`` choice."""
    h = hashlib.sha256(Path(__file__).read_bytes() + str(checks_only).encode())
    files = [(PKG, f) for f in sorted(PKG.rglob("*"))]
    files += [(ROOT, f) for f in sorted((ROOT / "engines").rglob("*.py"))]
    for base, f in files:
        if f.is_file() and "__pycache__" not in f.parts and f.suffix not in (".nbi", ".nbc"):
            h.update(str(f.relative_to(base)).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


def kept_site(checks_only: bool = False) -> Path:
    """The example installed (:func:`install_plugin`) into ``.test-sites/``, kept while the
    example is unchanged: its numba cache (``__pycache__`` beside each kernel file; the
    copies keep the sources' modification times, which the cache is keyed by) survives
    the session. Safe under parallel workers: a site is laid out in a private folder and
    renamed into place; the first rename wins. Sites of an older content are removed."""
    kind = "checks" if checks_only else "full"
    target = SITES / f"{kind}-{_content_key(checks_only)}"
    if not target.exists():
        SITES.mkdir(exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=SITES, prefix=".new-"))
        install_plugin(scratch / "site", checks_only=checks_only)
        with contextlib.suppress(OSError):  # another worker laid it out first
            os.rename(scratch / "site", target)
        shutil.rmtree(scratch, ignore_errors=True)
        for old in SITES.glob(f"{kind}-*"):
            if old != target:
                shutil.rmtree(old, ignore_errors=True)
    return target
