"""Section: group fights and their survival curves.

The sides are named in words from the cross-combat file's ladder rungs ("three novices",
"one expert"); a fight's fates are those of the fighters who fell (both sides), the
share dead, dying and out summing to 100 %. Every standard error and per-side column is
in the CSV download (the machine frame)."""

from __future__ import annotations

from collections import Counter

import pandas as pd
from matplotlib.ticker import MaxNLocator

from reports import plotting
from reports.i18n import N_, _, decimal
from reports.sections.combat_common import (
    DEADLINESS_AFTERMATHS,
    FATES,
    aftermath_words,
    combat_frames,
    cross_source,
    dying_words,
    fate_shares,
)
from reports.sections.common import MAPPED, figure_block, for_systems_with, pct, table_block
from reports.settings import ReportSettings
from reports.structure import Block, Section

__all__ = ["fallen_fates", "section_combat_groups", "side_name"]

#: a ladder rung's fighters in words: one, and a number of them ({count} is a word)
_RUNG_WORDS = {
    "novice": (N_("one novice"), N_("{count} novices")),
    "competent": (N_("one competent fighter"), N_("{count} competent fighters")),
    "expert": (N_("one expert"), N_("{count} experts")),
}
_COUNTS = {2: N_("two"), 3: N_("three"), 4: N_("four"), 5: N_("five"), 6: N_("six")}


def side_name(rungs) -> str:
    """A side of a group fight in words, in the language in force: its fighters counted
    by ladder rung (``["novice"] * 3`` → "three novices", ``["expert"]`` → "one
    expert"; a rung the report has no words for is named by itself)."""
    parts = []
    for rung, n in Counter(str(r) for r in rungs).items():
        words = _RUNG_WORDS.get(rung)
        count = _(_COUNTS[n]) if n in _COUNTS else str(n)
        if words is None:
            parts.append(f"{count if n > 1 else 1} × {_(rung)}")
        else:
            one, many = words
            parts.append(_(one) if n == 1 else _(many).format(count=count))
    return _(" and ").join(parts) if len(parts) > 1 else parts[0]


def _wins(rungs, mirror: int | None = None) -> str:
    """The header "three novices win" / "one expert wins"; in a fight of two sides of
    the same fighters (``mirror`` 0 or 1) "side A (two competent fighters) wins"."""
    if mirror is not None:
        return _(N_("side A ({side}) wins") if mirror == 0 else N_("side B ({side}) wins")).format(
            side=side_name(rungs)
        )
    template = N_("{side} wins") if len(rungs) == 1 else N_("{side} win")
    return _(template).format(side=side_name(rungs))


def _side_heads(sides) -> tuple[str, str]:
    """The two win headers of a fight (told apart when both sides are the same)."""
    if side_name(sides[0]) == side_name(sides[1]):
        return _wins(sides[0], 0), _wins(sides[1], 1)
    return _wins(sides[0]), _wins(sides[1])


def fallen_fates(row, n0: int, n1: int) -> dict[str, float]:
    """Of the fighters who fell in a group fight (both sides, ``n0`` and ``n1`` fighters),
    the share that ends dead, dying and out (summing to 1; NaN when no one ever falls):
    each side's per-fighter chances (``p_side{s}_{fate}``) weighted by its size, shared
    out by the report's one normalisation of fates (:func:`~reports.sections.
    combat_common.fate_shares`)."""
    fell = pd.DataFrame(
        [{f: n0 * float(row[f"p_side0_{f}"]) + n1 * float(row[f"p_side1_{f}"]) for f in FATES}]
    )
    shares = fate_shares(fell, {f: f for f in FATES}).iloc[0]
    return {f: float(shares[f]) for f in FATES}


def _fight_view(part: pd.DataFrame, sides) -> pd.DataFrame:
    """One fight's compact table: system, each side's chance to win (and neither, when
    any fight ends with no winner), the mean rounds and the fates of the fallen."""
    rows = []
    neither = bool((part["p_neither"] > 0).any())
    for _i, row in part.iterrows():
        head0, head1 = _side_heads(sides)
        out = {
            _("system"): row["system"],
            head0: float(row["p_side0"]),
            head1: float(row["p_side1"]),
        }
        if neither:
            out[_("neither wins")] = float(row["p_neither"])
        out[_("mean rounds")] = float(row["rounds_mean"])
        fates = fallen_fates(row, len(sides[0]), len(sides[1]))
        out.update({_("fallen: {fate}").format(fate=_(f)): fates[f] for f in FATES})
        rows.append(out)
    return pd.DataFrame(rows)


