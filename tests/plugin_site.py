"""The example plug-in (``examples/plugin_system``) laid out as an installer would lay it
out in a site folder: its packages (with their package data, without caches) and a
``.dist-info`` folder carrying its entry points, read from its own ``pyproject.toml``.
With the folder on ``PYTHONPATH`` the suite finds ``pbta_2d6`` through the entry-point
group, as it would after ``pip install``."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"


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
