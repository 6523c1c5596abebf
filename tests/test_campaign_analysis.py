"""Campaign tables, fan chart, knob solver, the ``campaign`` command and [[campaign]]
scenario entries (analysis/campaign.py, analysis/cli_campaign.py, analysis/scenario.py,
analysis/workflow.py)."""

import dataclasses
import io
import math

import numpy as np
import pandas as pd
import pytest

from analysis import campaign as camp
from cli.main import main
from engines.campaign import CampaignStats, campaign_systems, mechanic, mechanics
from engines.errors import InputError
from engines.systems.dice_pool_7 import campaign as cdp7
from engines.systems.percentile import campaign as cpct

# A hand-made chain over values 0..3, sessions 0..2:
#   session 0: all at 1
#   session 1: 0.25, 0.25, 0.5, 0   → mean 0.25 + 1.0 = 1.25; E[x²] = 0.25 + 2 = 2.25,
#              var 2.25 − 1.5625 = 0.6875; cdf .25 .5 1 → q10 0, q50 1, q90 2
#   session 2: 0.1, 0.2, 0.3, 0.4   → mean 0.2 + 0.6 + 1.2 = 2.0; E[x²] = 0.2 + 1.2 + 3.6
#              = 5.0, var 1.0; cdf .1 .3 .6 1 → q10 0, q50 2, q90 3
DIST = np.array([[0, 1, 0, 0], [0.25, 0.25, 0.5, 0], [0.1, 0.2, 0.3, 0.4]])
PASSAGE = np.array([0.0, 0.25, 0.5, 0.25])


def hand(trials=None, dist=DIST, passage=PASSAGE):
    scale = 1 if trials is None else trials
    return CampaignStats(
        system="percentile",
        mechanic="skill-growth",
        values=np.arange(4),
        dist=dist * scale,
        passage=passage * scale,
        threshold=2,
        trials=trials,
    )


def test_summary_table_by_hand():
    t = camp.summary_table(hand())
    assert list(t.columns) == ["session", "mean", "sd", "q10", "q50", "q90", "method"]
    assert t["mean"].tolist() == pytest.approx([1.0, 1.25, 2.0])
    assert t["sd"].tolist() == pytest.approx([0.0, math.sqrt(0.6875), 1.0])
    assert t["q10"].tolist() == [1, 0, 0]
    assert t["q50"].tolist() == [1, 1, 2]
    assert t["q90"].tolist() == [1, 2, 3]
    assert set(t["method"]) == {"exact"}


def test_summary_table_mc_has_se_mean():
    t = camp.summary_table(hand(trials=20))  # counts 20 × p
    assert t["mean"].tolist() == pytest.approx([1.0, 1.25, 2.0])
    assert t["se_mean"].tolist() == pytest.approx([0, math.sqrt(0.6875 / 20), 1 / math.sqrt(20)])
    assert set(t["method"]) == {"mc"}


def test_distribution_table_by_hand():
    t = camp.distribution_table(hand())
    # p > 0 only: 1 row at session 0, 3 at session 1, 4 at session 2
    assert t["session"].tolist() == [0, 1, 1, 1, 2, 2, 2, 2]
    assert t["value"].tolist() == [1, 0, 1, 2, 0, 1, 2, 3]
    assert t["p"].tolist() == pytest.approx([1, 0.25, 0.25, 0.5, 0.1, 0.2, 0.3, 0.4])
    mc = camp.distribution_table(hand(trials=100))
    assert mc["se"].iloc[3] == pytest.approx(math.sqrt(0.5 * 0.5 / 100))


def test_passage_table_by_hand():
    t = camp.passage_table(hand())
    assert t["session"].tolist() == ["0", "1", "2", "not by 2"]
    assert t["p"].tolist() == pytest.approx([0, 0.25, 0.5, 0.25])
    assert set(t["threshold"]) == {2}
    st = hand()
    st.passage = None
    with pytest.raises(InputError, match="threshold"):
        camp.passage_table(st)


