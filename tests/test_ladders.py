"""The common ladders (RULES.md "Comparing systems"; B2, D1, E1 names): file validation,
cross-system P(success) against closed forms, and swinginess / upsets (A-g7, B5, C10, D3,
E5)."""

import itertools
import tomllib

import pytest

from analysis.checks.ladders import (
    DEFAULT_PATH,
    anchor_report,
    ladder_table,
    load_ladders,
    swinginess,
    upset_table,
)
from engines.errors import InputError

RUNGS = ["untrained", "novice", "competent", "expert", "master"]


def test_packaged_file_is_complete_and_anchored():
    lad = load_ladders()
    assert lad.competence == RUNGS
    assert lad.difficulty == ["easy", "average", "hard", "very_hard"]
    assert set(lad.systems) == {
        "dice_pool_7",
        "middle_3d10",
        "dice_pool_6",
        "percentile",
        "d20_degrees",
    }
    # B2 / E1 names are used as written
    assert lad.systems["middle_3d10"].difficulty == {
        "easy": 10,
        "average": 15,
        "hard": 20,
        "very_hard": 25,
    }
    assert lad.systems["d20_degrees"].difficulty["average"] == 10  # E1 "moderate"
    assert lad.systems["percentile"].difficulty["hard"].level == "hard"  # D1
    a = anchor_report(lad)
    assert a["within_tolerance"].all()
    # every mapping carries its reason, in the data and as comments
    text = DEFAULT_PATH.read_text()
    assert text.count("# Reason") >= 5
    assert all(s.reason for s in lad.systems.values())


