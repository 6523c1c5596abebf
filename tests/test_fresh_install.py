"""A fresh install with the example plug-in, cold: the Quick start's first commands.

A new environment in a temporary folder gets the project and the example plug-in
(``examples/plugin_system``, system ``pbta_2d6``) installed with pip, editable, from a
copy of the source tree, and an empty numba cache (``NUMBA_CACHE_DIR``). There, as a
designer would after installing their system: ``warm-up`` compiles every kernel group of
every registered system (the plug-in's combat among them) and skips, one line each, what
the plug-in does not declare; ``report`` (smallest trial counts) writes a report holding
the plug-in's system; ``serve`` starts, answers one page, and stops.

Cheap enough for the slow tests: the environment is a venv without pip whose
site-packages reach the running interpreter's packages through a ``.pth`` file (no
download of the dependencies), and pip installs the two projects without dependencies.
The cold warm-up dominates the time (a few minutes on two cores).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What a source copy leaves out: version control, environments, caches, build output and
#: the parts of the tree an install does not read.
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    "*.egg-info",
    "build",
    ".pytest_cache",
    ".ruff_cache",
    "*.nbi",
    "*.nbc",
    "out",
    "tests",
    "notebooks",
    "benchmarks",
    ".ipynb_checkpoints",
)


def _can_build_offline() -> bool:
    """Whether the running interpreter's setuptools builds an editable wheel by itself
    (setuptools ≥ 70.1, or with the ``wheel`` package), so pip needs no build isolation
    (which would download the build requirements)."""
    import importlib.util

    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


#: The distributions the fresh environment installs for itself (pyproject ``name``s).
OURS = ("rpg-balance", "rpg-balance-pbta")


def _norm(name: str) -> str:
    """A distribution name normalised (PEP 503): ``rpg_balance.pbta`` → ``rpg-balance-pbta``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _theirs(site: Path) -> set[str]:
    """The entries of the package folder ``site`` that belong to :data:`OURS` (an install
    of the project or the plug-in in the running environment): each one's recorded
    files, top-level packages and entry-point modules, its metadata folder and its
    editable-install hooks."""
    from importlib.metadata import distributions

    ours = {_norm(n) for n in OURS}
    stems = {n.replace("-", "_") for n in ours}
    names: set[str] = set()
    for dist in distributions(path=[str(site)]):
        if _norm(dist.metadata["Name"] or "") not in ours:
            continue
        names.update(
            Path(f).parts[0]
            for f in dist.files or ()
            if Path(f).parts[0] not in ("..", "__pycache__")
        )
        names.update((dist.read_text("top_level.txt") or "").split())
        names.update(ep.value.split(":")[0].split(".")[0] for ep in dist.entry_points)
    for entry in site.iterdir():
        meta = entry.suffix in (".dist-info", ".egg-info", ".egg-link")
        if (meta and _norm(entry.name[: -len(entry.suffix)].split("-")[0]) in ours) or (
            entry.name.startswith("__editable__") and any(stem in entry.name for stem in stems)
        ):
            names.add(entry.name)
    return names


