"""The constants of the d10-pool systems' formulas as rule data (issue "Rules a designer
can edit", item 1): dice_pool_7's A14 vitality, AT1 Deslocamento, A7 specialization and
A8 athletics / shield Defense; dice_pool_6's C6 health, C5 specialty and C12 cover dice.

The oracles never read the edited field: an edited constant must give exactly the
numbers of a fighter changed another way (everyone's CON + 1 for vitality + 2, an armour
without its move cost for a larger Deslocamento, a shield worth as much more, FOR + 1
for a specialization die more, Stamina + 2, the next cover), the kernel row's columns
are checked against the seed's formulas written out from the traits, and the exact
chain and the Monte Carlo kernel must agree under an edit."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from cli_fuzz_support import cli_here

from analysis import rules
from analysis.combat import archetypes
from engines.constants import RULE_DATA
from engines.systems.dice_pool_6 import combat as dp6
from engines.systems.dice_pool_6.combat import rules as dp6_rules
from engines.systems.dice_pool_7 import combat as dp7
from engines.systems.dice_pool_7.combat import rules as dp7_rules

ROOT = Path(__file__).resolve().parents[1]


def cli(*args):
    """``rpg-balance ARGS`` in this process (:func:`cli_fuzz_support.cli_here`)."""
    return cli_here(*args)


def knob(system: str, *edits) -> rules.RuleSet:
    """The rule set of ``(knob, value)`` edits (``rules.…`` or ``everyone.…``)."""
    rs = rules.RuleSet(system)
    for k, value in edits:
        rs = rs.with_knob(k, value)
    return rs


def fighter(system: str, spec, rs: rules.RuleSet | None = None):
    """The engine combatant of ``spec`` (a name or ``{"archetype": …, **overrides}``)
    under the rule set ``rs``."""
    name, over = (
        (spec, {})
        if isinstance(spec, str)
        else (spec["archetype"], {k: v for k, v in spec.items() if k != "archetype"})
    )
    with rules.using([rs] if rs else []):
        return archetypes.combatant(system, name, over)


def same_fight(x, y) -> None:
    """Two exact duels with the same outcome and round distributions (to rounding)."""
    np.testing.assert_allclose(x.p_outcome(), y.p_outcome(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(x.rounds_pmf(), y.rounds_pmf(), rtol=0, atol=1e-12)


# --------------------------------------------------------------------------------------
# dice_pool_7


def test_dp7_rule_tables_are_listed_with_their_rule_ids():
    """A14, AT1, A7, A8: the constants are rule tables after weapon and armour, each
    field with the rule its note cites and the seed's value."""
    rows = {(r["table"], r["entry"], r["field"]): r for r in rules.table_rows("dice_pool_7")}
    kinds = list(dict.fromkeys(r[0] for r in rows))
    assert kinds == ["weapon", "armour", "health", "movement", "attack", "defense", "dodge"]
    seed = {
        ("health", "vitality", "per_con"): ("2", "A14"),
        ("health", "vitality", "base"): ("6", "A14"),
        ("movement", "deslocamento", "base"): ("5", "AT1"),
        ("attack", "specialization", "dice"): ("2", "A7"),
        ("defense", "athletics", "bonus"): ("2", "A8"),
        ("defense", "shield", "bonus"): ("1", "A8"),
        ("attack", "focus", "dice"): ("1", "A3"),
        ("attack", "willpower", "dice"): ("3", "A4"),
        ("defense", "willpower", "bonus"): ("2", "A4"),
        ("dodge", "pool", "per_defense"): ("2", "A9"),
    }
    for key, (value, rule) in seed.items():
        assert (rows[key]["value"], rows[key]["rule"]) == (value, rule), key


