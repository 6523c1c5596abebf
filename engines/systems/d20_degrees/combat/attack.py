"""``d20_degrees`` combat, exact single actions enumerated die by die: one attack (E11, E3,
E12, E13, E17; :func:`attack_damage`), the E14 Fortitude check, the E16 feint
(:func:`feint_chance`) and E10 initiative (:func:`initiative_first`)."""

from __future__ import annotations

import numpy as np

from .rules import (
    ATHLETICS_DC,
    CRIT_DAMAGE,
    DEATH_FAILURES,
    DEF_BEST,
    DEF_NEEDED,
    DEF_ROLL,
    DYING_DC,
    EFFORT_BONUS,
    EXHAUSTED_PENALTY,
    F_AGI,
    F_ATK,
    F_AWA,
    F_CRITD,
    F_DECEP,
    F_DMG,
    F_DODGE,
    F_DOFF,
    F_EFFORT,
    F_HUSE,
    F_IDEG,
    F_INIT,
    F_MDEF,
    F_MDMG,
    F_MHIT,
    F_PARRY,
    F_RANGED,
    F_READ,
    F_RECDEF,
    F_TOUGH,
    PRONE_MELEE,
    PRONE_RANGED,
    R_CRIT_DEG,
    R_DEF_ROLL,
    R_DEGREE_DMG,
    R_REROLL_NAT,
    R_RES_NAT,
    R_TIES_RANDOM,
    R_VUL_UP,
    Variants,
    as_fighter,
    as_variants,
)

# Exact life codes: hit points ≥ 1 (able), 0 incapacitated, -1/-2/-3 dying with 0/1/2
# failures, -4 dead.
L_INCAP, L_DEAD = 0, -4


def dying_code(failures: int) -> int:
    """E14: the life code of a combatant dying with ``failures`` failed checks (dead at
    three)."""
    return L_DEAD if failures >= DEATH_FAILURES else -1 - failures


def fortitude_dist(
    fort: int, exhausted: bool, failures: int, dc: int = DYING_DC
) -> dict[int, float]:
    """E14: new life code after one Fortitude check vs ``dc`` (15, the dying fighter's
    ``dying_dc``; E2 degrees, E3 naturals)."""
    out: dict[int, float] = {}
    for r in range(1, 21):
        tot = r + fort - (EXHAUSTED_PENALTY if exhausted else 0) + (5 if r == 20 else 0)
        deg = 1 + (tot - dc) // 5 if tot >= dc else -(1 + (dc - tot) // 5)
        if r == 1 and deg > 0:
            deg = -1
        if deg >= 2:
            code = L_INCAP
        elif deg == 1:
            code = dying_code(failures)
        else:
            code = dying_code(failures - deg)
        out[code] = out.get(code, 0.0) + 1 / 20
    return out


def _reroll_face(r2: int, reroll_nat: bool) -> tuple[int, int]:
    return (r2 + 10 if r2 <= 10 else r2), (2 if r2 == 20 else 1 if (r2 == 1 and reroll_nat) else 0)


