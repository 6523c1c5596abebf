"""Lethality tables from :class:`engines.fight.FightStats`, the same for every system.

Each function runs fights by system and archetype name and turns the results into a tidy
DataFrame; the tables of one fight result (:func:`summary`, :func:`rounds_table`,
:func:`standing_table`, :func:`damage_table`, the fate columns) are
:mod:`analysis.combat.fight_tables`', re-exported here. Monte Carlo results carry standard
errors (binomial for proportions, ``sd / sqrt(n)`` for means); exact results carry
``se = 0`` and ``method = "exact"``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from analysis.combat.fight_tables import (
    QUANTILES,
    damage_table,
    deadliness_columns,
    loser_fate_columns,
    rounds_quantiles,
    rounds_table,
    side_fate_columns,
    standing_table,
    summary,
    summary_table,
)
from engines.constants import ROUND_CAP
from engines.errors import InputError
from engines.fight import HIST_FIELDS, FightStats, check_aftermath

__all__ = [
    "MC_BATCH",
    "PROGRESS_WORK",
    "QUANTILES",
    "aftermath_of",
    "agreement",
    "armour_table",
    "combat_variants",
    "damage_table",
    "deadliness_columns",
    "distance_systems",
    "distance_table",
    "duel_stats",
    "duel_table",
    "fighter_label",
    "gear_name",
    "group_fight",
    "has_distance",
    "loser_fate_columns",
    "merge_stats",
    "name_of",
    "one_hit",
    "one_hit_table",
    "rounds_quantiles",
    "rounds_table",
    "run_fight",
    "side_fate_columns",
    "side_label",
    "standing_table",
    "stats_names",
    "summary",
    "summary_table",
    "tactic_table",
    "variants_text",
    "weapon_table",
]


def aftermath_of(variants) -> str:
    """The aftermath policy of a combat ``Variants`` object (``leave`` when it has none)."""
    return str(getattr(variants, "aftermath", "leave"))


def combat_variants(system: str, given=None, aftermath: str | None = None):
    """The engine's combat ``Variants`` from a mapping, ``NAME=VALUE`` strings or a
    ``Variants`` object, with the aftermath policy ``aftermath`` (one of
    :data:`engines.fight.AFTERMATHS`) when given.

    The policy is the combat variant ``aftermath`` of every engine (RULES.md "Lethality
    outcomes"); ``None`` keeps what ``given`` says (default ``leave``).
    """
    import dataclasses

    from analysis.combat.archetypes import engine
    from analysis.combat.archetypes import variants as make_variants

    eng = engine(system)
    if isinstance(given, eng.Variants):
        if aftermath is None:
            return given
        return dataclasses.replace(given, aftermath=check_aftermath(aftermath))
    if isinstance(given, list | tuple):
        pairs = {}
        for text in given:
            if "=" not in str(text):
                raise InputError(f"{system}: variant {text!r}: expected NAME=VALUE")
            key, _, val = str(text).partition("=")
            pairs[key.strip()] = val.strip()
        given = pairs
    given = dict(given or {})
    if aftermath is not None:
        given["aftermath"] = check_aftermath(aftermath)
    return make_variants(system, given)


def gear_name(combatant) -> str | None:
    """The weapon of an engine combatant, by name (None when it carries none)."""
    w = getattr(combatant, "weapon", None)
    if w is None:
        return None
    return str(getattr(w, "name", w))


def fighter_label(spec, overrides=None, built=None, system: str | None = None) -> str:
    """``archetype (key=value, …)``: the archetype name with its overrides, and the
    weapon it fights with when no override names one (so every table that shows a number
    also shows the gear behind it), e.g. ``competent (weapon=pistol)``.

    The weapon comes from the built combatant ``built`` when the engine keeps its name,
    else (``system`` given) from the archetype library
    (:func:`analysis.combat.archetypes.weapon_name`): the ``middle_3d10`` and
    ``d20_degrees`` engines see a weapon only as dice or a damage rank."""
    over: dict = {}
    if isinstance(spec, str):
        name = spec
    elif isinstance(spec, Mapping):
        spec = dict(spec)
        name = str(spec.pop("archetype", None) or spec.pop("name", "custom"))
        spec.pop("name", None)
        over.update(spec)
    else:
        name = name_of(spec)
        built = built if built is not None else spec
    over.update(overrides or {})
    if "weapon" not in over:
        weapon = gear_name(built) if built is not None else None
        if weapon is None and system is not None:
            from analysis.combat.archetypes import weapon_name

            weapon = weapon_name(system, name)
        if weapon is not None:
            over = {"weapon": weapon, **over}
    extra = ", ".join(f"{k}={v}" for k, v in over.items())
    return f"{name} ({extra})" if extra else name


def side_label(system: str, specs: list, built: list) -> str:
    """One side of a group fight: each fighter's :func:`fighter_label`, a run of the same
    label counted (``3 × street_thug (weapon=unarmed_lethal)``)."""
    labels = [fighter_label(s, built=c, system=system) for s, c in zip(specs, built, strict=True)]
    runs: list[list] = []
    for label in labels:
        if runs and runs[-1][0] == label:
            runs[-1][1] += 1
        else:
            runs.append([label, 1])
    return ", ".join(label if n == 1 else f"{n} × {label}" for label, n in runs)


def variants_text(variants, named=()) -> str:
    """The variants in force, ``NAME=VALUE; …`` as they are written on the command line:
    each that differs from its default and each in ``named`` (those a file or the command
    line set, even to the default value); ``defaults`` when none. What the ``variants``
    column of a fight table says.

    Examples
    --------
    >>> from engines.systems.d20_degrees.combat import Variants
    >>> variants_text(Variants(surprise="side1", aftermath="finish"), named=["target_rule"])
    'aftermath=finish; target_rule=focus; surprise=side1'
    """
    import dataclasses

    default = type(variants)()
    parts = []
    for f in dataclasses.fields(variants):
        value = getattr(variants, f.name)
        if value != getattr(default, f.name) or f.name in named:
            text = (
                "none"
                if value is None
                else str(value).lower()
                if isinstance(value, bool)
                else str(value)
            )
            parts.append(f"{f.name}={text}")
    return "; ".join(parts) or "defaults"


# ---------------------------------------------------------------------------------------
# Running fights by system and archetype name: duels, one-hit odds, tactic and armour
# effects, N-vs-M groups. Combatants are archetype names (with overrides), trait mappings
# or engine combatant objects (see :mod:`analysis.combat.archetypes`).

#: Monte Carlo trials per batch: one progress-bar step. A run of several batches draws
#: each batch from its own child of the seed (``SeedSequence.spawn``), so the numbers
#: depend on the seed and the trial count only.
MC_BATCH = 100_000
#: Trials × combatants above which a Monte Carlo run shows a progress bar by default.
PROGRESS_WORK = 400_000


def _fighter(system: str, spec, overrides=None, label: str | None = None):
    from analysis.combat.archetypes import combatant, engine

    eng = engine(system)
    if isinstance(spec, str | Mapping):
        return combatant(system, spec, overrides, label=label)
    kinds = tuple(getattr(eng, k) for k in ("Combatant", "Fighter") if hasattr(eng, k))
    if not isinstance(spec, kinds):
        raise InputError(
            f"{system}: expected an archetype name, a trait table or a "
            f"{system} combatant, got {type(spec).__name__}"
        )
    if overrides:
        raise InputError(f"{system}: overrides need an archetype name, not a built combatant")
    return spec


def name_of(c) -> str:
    return str(getattr(c, "name", "?"))


def merge_stats(parts: list[FightStats]) -> FightStats:
    """Sum Monte Carlo results of the same fight run in batches."""
    first = parts[0]
    out = FightStats.empty(first.system, first.round_cap, trials=0)
    for p in parts:
        for key in HIST_FIELDS:
            getattr(out, key)[...] += getattr(p, key)
        out.trials += p.trials  # type: ignore[operator]  # Monte Carlo parts: counted
        out.notes.update(p.notes)
    return out


def run_fight(
    system: str,
    side0: list,
    side1: list,
    method: str = "mc",
    *,
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
    aftermath: str | None = None,
    on_batch: Callable[[int, int], None] | None = None,
) -> FightStats:
    """One fight between two sides of engine combatants, exact (1-vs-1 only) or MC.

    ``aftermath`` sets the combat variant of that name (see :func:`combat_variants`); the
    policy in force is kept in ``notes["aftermath"]`` and shown by :func:`summary`.

    Monte Carlo runs in batches of :data:`MC_BATCH` trials with a tqdm bar on stderr when
    ``progress`` is true (None: only for runs above :data:`PROGRESS_WORK`).
    ``on_batch(done, total)``, when given, is called after each batch with the fights run
    so far; an exception it raises stops the run between batches (a Stop button). The
    batches, and so the numbers, are the same with or without it.
    """
    from analysis.combat.archetypes import engine
    from analysis.progress import bar

    eng = engine(system)
    v = combat_variants(system, variants, aftermath)
    st = _run_fight(
        eng, system, side0, side1, method, trials, seed, v, round_cap, progress, bar, on_batch
    )
    st.notes["aftermath"] = aftermath_of(v)
    return st


def _run_fight(
    eng, system, side0, side1, method, trials, seed, v, round_cap, progress, bar, on_batch=None
) -> FightStats:
    from engines.rng import normalize_seed

    if method == "exact":
        if len(side0) != 1 or len(side1) != 1:
            raise InputError(
                f"{system}: exact results exist for duels only "
                f"({len(side0)} vs {len(side1)}); use the mc method"
            )
        return eng.duel_exact(side0[0], side1[0], v, round_cap)
    if method != "mc":
        raise InputError(f"method: expected exact or mc, got {method!r}")
    if isinstance(trials, bool) or not isinstance(trials, int | np.integer) or trials < 1:
        raise InputError(f"trials: expected a positive integer, got {trials!r}")
    n_batches = -(-int(trials) // MC_BATCH)
    if n_batches == 1:
        st = eng.fight_mc(list(side0), list(side1), int(trials), seed, v, round_cap)
        if on_batch is not None:
            on_batch(int(trials), int(trials))
        return st
    seeds = normalize_seed(seed).spawn(n_batches)
    sizes = [MC_BATCH] * (n_batches - 1) + [int(trials) - MC_BATCH * (n_batches - 1)]
    show = progress if progress is not None else trials * (len(side0) + len(side1)) >= PROGRESS_WORK
    parts = []
    with bar(int(trials), f"{system} fights", unit="fight", disable=not show or None) as pbar:
        for n, ss in zip(sizes, seeds, strict=True):
            parts.append(eng.fight_mc(list(side0), list(side1), n, ss, v, round_cap))
            pbar.update(n)
            if on_batch is not None:
                on_batch(sum(p.trials for p in parts), int(trials))
    return merge_stats(parts)


def _methods(method: str) -> tuple[str, ...]:
    if method not in ("exact", "mc", "both"):
        raise InputError(f"method: expected exact, mc or both, got {method!r}")
    return ("exact", "mc") if method == "both" else (method,)


def duel_stats(
    system: str,
    a,
    b,
    method: str = "exact",
    *,
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    overrides_a=None,
    overrides_b=None,
    progress: bool | None = None,
    aftermath: str | None = None,
    on_batch: Callable[[int, int], None] | None = None,
) -> dict[str, FightStats]:
    """``{method: FightStats}`` of a duel between ``a`` (side 0) and ``b`` (side 1)
    (``on_batch``: see :func:`run_fight`).

    Each result's ``notes["label_a"]`` / ``notes["label_b"]`` name the fighters with their
    overrides and weapon (:func:`fighter_label`)."""
    fa = _fighter(system, a, overrides_a)
    fb = _fighter(system, b, overrides_b)
    out = {
        m: run_fight(
            system,
            [fa],
            [fb],
            m,
            trials=trials,
            seed=seed,
            variants=variants,
            round_cap=round_cap,
            progress=progress,
            aftermath=aftermath,
            on_batch=on_batch if m == "mc" else None,
        )
        for m in _methods(method)
    }
    for st in out.values():
        st.notes["label_a"] = fighter_label(a, overrides_a, fa, system)
        st.notes["label_b"] = fighter_label(b, overrides_b, fb, system)
    return out


def agreement(exact_row: dict, mc_row: dict) -> dict:
    """z-scores of a Monte Carlo row against the exact row, and whether every proportion
    is within ``5 SE + 1/n`` (the project's MC-vs-exact tolerance)."""
    out = {}
    n = mc_row["trials"]
    ok = True
    for key in ("side0", "side1", "neither"):
        p, q = exact_row[f"p_{key}"], mc_row[f"p_{key}"]
        se = np.sqrt(p * (1 - p) / n)
        out[f"z_{key}"] = (q - p) / se if se > 0 else (0.0 if q == p else np.inf)
        ok &= abs(q - p) <= 5 * se + 1 / n
    se = mc_row["rounds_se"]
    diff = mc_row["rounds_mean"] - exact_row["rounds_mean"]
    out["z_rounds"] = diff / se if se > 0 else (0.0 if diff == 0 else np.inf)
    out["within_5se"] = bool(ok)
    return out


def duel_table(
    system: str,
    a,
    b,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    *,
    overrides_a=None,
    overrides_b=None,
    progress: bool | None = None,
    stats: dict[str, FightStats] | None = None,
    aftermath: str | None = None,
) -> pd.DataFrame:
    """Summary of a duel (:func:`summary` columns), one row per method.

    Columns ``a`` and ``b`` name each fighter with its overrides and weapon
    (``competent (weapon=pistol)``); ``aftermath`` is the policy behind the loser's fates.

    ``method="both"`` gives the exact and the Monte Carlo row side by side, the MC row
    carrying z-scores against the exact one (``z_side0`` … ``z_rounds``) and
    ``within_5se`` (every proportion within 5 SE + 1/n).

    Examples
    --------
    >>> t = duel_table("dice_pool_6", "competent_swordsman", "competent_brawler")
    >>> round(float(t.loc[0, "p_side0"]), 3)
    0.882
    """
    if stats is None:
        stats = duel_stats(
            system,
            a,
            b,
            method,
            trials=trials,
            seed=seed,
            variants=variants,
            round_cap=round_cap,
            overrides_a=overrides_a,
            overrides_b=overrides_b,
            progress=progress,
            aftermath=aftermath,
        )
    names = stats_names(stats, a, b, overrides_a, overrides_b)
    rows = [summary(st, system=system, a=names[0], b=names[1]) for st in stats.values()]
    if len(rows) == 2:
        rows[1].update(agreement(rows[0], rows[1]))
    return pd.DataFrame(rows)


def stats_names(
    stats: dict[str, FightStats], a=None, b=None, overrides_a=None, overrides_b=None
) -> tuple[str, str]:
    """The labels of sides A and B: those :func:`duel_stats` stored, else built from the
    specs ``a`` and ``b`` (:func:`fighter_label`)."""
    for st in stats.values():
        if "label_a" in st.notes and "label_b" in st.notes:
            return st.notes["label_a"], st.notes["label_b"]
    if a is None or b is None:
        raise InputError("duel table: name the fighters (a, b) or pass duel_stats results")
    system = next((st.system for st in stats.values()), None)
    return (
        fighter_label(a, overrides_a, system=system),
        fighter_label(b, overrides_b, system=system),
    )


def one_hit(
    system: str,
    attacker,
    target,
    variants=None,
    *,
    overrides_a=None,
    overrides_b=None,
    aftermath: str | None = None,
) -> dict:
    """P(hit), P(incapacitate), P(kill) of one attack on an unhurt target, and P(dead),
    P(dying), P(out) after the aftermath policy: the engine's ``one_hit`` (each cites its
    rules: A14/A15, C6, B9/B10, DX7–DX9, E13)."""
    from analysis.combat.archetypes import engine

    fa = _fighter(system, attacker, overrides_a)
    fb = _fighter(system, target, overrides_b)
    return engine(system).one_hit(fa, fb, combat_variants(system, variants, aftermath))


def one_hit_table(
    system: str,
    attacker,
    targets,
    weapons: list[str] | None = None,
    variants=None,
    aftermath: str | None = None,
) -> pd.DataFrame:
    """One-hit incapacitation and kill odds by the attacker's weapon and by target (exact).

    ``weapons`` defaults to every weapon of the system's data file; ``targets`` are
    archetype names (or mappings).

    At a starting distance (variant ``distance`` > 0) the attack is made there, in its
    range band (AT-g1, DX15, ET-g2: the engine's ``one_hit``), and the table gains the
    columns ``distance`` and ``in_range`` (False: a melee weapon out of reach or a shot
    beyond its longest band, every figure 0). A system whose ``one_hit`` is engaged only
    is refused at a distance (InputError, one line) rather than shown engaged.
    """
    from analysis.combat.archetypes import weapons as all_weapons

    if isinstance(targets, str | Mapping):
        targets = [targets]
    variants = combat_variants(system, variants, aftermath)
    dist = int(getattr(variants, "distance", 0) or 0)
    rows = []
    for w in weapons if weapons is not None else all_weapons(system):
        fa = _fighter(system, attacker, {"weapon": w})
        for t in targets:
            ft = _fighter(system, t)
            odds = one_hit(system, fa, ft, variants)
            where = {}
            if dist > 0:
                if "in_range" not in odds:
                    raise InputError(
                        f"{system}: the one-attack table is engaged only (its "
                        f"one_hit has no range rules); drop --distance {dist}"
                    )
                where = {"distance": dist, "in_range": bool(odds.pop("in_range"))}
            rows.append(
                {
                    "system": system,
                    "attacker": name_of(fa),
                    "weapon": w,
                    "target": name_of(ft),
                    **where,
                    "method": "exact",
                    "aftermath": aftermath_of(variants),
                    **odds,
                }
            )
    return pd.DataFrame(rows)


def _effect_table(
    system: str,
    a,
    b,
    key: str,
    values: list,
    method: str,
    trials: int,
    seed,
    variants,
    round_cap: int,
    progress,
) -> pd.DataFrame:
    frames = []
    for value in values:
        stats = duel_stats(
            system,
            a,
            b,
            method,
            trials=trials,
            seed=seed,
            variants=variants,
            round_cap=round_cap,
            overrides_a={key: value},
            progress=progress,
        )
        t = duel_table(system, a, b, stats=stats)
        t.insert(1, key, value)
        frames.append(t)
    return pd.concat(frames, ignore_index=True)


def weapon_table(
    system: str,
    a,
    b,
    weapons: list | None = None,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The same duel with each weapon of side A (every weapon of the system's data file
    by default): one row each."""
    from analysis.combat.archetypes import weapons as all_weapons

    return _effect_table(
        system,
        a,
        b,
        "weapon",
        weapons or all_weapons(system),
        method,
        trials,
        seed,
        variants,
        round_cap,
        progress,
    )


def tactic_table(
    system: str,
    a,
    b,
    tactics: list | None = None,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The same duel with each tactic of side A (A6, C13, B4, DX2, E16): one row each."""
    from analysis.combat.archetypes import tactics as all_tactics

    return _effect_table(
        system,
        a,
        b,
        "tactic",
        tactics or all_tactics(system),
        method,
        trials,
        seed,
        variants,
        round_cap,
        progress,
    )


def armour_table(
    system: str,
    a,
    b,
    armours: list | None = None,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
) -> pd.DataFrame:
    """The same duel with each armour of side A (A13, DX11, E12 Toughness): one row each.

    ``dice_pool_6`` and ``middle_3d10`` have no armour rules (an error says so).
    """
    from analysis.combat.archetypes import armours as all_armours

    values = armours or all_armours(system)
    if not values:
        raise InputError(f"{system}: no armour rules in this system, so no armour table")
    return _effect_table(
        system, a, b, "armour", values, method, trials, seed, variants, round_cap, progress
    )


def group_fight(
    system: str,
    side0: list,
    side1: list,
    *,
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    label: str = "",
    progress: bool | None = None,
    aftermath: str | None = None,
    specs: tuple[list, list] | None = None,
) -> tuple[dict, pd.DataFrame]:
    """An N-vs-M fight (Monte Carlo): its :func:`summary` row with the per-side fates
    (:func:`side_fate_columns`) and round-by-round survival (:func:`standing_table`).
    Sides are lists of archetype names, mappings or engine combatants; ``side0`` and
    ``side1`` name each fighter with its weapon (:func:`fighter_label`).

    ``specs``: when the sides are built combatants, the archetype mappings they were
    built from (``{"archetype": "competent", "weapon": "knife"}``), one list per side, so
    the labels name the gear the fighters carry even where the engine keeps no weapon
    name (``middle_3d10``, ``d20_degrees``) rather than the archetype's own."""
    s0 = [_fighter(system, x) for x in side0]
    s1 = [_fighter(system, x) for x in side1]
    names0, names1 = specs if specs is not None else (side0, side1)
    st = run_fight(
        system,
        s0,
        s1,
        "mc",
        trials=trials,
        seed=seed,
        variants=variants,
        round_cap=round_cap,
        progress=progress,
        aftermath=aftermath,
    )
    labels = {
        "system": system,
        "fight": label or f"{len(s0)}v{len(s1)}",
        "side0": ", ".join(
            fighter_label(x, built=c, system=system) for x, c in zip(names0, s0, strict=True)
        ),
        "side1": ", ".join(
            fighter_label(x, built=c, system=system) for x, c in zip(names1, s1, strict=True)
        ),
    }
    row = summary(st, **labels)
    row.update(side_fate_columns(st))
    standing = standing_table(st, (len(s0), len(s1)), **labels)
    return row, standing[[*labels, *(c for c in standing.columns if c not in labels)]]


def has_distance(system: str) -> bool:
    """Whether the system's combat rules take a starting distance (its combat variants
    have ``distance``: RULES.md "Distance, movement and cover")."""
    import dataclasses

    from analysis.combat.archetypes import engine

    return "distance" in {f.name for f in dataclasses.fields(engine(system).Variants)}


def distance_systems() -> list[str]:
    """The installed systems whose combat takes a starting distance."""
    from engines.system import registry

    return [sid for sid, s in registry().items() if s.combat is not None and has_distance(sid)]


def distance_table(
    system: str,
    a,
    b,
    distances,
    method: str = "exact",
    trials: int = 20_000,
    seed=None,
    variants=None,
    round_cap: int = ROUND_CAP,
    progress: bool | None = None,
) -> pd.DataFrame:
    """:func:`duel_table` at each starting distance (metres), one block of rows per
    distance with a ``distance`` column first: who wins, the loser's fates and the rounds
    as the fighters start further apart. Each distance's Monte Carlo run draws from
    ``seed`` as a separate ``duel --distance D --seed S`` run would."""
    import dataclasses

    base = combat_variants(system, variants)
    frames = []
    for d in distances:
        v = dataclasses.replace(base, distance=int(d))
        t = duel_table(
            system,
            a,
            b,
            method,
            trials=trials,
            seed=seed,
            variants=v,
            round_cap=round_cap,
            progress=progress,
        )
        t.insert(0, "distance", int(d))
        frames.append(t)
    return pd.concat(frames, ignore_index=True)
