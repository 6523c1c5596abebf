"""``percentile`` combat, Monte Carlo drivers (extension DX1–DX16 and the aftermath,
DX8, DX-g6–DX-g8): check the sides, lay out the rows and run :func:`.kernel.mc_kernel`
in chunks — :func:`fight_mc`, :func:`duel_mc` and :func:`duel_mc_end` (campaign
attrition)."""

from __future__ import annotations

import numpy as np

from engines.combat_shared import merge_standing, run_chunks
from engines.constants import ROUND_CAP
from engines.fight import FightStats, check_round_cap, check_side, check_start_damage
from engines.rng import Seed, chunk_states, normalize_seed, plan_chunks

from .kernel import mc_kernel
from .rules import (
    AFTER_STREAM,
    DEFAULT,
    START,
    SYSTEM,
    Combatant,
    Variants,
    check_apart,
    variant_notes,
)

__all__ = ["duel_mc", "duel_mc_end", "fight_mc"]


#: The histograms of :func:`mc_kernel`, in its argument order.
_FIELDS = (
    "outcome",
    "rounds",
    "loser_dead",
    "standing",
    "tail",
    "deaths",
    "hits",
    "loser_fate",
    "loser_fate_sq",
    "fates",
    "fates_sq",
    "dead_any",
    "deaths_sq",
)


def duel_mc_end(
    a: Combatant,
    b: Combatant,
    start_damage: int,
    trials: int,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started ``start_damage``
    hit points down against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able having lost ``d`` (``d < a.hit_points``), then dead, dying, out at
    ``a.hit_points + 1..3``."""
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    check_apart([a, b], variants)
    health = a.hit_points
    start_damage = check_start_damage(start_damage, health)
    cmb = np.stack([a.row(), b.row()])
    cmb[0, START] = start_damage
    side = np.array([0, 1], dtype=np.int64)
    seq = normalize_seed(seed)
    n_chunks = plan_chunks(trials)[0]
    after = chunk_states(
        np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, AFTER_STREAM)), n_chunks
    )
    _, sums = run_chunks(
        mc_kernel,
        (cmb, side, variants.rule(), np.int64(round_cap), after),
        SYSTEM,
        trials,
        seq,
        round_cap,
        _FIELDS,
        end_columns=health + 4,
    )
    return sums["end"]


def fight_mc(
    side0: list[Combatant],
    side1: list[Combatant],
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (extension DX1–DX16; not from the seed), then
    the aftermath of the ``aftermath`` variant (DX8, DX-g6–DX-g8): ``fates``,
    ``loser_fate`` and their squares; ``deaths`` and ``loser_dead`` count after it.

    With the variant ``distance`` > 0 the sides start that many metres apart on a line
    (every fighter of a side at its side's end, each with its own position after it
    moves) and follow their plans (DX14–DX16; the package docstring)."""
    s0 = check_side(side0, "side 0", Combatant, SYSTEM)
    s1 = check_side(side1, "side 1", Combatant, SYSTEM)
    check_apart(s0 + s1, variants)
    round_cap = check_round_cap(round_cap)
    cmb = np.stack([c.row() for c in s0 + s1])
    side = np.array([0] * len(s0) + [1] * len(s1), dtype=np.int64)
    seq = normalize_seed(seed)
    after = chunk_states(
        np.random.SeedSequence(seq.entropy, spawn_key=(*seq.spawn_key, AFTER_STREAM)),
        plan_chunks(trials)[0],
    )
    out, sums = run_chunks(
        mc_kernel,
        (cmb, side, variants.rule(), np.int64(round_cap), after),
        SYSTEM,
        trials,
        seq,
        round_cap,
        _FIELDS,
    )
    merge_standing(out.standing, sums["tail"], np.array([len(s0), len(s1)]), trials)
    out.notes.update(variant_notes())
    return out


def duel_mc(
    a: Combatant,
    b: Combatant,
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
    round_cap: int = ROUND_CAP,
) -> FightStats:
    """Monte Carlo of a 1-vs-1 fight (see :func:`fight_mc`; extension, not from the seed)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)
