"""Rule variants: every gap in RULES.md is a named, documented switch with a default.

Each system declares a frozen dataclass of :class:`variant` fields. A field carries the
rule id it settles, its allowed values, a one-line doc and, for the words of the report,
a short ``term`` naming the rule ("the 10-again rule") and ``words`` for some of its
values (``{9: "9-again"}``). :func:`parse_variants` builds
the object from ``NAME=VALUE`` strings (the CLI and scenario files), and unknown names or
invalid values raise :class:`~engines.errors.InputError` naming the known ones.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from .errors import InputError

__all__ = ["T", "describe", "parse_variants", "variant"]

T = TypeVar("T")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def variant(
    default: Any,
    *,
    rule: str,
    doc: str,
    choices: Iterable[Any] | None = None,
    term: str = "",
    words: Mapping[Any, str] | None = None,
) -> Any:
    """Declare a variant field: its default, the rule id it settles, allowed values.

    ``term`` names the rule in a designer's words, article included ("the 10-again
    rule"; the report's findings say "the 10-again rule (A1)"), and ``words`` names some
    of its values (``{9: "9-again", None: "no exploding dice"}``); both are English
    msgids the report translates. Without them the report reads the field's name."""
    meta = {
        "rule": rule,
        "doc": doc,
        "choices": tuple(choices) if choices is not None else None,
        "term": term,
        "words": dict(words or {}),
    }
    return dataclasses.field(default=default, metadata=meta)


def _coerce(name: str, raw: Any, default: Any, choices: tuple | None) -> Any:
    value = raw
    if isinstance(raw, str):
        text = raw.strip().lower()
        if isinstance(default, bool):
            if text not in _TRUE | _FALSE:
                raise InputError(f"variant {name}: expected true or false, got {raw!r}")
            value = text in _TRUE
        elif text == "none" and "none" not in (choices or ()):  # "none" may be a choice
            value = None
        elif isinstance(default, int) or (
            choices and all(isinstance(c, int) for c in choices if c is not None)
        ):
            try:
                value = int(text)
            except ValueError:
                value = text
        else:
            value = text
    elif isinstance(default, bool) and not isinstance(raw, bool):
        raise InputError(f"variant {name}: expected true or false, got {raw!r}")
    if choices is not None and value not in choices:
        shown = " | ".join("none" if c is None else str(c).lower() for c in choices)
        raise InputError(f"variant {name}: {raw!r} is not allowed; choose {shown}")
    if choices is None and isinstance(default, int) and not isinstance(value, int):
        raise InputError(f"variant {name}: expected an integer, got {raw!r}")
    return value


def parse_variants(cls: type[T], given: Mapping[str, Any] | Iterable[str] | None = None) -> T:
    """Build a variant object from a mapping or ``NAME=VALUE`` strings, validating each."""
    items: dict[str, Any] = {}
    if given is None:
        given = {}
    if isinstance(given, Mapping):
        items = dict(given)
    else:
        for text in given:
            if "=" not in text:
                raise InputError(f"variant {text!r}: expected NAME=VALUE")
            key, _, val = text.partition("=")
            items[key.strip()] = val
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, raw in items.items():
        if key not in fields:
            import difflib

            known = ", ".join(sorted(fields))
            close = difflib.get_close_matches(str(key), sorted(fields), n=3)
            hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
            raise InputError(f"unknown variant {key!r} for {cls.system}{hint}; known: {known}")
        f = fields[key]
        kwargs[key] = _coerce(key, raw, f.default, f.metadata.get("choices"))
    obj = cls(**kwargs)
    check = getattr(obj, "check", None)
    if check is not None:
        check()
    return obj


def describe(obj: Any) -> list[dict[str, Any]]:
    """One row per variant: name, value in force, default, rule id, doc (for reports)."""
    rows = []
    for f in dataclasses.fields(obj):
        rows.append(
            {
                "system": obj.system,
                "variant": f.name,
                "value": getattr(obj, f.name),
                "default": f.default,
                "rule": f.metadata["rule"],
                "doc": f.metadata["doc"],
            }
        )
    return rows
