"""Whole fights in ``d20_degrees`` (RULES.md E10–E17, seed 004): Monte Carlo and exact duels.

Rules implemented (ids from RULES.md; gaps this module settles are E-g3 … E-g19):

- **E10 Initiative** d20 + Agility (+ bonus), once per fight; ties by Dodge, then Agility,
  then Awareness; a tie that persists is settled by ``initiative_ties`` (E-g10).
- **E11 Attack** d20 + attack bonus (Fighting + close skill, or Dexterity + ranged skill)
  vs Parry (melee) or Dodge (ranged) + 10. House rule: each degree of success beyond the
  hit adds +1 damage (``degree_damage``).
- **E3 on attacks**: a natural 20 always hits and adds +5 to the damage total; a natural 1
  always misses. Whether the natural 20 also counts one degree better for the excess
  degrees is E-g4 (``crit_extra_degree``).
- **E12 Damage** = (attack base + excess degrees + 15 [+5 critical]) − (Toughness + d20);
  ≤ 0 nothing, ≥ 1 subtracted from hit points. Hit points are an explicit stat (E-g2).
  Naturals on the resistance d20: E-g5 (``resistance_naturals``).
- **E13** Hit points 0 → incapacitated (cannot act). An incapacitated (or dying) target is
  defenceless (E17: active defences 0, so the attack DC is 10): hit as a routine check
  (take 10) or, per E-g3 (``defenceless_attack``), by a roll vs DC 10 where a hit is a
  critical. It is also prone (E17, seed: "Incapacitado ... além de se encontrar
  Deitado"; the dying are incapacitated too): +5 to hit it in melee, −5 at range, in the
  attack total (so in its excess degrees) — a ranged routine attack with a bonus under
  +5 never hits a fallen foe. A hit on an incapacitated target calls its resistance
  roll: any damage →
  dying; failing by 3+ degrees (damage ≥ 10, since failing by 5·k more adds k degrees,
  E2) → dead at once. A dying target that takes any damage → dead (E-g13).
- **E14 Dying**: Fortitude vs DC 15 when the condition is acquired (E-g6,
  ``dying_check_on_acquire``) and at the start of each of its turns; one degree of
  success: nothing; 2+: stabilised (back to incapacitated); each degree of failure is
  one failure, 3 accumulated → dead. E3 applies to this check (natural 20 one degree
  better, natural 1 fails). Stabilising clears the failure count (E-g11, fixed reading).
- **E15 Recovery**, once per combat, a standard action: +5 hit points (capped at the
  maximum, E-g9 ``recovery_cap``) and +2 to active defences until the start of its next
  turn. Taken by tactic: when hit points ≤ the fighter's ``recover_at`` (E-g12).
- **E9 Hero points** (tactic ``hero_use``, E-g12): ``attack`` — reroll an attack roll that
  missed; ``resist`` — reroll a resistance roll whose damage would drop the fighter to 0
  hit points (or any damage while defenceless). The better result is kept; a reroll of
  1–10 counts +10 (a reroll of 20 is a natural 20; of 1 is natural only with
  ``reroll_natural``, as in :mod:`engines.systems.d20_degrees.checks`).
- **E8 Extra effort** (tactic ``extra_effort`` = 0, 1 or 2 uses): +2 on each of the
  fighter's first attacks; the first use leaves it fatigued (no effect in a fight), the
  second exhausted: −2 on every later check (attack, resistance, Fortitude).
- **E16 Maneuvers** as a fixed per-fighter tactic: accurate (+2 hit, −2 damage), power
  (−2 hit, +2 damage), all-out (−2 active defences, +2 damage), defensive (+2 active
  defences, −2 damage). Tactics never switch during a fight (E-g12).
- **E16 Feint** (tactic ``feint``, E-g15): Deception vs the greater of the target's
  Deception and Insight (E5 opposed); success leaves the target **vulnerable** (E17)
  against the feinter's next attack. **E16 Surprise attack** (variant ``surprise``,
  E-g16): the surprising side's first attacks meet vulnerable targets, and the other
  side is **surprised** (E17, seed: "Vulnerável e Atordoado, impedido de agir";
  stunned: "não pode executar nenhuma ação"): each of its fighters loses its first turn
  (``surprise_stun = first_turn``) or only a first turn that comes before the surprise
  attacks are made (``surprise_attack``, E-g19).
- **E17 Vulnerable**: the target's Parry (melee) or Dodge (ranged) is halved (E-g15
  rounding) before maneuver and recovery modifiers are added; a defenceless target stays
  at DC 10.

Fight flow: every combatant acts once per round in initiative order. A fight ends (is
*decided*) as soon as one side has no one able to act; at the round cap it is "neither".
Attackers pick an able foe: the first listed (``target_rule = focus``) or one at random
(E-g8), so before the decision nobody hits a fallen fighter.

Lethality outcomes (RULES.md; variant ``aftermath``, default ``leave``), after the
decision, all draws after the fight's own (so outcome, rounds and hits of ``leave`` and
``first_aid`` do not depend on the policy):

- ``finish``: the winners keep taking turns for ``finish_rounds`` rounds (E-g7, E16
  "Finalização"), attacking the first listed foe not yet dead (E13 defenceless, E17
  prone), while the dying keep rolling E14 in their turns; then ``leave``.
- ``first_aid`` (only when a side won): each dying combatant gets the seed's Healing rule
  ("Caso o alvo esteja incapacitado ou morrendo, o primeiro grau serve para estabilizar o
  paciente, o deixando com 1 PV"): a check d20 + ``aid_bonus`` vs DC 10 (E-g17; E3
  naturals), one a round for up to ``aid_tries`` rounds (E-g18), each failed try followed
  by the patient's E14 check; then ``leave``. The seed has no first-aid skill text.
- ``leave``: every dying combatant rolls E14 until dead or stabilised (it always
  resolves: a natural 1 fails, so no horizon is needed and nobody ends "dying").

Fates: dead; dying (never, see ``leave``); out (incapacitated, stable — stabilised or
never hit again: a fighter dropped from able is only incapacitated, E13/E-g14, so under
``leave`` and ``first_aid`` a duel's loser always ends "out").

Gaps settled here (defaults first):

- **E-g3** ``defenceless_attack``: ``routine`` (take 10: 10 + bonus vs DC 10, no critical)
  | ``roll`` (d20 + bonus vs DC 10, a hit is a critical).
- **E-g4** ``crit_extra_degree``: False — an attack's natural 20 gives +5 damage only
  (the attack-specific text); True also adds the general E3 "one degree better".
- **E-g5** ``resistance_naturals``: False — the resistance d20 is plain (E12 formula);
  True: a natural 20 counts +5, a natural 1 always takes at least 1 damage.
- **E-g6** ``dying_check_on_acquire``: True — the seed's "ao adquirir esta condição".
- **E-g7** ``finish_rounds``: 10 — the ``finish`` horizon, rounds of finishing attacks
  after the decision (before the lethality outcomes it was an always-on setting with
  default 0; now it acts under ``aftermath = finish`` only). 10 rounds: a competent
  winner finishes its foe with P > 0.999 (competent mirror: 1 round 0.70, 3 rounds 0.98).
- **E-g8** ``target_rule``: ``focus`` | ``random``.
- **E-g9** ``recovery_cap``: True — recovery cannot raise hit points above the maximum.
- **E-g10** ``initiative_ties``: ``random`` | ``listed`` (earlier-listed acts first; side 0
  before side 1).
- **E-g11** (fixed) stabilising clears the dying failure count.
- **E-g12** tactics. Per-fighter data: its maneuver, recovery when hit points ≤
  ``recover_at``, hero points and extra effort as above. The one switch, a variant:
  ``defensive_below`` = 0 (never) — a fighter at or below this percentage of its hit
  points fights defensively (E16: +2 active defences, −2 damage, no own maneuver).
- **E-g13** (fixed) "a dying character who fails a resistance roll again": a dying target
  that takes ≥ 1 damage from a hit dies.
- **E-g15** feint and vulnerable, where the seed is silent. ``vulnerable_rounding``: ``up``
  (default; the parent system halves rounding up) | ``down``. Fixed readings: the feint
  costs the standard action (no attack that turn); a feinter (``Fighter.feint``)
  alternates — it feints whenever no feint of its own is pending, then attacks on its
  next turn whether the feint won or not (the vulnerability lasts until that attack,
  the seed's "contra seu próximo ataque", and is lost if the attack goes to another
  foe); it feints only at an able foe before the decision; the opposed check (E5) is
  d20 + Deception vs d20 + max(Deception, Insight), E8 exhaustion −2 on either side, a
  tie goes to the higher bonus and, at equal bonuses, to the target; no naturals and no
  hero points on the feint.
- **E-g16** ``surprise``: ``none`` | ``side0`` | ``side1`` — every fighter of that side makes
  its first attack of the fight against a vulnerable target (E16, E17); every fighter of
  the other side is surprised (E17: vulnerable and stunned) and loses its first turn.
  Initiative is rolled as usual (the seed names no surprise round). How long the stun
  lasts is E-g19.
- **E-g17** ``aid_bonus``: 0 — ``first_aid``: the aider's bonus on the Healing check (the
  seed gives the rule for the Healing power, no rank and no DC: DC 10, rolled — the
  patient's life is at stake, so no E4 routine check).
- **E-g18** ``aid_tries``: 10 — ``first_aid``: tries per dying combatant, one a round,
  each before the patient's E14 check (every dying combatant has its own aider).
- **E-g19** ``surprise_stun``: how long the surprised side is stunned (E17, seed:
  "Surpreso: ... Vulnerável e Atordoado, impedido de agir ou se desviar da investida";
  Atordoado: "não pode executar nenhuma ação"). ``first_turn`` (default): "impedido de
  agir" read as the whole first turn — each surprised fighter loses its first turn, so
  a surpriser that also wins initiative attacks twice before its foe acts (in a duel,
  the same as a round in which only the surpriser acts; competent mirror: the surpriser
  wins 0.679, 35.9 points ahead). ``surprise_attack``: stunned only until the surprise
  attacks are made (hit or miss; the "investida" it cannot act against or dodge): a
  surprised fighter loses its first turn only when some fighter of the surprising side
  acts after it in initiative order (N-vs-M: the stun lasts until every surpriser has had
  its first turn). In a duel the surpriser thus always strikes first, then turns
  alternate (competent mirror: 0.611, 22.2 points ahead).
- **E-g14** (fixed) only hits on defenceless targets can kill at once; a massive hit on an
  able fighter only brings it to 0 hit points.

Public API: :class:`Variants`, :class:`Fighter`; :func:`fight_mc` (N-vs-M) and
:func:`duel_mc` (Monte Carlo counts), :func:`duel_exact` (probabilities) — all three
return :class:`~engines.fight.FightStats`; :func:`attack_damage` (exact damage
distribution of one attack, a miss counting 0), :func:`initiative_first` (E10),
:func:`hit_points_for_rounds` (E-g2 solved for a target duel length), :func:`mean_rounds`,
:func:`feint_chance` (E16 feint, exact).

Exact duels (:func:`duel_exact`) are an absorbing Markov chain over whole-duel states
(whose turn, both fighters' hit points or status incapacitated / dying with 0–2 failures
/ dead, recovery used and its +2 still up, hero points left, extra-effort uses, a
'vulnerable' flag — the foe is vulnerable to this fighter's next attack after a won feint
or for a surprise attack, or its feint failed, or this fighter is surprised — and the
half-turns spent finishing); the aftermath's end (``leave``, ``first_aid``) is a closed
form on each final state's dying failures,
built by enumerating every die. States grow with the
product of both fighters' hit points and tactic counters: above
:data:`EXACT_STATE_LIMIT` the solver refuses (hit points, E-g2, is the usual cause). Only
1-vs-1 is exact; N-vs-M fights are Monte Carlo only (the state is the product over all
combatants).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from engines.blocks import put
from engines.combat_shared import run_chunks
from engines.config import KERNEL, LEAF
from engines.errors import InputError
from engines.fight import (
    AFTERMATHS,
    DAMAGE_BINS,
    ROUND_CAP,
    FightStats,
    check_aftermath,
    check_round_cap,
    check_start_damage,
)
from engines.rng import Seed, bounded, next_u64
from engines.variants import variant

SYSTEM = "d20_degrees"

#: E16 maneuvers: (hit, damage, active defences) modifiers.
MANEUVERS = {
    "none": (0, 0, 0),
    "accurate": (2, -2, 0),
    "power": (-2, 2, 0),
    "all_out": (0, 2, -2),
    "defensive": (0, -2, 2),
}
DEFENSIVE = MANEUVERS["defensive"]
#: E9 hero point tactics (E-g12).
HERO_USES = {"none": 0, "attack": 1, "resist": 2}
RECOVERY_HP = 5        # E15
RECOVERY_DEFENCE = 2   # E15
CRIT_DAMAGE = 5        # E3 on attacks
DAMAGE_OFFSET = 15     # E12
DYING_DC = 15          # E14
DEATH_FAILURES = 3     # E14
INSTANT_DEATH_DEGREES = 3  # E13
EFFORT_BONUS = 2       # E8
EXHAUSTED_PENALTY = 2  # E8
MAX_EFFORT = 2         # E8: a third use would incapacitate; never taken by tactic
PRONE_MELEE = 5        # E17 prone: +5 to hit it in melee
PRONE_RANGED = -5      # E17 prone: −5 to hit it at range
AID_DC = 10            # E-g17: the Healing check's DC (the seed names none)
EXACT_STATE_LIMIT = 400_000

# Fighter array layout (one int64 row per combatant).
(F_INIT, F_DODGE, F_AGI, F_AWA, F_ATK, F_RANGED, F_DMG, F_TOUGH, F_PARRY, F_FORT, F_HP,
 F_HERO, F_MHIT, F_MDMG, F_MDEF, F_HUSE, F_EFFORT, F_RECOV, F_FEINT, F_DECEP,
 F_READ, F_START) = range(22)  # F_START: hit points lost before the fight (attrition)
N_FIELDS = 22

# Rule array layout (Variants.rule()).
(R_DEF_ROLL, R_CRIT_DEG, R_RES_NAT, R_DYING_ACQ, R_FINISH, R_TARGET_RANDOM, R_REC_CAP,
 R_TIES_RANDOM, R_REROLL_NAT, R_DEGREE_DMG, R_DEFENSIVE_PCT, R_VUL_UP, R_SURPRISE,
 R_AFTERMATH, R_AID_BONUS, R_AID_TRIES, R_SURPRISE_STUN) = range(17)
#: ``rule[R_AFTERMATH]`` codes, in :data:`engines.fight.AFTERMATHS` order.
AFT_LEAVE, AFT_FIRST_AID, AFT_FINISH = range(3)

ACTIVE, INCAP, DYING, DEAD = 0, 1, 2, 3
# MC feint/surprise state per combatant (``fst``): ≥ 0 — that foe is vulnerable (E17) to
# the combatant's next attack (E16 feint); FS_NONE — nothing pending (a feinter feints
# next); FS_FAILED — its feint failed, it attacks next; FS_SURPRISE — its first attack of
# the fight is a surprise attack (E16, E-g16); FS_SURPRISED — it is surprised (E17:
# vulnerable and stunned) and loses its first turn.
FS_NONE, FS_FAILED, FS_SURPRISE, FS_SURPRISED = -1, -2, -3, -4


@dataclass(frozen=True)
class Variants:
    """Combat rule variants of ``d20_degrees`` (module docstring: E11, E3, E-g3 … E-g10)."""

    system: ClassVar[str] = SYSTEM
    degree_damage: bool = variant(True, rule="E11", doc="house rule: +1 damage per degree of "
                                  "success beyond the hit")
    defenceless_attack: str = variant("routine", rule="E-g3", doc="attack on a defenceless "
                                      "target: routine (take 10) or roll vs DC 10 (a hit is "
                                      "critical)", choices=("routine", "roll"))
    crit_extra_degree: bool = variant(False, rule="E-g4", doc="an attack's natural 20 also "
                                      "counts one degree better (E3) for excess degrees")
    resistance_naturals: bool = variant(False, rule="E-g5", doc="natural 20 on the resistance "
                                        "d20 counts +5; natural 1 takes at least 1 damage")
    dying_check_on_acquire: bool = variant(True, rule="E-g6", doc="a Fortitude check (E14) as "
                                           "soon as a fighter becomes dying")
    aftermath: str = variant("leave", rule="Lethality outcomes", doc="after the decision: "
                             "leave (the dying roll E14 until dead or stabilised), first_aid "
                             "(E-Healing tried on every dying combatant, E-g17, E-g18) or "
                             "finish (winners attack defenceless foes for finish_rounds "
                             "rounds, E16, E-g7; then leave)", choices=AFTERMATHS)
    finish_rounds: int = variant(10, rule="E-g7", doc="the finish horizon: rounds of "
                                 "finishing attacks on defenceless foes after the decision "
                                 "(aftermath=finish only)")
    aid_bonus: int = variant(0, rule="E-g17", doc="first_aid: the aider's bonus on the "
                             "Healing check (d20 + bonus vs DC 10; the first degree "
                             "stabilises)")
    aid_tries: int = variant(10, rule="E-g18", doc="first_aid: tries per dying combatant, one "
                             "a round, each before the patient's E14 check")
    target_rule: str = variant("focus", rule="E-g8", doc="which able foe an attacker picks",
                               choices=("focus", "random"))
    recovery_cap: bool = variant(True, rule="E-g9", doc="recovery (E15) cannot exceed maximum "
                                 "hit points")
    initiative_ties: str = variant("random", rule="E-g10", doc="a tie left after Dodge, "
                                   "Agility, Awareness (E10)", choices=("random", "listed"))
    defensive_below: int = variant(0, rule="E-g12", doc="tactic switch: a fighter at or "
                                   "below this percentage of its hit points fights "
                                   "defensively (E16) instead of its own maneuver; 0 never")
    reroll_natural: bool = variant(False, rule="E9", doc="a hero-point reroll of 1 (read as "
                                   "11) is still a natural 1")
    vulnerable_rounding: str = variant("up", rule="E-g15", doc="vulnerable (E17): halved "
                                       "Parry/Dodge rounded up or down",
                                       choices=("up", "down"))
    surprise: str = variant("none", rule="E-g16", doc="surprise attack (E16): every fighter "
                            "of this side makes its first attack of the fight against a "
                            "vulnerable target (E17); initiative as usual",
                            choices=("none", "side0", "side1"))
    surprise_stun: str = variant("first_turn", rule="E-g19", doc="how long the surprised "
                                 "side is stunned (E17 Surpreso): first_turn — it loses its "
                                 "whole first turn; surprise_attack — only until the "
                                 "surprising side's surprise attacks are made (a surprised "
                                 "fighter loses its first turn only when a surpriser acts "
                                 "after it in initiative order)",
                                 choices=("first_turn", "surprise_attack"))

    def check(self) -> None:
        if isinstance(self.defensive_below, bool) or not isinstance(self.defensive_below, int) \
                or not 0 <= self.defensive_below <= 100:
            raise InputError(f"variant defensive_below: expected a percentage 0..100, "
                             f"got {self.defensive_below!r}")
        for name, lo, hi in (("finish_rounds", 0, 20), ("aid_bonus", -60, 60),
                             ("aid_tries", 1, 20)):
            val = getattr(self, name)
            if isinstance(val, bool) or not isinstance(val, int) or not lo <= val <= hi:
                raise InputError(f"variant {name}: expected an integer {lo}..{hi}, "
                                 f"got {val!r}")
        check_aftermath(self.aftermath)
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            if choices is not None and getattr(self, f.name) not in choices:
                raise InputError(f"variant {f.name}: {getattr(self, f.name)!r} is not allowed; "
                                 f"choose {' | '.join(choices)}")

    def rule(self) -> np.ndarray:
        self.check()
        return np.array([
            self.defenceless_attack == "roll", self.crit_extra_degree,
            self.resistance_naturals, self.dying_check_on_acquire,
            self.finish_rounds if self.aftermath == "finish" else 0,
            self.target_rule == "random", self.recovery_cap,
            self.initiative_ties == "random", self.reroll_natural, self.degree_damage,
            self.defensive_below, self.vulnerable_rounding == "up",
            ("none", "side0", "side1").index(self.surprise),
            AFTERMATHS.index(self.aftermath), self.aid_bonus, self.aid_tries,
            self.surprise_stun == "surprise_attack",
        ], dtype=np.int64)


DEFAULT = Variants()


@dataclass(frozen=True)
class Fighter:
    """One combatant, as the engine sees it (the analysis layer composes it from data).

    ``attack`` is the full attack bonus (E11: Fighting + close skill, or Dexterity +
    ranged skill); ``damage`` the attack base (E12: Strength + weapon modifiers, or the
    weapon's effect rank); ``toughness`` includes armour; ``hit_points`` is E-g2.
    """

    attack: int
    damage: int
    toughness: int
    parry: int
    dodge: int
    fortitude: int
    hit_points: int
    ranged: bool = False
    agility: int = 0
    awareness: int = 0
    initiative: int = 0
    hero_points: int = 1
    maneuver: str = "none"
    hero_use: str = "attack"
    extra_effort: int = 0
    recover_at: int = 0
    feint: bool = False
    deception: int = 0
    insight: int = 0
    name: str = "fighter"

    def __post_init__(self) -> None:
        where = f"fighter {self.name!r}"
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("int",) and (isinstance(v, bool) or not isinstance(v, int | np.integer)):
                raise InputError(f"{where}: {f.name} must be an integer, got {v!r}")
        if not 1 <= self.hit_points <= 500:
            raise InputError(f"{where}: hit_points must be 1..500, got {self.hit_points}")
        if not 0 <= self.hero_points <= 10:
            raise InputError(f"{where}: hero_points must be 0..10, got {self.hero_points}")
        if not 0 <= self.extra_effort <= MAX_EFFORT:
            raise InputError(f"{where}: extra_effort must be 0..{MAX_EFFORT}, "
                             f"got {self.extra_effort}")
        if not isinstance(self.feint, bool | np.bool_):
            raise InputError(f"{where}: feint must be true or false, got {self.feint!r}")
        if self.recover_at < 0:
            raise InputError(f"{where}: recover_at must be ≥ 0, got {self.recover_at}")
        if self.maneuver not in MANEUVERS:
            raise InputError(f"{where}: unknown maneuver {self.maneuver!r}; known: "
                             f"{', '.join(MANEUVERS)}")
        if self.hero_use not in HERO_USES:
            raise InputError(f"{where}: unknown hero_use {self.hero_use!r}; known: "
                             f"{', '.join(HERO_USES)}")
        for name in ("attack", "damage", "toughness", "parry", "dodge", "fortitude", "agility",
                     "awareness", "initiative", "deception", "insight"):
            if abs(getattr(self, name)) > 60:
                raise InputError(f"{where}: {name} must be within −60..60, "
                                 f"got {getattr(self, name)}")

    def array(self) -> np.ndarray:
        """The kernel's int64 row (layout ``F_*``)."""
        mhit, mdmg, mdef = MANEUVERS[self.maneuver]
        row = np.zeros(N_FIELDS, dtype=np.int64)
        row[[F_INIT, F_DODGE, F_AGI, F_AWA, F_ATK, F_RANGED, F_DMG, F_TOUGH, F_PARRY, F_FORT,
             F_HP, F_HERO, F_MHIT, F_MDMG, F_MDEF, F_HUSE, F_EFFORT, F_RECOV, F_FEINT, F_DECEP,
             F_READ]] = [
            self.agility + self.initiative, self.dodge, self.agility, self.awareness,
            self.attack, int(self.ranged), self.damage, self.toughness, self.parry,
            self.fortitude, self.hit_points, self.hero_points, mhit, mdmg, mdef,
            HERO_USES[self.hero_use], self.extra_effort, self.recover_at, int(self.feint),
            self.deception, max(self.deception, self.insight)]
        return row


def _fighter(x, where: str) -> Fighter:
    if isinstance(x, Fighter):
        return x
    to_engine = getattr(x, "to_engine", None)
    if to_engine is not None:
        return to_engine()
    raise InputError(f"{where}: expected a Fighter, got {type(x).__name__}")


def _variants(v) -> Variants:
    if v is None:
        return DEFAULT
    if isinstance(v, Variants):
        v.check()
        return v
    from engines.variants import parse_variants

    return parse_variants(Variants, v)


# ---------------------------------------------------------------------------------------
# Monte Carlo kernel
# ---------------------------------------------------------------------------------------

_M32 = np.uint64(0xFFFFFFFF)
_U20 = np.uint64(20)
_REJECT_20 = np.uint64((1 << 32) % 20)  # Lemire threshold for n = 20


@njit(**LEAF)
def _d20(s):
    """One d20 (1..20), exact: Lemire multiply-shift with rejection on 32 random bits."""
    while True:
        m = (next_u64(s) >> np.uint64(32)) * _U20
        if (m & _M32) >= _REJECT_20:
            return np.int64(m >> np.uint64(32)) + 1


@njit(**LEAF)
def _switched(F, i, hp, rule):
    """E-g12 tactic switch: True when ``i`` fights defensively at its current hit points."""
    return rule[R_DEFENSIVE_PCT] > 0 and hp[i] * 100 <= rule[R_DEFENSIVE_PCT] * F[i, F_HP]


@njit(**LEAF)
def _resist(x, tough, pen, v, nat, res_nat):
    """E12 damage for attack total ``x`` against a resistance roll of value ``v``."""
    tot = tough + v - pen
    if res_nat != 0 and nat == 2:
        tot += 5
    d = x - tot
    if res_nat != 0 and nat == 1 and d < 1:
        d = 1
    return d if d > 0 else 0


@njit(**LEAF)
def _reroll(s, reroll_nat):
    """E9 second roll: value (1–10 read +10) and natural flag (0 none, 1 one, 2 twenty)."""
    r2 = _d20(s)
    v2 = r2 + 10 if r2 <= 10 else r2
    nat2 = 2 if r2 == 20 else (1 if (r2 == 1 and reroll_nat != 0) else 0)
    return v2, nat2


@njit(**LEAF)
def _fortitude(s, F, i, st, fails, eff):
    """E14 dying check of combatant ``i`` (E3 naturals); returns True if it died."""
    r = _d20(s)
    tot = r + F[i, F_FORT] - (EXHAUSTED_PENALTY if eff[i] >= 2 else 0)
    if r == 20:
        tot += 5
    deg = 1 + (tot - DYING_DC) // 5 if tot >= DYING_DC else -(1 + (DYING_DC - tot) // 5)
    if r == 1 and deg > 0:
        deg = -1
    if deg >= 2:
        st[i] = INCAP
        fails[i] = 0
    elif deg < 0:
        fails[i] += -deg
        if fails[i] >= DEATH_FAILURES:
            st[i] = DEAD
            return True
    return False


@njit(**LEAF)
def _attack(s, F, i, j, st, hp, fails, rec, hero, eff, rule, hits, vul):
    """One attack of ``i`` on ``j`` (E11, E3, E12, E13, E9, E8, E16); returns True if ``j``
    stopped being able to act. ``vul``: ``j`` is vulnerable (E17, E-g15). A defenceless
    (incapacitated or dying) target is also prone (E17 "Incapacitado ... Deitado"): +5 to
    hit it in melee, −5 at range."""
    defenceless = st[j] != ACTIVE
    a_def = _switched(F, i, hp, rule)
    bonus = F[i, F_ATK] + (0 if a_def else F[i, F_MHIT])
    if eff[i] >= 2:
        bonus -= EXHAUSTED_PENALTY
    if eff[i] < F[i, F_EFFORT]:
        bonus += EFFORT_BONUS
        eff[i] += 1
    if defenceless:
        dc = 10
        bonus += PRONE_RANGED if F[i, F_RANGED] != 0 else PRONE_MELEE
    else:
        d = F[j, F_DODGE] if F[i, F_RANGED] != 0 else F[j, F_PARRY]
        if vul:
            d = (d + 1) // 2 if rule[R_VUL_UP] != 0 else d // 2
        d += DEFENSIVE[2] if _switched(F, j, hp, rule) else F[j, F_MDEF]
        if rec[j] == 1:
            d += RECOVERY_DEFENCE
        dc = d + 10
    crit = False
    if defenceless and rule[R_DEF_ROLL] == 0:
        total = 10 + bonus
        hit = total >= dc
    else:
        v = _d20(s)
        nat = 2 if v == 20 else (1 if v == 1 else 0)
        hit = nat == 2 or (nat != 1 and v + bonus >= dc)
        if not hit and F[i, F_HUSE] == 1 and hero[i] > 0:
            hero[i] -= 1
            v2, nat2 = _reroll(s, rule[R_REROLL_NAT])
            if v2 > v:
                v = v2
                nat = nat2
            hit = nat == 2 or (nat != 1 and v + bonus >= dc)
        crit = hit and (nat == 2 or defenceless)
        total = v + bonus
        if nat == 2 and rule[R_CRIT_DEG] != 0:
            total += 5
    if not hit:
        return False
    excess = (total - dc) // 5 if total >= dc else 0
    if rule[R_DEGREE_DMG] == 0:
        excess = 0
    mdmg = DEFENSIVE[1] if a_def else F[i, F_MDMG]
    x = F[i, F_DMG] + excess + DAMAGE_OFFSET + mdmg + (CRIT_DAMAGE if crit else 0)
    pen = EXHAUSTED_PENALTY if eff[j] >= 2 else 0
    r = _d20(s)
    rnat = 2 if r == 20 else (1 if r == 1 else 0)
    dmg = _resist(x, F[j, F_TOUGH], pen, r, rnat, rule[R_RES_NAT])
    threshold = hp[j] if st[j] == ACTIVE else 1
    if dmg >= threshold and F[j, F_HUSE] == 2 and hero[j] > 0:
        hero[j] -= 1
        v2, nat2 = _reroll(s, rule[R_REROLL_NAT])
        if v2 > r:
            dmg = _resist(x, F[j, F_TOUGH], pen, v2, nat2, rule[R_RES_NAT])
    hits[min(dmg, hits.size - 1)] += 1
    if dmg < 1:
        return False
    if st[j] == ACTIVE:
        hp[j] -= dmg
        if hp[j] <= 0:
            hp[j] = 0
            st[j] = INCAP
            return True
    elif st[j] == INCAP:
        # E13: failing the resistance by 3+ degrees (damage ≥ 10) kills at once
        if 1 + dmg // 5 >= INSTANT_DEATH_DEGREES:
            st[j] = DEAD
        else:
            st[j] = DYING
            fails[j] = 0
            if rule[R_DYING_ACQ] != 0:
                _fortitude(s, F, j, st, fails, eff)
    elif st[j] == DYING:
        st[j] = DEAD  # E-g13
    return False


@njit(**LEAF)
def _pick_target(s, side, st, i, able_only, random_pick):
    n = side.size
    count = 0
    first = -1
    for j in range(n):
        if side[j] != side[i] and (st[j] == ACTIVE if able_only else st[j] != DEAD):
            if first < 0:
                first = j
            count += 1
    if count <= 1 or not random_pick:
        return first
    k = bounded(s, count)
    for j in range(n):
        if side[j] != side[i] and st[j] == ACTIVE:
            if k == 0:
                return j
            k -= 1
    return first


@njit(**LEAF)
def _feint_wins(s, F, i, j, eff):
    """E16 feint, an E5 opposed check: d20 + Deception vs d20 + the greater of the
    target's Deception and Insight (E8 exhausted −2 on either); the higher total wins, a
    tie goes to the higher bonus, an equal bonus to the target (E-g15)."""
    ba = F[i, F_DECEP] - (EXHAUSTED_PENALTY if eff[i] >= 2 else 0)
    bb = F[j, F_READ] - (EXHAUSTED_PENALTY if eff[j] >= 2 else 0)
    ta = _d20(s) + ba
    tb = _d20(s) + bb
    return ta > tb or (ta == tb and ba > bb)


@njit(**LEAF)
def _turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, decided):
    """Combatant ``i``'s turn; returns True if some foe stopped being able to act."""
    if st[i] == DEAD or st[i] == INCAP:
        return False
    if st[i] == DYING:
        _fortitude(s, F, i, st, fails, eff)
        return False
    if fst[i] == FS_SURPRISED:
        fst[i] = FS_NONE  # E17 surprised: stunned, it loses this (its first) turn
        return False
    if rec[i] == 1:
        rec[i] = 2  # E15: the +2 lasts until the start of the next turn
    if not decided and rec[i] == 0 and hp[i] <= F[i, F_RECOV]:
        rec[i] = 1
        hp[i] += RECOVERY_HP
        if rule[R_REC_CAP] != 0 and hp[i] > F[i, F_HP]:
            hp[i] = F[i, F_HP]
        return False
    j = _pick_target(s, side, st, i, not decided, (not decided) and rule[R_TARGET_RANDOM] != 0)
    if j < 0:
        return False
    if F[i, F_FEINT] != 0 and not decided and fst[i] == FS_NONE and st[j] == ACTIVE:
        # E16 feint (E-g15): the standard action goes on the feint
        fst[i] = j if _feint_wins(s, F, i, j, eff) else FS_FAILED
        return False
    vul = fst[i] == FS_SURPRISE or fst[i] == j
    fst[i] = FS_NONE
    return _attack(s, F, i, j, st, hp, fails, rec, hero, eff, rule, hits, vul)


