"""A designer's rules: the rule tables of each system, edits to them, and the rules in
force while a command runs.

**The tables.** The numbers a system's seed gives as tables — weapons, armour, a weapon
category's dice, the damage-bonus table — live in its combat data file (a built-in's
``engines/systems/<id>/archetypes.toml``, a plug-in's own), each entry with its note and
rule id, read and validated once by the system's archetype hook. The hook's
:meth:`~engines.archetype_library.ArchetypeHook.rule_tables` names them with the words
``rpg-balance gear`` uses for the kinds: ``weapon`` (the file's ``[weapons]``),
``armour``, ``category`` (``middle_3d10``'s weapon categories), ``damage_bonus``
(``percentile``'s rows, numbered from 0), and the numbers of a system's formulas
(``dice_pool_7``'s ``health``, ``movement``, ``attack``, ``defense``, ``dodge``;
``dice_pool_6``'s ``health``, ``attack``, ``cover``, ``dodge``; ``middle_3d10``'s
``damage``, ``defense``, ``health``; ``percentile``'s ``health``, ``movement``,
``ranges``, ``initiative``; ``d20_degrees``' ``damage``, ``health``; docs/RULES.md,
"Rules as data"). Kernels and exact chains
take every value through the fighters' rows, so an edit never recompiles anything.

**A rules file** (``rpg-balance rules SYSTEM --export FILE`` writes a complete one)::

    system = "dice_pool_7"

    [armour.heavy_archaic]
    ballistic = 1            # an edit (the package says 2)

    [weapon.crossbow]        # a new entry, usable by name everywhere
    like = "thrown"          # start from an existing entry's fields
    bonus = 2

    [weapon.submachine_gun]
    remove = true            # an entry removed

    [everyone]
    CON = 1                  # every fighter of the system: its own CON + 1
    SAB = { offset = 2, max = 5 }   # + 2, but never past 5 (a fighter above keeps its own)

Entries and fields a file does not name keep the package's values; a field equal to the
package's is no edit (an unedited export changes nothing). ``note``, ``source`` and
``assumption`` are words, never edits. Every problem of a file is reported at once, one
line each with its key path (:class:`~engines.errors.InputError`).

**Edits as knobs.** ``SYSTEM:rules.KIND.ENTRY.FIELD=VALUE`` (``rules.KIND.ENTRY`` for a
table whose entries are single values, e.g. ``middle_3d10``'s ``weapon.knife =
"blades"``) and ``SYSTEM:everyone.TRAIT=OFFSET`` are the same edits one at a time
(:meth:`RuleSet.with_knob`), for ``--set``, ``solve``, ``sweep``, the cure search and
``[tune]``.

**In force.** :func:`using` puts rule sets in force for a block (the command line's
``--rules``, a scenario's ``rules`` key, a knob's edit); the archetype loader
(:mod:`analysis.combat.archetypes`) reads :func:`active` whenever it builds a fighter or
lists gear. :func:`bound` carries the rules in force into a task run elsewhere (a Dask
worker, another thread).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from analysis.rules_fields import (
    DOC_KEYS,
    check_field,
    close_hint,
    field_types,
    same_type,
    type_name,
)
from analysis.rules_in_force import active, apply_everyone, bound, in_force, put, using
from engines.errors import InputError

__all__ = [
    "DOC_KEYS",
    "RuleSet",
    "active",
    "apply_everyone",
    "base_tables",
    "bound",
    "export_text",
    "in_force",
    "is_rule_knob",
    "load_file",
    "load_files",
    "plain",
    "provenance",
    "put",
    "table_rows",
    "toml_key",
    "toml_value",
    "trait_name",
    "traits",
    "using",
]

#: keys of a rules-file entry that are instructions, not fields
_VERBS = ("like", "remove")


# --------------------------------------------------------------------------------------
# The tables of a system


def _hook(system: str):
    from analysis.combat import archetypes

    return archetypes.hook(system)


def _raw(system: str) -> tuple[str, dict]:
    """The package's parsed data file (no rules applied)."""
    from analysis.combat import archetypes

    return archetypes.read_library(system, None, rules=False)


def _entries(value) -> dict:
    """A table's entries by name (an array of tables by its position, from 0)."""
    if isinstance(value, list):
        return {str(i): e for i, e in enumerate(value)}
    return dict(value) if isinstance(value, Mapping) else {}


