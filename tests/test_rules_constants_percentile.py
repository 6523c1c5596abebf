"""percentile's formula numbers as rule data (issue "Rules a designer can edit", item 1):
the data file's ``health`` (DX6 hit points, DX7 major wound), ``movement`` (DX14 MOV),
``ranges`` (DX15 point-blank and range bands) and ``initiative`` (DX1 readied firearm)
tables reach the fighter's kernel row, the exact chain and the one-attack odds.

The oracles never read the edited field: a row column against the formula worked from
the data file's traits, an edited rule against the package's rules with an equivalent
trait or gear change (a duel's numbers equal exactly), the one-attack odds against the
damage distribution and a CON roll worked by hand, Monte Carlo against exact."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

import pytest
from cli_fuzz_support import cli_here

from analysis import rules
from analysis.combat import archetypes
from engines.systems.percentile import combat as pct
from engines.systems.percentile.combat import rules as layout

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "percentile"
DATA = tomllib.loads(
    (ROOT / "engines" / "systems" / SYSTEM / "archetypes.toml").read_text(encoding="utf-8")
)
N = 20_000  # Monte Carlo duels of the agreement test


def knob(*pairs) -> rules.RuleSet:
    rs = rules.RuleSet(SYSTEM)
    for name, value in pairs:
        rs = rs.with_knob(f"rules.{name}", value)
    return rs


def fighter(spec, over=None, rs=()):
    with rules.using(list(rs)):
        return archetypes.combatant(SYSTEM, spec, over or {})


def p_side0(a, b, rs=(), variants=None):
    from analysis.workflow.fight_sweep import fight_point

    with rules.using(list(rs)):
        return fight_point(SYSTEM, a, b, dict(variants or {}), 50, "p_side0", exact=True)["metric"]


def cli(*args):
    """``rpg-balance ARGS`` in this process (:func:`cli_fuzz_support.cli_here`)."""
    return cli_here(*args)


def test_the_tables_hold_the_extensions_numbers():
    """DX1, DX6, DX7, DX14, DX15: the rule tables list the numbers of the package
    docstring's formulas, each entry citing its rule."""
    t = rules.base_tables(SYSTEM)
    assert t["health"]["hit_points"]["divisor"] == 10  # DX6
    assert t["health"]["major_wound"]["divisor"] == 2  # DX7
    assert [t["movement"]["mov"][k] for k in ("slow", "even", "fast")] == [7, 8, 9]  # DX14
    assert t["ranges"]["point_blank"]["dex_per_foot"] == 5  # DX15
    assert (t["ranges"]["bands"]["long"], t["ranges"]["bands"]["extreme"]) == (2, 4)
    assert t["initiative"]["readied_firearm"]["bonus"] == 50  # DX1
    declared = {k: r for k, _t, r in archetypes.hook(SYSTEM).rule_tables(DATA)}
    assert list(declared)[:2] == ["weapon", "damage_bonus"]
    for kind, rule in (
        ("health", "DX6"),
        ("movement", "DX14"),
        ("ranges", "DX15"),
        ("initiative", "DX1"),
    ):
        assert declared[kind] == rule
        for entry in t[kind].values():
            assert entry["note"].startswith("DX"), (kind, entry)


def test_hit_point_divisor_reaches_the_row():
    """DX6: with ``health.hit_points.divisor`` 10 → 7 the kernel row's HP column is
    ⌊(CON + SIZ) / 7⌋ of the data file's competent rung (CON 60, SIZ 60 from novice)."""
    con = DATA["archetypes"]["competent"]["con"]
    siz = DATA["archetypes"]["untrained"]["siz"]
    plain = fighter("competent")
    edited = fighter("competent", rs=[knob(("health.hit_points.divisor", 7))])
    assert plain.row()[layout.HP] == (con + siz) // 10
    assert edited.row()[layout.HP] == (con + siz) // 7 == 17


