"""The report in Brazilian Portuguese (``rpg-balance report --lang pt-BR``).

* every user-visible string of ``reports/`` (section code, figure labels, templates) is in
  the pt-BR gettext catalogue with a non-empty translation that keeps its placeholders —
  the strings are extracted with Babel's own extraction API, the same way as
  ``pybabel extract -F babel.cfg``;
* numbers follow the Brazilian style in prose and tables (decimal comma, thousands dot,
  the % right after the number as Babel's pt_BR pattern writes it) while the CSV
  downloads stay machine-readable; a counted noun agrees with its number ("1,1 rodada");
* a small pt-BR report, built by the CLI, opens in chromium without console errors, every
  figure loads and the page says ``<html lang="pt-BR">``.
"""

from __future__ import annotations

import base64
import csv as csvlib
import io
import re
import string
import sys
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from cli.main import main
from reports import i18n
from reports.i18n import decimal, format_spec, percent

sys.path.insert(0, str(Path(__file__).parent))
from browser_page import Browser

ROOT = Path(__file__).resolve().parent.parent
SYSTEM = "dice_pool_7"  # one system, few trials: the machine is shared and slow


# ---------------------------------------------------------------- the catalogue


def extracted_msgids() -> dict[str, str]:
    """msgid → where it was found, for every string ``babel.cfg`` maps: marked strings of
    ``reports/`` (python sources and Jinja2 templates), the sentence templates
    ``analysis/`` marks with ``N_``, the ``doc=`` of every engine variant and the
    designer's sentences of ``analysis/data/*.toml`` — the same extraction as
    ``pybabel extract -F babel.cfg -k N_``."""
    with (ROOT / "babel.cfg").open() as fh:
        method_map, options_map = parse_mapping_cfg(fh)
    keywords = {**DEFAULT_KEYWORDS, "N_": None}
    out = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(
        ROOT, method_map, options_map, keywords=keywords
    ):
        ids = message if isinstance(message, tuple) else (message,)
        for msgid in ids:
            if msgid:
                out.setdefault(msgid, f"{filename}:{lineno}")
    return out


def catalogue() -> dict[str, str]:
    with i18n.po_path("pt-BR").open("rb") as fh:
        cat = read_po(fh, locale="pt_BR")
    return {m.id: m.string for m in cat if m.id and not m.fuzzy}


def test_extraction_finds_the_report_strings():
    """The extraction really reaches section code, figure labels and templates (a test
    that found nothing would pass vacuously)."""
    ids = extracted_msgids()
    assert len(ids) > 300
    for msgid in (
        "Success curves",
        "What this means for a designer",  # template
        "pool size (number of d10)",  # axis label
        "Combat: the same duels in every system",
        "Provenance",
    ):
        assert msgid in ids
    where = {w.split(":")[0].split("/")[0] for w in ids.values()}
    assert {"reports", "engines", "analysis"} <= where
    assert "a natural 1 always fails" in ids  # a variant's doc
    assert ids["a natural 1 always fails"].startswith("engines/")
    assert any(w.startswith("analysis/checks/claims.py") for w in ids.values())  # C7
    assert any(w.startswith("analysis/workflow/audit/cures.py") for w in ids.values())  # cures
    assert any(w.startswith("analysis/data/guardrails.toml") for w in ids.values())


def test_every_visible_string_has_a_pt_br_translation():
    ids = extracted_msgids()
    po = catalogue()
    missing = sorted(
        f"{where}: {msgid!r}" for msgid, where in ids.items() if not po.get(msgid, "").strip()
    )
    assert not missing, f"{len(missing)} strings without a pt-BR translation:\n" + "\n".join(
        missing
    )


def _fields(text: str) -> set[str]:
    brace = {f for _lit, f, _spec, _conv in string.Formatter().parse(text) if f}
    return brace | set(re.findall(r"%\((\w+)\)s", text))


def test_each_msgid_once():
    """The catalogue merges by union (.gitattributes): an entry added on two branches, or
    an entry edited on both, shows up twice — gettext would silently use one of them."""
    raw = i18n.po_path("pt-BR").read_text(encoding="utf-8")
    ids: dict[str, int] = {}
    for block in raw.split("\n\n"):
        m = re.search(r'^msgid ((?:".*"\n?)+)', block, flags=re.M)
        if m:
            msgid = "".join(re.findall(r'"(.*)"', m.group(1)))
            if msgid:
                ids[msgid] = ids.get(msgid, 0) + 1
    assert [k for k, n in ids.items() if n > 1] == []


