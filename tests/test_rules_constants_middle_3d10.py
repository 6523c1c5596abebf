"""middle_3d10 rule data (RULES.md B6, B8, B9, B10, B-g12): the numbers of the seed's
formulas as rule tables of the data file (``damage.bonus.divisor``,
``defense.flat_footed.penalty``, ``health.wounds.*``, ``health.massive_damage.difficulty``),
editable with ``--rules`` and ``middle_3d10:rules.KIND.ENTRY.FIELD``.

The oracles never read the edited field: a divisor edit equals the same fight with the
strengths that give the same bonus; a flat-footed or helpless penalty equals a lower
Defense; a wound penalty equals a lower trait; the massive check is enumerated over the
1,000 rolls of 3d10; the Monte Carlo kernel is checked against the exact chain under an
edit of every field."""

from __future__ import annotations

import dataclasses
import itertools
from math import sqrt
from pathlib import Path

import numpy as np
import pytest
from cli_fuzz_support import cli_here

from analysis import rules
from analysis.combat import archetypes
from engines.errors import InputError
from engines.systems.middle_3d10 import combat as cm
from engines.systems.middle_3d10.combat import Variants
from engines.systems.middle_3d10.combat.rules import (
    BONUS_DIV,
    FLAT,
    MASSIVE_DC,
    PEN_INCAP,
    PEN_WOUNDED,
)

ROOT = Path(__file__).resolve().parents[1]
SYSTEM = "middle_3d10"


def ruleset(**knobs) -> rules.RuleSet:
    rs = rules.RuleSet(SYSTEM)
    for knob, value in knobs.items():
        rs = rs.with_knob("rules." + knob.replace("__", "."), value)
    return rs


def fighter(spec, rs: rules.RuleSet | None = None, **over):
    with rules.using([rs] if rs else []):
        c = archetypes.combatant(SYSTEM, spec)
    return dataclasses.replace(c, **over) if over else c


def tol(p: float, n: int) -> float:
    """Five standard errors of a binomial proportion plus one count (continuity)."""
    return 5 * sqrt(p * (1 - p) / n) + 1 / n


def test_the_package_numbers_are_the_seeds():
    """B6 −3, B8 ÷4, B9 −2 / −5, B10 difficulty 12: the data file's rule tables."""
    t = rules.base_tables(SYSTEM)
    assert t["defense"]["flat_footed"]["penalty"] == 3
    assert t["damage"]["bonus"]["divisor"] == 4
    assert t["health"]["wounds"]["wounded_penalty"] == 2
    assert t["health"]["wounds"]["incapacitated_penalty"] == 5
    assert t["health"]["massive_damage"]["difficulty"] == 12
    c = fighter("competent")
    row = c.row()
    assert (row[FLAT], row[BONUS_DIV], row[PEN_WOUNDED], row[PEN_INCAP], row[MASSIVE_DC]) == (
        3,
        4,
        2,
        5,
        12,
    )


def test_an_edit_reaches_the_kernel_row():
    rs = ruleset(
        defense__flat_footed__penalty=1,
        health__wounds__wounded_penalty=4,
        health__wounds__incapacitated_penalty=7,
        health__massive_damage__difficulty=15,
        damage__bonus__divisor=3,
    )
    row = fighter("expert_swordsman", rs).row()
    assert (row[FLAT], row[BONUS_DIV], row[PEN_WOUNDED], row[PEN_INCAP], row[MASSIVE_DC]) == (
        1,
        3,
        4,
        7,
        15,
    )


