"""Compile every numba kernel ahead of use: ``rpg-balance warm-up``.

Numba compiles a kernel the first time it is called and caches the machine code next to
the engine sources (``engines/__pycache__``, or ``NUMBA_CACHE_DIR``). On a fresh checkout
that first compile is most of the cost of a command. :func:`warm_up` compiles every kernel
group in worker processes (``spawn``; one group per task, two workers by default) by
calling the same public functions the report, the CLI and the tests call, with tiny trial
counts, so each kernel is compiled for exactly the argument types those callers pass. The
workers write numba's cache; every later process only loads it.

The groups cover every registered system, built-in or plug-in, through the documented
hooks only: what a system declares is compiled, what it does not (no opposed rule, an
opposed rule without a Monte Carlo check kernel, no combat, no ``duel_mc_end``) is
skipped with one line each (:func:`skipped`, the groups' own notes), which
:func:`warm_up` hands back in ``notes``.

A stamp file in the cache directory records what was compiled: the size and modification
time of every engine source (numba's own cache key), the numba and Python versions, this
module and the installed plug-ins' entry points. When the stamp matches, :func:`warm_up`
returns at once without importing numba (``is_warm``), so ``tasks.py report`` /
``tasks.py test`` can always call it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from engines.constants import WARM_UP_SEED

__all__ = [
    "ENGINES",
    "STAMP_NAME",
    "archetype_pair",
    "build_groups",
    "cache_dir",
    "clear_cache",
    "compile_checks",
    "compile_combat_exact",
    "compile_combat_mc",
    "compile_group",
    "fingerprint",
    "is_warm",
    "plugin_folders",
    "skipped",
    "stamp_path",
    "warm_up",
]

ENGINES = Path(__file__).resolve().parent.parent / "engines"
STAMP_NAME = "rpg-balance-warm-up.stamp"


# ------------------------------------------------------------------ kernel groups
# Each group runs in its own worker process. Calls go through the public wrappers so the
# argument types (int64 scalars, C-contiguous int64/uint64 arrays) are the callers' own.
# A group compiles what each system declares and nothing else: every call below is a
# hook of the documented plug-in contract, or an optional hook looked up first. A group
# returns the one-line notes of what it skipped (an optional hook a system does not give).


def archetype_pair(system: str, first: str | None = None, second: str | None = None):
    """``(combat engine module, fighter, opponent)`` of ``system``: two archetypes of its
    library by name (default: its first and last), what the combat groups duel with."""
    from analysis.combat import archetypes

    names = archetypes.names(system)
    a = archetypes.combatant(system, first or names[0])
    b = archetypes.combatant(system, second or names[-1])
    return archetypes.engine(system), a, b


def compile_combat_mc(system: str) -> list[str]:
    """The combat Monte Carlo kernel (``duel_mc``, the combat contract). Campaign
    attrition's optional ``duel_mc_end`` runs the same kernel with the same argument
    types, so this one compile serves both; a module without it gets the attrition's
    fallback (:mod:`engines.campaign_attrition`), which compiles nothing."""
    eng, a, b = archetype_pair(system)
    eng.duel_mc(a, b, trials=64, seed=WARM_UP_SEED)
    end = getattr(eng, "duel_mc_end", None)
    if end is None:
        return [
            f"{system}: no duel_mc_end in its combat module: campaign attrition's "
            "Monte Carlo draws each fight from the exact chain (nothing to compile)"
        ]
    end(a, b, 0, trials=64, seed=WARM_UP_SEED)
    return []


def compile_combat_exact(system: str) -> list[str]:
    """The exact duel chain and one-hit odds (``duel_exact``, ``one_hit``: numba helpers
    in some engines, e.g. middle_3d10's ``_half_step`` and percentile's ``success_level``)."""
    eng, a, b = archetype_pair(system)
    eng.duel_exact(a, b, round_cap=3)
    eng.one_hit(a, b)
    return []


def compile_checks() -> list[str]:
    """Every system's single-check and opposed-check Monte Carlo kernels, through the
    table functions the CLI and the report call (the systems share a few kernels, so one
    process compiles each once). What a system does not declare is skipped (see
    :func:`skipped`)."""
    from analysis.checks.curves import success_curves
    from analysis.checks.opposed import opposed_table
    from engines.system import registry

    for sid, system in registry().items():
        if system.checks.grid is not None:
            success_curves(sid, "mc", trials=64, seed=WARM_UP_SEED, progress=False)
        if system.checks.opposed is not None and system.checks.kernel is not None:
            opposed_table(sid, "mc", trials=64, seed=WARM_UP_SEED, progress=False)
    return []


def skipped() -> list[str]:
    """One line per kernel group a registered system does not declare, read off the
    registry (no engine module or numba is imported): no check grid (no single checks),
    no opposed-check rule, an opposed rule without a Monte Carlo check kernel (its
    opposed tables are exact only, so the opposed Monte Carlo is skipped), no combat, or
    combat without an archetype library (no fighters to compile the duels with)."""
    from engines.system import registry

    lines = []
    for sid, system in registry().items():
        if system.checks.grid is None:
            lines.append(f"{sid}: no check grid: its single checks skipped")
        if system.checks.opposed is None:
            lines.append(f"{sid}: no opposed-check rule: the opposed checks skipped")
        elif system.checks.kernel is None:
            lines.append(
                f"{sid}: no Monte Carlo check kernel: the opposed Monte Carlo "
                "skipped (its opposed tables are exact only)"
            )
        if system.combat is None:
            lines.append(f"{sid}: no combat: its combat kernels skipped")
        elif system.combat.archetypes is None:
            lines.append(f"{sid}: no archetype library: its combat kernels skipped")
    return lines


def build_groups() -> dict[str, tuple[str, Callable[[], list[str]]]]:
    """name → (what the progress bar says, the function that compiles it), from the
    registry: the check kernels, then per system with combat rules and an archetype
    library its Monte Carlo kernel (which also serves campaign attrition) and its
    exact-duel helpers. The largest come first, so two workers finish close together."""
    from functools import partial

    from engines.system import registry

    combat = [
        sid
        for sid, s in registry().items()
        if s.combat is not None and s.combat.archetypes is not None
    ]
    found: dict[str, tuple[str, Callable[[], list[str]]]] = {
        "checks": ("single and opposed checks", compile_checks)
    }
    found.update({sid: (f"{sid} combat", partial(compile_combat_mc, sid)) for sid in combat})
    found.update(
        {
            f"{sid}_exact": (f"{sid} exact duels", partial(compile_combat_exact, sid))
            for sid in combat
        }
    )
    return found


def __getattr__(name: str):
    """``GROUPS`` is built from the registry on first use (importing the systems), so the
    warm path (:func:`is_warm`) imports no system and no numba."""
    if name == "GROUPS":
        globals()["GROUPS"] = build_groups()
        return globals()["GROUPS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _groups() -> dict[str, tuple[str, Callable[[], list[str]]]]:
    return sys.modules[__name__].GROUPS


def compile_group(name: str) -> tuple[str, float, list[str]]:
    """Compile one group in this process; returns its name, the CPU seconds it took and
    the notes of what it skipped."""
    start = time.process_time()
    notes = _groups()[name][1]() or []
    return name, time.process_time() - start, list(notes)


# ------------------------------------------------------------------ the stamp


def cache_dir() -> Path:
    """Where numba caches the engine kernels (``NUMBA_CACHE_DIR`` or the in-tree default)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else ENGINES / "__pycache__"


