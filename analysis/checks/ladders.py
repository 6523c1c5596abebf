"""The common competence and difficulty ladders, and the cross-system comparison they allow.

``analysis/data/ladders.toml`` maps a competence ladder (untrained … master) and a
difficulty ladder (easy … very hard) to each system's native numbers, with the reason for
each mapping (RULES.md "Comparing systems"; B2, D1, E1 name their own difficulties). The
default anchor: every system's "competent" meets an "average" task with about the same
chance. :func:`load_ladders` reads and validates the file (pydantic; errors name the file
and the key), :func:`ladder_table` gives P(success) exactly for each system × competence ×
difficulty, and :func:`swinginess` / :func:`upset_table` measure how far luck reaches:
the SD of a check's outcome in ladder rungs, and P(upset) when the weaker rung opposes the
stronger (opposed rules A-g7, B5, C10, D3, E5).
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.checks.curves import variants_for
from analysis.checks.opposed import opposed_table
from engines.errors import InputError
from engines.system import get, registry
from engines.systems.percentile import checks as percentile

__all__ = [
    "DEFAULT_PATH",
    "FALLBACK_LADDER",
    "LADDER_FILE",
    "RUNGS",
    "Anchor",
    "Ladders",
    "PercentileDifficulty",
    "SystemLadder",
    "anchor_report",
    "ladder_table",
    "left_out",
    "load_competence_ladder",
    "load_ladders",
    "p_rung",
    "swinginess",
    "upset_table",
]

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "ladders.toml"


def _rules(system: str):
    """The system's :class:`engines.system.LadderRules`, or an :class:`InputError`."""
    rules = get(system).require("ladder").rules
    if rules is None:
        raise InputError(f"{system}: this system declares no ladder rules (Ladder.rules)")
    return rules


# The competence ladder as the solvers and sweeps read it ({system: {rung: value}}).
LADDER_FILE = Path(__file__).resolve().parent.parent / "data" / "ladders.toml"
RUNGS = ("untrained", "novice", "competent", "expert", "master")

#: Competence ladder used until ``analysis/data/ladders.toml`` exists. Native meaning:
#: dice in the pool (``dice_pool_7``, ``dice_pool_6``), characteristic + skill
#: (``middle_3d10``), skill % (``percentile``), total modifier (``d20_degrees``).
#: Anchor: a *competent* character meets an *average* task about half the time or a
#: little more in every system (dice_pool_7 5 dice vs one success; middle_3d10 +9 vs 15;
#: dice_pool_6 5 dice vs 2 successes; percentile 50 % regular; d20_degrees +8 vs DC 15);
#: each rung above or below moves by a similar step of the system's own unit.
#: Each system declares its own (``Ladder.rungs``).
FALLBACK_LADDER: dict[str, dict[str, int]] = {
    sid: dict(s.ladder.rungs)
    for sid, s in registry().items()
    if s.ladder is not None and s.ladder.rungs
}


