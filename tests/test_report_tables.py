"""The report's tables in words: column headers and identifiers read as words, chances
as percentages in the language's style, compact printed views of large grids, group
fights with named sides and fates of the fallen, whole ticks on whole-number axes, and
figures that say something (a campaign state of two values is not a filled rectangle).

No report is built here (the browser tests of tests/test_report.py read a built one):
each test renders the few tables or figures it needs.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from reports import i18n
from reports.labels import COLUMNS, HEADERS, cell_words, header
from reports.render_html import printed, prose, render_html, table_rows
from reports.settings import ReportSettings
from reports.structure import Caption, Report, Section, Table

FOUR_DECIMALS = re.compile(r"^[01][.,]\d{4}$")


def _grid(rows: int = 21, cols: int = 10) -> pd.DataFrame:
    """A success-curve-like grid: pool 0..rows-1 down, difficulty 1..cols across, the
    chance of at least d successes (made up, monotone, in [0, 1])."""
    data = {"pool": list(range(rows))}
    for d in range(1, cols + 1):
        data[str(d)] = [min(1.0, 0.04 * p / d) for p in range(rows)]
    return pd.DataFrame(data)


# ---------------------------------------------------------------- percentages


def test_probability_columns_print_as_percentages_in_both_languages():
    """0.64 reads "64.0%" (en) and "64,0 %" (pt-BR); 0 and 1 "0%" and "100%"; a chance
    below 0.05 % "<0.1%" (never a 0.0% that is not zero); an explicit format and a
    column with values above 1 stay numbers."""
    frame = pd.DataFrame(
        {
            "system": ["a", "b", "c", "d"],
            "p": [0.64, 0.0, 1.0, 2.1e-06],
            "rounds": [2.9, 3.1, 1.0, 0.5],
            "sd": [0.5, 0.25, 0.1, 0.9],
        }
    )
    t = Table("t", "T", frame, Caption(""), index=("system",), formats={"sd": ".2f"})
    assert t.percent_columns == {"p"}
    shown = {r[0][1]: {c: text for c, text, _full in r} for r in table_rows(t)}
    assert shown["a"]["p"] == "64.0%"
    assert shown["b"]["p"] == "0%"
    assert shown["c"]["p"] == "100%"
    assert shown["d"]["p"] == "<0.1%"
    assert shown["a"]["rounds"] == "2.9000"  # not a probability: values above 1
    assert shown["a"]["sd"] == "0.50"  # its own format
    pt = {r[0][1]: {c: text for c, text, _full in r} for r in table_rows(t, "pt-BR")}
    assert re.fullmatch(r"64,0\s?%", pt["a"]["p"].replace("\u00a0", " ")), pt["a"]["p"]
    # the full precision stays machine-readable beside the shown text
    assert next(full for c, _t, full in table_rows(t)[0] if c == "p") == repr(0.64)


def test_no_probability_cell_prints_four_decimals():
    """A grid of chances (default format) shows no "0.dddd" cell in either language,
    and an explicit ``percent=()`` keeps the old numbers (the API stays compatible)."""
    t = Table("g", "G", _grid(), Caption(""), index=("pool",))
    for lang in ("en", "pt-BR"):
        cells = [text for row in table_rows(t, lang) for c, text, _f in row if c != "pool"]
        assert cells
        assert not [c for c in cells if FOUR_DECIMALS.match(c)], lang
        assert all(c.endswith("%") for c in cells)
    old = Table("g", "G", _grid(), Caption(""), index=("pool",), percent=())
    assert all(
        FOUR_DECIMALS.match(text) for row in table_rows(old) for c, text, _f in row if c != "pool"
    )


# ---------------------------------------------------------------- words


def test_every_column_name_reads_as_words():
    """No header of the report's columns shows a snake_case identifier, in English or
    pt-BR (``rounds_mean`` → "mean rounds", ``p_upset_adjacent`` → "upset, one rung
    apart"); the CSV keeps the machine names (the frame is unchanged)."""
    for lang in ("en", "pt-BR"):
        left = [c for c in COLUMNS if re.search(r"[a-z]_[a-z0-9]", header(c, lang))]
        assert left == [], (lang, left)
    assert header("rounds_mean") == "mean rounds"
    assert header("p_upset_adjacent") == "upset, one rung apart"
    assert set(HEADERS) >= {"rounds_mean", "p_side0", "mean_delta_pp", "p_upset_adjacent"}


def test_identifiers_in_cells_read_as_words_but_ids_and_commands_stay():
    """Gear and tactic ids become words (the system's own term when it names them);
    system ids, commands, paths and ``metric:argument`` names stay as they are."""
    assert "_" not in cell_words("attack_attack")
    assert "_" not in cell_words("heavy_archaic")
    assert "_" not in cell_words("competent_swordsman (weapon=light_melee)")
    assert cell_words("rounds_mean") == "mean rounds"
    assert cell_words("even duel length (dice_pool_7)") == "even duel length (dice_pool_7)"
    for kept in (
        "rpg-balance duel dice_pool_7 a b --columns p_side0",
        "analysis/data/guardrails.toml",
        "p_rounds_between:3:5",
        "middle_3d10",
    ):
        assert cell_words(kept) == kept
    assert "_" not in cell_words("heavy_archaic", "pt-BR")


def test_markdown_code_spans_render_as_code():
    """A sentence's `code span` is set as <code>, never shown with its backticks, and
    the rest of the sentence is escaped."""
    html = str(prose("edit the file; `rpg-balance audit` checks <them>"))
    assert "`" not in html
    assert "<code>rpg-balance audit</code>" in html
    assert "&lt;them&gt;" in html


# ---------------------------------------------------------------- compact printed views


def test_large_grid_prints_compact_and_keeps_the_full_grid_on_screen():
    """A 21 × 10 grid prints at most 12 rows and 8 value columns at an even step, its
    first and last row and column kept; the page holds the full grid (screen-only) and
    the compact one (print-only), the CSV the full frame. A table whose rows are names
    (not a grid) prints whole."""
    t = Table("g", "G", _grid(), Caption("c"), index=("pool",))
    small = printed(t)
    assert small is not None
    assert len(small.frame) <= 12
    assert len(small.frame.columns) - 1 <= 8
    pools = list(small.frame["pool"])
    assert pools[0] == 0
    assert pools[-1] == 20
    assert len(set(np.diff(pools))) == 1  # an even step: 0, 2, … 20
    assert list(small.frame.columns)[1] == "1"
    assert list(small.frame.columns)[-1] == "10"
    named = pd.DataFrame({"weapon": [f"w{i}" for i in range(41)], "p": np.linspace(0, 1, 41)})
    assert printed(Table("n", "N", named, Caption(""), index=("weapon",))) is None
    assert printed(Table("g", "G", _grid(), Caption(""), index=("pool",), compact=False)) is None
    html = render_html(
        Report("r", [Section("s", "S", [], [t])]), ReportSettings(systems=("dice_pool_7",))
    )
    assert re.search(r'<table id="g" class="data screen-only"', html)
    assert re.search(r'<table id="g-print" class="data print-only', html)
    assert "The printed page shows 11 of the 21 rows" in html


def test_printed_false_leaves_a_table_out_of_the_pdf_only():
    t = Table("x", "X", _grid(5, 3), Caption(""), index=("pool",), printed=False)
    html = render_html(
        Report("r", [Section("s", "S", [], [t])]), ReportSettings(systems=("dice_pool_7",))
    )
    assert 'class="table-block screen-only" id="x-block"' in html


# ---------------------------------------------------------------- group fights


def test_group_sides_are_named_in_words():
    from reports.sections.combat_groups import side_name

    assert side_name(["novice"] * 3) == "three novices"
    assert side_name(["expert"]) == "one expert"
    assert side_name(["competent", "competent"]) == "two competent fighters"
    with i18n.language("pt-BR"):
        assert side_name(["novice"] * 3) == "três novatos"
        assert side_name(["expert"]) == "um especialista"


def test_fates_of_the_fallen_sum_to_one_weighted_by_side_size():
    """Three novices (each dead 10 %, dying 20 %, out 10 %) against one expert (dead
    40 %, dying 0 %, out 20 %): 0.3 + 0.4 = 0.7 dead, 0.6 dying, 0.3 + 0.2 = 0.5 out of
    1.8 expected fallen → 7/18, 6/18, 5/18."""
    from reports.sections.combat_groups import fallen_fates

    row = {
        "p_side0_dead": 0.1,
        "p_side0_dying": 0.2,
        "p_side0_out": 0.1,
        "p_side1_dead": 0.4,
        "p_side1_dying": 0.0,
        "p_side1_out": 0.2,
    }
    fates = fallen_fates(row, 3, 1)
    assert fates == pytest.approx({"dead": 7 / 18, "dying": 6 / 18, "out": 5 / 18})
    assert sum(fates.values()) == pytest.approx(1.0)


# ---------------------------------------------------------------- figures


def _tick_values(axis) -> list[float]:
    lo, hi = sorted(axis.get_view_interval())
    return [t for t in axis.get_majorticklocs() if lo - 1e-9 <= t <= hi + 1e-9]


def test_whole_number_axes_get_whole_ticks():
    """A pool axis of 0..3 (matplotlib's default would tick 0.5 steps) gets whole ticks;
    a probability axis keeps its fractional ticks; ticks set by hand stay."""
    from analysis.checks.plots import new_figure, whole_ticks

    fig = new_figure(4, 3)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2, 3], [0.1, 0.35, 0.6, 0.8])
    fig.draw_without_rendering()
    assert any(t != int(t) for t in _tick_values(ax.xaxis))  # the default: 0.5 steps
    whole_ticks(fig)
    fig.draw_without_rendering()
    assert all(t == int(t) for t in _tick_values(ax.xaxis))
    assert any(t != int(t) for t in _tick_values(ax.yaxis))  # chances stay fractional
    fig2 = new_figure(4, 3)
    ax2 = fig2.add_subplot()
    ax2.plot([0, 1, 2], [1, 2, 3])
    ax2.set_xticks([0, 0.5, 2])
    whole_ticks(fig2)
    assert list(ax2.get_xticks()) == [0, 0.5, 2]


