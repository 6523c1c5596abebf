"""Latency of the live workbench's exact updates (``rpg-balance serve``).

What a designer waits for when a knob moves: the model's update of one tab
(:mod:`reports.workbench.model`) — a success-curve slice with the difficulty solver, and
an exact duel with its one-hit odds — warm (kernels compiled, libraries loaded), each
with and without drawing its figure, for every built-in system. Wall-clock time, median
of ``--repeat`` runs; each figure is also shown as a ratio to a baseline run in the same
process (:func:`analysis.checks.curves.success_curves` of the same slice alone), so a
loaded machine shifts every row alike. Also: two exact duels from two threads at once
(the engine lock serialises them) against the two one after the other.

    python -m benchmarks.bench_serve            # about 30 s
    python -m benchmarks.bench_serve --repeat 3 # quicker

No timed assertion: the target (≤ 0.5 s warm on two cores) is read from the table.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    from analysis.checks.curves import success_curves
    from reports.workbench import model

    rows = []
    for system in model.combat_systems():
        c = model.default_check(system)
        d = model.default_duel(system)
        model.check_result(c)  # warm: compile, load, cache
        model.duel_result(d)
        base = _median(lambda c=c: success_curves(c.system, "exact"), args.repeat)
        figures = {
            "check": _median(lambda c=c: model.check_result(c, figure=False), args.repeat),
            "check+fig": _median(lambda c=c: model.check_result(c), args.repeat),
            "duel": _median(lambda d=d: model.duel_result(d, figure=False), args.repeat),
            "duel+fig": _median(lambda d=d: model.duel_result(d), args.repeat),
        }
        rows.append((system, base, figures))
    print(f"{'system':<13} {'baseline':>9} " + " ".join(f"{k:>16}" for k in rows[0][2]))
    for system, base, figures in rows:
        cells = " ".join(f"{v:7.3f}s ({v / base:5.1f}x)" for v in figures.values())
        print(f"{system:<13} {base:8.3f}s {cells}")
    # two tabs at once: two exact duels from two threads
    a, b = model.default_duel(rows[-1][0]), model.default_duel(rows[0][0])

    def both_threads():
        ts = [threading.Thread(target=model.duel_result, args=(x,), kwargs={"figure": False})
              for x in (a, b)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    serial = _median(lambda: (model.duel_result(a, figure=False),
                              model.duel_result(b, figure=False)), args.repeat)
    threaded = _median(both_threads, args.repeat)
    print(f"two exact duels ({a.system}, {b.system}): one after the other {serial:.3f}s, "
          f"from two threads {threaded:.3f}s ({threaded / serial:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
