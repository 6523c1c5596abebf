"""Scenario files: a designer's study described in TOML and validated all at once.

A scenario names a system and its rule variants, the checks to tabulate, the fights to
run, the solver questions (difficulty, competence, lethality), the parameter grid to sweep,
the precision wanted and the outputs. :func:`load_scenario` reports *every* problem in
one :class:`~engines.errors.InputError`, one line each, naming the file, the key path and
what was expected::

    scenario.toml: checks[0].system: unknown system 'dice_pool_9'; known: dice_pool_7, ...
    scenario.toml: sweep.variants.again: 7 is not allowed; choose 10 | 9 | 8 | none

Layout (every key but ``name`` optional; see ``scenarios/*.toml`` for worked files)::

    name = "ten-again variants"
    system = "dice_pool_7"            # default system of every check
    variants = { chance_die = true }   # default variants of that system
    seed = 1
    method = "mc"                      # exact | mc | both

    [precision]                        # Monte Carlo: fixed trials or a target SE
    se = 0.004                         # (or trials = 200000); batch, max_trials

    [[checks]]                         # one success-curve table per entry
    name = "pools"
    axes = { pool = [1, 3, 5, 7], successes = [1, 2, 3] }
    competence = ["expert"]            # ladder names for the competence axis
    contrast = { a = { difficulty = -1 }, b = { pool = 2 }, tolerance = 0.03 }

    [[fights]]                         # a duel through engines/combat_<system>.py
    name = "duel"
    system = "d20_degrees"
    a = "competent"                    # archetype name, or a table of traits:
    b = { archetype = "novice", weapon = "pistol" }
    exact = false                      # true: exact duel solver; unset: the rule of
                                       # Scenario.fight_exact (--method, then this key,
                                       # then the file's method, then Monte Carlo)
    round_cap = 50

    [[solve]]
    kind = "difficulty"                # or "competence", or "lethality":
    target = 0.7
    competence = "expert"

    [[solve]]                          # a fight knob for a fight-metric target
    kind = "lethality"
    fight = "duel"                     # a [[fights]] name (or position)
    knob = "both.hit_points"           # a.KEY | b.KEY | both.KEY | variant.NAME
    values = [5, 10, 15, 20]           # increasing
    metric = "p_rounds_between:3:5"    # see analysis.combat.fights.METRIC_NAMES
    target = 0.8
    goal = "at_least"                  # or "at_most"; increasing = false if it falls

    [[solve]]                          # a campaign knob for the median character
    kind = "campaign"
    campaign = "skill"                 # a [[campaign]] name (or position)
    knob = "uses"                      # a parameter of its mechanic
    reach = 75                         # the state value to reach (mechanic's direction)
    sessions = 20                      # by this session (default: the entry's)
    target = 0.5                       # the share of characters (0.5: the median)

    [sweep]                            # grid: every combination is one task
    variants = { again = [10, 9, 8, "none"] }
    axes = { pool = [3, 5, 7] }
    metric = "p"                       # or "delta" (contrast): what sensitivity ranks
    fights = { "a.weapon" = ["light_melee", "heavy_melee"] }  # fight knobs
    fight_metric = "p_side0"           # drives precision.se batches and sensitivity
    campaign = { "param.uses" = [1, 2, 3], "variant.skill_cap" = [90, 99] }
                                       # [[campaign]] knobs: param.NAME | variant.NAME |
                                       # sessions (campaign_sweep table)

    [[campaign]]                       # a campaign mechanic over sessions (campaign table)
    system = "percentile"              # default: the file's system
    mechanic = "skill-growth"          # see engines/campaign_<system>.py MECHANICS
    params = { skill = 40, uses = 1 }
    sessions = 40
    threshold = 75                     # adds the passage rows
    method = "exact"                   # exact | mc | both (default: the file's method)
    variants = { skill_cap = 99 }      # the campaign module's variants

    [output]
    dir = "out/ten_again"              # relative to the scenario file
    format = "csv"                     # csv | json | markdown | parquet
    tables = ["checks", "sweep", "sensitivity", "interactions", "difficulty", "competence",
              "fights", "fight_sweep", "fight_sensitivity", "fight_interactions",
              "lethality"]
    plots = ["curves", "sensitivity", "fight_sensitivity"]
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from analysis.toml_input import read_toml
from engines.errors import InputError
from engines.system import registry

Scalar = int | float | str | bool
TABLES = ("checks", "sweep", "sensitivity", "interactions", "difficulty", "competence",
          "fights", "fight_sweep", "fight_sensitivity", "fight_interactions", "lethality",
          "campaign", "campaign_sweep", "campaign_solve")
PLOTS = ("curves", "sensitivity", "fight_sensitivity")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


class Precision(_Model):
    """Monte Carlo precision: a fixed number of trials, or a target standard error.

    With ``se``, each task samples in deterministic batches of ``batch`` trials (batch k
    seeded from ``(seed, task, k)``) until every cell's standard error is at most ``se``
    or ``max_trials`` is reached.
    """

    trials: int | None = Field(None, ge=1, le=100_000_000)
    se: float | None = Field(None, gt=0, lt=0.5)
    batch: int = Field(20_000, ge=100, le=10_000_000)
    max_trials: int = Field(2_000_000, ge=1, le=1_000_000_000)


class Contrast(_Model):
    """Two shifts of the same cell compared (C7: ``a = {difficulty = -1}``, ``b = {pool = 2}``)."""

    a: dict[str, int] = Field(default_factory=dict)
    b: dict[str, int] = Field(default_factory=dict)
    tolerance: float = Field(0.02, ge=0, le=1)


class Check(_Model):
    name: str | None = None
    system: str | None = None
    variants: dict[str, Scalar] = Field(default_factory=dict)
    axes: dict[str, list[Scalar]] = Field(default_factory=dict)
    competence: list[str | int] | None = None
    contrast: Contrast | None = None


class Fight(_Model):
    name: str | None = None
    system: str | None = None
    variants: dict[str, Scalar] = Field(default_factory=dict)
    a: str | dict[str, Any] = Field(default_factory=dict)   # archetype name or traits
    b: str | dict[str, Any] = Field(default_factory=dict)
    round_cap: int = Field(50, ge=1, le=1000)
    #: true: the engine's exact duel solver; false: Monte Carlo; unset: the file's
    #: ``method`` when the file gives one (see :meth:`Scenario.fight_exact`)
    exact: bool | None = None


class Solve(_Model):
    kind: Literal["difficulty", "competence", "lethality", "campaign"]
    target: float | None = None
    competence: str | int | None = None
    levels: list[float] = Field(default_factory=lambda: [0.5, 0.75, 0.9])
    systems: list[str] | None = None
    # lethality: a knob of one [[fights]] entry searched for a fight metric's target
    fight: str | int = 0               # the fight's name or position
    knob: str | None = None            # a.KEY | b.KEY | both.KEY | variant.NAME
    values: list[Scalar] | None = None  # knob values in increasing order
    metric: str = "p_side0"            # fights.METRIC_NAMES, e.g. p_rounds_between:3:5
    goal: Literal["at_least", "at_most"] = "at_least"
    increasing: bool = True            # the metric grows with the knob
    z: float = Field(2.0, ge=0, le=10)
    # campaign: a parameter (knob) of one [[campaign]] entry that gets the median
    # character (share ``target``, default 0.5) to ``reach`` by session ``sessions``
    campaign: str | int | None = None  # the [[campaign]] name or position (default 0)
    reach: int | None = None
    sessions: int | None = Field(None, ge=0, le=1000)  # default: the entry's sessions


class Campaign(_Model):
    """One campaign mechanic over sessions (``analysis.campaign``): its summary rows, and
    its passage rows when a threshold is given (or the mechanic has a default one)."""

    name: str | None = None
    system: str | None = None
    mechanic: str
    params: dict[str, Scalar] = Field(default_factory=dict)
    variants: dict[str, Scalar] = Field(default_factory=dict)
    sessions: int = Field(20, ge=0, le=1000)
    threshold: int | None = None
    #: unset: the file's method
    method: Literal["exact", "mc", "both"] | None = None


class Guardrail(_Model):
    """A designer's limit on one metric of a ``[[fights]]`` or ``[[checks]]`` entry
    (``rpg-balance audit``; see :mod:`analysis.workflow.audit`)."""

    name: str = Field(min_length=1, max_length=200)
    fight: str | int | None = None     # a [[fights]] name (or position)
    check: str | int | None = None     # a [[checks]] name (or position): one cell
    campaign: str | int | None = None  # a [[campaign]] name (or position)
    #: fights.METRIC_NAMES, p_success for a check, analysis.campaign.CAMPAIGN_METRICS
    #: (median_at:N, mean_at:N, p_reach:X:N, extra_at:NAME:N) for a campaign
    metric: str = Field(min_length=1)
    min: float | None = None
    max: float | None = None
    reason: str = ""


class Sweep(_Model):
    variants: dict[str, list[Scalar]] = Field(default_factory=dict)
    axes: dict[str, list[Scalar]] = Field(default_factory=dict)
    #: fight knobs (``a.KEY``, ``b.KEY``, ``both.KEY``, ``variant.NAME``) over [[fights]]
    fights: dict[str, list[Scalar]] = Field(default_factory=dict)
    #: the fight metric whose SE drives batches and which sensitivity ranks
    fight_metric: str = "p_side0"
    #: the column the sensitivity summary ranks knobs by (``delta`` needs a contrast)
    metric: Literal["p", "delta"] = "p"
    #: [[campaign]] knobs (``param.NAME``, ``variant.NAME``, ``sessions``): each entry
    #: that has a knob runs once per combination of the knobs it has
    campaign: dict[str, list[Scalar]] = Field(default_factory=dict)


class Output(_Model):
    dir: str | None = None
    format: Literal["csv", "json", "markdown", "parquet"] = "csv"
    tables: list[Literal["checks", "sweep", "sensitivity", "interactions", "difficulty",
                         "competence", "fights", "fight_sweep", "fight_sensitivity",
                         "fight_interactions", "lethality", "campaign", "campaign_sweep",
                         "campaign_solve"]] | None \
        = None
    plots: list[Literal["curves", "sensitivity", "fight_sensitivity"]] = \
        Field(default_factory=list)


class Scenario(_Model):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    system: str | None = None
    variants: dict[str, Scalar] = Field(default_factory=dict)
    seed: int = Field(0, ge=0, le=2**63 - 1)
    method: Literal["exact", "mc", "both"] = "exact"
    precision: Precision = Field(default_factory=Precision)
    checks: list[Check] = Field(default_factory=list)
    fights: list[Fight] = Field(default_factory=list)
    solve: list[Solve] = Field(default_factory=list)
    campaign: list[Campaign] = Field(default_factory=list)
    sweep: Sweep | None = None
    guardrails: list[Guardrail] = Field(default_factory=list)
    #: thresholds of ``rpg-balance audit --discover`` (analysis/data/guardrails.toml)
    discover: dict[str, Any] = Field(default_factory=dict)
    output: Output = Field(default_factory=Output)
    #: where the file was read from (set by :func:`load_scenario`)
    _source: str = PrivateAttr("<scenario>")
    #: a method forced from the command line (``--method``, or ``--trials``/``--se``
    #: meaning Monte Carlo) and the option that forced it
    _forced: tuple[str, str] | None = PrivateAttr(None)

    def force_method(self, method: str, option: str) -> None:
        """The command line overrides every method of the file (checks and fights)."""
        self.method = method
        self._forced = (method, option)

    def fight_exact(self, fight: Fight, default: bool = False) -> bool:
        """Whether ``fight`` runs on the exact duel solver. One rule, first match wins:

        1. a method forced on the command line (``--method``; ``--trials``/``--se``
           mean Monte Carlo): exact for ``exact``, Monte Carlo otherwise;
        2. the fight's own ``exact = true | false``;
        3. the file's top-level ``method`` when the file gives one (``exact`` or
           ``both``: exact; ``mc``: Monte Carlo);
        4. ``default``: Monte Carlo for fight tables and fight sweeps; the lethality
           solver searches exact values unless the file sets ``precision``.
        """
        if self._forced is not None:
            return self._forced[0] in ("exact", "both")
        if fight.exact is not None:
            return fight.exact
        if "method" in self.model_fields_set:
            return self.method in ("exact", "both")
        return default

    def method_notices(self) -> list[str]:
        """One line per fight whose own setting is overridden (printed on stderr)."""
        out = []
        for i, f in enumerate(self.fights):
            where = f"{Path(self.source).name}: fights[{i}]"
            if self._forced is not None and f.exact is not None \
                    and f.exact != self.fight_exact(f):
                now = "exact" if self.fight_exact(f) else "Monte Carlo"
                out.append(f"notice: {where}: exact = {str(f.exact).lower()} overridden by "
                           f"{self._forced[1]} ({now})")
            elif self._forced is None and f.exact is not None \
                    and "method" in self.model_fields_set \
                    and f.exact != (self.method in ("exact", "both")):
                out.append(f"notice: {where}: its exact = {str(f.exact).lower()} overrides "
                           f"the file's method = {self.method!r}")
        return out

    @property
    def source(self) -> str:
        return self._source

    def check_system(self, check: Check | Fight) -> str:
        return check.system or self.system  # validated: one of them is set

    def check_variants(self, check: Check | Fight) -> dict[str, Any]:
        """A check's variants over the top-level ones (fights use only their own: combat
        engines have their own variant classes)."""
        if isinstance(check, Fight):
            return dict(check.variants)
        base = dict(self.variants) if self.check_system(check) == self.system else {}
        return {**base, **check.variants}

    def check_name(self, i: int) -> str:
        return self.checks[i].name or f"check{i}"

    def tables(self) -> list[str]:
        if self.output.tables is not None:
            return list(self.output.tables)
        out = []
        if self.checks:
            out.append("checks")
        if self.sweep is not None and self.checks and (self.sweep.variants
                                                       or self.sweep.axes):
            out += ["sweep", "sensitivity", "interactions"]
        kinds = {s.kind for s in self.solve}
        out += [k for k in ("difficulty", "competence") if k in kinds]
        if self.fights:
            out.append("fights")
        if self.sweep is not None and self.sweep.fights and self.fights:
            out += ["fight_sweep", "fight_sensitivity", "fight_interactions"]
        if "lethality" in kinds:
            out.append("lethality")
        if "campaign" in kinds:
            out.append("campaign_solve")
        if self.campaign:
            out.append("campaign")
        if self.sweep is not None and self.sweep.campaign and self.campaign:
            out.append("campaign_sweep")
        return out

    def fight_index(self, ref: str | int) -> int | None:
        """Position of a [[fights]] entry given by name or position (None if absent)."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            return ref if 0 <= ref < len(self.fights) else None
        names = [f.name or f"fight{i}" for i, f in enumerate(self.fights)]
        return names.index(ref) if ref in names else None

    def output_dir(self) -> Path | None:
        if self.output.dir is None:
            return None
        base = Path(self.source).parent if self.source != "<scenario>" else Path.cwd()
        return (base / self.output.dir).resolve()