def test_hit_point_divisor_duel_equals_a_bigger_siz():
    """DX6: hit points ⌊(CON + SIZ) / 5⌋ with SIZ 60 fight exactly as ⌊(CON + SIZ) / 10⌋
    with a bigger SIZ (the same CON for every CON roll, the same fixed damage bonus and
    MOV): 24 and 22 hit points either way (CON 60 + SIZ 180, CON 50 + SIZ 170), through
    the exact chain and its aftermath."""

    def pair(div, siz_a, siz_b):
        a = pct.Combatant(
            name="a",
            con=60,
            siz=siz_a,
            strength=60,
            dex=60,
            fighting=55,
            dodge=40,
            weapon=pct.Weapon("club", 1, 6),
            db=(0, 0, 0),
            defend="fight_back",
            mov=8,
            hp_divisor=div,
        )
        b = pct.Combatant(
            name="b",
            con=50,
            siz=siz_b,
            strength=50,
            dex=50,
            fighting=60,
            dodge=30,
            weapon=pct.Weapon("machete", 1, 8, impale=True),
            db=(0, 0, 0),
            mov=8,
            hp_divisor=div,
        )
        return a, b

    edited = pct.duel_exact(*pair(5, 60, 60))
    oracle = pct.duel_exact(*pair(10, 180, 170))
    assert [c.hit_points for c in pair(5, 60, 60)] == [24, 22]
    assert [c.hit_points for c in pair(10, 180, 170)] == [24, 22]
    assert edited.p_outcome() == pytest.approx(oracle.p_outcome(), abs=1e-12)
    assert edited.loser_fate == pytest.approx(oracle.loser_fate, abs=1e-12)


@pytest.mark.parametrize("div", [1, 2, 3])
def test_major_wound_divisor_in_the_one_attack_odds(div):
    """DX7/DX8/DX9: P(one attack puts an unhurt target out) = P(damage > max HP, DX9) +
    P(damage reaching 0 HP) + P(a major wound, damage ≥ max HP / div, short of 0 HP) ×
    P(the CON roll fails); CON 60 succeeds on 01–60 (D-g1: 01 succeeds, 100 fails), so it
    fails with 0.40."""
    a = pct.Combatant(name="a", fighting=60, weapon=pct.Weapon("bat", 1, 8), db=(1, 4, 0))
    b = pct.Combatant(name="b", con=60, siz=50, dodge=30, major_divisor=div)
    top = b.hit_points  # 11
    dmg = pct.attack_damage(a, b)
    d = range(dmg.size)
    out = sum(dmg[k] for k in d if k >= top) + 0.40 * sum(
        dmg[k] for k in d if 0 < k < top and k * div >= top
    )
    assert pct.one_hit(a, b)["p_incapacitate"] == pytest.approx(out, abs=1e-12)


def test_major_wound_edit_exact_and_monte_carlo_agree():
    """DX7 edited (``health.major_wound.divisor`` 2 → 3) and DX6 (divisor 10 → 8): the
    exact chain and the Monte Carlo kernel read the same fields — every outcome within
    5 SE + 1/n; and the edit moves the duel (the oracle that the field is read)."""
    rs = [knob(("health.major_wound.divisor", 3), ("health.hit_points.divisor", 8))]
    a = fighter("competent_swordsman", rs=rs)
    b = fighter("expert", rs=rs)
    assert (a.major_divisor, a.hp_divisor) == (3, 8)
    ex = pct.duel_exact(a, b).p_outcome()
    mc = pct.duel_mc(a, b, N, seed=7).p_outcome()
    for p, q in zip(ex, mc, strict=True):
        assert abs(q - p) <= 5 * math.sqrt(p * (1 - p) / N) + 1 / N
    plain = pct.duel_exact(fighter("competent_swordsman"), fighter("expert")).p_outcome()
    assert abs(plain[0] - ex[0]) > 1e-3


