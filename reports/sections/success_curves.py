"""Section: success curves per system (exact and Monte Carlo)."""

from __future__ import annotations

import pandas as pd

from reports import plotting
from reports.i18n import _, decimal, percent
from reports.sections.common import SYSTEM_NOTES, _figure, _p, _pivot, _table, curves, pct
from reports.settings import ReportSettings
from reports.structure import Figure, Paragraph, Section, Table


def curve_tables(system: str, t: pd.DataFrame) -> list[Table]:
    full = t.drop(columns=["z"])
    if system == "dice_pool_7":
        return [_table(
            f"curves-{system}", _("P(at least k successes) by pool"),
            _pivot(t, "pool", "successes"),
            _("Exact probability that a pool of N d10 (rows) scores at least k successes "
              "(columns), 10-again, chance die at pool 0."), index=("pool",), full=full,
            column_label=_("successes needed (k)"))]
    if system == "dice_pool_6":
        return [_table(
            f"curves-{system}", _("P(success) by pool and difficulty"),
            _pivot(t, "pool", "difficulty"),
            _("Exact probability that a pool of N d10 (rows) reaches a difficulty of d "
              "successes (columns)."), index=("pool",), full=full,
            column_label=_("difficulty (successes needed)"))]
    if system == "middle_3d10":
        out = []
        titles = {"normal": _("P(success), normal roll"),
                  "advantage": _("P(success), advantage roll"),
                  "disadvantage": _("P(success), disadvantage roll")}
        captions = {
            "normal": _("Exact probability of total ≥ difficulty (rows) for a normal roll "
                        "with modifier = characteristic + skill (columns, even values; all "
                        "values in the CSV)."),
            "advantage": _("Exact probability of total ≥ difficulty (rows) for an advantage "
                           "roll with modifier = characteristic + skill (columns, even "
                           "values; all values in the CSV)."),
            "disadvantage": _("Exact probability of total ≥ difficulty (rows) for a "
                              "disadvantage roll with modifier = characteristic + skill "
                              "(columns, even values; all values in the CSV)."),
        }
        for roll in ("normal", "advantage", "disadvantage"):
            out.append(_table(
                f"curves-{system}-{roll}", titles[roll],
                _pivot(t[t["roll"] == roll], "difficulty", "modifier",
                       column_values=range(0, 21, 2)),
                captions[roll], index=("difficulty",),
                full=full if roll == "normal" else None,
                column_label=_("modifier (characteristic + skill)")))
        return out
    if system == "percentile":
        skills = [1, *range(5, 100, 5), 99]
        levels = t[t["dice"] == 0]
        dice = t[t["level"] == "regular"]
        dice_view = _pivot(dice, "skill", "dice", index_values=skills)
        dice_view.columns = ["skill"] + [_dice_label(int(c)) for c in dice_view.columns[1:]]
        return [
            _table(f"curves-{system}-levels", _("P(success) by skill and level"),
                   _pivot(levels, "skill", "level", index_values=skills,
                          column_values=("regular", "hard", "extreme")),
                   _("Exact probability that d100 reaches the level (columns) for a skill "
                     "(rows), no bonus or penalty dice, criticals and fumbles as D-g1."),
                   index=("skill",), full=full, column_label=_("level the keeper asks for")),
            _table(f"curves-{system}-dice", _("P(regular success) with bonus/penalty dice"),
                   dice_view,
                   _("Exact probability of a regular success by skill (rows) and net "
                     "bonus (+) or penalty (−) dice (columns, D4)."), index=("skill",),
                   column_label=_("net bonus (+) / penalty (−) dice")),
        ]
    if system == "d20_degrees":
        mods = range(-5, 31, 5)
        dcs = range(0, 41, 5)
        deg = t[t["degree"] == 1]
        view = _pivot(deg, "dc", "modifier", index_values=dcs, column_values=mods)
        dview = _pivot(t[t["dc"] == 15], "modifier", "degree", index_values=mods)
        dview.columns = ["modifier"] + [f"≥ {c}" for c in dview.columns[1:]]
        return [
            _table(f"curves-{system}", _("P(success) by DC and modifier"), view,
                   _("Exact probability of at least one degree of success: d20 + modifier "
                     "(columns) vs DC (rows)."), index=("dc",), full=full,
                   column_label=_("modifier")),
            _table(f"curves-{system}-degrees", _("P(at least n degrees) at DC 15"), dview,
                   _("Exact probability of at least n degrees of success (columns) against "
                     "DC 15 (hard) by modifier (rows)."), index=("modifier",),
                   column_label=_("degrees of success")),
        ]
    raise ValueError(system)


def _dice_label(d: int) -> str:
    if d == 0:
        return "0"
    return (_("+{n} bonus") if d > 0 else _("{n} penalty")).format(n=d)


