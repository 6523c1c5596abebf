"""``rpg-balance serve``: more of the command line on the workbench (issue 32 item 3).

* the Duel tab's distance table (``duel --table distance --distances …``, exact; RULES.md
  "Distance, movement and cover") and its deadliness figures (the lethality fates and
  deaths of ``duel``'s summary, RULES.md "Lethality outcomes", LO-r3) are the numbers of
  the command the page shows, run in-process — a built-in and the example plug-in;
* the Groups tab's fight (``combat FILE --method mc``): the figures and their standard
  errors are the command's, for a shipped matchup file and an uploaded plug-in one; the
  same seed gives the same numbers; Stop ends a run between batches; a bad upload is one
  message, the command's own;
* the Sensitivity tab (``sensitivity analysis/data/guardrails.toml --knobs FILE``): the
  readings and the indices are the command's;
* the new keys of the address round-trip and refuse bad values with one message;
* in a real browser: the Groups tab runs a small fight and shows the command's figure,
  and the Duel tab's distance table opens with the command's numbers.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
import types
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd
import pytest

from cli.main import main
from reports.workbench import model

sys.path.insert(0, str(Path(__file__).parent))
from browser_page import watch

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_AMBUSH = ROOT / "examples" / "plugin_system" / "scenarios" / "ambush_2v1.toml"


def run_cli(capsys, command: str, replace: dict | None = None) -> tuple[pd.DataFrame, str]:
    """The table and stderr of a command the page shows, run in-process (``replace``:
    a word of the command → the path the test gives the command line)."""
    words = shlex.split(command)
    assert words[0] == "rpg-balance"
    words = [(replace or {}).get(w, w) for w in words[1:]]
    capsys.readouterr()
    rc = main(words)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return pd.read_csv(io.StringIO(out)), err


def _swordsman_and_shooter(system: str) -> model.DuelState:
    d = model.default_duel(system)
    d.a, d.b = "competent_swordsman", "competent_shooter"
    d.distances = "0,10,30"
    return d


# ---------------------------------------------------------------- the Duel tab


@pytest.mark.parametrize("system", ["dice_pool_7", "pbta_2d6"])
def test_distance_table_equals_the_cli(system, request, capsys):
    if system == "pbta_2d6":
        request.getfixturevalue("plugin_installed")
    d = _swordsman_and_shooter(system)
    r = model.distance_result(d)
    assert r.command.endswith("--table distance --distances 0,10,30 --format csv")
    cli, _err = run_cli(capsys, r.command)
    assert list(cli["distance"]) == [0, 10, 30]
    for key in ("p_side0", "p_side1", "p_neither", "p_loser_dead", "p_someone_dead", "rounds_mean"):
        assert list(r.table[key]) == pytest.approx(list(cli[key]), abs=1e-12), key
    # the starting distance matters to a swordsman against a shooter
    assert cli["p_side0"].iloc[0] != pytest.approx(cli["p_side0"].iloc[-1], abs=1e-3)
    assert r.figure[:4] == b"\x89PNG"


def test_distances_validated_as_the_cli_does(capsys):
    from engines.errors import InputError

    assert model.check_distances("dice_pool_7", " 0, 25 ,200") == "0,25,200"
    for text, words in (("201", "0..200"), ("a", "whole metres"), ("", "expected metres")):
        with pytest.raises(InputError, match=words):
            model.check_distances("dice_pool_7", text)
        capsys.readouterr()
        assert (
            main(
                [
                    "duel",
                    "dice_pool_7",
                    "competent",
                    "competent",
                    "--table",
                    "distance",
                    "--distances",
                    text or ",",
                ]
            )
            == 2
        )
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("method", ["exact", "mc"])
def test_deadliness_beside_the_summary_equals_the_cli(method, capsys):
    """LO-r3: the loser's fates, someone dead and the mean dead, as ``duel`` prints them
    (with Monte Carlo, each with its SE)."""
    from reports.workbench.app import Workbench

    query = {"tab": "duel", "duel-system": "dice_pool_6"}
    if method == "mc":
        query.update({"method": "mc", "trials": "2000", "seed": "5"})
    wb = Workbench(query)
    d = wb.state.duel
    r = model.duel_result(d, figure=False)
    wb._show_duel(r)  # the page's own display of a finished run
    cli, _err = run_cli(capsys, model.duel_command(d))
    shown = wb.d_deadly.object
    values = dict(zip(shown["figure"], shown["value"], strict=True))
    assert values["someone dead"] == f"{100 * cli['p_someone_dead'][0]:.2f}%"
    assert values["loser dead"] == f"{100 * cli['p_loser_dead'][0]:.2f}%"
    assert values["dead (mean)"] == f"{cli['deaths_mean'][0]:.4f}"
    if method == "mc":
        se = dict(zip(shown["figure"], shown["SE"], strict=True))
        assert se["someone dead"] == f"{100 * cli['se_someone_dead'][0]:.2f}%"
        assert cli["se_someone_dead"][0] > 0
    else:
        assert "SE" not in shown.columns


# ---------------------------------------------------------------- the Groups tab


def test_group_fight_equals_the_cli_and_is_reproducible(capsys):
    assert {"ambush_3v1", "d20_patrol_2v2"} <= set(model.shipped_scenarios())
    g = model.GroupState("ambush_3v1", 1500, 3)
    m = model.load_matchup("ambush_3v1")
    r = model.group_result(g, m, "scenarios/combat/ambush_3v1.toml")
    assert r.command == (
        "rpg-balance combat scenarios/combat/ambush_3v1.toml --method mc "
        "--trials 1500 --seed 3 --format csv"
    )
    cli, _err = run_cli(capsys, r.command)
    for key, se in [*model.GROUP_FIGURES, ("p_side1_dead", "se_side1_dead")]:
        assert r.row[key] == pytest.approx(cli[key][0], abs=1e-12), key
        assert r.row[se] == pytest.approx(cli[se][0], abs=1e-12), se
    assert cli["se_side0"][0] > 0
    again = model.group_result(g, m, "scenarios/combat/ambush_3v1.toml")
    assert again.row["p_side0"] == r.row["p_side0"]
    other = model.group_result(model.GroupState("ambush_3v1", 1500, 4), m, "x.toml")
    assert other.row["p_side0"] != r.row["p_side0"]


def test_uploaded_plugin_group_fight_equals_the_cli(plugin_installed, capsys):
    m = model.load_matchup_upload(PLUGIN_AMBUSH.read_bytes(), "ambush_2v1.toml")
    assert m.system == "pbta_2d6"
    assert m.sizes == (2, 1)
    r = model.group_result(model.GroupState("upload", 1000, 2), m, "ambush_2v1.toml")
    cli, _err = run_cli(capsys, r.command, {"ambush_2v1.toml": str(PLUGIN_AMBUSH)})
    for key, se in model.GROUP_FIGURES:
        assert r.row[key] == pytest.approx(cli[key][0], abs=1e-12), key
        assert r.row[se] == pytest.approx(cli[se][0], abs=1e-12), se


def _stop_and_wait(wb) -> None:
    """Press the page's Stop and poll until its background run has ended."""
    wb._on_stop()
    for _ in range(1800):
        wb.poll()
        if not wb._job:
            break
        time.sleep(0.1)


