"""Lethality tables from :class:`engines.fight.FightStats`, the same for every system.

Each function turns one or more fight results into a tidy DataFrame. Monte Carlo results
carry standard errors (binomial for proportions, ``sd / sqrt(n)`` for means); exact results
carry ``se = 0`` and ``method = "exact"``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from engines.errors import InputError
from engines.fight import HIST_FIELDS, ROUND_CAP, FightStats

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


# ---------------------------------------------------------------------------------------
# Running fights by system and archetype name: duels, one-hit odds, tactic and armour
# effects, N-vs-M groups. Combatants are archetype names (with overrides), trait mappings
# or engine combatant objects (see :mod:`analysis.archetypes`).

#: Monte Carlo trials per batch: one progress-bar step. A run of several batches draws
#: each batch from its own child of the seed (``SeedSequence.spawn``), so the numbers
#: depend on the seed and the trial count only.
MC_BATCH = 100_000
#: Trials × combatants above which a Monte Carlo run shows a progress bar by default.
PROGRESS_WORK = 400_000


def _fighter(system: str, spec, overrides=None, label: str | None = None):
    from .archetypes import combatant, engine

    eng = engine(system)
    if isinstance(spec, str | Mapping):
        return combatant(system, spec, overrides, label=label)
    kinds = tuple(getattr(eng, k) for k in ("Combatant", "Fighter") if hasattr(eng, k))
    if not isinstance(spec, kinds):
        raise InputError(f"{system}: expected an archetype name, a trait table or a "
                         f"{system} combatant, got {type(spec).__name__}")
    if overrides:
        raise InputError(f"{system}: overrides need an archetype name, not a built combatant")
    return spec


def name_of(c) -> str:
    return str(getattr(c, "name", "?"))


def merge_stats(parts: list[FightStats]) -> FightStats:
    """Sum Monte Carlo results of the same fight run in batches."""
    first = parts[0]
    out = FightStats.empty(first.system, first.round_cap, trials=0)
    for p in parts:
        for key in HIST_FIELDS:
            getattr(out, key)[...] += getattr(p, key)
        out.trials += p.trials
        out.notes.update(p.notes)
    return out


def run_fight(system: str, side0: list, side1: list, method: str = "mc", *,
              trials: int = 20_000, seed=None, variants=None, round_cap: int = ROUND_CAP,
              progress: bool | None = None) -> FightStats:
    """One fight between two sides of engine combatants, exact (1-vs-1 only) or MC.

    Monte Carlo runs in batches of :data:`MC_BATCH` trials with a tqdm bar on stderr when
    ``progress`` is true (None: only for runs above :data:`PROGRESS_WORK`).
    """
    from engines.rng import normalize_seed

    from .archetypes import engine
    from .archetypes import variants as make_variants
    from .progress import bar

    eng = engine(system)
    v = make_variants(system, variants)
    if method == "exact":
        if len(side0) != 1 or len(side1) != 1:
            raise InputError(f"{system}: exact results exist for duels only "
                             f"({len(side0)} vs {len(side1)}); use the mc method")
        return eng.duel_exact(side0[0], side1[0], v, round_cap)
    if method != "mc":
        raise InputError(f"method: expected exact or mc, got {method!r}")
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    n_batches = -(-int(trials) // MC_BATCH)
    if n_batches == 1:
        return eng.fight_mc(list(side0), list(side1), int(trials), seed, v, round_cap)
    seeds = normalize_seed(seed).spawn(n_batches)
    sizes = [MC_BATCH] * (n_batches - 1) + [int(trials) - MC_BATCH * (n_batches - 1)]
    show = progress if progress is not None else \
        trials * (len(side0) + len(side1)) >= PROGRESS_WORK
    parts = []
    with bar(int(trials), f"{system} fights", unit="fight", disable=not show or None) as pbar:
        for n, ss in zip(sizes, seeds, strict=True):
            parts.append(eng.fight_mc(list(side0), list(side1), n, ss, v, round_cap))
            pbar.update(n)
    return merge_stats(parts)


def _methods(method: str) -> tuple[str, ...]:
    if method not in ("exact", "mc", "both"):
        raise InputError(f"method: expected exact, mc or both, got {method!r}")
    return ("exact", "mc") if method == "both" else (method,)


def duel_stats(system: str, a, b, method: str = "exact", *, trials: int = 20_000, seed=None,
               variants=None, round_cap: int = ROUND_CAP, overrides_a=None, overrides_b=None,
               progress: bool | None = None) -> dict[str, FightStats]:
    """``{method: FightStats}`` of a duel between ``a`` (side 0) and ``b`` (side 1)."""
    fa = _fighter(system, a, overrides_a)
    fb = _fighter(system, b, overrides_b)
    return {m: run_fight(system, [fa], [fb], m, trials=trials, seed=seed, variants=variants,
                         round_cap=round_cap, progress=progress) for m in _methods(method)}


def agreement(exact_row: dict, mc_row: dict) -> dict:
    """z-scores of a Monte Carlo row against the exact row, and whether every proportion
    is within ``5 SE + 1/n`` (the project's MC-vs-exact tolerance)."""
    out = {}
    n = mc_row["trials"]
    ok = True
    for key in ("side0", "side1", "neither"):
        p, q = exact_row[f"p_{key}"], mc_row[f"p_{key}"]
        se = np.sqrt(p * (1 - p) / n)
        out[f"z_{key}"] = (q - p) / se if se > 0 else (0.0 if q == p else np.inf)
        ok &= abs(q - p) <= 5 * se + 1 / n
    se = mc_row["rounds_se"]
    diff = mc_row["rounds_mean"] - exact_row["rounds_mean"]
    out["z_rounds"] = diff / se if se > 0 else (0.0 if diff == 0 else np.inf)
    out["within_5se"] = bool(ok)
    return out


def duel_table(system: str, a, b, method: str = "exact", trials: int = 20_000, seed=None,
               variants=None, round_cap: int = ROUND_CAP, *, overrides_a=None,
               overrides_b=None, progress: bool | None = None,
               stats: dict[str, FightStats] | None = None) -> pd.DataFrame:
    """Summary of a duel (:func:`summary` columns), one row per method.

    ``method="both"`` gives the exact and the Monte Carlo row side by side, the MC row
    carrying z-scores against the exact one (``z_side0`` … ``z_rounds``) and
    ``within_5se`` (every proportion within 5 SE + 1/n).

    Examples
    --------
    >>> t = duel_table("dice_pool_6", "swordsman_competent", "brawler_competent")
    >>> round(float(t.loc[0, "p_side0"]), 3)
    0.882
    """
    if stats is None:
        stats = duel_stats(system, a, b, method, trials=trials, seed=seed, variants=variants,
                           round_cap=round_cap, overrides_a=overrides_a,
                           overrides_b=overrides_b, progress=progress)
    names = stats_names(stats)
    rows = [summary(st, system=system, a=names[0], b=names[1]) for st in stats.values()]
    if len(rows) == 2:
        rows[1].update(agreement(rows[0], rows[1]))
    return pd.DataFrame(rows)


def stats_names(stats: dict[str, FightStats]) -> tuple[str, str]:
    for st in stats.values():
        names = st.notes.get("combatants")
        if names:
            return ", ".join(names[0]), ", ".join(names[1])
        names = st.notes.get("fighters")
        if names and len(names) == 2:
            return names[0], names[1]
    return st.notes.get("a", "a"), st.notes.get("b", "b")


def one_hit(system: str, attacker, target, variants=None, *, overrides_a=None,
            overrides_b=None) -> dict:
    """P(hit), P(incapacitate), P(kill) of one attack on an unhurt target: the engine's
    ``one_hit`` (each cites its rules: A14/A15, C6, B9/B10, DX7–DX9, E13)."""
    from .archetypes import engine
    from .archetypes import variants as make_variants

    fa = _fighter(system, attacker, overrides_a)
    fb = _fighter(system, target, overrides_b)
    return engine(system).one_hit(fa, fb, make_variants(system, variants))


def one_hit_table(system: str, attacker, targets, weapons: list[str] | None = None,
                  variants=None) -> pd.DataFrame:
    """One-hit incapacitation and kill odds by the attacker's weapon and by target (exact).

    ``weapons`` defaults to every weapon of the system's data file; ``targets`` are
    archetype names (or mappings).
    """
    from .archetypes import weapons as all_weapons

    if isinstance(targets, str | Mapping):
        targets = [targets]
    rows = []
    for w in weapons if weapons is not None else all_weapons(system):
        fa = _fighter(system, attacker, {"weapon": w})
        for t in targets:
            ft = _fighter(system, t)
            rows.append({"system": system, "attacker": name_of(fa), "weapon": w,
                         "target": name_of(ft), "method": "exact",
                         **one_hit(system, fa, ft, variants)})
    return pd.DataFrame(rows)


def _effect_table(system: str, a, b, key: str, values: list, method: str, trials: int, seed,
                  variants, round_cap: int, progress) -> pd.DataFrame:
    frames = []
    for value in values:
        stats = duel_stats(system, a, b, method, trials=trials, seed=seed, variants=variants,
                           round_cap=round_cap, overrides_a={key: value}, progress=progress)
        t = duel_table(system, a, b, stats=stats)
        t.insert(1, key, value)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


def tactic_table(system: str, a, b, tactics: list | None = None, method: str = "exact",
                 trials: int = 20_000, seed=None, variants=None,
                 round_cap: int = ROUND_CAP, progress: bool | None = None) -> pd.DataFrame:
    """The same duel with each tactic of side A (A6, C13, B4, DX2, E16): one row each."""
    from .archetypes import tactics as all_tactics

    return _effect_table(system, a, b, "tactic", tactics or all_tactics(system), method,
                         trials, seed, variants, round_cap, progress)


def armour_table(system: str, a, b, armours: list | None = None, method: str = "exact",
                 trials: int = 20_000, seed=None, variants=None,
                 round_cap: int = ROUND_CAP, progress: bool | None = None) -> pd.DataFrame:
    """The same duel with each armour of side A (A13, DX11, E12 Toughness): one row each.

    ``dice_pool_6`` and ``middle_3d10`` have no armour rules (an error says so).
    """
    from .archetypes import armours as all_armours

    values = armours or all_armours(system)
    if not values:
        raise InputError(f"{system}: no armour rules in this system, so no armour table")
    return _effect_table(system, a, b, "armour", values, method, trials, seed, variants,
                         round_cap, progress)


def group_fight(system: str, side0: list, side1: list, *, trials: int = 20_000, seed=None,
                variants=None, round_cap: int = ROUND_CAP, label: str = "",
                progress: bool | None = None) -> tuple[dict, pd.DataFrame]:
    """An N-vs-M fight (Monte Carlo): its :func:`summary` row and round-by-round
    survival (:func:`standing_table`). Sides are lists of archetype names, mappings or
    engine combatants."""
    s0 = [_fighter(system, x) for x in side0]
    s1 = [_fighter(system, x) for x in side1]
    st = run_fight(system, s0, s1, "mc", trials=trials, seed=seed, variants=variants,
                   round_cap=round_cap, progress=progress)
    labels = {"system": system, "fight": label or f"{len(s0)}v{len(s1)}",
              "side0": ", ".join(map(name_of, s0)), "side1": ", ".join(map(name_of, s1))}
    row = summary(st, **labels)
    row["dead_side0"] = st.deaths[0] / st.n
    row["dead_side1"] = st.deaths[1] / st.n
    standing = standing_table(st, (len(s0), len(s1)), **labels)
    return row, standing[[*labels, *(c for c in standing.columns if c not in labels)]]
