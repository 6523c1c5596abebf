"""The Groups tab of the workbench: a group fight from a shipped or uploaded matchup file
(``rpg-balance combat FILE``), by Monte Carlo in the background with progress and Stop,
every figure with its standard error and the command that prints the same numbers (a
mixin of :class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import threading
import traceback

import panel as pn

from engines.errors import InputError

from ..i18n import N_, _, decimal, language, text
from ..rules_words import carrying
from . import model
from . import words as page_words
from .common import code_block, log
from .page_base import PageBase
from .tab_distance import figure_table

__all__ = ["GroupsTab"]

_FATES = {"standing": N_("standing"), "dead": N_("dead"), "dying": N_("dying"), "out": N_("out")}


class GroupsTab(PageBase):
    """The widgets, callbacks and results of the Groups tab."""

    def _build_groups(self) -> None:
        g = self.state.groups
        self.f_scenario = pn.widgets.Select(
            label=_("Matchup file"), options=self._group_options(), value=g.scenario
        )
        self.f_upload = pn.widgets.FileInput(accept=".toml", multiple=False)
        self.f_trials = pn.widgets.TextInput(
            label=_("Fights of the group (Monte Carlo)"), value=str(g.trials), width=220
        )
        self.f_seed = pn.widgets.TextInput(
            label=_("Random seed of the group fight"), value=str(g.seed), width=220
        )
        self.f_run = pn.widgets.Button(label=_("Run the group fight"), color="primary")
        self.f_stop = pn.widgets.Button(label=_("Stop"), color="danger", disabled=True)
        self.f_progress = pn.indicators.Progress(value=0, max=100, visible=False, width=300)
        self.f_status = pn.pane.Markdown("")
        self.f_table = pn.pane.DataFrame(None, index=False)
        self.f_command = pn.pane.Markdown("")
        self._f_upload: tuple[str, bytes] | None = None
        for w in (self.f_scenario, self.f_trials, self.f_seed):
            w.param.watch(self._on_group_setting, "value")
        self.f_upload.param.watch(self._on_group_upload, "value")
        self.f_run.on_click(self._on_run_group)
        self.f_stop.on_click(self._on_stop)
        self._group_command()

    def _group_options(self) -> dict:
        # a shipped matchup by its file's name (scenarios/combat/NAME.toml), never its id
        return {**{f"{n}.toml": n for n in model.shipped_scenarios()}, _("uploaded file"): "upload"}

    def _groups_pane(self) -> pn.Column:
        return pn.Column(
            pn.Row(self.f_scenario, self.f_upload),
            pn.Row(self.f_trials, self.f_seed),
            pn.Row(self.f_run, self.f_stop, self.f_progress),
            self.f_status,
            self.f_table,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.f_command,
        )

    def _group_file(self) -> str:
        g = self.state.groups
        if g.scenario == "upload":
            return self._f_upload[0] if self._f_upload else "FILE.toml"
        return f"scenarios/combat/{g.scenario}.toml"

    def _group_command(self) -> None:
        self.f_command.object = code_block(
            self._with_rules(model.group_command(self.state.groups, self._group_file()))
        )

    def _on_group_setting(self, _event=None) -> None:
        def go():
            from analysis import limits

            self.state.groups = model.GroupState(
                self.f_scenario.value,
                limits.trials(self.f_trials.value, _("Fights of the group (Monte Carlo)")),
                limits.bounded_int(
                    self.f_seed.value,
                    0,
                    model.MAX_PAGE_SEED,
                    "a seed",
                    _("Random seed of the group fight"),
                ),
            )
            self._group_command()
            self._say([])

        self._guard(go)
        self._push_url()

    def _on_group_upload(self, event) -> None:
        if not event.new:
            return

        def go():
            name = self.f_upload.filename or "upload.toml"
            model.load_matchup_upload(bytes(event.new), name)  # one message when bad
            self._f_upload = (name, bytes(event.new))
            self.f_scenario.value = "upload"
            self._group_command()
            self.f_status.object = _("{name}: a valid matchup file.").format(name=name)

        if not self._guard(go):
            self._f_upload = None

    def _matchup(self):
        g = self.state.groups
        if g.scenario != "upload":
            return model.load_matchup(g.scenario)
        if self._f_upload is None:
            raise InputError(_("Choose a matchup file to upload first."))
        return model.load_matchup_upload(self._f_upload[1], self._f_upload[0])

    def _on_run_group(self, _event=None) -> None:
        def go():
            g, m, file = self.state.groups, self._matchup(), self._group_file()
            if not self._busy.acquire(blocking=False):
                raise InputError(_("A run is already going; press Stop first."))
            self._stop.clear()
            self._job = {
                "kind": "groups",
                "done": 0,
                "total": g.trials,
                "result": None,
                "error": None,
            }
            self.f_run.disabled, self.f_stop.disabled = True, False
            self.f_progress.value, self.f_progress.visible = 0, True
            self.f_table.object = None  # a run stopped halfway shows nothing, not the last
            self.f_status.object = _("Running {n} fights…").format(n=decimal(g.trials, 0))
            job, lang = self._job, self.state.lang

            def batch(done: int, total: int) -> None:
                job["done"] = done
                if self._stop.is_set():
                    raise model.Cancelled

            def run():
                try:
                    with language(lang), carrying(self.rules):
                        job["result"] = model.group_result(g, m, file, on_batch=batch)
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

            threading.Thread(target=run, daemon=True, name="workbench-groups").start()

        self._guard(go)
        self._push_url()

    def _poll_groups(self, job: dict) -> bool:
        """A group fight's progress, and its figures once done; False while it runs."""
        self.f_progress.value = int(100 * job["done"] / max(job["total"], 1))
        if not job.get("finished"):
            self.f_status.object = _("Running: {done} of {n} fights…").format(
                done=decimal(job["done"], 0), n=decimal(job["total"], 0)
            )
            return False
        self.f_stop.disabled, self.f_progress.visible = True, False
        self.f_run.disabled = False
        if job["error"] == "stopped":
            self.f_status.object = _(
                "Stopped between batches after {done} of {n} "
                "fights; nothing is shown for a partial "
                "run."
            ).format(done=decimal(job["done"], 0), n=decimal(job["total"], 0))
        elif job["error"]:
            self.f_status.object = job["error"]
        else:
            self.show_group(job["result"])
        return True

    def show_group(self, r: model.GroupResult) -> None:
        """Every figure of the fight with its standard error, and its command."""
        row = r.row
        self.f_status.object = (
            _("Done: {n} fights.").format(n=decimal(int(row["trials"]), 0))
            + " "
            + _("{title} ({system}): side A {a} against side B {b}.").format(
                title=page_words.capital(text(r.title)),
                system=row["system"],
                a=page_words.abbr(page_words.value_words(row["side0"]), row["side0"]),
                b=page_words.abbr(page_words.value_words(row["side1"]), row["side1"]),
            )
        )
        pairs = list(model.GROUP_FIGURES)
        names = {}
        for side, letter in ((0, "A"), (1, "B")):
            for fate, words in _FATES.items():
                key = f"p_side{side}_{fate}"
                pairs.append((key, f"se_side{side}_{fate}"))
                names[key] = _("side {side}: {fate}").format(side=letter, fate=_(words))
        self.f_table.object = figure_table(row, pairs, names=names)
        self.f_command.object = code_block(self._with_rules(r.command))