@njit(**LEAF)
def _finish_turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits):
    """A turn after the decision (E-g7): a separate function, so the fight kernel inlines
    :func:`_turn` once only (keeps compile time down; finishing turns are rare)."""
    _turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, True)


@njit(**LEAF)
def _first_aid(s, F, i, st, fails, eff, rule):
    """``first_aid`` on dying combatant ``i`` (E-Healing, E-g17, E-g18): up to
    ``aid_tries`` rounds of a Healing check (d20 + ``aid_bonus`` vs DC 10, E3 naturals;
    the first degree stabilises: incapacitated, stable), each failed try followed by the
    patient's E14 check."""
    for _ in range(rule[R_AID_TRIES]):
        r = _d20(s)
        tot = r + rule[R_AID_BONUS] + (5 if r == 20 else 0)
        if r != 1 and tot >= AID_DC:
            st[i] = INCAP
            fails[i] = 0
            return
        _fortitude(s, F, i, st, fails, eff)
        if st[i] != DYING:
            return


@njit(**LEAF)
def _aftermath(s, F, side, st, fails, eff, rule, winner, cnt, loser_fate, loser_fate_sq,
               fates, fates_sq, loser_dead, deaths):
    """Lethality outcomes after the fight (and any finishing rounds): ``first_aid`` when a
    side won, then ``leave`` — every dying combatant rolls E14 until dead or stabilised;
    then each combatant's fate is counted (standing / dead / dying / out)."""
    n = side.size
    if winner >= 0 and rule[R_AFTERMATH] == AFT_FIRST_AID:
        for i in range(n):
            if st[i] == DYING:
                _first_aid(s, F, i, st, fails, eff, rule)
    for i in range(n):
        while st[i] == DYING:
            _fortitude(s, F, i, st, fails, eff)
    cnt[:] = 0
    for i in range(n):
        k = 0 if st[i] == ACTIVE else (1 if st[i] == DEAD else (2 if st[i] == DYING else 3))
        cnt[side[i], k] += 1
    for sd in range(2):
        deaths[sd] += cnt[sd, 1]
        for k in range(4):
            fates[sd, k] += cnt[sd, k]
            fates_sq[sd, k] += cnt[sd, k] * cnt[sd, k]
    if winner >= 0:
        lo = 1 - winner
        for k in range(3):
            loser_fate[winner, k] += cnt[lo, k + 1]
            loser_fate_sq[winner, k] += cnt[lo, k + 1] * cnt[lo, k + 1]
        if cnt[lo, 1] == cnt[lo].sum():
            loser_dead[winner] += 1


