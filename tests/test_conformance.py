"""The conformance check (``analysis.conformance``) over every system, and proof it can fail.

Every system of the registry (the five built-ins) and the plug-in example
(``examples/plugin_system``, ``pbta_2d6``: in process, and installed into a temporary site
folder running its own test) passes every check that applies to it, one pytest id per
system and check (``parametrize_with_checks``, ``<system>-<check>``). Broken copies
fail exactly the check that covers what is broken: exact rows summing to 0.9, a Monte Carlo
kernel rolling a d5 for a d6 or losing trials, a variant check raising ValueError, a
difficulty axis listed hardest first, an opposed tie share of 1.5, a duel kernel that swaps
the sides.

Monte Carlo tolerances are the check's own: ``5 * sqrt(p * (1 - p) / n) + 1 / n`` (five
binomial standard errors plus one count), fixed seed. The built-ins run with
:data:`TRIALS` = 40 000 trials per roll setting, the count the per-system "Monte Carlo vs
exact in every cell" tests used before this check replaced their default-variant cases.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from plugin_site import install_plugin

from analysis.conformance import (
    CHECKS,
    ConformanceError,
    check_system,
    parametrize_with_checks,
)
from engines.errors import InputError
from engines.system import BUILT_IN, get, registry

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"
TRIALS = 40_000
SEED = 20_261_201


@parametrize_with_checks(
    list(registry()), trials=TRIALS, seed=SEED, checks=[c for c in CHECKS if c != "campaign"]
)
def test_every_registered_system_conforms(system, check):
    # a check that does not apply skips the test with its sentence; each built-in
    # declares every part, so none of theirs skips (test_built_ins_declare_every_part)
    assert check(system).status == "passed"


# the campaign check runs Monte Carlo campaigns against the exact ones: 10–45 s a system
@pytest.mark.slow
@parametrize_with_checks(list(registry()), trials=TRIALS, seed=SEED, checks=["campaign"])
def test_every_registered_system_conforms_campaign(system, check):
    assert check(system).status == "passed"


@pytest.mark.parametrize("system", BUILT_IN)
def test_built_ins_declare_every_part(system):
    """Every check applies to a built-in: a check grid, a ladder, an opposed rule, combat
    rules with an archetype library, campaign mechanics."""
    s = get(system)
    assert s.checks.grid is not None
    assert s.checks.opposed is not None
    assert s.ladder is not None
    assert s.combat.archetypes is not None
    assert s.campaign is not None
    assert s.known == ()


@pytest.fixture
def pbta(monkeypatch):
    """The plug-in example's check module (``Variants``, ``exact``, ``monte_carlo`` …) with
    the package's ``PLUGIN``, importable for the test's duration."""
    monkeypatch.syspath_prepend(str(PKG))
    package = importlib.import_module("pbta_2d6")
    checks = importlib.import_module("pbta_2d6.checks")
    return types.SimpleNamespace(
        **{k: v for k, v in vars(checks).items() if not k.startswith("__")}, PLUGIN=package.PLUGIN
    )


@pytest.mark.slow
def test_the_plugin_conforms_and_says_what_it_skipped(pbta):
    before = dict(registry())
    report = check_system(pbta.PLUGIN, trials=TRIALS, seed=SEED)
    assert report.passed == (
        "grid",
        "neutral",
        "exact",
        "monte_carlo",
        "variants",
        "ladder",
        "scenario",
        "combat",
        "campaign",
    )
    assert report.skipped == ("opposed",)
    assert report["opposed"].detail == "the system declares no opposed-check rule"
    # the scenario run read the plug-in's variants and axes (a KeyError once)
    assert "48 rows" in report["scenario"].detail
    # the plug-in stood in for its id only while it was checked
    assert dict(registry()) == before
    frame = report.to_frame()
    assert list(frame["check"]) == list(CHECKS)
    assert set(frame["status"]) == {"passed", "skipped"}


def test_a_checks_only_system_says_what_it_skipped(pbta):
    """A system that declares no combat rules and no campaign mechanics skips those two
    checks, each with one sentence."""
    bare = dataclasses.replace(pbta.PLUGIN, combat=None, campaign=None)
    report = check_system(bare, trials=TRIALS, seed=SEED)
    assert report.skipped == ("opposed", "combat", "campaign")
    assert report["combat"].detail == "the system declares no combat rules"
    assert report["campaign"].detail == "the system declares no campaign mechanics"


def _install(site: Path) -> None:
    install_plugin(site)


@pytest.mark.slow
def test_the_installed_plugin_passes_its_own_two_line_test(tmp_path):
    """The package's test file, run by pytest with the package installed next to
    rpg-balance: its checks find pbta_2d6 through the entry point, one test per check
    (the opposed check skipped: it declares no opposed rule)."""
    site = tmp_path / "site"
    site.mkdir()
    _install(site)
    shutil.copy(PKG / "test_pbta_2d6.py", tmp_path / "test_pbta_2d6.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pbta_2d6.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(CHECKS) - 1} passed, 1 skipped" in done.stdout


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _statements(source: str) -> list[str]:
    """The statements of a piece of code (without a module docstring), layout ignored."""
    body = ast.parse(source).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [ast.dump(node) for node in body]


def test_the_documented_test_is_the_plugin_test():
    """The plug-in how-to (docs/howto/plugin.md, for "my_system") and the example's README
    show the test its package ships: the same statements."""
    own = _statements((PKG / "test_pbta_2d6.py").read_text())
    example = [
        b for b in _python_blocks((PKG / "README.md").read_text()) if "parametrize_with_checks" in b
    ]
    assert [_statements(b) for b in example] == [own]
    howto = (ROOT / "docs" / "howto" / "plugin.md").read_text()
    main = [
        b
        for b in _python_blocks(howto)
        if "parametrize_with_checks" in b and "def test_conforms" in b
    ]
    assert len(main) == 1
    assert _statements(main[0].replace('"my_system"', '"pbta_2d6"')) == own
    # and the how-to names every check the module runs
    section = howto.split("## Check your system", 1)[1]
    section = section.split("\n## ", 1)[0]
    for name in CHECKS:
        assert f"`{name}`" in section, name


# ------------------------------------------------------------ the check can fail


def _fails(system, *, only: tuple[str, ...], **kw) -> ConformanceError:
    """Run the check on a broken system; it must fail exactly ``only``."""
    with pytest.raises(ConformanceError) as caught:
        check_system(system, trials=20_000, seed=SEED, **kw)
    err = caught.value
    assert isinstance(err, AssertionError)
    assert err.report.failed == only
    first = str(err).splitlines()[0]
    assert first.startswith(f"{err.report.system} does not conform: {len(only)} of ")
    return err


def test_exact_rows_that_do_not_sum_to_one_fail_the_exact_check(pbta):
    broken = _with_checks(
        pbta.PLUGIN, exact=lambda settings, variants, n_codes: 0.9 * pbta.exact(settings, variants)
    )
    err = _fails(broken, only=("exact",))
    assert re.search(
        r"pbta_2d6: exact: setting '\w+': the exact row sums to 0\.9, not 1 "
        r"\(3 of 3 rows off by more than 1e-09\)",
        str(err),
    ), str(err)
    # what needs the exact distribution says so rather than failing again
    assert err.report["monte_carlo"].detail == "needs exact, which failed"
    assert err.report["ladder"].status == "skipped"


def _with_checks(system, **hooks):
    """A copy of ``system`` with some of its check hooks replaced."""
    return dataclasses.replace(system, checks=dataclasses.replace(system.checks, **hooks))


def _d5(settings, trials, seed, variants, n_codes):
    """P1 with an off-by-one die: faces 1..5 (numpy's upper bound is exclusive)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((len(settings), n_codes), dtype=np.int64)
    for i, mode in enumerate(settings):
        dice = np.sort(rng.integers(1, 6, size=(trials, 3)), axis=1)
        kept = {
            "normal": dice[:, 0] + dice[:, 1],
            "advantage": dice[:, 1] + dice[:, 2],
            "disadvantage": dice[:, 0] + dice[:, 1],
        }[str(mode)]
        out[i] = np.bincount(kept - 2, minlength=n_codes)
    return out


def _lossy(pbta):
    """Counts that drop every roll of the top code (a histogram one bin short)."""

    def mc(settings, trials, seed, variants, n_codes):
        counts = pbta.monte_carlo(settings, trials, seed, variants)
        counts[:, -1] = 0
        return counts

    return mc


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        (
            lambda pbta: _d5,
            re.compile(
                r"pbta_2d6: monte_carlo: setting '\w+', code \d+ \(value "
                r"\d+\): Monte Carlo [\d.e-]+ vs exact [\d.e-]+, off by .* > "
                r"5 SE \+ 1/n = .* \(n = 20000; \d+ of 33 codes outside\)"
            ),
        ),
        (
            _lossy,
            re.compile(
                r"pbta_2d6: monte_carlo: setting 'normal': the counts sum to \d+, "
                r"not the 20000 trials"
            ),
        ),
    ],
    ids=["d5-for-d6", "lost-trials"],
)
def test_a_wrong_monte_carlo_kernel_fails_the_monte_carlo_check(pbta, kernel, message):
    broken = _with_checks(pbta.PLUGIN, monte_carlo=kernel(pbta))
    err = _fails(broken, only=("monte_carlo",))
    assert message.search(str(err)), str(err)


