"""Section: key findings — the shipped balance guardrails (``analysis/data/guardrails.toml``,
``rpg-balance audit``) checked on the report's systems, each failure with the smallest
one-knob change that cures it."""

from __future__ import annotations

import pandas as pd

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


def key_findings_reading(table: pd.DataFrame) -> list[str]:
    """Plain sentences from the audit numbers: how many pass, then each failure."""
    n, fails = len(table), table[table["status"] == "fail"]
    undecided = int((table["status"] == "undecided").sum())
    out = [f"{n - len(fails) - undecided} of {n} balance guardrails pass under the default "
           "rules (limits a designer can edit in analysis/data/guardrails.toml; "
           "`rpg-balance audit` checks them, `--discover` looks for problems nobody wrote "
           "a guardrail for)."]
    for r in fails.itertuples(index=False):
        bounds = " to ".join(f"{x:g}" for x in (r.min, r.max) if pd.notna(x))
        out.append(f"{r.guardrail}: {r.metric} is {r.value:.3g}, outside {bounds} "
                   f"({r.reason}). Cure: {r.suggestion}.")
    if fails.empty:
        out.append("No guardrail fails.")
    return out


def section_key_findings(settings: ReportSettings) -> Section:
    """Guardrail verdicts opening the report, each failure with its one-knob cure."""
    table = findings_frame(settings)
    shown = table[COLUMNS].copy()
    for col in ("min", "max"):
        shown[col] = shown[col].astype(object).where(shown[col].notna(), "")
    return Section("key-findings", "Key findings", key_findings_reading(table),
                   [_table("guardrails", "Balance guardrails", shown,
                           "Each guardrail's metric, exact for duels, one-attack odds and "
                           "checks; status pass / fail / undecided; for a failure the "
                           "smallest change of one knob that makes it pass.",
                           default_format=".3g")])