def _stopping(calls: list):
    """A progress callback that records its call and stops the run (as Stop does)."""

    def stop(*args):
        calls.append(args)
        raise model.Cancelled

    return stop


def test_stop_ends_a_group_fight_between_batches(monkeypatch):
    from analysis.combat import lethality
    from reports.workbench.app import Workbench

    monkeypatch.setattr(lethality, "MC_BATCH", 2000)
    wb = Workbench({"tab": "groups", "group-trials": "20000", "group-seed": "1"})
    wb.f_table.object = pd.DataFrame({"an earlier run": [1]})  # cleared when a run starts
    wb._on_run_group()
    _stop_and_wait(wb)
    # Stop lands between two batches: after the first one, or a later one when the page's
    # own work after the click outlasts a batch of 2,000 fights (a loaded machine)
    # counts in the language's style: "2,000 of 20,000"
    stopped = re.search(
        r"Stopped between batches after ([\d,]+) of 20,000 fights", wb.f_status.object
    )
    assert stopped, wb.f_status.object
    assert int(stopped.group(1).replace(",", "")) % 2000 == 0
    assert int(stopped.group(1).replace(",", "")) < 20000
    assert wb.f_table.object is None
    assert not wb.f_run.disabled
    assert wb.f_stop.disabled
    # in the model: the run raises Cancelled at the first batch's end
    done: list = []
    stop = _stopping(done)
    with pytest.raises(model.Cancelled):
        model.group_result(
            model.GroupState("ambush_3v1", 6000, 1),
            model.load_matchup("ambush_3v1"),
            "x.toml",
            on_batch=stop,
        )
    assert done == [(2000, 6000)]