def test_a_variant_error_that_is_not_an_input_error_fails_the_variants_check(pbta, monkeypatch):
    @dataclasses.dataclass(frozen=True)
    class Variants(pbta.Variants):
        def check(self):  # the right range, the wrong exception
            if not 2 <= self.weak_at <= self.strong_at <= 13:
                raise ValueError(f"weak_at {self.weak_at} must lie in 2..strong_at")

    module = types.ModuleType("pbta_2d6_strict")
    module.__dict__.update({k: v for k, v in vars(pbta).items() if not k.startswith("__")})
    module.Variants = Variants
    monkeypatch.setitem(sys.modules, module.__name__, module)
    broken = _with_checks(pbta.PLUGIN, module=module.__name__)
    err = _fails(broken, only=("variants",))
    assert (
        "pbta_2d6: variants: variant weak_at=-1: raised ValueError (weak_at -1 must lie "
        "in 2..strong_at); expected one engines.errors.InputError"
    ) in str(err)


def test_a_difficulty_axis_listed_hardest_first_fails_the_ladder_check(pbta):
    axes = {**pbta.PLUGIN.checks.axes, "level": ("strong", "weak")}
    err = _fails(_with_checks(pbta.PLUGIN, axes=axes), only=("ladder",))
    # P2: at -3 a strong hit needs 13 (impossible), a weak hit 10+ on 2d6 (6/36)
    assert (
        "pbta_2d6: ladder: difficulty axis 'level': strong → weak at modifier=-3, "
        "roll=normal: P(success) rises from 0 to 0.166667"
    ) in str(err)


