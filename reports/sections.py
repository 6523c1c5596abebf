"""Report sections: analysis frames → :mod:`reports.structure`, each with a plain reading.

Every section is a small function ``section_xxx(settings) -> Section | None`` listed in
:data:`SECTIONS` (``None`` leaves the section out). Sections that need an analysis module
not present in this build import it lazily and, on :class:`ImportError` only, return a
section holding a visible "not available in this build" note; any other error is a real
failure and stops the build (so a broken analysis never yields a quietly partial report).

Modules the optional sections look for (they light up when present):

- :mod:`analysis.opposed` — ``opposed_table(system, "exact", variants=...)``
- :mod:`analysis.modifiers` — ``modifier_values(system, variants)``, ``modifier_summary``
- :mod:`analysis.claims` — ``claim_c7_table(variants)``, ``claim_c7_summary`` (RULES C7)
- :mod:`analysis.ladders` — ``ladder_table(systems)``
- :mod:`analysis.cross_combat`, :mod:`analysis.lethality`, :mod:`analysis.archetypes` —
  the combat sections (duels, group fights, one-hit odds, tactics/armour, upsets)
"""

from __future__ import annotations

import math
import platform
import subprocess
import sys
from collections.abc import Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from analysis import checks
from engines.variants import describe

from . import plotting
from .section_campaign import section_campaign
from .settings import ReportSettings
from .structure import Caption, Figure, Note, Paragraph, Section, Table

NOT_AVAILABLE = "Not available in this build"

#: What a system's success means and its native axes, in plain words.
SYSTEM_NOTES = {
    "dice_pool_7": ("pool of d10, each 7+ is a success, 10s explode (A1); a pool of 0 rolls "
                    "a chance die (A-g1)", "pool (dice)", "successes needed"),
    "middle_3d10": ("3d10, keep the middle die, + modifier vs difficulty (B1); two 10s "
                    "always succeed, two 1s always fail (B3)", "difficulty", "modifier"),
    "dice_pool_6": ("pool of d10, each 6+ is a success (C-g1), a pair of 10s is worth 4 "
                    "(C-g2), vs a number of successes (C1)", "pool (dice)", "difficulty"),
    "percentile": ("d100 roll-under the skill; hard ≤ half, extreme ≤ a fifth (D1); "
                   "bonus/penalty tens dice (D4)", "skill", "level"),
    "d20_degrees": ("d20 + modifier vs DC, each full 5 a degree; natural 20 one degree "
                    "better, natural 1 fails (E1–E3)", "modifier", "DC"),
}


# --------------------------------------------------------------------------- frames

@lru_cache(maxsize=16)
def _curves_cached(system: str, variants: tuple[str, ...], trials: int,
                   seed: int) -> pd.DataFrame:
    return checks.success_curves(system, "both", trials=trials, seed=seed,
                                 variants=list(variants))


