"""The page's edits: each duel side's traits and every field of each system's rules.

A designer tries a rule change on the page as on the command line, with the same words
and the same checks:

- **a side's traits** (``DuelState.traits_a`` / ``traits_b``, ``{NAME: VALUE}`` as
  text): the whole-number traits of the system's fighters
  (:func:`analysis.rules.trait_values`, the archetype loader's own validation), the
  command line's ``duel --trait-a NAME=VALUE``;
- **the rules** (``PageState.edits``, ``{system: {KNOB: VALUE}}`` as text): a field of
  one of the system's rule tables (``rules.KIND.ENTRY.FIELD``, docs/RULES.md "Rules as
  data") or an offset to every fighter's trait (``everyone.TRAIT``), set one at a time
  by :meth:`analysis.rules.RuleSet.with_knob` (:func:`analysis.rules.set_knobs`), the
  command line's ``--set SYSTEM:KNOB=VALUE``, on top of the rules the page was served
  with (``serve --rules FILE``).

Both travel in the address (``trait-a``, ``trait-b``, ``set``: :data:`.state.ADDRESS`)
and in every command the page shows. The rules in force with the edits made
(:func:`page_rules`) download as a minimal rules file (:func:`rules_file`, read back by
``--rules``), and a rules file uploaded through the page becomes edits again
(:func:`load_rules_upload`, validated as ``--rules`` validates a file).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from engines.errors import InputError

from .state import PageState

__all__ = [
    "EDIT_SEP",
    "check_edits",
    "check_traits",
    "edit_args",
    "edit_list",
    "edit_text",
    "load_rules_upload",
    "own_traits",
    "page_rules",
    "read_edits",
    "rule_fields",
    "rules_file",
    "value_text",
    "with_edit",
]

#: the separator of the rule edits in the address (a list value holds commas)
EDIT_SEP = ";"


def value_text(value) -> str:
    """A rule value as ``--set`` writes it (``true``, ``[1, 2]``, ``blades``, ``3``)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def edit_list(edits: Mapping[str, Mapping[str, str]]) -> list[tuple[str, str, str]]:
    """``(system, knob, value)`` of every edit, in the order they were made."""
    return [
        (system, knob, value) for system, knobs in edits.items() for knob, value in knobs.items()
    ]


def edit_text(edits: Mapping[str, Mapping[str, str]]) -> str:
    """The address's ``set`` value: ``SYSTEM:KNOB=VALUE;...`` (as
    :func:`.state.to_query` writes it)."""
    return EDIT_SEP.join(f"{s}:{k}={v}" for s, k, v in edit_list(edits))


def edit_args(edits: Mapping[str, Mapping[str, str]]) -> list[str]:
    """The ``--set SYSTEM:KNOB=VALUE`` words of the edits (each shown command's)."""
    from analysis.workflow.audit.reproduce import rule_set_args

    return rule_set_args(edit_list(edits))


def _base(base) -> dict:
    if base is None:
        from analysis.rules import in_force

        return in_force()
    given = base.values() if isinstance(base, Mapping) else base
    return {rs.system: rs for rs in given}


def page_rules(base, edits: Mapping[str, Mapping[str, str]]) -> dict:
    """``{system: RuleSet}``: the rules ``base`` (the page's ``serve --rules``; None: those
    in force) with the page's edits made over them, each as ``--set`` makes it
    (:func:`analysis.rules.set_knobs`; an InputError for the first bad edit)."""
    from analysis.rule_edits import set_knobs

    base = _base(base)
    return {**base, **set_knobs(edit_list(edits), base, where="set")}


def check_edits(base, edits: Mapping[str, Mapping[str, str]]) -> dict[str, dict[str, str]]:
    """The edits, each validated as ``--set`` validates it (an InputError otherwise),
    values as stripped text."""
    out = {
        str(s).strip(): {str(k).strip(): str(v).strip() for k, v in knobs.items()}
        for s, knobs in edits.items()
    }
    out = {s: knobs for s, knobs in out.items() if knobs}
    page_rules(base, out)
    return out


def with_edit(
    base, edits: Mapping[str, Mapping[str, str]], system: str, knob: str, value: str
) -> dict[str, dict[str, str]]:
    """The edits with ``system:knob=value`` set (an empty value removes the edit),
    validated (an InputError names the one problem; the edits given stay as they were)."""
    new = {s: dict(knobs) for s, knobs in edits.items()}  # a copy: ``edits`` stay
    knobs = new.setdefault(system, {})
    knobs.pop(knob, None)
    if str(value).strip():
        knobs[knob] = str(value).strip()
    return check_edits(base, new)


def _parse_text(text: str) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for item in (x.strip() for x in text.split(EDIT_SEP)):
        if not item:
            continue
        head, eq, value = item.partition("=")
        system, colon, knob = head.partition(":")
        if not eq or not colon or not system.strip() or not knob.strip() or not value.strip():
            raise InputError(f"set {item!r}: expected SYSTEM:KNOB=VALUE")
        out.setdefault(system.strip(), {})[knob.strip()] = value.strip()
    return out


