"""``rpg-balance duel / combat / archetypes / cross-combat``: outputs and bad-input paths.

Bad input must end in one line on stderr, exit code 2, and no output file. MC vs exact
rows: within 5 SE + 1/n (the project's tolerance), fixed seeds.
"""

import io
import math
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main
from engines.system import BUILT_IN

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "scenarios" / "combat").glob("*.toml"))


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_duel_both_csv(tmp_path, capsys):
    out = tmp_path / "duel.csv"
    code, _, err = run(
        [
            "duel",
            "dice_pool_7",
            "competent_swordsman",
            "competent_fencer",
            "--method",
            "both",
            "--trials",
            "3000",
            "--seed",
            "1",
            "-o",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    t = pd.read_csv(out)
    assert list(t["method"]) == ["exact", "mc"]
    p, q = t.loc[0, "p_side0"], t.loc[1, "p_side0"]
    assert abs(q - p) <= 5 * math.sqrt(p * (1 - p) / 3000) + 1 / 3000
    assert bool(t.loc[1, "within_5se"])


def test_duel_overrides_and_tables(capsys):
    code, out, err = run(
        [
            "duel",
            "d20_degrees",
            "competent",
            "competent",
            "--armour-a",
            "heavy",
            "--tactic-b",
            "power",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    t = pd.read_json(io.StringIO(out))
    assert t.loc[0, "p_side0"] > 0.5  # Toughness + 4 (E12)
    code, out, _ = run(
        ["duel", "percentile", "competent_shooter", "novice", "--table", "one-hit"], capsys
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    handgun = t[t["weapon"] == "handgun"].iloc[0]
    assert handgun["p_kill"] == pytest.approx(0.09)  # DX4/DX9, hand-worked in the tests
    code, out, _ = run(
        ["duel", "dice_pool_7", "competent_swordsman", "competent_swordsman", "--table", "tactics"],
        capsys,
    )
    assert code == 0
    assert len(pd.read_csv(io.StringIO(out))) == 3
    for table in ("rounds", "standing", "damage"):
        code, out, _ = run(["duel", "middle_3d10", "competent", "novice", "--table", table], capsys)
        assert code == 0
        t = pd.read_csv(io.StringIO(out))
        if table == "rounds":
            assert t["p"].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_matchup_files_run(path, tmp_path, capsys):
    out = tmp_path / "fight.csv"
    code, _, err = run(["combat", str(path), "--trials", "2000", "-o", str(out)], capsys)
    assert code == 0, err
    t = pd.read_csv(out)
    for _, row in t.iterrows():
        assert row["p_side0"] + row["p_side1"] + row["p_neither"] == pytest.approx(1.0)
    code, _, err = run(
        [
            "combat",
            str(path),
            "--trials",
            "2000",
            "--table",
            "standing",
            "--format",
            "parquet",
            "-o",
            str(tmp_path / "s.parquet"),
        ],
        capsys,
    )
    assert code == 0, err
    s = pd.read_parquet(tmp_path / "s.parquet")
    assert set(s["side"]) == {0, 1}


def test_archetypes_listing(capsys):
    code, out, _ = run(["archetypes", "dice_pool_6", "--format", "csv"], capsys)
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert "competent_swordsman" in set(t["archetype"])
    assert (t["system"] == "dice_pool_6").all()


@pytest.mark.slow
def test_cross_combat_with_plot(tmp_path, capsys):
    out, fig = tmp_path / "cross.md", tmp_path / "cross.png"
    code, _, err = run(
        ["cross-combat", "--format", "markdown", "-o", str(out), "--plot", str(fig)], capsys
    )
    assert code == 0, err
    text = out.read_text()
    for system in BUILT_IN:  # the packaged cross_combat.toml's systems
        assert system in text
    assert fig.read_bytes()[:4] == b"\x89PNG"


BAD = [
    (
        ["duel", "dice_pool_7", "expret", "competent_swordsman"],
        "dice_pool_7: unknown archetype 'expret'; known:",
    ),
    (
        ["duel", "dice_pool_7", "competent_swordsman", "competent_fencer", "--weapon-b", "lazer"],
        "unknown weapon 'lazer'",
    ),
    (["duel", "chess", "king", "queen"], "unknown system 'chess'"),
    (
        ["duel", "dice_pool_7", "competent_swordsman", "competent_fencer", "--variant", "x=1"],
        "unknown variant 'x'",
    ),
    (
        ["duel", "dice_pool_7", "competent_swordsman", "competent_fencer", "--trials", "0"],
        "--trials",
    ),
    (
        ["duel", "dice_pool_6", "competent_swordsman", "competent_brawler", "--table", "armour"],
        "no armour",
    ),
    (["archetypes", "chess"], "unknown system 'chess'"),
    (["combat", "does_not_exist.toml"], "no such matchup file"),
    (["cross-combat", "--file", "does_not_exist.toml"], "no such cross-combat file"),
    (
        ["duel", "percentile", "competent", "competent", "--aftermath", "bury"],
        "argument --aftermath: invalid choice: 'bury'",
    ),
    (
        ["combat", str(ROOT / "scenarios" / "combat" / "ambush_3v1.toml"), "--aftermath", "x"],
        "argument --aftermath: invalid choice: 'x'",
    ),
    (["cross-combat", "--aftermath", "heal"], "argument --aftermath: invalid choice: 'heal'"),
    (["duel", "percentile", "competent", "competent", "--variant", "aftermath=bury"], "aftermath"),
]


@pytest.mark.parametrize(("argv", "needle"), BAD, ids=lambda x: str(x)[:40])
def test_bad_input_one_line_exit_2_no_file(argv, needle, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code, _, err = run([*argv, "-o", str(out)], capsys)
    assert code == 2
    assert needle in err
    assert err.strip().count("\n") == 0
    assert "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("system = [", "bad.toml: not valid TOML"),
        (
            'system = "dice_pool_7"\n[[side0]]\narchetype = "soldier"\n[[side1]]\n'
            'archetype = "soldier"\nweapon = "lazer"\n',
            "bad.toml: side1[0].weapon: unknown weapon",
        ),
        (
            'system = "dice_pool_7"\n[[side0]]\narchetype = "nobody"\n[[side1]]\n'
            'archetype = "soldier"\n',
            "bad.toml: side0[0]: unknown archetype 'nobody'",
        ),
    ],
)
def test_bad_matchup_file_cli(text, needle, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    out = tmp_path / "out.csv"
    code, _, err = run(["combat", str(bad), "-o", str(out)], capsys)
    assert code == 2
    assert needle in err
    assert err.strip().count("\n") == 0
    assert not out.exists()


def test_columns_option(capsys, tmp_path):
    code, out, _ = run(
        [
            "duel",
            "dice_pool_6",
            "competent_swordsman",
            "competent_brawler",
            "--columns",
            "method,p_side0",
        ],
        capsys,
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert list(t.columns) == ["method", "p_side0"]
    bad = tmp_path / "x.csv"
    code, _, err = run(
        [
            "duel",
            "dice_pool_6",
            "competent_swordsman",
            "competent_brawler",
            "--columns",
            "nope",
            "-o",
            str(bad),
        ],
        capsys,
    )
    assert code == 2
    assert "--columns: unknown column 'nope'" in err
    assert not bad.exists()


def _fake_duel(monkeypatch):
    """Replace the fight by hand-built stats (10 duels: side 0 wins 6 — its losers 3 dead,
    1 dying, 2 out —, side 1 wins 3 — 1 dead, 0 dying, 2 out —, 1 capped) and record the
    aftermath policy each layer receives."""
    import numpy as np

    from analysis.combat import lethality
    from engines.fight import FightStats

    seen = {"cv": [], "run": []}
    real = lethality.combat_variants

    def fake_cv(system, given=None, aftermath=None):
        seen["cv"].append(aftermath)
        return real(system, given, aftermath)  # the engine's Variants, validated

    def fake_run(system, side0, side1, method, *, variants=None, aftermath=None, **kw):
        seen["run"].append(variants.aftermath)
        st = FightStats.empty(system, 50, trials=10)
        st.outcome[:] = [6, 3, 1]
        st.rounds[2, 0], st.rounds[3, 1], st.rounds[50, 2] = 6, 3, 1
        st.standing[0] = [10, 10]
        st.loser_fate[:] = [[3, 1, 2], [1, 0, 2]]
        st.loser_fate_sq[:] = st.loser_fate
        st.notes["aftermath"] = variants.aftermath
        assert isinstance(st.outcome, np.ndarray)
        return st

    monkeypatch.setattr(lethality, "combat_variants", fake_cv)
    monkeypatch.setattr(lethality, "run_fight", fake_run)
    return seen


@pytest.mark.parametrize("policy", [None, "leave", "first_aid", "finish"])
def test_duel_aftermath_sets_the_combat_variant(policy, monkeypatch, capsys):
    """--aftermath reaches the engine as the combat variant ``aftermath`` (default leave);
    the summary names the policy and gives the loser's fates among the 9 decided duels:
    dead (3 + 1)/9, dying 1/9, out (2 + 2)/9, SE sqrt(p(1 - p)/9); p_loser_dies is gone;
    a and b name archetype, overrides and weapon."""
    seen = _fake_duel(monkeypatch)
    extra = [] if policy is None else ["--aftermath", policy]
    code, out, err = run(
        [
            "duel",
            "percentile",
            "competent",
            "competent",
            "--weapon-a",
            "handgun",
            "--tactic-b",
            "fight_back",
            "--method",
            "mc",
            *extra,
        ],
        capsys,
    )
    assert code == 0, err
    assert seen["cv"] == [policy]
    assert seen["run"] == [policy or "leave"]
    t = pd.read_csv(io.StringIO(out))
    row = t.iloc[0]
    assert row["aftermath"] == (policy or "leave")
    assert row["a"] == "competent (weapon=handgun)"
    assert row["b"] == "competent (weapon=bat, tactic=fight_back)"
    for fate, p in (("dead", 4 / 9), ("dying", 1 / 9), ("out", 4 / 9)):
        assert row[f"p_loser_{fate}"] == pytest.approx(p)
        assert row[f"se_loser_{fate}"] == pytest.approx(math.sqrt(p * (1 - p) / 9))
    assert "p_loser_dies" not in t.columns


def test_combat_aftermath_and_side_fates(monkeypatch, capsys):
    """``combat FILE --aftermath finish``: the policy reaches the variants; per-side fate
    columns (side 0 standing 6 + 1 of 10 …) replace dead_side0/dead_side1."""
    seen = _fake_duel(monkeypatch)
    code, out, err = run(
        ["combat", str(EXAMPLES[0]), "--aftermath", "finish", "--method", "mc"], capsys
    )
    assert code == 0, err
    assert seen["cv"] == ["finish"]
    t = pd.read_csv(io.StringIO(out))
    assert t.loc[0, "aftermath"] == "finish"
    for side in (0, 1):
        for fate in ("standing", "dead", "dying", "out"):
            assert f"p_side{side}_{fate}" in t.columns
            assert f"se_side{side}_{fate}" in t.columns
    assert "dead_side0" not in t.columns


@pytest.mark.slow
def test_cross_combat_accepts_variants(capsys):
    """``cross-combat --help`` advertises --variant and it works: A-g4
    ``weapon_bonus=damage`` moves the weapon's +1/+2 from attack dice to damage, so the
    dice_pool_7 rows change while every other system's rows stay identical."""
    cols = "matchup,system,p_side0,rounds_mean"
    code, out, err = run(["cross-combat", "--columns", cols], capsys)
    assert code == 0, err
    base = pd.read_csv(io.StringIO(out))
    code, out, err = run(
        ["cross-combat", "--columns", cols, "--variant", "dice_pool_7:weapon_bonus=damage"], capsys
    )
    assert code == 0, err
    var = pd.read_csv(io.StringIO(out))
    m = base.merge(var, on=["matchup", "system"], suffixes=("", "_v"))
    other = m[m.system != "dice_pool_7"]
    assert (other.rounds_mean == other.rounds_mean_v).all()
    pool = m[m.system == "dice_pool_7"]
    assert (pool.rounds_mean - pool.rounds_mean_v).abs().max() > 1e-6
    code, _, err = run(["cross-combat", "--variant", "dice_pool_7:weapon_bonu=damage"], capsys)
    assert code == 2
    assert "did you mean 'weapon_bonus'" in err


def test_exact_duel_says_trials_are_ignored(capsys):
    """``duel --trials N`` on the default exact method: one notice line on stderr, and the
    table is the exact one (trials blank)."""
    code, out, err = run(
        ["duel", "d20_degrees", "competent", "competent", "--trials", "500"], capsys
    )
    assert code == 0, err
    notices = [ln for ln in err.splitlines() if ln.startswith("notice:")]
    assert len(notices) == 1
    assert "--trials" in notices[0]
    assert "exact" in notices[0]
    assert pd.read_csv(io.StringIO(out))["method"].tolist() == ["exact"]
    code, _, err = run(
        [
            "duel",
            "d20_degrees",
            "competent",
            "competent",
            "--trials",
            "500",
            "--method",
            "mc",
            "--seed",
            "1",
        ],
        capsys,
    )
    assert code == 0, err
    assert "notice" not in err
