"""Whole fights in ``dice_pool_7`` (RULES.md A6–A16, seed 000), Monte Carlo and exact.

Rules, as this module reads them:

- **A6** two actions per turn; a combatant's *tactic* fixes them: ``attack_attack``
  (two attacks), ``attack_dodge`` (a dodge, then one attack), ``focus_attack`` (focus,
  then one attack with **A3**'s +1 die).
- **A7** attack pool = FOR (melee) or DES (ranged) + weapon bonus (+ equipment quality,
  **A5**; + burst dice, **A12**; these modifiers capped to ±5, **A2**) + 2 for the
  specialization − the target's Defense. **A-g1**: a pool of 0 or less rolls the chance
  die (variants of :class:`engines.systems.dice_pool_7.checks.Variants`).
- **A8** Defense = min(DES, SAB) + shield + 2 with athletics − 1 for a heavy weapon
  (**A11**), never below 0.
- **A9** a dodge rolls 2 × Defense dice; its successes remove dice from every attack
  against the dodger *instead of* Defense; **A-g3** (variant ``dodge_lasts``): until the
  start of the dodger's next turn (default) or to the end of the round.
- **A4** willpower = DET + AUT points; a combatant's *willpower policy* spends at most
  one a turn: +3 dice on its (first) attack, or +2 Defense from the start of its turn to
  the start of its next; ``early`` spends whenever it can, ``late`` only once hurt
  (damage ≥ half its vitality).
- **A10** a hit (≥ 1 success) deals successes + weapon damage − the armour rating for
  the damage type (**A13**), never below 0. **A-g4** (variant ``weapon_bonus``): the
  weapon's bonus adds attack dice *and* damage (default) or damage only. Variant
  ``armour_stops`` (A10/A13): armour ignores points of that total damage (default; the
  seed's armour "ignores N points of damage") or cancels successes only, the weapon
  damage added after. Variant ``armour_vs_firearms`` (A13): a firearm meets only the
  ballistic rating (default) or the ballistic + lethal ratings.
- **A12** bursts: short +1 die (one target); medium +2 dice, up to 3 targets; long +3,
  every target; with more than one target, minus one die per target, one attack each.
  **A-g8** (variant ``burst_penalty``, A12 × A2): the burst's +1/+2/+3 is an equipment
  modifier inside the ±5 cap; the seed then says "subtraia o número de alvos do número
  de dados do Teste", so the per-target penalty comes off the capped pool
  (``after_cap``, default) — or inside the cap with the other modifiers.
- **A14** vitality = 2 × CON + 6; bashing and lethal damage are tracked apart; **A-g5**:
  the combatant drops (unconscious) when bashing ≥ vitality − lethal, i.e. when
  bashing + lethal ≥ vitality. **A15**: lethal damage beyond vitality lowers CON
  (variant ``overflow_to_con``: also the excess of the hit that empties vitality);
  CON 0 is death. Nothing else kills in the fight.

Lethality outcomes (RULES.md "Lethality outcomes"; variant ``aftermath``): a fallen
combatant whose vitality is filled by lethal damage is **dying** (A15: "inconsciente e
próximo da morte", further damage lowers CON); one put down by bashing damage with
lethal damage below its vitality is **out** (A14: unconscious, bashing heals in minutes);
CON 0 is **dead**.

- **A-g9** the seed has no bleeding: nothing lowers CON without new damage, and lethal
  damage heals 2 points a day (the seed's healing rates). Variant ``leave_horizon``: the
  aftermath ends with the scene, so a dying fighter left alone stays dying (``scene``,
  default), or after a day, when healing has lifted it out of vitality 0 (``day``:
  every dying fighter ends out).
- **A-g10** the seed has no first-aid or stabilising rule (Medicina is only a mental
  specialization). ``first_aid``: a standing winner makes ``first_aid_tries`` checks
  (default 1) of ``first_aid_dice`` dice (default 2: an average mental attribute, no
  Medicina specialization; A1 with A-g1's chance die at 0) on every dying combatant of
  both sides; one success stabilises it (dying → out).
- **A-g11** the seed gives no Defense for a helpless target. Variant
  ``helpless_defense``: ``zero`` (default: an unconscious target cannot defend) or
  ``full`` (its usual A8 Defense).
- **A-g12** ``finish``: each standing winner, in initiative order, spends both actions
  (A6) on plain attacks (A7 with its single-target pool, A10, A13) at the first fallen
  foe still alive, for at most ``finish_rounds`` rounds (default 10), until every fallen
  foe is dead. Lethal damage fills vitality, then lowers CON (A15, with
  ``overflow_to_con``). Variant ``finish_bashing`` (A11, seed: "o agressor possa escolher
  causar dano letal"): an unarmed finisher chooses lethal damage (``lethal``, default) or
  keeps bashing damage (``bashing``: it can never kill). The winners' own fallen are left.

- **A16** initiative = DES + AUT + the weapon's modifier, static, ties at random;
  **A-g6** (variant ``initiative_roll``): + 1d10 once per fight.

A fight ends when one side has no one able to act (unconscious or dead), or at the round
cap ("neither"). In N-vs-M fights each attack picks a random able enemy (variant
``targeting``), and a medium or long burst takes the first able enemies in order.

Kernel row layout (``int64``, one row per combatant, built by :func:`rows`): see the
``C_*`` constants; the kernel reads nothing else.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_pools import (
    DEAD,
    DYING,
    OUT,
    STANDING,
    DuelChain,
    attack_op,
    book_fates,
    check_variants,
    finish_chain,
    finish_duel,
    mix,
    run_fight,
    run_mc_end,
)
from engines.config import INLINE, KERNEL, LEAF
from engines.errors import InputError
from engines.fight import (
    AFTERMATHS,
    DAMAGE_BINS,
    ROUND_CAP,
    FightStats,
    check_round_cap,
    check_start_damage,
)
from engines.rng import Seed, bounded, d10
from engines.rolls import roll_pool
from engines.systems.dice_pool_7 import checks as _checks
from engines.variants import variant

SYSTEM = _checks.SYSTEM

TACTICS = ("attack_attack", "attack_dodge", "focus_attack")
WILLPOWER_POLICIES = ("none", "attack_early", "attack_late", "defense_early", "defense_late")
DAMAGE_TYPES = ("bashing", "lethal", "ballistic")
BURSTS = ("none", "short", "medium", "long")
BURST_DICE = (0, 1, 2, 3)  # A12
BURST_TARGETS = (1, 1, 3, 1 << 30)  # A12: medium up to 3 adjacent targets, long any number

ATTACK_ATTACK, ATTACK_DODGE, FOCUS_ATTACK = 0, 1, 2
WP_NONE, WP_ATTACK_EARLY, WP_ATTACK_LATE, WP_DEFENSE_EARLY, WP_DEFENSE_LATE = range(5)
BASHING, LETHAL, BALLISTIC = 0, 1, 2

# Kernel row columns.
C_ATTR = 0      # FOR or DES + 2 for the specialization (A7)
C_MODS = 1      # weapon bonus (A-g4) + equipment quality (A5), before the A2 cap
C_DMG = 2       # weapon damage (A10)
C_DTYPE = 3     # damage type dealt: 0 bashing, 1 lethal, 2 ballistic
C_DEF = 4       # Defense (A8)
C_INIT = 5      # initiative (A16)
C_VIT = 6       # vitality (A14)
C_DEATH = 7     # lethal damage beyond vitality that kills (= CON), -1: never (A15)
C_WP = 8        # willpower points (A4)
C_ARMOUR = 9    # columns 9, 10, 11: armour against bashing, lethal, ballistic (A13)
C_BURST = 12    # 0 none, 1 short, 2 medium, 3 long (A12)
C_TACTIC = 13   # TACTICS index (A6)
C_WPPOL = 14    # WILLPOWER_POLICIES index (A4)
C_CON = 15      # CON: lethal damage beyond vitality that kills in the aftermath (A15)
C_START = 16    # lethal damage already taken when the fight starts (campaign attrition)
N_COLS = 17

MODIFIER_CAP = _checks.MODIFIER_CAP


@dataclass(frozen=True)
class Variants(_checks.Variants):
    """Combat variants of ``dice_pool_7``: the check variants (A1, A-g1, A-g2) plus these."""

    system: ClassVar[str] = SYSTEM
    dodge_lasts: str = variant("next_turn", rule="A-g3", doc="a dodge protects until the "
                               "start of the dodger's next turn, or only to the end of the "
                               "round", choices=("next_turn", "end_of_round"))
    weapon_bonus: str = variant("both", rule="A-g4", doc="the weapon's +1/+2 adds attack dice "
                                "and damage (literal), or damage only",
                                choices=("both", "damage"))
    initiative_roll: bool = variant(False, rule="A-g6", doc="initiative adds 1d10 once per "
                                    "fight (Chronicles); default static, ties at random")
    overflow_to_con: bool = variant(True, rule="A15", doc="lethal damage beyond vitality "
                                    "from the hit that empties it already lowers CON "
                                    "(false: only later hits, so a fight never kills)")
    armour_vs_bashing: str = variant("ignored", rule="A13", doc="armour against bashing "
                                     "damage: ignored (the seed lists lethal and ballistic "
                                     "only) or its lethal rating",
                                     choices=("ignored", "lethal"))
    armour_vs_firearms: str = variant("ballistic", rule="A13", doc="armour against "
                                      "firearm (ballistic) damage: its ballistic rating "
                                      "only (the table read type by type), or ballistic + "
                                      "lethal (a bullet is lethal damage too)",
                                      choices=("ballistic", "ballistic_and_lethal"))
    armour_stops: str = variant("damage", rule="A10", doc="armour ignores points of the "
                                "damage (successes + weapon; the seed's armour ignores "
                                "points of damage) or cancels successes only, the weapon "
                                "damage added after", choices=("damage", "successes"))
    targeting: str = variant("random", rule="A6", doc="N-vs-M: each attack picks a random "
                             "able enemy, or the first able one (focus fire)",
                             choices=("random", "first"))
    burst_penalty: str = variant("after_cap", rule="A-g8", doc="a multi-target burst's "
                                 "-1 die per target comes off the pool after the +/-5 "
                                 "modifier cap (the seed subtracts the targets from the "
                                 "test's dice) or inside the cap",
                                 choices=("after_cap", "inside_cap"))
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="what happens to the "
                             "fallen when a fight is won: leave them, first aid (A-g10), or "
                             "the winners finish them (A-g12)", choices=AFTERMATHS)
    leave_horizon: str = variant("scene", rule="A-g9", doc="a dying fighter left alone stays "
                                 "dying to the end of the scene, or after a day has healed "
                                 "out of vitality 0 (ends out)", choices=("scene", "day"))
    first_aid_dice: int = variant(2, rule="A-g10", doc="dice of the aider's first-aid check "
                                  "(one success stabilises a dying fighter)",
                                  choices=range(0, 21))
    first_aid_tries: int = variant(1, rule="A-g10", doc="first-aid checks per dying fighter",
                                   choices=range(1, 11))
    helpless_defense: str = variant("zero", rule="A-g11", doc="Defense of a fallen, helpless "
                                    "target: zero, or its full Defense",
                                    choices=("zero", "full"))
    finish_rounds: int = variant(10, rule="A-g12", doc="rounds the winners spend finishing "
                                 "fallen foes (two attacks each a round)",
                                 choices=range(1, 101))
    finish_bashing: str = variant("lethal", rule="A11", doc="an unarmed finisher chooses "
                                  "lethal damage (the seed allows it) or keeps bashing "
                                  "damage (it cannot kill)", choices=("lethal", "bashing"))


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A11: attack/damage bonus, initiative and Defense modifiers, damage type, reach."""

    name: str
    bonus: int
    initiative: int = 0
    defense: int = 0
    damage_type: str = "lethal"
    ranged: bool = False
    automatic: bool = False