def test_both_side_by_side_with_z():
    # MC of 100 characters with session 1 at 0.30, 0.20, 0.50: mean 1.2 against 1.25;
    # exact SE of a mean of 100 = sqrt(0.6875) / 10 → z = −0.05 / 0.0829… = −0.603
    mc_dist = np.array([[0, 1, 0, 0], [0.3, 0.2, 0.5, 0], [0.1, 0.2, 0.3, 0.4]])
    stats = {"exact": hand(), "mc": hand(trials=100, dist=mc_dist)}
    t = camp.table(stats, "summary")
    row = t.iloc[1]
    assert row["mean_exact"] == pytest.approx(1.25)
    assert row["mean_mc"] == pytest.approx(1.2)
    assert row["z"] == pytest.approx(-0.05 / (math.sqrt(0.6875) / 10))
    d = camp.table(stats, "distribution")
    r = d[(d.session == 1) & (d.value == 0)].iloc[0]
    # p 0.30 against 0.25: z = 0.05 / sqrt(0.25 · 0.75 / 100)
    assert r["z"] == pytest.approx(0.05 / math.sqrt(0.25 * 0.75 / 100))
    p = camp.table(stats, "passage")
    assert p["session"].tolist() == ["0", "1", "2", "not by 2"]
    assert p["z"].abs().max() == pytest.approx(0.0)


def test_merge_pools_tallies_by_hand():
    # part A: tally values {1, 3}: mean 2, SE sqrt(1 / 2); part B: {5, 5}: mean 5, SE 0
    # pooled {1, 3, 5, 5}: mean 3.5, var 15 − 12.25 = 2.75, SE sqrt(2.75 / 4)
    def part(mean, se):
        st = hand(trials=2)
        st.extra = {"t": np.array([mean]), "t_se": np.array([se])}
        return st

    m = camp.merge([part(2.0, math.sqrt(0.5)), part(5.0, 0.0)])
    assert m.trials == 4
    assert m.extra["t"][0] == pytest.approx(3.5)
    assert m.extra["t_se"][0] == pytest.approx(math.sqrt(2.75 / 4))
    assert m.dist.sum(axis=1).tolist() == pytest.approx([4, 4, 4])


def test_fan_chart_bands_and_median():
    fig = camp.fan_chart(hand())
    ax = fig.axes[0]
    assert len(ax.collections) == 2  # the 10–90 and 25–75 bands
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"10–90 %", "25–75 %", "median", "threshold 2"} <= set(labels)
    assert ax.get_ylabel() == "skill"  # the mechanic's state label
    median = next(ln for ln in ax.get_lines() if ln.get_label() == "median")
    assert median.get_ydata().tolist() == [1, 1, 2]


#: the mechanics of each built-in system, as RULES.md gives them
MECHANIC_NAMES = {
    "dice_pool_7": ("morality", "attrition"),
    "middle_3d10": ("arcane", "consolidation", "attrition"),
    "dice_pool_6": ("budgets", "hunger", "attrition"),
    "percentile": ("skill-growth", "luck", "attrition"),
    "d20_degrees": ("hero-points", "attrition"),
}


def test_mechanic_names_match_engines():
    assert set(MECHANIC_NAMES) <= set(campaign_systems())
    for system, names in MECHANIC_NAMES.items():
        assert tuple(mechanics(system)) == names


def test_systems_command_lists_the_mechanics():
    from cli.systems import systems_table

    t = systems_table().set_index("id")
    for system, names in MECHANIC_NAMES.items():
        assert t.loc[system, "mechanics"] == ", ".join(names)


@pytest.mark.parametrize(
    ("system", "name"), [(s, m) for s, ms in MECHANIC_NAMES.items() for m in ms]
)
def test_every_mechanic_runs_at_its_defaults(system, name):
    mech = mechanic(system, name)
    assert mech.system == system
    for p in mech.params:
        if p.range:
            assert p.range[0] <= p.default <= p.range[1], p.name
        if p.choices:
            assert p.default in p.choices
    stats = camp.run(system, name, sessions=2)["exact"]
    assert stats.dist.shape[0] == 3
    assert stats.pmf().sum(axis=1) == pytest.approx(np.ones(3))