# --------------------------------------------------------------------------------------
# Validation


def _loc(parts) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(top level)"


def _known_keys(loc) -> list[str]:
    """Field names of the model found at ``loc`` inside :class:`Scenario` (for hints)."""
    import types
    import typing

    model: Any = Scenario
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            return []
        info = model.model_fields.get(part)
        if info is None:
            return []
        ann = info.annotation
        found = None
        stack = [ann]
        while stack:
            t = stack.pop()
            if isinstance(t, type) and issubclass(t, BaseModel):
                found = t
                break
            if typing.get_origin(t) in (list, typing.Union, types.UnionType):
                stack.extend(typing.get_args(t))
        model = found
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


_EXPECTED = {
    "int_type": "expected a whole number", "int_parsing": "expected a whole number",
    "int_from_float": "expected a whole number", "float_type": "expected a number",
    "float_parsing": "expected a number", "string_type": "expected text",
    "bool_type": "expected true or false", "bool_parsing": "expected true or false",
    "dict_type": "expected a table", "list_type": "expected a list",
    "model_type": "expected a table", "finite_number": "expected a finite number",
}


def _describe(err: dict) -> str:
    import re

    kind, msg, got = err["type"], err["msg"], err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        known = _known_keys(err["loc"][:-1])
        return "unknown key" + (_hint(err["loc"][-1], known) + f"; known: {_known(known)}"
                                if known else "")
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"{got!r} is not allowed; choose {' | '.join(choices)}"
    bounds = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
              "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}
    if kind in bounds:
        word, key = bounds[kind]
        return f"expected a value {word} {ctx.get(key)}, got {got!r}"
    if kind in ("string_too_short", "too_short"):
        return f"expected at least {ctx.get('min_length', 1)} item(s), got {got!r}"
    if kind in ("string_too_long", "too_long"):
        return f"expected at most {ctx.get('max_length')} item(s)"
    if kind in _EXPECTED:
        return f"{_EXPECTED[kind]}, got {got!r}"
    text = msg[0].lower() + msg[1:]
    return f"{text}, got {got!r}"