@njit(**LEAF)
def _one_fight(s, F, side, rule, round_cap, order, key, st, hp, fails, rec, hero, eff, fst,
               cnt, outcome, rounds, loser_dead, standing, deaths, hits, loser_fate,
               loser_fate_sq, fates, fates_sq):
    n = side.size
    for i in range(n):
        st[i] = ACTIVE
        hp[i] = F[i, F_HP] - F[i, F_START]
        fails[i] = 0
        rec[i] = 0
        hero[i] = F[i, F_HERO]
        eff[i] = 0
        # E16 surprise attack (E-g16); E17 the other side is surprised
        if rule[R_SURPRISE] == 0:
            fst[i] = FS_NONE
        else:
            fst[i] = FS_SURPRISE if rule[R_SURPRISE] == side[i] + 1 else FS_SURPRISED
        # E10: d20 + Agility; ties by Dodge, Agility, Awareness; then E-g10
        k = _d20(s) + F[i, F_INIT] + 200
        k = k * 256 + F[i, F_DODGE] + 128
        k = k * 256 + F[i, F_AGI] + 128
        k = k * 256 + F[i, F_AWA] + 128
        if rule[R_TIES_RANDOM] != 0:
            tie = np.int64(next_u64(s) >> np.uint64(44))
        else:
            tie = (1 << 20) - 1 - i
        key[i] = k * (1 << 21) + tie
        order[i] = i
    for a in range(1, n):  # insertion sort, highest key first
        x = order[a]
        b = a - 1
        while b >= 0 and key[order[b]] < key[x]:
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = x
    if rule[R_SURPRISE] != 0 and rule[R_SURPRISE_STUN] != 0:
        # E-g19 surprise_attack: the stun ends once the surprising side's surprise attacks
        # are made, so a surprised fighter acting after every surpriser is not stunned
        last = -1
        for pos in range(n):
            if fst[order[pos]] == FS_SURPRISE:
                last = pos
        for pos in range(last + 1, n):
            fst[order[pos]] = FS_NONE
    able0 = 0
    able1 = 0
    for i in range(n):
        if side[i] == 0:
            able0 += 1
        else:
            able1 += 1
    winner = -1
    end_round = round_cap
    pos = 0
    for rnd in range(1, round_cap + 1):
        for pos in range(n):
            i = order[pos]
            if _turn(s, F, side, i, st, hp, fails, rec, hero, eff, fst, rule, hits, False):
                c0 = 0
                c1 = 0
                for j in range(n):
                    if st[j] == ACTIVE:
                        if side[j] == 0:
                            c0 += 1
                        else:
                            c1 += 1
                standing[rnd, 0] += c0 - able0
                standing[rnd, 1] += c1 - able1
                able0 = c0
                able1 = c1
                if c0 == 0 or c1 == 0:
                    winner = 0 if c0 > 0 else 1
                    break
        if winner >= 0:
            end_round = rnd
            break
    if winner < 0:
        outcome[2] += 1
        rounds[round_cap, 2] += 1
    else:
        outcome[winner] += 1
        rounds[end_round, winner] += 1
        extra = rule[R_FINISH] * n
        p = pos
        for _ in range(extra):
            p += 1
            if p == n:
                p = 0
            _finish_turn(s, F, side, order[p], st, hp, fails, rec, hero, eff, fst, rule,
                         hits)
    _aftermath(s, F, side, st, fails, eff, rule, winner, cnt, loser_fate, loser_fate_sq,
               fates, fates_sq, loser_dead, deaths)


