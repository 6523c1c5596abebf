"""The ruff rule set in pyproject.toml holds for the whole tree."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise",
                           "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
