"""The report as a reader gets it: built by the CLI, opened in chromium, printed to PDF.

A small report (three systems, few trials) is built once into a temporary folder with
``rpg-balance report``; the tests then read it the way a person would: the page opens in
headless chromium without console errors, every figure loads, the numbers in the
tables are the analysis frames' numbers (and the hand-worked values of the rules: A1,
A-g1, D1, E1–E3), the PDF has real pages with visible figures, and a failed build
leaves the previous report untouched.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis.checks import curves as checks
from cli.main import main
from engines.errors import InputError
from engines.variants import describe
from reports import sections as S
from reports.build import write_report
from reports.sections.assumptions import show_value
from reports.sections.common import curves_cached
from reports.settings import ReportSettings, trials_for_se

sys.path.insert(0, str(Path(__file__).parent))
from browser_page import Browser, require_tool

# pytest-xdist (tasks.py test: --dist loadscope) keeps this module on one worker;
# the report is built once and opened in one chromium (session fixtures).

SYSTEMS = ("dice_pool_7", "percentile", "d20_degrees")
TRIALS = 4000
SEED = 7
COMBAT_TRIALS = 400  # fights per group fight: SE of a 50/50 side = 0.025
SHOTS = Path(__file__).resolve().parent.parent / "reports" / "out" / "test-shots"


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    rc = main(
        [
            "report",
            "--systems",
            ",".join(SYSTEMS),
            "--trials",
            str(TRIALS),
            "--seed",
            str(SEED),
            "--combat-trials",
            str(COMBAT_TRIALS),
            "-o",
            str(out),
            "--quiet",
        ]
    )
    assert rc == 0
    return out


@pytest.fixture(scope="session")
def settings(built):
    return ReportSettings(
        systems=SYSTEMS, trials=TRIALS, seed=SEED, out=built, combat_trials=COMBAT_TRIALS
    )


@pytest.fixture(scope="session")
def page(built, tmp_path_factory):
    """The report opened in chromium: console errors, images, table cells."""
    profile = tmp_path_factory.mktemp("chromium-profile")
    with Browser(profile) as b:
        b.open((built / "report.html").as_uri())
        images = b.evaluate(
            "Array.from(document.images).map(i => "
            "({src: i.src.slice(0, 30), complete: i.complete, "
            "w: i.naturalWidth, h: i.naturalHeight}))"
        )
        tables = b.evaluate("""Object.fromEntries(Array.from(document.querySelectorAll(
            'table.data')).map(t => [t.id, {
              head: Array.from(t.tHead.rows[t.tHead.rows.length - 1].cells)
                .map(c => c.textContent.trim()),
              rows: Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c =>
                ({text: c.textContent.trim(), value: c.dataset.value ?? null})))}]))""")
        combat_images = b.evaluate("""Array.from(document.querySelectorAll(
            'main section[id^="combat-"] img')).map(i => ({section: i.closest('section').id,
              complete: i.complete, w: i.naturalWidth, h: i.naturalHeight}))""")
        sections = b.evaluate(
            "Array.from(document.querySelectorAll('main section'))"
            ".map(s => [s.id, s.className, s.innerText.slice(0, 400)])"
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = b.screenshot(SHOTS / "report-top.png")
        b.evaluate("document.getElementById('mc-agreement').scrollIntoView()")
        b.screenshot(SHOTS / "report-agreement.png")
        errors = list(b.errors)
    return {
        "images": images,
        "tables": tables,
        "sections": sections,
        "errors": errors,
        "shot": shot,
        "combat_images": combat_images,
    }


# ---------------------------------------------------------------- settings / CLI


def test_system_tools_present():
    """The end-to-end checks need chromium and poppler; missing tools FAIL, never skip."""
    for tool in ("chromium", "pdftoppm", "pdfimages"):
        assert Path(require_tool(tool)).exists()


def test_out_must_be_a_folder(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("keep me")
    assert (
        main(
            [
                "report",
                "--systems",
                "percentile",
                "--trials",
                "200",
                "--out",
                str(target),
                "--quiet",
            ]
        )
        == 2
    )
    assert "not a folder" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_trials_for_se_closed_form():
    # sqrt(0.25 / n) <= se  <=>  n >= 0.25 / se^2 : se 0.01 -> 2500, se 0.001 -> 250000
    assert trials_for_se(0.01) == 2500
    assert trials_for_se(0.001) == 250_000
    assert math.sqrt(0.25 / trials_for_se(0.003)) <= 0.003
    with pytest.raises(InputError, match="--se"):
        trials_for_se(0.7)


def test_settings_reject_unknown_system():
    with pytest.raises(InputError, match="unknown system 'dice_pool_9'"):
        ReportSettings(systems=("dice_pool_9",))


def test_cli_bad_input_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", "--systems", "nope", "--out", str(tmp_path)]) == 2
    assert main(["report", "--trials", "10", "--se", "0.01", "--out", str(tmp_path)]) == 2
    assert main(["report", "--variant", "dice_pool_7:again=3", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3
    assert all(line.startswith("error:") for line in err)
    assert "dice_pool_7" in err[2]
    assert "again" in err[2]
    assert list(tmp_path.iterdir()) == []  # no partial output


def test_settings_reject_unknown_aftermath():
    with pytest.raises(InputError, match="--aftermath: 'bury' is not allowed"):
        ReportSettings(aftermath="bury")


def test_cli_aftermath_reaches_settings_and_command(tmp_path, capsys):
    from cli.main import build_parser
    from cli.report import settings_from_args

    parse = build_parser().parse_args
    assert settings_from_args(parse(["report"])).aftermath == "leave"
    s = settings_from_args(parse(["report", "--aftermath", "first_aid"]))
    assert s.aftermath == "first_aid"
    assert "--aftermath first_aid" in s.command
    assert main(["report", "--aftermath", "bury", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "--aftermath" in err[0]
    assert "bury" in err[0]
    assert list(tmp_path.iterdir()) == []


def _fates_frame(rows):
    import pandas as pd

    cols = ("system", "method", "p_loser_dead", "p_loser_dying", "p_loser_out")
    frame = pd.DataFrame([dict(zip(cols, r, strict=True)) for r in rows])
    for fate in ("dead", "dying", "out"):
        frame[f"se_loser_{fate}"] = 0.0
    frame["aftermath"] = "leave"
    return frame.set_index("system")


def test_fate_reading_comes_from_the_numbers():
    """RULES.md "Lethality outcomes": which systems never leave the loser dead is read
    from the columns, not written in: here middle_3d10 does kill (10%) and is not
    listed; percentile leaves half its losers dying."""
    frame = _fates_frame(
        [
            ("dice_pool_7", "exact", 0.2, 0.0, 0.8),
            ("middle_3d10", "exact", 0.1, 0.3, 0.6),
            ("dice_pool_6", "exact", 0.0, 0.0, 1.0),
            ("percentile", "exact", 0.0, 0.5, 0.5),
            ("d20_degrees", "exact", 0.0, 0.0, 1.0),
        ]
    )
    text = S.fate_reading(frame)
    assert "(aftermath “leave” in every system)" in text
    assert "dice_pool_7 20.0% dead / 0.0% dying / 80.0% out" in text
    assert "The loser ends dead most often in dice_pool_7 (20.0%)" in text
    assert (
        "in dice_pool_6, percentile, d20_degrees the loser never ends dead (it is dying or out)"
    ) in text
    only_out = S.fate_reading(frame.drop(index="percentile"))
    assert "in dice_pool_6, d20_degrees the loser never ends dead (it is always out)" in only_out
    none = S.fate_reading(frame.assign(p_loser_dead=0.0))
    assert "In no system does the loser end dead under this policy" in none


def test_fate_reading_monte_carlo_rows_carry_two_se():
    frame = _fates_frame([("percentile", "mc", 0.25, 0.25, 0.5)])
    frame["se_loser_dead"] = 0.01
    assert "25.0% dead (± 2.0)" in S.fate_reading(frame)


def test_assumptions_name_the_aftermath_policy():
    small = ReportSettings(systems=("percentile",), trials=200)
    text = " ".join(S.section_assumptions(small).reading)
    assert "aftermath “leave” — no one helps the fallen" in text


def test_cli_se_sets_trials():
    from cli.main import build_parser
    from cli.report import settings_from_args

    args = build_parser().parse_args(["report", "--se", "0.002", "--systems", "percentile"])
    s = settings_from_args(args)
    assert s.trials == 62_500
    assert s.systems == ("percentile",)
    assert "--trials 62500" in s.command
    assert "--seed 20261129" in s.command


# ---------------------------------------------------------------- the HTML file


@pytest.mark.slow
def test_html_is_self_contained(built):
    html = (built / "report.html").read_text(encoding="utf-8")
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)
    assert refs, "no references at all?"
    external = [r for r in refs if not (r.startswith(("data:", "#")))]
    assert external == []
    assert not re.search(r"url\(\s*['\"]?(https?:|//)", html)
    assert "<script" not in html  # nothing to run, nothing to fetch
    assert html.count('src="data:image/png;base64,') >= len(SYSTEMS) + 1


@pytest.mark.slow
def test_page_has_no_console_errors_and_every_image_loads(page):
    assert page["errors"] == []
    assert len(page["images"]) >= len(SYSTEMS) + 1
    for img in page["images"]:
        assert img["complete"], img
        assert img["w"] > 0, img
        assert img["h"] > 0, img


@pytest.mark.slow
def test_screenshot_shows_content(page):
    from PIL import Image

    im = np.asarray(Image.open(page["shot"]).convert("L"), dtype=float)
    assert im.shape[0] > 500
    assert im.std() > 10


def _percent(p: float) -> str:
    """A probability as a table cell shows it: a percentage with one decimal, 0 and 1
    without, below 0.05 % "<0.1%" and above 99.95 % ">99.9%" (English)."""
    if p in (0.0, 1.0):
        return f"{100 * p:.0f}%"
    if p < 0.0005:
        return "<0.1%"
    if p > 0.9995:
        return ">99.9%"
    return f"{100 * p:.1f}%"


def _words(value) -> str:
    """A frame's label cell as the table shows it (identifiers in words)."""
    from reports.labels import cell_words

    return cell_words(str(value))