def test_b8_divisor_edit_is_the_duel_with_the_same_bonuses():
    """B8 with divisor 3: competent (FOR 4, Combat 5) gets ⌊9/3⌋ = 3 and expert (FOR 4,
    Combat 7) ⌊11/3⌋ = 3 — under the seed's divisor 4 that is FOR 7 and FOR 5. Strength
    does nothing else in this system's combat, so the exact duels are the same."""
    rs = ruleset(damage__bonus__divisor=3)
    a, b = fighter("competent", rs), fighter("expert", rs)
    assert (a.damage_bonus, b.damage_bonus) == (3, 3)
    a0 = fighter("competent", strength=7)
    b0 = fighter("expert", strength=5)
    assert ((a0.strength + a0.combat) // 4, (b0.strength + b0.combat) // 4) == (3, 3)
    edited, oracle = cm.duel_exact(a, b, round_cap=20), cm.duel_exact(a0, b0, round_cap=20)
    np.testing.assert_allclose(edited.outcome, oracle.outcome, atol=1e-12)
    np.testing.assert_allclose(edited.rounds, oracle.rounds, atol=1e-12)
    plain = cm.duel_exact(fighter("competent"), fighter("expert"), round_cap=20)
    assert abs(plain.outcome[0] - edited.outcome[0]) > 1e-3  # the edit does something


def test_b8_divisor_edit_through_the_fight_workflow():
    """The same oracle through the rules in force (what --rules and the knob use)."""
    from analysis.workflow.fight_sweep import fight_point

    with rules.using([ruleset(damage__bonus__divisor=3)]):
        edited = fight_point(SYSTEM, "competent", "expert", {}, 20, "p_side0", exact=True)["metric"]
    oracle = fight_point(
        SYSTEM,
        {"archetype": "competent", "strength": 7},
        {"archetype": "expert", "strength": 5},
        {},
        20,
        "p_side0",
        exact=True,
    )["metric"]
    assert edited == pytest.approx(oracle, abs=1e-12)


@pytest.mark.parametrize("penalty", [0, 5])
def test_b6_flat_footed_edit_is_a_lower_defense(penalty):
    """B6: a flat-footed target loses ``penalty`` Defense: the same as an alert target
    whose Defense is ``penalty`` lower."""
    rs = ruleset(defense__flat_footed__penalty=penalty)
    att, tgt = fighter("competent"), fighter("expert", rs)
    got = cm.attack_damage(att, tgt, flat_footed=True)
    want = cm.attack_damage(att, fighter("expert", defense=tgt.defense - penalty))
    np.testing.assert_allclose(got, want, atol=1e-15)


def test_b9_wound_penalty_edit_is_a_lower_trait_and_defense():
    """B9 with wounded −4, incapacitated −7: a wounded attacker's row of the attack table
    is a healthy attacker's with trait − 4; an incapacitated target's column a healthy
    target's with Defense − 7."""
    rs = ruleset(health__wounds__wounded_penalty=4, health__wounds__incapacitated_penalty=7)
    att, tgt = fighter("expert", rs), fighter("competent", rs)
    v, n_bins = Variants(), 80
    t = cm.attack_table(att, tgt, v, n_bins)
    weak = cm.attack_table(fighter("expert", trait=att.trait - 4), tgt, v, n_bins)
    np.testing.assert_allclose(t[1, 0], weak[0, 0], atol=1e-15)
    soft = cm.attack_table(att, fighter("competent", defense=tgt.defense - 7), v, n_bins)
    np.testing.assert_allclose(t[0, 2], soft[0, 0], atol=1e-15)


def test_b_g12_helpless_defense_follows_the_incapacitated_penalty():
    """B-g12: a dying target's Defense − the incapacitated penalty (8 here) — the same as
    the seed's − 5 on a target whose Defense is 3 lower (aftermath ``finish``)."""
    v = Variants(aftermath="finish", finish_rounds=1)
    rs = ruleset(health__wounds__incapacitated_penalty=8)
    att = fighter("novice")
    edited = cm.fate_probs(att, fighter("master", rs), v)
    master = fighter("master")
    oracle = cm.fate_probs(att, dataclasses.replace(master, defense=master.defense - 3), v)
    np.testing.assert_allclose(edited, oracle, atol=1e-15)


def _massive_pass_enumerated(vigor: int, difficulty: int) -> float:
    """B10 + B3 over the 1,000 ordered rolls: two 10s pass, two 1s fail, else middle +
    Vigor ≥ difficulty."""
    ok = 0
    for roll in itertools.product(range(1, 11), repeat=3):
        mid = sorted(roll)[1]
        ok += roll.count(10) >= 2 or (roll.count(1) < 2 and mid + vigor >= difficulty)
    return ok / 1000


def test_b10_massive_difficulty_edit_in_one_hit():
    """B10 at difficulty 15: P(incapacitate) of one attack = P(damage ≥ 3 Vigor) + P(Vigor
    ≤ damage < 3 Vigor) × P(failing the check), the check enumerated."""
    rs = ruleset(health__massive_damage__difficulty=15)
    att, tgt = fighter("master_brawler"), fighter("novice", rs)
    p = cm.attack_damage(att, tgt)
    d = np.arange(p.size)
    v = tgt.vigor
    fail = 1 - _massive_pass_enumerated(v, 15)
    want = p[d >= 3 * v].sum() + p[(d >= v) & (d < 3 * v)].sum() * fail
    got = cm.one_hit(att, tgt)["p_incapacitate"]
    assert got == pytest.approx(want, abs=1e-12)
    assert got > cm.one_hit(att, fighter("novice"))["p_incapacitate"] + 1e-3


PLAIN = Variants()
FINISH = Variants(aftermath="finish", dying_damage="massive", finish_rounds=1)
#: (knob, value, fighters, their common overrides, variants): each edit on a fight it
#: moves by several standard errors, so a kernel ignoring the field fails
EDITS = [
    ("defense.flat_footed.penalty", 0, ("novice", "competent"), {}, PLAIN),
    ("health.wounds.wounded_penalty", 6, ("untrained", "untrained_brawler"), {"vigor": 6}, PLAIN),
    ("health.wounds.incapacitated_penalty", 10, ("competent", "competent_swordsman"), {}, FINISH),
    ("health.massive_damage.difficulty", 16, ("competent", "competent_swordsman"), {}, FINISH),
    ("damage.bonus.divisor", 3, ("competent_brawler", "expert"), {}, PLAIN),
]


def _cells(res, n: float = 1.0) -> np.ndarray:
    return (
        np.concatenate(
            [
                np.asarray(res.outcome, float).ravel(),
                np.asarray(res.rounds, float).ravel(),
                np.asarray(res.standing, float).ravel(),
                np.asarray(res.loser_dead, float).ravel(),
            ]
        )
        / n
    )


@pytest.mark.parametrize(("knob", "value", "pair", "over", "v"), EDITS, ids=[e[0] for e in EDITS])
def test_exact_and_monte_carlo_agree_under_an_edit(knob, value, pair, over, v):
    """B6, B8, B9, B10, B-g12 edited one at a time: the Monte Carlo kernel reads the
    fighters' rows as the exact chain reads their fields — every outcome, rounds,
    standing and loser-dead cell within 5σ + 1/n (fixed seed); and the edit moves the
    exact fight by more than that, so a kernel ignoring it would fail."""
    rs = rules.RuleSet(SYSTEM).with_knob(f"rules.{knob}", value)
    a, b = (fighter(name, rs, **over) for name in pair)
    a0, b0 = (fighter(name, **over) for name in pair)
    n = 40_000
    exact = _cells(cm.duel_exact(a, b, v, round_cap=20))
    plain = _cells(cm.duel_exact(a0, b0, v, round_cap=20))
    mc = _cells(cm.duel_mc(a, b, n, seed=29, variants=v, round_cap=20), n)
    bound = np.array([tol(min(max(p, 0.0), 1.0), n) for p in exact])
    assert np.all(np.abs(mc - exact) <= bound)
    assert np.max(np.abs(exact - plain) - 2 * bound) > 0


def cli(*args):
    """``rpg-balance ARGS`` in this process (:func:`cli_fuzz_support.cli_here`)."""
    return cli_here(*args)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[health.wounds]\nwounded_penalty = -1\n", "health.wounds.wounded_penalty"),
        ("[damage.bonus]\ndivisor = 0\n", "damage.bonus.divisor"),
        ("[health.massive_damage]\ndifficulty = 2.5\n", "health.massive_damage.difficulty"),
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
    with pytest.raises(InputError, match=r"defense\.flat_footed\.penalty"):
        ruleset(defense__flat_footed__penalty=-2)


def test_the_archetype_table_leaves_the_rule_data_out():
    """The rule data are rules, not traits: ``rpg-balance archetypes`` shows the traits
    only (the rule tables are ``rpg-balance rules``)."""
    row = archetypes.describe(SYSTEM)[0]
    assert {"trait", "vigor", "defense"} <= set(row)
    assert not {
        "flat_footed",
        "wounded_penalty",
        "incapacitated_penalty",
        "massive_difficulty",
        "bonus_divisor",
    } & set(row)
