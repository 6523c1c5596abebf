"""Verdicts on the claims the rule texts make about their own numbers.

**C7** (``dice_pool_6``, seed 002): "−1 difficulty and +2 dice are statistically
equivalent". :func:`claim_c7_table` puts the two side by side for every pool and
difficulty — P(pool dice reach difficulty − 1) against P(pool + 2 dice reach difficulty)
— and :func:`claim_c7_summary` says where the claim holds (the two differ by at most
``tolerance`` percentage points) and where it breaks, in a table and in plain words.
The system a claim is about is the one whose ``Report.claims`` declares it
(:func:`claim_system`), so no code here names a system.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from analysis.checks.curves import variants_for
from analysis.frames import each_row
from analysis.text import N_, Text, join
from engines.errors import InputError
from engines.system import registry
from engines.variants import describe

__all__ = [
    "C7_DIFFICULTIES",
    "C7_POOLS",
    "C7_TOLERANCE_PP",
    "TRIVIAL",
    "claim_c7",
    "claim_c7_summary",
    "claim_c7_table",
    "claim_system",
    "claim_systems",
    "variant_label",
]

#: ``|delta|`` in percentage points within which the two modifiers count as equivalent.
C7_TOLERANCE_PP = 3.0
C7_POOLS = range(1, 21)
C7_DIFFICULTIES = range(2, 11)
#: Cells where both chances are below this (or both above 1 − this) are "trivial".
TRIVIAL = 0.01


def claim_systems(claim: str) -> list[str]:
    """The installed systems whose ``Report.claims`` declare ``claim`` (``"C7"``)."""
    return [sid for sid, s in registry().items() if claim in s.report.claims]


def _variant_words(label: str) -> Text:
    """``criticals=false,again=9`` in the glossary's words: "the criticals rule (C-g2):
    off" (the C7 system's own terms)."""
    from analysis.glossary import knob_phrase, value_phrase

    system = claim_system("C7")
    parts = []
    for item in str(label).split(","):
        name, eq, value = item.strip().partition("=")
        if not eq:
            parts.append(Text(item.strip()))
            continue
        knob = f"variant.{name.strip()}"
        parts.append(
            Text(
                N_("{knob}: {value}"),
                knob=knob_phrase(system, knob),
                value=value_phrase(system, knob, value.strip()),
            )
        )
    return join(", ", parts)


def claim_system(claim: str) -> str:
    """The system a claim of the rules digest is about, or an :class:`InputError` when no
    installed system declares it."""
    found = claim_systems(claim)
    if not found:
        raise InputError(f"claim {claim}: no installed system declares it (Report.claims)")
    return found[0]


def variant_label(v) -> str:
    """``default``, or the variants that differ from their defaults (``criticals=false``)."""
    changed = [
        f"{r['variant']}={str(r['value']).lower()}"
        for r in describe(v)
        if r["value"] != r["default"]
    ]
    return ", ".join(changed) or "default"


def claim_c7_table(
    variants: Any = None,
    *,
    pools: Iterable[int] = C7_POOLS,
    difficulties: Iterable[int] = C7_DIFFICULTIES,
    tolerance: float = C7_TOLERANCE_PP,
) -> pd.DataFrame:
    """C7: P(pool, difficulty − 1) against P(pool + 2, difficulty), exactly (C1, C-g1, C-g2).

    Columns: ``system``, ``variants`` (the variants in force, ``default`` if none),
    ``pool``, ``difficulty``, ``p_minus_1_difficulty`` = P(``pool`` dice get at least
    ``difficulty − 1`` successes), ``p_plus_2_dice`` = P(``pool + 2`` dice get at least
    ``difficulty``), ``delta_pp`` = 100 × (plus-2-dice − minus-1-difficulty), ``holds`` =
    ``|delta_pp| ≤ tolerance``, ``trivial`` = both chances below 1 % or both above 99 %.

    Examples
    --------
    >>> t = claim_c7_table(["criticals=false"], pools=[1], difficulties=[2])
    >>> float(t["p_minus_1_difficulty"].iloc[0]), float(t["p_plus_2_dice"].iloc[0])
    (0.5, 0.5)
    """
    system = claim_system("C7")
    v = variants_for(system, variants)
    pools = [int(p) for p in pools]
    difficulties = [int(d) for d in difficulties]
    if not pools or min(pools) < 0:
        raise InputError(f"C7 pools: need pool sizes of 0 or more, got {pools!r}")
    if not difficulties or min(difficulties) < 1:
        raise InputError(f"C7 difficulties: need difficulties of 1 or more, got {difficulties!r}")
    if not tolerance >= 0:
        raise InputError(f"C7 tolerance: must be 0 or more percentage points, got {tolerance!r}")
    sizes = np.array(sorted(set(pools) | {p + 2 for p in pools}), dtype=np.int64)
    engine = registry()[system].checks.engine()
    codes = engine.n_codes(int(sizes.max()), v)
    probs, _ = engine.exact(sizes, v, codes)
    # at_least[i, k] = P(sizes[i] dice get >= k successes); code 1 + k is k successes
    at_least = np.cumsum(probs[:, ::-1], axis=1)[:, ::-1][:, 1:]
    at_least = np.concatenate([at_least, np.zeros((sizes.size, 1))], axis=1)
    row = {int(s): i for i, s in enumerate(sizes)}

    def p_at(pool, k):
        return float(at_least[row[pool], min(k, at_least.shape[1] - 1)])

    rows = []
    for pool in pools:
        for d in difficulties:
            easier = p_at(pool, d - 1)
            more = p_at(pool + 2, d)
            delta = 100 * (more - easier)
            rows.append(
                {
                    "pool": pool,
                    "difficulty": d,
                    "p_minus_1_difficulty": easier,
                    "p_plus_2_dice": more,
                    "delta_pp": delta,
                    "holds": bool(abs(delta) <= tolerance),
                    "trivial": bool(max(easier, more) < TRIVIAL or min(easier, more) > 1 - TRIVIAL),
                }
            )
    out = pd.DataFrame(rows)
    out.insert(0, "variants", variant_label(v))
    out.insert(0, "system", system)
    return out


