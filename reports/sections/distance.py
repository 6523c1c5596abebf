"""Section: distance and cover — a shooter against a melee fighter who must close the gap,
at each starting distance, why a curve dips (a band edge of the shooter's weapon, or the
charge), what cover does (the shooter in cover against the charger and against another
shooter, in the systems with a cover rule), and an armoured shooter against an
unarmoured one (RULES.md "Distance, movement and cover"). With no system that has a
cover rule the section is titled "Distance".

The matchup of each system: the library's ``competent_shooter`` (its ranged style at the
competent rung, plan ``hold``) against the ladder's competent melee fighter of
``analysis/data/cross_combat.toml`` (plan ``charge``), default rules, solved exactly (the
duel chains carry the distance in their state) at 0, 5, …, 40 m. A system whose fights
start engaged (its combat has no ``distance`` variant) gets one sentence saying so.
"""

from __future__ import annotations

import pandas as pd

from analysis.frames import each_group, each_row
from engines.errors import InputError
from reports import plotting
from reports.i18n import N_, _
from reports.labels import cell_words
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Block, Reading, Section

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
        t = distance_table(
            system, {"archetype": "competent_shooter"}, charger, list(DISTANCES), method="exact"
        )
        t = t.rename(columns={"a": "shooter", "b": "charger"})
        frames.append(
            t[
                [
                    "system",
                    "shooter",
                    "charger",
                    "distance",
                    "method",
                    "p_side0",
                    "p_side1",
                    "p_neither",
                    "rounds_mean",
                ]
            ]
        )
    cols = [
        "system",
        "shooter",
        "charger",
        "distance",
        "method",
        "p_side0",
        "p_side1",
        "p_neither",
        "rounds_mean",
    ]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def _command(system: str, charger: dict) -> str:
    from analysis.workflow.audit.reproduce import duel

    cmd = duel(
        system,
        {"archetype": "competent_shooter"},
        charger,
        table="distance",
        columns=("distance", "p_side0"),
    )
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

    out = [
        _(
            "A fight that starts apart is a race: the melee fighter must close the gap "
            "while the shooter shoots (each system's movement, ranges and range "
            'penalties: RULES.md "Distance, movement and cover"). Below, the library\'s '
            "competent shooter holding its ground against the competent melee fighter of "
            "the ladder charging, default rules, solved exactly at each starting "
            "distance."
        )
    ]
    ladder = ladder_specs(cross)
    for system, part in each_group(frame, "system"):
        part = part.sort_values("distance")
        p = dict(zip(part["distance"], part["p_side0"], strict=True))
        ahead = part[part["p_side0"] > 0.5 + 1e-9]
        if ahead.empty:
            verdict = _("it is not the favourite at any distance up to {last} m").format(
                last=int(part["distance"].max())
            )
        elif int(ahead["distance"].min()) == 0:
            verdict = _("it is the favourite even engaged")
        else:
            verdict = _("it becomes the favourite from {d} m on").format(
                d=int(ahead["distance"].min())
            )
        out.append(
            Reading(
                _(
                    "{system}: the shooter, {shooter}, holding, beats {charger}, "
                    "charging, in {p0} of duels that start engaged and {p20} of "
                    "those that start 20 m apart; {verdict}."
                ).format(
                    system=system,
                    shooter=cell_words(str(part["shooter"].iloc[0])),
                    charger=cell_words(str(part["charger"].iloc[0])),
                    p0=_share(p[0]),
                    p20=_share(p.get(20, float("nan"))),
                    verdict=verdict,
                ),
                _command(system, dict(ladder[system]["competent"])),
            )
        )
    for system in systems:
        if not has_distance(system):
            out.append(
                _(
                    "{system}: its fights start engaged (its combat rules take no "
                    "starting distance yet), so it is not in this section."
                ).format(system=system)
            )
    return out


