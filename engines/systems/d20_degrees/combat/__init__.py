"""Whole fights in ``d20_degrees`` (RULES.md E10–E17, ET1–ET4, seed 004): Monte Carlo and
exact duels.

Rules implemented (ids from RULES.md; gaps this package settles are E-g4 … E-g19 and
ET-g1 … ET-g6; ET4 was gap E-g3):

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
  (take 10) or by a roll vs DC 10 where a hit is a critical, as the attacker wishes
  (**ET4**, ``defenceless_attack``). It is also prone (E17, seed: "Incapacitado ... além
  de se encontrar Deitado"; the dying are incapacitated too): +5 to hit it in melee, −5
  at range, in the attack total (so in its excess degrees) — a ranged routine attack
  with a bonus under +5 never hits a fallen foe (ET4: such an attacker rolls). A hit on
  an incapacitated target calls its resistance roll: any damage → dying; failing by 3+
  degrees (damage ≥ 10, since failing by 5·k more adds k degrees, E2) → dead at once.
  A dying target that takes any damage → dead (E-g13).
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

- **ET4** ``defenceless_attack`` (formerly gap E-g3, whose fixed modes stay variants):
  ``best`` (default) — the attacker's choice (seed: "Caso o atacante deseje fazer a
  rolagem"): it rolls when a roll gives this attack the higher chance to kill the target
  (incapacitated: damage ≥ 10, E13; dying: any damage, E-g13), then to wound it; a tie
  keeps the routine; the dice only weigh in (no hero point); ``routine`` (take 10: 10 +
  bonus vs DC 10, no critical) | ``roll`` (d20 + bonus vs DC 10, a hit is a critical) |
  ``needed`` (routine, rolled only when the routine total cannot hit: a shooter with
  attack below +5 on a prone foe).
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

Distance (docs/RULES.md "E-dist"; variant ``distance``, default 0 = engaged, every fight
above unchanged). A fight that starts ``distance`` metres apart is played on one line
(ET-g3: side 0 at 0 m, side 1 at the distance, each fighter its own position; melee reach
is contact, a ranged weapon reaches its long range; targets by reach, else the nearest):

- **ET1** one standard and one move (8 m) a turn, the standard tradable for a second
  move; the Athletics dash (``athletics_dash``, ET-g4: d20 + Athletics vs DC 15 when the
  turn's movement exceeds one move) makes each move 16 m for the turn.
- **ET2** the Encontrão (``charge_slam``, default off; ET-g6): a melee fighter closing
  into contact with one move hits with rank max(0, damage) + 1 (+1 after a full 8 m
  move) and resists half that rank itself on a hit. Both sides down at once: neither.
- **ET3** prone (E17, "como se tivesse cobertura total"): −5 to ranged and +5 to melee
  attacks against it, standing up is a move; **ET-g1** partial cover −2 to ranged attacks
  (``cover`` = ``prone`` | ``partial``: what the ``cover`` plan takes).
- **ET-g2** range bands of a ranged weapon (``Fighter.ranges``: short 0, medium −2, long
  −5, beyond no attack), on every ranged attack.
- Plans (``Fighter.plan``, :data:`engines.distance.PLANS`, ET-g5): ``charge`` (close to
  contact, then fight), ``hold`` (attack what is in reach, else close), ``kite`` (a
  shooter steps away from a melee foe within 8 m, then shoots) and ``cover`` (a shooter
  takes cover, then shoots; stands when a foe reaches it). Default: ``hold`` with a ranged
  weapon, else ``charge``.

The exact chain carries (distance, cover of each fighter) in its state (the distances
that matter are few: 8 and 16 m steps from the start or from contact); the kernel keeps
a position and a cover flag per fighter. A fight starting engaged with no kiter runs
the engaged code paths unchanged.

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

Layout: :mod:`.rules` (constants, array layouts, :class:`Variants`, :class:`Fighter`),
:mod:`.kernel` (the Monte Carlo kernel and its drivers), :mod:`.attack` (one attack, the
feint and initiative, exact), :mod:`.exact` (the exact duel chain, :func:`one_hit`); this
package re-exports what the rest of the suite uses. The private names it re-exports
(``from .m import _x as _x``) are those the system's campaign module and the tests reach.
"""

from .attack import L_DEAD, L_INCAP, attack_damage, feint_chance, initiative_first
from .exact import Duel as Duel
from .exact import duel_exact, hit_points_for_rounds, mean_rounds, one_hit
from .exact import dying_end as dying_end
from .kernel import apply_first_aid as apply_first_aid
from .kernel import duel_mc, duel_mc_end, fight_mc
from .kernel import fight_kernel as fight_kernel
from .kernel import fortitude_check as fortitude_check
from .rules import DYING, HERO_USES, INCAP, MANEUVERS, SYSTEM, Fighter, Variants

__all__ = [
    "DYING",
    "HERO_USES",
    "INCAP",
    "L_DEAD",
    "L_INCAP",
    "MANEUVERS",
    "SYSTEM",
    "Fighter",
    "Variants",
    "attack_damage",
    "duel_exact",
    "duel_mc",
    "duel_mc_end",
    "feint_chance",
    "fight_mc",
    "hit_points_for_rounds",
    "initiative_first",
    "mean_rounds",
    "one_hit",
]
