"""Duel tables, one-hit odds, tactic/armour effects and group fights (analysis.combat.lethality).

Monte Carlo vs exact: every proportion within 5 standard errors plus one count,
``abs(p_mc - p) <= 5 * sqrt(p * (1 - p) / n) + 1 / n`` (five SEs keep the false-alarm
rate negligible over the many cells tested; 1/n covers cells whose expected count is
below one), fixed seeds. One-hit odds are checked against oracles written from the rules
(closed forms, brute-force enumeration, hand-worked examples), not the engines' code.
"""

import itertools
import math

import numpy as np
import pytest

from analysis.combat import archetypes as A
from analysis.combat import lethality as L

N = 4000


def close(p_mc, p, n):
    return abs(p_mc - p) <= 5 * math.sqrt(max(p * (1 - p), 0.0) / n) + 1 / n


DUELS = [
    ("dice_pool_7", "competent_swordsman", "competent_fencer"),  # A6 dodge tactic, A9
    ("dice_pool_6", "competent_swordsman", "competent_brawler"),  # C10-C11
    ("middle_3d10", "competent", "novice"),  # B6-B10
    ("percentile", "competent_shooter", "novice"),  # DX1-DX9 (extension)
    ("d20_degrees", "competent_shooter", "novice"),  # E10-E14
]


@pytest.mark.parametrize(("system", "a", "b"), DUELS)
def test_duel_table_exact_vs_mc(system, a, b):
    t = L.duel_table(system, a, b, method="both", trials=N, seed=11)
    assert list(t["method"]) == ["exact", "mc"]
    ex, mc = t.iloc[0], t.iloc[1]
    for key in ("side0", "side1", "neither"):
        assert close(mc[f"p_{key}"], ex[f"p_{key}"], N), key
        assert ex[f"se_{key}"] == 0.0
    assert mc["within_5se"]
    assert abs(mc["z_side0"]) < 5
    # the whole rounds distribution, cell by cell
    stats = L.duel_stats(system, a, b, "both", trials=N, seed=12)
    pe, pm = stats["exact"].rounds_pmf(), stats["mc"].rounds_pmf()
    assert all(close(q, p, N) for p, q in zip(pe, pm, strict=True))
    # P(the loser dies), unconditional
    de = stats["exact"].loser_dead.sum()
    dm = stats["mc"].loser_dead.sum() / N
    assert close(dm, de, N)


def test_duel_table_rejects_bad_method():
    with pytest.raises(Exception, match="method"):
        L.duel_table("dice_pool_6", "competent_swordsman", "competent_brawler", method="guess")


# ----------------------------------------------------------------- one-hit oracles


def _pool7_successes(dice: int, top: int = 60) -> np.ndarray:
    """A1: one d10 (7+ succeeds, a 10 rolls again): P(0) = 0.6, P(k) = 0.36 · 0.1^(k-1);
    a pool is the convolution of its dice."""
    one = np.zeros(top)
    one[0] = 0.6
    one[1:] = 0.36 * 0.1 ** np.arange(top - 1)
    out = np.zeros(top)
    out[0] = 1.0
    for _ in range(dice):
        out = np.convolve(out, one)[:top]
    return out


def test_one_hit_dice_pool_7_closed_form_a7_a10_a14_a15():
    # competent_shooter: DES 3 + 2 (specialization) + 1 (light_ranged) = 6 dice, minus the
    # novice's Defense min(2, 2) = 2 -> 4 dice (A7, A8). Damage = successes + 1 (A10), no
    # armour. Novice vitality 2·2 + 6 = 10 (A14): down at >= 9 successes; CON 2 lost
    # beyond vitality (A15): dead at >= 11 successes.
    s = _pool7_successes(4)
    got = L.one_hit("dice_pool_7", "competent_shooter", "novice_swordsman")
    assert got["p_hit"] == pytest.approx(1 - 0.6**4, rel=1e-9)
    assert got["p_incapacitate"] == pytest.approx(s[9:].sum(), rel=1e-6)
    assert got["p_kill"] == pytest.approx(s[11:].sum(), rel=1e-6)
    # bashing damage never kills (A14): a brawler's fists
    assert L.one_hit("dice_pool_7", "master_brawler", "untrained_swordsman")["p_kill"] == 0.0


