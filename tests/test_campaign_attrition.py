"""Campaign attrition in all five systems: one fighter through k consecutive duels with
the system's rest between them (A healing rates, A-g22; B11, B-g21, B-g22; C-g21; D-g24;
E18, E-g25; RULES.md "Lethality outcomes")."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from analysis import campaign as camp
from engines import campaign_attrition as at
from engines.campaign import mechanic
from engines.errors import InputError
from engines.systems.d20_degrees import campaign as c20
from engines.systems.d20_degrees import combat as k20
from engines.systems.dice_pool_6 import campaign as c6
from engines.systems.dice_pool_6 import combat as k6
from engines.systems.dice_pool_7 import campaign as c7
from engines.systems.dice_pool_7 import combat as k7
from engines.systems.middle_3d10 import campaign as c3
from engines.systems.middle_3d10 import combat as k3
from engines.systems.percentile import campaign as cp
from engines.systems.percentile import combat as kp

ROOT = Path(__file__).resolve().parent.parent
SYSTEMS = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")
COMBAT = {
    "dice_pool_7": k7,
    "middle_3d10": k3,
    "dice_pool_6": k6,
    "percentile": kp,
    "d20_degrees": k20,
}


def _competent(system):
    return camp.fighter(system, "")


@pytest.mark.parametrize("system", SYSTEMS)
def test_one_fight_is_the_plain_duel(system):
    """k = 1 from an unhurt start is the plain exact duel: P(able) = P(win) + P(cap),
    and the fallen fates are the duel's loser_fate of side 1's wins (fighter = side 0)."""
    f = _competent(system)
    st = camp.run(system, "attrition", {}, sessions=1)["exact"]
    duel = COMBAT[system].duel_exact(f, f)
    assert st.extra["p_able"][1] == pytest.approx(duel.outcome[0] + duel.outcome[2], abs=1e-9)
    dead, dying, out = duel.loser_fate[1]
    assert st.extra["p_dead"][1] == pytest.approx(dead, abs=1e-9)
    assert st.extra["p_dying"][1] == pytest.approx(dying, abs=1e-9)
    assert st.extra["p_out"][1] == pytest.approx(out, abs=1e-9)
    total = st.extra["p_able"] + st.extra["p_dead"] + st.extra["p_dying"] + st.extra["p_out"]
    np.testing.assert_allclose(total, 1.0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("system", SYSTEMS)
def test_two_fights_compose_fight_rest_fight(system):
    """k = 2 by hand: Σ_j P(fight 1 ends able with damage j) × P(able after a fight
    started from the rest of j), each fight read from the system's fight_from."""
    mod = {
        "dice_pool_7": c7,
        "middle_3d10": c3,
        "dice_pool_6": c6,
        "percentile": cp,
        "d20_degrees": c20,
    }[system]
    f = _competent(system)
    st = mod.attrition_exact(f, None, sessions=2)
    end0, _ = mod.fight_from(f, f, 0)
    rests = {
        "dice_pool_7": lambda i, j: c7.rest(j, False, 1),  # A: lethal 2 a day
        "middle_3d10": lambda i, j: max(i + (j - i + 1) // 2 - 1, 0),  # B11, B-g22
        "dice_pool_6": lambda i, j: max(j - 1, 0),  # C-g21: 1 Health
        "percentile": lambda i, j: max(j - 1, 0),  # D-g24: 1 hit point
        "d20_degrees": lambda i, j: max(j - 480, 0),
    }  # E18 × E-g25 a night
    want = sum(
        p * mod.fight_from(f, f, rests[system](0, j))[0].sum() for j, p in enumerate(end0) if p > 0
    )
    assert st.extra["p_able"][2] == pytest.approx(want, abs=1e-9)


def test_hurt_start_equals_a_smaller_health_dice_pool_6():
    """C6: health = Stamina + 3 and nothing in a duel depends on the damage taken but
    whether it reaches health (no wound penalty; C13 never applies 1-vs-1), so a fighter
    of Stamina 3 (health 6) started with 2 damage stays able exactly as often as a fresh
    Stamina 1 (health 4) fighter: P(win) + P(cap) of the plain duel."""
    f = _competent("dice_pool_6")
    f = dataclasses.replace(f, stamina=3)
    small = dataclasses.replace(f, stamina=1)
    end, _ = c6.fight_from(f, f, 2)
    duel = k6.duel_exact(small, f)
    assert end.sum() == pytest.approx(duel.outcome[0] + duel.outcome[2], abs=1e-12)
    assert end[:2].sum() == 0.0  # never less damage than the start


def test_hurt_start_equals_a_smaller_vitality_dice_pool_7():
    """A14: vitality = 2 × CON + 6; the fighter (no willpower policy, so no A4 'hurt'
    trigger) falls only when damage reaches vitality, and CON matters beyond that only
    for death (A15). So CON 3 (vitality 12) started 2 lethal points down stays able as
    often as a fresh CON 2 (vitality 10) fighter."""
    f = _competent("dice_pool_7")
    assert f.willpower == "none"
    f = dataclasses.replace(f, CON=3)
    small = dataclasses.replace(f, CON=2)
    end, _ = c7.fight_from(f, f, 2)
    duel = k7.duel_exact(small, f)
    assert end.sum() == pytest.approx(duel.outcome[0] + duel.outcome[2], abs=1e-12)


def test_a_healing_rates_seed_lines():
    """Seed 000: "Dano letal é recuperado na taxa de 2 pontos por dia" and "Dano
    não-letal é curado na taxa de 1 ponto a cada 15 minutos" (a night clears it)."""
    assert c7.rest(5, False, 1) == 3
    assert c7.rest(1, False, 1) == 0
    assert c7.rest(9, False, 3) == 3
    assert c7.rest(9, True, 1) == 0


@pytest.mark.slow
def test_e18_seed_line_rest_heals_one_hit_point_a_minute():
    """Seed 004: "Personagens recuperam 1 PV por minuto de descanso": a night (E-g25
    default) heals everything, so k fights are k independent plain duels: P = p^k."""
    assert c20.rest(7, 5) == 2
    assert c20.rest(7, 480) == 0
    st = camp.run("d20_degrees", "attrition", {}, sessions=4)["exact"]
    p = st.extra["p_able"][1]
    np.testing.assert_allclose(st.extra["p_able"], p ** np.arange(5), atol=1e-12)
    short = camp.run("d20_degrees", "attrition", {}, sessions=3, variants={"rest_minutes": 0})[
        "exact"
    ]
    assert short.extra["p_able"][3] < st.extra["p_able"][3]


def test_b11_rest_hand_worked():
    """B11 "No descanso: metade das barras se apaga, a outra metade consolida": a fight
    from 2 consolidated points ending at 7 leaves 5 new temporary points; 3 consolidate
    (B-g21, the odd one too), then 1 heals (B-g22): 2 + 3 − 1 = 4."""
    v = c3.DEFAULT
    assert 2 + c3.consolidated_points(7 - 2, v) - v.recovery == 4


@pytest.mark.slow
@pytest.mark.parametrize(
    ("system", "variants"),
    [
        ("dice_pool_7", {}),
        ("dice_pool_6", {}),
        ("middle_3d10", {}),
        ("percentile", {}),
        ("d20_degrees", {"rest_minutes": 3}),
    ],
)  # E18: a short rest, so fights start hurt
def test_monte_carlo_agrees_with_exact(system, variants):
    """The Monte Carlo duel kernel started hurt agrees with the exact chain within
    5·SE + 1/n for P(able), P(dead), P(dying), P(out) after each of 3 fights."""
    n = 20_000
    r = camp.run(
        system, "attrition", {}, sessions=3, method="both", trials=n, seed=11, variants=variants
    )
    for name in ("p_able", "p_dead", "p_dying", "p_out"):
        p, q = r["exact"].extra[name], r["mc"].extra[name]
        assert np.all(np.abs(q - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n), name
    np.testing.assert_array_equal(r["mc"].dist.sum(axis=1), n)


@pytest.mark.parametrize("system", ["dice_pool_6"])
def test_monte_carlo_same_on_one_or_two_threads(system):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = camp.run(system, "attrition", {}, sessions=2, method="mc", trials=3000, seed=5)["mc"]
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = camp.run(system, "attrition", {}, sessions=2, method="mc", trials=3000, seed=5)["mc"]
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one.dist, two.dist)


def test_mc_hurt_start_dice_pool_6_matches_exact_row():
    """One fight from a hurt start: the Monte Carlo end counts against the exact row."""
    f = _competent("dice_pool_6")
    n = 20_000
    end, fates = c6.fight_from(f, f, 2)
    counts = k6.duel_mc_end(f, f, 2, n, seed=3)
    p = np.concatenate([end, [0.0], fates])
    q = counts / n
    assert counts.sum() == n
    assert np.all(np.abs(q - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1 / n)


def test_passage_is_first_fall():
    """Threshold 0 (direction down): the first fight the fighter falls; P(not by k) =
    P(able after k)."""
    st = camp.run("dice_pool_6", "attrition", {}, sessions=3)["exact"]
    pas = st.passage_pmf()
    assert pas[0] == 0.0
    assert pas[-1] == pytest.approx(st.extra["p_able"][3], abs=1e-12)
    assert pas[1] == pytest.approx(1 - st.extra["p_able"][1], abs=1e-12)


def test_opponent_option_and_bad_input():
    weak = camp.run("dice_pool_6", "attrition", {"opponent": "novice"}, sessions=2)["exact"]
    even = camp.run("dice_pool_6", "attrition", {}, sessions=2)["exact"]
    assert weak.extra["p_able"][2] > even.extra["p_able"][2]
    with pytest.raises(InputError, match=r"fighter|archetype"):
        camp.run("dice_pool_6", "attrition", {"fighter": "no_such_one"}, sessions=2)
    with pytest.raises(InputError, match="start_damage"):
        k6.duel_exact(_competent("dice_pool_6"), _competent("dice_pool_6"), start_damage=99)
    with pytest.raises(InputError, match="trials"):
        camp.run("middle_3d10", "attrition", {}, sessions=2, method="mc", trials=0)


#: P(able after 2 fights), P(able after 3), P(dead by 3) of the ladder's competent against
#: its equal (d20_degrees with a 3-minute rest, so fights start hurt), as each system's own
#: copy of the attrition functions gave them before engines.campaign_attrition.
#: attrition_mechanic replaced the copies.
PINNED = {
    "dice_pool_7": (0.06640432289394498, 0.005281579679375251, 0.06786359282766682),
    "middle_3d10": (0.24771656094802394, 0.12216459081502506, 0.0),
    "dice_pool_6": (0.15178779340751997, 0.038542657424232574, 0.0025109567041209802),
    "percentile": (0.1706390523590606, 0.04851429685827691, 0.434251177607292),
    "d20_degrees": (0.17149874180798483, 0.05204310312450493, 0.0),
}
#: Monte Carlo first-fall counts (2000 fighters, seed 7, 3 fights) from the same copies.
PINNED_MC = {"middle_3d10": [0, 974, 511, 257, 258], "dice_pool_6": [0, 1028, 689, 206, 77]}


@pytest.mark.parametrize("system", SYSTEMS)
def test_factory_gives_the_numbers_of_the_per_system_copies(system):
    """One factory (engines.campaign_attrition.attrition_mechanic) for the five systems
    changed no number. After one fight P(able) is 1/2 in every system (two equal
    fighters, random initiative, the round cap never reached: each wins half the time);
    after two and three the numbers the per-system copies gave, to 1e-12."""
    variants = {"rest_minutes": 3} if system == "d20_degrees" else {}
    st = camp.run(system, "attrition", {}, sessions=3, variants=variants)["exact"]
    assert st.extra["p_able"][1] == pytest.approx(0.5, abs=1e-9)
    able2, able3, dead3 = PINNED[system]
    assert st.extra["p_able"][2] == pytest.approx(able2, abs=1e-12)
    assert st.extra["p_able"][3] == pytest.approx(able3, abs=1e-12)
    assert st.extra["p_dead"][3] == pytest.approx(dead3, abs=1e-12)
    if system in PINNED_MC:
        mc = camp.run(system, "attrition", {}, sessions=3, method="mc", trials=2000, seed=7)["mc"]
        assert mc.passage.tolist() == PINNED_MC[system]


@pytest.mark.parametrize("mod", [c20, c6, cp], ids=["d20_degrees", "dice_pool_6", "percentile"])
def test_module_dispatch_reaches_attrition(mod):
    """A campaign module's exact(mechanic, ...) runs the mechanic named, attrition too."""
    f = _competent(mod.SYSTEM)
    st = mod.exact("attrition", 2, threshold=0, fighter=f)
    assert st.mechanic == "attrition"
    want = mod.attrition_exact(f, None, sessions=2)
    np.testing.assert_array_equal(st.dist, want.dist)


def test_mechanics_listed_with_rules():
    for system in SYSTEMS:
        mech = mechanic(system, "attrition")
        assert mech.combatants == ("fighter", "opponent")
        assert mech.extra == at.EXTRAS


def test_cli_fights_option():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli",
            "campaign",
            "dice_pool_6",
            "attrition",
            "--fights",
            "2",
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "p_able" in lines[0]
    assert len(lines) == 4  # header + fights 0, 1, 2


def test_dice_pool_7_willpower_spender_refused():
    """Seed 000: "Uma noite de descanso recupera 1 ponto de Força de Vontade" — the
    attrition state is damage only, so a fighter who spends Willpower is refused rather
    than given a full pool each fight."""
    f = dataclasses.replace(_competent("dice_pool_7"), willpower="attack_early")
    with pytest.raises(InputError, match="Willpower"):
        c7.attrition_exact(f, None, sessions=2)


def test_drawn_fight_is_a_multinomial_of_the_exact_row():
    """The factory's Monte Carlo fallback for a combat module without ``duel_mc_end``
    (RULES.md "Lethality outcomes"): counts in :func:`engines.campaign_attrition.monte_carlo`'s
    layout (able end states, standing 0, then dead, dying, out — the exact row's fates are
    in FATES order dead, dying, out), each within 5 binomial standard errors of the row,
    the same seed giving the same counts and the row computed once per state."""
    calls = []

    def row(i):
        calls.append(i)
        return np.array([0.5, 0.2]), np.array([0.1, 0.05, 0.15])

    fight = at.drawn_fight(row)
    n = 200_000
    counts = fight(1, n, np.random.SeedSequence(5))
    assert counts.dtype == np.int64
    assert counts.sum() == n
    assert counts[2] == 0  # standing: unused
    want = np.array([0.5, 0.2, 0.0, 0.1, 0.05, 0.15])
    assert (np.abs(counts / n - want) <= 5 * np.sqrt(want * (1 - want) / n)).all()
    again = fight(1, n, np.random.SeedSequence(5))
    assert (again == counts).all()
    assert calls == [1]


def test_drawn_fight_refuses_a_row_that_does_not_sum_to_one():
    fight = at.drawn_fight(lambda i: (np.array([0.5]), np.array([0.1, 0.1, 0.1])))
    with pytest.raises(ValueError, match="sums to"):
        fight(0, 10, 1)
