"""analysis.combat.archetypes: one entry point over every system's archetype hook, overrides,
trait mappings and matchup files. Expected gear values are read by hand from the data files
(engines/systems/<id>/archetypes.toml) and the rules they implement (A8, A11, B8, C13, DX11,
E16)."""

import dataclasses
import importlib
import tomllib
from pathlib import Path

import pytest

from analysis.combat import archetypes as A
from engines.errors import InputError
from engines.system import BUILT_IN

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("system", BUILT_IN)
def test_library_and_combatant_match_the_system_loader(system):
    """The loader's library and combatants are the system's own hook (its package's
    ``archetypes:HOOK``) over its own ``archetypes.toml``, parsed here without the loader."""
    own = importlib.import_module(f"engines.systems.{system}.archetypes")
    assert A.hook(system) is own.HOOK
    assert ROOT / "engines" / "systems" / system / "archetypes.toml" == own.DATA_FILE
    raw = tomllib.loads(own.DATA_FILE.read_text(encoding="utf-8"))
    ref = {k: own.HOOK.to_engine(v) for k, v in own.HOOK.load("archetypes.toml", raw).items()}
    lib = A.library(system)
    assert len(lib) >= 5
    assert set(lib) == set(ref)
    assert A.combatants(system) == ref
    for name in sorted(ref)[:4]:
        assert A.combatant(system, name) == ref[name]


def test_dice_pool_7_weapon_override_a8_a11():
    # competent_swordsman: DES 3, SAB 3 -> Defense 3; a heavy weapon gives Defense -1 (A11)
    c = A.combatant("dice_pool_7", "competent_swordsman", {"weapon": "heavy_melee"})
    assert c.weapon.name == "heavy_melee"
    assert c.weapon.bonus == 2
    assert c.defense == 2
    c = A.combatant(
        "dice_pool_7", "competent_swordsman", {"armour": "heavy_archaic", "tactic": "attack_dodge"}
    )
    assert (c.armour.lethal, c.armour.ballistic) == (4, 2)  # A13
    assert c.tactic == "attack_dodge"


def test_tactic_means_each_systems_own_choice():
    assert A.combatant("dice_pool_6", "competent_swordsman", {"tactic": "split"}).split  # C13
    assert not A.combatant("dice_pool_6", "competent_knife_fighter", {"tactic": "focus"}).split
    assert A.combatant("middle_3d10", "competent", {"tactic": "late"}).drama_tactic == "late"
    assert A.combatant("percentile", "competent", {"tactic": "fight_back"}).defend == "fight_back"
    assert A.combatant("d20_degrees", "competent", {"tactic": "power"}).maneuver == "power"


def test_middle_and_percentile_gear_b8_dx11():
    # B8: a knife is a "light" weapon, damage = the middle die C
    assert A.combatant("middle_3d10", "competent", {"weapon": "knife"}).dice == "C"
    assert A.combatant("middle_3d10", "competent", {"weapon": "pistol"}).dice == "mM"
    c = A.combatant("percentile", "competent", {"weapon": "handgun", "armour": 3})
    assert (c.weapon.n, c.weapon.sides, c.weapon.firearm, c.armour) == (1, 10, True, 3)


def test_d20_overrides_rebuild_the_fighter_e11_e12():
    # competent: Dexterity 3 + Ranged Combat 4 = 7 with a pistol (damage rank 3, no Strength)
    c = A.combatant("d20_degrees", "competent", {"weapon": "pistol", "armour": "heavy"})
    assert (c.attack, c.damage, c.ranged) == (7, 3, True)
    assert c.toughness == 2 + 4  # Stamina 2 + heavy armour 4


def test_full_trait_mapping_equals_the_archetype():
    traits = {
        "FOR": 3,
        "DES": 3,
        "SAB": 3,
        "CON": 3,
        "DET": 2,
        "AUT": 2,
        "specialized": True,
        "weapon": "light_melee",
    }
    c = A.combatant("dice_pool_7", {"name": "competent_swordsman", **traits})
    assert c == A.combatant("dice_pool_7", "competent_swordsman")
    m = A.combatant(
        "middle_3d10",
        {
            "name": "x",
            "trait": 4,
            "combat": 5,
            "strength": 4,
            "vigor": 4,
            "defense": 11,
            "reflex": 4,
            "weapon": "baton",
            "drama": 5,
        },
    )
    assert dataclasses.replace(m, name="competent") == A.combatant("middle_3d10", "competent")
    d = A.combatant("d20_degrees", {"archetype": "competent", "hit_points": 12})
    assert d.hit_points == 12


