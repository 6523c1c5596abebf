"""Section: key findings — what a designer reads in a minute, in the systems' own words.

First each system's sharpest finding as one sentence with its number (:func:`sharpest`:
from the default audit and the cheap findings of ``rpg-balance audit --discover`` — fights
decided in one hit, gap variants, knobs whose effect depends on another), then the pass /
fail counts of the shipped balance guardrails (``analysis/data/guardrails.toml``,
``rpg-balance audit``), each failure with what it measures, its value, its bounds, the
designer's reason and the smallest one-knob cure, then the knobs whose effect depends on
another. Knobs, metrics and numbers are words (:mod:`analysis.glossary`); the command
printing each number is in small print under its sentence. The tables keep the audit's
machine values (and the CSV downloads its full frame)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pandas as pd

from analysis.frames import each_row
from analysis.glossary import knob_phrase, metric_phrase, value_phrase
from analysis.text import made
from reports.i18n import N_, _, decimal, text
from reports.rules_words import rules_line
from reports.sections.common import table_block
from reports.sections.finding_words import (
    bounds_words,
    cure_text,
    fighter_words,
    figure_words,
    given_words,
    guardrail_statement,
    is_probability,
    setting_words,
    side_metric_words,
)
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = [
    "COLUMNS",
    "INTERACTION_COLUMNS",
    "STATUSES",
    "TRAP",
    "audit_commands",
    "best_cure",
    "check_variant_args",
    "combat_options",
    "defender_readings",
    "discovery_frame",
    "findings_frame",
    "fought_settings",
    "guardrail_entries",
    "guardrail_scenario",
    "interaction_frame",
    "interaction_reading",
    "interaction_view",
    "key_findings_reading",
    "one_per_pair",
    "section_key_findings",
    "sharpest",
    "trap_readings",
]

COLUMNS = ["guardrail", "system", "metric", "value", "min", "max", "status", "suggestion"]


def findings_frame(settings: ReportSettings) -> pd.DataFrame:
    """The audit table of the default guardrails whose system is in the report (run
    once per systems, guardrail file and rules in force: At a glance and Key findings
    read the same audit)."""
    from analysis.rules import in_force

    rules = tuple(rs.key for rs in in_force().values() if rs)
    guardrails = None if settings.guardrails is None else str(settings.guardrails)
    table = _findings_cached(tuple(settings.systems), guardrails, rules)
    out = table.copy()
    out.attrs = dict(table.attrs)
    return out


@lru_cache(maxsize=2)
def _findings_cached(
    systems: tuple[str, ...], guardrails: str | None, rules: tuple
) -> pd.DataFrame:
    # ``rules``: the key of the rules in force (analysis.rules), which the audit reads
    from analysis.workflow import audit

    sc = audit.load_guardrails([guardrails] if guardrails is not None else None)[0]
    keep = [g for g in sc.guardrails if audit.guardrail_target(sc, g).system in systems]
    sc = sc.model_copy(update={"guardrails": keep})
    table = audit.evaluate([sc], progress=False)
    out = table[[*COLUMNS, "se", "reason", "cure", "reproduce", "searched"]]
    out.attrs = dict(table.attrs)
    return out


def guardrail_scenario(settings: ReportSettings):
    """The scenario of the report's guardrail file (``settings.guardrails``; None: the
    shipped default set)."""
    from analysis.workflow import audit

    paths = [settings.guardrails] if settings.guardrails is not None else None
    return audit.load_guardrails(paths)[0]


def _discover_config() -> dict:
    from analysis.workflow import audit

    return {**audit.DEFAULT_DISCOVER, **audit.load_guardrails()[0].discover}


def interaction_frame(settings: ReportSettings) -> pd.DataFrame:
    """The ``interaction`` findings of :func:`analysis.workflow.audit.knob_interactions`
    for the report's systems (thresholds and sweeps of the ``[discover]`` table), with
    their ``severity`` and ``value`` (the largest move with the other knobs held)."""
    from analysis.workflow import audit

    cfg = _discover_config()
    ladder = audit.ladder_specs(settings.cross_combat)
    rows = []
    for system in settings.systems:
        if system in ladder:  # the sweep plays an even duel of the ladder's fighters
            rows += audit.knob_interactions(system, cfg, ladder=ladder[system])
    return pd.DataFrame(
        rows, columns=[*INTERACTION_COLUMNS.values(), "severity", "value", "reproduce"]
    )


def discovery_frame(settings: ReportSettings) -> pd.DataFrame:
    """The cheap findings of ``rpg-balance audit --discover`` for the report's systems
    with combat and ladder fighters: fights decided in one hit
    (:func:`~analysis.workflow.audit.one_hit_fights`) and the gap variants that move an
    even duel (:func:`~analysis.workflow.audit.gap_variants`), exact duels all, on the
    ladder fighters of the report's cross-combat file (``settings.cross_combat``). The
    dominance search (every option in every ladder matchup) is left to the command."""
    from analysis.workflow import audit
    from engines.system import registry

    cfg = _discover_config()
    ladder = audit.ladder_specs(settings.cross_combat)
    rows: list[dict] = []
    for system in settings.systems:
        if registry()[system].combat is None or system not in ladder:
            continue
        rows += audit.one_hit_fights(system, cfg, ladder=ladder[system])
        rows += audit.gap_variants(system, cfg, ladder=ladder[system])
    columns = [
        "kind",
        "system",
        "subject",
        "value",
        "se",
        "severity",
        "metric",
        "from_value",
        "to_value",
        "reproduce",
    ]
    return pd.DataFrame(rows, columns=columns)


#: Columns of the interaction table as shown (header → finding key).
INTERACTION_COLUMNS = {
    "system": "system",
    "knob": "knob",
    "depends on": "depends_on",
    "metric": "metric",
    "main effect": "main_range",
    "held at": "given",
    "from": "from_value",
    "to": "to_value",
    "from level": "from_level",
    "to level": "to_level",
}

#: Status values of the audit, shown translated (the CSV download keeps the machine words).
STATUSES = {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}


# --------------------------------------------------------------------------- sentences


def best_cure(suggestion) -> str:
    """The audit's best cure with its side effects (the first of
    :func:`analysis.workflow.audit.cures.cure_text`'s cures; the others are in the
    table), what it makes of the figure the sentence just named said as "it", or the
    audit's sentence when no cure was found, in the report's language."""
    from analysis.text import Text

    sentence = made(suggestion)
    if (
        sentence is None
        or not sentence.template.startswith("{item0}")
        or "item0" not in sentence.fields
    ):
        return text(suggestion)
    best = made(sentence.fields["item0"])  # the cure, then its side effects
    first = made(best.fields.get("item0")) if best is not None else None
    one = (
        first
        if first is not None and "metric" in first.fields
        else (
            made(first.fields.get("cure")) if first is not None and "cure" in first.fields else None
        )
    )
    if one is None or "metric" not in one.fields:
        return text(best if best is not None else suggestion)
    said = Text(one.template, **{**one.fields, "metric": Text(N_("it"))})
    assert best is not None  # it holds ``one``
    assert first is not None
    if one is not first:  # a cure at the edge of its range
        said = Text(first.template, **{**first.fields, "cure": said})
    return text(Text(best.template, **{**best.fields, "item0": said}))


def guardrail_entries(sc) -> dict:
    """``{guardrail name: its fight or check entry}`` of a guardrail scenario (None:
    nothing to name)."""
    from analysis.workflow import audit

    if sc is None:
        return {}
    return {g.name: audit.guardrail_target(sc, g).entry for g in sc.guardrails}


def audit_commands(r, file: str | None = None) -> str:
    """The small print of a failed guardrail: the command printing its value, the audit
    printing every guardrail's value and limits (the before of each side effect), and
    the audit with the best cure applied (what the cure makes of it and of the others)."""
    import shlex

    files = [shlex.quote(file)] if file is not None else []
    out = [
        " ".join(
            [
                "rpg-balance",
                "audit",
                *files,
                "--no-suggest",
                "--columns",
                "guardrail,value,min,max,status",
            ]
        )
    ]
    cure = getattr(r, "cure", "") or ""
    if cure:
        out.append(f"{cure} --no-suggest --columns guardrail,value,status")
    # the guardrail's own command first; one ending in a shell comment (a check's row)
    # last, so the comment hides no command
    own = getattr(r, "reproduce", "") or ""
    out = [*out, own] if "#" in own else [own, *out]
    return " ; ".join(c for c in out if c)


def key_findings_reading(
    table: pd.DataFrame, file: str | None = None, rules: str = "", scenario=None
) -> list[str]:
    """The pass / fail counts of the guardrails (``rpg-balance audit`` in small print),
    then each failure in words: the guardrail's name, what it measured with the fighters,
    their gear and the starting distance named (:func:`guardrail_statement`; ``scenario``:
    the guardrail file's scenario, None: the metric's words alone), its bounds, the
    designer's reason and the best cure with its side effects, with the commands printing
    its numbers (:func:`audit_commands`).

    Knobs, metrics and numbers are words (:mod:`analysis.glossary`); the guardrail's
    name and reason (``guardrails.toml``) are shown through the catalogue. ``rules``:
    the rules files in force in words (:func:`reports.rules_words.rules_line`; ""
    for the package's rules)."""
    n, fails = len(table), table[table["status"] == "fail"]
    undecided = int((table["status"] == "undecided").sum())
    counts = {
        "passed": decimal(n - len(fails) - undecided),
        "total": decimal(n),
        "failed": decimal(len(fails)),
        "undecided": decimal(undecided),
    }
    if file is None and rules:
        out: list[str] = [
            Reading(
                _(
                    "{passed} of {total} balance guardrails pass under the rules files' edits "
                    "({rules}); failed: {failed}, undecided: {undecided} (limits a designer can "
                    "edit in analysis/data/guardrails.toml; `rpg-balance audit --rules FILE` "
                    "checks "
                    "them)."
                ).format(rules=rules, **counts),
                "rpg-balance audit --columns guardrail,metric,value,min,max,status --rules FILE",
            )
        ]
    elif file is None:
        out = [
            Reading(
                _(
                    "{passed} of {total} balance guardrails pass under the default rules; failed: "
                    "{failed}, undecided: {undecided} (limits a designer can edit in "
                    "analysis/data/guardrails.toml; the audit checks them, and its discovery mode "
                    "looks for problems nobody wrote a guardrail for)."
                ).format(**counts),
                "rpg-balance audit --columns guardrail,metric,value,min,max,status",
            )
        ]
    else:
        import shlex

        out = [
            Reading(
                _(
                    "{passed} of {total} balance guardrails of {file} pass; failed: {failed}, "
                    "undecided: {undecided} (`rpg-balance audit {file}` checks them)."
                ).format(file=file, **counts),
                f"rpg-balance audit {shlex.quote(file)} --columns "
                "guardrail,metric,value,min,max,status",
            )
        ]
    compared = table.attrs.get("comparisons", {})
    apart = table.attrs.get("distances", {})
    entries = guardrail_entries(scenario)
    for r in each_row(fails):
        if r.guardrail in compared:  # a guardrail that compares: both fights named
            words = compared[r.guardrail]
            cure = str(r.suggestion).removeprefix(str(words) + "; ")
            out.append(
                Reading(
                    _("{guardrail}: {comparison} ({reason}). Cure: {suggestion}.").format(
                        guardrail=text(r.guardrail),
                        comparison=text(words),
                        reason=text(r.reason),
                        suggestion=cure_text(r.system, cure),
                    ),
                    getattr(r, "reproduce", "") or "",
                )
            )
            continue
        said = guardrail_statement(
            r.system,
            entries.get(r.guardrail),
            r.metric,
            r.value,
            getattr(r, "se", 0.0),
            apart.get(r.guardrail),
        )
        out.append(
            Reading(
                _("{guardrail}: {statement}, {bounds} ({reason}). Cure: {suggestion}.").format(
                    guardrail=text(r.guardrail),
                    statement=said,
                    bounds=bounds_words(r.min, r.max, r.metric),
                    reason=text(r.reason),
                    suggestion=best_cure(r.suggestion),
                ),
                audit_commands(r, file),
            )
        )
    if fails.empty:
        out.append(_("No guardrail fails."))
    return out


def _interaction_sentence(r, fighter: str = "") -> str:
    """One knob whose effect depends on another, in the fight it was swept in: the two
    values the command prints; the main effect is the table's (no number the command
    does not print, and never "only" before it)."""
    said = _(
        "the effect of {knob} depends on {other}: with {given}, changing it from "
        "{first_level} to {last_level} moves {metric} from {first} to {last}, far "
        "more than its effect averaged over the other knobs (the table below)."
    ).format(
        knob=text(knob_phrase(r.system, r.knob)),
        other=text(knob_phrase(r.system, r.depends_on)),
        given=given_words(r.system, r.given),
        first_level=text(value_phrase(r.system, r.knob, r.from_level)),
        last_level=text(value_phrase(r.system, r.knob, r.to_level)),
        metric=text(metric_phrase(r.metric)),
        first=figure_words(r.metric, r.from_value),
        last=figure_words(r.metric, r.to_value),
    )
    if fighter:
        return _("{system}: in a duel of {fighter} against an equal, {finding}").format(
            system=r.system, fighter=fighter, finding=said
        )
    return f"{r.system}: {said}"


def interaction_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The interaction table as shown: knobs, metrics, levels and figures in words (the
    glossary's), the headers of :data:`INTERACTION_COLUMNS` (the CSV keeps the machine
    values)."""

    def main(r):
        if is_probability(r.metric):
            return _("{points} points").format(points=decimal(round(100 * float(r.main_range), 1)))
        return decimal(round(float(r.main_range), 2))

    rows = [
        {
            "system": r.system,
            "knob": text(knob_phrase(r.system, r.knob)),
            "depends on": text(knob_phrase(r.system, r.depends_on)),
            "metric": text(metric_phrase(r.metric)),
            "main effect": main(r),
            "held at": given_words(r.system, r.given),
            "from": figure_words(r.metric, r.from_value),
            "to": figure_words(r.metric, r.to_value),
            "from level": text(value_phrase(r.system, r.knob, r.from_level)),
            "to level": text(value_phrase(r.system, r.knob, r.to_level)),
        }
        for r in each_row(frame)
    ]
    return pd.DataFrame(rows, columns=list(INTERACTION_COLUMNS))


def one_per_pair(frame: pd.DataFrame) -> pd.DataFrame:
    """The interaction findings with one row per pair of knobs of a system (A's effect
    depends on B and B's on A are one finding: the row whose knob moves the metric
    most is kept), in the frame's order."""
    if frame.empty:
        return frame
    pair = [(r.system, frozenset((r.knob, r.depends_on))) for r in each_row(frame)]
    size = pd.Series([abs(float(v)) for v in frame["value"]], index=frame.index)
    best: dict = {}
    for i, key in zip(frame.index, pair, strict=True):
        if key not in best or size[i] > size[best[key]]:
            best[key] = i
    keep = sorted(best.values(), key=list(frame.index).index)
    return frame.loc[keep]


def interaction_reading(frame: pd.DataFrame, cross=None) -> list[str]:
    """One sentence per pair of knobs whose effects depend on each other (:func:`one_per_pair`),
    naming the fighters of the duel swept, with the command printing its two numbers in
    small print (when the frame has it)."""
    out: list[str] = []
    for r in each_row(one_per_pair(frame)):
        base, _rung = _ladder_base(r.system, cross)
        fighter = fighter_words(r.system, base) if base else ""
        out.append(Reading(_interaction_sentence(r, fighter), getattr(r, "reproduce", "") or ""))
    return out


#: severity of a finding, most severe first
_SEVERITY = {"high": 0, "medium": 1, "low": 2}


def _ladder_base(system: str, cross=None) -> tuple[dict, str]:
    from analysis.workflow import audit

    rung = _discover_config()["attacker"]
    return dict(audit.ladder_specs(cross).get(system, {}).get(rung, {})), rung


def _candidates(system: str, disc: pd.DataFrame, cross=None) -> list[tuple]:
    """``(severity, kind order, -size, sentence, command)`` of each finding of a system
    that could open its page: an even duel decided in round 1, a weapon whose one attack
    drops an equal, a gap variant that moves the even duel. Failed guardrails and knobs
    whose effect depends on another have sentences of their own further down, so they
    never open a page (no finding said twice)."""
    out = []
    mine = disc[disc["system"] == system] if len(disc) else disc
    base, rung = _ladder_base(system, cross)
    fighter = fighter_words(system, base) if base else _("a {rung} fighter").format(rung=_(rung))
    hits = (
        mine[(mine["kind"] == "one_hit") & (mine["subject"] != "even duel")] if len(mine) else mine
    )
    for r in each_row(mine) if len(mine) else ():
        if r.kind == "one_hit" and r.subject == "even duel":
            from analysis.combat import archetypes

            weapon = archetypes.weapon_name(system, base)
            same = hits[hits["subject"] == weapon] if weapon else hits.iloc[:0]
            p = figure_words(r.metric, r.value)
            if len(same):
                h = next(each_row(same))
                said = _(
                    "{system}: a duel of {fighter} against an equal ends in round 1 "
                    "{p} of the time, because one {weapon} attack drops the unhurt "
                    "equal {q} of the time."
                ).format(
                    system=system,
                    fighter=fighter,
                    p=p,
                    weapon=text(value_phrase(system, "a.weapon", weapon)),
                    q=figure_words(h.metric, h.value),
                )
                cmd = f"{r.reproduce} ; {h.reproduce}"
            else:
                said = _(
                    "{system}: a duel of {fighter} against an equal ends in round 1 "
                    "{p} of the time."
                ).format(system=system, fighter=fighter, p=p)
                cmd = r.reproduce
            out.append((_SEVERITY.get(r.severity, 2), 0, -r.value, said, cmd))
        elif r.kind == "one_hit":
            said = _(
                "{system}: one {weapon} attack by {fighter} drops an unhurt equal {p} of the time."
            ).format(
                system=system,
                weapon=text(value_phrase(system, "a.weapon", r.subject)),
                fighter=fighter_words(system, {k: v for k, v in base.items() if k != "weapon"})
                if base
                else _("a {rung} fighter").format(rung=_(rung)),
                p=figure_words(r.metric, r.value),
            )
            out.append((_SEVERITY.get(r.severity, 2), 2, -r.value, said, r.reproduce))
        elif r.kind == "gap_variant":
            name, _eq, rest = str(r.subject).partition("=")
            value = rest.rsplit(" (", 1)[0]
            said = _(
                "{system}: in a duel of {fighter} against an equal, {setting} moves "
                "{metric} from {first} to {last}."
            ).format(
                system=system,
                fighter=fighter,
                setting=setting_words(system, f"variant.{name}", value),
                metric=side_metric_words(r.metric),
                first=figure_words(r.metric, r.from_value),
                last=figure_words(r.metric, r.to_value),
            )
            out.append((_SEVERITY.get(r.severity, 2), 3, -round(r.value, 9), said, r.reproduce))
    return out


def sharpest(
    system: str, table: pd.DataFrame, inter: pd.DataFrame, disc: pd.DataFrame, cross=None
) -> Reading | None:
    """The one finding that opens a system's page, as a sentence with its number and the
    command printing it: the most severe finding (high, then medium, then low), and among
    equally severe ones an even duel decided in round 1, then a weapon whose one attack
    drops an equal, then a gap variant, the larger first. None when the system has no
    such finding: its failed guardrails and its knobs whose effect depends on another
    are said further down, once (``table`` and ``inter`` are not read; kept for the
    callers). ``cross``: the cross-combat file of ``disc``'s ladder fighters (None: the
    packaged one)."""
    found = _candidates(system, disc, cross)
    if not found:
        return None
    best = min(found, key=lambda c: c[:3])
    return Reading(best[3], best[4] or "")


def fought_settings(settings: ReportSettings) -> ReportSettings | None:
    """The settings narrowed to the systems the combat sections show (combat rules and
    fights in the cross-combat file; None: no such system), as those sections narrow
    them (:func:`reports.sections.common.for_systems_with`)."""
    import dataclasses

    from analysis.combat import cross_combat
    from engines.system import registry

    mapped = set(cross_combat.load_cross(settings.cross_combat)["systems"])
    fought = tuple(s for s in settings.systems if registry()[s].combat is not None and s in mapped)
    return dataclasses.replace(settings, systems=fought) if fought else None


def combat_options(settings: ReportSettings, *, per_system: str | None = None) -> list[str]:
    """The options that put a combat command under the report's settings (cross-combat
    file, aftermath, round cap, combat variants)."""
    out: list[str] = []
    from engines.constants import ROUND_CAP

    if settings.aftermath != "leave":
        out += ["--aftermath", settings.aftermath]
    if settings.round_cap != ROUND_CAP:
        out += ["--round-cap", str(settings.round_cap)]
    systems = settings.systems if per_system is None else (per_system,)
    for s in systems:
        for v in settings.combat_variants_of(s):
            out += ["--variant", v if per_system is not None else f"{s}:{v}"]
    return out


def check_variant_args(settings: ReportSettings) -> list[str]:
    """The ``--variant SYSTEM:NAME=VALUE`` options that put a ladder command under the
    report's check variants."""
    from reports.sections.common import variant_map

    out: list[str] = []
    for s, vs in variant_map(settings).items():
        for v in vs:
            out += ["--variant", f"{s}:{v}"]
    return out


# --------------------------------------------------------------------------- surfaced

#: A tactic that wins less than this share of an even duel against an equal fighting
#: plainly is a trap in the rules (a choice a player makes in good faith and loses by).
TRAP = 0.10


def trap_readings(settings: ReportSettings) -> list[Reading]:
    """Each tactic of a system's even duel (the cross-combat file's ``melee_equal``, the
    tactics table of "Combat: tactics and armour") that wins under :data:`TRAP` of the
    duels against an equal, with the ``rpg-balance duel`` command printing its chance."""
    from analysis.combat import cross_combat
    from analysis.workflow.audit.reproduce import duel
    from reports.sections.combat_common import EVEN_DUEL, combat_frames

    fought = fought_settings(settings)
    if fought is None:
        return []
    effects = combat_frames(fought)["effects"]
    specs = cross_combat.load_cross(settings.cross_combat)["specs"][EVEN_DUEL]
    out = []
    for r in each_row(effects[(effects["change"] == "tactic") & (effects["p_side0"] < TRAP)]):
        a, b = specs[r.system]
        cmd = duel(r.system, {**a, "tactic": r.choice}, b, columns=("p_side0",))
        options = combat_options(settings, per_system=r.system)
        out.append(
            Reading(
                _(
                    "{system}: a trap in the rules — in a duel of {fighter} against an equal, the "
                    "one who picks the “{tactic}” tactic wins {p} of the time (the tactics table "
                    "of “Combat: tactics and armour”)."
                ).format(
                    system=r.system,
                    fighter=fighter_words(r.system, a),
                    tactic=text(value_phrase(r.system, "a.tactic", r.choice)),
                    p=figure_words("p_side0", r.p_side0),
                ),
                " ".join([cmd, *options]),
            )
        )
    return out


def defender_readings(settings: ReportSettings) -> list[Reading]:
    """Per system, the weaker rung that wins more than half of the opposed rolls it
    defends against a stronger one (the ladder's upsets, ``rpg-balance ladder --table
    upsets``; the largest such share), with its share when it starts the roll."""
    from analysis.checks.ladders import upset_table
    from reports.sections.common import variant_map

    ups = upset_table(variants=variant_map(settings))
    ups = ups[ups["system"].isin(settings.systems) & (ups["p_upset_defending"] > 0.5)]
    cmd = " ".join(
        [
            "rpg-balance",
            "ladder",
            "--table",
            "upsets",
            *check_variant_args(settings),
            "--columns",
            "system,weaker,stronger,p_upset_attacking,p_upset_defending",
        ]
    )
    out = []
    for system in settings.systems:
        mine = ups[ups["system"] == system]
        if mine.empty:
            continue
        label: Any = mine["p_upset_defending"].idxmax()  # a row label
        r = mine.loc[label]
        out.append(
            Reading(
                _(
                    "{system}: the weaker side wins most opposed rolls it defends — a character "
                    "of rung {weaker} defending against one of rung {stronger} wins {p} of them "
                    "(starting the roll, {q})."
                ).format(
                    system=system,
                    weaker=_(r["weaker"]),
                    stronger=_(r["stronger"]),
                    p=figure_words("p_", r["p_upset_defending"]),
                    q=figure_words("p_", r["p_upset_attacking"]),
                ),
                cmd,
            )
        )
    return out


# --------------------------------------------------------------------------- section


def section_key_findings(settings: ReportSettings) -> Section:
    """Each system's sharpest finding, the guardrail verdicts with their one-knob cures,
    and the knobs whose effect depends on another — all in words."""
    table = findings_frame(settings)
    inter = interaction_frame(settings)
    disc = discovery_frame(settings)
    reading: list[str] = []
    for system in settings.systems:
        first = sharpest(system, table, inter, disc, settings.cross_combat)
        if first is not None:
            reading.append(first)
    reading += trap_readings(settings)
    reading += defender_readings(settings)
    reading += key_findings_reading(
        table,
        str(settings.guardrails) if settings.guardrails is not None else None,
        rules_line(settings.rules),
        guardrail_scenario(settings),
    )
    shown = table[COLUMNS].copy()
    shown["status"] = [_(STATUSES[x]) if x in STATUSES else x for x in shown["status"]]
    shown["suggestion"] = [text(x) for x in shown["suggestion"]]
    shown["guardrail"] = [text(x) for x in shown["guardrail"]]
    # the value as a designer reads it ("1.1 rounds", "fewer than 1 in a billion"); the
    # CSV keeps the number
    shown["value"] = [
        figure_words(m, v, se)
        for m, v, se in zip(table["metric"], table["value"], table["se"], strict=True)
    ]
    for col in ("min", "max"):
        shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
    blocks = [
        table_block(
            "guardrails",
            _("Balance guardrails"),
            shown,
            _(
                "Each guardrail's metric, exact for duels, one-attack odds and "
                "checks; status pass / fail / undecided; for a failure up to "
                "three one-knob cures that keep the question (the task and the "
                "fighters' gear held), each with its side effects, and the "
                "`rpg-balance audit --set` command applying the best in the CSV."
            ),
            full=table,
            default_format=".3g",
        )
    ]
    if len(inter):
        reading += interaction_reading(inter, settings.cross_combat)
        blocks.append(
            table_block(
                "knob-interactions",
                _("Knobs whose effect depends on another"),
                interaction_view(inter),
                _(
                    "A small exact sweep of an even duel per system: each "
                    "knob whose range with the other knobs held fixed is "
                    "much larger than its main effect (the average over "
                    "the other knobs), where that happens, and the knob "
                    "it depends on most."
                ),
                full=inter[list(INTERACTION_COLUMNS.values())],
                default_format=".3f",
            )
        )
    return Section("key-findings", _("Key findings"), reading, blocks)
