"""Section: distance and cover — a shooter against a melee fighter who must close the gap,
at each starting distance, and an armoured shooter against an unarmoured one (RULES.md
"Distance, movement and cover").

The matchup of each system: the library's ``competent_shooter`` (its ranged style at the
competent rung, plan ``hold``) against the ladder's competent melee fighter of
``analysis/data/cross_combat.toml`` (plan ``charge``), default rules, solved exactly (the
duel chains carry the distance in their state) at 0, 5, …, 40 m. A system whose fights
start engaged (its combat has no ``distance`` variant) gets one sentence saying so.
"""

from __future__ import annotations

import pandas as pd

from reports import plotting
from reports.i18n import N_, _
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Reading, Section

#: the starting distances of the section (metres)
DISTANCES = tuple(range(0, 45, 5))


def distance_frame(systems, cross=None) -> pd.DataFrame:
    """One row per system with distance rules and starting distance: ``system``,
    ``shooter``, ``charger`` (the fighters as the tables name them), ``distance``,
    ``p_side0`` (the shooter wins), ``p_side1``, ``p_neither``, ``rounds_mean``,
    ``method`` (exact). The charger is the ladder's of the cross-combat file ``cross``
    (None: the packaged one)."""
    from analysis.combat.lethality import distance_table, has_distance
    from analysis.workflow.audit import ladder_specs

    ladder = ladder_specs(cross)
    frames = []
    for system in systems:
        if not has_distance(system) or system not in ladder:
            continue
        charger = dict(ladder[system]["competent"])
        t = distance_table(system, {"archetype": "competent_shooter"}, charger,
                           list(DISTANCES), method="exact")
        t = t.rename(columns={"a": "shooter", "b": "charger"})
        frames.append(t[["system", "shooter", "charger", "distance", "method", "p_side0",
                         "p_side1", "p_neither", "rounds_mean"]])
    cols = ["system", "shooter", "charger", "distance", "method", "p_side0", "p_side1",
            "p_neither", "rounds_mean"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def _command(system: str, charger: dict) -> str:
    from analysis.workflow.audit.reproduce import duel

    cmd = duel(system, {"archetype": "competent_shooter"}, charger, table="distance",
               columns=("distance", "p_side0"))
    return cmd + " --distances " + ",".join(map(str, DISTANCES))


def _share(p: float) -> str:
    """A probability as the glossary words it ("88.2%", "more than 99.9%": never a
    rounded 100% for a chance below 1)."""
    from analysis.glossary import figure_phrase
    from reports.i18n import text

    return text(figure_phrase("p_side0", p))


def distance_reading(frame: pd.DataFrame, systems, cross=None) -> list[str]:
    """One sentence per system: the shooter's chance engaged and from 20 m, and from
    which starting distance it is the favourite (or that it is not, up to the last
    distance); one sentence for each system whose fights start engaged (``cross``: the
    cross-combat file of :func:`distance_frame`)."""
    from analysis.combat.lethality import has_distance
    from analysis.workflow.audit import ladder_specs

    out = [_("A fight that starts apart is a race: the melee fighter must close the gap "
             "while the shooter shoots (each system's movement, ranges and range "
             "penalties: RULES.md \"Distance, movement and cover\"). Below, the library's "
             "competent shooter holding its ground against the competent melee fighter of "
             "the ladder charging, default rules, solved exactly at each starting "
             "distance.")]
    ladder = ladder_specs(cross)
    for system, part in frame.groupby("system", sort=False):
        part = part.sort_values("distance")
        p = dict(zip(part["distance"], part["p_side0"], strict=True))
        ahead = part[part["p_side0"] > 0.5 + 1e-9]
        if ahead.empty:
            verdict = _("it is not the favourite at any distance up to {last} m").format(
                last=int(part["distance"].max()))
        elif int(ahead["distance"].min()) == 0:
            verdict = _("it is the favourite even engaged")
        else:
            verdict = _("it becomes the favourite from {d} m on").format(
                d=int(ahead["distance"].min()))
        out.append(Reading(_("{system}: the shooter, {shooter}, holding, beats {charger}, "
                             "charging, in {p0} of duels that start engaged and {p20} of "
                             "those that start 20 m apart; {verdict}.").format(
            system=system, shooter=part["shooter"].iloc[0], charger=part["charger"].iloc[0],
            p0=_share(p[0]), p20=_share(p.get(20, float("nan"))), verdict=verdict),
            _command(system, dict(ladder[system]["competent"]))))
    for system in systems:
        if not has_distance(system):
            out.append(_("{system}: its fights start engaged (its combat rules take no "
                         "starting distance yet), so it is not in this section.").format(
                system=system))
    return out


def distance_figure(frame: pd.DataFrame):
    """P(the shooter wins) against the starting distance, one line per system (exact:
    no band)."""
    fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.2)
    for system, part in frame.groupby("system", sort=False):
        part = part.sort_values("distance")
        ax.plot(part["distance"], part["p_side0"], marker="o", markersize=3,
                color=plotting.system_color(system), label=system)
    ax.axhline(0.5, color="#555555", linewidth=0.8, linestyle=":")
    ax.set_xlabel(_("starting distance (m)"))
    plotting.probability_axis(ax, _("P(the shooter wins)"))
    ax.legend(fontsize=7, frameon=False)
    return fig


