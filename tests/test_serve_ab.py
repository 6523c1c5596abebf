"""A/B on the workbench (``rpg-balance serve``, issue 32 item 2): a setup pinned as A,
the setup on screen as B, compared on every tab.

* the duel's B − A equals the difference of two ``rpg-balance duel`` runs (B with other
  armour), figure by figure, and the one-hit odds too;
* Monte Carlo: the SE of the difference is ``sqrt(SE_A² + SE_B²)`` of the two runs' own
  SEs (as the CLI prints them), and it matches the spread of B − A over 30 seed pairs —
  independent seeds, and shared seeds too (a changed armour consumes the random stream
  differently, so the shared rolls leave the two runs nearly uncorrelated: what the
  module's docstring and the page say);
* the address holds both setups (the ``pin`` key: A's whole query) and round-trips; an
  address without ``pin`` opens as before; a bad pinned value is one message;
* a pinned check: the difference of two ``rpg-balance curves`` runs, and both curves on
  one figure;
* the audit: a guardrail file whose fight B changes (other armour) flips a verdict, found
  with both values equal to two ``rpg-balance audit`` runs;
* the page: pinning caches A (an update computes B alone); in a real browser, pin A,
  change B's armour in dice_pool_7 and read the CLI's difference on the page.
"""

from __future__ import annotations

import io
import math
import os
import re
import statistics
import sys
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pandas as pd
import pytest

from cli.main import main
from reports.workbench import model
from reports.workbench.model import compare

sys.path.insert(0, str(Path(__file__).parent))
from test_serve import seen, server  # noqa: F401  (pytest fixtures)

SYSTEM = "dice_pool_7"