def test_dp7_vitality_base_edit_is_everyones_con_plus_one_in_the_fight():
    """A14: vitality = 2 × CON + base. Base 6 → 8 gives every fighter the vitality of
    CON + 1 (2 × (CON + 1) + 6), so who wins and when is exactly the fight with
    everyone's CON + 1; the kernel row's vitality is 2 · CON + 8 from the traits; only
    A15's death (CON itself) tells the two apart."""
    edit = knob("dice_pool_7", ("rules.health.vitality.base", 8))
    con = knob("dice_pool_7", ("everyone.CON", 1))
    a, b = "competent", "expert"
    by_rule = dp7.duel_exact(fighter("dice_pool_7", a, edit), fighter("dice_pool_7", b, edit))
    by_con = dp7.duel_exact(fighter("dice_pool_7", a, con), fighter("dice_pool_7", b, con))
    plain = dp7.duel_exact(fighter("dice_pool_7", a), fighter("dice_pool_7", b))
    same_fight(by_rule, by_con)
    assert abs(by_rule.p_outcome()[0] - plain.p_outcome()[0]) > 1e-3
    for name in (a, b):
        traits = archetypes.library("dice_pool_7")[name]
        row = dp7.row(fighter("dice_pool_7", name, edit))
        assert row[dp7_rules.C_VIT] == 2 * traits.CON + 8
        assert row[dp7_rules.C_CON] == traits.CON  # A15: CON itself is not edited


def test_dp7_vitality_per_con_edit():
    """A14: per_con 2 → 3 makes vitality 3 · CON + 6 for every rung."""
    edit = knob("dice_pool_7", ("rules.health.vitality.per_con", 3))
    for name in archetypes.names("dice_pool_7")[:8]:
        con = archetypes.library("dice_pool_7")[name].CON
        assert dp7.row(fighter("dice_pool_7", name, edit))[dp7_rules.C_VIT] == 3 * con + 6


def test_dp7_deslocamento_base_edit_is_an_armour_without_its_move_cost():
    """AT1, AT2: Deslocamento = FOR + DES + base + the armour's move. With both fighters
    in heavy archaic armour (move −3), base 5 → 8 is exactly the fight in which that
    armour costs no metres (an armour edit, move −3 → 0): a kiting shooter against a
    charger 30 m away (how long the chase lasts). The row's Deslocamento is FOR + DES
    + 8 − 3 from the traits."""
    v = dp7.Variants(distance=30)
    kiter = {"archetype": "expert_shooter", "armour": "heavy_archaic", "plan": "kite"}
    charger = {"archetype": "competent_swordsman", "armour": "heavy_archaic"}
    edit = knob("dice_pool_7", ("rules.movement.deslocamento.base", 8))
    free = knob("dice_pool_7", ("rules.armour.heavy_archaic.move", 0))

    def duel(rs):
        return dp7.duel_exact(
            fighter("dice_pool_7", kiter, rs), fighter("dice_pool_7", charger, rs), v
        )

    by_rule, by_armour, plain = duel(edit), duel(free), duel(None)
    same_fight(by_rule, by_armour)
    # the kiter wins either way; the longer moves make the chase last longer
    rounds = np.arange(plain.rounds_pmf().size)
    assert (by_rule.rounds_pmf() @ rounds) - (plain.rounds_pmf() @ rounds) > 0.5
    for spec in (kiter, charger):
        t = archetypes.library("dice_pool_7")[spec["archetype"]]
        c = fighter("dice_pool_7", spec, edit)
        assert dp7.row(c, v)[dp7_rules.C_MOVE] == t.FOR + t.DES + 8 - 3


def test_dp7_specialization_dice_edit_is_a_point_of_for_in_melee():
    """A7: a melee attack rolls FOR + the specialization's dice. Engaged (distance 0),
    where FOR counts only in the attack pool, dice 2 → 3 is exactly everyone's FOR + 1
    for specialized swordsmen; the row's attack attribute is FOR + 3."""
    edit = knob("dice_pool_7", ("rules.attack.specialization.dice", 3))
    strong = knob("dice_pool_7", ("everyone.FOR", 1))
    a, b = "competent", "expert"
    assert all(archetypes.library("dice_pool_7")[n].specialized for n in (a, b))
    by_rule = dp7.duel_exact(fighter("dice_pool_7", a, edit), fighter("dice_pool_7", b, edit))
    by_for = dp7.duel_exact(fighter("dice_pool_7", a, strong), fighter("dice_pool_7", b, strong))
    same_fight(by_rule, by_for)
    t = archetypes.library("dice_pool_7")[a]
    assert dp7.row(fighter("dice_pool_7", a, edit))[dp7_rules.C_ATTR] == t.FOR + 3
    untrained = fighter("dice_pool_7", "untrained", edit)  # not specialized: no change
    assert (
        dp7.row(untrained)[dp7_rules.C_ATTR] == archetypes.library("dice_pool_7")["untrained"].FOR
    )


