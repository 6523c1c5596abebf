"""Section: key findings — the shipped balance guardrails (``analysis/data/guardrails.toml``,
``rpg-balance audit``) checked on the report's systems, each failure with the smallest
one-knob change that cures it, then the knobs whose effect depends on another knob
(``rpg-balance audit --discover``: a small exact sweep of an even duel per system)."""

from __future__ import annotations

import pandas as pd

from reports.i18n import N_, _, decimal, format_spec, text
from reports.sections.common import _table
from reports.settings import ReportSettings
from reports.structure import Reading, Section

COLUMNS = ["guardrail", "system", "metric", "value", "min", "max", "status", "suggestion"]


def findings_frame(settings: ReportSettings) -> pd.DataFrame:
    """The audit table of the default guardrails whose system is in the report."""
    from analysis.workflow import audit

    sc = audit.load_guardrails()[0]
    keep = [g for g in sc.guardrails if audit._target(sc, g).system in settings.systems]
    sc = sc.model_copy(update={"guardrails": keep})
    table = audit.evaluate([sc], progress=False)
    return table[[*COLUMNS, "reason", "reproduce"]]


def interaction_frame(settings: ReportSettings) -> pd.DataFrame:
    """The ``interaction`` findings of :func:`analysis.workflow.audit.knob_interactions`
    for the report's systems (thresholds and sweeps of the ``[discover]`` table)."""
    from analysis.workflow import audit

    cfg = {**audit.DEFAULT_DISCOVER, **audit.load_guardrails()[0].discover}
    rows = []
    for system in settings.systems:
        rows += audit.knob_interactions(system, cfg)
    return pd.DataFrame(rows, columns=[*INTERACTION_COLUMNS.values(), "reproduce"])


#: Columns of the interaction table as shown (header → finding key).
INTERACTION_COLUMNS = {"system": "system", "knob": "knob", "depends on": "depends_on",
                       "metric": "metric", "main effect": "main_range",
                       "held at": "given", "from": "from_value", "to": "to_value",
                       "from level": "from_level", "to level": "to_level"}


def interaction_reading(frame: pd.DataFrame) -> list[str]:
    """One sentence per knob whose effect depends on another knob (with the command that
    prints its numbers in small print, when the frame has it)."""
    out = []
    for r in frame.itertuples(index=False):
        out.append(Reading(_("{system}: the main effect of {knob} (range {main}) understates it, "
                     "because its effect depends on {other}: at {given} it moves {metric} from "
                     "{first} ({knob} = {first_level}) to {last} ({knob} = "
                     "{last_level}).").format(
            system=r.system, knob=r.knob, main=format_spec(r.main_range, ".3f"),
            other=r.depends_on, given=r.given, metric=r.metric,
            first=format_spec(r.from_value, ".3f"), first_level=r.from_level,
            last=format_spec(r.to_value, ".3f"), last_level=r.to_level),
            getattr(r, "reproduce", "") or ""))
    return out


#: Status values of the audit, shown translated (the CSV download keeps the machine words).
STATUSES = {"pass": N_("pass"), "fail": N_("fail"), "undecided": N_("undecided")}


def _bounds(lo, hi) -> str:
    have_lo, have_hi = pd.notna(lo), pd.notna(hi)
    if have_lo and have_hi:
        return _("outside {low} to {high}").format(low=format_spec(lo, "g"),
                                                   high=format_spec(hi, "g"))
    if have_lo:
        return _("under the minimum {low}").format(low=format_spec(lo, "g"))
    return _("over the maximum {high}").format(high=format_spec(hi, "g"))


def key_findings_reading(table: pd.DataFrame) -> list[str]:
    """Plain sentences from the audit numbers: how many pass, then each failure (with the
    ``rpg-balance`` command printing its value, shown in small print under it).

    Metric and knob names are identifiers and stay as they are; the guardrail's name and
    the designer's reason (``guardrails.toml``, through the catalogue) and the suggested
    cure (a sentence built by :mod:`analysis.workflow.audit`) are shown in the language in
    force."""
    n, fails = len(table), table[table["status"] == "fail"]
    undecided = int((table["status"] == "undecided").sum())
    out = [_("{passed} of {total} balance guardrails pass under the default rules (limits "
             "a designer can edit in analysis/data/guardrails.toml; `rpg-balance audit` "
             "checks them, `--discover` looks for problems nobody wrote a guardrail "
             "for).").format(passed=decimal(n - len(fails) - undecided), total=decimal(n))]
    for r in fails.itertuples(index=False):
        out.append(Reading(_("{guardrail}: {metric} is {value}, {bounds} ({reason}). Cure: "
                     "{suggestion}.").format(
            guardrail=text(r.guardrail), metric=r.metric, value=format_spec(r.value, ".3g"),
            bounds=_bounds(r.min, r.max), reason=text(r.reason),
            suggestion=text(r.suggestion)), getattr(r, "reproduce", "") or ""))
    if fails.empty:
        out.append(_("No guardrail fails."))
    return out


def section_key_findings(settings: ReportSettings) -> Section:
    """Guardrail verdicts opening the report, each failure with its one-knob cure."""
    table = findings_frame(settings)
    shown = table[COLUMNS].copy()
    shown["status"] = [_(STATUSES[x]) if x in STATUSES else x for x in shown["status"]]
    shown["suggestion"] = [text(x) for x in shown["suggestion"]]
    shown["guardrail"] = [text(x) for x in shown["guardrail"]]
    for col in ("min", "max"):
        shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
    blocks = [_table("guardrails", _("Balance guardrails"), shown,
                     _("Each guardrail's metric, exact for duels, one-attack odds and "
                       "checks; status pass / fail / undecided; for a failure the "
                       "smallest change of one knob that makes it pass."),
                     full=table, default_format=".3g")]
    reading = key_findings_reading(table)
    inter = interaction_frame(settings)
    if len(inter):
        reading += interaction_reading(inter)
        view = inter[list(INTERACTION_COLUMNS.values())].rename(
            columns={v: k for k, v in INTERACTION_COLUMNS.items()})
        blocks.append(_table("knob-interactions", _("Knobs whose effect depends on another"),
                             view, _("A small exact sweep of an even duel per system: each "
                                     "knob whose range with the other knobs held fixed is "
                                     "much larger than its main effect (the average over "
                                     "the other knobs), where that happens, and the knob "
                                     "it depends on most."),
                             default_format=".3f"))
    return Section("key-findings", _("Key findings"), reading, blocks)
