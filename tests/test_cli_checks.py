"""``rpg-balance curves``: bad input ends in one stderr line and exit 2, never a file.

Covers the input rules of the check tables for every system (unknown system or variant,
invalid variant value, trials 0, seed −1, unknown format) through ``cli.main.main``
and once through a real ``python -m cli`` subprocess.
"""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.checks.curves import success_curves
from cli.main import main
from engines.errors import InputError
from engines.system import get as get_system

ROOT = Path(__file__).resolve().parents[1]

BAD = {
    "unknown-system": ["curves", "dice_pool_8"],
    "unknown-variant": ["curves", "dice_pool_7", "--variant", "agian=9"],
    "invalid-variant-value": ["curves", "dice_pool_7", "--variant", "again=7"],
    "variant-without-value": ["curves", "middle_3d10", "--variant", "doubles"],
    "invalid-bool": ["curves", "d20_degrees", "--variant", "natural_1_fails=perhaps"],
    "trials-0": ["curves", "percentile", "--method", "mc", "--trials", "0"],
    "seed-negative": ["curves", "dice_pool_6", "--seed", "-1"],
    "unknown-format": ["curves", "dice_pool_6", "--format", "xml"],
    "unknown-method": ["curves", "dice_pool_6", "--method", "guess"],
    "no-command": [],
}


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv", list(BAD.values()), ids=list(BAD))
def test_bad_input_one_line_exit_2_no_file(argv, capsys, tmp_path):
    """A1/B1/C1/D1/E1 tables: bad input → exactly one stderr line, exit 2, no output file
    and no stray temporary file."""
    target = tmp_path / "table.csv"
    code, out, err = run([*argv, "-o", str(target)] if argv else argv, capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("error: ")
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_existing_output_survives_a_failed_run(capsys, tmp_path):
    """A run that fails leaves a previous output file byte for byte intact."""
    target = tmp_path / "table.csv"
    assert run(["curves", "percentile", "--seed", "1", "-o", str(target)], capsys)[0] == 0
    before = target.read_bytes()
    code, _, err = run(
        ["curves", "percentile", "--variant", "criticals=sometimes", "-o", str(target)], capsys
    )
    assert code == 2
    assert "criticals" in err
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]


def test_missing_output_folder(capsys, tmp_path):
    """An output path in a folder that does not exist: one line naming the folder."""
    code, _, err = run(["curves", "percentile", "-o", str(tmp_path / "no" / "t.csv")], capsys)
    assert code == 2
    assert "does not exist" in err
    assert len(err.strip().splitlines()) == 1


def test_parquet_needs_a_file(capsys):
    """Binary output to stdout is refused with one line."""
    code, out, err = run(["curves", "percentile", "--format", "parquet"], capsys)
    assert (code, out) == (2, "")
    assert "parquet" in err


def test_curves_csv_content_d1_seed_example(capsys, tmp_path):
    """D1 through the CLI: the written table says STR 60 hard succeeds with P 0.30."""
    target = tmp_path / "p.csv"
    assert run(["curves", "percentile", "-o", str(target)], capsys)[0] == 0
    t = pd.read_csv(target)
    row = t[(t.skill == 60) & (t.level == "hard") & (t.dice == 0)]
    assert float(row["p"].iloc[0]) == pytest.approx(0.30, abs=1e-12)


def test_curves_mc_to_stdout_has_standard_errors(capsys):
    """B1/B2 through the CLI: Monte Carlo tables carry a standard error per cell, and
    3d10 middle + 10 vs average 15 (C ≥ 5, or two 10s; not two 1s) matches enumeration."""
    code, out, err = run(
        [
            "curves",
            "middle_3d10",
            "--method",
            "both",
            "--trials",
            "20000",
            "--seed",
            "3",
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0
    assert err == ""
    t = pd.read_csv(io.StringIO(out))
    assert {"p_exact", "p_mc", "se", "z"} <= set(t.columns)
    row = t[(t.modifier == 10) & (t.difficulty == 15) & (t.roll == "normal")]
    wins = sum(
        1
        for d in itertools.product(range(1, 11), repeat=3)
        if d.count(10) >= 2 or (d.count(1) < 2 and sorted(d)[1] >= 5)
    )
    assert float(row["p_exact"].iloc[0]) == pytest.approx(wins / 1000, abs=1e-12)


def test_subprocess_bad_variant_one_line_no_traceback(tmp_path):
    """The real entry point: exit 2, one stderr line, no traceback, no file."""
    target = tmp_path / "out.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "curves",
            "dice_pool_7",
            "--variant",
            "again=7",
            "-o",
            str(target),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "again" in proc.stderr
    assert not target.exists()


def test_subprocess_seed_minus_one(tmp_path):
    """The real entry point with seed −1: exit 2, one line naming --seed."""
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "curves", "dice_pool_6", "--seed", "-1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "--seed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_api_unknown_system_and_method():
    """The library raises InputError naming the unknown system or method."""
    with pytest.raises(InputError, match="unknown system 'dice_pool_8'"):
        success_curves("dice_pool_8")
    with pytest.raises(InputError, match="unknown system"):
        get_system("fate")
    with pytest.raises(InputError, match="method"):
        success_curves("percentile", "guess")
