"""The words of a finding: knobs, metrics and numbers as a designer reads them.

The audit names what it measured with identifiers (``both.vigor``, ``variant.again``,
``p_rounds_between:3:5``) and numbers (``4.46e-11``); a designer reads "both fighters'
Vigor (B9)", "the chance of a duel that lasts 3–5 rounds" and "fewer than 1 in a
billion". This module turns the one into the other:

- :func:`knob_phrase` — a knob of the audit (:func:`analysis.workflow.fight_sweep.
  apply_knob`'s ``both.<trait>``, ``a.<trait>``, ``b.<trait>``, ``a.weapon``,
  ``both.armour``, ``variant.<name>``, and the check axes ``pool``, ``difficulty``,
  ``dc`` …) in the system's own words with its rule id;
- :func:`value_phrase` — a value of such a knob (a variant ``True`` is "on");
- :func:`metric_phrase` — a fight metric (:data:`analysis.combat.fights.METRIC_NAMES`),
  ``p_success`` of a check or a campaign metric (:data:`analysis.campaign.
  CAMPAIGN_METRICS`) as a noun phrase ("the chance to succeed");
- :func:`figure_phrase` — a measured number as a designer reads it: a probability as a
  percentage with 2–3 significant digits, a tiny one in words, mean rounds with one
  decimal; never scientific notation.

The words come from the systems themselves: a trait, gear or check axis from the
``Audit.terms`` hook of the system's :class:`~engines.system.System`, a rule variant from its
field's ``term`` / ``words`` and ``rule`` (:func:`engines.variants.variant`). Whatever a
system does not name (a plug-in's trait, an unknown knob) is read from the identifier
itself ("hit_points" → "hit points"); nothing here raises on an unknown name.

Every phrase is an :class:`analysis.text.Text`: English here, shown in the report's
language by ``reports.i18n.text`` (templates marked with :func:`N_`, numbers filled in the
language's style).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

from analysis.text import N_, Text

__all__ = [
    "figure_phrase",
    "knob_phrase",
    "metric_phrase",
    "probability_metric",
    "rounds_metric",
    "value_phrase",
]

#: the sides of a fight knob and how a phrase names them
_SIDES = {
    "both": N_("both fighters' {trait}"),
    "a": N_("fighter A's {trait}"),
    "b": N_("fighter B's {trait}"),
}

#: fight metrics with a fixed phrase (``p_rounds_between:LO:HI`` is built from its rounds)
_METRICS = {
    "p_side0": N_("the chance that fighter A wins"),
    "p_side1": N_("the chance that fighter B wins"),
    "p_neither": N_("the chance that neither fighter wins"),
    "rounds_mean": N_("the duel's mean length"),
    "p_loser_dead": N_("the chance that the loser ends dead"),
    "p_loser_dying": N_("the chance that the loser ends dying"),
    "p_loser_out": N_("the chance that the loser ends out of the fight but stable"),
    "p_someone_dead": N_("the chance that at least one fighter ends dead"),
    "deaths_mean": N_("the mean number of fighters who end dead"),
    "p_one_hit_hit": N_("the chance that one attack hits an unhurt fighter"),
    "p_one_hit_incapacitate": N_("the chance that one attack drops an unhurt fighter"),
    "p_one_hit_kill": N_("the chance that one attack kills an unhurt fighter"),
    "p_one_hit_dead": N_("the chance that one attack drops an unhurt fighter who then ends dead"),
    "p_one_hit_dying": N_("the chance that one attack drops an unhurt fighter who then ends dying"),
    "p_one_hit_out": N_(
        "the chance that one attack drops an unhurt fighter who then ends out but stable"
    ),
    "p_success": N_("the chance to succeed"),
}

_TRUE, _FALSE = {"true", "yes", "on"}, {"false", "no", "off"}


# --------------------------------------------------------------------------- knobs


def knob_phrase(system: str, knob: str, *, in_rules: bool = True) -> Text:
    """A knob of the audit in the system's own words, with the rule id it cites.

    ``both.<trait>`` → "both fighters' Vigor (B9)", ``a.<trait>`` → "fighter A's …",
    ``b.<trait>`` → "fighter B's …" (``weapon``, ``armour`` and ``tactic`` are traits
    too); ``variant.<name>`` → the variant's ``term`` and rule ("the 10-again rule (A1)");
    a check axis (``pool``, ``difficulty``, ``dc`` …) → its term ("the DC (E1)"). The
    words are the system's ``Audit.terms`` hook and its variant fields; a name the system does
    not give words for is read from the identifier. ``in_rules=False`` leaves out the
    "in the rules, " that opens a rule-table field (for a list of knobs)."""
    knob = str(knob).strip()
    spec = _system(system)
    side, dot, name = knob.partition(".")
    if dot and side == "variant":
        return _variant_phrase(spec, name)
    if dot and side == "rules":
        return _rule_phrase(system, spec, name, in_rules)
    if dot and side == "everyone":
        word, rule = _term(spec, name)
        return _with_rule(Text(N_("the offset to every fighter's {trait}"), trait=word), rule)
    if dot and side in _SIDES:
        word, rule = _term(spec, name)
        return _with_rule(Text(_SIDES[side], trait=word), rule)
    if not dot:
        word, rule = _term(spec, knob)
        return _with_rule(word, rule)
    return _word(knob)


def _rule_phrase(system: str, spec, name: str, in_rules: bool = True) -> Text:
    """``rules.KIND.ENTRY[.FIELD]`` in words: "in the rules, heavy archaic's ballistic
    (armour, A13)" — the entry's word from the system's ``terms``, the field's name and
    the table with its rule (:mod:`analysis.rules`)."""
    kind, _, rest = name.partition(".")
    entry, _, field = rest.partition(".")
    found = spec.audit.terms.get(f"{kind}={entry}") if spec is not None else None
    word = Text(found[0]) if found is not None else _word(entry)
    rule = ""
    try:
        from analysis.rules import table_rows

        rule = next(
            (r["rule"] for r in table_rows(system) if r["table"] == kind and r["entry"] == entry),
            "",
        )
    except Exception:  # words only: an unknown system or entry reads its identifier
        rule = ""
    where = (
        Text(N_("{table}, {rule}"), table=_word(kind), rule=rule.split(",")[0].strip())
        if rule
        else _word(kind)
    )
    if field and not in_rules:
        return Text(N_("{entry}'s {field} ({where})"), entry=word, field=_word(field), where=where)
    if field:
        return Text(
            N_("in the rules, {entry}'s {field} ({where})"),
            entry=word,
            field=_word(field),
            where=where,
        )
    return Text(N_("in the rules, {entry} ({where})"), entry=word, where=where)


def value_phrase(system: str, knob: str, value: Any) -> Text:
    """A value of a knob in words: a variant's ``words`` ("9-again"), a variant's
    true / false as "on" / "off", a trait's, gear's or axis's value from the system's
    ``terms`` (``armour=heavy_archaic`` → "heavy archaic"), a level in its own word
    ("hard"); numbers as numbers. Values given as text (``"True"``, ``"9"``, as the
    audit's sweeps print them) are read as the knob's own type first."""
    spec = _system(system)
    side, dot, name = str(knob).strip().partition(".")
    if not dot:
        side, name = "", str(knob).strip()
    field = _variant_field(spec, name) if side == "variant" else None
    value = _coerce(value, field)
    if field is not None:
        words = field.metadata.get("words") or {}
        if not isinstance(value, bool) and value in words:  # (True == 1 as a key)
            return Text(words[value])
        if isinstance(value, bool):
            return Text(N_("on")) if value else Text(N_("off"))
    if spec is not None:
        term = spec.audit.terms.get(f"{name}={value}")
        if term is not None:
            return Text(term[0])
    if value is None:
        return Text(N_("none"))
    if isinstance(value, bool):
        return Text(N_("yes")) if value else Text(N_("no"))
    if isinstance(value, int | float):
        return _number(value, 3)
    return _word(str(value))


def _coerce(value, field):
    """A value printed as text (``"True"``, ``"9"``) back to the knob's type."""
    if not isinstance(value, str):
        return value.item() if hasattr(value, "item") else value
    text = value.strip()
    if field is not None:  # a variant: its own true / false / none
        if text.lower() in _TRUE | _FALSE:
            return text.lower() in _TRUE
        if text.lower() == "none" and None in (field.metadata.get("choices") or ()):
            return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def _system(system: str):
    """The registered :class:`~engines.system.System` of an id, or None."""
    from engines.errors import InputError
    from engines.system import registry

    try:
        return registry().get(str(system))
    except InputError:  # a broken plug-in: words from the identifiers
        return None


def _term(spec, key: str) -> tuple[Text, str]:
    """``(word, rule id)`` of a key of the system's ``terms`` (a readable word and no
    rule when it has none)."""
    found = spec.audit.terms.get(key) if spec is not None else None
    if found is None:
        return _word(key), ""
    return Text(found[0]), found[1]


def _variant_field(spec, name: str):
    """The dataclass field of variant ``name``: the combat engine's ``Variants`` first
    (they carry the check variants too), then the check ``Variants``."""
    if spec is None:
        return None
    classes = []
    # a plug-in's engine that cannot load leaves its variants unnamed, never a crash
    if spec.combat is not None:
        with contextlib.suppress(Exception):
            classes.append(getattr(spec.combat.engine(), "Variants", None))
    with contextlib.suppress(Exception):
        classes.append(spec.checks.variants)
    for cls in classes:
        if cls is not None and dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls):
                if f.name == name:
                    return f
    return None