def curves(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Success-curve table (exact and Monte Carlo side by side) of ``system``."""
    return _curves_cached(system, settings.variants_of(system), settings.trials,
                          settings.system_seed(system)).copy()


@lru_cache(maxsize=16)
def _outcomes_cached(system: str, variants: tuple[str, ...], trials: int,
                     seed: int) -> pd.DataFrame:
    exact = checks.outcome_summary(system, list(variants))
    mc = checks.outcome_summary(system, list(variants), method="mc", trials=trials,
                                seed=seed)
    out = exact.copy()
    out["mean_mc"] = mc["mean"].to_numpy()
    out["se_mean"] = mc["se_mean"].to_numpy()
    return out


def outcomes(settings: ReportSettings, system: str) -> pd.DataFrame:
    """Exact mean/SD of the raw outcome per roll setting, with a Monte Carlo mean ± SE."""
    return _outcomes_cached(system, settings.variants_of(system), settings.trials,
                            settings.system_seed(system) + 8).copy()


def _p(frame: pd.DataFrame, column: str = "p_exact", **axes) -> float:
    sel = np.ones(len(frame), bool)
    for key, value in axes.items():
        sel &= (frame[key] == value).to_numpy()
    return float(frame.loc[sel, column].iloc[0])


def pct(p: float) -> str:
    """A probability as a percentage for prose (``0.4567`` → ``"45.7%"``)."""
    return f"{100 * p:.1f}%"


def _pivot(frame: pd.DataFrame, index: str, columns: str, value: str = "p_exact",
           index_values=None, column_values=None) -> pd.DataFrame:
    view = frame.pivot(index=index, columns=columns, values=value)
    if index_values is not None:
        view = view.loc[list(index_values)]
    if column_values is not None:
        view = view[list(column_values)]
    view.columns = [str(c) for c in view.columns]
    return view.reset_index()


def _table(id_: str, title: str, frame: pd.DataFrame, caption: str, *, index=(),
           full: pd.DataFrame | None = None, column_label: str = "", **kw) -> Table:
    return Table(id=id_, title=title, frame=frame, caption=Caption(caption),
                 index=tuple(index), full=full, column_label=column_label, **kw)


def _figure(id_: str, title: str, fig, caption: str, alt: str,
            settings: ReportSettings) -> Figure:
    return Figure(id=id_, title=title, data=plotting.to_png(fig, settings.dpi),
                  caption=Caption(caption), alt=alt)


# ------------------------------------------------------------- success curves

def curve_tables(system: str, t: pd.DataFrame) -> list[Table]:
    full = t.drop(columns=["z"])
    if system == "dice_pool_7":
        return [_table(
            f"curves-{system}", "P(at least k successes) by pool",
            _pivot(t, "pool", "successes"),
            "Exact probability that a pool of N d10 (rows) scores at least k successes "
            "(columns), 10-again, chance die at pool 0.", index=("pool",), full=full,
            column_label="successes needed (k)")]
    if system == "dice_pool_6":
        return [_table(
            f"curves-{system}", "P(success) by pool and difficulty",
            _pivot(t, "pool", "difficulty"),
            "Exact probability that a pool of N d10 (rows) reaches a difficulty of d "
            "successes (columns).", index=("pool",), full=full,
            column_label="difficulty (successes needed)")]
    if system == "middle_3d10":
        out = []
        for roll in ("normal", "advantage", "disadvantage"):
            out.append(_table(
                f"curves-{system}-{roll}", f"P(success), {roll} roll",
                _pivot(t[t["roll"] == roll], "difficulty", "modifier",
                       column_values=range(0, 21, 2)),
                f"Exact probability of total ≥ difficulty (rows) for a {roll} roll with "
                "modifier = characteristic + skill (columns, even values; all values in "
                "the CSV).", index=("difficulty",), full=full if roll == "normal" else None,
                column_label="modifier (characteristic + skill)"))
        return out
    if system == "percentile":
        skills = [1, *range(5, 100, 5), 99]
        levels = t[t["dice"] == 0]
        dice = t[t["level"] == "regular"]
        dice_view = _pivot(dice, "skill", "dice", index_values=skills)
        dice_view.columns = ["skill"] + [_dice_label(int(c)) for c in dice_view.columns[1:]]
        return [
            _table(f"curves-{system}-levels", "P(success) by skill and level",
                   _pivot(levels, "skill", "level", index_values=skills,
                          column_values=("regular", "hard", "extreme")),
                   "Exact probability that d100 reaches the level (columns) for a skill "
                   "(rows), no bonus or penalty dice, criticals and fumbles as D-g1.",
                   index=("skill",), full=full, column_label="level the keeper asks for"),
            _table(f"curves-{system}-dice", "P(regular success) with bonus/penalty dice",
                   dice_view,
                   "Exact probability of a regular success by skill (rows) and net "
                   "bonus (+) or penalty (−) dice (columns, D4).", index=("skill",),
                   column_label="net bonus (+) / penalty (−) dice"),
        ]
    if system == "d20_degrees":
        mods = range(-5, 31, 5)
        dcs = range(0, 41, 5)
        deg = t[t["degree"] == 1]
        view = _pivot(deg, "dc", "modifier", index_values=dcs, column_values=mods)
        dview = _pivot(t[t["dc"] == 15], "modifier", "degree", index_values=mods)
        dview.columns = ["modifier"] + [f"≥ {c}" for c in dview.columns[1:]]
        return [
            _table(f"curves-{system}", "P(success) by DC and modifier", view,
                   "Exact probability of at least one degree of success: d20 + modifier "
                   "(columns) vs DC (rows).", index=("dc",), full=full,
                   column_label="modifier"),
            _table(f"curves-{system}-degrees", "P(at least n degrees) at DC 15", dview,
                   "Exact probability of at least n degrees of success (columns) against "
                   "DC 15 (hard) by modifier (rows).", index=("modifier",),
                   column_label="degrees of success"),
        ]
    raise ValueError(system)


def _dice_label(d: int) -> str:
    return "0" if d == 0 else (f"+{d} bonus" if d > 0 else f"{d} penalty")


def curve_figure(system: str, t: pd.DataFrame, settings: ReportSettings) -> Figure:
    if system in ("dice_pool_7", "dice_pool_6"):
        fig, (ax,) = plotting.new_figure(1, width=6.4)
        key = "successes" if system == "dice_pool_7" else "difficulty"
        levels = range(1, 6) if system == "dice_pool_7" else range(1, 7)
        for k, style in zip(levels, plotting.line_styles(system, len(levels)), strict=True):
            sub = t[t[key] == k]
            ax.plot(sub["pool"], sub["p_exact"], label=f"{key} ≥ {k}", **style)
        ax.set_xlabel("pool size (number of d10)")
        ax.set_xticks(range(0, 21, 2))
        plotting.probability_axis(ax)
        ax.legend(title=key + " needed", loc="lower right", ncols=2)
        ax.set_title(f"{system}: P(success) by pool")
        return _figure(f"fig-curves-{system}", f"{system}: success curves", fig,
                       f"Exact P(success) against pool size, one line per {key} needed "
                       "(lighter = easier).",
                       f"Line chart of {system} success probability against pool size",
                       settings)
    if system == "middle_3d10":
        fig, axes = plotting.new_figure(2)
        for ax, mod in zip(axes, (6, 12), strict=True):
            for roll, style in zip(("disadvantage", "normal", "advantage"),
                                   plotting.line_styles(system, 3), strict=True):
                sub = t[(t["roll"] == roll) & (t["modifier"] == mod)]
                ax.plot(sub["difficulty"], sub["p_exact"], label=roll, **style)
            for d in (10, 15, 20, 25):
                ax.axvline(d, color="#999999", linewidth=0.6, linestyle=":")
            ax.set_xlabel("difficulty (B2: 10 easy … 25 very hard)")
            ax.set_title(f"modifier {mod}")
        plotting.probability_axis(axes[0])
        axes[0].legend(title="roll (B4)", loc="upper right")
        return _figure(f"fig-curves-{system}", f"{system}: success curves", fig,
                       "Exact P(total ≥ difficulty) for modifiers 6 (average person) and 12, "
                       "normal, advantage and disadvantage rolls; dotted lines mark the B2 "
                       "difficulties.", "Line charts of middle_3d10 success probability "
                       "against difficulty", settings)
    if system == "percentile":
        fig, axes = plotting.new_figure(2)
        levels = t[t["dice"] == 0]
        for level, style in zip(("regular", "hard", "extreme"),
                                plotting.line_styles(system, 3), strict=True):
            sub = levels[levels["level"] == level]
            ax = axes[0]
            ax.plot(sub["skill"], sub["p_exact"], label=level, markevery=10, **style)
        axes[0].set_title("level asked (no extra dice)")
        axes[0].legend(title="level (D1)", loc="upper left")
        reg = t[t["level"] == "regular"]
        for d, style in zip(range(-2, 3), plotting.line_styles(system, 5), strict=True):
            sub = reg[reg["dice"] == d]
            axes[1].plot(sub["skill"], sub["p_exact"], label=_dice_label(d), markevery=10,
                         **style)
        axes[1].set_title("regular level, bonus/penalty dice (D4)")
        axes[1].legend(title="net dice", loc="upper left")
        for ax in axes:
            ax.set_xlabel("skill (percent)")
        plotting.probability_axis(axes[0])
        return _figure(f"fig-curves-{system}", f"{system}: success curves", fig,
                       "Exact P(success) against skill: by level asked (left) and by net "
                       "bonus/penalty dice at the regular level (right).",
                       "Line charts of percentile success probability against skill",
                       settings)
    fig, axes = plotting.new_figure(2)
    deg1 = t[t["degree"] == 1]
    dcs = (10, 15, 20, 25, 30)
    for dc, style in zip(dcs, plotting.line_styles(system, len(dcs)), strict=True):
        sub = deg1[deg1["dc"] == dc]
        axes[0].plot(sub["modifier"], sub["p_exact"], label=f"DC {dc}", markevery=5, **style)
    axes[0].set_title("at least one degree of success")
    axes[0].legend(title="DC (E1)", loc="upper left")
    at15 = t[t["dc"] == 15]
    for deg, style in zip(range(1, 5), plotting.line_styles(system, 4), strict=True):
        sub = at15[at15["degree"] == deg]
        axes[1].plot(sub["modifier"], sub["p_exact"], label=f"≥ {deg}", markevery=5, **style)
    axes[1].set_title("degrees of success vs DC 15")
    axes[1].legend(title="degrees (E2)", loc="upper left")
    for ax in axes:
        ax.set_xlabel("modifier (added to d20)")
    plotting.probability_axis(axes[0])
    return _figure(f"fig-curves-{system}", f"{system}: success curves", fig,
                   "Exact P(success) against the modifier: by DC (left) and by degrees of "
                   "success against DC 15 (right).",
                   "Line charts of d20_degrees success probability against modifier",
                   settings)


def curve_reading(system: str, t: pd.DataFrame) -> str:
    if system == "dice_pool_7":
        even = [int(t[(t["successes"] == k) & (t["p_exact"] >= 0.5)]["pool"].min())
                for k in range(1, 6)]
        step = (even[-1] - even[0]) / (len(even) - 1)
        return (f"dice_pool_7: a chance die (pool 0) succeeds {pct(_p(t, pool=0, successes=1))}"
                f" of the time; one success is more likely than not from {even[0]} dice "
                f"({pct(_p(t, pool=even[0], successes=1))}), three successes from {even[2]} "
                f"dice, five from {even[4]}. A 5-die pool scores at least one success "
                f"{pct(_p(t, pool=5, successes=1))} of the time; each extra success asked "
                f"costs about {step:.1f} dice at even odds.")
    if system == "dice_pool_6":
        return (f"dice_pool_6: each die succeeds half the time, so small pools are swingy: "
                f"2 dice meet difficulty 1 {pct(_p(t, pool=2, difficulty=1))}, 4 dice meet "
                f"difficulty 2 {pct(_p(t, pool=4, difficulty=2))}, 8 dice difficulty 4 "
                f"{pct(_p(t, pool=8, difficulty=4))}. Roughly two dice per point of "
                "difficulty keeps the odds near even.")
    if system == "middle_3d10":
        n = _p(t, modifier=6, difficulty=15, roll="normal")
        a = _p(t, modifier=6, difficulty=15, roll="advantage")
        d = _p(t, modifier=6, difficulty=15, roll="disadvantage")
        return (f"middle_3d10: an average person (modifier 6) meets an average task "
                f"(difficulty 15) {pct(n)} of the time; advantage raises that to {pct(a)}, "
                f"disadvantage lowers it to {pct(d)}. The middle die bunches results near "
                "5–6, so each point of modifier matters most near the 50% point and "
                "little at the extremes (the two-10s / two-1s rules keep ~2.8% either way).")
    if system == "percentile":
        return (f"percentile: skill 50 succeeds {pct(_p(t, skill=50, level='regular', dice=0))}"
                f" at the regular level, {pct(_p(t, skill=50, level='hard', dice=0))} hard and "
                f"{pct(_p(t, skill=50, level='extreme', dice=0))} extreme; one bonus die lifts "
                f"the regular chance to {pct(_p(t, skill=50, level='regular', dice=1))} and one "
                f"penalty die drops it to {pct(_p(t, skill=50, level='regular', dice=-1))}. "
                "The curve is a straight line in skill: every point of skill is worth 1%.")
    return (f"d20_degrees: with modifier +5 against DC 15 the chance is "
            f"{pct(_p(t, modifier=5, dc=15, degree=1))}; every +1 is worth 5%. A natural 1 "
            f"always fails, so the best chance is {pct(_p(t, modifier=30, dc=15, degree=1))};"
            " a natural 20 only counts one degree better, so a check out of reach stays "
            f"out of reach (modifier −5 vs DC 30: {pct(_p(t, modifier=-5, dc=30, degree=1))})."
            " Each extra degree of success needs 5 more.")


def section_success_curves(settings: ReportSettings) -> Section:
    """Success curves per system on native axes: exact tables + figures (A1, B1, C1, D1, E1)."""
    blocks: list = []
    reading = ["How often a single check succeeds, on each system's own dials (pool size, "
               "modifier, skill, DC). All numbers here are exact (enumeration or "
               "convolution of the dice), not simulated. Hover a table cell for its full "
               "precision; the CSV link beside each table holds the complete grid."]
    for system in settings.systems:
        t = curves(settings, system)
        reading.append(curve_reading(system, t))
        blocks.append(Paragraph(f"<b>{system}</b> — {SYSTEM_NOTES[system][0]}."))
        blocks.append(curve_figure(system, t, settings))
        blocks.extend(curve_tables(system, t))
    return Section("success-curves", "Success curves", reading, blocks)


# ------------------------------------------------------------ MC agreement

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
        f"Every mechanic also runs through the shared Monte Carlo kernel ({settings.trials:,} "
        f"rolls per roll setting, seed {settings.seed}) and each table cell is compared with "
        "its exact value in standard errors, z = (MC − exact) / SE, SE = "
        f"√(p(1−p)/n) ≤ {settings.se_max:.5f}.",
        f"The largest deviation is |z| = {worst['max |z|']:.2f} ({worst['system']}); "
        f"{int(frame['outside 5σ + 1/n'].sum())} cells in all fall outside the test tolerance "
        "5σ + 1/n. Cells of one roll setting share the same simulated rolls, so their z "
        "values are correlated; a max |z| around 3–4 over thousands of cells is what "
        "chance alone gives. For a designer this means the simulator used for combat "
        "and other questions without exact answers reproduces the dice faithfully.",
    ]
    blocks: list = [_table("mc-agreement", "Monte Carlo vs exact", frame,
                           "One row per system: grid cells compared, trials per roll "
                           "setting, largest and mean |z|, cells beyond 3σ, largest "
                           "absolute difference, largest standard error, cells outside "
                           "the 5σ + 1/n tolerance.",
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
                label="cells")
        ax.plot(grid, normal, color="black", linewidth=1, label="N(0, 1)")
        ax.set_title(system, fontsize=8)
        ax.set_xlabel("z (standard errors)")
    axes[0].set_ylabel("density")
    axes[0].legend(loc="upper left", fontsize=6.5)
    blocks.append(_figure("fig-mc-agreement", "z-scores of Monte Carlo vs exact", fig,
                          "Histogram of z = (MC − exact) / SE over all grid cells with "
                          "0 < p < 1 (clipped to ±5), against the standard normal density. "
                          "Cells of one roll setting share their rolls, so the histograms "
                          "are lumpier than independent draws would be.",
                          "Histograms of Monte Carlo z-scores per system", settings))
    return Section("mc-agreement", "Monte Carlo agreement", reading, blocks)


# ----------------------------------------------------------------- outcomes

OUTCOME_MEANING = {
    "dice_pool_7": ("pool (dice)", "successes rolled"),
    "dice_pool_6": ("pool (dice)", "successes rolled (a pair of 10s = 4)"),
    "middle_3d10": ("roll", "kept die (1–10)"),
    "percentile": ("net bonus (+) / penalty (−) dice", "d100 result (1–100)"),
    "d20_degrees": ("roll", "d20 result (1–20)"),
}


def section_outcomes(settings: ReportSettings) -> Section:
    """Mean and SD of each roll setting's raw outcome (exact), with the MC mean ± SE."""
    blocks: list = []
    reading = ["The average and spread (standard deviation) of what the dice produce "
               "before any target is applied. A larger SD relative to the mean is a "
               "swingier system: outcomes depend more on luck than on the character."]
    for system in settings.systems:
        o = outcomes(settings, system)
        setting_label, value_label = OUTCOME_MEANING[system]
        frame = o.rename(columns={"setting": setting_label})[
            [setting_label, "mean", "sd", "mean_mc", "se_mean"]]
        blocks.append(_table(f"outcomes-{system}", f"{system}: {value_label}", frame,
                             f"Exact mean and SD of the {value_label} per {setting_label}; "
                             "mean_mc ± se_mean is the Monte Carlo estimate "
                             f"({settings.trials:,} rolls) with its standard error.",
                             index=(setting_label,),
                             formats={"mean": ".4f", "sd": ".4f", "mean_mc": ".4f",
                                      "se_mean": ".5f"}))
        if system in ("dice_pool_7", "dice_pool_6"):
            p5 = o[o["setting"] == 5].iloc[0]
            reading.append(f"{system}: 5 dice average {p5['mean']:.2f} successes "
                           f"(SD {p5['sd']:.2f}); the mean grows linearly with the pool "
                           "and the SD like its square root, so big pools are relatively "
                           "steadier.")
        elif system == "middle_3d10":
            m = o.set_index("setting")
            reading.append(f"middle_3d10: the kept middle die averages "
                           f"{m.loc['normal', 'mean']:.2f} (SD {m.loc['normal', 'sd']:.2f}), "
                           f"advantage {m.loc['advantage', 'mean']:.2f}, disadvantage "
                           f"{m.loc['disadvantage', 'mean']:.2f}: advantage is worth about "
                           f"{m.loc['advantage', 'mean'] - m.loc['normal', 'mean']:.1f} "
                           "points of modifier on average.")
    pools = [s for s in settings.systems if s in ("dice_pool_7", "dice_pool_6")]
    if pools:
        fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.0)
        for system in pools:
            o = outcomes(settings, system)
            colour = plotting.system_color(system)
            ax.plot(o["setting"], o["mean"], color=colour, marker="o", markersize=3,
                    label=f"{system} mean")
            ax.fill_between(o["setting"].astype(float), o["mean"] - o["sd"],
                            o["mean"] + o["sd"], color=colour, alpha=0.2,
                            label=f"{system} ± 1 SD")
        ax.set_xlabel("pool size (number of d10)")
        ax.set_xticks(range(0, 21, 2))
        ax.set_ylabel("successes rolled (count)")
        ax.legend(loc="upper left")
        blocks.insert(0, _figure("fig-outcomes", "Successes per pool", fig,
                                 "Exact mean successes (line) ± one standard deviation "
                                 "(band) against pool size for the dice-pool systems.",
                                 "Mean and spread of successes against pool size", settings))
    return Section("outcomes", "Outcome mean and spread", reading, blocks)


