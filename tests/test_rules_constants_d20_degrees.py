"""d20_degrees rule data (RULES.md E3, E12, E13, E14, E15): the numbers of the seed's
formulas as rule tables of the data file (``damage.resistance.offset``,
``damage.critical.bonus``, ``health.instant_death.degrees``, ``health.dying.dc``,
``health.recovery.*``), editable with ``--rules`` and
``d20_degrees:rules.KIND.ENTRY.FIELD``.

The oracles never read the edited field: a damage offset edit equals the same fight with
every attack base raised as much; a dying DC edit equals the same fight with Fortitude
lowered as much; a critical-damage edit is checked against one attack enumerated die by
die; every field's Monte Carlo kernel is checked against the exact chain under the edit."""

from __future__ import annotations

import dataclasses
from math import sqrt
from pathlib import Path

import numpy as np
import pytest
from cli_fuzz_support import cli_here

from analysis import rules
from analysis.combat import archetypes
from engines.errors import InputError
from engines.systems.d20_degrees import combat as dc
from engines.systems.d20_degrees.combat import Variants
from engines.systems.d20_degrees.combat.rules import (
    F_CRITD,
    F_DOFF,
    F_DYDC,
    F_IDEG,
    F_RECDEF,
    F_RECHP,
)

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "d20_degrees"


def ruleset(**knobs) -> rules.RuleSet:
    rs = rules.RuleSet(SYSTEM)
    for knob, value in knobs.items():
        rs = rs.with_knob("rules." + knob.replace("__", "."), value)
    return rs


def fighter(spec, rs: rules.RuleSet | None = None, **over):
    with rules.using([rs] if rs else []):
        f = archetypes.combatant(SYSTEM, spec)
    return dataclasses.replace(f, **over) if over else f


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def cells(res, n: float = 1.0) -> np.ndarray:
    return (
        np.concatenate(
            [
                np.asarray(x, float).ravel()
                for x in (res.outcome, res.rounds, res.standing, res.loser_dead)
            ]
        )
        / n
    )


def test_the_package_numbers_are_the_seeds():
    """E12 + 15, E3 + 5, E13 3 degrees, E14 DC 15, E15 + 5 hit points and + 2 defences."""
    t = rules.base_tables(SYSTEM)
    assert t["damage"]["resistance"]["offset"] == 15
    assert t["damage"]["critical"]["bonus"] == 5
    assert t["health"]["instant_death"]["degrees"] == 3
    assert t["health"]["dying"]["dc"] == 15
    assert (t["health"]["recovery"]["hit_points"], t["health"]["recovery"]["defence"]) == (5, 2)
    row = fighter("competent").array()
    assert [row[k] for k in (F_DOFF, F_CRITD, F_IDEG, F_DYDC, F_RECHP, F_RECDEF)] == [
        15,
        5,
        3,
        15,
        5,
        2,
    ]


def test_an_edit_reaches_the_kernel_row():
    rs = ruleset(
        damage__resistance__offset=12,
        damage__critical__bonus=7,
        health__instant_death__degrees=2,
        health__dying__dc=18,
        health__recovery__hit_points=9,
        health__recovery__defence=4,
    )
    row = fighter("expert_brawler", rs).array()
    assert [row[k] for k in (F_DOFF, F_CRITD, F_IDEG, F_DYDC, F_RECHP, F_RECDEF)] == [
        12,
        7,
        2,
        18,
        9,
        4,
    ]


def test_e12_offset_edit_is_the_duel_with_higher_attack_bases():
    """E12 with + 17: every attack's damage is 2 more, as with attack bases 2 higher (the
    base enters nothing else in an engaged duel without the charge)."""
    v = Variants(aftermath="finish")
    rs = ruleset(damage__resistance__offset=17)
    a, b = fighter("competent", rs), fighter("expert", rs)
    a0, b0 = fighter("competent"), fighter("expert")
    oracle = dc.duel_exact(
        dataclasses.replace(a0, damage=a0.damage + 2),
        dataclasses.replace(b0, damage=b0.damage + 2),
        v,
        round_cap=20,
    )
    edited = dc.duel_exact(a, b, v, round_cap=20)
    np.testing.assert_allclose(cells(edited), cells(oracle), atol=1e-12)
    assert np.abs(cells(edited) - cells(dc.duel_exact(a0, b0, v, round_cap=20))).max() > 0.05


def test_e14_dying_dc_edit_is_the_duel_with_lower_fortitude():
    """E14 at DC 20: the same dying checks as DC 15 with Fortitude 5 lower (Fortitude
    enters only E14); the finish aftermath makes fighters dying."""
    v = Variants(aftermath="finish", finish_rounds=1)
    rs = ruleset(health__dying__dc=20)
    a0, b0 = fighter("competent"), fighter("competent_brawler")
    edited = dc.duel_exact(
        fighter("competent", rs), fighter("competent_brawler", rs), v, round_cap=20
    )
    oracle = dc.duel_exact(
        dataclasses.replace(a0, fortitude=a0.fortitude - 5),
        dataclasses.replace(b0, fortitude=b0.fortitude - 5),
        v,
        round_cap=20,
    )
    np.testing.assert_allclose(cells(edited), cells(oracle), atol=1e-12)
    assert np.abs(cells(edited) - cells(dc.duel_exact(a0, b0, v, round_cap=20))).max() > 0.01


