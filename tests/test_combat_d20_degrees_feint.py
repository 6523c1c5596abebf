"""d20_degrees E16 feint and surprise attack → E17 vulnerable (gaps E-g15, E-g16): hand-worked
chances, the exact chain against Monte Carlo and the library's feint tactic (RULES.md
section E). Tolerances: :mod:`d20_support`."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from d20_support import fighter

from analysis.combat.archetypes import library
from engines.errors import InputError
from engines.systems.d20_degrees.archetypes import DATA_FILE
from engines.systems.d20_degrees.combat import (
    Variants,
    attack_damage,
    duel_exact,
    duel_mc,
)

# ---------------------------------------------------------------------------------------
# E16 feint and surprise attack → E17 vulnerable (gaps E-g15, E-g16)
# ---------------------------------------------------------------------------------------


def _p_hit_hand(bonus: int, defence: int) -> Fraction:
    """E11 + E3 by d20 enumeration: hit on v + bonus ≥ defence + 10, 20 always, 1 never."""
    return Fraction(
        sum(1 for v in range(1, 21) if v == 20 or (v != 1 and v + bonus >= defence + 10)), 20
    )


@pytest.mark.parametrize(
    ("defence", "rounding", "halved"),
    [
        (7, "up", 4),
        (7, "down", 3),
        (8, "up", 4),
        (8, "down", 4),
        (-3, "up", -1),
        (-3, "down", -2),
        (0, "up", 0),
    ],
)
@pytest.mark.parametrize("ranged", [False, True])
def test_vulnerable_halves_active_defence(defence, rounding, halved, ranged):
    """E17 vulnerable: Parry (melee) or Dodge (ranged) halved, rounded per E-g15; P(hit)
    by d20 enumeration (E11, E3). Damage 40 vs Toughness 0 makes every hit deal ≥ 1, so
    P(hit) = 1 − P(damage 0)."""
    att = fighter(attack=5, damage=40, ranged=ranged)
    tgt = fighter(toughness=0, parry=defence if not ranged else 30, dodge=defence if ranged else 30)
    v = Variants(vulnerable_rounding=rounding)
    p = 1 - attack_damage(att, tgt, v, vulnerable=True)[0]
    assert p == pytest.approx(float(_p_hit_hand(5, halved)), abs=1e-12)
    p0 = 1 - attack_damage(att, tgt, v)[0]
    assert p0 == pytest.approx(float(_p_hit_hand(5, defence)), abs=1e-12)


def test_vulnerable_hand_worked_value():
    """E17, E-g15 default (round up): attack +5 vs Parry 7 → 4 → DC 14: faces 9–20 hit,
    12/20; not vulnerable DC 17: faces 12–20, 9/20 (hand-worked)."""
    att = fighter(attack=5, damage=40)
    tgt = fighter(toughness=0, parry=7)
    assert 1 - attack_damage(att, tgt, vulnerable=True)[0] == pytest.approx(12 / 20)
    assert 1 - attack_damage(att, tgt)[0] == pytest.approx(9 / 20)


def test_feint_chance_closed_form():
    """E16 feint as an E5 opposed check (E-g15): d20+5 vs d20+max(2, 4): wins when
    rb − ra ≤ 1 (a tie goes to the higher bonus): (210 + 19)/400. Equal bonuses: a tie
    fails, P(ra > rb) = 190/400. The difference of two d20s has P(k) = (20 − |k|)/400."""
    from engines.systems.d20_degrees.combat import feint_chance

    a = fighter(deception=5)
    assert feint_chance(a, fighter(deception=2, insight=4)) == pytest.approx(229 / 400)
    assert feint_chance(a, fighter(insight=5)) == pytest.approx(190 / 400)
    assert feint_chance(a, fighter(deception=5, insight=-3)) == pytest.approx(190 / 400)


def _mc_vs_exact(a, b, v, n, seed):
    e = duel_exact(a, b, v)
    m = duel_mc(a, b, n, seed, v)
    for exact, counts in ((e.outcome, m.outcome), (e.deaths, m.deaths)):
        p = np.clip(exact, 0, 1)
        tol = 5 * np.sqrt(p * (1 - p) / n) + 1 / n  # 5σ + 1/n
        assert np.all(np.abs(counts / n - exact) <= tol), (counts / n, exact)
    return e


@pytest.mark.parametrize(
    "v",
    [
        Variants(),
        Variants(surprise="side1"),
        Variants(surprise="side0", vulnerable_rounding="down", aftermath="finish", finish_rounds=2),
        Variants(surprise="side1", surprise_stun="surprise_attack"),
        Variants(
            surprise="side0", surprise_stun="surprise_attack", aftermath="finish", finish_rounds=2
        ),
    ],
)
def test_feint_duel_mc_matches_exact(v):
    """E16 feint tactic (E-g15: feint, then attack the vulnerable target, E17) and the
    E-g16 surprise attack (both E-g19 stun readings): Monte Carlo outcome and deaths vs
    the exact chain (its state carries the 'vulnerable' flag), tolerance 5σ + 1/n."""
    a = fighter(
        attack=6,
        damage=6,
        toughness=3,
        parry=9,
        dodge=9,
        hit_points=12,
        feint=True,
        deception=8,
        recover_at=4,
        extra_effort=2,
    )
    b = fighter(attack=7, toughness=4, parry=8, dodge=8, fortitude=3, insight=3)
    _mc_vs_exact(a, b, v, 40_000, 11)


def test_surprise_duel_mc_matches_exact_and_helps():
    """E-g16 surprise (no feinters): Monte Carlo vs exact (5σ + 1/n); a side that
    surprises wins a mirror duel more often than half (E16, E17)."""
    a = fighter(parry=10, dodge=10, hit_points=10)
    e = _mc_vs_exact(a, a, Variants(surprise="side0"), 40_000, 12)
    assert e.outcome[0] > 0.5 > e.outcome[1]


def test_feint_spends_the_standard_action():
    """E16/E-g15: the feint spends the standard action. A feinter who can never win the
    feint (E5: d20 − 40 vs d20 + 40) alternates a failed feint with a plain attack, so in
    10 rounds it attacks 5 times; each hits only on a natural 20 (E3: +5 vs DC 40). Its
    foe (attack −40 vs Parry 7) attacks 10 times, also natural 20 only. Toughness 60 on
    both: no hit hurts. Expected hits: (5 + 10)/20; without the tactic (10 + 10)/20."""
    tgt = fighter(parry=30, dodge=30, attack=-40, insight=40, hit_points=500, toughness=60)
    for feint, hits in ((True, 15 / 20), (False, 20 / 20)):
        bad = fighter(attack=5, feint=feint, deception=-40, toughness=60, hit_points=500)
        assert duel_exact(bad, tgt, round_cap=10).hits.sum() == pytest.approx(hits, abs=1e-9)
    # a feinter who always wins: every second turn its attack meets Parry 30 → 15 (E17,
    # E-g15): DC 25 vs +20 → faces 5–20 hit; the others stay natural-20-only
    good = fighter(attack=20, feint=True, deception=40, toughness=60, hit_points=500)
    tgt2 = dataclasses.replace(tgt, insight=-40)
    assert duel_exact(good, tgt2, round_cap=10).hits.sum() == pytest.approx(
        5 * 16 / 20 + 10 / 20, abs=1e-9
    )


@pytest.mark.parametrize(
    ("kw", "what"),
    [
        ({"surprise": "side2"}, "surprise"),
        ({"surprise_stun": "round"}, "surprise_stun"),
        ({"vulnerable_rounding": "half"}, "vulnerable_rounding"),
    ],
)
def test_vulnerable_variant_errors(kw, what):
    with pytest.raises(InputError, match=what):
        duel_exact(fighter(), fighter(), Variants(**kw))


def test_feint_field_error():
    with pytest.raises(InputError, match="feint"):
        fighter(feint=1)


def test_library_feint_tactic(tmp_path):
    """The data file may set the E16 feint tactic (E-g15) with Deception/Insight, on an
    archetype or through a style; a non-boolean is refused naming the file."""
    text = DATA_FILE.read_text(encoding="utf-8")
    text += "\n[styles.trickster]\nfeint = true\nadjust = { deception = 6 }\n"
    path = tmp_path / "lib.toml"
    path.write_text(text, encoding="utf-8")
    lib = library("d20_degrees", path)
    f = lib["competent_trickster"].to_engine()
    assert f.feint
    assert f.deception == 6
    assert not lib["competent"].to_engine().feint
    path.write_text(text.replace("feint = true", 'feint = "yes"'), encoding="utf-8")
    with pytest.raises(InputError, match=r"lib\.toml"):
        library("d20_degrees", path)
