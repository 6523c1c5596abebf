"""rpg-balance sensitivity: which knobs move each guardrail (Sobol' indices, Morris).

Oracles: the variance decomposition of functions whose indices are known in closed form;
a guardrail file built so the answer is known (a check moved by one knob, a duel by
another, a variant touching neither); the audit's own one-at-a-time measurements (never
through :mod:`analysis.workflow.sensitivity`) for the shipped knobs' ranking; SALib's
sampled estimate against the exact decomposition.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.workflow import audit, tune
from analysis.workflow.audit.edits import Edit
from analysis.workflow.sensitivity import exact_indices, level_of, sensitivity
from cli.main import main

ROOT = Path(__file__).resolve().parents[1]

# The hard dice_pool_6 check moves with its pool only; the even middle_3d10 duel's length
# with both fighters' Vigor only (B9); what happens to the fallen after the fight (the
# aftermath variant) changes the duel's entry but not its length; a spare dice_pool_6
# duel no guardrail measures carries a variant that touches neither.
KNOWN = """
name = "known answer"
seed = 1

[[fights]]
name = "even_m3"
system = "middle_3d10"
a = "competent"
b = "competent"

[[fights]]
name = "spare_dp6"
system = "dice_pool_6"
a = "competent_swordsman"
b = "competent_swordsman"

[[checks]]
name = "hard_dp6"
system = "dice_pool_6"
axes = { pool = [8], difficulty = [5] }

[[guardrails]]
name = "m3 duel length"
fight = "even_m3"
metric = "rounds_mean"
min = 2

[[guardrails]]
name = "dp6 hard task"
check = "hard_dp6"
metric = "p_success"
min = 0.5

[tune]
[[tune.knobs]]
knob = "hard_dp6:pool"
min = 6
max = 10

[[tune.knobs]]
knob = "even_m3:both.vigor"
min = 3
max = 6

[[tune.knobs]]
knob = "even_m3:variant.aftermath"
values = ["leave", "finish"]