@dataclass(frozen=True)
class Armour:
    """A13: damage ignored by type, and the Defense it adds (a shield: +1)."""

    name: str
    lethal: int = 0
    ballistic: int = 0
    defense: int = 0


UNARMED = Weapon("unarmed", 0, damage_type="bashing")
NO_ARMOUR = Armour("none")


@dataclass(frozen=True)
class Combatant:
    """A ``dice_pool_7`` combatant: traits, gear and how it fights (plain values only)."""

    name: str
    FOR: int
    DES: int
    SAB: int
    CON: int
    DET: int
    AUT: int
    weapon: Weapon = UNARMED
    armour: Armour = NO_ARMOUR
    specialized: bool = False
    athletics: bool = False
    quality: int = 0
    burst: str = "none"
    tactic: str = "attack_attack"
    willpower: str = "none"

    def check(self) -> None:
        for trait in ("FOR", "DES", "SAB", "CON", "DET", "AUT"):
            value = getattr(self, trait)
            if not 0 <= value <= 10:
                raise InputError(f"{self.name}: {trait} must be 0..10, got {value}")
        if self.CON < 1:
            raise InputError(f"{self.name}: CON must be at least 1, got {self.CON}")
        if self.tactic not in TACTICS:
            raise InputError(f"{self.name}: unknown tactic {self.tactic!r}; known: "
                             + ", ".join(TACTICS))
        if self.willpower not in WILLPOWER_POLICIES:
            raise InputError(f"{self.name}: unknown willpower policy {self.willpower!r}; "
                             "known: " + ", ".join(WILLPOWER_POLICIES))
        if self.burst not in BURSTS:
            raise InputError(f"{self.name}: unknown burst {self.burst!r}; known: "
                             + ", ".join(BURSTS))
        if self.burst != "none" and not (self.weapon.ranged and self.weapon.automatic):
            raise InputError(f"{self.name}: bursts need an automatic ranged weapon, "
                             f"not {self.weapon.name!r}")
        if self.weapon.damage_type not in DAMAGE_TYPES:
            raise InputError(f"{self.name}: weapon damage type must be one of "
                             + ", ".join(DAMAGE_TYPES))
        if self.quality not in _checks.EQUIPMENT_DICE.values():
            raise InputError(f"{self.name}: quality must be 0, 1 or 2, got {self.quality}")

    @property
    def vitality(self) -> int:
        """A14: 2 × CON + 6."""
        return 2 * self.CON + 6

    @property
    def willpower_points(self) -> int:
        """A4: DET + AUT."""
        return self.DET + self.AUT

    @property
    def defense(self) -> int:
        """A8 (+ A11's heavy-weapon −1), never below 0."""
        return max(0, min(self.DES, self.SAB) + self.armour.defense + 2 * self.athletics
                   + self.weapon.defense)

    @property
    def initiative(self) -> int:
        """A16: DES + AUT + the weapon's initiative modifier."""
        return self.DES + self.AUT + self.weapon.initiative