def base_tables(system: str, raw: dict | None = None) -> dict[str, dict]:
    """``{kind: {entry: fields or value}}`` of the system's rule tables as the data file
    ``raw`` (default: the package's) gives them, doc keys included."""
    raw = _raw(system)[1] if raw is None else raw
    out = {}
    for kind, table, _rule in _hook(system).rule_tables(raw):
        if table in raw:
            out[kind] = _entries(raw[table])
    return out


def _kinds(system: str, raw: dict) -> dict[str, tuple[str, str]]:
    return {
        kind: (table, rule) for kind, table, rule in _hook(system).rule_tables(raw) if table in raw
    }


def _is_array(raw: dict, table: str) -> bool:
    return isinstance(raw.get(table), list)


# --------------------------------------------------------------------------------------
# A rule set


@dataclasses.dataclass(frozen=True)
class RuleSet:
    """The edits of one system's rules.

    ``changes``: ``("set", kind, entry, field, value)`` (``field`` ``""`` for a
    single-value entry), ``("add", kind, entry, ((field, value), ...))``,
    ``("remove", kind, entry)``, applied in order; ``everyone``: ``((trait, offset),
    ...)``; ``caps``: ``((trait, min, max), ...)``, the values an offset may not take a
    trait past (None: no such limit); ``sources``: the files they came from (for
    provenance)."""

    system: str
    changes: tuple = ()
    everyone: tuple[tuple[str, int], ...] = ()
    sources: tuple[str, ...] = ()
    caps: tuple[tuple[str, int | None, int | None], ...] = ()

    @property
    def key(self) -> tuple:
        """What the rules are (not where they came from): the caches' key."""
        return (self.system, self.changes, self.everyone, self.caps)

    def __bool__(self) -> bool:
        return bool(self.changes or self.everyone)

    def merged(self, other: RuleSet) -> RuleSet:
        """These edits, then ``other``'s (same system)."""
        out = self
        for ch in other.changes:
            out = out._with_change(ch)
        for trait, off in other.everyone:
            out = out._with_everyone(trait, off)
        if other.caps:
            mine = {t: (lo, hi) for t, lo, hi in out.caps}
            mine.update({t: (lo, hi) for t, lo, hi in other.caps})
            out = dataclasses.replace(out, caps=tuple((t, lo, hi) for t, (lo, hi) in mine.items()))
        return dataclasses.replace(out, sources=tuple(dict.fromkeys(self.sources + other.sources)))

    def _with_change(self, ch: tuple) -> RuleSet:
        keep = [
            c for c in self.changes if not (ch[0] == "set" and c[0] == "set" and c[1:4] == ch[1:4])
        ]
        return dataclasses.replace(self, changes=(*tuple(keep), ch))

    def _with_everyone(self, trait: str, offset: int) -> RuleSet:
        rest = tuple((t, o) for t, o in self.everyone if t != trait)
        new = rest + (((trait, offset),) if offset else ())
        return dataclasses.replace(self, everyone=new)

    def apply(self, raw: dict) -> dict:
        """A copy of the parsed data file ``raw`` with the edits made."""
        if not self.changes:
            return raw
        kinds = _kinds(self.system, raw)
        out = copy.deepcopy(raw)
        for ch in self.changes:
            table = kinds[ch[1]][0]
            array = _is_array(out, table)
            if ch[0] == "remove":
                if array:
                    del out[table][int(ch[2])]
                else:
                    out[table].pop(ch[2], None)
            elif ch[0] == "add":
                fields = dict(ch[3])
                value = fields[""] if set(fields) == {""} else fields
                out.setdefault(table, {})[ch[2]] = _plain(value)
            else:
                _, _kind, entry, field, value = ch
                holder = out[table]
                key = int(entry) if array else entry
                if field:
                    holder[key][field] = _plain(value)
                else:
                    holder[key] = _plain(value)
        return out

    def words(self) -> list[str]:
        """Each edit in words: ``armour.heavy_archaic.ballistic 2 → 1``, ``weapon.crossbow
        added``, ``weapon.thrown removed``, ``everyone's CON +1``."""
        base = base_tables(self.system)
        out = []
        for ch in self.changes:
            if ch[0] == "remove":
                out.append(f"{ch[1]}.{ch[2]} removed")
            elif ch[0] == "add":
                out.append(f"{ch[1]}.{ch[2]} added")
            else:
                _, kind, entry, field, value = ch
                old = base.get(kind, {}).get(entry)
                old = (
                    old.get(field)
                    if field and isinstance(old, Mapping)
                    else (old if not field else None)
                )
                name = f"{kind}.{entry}" + (f".{field}" if field else "")
                out.append(
                    f"{name} {_show(old)} → {_show(value)}"
                    if old is not None
                    else f"{name} = {_show(value)}"
                )
        caps = {t: (lo, hi) for t, lo, hi in self.caps}
        for t, o in self.everyone:
            lo, hi = caps.get(t, (None, None))
            bounds = [f"at least {lo}"] * (lo is not None) + [f"at most {hi}"] * (hi is not None)
            out.append(f"everyone's {t} {o:+d}" + (f" ({', '.join(bounds)})" if bounds else ""))
        return out

    def with_knob(self, knob: str, value, where: str = "--set") -> RuleSet:
        """These rules with one knob set: ``rules.KIND.ENTRY[.FIELD]`` to ``value`` or
        ``everyone.TRAIT`` to the offset ``value`` (an InputError naming ``where``)."""
        head, _, rest = knob.partition(".")
        if head == "everyone":
            trait = _trait_name(self.system, rest, f"{where} {self.system}:{knob}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(
                    f"{where} {self.system}:{knob}: an offset is a whole number, got {value!r}"
                )
            return self._with_everyone(trait, int(value))
        parts = rest.split(".")
        if head != "rules" or len(parts) not in (2, 3) or not all(parts):
            raise InputError(
                f"{where} {self.system}:{knob}: expected rules.KIND.ENTRY.FIELD or everyone.TRAIT"
            )
        kind, entry = parts[0], parts[1]
        field = parts[2] if len(parts) == 3 else ""
        loc = f"{where} {self.system}:{knob}"
        current = self.tables()
        problems = check_field(self.system, current, kind, entry, field, value, loc)
        if problems:
            raise InputError(problems[0])
        new = self._with_change(("set", kind, entry, field, _frozen(value)))
        base = base_tables(self.system).get(kind, {}).get(entry)
        old = (
            base.get(field)
            if field and isinstance(base, Mapping)
            else (base if not field else None)
        )
        if (
            old is not None and _frozen(old) == _frozen(value) and type(old) is type(value)
        ):  # the package's value: no edit
            new = dataclasses.replace(new, changes=new.changes[:-1])
        bad = _validated(new)
        if bad:
            raise InputError(f"{loc}={_show(value)}: {bad}")
        return new

    def tables(self) -> dict[str, dict]:
        """The rule tables with these edits made."""
        _, raw = _raw(self.system)
        return base_tables(self.system, self.apply(raw))


