"""Notebook helpers: show report sections inline and the combat sandbox widget.

The notebooks in ``notebooks/`` stay thin: they import these functions, so what they
show is exactly what the report shows.
"""

from __future__ import annotations

import contextlib
import dataclasses

import pandas as pd

from engines.constants import REPORT_SEED, ROUND_CAP, STUDY_SEED

from .structure import Figure, Note, Paragraph, Section, Table

__all__ = [
    "KEEP",
    "AuditPanel",
    "CombatSandbox",
    "audit_panel",
    "combat_sandbox",
    "frame_of",
    "sandbox_result",
    "show_section",
]


def show_section(section: Section | None, max_rows: int = 25) -> None:
    """Display a report section: its reading, figures and (the head of) its tables."""
    from IPython.display import Image, Markdown, display

    if section is None:
        display(Markdown("*(this section does not apply to the chosen systems)*"))
        return
    display(Markdown(f"### {section.title}"))
    for para in section.reading:
        display(Markdown(para))
    for block in section.blocks:
        if isinstance(block, Figure):
            display(Image(data=block.data))
            display(Markdown(f"*{block.caption.text}*"))
        elif isinstance(block, Table):
            display(Markdown(f"**{block.title}.** {block.caption.text}"))
            display(block.frame.head(max_rows))
        elif isinstance(block, Paragraph | Note):
            display(Markdown(block.text))


def _choice(value):
    """A dropdown value: ``None`` (keep the archetype's own) or the chosen value."""
    return None if value in (None, KEEP) else value


#: Dropdown entry that keeps the archetype's own gear or tactic.
KEEP = "(archetype's own)"


def sandbox_result(
    system: str,
    a: str,
    b: str,
    *,
    weapon_a=None,
    armour_a=None,
    tactic_a=None,
    weapon_b=None,
    armour_b=None,
    tactic_b=None,
    variants_text: str = "",
    method: str = "both",
    trials: int = 5000,
    seed: int = STUDY_SEED,
    round_cap: int = ROUND_CAP,
) -> dict:
    """Everything the combat sandbox shows for ``a`` (side 0) against ``b`` (side 1).

    Archetypes come from :mod:`analysis.combat.archetypes` (with the weapon / armour / tactic
    overrides given; ``None`` keeps the archetype's own), variants are ``NAME=VALUE``
    lines for the system's combat ``Variants``. Returns ``duel`` (exact and/or Monte
    Carlo rows of :func:`analysis.combat.lethality.duel_table`; ``method="both"`` adds z-scores
    of MC against exact), ``one_hit`` (both ways, exact), ``tactics`` and ``armour``
    (side A's choices, exact when the engine solves the duel), ``variants`` (the variants
    in force with rule ids) and ``figure`` (survival curve and fight length).
    """
    from analysis.combat import archetypes, lethality
    from analysis.combat.cross_combat import cross_plot
    from engines.errors import InputError
    from engines.variants import describe

    def over(weapon, armour, tactic):
        return {
            k: v
            for k, v in (
                ("weapon", _choice(weapon)),
                ("armour", _choice(armour)),
                ("tactic", _choice(tactic)),
            )
            if v is not None
        }

    va = archetypes.variants(system, [t.strip() for t in variants_text.splitlines() if t.strip()])
    spec_a = {"archetype": a, **over(weapon_a, armour_a, tactic_a)}
    spec_b = {"archetype": b, **over(weapon_b, armour_b, tactic_b)}
    kw = {"trials": trials, "seed": seed, "variants": va, "round_cap": round_cap, "progress": False}
    try:
        stats = lethality.duel_stats(system, spec_a, spec_b, method, **kw)
    except InputError:
        if method == "mc":
            raise
        method = "mc"  # no exact solver for this duel: simulate, with SEs
        stats = lethality.duel_stats(system, spec_a, spec_b, method, **kw)
    duel = lethality.duel_table(system, a, b, stats=stats)
    duel["a"], duel["b"] = a, b
    one_hit = pd.DataFrame(
        [
            {"attacker": x, "target": y, "method": "exact", **lethality.one_hit(system, sx, sy, va)}
            for x, y, sx, sy in ((a, b, spec_a, spec_b), (b, a, spec_b, spec_a))
        ]
    )
    effect_method = "exact" if "exact" in stats else "mc"
    tactics = lethality.tactic_table(system, spec_a, spec_b, method=effect_method, **kw)
    armour = (
        lethality.armour_table(system, spec_a, spec_b, method=effect_method, **kw)
        if archetypes.armours(system)
        else None
    )
    figure = cross_plot(
        {(f"{a} vs {b}", system, m): (st, "") for m, st in stats.items()},
        max_round=min(round_cap, 15),
    )
    rows = pd.DataFrame(describe(va))[["variant", "rule", "value", "default", "doc"]]
    return {
        "duel": duel,
        "one_hit": one_hit,
        "tactics": tactics,
        "armour": armour,
        "variants": rows,
        "figure": figure,
    }


