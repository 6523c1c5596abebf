"""``middle_3d10`` combat: whole fights, Monte Carlo and exact (RULES.md B6–B11, seed 001).

Rules implemented (ids from RULES.md section B):

- **B1** an attack is a check: 3d10, keep the middle (C) + characteristic + Combat skill.
- **B3** doubles on attacks: two or three 10s hit automatically (the "benefit" is the
  gap **B-g8**: ``crit_bonus`` extra damage, default 0); two or three 1s miss whatever
  the total.
- **B4** drama points buy advantage: the 3d10 are re-rolled and M is kept. When a point
  is spent is gap **B-g7** (``drama_timing``: ``after_miss`` — the literal "re-roll" —
  or ``before`` the roll) and each combatant's tactic (never / early / late = only once
  wounded).
- **B6** a turn is move + one action (here: one attack; movement is not modelled — every
  combatant is assumed to reach its target). Everyone is flat-footed (Defense −3) until it
  has acted once in the fight; a surprise round (only combatants with ``aware`` act) comes
  first when some are aware and some are not. Initiative is gap **B-g4**: 3d10 middle +
  the reflex characteristic (variant ``initiative``), rolled once per fight; ties go to the
  higher reflex, then at random.
- **B7** the attack succeeds when its total ≥ the target's Defense (gap **B-g5**:
  Defense is an explicit stat, 10 for an average person; 7 while flat-footed).
- **B8** damage reuses the attack's own dice by weapon category (a bit mask over m, C,
  M: unarmed m, light C, blades M, small firearms m+M, medium C+M, heavy m+C+M) plus
  ⌊(FOR + Combat)/4⌋ in melee or ⌊Combat/4⌋ at range.
- **B9** Resistance = 3 × Vigor; damage taken d < Vigor healthy, < 2 Vigor wounded (−2 on
  attacks and Defense), < 3 Vigor incapacitated (−5), then dying (cannot act).
- **B10** one hit ≥ Vigor forces a check at difficulty 12 with C + Vigor (gap **B-g6**,
  variant ``massive_traits``); failure loses every remaining point (→ dying).
- **B11** new damage is temporary (/) and only consolidates on rest, so within one fight
  temporary and consolidated damage weigh the same: the engine tracks one damage total.
  Sequelae from critical hits (B3) are narrative and not modelled.

Combat gaps introduced here (not settled by the seed): **B-g7** drama timing, **B-g8**
critical benefit, **B-g9** target choice with several opponents (``targeting``).

The surprise round, when there is one, is round 0 — the seed puts it "antes da primeira
rodada normal" (B6) — so it does not count against the round cap and a fight it decides
ends in round 0.

Exact duels (:func:`duel_exact`) cover 1 vs 1 with every rule above: the state is (damage
of each, drama points of each) — at most (3·10)² · 21² live states, small enough to run
without restriction. Several combatants per side are Monte Carlo only: the exact state
would be the product of every combatant's track and drama, times the initiative order
and the random target choice (B-g9), which grows exponentially with the head count.

Lethality outcomes (RULES.md "Lethality outcomes", variant ``aftermath``). Only a dying
combatant (3 × Vigor, B9, or a failed B10 check) is fallen: an incapacitated one (−5)
still acts, so no one leaves a fight "out" except by stabilising. The seed's words are
"Moribundo | 3×Vigor (Resistência zerada) | inconsciente, risco de morte"; it gives no
clock for dying, no death rule and no stabilising rule (B11 only mentions a dying
character who "se estabiliza"). Gaps:

- **B-g10** ``untreated_dying`` (default ``dying``): a dying combatant nobody helps or
  finishes stays dying — "risk" of death is not death, and the seed resolves it by no
  rule; ``dead`` / ``out`` are the pessimistic / optimistic readings.
- **B-g11** ``dying_damage`` (default ``any``): new damage on a dying combatant kills —
  its Resistance is already zero, no points are left to absorb it; ``massive``: only a
  hit ≥ Vigor that fails the B10 check kills. The overshoot of the hit that drops a
  combatant does not kill (the track ends at dying), so the fight itself kills no one.
- **B-g12** ``helpless_defense`` (default ``incapacitated``): a dying target's Defense is
  Defense − 5 (the last penalty B9 gives), − 3 more if it never acted (B6); ``auto_hit``.
- **B-g13** ``finish_rounds`` (default 10): aftermath rounds in which the standing winners
  strike dying foes (plain attacks, no drama points).
- **B-g14** ``aid_total`` (6), ``aid_difficulty`` (15), ``aid_tries`` (1): the
  stabilising check of ``first_aid`` — a B1 check of an average person (3 + 3) at the
  average difficulty (B2); success → out.

The aftermath draws from its own random stream (seed spawn key ``_AFTERMATH_STREAM``), so
outcome, rounds, hits and standing are the same under every aftermath policy.

A combatant reaches the kernels as one int64 row (see :meth:`Combatant.row`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import merge_standing, run_chunks, sort_desc
from engines.config import JIT, KERNEL, LEAF
from engines.errors import InputError
from engines.fight import (
    AFTERMATHS,
    DAMAGE_BINS,
    FATES,
    ROUND_CAP,
    SIDE_FATES,
    FightStats,
    check_aftermath,
    check_round_cap,
    check_side,
    check_start_damage,
)
from engines.rng import Seed, bounded, chunk_states, d10, normalize_seed, plan_chunks
from engines.variants import variant

SYSTEM = "middle_3d10"
FLAT_FOOTED = 3  # B6
MASSIVE_DIFFICULTY = 12  # B10
PENALTY = (0, 2, 5)  # B9: healthy, wounded, incapacitated
DICE_BITS = {"m": 1, "C": 2, "M": 4}  # B8 damage dice as a bit mask
TACTICS = {"never": 0, "early": 1, "late": 2}  # B4 drama tactic

# columns of a combatant row
(TRAIT, SKILL, STR, VIGOR, DEFENSE, REFLEX, MASK, RANGED, DRAMA, TACTIC, AWARE,
 START) = range(12)  # START: damage taken before the fight (campaign attrition)
N_FIELDS = 12
# rule array
(R_INIT, R_TIMING, R_CRIT, R_DOUBLES, R_MASSIVE_VIGOR, R_TARGET, R_AFTER, R_UNTREATED,
 R_DYING_DMG, R_HELPLESS, R_FINISH, R_AID_TOTAL, R_AID_DIFF, R_AID_TRIES) = range(14)
HELPLESS_PENALTY = 5  # B-g12: the incapacitated penalty of B9 carried on to a dying target
# per-combatant fate codes in the kernels: the index in fight.SIDE_FATES
F_STANDING, F_DEAD, F_DYING, F_OUT = range(4)
A_LEAVE, A_FIRST_AID, A_FINISH = range(3)  # fight.AFTERMATHS order


@dataclass(frozen=True)
class Variants:
    """Combat rule variants of ``middle_3d10`` (each field cites the gap it settles)."""

    system: ClassVar[str] = SYSTEM
    initiative: str = variant("middle_plus_reflex", rule="B-g4", doc="initiative: 3d10 middle + "
                              "reflex characteristic, or the reflex characteristic alone "
                              "('reflex'); ties: higher reflex, then at random",
                              choices=("middle_plus_reflex", "reflex"))
    drama_timing: str = variant("after_miss", rule="B-g7", doc="a drama point (B4) is spent to "
                                "re-roll a missed attack with advantage ('after_miss') or "
                                "declared before rolling ('before')",
                                choices=("after_miss", "before"))
    crit_bonus: int = variant(0, rule="B-g8", doc="extra damage on an automatic success (two "
                              "or three 10s, B3); the seed's benefit is narrative")
    doubles: bool = variant(True, rule="B3", doc="two or three 10s hit automatically, two or "
                            "three 1s miss")
    massive_traits: str = variant("c_plus_vigor", rule="B-g6", doc="the massive damage check "
                                  "(B10) adds Vigor to C, or nothing",
                                  choices=("c_plus_vigor", "c_only"))
    targeting: str = variant("first", rule="B-g9", doc="with several opponents, attack the first "
                             "one still standing, a random one, or the most damaged",
                             choices=("first", "random", "weakest"))
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="what happens to the "
                             "fallen when a fight ends: no one helps ('leave'), the winners try "
                             "to stabilise every fallen combatant ('first_aid', B-g14), or they "
                             "strike fallen foes until dead ('finish', B-g11…B-g13)",
                             choices=AFTERMATHS)
    untreated_dying: str = variant("dying", rule="B-g10", doc="what becomes of a dying "
                                   "combatant (B9) nobody helps or finishes: the seed gives "
                                   "only 'risco de morte' and no clock, so it stays 'dying'; "
                                   "or it dies ('dead'), or stabilises on its own ('out')",
                                   choices=("dying", "dead", "out"))
    dying_damage: str = variant("any", rule="B-g11", doc="what new damage does to a dying "
                                "combatant (Resistance already zero, B9): any damage kills "
                                "('any'), or only a hit ≥ Vigor that fails the B10 check "
                                "('massive')", choices=("any", "massive"))
    helpless_defense: str = variant("incapacitated", rule="B-g12", doc="Defense of a dying "
                                    "(unconscious) target: Defense − 5, the last penalty B9 "
                                    "gives, and − 3 more if it never acted (B6) "
                                    "('incapacitated'); or every strike hits ('auto_hit')",
                                    choices=("incapacitated", "auto_hit"))
    finish_rounds: int = variant(10, rule="B-g13", doc="aftermath 'finish': rounds in which "
                                 "each standing winner strikes a dying foe (1..1000)")
    aid_total: int = variant(6, rule="B-g14", doc="aftermath 'first_aid': characteristic + "
                             "skill of the aider's stabilising check (B1; an average person "
                             "3 + 3)")
    aid_difficulty: int = variant(15, rule="B-g14", doc="aftermath 'first_aid': difficulty of "
                                  "the stabilising check (B2 average, 15)")
    aid_tries: int = variant(1, rule="B-g14", doc="aftermath 'first_aid': stabilising checks "
                             "per fallen combatant (1..20)")

    def check(self) -> None:
        if not isinstance(self.crit_bonus, int) or not 0 <= self.crit_bonus <= 30:
            raise InputError(f"variant crit_bonus: expected 0..30, got {self.crit_bonus!r}")
        check_aftermath(self.aftermath)
        for name, lo, hi in (("finish_rounds", 1, 1000), ("aid_total", 0, 40),
                             ("aid_difficulty", 1, 40), ("aid_tries", 1, 20)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise InputError(f"variant {name}: expected {lo}..{hi}, got {v!r}")

    def rule(self) -> np.ndarray:
        self.check()
        return np.array([int(self.initiative == "reflex"), int(self.drama_timing == "before"),
                         self.crit_bonus, int(self.doubles),
                         int(self.massive_traits == "c_plus_vigor"),
                         ("first", "random", "weakest").index(self.targeting),
                         AFTERMATHS.index(self.aftermath),
                         SIDE_FATES.index(self.untreated_dying),
                         int(self.dying_damage == "massive"),
                         int(self.helpless_defense == "auto_hit"), self.finish_rounds,
                         self.aid_total, self.aid_difficulty, self.aid_tries], dtype=np.int64)


DEFAULT = Variants()


@dataclass(frozen=True)
class Combatant:
    """One combatant, as the engine sees it (plain values; built from the data files by
    :mod:`analysis.combat.combatants_middle_pct`).

    ``trait`` is the characteristic added to attacks (B1), ``combat`` the Combat skill,
    ``strength`` FOR (melee damage bonus, B8), ``defense`` the explicit Defense (B-g5),
    ``reflex`` the initiative characteristic (B-g4), ``dice`` the damage dice of its
    weapon (B8, e.g. ``"mM"``), ``drama`` its drama points and ``drama_tactic`` when it
    spends them (B4), ``aware`` whether it acts in a surprise round (B6).
    """

    name: str = "combatant"
    trait: int = 3
    combat: int = 3
    strength: int = 3
    vigor: int = 3
    defense: int = 10
    reflex: int = 3
    dice: str = "m"
    ranged: bool = False
    drama: int = 0
    drama_tactic: str = "never"
    aware: bool = True

    def __post_init__(self):
        for key in ("trait", "combat", "strength", "vigor", "reflex"):
            v = getattr(self, key)
            if not isinstance(v, int | np.integer) or not 0 <= v <= 20:
                raise InputError(f"combatant {self.name}: {key} must be an integer 0..20, "
                                 f"got {v!r}")
        if self.vigor < 1:
            raise InputError(f"combatant {self.name}: vigor must be at least 1")
        if not 0 <= self.defense <= 40:
            raise InputError(f"combatant {self.name}: defense must be 0..40, got {self.defense}")
        if not self.dice or any(c not in DICE_BITS for c in self.dice) or \
                len(set(self.dice)) != len(self.dice):
            raise InputError(f"combatant {self.name}: dice must be distinct letters of m, C, M; "
                             f"got {self.dice!r}")
        if not 0 <= self.drama <= 20:
            raise InputError(f"combatant {self.name}: drama must be 0..20, got {self.drama}")
        if self.drama_tactic not in TACTICS:
            raise InputError(f"combatant {self.name}: drama_tactic {self.drama_tactic!r}; known: "
                             f"{', '.join(TACTICS)}")

    @property
    def mask(self) -> int:
        return sum(DICE_BITS[c] for c in self.dice)

    @property
    def damage_bonus(self) -> int:
        """B8: ⌊(FOR + Combat)/4⌋ in melee, ⌊Combat/4⌋ at range."""
        return self.combat // 4 if self.ranged else (self.strength + self.combat) // 4

    def row(self) -> np.ndarray:
        return np.array([self.trait, self.combat, self.strength, self.vigor, self.defense,
                         self.reflex, self.mask, int(self.ranged), self.drama,
                         TACTICS[self.drama_tactic], int(self.aware), 0], dtype=np.int64)


# ---------------------------------------------------------------- shared rule pieces


@njit(**LEAF)
def _penalty(dmg, vigor):
    """B9: 0 / 2 / 5 by health state; -1 for dying."""
    if dmg < vigor:
        return 0
    if dmg < 2 * vigor:
        return 2
    if dmg < 3 * vigor:
        return 5
    return -1


@njit(**LEAF)
def _sorted3(a, b, c):
    lo = min(a, b, c)
    hi = max(a, b, c)
    return lo, a + b + c - lo - hi, hi


@njit(**LEAF)
def _special(a, b, c, doubles):
    """B3: 1 automatic success (two+ 10s), 2 catastrophe (two+ 1s), else 0."""
    if doubles == 0:
        return 0
    if (a == 10) + (b == 10) + (c == 10) >= 2:
        return 1
    if (a == 1) + (b == 1) + (c == 1) >= 2:
        return 2
    return 0


@njit(**LEAF)
def _dice_damage(lo, mid, hi, mask):
    """B8: the damage dice the weapon category reads from the attack's own roll."""
    return lo * (mask & 1) + mid * ((mask >> 1) & 1) + hi * ((mask >> 2) & 1)


