"""Every audit row can be reproduced from its own ``reproduce`` command, and
``--discover`` reports nothing below its noise floor.

- Each ``reproduce`` command of the default ``rpg-balance audit`` and of the default
  ``rpg-balance audit --discover`` is run in process (``cli.main.main``) and its output
  must print the row's number (a comparison: both numbers, one per command, and the row's
  value is their gap; a guardrail that compares: the difference of the two commands'
  numbers). The commands print full precision (csv), so the numbers must agree
  to 1e-9: the same exact chain, or the same Monte Carlo stream (``d20_degrees``'s
  dominance search plays ``duel --method mc --trials 8000 --seed S`` exactly).
- The noise floor: no gap variant or dominated option moves its figure by less than
  ``min_effect`` (probabilities) or ``min_effect_rounds`` (mean rounds); the no-gear
  option (first weapon, first armour of a data file) is never dominated; a variant that
  sets the loser's fate by definition (``untreated_dying=dead``: P(loser dead) 1) is a
  note, not a finding.
"""

from __future__ import annotations

import io
import math
import shlex

import pandas as pd
import pytest

from analysis.combat import archetypes
from analysis.workflow import audit
from cli.main import main


def _run(command: str, capsys) -> tuple[pd.DataFrame, str]:
    """Run one ``rpg-balance …`` command in process; its csv table and the shell comment
    (the row of a curves table), if any."""
    words = shlex.split(command, comments=True)
    comment = command.partition("#")[2].strip() if "#" in command else ""
    assert words[0] == "rpg-balance"
    capsys.readouterr()
    assert main([*words[1:], "--format", "csv"]) == 0, command
    out = capsys.readouterr().out
    return pd.read_csv(io.StringIO(out)), comment


def _numbers(table: pd.DataFrame, comment: str) -> list[float]:
    if comment:  # "row skill=80, level=hard, dice=0"
        for part in comment.removeprefix("row ").split(", "):
            key, _, value = part.partition("=")
            col = table[key].astype(str)
            table = table[col == value]
        assert len(table) == 1, comment
    out = []
    for col in table.columns:
        for x in table[col]:
            try:
                out.append(float(x))
            except (TypeError, ValueError):
                continue
    return [x for x in out if math.isfinite(x)]


def _shows(x: float, numbers: list[float]) -> bool:
    return any(abs(x - y) <= 1e-9 for y in numbers)


def _check_row(row, capsys) -> None:
    commands = row["reproduce"].split(" ; ")
    seen = [_numbers(*_run(c, capsys)) for c in commands]
    frm = row.get("from_value")
    if frm is None or pd.isna(frm):  # one figure, printed by the one command
        assert len(commands) == 1
        assert _shows(row["value"], seen[0]), (row["reproduce"], row["value"])
        return
    # a comparison: both numbers (one per command, or both levels of one grid), and
    # the row's value is their gap
    assert _shows(frm, seen[0]), (row["reproduce"], frm)
    assert _shows(row["to_value"], seen[-1]), (row["reproduce"], row["to_value"])
    assert row["value"] == pytest.approx(abs(row["to_value"] - frm), abs=1e-9)


@pytest.fixture(scope="session")
def guardrail_table():
    return audit.evaluate(audit.load_guardrails(), progress=False)


@pytest.fixture(scope="session")
def findings():
    cfg = {**audit.DEFAULT_DISCOVER, **audit.load_guardrails()[0].discover}
    return audit.discover(cfg, progress=False)