def test_campaign_fan_chart_has_whole_session_and_state_ticks():
    from analysis.campaign import fan_chart, run

    st = run(
        "dice_pool_7", "morality", {"morality": 7, "infraction": 5, "per_session": 1}, sessions=3
    )["exact"]
    fig = fan_chart(st)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    assert all(t == int(t) for t in _tick_values(ax.xaxis))
    assert all(t == int(t) for t in _tick_values(ax.yaxis))


def test_a_two_valued_campaign_state_is_drawn_as_shares_not_a_rectangle():
    """d20 hero points with one point and three fights a session: each character holds
    0 or 1 point, so the 10–90 % band spans the whole range (a filled rectangle); the
    report draws the share of characters at 0 and at 1 instead. A state of many values
    (Morality 7 falling) keeps its fan chart."""
    from analysis.campaign import run
    from reports.sections.campaign import few_states

    hero = run("d20_degrees", "hero-points", {"points": 1, "fights": 3}, sessions=20)["exact"]
    assert few_states(hero) == [0, 1]
    morality = run(
        "dice_pool_7", "morality", {"morality": 7, "infraction": 5, "per_session": 1}, sessions=30
    )["exact"]
    assert few_states(morality) == []


def test_a_state_that_settles_is_said_in_words_not_drawn_flat():
    """The d20 hero points hold the same shares from session 1 on: the report gives the
    shares in a sentence (summing to 100 %) and draws no chart; Morality keeps falling,
    so it keeps its chart."""
    from analysis.campaign import run
    from engines.campaign import mechanic
    from reports.sections.campaign import settled_reading, settles

    hero = run("d20_degrees", "hero-points", {"points": 1, "fights": 3}, sessions=20)["exact"]
    values = settles(hero)
    assert values == [0, 1]
    sentence = settled_reading(hero, mechanic("d20_degrees", "hero-points"), values)
    shares = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?)% at", sentence)]
    assert len(shares) == 2
    assert sum(shares) == pytest.approx(100, abs=0.11)
    morality = run(
        "dice_pool_7", "morality", {"morality": 7, "infraction": 5, "per_session": 1}, sessions=30
    )["exact"]
    assert settles(morality) == []


def test_a_share_past_one_by_rounding_still_reads_as_a_percentage():
    """A fate share computed as a ratio can come out 1 + 2e-16: its column is still a
    column of chances, and the cell reads "100%", not ">99.9%" or "1.0000"."""
    frame = pd.DataFrame({"weapon": ["a", "b"], "out": [1 + 2e-16, 0.25]})
    t = Table("t", "T", frame, Caption(""), index=("weapon",))
    assert t.percent_columns == {"out"}
    assert [r[1][1] for r in table_rows(t)] == ["100%", "25.0%"]