@njit(**LEAF)
def _uses_drama(tactic, drama, dmg, vigor):
    """B4 tactic: never, early (whenever a point is left), late (only once wounded)."""
    if drama <= 0 or tactic == 0:
        return False
    return tactic == 1 or dmg >= vigor


# ---------------------------------------------------------------- Monte Carlo


@njit(**LEAF)
def _attack(s, cmb, rule, i, j, dmg, drama, acted):
    """One attack of ``i`` on ``j`` (B1, B3, B4, B6, B7, B8); returns the damage (0 = miss)."""
    vi = cmb[i, VIGOR]
    mod = cmb[i, TRAIT] + cmb[i, SKILL] - _penalty(dmg[i], vi)
    defense = cmb[j, DEFENSE] - _penalty(dmg[j], cmb[j, VIGOR])
    if acted[j] == 0:
        defense -= FLAT_FOOTED
    use = _uses_drama(cmb[i, TACTIC], drama[i], dmg[i], vi)
    adv = use and rule[R_TIMING] == 1
    if adv:
        drama[i] -= 1
    a, b, c = d10(s), d10(s), d10(s)
    lo, mid, hi = _sorted3(a, b, c)
    sp = _special(a, b, c, rule[R_DOUBLES])
    kept = hi if adv else mid
    hit = sp == 1 or (sp == 0 and kept + mod >= defense)
    if not hit and use and not adv:
        drama[i] -= 1
        a, b, c = d10(s), d10(s), d10(s)
        lo, mid, hi = _sorted3(a, b, c)
        sp = _special(a, b, c, rule[R_DOUBLES])
        hit = sp == 1 or (sp == 0 and hi + mod >= defense)
    if not hit:
        return 0
    bonus = cmb[i, SKILL] // 4 if cmb[i, RANGED] != 0 else (cmb[i, STR] + cmb[i, SKILL]) // 4
    d = _dice_damage(lo, mid, hi, cmb[i, MASK]) + bonus
    if sp == 1:
        d += rule[R_CRIT]
    return d


