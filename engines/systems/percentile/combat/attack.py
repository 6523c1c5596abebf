"""``percentile`` combat, one action exactly (extension DX2–DX5, DX11, DX12, and DX15 /
DX16 in a fight that starts apart): success levels (:func:`level_pmf`), damage of a hit,
and the damage one action deals (:func:`attack_damage`)."""

from __future__ import annotations

import functools
import itertools

import numpy as np

from engines.fight import DAMAGE_BINS
from engines.systems.percentile import checks as check_rules

from .kernel import success_level
from .rules import DEFAULT, W_DB, W_F, W_LF, W_LN, W_LS, W_N, W_S, Combatant, Variants, Weapon


def level_pmf(skill: int, dice: int, variants: Variants = DEFAULT) -> np.ndarray:
    """P(level 0..4) of one roll (D1, D4, D-g1; a critical is level 3, extreme, or 4 with
    ``critical_level`` = ``above_extreme``, DX-g4)."""
    return _level_pmf(skill, max(-2, min(2, dice)), variants.crit_code()).copy()


@functools.lru_cache(maxsize=1024, typed=True)
def _level_pmf(skill: int, dice: int, crit: int) -> np.ndarray:
    """:func:`level_pmf`, computed once per skill, bonus/penalty dice and critical rule
    (an exact duel asks for the same few rolls many times)."""
    pv = check_rules.exact([dice])[0]
    rolls = np.arange(1, 101)
    lv = np.array([int(success_level(int(v), skill, crit)) for v in rolls])
    return np.bincount(lv, weights=pv, minlength=5)


def _dice_pmf(n: int, sides: int) -> np.ndarray:
    if n == 0:
        return np.ones(1)
    pmf = np.ones(1)
    face = np.ones(sides) / sides
    for _ in range(n):
        pmf = np.convolve(pmf, face)
    return np.concatenate([np.zeros(n), pmf])  # index = total


def _shift(pmf: np.ndarray, k: int) -> dict[int, float]:
    return {i + k: p for i, p in enumerate(pmf) if p > 0}


def weapon_damage(
    c: Combatant,
    w: Weapon,
    tgt: Combatant,
    extreme: bool,
    variants: Variants,
    dband: int | None = None,
) -> np.ndarray:
    """Exact damage pmf of one hit (DX3, DX4, DX5, DX11), index = damage after armour; a
    firearm's dice by ``dband`` (None: the ``range`` variant's, DX5; 1 its long-range and
    2 its extreme-range dice, DX15)."""
    if dband is None:
        dband = 1 if variants.range == "long" else 0
    b = w.block()
    if w.firearm and dband == 1:
        n, sides, flat = b[W_LN], b[W_LS], b[W_LF]
    elif w.firearm and dband == 2:
        n, sides, flat = w.extreme_dice()
    else:
        n, sides, flat = b[W_N], b[W_S], b[W_F]
    dbn, dbs, dbf = c.bonus if b[W_DB] else (0, 1, 0)
    if extreme and variants.extreme_damage:
        base = n * sides + flat + (dbn * dbs + dbf if b[W_DB] else 0)
        terms = _shift(_dice_pmf(n, sides), base + flat) if w.impale else {base: 1.0}
    else:
        wd = _dice_pmf(n, sides)
        dd = _dice_pmf(dbn, dbs) if b[W_DB] else np.ones(1)
        terms = _shift(np.convolve(wd, dd), flat + (dbf if b[W_DB] else 0))
    out = np.zeros(DAMAGE_BINS * 4)
    for v, p in terms.items():
        out[max(0, v - tgt.armour)] += p
    return out