def _table(page, id_):
    t = page["tables"][id_]
    return t["head"], t["rows"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("system", "table_id", "row_axis", "col_axis", "fixed"),
    [
        ("dice_pool_7", "curves-dice_pool_7", "pool", "successes", {}),
        ("percentile", "curves-percentile-levels", "skill", "level", {"dice": 0}),
        ("d20_degrees", "curves-d20_degrees", "dc", "modifier", {"degree": 1}),
    ],
)
def test_table_numbers_equal_the_analysis_frames(page, system, table_id, row_axis, col_axis, fixed):
    exact = checks.success_curves(system, "exact")
    for key, value in fixed.items():
        exact = exact[exact[key] == value]
    lookup = {
        (str(r), str(c)): p
        for r, c, p in zip(exact[row_axis], exact[col_axis], exact["p"], strict=True)
    }
    head, rows = _table(page, table_id)
    assert head[0] == row_axis
    n = 0
    for row in rows:
        for col, cell in zip(head[1:], row[1:], strict=True):
            p = lookup[(row[0]["text"], col)]
            assert cell["text"] == _percent(p)
            assert float(cell["value"]) == p  # full precision, bit for bit
            n += 1
    assert n >= 20


@pytest.mark.slow
def test_tables_hold_hand_worked_values(page):
    """A1: one die succeeds on 7–10 (0.4); A-g1: chance die 10 only (0.1); D1: skill 60
    hard needs ≤ 30 (0.3); E1–E3: +0 vs DC 10 needs 10+ on d20 (0.55)."""
    head, rows = _table(page, "curves-dice_pool_7")
    by_pool = {r[0]["text"]: r for r in rows}
    k1 = head.index("1")
    assert by_pool["1"][k1]["text"] == "40.0%"
    assert by_pool["0"][k1]["text"] == "10.0%"
    head, rows = _table(page, "curves-percentile-levels")
    assert {r[0]["text"]: r for r in rows}["60"][head.index("hard")]["text"] == "30.0%"
    head, rows = _table(page, "curves-d20_degrees")
    assert {r[0]["text"]: r for r in rows}["10"][head.index("0")]["text"] == "55.0%"


