"""Words that reach the page from data rather than from a sentence in the section code.

Table headers are the frames' column names (kept machine-readable in the CSV downloads)
and some figures come from :mod:`analysis.checks.plots`; the renderers translate both
through the gettext catalogue (:func:`reports.render_html.column_header`,
:func:`reports.plotting.translate_figure`). This module only *marks* those msgids for
extraction (``pybabel extract`` finds the ``N_`` calls); nothing here is looked up.
In English a machine name is shown in the words of :data:`HEADERS` (``rounds_mean`` →
"mean rounds"), and a snake_case id in a cell (weapon, armour, tactic, archetype) in the
words its system gives it or read as words (:func:`cell_words`). System ids and rule ids
stay as they are in every language; the CSV downloads keep every machine name.
"""

from __future__ import annotations

import functools
import re

from reports.i18n import N_, current, translations

__all__ = [
    "COLUMNS",
    "FIGHT_TITLES",
    "FIGURE_LABELS",
    "HEADERS",
    "VALUES",
    "cell_words",
    "fighter_words",
    "header",
]

#: Column names of the report's tables.
COLUMNS = (
    # success curves, outcomes, opposed checks
    N_("pool"),
    N_("successes"),
    N_("difficulty"),
    N_("modifier"),
    N_("skill"),
    N_("dc"),
    N_("roll"),
    N_("level"),
    N_("dice"),
    N_("degree"),
    N_("mean"),
    N_("sd"),
    N_("mean_mc"),
    N_("se_mean"),
    N_("pool_a"),
    N_("modifier_a"),
    N_("skill_a"),
    # Monte Carlo agreement
    N_("system"),
    N_("cells"),
    N_("roll settings"),
    N_("trials"),
    N_("max |z|"),
    N_("mean |z|"),
    N_("cells |z| > 3"),
    N_("max |p_mc − p|"),
    N_("max SE"),
    N_("outside 5σ + 1/n"),
    # native spread
    N_("task"),
    N_("axis"),
    N_("value at 50%"),
    N_("steps 10% → 90%"),
    N_("largest gain per step (pp)"),
    N_("lowest P"),
    N_("highest P"),
    # modifiers, claim C7
    N_("rule"),
    N_("mean_delta_pp"),
    N_("min_delta_pp"),
    N_("max_delta_pp"),
    N_("n_cells"),
    N_("pools_holding"),
    N_("pools_breaking"),
    N_("max_abs_delta_pp"),
    N_("worst_pool"),
    N_("share_holds"),
    N_("n_holds"),
    # ladders
    N_("competence"),
    N_("p"),
    N_("anchor_gap"),
    N_("within_tolerance"),
    N_("target"),
    N_("sd_outcome"),
    N_("rung_shift"),
    N_("sd_in_rungs"),
    N_("slope_pp_per_rung"),
    N_("p_upset_adjacent"),
    N_("p_upset_two_apart"),
    N_("p_upset_adjacent_defending"),
    N_("p_upset_two_apart_defending"),
    N_("easy"),
    N_("average"),
    N_("hard"),
    N_("very_hard"),
    # combat
    N_("matchup"),
    N_("method"),
    N_("A"),
    N_("B"),
    N_("A wins"),
    N_("SE(A)"),
    N_("B wins"),
    N_("SE(B)"),
    N_("neither"),
    N_("rounds"),
    N_("SE(rounds)"),
    N_("median"),
    N_("90% by"),
    N_("dead"),
    N_("SE(dead)"),
    N_("dying"),
    N_("SE(dying)"),
    N_("out"),
    N_("SE(out)"),
    N_("A→B inc."),
    N_("A→B kill"),
    N_("B→A inc."),
    N_("B→A kill"),
    N_("fight"),
    N_("0 wins"),
    N_("SE(0)"),
    N_("1 wins"),
    N_("SE(1)"),
    N_("SE(n.)"),
    N_("0 dead"),
    N_("0 dying"),
    N_("0 out"),
    N_("1 dead"),
    N_("1 dying"),
    N_("1 out"),
    N_("SE(0 dead)"),
    N_("SE(0 dying)"),
    N_("SE(0 out)"),
    N_("SE(1 dead)"),
    N_("SE(1 dying)"),
    N_("SE(1 out)"),
    N_("change"),
    N_("choice"),
    N_("loser dead"),
    N_("loser dying"),
    N_("loser out"),
    N_("weapon"),
    N_("attacker"),
    N_("target"),
    N_("P(hit)"),
    N_("P(incapacitated by one hit)"),
    N_("P(killed by one hit)"),
    N_("then dead"),
    N_("then dying"),
    N_("then out"),
    N_("weaker"),
    N_("stronger"),
    N_("upset, one roll"),
    N_("upset, one roll defending"),
    N_("upset, duel"),
    N_("SE(duel)"),
    # assumptions, provenance
    N_("variant"),
    N_("applies to"),
    N_("value"),
    N_("default"),
    N_("changed"),
    N_("doc"),
    N_("reading"),
    N_("item"),
    N_("rules file"),
    N_("edit"),
    # key findings (the guardrails audit)
    N_("guardrail"),
    N_("metric"),
    N_("min"),
    N_("max"),
    N_("status"),
    N_("suggestion"),
    N_("knob"),
    N_("depends on"),
    N_("main effect"),
    N_("held at"),
    N_("from"),
    N_("to"),
    N_("from level"),
    N_("to level"),
    # campaign mechanics
    N_("mechanic"),
    N_("session"),
    N_("q10"),
    N_("q50"),
    N_("q90"),
    N_("tallies"),
    # the audit and campaign commands' markdown (--lang)
    N_("reason"),
    N_("solved"),
    N_("file"),
    N_("rank"),
    N_("kind"),
    N_("subject"),
    N_("detail"),
    N_("severity"),
    N_("by"),
    N_("se"),
    N_("variants"),
    N_("threshold"),
    N_("mean_exact"),
    N_("sd_exact"),
    N_("q10_exact"),
    N_("q50_exact"),
    N_("q90_exact"),
    N_("sd_mc"),
    N_("q10_mc"),
    N_("q50_mc"),
    N_("q90_mc"),
    N_("p_exact"),
    N_("p_mc"),
    N_("knob"),
    N_("reach"),
    N_("sessions"),
    N_("p_reached"),
    N_("meets"),
    N_("chosen"),
)

