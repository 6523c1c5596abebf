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

import math
from functools import lru_cache

import pandas as pd

from analysis.glossary import figure_phrase, knob_phrase, metric_phrase, value_phrase
from reports.i18n import N_, _, decimal, text
from reports.rules_words import rules_line
from reports.sections.common import table_block
from reports.settings import ReportSettings
from reports.structure import Reading, Section

__all__ = ["COLUMNS", "INTERACTION_COLUMNS", "STATUSES", "bounds_words", "cure_text",
           "discovery_frame", "findings_frame", "guardrail_scenario", "interaction_frame",
           "interaction_reading", "key_findings_reading", "section_key_findings", "sharpest"]

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
def _findings_cached(systems: tuple[str, ...], guardrails: str | None,
                     rules: tuple) -> pd.DataFrame:
    # ``rules``: the key of the rules in force (analysis.rules), which the audit reads
    from analysis.workflow import audit

    sc = audit.load_guardrails([guardrails] if guardrails is not None else None)[0]
    keep = [g for g in sc.guardrails if audit.guardrail_target(sc, g).system in systems]
    sc = sc.model_copy(update={"guardrails": keep})
    table = audit.evaluate([sc], progress=False)
    return table[[*COLUMNS, "se", "reason", "cure", "reproduce"]]


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
        if system in ladder:   # the sweep plays an even duel of the ladder's fighters
            rows += audit.knob_interactions(system, cfg, ladder=ladder[system])
    return pd.DataFrame(rows, columns=[*INTERACTION_COLUMNS.values(), "severity", "value",
                                       "reproduce"])


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
    columns = ["kind", "system", "subject", "value", "se", "severity", "metric",
               "from_value", "to_value", "reproduce"]
    return pd.DataFrame(rows, columns=columns)


#: Columns of the interaction table as shown (header → finding key).
INTERACTION_COLUMNS = {"system": "system", "knob": "knob", "depends on": "depends_on",
                       "metric": "metric", "main effect": "main_range",
                       "held at": "given", "from": "from_value", "to": "to_value",
                       "from level": "from_level", "to level": "to_level"}

#: Status values of the audit, shown translated (the CSV download keeps the machine words).
STATUSES = {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}


# --------------------------------------------------------------------------- words

def _t(value) -> str:
    """An :class:`analysis.text.Text` (or a catalogue string) in the language in force."""
    return text(value)


def _figure(metric: str, value, se: float = 0.0) -> str:
    return text(figure_phrase(metric, value, se))


def _is_probability(metric: str) -> bool:
    return str(metric).startswith("p_")


def _setting(system: str, knob: str, value) -> str:
    """A knob at a value: "the 10-again rule (A1) set to 9-again", a rule turned on or
    off as "the criticals rule (C-g2) off"."""
    phrase, shown = _t(knob_phrase(system, knob)), _t(value_phrase(system, knob, value))
    if str(value).strip().lower() in ("true", "false"):
        return _("{knob} {value}").format(knob=phrase, value=shown)
    return _("{knob} set to {value}").format(knob=phrase, value=shown)


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the language in force."""
    if len(items) <= 1:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


def _given(system: str, given: str) -> str:
    """The held knobs of an interaction (``variant.again=9, both.armour=none``) in words."""
    parts = []
    for part in str(given).split(", "):
        knob, eq, value = part.partition("=")
        parts.append(_setting(system, knob, value) if eq else part)
    return _and(parts)


def _duel(system: str, spec: dict, rung: str) -> str:
    """An even duel of a ladder fighter: "an even competent duel (knife)"."""
    from analysis.combat import archetypes

    weapon = archetypes.weapon_name(system, spec)
    gear = _t(value_phrase(system, "a.weapon", weapon)) if weapon else ""
    if not gear:
        return _("an even {rung} duel").format(rung=_(rung))
    return _("an even {rung} duel ({weapon})").format(rung=_(rung), weapon=gear)


def bounds_words(lo, hi, metric: str = "") -> str:
    """The guardrail's bounds: probabilities as the glossary shows them ("50% to 80%"),
    other numbers as written."""
    def shown(x):
        x = float(x)
        if _is_probability(metric):
            return _figure(metric, x)
        return decimal(int(x) if x.is_integer() else x)

    have_lo, have_hi = pd.notna(lo), pd.notna(hi)
    if have_lo and have_hi:
        return _("outside {low} to {high}").format(low=shown(lo), high=shown(hi))
    if have_lo:
        return _("under the minimum {low}").format(low=shown(lo))
    return _("over the maximum {high}").format(high=shown(hi))


def cure_text(system: str, suggestion) -> str:
    """The audit's cure (already in the system's words, :mod:`analysis.workflow.audit.
    cures`), in the report's language."""
    return text(suggestion)


