"""What the conformance checks share: the check names, budgets and tolerances, the result
records, the context a check reads (the system under check, its grid and exact
distributions, each computed once) and the helpers that word a failure."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, NoReturn

import numpy as np
import pandas as pd

from engines.system import System, registered, registry

__all__ = [
    "CHECKS",
    "DUELS",
    "EXACT_TOL",
    "NEEDS",
    "RUNGS",
    "SCENARIO_TRIALS",
    "SEED",
    "SESSIONS",
    "STREAMS",
    "TRIALS",
    "CheckResult",
    "Conformance",
    "ConformanceError",
    "Context",
    "Skip",
    "cell_text",
    "fail",
    "fmt",
    "monotone",
    "off",
    "raised_at",
    "standing_in",
    "tolerance",
    "worst",
]

#: Every check, in the order :func:`analysis.conformance.check_system` runs them, with
#: what it verifies.
CHECKS: dict[str, str] = {
    "grid": "check_grid shapes, code count and values are consistent",
    "neutral": "every axis but the ladder's competence and difficulty axes declares the "
    "neutral value other commands hold it at",
    "exact": "exact code distributions: one row per roll setting, each summing to 1",
    "monte_carlo": "Monte Carlo counts sum to the trials, repeat with the seed and agree "
    "with exact per code and per cell (5 SE + 1/n)",
    "variants": "default variants round-trip through NAME=VALUE text; bad values raise InputError",
    "ladder": "P(success) never falls with competence nor rises with difficulty (or the "
    "weaker property of a declared exception)",
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

#: The random stream of each check: its place here (a check added later goes last, so
#: the streams of the others never move).
STREAMS = (
    "grid",
    "exact",
    "monte_carlo",
    "variants",
    "ladder",
    "opposed",
    "scenario",
    "combat",
    "campaign",
    "neutral",
)

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
        return "\n".join(f"{self.system}: {r.check}: {r.status}: {r.detail}" for r in self.results)

    def to_frame(self) -> pd.DataFrame:
        """One row per check: ``system, check, status, detail, seconds``."""
        return pd.DataFrame(
            [{"system": self.system, **dataclasses.asdict(r)} for r in self.results]
        )


class ConformanceError(AssertionError):
    """A system failed one or more checks; ``report`` is the whole :class:`Conformance`."""

    def __init__(self, report: Conformance):
        self.report = report
        failed = [r for r in report.results if r.status == "failed"]
        head = (
            f"{report.system} does not conform: {len(failed)} of {len(report.results)} "
            f"checks failed ({', '.join(r.check for r in failed)})"
        )
        super().__init__(
            "\n".join([head, *(f"  {report.system}: {r.check}: {r.detail}" for r in failed)])
        )


class Skip(Exception):
    """The check does not apply; the message says why, in one sentence."""


@contextmanager
def standing_in(spec: System) -> Iterator[None]:
    """Run with ``spec`` as the registry's entry for its id, when it is not already.

    The tables, the scenario files and the archetype loader look systems up by id, so a
    System object checked before it is installed (or a modified copy of an installed one)
    takes the id's place for the duration of the check. The success-curve axes of
    :mod:`analysis.checks.curves` (read by the scenario validation) follow the registry
    (:class:`analysis.checks.curves.SystemMap`).
    """
    if registry().get(spec.id) is spec:
        yield
        return
    with registered(spec):
        yield


# --------------------------------------------------------------------------------------
# What the checks share


def raised_at(exc: BaseException) -> str:
    """Where an exception was raised: ``path:line in function`` (the innermost frame)."""
    import traceback
    from pathlib import Path

    frame = traceback.extract_tb(exc.__traceback__)[-1]
    path = Path(frame.filename)
    root = Path(__file__).resolve().parents[2]
    shown = path.relative_to(root) if path.is_relative_to(root) else path.name
    return f"at {shown}:{frame.lineno} in {frame.name}"


def tolerance(p, n) -> np.ndarray:
    """Five binomial standard errors plus one count: ``5 * sqrt(p (1 - p) / n) + 1 / n``."""
    p = np.clip(np.asarray(p, dtype=float), 0.0, 1.0)
    return 5 * np.sqrt(p * (1 - p) / n) + 1 / n


def worst(estimate, exact, tol) -> tuple[int, int] | None:
    """(flat index of the worst offender, number of offenders) of ``|estimate − exact| >
    tol``, or None when every entry is within its tolerance."""
    gap = np.abs(np.asarray(estimate, float) - np.asarray(exact, float))
    bad = gap > tol
    if not bad.any():
        return None
    ratio = np.where(bad, gap / np.maximum(tol, 1e-300), 0.0)
    return int(np.argmax(ratio)), int(bad.sum())


def fmt(x) -> str:
    return f"{float(x):.6g}"


def cell_text(cells: pd.DataFrame, i: int) -> str:
    return ", ".join(f"{k}={v}" for k, v in cells.iloc[i].items())


class Context:
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
        key = (*self._seed.spawn_key, STREAMS.index(check), part)
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
        return dict(self.spec.checks.all_axes)

    @property
    def grid(self):
        """The success-curve grid over :attr:`axes` (:func:`analysis.checks.curves.build_grid`)."""
        from analysis.checks.curves import build_grid

        if self.spec.checks.grid is None:
            raise Skip("the system declares no check grid, so it has no success curves")
        return self._once(
            "grid", lambda: build_grid(self.sid, self.variants, dict(self.spec.checks.hidden_axes))
        )

    @property
    def exact(self) -> np.ndarray:
        """Exact ``[settings, codes]`` (:func:`analysis.checks.curves.settings_exact`)."""
        from analysis.checks.curves import settings_exact

        g = self.grid
        return self._once(
            "exact", lambda: settings_exact(self.sid, g.settings, self.variants, g.mask.shape[1])
        )

    @property
    def p_cells(self) -> np.ndarray:
        """Exact P(success) of every grid cell."""
        g = self.grid
        return np.einsum("ij,ij->i", self.exact[g.setting_of_cell], g.mask)


# --------------------------------------------------------------------------------------
# The checks: each returns what it measured, calls _fail (an AssertionError) on a
# failure and raises Skip when it does not apply. Explicit raises, not ``assert``: the
# check must hold under ``python -O`` too.


def fail(message: str) -> NoReturn:
    raise AssertionError(message)


def off(what: str, est, p, tol, n: int, outside: int, total: int, unit: str) -> str:
    """The failure sentence of a Monte Carlo estimate outside its tolerance."""
    return (
        f"{what}: Monte Carlo {fmt(est)} vs exact {fmt(p)}, off by {abs(est - p):.2e} "
        f"> 5 SE + 1/n = {float(tol):.2e} (n = {n}; {outside} of {total} {unit} "
        "outside)"
    )


def monotone(p: np.ndarray, axis: int, rising: bool) -> tuple[tuple, float, float] | None:
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