def _variant_phrase(spec, name: str) -> Text:
    field = _variant_field(spec, name)
    if field is None:
        return Text(N_("the rule variant “{name}”"), name=_word(name))
    term = field.metadata.get("term") or ""
    word = Text(term) if term else Text(N_("the “{name}” rule"), name=_word(name))
    return _with_rule(word, str(field.metadata.get("rule") or ""))


def _with_rule(phrase: Text, rule: str) -> Text:
    return Text(N_("{phrase} ({rule})"), phrase=phrase, rule=rule) if rule else phrase


def _word(identifier: str) -> Text:
    """An identifier read as words (``hit_points`` → "hit points", ``both.x`` → "both
    x"); a word the catalogue has ("hard", "none") is shown translated."""
    text = str(identifier).replace("_", " ").replace(".", " ").strip()
    return Text(" ".join(text.split()).replace("{", "{{").replace("}", "}}"))


# --------------------------------------------------------------------------- metrics


def metric_phrase(metric: str) -> Text:
    """What a metric measures, as a noun phrase: a fight metric ("the chance that fighter
    A wins", "the chance of a duel that lasts 3–5 rounds", "the chance that one attack
    kills an unhurt fighter"), ``p_success`` ("the chance to succeed") or a campaign
    metric ("the chance to reach 3 by session 20"), a comparison (``difference:METRIC``,
    ``ratio:METRIC``: "the difference in the chance that fighter A wins between the two
    fights"); any other name read as words."""
    name = str(metric).strip()
    if name in _METRICS:
        return Text(_METRICS[name])
    head, *parts = name.split(":")
    if head == "p_rounds_between" and len(parts) == 2:
        low, high = (_int_or_text(p) for p in parts)
        if low == high:
            return Text(N_("the chance of a duel that ends in round {round}"), round=low)
        return Text(N_("the chance of a duel that lasts {low}–{high} rounds"), low=low, high=high)
    if head in ("median_at", "mean_at") and len(parts) == 1:
        template = (
            N_("the median character's state after session {session}")
            if head == "median_at"
            else N_("the mean state of the characters after session {session}")
        )
        return Text(template, session=_int_or_text(parts[0]))
    if head == "p_reach" and len(parts) == 2:
        return Text(
            N_("the chance to reach {state} by session {session}"),
            state=_int_or_text(parts[0]),
            session=_int_or_text(parts[1]),
        )
    if head in ("difference", "ratio") and parts:  # a guardrail that compares
        template = (
            N_("the difference in {metric} between the two fights")
            if head == "difference"
            else N_("the ratio of {metric} between the two fights")
        )
        return Text(template, metric=metric_phrase(":".join(parts)))
    if head == "extra_at" and len(parts) == 2:
        return Text(
            N_("the campaign tally “{tally}” after session {session}"),
            tally=_word(parts[0].removeprefix("p_")),
            session=_int_or_text(parts[1]),
        )
    return _word(name)


