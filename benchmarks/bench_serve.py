"""Latency of the live workbench's exact updates (``rpg-balance serve``).

What a designer waits for when a knob moves: the model's update of one tab
(:mod:`reports.workbench.model`) — a success-curve slice with the difficulty solver, and
an exact duel with its one-hit odds — warm (kernels compiled, libraries loaded), each
with and without drawing its figure, for every built-in system. Wall-clock time, median
of ``--repeat`` runs; each figure is also shown as a ratio to a baseline run in the same
process (:func:`analysis.checks.curves.success_curves` of the same slice alone), so a
loaded machine shifts every row alike. Also: two exact duels from two threads at once
(the engine lock serialises them) against the two one after the other.

A/B (a setup pinned as A, :mod:`reports.workbench.model.compare`): the exact update when
B changes — B's check or duel computed, A's taken from the cache, the difference table
(``check A/B``, ``duel A/B``) — against the same with A recomputed too (``duel A/B,
A again``: what the page would pay without its cache); and the page's own callback (a
:class:`reports.workbench.app.Workbench` without a browser: pin A, change B's armour,
every pane of the Duel tab updated), median over alternating changes.

    python -m benchmarks.bench_serve            # about 30 s
    python -m benchmarks.bench_serve --repeat 3 # quicker
    python -m benchmarks.bench_serve --browser  # also end to end, in headless chromium

``--browser`` also measures what the designer sees: the server in a subprocess, headless
chromium on the page, the time from a changed menu (side B's archetype, a check's
competence) to the new sentence on screen (the server's work, the websocket both ways,
the new figure drawn), polled every 10 ms.

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
    p.add_argument(
        "--systems",
        default=None,
        metavar="A,B",
        help="only these systems (default: every built-in with combat)",
    )
    p.add_argument(
        "--browser", action="store_true", help="also measure end to end in headless chromium"
    )
    args = p.parse_args(argv)
    from analysis.checks.curves import success_curves
    from reports.workbench import model

    rows = []
    systems = args.systems.split(",") if args.systems else model.combat_systems()
    for system in systems:
        c = model.default_check(system)
        d = model.default_duel(system)
        model.check_result(c)  # warm: compile, load, cache
        model.duel_result(d)
        base = _median(lambda c=c: success_curves(c.system, "exact"), args.repeat)
        ca = model.check_result(c, figure=False)  # A, pinned and cached
        da = model.duel_result(d, figure=False)
        cb, db = _changed_check(c), _changed_duel(d)
        figures = {
            "check": _median(lambda c=c: model.check_result(c, figure=False), args.repeat),
            "check+fig": _median(lambda c=c: model.check_result(c), args.repeat),
            "duel": _median(lambda d=d: model.duel_result(d, figure=False), args.repeat),
            "duel+fig": _median(lambda d=d: model.duel_result(d), args.repeat),
            "check A/B": _median(
                lambda ca=ca, cb=cb: model.check_table(ca, model.check_result(cb, figure=False)),
                args.repeat,
            ),
            "duel A/B": _median(
                lambda da=da, db=db: model.duel_table(da, model.duel_result(db, figure=False)),
                args.repeat,
            ),
            "duel A/B, A again": _median(
                lambda d=d, db=db: model.duel_table(
                    model.duel_result(d, figure=False), model.duel_result(db, figure=False)
                ),
                args.repeat,
            ),
        }
        rows.append((system, base, figures))
    print(f"{'system':<13} {'baseline':>9} " + " ".join(f"{k:>16}" for k in rows[0][2]))
    for system, base, figures in rows:
        cells = " ".join(f"{v:7.3f}s ({v / base:5.1f}x)" for v in figures.values())
        print(f"{system:<13} {base:8.3f}s {cells}")
    # two tabs at once: two exact duels from two threads
    a, b = model.default_duel(rows[-1][0]), model.default_duel(rows[0][0])

    def both_threads():
        ts = [
            threading.Thread(target=model.duel_result, args=(x,), kwargs={"figure": False})
            for x in (a, b)
        ]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    serial = _median(
        lambda: (model.duel_result(a, figure=False), model.duel_result(b, figure=False)),
        args.repeat,
    )
    threaded = _median(both_threads, args.repeat)
    print(
        f"two exact duels ({a.system}, {b.system}): one after the other {serial:.3f}s, "
        f"from two threads {threaded:.3f}s ({threaded / serial:.2f}x)"
    )
    for system, base, _figures in rows:
        page = _page_ab(system, args.repeat)
        alone = _page_ab(system, args.repeat, pin=False)
        if page is not None:
            print(
                f"page update ({system}), B's armour changed: A pinned {page:.3f}s "
                f"({page / base:.1f}x), nothing pinned {alone:.3f}s "
                f"({alone / base:.1f}x)"
            )
    if args.browser:
        browser(args.repeat)
    return 0


def _changed_check(c):
    """B of a check: the first check variant with choices set off its default."""
    import dataclasses

    from reports.workbench import model

    for f in model.check_variant_fields(c.system):
        if f["choices"]:
            other = next(x for x in f["choices"] if x != f["default"])
            return dataclasses.replace(c, variants={f["name"]: other})
    return c


def _changed_duel(d):
    """B of a duel: side B in the library's last armour (or the same duel, none)."""
    import dataclasses

    from reports.workbench import model

    armours = model.gear_options(d.system, "armour")
    return dataclasses.replace(d, armour_b=armours[-1]) if armours else d