def distance_figure(frame: pd.DataFrame):
    """P(the shooter wins) against the starting distance, one line per system (exact:
    no band)."""
    fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.2)
    for system, part in each_group(frame, "system"):
        part = part.sort_values("distance")
        ax.plot(
            part["distance"],
            part["p_side0"],
            marker="o",
            markersize=3,
            color=plotting.system_color(system),
            label=system,
        )
    ax.axhline(0.5, color="#555555", linewidth=0.8, linestyle=":")
    ax.set_xlabel(_("starting distance (m)"))
    plotting.probability_axis(ax, _("P(the shooter wins)"))
    ax.legend(fontsize=7, frameon=False)
    return fig


#: the cross-combat matchup of an armoured shooter against an unarmoured one
ARMOURED = "armoured_shooter"


def armoured_title(cross=None) -> str:
    """The title of the cross-combat matchup :data:`ARMOURED` in the report's language
    (its id when the file gives it no title)."""
    from analysis.combat import cross_combat

    for mid, entry in cross_combat.load_cross(cross)["matchups"].items():
        if ARMOURED in (mid, entry.get("base")) and entry.get("title"):
            return _(entry["title"])  # one entry per starting distance, one title
    return ARMOURED


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
    out: list = [
        _(
            "A shooter in body armour against the same shooter without it, both "
            "holding their ground (the cross-combat matchup “{mid}”): where a "
            "system prices armour in mobility (dice_pool_7, AT2) a shooter who "
            "stands still does not pay it, and the range bands weaken both "
            "shots alike."
        ).format(mid=armoured_title(cross))
    ]
    for system, rows in each_group(part, "system"):
        rows = rows.sort_values("distance")
        first, last = rows.iloc[0], rows.iloc[-1]
        if first["a"] == first["b"]:  # the data file's note says why (no armour rules)
            out.append(
                _(
                    "{system}: the rules text has no armour rules, so both sides are the "
                    "same shooter (a control)."
                ).format(system=system)
            )
            continue
        a, b = table[system]
        cmd = duel(
            system, a, b, table="distance", columns=("distance", "p_side0", "p_side1", "p_neither")
        )
        cmd += " --distances " + ",".join(str(int(d)) for d in rows["distance"])
        text = _(
            "{system}: {a} beats {b} in {p0} of duels that start engaged and {p1} "
            "of those that start {d} m apart"
        ).format(
            system=system,
            a=cell_words(str(first["a"])),
            b=cell_words(str(first["b"])),
            p0=_share(first["p_side0"]),
            p1=_share(last["p_side0"]),
            d=int(last["distance"]),
        )
        if last["p_side1"] <= 1e-12 and last["p_neither"] > 1e-3:
            text += _(
                "; there the unarmoured shooter never wins, and {pn} of fights are "
                "still on at the round cap"
            ).format(pn=pct(last["p_neither"]))
        out.append(Reading(text + ".", cmd))
    return out


def armoured_view(apart: pd.DataFrame) -> pd.DataFrame:
    """P(the armoured shooter wins): one row per starting distance, one column per
    system."""
    part = apart[apart["matchup"].str.startswith(ARMOURED + "_")]
    view = part.pivot(index="distance", columns="system", values="p_side0").reset_index()
    view["distance"] = [f"{d} m" for d in view["distance"]]
    return view


#: a fall of the shooter's chance between two starting distances that the reading
#: explains (the tables show 3 decimals)
DIP = 5e-4


def _report(system: str):
    from engines.system import get

    return get(system).report


def _hit_command(system: str, shooter: dict, charger: dict, distance: int, weapon: str) -> str:
    from analysis.workflow.audit.reproduce import duel

    return (
        duel(
            system,
            {**shooter, "weapon": weapon},
            charger,
            table="one-hit",
            columns=("weapon", "p_hit"),
        )
        + f" --distance {distance}"
    )


def shot_profile(system: str, shooter: dict, charger: dict, up_to: int) -> list[float]:
    """P(the shooter's one shot hits the charger) made 0, 1, …, ``up_to`` metres away
    (exact; the engine's ``one_hit`` in its range band: AT-g1, DX15, ET-g2 …)."""
    from analysis.combat.lethality import one_hit

    return [
        float(one_hit(system, shooter, charger, {"distance": d})["p_hit"]) for d in range(up_to + 1)
    ]


