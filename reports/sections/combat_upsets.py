"""Section: swinginess and upsets (one roll against a whole fight)."""

from __future__ import annotations

from reports.i18n import N_, _, decimal
from reports.sections.combat_common import _ROUND_FORMATS, _method_note, combat_frames
from reports.sections.common import _table, _variant_map, for_systems_with, pct
from reports.settings import ReportSettings
from reports.structure import Section


@for_systems_with("has_combat", "combat-upsets", N_("Combat: swinginess and upsets"))
def section_combat_upsets(settings: ReportSettings) -> Section:
    """Swinginess: how often the weaker rung wins one roll vs a whole fight."""
    title = _("Combat: swinginess and upsets")
    from analysis.checks.ladders import swinginess, upset_table
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
    reading = [_("An upset is the weaker character winning. One opposed roll (exact, "
                 "analysis.checks.ladders) and a whole duel to the end (the ladder fighters "
                 "of the group fights, light melee weapons) can differ a lot: many rolls "
                 "can average luck out, or one lucky blow can end a fight. In {sharper} of "
                 "{n} systems the duel favours the stronger side more than a single roll "
                 "does.").format(sharper=sharper, n=len(adj)) + " " + _method_note(fights)]
    for system, part in frame.groupby("system", sort=False):
        adj = part[(part["weaker"] == "novice") & (part["stronger"] == "competent")]
        if adj.empty:
            continue
        row = adj.iloc[0]
        roll, fight = row["p_upset_attacking"], row["p_fight"]
        verdict = (_("the fight sharpens the edge of skill") if fight < roll else
                   _("skill counts for less in a fight than in one roll"))
        text = _("{system}: a novice beats a competent character in {roll} of opposed "
                 "rolls and wins {fight} of duels — {verdict}").format(
            system=system, roll=pct(roll), fight=pct(fight), verdict=verdict)
        if system in swing.index:
            text += _("; one SD of luck is worth {rungs} rungs on a single check").format(
                rungs=decimal(swing.loc[system, "sd_in_rungs"], 2))
        reading.append(text + ".")
    view = frame[["system", "weaker", "stronger", "method", "p_upset_attacking", "p_fight",
                  "se_fight", "p_neither", "rounds_mean"]].rename(columns={
        "p_upset_attacking": "upset, one roll", "p_fight": "upset, duel",
        "se_fight": "SE(duel)", "p_neither": "neither", "rounds_mean": "rounds"})
    view["weaker"], view["stronger"] = view["weaker"].map(_), view["stronger"].map(_)
    if (frame["method"] == "exact").all():
        view = view.drop(columns=["SE(duel)"])
    blocks = [_table("combat-upsets", _("Upsets: one roll against a whole fight"), view,
                     _("P(the weaker rung wins): in one opposed roll it initiates (exact) "
                       "and in a duel to the end (round cap {cap}); neither = P(no result "
                       "at the cap); rounds = mean length of the duel.").format(
                         cap=settings.round_cap) + " " + _method_note(fights),
                     index=("system",), full=frame,
                     formats=_ROUND_FORMATS)]
    return Section("combat-upsets", title, reading, blocks)