def _int_or_text(text: str):
    try:
        return int(text)
    except ValueError:
        return _word(text)


def probability_metric(metric: str) -> bool:
    """Whether a metric is a probability (``p_…``, ``extra_at:p_…``)."""
    name = str(metric).strip()
    return name.startswith(("p_", "extra_at:p_"))


def rounds_metric(metric: str) -> bool:
    """Whether a metric is the mean duel length in rounds."""
    return str(metric).strip() == "rounds_mean"


# --------------------------------------------------------------------------- numbers


def figure_phrase(metric: str, value: float, se: float = 0.0) -> Text:
    """A measured value of ``metric`` as a designer reads it, ± its standard error when
    ``se`` > 0.

    A probability is a percentage with 2–3 significant digits ("88.2%", "4.7%",
    "0.45%"), below one in a thousand in words ("about 1 in 22,000", "about 1 in 3.1
    million", "fewer than 1 in a billion"), its SE in percentage points; mean rounds
    take one decimal ("1.1 rounds"); any other number 3 significant digits. Never
    scientific notation."""
    if value is None or not math.isfinite(float(value)):
        return Text(N_("not measured"))
    value, se = float(value), abs(float(se or 0.0))
    if probability_metric(metric) and 0.0 <= value <= 1.0:
        shown = _probability(value)
        if se > 0:
            return Text(N_("{figure} ± {se} points"), figure=shown, se=_number(100 * se, 2))
        return shown
    if rounds_metric(metric):
        if se > 0:
            return Text(N_("{rounds:,.1f} ± {se} rounds"), rounds=value, se=_number(se, 2))
        return Text(N_("{rounds:,.1f} rounds"), rounds=value)
    shown = _number(value, 3)
    if se > 0:
        return Text(N_("{figure} ± {se}"), figure=shown, se=_number(se, 2))
    return shown