@njit(**LEAF)
def _chunk(n_trials, s, F, side, rule, round_cap, order, key, st, hp, fails, rec, hero, eff,
           fst, cnt, outcome, rounds, loser_dead, standing, deaths, hits, loser_fate,
           loser_fate_sq, fates, fates_sq, end):
    """``n_trials`` fights of one work item into its histograms; every scratch array comes
    from :func:`_fight_kernel`. ``end`` (campaign attrition) counts combatant 0's end: able
    having lost ``d`` hit points at ``d``, else dead, dying, incapacitated (out) at
    ``HP + 1..3``; with no columns (a plain run) nothing is counted."""
    health = end.size - 4
    for _ in range(n_trials):
        _one_fight(s, F, side, rule, round_cap, order, key, st, hp, fails, rec, hero, eff,
                   fst, cnt, outcome, rounds, loser_dead, standing, deaths, hits, loser_fate,
                   loser_fate_sq, fates, fates_sq)
        if health >= 0:
            if st[0] == ACTIVE:
                end[max(F[0, F_HP] - hp[0], 0)] += 1
            else:
                end[health + (1 if st[0] == DEAD else 2 if st[0] == DYING else 3)] += 1


@njit(**KERNEL)
def _fight_kernel(first, last, F, side, rule, round_cap, trials, states, outcome, rounds,
                  loser_dead, standing, deaths, hits, loser_fate, loser_fate_sq, fates, fates_sq,
                  end):
    """Whole fights of work items ``first .. last - 1`` (one thread's block:
    :func:`engines.blocks.run_blocks`), ``trials[item]`` per item, each item into its own
    histogram rows.

    ``end`` (campaign attrition) counts combatant 0's end in ``end[item]``: able having
    lost ``d`` hit points at ``d``, else dead, dying, incapacitated (out) at ``HP + 1..3``;
    with no columns (a plain run) nothing is counted, so the fight is compiled once."""
    n = side.size
    for item in range(first, last):
        s = states[item].copy()
        o = np.zeros(3, dtype=np.int64)
        rd = np.zeros((round_cap + 1, 3), dtype=np.int64)
        ld = np.zeros(2, dtype=np.int64)
        sd = np.zeros((round_cap + 1, 2), dtype=np.int64)
        de = np.zeros(2, dtype=np.int64)
        h = np.zeros(hits.shape[1], dtype=np.int64)
        lf = np.zeros((2, 3), dtype=np.int64)
        lfs = np.zeros((2, 3), dtype=np.int64)
        fa = np.zeros((2, 4), dtype=np.int64)
        fas = np.zeros((2, 4), dtype=np.int64)
        cnt = np.zeros((2, 4), dtype=np.int64)
        order = np.zeros(n, dtype=np.int64)
        key = np.zeros(n, dtype=np.int64)
        st = np.zeros(n, dtype=np.int64)
        hp = np.zeros(n, dtype=np.int64)
        fails = np.zeros(n, dtype=np.int64)
        rec = np.zeros(n, dtype=np.int64)
        hero = np.zeros(n, dtype=np.int64)
        eff = np.zeros(n, dtype=np.int64)
        fst = np.zeros(n, dtype=np.int64)
        _chunk(trials[item], s, F, side, rule, round_cap, order, key, st, hp, fails, rec,
               hero, eff, fst, cnt, o, rd, ld, sd, de, h, lf, lfs, fa, fas, end[item])
        put(outcome[item], o)
        put(rounds[item], rd)
        put(loser_dead[item], ld)
        put(standing[item], sd)
        put(deaths[item], de)
        put(hits[item], h)
        put(loser_fate[item], lf)
        put(loser_fate_sq[item], lfs)
        put(fates[item], fa)
        put(fates_sq[item], fas)


