"""The workbench page in words (issue 32 item 4): every column, variant and value in
the glossary's words, as the report writes them, with the identifier in a tooltip;
percentages in the language's style; a complete pt-BR page.

* the page object (no browser), walked generically (tests/page_words.py: every widget's
  label and options, every pane's text, every table's headers and cells, whatever tab
  added them), in pt-BR over every system's checks and duel and the audit: no English
  word, no code identifier, no decimal point (tests/report_text.py's checker, the one the
  report's text is held to); in English: no code identifier;
* the checker is shown to fail on an English label and on an identifier;
* the designer's words: parada / sucessos, "Destino dos caídos" with deixar / primeiros
  socorros / executar, "moribundo", "ajuste", "regras padrão (sem variantes)", "A vence
  em 50% das lutas", "bancada interativa";
* the identifiers stay in tooltips (``<abbr title>`` on headers and ids, ``description``
  on widgets); the audit shows no ``e-11`` or ``<NA>``;
* a real browser (pytest-playwright, tests/test_serve.py's fixtures) reads each tab of
  the pt-BR page: no English UI word, decimal commas.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import panel as pn
import pytest

from reports.i18n import language
from reports.workbench import model

sys.path.insert(0, str(Path(__file__).parent))
from page_words import page_hits, page_lines
from report_text import Line, check
from test_serve import seen, server  # noqa: F401  (pytest fixtures)


def _audit(wb) -> None:
    """The shipped guardrails audited in this process (as the page's thread does),
    shown in the page's language."""
    from analysis.workflow import audit

    with language(wb.state.lang):
        wb._audit = model.audit_result(audit.load_guardrails(None), suggest=True)
        wb.show_audit()


def _every_view(lang: str) -> list:
    """The page's lines over every check system, every combat system (a variant off its
    default; Monte Carlo chosen once) and the audit."""
    from reports.workbench.app import Workbench

    wb = Workbench({"lang": lang})
    lines = list(page_lines(wb))
    for sid in model.check_systems():
        wb.c_system.value = sid
        lines += page_lines(wb)
    for sid in model.combat_systems():
        wb.d_system.value = sid
        menus = [w for w in wb._d_vars.values() if isinstance(w, pn.widgets.Select)]
        if menus:  # one rule variant off its default: its words in the sentence
            menus[0].value = list(menus[0].options.values())[-1]
        lines += page_lines(wb)
    wb.d_method.value = "mc"
    lines += page_lines(wb)
    if hasattr(wb, "show_group"):  # the Groups tab: each shipped matchup, a short run
        for name in model.shipped_scenarios():
            with language(lang):
                wb.show_group(
                    model.group_result(
                        model.GroupState(name, 300, 1),
                        model.load_matchup(name),
                        f"scenarios/combat/{name}.toml",
                    )
                )
            lines += page_lines(wb)
    _audit(wb)
    lines += page_lines(wb)
    lines += _pinned_and_the_new_tabs(wb)
    assert not wb.messages.visible, wb.messages.object
    return lines


def _in_portuguese(guardrails: str) -> str:
    """tests/test_serve_ab.py's guardrail file with its names and reasons in Portuguese
    (a Brazilian designer's own file)."""
    for en, pt in (
        ("A wins often enough", "A vence o bastante"),
        (
            "constructed: the even duel's A should win at least 30 %",
            "construído: o A do duelo equilibrado vence ao menos 30%",
        ),
        ("fights end", "lutas terminam"),
        (
            "constructed: a fight ends within 50 rounds on average",
            "construído: uma luta termina em até 50 rodadas na média",
        ),
    ):
        assert en in guardrails
        guardrails = guardrails.replace(en, pt)
    return guardrails


def _pinned_and_the_new_tabs(wb) -> list:
    """The page's lines with A pinned (the A/B panes of the duel, the checks and an
    audit whose verdict flips), the Sensitivity tab's result (a small uploaded knob
    file), the distance card open and the rules editor with an edit."""
    from test_serve_ab import GUARDRAILS
    from test_serve_more import KNOBS

    lang = wb.state.lang
    wb.d_system.value = "dice_pool_7"
    wb.d_method.value = "exact"
    wb.c_system.value = "dice_pool_7"
    wb.d_dist_card.collapsed = False  # the distance table and its figure
    # the designer's own words: a Brazilian's file names its guardrails in Portuguese
    own = GUARDRAILS if lang == "en" else _in_portuguese(GUARDRAILS)
    files = {
        side: own.format(armour=armour).encode()
        for side, armour in (
            ("A", '"competent"'),
            ("B", '{ archetype = "competent", armour = "heavy_archaic" }'),
        )
    }
    wb._upload = ("A.toml", files["A"])
    wb.g_source.value = "upload"
    wb.g_suggest.value = False
    wb._on_pin()
    assert wb.state.pinned is not None
    # B: another armour, a check variant off its default, a rule edited, B's audit
    wb.d_gear["armour_b"].value = "heavy_archaic"
    field = next(f for f in model.check_variant_fields("dice_pool_7") if f["choices"])
    other = next(c for c in field["choices"] if c != field["default"])
    wb._c_vars[field["name"]].value = other
    wb.r_field.value = "rules.armour.heavy_archaic.ballistic"
    wb.r_value.value = "0"
    wb.r_set.clicks += 1
    wb._upload = ("B.toml", files["B"])
    with language(lang):
        wb.pinned_audit()
        wb._audit = model.audit_result(model.load_upload(files["B"], "B.toml"), suggest=False)
        wb.show_audit()
    assert len(wb.p_audit.objects[1].object) == 1  # the flipped verdict
    with language(lang):  # the sensitivity's result, as the page's poll shows it
        result = model.sensitivity_run(("knobs.toml", KNOBS.encode()))
        wb._poll_sensitivity({"finished": True, "error": None, "result": result})
    return page_lines(wb)


@pytest.fixture(scope="module")
def pt_lines():
    return _every_view("pt-BR")


def _report(hits) -> str:
    seen_words, out = set(), []
    for h in hits:
        if (h.kind, h.word) not in seen_words:
            seen_words.add((h.kind, h.word))
            out.append(str(h))
    return "\n".join(out[:60])


@pytest.mark.slow
def test_portuguese_page_has_no_english_word_identifier_or_decimal_point(pt_lines):
    assert len(pt_lines) > 500
    hits = check(pt_lines, "pt-BR")
    assert hits == [], _report(hits)


@pytest.mark.slow
def test_english_page_shows_no_code_identifier():
    lines = _every_view("en")
    hits = check(lines, "en")
    assert hits == [], _report(hits)
    text = "\n".join(x.text for x in lines)
    for ident in (
        "p_side0",
        "rounds_q50",
        "p_loser_dying",
        "massive_traits",
        "c_plus_vigor",
        "<NA>",
        "e-11",
        "nan",
    ):
        assert ident not in text
    assert "fewer than 1 in a billion" in text  # dice_pool_7's one pistol hit kills


@pytest.mark.slow
def test_rules_editor_and_every_pane_follow_a_language_switch():
    """A page opened in English and switched to pt-BR: the rules editor's trait fields
    and every other pane speak Portuguese (no label keeps the language it was made in)."""
    from reports.workbench.app import Workbench

    wb = Workbench({"tab": "duel", "duel-system": "dice_pool_7"})
    wb.d_dist_card.collapsed = False
    wb._on_pin()
    wb.d_gear["armour_b"].value = "heavy_archaic"
    wb.lang.value = "pt-BR"
    assert not wb.messages.visible, wb.messages.object
    hits = page_hits(wb, "pt-BR")
    assert hits == [], _report(hits)
    labels = [w.label for w in wb.r_trait_inputs["a"].values()]
    assert "qualidade (A)" in labels, labels  # the trait's words, no article
    assert "DES (A)" in labels, labels
    # a button's callback speaks the page's language (the audit's running status)
    wb._on_run_audit()
    assert wb.g_status.object == "Auditando…"
    deadline = time.monotonic() + 120
    while wb._job and time.monotonic() < deadline:
        time.sleep(0.1)
        wb.poll()
    wb.lang.value = "en"
    assert "quality (A)" in [w.label for w in wb.r_trait_inputs["a"].values()]


def test_the_checker_finds_english_and_identifiers_in_an_added_widget():
    """A widget another tab adds is walked too, and an English label or an identifier
    in it is a hit."""
    from reports.workbench.app import Workbench

    wb = Workbench({"lang": "pt-BR"})
    assert page_hits(wb, "pt-BR") == []
    wb.tabs[0].append(
        pn.Row(
            pn.widgets.Select(label="Pool size", options=["a"]),
            pn.pane.Markdown("valor: rounds_q50 e 2.5"),
        )
    )
    kinds = {(h.kind, h.word) for h in page_hits(wb, "pt-BR")}
    assert ("english", "Pool") in kinds
    assert ("identifier", "rounds_q50") in kinds
    assert ("decimal", "2.5") in kinds


def _texts(wb) -> str:
    return "\n".join(x.text for x in page_lines(wb))


@pytest.mark.slow
def test_the_designers_words_in_portuguese():
    """The words a Brazilian designer asked for (issue 32 item 4)."""
    from reports.workbench.app import Workbench

    wb = Workbench(
        {
            "lang": "pt-BR",
            "tab": "duel",
            "duel-system": "dice_pool_7",
            "a": "competent_swordsman",
            "b": "competent_swordsman",
        }
    )
    text = _texts(wb)
    assert "bancada interativa" in text
    # checks: dice_pool_7's axes (A1, A2)
    header = wb.c_table.object.columns[0]
    assert header == '<abbr title="pool ↓ · successes →">parada ↓ · sucessos →</abbr>'
    assert "sucessos" in wb.c_sentence.object
    # duel: the even duel, 50% each (symmetric), in the report's percent style
    assert "A vence em 50% das lutas" in wb.d_sentence.object
    assert "moribundo em " in wb.d_sentence.object
    assert "regras padrão (sem variantes)" in wb.d_sentence.object
    assert wb.d_aftermath.label == "Destino dos caídos"
    assert list(wb.d_aftermath.options) == ["deixar", "primeiros socorros", "executar"]
    assert list(wb.d_aftermath.options.values()) == ["leave", "first_aid", "finish"]
    # percentages with a decimal comma in the tables (2 decimals)
    cells = [str(x) for x in wb.d_summary.object.iloc[0]]
    assert all(re.fullmatch(r"\d+,\d\d%", c) for c in cells[1:7]), cells
    # the audit: "ajuste" for cure, headers and statuses in Portuguese
    assert wb.g_suggest.label == "Buscar um ajuste para cada falha"
    _audit(wb)
    headers = [re.sub(r"<[^>]+>", "", c) for c in wb.g_table.object.columns]
    for word in ("ajuste", "situação", "limite de balanceamento"):
        assert word in headers, headers
    assert {re.sub(r"<[^>]+>", "", s) for s in wb.g_table.object.iloc[:, 7]} <= {
        "passa",
        "falha",
        "inconclusivo",
    }


def test_the_report_says_ajuste_for_cure():
    from reports.i18n import translations

    tr = translations("pt-BR")
    assert tr.gettext("{guardrail}: {comparison} ({reason}). Cure: {suggestion}.").endswith(
        "Ajuste: {suggestion}."
    )
    assert tr.gettext("Search a cure for each failure") == "Buscar um ajuste para cada falha"


def test_identifiers_are_in_tooltips():
    """Headers and ids keep their identifier in an ``<abbr title>``; widgets in their
    ``description``."""
    from reports.workbench.app import Workbench

    wb = Workbench(
        {"tab": "duel", "duel-system": "middle_3d10", "duel-variant": "massive_traits=c_only"}
    )
    summary = list(wb.d_summary.object.columns)
    assert '<abbr title="p_side0">A wins</abbr>' in summary
    assert '<abbr title="rounds_q50">median rounds</abbr>' in summary
    massive = wb._d_vars["massive_traits"]
    assert massive.label == "The massive-damage check (B-g6)"
    assert "massive_traits" in massive.description
    assert massive.options == {"C + Vigor": "c_plus_vigor", "C alone": "c_only"}
    assert (
        '<abbr title="massive_traits=c_only">the massive-damage check (B-g6): C alone'
        "</abbr>" in wb.d_sentence.object
    )
    assert wb.d_a.description.startswith("a ")
    assert "competent" in wb.d_a.options
    assert wb.d_a.value == wb.d_a.options["competent"]


@pytest.mark.slow
def test_audit_values_are_words_never_scientific_notation():
    from reports.workbench.app import Workbench

    wb = Workbench({"tab": "audit"})
    _audit(wb)
    t = wb._audit
    row = t.index[(t["metric"] == "p_one_hit_kill") & (t["system"] == "dice_pool_7")][0]
    assert 0 < t.loc[row, "value"] < 1e-9  # the value the page must not print as 4.5e-11
    shown = wb.g_table.object
    value = shown.iloc[row, 3]
    assert value == "fewer than 1 in a billion"
    text = shown.to_string()
    for bad in ("<NA>", "e-1", "nan"):
        assert bad not in text


# ---------------------------------------------------------------- a real browser


def _wait(page, expression: str, timeout: float = 60) -> None:
    page.wait_for_function(expression, polling=100, timeout=1000 * timeout)


#: the visible text of the page, per element a reader reads, commands (code) left out
VISIBLE = """() => { const out = []; const walk = (root) => {
  root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) {
    e.shadowRoot.querySelectorAll('p, li, td, th, label, button, .bk-tab, h2, option')
      .forEach(x => { const c = x.cloneNode(true);
        c.querySelectorAll('code, pre').forEach(k => k.remove());
        out.push(c.textContent); });
    walk(e.shadowRoot); } }); };
  walk(document); return out; }"""


@pytest.mark.browser
def test_portuguese_page_in_a_browser_has_no_english_word(server, page, seen):  # noqa: F811
    page.set_viewport_size({"width": 1300, "height": 1700})
    page.goto(server + "?lang=pt-BR&tab=checks&suggest=0")
    _wait(page, "deepText().includes('Chance exata de sucesso')")
    for tab in ("Testes", "Duelo", "Auditoria"):
        assert page.evaluate(f"clickTab('{tab}')") == "ok"
        if tab == "Duelo":
            _wait(page, "deepText().includes('A vence em')")
        if tab == "Auditoria":
            assert page.evaluate("clickButton('Rodar a auditoria')") == "ok"
            _wait(page, "deepText().includes('limites de balanceamento:')", 180)
        texts = page.evaluate(VISIBLE)
        lines = [Line(tab, "browser", t.strip()) for t in texts if t.strip()]
        assert len(lines) > 20
        hits = check(lines, "pt-BR")
        assert hits == [], _report(hits)
        joined = "\n".join(x.text for x in lines)
        assert re.search(r"\d,\d+%", joined), tab  # decimal commas
    assert seen.errors == []
