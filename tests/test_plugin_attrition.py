"""The example plug-in's ``attrition`` mechanic (``pbta_2d6``, its rules PC1–PC8 and PX4),
made with the public factory :func:`engines.campaign_attrition.attrition_mechanic`; and
the combat contract's ``initiative_first``, read as a probability.

The oracle is written here from the rules alone: a fight of two sword-armed +0 fighters
(harm 3, no armour) under the ``side0_first`` order (PC2, gap PC-g1) is a short recursion
over (harm of the fighter, harm of the opponent, whose turn) — every action deals 3 harm
to someone (PC4–PC6), so a fight ends within four actions and the round cap never
matters — and attrition is that fight composed with the PX4 rest, in exact fractions.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import textwrap
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"
CLOCK, HARM = 6, 3  # PC7's default clock; a sword's harm (the data file's "sword")
N = 20_000  # fighters of the Monte Carlo agreement test


@pytest.fixture(scope="module")
def pbta():
    """The plug-in's campaign and combat modules, imported from the example folder."""
    sys.path.insert(0, str(PKG))
    try:
        from pbta_2d6 import campaign, combat
    finally:
        sys.path.remove(str(PKG))
    return campaign, combat


def _odds() -> tuple[Fraction, Fraction, Fraction]:
    """P2 for 2d6 + 0: miss (6−), weak hit (7–9), strong hit (10+)."""
    sums = [a + b for a in range(1, 7) for b in range(1, 7)]
    weak = Fraction(sum(7 <= s <= 9 for s in sums), 36)
    strong = Fraction(sum(s >= 10 for s in sums), 36)
    return 1 - weak - strong, weak, strong


def _fate(harm: int) -> str:
    """PC7 with gap PC-g3's default: 0 beyond the clock out, 1 dying, 2 or more dead."""
    over = harm - CLOCK
    return "out" if over == 0 else "dying" if over == 1 else "dead"


@cache
def _fight(h0: int, h1: int, turn: int) -> dict:
    """The oracle fight from the fighter's harm ``h0`` and the opponent's ``h1``, ``turn``
    to act (0: the fighter, first in every round): ``{end: P}`` with ``end`` the
    fighter's harm when it wins, or its fate when it falls (leave aftermath, PC8)."""
    miss, weak, strong = _odds()
    out: dict = {}

    def strike(harms, target):  # PC3, PC7: harm lands; True when the target falls
        harms[target] += HARM
        return harms[target] >= CLOCK

    def go(p, harms, fell):
        if fell is not None:
            key = harms[0] if fell == 1 else _fate(harms[0])
            out[key] = out.get(key, 0) + p
            return
        for k, q in _fight(harms[0], harms[1], 1 - turn).items():
            out[k] = out.get(k, 0) + p * q

    actor, foe = turn, 1 - turn
    harms = [h0, h1]
    go(strong, harms, foe if strike(harms, foe) else None)  # PC4
    harms = [h0, h1]
    if strike(harms, foe):  # PC5: the actor strikes first ...
        go(weak, harms, foe)
    else:  # ... and the standing foe strikes back
        go(weak, harms, actor if strike(harms, actor) else None)
    harms = [h0, h1]
    go(miss, harms, actor if strike(harms, actor) else None)  # PC6
    return out


def _attrition(fights: int, heal: int) -> list[dict]:
    """The oracle attrition chain: per fight, P(able), P(out), P(dying), P(dead)."""
    state = {0: Fraction(1)}  # the fighter's harm at the next fight -> P
    fallen = {"out": Fraction(0), "dying": Fraction(0), "dead": Fraction(0)}
    rows = []
    for _ in range(fights + 1):
        rows.append({"able": sum(state.values()), **fallen})
        nxt: dict = {}
        for h, p in state.items():
            for end, q in _fight(h, 0, 0).items():
                if isinstance(end, str):
                    fallen[end] += p * q
                else:  # PX4: the rest heals `heal` harm
                    rested = max(end - heal, 0)
                    nxt[rested] = nxt.get(rested, 0) + p * q
        state = nxt
    return rows


def _swordsman(combat):
    return combat.Combatant("swordsman", 0, combat.Weapon("sword", HARM))


def test_fight_started_hurt_hand_worked(pbta):
    """PC4–PC7, by hand: a +0 swordsman with 3 harm, acting first, against a fresh one
    falls to any strike. It wins only with a strong hit (6/36) followed by the foe's miss
    (15/36; its own strike back then takes the foe to 6): 90/1296 = 5/72, ending with its
    3 harm; every other branch takes it out at exactly 6 harm (PC7: out)."""
    campaign, combat = pbta
    sw = _swordsman(combat)
    end, fates = campaign.attrition_fight(sw, sw, 3, combat.Variants(order="side0_first"))
    want = np.zeros(CLOCK)
    want[3] = 5 / 72
    assert end == pytest.approx(want, abs=1e-15)
    assert fates == pytest.approx([0.0, 0.0, 67 / 72], abs=1e-15)  # dead, dying, out