[[tune.knobs]]
knob = "spare_dp6:variant.aftermath"
values = ["leave", "finish"]
"""


@pytest.fixture(scope="module")
def known(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sens") / "known.toml"
    path.write_text(KNOWN)
    return path


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def _index(table: pd.DataFrame, guardrail: str, knob: str, col: str) -> float:
    row = table[(table["guardrail"] == guardrail) & (table["knob"] == knob)]
    assert len(row) == 1, (guardrail, knob)
    return float(row[col].iloc[0])


# --------------------------------------------------------------------------- the decomposition


def test_exact_indices_of_an_additive_function():
    """Y = X1 + 2 X2 with X1, X2 uniform on {0, 1, 2} and {0, 1}: Var X1 = 2/3, Var 2X2 =
    1, so S1 = ST = (2/3) / (5/3) = 0.4 and 0.6 (no interaction)."""
    x1, x2 = np.meshgrid([0, 1, 2], [0, 1], indexing="ij")
    s1, st = exact_indices(x1 + 2 * x2)
    assert s1 == pytest.approx([0.4, 0.6])
    assert st == pytest.approx([0.4, 0.6])


def test_exact_indices_of_a_pure_interaction():
    """Y = X1·X2 with X1, X2 uniform on {−1, 1}: every first-order index is 0, every
    total index 1 (E[Y | Xi] = 0; Y flips with either)."""
    x1, x2 = np.meshgrid([-1, 1], [-1, 1], indexing="ij")
    s1, st = exact_indices(x1 * x2)
    assert s1 == pytest.approx([0.0, 0.0])
    assert st == pytest.approx([1.0, 1.0])


def test_a_constant_has_no_sensitive_knob():
    s1, st = exact_indices(np.full((3, 4), 0.25))
    assert (s1 == 0).all()
    assert (st == 0).all()


def test_levels_are_equally_likely():
    u = (np.arange(10_000) + 0.5) / 10_000
    counts = np.bincount(level_of(u, 3), minlength=3)
    assert counts.min() >= 3_333
    assert counts.max() <= 3_334
    assert level_of(np.array([1.0]), 3)[0] == 2


# --------------------------------------------------------------------------- the known file


def test_the_known_file_gives_the_known_answer(known):
    """Pool alone moves the check (ST ≈ 1), Vigor alone the duel (ST ≈ 1); the aftermath
    of the measured duel is sampled but moves nothing (≈ 0); the spare duel's variant
    touches neither and is reported 0 without a sample."""
    r = sensitivity(tune.load_tune(known))
    t = r.table
    assert _index(t, "dp6 hard task", "hard_dp6:pool", "ST") == pytest.approx(1.0)
    assert _index(t, "dp6 hard task", "hard_dp6:pool", "S1") == pytest.approx(1.0)
    assert _index(t, "m3 duel length", "even_m3:both.vigor", "ST") == pytest.approx(1.0, abs=1e-9)
    assert _index(t, "m3 duel length", "even_m3:variant.aftermath", "ST") == pytest.approx(
        0.0, abs=1e-9
    )
    for g in ("dp6 hard task", "m3 duel length"):
        assert _index(t, g, "spare_dp6:variant.aftermath", "ST") == 0.0
    assert _index(t, "dp6 hard task", "even_m3:both.vigor", "ST") == 0.0
    # the check: 5 pool levels, nothing else touches it; the duel: 4 Vigor × 2 aftermaths
    assert set(t.loc[t["guardrail"] == "dp6 hard task", "evaluations"]) == {5}
    assert set(t.loc[t["guardrail"] == "m3 duel length", "evaluations"]) == {8}


def test_the_known_file_from_the_command_line(known, tmp_path):
    code, out, err = _cli("sensitivity", known, "--columns", "guardrail,knob,ST")
    assert code == 0, err
    t = pd.read_csv(io.StringIO(out))
    assert list(t.columns) == ["guardrail", "knob", "ST"]
    assert _index(t, "dp6 hard task", "hard_dp6:pool", "ST") == pytest.approx(1.0)
    said = err.splitlines()
    line = next(s for s in said if s.startswith("m3 duel length:"))
    assert "Vigor (B9) of even_m3 (ST 1.00)" in line
    assert "the aftermath policy (Lethality outcomes) of even_m3 hardly matters" in line
    assert "spare_dp6" not in line
    assert f"rpg-balance sensitivity {known}" in err


# --------------------------------------------------------------------------- sampling


def test_salib_sampling_agrees_with_the_exact_decomposition(known):
    """Two knobs moving one check with an interaction (the pool and, over the rules'
    table, the difficulty held): the Saltelli estimate lies within its bootstrap
    interval (plus a small allowance) of the exact indices on the same levels."""
    p = tune.load_tune(known)
    exact = sensitivity(p, method="exact").table
    sampled = sensitivity(p, method="sobol", samples=512, seed=2).table
    for g, knob in (("dp6 hard task", "hard_dp6:pool"), ("m3 duel length", "even_m3:both.vigor")):
        for col in ("S1", "ST"):
            e, s = _index(exact, g, knob, col), _index(sampled, g, knob, col)
            conf = _index(sampled, g, knob, f"{col}_conf")
            assert abs(s - e) <= conf + 0.05, (g, knob, col, e, s, conf)


def test_same_seed_same_table(known):
    p = tune.load_tune(known)
    a = sensitivity(p, method="sobol", samples=64, seed=5).table
    b = sensitivity(p, method="sobol", samples=64, seed=5).table
    pd.testing.assert_frame_equal(a, b)


def test_morris_screens_the_moving_knob_first(known):
    t = sensitivity(tune.load_tune(known), method="morris", samples=10, seed=1).table
    rows = t[t["guardrail"] == "m3 duel length"].set_index("knob")
    assert rows.loc["even_m3:both.vigor", "mu_star"] > 0.1
    assert rows.loc["even_m3:variant.aftermath", "mu_star"] == pytest.approx(0.0, abs=1e-9)


# --------------------------------------------------------------------------- the shipped knobs


@pytest.mark.slow
@pytest.mark.parametrize(
    ("file", "knobs", "guardrail", "names"),
    [
        # the default report's knobs, dice_pool_6's even duel: additive (S1 ≈ ST)
        (
            "analysis/data/guardrails.toml",
            "analysis/data/sensitivity.toml",
            "even duel length (dice_pool_6)",
            ("dice_pool_6:rules.health.track.base", "dice_pool_6:variant.threshold"),
        ),
        # scenarios/tune_rules.toml, the armour against a shooter: the pistol's bonus and the
        # armour's ballistic rating
        (
            "scenarios/tune_rules.toml",
            None,
            "heaviest armour against a shooter (dice_pool_7)",
            (
                "dice_pool_7:rules.armour.heavy_archaic.ballistic",
                "dice_pool_7:rules.weapon.light_ranged.bonus",
            ),
        ),
    ],
)
def test_ranking_agrees_with_one_at_a_time(file, knobs, guardrail, names):
    """The knob whose one-at-a-time range (the audit's own measurements, each knob over
    its levels with the others at the file's values) is larger has the larger total
    index."""
    from analysis.workflow.sensitivity import load_problem

    path = ROOT / file
    systems = ("dice_pool_6",) if knobs else None
    p = load_problem(path, ROOT / knobs if knobs else None, systems=systems)
    t = sensitivity(p).table
    scs = audit.load_guardrails([path])
    spans = {}
    for k in p.knobs:
        if k.name not in names:
            continue
        values = []
        for level in k.levels:
            edits = [] if level == k.current else [Edit(k.target, k.knob, level)]
            table = audit.evaluate(scs, suggestions=False, progress=False, edits=edits)
            values.append(float(table.loc[table["guardrail"] == guardrail, "value"].iloc[0]))
        spans[k.name] = max(values) - min(values)
    assert set(spans) == set(names)
    order_oat = sorted(spans, key=spans.get)
    order_st = sorted(spans, key=lambda k: _index(t, guardrail, k, "ST"))
    assert order_oat == order_st, (spans, order_st)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--method", "sobol", "--samples", "48"], "--samples: 48 is not a power of two"),
        (["--method", "nope"], "--method: 'nope' is not a method"),
        (["--method", "morris", "--samples", "2"], "--samples: 2 Morris trajectories"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(known, extra, needle, capsys):
    code = main(["sensitivity", str(known), *extra])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert needle in err
    assert "\n" not in err
    assert "Traceback" not in err


def test_bad_range_is_one_line_exit_2(known, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        KNOWN.replace(
            'knob = "hard_dp6:pool"\nmin = 6\nmax = 10', 'knob = "hard_dp6:pool"\nmin = 6\nmax = 5'
        )
    )
    out = tmp_path / "t.csv"
    code = main(["sensitivity", str(bad), "-o", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "tune.knobs[0].max" in err
    assert "\n" not in err
    assert not out.exists()


def test_an_exact_grid_too_large_is_refused(known, monkeypatch, capsys):
    """A guardrail whose knobs have more level combinations than the exact limit (here
    lowered to 4: the duel's 4 Vigor levels × 2 aftermaths are 8) is refused."""
    from analysis.workflow import sensitivity as sens

    monkeypatch.setattr(sens, "EXACT_LIMIT", 4)
    code = main(["sensitivity", str(known), "--method", "exact"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "\n" not in err
    assert "m3 duel length: its knobs have 8 level combinations, over 4" in err
    assert "use --method sobol" in err


# --------------------------------------------------------------------------- the report page


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_report_page_matches_its_command(lang, tmp_path):
    """The default report's "What matters most" page: every total index of its table is
    the one its small-print command prints (run here), and the page speaks the
    report's language."""
    from reports.i18n import language
    from reports.sections.sensitivity import section_sensitivity
    from reports.settings import ReportSettings

    systems = ("middle_3d10", "dice_pool_6")
    with language(lang):
        sec = section_sensitivity(ReportSettings(systems=systems, lang=lang))
    assert sec.title == {"en": "What matters most", "pt-BR": "O que mais pesa"}[lang]
    cmd = sec.reading[0].small
    assert cmd == (
        "rpg-balance sensitivity analysis/data/guardrails.toml "
        "--knobs analysis/data/sensitivity.toml"
    )
    # the command, with the report's systems: the file's knobs of other systems are
    # refused by their guardrail-less entries, so the page's table is compared row by row
    code, out, err = _cli(
        "sensitivity",
        ROOT / "analysis/data/guardrails.toml",
        "--knobs",
        ROOT / "analysis/data/sensitivity.toml",
    )
    assert code == 0, err
    full = pd.read_csv(io.StringIO(out))
    table = sec.blocks[0].full
    mine = table[table["touches"]]
    assert len(mine) >= 4
    for r in mine.itertuples(index=False):
        assert _index(full, r.guardrail, r.knob, "ST") == pytest.approx(r.ST, abs=1e-9)
    said = [str(s) for s in sec.reading[1:]]
    moved = {"en": "depends mostly on", "pt-BR": "depende sobretudo destes ajustes"}[lang]
    assert any(moved in s and "(B9)" in s for s in said)
    # a duel guardrail's sentence names its fighters, never "fighter A"
    even = {
        "en": "the mean length of a duel of a competent fighter (knife) against an "
        "equal depends mostly on",
        "pt-BR": "a duração média de um duelo de um lutador competente (faca) contra um igual",
    }[lang]
    assert any(even in s for s in said), said
    assert not any("fighter A" in s or "lutador A" in s for s in said)


@pytest.mark.slow
def test_same_table_on_two_dask_workers(known):
    """Measurements do not depend on where they run: the Saltelli table on two local
    Dask worker processes is the in-process one."""
    from analysis.workflow.sweep import Cluster

    p = tune.load_tune(known)
    here = sensitivity(p, method="sobol", samples=16, seed=3).table
    there = sensitivity(p, method="sobol", samples=16, seed=3, cluster=Cluster(2)).table
    pd.testing.assert_frame_equal(here, there)


def test_plot_and_second_order_pairs(known, tmp_path):
    """--plot draws one bar chart per guardrail a knob touches; --second-order --pairs
    writes S2 for each pair of knobs touching a guardrail (the duel's Vigor × aftermath:
    aftermath moves nothing, so the pair's S2 is about 0)."""
    from analysis.workflow.sensitivity import sensitivity_figure

    plot, pairs = tmp_path / "s.png", tmp_path / "pairs.csv"
    code, _out, err = _cli(
        "sensitivity",
        known,
        "--method",
        "sobol",
        "--samples",
        "64",
        "--second-order",
        "--pairs",
        pairs,
        "--plot",
        plot,
    )
    assert code == 0, err
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = sensitivity_figure(sensitivity(tune.load_tune(known), method="sobol", samples=64))
    assert [ax.get_title() for ax in fig.axes] == ["m3 duel length", "dp6 hard task"]
    t = pd.read_csv(pairs)
    row = t[(t["knob"] == "even_m3:both.vigor") & (t["other"] == "even_m3:variant.aftermath")]
    assert len(row) == 1
    assert abs(float(row["S2"].iloc[0])) <= float(row["S2_conf"].iloc[0]) + 0.05


def test_a_monte_carlo_figure_widens_the_interval(known, tmp_path):
    """The duel simulated (exact = false) instead of solved: each figure has an SE, so
    the exact grid's intervals are no longer 0, yet the ranking stays (Vigor ≈ 1, the
    aftermath ≈ 0 within its interval); the exact check keeps a zero interval."""
    mc = tmp_path / "mc.toml"
    mc.write_text(
        KNOWN.replace(
            'name = "even_m3"\nsystem = "middle_3d10"',
            'name = "even_m3"\nsystem = "middle_3d10"\nexact = false',
        )
    )
    t = sensitivity(tune.load_tune(mc), max_trials=4_000).table
    vigor = t[(t["guardrail"] == "m3 duel length") & (t["knob"] == "even_m3:both.vigor")]
    after = t[(t["guardrail"] == "m3 duel length") & (t["knob"] == "even_m3:variant.aftermath")]
    assert float(vigor["ST_conf"].iloc[0]) > 0
    assert float(vigor["ST"].iloc[0]) > 0.9
    assert abs(float(after["ST"].iloc[0])) <= float(after["ST_conf"].iloc[0]) + 0.02
    assert _index(t, "dp6 hard task", "hard_dp6:pool", "ST_conf") == 0.0


def test_a_knob_file_with_nothing_for_the_systems_is_one_line():
    """The report of a plug-in alone has no default knob: load_problem says so in one
    line (and the report leaves the page out, :func:`default_knob_systems`)."""
    from analysis.workflow.audit import DATA
    from analysis.workflow.sensitivity import DEFAULT_KNOBS, load_problem
    from engines.errors import InputError
    from reports.sections.sensitivity import default_knob_systems

    with pytest.raises(
        InputError,
        match=r"sensitivity\.toml: no knob is about the "
        r"systems nosuch",
    ):
        load_problem(DATA, DEFAULT_KNOBS, systems=("nosuch",))
    assert "nosuch" not in default_knob_systems()
