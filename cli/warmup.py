"""``rpg-balance warm-up``: compile every numba kernel ahead of use (see
:mod:`analysis.warmup`)."""

from __future__ import annotations

from .common import jobs_int

__all__ = ["register", "run_warm_up"]


def register(sub) -> None:
    p = sub.add_parser(
        "warm-up", help="compile every kernel now (first run on a machine)",
        description="Compile every numba kernel in parallel worker processes and cache the "
        "machine code, so later commands start at full speed. Does nothing when the cache "
        "already matches the engine sources.",
        epilog="example: rpg-balance warm-up --jobs 2")
    p.add_argument("--jobs", type=jobs_int, default=2, metavar="N",
                   help="worker processes compiling at once (default 2)")
    p.add_argument("--group", action="append", default=None, metavar="NAME",
                   help="only this kernel group (repeatable; default all: a system name for "
                   "its combat kernel, SYSTEM_exact for its exact duels, checks for every "
                   "system's single and opposed checks)")
    p.add_argument("--force", action="store_true",
                   help="run even when the cache stamp says it is warm")
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=run_warm_up)


def run_warm_up(args) -> int:
    import sys
    import time

    from analysis.warmup import warm_up

    start = time.perf_counter()
    done = warm_up(args.group, jobs=args.jobs, force=args.force, progress=not args.quiet)
    if not args.quiet:
        if done:
            cpu = sum(done.values())
            print(f"warm-up: compiled {len(done)} kernel groups in "
                  f"{time.perf_counter() - start:.1f} s ({cpu:.1f} CPU s)", file=sys.stderr)
        else:
            print("warm-up: kernels already compiled", file=sys.stderr)
    return 0