@njit(**LEAF)
def _take(s, cmb, rule, j, d, dmg):
    """B9 / B10: add ``d`` to ``j``'s damage; a hit ≥ Vigor calls the massive check."""
    v = cmb[j, VIGOR]
    dmg[j] = min(dmg[j] + d, 3 * v)
    if d >= v and dmg[j] < 3 * v:
        a, b, c = d10(s), d10(s), d10(s)
        _, mid, _ = _sorted3(a, b, c)
        sp = _special(a, b, c, rule[R_DOUBLES])
        total = mid + (v if rule[R_MASSIVE_VIGOR] != 0 else 0)
        if not (sp == 1 or (sp == 0 and total >= MASSIVE_DIFFICULTY)):
            dmg[j] = 3 * v


@njit(**LEAF)
def _target(s, cmb, side, rule, i, dmg):
    """B-g9: the opponent ``i`` attacks (-1 when none is standing)."""
    n = cmb.shape[0]
    count = 0
    best = -1
    for j in range(n):
        if side[j] != side[i] and dmg[j] < 3 * cmb[j, VIGOR]:
            count += 1
            if best < 0 or (rule[R_TARGET] == 2 and dmg[j] > dmg[best]):
                best = j
    if count == 0 or rule[R_TARGET] != 1:
        return best
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and dmg[j] < 3 * cmb[j, VIGOR]:
            if k == 0:
                return j
            k -= 1
    return best


