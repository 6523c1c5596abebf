"""Words that reach the page from data rather than from a sentence in the section code.

Table headers are the frames' column names (kept machine-readable in the CSV downloads)
and some figures come from :mod:`analysis.checks.plots`; the renderers translate both
through the gettext catalogue (:func:`reports.render_html.column_header`,
:func:`reports.plotting.translate_figure`). This module only *marks* those msgids for
extraction (``pybabel extract`` finds the ``N_`` calls); nothing here is looked up.
Identifiers stay as they are in every language: system ids, rule ids, archetype, weapon,
tactic and armour names from the data files.
"""

from __future__ import annotations

from reports.i18n import N_

__all__ = ["COLUMNS", "FIGHT_TITLES", "FIGURE_LABELS", "VALUES"]

#: Column names of the report's tables.
COLUMNS = (
    # success curves, outcomes, opposed checks
    N_("pool"), N_("successes"), N_("difficulty"), N_("modifier"), N_("skill"), N_("dc"),
    N_("roll"), N_("level"), N_("dice"), N_("degree"), N_("mean"), N_("sd"),
    N_("mean_mc"), N_("se_mean"), N_("pool_a"), N_("modifier_a"), N_("skill_a"),
    # Monte Carlo agreement
    N_("system"), N_("cells"), N_("trials"), N_("max |z|"), N_("mean |z|"),
    N_("cells |z| > 3"), N_("max |p_mc − p|"), N_("max SE"), N_("outside 5σ + 1/n"),
    # native spread
    N_("task"), N_("axis"), N_("value at 50%"), N_("steps 10% → 90%"),
    N_("largest gain per step (pp)"), N_("lowest P"), N_("highest P"),
    # modifiers, claim C7
    N_("rule"), N_("mean_delta_pp"), N_("min_delta_pp"), N_("max_delta_pp"),
    N_("n_cells"), N_("pools_holding"), N_("pools_breaking"), N_("max_abs_delta_pp"),
    N_("worst_pool"), N_("share_holds"), N_("n_holds"),
    # ladders
    N_("competence"), N_("p"), N_("anchor_gap"), N_("within_tolerance"), N_("target"),
    N_("sd_outcome"), N_("rung_shift"), N_("sd_in_rungs"), N_("slope_pp_per_rung"),
    N_("p_upset_adjacent"), N_("p_upset_two_apart"), N_("p_upset_adjacent_defending"),
    N_("p_upset_two_apart_defending"), N_("easy"), N_("average"),
    N_("hard"), N_("very_hard"),
    # combat
    N_("matchup"), N_("method"), N_("A"), N_("B"), N_("A wins"), N_("SE(A)"),
    N_("B wins"), N_("SE(B)"), N_("neither"), N_("rounds"), N_("SE(rounds)"),
    N_("median"), N_("90% by"), N_("dead"), N_("SE(dead)"), N_("dying"), N_("SE(dying)"),
    N_("out"), N_("SE(out)"), N_("A→B inc."), N_("A→B kill"), N_("B→A inc."),
    N_("B→A kill"), N_("fight"), N_("0 wins"), N_("SE(0)"), N_("1 wins"), N_("SE(1)"),
    N_("SE(n.)"), N_("0 dead"), N_("0 dying"), N_("0 out"), N_("1 dead"), N_("1 dying"),
    N_("1 out"), N_("SE(0 dead)"), N_("SE(0 dying)"), N_("SE(0 out)"), N_("SE(1 dead)"),
    N_("SE(1 dying)"), N_("SE(1 out)"), N_("change"), N_("choice"), N_("loser dead"),
    N_("loser dying"), N_("loser out"), N_("weapon"), N_("attacker"), N_("target"),
    N_("P(hit)"), N_("P(incapacitated by one hit)"), N_("P(killed by one hit)"),
    N_("then dead"), N_("then dying"), N_("then out"), N_("weaker"), N_("stronger"),
    N_("upset, one roll"), N_("upset, one roll defending"), N_("upset, duel"), N_("SE(duel)"),
    # assumptions, provenance
    N_("variant"), N_("applies to"), N_("value"), N_("default"), N_("changed"),
    N_("doc"), N_("item"), N_("rules file"), N_("edit"),
    # key findings (the guardrails audit)
    N_("guardrail"), N_("metric"), N_("min"), N_("max"), N_("status"), N_("suggestion"),
    N_("knob"), N_("depends on"), N_("main effect"), N_("held at"), N_("from"), N_("to"),
    N_("from level"), N_("to level"),
    # campaign mechanics
    N_("mechanic"), N_("session"), N_("q10"), N_("q50"), N_("q90"), N_("tallies"),
    # the audit and campaign commands' markdown (--lang)
    N_("reason"), N_("solved"), N_("file"), N_("rank"), N_("kind"), N_("subject"),
    N_("detail"), N_("severity"), N_("by"), N_("se"), N_("variants"), N_("threshold"),
    N_("mean_exact"), N_("sd_exact"), N_("q10_exact"), N_("q50_exact"), N_("q90_exact"),
    N_("sd_mc"), N_("q10_mc"), N_("q50_mc"), N_("q90_mc"), N_("p_exact"), N_("p_mc"),
    N_("knob"), N_("reach"), N_("sessions"), N_("p_reached"), N_("meets"), N_("chosen"),
)

#: Values shown in table cells or reading sentences that come from data.
VALUES = (N_("tactic"), N_("armour"), N_("exact"), N_("mc"),
          # the commands' markdown (--lang): methods, provenance, severities, yes/no
          N_("both"), N_("all"), N_("defaults"), N_("per file"), N_("high"), N_("medium"),
          N_("low"), N_("yes"), N_("no"))

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
    N_("competence"), N_("P(success)"), N_("easy task"), N_("average task"),
    N_("hard task"), N_("very hard task"), N_("untrained"), N_("novice"),
    N_("competent"), N_("expert"), N_("master"), N_("claim breaks"),
    N_("pool (dice before +2)"), N_("difficulty (successes before −1)"),
    N_("P(+2 dice) − P(−1 difficulty), pp"),
    # campaign fan charts (analysis.campaign.fan_chart); the states are marked in
    # reports/sections/campaign.py
    N_("session"), N_("median"), N_("mean"),
    N_("change in P(success), percentage points\n(mean and min–max over base chances "
       "0.05–0.95)"),
)
