"""Modifier values (A2–A5, B4/B-g2, C5/C7, D2/D4, E4/E6/E8/E9) against direct computations."""

import itertools

import icepool
import pytest
from scipy.stats import binom

from analysis.checks.modifiers import modifier_summary, modifier_table, modifier_values
from engines.errors import InputError
from engines.system import registry

#: each system's modifiers catalogue, as its System declares it
MODIFIERS = {sid: s.checks.modifiers for sid, s in registry().items()}


def _row(t, modifier, **axes):
    sel = t["modifier"] == modifier
    for k, v in axes.items():
        sel &= t[k] == v
    rows = t[sel]
    assert len(rows) == 1, (modifier, axes)
    return rows.iloc[0]


def _pool7_at_least(n, k):
    """A1 10-again via icepool (a 10 coded 11 so its chain decodes); A-g1 chance die at 0."""
    if n <= 0:
        return 0.1 if k <= 1 else 0.0
    one = icepool.Die([0] * 6 + [1] * 3 + [11]).explode([11], depth=25)
    die = n @ one.map(lambda s: s // 11 + s % 11)
    return sum(die.quantity(o) for o in die.outcomes() if o >= k) / die.denominator()


@pytest.mark.parametrize(("pool", "succ"), [(0, 1), (2, 1), (3, 2), (5, 3), (8, 4)])
def test_dice_pool_7_modifiers_match_icepool(pool, succ):
    """A3 focus +1, A5 equipment +1/+2, A2 specialization +2, A4 willpower +3 dice."""
    t = modifier_values("dice_pool_7")
    base = _pool7_at_least(pool, succ)
    for name, extra in [
        ("focus +1 die", 1),
        ("masterwork equipment +1", 1),
        ("masterful equipment +2", 2),
        ("specialization +2", 2),
        ("willpower +3 dice", 3),
    ]:
        r = _row(t, name, pool=pool, successes=succ)
        assert r["p_base"] == pytest.approx(base, abs=1e-9)
        assert r["p_with"] == pytest.approx(_pool7_at_least(pool + extra, succ), abs=1e-9)
        assert r["delta_pp"] == pytest.approx(100 * (r["p_with"] - base), abs=1e-9)


def test_middle_advantage_by_enumeration():
    """B4: advantage keeps the highest of 3d10, disadvantage (B-g2) the lowest; B3 doubles:
    two or more 10s always succeed, two or more 1s always fail."""
    t = modifier_values("middle_3d10")
    for bonus, dc in [(5, 15), (8, 15), (10, 20), (3, 10), (14, 25)]:
        p = {"normal": 0, "advantage": 0, "disadvantage": 0}
        for dice in itertools.product(range(1, 11), repeat=3):
            lo, mid, hi = sorted(dice)
            tens, ones = dice.count(10), dice.count(1)
            for mode, kept in (("normal", mid), ("advantage", hi), ("disadvantage", lo)):
                ok = tens >= 2 or (ones < 2 and kept + bonus >= dc)
                p[mode] += ok / 1000
        for mode in ("advantage", "disadvantage"):
            r = _row(t, mode, bonus=bonus, difficulty=dc)
            assert r["p_base"] == pytest.approx(p["normal"], abs=1e-12)
            assert r["p_with"] == pytest.approx(p[mode], abs=1e-12)


def _pool6_at_least(n, k):
    """C1 6+, C-g2 pairs of 10s +2: condition on the tens (others succeed with p 4/9)."""
    if k <= 0:
        return 1.0
    total = 0.0
    for t in range(n + 1):
        need = k - t - 2 * (t // 2)
        total += binom.pmf(t, n, 0.1) * (1.0 if need <= 0 else binom.sf(need - 1, n - t, 4 / 9))
    return total


@pytest.mark.parametrize(("pool", "diff"), [(1, 1), (3, 2), (5, 3), (7, 5), (12, 6)])
def test_dice_pool_6_modifiers_binomial(pool, diff):
    """C5 specialty +1 die, +2 dice and −1 difficulty (minimum 1)."""
    t = modifier_values("dice_pool_6")
    base = _pool6_at_least(pool, diff)
    cases = {
        "specialty +1 die": _pool6_at_least(pool + 1, diff),
        "+2 dice": _pool6_at_least(pool + 2, diff),
        "-1 difficulty": _pool6_at_least(pool, max(diff - 1, 1)),
    }
    for name, want in cases.items():
        r = _row(t, name, pool=pool, difficulty=diff)
        assert r["p_base"] == pytest.approx(base, abs=1e-10)
        assert r["p_with"] == pytest.approx(want, abs=1e-10)


def _pct(skill, level, dice):
    """D1 level thresholds, D-g1 (01 always succeeds; fumbles fail), D4 tens dice."""
    need = {"regular": skill, "hard": skill // 2, "extreme": skill // 5}[level]
    n = 1 + abs(dice)
    hits = 0
    for units in range(10):
        for tens in itertools.product(range(10), repeat=n):
            vals = [100 if t == 0 and units == 0 else 10 * t + units for t in tens]
            r = min(vals) if dice >= 0 else max(vals)
            fumble = r == 100 or (r >= 96 and skill < 50)
            hits += r == 1 or (r <= need and not fumble)
    return hits / 10 ** (n + 1)


@pytest.mark.parametrize(
    ("skill", "level"), [(60, "hard"), (25, "regular"), (90, "extreme"), (45, "regular")]
)
def test_percentile_dice_and_push(skill, level):
    """D4 bonus/penalty dice by enumerating tens dice; D2 push = 1 − (1 − p)²; the seed's
    D1 example: STR 60 at hard needs ≤ 30 (p = 0.30 with no extra dice)."""
    t = modifier_values("percentile")
    base = _pct(skill, level, 0)
    if (skill, level) == (60, "hard"):
        assert base == pytest.approx(0.30)
    for name, dice in [
        ("1 bonus die", 1),
        ("2 bonus dice", 2),
        ("1 penalty die", -1),
        ("2 penalty dice", -2),
    ]:
        r = _row(t, name, skill=skill, level=level)
        assert r["p_base"] == pytest.approx(base, abs=1e-12)
        assert r["p_with"] == pytest.approx(_pct(skill, level, dice), abs=1e-12)
    r = _row(t, "push", skill=skill, level=level)
    assert r["p_with"] == pytest.approx(1 - (1 - base) ** 2, abs=1e-12)


def _d20(bonus, dc, mode):
    """E1–E3 success (≥ 1 degree: nat 20 +5, nat 1 fails), E4 take 10, E9 hero point."""

    def ok(v, nat):
        if nat == 1:
            return False
        return v + bonus + (5 if nat == 20 else 0) >= dc

    if mode == "take_10":
        return float(10 + bonus >= dc)
    if mode == "roll":
        return sum(ok(d, d if d in (1, 20) else 0) for d in range(1, 21)) / 20
    p = 0.0
    for a in range(1, 21):
        for b in range(1, 21):
            v2 = b + 10 if b <= 10 else b
            v, nat = (v2, 20 if b == 20 else 0) if v2 > a else (a, a if a in (1, 20) else 0)
            p += ok(v, nat) / 400
    return p


@pytest.mark.parametrize(("bonus", "dc"), [(0, 5), (5, 15), (10, 20), (3, 25), (20, 30)])
def test_d20_modifiers_by_loops(bonus, dc):
    """E6 circumstance ±2/±5, E8 extra effort +2, E9 hero point, E4 take 10."""
    t = modifier_values("d20_degrees")
    base = _d20(bonus, dc, "roll")
    cases = {
        "hero point": _d20(bonus, dc, "hero_point"),
        "extra effort +2": _d20(bonus + 2, dc, "roll"),
        "minor circumstance +2": _d20(bonus + 2, dc, "roll"),
        "major circumstance +5": _d20(bonus + 5, dc, "roll"),
        "minor circumstance -2": _d20(bonus - 2, dc, "roll"),
        "major circumstance -5": _d20(bonus - 5, dc, "roll"),
        "take 10": _d20(bonus, dc, "take_10"),
    }
    for name, want in cases.items():
        r = _row(t, name, bonus=bonus, dc=dc)
        assert r["p_base"] == pytest.approx(base, abs=1e-12)
        assert r["p_with"] == pytest.approx(want, abs=1e-12), name


def test_table_shape_and_summary():
    t = modifier_table()
    for col in ("system", "modifier", "rule", "p_base", "p_with", "delta_pp"):
        assert col in t
    for system, mods in MODIFIERS.items():  # each System's own catalogue
        assert set(t.loc[t["system"] == system, "modifier"]) == {m.name for m in mods}
    s = modifier_summary(t)
    assert len(s) == sum(len(m) for m in MODIFIERS.values())
    adv = s[(s["system"] == "middle_3d10") & (s["modifier"] == "advantage")].iloc[0]
    assert adv["min_delta_pp"] > 0  # B4 advantage never hurts where the base is live
    pen = s[s["modifier"] == "1 penalty die"].iloc[0]
    assert pen["max_delta_pp"] <= 0


def test_bad_axis():
    with pytest.raises(InputError, match="unknown axis"):
        modifier_values("percentile", axes={"dc": [10]})
    with pytest.raises(InputError, match="unknown system"):
        modifier_values("gurps")
