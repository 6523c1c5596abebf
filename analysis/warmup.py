"""Compile every numba kernel ahead of use: ``rpg-balance warm-up``.

Numba compiles a kernel the first time it is called and caches the machine code next to
the engine sources (``engines/__pycache__``, or ``NUMBA_CACHE_DIR``). On a fresh checkout
that first compile is most of the cost of a command. :func:`warm_up` compiles every kernel
group in worker processes (``spawn``; one group per task, two workers by default) by
calling the same public functions the report, the CLI and the tests call, with tiny trial
counts, so each kernel is compiled for exactly the argument types those callers pass. The
workers write numba's cache; every later process only loads it.

A stamp file in the cache directory records what was compiled: the size and modification
time of every engine source (numba's own cache key), the numba and Python versions and
this module. When the stamp matches, :func:`warm_up` returns at once without importing
numba (``is_warm``), so ``tasks.py report`` / ``tasks.py test`` can always call it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engines.constants import WARM_UP_SEED

__all__ = ["ENGINES", "STAMP_NAME", "cache_dir", "clear_cache", "compile_group", "fingerprint",
           "is_warm", "stamp_path", "warm_up"]

ENGINES = Path(__file__).resolve().parent.parent / "engines"
STAMP_NAME = "rpg-balance-warm-up.stamp"


# ------------------------------------------------------------------ kernel groups
# Each group runs in its own worker process. Calls go through the public wrappers so the
# argument types (int64 scalars, C-contiguous int64/uint64 arrays) are the callers' own.

def _archetype_pair(system: str, first: str | None = None, second: str | None = None):
    from analysis.combat import archetypes

    names = archetypes.names(system)
    a = archetypes.combatant(system, first or names[0])
    b = archetypes.combatant(system, second or names[-1])
    return archetypes.engine(system), a, b


def _combat_mc(system: str) -> None:
    """The combat Monte Carlo kernel. Campaign attrition (``duel_mc_end``) runs the same
    kernel with the same argument types, so this one compile serves both."""
    eng, a, b = _archetype_pair(system)
    eng.duel_mc(a, b, trials=64, seed=WARM_UP_SEED)
    eng.duel_mc_end(a, b, 0, trials=64, seed=WARM_UP_SEED)


def _combat_exact(system: str) -> None:
    """The exact duel chain and one-hit odds (numba helpers in middle_3d10 and percentile:
    ``_half_step``, ``success_level``)."""
    eng, a, b = _archetype_pair(system)
    eng.duel_exact(a, b, round_cap=3)
    eng.one_hit(a, b)


def _checks() -> None:
    """Every system's single-check and opposed-check Monte Carlo kernels, through the
    table functions the CLI and the report call (the systems share a few kernels, so one
    process compiles each once)."""
    from analysis.checks.curves import success_curves
    from analysis.checks.opposed import opposed_table
    from engines.system import registry

    for sid, system in registry().items():
        if system.checks.grid is not None:
            success_curves(sid, "mc", trials=64, seed=WARM_UP_SEED, progress=False)
        if system.checks.opposed is not None:
            opposed_table(sid, "mc", trials=64, seed=WARM_UP_SEED, progress=False)


def _build_groups() -> dict[str, tuple[str, Callable[[], None]]]:
    """name → (what the progress bar says, the function that compiles it), from the
    registry: the check kernels, then per system with combat rules its Monte Carlo
    kernel (which also serves campaign attrition) and its exact-duel helpers. The largest
    come first, so two workers finish close together."""
    from functools import partial

    from engines.system import registry

    combat = [sid for sid, s in registry().items() if s.combat is not None]
    found: dict[str, tuple[str, Callable[[], None]]] = {
        "checks": ("single and opposed checks", _checks)}
    found.update({sid: (f"{sid} combat", partial(_combat_mc, sid)) for sid in combat})
    found.update({f"{sid}_exact": (f"{sid} exact duels", partial(_combat_exact, sid))
                  for sid in combat})
    return found


def __getattr__(name: str):
    """``GROUPS`` is built from the registry on first use (importing the systems), so the
    warm path (:func:`is_warm`) imports no system and no numba."""
    if name == "GROUPS":
        globals()["GROUPS"] = _build_groups()
        return globals()["GROUPS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _groups() -> dict[str, tuple[str, Callable[[], None]]]:
    return sys.modules[__name__].GROUPS


def compile_group(name: str) -> tuple[str, float]:
    """Compile one group in this process; returns its name and the CPU seconds it took."""
    start = time.process_time()
    _groups()[name][1]()
    return name, time.process_time() - start


# ------------------------------------------------------------------ the stamp

def cache_dir() -> Path:
    """Where numba caches the engine kernels (``NUMBA_CACHE_DIR`` or the in-tree default)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else ENGINES / "__pycache__"


