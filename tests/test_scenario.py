"""Scenario files: all-at-once validation messages, and the shipped examples end to end.

Rule ids exercised: A1 (ten-again variants), C1, C-g2, C7 (the "−1 difficulty ≡ +2 dice"
claim), D1, D4 (percentile levels and bonus dice), B2, E1 (named difficulties).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from analysis.workflow.run import run_scenario
from analysis.workflow.scenario import load_scenario, parse_scenario
from cli.main import main
from engines.errors import InputError
from engines.system import BUILT_IN, registry

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "scenarios").glob("*.toml"))


def plugins() -> list[str]:
    """The installed systems beyond the built-ins, in registry order."""
    return [sid for sid in registry() if sid not in BUILT_IN]


def problems(text: str, tmp_path: Path, name: str = "scenario.toml") -> list[str]:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError) as info:
        load_scenario(f)
    msg = str(info.value)
    lines = msg.splitlines()
    return [ln.strip() for ln in (lines[1:] if len(lines) > 1 else lines)]


# ---------------------------------------------------------------- validation


def test_every_problem_reported_at_once(tmp_path):
    text = """
name = "bad"
system = "dice_pool_7"
seed = -1
methd = "mc"
[precision]
trials = 100
se = 0.01
[[checks]]
system = "dice_pool_9"
[[checks]]
axes = { pool = [1, "x"], succeses = [1] }
competence = ["wizard"]
[sweep]
variants = { again = [10, 7] }
[output]
format = "xlsx"
"""
    got = problems(text, tmp_path)
    expected = [
        "scenario.toml: checks[0].system: unknown system 'dice_pool_9' (did you mean "
        "'dice_pool_7' or 'dice_pool_6'?); known: dice_pool_7, middle_3d10, dice_pool_6, "
        "percentile, d20_degrees" + "".join(f", {p}" for p in plugins()),
        "scenario.toml: sweep.variants.again: 7 is not allowed; choose 10 | 9 | 8 | none",
        "scenario.toml: seed: expected a value at least 0, got -1",
        "scenario.toml: output.format: 'xlsx' is not allowed; choose csv | json | markdown "
        "| parquet",
        "scenario.toml: precision: give trials or se, not both",
        "scenario.toml: checks[1].axes.pool[1]: expected a whole number, got 'x'",
        "scenario.toml: checks[1].axes.succeses: not an axis of dice_pool_7 (did you mean "
        "'successes'?); known: pool, successes",
        "scenario.toml: checks[1].competence[0]: unknown ladder name 'wizard'; known: "
        "untrained, novice, competent, expert, master",
        "scenario.toml: checks[1].competence: also given as axes.pool; use one of them",
    ]
    for line in expected:
        assert line in got, (line, got)
    assert any(
        g.startswith("scenario.toml: methd: unknown key (did you mean 'method'?); known: name,")
        for g in got
    )
    assert len(got) == len(expected) + 1


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('name = "x\n', "scenario.toml: not valid TOML"),
        ('name = "x"\n', "scenario.toml: (top level): nothing to do"),
        ('[[checks]]\nsystem = "percentile"\n', "scenario.toml: name: required key is missing"),
        (
            'name = "x"\n[[checks]]\naxes = { pool = [1] }\n',
            "scenario.toml: checks[0].system: required key is missing",
        ),
        (
            'name = "x"\nsystem = "percentile"\n[[checks]]\naxes = { level = ["impossible"] }\n',
            "scenario.toml: checks[0].axes.level[0]: 'impossible' is not allowed; choose regular | "
            "hard | extreme",
        ),
        (
            'name = "x"\nsystem = "dice_pool_6"\n[[checks]]\n[sweep]\nvariants = { again = [9] }\n',
            "scenario.toml: sweep.variants.again: not a variant of dice_pool_6",
        ),
        (
            'name = "x"\n[[solve]]\nkind = "difficulty"\ntarget = 0.5\ncompetence = 7\n',
            "scenario.toml: solve[0].competence: a native value needs exactly one system",
        ),
        (
            'name = "x"\nsystem = "dice_pool_6"\n[[checks]]\n[output]\nformat = "parquet"\n',
            "scenario.toml: output.format: parquet needs an output folder",
        ),
        (
            'name = "x"\nsystem = "d20_degrees"\n[[checks]]\nname = "a"\n[[checks]]\nname = "a"\n',
            "scenario.toml: checks[1].name: 'a' is already the name of checks[0]",
        ),
        (
            'name = "x"\nsystem = "d20_degrees"\n[[checks]]\ncompetence = ["expert"]\n'
            "axes = { modifier = [3] }\n",
            "scenario.toml: checks[0].competence: also given as axes.modifier",
        ),
        (
            'name = "x"\nsystem = "percentile"\n[[checks]]\naxes = { skill = [1, 50] }\n'
            "contrast = { a = { skill = -5 } }\n",
            "scenario.toml: checks[0].contrast.a.skill: offset -5 moves skill out of range (to -4)",
        ),
    ],
)
def test_single_problems(tmp_path, text, line):
    got = problems(text, tmp_path)
    assert any(g.startswith(line) for g in got), got


def test_fights_need_a_combat_engine(tmp_path, monkeypatch):
    """Fights validate only when the system's combat engine is installed (registry)."""
    import sys
    import types

    text = 'name = "duel"\n[[fights]]\nsystem = "middle_3d10"\na = { vigor = 3 }\n'
    monkeypatch.delitem(sys.modules, "engines.systems.middle_3d10.combat", raising=False)
    from analysis.combat import fights

    if not fights.available()["middle_3d10"]:
        got = problems(text, tmp_path)
        assert got[0].startswith(
            "scenario.toml: fights[0].system: no combat engine for middle_3d10"
        )
    monkeypatch.setitem(
        sys.modules,
        "engines.systems.middle_3d10.combat",
        types.ModuleType("engines.systems.middle_3d10.combat"),
    )
    # the stand-in engine takes plain mappings: bypass the combatant loader (which
    # validates fighters against the real engine's traits)
    monkeypatch.setattr(fights, "fighter", lambda system, spec: spec)
    f = tmp_path / "duel.toml"
    f.write_text(text)
    sc = load_scenario(f)
    assert sc.fights[0].a == {"vigor": 3}
    assert sc.tables() == ["fights"]