def _ranges(values: list[int]) -> str:
    """[1, 2, 3, 7, 9, 10] → '1–3, 7, 9–10'."""
    if not values:
        return "none"
    parts, start, prev = [], values[0], values[0]
    for x in [*values[1:], None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if x is not None:
            start = prev = x
    return ", ".join(parts)


def claim_c7_summary(table: pd.DataFrame, tolerance: float = C7_TOLERANCE_PP) -> dict:
    """Where C7 holds and where it breaks, from :func:`claim_c7_table`.

    Returns ``{"by_difficulty": DataFrame, "n_cells", "n_holds", "share_holds",
    "worst": dict, "sentence": str}``. ``by_difficulty`` lists per difficulty the pools
    where the claim holds, the largest ``|delta|`` and its pool, and the mean delta (its sign
    says which modifier is worth more).
    """
    if table.empty:
        raise InputError("C7 summary: the table is empty")
    by = []
    d: Any
    for d, grp in table.groupby("difficulty", sort=True):
        label: Any = grp["delta_pp"].abs().idxmax()  # a row label
        worst = grp.loc[label]
        by.append(
            {
                "difficulty": int(d),
                "pools_holding": _ranges(sorted(int(p) for p in grp.loc[grp["holds"], "pool"])),
                "pools_breaking": _ranges(sorted(int(p) for p in grp.loc[~grp["holds"], "pool"])),
                "max_abs_delta_pp": float(abs(worst["delta_pp"])),
                "worst_pool": int(worst["pool"]),
                "mean_delta_pp": float(grp["delta_pp"].mean()),
            }
        )
    by_difficulty = pd.DataFrame(by)
    label = table["delta_pp"].abs().idxmax()
    worst = table.loc[label]
    n, n_holds = len(table), int(table["holds"].sum())
    nontrivial = table[~table["trivial"]]
    nt_holds = int(nontrivial["holds"].sum())
    better = Text(N_("+2 dice") if worst["delta_pp"] > 0 else N_("−1 difficulty"))
    label = table["variants"].iloc[0] if "variants" in table else "default"
    breaking = by_difficulty[by_difficulty["pools_breaking"] != "none"]
    where_breaks = (
        Text(
            N_("; it breaks at {places}"),
            places=join(
                "; ",
                (
                    Text(
                        N_("difficulty {difficulty} for pools {pools}"),
                        difficulty=int(r.difficulty),
                        pools=r.pools_breaking,
                    )
                    for r in each_row(breaking, index=True)
                ),
            ),
        )
        if len(breaking)
        else Text(N_("; it never breaks"))
    )
    sentence = Text(
        N_(
            "C7 (dice_pool_6, variants: {label}): '−1 difficulty' and '+2 dice' give success "
            "chances within {tolerance:g} percentage points in {n_holds} of {n} cells "
            "({share:.0f} %; {nt_holds} of {n_nontrivial} cells where the chance is neither "
            "below 1 % nor above 99 %){where_breaks}. The largest gap is {gap:.1f} points at "
            "pool {pool}, difficulty {difficulty}, where {better} is worth more."
        ),
        label=Text(N_("default")) if label == "default" else _variant_words(label),
        tolerance=tolerance,
        n_holds=n_holds,
        n=n,
        share=100 * n_holds / n,
        nt_holds=nt_holds,
        n_nontrivial=len(nontrivial),
        where_breaks=where_breaks,
        gap=abs(worst["delta_pp"]),
        pool=int(worst["pool"]),
        difficulty=int(worst["difficulty"]),
        better=better,
    )
    return {
        "by_difficulty": by_difficulty,
        "n_cells": n,
        "n_holds": n_holds,
        "share_holds": n_holds / n,
        "worst": worst.to_dict(),
        "sentence": sentence,
    }


def claim_c7(
    variant_sets: Iterable[Any] = (None, ["criticals=false"]), *, tolerance: float = C7_TOLERANCE_PP
) -> tuple[pd.DataFrame, list[str]]:
    """C7 under several variant sets (default: the defaults, then ``criticals=false``):
    the stacked tables and one summary sentence per set."""
    tables, sentences = [], []
    for vs in variant_sets:
        t = claim_c7_table(vs, tolerance=tolerance)
        tables.append(t)
        sentences.append(claim_c7_summary(t, tolerance)["sentence"])
    return pd.concat(tables, ignore_index=True), sentences