@dataclasses.dataclass
class CombatSandbox:
    """The sandbox's widgets (``controls``: name → widget) and :meth:`run`, the callback
    of the Run button (call it to recompute with the current choices)."""

    box: object
    controls: dict
    run: object


def combat_sandbox(
    trials: int = 5000,
    seed: int = REPORT_SEED,
    round_cap: int = ROUND_CAP,
    display_box: bool = True,
) -> CombatSandbox:
    """An ipywidgets panel over :mod:`analysis.combat.archetypes` and
    :mod:`analysis.combat.lethality`:
    pick a system, two archetypes, their weapon / armour / tactic and rule variants; "Run"
    shows the lethality tables and the survival / fight-length plot."""
    import ipywidgets as w
    from IPython.display import Image, Markdown, display

    from analysis.combat import archetypes

    from .plotting import to_png

    system = w.Dropdown(options=archetypes.systems(), description="system")
    a, b = w.Dropdown(description="side A"), w.Dropdown(description="side B")
    wa, wb = w.Dropdown(description="weapon A"), w.Dropdown(description="weapon B")
    aa, ab = w.Dropdown(description="armour A"), w.Dropdown(description="armour B")
    ta, tb = w.Dropdown(description="tactic A"), w.Dropdown(description="tactic B")
    variants = w.Textarea(description="variants", placeholder="NAME=VALUE, one per line")
    method = w.Dropdown(options=["both", "exact", "mc"], value="both", description="method")
    n = w.IntSlider(
        value=trials, min=100, max=max(trials, 200_000), step=100, description="MC trials"
    )
    cap = w.IntSlider(value=round_cap, min=1, max=200, description="round cap")
    go = w.Button(description="Run", button_style="primary")
    out = w.Output()

    def refresh(*_):
        s = system.value
        names = archetypes.names(s)
        a.options, b.options = names, names
        default = next((x for x in names if "competent" in x), names[0])
        a.value, b.value = default, default
        for d, choices in (
            (wa, archetypes.weapons(s)),
            (wb, archetypes.weapons(s)),
            (aa, archetypes.armours(s)),
            (ab, archetypes.armours(s)),
            (ta, archetypes.tactics(s)),
            (tb, archetypes.tactics(s)),
        ):
            d.options = [KEEP, *choices]
            d.value = KEEP
            d.disabled = not choices

    def show(r: dict) -> None:
        display(
            Markdown(
                f"**{a.value} (A) against {b.value} (B), {system.value}** — rows "
                "marked exact are exact (SE 0); mc rows carry standard errors "
                "(`se_*`) and, with method both, z-scores against exact."
            )
        )
        display(r["duel"])
        display(Image(data=to_png(r["figure"])))
        display(Markdown("**One hit on an unhurt target (exact)**"))
        display(r["one_hit"])
        display(Markdown("**Side A's tactics**"))
        display(r["tactics"])
        if r["armour"] is not None:
            display(Markdown("**Side A's armour**"))
            display(r["armour"])
        display(Markdown("**Combat variants in force**"))
        display(r["variants"])

    def run(*_, inline: bool = False) -> dict:
        """Recompute with the current choices; show the result in the panel's output
        area, or (``inline=True``) in the calling cell's own output."""
        r = sandbox_result(
            system.value,
            a.value,
            b.value,
            weapon_a=wa.value,
            armour_a=aa.value,
            tactic_a=ta.value,
            weapon_b=wb.value,
            armour_b=ab.value,
            tactic_b=tb.value,
            variants_text=variants.value,
            method=method.value,
            trials=n.value,
            seed=seed,
            round_cap=cap.value,
        )
        out.clear_output()
        if inline:
            show(r)
        else:
            with out:
                show(r)
        return r

    system.observe(refresh, names="value")
    go.on_click(lambda _: run())
    refresh()
    box = w.VBox(
        [
            w.HBox([system, method]),
            w.HBox([n, cap]),
            w.HBox([a, wa, aa, ta]),
            w.HBox([b, wb, ab, tb]),
            variants,
            go,
            out,
        ]
    )
    if display_box:
        display(box)
    controls = {
        "system": system,
        "a": a,
        "b": b,
        "weapon_a": wa,
        "weapon_b": wb,
        "armour_a": aa,
        "armour_b": ab,
        "tactic_a": ta,
        "tactic_b": tb,
        "variants": variants,
        "method": method,
        "trials": n,
        "round_cap": cap,
    }
    return CombatSandbox(box, controls, run)


