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

__all__ = ["COMMAND_MODULES", "EPILOG", "UsageError", "build_parser", "main"]

#: Modules that add subcommands (each has ``register(subparsers)``).
COMMAND_MODULES = ["cli.systems", "cli.checks", "cli.tables", "cli.report",
                   "cli.workflow", "cli.combat", "cli.campaign", "cli.warmup",
                   "cli.audit", "cli.tune", "cli.serve"]

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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rpg-balance", description="Probability analysis and balancing for "
                     "five tabletop RPG resolution systems.", epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
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
