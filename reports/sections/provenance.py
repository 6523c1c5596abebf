"""Section: inputs and software versions of the build."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pandas as pd

from reports.i18n import _, decimal
from reports.rules_words import rules_line
from reports.sections.common import table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["provenance_frame", "section_provenance"]


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return _("not installed")


def _git_commit() -> str:
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return _("unknown")
    if out.returncode != 0:
        return _("unknown")
    return out.stdout.strip() + (
        " " + _("(with uncommitted changes)") if dirty.stdout.strip() else ""
    )


def provenance_frame(settings: ReportSettings, elapsed: float | None = None) -> pd.DataFrame:
    items = [
        (_("command to reproduce"), settings.command),
        (_("seed"), str(settings.seed)),
        (_("Monte Carlo trials per roll setting"), decimal(settings.trials)),
        (
            _("largest standard error of a proportion"),
            f"{decimal(settings.se_max, 5)} (= √({decimal(0.25, 2)}/n))",
        ),
        (_("combat trials per Monte Carlo fight"), decimal(settings.combat_trials)),
        (_("systems"), ", ".join(settings.systems)),
        *(
            [(_("cross-combat file of the combat sections"), settings.cross_label)]
            if settings.cross_combat is not None
            else []
        ),
        *(
            [(_("rules files (rule tables edited)"), rules_line(settings.rules))]
            if settings.rules
            else []
        ),
        (_("source revision"), _git_commit()),
        ("python", f"{platform.python_version()} ({sys.platform})"),
    ]
    for pkg in (
        "rpg-balance",
        "numpy",
        "numba",
        "scipy",
        "pandas",
        "matplotlib",
        "jinja2",
        "weasyprint",
    ):
        items.append((pkg, _version(pkg)))
    if elapsed is not None:
        items.append((_("build time (tables, figures, HTML)"), f"{decimal(elapsed, 1)} s"))
    return pd.DataFrame(items, columns=["item", "value"])


def section_provenance(settings: ReportSettings, elapsed: float | None = None) -> Section:
    """Seed, trials, standard errors, package versions, run time, command to reproduce."""
    reading = [
        _(
            "Run the command below to rebuild this report bit for bit: the seed is "
            "fixed ({seed}) and the Monte Carlo splits work the same way on any "
            "number of threads. Exact tables do not depend on the seed at all."
        ).format(seed=settings.seed)
    ]
    return Section(
        "provenance",
        _("Provenance"),
        reading,
        [
            table_block(
                "provenance",
                _("How this report was made"),
                provenance_frame(settings, elapsed),
                _("Inputs and software versions of this build."),
            )
        ],
    )
