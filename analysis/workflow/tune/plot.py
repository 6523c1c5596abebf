"""The figure of a tune run: every candidate by (edit size, worst margin), the
feasible ones and the front marked, written atomically by :func:`save_front_plot`."""

from __future__ import annotations

from pathlib import Path

from .problem import TuneResult, edit_size_of
from .reading import how_found

__all__ = ["FIGURE_WORDS", "front_figure", "save_front_plot"]

#: the words of :func:`front_figure` (the report passes them translated)
FIGURE_WORDS = {
    "infeasible": "infeasible",
    "feasible": "feasible",
    "front": "front",
    "x": "edit size: knobs changed + distance / (total weight + 1)",
    "y": "worst guardrail margin (limits' width)",
}


def front_figure(result: TuneResult, words: dict | None = None):
    """Every candidate evaluated as edit size (changes + distance / (total weight + 1))
    against worst margin: grey when it fails a guardrail, blue when feasible, the front
    in red joined by a step line, as Optuna's ``plot_pareto_front`` colours them.
    ``words``: :data:`FIGURE_WORDS` in another language (the title is then left out)."""
    w = {**FIGURE_WORDS, **(words or {})}
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ev_size = edit_size_of(result)
    fig = Figure(figsize=(7.0, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    groups = [
        ([r for r in result.candidates if not r["feasible"]], "#cccccc", w["infeasible"]),
        ([r for r in result.candidates if r["feasible"]], "#1f77b4", w["feasible"]),
    ]
    for rows, colour, label in groups:
        if rows:
            ax.scatter(
                [ev_size(r) for r in rows],
                [r["worst_margin"] for r in rows],
                s=14,
                color=colour,
                label=f"{label} ({len(rows)})",
                zorder=2,
            )
    front = result.front
    xs = [ev_size(r) for r in front]
    ys = [r["worst_margin"] for r in front]
    ax.step(xs, ys, where="post", color="#d62728", linewidth=1, zorder=3)
    ax.scatter(xs, ys, s=30, color="#d62728", label=f"{w['front']} ({len(front)})", zorder=4)
    ax.axhline(0.0, color="black", linewidth=0.6, linestyle="--")
    ax.set_xlabel(w["x"])
    ax.set_ylabel(w["y"])
    if words is None:
        ax.set_title(f"{Path(result.problem.file).name}: {how_found(result)}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def save_front_plot(result: TuneResult, path: str) -> None:
    """:func:`front_figure` written atomically (.png, .svg or .pdf)."""
    from analysis.output import atomic_path

    fig = front_figure(result)
    with atomic_path(path, "--plot") as tmp:
        fig.savefig(tmp, format=str(path).rsplit(".", 1)[-1].lower(), dpi=120)