@pytest.mark.slow
def test_mc_agreement_table_matches_frames_and_tolerance(page, settings):
    head, rows = _table(page, "mc-agreement")
    shown = {r[0]["text"]: dict(zip(head, r, strict=True)) for r in rows}
    assert set(shown) == set(SYSTEMS)
    for system in SYSTEMS:
        t = checks.success_curves(system, "both", trials=TRIALS, seed=settings.system_seed(system))
        assert float(shown[system]["max |z|"]["value"]) == float(t["z"].abs().max())
        # every MC cell within 5 standard errors + one count: |p_mc - p| <= 5 sqrt(p(1-p)/n) + 1/n
        tol = 5 * np.sqrt(t["p_exact"] * (1 - t["p_exact"]) / TRIALS) + 1 / TRIALS
        assert ((t["p_mc"] - t["p_exact"]).abs() <= tol).all()
        assert shown[system]["outside 5σ + 1/n"]["text"] == "0"


@pytest.mark.slow
def test_assumptions_show_every_gap_reading_with_rule_id(page, settings):
    """The page shows the code's reading of every gap of the check rules (A-g7 …) in
    words, one row per system and rule; the frame behind it (the CSV download) lists
    every variant with its rule id and default."""
    _head, rows = _table(page, "assumptions")
    shown = {(r[0]["text"], r[1]["text"]) for r in rows}
    frame = S.assumptions_frame(settings).set_index(["system", "variant"])
    for system in SYSTEMS:
        for row in describe(checks.variants_for(system)):
            assert frame.loc[(system, row["variant"]), "rule"] == row["rule"]
            assert frame.loc[(system, row["variant"]), "default"] == show_value(row["default"])
            if "-g" in row["rule"]:
                assert (_words(system), _words(row["rule"])) in shown
    assert (_words("dice_pool_7"), _words("A-g7")) in shown
    # 10-again (A1) is the rules text itself
    assert (_words("dice_pool_7"), _words("A1")) not in shown