def _one_attack_enumerated(att, tgt, crit: int) -> np.ndarray:
    """E11, E3, E12 with the degree house rule, by hand: d20 + attack vs Parry + 10 (a
    natural 1 misses, a 20 hits and adds ``crit``), damage = base + excess degrees + 15
    (+ crit) − (Toughness + d20), at least 0; no hero point, no maneuver."""
    out: dict[int, float] = {}
    dc_ = tgt.parry + 10
    for v in range(1, 21):
        hit = v == 20 or (v != 1 and v + att.attack >= dc_)
        if not hit:
            out[0] = out.get(0, 0.0) + 1 / 20
            continue
        total = v + att.attack
        excess = (total - dc_) // 5 if total >= dc_ else 0
        x = att.damage + excess + 15 + (crit if v == 20 else 0)
        for r in range(1, 21):
            d = max(x - (tgt.toughness + r), 0)
            out[d] = out.get(d, 0.0) + 1 / 400
    pmf = np.zeros(max(out) + 1)
    for d, p in out.items():
        pmf[d] += p
    return pmf


@pytest.mark.parametrize("crit", [0, 11])
def test_e3_critical_damage_edit_in_one_attack(crit):
    rs = ruleset(damage__critical__bonus=crit)
    att = fighter("expert", rs, hero_points=0)
    tgt = fighter("competent")
    assert att.maneuver == "none"
    got = dc.attack_damage(att, tgt)
    want = _one_attack_enumerated(att, tgt, crit)
    size = max(got.size, want.size)
    np.testing.assert_allclose(
        np.pad(got, (0, size - got.size)), np.pad(want, (0, size - want.size)), atol=1e-15
    )


FINISH = Variants(aftermath="finish", finish_rounds=1)
#: (knob, value, fighters, variants): each edit on a fight it moves by several standard
#: errors, so a kernel ignoring the field fails
EDITS = [
    ("damage.resistance.offset", 17, ("competent", "expert"), Variants()),
    ("damage.critical.bonus", 15, ("competent", "expert"), Variants()),
    ("health.instant_death.degrees", 2, ("competent", "competent"), FINISH),
    ("health.dying.dc", 20, ("competent", "competent"), FINISH),
    ("health.recovery.hit_points", 12, ("novice", "competent"), Variants()),
    ("health.recovery.defence", 10, ("novice", "competent"), Variants()),
]


@pytest.mark.parametrize(("knob", "value", "pair", "v"), EDITS, ids=[e[0] for e in EDITS])
def test_exact_and_monte_carlo_agree_under_an_edit(knob, value, pair, v):
    """E3, E12–E15 edited one at a time: the Monte Carlo kernel reads the fighters' rows
    as the exact chain does — every outcome, rounds, standing and loser-dead cell within
    5σ + 1/n (fixed seed); and the edit moves the exact fight by more than that."""
    rs = rules.RuleSet(SYSTEM).with_knob(f"rules.{knob}", value)
    a, b = (fighter(name, rs) for name in pair)
    a0, b0 = (fighter(name) for name in pair)
    n = 40_000
    exact = cells(dc.duel_exact(a, b, v, round_cap=20))
    plain = cells(dc.duel_exact(a0, b0, v, round_cap=20))
    mc = cells(dc.duel_mc(a, b, n, seed=31, variants=v, round_cap=20), n)
    bound = np.array([tol(min(max(p, 0.0), 1.0), n) for p in exact])
    assert np.all(np.abs(mc - exact) <= bound)
    assert np.max(np.abs(exact - plain) - 2 * bound) > 0


def cli(*args):
    """``rpg-balance ARGS`` in this process (:func:`cli_fuzz_support.cli_here`)."""
    return cli_here(*args)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[damage.resistance]\noffset = -1\n", "damage.resistance.offset"),
        ("[health.instant_death]\ndegrees = 0\n", "health.instant_death.degrees"),
        ("[health.recovery]\ndefence = 1.5\n", "health.recovery.defence"),
    ],
)
def test_a_bad_value_is_one_line_exit_2(tmp_path, text, key):
    p = tmp_path / "bad.toml"
    p.write_text(f'system = "{SYSTEM}"\n{text}', encoding="utf-8")
    r = cli("duel", SYSTEM, "competent", "expert", "--rules", p)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1
    assert key in lines[0]


def test_a_bad_knob_value_names_the_knob():
    with pytest.raises(InputError, match=r"health\.dying\.dc"):
        ruleset(health__dying__dc=0)


def test_the_archetype_table_leaves_the_rule_data_out():
    """The rule data are rules, not traits: ``rpg-balance archetypes`` shows the traits
    only (the rule tables are ``rpg-balance rules``)."""
    row = archetypes.describe(SYSTEM)[0]
    assert {"attack", "toughness", "hit_points"} <= set(row)
    assert not {
        "damage_offset",
        "crit_damage",
        "instant_death_degrees",
        "dying_dc",
        "recovery_hp",
        "recovery_defence",
    } & set(row)