def test_missing_file_and_not_a_table(tmp_path):
    with pytest.raises(InputError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="expected a table"):
        parse_scenario([1, 2], "x.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        load_scenario(tmp_path / "bin.toml")


# ---------------------------------------------------------------- examples end to end


def test_examples_shipped():
    names = {p.name for p in EXAMPLES}
    assert {
        "expert_vs_difficulties.toml",
        "c7_claim.toml",
        "ten_again_variants.toml",
        "percentile_bonus_dice.toml",
    } <= names


def _dp6_at_least(pool: int, need: int) -> float:
    """C1, C-g1, C-g2: a die-by-die walk (see tests/test_solvers.py for the icepool check)."""
    dist = np.zeros((4 * max(pool, 1) + 2, 2))
    dist[0, 0] = 1.0
    for _ in range(pool):
        nxt = 0.5 * dist
        nxt[1:] += 0.4 * dist[:-1]
        nxt[1:, 1] += 0.1 * dist[:-1, 0]
        nxt[3:, 0] += 0.1 * dist[:-3, 1]
        dist = nxt
    return float(dist.sum(axis=1)[max(need, 0) :].sum())


def test_c7_claim_scenario():
    """C7: p_a = P(pool, difficulty − 1), p_b = P(pool + 2, difficulty), against the oracle;
    ``holds`` exactly where they differ by at most the file's tolerance (0.05)."""
    sc = load_scenario(ROOT / "scenarios" / "c7_claim.toml")
    res = run_scenario(sc, progress=False)
    table = res.tables["checks"]
    assert len(table) == 10 * 5
    for row in table.itertuples():
        assert row.p_a == pytest.approx(_dp6_at_least(row.pool, row.difficulty - 1), abs=1e-12)
        assert row.p_b == pytest.approx(_dp6_at_least(row.pool + 2, row.difficulty), abs=1e-12)
        assert row.holds == (abs(row.p_b - row.p_a) <= 0.05)
    # the claim breaks somewhere and holds somewhere: both are reported
    assert table["holds"].any()
    assert not table["holds"].all()
    sweep = res.tables["sweep"]
    assert set(sweep["criticals"]) == {"true", "false"}
    sens = res.tables["sensitivity"]
    assert sens.iloc[0]["knob"] in ("pool", "difficulty")
    assert sens.loc[sens["knob"] == "criticals", "rank"].iloc[0] == 3


def test_expert_vs_difficulties_scenario(tmp_path):
    """B2 / E1 named difficulties for the ladder rungs (values from the ladder in force),
    against enumeration: E1–E3 (a natural 1 fails, a natural 20 counts +5) and B1, B3
    (the middle of 3d10; two 10s succeed, two 1s fail)."""
    import itertools

    from analysis.checks.ladders import load_competence_ladder

    ladder = load_competence_ladder()
    sc = load_scenario(ROOT / "scenarios" / "expert_vs_difficulties.toml")
    res = run_scenario(sc, progress=False)
    checks = res.tables["checks"]
    m = ladder["d20_degrees"]["expert"]
    d20 = checks[(checks["system"] == "d20_degrees") & (checks["competence"] == "expert")]
    want = sum(1 for d in range(2, 21) if d + m + 5 * (d == 20) >= 15) / 20
    assert d20.loc[d20["dc"] == 15, "p"].iloc[0] == pytest.approx(want)
    m = ladder["middle_3d10"]["expert"]
    mid = checks[(checks["system"] == "middle_3d10") & (checks["competence"] == "expert")]
    ok = 0
    for dice in itertools.product(range(1, 11), repeat=3):
        c = sorted(dice)[1]
        ok += dice.count(10) >= 2 or (dice.count(1) < 2 and c + m >= 15)
    assert mid.loc[mid["difficulty"] == 15, "p"].iloc[0] == pytest.approx(ok / 1000)
    # a [[solve]] without systems solves every installed system with ladder rules: the
    # five built-ins, and a plug-in with a ladder installed beside them
    assert set(res.tables["difficulty"]["system"]) == {
        "dice_pool_7",
        "middle_3d10",
        "dice_pool_6",
        "percentile",
        "d20_degrees",
        *(p for p in plugins() if registry()[p].ladder is not None),
    }
    assert "curves" in res.plots


def test_fallback_ladder_hand_worked():
    """With the fallback ladder, expert = +12 in middle_3d10: vs 15 the middle die must be
    3+, and P(C <= 2) = P(at least two dice <= 2) = 3·0.2²·0.8 + 0.2³ = 0.104 (B1, B3)."""
    from analysis.checks.ladders import FALLBACK_LADDER
    from engines.systems.middle_3d10 import checks as middle_3d10

    m = FALLBACK_LADDER["middle_3d10"]["expert"]
    assert m == 12
    assert middle_3d10.p_success(m, 15) == pytest.approx(1 - 0.104)


def test_ten_again_mc_matches_exact():
    """A1 variants by Monte Carlo to a target SE: every cell within
    5·sqrt(p(1−p)/n) + 1/n of the exact value (five standard errors plus one count), and
    every cell's SE at or below the file's target 0.01 (or the trial cap reached)."""
    sc = load_scenario(ROOT / "scenarios" / "ten_again_variants.toml")
    res = run_scenario(sc, progress=False)
    t = res.tables["sweep"]
    assert set(t["again"]) == {"10", "9", "8", "none"}
    for row in t.itertuples():
        n = row.trials
        tol = 5 * math.sqrt(row.p_exact * (1 - row.p_exact) / n) + 1 / n
        assert abs(row.p_mc - row.p_exact) <= tol
        assert row.se <= 0.01 or n >= sc.precision.max_trials
    # batches are whole multiples of the batch size
    assert (t["trials"] % sc.precision.batch == 0).all()
    sens = res.tables["sensitivity"]
    assert list(sens["knob"])[-1] == "again"  # pool and successes move it more


def test_percentile_bonus_dice_scenario():
    """D4: with two bonus dice a 20 % skill succeeds 1 − 0.8³ ≈ 0.488 at regular level
    (keep the lowest of three tens dice), and dice move the result most."""
    sc = load_scenario(ROOT / "scenarios" / "percentile_bonus_dice.toml")
    res = run_scenario(sc, progress=False)
    t = res.tables["sweep"]
    cell = t[(t["skill"] == 20) & (t["level"] == "regular") & (t["dice"] == 2)]
    assert cell["p"].iloc[0] == pytest.approx(0.488)
    assert res.tables["sensitivity"].iloc[0]["knob"] == "dice"
    d = res.tables["difficulty"].iloc[0]
    from analysis.checks.ladders import load_competence_ladder
    from engines.systems.percentile import checks as percentile

    skill = load_competence_ladder()["percentile"]["competent"]
    level = d["difficulty"].split()[0]
    assert d["p"] == pytest.approx(percentile.p_success(skill, level, -d["difficulty_value"]))
    assert abs(d["p"] - 0.5) <= 0.1


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_examples_run_through_cli(path, tmp_path, capsys):
    """``rpg-balance run FILE -o DIR`` writes one file per table (and plot), and the csv
    tables equal the in-process run."""
    import pandas as pd

    out = tmp_path / "out"
    assert main(["run", str(path), "-o", str(out), "--no-progress"]) == 0
    sc = load_scenario(path)
    res = run_scenario(sc, progress=False)
    for name, table in res.tables.items():
        got = pd.read_csv(out / f"{name}.csv", keep_default_na=False, na_values=[""])
        # the table's own columns, then the provenance columns it lacked
        extra = [c for c in ("system", "variants", "method", "trials") if c not in table.columns]
        assert list(got.columns) == [*table.columns, *extra]
        assert len(got) == len(table)
        for col in table.columns:
            if table[col].dtype.kind == "f":
                np.testing.assert_allclose(
                    got[col].to_numpy(float), table[col].to_numpy(float), rtol=1e-12
                )
    for name in res.plots:
        data = (out / f"{name}.png").read_bytes()
        assert data.startswith(b"\x89PNG")
    assert "wrote" in capsys.readouterr().err


SEVEN_TYPOS = """name = "seven typos"
system = "dice_pool_7"
seeed = 1
variants = { agian = 9 }

[[checks]]
axes = { pol = [1, 2] }
competence = ["expret"]

[[fights]]
system = "d20_degree"
a = "competent"
b = "competent"

[[fights]]
system = "d20_degrees"
a = "competent"
b = { archetype = "competent", armor = "light" }

[sweep]
fights = { "both.hit_points" = [3, 4] }

[output]
formt = "csv"
"""


def test_seven_typos_reported_in_one_run(tmp_path):
    """Seven distinct typos: all seven in one error, each with the file and the key path
    where it is and the closest known name; the fighter typo is reported at
    fights[1].b, not against the sweep knob."""
    from analysis.workflow.scenario import load_scenario

    f = tmp_path / "seven.toml"
    f.write_text(SEVEN_TYPOS)
    with pytest.raises(InputError) as info:
        load_scenario(f)
    lines = str(info.value).splitlines()
    assert lines[0] == "seven.toml: 7 problems"
    want = {
        "seeed": "'seed'",
        "variants.agian": "'again'",
        "checks[0].axes.pol": "'pool'",
        "checks[0].competence[0]": "'expert'",
        "fights[0].system": "'d20_degrees'",
        "fights[1].b": "'armour'",
        "output.formt": "'format'",
    }
    for path, name in want.items():
        hit = [ln for ln in lines if ln.strip().startswith(f"seven.toml: {path}: ")]
        assert len(hit) == 1, (path, lines)
        assert f"did you mean {name}" in hit[0]
    assert not any("sweep.fights" in ln for ln in lines)


def test_cross_combat_file_names_the_unknown_key(tmp_path):
    """A cross-combat file whose matchup says ``dice_pool7``: the unknown key is named
    (with the system it resembles), together with the missing dice_pool_7 mapping."""
    from analysis.combat.cross_combat import DATA_FILE, load_cross

    text = DATA_FILE.read_text(encoding="utf-8").replace(
        "[matchups.melee_equal.dice_pool_7", "[matchups.melee_equal.dice_pool7", 1
    )
    assert "dice_pool7" in text
    f = tmp_path / "cross.toml"
    f.write_text(text)
    with pytest.raises(InputError) as info:
        load_cross(f)
    msg = str(info.value)
    assert "matchups.melee_equal.dice_pool7: unknown system (did you mean 'dice_pool_7'?)" in msg
    assert "matchups.melee_equal.dice_pool_7: missing" in msg
