"""Section: group fights and their survival curves."""

from __future__ import annotations

import pandas as pd

from reports import plotting
from reports.i18n import N_, _, decimal
from reports.sections.combat_common import (
    DEADLINESS_AFTERMATHS,
    DEADLINESS_COLUMNS,
    GROUP_COLUMNS,
    ROUND_FORMATS,
    aftermath_words,
    combat_frames,
    combat_view,
    cross_source,
)
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_combat_groups"]


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
        ax.set_title(_("{fight}: side 0 solid, side 1 dashed").format(fight=fight))
        ax.set_xlabel(_("round"))
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_ylabel(_("share of the side standing"))
    axes[-1].legend(loc="upper right")
    return fig


def _deadliness_view(deadly: pd.DataFrame) -> pd.DataFrame:
    """One row per fight and system: P(someone dead) and the expected dead, with SEs,
    under each of :data:`DEADLINESS_AFTERMATHS` side by side (headers ``… · leave``)."""
    parts = []
    for policy in DEADLINESS_AFTERMATHS:
        part = deadly[deadly["aftermath"] == policy].set_index(["fight", "system"])
        part = part[list(DEADLINESS_COLUMNS)].rename(
            columns={k: f"{_(v)} · {policy}" for k, v in DEADLINESS_COLUMNS.items()})
        parts.append(part)
    return pd.concat(parts, axis=1).reset_index()


@for_systems_with(MAPPED, "combat-groups", N_("Combat: group fights"))
def section_combat_groups(settings: ReportSettings) -> Section:
    """2v2 and 3v1 fights per system (Monte Carlo with SEs) and their survival curves."""
    title = _("Combat: group fights")
    from analysis.combat import cross_combat
    data = combat_frames(settings)
    groups = data["groups"]
    reading = [_("Monte Carlo fights ({trials} per system and fight, seed {seed}) of the "
                 "ladder fighters with light melee weapons; every figure carries its "
                 "standard error.").format(trials=decimal(settings.combat_trials),
                                           seed=settings.seed)]
    titles = {gid: g.title or gid
              for gid, g in cross_combat.load_cross(settings.cross_combat)["groups"].items()}
    for fight, part in groups.groupby("fight", sort=False):
        part = part.set_index("system")
        hi, lo = part["p_side0"].idxmax(), part["p_side0"].idxmin()
        reading.append(_(
            "{fight} ({title}): side 0 wins from {low} ± {se_low} points ({lo}) to {high} "
            "± {se_high} ({hi}); fights last {r_min}–{r_max} rounds on average.").format(
            fight=fight, title=_(titles.get(fight, fight)), low=pct(part.loc[lo, "p_side0"]),
            se_low=decimal(100 * part.loc[lo, "se_side0"], 2), lo=lo,
            high=pct(part.loc[hi, "p_side0"]),
            se_high=decimal(100 * part.loc[hi, "se_side0"], 2), hi=hi,
            r_min=decimal(part["rounds_mean"].min(), 1),
            r_max=decimal(part["rounds_mean"].max(), 1)))
    view = combat_view(groups, ["fight", "system", "method"], GROUP_COLUMNS)
    deadly = data["deadly"]
    for fight, part in deadly.groupby("fight", sort=False):
        span = {}
        for policy in DEADLINESS_AFTERMATHS:
            p = part[part["aftermath"] == policy].set_index("system")
            lo, hi = p["p_someone_dead"].idxmin(), p["p_someone_dead"].idxmax()
            span[policy] = _("{low} ± {se_low} points ({lo}) to {high} ± {se_high} "
                             "({hi})").format(
                low=pct(p.loc[lo, "p_someone_dead"]), lo=lo, hi=hi,
                se_low=decimal(100 * p.loc[lo, "se_someone_dead"], 2),
                high=pct(p.loc[hi, "p_someone_dead"]),
                se_high=decimal(100 * p.loc[hi, "se_someone_dead"], 2))
        reading.append(_("{fight}: someone ends dead in {leave} of the fights when the "
                         "fallen are left, in {finish} when the winners finish them.")
                       .format(fight=fight, **span))
    blocks = [
        table_block("combat-groups", _("Group fights"), view,
                    _("Monte Carlo ({trials} fights each): P(side 0 wins), P(side 1 wins) and "
                 "P(neither) with binomial SEs, rounds (mean, with the SE of the mean, and "
                 "median), and per side the share of its fighters that end dead, dying or "
                 "out (the rest stand), with SEs, {aftermath}. Fighters and their weapons "
                 "in the CSV.").format(trials=decimal(settings.combat_trials),
                                       aftermath=aftermath_words(settings))
                    + cross_source(settings),
                    index=("fight", "system"), full=groups, formats=ROUND_FORMATS),
        table_block("combat-groups-deadliness", _("How deadly group fights are"),
                    _deadliness_view(deadly),
                    _("The same fights ({trials} each) under the aftermath “leave” (the "
                      "fallen are left as they lie) and “finish” (the winners kill fallen "
                      "foes): P(at least one fighter of either side ends dead) and the "
                      "expected number of dead fighters, each with its Monte Carlo SE.")
                    .format(trials=decimal(settings.combat_trials)) + cross_source(settings),
                    index=("fight", "system"), full=deadly),
        figure_block("fig-combat-groups", _("Round-by-round survival in group fights"),
                     _survival_figure(data["standing"], groups),
                     _("Share of each side still able to act after round k (side 0 solid, side "
                  "1 dashed), one colour per system, Monte Carlo with ±2 SE bands."),
                     _("Survival curves of the group fights per system"), settings),
    ]
    return Section("combat-groups", title, reading, blocks)
