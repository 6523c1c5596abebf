"""The sixth system as an outside package (examples/plugin_system, id ``pbta_2d6``).

The package is installed into a temporary site folder the way an installer lays it out
(the module plus a ``.dist-info`` folder with ``METADATA`` and ``entry_points.txt`` read
from the package's own pyproject.toml), then the real command line runs in a subprocess
with that folder on its path: nothing else in the suite changes.
"""

from __future__ import annotations

import io
import itertools
import math
import os
import shutil
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "examples" / "plugin_system"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    meta = tomllib.loads((PKG / "pyproject.toml").read_text())
    project = meta["project"]
    out = tmp_path_factory.mktemp("site")
    for mod in meta["tool"]["setuptools"]["py-modules"]:
        shutil.copy(PKG / f"{mod}.py", out / f"{mod}.py")
    dist = out / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                   f"Version: {project['version']}\n")
    lines = []
    for group, eps in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines.extend(f"{k} = {v}" for k, v in eps.items())
    (dist / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return out


def cli(site: Path, *argv: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]))
    return subprocess.run([sys.executable, "-m", "cli", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


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
    assert not row["has_combat"]
    assert not row["has_opposed"]
    assert row["axes"] == "modifier, roll, level"
    assert list(t["id"][:5]) == ["dice_pool_7", "middle_3d10", "dice_pool_6", "percentile",
                                 "d20_degrees"]


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
            assert cell[(mod, mode, level)] == pytest.approx(_p_kept_at_least(mode, need),
                                                             abs=1e-12)
    # advantage, +0, strong: the two highest of 3d6 sum to 10+ when (middle, top) is
    # (6,6): 5 lows × 3 orders + 666 = 16; (5,6): 4 lows × 6 + 556 × 3 = 27;
    # (4,6): 3 × 6 + 446 × 3 = 21; (5,5): 4 × 3 + 555 = 13 — 77 of 216
    assert Fraction(cell[(0, "advantage", "strong")]).limit_denominator(216) == \
        Fraction(77, 216)


def test_curves_monte_carlo_agrees_with_exact(site):
    n = 20_000
    t = table(site, "curves", "pbta_2d6", "--method", "both", "--trials", str(n),
              "--seed", "1")
    for p, p_mc in zip(t["p_exact"], t["p_mc"], strict=True):
        assert abs(p_mc - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1 / n
    again = table(site, "curves", "pbta_2d6", "--method", "mc", "--trials", "2000",
                  "--seed", "7")
    assert again.equals(table(site, "curves", "pbta_2d6", "--method", "mc", "--trials",
                              "2000", "--seed", "7"))


def test_variants_reach_the_plugin(site):
    t = table(site, "curves", "pbta_2d6", "--variant", "strong_at=12")
    cell = t.set_index(["modifier", "roll", "level"])["p"]
    assert cell[(0, "normal", "strong")] == pytest.approx(1 / 36, abs=1e-12)  # only 6+6


def test_undeclared_parts_are_skipped_with_one_sentence(site):
    done = cli(site, "opposed", "pbta_2d6")
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: pbta_2d6: this system declares no opposed-check "
                                   "rule, so there is no opposed table")


def test_solve_difficulty_through_the_ladder_hook(site):
    # competent = +1 (the package's ladder): weak hit 2d6 >= 6 is 26/36, strong 2d6 >= 9
    # is 10/36; 0.7 is closest to the weak hit
    t = table(site, "solve", "difficulty", "--system", "pbta_2d6", "--target", "0.7",
              "--competence", "competent")
    row = t.iloc[0]
    assert (row["system"], row["axis"], row["competence_value"]) == ("pbta_2d6", "level", 1)
    assert row["difficulty"] == "weak"
    assert row["p"] == pytest.approx(26 / 36, abs=1e-12)
    # a native +3: weak 2d6 >= 4 is 33/36, strong 2d6 >= 7 is 21/36 — 0.5 is nearer strong
    t = table(site, "solve", "difficulty", "--system", "pbta_2d6", "--target", "0.5",
              "--competence", "3")
    assert t["difficulty"].iloc[0] == "strong"
    assert t["p"].iloc[0] == pytest.approx(21 / 36, abs=1e-12)
    # with no --system every solvable system answers, the plug-in last
    t = table(site, "solve", "difficulty", "--target", "0.5", "--competence", "expert")
    assert list(dict.fromkeys(t["system"]))[-1] == "pbta_2d6"


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
    assert done.returncode == 1, done.stderr            # a guardrail fails
    t = pd.read_csv(io.StringIO(done.stdout)).set_index("guardrail")
    assert set(t["system"]) == {"pbta_2d6"}
    # P2, +1: a strong hit needs 2d6 >= 9: 4+3+2+1 = 10 of 36 — under the minimum 0.4;
    # a weak hit (level one step easier) needs 2d6 >= 6: 26 of 36 = 0.722, which passes
    strong = t.loc["strong hit"]
    assert strong["value"] == pytest.approx(10 / 36, abs=1e-12)
    assert strong["status"] == "fail"
    assert strong["suggestion"] == "level strong → weak gives p_success 0.722"
    # competent = +1 (the package's ladder): a weak hit needs 2d6 >= 6, 26/36; no level
    # is easier than weak, so the cure is the modifier: +2 needs 5+ (30/36 = 0.833),
    # +3 needs 4+ (33/36 = 0.917 >= 0.9)
    weak = t.loc["weak hit"]
    assert weak["value"] == pytest.approx(26 / 36, abs=1e-12)
    assert weak["suggestion"] == "modifier 1 → 3 gives p_success 0.917"


def test_audit_discover_skips_a_checks_only_plugin(site, tmp_path):
    cfg = tmp_path / "d.toml"
    cfg.write_text('name = "d"\n[discover]\nsystems = ["pbta_2d6"]\n')
    done = cli(site, "audit", "--discover", str(cfg), "--format", "csv", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert pd.read_csv(io.StringIO(done.stdout)).empty
    assert done.stderr.strip() == (
        "note: pbta_2d6: this system declares no combat rules, so --discover skips it "
        "(dominated options, one-hit fights, gap variants and knob interactions are all "
        "measured on duels)")