def band_edges(profile: list[float]) -> list[int]:
    """The last metre of each band of a :func:`shot_profile`: where the next metre's shot
    hits less often."""
    return [d for d in range(len(profile) - 1) if profile[d + 1] < profile[d] - 1e-12]


def dip_readings(frame: pd.DataFrame, cross=None) -> list:
    """One sentence for each place a system's curve falls as the start moves further
    away: a band edge of the shooter's weapon between the two starts (its first shot
    from the farther one is weaker: the system's ``range_rules``), or, with no edge
    between, the charge (where the charger's moves, ``move_rules``, stand when the
    shooter fires); each with the commands that print its numbers."""
    from analysis.combat.archetypes import weapon_name
    from analysis.workflow.audit import ladder_specs

    ladder = ladder_specs(cross)
    shooter = {"archetype": "competent_shooter"}
    out: list = []
    for system, part in each_group(frame, "system"):
        part = part.sort_values("distance")
        d, p = list(part["distance"]), list(part["p_side0"])
        dips = [
            (d[i], d[i + 1], p[i], p[i + 1]) for i in range(len(d) - 1) if p[i + 1] < p[i] - DIP
        ]
        if not dips:
            continue
        charger = dict(ladder[system]["competent"])
        profile = shot_profile(system, shooter, charger, int(max(d)))
        edges = band_edges(profile)
        weapon = weapon_name(system, shooter) or ""
        rules = _report(system)
        for d1, d2, p1, p2 in dips:
            inside = [e for e in edges if d1 <= e < d2]
            cmd = " ; ".join(
                [
                    _command(system, charger),
                    _hit_command(system, shooter, charger, d1, weapon),
                    _hit_command(system, shooter, charger, d2, weapon),
                ]
            )
            if inside:
                text = _(
                    "{system}: the shooter's chance falls from {p1} at {d1} m to {p2} "
                    "at {d2} m at a band edge: its weapon hits with {h1} up to "
                    "{edge} m and {h2} beyond ({rules}), so from {d2} m its first "
                    "shots are weaker."
                ).format(
                    system=system,
                    p1=_share(p1),
                    p2=_share(p2),
                    d1=d1,
                    d2=d2,
                    h1=_share(profile[d1]),
                    h2=_share(profile[d2]),
                    edge=inside[-1],
                    rules=rules.range_rules or "—",
                )
            else:
                text = _(
                    "{system}: the shooter's chance falls from {p1} at {d1} m to {p2} "
                    "at {d2} m with no band edge between (its first shot hits with "
                    "{h} from both): the difference is the charge, where the "
                    "charger's moves ({rules}) leave it each time the shooter fires "
                    "and how many shots it takes on the way in."
                ).format(
                    system=system,
                    p1=_share(p1),
                    p2=_share(p2),
                    d1=d1,
                    d2=d2,
                    h=_share(profile[d2]),
                    rules=rules.move_rules or "—",
                )
            out.append(Reading(text, cmd))
    return out


#: the opponents of the shooter in cover: the ladder's charger, and another competent
#: shooter holding its ground
COVER_OPPONENTS = ("charger", "shooter")


def _cover_specs(system: str, cross=None) -> dict:
    from analysis.workflow.audit import ladder_specs

    return {
        "charger": dict(ladder_specs(cross)[system]["competent"]),
        "shooter": {"archetype": "competent_shooter"},
    }


def takes_cover(system: str) -> bool:
    """Whether the system has a cover rule: its combat takes the plan ``cover`` (a
    system without one refuses it, naming the rule it lacks)."""
    from analysis.combat.lethality import distance_table

    try:
        distance_table(
            system,
            {"archetype": "competent_shooter", "plan": "cover"},
            {"archetype": "competent_shooter"},
            [0],
            method="exact",
        )
    except InputError:
        return False
    return True