# --------------------------------------------------------------------------- sentences

def key_findings_reading(table: pd.DataFrame, file: str | None = None,
                         rules: str = "") -> list[str]:
    """The pass / fail counts of the guardrails (``rpg-balance audit`` in small print),
    then each failure in words: the guardrail's name, what it measures, its value, its
    bounds, the designer's reason and the cure, with the command printing its value.

    Knobs, metrics and numbers are words (:mod:`analysis.glossary`); the guardrail's
    name and reason (``guardrails.toml``) are shown through the catalogue. ``rules``:
    the rules files in force in words (:func:`reports.rules_words.rules_line`; ""
    for the package's rules)."""
    n, fails = len(table), table[table["status"] == "fail"]
    undecided = int((table["status"] == "undecided").sum())
    counts = {"passed": decimal(n - len(fails) - undecided), "total": decimal(n),
              "failed": decimal(len(fails)), "undecided": decimal(undecided)}
    if file is None and rules:
        out = [Reading(_(
            "{passed} of {total} balance guardrails pass under the rules files' edits "
            "({rules}); failed: {failed}, undecided: {undecided} (limits a designer can "
            "edit in analysis/data/guardrails.toml; `rpg-balance audit --rules FILE` checks "
            "them).").format(rules=rules, **counts),
            "rpg-balance audit --columns guardrail,metric,value,min,max,status --rules FILE")]
    elif file is None:
        out = [Reading(_(
            "{passed} of {total} balance guardrails pass under the default rules; failed: "
            "{failed}, undecided: {undecided} (limits a designer can edit in "
            "analysis/data/guardrails.toml; `rpg-balance audit` checks them, `--discover` "
            "looks for problems nobody wrote a guardrail for).").format(**counts),
            "rpg-balance audit --columns guardrail,metric,value,min,max,status")]
    else:
        import shlex

        out = [Reading(_(
            "{passed} of {total} balance guardrails of {file} pass; failed: {failed}, "
            "undecided: {undecided} (`rpg-balance audit {file}` checks them).").format(
                file=file, **counts),
            f"rpg-balance audit {shlex.quote(file)} --columns "
            "guardrail,metric,value,min,max,status")]
    compared = table.attrs.get("comparisons", {})
    for r in fails.itertuples(index=False):
        if r.guardrail in compared:   # a guardrail that compares: both fights named
            words = compared[r.guardrail]
            cure = str(r.suggestion).removeprefix(str(words) + "; ")
            out.append(Reading(_("{guardrail}: {comparison} ({reason}). Cure: "
                                 "{suggestion}.").format(
                guardrail=text(r.guardrail), comparison=text(words), reason=text(r.reason),
                suggestion=cure_text(r.system, cure)), getattr(r, "reproduce", "") or ""))
            continue
        out.append(Reading(_("{guardrail}: {metric} is {value}, {bounds} ({reason}). Cure: "
                             "{suggestion}.").format(
            guardrail=text(r.guardrail), metric=_t(metric_phrase(r.metric)),
            value=_figure(r.metric, r.value), bounds=bounds_words(r.min, r.max, r.metric),
            reason=text(r.reason), suggestion=cure_text(r.system, r.suggestion)),
            getattr(r, "reproduce", "") or ""))
    if fails.empty:
        out.append(_("No guardrail fails."))
    return out


