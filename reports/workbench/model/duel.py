"""The duel tab: two archetypes' duel, exact or by Monte Carlo
(:func:`analysis.combat.lethality.duel_stats` / ``one_hit``), under the engine lock, its
sentence, figure and the command that prints the same numbers."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ...i18n import _, percent
from ...i18n import decimal as fmt_decimal
from .checks import png_bytes
from .state import ENGINE_LOCK, DuelState

__all__ = [
    "DuelResult",
    "duel_command",
    "duel_figure",
    "duel_result",
    "duel_sentence",
    "duel_variant_map",
    "side_spec",
]


@dataclasses.dataclass
class DuelResult:
    row: dict  # lethality.summary (the duel command's summary row)
    one_hit: pd.DataFrame  # A on B and B on A, exact
    sentence: str
    command: str
    one_hit_command: str
    figure: bytes  # PNG (empty when not drawn: see :func:`duel_figure`)
    stats: Any = None  # the FightStats behind the row


def _spec(d: DuelState, side: str) -> dict:
    spec: dict = {"archetype": getattr(d, side)}
    for key in ("weapon", "armour", "tactic", "plan"):
        value = getattr(d, f"{key}_{side}")
        if value is not None:
            spec[key] = _armour_value(d.system, value) if key == "armour" else value
    from analysis.rule_edits import trait_values

    spec.update(trait_values(d.system, getattr(d, f"traits_{side}"), f"trait-{side}"))
    return spec


def side_spec(d: DuelState, side: str) -> dict:
    """Side ``side`` (``a`` or ``b``) as the lethality functions take it:
    ``{"archetype": NAME, **the gear given}``."""
    return _spec(d, side)


def _armour_value(system: str, value: str):
    """Armour as the library gives it (points are numbers, as ``--armour-a 4``)."""
    from analysis.combat import archetypes

    for x in archetypes.armours(system):
        if str(x) == str(value):
            return x
    return value


def duel_variant_map(d: DuelState) -> dict[str, str]:
    """The combat variants of the duel as ``--variant`` gives them (distance and
    aftermath included when they are not the defaults)."""
    out = dict(d.variants)
    if d.distance:
        out["distance"] = str(d.distance)
    if d.aftermath != "leave":
        out["aftermath"] = d.aftermath
    return out


def duel_command(d: DuelState, table: str | None = None) -> str:
    from analysis.workflow.audit import reproduce

    mc = (d.trials, d.seed) if d.method == "mc" and table is None else None
    return (
        reproduce.duel(
            d.system,
            _spec(d, "a"),
            _spec(d, "b"),
            variants=duel_variant_map(d),
            table=table,
            mc=mc,
            round_cap=d.round_cap,
        )
        + " --format csv"
    )


def duel_result(
    d: DuelState, *, on_batch: Callable[[int, int], None] | None = None, figure: bool = True
) -> DuelResult:
    """The duel as ``rpg-balance duel`` computes it: exact (the default), or Monte Carlo
    over ``d.trials`` fights from ``d.seed`` (``on_batch(done, total)`` after each batch
    of :data:`analysis.combat.lethality.MC_BATCH` fights; raise :class:`Cancelled` in it
    to stop). The lock is held batch by batch, never for a whole long run."""
    from analysis.combat import lethality

    v = lethality.combat_variants(d.system, duel_variant_map(d))
    sa, sb = _spec(d, "a"), _spec(d, "b")
    if d.method == "exact":
        with ENGINE_LOCK:
            stats = lethality.duel_stats(
                d.system, sa, sb, "exact", variants=v, round_cap=d.round_cap
            )
    else:

        def batch(done: int, total: int) -> None:
            ENGINE_LOCK.release()
            try:
                if on_batch is not None:
                    on_batch(done, total)
            finally:
                ENGINE_LOCK.acquire()

        with ENGINE_LOCK:
            stats = lethality.duel_stats(
                d.system,
                sa,
                sb,
                "mc",
                trials=d.trials,
                seed=d.seed,
                variants=v,
                round_cap=d.round_cap,
                progress=False,
                on_batch=batch,
            )
    st = next(iter(stats.values()))
    name_a, name_b = lethality.stats_names(stats)
    row = lethality.summary(st, system=d.system, a=name_a, b=name_b)
    with ENGINE_LOCK:
        hits = pd.DataFrame(
            [
                {"attacker": f"{x} ({side})", "target": y, **lethality.one_hit(d.system, s1, s2, v)}
                for side, x, y, s1, s2 in (
                    ("A", name_a, name_b, sa, sb),
                    ("B", name_b, name_a, sb, sa),
                )
            ]
        )
    png = _duel_figure(st, name_a, name_b, d.round_cap) if figure else b""
    from analysis.combat.archetypes import weapon_name

    # ``duel --table one-hit`` lists every weapon of A unless one is named: name A's
    one_hit = dataclasses.replace(
        d, method="exact", weapon_a=d.weapon_a or weapon_name(d.system, sa)
    )
    return DuelResult(
        row, hits, duel_sentence(d, row), duel_command(d), duel_command(one_hit, "one-hit"), png, st
    )


def duel_figure(d: DuelState, r: DuelResult) -> bytes:
    """The figure of a :class:`DuelResult` computed without it."""
    return _duel_figure(r.stats, r.row["a"], r.row["b"], d.round_cap)


def _p(row: dict, key: str, se_key: str | None, exact: bool) -> str:
    text = percent(float(row[key]))
    if not exact and se_key is not None:
        text += " ± " + percent(float(row[se_key]), 2)
    return text


def duel_sentence(d: DuelState, row: dict) -> str:
    """Who wins, how the loser ends and how long it lasts, in words that name the
    fighters, gear, variants and method ("A wins 99.4% of fights"; the identifiers in
    tooltips, the command beside it prints the numbers)."""
    from ..words import abbr, value_words, variants_words

    exact = row["method"] == "exact"
    variants = variants_words(d.system, d.variants)
    how = (
        _("exact")
        if exact
        else _("Monte Carlo, {trials} fights from seed {seed}, ± one standard error").format(
            trials=fmt_decimal(int(row["trials"])), seed=d.seed
        )
    )
    head = _(
        "{a} (A) against {b} (B) in {system} ({how}; variants: {variants}; round cap {cap}):"
    ).format(
        a=abbr(value_words(row["a"]), row["a"]),
        b=abbr(value_words(row["b"]), row["b"]),
        system=d.system,
        how=how,
        variants=variants,
        cap=d.round_cap,
    )
    if d.distance:
        head = head.rstrip(":") + " " + _("at {metres} m:").format(metres=fmt_decimal(d.distance))
    wins = _("A wins {pa} of fights, B wins {pb}, neither side {pn}.").format(
        pa=_p(row, "p_side0", "se_side0", exact),
        pb=_p(row, "p_side1", "se_side1", exact),
        pn=_p(row, "p_neither", "se_neither", exact),
    )
    fates = _(
        "The loser ends dead {dead}, dying {dying}, out {out} (aftermath: {aftermath})."
    ).format(
        dead=_p(row, "p_loser_dead", "se_loser_dead", exact),
        dying=_p(row, "p_loser_dying", "se_loser_dying", exact),
        out=_p(row, "p_loser_out", "se_loser_out", exact),
        aftermath=abbr(value_words(row["aftermath"]), row["aftermath"]),
    )
    mean = fmt_decimal(round(float(row["rounds_mean"]), 2))
    if not exact:
        mean += " ± " + fmt_decimal(round(float(row["rounds_se"]), 3))
    rounds = _("A fight lasts {mean} rounds on average (median {median}).").format(
        mean=mean, median=fmt_decimal(int(row["rounds_q50"]))
    )
    return " ".join([head, wins, fates, rounds])


def _duel_figure(st, name_a: str, name_b: str, round_cap: int) -> bytes:
    """P(the fight is still on after round k), and the round it ends in; Monte Carlo
    lines carry ±2 SE bands."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    pmf = np.asarray(st.rounds_pmf(), dtype=float)
    top = int(min(max(np.nonzero(pmf > 1e-4)[0].max(initial=1) + 1, 5), round_cap, 30))
    k = np.arange(top + 1)
    on = 1 - np.cumsum(pmf)[: top + 1]
    fig = Figure(figsize=(7.5, 2.8))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    left.step(k, on, where="post")
    right.bar(k, pmf[: top + 1])
    if not st.exact:
        n = st.n
        se_on = np.sqrt(np.clip(on * (1 - on), 0, None) / n)
        left.fill_between(k, on - 2 * se_on, on + 2 * se_on, step="post", alpha=0.25)
        se_p = np.sqrt(np.clip(pmf[: top + 1] * (1 - pmf[: top + 1]), 0, None) / n)
        right.errorbar(k, pmf[: top + 1], yerr=2 * se_p, fmt="none", ecolor="k", lw=0.8)
    left.set(xlabel=_("round"), ylabel=_("P(fight still on)"), ylim=(0, 1.02))
    right.set(xlabel=_("round"), ylabel=_("P(ends in this round)"))
    from ..words import figure_numbers, value_words

    for ax in (left, right):
        ax.grid(alpha=0.3)
        figure_numbers(ax)
    fig.suptitle(f"{value_words(name_a)} (A) × {value_words(name_b)} (B)", fontsize=9)
    fig.tight_layout()
    return png_bytes(fig)