def cover_frame(systems, cross=None) -> pd.DataFrame:
    """The competent shooter taking cover (plan ``cover``) against each of
    :data:`COVER_OPPONENTS`, and holding its ground against the same, at each starting
    distance, in each system with distance rules and a cover rule: ``system``,
    ``opponent``, ``plan``, ``distance``, ``p_side0`` (the shooter wins), ``p_side1``,
    ``p_neither``."""
    from analysis.combat.lethality import distance_table, has_distance
    from analysis.workflow.audit import ladder_specs

    ladder = ladder_specs(cross)
    frames = []
    for system in systems:
        if not has_distance(system) or system not in ladder or not takes_cover(system):
            continue
        for opponent, spec in _cover_specs(system, cross).items():
            for plan in ("cover", "hold"):
                t = distance_table(
                    system,
                    {"archetype": "competent_shooter", "plan": plan},
                    spec,
                    list(DISTANCES),
                    method="exact",
                )
                t.insert(1, "opponent", opponent)
                t.insert(2, "plan", plan)
                frames.append(
                    t[["system", "opponent", "plan", "distance", "p_side0", "p_side1", "p_neither"]]
                )
    cols = ["system", "opponent", "plan", "distance", "p_side0", "p_side1", "p_neither"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=cols)


def cover_reading(cover: pd.DataFrame, systems, cross=None) -> list:
    """What cover does: one sentence naming the systems with no cover rule, and one per
    system with one — the shooter in cover against the charger and against another
    shooter, 20 m apart, beside the same shooter holding its ground, with the commands."""
    from analysis.combat.lethality import has_distance
    from analysis.workflow.audit.reproduce import duel

    with_cover = list(dict.fromkeys(cover["system"]))
    without = [s for s in systems if has_distance(s) and s not in with_cover]
    out: list = [
        _(
            "Cover (the plan “cover”: take cover first, then shoot) protects only "
            "against shots, so against a charger it is a cost, and between two "
            "shooters it can decide the fight."
        )
        + (
            " "
            + _("{systems}: no cover rule, so no cover rows.").format(systems=", ".join(without))
            if without
            else ""
        )
    ]
    at = 20 if 20 in DISTANCES else DISTANCES[-1]
    for system in with_cover:
        part = cover[(cover["system"] == system) & (cover["distance"] == at)]
        p = {(r.opponent, r.plan): r.p_side0 for r in each_row(part, index=True)}
        specs = _cover_specs(system, cross)
        cmds = [
            duel(
                system,
                {"archetype": "competent_shooter", "plan": plan},
                specs[o],
                table="distance",
                columns=("distance", "p_side0"),
            )
            + f" --distances {at}"
            for o in COVER_OPPONENTS
            for plan in ("cover", "hold")
        ]
        rules = _report(system).cover_rules or "—"
        text = _(
            "{system}: in cover ({rules}) the competent shooter beats the charger in "
            "{cc} of duels that start {d} m apart (holding its ground: {ch}), and "
            "another competent shooter, holding, in {sc} (when both hold: "
            "{sh})"
        ).format(
            system=system,
            rules=rules,
            d=at,
            cc=_share(p[("charger", "cover")]),
            ch=_share(p[("charger", "hold")]),
            sc=_share(p[("shooter", "cover")]),
            sh=_share(p[("shooter", "hold")]),
        )
        if p[("shooter", "cover")] < p[("shooter", "hold")] - DIP:
            text += _(
                "; even against a shooter, reaching cover costs more here than the "
                "cover gives (the turn it takes, and the cover found: {rules})"
            ).format(rules=rules)
        out.append(Reading(text + ".", " ; ".join(cmds)))
    return out