def _probability(p: float) -> Text:
    if p == 0.0 or p >= 1.0:
        return Text(N_("{percent}%"), percent=round(100 * p))
    if p < 1e-9:
        return Text(N_("fewer than 1 in a billion"))
    if p < 1e-3:
        odds = _significant(1.0 / p, 2)
        if odds >= 1e9:
            return Text(N_("about 1 in a billion"))
        if odds == 1e6:
            return Text(N_("about 1 in a million"))
        if odds > 1e6:
            return Text(
                N_("about 1 in {millions} million"), millions=_tidy(_significant(odds / 1e6, 2))
            )
        return Text(N_("about 1 in {odds:,}"), odds=int(odds))
    percent = round(100 * p, 2 if p < 0.01 else 1)
    if percent >= 100:
        return Text(N_("more than 99.9%"))
    return Text(N_("{percent}%"), percent=_tidy(percent))


def _significant(x: float, digits: int) -> float:
    if x == 0:
        return 0.0
    return round(x, digits - 1 - math.floor(math.log10(abs(x))))


def _tidy(x: float):
    """A rounded number as an int when it is whole (``88.0`` shows as ``88``)."""
    return int(x) if float(x).is_integer() else x


def _number(x: float, digits: int) -> Text:
    """``x`` with ``digits`` significant digits, in the language's number style; a
    non-zero value below 0.001 in words ("less than 0.001"), never 1e-05."""
    if x != 0 and abs(x) < 1e-3:
        return (
            Text(N_("less than {bound}"), bound=0.001)
            if x > 0
            else Text(N_("more than {bound}"), bound=-0.001)
        )
    rounded = _tidy(_significant(float(x), digits))
    if isinstance(rounded, float) and abs(rounded) >= 1e15:
        rounded = int(rounded)
    # thousands separators for whole numbers; a float as Python's shortest repr (the
    # report's pt-BR style swaps its point for a comma), never a fixed number of digits
    return Text("{number:,}" if isinstance(rounded, int) else "{number}", number=rounded)
