"""The package: a core install without the optional extras, the one-line message naming a
missing extra, the version, the changelog, the license and the test tiers.

A core install is imitated without network: the command line runs in a subprocess whose
``sys.modules`` holds ``None`` for every optional library (Panel, Dask, Optuna,
WeasyPrint, pyarrow), so importing one fails exactly as when it is not installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
#: the optional libraries, by hand (not read from analysis.package under test)
OPTIONAL = ("panel", "bokeh", "dask", "distributed", "optuna", "weasyprint", "pyarrow")
#: the extras the project promises and the requirement each one names
EXTRAS = {
    "web": "panel",
    "dask": "dask[distributed]",
    "tune": "optuna",
    "pdf": "weasyprint",
    "parquet": "pyarrow",
}

BLOCK = f"import sys\nfor name in {OPTIONAL!r}:\n    sys.modules[name] = None\n"


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}


def _core_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``rpg-balance ARGS`` with every optional library unimportable."""
    code = BLOCK + f"from cli.main import main\nsys.exit(main({list(args)!r}))\n"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def _requirement_name(req: str) -> str:
    return re.split(r"[<>=!~;\s]", req, maxsplit=1)[0].lower()


# ------------------------------------------------------------------ metadata and extras


def test_optional_libraries_are_extras_not_core_dependencies():
    project = PYPROJECT["project"]
    core = {_requirement_name(r) for r in project["dependencies"]}
    extras = project["optional-dependencies"]
    for extra, req in EXTRAS.items():
        assert [_requirement_name(r) for r in extras[extra]] == [req], extra
        assert _requirement_name(req).split("[")[0] not in core
    assert extras["all"] == [f"rpg-balance[{','.join(EXTRAS)}]"]
    assert "rpg-balance[all]" in extras["dev"]
    for needed in (
        "numpy",
        "numba",
        "pandas",
        "scipy",
        "matplotlib",
        "jinja2",
        "babel",
        "pydantic",
    ):
        assert needed in core


def test_license_and_classifiers():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 rpg-balance contributors" in text
    assert "Programming Language :: Python :: 3.11" in project["classifiers"]
    assert "urls" not in project  # no address the project does not have


def test_changelog_keeps_a_changelog_with_this_version():
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, flags=re.M)
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == PYPROJECT["project"]["version"]
    assert headings[1][1], "a released version carries its date"
    assert "keepachangelog.com" in text
    sections = set(re.findall(r"^### (\w+)", text, flags=re.M))
    assert sections <= {
        "Added",
        "Changed",
        "Deprecated",
        "Removed",
        "Fixed",
        "Security",
    }


# ------------------------------------------------------------------------- the version


def test_version_prints_the_installed_version_and_exits_0():
    from importlib import metadata

    done = subprocess.run(
        [sys.executable, "-m", "cli", "--version"],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    try:
        expected = metadata.version("rpg-balance")
    except metadata.PackageNotFoundError:
        expected = PYPROJECT["project"]["version"]
    assert done.stdout == f"rpg-balance {expected}\n"
    assert done.stderr == ""


def test_version_falls_back_to_pyproject_when_not_installed(monkeypatch):
    from importlib import metadata

    from analysis import package

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert package.version() == PYPROJECT["project"]["version"] == "0.2.0"


# ----------------------------------------------------------------- a core install


def test_core_modules_import_no_optional_library():
    """Every module of engines, analysis, reports and cli imports with the optional
    libraries unimportable, except the workbench page's Panel modules (the web extra's:
    every reports.workbench module outside its Panel-free model package)."""
    code = (
        BLOCK
        + """
import importlib, pkgutil
PAGE, MODEL = "reports.workbench.", "reports.workbench.model"
done = 0
for pkg in ("engines", "analysis", "reports", "cli"):
    mod = importlib.import_module(pkg)
    for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
        page = info.name.startswith(PAGE) and not info.name.startswith(MODEL)
        if page or info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
        done += 1
print(done)
"""
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert int(run.stdout) > 100


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ("curves", "dice_pool_7", "--method", "exact", "--columns", "pool,p"),
        ("duel", "dice_pool_7", "competent", "expert", "--columns", "p_side0,p_side1"),
        ("audit", "--columns", "guardrail,status"),
    ],
    ids=["curves", "duel", "audit"],
)
def test_core_commands_run_without_the_extras(args):
    done = _core_cli(*args)
    assert "needs the optional" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == args[-1]
    assert len(lines) > 1
    # audit exits 1 when a guardrail fails (the shipped file has failing ones), else 0
    failed = args[0] == "audit" and any(line.endswith(",fail") for line in lines)
    assert done.returncode == (1 if failed else 0), done.stderr[-3000:]