def test_dp7_athletics_and_shield_defense_edits():
    """A8: Defense = min(DES, SAB) + a shield's bonus + athletics' bonus. For a master
    knight (athletics and a shield) athletics 2 → 3 and shield 1 → 2 are the same
    Defense, min(DES, SAB) + 1 + 3, and the same fight; the one-attack odds against it
    (A7 − A8, :func:`hit_probability`) drop."""
    ath = knob("dice_pool_7", ("rules.defense.athletics.bonus", 3))
    shield = knob("dice_pool_7", ("rules.defense.shield.bonus", 2))
    t = archetypes.library("dice_pool_7")["master_knight"]
    assert t.athletics
    assert t.armour.defense == 1
    by_ath = fighter("dice_pool_7", "master_knight", ath)
    by_shield = fighter("dice_pool_7", "master_knight", shield)
    assert by_ath.defense == by_shield.defense == min(t.DES, t.SAB) + 1 + 3
    foe = fighter("dice_pool_7", "master")
    same_fight(dp7.duel_exact(by_ath, foe), dp7.duel_exact(by_shield, foe))
    assert dp7.hit_probability(foe, by_ath) < dp7.hit_probability(
        foe, fighter("dice_pool_7", "master_knight")
    )
    # a knight without athletics feels only the shield edit
    c = archetypes.library("dice_pool_7")["competent_knight"]
    assert fighter("dice_pool_7", "competent_knight", ath).defense == c.defense
    assert fighter("dice_pool_7", "competent_knight", shield).defense == c.defense + 1


def test_dp7_focus_dice_edit_is_a_point_of_for_for_a_focusing_knight():
    """A3: a focus adds ``attack.focus.dice`` to the one attack after it. A knight
    (``focus_attack``) attacks only after a focus, so engaged 1 → 2 dice is exactly its
    FOR + 1; its foe, who never focuses, is untouched."""
    edit = knob("dice_pool_7", ("rules.attack.focus.dice", 2))
    lib = archetypes.library("dice_pool_7")
    knight = lib["competent_knight"]
    assert knight.tactic == "focus_attack"
    assert lib["expert_armoured"].tactic != "focus_attack"
    by_rule = dp7.duel_exact(
        fighter("dice_pool_7", "competent_knight", edit),
        fighter("dice_pool_7", "expert_armoured", edit),
    )
    by_hand = dp7.duel_exact(
        fighter("dice_pool_7", {"archetype": "competent_knight", "FOR": knight.FOR + 1}),
        fighter("dice_pool_7", "expert_armoured"),
    )
    same_fight(by_rule, by_hand)
    assert (
        abs(
            by_rule.p_outcome()[0]
            - dp7.duel_exact(
                fighter("dice_pool_7", "competent_knight"),
                fighter("dice_pool_7", "expert_armoured"),
            ).p_outcome()[0]
        )
        > 1e-3
    )


@pytest.mark.parametrize(
    ("knob_name", "spec"),
    [
        ("rules.attack.willpower.dice", {"archetype": "competent_brawler"}),  # attack_early
        ("rules.defense.willpower.bonus", {"archetype": "competent_fencer"}),  # defense_late
    ],
)
def test_dp7_willpower_worth_nothing_is_spending_none(knob_name, spec):
    """A4: a willpower point buys ``attack.willpower.dice`` dice or
    ``defense.willpower.bonus`` Defense. At 0 a point buys nothing, so the fight is
    exactly the one in which the fighter never spends (willpower policy ``none``); at
    the seed's value it is not."""
    lib = archetypes.library("dice_pool_7")
    assert lib[spec["archetype"]].willpower != "none"
    zero = knob("dice_pool_7", (knob_name, 0))
    foe = "competent"
    by_rule = dp7.duel_exact(fighter("dice_pool_7", spec, zero), fighter("dice_pool_7", foe))
    never = dp7.duel_exact(
        fighter("dice_pool_7", {**spec, "willpower": "none"}), fighter("dice_pool_7", foe)
    )
    same_fight(by_rule, never)
    plain = dp7.duel_exact(fighter("dice_pool_7", spec), fighter("dice_pool_7", foe))
    assert abs(plain.p_outcome()[0] - never.p_outcome()[0]) > 1e-3