def _known(names) -> str:
    return ", ".join(names)


def _hint(name: Any, known) -> str:
    """``"; did you mean 'x'?"`` for the closest known names (empty when none is close)."""
    import difflib

    close = difflib.get_close_matches(str(name), [str(k) for k in known], n=2)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def _axis_problem(system: str, axis: str, value: Any) -> str | None:
    """Why ``value`` cannot sit on ``axis`` of ``system`` (None when it can): a named
    value of a system's named axis (``roll``, ``level`` ...), or a whole number in range."""
    from engines.system import get

    def whole(lo=None, hi=None):
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number, got {value!r}"
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            return f"{value} is out of range {lo}..{hi}"
        return None

    spec = get(system)
    ok = {**spec.hidden_axes, **spec.axes}.get(axis, ())
    if ok and all(isinstance(x, str) for x in ok):
        return None if value in ok else f"{value!r} is not allowed; choose {' | '.join(ok)}"
    ranges = {
        "pool": (0, 200), "successes": (0, 400), "difficulty": (-50, 400),
        "modifier": (-100, 100), "skill": (0, 200), "dice": (-3, 3), "dc": (-100, 200),
        "degree": (-10, 10),
    }
    lo, hi = ranges.get(axis, (None, None))
    return whole(lo, hi)