def test_stop_ends_a_sensitivity_study_between_guardrails():
    """The Sensitivity tab's Stop: the study ends before its next guardrail, the page
    says after how many of how many, shows no partial table, and can run again."""
    from analysis.workflow import audit
    from analysis.workflow import sensitivity as sens
    from reports.workbench.app import Workbench

    n = len(sens.load_problem(audit.DATA, sens.DEFAULT_KNOBS).scenario.guardrails)
    assert n > 2
    wb = Workbench({"tab": "sensitivity"})
    # an earlier study's figures, cleared when a run starts
    wb.s_readings.object, wb.s_table.object = "- an earlier study", pd.DataFrame({"x": [1]})
    wb._on_run_sensitivity()
    assert not wb.s_stop.disabled
    assert wb.s_run.disabled
    _stop_and_wait(wb)
    stopped = re.search(
        r"Stopped between guardrails after (\d+) of (\d+); nothing is shown", wb.s_status.object
    )
    assert stopped, wb.s_status.object
    assert int(stopped.group(2)) == n
    assert int(stopped.group(1)) < n
    assert wb.s_table.object is None
    assert wb.s_heatmap.object is None
    assert wb.s_readings.object == ""
    assert not wb.s_run.disabled
    assert wb.s_stop.disabled
    # in the model: the study raises Cancelled before its first guardrail
    calls: list = []
    with pytest.raises(model.Cancelled):
        model.sensitivity_run(None, on_guardrail=_stopping(calls))
    assert calls == [(0, n)]