@njit(**LEAF)
def _order(s, cmb, rule, key, order):
    """B-g4: initiative (3d10 middle + reflex, or reflex), descending; ties: reflex, random."""
    n = cmb.shape[0]
    for i in range(n):
        init = cmb[i, REFLEX]
        if rule[R_INIT] == 0:
            a, b, c = d10(s), d10(s), d10(s)
            init += a + b + c - min(a, b, c) - max(a, b, c)
        key[i] = (init * 64 + cmb[i, REFLEX]) * (1 << 30) + bounded(s, 1 << 30)
    sort_desc(key, order)


@njit(**LEAF)
def _fight(s, cmb, side, rule, cap, dmg, drama, acted, key, order, up, outcome, rounds,
           standing, tail, hits):
    """One whole fight; adds it to the histograms and returns the winning side (2: none).

    B6: the surprise round, when there is one, is round 0 — "antes da primeira rodada
    normal" — so it is not counted against the cap; ``standing`` row 0 stays the start
    and row k is "after normal round k" (the surprise round's casualties included).
    """
    n = cmb.shape[0]
    n_bins = hits.shape[0]
    for i in range(n):
        dmg[i] = cmb[i, START]
        drama[i] = cmb[i, DRAMA]
        acted[i] = 0
    n_aware = 0
    for i in range(n):
        n_aware += cmb[i, AWARE]
    surprise = 0 < n_aware < n
    _order(s, cmb, rule, key, order)
    up[0] = 0
    up[1] = 0
    for i in range(n):
        up[side[i]] += 1
    winner = 2
    last = cap
    for r in range(0 if surprise else 1, cap + 1):
        for k in range(n):
            i = order[k]
            if dmg[i] >= 3 * cmb[i, VIGOR]:
                continue
            if r == 0 and cmb[i, AWARE] == 0:
                continue
            j = _target(s, cmb, side, rule, i, dmg)
            d = _attack(s, cmb, rule, i, j, dmg, drama, acted)
            acted[i] = 1
            if d > 0:
                hits[min(d, n_bins - 1)] += 1
                _take(s, cmb, rule, j, d, dmg)
                if dmg[j] >= 3 * cmb[j, VIGOR]:
                    up[side[j]] -= 1
                    if up[side[j]] == 0:
                        winner = side[i]
                        break
        if r > 0:
            standing[r, 0] += up[0]
            standing[r, 1] += up[1]
        if winner != 2:
            last = r
            break
    tail[last, 0] += up[0]
    tail[last, 1] += up[1]
    outcome[winner] += 1
    rounds[last, winner] += 1
    return winner


@njit(**LEAF)
def _check(s, mod, difficulty, doubles):
    """B1 + B3: 3d10, C + ``mod`` ≥ ``difficulty``; two 10s pass, two 1s fail."""
    a, b, c = d10(s), d10(s), d10(s)
    _, mid, _ = _sorted3(a, b, c)
    sp = _special(a, b, c, doubles)
    return sp == 1 or (sp == 0 and mid + mod >= difficulty)


@njit(**LEAF)
def _strike(s, cmb, rule, i, j, dmg, acted):
    """Aftermath ``finish``: one plain attack (B1, B3, B7, B8; no drama) of standing ``i``
    on dying ``j``; True when it kills ``j``.

    B-g12 the helpless Defense: Defense − 5, and − 3 more if ``j`` never acted (B6), or
    every strike hits; B-g11: any damage kills a dying combatant, or only a hit ≥ Vigor
    that fails the B10 check (difficulty 12, traits by B-g6).
    """
    a, b, c = d10(s), d10(s), d10(s)
    lo, mid, hi = _sorted3(a, b, c)
    sp = _special(a, b, c, rule[R_DOUBLES])
    if rule[R_HELPLESS] == 0:
        mod = cmb[i, TRAIT] + cmb[i, SKILL] - _penalty(dmg[i], cmb[i, VIGOR])
        defense = cmb[j, DEFENSE] - HELPLESS_PENALTY
        if acted[j] == 0:
            defense -= FLAT_FOOTED
        if not (sp == 1 or (sp == 0 and mid + mod >= defense)):
            return False
    bonus = cmb[i, SKILL] // 4 if cmb[i, RANGED] != 0 else (cmb[i, STR] + cmb[i, SKILL]) // 4
    d = _dice_damage(lo, mid, hi, cmb[i, MASK]) + bonus
    if sp == 1:
        d += rule[R_CRIT]
    if rule[R_DYING_DMG] == 0:
        return d > 0
    v = cmb[j, VIGOR]
    if d < v:
        return False
    return not _check(s, v if rule[R_MASSIVE_VIGOR] != 0 else 0, MASSIVE_DIFFICULTY,
                      rule[R_DOUBLES])