def _interaction_sentence(r) -> str:
    main = (_("{points} points").format(points=decimal(round(100 * float(r.main_range), 1)))
            if _is_probability(r.metric) else decimal(round(float(r.main_range), 2)))
    return _("{system}: the effect of {knob} depends on {other}. With {given}, changing it "
             "from {first_level} to {last_level} moves {metric} from {first} to {last}; "
             "averaged over the other knobs it moves it by only {main}.").format(
        system=r.system, knob=_t(knob_phrase(r.system, r.knob)),
        other=_t(knob_phrase(r.system, r.depends_on)), given=_given(r.system, r.given),
        first_level=_t(value_phrase(r.system, r.knob, r.from_level)),
        last_level=_t(value_phrase(r.system, r.knob, r.to_level)),
        metric=_t(metric_phrase(r.metric)), first=_figure(r.metric, r.from_value),
        last=_figure(r.metric, r.to_value), main=main)


def interaction_reading(frame: pd.DataFrame) -> list[str]:
    """One sentence per knob whose effect depends on another, in words (with the command
    that prints its numbers in small print, when the frame has it)."""
    return [Reading(_interaction_sentence(r), getattr(r, "reproduce", "") or "")
            for r in frame.itertuples(index=False)]


#: severity of a finding, most severe first
_SEVERITY = {"high": 0, "medium": 1, "low": 2}


def _ladder_base(system: str, cross=None) -> tuple[dict, str]:
    from analysis.workflow import audit

    rung = _discover_config()["attacker"]
    return dict(audit.ladder_specs(cross).get(system, {}).get(rung, {})), rung


def _candidates(system: str, table: pd.DataFrame, inter: pd.DataFrame,
                disc: pd.DataFrame, cross=None) -> list[tuple]:
    """``(severity, kind order, -size, sentence, command)`` of each finding of a system
    that could open its page: an even duel decided in round 1, a failed guardrail, a
    weapon whose one attack drops an equal, a gap variant that moves the even duel, a
    knob whose effect depends on another."""
    out = []
    mine = disc[disc["system"] == system] if len(disc) else disc
    base, rung = _ladder_base(system, cross)
    hits = mine[(mine["kind"] == "one_hit") & (mine["subject"] != "even duel")] \
        if len(mine) else mine
    for r in mine.itertuples(index=False) if len(mine) else ():
        if r.kind == "one_hit" and r.subject == "even duel":
            from analysis.combat import archetypes

            weapon = archetypes.weapon_name(system, base)
            duel = _duel(system, base, rung)
            same = hits[hits["subject"] == weapon] if weapon else hits.iloc[:0]
            p = _figure(r.metric, r.value)
            if len(same):
                h = next(same.itertuples(index=False))
                said = _("{system}: {duel} ends in round 1 with a chance of {p}, because "
                         "one {weapon} attack drops an unhurt equal with a chance of "
                         "{q}.").format(system=system, duel=duel, p=p,
                                        weapon=_t(value_phrase(system, "a.weapon", weapon)),
                                        q=_figure(h.metric, h.value))
                cmd = f"{r.reproduce} ; {h.reproduce}"
            else:
                said = _("{system}: {duel} ends in round 1 with a chance of {p}.").format(
                    system=system, duel=duel, p=p)
                cmd = r.reproduce
            out.append((_SEVERITY.get(r.severity, 2), 0, -r.value, said, cmd))
        elif r.kind == "one_hit":
            said = _("{system}: one {weapon} attack by a {rung} fighter drops an unhurt "
                     "equal with a chance of {p}.").format(
                system=system, weapon=_t(value_phrase(system, "a.weapon", r.subject)),
                rung=_(rung), p=_figure(r.metric, r.value))
            out.append((_SEVERITY.get(r.severity, 2), 2, -r.value, said, r.reproduce))
        elif r.kind == "gap_variant":
            name, _eq, rest = str(r.subject).partition("=")
            value = rest.rsplit(" (", 1)[0]
            said = _("{system}: {setting} moves {metric} from {first} to {last} in "
                     "{duel}.").format(
                system=system, setting=_setting(system, f"variant.{name}", value),
                metric=_t(metric_phrase(r.metric)), first=_figure(r.metric, r.from_value),
                last=_figure(r.metric, r.to_value), duel=_duel(system, base, rung))
            out.append((_SEVERITY.get(r.severity, 2), 3, -round(r.value, 9), said, r.reproduce))
    for r in table[(table["system"] == system)
                   & (table["status"] == "fail")].itertuples(index=False):
        words = table.attrs.get("comparisons", {}).get(r.guardrail)
        if words:   # a guardrail that compares: both fights named
            said = _("{system}: in “{guardrail}”, {comparison}.").format(
                system=system, guardrail=text(r.guardrail), comparison=text(words))
        else:
            said = _("{system}: in “{guardrail}”, {metric} is {value}, {bounds}.").format(
                system=system, guardrail=text(r.guardrail),
                metric=_t(metric_phrase(r.metric)), value=_figure(r.metric, r.value),
                bounds=bounds_words(r.min, r.max, r.metric))
        out.append((0, 1, 0.0, said, r.reproduce))
    for r in inter[inter["system"] == system].itertuples(index=False) if len(inter) else ():
        out.append((_SEVERITY.get(r.severity, 2), 4, -float(r.value),
                    _interaction_sentence(r), r.reproduce))
    return out


