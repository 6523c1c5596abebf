"""The Duel tab's distance table: the exact duel at each starting distance
(:func:`analysis.combat.lethality.distance_table`, what ``rpg-balance duel SYSTEM A B
--table distance --distances …`` prints; RULES.md "Distance, movement and cover"), its
figure (the win chances against the starting distance) and its command."""

from __future__ import annotations

import dataclasses

import pandas as pd

from engines.errors import InputError

from ...i18n import _
from .checks import png_bytes
from .duel import duel_command, side_spec
from .state import DEFAULT_DISTANCES, ENGINE_LOCK, DuelState

__all__ = [
    "DistanceResult",
    "check_distances",
    "distance_command",
    "distance_figure",
    "distance_result",
    "distances_text",
]


@dataclasses.dataclass
class DistanceResult:
    table: pd.DataFrame  # one row per starting distance (the command's columns)
    command: str
    figure: bytes  # PNG (empty when not drawn)


def distances_text(distances) -> str:
    """Metres as ``--distances`` writes them: ``0,5,10``."""
    return ",".join(str(int(x)) for x in distances)


def check_distances(system: str, text: str) -> str:
    """``--distances M,M,…`` as the command line validates it (each 0..MAX_DISTANCE
    whole metres, at least one), for a system whose combat has distance rules; the
    normalised text (``0,5,10``)."""
    from analysis import limits
    from analysis.combat.lethality import has_distance
    from engines.distance import MAX_DISTANCE

    parts = [x.strip() for x in str(text).split(",") if x.strip()]
    if not parts:
        raise InputError("distances: expected metres separated by commas, e.g. 0,10,20")
    if len(parts) > 20:
        raise InputError(f"distances: at most 20 starting distances, got {len(parts)}")
    values = [limits.bounded_int(x, 0, MAX_DISTANCE, "whole metres", "distances") for x in parts]
    if not has_distance(system):
        raise InputError(
            f"distances: {system} fights start engaged (its combat has no distance rules)"
        )
    return distances_text(values)


def _metres(d: DuelState) -> list[int]:
    return [int(x) for x in (d.distances or distances_text(DEFAULT_DISTANCES)).split(",")]


def distance_command(d: DuelState) -> str:
    """``rpg-balance duel SYSTEM A B … --table distance --distances …`` of the duel
    (exact: the table's method; the duel's own starting distance is the table's axis)."""
    base = dataclasses.replace(d, distance=0, method="exact")
    return (
        duel_command(base, "distance").removesuffix(" --format csv")
        + f" --distances {distances_text(_metres(d))} --format csv"
    )


def distance_result(d: DuelState, *, figure: bool = True) -> DistanceResult:
    """The exact duel at each of the duel's starting distances, as the command computes
    it, under the engine lock."""
    from analysis.combat import lethality

    from .duel import duel_variant_map

    base = dataclasses.replace(d, distance=0)
    v = lethality.combat_variants(d.system, duel_variant_map(base))
    with ENGINE_LOCK:
        table = lethality.distance_table(
            d.system,
            side_spec(d, "a"),
            side_spec(d, "b"),
            _metres(d),
            method="exact",
            variants=v,
            round_cap=d.round_cap,
        )
    return DistanceResult(table, distance_command(d), distance_figure(table) if figure else b"")


def distance_figure(table: pd.DataFrame) -> bytes:
    """A wins, B wins and neither against the starting distance (exact)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 2.8))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    x = table["distance"].to_numpy()
    for key, label in (
        ("p_side0", _("A wins")),
        ("p_side1", _("B wins")),
        ("p_neither", _("neither")),
    ):
        ax.plot(x, table[key].to_numpy(), marker="o", label=label)
    ax.set(xlabel=_("starting distance (metres)"), ylabel=_("chance"), ylim=(0, 1.02))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return png_bytes(fig)