def _wait(page, expression: str, timeout: float = 30):
    """The value of ``expression`` once it is truthy (polled every 0.1 s in the page)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(expression, polling=100, timeout=1000 * timeout).json_value()
    except PlaywrightTimeout:
        raise AssertionError(
            f"timed out waiting for {expression}: {page.evaluate('deepText()')}"
        ) from None


def _every_setting_changed() -> model.PageState:
    """A view with every setting of the address but the pin off its default (as
    tests/test_serve_address.py builds it)."""
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


def cli_csv(capsys, command: str) -> pd.DataFrame:
    words = command.split()
    assert words[0] == "rpg-balance"
    capsys.readouterr()
    rc = main(words[1:])
    out = capsys.readouterr().out
    assert rc in (0, 1), rc  # audit: 1 when a guardrail fails
    return pd.read_csv(io.StringIO(out))


def _pair(armour_b: str = "heavy_archaic", **common) -> tuple[model.DuelState, model.DuelState]:
    a = model.default_duel(SYSTEM)
    for k, v in common.items():
        setattr(a, k, v)
    b = model.DuelState(**{**a.__dict__, "variants": dict(a.variants)})
    b.armour_b = armour_b
    return a, b


# ---------------------------------------------------------------- duel


def test_duel_difference_equals_two_cli_runs(capsys):
    a, b = _pair()
    ra, rb = model.duel_result(a, figure=False), model.duel_result(b, figure=False)
    assert "--armour-b heavy_archaic" in rb.command
    assert "--armour-b" not in ra.command
    t = model.duel_table(ra, rb).set_index("figure")
    cli_a = cli_csv(capsys, ra.command).iloc[0]
    cli_b = cli_csv(capsys, rb.command).iloc[0]
    for key, _se in compare.DUEL_FIGURES:
        assert t.loc[key, "A"] == pytest.approx(cli_a[key], abs=1e-9), key
        assert t.loc[key, "B"] == pytest.approx(cli_b[key], abs=1e-9), key
        assert t.loc[key, "diff"] == pytest.approx(cli_b[key] - cli_a[key], abs=1e-9), key
        assert math.isnan(t.loc[key, "se_diff"])  # both exact: no SE
    # heavy archaic armour on B turns an even duel (A wins half) into B's
    assert cli_a["p_side0"] == pytest.approx(0.5, abs=1e-9)
    assert t.loc["p_side0", "diff"] < -0.49
    hit_a = cli_csv(capsys, ra.one_hit_command).iloc[0]
    hit_b = cli_csv(capsys, rb.one_hit_command).iloc[0]
    for key in compare.ONE_HIT_FIGURES:  # A's attack on B: B's armour changes it
        assert t.loc[f"one_hit_A.{key}", "diff"] == pytest.approx(
            hit_b[key] - hit_a[key], abs=1e-12
        ), key
    assert t.loc["one_hit_A.p_incapacitate", "diff"] < 0


def test_monte_carlo_se_of_the_difference(capsys):
    """The formula on the CLI's own SEs, then a simulation check: over 30 pairs of runs
    the spread of B − A matches it, for independent seeds and for shared ones."""
    a, b = _pair("reinforced_clothing", method="mc", trials=4000, seed=11)
    b.seed = 12
    ra, rb = model.duel_result(a, figure=False), model.duel_result(b, figure=False)
    cli_a = cli_csv(capsys, ra.command).iloc[0]
    cli_b = cli_csv(capsys, rb.command).iloc[0]
    t = model.duel_table(ra, rb).set_index("figure")
    for key, se_key in compare.DUEL_FIGURES:
        assert t.loc[key, "diff"] == pytest.approx(cli_b[key] - cli_a[key], abs=1e-12)
        if se_key is not None:
            want = math.sqrt(cli_a[se_key] ** 2 + cli_b[se_key] ** 2)
            assert t.loc[key, "se_diff"] == pytest.approx(want, rel=1e-9), key
    assert not compare.shared_rolls(a, b)
    assert "conservative" not in compare.se_note(a, b)
    b.seed = a.seed
    assert compare.shared_rolls(a, b)
    assert "conservative" in compare.se_note(a, b)

    def spread(shared: bool) -> tuple[float, float]:
        diffs, ses = [], []
        for i in range(30):
            x, y = _pair("reinforced_clothing", method="mc", trials=1000, seed=100 + i)
            y.seed = x.seed if shared else 1000 + i
            tx = model.duel_table(
                model.duel_result(x, figure=False), model.duel_result(y, figure=False)
            ).set_index("figure")
            diffs.append(tx.loc["p_side0", "diff"])
            ses.append(tx.loc["p_side0", "se_diff"])
        return statistics.stdev(diffs), statistics.mean(ses)

    sd, se = spread(shared=False)
    print(f"independent seeds: spread {sd:.5f}, formula {se:.5f}")
    assert 0.65 < sd / se < 1.4, (sd, se)  # 30 pairs: the spread's own error is ~13 %
    sd_shared, se_shared = spread(shared=True)
    print(f"shared seeds: spread {sd_shared:.5f}, formula {se_shared:.5f}")
    assert 0.65 < sd_shared / se_shared < 1.4, (sd_shared, se_shared)


# ---------------------------------------------------------------- the address


def test_address_with_a_pinned_setup_round_trips():
    b = _every_setting_changed()
    a = model.default_state()
    a.duel = model.default_duel(SYSTEM)
    a.duel.armour_b, a.duel.method, a.duel.seed = "heavy_archaic", "mc", 7
    a.check.target = 0.4
    a.audit.suggest = False
    b.pinned = a
    query = model.to_query(b)
    assert "pin" in query
    pinned = dict(parse_qsl(query["pin"]))
    assert model.default_state().duel.system == SYSTEM  # so A names no system
    assert pinned == {
        "armour-b": "heavy_archaic",
        "method": "mc",
        "seed": "7",
        "target": "0.4",
        "suggest": "0",
    }
    back, messages = model.parse_query({k: [v.encode()] for k, v in query.items()})
    assert messages == []
    assert back == b
    # A holds every key of the address (but the page's own): a new key is pinned too
    # (a key added to the address and not set here fails this test)
    a2 = _every_setting_changed()
    a2.tab, a2.lang = model.default_state().tab, model.default_state().lang
    b.pinned = a2
    inner = dict(parse_qsl(model.to_query(b)["pin"]))
    assert set(inner) == set(model.QUERY_KEYS) - set(model.UNPINNED)
    back, messages = model.parse_query(model.to_query(b))
    assert messages == []
    assert back == b
    # a pinned default view is still a pin; an address without pin opens as before
    b.pinned = model.default_state()
    back, _m = model.parse_query(model.to_query(b))
    assert back.pinned == model.default_state()
    assert model.parse_query({"a": "expert"})[0].pinned is None


def test_bad_pinned_value_is_one_message():
    state, messages = model.parse_query(
        {"pin": urlencode({"armour-b": "../../etc/passwd", "a": "expert"})}
    )
    assert len(messages) == 1, messages
    assert messages[0].startswith("pin: "), messages
    assert "armour-b" in messages[0]
    assert state.pinned.duel.armour_b is None
    assert state.pinned.duel.a == "expert"
    _state, messages = model.parse_query({"pin": urlencode({"tab": "duel"})})
    assert len(messages) == 1, messages
    assert "pin" in messages[0], messages


# ---------------------------------------------------------------- checks


def test_pinned_check_difference_and_two_curves(capsys):
    a = model.default_check(SYSTEM)
    fields = {f["name"]: f for f in model.check_variant_fields(SYSTEM)}
    name, field = next((n, f) for n, f in fields.items() if f["choices"])
    other = next(c for c in field["choices"] if c != field["default"])
    b = model.CheckState(SYSTEM, {name: other}, dict(a.axes), a.target, a.competence)
    ra, rb = model.check_result(a, figure=False), model.check_result(b, figure=False)
    t = model.check_table(ra, rb)
    assert f"{name}={other}" in rb.command
    axes = [c for c in t.columns if c not in ("p_A", "p_B", "diff")]
    cli_a = cli_csv(capsys, ra.command).set_index(axes)["p"]
    cli_b = cli_csv(capsys, rb.command).set_index(axes)["p"]
    got = t.set_index(axes)
    assert len(got) == len(cli_a)
    assert got["diff"].to_numpy() == pytest.approx(
        (cli_b - cli_a).loc[got.index].to_numpy(), abs=1e-12
    )
    assert (got["diff"].abs() > 1e-6).any()  # the variant moves some cell
    from engines.system import get

    fig = compare.check_figure(ra, rb, get(SYSTEM), png=False)
    lines = fig.axes[0].get_lines()
    assert {ln.get_linestyle() for ln in lines} == {"-", "--"}  # A solid, B dashed
    assert sum(ln.get_linestyle() == "-" for ln in lines) == sum(
        ln.get_linestyle() == "--" for ln in lines
    )
    assert compare.check_figure(ra, rb, get(SYSTEM))[:4] == b"\x89PNG"
    # another system: no common cell
    assert (
        model.check_table(ra, model.check_result(model.default_check("percentile"), figure=False))
        is None
    )


# ---------------------------------------------------------------- audit

GUARDRAILS = """
name = "A/B flip"
[[fights]]
name = "even"
system = "dice_pool_7"
a = "competent"
b = {armour}