def test_dp7_new_row_columns_follow_the_fields():
    """A3, A4, A9: the kernel row carries the edited constants (the kernel reads them
    there; the columns beyond the old layout are new, so no kernel signature changes)."""
    edit = knob(
        "dice_pool_7",
        ("rules.attack.focus.dice", 2),
        ("rules.attack.willpower.dice", 4),
        ("rules.defense.willpower.bonus", 1),
        ("rules.dodge.pool.per_defense", 3),
    )
    row = dp7.row(fighter("dice_pool_7", "competent_fencer", edit))
    assert [
        row[dp7_rules.C_FOCUS],
        row[dp7_rules.C_WP_DICE],
        row[dp7_rules.C_WP_DEF],
        row[dp7_rules.C_DODGE],
    ] == [2, 4, 1, 3]


# --------------------------------------------------------------------------------------
# dice_pool_6


def test_dp6_rule_tables_are_listed_with_their_rule_ids():
    """C6, C5, C12: the constants are rule tables after the weapons."""
    rows = {(r["table"], r["entry"], r["field"]): r for r in rules.table_rows("dice_pool_6")}
    assert list(dict.fromkeys(r[0] for r in rows)) == [
        "weapon",
        "health",
        "attack",
        "cover",
        "dodge",
    ]
    seed = {
        ("health", "track", "base"): ("3", "C6"),
        ("attack", "specialty", "dice"): ("1", "C5"),
        ("cover", "none", "dice"): ("-2", "C12"),
        ("cover", "partial", "dice"): ("1", "C12"),
        ("cover", "full", "dice"): ("2", "C12"),
        ("dodge", "outnumbered", "dice"): ("1", "C13"),
    }
    for key, (value, rule) in seed.items():
        assert (rows[key]["value"], rows[key]["rule"]) == (value, rule), key


def test_dp6_health_base_edit_is_everyones_stamina_plus_two():
    """C6: health = Stamina + base; base 3 → 5 is everyone's Stamina + 2 (C-g5's death at
    twice the health follows the health), exactly; the row's health is Stamina + 5."""
    edit = knob("dice_pool_6", ("rules.health.track.base", 5))
    tough = knob("dice_pool_6", ("everyone.stamina", 2))
    a, b = "competent", "expert"
    by_rule = dp6.duel_exact(fighter("dice_pool_6", a, edit), fighter("dice_pool_6", b, edit))
    by_hand = dp6.duel_exact(fighter("dice_pool_6", a, tough), fighter("dice_pool_6", b, tough))
    same_fight(by_rule, by_hand)
    np.testing.assert_allclose(by_rule.p_loser_fates()[0], by_hand.p_loser_fates()[0], atol=1e-12)
    stamina = archetypes.library("dice_pool_6")[a].stamina
    row = dp6.row(fighter("dice_pool_6", a, edit))
    assert row[dp6_rules.C_HEALTH] == stamina + 5
    assert row[dp6_rules.C_DEATH] == 2 * (stamina + 5)  # C-g5 default: twice the health


def test_dp6_specialty_dice_edit_is_a_point_of_skill():
    """C5: a specialty's die 1 → 2 is exactly the attack skill + 1 of specialty holders
    (expert and master have one)."""
    edit = knob("dice_pool_6", ("rules.attack.specialty.dice", 2))
    lib = archetypes.library("dice_pool_6")
    a, b = "expert", "master"
    assert lib[a].specialty
    assert lib[b].specialty
    assert not lib["competent"].specialty
    by_rule = dp6.duel_exact(fighter("dice_pool_6", a, edit), fighter("dice_pool_6", b, edit))
    by_hand = dp6.duel_exact(
        fighter("dice_pool_6", {"archetype": a, "attack_skill": lib[a].attack_skill + 1}),
        fighter("dice_pool_6", {"archetype": b, "attack_skill": lib[b].attack_skill + 1}),
    )
    same_fight(by_rule, by_hand)
    t = lib[a]
    assert (
        dp6.row(fighter("dice_pool_6", a, edit))[dp6_rules.C_ATT]
        == t.attack_attribute + t.attack_skill + 2
    )
    assert fighter("dice_pool_6", "competent", edit).attack_pool == lib["competent"].attack_pool


