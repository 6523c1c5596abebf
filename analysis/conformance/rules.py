"""The conformance checks of a system's rules beyond one roll: ``ladder`` (with the
system's declared exceptions), ``opposed``, ``combat`` and ``campaign`` (what each
verifies: the package docstring of :mod:`analysis.conformance`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from analysis.conformance.base import (
    DUELS,
    EXACT_TOL,
    RUNGS,
    SESSIONS,
    Context,
    Skip,
    cell_text,
    fail,
    fmt,
    monotone,
    off,
    tolerance,
    worst,
)

__all__ = ["EXCEPTION", "RUN"]

#: The declared exception (:data:`engines.system.KNOWN_PROPERTIES`) that relaxes each
#: direction of the ladder check: competence (P rises) and difficulty (P falls).
EXCEPTION = {True: "competence_monotone", False: "difficulty_monotone"}


def _ends(p: np.ndarray, axis: int, rising: bool) -> tuple[tuple, float, float] | None:
    """The weaker property of a declared exception: the last value along ``axis`` against
    the first, at every index of the other axes. The first index where the last falls
    below the first (``rising``) or rises above it, as (that index over the other axes,
    first, last); None when it holds everywhere."""
    first, last = np.take(p, 0, axis=axis), np.take(p, -1, axis=axis)
    bad = last < first - EXACT_TOL if rising else last > first + EXACT_TOL
    if not bad.any():
        return None
    at = tuple(int(x) for x in np.argwhere(bad)[0])
    return at, float(first[at]), float(last[at])


def _steps(p: np.ndarray, axis: int, rising: bool) -> int:
    """How many single steps along ``axis`` go the wrong way."""
    step = np.diff(p, axis=axis)
    return int((step < -EXACT_TOL).sum() if rising else (step > EXACT_TOL).sum())


def _direction(
    ctx: Context, p: np.ndarray, k: int, rising: bool, where: Callable, what: str
) -> str:
    """One direction of the ladder check over ``p`` along its axis ``k``: monotone, or,
    with the system's declared exception, the weaker property (the highest competence
    succeeds at least as often as the lowest, the hardest difficulty at most as often as
    the easiest). ``where(at, i, j)`` words the step from index ``i`` to ``j`` of the axis
    at index ``at`` of the others; ``what`` names the axis."""
    known = ctx.spec.knows(EXCEPTION[rising])
    never = "never falls" if rising else "never rises"
    found = monotone(p, k, rising)
    if found is None:
        return f"P(success) {never} along {what}" + (
            f" (the declared exception {known.property} was not needed)" if known else ""
        )
    verb = "falls" if rising else "rises"
    if known is None:
        at, before, after = found
        fail(f"{where(at, at[k], at[k] + 1)}: P(success) {verb} from {fmt(before)} to {fmt(after)}")
    ends = _ends(p, k, rising)
    if ends is not None:
        rest, first, last = ends
        at = (*rest[:k], 0, *rest[k:])
        fail(
            f"{where(at, 0, p.shape[k] - 1)}: P(success) {verb} from {fmt(first)} to "
            f"{fmt(last)}, though the declared exception {known.property} "
            f"({known.reason}) allows only single steps to"
        )
    worse = (
        "the highest succeeds at least as often as the lowest"
        if rising
        else "the hardest succeeds at most as often as the easiest"
    )
    return (
        f"P(success) along {what}: {_steps(p, k, rising)} steps {verb} (declared "
        f"{known.property}: {known.reason}); {worse} everywhere"
    )


def _check_ladder(ctx: Context) -> str:
    spec = ctx.spec
    ladder = spec.ladder
    if ladder is None:
        raise Skip("the system declares no ladder mapping")
    done = []
    rungs = [r for r in RUNGS if r in ladder.rungs]
    values = [ladder.rungs[r] for r in rungs]
    for (r1, x), (r2, y) in itertools.pairwise(zip(rungs, values, strict=True)):
        if y < x:
            fail(f"ladder: rung {r2} ({y}) is below rung {r1} ({x})")
    if rungs:
        done.append(f"rungs {values}")
    axes = ctx.axes
    p = ctx.p_cells.reshape([len(v) for v in axes.values()])
    names = list(axes)
    for axis, rising in ((ladder.competence_axis, True), (ladder.difficulty_axis, False)):
        k = names.index(axis)

        def where(at, i, j, axis=axis, k=k, rising=rising):
            held = ", ".join(
                f"{n}={axes[n][x]}" for n, x in zip(names, at, strict=True) if n != axis
            )
            return (
                f"{'competence' if rising else 'difficulty'} axis {axis!r}: "
                f"{axes[axis][i]} → {axes[axis][j]} at {held or 'the only cell'}"
            )

        done.append(_direction(ctx, p, k, rising, where, repr(axis)))
    if ladder.rules is not None and rungs:
        done.append(_ladder_rules(ctx, ladder.rules, rungs, values))
    return "; ".join(done)


def _ladder_rules(ctx: Context, rules, rungs: list[str], comps: list) -> str:
    """LadderRules.p over the rungs × the difficulties (all of ``difficulty_range``, or
    the common ladder file's difficulty rungs for a system whose difficulty is a table)."""
    spec = ctx.spec
    lo, hi = rules.competence_range
    for r, c in zip(rungs, comps, strict=True):
        if not lo <= c <= hi:
            fail(f"ladder: rung {r} ({c}) is outside LadderRules.competence_range {lo}..{hi}")
    if rules.difficulty_range is not None:
        dlo, dhi = rules.difficulty_range
        diffs: list = list(range(dlo, dhi + 1))
        if rules.harder < 0:
            diffs.reverse()
    else:
        from analysis.checks.ladders import load_ladders

        lad = load_ladders()
        mapped = lad.systems.get(spec.id)
        if mapped is None:
            return (
                f"LadderRules: rungs only (difficulty is not a number and the common "
                f"ladder file does not map {spec.id})"
            )
        diffs = [mapped.difficulty[d] for d in lad.difficulty]
    p = np.array([[rules.p(c, d, ctx.variants) for d in diffs] for c in comps], dtype=float)

    def where(at, i, j, axis):
        if axis == 0:
            was, now = rules.labels(comps[i], diffs[at[1]]), rules.labels(comps[j], diffs[at[1]])
            return f"LadderRules.p: rung {rungs[i]} ({was[0]}) → {rungs[j]} ({now[0]}) at {was[1]}"
        was, now = rules.labels(comps[at[0]], diffs[i]), rules.labels(comps[at[0]], diffs[j])
        return f"LadderRules.p: {was[1]} → {now[1]} at rung {rungs[at[0]]} ({was[0]})"

    done = [
        _direction(ctx, p, axis, axis == 0, lambda at, i, j, axis=axis: where(at, i, j, axis), name)
        for axis, name in ((0, "the rungs"), (1, "the difficulties"))
    ]
    return f"LadderRules.p over {len(comps)} rungs × {len(diffs)} difficulties: " + "; ".join(done)


def _check_opposed(ctx: Context) -> str:
    from analysis.checks import opposed

    spec, v = ctx.spec, ctx.variants
    rule = spec.checks.opposed
    if rule is None:
        raise Skip("the system declares no opposed-check rule")
    grid = opposed.build_grid(ctx.sid, v)
    nc = grid.n_codes
    joint = opposed.opposed_exact_joint(ctx.sid, v, grid)
    table = opposed.opposed_table(ctx.sid, "exact", variants=v)
    if len(table) != len(grid.cells):
        fail(f"the opposed table has {len(table)} rows for {len(grid.cells)} cells")
    p_a = table["p"].to_numpy()
    records = grid.cells.to_dict("records")
    shares = np.empty(len(records))
    rerolls = np.zeros(len(records), dtype=bool)
    wtl = np.empty((len(records), 3))
    for i, cell in enumerate(records):
        where = ", ".join(f"{k}={x}" for k, x in cell.items())
        va = np.asarray(rule.values(cell, "a", v, nc), dtype=float)
        vb = np.asarray(rule.values(cell, "b", v, nc), dtype=float)
        if va.shape != (nc,) or vb.shape != (nc,):
            fail(
                f"cell {where}: OpposedRule.values gives shapes {va.shape} / {vb.shape}, "
                f"expected one value per code ({nc},)"
            )
        share, reroll = rule.tie(cell, v)
        if not 0.0 <= float(share) <= 1.0:
            fail(
                f"cell {where}: OpposedRule.tie gives side a {share!r} of the ties, outside [0, 1]"
            )
        if not isinstance(reroll, bool | np.bool_):
            fail(f"cell {where}: OpposedRule.tie's re-roll flag is {reroll!r}, not true/false")
        j = joint[grid.pair_of_cell[i]].reshape(nc, nc)
        diff = va[:, None] - vb[None, :]
        w, t, l_ = j[diff > 0].sum(), j[diff == 0].sum(), j[diff < 0].sum()
        if abs(w + t + l_ - 1) > EXACT_TOL:
            fail(f"cell {where}: P(a higher) + P(tie) + P(b higher) = {w + t + l_:.12g}, not 1")
        # ties re-rolled until one side wins, or shared by the tie rule
        p_b = (l_ / (w + l_) if w + l_ > 0 else 0.5) if reroll else l_ + (1 - share) * t
        if not 0.0 <= p_a[i] <= 1.0 or abs(p_a[i] + p_b - 1) > EXACT_TOL:
            fail(
                f"cell {where}: P(a wins) {fmt(p_a[i])} + P(b wins) {fmt(p_b)} = "
                f"{p_a[i] + p_b:.12g}, not 1 (tie share {share}, re-roll {bool(reroll)})"
            )
        shares[i], rerolls[i], wtl[i] = share, bool(reroll), (w, t, l_)
    done = (
        f"{len(records)} cells: tie shares in [0, 1], P(a wins) + P(b wins) = 1 "
        f"({int(rerolls.sum())} with re-rolled ties)"
    )
    if spec.checks.kernel is None:
        return done + "; no Monte Carlo kernel declared, so no paired Monte Carlo"
    n = ctx.trials
    both = opposed.opposed_table(ctx.sid, "both", trials=n, seed=ctx.stream("opposed"), variants=v)
    p, p_mc = both["p_exact"].to_numpy(), both["p_mc"].to_numpy()
    w, t = wtl[:, 0], wtl[:, 1]
    # SD of one trial's score: a tie scores the share (variance W + share² T − p²), or is
    # re-rolled (Bernoulli p over the n (1 − T) trials that decide)
    decided = np.where(rerolls, n * np.maximum(1 - t, 0.0), float(n))
    var = np.where(rerolls, p * (1 - p), np.maximum(w + shares**2 * t - p**2, 0.0))
    tol = 5 * np.sqrt(var / np.maximum(decided, 1.0)) + 1 / n
    found = worst(p_mc, p, tol)
    if found is not None:
        i, k = found
        fail(
            off(
                f"cell {cell_text(grid.cells, i)}: P(a wins)",
                p_mc[i],
                p[i],
                tol[i],
                n,
                k,
                p.size,
                "cells",
            )
        )
    return done + f"; paired Monte Carlo ({n} trials) within 5 SE + 1/n in every cell"


def _check_duel(ctx: Context, mod, cv, k: int, an: str, bn: str) -> str:
    """One duel of the combat check (see the module docstring); returns its summary."""
    from analysis.combat import archetypes

    duel, n = f"{an} vs {bn}", ctx.trials
    a, b = archetypes.combatant(ctx.sid, an), archetypes.combatant(ctx.sid, bn)
    ex = mod.duel_exact(a, b, variants=cv)
    if not ex.exact:
        fail(f"{duel}: duel_exact returned Monte Carlo counts")
    p = ex.p_outcome()
    if ((p < -EXACT_TOL) | (p > 1 + EXACT_TOL)).any() or abs(p.sum() - 1) > EXACT_TOL:
        fail(
            f"{duel}: exact P(side0, side1, neither) = {p.round(12).tolist()} sums to "
            f"{p.sum():.12g}, not 1"
        )
    rounds = ex.rounds_pmf()
    if abs(rounds.sum() - 1) > EXACT_TOL:
        fail(f"{duel}: the exact rounds distribution sums to {rounds.sum():.12g}, not 1")
    fates, _ = ex.p_loser_fates()
    if p[:2].sum() > 0 and abs(fates.sum() - 1) > EXACT_TOL:
        fail(
            f"{duel}: the loser's fates (dead, dying, out) = {fates.round(12).tolist()} "
            f"sum to {fates.sum():.12g}, not 1"
        )
    note = ""
    if an == bn:
        first = getattr(mod, "initiative_first", None)
        q = 0.5 if first is None else float(first(a, b, cv))
        if abs(q - 0.5) > EXACT_TOL:
            note = f" (not asserted even: initiative_first gives side 0 P = {q:.4g})"
        elif abs(p[0] - p[1]) > EXACT_TOL:
            fail(f"{duel} (a mirror): exact p_side0 {fmt(p[0])} ≠ p_side1 {fmt(p[1])}")
        else:
            note = " (even)"
    mc = mod.duel_mc(a, b, n, ctx.stream("combat", k), cv)
    if mc.trials != n or int(mc.outcome.sum()) != n:
        fail(f"{duel}: Monte Carlo counts {int(mc.outcome.sum())} fights for {n} trials")
    p_mc = mc.p_outcome()
    steps = np.arange(rounds.size)
    mean = float(rounds @ steps)
    sd = math.sqrt(max(float(rounds @ steps**2) - mean**2, 0.0))
    mean_mc = float(mc.rounds_pmf() @ np.arange(mc.rounds.shape[0]))
    for metric, est, want, tol in (
        ("p_side0", p_mc[0], p[0], float(tolerance(p[0], n))),
        ("p_side1", p_mc[1], p[1], float(tolerance(p[1], n))),
        ("rounds_mean", mean_mc, mean, 5 * sd / math.sqrt(n) + 1 / n),
    ):
        if abs(est - want) > tol:
            fail(
                f"{duel}: Monte Carlo {metric} {fmt(est)} vs exact {fmt(want)}, off by "
                f"{abs(est - want):.2e} > 5 SE + 1/n = {tol:.2e} (n = {n})"
            )
    if p_mc[:2].sum() > 0:
        fates_mc, _ = mc.p_loser_fates()
        if abs(fates_mc.sum() - 1) > EXACT_TOL:
            fail(f"{duel}: Monte Carlo loser fates sum to {fates_mc.sum():.12g}, not 1")
    return f"{duel}{note}: p_side0 {p[0]:.4f} (MC {p_mc[0]:.4f})"


def _check_combat(ctx: Context) -> str:
    from analysis.combat import archetypes

    spec = ctx.spec
    if spec.combat is None:
        raise Skip("the system declares no combat rules")
    if spec.combat.archetypes is None:
        raise Skip(
            "the system declares combat rules but no archetype library, so there is no duel by name"
        )
    mod = spec.combat.engine()
    cls = getattr(mod, "Variants", None)
    cv = cls() if cls is not None else None
    names = archetypes.library(ctx.sid)
    missing = [r for r in RUNGS if r not in names]
    if missing:
        fail(f"the archetype library has no rung {missing[0]!r}")
    done = [_check_duel(ctx, mod, cv, k, an, bn) for k, (an, bn) in enumerate(DUELS)]
    return "; ".join(done) + f"; Monte Carlo {ctx.trials} fights each, within 5 SE + 1/n"


def _check_mechanic(ctx: Context, k: int, name: str, mech) -> None:
    """One mechanic of the campaign check (see the module docstring)."""
    from analysis import campaign

    n = ctx.trials
    out = campaign.run(
        ctx.sid, name, sessions=SESSIONS, method="both", trials=n, seed=ctx.stream("campaign", k)
    )
    ex, mc = out["exact"], out["mc"]
    pmf = ex.pmf()
    if pmf.shape != (SESSIONS + 1, ex.values.size):
        fail(
            f"{name}: the exact distribution has shape {pmf.shape}, expected "
            f"({SESSIONS + 1}, {ex.values.size})"
        )
    if (pmf < -EXACT_TOL).any():
        fail(f"{name}: a negative exact probability")
    sums = pmf.sum(axis=1)
    if (np.abs(sums - 1) > EXACT_TOL).any():
        s = int(np.argmax(np.abs(sums - 1)))
        fail(f"{name}: session {s}: the exact distribution sums to {sums[s]:.12g}, not 1")
    rows = mc.dist.sum(axis=1)
    if mc.trials != n or (rows != n).any():
        fail(
            f"{name}: Monte Carlo session rows sum to {sorted(set(rows.tolist()))}, not "
            f"the {n} trials"
        )
    tol = tolerance(pmf, n)
    found = worst(mc.dist / n, pmf, tol)
    if found is not None:
        at, bad = found
        s, j = (int(x) for x in np.unravel_index(at, pmf.shape))
        fail(
            off(
                f"{name}: session {s}, {mech.state} {ex.values[j]}",
                mc.dist[s, j] / n,
                pmf[s, j],
                tol[s, j],
                n,
                bad,
                pmf.size,
                "states",
            )
        )
    if ex.passage is None:
        return
    pas = ex.passage_pmf()
    if abs(pas.sum() - 1) > EXACT_TOL:
        fail(f"{name}: the exact first-passage row sums to {pas.sum():.12g}, not 1")
    if mc.passage is None or int(mc.passage.sum()) != n:
        fail(f"{name}: the Monte Carlo first-passage row does not count the {n} trials")
    tol = tolerance(pas, n)
    found = worst(mc.passage / n, pas, tol)
    if found is not None:
        at, bad = found
        where = (
            f"first passage by session {at}"
            if at < pas.size - 1
            else "first passage: not by the last session"
        )
        fail(
            off(
                f"{name}: {where}",
                mc.passage[at] / n,
                pas[at],
                tol[at],
                n,
                bad,
                pas.size,
                "sessions",
            )
        )


def _check_campaign(ctx: Context) -> str:
    spec = ctx.spec
    if spec.campaign is None:
        raise Skip("the system declares no campaign mechanics")
    mechanics = spec.campaign.engine().MECHANICS
    if not mechanics:
        fail("MECHANICS is empty")
    for k, (name, mech) in enumerate(mechanics.items()):
        _check_mechanic(ctx, k, name, mech)
    return (
        f"{len(mechanics)} mechanics at their defaults ({', '.join(mechanics)}), "
        f"{SESSIONS} sessions: distributions sum to 1, Monte Carlo ({ctx.trials}) within "
        "5 SE + 1/n"
    )


#: The checks of this module by name.
RUN: dict[str, Callable[[Context], str]] = {
    "ladder": _check_ladder,
    "opposed": _check_opposed,
    "combat": _check_combat,
    "campaign": _check_campaign,
}
