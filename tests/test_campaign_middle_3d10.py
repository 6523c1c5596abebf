"""``middle_3d10`` campaign mechanics (RULES.md B8–B14, gaps B-g20..B-g25).

Arcane practice (stability costs, massive trauma, degeneration until lost) and damage
consolidation over rests: hand-worked cases, Monte Carlo against the exact chains,
thread reproducibility and bad input.
"""

from __future__ import annotations

import inspect
from math import sqrt

import numba
import numpy as np
import pytest

from engines.errors import InputError
from engines.systems.middle_3d10 import campaign as cm

# 3d10 by hand: P(m ≥ 3) = 0.8**3 = 0.512, P(m ≥ 9) = 0.2**3 = 0.008.
# Massive check (B10/B12, B-g6: C + trait vs 12) with trait 3: C ≥ 9 needs two dice ≥ 9:
# 3 * 0.2**2 * 0.8 + 0.2**3 = 0.104 (a double 10 is already inside; a double 1 cannot
# have C ≥ 9). P(two or more 10s) = 3 * 0.01 * 0.9 + 0.001 = 0.028.
P_PASS_3 = 0.104
P_CRIT = 0.028


def within(p_mc, p, n):
    p = min(max(float(p), 0.0), 1.0)  # sums of products can stray by 1e-16
    return abs(p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n


def test_b12_massive_check_by_hand():
    assert cm.massive_pass(3) == pytest.approx(P_PASS_3)


def test_b13_b14_aspect_major_lost_after_nine_sessions():
    """B13/B14: one major use a session with the aspect: fixed cost 3 and +1 degeneration.
    lore 5 → starting degeneration 1 (B14: +1 per 5 points). Losses 3 − D ≤ 2 < Resilience 3,
    so no massive trauma; the track never fills (D=1: loss 2, rest keeps 1, B-g22 heals 1).
    So D = 1 + k after session k, lost (10, B14 "Ao atingir 10 pontos de Degeneração, o
    personagem deixa de ser jogável") exactly at session 9."""
    st = cm.arcane_exact(uses=1, level="major", aspect=True, resilience=3, lore=5, sessions=12)
    assert st.mean().tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert st.passage_pmf()[9] == 1.0
    assert np.all(st.extra["maddened_mean"] == 0)


def test_b12_b14_minor_use_one_session_by_hand():
    """B12–B14: one minor use (cost = the m die), D = 0, Resilience 3 (track 9).
    Maddened (+1 degeneration) when the loss m fills the track: m ≥ 9 always; 3 ≤ m ≤ 8
    when the massive-trauma check fails (0.896): 0.504 * 0.896 + 0.008 = 0.459584."""
    st = cm.arcane_exact(uses=1, level="minor", lore=0, resilience=3, sessions=1)
    assert st.pmf()[1, 1] == pytest.approx(0.459584, abs=1e-12)
    assert st.extra["maddened_mean"][1] == pytest.approx(0.459584, abs=1e-12)


def test_b14_degeneration_is_subtracted_from_later_losses():
    """B14: "O valor de Degeneração é subtraído de qualquer perda futura". A minor use with
    the aspect costs a fixed 1; with degeneration 2 (lore 10) it costs nothing, for ever."""
    st = cm.arcane_exact(uses=3, level="minor", aspect=True, lore=10, sessions=30)
    assert np.all(st.pmf()[:, 2] == 1.0)
    assert np.all(st.extra["consolidated_mean"] == 0.0)


def test_b_g20_cost_only_on_success():
    """B-g20 success: a major use (20) with Will 1 + skill 0 succeeds only on a double 10
    (B3: 0.028), and then M = 10; otherwise nothing is paid."""
    pmf = cm.arcane_cost_pmf("major", False, 1, 0, cm.Variants(arcane_cost_on="success"))
    assert pmf[10] == pytest.approx(P_CRIT)
    assert pmf[0] == pytest.approx(1 - P_CRIT)
    # the default pays the M die every time: P(M = 10) = 1 - 0.9**3 = 0.271
    assert cm.arcane_cost_pmf("major", False, 1, 0, cm.DEFAULT)[10] == pytest.approx(0.271)


def test_b10_b11_consolidation_one_session_by_hand():
    """B8/B10/B11: Vigor 3, one unarmed hit (damage m). m ≤ 2 (0.488): no massive check;
    L ≤ 2, the rest keeps ⌈L/2⌉ ≤ 1 and B-g22 heals 1 → 0. The track's end (9) is reached
    with P 0.459584 (as above): ⌈9/2⌉ − 1 = 4 (B-g21 consolidate), ⌊9/2⌋ − 1 = 3 (clear);
    with ``clear`` L = 8 (m = 8: (3**3 − 2**3)/1000 = 0.019, check passed 0.104) also ends
    at ⌊8/2⌋ − 1 = 3: 0.459584 + 0.019 * 0.104 = 0.46156.
    A temporary sequela only from a critical hit (0.028): consolidated 4 < 2 × Vigor."""
    st = cm.consolidation_exact(vigor=3, hits=1, weapon="unarmed", sessions=1)
    assert st.pmf()[1, 0] == pytest.approx(0.488)
    assert st.pmf()[1, 4] == pytest.approx(0.459584)
    assert st.extra["temporary_sequelae_mean"][1] == pytest.approx(P_CRIT)
    clear = cm.consolidation_exact(
        vigor=3, hits=1, weapon="unarmed", sessions=1, variants=cm.Variants(rest_odd="clear")
    )
    assert clear.pmf()[1, 3] == pytest.approx(0.459584 + 0.019 * 0.104)


def test_b11_sequelae_by_hand():
    """B11: Vigor 1 (track 3), a heavy firearm hit a session (damage ≥ 3): the track fills
    every session. No healing (B-g22 recovery 0). Session 1: rest keeps ⌈3/2⌉ = 2 =
    2 × Vigor → a temporary sequela ("chega a Incapacitado por dano consolidado").
    Session 2: 2 + ⌈1/2⌉ = 3 → a permanent sequela ("chega a Moribundo com dano consolidado").
    Critical hits add 0.028 temporary sequelae per hit."""
    st = cm.consolidation_exact(
        vigor=1,
        hits=1,
        weapon="heavy_firearm",
        sessions=4,
        variants=cm.Variants(recovery=0),
        threshold=3,
    )
    np.testing.assert_allclose(st.mean(), [0, 2, 3, 3, 3], atol=1e-12)
    np.testing.assert_allclose(st.extra["permanent_sequelae_mean"], [0, 0, 1, 1, 1], atol=1e-12)
    np.testing.assert_allclose(
        st.extra["temporary_sequelae_mean"],
        [0, 1 + P_CRIT, 1 + 2 * P_CRIT, 1 + 3 * P_CRIT, 1 + 4 * P_CRIT],
    )
    assert st.passage_pmf()[2] == pytest.approx(1.0)


def _compare(ex, mc, n):
    for p_mc, p in zip(mc.pmf().ravel(), ex.pmf().ravel(), strict=True):
        assert within(p_mc, p, n)
    if ex.passage is not None:
        for p_mc, p in zip(mc.passage_pmf(), ex.passage_pmf(), strict=True):
            assert within(p_mc, p, n)
    for name, mean in ex.extra.items():
        se = mc.extra[name + "_se"]
        assert np.all(np.abs(mc.extra[name] - mean) <= 5 * se + 1 / n), name


@pytest.mark.parametrize(
    ("kwargs", "v"),
    [
        ({"uses": 1, "level": "major", "lore": 5}, cm.DEFAULT),
        (
            {"uses": 2, "level": "intermediate", "lore": 0, "resilience": 2},
            cm.Variants(rest_odd="clear", recovery=0, after_maddened="clear"),
        ),
        (
            {"uses": 1, "level": "major", "will": 5, "skill": 6, "lore": 11},
            cm.Variants(arcane_cost_on="success"),
        ),
    ],
)
def test_arcane_monte_carlo_matches_exact(kwargs, v):
    """B11–B14 (B-g20..B-g23): MC degeneration per session, passage to 6 and extras."""
    n = 8000
    ex = cm.arcane_exact(**kwargs, sessions=8, threshold=6, variants=v)
    mc = cm.arcane_monte_carlo(**kwargs, sessions=8, trials=n, seed=5, threshold=6, variants=v)
    _compare(ex, mc, n)


@pytest.mark.parametrize(
    ("kwargs", "v"),
    [
        ({"vigor": 3, "hits": 2, "weapon": "blade"}, cm.DEFAULT),
        (
            {"vigor": 4, "hits": 1, "weapon": "small_firearm", "bonus": 1},
            cm.Variants(rest_odd="clear", recovery=2),
        ),
    ],
)
def test_consolidation_monte_carlo_matches_exact(kwargs, v):
    """B8–B11: MC consolidated damage per session, passage and sequelae vs the chain."""
    n = 8000
    ex = cm.consolidation_exact(**kwargs, sessions=8, threshold=5, variants=v)
    mc = cm.consolidation_monte_carlo(
        **kwargs, sessions=8, trials=n, seed=9, threshold=5, variants=v
    )
    _compare(ex, mc, n)


def test_same_seed_on_1_and_2_threads():
    """Same seed → identical counts on 1 and 2 numba threads (two chunks of trials)."""
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    before = numba.get_num_threads()
    runs = []
    try:
        for t in (1, 2):
            numba.set_num_threads(t)
            runs.append(
                (
                    cm.arcane_monte_carlo(sessions=4, trials=70_000, seed=3),
                    cm.consolidation_monte_carlo(sessions=4, trials=70_000, seed=3, threshold=2),
                )
            )
    finally:
        numba.set_num_threads(before)
    for a, b in zip(*runs, strict=True):
        np.testing.assert_array_equal(a.dist, b.dist)
        np.testing.assert_array_equal(a.passage, b.passage)
        for name in a.extra:
            np.testing.assert_array_equal(a.extra[name], b.extra[name])


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"uses": -1}, "uses"),
        ({"level": "greater"}, "level"),
        ({"aspect": 1}, "aspect"),
        ({"resilience": 0}, "resilience"),
        ({"lore": -2}, "lore"),
        ({"will": 11}, "will"),
        ({"threshold": 11}, "threshold"),
        ({"sessions": -1}, "sessions"),
    ],
)
def test_arcane_bad_parameters(kwargs, name):
    with pytest.raises(InputError, match=name):
        cm.arcane_exact(**kwargs)
    with pytest.raises(InputError, match=name):
        cm.arcane_monte_carlo(**kwargs, trials=10, seed=1)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"vigor": 0}, "vigor"),
        ({"hits": 99}, "hits"),
        ({"weapon": "bazooka"}, "weapon"),
        ({"bonus": -1}, "bonus"),
        ({"threshold": 10}, "threshold"),
    ],
)
def test_consolidation_bad_parameters(kwargs, name):
    with pytest.raises(InputError, match=name):
        cm.consolidation_exact(**kwargs)
    with pytest.raises(InputError, match=name):
        cm.consolidation_monte_carlo(**kwargs, trials=10, seed=1)


@pytest.mark.parametrize("mechanic", list(cm.MECHANICS))
def test_mechanics_description_matches_functions(mechanic):
    mech = cm.MECHANICS[mechanic]
    for fn in (mech.exact, mech.monte_carlo):
        sig = inspect.signature(fn).parameters
        for p in mech.params:
            # an archetype param is a name here and a combatant there ("" ↔ None)
            want = None if p.name in mech.combatants else p.default
            assert sig[p.name].default == want
