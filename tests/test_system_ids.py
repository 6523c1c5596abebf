"""One registry: no code outside a system's own files names a system by its id.

Every lookup of a system goes through :func:`engines.system.registry` (its one list of
built-in ids is :data:`engines.system.BUILT_IN`); per-system facts are hooks of the
system's ``System`` or data in its own files. This test parses the source (string
constants in code, docstrings and help texts aside) of ``engines/``, ``analysis/``,
``reports/`` and ``cli/`` and fails on any constant equal to a system id outside the
allowed places."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engines.system import BUILT_IN

ROOT = Path(__file__).resolve().parents[1]

#: where a system id may appear in code, and why
ALLOWED = {
    "engines/system.py": "BUILT_IN, the one list of the built-in ids",
}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def id_constants(path: Path, ids=BUILT_IN) -> list[str]:
    """``file:line`` of every string constant in code equal to one of ``ids``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    rel = path.relative_to(ROOT).as_posix()
    return [
        f"{rel}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and node.value in ids
    ]


def _own_package(rel: str) -> bool:
    """A system's own package may name itself (``engines/systems/<id>/``)."""
    parts = rel.split("/")
    return parts[:2] == ["engines", "systems"] and len(parts) > 3


def test_no_system_id_outside_its_own_files():
    found = []
    for folder in ("engines", "analysis", "reports", "cli"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in ALLOWED or _own_package(rel):
                continue
            found += id_constants(path)
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        'SYSTEMS = ("dice_pool_7", "percentile")\n',
        'def f(system):\n    return system == "d20_degrees"\n',
        'X = {"middle_3d10": 1}\n',
    ],
)
def test_the_guard_catches_an_id(tmp_path, source):
    path = ROOT / "analysis" / "_probe_ids.py"
    try:
        path.write_text(source, encoding="utf-8")
        assert id_constants(path)
    finally:
        path.unlink()


def test_the_guard_ignores_docstrings_and_help(tmp_path):
    path = ROOT / "analysis" / "_probe_ids_doc.py"
    try:
        path.write_text(
            '"""About dice_pool_7."""\n\ndef f():\n    """percentile"""\n'
            '    return "rpg-balance curves dice_pool_7 --seed 1"\n',
            encoding="utf-8",
        )
        assert id_constants(path) == []
    finally:
        path.unlink()
