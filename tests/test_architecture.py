"""The dependency direction of docs/ARCHITECTURE.md, checked on the source with ``ast``.

Layers, bottom to top: ``engines`` → ``analysis`` → ``reports`` → ``cli``. A module may
import only from its own layer or the layers below; nothing imports ``cli``; the engines
stay free of pandas and matplotlib, and only the modules that validate the archetype
libraries' data files (``engines.archetype_library`` and each system's
``engines.systems.<id>.archetypes``) import pydantic or tomllib. Inside ``analysis``: the
shared modules (``output``, ``progress``, ``toml_input``) import no subpackage,
``analysis.checks`` imports neither ``analysis.combat`` nor ``analysis.workflow``, and
``analysis.combat`` does not import ``analysis.workflow``. No two modules of the project
import each other, directly or round a longer circle (lazy imports inside functions count
too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "analysis", "reports", "cli")

#: (importer prefix, forbidden import prefixes)
RULES = [
    ("engines", ("analysis", "reports", "cli", "pandas", "matplotlib")),
    ("analysis", ("reports", "cli")),
    ("reports", ("cli",)),
    ("analysis.output", ("analysis.checks", "analysis.combat", "analysis.workflow")),
    ("analysis.progress", ("analysis.checks", "analysis.combat", "analysis.workflow")),
    ("analysis.toml_input", ("analysis.checks", "analysis.combat", "analysis.workflow")),
    ("analysis.checks", ("analysis.combat", "analysis.workflow")),
    ("analysis.combat", ("analysis.workflow",)),
]

#: what an engine module may import only when it validates a data file
DATA_VALIDATION = ("pydantic", "tomllib")


def validates_data(module: str) -> bool:
    """The engine modules that validate an archetype library's data file: the shared
    hook (``engines.archetype_library`` and its modules) and each system's
    ``engines.systems.<id>.archetypes``."""
    parts = module.split(".")
    return _under(module, "engines.archetype_library") or (
        parts[:2] == ["engines", "systems"] and parts[3:] == ["archetypes"]
    )


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` imports (top level and inside functions), absolute names;
    ``importlib.import_module("x")`` with a constant name counts too."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            # ``from pkg import mod`` imports the submodule pkg.mod when there is one
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return found


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, deps in sorted(graph.items()):
        for importer, forbidden in RULES:
            if not _under(module, importer):
                continue
            for dep in sorted(deps):
                for bad in forbidden:
                    if _under(dep, bad) and not _under(module, bad):
                        out.append(
                            f"{module} imports {dep} (a {importer} module must not import {bad})"
                        )
        if _under(module, "engines") and not validates_data(module):
            out.extend(
                f"{module} imports {dep} (only the archetype libraries' modules of "
                "engines import it)"
                for dep in sorted(deps)
                if any(_under(dep, lib) for lib in DATA_VALIDATION)
            )
        if not _under(module, "cli"):
            out.extend(
                f"{module} imports {dep} (nothing imports cli)"
                for dep in sorted(deps)
                if _under(dep, "cli")
            )
    return sorted(set(out))


def project_graph() -> dict[str, set[str]]:
    graph = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            name = module_name(path)
            graph[name] = imports_of(
                path.read_text(encoding="utf-8"), name, path.name == "__init__.py"
            )
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (import circles)."""
    nodes = set(graph)
    edges = {m: sorted(d for d in deps if d in nodes and d != m) for m, deps in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


@pytest.fixture(scope="module")
def graph():
    return project_graph()


def test_the_packages_are_found(graph):
    for name in (
        "engines.fight",
        "analysis.checks.curves",
        "analysis.combat.archetypes",
        "analysis.workflow.solvers",
        "reports.sections.provenance",
        "cli.main",
    ):
        assert name in graph


def test_imports_point_down_only(graph):
    assert violations(graph) == []


def test_no_import_circles(graph):
    """Covers the old solvers → fight_sweep → sweep → solvers circle."""
    assert cycles(graph) == []


# The checker itself must be able to fail: hand-made upward imports and a circle.


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("engines.x", "import pandas as pd", "engines.x imports pandas"),
        (
            "engines.x",
            "def f():\n    from analysis.checks import curves",
            "engines.x imports analysis",
        ),
        ("analysis.checks.curves", "from reports import build", "imports reports"),
        (
            "analysis.combat.fights",
            "from analysis.workflow import sweep",
            "imports analysis.workflow",
        ),
        ("analysis.checks.opposed", "from ..combat import lethality", "imports analysis.combat"),
        ("reports.build", "import importlib\nimportlib.import_module('cli.main')", "imports cli"),
        ("analysis.output", "from analysis.checks.curves import AXES", "imports analysis.checks"),
        ("engines.fight", "from pydantic import BaseModel", "engines.fight imports pydantic"),
        ("engines.systems.x.combat", "import tomllib", "engines.systems.x.combat imports tomllib"),
        ("engines.systems.x.archetypes.y", "import pydantic", "imports pydantic"),
    ],
)
def test_the_checker_catches_an_upward_import(module, source, expected):
    found = violations({module: imports_of(source, module)})
    assert any(expected in line for line in found), found


@pytest.mark.parametrize(
    "module",
    ["engines.archetype_library", "engines.archetype_library.grid", "engines.systems.x.archetypes"],
)
def test_the_archetype_libraries_may_validate_data(module):
    """The one exception to "engines import numpy and numba": pydantic (and tomllib) in
    the modules that validate the archetype libraries' data files."""
    assert (
        violations({module: imports_of("import tomllib\nfrom pydantic import Field", module)}) == []
    )


def test_the_checker_catches_a_circle():
    graph = {
        "a.one": imports_of("from a import two", "a.one"),
        "a.two": imports_of("def f():\n    from .three import x", "a.two"),
        "a.three": imports_of("import a.one", "a.three"),
        "a.four": imports_of("import a.one", "a.four"),
    }
    assert cycles(graph) == [["a.one", "a.three", "a.two"]]