def _variant_problem(system: str, name: str, value: Any) -> str | None:
    from engines.variants import parse_variants

    cls = registry()[system].variants
    fields = {f.name for f in dataclasses.fields(cls)}
    if name not in fields:
        return (f"not a variant of {system}{_hint(name, fields)}; "
                f"known: {_known(sorted(fields))}")
    try:
        parse_variants(cls, {name: value})
    except InputError as exc:
        text = str(exc)
        prefix = f"variant {name}: "
        return text[len(prefix):] if text.startswith(prefix) else text
    except (TypeError, ValueError) as exc:
        return f"invalid value {value!r}: {exc}"
    return None


def _semantic(sc: Scenario) -> list[tuple[str, str]]:
    """Problems that need the rules: systems, variants, axes, ladder names."""
    from analysis.checks.curves import AXES
    from analysis.checks.ladders import load_ladder

    problems: list[tuple[str, str]] = []
    ladder = load_ladder()

    installed = list(registry())   # the built-ins, then any plug-in systems

    def system_ok(path: str, system: str | None) -> bool:
        if system is None:
            return False
        if system not in installed:
            problems.append((path, f"unknown system {system!r}{_hint(system, installed)}; "
                             f"known: {_known(installed)}"))
            return False
        return True

    top_ok = system_ok("system", sc.system)
    if top_ok:
        for name, value in sc.variants.items():
            if (why := _variant_problem(sc.system, name, value)) is not None:
                problems.append((f"variants.{name}", why))
    if sc.precision.trials is not None and sc.precision.se is not None:
        problems.append(("precision", "give trials or se, not both"))

    systems_in_use: list[str] = []
    for kind, entries in (("checks", sc.checks), ("fights", sc.fights)):
        for i, entry in enumerate(entries):
            path = f"{kind}[{i}]"
            if entry.system is None and sc.system is None:
                problems.append((f"{path}.system", "required key is missing (no top-level "
                                 "system to inherit either)"))
                continue
            if entry.system is not None and not system_ok(f"{path}.system", entry.system):
                continue
            if entry.system is None and not top_ok:
                continue
            system = sc.check_system(entry)
            if kind == "fights":
                from analysis.combat.fights import available, combat_variants

                if not available().get(system, False):
                    problems.append((f"{path}.system",
                                     f"{system}: this system declares no combat rules"))
                    continue
                try:
                    combat_variants(system, entry.variants)
                except InputError as exc:
                    problems.append((f"{path}.variants", str(exc)))
                from analysis.combat.fights import fighter

                for side in ("a", "b"):
                    try:
                        fighter(system, getattr(entry, side))
                    except InputError as exc:
                        msg = str(exc).removeprefix(f"{system}: ")
                        m = re.search(r"([\w.]+): unknown key; known: (.*)$", msg)
                        if m:  # the loader's own words, plus the closest known key
                            key = m.group(1).rsplit(".", 1)[-1]
                            hint = _hint(key, m.group(2).split(", "))
                            msg = msg.replace(": unknown key;", f": unknown key{hint};", 1)
                        problems.append((f"{path}.{side}", msg))
                continue
            systems_in_use.append(system)
            for name, value in entry.variants.items():
                if (why := _variant_problem(system, name, value)) is not None:
                    problems.append((f"{path}.variants.{name}", why))
            axes = AXES[system]
            for axis, values in entry.axes.items():
                if axis not in axes:
                    problems.append((f"{path}.axes.{axis}", f"not an axis of {system}"
                                     f"{_hint(axis, axes)}; known: {_known(axes)}"))
                    continue
                if not values:
                    problems.append((f"{path}.axes.{axis}", "expected at least one value"))
                for j, value in enumerate(values):
                    if (why := _axis_problem(system, axis, value)) is not None:
                        problems.append((f"{path}.axes.{axis}[{j}]", why))
            if entry.competence is not None:
                comp_axis = next(iter(axes))
                if comp_axis in entry.axes:
                    problems.append((f"{path}.competence", f"also given as axes.{comp_axis}; "
                                     "use one of them"))
                rungs = ladder[system] if system in ladder else dict(registry()[system].ladder)
                for j, c in enumerate(entry.competence):
                    if isinstance(c, str) and c not in rungs:
                        problems.append((f"{path}.competence[{j}]",
                                         f"unknown ladder name {c!r}"
                                         f"{_hint(c, rungs)}; known: {_known(rungs)}"))
            if entry.contrast is not None:
                for arm in ("a", "b"):
                    for axis, off in getattr(entry.contrast, arm).items():
                        if axis not in axes or axis in ("roll", "level"):
                            numeric = [a for a in axes if a not in ("roll", "level")]
                            problems.append((f"{path}.contrast.{arm}.{axis}",
                                             f"not a numeric axis of {system}; known: "
                                             f"{_known(numeric)}"))
                        elif not -100 <= off <= 100:
                            problems.append((f"{path}.contrast.{arm}.{axis}",
                                             f"offset {off} is out of range -100..100"))
                        else:
                            values = entry.axes.get(axis, list(axes[axis]))
                            bad = [v + off for v in values if isinstance(v, int)
                                   and _axis_problem(system, axis, v + off) is not None]
                            if bad:
                                problems.append((f"{path}.contrast.{arm}.{axis}",
                                                 f"offset {off} moves {axis} out of range "
                                                 f"(to {bad[0]})"))

    seen: dict[str, int] = {}
    for i in range(len(sc.checks)):
        name = sc.check_name(i)
        if name in seen:
            problems.append((f"checks[{i}].name", f"{name!r} is already the name of "
                             f"checks[{seen[name]}]"))
        seen.setdefault(name, i)

    for i, s in enumerate(sc.solve):
        path = f"solve[{i}]"
        for j, system in enumerate(s.systems or []):
            system_ok(f"{path}.systems[{j}]", system)
        if s.kind == "lethality":
            problems += _lethality_problems(sc, path, s)
            continue
        if s.kind == "campaign":
            problems += _campaign_solve_problems(sc, path, s)
            continue
        if s.target is not None and not 0 < s.target < 1:
            problems.append((f"{path}.target", f"expected a probability strictly between "
                             f"0 and 1, got {s.target!r}"))
        if s.kind == "difficulty":
            if s.target is None:
                problems.append((f"{path}.target", "required for kind = 'difficulty'"))
            if s.competence is None:
                problems.append((f"{path}.competence", "required for kind = 'difficulty'"))
            elif isinstance(s.competence, int) and len(s.systems or list(registry())) != 1:
                problems.append((f"{path}.competence", "a native value needs exactly one "
                                 "system in systems (or use a ladder name)"))
            elif isinstance(s.competence, str):
                known = ladder[next(iter(registry()))]
                if s.competence not in known:
                    problems.append((f"{path}.competence", f"unknown ladder name "
                                     f"{s.competence!r}; known: {_known(known)}"))
        for j, q in enumerate(s.levels):
            if not 0 < q < 1:
                problems.append((f"{path}.levels[{j}]", f"expected a probability strictly "
                                 f"between 0 and 1, got {q!r}"))

    if sc.sweep is not None:
        check_systems = sorted(set(systems_in_use)) or ([sc.system] if top_ok else [])
        for name, values in sc.sweep.variants.items():
            path = f"sweep.variants.{name}"
            if not values:
                problems.append((path, "expected at least one value"))
            owners = [s for s in check_systems
                      if name in {f.name for f in dataclasses.fields(registry()[s].variants)}]
            if not owners:
                problems.append((path, f"not a variant of {_known(check_systems) or 'any system'}"
                                 ))
                continue
            for value in values:
                for s in owners:
                    if (why := _variant_problem(s, name, value)) is not None:
                        problems.append((path, why))
                        break
        for name, values in sc.sweep.axes.items():
            path = f"sweep.axes.{name}"
            if not values:
                problems.append((path, "expected at least one value"))
            owners = [s for s in check_systems if name in AXES[s]]
            if not owners:
                problems.append((path, f"not an axis of {_known(check_systems) or 'any system'}"
                                 ))
                continue
            for j, value in enumerate(values):
                for s in owners:
                    if (why := _axis_problem(s, name, value)) is not None:
                        problems.append((f"{path}[{j}]", why))
                        break
            if name in sc.sweep.variants:
                problems.append((path, "also swept as a variant; rename one"))
        if (sc.sweep.variants or sc.sweep.axes) and not sc.checks:
            problems.append(("sweep", "a sweep of variants or axes needs at least one "
                             "[[checks]] entry"))
        if not (sc.sweep.variants or sc.sweep.axes or sc.sweep.fights or sc.sweep.campaign):
            problems.append(("sweep", "nothing to sweep: give variants, axes, fights or "
                             "campaign"))
        if sc.sweep.campaign:
            problems += _campaign_sweep_problems(sc)
        if sc.sweep.fights or "fight_metric" in sc.sweep.model_fields_set:
            problems += _fight_sweep_problems(sc)
        if sc.sweep.metric == "delta" and not any(c.contrast for c in sc.checks):
            problems.append(("sweep.metric", "'delta' needs a contrast in [[checks]]"))
    problems += _campaign_problems(sc)
    if sc.guardrails:
        from analysis.workflow.guardrails import guardrail_problems

        problems += guardrail_problems(sc, _hint, _known)
    if not (sc.checks or sc.fights or sc.solve or sc.campaign or sc.discover):
        problems.append(("(top level)", "nothing to do: add [[checks]], [[fights]], "
                         "[[solve]] or [[campaign]]"))
    if "campaign" in (sc.output.tables or []) and not sc.campaign:
        problems.append(("output.tables", "table 'campaign' needs a [[campaign]] entry"))
    if "campaign_sweep" in (sc.output.tables or []) and not (
            sc.campaign and sc.sweep is not None and sc.sweep.campaign):
        problems.append(("output.tables", "table 'campaign_sweep' needs sweep.campaign and "
                         "a [[campaign]] entry"))
    tables = sc.output.tables or []
    for t in tables:
        if t in ("sweep", "sensitivity", "interactions") and sc.sweep is None:
            problems.append(("output.tables", f"table {t!r} needs a [sweep] section"))
    if "sensitivity" in sc.output.plots and sc.sweep is None:
        problems.append(("output.plots", "plot 'sensitivity' needs a [sweep] section"))
    fight_sweep = sc.sweep is not None and bool(sc.sweep.fights)
    for t in tables:
        if t in ("fight_sweep", "fight_sensitivity", "fight_interactions") \
                and not fight_sweep:
            problems.append(("output.tables", f"table {t!r} needs sweep.fights"))
    if "fight_sensitivity" in sc.output.plots and not fight_sweep:
        problems.append(("output.plots", "plot 'fight_sensitivity' needs sweep.fights"))
    if sc.output.format == "parquet" and sc.output.dir is None:
        problems.append(("output.format", "parquet needs an output folder (output.dir or -o)"))
    return problems


