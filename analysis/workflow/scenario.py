"""Scenario files: a designer's study described in TOML and validated all at once.

A scenario names a system and its rule variants, the checks to tabulate, the fights to
run, the solver questions (difficulty, competence, lethality), the parameter grid to sweep,
the precision wanted and the outputs. :func:`load_scenario` reports *every* problem in
one :class:`~engines.errors.InputError`, one line each, naming the file, the key path and
what was expected::

    scenario.toml: checks[0].system: unknown system 'dice_pool_9'; known: dice_pool_7, ...
    scenario.toml: sweep.variants.again: 7 is not allowed; choose 10 | 9 | 8 | none

This module holds the file's models (pydantic: the structure) and the parsing; the
checks that need the rules, one validator per section, are
:mod:`analysis.workflow.scenario_validation`.

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

    [[fights]]                         # a duel through the system's combat engine
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
    knob = "both.hit_points"           # a.KEY | b.KEY | both.KEY | variant.NAME |
                                       # rules.KIND.ENTRY.FIELD | everyone.TRAIT
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
    mechanic = "skill-growth"          # see rpg-balance systems (column mechanics)
    params = { skill = 40, uses = 1 }
    sessions = 40
    threshold = 75                     # adds the passage rows
    method = "exact"                   # exact | mc | both (default: the file's method)
    variants = { skill_cap = 99 }      # the campaign module's variants

    [tune]                             # rpg-balance tune: the knobs it may turn
    seed = 1                           # (analysis.workflow.tune)
    budget = 200
    [[tune.knobs]]
    knob = "even_duel:both.vigor"      # TARGET:KNOB, as rpg-balance audit --set
    min = 3                            # or values = [...]; step (default 1)
    max = 9
    weight = 1

    cross_combat = "my_cross.toml"     # the cross-combat mapping (relative to this
                                       # file) of audit --discover and report --guardrails

    [output]
    dir = "out/ten_again"              # relative to the scenario file
    format = "csv"                     # csv | json | markdown | parquet
    tables = ["checks", "sweep", "sensitivity", "interactions", "difficulty", "competence",
              "fights", "fight_sweep", "fight_sensitivity", "fight_interactions",
              "lethality"]
    plots = ["curves", "sensitivity", "fight_sensitivity"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from analysis.limits import MAX_ROUND_CAP
from analysis.toml_input import read_toml
from analysis.workflow.guardrails import Tune
from analysis.workflow.scenario_validation import (
    campaign_index,
    campaign_knob,
    did_you_mean,
    known_list,
    semantic_problems,
)
from engines.constants import ROUND_CAP, STUDY_SEED
from engines.errors import InputError

__all__ = [
    "PLOTS",
    "TABLES",
    "Campaign",
    "Check",
    "Contrast",
    "Fight",
    "Guardrail",
    "Output",
    "Precision",
    "Scalar",
    "Scenario",
    "Solve",
    "Sweep",
    "campaign_index",
    "campaign_knob",
    "load_scenario",
    "parse_scenario",
    "raise_problems",
]

Scalar = int | float | str | bool
TABLES = (
    "checks",
    "sweep",
    "sensitivity",
    "interactions",
    "difficulty",
    "competence",
    "fights",
    "fight_sweep",
    "fight_sensitivity",
    "fight_interactions",
    "lethality",
    "campaign",
    "campaign_sweep",
    "campaign_solve",
)
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
    a: str | dict[str, Any] = Field(default_factory=dict)  # archetype name or traits
    b: str | dict[str, Any] = Field(default_factory=dict)
    round_cap: int = Field(ROUND_CAP, ge=1, le=MAX_ROUND_CAP)
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
    fight: str | int = 0  # the fight's name or position
    knob: str | None = None  # a.KEY | b.KEY | both.KEY | variant.NAME
    values: list[Scalar] | None = None  # knob values in increasing order
    metric: str = "p_side0"  # fights.METRIC_NAMES, e.g. p_rounds_between:3:5
    goal: Literal["at_least", "at_most"] = "at_least"
    increasing: bool = True  # the metric grows with the knob
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
    fight: str | int | None = None  # a [[fights]] name (or position)
    check: str | int | None = None  # a [[checks]] name (or position): one cell
    campaign: str | int | None = None  # a [[campaign]] name (or position)
    #: fights.METRIC_NAMES, p_success for a check, analysis.campaign.CAMPAIGN_METRICS
    #: (median_at:N, mean_at:N, p_reach:X:N, extra_at:NAME:N) for a campaign
    metric: str = Field(min_length=1)
    min: float | None = None
    max: float | None = None
    reason: str = ""
    #: knobs a cure may not turn beyond the guardrail's own terms (``variant.again``;
    #: ``variant.*`` holds every rule variant), and held knobs it may turn (``a.weapon``,
    #: ``both.armour``, a check axis such as ``dice``): see analysis.workflow.audit.cures
    fixed: list[str] = Field(default_factory=list)
    free: list[str] = Field(default_factory=list)
    #: a fight guardrail measured at each starting distance (metres; RULES.md "Distance,
    #: movement and cover"): it holds only when it holds at every one, and its value is
    #: the figure at the distance farthest outside (or nearest the edge of) its limits
    distances: list[int] = Field(default_factory=list)
    #: a guardrail that compares (analysis.workflow.audit.measuring): its value is the
    #: metric of ``fight`` minus (``compare = "difference"``, the default) or divided by
    #: (``"ratio"``) the same metric of ``versus``, another [[fights]] entry of the same
    #: system; without ``versus``, of the same fight at ``distances = [FIRST, SECOND]``
    versus: str | int | None = None
    compare: Literal["difference", "ratio"] | None = None


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
    tables: (
        list[
            Literal[
                "checks",
                "sweep",
                "sensitivity",
                "interactions",
                "difficulty",
                "competence",
                "fights",
                "fight_sweep",
                "fight_sensitivity",
                "fight_interactions",
                "lethality",
                "campaign",
                "campaign_sweep",
                "campaign_solve",
            ]
        ]
        | None
    ) = None
    plots: list[Literal["curves", "sensitivity", "fight_sensitivity"]] = Field(default_factory=list)


class Scenario(_Model):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    system: str | None = None
    variants: dict[str, Scalar] = Field(default_factory=dict)
    seed: int = Field(STUDY_SEED, ge=0, le=2**63 - 1)
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
    #: the knobs ``rpg-balance tune`` may turn (analysis.workflow.tune)
    tune: Tune | None = None
    #: the cross-combat mapping file (relative to this file) whose ladder fighters
    #: ``audit --discover`` judges and whose fights the report's combat sections show
    #: (``report --guardrails``); None: the packaged ``analysis/data/cross_combat.toml``
    cross_combat: str | None = Field(None, min_length=1)
    #: rules files (relative to this file, one per system; analysis.rules) in force
    #: for everything the file computes, after the command line's ``--rules``
    rules: list[str] = Field(default_factory=list)
    output: Output = Field(default_factory=Output)
    #: where the file was read from (set by :func:`load_scenario`)
    _source: str = PrivateAttr("<scenario>")
    #: a method forced from the command line (``--method``, or ``--trials``/``--se``
    #: meaning Monte Carlo) and the option that forced it
    _forced: tuple[str, str] | None = PrivateAttr(None)
    #: ``{system: analysis.rules.RuleSet}``: the ``rules`` files read, and rule knobs
    #: (``SYSTEM:rules.…``, ``SYSTEM:everyone.…``) set by ``--set`` or ``tune``
    _rule_sets: dict = PrivateAttr(default_factory=dict)

    def rule_sets(self) -> dict:
        """``{system: RuleSet}`` this scenario puts in force (:func:`analysis.rules.using`)."""
        return dict(self._rule_sets)

    def with_rule_sets(self, rule_sets: dict) -> Scenario:
        """A copy with ``rule_sets`` in force instead."""
        new = self.model_copy()
        new._rule_sets = dict(rule_sets)
        return new

    def force_method(self, method: Literal["exact", "mc", "both"], option: str) -> None:
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
            if self._forced is not None and f.exact is not None and f.exact != self.fight_exact(f):
                now = "exact" if self.fight_exact(f) else "Monte Carlo"
                out.append(
                    f"notice: {where}: exact = {str(f.exact).lower()} overridden by "
                    f"{self._forced[1]} ({now})"
                )
            elif (
                self._forced is None
                and f.exact is not None
                and "method" in self.model_fields_set
                and f.exact != (self.method in ("exact", "both"))
            ):
                out.append(
                    f"notice: {where}: its exact = {str(f.exact).lower()} overrides "
                    f"the file's method = {self.method!r}"
                )
        return out

    @property
    def source(self) -> str:
        return self._source

    def check_system(self, check: Check | Fight | Campaign) -> str:
        system = check.system or self.system
        assert system is not None  # validated: one of them is set
        return system

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
        if self.sweep is not None and self.checks and (self.sweep.variants or self.sweep.axes):
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

    def cross_combat_file(self) -> Path | None:
        """The file's ``cross_combat`` mapping, relative to the scenario file (None: the
        file names none)."""
        if self.cross_combat is None:
            return None
        base = Path(self.source).parent if self.source != "<scenario>" else Path()
        return base / self.cross_combat

    def output_dir(self) -> Path | None:
        if self.output.dir is None:
            return None
        base = Path(self.source).parent if self.source != "<scenario>" else Path.cwd()
        return (base / self.output.dir).resolve()


# --------------------------------------------------------------------------------------
# Validation: pydantic's errors in the words of the file, then the rules (scenario_validation)


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
    "int_type": "expected a whole number",
    "int_parsing": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_type": "expected a number",
    "float_parsing": "expected a number",
    "string_type": "expected text",
    "bool_type": "expected true or false",
    "bool_parsing": "expected true or false",
    "dict_type": "expected a table",
    "list_type": "expected a list",
    "model_type": "expected a table",
    "finite_number": "expected a finite number",
}


def _describe(err: Any) -> str:
    import re

    kind, msg, got = err["type"], err["msg"], err.get("input")
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        known = _known_keys(err["loc"][:-1])
        return "unknown key" + (
            did_you_mean(err["loc"][-1], known) + f"; known: {known_list(known)}" if known else ""
        )
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"{got!r} is not allowed; choose {' | '.join(choices)}"
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "greater_than": ("more than", "gt"),
        "less_than_equal": ("at most", "le"),
        "less_than": ("less than", "lt"),
    }
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


def raise_problems(source: str, problems: list[tuple[str, str]]):
    """Raise one :class:`~engines.errors.InputError` listing every ``(key path, why)``
    problem of the file ``source``."""
    lines = [f"{source}: {path}: {why}" for path, why in problems]
    head = (
        lines[0]
        if len(lines) == 1
        else (f"{source}: {len(lines)} problems\n  " + "\n  ".join(lines))
    )
    raise InputError(head)


def parse_scenario(data: Any, source: str = "<scenario>") -> Scenario:
    """Validate already-parsed TOML data; every problem is reported in one InputError."""
    if not isinstance(data, dict):
        raise_problems(source, [("(top level)", "expected a table of keys")])
    try:
        sc = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = [(_loc(e["loc"]), _describe(e)) for e in exc.errors()]
        # keep going where possible: semantic checks on a copy without the broken parts
        partial = _salvage(data, exc)
        if partial is not None:
            broken = {path for path, _ in problems}
            problems += [
                p
                for p in semantic_problems(partial)
                if p not in problems
                and not any(
                    p[0] == b or p[0].startswith(b + ".") or p[0].startswith(b + "[")
                    for b in broken
                )
            ]
        raise_problems(source, problems)
    problems = semantic_problems(sc)
    if problems:
        raise_problems(source, problems)
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
    if sc.rules:
        from analysis.rules import load_files

        try:
            sc._rule_sets = load_files(
                [path.parent / r for r in sc.rules], where=f"{source}: rules:"
            )
        except InputError as exc:
            raise InputError(
                "\n".join(f"{source}: rules: {line}" for line in str(exc).splitlines())
            ) from None
    if sc.cross_combat is not None:  # the mapping it names, validated now, in one line
        from analysis.combat.cross_combat import load_cross

        try:
            load_cross(sc.cross_combat_file())
        except InputError as exc:
            raise InputError(f"{source}: cross_combat: {exc}") from None
    return sc
