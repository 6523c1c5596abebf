"""``rpg-balance serve``: the live workbench.

* the page's model (``reports.workbench.model``, no browser) gives the command line's
  numbers — one check, one exact duel and one audit verdict per built-in system (and the
  example plug-in's check and duel), compared with ``cli.main.main([... --format csv])``;
* the address bar's query (its keys, their documentation, old addresses, bad values):
  tests/test_serve_address.py;
* two exact duels from two threads at once give the numbers each gives alone;
* the command refuses bad input in one line (exit 2);
* ``serve --rules FILE``: the page computes under the rules file in every callback and
  thread, names it in its header, and its duel is ``duel ... --rules FILE``'s (in the
  model and in a real browser);
* a real browser (pytest-playwright driving Debian's chromium): the server in a
  subprocess on a free port, headless chromium loads a view from its address (and the
  same view from an address of before the keys took the command line's names, rewritten
  to the new names), changes a variant and an archetype, and reads back the number the
  CLI prints for the same input; no console error, no request leaves 127.0.0.1, and a
  screenshot of each tab is saved.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd
import pytest

from cli.main import main
from engines.system import BUILT_IN
from reports.i18n import language
from reports.workbench import model

sys.path.insert(0, str(Path(__file__).parent))
from browser_page import watch

ROOT = Path(__file__).resolve().parent.parent


def cli_csv(capsys, *argv) -> pd.DataFrame:
    capsys.readouterr()
    rc = main([*argv, "--format", "csv"])
    out = capsys.readouterr().out
    assert rc in (0, 1), rc  # audit: 1 when a guardrail fails
    return pd.read_csv(io.StringIO(out))


# ---------------------------------------------------------------- the model = the CLI


@pytest.mark.parametrize("system", BUILT_IN)
def test_check_and_solver_equal_the_cli(system, capsys):
    """The built-ins, each with a roll-setting switch off its default (a plug-in:
    test_plugin_check_and_duel_equal_the_cli)."""
    assert system in model.check_systems()
    c = model.default_check(system)
    fields = model.check_variant_fields(system)
    # one variant off its default, so the variant path is exercised too
    f = next(f for f in fields if f["choices"] and len(f["choices"]) > 1)
    other = next(x for x in f["choices"] if x != f["default"])
    c.variants = model.check_variants(system, {f["name"]: other})
    r = model.check_result(c, figure=False)
    cli = cli_csv(capsys, "curves", system, "--variant", f"{f['name']}={other}")
    for name, value in c.axes.items():
        if value != model.ALL:
            cli = cli[cli[name].astype(str) == value]
    assert len(cli) == len(r.table) > 0
    axes = list(model.default_check(system).axes)
    merged = r.table.merge(cli, on=list(axes), suffixes=("", "_cli"))
    assert len(merged) == len(r.table)
    assert (merged["p"] - merged["p_cli"]).abs().max() < 1e-12
    # the solver's answer is the CLI's
    if r.solve is not None:
        words = r.solve_command.split()[1:]
        solved = cli_csv(capsys, *words)
        assert (
            solved["difficulty"].astype(str).tolist() == r.solve["difficulty"].astype(str).tolist()
        )
        assert solved["p"].tolist() == pytest.approx(r.solve["p"].tolist(), abs=1e-12)


def _duel_row(capsys, command: str) -> pd.Series:
    words = command.split()
    assert words[0] == "rpg-balance"
    return cli_csv(capsys, *[w for w in words[1:] if w not in ("--format", "csv")]).iloc[0]


@pytest.mark.parametrize("system", model.combat_systems())
def test_exact_duel_and_one_hit_equal_the_cli(system, capsys):
    d = model.default_duel(system)
    weapons = model.gear_options(system, "weapon")
    d.weapon_b = weapons[-1]
    d.aftermath = "finish"
    r = model.duel_result(d, figure=False)
    assert "--weapon-b" in r.command
    assert "aftermath=finish" in r.command
    row = _duel_row(capsys, r.command)
    for key in (
        "p_side0",
        "p_side1",
        "p_neither",
        "rounds_mean",
        "p_loser_dead",
        "p_loser_dying",
        "p_loser_out",
    ):
        assert r.row[key] == pytest.approx(row[key], abs=1e-9), key
    assert row["method"] == r.row["method"] == "exact"
    assert row["a"] == r.row["a"]
    assert row["b"] == r.row["b"]
    hit = _duel_row(capsys, r.one_hit_command)
    for key in ("p_hit", "p_incapacitate", "p_kill"):
        assert r.one_hit.loc[0, key] == pytest.approx(hit[key], abs=1e-12), key


def test_plugin_check_and_duel_equal_the_cli(plugin_installed, capsys):
    assert "pbta_2d6" in model.check_systems()
    assert "pbta_2d6" in model.combat_systems()
    c = model.default_check("pbta_2d6")
    r = model.check_result(c, figure=False)
    cli = cli_csv(capsys, "curves", "pbta_2d6")
    for name, value in c.axes.items():
        if value != model.ALL:
            cli = cli[cli[name].astype(str) == value]
    assert sorted(cli["p"].round(12)) == sorted(r.table["p"].round(12))
    d = model.default_duel("pbta_2d6")
    dr = model.duel_result(d, figure=False)
    assert dr.row["p_side0"] == pytest.approx(_duel_row(capsys, dr.command)["p_side0"], abs=1e-12)


@pytest.mark.slow
def test_audit_verdicts_equal_the_cli(capsys):
    from analysis.workflow import audit

    page = model.audit_result(audit.load_guardrails(None), suggest=False)
    cli = cli_csv(capsys, "audit", "--no-suggest")
    # the shipped guardrails (analysis/data/guardrails.toml) judge the five built-ins; a
    # plug-in is audited from a file of its own
    assert set(page["system"]) == set(BUILT_IN) == set(cli["system"])
    assert page["guardrail"].tolist() == cli["guardrail"].tolist()
    assert page["status"].tolist() == cli["status"].tolist()
    assert page["value"].to_numpy() == pytest.approx(cli["value"].to_numpy(), abs=1e-9)
    assert (
        model.audit_command("default", None, False) == "rpg-balance audit --no-suggest --format csv"
    )


def test_monte_carlo_duel_equals_the_cli_and_stops_between_batches(capsys):
    d = model.default_duel("dice_pool_6")
    d.method, d.trials, d.seed = "mc", 3000, 7
    seen = []
    r = model.duel_result(d, on_batch=lambda done, total: seen.append((done, total)), figure=False)
    assert seen == [(3000, 3000)]
    row = _duel_row(capsys, r.command)
    assert "--trials 3000 --seed 7" in r.command
    assert r.row["p_side0"] == row["p_side0"]
    assert r.row["se_side0"] == row["se_side0"] > 0
    assert "±" in r.sentence  # every Monte Carlo figure shown carries its SE
    # a run of several batches stops between them when asked
    from analysis.combat.lethality import MC_BATCH

    d.trials = 3 * MC_BATCH
    done = []

    def stop(n, total):
        done.append(n)
        raise model.Cancelled

    with pytest.raises(model.Cancelled):
        model.duel_result(d, on_batch=stop, figure=False)
    assert done == [MC_BATCH]


def test_uploaded_file_is_parsed_in_memory():
    data = (ROOT / "analysis" / "data" / "guardrails.toml").read_bytes()
    (sc,) = model.load_upload(data, "../../mine.toml")
    assert sc.guardrails
    with pytest.raises(Exception, match="not a TOML file"):
        model.load_upload(b"\xff\xfe", "x.toml")
    with pytest.raises(Exception, match="larger than"):
        model.load_upload(b" " * (model.MAX_UPLOAD + 1))


def test_page_words_in_portuguese():
    d = model.default_duel("dice_pool_7")
    with language("pt-BR"):
        r = model.duel_result(d, figure=False)
        _, messages = model.parse_query({"n": "0"})
    assert "vence" in r.sentence
    assert "%" in r.sentence
    assert messages[0].startswith("Valor do endereço")


def test_out_of_range_values_typed_in_the_page_give_a_message():
    """The page object itself (no server): a bad value typed into a field shows one
    line and the last good numbers stay; a good value clears the message."""
    from reports.workbench.app import Workbench

    wb = Workbench({"tab": "duel", "duel-system": "dice_pool_6"})
    before = wb.d_sentence.object
    assert "A wins" in before
    assert not wb.messages.visible
    for widget, text, words in (
        (wb.d_trials, "0", "expected a number of trials 1..10^10"),
        (wb.d_cap, "5000", "expected a round cap 1..1000"),
        (wb.d_seed, "-1", "expected a seed"),
        (wb.d_distance, "999", "expected whole metres 0..200"),
        (wb.c_target, "2", "strictly between 0 and 1"),
    ):
        good = widget.value
        widget.value = text
        assert wb.messages.visible
        assert words in wb.messages.object
        assert "Traceback" not in wb.messages.object
        assert wb.d_sentence.object == before
        widget.value = good
        assert not wb.messages.visible
    wb.c_target.value = "0.5"
    assert wb.url.tab == "duel"
    assert wb.url.duel_system == "dice_pool_6"
    assert wb.url.target == "0.5"
    wb.lang.value = "pt-BR"
    assert [t for t, _ in zip(wb.tabs._names, range(3), strict=False)] == [
        "Testes",
        "Duelo",
        "Auditoria",
    ]
    assert "A vence" in wb.d_sentence.object
    assert wb.url.lang == "pt-BR"


# ---------------------------------------------------------------- serve --rules

#: a designer's rules file (issue 29 item 2): dice_pool_7's heavy archaic armour without
#: its ballistic rating (A13), every fighter's CON + 1
RULES = """system = "dice_pool_7"

