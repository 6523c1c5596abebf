"""``dice_pool_6`` combat, one attack exactly: the contest's damage distribution (C1, C10–C12,
C-g4; :func:`attack_damage`, :func:`hit_probability`)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from engines.systems.dice_pool_6 import checks as _checks

from .rules import Combatant, Variants, as_variants


@lru_cache(maxsize=1024)
def _successes(pool: int, v: Variants) -> np.ndarray:
    """Exact success pmf of a pool (C1, C-g2); 0 dice or fewer: no success."""
    pool = max(pool, 0)
    codes = _checks.n_codes(max(pool, 1), v)
    probs, _ = _checks.exact([pool], v, codes)
    return probs[0, 1:].copy()


def contest_damage(
    att_pool: int, dodge_pool: int, weapon: int, v: Variants
) -> tuple[np.ndarray, np.ndarray]:
    """C10, C11, C-g4: pmf of damage dealt (misses count 0) and of wins by damage."""
    a = _successes(att_pool, v)
    d = _successes(dodge_pool, v)
    hit = np.zeros(a.size + weapon + 1)
    for i, pa in enumerate(a):
        if pa == 0.0:
            continue
        for j in range(min(i, d.size - 1) + 1):
            if i == 0 and v.tie_needs_success:
                continue
            dmg = i - j + weapon
            if dmg == 0 and v.min_damage:
                dmg = 1
            hit[dmg] += pa * d[j]
    out = hit.copy()
    out[0] += 1.0 - hit.sum()
    return out, hit


def dodge_against(attacker: Combatant, target: Combatant, defended: int = 0) -> int:
    """The target's dodge dice against this attacker (C12, C13): ``defended`` earlier
    attacks on it this round cost ``crowd_dice`` dice each."""
    cover = target.cover_bonus if attacker.weapon.ranged else 0
    return target.dodge_pool - target.crowd_dice * defended + cover


def attack_damage(
    attacker: Combatant, target: Combatant, variants: Variants | None = None
) -> np.ndarray:
    """Exact damage distribution of one attack, the first on the target this round
    (C10–C12, C-g4). ``p[0]`` holds the misses and the 0-damage wins; the win
    probability is :func:`hit_probability`."""
    v = as_variants(variants)
    attacker.check()
    target.check()
    return contest_damage(
        attacker.attack_pool, dodge_against(attacker, target), attacker.weapon.damage, v
    )[0]


def hit_probability(
    attacker: Combatant, target: Combatant, variants: Variants | None = None
) -> float:
    """P(the attacker wins the contest), C10 (and the ``tie_needs_success`` variant)."""
    v = as_variants(variants)
    return float(
        contest_damage(
            attacker.attack_pool, dodge_against(attacker, target), attacker.weapon.damage, v
        )[1].sum()
    )
