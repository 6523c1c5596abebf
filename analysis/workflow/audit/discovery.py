"""Discovery: findings without a guardrail (:func:`discover`): dominated weapons, armour
and tactics, one-hit fights, gap variants ranked by how far they move the even duel,
and knobs whose effect depends on another (the last two: :mod:`.variant_findings`). The
ladder fighters every finding is measured on, and their duels: :mod:`.ladder_duels`."""

from __future__ import annotations

import math
from pathlib import Path

from analysis.text import N_, Text, join
from engines.errors import InputError
from engines.system import get as system_of

from .ladder_duels import fighter_label, ladder_duel, ladder_duel_mc, ladder_specs, one_run
from .reproduce import both as _both_cmd
from .reproduce import duel as _duel_cmd
from .reproduce import grid as _grid_cmd
from .variant_findings import gap_variants, knob_interactions

__all__ = [
    "AGAINST_SHOOTERS",
    "DEFAULT_DISCOVER",
    "DOMINANCE_STREAM",
    "OPTION_KINDS",
    "WEAPONS_AGAINST_SHOOTERS",
    "baseline",
    "discover",
    "dominated_gear",
    "dominated_options",
    "dominated_weapons",
    "ladder_matchups",
    "one_hit_fights",
]

DEFAULT_DISCOVER = {
    "systems": None,  # every installed system: the built-ins, then plug-ins
    "attacker": "competent",
    "opponents": ["novice", "competent", "expert"],
    "dominance_z": 2.0,
    "dominance_mc": None,  # None: the systems whose Audit.duel_search is "mc"
    "dominance_trials": 8_000,
    # the starting distances (metres) at which armour, tactics and ranged weapons are
    # judged too, in the systems with distance rules (RULES.md "Distance, movement and
    # cover"): armour's price is mobility and a gun's worth is range, both paid apart
    "distances": [20],
    # the noise floor: an effect below it is not a finding (probabilities; mean rounds)
    "min_effect": 0.01,
    "min_effect_rounds": 0.1,
    "dominated_high": 0.10,
    "one_hit_incapacitate": 0.5,
    "one_hit_high": 0.8,
    "one_round_duel": 0.5,
    "variant_medium": 0.05,
    "variant_high": 0.15,
    "interaction_ratio": 2.0,
    "interaction_min": 0.05,
    "interaction_high": 0.15,
    # None: each system's own (``Audit.interaction_sweep``); a mapping replaces them all
    "interaction_sweeps": None,
}


#: stream offset of the Monte Carlo duels of the dominance search
DOMINANCE_STREAM = 3_100_000


def baseline(system: str, kind: str, data=None):
    """The no-gear option of ``kind`` (the first weapon and the first armour of the
    system's data file: ``unarmed``/``fists``, ``none``/``0``), a reference that is never
    "dominated"; None for tactics (each tactic is a choice, none is the reference)."""
    if kind == "tactic":
        return None
    names = _options(system, kind, data)
    return names[0] if names else None


#: the option kinds searched for domination, with the override key each one sets
OPTION_KINDS = ("weapon", "armour", "tactic")


def _options(system: str, kind: str, data=None) -> list:
    from analysis.combat import archetypes

    if kind == "weapon":
        return archetypes.weapons(system, data)
    if kind == "armour":
        return archetypes.armours(system, data)
    return archetypes.tactics(system)


def ladder_matchups(ladder: dict, cfg: dict) -> list[tuple[str, str, int, int]]:
    """``(holder rung, opponent rung, holder's side, starting distance)`` for every rung
    of the ladder as side 0 and side 1 against every rung, engaged (distance 0); the
    attacker-vs-opponents matchups first (they settle most pairs early)."""
    rungs = list(ladder)
    first = [
        (cfg["attacker"], r, 0, 0)
        for r in cfg["opponents"]
        if cfg["attacker"] in ladder and r in ladder
    ]
    rest = [(h, o, side, 0) for h in rungs for o in rungs for side in (0, 1)]
    return first + [m for m in rest if m not in first]


#: the option kinds that also matter against gunfire: judged against the shooters too
AGAINST_SHOOTERS = ("armour", "tactic")


