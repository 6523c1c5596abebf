"""Section: the same duels in every system."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from analysis.frames import each_group
from reports import plotting
from reports.i18n import N_, _, decimal
from reports.labels import cell_words
from reports.sections.combat_common import (
    DUEL_COLUMNS,
    EVEN_DUEL,
    FATES,
    ROUND_FORMATS,
    aftermath_words,
    combat_frames,
    combat_view,
    cross_source,
    dying_words,
    fate_shares,
    method_note,
)
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["LOSER_FATES", "fate_reading", "section_combat_duels"]

#: Loser fates in table order (``engines.fight.FATES``).
LOSER_FATES = (N_("dead"), N_("dying"), N_("out"))


def _fates_of(row, shares) -> str:
    """``31.0% dead / 0.0% dying / 69.0% out`` (with ± 2 SE for Monte Carlo rows): the
    loser's fates as shares of the fighters who fell (:func:`fate_shares`)."""
    parts = []
    for fate in LOSER_FATES:
        text = f"{pct(shares[fate])} {_(fate)}"
        if row.get("method") == "mc":
            text += f" (± {decimal(100 * 2 * row[f'se_loser_{fate}'], 1)})"
        parts.append(text)
    return " / ".join(parts)


def _never(part: pd.DataFrame, fate: str) -> list[str]:
    """Systems whose loser never ends in ``fate``: exactly zero (exact rows) or no
    simulated fight at all (Monte Carlo rows)."""
    col = part[f"p_loser_{fate}"]
    return [s for s in part.index if np.isfinite(col[s]) and col[s] <= 1e-12]


def fate_reading(part: pd.DataFrame, explained: set[str] | None = None) -> str:
    """What becomes of the loser, from the numbers of one matchup (rows indexed by
    system, :func:`analysis.combat.cross_combat.cross_table` columns): every system under the
    same aftermath policy, so the shares compare like with like. The fates are shares of
    the fighters who fell (:func:`~reports.sections.combat_common.fate_shares`); the
    system whose loser ends dead most often is said to owe it to its reading of dying
    (its ``Report.dying``), the per-system meaning the section states beside the table —
    once per section: a system in ``explained`` (updated here) is not explained again."""
    from engines.system import registry

    policies = sorted(set(part["aftermath"]))
    decided = part[np.isfinite(part["p_loser_dead"].astype(float))]
    if decided.empty:
        return " " + _("No fight was decided, so the loser's fate is undefined.")
    shares = fate_shares(decided, {f: f"p_loser_{f}" for f in FATES})
    fates = "; ".join(f"{s} {_fates_of(decided.loc[s], shares.loc[s])}" for s in decided.index)
    text = " " + (
        _(
            "What becomes of the loser of a decided fight (aftermath “{policy}” in "
            "every system): {fates}."
        )
        if len(policies) == 1
        else _("What becomes of the loser of a decided fight (aftermath “{policy}”): {fates}.")
    ).format(policy=", ".join(map(_, policies)), fates=fates)
    dead = shares["dead"]
    if dead.max() > 1e-12:
        top: Any = dead.idxmax()
        text += " " + _("The loser ends dead most often in {system} ({p})").format(
            system=top, p=pct(dead[top])
        )
        dying = registry()[top].report.dying if top in registry() else ""
        if dying and top not in (explained or ()):
            if explained is not None:
                explained.add(top)
            text += _(", a consequence of how it reads dying: {dying}").format(dying=_(dying))
        never = _never(decided, "dead")
        if never:
            only = [
                f for f in ("dying", "out") if bool((shares.loc[list(never), f] > 1 - 1e-9).all())
            ]
            how = {"dying": _("it is always dying"), "out": _("it is always out")}.get(
                only[0] if only else "", _("it is dying or out")
            )
            text += _("; in {systems} the loser never ends dead ({how}).").format(
                systems=", ".join(never), how=how
            )
        else:
            text += "."
    else:
        text += " " + _("In no system does the loser end dead under this policy.")
    return text


