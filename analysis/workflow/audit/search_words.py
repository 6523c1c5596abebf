"""The words of a cure search (:class:`.cures.CureSearch`): the ranges searched, the
knobs held as the question, and the sentence of a failed guardrail no one-knob edit
cures — why (the nearest value any searched setting reaches) and at most
:data:`SHOWN_RANGES` of the ranges searched, the rest counted (every range is in the
audit's ``searched`` column, :func:`searched_words`)."""

from __future__ import annotations

from analysis.text import N_, Text, join

__all__ = ["SHOWN_RANGES", "held_words", "no_cure_text", "range_words", "searched_words"]

#: the searched ranges a no-cure sentence names (the rest counted: "and 17 more")
SHOWN_RANGES = 3


def searched_words(search) -> Text:
    """Every range searched, in words (the audit's ``searched`` column)."""
    return join("; ", (range_words(search.system, k) for k in search.searched))


def range_words(system: str, knob) -> Text:
    """One :class:`.cures.Knob`'s range: "the skill (D1) 1–99", a switch's values."""
    from analysis.glossary import knob_phrase, value_phrase

    name = knob_phrase(system, knob.name)
    if knob.ordered:
        return Text(
            "{knob} {low}–{high}",
            knob=name,
            low=value_phrase(system, knob.name, knob.values[0]),
            high=value_phrase(system, knob.name, knob.values[-1]),
        )
    return Text(
        "{knob} ({values})",
        knob=name,
        values=join(" | ", (value_phrase(system, knob.name, v) for v in knob.values)),
    )


def held_words(system: str, held: list) -> Text:
    """The held knobs in words: the fighters (``a``, ``b``) once, the others by name."""
    from analysis.glossary import knob_phrase

    words = []
    if "a" in held or "b" in held:
        words.append(Text(N_("the fighters")))
    words += [knob_phrase(system, h) for h in held if h not in ("a", "b")]
    return join(", ", words) if words else Text(N_("nothing"))


def no_cure_text(search, metric: str) -> Text:
    """A search that found no cure, in words: nothing to search once the question is
    held; or the nearest value a searched setting reaches (``search.closest``: why no
    setting cures it), the first :data:`SHOWN_RANGES` ranges searched and how many
    more, and what is held."""
    system = search.system
    held = held_words(system, search.held)
    if not search.searched:
        return Text(
            N_(
                "no one-knob cure: nothing is left to search once the "
                "guardrail's own terms are held ({held})"
            ),
            held=held,
        )
    ranges = [range_words(system, k) for k in search.searched]
    if len(ranges) > SHOWN_RANGES:
        ranges = [
            *ranges[:SHOWN_RANGES],
            Text(N_("{count} more (all in the CSV)"), count=len(ranges) - SHOWN_RANGES),
        ]
    if search.closest is None:
        return Text(
            N_("no cure within the searched range ({searched}); held as the question: {held}"),
            held=held,
            searched=join("; ", ranges),
        )
    from analysis.glossary import figure_phrase, knob_phrase, value_phrase

    knob, value, estimate = search.closest
    return Text(
        N_(
            "no one-knob edit cures it: the nearest any searched value comes is "
            "{figure}, with {knob} at {value} (searched: {searched}; held as the "
            "question: {held})"
        ),
        figure=figure_phrase(metric, estimate),
        knob=knob_phrase(system, knob),
        value=value_phrase(system, knob, value),
        held=held,
        searched=join("; ", ranges),
    )
