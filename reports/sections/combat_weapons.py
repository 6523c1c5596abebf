"""Section: one hit, by weapon."""

from __future__ import annotations

from reports.sections.combat_common import _aftermath_words, combat_frames
from reports.sections.common import _table, pct
from reports.settings import ReportSettings
from reports.structure import Section


def section_combat_weapons(settings: ReportSettings) -> Section:
    """One-hit incapacitation and kill odds by weapon (exact, analysis.combat.lethality)."""
    title = "Combat: one hit, by weapon"
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
