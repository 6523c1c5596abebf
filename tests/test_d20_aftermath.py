"""d20_degrees lethality outcomes and two seed readings (RULES.md E13, E14, E16, E17,
"Lethality outcomes"; gaps E-g7, E-g17, E-g18).

Oracles are hand-worked from the seed's words (quoted in each test) and the exact duel
chain for the Monte Carlo kernel, tolerance ``5 * sqrt(p * (1 - p) / n) + 1 / n``.
"""

from __future__ import annotations

from fractions import Fraction
from math import sqrt

import numpy as np
import pytest

from analysis.combatants_d20 import load_library
from engines.combat_d20_degrees import (
    DYING,
    INCAP,
    Fighter,
    Variants,
    _dying_end,
    _first_aid,
    _fortitude,
    attack_damage,
    duel_exact,
    duel_mc,
    one_hit,
)
from engines.rng import chunk_states


def tol(p: float, n: int) -> float:
    return 5 * sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


def fighter(**kw) -> Fighter:
    base = {"attack": 7, "damage": 5, "toughness": 2, "parry": 7, "dodge": 7, "fortitude": 4,
            "hit_points": 12, "agility": 2, "awareness": 2, "hero_points": 0,
            "hero_use": "none"}
    base.update(kw)
    return Fighter(**base)


# E14 at Fortitude 0 vs DC 15 (E2 degrees, E3 naturals), by face:
#   20 → 25: 3 degrees → stabilised;  15–19: one degree → nothing;
#   11–14: 1 failure;  6–10: 2 failures;  1–5: 3 failures (dead at once).
# x_k = P(dead | dying with k failures, checks until resolved):
#   x2 = (14/20) / (15/20) = 14/15
#   x1 = (4/20·x2 + 10/20) / (15/20) = 206/225
#   x0 = (4/20·x1 + 5/20·x2 + 5/20) / (15/20) = 2999/3375
X2 = Fraction(14, 15)
X1 = (Fraction(4, 20) * X2 + Fraction(10, 20)) / Fraction(15, 20)
X0 = (Fraction(4, 20) * X1 + Fraction(5, 20) * X2 + Fraction(5, 20)) / Fraction(15, 20)


def test_e14_leave_and_first_aid_closed_form():
    """E14 (seed: "tendo de refazer o teste até estabilizar ou acumular 3 falhas") under
    ``leave``, and ``first_aid`` — seed, Healing: "Caso o alvo esteja incapacitado ou
    morrendo, o primeiro grau serve para estabilizar o paciente" (E-g17: d20 + bonus vs
    DC 10; E-g18: tries, each failed one followed by the patient's check)."""
    assert Fraction(206, 225) == X1
    assert Fraction(2999, 3375) == X0
    leave = Variants().rule()
    assert _dying_end(0, False, 0, leave) == pytest.approx(float(X0), abs=1e-12)
    assert _dying_end(0, False, 1, leave) == pytest.approx(float(X1), abs=1e-12)
    assert _dying_end(0, False, 2, leave) == pytest.approx(float(X2), abs=1e-12)
    # first aid, bonus 0, one try: faces 10–20 succeed (11/20); a failed try (9/20) is
    # followed by the patient's checks until resolved: x0
    aid = Variants(aftermath="first_aid", aid_bonus=0, aid_tries=1).rule()
    assert _dying_end(0, False, 0, aid) == pytest.approx(float(Fraction(9, 20) * X0))
    # two tries at bonus −3 (faces 13–20 and the natural 20: 8/20 succeed, 12/20 fail):
    # try, check, try, then leave
    p_f = Fraction(12, 20)
    one = {0: Fraction(5, 20), 1: Fraction(4, 20), 2: Fraction(5, 20)}   # after a check
    dead1 = p_f * Fraction(5, 20)
    after = {k: p_f * q for k, q in one.items()}                          # still dying
    xs = {0: X0, 1: X1, 2: X2}
    # second try fails (12/20), then the check from k failures and leave: x_k exactly
    want = dead1 + sum(p * p_f * xs[k] for k, p in after.items())
    aid2 = Variants(aftermath="first_aid", aid_bonus=-3, aid_tries=2).rule()
    assert _dying_end(0, False, 0, aid2) == pytest.approx(float(want), abs=1e-12)


