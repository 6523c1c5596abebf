"""The Duel tab's additions: the deadliness of the duel beside its summary (the
lethality fates and deaths, ``duel``'s summary columns), and the distance table of a
system with distance rules (``duel --table distance --distances …``, exact) with its
figure, computed when its card is opened (a mixin of
:class:`reports.workbench.app.Workbench`)."""

from __future__ import annotations

import panel as pn

from ..i18n import _
from . import model
from .common import code_block, frame
from .page_base import PageBase

__all__ = ["DEADLINESS", "DistanceTab", "figure_table"]

#: the deadliness columns of the duel's summary row (RULES.md "Lethality outcomes",
#: LO-r3): the loser's fates among decided fights, someone dead, the mean dead
DEADLINESS = (
    ("p_loser_dead", "se_loser_dead"),
    ("p_loser_dying", "se_loser_dying"),
    ("p_loser_out", "se_loser_out"),
    ("p_someone_dead", "se_someone_dead"),
    ("deaths_mean", "se_deaths_mean"),
)


def figure_table(row: dict, pairs, exact: bool = False, names: dict | None = None):
    """Figures of a summary row as the page shows them: one row per figure, its words
    (:func:`reports.labels.header`, or ``names``), its value and, with Monte Carlo, its
    standard error (chances as percentages with 2 decimals, counts with 4)."""
    import pandas as pd

    from ..labels import header

    def shown(key: str, x) -> str:
        from ..i18n import decimal, percent

        # the language's decimal mark (:mod:`.words`)
        return percent(float(x), 2, fixed=True) if key.startswith("p_") else decimal(float(x), 4)

    rows = []
    for key, se in pairs:
        one = {_("figure"): (names or {}).get(key) or header(key), _("value"): shown(key, row[key])}
        if not exact:
            one[_("SE")] = shown(key, row[se])
        rows.append(one)
    return pd.DataFrame(rows)


class DistanceTab(PageBase):
    """The widgets and results of the deadliness table and the distance card."""

    def _build_distance(self) -> None:
        d = self.state.duel
        self.d_deadly = pn.pane.DataFrame(None, index=False)
        self.d_distances = pn.widgets.TextInput(
            label=_("Starting distances (metres)"), value=d.distances, width=260
        )
        self.d_dist_table = pn.pane.DataFrame(None, index=False, escape=False)  # words.frame
        self.d_dist_figure = pn.pane.PNG(None, width=750)
        self.d_dist_command = pn.pane.Markdown("")
        self.d_dist_same = pn.pane.Markdown("")
        self.d_dist_card = pn.Card(
            self.d_distances,
            self.d_dist_table,
            self.d_dist_figure,
            self.d_dist_same,
            self.d_dist_command,
            title=_("Distance table (exact)"),
            collapsed=True,
        )
        self.d_distances.param.watch(self._on_distances, "value")
        self.d_dist_card.param.watch(lambda _e: self._guard(self.refresh_distance), "collapsed")

    def _distance_pane(self) -> list:
        """What the Duel tab shows after the summary: the deadliness table and the card."""
        from analysis.combat.lethality import has_distance

        self.d_dist_card.title = _("Distance table (exact)")
        self.d_dist_same.object = "**" + _("The same numbers on the command line") + "**"
        self.d_dist_card.visible = has_distance(self.state.duel.system)
        return [
            pn.pane.Markdown("**" + _("How deadly the duel is") + "**"),
            self.d_deadly,
            self.d_dist_card,
        ]

    def show_deadliness(self, row: dict) -> None:
        """The deadliness figures of a duel's summary row (the same columns as the
        command's; with Monte Carlo, each with its standard error)."""
        self.d_deadly.object = figure_table(row, DEADLINESS, row["method"] == "exact")

    def _on_distances(self, event) -> None:
        if self._updating:
            return

        def go():
            self.state.duel.distances = model.check_distances(self.state.duel.system, event.new)
            self.refresh_distance()
            self._say([])

        self._guard(go)
        self._push_url()

    def refresh_distance(self) -> None:
        """The distance table of the duel on screen, when its card is open and the
        system has distance rules."""
        from analysis.combat.lethality import has_distance

        d = self.state.duel
        self.d_dist_card.visible = has_distance(d.system)
        if self.d_dist_card.collapsed or not has_distance(d.system):
            return
        self._updating = True
        try:
            self.d_distances.value = d.distances
        finally:
            self._updating = False
        self.d_dist_command.object = code_block(self._with_rules(model.distance_command(d)))
        r = model.distance_result(d)
        keys = [
            "distance",
            "p_side0",
            "p_side1",
            "p_neither",
            "p_loser_dead",
            "p_loser_dying",
            "p_loser_out",
            "p_someone_dead",
            "deaths_mean",
            "rounds_mean",
        ]
        self.d_dist_table.object = frame(r.table[[k for k in keys if k in r.table]])
        self.d_dist_figure.object = r.figure