@pytest.mark.parametrize(
    ("system", "spec", "over", "needle"),
    [
        ("dice_pool_7", "expret", None, "dice_pool_7: unknown archetype 'expret'; known: "),
        (
            "dice_pool_7",
            "competent_swordsman",
            {"weapon": "lazer"},
            "dice_pool_7: competent_swordsman.weapon: unknown weapon 'lazer'; known: unarmed",
        ),
        ("dice_pool_7", "competent_swordsman", {"FOR": 12}, "competent_swordsman.FOR"),
        ("dice_pool_7", "competent_swordsman", {"colour": "red"}, ".colour: unknown key"),
        ("dice_pool_7", {"FOR": 3}, None, "missing DES"),
        ("dice_pool_6", "novice_brawler", {"armour": "none"}, "no armour rules"),
        ("middle_3d10", "competent", {"tactic": "sometimes"}, "unknown tactic 'sometimes'"),
        ("middle_3d10", "competent", {"trait": 30}, "competent.trait"),
        (
            "percentile",
            "nobody",
            None,
            "percentile: unknown archetype 'nobody'; known: competent, competent_armoured",
        ),
        ("d20_degrees", "competent", {"armour": "mithril"}, "unknown armour 'mithril'"),
        ("d20_degrees", "competent", {"hit_points": 0}, "competent.hit_points"),
        ("chess", "king", None, "unknown system 'chess'"),
    ],
)
def test_bad_input_names_what_and_where(system, spec, over, needle):
    with pytest.raises(InputError) as err:
        A.combatant(system, spec, over)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)
    if "unknown archetype" in needle:
        assert "competent_swordsman" in str(err.value) or "competent" in str(err.value)


@pytest.mark.parametrize("name", ["ambush_3v1.toml", "knife_duel_percentile.toml"])
def test_example_matchup_files_load(name):
    m = A.load_matchup_file(ROOT / "scenarios" / "combat" / name)
    assert m.system in A.systems()
    assert m.sizes[0] >= 1
    assert m.sizes[1] >= 1
    if name.startswith("ambush"):
        assert m.sizes == (3, 1)
        assert m.variants.targeting == "first"
        assert {c.name for c in m.sides[0]} == {"street_thug#1", "street_thug#2", "street_thug#3"}
    else:
        brute = m.sides[1][0]
        assert (brute.name, brute.strength, brute.weapon.name) == ("brute", 80, "club")
        assert m.sides[0][0].defend == "fight_back"


GOOD = """
system = "dice_pool_6"
round_cap = 20
[[side0]]
archetype = "competent_swordsman"
[[side1]]
archetype = "competent_brawler"
"""


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            'system = "dice_pool_6"\n[[side0]]\narchetype = "competent_swordsman"\n',
            "m.toml: side1: Field required",
        ),
        (GOOD.replace("dice_pool_6", "chess"), "m.toml: system:"),
        (GOOD.replace("round_cap = 20", "round_cap = 0"), "m.toml: round_cap:"),
        (GOOD.replace("round_cap = 20", "rounds = 20"), "m.toml: rounds: unknown key"),
        (GOOD + 'weapon = "lazer"\n', "m.toml: side1[0].weapon: unknown weapon 'lazer'"),
        (
            GOOD.replace('archetype = "competent_brawler"', 'archetype = "x"\ntraits = {}'),
            "m.toml: side1[0]: give exactly one of archetype or traits",
        ),
        (GOOD + "count = 99\n", "m.toml: side1.0.count"),
        (
            GOOD.replace("round_cap = 20", "round_cap = 20\n[variants]\nfoo = 1"),
            "m.toml: variants: unknown variant 'foo'",
        ),
        (
            GOOD.replace("round_cap = 20", 'round_cap = 20\nmethod = "exact"') + "count = 2\n",
            "m.toml: method: 'exact' needs one combatant a side",
        ),
        ("system = ", "m.toml: not valid TOML"),
    ],
)
def test_bad_matchup_files(tmp_path, text, needle):
    p = tmp_path / "m.toml"
    p.write_text(text)
    with pytest.raises(InputError) as err:
        A.load_matchup_file(p)
    assert needle in str(err.value)