def _survival_figure(
    standing: pd.DataFrame, groups: pd.DataFrame, titles: dict, max_round: int = 12
):
    """Share of each side still standing after round k, one panel per group fight."""
    fights = list(dict.fromkeys(groups["fight"]))
    fig, axes = plotting.new_figure(len(fights), width=7.2, height=3.0)
    for ax, fight in zip(axes, fights, strict=True):
        part = standing[(standing["fight"] == fight) & (standing["round"] <= max_round)]
        for system in dict.fromkeys(part["system"]):
            colour = plotting.system_color(system)
            for side, style in ((0, "-"), (1, "--")):
                sub = part[(part["system"] == system) & (part["side"] == side)]
                ax.step(
                    sub["round"],
                    sub["standing_share"],
                    where="post",
                    color=colour,
                    linestyle=style,
                    linewidth=1.4,
                    label=system if side == 0 else None,
                )
                ax.fill_between(
                    sub["round"],
                    sub["standing_share"] - 2 * sub["se_share"],
                    sub["standing_share"] + 2 * sub["se_share"],
                    step="post",
                    color=colour,
                    alpha=0.18,
                    linewidth=0,
                )
        ax.set_title(titles.get(fight, fight))  # the side named first solid (caption)
        ax.set_xlabel(_("round"))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylim(-0.02, 1.02)
    axes[0].set_ylabel(_("share of the side standing"))
    axes[-1].legend(loc="upper right")
    return fig


#: the deadliness table's headers under each aftermath: someone dead, dead (mean)
_DEADLY_HEADS = {
    "leave": (N_("someone dead, fallen left"), N_("dead (mean), fallen left")),
    "finish": (N_("someone dead, winners finish"), N_("dead (mean), winners finish")),
}


def _deadliness_view(deadly: pd.DataFrame, titles: dict) -> pd.DataFrame:
    """One row per fight and system: P(someone dead) and the mean number of dead under
    each of :data:`DEADLINESS_AFTERMATHS` side by side (SEs in the CSV)."""
    heads = _DEADLY_HEADS
    parts = []
    for policy in DEADLINESS_AFTERMATHS:
        part = deadly[deadly["aftermath"] == policy].set_index(["fight", "system"])
        someone, mean = heads.get(policy, (f"someone dead · {policy}", f"dead · {policy}"))
        parts.append(
            part[["p_someone_dead", "deaths_mean"]].rename(
                columns={"p_someone_dead": _(someone), "deaths_mean": _(mean)}
            )
        )
    out = pd.concat(parts, axis=1).reset_index()
    out["fight"] = [titles.get(f, f) for f in out["fight"]]
    return out.rename(columns={"fight": _("fight"), "system": _("system")})


