"""A/B on the workbench page: "Pin as A" keeps the whole setup on screen (the page's
state, every key of its address but the tab and the language) as A; whatever the
designer changes after is B, shown beside A on every tab — the duel's every figure of A,
of B and B − A (with the SE of the difference for Monte Carlo, :mod:`.model.compare`),
the two check curves on one figure and their difference, and the guardrails whose
verdict flipped. Each side's command is shown; A's results are cached, so an update
computes B alone (a mixin of :class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import copy

import panel as pn

from analysis.rules_in_force import only

from ..i18n import _, language
from ..rules_words import rules_sets
from . import model
from .common import code_block, frame
from .model.compare import check_figure
from .page_base import PageBase
from .words import MISSING, abbr, column_words

__all__ = ["PinTab", "flips_frame"]


def _cell(figure: str, value: float, column: str) -> str:
    """One cell of the duel's A/B table: chances as percentages (the difference and its
    SE in percentage points), rounds as decimals."""
    import math

    if value is None or math.isnan(value):
        return ""
    value = round(float(value), 12) + 0.0  # no "-0.00" from a rounding residue
    name = figure.split(".")[-1]
    chance = name == "p" or name.startswith("p_")
    from ..i18n import decimal, percent

    def signed(x: float, digits: int) -> str:  # the language's decimal mark (words.py)
        return ("-" if x < 0 else "+") + decimal(abs(x), digits)

    if column == "diff":  # rounded first: no "-0.00" for a difference under the last digit
        return (
            f"{signed(round(100 * value, 2) + 0.0, 2)} pp"
            if chance
            else signed(round(value, 3) + 0.0, 3)
        )
    if column == "se_diff":
        return f"{decimal(100 * value, 2)} pp" if chance else decimal(value, 3)
    return percent(value, 2, fixed=True) if chance else decimal(value, 3)


def flips_frame(flips):
    """The audit's flipped verdicts as the page shows them: each value as the audit
    table says it (:func:`analysis.glossary.figure_phrase`, never ``0.4463``'s raw
    digits), verdicts and ids in words, the guardrail in the language in force."""
    import html

    from analysis.glossary import figure_phrase

    from ..i18n import text

    out = flips.copy()
    metrics = [str(m) for m in out["metric"]]
    for col in ("value_A", "value_B"):
        out[col] = [
            MISSING if v is None or v != v else text(figure_phrase(m, v))
            for m, v in zip(metrics, out[col], strict=True)
        ]
    out["guardrail"] = [text(x) for x in out["guardrail"]]
    shown = frame(out)
    for col in ("guardrail", "value_A", "value_B"):  # sentences: escaped, not read as ids
        shown[abbr(column_words(col), col)] = [html.escape(str(x)) for x in out[col]]
    return shown


class PinTab(PageBase):
    """The Pin as A / Unpin buttons and each tab's A/B panes."""

    def _build_pin(self) -> None:
        self.p_pin = pn.widgets.Button(label=_("Pin as A"), color="primary", width=120)
        self.p_unpin = pn.widgets.Button(
            label=_("Unpin A"), width=120, disabled=self.state.pinned is None
        )
        self.p_status = pn.pane.Markdown("")
        self.p_duel = pn.Column()
        self.p_checks = pn.Column()
        self.p_audit = pn.Column()
        self._pin_cache: dict = {}  # (kind, repr of A's setup) → A's result
        self._pin_upload: tuple[str, bytes] | None = None
        self._d_last = None  # the DuelResult last shown (B's)
        self.p_pin.on_click(self._on_pin)
        self.p_unpin.on_click(self._on_unpin)
        self._pin_words()

    def _pin_bar(self) -> pn.Row:
        return pn.Row(self.p_pin, self.p_unpin, self.p_status)

    def _pin_words(self) -> None:
        self.p_pin.label, self.p_unpin.label = _("Pin as A"), _("Unpin A")
        self.p_unpin.disabled = self.state.pinned is None
        self.p_status.object = (
            _("A is pinned: every tab shows B (the setup on screen) beside A.")
            if self.state.pinned is not None
            else ""
        )

    # ------------------------------------------------------------------ callbacks

    def _on_pin(self, _event=None) -> None:
        def go():
            a = copy.deepcopy(self.state)
            base = model.default_state()
            a.pinned, a.tab, a.lang = None, base.tab, base.lang  # the page's, not A's
            self.state.pinned = a
            self._pin_cache.clear()
            # the duel on screen is A's when its command is A's (a Monte Carlo result
            # shown after the settings moved on is not); an audit on screen is not
            # reused (it may be of another source), A's is run with B's
            last = self._d_last
            if last is not None and last.command == model.duel_command(a.duel):
                self._pin_cache[("duel", repr(a.duel), repr(a.edits))] = last
            self._pin_upload = self._upload
            self._refresh_all()

        self._guard(go)
        self._push_url()

    def _on_unpin(self, _event=None) -> None:
        def go():
            self.state.pinned = None
            self._pin_cache.clear()
            self._refresh_all()

        self._guard(go)
        self._push_url()

    def _refresh_all(self) -> None:
        with language(self.state.lang):
            self._pin_words()
            self.refresh_checks()
            self.refresh_duel()
            self.show_audit()

    # ------------------------------------------------------------------ duel

    def pinned_duel(self, mc: bool = False, on_batch=None):
        """A's duel result, cached; an exact one is computed when first needed, a Monte
        Carlo one only when ``mc`` (on the Monte Carlo thread); None when not at hand."""
        a = self.state.pinned
        if a is None:
            return None
        key = ("duel", repr(a.duel), repr(a.edits))
        if key not in self._pin_cache and (a.duel.method == "exact" or mc):
            with only(self._pinned_rules()):
                self._pin_cache[key] = model.duel_result(a.duel, figure=False, on_batch=on_batch)
        return self._pin_cache.get(key)

    def _compare_duel(self, r) -> None:
        """The A/B pane of the Duel tab under B's result ``r`` (None: B not computed).
        Its panes are made once and updated in place (an update sends only what
        changed)."""
        self._d_last = r
        a = self.state.pinned
        self.p_duel.visible = a is not None
        if a is None:
            return
        if not self.p_duel.objects:
            self._d_panes = (
                pn.pane.Markdown(""),
                pn.pane.Markdown(""),
                pn.pane.DataFrame(None, index=False, escape=False),  # abbr
                pn.pane.Markdown(""),
            )
            self.p_duel.objects = list(self._d_panes)
        head, text, table, commands = self._d_panes
        head.object = "### " + _("A/B: B (on screen) − A (pinned)")
        ra = self.pinned_duel()
        if ra is None or r is None:
            text.object = (
                _("A is a Monte Carlo run: press “Run Monte Carlo” to run A and B.")
                if ra is None
                else _("B is a Monte Carlo run: press “Run Monte Carlo”.")
            )
            table.object = None
            commands.object = self._commands(
                model.duel_command(a.duel), model.duel_command(self.state.duel)
            )
            return
        t = model.duel_table(ra, r)
        shown = t.copy()
        for col in ("A", "B", "diff", "se_diff"):
            shown[col] = [_cell(f, v, col) for f, v in zip(t["figure"], t[col], strict=True)]
        from reports.labels import header

        shown["figure"] = [self._figure_words(f, header) for f in t["figure"]]
        if t["se_diff"].isna().all():
            shown = shown.drop(columns="se_diff")
        shown = shown.rename(
            columns={"figure": _("figure"), "diff": "B − A", "se_diff": _("SE of B − A")}
        )
        wins = t[t["figure"] == "p_side0"].iloc[0]
        sentence = _("A wins: {a} under A, {b} under B; B − A = {d}.").format(
            a=_cell("p_side0", wins["A"], "A"),
            b=_cell("p_side0", wins["B"], "B"),
            d=_cell("p_side0", wins["diff"], "diff"),
        )
        note = model.se_note(a.duel, self.state.duel)
        text.object = sentence + (f"\n\n{note}" if note else "")
        table.object = shown
        commands.object = self._commands(ra.command, r.command)

    @staticmethod
    def _figure_words(figure: str, header) -> str:
        """A figure of the duel's A/B table in words, its identifier in a tooltip."""
        if figure.startswith("one_hit_"):
            side, key = figure[len("one_hit_") :].split(".")
            return abbr(
                _("{figure}, one attack by {side}").format(figure=header(key), side=side), key
            )
        return abbr(header(figure), figure)

    def _pinned_rules(self):
        """The rules A computes under: the page's base rules with A's own edits."""
        edits = getattr(self.state.pinned, "edits", {})
        return rules_sets(model.page_rules(self._base_rules, edits))

    def _with_pinned_rules(self, command: str) -> str:
        """A's command: the page's rules files and A's own edits (``--set``)."""
        import shlex

        return (
            command
            + "".join(f" --rules {shlex.quote(f)}" for f in self.rule_files)
            + "".join(f" {w}" for w in model.edit_args(getattr(self.state.pinned, "edits", {})))
        )

    def _commands(self, a: str, b: str) -> str:
        """Each side's command, so each prints its own numbers."""
        return (
            "**"
            + _("A on the command line")
            + "**\n\n"
            + code_block(self._with_pinned_rules(a))
            + "\n\n**"
            + _("B on the command line")
            + "**\n\n"
            + code_block(self._with_rules(b))
        )

    # ------------------------------------------------------------------ checks

    def _compare_checks(self, r) -> None:
        """The A/B pane of the Checks tab under B's result ``r``: the two curves on one
        figure (in place of B's) and the difference cell by cell."""
        a = self.state.pinned
        if a is None:
            self.p_checks.objects = []
            return
        from engines.system import get

        key = ("checks", repr(a.check), repr(a.edits))
        if key not in self._pin_cache:
            with only(self._pinned_rules()):
                self._pin_cache[key] = model.check_result(a.check, figure=False)
        ra = self._pin_cache[key]
        c = self.state.check
        self._draw_later("checks", lambda: check_figure(ra, r, get(c.system)))
        head = pn.pane.Markdown("### " + _("A/B: B (on screen) − A (pinned)"))
        t = model.check_table(ra, r)
        body: pn.pane.PaneBase
        if t is None:
            body = pn.pane.Markdown(
                _("A and B share no cell of the curves (another system or another slice).")
            )
        else:
            shown = t.copy()
            shown["diff"] = [_cell("p", x, "diff") for x in t["diff"]]
            shown = frame(shown, percent_cols=("p_A", "p_B")).rename(columns={"diff": "B − A"})
            body = pn.pane.DataFrame(
                shown, index=False, max_rows=60, escape=False, sizing_mode="stretch_width"
            )  # words.frame's HTML
        self.p_checks.objects = [
            head,
            body,
            pn.pane.Markdown(self._commands(ra.command, r.command)),
        ]

    # ------------------------------------------------------------------ audit

    def _pinned_scenarios(self):
        """A's guardrails: the shipped file, the served file, or the file uploaded when
        A was pinned."""
        from analysis.workflow import audit

        src = self.state.pinned.audit.source
        if src == "default":
            return audit.load_guardrails(None), None
        if src == "file":
            return audit.load_guardrails([self.guardrails]), [self.guardrails]
        if self._pin_upload is None:
            return None, None
        name, data = self._pin_upload
        return model.load_upload(data, name), [name]

    def pinned_audit(self):
        """A's audit table, cached (computed on the audit's thread when first needed);
        None when nothing is pinned or A's uploaded file is gone."""
        a = self.state.pinned
        if a is None:
            return None
        key = ("audit", repr(a.audit), repr(a.edits))
        if key not in self._pin_cache:
            scenarios, files = self._pinned_scenarios()
            if scenarios is None:
                return None
            with only(self._pinned_rules()):
                self._pin_cache[key] = model.audit_result(
                    scenarios, suggest=a.audit.suggest, files=files
                )
        return self._pin_cache[key]

    def _compare_audit(self) -> None:
        """The guardrails whose verdict flipped between A's audit and B's (once both
        ran)."""
        a = self.state.pinned
        key = None if a is None else ("audit", repr(a.audit), repr(a.edits))
        if a is None or self._audit is None or key not in self._pin_cache:
            self.p_audit.objects = []
            return
        flips = model.audit_flips(self._pin_cache[key], self._audit)
        head = pn.pane.Markdown("### " + _("A/B: verdicts that flipped between A and B"))
        body: pn.pane.PaneBase
        if flips.empty:
            body = pn.pane.Markdown(_("No verdict changed between A and B."))
        else:
            body = pn.pane.DataFrame(
                flips_frame(flips), index=False, escape=False, sizing_mode="stretch_width"
            )  # words.frame's HTML
        self.p_audit.objects = [
            head,
            body,
            pn.pane.Markdown(
                self._commands(
                    model.audit_command(a.audit.source, self.guardrails, a.audit.suggest),
                    model.audit_command(
                        self.state.audit.source, self.guardrails, self.state.audit.suggest
                    ),
                )
            ),
        ]