def cover_view(cover: pd.DataFrame, opponent: str) -> pd.DataFrame:
    """P(the shooter in cover wins) against ``opponent``: one row per starting distance,
    one column per system."""
    part = cover[(cover["opponent"] == opponent) & (cover["plan"] == "cover")]
    view = part.pivot(index="distance", columns="system", values="p_side0")
    view = view[list(dict.fromkeys(part["system"]))].reset_index()
    view["distance"] = [f"{d} m" for d in view["distance"]]
    view.columns.name = None
    return view


@for_systems_with(MAPPED, "distance", N_("Distance and cover"))
def section_distance(settings: ReportSettings) -> Section:
    """A shooter against a charger at each starting distance, per system."""
    from reports.sections.combat_common import combat_frames, cross_source

    frame = distance_frame(settings.systems, settings.cross_combat)
    cover = cover_frame(settings.systems, settings.cross_combat)
    title = _("Distance and cover") if len(cover) else _("Distance")
    reading = distance_reading(frame, settings.systems, settings.cross_combat)
    reading += dip_readings(frame, settings.cross_combat)
    if len(cover):
        reading += cover_reading(cover, settings.systems, settings.cross_combat)
    blocks: list[Block] = []
    if len(frame):
        blocks.append(
            figure_block(
                "fig-distance",
                _("The shooter against the charger by starting distance"),
                distance_figure(frame),
                _(
                    "P(the competent shooter wins) against the metres between "
                    "the fighters when the fight starts; the dotted line is "
                    "an even fight. Exact duel chains: no error band."
                ),
                _(
                    "Line chart of the chance that a shooter beats a charging "
                    "melee fighter against the starting distance, one line "
                    "per system."
                ),
                settings,
            )
        )
        view = frame.pivot(index="distance", columns="system", values="p_side0")
        view = view.reset_index()
        view["distance"] = [f"{d} m" for d in view["distance"]]
        blocks.append(
            table_block(
                "distance",
                _("P(the shooter wins) by starting distance"),
                view,
                _("Each column a system; exact. The CSV has every outcome and the mean rounds.")
                + cross_source(settings),
                index=("distance",),
                full=frame,
            )
        )
    if len(cover):
        blocks.append(
            table_block(
                "distance-cover",
                _("P(the shooter in cover beats the charger) by starting distance"),
                cover_view(cover, "charger"),
                _(
                    "The competent shooter takes cover first, then shoots; "
                    "the ladder's competent melee fighter charges. Each "
                    "column a system with a cover rule; exact. The CSV has "
                    "the same shooter holding its ground, and every "
                    "outcome."
                ),
                index=("distance",),
                full=cover,
            )
        )
        blocks.append(
            table_block(
                "distance-cover-shooter",
                _("P(the shooter in cover beats a shooter holding) by starting distance"),
                cover_view(cover, "shooter"),
                _(
                    "Two competent shooters: one takes cover first, the "
                    "other holds its ground (both holding: an even "
                    "fight). Each column a system with a cover rule; "
                    "exact."
                ),
                index=("distance",),
                full=cover,
            )
        )
    apart = combat_frames(settings)["apart"]
    armoured = apart[apart["matchup"].str.startswith(ARMOURED + "_")]
    if len(armoured):
        reading += armoured_reading(apart, settings.cross_combat)
        blocks.append(
            table_block(
                "distance-armour",
                _("P(the armoured shooter wins) by starting distance"),
                armoured_view(apart),
                _(
                    "The cross-combat matchup “{mid}”: each column a system, "
                    "exact. The CSV has every outcome, the fighters and the "
                    "notes."
                ).format(mid=armoured_title(settings.cross_combat))
                + cross_source(settings),
                index=("distance",),
                full=armoured,
            )
        )
    return Section("distance", title, reading, blocks)


__all__ = [
    "ARMOURED",
    "COVER_OPPONENTS",
    "DIP",
    "DISTANCES",
    "armoured_reading",
    "armoured_title",
    "armoured_view",
    "band_edges",
    "cover_frame",
    "cover_reading",
    "cover_view",
    "dip_readings",
    "distance_figure",
    "distance_frame",
    "distance_reading",
    "section_distance",
    "shot_profile",
    "takes_cover",
]