def test_run_rejects_bad_params():
    with pytest.raises(InputError, match="unknown parameter 'skil'"):
        camp.run("percentile", "skill-growth", {"skil": 3}, sessions=2)
    with pytest.raises(InputError, match="uses: expected an integer"):
        camp.run("percentile", "skill-growth", {"uses": 1.5}, sessions=2)
    with pytest.raises(InputError, match="did you mean 'morality'"):
        camp.run("dice_pool_7", "moral", sessions=2)
    with pytest.raises(InputError, match="method"):
        camp.run("dice_pool_7", "morality", sessions=2, method="fast")


@pytest.mark.parametrize(
    ("system", "name"), [(s, m) for s, ms in MECHANIC_NAMES.items() for m in ms]
)
def test_bad_variant_is_the_same_one_line_error_in_every_mechanic(system, name):
    """Every campaign module validates its variants through one function
    (engines.campaign.campaign_variants): a bad value, whether in a Variants object, a
    mapping or NAME=VALUE text, an unknown name or a wrong type is the same one-line
    InputError from the exact chain and the Monte Carlo run alike."""
    mech, params, _ = camp.resolve(system, name)
    field = dataclasses.fields(mech.variants)[0].name
    cases = [
        (dataclasses.replace(mech.variants(), **{field: "bogus"}), f"variant {field}: "),
        ({field: "bogus"}, f"variant {field}: "),
        (f"{field}=bogus", f"variant {field}: "),
        (["bad=1"], f"unknown variant 'bad' for {system}"),
        (42, f"variants: expected {system} campaign Variants"),
    ]
    for bad, start in cases:
        for run_it in (
            lambda v: mech.exact(sessions=1, threshold=None, variants=v, **params),
            lambda v: mech.monte_carlo(
                sessions=1, trials=10, seed=1, threshold=None, variants=v, **params
            ),
        ):
            with pytest.raises(InputError) as exc:
                run_it(bad)
            assert str(exc.value).startswith(start), (bad, str(exc.value))
            assert "\n" not in str(exc.value)


@pytest.mark.parametrize(
    ("system", "bad", "message"),
    [
        ("percentile", {"skill_cap": 500}, "variant skill_cap: must be 1..200"),
        (
            "d20_degrees",
            {"rest_minutes": -1},
            "variant rest_minutes: expected an integer 0..100000",
        ),
    ],
)
def test_variants_check_runs_for_every_mechanic(system, bad, message):
    """A campaign Variants' own check() runs whichever mechanic reads the variants, for an
    object built without parse_variants too."""
    for mech in mechanics(system).values():
        _, params, _ = camp.resolve(system, mech.name)
        with pytest.raises(InputError, match=message):
            mech.exact(sessions=1, variants=mech.variants(**bad), **params)


@pytest.mark.slow
def test_mc_batches_reproducible_and_close_to_exact():
    """Above one batch the run is pooled from spawned seeds: same seed, same numbers; and
    P(skill) after 3 sessions within 5 SE + 1/n of the exact chain (D6)."""
    n = camp.BATCH_TRIALS + 7
    a = camp.run(
        "percentile",
        "skill-growth",
        {"skill": 40},
        sessions=3,
        method="mc",
        trials=n,
        seed=5,
        progress=False,
    )["mc"]
    b = camp.run(
        "percentile",
        "skill-growth",
        {"skill": 40},
        sessions=3,
        method="mc",
        trials=n,
        seed=5,
        progress=False,
    )["mc"]
    assert a.trials == n
    assert np.array_equal(a.dist, b.dist)
    ex = cpct.skill_growth_exact(skill=40, uses=1, sessions=3).pmf()
    p = a.pmf()
    assert np.all(np.abs(p - ex) <= 5 * np.sqrt(ex * (1 - ex) / n) + 1 / n)


