"""Section: RULES C7 (−1 difficulty against +2 dice in dice_pool_6), opened by a
one-sentence verdict (:func:`c7_verdict`) whose numbers ``rpg-balance claim-c7
--summary`` prints."""

from __future__ import annotations

import shlex
from typing import Any

import pandas as pd

from analysis.checks import plots
from reports.i18n import _, decimal, percent, text
from reports.sections.common import figure_block, table_block
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = ["c7_command", "c7_verdict", "section_c7"]


def c7_command(variants) -> str:
    """The command that prints the C7 verdict's numbers under ``variants``."""
    words = ["rpg-balance", "claim-c7"]
    for v in variants:
        words += ["--variant", v]
    return " ".join(shlex.quote(w) for w in [*words, "--summary"])


def c7_verdict(table: pd.DataFrame, system: str) -> str:
    """One sentence: does −1 difficulty equal +2 dice (C7)? Everywhere, or where the pool
    is large for its difficulty (from the first pool above every breaking one), and
    where the gap is largest, with which modifier worth more (:func:`claim_c7_table`)."""
    from analysis.checks.claims import C7_TOLERANCE_PP

    tol = (
        decimal(int(C7_TOLERANCE_PP))
        if float(C7_TOLERANCE_PP).is_integer()
        else decimal(C7_TOLERANCE_PP)
    )
    breaking = table[~table["holds"]]
    if breaking.empty:
        return _(
            "Verdict: yes — in {system} −1 difficulty and +2 dice give the same "
            "chance within {tol} points in every cell."
        ).format(system=system, tol=tol)
    label: Any = table["delta_pp"].abs().idxmax()  # a row label
    worst = table.loc[label]
    better = _("+2 dice") if worst["delta_pp"] > 0 else _("−1 difficulty")
    first = int(breaking["pool"].max()) + 1
    pools = (
        _("and at every difficulty from pool {pool} up").format(pool=first)
        if first <= int(table["pool"].max())
        else _("but at no pool at every difficulty")
    )
    return _(
        "Verdict: only where the pool is large for its difficulty — in {system} −1 "
        "difficulty and +2 dice agree within {tol} points in {share} of cells, {pools} — "
        "and not for small pools, most of all at pool {pool}, difficulty "
        "{difficulty}, where {better} is worth {gap} points more."
    ).format(
        system=system,
        tol=tol,
        share=percent(float(table["holds"].mean()), 0),
        pools=pools,
        pool=int(worst["pool"]),
        difficulty=int(worst["difficulty"]),
        better=better,
        gap=decimal(abs(float(worst["delta_pp"])), 1),
    )


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
    reading = [
        Reading(c7_verdict(table, system), c7_command(variants)),
        _(
            "The dice_pool_6 text claims that lowering the difficulty by one and "
            "adding two dice are statistically equivalent (C7). Each cell compares "
            "P(pool dice reach difficulty − 1) with P(pool + 2 dice reach "
            "difficulty)."
        ),
        text(summary["sentence"]),
    ]
    if not variants:
        reading.append(text(claim_c7_summary(claim_c7_table(["criticals=false"]))["sentence"]))
    by_difficulty = summary["by_difficulty"].copy()
    for col in ("pools_holding", "pools_breaking"):  # "none" is a word; the CSV keeps it
        by_difficulty[col] = [_("none") if x == "none" else x for x in by_difficulty[col]]
    blocks: list = [
        table_block(
            "claim-c7",
            _("Where C7 holds, by difficulty"),
            by_difficulty,
            _(
                "Per difficulty: pools where the two modifiers are within the "
                "tolerance, pools where they are not, the largest gap and "
                "where, and the mean gap (positive: +2 dice is worth more)."
            ),
            full=table,
            formats={"max_abs_delta_pp": ".2f", "mean_delta_pp": "+.2f"},
        )
    ]
    blocks.insert(
        0,
        figure_block(
            "fig-claim-c7",
            _("C7 gap"),
            plots.c7_heatmap(table),
            _(
                "Gap between +2 dice and −1 difficulty in percentage points "
                "by pool and difficulty (exact)."
            ),
            _("Heat map of the C7 gap by pool and difficulty"),
            settings,
        ),
    )
    return Section("claim-c7", title, reading, blocks)
