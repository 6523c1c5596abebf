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
- **B6** a turn is move + one action (here: one attack; the move is BT1 below). Everyone
  is flat-footed (Defense −3) until it
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

Distance (RULES.md "Distance, movement and cover"; shared names in
:mod:`engines.distance`): a fight starts ``distance`` metres apart (variant, **BT1**; 0,
the default, is engaged: the fights without distance, unchanged).

- **BT1** "Cada turno: mover + 1 ação": each turn a move, then one attack on a foe in
  reach (``melee_reach``, 1 m) or range; the move does not cost the attack. **BT-g1**
  (variant ``move``, 8 m, the d20 seed's move): the metres of a move, the same for
  everyone. **BT-g2** (variants ``range_penalty`` 2 and ``range_increments`` 10): each
  firearm class has a range increment (the data file's category ``range``: d20 Modern
  SRD, Glock 17 30 ft, M16A2 80 ft, M60 100 ft); a shot loses 2 points per full
  increment between shooter and target and reaches ten increments.
- Each combatant's *plan* (``charge``, ``hold``, ``kite``; ``cover`` is refused: the seed
  has no cover rule; default: hold with a ranged weapon, else charge) sets where its move
  stops (:func:`.rules.turn_move`). A turn with no foe in reach or range after the move
  is the move alone; it still counts as acting (B6).
- Group fights: every combatant stands on one line (side 0 at 0 m, side 1 at the
  starting distance); each attack picks among the standing foes in its reach or range
  (B-g9).

Combat gaps introduced here (not settled by the seed): **B-g7** drama timing, **B-g8**
critical benefit, **B-g9** target choice with several opponents (``targeting``).

The surprise round, when there is one, comes "antes da primeira rodada normal" (B6), so
it does not count against the round cap. Round 0 of every table is the start of the
fight, as in every system: the rounds table counts a fight the surprise round decides in
round 1, and the standing table's row 1 includes the surprise round's casualties.

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

Layout: :mod:`.rules` (constants, row and rule-array layouts, :class:`Variants`,
:class:`Combatant`), :mod:`.kernel` (the Monte Carlo kernel and its drivers),
:mod:`.attack` (one attack, exact), :mod:`.exact` (the aftermath, the exact duel chain,
:func:`one_hit`); this package re-exports what the rest of the suite uses. The private
names it re-exports (``from .m import _x as _x``) are those the system's campaign module
and the tests reach.
"""

from .attack import attack_damage
from .attack import attack_table as attack_table
from .attack import massive_pass as massive_pass
from .exact import duel_exact, fate_probs, one_hit
from .exact import p_first as p_first
from .kernel import duel_mc, duel_mc_end, fight_mc
from .kernel import mc_kernel as mc_kernel
from .kernel import wound_penalty as wound_penalty
from .rules import DEFAULT, FLAT_FOOTED, NO_PLAN, SYSTEM, TACTICS, Combatant, Variants

__all__ = [
    "DEFAULT",
    "FLAT_FOOTED",
    "NO_PLAN",
    "SYSTEM",
    "TACTICS",
    "Combatant",
    "Variants",
    "attack_damage",
    "duel_exact",
    "duel_mc",
    "duel_mc_end",
    "fate_probs",
    "fight_mc",
    "one_hit",
]
