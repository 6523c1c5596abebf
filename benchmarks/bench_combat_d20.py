"""Duels per second per core: the numba fight kernel vs a straightforward pure-Python duel.

Both run the same competent-vs-competent melee duel from the data library (E10–E15 with
the default variants: initiative, attacks with excess degrees, E12 damage, hero-point
attack rerolls, one recovery) in this process, on one core (numba pinned to one thread;
CPU time, so other load on the machine does not count). The script also checks that
both give the same P(side 0 wins) within five standard errors.

Run from the repository root: ``python benchmarks/bench_combat_d20.py [--trials N]``.
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

from analysis.combat.archetypes import library
from engines.systems.d20_degrees.combat import Fighter, duel_mc


def python_duel(a: Fighter, b: Fighter, rng: random.Random, cap: int = 50) -> int:
    """One duel in plain Python (default variants, maneuver none, no extra effort).

    Returns 0 or 1 for the winner, 2 at the round cap.
    """
    d20 = lambda: rng.randint(1, 20)  # noqa: E731
    f = (a, b)
    hp = [a.hit_points, b.hit_points]
    hero = [
        a.hero_points if a.hero_use == "attack" else 0,
        b.hero_points if b.hero_use == "attack" else 0,
    ]
    rec = [0, 0]  # 0 unused, 1 used and +2 up, 2 used
    ka = (d20() + a.agility + a.initiative, a.dodge, a.agility, a.awareness, rng.random())
    kb = (d20() + b.agility + b.initiative, b.dodge, b.agility, b.awareness, rng.random())
    order = (0, 1) if ka > kb else (1, 0)
    for _ in range(cap):
        for i in order:
            j = 1 - i
            if rec[i] == 1:
                rec[i] = 2
            if rec[i] == 0 and hp[i] <= f[i].recover_at:
                rec[i] = 1
                hp[i] = min(hp[i] + 5, f[i].hit_points)
                continue
            defence = (f[j].dodge if f[i].ranged else f[j].parry) + (2 if rec[j] == 1 else 0)
            dc = defence + 10
            roll = d20()
            nat = roll
            hit = roll == 20 or (roll != 1 and roll + f[i].attack >= dc)
            if not hit and hero[i] > 0:
                hero[i] -= 1
                r2 = d20()
                v2 = r2 + 10 if r2 <= 10 else r2
                if v2 > roll:
                    roll, nat = v2, (20 if r2 == 20 else 0)
                hit = nat == 20 or (roll + f[i].attack >= dc)
            if not hit:
                continue
            total = roll + f[i].attack
            excess = (total - dc) // 5 if total >= dc else 0
            x = f[i].damage + excess + 15 + (5 if nat == 20 else 0)
            dmg = x - (f[j].toughness + d20())
            if dmg > 0:
                hp[j] -= dmg
                if hp[j] <= 0:
                    return i
    return 2


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2_000_000, help="numba duels")
    parser.add_argument("--python-trials", type=int, default=20_000, help="pure-Python duels")
    args = parser.parse_args(argv)
    comp = library("d20_degrees")["competent"].to_engine()
    numba.set_num_threads(1)
    duel_mc(comp, comp, trials=1_000, seed=0)  # compile / load the cache
    t0 = time.process_time()
    stats = duel_mc(comp, comp, trials=args.trials, seed=1)
    t_numba = time.process_time() - t0
    rng = random.Random(2)
    t0 = time.process_time()
    wins = [0, 0, 0]
    for _ in range(args.python_trials):
        wins[python_duel(comp, comp, rng)] += 1
    t_py = time.process_time() - t0
    rate_numba = args.trials / t_numba
    rate_py = args.python_trials / t_py
    p_numba = stats.outcome[0] / stats.n
    p_py = wins[0] / args.python_trials
    se = sqrt(p_numba * (1 - p_numba) / stats.n + p_py * (1 - p_py) / args.python_trials)
    print("competent vs competent melee duel, one core (CPU time)")
    print(f"  numba kernel : {rate_numba:12,.0f} duels/s  ({args.trials:,} duels)")
    print(f"  pure Python  : {rate_py:12,.0f} duels/s  ({args.python_trials:,} duels)")
    print(f"  speed-up     : {rate_numba / rate_py:12,.1f} x")
    print(
        f"  P(side 0 wins): numba {p_numba:.4f}, Python {p_py:.4f} "
        f"(difference {abs(p_numba - p_py) / se:.1f} standard errors)"
    )


if __name__ == "__main__":
    main()
