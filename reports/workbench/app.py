"""The workbench page (Panel) over :mod:`reports.workbench.model`, and :func:`serve`.

Panel fits a numba-backed library: its widgets are ``param`` objects, the address bar's
query is synced with ``pn.state.location.sync``, event callbacks run on a thread pool,
and the page is served by Bokeh's Tornado server with its own static assets (no CDN),
so it works offline. One :class:`Workbench` per browser tab; the numbers come from the
model under its engine lock.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable

from engines.constants import AFTERMATHS

__all__ = ["GEAR_WORDS", "OWN", "UrlState", "Workbench", "create_page", "free_port", "log", "serve"]

# every script and style sheet from this server, none from a CDN (set before bokeh loads)
os.environ.setdefault("BOKEH_RESOURCES", "server")

import panel as pn
import param

from engines.errors import InputError

from ..i18n import LANGUAGES, N_, _, language
from ..rules_words import carrying, rules_line, rules_sets
from . import model

log = logging.getLogger("rpg_balance.workbench")

#: the label of "keep the archetype's own" in the gear menus
OWN = ""
#: the words of each side's gear menus (translated where they are shown)
GEAR_WORDS = (N_("weapon"), N_("armour"), N_("tactic"), N_("plan"))


def _url_class():
    return param.parameterized_class(
        "WorkbenchQuery", {model.url_param(k): param.String(default="")
                           for k in model.QUERY_KEYS})


UrlState = _url_class()


def _code(text: str) -> str:
    return f"```sh\n{text}\n```"


def _frame(df, percent_cols=()):
    """A table for the page: probabilities as percentages with 2 decimals, the columns
    named in the report's words (:func:`reports.labels.header`, the language in force)."""
    from reports.labels import header

    out = df.copy()
    for col in out.columns:
        if col in percent_cols or (str(col).startswith(("p_", "se_")) or col == "p"):
            with contextlib.suppress(TypeError, ValueError):
                out[col] = [f"{100 * float(x):.2f}%" for x in out[col]]
    return out.rename(columns={c: header(c) for c in out.columns})


