"""The workbench's address (``rpg-balance serve``, issue 32 item 5): the query that
carries a view.

* a view written into the address bar's query and read back is the same view, and every
  key is the command line's name for the same thing (``trials``, ``distance``,
  ``weapon-a`` …);
* the documented table (docs/workbench.md, ``serve --help``) is generated from the one
  source, ``ADDRESS`` in reports/workbench/model/state.py, and says the bounds the
  validation enforces;
* an old address (``n=``, ``dist=``, ``ds=`` …) opens the same view as the new one;
* bad values (a hand-edited address, an out-of-range number, a ``../../etc/passwd``
  path) give one message each, never an exception, and no file is read.

In a browser, the old address rewritten to the new names: tests/test_serve.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.main import main
from reports.workbench import model

ROOT = Path(__file__).resolve().parent.parent


def _every_setting_changed() -> model.PageState:
    """A view with every setting of the address off its default."""
    state = model.default_state()
    state.tab, state.lang = "duel", "pt-BR"
    state.check = model.default_check("percentile")
    state.check.axes["level"] = "hard"
    state.check.variants = {"criticals": "false"}
    state.check.target, state.check.competence = 0.55, "60"
    d = model.default_duel("d20_degrees")
    d.a, d.b, d.weapon_a, d.weapon_b = "novice", "expert", "pistol", "rifle"
    d.armour_a, d.armour_b, d.tactic_a, d.tactic_b = "light", "heavy", "power", "defensive"
    d.plan_a, d.plan_b, d.distance, d.aftermath = "hold", "kite", 20, "first_aid"
    d.variants = {"degree_damage": "false"}
    d.method, d.trials, d.seed, d.round_cap = "mc", 5000, 3, 40
    d.traits_a, d.traits_b = {"fighting": "4"}, {"dodge": "3", "stamina": "2"}
    state.duel = d
    state.edits = {"d20_degrees": {"rules.weapon.light_melee.damage": "2", "everyone.parry": "1"}}
    state.audit.source, state.audit.suggest = "upload", False
    d.distances = "0,15,60"
    state.groups = model.GroupState("d20_patrol_2v2", 3000, 9)
    state.sensitivity.knobs = "upload"
    return state


def test_view_round_trips_through_the_query():
    state = _every_setting_changed()
    query = model.to_query(state)
    # every key written, in address order (but pin, A's setup: tests/test_serve_ab.py)
    assert list(query) == [k for k in model.QUERY_KEYS if k != "pin"]
    back, messages = model.parse_query({k: [v.encode()] for k, v in query.items()})
    assert messages == []
    assert back == state
    # the default view has an empty query
    assert model.to_query(model.default_state()) == {}


def test_keys_are_the_command_lines_names(capsys):
    """Item 5 of issue 32: ``trials`` not ``n``, ``distance`` not ``dist``, ``weapon-a``
    …; each key's option exists in that command's ``--help`` and, where the key names an
    option of the command line, the key is the option's name (``--no-suggest`` is
    ``suggest=0``)."""
    query = model.to_query(_every_setting_changed())
    for key in (
        "trials",
        "distance",
        "weapon-a",
        "weapon-b",
        "armour-a",
        "armour-b",
        "tactic-a",
        "plan-b",
        "aftermath",
        "method",
        "seed",
        "round-cap",
        "target",
        "competence",
    ):
        assert key in query, key
    for old in ("n", "dist", "ds", "wa", "xa", "after", "m", "cap", "src", "sg"):
        assert old not in query, old
    helps = {}
    for k in model.ADDRESS:
        if k.cli.startswith("("):  # the tab on screen, the rows of the curves shown, A
            assert k.key in ("tab", "check-axes", "pin"), k
            continue
        words = k.cli.split()
        command = "solve difficulty" if words[0] == "solve" else words[0]
        if command not in helps:
            with pytest.raises(SystemExit):
                main([*command.split(), "--help"])
            helps[command] = capsys.readouterr().out
        options = [w for w in words if w.startswith("--")]
        for option in options:
            assert re.search(re.escape(option) + r"\b", helps[command]), (k.key, option)
        if options and options[0] not in ("--variant", "--no-suggest"):
            # the Groups tab's run settings carry the tab's name (combat --trials)
            assert k.key in (options[0][2:], f"group-{options[0][2:]}"), k
        elif not options:  # a positional: SYSTEM, A, B, the audit's FILE
            assert k.key in ("check-system", "duel-system", "a", "b", "source", "scenario"), k


def test_every_key_documented_where_the_code_says(capsys):
    """docs/workbench.md holds the table generated from ``ADDRESS`` (regenerate it with
    ``address_table(markdown=True)`` when a key changes), ``serve --help`` prints it,
    and every key the page reads is in it with its old short key."""
    doc = (ROOT / "docs" / "workbench.md").read_text(encoding="utf-8")
    table = doc.split("<!-- address-keys:begin -->\n")[1].split("<!-- address-keys:end -->")[0]
    assert table == model.address_table(markdown=True)
    rows = {line.split("|")[1].strip(" `"): line for line in table.splitlines()[2:]}
    assert list(rows) == list(model.QUERY_KEYS)
    for old, new in model.ALIASES.items():
        assert f"| `{old}` |" in rows[new]
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    help_text = capsys.readouterr().out
    for k in model.ADDRESS:
        assert re.search(
            rf"^  {re.escape(k.key)}( \({k.old}\))? +{re.escape(k.cli)}$", help_text, re.M
        ), k.key
    howto = (ROOT / "docs" / "howto" / "workbench.md").read_text(encoding="utf-8")
    assert howto.count("](../workbench.md)") >= 1


def _bounds(values: str) -> tuple[int, int] | None:
    m = re.match(r"(\d+)\.\.(\d+)(?:\^(\d+))?( - 1)?", values)
    if not m:
        return None
    high = int(m[2]) ** int(m[3]) if m[3] else int(m[2])
    return int(m[1]), high - (1 if m[4] else 0)


def test_documented_bounds_are_the_ones_enforced():
    """Each key documented as LOW..HIGH takes LOW and HIGH and refuses one past each
    (read in a system with distance rules); each documented list of words takes every
    word and refuses another."""
    base = {"duel-system": "d20_degrees"}
    numbers = words = 0
    for k in model.ADDRESS:
        bounds = _bounds(k.values)
        if bounds is not None:
            numbers += 1
            low, high = bounds
            for good in (low, high):
                state, messages = model.parse_query({**base, k.key: str(good)})
                assert messages == [], (k.key, good, messages)
                tab = {"groups": state.groups}.get(k.tab, state.duel)
                assert str(getattr(tab, k.attr)) == str(good)
            for bad in (low - 1, high + 1):
                _state, messages = model.parse_query({**base, k.key: str(bad)})
                assert len(messages) == 1, (k.key, bad, messages)
                assert k.key in messages[0], (k.key, bad, messages)
        elif " | " in k.values and k.key not in ("source", "scenario"):
            words += 1
            for word in (w.split()[0] for w in k.values.split(" | ")):
                _state, messages = model.parse_query({**base, k.key: word})
                assert messages == [], (k.key, word, messages)
            _state, messages = model.parse_query({**base, k.key: "other"})
            assert len(messages) == 1, (k.key, messages)
    assert numbers == 6  # distance, trials, seed, round cap, group-trials, group-seed
    assert words == 8  # tab, lang, plan-a, plan-b, aftermath, method, suggest, knobs


def test_an_old_address_opens_the_same_view_as_the_new_one():
    """Every short key of earlier addresses (``n=``, ``dist=``, ``ds=`` …) is read as the
    key that replaced it; when both are given, the new key stands."""
    state = _every_setting_changed()
    new = model.to_query(state)
    back = {v: k for k, v in model.ALIASES.items()}
    old = {back.get(k, k): v for k, v in new.items()}
    assert set(model.ALIASES) <= set(old)  # every alias is read here
    view, messages = model.parse_query(old)
    assert messages == []
    assert view == state
    assert model.to_query(view) == new  # written back under the new names
    view, messages = model.parse_query({"n": "7", "trials": "9", "dist": "5"})
    assert messages == []
    assert view.duel.trials == 9
    # a refused old key is named as the address wrote it
    _view, messages = model.parse_query({"n": "0"})
    assert messages[0].startswith("Address value n='0' ignored: trials:")


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"source": "../../etc/passwd"}, "never a path written in the address"),
        ({"src": "../../etc/passwd"}, "never a path written in the address"),
        ({"a": "../../etc/passwd"}, "unknown archetype"),
        ({"duel-system": "../../etc/passwd"}, "unknown system"),
        ({"trials": "0"}, "expected a number of trials 1..10^10"),
        ({"n": str(10**11)}, "expected a number of trials 1..10^10"),
        ({"round-cap": "-3"}, "expected a round cap 1..1000"),
        ({"distance": "999"}, "expected whole metres 0..200"),
        ({"dist": "999"}, "expected whole metres 0..200"),
        ({"target": "1.5"}, "strictly between 0 and 1"),
        ({"check-variant": "again=7"}, "not allowed"),
        ({"check-axes": "pool=99"}, "is not one of its values"),
        ({"method": "both"}, "expected exact or mc"),
        ({"lang": "xx"}, "choose one of en, pt-BR"),
        ({"guardrails": "/etc/passwd"}, "no such setting"),
    ],
)
def test_bad_address_values_give_a_message(query, words, monkeypatch):
    import builtins

    opened = []
    real_open = builtins.open
    monkeypatch.setattr(
        builtins, "open", lambda f, *a, **k: opened.append(str(f)) or real_open(f, *a, **k)
    )
    state, messages = model.parse_query(query)
    assert len(messages) == 1, messages
    assert words in messages[0], messages
    assert state == model.default_state()
    assert not any("passwd" in f for f in opened)


def test_a_path_is_no_audit_source_even_with_a_guardrail_file(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text("")
    state, messages = model.parse_query({"src": "../../etc/passwd"}, str(g))
    assert state.audit.source == "file"
    assert len(messages) == 1
    state, messages = model.parse_query({"src": "file"})
    assert state.audit.source == "default"
    assert "--guardrails" in messages[0]
