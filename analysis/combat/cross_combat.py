"""The same fights in all five systems, side by side, on the common competence ladder.

Two duels ("a competent fighter with a light melee weapon against an equal", "a
competent shooter with a pistol against an unarmoured novice") and two group fights
(2v2, 3v1) are mapped to every system's own archetypes in
``analysis/data/cross_combat.toml`` (an editable assumption, with a reason per choice); a
designer's own file (``--cross-combat FILE``, the ``cross_combat`` key of a scenario file)
replaces it, and maps a plug-in's fighters too.

:func:`cross_table` gives, per matchup and system: the fighters with their gear (``a``,
``b``), P(A wins), P(B wins), P(neither), rounds (mean and quantiles), what becomes of the
loser (dead / dying / out among decided fights, under one aftermath policy for every system,
named in the ``aftermath`` column) and the one-hit odds both ways, exact where the system's
``duel_exact`` solves the duel and Monte Carlo with standard errors otherwise (the
``method`` column says which; ``note`` says why MC was used). :func:`group_table`
runs the group fights (Monte Carlo) with round-by-round survival; :func:`cross_plot` draws
survival curves and rounds distributions in each system's fixed colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.combat import lethality
from analysis.combat.archetypes import combatant, engine
from analysis.combat.archetypes import systems as combat_systems
from analysis.toml_input import read_toml
from engines.constants import ROUND_CAP
from engines.errors import InputError
from engines.fight import FightStats, check_aftermath
from engines.system import registry

__all__ = [
    "DATA_FILE",
    "LADDER",
    "PACKAGED",
    "CrossFile",
    "Group",
    "Pair",
    "cross_plot",
    "cross_stats",
    "cross_table",
    "file_label",
    "group_table",
    "load_cross",
    "refuse_distance",
]

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "cross_combat.toml"
#: how the report and the notes name the packaged file
PACKAGED = "analysis/data/cross_combat.toml"
LADDER = ("untrained", "novice", "competent", "expert", "master")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Pair(_Strict):
    a: dict[str, Any]
    b: dict[str, Any]
    note: str = ""


class Group(_Strict):
    title: str = ""
    side0: list[str] = Field(min_length=1, max_length=20)
    side1: list[str] = Field(min_length=1, max_length=20)


class CrossFile(_Strict):
    matchups: dict[str, dict[str, Any]]
    groups: dict[str, Group] = {}
    ladder: dict[str, dict[str, dict[str, Any]]] = {}


def _msg(fname: str, exc: ValidationError, prefix: str = "") -> str:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in (*([prefix] if prefix else []), *err["loc"]))
    msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
    return f"{fname}: {loc}: {msg}"


def _fighter(fname: str, where: str, system: str, spec: dict):
    spec = dict(spec)
    if "archetype" not in spec:
        raise InputError(f"{fname}: {where}.archetype: missing")
    name = spec.pop("archetype")
    try:
        return combatant(system, name, spec)
    except InputError as exc:
        msg = str(exc)
        msg = msg[len(system) + 2 :] if msg.startswith(f"{system}: ") else msg
        raise InputError(f"{fname}: {where}: {msg}") from None


def _distances(fname: str, mid: str, raw, problems: list[str]) -> tuple[int, ...]:
    """A matchup's ``distances`` (whole metres, RULES.md "Distance, movement and cover"):
    () when the matchup has none (its fights start engaged)."""
    from engines.distance import MAX_DISTANCE

    if raw is None:
        return ()
    where = f"{fname}: matchups.{mid}.distances"
    if not isinstance(raw, list) or not raw:
        problems.append(f"{where}: expected a list of whole metres, e.g. [0, 10, 20, 40]")
        return ()
    bad = [
        d
        for d in raw
        if isinstance(d, bool) or not isinstance(d, int) or not 0 <= d <= MAX_DISTANCE
    ]
    if bad:
        problems.append(f"{where}: {bad[0]!r}: expected whole metres 0..{MAX_DISTANCE}")
        return ()
    if len(set(raw)) != len(raw):
        problems.append(f"{where}: a distance is listed twice")
        return ()
    return tuple(raw)


def file_label(path: str | Path | None = None) -> str:
    """The cross-combat file as a table, a note or the report names it: the packaged one
    as :data:`PACKAGED`, a designer's as the path given."""
    return PACKAGED if path is None else str(path)


