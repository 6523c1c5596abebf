"""One definition per word across the report's sections (issue 30, item 3).

- **The even duel** is one fight, the cross-combat file's ``melee_equal`` matchup: the
  rounds the duels section quotes for it are At a glance's, and every section that
  speaks of "the even duel" names that fight.
- **One rung weaker** is a novice against a competent character everywhere a figure is
  called so (At a glance's ``UPSET``), never the ladder table's mean over adjacent pairs.
- **Fates** are dead / dying / out as shares of the fighters who fell, summing to 1 in
  every combat table and sentence, with what "dying" means in each system beside them
  (RULES.md "Lethality outcomes"; B-g10, DX-g6 …).
- **Tie rules** (A-g7, B-g3, C10, D3, E5) are said wherever opposed results are shown,
  and the opposed section splits a one-step edge into the part won outright and the
  part the tie rule hands over.
- **"Rules text"** names the rule documents; "seed" (pt-BR "semente") only the random
  seed, in every string the report can show.

Small settings (two systems, few Monte Carlo fights): the combat figures tested here are
exact duels, which do not depend on the trial count.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.checks.ladders import upset_table
from analysis.checks.opposed import opposed_split, opposed_table
from reports.i18n import decimal
from reports.sections.combat_common import EVEN_DUEL, combat_frames, fate_shares
from reports.sections.combat_duels import section_combat_duels
from reports.sections.combat_gear import section_combat_gear
from reports.sections.combat_upsets import section_combat_upsets
from reports.sections.combat_weapons import section_combat_weapons
from reports.sections.common import pct
from reports.sections.glance import UPSET, glance_frame
from reports.sections.ladders import section_ladders
from reports.sections.opposed import section_opposed, tie_rule
from reports.settings import ReportSettings

sys.path.insert(0, str(Path(__file__).parent))
from test_report_i18n import catalogue, extracted_msgids

ROOT = Path(__file__).resolve().parent.parent
ALL = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")
#: percentile: its dying die when left alone (DX-g6); dice_pool_7: ties to the defender
FOUGHT = ("dice_pool_7", "percentile")
#: the rule each system's opposed check settles ties by (RULES.md A-g7, B5/B-g3, C10, D3, E5)
TIE_RULE_IDS = {
    "dice_pool_7": "A-g7",
    "middle_3d10": "B-g3",
    "dice_pool_6": "C10",
    "percentile": "D3",
    "d20_degrees": "E5",
}
#: the rule each system's reading of an untreated dying fighter rests on
DYING_RULE_IDS = {"dice_pool_7": "A-g9", "percentile": "DX-g6"}


def _settings(systems=FOUGHT, **kw) -> ReportSettings:
    return ReportSettings(
        systems=systems, trials=1000, combat_trials=200, seed=3, pdf=False, progress=False, **kw
    )


@pytest.fixture(scope="module")
def fought():
    return _settings()


@pytest.fixture(scope="module")
def duels(fought):
    return section_combat_duels(fought)


def _text(section) -> str:
    return " ".join(str(r) for r in section.reading)


def _line(section, system: str) -> str:
    return next(str(r) for r in section.reading if str(r).startswith(system))


# ------------------------------------------------------------------ the even duel


@pytest.mark.slow
def test_even_duel_of_the_duels_section_is_at_a_glance_s(fought, duels):
    """The duels section's even-duel paragraph quotes the longest and shortest mean
    length; both are At a glance's "even duel (rounds)" of those systems, to the two
    decimals the sentence prints."""
    glance = glance_frame(fought).set_index("system")["duel_rounds"]
    para = next(str(r) for r in duels.reading if str(r).startswith("The even duel ("))
    longest, shortest = glance.idxmax(), glance.idxmin()
    assert longest != shortest
    assert f"longest in {longest}" in para
    assert f"shortest in {shortest}" in para
    assert f"{decimal(glance[longest], 2)} rounds on average" in para
    assert f": {decimal(glance[shortest], 2)})" in para
    # percentile's even duel is the long one (6.47 rounds), not another fight's 3.8
    assert glance["percentile"] > 6
    # the duels section says which of its fights is the report's even duel
    assert f"“{EVEN_DUEL}” is the report's even duel" in _text(duels)


@pytest.mark.slow
def test_weapon_and_gear_sections_name_the_even_duel(fought):
    title = "the even duel (a competent fighter with a light melee weapon against an equal)"
    weapons, gear = section_combat_weapons(fought), section_combat_gear(fought)
    assert title in str(weapons.reading[0])
    assert str(gear.reading[0]).startswith(title[0].upper() + title[1:])
    assert gear.blocks[0].title == "Tactics and armour in the even duel"
    # the gear table plays that fight: its unchanged tactic is the 50/50 even duel
    cross = combat_frames(fought)["cross"]
    even = cross[cross["matchup"] == EVEN_DUEL].set_index("system")
    effects = combat_frames(fought)["effects"]
    for system in FOUGHT:
        base = effects[
            (effects["system"] == system)
            & (effects["change"] == "armour")
            & (effects["choice"].isin(["none", "0"]))
        ]
        assert float(base["rounds_mean"].iloc[0]) == pytest.approx(
            even.loc[system, "rounds_mean"], abs=1e-9
        )


# ------------------------------------------------------------------ one rung weaker


@pytest.mark.slow
def test_one_rung_weaker_is_novice_against_competent_everywhere(fought):
    """The ladder section and the upsets section quote the same novice-vs-competent
    figures as At a glance; the ladder table's mean over adjacent pairs (20.2 % in
    dice_pool_7) is not what the text calls one rung weaker (15.9 %)."""
    assert UPSET == ("novice", "competent")
    ups = upset_table()
    pair = ups[(ups["weaker"] == "novice") & (ups["stronger"] == "competent")]
    pair = pair.set_index("system")
    glance = glance_frame(fought).set_index("system")
    ladders = section_ladders(_settings(ALL))
    upsets = section_combat_upsets(fought)
    for system in ALL:
        attack, defend = (
            pair.loc[system, "p_upset_attacking"],
            pair.loc[system, "p_upset_defending"],
        )
        line = _line(ladders, system)
        assert (
            f"One rung weaker: a novice wins {pct(attack)} of the opposed rolls it "
            f"starts against a competent character and {pct(defend)}"
        ) in line
        adjacent = ups[(ups["system"] == system) & (ups["rungs_apart"] == 1)]
        mean = adjacent["p_upset_attacking"].mean()
        if pct(mean) != pct(attack):
            assert pct(mean) not in line
    # dice_pool_7: the two readings the issue found disagree; the text keeps one
    assert pct(pair.loc["dice_pool_7", "p_upset_attacking"]) == "15.9%"
    for system in FOUGHT:
        assert glance.loc[system, "upset_roll_attacking"] == pytest.approx(
            pair.loc[system, "p_upset_attacking"]
        )
        line = _line(upsets, system)
        assert f"in {pct(pair.loc[system, 'p_upset_attacking'])} of opposed rolls" in line
        assert f"wins {pct(glance.loc[system, 'upset_duel'])} of duels" in line


# ------------------------------------------------------------------ fates


def test_fate_shares_are_shares_of_the_fallen():
    """Hand-made rows: a one-hit table's fates sum to P(incapacitated), so they are
    divided by it; a row where nobody fell has no fate (NaN), not a 0/0/0 row."""
    frame = pd.DataFrame(
        {"p_dead": [0.1, 0.0], "p_dying": [0.0, 0.0], "p_out": [0.3, 0.0], "p_inc": [0.4, 0.0]}
    )
    cols = {"dead": "p_dead", "dying": "p_dying", "out": "p_out"}
    shares = fate_shares(frame, cols, total="p_inc")
    assert shares.iloc[0].tolist() == pytest.approx([0.25, 0.0, 0.75])
    assert shares.iloc[1].isna().all()
    # already shares of the decided fights: normalised by their own sum, unchanged
    same = fate_shares(frame.iloc[[0]] / 0.4, cols)
    assert same.iloc[0].tolist() == pytest.approx([0.25, 0.0, 0.75])


@pytest.mark.slow
def test_every_combat_section_s_fates_sum_to_one(fought, duels):
    weapons, gear = section_combat_weapons(fought), section_combat_gear(fought)
    hits = combat_frames(fought)["one_hit"]
    view = weapons.blocks[0].frame
    dropped = view[["dropped: dead", "dropped: dying", "dropped: out"]]
    fell = hits["p_incapacitate"].to_numpy() > 1e-12
    assert fell.any()
    assert (~fell).any()
    assert np.allclose(dropped[fell].sum(axis=1), 1.0, atol=1e-9)
    assert dropped[~fell].isna().all(axis=None)
    # percentile's handgun: of the targets one shot drops, the dead are p_dead / p_inc
    row = hits.reset_index(drop=True)
    k = int(np.argmax((row["system"] == "percentile") & (row["weapon"] == "handgun")))
    assert dropped.iloc[k]["dropped: dead"] == pytest.approx(
        row.loc[k, "p_dead"] / row.loc[k, "p_incapacitate"]
    )
    loser = gear.blocks[0].frame[["loser dead", "loser dying", "loser out"]]
    assert np.allclose(loser.sum(axis=1), 1.0, atol=1e-9)
    # the duels sentence: each system's three shares add up to 100 %
    for para in (str(r) for r in duels.reading if "What becomes of the loser" in str(r)):
        for system in FOUGHT:
            found = re.search(rf"{system} ([\d.]+)% dead / ([\d.]+)% dying / ([\d.]+)% out", para)
            assert found, (system, para)
            assert sum(float(x) for x in found.groups()) == pytest.approx(100, abs=0.15)


@pytest.mark.slow
def test_dying_is_explained_beside_every_table_of_fates(fought, duels):
    """What "dying" means in each system, with its rule id, in each combat section that
    shows fates; and percentile's deadly losers are put down to its reading of dying."""
    for section in (duels, section_combat_weapons(fought), section_combat_gear(fought)):
        line = next(
            str(r)
            for r in section.reading
            if str(r).startswith("What “dying” means when nobody helps")
        )
        for system, rule in DYING_RULE_IDS.items():
            assert re.search(rf"{system}: [^;]*\({rule}\)", line), (system, line)
    assert (
        "The loser ends dead most often in percentile (49.5%), a consequence of how "
        "it reads dying: a dying character"
    ) in _text(duels)
    assert "DX-g6" in _text(duels).split("The loser ends dead most often in percentile")[1]