[armour.heavy_archaic]
ballistic = 0

[everyone]
CON = 1
"""
#: the duel the rules change: the armoured swordsman charges a shooter from 20 m
RULES_QUERY = {
    "tab": "duel",
    "duel-system": "dice_pool_7",
    "a": "competent_swordsman",
    "b": "competent_shooter",
    "distance": "20",
}


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "no_ballistic.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


def _armoured_duel(capsys, *rules) -> pd.Series:
    argv = [
        "duel",
        "dice_pool_7",
        "competent_swordsman",
        "competent_shooter",
        "--armour-a",
        "heavy_archaic",
        "--variant",
        "distance=20",
    ]
    for f in rules:
        argv += ["--rules", str(f)]
    return cli_csv(capsys, *argv).iloc[0]


def test_page_computes_under_its_rules_in_any_thread(rules_file, capsys):
    """A page served with rules computes under them in every callback, though the
    callback runs where the command line's rules are not in force (here: the test's
    own context, and a thread of its own)."""
    from analysis.rules import in_force, load_files
    from reports.workbench.app import Workbench

    assert in_force() == {}
    wb = Workbench(RULES_QUERY, rules=load_files([rules_file]), rule_files=(str(rules_file),))
    header = wb.root.objects[1].object
    assert "Rules files in force" in header
    assert "armour.heavy_archaic.ballistic 2 → 0; everyone's CON +1" in header
    changed = threading.Thread(
        target=lambda: setattr(wb.d_gear["armour_a"], "value", "heavy_archaic")
    )
    changed.start()
    changed.join(60)
    assert not wb.messages.visible, wb.messages.object
    edited, shipped = _armoured_duel(capsys, rules_file), _armoured_duel(capsys)
    assert f"A wins {percent(edited['p_side0'])}" in wb.d_sentence.object
    assert abs(edited["p_side0"] - shipped["p_side0"]) > 0.1  # the edit matters here
    assert f"--rules {rules_file}" in wb.d_command.object
    # the page's command prints the page's numbers
    command = wb.d_command.object.split("\n")[1]
    assert _duel_row(capsys, command)["p_side0"] == pytest.approx(edited["p_side0"], abs=1e-12)
    # without rules files: no line in the header, no --rules in the commands
    plain = Workbench(RULES_QUERY)
    assert len(plain.root.objects) == 3
    assert "--rules" not in plain.d_command.object


def percent(p: float) -> str:
    """A probability as the page's sentence writes it (English)."""
    from reports.i18n import percent as fmt

    with language("en"):
        return fmt(float(p))


