"""The ruff rule set and the ruff format style in pyproject.toml hold for the whole tree,
and pre-commit runs the same two commands."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_clean():
    done = _ruff("check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


# The tree was reformatted by one commit of its own (.git-blame-ignore-revs).
def test_ruff_format_clean():
    done = _ruff("format", "--check", ".")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr


def test_pre_commit_runs_ruff_check_and_format_locally():
    """The hooks need no network (``repo: local``, ``language: system``) and run the
    commands the two tests above run."""
    import yaml

    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["repo"] == "local"
    entries = {hook["entry"].split()[3] for hook in repo["hooks"]}
    assert entries == {"check", "format"}
    assert {hook["language"] for hook in repo["hooks"]} == {"system"}