@pytest.mark.slow
def test_every_guardrail_reproduce_prints_its_value(guardrail_table, capsys):
    assert guardrail_table["reproduce"].str.startswith("rpg-balance ").all()
    compared = 0
    for row in guardrail_table.to_dict("records"):
        commands = row["reproduce"].split(" ; ")
        if len(commands) == 2:  # a guardrail that compares: the gap of the two numbers
            first, second = (_numbers(*_run(c, capsys)) for c in commands)
            assert any(_shows(row["value"], [x - y]) for x in first for y in second), (
                row["guardrail"],
                row["reproduce"],
            )
            compared += 1
            continue
        numbers = _numbers(*_run(row["reproduce"], capsys))
        assert _shows(row["value"], numbers), (row["guardrail"], row["reproduce"])
    assert compared == 3  # the heaviest armour still beats no armour in melee, 3 systems


@pytest.mark.slow
def test_every_discover_reproduce_prints_its_numbers(findings, capsys):
    assert len(findings)
    assert findings["reproduce"].str.startswith("rpg-balance ").all()
    for row in findings.to_dict("records"):
        _check_row(row, capsys)


@pytest.mark.slow
def test_findings_name_the_gear_they_measured(findings):
    # the percentile ladder fighters carry knives: the finding says so
    rows = findings[
        (findings["system"] == "percentile") & findings["kind"].str.startswith("dominated_")
    ]
    assert len(rows)
    gear = rows[rows["kind"] != "dominated_weapon"]
    assert len(gear)
    assert all("weapon=knife" in d for d in gear["detail"])
    # a weapon finding's holder carries the weapon judged (its subject); its opponent is
    # a knife fighter or a shooter, named as the library names it
    weapons = rows[rows["kind"] == "dominated_weapon"]
    assert all("weapon=knife" in d or "_shooter" in d for d in weapons["detail"])


@pytest.mark.slow
def test_no_finding_below_the_noise_floor(findings):
    cfg = audit.DEFAULT_DISCOVER
    compared = findings[
        findings["kind"].str.startswith("dominated_") | (findings["kind"] == "gap_variant")
    ]
    assert len(compared)
    floor = compared["metric"].map(
        lambda m: cfg["min_effect_rounds"] if m == "rounds_mean" else cfg["min_effect"]
    )
    assert (compared["value"].abs() > floor).all()
    gaps = findings[findings["kind"] == "gap_variant"]
    # chance_die / opposed_tie do not touch a duel, and are summarised in a note instead
    assert not gaps["subject"].str.startswith(("chance_die", "opposed_tie")).any()
    assert any("rule variants do not change an even duel" in n for n in findings.attrs["notes"])


@pytest.mark.slow
def test_no_baseline_is_dominated(findings):
    for system in findings["system"].unique():
        for kind in ("weapon", "armour"):
            base = audit.baseline(system, kind)
            rows = findings[
                (findings["system"] == system) & (findings["kind"] == f"dominated_{kind}")
            ]
            assert str(base) not in set(rows["subject"]), (system, kind)
    assert audit.baseline("percentile", "armour") == 0
    assert audit.baseline("middle_3d10", "weapon") == "fists"
    assert audit.baseline("dice_pool_7", "weapon") == archetypes.weapons("dice_pool_7")[0]


@pytest.mark.slow
def test_true_by_definition_is_a_note_not_a_finding(findings):
    assert not (findings["subject"].str.startswith("untreated_dying=dead")).any()
    assert any(
        "untreated_dying=dead" in n and "by definition" in n for n in findings.attrs["notes"]
    )