#: Values shown in table cells or reading sentences that come from data.
VALUES = (
    N_("tactic"),
    N_("armour"),
    N_("exact"),
    N_("mc"),
    # the commands' markdown (--lang): methods, provenance, severities, yes/no
    N_("both"),
    N_("all"),
    N_("defaults"),
    N_("per file"),
    N_("high"),
    N_("medium"),
    N_("low"),
    N_("yes"),
    N_("no"),
)

#: Titles of the fights in ``analysis/data/cross_combat.toml`` (shown in the readings;
#: tests/test_report_i18n.py checks every title of the file has a translation).
FIGHT_TITLES = (
    N_("a competent fighter with a light melee weapon against an equal"),
    N_("a competent shooter with a pistol against an unarmoured novice"),
    N_("two competent fighters against two"),
    N_("three novices against one expert"),
)

#: Labels of the :mod:`analysis.checks.plots` figures the report embeds.
FIGURE_LABELS = (
    N_("competence"),
    N_("P(success)"),
    N_("easy task"),
    N_("average task"),
    N_("hard task"),
    N_("very hard task"),
    N_("untrained"),
    N_("novice"),
    N_("competent"),
    N_("expert"),
    N_("master"),
    N_("claim breaks"),
    N_("pool (dice before +2)"),
    N_("difficulty (successes before −1)"),
    N_("P(+2 dice) − P(−1 difficulty), pp"),
    # campaign fan charts (analysis.campaign.fan_chart); the states are marked in
    # reports/sections/campaign.py
    N_("session"),
    N_("median"),
    N_("mean"),
    N_("change in P(success), percentage points\n(mean and min–max over base chances 0.05–0.95)"),
)

