"""Coverage is measured: ``python3 tasks.py test`` runs pytest with pytest-cov over the
four layers (``[tool.coverage]`` in pyproject.toml), numba kernels left out of the count
(compiled, never traced), measured in the test processes (not their subprocesses)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_pytest_cov_is_a_dev_dependency():
    names = [
        re.split(r"[<>=!~\[ ]", d, maxsplit=1)[0]
        for d in PYPROJECT["project"]["optional-dependencies"]["dev"]
    ]
    assert "pytest-cov" in names
    assert "pytest-xdist" in names


def test_coverage_covers_the_four_layers():
    run = PYPROJECT["tool"]["coverage"]["run"]
    assert sorted(run["source_pkgs"]) == ["analysis", "cli", "engines", "reports"]
    assert "subprocess" not in run.get("patch", [])  # the subprocesses cost 2x, see there


def test_tasks_test_measures_coverage_on_two_workers(monkeypatch):
    """The test command (which .ci/run calls) runs pytest on two xdist workers with
    ``--cov`` and a terminal summary that skips fully covered files."""
    sys.path.insert(0, str(ROOT))
    try:
        import tasks
    finally:
        sys.path.remove(str(ROOT))
    calls = []
    monkeypatch.setattr(tasks, "ensure_venv", lambda: Path(sys.executable))
    monkeypatch.setattr(tasks, "ensure_system_tools", lambda: None)
    monkeypatch.setattr(tasks.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    assert tasks.main(["test", "tests/test_rng.py"]) == 0
    warm, pytest_argv = calls
    assert warm[-2:] == ["cli", "warm-up"]
    assert pytest_argv[1:3] == ["-m", "pytest"]
    assert pytest_argv[-1] == "tests/test_rng.py"
    for flag in ("-n", "2", "--dist", "loadscope", "--cov", "--cov-report=term:skip-covered"):
        assert flag in pytest_argv


def _clean_env() -> dict:
    """This process's environment without a running measurement's subprocess hook (the
    suite itself may run under pytest-cov)."""
    return {
        k: v for k, v in os.environ.items() if not k.startswith(("COVERAGE_PROCESS", "COV_CORE"))
    }


@pytest.mark.slow
def test_a_measured_run_leaves_kernels_out(tmp_path):
    """Under the project's coverage settings the command line's lines are counted and the
    numba kernels' bodies are excluded lines, not missed ones."""
    data = tmp_path / "cov.data"
    code = "from cli.main import main\nassert main(['systems', '--columns', 'id']) == 0\n"
    script = tmp_path / "run.py"
    script.write_text(code)
    env = _clean_env()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "run",
            "--rcfile",
            str(ROOT / "pyproject.toml"),
            "--data-file",
            str(data),
            str(script),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[1] == "dice_pool_7", run.stdout
    out = tmp_path / "cov.json"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "coverage",
            "json",
            "--rcfile",
            str(ROOT / "pyproject.toml"),
            "--data-file",
            str(data),
            "-o",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
    )
    files = json.loads(out.read_text())["files"]
    # the command ran cli/systems.py: its command function's lines are executed
    systems = files["cli/systems.py"]
    assert systems["summary"]["covered_lines"] > 0
    source = (ROOT / "cli" / "systems.py").read_text().splitlines()
    run_systems = next(i for i, line in enumerate(source, 1) if "def run_systems" in line)
    assert run_systems + 1 in systems["executed_lines"]
    # a kernel body (engines/rng.py: the jitted d10) is excluded, not missing
    rng = (ROOT / "engines" / "rng.py").read_text().splitlines()
    d10 = next(i for i, line in enumerate(rng, 1) if line.startswith("def d10("))
    assert d10 in files["engines/rng.py"]["excluded_lines"]
    assert d10 + 1 not in files["engines/rng.py"]["missing_lines"]