def frame_of(section: Section, table_id: str) -> pd.DataFrame:
    """The frame behind one of a section's tables (by id)."""
    for t in section.tables():
        if t.id == table_id:
            return t.frame
    raise KeyError(table_id)


@dataclasses.dataclass
class AuditPanel:
    box: object
    controls: dict
    run: object


def audit_panel(
    scenarios, before: pd.DataFrame, *, max_trials: int = 200_000, display_box: bool = True
) -> AuditPanel:
    """An ipywidgets panel over :func:`analysis.workflow.audit.rerun`: pick a system, one
    knob (a health trait, weapon, armour or rule variant of its fights) and a value; "Re-run"
    evaluates the guardrails again and shows those whose status flips against ``before``
    (:func:`analysis.workflow.audit.flips`), then the new table."""
    import ipywidgets as w
    from IPython.display import Markdown, display

    from analysis.workflow import audit
    from engines.errors import InputError

    systems = sorted(set(before["system"]))
    system = w.Dropdown(options=systems, description="system")
    knob = w.Dropdown(description="knob")
    value = w.Dropdown(description="value")
    go = w.Button(description="Re-run", button_style="primary")
    out = w.Output()
    options: dict = {}

    def refresh_knobs(*_):
        options.clear()
        with contextlib.suppress(InputError):  # a system with only check guardrails
            options.update(audit.knob_options(scenarios, system.value))
        knob.options = list(options)
        knob.disabled = not options

    def refresh_values(*_):
        cur, values = options.get(knob.value, (None, []))
        value.options = [(str(v), v) for v in values]
        if values:
            value.value = cur

    def show(r: dict) -> None:
        flipped = r["flips"]
        display(
            Markdown(
                f"**{system.value}: {knob.value} = {value.value!r}** — "
                f"{len(flipped)} guardrail(s) change status"
            )
        )
        if len(flipped):
            display(flipped)
        display(r["after"][list(audit.COLUMNS[:-1])])

    def run(*_, inline: bool = False) -> dict:
        """Re-run with the current choices; show the result in the panel's output area,
        or (``inline=True``) in the calling cell's own output."""
        after = audit.rerun(
            scenarios, system.value, knob.value, value.value, max_trials=max_trials, progress=False
        )
        r = {"after": after, "flips": audit.flips(before, after)}
        out.clear_output()
        if inline:
            show(r)
        else:
            with out:
                show(r)
        return r

    system.observe(refresh_knobs, names="value")
    knob.observe(refresh_values, names="value")
    go.on_click(lambda _: run())
    refresh_knobs()
    refresh_values()
    box = w.VBox([w.HBox([system, knob, value]), go, out])
    if display_box:
        display(box)
    return AuditPanel(box, {"system": system, "knob": knob, "value": value}, run)