def curve_figure(system: str, t: pd.DataFrame, settings: ReportSettings) -> Figure:
    if system in ("dice_pool_7", "dice_pool_6"):
        fig, (ax,) = plotting.new_figure(1, width=6.4)
        key = "successes" if system == "dice_pool_7" else "difficulty"
        levels = range(1, 6) if system == "dice_pool_7" else range(1, 7)
        for k, style in zip(levels, plotting.line_styles(system, len(levels)), strict=True):
            sub = t[t[key] == k]
            ax.plot(sub["pool"], sub["p_exact"], label=f"≥ {k}", **style)
        ax.set_xlabel(_("pool size (number of d10)"))
        ax.set_xticks(range(0, 21, 2))
        plotting.probability_axis(ax)
        ax.legend(title=_("successes needed") if key == "successes"
                  else _("difficulty needed"), loc="lower right", ncols=2)
        ax.set_title(_("{system}: P(success) by pool").format(system=system))
        return _figure(f"fig-curves-{system}", _("{system}: success curves").format(
                           system=system), fig,
                       (_("Exact P(success) against pool size, one line per number of "
                          "successes needed (lighter = easier).") if key == "successes" else
                        _("Exact P(success) against pool size, one line per difficulty "
                          "(lighter = easier).")),
                       _("Line chart of {system} success probability against pool "
                         "size").format(system=system), settings)
    if system == "middle_3d10":
        fig, axes = plotting.new_figure(2)
        roll_names = {"disadvantage": _("disadvantage"), "normal": _("normal"),
                      "advantage": _("advantage")}
        for ax, mod in zip(axes, (6, 12), strict=True):
            for roll, style in zip(("disadvantage", "normal", "advantage"),
                                   plotting.line_styles(system, 3), strict=True):
                sub = t[(t["roll"] == roll) & (t["modifier"] == mod)]
                ax.plot(sub["difficulty"], sub["p_exact"], label=roll_names[roll], **style)
            for d in (10, 15, 20, 25):
                ax.axvline(d, color="#999999", linewidth=0.6, linestyle=":")
            ax.set_xlabel(_("difficulty (B2: 10 easy … 25 very hard)"))
            ax.set_title(_("modifier {mod}").format(mod=mod))
        plotting.probability_axis(axes[0])
        axes[0].legend(title=_("roll (B4)"), loc="upper right")
        return _figure(f"fig-curves-{system}", _("{system}: success curves").format(
                           system=system), fig,
                       _("Exact P(total ≥ difficulty) for modifiers 6 (average person) and "
                         "12, normal, advantage and disadvantage rolls; dotted lines mark "
                         "the B2 difficulties."),
                       _("Line charts of middle_3d10 success probability against "
                         "difficulty"), settings)
    if system == "percentile":
        fig, axes = plotting.new_figure(2)
        levels = t[t["dice"] == 0]
        level_names = {"regular": _("regular"), "hard": _("hard"), "extreme": _("extreme")}
        for level, style in zip(("regular", "hard", "extreme"),
                                plotting.line_styles(system, 3), strict=True):
            sub = levels[levels["level"] == level]
            ax = axes[0]
            ax.plot(sub["skill"], sub["p_exact"], label=level_names[level], markevery=10,
                    **style)
        axes[0].set_title(_("level asked (no extra dice)"))
        axes[0].legend(title=_("level (D1)"), loc="upper left")
        reg = t[t["level"] == "regular"]
        for d, style in zip(range(-2, 3), plotting.line_styles(system, 5), strict=True):
            sub = reg[reg["dice"] == d]
            axes[1].plot(sub["skill"], sub["p_exact"], label=_dice_label(d), markevery=10,
                         **style)
        axes[1].set_title(_("regular level, bonus/penalty dice (D4)"))
        axes[1].legend(title=_("net dice"), loc="upper left")
        for ax in axes:
            ax.set_xlabel(_("skill (percent)"))
        plotting.probability_axis(axes[0])
        return _figure(f"fig-curves-{system}", _("{system}: success curves").format(
                           system=system), fig,
                       _("Exact P(success) against skill: by level asked (left) and by net "
                         "bonus/penalty dice at the regular level (right)."),
                       _("Line charts of percentile success probability against skill"),
                       settings)
    fig, axes = plotting.new_figure(2)
    deg1 = t[t["degree"] == 1]
    dcs = (10, 15, 20, 25, 30)
    for dc, style in zip(dcs, plotting.line_styles(system, len(dcs)), strict=True):
        sub = deg1[deg1["dc"] == dc]
        axes[0].plot(sub["modifier"], sub["p_exact"], label=_("DC {dc}").format(dc=dc),
                     markevery=5, **style)
    axes[0].set_title(_("at least one degree of success"))
    axes[0].legend(title=_("DC (E1)"), loc="upper left")
    at15 = t[t["dc"] == 15]
    for deg, style in zip(range(1, 5), plotting.line_styles(system, 4), strict=True):
        sub = at15[at15["degree"] == deg]
        axes[1].plot(sub["modifier"], sub["p_exact"], label=f"≥ {deg}", markevery=5, **style)
    axes[1].set_title(_("degrees of success vs DC 15"))
    axes[1].legend(title=_("degrees (E2)"), loc="upper left")
    for ax in axes:
        ax.set_xlabel(_("modifier (added to d20)"))
    plotting.probability_axis(axes[0])
    return _figure(f"fig-curves-{system}", _("{system}: success curves").format(
                       system=system), fig,
                   _("Exact P(success) against the modifier: by DC (left) and by degrees "
                     "of success against DC 15 (right)."),
                   _("Line charts of d20_degrees success probability against modifier"),
                   settings)