def test_translations_keep_their_placeholders():
    po = catalogue()
    bad = [
        msgid
        for msgid in extracted_msgids()
        if po.get(msgid) and _fields(msgid) != _fields(po[msgid])
    ]
    assert bad == []


def test_fight_titles_of_the_data_file_are_translated():
    """The readings name the fights by their titles in analysis/data/cross_combat.toml."""
    from analysis.combat.cross_combat import load_cross

    spec = load_cross()
    titles = [m["title"] for m in spec["matchups"].values()]
    titles += [g.title for g in spec["groups"].values() if g.title]
    po = catalogue()
    assert len(titles) >= 4
    assert [t for t in titles if not po.get(t, "").strip()] == []


def test_rule_terms_follow_the_seeds():
    """Rule words in the seeds' own Portuguese (docs/seeds): Sucesso Difícil / Sucesso
    Extremo (percentile), parada (dice pools), Dificuldade, Característica + Habilidade
    (middle_3d10); rule ids are kept."""
    po = catalogue()
    assert (
        "Sucesso Difícil"
        in po[
            "d100 roll-under the skill; hard ≤ half, extreme ≤ a fifth "
            "(D1); bonus/penalty tens dice (D4)"
        ]
    )
    assert "(D1)" in po["level (D1)"]
    assert po["pool (dice)"].startswith("parada")
    assert "Característica + Habilidade" in po["modifier (characteristic + skill)"]


def test_rule_words_of_each_rules_text():
    """Each system's words where its rules text has one: dice_pool_7 (A1 "rolar o dado de
    novo", A5 Obra-Prima +1 / Magistral +2, A11 dano não-letal), middle_3d10 (B4 vantagem /
    desvantagem, B9 Moribundo), d20_degrees (E4 teste de rotina); "texto das regras" for
    the rules text, "semente" only for the random seed."""
    po = catalogue()
    assert po["10-again"] == "10 de novo"
    assert "10 de novo" in po["the 10-again rule"]
    assert "obra-prima" in po["masterwork equipment +1"]
    assert "magistral" in po["masterful equipment +2"]
    assert po["bashing"] == "não-letal"
    assert "não-letal" in po["armour against bashing damage"]
    assert po["take 10"] == "teste de rotina"
    assert (po["advantage"], po["disadvantage"]) == ("vantagem", "desvantagem")
    assert po["dying"] == "moribundo"  # the fate, one word in every table
    dying_b9 = [v for k, v in po.items() if re.search(r"\bB9\b", k) and "dying" in k]
    assert dying_b9
    assert all("moribundo" in v and "morrendo" not in v for v in dying_b9), dying_b9
    # "seed" meaning the rules text is never "semente"; the random seed always is
    for k, v in po.items():
        if re.search(r"\bthe seed (has|gives|allows|lists|sets|writes|leaves)\b", k):
            assert "texto das regras" in v, (k, v)
            assert "semente" not in v, (k, v)
    assert po["seed"] == "semente"
    assert "semente" in po["Monte Carlo, {trials} fights from seed {seed}, ± one standard error"]


@pytest.mark.slow
def test_modifier_chart_labels_in_portuguese():
    """The modifier chart's labels are sentences of the catalogue: every modifier of every
    system shows its pt-BR name and rule id, the axis its Portuguese words and decimal
    commas (the chart is drawn by analysis.checks.plots.modifier_plot, labels as Text)."""
    from analysis.checks.plots import modifier_plot
    from reports.plotting import translate_figure

    fig = modifier_plot()
    with i18n.language("pt-BR"):
        translate_figure(fig)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) >= 20
    assert "vantagem (B4)" in labels
    assert "teste de rotina (E4)" in labels
    assert "equipamento magistral +2 (A5)" in labels
    english = {
        "advantage",
        "disadvantage",
        "take",
        "bonus",
        "penalty",
        "circumstance",
        "masterwork",
        "masterful",
        "effort",
        "push",
        "dice",
        "die",
        "point",
    }
    left = [x for x in labels if english & set(re.findall(r"[a-z]+", x))]
    assert left == []
    assert "pontos percentuais" in ax.get_xlabel()
    assert "0,05–0,95" in ax.get_xlabel()


