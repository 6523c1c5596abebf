"""Section: success curves per system (exact and Monte Carlo)."""

from __future__ import annotations

import pandas as pd

from reports import plotting
from reports.sections.common import SYSTEM_NOTES, _figure, _p, _pivot, _table, curves, pct
from reports.settings import ReportSettings
from reports.structure import Figure, Paragraph, Section, Table


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