def row(c: Combatant, v: Variants = DEFAULT) -> np.ndarray:
    """The kernel row of one combatant under variants ``v`` (layout: ``C_*``)."""
    c.check()
    r = np.zeros(N_COLS, dtype=np.int64)
    attr = c.DES if c.weapon.ranged else c.FOR
    r[C_ATTR] = attr + _checks.SPECIALIZATION_DICE * c.specialized
    r[C_MODS] = (c.weapon.bonus if v.weapon_bonus == "both" else 0) + c.quality
    r[C_DMG] = c.weapon.bonus
    r[C_DTYPE] = DAMAGE_TYPES.index(c.weapon.damage_type)
    r[C_DEF] = c.defense
    r[C_INIT] = c.initiative
    r[C_VIT] = c.vitality
    r[C_DEATH] = c.CON if v.overflow_to_con else -1
    r[C_WP] = c.willpower_points
    r[C_ARMOUR + BASHING] = c.armour.lethal if v.armour_vs_bashing == "lethal" else 0
    r[C_ARMOUR + LETHAL] = c.armour.lethal
    r[C_ARMOUR + BALLISTIC] = c.armour.ballistic + (
        c.armour.lethal if v.armour_vs_firearms == "ballistic_and_lethal" else 0)
    r[C_BURST] = BURSTS.index(c.burst)
    r[C_TACTIC] = TACTICS.index(c.tactic)
    r[C_WPPOL] = WILLPOWER_POLICIES.index(c.willpower)
    r[C_CON] = c.CON
    return r


def rows(combatants: list[Combatant], v: Variants = DEFAULT) -> np.ndarray:
    return np.stack([row(c, v) for c in combatants]) if combatants else \
        np.zeros((0, N_COLS), dtype=np.int64)


def _rule(v: Variants) -> np.ndarray:
    pr = v.rule().as_array()
    extra = [int(v.dodge_lasts == "end_of_round"), int(v.initiative_roll),
             int(v.targeting == "first"), int(v.armour_stops == "successes"),
             AFTERMATHS.index(v.aftermath), int(v.leave_horizon == "day"), v.first_aid_dice,
             v.first_aid_tries, int(v.helpless_defense == "full"), v.finish_rounds,
             int(v.finish_bashing == "lethal"), int(v.burst_penalty == "inside_cap")]
    return np.concatenate([pr, np.array(extra, dtype=np.int64)])


# Rule array: 0..4 the pool rule (engines.pools.PoolRule.as_array), then these.
R_DODGE_END_OF_ROUND, R_INIT_D10, R_TARGET_FIRST, R_ARMOUR_SUCCESSES = 5, 6, 7, 8
R_AFTERMATH, R_HORIZON_DAY, R_AID_DICE, R_AID_TRIES, R_HELPLESS_FULL = 9, 10, 11, 12, 13
R_FINISH_ROUNDS, R_FINISH_LETHAL, R_BURST_INSIDE_CAP = 14, 15, 16
AFTER_LEAVE, AFTER_FIRST_AID, AFTER_FINISH = 0, 1, 2


