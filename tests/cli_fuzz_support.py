"""What the command-line tests share: a tiny valid scenario (the fuzz tests,
``test_fuzz_cli.py``, ``test_fuzz_output.py``) and one CLI call in this process with its
output captured (:func:`run_cli`; :func:`cli_here` shaped as a subprocess's result, for
the rule-file tests, which keep one call in a real process each module family)."""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path

from cli.main import main

__all__ = ["GOOD", "cli_here", "run_cli"]

ROOT = Path(__file__).resolve().parents[1]

#: A tiny valid checks scenario.
GOOD = """name = "tiny"
system = "d20_degrees"
[[checks]]
axes = { modifier = [0, 5], dc = [10, 15], degree = [1] }
"""


def run_cli(argv):
    """``(exit code, stdout, stderr)`` of ``main(argv)``; ``--help`` exits through
    SystemExit."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse --help
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def cli_here(*args, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``rpg-balance ARGS`` run in this process from the folder ``cwd``: exit code,
    standard output and standard error as ``subprocess.run`` would return them, without
    a new interpreter's start-up and imports (about a second a call)."""
    with contextlib.chdir(cwd):
        rc, out, err = run_cli([str(a) for a in args])
    return subprocess.CompletedProcess(list(args), rc, out, err)
