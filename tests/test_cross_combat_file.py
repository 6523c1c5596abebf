"""A designer's cross-combat file (``--cross-combat FILE``, the ``cross_combat`` key of a
scenario file): the example plug-in's mapping (``examples/plugin_system/scenarios/
cross_combat.toml``: the five built-ins and ``pbta_2d6``, rules PC1–PC9) brings the
plug-in's fighters into ``cross-combat``, ``audit --discover`` and the report's combat
sections; a bad file is one line naming the file and the key, exit code 2, nothing
written.

The plug-in is registered in this process (``plugin_installed``, tests/conftest.py); the
commands run through :func:`cli.main.main`.
"""

from __future__ import annotations

import io
import shlex
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_FILE = ROOT / "examples" / "plugin_system" / "scenarios" / "cross_combat.toml"
#: the plug-in's two mapped duels, as ``rpg-balance duel`` takes them (the file's
#: ``[matchups.*.pbta_2d6]`` tables written out by hand)
DUELS = {
    "melee_equal": [
        "competent",
        "competent",
        "--weapon-a",
        "light_melee",
        "--weapon-b",
        "light_melee",
    ],
    "pistol_vs_novice": [
        "competent_shooter",
        "novice",
        "--weapon-b",
        "light_melee",
        "--armour-b",
        "none",
    ],
}
COMPARED = [
    "p_side0",
    "p_side1",
    "p_neither",
    "rounds_mean",
    "rounds_q50",
    "p_loser_dead",
    "p_loser_dying",
    "p_loser_out",
]


def run_csv(capsys, *argv: str) -> pd.DataFrame:
    capsys.readouterr()
    assert main([*argv, "--format", "csv"]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out))


def fails(capsys, *argv: str) -> str:
    """The one stderr line of a command that must fail with exit code 2."""
    capsys.readouterr()
    assert main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1, err
    return err


# ------------------------------------------------------------------------ cross-combat


@pytest.mark.slow
def test_cross_combat_rows_of_the_plugin_are_its_duels(plugin_installed, capsys):
    """PC1–PC9: each pbta_2d6 row of ``cross-combat --cross-combat FILE`` is the
    ``duel pbta_2d6 …`` row of the same fighters (both exact chains); the built-ins keep
    their rows beside it."""
    t = run_csv(capsys, "cross-combat", "--cross-combat", str(PLUGIN_FILE))
    assert set(t["system"]) == {
        "dice_pool_7",
        "middle_3d10",
        "dice_pool_6",
        "percentile",
        "d20_degrees",
        "pbta_2d6",
    }
    for mid, fighters in DUELS.items():
        mine = t[(t["matchup"] == mid) & (t["system"] == "pbta_2d6")]
        assert len(mine) == 1
        duel = run_csv(capsys, "duel", "pbta_2d6", *fighters)
        assert mine["method"].iloc[0] == duel["method"].iloc[0] == "exact"
        assert mine[COMPARED].iloc[0].tolist() == pytest.approx(
            duel[COMPARED].iloc[0].tolist(), abs=1e-12
        )
    # PC2: a mirror duel is a coin toss
    even = t[(t["matchup"] == "melee_equal") & (t["system"] == "pbta_2d6")]
    assert even["p_side0"].iloc[0] == pytest.approx(0.5, abs=1e-12)
    # --file, the older spelling, reads the same file
    old = run_csv(capsys, "cross-combat", "--file", str(PLUGIN_FILE))
    pd.testing.assert_frame_equal(old, t)


@pytest.mark.slow
def test_without_the_file_the_plugin_is_not_compared(plugin_installed, capsys):
    t = run_csv(capsys, "cross-combat", "--columns", "matchup,system")
    assert "pbta_2d6" not in set(t["system"])


# ------------------------------------------------------------------------ discovery

DISCOVER_PBTA = 'name = "pbta discovery"\n[discover]\nsystems = ["pbta_2d6"]\n'
OLD_NOTE = (
    "note: pbta_2d6: no ladder fighters for it in cross_combat.toml, so --discover "
    "skips it (every finding is measured on duels of the ladder fighters)"
)


