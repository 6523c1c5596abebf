"""Section: tactics and armour on each system's even duel."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports import plotting
from reports.i18n import N_, _, decimal, text
from reports.labels import cell_words
from reports.sections.combat_common import (
    EFFECT_COLUMNS,
    FATES,
    ROUND_FORMATS,
    aftermath_words,
    combat_frames,
    combat_view,
    cross_source,
    dying_words,
    even_duel_words,
    fate_shares,
    method_note,
)
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Block, Section

__all__ = ["section_combat_gear"]


def _effects_figure(effects: pd.DataFrame):
    """P(A wins) for each tactic / armour of side A, one panel per kind of change."""
    kinds = list(dict.fromkeys(effects["change"]))
    fig, axes = plotting.new_figure(len(kinds), width=7.2, height=3.4, sharey=False)
    for ax, kind in zip(axes, kinds, strict=True):
        part = effects[effects["change"] == kind]
        labels, values, colours = [], [], []
        for row in part.itertuples(index=False):
            labels.append(f"{row.system}: {cell_words(str(row.choice))}")
            values.append(row.p_side0)
            colours.append(plotting.system_color(row.system))
        y = np.arange(len(labels))[::-1]
        ax.barh(y, values, color=colours)
        ax.set_yticks(y, labels, fontsize=6.5)
        ax.axvline(0.5, color="#555555", linewidth=0.8, linestyle=":")
        ax.set_xlim(0, 1)
        ax.set_xlabel(
            _("P(A wins) with this tactic") if kind == "tactic" else _("P(A wins) with this armour")
        )
        ax.set_title(_("tactic of side A") if kind == "tactic" else _("armour of side A"))
    return fig


@for_systems_with(MAPPED, "combat-gear", N_("Combat: tactics and armour"))
def section_combat_gear(settings: ReportSettings) -> Section:
    """Tactic and armour effects on the even duel of each system (exact)."""
    title = _("Combat: tactics and armour")
    effects = combat_frames(settings)["effects"]
    duel = even_duel_words(settings)
    reading = [
        _(
            "{duel}, in each system, with side A changing one thing: its tactic (A6, "
            "C13, B4, DX2, E16) or its armour (A13, DX11, E12; dice_pool_6 and "
            "middle_3d10 have no armour rules). Without a change the duel is 50/50, so "
            "P(A wins) is the value of the change."
        ).format(duel=duel[:1].upper() + duel[1:])
        + " "
        + method_note(effects)
    ]
    for (system, kind), part in effects.groupby(["system", "change"], sort=False):
        best = part.loc[part["p_side0"].idxmax()]
        worst = part.loc[part["p_side0"].idxmin()]
        if best["p_side0"] - worst["p_side0"] < 0.005:
            reading.append(
                _(
                    "{system}, {kind}: no choice changes the duel (A wins {p} "
                    "with each of {choices})."
                ).format(
                    system=system,
                    kind=_(kind),
                    p=pct(best["p_side0"]),
                    choices=", ".join(map(text, part["choice"])),
                )
            )
            continue
        reading.append(
            _(
                "{system}, {kind}: best {best} (A wins {p_best}, {rounds} rounds), "
                "worst {worst} ({p_worst})."
            ).format(
                system=system,
                kind=_(kind),
                best=text(best["choice"]),
                p_best=pct(best["p_side0"]),
                rounds=decimal(best["rounds_mean"], 1),
                worst=text(worst["choice"]),
                p_worst=pct(worst["p_side0"]),
            )
        )
    dying = dying_words(list(dict.fromkeys(effects["system"])), settings)
    if dying:
        reading.append(dying)
    # the one normalisation of fates: shares of the losers (the fighters who fell)
    shown = effects.copy()
    columns = {f: f"p_loser_{f}" for f in FATES}
    shares = fate_shares(shown, columns)
    for fate, col in columns.items():
        shown[col] = shares[fate].to_numpy()
    view = combat_view(
        shown, ["system", "change", "choice", "method"], EFFECT_COLUMNS, ("se_side0",)
    )
    blocks: list[Block] = [
        table_block(
            "combat-gear",
            _("Tactics and armour in the even duel"),
            view,
            _(
                "P(A wins), P(B wins), P(neither) with side A using the tactic or armour "
                "named, against the unchanged side B; mean rounds; loser dead / dying / "
                "out: the loser's fate, as shares of the fighters who fell (they sum to "
                "100%) {aftermath}."
            ).format(aftermath=aftermath_words(settings))
            + " "
            + method_note(effects)
            + cross_source(settings),
            index=("system", "change"),
            full=effects,
            formats=ROUND_FORMATS,
        ),
        figure_block(
            "fig-combat-gear",
            _("Value of a tactic or an armour"),
            _effects_figure(effects),
            _(
                "P(A wins) against an equal with each tactic (left) and armour (right); "
                "the dotted line is the even 50%. Exact."
            ),
            _("Bar charts of P(win) by tactic and armour per system"),
            settings,
        ),
    ]
    return Section("combat-gear", title, reading, blocks)
