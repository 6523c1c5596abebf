"""The ``reproduce`` column of the audit: for each guardrail verdict and each discovered
finding, the exact ``rpg-balance`` command whose output prints its number.

- A duel whose fighters are an archetype with weapon, armour and tactic overrides is
  ``rpg-balance duel SYSTEM A B --weapon-a W …`` (``--columns`` the metric, ``--table
  one-hit`` for one-attack odds); Monte Carlo adds ``--method mc --trials N --seed S``;
  a changed trait is ``--trait-a NAME=VALUE`` and a rule edit ``--set SYSTEM:KNOB=VALUE``
  (:func:`rule_set_args`; the workbench's commands).
- Any other fight metric (``p_rounds_between:LO:HI``, fighters with changed traits) is a
  one-value grid of ``rpg-balance solve lethality --grid``, whose ``estimate`` column
  prints it; two knob values show the two sides of a comparison in one table.
- A one-cell check is ``rpg-balance curves SYSTEM``, followed by a shell comment naming
  the row that holds the number (``# row skill=80, level=hard, dice=0``).

A comparison (an option against the one dominating it, a rule variant against the
default rules) gives both commands joined by ``" ; "``: each prints one of the two
numbers the finding cites.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping

from engines.constants import ROUND_CAP

__all__ = [
    "DUEL_OVERRIDES",
    "PROG",
    "both",
    "check",
    "duel",
    "duel_expressible",
    "fight_metric",
    "grid",
    "rule_set_args",
    "variant_args",
]

PROG = "rpg-balance"
#: the overrides the ``duel`` command takes per side
DUEL_OVERRIDES = ("weapon", "armour", "tactic", "plan")


def _word(x) -> str:
    if isinstance(x, bool):
        x = str(x).lower()
    return shlex.quote(str(x))


def _spec(spec) -> tuple[str, dict]:
    """``(archetype, overrides)`` of a fighter given by name or mapping."""
    if isinstance(spec, str):
        return spec, {}
    spec = dict(spec)
    return str(spec.pop("archetype")), spec


def variant_args(variants: Mapping | None) -> list[str]:
    """``--variant NAME=VALUE`` arguments of a variant mapping, as a command line writes them."""
    out: list[str] = []
    for k, v in (variants or {}).items():
        out += ["--variant", f"{k}={_word(v)}"]
    return out


def rule_set_args(edits) -> list[str]:
    """``--set SYSTEM:KNOB=VALUE`` arguments of rule edits, given as ``(system, knob,
    value)`` triples (``curves``, ``solve difficulty`` and ``duel`` take them on top
    of ``--rules``)."""
    return [
        w
        for system, knob, value in edits
        for w in ("--set", _word(f"{system}:{knob}={_value(value)}"))
    ]


def _value(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def duel_expressible(a, b) -> bool:
    """Whether ``rpg-balance duel`` can name both fighters (overrides it has options for)."""
    return all(set(_spec(s)[1]) <= set(DUEL_OVERRIDES) for s in (a, b))


def duel(
    system: str,
    a,
    b,
    *,
    variants: Mapping | None = None,
    columns: Iterable[str] = (),
    table: str | None = None,
    mc: tuple[int, int | None] | None = None,
    round_cap: int | None = None,
) -> str:
    """``rpg-balance duel`` of fighters ``a`` (side 0) and ``b`` (side 1); ``mc`` is
    ``(trials, seed)`` of a Monte Carlo run (exact when None; no ``--seed`` when the
    seed is None)."""
    (na, oa), (nb, ob) = _spec(a), _spec(b)
    words = [PROG, "duel", system, na, nb]
    for side, over in (("a", oa), ("b", ob)):
        for k in DUEL_OVERRIDES:
            if k in over:
                words += [f"--{k}-{side}", _word(over[k])]
        for k, v in over.items():  # a trait changed
            if k not in DUEL_OVERRIDES:
                words += [f"--trait-{side}", _word(f"{k}={_value(v)}")]
    words += variant_args(variants)
    if round_cap not in (None, ROUND_CAP):
        words += ["--round-cap", str(round_cap)]
    if table:
        words += ["--table", table]
    if mc is not None:
        words += ["--method", "mc", "--trials", str(mc[0])]
        if mc[1] is not None:
            words += ["--seed", str(mc[1])]
    cols = list(columns)
    if cols:
        words += ["--columns", ",".join(cols)]
    return " ".join(words)


def grid(
    system: str,
    a,
    b,
    metric: str,
    knob: str,
    values: Iterable,
    *,
    variants: Mapping | None = None,
    round_cap: int | None = None,
) -> str:
    """``rpg-balance solve lethality --grid`` of one fight: ``metric`` at each of
    ``values`` of ``knob`` (its ``estimate`` column), exact."""
    (na, oa), (nb, ob) = _spec(a), _spec(b)
    words = [PROG, "solve", "lethality", "--system", system, "--a", na, "--b", nb]
    for side, over in (("a", oa), ("b", ob)):
        for k, v in over.items():
            words += [f"--set-{side}", f"{k}={_word(v)}"]
    words += variant_args(variants)
    if round_cap not in (None, ROUND_CAP):
        words += ["--round-cap", str(round_cap)]
    words += [
        "--knob",
        knob,
        "--values",
        ",".join(_word(v) for v in values),
        "--metric",
        metric,
        "--target",
        "0.5",
        "--grid",
        "--columns",
        "knob,value,metric,estimate,se",
    ]
    return " ".join(words)


def fight_metric(
    system: str,
    a,
    b,
    metric: str,
    *,
    variants: Mapping | None = None,
    round_cap: int | None = None,
    mc: tuple[int, int | None] | None = None,
) -> str:
    """The command printing ``metric`` of the duel ``a`` vs ``b`` (a one-value grid of
    the ``aftermath`` variant when ``duel`` has no column for it or cannot name the
    fighters)."""
    if duel_expressible(a, b):
        if metric.startswith("p_one_hit_"):
            return duel(
                system,
                a,
                b,
                variants=variants,
                table="one-hit",
                columns=("weapon", "target", "p_" + metric[len("p_one_hit_") :]),
            )
        if ":" not in metric:
            return duel(
                system, a, b, variants=variants, columns=(metric,), mc=mc, round_cap=round_cap
            )
    v = dict(variants or {})
    after = v.pop("aftermath", "leave")
    return grid(system, a, b, metric, "variant.aftermath", [after], variants=v, round_cap=round_cap)


def check(system: str, cell: Mapping, variants: Mapping | None = None) -> str:
    """``rpg-balance curves SYSTEM`` and, as a shell comment, the row of ``cell``."""
    row = ", ".join(f"{k}={v}" for k, v in cell.items())
    return " ".join([PROG, "curves", system, *variant_args(variants)]) + f"  # row {row}"


def both(*commands: str) -> str:
    """Commands run one after the other (each prints one number of a comparison)."""
    return " ; ".join(commands)
