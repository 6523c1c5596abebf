"""Discovered findings about the rules themselves (:func:`.discovery.discover`): the gap
variants ranked by how far they move the even duel of the ladder's ``attacker`` rung
(:func:`gap_variants`), and the knobs whose effect depends on another on a small exact
sweep of that duel (:func:`knob_interactions`, :func:`interaction_sweep`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from analysis.text import N_, Text
from engines.constants import ROUND_CAP
from engines.errors import InputError
from engines.system import get as system_of

from .ladder_duels import fighter_label, ladder_duel, ladder_specs
from .reproduce import both as _both_cmd
from .reproduce import duel as _duel_cmd
from .reproduce import grid as _grid_cmd

__all__ = ["FATES", "gap_variants", "interaction_sweep", "knob_interactions"]


#: the loser's fates: a variant that sets one to 0 or 1 does so by definition
FATES = ("p_loser_dead", "p_loser_dying", "p_loser_out")


def gap_variants(system: str, cfg: dict, ladder=None, notes: list | None = None) -> list[dict]:
    """Every non-default choice of each gap variant (rule id ``X-gN``) of the combat
    engine, with how far it moves the even duel's P(side0), mean rounds and
    P(loser dead).

    A choice is a finding only when one of the three moves by more than its floor
    (``min_effect`` for the probabilities, ``min_effect_rounds`` for the mean rounds) and
    its SE; the row's ``metric``, ``from_value``, ``to_value`` and ``value`` (the size of
    the move, in the figure's own units) are those of the figure moved most for its
    floor. A loser's fate set to exactly 0 or 1 is true by definition of the variant
    (``untreated_dying=dead``), not a finding. The choices without a finding are
    summarised in one sentence appended to ``notes``."""
    from analysis.combat import fights as reg

    ladder = ladder or ladder_specs()[system]
    base = dict(ladder[cfg["attacker"]])
    v0 = reg.combat_variants(system, {})
    heads = ("p_side0", "rounds_mean", "p_loser_dead")

    def headline(variants):
        stats = ladder_duel(system, base, base, variants=variants)
        return {h: reg.METRICS[h](stats) for h in heads}

    ref = headline({})
    floors = {
        "p_side0": cfg["min_effect"],
        "rounds_mean": cfg["min_effect_rounds"],
        "p_loser_dead": cfg["min_effect"],
    }
    z = cfg["dominance_z"]
    out: list = []
    quiet: list = []
    defined: list = []
    for fl in dataclasses.fields(v0):
        rule = str(fl.metadata.get("rule", ""))
        if "-g" not in rule:
            continue
        choices = fl.metadata.get("choices")
        if isinstance(fl.default, bool):
            choices = (True, False)
        if not choices or len(choices) > 6:
            continue
        for c in choices:
            if c == fl.default:
                continue
            try:
                h = headline({fl.name: c})
            except InputError:
                continue
            d = {k: h[k][0] - ref[k][0] for k in heads}
            sd = {k: math.hypot(h[k][1], ref[k][1]) for k in heads}
            subject = f"{fl.name}={str(c).lower()} ({rule})"
            by_definition = {
                k
                for k in heads
                if k in FATES and sd[k] == 0 and min(abs(h[k][0]), abs(1 - h[k][0])) < 1e-12
            }
            moved = {
                k: abs(d[k]) / floors[k]
                for k in heads
                if k not in by_definition and abs(d[k]) > floors[k] + z * sd[k]
            }
            if not moved:
                (
                    defined
                    if by_definition and any(abs(d[k]) > floors[k] for k in by_definition)
                    else quiet
                ).append(subject)
                continue
            top = max(moved, key=lambda k: moved[k])
            rounds = ref["rounds_mean"][0] or 1.0
            score = max(abs(d[k]) / (rounds if k == "rounds_mean" else 1.0) for k in moved)
            sev = (
                "high"
                if score >= cfg["variant_high"]
                else "medium"
                if score >= cfg["variant_medium"]
                else "low"
            )
            said = Text(
                N_(
                    "P(side0) {win:.3f} → {win_new:.3f} (±{win_sd:.3g}), rounds "
                    "{rounds:.2f} → {rounds_new:.2f} (±{rounds_sd:.3g}), P(loser "
                    "dead) {dead:.3f} → {dead_new:.3f} (±{dead_sd:.3g})"
                ),
                win=ref["p_side0"][0],
                win_new=h["p_side0"][0],
                win_sd=sd["p_side0"],
                rounds=ref["rounds_mean"][0],
                rounds_new=h["rounds_mean"][0],
                rounds_sd=sd["rounds_mean"],
                dead=ref["p_loser_dead"][0],
                dead_new=h["p_loser_dead"][0],
                dead_sd=sd["p_loser_dead"],
            )
            cmd = [
                _duel_cmd(
                    system,
                    base,
                    base,
                    variants=x,
                    columns=("p_side0", "rounds_mean", "p_loser_dead"),
                )
                for x in ({}, {fl.name: c})
            ]
            out.append(
                {
                    "kind": "gap_variant",
                    "system": system,
                    "subject": subject,
                    "detail": Text(
                        "{said}; an even duel of {fighter}", said=said, fighter=fighter_label(base)
                    ),
                    "value": abs(d[top]),
                    "se": sd[top],
                    "severity": sev,
                    "metric": top,
                    "from_value": ref[top][0],
                    "to_value": h[top][0],
                    "reproduce": _both_cmd(*cmd),
                }
            )
    if notes is not None:
        who = f"an even duel of {fighter_label(base)}"
        if quiet:
            notes.append(
                f"{system}: {len(quiet)} rule variants do not change {who} by "
                f"more than {cfg['min_effect']:g} in P(side 0) or P(loser dead) "
                f"or {cfg['min_effect_rounds']:g} mean rounds: " + ", ".join(quiet)
            )
        if defined:
            notes.append(
                f"{system}: {', '.join(defined)} set the loser's fate in {who} "
                "by definition (not a finding)"
            )
    return out


def interaction_sweep(system: str, spec: Mapping, base, variants: dict | None = None):
    """The exact even duel of ladder fighter ``base`` over every cell of the knob grid
    ``spec["knobs"]`` (``{knob: values}``, knobs as
    :func:`analysis.workflow.fight_sweep.apply_knob`), metric ``spec["metric"]``: one
    row per cell with the knob columns, ``metric`` and ``fight``."""
    import itertools

    import pandas as pd

    from analysis.combat import fights as reg
    from analysis.workflow.fight_sweep import apply_knob, fight_point

    knobs = dict(spec["knobs"])
    metric = spec["metric"]
    # the duel's own metric read off its exact chain (the number fight_point gives), so
    # a cell that is a duel already solved in the run is not solved again
    chain = not reg.is_one_hit(metric) and hasattr(reg.engine(system), "duel_exact")
    read: Any = reg.metric(metric) if chain else None
    rows = []
    for cell in itertools.product(*knobs.values()):
        a, b, v = dict(base), dict(base), dict(variants or {})
        for knob, value in zip(knobs, cell, strict=True):
            a, b, v = apply_knob(a, b, v, knob, value)
        if chain:
            value = read(ladder_duel(system, a, b, variants=v))[0]
        else:
            value = fight_point(system, a, b, v, ROUND_CAP, metric, exact=True)["metric"]
        rows.append(
            {"fight": "even duel", **dict(zip(knobs, cell, strict=True)), "metric": float(value)}
        )
    return pd.DataFrame(rows)


def knob_interactions(system: str, cfg: dict, ladder=None, variants=None) -> list[dict]:
    """Knobs whose effect depends on another (:func:`analysis.workflow.interactions.
    dependent_effects`) on the small exact sweep ``cfg["interaction_sweeps"][system]`` of
    an even duel of the ``attacker`` rung: each knob whose largest range with the other
    knobs held fixed is at least ``interaction_min`` and ``interaction_ratio`` times its
    main-effect range — the main-effect ranking alone would understate it."""
    from analysis.workflow.interactions import dependent_effects
    from analysis.workflow.sweep import sensitivity

    sweeps = cfg.get("interaction_sweeps")
    spec = system_of(system).audit.interaction_sweep if sweeps is None else sweeps.get(system)
    if not spec:
        return []
    ladder = ladder or ladder_specs()[system]
    table = interaction_sweep(system, spec, dict(ladder[cfg["attacker"]]), variants)
    knobs = list(spec["knobs"])
    ranks = sensitivity(table, knobs, "metric", group="fight").set_index("knob")["rank"]
    dep = dependent_effects(
        table,
        knobs,
        "metric",
        "fight",
        ratio=cfg["interaction_ratio"],
        min_range=cfg["interaction_min"],
    )
    out = []
    metric = spec["metric"]
    base = dict(ladder[cfg["attacker"]])
    for r in dep.itertuples(index=False):
        out.append(
            {
                "kind": "interaction",
                "system": system,
                "subject": f"{r.knob} × {r.depends_on}",
                "detail": f"{r.knob} ranks {int(ranks.get(r.knob, 0))} of {len(ranks)} "
                f"by main effect (range {r.main_range:.3f}) in an even "
                f"{cfg['attacker']} duel, but at {r.given} it moves {metric} "
                f"from {r.from_value:.3f} ({r.knob}={r.from_level}) to "
                f"{r.to_value:.3f} ({r.knob}={r.to_level}): its effect depends "
                f"on {r.depends_on} (interaction range {r.interaction:.3f})",
                "value": float(r.fixed_max),
                "se": 0.0,
                "severity": "high" if r.fixed_max >= cfg["interaction_high"] else "medium",
                "knob": r.knob,
                "depends_on": r.depends_on,
                "given": r.given,
                "metric": metric,
                "main_range": float(r.main_range),
                "from_value": float(r.from_value),
                "to_value": float(r.to_value),
                "from_level": r.from_level,
                "to_level": r.to_level,
                "reproduce": _interaction_command(
                    system, base, variants, r.given, r.knob, [r.from_level, r.to_level], metric
                ),
            }
        )
    return out


def _interaction_command(
    system: str, base: dict, variants, given: str, knob: str, values: list, metric: str
) -> str:
    """``rpg-balance solve lethality --grid`` of the even duel with the other knobs held
    at ``given`` (``both.con=60, both.armour=0``) and ``knob`` at each of ``values``."""
    from analysis.workflow.fight_sweep import apply_knob

    a, b, v = dict(base), dict(base), dict(variants or {})
    for part in str(given).split(", "):
        name, _, value = part.partition("=")
        a, b, v = apply_knob(a, b, v, name, value)
    return _grid_cmd(system, a, b, metric, knob, values, variants=v)
