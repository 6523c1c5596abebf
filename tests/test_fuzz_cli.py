"""Fuzzing bad input: the scenario loader and the CLI never crash with a traceback.

Every malformed input ends in one clear message (``error: ...`` on stderr), exit code 2,
and no output file written or truncated: an existing output stays byte-identical and no
temporary file is left beside it. The command-line fuzz runs with the plug-in system
``pbta_2d6`` and its checks-only copy ``pbta_checks`` installed (``plugin_installed`` in
conftest.py); ``pbta_checks`` declares no combat, opposed rule, campaign or modifiers: a
command needing one ends in one line too.
"""

from __future__ import annotations

import contextlib
import io
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from analysis.workflow.scenario import Scenario, load_scenario, parse_scenario
from cli.main import main
from engines.errors import InputError
from engines.system import BUILT_IN, registry

KEYS = ["name", "description", "system", "seed", "method", "variants", "checks", "fights",
        "solve", "sweep", "output", "precision", "trials", "se", "batch", "axes", "pool",
        "successes", "again", "competence", "contrast", "kind", "target", "levels", "format",
        "tables", "plots", "dir", "a", "b", "bogus", "dc", "skill", "level", "dice"]
VALUES = ['"dice_pool_7"', '"percentile"', '"dice_pool_9"', '"x"', '""', "1", "0", "-1",
          "7", "0.5", "2.0", "1e400", "nan", "inf", "true", "false", "[]", "[1, 2]",
          '["expert"]', '["wizard", 3]', "{ pool = [1, 2] }", "{ again = [10, 7] }",
          '{ a = { difficulty = -1 } }', '"mc"', '"exact"', '"difficulty"', '"csv"',
          '"xlsx"', "[[1]]", "{}", "1979-05-27", '"""multi"""']
HEADERS = ["[precision]", "[[checks]]", "[[solve]]", "[sweep]", "[output]", "[[fights]]",
           "[checks]", "[sweep.variants]", "[[checks.axes]]", "[name]"]


@st.composite
def tomlish(draw) -> str:
    """Lines drawn from the schema's own words, in random order and nesting."""
    lines = []
    for _ in range(draw(st.integers(0, 14))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(HEADERS)))
        elif kind == 1:
            lines.append(draw(st.text(max_size=20)))
        else:
            key = draw(st.sampled_from(KEYS))
            if draw(st.booleans()):
                key = f"{key}.{draw(st.sampled_from(KEYS))}"
            lines.append(f"{key} = {draw(st.sampled_from(VALUES))}")
    return "\n".join(lines)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(tomlish(), st.text(max_size=200)))
def test_loader_never_crashes(tmp_path_factory, text):
    """Random TOML-ish text: a valid Scenario or one InputError naming the file."""
    f = tmp_path_factory.mktemp("fuzz") / "scenario.toml"
    f.write_text(text, encoding="utf-8")
    sc = msg = None
    try:
        sc = load_scenario(f)
    except InputError as exc:
        msg = str(exc)
    if msg is not None:
        assert msg.startswith("scenario.toml: ")
    else:
        assert isinstance(sc, Scenario)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-5, 300),
                              st.floats(allow_nan=True), st.text(max_size=12)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.sampled_from(KEYS), inner,
                                                            max_size=5)),
                    max_leaves=20))
def test_parse_random_structures(data):
    """Already-parsed data of any shape (what a TOML file could hold and more)."""
    message = None
    try:
        parse_scenario(data, "s.toml")
    except InputError as exc:
        message = str(exc)
    assert message is None or message.startswith("s.toml: ")


# ---------------------------------------------------------------- the command line

GOOD = """name = "tiny"
system = "d20_degrees"
[[checks]]
axes = { modifier = [0, 5], dc = [10, 15], degree = [1] }
"""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    (d / "good.toml").write_text(GOOD)
    (d / "bad.toml").write_text('name = "bad"\nsystem = "dice_pool_9"\n[[checks]]\n')
    (d / "broken.toml").write_text('name = "x\n')
    (d / "sweepy.toml").write_text(GOOD + '[sweep]\nvariants = { natural_1_fails = [1, 7] }\n')
    (d / "pbta_matchup.toml").write_text('system = "pbta_2d6"\n[[side0]]\narchetype = '
                                         '"competent"\n[[side1]]\narchetype = "competent"\n')
    (d / "pbta_checks_matchup.toml").write_text(
        'system = "pbta_checks"\n[[side0]]\narchetype = "competent"\n[[side1]]\n'
        'archetype = "competent"\n')
    out = d / "existing.csv"
    out.write_bytes(b"precious,data\n1,2\n")
    return d