# ------------------------------------------------------ spread on native axes

#: One representative task per system, and the native axis a character improves along.
SPREAD_TASKS = {
    "dice_pool_7": ("pool", {"successes": 1}, "at least 1 success (A1)"),
    "middle_3d10": ("modifier", {"difficulty": 15, "roll": "normal"},
                    "difficulty 15, average (B2)"),
    "dice_pool_6": ("pool", {"difficulty": 3}, "difficulty 3 successes (C1)"),
    "percentile": ("skill", {"level": "regular", "dice": 0}, "regular success (D1)"),
    "d20_degrees": ("modifier", {"dc": 15, "degree": 1}, "DC 15, hard (E1)"),
}


def _crossing(x: np.ndarray, p: np.ndarray, level: float) -> float:
    """First axis value where the rising curve reaches ``level`` (linear interpolation)."""
    above = np.nonzero(p >= level)[0]
    if not len(above):
        return float("nan")
    i = int(above[0])
    if i == 0:
        return float(x[0]) if p[0] == level else float("nan")
    return float(x[i - 1] + (level - p[i - 1]) * (x[i] - x[i - 1]) / (p[i] - p[i - 1]))


def spread_curve(settings: ReportSettings, system: str) -> tuple[np.ndarray, np.ndarray]:
    axis, fixed, _ = SPREAD_TASKS[system]
    t = curves(settings, system)
    for key, value in fixed.items():
        t = t[t[key] == value]
    t = t.sort_values(axis)
    return t[axis].to_numpy(float), t["p_exact"].to_numpy(float)


def spread_frame(settings: ReportSettings) -> pd.DataFrame:
    """How fast each system's representative curve rises along its own axis (exact)."""
    rows = []
    for system in settings.systems:
        axis, _, task = SPREAD_TASKS[system]
        x, p = spread_curve(settings, system)
        x10, x50, x90 = (_crossing(x, p, q) for q in (0.1, 0.5, 0.9))
        rows.append({"system": system, "task": task, "axis": axis,
                     "value at 50%": x50, "steps 10% → 90%": x90 - x10,
                     "largest gain per step (pp)": float(100 * np.max(np.diff(p))),
                     "lowest P": float(p.min()), "highest P": float(p.max())})
    return pd.DataFrame(rows)


def section_native_spread(settings: ReportSettings) -> Section:
    """Cross-system view available from the check models alone: slope on native axes."""
    frame = spread_frame(settings)
    reading = ["Each system's dial moves in its own units (a die, a point of modifier, "
               "a percent of skill). For one representative task per system, this counts "
               "how many of those steps separate a 10% chance from a 90% chance: few "
               "steps means each improvement is a big jump (and the character sheet "
               "matters a lot); many steps means fine-grained, gradual progress.",
               "The common competence/difficulty ladder (its own section) compares the "
               "systems on shared terms; this view needs no mapping at all."]
    for row in frame.itertuples(index=False):
        reading.append(f"{row.system}: {row[4]:.1f} {row.axis} steps from 10% to 90% "
                       f"({row.task}); one step can add up to {row[5]:.1f} points; the "
                       f"chance stays between {pct(row[6])} and {pct(row[7])}.")
    blocks: list = [_table("native-spread", "Slope on native axes", frame,
                           "Representative task per system; axis value where P reaches "
                           "50%, number of axis steps from 10% to 90% (interpolated), "
                           "largest single-step gain, and the floor/ceiling of P on the "
                           "axis range (exact).",
                           formats={"value at 50%": ".2f", "steps 10% → 90%": ".2f",
                                    "largest gain per step (pp)": ".1f", "lowest P": ".4f",
                                    "highest P": ".4f"})]
    fig, (ax,) = plotting.new_figure(1, width=6.8, height=3.2)
    for i, system in enumerate(settings.systems):
        x, p = spread_curve(settings, system)
        x50 = frame.loc[frame["system"] == system, "value at 50%"].iloc[0]
        ax.plot(x - x50, p, color=plotting.system_color(system),
                linestyle=plotting.LINESTYLES[i % len(plotting.LINESTYLES)],
                marker=plotting.MARKERS[i % len(plotting.MARKERS)], markersize=3,
                markevery=max(1, len(x) // 20), label=system, linewidth=1.6)
    ax.set_xlim(-25, 25)
    ax.set_xlabel("steps on the system's own axis, from its 50% point (dice or points)")
    plotting.probability_axis(ax)
    ax.legend(loc="lower right")
    blocks.insert(0, _figure("fig-native-spread", "Curves centred on their 50% point", fig,
                             "Exact P(success) of each system's representative task against "
                             "native axis steps, shifted so every curve crosses 50% at 0.",
                             "Line chart comparing how steeply each system's success "
                             "curve rises", settings))
    return Section("native-spread", "Across systems: steps on native axes", reading, blocks)


# ---------------------------------------------------------- optional sections

def unavailable(id_: str, title: str, what: str, exc: ImportError) -> Section:
    """A section whose analysis module is not in this build: a visible note only."""
    return Section(id_, title, [], [Note(f"{NOT_AVAILABLE}: {what} "
                                         f"({exc.__class__.__name__}: {exc}).", "missing")],
                   available=False)


def generic_blocks(id_: str, title: str, result, caption: str,
                   max_rows: int = 60) -> list:
    """Blocks for an analysis result of unknown shape (frame, mapping of frames, text)."""
    if isinstance(result, pd.DataFrame):
        shown = result.head(max_rows)
        note = (f" First {max_rows} of {len(result)} rows; the CSV holds all."
                if len(result) > max_rows else "")
        return [_table(id_, title, shown.reset_index(drop=True), caption + note,
                       full=result if len(result) > max_rows else None)]
    if isinstance(result, Mapping):
        blocks: list = []
        scalars = {k: v for k, v in result.items()
                   if not isinstance(v, pd.DataFrame | Mapping)}
        if scalars:
            blocks.append(_table(id_, title, pd.DataFrame(
                {"item": list(scalars), "value": [str(v) for v in scalars.values()]}),
                caption))
        for k, v in result.items():
            if isinstance(v, pd.DataFrame | Mapping):
                blocks.extend(generic_blocks(f"{id_}-{k}", f"{title}: {k}", v, caption,
                                             max_rows))
        return blocks
    if hasattr(result, "to_frame"):
        return generic_blocks(id_, title, result.to_frame(), caption, max_rows)
    return [Paragraph(str(result))]


def _level_axis(frame: pd.DataFrame) -> str:
    """The varying level axis of an opposed table (``pool``, ``modifier`` or ``skill``)."""
    for col in frame.columns:
        if (col.endswith("_a") and f"{col[:-2]}_b" in frame
                and pd.api.types.is_numeric_dtype(frame[col]) and frame[col].nunique() > 1):
            return col[:-2]
    raise ValueError("opposed table has no level axis")


def opposed_view(frame: pd.DataFrame, value: str = "p") -> tuple[str, pd.DataFrame]:
    """Attacker level (rows) × defender level (columns) at the first roll setting."""
    level = _level_axis(frame)
    sel = np.ones(len(frame), bool)
    for col in frame.columns:
        if col.endswith(("_a", "_b")) and col[:-2] != level:
            sel &= (frame[col] == frame[col].iloc[0]).to_numpy()
    view = frame[sel].pivot(index=f"{level}_a", columns=f"{level}_b", values=value)
    view.columns = [str(c) for c in view.columns]
    return level, view.reset_index()


def _heatmap(ax, matrix: np.ndarray, xs, ys, *, vmin, vmax, cmap, label=None):
    im = ax.imshow(matrix, origin="lower", aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax,
                   extent=(xs[0] - 0.5, xs[-1] + 0.5, ys[0] - 0.5, ys[-1] + 0.5),
                   interpolation="nearest")
    if label:
        ax.set_title(label, fontsize=8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, nbins=5))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True, nbins=6))
    return im