def _shooters(system: str, ladder: dict) -> dict:
    """``{LEVEL_shooter: spec}`` of the library's shooter archetypes at the ladder's
    rungs (each library names its ranged style at a rung ``LEVEL_shooter``)."""
    from analysis.combat import archetypes

    names = {str(d.get("archetype") or d.get("name")) for d in archetypes.describe(system)}
    return {
        f"{r}_shooter": {"archetype": f"{r}_shooter"} for r in ladder if f"{r}_shooter" in names
    }


def dominated_options(
    system: str, cfg: dict, kind: str = "weapon", data=None, ladder=None
) -> list[dict]:
    """Options of one ``kind`` (weapon, armour or tactic) never better than another of
    the system in any matchup of its set — every rung holding the option against every
    rung, as side 0 and as side 1 — beyond ``dominance_z`` SE (exact duels have SE 0), and
    strictly worse in at least one. Armour and tactics (:data:`AGAINST_SHOOTERS`) are
    judged against the shooters of the same rungs too (``novice_shooter`` …): body armour
    against bullets and diving for cover decide fights against guns, not knives; the
    finding lists the opponents it was judged against.

    Weapons are judged within their kind (:func:`analysis.combat.archetypes.weapon_kinds`)
    and never against a weapon of the other kind: a melee weapon against the other melee
    weapons in the ladder matchups, a ranged weapon against the other ranged weapons in
    those and against the rungs' shooters (the matchups of armour and tactics), since a
    gun's worth shows in a gunfight. The finding names the kind and the opponents.

    Pairs are settled lazily: each matchup is solved only for options still in a
    candidate pair, and a pair is dropped at the first matchup where the dominated one
    is better. Systems listed in ``dominance_mc`` (those whose exact duels are slow) play
    ``dominance_trials`` Monte Carlo fights per matchup instead, matchup ``m`` drawing
    from seed ``DOMINANCE_STREAM + m`` for every option (the seed the ``reproduce``
    command gives ``rpg-balance duel --method mc``).

    The no-gear option (:func:`baseline`) is a reference, never dominated; an option is
    dominated only when it is worse in at least one matchup by more than ``min_effect``
    plus ``dominance_z`` SE. Each finding holds ``from_value``/``to_value`` (the two
    P(win) of its largest gap), ``metric`` (the holder's side) and ``reproduce`` (both
    duels of that matchup)."""
    from analysis.combat import archetypes

    ladder = ladder or ladder_specs()[system]
    if kind != "weapon":
        return _dominated(
            system, cfg, kind, _options(system, kind, data), ladder, data, kind in AGAINST_SHOOTERS
        )
    kinds = archetypes.weapon_kinds(system, data)
    out = []
    for group in archetypes.WEAPON_KINDS:
        names = [w for w, k in kinds.items() if k == group]
        out += _dominated(
            system, cfg, kind, names, ladder, data, group in WEAPONS_AGAINST_SHOOTERS, group
        )
    return out


#: the kinds of weapon also judged against the shooters (like armour and tactics)
WEAPONS_AGAINST_SHOOTERS = ("ranged",)
#: how a weapon finding names its kind and the weapons it was judged among
_WEAPON_WORDS = {
    "melee": (N_("melee weapon"), N_("melee weapons")),
    "ranged": (N_("ranged weapon"), N_("ranged weapons")),
}