def _vocabulary(d: Path) -> list[str]:
    return ["run", "sweep", "solve", "difficulty", "competence", "lethality", "curves",
            "--target", "0.7", "1.5", "nan", "-3", "--competence", "expert", "wizard", "12",
            "--system", "dice_pool_7", "d20_degrees", "bogus", "--format", "csv", "xlsx",
            "parquet", "markdown", "-o", str(d / "existing.csv"), str(d / "nodir" / "x.csv"),
            str(d), "--workers", "0", "99", "x", "--scheduler", "nonsense", "tcp://", "--seed",
            "--trials", "--se", "0.0", "--levels", "0.5,2", "--range", "1:5", "5:1",
            "--variant", "again=7", "again=9", "--knob", "a.hp", "--scenario",
            str(d / "bad.toml"), str(d / "broken.toml"), str(d / "missing.toml"),
            str(d / "sweepy.toml"), str(d / "good.toml"), "--method", "mc", "--help-me", "",
            # the plug-in system and the commands it has no part for; counts past bounds
            "pbta_2d6", "pbta_checks", "duel", "archetypes", "gear", "opposed", "campaign",
            "attrition",
            "competent", "--round-cap", "1000000000000000000000", "10000000001",
            str(d / "pbta_matchup.toml")]


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:  # argparse --help
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def _check_failure(rc, err, d: Path):
    assert rc == 2, err
    assert err.startswith("error: "), err
    assert "Traceback" not in err
    assert (d / "existing.csv").read_bytes() == b"precious,data\n1,2\n"
    assert not list(d.glob(".*.part"))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_argv(files, plugin_installed, data):
    """Random argument lists from the CLI's own words (the plug-in's id among them): 0 (a
    valid request), or exit 2 with one error message and the existing output untouched."""
    vocab = _vocabulary(files)
    argv = data.draw(st.lists(st.sampled_from(vocab), min_size=0, max_size=8))
    # a valid sweep would start a Dask cluster: that is test_sweep's business
    assume(not ("sweep" in argv and str(files / "good.toml") in argv))
    (files / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    rc, _, err = _run(argv)
    if rc != 0:
        _check_failure(rc, err, files)


@pytest.mark.parametrize("argv", [
    ["run", "{d}/bad.toml", "-o", "{d}/existing.csv"],
    ["run", "{d}/broken.toml"],
    ["run", "{d}/missing.toml"],
    ["run", "{d}/good.toml", "-o", "{d}/existing.csv"],
    ["run", "{d}/good.toml", "--format", "parquet"],
    ["sweep", "{d}/good.toml", "-o", "{d}/existing.csv"],
    ["sweep", "{d}/sweepy.toml", "-o", "{d}/existing.csv"],
    ["sweep", "{d}/bad.toml", "--workers", "0", "-o", "{d}/existing.csv"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "wizard", "-o",
     "{d}/existing.csv"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "7", "-o", "{d}/existing.csv"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "expert", "-o",
     "{d}/nodir/x.csv"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "expert", "--format",
     "parquet"],
    ["solve", "difficulty", "--target", "0.7", "--competence", "expert", "--variant",
     "again=9"],
    ["solve", "competence", "--levels", "0.5,1.2"],
    ["solve", "lethality", "--system", "d20_degrees", "--scenario", "{d}/good.toml",
     "--knob", "a.hit_points", "--range", "1:40", "--target", "0.7", "-o",
     "{d}/existing.csv"],
    ["solve", "lethality", "--system", "d20_degrees", "--scenario", "{d}/good.toml",
     "--knob", "hp", "--range", "1:40", "--target", "0.7"],
])
def test_known_bad_commands(files, argv):
    argv = [a.format(d=files) for a in argv]
    (files / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    rc, _, err = _run(argv)
    _check_failure(rc, err, files)
    assert len(err.splitlines()) >= 1


#: Commands that need a part the checks-only plug-in does not declare (combat, opposed
#: rule, campaign, modifiers): each ends in one line naming the system and what it lacks.
PLUGIN_BAD = [
    ["duel", "pbta_checks", "competent", "competent", "-o", "{d}/existing.csv"],
    ["duel", "pbta_checks", "competent", "expert", "--table", "one-hit"],
    ["duel", "pbta_checks", "competent", "expert", "--method", "mc", "--trials", "100"],
    ["archetypes", "pbta_checks", "-o", "{d}/existing.csv"],
    ["gear", "pbta_checks"],
    ["opposed", "pbta_checks", "--method", "both"],
    ["campaign", "pbta_checks", "attrition"],
    ["combat", "{d}/pbta_checks_matchup.toml", "-o", "{d}/existing.csv"],
    ["cross-combat", "--variant", "pbta_checks:strong_at=12"],
    ["solve", "lethality", "--system", "pbta_checks", "--a", "competent", "--b", "competent",
     "--knob", "both.hit_points", "--range", "1:3", "--target", "0.5"],
    ["modifiers", "pbta_checks", "--variant", "no_such=1"],
    ["curves", "pbta_checks", "--method", "mc", "--trials", "10000000001"],
]


@pytest.mark.parametrize("argv", PLUGIN_BAD, ids=[" ".join(a[:2]) for a in PLUGIN_BAD])
def test_plugin_without_a_part_is_one_line(files, plugin_installed, argv):
    argv = [a.format(d=files) for a in argv]
    (files / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    rc, _, err = _run(argv)
    _check_failure(rc, err, files)
    assert len(err.strip().splitlines()) == 1, err
    if argv[0] in ("duel", "archetypes", "gear", "opposed", "campaign", "combat"):
        assert "pbta_checks" in err, err
        assert "declares no" in err, err


def test_plugin_is_installed_in_this_process(plugin_installed):
    """Positive control: the plug-in answers in this process (P2: +0 hits on 7+, 21/36)."""
    rc, out, err = _run(["curves", "pbta_2d6", "--columns", "modifier,roll,level,p"])
    assert rc == 0, err
    assert "0,normal,weak,0.58333" in out


def test_lethality_without_combat_engine_says_so(files):
    """A system that declares no combat rules answers with the one standard line."""
    import dataclasses

    from engines import system as systems_api

    no_combat = dataclasses.replace(systems_api.get("d20_degrees"), combat=None)
    with systems_api.registered(no_combat):
        rc, _, err = _run(["solve", "lethality", "--system", "d20_degrees", "--scenario",
                           str(files / "good.toml"), "--knob", "a.hit_points", "--range",
                           "1:40", "--target", "0.7"])
    assert rc == 2
    assert "d20_degrees: this system declares no combat rules" in err


def test_valid_commands_write(files, tmp_path):
    """Positive controls: the same commands with good input succeed and write output."""
    out = tmp_path / "d.csv"
    rc, _, err = _run(["solve", "difficulty", "--target", "0.5", "--competence", "8",
                       "--system", "d20_degrees", "-o", str(out)])
    assert rc == 0, err
    assert "DC 19" in out.read_text()
    rc, text, err = _run(["run", str(files / "good.toml"), "--format", "json"])
    assert rc == 0, err
    assert '"dc":15' in text.replace(" ", "")
    rc, text, _ = _run(["run", "--help"])
    assert rc == 0
    assert "examples:" in text


def test_help_starts_fast():
    """``rpg-balance --help`` imports no numba, pandas, pydantic or dask (lazy imports);
    the measured wall time is printed, not asserted (timing assertions are flaky)."""
    import subprocess
    import sys
    import time

    code = ("import sys; from cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('numba', 'pandas', 'pydantic', 'dask', 'distributed', "
            "'matplotlib') if m in sys.modules]\nprint('HEAVY', heavy)")
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    elapsed = time.perf_counter() - t
    assert "HEAVY []" in res.stdout
    assert "run" in res.stdout
    assert "sweep" in res.stdout
    assert "solve" in res.stdout
    print(f"rpg-balance --help: {elapsed:.3f} s")


def test_toml_values_roundtrip_types():
    """Sanity for the fuzz vocabulary: each value is valid TOML on its own."""
    for v in VALUES:
        if v in ("nan", "inf"):
            continue
        tomllib.loads(f"k = {v}")


# ---------------------------------------------------------------- output paths

#: One cheap invocation of every command that writes a file, and the flag that names it.
#: ``{o}`` is replaced by the output path under test.
WRITERS = {
    "curves": (["curves", "d20_degrees", "-o", "{o}"], "-o"),
    "opposed": (["opposed", "d20_degrees", "-o", "{o}"], "-o"),
    "ladder": (["ladder", "--table", "anchor", "-o", "{o}"], "-o"),
    "ladder --plot": (["ladder", "--plot", "{o}"], "--plot"),
    "modifiers": (["modifiers", "percentile", "--summary", "-o", "{o}"], "-o"),
    "modifiers --plot": (["modifiers", "percentile", "--plot", "{o}"], "--plot"),
    "claim-c7": (["claim-c7", "--summary", "-o", "{o}"], "-o"),
    "claim-c7 --plot": (["claim-c7", "--plot", "{o}"], "--plot"),
    "duel": (["duel", "d20_degrees", "competent", "competent", "-o", "{o}"], "-o"),
    "combat": (["combat", "scenarios/combat/knife_duel_percentile.toml", "--method", "exact",
                "-o", "{o}"], "-o"),
    "archetypes": (["archetypes", "d20_degrees", "-o", "{o}"], "-o"),
    "cross-combat": (["cross-combat", "-o", "{o}"], "-o"),
    "cross-combat --plot": (["cross-combat", "--plot", "{o}"], "--plot"),
    "sweep": (["sweep", "{d}/sweepok.toml", "--workers", "0", "-o", "{o}"], "-o"),
    "sweep --sensitivity": (["sweep", "{d}/sweepok.toml", "--workers", "0",
                             "--sensitivity", "{o}"], "--sensitivity"),
    "sweep --plot": (["sweep", "{d}/sweepok.toml", "--workers", "0", "-o", "{d}/s.csv",
                      "--plot", "{o}"], "--plot"),
    "solve difficulty": (["solve", "difficulty", "--target", "0.5", "--competence", "8",
                          "--system", "d20_degrees", "-o", "{o}"], "-o"),
    "solve competence": (["solve", "competence", "--system", "d20_degrees", "-o", "{o}"],
                         "-o"),
    "solve lethality": (["solve", "lethality", "--system", "d20_degrees", "--a", "competent",
                         "--b", "competent", "--knob", "both.hit_points", "--range", "1:3",
                         "--target", "0.5", "-o", "{o}"], "-o"),
    "tune": (["tune", "scenarios/tune.toml", "-o", "{o}"], "-o"),
    "tune --plot": (["tune", "scenarios/tune.toml", "-o", "{d}/t.csv", "--plot", "{o}"],
                    "--plot"),
}
#: Commands whose output is a folder (``run -o DIR``, ``report -o DIR``).
FOLDER_WRITERS = {
    "run": (["run", "{d}/good.toml", "-o", "{o}"], "output"),
    "report": (["report", "--systems", "d20_degrees", "--no-pdf", "--quiet", "-o", "{o}"],
               "-o/--output"),
}
PRECIOUS = b"precious,data\n1,2\n"
SWEEP_OK = GOOD + "[sweep]\nvariants = { natural_1_fails = [true, false] }\n"


def _bad_target(kind: str, d: Path) -> Path:
    """An output path of the given kind of trouble (a file path for file writers)."""
    if kind == "folder":
        return d
    if kind == "missing parent":
        return d / "nodir" / "x.csv"
    if kind == "read-only file":
        f = d / "readonly.csv"
        f.write_bytes(PRECIOUS)
        f.chmod(0o444)
        return f
    if kind == "unwritable":
        return Path("/proc/version")
    if kind == "unwritable folder":
        return Path("/proc/rpg_balance_out.csv")
    raise AssertionError(kind)


def _snapshot(d: Path) -> dict:
    return {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}


def _without_ladder_notes(err: str) -> list[str]:
    """The lines of ``err`` but the one note per installed plug-in that the common ladder
    leaves out (``note: <id>: not on the common ladder: ...``,
    :func:`analysis.checks.ladders.left_out`); with the built-ins alone, every line."""
    notes = tuple(f"note: {sid}: not on the common ladder: " for sid in registry()
                  if sid not in BUILT_IN)
    return [ln for ln in err.strip().splitlines() if not (notes and ln.startswith(notes))]


def _assert_clean_failure(rc, err, d: Path, before: dict, path: Path, flag: str):
    assert rc == 2, err
    lines = _without_ladder_notes(err)
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    assert flag in lines[0], err
    assert str(path) in lines[0], err
    assert _snapshot(d) == before  # existing files byte-identical, nothing new
    assert not list(d.glob(".*.part"))
    assert not list(d.glob(".*probe*"))


def _plot_path(path: Path, flag: str) -> Path:
    """A --plot path needs a figure extension to reach the path checks."""
    if flag == "--plot" and path.suffix != ".png" and not path.is_dir() \
            and path != Path("/proc/version"):
        return path.with_suffix(".png")
    return path


@pytest.mark.parametrize("kind", ["folder", "missing parent", "read-only file",
                                  "unwritable", "unwritable folder"])
@pytest.mark.parametrize("name", list(WRITERS))
def test_bad_output_path_every_command(tmp_path, name, kind, monkeypatch):
    """Every file writer: a folder, a missing folder, a read-only file, an unwritable
    target → one line naming the flag and the path, exit 2, nothing written."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    d = tmp_path
    (d / "sweepok.toml").write_text(SWEEP_OK)
    (d / "existing.csv").write_bytes(PRECIOUS)
    argv, flag = WRITERS[name]
    path = _plot_path(_bad_target(kind, d), flag)
    if kind == "read-only file" and flag == "--plot":
        path.write_bytes(PRECIOUS)
        path.chmod(0o444)
    before = _snapshot(d)
    rc, _, err = _run([a.format(d=d, o=path) for a in argv])
    _assert_clean_failure(rc, err, d, before, path, flag)


@pytest.mark.parametrize("kind", ["file", "unwritable folder"])
@pytest.mark.parametrize("name", list(FOLDER_WRITERS))
def test_bad_output_folder(tmp_path, name, kind, monkeypatch):
    """``run -o DIR`` and ``report -o DIR``: a file in place of the folder, or a folder
    that cannot be written → one line, exit 2, nothing written."""
    d = tmp_path
    (d / "good.toml").write_text(GOOD)
    (d / "existing.csv").write_bytes(PRECIOUS)
    path = d / "existing.csv" if kind == "file" else Path("/proc/rpg_balance_out")
    argv, flag = FOLDER_WRITERS[name]
    before = _snapshot(d)
    rc, _, err = _run([a.format(d=d, o=path) for a in argv])
    _assert_clean_failure(rc, err, d, before, path, flag)


def _disk_full(monkeypatch):
    """Every file write raises ENOSPC (tables, text and figures)."""
    import errno
    import os

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    from matplotlib.figure import Figure

    monkeypatch.setattr(Path, "write_text", full)
    monkeypatch.setattr(Path, "write_bytes", full)
    monkeypatch.setattr(Figure, "savefig", full)


ENOSPC_CASES = ["curves", "ladder --plot", "claim-c7", "archetypes", "solve difficulty",
                "solve competence", "duel"]


@pytest.mark.parametrize("name", ENOSPC_CASES)
def test_disk_full(tmp_path, name, monkeypatch):
    """A full disk while writing: one line naming the path and 'no space', exit 2, the
    previous file byte-identical, no temporary file."""
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    d = tmp_path
    argv, flag = WRITERS[name]
    path = d / ("existing.png" if flag == "--plot" else "existing.csv")
    path.write_bytes(PRECIOUS)
    before = _snapshot(d)
    _disk_full(monkeypatch)
    rc, _, err = _run([a.format(d=d, o=path) for a in argv])
    _assert_clean_failure(rc, err, d, before, path, "output")
    assert "no space" in err


def test_disk_full_run_writes_nothing(tmp_path, monkeypatch):
    """``run -o DIR`` with a full disk: no folder, no half set of tables."""
    (tmp_path / "good.toml").write_text(GOOD)
    out = tmp_path / "out"
    _disk_full(monkeypatch)
    rc, _, err = _run(["run", str(tmp_path / "good.toml"), "-o", str(out)])
    assert rc == 2, err
    assert "no space" in err
    assert len(err.strip().splitlines()) == 1, err
    assert not out.exists()


OUT_VOCAB = ["{d}", "{d}/nodir/x.csv", "{d}/readonly.csv", "/proc/version",
             "/proc/x.csv", "{d}/existing.csv"]


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_output_paths(files, data):
    """Random bad output paths for random commands (and random flags around them): exit 2
    with one line, existing files untouched, nothing left behind."""
    name = data.draw(st.sampled_from(list(WRITERS)))
    argv, flag = WRITERS[name]
    target = data.draw(st.sampled_from(OUT_VOCAB[:-1]))
    (files / "sweepok.toml").write_text(SWEEP_OK)
    ro = files / "readonly.csv"
    if not ro.exists():
        ro.write_bytes(PRECIOUS)
        ro.chmod(0o444)
    path = target.format(d=files)
    if flag == "--plot" and path.endswith(".csv"):
        path = path[:-4] + ".png"
        if target == "{d}/readonly.csv":
            rp = Path(path)
            if not rp.exists():
                rp.write_bytes(PRECIOUS)
                rp.chmod(0o444)
    extra = data.draw(st.lists(st.sampled_from(["--format", "markdown", "json", "--seed",
                                                "1", "--quiet"]), max_size=2))
    full = [a.format(d=files, o=path) for a in argv] + extra
    (files / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    before = _snapshot(files)
    import os
    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parents[1])
    try:
        rc, _, err = _run(full)
    finally:
        os.chdir(cwd)
    assert rc == 2, err
    assert err.startswith("error: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert _snapshot(files) == before
    assert not list(files.glob(".*.part"))
