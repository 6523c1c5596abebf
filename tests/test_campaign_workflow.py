"""Campaign knobs in scenario files: sweep.campaign, [[solve]] kind = "campaign" and
guardrails on campaign metrics (rpg-balance run / audit)."""

import numpy as np
import pytest

from analysis import campaign as camp
from analysis.workflow import audit
from analysis.workflow.run import run_scenario
from analysis.workflow.scenario import parse_scenario
from engines.errors import InputError
from engines.systems.percentile import campaign as cpct

SKILL = {
    "name": "skill",
    "system": "percentile",
    "mechanic": "skill-growth",
    "params": {"skill": 40, "uses": 1},
    "sessions": 10,
    "threshold": 60,
}


def test_sweep_campaign_knobs_rerun_each_entry():
    sc = parse_scenario(
        {
            "name": "s",
            "campaign": [SKILL],
            "sweep": {"campaign": {"param.uses": [1, 2], "variant.skill_cap": [90, 99]}},
        },
        "s.toml",
    )
    assert "campaign_sweep" in sc.tables()
    t = run_scenario(sc).tables["campaign_sweep"]
    assert len(t) == 4 * 11  # 2 × 2 combinations × sessions 0..10
    row = t[(t["param.uses"] == 2) & (t["variant.skill_cap"] == 90) & (t.session == 10)]
    want = cpct.skill_growth_exact(
        skill=40, uses=2, sessions=10, threshold=60, variants=cpct.Variants(skill_cap=90)
    )
    assert row["mean"].item() == pytest.approx(want.mean()[10])
    assert row["p_reached"].item() == pytest.approx(1 - want.passage_pmf()[-1])


def test_sweep_campaign_problems():
    with pytest.raises(InputError) as exc:
        parse_scenario(
            {
                "name": "s",
                "campaign": [SKILL],
                "sweep": {"campaign": {"param.nope": [1], "uses": [1], "param.skill": [0, 500]}},
            },
            "s.toml",
        )
    text = str(exc.value)
    assert "sweep.campaign.param.nope: no [[campaign]] entry has this knob" in text
    assert "sweep.campaign.uses: expected param.NAME" in text
    assert "sweep.campaign.param.skill[1]" in text


def test_solve_campaign_kind_is_the_cli_solver():
    sc = parse_scenario(
        {
            "name": "s",
            "campaign": [SKILL],
            "solve": [{"kind": "campaign", "campaign": "skill", "knob": "uses", "reach": 60}],
        },
        "s.toml",
    )
    t = run_scenario(sc).tables["campaign_solve"]
    _, want = camp.solve_campaign(
        "percentile", "skill-growth", "uses", 60, 10, {"skill": 40, "uses": 1}
    )
    assert t["value"].tolist() == want["value"].tolist()
    chosen = t[t.chosen]["value"].item()
    # the chosen number of uses is the smallest whose P(reach 60 by session 10) ≥ 0.5
    p = {int(v): q for v, q in zip(t["value"], t["p_reached"], strict=True)}
    assert p[chosen] >= 0.5
    assert p[chosen - 1] < 0.5


def test_solve_campaign_problems():
    with pytest.raises(InputError) as exc:
        parse_scenario(
            {
                "name": "s",
                "campaign": [SKILL],
                "solve": [
                    {"kind": "campaign", "campaign": "other", "knob": "uses", "reach": 60},
                    {"kind": "campaign", "knob": "usess"},
                ],
            },
            "s.toml",
        )
    text = str(exc.value)
    assert "solve[0].campaign: no [[campaign]] entry 'other'" in text
    assert "solve[1].knob: not a parameter of skill-growth (did you mean 'uses'?)" in text
    assert "solve[1].reach: required" in text


def test_campaign_metrics_read_the_chain():
    st = cpct.skill_growth_exact(skill=40, uses=1, sessions=10, threshold=60)
    n, x, read = camp.campaign_metric("p_reach:60:10")
    assert (n, x) == (10, 60)
    assert read(st)[0] == pytest.approx(1 - st.passage_pmf()[-1])
    assert camp.campaign_metric("median_at:10")[2](st)[0] == st.quantile(0.5)[10]
    assert camp.campaign_metric("mean_at:10")[2](st)[0] == pytest.approx(st.mean()[10])
    with pytest.raises(InputError, match="unknown campaign metric"):
        camp.campaign_metric("median:10")


def test_guardrails_on_campaigns_in_the_audit():
    sc = parse_scenario(
        {
            "name": "g",
            "campaign": [
                SKILL,
                {"name": "attr", "system": "dice_pool_6", "mechanic": "attrition", "sessions": 2},
            ],
            "guardrails": [
                {"name": "median", "campaign": "skill", "metric": "median_at:10", "min": 40},
                {"name": "reach", "campaign": 0, "metric": "p_reach:60:10", "min": 0.9},
                {
                    "name": "able",
                    "campaign": "attr",
                    "metric": "extra_at:p_able:1",
                    "min": 0.49,
                    "max": 0.51,
                },
            ],
        },
        "g.toml",
    )
    t = audit.evaluate([sc], suggestions=True, progress=False)
    assert t["status"].tolist() == ["pass", "fail", "pass"]
    # an even duel of equals is won half the time (k = 1 is the plain duel)
    assert t["value"].iloc[2] == pytest.approx(0.5, abs=1e-9)
    assert "[[solve]] kind = 'campaign'" in t["suggestion"].iloc[1]


def test_campaign_guardrail_problems():
    with pytest.raises(InputError) as exc:
        parse_scenario(
            {
                "name": "g",
                "campaign": [SKILL],
                "guardrails": [
                    {"name": "a", "campaign": "nope", "metric": "median_at:3", "min": 1},
                    {
                        "name": "b",
                        "campaign": "skill",
                        "check": "x",
                        "metric": "median_at:3",
                        "min": 1,
                    },
                    {"name": "c", "campaign": "skill", "metric": "p_reach:60", "min": 0.1},
                ],
            },
            "g.toml",
        )
    text = str(exc.value)
    assert "guardrails[0].campaign: no [[campaign]] entry 'nope'" in text
    assert "guardrails[1]: give exactly one of fight" in text
    assert "guardrails[2].metric: unknown campaign metric" in text


def test_campaign_guardrail_monte_carlo_has_se():
    sc = parse_scenario(
        {
            "name": "g",
            "seed": 3,
            "precision": {"trials": 4000},
            "campaign": [{**SKILL, "method": "mc"}],
            "guardrails": [{"name": "m", "campaign": "skill", "metric": "mean_at:10", "min": 0}],
        },
        "g.toml",
    )
    t = audit.evaluate([sc], progress=False)
    exact = cpct.skill_growth_exact(skill=40, uses=1, sessions=10).mean()[10]
    assert t["solved"].item() == "mc"
    assert t["se"].item() > 0
    assert abs(t["value"].item() - exact) <= 5 * t["se"].item() + 1 / 4000
    assert np.isfinite(t["value"].item())
