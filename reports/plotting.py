"""Figure helpers for reports: one colour per system everywhere, print-readable styling.

The system colours are :data:`analysis.checks.plots.SYSTEM_COLORS`: each system's
``color`` report hook (a plug-in without one gets a spare colour, in registry order). Lines inside a
single system's figure are told apart by shade, line style *and* marker, so they stay
distinguishable in greyscale print and for colour-blind readers.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from contextvars import ContextVar

from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

__all__ = [
    "LINESTYLES",
    "MARKERS",
    "PAGE_WIDTH",
    "fit_page",
    "line_styles",
    "new_figure",
    "print_fonts",
    "probability_axis",
    "recording_texts",
    "shades",
    "system_color",
    "system_colors",
    "to_png",
    "translate_figure",
]

LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def system_colors() -> dict[str, str]:
    """System id → colour of every installed system (the analysis figures' colours)."""
    from analysis.checks.plots import SYSTEM_COLORS
    from engines.system import registry

    return {sid: SYSTEM_COLORS[sid] for sid in registry()}


def system_color(system: str) -> str:
    from analysis.checks.plots import SYSTEM_COLORS

    return SYSTEM_COLORS.get(system, "#000000")


def shades(system: str, n: int) -> list[tuple[float, float, float]]:
    """``n`` shades of the system's colour, light to dark (never near-white)."""
    base = to_rgb(system_color(system))
    out: list = []
    for i in range(n):
        t = -0.45 + 0.9 * (i / max(n - 1, 1))  # -0.45 lighter … +0.45 darker
        if t < 0:
            out.append(tuple(c + (1 - c) * (-t) for c in base))
        else:
            out.append(tuple(c * (1 - t) for c in base))
    return out


def line_styles(system: str, n: int) -> Iterator[dict]:
    """Matplotlib keyword sets for ``n`` lines of one system (shade + style + marker)."""
    for i, colour in enumerate(shades(system, n)):
        yield {
            "color": colour,
            "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)],
            "markersize": 3.5,
            "linewidth": 1.6,
        }


def new_figure(ncols: int = 1, *, width: float = 7.2, height: float = 3.3, sharey=True):
    """A figure sized for an A4 page column (no pyplot: no global figure state).

    Fonts are set to print-readable sizes by :func:`to_png`.
    """
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(1, ncols, sharey=sharey, squeeze=False)
    for ax in axes[0]:
        ax.grid(True, color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    return fig, list(axes[0])


def probability_axis(ax, label: str | None = None) -> None:
    """Probability y axis (0–1) with a label in the report's language."""
    from reports.i18n import _

    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel(
        _("{label} (probability, 0–1)").format(label=_("P(success)") if label is None else label)
    )


def print_fonts(fig) -> None:
    """Font sizes readable on an A4 page (titles 9.5 pt, labels 9, ticks 8, legends 7.5)."""
    for ax in fig.axes:
        ax.title.set_fontsize(9.5)
        ax.xaxis.label.set_fontsize(9)
        ax.yaxis.label.set_fontsize(9)
        ax.tick_params(labelsize=8)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_fontsize(7.5)
            legend.get_title().set_fontsize(8)


#: Widest figure that prints at full size in an A4 text column (inches).
PAGE_WIDTH = 7.2


def fit_page(fig, min_height: float = 3.0) -> None:
    """Shrink a figure wider than the page to :data:`PAGE_WIDTH` (fonts keep their size)."""
    w, h = fig.get_size_inches()
    if w > PAGE_WIDTH + 0.05:
        fig.set_size_inches(PAGE_WIDTH, max(h * PAGE_WIDTH / w, min_height))


_NUMBER = re.compile(r"^[−+-]?\d[\d,]*(\.\d+)?$")


def _local_text(text: str, lang: str) -> str:
    """A figure text in ``lang``: the catalogue's translation (a sentence made in
    :mod:`analysis` from a template, :func:`reports.i18n.text`), or a plain number with
    the locale's decimal comma (pt-BR)."""
    from reports.i18n import agree
    from reports.i18n import text as translated

    if not text:
        return text
    if _NUMBER.match(text):
        if lang == "en":
            return text
        return text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    out = translated(text, lang)
    if out == text and ": " in text:
        # "dice_pool_7: attack_attack" — a system's line named by its tactic or gear
        head, _, tail = text.partition(": ")
        out = f"{translated(head, lang)}: {translated(tail, lang)}"
    return agree(out, lang)


def translate_figure(fig, lang: str | None = None) -> None:
    """Put every text of ``fig`` in the report's language (titles, axis labels, tick
    labels, legends, colour bars): figures made in :mod:`analysis` carry English labels,
    which are looked up in the same gettext catalogue (their msgids are marked in
    :mod:`reports.labels`); numeric tick labels get the locale's decimal comma. English
    leaves the figure untouched."""
    from reports.i18n import current

    lang = lang or current()
    if lang == "en":
        return
    fig.draw_without_rendering()  # tick labels exist only once the figure is laid out
    for text in fig.texts:
        text.set_text(_local_text(text.get_text(), lang))
    for ax in fig.axes:
        for item in (
            ax.title,
            ax._left_title,
            ax._right_title,
            ax.xaxis.label,
            ax.yaxis.label,
            *ax.texts,
        ):  # ax.texts: annotations, bar labels
            item.set_text(_local_text(item.get_text(), lang))
        for axis, get_lim, set_lim in (
            (ax.xaxis, ax.get_xlim, ax.set_xlim),
            (ax.yaxis, ax.get_ylim, ax.set_ylim),
        ):
            lim = get_lim()
            ticks = axis.get_majorticklocs()
            labels = [_local_text(t.get_text(), lang) for t in axis.get_majorticklabels()]
            if len(labels) == len(ticks):
                axis.set_ticks(ticks, labels)
                set_lim(lim)
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set_text(_local_text(text.get_text(), lang))
            legend.get_title().set_text(_local_text(legend.get_title().get_text(), lang))


_RECORDER: ContextVar[list | None] = ContextVar("figure_texts", default=None)


@contextlib.contextmanager
def recording_texts() -> Iterator[list[list[str]]]:
    """Record the texts every figure draws (titles, axis and tick labels, legends,
    annotations), as :func:`to_png` prints them: one list of strings per figure, in the
    order the figures are made. The figures are PNGs, so this is how a check reads their
    words (the report's language in force, after :func:`translate_figure`)."""
    figures: list[list[str]] = []
    token = _RECORDER.set(figures)
    try:
        yield figures
    finally:
        _RECORDER.reset(token)


def _drawn_texts(fig) -> list[str]:
    from matplotlib.text import Text

    fig.draw_without_rendering()
    return [t.get_text() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def to_png(fig, dpi: int = 110) -> bytes:
    """PNG bytes of ``fig`` in the report's language, whole-number axes with whole ticks
    (:func:`analysis.checks.plots.whole_ticks`; deterministic: no timestamps in the
    metadata)."""
    from analysis.checks.plots import whole_ticks

    fit_page(fig)
    whole_ticks(fig)  # before the translation fixes the tick labels
    translate_figure(fig)
    print_fonts(fig)
    recorder = _RECORDER.get()
    if recorder is not None:
        recorder.append(_drawn_texts(fig))
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()
