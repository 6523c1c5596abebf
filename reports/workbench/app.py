"""The workbench page (Panel) over :mod:`reports.workbench.model`, and :func:`serve`.

Panel fits a numba-backed library: its widgets are ``param`` objects, the address bar's
query is synced with ``pn.state.location.sync``, event callbacks run on a thread pool,
and the page is served by Bokeh's Tornado server with its own static assets (no CDN),
so it works offline. One :class:`Workbench` per browser tab; the numbers come from the
model under its engine lock.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
from collections.abc import Callable

__all__ = ["GEAR_WORDS", "OWN", "UrlState", "Workbench", "create_page", "free_port", "log", "serve"]

# every script and style sheet from this server, none from a CDN (set before bokeh loads)
os.environ.setdefault("BOKEH_RESOURCES", "server")

import panel as pn
import param

from engines.constants import AFTERMATHS
from engines.errors import InputError

from ..i18n import LANGUAGES, _, language
from ..rules_words import carrying, rules_line, rules_sets
from . import model, words
from .common import GEAR_WORDS, OWN, log
from .tab_audit import AuditTab
from .tab_checks import ChecksTab
from .tab_distance import DistanceTab
from .tab_duel import DuelTab
from .tab_groups import GroupsTab
from .tab_pin import PinTab
from .tab_rules import RulesTab
from .tab_sensitivity import SensitivityTab


def _url_class():
    return param.parameterized_class(
        "WorkbenchQuery", {model.url_param(k): param.String(default="") for k in model.QUERY_KEYS}
    )


UrlState = _url_class()


class Workbench(
    ChecksTab, DuelTab, DistanceTab, AuditTab, GroupsTab, SensitivityTab, RulesTab, PinTab
):
    """One browser tab's page: widgets built from the state, tabs, results (each tab's
    part in its mixin: :mod:`.tab_checks`, :mod:`.tab_duel`, :mod:`.tab_audit`; the
    page's edits of the rules and traits: :mod:`.tab_rules`; A/B: :mod:`.tab_pin`)."""

    def __init__(
        self,
        query: dict,
        guardrails: str | None = None,
        lang: str = "en",
        rules=None,
        rule_files: tuple[str, ...] = (),
    ):
        from analysis.rules import in_force

        self.guardrails = guardrails
        # the rules this page computes under (``serve --rules``; default: those in force
        # now), carried into every callback and thread (:func:`carrying`)
        self.rules = rules_sets(in_force() if rules is None else rules)
        self.rule_files = tuple(rule_files)
        with carrying(self.rules):
            self.state, messages = model.parse_query(query, guardrails)
        self._apply_edits()  # the page's edits over ``self.rules`` (self._base_rules)
        if "lang" not in {str(k) for k in query}:
            self.state.lang = lang
        self._busy = threading.Lock()  # one background run (MC or audit) at a time
        self._stop = threading.Event()
        self._job: dict = {}  # what the background thread reports
        self._upload: tuple[str, bytes] | None = None
        self._audit = None  # the last audit table (English)
        self._figures: dict = {}  # tab → (request number, PNG) drawn after
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
        self.lang = pn.widgets.Select(
            label=_("Language"), options=list(LANGUAGES), value=s.lang, width=120
        )
        self.lang.param.watch(self._on_lang, "value")
        self.messages = pn.pane.Alert("", alert_type="warning", visible=False)
        self._build_pin()
        self._build_checks()
        self._build_distance()
        self._build_rules()
        self._build_duel()
        self._build_audit()
        self._build_groups()
        self._build_sensitivity()
        self.root = pn.Column(sizing_mode="stretch_width")
        self._layout()

    def _layout(self) -> None:
        checks, duel, audit = self._checks_pane(), self._duel_pane(), self._audit_pane()
        # a new Tabs each time: its titles are in the language in force
        self.tabs = pn.Tabs(
            (_("Checks"), checks),
            (_("Duel"), duel),
            (_("Audit"), audit),
            (_("Groups"), self._groups_pane()),
            (_("Sensitivity"), self._sensitivity_pane()),
            dynamic=False,
            active=model.TABS.index(self.state.tab),
        )
        self.tabs.param.watch(self._on_tab, "active")
        header = pn.Row(
            pn.pane.Markdown("## rpg-balance — " + _("live workbench")),
            self._pin_bar(),
            pn.layout.HSpacer(),
            self.lang,
        )
        top: list[pn.viewable.Viewable] = [header]
        if self._base_rules:
            top.append(
                pn.pane.Markdown(
                    _(
                        "Rules files in force (every number on this page "
                        "is computed with them): {rules}"
                    ).format(rules=f"`{rules_line(self._base_rules)}`")
                )
            )
        self.root.objects = [*top, self.messages, self.tabs]

    def _variant_widgets(
        self, system: str, fields: list[dict], given: dict, box: pn.Column, callback: Callable
    ) -> dict:
        """One menu (or text box) per rule variant, named in the glossary's words with
        its rule id; the ``--variant NAME=VALUE`` it sets in the tooltip."""
        widgets = {}
        for f in fields:
            value = given.get(f["name"], f["default"])
            label = words.variant_label(system, f["name"])
            tip = words.tip(f["name"], f"--variant {f['name']}=…")
            w: pn.widgets.Widget
            if f["choices"] is not None:
                w = pn.widgets.Select(
                    label=label,
                    value=value,
                    width=210,
                    description=tip,
                    options=words.variant_options(system, f["name"], f["choices"]),
                )
            else:
                w = pn.widgets.TextInput(label=label, value=value, width=210, description=tip)
            w.param.watch(callback, "value")
            widgets[f["name"]] = w
        box.objects = [pn.FlexBox(*widgets.values())]
        return widgets

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
        the page keeps serving either way. It runs in the page's language (a button's
        callback, "Auditing…", speaks it too)."""
        try:
            with carrying(self.rules), language(self.state.lang):
                fn(*args)
            return True
        except InputError as exc:
            self._say([str(exc)])
        except Exception as exc:  # the page must keep serving
            log.error("workbench: %s", traceback.format_exc())
            self._say([_("Internal error: {error}").format(error=f"{type(exc).__name__}: {exc}")])
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
        assert location is not None  # a page served in a browser session has one
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
                self.refresh_distance()
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
        self.d_aftermath.options = words.options(AFTERMATHS)
        self.d_trials.label = _("Monte Carlo fights")
        self.d_seed.label = _("Seed")
        self.d_cap.label = _("Round cap")
        self.d_run.label, self.d_stop.label = _("Run Monte Carlo"), _("Stop")
        self.d_method.options = {_("exact"): "exact", _("Monte Carlo"): "mc"}
        self.d_method.label = _("Method")
        self.g_source.options = self._sources()
        self.g_suggest.label = _("Search a cure for each failure")
        self.g_source.label = _("Guardrails")
        self.g_run.label = _("Run the audit")
        self.d_distances.label = _("Starting distances (metres)")
        self.f_scenario.label, self.f_run.label = _("Matchup file"), _("Run the group fight")
        self.f_trials.label = _("Fights of the group (Monte Carlo)")
        self.f_seed.label = _("Random seed of the group fight")
        self.f_stop.label, self.s_run.label = _("Stop"), _("Run the sensitivity")
        self.s_stop.label = _("Stop")
        self.f_scenario.options, self.s_source.options = (
            self._group_options(),
            self._knob_sources(),
        )
        self._rules_labels()
        self._pin_words()
        self._check_widgets()
        self._duel_widgets()
        self._layout()

    def _on_tab(self, event) -> None:
        self.state.tab = model.TABS[event.new]
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
            poll = {
                "mc": self._poll_duel,
                "audit": self._poll_audit,
                "groups": self._poll_groups,
                "sensitivity": self._poll_sensitivity,
            }
            if not poll[job["kind"]](job):
                return
        self._job = {}

    # ------------------------------------------------------------------ audit

    def _with_rules(self, command: str) -> str:
        """A command with the page's rules files (``--rules FILE``) and its edits of the
        rules (``--set SYSTEM:KNOB=VALUE``), so it prints the page's numbers."""
        import shlex

        return (
            command
            + "".join(f" --rules {shlex.quote(f)}" for f in self.rule_files)
            + "".join(f" {w}" for w in self._edit_words())
        )


