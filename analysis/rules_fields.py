"""The fields of a system's rule tables, checked: a value's type against the table's
(a rules file's or a ``rules.KIND.ENTRY.FIELD`` knob's), the words naming a wrong one, and
the closest known name for a misspelt table, entry, field or trait (docs/RULES.md, "Rules
as data"; :mod:`analysis.rules` reads and edits the tables)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["DOC_KEYS", "check_field", "close_hint", "field_types", "same_type", "type_name"]

#: keys of an entry that are words, not numbers (never an edit)
DOC_KEYS = ("note", "source", "assumption")


def type_name(value) -> str:
    """The kind of ``value`` in a designer's words (``a whole number``, ``a list`` …)."""
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def same_type(value, like) -> bool:
    """Whether ``value`` may replace ``like`` (a whole number where a number is; lists alike)."""
    if isinstance(like, bool) or isinstance(value, bool):
        return isinstance(like, bool) and isinstance(value, bool)
    if isinstance(like, float):
        return isinstance(value, int | float)
    if isinstance(like, list | tuple):
        return isinstance(value, list | tuple)
    return type(value) is type(like)


def field_types(entries: Mapping) -> dict[str, Any]:
    """``{field: an example value}`` over every entry of a table."""
    out: dict[str, Any] = {}
    for e in entries.values():
        if isinstance(e, Mapping):
            for k, v in e.items():
                if k not in DOC_KEYS:
                    out.setdefault(k, v)
    return out


def close_hint(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'X'?)`` naming the known name closest to ``name``, or ''."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_field(
    system: str, tables: dict, kind: str, entry: str, field: str, value, loc: str
) -> list[str]:
    """Problems with setting ``kind.entry[.field]`` to ``value`` in ``tables``."""
    if kind not in tables:
        return [
            f"{loc}: {system} has no rule table {kind!r}{close_hint(kind, tables)}; "
            f"known: {', '.join(tables)}"
        ]
    entries = tables[kind]
    if entry not in entries:
        return [
            f"{loc}: {system} has no {kind} {entry!r}{close_hint(entry, entries)}; known: "
            + ", ".join(entries)
        ]
    current = entries[entry]
    if not isinstance(current, Mapping):
        if field:
            return [f"{loc}: {kind}.{entry} is a single value; write rules.{kind}.{entry}=VALUE"]
        return (
            []
            if same_type(value, current)
            else [f"{loc}: expected {type_name(current)}, got {value!r}"]
        )
    types = field_types(entries)
    if not field:
        return [f"{loc}: name a field of {kind}.{entry}: " + ", ".join(types)]
    if field not in types:
        return [
            f"{loc}: {kind} has no field {field!r}{close_hint(field, types)}; known: "
            + ", ".join(types)
        ]
    if not same_type(value, types[field]):
        return [f"{loc}: expected {type_name(types[field])}, got {value!r}"]
    return []
