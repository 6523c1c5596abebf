"""Straightforward pure-Python fights for ``dice_pool_7`` and ``dice_pool_6``.

Written from RULES.md (A6–A16, C6, C10–C13), one plain loop per fight and Python's
``random``: the oracle the N-vs-M Monte Carlo tests compare the numba kernels with, and
the baseline of ``benchmarks/bench_combat_pools.py``. Default variants only, plus the
few switches the tests flip.
"""

from __future__ import annotations

import random


def pool7(rng: random.Random, n: int) -> int:
    """A1 successes; A-g1: a pool of 0 or less rolls one chance die (only a 10)."""
    if n <= 0:
        return 1 if rng.randint(1, 10) == 10 else 0
    succ = 0
    left = n
    while left:
        d = rng.randint(1, 10)
        succ += d >= 7
        if d != 10:
            left -= 1
    return succ


def fight7(
    rng: random.Random, side0: list, side1: list, cap: int = 50, targeting: str = "random"
) -> dict:
    """One ``dice_pool_7`` fight (combat_dice_pool_7.Combatant objects, default variants)."""
    people = []
    for side, members in ((0, side0), (1, side1)):
        for c in members:
            people.append(
                {
                    "c": c,
                    "side": side,
                    "lethal": 0,
                    "bash": 0,
                    "con": 0,
                    "wp": c.DET + c.AUT,
                    "up": True,
                    "dead": False,
                    "dodge": None,
                    "boost": 0,
                    "key": (-c.initiative, rng.random()),
                }
            )
    order = sorted(people, key=lambda p: p["key"])
    hits = []

    def attack(p, target, dice):
        c, t = p["c"], target["c"]
        if target["dodge"] is not None:
            dice -= target["dodge"]
        else:
            dice -= t.defense + 2 * target["boost"]
        succ = pool7(rng, dice)
        if succ == 0:
            return
        kind = c.weapon.damage_type
        armour = {"bashing": 0, "lethal": t.armour.lethal, "ballistic": t.armour.ballistic}
        dmg = max(0, succ + c.weapon.bonus - armour[kind])
        hits.append(dmg)
        if kind == "bashing":
            target["bash"] += dmg
        else:
            target["lethal"] += dmg
            if target["lethal"] > t.vitality:
                target["con"] += target["lethal"] - t.vitality
                target["lethal"] = t.vitality
                if target["con"] >= t.CON:
                    target["dead"] = True
        if target["dead"] or target["lethal"] + target["bash"] >= t.vitality:
            target["up"] = False

    for rnd in range(1, cap + 1):
        for p in order:
            if not p["up"]:
                continue
            c = p["c"]
            p["dodge"] = None
            p["boost"] = 0
            hurt = 2 * (p["lethal"] + p["bash"]) >= c.vitality
            spent = False
            if p["wp"] and (
                c.willpower == "defense_early" or (c.willpower == "defense_late" and hurt)
            ):
                p["wp"] -= 1
                p["boost"] = 1
                spent = True
            n_attacks, focus = 2, 0
            if c.tactic == "attack_dodge":
                p["dodge"] = pool7(rng, 2 * (c.defense + 2 * p["boost"]))
                n_attacks = 1
            elif c.tactic == "focus_attack":
                n_attacks, focus = 1, 1
            for _ in range(n_attacks):
                extra = 0
                if (
                    not spent
                    and p["wp"]
                    and (c.willpower == "attack_early" or (c.willpower == "attack_late" and hurt))
                ):
                    p["wp"] -= 1
                    spent = True
                    extra = 3
                enemies = [q for q in people if q["side"] != p["side"] and q["up"]]
                burst_dice = {"none": 0, "short": 1, "medium": 2, "long": 3}[c.burst]
                n_targets = {"medium": 3, "long": len(enemies)}.get(c.burst, 1)
                targets = enemies[:n_targets] if n_targets > 1 and len(enemies) > 1 else None
                if targets:
                    burst_dice -= len(targets)
                mods = max(-5, min(5, c.weapon.bonus + c.quality + burst_dice))
                attr = c.DES if c.weapon.ranged else c.FOR
                dice = attr + 2 * c.specialized + mods + focus + extra
                if targets is None:
                    if targeting == "first" or len(enemies) == 1:
                        targets = [enemies[0]]
                    else:
                        targets = [enemies[rng.randrange(len(enemies))]]
                for target in targets:
                    attack(p, target, dice)
                focus = 0
                if not any(q["up"] for q in people if q["side"] != p["side"]):
                    return _result(people, p["side"], rnd, hits)
    return _result(people, 2, cap, hits)


def _result(people, winner, rnd, hits):
    dead = [sum(q["dead"] for q in people if q["side"] == s) for s in (0, 1)]
    size = [sum(1 for q in people if q["side"] == s) for s in (0, 1)]
    up = [sum(q["up"] for q in people if q["side"] == s) for s in (0, 1)]
    loser_dead = winner < 2 and dead[1 - winner] == size[1 - winner]
    return {
        "winner": winner,
        "round": rnd,
        "dead": dead,
        "up": up,
        "loser_dead": loser_dead,
        "hits": hits,
    }


