"""Edits of a designer's rules one at a time (:mod:`analysis.rules`): the command line's
``--set SYSTEM:KNOB=VALUE`` on top of ``--rules`` (:func:`set_knobs`), one fighter's
traits changed (``duel --trait-a NAME=VALUE``, :func:`trait_values`), and a rule set's
edits written as a minimal rules file that :func:`analysis.rules.load_file` reads back as
the same rules (:func:`edits_text`; the workbench's download).

A value is read as ``audit --set`` reads it (:func:`parse_value`: ``8``, ``0.5``,
``true``, ``none``, else the text) and ``[1, 2]`` as a TOML list.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from analysis.rules import (
    RuleSet,
    active,
    is_rule_knob,
    plain,
    toml_key,
    toml_value,
    trait_name,
    traits,
)
from engines.errors import InputError

__all__ = ["edits_text", "parse_value", "set_knobs", "trait_values"]


def parse_value(text: str):
    """``8`` → 8, ``0.5`` → 0.5, ``true``/``false`` → bool, ``none`` → None, else the text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text.strip())
        except ValueError:
            pass
    return text.strip()


def _split(text: str, where: str) -> tuple[str, str, Any]:
    head, eq, raw = str(text).partition("=")
    system, colon, knob = head.partition(":")
    if not eq or not colon or not system.strip() or not knob.strip() or not raw.strip():
        raise InputError(
            f"{where}: expected SYSTEM:KNOB=VALUE (e.g. "
            f"dice_pool_7:rules.armour.heavy_archaic.ballistic=1), got {text!r}"
        )
    return system.strip(), knob.strip(), parse_value(raw)


def trait_values(
    system: str, items: Iterable[str] | Mapping[str, Any], where: str = "--trait-a"
) -> dict[str, int]:
    """Trait changes of one fighter, ``NAME=VALUE`` texts (``duel --trait-a``) or a
    mapping, as overrides of the archetype loader
    (:func:`analysis.combat.archetypes.combatant`, which validates the value against the
    system's data): each a whole-number trait of the system's fighters (:func:`traits`;
    any case, written as the data file writes it) and a whole number. The first problem
    raises an InputError naming ``where``."""
    known = traits(system)
    pairs = (
        list(items.items())
        if isinstance(items, Mapping)
        else [str(x).partition("=")[::2] if "=" in str(x) else (str(x), "") for x in items]
    )
    out: dict[str, int] = {}
    for name, text in pairs:
        name, text = str(name).strip(), str(text).strip()
        if not name or not text:
            raise InputError(
                f"{where}: expected NAME=VALUE (e.g. {known[0]}=3), got "
                f"{name + '=' + text if text else name!r}"
            )
        trait = trait_name(system, name, f"{where} {name}={text}")
        try:
            out[trait] = int(text)
        except ValueError:
            raise InputError(
                f"{where} {name}={text}: a trait is a whole number, got {text!r}"
            ) from None
    return out


#: an entry removed (in :func:`edits_text`'s plan)
_REMOVED = object()


def edits_text(rs: RuleSet) -> str:
    """A minimal rules file holding only the edits of ``rs`` (what
    :func:`load_file` reads back as the same rules): one ``[KIND.ENTRY]`` table per
    edited entry with the edited fields, a removed entry's ``remove = true``, an added
    entry's every field, ``[KIND]`` for single-value entries, ``[everyone]`` for the
    offsets."""
    plan: dict[str, dict[str, Any]] = {}
    for ch in rs.changes:
        entries = plan.setdefault(ch[1], {})
        if ch[0] == "remove":
            entries[ch[2]] = _REMOVED
        elif ch[0] == "add":
            fields = dict(ch[3])
            entries[ch[2]] = fields[""] if set(fields) == {""} else dict(fields)
        else:
            _, _kind, entry, field, value = ch
            if not field:
                entries[entry] = value
            else:
                now = entries.get(entry)
                entries[entry] = {**(now if isinstance(now, dict) else {}), field: value}
    lines = [
        f"# Edits of the rules of {rs.system}: read with rpg-balance COMMAND --rules THIS_FILE",
        f"system = {toml_value(rs.system)}",
        "",
    ]
    for kind, entries in plan.items():
        scalar = {e: v for e, v in entries.items() if not isinstance(v, dict) and v is not _REMOVED}
        if scalar:
            lines.append(f"[{toml_key(kind)}]")
            lines.extend(f"{toml_key(e)} = {toml_value(plain(v))}" for e, v in scalar.items())
            lines.append("")
        for entry, body in entries.items():
            if entry in scalar:
                continue
            lines.append(f"[{toml_key(kind)}.{toml_key(entry)}]")
            if body is _REMOVED:
                lines.append("remove = true")
            else:
                lines.extend(f"{toml_key(f)} = {toml_value(plain(v))}" for f, v in body.items())
            lines.append("")
    if rs.everyone:
        caps = {t: (lo, hi) for t, lo, hi in rs.caps}
        lines.append("[everyone]")
        for t, off in rs.everyone:
            lo, hi = caps.get(t, (None, None))
            if lo is None and hi is None:
                lines.append(f"{toml_key(t)} = {off}")
            else:
                parts = (
                    [f"offset = {off}"]
                    + [f"min = {lo}"] * (lo is not None)
                    + [f"max = {hi}"] * (hi is not None)
                )
                lines.append(f"{toml_key(t)} = {{ {', '.join(parts)} }}")
        lines.append("")
    return "\n".join(lines)


def set_knobs(
    edits: Iterable[str | tuple[str, str, Any]], base: Mapping | None = None, where: str = "--set"
) -> dict[str, RuleSet]:
    """The rule sets of every system an edit names: its rules in ``base`` (default: those
    in force) with each edit set in turn (:meth:`RuleSet.with_knob`). An edit is the text
    ``SYSTEM:KNOB=VALUE`` (``--set``; the value read as ``audit --set`` reads it) or a
    ``(system, knob, value)`` triple (a text value read the same way, ``[1, 2]`` a list);
    ``KNOB`` is ``rules.KIND.ENTRY[.FIELD]`` or ``everyone.TRAIT``. The first problem
    raises an InputError naming ``where``."""
    from analysis.combat.archetypes import systems as with_tables

    out: dict[str, RuleSet] = {}
    for item in edits:
        if isinstance(item, str):
            system, knob, value = _split(item, where)
        else:
            system, knob, value = item
            value = parse_value(value) if isinstance(value, str) else value
        if isinstance(value, str) and value.startswith("["):  # a list, as TOML writes it
            import tomllib

            try:
                value = tomllib.loads(f"v = {value}")["v"]
            except tomllib.TOMLDecodeError:
                raise InputError(
                    f"{where} {system}:{knob}: {value!r} is not a list (write it as [1, 2])"
                ) from None
        shown = f"{system}:{knob}"
        if not is_rule_knob(knob):
            raise InputError(
                f"{where} {shown}: a rule edit is SYSTEM:rules.KIND.ENTRY.FIELD="
                "VALUE or SYSTEM:everyone.TRAIT=OFFSET"
            )
        known = list(with_tables())
        if system not in known:
            raise InputError(
                f"{where} {shown}: {system!r} is not a system with rule tables"
                f"; known: " + ", ".join(known)
            )
        now = out.get(system)
        if now is None:
            now = (base.get(system) if base is not None else active(system)) or RuleSet(system)
        out[system] = now.with_knob(knob, value, where)
    return out