def curve_reading(system: str, t: pd.DataFrame) -> str:
    if system == "dice_pool_7":
        even = [int(t[(t["successes"] == k) & (t["p_exact"] >= 0.5)]["pool"].min())
                for k in range(1, 6)]
        step = (even[-1] - even[0]) / (len(even) - 1)
        return _("dice_pool_7: a chance die (pool 0) succeeds {p0} of the time; one "
                 "success is more likely than not from {n1} dice ({p1}), three successes "
                 "from {n3} dice, five from {n5}. A 5-die pool scores at least one success "
                 "{p5} of the time; each extra success asked costs about {step} dice at "
                 "even odds.").format(
            p0=pct(_p(t, pool=0, successes=1)), n1=even[0],
            p1=pct(_p(t, pool=even[0], successes=1)), n3=even[2], n5=even[4],
            p5=pct(_p(t, pool=5, successes=1)), step=decimal(step, 1))
    if system == "dice_pool_6":
        return _("dice_pool_6: each die succeeds half the time, so small pools are "
                 "swingy: 2 dice meet difficulty 1 {p2}, 4 dice meet difficulty 2 {p4}, "
                 "8 dice difficulty 4 {p8}. Roughly two dice per point of difficulty keeps "
                 "the odds near even.").format(
            p2=pct(_p(t, pool=2, difficulty=1)), p4=pct(_p(t, pool=4, difficulty=2)),
            p8=pct(_p(t, pool=8, difficulty=4)))
    if system == "middle_3d10":
        n = _p(t, modifier=6, difficulty=15, roll="normal")
        a = _p(t, modifier=6, difficulty=15, roll="advantage")
        d = _p(t, modifier=6, difficulty=15, roll="disadvantage")
        return _("middle_3d10: an average person (modifier 6) meets an average task "
                 "(difficulty 15) {n} of the time; advantage raises that to {a}, "
                 "disadvantage lowers it to {d}. The middle die bunches results near 5–6, "
                 "so each point of modifier matters most near the {half} point and little "
                 "at the extremes (the two-10s / two-1s rules keep ~{edge} either way)."
                 ).format(n=pct(n), a=pct(a), d=pct(d), half=percent(0.5, 0),
                          edge=percent(0.028))
    if system == "percentile":
        return _("percentile: skill 50 succeeds {reg} at the regular level, {hard} hard "
                 "and {ext} extreme; one bonus die lifts the regular chance to {bonus} and "
                 "one penalty die drops it to {penalty}. The curve is a straight line in "
                 "skill: every point of skill is worth {one}.").format(
            reg=pct(_p(t, skill=50, level="regular", dice=0)),
            hard=pct(_p(t, skill=50, level="hard", dice=0)),
            ext=pct(_p(t, skill=50, level="extreme", dice=0)),
            bonus=pct(_p(t, skill=50, level="regular", dice=1)),
            penalty=pct(_p(t, skill=50, level="regular", dice=-1)), one=percent(0.01, 0))
    return _("d20_degrees: with modifier +5 against DC 15 the chance is {p}; every +1 is "
             "worth {five}. A natural 1 always fails, so the best chance is {best}; a "
             "natural 20 only counts one degree better, so a check out of reach stays out "
             "of reach (modifier −5 vs DC 30: {worst}). Each extra degree of success needs "
             "5 more.").format(
        p=pct(_p(t, modifier=5, dc=15, degree=1)), five=percent(0.05, 0),
        best=pct(_p(t, modifier=30, dc=15, degree=1)),
        worst=pct(_p(t, modifier=-5, dc=30, degree=1)))


def section_success_curves(settings: ReportSettings) -> Section:
    """Success curves per system on native axes: exact tables + figures (A1, B1, C1, D1, E1)."""
    blocks: list = []
    reading = [_("How often a single check succeeds, on each system's own dials (pool "
                 "size, modifier, skill, DC). All numbers here are exact (enumeration or "
                 "convolution of the dice), not simulated. Hover a table cell for its full "
                 "precision; the CSV link beside each table holds the complete grid.")]
    for system in settings.systems:
        t = curves(settings, system)
        reading.append(curve_reading(system, t))
        blocks.append(Paragraph(f"<b>{system}</b> — {_(SYSTEM_NOTES[system][0])}."))
        blocks.append(curve_figure(system, t, settings))
        blocks.extend(curve_tables(system, t))
    return Section("success-curves", _("Success curves"), reading, blocks)