def _plain(value):
    """A frozen value back to what TOML parses (tuples → lists)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def plain(value):
    """A rule value as TOML parses it (a frozen list, a tuple, back to a list)."""
    return _plain(value)


def _frozen(value):
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    return value


def _show(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return str(value)


# --------------------------------------------------------------------------------------
# Traits


def _traits(system: str) -> list[str]:
    """The whole-number traits a fighter of ``system`` has (the ladder's and the
    archetypes' numeric keys in the data file)."""
    _, raw = _raw(system)
    found: dict[str, None] = {}
    for table in ("levels", "archetypes"):
        for e in _entries(raw.get(table)).values():
            if isinstance(e, Mapping):
                for k, v in e.items():
                    if isinstance(v, int) and not isinstance(v, bool):
                        found.setdefault(k)
    return list(found)


def traits(system: str) -> list[str]:
    """The whole-number traits a fighter of ``system`` has (``everyone.TRAIT``, ``duel
    --trait-a``), in the data file's order."""
    return _traits(system)


def trait_name(system: str, name: str, loc: str) -> str:
    """The trait ``name`` as the system's data file writes it (any case), or an
    InputError at ``loc`` naming the known ones."""
    return _trait_name(system, name, loc)


def _trait_name(system: str, name: str, loc: str) -> str:
    known = _traits(system)
    for k in known:
        if k.lower() == name.lower():
            return k
    raise InputError(
        f"{loc}: {system} fighters have no trait {name!r}{close_hint(name, known)};"
        " known: " + ", ".join(known)
    )


def _parse(system: str, data: dict, fname: str) -> tuple[RuleSet, list[str]]:
    """A rules file's table as a :class:`RuleSet` of ``system`` and its problems."""
    _, raw = _raw(system)
    kinds = _kinds(system, raw)
    tables = base_tables(system, raw)
    problems: list[str] = []
    changes: list[tuple] = []
    everyone: list[tuple[str, int]] = []
    caps: list[tuple[str, int | None, int | None]] = []
    for key, value in data.items():
        if key == "system":
            continue
        if key == "everyone":
            if not isinstance(value, Mapping):
                problems.append(f"{fname}: everyone: expected a table of TRAIT = offset")
                continue
            for trait, off in value.items():
                try:
                    name = _trait_name(system, trait, f"{fname}: everyone.{trait}")
                except InputError as exc:
                    problems.append(str(exc))
                    continue
                lo = hi = None
                if isinstance(off, Mapping):  # { offset = 4, max = 10 }
                    bad = sorted(set(off) - {"offset", "min", "max"})
                    if bad:
                        problems.append(
                            f"{fname}: everyone.{trait}.{bad[0]}: unknown key; "
                            "known: offset, min, max"
                        )
                        continue
                    lo, hi = off.get("min"), off.get("max")
                    for k, v in (("min", lo), ("max", hi)):
                        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                            problems.append(
                                f"{fname}: everyone.{trait}.{k}: expected a whole number, got {v!r}"
                            )
                            lo = hi = None
                    off = off.get("offset", 0)
                if isinstance(off, bool) or not isinstance(off, int):
                    problems.append(
                        f"{fname}: everyone.{trait}: an offset is a whole number, got {off!r}"
                    )
                elif off:
                    everyone.append((name, off))
                    if lo is not None or hi is not None:
                        caps.append((name, lo, hi))
            continue
        if key not in kinds:
            problems.append(
                f"{fname}: {key}: unknown table{close_hint(key, kinds)}; known: "
                + ", ".join([*kinds, "everyone", "system"])
            )
            continue
        array = _is_array(raw, kinds[key][0])
        given = _entries(value) if array and isinstance(value, list) else value
        if not isinstance(given, Mapping):
            problems.append(f"{fname}: {key}: expected a table of entries")
            continue
        entries = tables[key]
        types = field_types(entries)
        for entry, body in given.items():
            loc = f"{fname}: {key}.{entry}"
            if entry in DOC_KEYS:
                continue
            scalar = (entry in entries and not isinstance(entries[entry], Mapping)) or (
                entry not in entries
                and entries
                and not any(isinstance(e, Mapping) for e in entries.values())
            )
            if scalar and not isinstance(body, Mapping):
                if entry not in entries:
                    changes.append(("add", key, entry, (("", _frozen(body)),)))
                    continue
                problems.extend(check_field(system, tables, key, entry, "", body, loc))
                if body != entries[entry]:
                    changes.append(("set", key, entry, "", _frozen(body)))
                continue
            if not isinstance(body, Mapping):
                problems.append(f"{loc}: expected a table of fields")
                continue
            if body.get("remove") is not None:
                if body.get("remove") is not True or set(body) - {"remove", *DOC_KEYS}:
                    problems.append(f"{loc}.remove: write remove = true alone to remove an entry")
                elif entry not in entries:
                    problems.append(f"{loc}: no such {key} to remove; known: " + ", ".join(entries))
                elif array:
                    problems.append(f"{loc}: the rows of {key} can be edited, not removed")
                else:
                    changes.append(("remove", key, entry))
                continue
            fields = {k: v for k, v in body.items() if k not in DOC_KEYS and k != "like"}
            for f, v in fields.items():
                if f not in types:
                    problems.append(
                        f"{loc}.{f}: unknown field{close_hint(f, types)}; known: "
                        + ", ".join(types)
                    )
                elif not same_type(v, types[f]):
                    problems.append(f"{loc}.{f}: expected {type_name(types[f])}, got {v!r}")
            if entry in entries:
                if "like" in body:
                    problems.append(
                        f"{loc}.like: {entry!r} exists already; like = ... starts a new entry"
                    )
                    continue
                old = entries[entry]
                for f, v in fields.items():
                    if f in types and _frozen(old.get(f)) != _frozen(v):
                        changes.append(("set", key, entry, f, _frozen(v)))
                continue
            if array:
                problems.append(
                    f"{loc}: {key} has rows 0..{len(entries) - 1}; rows can be edited, not added"
                )
                continue
            start: dict = {}
            if "like" in body:
                like = body["like"]
                if like not in entries or not isinstance(entries[like], Mapping):
                    problems.append(
                        f"{loc}.like: no {key} {like!r}{close_hint(str(like), entries)}"
                    )
                    continue
                start = {k: v for k, v in entries[like].items() if k not in DOC_KEYS}
            new = {**start, **fields}
            changes.append(("add", key, entry, tuple((k, _frozen(v)) for k, v in new.items())))
    rs = RuleSet(system, tuple(changes), tuple(everyone), (fname,), tuple(caps))
    if not problems and rs.changes:
        problems.extend(_validate(rs, fname, kinds))
    return rs, problems


_VALID: dict[tuple, str] = {}


def _validated(rs: RuleSet) -> str:
    """The system's own verdict on a rule set's tables ("" when its hook's models accept
    them; kept per rules key)."""
    if rs.key not in _VALID:
        if len(_VALID) > 4096:
            _VALID.clear()
        _, raw = _raw(rs.system)
        found = _validate(rs, "rules", _kinds(rs.system, raw))
        _VALID[rs.key] = found[0].removeprefix("rules: ") if found else ""
    return _VALID[rs.key]


def _validate(rs: RuleSet, fname: str, kinds: dict) -> list[str]:
    """The system's own validation of the edited data file (its hook's models)."""
    from pydantic import ValidationError

    from analysis.combat import archetypes
    from engines.archetype_library import validation

    try:  # the loader's own load (and its cache) under the rules: the fighters reuse it
        with using([rs]):
            archetypes.library(rs.system)
    except InputError as exc:
        msg = str(exc)
    except ValidationError as exc:
        msg = validation(fname, exc)
    else:
        return []
    data_name = _hook(rs.system).path(None).name
    msg = msg.replace(f"{data_name}: ", f"{fname}: ", 1)
    for kind, (table, _rule) in kinds.items():
        msg = msg.replace(f"{fname}: {table}.", f"{fname}: {kind}.")
    return [msg]


def load_file(path: str | Path, system: str | None = None) -> RuleSet:
    """The :class:`RuleSet` of a rules file (its ``system`` key names the system; a
    ``system`` argument must agree); every problem at once in one InputError."""
    from analysis.toml_input import read_toml
    from engines.system import registry

    p = Path(path)
    data = read_toml(p, "rules file")
    fname = p.name
    named = data.get("system", system)
    if not isinstance(named, str) or not named:
        raise InputError(
            f'{fname}: system: missing; write system = "ID" at the top '
            "(rpg-balance rules ID --export FILE writes it)"
        )
    if system is not None and named != system:
        raise InputError(f"{fname}: system: the file is for {named!r}, not {system!r}")
    known = [
        s
        for s, sys_ in registry().items()
        if sys_.combat is not None and sys_.combat.archetypes is not None
    ]
    if named not in known:
        raise InputError(
            f"{fname}: system: {named!r} has no rule tables{close_hint(named, known)};"
            " known: " + ", ".join(known)
        )
    rs, problems = _parse(named, data, fname)
    if problems:
        raise InputError("\n".join(problems))
    return rs


def load_files(paths: Iterable[str | Path], where: str = "--rules") -> dict[str, RuleSet]:
    """``{system: RuleSet}`` of several rules files, one per system (every file's
    problems at once)."""
    out: dict[str, RuleSet] = {}
    problems: list[str] = []
    for path in paths:
        try:
            rs = load_file(path)
        except InputError as exc:
            problems.extend(str(exc).splitlines())
            continue
        if rs.system in out:
            problems.append(
                f"{where} {path}: a second rules file for {rs.system} "
                f"(the first: {out[rs.system].sources[0]}); give one per system"
            )
            continue
        out[rs.system] = rs
    if problems:
        raise InputError("\n".join(problems))
    return out


def is_rule_knob(knob: str) -> bool:
    """Whether a ``TARGET:KNOB``'s knob edits the rules (``rules.…`` or ``everyone.…``)."""
    return knob.startswith(("rules.", "everyone."))


def provenance(extra: Iterable[RuleSet] = ()) -> str | None:
    """The rules in force (and ``extra``, e.g. a scenario's ``rules``) in words, for a
    table's ``rule_edits`` column: ``dice_pool_7 (my_rules.toml): armour.heavy_archaic.ballistic
    2 → 1``; None when none."""
    now = in_force()
    for rs in extra:
        now[rs.system] = now[rs.system].merged(rs) if rs.system in now else rs
    parts = []
    for rs in now.values():
        if rs:
            src = f" ({', '.join(rs.sources)})" if rs.sources else ""
            parts.append(f"{rs.system}{src}: " + "; ".join(rs.words()))
    return " | ".join(parts) or None


# --------------------------------------------------------------------------------------
# The tidy table and the export

_RULE_ID = re.compile(r"\b(?:[A-Z]{1,2}T?)(?:-g|-ext)?\d+\b|\b[A-Z]{1,2}T?-g\d*\b")


def _rule_of(entry, default: str) -> str:
    texts = [entry.get(k) for k in DOC_KEYS] if isinstance(entry, Mapping) else []
    found = []
    for t in texts:
        if isinstance(t, str):
            found.extend(_RULE_ID.findall(t))
    return ", ".join(dict.fromkeys(found)) or default


def table_rows(system: str) -> list[dict]:
    """One row per field of every rule table in force: ``system``, ``table`` (the kind),
    ``entry``, ``field`` (``value`` for a single-value entry), ``value`` (lists as
    text), ``rule`` (the ids its note cites, else the table's rule)."""
    rs = active(system)
    _, raw = _raw(system)
    raw = rs.apply(raw) if rs else raw
    rows = []
    for kind, (table, rule) in _kinds(system, raw).items():
        for entry, body in _entries(raw[table]).items():
            fields = body.items() if isinstance(body, Mapping) else [("value", body)]
            for f, v in fields:
                if f in DOC_KEYS:
                    continue
                rows.append(
                    {
                        "system": system,
                        "table": kind,
                        "entry": entry,
                        "field": f,
                        "value": _show(v),
                        "rule": _rule_of(body, rule),
                    }
                )
    return rows


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise InputError(f"cannot write {value!r} as TOML")


def toml_value(value) -> str:
    """A value as TOML writes it (a list of them too)."""
    return _toml_value(value)


def toml_key(name: str) -> str:
    """A key as TOML writes it (quoted unless bare)."""
    return _key(name)


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else _toml_value(name)


def export_text(system: str) -> str:
    """A complete, commented rules file of ``system`` (the rules in force): every table,
    entry and field, each entry's note and rule as comments. Read back unedited, it
    changes nothing."""
    rs = active(system)
    _, raw = _raw(system)
    raw = rs.apply(raw) if rs else raw
    lines = [
        f'# The rule tables of {system}: edit any field, add entries (like = "NAME" starts',
        "# from an existing one), remove entries (remove = true alone). Read with",
        "#   rpg-balance COMMAND --rules THIS_FILE",
        "# Fields not named keep the package's values; `everyone` adds an offset to every",
        "# fighter's trait.",
        "",
        f"system = {_toml_value(system)}",
        "",
    ]
    for kind, (table, rule) in _kinds(system, raw).items():
        entries = _entries(raw[table])
        lines.append(
            f"# {kind} ({rule or 'see docs/RULES.md'}): "
            f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'}"
        )
        if entries and not any(isinstance(e, Mapping) for e in entries.values()):
            lines.append(f"[{kind}]")
            lines.extend(f"{_key(n)} = {_toml_value(v)}" for n, v in entries.items())
            lines.append("")
            continue
        for entry, body in entries.items():
            for k in DOC_KEYS:
                text = body.get(k) if isinstance(body, Mapping) else None
                if isinstance(text, str):
                    lines.append(f"# {text}")
            lines.append(f"[{kind}.{_key(entry)}]")
            for f, v in body.items() if isinstance(body, Mapping) else ():
                if f not in DOC_KEYS:
                    lines.append(f"{_key(f)} = {_toml_value(v)}")
            lines.append("")
    traits = _traits(system)
    lines.append(
        "# Offsets to every fighter's own trait (0: none; TRAIT = { offset = 4, "
        "max = 10 } never takes it past 10): " + ", ".join(traits)
    )
    lines.append("[everyone]")
    offsets = dict(rs.everyone) if rs else {}
    caps = {t: (lo, hi) for t, lo, hi in rs.caps} if rs else {}
    for t in traits:
        lo, hi = caps.get(t, (None, None))
        if lo is None and hi is None:
            lines.append(f"{_key(t)} = {offsets.get(t, 0)}")
        else:
            parts = (
                [f"offset = {offsets.get(t, 0)}"]
                + [f"min = {lo}"] * (lo is not None)
                + [f"max = {hi}"] * (hi is not None)
            )
            lines.append(f"{_key(t)} = {{ {', '.join(parts)} }}")
    return "\n".join(lines) + "\n"