def _pool6(dice):
    """C1 (6+), C-g2 (each pair of 10s counts 4): successes of every face combination."""
    faces = np.array(list(itertools.product(range(1, 11), repeat=dice)))
    if dice == 0:
        return np.zeros(1, dtype=int)
    tens = (faces == 10).sum(1)
    return (faces >= 6).sum(1) + 2 * (tens // 2)


def test_one_hit_dice_pool_6_brute_force_c6_c10_c11():
    att = {
        "name": "att",
        "attack_attribute": 2,
        "attack_skill": 1,
        "dodge_attribute": 1,
        "dodge_skill": 1,
        "stamina": 1,
        "composure": 1,
        "resolve": 1,
        "weapon": "heavy_melee",
    }  # 3 dice, +2 damage
    tgt = {**att, "name": "tgt", "stamina": 0}  # dodge 2, health 3
    a, d = _pool6(3), _pool6(2)
    margin = a[:, None] - d[None, :]
    win = margin >= 0  # C10 ties: attacker
    dmg = margin + 2  # C11
    p_hit = win.mean()
    p_inc = (win & (dmg >= 3)).mean()  # C6 health 0 + 3
    p_kill = (win & (dmg >= 6)).mean()  # death = 2 × health
    got = L.one_hit("dice_pool_6", att, tgt)
    assert got["p_hit"] == pytest.approx(p_hit, rel=1e-9)
    assert got["p_incapacitate"] == pytest.approx(p_inc, rel=1e-9)
    # the seed has no death: C-g5 defaults to double_health (Vampire 5th ed.), the
    # literal reading is death = never
    assert got["p_kill"] == pytest.approx(p_kill, rel=1e-9)
    got = L.one_hit("dice_pool_6", att, tgt, variants={"death": "never"})
    assert got["p_kill"] == 0.0


def test_one_hit_middle_3d10_brute_force_b3_b7_b8_b9_b10():
    # competent + knife: trait 4 + Combat 5 = 9 vs Defense 11; damage C + ⌊(4 + 5)/4⌋ = C + 2
    # (B8); target Vigor 4: dying at 12 (B9), or a hit >= 4 and a failed C + 4 >= 12 (B10).
    rolls = np.array(list(itertools.product(range(1, 11), repeat=3)))
    mid = np.sort(rolls, axis=1)[:, 1]
    tens, ones = (rolls == 10).sum(1), (rolls == 1).sum(1)
    hit = (tens >= 2) | ((ones < 2) & (mid + 9 >= 11))  # B3, B7
    dmg = mid + 2
    q_pass = ((tens >= 2) | ((ones < 2) & (mid + 4 >= 12))).mean()  # B10 check
    p_out = (hit & (dmg >= 12)).mean() + (hit & (dmg >= 4) & (dmg < 12)).mean() * (1 - q_pass)
    got = L.one_hit("middle_3d10", "competent", "competent", overrides_a={"weapon": "knife"})
    assert got["p_hit"] == pytest.approx(hit.mean(), rel=1e-12)
    assert got["p_incapacitate"] == pytest.approx(p_out, rel=1e-12)
    assert got["p_kill"] == 0.0  # no death rule


def test_one_hit_percentile_hand_worked_dx5_dx7_dx9():
    # shooter: Firearms 50, handgun 1D10, impales. Novice: CON 50, SIZ 60 -> 11 HP (DX6).
    # Hit on 01-50 (0.5); extreme on 01-10 (0.1): 10 + 1D10 = 11..20 (DX4) — 11 empties the
    # hit points (out), 12+ is more than 11: dead (DX9). Regular/hard (0.4): 1D10, a major
    # wound at 6+ (>= 11/2) -> CON roll 50 % (DX7): 0.4 · 0.5 · 0.5 = 0.1.
    got = L.one_hit("percentile", "competent_shooter", "novice")
    assert got["p_hit"] == pytest.approx(0.5)
    assert got["p_incapacitate"] == pytest.approx(0.1 + 0.1)
    assert got["p_kill"] == pytest.approx(0.09)
    got = L.one_hit("percentile", "competent_shooter", "novice", variants={"instant_death": "off"})
    assert got["p_kill"] == 0.0
    assert got["p_incapacitate"] == pytest.approx(0.2)


def test_one_hit_d20_hand_worked_e3_e11_e12_e13():
    # competent_shooter: attack 3 + 4 = 7 vs Dodge 4 + 10 = 14: hit on 7..20 (E11, E3).
    # Damage = 3 + excess degrees + 15 (+5 on a 20) - (Toughness 1 + d20); 15 HP.
    # d20 7-11: x 18, down on r <= 2; 12-16: x 19, r <= 3; 17-19: x 20, r <= 4;
    # 20: 3 + 2 + 15 + 5 = 25, r <= 9.
    got = L.one_hit("d20_degrees", "competent_shooter", "novice")
    assert got["p_hit"] == pytest.approx(14 / 20)
    assert got["p_incapacitate"] == pytest.approx((5 * 2 + 5 * 3 + 3 * 4 + 9) / 400)
    assert got["p_kill"] == 0.0  # E-g14


@pytest.mark.parametrize(("system", "a", "b"), DUELS)
def test_one_hit_agrees_with_attack_damage(system, a, b):
    """The incapacitation threshold applied to the engine's own damage distribution."""
    eng = A.engine(system)
    fa, fb = A.combatant(system, a), A.combatant(system, b)
    v = A.variants(system)
    got = eng.one_hit(fa, fb, v)
    p = eng.attack_damage(fa, fb, v)
    d = np.arange(p.size)
    assert 0 <= got["p_kill"] <= got["p_incapacitate"] <= got["p_hit"] <= 1
    if system == "dice_pool_6":
        assert got["p_incapacitate"] == pytest.approx(p[d >= fb.health].sum())
    if system == "d20_degrees":
        assert got["p_incapacitate"] == pytest.approx(p[d >= fb.hit_points].sum())
    if system == "dice_pool_7":
        assert got["p_incapacitate"] == pytest.approx(p[d >= fb.vitality].sum())


def test_one_hit_table_by_weapon_and_target():
    t = L.one_hit_table("d20_degrees", "competent", ["novice", "expert"])
    assert len(t) == len(A.weapons("d20_degrees")) * 2
    rifle = t[(t["weapon"] == "rifle") & (t["target"] == "novice")].iloc[0]
    pistol = t[(t["weapon"] == "pistol") & (t["target"] == "novice")].iloc[0]
    assert rifle["p_incapacitate"] > pistol["p_incapacitate"]  # rank 5 vs 3 (E12)


# ----------------------------------------------------------------- tactics, armour


def test_tactic_table_one_row_per_tactic_a6():
    t = L.tactic_table("dice_pool_7", "competent_swordsman", "competent_swordsman")
    assert list(t["tactic"]) == list(A.tactics("dice_pool_7"))
    plain = L.duel_table("dice_pool_7", "competent_swordsman", "competent_swordsman")
    own = t[t["tactic"] == "attack_attack"].iloc[0]
    assert own["p_side0"] == pytest.approx(plain.loc[0, "p_side0"])
    assert own["p_side0"] == pytest.approx(0.5)  # a mirror match


def test_armour_table_toughness_helps_e12():
    t = L.armour_table("d20_degrees", "competent", "competent")
    assert list(t["armour"]) == ["none", "light", "medium", "heavy"]
    assert t.loc[0, "p_side0"] == pytest.approx(0.5)
    assert np.all(np.diff(t["p_side0"]) > 0)


def test_armour_table_refuses_systems_without_armour():
    with pytest.raises(Exception, match="no armour"):
        L.armour_table("dice_pool_6", "competent_swordsman", "competent_brawler")


# ----------------------------------------------------------------- group fights


def test_group_fight_2v2_mirror_and_survival():
    n = 3000
    row, standing = L.group_fight(
        "dice_pool_6", ["competent_swordsman"] * 2, ["competent_swordsman"] * 2, trials=n, seed=5
    )
    decided = 1 - row["p_neither"]
    assert close(row["p_side0"], decided / 2, n)  # mirror match
    for side in (0, 1):
        s = standing[standing["side"] == side]["standing_share"].to_numpy()
        assert s[0] == 1.0
        assert np.all(np.diff(s) <= 1e-12)  # nobody gets up
    last1 = standing[standing["side"] == 1]["standing_mean"].iloc[-1]
    assert last1 <= 2 * (1 - row["p_side0"]) + 1e-12  # side 0's wins


def test_group_fight_3v1_rejects_exact():
    with pytest.raises(Exception, match="duels only"):
        L.run_fight(
            "dice_pool_7",
            [A.combatant("dice_pool_7", "novice_swordsman")] * 3,
            [A.combatant("dice_pool_7", "expert_swordsman")],
            "exact",
        )


def test_batched_mc_is_deterministic_and_agrees(monkeypatch):
    monkeypatch.setattr(L, "MC_BATCH", 1000)
    a = A.combatant("dice_pool_6", "competent_swordsman")
    b = A.combatant("dice_pool_6", "competent_brawler")
    one = L.run_fight("dice_pool_6", [a], [b], "mc", trials=3500, seed=9, progress=True)
    two = L.run_fight("dice_pool_6", [a], [b], "mc", trials=3500, seed=9, progress=False)
    assert one.trials == 3500
    assert one.outcome.sum() == 3500
    np.testing.assert_array_equal(one.outcome, two.outcome)
    np.testing.assert_array_equal(one.standing, two.standing)
    ex = L.run_fight("dice_pool_6", [a], [b], "exact")
    assert close(one.p_outcome()[0], ex.p_outcome()[0], 3500)


def test_batched_mc_same_on_one_and_two_threads(monkeypatch):
    """The batch split depends on the trial count only, so the thread count never changes
    a result for a given seed."""
    import numba

    monkeypatch.setattr(L, "MC_BATCH", 700)
    side0 = [A.combatant("percentile", "competent")] * 2
    side1 = [A.combatant("percentile", "novice")] * 3
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = L.run_fight("percentile", side0, side1, "mc", trials=2000, seed=21)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = L.run_fight("percentile", side0, side1, "mc", trials=2000, seed=21)
    finally:
        numba.set_num_threads(before)
    for key in ("outcome", "rounds", "loser_dead", "standing", "deaths", "hits"):
        np.testing.assert_array_equal(getattr(one, key), getattr(two, key))
