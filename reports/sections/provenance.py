"""Section: inputs and software versions of the build."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pandas as pd

from reports.sections.common import _table
from reports.settings import ReportSettings
from reports.structure import Section


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git_commit() -> str:
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                             capture_output=True, text=True, timeout=5, check=False)
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=root,
                               capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    if out.returncode != 0:
        return "unknown"
    return out.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def provenance_frame(settings: ReportSettings, elapsed: float | None = None) -> pd.DataFrame:
    items = [
        ("command to reproduce", settings.command),
        ("seed", str(settings.seed)),
        ("Monte Carlo trials per roll setting", f"{settings.trials:,}"),
        ("largest standard error of a proportion", f"{settings.se_max:.5f} (= √(0.25/n))"),
        ("combat trials per Monte Carlo fight", f"{settings.combat_trials:,}"),
        ("systems", ", ".join(settings.systems)),
        ("source revision", _git_commit()),
        ("python", f"{platform.python_version()} ({sys.platform})"),
    ]
    for pkg in ("rpg-balance", "numpy", "numba", "scipy", "pandas", "matplotlib", "jinja2",
                "weasyprint"):
        items.append((pkg, _version(pkg)))
    if elapsed is not None:
        items.append(("build time (tables, figures, HTML)", f"{elapsed:.1f} s"))
    return pd.DataFrame(items, columns=["item", "value"])


def section_provenance(settings: ReportSettings, elapsed: float | None = None) -> Section:
    """Seed, trials, standard errors, package versions, run time, command to reproduce."""
    reading = [f"Run the command below to rebuild this report bit for bit: the seed is "
               f"fixed ({settings.seed}) and the Monte Carlo splits work the same way on "
               "any number of threads. Exact tables do not depend on the seed at all."]
    return Section("provenance", "Provenance", reading,
                   [_table("provenance", "How this report was made",
                           provenance_frame(settings, elapsed),
                           "Inputs and software versions of this build.")])
