"""The command line's boundary: every count option has an upper bound, every command that
names a system checks it the same way, and each bad value ends in one line naming the
option, exit code 2, no traceback and nothing written.

The bounds are the documented ones (docs/howto/checks.md, "Bad input"): trials 1..10^10
(also ``report --combat-trials``, ``audit --batch`` / ``--max-trials``), round caps
1..1000, campaign sessions 0..1000, worker processes 0..64 (``warm-up --jobs`` 1..64).
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
HUGE = "1" + "0" * 21  # once an OverflowError traceback deep in numpy


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def _one_line_failure(rc: int, err: str, *words: str) -> None:
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], err


#: (a command that would run, the count option, the documented bound). Each case is
#: tried with the value one past the bound and with a 22-digit number.
COUNTS = [
    (["curves", "d20_degrees", "--method", "mc"], "--trials", 10**10),
    (["opposed", "d20_degrees", "--method", "mc"], "--trials", 10**10),
    (["duel", "d20_degrees", "competent", "competent", "--method", "mc"], "--trials", 10**10),
    (["duel", "d20_degrees", "competent", "competent"], "--round-cap", 1000),
    (["combat", "scenarios/combat/ambush_3v1.toml"], "--trials", 10**10),
    (["combat", "scenarios/combat/ambush_3v1.toml"], "--round-cap", 1000),
    (["cross-combat", "--method", "mc"], "--trials", 10**10),
    (["cross-combat"], "--round-cap", 1000),
    (["campaign", "percentile", "luck", "--method", "mc"], "--trials", 10**10),
    (["campaign", "percentile", "luck"], "--sessions", 1000),
    (["campaign", "dice_pool_7", "attrition"], "--fights", 1000),
    (["report", "--no-pdf"], "--trials", 10**10),
    (["report", "--no-pdf"], "--combat-trials", 10**10),
    (["run", "scenarios/c7_claim.toml"], "--trials", 10**10),
    (["run", "scenarios/c7_claim.toml"], "--workers", 64),
    (["sweep", "scenarios/ten_again_variants.toml"], "--trials", 10**10),
    (["sweep", "scenarios/ten_again_variants.toml"], "--workers", 64),
    (
        [
            "solve",
            "lethality",
            "--system",
            "d20_degrees",
            "--a",
            "competent",
            "--b",
            "competent",
            "--knob",
            "both.hit_points",
            "--range",
            "1:3",
            "--target",
            "0.5",
        ],
        "--trials",
        10**10,
    ),
    (
        [
            "solve",
            "lethality",
            "--system",
            "d20_degrees",
            "--a",
            "competent",
            "--b",
            "competent",
            "--knob",
            "both.hit_points",
            "--range",
            "1:3",
            "--target",
            "0.5",
        ],
        "--round-cap",
        1000,
    ),
    (["audit"], "--batch", 10**10),
    (["audit"], "--max-trials", 10**10),
    (["tune", "scenarios/tune.toml"], "--batch", 10**10),
    (["tune", "scenarios/tune.toml"], "--max-trials", 10**10),
    (["tune", "scenarios/tune.toml"], "--workers", 64),
    (["sensitivity", "scenarios/tune.toml"], "--batch", 10**10),
    (["sensitivity", "scenarios/tune.toml"], "--max-trials", 10**10),
    (["sensitivity", "scenarios/tune.toml"], "--workers", 64),
    (["warm-up"], "--jobs", 64),
]


@pytest.mark.parametrize("value", ["past", "huge"])
@pytest.mark.parametrize(
    ("argv", "option", "bound"), COUNTS, ids=[f"{' '.join(a[:2])} {o}" for a, o, _ in COUNTS]
)
def test_count_past_its_bound_is_one_line(monkeypatch, tmp_path, argv, option, bound, value):
    """A count past its bound fails before any work: one line naming the option and the
    value, exit 2, no file written (``-o`` points at a file that must not appear)."""
    monkeypatch.chdir(ROOT)
    text = str(bound + 1) if value == "past" else HUGE
    rc, out, err = _run([*argv, option, text])
    _one_line_failure(rc, err, option, text)
    assert out == ""


@pytest.mark.parametrize(
    ("argv", "option", "bound"), COUNTS, ids=[f"{' '.join(a[:2])} {o}" for a, o, _ in COUNTS]
)
def test_count_at_its_bound_parses(argv, option, bound):
    """The bound itself is accepted (parsed only: running 10^10 trials is not a test)."""
    if argv[0] == "campaign":  # the mechanic's options are parsed by its own parser
        from cli.campaign import mechanic_parser
        from engines.campaign import mechanic

        opts = mechanic_parser(mechanic(argv[1], argv[2])).parse_args(
            [*argv[3:], option, str(bound)]
        )
    else:
        opts = build_parser().parse_args([*argv, option, str(bound)])
    dest = option.lstrip("-").replace("-", "_")
    dest = {"fights": "sessions"}.get(dest, dest)
    assert getattr(opts, dest) == bound


#: Options that count something (trials, rounds, sessions, processes, seeds): each must
#: be bounded (a case above, or a seed: 0..2^128 - 1).
COUNT_DESTS = {
    "trials",
    "combat_trials",
    "round_cap",
    "sessions",
    "workers",
    "jobs",
    "batch",
    "max_trials",
}


def _all_parsers() -> dict[str, argparse.ArgumentParser]:
    from cli.campaign import mechanic_parser
    from engines.campaign import campaign_systems, mechanics

    out = {}

    def walk(name, parser):
        out[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, p in action.choices.items():
                    walk(f"{name} {sub}".strip(), p)

    walk("", build_parser())
    for system in campaign_systems():
        for name, mech in mechanics(system).items():
            out[f"campaign {system} {name}"] = mechanic_parser(mech)
    return out


def test_every_count_option_is_covered_and_bounded():
    """Every count option of every command (campaign mechanics included) refuses a
    22-digit number, and each command's count options appear in COUNTS."""
    covered = {(a[0] if a[0] != "solve" else "solve lethality", o) for a, o, _ in COUNTS}
    missing = []
    for name, parser in _all_parsers().items():
        for action in parser._actions:
            if action.dest not in COUNT_DESTS | {"seed"} or not action.option_strings:
                continue
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(str(2**128) if action.dest == "seed" else HUGE)
            command = "campaign" if name.startswith("campaign ") else name
            flag = action.option_strings[0]
            if action.dest != "seed" and (command, flag) not in covered:
                missing.append(f"{name} {flag}")
    assert missing == []


