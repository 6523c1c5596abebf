#!/usr/bin/env python3
"""Project entry points that need nothing but Python 3.11+.

``python3 tasks.py report``  builds the default report (HTML + PDF) into reports/out/.
``python3 tasks.py test``    runs the whole test suite (two pytest workers) and prints its
                             line coverage (``--no-cov``: without).
``python3 tasks.py docs``    builds the documentation site into docs/_build/ (Sphinx; the
                             notebooks run once, their outputs cached; ``--screenshot``
                             also retakes the README's workbench screenshot).
``python3 tasks.py test --fast``  the fast tier: no browser, no notebooks, no slow tests,
                             no coverage (two pytest workers).

All three first run ``rpg-balance warm-up``: on a fresh checkout it compiles every numba
kernel in two worker processes (about a minute on two idle cores, once); afterwards it sees
the cache stamp and returns at once.

All three create ``.venv`` on first use and install the project into it (again only when
``pyproject.toml`` changes). The test command also makes sure the system programs the
end-to-end tests drive are present (Debian's ``chromium`` and ``pdftoppm``): as root on a
Debian machine it installs them with apt; elsewhere it says how to get them and stops.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".rpg-balance-installed"
SYSTEM_TOOLS = {"chromium": "chromium", "pdftoppm": "poppler-utils"}
#: pytest-xdist: two worker processes, each test module whole on one worker
#: (``loadscope``), so a module's costly fixtures — a report build, the discovery run, a
#: Dask cluster, a Jupyter kernel at a time — are built once. (``loadgroup`` and the
#: ``xdist_group`` mark do not group under pytest 9: the mark's node-id suffix is lost.)
TEST_WORKERS = ["-n", "2", "--dist", "loadscope"]
#: pytest-cov: line coverage of engines, analysis, reports and cli (``[tool.coverage]`` in
#: pyproject.toml; numba kernels are compiled, not traced, and left out), measured on both
#: workers and in the CLI subprocesses the tests start; the summary lists the modules not
#: fully covered and the total. ``python3 tasks.py test --no-cov`` runs without it.
TEST_COVERAGE = ["--cov", "--cov-report=term:skip-covered"]
#: where ``python3 tasks.py docs`` writes the site (its index.html)
DOCS_OUT = ROOT / "docs" / "_build"
#: ``python3 tasks.py test --fast``: the tests that need neither a browser nor a Jupyter
#: kernel and are not marked slow (the markers in pyproject.toml), on the two workers,
#: without coverage; the whole suite (``.ci/run``) still runs every test.
FAST_TIER = ["-m", "not slow and not browser and not notebook"]


def _venv_python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _say(msg: str) -> None:
    print(f"[tasks] {msg}", flush=True)


def ensure_venv() -> Path:
    if sys.version_info < (3, 11):  # noqa: UP036  (this script runs before the venv exists)
        sys.exit(
            "rpg-balance needs Python 3.11 or newer (this is {}.{})".format(*sys.version_info[:2])
        )
    py = _venv_python()
    if not py.exists():
        _say(f"creating virtual environment in {VENV}")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if not STAMP.exists() or STAMP.read_text().strip() != want:
        _say("installing rpg-balance and its dependencies (first run takes a few minutes)")
        done = subprocess.run(
            [
                str(py),
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "-e",
                f"{ROOT}[dev]",
            ],
        )
        if done.returncode != 0:
            sys.exit("[tasks] installing the project failed (pip's message is above)")
        STAMP.write_text(want)
    return py


def ensure_system_tools() -> None:
    missing = {tool: pkg for tool, pkg in SYSTEM_TOOLS.items() if shutil.which(tool) is None}
    if not missing:
        return
    pkgs = sorted(set(missing.values()))
    can_apt = shutil.which("apt-get") is not None and hasattr(os, "geteuid") and os.geteuid() == 0
    if can_apt:
        _say(f"installing system packages: {' '.join(pkgs)}")
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        ok = subprocess.run(["apt-get", "update", "-qq"], env=env).returncode == 0
        ok = (
            ok
            and subprocess.run(["apt-get", "install", "-y", "-qq", *pkgs], env=env).returncode == 0
        )
        if not ok:
            sys.exit(f"[tasks] could not install {' '.join(pkgs)} with apt-get")
        return
    sys.exit(
        "the end-to-end tests need " + ", ".join(sorted(missing)) + ".\n"
        f"Install them with:  sudo apt-get install {' '.join(pkgs)}"
    )


def docs(py: Path, env: dict, rest: list[str]) -> int:
    """Build the documentation site into :data:`DOCS_OUT` (``--screenshot``: first retake
    docs/images/workbench.png); other arguments go to sphinx-build."""
    if "--screenshot" in rest:
        rest = [a for a in rest if a != "--screenshot"]
        ensure_system_tools()
        done = subprocess.call([str(py), str(ROOT / "docs" / "screenshot.py")], cwd=ROOT, env=env)
        if done != 0:
            return done
    built = subprocess.call(
        [
            str(py),
            "-m",
            "sphinx",
            "-b",
            "html",
            "-q",
            "-W",
            "--keep-going",
            *rest,
            str(ROOT / "docs"),
            str(DOCS_OUT),
        ],
        cwd=ROOT,
        env=env,
    )
    if built == 0:
        _say(f"documentation: {DOCS_OUT / 'index.html'}")
    return built


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"report", "test", "docs"}:
        print(__doc__)
        return 2
    cmd, rest = argv[0], argv[1:]
    fast = cmd == "test" and "--fast" in rest
    rest = [a for a in rest if a != "--fast"] if fast else rest
    py = ensure_venv()
    env = dict(os.environ, PYTHONHASHSEED="0")
    # Python's bytecode cache stays on for what this script runs: with it off
    # (PYTHONDONTWRITEBYTECODE) pytest rewrites every test module's asserts again in each
    # worker and every command compiles the project's modules again (measured: collection
    # 8.9 s instead of 3.7 s per worker). The caches are __pycache__ folders, ignored by git.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if cmd == "test" and not fast:
        ensure_system_tools()
    if not {"-h", "--help"} & set(rest):
        warm = subprocess.call([str(py), "-m", "cli", "warm-up"], cwd=ROOT, env=env)
        if warm != 0:
            return warm
    if cmd == "docs":
        return docs(py, env, rest)
    if cmd == "report":
        return subprocess.call([str(py), "-m", "cli", "report", *rest], cwd=ROOT, env=env)
    tier = FAST_TIER if fast else TEST_COVERAGE
    return subprocess.call(
        [str(py), "-m", "pytest", *TEST_WORKERS, *tier, *rest], cwd=ROOT, env=env
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