# ---------------------------------------------------------------------------------------
# Monte Carlo kernel


@njit(**INLINE)
def _roll(s, n, rule):
    """Successes of a pool of ``n`` dice (A1, A-g1); a dramatic failure counts none."""
    code = roll_pool(s, n, rule[0], rule[1], rule[2], rule[3], rule[4])
    return code - 1 if code > 0 else 0


@njit(**INLINE)
def _pick_target(s, side, able, enemy, n_enemy, first):
    """The ``j``-th able combatant of side ``enemy``: random (or the first)."""
    j = 0
    if first == 0 and n_enemy > 1:
        j = bounded(s, n_enemy)
    for t in range(side.size):
        if side[t] == enemy and able[t] == 1:
            if j == 0:
                return t
            j -= 1
    return -1


@njit(**LEAF)
def _strike(s, rows, rule, c, t, dice, lethal_dmg, bash_dmg, con_dmg, able, dead,
            dodging, dodge_succ, boost, n_able, side, acc, hits_off):
    """One attack of ``c`` on ``t`` with ``dice`` before the target's defence (A7–A10)."""
    pool = dice
    if dodging[t] == 1:
        pool -= dodge_succ[t]  # A9: instead of Defense
    else:
        pool -= rows[t, C_DEF] + 2 * boost[t]  # A8, A4
    succ = _roll(s, pool, rule)
    if succ == 0:
        return
    dtype = rows[c, C_DTYPE]
    armour = rows[t, C_ARMOUR + dtype]  # A13
    if rule[R_ARMOUR_SUCCESSES] != 0:  # variant: armour cancels successes only
        dmg = max(succ - armour, 0) + rows[c, C_DMG]
    else:  # A10: armour ignores points of successes + weapon damage
        dmg = max(succ + rows[c, C_DMG] - armour, 0)
    acc[hits_off + min(dmg, DAMAGE_BINS - 1)] += 1
    if able[t] == 1 and _wound(t, dmg, dtype, rows[t, C_VIT], rows[t, C_DEATH], lethal_dmg,
                               bash_dmg, con_dmg, dead):
        able[t] = 0
        n_able[side[t]] -= 1


@njit(**INLINE)
def _wound(t, dmg, dtype, vit, death, lethal_dmg, bash_dmg, con_dmg, dead):
    """A14, A15, A-g5: book ``dmg`` of type ``dtype`` on ``t``; True when ``t`` is down.

    Bashing and lethal (or ballistic) damage are tracked apart; ``t`` is down when
    bashing + lethal reaches its vitality ``vit``. Lethal damage beyond vitality lowers
    CON (``con_dmg``); ``t`` is dead when that reaches ``death`` (-1: never).
    """
    if dtype == BASHING:
        bash_dmg[t] += dmg
    else:
        lethal_dmg[t] += dmg
        if lethal_dmg[t] > vit:  # A15: beyond vitality, damage lowers CON
            over = lethal_dmg[t] - vit
            lethal_dmg[t] = vit
            if death >= 0:
                con_dmg[t] += over
                if con_dmg[t] >= death:
                    dead[t] = 1
    return dead[t] == 1 or lethal_dmg[t] + bash_dmg[t] >= vit


@njit(**INLINE)
def _fallen_fate(t, rows, lethal_dmg, dead):
    """A15: dead at CON 0; dying when lethal damage fills vitality; else out (A14)."""
    if dead[t] == 1:
        return DEAD
    if lethal_dmg[t] >= rows[t, C_VIT]:
        return DYING
    return OUT


@njit(**INLINE)
def _helpless_dice(rows, c):
    """A7 with A2, A5, A12 for one target: the attack dice of ``c`` on a helpless foe."""
    mods = min(max(rows[c, C_MODS] + BURST_DICE[rows[c, C_BURST]], -MODIFIER_CAP),
               MODIFIER_CAP)
    return rows[c, C_ATTR] + mods


@njit(**LEAF)
def _finish_blow(s2, rows, rule, c, t, lethal_dmg, bash_dmg, con_dmg, dead):
    """A-g11, A-g12: one plain attack of ``c`` on the helpless ``t`` (A7, A10, A13, A15)."""
    pool = _helpless_dice(rows, c)
    if rule[R_HELPLESS_FULL] != 0:
        pool -= rows[t, C_DEF]
    succ = _roll(s2, pool, rule)
    if succ == 0:
        return
    dtype = rows[c, C_DTYPE]
    if dtype == BASHING and rule[R_FINISH_LETHAL] != 0:  # A11: the attacker chooses lethal
        dtype = LETHAL
    armour = rows[t, C_ARMOUR + dtype]
    if rule[R_ARMOUR_SUCCESSES] != 0:
        dmg = max(succ - armour, 0) + rows[c, C_DMG]
    else:
        dmg = max(succ + rows[c, C_DMG] - armour, 0)
    if dtype == BASHING:
        bash_dmg[t] += dmg  # bashing damage never kills (A14)
        return
    vit = rows[t, C_VIT]
    if lethal_dmg[t] < vit and rows[t, C_DEATH] < 0:  # overflow_to_con off: excess lost
        lethal_dmg[t] = min(lethal_dmg[t] + dmg, vit)
        return
    lethal_dmg[t] += dmg
    if lethal_dmg[t] > vit:  # A15: beyond vitality, damage lowers CON; CON 0 is death
        con_dmg[t] += lethal_dmg[t] - vit
        lethal_dmg[t] = vit
        if con_dmg[t] >= rows[t, C_CON]:
            dead[t] = 1


