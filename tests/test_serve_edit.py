"""Edits on the workbench page (issue 32 item 1): each duel side's traits and any field of
the system's rules, validated as the command line validates ``--trait-a`` and ``--set``.

* the page's duel with an edit is ``duel ... --rules FILE``'s (a rules file written by
  hand here) and the shown command's (run in-process through ``cli.main``); a trait
  edit of both sides is the ``everyone`` offset that moves both the same way;
* a bad value is refused with one message, and the view keeps what it had;
* an address with edits reproduces the view; the downloaded rules file loads with
  ``--rules`` and reproduces the numbers; a minimal rules file round-trips through
  :func:`analysis.rules.edits_text` and :func:`analysis.rules.load_file`; an uploaded
  file gives every problem on a line of its own;
* the command line's ``--set SYSTEM:KNOB=VALUE`` (duel, curves, solve difficulty) and
  ``duel --trait-a/--trait-b NAME=VALUE``, and their one-line refusals (exit 2);
* in a browser: the shipped rules pinned as A, dice_pool_7's heavy archaic armour's
  ballistic rating (A13, AT2: the armour's rating against ballistic damage) edited on
  the page moves a shooter's duel against a knight in that armour to the numbers of
  ``duel --rules FILE``, and the page's B − A is ``duel --rules FILE`` minus ``duel``.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pandas as pd
import pytest

from analysis.rule_edits import edits_text
from analysis.rules import load_file, using
from cli.main import main
from engines.errors import InputError
from reports.workbench import model

sys.path.insert(0, str(Path(__file__).parent))
from browser_page import watch
from test_serve import DEEP

ROOT = Path(__file__).resolve().parent.parent

#: a shooter (ballistic damage) against a knight in heavy archaic armour, whose ballistic
#: rating (A13, AT2) takes most of a bullet's damage: the edit below decides the fight
QUERY = {
    "tab": "duel",
    "a": "competent_shooter",
    "b": "competent_knight",
    "armour-b": "heavy_archaic",
}
DUEL = [
    "duel",
    "dice_pool_7",
    "competent_shooter",
    "competent_knight",
    "--armour-b",
    "heavy_archaic",
]
EDIT = "dice_pool_7:rules.armour.heavy_archaic.ballistic=0"
#: the same edit as a rules file, written by hand (docs/RULES.md, "Rules as data")
RULES = 'system = "dice_pool_7"\n\n[armour.heavy_archaic]\nballistic = 0\n'
KEYS = ("p_side0", "p_side1", "p_loser_dead", "p_loser_dying", "rounds_mean")


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("edit") / "ballistic0.toml"
    path.write_text(RULES, encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def figures_drawn():
    """Each test's pages finish drawing their figures (a daemon thread still inside
    matplotlib when the interpreter exits would abort it)."""
    import threading

    yield
    for t in threading.enumerate():
        if t.name.startswith("workbench-") and t.name.endswith("-figure"):
            t.join(30)


def cli_row(capsys, *argv) -> pd.Series:
    capsys.readouterr()
    rc = main([*argv, "--format", "csv"] if "--format" not in argv else list(argv))
    out = capsys.readouterr().out
    assert rc == 0, rc
    return pd.read_csv(io.StringIO(out)).iloc[0]


def run_shown(capsys, command: str) -> pd.Series:
    """A command the page shows, run in-process (``rpg-balance`` dropped)."""
    words = shlex.split(command)
    assert words[0] == "rpg-balance", command
    return cli_row(capsys, *words[1:])


def same(row, other) -> None:
    for k in KEYS:
        assert float(row[k]) == pytest.approx(float(other[k]), abs=1e-12), k


def page(query: dict):
    from reports.workbench.app import Workbench

    return Workbench(query)


# ---------------------------------------------------------------- the model = the CLI


def test_page_duel_with_a_rule_edit_equals_duel_rules_file_and_the_shown_command(
    rules_file, capsys
):
    state, messages = model.parse_query({**QUERY, "set": EDIT})
    assert messages == []
    assert state.edits == {"dice_pool_7": {"rules.armour.heavy_archaic.ballistic": "0"}}
    with using(model.page_rules(None, state.edits)):
        r = model.duel_result(state.duel, figure=False)
    by_file, shipped = cli_row(capsys, *DUEL, "--rules", str(rules_file)), cli_row(capsys, *DUEL)
    same(r.row, by_file)
    assert abs(by_file["p_side0"] - shipped["p_side0"]) > 0.3  # the edit decides it
    # the model's command with the page's --set words prints the same numbers
    same(run_shown(capsys, " ".join([r.command, *model.edit_args(state.edits)])), by_file)
    # and so does the command the page itself shows (a Workbench, no browser)
    wb = page({**QUERY, "set": EDIT})
    assert not wb.messages.visible, wb.messages.object
    command = wb.d_command.object.split("\n")[1]
    assert f"--set {EDIT}" in command
    same(run_shown(capsys, command), by_file)
    assert f"A wins {100 * by_file['p_side0']:.1f}%" in wb.d_sentence.object


def test_trait_edits_equal_the_everyone_offset_and_the_shown_command(capsys):
    """Both sides' CON 3 → 5 (``--trait-a``/``--trait-b``) is the offset everyone.CON=+2
    for two fighters whose own CON is 3 (A8: CON sets vitality)."""
    assert model.own_traits("dice_pool_7", "competent_shooter")["CON"] == 3
    assert model.own_traits("dice_pool_7", "competent_knight")["CON"] == 3
    wb = page({**QUERY, "trait-a": "con=5", "trait-b": "CON=5"})
    assert not wb.messages.visible, wb.messages.object
    assert wb.state.duel.traits_a == {"CON": "5"} == wb.state.duel.traits_b
    offset = cli_row(capsys, *DUEL, "--set", "dice_pool_7:everyone.CON=2")
    shipped = cli_row(capsys, *DUEL)
    assert offset["p_loser_dead"] != pytest.approx(shipped["p_loser_dead"], abs=1e-6)
    command = wb.d_command.object.split("\n")[1]
    assert "--trait-a CON=5" in command
    assert "--trait-b CON=5" in command
    same(run_shown(capsys, command), offset)
    # typed into the page's trait field: the same numbers
    wb = page(QUERY)
    wb.r_trait_inputs["a"]["CON"].value = "5"
    wb.r_trait_inputs["b"]["CON"].value = "5"
    assert wb.state.duel.traits_a == {"CON": "5"} == wb.state.duel.traits_b
    same(run_shown(capsys, wb.d_command.object.split("\n")[1]), offset)
    # back to the archetype's own value: no edit left
    wb.r_trait_inputs["a"]["CON"].value = "3"
    assert wb.state.duel.traits_a == {}


# ---------------------------------------------------------------- bad values


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"set": "dice_pool_7:rules.armour.heavy_archaic.ballistic=x"}, "expected a whole number"),
        ({"set": "dice_pool_7:rules.armour.heavy_archaik.ballistic=1"}, "did you mean"),
        ({"set": "dice_pool_7:rules.armour.heavy_archaic.ballistik=1"}, "no field"),
        ({"set": "dice_pool_7:variant.again=9"}, "rules.KIND.ENTRY.FIELD"),
        ({"set": "nowhere:everyone.CON=1"}, "not a system with rule tables"),
        ({"set": "dice_pool_7:rules.armour"}, "expected SYSTEM:KNOB=VALUE"),
        ({"trait-a": "CON=x"}, "a trait is a whole number"),
        ({"trait-a": "vigor=3"}, "no trait 'vigor'"),
        ({"trait-b": "CON=99"}, "less than or equal to 10"),
    ],
)
def test_a_bad_edit_in_the_address_is_one_message(query, words):
    state, messages = model.parse_query({**QUERY, **query})
    assert len(messages) == 1, messages
    assert words in messages[0], messages
    key = next(iter(query))
    assert messages[0].startswith(f"Address value {key}="), messages
    assert state.edits == {}
    assert state.duel.traits_a == {} == state.duel.traits_b


def test_a_bad_edit_on_the_page_is_one_message_and_changes_nothing(capsys):
    wb = page(QUERY)
    before = wb.d_sentence.object
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    assert wb.r_value.value == "2"  # the package's value (A13, AT2)
    wb.r_value.value = "two"
    wb.r_set.clicks += 1
    assert wb.messages.visible
    assert wb.messages.object.count("\n") == 0
    assert "expected a whole number, got 'two'" in wb.messages.object
    assert wb.state.edits == {}
    assert wb.d_sentence.object == before
    wb.r_trait_inputs["a"]["CON"].value = "11"
    assert wb.messages.object.count("\n") == 0
    assert "less than or equal to 10" in wb.messages.object
    assert wb.state.duel.traits_a == {}
    with pytest.raises(InputError) as exc:
        model.with_edit(None, {}, "dice_pool_7", "everyone.CON", "1.5")
    assert "\n" not in str(exc.value)


# ---------------------------------------------------------------- the address, the file


def test_an_address_with_edits_reproduces_the_view():
    wb = page(QUERY)
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    wb.r_value.value = "1"
    wb.r_set.clicks += 1
    wb.r_field.value = "everyone.DES"
    wb.r_value.value = "1"
    wb.r_set.clicks += 1
    wb.r_trait_inputs["b"]["CON"].value = "4"
    assert not wb.messages.visible, wb.messages.object
    query = model.to_query(wb.state)
    assert query["set"] == (
        "dice_pool_7:rules.armour.heavy_archaic.ballistic=1;dice_pool_7:everyone.DES=1"
    )
    assert query["trait-b"] == "CON=4"
    again = page(query)
    assert not again.messages.visible, again.messages.object
    assert again.state == wb.state
    assert again.d_sentence.object == wb.d_sentence.object
    assert again.d_command.object == wb.d_command.object


def test_the_downloaded_rules_file_loads_with_rules_and_gives_the_page_numbers(tmp_path, capsys):
    wb = page({**QUERY, "set": EDIT + ";dice_pool_7:everyone.CON=1"})
    text = wb.r_download.callback().read().decode("utf-8")
    path = tmp_path / wb.r_download.filename
    path.write_text(text, encoding="utf-8")
    assert path.name == "dice_pool_7_rules.toml"
    assert "ballistic = 0" in text
    assert "CON = 1" in text
    assert "lethal" not in text  # only the edits
    by_download = cli_row(capsys, *DUEL, "--rules", str(path))
    same(run_shown(capsys, wb.d_command.object.split("\n")[1]), by_download)
    assert f"A wins {100 * by_download['p_side0']:.1f}%" in wb.d_sentence.object


@pytest.mark.parametrize(
    "text",
    [
        RULES,
        # an added entry (like = …), a removed one, a single-value entry, a list, a capped
        # offset (middle_3d10: B-g weapon categories, B8 damage bonus)
        'system = "middle_3d10"\n[weapon]\nknife = "blades"\nsabre = "blades"\n'
        '[category.light]\ndice = ["C", "M"]\n[damage.bonus]\ndivisor = 3\n'
        "[everyone]\nvigor = { offset = 2, max = 9 }\ncombat = -1\n",
        'system = "dice_pool_7"\n[weapon.crossbow]\nlike = "thrown"\nbonus = 2\n'
        "[weapon.submachine_gun]\nremove = true\n[everyone]\nCON = 1\n",
    ],
)
def test_edits_text_round_trips_through_load_file(text, tmp_path):
    first = tmp_path / "given.toml"
    first.write_text(text, encoding="utf-8")
    rs = load_file(first)
    assert rs
    again = tmp_path / "written.toml"
    again.write_text(edits_text(rs), encoding="utf-8")
    back = load_file(again)
    assert back.tables() == rs.tables()
    assert back.everyone == rs.everyone
    assert back.caps == rs.caps
    assert back.words() == rs.words()


def test_a_loaded_rules_file_becomes_the_page_edits_and_its_problems_one_line_each():
    wb = page(QUERY)
    wb.r_upload.filename = "mine.toml"
    wb.r_upload.value = (
        b'system = "dice_pool_7"\n[armour.heavy_archaic]\nballistic = "a"\n'
        b'thickness = 1\n[weapon.x]\nlike = "nope"\n'
    )
    lines = wb.messages.object.splitlines()
    assert len(lines) == 3, lines
    assert all(line.startswith("- mine.toml: ") for line in lines), lines
    assert wb.state.edits == {}
    wb.r_upload.value = b'system = "dice_pool_7"\n[weapon.crossbow]\nlike = "thrown"\n'
    assert "an entry added needs rpg-balance serve --rules FILE" in wb.messages.object
    assert wb.state.edits == {}
    wb.r_upload.value = RULES.encode()
    assert not wb.messages.visible, wb.messages.object
    assert wb.state.edits == {"dice_pool_7": {"rules.armour.heavy_archaic.ballistic": "0"}}
    assert model.to_query(wb.state)["set"] == EDIT


# ---------------------------------------------------------------- the command line


def test_set_on_the_command_line_is_the_rules_file(rules_file, capsys):
    same(cli_row(capsys, *DUEL, "--set", EDIT), cli_row(capsys, *DUEL, "--rules", str(rules_file)))
    # on top of a rules file: the file's edit stays, the --set one is added
    both = cli_row(capsys, *DUEL, "--rules", str(rules_file), "--set", "dice_pool_7:everyone.CON=1")
    assert "ballistic 2 → 0" in both["rule_edits"]
    assert "CON +1" in both["rule_edits"]
    # and overrides the file's value for the same field
    same(
        cli_row(
            capsys,
            *DUEL,
            "--rules",
            str(rules_file),
            "--set",
            "dice_pool_7:rules.armour.heavy_archaic.ballistic=2",
        ),
        cli_row(capsys, *DUEL),
    )
    for argv in (
        ["curves", "dice_pool_7"],
        ["solve", "difficulty", "--target", "0.7", "--competence", "3", "--system", "dice_pool_7"],
    ):
        row = cli_row(capsys, *argv, "--set", "dice_pool_7:everyone.CON=1")
        assert row["rule_edits"] == "dice_pool_7: everyone's CON +1"


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["--set", "dice_pool_7:rules.armour.heavy_archaic.ballistic=x"],
            "expected a whole number",
        ),
        (["--set", "dice_pool_7:rules.armour.nope.ballistic=1"], "has no armour 'nope'"),
        (["--set", "dice_pool_7:a.CON=1"], "a rule edit is SYSTEM:rules."),
        (["--set", "ballistic=1"], "expected SYSTEM:KNOB=VALUE"),
        (["--trait-a", "CON=x"], "--trait-a CON=x: a trait is a whole number"),
        (["--trait-b", "vigor=3"], "--trait-b vigor=3: dice_pool_7 fighters have no trait"),
        (["--trait-a", "CON"], "--trait-a: expected NAME=VALUE"),
        (["--trait-a", "CON=99"], "less than or equal to 10"),
    ],
)
def test_bad_set_and_trait_options_are_one_line(argv, words, capsys):
    capsys.readouterr()
    assert main([*DUEL, *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert words in err, err
    assert "Traceback" not in err


# ---------------------------------------------------------------- a real browser


def _wait(page, expression: str, timeout: float = 60):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(expression, polling=100, timeout=1000 * timeout).json_value()
    except PlaywrightTimeout:
        raise AssertionError(
            f"timed out waiting for {expression}: {page.evaluate('deepText()')}"
        ) from None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    log = tmp_path_factory.mktemp("serve-edit") / "stderr.txt"
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
        proc.send_signal(2)  # Ctrl-C
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text()


#: the value of the last input labelled ``label`` (the page's own fields)
VALUE_OF = """(label) => { const s = deepAll('input').filter(x => {
  const g = x.closest('.bk-input-group') || x.parentElement;
  const l = g && g.querySelector('label'); return l && l.textContent.trim() === label; }).pop();
  return s ? s.value : null; }"""


@pytest.mark.browser
def test_ballistic_rating_edited_in_the_browser_gives_duel_rules_numbers(
    server, page, rules_file, tmp_path, capsys
):
    errors = watch(page)
    page.set_default_timeout(60_000)
    page.add_init_script(DEEP)
    edited = cli_row(capsys, *DUEL, "--rules", str(rules_file))
    shipped = cli_row(capsys, *DUEL)
    before = f"A wins {100 * shipped['p_side0']:.1f}%"
    after = f"A wins {100 * edited['p_side0']:.1f}%"
    assert before != after
    page.set_viewport_size({"width": 1300, "height": 1900})
    page.goto(server + "?" + urlencode(QUERY))
    _wait(page, f"deepText().includes({json.dumps(before)})")
    # the shipped rules pinned as A (issue 32: pin A, edit B, read the difference)
    assert page.evaluate("clickButton('Pin as A')") == "ok"
    _wait(page, "deepText().includes('A is pinned')")
    # the menu shows the field in the glossary's words (A13), its knob id in the value
    assert (
        page.evaluate("selectByLabel('Rule field', \"Heavy archaic's ballistic (armour, A13)\")")
        == "ok"
    )
    assert _wait(page, f"({VALUE_OF})('Value') === '2' && 'ok'") == "ok"
    assert page.evaluate("inputByLabel('Value', '0')") == "ok"
    assert page.evaluate("clickButton('Set')") == "ok"
    text = _wait(
        page,
        f"deepText().includes({json.dumps(after)}) && "
        f"deepText().includes({json.dumps('--set ' + EDIT)}) && deepText()",
    )
    assert "Address value" not in text
    # the A/B pane: B − A is duel --rules FILE minus duel, and A's command has no edit
    diff = 100 * (edited["p_side0"] - shipped["p_side0"])
    assert abs(diff) > 30  # the edit decides the duel
    text = _wait(page, "deepText().includes('B − A =') && deepText()")
    assert (
        f"A wins: {100 * shipped['p_side0']:.2f}% under A, "
        f"{100 * edited['p_side0']:.2f}% under B; B − A = {diff:+.2f} pp." in text
    ), text
    lines = [x.strip() for x in text.splitlines()]
    assert "rpg-balance " + " ".join(DUEL) + " --format csv" in lines, text  # A: shipped
    url = _wait(page, "window.location.href.includes('set=') && window.location.href")
    assert "heavy_archaic.ballistic%3D0" in url, url
    png = page.screenshot(path=tmp_path / "edit.png", full_page=True)
    assert len(png) > 20_000
    if os.environ.get("RPG_BALANCE_SCREENSHOT_EDIT"):
        Path(os.environ["RPG_BALANCE_SCREENSHOT_EDIT"]).write_bytes(png)
    # a trait typed into A's CON field: the numbers of --trait-a CON=5 under the edit
    traited = cli_row(capsys, *DUEL, "--rules", str(rules_file), "--trait-a", "CON=5")
    assert page.evaluate("inputByLabel('CON (A)', '5')") == "ok"
    wins = f"A wins {100 * traited['p_side0']:.1f}%"
    _wait(
        page, f"deepText().includes({json.dumps(wins)}) && deepText().includes('--trait-a CON=5')"
    )
    # the address holds the edits: a new page from it shows the same numbers
    url = _wait(page, "window.location.href.includes('trait-a=') && window.location.href")
    page.goto(url)
    _wait(page, f"deepText().includes({json.dumps(wins)})")
    assert errors == []


def test_a_refresh_keeps_the_value_being_typed():
    """A refresh of the rules card that leaves the field and its value in force as they
    were (the address echoed back, a pin, another widget's change) does not put the
    value in force back over what the designer is typing; Set then sets what was typed.
    A new field, or a new value in force, still shows its value."""
    wb = page(QUERY)
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    assert wb.r_value.value == "2"  # the package's value (A13, AT2)
    wb.r_value.value = "0"
    wb._rules_widgets()  # the refresh that came late
    assert wb.r_value.value == "0"
    wb.r_set.clicks += 1
    assert not wb.messages.visible, wb.messages.object
    assert wb.state.edits == {"dice_pool_7": {"rules.armour.heavy_archaic.ballistic": "0"}}
    from analysis import rules

    lethal = rules.base_tables("dice_pool_7")["armour"]["heavy_archaic"]["lethal"]
    wb.r_field.value = "rules.armour.heavy_archaic.lethal"
    assert wb.r_value.value == str(lethal) != "0"  # another field: its value in force
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    assert wb.r_value.value == "0"  # the edited value now in force