def test_discovery_judges_the_plugin_with_the_file(plugin_installed, capsys, tmp_path):
    """Without a file that maps it the plug-in is skipped with the old note; with
    ``--cross-combat`` its gear is judged on its ladder fighters (PC3: a harm-3 weapon
    beats a harm-2 one), and each finding's two numbers are those its own commands
    print."""
    cfg = tmp_path / "d.toml"
    cfg.write_text(DISCOVER_PBTA)
    capsys.readouterr()
    assert main(["audit", "--discover", str(cfg), "--format", "csv", "--no-progress"]) == 0
    out = capsys.readouterr()
    assert pd.read_csv(io.StringIO(out.out)).empty
    assert out.err.strip() == OLD_NOTE

    assert (
        main(
            [
                "audit",
                "--discover",
                str(cfg),
                "--cross-combat",
                str(PLUGIN_FILE),
                "--format",
                "csv",
                "--no-progress",
            ]
        )
        == 0
    )
    out = capsys.readouterr()
    t = pd.read_csv(io.StringIO(out.out))
    assert len(t)
    assert set(t["system"]) == {"pbta_2d6"}
    assert "no ladder fighters" not in out.err
    weapons = t[t["kind"] == "dominated_weapon"].set_index("subject")
    assert "light_melee" in weapons.index
    assert "heavy_melee" in weapons.loc["light_melee", "by"]
    for r in t[t["kind"].str.startswith("dominated_")].itertuples(index=False):
        first, second = (shlex.split(c)[1:] for c in r.reproduce.split(" ; "))
        got = [run_csv(capsys, *cmd)[r.metric].iloc[0] for cmd in (first, second)]
        assert got == pytest.approx([r.from_value, r.to_value], abs=1e-12)


def test_the_scenario_key_names_the_file_relative_to_itself(plugin_installed, capsys, tmp_path):
    """``cross_combat = "maps/cross.toml"`` in a discovery file: read relative to that
    file (not the working folder), the same findings as ``--cross-combat``."""
    (tmp_path / "maps").mkdir()
    (tmp_path / "maps" / "cross.toml").write_text(PLUGIN_FILE.read_text(encoding="utf-8"))
    keyed = tmp_path / "keyed.toml"
    keyed.write_text('cross_combat = "maps/cross.toml"\n' + DISCOVER_PBTA)
    plain = tmp_path / "plain.toml"
    plain.write_text(DISCOVER_PBTA)
    by_key = run_csv(capsys, "audit", "--discover", str(keyed), "--no-progress")
    by_option = run_csv(
        capsys,
        "audit",
        "--discover",
        str(plain),
        "--cross-combat",
        str(PLUGIN_FILE),
        "--no-progress",
    )
    assert len(by_key)
    assert set(by_key["system"]) == {"pbta_2d6"}
    pd.testing.assert_frame_equal(by_key, by_option)


# ------------------------------------------------------------------------ bad files


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    text = PLUGIN_FILE.read_text(encoding="utf-8")
    mine = (
        'a = { archetype = "competent", weapon = "light_melee" }\n'
        'b = { archetype = "competent", weapon = "light_melee" }\n\n'
        "[matchups.pistol_vs_novice]"
    )  # the pbta_2d6 mapping of melee_equal
    assert text.count(mine) == 1
    unknown = tmp_path / "unknown.toml"
    unknown.write_text(text.replace(mine, mine.replace('"light_melee"', '"laser"', 1)))
    broken = tmp_path / "broken.toml"
    broken.write_text("[matchups.melee_equal\n")
    return {"missing": tmp_path / "nope.toml", "broken": broken, "unknown": unknown}


EXPECTED = {
    "missing": "nope.toml: no such cross-combat file",
    "broken": "broken.toml: not valid TOML",
    "unknown": "unknown.toml: matchups.melee_equal.pbta_2d6.a: competent.weapon: "
    "unknown weapon 'laser'",
}


@pytest.mark.parametrize("kind", list(EXPECTED))
def test_a_bad_file_is_one_line_and_exit_2(plugin_installed, capsys, tmp_path, kind):
    """Every command that takes the file, and the scenario key, name the file and the key
    in one line; nothing is written."""
    bad = _bad_files(tmp_path)[kind]
    out = tmp_path / "out.csv"
    err = fails(capsys, "cross-combat", "--cross-combat", str(bad), "-o", str(out))
    assert err.startswith("error: --cross-combat: ")
    assert EXPECTED[kind] in err
    err = fails(capsys, "audit", "--discover", "--cross-combat", str(bad), "-o", str(out))
    assert err.startswith("error: --cross-combat: ")
    assert EXPECTED[kind] in err
    keyed = tmp_path / "keyed.toml"
    keyed.write_text(f'cross_combat = "{bad.name}"\n' + DISCOVER_PBTA)
    err = fails(capsys, "audit", "--discover", str(keyed), "-o", str(out))
    assert err.startswith("error: keyed.toml: cross_combat: ")
    assert EXPECTED[kind] in err
    report = tmp_path / "report"
    err = fails(
        capsys, "report", "--cross-combat", str(bad), "-o", str(report), "--no-warm-up", "--quiet"
    )
    assert err.startswith("error: --cross-combat: ")
    assert EXPECTED[kind] in err
    assert not out.exists()
    assert not (report / "report.html").exists()