def fingerprint() -> str:
    """Hash of what numba's cache depends on: each engine source's size and mtime (numba's
    own key), the numba and Python versions, and this module's source; and of the systems
    installed as plug-ins (each entry point of :data:`engines.system.ENTRY_POINT_GROUP`
    with its distribution's name and version), so installing or upgrading one makes the
    next warm-up compile its kernels too. Reads metadata only: no system is imported."""
    from importlib.metadata import entry_points, version

    from engines.system import ENTRY_POINT_GROUP

    h = hashlib.sha256()
    h.update(f"{sys.version}|{sys.platform}|numba {version('numba')}".encode())
    h.update(Path(__file__).read_bytes())
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = ep.dist
        h.update(
            f"|{ep.name}={ep.value}@{dist.name if dist else ''} "
            f"{dist.version if dist else ''}".encode()
        )
    for src in sorted(ENGINES.rglob("*.py")):
        st = src.stat()
        h.update(f"|{src.relative_to(ENGINES).as_posix()}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def plugin_folders() -> list[Path]:
    """The package folder of each system installed as a plug-in (the top-level package
    of its entry point), found without importing it."""
    from importlib.metadata import entry_points
    from importlib.util import find_spec

    from engines.system import ENTRY_POINT_GROUP

    found = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            spec = find_spec(ep.value.split(":")[0].split(".")[0])
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            found += [Path(p).resolve() for p in spec.submodule_search_locations]
    return sorted(set(found))


def clear_cache() -> int:
    """Remove numba's cached kernels of the engine sources (index ``.nbi`` and data
    ``.nbc`` files), so a full warm-up after a source change compiles everything afresh.

    numba keys a kernel's cache entry on its own source file only: a kernel whose inlined
    helper lives in another module would otherwise load its old compiled version after
    only the helper's file changed. The plug-ins' package folders (:func:`plugin_folders`)
    are cleared too: their kernels inline the engines' dice and fight helpers. Returns the
    number of files removed."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    folders = [ENGINES.resolve(), *plugin_folders()]
    # numba mirrors each source folder's absolute path under NUMBA_CACHE_DIR
    roots = [Path(env) / f.relative_to(f.anchor) for f in folders] if env else folders
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


def warm_up(
    groups: list[str] | None = None,
    jobs: int = 2,
    force: bool = False,
    progress: bool = True,
    notes: list[str] | None = None,
) -> dict[str, float]:
    """Compile ``groups`` (default: all) in ``jobs`` worker processes.

    Returns CPU seconds per group compiled (empty when already warm). With ``force`` the
    stamp is ignored (numba still loads whatever its cache already holds). ``notes``, when
    given, receives one line per thing skipped because a system does not declare it
    (:func:`skipped` on a full run, then each compiled group's own notes); nothing when
    already warm.
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
    said = skipped() if full else []
    done: dict[str, float] = {}
    if int(jobs) == 1:
        for g in names:
            name, seconds, more = compile_group(g)
            done[name] = seconds
            said += more
    else:
        done, more = _parallel(names, int(jobs), progress)
        said += more
    if full:
        _write_stamp()
    if notes is not None:
        notes.extend(said)
    return done


def _parallel(names: list[str], jobs: int, progress: bool) -> tuple[dict[str, float], list[str]]:
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from tqdm.auto import tqdm

    # workers compile; their thread count does not change the compiled code
    env_before = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"
    done: dict[str, float] = {}
    notes: dict[str, list[str]] = {}
    try:
        with ProcessPoolExecutor(
            max_workers=min(jobs, len(names)), mp_context=mp.get_context("spawn")
        ) as pool:
            pending = {pool.submit(compile_group, g): g for g in names}
            order = list(names)
            with tqdm(
                total=len(names),
                desc="compiling kernels",
                unit="group",
                file=sys.stderr,
                disable=not progress,
                leave=False,
            ) as bar:
                while pending:
                    busy = [_groups()[g][0] for g in order if g not in done][:jobs]
                    bar.set_postfix_str(", ".join(busy), refresh=True)
                    finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        g = pending.pop(fut)
                        _, done[g], notes[g] = fut.result()
                        bar.update(1)
    finally:
        if env_before is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = env_before
    return done, [line for g in names for line in notes.get(g, [])]