@pytest.mark.slow
def test_provenance_names_seed_trials_and_command(page):
    _head, rows = _table(page, "provenance")
    items = {r[0]["text"]: r[1]["text"] for r in rows}
    assert items["seed"] == str(SEED)
    assert items["Monte Carlo trials per roll setting"] == f"{TRIALS:,}"
    assert items["largest standard error of a proportion"].startswith(
        f"{math.sqrt(0.25 / TRIALS):.5f}"
    )
    assert f"--trials {TRIALS} --seed {SEED}" in items["command to reproduce"]
    assert items["numpy"] == np.__version__
    assert float(items["build time (tables, figures, HTML)"].split()[0]) > 0


@pytest.mark.slow
def test_sections_have_plain_language_readings(page):
    by_id = {sid: (cls, text) for sid, cls, text in page["sections"]}
    for sid in ("success-curves", "mc-agreement", "outcomes", "assumptions", "provenance"):
        cls, text = by_id[sid]
        assert "available" in cls.split()
        assert "What this means for a designer" in text


@pytest.mark.slow
def test_an_analysis_error_stops_the_section(monkeypatch, settings):
    """A failing analysis is a real failure: the section raises, nothing is skipped."""
    from analysis.checks import opposed

    def opposed_table(*a, **k):
        raise RuntimeError("bug in the analysis")

    monkeypatch.setattr(opposed, "opposed_table", opposed_table)
    with pytest.raises(RuntimeError, match="bug in the analysis"):
        S.section_opposed(settings)


# ---------------------------------------------------------------- combat sections


def _cells(page, table_id: str, keys: tuple[str, ...]) -> dict:
    head, rows = _table(page, table_id)
    return {
        tuple(r[head.index(k)]["text"] for k in keys): dict(zip(head, r, strict=True)) for r in rows
    }


def _same_numbers(shown: dict, frame, keys: tuple[str, ...], columns: dict) -> int:
    """Every shown value cell equals the frame's number bit for bit (data-value is the
    full-precision repr); returns the count of cells compared."""
    n = 0
    for row in frame.to_dict("records"):
        cells = shown[tuple(_words(row[k]) if k != "system" else str(row[k]) for k in keys)]
        for col, header in columns.items():
            if header not in cells:
                continue
            assert float(cells[header]["value"]) == float(row[col]), (header, row)
            n += 1
    return n


