"""``rpg-balance warm-up``: it compiles kernels into numba's cache so that a later process
only loads them, it is a no-op when its stamp matches the engine sources, and bad options
end in one line and exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import warmup
from cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def _env(cache: Path, **extra) -> dict:
    return dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), **extra)


@pytest.mark.slow
def test_warm_up_compiles_and_a_later_process_only_loads(tmp_path):
    """The check kernels (every system's checks: the pool kernel among them) compiled by a
    spawned worker into an empty cache; a fresh process running the same public call then
    loads the pool kernel and compiles (saves) nothing."""
    cache = tmp_path / "numba"
    done = subprocess.run(
        [sys.executable, "-m", "cli", "warm-up", "--group", "checks", "--jobs", "2"],
        cwd=ROOT,
        env=_env(cache),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "compiled 1 kernel groups" in done.stderr
    index = {p.name.split("-")[0] for p in cache.rglob("*.nbi")}
    assert {"pools._pool_kernel", "checks._check_kernel"} <= index
    # a partial warm-up writes no stamp: the full set is not compiled
    assert not list(cache.rglob(warmup.STAMP_NAME))
    code = (
        "from engines.systems.dice_pool_6 import checks as dice_pool_6\n"
        "from engines.systems.dice_pool_7 import checks as dice_pool_7\n"
        "dice_pool_7.monte_carlo([1, 5], trials=1000, seed=3)\n"
        "dice_pool_6.monte_carlo([2], trials=1000, seed=3)\n"
    )
    later = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=_env(cache, NUMBA_DEBUG_CACHE="1"),
        capture_output=True,
        text=True,
    )
    assert later.returncode == 0, later.stderr
    log = later.stdout + later.stderr
    assert any("data loaded" in line and "_pool_kernel" in line for line in log.splitlines()), log[
        -3000:
    ]
    assert "data saved" not in log, log[-3000:]


def test_stamp_makes_warm_up_a_no_op(tmp_path, monkeypatch):
    """With a cheap stand-in group: the first call runs it and writes the stamp, the
    second returns at once; a changed engine source (numba's cache key: size and mtime)
    makes it run again."""
    calls = []
    engines = tmp_path / "engines"
    engines.mkdir()
    src = engines / "kernel.py"
    src.write_text("x = 1\n")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(warmup, "ENGINES", engines)
    monkeypatch.setattr(warmup, "GROUPS", {"fake": ("fake", lambda: calls.append(1))})
    assert not warmup.is_warm()
    assert set(warmup.warm_up(jobs=1, progress=False)) == {"fake"}
    assert warmup.stamp_path().is_file()
    assert warmup.is_warm()
    assert warmup.warm_up(jobs=1, progress=False) == {}
    assert calls == [1]
    os.utime(src, ns=(src.stat().st_atime_ns, src.stat().st_mtime_ns + 10**9))
    assert not warmup.is_warm()
    assert set(warmup.warm_up(jobs=1, progress=False)) == {"fake"}
    assert calls == [1, 1]
    assert warmup.warm_up(jobs=1, progress=False, force=True) == {"fake": pytest.approx(0, abs=1)}
    assert calls == [1, 1, 1]


def test_warm_cli_is_fast_and_imports_no_numba(tmp_path):
    """The warm path (stamp matches) of the real command imports neither numba nor the
    engines' kernels, and says so."""
    cache = tmp_path / "cache"
    env = _env(cache)
    stamp = subprocess.run(
        [sys.executable, "-c", "from analysis import warmup; print(warmup.fingerprint())"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cache.mkdir()
    (cache / warmup.STAMP_NAME).write_text(stamp)
    code = (
        "import sys; from cli.main import main\n"
        "rc = main(['warm-up'])\n"
        "print('RC', rc, 'NUMBA', 'numba' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "RC 0 NUMBA False" in done.stdout
    assert "already compiled" in done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["warm-up", "--jobs", "0"],
        ["warm-up", "--jobs", "two"],
        ["warm-up", "--group", "dice_pool_9"],
        ["warm-up", "--bogus"],
    ],
)
def test_bad_options_exit_2_with_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("system", "kernel"),
    [
        ("dice_pool_7", "fight_kernel"),
        ("dice_pool_6", "fight_kernel"),
        ("middle_3d10", "mc_kernel"),
        ("percentile", "mc_kernel"),
        ("d20_degrees", "fight_kernel"),
    ],
)
def test_attrition_runs_the_combat_kernel_with_one_signature(system, kernel):
    """Campaign attrition (``duel_mc_end``) runs the system's combat kernel itself, with the
    argument types a plain duel passes: after a duel and an attrition run the kernel holds
    exactly one compiled signature (a second one would double its first compile), and the
    warm-up group that compiles the duel therefore covers attrition too."""
    from analysis.combat import archetypes

    eng = archetypes.engine(system)
    names = archetypes.names(system)
    a, b = archetypes.combatant(system, names[0]), archetypes.combatant(system, names[-1])
    eng.duel_mc(a, b, trials=64, seed=1)
    end = eng.duel_mc_end(a, b, 0, trials=64, seed=1)
    assert int(end.sum()) == 64
    assert len(getattr(eng, kernel).signatures) == 1


# ---------------------------------------------------------------- report runs the warm-up


def _fake_report(monkeypatch, tmp_path):
    """Record the order of the warm-up and the report build, both stand-ins (the real
    ones are tested above and in test_report.py)."""
    from reports import build

    calls = []

    def fake_warm_up(groups=None, jobs=2, force=False, progress=True, notes=None):
        calls.append(("warm_up", groups, jobs, progress))
        return {}

    def fake_write(settings, section_fns=None):
        calls.append(("report", settings.systems))
        html = tmp_path / "report.html"
        html.write_text("<html></html>")
        return build.BuildResult(html=html, pdf=None, seconds=0.0, seconds_pdf=0.0, report=None)

    monkeypatch.setattr(warmup, "warm_up", fake_warm_up)
    monkeypatch.setattr(build, "write_report", fake_write)
    return calls


@pytest.mark.parametrize(("flags", "progress"), [([], True), (["--quiet"], False)])
def test_report_runs_the_parallel_warm_up_first(monkeypatch, tmp_path, flags, progress):
    """``rpg-balance report`` on a cold cache compiled its kernels one by one as sections
    first called them: it now runs the warm-up (every group, two worker processes, the
    bar on stderr unless --quiet) before the first section."""
    calls = _fake_report(monkeypatch, tmp_path)
    assert (
        main(["report", "--systems", "d20_degrees", "--no-pdf", "-o", str(tmp_path), *flags]) == 0
    )
    assert calls == [("warm_up", None, 2, progress), ("report", ("d20_degrees",))]


def test_report_no_warm_up_skips_it(monkeypatch, tmp_path):
    calls = _fake_report(monkeypatch, tmp_path)
    assert (
        main(
            ["report", "--systems", "d20_degrees", "--no-pdf", "--no-warm-up", "-o", str(tmp_path)]
        )
        == 0
    )
    assert calls == [("report", ("d20_degrees",))]


@pytest.mark.parametrize(
    "argv",
    [["--variant", "dice_pool_7:again=3"], ["--lang", "fr"], ["-o", "/proc/rpg_balance_out"]],
)
def test_report_bad_input_fails_before_the_warm_up(monkeypatch, tmp_path, argv, capsys):
    calls = _fake_report(monkeypatch, tmp_path)
    assert main(["report", "--no-pdf", "-o", str(tmp_path), *argv]) == 2
    assert calls == []
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


# ---------------------------------------------------------------- every registered system


def test_skipped_names_what_each_plugin_does_not_declare(plugin_installed):
    """With the example plug-in (checks, combat, campaign; no opposed-check rule) and its
    checks-only copy installed, the warm-up skips one line per missing part, and the
    plug-in's combat gets its two groups like a built-in's."""
    lines = warmup.skipped()
    assert lines == [
        "pbta_2d6: no opposed-check rule: the opposed checks skipped",
        "pbta_checks: no opposed-check rule: the opposed checks skipped",
        "pbta_checks: no combat: its combat kernels skipped",
    ]
    groups = warmup.build_groups()
    assert {"pbta_2d6", "pbta_2d6_exact"} <= set(groups)
    assert not {"pbta_checks", "pbta_checks_exact"} & set(groups)


def test_opposed_rule_without_a_kernel_skips_the_opposed_monte_carlo(monkeypatch):
    """An opposed rule but no Monte Carlo check kernel (a plug-in's opposed tables are
    exact only): the checks group compiles the system's single checks, not its opposed
    Monte Carlo, and says so in one line."""
    import dataclasses

    from analysis.checks import curves, opposed
    from engines import system

    real = system.registry()["d20_degrees"]
    bare = dataclasses.replace(
        real, id="d20_bare", checks=dataclasses.replace(real.checks, kernel=None)
    )
    monkeypatch.setattr(system, "registry", lambda refresh=False: {"d20_bare": bare})
    calls = []
    monkeypatch.setattr(
        curves, "success_curves", lambda sid, *a, **k: calls.append(("curves", sid))
    )
    monkeypatch.setattr(
        opposed, "opposed_table", lambda sid, *a, **k: calls.append(("opposed", sid))
    )
    assert warmup.compile_checks() == []
    assert calls == [("curves", "d20_bare")]
    assert warmup.skipped() == [
        "d20_bare: no Monte Carlo check kernel: the opposed Monte "
        "Carlo skipped (its opposed tables are exact only)"
    ]


def test_combat_group_without_duel_mc_end(monkeypatch):
    """``duel_mc_end`` is an optional hook: a combat module without it has its duel
    kernel compiled and one line saying attrition's Monte Carlo needs no kernel of its
    own; with it, both are called."""
    from types import SimpleNamespace

    calls = []
    plain = SimpleNamespace(duel_mc=lambda a, b, **k: calls.append("duel_mc"))
    monkeypatch.setattr(warmup, "archetype_pair", lambda system: (plain, "a", "b"))
    (line,) = warmup.compile_combat_mc("homebrew")
    assert line.startswith("homebrew: no duel_mc_end in its combat module")
    assert calls == ["duel_mc"]
    full = SimpleNamespace(
        duel_mc=plain.duel_mc, duel_mc_end=lambda a, b, d, **k: calls.append(("end", d))
    )
    monkeypatch.setattr(warmup, "archetype_pair", lambda system: (full, "a", "b"))
    assert warmup.compile_combat_mc("homebrew") == []
    assert calls == ["duel_mc", "duel_mc", ("end", 0)]


def test_warm_up_hands_back_the_skipped_lines(tmp_path, monkeypatch, capsys):
    """A full run gives its notes: the registry's skips, then each group's own; the
    command prints each as one ``warm-up: skipped:`` line after the summary."""
    from cli.warmup import warm_up_and_say

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(warmup, "GROUPS", {"fake": ("fake", lambda: ["fake: no X"])})
    monkeypatch.setattr(warmup, "skipped", lambda: ["sys: no Y"])
    notes: list[str] = []
    assert set(warmup.warm_up(jobs=1, progress=False, notes=notes)) == {"fake"}
    assert notes == ["sys: no Y", "fake: no X"]
    warm_up_and_say(jobs=1, force=True, quiet=False)
    err = capsys.readouterr().err.splitlines()
    assert err[-2:] == ["warm-up: skipped: sys: no Y", "warm-up: skipped: fake: no X"]
    assert err[-3].startswith("warm-up: compiled 1 kernel groups in")