@njit(**LEAF)
def _aftermath(s2, rows, side, rule, winner, order, lethal_dmg, bash_dmg, con_dmg, able,
               dead, fate):
    """Lethality outcomes, A-g9..A-g12: every combatant's fate after the aftermath."""
    n = rows.shape[0]
    for i in range(n):
        fate[i] = STANDING if able[i] == 1 else _fallen_fate(i, rows, lethal_dmg, dead)
    policy = rule[R_AFTERMATH] if winner >= 0 else AFTER_LEAVE  # the cap: leave
    if policy == AFTER_FIRST_AID:  # A-g10: every dying combatant, either side
        for i in range(n):
            if fate[i] == DYING:
                for _ in range(rule[R_AID_TRIES]):
                    if _roll(s2, rule[R_AID_DICE], rule) > 0:
                        fate[i] = OUT
                        break
    elif policy == AFTER_FINISH:  # A-g12: the standing winners strike the fallen foes
        loser = 1 - winner
        done = False
        for _r in range(rule[R_FINISH_ROUNDS]):
            for oi in range(n):
                c = order[oi]
                if side[c] != winner or able[c] == 0:
                    continue
                for _a in range(2):  # A6: both actions are attacks
                    t = -1
                    for u in range(n):
                        if side[u] == loser and fate[u] != DEAD:
                            t = u
                            break
                    if t < 0:
                        done = True
                        break
                    _finish_blow(s2, rows, rule, c, t, lethal_dmg, bash_dmg, con_dmg, dead)
                    fate[t] = _fallen_fate(t, rows, lethal_dmg, dead)
                if done:
                    break
            if done:
                break
    if rule[R_HORIZON_DAY] != 0:  # A-g9: a day's healing lifts the dying out of danger
        for i in range(n):
            if fate[i] == DYING:
                fate[i] = OUT


@njit(**LEAF)
def _fight(s, s2, rows, side, rule, cap, acc, off, lethal_dmg, bash_dmg, con_dmg, wp, able,
           dead, dodging, dodge_succ, boost, order, ini, targets, n_able, fate, cnt):
    n = rows.shape[0]
    for sd in range(2):
        n_able[sd] = 0
    for i in range(n):
        lethal_dmg[i] = rows[i, C_START]
        bash_dmg[i] = 0
        con_dmg[i] = 0
        wp[i] = rows[i, C_WP]
        able[i] = 1
        dead[i] = 0
        dodging[i] = 0
        dodge_succ[i] = 0
        boost[i] = 0
        n_able[side[i]] += 1
        ini[i] = rows[i, C_INIT] + (d10(s) if rule[R_INIT_D10] != 0 else 0)  # A16, A-g6
    # Initiative order: descending, ties shuffled (insertion sort, then Fisher-Yates per run).
    for i in range(n):
        order[i] = i
    for i in range(1, n):
        x = order[i]
        j = i - 1
        while j >= 0 and ini[order[j]] < ini[x]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = x
    i = 0
    while i < n:
        j = i
        while j + 1 < n and ini[order[j + 1]] == ini[order[i]]:
            j += 1
        for k in range(j, i, -1):  # shuffle order[i..j]
            m = i + bounded(s, k - i + 1)
            tmp = order[k]
            order[k] = order[m]
            order[m] = tmp
        i = j + 1
    for sd in range(2):
        acc[off[1] + sd] += n_able[sd]  # standing, row 0
    hits_off = off[5]
    winner = -1
    r_end = cap
    for r in range(1, cap + 1):
        for oi in range(n):
            c = order[oi]
            if able[c] == 0:  # the fallen do not act
                continue
            enemy = 1 - side[c]
            if rule[R_DODGE_END_OF_ROUND] == 0:
                dodging[c] = 0  # A-g3: a dodge lasts until the dodger's next turn
            boost[c] = 0
            pol = rows[c, C_WPPOL]
            hurt = 2 * (lethal_dmg[c] + bash_dmg[c]) >= rows[c, C_VIT]
            spent = False
            if wp[c] > 0 and (pol == WP_DEFENSE_EARLY or (pol == WP_DEFENSE_LATE and hurt)):
                wp[c] -= 1  # A4: +2 Defense until the next turn
                boost[c] = 1
                spent = True
            tactic = rows[c, C_TACTIC]
            n_att = 2
            focus = 0
            if tactic == ATTACK_DODGE:  # A9
                dodging[c] = 1
                dodge_succ[c] = _roll(s, 2 * (rows[c, C_DEF] + 2 * boost[c]), rule)
                n_att = 1
            elif tactic == FOCUS_ATTACK:  # A3
                n_att = 1
                focus = 1
            for _a in range(n_att):
                extra = 0
                if not spent and wp[c] > 0 and (pol == WP_ATTACK_EARLY
                                                or (pol == WP_ATTACK_LATE and hurt)):
                    wp[c] -= 1  # A4: +3 dice
                    spent = True
                    extra = 3
                burst = rows[c, C_BURST]
                n_targets = min(n_able[enemy], BURST_TARGETS[burst])
                bd = BURST_DICE[burst]
                penalty = n_targets if n_targets > 1 else 0  # A12: -1 die per target
                if rule[R_BURST_INSIDE_CAP] != 0:  # A-g8 variant: inside the A2 cap
                    bd -= penalty
                    penalty = 0
                mods = min(max(rows[c, C_MODS] + bd, -MODIFIER_CAP), MODIFIER_CAP)  # A2
                dice = rows[c, C_ATTR] + mods + focus + extra - penalty  # A-g8
                n_t = 1
                if n_targets > 1:
                    n_t = 0
                    for t in range(n):
                        if n_t < n_targets and side[t] == enemy and able[t] == 1:
                            targets[n_t] = t
                            n_t += 1
                else:
                    targets[0] = _pick_target(s, side, able, enemy, n_able[enemy],
                                              rule[R_TARGET_FIRST])
                for k in range(n_t):
                    _strike(s, rows, rule, c, targets[k], dice, lethal_dmg, bash_dmg, con_dmg,
                            able, dead, dodging, dodge_succ, boost, n_able, side, acc, hits_off)
                focus = 0
                if n_able[enemy] == 0:
                    winner = side[c]
                    break
            if winner >= 0:
                break
        if rule[R_DODGE_END_OF_ROUND] != 0:
            for i in range(n):
                dodging[i] = 0
        if winner >= 0:
            r_end = r
            break
        if r < cap:
            for sd in range(2):
                acc[off[1] + 2 * r + sd] += n_able[sd]
    outcome = winner if winner >= 0 else 2
    acc[outcome] += 1
    acc[off[0] + 3 * r_end + outcome] += 1
    for sd in range(2):
        acc[off[2] + 2 * r_end + sd] += n_able[sd]
    _aftermath(s2, rows, side, rule, winner, order, lethal_dmg, bash_dmg, con_dmg, able, dead,
               fate)
    book_fates(acc, off, side, fate, winner, cnt)