def create_page(
    guardrails: str | None = None, lang: str = "en", rules=None, rule_files: tuple[str, ...] = ()
):
    """The Panel app function: one :class:`Workbench` per browser tab, computing under
    ``rules`` (:mod:`analysis.rules`; None: the package's)."""

    def page():
        query = dict(pn.state.session_args or {})
        try:
            wb = Workbench(query, guardrails, lang, rules=rules or {}, rule_files=rule_files)
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


def serve(
    host: str = "127.0.0.1",
    port: int = 5006,
    *,
    show: bool = True,
    guardrails: str | None = None,
    lang: str = "en",
    ready: Callable | None = None,
    warm: bool = True,
    rules=None,
    rule_files: tuple[str, ...] = (),
):
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
    pn.config.nthreads = 4  # type: ignore[misc]  # a property, set through config's __setattr__
    if port == 0:
        port = free_port(host)
    origins = [f"127.0.0.1:{port}", f"localhost:{port}"]
    if host not in ("127.0.0.1", "localhost"):
        origins.append("*" if host in ("0.0.0.0", "::") else f"{host}:{port}")
    page = create_page(guardrails, lang, rules, rule_files)
    server = pn.serve(
        {"/": page},
        address=host,
        port=port,
        show=False,
        start=False,
        threaded=False,
        title="rpg-balance",
        websocket_origin=origins,
        verbose=False,
        print_url=False,
    )
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