# ---------------------------------------------------------------- threads


@pytest.mark.slow
def test_two_concurrent_exact_duels_give_the_right_numbers():
    a = model.default_duel("d20_degrees")
    b = model.default_duel("dice_pool_7")
    b.b = "expert"
    alone = [model.duel_result(x, figure=False).row["p_side0"] for x in (a, b)]
    results: dict = {}
    barrier = threading.Barrier(2)

    def run(i, d):
        barrier.wait()
        for _ in range(3):
            results.setdefault(i, []).append(model.duel_result(d, figure=False).row["p_side0"])

    threads = [threading.Thread(target=run, args=(i, d)) for i, d in enumerate((a, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results[0] == [alone[0]] * 3
    assert results[1] == [alone[1]] * 3
    assert alone[0] != alone[1]


def test_engine_lock_serves_a_waiting_tab_between_monte_carlo_batches():
    """A long run gives the lock back between batches; a tab that asked meanwhile gets it
    before the run's next batch (a plain lock would let the run take it straight back)."""
    lock = model.FairLock()
    order = []
    lock.acquire()  # the run holds it during a batch
    waiter = threading.Thread(target=lambda: (lock.acquire(), order.append("tab"), lock.release()))
    waiter.start()
    time.sleep(0.2)  # the tab is waiting
    lock.release()  # between batches: give back, ask again
    lock.acquire()
    order.append("next batch")
    lock.release()
    waiter.join(5)
    assert order == ["tab", "next batch"]


# ---------------------------------------------------------------- the command


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--port", "-1"], "expected a port number (0: any free port) 0..65535"),
        (["--port", "70000"], "0..65535"),
        (["--guardrails", "no/such/file.toml"], "no/such/file.toml"),
        (["--lang", "xx"], "--lang"),
    ],
)
def test_bad_command_line_is_one_line(argv, words, capsys):
    assert main(["serve", "--no-browser", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert words in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_host_other_than_this_machine_warns_that_there_is_no_login(monkeypatch, capsys):
    from reports.workbench import app

    calls = []
    monkeypatch.setattr(app, "serve", lambda *a, **k: calls.append((a, k)))
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--no-browser"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: listening on 0.0.0.0")
    assert "no login" in err
    assert calls[0][0] == ("0.0.0.0", 0)
    assert calls[0][1]["show"] is False
    assert main(["serve", "--no-browser"]) == 0
    assert capsys.readouterr().err == ""
    assert calls[1][0] == ("127.0.0.1", 5006)


# ---------------------------------------------------------------- a real browser

DEEP = """
window.deepAll = (sel) => { const out = []; const walk = (root) => {
  root.querySelectorAll(sel).forEach(e => out.push(e));
  root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) walk(e.shadowRoot); }); };
  walk(document); return out; };
window.deepText = () => { const out = []; const walk = (root) => {
  root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) {
    if (String(e.className).includes('alert')) out.push(e.shadowRoot.textContent);
    e.shadowRoot.querySelectorAll(
      '.markdown, .bk-clearfix, h2, p, pre, td, th, label, button, .bk-tab')
      .forEach(x => out.push(x.textContent)); walk(e.shadowRoot); } }); };
  walk(document); return out.join('\\n'); };
window.selectByLabel = (label, value, first) => {
  // the last select of that label (the duel's rule panel comes after the checks' one),
  // or the first (the checks' system menu comes before the duel's)
  const all = deepAll('select').filter(x => { const l = x.parentElement &&
    x.parentElement.querySelector('label'); return l && l.textContent.trim() === label; });
  const s = first ? all[0] : all.pop();
  if (!s) return 'no select ' + label;
  // a menu shows words and Bokeh's options carry them: choose by the words shown
  if (!Array.from(s.options).some(o => o.value === value)) return 'no option ' + value;
  s.value = value; s.dispatchEvent(new Event('change', {bubbles: true})); return 'ok'; };
window.inputByLabel = (label, value) => {
  const s = deepAll('input').filter(x => { const g = x.closest('.bk-input-group') ||
    x.parentElement; const l = g && g.querySelector('label');
    return l && l.textContent.trim() === label; }).pop();
  if (!s) return 'no input ' + label;
  s.value = value; s.dispatchEvent(new Event('change', {bubbles: true})); return 'ok'; };
window.clickButton = (text) => { const t = deepAll('button').find(x =>
  x.textContent.trim() === text); if (t) { t.click(); return 'ok'; } return 'no button'; };
window.clickTab = (title) => { const t = deepAll('.bk-tab').find(x =>
  x.textContent.trim() === title); if (t) { t.click(); return 'ok'; } return 'no tab'; };
"""


def _wait(page, expression: str, timeout: float = 30):
    """The value of ``expression`` once it is truthy (polled every 0.1 s in the page)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(expression, polling=100, timeout=1000 * timeout).json_value()
    except PlaywrightTimeout:
        raise AssertionError(
            f"timed out waiting for {expression}: {page.evaluate('deepText()')}"
        ) from None


@pytest.fixture
def seen(page):
    """pytest-playwright's ``page`` made ready for the workbench: the helpers of
    :data:`DEEP` in every document it opens, and what it saw recorded — console errors and
    uncaught exceptions (``errors``), the address of every request and websocket
    (``requests``)."""
    import types

    page.set_default_timeout(60_000)
    page.add_init_script(DEEP)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("websocket", lambda ws: requests.append(ws.url))
    return types.SimpleNamespace(errors=watch(page), requests=requests)


def _serving(tmp_path_factory, folder: str, *extra: str):
    """``rpg-balance serve`` (with ``extra`` options) in a subprocess on a free port:
    yields its address, then stops it with Ctrl-C and checks it exited cleanly."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = tmp_path_factory.mktemp(folder) / "stderr.txt"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--port", "0", "--no-browser", *extra],
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
        proc.send_signal(2)  # Ctrl-C
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError("the server did not stop on Ctrl-C") from None
    text = log.read_text()
    assert proc.returncode == 0, text
    assert "Traceback" not in _without_panel_busy_race(text), text


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from _serving(tmp_path_factory, "serve")


#: Panel's own shutdown race: a page callback that finishes on its thread pool while
#: Ctrl-C tears the server down updates ``state.busy``, which Panel has made read-only by
#: then. Panel logs it as "exception calling callback"; the page's code raised nothing.
PANEL_BUSY_RACE = "TypeError: Read-only parameter 'busy' cannot be modified"


def _without_panel_busy_race(text: str) -> str:
    """The server's stderr less the log records that end in Panel's busy-counter race
    (:data:`PANEL_BUSY_RACE`); any other traceback stays."""
    record = (
        r"[^\n]*exception calling callback[^\n]*\nTraceback \(most recent call last\):\n"
        r"(?:[ \t][^\n]*\n)*" + re.escape(PANEL_BUSY_RACE) + r"\n?"
    )
    return re.sub(record, "", text)


#: dice_pool_7's ``again=9`` as the page's sentence says it (A1: the variant's term and
#: its value's words)
AGAIN_9 = "the 10-again rule (A1): 9-again"


@pytest.mark.browser
def test_page_in_a_browser_gives_the_cli_numbers(server, page, seen, tmp_path, capsys):
    query = {
        "tab": "duel",
        "duel-system": "dice_pool_7",
        "a": "competent_swordsman",
        "b": "competent_fencer",
    }
    d = model.default_duel("dice_pool_7")
    d.a, d.b, d.variants = "competent_swordsman", "expert_fencer", {"again": "9"}
    cmd = model.duel_command(d)
    shots = {}
    page.set_viewport_size({"width": 1300, "height": 1700})
    page.goto(server + "?" + urlencode(query))
    _wait(page, "deepText().includes('competent_fencer')")
    # change an archetype and a combat variant
    assert page.evaluate("selectByLabel('Side B', 'expert fencer')") == "ok"
    _wait(page, "deepText().includes('expert_fencer') && deepText().includes('A wins')")
    assert page.evaluate("selectByLabel('The 10-again rule (A1)', '9-again')") == "ok"
    # each pane updates on its own message: wait for the sentence and the command
    text = _wait(
        page,
        f"deepText().includes({json.dumps(cmd)}) && "
        f"deepText().includes({json.dumps(AGAIN_9)}) && deepText()",
    )
    # the address follows the view (it is updated right after the numbers)
    url = _wait(
        page, "window.location.href.includes('duel-variant=again%3D9') && window.location.href"
    )
    shots["duel"] = page.screenshot(path=tmp_path / "duel.png")
    for title in ("Checks", "Audit"):
        assert page.evaluate(f"clickTab('{title}')") == "ok"
        time.sleep(1.0)
        shots[title.lower()] = page.screenshot(path=tmp_path / f"{title.lower()}.png")
    # the address holds the view: a new tab from it shows the same numbers
    page.goto(url)
    again = _wait(page, f"deepText().includes({json.dumps(AGAIN_9)}) && deepText()")
    # an address of before the keys took the command line's names opens the same view,
    # and the page writes the new names back into the address bar
    page.goto(
        server
        + "?"
        + urlencode(
            {
                "tab": "duel",
                "ds": "dice_pool_7",
                "a": "competent_swordsman",
                "b": "expert_fencer",
                "dv": "again=9",
            }
        )
    )
    old = _wait(page, f"deepText().includes({json.dumps(AGAIN_9)}) && deepText()")
    rewritten = _wait(
        page,
        "window.location.href.includes('duel-variant=') && "
        "!window.location.href.includes('dv=') && window.location.href",
    )
    assert "b=expert_fencer" in url, url
    assert "duel-variant=again%3D9" in url, url
    assert cmd in text, text
    row = _duel_row(capsys, cmd)
    wins = f"A wins {100 * row['p_side0']:.1f}%"
    assert wins in text
    assert wins in again
    assert wins in old
    assert _query(rewritten) == _query(url)
    assert seen.errors == []
    away = [
        u
        for u in seen.requests
        if not u.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:"))
    ]
    assert seen.requests
    assert away == []
    for png in shots.values():
        assert len(png) > 20_000
    if os.environ.get("RPG_BALANCE_SCREENSHOT"):
        Path(os.environ["RPG_BALANCE_SCREENSHOT"]).write_bytes(shots["duel"])


def _query(url: str) -> dict[str, str]:
    """The settings an address names (empty values are the defaults)."""
    from urllib.parse import parse_qsl, urlsplit

    return {k: v for k, v in parse_qsl(urlsplit(url).query) if v}


@pytest.fixture(scope="module")
def rules_server(tmp_path_factory, rules_file):
    """``rpg-balance serve --rules FILE`` in a subprocess on a free port."""
    yield from _serving(tmp_path_factory, "serve-rules", "--rules", str(rules_file))


@pytest.mark.browser
def test_served_with_rules_the_page_gives_the_cli_numbers_under_them(
    rules_server, rules_file, page, seen, capsys
):
    """``serve --rules FILE``: armour chosen on the page (a callback the server runs on
    its thread pool) gives ``duel ... --rules FILE``'s numbers, and the page says which
    rules are in force."""
    edited, shipped = _armoured_duel(capsys, rules_file), _armoured_duel(capsys)
    wins = f"A wins {100 * edited['p_side0']:.1f}%"
    assert wins != f"A wins {100 * shipped['p_side0']:.1f}%"
    page.set_viewport_size({"width": 1300, "height": 1700})
    page.goto(rules_server + "?" + urlencode(RULES_QUERY))
    _wait(page, "deepText().includes('competent shooter') && deepText().includes('A wins')")
    assert page.evaluate("selectByLabel('armour A', 'heavy archaic')") == "ok"
    command = f"--armour-a heavy_archaic --variant distance=20 --format csv --rules {rules_file}"
    # each pane updates on its own message: wait for the sentence and the command
    text = _wait(
        page,
        "deepText().includes('heavy archaic') && "
        f"deepText().includes({json.dumps(command)}) && deepText()",
    )
    assert "Rules files in force" in text
    assert "armour.heavy_archaic.ballistic 2 → 0" in text
    assert wins in text, text
    assert seen.errors == []


@pytest.mark.browser
def test_bad_address_in_a_browser_shows_a_message_and_the_server_keeps_serving(server, page, seen):
    page.goto(server + "?" + urlencode({"source": "../../etc/passwd", "n": "-5", "tab": "audit"}))
    text = _wait(page, "deepText().includes('ignored') && deepText()")
    assert "never a path written in the address" in text
    assert "expected a number of trials" in text
    assert "Traceback" not in text
    assert "root:x:0" not in text
    page.goto(server)
    _wait(page, "deepText().includes('Exact chance of success')")
    # the same page in Brazilian Portuguese, from its address
    page.goto(server + "?lang=pt-BR&tab=duel")
    pt = _wait(page, "deepText().includes('A vence') && deepText()")
    assert "bancada interativa" in pt
    assert "Duelo" in pt
    assert seen.errors == []
    assert json.dumps(text)  # the message is plain text


@pytest.mark.browser
def test_monte_carlo_runs_in_the_background_with_its_se_and_stops(server, page, seen, capsys):
    query = {
        "tab": "duel",
        "duel-system": "dice_pool_6",
        "method": "mc",
        "trials": "3000",
        "seed": "7",
    }
    d = model.default_duel("dice_pool_6")
    d.method, d.trials, d.seed = "mc", 3000, 7
    cmd = model.duel_command(d)
    row = _duel_row(capsys, cmd)
    shown = f"A wins {100 * row['p_side0']:.1f}% ± {100 * row['se_side0']:.2f}%"
    page.goto(server + "?" + urlencode(query))
    _wait(page, "deepText().includes('Run Monte Carlo')")
    assert page.evaluate("clickButton('Run Monte Carlo')") == "ok"
    text = _wait(
        page,
        "deepText().includes('Done: 3,000 fights') && "
        f"deepText().includes({json.dumps(shown)}) && "
        f"deepText().includes({json.dumps(cmd)}) && deepText()",
    )
    # a long run: the page answers while it runs, and Stop ends it between batches
    assert page.evaluate("inputByLabel('Monte Carlo fights', '5000000')") == "ok"
    _wait(page, "deepText().includes('5,000,000 fights from seed 7')")
    assert page.evaluate("clickButton('Run Monte Carlo')") == "ok"
    _wait(page, "deepText().includes('Running')")
    assert page.evaluate("clickTab('Checks')") == "ok"
    assert page.evaluate("selectByLabel('System', 'percentile', true)") == "ok"
    _wait(page, "deepText().includes('Exact chance of success in percentile')")
    assert page.evaluate("clickTab('Duel')") == "ok"
    assert page.evaluate("clickButton('Stop')") == "ok"
    stopped = _wait(page, "deepText().includes('Stopped between batches') && deepText()")
    assert cmd in text
    assert shown in text
    assert "of 5,000,000 fights" in stopped
    assert seen.errors == []


@pytest.mark.browser
def test_audit_tab_gives_the_cli_verdicts(server, page, seen, capsys):
    cli = cli_csv(capsys, "audit", "--no-suggest")
    status = cli["status"].value_counts()
    counts = (
        f"{len(cli)} guardrails: {status.get('pass', 0)} pass, "
        f"{status.get('fail', 0)} fail, 0 undecided."
    )
    page.goto(server + "?tab=audit&suggest=0")
    _wait(page, "deepText().includes('Run the audit')")
    assert page.evaluate("clickButton('Run the audit')") == "ok"
    text = _wait(page, "deepText().includes('guardrails:') && deepText()", 120)
    assert counts in text
    assert "rpg-balance audit --no-suggest --format csv" in text
    assert seen.errors == []
