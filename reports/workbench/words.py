"""The workbench's words: every label, option, value and table cell the page shows in
the glossary's words, the same words the report uses (:mod:`reports.labels`,
:mod:`analysis.glossary`, :mod:`reports.i18n`), in the language in force, with the
identifier kept in a tooltip.

No Panel here: the tabs (and any new tab) call these helpers to name what they show.

- :func:`variant_label` / :func:`variant_options` — a rule variant as the report names
  it ("the 10-again rule (A1)": its ``term`` and rule id) and its values in words
  ("9-again", "on"), keyed by the value the command line takes;
- :func:`axis_label` / :func:`axis_options` — a check axis ("the dice pool (A2)");
- :func:`value_words` / :func:`options` — an id shown as words (an archetype, weapon,
  armour, tactic, plan, aftermath, method);
- :func:`variants_words` — a ``k=v`` mapping in words ("default rules (no variants)"
  when empty);
- :func:`frame` — a table as HTML-ready cells: headers in :data:`reports.labels.HEADERS`'
  words inside ``<abbr title="identifier">``, probabilities with
  :func:`reports.i18n.percent` (the language's decimal mark), other numbers with
  :func:`reports.i18n.decimal`, ids in words (:func:`reports.labels.cell_words`) with the
  id as a tooltip, missing values as "—", commands as ``<code>``;
- :func:`tip` / :func:`abbr` — the tooltip of a widget (its ``description``) or of a
  word on the page.
"""

from __future__ import annotations

import html
import math
import numbers
import re

from ..i18n import N_, _, agree, current, decimal, percent, text, translations
from ..labels import cell_words, header

__all__ = [
    "AFTERMATH_WORDS",
    "MISSING",
    "PAGE_HEADERS",
    "PLAN_WORDS",
    "abbr",
    "audit_frame",
    "axis_label",
    "axis_options",
    "axis_words",
    "capital",
    "column_words",
    "figure_numbers",
    "frame",
    "is_percent_column",
    "knob_options",
    "options",
    "tip",
    "value_words",
    "variant_label",
    "variant_options",
    "variants_words",
]

#: what a table shows for a value that was not measured (never ``<NA>`` or ``nan``)
MISSING = "—"

#: the aftermath of a fight (``--variant aftermath=…``) in words: what happens to the
#: fallen once the fight is over (the widget is "Fate of the fallen")
AFTERMATH_WORDS = {"leave": N_("leave"), "first_aid": N_("first aid"), "finish": N_("finish off")}

#: each side's movement plan in a fight with distance (``--plan-a``)
PLAN_WORDS = {
    "charge": N_("charge in"),
    "hold": N_("hold position"),
    "kite": N_("shoot and fall back"),
    "cover": N_("take cover"),
}


#: the page's own columns that the report's :data:`reports.labels.HEADERS` do not name
PAGE_HEADERS = {
    "cure": N_("cure"),
    "p_dead": N_("then dead"),
    "p_dying": N_("then dying"),
    "p_out": N_("then out"),
    "reproduce": N_("its number on the command line"),
    "suggestion": N_("cures found"),
    # the A/B panes (tab_pin.py): each side's chance, value and verdict
    "p_A": N_("A"),
    "p_B": N_("B"),
    "value_A": N_("value under A"),
    "status_A": N_("verdict under A"),
    "value_B": N_("value under B"),
    "status_B": N_("verdict under B"),
}


def column_words(column, lang: str | None = None) -> str:
    """A column's header in words (:data:`PAGE_HEADERS`, else the report's
    :func:`reports.labels.header`)."""
    name = str(column)
    if name in PAGE_HEADERS:
        return translations(lang or current()).gettext(PAGE_HEADERS[name])
    return header(name, lang)


#: a setting left in a fighter's label once its gear is in words (``maneuver=power``)
_SETTING = re.compile(r"([^\W\d_][\w ]*?)=([\w-]+)")

#: a count and its unit, as the solver names a difficulty ("4 successes", "-8 dice")
_COUNTED = re.compile(r"([−-]?\d+) ([a-z]+)")


def capital(words: str) -> str:
    """``words`` with a capital first letter (a label)."""
    return words[:1].upper() + words[1:]


def abbr(words: str, identifier: str) -> str:
    """``words`` as HTML with ``identifier`` in its tooltip (none when they are the
    same); both escaped."""
    shown = html.escape(str(words))
    if str(identifier) == str(words) or not str(identifier):
        return shown
    return f'<abbr title="{html.escape(str(identifier), quote=True)}">{shown}</abbr>'


def tip(identifier: str, command: str = "") -> str:
    """A widget's tooltip (its ``description``): the identifier and, when given, the
    command-line option that sets it."""
    return f"{identifier} — {command}" if command else str(identifier)