# ------------------------------------------------------------------ tie rules


def test_each_opposed_section_states_every_system_s_tie_rule():
    opposed, ladders = section_opposed(_settings(ALL)), section_ladders(_settings(ALL))
    for system, rule in TIE_RULE_IDS.items():
        assert re.search(rf"ties: [^.]*\({rule}", _line(opposed, system)), system
        assert re.search(rf"Ties: [^.]*\({rule}", _line(ladders, system)), system
        caption = next(b.caption for b in opposed.blocks if b.title.startswith(system))
        assert f"({rule}" in caption.text
    upsets = section_combat_upsets(_settings(FOUGHT))
    for system in FOUGHT:
        assert f"Ties: {tie_rule(system)}." in _line(upsets, system)
        assert f"({TIE_RULE_IDS[system]}" in _line(upsets, system)


def test_the_tie_split_adds_up_and_follows_each_rule():
    """p_higher + p_tie_won is the opposed table's P(a wins); each rule hands ties as
    RULES.md says: A-g7 to the defender, C10 to the challenger, D3 / E5 / B-g3 to the
    higher level, equal levels evenly (E5 roll-off: a d20 against a d20 ties 1 in 20)."""
    for system in ALL:
        split = opposed_split(system)
        table = opposed_table(system)
        keys = [c for c in table.columns if c.endswith(("_a", "_b"))]
        both = split.merge(table, on=["system", *keys])
        assert np.allclose(both["p_higher"] + both["p_tie_won"], both["p"], atol=1e-12)
        assert np.allclose(both[["p_higher", "p_tie", "p_lower"]].sum(axis=1), 1.0)
    assert (opposed_split("dice_pool_7")["p_tie_won"].abs() < 1e-12).all()
    pool6 = opposed_split("dice_pool_6")
    assert np.allclose(pool6["p_tie_won"], pool6["p_tie"])
    even = opposed_split("d20_degrees", axes={"modifier_a": [4], "modifier_b": [4]}).iloc[0]
    assert even["p_tie"] == pytest.approx(1 / 20)
    assert even["p_tie_won"] == pytest.approx(1 / 40)
    up = opposed_split("percentile", axes={"skill_a": [55], "skill_b": [50]}).iloc[0]
    assert up["p_tie_won"] == pytest.approx(up["p_tie"])  # D3: the higher skill's ties


