"""CLI: rpg-balance ladder / modifiers / claim-c7 (and opposed wiring): output, errors."""

import io

import pandas as pd
import pytest

from cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ladder_cells_csv(capsys):
    code, out, _ = run(capsys, "ladder")
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert len(t) == 5 * 5 * 4
    row = t[
        (t.system == "percentile") & (t.competence == "competent") & (t.difficulty == "average")
    ].iloc[0]
    assert row.p == pytest.approx(0.65)  # D1: skill 65 at a regular roll


def test_ladder_swinginess_and_plot(tmp_path, capsys):
    out_file, fig = tmp_path / "s.md", tmp_path / "ladder.png"
    code, out, _ = run(
        capsys,
        "ladder",
        "--table",
        "swinginess",
        "--format",
        "markdown",
        "-o",
        str(out_file),
        "--plot",
        str(fig),
    )
    assert code == 0
    assert out == ""
    assert "sd_in_rungs" in out_file.read_text()
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ladder_bad_file_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "l.toml"
    bad.write_text("competence = 3\n")
    target = tmp_path / "out.csv"
    code, _, err = run(capsys, "ladder", "--ladders", str(bad), "-o", str(target))
    assert code == 2
    assert err.count("\n") == 1
    assert str(bad) in err
    assert not target.exists()
    assert list(tmp_path.iterdir()) == [bad]  # no partial file


def test_modifiers_summary(capsys):
    code, out, _ = run(capsys, "modifiers", "middle_3d10", "--summary")
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert set(t["modifier"]) == {"advantage", "disadvantage"}  # B4
    assert (t.loc[t.modifier == "advantage", "mean_delta_pp"] > 0).all()


def test_modifiers_variant_needs_one_system(capsys):
    code, _, err = run(capsys, "modifiers", "--variant", "criticals=false")
    assert code == 2
    assert "single system" in err


def test_claim_c7_summary_and_table(capsys, tmp_path):
    code, out, _ = run(capsys, "claim-c7", "--summary")
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 2  # defaults, then criticals=false
    assert "the criticals rule (C-g2): off" in lines[1]  # criticals=false, in words
    code, out, _ = run(capsys, "claim-c7", "--variant", "criticals=false", "--tolerance", "1")
    t = pd.read_csv(io.StringIO(out))
    assert len(t) == 180
    assert (t["holds"] == (t["delta_pp"].abs() <= 1)).all()
    code, _, err = run(capsys, "claim-c7", "--plot", str(tmp_path / "x.gif"))
    assert code == 2
    assert ".png" in err


def test_opposed_cli_both(capsys):
    code, out, _ = run(
        capsys, "opposed", "dice_pool_6", "--method", "both", "--trials", "3000", "--seed", "4"
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert {"pool_a", "pool_b", "p_exact", "p_mc", "se", "z"} <= set(t.columns)


def test_ladder_variant_changes_its_system_only(capsys):
    """``ladder --variant dice_pool_7:threshold=8`` (A1: a die succeeds on 8+ instead of
    7+, 0.3 a die instead of 0.4): no dice_pool_7 cell gains and some lose; the other
    systems are unchanged."""
    code, out, err = run(capsys, "ladder")
    assert code == 0, err
    base = pd.read_csv(io.StringIO(out))
    code, out, err = run(capsys, "ladder", "--variant", "dice_pool_7:threshold=8")
    assert code == 0, err
    var = pd.read_csv(io.StringIO(out))
    keys = ["system", "competence", "difficulty"]
    m = base.merge(var, on=keys, suffixes=("", "_8"))
    pool = m[m.system == "dice_pool_7"]
    assert (pool.p_8 <= pool.p + 1e-12).all()
    assert (pool.p_8 < pool.p - 1e-6).any()
    other = m[m.system != "dice_pool_7"]
    assert (other.p_8 == other.p).all()
    code, _, err = run(capsys, "ladder", "--variant", "dice_pool7:again=9")
    assert code == 2
    assert "did you mean 'dice_pool_7'" in err


def test_tables_record_what_produced_them(tmp_path, capsys):
    """Every written table says what produced it: csv/markdown/json rows carry system,
    variants, method and trials columns (those the table lacks); parquet carries them as
    file metadata."""
    code, out, err = run(
        capsys,
        "curves",
        "dice_pool_7",
        "--variant",
        "again=9",
        "--method",
        "mc",
        "--trials",
        "1000",
        "--seed",
        "1",
    )
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    assert set(t["variants"]) == {"again=9"}
    assert set(t["method"]) == {"mc"}
    assert set(t["trials"]) == {1000}
    assert set(t["system"]) == {"dice_pool_7"}
    code, out, err = run(capsys, "ladder")
    assert code == 0, err
    assert set(pd.read_csv(io.StringIO(out))["variants"]) == {"defaults"}
    pq = tmp_path / "m.parquet"
    code, _, err = run(
        capsys,
        "modifiers",
        "percentile",
        "--variant",
        "criticals=false",
        "--format",
        "parquet",
        "-o",
        str(pq),
    )
    assert code == 0, err
    import pyarrow.parquet as pq_

    meta = pq_.read_schema(pq).metadata
    assert b"criticals=false" in b"".join(meta.values())
    assert "variants" not in pd.read_parquet(pq).columns