#: A machine column name (or metric id in a cell) and the words its header shows: the
#: report's tables and the live page (:mod:`reports.workbench`) name a column with these
#: words (translated); the CSV downloads keep the machine names.
HEADERS = {
    # outcomes and opposed checks
    "mean_mc": N_("mean (Monte Carlo)"),
    "se_mean": N_("SE of the mean"),
    "sd": N_("SD"),
    "pool_a": N_("challenger's pool"),
    "modifier_a": N_("challenger's modifier"),
    "skill_a": N_("challenger's skill"),
    "very_hard": N_("very hard"),
    # modifiers, claim C7
    "mean_delta_pp": N_("mean change (pp)"),
    "min_delta_pp": N_("smallest change (pp)"),
    "max_delta_pp": N_("largest change (pp)"),
    "n_cells": N_("cells"),
    "pools_holding": N_("pools where it holds"),
    "pools_breaking": N_("pools where it breaks"),
    "max_abs_delta_pp": N_("largest change either way (pp)"),
    "worst_pool": N_("worst pool"),
    "share_holds": N_("share of cells where it holds"),
    "n_holds": N_("cells where it holds"),
    # ladders
    "p": N_("P(success)"),
    "anchor_gap": N_("off the anchor"),
    "within_tolerance": N_("within tolerance"),
    "sd_outcome": N_("SD of the result"),
    "rung_shift": N_("result gained per rung"),
    "sd_in_rungs": N_("luck (rungs)"),
    "slope_pp_per_rung": N_("gain per rung (pp)"),
    "p_upset_adjacent": N_("upset, one rung apart"),
    "p_upset_two_apart": N_("upset, two rungs apart"),
    "p_upset_adjacent_defending": N_("upset, one rung apart, defending"),
    "p_upset_two_apart_defending": N_("upset, two rungs apart, defending"),
    "p_upset_attacking": N_("upset, one roll"),
    "p_upset_defending": N_("upset, one roll defending"),
    # fights (guardrail metrics in cells too)
    "p_side0": N_("A wins"),
    "p_side1": N_("B wins"),
    "p_neither": N_("neither wins"),
    "se_side0": N_("SE(A)"),
    "se_side1": N_("SE(B)"),
    "rounds_mean": N_("mean rounds"),
    "rounds_q50": N_("median rounds"),
    "rounds_se": N_("SE(rounds)"),
    "p_loser_dead": N_("loser dead"),
    "p_loser_dying": N_("loser dying"),
    "p_loser_out": N_("loser out"),
    "p_someone_dead": N_("someone dead"),
    "deaths_mean": N_("dead (mean)"),
    "p_one_hit_hit": N_("P(hit)"),
    "p_one_hit_incapacitate": N_("P(incapacitated by one hit)"),
    "p_one_hit_kill": N_("P(killed by one hit)"),
    "p_success": N_("P(success)"),
    "p_incapacitate": N_("P(incapacitated by one hit)"),
    "p_kill": N_("P(killed by one hit)"),
    "p_hit": N_("P(hit)"),
    "max |p_mc − p|": N_("largest gap, Monte Carlo − exact"),
    # campaign and the commands' markdown
    "q10": N_("10th percentile"),
    "q50": N_("median"),
    "q90": N_("90th percentile"),
    "mean_exact": N_("mean (exact)"),
    "sd_exact": N_("SD (exact)"),
    "q10_exact": N_("10th percentile (exact)"),
    "q50_exact": N_("median (exact)"),
    "q90_exact": N_("90th percentile (exact)"),
    "sd_mc": N_("SD (Monte Carlo)"),
    "q10_mc": N_("10th percentile (Monte Carlo)"),
    "q50_mc": N_("median (Monte Carlo)"),
    "q90_mc": N_("90th percentile (Monte Carlo)"),
    "p_exact": N_("P (exact)"),
    "p_mc": N_("P (Monte Carlo)"),
    "p_reached": N_("P(reached)"),
    "se": N_("SE"),
}

