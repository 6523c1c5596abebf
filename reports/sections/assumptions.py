"""Section (appendix): what the code reads where the rules text is silent, in words — the
gap readings (rule ids ``X-gN`` of RULES.md), the variants a build changes from the rules
text, the aftermath policy, what is exact and what simulated — and the designer's rules
files when there are any. Every variant in force, with its value and default, is the
table's CSV download."""

from __future__ import annotations

import pandas as pd

from analysis.combat.cross_combat import PACKAGED
from engines.variants import describe
from reports.i18n import _, decimal, text
from reports.rules_words import rules_frame, rules_line
from reports.sections.combat_common import AFTERMATH_TEXT
from reports.sections.common import table_block
from reports.settings import ReportSettings
from reports.structure import Section

__all__ = ["assumptions_frame", "gap_rule", "readings_frame", "section_assumptions", "show_value"]


def assumptions_frame(settings: ReportSettings) -> pd.DataFrame:
    """Every variant in force: the check variants, then each combat engine's own ones
    (those a combat ``Variants`` inherits from the checks are listed once, as checks)."""
    rows = []
    for system in settings.systems:
        force = settings.in_force(system)
        v, cv = force.checks, force.combat
        in_combat = {r["variant"] for r in describe(cv)} if cv is not None else set()
        listed = set()
        for row in describe(v):
            row["applies to"] = (
                _("checks and combat") if row["variant"] in in_combat else _("checks")
            )
            listed.add(row["variant"])
            rows.append(row)
        for row in describe(cv) if cv is not None else ():
            if row["variant"] not in listed:
                row["applies to"] = _("combat")
                rows.append(row)
    for row in rows:
        row["changed"] = _("yes") if row["value"] != row["default"] else ""
        row["value"] = show_value(row["value"])
        row["default"] = show_value(row["default"])
        row["doc"] = text(row["doc"])  # the engines' English doc, through the catalogue
    return pd.DataFrame(rows)[
        ["system", "variant", "applies to", "rule", "value", "default", "changed", "doc"]
    ]


def gap_rule(rule: str) -> bool:
    """Whether ``rule`` is a gap id of RULES.md (``A-g7``, ``DX-g12``, ``ET-g1``): a place
    the rules text is silent on, settled by the code's reading."""
    head, sep, tail = rule.partition("-g")
    return bool(sep) and head.isalpha() and tail.isdigit()


def readings_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`assumptions_frame` that differ from the rules text, in words:
    every gap reading (:func:`gap_rule`) and every variant changed from its default, as
    ``system``, ``rule`` and ``reading`` (the variants' descriptions, one row per system
    and rule)."""
    keep = frame["rule"].map(gap_rule) | (frame["changed"] == _("yes"))
    out = frame.loc[keep, ["system", "rule", "doc"]].rename(columns={"doc": "reading"})
    # the variants that settle one gap together (B-g14's three first-aid numbers) are one row
    joined = out.groupby(["system", "rule"], sort=False)["reading"].agg("; ".join)
    return joined.reset_index()


def show_value(value) -> str:
    """A variant value as the assumptions table shows it (``none``, ``true``/``false``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def section_assumptions(settings: ReportSettings) -> Section:
    """Every rule variant in force (rule id, value, default) and what is exact vs MC."""
    frame = assumptions_frame(settings)
    shown = readings_frame(frame)
    changed = frame[frame["changed"] == _("yes")]
    reading = [
        _(
            "Only what differs from the rules text is listed here: where a text is silent "
            "(its gap rules in the rules digest, such as A-g7) the code must still read it one "
            "way, "
            "and the table says how, in words, system by system ({n} readings). Everything "
            "else follows the rules text as written."
        ).format(n=decimal(len(shown)))
        + " "
        + (
            _("No rule variant of this report is changed from the rules text.")
            if changed.empty
            else _("This report changes {n} rule variant(s) from the rules text: {list}.").format(
                n=decimal(len(changed)),
                list="; ".join(
                    f"{r.system} {r.rule} ({r.variant} = {r.value})" for r in changed.itertuples()
                ),
            )
        ),
        _(
            "The combat rows settle the combat engines' own gaps, and every combat section "
            "uses the readings shown (a check rule reaches the combat engines too where their "
            "attacks roll the check system's dice). The aftermath policy is set for every "
            "system alike: aftermath “{policy}” — {meaning} (the rules digest's common convention "
            "on the fate of the fallen; the other policies are first aid and finishing them, "
            "a build option). It decides whether a fallen loser ends dead, dying or out."
        ).format(policy=_(settings.aftermath), meaning=_(AFTERMATH_TEXT[settings.aftermath])),
        _(
            "Exact: success curves, outcome means and SDs (enumeration / convolution of the "
            "dice), opposed checks, the ladders, the cross-system duels, one-hit odds by "
            "weapon, the tactic and armour tables and the duel upsets (each duel solved as a "
            "Markov chain; a row marked “mc” is simulated because its engine has no exact "
            "solver). Monte Carlo: the agreement check and the group fights; every simulated "
            "number carries its standard error."
        ),
    ]
    if settings.cross_combat is not None:
        reading.append(
            _(
                "The combat sections' fights (the duels, the group fights, the "
                "ladder fighters of the upsets and the distance section, the even "
                "duel of the weapon and gear tables) and the key findings' ladder "
                "fighters come from the cross-combat file {file}, not the packaged "
                "{packaged}."
            ).format(file=settings.cross_label, packaged=PACKAGED)
        )
    blocks = [
        table_block(
            "assumptions",
            _("Where the rules text is silent: the code's readings"),
            shown,
            _(
                "One row per gap the code settles (and per rule variant this "
                "report changes): the rule id and the reading in force. The CSV "
                "lists every rule variant with its value and default."
            ),
            full=frame,
        )
    ]
    if settings.rules:
        reading.insert(
            0,
            _(
                "This report is built under a designer's rules files, not the "
                "rule tables the systems ship: {rules}. Every number of every "
                "section is computed with these edits (the table “Rules files "
                "in force” lists them; rpg-balance rules SYSTEM --rules FILE "
                "prints the edited tables)."
            ).format(rules=rules_line(settings.rules)),
        )
        blocks.insert(
            0,
            table_block(
                "rules-in-force",
                _("Rules files in force"),
                rules_frame(settings.rules),
                _(
                    "One row per edit a rules file (--rules FILE) makes "
                    "to its system's rule tables: a field as "
                    "table.entry.field with the packaged value → the "
                    "value used here, an entry added or removed, or an "
                    "offset to every fighter's trait."
                ),
            ),
        )
    return Section("assumptions", _("Appendix: Assumptions"), reading, blocks)