def test_tactic_armour_and_fighter_ids_in_words():
    """A table cell or figure label holding a registry id shows its words in pt-BR
    (``heavy_archaic`` → "arcaica pesada", a tactic, an archetype), and a system's line
    ``system: id`` keeps the system's name."""
    from analysis.text import N_, Text
    from reports.plotting import new_figure, translate_figure

    t = i18n.text
    assert t("heavy_archaic", "pt-BR") == "arcaica pesada"
    assert t("attack_dodge", "pt-BR") == "esquiva e ataque"
    assert t("competent_swordsman", "pt-BR") == "espadachim competente"
    assert t("rounds_mean", "pt-BR") == "rounds_mean"  # no words: the checker reports it
    fig, (ax,) = new_figure()
    ax.plot([0, 1], [0, 1], label="percentile: fight_back")
    ax.plot([0, 1], [1, 0], label=Text(N_("{x} rounds"), x=1.1))
    ax.legend()
    translate_figure(fig, "pt-BR")
    legend = [x.get_text() for x in ax.get_legend().get_texts()]
    assert legend == ["percentile: revidar", "1,1 rodada"]


# ---------------------------------------------------------------- numbers


def test_pt_br_numbers():
    # decimal comma, thousands dot, the percent as Babel's pt_BR pattern ("#,##0%")
    from babel.numbers import format_percent

    assert format_percent(0.46, locale="pt_BR") == "46%"
    assert percent(0.5, lang="pt-BR") == "50%"
    assert percent(0.4567, lang="pt-BR") == "45,7%"
    assert decimal(1234.5, lang="pt-BR") == "1.234,5"
    assert decimal(200000, lang="pt-BR") == "200.000"
    assert decimal(0.015811, 5, lang="pt-BR") == "0,01581"
    assert format_spec(0.25, ".4f", "pt-BR") == "0,2500"
    assert format_spec(0.25, ".1%", "pt-BR") == "25,0%"
    assert format_spec(12345, "d", "pt-BR") == "12.345"
    assert format_spec(-1.5, "+.2f", "pt-BR") == "-1,50"


def test_pt_br_catalogue_has_one_percent_style():
    """No translation puts a space (plain or non-breaking) between a number or a
    placeholder and its % sign."""
    spaced = [
        (k, v)
        for k, v in catalogue().items()
        if isinstance(v, str) and re.search(r"[\d})][ \u00a0\u202f]%", v)
    ]
    assert spaced == []


@pytest.mark.parametrize(
    ("n", "one"),
    [
        (1, True),
        (1.1, True),
        (1.9, True),
        (0.5, True),
        (-1, True),
        (0, False),
        (2, False),
        (2.34, False),
        (38, False),
    ],
)
def test_portuguese_singular_is_between_zero_and_two(n, one):
    assert i18n.singular_count(n, "pt-BR") is one
    assert i18n.singular_count(n, "en") is (abs(n) == 1)


def test_counted_nouns_agree_in_portuguese():
    agree = i18n.agree
    assert agree("um duelo dura 1,1 rodadas", "pt-BR") == "um duelo dura 1,1 rodada"
    assert (
        agree("a sorte vale 1,3 degraus e 0,6 degraus", "pt-BR")
        == "a sorte vale 1,3 degrau e 0,6 degrau"
    )
    assert (
        agree("1 sessões, 2 sessões, 0 rodadas, 2,1 rodadas", "pt-BR")
        == "1 sessão, 2 sessões, 0 rodadas, 2,1 rodadas"
    )
    assert (
        agree("1,2 pontos percentuais e 1&nbsp;lutas", "pt-BR")
        == "1,2 ponto percentual e 1&nbsp;luta"
    )
    # a thousands group or a decimal's tail is not a count of its own
    assert agree("20.001 lutas, 3,1 rodadas", "pt-BR") == "20.001 lutas, 3,1 rodadas"
    assert agree("1.1 rounds", "en") == "1.1 rounds"


