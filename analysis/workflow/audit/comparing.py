"""The words of a guardrail that compares (``versus = FIGHT`` or two ``distances``; see
:func:`analysis.workflow.guardrails.comparing`; measured by
:func:`.measuring.measure_compare`): the metric, the two fights (or distances), their
values, the difference or ratio and the limit, as the audit's ``suggestion`` and the
report's reading say them.
"""

from __future__ import annotations

import math

from analysis.text import N_, Text

__all__ = ["compare_words"]


def _number(x) -> str:
    x = float(x)
    return f"{x:.3f}" if math.isfinite(x) else "undefined"


def compare_words(g, m: dict) -> Text:
    """The comparison in words: the metric, the two fights (or distances), their values,
    the difference or ratio and the limit, e.g. "p_side0 of armour_in_melee_dice_pool_7
    minus that of even_duel_dice_pool_7: 0.550 − 0.500 = 0.050, limit at least 0.100"."""
    from analysis.glossary import metric_phrase

    if g.min is not None and g.max is not None:
        limit = Text(N_("between {low} and {high}"), low=_number(g.min), high=_number(g.max))
    elif g.min is not None:
        limit = Text(N_("at least {low}"), low=_number(g.min))
    else:
        limit = Text(N_("at most {high}"), high=_number(g.max))
    first, second = m["names"]
    a, b = m["sides"]
    where = (
        Text(N_(" (at {distance} m)"), distance=m["distance"])
        if m.get("distance") is not None
        else ""
    )
    template = (
        N_(
            "{metric} ({name}) of {first} minus that of {second}{where}: {a} − {b} = "
            "{value}, limit {limit}"
        )
        if m["compare"] == "difference"
        else N_(
            "{metric} ({name}) of {first} divided by that of {second}{where}: {a} / {b} "
            "= {value}, limit {limit}"
        )
    )
    return Text(
        template,
        metric=metric_phrase(g.metric),
        name=g.metric,
        first=first,
        second=second,
        where=where,
        a=_number(a),
        b=_number(b),
        value=_number(m["value"]),
        limit=limit,
    )