[[guardrails]]
name = "A wins often enough"
fight = "even"
metric = "p_side0"
min = 0.3
reason = "constructed: the even duel's A should win at least 30 %"

[[guardrails]]
name = "fights end"
fight = "even"
metric = "rounds_mean"
max = 50
reason = "constructed: a fight ends within 50 rounds on average"
"""


def test_audit_flip_found_with_both_values(tmp_path, capsys):
    tables = {}
    for side, armour in (
        ("A", '"competent"'),
        ("B", '{ archetype = "competent", armour = "heavy_archaic" }'),
    ):
        path = tmp_path / f"{side}.toml"
        path.write_text(GUARDRAILS.format(armour=armour), encoding="utf-8")
        page = model.audit_result(model.load_upload(path.read_bytes(), path.name), suggest=False)
        cli = cli_csv(capsys, f"rpg-balance audit {path} --no-suggest --format csv")
        assert page["status"].tolist() == cli["status"].tolist()
        tables[side] = (page, cli)
    flips = model.audit_flips(tables["A"][0], tables["B"][0])
    assert flips["guardrail"].tolist() == ["A wins often enough"]
    row = flips.iloc[0]
    assert (row["status_A"], row["status_B"]) == ("pass", "fail")
    cli_a, cli_b = (tables[s][1].set_index("guardrail") for s in "AB")
    assert row["value_A"] == pytest.approx(cli_a.loc["A wins often enough", "value"])
    assert row["value_B"] == pytest.approx(cli_b.loc["A wins often enough", "value"])
    assert model.audit_flips(tables["A"][0], tables["A"][0]).empty


# ---------------------------------------------------------------- the page (no browser)


def test_page_pins_a_caches_it_and_shows_the_cli_difference(monkeypatch, capsys):
    from reports.workbench.app import Workbench

    wb = Workbench({"tab": "duel", "duel-system": SYSTEM})
    wb._on_pin()
    assert wb.state.pinned is not None
    assert not wb.p_unpin.disabled
    calls = []
    real = model.duel_result
    monkeypatch.setattr(
        model, "duel_result", lambda d, **k: calls.append(d.armour_b) or real(d, **k)
    )
    wb.d_gear["armour_b"].value = "heavy_archaic"
    wb.d_gear["armour_b"].value = "light_archaic"
    assert calls == ["heavy_archaic", "light_archaic"]  # A came from the cache
    text = "\n".join(str(getattr(o, "object", "")) for o in wb.p_duel.objects)
    a, b = _pair("light_archaic")
    row_a = cli_csv(capsys, model.duel_command(a)).iloc[0]
    row_b = cli_csv(capsys, model.duel_command(b)).iloc[0]
    diff = 100 * (row_b["p_side0"] - row_a["p_side0"])
    assert f"B − A = {diff:+.2f} pp" in text, text
    assert model.duel_command(a) in text
    assert model.duel_command(b) in text
    query = model.to_query(wb.state)
    assert query["armour-b"] == "light_archaic"
    assert "pin" in query
    wb._on_unpin()
    assert wb.state.pinned is None
    assert not wb.p_duel.visible


# ---------------------------------------------------------------- a real browser


@pytest.mark.browser
def test_pin_a_change_b_armour_in_a_browser(
    server,  # noqa: F811
    page,
    seen,  # noqa: F811
    tmp_path,
    capsys,
):
    page.set_viewport_size({"width": 1300, "height": 1700})
    page.goto(server + "?" + urlencode({"tab": "duel", "duel-system": SYSTEM}))
    _wait(page, "deepText().includes('A wins')")
    assert page.evaluate("clickButton('Pin as A')") == "ok"
    _wait(page, "deepText().includes('A is pinned')")
    assert page.evaluate("selectByLabel('armour B', 'light archaic')") == "ok"
    text = _wait(
        page,
        "deepText().includes('--armour-b light_archaic') && "
        "deepText().includes('B − A =') && deepText()",
    )
    a, b = _pair("light_archaic")
    row_a = cli_csv(capsys, model.duel_command(a)).iloc[0]
    row_b = cli_csv(capsys, model.duel_command(b)).iloc[0]
    diff = 100 * (row_b["p_side0"] - row_a["p_side0"])
    assert f"B − A = {diff:+.2f} pp" in text, text
    assert model.duel_command(a) in text
    url = _wait(page, "window.location.href.includes('pin=') && window.location.href")
    shot = page.screenshot(path=tmp_path / "duel_ab.png", full_page=True)
    assert len(shot) > 20_000
    if os.environ.get("RPG_BALANCE_AB_SCREENSHOT"):
        Path(os.environ["RPG_BALANCE_AB_SCREENSHOT"]).write_bytes(shot)
    # the address holds both: a new tab from it shows the same difference
    page.goto(url)
    again = _wait(page, "deepText().includes('B − A =') && deepText()")
    assert f"B − A = {diff:+.2f} pp" in again
    assert "pin=" in page.evaluate("window.location.href")
    assert seen.errors == []


def test_page_checks_and_audit_panes(tmp_path, capsys):
    """On the page: a pinned check shows the difference table (the CLI's B − A) under
    the two curves; an audit of an uploaded file pinned as A, then B's file audited,
    shows the flipped verdict with both values."""
    import time

    from reports.workbench.app import Workbench

    wb = Workbench({"check-system": SYSTEM})
    wb._on_pin()
    field = next(f for f in model.check_variant_fields(SYSTEM) if f["choices"])
    other = next(c for c in field["choices"] if c != field["default"])
    wb._c_vars[field["name"]].value = other
    assert not wb.messages.visible, wb.messages.object
    head, table, commands = wb.p_checks.objects
    assert "A/B" in head.object
    shown = table.object
    a, b = wb.state.pinned.check, wb.state.check
    ra, rb = model.check_result(a, figure=False), model.check_result(b, figure=False)
    assert rb.command in commands.object
    assert ra.command in commands.object
    cli = cli_csv(capsys, rb.command)["p"] - cli_csv(capsys, ra.command)["p"]
    got = [float(x.removesuffix(" pp")) for x in shown["B − A"]]
    assert all(x.endswith(" pp") for x in shown["B − A"])
    assert got == pytest.approx((100 * cli).tolist(), abs=0.0051)  # shown to 2 decimals
    assert max(map(abs, got)) > 1  # the variant moves some cell by over a point

    files = {
        side: GUARDRAILS.format(armour=armour).encode()
        for side, armour in (
            ("A", '"competent"'),
            ("B", '{ archetype = "competent", armour = "heavy_archaic" }'),
        )
    }
    wb._upload = ("A.toml", files["A"])
    wb.g_source.value = "upload"
    wb.g_suggest.value = False
    wb._on_pin()
    wb._upload = ("B.toml", files["B"])
    wb._on_run_audit()
    deadline = time.monotonic() + 120
    while wb._job and time.monotonic() < deadline:
        time.sleep(0.1)
        wb.poll()
    head, body, _commands = wb.p_audit.objects
    flips = body.object  # HTML cells: the identifiers in tooltips
    flips.columns = [re.sub(r'^<abbr title="([^"]+)">.*$', r"\1", c) for c in flips.columns]
    assert flips["guardrail"].tolist() == ["A wins often enough"]
    assert [re.sub(r"<[^>]+>", "", x) for x in flips[["status_A", "status_B"]].iloc[0]] == [
        "pass",
        "fail",
    ]
    paths = {}
    for side, data in files.items():
        paths[side] = tmp_path / f"{side}.toml"
        paths[side].write_bytes(data)
    cli = {
        side: cli_csv(capsys, f"rpg-balance audit {p} --no-suggest").set_index("guardrail")
        for side, p in paths.items()
    }
    for side in "AB":
        want = cli[side].loc["A wins often enough", "value"]  # a chance: a percentage
        shown = flips[f"value_{side}"].iloc[0]  # in words: "50%", "about 1 in 710 million"
        rare = re.fullmatch(r"about 1 in ([\d.]+) million", shown)
        if rare:
            assert 1 / (1e6 * float(rare.group(1))) == pytest.approx(want, rel=0.01), shown
        else:
            assert shown.endswith("%"), shown
            assert float(shown.removesuffix("%")) == pytest.approx(100 * want, abs=0.05)


def test_pinned_a_keeps_its_rules_when_b_edits_one(tmp_path, capsys):
    """Issue 32's case: pin A, edit dice_pool_7's heavy archaic ballistic rating as B
    (the page's ``set`` edit): B − A equals ``duel --rules FILE`` minus ``duel``, and
    each side's command prints its own numbers (A's without B's ``--set``)."""
    from reports.workbench.app import Workbench

    query = {
        "tab": "duel",
        "a": "competent_shooter",
        "b": "competent_knight",
        "armour-b": "heavy_archaic",
    }
    duel = (
        "rpg-balance duel dice_pool_7 competent_shooter competent_knight --armour-b heavy_archaic"
    )
    wb = Workbench(query)
    wb._on_pin()
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    wb.r_value.value = "0"
    wb.r_set.clicks += 1
    assert not wb.messages.visible, wb.messages.object
    assert wb.state.edits
    assert not wb.state.pinned.edits
    rules = tmp_path / "ballistic.toml"
    rules.write_text(
        'system = "dice_pool_7"\n\n[armour.heavy_archaic]\nballistic = 0\n', encoding="utf-8"
    )
    row_a = cli_csv(capsys, duel).iloc[0]
    row_b = cli_csv(capsys, f"{duel} --rules {rules}").iloc[0]
    assert abs(row_b["p_side0"] - row_a["p_side0"]) > 0.3  # the edit decides the duel
    text = "\n".join(str(getattr(o, "object", "")) for o in wb.p_duel.objects)
    diff = 100 * (row_b["p_side0"] - row_a["p_side0"])
    assert f"B − A = {diff:+.2f} pp" in text, text
    commands = wb.p_duel.objects[-1].object
    shown_a, shown_b = (line for line in commands.splitlines() if line.startswith("rpg-balance"))
    assert "--set" not in shown_a
    assert "--set dice_pool_7:rules.armour.heavy_archaic.ballistic=0" in shown_b
    for shown, row in ((shown_a, row_a), (shown_b, row_b)):
        got = cli_csv(capsys, shown).iloc[0]
        assert got["p_side0"] == pytest.approx(row["p_side0"], abs=1e-12)
    # the address holds both: A without the edit, B with it
    back, messages = model.parse_query(model.to_query(wb.state))
    assert messages == []
    assert back.pinned.edits == {}
    assert back.edits == wb.state.edits
    # a new page from that address computes A under A's rules (none), not B's edits
    again = Workbench(model.to_query(wb.state))
    text = "\n".join(str(getattr(o, "object", "")) for o in again.p_duel.objects)
    assert f"B − A = {diff:+.2f} pp" in text, text


def test_a_figure_holds_the_axes_it_has_no_room_for():
    """With every axis of d20_degrees whole (modifier × DC × degree), a figure draws the
    modifier along x and one line per DC, and holds the degree at its neutral, 1 (a
    plain success), saying so in its title: each line then rises with the modifier
    (D20 1: a higher modifier never lowers the chance), where a line through all four
    degrees would zigzag. A hand-worked point: DC 11, modifier +0, degree 1 is 10 faces
    of 20 (11 to 20), 50%."""
    import numpy as np

    from engines.system import get
    from reports.workbench.model.checks import hold_extra_axes

    spec = get("d20_degrees")
    r = model.check_result(model.CheckState("d20_degrees"), figure=False)
    assert set(r.table["degree"]) == {1, 2, 3, 4}
    held, words = hold_extra_axes(r.table, spec, ["degree"])
    assert set(held["degree"]) == {1}
    assert words == "Drawn at degree 1; the table shows every value."
    cell = held[(held["dc"] == 11) & (held["modifier"] == 0)]["p"]
    assert cell.iloc[0] == pytest.approx(0.5, abs=1e-12)
    fig = compare.check_figure(r, r, spec, png=False)
    ax = fig.axes[0]
    assert "Drawn at degree 1" in ax.get_title()
    lines = ax.get_lines()
    assert len(lines) == 8  # four DCs, A and B
    for line in lines:
        assert len(line.get_xdata()) == 36  # modifier −5 … +30, once each
        assert (np.diff(line.get_ydata()) >= -1e-12).all(), line.get_label()
    # nothing to hold: a two-axis system's figure has no such title
    r7 = model.check_result(model.CheckState("dice_pool_7"), figure=False)
    ax7 = compare.check_figure(r7, r7, get("dice_pool_7"), png=False).axes[0]
    assert "Drawn at" not in ax7.get_title()


def test_a_plugin_figure_draws_its_ladder_and_holds_its_roll(plugin_installed):
    """The example plug-in's axes (modifier, roll, level), all whole: its ladder's axes
    are drawn (modifier along x, a line per level) and the roll held at its neutral,
    normal, though ``roll`` comes before ``level`` in its axes. At modifier +0 against a
    weak level, 2d6 + 0 ≥ 7 (P1) is 21 of 36."""
    from engines.system import get

    spec = get("pbta_2d6")
    r = model.check_result(model.CheckState("pbta_2d6"), figure=False)
    ax = compare.check_figure(r, r, spec, png=False).axes[0]
    assert "Drawn at roll normal" in ax.get_title()
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["A: level weak", "A: level strong", "B: level weak", "B: level strong"]
    weak = ax.get_lines()[0]
    at0 = list(weak.get_xdata()).index(0)
    assert weak.get_ydata()[at0] == pytest.approx(21 / 36, abs=1e-12)
