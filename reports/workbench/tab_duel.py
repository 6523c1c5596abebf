"""The Duel tab of the workbench: two archetypes' duel, exact at once or by Monte Carlo
in the background with progress and Stop (a mixin of
:class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import threading
import traceback

import panel as pn

from engines.constants import AFTERMATHS
from engines.errors import InputError

from ..i18n import _, decimal, language
from ..rules_words import carrying
from . import model, words
from .common import OWN, code_block, frame, log
from .page_base import PageBase

__all__ = ["DuelTab"]


class DuelTab(PageBase):
    """The widgets, callbacks and results of the Duel tab."""

    def _build_duel(self) -> None:
        d = self.state.duel
        tip = words.tip
        self.d_system = pn.widgets.Select(
            label=_("System"),
            options=model.combat_systems(),
            value=d.system,
            description=tip("system", "rpg-balance duel SYSTEM"),
        )
        self.d_a = pn.widgets.Select(
            label=_("Side A"), width=210, description=tip("a", "rpg-balance duel SYSTEM A B")
        )
        self.d_b = pn.widgets.Select(
            label=_("Side B"), width=210, description=tip("b", "rpg-balance duel SYSTEM A B")
        )
        self.d_gear = {
            f"{k}_{side}": pn.widgets.Select(
                label=f"{_(k)} {side.upper()}",
                width=170,
                description=tip(f"{k}-{side}", f"--{k}-{side}"),
            )
            for side in "ab"
            for k in ("weapon", "armour", "tactic", "plan")
        }
        self.d_distance = pn.widgets.TextInput(
            label=_("Distance (metres)"),
            value=str(d.distance),
            width=150,
            description=tip("distance", "--variant distance=…"),
        )
        self.d_aftermath = pn.widgets.Select(
            label=_("Aftermath"),
            options=words.options(AFTERMATHS),
            value=d.aftermath,
            description=tip("aftermath", "--variant aftermath=…"),
        )
        self.d_method = pn.widgets.RadioButtonGroup(
            label=_("Method"),
            options={_("exact"): "exact", _("Monte Carlo"): "mc"},
            value=d.method,
            description=tip("method", "--method exact | mc"),
        )
        self.d_trials = pn.widgets.TextInput(
            label=_("Monte Carlo fights"),
            value=str(d.trials),
            width=150,
            description=tip("trials", "--trials"),
        )
        self.d_seed = pn.widgets.TextInput(
            label=_("Seed"), value=str(d.seed), width=150, description=tip("seed", "--seed")
        )
        self.d_cap = pn.widgets.TextInput(
            label=_("Round cap"),
            value=str(d.round_cap),
            width=150,
            description=tip("round-cap", "--round-cap"),
        )
        self.d_run = pn.widgets.Button(label=_("Run Monte Carlo"), color="primary")
        self.d_stop = pn.widgets.Button(label=_("Stop"), color="danger", disabled=True)
        self.d_progress = pn.indicators.Progress(value=0, max=100, visible=False, width=300)
        self.d_status = pn.pane.Markdown("")
        self.d_variants = pn.Column()
        self.d_sentence = pn.pane.Markdown("")
        self.d_summary = pn.pane.DataFrame(None, index=False, escape=False)
        self.d_one_hit = pn.pane.DataFrame(None, index=False, escape=False)
        self.d_figure = pn.pane.PNG(None, width=750)
        self.d_command = pn.pane.Markdown("")
        self._duel_widgets()
        self.d_system.param.watch(self._on_duel_system, "value")
        for w in (
            self.d_a,
            self.d_b,
            self.d_distance,
            self.d_aftermath,
            self.d_method,
            self.d_trials,
            self.d_seed,
            self.d_cap,
            *self.d_gear.values(),
        ):
            w.param.watch(self._on_duel, "value")
        self.d_run.on_click(self._on_run_mc)
        self.d_stop.on_click(self._on_stop)

    def _duel_pane(self) -> pn.Column:
        g = self.d_gear
        return pn.Column(
            pn.Row(self.d_system, self.d_aftermath, self.d_distance),
            pn.Row(self.d_a, g["weapon_a"], g["armour_a"], g["tactic_a"], g["plan_a"]),
            pn.Row(self.d_b, g["weapon_b"], g["armour_b"], g["tactic_b"], g["plan_b"]),
            pn.Card(self.d_variants, title=_("Combat variants"), collapsed=True),
            self._rules_pane(),
            pn.Row(self.d_method, self.d_trials, self.d_seed, self.d_cap),
            pn.Row(self.d_run, self.d_stop, self.d_progress),
            self.d_status,
            self.d_sentence,
            self.d_summary,
            self.p_duel,
            *self._distance_pane(),
            pn.pane.Markdown("**" + _("One attack on an unhurt target (exact)") + "**"),
            self.d_one_hit,
            self.d_figure,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.d_command,
        )

    def _duel_widgets(self) -> None:
        from analysis.combat import archetypes
        from analysis.combat.lethality import has_distance

        d = self.state.duel
        names = archetypes.names(d.system)
        self._updating = True
        try:
            self.d_a.options = self.d_b.options = words.options(names)
            self.d_a.value, self.d_b.value = d.a, d.b
            own = _("(archetype's own)")
            for key, w in self.d_gear.items():
                kind = key.split("_")[0]
                options = model.gear_options(d.system, kind)
                w.options = {own: OWN, **words.options(options)}
                value = getattr(d, key)
                w.value = value if value in options else OWN
                w.visible = bool(options)
            self.d_distance.visible = has_distance(d.system)
            self.d_distance.value = str(d.distance)
        finally:
            self._updating = False
        self._d_vars = self._variant_widgets(
            d.system,
            model.combat_variant_fields(d.system),
            d.variants,
            self.d_variants,
            self._on_duel,
        )
        self._rules_widgets()

    def _on_duel_system(self, event) -> None:
        def go():
            self.state.duel = model.default_duel(event.new)
            with language(self.state.lang):
                self._duel_widgets()
                self.refresh_duel()
                self.refresh_distance()

        self._guard(go)
        self._push_url()

    def _read_duel(self) -> model.DuelState:
        d = self.state.duel
        new = model.DuelState(
            d.system,
            model.check_archetype(d.system, self.d_a.value, "A"),
            model.check_archetype(d.system, self.d_b.value, "B"),
        )
        for key, w in self.d_gear.items():
            setattr(
                new,
                key,
                (
                    model.check_gear(d.system, key.split("_")[0], w.value)
                    if w.value != OWN
                    else None
                ),
            )
        new.distance = model.check_distance_m(d.system, self.d_distance.value)
        new.aftermath = model.check_aftermath(self.d_aftermath.value)
        new.method = model.check_method(self.d_method.value)
        from analysis import limits

        new.trials = limits.trials(self.d_trials.value, _("Monte Carlo fights"))
        new.seed = limits.bounded_int(self.d_seed.value, 0, 2**63 - 1, "a seed", _("Seed"))
        new.round_cap = limits.round_cap(self.d_cap.value, _("Round cap"))
        new.distances = d.distances
        new.variants = model.duel_variants(d.system, {k: w.value for k, w in self._d_vars.items()})
        self._read_traits(d, new)
        return new

    def _on_duel(self, _event=None) -> None:
        if self._updating:
            return

        def go():
            self.state.duel = self._read_duel()
            with language(self.state.lang):
                self._rules_widgets()
                self.refresh_duel()
                self.refresh_distance()
            self._say([])

        self._guard(go)
        self._push_url()

    def refresh_duel(self) -> None:
        """The exact duel now; with Monte Carlo chosen, what the Run button will do."""
        d = self.state.duel
        self.d_run.disabled = d.method != "mc" or self._busy.locked()
        if d.method == "mc":
            self.d_command.object = code_block(self._with_rules(model.duel_command(d)))
            self.d_status.object = _(
                "Press “Run Monte Carlo”: {n} fights from seed {seed}."
            ).format(n=decimal(d.trials, 0), seed=d.seed)
            self._compare_duel(None)
            return
        self.d_status.object = ""
        try:
            r = model.duel_result(d, figure=False)
        except InputError as exc:
            self.d_sentence.object = ""
            self.d_summary.object = self.d_one_hit.object = self.d_figure.object = None
            self.d_command.object = code_block(self._with_rules(model.duel_command(d)))
            raise InputError(f"{exc} — " + _("choose Monte Carlo to simulate this duel")) from None
        self._show_duel(r)

    def _show_duel(self, r: model.DuelResult) -> None:
        import pandas as pd

        d = self.state.duel
        if r.figure:
            self._request["duel"] += 1
        else:
            self._draw_later("duel", lambda: model.duel_figure(d, r))
        keys = [
            "method",
            "trials",
            "p_side0",
            "se_side0",
            "p_side1",
            "se_side1",
            "p_neither",
            "se_neither",
            "p_loser_dead",
            "p_loser_dying",
            "p_loser_out",
            "rounds_mean",
            "rounds_se",
            "rounds_q50",
        ]
        self.d_sentence.object = r.sentence
        row = {k: r.row[k] for k in keys}
        if row["method"] == "exact":  # no trials and no standard errors to show
            keys = [k for k in keys if k != "trials" and not k.startswith(("se_", "rounds_se"))]
            row = {k: row[k] for k in keys}
        self.d_summary.object = frame(pd.DataFrame([row]))
        self.d_one_hit.object = frame(r.one_hit)
        self.show_deadliness(r.row)
        if r.figure:
            self.d_figure.object = r.figure
        self.d_command.object = code_block(
            self._with_rules(r.command) + "\n" + self._with_rules(r.one_hit_command)
        )
        self._compare_duel(r)

    def _on_run_mc(self, _event=None) -> None:
        def go():
            d = self._read_duel()
            self.state.duel = d
            if d.method != "mc":
                return
            if not self._busy.acquire(blocking=False):
                raise InputError(_("A run is already going; press Stop first."))
            self._stop.clear()
            self._job = {
                "kind": "mc",
                "done": 0,
                "total": d.trials,
                "result": None,
                "error": None,
                "lang": self.state.lang,
            }
            self.d_run.disabled, self.d_stop.disabled = True, False
            self.d_progress.value, self.d_progress.visible = 0, True
            self.d_status.object = _("Running {n} fights…").format(n=decimal(d.trials, 0))
            threading.Thread(
                target=self._mc_thread, args=(d, self._job), daemon=True, name="workbench-mc"
            ).start()

        self._guard(go)
        self._push_url()

    def _mc_thread(self, d: model.DuelState, job: dict) -> None:
        def batch(done: int, total: int) -> None:
            job["done"] = done
            if self._stop.is_set():
                raise model.Cancelled

        try:
            with language(job["lang"]), carrying(self.rules):
                self.pinned_duel(mc=True, on_batch=batch)  # A's run first, when pinned
                job["result"] = model.duel_result(d, on_batch=batch)
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

    def _on_stop(self, _event=None) -> None:
        self._stop.set()

    def _poll_duel(self, job: dict) -> bool:
        """Show a Monte Carlo run's progress, and its result once done; False while it
        runs."""
        self.d_progress.value = int(100 * job["done"] / max(job["total"], 1))
        if not job.get("finished"):
            self.d_status.object = _("Running: {done} of {n} fights…").format(
                done=decimal(job["done"], 0), n=decimal(job["total"], 0)
            )
            return False
        self.d_stop.disabled, self.d_progress.visible = True, False
        self.d_run.disabled = self.state.duel.method != "mc"
        if job["error"] == "stopped":
            self.d_status.object = _(
                "Stopped between batches after {done} of {n} "
                "fights; nothing is shown for a partial "
                "run."
            ).format(done=decimal(job["done"], 0), n=decimal(job["total"], 0))
        elif job["error"]:
            self.d_status.object = job["error"]
        else:
            self.d_status.object = _("Done: {n} fights.").format(n=decimal(job["total"], 0))
            self._show_duel(job["result"])
        return True