@njit(**LEAF)
def _aftermath(s, cmb, side, rule, winner, dmg, acted, order, fate):
    """Lethality outcomes: the fate of every combatant once the fight is over.

    Fallen = dying (damage 3 × Vigor, B9/B10): the only combatants who cannot act; an
    incapacitated combatant (−5) still fights. ``leave`` (and every fight stopped at the
    cap): the dying follow B-g10. ``first_aid``: every fallen combatant of both sides gets
    up to ``aid_tries`` stabilising checks (B-g14; success → out, B11 "se estabiliza").
    ``finish``: for up to ``finish_rounds`` rounds (B-g13) each standing winner, in
    initiative order, strikes the first dying foe (B-g11, B-g12); the winners' own fallen
    are left. Draws come from the aftermath's own stream ``s``.
    """
    n = cmb.shape[0]
    for i in range(n):
        fate[i] = F_DYING if dmg[i] >= 3 * cmb[i, VIGOR] else F_STANDING
    policy = rule[R_AFTER] if winner != 2 else A_LEAVE
    if policy == A_FIRST_AID:
        for i in range(n):
            if fate[i] == F_DYING:
                for _ in range(rule[R_AID_TRIES]):
                    if _check(s, rule[R_AID_TOTAL], rule[R_AID_DIFF], rule[R_DOUBLES]):
                        fate[i] = F_OUT
                        break
    elif policy == A_FINISH:
        for _ in range(rule[R_FINISH]):
            left = False
            for k in range(n):
                i = order[k]
                if side[i] != winner or fate[i] != F_STANDING:
                    continue
                j = -1
                for t in range(n):
                    if side[t] != winner and fate[t] == F_DYING:
                        j = t
                        break
                if j < 0:
                    break
                left = True
                if _strike(s, cmb, rule, i, j, dmg, acted):
                    fate[j] = F_DEAD
            if not left:
                break
    for i in range(n):
        if fate[i] == F_DYING:
            fate[i] = rule[R_UNTREATED]


@njit(**LEAF)
def _tally(side, fate, winner, size, cnt, loser_dead, loser_fate, loser_fate_sq, fates,
           fates_sq):
    """Add one fight's fates to the lethality histograms (see :mod:`engines.fight`)."""
    cnt[:] = 0
    for i in range(side.shape[0]):
        cnt[side[i], fate[i]] += 1
    for sd in range(2):
        for f in range(4):
            fates[sd, f] += cnt[sd, f]
            fates_sq[sd, f] += cnt[sd, f] * cnt[sd, f]
    if winner < 2:
        lo = 1 - winner
        for f in range(1, 4):
            loser_fate[winner, f - 1] += cnt[lo, f]
            loser_fate_sq[winner, f - 1] += cnt[lo, f] * cnt[lo, f]
        if cnt[lo, F_DEAD] == size[lo]:
            loser_dead[winner] += 1


@njit(**LEAF)
def _chunk(s, a, cmb, side, rule, cap, n_trials, dmg, drama, acted, key, order, fate, up,
           size, cnt, o, rd, st, tl, h, ld, lf, lfs, fs, fss, end):
    """``n_trials`` fights of one work item into the histograms ``o`` … ``fss``; every
    scratch array comes from :func:`_mc_kernel`. ``a`` is the aftermath's own stream, so
    the fights draw the same numbers under every aftermath policy.

    ``end`` (campaign attrition) counts combatant 0's end: able with ``d`` damage at ``d``,
    else its fate at ``3 × Vigor + fate``; with no columns (a plain run) nothing is
    counted."""
    health = end.shape[0] - 4
    for i in range(cmb.shape[0]):
        size[side[i]] += 1
    for _ in range(n_trials):
        w = _fight(s, cmb, side, rule, cap, dmg, drama, acted, key, order, up, o, rd, st, tl, h)
        _aftermath(a, cmb, side, rule, w, dmg, acted, order, fate)
        _tally(side, fate, w, size, cnt, ld, lf, lfs, fs, fss)
        if health >= 0:
            if fate[0] == F_STANDING:
                end[dmg[0]] += 1
            else:
                end[health + fate[0]] += 1