def _roll_better(
    bonus: int,
    x0: int,
    tgt: np.ndarray,
    rule: np.ndarray,
    t_exh: bool,
    dying: bool,
    crit_d: int = CRIT_DAMAGE,
) -> bool:
    """ET4 ``best``: whether rolling (d20 + ``bonus`` vs DC 10, E3 naturals, a hit is
    critical) gives this attack on a defenceless target a better chance than the routine
    check (10 + ``bonus``) to kill it — E13: an incapacitated target dies at damage ≥ 10,
    a dying one at any damage (E-g13) — then, at equal chances, to wound it (damage ≥ 1);
    at equal chances again the routine (10: the target's instant-death degrees, E13).
    ``x0``: the attack base + 15 + the maneuver's damage, ``crit_d`` the critical damage
    (E3, 5). The attacker weighs the dice only (no hero point on either side). Counted in
    whole 1/400ths, so the kernel's twin (``kernel._roll_better``) decides alike."""
    tough = int(tgt[F_TOUGH]) - (EXHAUSTED_PENALTY if t_exh else 0)
    need = 1 if dying else max(1, 5 * (int(tgt[F_IDEG]) - 1))
    res_nat, degree = bool(rule[R_RES_NAT]), bool(rule[R_DEGREE_DMG])

    def counts(x: int) -> tuple[int, int]:
        kill = wound = 0
        for r in range(1, 21):
            d = x - (tough + r + (5 if (res_nat and r == 20) else 0))
            if res_nat and r == 1 and d < 1:
                d = 1
            kill += d >= need
            wound += d >= 1
        return kill, wound

    routine = (0, 0)
    if 10 + bonus >= 10:
        k, w = counts(x0 + (bonus // 5 if degree else 0))
        routine = (20 * k, 20 * w)
    rolled = [0, 0]
    for v in range(2, 21):
        if v < 20 and v + bonus < 10:
            continue
        total = v + bonus + (5 if (v == 20 and rule[R_CRIT_DEG]) else 0)
        excess = (total - 10) // 5 if (degree and total >= 10) else 0
        k, w = counts(x0 + excess + crit_d)
        rolled[0] += k
        rolled[1] += w
    return tuple(rolled) > routine


def _attack_totals(
    att: np.ndarray,
    tgt: np.ndarray,
    rule: np.ndarray,
    a_eff: int,
    a_hero: bool,
    defenceless: bool,
    t_buff: bool,
    vul: bool = False,
    amod: int = 0,
    slam: int = 0,
    t_exh: bool = False,
    t_dying: bool = False,
) -> dict[tuple, float]:
    """E11/E3/E13/E9/E8/E16: {(attack total X or None for a miss, hero spent): p};
    ``vul``: the target is vulnerable (E17: Parry/Dodge halved, E-g15 rounding); a
    defenceless target is prone (E17: +5 to hit in melee, −5 at range) and hit by routine
    or by a roll as ET4 (``defenceless_attack``) decides (``t_exh``: the target is
    exhausted, ``t_dying``: it is dying, not merely incapacitated). ``amod``: the
    distance modifier (ET-g2 range band, ET3 / ET-g1 the target's cover); ``slam``: the
    damage rank of an ET2 charge, which replaces the attack base (0: none)."""
    bonus = int(att[F_ATK] + att[F_MHIT]) + amod
    rank = slam if slam > 0 else int(att[F_DMG])
    offset = int(att[F_DOFF])  # E12: + 15
    if a_eff >= 2:
        bonus -= EXHAUSTED_PENALTY
    if a_eff < att[F_EFFORT]:
        bonus += EFFORT_BONUS
    if defenceless:
        dc = 10
        bonus += PRONE_RANGED if att[F_RANGED] else PRONE_MELEE
    else:
        base = int(tgt[F_DODGE] if att[F_RANGED] else tgt[F_PARRY])
        if vul:
            base = -(-base // 2) if rule[R_VUL_UP] else base // 2
        dc = base + int(tgt[F_MDEF]) + (int(tgt[F_RECDEF]) if t_buff else 0) + 10

    def total_of(v: int, nat: int, crit: bool) -> int:
        deg_total = v + bonus + (5 if (nat == 2 and rule[R_CRIT_DEG]) else 0)
        excess = (deg_total - dc) // 5 if (deg_total >= dc and rule[R_DEGREE_DMG]) else 0
        return int(rank + excess + offset + att[F_MDMG] + (int(att[F_CRITD]) if crit else 0))

    out: dict[tuple, float] = {}

    def add(key, p):
        out[key] = out.get(key, 0.0) + p

    mode = int(rule[R_DEF_ROLL])
    rolls = (
        not defenceless
        or mode == DEF_ROLL
        or (
            mode == DEF_BEST
            and _roll_better(
                bonus,
                rank + offset + int(att[F_MDMG]),
                tgt,
                rule,
                t_exh,
                t_dying,
                int(att[F_CRITD]),
            )
        )
        or (mode == DEF_NEEDED and 10 + bonus < dc)
    )
    if not rolls:
        total = 10 + bonus
        if total >= dc:
            excess = (total - dc) // 5 if rule[R_DEGREE_DMG] else 0
            add((int(rank + excess + offset + att[F_MDMG]), 0), 1.0)
        else:
            add((None, 0), 1.0)
        return out
    for v in range(1, 21):
        nat = 2 if v == 20 else 1 if v == 1 else 0
        hit = nat == 2 or (nat != 1 and v + bonus >= dc)
        if hit:
            add((total_of(v, nat, nat == 2 or defenceless), 0), 1 / 20)
        elif a_hero and att[F_HUSE] == 1:
            for r2 in range(1, 21):
                v2, nat2 = _reroll_face(r2, bool(rule[R_REROLL_NAT]))
                vv, nn = (v2, nat2) if v2 > v else (v, nat)
                hit2 = nn == 2 or (nn != 1 and vv + bonus >= dc)
                add((total_of(vv, nn, nn == 2 or defenceless) if hit2 else None, 1), 1 / 400)
        else:
            add((None, 0), 1 / 20)
    return out


def _resist_dist(
    x: int, tgt: np.ndarray, rule: np.ndarray, t_exh: bool, t_hero: bool, threshold: int
) -> dict[tuple, float]:
    """E12 (+E-g5, E9 ``resist``): {(damage ≥ 0, hero spent): p} for attack total ``x``."""
    tough = int(tgt[F_TOUGH])
    pen = EXHAUSTED_PENALTY if t_exh else 0

    def dmg_of(v: int, nat: int) -> int:
        tot = tough + v - pen + (5 if (rule[R_RES_NAT] and nat == 2) else 0)
        d = x - tot
        if rule[R_RES_NAT] and nat == 1 and d < 1:
            d = 1
        return max(d, 0)

    out: dict[tuple, float] = {}
    for r in range(1, 21):
        nat = 2 if r == 20 else 1 if r == 1 else 0
        d = dmg_of(r, nat)
        if d >= threshold and t_hero and tgt[F_HUSE] == 2:
            for r2 in range(1, 21):
                v2, nat2 = _reroll_face(r2, bool(rule[R_REROLL_NAT]))
                d2 = dmg_of(v2, nat2) if v2 > r else d
                out[(d2, 1)] = out.get((d2, 1), 0.0) + 1 / 400
        else:
            out[(d, 0)] = out.get((d, 0), 0.0) + 1 / 20
    return out


def attack_dist(
    att,
    tgt,
    rule,
    a_eff,
    a_hero,
    defenceless,
    t_buff,
    t_exh,
    t_hero,
    threshold,
    vul=False,
    amod=0,
    slam=0,
    t_dying=False,
) -> dict[tuple, float]:
    """{(damage or -1 for a miss, attacker hero spent, target hero spent): p}."""
    out: dict[tuple, float] = {}
    for (x, a_sp), p in _attack_totals(
        att, tgt, rule, a_eff, a_hero, defenceless, t_buff, vul, amod, slam, t_exh, t_dying
    ).items():
        if x is None:
            out[(-1, a_sp, 0)] = out.get((-1, a_sp, 0), 0.0) + p
            continue
        for (d, t_sp), q in _resist_dist(x, tgt, rule, t_exh, t_hero, threshold).items():
            key = (d, a_sp, t_sp)
            out[key] = out.get(key, 0.0) + p * q
    return out


def attack_damage(
    attacker,
    target,
    variants: Variants | None = None,
    *,
    defenceless: bool = False,
    vulnerable: bool = False,
) -> np.ndarray:
    """Exact damage distribution of one attack (E11, E3, E12; E13 when ``defenceless``;
    E17 when ``vulnerable``: the target's Parry/Dodge halved, E-g15).

    ``out[d]`` = P(damage = d); a miss counts as 0. No hero point or extra effort is
    spent; the attacker's maneuver (E16) applies. A ``defenceless`` target is taken as
    incapacitated (not dying) for the ET4 choice of routine or roll.
    """
    att = as_fighter(attacker, "attacker").array()
    tgt = as_fighter(target, "target").array()
    att[F_EFFORT] = 0
    rule = as_variants(variants).rule()
    dist = attack_dist(att, tgt, rule, 0, False, defenceless, False, False, False, 1, vulnerable)
    top = max(max(d for d, _, _ in dist), 0)
    out = np.zeros(top + 1)
    for (d, _, _), p in dist.items():
        out[max(d, 0)] += p
    return out


def dash_p(athletics: int) -> float:
    """ET1: P(an Athletics check d20 + ``athletics`` meets DC 15), E3 naturals."""
    return (
        sum(1 for r in range(2, 21) if r + athletics + (5 if r == 20 else 0) >= ATHLETICS_DC) / 20
    )


def impact_dist(att: np.ndarray, rule: np.ndarray, slam: int, exhausted: bool) -> dict[int, float]:
    """ET2: {damage ≥ 0: p} the charger takes resisting ⌊``slam`` / 2⌋ (E12, E-g5 naturals,
    no hero point)."""
    return {
        d: p
        for (d, _), p in _resist_dist(
            slam // 2 + int(att[F_DOFF]), att, rule, exhausted, False, 1
        ).items()
    }


def feint_p(fa: np.ndarray, fb: np.ndarray, a_exh: bool, b_exh: bool) -> float:
    """E16 feint: P(the feinter's Deception beats the target's Deception/Insight), d20
    each, a tie to the higher bonus (the target's when equal); an exhausted side (E8)
    rolls at its penalty."""
    ba = int(fa[F_DECEP]) - (EXHAUSTED_PENALTY if a_exh else 0)
    bb = int(fb[F_READ]) - (EXHAUSTED_PENALTY if b_exh else 0)
    wins = sum(
        1
        for ra in range(1, 21)
        for rb in range(1, 21)
        if ra + ba > rb + bb or (ra + ba == rb + bb and ba > bb)
    )
    return wins / 400


def feint_chance(feinter, target) -> float:
    """E16 feint (E5 opposed, E-g15): exact P(the target becomes vulnerable, E17)."""
    return feint_p(
        as_fighter(feinter, "feinter").array(), as_fighter(target, "target").array(), False, False
    )


def initiative_first(a, b, variants: Variants | None = None) -> float:
    """E10 (+E-g10): exact P(``a`` acts before ``b``)."""
    fa = as_fighter(a, "a").array()
    fb = as_fighter(b, "b").array()
    rule = as_variants(variants).rule()
    p = 0.0
    for ra in range(1, 21):
        for rb in range(1, 21):
            ka = (ra + fa[F_INIT], fa[F_DODGE], fa[F_AGI], fa[F_AWA])
            kb = (rb + fb[F_INIT], fb[F_DODGE], fb[F_AGI], fb[F_AWA])
            if ka > kb:
                p += 1 / 400
            elif ka == kb:
                p += (0.5 if rule[R_TIES_RANDOM] else 1.0) / 400
    return p
