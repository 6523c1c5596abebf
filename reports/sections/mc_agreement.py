"""Section: Monte Carlo against the exact models."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports import plotting
from reports.i18n import _, decimal
from reports.sections.common import curves, figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["agreement_frame", "section_mc_agreement"]


def agreement_frame(settings: ReportSettings) -> pd.DataFrame:
    """Per system: how the Monte Carlo kernel's table agrees with the exact one."""
    rows = []
    n = settings.trials
    for system in settings.systems:
        t = curves(settings, system)
        tol = 5 * np.sqrt(t["p_exact"] * (1 - t["p_exact"]) / n) + 1 / n
        diff = (t["p_mc"] - t["p_exact"]).abs()
        z = t["z"].abs()
        rows.append({"system": system, "cells": len(t), "trials": n,
                     "max |z|": float(z.max()), "mean |z|": float(z.mean()),
                     "cells |z| > 3": int((z > 3).sum()),
                     "max |p_mc − p|": float(diff.max()),
                     "max SE": float(t["se"].max()),
                     "outside 5σ + 1/n": int((diff > tol).sum())})
    return pd.DataFrame(rows)


def section_mc_agreement(settings: ReportSettings) -> Section:
    """Monte Carlo kernels checked against the exact tables (z = (MC − exact) / SE)."""
    frame = agreement_frame(settings)
    worst = frame.loc[frame["max |z|"].idxmax()]
    reading = [
        _("Every mechanic also runs through the shared Monte Carlo kernel ({trials} rolls "
          "per roll setting, seed {seed}) and each table cell is compared with its exact "
          "value in standard errors, z = (MC − exact) / SE, SE = √(p(1−p)/n) ≤ {se}.").format(
            trials=decimal(settings.trials), seed=settings.seed,
            se=decimal(settings.se_max, 5)),
        _("The largest deviation is |z| = {z} ({system}); {cells} cells in all fall outside "
          "the test tolerance 5σ + 1/n. Cells of one roll setting share the same simulated "
          "rolls, so their z values are correlated; a max |z| around 3–4 over thousands of "
          "cells is what chance alone gives. For a designer this means the simulator used "
          "for combat and other questions without exact answers reproduces the dice "
          "faithfully.").format(z=decimal(worst["max |z|"], 2), system=worst["system"],
                                cells=decimal(int(frame["outside 5σ + 1/n"].sum()))),
    ]
    blocks: list = [table_block("mc-agreement", _("Monte Carlo vs exact"), frame,
                                _("One row per system: grid cells compared, trials per roll "
                             "setting, largest and mean |z|, cells beyond 3σ, largest "
                             "absolute difference, largest standard error, cells outside "
                             "the 5σ + 1/n tolerance."),
                                formats={"max |z|": ".2f", "mean |z|": ".3f",
                                    "max |p_mc − p|": ".5f", "max SE": ".5f"})]
    fig, axes = plotting.new_figure(len(settings.systems), width=7.2, height=2.4)
    grid = np.linspace(-5, 5, 201)
    normal = np.exp(-grid**2 / 2) / math.sqrt(2 * math.pi)
    for ax, system in zip(axes, settings.systems, strict=True):
        t = curves(settings, system)
        z = t.loc[(t["p_exact"] > 0) & (t["p_exact"] < 1), "z"].clip(-5, 5)
        ax.hist(z, bins=np.linspace(-5, 5, 26), density=True,
                color=plotting.system_color(system), alpha=0.85, edgecolor="white",
                label=_("cells"))
        ax.plot(grid, normal, color="black", linewidth=1, label="N(0, 1)")
        ax.set_title(system, fontsize=8)
        ax.set_xlabel(_("z (standard errors)"))
    axes[0].set_ylabel(_("density"))
    axes[0].legend(loc="upper left", fontsize=6.5)
    blocks.append(figure_block("fig-mc-agreement", _("z-scores of Monte Carlo vs exact"), fig,
                               _("Histogram of z = (MC − exact) / SE over all grid cells with "
                            "0 < p < 1 (clipped to ±5), against the standard normal "
                            "density. Cells of one roll setting share their rolls, so the "
                            "histograms are lumpier than independent draws would be."),
                               _("Histograms of Monte Carlo z-scores per system"), settings))
    return Section("mc-agreement", _("Monte Carlo agreement"), reading, blocks)
