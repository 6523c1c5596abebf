"""The Audit tab of the workbench: the shipped, named or uploaded guardrails audited in
the background, the table in the language in force and the command (a mixin of
:class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import threading
import traceback

import panel as pn

from engines.errors import InputError

from ..i18n import _, language
from ..rules_words import carrying
from . import model, words
from .common import code_block, log
from .page_base import PageBase

__all__ = ["AuditTab"]


class AuditTab(PageBase):
    """The widgets, callbacks and results of the Audit tab."""

    def _build_audit(self) -> None:
        a = self.state.audit
        self.g_source = pn.widgets.RadioButtonGroup(
            label=_("Guardrails"), options=self._sources(), value=a.source
        )
        self.g_upload = pn.widgets.FileInput(accept=".toml", multiple=False)
        self.g_suggest = pn.widgets.Checkbox(
            label=_("Search a cure for each failure"), value=a.suggest
        )
        self.g_run = pn.widgets.Button(label=_("Run the audit"), color="primary")
        self.g_status = pn.pane.Markdown("")
        self.g_table = pn.pane.DataFrame(
            None, index=False, sizing_mode="stretch_width", escape=False
        )  # cells escaped by words.frame
        self.g_command = pn.pane.Markdown("")
        self.g_source.param.watch(self._on_audit_setting, "value")
        self.g_suggest.param.watch(self._on_audit_setting, "value")
        self.g_upload.param.watch(self._on_upload, "value")
        self.g_run.on_click(self._on_run_audit)
        self._audit_command()

    def _audit_pane(self) -> pn.Column:
        return pn.Column(
            pn.Row(self.g_source, self.g_upload),
            pn.Row(self.g_suggest, self.g_run),
            self.g_status,
            self.g_table,
            self.p_audit,
            pn.pane.Markdown("**" + _("The same audit on the command line") + "**"),
            self.g_command,
        )

    def _sources(self) -> dict:
        if self.guardrails:
            return {
                _("shipped guardrails"): "default",
                _("file named on the command line"): "file",
                _("uploaded file"): "upload",
            }
        return {_("shipped guardrails"): "default", _("uploaded file"): "upload"}

    def show_audit(self) -> None:
        """The last audit in the language in force: the counts, then one row per
        guardrail with its reason, cure and the command that prints its value."""
        t = self._audit
        if t is None:
            return
        self.g_status.object = _(
            "{n} guardrails: {passed} pass, {failed} fail, {other} undecided."
        ).format(
            n=len(t),
            passed=int((t["status"] == "pass").sum()),
            failed=int((t["status"] == "fail").sum()),
            other=int((~t["status"].isin(["pass", "fail"])).sum()),
        )
        shown = t[[c for c in model.AUDIT_COLUMNS if c in t.columns]].copy()
        self.g_table.object = words.audit_frame(shown)
        self._compare_audit()

    def _on_audit_setting(self, _event=None) -> None:
        def go():
            self.state.audit = model.AuditState(self.g_source.value, bool(self.g_suggest.value))
            with language(self.state.lang):
                self._audit_command()

        self._guard(go)
        self._push_url()

    def _audit_command(self) -> None:
        a = self.state.audit
        self.g_command.object = code_block(
            self._with_rules(model.audit_command(a.source, self.guardrails, a.suggest))
        )

    def _on_upload(self, event) -> None:
        if event.new:
            self._upload = (self.g_upload.filename or "upload.toml", bytes(event.new))
            self.g_source.value = "upload"

    def _scenarios(self):
        from analysis.workflow import audit

        src = self.state.audit.source
        if src == "default":
            return audit.load_guardrails(None), None
        if src == "file":
            return audit.load_guardrails([self.guardrails]), [self.guardrails]
        if self._upload is None:
            raise InputError(_("Choose a guardrail file to upload first."))
        name, data = self._upload
        return model.load_upload(data, name), [name]

    def _on_run_audit(self, _event=None) -> None:
        def go():
            scenarios, files = self._scenarios()
            if not self._busy.acquire(blocking=False):
                raise InputError(_("A run is already going; press Stop first."))
            self._job = {"kind": "audit", "result": None, "error": None}
            self.g_run.disabled = True
            self.g_status.object = _("Auditing…")
            job, suggest, lang = self._job, self.state.audit.suggest, self.state.lang

            def run():
                try:
                    with language(lang), carrying(self.rules):
                        job["result"] = model.audit_result(scenarios, suggest=suggest, files=files)
                        self.pinned_audit()  # A's audit too, when pinned (cached)
                except InputError as exc:
                    job["error"] = str(exc)
                except Exception as exc:
                    log.error("workbench: %s", traceback.format_exc())
                    job["error"] = f"{type(exc).__name__}: {exc}"
                finally:
                    job["finished"] = True
                    self._busy.release()

            threading.Thread(target=run, daemon=True, name="workbench-audit").start()

        self._guard(go)

    def _poll_audit(self, job: dict) -> bool:
        """Show the audit once done; False while it runs."""
        if not job.get("finished"):
            return False
        self.g_run.disabled = False
        if job["error"]:
            self.g_status.object = job["error"]
        else:
            self._audit = job["result"]
            self.show_audit()
        return True
