"""Section: the same duels in every system."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from reports import plotting
from reports.sections.combat_common import (
    _ROUND_FORMATS,
    DUEL_COLUMNS,
    _aftermath_words,
    _method_note,
    _view,
    combat_frames,
)
from reports.sections.common import _figure, _table, pct
from reports.settings import ReportSettings
from reports.structure import Section

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
    system, :func:`analysis.combat.cross_combat.cross_table` columns): every system under the
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
        if part["p_side0"].max() - part["p_side0"].min() > 0.02:
            hi, lo = part["p_side0"].idxmax(), part["p_side0"].idxmin()
            text += (f" Side A wins from {pct(part.loc[lo, 'p_side0'])} ({lo}) to "
                     f"{pct(part.loc[hi, 'p_side0'])} ({hi}): the systems disagree on how "
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


def section_combat_duels(settings: ReportSettings) -> Section:
    """The same duels in every system (analysis.combat.cross_combat; exact where solvable)."""
    title = "Combat: the same duels in every system"
    from analysis.combat import cross_combat
    data = combat_frames(settings)
    cross = data["cross"]
    titles = {mid: e["title"] for mid, e in cross_combat.load_cross()["matchups"].items()}
    reading = ["Two fights mapped to every system's own archetypes "
               "(analysis/data/cross_combat.toml, an editable assumption): "
               + "; ".join(f"“{mid}” = {t}" for mid, t in titles.items()) + ". "
               + _method_note(cross)]
    reading += _duel_reading(cross, titles)
    ses = ("se_side0", "se_side1", "rounds_se", "se_loser_dead", "se_loser_dying", "se_loser_out")
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
