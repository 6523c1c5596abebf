"""The ``rpg-balance`` command line.

Every subcommand lives in a module that exposes ``register(subparsers)``; heavy imports
(numba, pandas) happen inside the command functions so ``--help`` stays fast. Any
:class:`engines.errors.InputError` (bad argument, variant, file) ends in one line on
stderr and exit code 2, with no traceback and no output file written.
"""

from __future__ import annotations

import argparse
import importlib
import sys

__all__ = [
    "COMMAND_MODULES",
    "EPILOG",
    "NO_RULES",
    "RULES_HELP",
    "UsageError",
    "build_parser",
    "main",
]

#: Modules that add subcommands (each has ``register(subparsers)``).
COMMAND_MODULES = [
    "cli.systems",
    "cli.checks",
    "cli.tables",
    "cli.report",
    "cli.workflow",
    "cli.combat",
    "cli.campaign",
    "cli.warmup",
    "cli.audit",
    "cli.tune",
    "cli.sensitivity",
    "cli.serve",
    "cli.rules",
]

#: Commands that compute nothing from a system's rules (no ``--rules``).
NO_RULES = ("systems", "warm-up")

RULES_HELP = (
    "a rules file (rpg-balance rules SYSTEM --export FILE writes one to edit); "
    "repeat for other systems, one file per system"
)

EPILOG = """examples:
  rpg-balance curves dice_pool_7 --variant again=9 --method both --trials 200000 --seed 1
  rpg-balance curves percentile --format markdown -o percentile.md
  rpg-balance opposed d20_degrees --method exact --format csv
"""


class UsageError(Exception):
    """Raised by the parser instead of printing usage and exiting."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line, exit code 2 (handled in main)
        raise UsageError(f"{self.prog}: {message}")


class _Version(argparse.Action):
    """``rpg-balance --version``: the installed version (:func:`analysis.package.version`,
    read only when asked), on stdout; exit code 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from analysis.package import version

        print(f"rpg-balance {version()}")
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rpg-balance",
        description="Probability analysis and balancing for five tabletop RPG resolution systems.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for name, command in sub.choices.items():
        if name not in NO_RULES:
            _add_rules(command)
    return parser


def _add_rules(p: argparse.ArgumentParser) -> None:
    """``--rules FILE`` on a command, or on each of its subcommands."""
    nested = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    if nested:
        for child in nested[0].choices.values():
            _add_rules(child)
        return
    if not any("--rules" in a.option_strings for a in p._actions):
        p.add_argument("--rules", action="append", default=None, metavar="FILE", help=RULES_HELP)


def _run(args) -> int:
    """The command in a context of its own (whatever rules it puts in force end with it),
    with the rules of ``--rules`` in force and the edits of ``--set SYSTEM:KNOB=VALUE``
    (``curves``, ``solve difficulty``, ``duel``) on top of them (:mod:`analysis.rules`)."""
    import contextvars

    def command() -> int:
        files = getattr(args, "rules", None)
        edits = getattr(args, "rule_set", None)
        if files or edits:
            from analysis.rule_edits import set_knobs
            from analysis.rules import load_files, put, using

            rules = load_files(files) if files else {}
            if edits:  # each --set on top of the files' rules of its system
                with using(rules):
                    rules = {**rules, **set_knobs(edits)}
            put(rules)
        return int(args.func(args) or 0)

    return contextvars.copy_context().run(command)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return _run(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        from engines.errors import InputError

        if isinstance(exc, InputError):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