def test_the_report_needs_the_even_duel_and_the_ladder(plugin_installed, capsys, tmp_path):
    """The report's weapon and gear tables play the file's ``melee_equal`` duel and its
    upsets the ladder rungs: a file without them fails before any work."""
    text = PLUGIN_FILE.read_text(encoding="utf-8")
    no_even = tmp_path / "no_even.toml"
    no_even.write_text(text.replace("melee_equal", "melee_even"))
    err = fails(
        capsys,
        "report",
        "--cross-combat",
        str(no_even),
        "-o",
        str(tmp_path / "r"),
        "--no-warm-up",
        "--quiet",
    )
    assert err.endswith(
        "no_even.toml: matchups.melee_equal: missing (the report's weapon "
        "and gear tables play its even duel)"
    )
    no_ladder = tmp_path / "no_ladder.toml"
    no_ladder.write_text(text[: text.index("# ----", text.index("[matchups.pistol_vs"))])
    err = fails(
        capsys,
        "report",
        "--cross-combat",
        str(no_ladder),
        "-o",
        str(tmp_path / "r"),
        "--no-warm-up",
        "--quiet",
    )
    assert "no_ladder.toml: ladder.dice_pool_7.novice: missing (the report's upsets" in err
    assert not (tmp_path / "r" / "report.html").exists()


def test_cross_combat_without_discover_is_refused(capsys):
    err = fails(capsys, "audit", "--cross-combat", str(PLUGIN_FILE))
    assert err == "error: --cross-combat: only with --discover (a guardrail names its own fighters)"


# ------------------------------------------------------------------------ the report

SYSTEMS = ("d20_degrees", "pbta_2d6")
UNMAPPED = (
    "pbta_2d6 is not in this section: the cross-combat mapping file "
    "(analysis/data/cross_combat.toml) maps no fights for it."
)


@pytest.fixture
def sections(plugin_installed):
    """The five combat sections and the distance section with the plug-in's file, on
    two systems and few Monte Carlo fights (the group fights): the cheapest build that
    covers them."""
    from reports import sections as S
    from reports.settings import ReportSettings

    settings = ReportSettings(
        systems=SYSTEMS, combat_trials=400, pdf=False, progress=False, cross_combat=PLUGIN_FILE
    )
    fns = (
        S.section_combat_duels,
        S.section_combat_groups,
        S.section_combat_weapons,
        S.section_combat_gear,
        S.section_combat_upsets,
        S.section_distance,
    )
    return {sec.id: sec for sec in (fn(settings) for fn in fns)}


def _tables(section) -> dict:
    return {b.id: b for b in section.blocks if hasattr(b, "frame")}


@pytest.mark.slow
def test_report_combat_sections_show_the_plugin(sections, capsys):
    """With the file the plug-in has rows in every combat section's table instead of the
    "maps no fights" sentence; its duel rows are the numbers ``duel`` prints; each table
    names the file."""
    secs = sections
    for sid in ("combat-duels", "combat-groups", "combat-weapons", "combat-gear", "combat-upsets"):
        text = " ".join(map(str, secs[sid].reading))
        assert "is not in this section" not in text, sid
        assert "pbta_2d6" in text, sid
        tables = _tables(secs[sid])
        # the group fights have one table per fight (combat-groups-2v2, …)
        mine = (
            [tables[sid]]
            if sid in tables
            else [
                t
                for tid, t in tables.items()
                if tid.startswith(f"{sid}-") and tid != "combat-groups-deadliness"
            ]
        )
        assert mine, sid
        for table in mine:
            assert set(table.frame["system"]) == set(SYSTEMS), sid
            assert f"Fights from the cross-combat file {PLUGIN_FILE}." in table.caption.text
    duels = _tables(secs["combat-duels"])["combat-duels"].frame
    for mid, fighters in DUELS.items():
        row = duels[(duels["matchup"] == mid) & (duels["system"] == "pbta_2d6")].iloc[0]
        duel = run_csv(capsys, "duel", "pbta_2d6", *fighters).iloc[0]
        assert row["A wins"] == pytest.approx(duel["p_side0"], abs=1e-12)
        assert row["rounds"] == pytest.approx(duel["rounds_mean"], abs=1e-12)
    assert f"({PLUGIN_FILE}, an editable assumption)" in secs["combat-duels"].reading[0]
    # the distance section's charger is the file's ladder fighter (d20_degrees: the
    # competent rung with light_melee, as in the packaged file), the table names the file
    distance = _tables(secs["distance"])["distance"]
    assert distance.caption.text.endswith(f"Fights from the cross-combat file {PLUGIN_FILE}.")
    assert set(distance.full["charger"]) == {"competent (weapon=light_melee)"}
    # the upsets: the duel alone, and why there is no single roll beside it (no
    # opposed-check rule, no rungs on the common ladder)
    upset = next(r for r in secs["combat-upsets"].reading if r.startswith("pbta_2d6:"))
    duel = run_csv(
        capsys,
        "duel",
        "pbta_2d6",
        "novice",
        "competent",
        "--weapon-a",
        "light_melee",
        "--weapon-b",
        "light_melee",
    ).iloc[0]
    assert f"a novice wins {100 * duel['p_side0']:.1f}% of duels" in upset
    assert "no single roll" in upset
    assert "nan" not in upset


