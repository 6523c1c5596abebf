"""The audit tab: the guardrails of the shipped file, of ``rpg-balance serve
--guardrails`` or of an uploaded file, evaluated by :func:`analysis.workflow.audit.evaluate`
under the engine lock, with the command that prints the same table."""

from __future__ import annotations

import shlex

import pandas as pd

from engines.errors import InputError

from ...i18n import _
from .state import ENGINE_LOCK, MAX_UPLOAD

__all__ = ["AUDIT_COLUMNS", "audit_command", "audit_result", "load_upload"]

#: the columns the audit tab shows (the rest is in the command's csv)
AUDIT_COLUMNS = (
    "guardrail",
    "system",
    "metric",
    "value",
    "se",
    "min",
    "max",
    "status",
    "reason",
    "suggestion",
    "cure",
    "reproduce",
)


def load_upload(data: bytes, filename: str = "upload.toml"):
    """The scenarios of an uploaded guardrail file: its bytes are parsed as TOML in
    memory (the upload's name is only a label; no path of the server is read)."""
    import tomllib

    from analysis.workflow.scenario import parse_scenario

    if len(data) > MAX_UPLOAD:
        raise InputError(
            f"{filename}: larger than {MAX_UPLOAD // 1000} kB; a guardrail file is a few kB"
        )
    try:
        parsed = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"{filename}: not a TOML file: {exc}") from None
    name = filename.replace("/", "_").replace("\\", "_")[:80] or "upload.toml"
    sc = parse_scenario(parsed, name)
    if not sc.guardrails:
        raise InputError(f"{name}: no [[guardrails]] entries to audit")
    return [sc]


def audit_result(
    scenarios,
    *,
    suggest: bool = True,
    files: list[str] | None = None,
) -> pd.DataFrame:
    """The audit of ``scenarios`` as ``rpg-balance audit`` prints it (default seed,
    batch and trial cap; its sentences are shown in the page's language with
    :func:`reports.i18n.localise_table`)."""
    from analysis.workflow import audit

    with ENGINE_LOCK:
        return audit.evaluate(scenarios, suggestions=suggest, progress=False, files=files or None)


def audit_command(source: str, guardrails: str | None, suggest: bool) -> str:
    words = ["rpg-balance", "audit"]
    if source == "file" and guardrails:
        words.append(shlex.quote(guardrails))
    elif source == "upload":
        words.append(_("UPLOADED_FILE.toml"))
    if not suggest:
        words.append("--no-suggest")
    return " ".join([*words, "--format", "csv"])