@pytest.mark.slow
def test_combat_duel_table_equals_cross_combat_frame(page, settings):
    """The duels in the HTML are analysis.combat.cross_combat.cross_table's numbers (same
    settings: exact duels, round cap), system by system; and every row says exact/mc."""
    from analysis.combat import cross_combat

    frame = cross_combat.cross_table(
        method="exact",
        trials=settings.combat_trials,
        seed=settings.seed,
        round_cap=settings.round_cap,
        progress=False,
    )
    # the matchups that start apart are the distance section's
    frame = frame[
        frame["system"].isin(SYSTEMS)
        & (frame["distance"] == 0)
        & ~frame["matchup"].str.endswith("_0m")
    ]
    shown = _cells(page, "combat-duels", ("matchup", "system"))
    assert len(shown) == len(frame) == 2 * len(SYSTEMS)
    assert _same_numbers(shown, frame, ("matchup", "system"), S.DUEL_COLUMNS) >= 10 * len(frame)
    for (_mid, _system), cells in shown.items():
        assert cells["method"]["text"] in ("exact", "mc")
    # hand-worked oracle: a mirror duel is fair by symmetry, P(A wins) = P(B wins)
    for system in SYSTEMS:
        cells = shown[(_words("melee_equal"), system)]
        assert cells["A wins"]["text"] == cells["B wins"]["text"]


@pytest.mark.slow
def test_combat_group_table_equals_cross_combat_frame(page, settings):
    """Group fights (Monte Carlo) in the HTML are cross_combat.group_table's rows for the
    same trials and seed, one table per fight of at most 8 columns whose headers name
    the sides in words ("three novices win", "one expert wins"); the fates are those of
    the fighters who fell (both sides, weighted by side size: 3 novices, 1 expert), so
    dead + dying + out = 100 %. The 2v2 mirror fight is fair by symmetry: P(side 0 wins)
    lies within 5 SE + 1/n of 1/2 (the project's MC tolerance)."""
    from analysis.combat import cross_combat

    rows, _standing = cross_combat.group_table(
        trials=settings.combat_trials,
        seed=settings.seed,
        round_cap=settings.round_cap,
        progress=False,
    )
    rows = rows[rows["system"].isin(SYSTEMS)]
    sizes = {"2v2": (2, 2), "3v1": (3, 1)}
    wins = {
        "2v2": ("side A (two competent fighters) wins", "side B (two competent fighters) wins"),
        "3v1": ("three novices win", "one expert wins"),
    }
    for fight, (n0, n1) in sizes.items():
        head, body = _table(page, f"combat-groups-{fight}")
        assert len(head) <= 8, head
        assert head[1] == wins[fight][0], head
        assert head[2] == wins[fight][1], head
        shown = {r[0]["text"]: dict(zip(head, r, strict=True)) for r in body}
        part = rows[rows["fight"] == fight].set_index("system")
        assert set(shown) == set(part.index) == set(SYSTEMS)
        for system, cells in shown.items():
            row = part.loc[system]
            assert float(cells[head[1]]["value"]) == float(row["p_side0"])
            assert float(cells[head[2]]["value"]) == float(row["p_side1"])
            assert float(cells["mean rounds"]["value"]) == float(row["rounds_mean"])
            fell = {
                f: n0 * row[f"p_side0_{f}"] + n1 * row[f"p_side1_{f}"]
                for f in ("dead", "dying", "out")
            }
            shares = [float(cells[f"fallen: {f}"]["value"]) for f in fell]
            assert shares == pytest.approx([v / sum(fell.values()) for v in fell.values()])
            assert sum(shares) == pytest.approx(1.0)
            assert all(
                c["text"].endswith("%")
                for c in cells.values()
                if c is not cells["mean rounds"] and c["value"] is not None
            )
    n = settings.combat_trials
    part = rows[rows["fight"] == "2v2"].set_index("system")
    for system in SYSTEMS:
        p = float(part.loc[system, "p_side0"])
        assert float(part.loc[system, "se_side0"]) == pytest.approx(math.sqrt(p * (1 - p) / n))
        assert abs(p - 0.5) <= 5 * math.sqrt(0.25 / n) + 1 / n