def test_dp6_cover_dice_edit_is_the_next_cover():
    """C12: partial cover's +1 → +2 makes a shooter in partial cover dodge shots exactly
    as one in full cover: the duel, the one attack (``attack.dodge_against``) and the
    row's cover column agree; a melee attack ignores cover."""
    edit = knob("dice_pool_6", ("rules.cover.partial.dice", 2))
    lib = archetypes.library("dice_pool_6")
    assert lib["competent_shooter"].cover == "partial"
    a = fighter("dice_pool_6", "competent_shooter", edit)
    full = fighter("dice_pool_6", {"archetype": "competent_shooter", "cover": "full"})
    foe = fighter("dice_pool_6", "expert_shooter", edit)
    foe_full = fighter("dice_pool_6", {"archetype": "expert_shooter", "cover": "full"})
    same_fight(dp6.duel_exact(a, foe), dp6.duel_exact(full, foe_full))
    np.testing.assert_allclose(
        dp6.attack_damage(foe, a), dp6.attack_damage(foe_full, full), atol=1e-15
    )
    assert dp6.row(a)[dp6_rules.C_COVER] == 2
    plain = fighter("dice_pool_6", "competent_shooter")
    assert dp6.hit_probability(foe, a) < dp6.hit_probability(foe, plain)
    sword = fighter("dice_pool_6", "expert", edit)  # melee: no cover dice (C12)
    assert dp6.hit_probability(sword, a) == dp6.hit_probability(sword, plain)


def test_dp6_taken_cover_reads_the_edited_dice():
    """CT-g2, C12: a fighter that takes cover gets the edited dice of the cover it takes."""
    edit = knob("dice_pool_6", ("rules.cover.partial.dice", 3))
    c = fighter(
        "dice_pool_6", {"archetype": "competent_shooter", "cover": "none", "plan": "cover"}, edit
    )
    assert dp6.row(c)[dp6_rules.C_COVER] == -2
    assert dp6.row(c)[dp6_rules.C_TAKEN] == 3


def test_dp6_outnumbered_dice_edit():
    """C13: a defender loses ``dodge.outnumbered.dice`` dice per earlier attack on it in
    the round: 1 → 2 makes the third attack meet dodge pool − 4 (one attack, exactly);
    in a 2-vs-1 fight (Monte Carlo, the kernel's own C13) the lone fighter does worse
    with 2 than with 0 by far more than the noise."""
    two = knob("dice_pool_6", ("rules.dodge.outnumbered.dice", 2))
    none = knob("dice_pool_6", ("rules.dodge.outnumbered.dice", 0))
    from engines.systems.dice_pool_6.combat.attack import dodge_against

    a, t = fighter("dice_pool_6", "competent", two), fighter("dice_pool_6", "expert", two)
    assert dodge_against(a, t, defended=2) == t.dodge_pool - 4
    assert dp6.row(t)[dp6_rules.C_CROWD] == 2
    n = 20_000

    def lone_wins(rs):
        a, b = fighter("dice_pool_6", "competent", rs), fighter("dice_pool_6", "master", rs)
        return dp6.fight_mc([a, a], [b], n, seed=5).p_outcome()[1]

    p2, p0 = lone_wins(two), lone_wins(none)
    se = math.sqrt(p2 * (1 - p2) / n + p0 * (1 - p0) / n)
    assert p0 - p2 > 5 * se, (p0, p2)


# --------------------------------------------------------------------------------------
# Both


