"""``rpg-balance warm-up``: compile every numba kernel ahead of use (see
:mod:`analysis.warmup`)."""

from __future__ import annotations

from .common import jobs_int

__all__ = ["register", "run_warm_up", "warm_up_and_say"]


def register(sub) -> None:
    p = sub.add_parser(
        "warm-up",
        help="compile every kernel now (first run on a machine)",
        description="Compile every numba kernel in parallel worker processes and cache the "
        "machine code, so later commands start at full speed. Does nothing when the cache "
        "already matches the engine sources.",
        epilog="example: rpg-balance warm-up --jobs 2",
    )
    p.add_argument(
        "--jobs",
        type=jobs_int,
        default=2,
        metavar="N",
        help="worker processes compiling at once (default 2)",
    )
    p.add_argument(
        "--group",
        action="append",
        default=None,
        metavar="NAME",
        help="only this kernel group (repeatable; default all: a system name for "
        "its combat kernel, SYSTEM_exact for its exact duels, checks for every "
        "system's single and opposed checks)",
    )
    p.add_argument(
        "--force", action="store_true", help="run even when the cache stamp says it is warm"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p.set_defaults(func=run_warm_up)


def run_warm_up(args) -> int:
    warm_up_and_say(args.group, jobs=args.jobs, force=args.force, quiet=args.quiet)
    return 0


def warm_up_and_say(
    groups: list[str] | None = None,
    jobs: int = 2,
    force: bool = False,
    quiet: bool = False,
    say_warm: bool = True,
) -> dict[str, float]:
    """:func:`analysis.warmup.warm_up` (its progress bar unless ``quiet``), then on
    stderr (unless ``quiet``) the summary line and one line per kernel group skipped
    because a system does not declare it, or, with ``say_warm``, that the cache was
    already warm. ``rpg-balance warm-up`` runs it, and so do ``report`` and ``serve``
    before their first kernel call."""
    import sys
    import time

    from analysis.warmup import warm_up

    start = time.perf_counter()
    notes: list[str] = []
    done = warm_up(groups, jobs=jobs, force=force, progress=not quiet, notes=notes)
    if not quiet:
        if done:
            cpu = sum(done.values())
            print(
                f"warm-up: compiled {len(done)} kernel groups in "
                f"{time.perf_counter() - start:.1f} s ({cpu:.1f} CPU s)",
                file=sys.stderr,
            )
            for line in notes:
                print(f"warm-up: skipped: {line}", file=sys.stderr)
        elif say_warm:
            print("warm-up: kernels already compiled", file=sys.stderr)
    return done