def test_opposed_section_splits_the_step_into_outright_and_tie_break():
    """middle_3d10's "+1 → 67.3%": 11.4 points are ties B-g3 hands to the higher
    modifier; with ties split evenly it would be 61.6%. In percentile (D3) most of a
    +5 step's edge is the tie-break."""
    opposed = section_opposed(_settings(ALL))
    middle = _line(opposed, "middle_3d10")
    split = opposed_split("middle_3d10", axes={"modifier_a": [12], "modifier_b": [11]})
    won, tied = float(split["p_tie_won"].iloc[0]), float(split["p_tie"].iloc[0])
    assert "(modifier 12 vs 11) 67.3%" in middle
    assert f"Of the 67.3%, {pct(won)} are ties the rule hands to the attacker" in middle
    assert f"it would win {pct(0.673 - won + tied / 2)[:-3]}" in middle
    assert "Most of the step's edge" in _line(opposed, "percentile")
    assert "Most of the step's edge" not in _line(opposed, "dice_pool_7")


def test_a_tie_variant_in_force_is_said_to_change_the_tie_rule():
    assert "variants in force settle ties otherwise" in tie_rule(
        "dice_pool_7", ("opposed_tie=reroll",)
    )
    assert "variants in force" not in tie_rule("dice_pool_7", ("again=9",))