def _pct(skill, level, dice):
    """D1/D4/D-g1 by enumeration (01 succeeds; 100, or 96+ under 50, fails)."""
    need = {"regular": skill, "hard": skill // 2, "extreme": skill // 5}[level]
    n, hits = 1 + abs(dice), 0
    for units in range(10):
        for tens in itertools.product(range(10), repeat=n):
            vals = [100 if t == 0 and units == 0 else 10 * t + units for t in tens]
            r = min(vals) if dice >= 0 else max(vals)
            hits += r == 1 or (r <= need and not (r == 100 or (r >= 96 and skill < 50)))
    return hits / 10 ** (n + 1)


def test_ladder_table_against_closed_forms():
    lad = load_ladders()
    t = ladder_table(lad).set_index(["system", "competence", "difficulty"])
    assert len(t) == 5 * 5 * 4
    for comp, diff in itertools.product(RUNGS, lad.difficulty):
        # E1–E3: d20 + c >= dc, natural 1 fails, natural 20 counts +5
        c, dc = (
            lad.systems["d20_degrees"].competence[comp],
            lad.systems["d20_degrees"].difficulty[diff],
        )
        want = sum((d != 1) and (d + c + 5 * (d == 20) >= dc) for d in range(1, 21)) / 20
        assert t.loc[("d20_degrees", comp, diff), "p"] == pytest.approx(want)
        # D1 + D4
        s = lad.systems["percentile"].competence[comp]
        d = lad.systems["percentile"].difficulty[diff]
        assert t.loc[("percentile", comp, diff), "p"] == pytest.approx(_pct(s, d.level, d.dice))
        # A1/A2: at least one success from pool + penalty dice; no success from n dice
        # is 0.6**n (faces 1–6 fail, an explosion needs a 10, itself a success); A-g1
        # chance die below 1 die: only a 10 succeeds
        n = (
            lad.systems["dice_pool_7"].competence[comp]
            + lad.systems["dice_pool_7"].difficulty[diff]
        )
        want = 1 - 0.6**n if n >= 1 else 0.1
        assert t.loc[("dice_pool_7", comp, diff), "p"] == pytest.approx(want)
    # seed examples: the anchor cells by hand
    assert t.loc[("middle_3d10", "competent", "average"), "p"] == pytest.approx(
        3 * 0.6**2 * 0.4 + 0.6**3
    )  # middle die >= 5 out of 3d10
    assert t.loc[("percentile", "competent", "average"), "p"] == pytest.approx(0.65)


def test_upsets_closed_form_d20():
    """E5: bonuses 4 apart: the weaker side wins only by rolling 5+ more: 120/400."""
    u = upset_table(adjacent_only=True)
    d20 = u[u["system"] == "d20_degrees"]
    assert list(d20["p_upset_attacking"]) == pytest.approx([0.3] * 4)
    # D3 with a tie going to the higher skill: attacking and defending upsets agree
    pct = u[u["system"] == "percentile"]
    assert (pct["p_upset_attacking"] - pct["p_upset_defending"]).abs().max() < 1e-12
    # C10: the challenger wins ties, so a weaker challenger upsets more often than a
    # weaker defender
    dp6 = u[u["system"] == "dice_pool_6"]
    assert (dp6["p_upset_attacking"] > dp6["p_upset_defending"]).all()


def test_swinginess_columns():
    s = swinginess().set_index("system")
    assert s.loc["d20_degrees", "sd_outcome"] == pytest.approx((399 / 12) ** 0.5)
    assert s.loc["d20_degrees", "sd_in_rungs"] == pytest.approx((399 / 12) ** 0.5 / 4)
    assert s.loc["percentile", "sd_outcome"] == pytest.approx((9999 / 12) ** 0.5)
    assert (s["p_upset_two_apart"] <= s["p_upset_adjacent"]).all()


# ---------------------------------------------------------------- validation errors


def _write(tmp_path, text):
    p = tmp_path / "ladders.toml"
    p.write_text(text)
    return p


def _base_text():
    return DEFAULT_PATH.read_text()


@pytest.mark.parametrize(
    ("old", "new", "match"),
    [
        (
            "master = 95 }",
            "master = 120 }",
            r"systems\.percentile\.competence\.master: 120 is "
            r"outside 1\.\.100",
        ),
        (
            "expert = 6, master = 8 }",
            "expert = 6 }",
            r"systems\.dice_pool_7\.competence: "
            r"missing rung 'master'",
        ),
        ('level = "hard"', 'level = "impossible"', r"systems\.percentile\.difficulty\.hard"),
        ("target = 0.65", "target = 1.5", r"anchor\.target"),
        (
            "very_hard = 25 }",
            "very_hard = 25, heroic = 30 }",
            r"systems\.middle_3d10\.difficulty\.heroic: unknown rung",
        ),
        ("[systems.d20_degrees]", "[systems.gurps]", r"systems\.gurps: unknown system"),
        (
            "hard = 15, very_hard = 20",
            "hard = 25, very_hard = 20",
            r"systems\.d20_degrees\.difficulty\.very_hard: must not be easier",
        ),
        ('reason = "modifier', 'reasons = "modifier', r"systems\.d20_degrees\.reasons?: "),
    ],
)
def test_validation_errors_name_file_and_key(tmp_path, old, new, match):
    text = _base_text()
    assert old in text
    p = _write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(InputError, match=match) as info:
        load_ladders(p)
    assert str(p) in str(info.value)


def test_bad_toml_and_missing_file(tmp_path):
    p = _write(tmp_path, "competence = [\n")
    with pytest.raises(InputError, match="not valid TOML"):
        load_ladders(p)
    with pytest.raises(InputError, match="not found"):
        load_ladders(tmp_path / "nope.toml")


def test_edited_file_changes_results(tmp_path):
    """A designer's edit flows through: a harder 'average' DC lowers the anchor cell."""
    text = _base_text().replace("easy = 5, average = 10,", "easy = 5, average = 12,")
    lad = load_ladders(_write(tmp_path, text))
    assert tomllib.loads(text)["systems"]["d20_degrees"]["difficulty"]["average"] == 12
    t = ladder_table(lad).set_index(["system", "competence", "difficulty"])
    assert t.loc[("d20_degrees", "competent", "average"), "p"] == pytest.approx(0.55)
    assert not anchor_report(lad).set_index("system").loc["d20_degrees", "within_tolerance"]


def test_swinginess_quotes_upsets_from_both_sides():
    """The swinginess table gives the weaker rung's upset chance attacking and defending.
    In dice_pool_7 a tie goes to the defender (A-g7), so the weaker side wins far more
    often defending than attacking."""
    s = swinginess().set_index("system")
    u = upset_table()
    for system in s.index:
        for apart, col in ((1, "p_upset_adjacent_defending"), (2, "p_upset_two_apart_defending")):
            rows = u[(u["system"] == system) & (u["rungs_apart"] == apart)]
            assert s.loc[system, col] == pytest.approx(rows["p_upset_defending"].mean())
    assert (
        s.loc["dice_pool_7", "p_upset_adjacent_defending"]
        > s.loc["dice_pool_7", "p_upset_adjacent"] + 0.1
    )