def _duel_reading(cross: pd.DataFrame, titles: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    explained: set[str] = set()
    for mid, part in each_group(cross, "matchup"):
        part = part.set_index("system")
        title = _(titles.get(mid, mid))
        if mid == EVEN_DUEL:
            title = _("the even duel ({title})").format(title=title)

        def who(s, part=part):
            return _("{a} against {b}").format(
                a=cell_words(str(part.loc[s, "a"])), b=cell_words(str(part.loc[s, "b"]))
            )

        longest: Any = part["rounds_mean"].idxmax()
        shortest: Any = part["rounds_mean"].idxmin()
        text = _(
            "{title}: fights last longest in {longest} ({who_longest}: {rounds_longest} "
            "rounds on average) and are shortest in {shortest} ({who_shortest}: "
            "{rounds_shortest})."
        ).format(
            title=title[:1].upper() + title[1:],
            longest=longest,
            who_longest=who(longest),
            rounds_longest=decimal(part.loc[longest, "rounds_mean"], 2),
            shortest=shortest,
            who_shortest=who(shortest),
            rounds_shortest=decimal(part.loc[shortest, "rounds_mean"], 2),
        )
        text += fate_reading(part, explained)
        if part["p_side0"].max() - part["p_side0"].min() > 0.02:
            hi: Any = part["p_side0"].idxmax()
            lo: Any = part["p_side0"].idxmin()
            text += " " + _(
                "Side A wins from {low} ({lo}) to {high} ({hi}): the systems "
                "disagree on how decisive this edge is."
            ).format(
                low=pct(part.loc[lo, "p_side0"]), lo=lo, high=pct(part.loc[hi, "p_side0"]), hi=hi
            )
        out.append(text)
    return out


def _duel_figure(stats: Mapping, max_round: int = 15, titles: Mapping[str, str] | None = None):
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
            label = system + ("" if method == "exact" else " " + _("(MC)"))
            ax_s.step(k, alive, where="post", color=colour, linestyle=style, label=label)
            ax_r.plot(
                k[1:],
                pmf[1:],
                color=colour,
                linestyle=style,
                marker="o",
                markersize=2.5,
                label=label,
            )
            if not st.exact:
                se = np.sqrt(np.clip(alive * (1 - alive), 0, None) / st.n)
                ax_s.fill_between(
                    k,
                    alive - 2 * se,
                    alive + 2 * se,
                    step="post",
                    color=colour,
                    alpha=0.2,
                    linewidth=0,
                )
                se_r = np.sqrt(np.clip(pmf * (1 - pmf), 0, None) / st.n)
                ax_r.fill_between(
                    k[1:],
                    (pmf - 2 * se_r)[1:],
                    (pmf + 2 * se_r)[1:],
                    color=colour,
                    alpha=0.2,
                    linewidth=0,
                )
        named = _(titles.get(mid, mid)) if titles else mid  # the matchup's title, in words
        ax_s.set_title(
            _("{matchup}: P(still fighting after round k)").format(matchup=named), fontsize=8
        )
        ax_r.set_title(
            _("{matchup}: P(the fight ends in round k)").format(matchup=named), fontsize=8
        )
        ax_s.set_ylim(-0.02, 1.02)
        for ax in (ax_s, ax_r):
            ax.set_xlabel(_("round k"))
            ax.set_ylabel(_("probability"))
            ax.grid(True, color="#dddddd", linewidth=0.6)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0][1].legend(loc="upper right")
    return fig


@for_systems_with(MAPPED, "combat-duels", N_("Combat: the same duels in every system"))
def section_combat_duels(settings: ReportSettings) -> Section:
    """The same duels in every system (analysis.combat.cross_combat; exact where solvable)."""
    title = _("Combat: the same duels in every system")
    from analysis.combat import cross_combat

    data = combat_frames(settings)
    cross = data["cross"]
    titles = {
        mid: e["title"]
        for mid, e in cross_combat.load_cross(settings.cross_combat)["matchups"].items()
        if "base" not in e
    }  # the fights that start apart: the distance section
    reading = [
        _(
            "Two fights mapped to every system's own archetypes ({file}, an editable "
            "assumption): {fights}."
        ).format(
            file=settings.cross_label,
            fights="; ".join(f"“{mid}” = {_(t)}" for mid, t in titles.items()),
        )
        + " "
        + _(
            "“{mid}” is the report's even duel: the same fight in "
            "At a glance, the weapon and gear sections and the "
            "guardrails."
        ).format(mid=EVEN_DUEL)
        + " "
        + method_note(cross)
    ]
    reading += _duel_reading(cross, titles)
    dying = dying_words(list(dict.fromkeys(cross["system"])), settings)
    if dying:
        reading.append(dying)
    ses = ("se_side0", "se_side1", "rounds_se", "se_loser_dead", "se_loser_dying", "se_loser_out")
    view = combat_view(cross, ["matchup", "system", "method"], DUEL_COLUMNS, ses)
    blocks: list = [
        table_block(
            "combat-duels",
            _("Duels on the common ladder"),
            view,
            _(
                "Side A against side B (the fighters are listed below). {method} "
                "Probabilities: A wins, B wins, neither (still fighting at the round cap, "
                "{cap}); rounds: the mean, the median and the round by which 90% of "
                "fights have ended; dead / dying / out: the loser's fate, as shares of the "
                "fighters who fell (the losers of decided fights; they sum to 100%) "
                "{aftermath}; A→B inc. / kill: the exact "
                "odds that one attack of an unhurt A incapacitates / kills B (and "
                "B→A)."
            ).format(
                method=method_note(cross),
                cap=settings.round_cap,
                aftermath=aftermath_words(settings),
            )
            + cross_source(settings),
            index=("matchup", "system"),
            full=cross,
            formats=ROUND_FORMATS,
        ),
        figure_block(
            "fig-combat-duels",
            _("Survival and fight length"),
            _duel_figure(
                data["stats"],
                titles={
                    mid: e["title"]
                    for mid, e in cross_combat.load_cross(settings.cross_combat)["matchups"].items()
                },
            ),
            _(
                "Left: P(the fight is still on after round k) — the survival curve of "
                "the fight. Right: P(it ends in round k). One colour per system; solid "
                "lines are exact, dashed lines Monte Carlo with ±2 SE bands."
            ),
            _("Survival curves and fight-length distributions per system"),
            settings,
        ),
        table_block(
            "combat-cast",
            _("Who fights"),
            data["cast"],
            _("The archetype of each side in each system, with the overrides the file sets.")
            + cross_source(settings),
            index=("matchup", "system"),
        ),
    ]
    return Section("combat-duels", title, reading, blocks)
