"""The public surface of docs/ARCHITECTURE.md ("A public API"), checked on the source.

A leading underscore is private to its module: no module of the project (tests,
benchmarks, notebooks and the example plug-in included) imports another module's
underscore name, nor reaches one through a module (``mod._name``,
``getattr(mod, "_name")``, ``monkeypatch.setattr(mod, "_name", ...)`` or the dotted
string ``"pkg.mod._name"``). What modules share is a public name, listed in the
defining module's ``__all__``. A test may use its own module's private helpers only.

The one named exception is gettext's ``_`` from ``reports.i18n``: marking translatable
strings with ``_("...")`` is the convention the translation tools (Babel's extractor)
look for.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engines", "analysis", "reports", "cli", "tests", "benchmarks")

#: (defining module, name): the private-looking names other modules may import, each with why
EXCEPTIONS = {
    ("reports.i18n", "_"): "gettext's marker, the name Babel's extractor looks for",
}

#: the packages whose modules list their public names in ``__all__``
#: (docs/ARCHITECTURE.md): all of them, the engines' shared modules (not one system's)
ALL_REQUIRED = ("analysis", "reports", "cli", "engines")
NOT_REQUIRED = ("engines.systems",)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_table() -> dict[str, Path]:
    """Every module of the project by its import name (tests and the example plug-in are
    imported by their bare names too, as pytest's rootdir insertion makes them)."""
    table: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            table[".".join(parts)] = path
            if pkg == "tests" and len(parts) == 2:
                table[parts[1]] = path
    table["tasks"] = ROOT / "tasks.py"
    plugin = ROOT / "examples" / "plugin_system"
    for path in sorted(plugin.rglob("*.py")):
        parts = list(path.relative_to(plugin).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        table[".".join(parts)] = path
    return table


def sources() -> list[tuple[str, bool, str, str]]:
    """(module name, is package, where, source) of every file the rule covers; a notebook's
    code cells are one source."""
    out = []
    seen: set[Path] = set()
    for name, path in module_table().items():
        if path in seen:
            continue
        seen.add(path)
        out.append(
            (
                name,
                path.name == "__init__.py",
                str(path.relative_to(ROOT)),
                path.read_text(encoding="utf-8"),
            )
        )
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
        out.append((f"notebooks.{path.stem}", False, str(path.relative_to(ROOT)), "\n".join(lines)))
    return out


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def private_uses(
    source: str, module: str, modules: set[str], is_package: bool = False
) -> list[str]:
    """Every use in ``source`` (the module ``module``) of another project module's
    underscore name, as "line: what"; ``modules`` are the project's module names."""
    tree = ast.parse(source)
    found: list[str] = []
    aliases: dict[str, str] = {}  # a local name bound to a project module

    def hit(line: int, owner: str, name: str, how: str) -> None:
        if owner != module and (owner, name) not in EXCEPTIONS:
            found.append(f"{line}: {how} ({owner}.{name})")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                for i, part in enumerate(parts[1:], 1):
                    if _private(part) and ".".join(parts[:i]) in modules:
                        hit(node.lineno, ".".join(parts[:i]), part, f"import {alias.name}")
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    aliases[parts[0]] = parts[0]
        elif isinstance(node, ast.ImportFrom):
            owner = _absolute(module, is_package, node)
            if owner not in modules:
                continue
            for alias in node.names:
                if f"{owner}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{owner}.{alias.name}"
                if _private(alias.name):
                    hit(node.lineno, owner, alias.name, f"from {owner} import {alias.name}")

    def owner_of(dotted: str | None) -> str | None:
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        if head not in aliases:
            return None
        full = aliases[head] + ("." + rest if rest else "")
        return full if full in modules else None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = owner_of(_dotted(node.value))
            if owner:
                hit(node.lineno, owner, node.attr, f"{_dotted(node)}")
        elif isinstance(node, ast.Call):
            args = node.args
            if (
                len(args) >= 2
                and isinstance(args[1], ast.Constant)
                and isinstance(args[1].value, str)
                and _private(args[1].value)
            ):
                owner = owner_of(_dotted(args[0]))
                if owner:
                    hit(
                        node.lineno,
                        owner,
                        args[1].value,
                        f"{_dotted(node.func)}({_dotted(args[0])}, {args[1].value!r})",
                    )
            for arg in args[:1]:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    owner, _, name = arg.value.rpartition(".")
                    if owner in modules and _private(name):
                        hit(node.lineno, owner, name, f"{_dotted(node.func)}({arg.value!r})")
    return sorted(set(found), key=lambda line: int(line.split(":")[0]))


def all_private_uses() -> list[str]:
    modules = set(module_table())
    out = []
    for name, is_package, where, source in sources():
        out.extend(f"{where}:{line}" for line in private_uses(source, name, modules, is_package))
    return out


def test_the_modules_are_found():
    modules = module_table()
    for name in (
        "engines.fight",
        "analysis.workflow.audit.measuring",
        "reports.i18n",
        "cli.main",
        "tests.conftest",
        "check_oracles",
        "benchmarks.bench_tune",
        "pbta_2d6.combat",
        "tasks",
    ):
        assert name in modules, name


def test_no_module_uses_another_modules_private_name():
    assert all_private_uses() == []


def _public_modules() -> list[tuple[str, Path]]:
    def under(name: str, prefixes: tuple[str, ...]) -> bool:
        return any(name == p or name.startswith(p + ".") for p in prefixes)

    return [
        (name, path)
        for name, path in module_table().items()
        if under(name, ALL_REQUIRED)
        and not under(name, NOT_REQUIRED)
        and not any(map(_private, name.split(".")))
    ]


def top_level_names(tree: ast.Module) -> tuple[list[str] | None, set[str], set[str]]:
    """``(__all__ or None, names the module defines, names it imports)`` at its top level
    (inside top-level ``if`` / ``try`` blocks too)."""
    listed = None
    defined: set[str] = set()
    imported: set[str] = set()
    for node in tree.body:
        for sub in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(sub, ast.Assign):
                names = [t.id for t in sub.targets if isinstance(t, ast.Name)]
                names += [
                    e.id
                    for t in sub.targets
                    if isinstance(t, ast.Tuple)
                    for e in t.elts
                    if isinstance(e, ast.Name)
                ]
            elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                names = [sub.target.id]
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [sub.name]
            elif isinstance(sub, (ast.Import, ast.ImportFrom)):
                imported.update((a.asname or a.name).split(".")[0] for a in sub.names)
                continue
            else:
                continue
            if "__all__" in names:
                listed = list(ast.literal_eval(sub.value))
            defined.update(n for n in names if n != "__all__")
    return listed, defined, imported


def all_problems(source: str, submodules: set[str] = frozenset()) -> list[str]:
    """What is wrong with a module's ``__all__``: missing while the module defines public
    names, a listed name it does not have (``submodules``: its package's modules), a
    private name listed, a public name not listed."""
    listed, defined, imported = top_level_names(ast.parse(source))
    public = sorted(n for n in defined if not n.startswith("_"))
    if listed is None:
        return ["defines public names but has no __all__"] if public else []
    return (
        [
            f"__all__ lists {n!r}, which it does not have"
            for n in listed
            if n not in defined | imported | submodules
        ]
        + [f"__all__ lists the private {n!r}" for n in listed if _private(n)]
        + [
            f"public {n!r} is not in __all__ (list it, or make it private)"
            for n in public
            if n not in listed
        ]
    )


@pytest.mark.parametrize(("name", "path"), _public_modules(), ids=lambda v: str(v))
def test_public_modules_list_their_names_in_all(name, path):
    """Each module of analysis/, reports/, cli/ and the engines' shared modules that
    defines a public name lists every one in ``__all__``; every listed name is defined or
    imported there (a re-export), and none is private."""
    submodules = {m.rpartition(".")[2] for m in module_table() if m.rpartition(".")[0] == name}
    assert all_problems(path.read_text(encoding="utf-8"), submodules) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def run():\n    pass", "no __all__"),
        ("__all__ = ['run']\ndef run(): pass\ndef other(): pass", "public 'other' is not in"),
        ("__all__ = ['run', 'gone']\ndef run(): pass", "lists 'gone'"),
        ("__all__ = ['_helper']\ndef _helper(): pass", "the private '_helper'"),
    ],
)
def test_the_all_check_catches_a_planted_case(source, expected):
    found = all_problems(source)
    assert any(expected in line for line in found), found


