"""Section: key findings — the shipped balance guardrails (``analysis/data/guardrails.toml``,
``rpg-balance audit``) checked on the report's systems, each failure with the smallest
one-knob change that cures it."""

from __future__ import annotations

import pandas as pd

from reports.i18n import N_, _, decimal, format_spec, text
from reports.sections.common import _table
from reports.settings import ReportSettings
from reports.structure import Section

COLUMNS = ["guardrail", "system", "metric", "value", "min", "max", "status", "suggestion"]


def findings_frame(settings: ReportSettings) -> pd.DataFrame:
    """The audit table of the default guardrails whose system is in the report."""
    from analysis.workflow import audit

    sc = audit.load_guardrails()[0]
    keep = [g for g in sc.guardrails if audit._target(sc, g).system in settings.systems]
    sc = sc.model_copy(update={"guardrails": keep})
    table = audit.evaluate([sc], progress=False)
    return table[[*COLUMNS, "reason"]]


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
    """Plain sentences from the audit numbers: how many pass, then each failure.

    Guardrail, metric and knob names are identifiers and stay as they are; the designer's
    reason (``guardrails.toml``) and the suggested cure (a sentence built by
    :mod:`analysis.workflow.audit`) are shown in the language in force."""
    n, fails = len(table), table[table["status"] == "fail"]
    undecided = int((table["status"] == "undecided").sum())
    out = [_("{passed} of {total} balance guardrails pass under the default rules (limits "
             "a designer can edit in analysis/data/guardrails.toml; `rpg-balance audit` "
             "checks them, `--discover` looks for problems nobody wrote a guardrail "
             "for).").format(passed=decimal(n - len(fails) - undecided), total=decimal(n))]
    for r in fails.itertuples(index=False):
        out.append(_("{guardrail}: {metric} is {value}, {bounds} ({reason}). Cure: "
                     "{suggestion}.").format(
            guardrail=r.guardrail, metric=r.metric, value=format_spec(r.value, ".3g"),
            bounds=_bounds(r.min, r.max), reason=text(r.reason),
            suggestion=text(r.suggestion)))
    if fails.empty:
        out.append(_("No guardrail fails."))
    return out


def section_key_findings(settings: ReportSettings) -> Section:
    """Guardrail verdicts opening the report, each failure with its one-knob cure."""
    table = findings_frame(settings)
    shown = table[COLUMNS].copy()
    shown["status"] = [_(STATUSES[x]) if x in STATUSES else x for x in shown["status"]]
    shown["suggestion"] = [text(x) for x in shown["suggestion"]]
    for col in ("min", "max"):
        shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
    return Section("key-findings", _("Key findings"), key_findings_reading(table),
                   [_table("guardrails", _("Balance guardrails"), shown,
                           _("Each guardrail's metric, exact for duels, one-attack odds and "
                             "checks; status pass / fail / undecided; for a failure the "
                             "smallest change of one knob that makes it pass."),
                           full=table, default_format=".3g")])
