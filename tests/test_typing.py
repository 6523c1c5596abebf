"""mypy, configured in pyproject.toml ([tool.mypy]: analysis, reports and cli; the numba
kernels of engines read for their types only), finds no error.

mypy runs in a subprocess from the project root with its incremental cache in
``.mypy_cache`` (git-ignored), so the test command re-checks only what changed: about a
third of a minute of CPU cold (3.5 min on busy shared cores), about 5 s warm.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_configured_for_the_three_packages():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["analysis", "reports", "cli"]
    # every file of the three packages checked: none left out, none read silently
    assert not config.get("exclude")
    silent = [
        o["module"]
        for o in config.get("overrides", ())
        if o.get("follow_imports") == "silent" or o.get("ignore_errors")
    ]
    assert not [
        m for mods in silent for m in mods if m.split(".")[0] in ("analysis", "reports", "cli")
    ], silent
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    engines = [o for o in overrides.get("overrides", ()) if "engines.*" in o["module"]]
    assert engines == [{"module": ["engines", "engines.*"], "follow_imports": "silent"}]


@pytest.mark.slow
def test_mypy_clean():
    pytest.importorskip("mypy")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            "--no-error-summary",
            "--hide-error-context",
            "--no-pretty",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0, "\n".join(errors[:50]) or done.stdout + done.stderr
    assert errors == []