def pool6(rng: random.Random, n: int) -> int:
    """C1 successes (6+), C-g2 each pair of 10s counts 4; no dice, no success."""
    rolls = [rng.randint(1, 10) for _ in range(max(n, 0))]
    return sum(d >= 6 for d in rolls) + 2 * (sum(d == 10 for d in rolls) // 2)


COVER6 = {"none": -2, "partial": 1, "full": 2}  # C12


def fight6(
    rng: random.Random,
    side0: list,
    side1: list,
    cap: int = 50,
    aftermath: str = "leave",
    helpless: str = "zero",
    finish_rounds: int = 10,
    distance: int = 0,
    reach: int = 1,
    close: int = 13,
    medium: int = 26,
    cover_taken: str = "partial",
) -> dict:
    """One ``dice_pool_6`` fight (combat_dice_pool_6.Combatant objects, default variants:
    a fresh random order each round, random targets, dead at twice the health, C-g5),
    then its aftermath: with ``aftermath="finish"`` (C-g7) each standing winner, in row
    order, strikes the first fallen foe still alive once a round for ``finish_rounds``
    rounds, against 0 dodge dice or (``helpless="full"``) the foe's dodge pool less one
    die per earlier finishing attack on it that round (C13).

    Distance (CT1, CT-g1, CT-g2): side 0 starts at 0 m, side 1 at ``distance``, on one
    line. A fighter's turn by its plan: ``cover`` spends its first turn taking cover
    (``cover_taken``, never less than its own), then shoots; a ranged weapon shoots every
    able foe at any distance (a kiter first steps ``close`` metres back when a melee foe
    is within ``close``); a melee weapon attacks foes within ``reach``, closing first on
    the nearest foe when it is within ``close``; farther it runs up to ``medium`` metres
    toward it and does not attack."""
    people = []
    for side, members in ((0, side0), (1, side1)):
        for c in members:
            people.append(
                {
                    "c": c,
                    "side": side,
                    "dmg": 0,
                    "up": True,
                    "dead": False,
                    "attacked": 0,
                    "pos": side * distance,
                    "covered": False,
                }
            )
    hits = []

    def contest(p, target, dice, helpless_dodge=None):
        c, t = p["c"], target["c"]
        dodge = t.dodge_pool - target["attacked"]  # C13
        if c.weapon.ranged:
            own = COVER6[t.cover]
            if target["covered"] and helpless_dodge is None:  # CT-g2
                own = max(own, COVER6[cover_taken])
            dodge += own
        if helpless_dodge is not None and helpless_dodge == "zero":
            dodge = 0
        target["attacked"] += 1
        att, dfn = pool6(rng, dice), pool6(rng, dodge)
        if att >= dfn:
            dmg = att - dfn + c.weapon.damage
            if helpless_dodge is None:
                hits.append(dmg)
            target["dmg"] += dmg
            if target["dmg"] >= 2 * t.health:
                target["dead"] = True
            if target["dmg"] >= t.health:
                target["up"] = False

    def finish(winner, rnd):
        if aftermath == "finish":
            for _ in range(finish_rounds):
                for q in people:
                    q["attacked"] = 0
                for p in people:
                    if p["side"] != winner or not p["up"]:
                        continue
                    fallen = [q for q in people if q["side"] != winner and not q["dead"]]
                    if not fallen:
                        break
                    contest(p, fallen[0], p["c"].attack_pool, helpless)
        return _result(people, winner, rnd, hits)

    def move6(p) -> bool:
        """CT1, CT-g1, CT-g2: ``p``'s moves or cover; True when it still attacks."""
        c = p["c"]
        plan = c.plan_in_force
        if plan == "cover" and not p["covered"]:
            p["covered"] = True
            return False
        foes = [q for q in people if q["side"] != p["side"] and q["up"]]
        toward = 1 if p["side"] == 0 else -1
        if c.weapon.ranged:
            melee = [abs(q["pos"] - p["pos"]) for q in foes if not q["c"].weapon.ranged]
            if plan == "kite" and melee and min(melee) <= close:
                p["pos"] -= toward * close
            return True
        near = min(abs(q["pos"] - p["pos"]) for q in foes)
        if near <= reach:
            return True
        if near <= close:
            p["pos"] += toward * (near - reach)
            return True
        p["pos"] += toward * min(medium, near - reach)
        return False

    for rnd in range(1, cap + 1):
        order = people[:]
        rng.shuffle(order)
        for q in people:
            q["attacked"] = 0
        for p in order:
            if not p["up"]:
                continue
            if not move6(p):
                continue
            enemies = [
                q
                for q in people
                if q["side"] != p["side"]
                and q["up"]
                and (p["c"].weapon.ranged or abs(q["pos"] - p["pos"]) <= reach)
            ]
            if not enemies:
                continue
            pool = p["c"].attack_pool
            if p["c"].split and len(enemies) > 1:
                k = len(enemies)
                for j, target in enumerate(enemies):
                    contest(p, target, pool // k + (1 if j < pool % k else 0))
            else:
                contest(p, enemies[rng.randrange(len(enemies))], pool)
            if not any(q["up"] for q in people if q["side"] != p["side"]):
                return finish(p["side"], rnd)
    return _result(people, 2, cap, hits)