@pytest.mark.slow
def test_min_effect_option_raises_the_floor(tmp_path, capsys):
    cfg = tmp_path / "d.toml"
    cfg.write_text('name = "d"\n[discover]\nsystems = ["middle_3d10"]\n')
    low, high = tmp_path / "low.csv", tmp_path / "high.csv"
    assert main(["audit", "--discover", str(cfg), "-o", str(low), "--no-progress"]) == 0
    assert (
        main(
            [
                "audit",
                "--discover",
                str(cfg),
                "--min-effect",
                "0.05",
                "-o",
                str(high),
                "--no-progress",
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "rule variants do not change" in err
    lo, hi = pd.read_csv(low), pd.read_csv(high)
    dom = hi[hi["kind"].str.startswith("dominated_")]
    assert (dom["value"] > 0.05).all()
    assert len(hi) < len(lo)
    assert main(["audit", "--min-effect", "0.05"]) == 2
    assert "--min-effect: only with --discover" in capsys.readouterr().err


@pytest.mark.slow
def test_armour_and_tactics_are_judged_against_shooters(findings):
    # body armour and diving for cover matter against guns: both kinds are judged
    # against the shooters of the ladder's rungs too, and the finding names them
    rows = findings[findings["kind"].isin(["dominated_armour", "dominated_tactic"])]
    assert len(rows)
    assert all("competent_shooter" in d for d in rows["detail"])
    cover = rows[(rows["system"] == "percentile") & (rows["subject"] == "dive_for_cover")]
    # against a shooter, diving for cover decides the fight: its largest gap is there
    assert list(cover["reproduce"].str.contains("_shooter")) == [True]
    # light ballistic armour beats reinforced clothing against a pistol: not dominated by it
    light = rows[(rows["system"] == "dice_pool_7") & (rows["subject"] == "light_modern")]
    assert all("reinforced_clothing" not in by.split(", ") for by in light["by"])
    # a melee weapon is judged in the melee matchups only; a ranged one against the
    # shooters too (test_weapons_are_judged_within_their_kind)
    weapons = findings[findings["kind"] == "dominated_weapon"]
    melee = weapons["detail"].str.startswith("melee weapon ")
    assert melee.any()
    assert not weapons[melee]["detail"].str.contains("_shooter").any()
    assert weapons[~melee]["detail"].str.contains("competent_shooter").all()


@pytest.mark.slow
def test_weapons_are_judged_within_their_kind(findings):
    """A weapon is only ever compared with weapons of its own kind (docs/RULES.md, "Melee
    and ranged weapons"): a melee weapon with the melee weapons in the 18 ladder
    matchups, a ranged weapon with the ranged weapons in 72 matchups, the 18 against the
    rungs' shooters included, engaged and starting 20 m apart (in every built-in system:
    each has distance rules); the finding names the kind and the opponents."""
    weapons = findings[findings["kind"] == "dominated_weapon"]
    assert set(weapons["detail"].str.split(" ").str[0]) == {"melee", "ranged"}
    for row in weapons.to_dict("records"):
        kinds = archetypes.weapon_kinds(row["system"])
        kind = kinds[row["subject"]]
        assert {kinds[w] for w in row["by"].split(", ")} == {kind}, row["by"]
        assert row["detail"].startswith(f"{kind} weapon {row['subject']} is never better")
        assert f" among the {kind} weapons in " in row["detail"]
        if kind == "ranged":
            assert "in 72 matchups" in row["detail"]
            assert "engaged and 20 m apart" in row["detail"]
            assert "novice_shooter, competent_shooter, expert_shooter" in row["detail"]
        else:
            assert "in 18 matchups" in row["detail"]
            assert "_shooter" not in row["detail"]
    pct = weapons[weapons["system"] == "percentile"].set_index("subject")
    # DX3: the knife (1D4 + DB) was "dominated by shotgun" in melee matchups; among the
    # melee weapons it is dominated by the two 1D8 + DB weapons only
    assert set(pct.loc["knife", "by"].split(", ")) == {"machete", "bat"}
    assert "shotgun" not in pct.loc["knife", "detail"]
    # DX5: the handgun (1D10) is judged among the firearms, against the shooters too.
    # Engaged the shotgun (4D6) never does worse; 20 m apart (21.9 yards, past the
    # shotgun's 20-yard band: 1D6, DX-g10) the handgun's 1D10 at long range (DX15: a hard
    # success) does better somewhere, so only the rifle (2D6+4) dominates it
    assert set(pct.loc["handgun", "by"].split(", ")) == {"rifle"}
    assert "competent_shooter" in pct.loc["handgun", "detail"]