@njit(**LEAF)
def _chunk(n_trials, s, s2, rows, side, rule, cap, acc, off, lethal_dmg, bash_dmg, con_dmg,
           wp, able, dead, dodging, dodge_succ, boost, order, ini, targets, n_able, fate, cnt,
           end):
    """``n_trials`` fights of one work item into ``acc``; every scratch array comes from
    :func:`_kernel`. ``end`` (campaign attrition) counts combatant 0's end: able with its
    damage, or its fate; with no columns (a plain run) nothing is counted."""
    health = end.size - 4
    for _ in range(n_trials):
        _fight(s, s2, rows, side, rule, cap, acc, off, lethal_dmg, bash_dmg, con_dmg, wp,
               able, dead, dodging, dodge_succ, boost, order, ini, targets, n_able, fate,
               cnt)
        if health >= 0:
            if fate[0] == 0:
                end[lethal_dmg[0] + bash_dmg[0]] += 1
            else:
                end[health + fate[0]] += 1


@njit(**KERNEL)
def _kernel(first, last, rows, side, rule, cap, off, trials, states, out, end):
    """Whole fights of chunks ``first .. last - 1``, ``trials[chunk]`` per chunk, each into
    its own ``out`` row and ``end[chunk]`` (arguments, offsets and the attrition count:
    :func:`engines.combat_pools._run`)."""
    n = rows.shape[0]
    for item in range(first, last):
        s = states[item].copy()
        s2 = states[trials.size + item].copy()  # the aftermath's own stream
        acc = np.zeros(out.shape[1], dtype=np.int64)
        z = np.zeros(n, dtype=np.int64)
        lethal_dmg, bash_dmg, con_dmg, wp = z.copy(), z.copy(), z.copy(), z.copy()
        able, dead, dodging, dodge_succ = z.copy(), z.copy(), z.copy(), z.copy()
        boost, order, ini, targets = z.copy(), z.copy(), z.copy(), z.copy()
        fate, cnt, n_able = z.copy(), np.zeros(8, np.int64), np.zeros(2, np.int64)
        _chunk(trials[item], s, s2, rows, side, rule, cap, acc, off, lethal_dmg, bash_dmg,
               con_dmg, wp, able, dead, dodging, dodge_succ, boost, order, ini, targets,
               n_able, fate, cnt, end[item])
        put(out[item], acc)