# ------------------------------------------------------------------ "rules text"


def _about_the_random_seed(msgid: str) -> bool:
    return bool(re.search(r"\{seed\}|%\(seed\)s|\b[Rr]andom seed\b", msgid)) or msgid in (
        "seed",
        "Seed",
    )


def test_seed_means_only_the_random_seed_in_every_report_string():
    """Every string the report can show (the catalogue's extraction: sections, templates,
    glossary, variant docs, data-file sentences) says "seed" only of the random seed; in
    pt-BR "semente" likewise, and the English word never stands for the rules text."""
    ids = extracted_msgids()
    wrong = [
        f"{w}: {m!r}"
        for m, w in ids.items()
        if re.search(r"\bseeds?\b|\bseed's\b", m, re.I) and not _about_the_random_seed(m)
    ]
    assert not wrong, "\n".join(wrong)
    po = catalogue()
    wrong = [
        m
        for m, s in po.items()
        if m in ids
        and (
            (re.search(r"semente", s, re.I) and not _about_the_random_seed(m))
            or re.search(r"\bseed\b", re.sub(r"\{seed\}|%\(seed\)s", "", s))
        )
    ]
    assert not wrong, wrong
    # the rules text is named so in both languages
    assert (
        "o texto das regras"
        in po[
            "{system}: the rules text has no armour rules, so "
            "both sides are the same shooter (a control)."
        ]
    )


def test_engine_notes_shown_in_reports_say_rules_text():
    """Strings outside the catalogue the report or the CLI shows (notes, plans refused,
    the cross-combat file's notes): no "the seed" meaning the rule document."""
    bad = []
    files = [
        *(ROOT / "engines" / "systems").rglob("*.py"),
        ROOT / "analysis" / "data" / "cross_combat.toml",
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            strings = re.findall(r'=\s*"([^"]*)"', text)
        else:
            strings = [
                t.string
                for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type == tokenize.STRING and not t.string.startswith(('"""', "'''"))
            ]
        bad += [
            f"{path.relative_to(ROOT)}: {s}"
            for s in strings
            if re.search(r"\bthe seed\b|\bseed's\b|\(seed\)|\bd20 seed\b", s)
        ]
    assert not bad, "\n".join(bad)