def fingerprint() -> str:
    """Hash of what numba's cache depends on: each engine source's size and mtime (numba's
    own key), the numba and Python versions, and this module's source."""
    from importlib.metadata import version

    h = hashlib.sha256()
    h.update(f"{sys.version}|{sys.platform}|numba {version('numba')}".encode())
    h.update(Path(__file__).read_bytes())
    for src in sorted(ENGINES.rglob("*.py")):
        st = src.stat()
        h.update(f"|{src.relative_to(ENGINES).as_posix()}:{st.st_size}:{st.st_mtime_ns}"
                 .encode())
    return h.hexdigest()


def clear_cache() -> int:
    """Remove numba's cached kernels of the engine sources (index ``.nbi`` and data
    ``.nbc`` files), so a full warm-up after a source change compiles everything afresh.

    numba keys a kernel's cache entry on its own source file only: a kernel whose inlined
    helper lives in another module would otherwise load its old compiled version after
    only the helper's file changed. Returns the number of files removed."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:  # numba mirrors each source folder's absolute path under NUMBA_CACHE_DIR
        roots = [Path(env) / ENGINES.resolve().relative_to(ENGINES.resolve().anchor)]
    else:
        roots = [ENGINES]
    removed = 0
    for root in roots:
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if path.suffix in (".nbi", ".nbc") and path.is_file():
                try:
                    path.unlink()
                    removed += 1
                except OSError:
                    pass
    return removed


def stamp_path() -> Path:
    return cache_dir() / STAMP_NAME


def is_warm() -> bool:
    """True when the stamp says every group was compiled from the current sources."""
    try:
        return stamp_path().read_text().strip() == fingerprint()
    except OSError:
        return False


def _write_stamp() -> None:
    path = stamp_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(fingerprint() + "\n")
        tmp.replace(path)
    except OSError:  # a read-only tree: numba falls back to its user-wide cache; no stamp
        pass


# ------------------------------------------------------------------ the driver

def warm_up(groups: list[str] | None = None, jobs: int = 2, force: bool = False,
            progress: bool = True) -> dict[str, float]:
    """Compile ``groups`` (default: all) in ``jobs`` worker processes.

    Returns CPU seconds per group compiled (empty when already warm). With ``force`` the
    stamp is ignored (numba still loads whatever its cache already holds).
    """
    from engines.errors import InputError

    if groups is None and not force and is_warm():
        return {}
    known = _groups()
    names = list(known) if groups is None else list(groups)
    unknown = [g for g in names if g not in known]
    if unknown:
        raise InputError(f"warm-up: unknown group {unknown[0]!r}; known: {', '.join(known)}")
    if int(jobs) < 1:
        raise InputError(f"warm-up: jobs must be a positive integer, got {jobs!r}")
    full = set(names) == set(known)
    if full and not force and is_warm():
        return {}
    if full and not force:  # the stamp does not match: the cache may be stale
        clear_cache()
    done: dict[str, float] = {}
    if int(jobs) == 1:
        for g in names:
            done.update([compile_group(g)])
    else:
        done = _parallel(names, int(jobs), progress)
    if full:
        _write_stamp()
    return done


def _parallel(names: list[str], jobs: int, progress: bool) -> dict[str, float]:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from tqdm.auto import tqdm

    # workers compile; their thread count does not change the compiled code
    env_before = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"
    done: dict[str, float] = {}
    try:
        with ProcessPoolExecutor(max_workers=min(jobs, len(names)),
                                 mp_context=mp.get_context("spawn")) as pool:
            pending = {pool.submit(compile_group, g): g for g in names}
            order = list(names)
            with tqdm(total=len(names), desc="compiling kernels", unit="group",
                      file=sys.stderr, disable=not progress, leave=False) as bar:
                while pending:
                    busy = [_groups()[g][0] for g in order if g not in done][:jobs]
                    bar.set_postfix_str(", ".join(busy), refresh=True)
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        g = pending.pop(fut)
                        done[g] = fut.result()[1]
                        bar.update(1)
    finally:
        if env_before is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = env_before
    return done