@pytest.mark.slow
def test_combat_weapon_gear_and_upset_tables(page, settings):
    """One-hit odds (A14/A15, B9/B10, DX7-DX9, E13), tactics/armour (A6, A13, DX2, DX11,
    E12, E16) and upsets in the HTML are the analysis frames' numbers."""
    data = S.combat_frames(settings)
    hits = data["one_hit"]
    shown = _cells(page, "combat-weapons", ("system", "weapon"))
    cols = {
        "p_hit": "P(hit)",
        "p_incapacitate": "P(incapacitated by one hit)",
        "p_kill": "P(killed by one hit)",
    }
    assert _same_numbers(shown, hits, ("system", "weapon"), cols) == 3 * len(hits)
    # E11 hand-worked: attack 7 vs Parry 7 -> d20 + 7 >= 10 + 7 needs 10+ on the d20: 11/20
    assert shown[("d20_degrees", _words("light_melee"))]["P(hit)"]["text"] == "55.0%"
    gear = _cells(page, "combat-gear", ("system", "change", "choice"))
    assert len(gear) == len(data["effects"])
    assert _same_numbers(
        gear, data["effects"], ("system", "change", "choice"), S.EFFECT_COLUMNS
    ) >= 3 * len(gear)
    # the file's own loadout is the mirror duel: 50/50 (percentile armour 0, d20 none)
    assert gear[("percentile", "armour", "0")]["A wins"]["text"] == "50.0%"
    assert gear[("d20_degrees", "armour", "none")]["A wins"]["text"] == "50.0%"
    _head, rows = _table(page, "combat-upsets")
    assert len(rows) == 3 * len(SYSTEMS)


@pytest.mark.slow
def test_combat_figures_load(page):
    """Every combat section has figures, and each one decoded in the browser."""
    by_section: dict[str, list] = {}
    for img in page["combat_images"]:
        by_section.setdefault(img["section"], []).append(img)
    for sid in ("combat-duels", "combat-groups", "combat-gear"):
        assert by_section.get(sid), f"no figure in {sid}"
        for img in by_section[sid]:
            assert img["complete"], img
            assert img["w"] > 300, img
            assert img["h"] > 100, img


@pytest.mark.slow
def test_combat_readings_and_variants(page, settings):
    """Combat sections carry readings computed from the numbers; the assumptions list the
    combat engines' own variants with their rule ids (A-g3, B-g6, E-g3 ...)."""
    from analysis.combat import archetypes

    by_id = {sid: (cls, text) for sid, cls, text in page["sections"]}
    for sid in (
        "combat-duels",
        "combat-groups",
        "combat-weapons",
        "combat-gear",
        "distance",
        "combat-upsets",
    ):
        cls, text = by_id[sid]
        assert "available" in cls.split()
        assert "What this means for a designer" in text
    # the reading names the system whose even duel lasts longest, from the numbers
    cross = S.combat_frames(settings)["cross"]
    even = cross[cross["matchup"] == "melee_equal"].set_index("system")
    longest = even["rounds_mean"].idxmax()
    text = " ".join(S.section_combat_duels(settings).reading)
    # ... naming each side's archetype, overrides and weapon next to the number (issue §4)
    # (the fighters' labels, ``competent (weapon=knife)``, read as words: "competent (knife)")
    from reports.labels import fighter_words

    a, b = (fighter_words(str(even.loc[longest, side])) for side in ("a", "b"))
    assert "weapon=" not in a
    assert (
        f"fights last longest in {longest} ({a} against {b}: {even.loc[longest, 'rounds_mean']:.2f}"
    ) in text
    # the loser's fates come from the numbers, under the policy the report names
    assert "aftermath “leave” in every system" in text
    never = [s for s in even.index if even.loc[s, "p_loser_dead"] <= 1e-12]
    if never:
        assert f"in {', '.join(never)} the loser never ends dead" in text
    # the page shows the gap readings in words (system, rule, reading); the frame behind
    # it (the CSV) lists every variant with the rule it settles
    head, rows = _table(page, "assumptions")
    assert head == ["system", "rule", "reading"]
    shown = {(r[0]["text"], r[1]["text"]) for r in rows}
    frame = S.assumptions_frame(settings)
    listed = {(r["system"], r["variant"]): r for r in frame.to_dict("records")}
    for system in SYSTEMS:
        for row in describe(archetypes.variants(system)):
            cell = listed[(system, row["variant"])]
            assert cell["rule"] == row["rule"]
            assert cell["applies to"] in ("combat", "checks and combat")
            if "-g" in row["rule"]:  # a gap of RULES.md: the code's reading is shown
                assert (_words(system), _words(row["rule"])) in shown
    # dice_pool_7's combat variants inherit the check variants (A1); middle_3d10's do not
    assert listed[("dice_pool_7", "again")]["applies to"] == "checks and combat"
    assert listed[("dice_pool_7", "dodge_lasts")]["applies to"] == "combat"
    assert listed[("dice_pool_7", "dodge_lasts")]["rule"] == "A-g3"
    assert (_words("dice_pool_7"), _words("A-g3")) in shown
    assert (_words("dice_pool_7"), _words("A1")) not in shown