def _dominated(
    system: str,
    cfg: dict,
    kind: str,
    names: list,
    ladder: dict,
    data,
    against_shooters: bool,
    group: str | None = None,
) -> list[dict]:
    """:func:`dominated_options` among ``names`` (options of ``kind``; ``group``: the
    kind of weapon they all are, named in the finding), in the ladder matchups and, when
    ``against_shooters``, against the rungs' shooters too."""
    from analysis.combat import fights as reg

    if len(names) < 2:
        return []
    from analysis.combat.lethality import has_distance

    matchups = ladder_matchups(ladder, cfg)
    opponents = dict(ladder)
    apart: list[int] = []
    if against_shooters:
        shooters = _shooters(system, ladder)
        opponents.update(shooters)
        matchups += [(h, o, side, 0) for h in ladder for o in shooters for side in (0, 1)]
        # the same matchups starting apart: the holder and the foe each follow their
        # default plan (a melee fighter charges, a shooter holds)
        if has_distance(system):
            apart = [int(d) for d in cfg.get("distances") or () if int(d) > 0]
            matchups += [
                (h, o, side, d) for d in apart for h in ladder for o in opponents for side in (0, 1)
            ]
    z = cfg["dominance_z"]
    cache: dict = {}
    wins = (reg.METRICS["p_side0"], reg.METRICS["p_side1"])
    mc_systems = cfg.get("dominance_mc")
    mc = (
        system in mc_systems
        if mc_systems is not None
        else system_of(system).audit.duel_search == "mc"
    )

    def p(i: int, m: int):
        key = (i, m)
        if key not in cache:
            holder, opp, side, dist = matchups[m]
            mine = {**ladder[holder], kind: names[i]}
            pair = (mine, opponents[opp]) if side == 0 else (opponents[opp], mine)
            v = {"distance": dist} if dist else None
            try:
                if mc:
                    stats = ladder_duel_mc(
                        system,
                        pair[0],
                        pair[1],
                        cfg["dominance_trials"],
                        DOMINANCE_STREAM + m,
                        data,
                        v,
                    )
                else:
                    stats = ladder_duel(system, pair[0], pair[1], data, v)
                cache[key] = wins[side](stats)
            except InputError:  # the option cannot be built here
                cache[key] = None
        return cache[key]

    # candidate (dominated, dominating) pairs with their per-matchup gaps
    cands: dict[tuple[int, int], list] = {
        (i, k): [] for i in range(len(names)) for k in range(len(names)) if i != k
    }
    for m in range(len(matchups)):
        if not cands:
            break
        for i, k in list(cands):
            pi, pk = p(i, m), p(k, m)
            if pi is None or pk is None:
                del cands[(i, k)]
                continue
            sd = math.hypot(pi[1], pk[1])
            gap = pk[0] - pi[0]
            if gap < -z * sd - 1e-12:  # i better than k here: not dominated by k
                del cands[(i, k)]
            else:
                cands[(i, k)].append((gap, sd, m, pi[0], pk[0]))
    out = []
    floor = cfg["min_effect"]
    base = baseline(system, kind, data)
    for i, name in enumerate(names):
        if name == base:
            continue
        by = [
            (k, gaps)
            for (j, k), gaps in cands.items()
            if j == i and any(g > floor + z * sd + 1e-9 for g, sd, *_ in gaps)
        ]
        if not by:
            continue
        k, gaps = max(by, key=lambda kg: max(g for g, *_ in kg[1]))
        gap, sd, m, pi, pk = max(gaps, key=lambda g: g[0])
        holder, opp, side, dist = matchups[m]
        held = {key: val for key, val in ladder[holder].items() if key != kind}
        where = (
            Text(
                N_("{holder} with it as side 0 vs {opponent}"),
                holder=fighter_label(held),
                opponent=fighter_label(opponents[opp]),
            )
            if side == 0
            else Text(
                N_("{opponent} vs {holder} with it as side 1"),
                holder=fighter_label(held),
                opponent=fighter_label(opponents[opp]),
            )
        )
        if dist:
            where = Text(N_("{where}, starting {d} m apart"), where=where, d=dist)
        metric = f"p_side{side}"
        mcrun = (cfg["dominance_trials"], DOMINANCE_STREAM + m) if mc else None

        def cmd(option, holder=holder, opp=opp, side=side, metric=metric, mcrun=mcrun, dist=dist):
            mine = {**ladder[holder], kind: option}
            pair = (mine, opponents[opp]) if side == 0 else (opponents[opp], mine)
            return _duel_cmd(
                system,
                *pair,
                columns=(metric,),
                mc=mcrun,
                variants={"distance": dist} if dist else None,
            )

        rungs = join(", ", (Text(r) for r in opponents))
        if apart:  # "… of novice, …, expert_shooter, engaged and 20 m apart"
            rungs = Text(
                N_("{rungs}, engaged and {apart} m apart"),
                rungs=rungs,
                apart=join(", ", (Text(str(d)) for d in apart)),
            )
        if group is None:
            detail = Text(
                N_(
                    "{kind} {name} is never better than {other} in {n} matchups (every rung "
                    "holding it against every rung of {rungs}, as side 0 and side 1); largest "
                    "gap, {where}: P(win) {p:.3f} vs {p_other:.3f}"
                ),
                kind=Text(kind),
                name=str(name),
                other=str(names[k]),
                n=len(matchups),
                rungs=rungs,
                where=where,
                p=pi,
                p_other=pk,
            )
        else:
            one, many = _WEAPON_WORDS[group]
            detail = Text(
                N_(
                    "{kind} {name} is never better than {other} among the {kinds} in {n} "
                    "matchups (every rung holding it against every rung of {rungs}, as side 0 "
                    "and side 1); largest gap, {where}: P(win) {p:.3f} vs {p_other:.3f}"
                ),
                kind=Text(one),
                kinds=Text(many),
                name=str(name),
                other=str(names[k]),
                n=len(matchups),
                rungs=rungs,
                where=where,
                p=pi,
                p_other=pk,
            )
        out.append(
            {
                "kind": f"dominated_{kind}",
                "system": system,
                "subject": str(name),
                "detail": detail,
                "value": float(gap),
                "se": float(sd),
                "by": ", ".join(str(names[kk]) for kk, _ in by),
                "metric": metric,
                "from_value": float(pi),
                "to_value": float(pk),
                "reproduce": _both_cmd(cmd(name), cmd(names[k])),
                "severity": "high" if gap >= cfg["dominated_high"] else "medium",
            }
        )
    return out