def _fights_ok(sc: Scenario) -> bool:
    """Every fight has a known system with an installed combat engine and fighters that
    load (a broken fighter is reported at its own key path, not against a knob)."""
    from analysis.combat.fights import available, fighter

    have = available()
    for f in sc.fights:
        system = f.system or sc.system
        if not have.get(system, False):
            return False
        try:
            fighter(system, f.a)
            fighter(system, f.b)
        except InputError:
            return False
    return True


def _fight_sweep_problems(sc: Scenario) -> list[tuple[str, str]]:
    from analysis.combat.fights import check_metric
    from analysis.workflow.fight_sweep import knob_problems

    problems: list[tuple[str, str]] = []
    try:
        check_metric(sc.sweep.fight_metric)
    except InputError as exc:
        problems.append(("sweep.fight_metric", str(exc).removeprefix("metric: ")))
    if not sc.fights:
        problems.append(("sweep.fights", "a fight sweep needs at least one [[fights]] entry"))
        return problems
    if not _fights_ok(sc):
        return problems
    for key, values in sc.sweep.fights.items():
        path = f"sweep.fights.{key}"
        if not values:
            problems.append((path, "expected at least one value"))
            continue
        problems += [(path, why) for why in knob_problems(sc, key, values)[:1]]
    return problems


