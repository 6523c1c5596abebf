"""Speed of the single-check engines: Monte Carlo kernels and exact tables.

Run ``python -m benchmarks.bench_checks`` (about 20 s on idle cores) to print one row per
system:

- Monte Carlo throughput in millions of dice per second on 1 and 2 numba threads (the
  same seed and work split on both, so the work is identical): per core from the process
  CPU time (robust when other programs share the cores), and per wall-clock second on 2
  threads with the wall-clock scaling from 1 to 2 threads (meaningful only on idle cores);
- the same checks rolled by the best pure-numpy vectorised code this module knows
  (``numpy_*`` below: one ``Generator.integers`` call per batch of dice, reductions along
  the dice axis, explosions re-rolled in vectorised rounds), single-threaded, in the same
  process, and the ratio of the 1-thread kernel to it;
- the time of the exact model for the system's roll settings (``exact ms``) against
  icepool computing the same distributions (``icepool ms``).

Dice per second count every die rolled, explosions included, from the exact expected number
of dice per check (e.g. ``n / 0.9`` for a 10-again pool of ``n``). Every figure is the
median of ``--repeats`` runs; the machine is shared, so rerun and compare medians.
The ``numpy_*`` baselines return outcome-code counts like the kernels, so the test suite
checks them against the exact models too. Not part of the test suite's timing: no
assertion here depends on speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

import numba
import numpy as np

from engines.rolls import HERO_REROLL
from engines.system import BUILT_IN
from engines.systems.d20_degrees import checks as d20_degrees
from engines.systems.dice_pool_6 import checks as dice_pool_6
from engines.systems.dice_pool_7 import checks as dice_pool_7
from engines.systems.middle_3d10 import checks as middle_3d10
from engines.systems.percentile import checks as percentile

#: the built-in systems this benchmark has a measurement for (each has its own below)
SYSTEM_IDS = BUILT_IN
POOLS = np.arange(1, 21)
MIDDLE_MODES = ("normal", "advantage", "disadvantage")
PERCENTILE_DICE = np.arange(-2, 3)
D20_MODES = ("roll", "hero_point")
#: Dice per numpy batch (bounds memory: about 8 bytes per die in temporaries).
BATCH_DICE = 1 << 22


# --------------------------------------------------------------------------- numpy
def _batches(trials: int, dice_per_check: int):
    per = max(1, BATCH_DICE // max(dice_per_check, 1))
    done = 0
    while done < trials:
        n = min(per, trials - done)
        yield n
        done += n


def _count(mask: np.ndarray) -> np.ndarray:
    """Row counts of a boolean matrix (uint8 matrix product: faster than ``sum(axis=1)``)."""
    return (mask.view(np.uint8) @ np.ones(mask.shape[1], dtype=np.uint8)).astype(np.int64)


def numpy_pool(
    pools,
    trials: int,
    rng: np.random.Generator,
    threshold: int,
    again: int,
    crit_bonus: int,
    n_codes: int,
) -> np.ndarray:
    """A1/C1 pools in numpy (positive pools, at most 255 dice): int8 faces, counts by a
    uint8 matrix product, explosions in rounds over the checks that still have some."""
    out = np.zeros((len(pools), n_codes), dtype=np.int64)
    for i, n in enumerate(pools):
        for b in _batches(trials, int(n)):
            d = rng.integers(1, 11, size=(b, int(n)), dtype=np.int8)
            succ = _count(d >= threshold)
            if crit_bonus:
                succ += _count(d == 10) // 2 * crit_bonus
            if again <= 10:
                want = _count(d >= again)  # dice still to roll, per live check
                live = np.flatnonzero(want)
                want = want[live]
                while live.size:
                    e = rng.integers(1, 11, size=(live.size, int(want.max())), dtype=np.int8)
                    rolled = np.arange(e.shape[1]) < want[:, None]
                    succ[live] += _count((e >= threshold) & rolled)
                    want = _count((e >= again) & rolled)
                    live, want = live[want > 0], want[want > 0]
            out[i] += np.bincount(np.minimum(1 + succ, n_codes - 1), minlength=n_codes)
    return out


def numpy_middle(modes, trials: int, rng: np.random.Generator) -> np.ndarray:
    """B1/B3/B4 in numpy: min / middle / max of 3d10 without sorting, doubles by counting."""
    out = np.zeros((len(modes), middle_3d10.N_CODES), dtype=np.int64)
    for i, mode in enumerate(modes):
        for b in _batches(trials, 3):
            d = rng.integers(1, 11, size=(b, 3), dtype=np.int8)
            lo = d.min(axis=1).astype(np.int64)
            hi = d.max(axis=1).astype(np.int64)
            kept = {
                "normal": d.sum(axis=1, dtype=np.int64) - lo - hi,
                "advantage": hi,
                "disadvantage": lo,
            }[mode]
            tens = (d == 10).sum(axis=1)
            ones = (d == 1).sum(axis=1)
            special = np.where(tens >= 2, 1, np.where(ones >= 2, 2, 0))
            out[i] += np.bincount(3 * (kept - 1) + special, minlength=middle_3d10.N_CODES)
    return out


def numpy_percentile(dice, trials: int, rng: np.random.Generator) -> np.ndarray:
    """D1/D4 in numpy: a units die and 1 + |k| tens dice, lowest or highest reading."""
    out = np.zeros((len(dice), percentile.N_CODES), dtype=np.int64)
    for i, k in enumerate(dice):
        n = 1 + abs(int(k))
        for b in _batches(trials, n + 1):
            units = rng.integers(0, 10, size=(b, 1), dtype=np.int8).astype(np.int16)
            tens = rng.integers(0, 10, size=(b, n), dtype=np.int8).astype(np.int16)
            reads = np.where((tens == 0) & (units == 0), 100, 10 * tens + units)
            res = reads.min(axis=1) if k >= 0 else reads.max(axis=1)
            out[i] += np.bincount(res - 1, minlength=percentile.N_CODES)
    return out


def numpy_d20(
    modes, trials: int, rng: np.random.Generator, reroll_natural: bool = False
) -> np.ndarray:
    """E1/E9 in numpy: one d20, or a hero-point reroll (1–10 reads 11–20, keep better)."""
    out = np.zeros((len(modes), d20_degrees.N_CODES), dtype=np.int64)
    for i, mode in enumerate(modes):
        for b in _batches(trials, 2):
            first = rng.integers(1, 21, size=b, dtype=np.int16)
            nat = np.where(first == 20, 2, np.where(first == 1, 1, 0))
            value = first
            if d20_degrees.MODES[mode] == HERO_REROLL:
                second = rng.integers(1, 21, size=b, dtype=np.int16)
                v2 = np.where(second <= 10, second + 10, second)
                nat2 = np.where(second == 20, 2, np.where((second == 1) & reroll_natural, 1, 0))
                take = v2 > first
                value = np.where(take, v2, first)
                nat = np.where(take, nat2, nat)
            out[i] += np.bincount(
                (value.astype(np.int64) - 1) + 30 * nat, minlength=d20_degrees.N_CODES
            )
    return out


# --------------------------------------------------------------------------- icepool
def icepool_dice_pool_7():
    import icepool

    faces = [0] * 6 + [1] * 3 + [1 + icepool.Again]  # A1: 7+ succeeds, 10 again
    die = icepool.Die(faces, again_depth=12)  # chain tail 1e-13 per die
    return [_ice_row(int(n) @ die, offset=1) for n in POOLS]  # code = 1 + successes


def icepool_dice_pool_6():
    import icepool

    die = icepool.d10.map(lambda f: int(f >= 6) + 1000 * int(f == 10))  # successes + 10s
    rows = []
    for n in POOLS:
        total = int(n) @ die
        rows.append(total.map(lambda x: x % 1000 + (x // 1000) // 2 * 2))
    return [_ice_row(r, offset=1) for r in rows]  # code = 1 + successes


def icepool_middle_3d10():
    import icepool

    def code(mode):
        def f(a, b, c):
            lo, mid, hi = sorted((a, b, c))
            kept = (mid, hi, lo)[mode]
            special = 1 if (a, b, c).count(10) >= 2 else 2 if (a, b, c).count(1) >= 2 else 0
            return 3 * (kept - 1) + special

        return f

    return [_ice_row(icepool.map(code(m), icepool.d10, icepool.d10, icepool.d10)) for m in range(3)]


def icepool_percentile():
    import icepool

    rows = []
    for k in PERCENTILE_DICE:
        n = 1 + abs(int(k))
        pick = min if k >= 0 else max

        def f(u, *tens, pick=pick):
            return pick(100 if (t == 0 and u == 0) else 10 * t + u for t in tens)

        rows.append(_ice_row(icepool.map(f, *([icepool.d10 - 1] * (n + 1))), offset=-1))
    return rows


def icepool_d20_degrees():
    import icepool

    def hero(a, b):
        v2 = b + 10 if b <= 10 else b
        nat = 2 if a == 20 else 1 if a == 1 else 0
        return (v2 - 1) + 30 * (2 if b == 20 else 0) if v2 > a else (a - 1) + 30 * nat

    plain = icepool.d20.map(lambda a: (a - 1) + 30 * (2 if a == 20 else 1 if a == 1 else 0))
    return [_ice_row(plain), _ice_row(icepool.map(hero, icepool.d20, icepool.d20))]


def _ice_row(die, offset: int = 0) -> np.ndarray:
    """An icepool die as a float row indexed by outcome + ``offset`` (the engines' codes)."""
    outcomes = np.array(die.outcomes(), dtype=np.int64) + offset
    q = np.array([float(x) for x in die.quantities()]) / float(die.denominator())
    row = np.zeros(outcomes.max() + 1)
    np.add.at(row, outcomes, q)
    return row


# --------------------------------------------------------------------------- cases
def cases(seed: int = 1) -> dict[str, dict[str, Callable]]:
    """Per system: ``mc(trials)``, ``numpy(trials)``, ``exact()``, ``icepool()`` and the
    expected dice per check (averaged over the roll settings)."""
    c7 = dice_pool_7.n_codes(int(POOLS.max()))
    c6 = dice_pool_6.n_codes(int(POOLS.max()))
    rng = np.random.default_rng(seed)
    return {
        "dice_pool_7": {
            "mc": lambda t: dice_pool_7.monte_carlo(POOLS, t, seed, codes=c7),
            "numpy": lambda t: numpy_pool(POOLS, t, rng, 7, 10, 0, c7),
            "exact": lambda: dice_pool_7.exact(POOLS, codes=c7)[0],
            "icepool": icepool_dice_pool_7,
            "dice": float(POOLS.mean() / 0.9),  # A1: n / (1 - P(10))
        },
        "middle_3d10": {
            "mc": lambda t: middle_3d10.monte_carlo(MIDDLE_MODES, t, seed),
            "numpy": lambda t: numpy_middle(MIDDLE_MODES, t, rng),
            "exact": lambda: middle_3d10.exact(MIDDLE_MODES),
            "icepool": icepool_middle_3d10,
            "dice": 3.0,
        },
        "dice_pool_6": {
            "mc": lambda t: dice_pool_6.monte_carlo(POOLS, t, seed, codes=c6),
            "numpy": lambda t: numpy_pool(POOLS, t, rng, 6, 11, 2, c6),
            "exact": lambda: dice_pool_6.exact(POOLS, codes=c6)[0],
            "icepool": icepool_dice_pool_6,
            "dice": float(POOLS.mean()),
        },
        "percentile": {
            "mc": lambda t: percentile.monte_carlo(PERCENTILE_DICE, t, seed),
            "numpy": lambda t: numpy_percentile(PERCENTILE_DICE, t, rng),
            "exact": lambda: percentile.exact(PERCENTILE_DICE),
            "icepool": icepool_percentile,
            "dice": float(np.mean(2 + np.abs(PERCENTILE_DICE))),
        },
        "d20_degrees": {
            "mc": lambda t: d20_degrees.monte_carlo(D20_MODES, t, seed),
            "numpy": lambda t: numpy_d20(D20_MODES, t, rng),
            "exact": lambda: d20_degrees.exact(D20_MODES),
            "icepool": icepool_d20_degrees,
            "dice": 1.5,
        },
    }


def _median_time(fn: Callable, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median process CPU time (all threads) of ``repeats`` runs."""
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def run(
    dice: float = 4e7, numpy_dice: float = 4e6, repeats: int = 5, systems=SYSTEM_IDS
) -> list[dict]:
    """Measure every system; one dict per system with dice/s and seconds.

    Each Monte Carlo run rolls about ``dice`` dice (``numpy_dice`` for numpy), whatever the
    system, so fixed per-call costs weigh the same everywhere. ``mc_1t_cpu`` /
    ``mc_2t_cpu`` are dice per CPU-second (per core: robust to other processes sharing
    the machine); ``mc_1t`` / ``mc_2t`` dice per wall-clock second.
    """
    all_cases = cases()
    before = numba.get_num_threads()
    two = min(2, numba.config.NUMBA_NUM_THREADS)
    rows = []
    try:
        for system in systems:
            case = all_cases[system]
            n_settings = len(case["exact"]())
            per_check = n_settings * case["dice"]
            trials = max(1, round(dice / per_check))
            np_trials = max(1, round(numpy_dice / per_check))
            case["mc"](1000)  # compile / load the cached kernel outside the timing
            row = {"system": system, "trials": trials}
            for label, n in (("1t", 1), ("2t", two)):
                numba.set_num_threads(n)
                wall, cpu = _median_time(lambda c=case, t=trials: c["mc"](t), repeats)
                row[f"mc_{label}"] = trials * per_check / wall
                row[f"mc_{label}_cpu"] = trials * per_check / cpu
            numba.set_num_threads(before)
            wall, cpu = _median_time(
                lambda c=case, t=np_trials: c["numpy"](t), max(1, repeats // 2)
            )
            row["numpy_cpu"] = np_trials * per_check / cpu
            row["exact_s"] = _median_time(case["exact"], repeats)[1]
            row["icepool_s"] = _median_time(case["icepool"], max(1, repeats // 2))[1]
            rows.append(row)
    finally:
        numba.set_num_threads(before)
    return rows


def format_table(rows: list[dict]) -> str:
    """Markdown table: per-core rates from CPU time, 2-thread wall-clock rate and scaling."""
    head = (
        "| system | MC per core, 1 thread (M dice/s) | MC per core, 2 threads "
        "| MC 2 threads wall (M dice/s) | wall scaling 1→2 | numpy (M dice/s) "
        "| MC ÷ numpy | exact (ms) | icepool (ms) | icepool ÷ exact |"
    )
    lines = [head, "|" + "---|" * 10]
    for r in rows:
        lines.append(
            f"| {r['system']} | {r['mc_1t_cpu'] / 1e6:,.0f} | {r['mc_2t_cpu'] / 1e6:,.0f} "
            f"| {r['mc_2t'] / 1e6:,.0f} | {r['mc_2t'] / r['mc_1t']:.2f}× "
            f"| {r['numpy_cpu'] / 1e6:,.0f} | {r['mc_1t_cpu'] / r['numpy_cpu']:.1f}× "
            f"| {r['exact_s'] * 1e3:.2f} | {r['icepool_s'] * 1e3:.1f} "
            f"| {r['icepool_s'] / r['exact_s']:.0f}× |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_checks", description="Speed of the single-check engines."
    )
    p.add_argument("--dice", type=float, default=4e7, help="dice per Monte Carlo run")
    p.add_argument("--numpy-dice", type=float, default=4e6, help="dice per numpy run")
    p.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    p.add_argument("--systems", nargs="*", default=list(SYSTEM_IDS), choices=SYSTEM_IDS)
    args = p.parse_args(argv)
    rows = run(args.dice, args.numpy_dice, args.repeats, args.systems)
    load = os.getloadavg()[0]
    print(
        f"numba {numba.__version__}, numpy {np.__version__}, "
        f"{numba.config.NUMBA_NUM_THREADS} numba threads available, load average "
        f"{load:.1f} on {os.cpu_count()} CPUs before the run; "
        f"about {args.dice:,.0f} dice per MC run, medians of {args.repeats}"
    )
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