def test_first_aid_kernel_matches_closed_form():
    """The Monte Carlo ``first_aid`` then ``leave`` on a dying combatant (the kernel's own
    functions) against :func:`_dying_end`, Fortitude 2, one failure, 3 tries at +1."""
    v = Variants(aftermath="first_aid", aid_bonus=1, aid_tries=3)
    rule = v.rule()
    F = np.array([fighter(fortitude=2).array()])
    s = chunk_states(5, 1)[0].copy()
    st, fails, eff = (np.zeros(1, np.int64) for _ in range(3))
    n, dead = 20_000, 0
    for _ in range(n):
        st[0], fails[0] = DYING, 1
        _first_aid(s, F, 0, st, fails, eff, rule)
        while st[0] == DYING:
            _fortitude(s, F, 0, st, fails, eff)
        dead += st[0] != INCAP
    p = _dying_end(2, False, 1, rule)
    assert abs(dead / n - p) <= tol(p, n)


def test_surprised_is_stunned_and_loses_its_first_turn():
    """Seed: "Surpreso (Surprised): Um personagem surpreendido está Vulnerável e
    Atordoado, impedido de agir ou se desviar da investida"; "Atordoado (Stunned): O
    personagem não pode executar nenhuma ação". Both fighters drop the other with any
    hit (1 hit point, attack and damage 40) and miss only on a natural 1 (E3). B
    surprised, B first in initiative: B loses turn 1, A attacks → A wins 19/20, else
    they alternate from B: P(A) = 19/20 + 1/20·(1/20)·P(A first) with P(A first) =
    (19/20)/(1 − 1/400). A first: A, (B stunned), A, B, …: 19/20 + 1/20·19/20 + 1/400 ·
    1/20 · P(A first)."""
    kw = {"attack": 40, "damage": 40, "toughness": 0, "parry": 0, "dodge": 0,
          "hit_points": 1}
    p_first = Fraction(19, 20) / (1 - Fraction(1, 400))
    for a_ag, b_ag, want in (
            (-60, 60, Fraction(19, 20) + Fraction(1, 400) * p_first),
            (60, -60, Fraction(19, 20) + Fraction(19, 400) + Fraction(1, 8000) * p_first)):
        a, b = fighter(agility=a_ag, **kw), fighter(agility=b_ag, **kw)
        v = Variants(surprise="side0")
        e = duel_exact(a, b, v)
        assert e.outcome[0] == pytest.approx(float(want), abs=1e-12)
        m = duel_mc(a, b, 100_000, 3, v)
        assert abs(m.outcome[0] / m.n - float(want)) <= tol(float(want), 100_000)


@pytest.mark.parametrize(("ranged", "attack", "mode", "p_hit"), [
    (False, 0, "routine", 1.0),     # 10 + 0 + 5 ≥ 10
    (True, 4, "routine", 0.0),      # 10 + 4 − 5 = 9 < 10: a ranged routine attack misses
    (True, 5, "routine", 1.0),      # 10 + 5 − 5 = 10
    (True, 4, "roll", 10 / 20),     # d20 + 4 − 5 ≥ 10: faces 11–20
    (False, -10, "roll", 6 / 20),   # d20 − 10 + 5 ≥ 10: faces 15–20
])
def test_incapacitated_target_is_prone(ranged, attack, mode, p_hit):
    """Seed: "Incapacitado (Incapacitated): O personagem está indefeso, Atordoado e
    Desavisado, além de se encontrar Deitado"; "Deitado (Prone): ... Seus oponentes
    recebem +5 para o atingir a curta distância, mas também um redutor de -5 para o
    acertar com ataques de longa distância". Damage 40 vs Toughness 0: every hit hurts."""
    att = fighter(attack=attack, damage=40, ranged=ranged)
    tgt = fighter(toughness=0)
    got = 1 - attack_damage(att, tgt, Variants(defenceless_attack=mode), defenceless=True)[0]
    assert got == pytest.approx(p_hit, abs=1e-12)