def test_a_tie_share_above_one_fails_the_opposed_check():
    d20 = get("d20_degrees")
    rule = dataclasses.replace(d20.checks.opposed, tie=lambda cell, variants: (1.5, False))
    err = _fails(_with_checks(d20, opposed=rule), only=("opposed",), checks=["opposed"])
    assert (
        "d20_degrees: opposed: cell modifier_a=0, modifier_b=0: OpposedRule.tie gives "
        "side a 1.5 of the ties, outside [0, 1]"
    ) in str(err)
    assert get("d20_degrees") is d20  # the registry holds the real one again


def test_a_duel_kernel_that_swaps_the_sides_fails_the_combat_check(monkeypatch):
    """The mirror duel cannot tell; the uneven one (novice vs competent) can."""
    dp7 = get("dice_pool_7")
    real = dp7.combat.engine()
    module = types.ModuleType("combat_swapped")
    module.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
    module.duel_mc = lambda a, b, *args, **kw: real.duel_mc(b, a, *args, **kw)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    swapped = dataclasses.replace(dp7.combat, module=module.__name__)
    err = _fails(dataclasses.replace(dp7, combat=swapped), only=("combat",), checks=["combat"])
    assert re.search(
        r"dice_pool_7: combat: novice vs competent: Monte Carlo p_side0 0\.9\d+ "
        r"vs exact 0\.0\d+",
        str(err),
    ), str(err)


def test_a_crashing_hook_fails_its_check_and_says_where(pbta):
    def check_grid(cells, variants):
        raise ZeroDivisionError("division by zero")

    err = _fails(_with_checks(pbta.PLUGIN, grid=check_grid), only=("grid",), checks=["grid"])
    assert re.search(
        r"pbta_2d6: grid: raised ZeroDivisionError: division by zero \(at "
        r"tests/test_conformance\.py:\d+ in check_grid\)",
        str(err),
    ), str(err)


def test_bad_arguments_are_input_errors():
    with pytest.raises(InputError, match="unknown system 'no_such'"):
        check_system("no_such")
    with pytest.raises(
        InputError, match="check 'monte-carlo': unknown; known: grid, neutral, exact"
    ):
        check_system("dice_pool_7", checks=["monte-carlo"])
    with pytest.raises(InputError, match="trials"):
        check_system("dice_pool_7", trials=0)