def test_mov_edit_equals_giving_the_fighter_that_mov():
    """DX14: MOV ``even`` 8 → 9 fights a charge from 40 m (43.7 yards: a charge of 5 × MOV
    covers it at MOV 9, not at 8) exactly as the competent rung (STR 60, DEX 60, SIZ 60:
    neither both below nor both above SIZ) given ``mov = 9``; the shooter keeps MOV 8."""
    rs = [knob(("movement.mov.even", 9))]
    v = {"distance": 40}
    shooter = {"archetype": "competent_shooter", "mov": 8}
    assert fighter("competent", rs=rs).row()[layout.MOV_YD] == 9
    assert fighter("competent").row()[layout.MOV_YD] == 8
    edited = p_side0("competent", shooter, rs, v)
    oracle = p_side0({"archetype": "competent", "mov": 9}, shooter, (), v)
    assert edited == pytest.approx(oracle, abs=1e-12)
    assert edited != pytest.approx(p_side0("competent", shooter, (), v))


def test_point_blank_distance_reaches_the_row():
    """DX15: point-blank within DEX / 10 feet after the edit: DEX 60 → 6 feet = 182.88 cm,
    rounded to 183 (the package's DEX / 5: 12 feet, 366 cm)."""
    rs = [knob(("ranges.point_blank.dex_per_foot", 10))]
    assert fighter("competent_shooter").row()[layout.PB_CM] == 366
    assert fighter("competent_shooter", rs=rs).row()[layout.PB_CM] == 183


def test_long_band_edit_equals_a_weapon_with_that_long_range(tmp_path):
    """DX15: ``ranges.bands.long`` 2 → 3 gives the handgun (base 15 yards) a long range of
    45 yards: a shot from 30 m (32.8 yards, extreme range under the package's 30-yard long
    range) fights exactly as a handgun copy with ``long_range = 45``."""
    p = tmp_path / "r.toml"
    p.write_text(
        'system = "percentile"\n[weapon.long_handgun]\nlike = "handgun"\nlong_range = 45\n',
        encoding="utf-8",
    )
    copy = rules.load_file(p)
    rs = [knob(("ranges.bands.long", 3))]
    v = {"distance": 30}
    edited = p_side0("competent_shooter", "competent", rs, v)
    oracle = p_side0(
        {"archetype": "competent_shooter", "weapon": "long_handgun"}, "competent", [copy], v
    )
    assert edited == pytest.approx(oracle, abs=1e-12)
    assert edited != pytest.approx(p_side0("competent_shooter", "competent", (), v))
    assert fighter("competent_shooter", rs=rs).weapon.ranges == (15, 45, 60)


def test_readied_firearm_bonus_zero_is_the_variant_off():
    """DX1: a readied firearm's DEX bonus 50 → 0 orders the fighters exactly as the variant
    ``readied_firearms = false`` does (the shooter no longer acts first)."""
    rs = [knob(("initiative.readied_firearm.bonus", 0))]
    edited = p_side0("competent_shooter", "expert", rs)
    oracle = p_side0("competent_shooter", "expert", (), {"readied_firearms": False})
    assert edited == pytest.approx(oracle, abs=1e-12)
    assert edited != pytest.approx(p_side0("competent_shooter", "expert"))


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ("[health.hit_points]\ndivisor = 0\n", "health.hit_points.divisor"),
        ("[movement.mov]\nslow = 9\n", "movement.mov"),
        ("[ranges.bands]\nlong = -1\n", "ranges.bands.long"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_key_exit_2(tmp_path, body, key):
    """A divisor of 0 (DX6), MOV slow above even (DX14), a negative band (DX15): one line
    naming the key, exit 2, no traceback."""
    p = tmp_path / "bad.toml"
    p.write_text(f'system = "percentile"\n{body}', encoding="utf-8")
    r = cli("duel", SYSTEM, "competent", "expert", "--rules", p)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert key in lines[0]
    assert "Traceback" not in r.stderr
