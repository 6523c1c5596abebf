"""Claim C7 ("−1 difficulty ≡ +2 dice", dice_pool_6) against independent binomial sums."""

import itertools

import numpy as np
import pytest
from scipy.stats import binom

from analysis.checks.claims import claim_c7, claim_c7_summary, claim_c7_table
from engines.errors import InputError


def p_at_least(n, k, criticals):
    """P(n d10 at 6+ give >= k successes), C1/C-g1; with C-g2 each pair of 10s adds 2.

    Independent of the engine: condition on the number of 10s t ~ Binomial(n, 1/10); the
    other n − t dice succeed with probability 4/9 (faces 6–9 of 1–9).
    """
    if k <= 0:
        return 1.0
    if not criticals:
        return float(binom.sf(k - 1, n, 0.5))
    total = 0.0
    for t in range(n + 1):
        need = k - t - 2 * (t // 2)
        total += binom.pmf(t, n, 0.1) * (1.0 if need <= 0 else binom.sf(need - 1, n - t, 4 / 9))
    return float(total)


def p_at_least_brute(n, k):
    """The same by enumerating all 10**n faces (small n only), C-g2 criticals on."""
    hits = 0
    for dice in itertools.product(range(1, 11), repeat=n):
        tens = sum(d == 10 for d in dice)
        if sum(d >= 6 for d in dice) + 2 * (tens // 2) >= k:
            hits += 1
    return hits / 10**n


@pytest.mark.parametrize(("n", "k"), [(1, 1), (2, 2), (2, 4), (3, 3), (4, 5), (4, 6)])
def test_binomial_oracle_agrees_with_enumeration(n, k):
    assert p_at_least(n, k, True) == pytest.approx(p_at_least_brute(n, k), abs=1e-12)


@pytest.mark.parametrize("criticals", [True, False])
def test_c7_table_matches_binomial(criticals):
    """C7 over pools 1..20 and difficulties 2..10, default and criticals=false (C-g2)."""
    t = claim_c7_table([f"criticals={str(criticals).lower()}"])
    assert len(t) == 20 * 9
    assert set(t["pool"]) == set(range(1, 21))
    assert set(t["difficulty"]) == set(range(2, 11))
    for row in t.itertuples():
        easier = p_at_least(row.pool, row.difficulty - 1, criticals)
        more = p_at_least(row.pool + 2, row.difficulty, criticals)
        assert row.p_minus_1_difficulty == pytest.approx(easier, abs=1e-10)
        assert row.p_plus_2_dice == pytest.approx(more, abs=1e-10)
        assert row.delta_pp == pytest.approx(100 * (more - easier), abs=1e-8)
        assert row.holds == (abs(100 * (more - easier)) <= 3.0)
    assert t["variants"].iloc[0] == ("default" if criticals else "criticals=false")


def test_c7_hand_worked_cells():
    """C7 without criticals, by hand: pool 1 vs difficulty 1 → ½; 3 dice for 2 successes →
    3·(½)³ + (½)³ = ½: equal. Pool 2, difficulty 3 → ¾ vs 4 dice for 3 → 5/16: breaks."""
    t = claim_c7_table(["criticals=false"], pools=[1, 2], difficulties=[2, 3])
    cell = t.set_index(["pool", "difficulty"])
    assert cell.loc[(1, 2), "delta_pp"] == pytest.approx(0.0, abs=1e-12)
    assert cell.loc[(2, 3), "p_minus_1_difficulty"] == pytest.approx(0.25)
    assert cell.loc[(2, 3), "p_plus_2_dice"] == pytest.approx(5 / 16)
    assert not cell.loc[(2, 3), "holds"]


def test_c7_summary_and_sentence():
    t = claim_c7_table()
    s = claim_c7_summary(t)
    assert s["n_cells"] == 180
    assert s["n_holds"] == int(t["holds"].sum())
    assert 0 < s["share_holds"] < 1
    worst = t.loc[t["delta_pp"].abs().idxmax()]
    assert s["worst"]["pool"] == worst["pool"]
    assert f"difficulty {int(worst['difficulty'])}" in s["sentence"]
    assert "C7" in s["sentence"]
    # every pool listed as breaking at a difficulty really breaks there
    by = s["by_difficulty"].set_index("difficulty")
    for d, grp in t.groupby("difficulty"):
        breaking = sorted(grp.loc[~grp["holds"], "pool"])
        listed = by.loc[d, "pools_breaking"]
        if not breaking:
            assert listed == "none"
        else:
            assert str(breaking[0]) in listed
    assert np.isclose(by["max_abs_delta_pp"].max(), abs(worst["delta_pp"]))


def test_c7_both_variants():
    table, sentences = claim_c7()
    assert set(table["variants"]) == {"default", "criticals=false"}
    assert len(sentences) == 2
    # the variants in the glossary's words (C-g2 off), not as the option is typed
    assert "the criticals rule (C-g2): off" in sentences[1]
    assert "criticals=false" not in sentences[1]


def test_c7_bad_input():
    with pytest.raises(InputError, match="difficulties"):
        claim_c7_table(difficulties=[0, 2])
    with pytest.raises(InputError, match="criticals"):
        claim_c7_table(["criticals=maybe"])