def value_words(value, lang: str | None = None) -> str:
    """An id the page shows (archetype, weapon, armour, tactic, plan, aftermath, method,
    status, metric) in the report's words, translated."""
    value = str(value)
    if not value.strip():
        return value
    lang = lang or current()
    tr = translations(lang)
    if value in AFTERMATH_WORDS:
        return tr.gettext(AFTERMATH_WORDS[value])
    if value in PLAN_WORDS:
        return tr.gettext(PLAN_WORDS[value])
    if value == "mc":
        return tr.gettext("Monte Carlo")
    counted = _COUNTED.fullmatch(value)
    if counted:  # "4 successes", "-8 dice": the number in the language's style
        n, unit = counted.groups()
        return agree(f"{decimal(int(n.replace('−', '-')), lang=lang)} {tr.gettext(unit)}", lang)
    words = cell_words(value, lang)
    if words == value:
        words = tr.gettext(value)
    if "=" in words and "(" in words:
        # a fighter's other settings (``maneuver=power``, ``hit_points=12``): a value in
        # its words alone ("ataque poderoso"), a number after its kind's words
        def setting(m: re.Match) -> str:
            kind, v = m.group(1), m.group(2)
            return f"{kind} {v}" if v.lstrip("-").isdigit() else tr.gettext(v.replace("_", " "))

        words = _SETTING.sub(setting, words)
    tokens = value.split()
    if words == value and 1 < len(tokens) <= 3 and "_" not in value:
        # a solver's difficulty ("regular +1 bonus", "DC 13"): word by word
        words = " ".join(tr.gettext(t) for t in tokens)
    return words


def axis_words(system: str, axis: str, lang: str | None = None) -> str:
    """A check axis as a table names it ("pool" → "parada"); the solver's combined
    axes (``level_dice``: the level and the dice of percentile) joined by "+"."""
    from engines.system import get

    if axis in get(system).checks.axes or "_" not in axis:
        return header(axis, lang)
    return " + ".join(header(part, lang) for part in axis.split("_"))


def options(values, lang: str | None = None) -> dict[str, str]:
    """A menu's options: ``{words: value}`` (Panel shows the words and gives back the
    value), two values with the same words told apart by their ids."""
    out: dict[str, str] = {}
    for v in values:
        words = value_words(v, lang)
        if words in out:
            words = f"{words} ({v})"
        out[words] = v
    return out


def variant_label(system: str, name: str) -> str:
    """A rule variant as the report names it, with its rule id ("The 10-again rule
    (A1)")."""
    from analysis.glossary import knob_phrase

    return capital(text(knob_phrase(system, f"variant.{name}")))


def variant_options(system: str, name: str, choices) -> dict[str, str]:
    """A variant's choices in words, keyed by the text ``--variant`` takes."""
    from analysis.glossary import value_phrase

    out: dict[str, str] = {}
    for c in choices:
        words = text(value_phrase(system, f"variant.{name}", c))
        if words in out or not words:
            words = f"{words} ({c})"
        out[words] = c
    return out


def knob_options(system: str, knobs) -> dict[str, str]:
    """Rule fields and trait offsets (``rules.armour.heavy_archaic.ballistic``,
    ``everyone.CON``) in the glossary's words ("Heavy archaic's ballistic (armour,
    A13)"), keyed by the knob."""
    from analysis.glossary import knob_phrase

    out: dict[str, str] = {}
    for k in knobs:
        words = capital(text(knob_phrase(system, k, in_rules=False)))
        if words in out:
            words = f"{words} ({k})"
        out[words] = k
    return out


def axis_label(system: str, axis: str) -> str:
    """A check axis in the system's words ("The dice pool (A2)")."""
    from analysis.glossary import knob_phrase

    return capital(text(knob_phrase(system, axis)))


def axis_options(system: str, axis: str, values, every: str) -> dict[str, str]:
    """An axis's menu: "all" (the value ``every``) then each native value in words."""
    from analysis.glossary import value_phrase

    out = {_("all"): every}
    for v in values:
        words = text(value_phrase(system, axis, v))
        if words in out:
            words = f"{words} ({v})"
        out[words] = v
    return out


def variants_words(system: str, variants: dict, *, markup: bool = True) -> str:
    """Variants in words, each "the rule (id): value", the ``k=v`` of the command line
    in a tooltip; no variant: "default rules (no variants)"."""
    from analysis.glossary import knob_phrase, value_phrase

    if not variants:
        return _("default rules (no variants)")
    parts = []
    for k, v in variants.items():
        words = _("{rule}: {value}").format(
            rule=text(knob_phrase(system, f"variant.{k}")),
            value=text(value_phrase(system, f"variant.{k}", v)),
        )
        parts.append(abbr(words, f"{k}={v}") if markup else words)
    return "; ".join(parts)