def test_the_all_check_passes_a_complete_list():
    assert (
        all_problems(
            "from x import y\n__all__ = ['LIMIT', 'run', 'y']\nLIMIT = 3\n"
            "def run(): pass\ndef _helper(): pass"
        )
        == []
    )
    assert all_problems('"""Only a docstring."""') == []


# The guard itself must be able to fail: planted private uses of every form.

MODULES = {"pkg", "pkg.a", "pkg.b", "pkg.sub", "pkg.sub.c", "reports", "reports.i18n"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from pkg.b import _helper", "from pkg.b import _helper (pkg.b._helper)"),
        ("def f():\n    from .b import _helper, public", "(pkg.b._helper)"),
        ("from . import b\nb._table[0]", "b._table (pkg.b._table)"),
        ("import pkg.b as mid\nx = mid._attack_table", "mid._attack_table"),
        ("import pkg.sub.c\npkg.sub.c._x()", "pkg.sub.c._x"),
        ("from pkg import sub\nsub.c._x", "(pkg.sub.c._x)"),
        ("from pkg import b\ngetattr(b, '_cache')", "getattr(b, '_cache')"),
        (
            "from pkg import b\ndef t(monkeypatch):\n    monkeypatch.setattr(b, '_run', None)",
            "monkeypatch.setattr(b, '_run')",
        ),
        ("def t(monkeypatch):\n    monkeypatch.setattr('pkg.b._run', None)", "(pkg.b._run)"),
        ("from reports.i18n import _, _translations", "(reports.i18n._translations)"),
    ],
)
def test_the_guard_catches_a_planted_private_use(source, expected):
    found = private_uses(source, "pkg.a", MODULES)
    assert any(expected in line for line in found), found


@pytest.mark.parametrize(
    "source",
    [
        "from reports.i18n import _",  # the named exception
        "def _mine():\n    pass\n_mine()",  # a module's own private helper
        "from pkg.b import public, __version__",  # public and dunder names
        "import numpy as np\nnp._NoValue",  # not a project module
        "from pkg import b\nb.public._field",  # an attribute of an object, not a module
    ],
)
def test_the_guard_lets_public_uses_pass(source):
    assert private_uses(source, "pkg.a", MODULES) == []