@pytest.mark.parametrize("heal", [0, 1, 2])
def test_attrition_matches_the_chain_from_the_rules(pbta, heal):
    """PC1–PC8 and PX4: the mechanic's exact run equals the oracle chain (module
    docstring) fight by fight, with the three fates apart (heal 1 reaches dying and dead:
    harm 4 + 3 = 7, 5 + 3 = 8)."""
    campaign, combat = pbta
    sw = _swordsman(combat)
    fights = 6
    st = campaign.attrition_exact(
        sw,
        sw,
        sessions=fights,
        variants=campaign.Variants(heal=heal),
        combat_variants=combat.Variants(order="side0_first"),
    )
    want = _attrition(fights, heal)
    for name in ("able", "out", "dying", "dead"):
        got = st.extra[f"p_{name}"]
        assert got == pytest.approx([float(r[name]) for r in want], abs=1e-12), name
    assert st.notes == {"fighter": "swordsman", "opponent": "swordsman", "heal": heal}
    if heal == 1:
        assert float(want[fights]["dying"]) > 0.01
        assert float(want[fights]["dead"]) > 0.01


def test_attrition_monte_carlo_is_the_generic_fallback(pbta):
    """``pbta_2d6.combat`` gives no ``duel_mc_end``: the factory's Monte Carlo draws each
    fight from the exact one (the notes say so). Its fractions lie within 5 standard
    errors plus 1/n of the exact chain (a binomial proportion over N fighters, seed
    fixed), and the same seed gives the same counts."""
    campaign, combat = pbta
    assert not hasattr(combat, "duel_mc_end")
    sw = _swordsman(combat)
    kw = {"sessions": 5, "combat_variants": combat.Variants(order="side0_first")}
    ex = campaign.attrition_exact(sw, sw, **kw)
    mc = campaign.attrition_monte_carlo(sw, sw, trials=N, seed=7, **kw)
    assert mc.notes["fight"] == "drawn from the exact fight"
    assert (mc.dist.sum(axis=1) == N).all()
    for name in ("p_able", "p_out", "p_dying", "p_dead"):
        for p, est in zip(ex.extra[name], mc.extra[name], strict=True):
            assert abs(est - p) <= 5 * math.sqrt(p * (1 - p) / N) + 1 / N, name
    again = campaign.attrition_monte_carlo(sw, sw, trials=N, seed=7, **kw)
    assert (again.dist == mc.dist).all()


def test_attrition_refuses_another_clock(pbta):
    """PC7: the clock is attrition's health track, so combat variants with another clock
    are one error naming it."""
    from engines.errors import InputError

    campaign, combat = pbta
    sw = _swordsman(combat)
    with pytest.raises(InputError, match="clock"):
        campaign.attrition_exact(sw, sw, sessions=2, combat_variants=combat.Variants(clock=8))


# ---------------------------------------------------------------- initiative_first


@pytest.fixture
def first_mover(tmp_path, monkeypatch, pbta):
    """A combat module whose mirror duel is uneven: the example's harm clock with the
    order ``side0_first`` by default (PC-g1; acting first is a handicap there), and an
    ``initiative_first`` set per test."""
    (tmp_path / "first_mover.py").write_text(
        textwrap.dedent("""
        from dataclasses import dataclass

        from pbta_2d6 import combat as _c
        from pbta_2d6.combat import *  # noqa: F403
        from pbta_2d6.combat import Combatant, duel_exact, duel_mc  # noqa: F401


        @dataclass(frozen=True)
        class Variants(_c.Variants):
            order: str = "side0_first"

        P_FIRST = None


        def initiative_first(a, b, variants=None):
            return P_FIRST
        """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(PKG))
    import first_mover

    yield first_mover
    sys.modules.pop("first_mover", None)


def _check_combat(first_mover, monkeypatch, p_first):
    import pbta_2d6  # imported from the example folder by the fixtures

    from analysis.conformance import check_system

    if p_first is None:
        monkeypatch.delattr(first_mover, "initiative_first")
    else:
        monkeypatch.setattr(first_mover, "P_FIRST", p_first)
    spec = dataclasses.replace(
        pbta_2d6.PLUGIN, combat=dataclasses.replace(pbta_2d6.PLUGIN.combat, module="first_mover")
    )
    return check_system(spec, checks=["combat"], trials=2000, seed=1)


def test_initiative_first_one_lets_an_uneven_mirror_pass(first_mover, monkeypatch):
    """The combat contract's optional ``initiative_first(a, b, variants)`` is P(``a``
    acts before ``b``). Here side 0 always acts first (P = 1), so the mirror duel is
    uneven, and the conformance check passes it with a note instead of asserting it
    even."""
    (result,) = _check_combat(first_mover, monkeypatch, 1.0).results
    assert result.status == "passed"
    assert "not asserted even: initiative_first gives side 0 P = 1" in result.detail


@pytest.mark.parametrize("p_first", [0.5, None])
def test_initiative_first_one_half_asserts_the_mirror_even(first_mover, monkeypatch, p_first):
    """P = 1/2 (or no ``initiative_first``: the default) asserts the mirror even, so the
    same uneven mirror fails the check on its p_side0 ≠ p_side1."""
    from analysis.conformance import ConformanceError

    with pytest.raises(ConformanceError, match=r"\(a mirror\): exact p_side0 .* ≠ p_side1"):
        _check_combat(first_mover, monkeypatch, p_first)
