"""Duels per second per core: numba kernels vs a straightforward pure-Python loop.

Competent vs competent melee duel (archetypes from
``engines/systems/<id>/archetypes.toml``) for ``middle_3d10`` (B6–B11) and the
``percentile`` extension (DX1–DX13). Both run in this
process on one numba thread; the pure-Python baseline plays the same rules with
:mod:`random` and prints its win rate beside the kernel's (they should agree within a few
standard errors). Run from the project root::

    python benchmarks/bench_combat_middle_pct.py [--trials 2000000] [--baseline 20000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from math import sqrt
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numba

from analysis.combat.archetypes import combatants
from engines.systems.middle_3d10 import combat as cm
from engines.systems.percentile import combat as cp

# ------------------------------------------------------------ pure-Python baselines


def py_middle_duel(a: cm.Combatant, b: cm.Combatant, rng: random.Random, cap: int) -> int:
    """One middle_3d10 duel, default variants, no drama points: 0 / 1 winner, 2 neither."""
    cmb = (a, b)
    dmg = [0, 0]
    acted = [False, False]

    def pen(i):
        v = cmb[i].vigor
        return 0 if dmg[i] < v else 2 if dmg[i] < 2 * v else 5

    init = []
    for c in cmb:
        mid = sorted(rng.randint(1, 10) for _ in range(3))[1]
        init.append((mid + c.reflex, c.reflex, rng.random()))
    order = [0, 1] if init[0] > init[1] else [1, 0]
    for _ in range(cap):
        for i in order:
            j = 1 - i
            dice = [rng.randint(1, 10) for _ in range(3)]
            lo, mid, hi = sorted(dice)
            defense = cmb[j].defense - pen(j) - (0 if acted[j] else cm.FLAT_FOOTED)
            total = mid + cmb[i].trait + cmb[i].combat - pen(i)
            acted[i] = True
            hit = dice.count(10) >= 2 or (dice.count(1) < 2 and total >= defense)
            if not hit:
                continue
            picks = {"m": lo, "C": mid, "M": hi}
            d = sum(picks[c] for c in cmb[i].dice) + cmb[i].damage_bonus
            v = cmb[j].vigor
            dmg[j] = min(dmg[j] + d, 3 * v)
            if d >= v and dmg[j] < 3 * v:
                m = [rng.randint(1, 10) for _ in range(3)]
                ok = m.count(10) >= 2 or (m.count(1) < 2 and sorted(m)[1] + v >= 12)
                if not ok:
                    dmg[j] = 3 * v
            if dmg[j] >= 3 * v:
                return i
    return 2


def py_percentile_duel(a: cp.Combatant, b: cp.Combatant, rng: random.Random, cap: int) -> int:
    """One percentile-extension melee duel with dodging defenders (DX1–DX9)."""
    cmb = (a, b)
    hp = [a.hit_points, b.hit_points]
    major = [False, False]

    def level(skill):
        v = rng.randint(1, 100)
        if v == 1:
            return 3
        if v == 100 or (v >= 96 and skill < 50):
            return 0
        return 3 if v <= skill // 5 else 2 if v <= skill // 2 else 1 if v <= skill else 0

    def damage(c, extreme):
        w, (dn, ds, df) = c.weapon, c.bonus
        if extreme:
            return (
                w.n * w.sides
                + w.flat
                + dn * ds
                + df
                + (sum(rng.randint(1, w.sides) for _ in range(w.n)) + w.flat if w.impale else 0)
            )
        return (
            sum(rng.randint(1, w.sides) for _ in range(w.n))
            + w.flat
            + sum(rng.randint(1, ds) for _ in range(dn))
            + df
        )

    ka = (a.dex, a.fighting, rng.random())
    kb = (b.dex, b.fighting, rng.random())
    order = [0, 1] if ka > kb else [1, 0]
    for _ in range(cap):
        for i in order:
            j = 1 - i
            la, ld = level(cmb[i].fighting), level(cmb[j].dodge)
            if la < 1 or la <= ld:
                continue
            d = max(0, damage(cmb[i], la == 3) - cmb[j].armour)
            if d <= 0:
                continue
            if d > cmb[j].hit_points:
                return i
            hp[j] = max(0, hp[j] - d)
            if 2 * d >= cmb[j].hit_points:
                major[j] = True
                if hp[j] > 0 and level(cmb[j].con) == 0:
                    return i
            if hp[j] == 0:
                return i
    return 2


# ------------------------------------------------------------ timing


def bench(name, engine, py_duel, a, b, trials, baseline, cap=50):
    engine.duel_mc(a, b, 1000, seed=0, round_cap=cap)  # compile / load the cache
    # CPU time of this process (one numba thread): per-core rates that a busy machine
    # does not distort the way wall-clock time does (wall-clock shown too)
    w0, t0 = time.perf_counter(), time.process_time()
    res = engine.duel_mc(a, b, trials, seed=1, round_cap=cap)
    t_kernel, w_kernel = time.process_time() - t0, time.perf_counter() - w0
    rng = random.Random(1)
    t0 = time.process_time()
    wins = [0, 0, 0]
    for _ in range(baseline):
        wins[py_duel(a, b, rng, cap)] += 1
    t_py = time.process_time() - t0
    p_k, p_py = res.p_outcome()[0], wins[0] / baseline
    se = sqrt(p_k * (1 - p_k) / trials + p_py * (1 - p_py) / baseline)
    rate_k, rate_py = trials / t_kernel, baseline / t_py
    rounds = (res.rounds.sum(axis=1) * range(cap + 1)).sum() / trials
    print(
        f"{name:12s} ({rounds:.2f} rounds/duel) numba {rate_k:12,.0f} duels/s/core   "
        f"pure Python {rate_py:10,.0f} duels/s/core   speed-up {rate_k / rate_py:6.1f}x   "
        f"(numba wall-clock {trials / w_kernel:,.0f}/s)   "
        f"P(a wins) {p_k:.4f} vs {p_py:.4f} (diff {abs(p_k - p_py) / se:.1f} SE)"
    )
    return rate_k


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2_000_000)
    parser.add_argument("--baseline", type=int, default=20_000)
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    mid = combatants("middle_3d10")
    pct = combatants("percentile")
    # no drama points in the baseline comparison (the pure loop does not spend them)
    a = cm.Combatant(**{**mid["competent"].__dict__, "drama": 0})
    bench("middle_3d10", cm, py_middle_duel, a, a, args.trials, args.baseline)
    bench(
        "percentile",
        cp,
        py_percentile_duel,
        pct["competent"],
        pct["competent"],
        args.trials,
        args.baseline,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