def rule_fields(system: str) -> list[dict[str, str]]:
    """Every knob of ``system``'s rules with its value in force (the page's edits made,
    when called under them): ``knob`` (``rules.KIND.ENTRY.FIELD``, ``rules.KIND.ENTRY``
    for a single-value entry, ``everyone.TRAIT``), ``value`` (as ``--set`` writes it)."""
    from analysis.rules import DOC_KEYS, RuleSet, active, traits

    rs = active(system) or RuleSet(system)
    out = []
    for kind, entries in rs.tables().items():
        for entry, body in entries.items():
            if isinstance(body, Mapping):
                out += [
                    {"knob": f"rules.{kind}.{entry}.{f}", "value": value_text(v)}
                    for f, v in body.items()
                    if f not in DOC_KEYS
                ]
            else:
                out.append({"knob": f"rules.{kind}.{entry}", "value": value_text(body)})
    offsets = dict(rs.everyone)
    out += [{"knob": f"everyone.{t}", "value": str(offsets.get(t, 0))} for t in traits(system)]
    return out


def own_traits(system: str, archetype: str) -> dict[str, int]:
    """The archetype's own value of each whole-number trait of the system's fighters
    (before any ``everyone`` offset), those it has."""
    from analysis.combat import archetypes
    from analysis.rules import traits

    model = archetypes.library(system)[archetype]
    out = {}
    for t in traits(system):
        for holder in (model, getattr(model, "stats", None)):
            value = holder.get(t) if isinstance(holder, Mapping) else getattr(holder, t, None)
            if isinstance(value, int) and not isinstance(value, bool):
                out[t] = value
                break
    return out


def check_traits(
    system: str, archetype: str, given: Mapping[str, Any], where: str = "trait-a"
) -> dict[str, str]:
    """A side's trait changes as ``duel --trait-a`` validates them (each a whole-number
    trait of the system's fighters, the archetype loader accepting the value); those
    that differ from the archetype's own, as text."""
    from analysis.combat import archetypes
    from analysis.rule_edits import trait_values

    values = trait_values(system, {k: v for k, v in given.items() if str(v).strip()}, where)
    own = own_traits(system, archetype)
    values = {k: v for k, v in values.items() if own.get(k) != v}
    if values:
        try:
            archetypes.combatant(system, archetype, values)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
    return {k: str(v) for k, v in values.items()}


def read_edits(
    state: PageState,
    take: Callable[[str, Callable[[str], Any]], None],
    split: Callable[[str, str], dict[str, str]],
) -> None:
    """Read the address's ``set``, then ``trait-a`` and ``trait-b`` (under the edits: an
    ``everyone`` offset moves the traits too) into ``state`` with ``take`` (a refused
    value becomes a message; :func:`.validation.parse_query`)."""
    from analysis.rules import using

    take("set", lambda t: setattr(state, "edits", check_edits(None, _parse_text(t))))
    d = state.duel
    try:
        rules = page_rules(None, state.edits)
    except InputError:
        rules = {}
    with using(rules):
        for side in "ab":

            def traits(t: str, side: str = side) -> None:
                setattr(
                    d,
                    f"traits_{side}",
                    check_traits(d.system, getattr(d, side), split(t, "trait"), f"trait-{side}"),
                )

            take(f"trait-{side}", traits)


def rules_file(rules: Mapping, system: str) -> str:
    """The rules of ``system`` in ``rules`` (the page's: ``serve --rules`` with the
    page's edits made) as a minimal rules file (:func:`analysis.rules.edits_text`):
    ``rpg-balance COMMAND --rules FILE`` computes what the page shows."""
    from analysis.rule_edits import edits_text
    from analysis.rules import RuleSet

    return edits_text(rules.get(system) or RuleSet(system))


def load_rules_upload(
    filename: str, data: bytes, base: Iterable | Mapping | None = None
) -> tuple[str, dict[str, str]]:
    """A rules file uploaded through the page as the page's edits of its system
    (``(system, {KNOB: VALUE})``), read by :func:`analysis.rules.load_file` as
    ``--rules`` reads it (every problem one line of the InputError) and validated over
    ``base``. The page edits fields of existing entries: a file that adds or removes an
    entry, or bounds an ``everyone`` offset, is refused with one line each (serve it
    with ``rpg-balance serve --rules FILE``)."""
    import tempfile

    from analysis.rules import load_file

    from .state import MAX_UPLOAD

    name = Path(str(filename or "rules.toml")).name or "rules.toml"
    if len(data) > MAX_UPLOAD:
        raise InputError(f"{name}: larger than {MAX_UPLOAD} bytes")
    with tempfile.TemporaryDirectory(prefix="rpg-balance-rules-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        rs = load_file(path)
    knobs: dict[str, str] = {}
    problems = []
    for ch in rs.changes:
        if ch[0] == "set":
            knob = f"rules.{ch[1]}.{ch[2]}" + (f".{ch[3]}" if ch[3] else "")
            knobs[knob] = value_text(ch[4])
        else:
            problems.append(
                f"{name}: {ch[1]}.{ch[2]}: the page edits the fields of "
                f"existing entries; an entry {'added' if ch[0] == 'add' else 'removed'}"
                " needs rpg-balance serve --rules FILE"
            )
    problems += [
        f"{name}: everyone.{t}: min and max of an offset need rpg-balance serve --rules FILE"
        for t, *_ in rs.caps
    ]
    knobs.update({f"everyone.{t}": str(off) for t, off in rs.everyone})
    if problems:
        raise InputError("\n".join(problems))
    check_edits(base, {rs.system: knobs})
    return rs.system, knobs