def test_bad_upload_is_one_message_the_clis(tmp_path, capsys):
    from reports.workbench.app import Workbench

    bad = (
        b'system = "dice_pool_7"\n[[side0]]\narchetype = "nobody"\n[[side1]]\n'
        b'archetype = "competent"\n'
    )
    path = tmp_path / "bad.toml"
    path.write_bytes(bad)
    capsys.readouterr()
    assert main(["combat", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    wb = Workbench({"tab": "groups"})
    wb.f_upload.filename = "bad.toml"
    wb._on_group_upload(types.SimpleNamespace(new=bad))
    lines = wb.messages.object.splitlines()
    assert len(lines) == 1, lines
    assert "bad.toml" in lines[0]
    assert "nobody" in lines[0]
    assert lines[0].removeprefix("- ") in err
    assert wb.state.groups.scenario == "ambush_3v1"  # the bad file is not taken
    for data, words in (
        (b"\xff\xfe", "not UTF-8"),
        (b"x = [", "not valid TOML"),
        (b"a" * (model.MAX_UPLOAD + 1), "larger than"),
    ):
        with pytest.raises(Exception, match=words):
            model.load_matchup_upload(data, "../../etc/passwd")


# ---------------------------------------------------------------- the Sensitivity tab

KNOBS = '[tune]\n[[tune.knobs]]\nknob = "dice_pool_6:variant.threshold"\nvalues = [7, 6, 5]\n'


@pytest.mark.slow
def test_sensitivity_equals_the_cli(tmp_path, capsys):
    path = tmp_path / "knobs.toml"
    path.write_text(KNOBS)
    calls = []
    r = model.sensitivity_run(
        ("knobs.toml", KNOBS.encode()), on_guardrail=lambda d, t: calls.append((d, t))
    )
    n = len(r.result.table["guardrail"].unique())
    assert calls == [(k, n) for k in range(n + 1)]  # before each guardrail, and at the end
    assert r.command == (
        "rpg-balance sensitivity analysis/data/guardrails.toml --knobs knobs.toml --format csv"
    )
    cli, err = run_cli(capsys, r.command, {"knobs.toml": str(path)})
    assert list(r.result.table["guardrail"]) == list(cli["guardrail"])
    for key in ("S1", "ST"):
        assert list(r.result.table[key]) == pytest.approx(list(cli[key]), abs=1e-12)
    touched = cli[cli["touches"]]
    assert len(r.view) == len(touched) > 0
    assert sorted(r.view["total index (ST)"]) == pytest.approx(sorted(touched["ST"]))
    for reading in r.readings:  # the command's readings, on stderr
        assert reading in err
    assert r.heatmap[:4] == b"\x89PNG"
    with pytest.raises(Exception, match="needs at least two levels"):
        model.sensitivity_run(
            (
                "bad.toml",
                b'[tune]\n[[tune.knobs]]\nknob = "dice_pool_6:variant.threshold"\nvalues = [7]\n',
            )
        )


def test_bad_knob_upload_is_one_message_the_clis(tmp_path, capsys):
    from reports.workbench.app import Workbench

    bad = b'[tune]\n[[tune.knobs]]\nknob = "dice_pool_6:variant.nothing"\nvalues = [1, 2]\n'
    path = tmp_path / "knobs.toml"
    path.write_bytes(bad)
    capsys.readouterr()
    assert main(["sensitivity", "analysis/data/guardrails.toml", "--knobs", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    wb = Workbench({"tab": "sensitivity"})
    wb.s_upload.filename = "knobs.toml"
    wb._on_knob_upload(types.SimpleNamespace(new=bad))
    assert wb.state.sensitivity.knobs == "upload"
    wb._on_run_sensitivity()
    for _ in range(600):
        wb.poll()
        if not wb._job:
            break
        time.sleep(0.1)
    assert wb.s_status.object == err.removeprefix("error: ")
    assert wb.s_table.object is None
    assert not wb.s_run.disabled


# ---------------------------------------------------------------- the address


def test_new_keys_round_trip_and_refuse_bad_values():
    state = model.default_state()
    state.tab = "groups"
    state.duel = _swordsman_and_shooter("dice_pool_7")
    state.groups = model.GroupState("d20_patrol_2v2", 500, 12)
    state.sensitivity.knobs = "upload"
    query = model.to_query(state)
    assert {
        k: query[k] for k in ("distances", "scenario", "group-trials", "group-seed", "knobs")
    } == {
        "distances": "0,10,30",
        "scenario": "d20_patrol_2v2",
        "group-trials": "500",
        "group-seed": "12",
        "knobs": "upload",
    }
    back, messages = model.parse_query(query)
    assert messages == []
    assert back == state
    assert model.parse_query({"tab": "sensitivity"})[0].tab == "sensitivity"
    for key, value, words in (
        ("scenario", "../../etc/passwd", "choose one of"),
        ("group-trials", "0", "1..10^10"),
        ("group-seed", "-1", "a seed"),
        ("knobs", "/tmp/k.toml", "choose one of"),
        ("distances", "0,999", "0..200"),
    ):
        view, messages = model.parse_query({"duel-system": "dice_pool_7", key: value})
        assert len(messages) == 1, messages
        assert words in messages[0], messages
        assert key in messages[0], messages
        assert view == model.parse_query({"duel-system": "dice_pool_7"})[0]


# ---------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def more_server(tmp_path_factory):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = tmp_path_factory.mktemp("serve_more") / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", "0", "--no-browser"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    with proc.stdout:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert m, line + log.read_text()
        yield m.group(0)
        proc.send_signal(2)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()


def _until(page, expression: str, timeout: float = 60):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(expression, polling=100, timeout=1000 * timeout).json_value()
    except PlaywrightTimeout:
        raise AssertionError(
            f"timed out waiting for {expression}: {page.evaluate('deepText()')}"
        ) from None


@pytest.mark.browser
def test_groups_tab_and_distance_table_in_a_browser(more_server, page, capsys, tmp_path):
    from test_serve import DEEP

    page.set_default_timeout(60_000)
    page.add_init_script(DEEP)
    errors = watch(page)
    g = model.GroupState("ambush_3v1", 1000, 3)
    cmd = model.group_command(g, "scenarios/combat/ambush_3v1.toml")
    cli, _err = run_cli(capsys, cmd)
    wins = f"{100 * cli['p_side0'][0]:.2f}%"
    page.goto(
        more_server + "?" + urlencode({"tab": "groups", "group-trials": "1000", "group-seed": "3"})
    )
    _until(page, "deepText().includes('Run the group fight')")
    assert page.evaluate("clickButton('Run the group fight')") == "ok"
    text = _until(
        page,
        "deepText().includes('Done: 1,000 fights') && "
        f"deepText().includes({json.dumps(cmd)}) && deepText()",
        120,
    )
    cells = page.evaluate("deepAll('td').map(x => x.textContent.trim())")
    assert cells[cells.index("A wins") + 1] == wins, cells
    assert "three thugs ambush a bodyguard" in text.lower()
    shots = [page.screenshot(path=tmp_path / "groups.png", full_page=True)]
    # the Duel tab's distance table, opened
    d = _swordsman_and_shooter("dice_pool_7")
    dist_cmd = model.distance_command(d)
    table, _err = run_cli(capsys, dist_cmd)
    page.goto(
        more_server
        + "?"
        + urlencode(
            {
                "tab": "duel",
                "duel-system": "dice_pool_7",
                "a": d.a,
                "b": d.b,
                "distances": d.distances,
            }
        )
    )
    # the card's header: the element holding its title, up to the header (across the
    # shadow roots Panel's panes live in), clicked
    opened = _until(
        page,
        """(() => { const t = deepAll('*').find(e => !e.children.length
        && e.textContent.trim() === 'Distance table (exact)'); if (!t) return '';
        let x = t; while (x && !(x.classList && x.classList.contains('card-header'))) {
          x = x.parentElement || (x.getRootNode && x.getRootNode().host); }
        if (!x) return 'no header'; x.click(); return 'ok'; })()""",
    )
    assert opened == "ok"
    far = f"{100 * table['p_side0'].iloc[-1]:.2f}%"  # A wins from 30 m apart
    shown = _until(
        page,
        f"deepText().includes({json.dumps(dist_cmd)}) && "
        f"deepAll('td').some(x => x.textContent.trim() === '{far}') && "
        "deepText()",
    )
    assert "A wins" in shown
    shots.append(page.screenshot(path=tmp_path / "distance.png", full_page=True))
    assert all(len(png) > 20_000 for png in shots)
    if os.environ.get("RPG_BALANCE_SCREENSHOTS"):
        for name in ("groups.png", "distance.png"):
            (Path(os.environ["RPG_BALANCE_SCREENSHOTS"]) / name).write_bytes(
                (tmp_path / name).read_bytes()
            )
    assert errors == []


@pytest.mark.browser
def test_sensitivity_shows_progress_and_stops_in_a_browser(more_server, page):
    """The Sensitivity tab in chromium: the study counts its guardrails while it runs,
    the tab's Stop (the one Stop enabled on the page) ends it between two guardrails
    with no partial table, and the study can run again."""
    from test_serve import DEEP

    page.set_default_timeout(60_000)
    page.add_init_script(DEEP)
    errors = watch(page)
    page.goto(more_server + "?" + urlencode({"tab": "sensitivity"}))
    _until(page, "deepText().includes('Run the sensitivity')")
    assert page.evaluate("clickButton('Run the sensitivity')") == "ok"
    _until(page, "deepText().includes('Measuring')")
    stop = (
        "(() => { const b = deepAll('button').find(x => x.textContent.trim() === 'Stop' "
        "&& !x.disabled); if (b) { b.click(); return 'ok'; } return 'no button'; })()"
    )
    assert page.evaluate(stop) == "ok"
    text = _until(page, "deepText().includes('Stopped between guardrails') && deepText()", 180)
    m = re.search(r"Stopped between guardrails after (\d+) of (\d+)", text)
    assert m, text
    assert int(m.group(1)) < int(m.group(2))
    assert "total index (ST)" not in text  # no partial table
    assert page.evaluate("clickButton('Run the sensitivity')") == "ok"
    _until(page, "deepText().includes('Measuring')")
    assert errors == []