#: The histograms of :func:`_fight_kernel`, in its argument order.
_FIELDS = ("outcome", "rounds", "loser_dead", "standing", "deaths", "hits", "loser_fate",
           "loser_fate_sq", "fates", "fates_sq")


def duel_mc_end(a, b, start_damage: int, trials: int, seed: Seed = None,
                variants: Variants | None = None, round_cap: int = ROUND_CAP) -> np.ndarray:
    """Campaign attrition, Monte Carlo: ``trials`` duels of ``a`` started ``start_damage``
    hit points down against a fresh ``b`` (streams as :func:`fight_mc`); counts of
    ``a``'s end: able having lost ``d`` (``d < a.hit_points``; a recovery above the
    maximum counts 0), then dead, dying, out at ``a.hit_points + 1..3``."""

    fa, fb = _fighter(a, "a"), _fighter(b, "b")
    v = _variants(variants)
    cap = check_round_cap(round_cap, 1000)
    health = fa.hit_points
    start_damage = check_start_damage(start_damage, health)
    F = np.ascontiguousarray(np.stack([fa.array(), fb.array()]))
    F[0, F_START] = start_damage
    _, sums = run_chunks(_fight_kernel, (F, np.array([0, 1], dtype=np.int64), v.rule(),
                                         np.int64(cap)), SYSTEM, trials, seed, cap, _FIELDS,
                         end_columns=health + 4)
    return sums["end"]


