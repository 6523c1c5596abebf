"""The conformance check: the properties every resolution system must have, written once.

:func:`check_system` takes a :class:`engines.system.System` (or its id) and runs every
check below that applies to it, through the same code paths the tables and commands use
(``analysis.checks.curves`` for the success curves, ``analysis.checks.opposed``,
``analysis.workflow`` for scenario files, the system's combat engine and archetype library,
``analysis.campaign``), so a plug-in and a built-in system are held to one standard. A
plug-in author pastes two lines into the package's own tests::

    from analysis.conformance import check_system
    def test_conforms(): check_system("my_system")

The checks, in the order they run (:data:`CHECKS`):

``grid``
    ``check_grid`` over every axis value (the native ``axes`` and the ``hidden_axes``)
    returns distinct roll ``settings``, an integer ``setting_of_cell`` naming one of them
    per cell, a ``bool[cells, codes]`` success mask and ``values[codes]`` (finite), and
    the code count equals the ``code_count`` hook (or the module's ``N_CODES``).
``exact``
    the exact distribution of every roll setting (``check_exact`` hook or the module's
    ``exact``) is ``[settings, codes]``, non-negative, and each row sums to 1 (1e-9).
``monte_carlo``
    the Monte Carlo counts (``check_mc``, the ``check_kernel`` on
    :func:`engines.checks.run`, or the module's ``monte_carlo``) are ``[settings, codes]``
    whole non-negative numbers, each row sums to the trials, the same seed gives the same
    counts, and every code of every setting, and P(success) of every grid cell, lies
    within ``5 * sqrt(p * (1 - p) / n) + 1 / n`` of the exact ``p`` (five binomial standard
    errors plus one count, for cells whose expected count is below one).
``variants``
    ``parse_variants`` of the defaults written as ``NAME=VALUE`` text gives back the
    default object; an unknown name, a value of the wrong type or outside the choices,
    and out-of-range numbers (±10⁶, −1) either pass or raise exactly one
    :class:`~engines.errors.InputError` — never another exception.
``ladder``
    where the system declares it: the competence rungs (``ladder``) never decrease
    untrained → master; along ``competence_axis`` P(success) never falls, and along
    ``difficulty_axis`` (its values easiest first) never rises, at every value of the other
    axes; with :class:`~engines.system.LadderRules`, P(success) of a higher rung at a fixed
    difficulty never falls, and of a harder difficulty at a fixed rung never rises.
``opposed``
    where the system declares an :class:`~engines.system.OpposedRule`: over its default
    opposed grid, each code has a comparable value, the tie rule gives a share in [0, 1],
    P(a wins) of the opposed table plus P(b wins) (ties by the share, or re-rolled) is 1,
    and, with a Monte Carlo kernel, the paired Monte Carlo P(a wins) lies within five
    standard errors plus ``1 / n`` of exact (the per-trial score's SD; re-rolled ties leave
    ``n * P(no tie)`` deciding trials).
``scenario``
    a scenario file with one ``[[checks]]`` entry for the system (its native axes, method
    ``both``) validates and runs; its table has a row per cell, its exact column equals
    the success curves', its Monte Carlo column lies in [0, 1].
``combat``
    where the system declares combat rules and an archetype library: the library names the
    five rungs; in a mirror duel (``competent`` vs ``competent``) and an uneven one
    (``novice`` vs ``competent``) the exact chain's outcomes (side 0, side 1, neither),
    its rounds and the loser's fates (dead, dying, out) each sum to 1; the mirror is even
    (|p_side0 − p_side1| ≤ 1e-9) unless the engine's optional ``initiative_first(a, b,
    variants)`` — P(``a`` acts before ``b``), a probability — differs from 1/2 for the
    mirror (the summary then says it is not asserted even); Monte Carlo ``p_side0``, ``p_side1`` and
    ``rounds_mean`` lie within five standard errors plus ``1 / n`` of the chain.
``campaign``
    where the system declares campaign mechanics: every mechanic of its ``MECHANICS`` at
    its defaults over :data:`SESSIONS` sessions: each session's exact distribution (and the
    first-passage row, when the mechanic has a threshold) sums to 1, and Monte Carlo
    matches the chain state by state within five standard errors plus ``1 / n``.

A check that does not apply is *skipped* with one sentence ("the system declares no combat
rules"); a check whose input a failed check computes (``exact`` needs ``grid``,
``monte_carlo`` needs ``exact``, ...) is skipped naming that check. Every applicable check
runs, so one call reports every failure: :func:`check_system` returns a
:class:`Conformance` record when all pass, and otherwise raises :class:`ConformanceError`
(an :class:`AssertionError`) naming the system, each failed check and its offending cell or
value, with the record in its ``report`` attribute. The default budget (:data:`TRIALS`
trials) keeps the whole check of one system to a few seconds once the kernels are compiled.

A ``System`` object that is not the registry's entry for its id (a plug-in not yet
installed, or a modified copy) stands in for that id while the check runs, since the
tables and scenario files name systems by id; the registry is restored afterwards.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from engines.errors import InputError
from engines.rng import Seed, normalize_seed
from engines.system import System, get, registry
from engines.variants import parse_variants

__all__ = ["CHECKS", "DUELS", "EXACT_TOL", "NEEDS", "RUNGS", "SCENARIO_TRIALS", "SEED", "SESSIONS",
           "TRIALS", "CheckResult", "Conformance", "ConformanceError", "check_system"]

#: Every check, in the order :func:`check_system` runs them, with what it verifies.
CHECKS: dict[str, str] = {
    "grid": "check_grid shapes, code count and values are consistent",
    "exact": "exact code distributions: one row per roll setting, each summing to 1",
    "monte_carlo": "Monte Carlo counts sum to the trials, repeat with the seed and agree "
                   "with exact per code and per cell (5 SE + 1/n)",
    "variants": "default variants round-trip through NAME=VALUE text; bad values raise "
                "InputError",
    "ladder": "P(success) never falls with competence nor rises with difficulty",
    "opposed": "opposed ties share in [0, 1], P(a wins) + P(b wins) = 1, Monte Carlo "
               "agrees with exact",
    "scenario": "a one-entry scenario file validates and runs",
    "combat": "duel outcomes and loser fates sum to 1, a mirror duel is even, Monte Carlo "
              "agrees with the exact chain",
    "campaign": "every mechanic's session distributions sum to 1 and Monte Carlo agrees "
                "with the chain",
}

#: Checks whose inputs another check computes: skipped when that one failed.
NEEDS: dict[str, tuple[str, ...]] = {
    "exact": ("grid",),
    "monte_carlo": ("grid", "exact"),
    "ladder": ("grid", "exact"),
    "opposed": ("grid", "exact"),
    "scenario": ("grid",),
}

#: Default Monte Carlo trials per roll setting, duel and campaign mechanic.
TRIALS = 20_000
#: Default seed: the checks draw from ``SeedSequence(seed, spawn_key=(check, part))``.
SEED = 20_240_601
#: Monte Carlo trials of the scenario run (it checks that the run works, not the kernel).
SCENARIO_TRIALS = 1_000
#: The duels of the combat check: a mirror on the ladder's anchor rung, and an uneven one.
DUELS = (("competent", "competent"), ("novice", "competent"))
#: Sessions each campaign mechanic runs in the campaign check.
SESSIONS = 10
#: The competence rungs, lowest first (every ladder and archetype library names them).
RUNGS = ("untrained", "novice", "competent", "expert", "master")
#: Slack for sums and monotone sequences of exact probabilities (rounding, not rules).
EXACT_TOL = 1e-9


@dataclass(frozen=True)
class CheckResult:
    """One check of one system: ``passed``, ``skipped`` or ``failed``, and in ``detail``
    what it measured, why it was skipped, or what is wrong."""

    check: str
    status: Literal["passed", "skipped", "failed"]
    detail: str
    seconds: float = 0.0


@dataclass(frozen=True)
class Conformance:
    """What :func:`check_system` checked: one :class:`CheckResult` per check asked for."""

    system: str
    results: tuple[CheckResult, ...]
    trials: int

    def _named(self, status: str) -> tuple[str, ...]:
        return tuple(r.check for r in self.results if r.status == status)

    @property
    def passed(self) -> tuple[str, ...]:
        return self._named("passed")

    @property
    def skipped(self) -> tuple[str, ...]:
        return self._named("skipped")

    @property
    def failed(self) -> tuple[str, ...]:
        return self._named("failed")

    def __getitem__(self, check: str) -> CheckResult:
        for r in self.results:
            if r.check == check:
                return r
        raise KeyError(check)

    def __str__(self) -> str:
        return "\n".join(f"{self.system}: {r.check}: {r.status}: {r.detail}"
                         for r in self.results)

    def to_frame(self) -> pd.DataFrame:
        """One row per check: ``system, check, status, detail, seconds``."""
        return pd.DataFrame([{"system": self.system, **dataclasses.asdict(r)}
                             for r in self.results])


class ConformanceError(AssertionError):
    """A system failed one or more checks; ``report`` is the whole :class:`Conformance`."""

    def __init__(self, report: Conformance):
        self.report = report
        failed = [r for r in report.results if r.status == "failed"]
        head = (f"{report.system} does not conform: {len(failed)} of {len(report.results)} "
                f"checks failed ({', '.join(r.check for r in failed)})")
        super().__init__("\n".join([head, *(f"  {report.system}: {r.check}: {r.detail}"
                                            for r in failed)]))


class _Skip(Exception):
    """The check does not apply; the message says why, in one sentence."""


def check_system(system: System | str, *, trials: int = TRIALS, seed: Seed = SEED,
                 checks: Iterable[str] | None = None) -> Conformance:
    """Run every conformance check that applies to ``system``.

    Parameters
    ----------
    system
        A :class:`engines.system.System`, or the id of an installed one.
    trials
        Monte Carlo trials per roll setting, per duel and per campaign mechanic.
    seed
        The root of every random stream: an int or a ``SeedSequence`` (None: fresh
        entropy, not reproducible).
    checks
        Names of :data:`CHECKS` to run (default: all of them).

    Returns
    -------
    Conformance
        The checks run, passed and skipped (each with the reason).

    Raises
    ------
    ConformanceError
        (an ``AssertionError``) when any check fails: its message names the system, every
        failed check and the offending cell or value.

    Examples
    --------
    >>> report = check_system("dice_pool_6", checks=["grid", "exact"])
    >>> report.passed
    ('grid', 'exact')
    """
    spec = get(system) if isinstance(system, str) else system
    if not isinstance(spec, System):
        raise InputError(f"check_system: expected a System or a system id, got "
                         f"{type(system).__name__}")
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    wanted = list(CHECKS) if checks is None else [str(c) for c in checks]
    unknown = [c for c in wanted if c not in CHECKS]
    if unknown:
        raise InputError(f"check {unknown[0]!r}: unknown; known: {', '.join(CHECKS)}")
    ctx = _Context(spec, trials, normalize_seed(seed))
    results: list[CheckResult] = []
    status: dict[str, str] = {}
    with _standing_in(spec):
        for name in CHECKS:
            if name not in wanted:
                continue
            start = time.perf_counter()
            broken = [n for n in NEEDS.get(name, ()) if status.get(n) == "failed"]
            if broken:
                result = ("skipped", f"needs {' and '.join(broken)}, which failed")
            else:
                try:
                    result = ("passed", _RUN[name](ctx))
                except _Skip as why:
                    result = ("skipped", str(why))
                except AssertionError as exc:
                    result = ("failed", str(exc))
                except Exception as exc:  # a hook that crashes fails its check
                    result = ("failed", f"raised {type(exc).__name__}: {exc} "
                                        f"({_raised_at(exc)})")
            status[name] = result[0]
            results.append(CheckResult(name, result[0], result[1],
                                       time.perf_counter() - start))
    report = Conformance(spec.id, tuple(results), trials)
    if report.failed:
        raise ConformanceError(report)
    return report


@contextmanager
def _standing_in(spec: System) -> Iterator[None]:
    """Run with ``spec`` as the registry's entry for its id, when it is not already.

    The tables, the scenario files and the archetype loader look systems up by id, so a
    System object checked before it is installed (or a modified copy of an installed one)
    takes the id's place for the duration of the check. The success-curve axes of
    :mod:`analysis.checks.curves` (read by the scenario validation) follow it.
    """
    from analysis.checks import curves
    from engines.system import registered

    if registry().get(spec.id) is spec:
        yield
        return
    missing = object()
    saved_axes = curves.AXES.get(spec.id, missing)
    curves.AXES[spec.id] = dict(spec.axes)
    try:
        with registered(spec):
            yield
    finally:
        if saved_axes is missing:
            curves.AXES.pop(spec.id, None)
        else:
            curves.AXES[spec.id] = saved_axes


# --------------------------------------------------------------------------------------
# What the checks share


def _raised_at(exc: BaseException) -> str:
    """Where an exception was raised: ``path:line in function`` (the innermost frame)."""
    import traceback
    from pathlib import Path

    frame = traceback.extract_tb(exc.__traceback__)[-1]
    path = Path(frame.filename)
    root = Path(__file__).resolve().parents[1]
    shown = path.relative_to(root) if path.is_relative_to(root) else path.name
    return f"at {shown}:{frame.lineno} in {frame.name}"


def _tolerance(p, n) -> np.ndarray:
    """Five binomial standard errors plus one count: ``5 * sqrt(p (1 - p) / n) + 1 / n``."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    return 5 * np.sqrt(p * (1 - p) / n) + 1 / n