def sharpest(system: str, table: pd.DataFrame, inter: pd.DataFrame,
             disc: pd.DataFrame, cross=None) -> Reading | None:
    """The one finding that opens a system's page, as a sentence with its number and the
    command printing it: the most severe finding (high, then medium, then low), and among
    equally severe ones an even duel decided in round 1, then a failed guardrail, a
    weapon whose one attack drops an equal, a gap variant, a knob whose effect depends
    on another, the larger first. With no finding: the system's first guardrail, passed
    (None when it has none). ``cross``: the cross-combat file of ``disc``'s ladder
    fighters (None: the packaged one)."""
    found = _candidates(system, table, inter, disc, cross)
    if found:
        best = min(found, key=lambda c: c[:3])
        return Reading(best[3], best[4] or "")
    rows = table[table["system"] == system]
    if rows.empty:
        return None
    r = next(rows.itertuples(index=False))
    value = r.value if r.value is not None and math.isfinite(r.value) else float("nan")
    said = _("{system}: in “{guardrail}”, {metric} is {value} ({status}).").format(
        system=system, guardrail=text(r.guardrail), metric=_t(metric_phrase(r.metric)),
        value=_figure(r.metric, value), status=_(STATUSES.get(r.status, r.status)))
    return Reading(said, r.reproduce or "")


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
    reading += key_findings_reading(
        table, str(settings.guardrails) if settings.guardrails is not None else None,
        rules_line(settings.rules))
    shown = table[COLUMNS].copy()
    shown["status"] = [_(STATUSES[x]) if x in STATUSES else x for x in shown["status"]]
    shown["suggestion"] = [text(x) for x in shown["suggestion"]]
    shown["guardrail"] = [text(x) for x in shown["guardrail"]]
    # the value as a designer reads it ("1.1 rounds", "fewer than 1 in a billion"); the
    # CSV keeps the number
    shown["value"] = [_figure(m, v, se) for m, v, se in
                      zip(table["metric"], table["value"], table["se"], strict=True)]
    for col in ("min", "max"):
        shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
    blocks = [table_block("guardrails", _("Balance guardrails"), shown,
                          _("Each guardrail's metric, exact for duels, one-attack odds and "
                       "checks; status pass / fail / undecided; for a failure up to "
                       "three one-knob cures that keep the question (the task and the "
                       "fighters' gear held), each with its side effects, and the "
                       "`rpg-balance audit --set` command applying the best in the CSV."),
                          full=table, default_format=".3g")]
    if len(inter):
        reading += interaction_reading(inter)
        view = inter[list(INTERACTION_COLUMNS.values())].rename(
            columns={v: k for k, v in INTERACTION_COLUMNS.items()})
        blocks.append(table_block("knob-interactions", _("Knobs whose effect depends on another"),
                                  view, _("A small exact sweep of an even duel per system: each "
                                     "knob whose range with the other knobs held fixed is "
                                     "much larger than its main effect (the average over "
                                     "the other knobs), where that happens, and the knob "
                                     "it depends on most."),
                                  default_format=".3f"))
    return Section("key-findings", _("Key findings"), reading, blocks)
