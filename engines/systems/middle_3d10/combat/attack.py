"""``middle_3d10`` combat, one attack exactly: the 1000 outcomes of 3d10 (B1, B3), an
attack's damage table by health state (B4, B6–B9; :func:`attack_damage`) and the B10
massive-damage check."""

from __future__ import annotations

import numpy as np

from .rules import DEFAULT, MASSIVE_DIFFICULTY, Combatant, Variants

_ALL = np.array(
    np.meshgrid(np.arange(1, 11), np.arange(1, 11), np.arange(1, 11), indexing="ij")
).reshape(3, -1)
LOW, HIGH = _ALL.min(0), _ALL.max(0)
MIDDLE = _ALL.sum(0) - LOW - HIGH


def special_all(doubles: bool) -> np.ndarray:
    """B3 doubles over the 1,000 ordered rolls of 3d10: 1 for two 10s, 2 for two 1s, else 0
    (all 0 when the doubles rule is off)."""
    if not doubles:
        return np.zeros(1000, dtype=np.int64)
    tens, ones = (_ALL == 10).sum(0), (_ALL == 1).sum(0)
    return np.where(tens >= 2, 1, np.where(ones >= 2, 2, 0))


def _hit_pmf(mod, defense, mask, bonus, crit, kept, sp, n_bins):
    """P(damage = d) over d = 0..n_bins-1 of one roll (0 = miss)."""
    hit = (sp == 1) | ((sp == 0) & (kept + mod >= defense))
    d = LOW * (mask & 1) + MIDDLE * ((mask >> 1) & 1) + HIGH * ((mask >> 2) & 1) + bonus
    d = d + crit * (sp == 1)
    pmf = np.bincount(np.where(hit, d, 0), minlength=n_bins).astype(float) / 1000.0
    return pmf


def attack_table(
    att: Combatant, tgt: Combatant, variants: Variants, n_bins: int, far_pen: int = 0
) -> np.ndarray:
    """T[att_state, tgt_state, flat, use, spent, d]: one attack's outcome by the health
    states (B9: each side's own ``penalties``), flat-footedness (B6: the target's
    ``flat_footed``), drama use (B4, B-g7); ``far_pen`` points off the total for range
    (BT-g2)."""
    sp = special_all(variants.doubles)
    t = np.zeros((3, 3, 2, 2, 2, n_bins))
    for ia, pa in enumerate(att.penalties):
        for it, pt in enumerate(tgt.penalties):
            for flat in (0, 1):
                mod = att.trait + att.combat - pa - far_pen
                defense = tgt.defense - pt - tgt.flat_footed * flat
                args = (mod, defense, att.mask, att.damage_bonus, variants.crit_bonus)
                normal = _hit_pmf(*args, MIDDLE, sp, n_bins)
                adv = _hit_pmf(*args, HIGH, sp, n_bins)
                t[ia, it, flat, 0, 0] = normal
                if variants.drama_timing == "before":
                    t[ia, it, flat, 1, 1] = adv
                else:
                    t[ia, it, flat, 1, 0] = normal
                    t[ia, it, flat, 1, 0, 0] = 0.0
                    t[ia, it, flat, 1, 1] = normal[0] * adv
    return t


def massive_pass(vigor: int, variants: Variants, difficulty: int = MASSIVE_DIFFICULTY) -> float:
    """B10 / B-g6: P(passing the check at ``difficulty``, 12; the target's
    ``massive_difficulty``)."""
    sp = special_all(variants.doubles)
    total = MIDDLE + (vigor if variants.massive_traits == "c_plus_vigor" else 0)
    return float(((sp == 1) | ((sp == 0) & (total >= difficulty))).mean())


def check_pass(mod: int, difficulty: int, doubles: bool) -> float:
    """B1 + B3: P(C + ``mod`` ≥ ``difficulty``), two 10s always pass, two 1s never."""
    sp = special_all(doubles)
    return float(((sp == 1) | ((sp == 0) & (MIDDLE + mod >= difficulty))).mean())


def attack_damage(
    attacker: Combatant,
    target: Combatant,
    variants: Variants = DEFAULT,
    flat_footed: bool = False,
    drama: bool = False,
    far_pen: int = 0,
) -> np.ndarray:
    """Exact damage distribution of one attack (B1, B3, B4, B6–B8); index 0 = miss.

    ``flat_footed`` lowers the target's Defense by its ``flat_footed`` (3, B6);
    ``drama`` spends a drama point as the variant ``drama_timing`` says (B4, B-g7). Both
    are at full health. ``far_pen`` points off the total for range (BT-g2,
    :func:`~.rules.range_penalty`).
    """
    n_bins = 3 * 10 + 40 + variants.crit_bonus + 1
    t = attack_table(attacker, target, variants, n_bins, far_pen)
    pmf = t[0, 0, int(flat_footed), int(drama)].sum(axis=0)
    return np.trim_zeros(pmf, "b")
