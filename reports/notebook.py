"""Notebook helpers: show report sections inline and the combat sandbox widget.

The notebooks in ``notebooks/`` stay thin: they import these functions, so what they
show is exactly what the report shows.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from . import sandbox
from .structure import Figure, Note, Paragraph, Section, Table

NO_COMBAT = ("**Combat engines are not present in this build** (no "
             "`engines.combat_<system>` module was found). This sandbox lights up when they "
             "are installed; the checks and cross-system notebooks work without them.")


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


def duel_table(system: str, a: str, b: str, *, tactic_a=None, tactic_b=None, gear_a=None,
               gear_b=None, variants_text: str = "", trials: int = 5000, seed: int = 0,
               round_cap: int = 50):
    """Run ``a`` vs ``b`` (and the mirror ``a`` vs ``a``) with the chosen tactics, gear and
    variants; returns ``(lethality frame, fight-length figure)``."""
    mod = sandbox.engine(system)
    cast, _ = sandbox.archetypes(system, mod)
    t_field, _ = sandbox.tactic_choices(mod, cast[a])
    g_field, gear = sandbox.gear_choices(system, mod, cast[a])
    fa = sandbox.equip(cast[a], tactic=tactic_a, tactic_field=t_field,
                       gear=gear.get(gear_a), gear_field=g_field)
    fb = sandbox.equip(cast[b], tactic=tactic_b, tactic_field=t_field,
                       gear=gear.get(gear_b), gear_field=g_field)
    v = sandbox.variants(mod, variants_text.splitlines())
    results = [(f"{a} vs {b}", mod.duel_mc(fa, fb, trials, seed, v, round_cap)),
               (f"{a} vs {a}", mod.duel_mc(fa, dataclasses.replace(fa), trials, seed + 1, v,
                                           round_cap))]
    return sandbox.lethality_frame(results), sandbox.rounds_figure(results, system)


@dataclasses.dataclass
class CombatSandbox:
    """The sandbox's widgets; :meth:`run` recomputes the table and plot."""

    box: object
    run: object


def combat_sandbox(trials: int = 5000, seed: int = 20261129, round_cap: int = 50):
    """An ipywidgets panel: pick system, archetypes, tactics, gear and variants; the
    lethality table and fight-length plot update on "Run". ``None`` without engines."""
    import ipywidgets as w
    from IPython.display import Image, Markdown, display

    from .plotting import to_png

    engines = sandbox.available_engines()
    if not engines:
        display(Markdown(NO_COMBAT))
        return None
    system = w.Dropdown(options=list(engines), description="system")
    a, b = w.Dropdown(description="side 0"), w.Dropdown(description="side 1")
    ta, tb = w.Dropdown(description="tactic 0"), w.Dropdown(description="tactic 1")
    ga, gb = w.Dropdown(description="gear 0"), w.Dropdown(description="gear 1")
    variants = w.Textarea(description="variants", placeholder="NAME=VALUE, one per line")
    n = w.IntSlider(value=trials, min=100, max=max(trials, 200_000), step=100,
                    description="trials")
    cap = w.IntSlider(value=round_cap, min=1, max=200, description="round cap")
    go = w.Button(description="Run", button_style="primary")
    out = w.Output()
    table_rows = w.Label()

    def refresh(*_):
        mod = engines[system.value]
        cast, notes = sandbox.archetypes(system.value, mod)
        names = list(cast)
        a.options, b.options = names, names
        if names:
            a.value, b.value = names[0], names[-1]
            _, tactics = sandbox.tactic_choices(mod, cast[names[0]])
            _, gear = sandbox.gear_choices(system.value, mod, cast[names[0]])
        else:
            tactics, gear = [], {}
        for d in (ta, tb):
            d.options = [None, *tactics]
            d.value = None
        for d in (ga, gb):
            d.options = [None, *gear]
            d.value = None
        table_rows.value = "; ".join(notes)

    def run(*_):
        out.clear_output()
        with out:
            if not a.options:
                display(Markdown(f"No archetypes for {system.value} in this build."))
                return
            frame, fig = duel_table(system.value, a.value, b.value, tactic_a=ta.value,
                                    tactic_b=tb.value, gear_a=ga.value, gear_b=gb.value,
                                    variants_text=variants.value, trials=n.value, seed=seed,
                                    round_cap=cap.value)
            display(frame)
            display(Image(data=to_png(fig)))
            display(sandbox.variant_rows(engines[system.value]))

    system.observe(refresh, names="value")
    go.on_click(run)
    refresh()
    box = w.VBox([w.HBox([system, n, cap]), w.HBox([a, ta, ga]), w.HBox([b, tb, gb]),
                  variants, w.HBox([go, table_rows]), out])
    display(box)
    return CombatSandbox(box, run)


def frame_of(section: Section, table_id: str) -> pd.DataFrame:
    """The frame behind one of a section's tables (by id)."""
    for t in section.tables():
        if t.id == table_id:
            return t.frame
    raise KeyError(table_id)
