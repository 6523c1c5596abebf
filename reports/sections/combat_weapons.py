"""Section: one hit, by weapon."""

from __future__ import annotations

from reports.i18n import N_, _, format_spec
from reports.i18n import text as words
from reports.sections.combat_common import (
    FATES,
    aftermath_words,
    combat_frames,
    cross_source,
    dying_words,
    even_duel_words,
    fate_shares,
)
from reports.sections.common import MAPPED, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_combat_weapons"]


@for_systems_with(MAPPED, "combat-weapons", N_("Combat: one hit, by weapon"))
def section_combat_weapons(settings: ReportSettings) -> Section:
    """One-hit incapacitation and kill odds by weapon (exact, analysis.combat.lethality)."""
    title = _("Combat: one hit, by weapon")
    hits = combat_frames(settings)["one_hit"]
    reading = [
        _(
            "Exact odds that one attack by a fighter of {duel}, armed in turn with "
            "each weapon of its system's data file, hits, incapacitates or kills its "
            "unhurt opponent."
        ).format(duel=even_duel_words(settings))
    ]
    for system, part in hits.groupby("system", sort=False):
        best = part.loc[part["p_incapacitate"].idxmax()]
        if best["p_incapacitate"] < 0.0005:
            reading.append(
                _(
                    "{system}: no weapon takes an unhurt equal out with one hit "
                    "(at most {p}, {weapon}); fights are won by wearing the "
                    "opponent down."
                ).format(
                    system=system, p=_odds(best["p_incapacitate"]), weapon=words(best["weapon"])
                )
            )
            continue
        kill = part["p_kill"].max()
        if kill >= 0.0005:
            text = _(
                "{system}: the most dangerous weapon is {weapon} ({p} to incapacitate "
                "in one hit, {kill} to kill)."
            ).format(
                system=system,
                weapon=words(best["weapon"]),
                p=pct(best["p_incapacitate"]),
                kill=pct(part.loc[part["p_kill"].idxmax(), "p_kill"]),
            )
        else:
            text = _(
                "{system}: the most dangerous weapon is {weapon} ({p} to incapacitate "
                "in one hit); a single hit practically never kills."
            ).format(system=system, weapon=words(best["weapon"]), p=pct(best["p_incapacitate"]))
        reading.append(text)
    fates = all(f"p_{f}" in hits for f in FATES)
    view = hits[
        ["system", "weapon", "attacker", "target", "method", "p_hit", "p_incapacitate", "p_kill"]
    ].rename(
        columns={
            "p_hit": "P(hit)",
            "p_incapacitate": "P(incapacitated by one hit)",
            "p_kill": "P(killed by one hit)",
        }
    )
    if fates:
        # the one normalisation of fates: shares of the targets the hit dropped
        shares = fate_shares(hits, {f: f"p_{f}" for f in FATES}, total="p_incapacitate")
        for fate in FATES:
            view[f"dropped: {fate}"] = shares[fate].to_numpy()
        dying = dying_words(list(dict.fromkeys(hits["system"])), settings)
        if dying:
            reading.append(dying)
    caption = (
        _(
            "Exact (method “exact”): one attack on an unhurt target (dropped: dead / "
            "dying / out: the fate of the targets the hit dropped, as shares of "
            "them, summing to 100% where any dropped {aftermath}). Values below "
            "{small} show as {zero}; the full precision is in the cell's tooltip and "
            "the CSV."
        )
        if fates
        else _(
            "Exact (method “exact”): one attack on an unhurt target. Values below "
            "{small} show as {zero}; the full precision is in the cell's tooltip and "
            "the CSV."
        )
    ).format(
        aftermath=aftermath_words(settings),
        small=format_spec(0.0005, ".2%"),
        zero="<" + format_spec(0.001, ".1%"),
    )
    caption += cross_source(settings)
    blocks = [
        table_block(
            "combat-weapons", _("One-hit odds by weapon"), view, caption, index=("system", "weapon")
        )
    ]
    return Section("combat-weapons", title, reading, blocks)


def _odds(p: float) -> str:
    """A tiny chance in words ("about 1 in 480,000"), never scientific notation."""
    from analysis.glossary import figure_phrase
    from reports.i18n import text

    return text(figure_phrase("p_one_hit_incapacitate", p))
