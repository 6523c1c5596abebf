"""Tidy tables of one fight result (:class:`engines.fight.FightStats`), the same for every
system: the summary row (who wins, the rounds, the loser's fates and the deadliness, RULES.md
"Lethality outcomes"), the rounds distribution, round-by-round survival and the damage per
hit. Monte Carlo results carry standard errors (binomial for proportions, ``sd / sqrt(n)``
for means); exact results carry ``se = 0`` and ``method = "exact"``.
:mod:`analysis.combat.lethality` runs the fights and re-exports these.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.fight import FATES, SIDE_FATES, FightStats

__all__ = [
    "QUANTILES",
    "damage_table",
    "deadliness_columns",
    "loser_fate_columns",
    "rounds_quantiles",
    "rounds_table",
    "side_fate_columns",
    "standing_table",
    "summary",
    "summary_table",
]

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _method(stats: FightStats) -> str:
    return "exact" if stats.exact else "mc"


def _prop_se(p, n, exact: bool):
    p = np.asarray(p, dtype=float)
    if exact:
        return np.zeros_like(p)
    return np.sqrt(np.clip(p * (1 - p), 0, None) / n)


def _label_columns(out: pd.DataFrame, stats: FightStats, labels: dict) -> pd.DataFrame:
    """``out`` led by the ``labels`` columns, then ``method`` and ``aftermath`` (the
    policy behind the fates, :func:`summary`'s column of the same name)."""
    for key, val in reversed(labels.items()):
        out.insert(0, key, val)
    out.insert(len(labels), "method", _method(stats))
    out.insert(len(labels) + 1, "aftermath", str(stats.notes.get("aftermath", "leave")))
    return out


def rounds_quantiles(pmf: np.ndarray, qs=QUANTILES) -> dict[str, float]:
    """Quantiles of a rounds distribution (smallest k with CDF ≥ q)."""
    cdf = np.cumsum(pmf) / max(pmf.sum(), 1e-300)
    return {f"rounds_q{int(q * 100):02d}": float(np.searchsorted(cdf, q - 1e-12)) for q in qs}


def loser_fate_columns(stats: FightStats) -> dict:
    """``p_loser_dead``, ``p_loser_dying``, ``p_loser_out`` with their ``se_`` columns.

    What becomes of the loser of a decided fight after the aftermath (RULES.md "Lethality
    outcomes"; :meth:`FightStats.p_loser_fates`): among decided fights the three sum to 1
    (in a group fight, the share of the losing side in each fate). NaN when no fight was
    decided; SEs are 0 when exact.
    """
    p, se = stats.p_loser_fates()
    out = {}
    for j, fate in enumerate(FATES):
        out[f"p_loser_{fate}"] = float(p[j])
        out[f"se_loser_{fate}"] = float(se[j])
    return out


def deadliness_columns(stats: FightStats) -> dict:
    """``p_someone_dead`` (P(at least one fighter of either side ends dead)) and
    ``deaths_mean`` (expected dead fighters, both sides), with ``se_someone_dead`` and
    ``se_deaths_mean``: over every fight, round-cap fights included, after the aftermath
    (RULES.md "Lethality outcomes", LO-r3; :meth:`FightStats.p_someone_dead`,
    :meth:`FightStats.deaths_mean`). SEs are 0 when exact."""
    p, se = stats.p_someone_dead()
    m, se_m = stats.deaths_mean()
    return {"p_someone_dead": p, "se_someone_dead": se, "deaths_mean": m, "se_deaths_mean": se_m}


def side_fate_columns(stats: FightStats) -> dict:
    """Per side, P(a combatant ends standing / dead / dying / out) with SEs:
    ``p_side0_standing``, ``se_side0_standing`` … ``p_side1_out``, over every fight
    (round-cap fights included; :meth:`FightStats.p_side_fates`). Each side sums to 1."""
    p, se = stats.p_side_fates()
    out = {}
    for side in (0, 1):
        for j, fate in enumerate(SIDE_FATES):
            out[f"p_side{side}_{fate}"] = float(p[side, j])
            out[f"se_side{side}_{fate}"] = float(se[side, j])
    return out


def summary(stats: FightStats, **labels) -> dict:
    """One row: who wins, how long it takes, what becomes of the loser — with SEs.

    The loser's fate columns are :func:`loser_fate_columns` (dead / dying / out among
    decided fights, after the aftermath policy the fight ran with).
    """
    n = stats.n
    p = stats.p_outcome()
    se = _prop_se(p, n, stats.exact)
    pmf = stats.rounds_pmf()
    k = np.arange(pmf.size)
    mean = float(pmf @ k)
    sd = float(np.sqrt(max(float(pmf @ k**2) - mean**2, 0.0)))
    row = {
        **labels,
        "method": _method(stats),
        "aftermath": str(stats.notes.get("aftermath", "leave")),
        "trials": stats.trials,
        "p_side0": p[0],
        "se_side0": se[0],
        "p_side1": p[1],
        "se_side1": se[1],
        "p_neither": p[2],
        "se_neither": se[2],
        "rounds_mean": mean,
        "rounds_se": 0.0 if stats.exact else sd / np.sqrt(n),
        **rounds_quantiles(pmf),
        **loser_fate_columns(stats),
        **deadliness_columns(stats),
    }
    return row


def summary_table(
    results: Mapping[str, FightStats] | list[tuple[dict, FightStats]],
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
    """The full distribution of the round in which the fight ends, by outcome (after the
    ``labels``, ``method`` and ``aftermath`` columns)."""
    n = stats.n
    k = np.arange(stats.rounds.shape[0])
    frames = []
    for j, name in enumerate(("side0", "side1", "neither")):
        p = stats.rounds[:, j] / n
        frames.append(
            pd.DataFrame({"round": k, "outcome": name, "p": p, "se": _prop_se(p, n, stats.exact)})
        )
    return _label_columns(pd.concat(frames, ignore_index=True), stats, labels)


def standing_table(stats: FightStats, sizes: tuple[int, int], **labels) -> pd.DataFrame:
    """Round-by-round survival: mean combatants of each side still able to act after round k,
    and the share of the side's starting strength (after the ``labels``, ``method`` and
    ``aftermath`` columns)."""
    n = stats.n
    k = np.arange(stats.standing.shape[0])
    frames = []
    for side in (0, 1):
        mean = stats.standing[:, side] / n
        frac = mean / max(sizes[side], 1)
        frames.append(
            pd.DataFrame(
                {
                    "round": k,
                    "side": side,
                    "standing_mean": mean,
                    "standing_share": frac,
                    "se_share": _prop_se(frac, n, stats.exact),
                }
            )
        )
    return _label_columns(pd.concat(frames, ignore_index=True), stats, labels)


def damage_table(stats: FightStats, **labels) -> pd.DataFrame:
    """Distribution of damage per successful attack (the last bin is 'this much or more'),
    after the ``labels``, ``method`` and ``aftermath`` columns."""
    total = stats.hits.sum()
    p = stats.hits / total if total else np.zeros(stats.hits.size)
    out = pd.DataFrame({"damage": np.arange(p.size), "p": p, "se": _prop_se(p, total, stats.exact)})
    return _label_columns(out, stats, labels)