def _parent_site(tmp: Path) -> list[str]:
    """The running interpreter's package folders for the fresh environment to see: each
    as it is when it holds nothing of :data:`OURS`, else as a folder of links to its
    other entries, so that an install of the project or the plug-in in the running
    environment cannot shadow the fresh ones (imports, entry points)."""
    out = []
    for i, site in enumerate(sorted({sysconfig.get_paths()[k] for k in ("purelib", "platlib")})):
        site = Path(site)
        hidden = _theirs(site) if site.is_dir() else set()
        if not hidden:
            out.append(str(site))
            continue
        view = tmp / f"parent_site_{i}"
        view.mkdir()
        for entry in site.iterdir():
            if entry.name not in hidden:
                (view / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        out.append(str(view))
    return out


def _fresh_env(tmp: Path) -> tuple[Path, dict]:
    """A venv in ``tmp`` seeing the running interpreter's packages (:func:`_parent_site`:
    whether or not the running environment has the plug-in installed), with the project and
    the example plug-in installed (editable) from a copy of the tree; returns its Python
    and the environment to run it with (no PYTHONPATH, an empty numba cache)."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=NOT_COPIED)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp / "venv")], check=True)
    py = tmp / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "parent_site.pth").write_text("\n".join(_parent_site(tmp)) + "\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR", "PIP_REQUIRE_VIRTUALENV")
    }
    env.update(NUMBA_CACHE_DIR=str(tmp / "numba"), PIP_DISABLE_PIP_VERSION_CHECK="1")
    isolation = ["--no-build-isolation"] if _can_build_offline() else []
    pip = subprocess.run(
        [
            str(py),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            *isolation,
            "-e",
            str(src),
            "-e",
            str(src / "examples" / "plugin_system"),
        ],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if pip.returncode != 0:
        # an install that fails is a failure of the Quick start, not a reason to skip
        pytest.fail(f"pip could not install the project and the plug-in:\n{pip.stderr}")
    return py, env


def _run(py: Path, env: dict, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(py), *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=1800
    )


@pytest.mark.slow
def test_fresh_install_with_the_plugin_warm_up_report_serve(tmp_path):
    start = time.perf_counter()
    py, env = _fresh_env(tmp_path)
    work = tmp_path / "work"  # neither tree: every import goes through the install
    work.mkdir()
    where = _run(
        py, env, work, "-c", "import cli, pbta_2d6; print(cli.__file__); print(pbta_2d6.__file__)"
    ).stdout.split()
    assert [Path(w).is_relative_to(tmp_path / "src") for w in where] == [True, True], where
    installed = time.perf_counter()

    # warm-up on the empty cache: every group of every registered system
    warm = _run(py, env, work, "-m", "cli", "warm-up", "--jobs", "2")
    assert warm.returncode == 0, warm.stderr[-3000:]
    done = re.search(r"compiled (\d+) kernel groups", warm.stderr)
    assert done is not None, warm.stderr[-3000:]
    combat = _run(
        py,
        env,
        work,
        "-c",
        "from engines.system import registry; print(sum("
        "s.combat is not None for s in registry().values()))",
    )
    assert int(done.group(1)) == 1 + 2 * int(combat.stdout)  # checks, then 2 per combat
    skipped = [line for line in warm.stderr.splitlines() if "skipped:" in line]
    assert skipped == [
        "warm-up: skipped: pbta_2d6: no opposed-check rule: the opposed checks skipped",
        "warm-up: skipped: pbta_2d6: no duel_mc_end in its combat module: campaign "
        "attrition's Monte Carlo draws each fight from the exact chain (nothing to "
        "compile)",
    ]
    assert list((tmp_path / "numba").rglob("rpg-balance-warm-up.stamp"))
    warmed = time.perf_counter()

    # the report with the plug-in, smallest trial counts; its warm-up is now a no-op
    out = tmp_path / "report"
    rep = _run(
        py,
        env,
        work,
        "-m",
        "cli",
        "report",
        "--systems",
        "pbta_2d6",
        "--trials",
        "100",
        "--combat-trials",
        "1",
        "--no-pdf",
        "--quiet",
        "-o",
        str(out),
    )
    assert rep.returncode == 0, rep.stderr[-3000:]
    text = (out / "report.html").read_text(encoding="utf-8")
    # the plug-in's curves and campaign reached the report, attrition among the mechanics
    assert 'id="fig-curves-pbta_2d6"' in text
    assert 'id="fig-campaign-pbta_2d6"' in text
    assert re.search(
        r"still alive and able after three fights with probability "
        r"pbta_2d6 [\d.]+%",
        text,
    )
    reported = time.perf_counter()

    # serve: start on any free loopback port, fetch the page once, and the session of a
    # view of the plug-in's duel (what the page shows, as the browser would pull it)
    with subprocess.Popen(
        [str(py), "-m", "cli", "serve", "--port", "0", "--no-browser"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        try:
            line = proc.stdout.readline()
            url = re.search(r"http://127\.0\.0\.1:\d+/", line)
            assert url is not None, (line, proc.poll())
            with urllib.request.urlopen(url.group(0), timeout=120) as page:
                assert page.status == 200
                assert "<title>rpg-balance</title>" in page.read().decode("utf-8", "replace")
            import panel.models  # noqa: F401  (the page's model types, to read its document)
            from bokeh.client import pull_session

            with pull_session(
                url=url.group(0),
                arguments={"tab": "duel", "ds": "pbta_2d6", "a": "competent", "b": "expert"},
            ) as view:
                shown = str(view.document.to_json())
            assert re.search(
                r"expert \([^)]*\)(?:&lt;/abbr&gt;|</abbr>)? \(B\) in pbta_2d6 "
                r"\(exact; .*?round cap \d+\): A wins [\d.]+%",
                shown,
            ), shown[:3000]
            assert "ignored" not in shown
        finally:
            proc.terminate()
            err = proc.communicate(timeout=60)[1]
    assert "Traceback" not in err, err[-3000:]
    print(
        f"\nfresh install: install {installed - start:.1f} s, warm-up "
        f"{warmed - installed:.1f} s, report {reported - warmed:.1f} s, serve "
        f"{time.perf_counter() - reported:.1f} s"
    )