def test_a_number_made_as_a_string_takes_the_decimal_comma():
    from analysis.text import N_, Text

    t = Text(N_("{x} rounds"), x="2.34")
    assert i18n.text(t, "pt-BR") == "2,34 rodadas"
    assert i18n.text(Text(N_("{x}%"), x="57.1"), "pt-BR") == "57,1%"


def test_english_numbers_unchanged():
    assert percent(0.4567, lang="en") == "45.7%"
    assert decimal(200000, lang="en") == "200,000"
    assert format_spec(0.25, ".4f", "en") == "0.2500"


def test_bad_language_is_one_line_exit_2(tmp_path, capsys):
    assert main(["report", "--lang", "fr", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("error:")
    assert "--lang" in err[0]
    assert "pt-BR" in err[0]
    assert list(tmp_path.iterdir()) == []


def test_figure_labels_are_translated():
    """Figures made in analysis/ (English labels) come out in pt-BR through the same
    catalogue, and numeric ticks take the decimal comma."""
    from reports import plotting

    fig, (ax,) = plotting.new_figure(1)
    ax.plot([0, 1], [0, 1], label="competent")
    ax.set_xlabel("competence")
    ax.set_ylabel("P(success)")
    ax.legend()
    plotting.translate_figure(fig, "pt-BR")
    assert ax.get_xlabel() == "competência"
    assert ax.get_ylabel() == "P(sucesso)"
    assert ax.get_legend().get_texts()[0].get_text() == "competente"
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert "0,4" in ticks, ticks
    assert not any("." in t for t in ticks), ticks


# ---------------------------------------------------------------- the built report


@pytest.fixture(scope="session")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report-pt")
    rc = main(
        [
            "report",
            "--lang",
            "pt-BR",
            "--systems",
            SYSTEM,
            "--trials",
            "1000",
            "--combat-trials",
            "200",
            "--seed",
            "3",
            "--no-pdf",
            "--quiet",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    return out


@pytest.fixture(scope="session")
def page(built, tmp_path_factory):
    with Browser(tmp_path_factory.mktemp("chromium-profile-pt")) as b:
        b.open((built / "report.html").as_uri())
        result = {
            "lang": b.evaluate("document.documentElement.lang"),
            "images": b.evaluate(
                "Array.from(document.images).map(i => ({complete: "
                "i.complete, w: i.naturalWidth, h: i.naturalHeight}))"
            ),
            "h2": b.evaluate(
                "Array.from(document.querySelectorAll('h2')).map(h => h.textContent.trim())"
            ),
            "prose": b.evaluate(
                "Array.from(document.querySelectorAll('.reading p, "
                "figcaption, .table-caption, h1, h2, h3, th, .subtitle, "
                "p.lead')).map(e => e.textContent.trim())"
            ),
            "reading": b.evaluate(
                "Array.from(document.querySelectorAll('.reading-title'))"
                ".map(h => h.textContent.trim())"
            ),
            "curves": b.evaluate("""(() => { const t = document.getElementById(
                'curves-dice_pool_7'); return {head: Array.from(t.tHead.rows[
                t.tHead.rows.length - 1].cells).map(c => c.textContent.trim()),
                row: Array.from(t.tBodies[0].rows[5].cells).map(c => c.textContent.trim())};
                })()"""),
        }
        result["errors"] = list(b.errors)
    return result


def test_pt_br_page_opens_clean_and_every_image_loads(page):
    assert page["errors"] == []
    assert page["lang"] == "pt-BR"
    assert len(page["images"]) >= 3
    for img in page["images"]:
        assert img["complete"], img
        assert img["w"] > 0, img
        assert img["h"] > 0, img


def test_pt_br_page_speaks_portuguese(page):
    po = catalogue()
    assert "Sumário" in page["h2"]
    assert any(h.endswith(po["Success curves"]) for h in page["h2"])
    assert any(h.endswith(po["Provenance"]) for h in page["h2"])
    assert set(page["reading"]) == {"O que isto significa para quem projeta o jogo"}
    # the section titles are translations, never the English msgids
    english = {"Success curves", "Monte Carlo agreement", "Assumptions", "Provenance"}
    assert not any(h.split(". ", 1)[-1] in english for h in page["h2"])


def test_no_english_sentence_left_on_the_page(page):
    """Every heading, reading, caption and header is Portuguese: none carries the
    English words every English sentence of the report uses (identifiers such as
    system ids, archetype and weapon names are not sentences)."""
    english = re.compile(r"\b(the|of|and|with|per|against|each|every|is|are)\b")
    left = [t for t in page["prose"] if english.search(t)]
    assert left == []


def test_pt_br_tables_use_decimal_commas_and_csv_stays_machine_readable(built, page):
    head, row = page["curves"]["head"], page["curves"]["row"]
    assert head[0] == "parada"
    # every probability cell is a percentage with a decimal comma ("83,2%"), never "0.dd"
    cells = row[1:]
    assert all(re.fullmatch(r"[<>]?\d{1,3}(,\d)?\s?%", c.replace("\u00a0", " ")) for c in cells), (
        cells
    )
    assert any("," in c for c in cells), cells
    html = (built / "report.html").read_text(encoding="utf-8")
    assert '<html lang="pt-BR">' in html
    m = re.search(r'download="curves-dice_pool_7\.csv" href="data:text/csv;base64,([^"]+)"', html)
    rows = list(csvlib.DictReader(io.StringIO(base64.b64decode(m.group(1)).decode("utf-8"))))
    assert {"pool", "successes", "p_exact"} <= set(rows[0])  # machine column names
    p = [row["p_exact"] for row in rows]
    assert all("," not in x for x in p)  # decimal point, not comma
    assert all(0 <= float(x) <= 1 for x in p)


# ---------------------------------------------------------------- campaign, key findings

ENGLISH_WORDS = re.compile(
    r"\b(the|of|and|with|per|at|after|by|within|is|are|start|"
    r"sessions?|mean|median|character|characters|reach|reaches|"
    r"only|over|outside|Cure|pass|fail|undecided)\b"
)


@pytest.mark.slow
def test_campaign_section_in_pt_br():
    """Title, readings, figure titles/captions and the summary table of the campaign
    section are Portuguese, numbers with the decimal comma; the CSV keeps machine
    names."""
    from reports.sections.campaign import section_campaign
    from reports.settings import ReportSettings

    po = catalogue()
    with i18n.language("pt-BR"):
        sec = section_campaign(
            ReportSettings(systems=("dice_pool_7", "middle_3d10", "percentile"), lang="pt-BR")
        )
    assert sec.title == "Mecânicas de campanha ao longo das sessões"
    assert len(sec.reading) == 5  # intro, 3 systems, attrition
    assert re.search(r"dice_pool_7 \d+,\d%", sec.reading[-1]), sec.reading[-1]
    for line in sec.reading:
        assert not ENGLISH_WORDS.search(line), line
    text = " ".join(sec.reading)
    assert "após 30 sessões" in text  # dice_pool_7 morality, 30 sessions
    assert "Moralidade 7 no início" in text  # A17: every character starts at 7
    assert "Degeneração" in text  # middle_3d10 arcane (B11-B14)
    assert re.search(r"média \d+,\d\d\)", text), text  # decimal comma, two places
    assert "por sessão 1" in text
    for fig in sec.figures():
        for words in (fig.title, fig.caption.text, fig.alt):
            assert not ENGLISH_WORDS.search(words), words
        assert "sessões" in fig.caption.text
    table = sec.tables()[0]
    assert table.title == po["State after the last session"]
    assert not ENGLISH_WORDS.search(table.caption.text)
    assert {"mechanic", "session", "q10"} <= set(table.frame.columns)  # machine names (CSV)
    assert all(po.get(c, "").strip() for c in table.frame.columns)  # headers translated


@pytest.mark.slow
def test_key_findings_section_in_pt_br():
    """The Key findings page in pt-BR: the sharpest finding of the system, the count
    sentence, each failure (the guardrail's name and the designer's reason from
    analysis/data/guardrails.toml, through the catalogue; what it measures, its value and
    the cure in words, numbers with the decimal comma) and the table's status, suggestion
    and guardrail cells are Portuguese, with no knob or metric identifier and no
    scientific notation in the prose; the CSV keeps the machine words, the names as
    written and the English cure."""
    from analysis.combat.fights import METRIC_NAMES
    from reports.sections.key_findings import section_key_findings
    from reports.settings import ReportSettings

    po = catalogue()
    with i18n.language("pt-BR"):
        sec = section_key_findings(
            ReportSettings(systems=("middle_3d10",), progress=False, lang="pt-BR")
        )
    assert sec.title == "Principais conclusões"
    # the sharpest finding: an even knife duel decided in round 1 (B9: one knife hit
    # takes an equal of Vigor 4 past its Resistance bands)
    first = sec.reading[0]
    assert re.fullmatch(
        r"middle_3d10: um duelo de um lutador competente \(faca\) contra um "
        r"igual termina na rodada 1 em \d\d,\d% das vezes, porque um "
        r"ataque de faca derruba o igual ileso em \d\d,\d% das vezes\.",
        first,
    ), first
    counts = sec.reading[1]
    assert re.match(
        r"\d+ de \d+ limites de balanceamento passam com as regras padrão; "
        r"com falha: \d+, inconclusivos: \d+",
        counts,
    ), counts
    assert not ENGLISH_WORDS.search(counts.replace("rpg-balance audit", "")), counts
    table = sec.tables()[0]
    assert table.title == "Limites de balanceamento"
    assert not ENGLISH_WORDS.search(table.caption.text)
    assert set(table.frame["status"]) <= {"passa", "falha", "inconclusivo"}
    assert set(table.full["status"]) <= {"pass", "fail", "undecided"}  # CSV: machine words
    fails = table.full[table.full["status"] == "fail"]
    # the middle_3d10 even duel fails its 2-6 round guardrail (about 1.1 rounds)
    assert "even duel length (middle_3d10)" in set(fails["guardrail"])
    lines = sec.reading[2 : 2 + len(fails)]
    shown = table.frame[table.frame["status"] == "falha"]
    for line, r, cell in zip(
        lines, fails.itertuples(index=False), shown["suggestion"], strict=True
    ):
        assert po[r.reason] in line, line  # the reason, translated
        assert " leva " in cell or cell.startswith(("nenhum ajuste", "nenhuma alteração")), (
            cell
        )  # the table's
        assert " which makes " in r.suggestion or r.suggestion.startswith(
            ("no cure within", "no one-knob edit")
        )
        assert po[r.guardrail] in line, line  # the name, translated
        own = line.replace(po[r.guardrail], "")
        assert " das vezes" in own or " em média" in own, line  # the figure, in words
        assert "Ajuste: " in own, line
    for line in sec.reading:
        own = line.replace("middle_3d10", "").replace("rpg-balance audit", "")
        assert not ENGLISH_WORDS.search(own), line
        assert not re.search(r"\b(both|a|b|variant)\.\w+|\d[eE][-+]?\d", own), line
        assert not [m for m in (*METRIC_NAMES, "p_success") if m in own], line
    assert "duração de um duelo equilibrado (middle_3d10)" in set(shown["guardrail"])
    duel = next(x for x in lines if x.startswith("duração de um duelo equilibrado (middle_3d10)"))
    assert (
        "um duelo de um lutador competente (faca) contra um igual dura 1,1 rodada em "
        "média, fora de 2 a 6"
    ) in duel
    assert "2 a 6 rodadas em média" in duel  # guardrails.toml's reason
    assert "Ajuste: o Vigor dos dois lutadores (B9) de 4 para " in duel  # B9, words


# ---------------------------------------------------------------- text made outside reports/


def test_a_new_variant_doc_is_extracted():
    """A variant added to an engine with an English doc is found by the extractor of
    babel.cfg, so the catalogue test above fails until it has a pt-BR msgstr."""
    from reports.extract import variant_docs

    src = (
        b"from engines.variants import variant\n"
        b"class Variants:\n"
        b"    new_gap: int = variant(3, rule='A-g99', doc='a brand new '\n"
        b"                           'gap, never translated', choices=(1, 3))\n"
    )
    found = [m for _l, _f, m, _c in variant_docs(io.BytesIO(src), (), (), {})]
    assert found == ["a brand new gap, never translated"]
    assert "a brand new gap, never translated" not in catalogue()
    # the words a finding names it by (term=, words=) are extracted too
    src = (
        b"from engines.variants import variant\n"
        b"class Variants:\n"
        b"    new_gap: int = variant(3, rule='A-g99', doc='a gap', choices=(1, 3),\n"
        b"                           term='the new-gap rule', words={1: 'one only'})\n"
    )
    found = [m for _l, _f, m, _c in variant_docs(io.BytesIO(src), (), (), {})]
    assert sorted(found) == ["a gap", "one only", "the new-gap rule"]


def test_assumptions_table_docs_in_pt_br():
    """Every variant description of the Assumptions table (written in engines/) is
    shown from the catalogue in pt-BR."""
    from reports.sections.assumptions import assumptions_frame
    from reports.settings import ReportSettings

    po = catalogue()
    settings = ReportSettings(systems=("dice_pool_6", "d20_degrees"), lang="pt-BR")
    en = assumptions_frame(settings)
    with i18n.language("pt-BR"):
        pt = assumptions_frame(settings)
    assert len(pt) == len(en) > 10
    for doc_en, doc_pt in zip(en["doc"], pt["doc"], strict=True):
        assert doc_pt == po[doc_en] != doc_en
    assert "um 1 natural sempre falha" in set(pt["doc"])  # d20_degrees E3


def test_c7_sentence_in_pt_br():
    """The C7 verdict (built in analysis/checks/claims.py from numbers) is its template
    translated, then filled: the same numbers with a decimal comma, no English words."""
    from analysis.checks.claims import claim_c7_summary, claim_c7_table

    english = claim_c7_summary(claim_c7_table(None))["sentence"]
    pt = i18n.text(english, "pt-BR")
    assert pt.startswith(
        "C7 (dice_pool_6, variantes: padrão): '−1 de Dificuldade' e "
        "'+2 dados' dão chances de sucesso"
    )
    assert not re.search(r"\b(the|of|and|in|at|where|cells|gap|pools?|breaks|worth)\b", pt), pt
    gap = re.search(r"largest gap is (\d+)\.(\d) points at pool (\d+), difficulty (\d+)", english)
    assert (
        f"A maior diferença é de {gap[1]},{gap[2]} pontos na parada {gap[3]}, "
        f"Dificuldade {gap[4]}" in pt
    )
    counts = re.search(r"in (\d+) of (\d+) cells \((\d+) %", english)
    assert f"em {counts[1]} de {counts[2]} células ({counts[3]}%" in pt
    assert i18n.text(english, "en") == english


def test_yes_no_cells_and_c7_figure_title_in_pt_br():
    """A boolean table cell reads sim / não in pt-BR (True in English, unchanged); the C7
    heat map's title (made in analysis/checks/plots.py) is translated with its label."""
    import numpy as np
    import pandas as pd

    from analysis.checks import plots
    from analysis.checks.claims import claim_c7_table
    from reports import plotting
    from reports.structure import Caption, Table

    po = catalogue()
    t = Table(id="t", title="t", frame=pd.DataFrame({"ok": [True]}), caption=Caption("c"))
    assert t.fmt("ok", np.True_, "pt-BR") == po["yes"]
    assert t.fmt("ok", np.False_, "pt-BR") == po["no"]
    assert t.fmt("ok", np.True_, "en") == "True"
    fig = plots.c7_heatmap(claim_c7_table(None))
    assert fig.axes[0].get_title() == "C7, dice_pool_6 — default"
    plotting.translate_figure(fig, "pt-BR")
    assert fig.axes[0].get_title() == "C7, dice_pool_6 — " + po["default"]


def test_pt_br_designer_wording():
    """The words a Brazilian designer uses: "balanceamento" (not "limites de
    equilíbrio"), a character "supera" a task ("vence" stays for fights and opposed
    rolls), "inconclusivo" (not "indeciso"), no calque "mais provável que não", and the
    d20 difficulty class as "CD" in prose and table headers alike."""
    po = catalogue()
    text = "\n".join(s if isinstance(s, str) else " ".join(s) for s in po.values())
    for calque in ("equilíbrio", "indeciso", "mais provável que não"):
        assert calque not in text
    assert not re.search(r"\bDC\b", text)
    assert po["DC"] == po["dc"] == "CD"
    assert po["guardrail"] == "limite de balanceamento"
    assert po["undecided"] == "inconclusivo"
    meets = [
        s
        for i, s in po.items()
        if isinstance(i, str) and re.search(r"\bmeets?\b.*\b(task|difficulty)\b", i)
    ]
    assert len(meets) >= 4
    for s in meets:
        assert "venc" not in s, s
        assert "super" in s, s
    # issue 32 item 4: the words of the live page and of the report alike
    assert [po[w] for w in ("pool", "successes", "modifier", "difficulty", "roll")] == [
        "parada",
        "sucessos",
        "modificador",
        "dificuldade",
        "rolagem",
    ]
    assert po["Aftermath"] == "Destino dos caídos"
    assert [po[w] for w in ("leave", "first aid", "finish off")] == [
        "deixar",
        "primeiros socorros",
        "executar",
    ]
    assert po["dying"] == "moribundo"
    assert po["live workbench"] == "bancada interativa"
    assert po["default rules (no variants)"] == "regras padrão (sem variantes)"
    cures = [s for i, s in po.items() if isinstance(i, str) and re.search(r"\bcures?\b", i)]
    assert len(cures) >= 5
    for s in cures:  # "ajuste" for cure throughout
        assert not re.search(r"\b(corre[çc](ão|ões)|curas?)\b", s, re.I), s


def _printed_right_edges(html: str) -> tuple[float, float]:
    """(right edge of the rightmost table cell, right edge of the text block) of the
    printed page, in CSS px, as WeasyPrint lays the HTML out on A4."""
    import logging

    import weasyprint

    logging.getLogger("weasyprint").setLevel(logging.ERROR)

    def walk(box):
        yield box
        for child in getattr(box, "children", None) or ():
            yield from walk(child)

    right, body = 0.0, None
    for page in weasyprint.HTML(string=html).render().pages:
        for box in walk(page._page_box):
            tag = getattr(box, "element_tag", None)
            if tag in ("td", "th"):
                right = max(right, box.position_x + box.margin_width())
            elif tag == "body":
                body = box
    return right, body.content_box_x() + body.width


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_group_fight_table_fits_the_printed_page(lang):
    """The combat section's group-fight table (24 columns: fight, system, method and the
    21 of GROUP_COLUMNS, numbers of 4 decimals) stays inside the A4 text block: its
    pt-BR headers ("EP(0 moribundo)", "EP(rodadas)") are hyphenated in print rather than
    widening their columns past the margin (it overflowed by about 100 px)."""
    import pandas as pd

    from reports.render_html import render_html
    from reports.sections.combat_common import GROUP_COLUMNS
    from reports.settings import ReportSettings
    from reports.structure import Caption, Report, Section, Table

    rows = [
        {
            "fight": fight,
            "system": system,
            "method": "mc",
            **dict.fromkeys(GROUP_COLUMNS, 0.4942),
            "rounds_mean": 3.35,
            "rounds_se": 0.004,
            "rounds_q50": 3,
        }
        for fight in ("2v2", "3v1")
        for system in ("dice_pool_7", "middle_3d10", "d20_degrees")
    ]
    frame = pd.DataFrame(rows).rename(columns=GROUP_COLUMNS)
    assert len(frame.columns) == 24
    table = Table(
        id="combat-groups",
        title="t",
        frame=frame,
        caption=Caption("c"),
        index=("fight", "system"),
        formats={"rounds": ".2f", "SE(rounds)": ".3f", "median": ".0f"},
    )
    with i18n.language(lang):
        html = render_html(
            Report("r", [Section("s", "S", [], [table])]),
            ReportSettings(systems=("dice_pool_7",), lang=lang),
        )
    right, margin = _printed_right_edges(html)
    assert right <= margin + 0.5, (right, margin)


def test_bar_labels_and_annotations_take_the_decimal_comma():
    """Numbers drawn on the axes (bar labels, annotations) are figure texts too: pt-BR
    writes them with the decimal comma, English leaves them alone."""
    from reports.plotting import new_figure, translate_figure

    for lang, want in (("pt-BR", ["0,03", "0,98"]), ("en", ["0.03", "0.98"])):
        fig, (ax,) = new_figure()
        ax.bar_label(ax.bar([0, 1], [0.03, 0.98]), fmt="%.2f")
        translate_figure(fig, lang)
        assert [t.get_text() for t in ax.texts] == want