def _lethality_problems(sc: Scenario, path: str, s: Solve) -> list[tuple[str, str]]:
    import math

    from analysis.combat.fights import check_metric
    from analysis.workflow.fight_sweep import knob_problems

    problems: list[tuple[str, str]] = []
    if s.target is None:
        problems.append((f"{path}.target", "required for kind = 'lethality'"))
    elif not math.isfinite(s.target):
        problems.append((f"{path}.target", f"expected a finite number, got {s.target!r}"))
    try:
        check_metric(s.metric)
    except InputError as exc:
        problems.append((f"{path}.metric", str(exc).removeprefix("metric: ")))
    if s.knob is None:
        problems.append((f"{path}.knob", "required for kind = 'lethality' (e.g. a.hit_points)"))
    if not s.values:
        problems.append((f"{path}.values", "required for kind = 'lethality': the knob values "
                         "to search, in increasing order"))
    index = sc.fight_index(s.fight)
    if index is None:
        names = [f.name or f"fight{i}" for i, f in enumerate(sc.fights)]
        problems.append((f"{path}.fight", f"no [[fights]] entry {s.fight!r}; known: "
                         f"{_known(names) or 'none'}"))
    elif s.knob is not None and s.values and _fights_ok(sc):
        one = sc.model_copy(update={"fights": [sc.fights[index]]})
        problems += [(f"{path}.knob", why) for why in knob_problems(one, s.knob, s.values)[:1]]
    return problems


