"""The conformance checks of a single check: ``grid``, ``neutral``, ``exact``,
``monte_carlo``, ``variants`` and ``scenario`` (what each verifies: the package docstring
of :mod:`analysis.conformance`)."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Callable
from typing import Any

import numpy as np

from analysis.conformance.base import (
    EXACT_TOL,
    SCENARIO_TRIALS,
    Context,
    Skip,
    cell_text,
    fail,
    fmt,
    off,
    tolerance,
    worst,
)
from engines.errors import InputError
from engines.variants import parse_variants

__all__ = ["RUN"]


def _check_grid(ctx: Context) -> str:
    spec, g = ctx.spec.checks, ctx.grid
    for axis, axis_values in ctx.axes.items():
        if len(axis_values) == 0:
            fail(f"axis {axis!r} has no values")
    cells = {name: g.cells[name].to_numpy() for name in g.cells.columns}
    if spec.grid is None:
        fail("the system declares no check grid")
    out = spec.grid(cells, ctx.variants)
    if not isinstance(out, tuple) or len(out) != 4:
        fail(
            f"check_grid returned a {type(out).__name__}; expected the tuple (settings, "
            "setting_of_cell, mask, values)"
        )
    settings, of_cell, mask, values = (np.asarray(x) for x in out)
    n_cells = len(g.cells)
    if settings.ndim != 1 or settings.size == 0:
        fail(f"settings: expected a non-empty 1-d array, got shape {settings.shape}")
    if len(set(settings.tolist())) != settings.size:
        fail(f"settings repeat a value: {settings.tolist()}")
    if of_cell.shape != (n_cells,):
        fail(f"setting_of_cell: expected one per cell, shape ({n_cells},), got {of_cell.shape}")
    if of_cell.dtype.kind not in "iu":
        fail(f"setting_of_cell: expected integers, got dtype {of_cell.dtype}")
    bad = (of_cell < 0) | (of_cell >= settings.size)
    if bad.any():
        i = int(np.argmax(bad))
        fail(
            f"cell {cell_text(g.cells, i)}: setting_of_cell {int(of_cell[i])} is not an "
            f"index of the {settings.size} settings"
        )
    if mask.dtype != bool:
        fail(f"mask: expected dtype bool, got {mask.dtype}")
    if mask.ndim != 2 or mask.shape[0] != n_cells or mask.shape[1] == 0:
        fail(f"mask: expected shape ({n_cells}, codes), got {mask.shape}")
    n_codes = mask.shape[1]
    if values.shape != (n_codes,):
        fail(f"values: expected one per code, shape ({n_codes},), got {values.shape}")
    if not np.isfinite(values.astype(float)).all():
        fail("values: not all finite")
    declared: Any
    if spec.code_count is not None:
        declared, source = int(spec.code_count(settings, ctx.variants)), "code_count"
    else:
        declared, source = getattr(spec.engine(), "N_CODES", n_codes), "the module's N_CODES"
    if declared != n_codes:
        fail(f"the mask has {n_codes} codes, {source} says {declared}")
    shown = ", ".join(f"{k} ({len(v)})" for k, v in ctx.axes.items())
    return f"{n_cells} cells over {shown}: {settings.size} roll settings × {n_codes} codes"


def _check_neutral(ctx: Context) -> str:
    """Every check axis (native and hidden) other than the ladder's competence and
    difficulty axes declares its neutral (``Checks.neutral``): the value the solver, the
    report and the workbench hold it at. An undeclared one would be held at its first
    value, which is a real value of the rules (a modifier of −4), not "no modifier"."""
    spec = ctx.spec
    swept = spec.ladder.swept if spec.ladder is not None else ()
    held = [a for a in spec.checks.all_axes if a not in swept]
    missing = [a for a in held if a not in spec.checks.neutral]
    if missing:
        first = {a: spec.checks.all_axes[a][0] for a in missing}
        fail(
            "no neutral declared for axis "
            + ", ".join(
                f"{a!r} (it would be held at its first value, {v!r})" for a, v in first.items()
            )
            + "; declare Checks.neutral"
        )
    if not held:
        return "no axis besides the competence and difficulty axes: nothing to hold"
    return "held at their neutral: " + ", ".join(f"{a}={spec.checks.neutral[a]!r}" for a in held)


def _check_exact(ctx: Context) -> str:
    g, probs = ctx.grid, ctx.exact
    n_codes = g.mask.shape[1]
    if probs.shape != (g.settings.size, n_codes):
        fail(f"expected shape ({g.settings.size}, {n_codes}) (settings × codes), got {probs.shape}")
    if not np.isfinite(probs).all():
        fail("the exact distribution is not all finite")
    low = probs < -EXACT_TOL
    if low.any():
        i, j = np.argwhere(low)[0]
        fail(
            f"setting {g.settings.tolist()[i]!r}, code {j}: probability {fmt(probs[i, j])} is "
            "negative"
        )
    sums = probs.sum(axis=1)
    gap = np.abs(sums - 1)
    if (gap > EXACT_TOL).any():
        i = int(np.argmax(gap))
        fail(
            f"setting {g.settings.tolist()[i]!r}: the exact row sums to {sums[i]:.12g}, not 1 "
            f"({int((gap > EXACT_TOL).sum())} of {sums.size} rows off by more than "
            f"{EXACT_TOL:g})"
        )
    return f"{sums.size} rows × {n_codes} codes, each summing to 1 (largest gap {gap.max():.1e})"


def _check_monte_carlo(ctx: Context) -> str:
    from analysis.checks.curves import settings_mc

    g, probs, n = ctx.grid, ctx.exact, ctx.trials
    n_codes = g.mask.shape[1]

    def run():
        return np.asarray(
            settings_mc(ctx.sid, g.settings, ctx.variants, n_codes, n, ctx.stream("monte_carlo"))
        )

    counts = run()
    if counts.shape != probs.shape:
        fail(f"expected counts of shape {probs.shape} (settings × codes), got {counts.shape}")
    if not np.isfinite(counts).all() or (counts != np.round(counts)).any():
        fail("counts: not all whole numbers")
    if (counts < 0).any():
        fail("counts: a negative count")
    rows = counts.sum(axis=1)
    if (rows != n).any():
        i = int(np.argmax(rows != n))
        fail(
            f"setting {g.settings.tolist()[i]!r}: the counts sum to {int(rows[i])}, not the {n} "
            "trials"
        )
    if not np.array_equal(run(), counts):
        fail("the same seed gave different counts")
    tol = tolerance(probs, n)
    found = worst(counts / n, probs, tol)
    if found is not None:
        at, k = found
        i, j = (int(x) for x in np.unravel_index(at, probs.shape))
        fail(
            off(
                f"setting {g.settings.tolist()[i]!r}, code {j} (value {fmt(g.values[j])})",
                counts[i, j] / n,
                probs[i, j],
                tol[i, j],
                n,
                k,
                probs.size,
                "codes",
            )
        )
    p_cells = ctx.p_cells
    p_mc = np.einsum("ij,ij->i", counts[g.setting_of_cell], g.mask) / n
    tol = tolerance(p_cells, n)
    found = worst(p_mc, p_cells, tol)
    if found is not None:
        i, k = found
        fail(
            off(
                f"cell {cell_text(g.cells, i)}: P(success)",
                p_mc[i],
                p_cells[i],
                tol[i],
                n,
                k,
                p_mc.size,
                "cells",
            )
        )
    return (
        f"{n} trials × {g.settings.size} settings: every code and all {p_mc.size} cells "
        "within 5 SE + 1/n; same seed, same counts"
    )


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
    numeric = choices is not None and all(isinstance(c, int) for c in choices if c is not None)
    if isinstance(default, int) or numeric:
        if choices is None:
            out.append(("not-a-number", True))
        out += [("-1", False), ("-1000000", False), ("1000000", False)]
    return out


def _check_variants(ctx: Context) -> str:
    cls = ctx.spec.checks.variants
    if not dataclasses.is_dataclass(cls):
        fail(f"Variants: expected a dataclass of engines.variants.variant fields, got {cls!r}")
    fields = dataclasses.fields(cls)
    default = cls()
    if parse_variants(cls, None) != default:
        fail("parse_variants(Variants) without values differs from Variants()")
    texts = [f"{f.name}={_text(getattr(default, f.name))}" for f in fields]
    back = parse_variants(cls, texts)
    changed = [
        f"{f.name}: {getattr(default, f.name)!r} → {getattr(back, f.name)!r}"
        for f in fields
        if getattr(back, f.name) != getattr(default, f.name)
    ]
    if changed:
        fail(f"the defaults written as {' '.join(texts)} parse back changed: " + "; ".join(changed))
    probes = [("no_such_variant=1", True)] + [
        (f"{f.name}={bad}", refuse) for f in fields for bad, refuse in _probes(f)
    ]
    for text, must_refuse in probes:
        try:
            parse_variants(cls, [text])
        except InputError:
            continue
        except Exception as exc:
            fail(
                f"variant {text}: raised {type(exc).__name__} ({exc}); expected one "
                "engines.errors.InputError"
            )
        if must_refuse:
            fail(f"variant {text}: accepted; expected an InputError")
    return (
        f"{len(fields)} variants round-trip as {' '.join(texts) or '(none)'}; "
        f"{len(probes)} bad values raise InputError or pass"
    )


def _check_scenario(ctx: Context) -> str:
    from analysis.checks.curves import success_curves
    from analysis.workflow.run import run_scenario
    from analysis.workflow.scenario import parse_scenario

    if ctx.spec.checks.grid is None:
        raise Skip("the system declares no check grid, so a scenario has no checks to run")
    seed = int(ctx.stream("scenario").generate_state(1, np.uint64)[0] >> np.uint64(1))
    text = (
        f'name = "conformance of {ctx.sid}"\nsystem = "{ctx.sid}"\nmethod = "both"\n'
        f"seed = {seed}\n\n[precision]\ntrials = {SCENARIO_TRIALS}\n\n"
        '[[checks]]\nname = "curves"\n'
    )
    sc = parse_scenario(tomllib.loads(text), f"<conformance {ctx.sid}>")
    table = run_scenario(sc, progress=False).tables.get("checks")
    if table is None:
        fail("the run gave no checks table")
    names = list(ctx.spec.checks.axes)
    want = success_curves(ctx.sid, "exact", variants=ctx.variants)
    if len(table) != len(want):
        fail(f"the checks table has {len(table)} rows; the native axes have {len(want)} cells")
    missing = [c for c in (*names, "p_exact", "p_mc", "se") if c not in table]
    if missing:
        fail(f"the checks table has no column {missing[0]!r}")
    got = table.set_index(names)
    exact = want.set_index(names)["p"].reindex(got.index).to_numpy()
    gap = np.abs(got["p_exact"].to_numpy() - exact)
    if not (gap <= 1e-12).all():  # NaN (a cell the curves lack) fails too
        i = int(np.argmax(np.where(np.isnan(gap), np.inf, gap)))
        cell = ", ".join(f"{k}={x}" for k, x in zip(names, got.index[i], strict=True))
        fail(
            f"cell {cell}: the scenario's p_exact {fmt(got['p_exact'].iloc[i])} differs "
            f"from the success curves' {fmt(exact[i])}"
        )
    p_mc = got["p_mc"].to_numpy()
    if not ((p_mc >= 0) & (p_mc <= 1)).all():
        fail("the scenario's p_mc leaves [0, 1]")
    if (got["se"].to_numpy() < 0).any():
        fail("the scenario's se is negative")
    return (
        f"a one-entry scenario (method both, {SCENARIO_TRIALS} trials) ran: "
        f"{len(table)} rows, exact column equal to the success curves'"
    )


#: The checks of this module by name.
RUN: dict[str, Callable[[Context], str]] = {
    "grid": _check_grid,
    "neutral": _check_neutral,
    "exact": _check_exact,
    "monte_carlo": _check_monte_carlo,
    "variants": _check_variants,
    "scenario": _check_scenario,
}