def fight_mc(side0: list, side1: list, trials: int = 100_000, seed: Seed = None,
             variants: Variants | None = None, round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo of whole N-vs-M fights (E10–E16; module docstring for the gaps).

    Returns raw counts in a :class:`~engines.fight.FightStats` (``trials`` set).

    Examples
    --------
    >>> a = Fighter(attack=7, damage=6, toughness=3, parry=7, dodge=7, fortitude=4,
    ...             hit_points=25)
    >>> int(fight_mc([a], [a], trials=10_000, seed=1).outcome.sum())
    10000
    """
    fighters = [_fighter(x, f"side0[{k}]") for k, x in enumerate(side0)] + \
        [_fighter(x, f"side1[{k}]") for k, x in enumerate(side1)]
    if not side0 or not side1:
        raise InputError("fight_mc: each side needs at least one fighter")
    if len(fighters) > 64:
        raise InputError(f"fight_mc: at most 64 combatants, got {len(fighters)}")
    v = _variants(variants)
    cap = check_round_cap(round_cap, 1000)
    F = np.ascontiguousarray(np.stack([f.array() for f in fighters]))
    side = np.array([0] * len(side0) + [1] * len(side1), dtype=np.int64)
    stats, _ = run_chunks(_fight_kernel, (F, side, v.rule(), np.int64(cap)), SYSTEM, trials,
                          seed, cap, _FIELDS)
    start = np.array([len(side0), len(side1)], dtype=np.int64) * int(trials)
    stats.standing[:] = start + np.cumsum(stats.standing, axis=0)
    stats.notes.update(method="monte_carlo", variants=dataclasses.asdict(v),
                       fighters=[f.name for f in fighters])
    return stats


def duel_mc(a, b, trials: int = 100_000, seed: Seed = None, variants: Variants | None = None,
            round_cap: int = ROUND_CAP) -> FightStats:
    """Monte Carlo 1-vs-1 duel (``a`` is side 0): :func:`fight_mc` with one fighter a side."""
    return fight_mc([a], [b], trials, seed, variants, round_cap)


# ---------------------------------------------------------------------------------------
# Exact: one attack, enumerated die by die
# ---------------------------------------------------------------------------------------

# Exact life codes: hit points ≥ 1 (able), 0 incapacitated, -1/-2/-3 dying with 0/1/2
# failures, -4 dead.
L_INCAP, L_DEAD = 0, -4


def _dying_code(failures: int) -> int:
    return L_DEAD if failures >= DEATH_FAILURES else -1 - failures


def _fortitude_dist(fort: int, exhausted: bool, failures: int) -> dict[int, float]:
    """E14: new life code after one Fortitude check vs DC 15 (E2 degrees, E3 naturals)."""
    out: dict[int, float] = {}
    for r in range(1, 21):
        tot = r + fort - (EXHAUSTED_PENALTY if exhausted else 0) + (5 if r == 20 else 0)
        deg = 1 + (tot - DYING_DC) // 5 if tot >= DYING_DC else -(1 + (DYING_DC - tot) // 5)
        if r == 1 and deg > 0:
            deg = -1
        if deg >= 2:
            code = L_INCAP
        elif deg == 1:
            code = _dying_code(failures)
        else:
            code = _dying_code(failures - deg)
        out[code] = out.get(code, 0.0) + 1 / 20
    return out


def _reroll_face(r2: int, reroll_nat: bool) -> tuple[int, int]:
    return (r2 + 10 if r2 <= 10 else r2), (2 if r2 == 20 else 1 if (r2 == 1 and reroll_nat) else 0)


def _attack_totals(att: np.ndarray, tgt: np.ndarray, rule: np.ndarray, a_eff: int,
                   a_hero: bool, defenceless: bool, t_buff: bool,
                   vul: bool = False) -> dict[tuple, float]:
    """E11/E3/E13/E9/E8/E16: {(attack total X or None for a miss, hero spent): p};
    ``vul``: the target is vulnerable (E17: Parry/Dodge halved, E-g15 rounding); a
    defenceless target is prone (E17: +5 to hit in melee, −5 at range)."""
    bonus = int(att[F_ATK] + att[F_MHIT])
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
        dc = base + int(tgt[F_MDEF]) + (RECOVERY_DEFENCE if t_buff else 0) + 10

    def total_of(v: int, nat: int, crit: bool) -> int:
        deg_total = v + bonus + (5 if (nat == 2 and rule[R_CRIT_DEG]) else 0)
        excess = (deg_total - dc) // 5 if (deg_total >= dc and rule[R_DEGREE_DMG]) else 0
        return int(att[F_DMG] + excess + DAMAGE_OFFSET + att[F_MDMG]
                   + (CRIT_DAMAGE if crit else 0))

    out: dict[tuple, float] = {}

    def add(key, p):
        out[key] = out.get(key, 0.0) + p

    if defenceless and not rule[R_DEF_ROLL]:
        total = 10 + bonus
        if total >= dc:
            excess = (total - dc) // 5 if rule[R_DEGREE_DMG] else 0
            add((int(att[F_DMG] + excess + DAMAGE_OFFSET + att[F_MDMG]), 0), 1.0)
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


def _resist_dist(x: int, tgt: np.ndarray, rule: np.ndarray, t_exh: bool, t_hero: bool,
                 threshold: int) -> dict[tuple, float]:
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


def _attack_dist(att, tgt, rule, a_eff, a_hero, defenceless, t_buff, t_exh, t_hero,
                 threshold, vul=False) -> dict[tuple, float]:
    """{(damage or -1 for a miss, attacker hero spent, target hero spent): p}."""
    out: dict[tuple, float] = {}
    for (x, a_sp), p in _attack_totals(att, tgt, rule, a_eff, a_hero, defenceless,
                                       t_buff, vul).items():
        if x is None:
            out[(-1, a_sp, 0)] = out.get((-1, a_sp, 0), 0.0) + p
            continue
        for (d, t_sp), q in _resist_dist(x, tgt, rule, t_exh, t_hero, threshold).items():
            key = (d, a_sp, t_sp)
            out[key] = out.get(key, 0.0) + p * q
    return out


def attack_damage(attacker, target, variants: Variants | None = None, *,
                  defenceless: bool = False, vulnerable: bool = False) -> np.ndarray:
    """Exact damage distribution of one attack (E11, E3, E12; E13 when ``defenceless``;
    E17 when ``vulnerable``: the target's Parry/Dodge halved, E-g15).

    ``out[d]`` = P(damage = d); a miss counts as 0. No hero point or extra effort is
    spent; the attacker's maneuver (E16) applies.
    """
    att = _fighter(attacker, "attacker").array()
    tgt = _fighter(target, "target").array()
    att[F_EFFORT] = 0
    rule = _variants(variants).rule()
    dist = _attack_dist(att, tgt, rule, 0, False, defenceless, False, False, False, 1,
                        vulnerable)
    top = max(max(d for d, _, _ in dist), 0)
    out = np.zeros(top + 1)
    for (d, _, _), p in dist.items():
        out[max(d, 0)] += p
    return out


def _feint_p(fa: np.ndarray, fb: np.ndarray, a_exh: bool, b_exh: bool) -> float:
    ba = int(fa[F_DECEP]) - (EXHAUSTED_PENALTY if a_exh else 0)
    bb = int(fb[F_READ]) - (EXHAUSTED_PENALTY if b_exh else 0)
    wins = sum(1 for ra in range(1, 21) for rb in range(1, 21)
               if ra + ba > rb + bb or (ra + ba == rb + bb and ba > bb))
    return wins / 400


def feint_chance(feinter, target) -> float:
    """E16 feint (E5 opposed, E-g15): exact P(the target becomes vulnerable, E17)."""
    return _feint_p(_fighter(feinter, "feinter").array(), _fighter(target, "target").array(),
                    False, False)


def initiative_first(a, b, variants: Variants | None = None) -> float:
    """E10 (+E-g10): exact P(``a`` acts before ``b``)."""
    fa = _fighter(a, "a").array()
    fb = _fighter(b, "b").array()
    rule = _variants(variants).rule()
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


# ---------------------------------------------------------------------------------------
# Exact duels: absorbing Markov chain
# ---------------------------------------------------------------------------------------

def _hero_left(f) -> int:
    return int(f[F_HERO]) if f[F_HUSE] != 0 else 0


class _Duel:
    """Half-turn transitions of a duel; states are (turn, f, A, B), A = (life, rec, hero, eff,
    vul): ``vul`` 0 nothing pending, 1 the foe is vulnerable (E17) to A's next attack (a
    won feint or the surprise attack, E16), 2 A's feint failed and it attacks next, 3 A is
    surprised (E17: vulnerable and stunned) and loses its next (first) turn (E-g19
    ``surprise_attack``: a surpriser acting first starts with its foe's flag 0)."""

    def __init__(self, fa: np.ndarray, fb: np.ndarray, rule: np.ndarray):
        self.f = (fa, fb)
        self.rule = rule
        self.finish = 2 * int(rule[R_FINISH])
        self.memo: dict = {}

    def _hit_life(self, k: int, life: int, d: int, eff: int) -> dict[int, float]:
        """E12/E13/E14: target ``k``'s new life code after a hit for ``d`` damage."""
        if d < 1:
            return {life: 1.0}
        if life >= 1:
            return {max(life - d, 0): 1.0}
        if life == L_INCAP:
            if 1 + d // 5 >= INSTANT_DEATH_DEGREES:
                return {L_DEAD: 1.0}
            if self.rule[R_DYING_ACQ]:
                return _fortitude_dist(int(self.f[k][F_FORT]), eff >= 2, 0)
            return {-1: 1.0}
        return {L_DEAD: 1.0}

    def _switched(self, k: int, life: int) -> bool:
        pct = int(self.rule[R_DEFENSIVE_PCT])
        return pct > 0 and life * 100 <= pct * int(self.f[k][F_HP])

    def _attack(self, k, xs, ys):
        """Outcomes of fighter k (state xs) attacking the other (state ys)."""
        att, tgt = self.f[k], self.f[1 - k]
        ylife = ys[0]
        a_sw = self._switched(k, xs[0])
        t_sw = ylife >= 1 and self._switched(1 - k, ylife)
        t_hero = ys[2] > 0 and tgt[F_HUSE] == 2
        threshold = ylife if ylife >= 1 else 1
        vul = xs[4] == 1
        key = (k, xs[3], xs[2] > 0, ylife < 1, ys[1] == 1, ys[3] >= 2, t_hero,
               threshold if t_hero else 0, a_sw, t_sw, vul)
        dist = self.memo.get(key)
        if dist is None:
            if a_sw:
                att = att.copy()
                att[F_MHIT], att[F_MDMG] = DEFENSIVE[0], DEFENSIVE[1]
            if t_sw:
                tgt = tgt.copy()
                tgt[F_MDEF] = DEFENSIVE[2]
            dist = _attack_dist(att, tgt, self.rule, xs[3], xs[2] > 0 and att[F_HUSE] == 1,
                                ylife < 1, ys[1] == 1, ys[3] >= 2, t_hero, threshold, vul)
            self.memo[key] = dist
        new_eff = xs[3] + 1 if xs[3] < att[F_EFFORT] else xs[3]
        out = []
        for (d, a_sp, t_sp), p in dist.items():
            nx = (xs[0], xs[1], xs[2] - a_sp, new_eff, 0)
            if d < 0:
                out.append((p, nx, ys, -1))
                continue
            for life, q in self._hit_life(1 - k, ylife, d, ys[3]).items():
                out.append((p * q, nx, (life, ys[1], ys[2] - t_sp, ys[3], ys[4]), d))
        return out

    def step(self, state):
        """[(p, next state, damage of a hit or -1)] for one half-turn."""
        turn, f, a, b = state
        decided = not (a[0] >= 1 and b[0] >= 1)
        if decided and (f >= self.finish or a[0] == L_DEAD or b[0] == L_DEAD):
            return [(1.0, state, -1)]
        xs, ys = (a, b) if turn == 0 else (b, a)
        fx = self.f[turn]
        life = xs[0]
        if life in (L_DEAD, L_INCAP):
            outs = [(1.0, xs, ys, -1)]
        elif life < 0:
            outs = [(p, (nl, xs[1], xs[2], xs[3], xs[4]), ys, -1) for nl, p in
                    _fortitude_dist(int(fx[F_FORT]), xs[3] >= 2, -1 - life).items()]
        elif xs[4] == 3:
            outs = [(1.0, (*xs[:4], 0), ys, -1)]  # E17 surprised: stunned, loses the turn
        else:
            if xs[1] == 1:
                xs = (xs[0], 2, xs[2], xs[3], xs[4])
            if not decided and xs[1] == 0 and life <= fx[F_RECOV]:
                hp = life + RECOVERY_HP
                if self.rule[R_REC_CAP]:
                    hp = min(hp, int(fx[F_HP]))
                outs = [(1.0, (hp, 1, xs[2], xs[3], xs[4]), ys, -1)]
            elif ys[0] == L_DEAD:
                outs = [(1.0, xs, ys, -1)]
            elif fx[F_FEINT] and not decided and xs[4] == 0:
                # E16 feint (E-g15): the standard action goes on the feint
                p = _feint_p(fx, self.f[1 - turn], xs[3] >= 2, ys[3] >= 2)
                outs = [(p, (*xs[:4], 1), ys, -1), (1 - p, (*xs[:4], 2), ys, -1)]
            else:
                outs = self._attack(turn, xs, ys)
        res = []
        for p, nx, ny, d in outs:
            na, nb = (nx, ny) if turn == 0 else (ny, nx)
            now = not (na[0] >= 1 and nb[0] >= 1)
            nf = f + 1 if decided else 0
            res.append((p, (1 - turn, nf if now else 0, na, nb), d))
        return res


def _dying_end(fort: int, exhausted: bool, failures: int, rule: np.ndarray) -> float:
    """P(dead) for a combatant dying with ``failures`` at the aftermath's end (``leave``:
    E14 checks until dead or stabilised, closed form; ``first_aid`` first: up to
    ``aid_tries`` Healing checks, each failed one followed by an E14 check, E-g17/E-g18).
    The rest ends stabilised ("out"): E14 always resolves, so nobody stays dying."""
    step = {k: _fortitude_dist(fort, exhausted, k) for k in range(DEATH_FAILURES)}
    code = {k: _dying_code(k) for k in range(DEATH_FAILURES)}
    # leave: x[k] = P(dead | k failures); a check either stabilises, keeps k (one degree
    # of success) or adds failures, so solve from k = 2 down
    leave: dict[int, float] = {L_DEAD: 1.0, L_INCAP: 0.0}
    for k in range(DEATH_FAILURES - 1, -1, -1):
        stay = step[k].get(code[k], 0.0)
        leave[code[k]] = sum(p * leave[c] for c, p in step[k].items()
                             if c != code[k]) / (1.0 - stay)
    if int(rule[R_AFTERMATH]) != AFT_FIRST_AID:
        return leave[_dying_code(failures)]
    bonus = int(rule[R_AID_BONUS])
    p_aid = sum(1 for r in range(2, 21) if r + bonus + (5 if r == 20 else 0) >= AID_DC) / 20
    dist = {_dying_code(failures): 1.0}
    dead = 0.0
    for _ in range(int(rule[R_AID_TRIES])):
        nxt: dict[int, float] = {}
        for c, p in dist.items():
            for c2, q in step[-1 - c].items():
                if c2 == L_DEAD:
                    dead += p * (1 - p_aid) * q
                elif c2 != L_INCAP:
                    nxt[c2] = nxt.get(c2, 0.0) + p * (1 - p_aid) * q
        dist = nxt
    return dead + sum(p * leave[c] for c, p in dist.items())


def _fates_of(states: list, pos: int, f: np.ndarray, rule: np.ndarray) -> np.ndarray:
    """[n, 4]: P(standing, dead, dying, out) of the fighter at ``state[pos]`` once the
    aftermath is over (Lethality outcomes), for each exact state."""
    out = np.zeros((len(states), 4))
    memo: dict = {}
    for k, st in enumerate(states):
        life, eff = st[pos][0], st[pos][3]
        key = (life, eff >= 2)
        row = memo.get(key)
        if row is None:
            if life >= 1:
                row = (1.0, 0.0, 0.0, 0.0)
            elif life == L_DEAD:
                row = (0.0, 1.0, 0.0, 0.0)
            elif life == L_INCAP:
                row = (0.0, 0.0, 0.0, 1.0)
            else:
                pd = _dying_end(int(f[F_FORT]), eff >= 2, -1 - life, rule)
                row = (0.0, pd, 0.0, 1.0 - pd)
            memo[key] = row
        out[k] = row
    return out


def _too_big(fa, fb, count: str) -> str:
    return (f"duel_exact: {count} states: hit points {fa[F_HP]} and {fb[F_HP]} (E-g2) times "
            "hero points (E9), recovery (E15), extra effort (E8) and finishing (E-g7) "
            f"counters exceed the limit of {EXACT_STATE_LIMIT}; lower them or use duel_mc")


def duel_exact(a, b, variants: Variants | None = None, round_cap: int = ROUND_CAP,
               start_hp: int | None = None, end_a: np.ndarray | None = None) -> FightStats:
    """Exact 1-vs-1 duel (E10–E16) as an absorbing Markov chain; probabilities in FightStats.

    Campaign attrition: ``start_hp`` (1..a's hit points) is the hit points ``a`` starts
    with (None: full); when ``end_a`` (length a's hit points + 1) is given, P(``a`` ends
    the fight able — it won, or the cap stopped the fight — with ``h`` hit points) is
    added to ``end_a[h]`` (at the decision; the winner's hit points are then frozen).

    ``hits`` holds the expected number of hits per damage value over the fight.
    Raises :class:`InputError` when the reachable states exceed
    :data:`EXACT_STATE_LIMIT` (hit points, E-g2, drive the size).
    """
    from scipy import sparse

    fa = _fighter(a, "a").array()
    fb = _fighter(b, "b").array()
    v = _variants(variants)
    rule = v.rule()
    cap = check_round_cap(round_cap, 1000)
    duel = _Duel(fa, fb, rule)
    # fight states: both fighters' (hit points × counters); after the decision the loser
    # has 5 life codes and the winner's hit points are frozen, times the finishing counter
    tact = [(3 if f[F_RECOV] > 0 else 1) * (_hero_left(f) + 1) * (int(f[F_EFFORT]) + 1)
            * (4 if (f[F_FEINT] or rule[R_SURPRISE]) else 1) for f in (fa, fb)]
    size = [(int(f[F_HP]) + 5) * t for f, t in zip((fa, fb), tact, strict=True)]
    bound = 2 * size[0] * size[1] \
        + 2 * (duel.finish + 1) * 5 * (size[0] * tact[1] + size[1] * tact[0])
    if bound > 50 * EXACT_STATE_LIMIT:
        raise InputError(_too_big(fa, fb, f"up to {bound:.3g}"))
    surprise = int(rule[R_SURPRISE])
    hp0 = int(fa[F_HP])
    if start_hp is not None:
        if isinstance(start_hp, bool) or not isinstance(start_hp, int) \
                or not 1 <= start_hp <= hp0:
            raise InputError(f"start_hp: expected an integer 1..{hp0}, got {start_hp!r}")
        hp0 = start_hp
    s0 = (hp0, 0, _hero_left(fa), 0, {0: 0, 1: 1, 2: 3}[surprise])
    s1 = (int(fb[F_HP]), 0, _hero_left(fb), 0, {0: 0, 1: 3, 2: 1}[surprise])
    p_first = initiative_first(a, b, v)
    starts = [((0, 0, s0, s1), p_first), ((1, 0, s0, s1), 1 - p_first)]
    if surprise and rule[R_SURPRISE_STUN]:
        # E-g19 surprise_attack: when the surpriser acts first its foe's stun ends with the
        # surprise attack, before the foe's first turn
        if surprise == 1:
            starts[0] = ((0, 0, s0, (*s1[:4], 0)), p_first)
        else:
            starts[1] = ((1, 0, (*s0[:4], 0), s1), 1 - p_first)
    index: dict = {}
    states: list = []
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    hrows: list[int] = []
    hcols: list[int] = []
    hvals: list[float] = []
    for st, _ in starts:
        if st not in index:
            index[st] = len(states)
            states.append(st)
    k = 0
    while k < len(states):
        st = states[k]
        for p, nxt, d in duel.step(st):
            j = index.get(nxt)
            if j is None:
                j = index[nxt] = len(states)
                states.append(nxt)
                if len(states) > EXACT_STATE_LIMIT:
                    raise InputError(_too_big(fa, fb, f"more than {EXACT_STATE_LIMIT}"))
            rows.append(k)
            cols.append(j)
            vals.append(p)
            if d >= 0:
                hrows.append(k)
                hcols.append(min(d, DAMAGE_BINS - 1))
                hvals.append(p)
        k += 1
    n = len(states)
    step_t = sparse.csr_matrix((vals, (cols, rows)), shape=(n, n))
    hit_t = sparse.csr_matrix((hvals, (hcols, hrows)), shape=(DAMAGE_BINS, n))
    life_a = np.array([s[2][0] for s in states])
    life_b = np.array([s[3][0] for s in states])
    able_a = (life_a >= 1).astype(float)
    able_b = (life_b >= 1).astype(float)
    undecided = (able_a > 0) & (able_b > 0)
    win0 = (able_a > 0) & (able_b == 0)
    win1 = (able_b > 0) & (able_a == 0)
    vec = np.zeros(n)
    for st, p in starts:
        vec[index[st]] += p
    stats = FightStats.empty(SYSTEM, cap, trials=None, dtype=float)
    stats.standing[0] = [1.0, 1.0]
    prev = np.zeros(2)
    for t in range(1, 2 * cap + 1):
        stats.hits += hit_t @ vec
        vec = step_t @ vec
        now = np.array([vec[win0].sum(), vec[win1].sum()])
        stats.rounds[(t + 1) // 2, :2] += now - prev
        prev = now
        if t % 2 == 0:
            stats.standing[t // 2] = [vec @ able_a, vec @ able_b]
    stats.outcome[:2] = prev
    stats.outcome[2] = vec[undecided].sum()
    stats.rounds[cap, 2] = stats.outcome[2]
    if end_a is not None:
        keep = win0 | undecided
        np.add.at(end_a, np.minimum(life_a[keep], end_a.size - 1), vec[keep])
    vec[undecided] = 0.0
    for _ in range(duel.finish):
        stats.hits += hit_t @ vec
        vec = step_t @ vec
    # the aftermath's end (leave / first_aid) as closed forms on each final state; fights
    # stopped at the cap keep their mass out of ``vec``: both fighters standing (a duel
    # is undecided only while both can act)
    fate_a = _fates_of(states, 2, fa, rule)
    fate_b = _fates_of(states, 3, fb, rule)
    neither = np.array([stats.outcome[2], 0.0, 0.0, 0.0])
    stats.fates[0] = vec @ fate_a + neither
    stats.fates[1] = vec @ fate_b + neither
    stats.fates_sq[:] = stats.fates      # a duel's per-side counts are 0 or 1
    stats.loser_fate[0] = (vec * win0) @ fate_b[:, 1:]
    stats.loser_fate[1] = (vec * win1) @ fate_a[:, 1:]
    stats.loser_fate_sq[:] = stats.loser_fate
    stats.loser_dead[:] = stats.loser_fate[:, 0]
    stats.deaths[:] = stats.fates[:, 1]
    stats.notes.update(method="exact", states=n, variants=dataclasses.asdict(v),
                       p_first=p_first)
    return stats


def mean_rounds(stats: FightStats) -> float:
    """Mean length of the fights in rounds (a fight stopped at the cap counts the cap)."""
    return float(np.arange(stats.rounds.shape[0]) @ stats.rounds_pmf())


def hit_points_for_rounds(fighter, rounds: float, variants: Variants | None = None,
                          round_cap: int = ROUND_CAP, max_hit_points: int = 200,
                          trials: int = 50_000, seed: Seed = 0) -> int:
    """E-g2 solved for: the fewest hit points that make an even duel (``fighter`` against
    itself, both with those hit points) last at least ``rounds`` rounds on average.

    Lengths grow with hit points, so a bisection over 1..``max_hit_points`` needs a few
    Monte Carlo runs (``trials`` each; every run uses the same ``seed``, so the search is
    deterministic). Raises :class:`InputError` if even ``max_hit_points`` is too short.
    """
    f = _fighter(fighter, "fighter")
    if not 0 < rounds <= check_round_cap(round_cap, 1000):
        raise InputError(f"rounds: expected a number in (0, {round_cap}], got {rounds!r}")
    ss = np.random.SeedSequence(seed) if not isinstance(seed, np.random.SeedSequence) else seed

    def length(hp: int) -> float:
        g = dataclasses.replace(f, hit_points=hp)
        return mean_rounds(duel_mc(g, g, trials, ss, variants, round_cap))

    if length(max_hit_points) < rounds:
        raise InputError(f"hit_points_for_rounds: even {max_hit_points} hit points give "
                         f"duels shorter than {rounds} rounds; raise max_hit_points")
    lo, hi = 0, max_hit_points   # length(lo) < rounds ≤ length(hi), length(0) taken as 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if length(mid) >= rounds:
            hi = mid
        else:
            lo = mid
    return hi


def one_hit(attacker, target, variants: Variants | None = None) -> dict:
    """What one attack does to an unhurt, able target (E11, E3, E12, E13, E-g14).

    ``p_hit``: the attack hits (E11, E3; no hero point spent, as in
    :func:`attack_damage`; the attacker after its extra-effort uses, E8: no +2 left,
    −2 only when two uses exhausted it); ``p_incapacitate``: the damage reaches the target's hit
    points (E13: 0 → incapacitated); ``p_kill``: 0 — only hits on a defenceless target
    kill at once (E13, E-g14).

    ``p_dead``, ``p_dying``, ``p_out`` (summing to ``p_incapacitate``): the attack drops
    the target and it then ends dead / dying / out under the ``aftermath`` variant
    (Lethality outcomes). Under ``leave`` and ``first_aid`` an incapacitated target is
    stable (E13: only a further hit makes it dying), so all of it is ``p_out``; under
    ``finish`` the attacker, as in a duel it has just won, attacks the fallen target for
    ``finish_rounds`` rounds (E13, E16 finishing, E17 prone; the target's E14 checks in
    its turns, its own first), then ``leave``. ``p_dying`` is 0 (E14 always resolves).
    """
    att = _fighter(attacker, "attacker").array()
    tgt = _fighter(target, "target").array()
    rule = _variants(variants).rule()
    # E8: after its effort uses: one use only fatigues (no penalty), two exhaust (−2)
    dist = _attack_dist(att, tgt, rule, int(att[F_EFFORT]), False,
                        False, False, False, False, 1)
    hp = int(tgt[F_HP])
    p_inc = float(sum(p for (d, _, _), p in dist.items() if d >= hp))
    # the fallen target, its turn next; the attacker unhurt, after its effort uses
    duel = _Duel(att, tgt, rule)
    a0 = (int(att[F_HP]), 0, _hero_left(att), int(att[F_EFFORT]), 0)
    cur = {(1, 0, a0, (L_INCAP, 0, _hero_left(tgt), 0, 0)): 1.0}
    for _ in range(duel.finish):   # 2 × finish_rounds half-turns, 0 unless finish
        nxt: dict = {}
        for st, p in cur.items():
            for q, st2, _d in duel.step(st):
                nxt[st2] = nxt.get(st2, 0.0) + p * q
        cur = nxt
    states = list(cur)
    fate = p_inc * (np.array([cur[st] for st in states]) @ _fates_of(states, 3, tgt, rule))
    return {"p_hit": float(sum(p for (d, _, _), p in dist.items() if d >= 0)),
            "p_incapacitate": p_inc, "p_kill": 0.0, "p_dead": float(fate[1]),
            "p_dying": float(fate[2]), "p_out": float(fate[3])}
