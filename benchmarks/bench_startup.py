"""Cold and warm start: what the first numba compile costs, per kernel group and command.

Every figure is a child process of this one. *Cold* runs get a fresh empty
``NUMBA_CACHE_DIR`` (nothing compiled); *warm* runs repeat the same command on the cache the
cold run left. CPU time is the children's user + system time (``RUSAGE_CHILDREN``, which
includes the warm-up's own worker processes); wall time is what a user waits.

Rows:

- ``compile GROUP``: one :data:`analysis.warmup.GROUPS` group compiled in a process of
  its own (what each kernel costs to compile).
- ``warm-up``: ``rpg-balance warm-up`` (all groups, ``--jobs`` workers); warm = the no-op
  when its stamp matches.
- ``warm-up + report``: the cold path of ``tasks.py report`` (the report on the cache the
  warm-up wrote); the ratio printed at the end is its wall time over the warm report's.
- each command in :data:`COMMANDS` alone (cold: its own first compile).
- ``report (no warm-up)``: the report paying for its own compiles, as before warm-up.

Run ``python -m benchmarks.bench_startup`` (about 20 minutes on 2 idle cores: every
kernel is compiled cold about three times); ``--quick`` runs a small report (dice_pool_7
only) and skips the per-group and per-command rows.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Commands a newcomer runs first (label → ``rpg-balance`` arguments).
COMMANDS: dict[str, list[str]] = {
    "curves dice_pool_7 --method mc": ["curves", "dice_pool_7", "--method", "mc", "--seed", "1"],
    "duel dice_pool_7 --method mc": [
        "duel",
        "dice_pool_7",
        "competent_swordsman",
        "competent_fencer",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "duel dice_pool_6 --method mc": [
        "duel",
        "dice_pool_6",
        "competent_brawler",
        "expert_brawler",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "duel middle_3d10 --method mc": [
        "duel",
        "middle_3d10",
        "competent",
        "competent_brawler",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "duel percentile --method mc": [
        "duel",
        "percentile",
        "competent",
        "expert",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "duel d20_degrees --method mc": [
        "duel",
        "d20_degrees",
        "competent",
        "competent_brawler",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "campaign percentile attrition --method mc": [
        "campaign",
        "percentile",
        "attrition",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
    "campaign middle_3d10 arcane --method mc": [
        "campaign",
        "middle_3d10",
        "arcane",
        "--method",
        "mc",
        "--seed",
        "1",
    ],
}

REPORT = ["report", "--quiet"]
QUICK_REPORT = [
    "report",
    "--quiet",
    "--systems",
    "dice_pool_7",
    "--trials",
    "20000",
    "--combat-trials",
    "2000",
    "--no-pdf",
]


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(argv: list[str], cache: Path, env: dict | None = None) -> tuple[float, float]:
    """Run ``python argv`` with ``NUMBA_CACHE_DIR=cache``; (wall s, CPU s). Fails loudly."""
    env = dict(
        os.environ,
        **(env or {}),
        NUMBA_CACHE_DIR=str(cache),
        PYTHONHASHSEED="0",
        PYTHONPATH=str(ROOT),
    )
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, env=env, capture_output=True, text=True
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stderr[-2000:]}")
    return wall, cpu


def cli(*args: str) -> list[str]:
    return ["-m", "cli", *args]


def cold_warm(label: str, argv: list[str], rows: list, tmp: Path, warm_argv=None) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=tmp))
    cw, cc = timed(argv, cache)
    ww, wc = timed(warm_argv or argv, cache)
    row = {
        "what": label,
        "cold_wall": cw,
        "cold_cpu": cc,
        "warm_wall": ww,
        "warm_cpu": wc,
        "cache": cache,
    }
    rows.append(row)
    print(_fmt(row), flush=True)
    return row


def _fmt(r: dict) -> str:
    return (
        f"| {r['what']} | {r['cold_wall']:.1f} | {r['cold_cpu']:.1f} | "
        f"{r['warm_wall']:.1f} | {r['warm_cpu']:.1f} |"
    )


def run(
    quick: bool = False,
    jobs: int = 2,
    groups=None,
    commands=None,
    baseline: bool = True,
    warm_groups=None,
) -> dict:
    from analysis.warmup import GROUPS

    report = [*(QUICK_REPORT if quick else REPORT), "--out", ""]
    rows: list[dict] = []
    print("| what | cold wall (s) | cold CPU (s) | warm wall (s) | warm CPU (s) |")
    print("|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as t:
        tmp = Path(t)
        report[-1] = str(tmp / "report")
        for g in groups if groups is not None else ([] if quick else list(GROUPS)):
            code = f"from analysis.warmup import compile_group; compile_group({g!r})"
            cold_warm(f"compile {g}", ["-c", code], rows, tmp)
        # the cold path of tasks.py report: warm-up into an empty cache, then the report
        only = [a for g in (warm_groups or []) for a in ("--group", g)]
        warm = cold_warm(
            "warm-up", cli("warm-up", "--quiet", "--jobs", str(jobs), *only), rows, tmp
        )
        w2, c2 = timed(cli(*report), warm["cache"])
        ww, wc = timed(cli(*report), warm["cache"])
        both = {
            "what": "warm-up + report",
            "cold_wall": warm["cold_wall"] + w2,
            "cold_cpu": warm["cold_cpu"] + c2,
            "warm_wall": ww,
            "warm_cpu": wc,
        }
        rows.append(both)
        print(_fmt(both), flush=True)
        for label in commands if commands is not None else ([] if quick else COMMANDS):
            cold_warm(label, cli(*COMMANDS[label]), rows, tmp)
        if baseline:
            alone = cold_warm("report (no warm-up)", cli(*report), rows, tmp)
    ratio = both["cold_wall"] / both["warm_wall"]
    print(f"\ncold/warm report (wall): {ratio:.2f}x with warm-up first", end="")
    print(f" ({alone['cold_wall'] / alone['warm_wall']:.2f}x without)" if baseline else "")
    return {"rows": rows, "ratio": ratio}


def main(argv: list[str] | None = None) -> int:
    from analysis.warmup import GROUPS

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--quick", action="store_true", help="a small report, no per-group or per-command rows"
    )
    p.add_argument("--jobs", type=int, default=2, help="warm-up worker processes")
    p.add_argument(
        "--group",
        action="append",
        choices=list(GROUPS),
        default=None,
        help="only these compile rows (repeatable)",
    )
    p.add_argument(
        "--command",
        action="append",
        choices=list(COMMANDS),
        default=None,
        help="only these command rows (repeatable)",
    )
    p.add_argument(
        "--warm-up-group",
        action="append",
        choices=list(GROUPS),
        default=None,
        help="warm up only these groups (repeatable; for a smoke run)",
    )
    p.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the cold report without warm-up (the slowest row)",
    )
    args = p.parse_args(argv)
    run(
        quick=args.quick,
        jobs=args.jobs,
        groups=args.group,
        commands=args.command,
        baseline=not args.no_baseline,
        warm_groups=args.warm_up_group,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
