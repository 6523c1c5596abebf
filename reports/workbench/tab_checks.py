"""The Checks tab of the workbench: success curves, the difficulty solver, their figure
and command (a mixin of :class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import panel as pn

from ..i18n import _, language
from ..labels import header
from . import model, words
from .common import code_block, frame
from .page_base import PageBase

__all__ = ["ChecksTab"]


class ChecksTab(PageBase):
    """The widgets, callbacks and results of the Checks tab."""

    def _build_checks(self) -> None:
        self.c_system = pn.widgets.Select(
            label=_("System"),
            options=model.check_systems(),
            value=self.state.check.system,
            description=words.tip("system", "rpg-balance curves SYSTEM"),
        )
        self.c_target = pn.widgets.TextInput(
            label=_("Target chance (0 to 1)"),
            value=repr(float(self.state.check.target)),
            description=words.tip("target", "--target"),
        )
        self.c_comp = pn.widgets.Select(
            label=_("Competence"), description=words.tip("competence", "--competence")
        )
        self.c_variants = pn.Column()
        self.c_axes = pn.Row()
        self.c_sentence = pn.pane.Markdown("")
        self.c_figure = pn.pane.PNG(None, width=750)
        self.c_solve = pn.pane.DataFrame(None, index=False, escape=False)
        self.c_table = pn.pane.DataFrame(
            None, max_rows=60, index=False, escape=False, sizing_mode="stretch_width"
        )
        self.c_command = pn.pane.Markdown("")
        self._check_widgets()
        self.c_system.param.watch(self._on_check_system, "value")
        self.c_target.param.watch(self._on_check, "value")
        self.c_comp.param.watch(self._on_check, "value")

    def _checks_pane(self) -> pn.Column:
        return pn.Column(
            pn.Row(self.c_system, self.c_comp, self.c_target),
            self.c_axes,
            pn.Card(self.c_variants, title=_("Check variants"), collapsed=True),
            self.c_sentence,
            self.c_solve,
            self.c_figure,
            self.c_table,
            self.p_checks,
            pn.pane.Markdown("**" + _("The same numbers on the command line") + "**"),
            self.c_command,
        )

    def _check_widgets(self) -> None:
        from engines.system import get

        c = self.state.check
        spec = get(c.system)
        self._c_vars = self._variant_widgets(
            c.system,
            model.check_variant_fields(c.system),
            c.variants,
            self.c_variants,
            self._on_check,
        )
        self._c_axes = {}
        for name, values in spec.checks.axes.items():
            w = pn.widgets.Select(
                label=words.axis_label(c.system, name),
                options=words.axis_options(
                    c.system, name, [model.variant_text(v) for v in values], model.ALL
                ),
                value=c.axes.get(name, model.ALL),
                width=190,
                description=words.tip(name),
            )
            w.param.watch(self._on_check, "value")
            self._c_axes[name] = w
        self.c_axes.objects = list(self._c_axes.values())
        axis = spec.ladder.competence_axis if spec.ladder else None
        comp = [model.variant_text(v) for v in (spec.checks.axes.get(axis, ()) if axis else ())]
        self.c_comp.label = _("Competence") + (f" ({header(axis)})" if comp else "")
        self.c_comp.options = comp
        self.c_comp.value = c.competence if c.competence in comp else (comp[0] if comp else None)

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
                c.system,
                model.check_variants(c.system, given),
                model.check_axes(c.system, {k: w.value for k, w in self._c_axes.items()}),
                model.check_target(self.c_target.value),
                model.check_competence(c.system, self.c_comp.value) if self.c_comp.options else "",
            )
            self.state.check = new
            with language(self.state.lang):
                self.refresh_checks()
            self._say([])

        self._guard(go)
        self._push_url()

    @staticmethod
    def _pivot_frame(pivot):
        """The checks' grid as the page shows it: its first header names both axes, the
        rows' and the columns' ("pool ↓ · difficulty →"; their ids in its tooltip)."""
        shown = frame(pivot.reset_index(), percent_cols=tuple(pivot.columns))
        rows, cols = pivot.index.name, pivot.columns.name
        if rows and cols:
            shown.columns = [
                words.abbr(
                    f"{words.column_words(rows)} ↓ · {words.column_words(cols)} →",
                    f"{rows} ↓ · {cols} →",
                ),
                *shown.columns[1:],
            ]
        return shown

    def refresh_checks(self) -> None:
        c = self.state.check
        r = model.check_result(c, figure=False)
        self.c_sentence.object = r.sentence
        self._draw_later("checks", lambda: model.check_figure(c, r))
        self.c_table.object = self._pivot_frame(r.pivot)
        if r.solve is None:
            self.c_solve.object = None
        else:
            solve = r.solve[["axis", "competence", "difficulty", "p", "target"]].copy()
            solve["axis"] = [words.abbr(words.axis_words(c.system, x), x) for x in solve["axis"]]
            self.c_solve.object = frame(solve, ("target",))
        self.c_command.object = code_block("\n".join(x for x in (r.command, r.solve_command) if x))
        self._compare_checks(r)