def duel_mc_end(a: Combatant, b: Combatant, start_damage: int, trials: int,
                seed: Seed = None, variants: Variants | None = None,
                round_cap: int = ROUND_CAP) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` fights of ``a`` started with
    ``start_damage`` lethal points against a fresh ``b``; counts of ``a``'s end (able
    with ``d`` damage for ``d < a.vitality``, then dead, dying, out at
    ``a.vitality + 1..3``)."""
    v = _variants(variants)
    cap = check_round_cap(round_cap)
    start_damage = check_start_damage(start_damage, a.vitality)
    r = rows([a, b], v)
    r[0, C_START] = start_damage
    return run_mc_end(_kernel, r, np.array([0, 1]), _rule(v), trials, seed, cap,
                      a.vitality)


def _variants(variants) -> Variants:
    return check_variants(variants, Variants, DEFAULT, __name__)


def fight_mc(side0: list[Combatant], side1: list[Combatant], trials: int, seed: Seed = None,
             variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo N-vs-M fights to the end or the round cap (A6–A16).

    Examples
    --------
    >>> from engines.systems.dice_pool_7.combat import Combatant, fight_mc
    >>> a = Combatant("a", FOR=3, DES=3, SAB=2, CON=3, DET=2, AUT=2)
    >>> st = fight_mc([a], [a, a], trials=1000, seed=1)
    >>> int(st.outcome.sum())
    1000
    """
    v = _variants(variants)
    return run_fight(_kernel, SYSTEM, Combatant, lambda cs: rows(cs, v), _rule(v), side0, side1,
                     trials, seed, round_cap, dataclasses.asdict(v))


def duel_mc(a: Combatant, b: Combatant, trials: int, seed: Seed = None,
            variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo 1-vs-1 fights (see :func:`fight_mc`)."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


# ---------------------------------------------------------------------------------------
# Exact


@lru_cache(maxsize=4096)
def _successes(pool: int, v: Variants) -> np.ndarray:
    """Exact success-count pmf of a pool (A1, A-g1); a dramatic failure counts 0."""
    codes = _checks.n_codes(max(pool, 1), v)
    probs, _ = _checks.exact([pool], v, codes)
    succ = probs[0, 1:].copy()
    succ[0] += probs[0, 0]
    return succ


def _damage(pool: int, damage: int, armour: int, v: Variants) -> tuple[np.ndarray, np.ndarray]:
    """A10/A13: pmf of damage dealt (misses count 0) and of hits by damage."""
    succ = _successes(pool, v)
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


def _attack_dice(c: Combatant, v: Variants, focus: int = 0, willpower: int = 0) -> int:
    """A7 (with A2, A3, A4, A5, A12 for one target): dice before the target's defence."""
    r = row(c, v)
    mods = int(np.clip(r[C_MODS] + BURST_DICE[r[C_BURST]], -MODIFIER_CAP, MODIFIER_CAP))
    return int(r[C_ATTR] + mods + focus + willpower)


def hit_probability(attacker: Combatant, target: Combatant,
                    variants: Variants | None = None) -> float:
    """P(a plain attack scores at least one success): A7, A8, A1, A-g1."""
    v = _variants(variants)
    return float(1.0 - _successes(_attack_dice(attacker, v) - target.defense, v)[0])


def attack_damage(attacker: Combatant, target: Combatant,
                  variants: Variants | None = None) -> np.ndarray:
    """Exact damage distribution of one plain attack (A7, A8, A10, A13, A-g1, A-g4).

    No dodge, focus or willpower; a burst weapon fires its burst at this one target.
    Returns ``p[k]`` = P(damage ``k``), ``k`` = 0..D; ``p[0]`` holds the misses
    (P(hit) = :func:`hit_probability`) and the hits the armour absorbs completely.
    """
    v = _variants(variants)
    pool = _attack_dice(attacker, v) - target.defense
    armour = row(target, v)[C_ARMOUR + DAMAGE_TYPES.index(attacker.weapon.damage_type)]
    return _damage(pool, attacker.weapon.bonus, int(armour), v)[0]


def _fate_after(winner: Combatant, loser: Combatant, remaining: int, v: Variants) -> np.ndarray:
    """P(dead), P(dying), P(out) after the aftermath (A-g9..A-g12) of a fallen ``loser``
    that is ``remaining`` lethal points from death (vitality left + CON left, A15),
    beaten by ``winner``."""
    rw, rl = row(winner, v), row(loser, v)
    con = loser.CON
    dying = remaining <= con  # lethal damage fills its vitality
    if v.aftermath == "first_aid" and dying:
        p_fail = float(_successes(v.first_aid_dice, v)[0]) ** v.first_aid_tries
        pa = 1.0 - p_fail
        out = np.array([0.0, 1.0 - pa, pa])
    elif v.aftermath == "finish" and not (rw[C_DTYPE] == BASHING and v.finish_bashing == "bashing"):
        dtype = LETHAL if rw[C_DTYPE] == BASHING else int(rw[C_DTYPE])
        pool = _attack_dice(winner, v) - (loser.defense if v.helpless_defense == "full" else 0)
        dmg, _ = _damage(pool, int(rw[C_DMG]), int(rl[C_ARMOUR + dtype]), v)
        clamp = 0 if v.overflow_to_con else con
        p = finish_chain(remaining, dmg, 2 * v.finish_rounds, clamp)
        out = np.array([p[0], p[1:con + 1].sum(), p[con + 1:].sum()])
    else:
        out = np.array([0.0, 1.0, 0.0]) if dying else np.array([0.0, 0.0, 1.0])
    if v.leave_horizon == "day":  # A-g9: a day's healing
        out = np.array([out[0], 0.0, out[1] + out[2]])
    return out


def _p_first(a: Combatant, b: Combatant, v: Variants) -> float:
    """A16 / A-g6: P(``a`` acts before ``b``); ties at random."""
    ia, ib = a.initiative, b.initiative
    if not v.initiative_roll:
        return 1.0 if ia > ib else 0.0 if ia < ib else 0.5
    diff = np.add.outer(np.arange(1, 11) + ia, -(np.arange(1, 11) + ib))
    return float(((diff > 0).sum() + 0.5 * (diff == 0).sum()) / 100)


class _Duel:
    """Exact 1-vs-1 chain for one initiative order (``first`` acts first every round)."""

    def __init__(self, fighters: tuple[Combatant, Combatant], v: Variants, first: int,
                 round_cap: int) -> None:
        self.f = fighters
        self.v = v
        self.first = first
        self.r = [row(c, v) for c in fighters]
        self.dice = [_attack_dice(c, v) for c in fighters]
        self.pol = [WILLPOWER_POLICIES.index(c.willpower) for c in fighters]
        self.tactic = [TACTICS.index(c.tactic) for c in fighters]
        self.health = (fighters[0].vitality, fighters[1].vitality)
        wp0 = [c.willpower_points if p != WP_NONE else 0 for c, p in zip(fighters, self.pol,
                                                                         strict=True)]
        start = np.zeros(self.health)
        start[0, 0] = 1.0
        self.chain = DuelChain(SYSTEM, self.health, round_cap, {(wp0[0], wp0[1], 0, 0): start})
        self._ops: dict = {}

    def op(self, attacker: int, pool: int):
        key = (attacker, pool)
        if key not in self._ops:
            ra, rt = self.r[attacker], self.r[1 - attacker]
            dtype = int(ra[C_DTYPE])
            dmg, hit = _damage(pool, int(ra[C_DMG]), int(rt[C_ARMOUR + dtype]), self.v)
            death = int(rt[C_DEATH])
            self._ops[key] = attack_op(dmg, hit, self.health[1 - attacker], dtype != BASHING,
                                       None if death < 0 else death)
        return self._ops[key]

    def _hurt_mask(self, m: int) -> np.ndarray:
        d = np.arange(self.health[m])
        mask = (2 * d >= self.health[m]).astype(float)
        return mask[:, None] if m == 0 else mask[None, :]

    def turn(self, m: int, rnd: int) -> None:
        """The turn of combatant ``m`` (A6): turn start (A-g3, A4), dodge, attacks."""
        t = 1 - m
        chain = self.chain
        new: dict = {}
        pol = self.pol[m]
        for key, plane in chain.planes.items():
            key = list(key)
            key[2 + m] = 0  # A4: a previous +2 Defense ends
            parts = []
            if pol in (WP_ATTACK_LATE, WP_DEFENSE_LATE) and key[m] > 0:
                hurt = plane * self._hurt_mask(m)
                parts += [(hurt, True), (plane - hurt, False)]
            else:
                parts.append((plane, key[m] > 0 and pol != WP_NONE))
            for part, spend in parts:
                k2 = list(key)
                spend_att = spend and pol in (WP_ATTACK_EARLY, WP_ATTACK_LATE)
                if spend and pol in (WP_DEFENSE_EARLY, WP_DEFENSE_LATE):
                    k2[m] -= 1
                    k2[2 + m] = 1
                self._attacks(new, m, t, tuple(k2), part, spend_att, rnd)
        chain.planes = new

    def _attacks(self, new: dict, m: int, t: int, key: tuple, plane: np.ndarray,
                 spend_att: bool, rnd: int) -> None:
        chain = self.chain
        defense_t = int(self.r[t][C_DEF]) + 2 * key[2 + t]
        # A9 dodge of the target, rolled in its own last turn: independent of everything
        # since, so it is drawn here ("lazily"); A-g3 decides whether it still counts.
        target_acted = (t == self.first) or rnd > 1
        if self.v.dodge_lasts == "end_of_round":
            target_acted = t == self.first
        if self.tactic[t] == ATTACK_DODGE and target_acted:
            dodge = _successes(2 * defense_t, self.v)
            cut = self.dice[m] + 4  # removing more dice than this changes nothing
            ks = [(float(dodge[k]), k) for k in range(min(cut, dodge.size)) if dodge[k] > 0]
            if dodge.size > cut:
                ks.append((float(dodge[cut:].sum()), cut))
        else:
            ks = [(1.0, None)]
        tactic = self.tactic[m]
        n_att = 2 if tactic == ATTACK_ATTACK else 1
        focus = 1 if tactic == FOCUS_ATTACK else 0
        for pk, k in ks:
            cur_key, cur = key, plane * pk
            for a in range(n_att):
                extra = 3 if (spend_att and a == 0) else 0
                dice = self.dice[m] + (focus if a == 0 else 0) + extra
                pool = dice - (k if k is not None else defense_t)
                nk = list(cur_key)
                if extra:
                    nk[m] -= 1
                nk = tuple(nk)
                if a == n_att - 1:
                    chain.attack(new, m, nk, cur_key, cur, self.op(m, pool))
                else:
                    tmp: dict = {}
                    chain.attack(tmp, m, nk, cur_key, cur, self.op(m, pool))
                    cur_key, cur = nk, tmp[nk]

    def run(self) -> FightStats:
        order = (self.first, 1 - self.first)
        chain = self.chain
        for rnd in range(1, chain.round_cap + 1):
            for m in order:
                self.turn(m, rnd)
            chain.end_round()
            if chain.total() < 1e-16:
                break
        chain.finish()
        return chain.aftermath(self._fate)

    def _fate(self, w: int, e: int) -> np.ndarray:
        """The loser put down alive by ``w`` with ``e`` CON lost (A15): its fates."""
        winner, loser = self.f[w], self.f[1 - w]
        if winner.weapon.damage_type == "bashing":  # A14: knocked out, no lethal damage
            remaining = loser.vitality + loser.CON
        else:
            remaining = loser.CON - e
        return _fate_after(winner, loser, remaining, self.v)


def duel_exact(a: Combatant, b: Combatant, variants: Variants | None = None,
               round_cap: int = ROUND_CAP) -> FightStats:
    """Exact 1-vs-1 fight (A6–A16) as an absorbing Markov chain.

    State: damage taken by each side (one track each: in a duel each side takes only its
    opponent's damage type, so bashing and lethal never mix, A14), willpower left (only
    for combatants with a willpower policy, A4) and each side's "+2 Defense this round"
    flag. The initiative order is fixed per fight (A16), so the result mixes the two
    orders (P(ties) = 1/2; A-g6 adds the exact 1d10 difference). A dodge (A9) would need
    the dodger's successes in the state between its turn and the opponent's; since the
    roll is independent of everything that happens in between, it is drawn at the
    opponent's turn instead, which keeps the chain exact with no extra state. Every
    tactic and willpower policy is supported; only N-vs-M fights need :func:`fight_mc`.
    Truncated explosion tails (< 1e-12 per roll) are dropped. The aftermath (variant
    ``aftermath``, A-g9..A-g12) starts from the loser's state when it falls (CON lost, or
    knocked out by bashing) and runs as an exact chain over the lethal points it has left.
    """
    v = _variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    p = _p_first(a, b, v)
    parts = [(w, _Duel((a, b), v, first, cap).run()) for w, first in ((p, 0), (1 - p, 1))
             if w > 0]
    stats = mix(parts)
    return finish_duel(stats, a, b, dataclasses.asdict(v))


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one plain attack does to an unhurt target (A7, A8, A10, A13, A14, A15, A-g5).

    ``p_hit``: at least one success (:func:`hit_probability`); ``p_incapacitate``: the
    damage (:func:`attack_damage`) reaches the target's vitality, so it drops (A14, A-g5);
    ``p_kill``: lethal or ballistic damage reaches vitality + CON, so the excess empties
    CON (A15, with the ``overflow_to_con`` variant; bashing damage never kills).
    ``p_dead`` / ``p_dying`` / ``p_out``: it drops and then ends dead / dying / out after
    the aftermath (variant ``aftermath``, A-g9..A-g12) with the attacker as the winner;
    they sum to ``p_incapacitate``.
    """
    v = _variants(variants)
    p = attack_damage(attacker, target, v)
    d = np.arange(p.size)
    vit = target.vitality
    kills = attacker.weapon.damage_type != "bashing" and v.overflow_to_con
    fates = np.zeros(3)
    for k in range(vit, p.size):
        if p[k] == 0.0:
            continue
        if attacker.weapon.damage_type == "bashing":
            remaining = vit + target.CON
        else:
            remaining = target.CON - (k - vit if v.overflow_to_con else 0)
        fates += p[k] * (np.array([1.0, 0.0, 0.0]) if remaining <= 0
                         else _fate_after(attacker, target, remaining, v))
    return {"p_hit": hit_probability(attacker, target, v),
            "p_incapacitate": float(p[d >= vit].sum()),
            "p_kill": float(p[d >= vit + target.CON].sum()) if kills else 0.0,
            "p_dead": float(fates[0]), "p_dying": float(fates[1]), "p_out": float(fates[2])}
