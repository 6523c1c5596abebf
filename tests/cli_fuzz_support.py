"""What the command-line fuzz tests share (``test_fuzz_cli.py``, ``test_fuzz_output.py``):
a tiny valid scenario and one CLI call with its output captured."""

from __future__ import annotations

import contextlib
import io

from cli.main import main

__all__ = ["GOOD", "run_cli"]

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