def action_outcomes(
    att: Combatant,
    tgt: Combatant,
    variants: Variants,
    cover: int = 0,
    shot: tuple[int, int, int] | None = None,
):
    """One action's hits: (pmf of damage to target per shot, pmf to attacker, shots);
    ``cover`` = 1 adds the DX12 penalty die of a successful dive to gunfire. ``shot`` =
    ``(dice0, need, dband)`` of a shot in a fight that started apart (DX15, DX16: the
    kernel's ``shot_mods``); None: the ``range`` variant's (DX5)."""
    w = att.weapon
    if w.firearm:
        if shot is None:
            dice = (1 if variants.range == "point_blank" else 0) - (1 if att.shots > 1 else 0)
            need = 2 if variants.range == "long" else 1
            dband = None
        else:
            dice = shot[0] - (1 if att.shots > 1 else 0)
            need, dband = shot[1], shot[2]
        dice -= cover
        lv = level_pmf(att.firearms, dice, variants)
        p_reg = lv[need:3].sum()
        to_t = p_reg * weapon_damage(att, w, tgt, False, variants, dband) + lv[
            3:
        ].sum() * weapon_damage(att, w, tgt, True, variants, dband)
        return to_t, np.zeros_like(to_t), att.shots
    la = level_pmf(att.fighting, 0, variants)
    fb = tgt.defend == "fight_back"
    ld = level_pmf(tgt.fighting if fb else tgt.dodge, 0, variants)
    p_t = np.zeros(5)  # by attacker level
    p_a = np.zeros(5)  # by defender level
    for i, j in itertools.product(range(5), range(5)):
        if fb:
            if i >= 1 and i >= j:
                p_t[i] += la[i] * ld[j]
            elif j > i:
                p_a[j] += la[i] * ld[j]
        elif i >= 1 and i > j:
            p_t[i] += la[i] * ld[j]
    to_t = p_t[1:3].sum() * weapon_damage(att, w, tgt, False, variants) + p_t[
        3:
    ].sum() * weapon_damage(att, w, tgt, True, variants)
    fw = tgt.fight_back_weapon
    to_a = p_a[1:3].sum() * weapon_damage(tgt, fw, att, False, variants) + p_a[
        3:
    ].sum() * weapon_damage(tgt, fw, att, True, variants)
    return to_t, to_a, 1


def dives(att: Combatant, tgt: Combatant) -> bool:
    """DX12: ``tgt`` dives for cover from ``att``'s action (gunfire at a diver)."""
    return att.weapon.firearm and tgt.defend == "dive_for_cover"


def action_branches(
    att: Combatant, tgt: Combatant, variants: Variants, shot: tuple[int, int, int] | None = None
):
    """DX12: [(probability, action_outcomes)] of one action — the dive's Dodge roll succeeds or
    fails once for all the shots of the action; a single branch without a dive. ``shot``:
    as in :func:`action_outcomes`."""
    if not dives(att, tgt):
        return [(1.0, action_outcomes(att, tgt, variants, 0, shot))]
    p = float(level_pmf(tgt.dodge, 0, variants)[1:].sum())
    return [
        (p, action_outcomes(att, tgt, variants, 1, shot)),
        (1.0 - p, action_outcomes(att, tgt, variants, 0, shot)),
    ]


def attack_damage(
    attacker: Combatant, target: Combatant, variants: Variants = DEFAULT
) -> np.ndarray:
    """Exact distribution of the damage one action of ``attacker`` deals ``target``
    (DX2–DX5, DX11; extension): index 0 = miss, parried or no damage. Several shots add up
    (the target is assumed to stay up); a successful fight back is a 0 here. A target
    diving for cover (DX12) makes it a mixture over its Dodge roll."""
    mix = np.zeros(1)
    for weight, (to_t, _, shots) in action_branches(attacker, target, variants):
        one = to_t.copy()
        one[0] += 1.0 - to_t.sum()
        total = np.ones(1)
        for _ in range(shots):
            total = np.convolve(total, one)
        if total.size > mix.size:
            mix = np.concatenate([mix, np.zeros(total.size - mix.size)])
        mix[: total.size] += weight * total
    return np.trim_zeros(mix, "b")