@pytest.mark.parametrize(
    "argv",
    [
        ["curves", "d20_degrees", "--seed", str(2**128)],
        ["duel", "d20_degrees", "competent", "competent", "--seed", str(2**128)],
        ["run", "scenarios/c7_claim.toml", "--seed", str(2**63)],
    ],
)
def test_seeds_are_bounded(monkeypatch, argv):
    monkeypatch.chdir(ROOT)
    rc, _, err = _run(argv)
    _one_line_failure(rc, err, "--seed")


@pytest.mark.parametrize("se", ["1e-9", "4.9e-6", "0", "0.5", "nan", "inf"])
def test_report_se_is_bounded_by_the_trial_bound(se):
    """``report --se SE`` means ceil(0.25 / SE^2) trials: past 10^10 trials it is refused
    like ``--trials`` is (0.25 / (4.9e-6)^2 = 1.04e10)."""
    rc, _, err = _run(["report", "--no-pdf", "--se", se])
    _one_line_failure(rc, err, "--se", se)


def test_report_se_at_the_bound_parses():
    opts = build_parser().parse_args(["report", "--se", "5e-6"])
    assert opts.se == 5e-6


# ---------------------------------------------------------------- system ids


@pytest.mark.parametrize(
    "argv",
    [
        ["duel", "{s}", "competent", "competent"],
        ["archetypes", "{s}"],
        ["gear", "{s}"],
        ["curves", "{s}"],
        ["opposed", "{s}"],
        ["campaign", "{s}", "attrition"],
    ],
)
def test_every_command_checks_the_system_id_the_same_way(argv):
    """An unknown or misspelt system: the same argparse line on every command ("argument
    SYSTEM: unknown system ... (did you mean ...)"), exit 2."""
    rc, _, err = _run([a.format(s="d2O_degrees") for a in argv])
    _one_line_failure(
        rc,
        err,
        f"rpg-balance {argv[0]}: argument SYSTEM: unknown system "
        "'d2O_degrees' (did you mean 'd20_degrees'?)",
    )


@pytest.mark.parametrize("command", ["duel", "archetypes", "gear"])
def test_combat_commands_parse_the_system_with_system_id(command):
    from cli.common import system_id

    p = _all_parsers()[command]
    action = next(a for a in p._actions if a.dest == "system")
    assert action.type is system_id
    assert action.metavar == "SYSTEM"