class Workbench:
    """One browser tab's page: widgets built from the state, tabs, results."""

    def __init__(self, query: dict, guardrails: str | None = None, lang: str = "en",
                 rules=None, rule_files: tuple[str, ...] = ()):
        from analysis.rules import in_force

        self.guardrails = guardrails
        # the rules this page computes under (``serve --rules``; default: those in force
        # now), carried into every callback and thread (:func:`carrying`)
        self.rules = rules_sets(in_force() if rules is None else rules)
        self.rule_files = tuple(rule_files)
        self.state, messages = model.parse_query(query, guardrails)
        if "lang" not in {str(k) for k in query}:
            self.state.lang = lang
        self._busy = threading.Lock()        # one background run (MC or audit) at a time
        self._stop = threading.Event()
        self._job: dict = {}                 # what the background thread reports
        self._upload: tuple[str, bytes] | None = None
        self._audit = None                   # the last audit table (English)
        self._figures: dict = {}             # tab → (request number, PNG) drawn after
        self._request = {"checks": 0, "duel": 0}
        self._updating = False
        self.url = UrlState()
        with language(self.state.lang), carrying(self.rules):
            self._build()
            self.messages.object = self._messages_md(messages)
            self.messages.visible = bool(messages)
            self.refresh_checks()
            self.refresh_duel()
        self._push_url()

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        s = self.state
        self.lang = pn.widgets.Select(label=_("Language"), options=list(LANGUAGES),
                                      value=s.lang, width=120)
        self.lang.param.watch(self._on_lang, "value")
        self.messages = pn.pane.Alert("", alert_type="warning", visible=False)
        # checks
        self.c_system = pn.widgets.Select(label=_("System"), options=model.check_systems(),
                                          value=s.check.system)
        self.c_target = pn.widgets.TextInput(label=_("Target chance (0 to 1)"),
                                             value=repr(float(s.check.target)))
        self.c_comp = pn.widgets.Select(label=_("Competence"))
        self.c_variants = pn.Column()
        self.c_axes = pn.Row()
        self.c_sentence = pn.pane.Markdown("")
        self.c_figure = pn.pane.PNG(None, width=750)
        self.c_solve = pn.pane.DataFrame(None, index=False)
        self.c_table = pn.pane.DataFrame(None, max_rows=60, index=False,
                                         sizing_mode="stretch_width")
        self.c_command = pn.pane.Markdown("")
        self._check_widgets()
        self.c_system.param.watch(self._on_check_system, "value")
        self.c_target.param.watch(self._on_check, "value")
        self.c_comp.param.watch(self._on_check, "value")
        # duel
        d = s.duel
        self.d_system = pn.widgets.Select(label=_("System"), options=model.combat_systems(),
                                          value=d.system)
        self.d_a = pn.widgets.Select(label=_("Side A"), width=210)
        self.d_b = pn.widgets.Select(label=_("Side B"), width=210)
        self.d_gear = {f"{k}_{side}": pn.widgets.Select(label=f"{_(k)} {side.upper()}",
                                                        width=170)
                       for side in "ab" for k in ("weapon", "armour", "tactic", "plan")}
        self.d_distance = pn.widgets.TextInput(label=_("Distance (metres)"),
                                               value=str(d.distance), width=150)
        self.d_aftermath = pn.widgets.Select(label=_("Aftermath"),
                                             options=list(AFTERMATHS),
                                             value=d.aftermath)
        self.d_method = pn.widgets.RadioButtonGroup(
            label=_("Method"), options={_("exact"): "exact", _("Monte Carlo"): "mc"},
            value=d.method)
        self.d_trials = pn.widgets.TextInput(label=_("Monte Carlo fights"), value=str(d.trials),
                                             width=150)
        self.d_seed = pn.widgets.TextInput(label=_("Seed"), value=str(d.seed), width=150)
        self.d_cap = pn.widgets.TextInput(label=_("Round cap"), value=str(d.round_cap), width=150)
        self.d_run = pn.widgets.Button(label=_("Run Monte Carlo"), color="primary")
        self.d_stop = pn.widgets.Button(label=_("Stop"), color="danger", disabled=True)
        self.d_progress = pn.indicators.Progress(value=0, max=100, visible=False,
                                                 width=300)
        self.d_status = pn.pane.Markdown("")
        self.d_variants = pn.Column()
        self.d_sentence = pn.pane.Markdown("")
        self.d_summary = pn.pane.DataFrame(None, index=False)
        self.d_one_hit = pn.pane.DataFrame(None, index=False)
        self.d_figure = pn.pane.PNG(None, width=750)
        self.d_command = pn.pane.Markdown("")
        self._duel_widgets()
        self.d_system.param.watch(self._on_duel_system, "value")
        for w in (self.d_a, self.d_b, self.d_distance, self.d_aftermath, self.d_method,
                  self.d_trials, self.d_seed, self.d_cap, *self.d_gear.values()):
            w.param.watch(self._on_duel, "value")
        self.d_run.on_click(self._on_run_mc)
        self.d_stop.on_click(self._on_stop)
        # audit
        a = s.audit
        self.g_source = pn.widgets.RadioButtonGroup(label=_("Guardrails"),
                                                    options=self._sources(), value=a.source)
        self.g_upload = pn.widgets.FileInput(accept=".toml", multiple=False)
        self.g_suggest = pn.widgets.Checkbox(label=_("Search a cure for each failure"),
                                             value=a.suggest)
        self.g_run = pn.widgets.Button(label=_("Run the audit"), color="primary")
        self.g_status = pn.pane.Markdown("")
        self.g_table = pn.pane.DataFrame(None, index=False, sizing_mode="stretch_width",
                                         escape=True)
        self.g_command = pn.pane.Markdown("")
        self.g_source.param.watch(self._on_audit_setting, "value")
        self.g_suggest.param.watch(self._on_audit_setting, "value")
        self.g_upload.param.watch(self._on_upload, "value")
        self.g_run.on_click(self._on_run_audit)
        self._audit_command()
        self.root = pn.Column(sizing_mode="stretch_width")
        self._layout()

    def _sources(self) -> dict:
        if self.guardrails:
            return {_("shipped guardrails"): "default",
                    _("file named on the command line"): "file",
                    _("uploaded file"): "upload"}
        return {_("shipped guardrails"): "default", _("uploaded file"): "upload"}

    def _layout(self) -> None:
        checks = pn.Column(
            pn.Row(self.c_system, self.c_comp, self.c_target),
            self.c_axes,
            pn.Card(self.c_variants, title=_("Check variants"), collapsed=True),
            self.c_sentence, self.c_solve, self.c_figure, self.c_table,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.c_command)
        g = self.d_gear
        duel = pn.Column(
            pn.Row(self.d_system, self.d_aftermath, self.d_distance),
            pn.Row(self.d_a, g["weapon_a"], g["armour_a"], g["tactic_a"], g["plan_a"]),
            pn.Row(self.d_b, g["weapon_b"], g["armour_b"], g["tactic_b"], g["plan_b"]),
            pn.Card(self.d_variants, title=_("Combat variants"), collapsed=True),
            pn.Row(self.d_method, self.d_trials, self.d_seed, self.d_cap),
            pn.Row(self.d_run, self.d_stop, self.d_progress),
            self.d_status, self.d_sentence, self.d_summary,
            pn.pane.Markdown("**" + _("One attack on an unhurt target (exact)") + "**"),
            self.d_one_hit, self.d_figure,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.d_command)
        audit = pn.Column(
            pn.Row(self.g_source, self.g_upload),
            pn.Row(self.g_suggest, self.g_run), self.g_status, self.g_table,
            pn.pane.Markdown("**" + _("The same audit on the command line") + "**"),
            self.g_command)
        # a new Tabs each time: its titles are in the language in force
        self.tabs = pn.Tabs((_("Checks"), checks), (_("Duel"), duel), (_("Audit"), audit),
                            dynamic=False, active=model.TABS.index(self.state.tab))
        self.tabs.param.watch(self._on_tab, "active")
        header = pn.Row(pn.pane.Markdown("## rpg-balance — " + _("live workbench")),
                        pn.layout.HSpacer(), self.lang)
        top = [header]
        if self.rules:
            top.append(pn.pane.Markdown(_("Rules files in force (every number on this page "
                                          "is computed with them): {rules}").format(
                rules=f"`{rules_line(self.rules)}`")))
        self.root.objects = [*top, self.messages, self.tabs]

    def _variant_widgets(self, fields: list[dict], given: dict, box: pn.Column,
                         callback: Callable) -> dict:
        widgets = {}
        for f in fields:
            value = given.get(f["name"], f["default"])
            label = f"{f['name']} ({f['rule']})" if f["rule"] else f["name"]
            if f["choices"] is not None:
                w = pn.widgets.Select(label=label, options=f["choices"], value=value,
                                      width=210)
            else:
                w = pn.widgets.TextInput(label=label, value=value, width=210)
            w.param.watch(callback, "value")
            widgets[f["name"]] = w
        box.objects = [pn.FlexBox(*widgets.values())]
        return widgets

    def _check_widgets(self) -> None:
        from engines.system import get

        c = self.state.check
        spec = get(c.system)
        self._c_vars = self._variant_widgets(model.check_variant_fields(c.system),
                                             c.variants, self.c_variants, self._on_check)
        self._c_axes = {}
        for name, values in spec.checks.axes.items():
            w = pn.widgets.Select(label=name, options=[model.ALL, *map(model.variant_text, values)],
                                  value=c.axes.get(name, model.ALL), width=150)
            w.param.watch(self._on_check, "value")
            self._c_axes[name] = w
        self.c_axes.objects = list(self._c_axes.values())
        axis = spec.ladder.competence_axis if spec.ladder else None
        comp = [model.variant_text(v) for v in spec.checks.axes.get(axis, ())]
        self.c_comp.label = _("Competence") + (f" ({axis})" if comp else "")
        self.c_comp.options = comp
        self.c_comp.value = c.competence if c.competence in comp else (comp[0] if comp
                                                                       else None)

    def _duel_widgets(self) -> None:
        from analysis.combat import archetypes
        from analysis.combat.lethality import has_distance

        d = self.state.duel
        names = archetypes.names(d.system)
        self._updating = True
        try:
            self.d_a.options, self.d_b.options = names, names
            self.d_a.value, self.d_b.value = d.a, d.b
            own = _("(archetype's own)")
            for key, w in self.d_gear.items():
                kind = key.split("_")[0]
                options = model.gear_options(d.system, kind)
                w.options = {own: OWN, **{o: o for o in options}}
                value = getattr(d, key)
                w.value = value if value in options else OWN
                w.visible = bool(options)
            self.d_distance.visible = has_distance(d.system)
            self.d_distance.value = str(d.distance)
        finally:
            self._updating = False
        self._d_vars = self._variant_widgets(model.combat_variant_fields(d.system),
                                             d.variants, self.d_variants, self._on_duel)

    # ------------------------------------------------------------------ messages

    @staticmethod
    def _messages_md(messages: list[str]) -> str:
        return "\n".join(f"- {m}" for m in messages)

    def _say(self, messages: list[str]) -> None:
        self.messages.object = self._messages_md(messages)
        self.messages.visible = bool(messages)

    def _guard(self, fn: Callable, *args) -> bool:
        """Run ``fn`` under the page's rules; a bad value becomes a message on the page,
        any other failure a one-line message (the traceback goes to the server's log);
        the page keeps serving either way."""
        try:
            with carrying(self.rules):
                fn(*args)
            return True
        except InputError as exc:
            self._say([str(exc)])
        except Exception as exc:  # the page must keep serving
            log.error("workbench: %s", traceback.format_exc())
            self._say([_("Internal error: {error}").format(error=f"{type(exc).__name__}: "
                                                                    f"{exc}")])
        return False

    # ------------------------------------------------------------------ URL

    def _push_url(self) -> None:
        q = model.to_query(self.state)
        self.url.param.update(**{model.url_param(k): q.get(k, "") for k in model.QUERY_KEYS})

    def sync_location(self) -> None:
        """Keep the address bar's query and the page's state together (a link to this
        view reproduces it). An old address's short keys (``n=``, ``dist=`` …, read as
        the new ones) leave the address bar once the page has loaded: the page writes
        the new names."""
        from urllib.parse import parse_qsl, urlencode

        location = pn.state.location
        location.sync(self.url, {model.url_param(k): k for k in model.QUERY_KEYS})
        given = parse_qsl((location.search or "").lstrip("?"), keep_blank_values=True)
        if any(k in model.ALIASES for k, _v in given):
            def rewrite() -> None:
                query = model.to_query(self.state)
                location.search = "?" + urlencode(query) if query else ""

            pn.state.onload(rewrite)
        self._push_url()

    # ------------------------------------------------------------------ callbacks

    def _on_lang(self, event) -> None:
        def go():
            self.state.lang = event.new
            with language(event.new):
                self._build_labels()
                self.refresh_checks()
                self.refresh_duel()
                self._audit_command()
                self.show_audit()
        self._guard(go)
        self._push_url()

    def _build_labels(self) -> None:
        """The page's words in the language in force (the widgets keep their values)."""
        self.lang.label = _("Language")
        self.c_system.label = self.d_system.label = _("System")
        self.c_target.label = _("Target chance (0 to 1)")
        self.d_a.label, self.d_b.label = _("Side A"), _("Side B")
        for key, w in self.d_gear.items():
            kind, side = key.split("_")
            w.label = f"{_(kind)} {side.upper()}"
        self.d_distance.label = _("Distance (metres)")
        self.d_aftermath.label = _("Aftermath")
        self.d_trials.label = _("Monte Carlo fights")
        self.d_seed.label = _("Seed")
        self.d_cap.label = _("Round cap")
        self.d_run.label, self.d_stop.label = _("Run Monte Carlo"), _("Stop")
        self.d_method.options = {_("exact"): "exact", _("Monte Carlo"): "mc"}
        self.g_source.options = self._sources()
        self.g_suggest.label = _("Search a cure for each failure")
        self.g_run.label = _("Run the audit")
        self._check_widgets()
        self._duel_widgets()
        self._layout()

    def _on_tab(self, event) -> None:
        self.state.tab = model.TABS[event.new]
        self._push_url()

    def _on_check_system(self, event) -> None:
        def go():
            self.state.check = model.default_check(event.new)
            with language(self.state.lang):
                self._check_widgets()
                self.refresh_checks()
        self._guard(go)
        self._push_url()

    def _on_check(self, _event=None) -> None:
        def go():
            c = self.state.check
            given = {k: w.value for k, w in self._c_vars.items()}
            new = model.CheckState(
                c.system, model.check_variants(c.system, given),
                model.check_axes(c.system, {k: w.value for k, w in self._c_axes.items()}),
                model.check_target(self.c_target.value),
                model.check_competence(c.system, self.c_comp.value)
                if self.c_comp.options else "")
            self.state.check = new
            with language(self.state.lang):
                self.refresh_checks()
            self._say([])
        self._guard(go)
        self._push_url()

    def _draw_later(self, tab: str, draw: Callable[[], bytes]) -> None:
        """Draw a figure on a thread of its own: the numbers are on screen first, the
        figure follows at the next poll (a newer request makes an older figure stale)."""
        self._request[tab] += 1
        number, lang = self._request[tab], self.state.lang

        def run():
            try:
                with language(lang), carrying(self.rules):
                    self._figures[tab] = (number, draw())
            except Exception:  # a figure never takes the page down
                log.error("workbench: %s", traceback.format_exc())

        threading.Thread(target=run, daemon=True, name=f"workbench-{tab}-figure").start()

    def refresh_checks(self) -> None:
        c = self.state.check
        r = model.check_result(c, figure=False)
        self.c_sentence.object = r.sentence
        self._draw_later("checks", lambda: model.check_figure(c, r))
        self.c_table.object = _frame(r.pivot.reset_index(), percent_cols=tuple(r.pivot.columns))
        self.c_solve.object = None if r.solve is None else _frame(
            r.solve[["axis", "competence", "difficulty", "p", "target"]], ("target",))
        self.c_command.object = _code("\n".join(x for x in (r.command, r.solve_command)
                                                if x))

    def _on_duel_system(self, event) -> None:
        def go():
            self.state.duel = model.default_duel(event.new)
            with language(self.state.lang):
                self._duel_widgets()
                self.refresh_duel()
        self._guard(go)
        self._push_url()

    def _read_duel(self) -> model.DuelState:
        d = self.state.duel
        new = model.DuelState(
            d.system, model.check_archetype(d.system, self.d_a.value, "A"),
            model.check_archetype(d.system, self.d_b.value, "B"))
        for key, w in self.d_gear.items():
            setattr(new, key, (model.check_gear(d.system, key.split("_")[0], w.value)
                               if w.value != OWN else None))
        new.distance = model.check_distance_m(d.system, self.d_distance.value)
        new.aftermath = model.check_aftermath(self.d_aftermath.value)
        new.method = model.check_method(self.d_method.value)
        from analysis import limits

        new.trials = limits.trials(self.d_trials.value, _("Monte Carlo fights"))
        new.seed = limits.bounded_int(self.d_seed.value, 0, 2**63 - 1, "a seed", _("Seed"))
        new.round_cap = limits.round_cap(self.d_cap.value, _("Round cap"))
        new.variants = model.duel_variants(d.system,
                                           {k: w.value for k, w in self._d_vars.items()})
        return new

    def _on_duel(self, _event=None) -> None:
        if self._updating:
            return

        def go():
            self.state.duel = self._read_duel()
            with language(self.state.lang):
                self.refresh_duel()
            self._say([])
        self._guard(go)
        self._push_url()

    def refresh_duel(self) -> None:
        """The exact duel now; with Monte Carlo chosen, what the Run button will do."""
        d = self.state.duel
        self.d_run.disabled = d.method != "mc" or self._busy.locked()
        if d.method == "mc":
            self.d_command.object = _code(self._with_rules(model.duel_command(d)))
            self.d_status.object = _("Press “Run Monte Carlo”: {n} fights from seed "
                                     "{seed}.").format(n=d.trials, seed=d.seed)
            return
        self.d_status.object = ""
        try:
            r = model.duel_result(d, figure=False)
        except InputError as exc:
            self.d_sentence.object = ""
            self.d_summary.object = self.d_one_hit.object = self.d_figure.object = None
            self.d_command.object = _code(self._with_rules(model.duel_command(d)))
            raise InputError(f"{exc} — " + _("choose Monte Carlo to simulate this duel")) \
                from None
        self._show_duel(r)

    def _show_duel(self, r: model.DuelResult) -> None:
        import pandas as pd

        d = self.state.duel
        if r.figure:
            self._request["duel"] += 1
        else:
            self._draw_later("duel", lambda: model.duel_figure(d, r))
        keys = ["method", "trials", "p_side0", "se_side0", "p_side1", "se_side1",
                "p_neither", "se_neither", "p_loser_dead", "p_loser_dying", "p_loser_out",
                "rounds_mean", "rounds_se", "rounds_q50"]
        self.d_sentence.object = r.sentence
        row = {k: r.row[k] for k in keys}
        if row["method"] == "exact":  # no trials and no standard errors to show
            keys = [k for k in keys if k != "trials" and not k.startswith(("se_", "rounds_se"))]
            row = {k: row[k] for k in keys}
        self.d_summary.object = _frame(pd.DataFrame([row]))
        self.d_one_hit.object = _frame(r.one_hit)
        if r.figure:
            self.d_figure.object = r.figure
        self.d_command.object = _code(self._with_rules(r.command) + "\n"
                                      + self._with_rules(r.one_hit_command))

    def _on_run_mc(self, _event=None) -> None:
        def go():
            d = self._read_duel()
            self.state.duel = d
            if d.method != "mc":
                return
            if not self._busy.acquire(blocking=False):
                raise InputError(_("A run is already going; press Stop first."))
            self._stop.clear()
            self._job = {"kind": "mc", "done": 0, "total": d.trials, "result": None,
                         "error": None, "lang": self.state.lang}
            self.d_run.disabled, self.d_stop.disabled = True, False
            self.d_progress.value, self.d_progress.visible = 0, True
            self.d_status.object = _("Running {n} fights…").format(n=d.trials)
            threading.Thread(target=self._mc_thread, args=(d, self._job), daemon=True,
                             name="workbench-mc").start()
        self._guard(go)
        self._push_url()

    def _mc_thread(self, d: model.DuelState, job: dict) -> None:
        def batch(done: int, total: int) -> None:
            job["done"] = done
            if self._stop.is_set():
                raise model.Cancelled

        try:
            with language(job["lang"]), carrying(self.rules):
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

    def poll(self) -> None:
        """Called every few tenths of a second: report the background run's progress
        and show its result when it is done (the page never waits for it)."""
        for tab, pane in (("checks", self.c_figure), ("duel", self.d_figure)):
            number, png = self._figures.get(tab, (None, None))
            if number is not None and number == self._request[tab]:
                pane.object = png
                self._figures.pop(tab, None)
        job = self._job
        if not job:
            return
        with language(self.state.lang):
            if job["kind"] == "mc":
                self.d_progress.value = int(100 * job["done"] / max(job["total"], 1))
                if not job.get("finished"):
                    self.d_status.object = _("Running: {done} of {n} fights…").format(
                        done=job["done"], n=job["total"])
                    return
                self.d_stop.disabled, self.d_progress.visible = True, False
                self.d_run.disabled = self.state.duel.method != "mc"
                if job["error"] == "stopped":
                    self.d_status.object = _("Stopped between batches after {done} of {n} "
                                             "fights; nothing is shown for a partial "
                                             "run.").format(done=job["done"], n=job["total"])
                elif job["error"]:
                    self.d_status.object = job["error"]
                else:
                    self.d_status.object = _("Done: {n} fights.").format(n=job["total"])
                    self._show_duel(job["result"])
            else:
                if not job.get("finished"):
                    return
                self.g_run.disabled = False
                if job["error"]:
                    self.g_status.object = job["error"]
                else:
                    self._audit = job["result"]
                    self.show_audit()
        self._job = {}

    # ------------------------------------------------------------------ audit

    def show_audit(self) -> None:
        """The last audit in the language in force: the counts, then one row per
        guardrail with its reason, cure and the command that prints its value."""
        from ..i18n import localise_table

        t = self._audit
        if t is None:
            return
        self.g_status.object = _("{n} guardrails: {passed} pass, {failed} fail, {other} "
                                 "undecided.").format(
            n=len(t), passed=int((t["status"] == "pass").sum()),
            failed=int((t["status"] == "fail").sum()),
            other=int((~t["status"].isin(["pass", "fail"])).sum()))
        shown = t[[c for c in model.AUDIT_COLUMNS if c in t.columns]].copy()
        for col in ("value", "se"):
            shown[col] = [f"{x:.4g}" for x in shown[col]]
        self.g_table.object = localise_table(shown, self.state.lang, "csv",
                                             prose=("suggestion", "reason"))

    def _on_audit_setting(self, _event=None) -> None:
        def go():
            self.state.audit = model.AuditState(self.g_source.value,
                                                bool(self.g_suggest.value))
            with language(self.state.lang):
                self._audit_command()
        self._guard(go)
        self._push_url()

    def _audit_command(self) -> None:
        a = self.state.audit
        self.g_command.object = _code(self._with_rules(
            model.audit_command(a.source, self.guardrails, a.suggest)))

    def _with_rules(self, command: str) -> str:
        """A command with the page's rules files (``--rules FILE``), so it prints the
        page's numbers."""
        import shlex

        return command + "".join(f" --rules {shlex.quote(f)}" for f in self.rule_files)

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
                        job["result"] = model.audit_result(scenarios, suggest=suggest,
                                                           files=files)
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