# ---------------------------------------------------------------- solver


def brute(system, name, knob, reach, sessions, params, values, increasing):
    """Every value's exact P(reached by N) and the meeting value nearest the failing side."""
    mech = mechanic(system, name)
    ps = []
    for v in values:
        st = mech.exact(
            sessions=sessions, threshold=reach, **{**mech.defaults(), **params, knob: v}
        )
        ps.append(1 - st.passage_pmf()[-1])
    meets = [v for v, p in zip(values, ps, strict=True) if p >= 0.5]
    return (min(meets) if increasing else max(meets)) if meets else None


@pytest.mark.parametrize(
    ("system", "name", "knob", "reach", "sessions", "params", "inc"),
    [
        ("percentile", "skill-growth", "skill", 60, 10, {}, True),
        ("percentile", "skill-growth", "uses", 75, 30, {"skill": 40}, True),
        ("dice_pool_7", "morality", "infraction", 5, 10, {"morality": 7}, False),
        ("dice_pool_7", "morality", "per_session", 3, 6, {"morality": 7, "infraction": 4}, True),
        ("middle_3d10", "arcane", "uses", 10, 20, {}, True),
    ],
)
def test_solver_matches_brute_force(system, name, knob, reach, sessions, params, inc):
    mech = mechanic(system, name)
    values = camp.knob_values(mech, knob)
    if len(values) > 60:
        values = values[:31]
    res, table = camp.solve_campaign(system, name, knob, reach, sessions, params, values=values)
    assert res.knob == brute(system, name, knob, reach, sessions, params, values, inc)
    assert table["chosen"].sum() == (res.knob is not None)
    assert fewer_than_all(table, values)


def fewer_than_all(table, values):
    return len(table) <= len(values)


def test_solver_bad_input():
    with pytest.raises(InputError, match="unknown parameter 'foo'"):
        camp.solve_campaign("percentile", "skill-growth", "foo", 75, 10)
    with pytest.raises(InputError, match="search range"):
        camp.knob_values(mechanic("percentile", "skill-growth"), "skill", 90, 20)