def _worst(estimate, exact, tol) -> tuple[int, int] | None:
    """(flat index of the worst offender, number of offenders) of ``|estimate − exact| >
    tol``, or None when every entry is within its tolerance."""
    gap = np.abs(np.asarray(estimate, float) - np.asarray(exact, float))
    bad = gap > tol
    if not bad.any():
        return None
    ratio = np.where(bad, gap / np.maximum(tol, 1e-300), 0.0)
    return int(np.argmax(ratio)), int(bad.sum())


def _fmt(x) -> str:
    return f"{float(x):.6g}"


def _cell_text(cells: pd.DataFrame, i: int) -> str:
    return ", ".join(f"{k}={v}" for k, v in cells.iloc[i].items())


class _Context:
    """The system under check, its default variants, and what several checks share (each
    computed once, on first use)."""

    def __init__(self, spec: System, trials: int, seed: np.random.SeedSequence):
        self.spec = spec
        self.sid = spec.id
        self.trials = trials
        self._seed = seed
        self._cache: dict[str, Any] = {}

    def stream(self, check: str, part: int = 0) -> np.random.SeedSequence:
        """A fresh stream of its own for each (check, part): same arguments, same numbers."""
        key = (*self._seed.spawn_key, list(CHECKS).index(check), part)
        return np.random.SeedSequence(self._seed.entropy, spawn_key=key)

    def _once(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def variants(self):
        from analysis.checks.curves import variants_for

        return self._once("variants", lambda: variants_for(self.sid))

    @property
    def axes(self) -> dict[str, tuple]:
        """Every axis the check grid takes: the native ones, then the hidden ones."""
        return {**self.spec.axes, **self.spec.hidden_axes}

    @property
    def grid(self):
        """The success-curve grid over :attr:`axes` (:func:`analysis.checks.curves.build_grid`)."""
        from analysis.checks.curves import build_grid

        if self.spec.check_grid is None:
            raise _Skip("the system declares no check grid, so it has no success curves")
        return self._once("grid", lambda: build_grid(self.sid, self.variants,
                                                     dict(self.spec.hidden_axes)))

    @property
    def exact(self) -> np.ndarray:
        """Exact ``[settings, codes]`` (:func:`analysis.checks.curves.settings_exact`)."""
        from analysis.checks.curves import settings_exact

        g = self.grid
        return self._once("exact", lambda: settings_exact(self.sid, g.settings, self.variants,
                                                          g.mask.shape[1]))

    @property
    def p_cells(self) -> np.ndarray:
        """Exact P(success) of every grid cell."""
        g = self.grid
        return np.einsum("ij,ij->i", self.exact[g.setting_of_cell], g.mask)


# --------------------------------------------------------------------------------------
# The checks: each returns what it measured, calls _fail (an AssertionError) on a
# failure and raises _Skip when it does not apply. Explicit raises, not ``assert``: the
# check must hold under ``python -O`` too.


def _fail(message: str) -> NoReturn:
    raise AssertionError(message)


def _check_grid(ctx: _Context) -> str:
    spec, g = ctx.spec, ctx.grid
    for axis, values in ctx.axes.items():
        if len(values) == 0:
            _fail(f"axis {axis!r} has no values")
    cells = {name: g.cells[name].to_numpy() for name in g.cells.columns}
    out = spec.check_grid(cells, ctx.variants)
    if not isinstance(out, tuple) or len(out) != 4:
        _fail(f"check_grid returned a {type(out).__name__}; expected the tuple (settings, "
              "setting_of_cell, mask, values)")
    settings, of_cell, mask, values = (np.asarray(x) for x in out)
    n_cells = len(g.cells)
    if settings.ndim != 1 or settings.size == 0:
        _fail(f"settings: expected a non-empty 1-d array, got shape {settings.shape}")
    if len(set(settings.tolist())) != settings.size:
        _fail(f"settings repeat a value: {settings.tolist()}")
    if of_cell.shape != (n_cells,):
        _fail(f"setting_of_cell: expected one per cell, shape ({n_cells},), got "
              f"{of_cell.shape}")
    if of_cell.dtype.kind not in "iu":
        _fail(f"setting_of_cell: expected integers, got dtype {of_cell.dtype}")
    bad = (of_cell < 0) | (of_cell >= settings.size)
    if bad.any():
        i = int(np.argmax(bad))
        _fail(f"cell {_cell_text(g.cells, i)}: setting_of_cell {int(of_cell[i])} is not an "
              f"index of the {settings.size} settings")
    if mask.dtype != bool:
        _fail(f"mask: expected dtype bool, got {mask.dtype}")
    if mask.ndim != 2 or mask.shape[0] != n_cells or mask.shape[1] == 0:
        _fail(f"mask: expected shape ({n_cells}, codes), got {mask.shape}")
    n_codes = mask.shape[1]
    if values.shape != (n_codes,):
        _fail(f"values: expected one per code, shape ({n_codes},), got {values.shape}")
    if not np.isfinite(values.astype(float)).all():
        _fail("values: not all finite")
    if spec.code_count is not None:
        declared, source = int(spec.code_count(settings, ctx.variants)), "code_count"
    else:
        declared, source = getattr(spec.engine(), "N_CODES", n_codes), "the module's N_CODES"
    if declared != n_codes:
        _fail(f"the mask has {n_codes} codes, {source} says {declared}")
    shown = ", ".join(f"{k} ({len(v)})" for k, v in ctx.axes.items())
    return f"{n_cells} cells over {shown}: {settings.size} roll settings × {n_codes} codes"


def _check_exact(ctx: _Context) -> str:
    g, probs = ctx.grid, ctx.exact
    n_codes = g.mask.shape[1]
    if probs.shape != (g.settings.size, n_codes):
        _fail(f"expected shape ({g.settings.size}, {n_codes}) (settings × codes), got "
              f"{probs.shape}")
    if not np.isfinite(probs).all():
        _fail("the exact distribution is not all finite")
    low = probs < -EXACT_TOL
    if low.any():
        i, j = np.argwhere(low)[0]
        _fail(f"setting {g.settings.tolist()[i]!r}, code {j}: probability {_fmt(probs[i, j])} is "
              "negative")
    sums = probs.sum(axis=1)
    gap = np.abs(sums - 1)
    if (gap > EXACT_TOL).any():
        i = int(np.argmax(gap))
        _fail(f"setting {g.settings.tolist()[i]!r}: the exact row sums to {sums[i]:.12g}, not 1 "
              f"({int((gap > EXACT_TOL).sum())} of {sums.size} rows off by more than "
              f"{EXACT_TOL:g})")
    return (f"{sums.size} rows × {n_codes} codes, each summing to 1 (largest gap "
            f"{gap.max():.1e})")


def _off(what: str, est, p, tol, n: int, outside: int, total: int, unit: str) -> str:
    """The failure sentence of a Monte Carlo estimate outside its tolerance."""
    return (f"{what}: Monte Carlo {_fmt(est)} vs exact {_fmt(p)}, off by {abs(est - p):.2e} "
            f"> 5 SE + 1/n = {float(tol):.2e} (n = {n}; {outside} of {total} {unit} "
            "outside)")


def _check_monte_carlo(ctx: _Context) -> str:
    from analysis.checks.curves import settings_mc

    g, probs, n = ctx.grid, ctx.exact, ctx.trials
    n_codes = g.mask.shape[1]

    def run():
        return np.asarray(settings_mc(ctx.sid, g.settings, ctx.variants, n_codes, n,
                                      ctx.stream("monte_carlo")))

    counts = run()
    if counts.shape != probs.shape:
        _fail(f"expected counts of shape {probs.shape} (settings × codes), got "
              f"{counts.shape}")
    if not np.isfinite(counts).all() or (counts != np.round(counts)).any():
        _fail("counts: not all whole numbers")
    if (counts < 0).any():
        _fail("counts: a negative count")
    rows = counts.sum(axis=1)
    if (rows != n).any():
        i = int(np.argmax(rows != n))
        _fail(f"setting {g.settings.tolist()[i]!r}: the counts sum to {int(rows[i])}, not the {n} "
              "trials")
    if not np.array_equal(run(), counts):
        _fail("the same seed gave different counts")
    tol = _tolerance(probs, n)
    found = _worst(counts / n, probs, tol)
    if found is not None:
        at, k = found
        i, j = np.unravel_index(at, probs.shape)
        _fail(_off(f"setting {g.settings.tolist()[i]!r}, code {j} (value {_fmt(g.values[j])})",
                   counts[i, j] / n, probs[i, j], tol[i, j], n, k, probs.size, "codes"))
    p_cells = ctx.p_cells
    p_mc = np.einsum("ij,ij->i", counts[g.setting_of_cell], g.mask) / n
    tol = _tolerance(p_cells, n)
    found = _worst(p_mc, p_cells, tol)
    if found is not None:
        i, k = found
        _fail(_off(f"cell {_cell_text(g.cells, i)}: P(success)", p_mc[i], p_cells[i], tol[i],
                   n, k, p_mc.size, "cells"))
    return (f"{n} trials × {g.settings.size} settings: every code and all {p_mc.size} cells "
            "within 5 SE + 1/n; same seed, same counts")


def _text(value: Any) -> str:
    """A variant value as NAME=VALUE text writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _probes(f: dataclasses.Field) -> list[tuple[str, bool]]:
    """(bad text, whether it must be refused) for one variant field: text of the wrong
    kind must raise InputError; numbers out of any sensible range may pass or raise
    InputError, nothing else."""
    default, choices = f.default, f.metadata.get("choices")
    if isinstance(default, bool):
        return [("maybe", True)]
    out: list[tuple[str, bool]] = []
    if choices is not None:
        out.append(("not-a-choice", True))
    numeric = choices is not None and all(isinstance(c, int) for c in choices
                                          if c is not None)
    if isinstance(default, int) or numeric:
        if choices is None:
            out.append(("not-a-number", True))
        out += [("-1", False), ("-1000000", False), ("1000000", False)]
    return out


def _check_variants(ctx: _Context) -> str:
    cls = ctx.spec.variants
    if not dataclasses.is_dataclass(cls):
        _fail(f"Variants: expected a dataclass of engines.variants.variant fields, got "
              f"{cls!r}")
    fields = dataclasses.fields(cls)
    default = cls()
    if parse_variants(cls, None) != default:
        _fail("parse_variants(Variants) without values differs from Variants()")
    texts = [f"{f.name}={_text(getattr(default, f.name))}" for f in fields]
    back = parse_variants(cls, texts)
    changed = [f"{f.name}: {getattr(default, f.name)!r} → {getattr(back, f.name)!r}"
               for f in fields if getattr(back, f.name) != getattr(default, f.name)]
    if changed:
        _fail(f"the defaults written as {' '.join(texts)} parse back changed: "
              + "; ".join(changed))
    probes = [("no_such_variant=1", True)] + [
        (f"{f.name}={bad}", refuse) for f in fields for bad, refuse in _probes(f)]
    for text, must_refuse in probes:
        try:
            parse_variants(cls, [text])
        except InputError:
            continue
        except Exception as exc:
            _fail(f"variant {text}: raised {type(exc).__name__} ({exc}); expected one "
                  "engines.errors.InputError")
        if must_refuse:
            _fail(f"variant {text}: accepted; expected an InputError")
    return (f"{len(fields)} variants round-trip as {' '.join(texts) or '(none)'}; "
            f"{len(probes)} bad values raise InputError or pass")


def _monotone(p: np.ndarray, axis: int, rising: bool) -> tuple[tuple, float, float] | None:
    """The first step along ``axis`` where ``p`` falls (``rising``) or rises, as (index of
    the step's start, value before, value after), or None."""
    step = np.diff(p, axis=axis)
    bad = step < -EXACT_TOL if rising else step > EXACT_TOL
    if not bad.any():
        return None
    at = tuple(int(x) for x in np.argwhere(bad)[0])
    after = list(at)
    after[axis] += 1
    return at, float(p[at]), float(p[tuple(after)])


def _check_ladder(ctx: _Context) -> str:
    spec, done = ctx.spec, []
    if spec.ladder:
        rungs = [r for r in RUNGS if r in spec.ladder]
        values = [spec.ladder[r] for r in rungs]
        for (r1, x), (r2, y) in itertools.pairwise(zip(rungs, values, strict=True)):
            if y < x:
                _fail(f"ladder: rung {r2} ({y}) is below rung {r1} ({x})")
        done.append(f"rungs {values}")
    axes = ctx.axes
    if spec.competence_axis is not None or spec.difficulty_axis is not None:
        p = ctx.p_cells.reshape([len(v) for v in axes.values()])
        names = list(axes)
        for axis, rising in ((spec.competence_axis, True), (spec.difficulty_axis, False)):
            if axis is None:
                continue
            k = names.index(axis)
            found = _monotone(p, k, rising)
            if found is not None:
                at, before, after = found
                held = ", ".join(f"{n}={axes[n][i]}" for n, i in zip(names, at, strict=True)
                                 if n != axis)
                _fail(f"{'competence' if rising else 'difficulty'} axis {axis!r}: "
                      f"{axes[axis][at[k]]} → {axes[axis][at[k] + 1]} at "
                      f"{held or 'the only cell'}: P(success) "
                      f"{'falls' if rising else 'rises'} from {_fmt(before)} to "
                      f"{_fmt(after)}")
            done.append(f"P(success) {'never falls' if rising else 'never rises'} along "
                        f"{axis!r}")
    if spec.ladder_rules is not None and spec.ladder:
        done.append(_ladder_rules(ctx, spec.ladder_rules))
    if not done:
        raise _Skip("the system declares no ladder mapping (competence or difficulty axis, "
                    "rungs, LadderRules)")
    return "; ".join(done)


def _ladder_rules(ctx: _Context, rules) -> str:
    """LadderRules.p over the rungs × the difficulties (all of ``difficulty_range``, or
    the common ladder file's difficulty rungs for a system whose difficulty is a table)."""
    spec = ctx.spec
    rungs = [r for r in RUNGS if r in spec.ladder]
    comps = [spec.ladder[r] for r in rungs]
    lo, hi = rules.competence_range
    for r, c in zip(rungs, comps, strict=True):
        if not lo <= c <= hi:
            _fail(f"ladder: rung {r} ({c}) is outside LadderRules.competence_range "
                  f"{lo}..{hi}")
    if rules.difficulty_range is not None:
        dlo, dhi = rules.difficulty_range
        diffs = list(range(dlo, dhi + 1))
        if rules.harder < 0:
            diffs.reverse()
    else:
        from analysis.checks.ladders import load_ladders

        lad = load_ladders()
        mapped = lad.systems.get(spec.id)
        if mapped is None:
            return (f"LadderRules: rungs only (difficulty is not a number and the common "
                    f"ladder file does not map {spec.id})")
        diffs = [mapped.difficulty[d] for d in lad.difficulty]
    p = np.array([[rules.p(c, d, ctx.variants) for d in diffs] for c in comps], dtype=float)
    for axis, rising in ((0, True), (1, False)):
        found = _monotone(p, axis, rising)
        if found is not None:
            (i, j), before, after = found
            was = rules.labels(comps[i], diffs[j])
            if axis == 0:
                now = rules.labels(comps[i + 1], diffs[j])
                step = f"rung {rungs[i]} ({was[0]}) → {rungs[i + 1]} ({now[0]}) at {was[1]}"
            else:
                now = rules.labels(comps[i], diffs[j + 1])
                step = f"{was[1]} → {now[1]} at rung {rungs[i]} ({was[0]})"
            _fail(f"LadderRules.p: {step}: P(success) {'falls' if rising else 'rises'} from "
                  f"{_fmt(before)} to {_fmt(after)}")
    return f"LadderRules.p monotone over {len(comps)} rungs × {len(diffs)} difficulties"


def _check_opposed(ctx: _Context) -> str:
    from analysis.checks import opposed

    spec, v = ctx.spec, ctx.variants
    rule = spec.opposed_rule
    if rule is None:
        raise _Skip("the system declares no opposed-check rule")
    grid = opposed.build_grid(ctx.sid, v)
    nc = grid.n_codes
    joint = opposed.opposed_exact_joint(ctx.sid, v, grid)
    table = opposed.opposed_table(ctx.sid, "exact", variants=v)
    if len(table) != len(grid.cells):
        _fail(f"the opposed table has {len(table)} rows for {len(grid.cells)} cells")
    p_a = table["p"].to_numpy()
    records = grid.cells.to_dict("records")
    shares = np.empty(len(records))
    rerolls = np.zeros(len(records), dtype=bool)
    wtl = np.empty((len(records), 3))
    for i, cell in enumerate(records):
        where = ", ".join(f"{k}={x}" for k, x in cell.items())
        va = np.asarray(rule.values(cell, "a", v, nc), dtype=float)
        vb = np.asarray(rule.values(cell, "b", v, nc), dtype=float)
        if va.shape != (nc,) or vb.shape != (nc,):
            _fail(f"cell {where}: OpposedRule.values gives shapes {va.shape} / {vb.shape}, "
                  f"expected one value per code ({nc},)")
        share, reroll = rule.tie(cell, v)
        if not 0.0 <= float(share) <= 1.0:
            _fail(f"cell {where}: OpposedRule.tie gives side a {share!r} of the ties, "
                  "outside [0, 1]")
        if not isinstance(reroll, bool | np.bool_):
            _fail(f"cell {where}: OpposedRule.tie's re-roll flag is {reroll!r}, not "
                  "true/false")
        j = joint[grid.pair_of_cell[i]].reshape(nc, nc)
        diff = va[:, None] - vb[None, :]
        w, t, l_ = j[diff > 0].sum(), j[diff == 0].sum(), j[diff < 0].sum()
        if abs(w + t + l_ - 1) > EXACT_TOL:
            _fail(f"cell {where}: P(a higher) + P(tie) + P(b higher) = {w + t + l_:.12g}, "
                  "not 1")
        # ties re-rolled until one side wins, or shared by the tie rule
        p_b = (l_ / (w + l_) if w + l_ > 0 else 0.5) if reroll else l_ + (1 - share) * t
        if not 0.0 <= p_a[i] <= 1.0 or abs(p_a[i] + p_b - 1) > EXACT_TOL:
            _fail(f"cell {where}: P(a wins) {_fmt(p_a[i])} + P(b wins) {_fmt(p_b)} = "
                  f"{p_a[i] + p_b:.12g}, not 1 (tie share {share}, re-roll {bool(reroll)})")
        shares[i], rerolls[i], wtl[i] = share, bool(reroll), (w, t, l_)
    done = (f"{len(records)} cells: tie shares in [0, 1], P(a wins) + P(b wins) = 1 "
            f"({int(rerolls.sum())} with re-rolled ties)")
    if spec.check_kernel is None:
        return done + "; no Monte Carlo kernel declared, so no paired Monte Carlo"
    n = ctx.trials
    both = opposed.opposed_table(ctx.sid, "both", trials=n, seed=ctx.stream("opposed"),
                                 variants=v)
    p, p_mc = both["p_exact"].to_numpy(), both["p_mc"].to_numpy()
    w, t = wtl[:, 0], wtl[:, 1]
    # SD of one trial's score: a tie scores the share (variance W + share² T − p²), or is
    # re-rolled (Bernoulli p over the n (1 − T) trials that decide)
    decided = np.where(rerolls, n * np.maximum(1 - t, 0.0), float(n))
    var = np.where(rerolls, p * (1 - p), np.maximum(w + shares**2 * t - p**2, 0.0))
    tol = 5 * np.sqrt(var / np.maximum(decided, 1.0)) + 1 / n
    found = _worst(p_mc, p, tol)
    if found is not None:
        i, k = found
        _fail(_off(f"cell {_cell_text(grid.cells, i)}: P(a wins)", p_mc[i], p[i], tol[i], n,
                   k, p.size, "cells"))
    return done + f"; paired Monte Carlo ({n} trials) within 5 SE + 1/n in every cell"


def _check_scenario(ctx: _Context) -> str:
    from analysis.checks.curves import success_curves
    from analysis.workflow.run import run_scenario
    from analysis.workflow.scenario import parse_scenario

    if ctx.spec.check_grid is None:
        raise _Skip("the system declares no check grid, so a scenario has no checks to run")
    seed = int(ctx.stream("scenario").generate_state(1, np.uint64)[0] >> np.uint64(1))
    text = (f'name = "conformance of {ctx.sid}"\nsystem = "{ctx.sid}"\nmethod = "both"\n'
            f"seed = {seed}\n\n[precision]\ntrials = {SCENARIO_TRIALS}\n\n"
            '[[checks]]\nname = "curves"\n')
    sc = parse_scenario(tomllib.loads(text), f"<conformance {ctx.sid}>")
    table = run_scenario(sc, progress=False).tables.get("checks")
    if table is None:
        _fail("the run gave no checks table")
    names = list(ctx.spec.axes)
    want = success_curves(ctx.sid, "exact", variants=ctx.variants)
    if len(table) != len(want):
        _fail(f"the checks table has {len(table)} rows; the native axes have {len(want)} "
              "cells")
    missing = [c for c in (*names, "p_exact", "p_mc", "se") if c not in table]
    if missing:
        _fail(f"the checks table has no column {missing[0]!r}")
    got = table.set_index(names)
    exact = want.set_index(names)["p"].reindex(got.index).to_numpy()
    gap = np.abs(got["p_exact"].to_numpy() - exact)
    if not (gap <= 1e-12).all():  # NaN (a cell the curves lack) fails too
        i = int(np.argmax(np.where(np.isnan(gap), np.inf, gap)))
        cell = ", ".join(f"{k}={x}" for k, x in zip(names, got.index[i], strict=True))
        _fail(f"cell {cell}: the scenario's p_exact {_fmt(got['p_exact'].iloc[i])} differs "
              f"from the success curves' {_fmt(exact[i])}")
    p_mc = got["p_mc"].to_numpy()
    if not ((p_mc >= 0) & (p_mc <= 1)).all():
        _fail("the scenario's p_mc leaves [0, 1]")
    if (got["se"].to_numpy() < 0).any():
        _fail("the scenario's se is negative")
    return (f"a one-entry scenario (method both, {SCENARIO_TRIALS} trials) ran: "
            f"{len(table)} rows, exact column equal to the success curves'")


def _check_duel(ctx: _Context, mod, cv, k: int, an: str, bn: str) -> str:
    """One duel of the combat check (see the module docstring); returns its summary."""
    from analysis.combat import archetypes

    duel, n = f"{an} vs {bn}", ctx.trials
    a, b = archetypes.combatant(ctx.sid, an), archetypes.combatant(ctx.sid, bn)
    ex = mod.duel_exact(a, b, variants=cv)
    if not ex.exact:
        _fail(f"{duel}: duel_exact returned Monte Carlo counts")
    p = ex.p_outcome()
    if ((p < -EXACT_TOL) | (p > 1 + EXACT_TOL)).any() or abs(p.sum() - 1) > EXACT_TOL:
        _fail(f"{duel}: exact P(side0, side1, neither) = {p.round(12).tolist()} sums to "
              f"{p.sum():.12g}, not 1")
    rounds = ex.rounds_pmf()
    if abs(rounds.sum() - 1) > EXACT_TOL:
        _fail(f"{duel}: the exact rounds distribution sums to {rounds.sum():.12g}, not 1")
    fates, _ = ex.p_loser_fates()
    if p[:2].sum() > 0 and abs(fates.sum() - 1) > EXACT_TOL:
        _fail(f"{duel}: the loser's fates (dead, dying, out) = {fates.round(12).tolist()} "
              f"sum to {fates.sum():.12g}, not 1")
    note = ""
    if an == bn:
        first = getattr(mod, "initiative_first", None)
        q = 0.5 if first is None else float(first(a, b, cv))
        if abs(q - 0.5) > EXACT_TOL:
            note = f" (not asserted even: initiative_first gives side 0 P = {q:.4g})"
        elif abs(p[0] - p[1]) > EXACT_TOL:
            _fail(f"{duel} (a mirror): exact p_side0 {_fmt(p[0])} ≠ p_side1 {_fmt(p[1])}")
        else:
            note = " (even)"
    mc = mod.duel_mc(a, b, n, ctx.stream("combat", k), cv)
    if mc.trials != n or int(mc.outcome.sum()) != n:
        _fail(f"{duel}: Monte Carlo counts {int(mc.outcome.sum())} fights for {n} trials")
    p_mc = mc.p_outcome()
    steps = np.arange(rounds.size)
    mean = float(rounds @ steps)
    sd = math.sqrt(max(float(rounds @ steps**2) - mean**2, 0.0))
    mean_mc = float(mc.rounds_pmf() @ np.arange(mc.rounds.shape[0]))
    for metric, est, want, tol in (
            ("p_side0", p_mc[0], p[0], float(_tolerance(p[0], n))),
            ("p_side1", p_mc[1], p[1], float(_tolerance(p[1], n))),
            ("rounds_mean", mean_mc, mean, 5 * sd / math.sqrt(n) + 1 / n)):
        if abs(est - want) > tol:
            _fail(f"{duel}: Monte Carlo {metric} {_fmt(est)} vs exact {_fmt(want)}, off by "
                  f"{abs(est - want):.2e} > 5 SE + 1/n = {tol:.2e} (n = {n})")
    if p_mc[:2].sum() > 0:
        fates_mc, _ = mc.p_loser_fates()
        if abs(fates_mc.sum() - 1) > EXACT_TOL:
            _fail(f"{duel}: Monte Carlo loser fates sum to {fates_mc.sum():.12g}, not 1")
    return f"{duel}{note}: p_side0 {p[0]:.4f} (MC {p_mc[0]:.4f})"


def _check_combat(ctx: _Context) -> str:
    from analysis.combat import archetypes

    spec = ctx.spec
    if not spec.has_combat:
        raise _Skip("the system declares no combat rules")
    if spec.archetype_library is None:
        raise _Skip("the system declares combat rules but no archetype library, so there is "
                    "no duel by name")
    mod = spec.combat_engine()
    cls = getattr(mod, "Variants", None)
    cv = cls() if cls is not None else None
    names = archetypes.library(ctx.sid)
    missing = [r for r in RUNGS if r not in names]
    if missing:
        _fail(f"the archetype library has no rung {missing[0]!r}")
    done = [_check_duel(ctx, mod, cv, k, an, bn) for k, (an, bn) in enumerate(DUELS)]
    return "; ".join(done) + f"; Monte Carlo {ctx.trials} fights each, within 5 SE + 1/n"


def _check_mechanic(ctx: _Context, k: int, name: str, mech) -> None:
    """One mechanic of the campaign check (see the module docstring)."""
    from analysis import campaign

    n = ctx.trials
    out = campaign.run(ctx.sid, name, sessions=SESSIONS, method="both", trials=n,
                       seed=ctx.stream("campaign", k))
    ex, mc = out["exact"], out["mc"]
    pmf = ex.pmf()
    if pmf.shape != (SESSIONS + 1, ex.values.size):
        _fail(f"{name}: the exact distribution has shape {pmf.shape}, expected "
              f"({SESSIONS + 1}, {ex.values.size})")
    if (pmf < -EXACT_TOL).any():
        _fail(f"{name}: a negative exact probability")
    sums = pmf.sum(axis=1)
    if (np.abs(sums - 1) > EXACT_TOL).any():
        s = int(np.argmax(np.abs(sums - 1)))
        _fail(f"{name}: session {s}: the exact distribution sums to {sums[s]:.12g}, not 1")
    rows = mc.dist.sum(axis=1)
    if mc.trials != n or (rows != n).any():
        _fail(f"{name}: Monte Carlo session rows sum to {sorted(set(rows.tolist()))}, not "
              f"the {n} trials")
    tol = _tolerance(pmf, n)
    found = _worst(mc.dist / n, pmf, tol)
    if found is not None:
        at, bad = found
        s, j = np.unravel_index(at, pmf.shape)
        _fail(_off(f"{name}: session {s}, {mech.state} {ex.values[j]}", mc.dist[s, j] / n,
                   pmf[s, j], tol[s, j], n, bad, pmf.size, "states"))
    if ex.passage is None:
        return
    pas = ex.passage_pmf()
    if abs(pas.sum() - 1) > EXACT_TOL:
        _fail(f"{name}: the exact first-passage row sums to {pas.sum():.12g}, not 1")
    if mc.passage is None or int(mc.passage.sum()) != n:
        _fail(f"{name}: the Monte Carlo first-passage row does not count the {n} trials")
    tol = _tolerance(pas, n)
    found = _worst(mc.passage / n, pas, tol)
    if found is not None:
        at, bad = found
        where = (f"first passage by session {at}" if at < pas.size - 1
                 else "first passage: not by the last session")
        _fail(_off(f"{name}: {where}", mc.passage[at] / n, pas[at], tol[at], n, bad,
                   pas.size, "sessions"))


def _check_campaign(ctx: _Context) -> str:
    spec = ctx.spec
    if not spec.has_campaign:
        raise _Skip("the system declares no campaign mechanics")
    mechanics = spec.campaign_engine().MECHANICS
    if not mechanics:
        _fail("MECHANICS is empty")
    for k, (name, mech) in enumerate(mechanics.items()):
        _check_mechanic(ctx, k, name, mech)
    return (f"{len(mechanics)} mechanics at their defaults ({', '.join(mechanics)}), "
            f"{SESSIONS} sessions: distributions sum to 1, Monte Carlo ({ctx.trials}) within "
            "5 SE + 1/n")


_RUN: dict[str, Callable[[_Context], str]] = {
    "grid": _check_grid,
    "exact": _check_exact,
    "monte_carlo": _check_monte_carlo,
    "variants": _check_variants,
    "ladder": _check_ladder,
    "opposed": _check_opposed,
    "scenario": _check_scenario,
    "combat": _check_combat,
    "campaign": _check_campaign,
}
