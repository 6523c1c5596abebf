"""Section: group fights and their survival curves."""

from __future__ import annotations

import pandas as pd

from reports import plotting
from reports.sections.combat_common import (
    _ROUND_FORMATS,
    GROUP_COLUMNS,
    _aftermath_words,
    _view,
    combat_frames,
)
from reports.sections.common import _figure, _table, pct
from reports.settings import ReportSettings
from reports.structure import Section


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


def section_combat_groups(settings: ReportSettings) -> Section:
    """2v2 and 3v1 fights per system (Monte Carlo with SEs) and their survival curves."""
    title = "Combat: group fights"
    from analysis.combat import cross_combat
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
