"""Speed of the d10-pool combat engines (``dice_pool_7``, ``dice_pool_6``).

Run ``python -m benchmarks.bench_combat_pools`` (about 30 s) to print, per system, for a
competent-vs-competent melee duel (``competent_swordsman`` on both sides, default
variants, round cap 50):

- Monte Carlo duels per second per core: the numba kernel on one thread, from the
  process CPU time (robust when other programs share the cores) and from the wall clock;
- the same duels fought by the straightforward pure-Python simulator the tests use as
  an oracle (``tests/combat_pools_reference.py``), in the same process, and the ratio;
- the time of one exact duel (:func:`duel_exact`).

Each figure is the median of ``--repeats`` runs. No assertion depends on speed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from combat_pools_reference import fight6, fight7

from analysis.combat.archetypes import combatants
from engines.systems.dice_pool_6 import combat as combat_dice_pool_6
from engines.systems.dice_pool_7 import combat as combat_dice_pool_7

ENGINES = {"dice_pool_7": (combat_dice_pool_7, fight7), "dice_pool_6": (combat_dice_pool_6, fight6)}
ARCHETYPE = "competent_swordsman"


def _timed(fn) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c0, time.perf_counter() - w0


def bench(system: str, trials: int, ref_trials: int, repeats: int) -> dict:
    engine, reference = ENGINES[system]
    c = combatants(system)[ARCHETYPE]
    engine.duel_mc(c, c, 1000, seed=0)  # compile / load the cache
    cpu, wall = [], []
    for r in range(repeats):
        tc, tw = _timed(lambda r=r: engine.duel_mc(c, c, trials, seed=r))
        cpu.append(trials / tc)
        wall.append(trials / tw)
    ref = []
    for r in range(repeats):
        rng = random.Random(r)
        tc, _ = _timed(lambda rng=rng: [reference(rng, [c], [c]) for _ in range(ref_trials)])
        ref.append(ref_trials / tc)
    ex = []
    for _ in range(repeats):
        _, tw = _timed(lambda: engine.duel_exact(c, c))
        ex.append(tw * 1e3)
    kernel = statistics.median(cpu)
    python = statistics.median(ref)
    return {
        "system": system,
        "kernel duels/s/core (cpu)": kernel,
        "kernel duels/s (wall, 1 thread)": statistics.median(wall),
        "pure Python duels/s": python,
        "speed-up": kernel / python,
        "exact duel ms": statistics.median(ex),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2_000_000)
    parser.add_argument("--ref-trials", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        for system in ENGINES:
            row = bench(system, args.trials, args.ref_trials, args.repeats)
            print(
                " | ".join(
                    f"{k}: {v:,.3g}" if isinstance(v, float) else f"{k}: {v}"
                    for k, v in row.items()
                )
            )
    finally:
        numba.set_num_threads(before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
