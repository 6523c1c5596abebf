"""One naming scheme and one loader for the combat archetypes of every system.

Every library has the five ladder rungs as archetypes and every style at every rung as
``LEVEL_STYLE``; ``rpg-balance duel SYSTEM competent expert`` and a levelled-style duel
work in all five; an old name fails with one line naming the new one. The expected
numbers are worked by hand from the data files (engines/systems/<id>/archetypes.toml) and the
rules they implement, cited per line.
"""

import dataclasses
import re
from pathlib import Path

import pandas as pd
import pytest

from analysis.combat import archetypes as A
from cli.main import main
from engines import system as systems_api
from engines.archetype_library import LADDER, renamed
from engines.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
#: The styles every system's library has (dice_pool_6 has no armour rules, so no
#: "armoured"; fencer and knight are dice_pool_7's, knife_fighter and rifleman dice_pool_6's).
COMMON_STYLES = ("brawler", "swordsman", "shooter")


@pytest.mark.parametrize("system", A.systems())
def test_every_library_has_the_rungs_and_levelled_styles(system):
    names = set(A.names(system))
    assert set(LADDER) <= names
    for style in COMMON_STYLES:
        for rung in LADDER:
            assert f"{rung}_{style}" in names
    # nothing left in the old STYLE_LEVEL order
    assert not [n for n in names if re.search(r"_(untrained|novice|competent|expert|master)$", n)]


