"""Campaign tables and the fan chart: what a mechanic does to a character over sessions.

The campaign modules (``engines/systems/<id>/campaign.py``) return
:class:`engines.campaign.CampaignStats` (exact probabilities or Monte Carlo counts); this
module turns them into tidy tables:

- ``summary``: ``session, mean, sd, q10, q50, q90`` (+ ``se_mean`` for Monte Carlo), then
  one column per tally the mechanic keeps (``Mechanic.extra``: ``derangements_mean``,
  ``p_able`` …; + ``se_<tally>`` for Monte Carlo, + ``z_<tally>`` with both methods);
- ``distribution``: ``session, value, p`` (+ ``se``), one row per state with p > 0;
- ``passage``: ``session, p`` (+ ``se``) of the first session the state reaches the
  threshold (in the mechanic's direction), the last row ``"not by N"``;

each with a ``method`` column; ``both`` puts the exact and Monte Carlo rows side by side
(``*_exact``, ``*_mc``, ``se`` and ``z`` = (mc − exact) / the exact value's own SE; a
tally's ``z_<tally>`` = (mc − exact) / its Monte Carlo SE). The
fan chart (:func:`fan_chart`) draws the 10–90 % and 25–75 % bands and the median over
sessions in the system's Okabe–Ito colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from analysis.text import N_, Text
from engines.campaign import (
    CampaignStats,
    Mechanic,
    campaign_variants,
    check_sessions,
    mechanic,
)
from engines.errors import InputError
from engines.rng import Seed, normalize_seed

__all__ = [
    "BATCH_TRIALS",
    "CAMPAIGN_METRICS",
    "DEFAULT_TRIALS",
    "METHODS",
    "PROGRESS_WORK",
    "TABLES",
    "campaign_metric",
    "distribution_table",
    "fan_chart",
    "fighter",
    "knob_values",
    "measure_campaign",
    "median_passage",
    "merge",
    "p_reached",
    "passage_table",
    "resolve",
    "run",
    "solve_campaign",
    "summary_table",
    "table",
    "tally_names",
]

TABLES = ("summary", "distribution", "passage")
METHODS = ("exact", "mc", "both")
DEFAULT_TRIALS = 20_000
#: Monte Carlo runs are made of batches of at most this many trials (a batch is one
#: engine call; a run of up to one batch equals the engine's ``monte_carlo`` for the same
#: seed, larger runs use seeds spawned from it, one per batch).
BATCH_TRIALS = 100_000
#: Runs with more trials × sessions than this show a progress bar (on a terminal).
PROGRESS_WORK = 5_000_000


def resolve(
    system: str, name: str, params: Mapping[str, Any] | None = None, variants: Any = None
) -> tuple[Mechanic, dict, Any]:
    """The mechanic, its full parameter dict (defaults filled in; unknown names and wrong
    types are InputErrors naming the parameter) and its ``Variants`` object."""
    mech = mechanic(system, name)
    out = mech.defaults()
    for key, value in (params or {}).items():
        p = mech.param(key)
        if p.type is int and (isinstance(value, bool) or not isinstance(value, int | np.integer)):
            raise InputError(f"{key}: expected an integer, got {value!r}")
        if p.type is bool and not isinstance(value, bool | np.bool_):
            raise InputError(f"{key}: expected true or false, got {value!r}")
        if p.type is str and p.choices and value not in p.choices:
            raise InputError(f"{key}: expected one of {', '.join(p.choices)}, got {value!r}")
        out[key] = value
    v = campaign_variants(mech.variants, variants)
    for key in mech.combatants:
        out[key] = fighter(system, out[key], default=None if key == "opponent" else "competent")
    return mech, out, v


def fighter(system: str, name, default: str | None = "competent"):
    """The engine combatant an attrition parameter names: a rung of the competence
    ladder (``analysis/data/cross_combat.toml``, e.g. ``competent``, ``novice``), else an
    archetype of the system's library; ``""`` is ``default`` (a rung, or None: the
    fighter's equal). A combatant object passes through."""
    if name is None or name == "":
        if default is None:
            return None
        name = default
    if not isinstance(name, str):
        return name
    from analysis.combat.archetypes import combatant
    from analysis.combat.cross_combat import load_cross

    rungs = load_cross()["ladder"].get(system, {})
    if name in rungs:
        return rungs[name]
    return combatant(system, name)


