"""Argument types and options shared by the ``rpg-balance`` subcommand modules.

Only :mod:`argparse` and :mod:`analysis.limits` (the bounds, shared with the workbench) at
import time, so ``rpg-balance --help`` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

# the bounds of every count the command line takes, re-exported for the commands
# (:mod:`analysis.limits`, where the workbench reads them too)
from analysis.limits import MAX_ROUND_CAP as MAX_ROUND_CAP
from analysis.limits import MAX_SEED as MAX_SEED
from analysis.limits import MAX_SESSIONS as MAX_SESSIONS
from analysis.limits import MAX_TRIALS as MAX_TRIALS
from analysis.limits import MAX_WORKERS as MAX_WORKERS
from analysis.limits import range_words as _range_words

__all__ = [
    "DEFAULT_WORKERS",
    "FORMATS",
    "MAX_TRIALS",
    "PLOT_TYPES",
    "add_columns",
    "add_lang",
    "add_output",
    "add_rule_set",
    "add_traits",
    "bounded_int",
    "check_lang",
    "check_outputs",
    "jobs_int",
    "number",
    "provenance_of",
    "require_part",
    "round_cap_int",
    "seed_int",
    "seed_int64",
    "select_columns",
    "sessions_int",
    "system_id",
    "system_variants",
    "trials_int",
    "workers_int",
    "write_localised",
    "write_output",
]

FORMATS = ("csv", "json", "markdown", "parquet")
PLOT_TYPES = ("png", "svg", "pdf")


def number(
    text: str, convert: Callable, ok: Callable, expected: str, out_of_range: str | None = None
):
    """``convert(text)`` if ``ok`` of it, else an ArgumentTypeError "expected ..., got
    'text'" (``out_of_range`` replaces ``expected`` when the text converts but is out of
    range)."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {out_of_range or expected}, got {text!r}")
    return value


def system_id(text: str) -> str:
    """A registered system id (built-in or plug-in, :func:`engines.system.registry`);
    the registry loads only when a command names a system, so ``--help`` stays fast."""
    from engines.errors import InputError
    from engines.system import get

    try:
        return get(text.strip()).id
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: what a command needs of a system → (the System property, how the message names it)
def require_part(system: str, part: str, what: str) -> None:
    """An :class:`~engines.errors.InputError` (one line, exit 2) when ``system`` does
    not declare the ``part`` a command needs for ``what``: a hook group (``combat``,
    ``campaign``: the one standard line of :meth:`engines.system.System.require`) or the
    opposed rule (``opposed``)."""
    from engines.errors import InputError
    from engines.system import registry

    spec = registry().get(system)  # an unknown id: the command's own error names it
    if spec is None:
        return
    if part != "opposed":
        spec.require(part)
    elif spec.checks.opposed is None:
        raise InputError(
            f"{system}: this system declares no opposed-check rule, so there is no {what}"
        )


#: A count above its bound (MAX_TRIALS …) ends in one line and exit code 2 before any
#: work (argparse names the option).
def bounded_int(low: int, high: int, name: str) -> Callable[[str], int]:
    """An argparse type for a whole number in ``low..high``: "expected NAME low..high,
    got 'text'" otherwise (one line, exit code 2)."""

    def convert(text: str) -> int:
        return number(text, int, lambda v: low <= v <= high, _range_words(low, high, name))

    convert.__name__ = name.replace(" ", "_")
    return convert


#: Monte Carlo trials (fights, characters): 1..MAX_TRIALS.
trials_int = bounded_int(1, MAX_TRIALS, "a number of trials")
#: A round cap: 1..MAX_ROUND_CAP.
round_cap_int = bounded_int(1, MAX_ROUND_CAP, "a round cap")
#: Campaign sessions (attrition fights): 0..MAX_SESSIONS.
sessions_int = bounded_int(0, MAX_SESSIONS, "a number of sessions")
#: Worker processes: 1..MAX_WORKERS (``run``/``sweep --workers`` also take 0).
jobs_int = bounded_int(1, MAX_WORKERS, "a number of worker processes")
workers_int = bounded_int(0, MAX_WORKERS, "a number of worker processes")
#: A seed: 0..MAX_SEED.
seed_int = bounded_int(0, MAX_SEED, "a seed")
#: A seed that fits a signed 64-bit integer (scenario files and sweep tables store it).
seed_int64 = bounded_int(0, 2**63 - 1, "a seed")