def _campaign_problems(sc: Scenario) -> list[tuple[str, str]]:
    """Each [[campaign]] entry: a system with campaign mechanics, a known mechanic, known
    parameters of the right type and range, known variants, a valid threshold."""
    from analysis.campaign import resolve
    from engines.campaign import campaign_systems, mechanic

    problems: list[tuple[str, str]] = []
    for i, c in enumerate(sc.campaign):
        path = f"campaign[{i}]"
        system = c.system or sc.system
        if system is None:
            problems.append((f"{path}.system", "required (or a top-level system)"))
            continue
        with_campaign = campaign_systems()
        if system not in with_campaign:
            if system in registry():
                problems.append((f"{path}.system",
                                 f"{system}: this system declares no campaign mechanics"))
                continue
            problems.append((f"{path}.system", f"unknown system {system!r}"
                             f"{_hint(system, with_campaign)}; known: "
                             f"{_known(with_campaign)}"))
            continue
        try:
            mech = mechanic(system, c.mechanic)
        except InputError as exc:
            problems.append((f"{path}.mechanic", str(exc).removeprefix("mechanic: ")))
            continue
        names = [q.name for q in mech.params]
        ok = True
        for key, value in c.params.items():
            if key not in names:
                problems.append((f"{path}.params.{key}", f"not a parameter of {c.mechanic}"
                                 f"{_hint(key, names)}; known: {_known(names)}"))
                ok = False
                continue
            try:
                resolve(system, c.mechanic, {key: value})
            except InputError as exc:
                problems.append((f"{path}.params.{key}", str(exc).removeprefix(f"{key}: ")))
                ok = False
        fields = [f.name for f in dataclasses.fields(mech.variants)]
        for key, value in c.variants.items():
            if key not in fields:
                problems.append((f"{path}.variants.{key}", f"not a variant of {system} "
                                 f"{c.mechanic}{_hint(key, fields)}; known: "
                                 f"{_known(fields)}"))
                ok = False
                continue
            try:
                resolve(system, c.mechanic, variants={key: value})
            except (InputError, TypeError, ValueError) as exc:
                text = str(exc).removeprefix(f"variant {key}: ")
                problems.append((f"{path}.variants.{key}", text))
                ok = False
        if not ok:
            continue
        try:  # the engine's own range checks, on a zero-session chain (cheap)
            _, params, v = resolve(system, c.mechanic, c.params, c.variants)
            mech.exact(sessions=0, threshold=c.threshold if c.threshold is not None
                       else mech.threshold_default, variants=v, **params)
        except InputError as exc:
            name, sep, why = str(exc).partition(": ")
            where = (f"{path}.threshold" if name == "threshold" else
                     f"{path}.params.{name}" if name in names else f"{path}.params")
            problems.append((where, why if sep and name in (*names, "threshold")
                             else str(exc)))
    return problems


def campaign_knob(entry: Campaign, system: str, knob: str) -> bool:
    """Whether the [[campaign]] ``entry`` has the sweep knob ``knob``."""
    import dataclasses as dc

    from engines.campaign import mechanic

    kind, _, name = knob.partition(".")
    if knob == "sessions":
        return True
    try:
        mech = mechanic(system, entry.mechanic)
    except InputError:
        return False
    if kind == "param":
        return name in [q.name for q in mech.params]
    if kind == "variant":
        return name in [f.name for f in dc.fields(mech.variants)]
    return False


def campaign_index(sc: Scenario, ref: str | int | None) -> int | None:
    """Position of a [[campaign]] entry given by name or position (None: the first)."""
    if ref is None:
        ref = 0
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref if 0 <= ref < len(sc.campaign) else None
    names = [c.name or f"campaign{i}" for i, c in enumerate(sc.campaign)]
    return names.index(ref) if ref in names else None