def _ladder_from_data(data: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Pull ``{system: {rung: value}}`` out of a ladder file (three shapes accepted).

    ``[systems.<system>] competence = {rung = value}`` (the project's data file),
    ``[competence.<system>]`` tables of ``rung = value``, or ``[<system>.competence]``;
    a rung may also be a table with a ``value`` key. Unknown shapes give ``{}``.
    """
    out: dict[str, dict[str, int]] = {}
    sources: list = []
    comp = data.get("competence")
    if isinstance(comp, dict):
        sources.extend(comp.items())
    nested = data.get("systems")
    known = registry()
    for system in known:
        for sub in (data.get(system), nested.get(system) if isinstance(nested, dict) else None):
            if isinstance(sub, dict) and isinstance(sub.get("competence"), dict):
                sources.append((system, sub["competence"]))
    for system, rungs in sources:
        if system not in known or not isinstance(rungs, dict):
            continue
        table = {}
        for rung, value in rungs.items():
            if isinstance(value, dict):
                value = value.get("value")
            if isinstance(value, int) and not isinstance(value, bool):
                table[str(rung)] = value
        if table:
            out[system] = table
    return out


def load_competence_ladder(path: str | Path | None = None) -> dict[str, dict[str, int]]:
    """The competence ladder ``{system: {rung: native value}}``.

    Reads ``path`` (default ``analysis/data/ladders.toml``) when it exists; systems or
    rungs it does not give keep the :data:`FALLBACK_LADDER` values.
    """
    ladder = {
        sid: dict(s.ladder.rungs)
        for sid, s in registry().items()
        if s.ladder is not None and s.ladder.rungs
    }
    path = Path(path) if path is not None else LADDER_FILE
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"{path}: cannot read the competence ladder: {exc}") from None
        for system, rungs in _ladder_from_data(data).items():
            ladder.setdefault(system, {}).update(rungs)
    return ladder


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Anchor(_Strict):
    competence: str
    difficulty: str
    target: float = Field(gt=0, lt=1)
    tolerance: float = Field(ge=0, lt=1)


class PercentileDifficulty(_Strict):
    """D1 level the roll must reach, with D4 bonus (>0) or penalty (<0) dice."""

    level: Literal["regular", "hard", "extreme"]
    dice: int = Field(default=0, ge=-percentile.MAX_DICE, le=percentile.MAX_DICE)


class SystemLadder(_Strict):
    reason: str = Field(min_length=1)
    competence: dict[str, int]
    difficulty: dict[str, int | PercentileDifficulty]


class Ladders(_Strict):
    """A validated ladder file."""

    competence: list[str] = Field(min_length=2)
    difficulty: list[str] = Field(min_length=2)
    anchor: Anchor
    systems: dict[str, SystemLadder] = Field(min_length=1)
    source: str = "ladders.toml"


def _where(loc) -> str:
    return ".".join(str(p) for p in loc)


def _validate(lad: Ladders, src: str) -> None:
    def fail(key: str, msg: str):
        raise InputError(f"{src}: {key}: {msg}")

    for name in ("competence", "difficulty"):
        rungs = getattr(lad, name)
        if len(set(rungs)) != len(rungs):
            fail(name, "rung names must be unique")
    if lad.anchor.competence not in lad.competence:
        fail("anchor.competence", f"{lad.anchor.competence!r} is not a competence rung")
    if lad.anchor.difficulty not in lad.difficulty:
        fail("anchor.difficulty", f"{lad.anchor.difficulty!r} is not a difficulty rung")
    for system, sl in lad.systems.items():
        mapped = [
            sid
            for sid, s in registry().items()
            if s.ladder is not None and s.ladder.rules is not None
        ]
        if system not in mapped:
            fail(f"systems.{system}", f"unknown system; known: {', '.join(mapped)}")
        for name, rungs in (("competence", lad.competence), ("difficulty", lad.difficulty)):
            given = getattr(sl, name)
            missing = [r for r in rungs if r not in given]
            extra = [r for r in given if r not in rungs]
            if missing:
                fail(f"systems.{system}.{name}", f"missing rung {missing[0]!r}")
            if extra:
                fail(
                    f"systems.{system}.{name}.{extra[0]}",
                    f"unknown rung; the ladder has {', '.join(rungs)}",
                )
        rules = _rules(system)
        lo, hi = rules.competence_range
        values = [sl.competence[r] for r in lad.competence]
        for r, x in zip(lad.competence, values, strict=True):
            if not lo <= x <= hi:
                fail(f"systems.{system}.competence.{r}", f"{x} is outside {lo}..{hi}")
        for r, (x, y) in zip(lad.competence[1:], _pairs(values), strict=True):
            if y < x:
                fail(f"systems.{system}.competence.{r}", "must not be below the rung before it")
        diffs = [sl.difficulty[r] for r in lad.difficulty]
        if rules.difficulty_range is None:  # a difficulty rung is a {level, dice} table
            for r, d in zip(lad.difficulty, diffs, strict=True):
                if not isinstance(d, PercentileDifficulty):
                    fail(
                        f"systems.{system}.difficulty.{r}",
                        "expected a table { level = ..., dice = ... }",
                    )
            continue
        lo, hi = rules.difficulty_range
        for r, d in zip(lad.difficulty, diffs, strict=True):
            if not isinstance(d, int):
                fail(f"systems.{system}.difficulty.{r}", "expected a whole number")
            if not lo <= d <= hi:
                fail(f"systems.{system}.difficulty.{r}", f"{d} is outside {lo}..{hi}")
        for r, (x, y) in zip(lad.difficulty[1:], _pairs(diffs), strict=True):
            if (y - x) * rules.harder < 0:
                fail(
                    f"systems.{system}.difficulty.{r}", "must not be easier than the rung before it"
                )


def _pairs(values):
    return list(itertools.pairwise(values))


def load_ladders(path: str | Path | None = None) -> Ladders:
    """Read and validate a ladder file (default: the packaged ``data/ladders.toml``).

    Every problem raises :class:`InputError` naming the file and the key, e.g.
    ``ladders.toml: systems.percentile.competence.master: 120 is outside 1..100``.
    """
    path = Path(path) if path is not None else DEFAULT_PATH
    src = str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{src}: ladder file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{src}: cannot read the ladder file ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{src}: not valid TOML: {exc}") from None
    try:
        lad = Ladders.model_validate({**raw, "source": src})
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [
            p
            for p in err["loc"]
            if not (isinstance(p, str) and p in ("int", "PercentileDifficulty"))
        ]
        raise InputError(f"{src}: {_where(loc) or 'file'}: {err['msg']}") from None
    _validate(lad, src)
    return lad


def left_out(ladders=None) -> list[str]:
    """One sentence per installed system the common ladder leaves out, saying why: it
    declares no ladder rules (``Ladder.rules``), or the ladders file maps no rungs
    for it."""
    lad = _as_ladders(ladders)
    notes = []
    for sid, s in registry().items():
        if sid in lad.systems:
            continue
        why = (
            "it declares no ladder rules (Ladder.rules)"
            if s.ladder is None or s.ladder.rules is None
            else "the ladders file maps no rungs for it"
        )
        notes.append(f"{sid}: not on the common ladder: {why}")
    return notes


def _as_ladders(ladders) -> Ladders:
    if isinstance(ladders, Ladders):
        return ladders
    return load_ladders(ladders)


def _native(system: str, sl: SystemLadder, comp: str, diff: str) -> tuple[str, str]:
    return _rules(system).labels(sl.competence[comp], sl.difficulty[diff])


def p_rung(system: str, sl: SystemLadder, comp: str, diff: str, variants=None) -> float:
    """Exact P(success) of one ladder cell (A1/A2, B1/B2, C1, D1/D4, E1–E3)."""
    v = variants_for(system, variants)
    return _rules(system).p(sl.competence[comp], sl.difficulty[diff], v)


def ladder_table(ladders=None, variants: dict[str, Any] | None = None) -> pd.DataFrame:
    """P(success) for each system × competence × difficulty on the common ladder (exact).

    Columns: ``system``, ``competence``, ``difficulty``, ``competence_rank``,
    ``difficulty_rank`` (0 = lowest rung), ``competence_native``, ``difficulty_native``
    (the mapped numbers), ``p``; plus ``anchor_gap`` = p − target on the anchor cell.
    """
    lad = _as_ladders(ladders)
    variants = variants or {}
    rows = []
    for system, sl in lad.systems.items():
        for i, comp in enumerate(lad.competence):
            for j, diff in enumerate(lad.difficulty):
                cn, dn = _native(system, sl, comp, diff)
                p = p_rung(system, sl, comp, diff, variants.get(system))
                rows.append(
                    {
                        "system": system,
                        "competence": comp,
                        "difficulty": diff,
                        "competence_rank": i,
                        "difficulty_rank": j,
                        "competence_native": cn,
                        "difficulty_native": dn,
                        "p": p,
                    }
                )
    out = pd.DataFrame(rows)
    anchor = (out["competence"] == lad.anchor.competence) & (
        out["difficulty"] == lad.anchor.difficulty
    )
    out["anchor_gap"] = np.where(anchor, out["p"] - lad.anchor.target, np.nan)
    return out


def anchor_report(ladders=None) -> pd.DataFrame:
    """Per system: P(anchor cell), its gap to the target, and whether it is within tolerance."""
    lad = _as_ladders(ladders)
    t = ladder_table(lad)
    a = t[t["anchor_gap"].notna()][["system", "p", "anchor_gap"]].reset_index(drop=True)
    a["within_tolerance"] = a["anchor_gap"].abs() <= lad.anchor.tolerance + 1e-12
    return a


def upset_table(
    ladders=None, variants: dict[str, Any] | None = None, adjacent_only: bool = False
) -> pd.DataFrame:
    """P(upset) when a weaker competence rung opposes a stronger one (exact).

    Both sides roll their system's opposed check (A-g7, B5/B-g3, C10, D3, E5) with the
    ladder's competence values. ``p_upset_attacking``: the weaker side attacks (or
    challenges) and wins; ``p_upset_defending``: the stronger side attacks and loses.
    """
    lad = _as_ladders(ladders)
    variants = variants or {}
    rows = []
    for system, sl in lad.systems.items():
        rule = get(system).checks.opposed
        if rule is None:  # no opposed rule: no upsets to measure
            continue
        axis = rule.rank_axis
        vals = sorted({sl.competence[r] for r in lad.competence})
        t = opposed_table(
            system, axes={f"{axis}_a": vals, f"{axis}_b": vals}, variants=variants.get(system)
        )
        p = {(a, b): x for a, b, x in zip(t[f"{axis}_a"], t[f"{axis}_b"], t["p"], strict=True)}
        for i, weak in enumerate(lad.competence):
            for j in range(i + 1, len(lad.competence)):
                if adjacent_only and j != i + 1:
                    continue
                strong = lad.competence[j]
                w, s = sl.competence[weak], sl.competence[strong]
                rows.append(
                    {
                        "system": system,
                        "weaker": weak,
                        "stronger": strong,
                        "rungs_apart": j - i,
                        "weaker_native": w,
                        "stronger_native": s,
                        "p_upset_attacking": p[(w, s)],
                        "p_upset_defending": 1 - p[(s, w)],
                    }
                )
    return pd.DataFrame(rows)


def _score_distribution(system: str, value: int, v) -> tuple[np.ndarray, np.ndarray]:
    """(scores, probabilities) of one check's native outcome, higher = better: successes
    (pools), middle die + modifier (B1), skill − d100 (D1 margin), d20 + modifier (E1)."""
    return _rules(system).score(value, v)


def swinginess(ladders=None, variants: dict[str, Any] | None = None) -> pd.DataFrame:
    """How far luck reaches in each system, measured on the common ladder.

    Columns per system: ``sd_outcome`` (SD of the anchor competence's native outcome),
    ``rung_shift`` (mean outcome gained from the anchor rung to the next rung up),
    ``sd_in_rungs`` = sd / shift (how many competence rungs one SD of luck is worth),
    ``slope_pp_per_rung`` (mean change in P(success) per rung at the anchor difficulty),
    ``p_upset_adjacent`` (mean P(upset) of a weaker rung attacking the next rung up),
    ``p_upset_adjacent_defending`` (the same rung defending against it: where ties go to
    the defender, A-g7, the two differ widely), ``p_upset_two_apart`` and
    ``p_upset_two_apart_defending``.
    """
    lad = _as_ladders(ladders)
    variants = variants or {}
    table = ladder_table(lad, variants)
    upsets = upset_table(lad, variants)
    i = lad.competence.index(lad.anchor.competence)
    up = lad.competence[min(i + 1, len(lad.competence) - 1)]
    rows = []
    for system, sl in lad.systems.items():
        v = variants_for(system, variants.get(system))
        s0, p0 = _score_distribution(system, sl.competence[lad.anchor.competence], v)
        s1, p1 = _score_distribution(system, sl.competence[up], v)
        mean0 = float(s0 @ p0)
        sd = float(np.sqrt(max(s0**2 @ p0 - mean0**2, 0.0)))
        shift = float(s1 @ p1) - mean0
        at = table[(table["system"] == system) & (table["difficulty"] == lad.anchor.difficulty)]
        p_by_rank = at.sort_values("competence_rank")["p"].to_numpy()
        slope = 100 * (p_by_rank[-1] - p_by_rank[0]) / (len(p_by_rank) - 1)
        u = upsets[upsets["system"] == system]
        rows.append(
            {
                "system": system,
                "sd_outcome": sd,
                "rung_shift": shift,
                "sd_in_rungs": sd / shift if shift > 0 else np.inf,
                "slope_pp_per_rung": slope,
                "p_upset_adjacent": float(u.loc[u["rungs_apart"] == 1, "p_upset_attacking"].mean()),
                "p_upset_adjacent_defending": float(
                    u.loc[u["rungs_apart"] == 1, "p_upset_defending"].mean()
                ),
                "p_upset_two_apart": float(
                    u.loc[u["rungs_apart"] == 2, "p_upset_attacking"].mean()
                ),
                "p_upset_two_apart_defending": float(
                    u.loc[u["rungs_apart"] == 2, "p_upset_defending"].mean()
                ),
            }
        )
    return pd.DataFrame(rows)