def dominated_weapons(system: str, cfg: dict, data=None, ladder=None) -> list[dict]:
    """Weapons never better than another weapon of their kind (melee or ranged) in any
    matchup of their set (:func:`dominated_options` of kind ``weapon``)."""
    return dominated_options(system, cfg, "weapon", data, ladder)


def dominated_gear(system: str, cfg: dict, ladder=None) -> list[dict]:
    """Dominated weapons, armour and tactics of the system (:func:`dominated_options`)."""
    out = []
    for kind in OPTION_KINDS:
        out += dominated_options(system, cfg, kind, ladder=ladder)
    return out


def one_hit_fights(system: str, cfg: dict, ladder=None) -> list[dict]:
    """Weapons whose single plain attack drops an unhurt equal too often, and even
    duels mostly over in the first round."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    ladder = ladder or ladder_specs()[system]
    base = dict(ladder[cfg["attacker"]])
    mod = reg.engine(system)
    v = reg.combat_variants(system, {})
    target = archetypes.combatant(system, base)
    out = []
    equal = fighter_label(base)
    for w in archetypes.weapons(system):
        odds = mod.one_hit(archetypes.combatant(system, {**base, "weapon": w}), target, v)
        p = float(odds["p_incapacitate"])
        if p >= cfg["one_hit_incapacitate"]:
            said = Text(
                N_(
                    "one {weapon} attack by a {attacker} fighter drops an unhurt "
                    "equal with P {p:.3f} (kills {p_kill:.3f})"
                ),
                weapon=w,
                attacker=Text(cfg["attacker"]),
                p=p,
                p_kill=odds["p_kill"],
            )
            out.append(
                {
                    "kind": "one_hit",
                    "system": system,
                    "subject": w,
                    "detail": Text("{said}; target: {target}", said=said, target=equal),
                    "value": p,
                    "se": 0.0,
                    "metric": "p_one_hit_incapacitate",
                    "reproduce": _duel_cmd(
                        system,
                        {**base, "weapon": w},
                        base,
                        table="one-hit",
                        columns=("weapon", "target", "p_incapacitate", "p_kill"),
                    ),
                    "severity": "high" if p >= cfg["one_hit_high"] else "medium",
                }
            )
    stats = ladder_duel(system, base, base)
    p1, s1 = reg.metric("p_rounds_between:1:1")(stats)
    if p1 >= cfg["one_round_duel"]:
        said = Text(
            N_("an even {attacker} duel ends in round 1 with P {p:.3f}"),
            attacker=Text(cfg["attacker"]),
            p=p1,
        )
        out.append(
            {
                "kind": "one_hit",
                "system": system,
                "subject": "even duel",
                "detail": Text("{said}; both: {fighter}", said=said, fighter=equal),
                "value": p1,
                "se": s1,
                "metric": "p_rounds_between:1:1",
                "reproduce": _grid_cmd(
                    system, base, base, "p_rounds_between:1:1", "variant.aftermath", ["leave"]
                ),
                "severity": "high" if p1 >= cfg["one_hit_high"] else "medium",
            }
        )
    return out


def discover(
    cfg: dict | None = None, *, progress: bool | None = None, cross: str | Path | None = None
):
    """Findings table: rank, kind, system, subject, detail, value, se, severity, by
    (dominated options: every option that dominates it), metric, from_value and to_value
    (the figure a comparison moves, and its two values), reproduce (the ``rpg-balance``
    command, or commands joined by ``" ; "``, printing the numbers). Below the noise floor
    (``min_effect``, ``min_effect_rounds``) nothing is a finding; the rule variants without
    an effect are one sentence each system in ``attrs["notes"]``. Dominated options first, then
    one-hit fights, then the gap variants ranked by how far they move the headline
    numbers (largest first), then knobs whose effect depends on another
    (:func:`knob_interactions`); within a kind by severity, then value.

    The ladder fighters are those of the cross-combat file ``cross`` (None: the packaged
    :data:`CROSS`; a plug-in's fighters enter by a file that maps them, validated first by
    :func:`analysis.combat.cross_combat.load_cross`)."""
    import pandas as pd

    from engines.system import registry

    cfg = {**DEFAULT_DISCOVER, **(cfg or {})}
    installed = list(registry())
    systems = installed if cfg["systems"] is None else list(cfg["systems"])
    unknown = [x for x in systems if x not in installed]
    if unknown:
        raise InputError(
            f"discover.systems: unknown system {unknown[0]!r}; known: {', '.join(installed)}"
        )
    if cross is not None:
        from analysis.combat.cross_combat import load_cross

        load_cross(cross)  # a bad mapping fails in one line before any duel
    ladder = ladder_specs(cross)
    source = "cross_combat.toml" if cross is None else str(cross)
    for system in systems:
        if system in ladder and cfg["attacker"] not in ladder[system]:
            raise InputError(
                f"{source}: ladder.{system}.{cfg['attacker']}: missing (the "
                "attacker rung of --discover, whose even duel every finding "
                "plays)"
            )
    rows: list[dict] = []
    notes: list[str] = []
    with one_run():
        _discover_rows(systems, cfg, ladder, rows, notes, progress, source)
    out = pd.DataFrame(
        rows,
        columns=[
            "kind",
            "system",
            "subject",
            "detail",
            "value",
            "se",
            "severity",
            "by",
            "metric",
            "from_value",
            "to_value",
            "reproduce",
        ],
    ).fillna({"by": "", "metric": ""})
    sev = {"high": 0, "medium": 1, "low": 2}
    out["_k"] = out["kind"].map(
        {
            **{f"dominated_{k}": 0 for k in OPTION_KINDS},
            "one_hit": 1,
            "gap_variant": 2,
            "interaction": 3,
        }
    )
    out["_s"] = out["severity"].map(sev)
    out = (
        out.sort_values(["_k", "_s", "value"], ascending=[True, True, False], kind="stable")
        .drop(columns=["_k", "_s"])
        .reset_index(drop=True)
    )
    out.insert(0, "rank", range(1, len(out) + 1))
    from .cures import discovered_cures

    discovered_cures(out, cfg, ladder)
    out.attrs["notes"] = notes
    return out


def _discover_rows(
    systems: list,
    cfg: dict,
    ladder: dict,
    rows: list,
    notes: list,
    progress: bool | None,
    source: str,
) -> None:
    """The findings of every system, appended to ``rows`` (the notes to ``notes``;
    ``source``: the cross-combat file as the notes name it)."""
    from analysis.progress import bar

    with bar(
        4 * len(systems), "discover", disable=None if progress is None else not progress
    ) as pb:
        for system in systems:
            why = _no_discovery(system, ladder, source)
            if why is not None:
                notes.append(why)
                pb.update(4)
                continue
            for fn in (dominated_gear, one_hit_fights, gap_variants, knob_interactions):
                extra = {"notes": notes} if fn is gap_variants else {}
                rows += fn(system, cfg, ladder=ladder[system], **extra)
                pb.update(1)


def _no_discovery(system: str, ladder: dict, source: str) -> str | None:
    """Why ``--discover`` skips a system, in one sentence (None when it does not): every
    finding is measured on duels of the system's ladder fighters, so a system that
    declares no combat rules (a plug-in of checks only), or has no ladder fighters in
    the cross-combat file (``source``: ``cross_combat.toml``, the packaged one, unless
    ``--cross-combat`` names another), is skipped."""
    from engines.system import registry

    why = registry()[system].lacks("combat")
    if why is not None:
        return (
            f"{why}, so --discover skips it (dominated options, one-hit fights, gap "
            "variants and knob interactions are all measured on duels)"
        )
    if system not in ladder:
        return (
            f"{system}: no ladder fighters for it in {source}, so --discover skips it "
            "(every finding is measured on duels of the ladder fighters)"
        )
    return None