def test_missing_matchup_file(tmp_path):
    with pytest.raises(InputError, match="no such matchup file"):
        A.load_matchup_file(tmp_path / "none.toml")


def test_parsed_data_file_is_a_fresh_copy_each_time():
    """The parse of a data file is kept, but every caller gets its own copy: changing it
    changes nothing for the next caller (nor the library built from the file)."""
    _, raw = A.read_library("dice_pool_7", None)
    raw["weapons"]["light_melee"]["bonus"] = 5
    raw["weapons"].pop("heavy_melee")
    _, again = A.read_library("dice_pool_7", None)
    assert again["weapons"]["light_melee"]["bonus"] == 1  # A11
    assert "heavy_melee" in again["weapons"]
    assert A.combatant("dice_pool_7", "competent_swordsman").weapon.bonus == 1


def test_an_edited_data_file_is_read_again(tmp_path):
    """The parse and the built combatants are kept per state of the file: rewriting it
    at once (same size, perhaps the same mtime tick) gives the new values (A11)."""
    src = (ROOT / "engines/systems/dice_pool_7/archetypes.toml").read_text(encoding="utf-8")
    path = tmp_path / "dice_pool_7.toml"
    path.write_text(src, encoding="utf-8")
    before = A.combatant("dice_pool_7", "competent_swordsman", path=path)
    assert before.weapon.bonus == 1
    assert A.combatant("dice_pool_7", "competent_swordsman", path=path) is before
    edited = src.replace("[weapons.light_melee]\nbonus = 1", "[weapons.light_melee]\nbonus = 3")
    assert edited != src
    assert len(edited) == len(src)
    path.write_text(edited, encoding="utf-8")
    assert A.combatant("dice_pool_7", "competent_swordsman", path=path).weapon.bonus == 3
    assert A.library("dice_pool_7", path)["competent_swordsman"].weapon.bonus == 3


def test_kept_combatants_tell_equal_values_of_other_types_apart():
    """``quality=1`` and ``quality=True`` are equal to Python but not the same input: the
    kept combatants do not mix them up (A7 equipment quality is a number; the data file's
    validation is strict, so a bool is refused however often 1 was asked for)."""
    spec = {"archetype": "competent_swordsman", "quality": 1}
    one = A.combatant("dice_pool_7", spec)
    assert one.quality == 1
    assert A.combatant("dice_pool_7", dict(spec)) is one
    with pytest.raises(InputError, match="quality"):
        A.combatant("dice_pool_7", {**spec, "quality": True})


#: how each engine's combatant says its attack is ranged (A7, C12, B8, DX5, E11)
ENGINE_RANGED = {
    "dice_pool_7": lambda c: c.weapon.ranged,  # A7: DES instead of FOR
    "dice_pool_6": lambda c: c.weapon.ranged,  # C12: cover dice against it
    "middle_3d10": lambda c: c.ranged,  # B8: the category's damage bonus
    "percentile": lambda c: c.weapon.firearm,  # DX5: Firearms, no fighting back
    "d20_degrees": lambda c: c.ranged,  # E11: Dexterity vs Dodge
}


@pytest.mark.parametrize("system", BUILT_IN)
def test_weapon_kinds_are_what_the_engine_fights_with(system):
    """The kind the audit reads from the data file (``weapon_kinds``) is the one the
    engine's attack follows: a fighter given a ranged weapon makes ranged attacks (the
    built-ins' engines, :data:`ENGINE_RANGED`; a plug-in's are its own)."""
    assert system in A.systems()
    kinds = A.weapon_kinds(system)
    assert list(kinds) == A.weapons(system)
    assert set(kinds.values()) == {"melee", "ranged"}
    for weapon, kind in kinds.items():
        c = A.combatant(system, "competent", {"weapon": weapon})
        assert ENGINE_RANGED[system](c) == (kind == "ranged"), weapon


def test_weapon_kinds_by_hand():
    # from the data files: middle_3d10 by category (B8), percentile by firearm (DX5)
    assert A.weapon_kinds("middle_3d10")["pistol"] == "ranged"  # small_firearms
    assert A.weapon_kinds("middle_3d10")["baton"] == "melee"  # blades
    assert A.weapon_kinds("percentile")["shotgun"] == "ranged"
    assert A.weapon_kinds("percentile")["knife"] == "melee"
    assert A.weapon_kinds("dice_pool_7")["thrown"] == "ranged"  # A11 shuriken