#: the cross-combat matchup of an armoured shooter against an unarmoured one
ARMOURED = "armoured_shooter"


def armoured_reading(apart: pd.DataFrame, cross=None) -> list:
    """One sentence per system on the armoured shooter against the unarmoured one (the
    cross-combat matchup :data:`ARMOURED` at each of its starting distances, in the
    cross-combat file ``cross``; None: the packaged one), with the command that prints
    the row; a system whose two sides are the same says why."""
    from analysis.combat import cross_combat
    from analysis.workflow.audit.reproduce import duel

    table = cross_combat.load_cross(cross)["specs"].get(ARMOURED, {})
    part = apart[apart["matchup"].str.startswith(ARMOURED + "_")]
    if part.empty:
        return []
    out: list = [_("A shooter in body armour against the same shooter without it, both "
                   "holding their ground (the cross-combat matchup “{mid}”): where a "
                   "system prices armour in mobility (dice_pool_7, AT2) a shooter who "
                   "stands still does not pay it, and the range bands weaken both "
                   "shots alike.").format(mid=ARMOURED)]
    for system, rows in part.groupby("system", sort=False):
        rows = rows.sort_values("distance")
        first, last = rows.iloc[0], rows.iloc[-1]
        if first["a"] == first["b"]:  # the data file's note says why (no armour rules)
            out.append(_("{system}: the rules text has no armour rules, so both sides are the "
                         "same shooter (a control).").format(system=system))
            continue
        a, b = table[system]
        cmd = duel(system, a, b, table="distance",
                   columns=("distance", "p_side0", "p_side1", "p_neither"))
        cmd += " --distances " + ",".join(str(int(d)) for d in rows["distance"])
        text = _("{system}: {a} beats {b} in {p0} of duels that start engaged and {p1} "
                 "of those that start {d} m apart").format(
            system=system, a=first["a"], b=first["b"], p0=_share(first["p_side0"]),
            p1=_share(last["p_side0"]), d=int(last["distance"]))
        if last["p_side1"] <= 1e-12 and last["p_neither"] > 1e-3:
            text += _("; there the unarmoured shooter never wins, and {pn} of fights are "
                      "still on at the round cap").format(pn=pct(last["p_neither"]))
        out.append(Reading(text + ".", cmd))
    return out


def armoured_view(apart: pd.DataFrame) -> pd.DataFrame:
    """P(the armoured shooter wins): one row per starting distance, one column per
    system."""
    part = apart[apart["matchup"].str.startswith(ARMOURED + "_")]
    view = part.pivot(index="distance", columns="system", values="p_side0").reset_index()
    view["distance"] = [f"{d} m" for d in view["distance"]]
    return view


@for_systems_with(MAPPED, "distance", N_("Distance and cover"))
def section_distance(settings: ReportSettings) -> Section:
    """A shooter against a charger at each starting distance, per system."""
    from reports.sections.combat_common import combat_frames, cross_source

    title = _("Distance and cover")
    frame = distance_frame(settings.systems, settings.cross_combat)
    reading = distance_reading(frame, settings.systems, settings.cross_combat)
    blocks = []
    if len(frame):
        blocks.append(figure_block("fig-distance", _("The shooter against the charger by "
                                                     "starting distance"),
                                   distance_figure(frame),
                                   _("P(the competent shooter wins) against the metres between "
                                "the fighters when the fight starts; the dotted line is "
                                "an even fight. Exact duel chains: no error band."),
                                   _("Line chart of the chance that a shooter beats a charging "
                                "melee fighter against the starting distance, one line "
                                "per system."), settings))
        view = frame.pivot(index="distance", columns="system", values="p_side0")
        view = view.reset_index()
        view["distance"] = [f"{d} m" for d in view["distance"]]
        blocks.append(table_block("distance", _("P(the shooter wins) by starting distance"),
                                  view, _("Each column a system; exact. The CSV has every "
                                     "outcome and the mean rounds.")
                                  + cross_source(settings),
                                  index=("distance",), full=frame,
                                  formats=dict.fromkeys(frame["system"].unique(), ".3f")))
    apart = combat_frames(settings)["apart"]
    armoured = apart[apart["matchup"].str.startswith(ARMOURED + "_")]
    if len(armoured):
        reading += armoured_reading(apart, settings.cross_combat)
        blocks.append(table_block("distance-armour",
                                  _("P(the armoured shooter wins) by starting distance"),
                                  armoured_view(apart),
                                  _("The cross-combat matchup “{mid}”: each column a system, "
                               "exact. The CSV has every outcome, the fighters and the "
                               "notes.").format(mid=ARMOURED) + cross_source(settings),
                                  index=("distance",), full=armoured,
                                  formats=dict.fromkeys(armoured["system"].unique(), ".3f")))
    return Section("distance", title, reading, blocks)


__all__ = ["ARMOURED", "DISTANCES", "armoured_reading", "armoured_view", "distance_figure",
           "distance_frame", "distance_reading", "section_distance"]

