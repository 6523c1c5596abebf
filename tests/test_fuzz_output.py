"""Fuzzing bad output paths: every command that writes a file or a folder, given a
folder, a missing parent, a read-only file or an unwritable target, or a full disk, ends
in one line naming the flag and the path, exit code 2; an existing output stays
byte-identical and no temporary file is left beside it (the loader and argument fuzz:
``test_fuzz_cli.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_fuzz_support import GOOD, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.system import BUILT_IN, registry


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One folder the random output paths of :func:`test_fuzz_output_paths` share."""
    d = tmp_path_factory.mktemp("out")
    (d / "good.toml").write_text(GOOD)
    (d / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    return d


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
    "combat": (
        ["combat", "scenarios/combat/knife_duel_percentile.toml", "--method", "exact", "-o", "{o}"],
        "-o",
    ),
    "archetypes": (["archetypes", "d20_degrees", "-o", "{o}"], "-o"),
    "cross-combat": (["cross-combat", "-o", "{o}"], "-o"),
    "cross-combat --plot": (["cross-combat", "--plot", "{o}"], "--plot"),
    "sweep": (["sweep", "{d}/sweepok.toml", "--workers", "0", "-o", "{o}"], "-o"),
    "sweep --sensitivity": (
        ["sweep", "{d}/sweepok.toml", "--workers", "0", "--sensitivity", "{o}"],
        "--sensitivity",
    ),
    "sweep --plot": (
        ["sweep", "{d}/sweepok.toml", "--workers", "0", "-o", "{d}/s.csv", "--plot", "{o}"],
        "--plot",
    ),
    "solve difficulty": (
        [
            "solve",
            "difficulty",
            "--target",
            "0.5",
            "--competence",
            "8",
            "--system",
            "d20_degrees",
            "-o",
            "{o}",
        ],
        "-o",
    ),
    "solve competence": (["solve", "competence", "--system", "d20_degrees", "-o", "{o}"], "-o"),
    "solve lethality": (
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
            "-o",
            "{o}",
        ],
        "-o",
    ),
    "tune": (["tune", "scenarios/tune.toml", "-o", "{o}"], "-o"),
    "tune --plot": (["tune", "scenarios/tune.toml", "-o", "{d}/t.csv", "--plot", "{o}"], "--plot"),
}
#: Commands whose output is a folder (``run -o DIR``, ``report -o DIR``).
FOLDER_WRITERS = {
    "run": (["run", "{d}/good.toml", "-o", "{o}"], "output"),
    "report": (
        ["report", "--systems", "d20_degrees", "--no-pdf", "--quiet", "-o", "{o}"],
        "-o/--output",
    ),
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
    notes = tuple(
        f"note: {sid}: not on the common ladder: " for sid in registry() if sid not in BUILT_IN
    )
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
    if (
        flag == "--plot"
        and path.suffix != ".png"
        and not path.is_dir()
        and path != Path("/proc/version")
    ):
        return path.with_suffix(".png")
    return path


@pytest.mark.parametrize(
    "kind", ["folder", "missing parent", "read-only file", "unwritable", "unwritable folder"]
)
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
    rc, _, err = run_cli([a.format(d=d, o=path) for a in argv])
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
    rc, _, err = run_cli([a.format(d=d, o=path) for a in argv])
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


ENOSPC_CASES = [
    "curves",
    "ladder --plot",
    "claim-c7",
    "archetypes",
    "solve difficulty",
    "solve competence",
    "duel",
]


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
    rc, _, err = run_cli([a.format(d=d, o=path) for a in argv])
    _assert_clean_failure(rc, err, d, before, path, "output")
    assert "no space" in err


def test_disk_full_run_writes_nothing(tmp_path, monkeypatch):
    """``run -o DIR`` with a full disk: no folder, no half set of tables."""
    (tmp_path / "good.toml").write_text(GOOD)
    out = tmp_path / "out"
    _disk_full(monkeypatch)
    rc, _, err = run_cli(["run", str(tmp_path / "good.toml"), "-o", str(out)])
    assert rc == 2, err
    assert "no space" in err
    assert len(err.strip().splitlines()) == 1, err
    assert not out.exists()


OUT_VOCAB = [
    "{d}",
    "{d}/nodir/x.csv",
    "{d}/readonly.csv",
    "/proc/version",
    "/proc/x.csv",
    "{d}/existing.csv",
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
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
    extra = data.draw(
        st.lists(
            st.sampled_from(["--format", "markdown", "json", "--seed", "1", "--quiet"]), max_size=2
        )
    )
    full = [a.format(d=files, o=path) for a in argv] + extra
    (files / "existing.csv").write_bytes(b"precious,data\n1,2\n")
    before = _snapshot(files)
    import os

    cwd = os.getcwd()
    os.chdir(Path(__file__).resolve().parents[1])
    try:
        rc, _, err = run_cli(full)
    finally:
        os.chdir(cwd)
    assert rc == 2, err
    assert err.startswith("error: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert _snapshot(files) == before
    assert not list(files.glob(".*.part"))
