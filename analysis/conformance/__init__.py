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
    ``Checks.grid`` over every axis value (the native ``axes`` and the ``hidden_axes``)
    returns distinct roll ``settings``, an integer ``setting_of_cell`` naming one of them
    per cell, a ``bool[cells, codes]`` success mask and ``values[codes]`` (finite), and
    the code count equals the ``code_count`` hook (or the module's ``N_CODES``).
``neutral``
    every check axis (native and hidden) other than the ladder's competence and
    difficulty axes declares its neutral (``Checks.neutral``: modifier 0, no bonus dice, a
    normal roll), the value the solver, the report and the workbench hold it at.
``exact``
    the exact distribution of every roll setting (``Checks.exact`` hook or the module's
    ``exact``) is ``[settings, codes]``, non-negative, and each row sums to 1 (1e-9).
``monte_carlo``
    the Monte Carlo counts (``Checks.monte_carlo``, the ``Checks.kernel`` on
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
    where the system declares a :class:`~engines.system.Ladder`: the competence rungs never
    decrease untrained → master; along ``competence_axis`` P(success) never falls, and
    along ``difficulty_axis`` (its values easiest first) never rises, at every value of the
    other axes; with :class:`~engines.system.LadderRules`, P(success) of a higher rung at a
    fixed difficulty never falls, and of a harder difficulty at a fixed rung never rises.
    A system whose rules really break one direction declares it with its reason
    (``System.known``: ``Known("competence_monotone", "acing: a d4 reaches 6 more often
    than a d6")``); that direction is then held to the weaker property
    :data:`engines.system.KNOWN_PROPERTIES` states (the highest competence succeeds at least
    as often as the lowest at every cell; the hardest difficulty at most as often as the
    easiest), and the check's detail counts the steps that go the other way and quotes the
    reason.
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
    (``|p_side0 − p_side1|`` ≤ 1e-9) unless the engine's optional ``initiative_first(a, b,
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

The checks live in :mod:`analysis.conformance.rolls` (one roll: grid, neutral, exact,
Monte Carlo, variants, scenario) and :mod:`analysis.conformance.rules` (ladder, opposed,
combat, campaign); what they share in :mod:`analysis.conformance.base`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from analysis.conformance import rolls, rules
from analysis.conformance.base import (
    CHECKS,
    DUELS,
    EXACT_TOL,
    NEEDS,
    RUNGS,
    SCENARIO_TRIALS,
    SEED,
    SESSIONS,
    TRIALS,
    CheckResult,
    Conformance,
    ConformanceError,
    Context,
    Skip,
    raised_at,
    standing_in,
)
from engines.errors import InputError
from engines.rng import Seed, normalize_seed
from engines.system import System, get

__all__ = [
    "CHECKS",
    "DUELS",
    "EXACT_TOL",
    "NEEDS",
    "RUN",
    "RUNGS",
    "SCENARIO_TRIALS",
    "SEED",
    "SESSIONS",
    "TRIALS",
    "CheckResult",
    "Conformance",
    "ConformanceError",
    "check_system",
    "parametrize_with_checks",
    "run_check",
]

#: Every check's function by name.
RUN: dict[str, Callable[[Context], str]] = {**rolls.RUN, **rules.RUN}
assert set(RUN) == set(CHECKS)


def check_system(
    system: System | str,
    *,
    trials: int = TRIALS,
    seed: Seed = SEED,
    checks: Iterable[str] | None = None,
) -> Conformance:
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
        raise InputError(
            f"check_system: expected a System or a system id, got {type(system).__name__}"
        )
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    wanted = list(CHECKS) if checks is None else [str(c) for c in checks]
    unknown = [c for c in wanted if c not in CHECKS]
    if unknown:
        raise InputError(f"check {unknown[0]!r}: unknown; known: {', '.join(CHECKS)}")
    ctx = Context(spec, trials, normalize_seed(seed))
    results: list[CheckResult] = []
    status: dict[str, str] = {}
    with standing_in(spec):
        for name in CHECKS:
            if name not in wanted:
                continue
            start = time.perf_counter()
            broken = [n for n in NEEDS.get(name, ()) if status.get(n) == "failed"]
            if broken:
                result = ("skipped", f"needs {' and '.join(broken)}, which failed")
            else:
                try:
                    result = ("passed", RUN[name](ctx))
                except Skip as why:
                    result = ("skipped", str(why))
                except AssertionError as exc:
                    result = ("failed", str(exc))
                except Exception as exc:  # a hook that crashes fails its check
                    result = ("failed", f"raised {type(exc).__name__}: {exc} ({raised_at(exc)})")
            status[name] = result[0]
            results.append(
                CheckResult(
                    name,
                    result[0],  # type: ignore[arg-type]
                    result[1],  # type: ignore[arg-type]
                    time.perf_counter() - start,
                )
            )
    report = Conformance(spec.id, tuple(results), trials)
    if report.failed:
        raise ConformanceError(report)
    return report


def run_check(
    system: System | str, check: str, *, trials: int = TRIALS, seed: Seed = SEED
) -> CheckResult:
    """Run one check of :data:`CHECKS` on ``system`` (:func:`check_system` with
    ``checks=[check]``): its :class:`CheckResult` when it passed or was skipped; a
    :class:`ConformanceError` when it failed."""
    return check_system(system, trials=trials, seed=seed, checks=[check]).results[0]


class _Check:
    """One check as a pytest parameter: ``check(system)`` runs it and skips the test
    (``pytest.skip``) with the check's own sentence when it does not apply."""

    def __init__(self, name: str, trials: int, seed: Seed):
        self.name, self.trials, self.seed = name, trials, seed

    def __call__(self, system: System | str) -> CheckResult:
        result = run_check(system, self.name, trials=self.trials, seed=self.seed)
        if result.status == "skipped":
            import pytest

            pytest.skip(result.detail)
        return result

    def __repr__(self) -> str:
        return f"check {self.name}"


def parametrize_with_checks(
    systems: Iterable[System | str],
    *,
    trials: int = TRIALS,
    seed: Seed = SEED,
    checks: Iterable[str] | None = None,
):
    """A pytest decorator: the test runs once per (system, check of :data:`CHECKS`), with
    the arguments ``system`` (the id or ``System`` given) and ``check`` (call it with the
    system), and the test id ``<system id>-<check>`` — scikit-learn's
    ``parametrize_with_checks`` for estimators. A check that does not apply is skipped
    with its sentence; one that fails raises :class:`ConformanceError` naming the system,
    the check and the offending cell or value.

    Examples
    --------
    ::

        @parametrize_with_checks(["pbta_2d6"])
        def test_conforms(system, check):
            check(system)
    """
    import pytest

    names = list(CHECKS) if checks is None else [str(c) for c in checks]
    unknown = [c for c in names if c not in CHECKS]
    if unknown:
        raise InputError(f"check {unknown[0]!r}: unknown; known: {', '.join(CHECKS)}")
    params = []
    for system in systems:
        sid = system if isinstance(system, str) else system.id
        params += [
            pytest.param(system, _Check(name, trials, seed), id=f"{sid}-{name}") for name in names
        ]
    return pytest.mark.parametrize(("system", "check"), params)