#: a snake_case identifier inside a cell's text (``light_melee``, ``attack_attack``), not
#: part of a path, a file name, an option, a dotted name or a ``metric:argument``
_IDENTIFIER = re.compile(r"(?<![\w./\-])([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?![\w./(:\-])")


def header(column, lang: str | None = None) -> str:
    """A table column's header in ``lang``: the words of :data:`HEADERS` for a machine
    name (translated), else the name itself as the catalogue translates it."""
    name = str(column)
    if not name:
        return name
    tr = translations(lang or current())
    return tr.gettext(HEADERS.get(name, name))


#: a fighter's gear in a label: ``weapon=knife``, ``armour=heavy_archaic``, ``armour=0``
_GEAR = re.compile(r"\b(weapon|armour|tactic|plan)=([^,()]+)")
#: the gear kinds whose value alone names them ("knife"); the others keep their kind
_BARE = {"weapon", "tactic", "plan"}


def fighter_words(label: str, lang: str | None = None) -> str:
    """A fighter as the combat tables label it (``competent (weapon=knife, armour=0)``,
    :func:`analysis.combat.lethality.fighter_label`) in words: the archetype and every
    gear value as the catalogue and the systems' terms name them, a weapon, tactic or
    plan by its value alone, an armour rating with its kind ("competente (faca,
    armadura 0)")."""
    tr = translations(lang or current())

    def gear(m: re.Match) -> str:
        kind, value = m.group(1), m.group(2).strip()
        shown = cell_words(value, lang) if not value.isdigit() else value
        if "_" not in value and not value.isdigit():
            shown = tr.gettext(shown)
        if kind in _BARE or not value.isdigit():
            return shown
        return tr.gettext("{kind} {value}").format(kind=tr.gettext(kind), value=shown)

    head, paren, rest = str(label).partition(" (")
    name = cell_words(head, lang) if "_" in head else tr.gettext(head)
    if not paren:
        return name
    return f"{name} ({_GEAR.sub(gear, rest)}"


def cell_words(text: str, lang: str | None = None) -> str:
    """A table cell's text with its identifiers in words: a metric id of
    :data:`HEADERS` as its header; a gear or tactic id as a system names it (its
    ``Audit.terms``: ``light_melee`` → "light melee weapon"), any other snake_case id
    read as words (``attack_attack`` → "attack attack"), translated when the catalogue
    has the words. System ids, commands, paths and file names stay as they are."""
    text = str(text)
    if not text or text.startswith(("rpg-balance", "python")) or "--" in text:
        return text
    if text in HEADERS:
        return header(text, lang)
    tr = translations(lang or current())
    systems, terms = _known_words()

    def word(m: re.Match) -> str:
        ident = m.group(1)
        if ident in systems:
            return ident
        words = terms.get(ident, ident.replace("_", " "))
        return tr.gettext(words)

    text = _IDENTIFIER.sub(word, text)
    if _GEAR.search(text) and re.match(r"^[^()]+ \(.*\)$", text):
        return fighter_words(text, lang)
    return text


@functools.lru_cache(maxsize=1)
def _known_words() -> tuple[frozenset[str], dict[str, str]]:
    """The system ids (kept as they are) and the words the systems give their gear and
    tactic ids (``weapon=light_melee`` in a system's ``Audit.terms``)."""
    from engines.system import registry

    systems = registry()
    terms: dict[str, str] = {}
    for spec in systems.values():
        for key, (words, *_rule) in spec.audit.terms.items():
            _kind, eq, ident = key.partition("=")
            if eq and ident not in terms:
                terms[ident] = str(words)
    return frozenset(systems), terms