# ---------------------------------------------------------------- the command


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_skill_growth_example(capsys):
    code, out, _ = run(
        capsys,
        "campaign",
        "percentile",
        "skill-growth",
        "--skill",
        "40",
        "--uses",
        "1",
        "--sessions",
        "20",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert list(t.columns[:8]) == [
        "system",
        "mechanic",
        "session",
        "mean",
        "sd",
        "q10",
        "q50",
        "q90",
    ]
    assert len(t) == 21
    # D6: P(tick) = 0.40 (d100 ≤ 40), P(improve) = 0.60 (d100 > 40), +1d10 (mean 5.5):
    # mean after one session 40 + 0.24 × 5.5 = 41.32; P(still 40) = 0.76, each of 41..50
    # 0.024, so the 90th percentile is 46 (0.76 + 6 × 0.024 = 0.904)
    assert t["mean"][1] == pytest.approx(41.32)
    assert t["q90"][1] == 46
    ex = cpct.skill_growth_exact(skill=40, uses=1, sessions=20)
    assert t["mean"].to_numpy() == pytest.approx(ex.mean(), abs=1e-12)
    assert t["q50"].tolist() == ex.quantile(0.5).tolist()


def test_cli_morality_example(capsys):
    code, out, _ = run(
        capsys,
        "campaign",
        "dice_pool_7",
        "morality",
        "--morality",
        "7",
        "--infraction",
        "5",
        "--sessions",
        "20",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    # A17: a level-5 infraction checks with 3 dice; no success 0.6³ = 0.216 → mean 6.784
    assert t["mean"][1] == pytest.approx(7 - 0.216)
    ex = cdp7.morality_exact(morality=7, infraction=5, sessions=20)
    assert t["mean"].to_numpy() == pytest.approx(ex.mean(), abs=1e-12)
    assert t["sd"].to_numpy() == pytest.approx(ex.sd(), abs=1e-12)


def test_cli_passage_distribution_plot_columns(capsys, tmp_path):
    fig = tmp_path / "fan.png"
    code, out, _ = run(
        capsys,
        "campaign",
        "dice_pool_7",
        "morality",
        "--sessions",
        "6",
        "--table",
        "passage",
        "--threshold",
        "5",
        "--plot",
        str(fig),
        "--columns",
        "session,p",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert list(t.columns) == ["session", "p"]
    assert t["session"].iloc[-1] == "not by 6"
    # Morality 7 → ≤ 5 needs two failed checks (0.216 each) at the earliest by session 2
    assert t["p"][2] == pytest.approx(0.216**2)
    assert t["p"].sum() == pytest.approx(1.0)
    assert fig.stat().st_size > 0
    code, out, _ = run(
        capsys,
        "campaign",
        "dice_pool_7",
        "morality",
        "--sessions",
        "1",
        "--table",
        "distribution",
        "--format",
        "json",
    )
    assert code == 0
    rows = pd.read_json(io.StringIO(out))
    assert rows["p"].tolist() == pytest.approx([1.0, 0.216, 0.784])


def test_cli_both_and_solve(capsys):
    code, out, _ = run(
        capsys,
        "campaign",
        "percentile",
        "luck",
        "--sessions",
        "3",
        "--method",
        "both",
        "--trials",
        "4000",
        "--seed",
        "2",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert {"mean_exact", "mean_mc", "se_mean", "z"} <= set(t.columns)
    assert t["z"].abs().max() < 5
    code, out, _ = run(
        capsys,
        "campaign",
        "percentile",
        "skill-growth",
        "--skill",
        "40",
        "--sessions",
        "30",
        "--solve",
        "uses",
        "--reach",
        "75",
        "--range",
        "0:10",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert t.loc[t.chosen, "value"].tolist() == [1]


@pytest.mark.parametrize(
    "argv",
    [
        ["campaign", "percentile", "skill-growth", "--skill", "140"],
        ["campaign", "percentile", "skill-growth", "--skil", "40"],
        ["campaign", "percentile", "skill-grow"],
        ["campaign", "percentile", "skill-growth", "--table", "passage"],
        ["campaign", "percentile", "skill-growth", "--variant", "skill_cap=500"],
        ["campaign", "percentile", "skill-growth", "--columns", "nope"],
        ["campaign", "percentile", "skill-growth", "--solve", "uses"],
        ["campaign", "percentile", "skill-growth", "--reach", "50"],
        ["campaign", "percentile", "skill-growth", "--plot", "fan.gif"],
        ["campaign", "dice_pool_7", "morality", "--sessions", "2000"],
        *[
            ["campaign", s, m, "--variant", "bad=1"]
            for s, m in (
                ("dice_pool_7", "morality"),
                ("middle_3d10", "arcane"),
                ("dice_pool_6", "hunger"),
                ("percentile", "luck"),
                ("d20_degrees", "hero-points"),
                ("dice_pool_7", "attrition"),
                ("middle_3d10", "attrition"),
                ("dice_pool_6", "attrition"),
                ("percentile", "attrition"),
                ("d20_degrees", "attrition"),
            )
        ],
        ["campaign", "d20_degrees", "hero-points", "--variant", "rest_minutes=-1"],
        ["campaign", "middle_3d10", "attrition", "--variant", "recovery=9"],
    ],
)
def test_cli_bad_input_one_line_exit_2_nothing_written(capsys, tmp_path, argv):
    target = tmp_path / "out.csv"
    code, _out, err = run(capsys, *argv, "-o", str(target))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("error: ")
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_cli_mechanic_help_lists_rule_ids(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["campaign", "dice_pool_7", "morality", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--per-session" in out
    assert "[A17]" in out
    assert "order [A-g21]" in out


# ---------------------------------------------------------------- scenario files


def test_scenario_campaign_problems_all_at_once():
    from analysis.workflow.scenario import parse_scenario

    data = {
        "name": "bad",
        "campaign": [
            {"system": "percentil", "mechanic": "skill-growth"},
            {"system": "percentile", "mechanic": "skill-grow"},
            {
                "system": "percentile",
                "mechanic": "skill-growth",
                "params": {"skil": 3},
                "variants": {"skill_cap": 500},
            },
            {"system": "percentile", "mechanic": "skill-growth", "params": {"skill": 140}},
            {"system": "dice_pool_7", "mechanic": "morality", "threshold": 40, "sessions": -1},
            {"mechanic": "morality"},
        ],
    }
    with pytest.raises(InputError) as exc:
        parse_scenario(data, "s.toml")
    text = str(exc.value)
    for path in (
        "campaign[0].system",
        "campaign[1].mechanic",
        "campaign[2].params.skil",
        "campaign[2].variants.skill_cap",
        "campaign[3].params.skill",
        "campaign[4].sessions",
        "campaign[4].threshold",
        "campaign[5].system",
    ):
        assert f"s.toml: {path}: " in text, path
    assert "did you mean 'percentile'" in text
    assert "did you mean 'skill-growth'" in text


def test_scenario_file_runs_into_campaign_table(tmp_path):
    from analysis.workflow.run import run_scenario, write_results
    from analysis.workflow.scenario import load_scenario

    sc = load_scenario("scenarios/campaign.toml")
    res = run_scenario(sc)
    t = res.tables["campaign"]
    skill = t[(t.campaign == "skill 40 to 75") & (t.table == "passage")]
    assert skill["session"].iloc[-1] == "not by 60"
    ex = cpct.skill_growth_exact(skill=40, uses=1, sessions=60, threshold=75)
    assert skill["p"].to_numpy() == pytest.approx(ex.passage_pmf())
    morality = t[(t.campaign == "morality under level-5 infractions") & (t.table == "summary")]
    assert morality["mean"].to_numpy() == pytest.approx(
        cdp7.morality_exact(morality=7, infraction=5, sessions=30).mean()
    )
    written = write_results(res, "csv", tmp_path / "out")
    assert [p.name for p in written] == ["campaign.csv"]


def test_cli_mechanic_help_takes_a_percent_sign(capsys, monkeypatch):
    """A mechanic's help text may say "50 %": argparse formats help with %, so the command
    doubles it (a plug-in's text once ended ``--help`` in a ValueError traceback)."""
    import dataclasses

    mech = mechanic("dice_pool_7", "morality")
    params = tuple(dataclasses.replace(p, help=p.help + " (50 % of sessions)") for p in mech.params)
    patched = dataclasses.replace(mech, params=params, help=mech.help + " at 100 %")
    monkeypatch.setitem(mechanics("dice_pool_7"), "morality", patched)
    with pytest.raises(SystemExit) as exc:
        main(["campaign", "dice_pool_7", "morality", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "(50 % of sessions)" in out
    assert "example: rpg-balance campaign dice_pool_7 morality" in out


# ---------------------------------------------------------------- tallies as columns


def test_summary_columns_carry_every_tally_of_every_mechanic():
    """Each mechanic's tallies (``Mechanic.extra``) are columns of its summary table, by
    the names the mechanic gives them (the names ``extra_at:NAME:N`` guardrails use)."""
    for system in campaign_systems():
        for name, mech in mechanics(system).items():
            st = camp.run(system, name, None, sessions=2)["exact"]
            t = camp.summary_table(st)
            assert list(mech.extra) == camp.tally_names(st), (system, name)
            for tally in mech.extra:
                assert t[tally].to_numpy() == pytest.approx(st.extra[tally]), (system, name)


def test_derangements_by_hand():
    """A17 by hand: from Morality 7 one level-5 infraction a session calls a 3-die
    Morality check (M6–4: 3 dice), failed when no die shows 7+: 0.6³ = 0.216; the drop to
    6 calls a Degeneration check of 6 dice, failed with 0.6⁶ = 0.046656, which gives the
    derangement. After one session: 0.216 × 0.046656 = 0.010077696. Over a long campaign
    Morality falls 7 → 6 → 5 → 4 for sure and stops (a level-5 infraction checks nothing
    below 5), so the derangements tend to 0.6⁶ + 0.6⁵ + 0.6⁴ = 0.254016."""
    stats = camp.run("dice_pool_7", "morality", {"morality": 7, "infraction": 5}, sessions=200)
    t = camp.table(stats, "summary")
    assert t["derangements_mean"][0] == 0.0
    assert t["derangements_mean"][1] == pytest.approx(0.216 * 0.6**6, abs=1e-15)
    assert t["derangements_mean"].iloc[-1] == pytest.approx(0.6**6 + 0.6**5 + 0.6**4, abs=1e-12)


def test_skill_improvements_by_hand():
    """D6 by hand, skill 40 used once a session: the use ticks with P(d100 ≤ 40) = 0.40
    and the ticked skill improves with P(d100 > 40) = 0.60, so session 1 improves with
    0.24. Session 2: still 40 with 0.76 (improves again with 0.24), at 40 + j for
    j = 1..10 with 0.024 each (improves with (40 + j)(60 − j) / 10⁴); Σ (40 + j)(60 − j) =
    24000 + 20 · 55 − 385 = 24715, so session 2 adds 0.1824 + 0.024 · 2.4715 = 0.241716
    and the expected improvements by then are 0.481716."""
    t = camp.table(
        camp.run("percentile", "skill-growth", {"skill": 40, "uses": 1}, sessions=2), "summary"
    )
    assert t["improvements"].tolist() == pytest.approx([0.0, 0.24, 0.481716], abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("system", "name", "params", "tally"),
    [
        ("dice_pool_7", "morality", {"morality": 7, "infraction": 5}, "derangements_mean"),
        ("percentile", "skill-growth", {"skill": 40, "uses": 1}, "improvements"),
        ("middle_3d10", "arcane", {"uses": 1, "level": "major"}, "maddened_mean"),
    ],
)
def test_tally_columns_monte_carlo_agrees_with_exact(system, name, params, tally):
    """``--method both``: the tally's exact and Monte Carlo means side by side, with the
    MC standard error and z. The MC mean of n characters lies within 5 SE of the exact one
    (fixed seed; 5σ so a correct kernel fails about once in 1.7 million), + 1/n for a
    tally whose SE is 0 because every character happened to have the same count."""
    n = 4000
    stats = camp.run(system, name, params, sessions=6, method="both", trials=n, seed=7)
    t = camp.table(stats, "summary")
    for col in (f"{tally}_exact", f"{tally}_mc", f"se_{tally}", f"z_{tally}"):
        assert col in t.columns
    diff = (t[f"{tally}_mc"] - t[f"{tally}_exact"]).abs()
    assert (diff <= 5 * t[f"se_{tally}"] + 1 / n).all()
    assert t[f"z_{tally}"].abs().max() < 5
    assert t[f"se_{tally}"].iloc[1:].gt(0).all()
    mc = camp.summary_table(stats["mc"])
    assert mc[f"se_{tally}"].tolist() == pytest.approx(stats["mc"].extra[tally + "_se"].tolist())


def test_cli_morality_derangements_column(capsys):
    code, out, _ = run(
        capsys,
        "campaign",
        "dice_pool_7",
        "morality",
        "--sessions",
        "1",
        "--method",
        "both",
        "--trials",
        "2000",
        "--seed",
        "3",
    )
    assert code == 0
    t = pd.read_csv(io.StringIO(out))
    assert t["derangements_mean_exact"][1] == pytest.approx(0.216 * 0.6**6)
    assert {"derangements_mean_mc", "se_derangements_mean", "z_derangements_mean"} <= set(t.columns)