def system_variants(items: list[str], flag: str = "--variant") -> dict[str, list[str]]:
    """``SYSTEM:NAME=VALUE`` strings → ``{system: ["NAME=VALUE", ...]}`` (the syntax of
    the cross-system commands: report, ladder, cross-combat)."""
    from engines.errors import InputError
    from engines.system import registry

    known = tuple(registry()) if items else ()
    out: dict[str, list[str]] = {}
    for text in items:
        system, sep, rest = text.partition(":")
        system = system.strip()
        if not sep or system not in known or "=" not in rest:
            import difflib

            close = difflib.get_close_matches(system, known, n=1) if sep else []
            hint = f" (did you mean {close[0]!r}?)" if close and close[0] != system else ""
            raise InputError(
                f"{flag} {text!r}: expected SYSTEM:NAME=VALUE with SYSTEM one "
                f"of {', '.join(known)}{hint}"
            )
        out.setdefault(system, []).append(rest.strip())
    return out


def provenance_of(
    args, method: str | None = None, trials: int | None = None, system: str | None = None
) -> dict:
    """What produced a command's table, from its arguments: system(s), the variants
    given (``defaults`` when none), the method and the Monte Carlo trials (0 when exact),
    and ``rule_edits`` — the rule edits in force, in words — when a rules file or a knob
    changed any (:func:`analysis.rules.provenance`)."""
    sys_ = system or getattr(args, "system", None)
    if isinstance(sys_, list | tuple):
        sys_ = ",".join(sys_)
    method = method or getattr(args, "method", None) or "exact"
    n = trials if trials is not None else getattr(args, "trials", None)
    out = {
        "system": sys_ or "all",
        "variants": "; ".join(getattr(args, "variant", None) or []) or "defaults",
        "method": method,
        "trials": 0 if method == "exact" else (n or ""),
    }
    from analysis.rules import provenance

    edited = provenance()
    if edited:  # only when the rules in force differ from the package's
        out["rule_edits"] = edited
    return out


#: Local Dask worker processes of ``run`` and ``sweep`` when ``--workers`` is not given
#: (0: in this process; tables are the same on any number of workers).
DEFAULT_WORKERS = 0


def add_columns(p: argparse.ArgumentParser) -> None:
    """``--columns A,B,...`` (every table command has it; see :func:`select_columns`)."""
    p.add_argument(
        "--columns", default=None, metavar="A,B,...", help="keep only these columns, in this order"
    )


def add_output(p: argparse.ArgumentParser, *, plot: bool = False) -> None:
    """``--format``, ``-o/--output FILE``, ``--columns`` and, when asked, ``--plot FILE``."""
    p.add_argument("--format", choices=FORMATS, default="csv")
    p.add_argument(
        "-o",
        "--output",
        default=None,
        metavar="FILE",
        help="write to FILE (atomically) instead of stdout",
    )
    add_columns(p)
    if plot:
        p.add_argument(
            "--plot",
            default=None,
            metavar="FILE",
            help="also save the figure to FILE (.png, .svg or .pdf)",
        )


def select_columns(table, args, provenance: dict | None = None, fmt: str | None = None):
    """The table to write and the provenance to record under ``--columns A,B,...``.

    Without ``--columns``: ``(table, provenance)`` unchanged (the writer adds the
    provenance columns ``system``, ``variants``, ``method``, ``trials`` a table lacks).
    With it: exactly those columns, in that order, chosen among every column of the
    output, the provenance columns included (``--columns p,variants``); an unknown name is
    an :class:`~engines.errors.InputError` listing the known ones. No column is added
    then, but a parquet file (``fmt``, default ``args.format``) still records the
    provenance in its metadata, as it does without ``--columns``."""
    spec = getattr(args, "columns", None)
    if not spec:
        return table, provenance
    from analysis.output import with_provenance
    from engines.errors import InputError

    full = with_provenance(table, provenance, "csv")  # every column the output has
    cols = [c.strip() for c in spec.split(",") if c.strip()]
    bad = [c for c in cols if c not in full.columns]
    if bad or not cols:
        name = f"unknown column {bad[0]!r}" if bad else f"no column named in {spec!r}"
        raise InputError(f"--columns: {name}; known: " + ", ".join(map(str, full.columns)))
    fmt = fmt or getattr(args, "format", None)
    return full[cols], (provenance if fmt == "parquet" else None)