# ---------------------------------------------------------------- PDF


@pytest.mark.slow
def test_pdf_pages_render_and_figures_are_visible(built, tmp_path):
    from PIL import Image

    pdftoppm = require_tool("pdftoppm")
    pdf = built / "report.pdf"
    assert pdf.read_bytes().startswith(b"%PDF-")
    subprocess.run([pdftoppm, "-r", "50", "-png", str(pdf), str(tmp_path / "p")], check=True)
    pages = sorted(tmp_path.glob("p-*.png"))
    # one page per available section at least, plus the title page
    assert len(pages) >= 6
    listing = subprocess.run(
        [require_tool("pdfimages"), "-list", str(pdf)], capture_output=True, text=True, check=True
    ).stdout
    figure_pages = sorted(
        {
            int(line.split()[0])
            for line in listing.splitlines()[2:]
            if line.split() and line.split()[2] == "image"
        }
    )
    assert len(figure_pages) >= 3
    SHOTS.mkdir(parents=True, exist_ok=True)
    for n in figure_pages:
        im = np.asarray(Image.open(pages[n - 1]).convert("L"), dtype=float)
        ink = (im < 200).mean()
        assert im.std() > 15, f"page {n} looks blank"
        assert ink > 0.02, f"page {n} has almost no ink"
    Image.open(pages[figure_pages[0] - 1]).save(SHOTS / "pdf-first-figure-page.png")
    Image.open(pages[0]).save(SHOTS / "pdf-page-1.png")


# ---------------------------------------------------------------- atomic writes


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.slow
@pytest.mark.parametrize("where", ["section", "pdf", "interrupt"])
def test_failed_build_leaves_previous_report_intact(built, tmp_path, monkeypatch, where):
    out = tmp_path / "out"
    out.mkdir()
    for name in ("report.html", "report.pdf"):
        (out / name).write_bytes((built / name).read_bytes())
    before = _snapshot(out)

    def boom(settings):
        raise KeyboardInterrupt if where == "interrupt" else RuntimeError("section failed")

    if where == "pdf":
        import reports.render_pdf

        def bad_pdf(html):
            raise RuntimeError("pdf failed")

        monkeypatch.setattr(reports.render_pdf, "render_pdf", bad_pdf)
        fns = [S.section_assumptions]
    else:
        fns = [S.section_assumptions, boom]
    small = ReportSettings(systems=("percentile",), trials=200, out=out, progress=False)
    with pytest.raises((RuntimeError, KeyboardInterrupt)):
        write_report(small, fns)
    assert _snapshot(out) == before  # byte-identical, and no temporary files left


def test_cli_failure_leaves_no_partial_files(tmp_path, monkeypatch):
    def boom(settings):
        raise RuntimeError("section failed")

    monkeypatch.setattr(S, "SECTIONS", [S.section_assumptions, boom])
    out = tmp_path / "new"
    with pytest.raises(RuntimeError):
        main(["report", "--systems", "percentile", "--trials", "200", "--out", str(out), "--quiet"])
    assert not out.exists() or list(out.iterdir()) == []


@pytest.mark.slow
def test_same_seed_same_tables(settings):
    a = curves_cached.__wrapped__("percentile", (), 500, 11)
    b = curves_cached.__wrapped__("percentile", (), 500, 11)
    assert a.equals(b)


