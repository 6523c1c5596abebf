"""``dice_pool_7`` combat, one plain attack exactly: its success and damage distributions
(A1, A7, A8, A10, A13, A-g1, A-g4; :func:`attack_damage`, :func:`hit_probability`)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from engines.systems.dice_pool_7 import checks as _checks

from .rules import (
    BURST_DICE,
    C_ARMOUR,
    C_ATTR,
    C_BURST,
    C_MODS,
    DAMAGE_TYPES,
    MODIFIER_CAP,
    Combatant,
    Variants,
    as_variants,
    row,
)


@lru_cache(maxsize=4096)
def success_pmf(pool: int, v: Variants) -> np.ndarray:
    """Exact success-count pmf of a pool (A1, A-g1); a dramatic failure counts 0."""
    codes = _checks.n_codes(max(pool, 1), v)
    probs, _ = _checks.exact([pool], v, codes)
    succ = probs[0, 1:].copy()
    succ[0] += probs[0, 0]
    return succ


def damage_pmf(pool: int, damage: int, armour: int, v: Variants) -> tuple[np.ndarray, np.ndarray]:
    """A10/A13: pmf of damage dealt (misses count 0) and of hits by damage."""
    succ = success_pmf(pool, v)
    k = np.arange(succ.size)
    if v.armour_stops == "successes":  # variant: armour cancels successes only
        dmg = np.maximum(k - armour, 0) + damage
    else:
        dmg = np.maximum(k + damage - armour, 0)
    out = np.zeros(int(dmg.max()) + 1)
    hit = np.zeros_like(out)
    np.add.at(hit, dmg[1:], succ[1:])
    out += hit
    out[0] += succ[0]
    return out, hit


def attack_dice(
    c: Combatant, v: Variants, focus: int = 0, willpower: int = 0, band: int = 0
) -> int:
    """A7 (with A2, A3, A4, A5, A12 for one target): dice before the target's defence;
    ``band`` (AT-g1: 0 short, 1 medium, 2 long) costs ``range_penalty`` dice a band, a
    situational modifier inside the A2 cap with the equipment's."""
    r = row(c, v)
    mods = int(
        np.clip(
            r[C_MODS] + BURST_DICE[r[C_BURST]] - band * v.range_penalty, -MODIFIER_CAP, MODIFIER_CAP
        )
    )
    return int(r[C_ATTR] + mods + focus + willpower)


def hit_probability(
    attacker: Combatant, target: Combatant, variants: Variants | None = None, band: int = 0
) -> float:
    """P(a plain attack scores at least one success): A7, A8, A1, A-g1; ``band`` the
    range band (AT-g1, :func:`attack_dice`)."""
    v = as_variants(variants)
    return float(1.0 - success_pmf(attack_dice(attacker, v, band=band) - target.defense, v)[0])


def attack_damage(
    attacker: Combatant, target: Combatant, variants: Variants | None = None, band: int = 0
) -> np.ndarray:
    """Exact damage distribution of one plain attack (A7, A8, A10, A13, A-g1, A-g4).

    No dodge, focus or willpower; a burst weapon fires its burst at this one target.
    Returns ``p[k]`` = P(damage ``k``), ``k`` = 0..D; ``p[0]`` holds the misses
    (P(hit) = :func:`hit_probability`) and the hits the armour absorbs completely.
    ``band``: the range band of a shot (AT-g1, :func:`attack_dice`; 0 engaged or short).
    """
    v = as_variants(variants)
    pool = attack_dice(attacker, v, band=band) - target.defense
    armour = row(target, v)[C_ARMOUR + DAMAGE_TYPES.index(attacker.weapon.damage_type)]
    return damage_pmf(pool, attacker.weapon.bonus, int(armour), v)[0]
