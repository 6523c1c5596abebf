"""``analysis.glossary``: knobs, metrics and numbers in a designer's words.

The expected phrases are written by hand from the rules digest: the knob a finding moves
is named by the rule that defines it — middle_3d10's Vigor by B9 (Resistance = 3 ×
Vigor), dice_pool_7's CON by A14 (Vitality = 2 × CON + 6) and its 10-again by A1,
percentile's success level by D1, d20_degrees' DC by E1 — and every rule id a phrase
cites is looked up in docs/RULES.md, or, for the ids a system's engine adds (the
percentile combat extension's DX ids, gaps such as A-g7 or E-g16), in the docstring of
the module that defines it (``**E-g16**``). Numbers: a probability with 2–3
significant digits, tiny ones in words, mean rounds with one decimal; never scientific
notation, in English or pt-BR.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from pathlib import Path

import pytest

from analysis.glossary import figure_phrase, knob_phrase, metric_phrase, value_phrase
from analysis.text import Text
from engines.system import BUILT_IN, registry
from reports.i18n import text

ROOT = Path(__file__).resolve().parents[1]
RULES = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
#: the ids an engine adds (DX1…, E-g16 …) are defined in its modules' docstrings
ENGINE_DOCS = "\n".join(
    importlib.import_module(f"engines.systems.{sid}.{part}").__doc__ or ""
    for sid in BUILT_IN
    for part in ("checks", "combat")
)
SCIENTIFIC = re.compile(r"\d[eE][-+]?\d")
#: what an identifier looks like in prose: a dotted knob or a snake_case name
IDENTIFIER = re.compile(r"\b(both|a|b|variant)\.\w+|\b[a-z0-9]+_[a-z0-9_]+\b")


def cited(phrase: str) -> list[str]:
    """The rule ids a phrase cites in parentheses: ``(B9)`` → ``["B9"]``."""
    return re.findall(r"\(([A-E][XT]?-?g?\d+|Lethality outcomes)\)", phrase)


def defined(rule: str) -> bool:
    """Whether the digest or an engine's docstring defines a rule id: a bold ``**B9 …``
    or a ``GAP B-g4`` entry."""
    if rule == "Lethality outcomes":
        return "## Lethality outcomes" in RULES
    entry = rf"(\*\*{re.escape(rule)}\b|GAP \**{re.escape(rule)}\b)"
    return bool(re.search(entry, RULES) or re.search(entry, ENGINE_DOCS))


# ---------------------------------------------------------------- knobs


@pytest.mark.parametrize(
    ("system", "knob", "expected", "rule_words"),
    [
        # B9: Resistance = 3 × Vigor points
        ("middle_3d10", "both.vigor", "both fighters' Vigor (B9)", "Vigor"),
        # A14: Vitality = 2 × CON + 6
        ("dice_pool_7", "both.CON", "both fighters' CON (A14)", "CON"),
        ("dice_pool_7", "a.CON", "fighter A's CON (A14)", "CON"),
        # A1: a 10 rolls one more die (10-again)
        ("dice_pool_7", "variant.again", "the 10-again rule (A1)", "10-again"),
        # C6: Health = Stamina + 3
        ("dice_pool_6", "b.stamina", "fighter B's Stamina (C6)", "Stamina"),
        # E1: d20 + modifiers vs DC
        ("d20_degrees", "dc", "the DC (E1)", "DC"),
        # D1: the keeper sets the difficulty (regular, hard, extreme)
        ("percentile", "level", "the success level asked for (D1)", "hard"),
        # B2: easy 10, average 15, hard 20, very hard 25
        ("middle_3d10", "difficulty", "the Difficulty (B2)", "hard 20"),
        # A13: armour ignores damage by type
        ("dice_pool_7", "both.armour", "both fighters' body armour (A13)", "Armour"),
    ],
)
def test_knob_phrase_names_the_rule(system, knob, expected, rule_words):
    phrase = knob_phrase(system, knob)
    assert isinstance(phrase, Text)
    assert phrase == expected
    (rule,) = cited(phrase)
    section = re.search(rf"\*\*{rule}\b.*?(?=\n- \*\*|\n- GAP|\n## |\Z)", RULES, re.S)
    assert section is not None, rule
    assert rule_words in section.group(0), (rule, rule_words)


def test_every_knob_the_audit_names_is_words_with_a_defined_rule():
    """The knobs of every built-in system's interaction sweep, its health trait, fighter
    A's weapon, the armour and each combat variant the cure search may move: words, no
    identifier, and every rule id cited is one the rules define."""
    for system in BUILT_IN:
        spec = registry()[system]
        knobs = {
            f"both.{spec.audit.health_trait}",
            "a.weapon",
            *spec.audit.interaction_sweep["knobs"],
            *spec.checks.axes,
        }
        variants = spec.combat.engine().Variants
        knobs |= {f"variant.{f.name}" for f in dataclasses.fields(variants)}
        for knob in sorted(knobs):
            phrase = str(knob_phrase(system, knob))
            assert not IDENTIFIER.search(phrase), (system, knob, phrase)
            rules = cited(phrase)
            assert rules, (system, knob, phrase)
            assert all(defined(r) for r in rules), (system, knob, phrase)


def test_every_built_in_variant_has_a_term():
    """Each check and combat variant of the built-ins names itself (``term=``), so no
    finding about a built-in falls back to its field name."""
    missing = []
    for spec in registry().values():
        if spec.source != "built-in":
            continue
        for cls in (
            spec.checks.variants,
            spec.combat.engine().Variants if spec.combat is not None else None,
        ):
            for f in dataclasses.fields(cls) if cls is not None else ():
                if not f.metadata.get("term"):
                    missing.append(f"{spec.id}.{f.name}")
    assert missing == []


@pytest.mark.parametrize(
    ("system", "knob", "expected"),
    [
        ("pbta_nowhere", "both.harm_clock", "both fighters' harm clock"),  # not installed
        ("dice_pool_7", "both.luck_points", "both fighters' luck points"),  # no term
        ("dice_pool_7", "variant.no_such_rule", "the rule variant “no such rule”"),
        ("dice_pool_7", "team.morale_bonus", "team morale bonus"),
        ("middle_3d10", "", ""),
    ],
)
def test_unknown_knobs_read_as_words(system, knob, expected):
    assert knob_phrase(system, knob) == expected


# ---------------------------------------------------------------- values


@pytest.mark.parametrize(
    ("system", "knob", "value", "expected"),
    [
        ("percentile", "variant.extreme_damage", True, "on"),
        ("percentile", "variant.extreme_damage", "False", "off"),  # as a sweep prints it
        ("dice_pool_7", "variant.again", 9, "9-again"),
        ("dice_pool_7", "variant.again", "9", "9-again"),
        ("dice_pool_7", "variant.again", None, "no re-rolls"),
        ("dice_pool_7", "variant.weapon_bonus", "damage", "damage only"),
        ("percentile", "level", "hard", "hard"),
        ("dice_pool_7", "both.armour", "heavy_archaic", "heavy archaic"),
        ("middle_3d10", "a.weapon", "knife", "knife"),
        ("middle_3d10", "both.vigor", 8, "8"),
        ("percentile", "both.con", "60", "60"),
        ("dice_pool_7", "variant.first_aid_dice", 12000, "12,000"),
        ("dice_pool_7", "variant.dodge_lasts", "some_new_choice", "some new choice"),
    ],
)
def test_value_phrase(system, knob, value, expected):
    assert value_phrase(system, knob, value) == expected


def test_values_in_pt_br():
    assert text(value_phrase("percentile", "level", "hard"), "pt-BR") == "difícil"
    assert text(value_phrase("percentile", "variant.extreme_damage", True), "pt-BR") == "ativada"
    assert text(value_phrase("dice_pool_7", "variant.first_aid_dice", 12000), "pt-BR") == "12.000"


# ---------------------------------------------------------------- metrics


def test_every_fight_metric_is_a_phrase():
    from analysis.combat.fights import METRIC_NAMES

    for name in [*METRIC_NAMES, "p_rounds_between:3:5", "p_success"]:
        phrase = str(metric_phrase(name))
        assert phrase.startswith("the "), (name, phrase)
        assert not IDENTIFIER.search(phrase), (name, phrase)
        assert ":" not in phrase, (name, phrase)


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("p_rounds_between:3:5", "the chance of a duel that lasts 3–5 rounds"),
        ("p_rounds_between:1:1", "the chance of a duel that ends in round 1"),
        ("p_one_hit_kill", "the chance that one attack kills an unhurt fighter"),
        ("p_success", "the chance to succeed"),
        ("p_side0", "the chance that fighter A wins"),
        ("rounds_mean", "the duel's mean length"),
        ("p_reach:3:20", "the chance to reach 3 by session 20"),
        ("median_at:30", "the median character's state after session 30"),
        ("extra_at:p_able:5", "the campaign tally “able” after session 5"),
        ("some_new_metric", "some new metric"),
    ],
)
def test_metric_phrase(metric, expected):
    assert metric_phrase(metric) == expected


def test_every_campaign_metric_form_is_a_phrase():
    from analysis.campaign import CAMPAIGN_METRICS

    for form in CAMPAIGN_METRICS:
        name = form.replace("NAME", "p_able").replace("X", "4").replace("N", "12")
        phrase = str(metric_phrase(name))
        assert "12" in phrase, (name, phrase)
        assert not IDENTIFIER.search(phrase), (name, phrase)


def test_metrics_in_pt_br():
    assert text(metric_phrase("p_success"), "pt-BR") == "a chance de superar a tarefa"
    assert (
        text(metric_phrase("p_rounds_between:3:5"), "pt-BR")
        == "a chance de um duelo que dura 3–5 rodadas"
    )


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("metric", "value", "se", "expected"),
    [
        # the dice_pool_7 pistol guardrail's value: one pistol hit kills with P 4.46e-11
        ("p_one_hit_kill", 4.463198932752004e-11, 0.0, "fewer than 1 in a billion"),
        ("p_one_hit_kill", 1 / 20_000, 0.0, "about 1 in 20,000"),
        ("p_one_hit_kill", 1 / 22_421, 0.0, "about 1 in 22,000"),  # 2 significant digits
        ("p_one_hit_kill", 1 / 3_140_000, 0.0, "about 1 in 3.1 million"),
        ("p_one_hit_kill", 1e-6, 0.0, "about 1 in a million"),
        # middle_3d10: an even knife duel ends in round 1 with P 0.882 (exact: 0.8816…)
        ("p_rounds_between:1:1", 0.88163679744, 0.0, "88.2%"),
        ("p_one_hit_incapacitate", 0.768096, 0.0, "76.8%"),
        ("p_success", 0.4, 0.0, "40%"),
        ("p_success", 0.0447, 0.0, "4.5%"),
        ("p_success", 0.00451, 0.0, "0.45%"),
        ("p_side0", 0.4942, 0.0035, "49.4% ± 0.35 points"),
        ("p_side0", 0.0, 0.0, "0%"),
        ("p_side0", 1.0, 0.0, "100%"),
        ("p_side0", 0.9996, 0.0, "more than 99.9%"),
        # middle_3d10's even duel lasts 1.103 rounds on average
        ("rounds_mean", 1.1030755530634089, 0.0, "1.1 rounds"),
        ("rounds_mean", 2.0, 0.0, "2.0 rounds"),
        ("rounds_mean", 3.3, 0.041, "3.3 ± 0.041 rounds"),
        ("mean_at:30", 12345.678, 0.0, "12,300"),
        ("mean_at:30", 1.5e-7, 0.0, "less than 0.001"),
    ],
)
def test_figure_phrase(metric, value, se, expected):
    assert figure_phrase(metric, value, se) == expected


@pytest.mark.parametrize("lang", ["en", "pt-BR"])
def test_no_scientific_notation_at_any_magnitude(lang):
    for exponent in range(-16, 1):
        for mantissa in (1.0, 2.5, 4.46, 9.99):
            p = mantissa * 10.0**exponent
            for metric in ("p_side0", "rounds_mean", "mean_at:3"):
                for se in (0.0, p / 7):
                    shown = text(figure_phrase(metric, p, se), lang)
                    assert not SCIENTIFIC.search(shown), (metric, p, se, shown)
    for big in (1e6, 3.3e9, 1e16):
        assert not SCIENTIFIC.search(text(figure_phrase("mean_at:3", big), lang))


def test_figures_in_pt_br():
    assert text(figure_phrase("p_one_hit_kill", 4.46e-11), "pt-BR") == "menos de 1 em um bilhão"
    assert text(figure_phrase("p_side0", 0.882), "pt-BR") == "88,2%"
    assert text(figure_phrase("p_one_hit_kill", 1 / 20_000), "pt-BR") == "cerca de 1 em 20.000"
    # 0 < n < 2: singular
    assert text(figure_phrase("rounds_mean", 1.103), "pt-BR") == "1,1 rodada"
    assert text(figure_phrase("p_side0", 0.4942, 0.0035), "pt-BR") == "49,4% ± 0,35 ponto"


def test_knobs_in_pt_br_say_cd():
    """The d20 difficulty class is "CD" in pt-BR prose, as in the tables."""
    assert text(knob_phrase("d20_degrees", "dc"), "pt-BR") == "a CD (E1)"
    assert (
        text(knob_phrase("middle_3d10", "both.vigor"), "pt-BR") == "o Vigor dos dois lutadores (B9)"
    )