def _missing(x) -> bool:
    try:
        import pandas as pd

        if x is None or x is pd.NA:
            return True
    except ImportError:
        pass
    return isinstance(x, float) and math.isnan(x)


def _number(x, digits: int = 4) -> str:
    if isinstance(x, numbers.Integral) or (
        isinstance(x, float) and x.is_integer() and abs(x) < 1e15
    ):
        return decimal(int(x))
    x = float(x)
    if x == 0:
        return decimal(0)
    scale = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return decimal(round(x, min(scale, 8)))


def _cell(x, col: str, percent_col: bool, digits: int) -> str:
    if _missing(x):
        return MISSING
    if isinstance(x, bool):
        return html.escape(_("yes") if x else _("no"))
    if percent_col and isinstance(x, numbers.Real):
        return html.escape(percent(float(x), digits, fixed=True))
    if isinstance(x, numbers.Real):
        return html.escape(_number(x))
    s = str(x)
    if s.startswith(('<abbr title="', "<code>")):  # already in words (:func:`abbr`)
        return s
    if s.startswith("rpg-balance "):
        return f"<code>{html.escape(s)}</code>"
    return abbr(value_words(s), s)


def is_percent_column(col) -> bool:
    """A column of probabilities (``p``, ``p_…``, ``se_…``)."""
    name = str(col)
    return name == "p" or name.startswith(("p_", "se_"))


def frame(df, percent_cols=(), digits: int = 2, words: bool = True):
    """A table for the page, every cell HTML (show it with ``escape=False``): the
    column headers in the report's words (:func:`reports.labels.header`) with the
    identifier in a tooltip, probabilities as percentages in the language's style,
    numbers with its decimal mark, ids in words (``words``) with the id in a tooltip,
    missing values as :data:`MISSING`."""
    out = df.copy()
    for col in out.columns:
        pc = col in percent_cols or is_percent_column(col)
        out[col] = [
            (_cell(x, str(col), pc, digits) if words or not isinstance(x, str) else html.escape(x))
            for x in out[col]
        ]
    out.columns = [
        abbr(column_words(c), c) if isinstance(c, str) else html.escape(_number(c))
        for c in out.columns
    ]
    return out


def audit_frame(table):
    """The audit's table as the page shows it: the guardrail, reason and cures in the
    language in force (the catalogue, as the report's key findings show them), the
    metric in words, each value as :func:`analysis.glossary.figure_phrase` says it
    ("fewer than 1 in a billion", never ``4.463e-11``), its SE and bounds as
    percentages for a probability, a bound that is not set as :data:`MISSING`, the
    status in words, commands as code."""
    from analysis.glossary import figure_phrase, probability_metric

    out = table.copy()
    metrics = [str(m) for m in out["metric"]]

    def bound(x, metric: str, digits: int = 1) -> str:
        if _missing(x):
            return MISSING
        if probability_metric(metric) and 0 <= float(x) <= 1:
            return percent(float(x), digits)
        return _number(float(x), 3)

    if "value" in out.columns:
        out["value"] = [
            text(figure_phrase(m, v)) if not _missing(v) else MISSING
            for m, v in zip(metrics, out["value"], strict=True)
        ]
    for col in ("min", "max"):
        if col in out.columns:
            out[col] = [bound(x, m) for m, x in zip(metrics, out[col], strict=True)]
    if "se" in out.columns:
        out["se"] = [
            MISSING if _missing(x) or not float(x) else bound(x, m, 2)
            for m, x in zip(metrics, out["se"], strict=True)
        ]
    for col in ("guardrail", "reason", "suggestion"):
        if col in out.columns:
            out[col] = ["" if _missing(x) else text(x) for x in out[col]]
    shown = frame(out)
    for col in ("reason", "suggestion", "guardrail"):
        if col in out.columns:  # sentences: escaped, not read as ids
            shown[abbr(column_words(col), col)] = [html.escape(str(x)) for x in out[col]]
    return shown


def figure_numbers(ax, *, percent_y: bool = True) -> None:
    """A figure's tick labels in the language's style: the y axis (a probability) as
    percentages, the x axis with its decimal mark (:func:`reports.i18n.percent`,
    :func:`reports.i18n.decimal`; the language in force when it is drawn)."""
    from matplotlib.ticker import FuncFormatter

    lang = current()
    if percent_y:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos: percent(y, 0, lang)))
    ax.xaxis.set_major_formatter(
        FuncFormatter(
            lambda x, _pos: decimal(int(x) if float(x).is_integer() else round(x, 6), lang=lang)
        )
    )