@pytest.mark.parametrize("system", A.systems())
@pytest.mark.parametrize(
    ("a", "b"), [("competent", "expert"), ("competent_swordsman", "expert_brawler")]
)
def test_duel_by_rung_and_by_levelled_style_in_every_system(system, a, b, tmp_path, capsys):
    out = tmp_path / "duel.csv"
    code = main(
        ["duel", system, a, b, "--method", "mc", "--trials", "400", "--seed", "1", "-o", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 0, err
    t = pd.read_csv(out)
    assert len(t) == 1
    assert t.loc[0, "p_side0"] + t.loc[0, "p_side1"] <= 1.0
    assert str(t.loc[0, "a"]).startswith(a)
    assert str(t.loc[0, "b"]).startswith(b)


def test_dice_pool_7_rungs_and_styles_a8_a11_a13_a14():
    # competent rung in the level_style (swordsman): FOR = DES = SAB = CON = 3,
    # light_melee +1 (A11); Defense = min(DES, SAB) = 3 (A8); vitality 2*3 + 6 = 12 (A14)
    c = A.combatant("dice_pool_7", "competent")
    assert (c.FOR, c.DES, c.SAB, c.CON) == (3, 3, 3, 3)
    assert (c.weapon.name, c.weapon.bonus) == ("light_melee", 1)
    assert (c.defense, c.vitality) == (3, 12)
    # expert_knight: DES 4, SAB 3 -> 3, shield +1 -> Defense 4; heavy archaic: lethal 4 (A13)
    k = A.combatant("dice_pool_7", "expert_knight")
    assert (k.defense, k.armour.lethal, k.tactic) == (4, 4, "focus_attack")


def test_dice_pool_6_rungs_and_styles_c1_c6():
    # competent: attack 3 + 2 = 5 dice (C1), health = Stamina 3 + 3 = 6 (C6),
    # the swordsman's heavy_melee +2 damage (C11, an assumption of the data file)
    c = A.combatant("dice_pool_6", "competent")
    assert (c.attack_pool, c.health, c.weapon.damage) == (5, 6, 2)
    # master_shooter: 5 + 4 + 1 (specialty, C5) = 10 dice, pistol +2 at range, partial cover
    s = A.combatant("dice_pool_6", "master_shooter")
    assert (s.attack_pool, s.weapon.ranged, s.cover) == (10, True, "partial")


def test_middle_3d10_levelled_styles_b1_b8():
    # competent: trait 4 + Combat 5 added to the middle die (B1); baton = blades, damage M (B8)
    c = A.combatant("middle_3d10", "competent")
    assert (c.trait + c.combat, c.dice) == (9, "M")
    # the brawler style at the competent rung keeps the old "brawler" archetype's numbers:
    # strength 4 + 2 = 6, vigor 4 + 1 = 5, Defense 11 - 1 = 10, fists = unarmed, damage m
    b = A.combatant("middle_3d10", "competent_brawler")
    assert (b.strength, b.vigor, b.defense, b.dice, b.drama_tactic) == (6, 5, 10, "m", "early")
    # at the master rung: Defense 15 + 3 = 18, Reflex 6 - 1 = 5, an axe (blades, M)
    m = A.combatant("middle_3d10", "master_armoured")
    assert (m.defense, m.reflex, m.dice) == (18, 5, "M")


def test_percentile_levelled_styles_dx3_dx6():
    # competent: Fighting 55; hit points (CON 60 + SIZ 60) // 10 = 12 (DX6)
    c = A.combatant("percentile", "competent")
    assert (c.fighting, c.hit_points) == (55, 12)
    # DX3 damage bonus by STR + SIZ with the brawler's +15 / +10:
    # competent 75 + 70 = 145 -> 1D4 (row up to 164); master 90 + 75 = 165 -> 1D6
    assert A.combatant("percentile", "competent_brawler").bonus == (1, 4, 0)
    assert A.combatant("percentile", "master_brawler").bonus == (1, 6, 0)
    # the shooter style: a handgun, 1D10, a firearm (DX3, DX5)
    s = A.combatant("percentile", "novice_shooter")
    assert (s.weapon.n, s.weapon.sides, s.weapon.firearm, s.fighting) == (1, 10, True, 40)


def test_d20_degrees_rungs_e11_e12():
    # competent: Fighting 3 + Close Combat 4 = attack 7 (E11); Strength 2 + heavy_melee 3 = 5
    c = A.combatant("d20_degrees", "competent")
    assert (c.attack, c.damage, c.toughness) == (7, 5, 2)


@pytest.mark.parametrize(
    ("system", "old", "new"),
    [
        ("dice_pool_7", "swordsman_competent", "competent_swordsman"),
        ("dice_pool_7", "knight_expert", "expert_knight"),
        ("dice_pool_6", "knife_fighter_novice", "novice_knife_fighter"),
        ("middle_3d10", "shooter", "competent_shooter"),
        ("percentile", "armoured", "competent_armoured"),
        ("d20_degrees", "brawler_master", "master_brawler"),
    ],
)
def test_an_old_name_fails_with_one_line_naming_the_new_one(system, old, new, capsys):
    code = main(["duel", system, old, "competent"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().count("\n") == 0
    assert err.strip().endswith(f"did you mean {new}?")
    with pytest.raises(InputError, match=f"did you mean {new}\\?"):
        A.combatant(system, old)


def test_an_old_scenario_file_names_the_new_archetype(tmp_path):
    p = tmp_path / "old.toml"
    p.write_text(
        'system = "dice_pool_7"\n[[side0]]\narchetype = "swordsman_competent"\n'
        '[[side1]]\narchetype = "competent"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        A.load_matchup_file(p)
    assert str(err.value) == (
        "old.toml: side0[0]: unknown archetype 'swordsman_competent'; "
        "did you mean competent_swordsman?"
    )


def test_renamed_only_suggests_names_the_library_has():
    known = {"competent_swordsman", "competent"}
    assert renamed("swordsman_competent", known) == "competent_swordsman"
    assert renamed("swordsman", known) == "competent_swordsman"
    assert renamed("fencer_competent", known) is None
    assert renamed("expret", known) is None


def test_the_loader_is_driven_by_the_systems_hook():
    """A system id the loader has never heard of, whose System names dice_pool_7's hook,
    loads that library: nothing in the loader depends on the id."""
    base = systems_api.get("dice_pool_7")
    clone = dataclasses.replace(base, id="house_pool")
    bare = dataclasses.replace(
        base, id="no_fights", combat=dataclasses.replace(base.combat, archetypes=None)
    )
    with systems_api.registered(clone, bare):
        assert A.names("house_pool") == A.names("dice_pool_7")
        assert A.combatant("house_pool", "competent").defense == 3  # min(DES 3, SAB 3), A8
        with pytest.raises(
            InputError, match="no_fights: this system declares no combat archetypes"
        ):
            A.names("no_fights")
        with pytest.raises(InputError, match="unknown system 'chess'"):
            A.names("chess")


def test_no_per_system_branches_in_analysis_combat():
    pattern = re.compile(r"system (==|in \()")
    hits = [
        f"{p.name}:{i}"
        for p in sorted((ROOT / "analysis" / "combat").glob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert hits == []