def _page_ab(system: str, repeat: int, pin: bool = True) -> float | None:
    """The page's exact update with A pinned (``pin``; else nothing pinned): change B's
    armour back and forth (each change: B's duel, the A/B table from A's cache, every
    pane; the figure drawn on its own thread is waited for before the next change, not
    timed)."""
    from reports.workbench import model
    from reports.workbench.app import Workbench

    armours = model.gear_options(system, "armour")
    if len(armours) < 2:
        return None
    wb = Workbench({"tab": "duel", "duel-system": system})
    if pin:
        wb._on_pin()
    w = wb.d_gear["armour_b"]
    times = []
    for i in range(2 * repeat):
        _figures_drawn()
        t = time.perf_counter()
        w.value = armours[-1 - i % 2]
        times.append(time.perf_counter() - t)
    _figures_drawn()
    return statistics.median(times)


def _figures_drawn() -> None:
    for t in threading.enumerate():
        if t.name.startswith("workbench-") and t.name.endswith("-figure"):
            t.join()


def browser(repeat: int) -> None:
    """End to end: a changed menu → the new sentence on the page (headless chromium)."""
    import re
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "tests"))
    from browser_page import Browser
    from test_serve import DEEP

    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "serve", "--port", "0", "--no-browser"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = re.search(r"http://\S+/", proc.stdout.readline()).group(0)
        with tempfile.TemporaryDirectory() as tmp, Browser(Path(tmp)) as b:
            b.page.add_init_script(DEEP)  # the page helpers in every document
            cases = [
                ("duel", "d20_degrees", "Side B", ["expert", "competent"], "(B) in d20_degrees"),
                ("duel", "dice_pool_7", "Side B", ["expert", "competent"], "(B) in dice_pool_7"),
                ("checks", "d20_degrees", "Competence (modifier)", ["5", "6"], "For modifier"),
            ]
            for tab, system, label, values, marker in cases:
                key = "duel-system" if tab == "duel" else "check-system"
                b.open(f"{url}?tab={tab}&{key}={system}")
                _until(b, f"deepText().includes({marker!r})")
                times = []
                for i in range(2 * repeat):
                    value = values[i % 2]
                    word = f"against {value} (weapon" if tab == "duel" else f"modifier {value} "
                    t = time.perf_counter()
                    b.evaluate(f"selectByLabel({label!r}, {value!r})")
                    _until(
                        b,
                        f"deepText().split('\\n').some(x => x.includes({marker!r}) "
                        f"&& x.includes({word!r}))",
                    )
                    times.append(time.perf_counter() - t)
                print(
                    f"browser, {tab} {system}: {label} changed → new sentence on screen "
                    f"median {statistics.median(times):.3f}s, max {max(times):.3f}s "
                    f"({len(times)} changes)"
                )
    finally:
        proc.send_signal(2)
        proc.wait(15)
        proc.stdout.close()


def _until(b, expression: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not b.evaluate(expression):
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out: {expression}")
        time.sleep(0.01)


if __name__ == "__main__":
    raise SystemExit(main())