def create_page(guardrails: str | None = None, lang: str = "en", rules=None,
                rule_files: tuple[str, ...] = ()):
    """The Panel app function: one :class:`Workbench` per browser tab, computing under
    ``rules`` (:mod:`analysis.rules`; None: the package's)."""
    def page():
        query = dict(pn.state.session_args or {})
        try:
            wb = Workbench(query, guardrails, lang, rules=rules or {},
                           rule_files=rule_files)
        except Exception as exc:  # never a traceback on the page
            log.error("workbench: %s", traceback.format_exc())
            return pn.pane.Alert(f"{type(exc).__name__}: {exc}", alert_type="danger")
        wb.sync_location()
        pn.state.add_periodic_callback(wb.poll, period=150)
        with language(wb.state.lang):
            title = "rpg-balance — " + _("live workbench")
        wb.root.title = title
        pn.state.curdoc.title = title
        return wb.root
    return page


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on now (``--port 0``)."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def serve(host: str = "127.0.0.1", port: int = 5006, *, show: bool = True,
          guardrails: str | None = None, lang: str = "en", ready: Callable | None = None,
          warm: bool = True, rules=None, rule_files: tuple[str, ...] = ()):
    """Serve the workbench until Ctrl-C; ``ready(url)`` is called once it listens.
    ``warm``: first compute each system's default view once in this process (numba
    loads its cached kernels, the archetype libraries are read), so the first page
    answers at once. ``rules``: the rules every page computes under (default: those in
    force now, e.g. ``serve --rules FILE``'s), whatever thread or task the server runs a
    page's callback on; ``rule_files``: their files, added to the commands the page
    shows."""
    from analysis.rules import in_force

    rules = in_force() if rules is None else rules
    if warm:
        with carrying(rules):
            model.warm()
    pn.extension(design=None, notifications=False)
    pn.config.nthreads = 4
    if port == 0:
        port = free_port(host)
    origins = [f"127.0.0.1:{port}", f"localhost:{port}"]
    if host not in ("127.0.0.1", "localhost"):
        origins.append("*" if host in ("0.0.0.0", "::") else f"{host}:{port}")
    page = create_page(guardrails, lang, rules, rule_files)
    server = pn.serve({"/": page}, address=host, port=port,
                      show=False, start=False, threaded=False, title="rpg-balance",
                      websocket_origin=origins, verbose=False, print_url=False)
    actual = server.port
    shown = "127.0.0.1" if host in ("127.0.0.1", "0.0.0.0") else host
    url = f"http://{shown}:{actual}/"
    if ready is not None:
        ready(url)
    if show:
        import webbrowser

        webbrowser.open(url)
    try:
        server.start()
        server.io_loop.start()
    except KeyboardInterrupt:
        pass
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        # a figure still being drawn (matplotlib's C++ inside a daemon thread) would abort
        # the interpreter's exit ("terminate called without an active exception")
        for t in threading.enumerate():
            if t.name.startswith("workbench-") and t.name.endswith("-figure"):
                t.join(5)
        print("stopped", file=sys.stderr)