def test_ranged_bonus_under_5_never_finishes():
    """E17 prone at range (−5) with E-g3 routine attacks: a shooter with attack +4 can
    drop a foe (a rolled attack vs Dodge) but never hurt it once it lies incapacitated:
    under ``finish`` its fallen foe always ends "out", never dead."""
    shooter = fighter(attack=4, damage=8, ranged=True, agility=10, hit_points=8)
    foe = fighter(attack=0, dodge=2, hit_points=6)
    v = Variants(aftermath="finish", finish_rounds=5)
    e = duel_exact(shooter, foe, v, round_cap=30)
    assert e.outcome[0] > 0.5
    assert e.loser_fate[0] == pytest.approx([0.0, 0.0, e.outcome[0]], abs=1e-12)
    h = one_hit(shooter, foe, v)
    assert h["p_incapacitate"] > 0
    assert h["p_dead"] == 0.0
    assert h["p_out"] == pytest.approx(h["p_incapacitate"])


def test_one_hit_fates_hand_worked():
    """one_hit p_dead / p_dying / p_out (Lethality outcomes). ``leave``: an incapacitated
    target is stable (E13: only a new hit makes it dying) → all "out". ``finish``, one
    round: the target's turn (nothing), then the routine hit on the prone target (E17
    +5): 10 + 0 + 5 vs 10, one excess degree, X = 15 − 6 + 1 = 10, damage 10 − d20 ≥ 1 on
    faces 1–9 (9/20) → dying (never ≥ 10, no instant death, E13), E14 on acquiring
    (E-g6) and until resolved: x0 = 2999/3375 at Fortitude 0."""
    att = fighter(attack=0, damage=-6)
    tgt = fighter(parry=0, toughness=0, hit_points=1, fortitude=0)
    leave = one_hit(att, tgt)
    assert leave["p_incapacitate"] > 0
    assert (leave["p_dead"], leave["p_dying"]) == (0.0, 0.0)
    assert leave["p_out"] == pytest.approx(leave["p_incapacitate"])
    assert one_hit(att, tgt, Variants(aftermath="first_aid")) == leave
    fin = one_hit(att, tgt, Variants(aftermath="finish", finish_rounds=1))
    assert fin["p_dead"] == pytest.approx(
        leave["p_incapacitate"] * float(Fraction(9, 20) * X0), abs=1e-12)
    assert fin["p_dead"] + fin["p_dying"] + fin["p_out"] == pytest.approx(
        fin["p_incapacitate"])
    assert fin["p_kill"] == 0.0


def _lib():
    return {k: c.to_engine() for k, c in load_library().items()}


@pytest.mark.parametrize(("name_a", "name_b"), [("competent", "competent"),
                                                ("competent_shooter", "competent_armoured")])
@pytest.mark.parametrize("v", [Variants(), Variants(aftermath="first_aid"),
                               Variants(aftermath="finish", finish_rounds=1),
                               Variants(aftermath="finish")])
def test_aftermath_mc_matches_exact(name_a, name_b, v):
    """Lethality outcomes, MC vs exact (5σ + 1/n): losers' dead / dying / out per winner,
    and each side's standing / dead / dying / out."""
    lib = _lib()
    a, b = lib[name_a], lib[name_b]
    n = 60_000
    e = duel_exact(a, b, v, round_cap=20)
    m = duel_mc(a, b, n, 13, v, round_cap=20)
    assert e.loser_fate.sum(axis=1) == pytest.approx(e.outcome[:2], abs=1e-9)
    assert e.fates.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-9)
    assert (m.loser_fate.sum(axis=1) == m.outcome[:2]).all()
    for got, want in ((m.loser_fate / n, e.loser_fate), (m.fates / n, e.fates),
                      (m.loser_dead / n, e.loser_dead), (m.deaths / n, e.deaths)):
        for g, w in zip(np.ravel(got), np.ravel(want), strict=True):
            assert abs(g - w) <= tol(w, n), (got, want)
    if v.aftermath != "finish":     # E13: the loser of a duel is incapacitated, stable
        assert e.loser_fate[:, 2] == pytest.approx(e.outcome[:2], abs=1e-12)


def test_default_finish_horizon_is_generous():
    """E-g7 default (10 rounds): a competent winner almost always finishes its foe
    (competent mirror); one round finishes far fewer."""
    c = _lib()["competent"]
    full = duel_exact(c, c, Variants(aftermath="finish")).p_loser_fates()[0]
    one = duel_exact(c, c, Variants(aftermath="finish", finish_rounds=1)).p_loser_fates()[0]
    assert full[0] > 0.999
    assert 0.3 < one[0] < 0.9
