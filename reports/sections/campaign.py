"""Report section: campaign mechanics over sessions (one default mechanic per system).

``section_campaign(settings) -> Section`` follows the section API of
:mod:`reports.sections`: a fan chart per system (the 10–90 % and 25–75 % bands and the
median of the mechanic's state over sessions, exact chain), a summary table and one
reading sentence per system computed from the numbers. The mechanics run with their
campaign modules' default variants (the report's check variants do not apply to them).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.ticker import MaxNLocator

from engines.system import registry
from reports import plotting
from reports.i18n import N_, _, decimal, percent
from reports.sections.common import for_systems_with, skipped
from reports.settings import ReportSettings
from reports.structure import Caption, Figure, Note, Section, Table

__all__ = [
    "ATTRITION_FIGHTS",
    "FEW_STATES",
    "MECHANIC_NAMES",
    "PARAM_NAMES",
    "STATE_NAMES",
    "TALLY_NAMES",
    "attrition_reading",
    "attrition_table",
    "attrition_view",
    "campaign_figure",
    "campaign_reading",
    "campaign_view",
    "campaign_widgets",
    "few_states",
    "mechanic_name",
    "section_campaign",
    "settled_reading",
    "settles",
    "show_campaign",
]

#: Names of the campaign mechanics, their states and their parameters as the report
#: shows them (the mechanic ids stay in the tables and the CSV downloads).
MECHANIC_NAMES = {
    "attrition": N_("attrition"),
    "morality": N_("morality"),
    "arcane": N_("arcane use"),
    "consolidation": N_("consolidation"),
    "budgets": N_("scene budgets"),
    "hunger": N_("hunger"),
    "skill-growth": N_("skill growth"),
    "luck": N_("luck"),
    "hero-points": N_("hero points"),
}
STATE_NAMES = (
    N_("health left"),
    N_("Resistance left"),
    N_("hit points left"),
    N_("Morality"),
    N_("Degeneration"),
    N_("Consolidated damage"),
    N_("Health (joint with Willpower)"),
    N_("Hunger"),
    N_("skill"),
    N_("Luck"),
    N_("hero points"),
)
PARAM_NAMES = (
    N_("morality"),
    N_("infraction"),
    N_("per session"),
    N_("uses"),
    N_("level"),
    N_("major"),
    N_("minor"),
    N_("aspect"),
    N_("resilience"),
    N_("lore"),
    N_("will"),
    N_("skill"),
    N_("vigor"),
    N_("hits"),
    N_("weapon"),
    N_("light"),
    N_("bonus"),
    N_("stamina"),
    N_("composure"),
    N_("resolve"),
    N_("scenes"),
    N_("attack"),
    N_("dodge"),
    N_("reserve"),
    N_("hunger"),
    N_("rouses"),
    N_("feed at"),
    N_("slake"),
    N_("luck"),
    N_("checks"),
    N_("max spend"),
    N_("points"),
    N_("fights"),
    N_("dc"),
    N_("earn"),
)
#: Each mechanic's tallies (``Mechanic.extra``'s keys) in words, for the summary table.
TALLY_NAMES = {
    "consolidated_mean": N_("consolidated loss (mean)"),
    "maddened_mean": N_("times maddened (mean)"),
    "temporary_sequelae_mean": N_("temporary sequelae (mean)"),
    "permanent_sequelae_mean": N_("permanent sequelae (mean)"),
    "derangements_mean": N_("derangements (mean)"),
    "passed": N_("key checks passed"),
    "spent": N_("points spent"),
    "exhausted": N_("fights fought exhausted"),
    "knockouts": N_("knockouts"),
    "willpower": N_("willpower"),
    "failed": N_("special checks failed"),
    "improvements": N_("improvements"),
    "saves": N_("rolls bought with Luck"),
}


def mechanic_name(name: str) -> str:
    """A mechanic's name in the report's language (the id when it has no name)."""
    return _(MECHANIC_NAMES[name]) if name in MECHANIC_NAMES else name


def _params_text(params: Mapping) -> str:
    def value(v):
        if isinstance(v, bool):
            return _("yes") if v else _("no")
        if isinstance(v, str):
            return _(v)
        return decimal(v) if isinstance(v, int | float) else str(v)

    return ", ".join(f"{_(k.replace('_', ' '))} {value(v)}" for k, v in params.items())


def campaign_reading(system: str, mech, params: Mapping, st) -> str:
    """One sentence from the numbers: the median and 10–90 % range at the last session,
    and when half the characters have reached the threshold (or how many do)."""
    from analysis.campaign import median_passage, p_reached

    n = st.sessions
    q10, q50, q90 = (int(st.quantile(q)[-1]) for q in (0.1, 0.5, 0.9))
    mean = float(st.mean()[-1])
    side = "≤" if mech.direction == "down" else "≥"
    start = int(st.quantile(0.5)[0])
    state = _(mech.state)
    text = _(
        "{system} {mechanic} ({params}): {state} {start} at the start, after "
        "{sessions} sessions the median character is at {median} (10–90 %: "
        "{q10}–{q90}, mean {mean})"
    ).format(
        system=system,
        mechanic=mechanic_name(mech.name),
        params=_params_text(params),
        state=state,
        start=decimal(start),
        sessions=decimal(n),
        median=decimal(q50),
        q10=decimal(q10),
        q90=decimal(q90),
        mean=decimal(mean, 2),
    )
    if st.passage is not None:
        k = median_passage(st)
        p = min(max(p_reached(st), 0.0), 1.0)
        where = {
            "state": state,
            "side": side,
            "threshold": decimal(st.threshold),
            "sessions": decimal(n),
        }
        if k is not None:
            text += _(
                "; half the characters reach {state} {side} {threshold} by session "
                "{session} ({share} within {sessions})"
            ).format(session=decimal(k), share=percent(p, 0), **where)
        elif p < 5e-7:
            text += _(
                "; no character reaches {state} {side} {threshold} within {sessions} sessions"
            ).format(**where)
        else:
            text += _(
                "; only {share} of the characters reach {state} {side} {threshold} "
                "within {sessions} sessions"
            ).format(share=percent(p, 2), **where)
    return text + "."


def _fan_chart(st, mech, ax, label: str) -> None:
    """The fan chart of :mod:`analysis.campaign` with the report's words (its legend's
    threshold entry carries a number, so it is translated here rather than looked up)."""
    from analysis.campaign import fan_chart

    fan_chart(st, ax, state=mech.state, label=label)
    legend = ax.get_legend()
    if legend is not None and st.threshold is not None:
        for text in legend.get_texts():
            if text.get_text() == f"threshold {st.threshold}":
                text.set_text(_("threshold {value}").format(value=decimal(st.threshold)))


#: a state that takes at most this many values (with a chance of 0.1 % or more in some
#: session) is drawn as the share of characters at each value: its quantile bands
#: would fill the whole range (a rectangle that says nothing)
FEW_STATES = 3


def few_states(st) -> list[int]:
    """The state values of a campaign run worth a line each, when there are at most
    :data:`FEW_STATES` of them (``[]``: draw the fan chart)."""
    seen = np.nonzero((st.pmf() >= 1e-3).any(axis=0))[0]
    return [int(st.values[i]) for i in seen] if len(seen) <= FEW_STATES else []


def settles(st) -> list[int]:
    """The state values of a run of a few values (:func:`few_states`) whose shares are
    the same in every session from the first on (``[]`` otherwise): its chart would be
    flat lines, so the report says it in a sentence instead."""
    values = few_states(st)
    pmf = st.pmf()
    if not values or len(pmf) < 3 or not np.allclose(pmf[1:], pmf[1], atol=1e-9):
        return []
    return values


def settled_reading(st, mech, values: list[int]) -> str:
    """The sentence replacing a flat chart: from session 1 on, every session, the share
    of the characters at each state value."""
    pmf = st.pmf()
    shares = _(", ").join(
        _("{share} at {value}").format(
            share=percent(float(pmf[1, int(np.nonzero(st.values == v)[0][0])]), 1), value=v
        )
        for v in values
    )
    return _(
        "{system}: {state} settles after the first session and stays there: in "
        "every session from then on, {shares} (exact; no chart, its lines would be "
        "flat)."
    ).format(system=st.system, state=_(mech.state), shares=shares)


def _share_chart(st, mech, ax, label: str, values: list[int]) -> None:
    """The share of the characters at each of a few state values, session by session
    (exact), one line per value."""
    pmf = st.pmf()
    x = np.arange(st.sessions + 1)
    colours = plotting.shades(st.system, len(values))
    for value, colour, style in zip(values, colours, plotting.LINESTYLES, strict=False):
        column = int(np.nonzero(st.values == value)[0][0])
        ax.step(
            x,
            pmf[:, column],
            where="mid",
            color=colour,
            linestyle=style,
            linewidth=1.8,
            label=_("{state}: {value}").format(state=_(mech.state), value=value),
        )
    plotting.probability_axis(ax, _("share of the characters"))
    ax.set_xlim(0, max(st.sessions, 1))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(_("session"))
    ax.set_title(label)
    ax.legend(loc="best")


def campaign_figure(st, mech, settings: ReportSettings) -> Figure:
    """The run's fan chart (quantile bands of the state over sessions), or for a state
    of a few values (:func:`few_states`: hero points 0 or 1) the share of characters at
    each value."""
    fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.0)
    name = mechanic_name(mech.name)
    label = f"{st.system}: {name} ({_(mech.rules)})"
    values = few_states(st)
    if values:
        _share_chart(st, mech, ax, label, values)
        caption = _(
            "Share of the characters at each value of {state}, session by session, "
            "over {sessions} sessions (exact Markov chain): the state takes only "
            "these values, so its quantile bands would fill the whole chart."
        )
        alt = _(
            "Line chart of the share of characters at each value of {state} over "
            "sessions for {system}"
        )
    else:
        _fan_chart(st, mech, ax, label=label)
        caption = _(
            "{state} over {sessions} sessions (exact Markov chain): 10–90 % band "
            "(light), 25–75 % band (dark), median (solid), mean (dotted), "
            "threshold (dashed)."
        )
        alt = _("Fan chart of {state} over sessions for {system}")
    return Figure(
        id=f"fig-campaign-{st.system}",
        title=_("{system}: {mechanic}").format(system=st.system, mechanic=name),
        data=plotting.to_png(fig, settings.dpi),
        caption=Caption(caption.format(state=_(mech.state), sessions=decimal(st.sessions))),
        alt=alt.format(state=_(mech.state), system=st.system),
    )


@for_systems_with("campaign", "campaign", N_("Campaign mechanics over sessions"))
def section_campaign(settings: ReportSettings) -> Section:
    """Campaign mechanics: a fan chart and a reading per system."""
    title = _("Campaign mechanics over sessions")
    try:
        from analysis.campaign import run, summary_table, tally_names
        from engines.campaign import mechanic
    except ImportError as exc:
        return Section(
            "campaign",
            title,
            [],
            [
                Note(
                    _("Not available in this build: campaign mechanics ({error}).").format(
                        error=f"{exc.__class__.__name__}: {exc}"
                    ),
                    "missing",
                )
            ],
            available=False,
        )
    reading = [
        _(
            "Campaign mechanics follow one number of a character (Morality, arcane "
            "degeneration, Hunger, a skill, hero points) over many sessions. Each "
            "system shows one mechanic under a typical schedule; the bands show where "
            "most characters are, session by session (exact chains, the campaign "
            "modules' default variants)."
        )
    ]
    blocks: list = []
    rows = []
    for system in settings.systems:
        group = registry()[system].campaign
        example = group.example if group is not None else None
        if example is None:
            reading.append(skipped(system, N_("campaign example")))
            continue
        name, params, sessions, threshold = example
        mech = mechanic(system, name)
        st = run(system, name, params, sessions=sessions, threshold=threshold)["exact"]
        reading.append(campaign_reading(system, mech, params, st))
        settled = settles(st)
        if settled:
            reading.append(settled_reading(st, mech, settled))
        else:
            blocks.append(campaign_figure(st, mech, settings))
        last = summary_table(st).iloc[[-1]].drop(columns=["method", *tally_names(st)])
        last.insert(0, "mechanic", mechanic_name(name))
        last.insert(0, "system", system)
        # the mechanic's own tallies (the summary table's extra columns), in one cell
        last["tallies"] = "; ".join(
            f"{_(TALLY_NAMES.get(k, k.replace('_', ' ')))} {decimal(float(st.extra[k][-1]), 3)}"
            for k in tally_names(st)
        )
        rows.append(last)
    if rows:
        frame = pd.concat(rows, ignore_index=True)
        blocks.append(
            Table(
                id="campaign-summary",
                title=_("State after the last session"),
                frame=frame,
                caption=Caption(
                    _(
                        "Mean, SD and 10/50/90 % quantiles of each mechanic's "
                        "state after the last session shown, and the mechanic's "
                        "tallies by then (expected counts or probabilities, the "
                        "extra columns of its summary table; exact)."
                    )
                ),
                formats={"mean": ".2f", "sd": ".2f"},
            )
        )
    attrition = attrition_table(settings.systems)
    if len(attrition):
        reading.append(attrition_reading(attrition))
        blocks.append(
            Table(
                id="campaign-attrition",
                title=_("Attrition: P(alive and able after k fights)"),
                frame=attrition_view(attrition),
                full=attrition,
                caption=Caption(
                    _(
                        "The ladder's competent fighter against a fresh equal opponent in each of "
                        "{fights} consecutive duels, with each system's rest between fights (rules "
                        "in the table); a fighter who falls (dead, dying or out) leaves the "
                        "series. "
                        "Exact: the duel chains started from the fighter's damage."
                    ).format(fights=decimal(ATTRITION_FIGHTS))
                ),
            )
        )
    return Section("campaign", title, reading, blocks)


#: Fights in the report's attrition table.
ATTRITION_FIGHTS = 5


def attrition_table(systems) -> pd.DataFrame:
    """P(the ladder's competent fighter is alive and able after k = 1..5 fights) per
    system (exact), with the fighter's name and the mechanic's rule ids."""
    from analysis.campaign import run
    from engines.campaign import mechanic

    rows = []
    for system in systems:
        spec = registry().get(system)
        if (
            spec is None
            or spec.campaign is None
            or "attrition" not in spec.campaign.engine().MECHANICS
        ):
            continue
        st = run(system, "attrition", {}, sessions=ATTRITION_FIGHTS)["exact"]
        row = {
            "system": system,
            "fighter": st.notes["fighter"],
            "rules": _(mechanic(system, "attrition").rules),
        }
        for k in range(1, ATTRITION_FIGHTS + 1):
            row[f"k={k}"] = float(st.extra["p_able"][k])
        row["p_dead_5"] = float(st.extra["p_dead"][ATTRITION_FIGHTS])
        rows.append(row)
    return pd.DataFrame(rows)


def attrition_view(frame: pd.DataFrame) -> pd.DataFrame:
    """The attrition table as printed: "after k fights" and "dead by fight 5" headers
    (the CSV keeps ``k=1`` … and ``p_dead_5``)."""
    names = {
        f"k={k}": (_("after 1 fight") if k == 1 else _("after {k} fights").format(k=k))
        for k in range(1, ATTRITION_FIGHTS + 1)
    }
    names[f"p_dead_{ATTRITION_FIGHTS}"] = _("dead by fight {k}").format(k=ATTRITION_FIGHTS)
    names.update({"system": _("system"), "fighter": _("fighter"), "rules": _("rules")})
    return frame.rename(columns=names)


def attrition_reading(frame: pd.DataFrame) -> str:
    """One sentence: P(able after 3 fights) per system, from the table."""
    parts = ", ".join(f"{r.system} {percent(r['k=3'], 1)}" for _i, r in frame.iterrows())
    return _(
        "Attrition: a competent fighter facing a fresh equal opponent in each fight, "
        "with the system's rest in between, is still alive and able after three "
        "fights with probability {parts} (an even duel is won half the time, so "
        "without damage carried over it would be 12.5 %)."
    ).format(parts=parts)


# ---------------------------------------------------------------- notebook helpers


def campaign_view(
    system: str,
    name: str,
    sessions: int = 20,
    threshold: int | None = None,
    dpi: int = 90,
    **params,
) -> dict:
    """The fan chart (PNG bytes), the reading sentence and the summary table of one
    mechanic under ``params`` (exact chain) — what the campaign notebook shows."""
    from analysis.campaign import run, summary_table
    from engines.campaign import mechanic

    mech = mechanic(system, name)
    st = run(system, name, params, sessions=sessions, threshold=threshold)["exact"]
    fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.0)
    _fan_chart(st, mech, ax, label=f"{system}: {mechanic_name(name)} ({_(mech.rules)})")
    return {
        "png": plotting.to_png(fig, dpi),
        "stats": st,
        "table": summary_table(st),
        "reading": campaign_reading(system, mech, {**mech.defaults(), **params}, st),
    }


def _show(view) -> None:
    from IPython.display import Image, Markdown, display

    display(Markdown(view["reading"]))
    display(Image(data=view["png"]))


def show_campaign(system: str, name: str, sessions: int = 20, threshold=None, **params) -> dict:
    """Display the fan chart and reading of one mechanic (a notebook cell's output)."""
    view = campaign_view(system, name, sessions, threshold, **params)
    _show(view)
    return view


def campaign_widgets(system: str | None = None, name: str | None = None, sessions: int = 20):
    """ipywidgets: a system/mechanic dropdown, one slider (or dropdown, checkbox) per
    parameter of the chosen mechanic with its rule id, a sessions slider and an optional
    threshold; the fan chart redraws on every change. Without ``system`` / ``name``: the
    first installed system with campaign mechanics, and its first mechanic."""
    import ipywidgets as widgets

    from engines.campaign import campaign_systems, mechanic, mechanics

    options = [(f"{s} / {m}", (s, m)) for s in campaign_systems() for m in mechanics(s)]
    system = system or options[0][1][0]
    name = name or next(iter(mechanics(system)))
    choose = widgets.Dropdown(options=options, value=(system, name), description="mechanic")
    n = widgets.IntSlider(value=sessions, min=1, max=200, description="sessions")
    use_thr = widgets.Checkbox(value=False, description="threshold")
    thr = widgets.IntText(value=0, description="X")
    params_box = widgets.VBox()
    out = widgets.Output()
    controls: dict = {}

    def build(mech) -> None:
        controls.clear()
        items = []
        for q in mech.params:
            label = f"{q.name} [{q.rule}]"
            if q.type is bool:
                w = widgets.Checkbox(value=q.default, description=label)
            elif q.type is str:
                w = widgets.Dropdown(
                    options=list(q.choices or ()), value=q.default, description=label
                )
            else:
                lo, hi = q.range or (0, 100)
                w = widgets.IntSlider(
                    value=q.default, min=lo, max=min(hi, lo + 200), description=label
                )
            w.tooltip = q.help
            w.style = {"description_width": "initial"}
            w.observe(redraw, names="value")
            controls[q.name] = w
            items.append(w)
        params_box.children = items

    def redraw(_=None) -> None:
        s, m = choose.value
        values = {k: w.value for k, w in controls.items()}
        with out:
            out.clear_output(wait=True)
            try:
                _show(campaign_view(s, m, n.value, thr.value if use_thr.value else None, **values))
            except Exception as exc:  # an out-of-range combination: say why
                print(f"{type(exc).__name__}: {exc}")

    def switch(_=None) -> None:
        build(mechanic(*choose.value))
        redraw()

    choose.observe(switch, names="value")
    for w in (n, use_thr, thr):
        w.observe(redraw, names="value")
    build(mechanic(system, name))
    redraw()
    return widgets.VBox([choose, params_box, widgets.HBox([n, use_thr, thr]), out])
