"""The sixth system as an outside package (examples/plugin_system, id ``pbta_2d6``).

The package is installed into a site folder the way an installer lays it out (the module
plus a ``.dist-info`` folder with ``METADATA`` and ``entry_points.txt`` read from the
package's own pyproject.toml; kept in ``.test-sites/`` while the example is unchanged,
:func:`plugin_site.kept_site`), then the real command line runs in a subprocess with
that folder on its path: nothing else in the suite changes.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def site(plugin_site) -> Path:
    """The plug-ins laid out as installed (``plugin_site`` in conftest.py): ``pbta_2d6``
    and its checks-only copy ``pbta_checks``."""
    return plugin_site


def cli(site: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "cli", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def table(site: Path, *argv: str) -> pd.DataFrame:
    done = cli(site, *argv, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return pd.read_csv(io.StringIO(done.stdout))


def _p_kept_at_least(mode: str, total: int) -> float:
    """Brute force over the dice (P1, P3): P(kept two dice >= total)."""
    n = 2 if mode == "normal" else 3
    hits = 0
    for dice in itertools.product(range(1, 7), repeat=n):
        d = sorted(dice)
        kept = sum(dice) if n == 2 else (d[1] + d[2] if mode == "advantage" else d[0] + d[1])
        hits += kept >= total
    return hits / 6**n


def test_systems_lists_the_plugin(site):
    t = table(site, "systems")
    row = t[t["id"] == "pbta_2d6"].iloc[0]
    assert row["source"] == "plug-in rpg-balance-pbta"
    assert row["has_combat"]
    assert row["has_campaign"]
    assert row["mechanics"] == "experience, attrition"
    assert not row["has_opposed"]
    assert row["axes"] == "modifier, roll, level"
    bare = t[t["id"] == "pbta_checks"].iloc[0]
    assert not bare["has_combat"]
    assert not bare["has_campaign"]
    assert list(t["id"][:5]) == [
        "dice_pool_7",
        "middle_3d10",
        "dice_pool_6",
        "percentile",
        "d20_degrees",
    ]


def test_curves_exact_hand_worked(site):
    t = table(site, "curves", "pbta_2d6")
    assert len(t) == 8 * 3 * 2  # modifier −3..+4 × roll mode × level
    cell = t.set_index(["modifier", "roll", "level"])["p"]
    # P2 with 2d6 + 0: a hit needs 7+: 6+5+4+3+2+1 = 21 of 36; strong 10+: 3+2+1 = 6 of 36
    assert cell[(0, "normal", "weak")] == pytest.approx(21 / 36, abs=1e-12)
    assert cell[(0, "normal", "strong")] == pytest.approx(6 / 36, abs=1e-12)
    # +4 needs 3+ for a hit (35/36) and 6+ for a strong hit (26/36)
    assert cell[(4, "normal", "weak")] == pytest.approx(35 / 36, abs=1e-12)
    assert cell[(4, "normal", "strong")] == pytest.approx(26 / 36, abs=1e-12)
    # −3 needs 10+ for a hit: 6/36; a strong hit needs 13: impossible
    assert cell[(-3, "normal", "weak")] == pytest.approx(6 / 36, abs=1e-12)
    assert cell[(-3, "normal", "strong")] == 0
    # P3: advantage keeps the best two of 3d6 — and the worst two for disadvantage
    for mode in ("advantage", "disadvantage"):
        for mod, level, need in ((0, "weak", 7), (1, "strong", 9)):
            assert cell[(mod, mode, level)] == pytest.approx(
                _p_kept_at_least(mode, need), abs=1e-12
            )
    # advantage, +0, strong: the two highest of 3d6 sum to 10+ when (middle, top) is
    # (6,6): 5 lows × 3 orders + 666 = 16; (5,6): 4 lows × 6 + 556 × 3 = 27;
    # (4,6): 3 × 6 + 446 × 3 = 21; (5,5): 4 × 3 + 555 = 13 — 77 of 216
    assert Fraction(cell[(0, "advantage", "strong")]).limit_denominator(216) == Fraction(77, 216)


@pytest.mark.slow
def test_curves_monte_carlo_agrees_with_exact(site):
    n = 20_000
    t = table(site, "curves", "pbta_2d6", "--method", "both", "--trials", str(n), "--seed", "1")
    for p, p_mc in zip(t["p_exact"], t["p_mc"], strict=True):
        assert abs(p_mc - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n
    again = table(site, "curves", "pbta_2d6", "--method", "mc", "--trials", "2000", "--seed", "7")
    assert again.equals(
        table(site, "curves", "pbta_2d6", "--method", "mc", "--trials", "2000", "--seed", "7")
    )


def test_variants_reach_the_plugin(site):
    t = table(site, "curves", "pbta_2d6", "--variant", "strong_at=12")
    cell = t.set_index(["modifier", "roll", "level"])["p"]
    assert cell[(0, "normal", "strong")] == pytest.approx(1 / 36, abs=1e-12)  # only 6+6


def test_undeclared_parts_are_skipped_with_one_sentence(site):
    done = cli(site, "opposed", "pbta_2d6")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: pbta_2d6: this system declares no opposed-check rule, so there is no opposed table"
    )


def test_solve_difficulty_through_the_ladder_hook(site):
    # competent = +1 (the package's ladder): weak hit 2d6 >= 6 is 26/36, strong 2d6 >= 9
    # is 10/36; 0.7 is closest to the weak hit
    t = table(
        site,
        "solve",
        "difficulty",
        "--system",
        "pbta_2d6",
        "--target",
        "0.7",
        "--competence",
        "competent",
    )
    row = t.iloc[0]
    assert (row["system"], row["axis"], row["competence_value"]) == ("pbta_2d6", "level", 1)
    assert row["difficulty"] == "weak"
    assert row["p"] == pytest.approx(26 / 36, abs=1e-12)
    # a native +3: weak 2d6 >= 4 is 33/36, strong 2d6 >= 7 is 21/36 — 0.5 is nearer strong
    t = table(
        site, "solve", "difficulty", "--system", "pbta_2d6", "--target", "0.5", "--competence", "3"
    )
    assert t["difficulty"].iloc[0] == "strong"
    assert t["p"].iloc[0] == pytest.approx(21 / 36, abs=1e-12)
    # with no --system every solvable system answers, the plug-ins last (name order)
    t = table(site, "solve", "difficulty", "--target", "0.5", "--competence", "expert")
    assert list(dict.fromkeys(t["system"]))[-2:] == ["pbta_2d6", "pbta_checks"]


def test_ladder_says_which_systems_it_leaves_out(site):
    """The common ladder maps the five built-ins; each plug-in it leaves out gets one note
    on stderr saying why (no ladder rules declared)."""
    done = cli(site, "ladder", "--format", "csv")
    assert done.returncode == 0, done.stderr
    notes = done.stderr.strip().splitlines()
    assert notes == [
        f"note: {p}: not on the common ladder: it declares no ladder rules (Ladder.rules)"
        for p in ("pbta_2d6", "pbta_checks")
    ]
    t = pd.read_csv(io.StringIO(done.stdout))
    assert set(t["system"]) == {
        "dice_pool_7",
        "middle_3d10",
        "dice_pool_6",
        "percentile",
        "d20_degrees",
    }


def test_modifiers_of_every_system_leave_out_one_without_a_catalogue(site):
    """``modifiers`` with no system stacks every system that declares modifiers; the
    checks-only plug-in declares none and is left out (not an error)."""
    t = table(site, "modifiers")
    assert "pbta_2d6" in set(t["system"])
    assert "pbta_checks" not in set(t["system"])
    done = cli(site, "modifiers", "pbta_checks")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: pbta_checks: this system declares no modifiers, so there is no modifier table"
    )


def test_modifiers_from_the_catalogue(site):
    t = table(site, "modifiers", "pbta_2d6")
    cell = t.set_index(["modifier", "bonus", "level"])
    # P3 advantage at -3 needs 10+ on the best two of 3d6: 77/216 (counted above) vs 6/36
    row = cell.loc[("advantage", -3, "weak")]
    assert row["p_base"] == pytest.approx(6 / 36, abs=1e-12)
    assert row["p_with"] == pytest.approx(77 / 216, abs=1e-12)
    assert row["rule"] == "P3"
    # P1 +1 at +0, weak hit: 2d6 >= 6 (26/36) instead of 2d6 >= 7 (21/36): +5/36
    assert cell.loc[("+1 forward", 0, "weak"), "delta_pp"] == pytest.approx(500 / 36)
    # every cell of the base grid (8 modifiers × 2 levels) for each of the 3 modifiers
    assert len(t) == 3 * 8 * 2
    s = table(site, "modifiers", "pbta_2d6", "--summary")
    assert list(s["modifier"]) == ["advantage", "disadvantage", "+1 forward"]


# ---------------------------------------------------------------- the report with the plug-in

REPORT_SYSTEMS = "pbta_2d6,pbta_checks,dice_pool_7"
COMBAT_SECTIONS = (
    "combat-duels",
    "combat-groups",
    "combat-weapons",
    "combat-gear",
    "distance",
    "combat-upsets",
)


@pytest.fixture(scope="session")
def report_page(site, tmp_path_factory):
    """``report --systems pbta_2d6,pbta_checks,dice_pool_7`` built by the real CLI with
    the plug-ins installed (few trials), then opened in headless chromium."""
    sys.path.insert(0, str(Path(__file__).parent))
    from browser_page import Browser

    out = tmp_path_factory.mktemp("report-pbta")
    done = cli(
        site,
        "report",
        "--systems",
        REPORT_SYSTEMS,
        "--trials",
        "1000",
        "--combat-trials",
        "100",
        "--seed",
        "5",
        "--no-pdf",
        "--quiet",
        "-o",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    with Browser(tmp_path_factory.mktemp("chromium-profile-pbta")) as b:
        b.open((out / "report.html").as_uri())
        page = {
            "images": b.evaluate(
                "Array.from(document.images).map(i => ({id: "
                "i.closest('figure') ? i.closest('figure').id : '', "
                "complete: i.complete, w: i.naturalWidth}))"
            ),
            "tables": b.evaluate("""Object.fromEntries(Array.from(document.querySelectorAll(
                'table.data')).map(t => [t.id, {
                  head: Array.from(t.tHead.rows[t.tHead.rows.length - 1].cells)
                    .map(c => c.textContent.trim()),
                  rows: Array.from(t.tBodies[0].rows).map(r => Array.from(r.cells).map(c =>
                    c.dataset.value ?? c.textContent.trim()))}]))"""),
            "sections": b.evaluate(
                "Object.fromEntries(Array.from(document.querySelectorAll("
                "'main section')).map(s => [s.id, s.innerText]))"
            ),
        }
        page["errors"] = list(b.errors)
    page["html"] = (out / "report.html").read_text(encoding="utf-8")
    return page


def _cell(page, table_id: str, row: str, column: str) -> float:
    t = page["tables"][table_id]
    j = t["head"].index(column)
    return float(next(r for r in t["rows"] if r[0] == row)[j])


@pytest.mark.slow
def test_report_opens_clean_with_the_plugin(report_page):
    assert report_page["errors"] == []
    for img in report_page["images"]:
        assert img["complete"], img
        assert img["w"] > 0, img


@pytest.mark.slow
def test_report_draws_the_plugin_curves(report_page):
    tables = report_page["tables"]
    # the plain view of a system without curve hooks: one table per roll mode (the axis
    # that is neither the competence nor the difficulty axis), modifier down, level across
    for mode in ("normal", "advantage", "disadvantage"):
        head = tables[f"curves-pbta_2d6-{mode}"]["head"]
        assert head == ["modifier", "weak", "strong"]
        assert [r[0] for r in tables[f"curves-pbta_2d6-{mode}"]["rows"]] == [
            str(m) for m in range(-3, 5)
        ]
    # P2 at +0: a weak hit needs 7+ on 2d6 (21 of 36), a strong hit 10+ (6 of 36);
    # P3 advantage at +0, strong: 77 of 216 (counted in test_curves_exact_hand_worked)
    assert _cell(report_page, "curves-pbta_2d6-normal", "0", "weak") == pytest.approx(
        21 / 36, abs=1e-12
    )
    assert _cell(report_page, "curves-pbta_2d6-normal", "0", "strong") == pytest.approx(
        6 / 36, abs=1e-12
    )
    assert _cell(report_page, "curves-pbta_2d6-advantage", "0", "strong") == pytest.approx(
        77 / 216, abs=1e-12
    )
    assert "fig-curves-pbta_2d6" in {i["id"] for i in report_page["images"]}
    # the built-in system keeps its own view next to it
    assert "curves-dice_pool_7" in tables
    # the cross-system sections carry the plug-in as a row of their own
    assert "pbta_2d6" in [r[0] for r in tables["mc-agreement"]["rows"]]
    assert "pbta_2d6" in [r[0] for r in tables["native-spread"]["rows"]]
    assert "outcomes-pbta_2d6" in tables
    # the outcome mean of 2d6 (normal roll) is 7: the codes' values are the sums
    assert _cell(report_page, "outcomes-pbta_2d6", "normal", "mean") == pytest.approx(
        7.0, abs=1e-12
    )


@pytest.mark.slow
def test_report_skips_undeclared_parts_with_one_sentence(report_page):
    sections = report_page["sections"]
    combat = "pbta_checks is not in this section: it declares no combat rules."
    unmapped = (
        "pbta_2d6 is not in this section: the cross-combat mapping file "
        "(analysis/data/cross_combat.toml) maps no fights for it."
    )
    for sid in COMBAT_SECTIONS:
        assert sections[sid].count(combat) == 1, sid
        assert sections[sid].count(unmapped) == 1, sid
        assert "dice_pool_7" in sections[sid]  # the system that has combat still shows
    for plugin in ("pbta_2d6", "pbta_checks"):
        assert (
            sections["opposed"].count(
                f"{plugin} is not in this section: it declares no opposed-check rule."
            )
            == 1
        )
        assert (
            sections["ladders"].count(
                f"{plugin} is not in this section: it declares no rungs on the common ladder"
            )
            == 1
        )
    assert (
        sections["campaign"].count(
            "pbta_checks is not in this section: it declares no campaign mechanics."
        )
        == 1
    )
    assert (
        sections["modifiers"].count("pbta_checks is not in this section: it declares no modifiers.")
        == 1
    )
    assert "pbta_2d6 is not in this section: it declares no campaign" not in sections["campaign"]
    # the sentences appear nowhere else, and never for the built-in system
    assert (
        report_page["html"].count("is not in this section")
        == 2 * len(COMBAT_SECTIONS) + 2 + 2 + 1 + 1
    )
    assert "dice_pool_7 is not in this section" not in report_page["html"]
    # the skipped parts leave no plug-in rows behind
    assert "pbta_2d6" not in [r[1] for r in report_page["tables"]["combat-duels"]["rows"]]
    assert "opposed-pbta_2d6" not in report_page["tables"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("duel", "pbta_checks", "competent", "expert"),
            "error: pbta_checks: this system declares no combat rules",
        ),
        (("archetypes", "pbta_checks"), "error: pbta_checks: this system declares no combat rules"),
        (
            ("campaign", "pbta_checks", "morality"),
            "error: pbta_checks: this system declares no campaign mechanics",
        ),
    ],
)
def test_commands_needing_an_undeclared_part_say_so(site, argv, message):
    done = cli(site, *argv)
    assert done.returncode == 2
    assert done.stderr.strip() == message


def test_skip_sentence_in_portuguese():
    from reports.i18n import language
    from reports.sections.common import PARTS, skipped

    with language("pt-BR"):
        assert (
            skipped("pbta_2d6", PARTS["combat"])
            == "pbta_2d6 não entra nesta seção: não declara regras de combate."
        )


def test_reports_and_cli_name_no_system():
    """Every report section iterates the registry (no branch on a system id) and neither
    the report nor the command line keeps a hard-coded list of the ids (issue 9)."""
    import re

    branch = re.compile(r"system (==|in \()")
    id_list = re.compile(r"SYSTEM_IDS\s*=")
    found = [
        f"{path.relative_to(ROOT)}:{i}"
        for folder in ("reports", "cli")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if (folder == "reports" and branch.search(line)) or id_list.search(line)
    ]
    assert found == []


PBTA_GUARDRAILS = """
name = "pbta guardrails"
seed = 1
[[checks]]
name = "competent_strong"
system = "pbta_2d6"
axes = { modifier = [1], roll = ["normal"], level = ["strong"] }
[[checks]]
name = "competent_weak"
system = "pbta_2d6"
competence = ["competent"]
axes = { roll = ["normal"], level = ["weak"] }
[[guardrails]]
name = "strong hit"
check = "competent_strong"
metric = "p_success"
min = 0.4
reason = "a competent character should land a strong hit at least 40 % of the time"
[[guardrails]]
name = "weak hit"
check = "competent_weak"
metric = "p_success"
min = 0.9
reason = "a competent character should almost always hit"
"""


def test_audit_guardrails_on_a_plugin_check(site, tmp_path):
    """A guardrail on a pbta check is evaluated exactly and cured by one knob (the
    plug-in's declared difficulty axis, level, or competence axis, modifier)."""
    path = tmp_path / "pbta.toml"
    path.write_text(PBTA_GUARDRAILS)
    done = cli(site, "audit", str(path), "--format", "csv", "--no-progress")
    assert done.returncode == 1, done.stderr  # a guardrail fails
    t = pd.read_csv(io.StringIO(done.stdout)).set_index("guardrail")
    assert set(t["system"]) == {"pbta_2d6"}
    # P2, +1: a strong hit needs 2d6 >= 9: 4+3+2+1 = 10 of 36 — under the minimum 0.4.
    # The level asked (strong) is the guardrail's own term, held; the cure is the
    # competence: +2 needs 2d6 >= 8, 5+4+3+2+1 = 15 of 36 = 0.417
    strong = t.loc["strong hit"]
    assert strong["value"] == pytest.approx(10 / 36, abs=1e-12)
    assert strong["status"] == "fail"
    assert strong["suggestion"].endswith(
        " from 1 to 2, which makes the chance to succeed 41.7%, no other guardrail moves"
    )
    # competent = +1 (the package's ladder): a weak hit needs 2d6 >= 6, 26/36; no level
    # is easier than weak, so the cure is the modifier: +2 needs 5+ (30/36 = 0.833),
    # +3 needs 4+ (33/36 = 0.917 >= 0.9)
    weak = t.loc["weak hit"]
    assert weak["value"] == pytest.approx(26 / 36, abs=1e-12)
    assert weak["suggestion"].endswith(
        " from 1 to 3, which makes the chance to succeed 91.7%, no other guardrail moves"
    )


def test_audit_discover_skips_a_checks_only_plugin(site, tmp_path):
    cfg = tmp_path / "d.toml"
    cfg.write_text('name = "d"\n[discover]\nsystems = ["pbta_checks"]\n')
    done = cli(site, "audit", "--discover", str(cfg), "--format", "csv", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(io.StringIO(done.stdout)).empty
    assert done.stderr.strip() == (
        "note: pbta_checks: this system declares no combat rules, so --discover skips it "
        "(dominated options, one-hit fights, gap variants and knob interactions are all "
        "measured on duels)"
    )
