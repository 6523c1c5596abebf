"""The campaign report section on its own (reports/sections/campaign.py)."""

import re

import pytest

from engines.systems.percentile import campaign as cpct
from reports import sections
from reports.sections.campaign import section_campaign
from reports.settings import ReportSettings
from reports.structure import Figure


def test_section_campaign_figures_and_reading():
    sec = section_campaign(ReportSettings(systems=("percentile", "dice_pool_7")))
    assert sec.id == "campaign"
    figs = sec.figures()
    assert [f.id for f in figs] == ["fig-campaign-percentile", "fig-campaign-dice_pool_7"]
    assert all(isinstance(f, Figure) and f.data.startswith(b"\x89PNG") for f in figs)
    text = " ".join(sec.reading)
    # the percentile sentence: the median skill after 60 sessions and the first session
    # by which half the characters have reached 75, both read off the exact chain (D6)
    st = cpct.skill_growth_exact(skill=40, uses=1, sessions=60, threshold=75)
    median = int(st.quantile(0.5)[-1])
    cum = st.passage_pmf()[:-1].cumsum()
    half = int((cum >= 0.5).argmax())
    assert f"median character is at {median} " in text
    assert f"reach skill ≥ 75 by session {half} " in text
    # A17: from 7 under one level-5 infraction a session, Morality stops at 4 (a level-5
    # infraction calls no check below Morality 5)
    assert re.search(r"morality .*after 30 sessions the median character is at 4 ", text)
    table = sec.tables()[0].frame
    assert table["system"].tolist() == ["percentile", "dice_pool_7"]
    assert table.loc[0, "mean"] == pytest.approx(st.mean()[-1])


def test_section_registered():
    assert section_campaign in sections.SECTIONS


def test_section_campaign_attrition_table_all_systems():
    """The attrition table: P(alive and able after k fights) for the ladder's competent
    fighter in every system; k = 1 is the plain exact duel of equals, P(win) + P(cap)."""
    import numpy as np

    from analysis.campaign import fighter
    from engines.system import get
    from reports.sections.campaign import attrition_reading, attrition_table

    systems = ("dice_pool_7", "middle_3d10", "dice_pool_6", "percentile", "d20_degrees")
    t = attrition_table(systems)
    assert t["system"].tolist() == list(systems)
    for system, p1 in zip(systems, t["k=1"], strict=True):
        eng = get(system).require("combat").engine()
        f = fighter(system, "")
        duel = eng.duel_exact(f, f)
        assert p1 == pytest.approx(duel.outcome[0] + duel.outcome[2], abs=1e-9)
    ks = t[[f"k={k}" for k in range(1, 6)]].to_numpy()
    assert np.all(np.diff(ks, axis=1) <= 1e-12)  # nobody gets back up
    text = attrition_reading(t)
    assert all(s in text for s in systems)
