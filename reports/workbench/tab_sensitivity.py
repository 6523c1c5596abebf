"""The Sensitivity tab of the workbench: ``rpg-balance sensitivity`` of the shipped
guardrails against the default knobs or an uploaded knob file, run in the background
with its progress and a Stop between guardrails: the readings, the table and the heat
map of the report's "What matters most" page, and the command (a mixin of
:class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import threading
import traceback

import panel as pn

from engines.errors import InputError

from ..i18n import _, decimal, language
from ..rules_words import carrying
from . import model
from . import words as page_words
from .common import code_block, log
from .page_base import PageBase

__all__ = ["SensitivityTab"]


def _indices(view):
    """The sensitivity's table with its indices in the language's style (2 decimals, its
    decimal mark), as the readings above it write them."""
    import numbers

    out = view.copy()
    for col in out.columns:
        out[col] = [
            decimal(float(x), 2)
            if isinstance(x, numbers.Real) and not isinstance(x, bool) and x == x
            else x
            for x in out[col]
        ]
    return out


class SensitivityTab(PageBase):
    """The widgets, callbacks and results of the Sensitivity tab."""

    def _build_sensitivity(self) -> None:
        self.s_source = pn.widgets.RadioButtonGroup(
            options=self._knob_sources(), value=self.state.sensitivity.knobs
        )
        self.s_upload = pn.widgets.FileInput(accept=".toml", multiple=False)
        self.s_run = pn.widgets.Button(label=_("Run the sensitivity"), color="primary")
        self.s_stop = pn.widgets.Button(label=_("Stop"), color="danger", disabled=True)
        self.s_progress = pn.indicators.Progress(value=0, max=100, visible=False, width=300)
        self.s_status = pn.pane.Markdown("")
        self.s_readings = pn.pane.Markdown("")
        self.s_table = pn.pane.DataFrame(None, index=False, sizing_mode="stretch_width")
        self.s_heatmap = pn.pane.PNG(None, width=750)
        self.s_command = pn.pane.Markdown("")
        self._s_upload: tuple[str, bytes] | None = None
        self._sensitivity = None
        self.s_source.param.watch(self._on_knobs, "value")
        self.s_upload.param.watch(self._on_knob_upload, "value")
        self.s_run.on_click(self._on_run_sensitivity)
        self.s_stop.on_click(self._on_stop)
        self._sensitivity_command()

    def _knob_sources(self) -> dict:
        return {_("default knobs"): "default", _("uploaded file"): "upload"}

    def _sensitivity_pane(self) -> pn.Column:
        return pn.Column(
            pn.pane.Markdown(
                _(
                    "Which rule decides each guardrail's figure: the knobs of "
                    "the knob file turned over their ranges, against the "
                    "shipped guardrails."
                )
            ),
            pn.Row(self.s_source, self.s_upload),
            pn.Row(self.s_run, self.s_stop, self.s_progress),
            self.s_status,
            self.s_readings,
            self.s_table,
            self.s_heatmap,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.s_command,
        )

    def _sensitivity_command(self) -> None:
        name = None
        if self.state.sensitivity.knobs == "upload":
            name = self._s_upload[0] if self._s_upload else "FILE.toml"
        self.s_command.object = code_block(self._with_rules(model.sensitivity_command(name)))

    def _on_knobs(self, event) -> None:
        def go():
            self.state.sensitivity = model.SensitivityState(event.new)
            self._sensitivity_command()

        self._guard(go)
        self._push_url()

    def _on_knob_upload(self, event) -> None:
        if event.new:
            self._s_upload = (self.s_upload.filename or "knobs.toml", bytes(event.new))
            self.s_source.value = "upload"
            self._sensitivity_command()

    def _on_run_sensitivity(self, _event=None) -> None:
        def go():
            upload = None
            if self.state.sensitivity.knobs == "upload":
                if self._s_upload is None:
                    raise InputError(_("Choose a knob file to upload first."))
                upload = self._s_upload
            if not self._busy.acquire(blocking=False):
                raise InputError(_("A run is already going; press Stop first."))
            self._stop.clear()
            self._job = {
                "kind": "sensitivity",
                "done": 0,
                "total": 0,
                "result": None,
                "error": None,
            }
            self.s_run.disabled, self.s_stop.disabled = True, False
            self.s_progress.value, self.s_progress.visible = 0, True
            # a study stopped halfway shows nothing, not the last study's figures
            self.s_readings.object, self.s_table.object, self.s_heatmap.object = "", None, None
            self.s_status.object = _("Measuring every guardrail over the knobs…")
            job, lang = self._job, self.state.lang

            def guardrail(done: int, total: int) -> None:
                job["done"], job["total"] = done, total
                if self._stop.is_set() and done < total:
                    raise model.Cancelled

            def run():
                try:
                    with language(lang), carrying(self.rules):
                        job["result"] = model.sensitivity_run(upload, on_guardrail=guardrail)
                except model.Cancelled:
                    job["error"] = "stopped"
                except InputError as exc:
                    job["error"] = str(exc)
                except Exception as exc:
                    log.error("workbench: %s", traceback.format_exc())
                    job["error"] = f"{type(exc).__name__}: {exc}"
                finally:
                    job["finished"] = True
                    self._busy.release()

            threading.Thread(target=run, daemon=True, name="workbench-sensitivity").start()

        self._guard(go)

    def _poll_sensitivity(self, job: dict) -> bool:
        """The sensitivity's readings, table and heat map once done; False while it
        runs."""
        done, total = job.get("done", 0), job.get("total", 0)
        self.s_progress.value = int(100 * done / max(total, 1))
        if not job.get("finished"):
            if total:
                self.s_status.object = _("Measuring: {done} of {n} guardrails done…").format(
                    done=decimal(done, 0), n=decimal(total, 0)
                )
            return False
        self.s_run.disabled = False
        self.s_stop.disabled, self.s_progress.visible = True, False
        if job["error"] == "stopped":
            self.s_status.object = _(
                "Stopped between guardrails after {done} of {n}; nothing is shown for a "
                "partial study."
            ).format(done=decimal(done, 0), n=decimal(total, 0))
            return True
        if job["error"]:
            self.s_status.object = job["error"]
            return True
        r = job["result"]
        s = r.result.stats
        self.s_status.object = _("Done: {n} guardrail measurements ({method}).").format(
            n=decimal(int(s["measured"]), 0), method=page_words.value_words(r.result.method)
        )
        self.s_readings.object = "\n".join(f"- {x}" for x in r.readings)
        self.s_table.object = _indices(r.view)
        self.s_heatmap.object = r.heatmap or None
        self.s_command.object = code_block(self._with_rules(r.command))
        return True