def test_report_provenance_names_the_file(plugin_installed):
    from reports.sections.assumptions import section_assumptions
    from reports.sections.provenance import provenance_frame
    from reports.settings import ReportSettings

    named = ReportSettings(systems=SYSTEMS, cross_combat=PLUGIN_FILE)
    items = dict(provenance_frame(named).itertuples(index=False))
    assert items["cross-combat file of the combat sections"] == str(PLUGIN_FILE)
    assert any(str(PLUGIN_FILE) in r for r in section_assumptions(named).reading)
    plain = ReportSettings(systems=SYSTEMS)
    assert "cross-combat file of the combat sections" not in set(provenance_frame(plain)["item"])
    assert not any("cross-combat file" in r for r in section_assumptions(plain).reading)


def test_report_without_the_file_leaves_the_plugin_out(plugin_installed):
    """The packaged file maps no pbta_2d6 fights: each combat section says so in its one
    sentence (the section holds nothing else when no system is left)."""
    from reports import sections as S
    from reports.settings import ReportSettings

    settings = ReportSettings(systems=("pbta_2d6",), pdf=False, progress=False)
    for fn in (
        S.section_combat_duels,
        S.section_combat_groups,
        S.section_combat_weapons,
        S.section_combat_gear,
        S.section_combat_upsets,
    ):
        assert fn(settings).reading == [UNMAPPED]


def test_discovery_needs_the_attacker_rung_in_the_file(plugin_installed, capsys, tmp_path):
    """Every finding plays the even duel of the ``attacker`` rung: a file whose ladder
    lacks it is one line naming the file and the rung, before any duel."""
    cfg = tmp_path / "d.toml"
    cfg.write_text(DISCOVER_PBTA + 'attacker = "master"\n')
    err = fails(capsys, "audit", "--discover", str(cfg), "--cross-combat", str(PLUGIN_FILE))
    assert err == (
        f"error: {PLUGIN_FILE}: ladder.pbta_2d6.master: missing (the attacker "
        "rung of --discover, whose even duel every finding plays)"
    )


def test_report_takes_the_file_from_the_option_or_the_guardrail_file(plugin_installed, tmp_path):
    """``report --cross-combat FILE`` and the ``cross_combat`` key of the ``--guardrails``
    file (relative to it) reach the settings, the option winning; the command that
    reproduces the report carries them; without either the settings hold None (the
    packaged file) and the default command."""
    from cli.main import build_parser
    from cli.report import settings_from_args

    parse = build_parser().parse_args
    assert settings_from_args(parse(["report"])).cross_combat is None
    s = settings_from_args(parse(["report", "--cross-combat", str(PLUGIN_FILE)]))
    assert s.cross_combat == PLUGIN_FILE
    assert f"--cross-combat {PLUGIN_FILE}" in s.command
    (tmp_path / "maps").mkdir()
    mine = tmp_path / "maps" / "cross.toml"
    mine.write_text(PLUGIN_FILE.read_text(encoding="utf-8"))
    guard = tmp_path / "guard.toml"
    guard.write_text(
        'cross_combat = "maps/cross.toml"\n'
        + (ROOT / "examples" / "plugin_system" / "scenarios" / "even_duel.toml").read_text(
            encoding="utf-8"
        )
    )
    s = settings_from_args(parse(["report", "--guardrails", str(guard)]))
    assert s.cross_combat.resolve() == mine.resolve()
    s = settings_from_args(
        parse(["report", "--guardrails", str(guard), "--cross-combat", str(PLUGIN_FILE)])
    )
    assert s.cross_combat == PLUGIN_FILE
