"""The Sensitivity tab: ``rpg-balance sensitivity`` (:mod:`analysis.workflow.sensitivity`)
of the shipped guardrails against the default knobs (``analysis/data/sensitivity.toml``)
or an uploaded knob file (only a ``[tune]`` table, validated as ``--knobs`` is): the
readings, the table of the report's page (:func:`reports.sections.sensitivity.
sensitivity_view`), its heat map and the command."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engines.errors import InputError

from .checks import png_bytes
from .state import ENGINE_LOCK, MAX_UPLOAD

__all__ = ["SensitivityRun", "sensitivity_command", "sensitivity_run"]


@dataclasses.dataclass
class SensitivityRun:
    result: object  # analysis.workflow.sensitivity.SensitivityResult
    readings: list[str]  # one sentence per guardrail, in the language in force
    view: pd.DataFrame  # the report's table: guardrail, knob, ST, S1
    heatmap: bytes  # PNG
    command: str


def _shown(path: Path) -> str:
    root = Path(__file__).resolve().parents[3]
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def sensitivity_command(knobs_name: str | None = None) -> str:
    """``rpg-balance sensitivity analysis/data/guardrails.toml --knobs K --format csv``
    (K: the default knobs, or the uploaded file's name)."""
    import shlex

    from analysis.workflow import sensitivity as sens
    from analysis.workflow.audit import DATA

    knobs = knobs_name if knobs_name is not None else _shown(sens.DEFAULT_KNOBS)
    return shlex.join(
        ["rpg-balance", "sensitivity", _shown(DATA), "--knobs", knobs, "--format", "csv"]
    )


def sensitivity_run(
    upload: tuple[str, bytes] | None = None,
    on_guardrail: Callable[[int, int], None] | None = None,
) -> SensitivityRun:
    """The sensitivity of the shipped guardrails to the default knobs, or to the knobs of
    ``upload`` (``(name, bytes)``, written under its bare name to a private temporary
    folder and read as ``--knobs``), as the command computes it (its defaults: method
    auto, seed, batch and trial cap), under the engine lock for the whole run.
    ``on_guardrail(done, total)`` is called before each guardrail and after the last
    (:func:`analysis.workflow.sensitivity.sensitivity`); raising :class:`Cancelled` from
    it ends the run between two guardrails (the page's Stop)."""
    import tempfile

    from analysis.workflow import sensitivity as sens
    from analysis.workflow.audit import DATA

    from ...i18n import _, text
    from ...sections.sensitivity import sensitivity_view

    with tempfile.TemporaryDirectory(prefix="rpg-balance-upload-") as folder:
        name = None
        knobs = sens.DEFAULT_KNOBS
        if upload is not None:
            name = (Path(str(upload[0]).replace("\\", "/")).name or "knobs.toml")[:80]
            if len(upload[1]) > MAX_UPLOAD:
                raise InputError(
                    f"{name}: larger than {MAX_UPLOAD // 1000} kB; a knob file is a few kB"
                )
            knobs = Path(folder) / name
            knobs.write_bytes(upload[1])
        problem = sens.load_problem(DATA, knobs)
    problem.file = _shown(DATA)
    with ENGINE_LOCK:
        result = sens.sensitivity(problem, on_guardrail=on_guardrail)
    labels = {k.name: text(sens.knob_words(problem, k.name)) for k in problem.knobs}
    rows = {g.name: text(g.name) for g in problem.scenario.guardrails}
    if result.table["touches"].any():
        heat = png_bytes(sens.sensitivity_heatmap(result, labels, rows, _("total index (ST)")))
    else:
        heat = b""
    return SensitivityRun(
        result,
        [text(r) for r in result.readings],
        sensitivity_view(result),
        heat,
        sensitivity_command(name),
    )