@pytest.mark.parametrize(
    ("args", "extra", "what"),
    [
        (("serve", "--no-browser", "--no-warm-up"), "web", "rpg-balance serve"),
        (
            ("curves", "dice_pool_7", "--format", "parquet", "-o", "{tmp}/c.parquet"),
            "parquet",
            "--format parquet",
        ),
        (
            ("report", "-o", "{tmp}/rep", "--systems", "dice_pool_7", "--no-warm-up", "--quiet"),
            "pdf",
            "rpg-balance report's PDF",
        ),
        (
            ("sweep", "scenarios/ten_again_variants.toml", "--workers", "2", "-o", "{tmp}/s.csv"),
            "dask",
            "--workers N",
        ),
        (("tune", "scenarios/tune.toml", "--search"), "tune", "rpg-balance tune --search"),
    ],
    ids=["serve", "parquet", "pdf", "dask", "tune"],
)
def test_a_missing_extra_is_named_in_one_line(args, extra, what, tmp_path):
    done = _core_cli(*(a.format(tmp=tmp_path) for a in args))
    assert done.returncode == 2
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line, done.stderr
    assert "Traceback" not in line
    assert line.startswith(f"error: {what}")
    assert line.endswith(f"needs the optional '{extra}' extra: pip install 'rpg-balance[{extra}]'")
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.slow
def test_the_report_html_needs_no_extra(tmp_path):
    """The report without its PDF (the core's HTML): built with no optional library."""
    done = _core_cli(
        "report",
        "-o",
        str(tmp_path),
        "--systems",
        "dice_pool_7",
        "--no-pdf",
        "--no-warm-up",
        "--quiet",
        "--trials",
        "2000",
        "--combat-trials",
        "200",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    html = (tmp_path / "report.html").read_text()
    assert "<html" in html
    assert "dice_pool_7" in html
    assert not (tmp_path / "report.pdf").exists()


# ----------------------------------------------------------------------- test tiers


def test_fast_tier_deselects_browser_notebook_and_slow_tests(monkeypatch):
    sys.path.insert(0, str(ROOT))
    try:
        import tasks
    finally:
        sys.path.remove(str(ROOT))
    calls = []
    monkeypatch.setattr(tasks, "ensure_venv", lambda: Path(sys.executable))
    monkeypatch.setattr(
        tasks, "ensure_system_tools", lambda: pytest.fail("the fast tier needs no browser")
    )
    monkeypatch.setattr(tasks.subprocess, "call", lambda argv, **kw: calls.append(argv) or 0)
    assert tasks.main(["test", "--fast", "-x"]) == 0
    _warm, argv = calls
    marks = argv[argv.index("-m", 3) + 1]
    assert {"not slow", "not browser", "not notebook"} <= {
        part.strip() for part in marks.split(" and ")
    }
    assert "--fast" not in argv
    assert "--cov" not in argv
    assert argv[-1] == "-x"
    assert argv[argv.index("-n") + 1] == "2"
    assert (ROOT / ".ci" / "run").read_text().rstrip().endswith("exec python3 tasks.py test")