@njit(**KERNEL)
def _mc_kernel(first, last, cmb, side, rule, cap, astates, trials, states, outcome, rounds,
               standing, tail, hits, loser_dead, loser_fate, loser_fate_sq, fates, fates_sq, end):
    """Whole fights of work items ``first .. last - 1`` (one thread's block:
    :func:`engines.blocks.run_blocks`), ``trials[item]`` per item; each item fills its own
    row of every histogram (and of ``end``: :func:`_chunk`) from its own scratch arrays."""
    n = cmb.shape[0]
    for item in range(first, last):
        s = states[item].copy()
        a = astates[item].copy()
        dmg = np.zeros(n, dtype=np.int64)
        drama = np.zeros(n, dtype=np.int64)
        acted = np.zeros(n, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        fate = np.zeros(n, dtype=np.int64)
        up = np.zeros(2, dtype=np.int64)
        size = np.zeros(2, dtype=np.int64)
        cnt = np.zeros((2, 4), dtype=np.int64)
        o = np.zeros(3, dtype=np.int64)
        rd = np.zeros((cap + 1, 3), dtype=np.int64)
        st = np.zeros((cap + 1, 2), dtype=np.int64)
        tl = np.zeros((cap + 1, 2), dtype=np.int64)
        h = np.zeros(hits.shape[1], dtype=np.int64)
        ld = np.zeros(2, dtype=np.int64)
        lf = np.zeros((2, 3), dtype=np.int64)
        lfs = np.zeros((2, 3), dtype=np.int64)
        fs = np.zeros((2, 4), dtype=np.int64)
        fss = np.zeros((2, 4), dtype=np.int64)
        _chunk(s, a, cmb, side, rule, cap, trials[item], dmg, drama, acted, key, order, fate,
               up, size, cnt, o, rd, st, tl, h, ld, lf, lfs, fs, fss, end[item])
        put(outcome[item], o)
        put(rounds[item], rd)
        put(standing[item], st)
        put(tail[item], tl)
        put(hits[item], h)
        put(loser_dead[item], ld)
        put(loser_fate[item], lf)
        put(loser_fate_sq[item], lfs)
        put(fates[item], fs)
        put(fates_sq[item], fss)


#: Spawn key appended to the user's seed for the aftermath's own random stream.
_AFTERMATH_STREAM = 0xAF7E
#: The histograms of :func:`_mc_kernel`, in its argument order.
_FIELDS = ("outcome", "rounds", "standing", "tail", "hits", "loser_dead", "loser_fate",
           "loser_fate_sq", "fates", "fates_sq")


def duel_mc_end(a: Combatant, b: Combatant, start_damage: int, trials: int,
                seed: Seed = None, variants: Variants = DEFAULT,
                round_cap: int = ROUND_CAP) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started with
    ``start_damage`` against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able with ``d`` damage (``d < 3 × Vigor``), then dead, dying, out at
    ``3 × Vigor + 1..3``."""
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    health = 3 * a.vigor
    start_damage = check_start_damage(start_damage, health)
    cmb = np.stack([a.row(), b.row()])
    cmb[0, START] = start_damage
    side = np.array([0, 1], dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    ss = normalize_seed(seed)
    astates = chunk_states(np.random.SeedSequence(ss.entropy, spawn_key=(
        *ss.spawn_key, _AFTERMATH_STREAM), pool_size=ss.pool_size), n_chunks)
    _, sums = run_chunks(_mc_kernel, (cmb, side, variants.rule(), np.int64(round_cap),
                                      astates), SYSTEM, trials, ss, round_cap, _FIELDS,
                         end_columns=health + 4)
    return sums["end"]


def fight_mc(side0: list[Combatant], side1: list[Combatant], trials: int = 100_000,
             seed: Seed = None, variants: Variants = DEFAULT,
             round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (B1, B3, B4, B6–B11, B-g4…B-g14) with the
    lethality outcomes of the ``aftermath`` variant (fates, loser_fate, loser_dead, deaths).

    Examples
    --------
    >>> a = Combatant(trait=4, combat=4, dice="M")
    >>> int(fight_mc([a], [a, a], trials=1000, seed=1).outcome.sum())
    1000
    """
    s0 = check_side(side0, "side 0", Combatant, SYSTEM)
    s1 = check_side(side1, "side 1", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    rule = variants.rule()
    cmb = np.stack([c.row() for c in s0 + s1])
    side = np.array([0] * len(s0) + [1] * len(s1), dtype=np.int64)
    n_chunks, _ = plan_chunks(trials)
    ss = normalize_seed(seed)
    astates = chunk_states(np.random.SeedSequence(ss.entropy, spawn_key=(
        *ss.spawn_key, _AFTERMATH_STREAM), pool_size=ss.pool_size), n_chunks)
    out, sums = run_chunks(_mc_kernel, (cmb, side, rule, np.int64(round_cap), astates),
                           SYSTEM, trials, ss, round_cap, _FIELDS)
    merge_standing(out.standing, sums["tail"], np.array([len(s0), len(s1)]), trials)
    out.deaths[:] = out.fates[:, F_DEAD]
    out.notes.update(_NOTES)
    return out


def duel_mc(a: Combatant, b: Combatant, trials: int = 100_000, seed: Seed = None,
            variants: Variants = DEFAULT, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo of a 1-vs-1 fight (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


_NOTES = {"death": "the seed has no death rule (B9 dying = unconscious, 'risco de morte'): "
          "deaths come only from the aftermath (B-g10 untreated dying, B-g11 finish)",
          "b11": "B11 temporary vs consolidated damage only matters after rest; one fight "
          "tracks one damage total"}


# ---------------------------------------------------------------- exact


_ALL = np.array(np.meshgrid(np.arange(1, 11), np.arange(1, 11), np.arange(1, 11),
                            indexing="ij")).reshape(3, -1)
_LO, _HI = _ALL.min(0), _ALL.max(0)
_MID = _ALL.sum(0) - _LO - _HI


def _special_all(doubles: bool) -> np.ndarray:
    if not doubles:
        return np.zeros(1000, dtype=np.int64)
    tens, ones = (_ALL == 10).sum(0), (_ALL == 1).sum(0)
    return np.where(tens >= 2, 1, np.where(ones >= 2, 2, 0))


def _hit_pmf(mod, defense, mask, bonus, crit, kept, sp, n_bins):
    """P(damage = d) over d = 0..n_bins-1 of one roll (0 = miss)."""
    hit = (sp == 1) | ((sp == 0) & (kept + mod >= defense))
    d = _LO * (mask & 1) + _MID * ((mask >> 1) & 1) + _HI * ((mask >> 2) & 1) + bonus
    d = d + crit * (sp == 1)
    pmf = np.bincount(np.where(hit, d, 0), minlength=n_bins).astype(float) / 1000.0
    return pmf


def _attack_table(att: Combatant, tgt: Combatant, variants: Variants, n_bins: int) -> np.ndarray:
    """T[att_state, tgt_state, flat, use, spent, d]: one attack's outcome by the health
    states (B9), flat-footedness (B6), drama use (B4, B-g7)."""
    sp = _special_all(variants.doubles)
    t = np.zeros((3, 3, 2, 2, 2, n_bins))
    for ia, pa in enumerate(PENALTY):
        for it, pt in enumerate(PENALTY):
            for flat in (0, 1):
                mod = att.trait + att.combat - pa
                defense = tgt.defense - pt - FLAT_FOOTED * flat
                args = (mod, defense, att.mask, att.damage_bonus, variants.crit_bonus)
                normal = _hit_pmf(*args, _MID, sp, n_bins)
                adv = _hit_pmf(*args, _HI, sp, n_bins)
                t[ia, it, flat, 0, 0] = normal
                if variants.drama_timing == "before":
                    t[ia, it, flat, 1, 1] = adv
                else:
                    t[ia, it, flat, 1, 0] = normal
                    t[ia, it, flat, 1, 0, 0] = 0.0
                    t[ia, it, flat, 1, 1] = normal[0] * adv
    return t


def _massive_pass(vigor: int, variants: Variants) -> float:
    """B10 / B-g6: P(passing the difficulty-12 check)."""
    sp = _special_all(variants.doubles)
    total = _MID + (vigor if variants.massive_traits == "c_plus_vigor" else 0)
    return float(((sp == 1) | ((sp == 0) & (total >= MASSIVE_DIFFICULTY))).mean())


def _check_pass(mod: int, difficulty: int, doubles: bool) -> float:
    """B1 + B3: P(C + ``mod`` ≥ ``difficulty``), two 10s always pass, two 1s never."""
    sp = _special_all(doubles)
    return float(((sp == 1) | ((sp == 0) & (_MID + mod >= difficulty))).mean())


def _kill_chance(att: Combatant, tgt: Combatant, penalty: int, flat: bool,
                 variants: Variants) -> float:
    """Aftermath ``finish``: P(one strike kills the dying ``tgt``) (B-g11, B-g12), the
    attacker carrying its own wound ``penalty`` (B9); ``flat``: ``tgt`` never acted (B6)."""
    sp = _special_all(variants.doubles)
    if variants.helpless_defense == "auto_hit":
        hit = np.ones(1000, dtype=bool)
    else:
        defense = tgt.defense - HELPLESS_PENALTY - FLAT_FOOTED * int(flat)
        hit = (sp == 1) | ((sp == 0) & (_MID + att.trait + att.combat - penalty >= defense))
    mask = att.mask
    d = _LO * (mask & 1) + _MID * ((mask >> 1) & 1) + _HI * ((mask >> 2) & 1)
    d = d + att.damage_bonus + variants.crit_bonus * (sp == 1)
    if variants.dying_damage == "any":
        return float((hit & (d > 0)).mean())
    return float((hit & (d >= tgt.vigor)).mean()) * (1.0 - _massive_pass(tgt.vigor, variants))


def fate_probs(winner: Combatant, loser: Combatant, variants: Variants = DEFAULT,
               penalty: int = 0, flat: bool = False) -> np.ndarray:
    """Lethality outcomes of one dying ``loser`` (B9/B10) of a 1-vs-1 fight:
    P(dead), P(dying), P(out) once the ``aftermath`` is over (exact).

    ``leave``: B-g10 (``untreated_dying``); ``first_aid``: ``aid_tries`` checks of C +
    ``aid_total`` ≥ ``aid_difficulty`` (B-g14), a success stabilises (out); ``finish``: up
    to ``finish_rounds`` strikes of ``winner`` (wound ``penalty``, B9) each killing with
    :func:`_kill_chance` (B-g11…B-g13). Whatever help fails leaves the fighter to B-g10.
    """
    variants.check()
    untreated = np.array([f == variants.untreated_dying for f in FATES], dtype=float)
    if variants.aftermath == "leave":
        return untreated
    if variants.aftermath == "first_aid":
        q = _check_pass(variants.aid_total, variants.aid_difficulty, variants.doubles)
        p = 1.0 - (1.0 - q) ** variants.aid_tries
        return p * np.array([0.0, 0.0, 1.0]) + (1.0 - p) * untreated
    k = _kill_chance(winner, loser, penalty, flat, variants)
    p = 1.0 - (1.0 - k) ** variants.finish_rounds
    return p * np.array([1.0, 0.0, 0.0]) + (1.0 - p) * untreated


def attack_damage(attacker: Combatant, target: Combatant, variants: Variants = DEFAULT,
                  flat_footed: bool = False, drama: bool = False) -> np.ndarray:
    """Exact damage distribution of one attack (B1, B3, B4, B6–B8); index 0 = miss.

    ``flat_footed`` lowers the target's Defense by 3 (B6); ``drama`` spends a drama point
    as the variant ``drama_timing`` says (B4, B-g7). Both are at full health.
    """
    n_bins = 3 * 10 + 40 + variants.crit_bonus + 1
    t = _attack_table(attacker, target, variants, n_bins)
    pmf = t[0, 0, int(flat_footed), int(drama)].sum(axis=0)
    return np.trim_zeros(pmf, "b")


@njit(**JIT)
def _half_step(prob, table, flat, tactic, va, vt, q_massive, new, hits, down_by):
    """One attack (attacker axis 0 / 2, target axis 1 / 3) on every live state.

    ``prob[da, dt, pa, pt]``; writes the surviving mass to ``new`` and returns the mass
    whose target fell to dying (B9, B10), also added to ``down_by[attacker health state]``
    (its wound penalty carries into the aftermath).
    """
    n_a, n_t, n_pa, n_pt = prob.shape
    n_bins = table.shape[5]
    down = 0.0
    for da in range(n_a):
        ia = 0 if da < va else (1 if da < 2 * va else 2)
        for pa in range(n_pa):
            use = 1 if (pa > 0 and (tactic == 1 or (tactic == 2 and da >= va))) else 0
            for dt in range(n_t):
                it = 0 if dt < vt else (1 if dt < 2 * vt else 2)
                for pt in range(n_pt):
                    m = prob[da, dt, pa, pt]
                    if m == 0.0:
                        continue
                    for spent in range(2):
                        pa2 = pa - spent
                        for d in range(n_bins):
                            p = table[ia, it, flat, use, spent, d]
                            if p == 0.0:
                                continue
                            w = m * p
                            if d > 0:
                                hits[min(d, hits.shape[0] - 1)] += w
                            dt2 = dt + d
                            if dt2 >= 3 * vt:
                                down += w
                                down_by[ia] += w
                            elif d >= vt:
                                new[da, dt2, pa2, pt] += w * q_massive
                                down += w * (1.0 - q_massive)
                                down_by[ia] += w * (1.0 - q_massive)
                            else:
                                new[da, dt2, pa2, pt] += w
    return down


def _p_first(a: Combatant, b: Combatant, variants: Variants) -> float:
    """B-g4: P(a acts before b): initiative, ties to the higher reflex, then a coin."""
    if variants.initiative == "reflex":
        ia, ib = np.array([a.reflex]), np.array([b.reflex])
        wa = wb = np.array([1.0])
    else:
        pm = np.bincount(_MID, minlength=11)[1:] / 1000.0
        ia, ib = np.arange(1, 11) + a.reflex, np.arange(1, 11) + b.reflex
        wa = wb = pm
    joint = wa[:, None] * wb[None, :]
    diff = ia[:, None] - ib[None, :]
    tie = joint[diff == 0].sum()
    share = 1.0 if a.reflex > b.reflex else 0.0 if a.reflex < b.reflex else 0.5
    return float(joint[diff > 0].sum() + tie * share)


def duel_exact(a: Combatant, b: Combatant, variants: Variants = DEFAULT,
               round_cap: int = ROUND_CAP, start_damage: int = 0,
               end_a: np.ndarray | None = None) -> FightStats:
    """Exact 1-vs-1 fight as an absorbing Markov chain (B1, B3, B4, B6–B11, B-g4…B-g14).

    The state is (damage of a, damage of b, drama of a, drama of b); who has acted
    (flat-footed, B6) is the same in every live state, given the initiative order and the
    round, so the chain is run once per order and mixed by P(order). A surprise round is
    round 0 (B6, not counted against the cap). The mass absorbed when the loser falls is
    split by the winner's health state (B9) and the loser's flat-footedness (B6), and the
    aftermath turns it into fates in closed form (:func:`fate_probs`).

    Campaign attrition: ``start_damage`` is the damage ``a`` has already taken; when
    ``end_a`` (length 3 × a's Vigor) is given, P(``a`` ends the fight able — it won, or
    the round cap stopped the fight — with damage ``d``) is added to ``end_a[d]`` (an
    attack never changes its attacker's damage, so ``a``'s wins are the mass its attacks
    remove, by ``a``'s damage).
    """
    check_side([a], "a", Combatant, SYSTEM)
    check_side([b], "b", Combatant, SYSTEM)
    round_cap = check_round_cap(round_cap)
    variants.check()
    start_damage = check_start_damage(start_damage, 3 * a.vigor)
    out = FightStats.empty(SYSTEM, round_cap, None, dtype=float)
    p_a = _p_first(a, b, variants)
    surprise_a = a.aware and not b.aware
    surprise_b = b.aware and not a.aware
    n_bins = 3 * 10 + 40 + variants.crit_bonus + 1
    tab = {0: _attack_table(a, b, variants, n_bins), 1: _attack_table(b, a, variants, n_bins)}
    qm = {0: _massive_pass(b.vigor, variants), 1: _massive_pass(a.vigor, variants)}
    cmb = (a, b)
    fate = {(att, ia, flat): fate_probs(cmb[att], cmb[1 - att], variants, pen, bool(flat))
            for att in (0, 1) for ia, pen in enumerate(PENALTY) for flat in (0, 1)}
    hits = np.zeros(DAMAGE_BINS)
    for first, weight in ((0, p_a), (1, 1.0 - p_a)):
        if weight == 0.0:
            continue
        # prob axes: damage a, damage b, drama a, drama b
        prob = np.zeros((3 * a.vigor, 3 * b.vigor, a.drama + 1, b.drama + 1))
        prob[start_damage, 0, a.drama, b.drama] = weight
        acted = [False, False]
        lost = [0.0, 0.0]
        out.standing[0] += weight
        surprise = surprise_a or surprise_b
        for r in range(0 if surprise else 1, round_cap + 1):
            order = [first, 1 - first]
            if r == 0:
                order = [0] if surprise_a else [1]
            for att in order:
                tgt = 1 - att
                flat = int(not acted[tgt])
                view = prob if att == 0 else np.ascontiguousarray(prob.transpose(1, 0, 3, 2))
                new = np.zeros_like(view)
                down_by = np.zeros(3)
                down = _half_step(view, tab[att], flat, TACTICS[cmb[att].drama_tactic],
                                  cmb[att].vigor, cmb[tgt].vigor, qm[att], new, hits, down_by)
                if end_a is not None and att == 0:
                    end_a += view.sum(axis=(1, 2, 3)) - new.sum(axis=(1, 2, 3))
                prob = new if att == 0 else np.ascontiguousarray(new.transpose(1, 0, 3, 2))
                acted[att] = True
                out.outcome[att] += down
                out.rounds[r, att] += down
                lost[tgt] += down
                for ia in range(3):
                    f = down_by[ia] * fate[att, ia, flat]
                    out.loser_fate[att] += f
                    out.fates[tgt, 1:] += f
                    out.fates[att, 0] += down_by[ia]
                    out.loser_dead[att] += f[0]
            if r > 0:
                out.standing[r] += [weight - lost[0], weight - lost[1]]
        alive = prob.sum()
        out.outcome[2] += alive
        out.rounds[round_cap, 2] += alive
        out.fates[:, 0] += alive
        if end_a is not None:
            end_a += prob.sum(axis=(1, 2, 3))
    out.hits[:] = hits
    out.loser_fate_sq[:] = out.loser_fate  # one loser per duel: counts are 0 or 1
    out.fates_sq[:] = out.fates
    out.deaths[:] = out.fates[:, 1]
    out.notes.update(_NOTES)
    return out


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None,
            flat_footed: bool = False) -> dict:
    """What one attack does to an unhurt target (B1, B3, B6–B10, lethality outcomes).

    ``p_hit``: the attack succeeds (B7, B3); ``p_incapacitate``: the target cannot act
    any more — the damage reaches 3 × Vigor (dying, B9), or reaches Vigor and the massive
    damage check fails (B10, B-g6); ``p_kill``: 0 — the hit itself never kills (the seed
    has no death rule: dying is unconscious with risk of death). ``p_dead``, ``p_dying``,
    ``p_out``: the target is dropped and then ends dead / dying / out under the
    ``aftermath`` variant (:func:`fate_probs`, the attacker unhurt; they sum to
    ``p_incapacitate``). ``flat_footed`` as in :func:`attack_damage` (B6).
    """
    v = DEFAULT if variants is None else variants
    p = attack_damage(attacker, target, v, flat_footed=flat_footed)
    d = np.arange(p.size)
    vig = target.vigor
    massive = (d >= vig) & (d < 3 * vig)
    out = float(p[d >= 3 * vig].sum() + p[massive].sum() * (1.0 - _massive_pass(vig, v)))
    fate = out * fate_probs(attacker, target, v, 0, flat_footed)
    return {"p_hit": float(1.0 - p[0]), "p_incapacitate": out, "p_kill": 0.0,
            "p_dead": float(fate[0]), "p_dying": float(fate[1]), "p_out": float(fate[2])}