def _campaign_solve_problems(sc: Scenario, path: str, s: Solve) -> list[tuple[str, str]]:
    """[[solve]] kind = "campaign": a [[campaign]] entry, one of its int/str/bool
    parameters as the knob, a reach, a share strictly between 0 and 1."""
    from engines.campaign import mechanic

    problems: list[tuple[str, str]] = []
    i = campaign_index(sc, s.campaign)
    if i is None:
        names = [c.name or f"campaign{j}" for j, c in enumerate(sc.campaign)]
        return [(f"{path}.campaign", f"no [[campaign]] entry {s.campaign!r}; known: "
                 f"{_known(names) if names else '(none)'}")]
    c = sc.campaign[i]
    try:
        mech = mechanic(c.system or sc.system, c.mechanic)
    except InputError:
        return problems  # reported at the entry itself
    names = [q.name for q in mech.params if q.name not in mech.combatants]
    if s.knob is None:
        problems.append((f"{path}.knob", f"required: a parameter of {c.mechanic}; known: "
                         f"{_known(names)}"))
    elif s.knob not in names:
        problems.append((f"{path}.knob", f"not a parameter of {c.mechanic}"
                         f"{_hint(s.knob, names)}; known: {_known(names)}"))
    if s.reach is None:
        problems.append((f"{path}.reach", "required for kind = 'campaign' (the state value "
                         "to reach)"))
    if s.target is not None and not 0 < s.target < 1:
        problems.append((f"{path}.target", f"expected a share strictly between 0 and 1, "
                         f"got {s.target!r}"))
    return problems


def _campaign_sweep_problems(sc: Scenario) -> list[tuple[str, str]]:
    """sweep.campaign: knobs named ``param.NAME``, ``variant.NAME`` or ``sessions``, each
    a knob of at least one [[campaign]] entry, every value accepted by each entry that
    has the knob."""
    from analysis.campaign import resolve
    from engines.campaign import check_sessions

    problems: list[tuple[str, str]] = []
    if not sc.campaign:
        return [("sweep.campaign", "needs at least one [[campaign]] entry")]
    for knob, values in sc.sweep.campaign.items():
        path = f"sweep.campaign.{knob}"
        kind, _, name = knob.partition(".")
        if knob != "sessions" and (kind not in ("param", "variant") or not name):
            problems.append((path, "expected param.NAME, variant.NAME or sessions"))
            continue
        if not values:
            problems.append((path, "give at least one value"))
            continue
        owners = [(c, c.system or sc.system) for c in sc.campaign
                  if campaign_knob(c, c.system or sc.system, knob)]
        if not owners:
            problems.append((path, "no [[campaign]] entry has this knob"))
            continue
        for j, value in enumerate(values):
            for c, system in owners:
                try:
                    if knob == "sessions":
                        check_sessions(value)
                    else:
                        params = {**c.params, name: value} if kind == "param" else c.params
                        variants = ({**c.variants, name: value} if kind == "variant"
                                    else c.variants)
                        mech, params, v = resolve(system, c.mechanic, params, variants)
                        mech.exact(sessions=0, threshold=c.threshold if c.threshold
                                   is not None else mech.threshold_default, variants=v,
                                   **params)  # the engine's own range checks
                except (InputError, TypeError, ValueError) as exc:
                    problems.append((f"{path}[{j}]", str(exc)))
                    break
    return problems


def _fail(source: str, problems: list[tuple[str, str]]):
    lines = [f"{source}: {path}: {why}" for path, why in problems]
    head = lines[0] if len(lines) == 1 else (f"{source}: {len(lines)} problems\n  "
                                              + "\n  ".join(lines))
    raise InputError(head)


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate already-parsed TOML data; every problem is reported in one InputError."""
    if not isinstance(data, dict):
        _fail(source, [("(top level)", "expected a table of keys")])
    try:
        sc = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [(_loc(e["loc"]), _describe(e)) for e in exc.errors()]
        # keep going where possible: semantic checks on a copy without the broken parts
        partial = _salvage(data, exc)
        if partial is not None:
            broken = {path for path, _ in problems}
            problems += [p for p in _semantic(partial)
                         if p not in problems and not any(p[0] == b or p[0].startswith(b + ".")
                                                          or p[0].startswith(b + "[")
                                                          for b in broken)]
        _fail(source, problems)
    problems = _semantic(sc)
    if problems:
        _fail(source, problems)
    sc._source = source
    return sc


def _salvage(data: dict, exc: ValidationError, depth: int = 0) -> Scenario | None:
    """The scenario with structurally broken entries removed (for more problem reports)."""
    import copy

    trimmed = copy.deepcopy(data)
    bad = sorted({tuple(e["loc"]) for e in exc.errors()}, key=len, reverse=True)
    for loc in bad:
        node: Any = trimmed
        try:
            for part in loc[:-1]:
                node = node[part]
            if isinstance(node, dict):
                node.pop(loc[-1], None)
            elif isinstance(node, list) and isinstance(loc[-1], int):
                node[loc[-1]] = None  # removed below
        except (KeyError, IndexError, TypeError):
            continue
    for key in ("checks", "fights", "solve", "campaign", "guardrails"):
        if isinstance(trimmed.get(key), list):
            trimmed[key] = [x for x in trimmed[key] if x is not None]
    trimmed.setdefault("name", "?")
    try:
        return Scenario.model_validate(trimmed)
    except ValidationError as again:
        if depth >= 4 or again.errors() == exc.errors():
            return None
        return _salvage(trimmed, again, depth + 1)


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file (TOML); errors name the file and the key path."""
    path = Path(path)
    source = path.name
    data = read_toml(path, "scenario file")
    sc = parse_scenario(data, source)
    sc._source = str(path)
    return sc
