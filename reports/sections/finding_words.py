"""The words of the key findings (:mod:`reports.sections.key_findings`): a figure, a
knob at a value, a fighter spec (:func:`fighter_words`: "a competent swordsman in heavy
archaic armour"), what a guardrail measured with its fighters and starting distance
(:func:`guardrail_statement`), its bounds and the audit's cure, in the language in force.
Knobs, metrics and numbers are the glossary's words (:mod:`analysis.glossary`)."""

from __future__ import annotations

import pandas as pd

from analysis.glossary import figure_phrase, knob_phrase, metric_phrase, value_phrase
from reports.i18n import N_, _, decimal, text

__all__ = [
    "STYLES",
    "bounds_words",
    "cure_text",
    "fighter_words",
    "figure_words",
    "given_words",
    "guardrail_statement",
    "is_probability",
    "setting_words",
    "side_metric_words",
]


def _t(value) -> str:
    """An :class:`analysis.text.Text` (or a catalogue string) in the language in force."""
    return text(value)


def figure_words(metric: str, value, se: float = 0.0) -> str:
    return text(figure_phrase(metric, value, se))


def is_probability(metric: str) -> bool:
    return str(metric).startswith("p_")


def setting_words(system: str, knob: str, value) -> str:
    """A knob at a value: "the 10-again rule (A1) set to 9-again", a rule turned on or
    off as "the criticals rule (C-g2) off"."""
    phrase, shown = _t(knob_phrase(system, knob)), _t(value_phrase(system, knob, value))
    if str(value) in ("side0", "side1"):  # a side of a duel of equals
        return (
            _("{knob} for the first fighter")
            if str(value) == "side0"
            else _("{knob} for the second fighter")
        ).format(knob=phrase)
    if str(value).strip().lower() in ("true", "false"):
        return _("{knob} {value}").format(knob=phrase, value=shown)
    return _("{knob} set to {value}").format(knob=phrase, value=shown)


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the language in force."""
    if len(items) <= 1:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


#: The fighting styles of the archetype libraries (``RUNG_STYLE``), as a designer says them.
STYLES = {
    "swordsman": N_("swordsman"),
    "shooter": N_("shooter"),
    "brawler": N_("brawler"),
    "armoured": N_("armoured fighter"),
    "knife_fighter": N_("knife fighter"),
    "rifleman": N_("rifleman"),
    "fencer": N_("fencer"),
    "knight": N_("knight"),
    "thug": N_("thug"),
}


def fighter_words(system: str, spec) -> str:
    """A fighter spec (an archetype name, or a mapping with ``archetype`` and the gear
    overrides) in words: "a competent swordsman", "a competent fighter (knife)", "a
    competent swordsman in heavy archaic armour" — the rung and style of the archetype's
    name (``RUNG_STYLE``), the weapon and armour by their glossary words."""
    from engines.archetype_library import LADDER

    name, over = (
        (spec, {})
        if isinstance(spec, str)
        else (str(spec.get("archetype", "")), {k: v for k, v in spec.items() if k != "archetype"})
    )
    rung, _sep, style = name.partition("_")
    if rung in LADDER:
        an = rung[:1] in "aeiou"  # the English article; a translation has its own
        if style:
            words = (_("an {rung} {style}") if an else _("a {rung} {style}")).format(
                rung=_(rung), style=_(STYLES[style]) if style in STYLES else style.replace("_", " ")
            )
        else:
            words = (_("an {rung} fighter") if an else _("a {rung} fighter")).format(rung=_(rung))
    else:
        words = name.replace("_", " ")
    armour = over.get("armour")
    if isinstance(armour, int | float) and not isinstance(armour, bool):
        words = _("{fighter} in {points}-point armour").format(
            fighter=words, points=decimal(armour)
        )
    elif armour not in (None, "none"):
        words = _("{fighter} in {armour} armour").format(
            fighter=words, armour=_t(value_phrase(system, "a.armour", armour))
        )
    if over.get("weapon"):
        words = _("{fighter} ({weapon})").format(
            fighter=words, weapon=_t(value_phrase(system, "a.weapon", over["weapon"]))
        )
    return words


def _same(a, b) -> bool:
    as_map = [{"archetype": x} if isinstance(x, str) else dict(x) for x in (a, b)]
    return as_map[0] == as_map[1]


def side_metric_words(metric: str) -> str:
    """A metric of a duel between equals: the first fighter's chance to win (the glossary's
    words for the other metrics)."""
    if metric == "p_side0":
        return _("the first fighter's chance to win")
    if metric == "p_side1":
        return _("the second fighter's chance to win")
    return _t(metric_phrase(metric))


def _where(distance) -> str:
    if distance is None:
        return ""
    if int(distance) == 0:
        return _(" starting engaged (0 m)")
    return _(" starting {distance} m apart").format(distance=decimal(int(distance)))


def guardrail_statement(
    system: str, entry, metric: str, value, se: float = 0.0, distance=None
) -> str:
    """What a guardrail measured, with its fighters, gear and starting distance named
    (:func:`fighter_words`): "a competent swordsman in heavy archaic armour beats a
    competent shooter starting engaged (0 m) 99.8% of the time"; a check's (``entry``
    without fighters) as the glossary says its metric."""
    fig = figure_words(metric, value, se)
    if entry is None or not hasattr(entry, "a"):
        return _("{metric} is {value}").format(metric=_t(metric_phrase(metric)), value=fig)
    a = fighter_words(system, entry.a)
    b = _("an equal") if _same(entry.a, entry.b) else fighter_words(system, entry.b)
    where = _where(distance)
    if metric == "p_side0":
        return _("{a} beats {b}{where} {value} of the time").format(
            a=a, b=b, where=where, value=fig
        )
    if metric == "rounds_mean":
        return _("a duel of {a} against {b}{where} lasts {value} on average").format(
            a=a, b=b, where=where, value=fig
        )
    if metric == "p_one_hit_kill":
        return _("one attack by {a} kills {b}, unhurt, {value} of the time").format(
            a=a, b=b, value=fig
        )
    if metric == "p_one_hit_incapacitate":
        return _(
            "one attack by {a} takes {b}, unhurt, out of the fight (dead, dying or "
            "out) {value} of the time"
        ).format(a=a, b=b, value=fig)
    return _("{metric} is {value} when {a} fights {b}{where}").format(
        metric=_t(metric_phrase(metric)), value=fig, a=a, b=b, where=where
    )


def given_words(system: str, given: str) -> str:
    """The held knobs of an interaction (``variant.again=9, both.armour=none``) in words."""
    parts = []
    for part in str(given).split(", "):
        knob, eq, value = part.partition("=")
        parts.append(setting_words(system, knob, value) if eq else part)
    return _and(parts)


def _duel(system: str, spec: dict, rung: str) -> str:
    """An even duel of a ladder fighter: "an even competent duel (knife)"."""
    from analysis.combat import archetypes

    weapon = archetypes.weapon_name(system, spec)
    gear = _t(value_phrase(system, "a.weapon", weapon)) if weapon else ""
    if not gear:
        return _("an even {rung} duel").format(rung=_(rung))
    return _("an even {rung} duel ({weapon})").format(rung=_(rung), weapon=gear)


def bounds_words(lo, hi, metric: str = "") -> str:
    """The guardrail's bounds: probabilities as the glossary shows them ("50% to 80%"),
    other numbers as written."""

    def shown(x):
        x = float(x)
        if is_probability(metric):
            return figure_words(metric, x)
        return decimal(int(x) if x.is_integer() else x)

    have_lo, have_hi = pd.notna(lo), pd.notna(hi)
    if have_lo and have_hi:
        return _("outside {low} to {high}").format(low=shown(lo), high=shown(hi))
    if have_lo:
        return _("under the minimum {low}").format(low=shown(lo))
    return _("over the maximum {high}").format(high=shown(hi))


def cure_text(system: str, suggestion) -> str:
    """The audit's cure (already in the system's words, :mod:`analysis.workflow.audit.
    cures`), in the report's language."""
    return text(suggestion)
