"""Section: RULES C7 (−1 difficulty against +2 dice in dice_pool_6)."""

from __future__ import annotations

from analysis.checks import plots
from reports.i18n import _, text
from reports.sections.common import figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["section_c7"]


def section_c7(settings: ReportSettings) -> Section | None:
    """RULES C7: is “−1 difficulty” equivalent to “+2 dice” in dice_pool_6?"""
    from analysis.checks.claims import claim_c7_summary, claim_c7_table, claim_systems

    system = next((s for s in claim_systems("C7") if s in settings.systems), None)
    if system is None:
        return None
    title = _("Claim C7: −1 difficulty vs +2 dice (dice_pool_6)")
    variants = list(settings.variants_of(system))
    table = claim_c7_table(variants)
    summary = claim_c7_summary(table)
    reading = [_("The dice_pool_6 text claims that lowering the difficulty by one and "
                 "adding two dice are statistically equivalent (C7). Each cell compares "
                 "P(pool dice reach difficulty − 1) with P(pool + 2 dice reach "
                 "difficulty)."),
               text(summary["sentence"])]
    if not variants:
        reading.append(text(claim_c7_summary(claim_c7_table(["criticals=false"]))["sentence"]))
    by_difficulty = summary["by_difficulty"].copy()
    for col in ("pools_holding", "pools_breaking"):  # "none" is a word; the CSV keeps it
        by_difficulty[col] = [_("none") if x == "none" else x for x in by_difficulty[col]]
    blocks: list = [table_block("claim-c7", _("Where C7 holds, by difficulty"), by_difficulty,
                                _("Per difficulty: pools where the two modifiers are within the "
                             "tolerance, pools where they are not, the largest gap and "
                             "where, and the mean gap (positive: +2 dice is worth more)."),
                                full=table,
                                formats={"max_abs_delta_pp": ".2f", "mean_delta_pp": "+.2f"})]
    blocks.insert(0, figure_block("fig-claim-c7", _("C7 gap"), plots.c7_heatmap(table),
                                  _("Gap between +2 dice and −1 difficulty in percentage points "
                               "by pool and difficulty (exact)."),
                                  _("Heat map of the C7 gap by pool and difficulty"), settings))
    return Section("claim-c7", title, reading, blocks)