def section_opposed(settings: ReportSettings) -> Section:
    """Opposed checks per system (A-g7, B5, C10, D3, E5) from :mod:`analysis.opposed`."""
    title = "Opposed checks"
    try:
        from analysis.opposed import opposed_table
    except ImportError as exc:
        return unavailable("opposed", title, "opposed-check tables (analysis.opposed)", exc)
    blocks: list = []
    reading = ["Who wins when two characters roll against each other (the attacker or "
               "challenger is side a). Equal levels show what each system's tie rule does; "
               "one level up shows how much a single step of skill is worth in a contest."]
    views = {}
    for system in settings.systems:
        frame = opposed_table(system, "exact", variants=list(settings.variants_of(system)))
        level, view = opposed_view(frame)
        views[system] = (level, view)
        m = view.set_index(f"{level}_a")
        levels = [int(x) for x in m.index]
        mid = levels[len(levels) // 2]
        step = levels[1] - levels[0]
        even = float(m.loc[mid, str(mid)])
        up = float(m.loc[mid + step, str(mid)]) if mid + step in m.index else float("nan")
        reading.append(f"{system}: at equal {level} {mid} the attacker wins {pct(even)}; "
                       f"one step up ({level} {mid + step} vs {mid}) {pct(up)}.")
        blocks.append(_table(f"opposed-{system}", f"{system}: P(attacker wins)", view,
                             f"Exact P(side a wins) by attacker {level} (rows) and "
                             f"defender {level} (columns), ties by the system's rules.",
                             index=(f"{level}_a",), full=frame,
                             column_label=f"defender {level}"))
    fig, axes = plotting.new_figure(len(views), width=7.2, height=2.5, sharey=False)
    im = None
    for ax, (system, (level, view)) in zip(axes, views.items(), strict=True):
        xs = [int(c) for c in view.columns[1:]]
        ys = [int(y) for y in view[f"{level}_a"]]
        im = _heatmap(ax, view.iloc[:, 1:].to_numpy(float), xs, ys, vmin=0, vmax=1,
                      cmap="PuOr", label=system)
        ax.set_xlabel(f"defender {level}")
        ax.set_ylabel(f"attacker {level}")
        ax.grid(False)
    fig.colorbar(im, ax=axes, shrink=0.9, label="P(attacker wins)")
    blocks.insert(0, _figure("fig-opposed", "P(attacker wins)", fig,
                             "Exact P(attacker wins) by both sides' levels; orange = the "
                             "defender is favoured, purple = the attacker, white = even.",
                             "Heat maps of opposed-check win probability", settings))
    return Section("opposed", title, reading, blocks)


def section_modifiers(settings: ReportSettings) -> Section:
    """Worth of each rule's modifiers in percentage points (analysis.modifiers)."""
    title = "What a modifier is worth"
    try:
        from analysis.modifiers import modifier_summary, modifier_values
    except ImportError as exc:
        return unavailable("modifiers", title, "modifier tables (analysis.modifiers)", exc)
    table = pd.concat([modifier_values(s, list(settings.variants_of(s)))
                       for s in settings.systems], ignore_index=True)
    summary = modifier_summary(table)
    reading = ["How many percentage points each modifier the rules offer adds to the "
               "chance of success, averaged over the checks where it can matter (base "
               "chance between 5% and 95%). Compare within a system to see which "
               "resource is worth spending; across systems to see how generous each is."]
    for system in settings.systems:
        sub = summary[summary["system"] == system]
        if len(sub):
            best = sub.loc[sub["mean_delta_pp"].abs().idxmax()]
            reading.append(f"{system}: the strongest modifier is {best['modifier']} "
                           f"({best['rule']}), {best['mean_delta_pp']:+.1f} points on average "
                           f"(from {best['min_delta_pp']:+.1f} to {best['max_delta_pp']:+.1f}).")
    blocks: list = [_table("modifiers", "Modifier worth (percentage points)", summary,
                           "Per modifier: mean, smallest and largest change in P(success) "
                           "in percentage points over the cells whose base chance is "
                           "5–95%, and how many cells that is (exact).", full=table,
                           formats={"mean_delta_pp": "+.2f", "min_delta_pp": "+.2f",
                                    "max_delta_pp": "+.2f"})]
    plots = shared_plots()
    if plots is not None and hasattr(plots, "modifier_plot"):
        blocks.insert(0, _figure("fig-modifiers", "Modifier worth", plots.modifier_plot(table),
                                 "Change in P(success) from each modifier (exact), by "
                                 "system.", "Chart of what each modifier is worth", settings))
        return Section("modifiers", title, reading, blocks)
    n = len(summary)
    fig, (ax,) = plotting.new_figure(1, width=7.2, height=max(2.4, 0.22 * n + 0.8))
    ypos = np.arange(n)[::-1]
    colours = [plotting.system_color(s) for s in summary["system"]]
    mean = summary["mean_delta_pp"].to_numpy(float)
    err = np.vstack([mean - summary["min_delta_pp"].to_numpy(float),
                     summary["max_delta_pp"].to_numpy(float) - mean])
    ax.barh(ypos, mean, color=colours, height=0.7)
    ax.errorbar(mean, ypos, xerr=err, fmt="none", ecolor="#333333", elinewidth=0.8,
                capsize=2)
    ax.set_yticks(ypos, [f"{s}: {m}" for s, m in zip(summary["system"], summary["modifier"],
                                                     strict=True)], fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("change in P(success) (percentage points)")
    blocks.insert(0, _figure("fig-modifiers", "Modifier worth", fig,
                             "Mean change in P(success) per modifier (bar, coloured by "
                             "system) with its range over the live cells (whiskers).",
                             "Bar chart of what each modifier is worth", settings))
    return Section("modifiers", title, reading, blocks)


def section_c7(settings: ReportSettings) -> Section | None:
    """RULES C7: is “−1 difficulty” equivalent to “+2 dice” in dice_pool_6?"""
    if "dice_pool_6" not in settings.systems:
        return None
    title = "Claim C7: −1 difficulty vs +2 dice (dice_pool_6)"
    try:
        from analysis.claims import claim_c7_summary, claim_c7_table
    except ImportError as exc:
        return unavailable("claim-c7", title, "the C7 verdict (analysis.claims)", exc)
    variants = list(settings.variants_of("dice_pool_6"))
    table = claim_c7_table(variants)
    summary = claim_c7_summary(table)
    reading = ["The dice_pool_6 text claims that lowering the difficulty by one and "
               "adding two dice are statistically equivalent (C7). Each cell compares "
               "P(pool dice reach difficulty − 1) with P(pool + 2 dice reach difficulty).",
               summary["sentence"]]
    if not variants:
        reading.append(claim_c7_summary(claim_c7_table(["criticals=false"]))["sentence"])
    blocks: list = [_table("claim-c7", "Where C7 holds, by difficulty",
                           summary["by_difficulty"],
                           "Per difficulty: pools where the two modifiers are within the "
                           "tolerance, pools where they are not, the largest gap and where, "
                           "and the mean gap (positive: +2 dice is worth more).", full=table,
                           formats={"max_abs_delta_pp": ".2f", "mean_delta_pp": "+.2f"})]
    plots = shared_plots()
    if plots is not None and hasattr(plots, "c7_heatmap"):
        blocks.insert(0, _figure("fig-claim-c7", "C7 gap", plots.c7_heatmap(table),
                                 "Gap between +2 dice and −1 difficulty in percentage points "
                                 "by pool and difficulty (exact).",
                                 "Heat map of the C7 gap by pool and difficulty", settings))
        return Section("claim-c7", title, reading, blocks)
    grid = table.pivot(index="difficulty", columns="pool", values="delta_pp")
    holds = table.pivot(index="difficulty", columns="pool", values="holds")
    fig, (ax,) = plotting.new_figure(1, width=7.0, height=3.0)
    lim = float(np.nanmax(np.abs(grid.to_numpy(float)))) or 1.0
    xs, ys = [int(c) for c in grid.columns], [int(i) for i in grid.index]
    im = _heatmap(ax, grid.to_numpy(float), xs, ys, vmin=-lim, vmax=lim, cmap="PuOr")
    hx, hy = np.nonzero(holds.to_numpy(bool).T)
    ax.plot(np.array(xs)[hx], np.array(ys)[hy], "k.", markersize=3, label="claim holds")
    ax.set_xlabel("pool (dice before the +2)")
    ax.set_ylabel("difficulty (successes)")
    ax.grid(False)
    ax.legend(loc="upper left", fontsize=7)
    fig.colorbar(im, ax=ax, label="+2 dice minus −1 difficulty (pp)")
    blocks.insert(0, _figure("fig-claim-c7", "C7 gap", fig,
                             "Gap between the two modifiers in percentage points (purple: "
                             "+2 dice better, orange: −1 difficulty better); dots mark "
                             "cells where the claim holds within the tolerance.",
                             "Heat map of the C7 gap by pool and difficulty", settings))
    return Section("claim-c7", title, reading, blocks)


def shared_plots():
    """:mod:`analysis.plots` when present (its figures are preferred), else ``None``."""
    try:
        from analysis import plots
    except ImportError:
        return None
    return plots


def _variant_map(settings: ReportSettings) -> dict[str, list[str]]:
    return {s: list(settings.variants_of(s)) for s in settings.systems
            if settings.variants_of(s)}


def section_ladders(settings: ReportSettings) -> Section:
    """Cross-system comparison on the common competence/difficulty ladders."""
    title = "Across systems: the common ladder"
    try:
        from analysis.ladders import anchor_report, ladder_table, swinginess
    except ImportError as exc:
        return unavailable("ladders", title, "cross-system ladder tables (analysis.ladders)",
                           exc)
    variants = _variant_map(settings)
    table = ladder_table(variants=variants)
    table = table[table["system"].isin(settings.systems)].reset_index(drop=True)
    comps = list(dict.fromkeys(table.sort_values("competence_rank")["competence"]))
    diffs = list(dict.fromkeys(table.sort_values("difficulty_rank")["difficulty"]))
    view = table.pivot_table(index=["system", "competence"], columns="difficulty",
                             values="p", sort=False)[diffs].reset_index()
    view["competence"] = pd.Categorical(view["competence"], comps, ordered=True)
    view["system"] = pd.Categorical(view["system"], list(settings.systems), ordered=True)
    view = view.sort_values(["system", "competence"]).astype({"system": str,
                                                              "competence": str})
    view.columns = [str(c) for c in view.columns]
    anchor = anchor_report()
    anchor = anchor[anchor["system"].isin(settings.systems)].reset_index(drop=True)
    swing = swinginess(variants=variants)
    swing = swing[swing["system"].isin(settings.systems)].reset_index(drop=True)
    reading = ["The same character (untrained … master) against the same task (easy … "
               "very hard) in every system, using the mapping in "
               "analysis/data/ladders.toml (an assumption a designer can edit). The "
               "systems are anchored so that a competent character meets an average task "
               "about equally often; the differences are in how fast the curves spread "
               "from there."]
    for row in swing.itertuples(index=False):
        reading.append(f"{row.system}: one rung of competence adds "
                       f"{row.slope_pp_per_rung:.1f} points against an average task; one SD "
                       f"of luck is worth {row.sd_in_rungs:.2f} rungs, and a character one "
                       f"rung weaker wins an opposed roll {pct(row.p_upset_adjacent)} of "
                       "the time.")
    blocks: list = [
        _table("ladders", "P(success) on the common ladder", view,
               "Exact P(success) per system and competence rung (rows) against each "
               "difficulty rung (columns), with the native numbers in the CSV.",
               index=("system", "competence"), full=table, column_label="task difficulty"),
        _table("ladders-anchor", "Anchor check", anchor,
               "P(competent meets average) per system, its gap to the target and whether "
               "it lies within the file's tolerance.", formats={"anchor_gap": "+.4f"}),
        _table("ladders-swing", "Swinginess", swing,
               "SD of the anchor character's outcome, the mean gain of one rung, their "
               "ratio (how many rungs one SD of luck is worth), P(success) gained per rung, "
               "and P(upset) one and two rungs apart (exact).",
               formats={"sd_outcome": ".3f", "rung_shift": ".3f", "sd_in_rungs": ".3f",
                        "slope_pp_per_rung": ".2f", "p_upset_adjacent": ".4f",
                        "p_upset_two_apart": ".4f"}),
    ]
    plots = shared_plots()
    if plots is not None and hasattr(plots, "ladder_plot"):
        fig = plots.ladder_plot(table)
    else:
        fig, axes = plotting.new_figure(len(diffs), width=7.2, height=2.8)
        for ax, diff in zip(axes, diffs, strict=True):
            part = table[table["difficulty"] == diff]
            for i, system in enumerate(settings.systems):
                sub = part[part["system"] == system].sort_values("competence_rank")
                ax.plot(sub["competence_rank"], sub["p"], label=system,
                        color=plotting.system_color(system),
                        marker=plotting.MARKERS[i % len(plotting.MARKERS)],
                        linestyle=plotting.LINESTYLES[i % len(plotting.LINESTYLES)])
            ax.set_title(f"{diff.replace('_', ' ')} task")
            ax.set_xticks(range(len(comps)), comps, rotation=35)
            ax.set_xlabel("competence")
        plotting.probability_axis(axes[0])
        axes[-1].legend(loc="lower right")
    blocks.insert(0, _figure("fig-ladders", "The common ladder", fig,
                             "Exact P(success) by competence rung, one line per system "
                             "(fixed colours), one panel per task difficulty.",
                             "Line charts of success probability on the common ladder",
                             settings))
    return Section("ladders", title, reading, blocks)


# ------------------------------------------------------------------ combat

#: Cross-system duel columns (``analysis.cross_combat.cross_table``) → shown headers.
DUEL_COLUMNS = {
    "p_a": "A wins", "se_a": "SE(A)", "p_b": "B wins", "se_b": "SE(B)",
    "p_neither": "neither", "rounds_mean": "rounds", "rounds_se": "SE(rounds)",
    "rounds_q50": "median", "rounds_q90": "90% by",
    "p_loser_dead": "dead", "se_loser_dead": "SE(dead)",
    "p_loser_dying": "dying", "se_loser_dying": "SE(dying)",
    "p_loser_out": "out", "se_loser_out": "SE(out)",
    "one_hit_incap_a_on_b": "A→B inc.", "one_hit_kill_a_on_b": "A→B kill",
    "one_hit_incap_b_on_a": "B→A inc.", "one_hit_kill_b_on_a": "B→A kill",
}
#: Group-fight columns (``analysis.lethality.group_fight`` rows) → shown headers.
GROUP_COLUMNS = {
    "p_side0": "0 wins", "se_side0": "SE(0)", "p_side1": "1 wins",
    "se_side1": "SE(1)", "p_neither": "neither", "se_neither": "SE(n.)",
    "rounds_mean": "rounds", "rounds_se": "SE(rounds)", "rounds_q50": "median",
    **{f"{kind}side{side}_{fate}": (f"{side} {fate}" if kind == "p_" else f"SE({side} {fate})")
       for side in (0, 1) for fate in ("dead", "dying", "out") for kind in ("p_", "se_")},
}
#: Effect-table columns (tactics, armour) → shown headers.
EFFECT_COLUMNS = {"p_side0": "A wins", "se_side0": "SE(A)", "p_side1": "B wins",
                  "p_neither": "neither", "rounds_mean": "rounds",
                  "p_loser_dead": "loser dead", "p_loser_dying": "loser dying",
                  "p_loser_out": "loser out"}
#: What each aftermath policy means, for captions and the assumptions section.
AFTERMATH_TEXT = {
    "leave": "no one helps the fallen; a dying fighter follows its system's own dying rules",
    "first_aid": "a standing winner tries each system's stabilising rule on every fallen "
                 "fighter of both sides",
    "finish": "the winners strike each fallen foe until it is dead (their own fallen are "
              "left)",
}
#: Rung pairs of the fight-upset table (weaker first).
UPSET_PAIRS = (("novice", "competent"), ("competent", "expert"), ("novice", "expert"))
_ROUND_FORMATS = {"rounds": ".2f", "SE(rounds)": ".3f", "median": ".0f", "90% by": ".0f"}


def _exact_or_mc(system: str, a, b, settings: ReportSettings, seed: int, variants=None):
    """An exact duel where the engine solves it, else Monte Carlo (with its SEs)."""
    from analysis import lethality
    from engines.errors import InputError

    try:
        return lethality.run_fight(system, [a], [b], "exact", variants=variants,
                                   round_cap=settings.round_cap, aftermath=settings.aftermath)
    except InputError:
        return lethality.run_fight(system, [a], [b], "mc", trials=settings.combat_trials,
                                   seed=seed, variants=variants,
                                   round_cap=settings.round_cap, progress=False,
                                   aftermath=settings.aftermath)


@lru_cache(maxsize=4)
def _combat_cached(systems: tuple[str, ...], trials: int, seed: int, round_cap: int,
                   aftermath: str = "leave", given: tuple = ()) -> dict:
    import tomllib

    from analysis import archetypes, cross_combat, lethality

    settings = ReportSettings(systems=systems, combat_trials=trials, seed=seed,
                              round_cap=round_cap, pdf=False, progress=False,
                              aftermath=aftermath)
    cv = {s: list(v) for s, v in given}  # each system's combat variants (NAME=VALUE)
    raw = tomllib.loads(cross_combat.DATA_FILE.read_text(encoding="utf-8"))
    spec = cross_combat.load_cross()
    stats = cross_combat.cross_stats(method="exact", trials=trials, seed=seed,
                                     round_cap=round_cap, progress=False, systems=systems,
                                     variants=cv, aftermath=aftermath)
    cross = cross_combat.cross_table(stats=stats, round_cap=round_cap, variants=cv,
                                     aftermath=aftermath)
    cast = pd.DataFrame([{"matchup": mid, "system": s,
                          "A": spec["labels"][mid][s][0], "B": spec["labels"][mid][s][1]}
                         for mid in spec["matchups"] for s in systems])
    rows, standing = [], []
    for gid, g in spec["groups"].items():  # the order of cross_combat.group_table
        for system in systems:
            lad = spec["ladder"][system]
            row, st = lethality.group_fight(
                system, [lad[r] for r in g.side0], [lad[r] for r in g.side1], trials=trials,
                seed=seed, variants=cv.get(system), round_cap=round_cap, label=gid,
                progress=False, aftermath=aftermath)
            rows.append(row)
            standing.append(st)
    one_hit, effects = [], []
    for system in systems:
        m = raw["matchups"]["melee_equal"][system]
        v = lethality.combat_variants(system, cv.get(system), aftermath)
        one_hit.append(lethality.one_hit_table(system, m["a"], [m["b"]], variants=v))
        parts = [("tactic", lethality.tactic_table(system, m["a"], m["b"], method="exact",
                                                   round_cap=round_cap, progress=False,
                                                   variants=v))]
        if archetypes.armours(system):
            parts.append(("armour", lethality.armour_table(
                system, m["a"], m["b"], method="exact", round_cap=round_cap,
                progress=False, variants=v)))
        for kind, t in parts:
            t = t.rename(columns={kind: "choice"})
            t.insert(1, "change", kind)
            t["choice"] = t["choice"].astype(str)
            t["a"], t["b"] = spec["labels"]["melee_equal"][system]
            effects.append(t)
    upsets = []
    for k, system in enumerate(systems):
        lad = spec["ladder"][system]
        for j, (weak, strong) in enumerate(UPSET_PAIRS):
            st = _exact_or_mc(system, lad[weak], lad[strong], settings,
                              seed + 1000 * (k + 1) + j, cv.get(system))
            s = lethality.summary(st)
            upsets.append({"system": system, "weaker": weak, "stronger": strong,
                           "method": s["method"], "p_fight": s["p_side0"],
                           "se_fight": s["se_side0"], "p_neither": s["p_neither"],
                           "rounds_mean": s["rounds_mean"]})
    return {"stats": stats, "cross": cross, "cast": cast,
            "groups": pd.DataFrame(rows), "standing": pd.concat(standing, ignore_index=True),
            "one_hit": pd.concat(one_hit, ignore_index=True),
            "effects": pd.concat(effects, ignore_index=True),
            "upsets": pd.DataFrame(upsets)}


def combat_frames(settings: ReportSettings) -> dict:
    """Every combat frame of the report, computed once per settings (cached).

    ``cross`` is :func:`analysis.cross_combat.cross_table` (exact duels, MC only where an
    engine has no exact solver), ``groups``/``standing`` are the rows of
    :func:`analysis.cross_combat.group_table` for the chosen systems (Monte Carlo,
    ``settings.combat_trials`` fights, ``settings.seed``), ``one_hit`` / ``effects`` come
    from :mod:`analysis.lethality` on the ``melee_equal`` matchup of each system, and
    ``upsets`` holds duels of a weaker ladder rung against a stronger one.
    """
    given = tuple((s, settings.combat_variants_of(s)) for s in settings.systems
                  if settings.combat_variants_of(s))
    return _combat_cached(tuple(settings.systems), settings.combat_trials, settings.seed,
                          settings.round_cap, settings.aftermath, given)


def _view(frame: pd.DataFrame, labels: list[str], columns: Mapping[str, str],
          se_columns: tuple[str, ...] = ()) -> pd.DataFrame:
    """Label columns then the renamed value columns; SE columns only when some row is MC."""
    mc = "method" in frame and (frame["method"] == "mc").any()
    keep = [c for c in columns if c in frame and (mc or c not in se_columns)]
    return frame[labels + keep].rename(columns=dict(columns)).reset_index(drop=True)


def _aftermath_words(settings: ReportSettings) -> str:
    """“after the aftermath “leave” (…), the same in every system”, for captions."""
    return (f"after the aftermath “{settings.aftermath}” "
            f"({AFTERMATH_TEXT[settings.aftermath]}), the same policy in every system")


def _method_note(frame: pd.DataFrame) -> str:
    methods = set(frame["method"])
    if methods == {"exact"}:
        return "Every figure is exact (method “exact”: the fight solved as a Markov chain)."
    if methods == {"mc"}:
        return "Every figure is Monte Carlo, with its standard error (SE) beside it."
    return ("Method “exact” rows are solved exactly (SE 0); “mc” rows are Monte Carlo with "
            "their standard errors.")


#: Loser fates in table order (``engines.fight.FATES``).
LOSER_FATES = ("dead", "dying", "out")


def _fates_of(row) -> str:
    """``31.0% dead / 0.0% dying / 69.0% out`` (with ± 2 SE for Monte Carlo rows)."""
    parts = []
    for fate in LOSER_FATES:
        text = f"{pct(row[f'p_loser_{fate}'])} {fate}"
        if row.get("method") == "mc":
            text += f" (± {100 * 2 * row[f'se_loser_{fate}']:.1f})"
        parts.append(text)
    return " / ".join(parts)


def _never(part: pd.DataFrame, fate: str) -> list[str]:
    """Systems whose loser never ends in ``fate``: exactly zero (exact rows) or no
    simulated fight at all (Monte Carlo rows)."""
    col = part[f"p_loser_{fate}"]
    return [s for s in part.index if np.isfinite(col[s]) and col[s] <= 1e-12]


def fate_reading(part: pd.DataFrame) -> str:
    """What becomes of the loser, from the numbers of one matchup (rows indexed by
    system, :func:`analysis.cross_combat.cross_table` columns): every system under the
    same aftermath policy, so the shares compare like with like."""
    policies = sorted(set(part["aftermath"]))
    decided = part[np.isfinite(part["p_loser_dead"].astype(float))]
    if decided.empty:
        return " No fight was decided, so the loser's fate is undefined."
    text = (f" What becomes of the loser of a decided fight (aftermath “{', '.join(policies)}”"
            f"{' in every system' if len(policies) == 1 else ''}): "
            + "; ".join(f"{s} {_fates_of(decided.loc[s])}" for s in decided.index) + ".")
    dead = decided["p_loser_dead"]
    if dead.max() > 1e-12:
        top = dead.idxmax()
        text += f" The loser ends dead most often in {top} ({pct(dead[top])})"
        never = _never(decided, "dead")
        if never:
            only = [f for f in ("dying", "out")
                    if all(decided.loc[s, f"p_loser_{f}"] > 1 - 1e-9 for s in never)]
            how = f"is always {only[0]}" if only else "is dying or out"
            text += f"; in {', '.join(never)} the loser never ends dead (it {how})."
        else:
            text += "."
    else:
        text += " In no system does the loser end dead under this policy."
    return text


def _duel_reading(cross: pd.DataFrame, titles: Mapping[str, str]) -> list[str]:
    out = []
    for mid, part in cross.groupby("matchup", sort=False):
        part = part.set_index("system")

        def who(s, part=part):
            return f"{part.loc[s, 'a']} against {part.loc[s, 'b']}"

        longest, shortest = part["rounds_mean"].idxmax(), part["rounds_mean"].idxmin()
        text = (f"{titles.get(mid, mid).capitalize()}: fights last longest in {longest} "
                f"({who(longest)}: {part.loc[longest, 'rounds_mean']:.2f} rounds on "
                f"average) and are shortest in {shortest} ({who(shortest)}: "
                f"{part.loc[shortest, 'rounds_mean']:.2f}).")
        text += fate_reading(part)
        if part["p_a"].max() - part["p_a"].min() > 0.02:
            hi, lo = part["p_a"].idxmax(), part["p_a"].idxmin()
            text += (f" Side A wins from {pct(part.loc[lo, 'p_a'])} ({lo}) to "
                     f"{pct(part.loc[hi, 'p_a'])} ({hi}): the systems disagree on how "
                     "decisive this edge is.")
        out.append(text)
    return out


def _duel_figure(stats: Mapping, max_round: int = 15):
    """Per matchup: P(the fight is still on after round k) and P(it ends in round k), one
    line per system in its fixed colour; exact solid, Monte Carlo dashed with ±2 SE."""
    from matplotlib.figure import Figure as MplFigure

    mids = list(dict.fromkeys(k[0] for k in stats))
    fig = MplFigure(figsize=(7.2, 2.6 * len(mids)), layout="constrained")
    axes = fig.subplots(len(mids), 2, squeeze=False)
    for row, mid in enumerate(mids):
        ax_s, ax_r = axes[row]
        for (m_id, system, method), (st, _note) in stats.items():
            if m_id != mid:
                continue
            pmf = st.rounds_pmf()[: max_round + 1]
            k = np.arange(pmf.size)
            alive = 1.0 - np.cumsum(pmf)
            colour = plotting.system_color(system)
            style = "-" if method == "exact" else "--"
            label = system + ("" if method == "exact" else " (MC)")
            ax_s.step(k, alive, where="post", color=colour, linestyle=style, label=label)
            ax_r.plot(k[1:], pmf[1:], color=colour, linestyle=style, marker="o",
                      markersize=2.5, label=label)
            if not st.exact:
                se = np.sqrt(np.clip(alive * (1 - alive), 0, None) / st.n)
                ax_s.fill_between(k, alive - 2 * se, alive + 2 * se, step="post",
                                  color=colour, alpha=0.2, linewidth=0)
                se_r = np.sqrt(np.clip(pmf * (1 - pmf), 0, None) / st.n)
                ax_r.fill_between(k[1:], (pmf - 2 * se_r)[1:], (pmf + 2 * se_r)[1:],
                                  color=colour, alpha=0.2, linewidth=0)
        ax_s.set_title(f"{mid}: P(still fighting after round k)")
        ax_r.set_title(f"{mid}: P(the fight ends in round k)")
        ax_s.set_ylim(-0.02, 1.02)
        for ax in (ax_s, ax_r):
            ax.set_xlabel("round k")
            ax.set_ylabel("probability")
            ax.grid(True, color="#dddddd", linewidth=0.6)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0][1].legend(loc="upper right")
    return fig


def _survival_figure(standing: pd.DataFrame, groups: pd.DataFrame, max_round: int = 12):
    """Share of each side still standing after round k, one panel per group fight."""
    fights = list(dict.fromkeys(groups["fight"]))
    fig, axes = plotting.new_figure(len(fights), width=7.2, height=3.0)
    for ax, fight in zip(axes, fights, strict=True):
        part = standing[(standing["fight"] == fight) & (standing["round"] <= max_round)]
        for system in dict.fromkeys(part["system"]):
            colour = plotting.system_color(system)
            for side, style in ((0, "-"), (1, "--")):
                sub = part[(part["system"] == system) & (part["side"] == side)]
                ax.step(sub["round"], sub["standing_share"], where="post", color=colour,
                        linestyle=style, linewidth=1.4,
                        label=system if side == 0 else None)
                ax.fill_between(sub["round"], sub["standing_share"] - 2 * sub["se_share"],
                                sub["standing_share"] + 2 * sub["se_share"], step="post",
                                color=colour, alpha=0.18, linewidth=0)
        ax.set_title(f"{fight}: side 0 solid, side 1 dashed")
        ax.set_xlabel("round")
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_ylabel("share of the side standing")
    axes[-1].legend(loc="upper right")
    return fig


def _effects_figure(effects: pd.DataFrame):
    """P(A wins) for each tactic / armour of side A, one panel per kind of change."""
    kinds = list(dict.fromkeys(effects["change"]))
    fig, axes = plotting.new_figure(len(kinds), width=7.2, height=3.4, sharey=False)
    for ax, kind in zip(axes, kinds, strict=True):
        part = effects[effects["change"] == kind]
        labels, values, colours = [], [], []
        for row in part.itertuples(index=False):
            labels.append(f"{row.system}: {row.choice}")
            values.append(row.p_side0)
            colours.append(plotting.system_color(row.system))
        y = np.arange(len(labels))[::-1]
        ax.barh(y, values, color=colours)
        ax.set_yticks(y, labels, fontsize=6.5)
        ax.axvline(0.5, color="#555555", linewidth=0.8, linestyle=":")
        ax.set_xlim(0, 1)
        ax.set_xlabel(f"P(A wins) with this {kind}")
        ax.set_title(f"{kind} of side A")
    return fig


def section_combat_duels(settings: ReportSettings) -> Section:
    """The same duels in every system (analysis.cross_combat; exact where solvable)."""
    title = "Combat: the same duels in every system"
    try:
        from analysis import cross_combat
    except ImportError as exc:
        return unavailable("combat-duels", title, "cross-system combat "
                           "(analysis.cross_combat)", exc)
    data = combat_frames(settings)
    cross = data["cross"]
    titles = {mid: e["title"] for mid, e in cross_combat.load_cross()["matchups"].items()}
    reading = ["Two fights mapped to every system's own archetypes "
               "(analysis/data/cross_combat.toml, an editable assumption): "
               + "; ".join(f"“{mid}” = {t}" for mid, t in titles.items()) + ". "
               + _method_note(cross)]
    reading += _duel_reading(cross, titles)
    ses = ("se_a", "se_b", "rounds_se", "se_loser_dead", "se_loser_dying", "se_loser_out")
    view = _view(cross, ["matchup", "system", "method"], DUEL_COLUMNS, ses)
    blocks: list = [
        _table("combat-duels", "Duels on the common ladder", view,
               f"Side A against side B (the fighters are listed below). "
               f"{_method_note(cross)} Probabilities: A wins, B wins, neither (still "
               f"fighting at the round cap, {settings.round_cap}); rounds: the mean, the "
               "median and the round by which 90% of fights have ended; dead / dying / "
               "out: what becomes of the loser among decided fights (they sum to 1) "
               + _aftermath_words(settings) + "; A→B inc. / kill: the exact "
               "odds that one attack of an unhurt A incapacitates / kills B (and B→A).",
               index=("matchup", "system"), full=cross, formats=_ROUND_FORMATS),
        _figure("fig-combat-duels", "Survival and fight length",
                _duel_figure(data["stats"]),
                "Left: P(the fight is still on after round k) — the survival curve of "
                "the fight. Right: P(it ends in round k). One colour per system; solid "
                "lines are exact, dashed lines Monte Carlo with ±2 SE bands.",
                "Survival curves and fight-length distributions per system", settings),
        _table("combat-cast", "Who fights", data["cast"],
               "The archetype of each side in each system, with the overrides the file "
               "sets.", index=("matchup", "system")),
    ]
    return Section("combat-duels", title, reading, blocks)


def section_combat_groups(settings: ReportSettings) -> Section:
    """2v2 and 3v1 fights per system (Monte Carlo with SEs) and their survival curves."""
    title = "Combat: group fights"
    try:
        from analysis import cross_combat
    except ImportError as exc:
        return unavailable("combat-groups", title, "group fights (analysis.cross_combat)",
                           exc)
    data = combat_frames(settings)
    groups = data["groups"]
    reading = [f"Monte Carlo fights ({settings.combat_trials:,} per system and fight, seed "
               f"{settings.seed}) of the ladder fighters with light melee weapons; every "
               "figure carries its standard error."]
    titles = {gid: g.title or gid for gid, g in cross_combat.load_cross()["groups"].items()}
    for fight, part in groups.groupby("fight", sort=False):
        part = part.set_index("system")
        hi, lo = part["p_side0"].idxmax(), part["p_side0"].idxmin()
        reading.append(
            f"{fight} ({titles.get(fight, fight)}): side 0 wins from "
            f"{pct(part.loc[lo, 'p_side0'])} ± {100 * part.loc[lo, 'se_side0']:.2f} points "
            f"({lo}) to {pct(part.loc[hi, 'p_side0'])} ± "
            f"{100 * part.loc[hi, 'se_side0']:.2f} ({hi}); fights last "
            f"{part['rounds_mean'].min():.1f}–{part['rounds_mean'].max():.1f} rounds on "
            "average.")
    view = _view(groups, ["fight", "system", "method"], GROUP_COLUMNS)
    blocks = [
        _table("combat-groups", "Group fights", view,
               f"Monte Carlo ({settings.combat_trials:,} fights each): P(side 0 wins), "
               "P(side 1 wins) and P(neither) with binomial SEs, rounds (mean, with the SE "
               "of the mean, and median), and per side the share of its fighters that end "
               "dead, dying or out (the rest stand), with SEs, "
               + _aftermath_words(settings) + ". Fighters and their weapons in the CSV.",
               index=("fight", "system"), full=groups, formats=_ROUND_FORMATS),
        _figure("fig-combat-groups", "Round-by-round survival in group fights",
                _survival_figure(data["standing"], groups),
                "Share of each side still able to act after round k (side 0 solid, side "
                "1 dashed), one colour per system, Monte Carlo with ±2 SE bands.",
                "Survival curves of the group fights per system", settings),
    ]
    return Section("combat-groups", title, reading, blocks)


def section_combat_weapons(settings: ReportSettings) -> Section:
    """One-hit incapacitation and kill odds by weapon (exact, analysis.lethality)."""
    title = "Combat: one hit, by weapon"
    try:
        from analysis import lethality  # noqa: F401
    except ImportError as exc:
        return unavailable("combat-weapons", title, "one-hit tables (analysis.lethality)",
                           exc)
    hits = combat_frames(settings)["one_hit"]
    reading = ["Exact odds that one attack by the competent fighter of the even duel, "
               "with each weapon of its system's data file, hits, incapacitates or kills "
               "an unhurt equal."]
    for system, part in hits.groupby("system", sort=False):
        best = part.loc[part["p_incapacitate"].idxmax()]
        if best["p_incapacitate"] < 0.0005:
            reading.append(f"{system}: no weapon takes an unhurt equal out with one hit "
                           f"(at most {best['p_incapacitate']:.1e}, {best['weapon']}); "
                           "fights are won by wearing the opponent down.")
            continue
        text = (f"{system}: the most dangerous weapon is {best['weapon']} "
                f"({pct(best['p_incapacitate'])} to incapacitate in one hit")
        kill = part["p_kill"].max()
        text += (f", {pct(part.loc[part['p_kill'].idxmax(), 'p_kill'])} to kill)."
                 if kill >= 0.0005 else "); a single hit practically never kills.")
        reading.append(text)
    fates = [c for c in ("p_dead", "p_dying", "p_out") if c in hits]
    view = hits[["system", "weapon", "attacker", "target", "method", "p_hit",
                 "p_incapacitate", "p_kill", *fates]].rename(columns={
        "p_hit": "P(hit)", "p_incapacitate": "P(incapacitated by one hit)",
        "p_kill": "P(killed by one hit)", "p_dead": "then dead", "p_dying": "then dying",
        "p_out": "then out"})
    blocks = [_table("combat-weapons", "One-hit odds by weapon", view,
                     "Exact (method “exact”): one attack on an unhurt target"
                     + (" (then dead / dying / out: the target dropped and its fate "
                        + _aftermath_words(settings) + ")" if fates else "")
                     + ". Values below "
                     "0.00005 show as 0.0000; the full precision is in the cell's tooltip "
                     "and the CSV.", index=("system", "weapon"))]
    return Section("combat-weapons", title, reading, blocks)


def section_combat_gear(settings: ReportSettings) -> Section:
    """Tactic and armour effects on the even duel of each system (exact)."""
    title = "Combat: tactics and armour"
    try:
        from analysis import lethality  # noqa: F401
    except ImportError as exc:
        return unavailable("combat-gear", title, "tactic/armour tables (analysis.lethality)",
                           exc)
    effects = combat_frames(settings)["effects"]
    reading = ["The even duel of each system (two equal competent fighters) with side A "
               "changing one thing: its tactic (A6, C13, B4, DX2, E16) or its armour (A13, "
               "DX11, E12; dice_pool_6 and middle_3d10 have no armour rules). Without a "
               "change the duel is 50/50, so P(A wins) is the value of the change. "
               + _method_note(effects)]
    for (system, kind), part in effects.groupby(["system", "change"], sort=False):
        best = part.loc[part["p_side0"].idxmax()]
        worst = part.loc[part["p_side0"].idxmin()]
        if best["p_side0"] - worst["p_side0"] < 0.005:
            reading.append(f"{system}, {kind}: no choice changes the duel (A wins "
                           f"{pct(best['p_side0'])} with each of "
                           f"{', '.join(part['choice'])}).")
            continue
        reading.append(f"{system}, {kind}: best {best['choice']} (A wins "
                       f"{pct(best['p_side0'])}, {best['rounds_mean']:.1f} rounds), worst "
                       f"{worst['choice']} ({pct(worst['p_side0'])}).")
    view = _view(effects, ["system", "change", "choice", "method"], EFFECT_COLUMNS,
                 ("se_side0",))
    blocks = [
        _table("combat-gear", "Tactics and armour in an even duel", view,
               "P(A wins), P(B wins), P(neither) with side A using the tactic or armour "
               "named, against the unchanged side B; mean rounds; loser dead / dying / out "
               "among decided fights " + _aftermath_words(settings) + ". "
               + _method_note(effects), index=("system", "change"), full=effects,
               formats=_ROUND_FORMATS),
        _figure("fig-combat-gear", "Value of a tactic or an armour",
                _effects_figure(effects),
                "P(A wins) against an equal with each tactic (left) and armour (right); "
                "the dotted line is the even 50%. Exact.",
                "Bar charts of P(win) by tactic and armour per system", settings),
    ]
    return Section("combat-gear", title, reading, blocks)


def section_combat_upsets(settings: ReportSettings) -> Section:
    """Swinginess: how often the weaker rung wins one roll vs a whole fight."""
    title = "Combat: swinginess and upsets"
    try:
        from analysis.ladders import swinginess, upset_table
    except ImportError as exc:
        return unavailable("combat-upsets", title, "ladder upsets (analysis.ladders)", exc)
    fights = combat_frames(settings)["upsets"]
    variants = _variant_map(settings)
    rolls = upset_table(variants=variants)
    rolls = rolls[rolls["system"].isin(settings.systems)]
    frame = fights.merge(rolls[["system", "weaker", "stronger", "p_upset_attacking"]],
                         on=["system", "weaker", "stronger"], how="left")
    swing = swinginess(variants=variants)
    swing = swing[swing["system"].isin(settings.systems)].set_index("system")
    adj = frame[(frame["weaker"] == "novice") & (frame["stronger"] == "competent")]
    sharper = int((adj["p_fight"] < adj["p_upset_attacking"]).sum())
    reading = ["An upset is the weaker character winning. One opposed roll (exact, "
               "analysis.ladders) and a whole duel to the end (the ladder fighters of the "
               "group fights, light melee weapons) can differ a lot: many rolls can "
               "average luck out, or one lucky blow can end a fight. In "
               f"{sharper} of {len(adj)} systems the duel favours the stronger side more "
               "than a single roll does. " + _method_note(fights)]
    for system, part in frame.groupby("system", sort=False):
        adj = part[(part["weaker"] == "novice") & (part["stronger"] == "competent")]
        if adj.empty:
            continue
        row = adj.iloc[0]
        roll, fight = row["p_upset_attacking"], row["p_fight"]
        verdict = ("the fight sharpens the edge of skill" if fight < roll else
                   "skill counts for less in a fight than in one roll")
        text = (f"{system}: a novice beats a competent character in {pct(roll)} of opposed "
                f"rolls and wins {pct(fight)} of duels — {verdict}")
        if system in swing.index:
            text += (f"; one SD of luck is worth {swing.loc[system, 'sd_in_rungs']:.2f} "
                     "rungs on a single check")
        reading.append(text + ".")
    view = frame[["system", "weaker", "stronger", "method", "p_upset_attacking", "p_fight",
                  "se_fight", "p_neither", "rounds_mean"]].rename(columns={
        "p_upset_attacking": "upset, one roll", "p_fight": "upset, duel",
        "se_fight": "SE(duel)", "p_neither": "neither", "rounds_mean": "rounds"})
    if (frame["method"] == "exact").all():
        view = view.drop(columns=["SE(duel)"])
    blocks = [_table("combat-upsets", "Upsets: one roll against a whole fight", view,
                     "P(the weaker rung wins): in one opposed roll it initiates (exact) and "
                     f"in a duel to the end (round cap {settings.round_cap}); neither = P(no "
                     "result at the cap); rounds = mean length of the duel. "
                     + _method_note(fights), index=("system",), full=frame,
                     formats=_ROUND_FORMATS)]
    return Section("combat-upsets", title, reading, blocks)


# --------------------------------------------------------- assumptions, provenance

def _combat_variants(system: str, given=(), aftermath: str = "leave"):
    """The combat ``Variants`` of ``system`` in force: the variants given, with the
    aftermath policy (None without its combat engine)."""
    try:
        from analysis.lethality import combat_variants
        return combat_variants(system, list(given), aftermath)
    except ImportError:
        return None


def assumptions_frame(settings: ReportSettings) -> pd.DataFrame:
    """Every variant in force: the check variants, then each combat engine's own ones
    (those a combat ``Variants`` inherits from the checks are listed once, as checks)."""
    rows = []
    for system in settings.systems:
        v = checks.variants_for(system, list(settings.variants_of(system)))
        cv = _combat_variants(system, settings.combat_variants_of(system), settings.aftermath)
        in_combat = {r["variant"] for r in describe(cv)} if cv is not None else set()
        listed = set()
        for row in describe(v):
            row["applies to"] = ("checks and combat" if row["variant"] in in_combat
                                 else "checks")
            listed.add(row["variant"])
            rows.append(row)
        for row in describe(cv) if cv is not None else ():
            if row["variant"] not in listed:
                row["applies to"] = "combat"
                rows.append(row)
    for row in rows:
        row["changed"] = "yes" if row["value"] != row["default"] else ""
        row["value"] = _show(row["value"])
        row["default"] = _show(row["default"])
    return pd.DataFrame(rows)[["system", "variant", "applies to", "rule", "value", "default",
                               "changed", "doc"]]


def _show(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def section_assumptions(settings: ReportSettings) -> Section:
    """Every rule variant in force (rule id, value, default) and what is exact vs MC."""
    frame = assumptions_frame(settings)
    changed = int((frame["changed"] == "yes").sum())
    reading = [
        "Where the rule texts leave a gap, the suite picks a default and names it as a "
        "variant with the rule id it settles (see the rules digest). "
        + ("Every variant below is at its default." if not changed else
           f"{changed} variant(s) differ from the default in this report (marked “yes”)."),
        "Combat rows are the combat engines' own gaps; every combat section uses the "
        "values shown (rows marked “checks and combat” reach the combat engines too, "
        "whose attacks roll the check system's dice). The aftermath policy is set for "
        f"every system alike: aftermath “{settings.aftermath}” — "
        f"{AFTERMATH_TEXT[settings.aftermath]} (RULES.md “Lethality outcomes”; choose with "
        "--aftermath leave | first_aid | finish). It decides whether a fallen loser ends "
        "dead, dying or out.",
        "Exact: success curves, outcome means and SDs (enumeration / convolution of the "
        "dice), opposed checks, the ladders, the cross-system duels, one-hit odds by "
        "weapon, the tactic and armour tables and the duel upsets (each duel solved as a "
        "Markov chain; a row marked “mc” is simulated because its engine has no exact "
        "solver). Monte Carlo: the agreement check and the group fights; every simulated "
        "number carries its standard error.",
    ]
    blocks = [_table("assumptions", "Rule variants in force", frame,
                     "One row per variant: the rule id it settles, the value used here, "
                     "the default, and what it means.")]
    return Section("assumptions", "Assumptions", reading, blocks)


def _version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def _git_commit() -> str:
    root = Path(__file__).resolve().parent.parent
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


#: Content sections in report order; provenance is added last by the builder (it needs
#: the build time).
SECTIONS = [
    section_success_curves,
    section_mc_agreement,
    section_outcomes,
    section_native_spread,
    section_opposed,
    section_modifiers,
    section_c7,
    section_ladders,
    section_combat_duels,
    section_combat_groups,
    section_combat_weapons,
    section_combat_gear,
    section_combat_upsets,
    section_campaign,
    section_assumptions,
]