@pytest.mark.parametrize(
    ("system", "edits", "a", "b"),
    [
        (
            "dice_pool_7",
            (
                ("rules.health.vitality.base", 9),
                ("rules.attack.specialization.dice", 1),
                ("rules.dodge.pool.per_defense", 3),
                ("rules.defense.willpower.bonus", 3),
            ),
            "competent",
            "competent_fencer",
        ),
        (
            "dice_pool_7",
            (("rules.attack.focus.dice", 3), ("rules.attack.willpower.dice", 1)),
            "competent_knight",
            "expert_brawler",
        ),
        (
            "dice_pool_6",
            (("rules.health.track.base", 6), ("rules.cover.none.dice", 0)),
            "competent_shooter",
            {"archetype": "expert_shooter", "cover": "none"},
        ),
    ],
)
def test_exact_and_monte_carlo_agree_under_an_edit(system, edits, a, b):
    """The exact chain and the kernel read the edited constants the same way: P(side 0),
    P(side 1) within 5 standard errors + 1/n (fixed seed)."""
    rs = knob(system, *edits)
    eng = dp7 if system == "dice_pool_7" else dp6
    fa, fb = fighter(system, a, rs), fighter(system, b, rs)
    n = 40_000
    exact = eng.duel_exact(fa, fb).p_outcome()
    mc = eng.duel_mc(fa, fb, n, seed=11).p_outcome()
    plain = eng.duel_exact(fighter(system, a), fighter(system, b)).p_outcome()
    assert abs(plain[0] - exact[0]) > 0.01  # the edit moves the fight
    for k in range(2):
        se = math.sqrt(exact[k] * (1 - exact[k]) / n)
        assert abs(mc[k] - exact[k]) <= 5 * se + 1 / n, (k, mc[k], exact[k])


@pytest.mark.parametrize("system", ["dice_pool_7", "dice_pool_6"])
def test_a_data_file_without_the_tables_has_the_seeds_values(system):
    """A14/AT1/A7/A8, C6/C5/C12: the tables are optional in a data file; without them
    every archetype is the package's, field for field."""
    hook = archetypes.hook(system)
    _, raw = archetypes.read_library(system, None, rules=False)
    kinds = {t for _, t, _ in hook.rule_tables(raw)} - {"weapons", "armour"}
    bare = {k: v for k, v in raw.items() if k not in kinds}
    assert len(bare) < len(raw)
    assert hook.load("bare.toml", bare) == hook.load("archetypes.toml", raw)


@pytest.mark.parametrize("system", ["dice_pool_7", "dice_pool_6"])
def test_rule_data_fields_are_not_traits(system):
    """The combatant's rule-data fields are left out of the archetype listing (they are
    rules, listed by ``rpg-balance rules``), and ``everyone`` offsets only traits."""
    eng = dp7 if system == "dice_pool_7" else dp6
    data = {f.name for f in dataclasses.fields(eng.Combatant) if RULE_DATA in f.metadata}
    assert data
    row = archetypes.describe(system)[0]
    assert not data & set(row)
    with pytest.raises(Exception, match="no trait"):
        rules.RuleSet(system).with_knob(f"everyone.{sorted(data)[0]}", 1)


@pytest.mark.parametrize(
    ("system", "table", "words"),
    [
        (
            "dice_pool_7",
            "[health.vitality]\nbase = -1\n",
            "health.vitality.base: Input should be greater than or equal to 1",
        ),
        (
            "dice_pool_7",
            "[movement.deslocamento]\nbase = -5\n",
            "movement.deslocamento.base: Input should be greater than or equal to 0",
        ),
        ("dice_pool_7", "[defense.shield]\nremove = true\n", "defense.shield: Field required"),
        (
            "dice_pool_6",
            "[cover.partial]\ndice = 9\n",
            "cover.partial.dice: Input should be less than or equal to 5",
        ),
        (
            "dice_pool_6",
            "[health.track]\nbase = 0\n",
            "health.track.base: Input should be greater than or equal to 1",
        ),
    ],
)
def test_a_bad_constant_is_one_line_exit_2(system, table, words, tmp_path):
    """A bad value in a rules file: one line naming the key, exit 2, no traceback."""
    p = tmp_path / "bad.toml"
    p.write_text(f'system = "{system}"\n{table}', encoding="utf-8")
    r = cli("duel", system, "competent", "expert", "--rules", p)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: bad.toml: {words}"), r.stderr


def test_a_bad_constant_knob_is_one_line_exit_2():
    """The same check for a ``--set SYSTEM:rules.KIND.ENTRY.FIELD`` knob."""
    r = cli(
        "audit",
        "analysis/data/guardrails.toml",
        "--no-suggest",
        "--set",
        "dice_pool_7:rules.health.vitality.base=-2",
    )
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "health.vitality.base" in r.stderr
    assert "greater than or equal to 1" in r.stderr
