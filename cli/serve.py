"""``rpg-balance serve``: the live workbench, a local web page (Panel) with three tabs —
checks, duel, audit — whose state is in its address (a link reproduces the view).

Only :mod:`argparse` at import time; Panel loads inside the command.
"""

from __future__ import annotations

import argparse
import sys

from cli.common import bounded_int

__all__ = ["EPILOG", "port_int", "register", "run"]

port_int = bounded_int(0, 65535, "a port number (0: any free port)")

EPILOG = """examples:
  rpg-balance serve                       # http://127.0.0.1:5006/ in your browser
  rpg-balance serve --port 0 --no-browser # any free port; the URL is printed
  rpg-balance serve --guardrails scenarios/my_guardrails.toml --lang pt-BR
  rpg-balance serve --rules my_rules.toml   # every number under a designer's rule tables

The page has no login: it binds 127.0.0.1 (this machine only) unless --host says
otherwise. It reads no file but the shipped guardrails, the --guardrails file and files
uploaded through it. Ctrl-C stops it.
"""


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="a live workbench in the browser (checks, duel, audit)",
        description="Serve a local web page where each knob (system, "
        "variant, archetype, gear, target chance) updates the odds at once: "
        "success curves and the difficulty for a target chance, a duel "
        "exact or by Monte Carlo (with SEs and a Stop button), the audit of "
        "a guardrail file. The view is in the page's address.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address to listen on (default 127.0.0.1; any other address lets "
        "other machines in, and the page has no login)",
    )
    p.add_argument(
        "--port", type=port_int, default=5006, help="port (default 5006; 0: any free port)"
    )
    p.add_argument(
        "--show",
        dest="show",
        action="store_true",
        default=True,
        help="open the page in the browser (default)",
    )
    p.add_argument(
        "--no-browser",
        dest="show",
        action="store_false",
        help="do not open a browser; only print the URL",
    )
    p.add_argument(
        "--guardrails",
        default=None,
        metavar="FILE",
        help="a guardrail file the audit tab offers beside the shipped one",
    )
    p.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="language of the page: en (default) or pt-BR (the page has a switch too)",
    )
    p.add_argument(
        "--warm-up",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="first compile every numba kernel in parallel worker processes, "
        "as rpg-balance warm-up does (a no-op when the cache is warm; default "
        "on), then load each system's exact duel and curves once, so the "
        "page's first view answers at once",
    )
    p.format_help = _with_address_keys(p.format_help)
    p.set_defaults(func=run)


def run(args) -> int:
    from analysis.package import require
    from cli.common import check_lang

    require("web", "rpg-balance serve")
    check_lang(args)
    if args.guardrails is not None:
        from analysis.workflow.audit import load_guardrails

        load_guardrails([args.guardrails])  # a missing or bad file: one line, exit 2
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"warning: listening on {args.host}: anyone who can reach this address can "
            "use the page, which has no login",
            file=sys.stderr,
        )
    if args.warm_up:
        from cli.warmup import warm_up_and_say

        warm_up_and_say(say_warm=False)
    from reports.workbench.app import serve

    def ready(url: str) -> None:
        print(f"rpg-balance workbench: {url}  (Ctrl-C stops it)", flush=True)

    from analysis.rules import in_force

    # the rules of --rules (cli.main puts them in force in this command's context): every
    # page computes under them, whatever thread the server runs its callbacks on
    serve(
        args.host,
        args.port,
        show=args.show,
        guardrails=args.guardrails,
        lang=args.lang,
        ready=ready,
        warm=args.warm_up,
        rules=in_force(),
        rule_files=tuple(getattr(args, "rules", None) or ()),
    )
    return 0


def _with_address_keys(format_help):
    """``serve --help`` followed by the keys of the page's address (generated from
    :data:`reports.workbench.model.state.ADDRESS`, imported only when help is asked)."""

    def formatted() -> str:
        from reports.workbench.model.state import address_table

        return (
            format_help() + "\nthe page's address, ?KEY=VALUE&KEY=VALUE (only what "
            "differs from the defaults; the old short key of each, in brackets, is "
            "still read):\n" + address_table()
        )

    return formatted
