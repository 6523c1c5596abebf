"""Lethality tables from :class:`engines.fight.FightStats`, the same for every system.

Each function turns one or more fight results into a tidy DataFrame. Monte Carlo results
carry standard errors (binomial for proportions, ``sd / sqrt(n)`` for means); exact results
carry ``se = 0`` and ``method = "exact"``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.fight import FightStats

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _method(stats: FightStats) -> str:
    return "exact" if stats.exact else "mc"


def _prop_se(p, n, exact: bool):
    p = np.asarray(p, dtype=float)
    if exact:
        return np.zeros_like(p)
    return np.sqrt(np.clip(p * (1 - p), 0, None) / n)


def rounds_quantiles(pmf: np.ndarray, qs=QUANTILES) -> dict[str, float]:
    """Quantiles of a rounds distribution (smallest k with CDF ≥ q)."""
    cdf = np.cumsum(pmf) / max(pmf.sum(), 1e-300)
    return {f"rounds_q{int(q * 100):02d}": float(np.searchsorted(cdf, q - 1e-12)) for q in qs}


def summary(stats: FightStats, **labels) -> dict:
    """One row: who wins, how long it takes, how often the loser dies — with SEs."""
    n = stats.n
    p = stats.p_outcome()
    se = _prop_se(p, n, stats.exact)
    pmf = stats.rounds_pmf()
    k = np.arange(pmf.size)
    mean = float(pmf @ k)
    sd = float(np.sqrt(max(pmf @ k**2 - mean**2, 0.0)))
    wins = stats.outcome[:2].sum()
    p_dead = float(stats.loser_dead.sum() / wins) if wins else float("nan")
    row = {
        **labels,
        "method": _method(stats),
        "trials": stats.trials,
        "p_side0": p[0], "se_side0": se[0],
        "p_side1": p[1], "se_side1": se[1],
        "p_neither": p[2], "se_neither": se[2],
        "rounds_mean": mean,
        "rounds_se": 0.0 if stats.exact else sd / np.sqrt(n),
        **rounds_quantiles(pmf),
        "p_loser_dies": p_dead,
        "se_loser_dies": 0.0 if stats.exact or not wins
        else float(np.sqrt(p_dead * (1 - p_dead) / wins)),
    }
    return row


def summary_table(results: Mapping[str, FightStats] | list[tuple[dict, FightStats]],
                  ) -> pd.DataFrame:
    """Rows of :func:`summary` for several matchups: ``{label: stats}`` or
    ``[(labels, stats)]``."""
    items = results.items() if isinstance(results, Mapping) else results
    rows = []
    for key, stats in items:
        labels = key if isinstance(key, dict) else {"matchup": key}
        rows.append(summary(stats, **labels))
    return pd.DataFrame(rows)


def rounds_table(stats: FightStats, **labels) -> pd.DataFrame:
    """The full distribution of the round in which the fight ends, by outcome."""
    n = stats.n
    k = np.arange(stats.rounds.shape[0])
    frames = []
    for j, name in enumerate(("side0", "side1", "neither")):
        p = stats.rounds[:, j] / n
        frames.append(pd.DataFrame({"round": k, "outcome": name, "p": p,
                                    "se": _prop_se(p, n, stats.exact)}))
    out = pd.concat(frames, ignore_index=True)
    for key, val in labels.items():
        out.insert(0, key, val)
    out.insert(len(labels), "method", _method(stats))
    return out


def standing_table(stats: FightStats, sizes: tuple[int, int], **labels) -> pd.DataFrame:
    """Round-by-round survival: mean combatants of each side still able to act after round k,
    and the share of the side's starting strength."""
    n = stats.n
    k = np.arange(stats.standing.shape[0])
    frames = []
    for side in (0, 1):
        mean = stats.standing[:, side] / n
        frac = mean / max(sizes[side], 1)
        frames.append(pd.DataFrame({"round": k, "side": side, "standing_mean": mean,
                                    "standing_share": frac,
                                    "se_share": _prop_se(frac, n, stats.exact)}))
    out = pd.concat(frames, ignore_index=True)
    for key, val in labels.items():
        out.insert(0, key, val)
    return out


def damage_table(stats: FightStats, **labels) -> pd.DataFrame:
    """Distribution of damage per successful attack (the last bin is 'this much or more')."""
    total = stats.hits.sum()
    p = stats.hits / total if total else np.zeros(stats.hits.size)
    out = pd.DataFrame({"damage": np.arange(p.size), "p": p,
                        "se": _prop_se(p, total, stats.exact)})
    for key, val in labels.items():
        out.insert(0, key, val)
    return out
