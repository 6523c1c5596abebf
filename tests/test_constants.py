"""One home for the constants the suite shares (:mod:`engines.constants`): it imports
nothing (no numpy, so the command line's ``--help`` stays cheap), and no module of the
four layers retypes the round cap or a default seed as a number.

The guard parses the source of ``engines/``, ``analysis/``, ``reports/`` and ``cli/``
and flags a parameter, field, keyword argument or ``x or N`` fallback named ``round_cap`` or
``seed`` whose value is a number, and the report's seed anywhere but its home."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from engines import constants

ROOT = Path(__file__).resolve().parents[1]
HOME = "engines/constants.py"
NAMES = ("round_cap", "seed")
#: the values an argument of that name takes from engines.constants (another number there,
#: such as the warm-up's tiny ``round_cap=3``, is a choice of its own)
SHARED = {
    "round_cap": {constants.ROUND_CAP},
    "seed": {
        constants.STUDY_SEED,
        constants.WORKBENCH_SEED,
        constants.WARM_UP_SEED,
        constants.REPORT_SEED,
    },
}


def _number(node) -> bool:
    """An int literal, or ``Field(<int literal>, ...)`` (a pydantic field's default)."""
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Field" and node.args:
        node = node.args[0]
    return isinstance(node, ast.Constant) and type(node.value) is int


def _name(node) -> str | None:
    return getattr(node, "id", None) or getattr(node, "attr", None) or getattr(node, "arg", None)


def retyped(source: str, rel: str) -> list[str]:
    """``rel:line: what`` for every number standing for a shared constant."""
    found = []
    for node in ast.walk(ast.parse(source)):
        where = f"{rel}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            positional = [*a.posonlyargs, *a.args]
            pairs = [
                *zip(positional[len(positional) - len(a.defaults) :], a.defaults, strict=True),
                *zip(a.kwonlyargs, a.kw_defaults, strict=True),
            ]
            found += [
                f"{where}: parameter {arg.arg} = a number"
                for arg, default in pairs
                if arg.arg in NAMES and default is not None and _number(default)
            ]
        elif (
            isinstance(node, ast.AnnAssign)
            and _name(node.target) in NAMES
            and node.value is not None
            and _number(node.value)
        ):
            found.append(f"{where}: field {_name(node.target)} = a number")
        elif (
            isinstance(node, ast.keyword)
            and node.arg in NAMES
            and _number(node.value)
            and node.value.value in SHARED[node.arg]
        ):
            found.append(f"{rel}:{node.value.lineno}: argument {node.arg}= a shared value")
        elif (
            isinstance(node, ast.BoolOp)
            and isinstance(node.op, ast.Or)
            and any(_name(v) in NAMES for v in node.values)
            and any(_number(v) for v in node.values)
        ):
            found.append(f"{where}: {_name(node.values[0])} or a number")
        elif isinstance(node, ast.Constant) and node.value == constants.REPORT_SEED and rel != HOME:
            found.append(f"{where}: the report's seed")
    return found


def test_constants_import_nothing():
    """``engines.constants`` loads no numpy (nor anything else of the suite)."""
    code = (
        "import sys; import engines.constants; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numpy', 'numba', 'pydantic', 'analysis', 'reports', 'cli')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
    tree = ast.parse((ROOT / HOME).read_text(encoding="utf-8"))
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert [getattr(n, "module", None) for n in imports] == ["__future__"]


def test_no_shared_constant_is_retyped():
    found = []
    for folder in ("engines", "analysis", "reports", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            found += retyped(path.read_text(encoding="utf-8"), rel)
    assert found == []


def test_the_old_homes_hold_the_same_objects():
    """``engines.fight`` and ``engines.distance`` read theirs here: one tuple, not two."""
    from engines import distance, fight

    assert fight.ROUND_CAP is constants.ROUND_CAP
    assert fight.AFTERMATHS is constants.AFTERMATHS
    assert distance.PLANS is constants.PLANS


@pytest.mark.parametrize(
    "source",
    [
        "def duel(a, b, round_cap: int = 50):\n    pass\n",
        "def run(*, seed=0):\n    pass\n",
        "class S:\n    round_cap: int = Field(50, ge=1)\n",
        "class S:\n    seed: int = 1\n",
        "cap = args.round_cap or 50\n",
        "stats = duel_mc(a, b, trials=64, seed=1)\n",
        "stats = duel_exact(a, b, round_cap=50)\n",
        "SEED = 20261129\n",
    ],
)
def test_the_guard_catches_a_retyped_constant(source):
    assert retyped(source, "analysis/probe.py")


def test_the_guard_leaves_other_numbers_alone():
    source = (
        "def f(trials: int = 20_000, seed=None, round_cap: int = ROUND_CAP):\n"
        "    return duel_exact(a, b, round_cap=3, seed=seed + 1) or 1\n"
    )
    assert retyped(source, "analysis/probe.py") == []
