"""Section (appendix): the Monte Carlo kernel against the exact models, each system's row
printed by ``rpg-balance curves SYSTEM --method both --trials N --seed S --summary``
(:func:`analysis.checks.curves.agreement`)."""

from __future__ import annotations

import math
import shlex
from typing import Any

import numpy as np
import pandas as pd

from reports import plotting
from reports.i18n import _, decimal
from reports.sections.common import curves, figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = [
    "MEAN_ABS_NORMAL",
    "agreement_command",
    "agreement_frame",
    "agreement_reading",
    "section_mc_agreement",
]

#: mean of ``|z|`` over independent standard normal draws, sqrt(2 / pi)
MEAN_ABS_NORMAL = math.sqrt(2 / math.pi)


def agreement_frame(settings: ReportSettings) -> pd.DataFrame:
    """Per system: how the Monte Carlo kernel's table agrees with the exact one, the row
    :func:`agreement_command` prints (:func:`analysis.checks.curves.agreement`)."""
    from analysis.checks.curves import agreement

    return pd.concat(
        [
            agreement(curves(settings, s), settings.trials, list(settings.variants_of(s)))
            for s in settings.systems
        ],
        ignore_index=True,
    )


def agreement_command(settings: ReportSettings, system: str) -> str:
    """The command that prints ``system``'s row of :func:`agreement_frame`: its own seed
    (:meth:`ReportSettings.system_seed`), the report's trials and check variants."""
    words = ["rpg-balance", "curves", system]
    for v in settings.variants_of(system):
        words += ["--variant", v]
    words += [
        "--method",
        "both",
        "--trials",
        str(settings.trials),
        "--seed",
        str(settings.system_seed(system)),
        "--summary",
    ]
    return " ".join(shlex.quote(w) for w in words)


def agreement_reading(settings: ReportSettings, frame: pd.DataFrame) -> list:
    """What is compared, one sentence per system with its command, and why the z values
    of one system move together (its cells read the same simulated rolls)."""
    out: list = [
        _(
            "Every mechanic also runs through the shared Monte Carlo kernel ({trials} "
            "rolls per roll setting) and each table cell is compared with its exact "
            "value in standard errors, z = (MC − exact) / SE, SE = √(p(1−p)/n) ≤ "
            "{se}. Each system rolls its own stream, seed {seed} × 16 + the system's "
            "place in the list of installed systems; the command under each "
            "sentence prints that system's row of the table (the report's seed "
            "itself would give other rolls and other z)."
        ).format(
            trials=decimal(settings.trials), seed=settings.seed, se=decimal(settings.se_max, 5)
        )
    ]
    for r in frame.to_dict("records"):
        out.append(
            Reading(
                _(
                    "{system}: {cells} cells read from {settings} roll "
                    "setting(s); largest |z| {z}, mean |z| {mean}; {out} cells "
                    "outside the tests' tolerance 5σ + 1/n."
                ).format(
                    system=r["system"],
                    cells=decimal(int(r["cells"])),
                    settings=decimal(int(r["roll settings"])),
                    z=decimal(r["max |z|"], 2),
                    mean=decimal(r["mean |z|"], 2),
                    out=decimal(int(r["outside 5σ + 1/n"])),
                ),
                agreement_command(settings, r["system"]),
            )
        )
    label: Any = (frame["cells"] / frame["roll settings"]).idxmax()  # a row label
    shared = frame.loc[label]
    out.append(
        _(
            "The z values of one system are not independent draws, one per cell: "
            "every cell of a roll setting counts the same simulated rolls ({system}: "
            "all {cells} cells from {settings} stream(s) of {trials} rolls). When a "
            "face comes up a little more often than its share, every cell that "
            "counts it moves the same way, so a system's z values shift together. A "
            "largest |z| above 3, or a mean |z| above {normal} (its value for "
            "independent normal draws), is then one lucky stream seen in many cells, "
            "not chance repeated cell by cell; the check that holds cell by cell is "
            "the tolerance 5σ + 1/n the tests use, and no cell is outside it in "
            "{clean} of {n} systems."
        ).format(
            system=shared["system"],
            cells=decimal(int(shared["cells"])),
            settings=decimal(int(shared["roll settings"])),
            trials=decimal(settings.trials),
            normal=decimal(MEAN_ABS_NORMAL, 2),
            clean=decimal(int((frame["outside 5σ + 1/n"] == 0).sum())),
            n=decimal(len(frame)),
        )
    )
    out.append(
        _(
            "For a designer this means the simulator used for combat and other "
            "questions without exact answers reproduces the dice faithfully."
        )
    )
    return out


def section_mc_agreement(settings: ReportSettings) -> Section:
    """Monte Carlo kernels checked against the exact tables (z = (MC − exact) / SE)."""
    frame = agreement_frame(settings)
    reading = agreement_reading(settings, frame)
    blocks: list = [
        table_block(
            "mc-agreement",
            _("Monte Carlo vs exact"),
            frame,
            _(
                "One row per system, as the command under its sentence "
                "prints it: grid cells compared, the roll settings they "
                "are read from, trials per roll setting, largest and mean "
                "|z|, cells beyond 3σ, largest absolute difference, "
                "largest standard error, cells outside the 5σ + 1/n "
                "tolerance."
            ),
            formats={"max |z|": ".2f", "mean |z|": ".2f", "max |p_mc − p|": ".5f", "max SE": ".5f"},
        )
    ]
    fig, axes = plotting.new_figure(len(settings.systems), width=7.2, height=2.4)
    grid = np.linspace(-5, 5, 201)
    normal = np.exp(-(grid**2) / 2) / math.sqrt(2 * math.pi)
    for ax, system in zip(axes, settings.systems, strict=True):
        t = curves(settings, system)
        z = t.loc[(t["p_exact"] > 0) & (t["p_exact"] < 1), "z"].clip(-5, 5)
        ax.hist(
            z,
            bins=np.linspace(-5, 5, 26),
            density=True,
            color=plotting.system_color(system),
            alpha=0.85,
            edgecolor="white",
            label=_("cells"),
        )
        ax.plot(grid, normal, color="black", linewidth=1, label="N(0, 1)")
        ax.set_title(system, fontsize=8)
        ax.set_xlabel(_("z (standard errors)"))
    axes[0].set_ylabel(_("density"))
    axes[0].legend(loc="upper left", fontsize=6.5)
    blocks.append(
        figure_block(
            "fig-mc-agreement",
            _("z-scores of Monte Carlo vs exact"),
            fig,
            _(
                "Histogram of z = (MC − exact) / SE over all grid cells with "
                "0 < p < 1 (clipped to ±5), against the standard normal "
                "density. Cells of one roll setting share their rolls, so "
                "a system's histogram can sit off centre or be narrower "
                "or wider as a whole: it shows a few streams, not one "
                "independent draw per cell."
            ),
            _("Histograms of Monte Carlo z-scores per system"),
            settings,
        )
    )
    return Section("mc-agreement", _("Appendix: Monte Carlo agreement"), reading, blocks)
