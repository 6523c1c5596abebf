"""Shared test settings and fixtures."""

import importlib
import os
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

# Tests run the kernels on both cores unless a test pins the thread count itself.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_PACKAGE = ROOT / "examples" / "plugin_system"


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory) -> Path:
    """A site folder holding the sixth system as an installed outside package
    (examples/plugin_system, id ``pbta_2d6``), laid out the way an installer lays it out:
    the module plus a ``.dist-info`` folder with ``METADATA`` and ``entry_points.txt``
    read from the package's own pyproject.toml. Put it on ``PYTHONPATH`` for a subprocess
    (test_plugin_system.py) or use :func:`plugin_installed` in this process."""
    meta = tomllib.loads((PLUGIN_PACKAGE / "pyproject.toml").read_text())
    project = meta["project"]
    out = tmp_path_factory.mktemp("site")
    for mod in meta["tool"]["setuptools"]["py-modules"]:
        shutil.copy(PLUGIN_PACKAGE / f"{mod}.py", out / f"{mod}.py")
    dist = out / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    lines = []
    for group, eps in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines.extend(f"{k} = {v}" for k, v in eps.items())
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return out


@pytest.fixture
def plugin_installed(plugin_site):
    """The plug-in system registered in this process for one test (``sys.path`` and the
    system registry), and gone again afterwards, so other tests see the built-ins only."""
    from engines import system

    sys.path.insert(0, str(plugin_site))
    importlib.invalidate_caches()
    try:
        assert "pbta_2d6" in system.registry(refresh=True)
        yield plugin_site
    finally:
        sys.path.remove(str(plugin_site))
        importlib.invalidate_caches()
        system.registry(refresh=True)