def run(
    system: str,
    name: str,
    params: Mapping[str, Any] | None = None,
    *,
    sessions: int,
    threshold: int | None = None,
    method: str = "exact",
    trials: int = DEFAULT_TRIALS,
    seed: Seed = None,
    variants: Any = None,
    progress: bool | None = None,
) -> dict[str, CampaignStats]:
    """Run one mechanic: ``{"exact": stats}``, ``{"mc": stats}`` or both.

    ``threshold`` None uses the mechanic's own default (e.g. arcane degeneration 10 =
    lost), if any. ``progress``: a progress bar over Monte Carlo batches (None = only for
    long runs).
    """
    if method not in METHODS:
        raise InputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    mech, p, v = resolve(system, name, params, variants)
    sessions = check_sessions(sessions)
    if threshold is None:
        threshold = mech.threshold_default
    out: dict[str, CampaignStats] = {}
    if method in ("exact", "both"):
        out["exact"] = mech.exact(sessions=sessions, threshold=threshold, variants=v, **p)
    if method in ("mc", "both"):
        out["mc"] = _monte_carlo(mech, p, v, sessions, threshold, trials, seed, progress)
    return out


def _monte_carlo(
    mech: Mechanic,
    p: dict,
    v,
    sessions: int,
    threshold,
    trials: int,
    seed: Seed,
    progress: bool | None,
) -> CampaignStats:
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    n_batches = -(-int(trials) // BATCH_TRIALS)
    if n_batches == 1:
        return mech.monte_carlo(
            sessions=sessions, trials=int(trials), seed=seed, threshold=threshold, variants=v, **p
        )
    sizes = [trials // n_batches + (i < trials % n_batches) for i in range(n_batches)]
    seeds = normalize_seed(seed).spawn(n_batches)
    pbar = None
    if progress or (progress is None and trials * max(sessions, 1) >= PROGRESS_WORK):
        from .progress import bar

        pbar = bar(int(trials), f"{mech.system} {mech.name} Monte Carlo", delay=1.0, unit="trial")
    parts = []
    try:
        for size, s in zip(sizes, seeds, strict=True):
            parts.append(
                mech.monte_carlo(
                    sessions=sessions,
                    trials=int(size),
                    seed=s,
                    threshold=threshold,
                    variants=v,
                    **p,
                )
            )
            if pbar is not None:
                pbar.update(size)
    finally:
        if pbar is not None:
            pbar.close()
    return merge(parts)


def _summed(arrays: Iterable[Any]) -> Any:
    """``sum(arrays)``: 0 + a + b + … (count arrays of one shape)."""
    return sum(arrays)


def merge(parts: list[CampaignStats]) -> CampaignStats:
    """Monte Carlo runs of the same mechanic and settings pooled into one (counts summed,
    tally means weighted by trials, their standard errors rebuilt from each part's
    second moment)."""
    first = parts[0]
    n = np.array([float(s.trials) for s in parts])  # type: ignore[arg-type]  # MC: counted
    total = n.sum()
    extra = {}
    for key in first.extra:
        if key.endswith("_se"):
            continue
        means = np.array([s.extra[key] for s in parts])
        mean = (n[:, None] * means).sum(axis=0) / total
        extra[key] = mean
        if key + "_se" in first.extra:
            ses = np.array([s.extra[key + "_se"] for s in parts])
            second = (n[:, None] * (ses**2 * n[:, None] + means**2)).sum(axis=0) / total
            extra[key + "_se"] = np.sqrt(np.maximum(second - mean**2, 0.0) / total)
    return CampaignStats(
        system=first.system,
        mechanic=first.mechanic,
        values=first.values,
        dist=_summed(s.dist for s in parts),
        passage=None if first.passage is None else _summed(s.passage for s in parts),
        threshold=first.threshold,
        extra=extra,
        trials=int(total),
        notes=first.notes,
    )


# ---------------------------------------------------------------- tables


def _method(st: CampaignStats) -> str:
    return "exact" if st.exact else "mc"


def summary_table(st: CampaignStats) -> pd.DataFrame:
    """``session, mean, sd, q10, q50, q90`` (+ ``se_mean`` for Monte Carlo), one column
    per tally of the mechanic (its mean over the characters after each session, e.g.
    ``derangements_mean``; + its standard error ``se_<tally>`` for Monte Carlo),
    ``method``."""
    out = pd.DataFrame({"session": np.arange(st.sessions + 1), "mean": st.mean(), "sd": st.sd()})
    for q in (10, 50, 90):
        out[f"q{q}"] = st.quantile(q / 100)
    if not st.exact:
        out["se_mean"] = st.se_mean()
    for name in tally_names(st):  # the mechanic's tallies (Mechanic.extra), + se_ for MC
        out[name] = st.extra[name]
        if not st.exact and name + "_se" in st.extra:
            out["se_" + name] = st.extra[name + "_se"]
    out["method"] = _method(st)
    return out


def tally_names(st: CampaignStats) -> list[str]:
    """The names of a result's per-session tallies (``CampaignStats.extra`` without the
    ``_se`` entries), in the mechanic's order: the summary table's extra columns."""
    return [k for k in st.extra if not k.endswith("_se")]


def distribution_table(st: CampaignStats) -> pd.DataFrame:
    """``session, value, p`` (+ ``se``), ``method``: every state with p > 0 per session,
    in increasing value."""
    order = np.argsort(st.values, kind="stable")
    pmf = st.pmf()[:, order]
    vals = st.values[order]
    k, i = np.nonzero(pmf > 0)
    p = pmf[k, i]
    out = pd.DataFrame({"session": k, "value": vals[i], "p": p})
    if not st.exact:
        out["se"] = np.sqrt(p * (1 - p) / st.n)
    out["method"] = _method(st)
    return out


def passage_table(st: CampaignStats) -> pd.DataFrame:
    """``session, p`` (+ ``se``), ``method``: P(the state first reaches the threshold
    after session k), k = 0..N, then the row ``"not by N"``."""
    if st.passage is None:
        raise InputError(
            f"{st.system} {st.mechanic}: the passage table needs a threshold (--threshold X)"
        )
    p = st.passage_pmf()
    labels = [str(k) for k in range(st.sessions + 1)] + [
        Text(N_("not by {sessions}"), sessions=st.sessions)
    ]
    out = pd.DataFrame({"session": labels, "p": p})
    if not st.exact:
        out["se"] = np.sqrt(p * (1 - p) / st.n)
    out["threshold"] = st.threshold
    out["method"] = _method(st)
    return out


_BUILDERS = {"summary": summary_table, "distribution": distribution_table, "passage": passage_table}


def table(stats: Mapping[str, CampaignStats], kind: str = "summary") -> pd.DataFrame:
    """The ``kind`` table of a :func:`run` result; with both methods, the exact and Monte
    Carlo columns side by side (``*_exact``, ``*_mc``, ``se``/``se_mean`` and ``z``; in the
    summary, each tally's ``<tally>_exact``, ``<tally>_mc``, ``se_<tally>`` and
    ``z_<tally>``)."""
    if kind not in TABLES:
        raise InputError(f"table: expected one of {', '.join(TABLES)}, got {kind!r}")
    build = _BUILDERS[kind]
    if set(stats) != {"exact", "mc"}:
        (st,) = stats.values()
        return _front(build(st), st)
    ex = build(stats["exact"]).drop(columns="method")
    mc = build(stats["mc"]).drop(columns="method")
    n = stats["mc"].n
    threshold = ex.pop("threshold") if kind == "passage" else None
    if kind == "passage":
        mc = mc.drop(columns="threshold")
    keys = ["session", "value"] if kind == "distribution" else ["session"]
    # summary and passage rows are the same sessions on both sides; a distribution
    # state may be reached by one method only
    merged = ex.merge(
        mc,
        on=keys,
        how="outer" if kind == "distribution" else "left",
        suffixes=("_exact", "_mc"),
        sort=False,
    )
    if kind == "distribution":
        merged = merged.sort_values(["session", "value"], kind="stable").reset_index(drop=True)
        merged[["p_exact", "p_mc"]] = merged[["p_exact", "p_mc"]].fillna(0.0)
        merged["se"] = merged["se"].fillna(0.0)
    if kind == "summary":
        # z of the mean, in the exact distribution's own SE of a mean of n characters
        se_ex = merged["sd_exact"].to_numpy() / np.sqrt(n)
        diff = merged["mean_mc"].to_numpy() - merged["mean_exact"].to_numpy()
        # z of each tally both methods keep, in the Monte Carlo SE of its mean (the exact
        # chain has the tally's mean only); 0 where that SE is 0 (every character alike)
        for name in tally_names(stats["exact"]):
            if name not in stats["mc"].extra or "se_" + name not in merged:
                continue
            se = merged["se_" + name].to_numpy()
            d = merged[name + "_mc"].to_numpy() - merged[name + "_exact"].to_numpy()
            with np.errstate(divide="ignore", invalid="ignore"):
                merged["z_" + name] = np.where(se > 0, d / se, 0.0)
    else:
        pe = merged["p_exact"].to_numpy()
        se_ex = np.sqrt(pe * (1 - pe) / n)
        diff = merged["p_mc"].to_numpy() - pe
    with np.errstate(divide="ignore", invalid="ignore"):
        merged["z"] = np.where(se_ex > 0, diff / se_ex, 0.0)
    if threshold is not None:
        merged["threshold"] = threshold.to_numpy()
    merged["method"] = "both"
    if kind == "summary":  # each tally's four columns together, after the state's
        groups = [
            [f"{name}_exact", f"{name}_mc", f"se_{name}", f"z_{name}"]
            for name in tally_names(stats["exact"])
        ]
        tail = [c for g in groups for c in g if c in merged]
        merged = merged[[c for c in merged if c not in tail and c != "method"] + tail + ["method"]]
    return _front(merged, stats["exact"])


def _front(frame: pd.DataFrame, st: CampaignStats) -> pd.DataFrame:
    frame = frame.copy()
    frame.insert(0, "mechanic", st.mechanic)
    frame.insert(0, "system", st.system)
    return frame


# ---------------------------------------------------------------- fan chart


def fan_chart(st: CampaignStats, ax=None, *, label: str | None = None, state: str | None = None):
    """Fan chart of one :class:`CampaignStats`: the 10–90 % and 25–75 % bands and the
    median of the state over sessions (and the threshold as a dashed line, if any), in
    the system's Okabe–Ito colour. Returns the figure (a new one when ``ax`` is None)."""
    from matplotlib.ticker import MaxNLocator

    from analysis.checks.plots import SYSTEM_COLORS, new_figure

    if ax is None:
        fig = new_figure(6.5, 4.0)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    color = SYSTEM_COLORS.get(st.system, "#000000")
    x = np.arange(st.sessions + 1)
    q = {k: st.quantile(k / 100) for k in (10, 25, 50, 75, 90)}
    ax.fill_between(
        x, q[10], q[90], color=color, alpha=0.2, linewidth=0, step="mid", label="10–90 %"
    )
    ax.fill_between(
        x, q[25], q[75], color=color, alpha=0.45, linewidth=0, step="mid", label="25–75 %"
    )
    ax.step(x, q[50], where="mid", color=color, linewidth=2, label="median")
    ax.plot(x, st.mean(), color="black", linewidth=1, linestyle=":", label="mean")
    if st.threshold is not None:
        ax.axhline(
            st.threshold,
            color="#000000",
            linestyle="--",
            linewidth=0.8,
            label=Text(N_("threshold {value}"), value=st.threshold),
        )
    ax.set_xlabel("session")
    if state is None:
        try:
            state = mechanic(st.system, st.mechanic).state
        except InputError:
            state = st.mechanic
    ax.set_ylabel(state)
    method = (
        Text(N_("exact"))
        if st.exact
        else Text(N_("Monte Carlo, {trials} trials"), trials=st.trials)
    )
    ax.set_title(
        label
        or Text(
            N_("{system} {mechanic} ({method})"),
            system=st.system,
            mechanic=st.mechanic,
            method=method,
        ),
        fontsize=10,
    )
    ax.set_xlim(0, max(st.sessions, 1))
    # sessions and states are whole numbers: whole ticks only
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(fontsize=8, loc="best")
    return fig


# ---------------------------------------------------------------- headline numbers


def median_passage(st: CampaignStats) -> int | None:
    """The first session by which at least half the characters have reached the
    threshold (None when fewer than half have by the last session)."""
    cum = np.cumsum(st.passage_pmf()[:-1])
    hit = np.nonzero(cum >= 0.5 - 1e-12)[0]
    return int(hit[0]) if hit.size else None


# ---------------------------------------------------------------- metrics (guardrails)

#: Campaign metrics a guardrail can measure (``N`` a session, ``X`` a state value):
#: ``median_at:N`` / ``mean_at:N`` — the state's median / mean after session N;
#: ``p_reach:X:N`` — P(the state reached X, in the mechanic's direction, by session N);
#: ``extra_at:NAME:N`` — a mechanic's tally after session N (e.g. attrition's ``p_able``).
CAMPAIGN_METRICS = ("median_at:N", "mean_at:N", "p_reach:X:N", "extra_at:NAME:N")


def campaign_metric(spec: str) -> tuple[int, int | None, Any]:
    """Parse a campaign metric: ``(session N, threshold X or None, read)`` where
    ``read(stats) -> (value, se)`` (``stats`` run with that threshold and ≥ N sessions).
    InputError naming the metric otherwise."""
    parts = [p.strip() for p in str(spec).split(":")]
    bad = InputError(
        f"metric: unknown campaign metric {spec!r}; known: " + ", ".join(CAMPAIGN_METRICS)
    )

    def integer(text):
        try:
            return int(text)
        except ValueError:
            raise bad from None

    if parts[0] in ("median_at", "mean_at") and len(parts) == 2:
        n = integer(parts[1])

        def read(st):
            if parts[0] == "mean_at":
                return float(st.mean()[n]), float(st.se_mean()[n])
            return float(st.quantile(0.5)[n]), 0.0

        return n, None, read
    if parts[0] == "p_reach" and len(parts) == 3:
        x, n = integer(parts[1]), integer(parts[2])

        def read(st):
            p = float(np.cumsum(st.passage_pmf()[:-1])[n])
            return p, 0.0 if st.exact else float(np.sqrt(p * (1 - p) / st.n))

        return n, x, read
    if parts[0] == "extra_at" and len(parts) == 3:
        name, n = parts[1], integer(parts[2])

        def read(st):
            if name not in st.extra:
                known = ", ".join(k for k in st.extra if not k.endswith("_se"))
                raise InputError(
                    f"metric: {st.system} {st.mechanic} has no tally {name!r}; "
                    f"known: {known or 'none'}"
                )
            se = st.extra.get(name + "_se")
            return float(st.extra[name][n]), 0.0 if se is None else float(se[n])

        return n, None, read
    raise bad


def measure_campaign(
    system: str,
    name: str,
    params,
    variants,
    metric: str,
    *,
    method: str = "exact",
    trials: int = DEFAULT_TRIALS,
    seed: Seed = None,
    threshold: int | None = None,
) -> dict:
    """Value and SE of a campaign ``metric`` (:data:`CAMPAIGN_METRICS`) of one mechanic;
    exact unless ``method`` is ``mc``."""
    n, x, read = campaign_metric(metric)
    use = "mc" if method == "mc" else "exact"
    stats = run(
        system,
        name,
        params,
        sessions=n,
        threshold=x if x is not None else threshold,
        method=use,
        trials=trials,
        seed=seed,
        variants=variants,
    )[use]
    value, se = read(stats)
    return {"value": value, "se": se, "trials": 0 if stats.exact else stats.trials, "method": use}


# ---------------------------------------------------------------- solver


def knob_values(mech: Mechanic, knob: str, lo: int | None = None, hi: int | None = None) -> list:
    """The values a knob is searched over: an int param's range (narrowed by ``lo``,
    ``hi``), a str param's choices, or false/true."""
    p = mech.param(knob)
    if p.type is bool:
        return [False, True]
    if p.type is str:
        return list(p.choices or ())
    allowed = p.range if p.range else (0, 100)
    a, b = allowed
    a = a if lo is None else max(a, lo)
    b = b if hi is None else min(b, hi)
    if a > b:
        raise InputError(
            f"{knob}: the search range {a}..{b} is empty (allowed {allowed[0]}..{allowed[1]})"
        )
    return list(range(a, b + 1))


def p_reached(st: CampaignStats) -> float:
    """P(the state reaches the threshold by the last session)."""
    return float(1.0 - st.passage_pmf()[-1])


def solve_campaign(
    system: str,
    name: str,
    knob: str,
    reach: int,
    sessions: int,
    params: Mapping[str, Any] | None = None,
    *,
    variants: Any = None,
    values: list | None = None,
    share: float = 0.5,
):
    """The knob value (a parameter of the mechanic) that makes the median character reach
    ``reach`` within ``sessions`` sessions: P(the state is first at or beyond ``reach``
    — in the mechanic's direction — by session N) ≥ ``share`` (0.5: the median
    character), by the exact chain.

    An int knob is bisected over its range (``values`` to narrow it) in the direction the
    probability moves between the range's ends (the chance must be monotone in the knob:
    more uses, more skill, worse infractions); str and bool knobs are scanned. Returns
    ``(result, table)``: the :class:`analysis.workflow.solvers.ThresholdResult` and one row per
    evaluated value (``value, p_reached, meets, chosen``).
    """
    from analysis.workflow.solvers import solve_threshold

    mech, base, v = resolve(system, name, params, variants)
    if isinstance(reach, bool) or not isinstance(reach, int | np.integer):
        raise InputError(f"reach: expected an integer state value, got {reach!r}")
    if not 0 < share < 1:
        raise InputError(f"share: expected a number between 0 and 1, got {share!r}")
    sessions = check_sessions(sessions)
    p = mech.param(knob)
    values = knob_values(mech, knob) if values is None else list(values)
    if not values:
        raise InputError(f"{knob}: no values to search")

    def metric(value):
        st = mech.exact(
            sessions=sessions, threshold=int(reach), variants=v, **{**base, knob: value}
        )
        return p_reached(st), 0.0

    if p.type is int and len(values) > 2:
        increasing = metric(values[-1])[0] >= metric(values[0])[0]
        res = solve_threshold(metric, values, share, increasing=increasing, z=0.0)
    else:
        res = solve_threshold(metric, values, share, method="grid", z=0.0)
    rows = [
        {
            "system": system,
            "mechanic": name,
            "knob": knob,
            "value": value.item() if isinstance(value, np.generic) else value,
            "reach": int(reach),
            "sessions": sessions,
            "p_reached": est,
            "target": share,
            "meets": bool(est >= share),
            "chosen": value == res.knob,
        }
        for value, est, _ in res.evaluated
    ]
    return res, pd.DataFrame(rows)