def test_native_spread_hand_worked():
    """D1: P = skill/100 between the critical and fumble (10% → 90% is 80 points of skill);
    E1–E2: each +1 is 5% (16 steps), and d20 + 4 ≥ 15 needs 11+ (50% at modifier 4)."""
    small = ReportSettings(systems=("percentile", "d20_degrees"), trials=200)
    f = S.spread_frame(small).set_index("system")
    assert f.loc["percentile", "steps 10% → 90%"] == pytest.approx(80)
    assert f.loc["percentile", "value at 50%"] == pytest.approx(50)
    assert f.loc["d20_degrees", "steps 10% → 90%"] == pytest.approx(16)
    assert f.loc["d20_degrees", "value at 50%"] == pytest.approx(4)
    assert f.loc["d20_degrees", "largest gain per step (pp)"] == pytest.approx(5)
    # natural 1 fails, natural 20 succeeds (E3): the curve stays within 5%..95%
    assert f.loc["d20_degrees", "lowest P"] == pytest.approx(0.05)
    assert f.loc["d20_degrees", "highest P"] == pytest.approx(0.95)


def test_report_variants_reach_the_combat_sections():
    """``report --variant dice_pool_7:again=9`` reaches the combat engines (their attacks
    roll the check dice; the assumptions say "checks and combat"), and a combat variant
    (A-g4 ``weapon_bonus=damage``) is accepted and reaches them too."""
    from cli.main import build_parser
    from cli.report import settings_from_args

    def frames(*variants):
        argv = ["report", "--systems", "dice_pool_7", "--combat-trials", "200"]
        for v in variants:
            argv += ["--variant", v]
        return settings_from_args(build_parser().parse_args(argv))

    base, nine = frames(), frames("dice_pool_7:again=9")
    assert nine.variants_of("dice_pool_7") == ("again=9",)
    assert nine.combat_variants_of("dice_pool_7") == ("again=9",)
    d0, d9 = S.combat_frames(base), S.combat_frames(nine)
    # P(hit) needs one success, which explosions never change (a 9 already succeeds);
    # 9s rolling again add successes, so never less damage: P(one hit incapacitates)
    # never falls and rises for some weapon
    assert np.allclose(d9["one_hit"]["p_hit"], d0["one_hit"]["p_hit"], atol=1e-12)
    inc9, inc0 = d9["one_hit"]["p_incapacitate"], d0["one_hit"]["p_incapacitate"]
    assert (inc9 >= inc0 - 1e-12).all()
    assert (inc9 > inc0 + 1e-6).any()
    assert not d9["cross"]["rounds_mean"].equals(d0["cross"]["rounds_mean"])
    frame = S.assumptions_frame(nine).set_index("variant")
    assert frame.loc["again", "applies to"] == "checks and combat"
    assert frame.loc["again", "changed"] == "yes"
    # a combat-only variant: accepted, kept out of the check sections, used in combat
    dmg = frames("dice_pool_7:weapon_bonus=damage")
    assert dmg.variants_of("dice_pool_7") == ()
    assert dmg.combat_variants_of("dice_pool_7") == ("weapon_bonus=damage",)
    dd = S.combat_frames(dmg)
    assert not dd["cross"]["rounds_mean"].equals(d0["cross"]["rounds_mean"])
    assert S.assumptions_frame(dmg).set_index("variant").loc["weapon_bonus", "changed"] == "yes"


def test_print_class_sets_wide_tables_smaller():
    """On paper a table cannot scroll: a table whose estimated width (longest unbreakable
    word per column at the print font) passes the A4 text block (527 pt) is printed a
    size smaller, ``wide`` (6.2 pt) then ``wider`` (5.4 pt). At 6.8 pt a character is
    about 0.64 × 6.8 = 4.35 pt, plus 3 pt of padding a column: three columns of 7
    characters take 100 pt; 16 of them 535 pt (too wide) and 492 pt at 6.2 pt; 30 are
    too wide even at 5.4 pt (816 pt) and take the smallest size."""
    import pandas as pd

    from reports.render_html import column_header, print_class, table_rows
    from reports.structure import Caption, Table

    def printed(n_cols):  # 7-character headers and cells ("c000001", "0.12346")
        frame = pd.DataFrame({f"c{i:06d}": [0.123456] for i in range(n_cols)})
        t = Table(
            id="t", title="t", frame=frame, caption=Caption(""), formats=dict.fromkeys(frame, ".5f")
        )
        return print_class(t, table_rows(t), column_header)

    assert printed(3) == ""
    assert printed(16) == "wide"
    assert printed(30) == "wider"