def load_cross(path: str | Path | None = None) -> dict:
    """Validated cross-system mapping (``path``: a designer's file; None: the packaged
    :data:`DATA_FILE`): ``{"matchups": {id: {"title", system: (a, b)}},
    "groups": {id: Group}, "ladder": {system: {rung: combatant}}, "ladder_specs":
    {system: {rung: spec}}, "labels": {id: {system:
    (label_a, label_b)}}, "specs": {id: {system: (spec_a, spec_b)}}, "systems": (id,
    ...)}`` (engine combatants; labels name the
    archetype, its overrides and its weapon, :func:`analysis.combat.lethality.fighter_label`;
    specs are the file's own fighter tables, the way ``duel`` and ``--discover`` take them).

    A matchup with ``distances = [0, 10, 20, 40]`` becomes one matchup per starting
    distance, ``<id>_<d>m`` (entry keys ``base`` and ``distance`` added); every system it
    maps needs distance rules. A system's mapping may carry a ``note`` (e.g. why its two
    sides are the same), kept in the entry's ``notes`` and shown in the table's ``note``.
    """
    p = Path(path) if path is not None else DATA_FILE
    fname = p.name
    raw = read_toml(p, "cross-combat file")
    try:
        spec = CrossFile.model_validate(raw)
    except ValidationError as exc:
        raise InputError(_msg(fname, exc)) from None
    import difflib

    matchups = {}
    labels: dict[str, dict] = {}
    specs: dict[str, dict] = {}
    problems: list[str] = []  # every matchup problem at once
    # the systems compared: every installed system with combat rules that the file maps
    # (a plug-in opts in by a mapping), in registry order
    with_combat = combat_systems()
    named = {k for table in spec.matchups.values() for k in table if k != "title"}
    named |= set(spec.ladder)
    systems = [s for s in with_combat if s in named]
    for mid, table in spec.matchups.items():
        title = table.get("title", mid)
        if not isinstance(title, str):
            problems.append(f"{fname}: matchups.{mid}.title: expected text")
        distances = _distances(fname, mid, table.get("distances"), problems)
        entry: dict[str, Any] = {"title": title}
        for key in sorted(set(table) - set(with_combat) - {"title", "distances"}):
            if key in registry():
                problems.append(f"{fname}: matchups.{mid}.{key}: {registry()[key].lacks('combat')}")
                continue
            close = difflib.get_close_matches(key, with_combat, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            problems.append(
                f"{fname}: matchups.{mid}.{key}: unknown system{hint}; known: "
                f"{', '.join(with_combat)}"
            )
        for system in systems:
            where = f"matchups.{mid}.{system}"
            if system not in table:
                problems.append(
                    f"{fname}: {where}: missing (every system the file maps "
                    "needs a mapping in every matchup)"
                )
                continue
            if distances and not lethality.has_distance(system):
                problems.append(
                    f"{fname}: matchups.{mid}.distances: {system}'s fights "
                    "start engaged (its combat has no distance rules)"
                )
                continue
            try:
                pair = Pair.model_validate(table[system])
                entry[system] = (
                    _fighter(fname, f"{where}.a", system, pair.a),
                    _fighter(fname, f"{where}.b", system, pair.b),
                )
                labels.setdefault(mid, {})[system] = (
                    lethality.fighter_label(pair.a, built=entry[system][0], system=system),
                    lethality.fighter_label(pair.b, built=entry[system][1], system=system),
                )
                specs.setdefault(mid, {})[system] = (dict(pair.a), dict(pair.b))
                if pair.note:
                    entry.setdefault("notes", {})[system] = pair.note
            except ValidationError as exc:
                problems.append(_msg(fname, exc, where))
            except InputError as exc:
                problems.append(str(exc))
        if not distances:
            matchups[mid] = entry
            continue
        # one matchup per starting distance: ``<id>_<d>m``, the same fighters, the fight
        # starting d metres apart (the combat variant ``distance``)
        for d in distances:
            key = f"{mid}_{d}m"
            matchups[key] = {**entry, "base": mid, "distance": d}
            if mid in labels:
                labels[key] = labels[mid]
                specs[key] = specs[mid]
    if problems:
        raise InputError(
            problems[0]
            if len(problems) == 1
            else f"{fname}: {len(problems)} problems\n  " + "\n  ".join(problems)
        )
    ladder: dict[str, dict] = {}
    ladder_specs: dict[str, dict] = {}  # the mappings behind the rungs, for labels
    needed = {r for g in spec.groups.values() for r in (*g.side0, *g.side1)}
    for gid, g in spec.groups.items():
        for r in (*g.side0, *g.side1):
            if r not in LADDER:
                raise InputError(
                    f"{fname}: groups.{gid}: unknown rung {r!r}; known: " + ", ".join(LADDER)
                )
    for system in systems:
        rungs = spec.ladder.get(system)
        if rungs is None:
            if needed:
                raise InputError(f"{fname}: ladder.{system}: missing (the groups need it)")
            continue
        ladder[system], ladder_specs[system] = {}, {}
        for rung in sorted(needed | set(rungs)):  # the groups' rungs, and any other given
            if rung not in rungs:
                raise InputError(f"{fname}: ladder.{system}.{rung}: missing")
            if rung not in LADDER:
                raise InputError(
                    f"{fname}: ladder.{system}.{rung}: unknown rung; known: " + ", ".join(LADDER)
                )
            ladder[system][rung] = _fighter(fname, f"ladder.{system}.{rung}", system, rungs[rung])
            ladder_specs[system][rung] = dict(rungs[rung])
    return {
        "matchups": matchups,
        "groups": spec.groups,
        "ladder": ladder,
        "ladder_specs": ladder_specs,
        "labels": labels,
        "specs": specs,
        "systems": tuple(systems),
    }


def _duel(
    system: str,
    a,
    b,
    method: str,
    trials: int,
    seed,
    round_cap: int,
    progress,
    v=None,
    aftermath: str = "leave",
) -> tuple[FightStats, str]:
    if method in ("exact", "both"):
        try:
            return lethality.run_fight(
                system, [a], [b], "exact", variants=v, round_cap=round_cap, aftermath=aftermath
            ), ""
        except InputError as exc:
            note = f"exact unavailable: {exc}"
    else:
        note = ""
    return lethality.run_fight(
        system,
        [a],
        [b],
        "mc",
        trials=trials,
        seed=seed,
        variants=v,
        round_cap=round_cap,
        progress=progress,
        aftermath=aftermath,
    ), note


def _variants_of(system: str, variants, distance: int | None = None) -> Any:
    """``variants`` is ``{system: NAME=VALUE strings or mapping}``; systems not named run
    under their defaults. ``distance`` (a matchup's starting distance) replaces the
    combat variant ``distance``."""
    v = (variants or {}).get(system)
    if distance is None:
        return v
    import dataclasses

    return dataclasses.replace(lethality.combat_variants(system, v), distance=distance)


def refuse_distance(variants) -> None:
    """A cross-combat duel starts where its matchup says: engaged (0 m), or each of the
    file's ``distances = [...]`` (the matchup ``<id>_<d>m``, RULES.md "Distance, movement
    and cover"). A ``distance`` among the run's combat variants would either overrule
    those (every "…_0m" and "…_40m" row fought at the variant's distance) or let the rows
    say one distance while computing another, so it is refused (InputError, one line):
    the distances belong in the matchup file. ``variants`` as for :func:`cross_stats`."""
    for system, given in (variants or {}).items():
        pairs = (
            given.items()
            if isinstance(given, Mapping)
            else (str(x).partition("=")[::2] for x in given or ())
        )
        for name, value in pairs:
            if str(name).strip() == "distance":
                raise InputError(
                    f"{system}:distance={str(value).strip()}: a cross-combat duel starts at "
                    "its matchup's distance (engaged, or the matchup file's `distances = "
                    "[...]`); set the distances there, not as a variant"
                )


def cross_stats(
    path=None,
    *,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
    systems=None,
    variants: dict | None = None,
    aftermath: str = "leave",
) -> dict[tuple[str, str, str], tuple[FightStats, str]]:
    """``{(matchup, system, method): (FightStats, note)}`` for every duel of the file.

    ``method``: ``exact`` (exact where the system's solver handles the duel, otherwise
    MC), ``mc`` (Monte Carlo everywhere) or ``both`` (each system's exact result and MC).
    ``variants``: ``{system: combat variants}`` (NAME=VALUE strings or a mapping) for the
    systems that do not run under their defaults. ``aftermath`` is the one policy
    (``engines.fight.AFTERMATHS``) every system runs, so the loser's fates compare like
    with like.
    """
    if method not in ("exact", "mc", "both"):
        raise InputError(f"method: expected exact, mc or both, got {method!r}")
    check_aftermath(aftermath)
    refuse_distance(variants)
    spec = load_cross(path)
    out = {}
    for mid, entry in spec["matchups"].items():
        for system in spec["systems"] if systems is None else systems:
            a, b = entry[system]
            v = _variants_of(system, variants, entry.get("distance"))
            st, note = _duel(system, a, b, method, trials, seed, round_cap, progress, v, aftermath)
            out[(mid, system, "exact" if st.exact else "mc")] = (st, note)
            if method == "both" and st.exact:
                mc = lethality.run_fight(
                    system,
                    [a],
                    [b],
                    "mc",
                    trials=trials,
                    seed=seed,
                    variants=v,
                    round_cap=round_cap,
                    progress=progress,
                    aftermath=aftermath,
                )
                out[(mid, system, "mc")] = (mc, "")
    return out


def cross_table(
    path=None,
    *,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
    stats: dict | None = None,
    variants: dict | None = None,
    aftermath: str = "leave",
) -> pd.DataFrame:
    """One row per matchup × system (× method): who wins, how long, how deadly.

    Columns: ``distance`` (metres apart at the start; 0 = engaged), ``a``/``b``
    (archetype, overrides and weapon of each side), ``aftermath``
    (the policy of every row), ``p_side0``/``p_side1``/``p_neither`` with SEs, rounds mean (SE)
    and quantiles, ``p_loser_dead``/``p_loser_dying``/``p_loser_out`` (the loser's fate
    among decided fights, summing to 1, with SEs), ``p_someone_dead``/``deaths_mean``
    (P(someone dies), expected dead, both sides, with SEs), one-hit odds of A on B and B on A
    (exact, from each engine's ``one_hit``), ``method`` and ``note``. With ``stats``
    given, ``aftermath`` must be the policy they were run with (it sets the one-hit odds).
    """
    spec = load_cross(path)
    if stats is None:
        stats = cross_stats(
            path,
            method=method,
            trials=trials,
            seed=seed,
            round_cap=round_cap,
            progress=progress,
            variants=variants,
            aftermath=aftermath,
        )
    rows = []
    for (mid, system, m), (st, note) in stats.items():
        a, b = spec["matchups"][mid][system]
        label_a, label_b = spec["labels"][mid][system]
        s = lethality.summary(st)
        if s["aftermath"] != aftermath:
            raise InputError(
                f"cross_table: {mid}/{system} ran with aftermath {s['aftermath']}, not {aftermath}"
            )
        eng = engine(system)
        entry = spec["matchups"][mid]
        # one attack of an unhurt fighter on another: the odds of a blow that lands, the
        # same at any starting distance (the matchup's own variants, engaged)
        v = lethality.combat_variants(system, _variants_of(system, variants), aftermath)
        note = "; ".join(x for x in (entry.get("notes", {}).get(system, ""), note) if x)
        ab = eng.one_hit(a, b, v)
        ba = eng.one_hit(b, a, v)
        rows.append(
            {
                "matchup": mid,
                "system": system,
                "distance": entry.get("distance", 0),
                "a": label_a,
                "b": label_b,
                "method": m,
                "aftermath": s["aftermath"],
                "trials": st.trials,
                "p_side0": s["p_side0"],
                "se_side0": s["se_side0"],
                "p_side1": s["p_side1"],
                "se_side1": s["se_side1"],
                "p_neither": s["p_neither"],
                "se_neither": s["se_neither"],
                "rounds_mean": s["rounds_mean"],
                "rounds_se": s["rounds_se"],
                **{k: s[k] for k in s if k.startswith("rounds_q")},
                **{k: s[k] for k in s if k.startswith(("p_loser_", "se_loser_"))},
                **{
                    k: s[k]
                    for k in ("p_someone_dead", "se_someone_dead", "deaths_mean", "se_deaths_mean")
                },
                "one_hit_incap_a_on_b": ab["p_incapacitate"],
                "one_hit_kill_a_on_b": ab["p_kill"],
                "one_hit_incap_b_on_a": ba["p_incapacitate"],
                "one_hit_kill_b_on_a": ba["p_kill"],
                "note": note,
            }
        )
    return pd.DataFrame(rows)


def group_table(
    path=None,
    *,
    trials: int = 20_000,
    seed=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
    variants: dict | None = None,
    aftermath: str = "leave",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The file's group fights in every system (Monte Carlo): summary rows (with each
    side's fates, ``p_side0_dead`` … ``p_side1_standing`` and SEs, under ``aftermath``)
    and round-by-round survival (share of each side still able to act)."""
    spec = load_cross(path)
    rows, frames = [], []
    for gid, g in spec["groups"].items():
        for system in spec["systems"]:
            lad, named = spec["ladder"][system], spec["ladder_specs"][system]
            row, standing = lethality.group_fight(
                system,
                [lad[r] for r in g.side0],
                [lad[r] for r in g.side1],
                trials=trials,
                seed=seed,
                variants=_variants_of(system, variants),
                round_cap=round_cap,
                label=gid,
                progress=progress,
                aftermath=aftermath,
                specs=([named[r] for r in g.side0], [named[r] for r in g.side1]),
            )
            rows.append(row)
            frames.append(standing)
    return pd.DataFrame(rows), pd.concat(frames, ignore_index=True)


def cross_plot(stats: dict, matchup: str | None = None, max_round: int = 15):
    """Survival curves (P(the fight is still on after round k)) and the distribution of
    the round in which it ends, one line per system in its fixed colour; MC lines carry
    ±2 SE bands. ``stats`` is :func:`cross_stats`'s result."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from analysis.checks.plots import SYSTEM_COLORS, SYSTEM_LABELS

    mids = sorted({k[0] for k in stats}) if matchup is None else [matchup]
    if not mids or (matchup is not None and not any(k[0] == matchup for k in stats)):
        raise InputError(f"cross_plot: no results for matchup {matchup!r}")
    fig = Figure(figsize=(11, 3.8 * len(mids)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(mids), 2, squeeze=False)
    for row, mid in enumerate(mids):
        ax_s, ax_r = axes[row]
        for (m_id, system, m), (st, _) in stats.items():
            if m_id != mid:
                continue
            pmf = st.rounds_pmf()
            k = np.arange(min(pmf.size, max_round + 1))
            alive = 1.0 - np.cumsum(pmf)[: k.size]
            style = "-" if m == "exact" else "--"
            color = SYSTEM_COLORS[system]
            label = f"{SYSTEM_LABELS[system]} [{m}]"
            ax_s.step(k, alive, where="post", color=color, ls=style, label=label)
            ax_r.plot(k, pmf[: k.size], color=color, ls=style, marker="o", ms=3, label=label)
            if not st.exact:
                se = np.sqrt(np.clip(alive * (1 - alive), 0, None) / st.n)
                ax_s.fill_between(
                    k, alive - 2 * se, alive + 2 * se, step="post", color=color, alpha=0.2
                )
                se_r = np.sqrt(np.clip(pmf[: k.size] * (1 - pmf[: k.size]), 0, None) / st.n)
                ax_r.errorbar(k, pmf[: k.size], yerr=2 * se_r, color=color, ls="none")
        ax_s.set(
            title=f"{mid}: P(fight still on after round k)",
            xlabel="round",
            ylabel="probability",
            ylim=(0, 1.02),
        )
        ax_r.set(
            title=f"{mid}: round in which the fight ends", xlabel="round", ylabel="probability"
        )
        ax_s.grid(alpha=0.3)
        ax_r.grid(alpha=0.3)
    axes[0][1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    return fig