@for_systems_with(MAPPED, "combat-groups", N_("Combat: group fights"))
def section_combat_groups(settings: ReportSettings) -> Section:
    """2v2 and 3v1 fights per system (Monte Carlo with SEs) and their survival curves."""
    title = _("Combat: group fights")
    from analysis.combat import cross_combat

    data = combat_frames(settings)
    groups = data["groups"]
    reading = [
        _(
            "Monte Carlo fights ({trials} per system and fight, seed {seed}) of the "
            "ladder fighters with light melee weapons; every figure carries its "
            "standard error."
        ).format(trials=decimal(settings.combat_trials), seed=settings.seed)
    ]
    spec = cross_combat.load_cross(settings.cross_combat)["groups"]
    sides = {gid: (list(g.side0), list(g.side1)) for gid, g in spec.items()}
    titles = {
        gid: _(g.title) if g.title else " – ".join(side_name(s) for s in sides[gid])
        for gid, g in spec.items()
    }
    for fight, part in groups.groupby("fight", sort=False):
        part = part.set_index("system")
        hi, lo = part["p_side0"].idxmax(), part["p_side0"].idxmin()
        reading.append(
            _(
                "{title}: {wins} from {low} ± {se_low} points of the fights ({lo}) to {high} "
                "± {se_high} ({hi}); fights last {r_min}–{r_max} rounds on average."
            ).format(
                title=titles.get(fight, fight),
                wins=_side_heads(sides[fight])[0],
                low=pct(part.loc[lo, "p_side0"]),
                se_low=decimal(100 * part.loc[lo, "se_side0"], 2),
                lo=lo,
                high=pct(part.loc[hi, "p_side0"]),
                se_high=decimal(100 * part.loc[hi, "se_side0"], 2),
                hi=hi,
                r_min=decimal(part["rounds_mean"].min(), 1),
                r_max=decimal(part["rounds_mean"].max(), 1),
            )
        )
    deadly = data["deadly"]
    for fight, part in deadly.groupby("fight", sort=False):
        span = {}
        for policy in DEADLINESS_AFTERMATHS:
            p = part[part["aftermath"] == policy].set_index("system")
            lo, hi = p["p_someone_dead"].idxmin(), p["p_someone_dead"].idxmax()
            span[policy] = _("{low} ± {se_low} points ({lo}) to {high} ± {se_high} ({hi})").format(
                low=pct(p.loc[lo, "p_someone_dead"]),
                lo=lo,
                hi=hi,
                se_low=decimal(100 * p.loc[lo, "se_someone_dead"], 2),
                high=pct(p.loc[hi, "p_someone_dead"]),
                se_high=decimal(100 * p.loc[hi, "se_someone_dead"], 2),
            )
        reading.append(
            _(
                "{fight}: someone ends dead in {leave} of the fights when the "
                "fallen are left, in {finish} when the winners finish them."
            ).format(fight=titles.get(fight, fight), **span)
        )
    se_max = max(
        float(groups[c].max())
        for c in groups.columns
        if c.startswith("se_side") or c == "se_neither"
    )
    blocks: list[Block] = []
    for fight, part in groups.groupby("fight", sort=False):
        blocks.append(
            table_block(
                f"combat-groups-{fight}",
                _("Group fight: {title}").format(title=titles.get(fight, fight)),
                _fight_view(part, sides[fight]),
                _(
                    "Monte Carlo ({trials} fights each): each side's chance to win, the mean "
                    "number of rounds, and the fates of the fighters who fell (both sides): the "
                    "share dead, dying and out, summing to 100 %, {aftermath}. Standard errors "
                    "are at most {se} points; they, each side's own fates and the fighters' "
                    "weapons are in the CSV."
                ).format(
                    trials=decimal(settings.combat_trials),
                    aftermath=aftermath_words(settings),
                    se=decimal(100 * se_max, 2),
                )
                + (
                    ""
                    if blocks
                    else " " + dying_words(list(dict.fromkeys(part["system"])), settings)
                ).rstrip()
                + cross_source(settings),
                index=(_("system"),),
                full=groups,
                formats={_("mean rounds"): ".1f"},
            )
        )
    blocks += [
        table_block(
            "combat-groups-deadliness",
            _("How deadly group fights are"),
            _deadliness_view(deadly, titles),
            _(
                "The same fights ({trials} each) when the fallen are left as they lie "
                "(aftermath “leave”) and when the winners kill fallen foes (“finish”): "
                "the chance that at least one fighter of either side ends dead and "
                "the mean number of dead fighters; their Monte Carlo standard errors "
                "are in the CSV."
            ).format(trials=decimal(settings.combat_trials))
            + cross_source(settings),
            index=(_("fight"), _("system")),
            full=deadly,
            formats={_(mean): ".2f" for _s, mean in _DEADLY_HEADS.values()},
        ),
        figure_block(
            "fig-combat-groups",
            _("Round-by-round survival in group fights"),
            _survival_figure(data["standing"], groups, titles),
            _(
                "Share of each side still able to act after round k (the side named "
                "first solid, the other dashed), one colour per system, Monte Carlo "
                "with ±2 SE bands."
            ),
            _("Survival curves of the group fights per system"),
            settings,
        ),
    ]
    return Section("combat-groups", title, reading, blocks)