def write_output(table, args, provenance: dict | None = None) -> None:
    """Write ``table`` as ``--format`` to ``-o`` (stdout without it), with the provenance
    columns; with ``--columns`` exactly the columns asked for (:func:`select_columns`)."""
    from analysis.output import write_table

    chosen, prov = select_columns(table, args, provenance)
    write_table(chosen, args.format, args.output, prov)


def check_outputs(args) -> None:
    """Fail before any work, and before writing anything, when ``-o`` or ``--plot`` cannot
    be written (so a bad -o never leaves a lone figure behind, and the reverse), or when
    parquet would go to stdout (``--summary`` prints text instead of the table)."""
    from analysis.output import check_target
    from engines.errors import InputError

    plot = getattr(args, "plot", None)
    for flag, path in (("-o", args.output), ("--plot", plot)):
        if path is None or path == "-":
            continue
        check_target(path, flag)
    if (
        plot is not None
        and (plot.rsplit(".", 1)[-1].lower() if "." in plot else "") not in PLOT_TYPES
    ):
        raise InputError(f"--plot {plot!r}: the file must end in .png, .svg or .pdf")
    if (
        args.format == "parquet"
        and args.output in (None, "-")
        and not getattr(args, "summary", False)
    ):
        raise InputError("format parquet needs an output file (-o FILE)")
    if args.format == "parquet":
        from analysis.package import require

        require("parquet", "--format parquet")


def add_rule_set(p: argparse.ArgumentParser) -> None:
    """``--set SYSTEM:KNOB=VALUE``: one edit of a system's rules on top of ``--rules``
    (repeatable; applied by :func:`cli.main.main` before the command runs)."""
    p.add_argument(
        "--set",
        action="append",
        default=None,
        dest="rule_set",
        metavar="SYSTEM:KNOB=VALUE",
        help="one edit of a system's rules, on top of --rules (repeatable): "
        "SYSTEM:rules.KIND.ENTRY.FIELD=VALUE "
        "(dice_pool_7:rules.armour.heavy_archaic.ballistic=1) or "
        "SYSTEM:everyone.TRAIT=OFFSET (middle_3d10:everyone.vigor=1)",
    )


def add_traits(p: argparse.ArgumentParser) -> None:
    """``--trait-a NAME=VALUE`` / ``--trait-b``: a trait of one side changed."""
    for side in ("a", "b"):
        p.add_argument(
            f"--trait-{side}",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help=f"a trait of {side.upper()} changed (repeatable; a whole-number "
            "trait of the system's fighters: dice_pool_7 CON=4, middle_3d10 "
            "vigor=8)",
        )


def add_lang(p: argparse.ArgumentParser) -> None:
    """``--lang``: the language of a command's human output (markdown, sentences, plot)."""
    p.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="language of the text: en (default) or pt-BR (Brazilian "
        "Portuguese). Markdown gets translated headers, words and the "
        "locale's number style; the sentences (an audit's cure, reason, "
        "finding) are translated in every format; csv, json and parquet keep "
        "machine column names, words and numbers",
    )


def check_lang(args) -> None:
    """A bad ``--lang`` fails in one line (exit status 2) before any work."""
    from reports.i18n import check_language

    check_language(getattr(args, "lang", "en"))


def write_localised(
    table, fmt: str, output, provenance: dict | None, lang: str, *, prose=(), words=()
) -> None:
    """:func:`analysis.output.write_table` in ``lang`` (:func:`reports.i18n.localise_table`:
    ``prose`` columns translated in every format; in markdown also the headers, the
    ``words`` columns, the provenance columns and the numbers)."""
    from analysis.output import with_provenance, write_table

    if lang == "en":
        write_table(table, fmt, output, provenance)
        return
    from reports.i18n import localise_table

    framed = with_provenance(table, provenance, fmt)
    words = (*words, "system", "variants", "method")
    write_table(localise_table(framed, lang, fmt, prose=prose, words=words), fmt, output)
