"""Whole fights in ``dice_pool_6`` (RULES.md C6, C10–C13, seed 002), Monte Carlo and exact.

The seed gives conflicts in a few lines; this package reads them so:

- **C10/C11** an attack is a contest: the attacker rolls its attack pool, the defender
  its dodge pool (C1 dice: 6+ succeed, C-g1; pairs of 10s count 4, C-g2); the attacker
  wins with equal or more successes. Variant ``tie_needs_success`` (C10, not settled by
  the seed): a 0–0 tie is still the attacker's win (literal, default) or a miss.
- **C11** damage = margin + the weapon's damage bonus; **C-g4** (variant
  ``min_damage``): a win with margin 0 and a +0 weapon deals 0 (default) or 1.
  The seed gives no weapon table: the bonuses +0..+4 in the data file are assumptions.
- **C12** against a ranged attack the defender's dodge pool gets −2 dice without cover,
  +1 with partial and +2 with full cover (a property of each combatant's position).
- **C13** a defender loses one die for each earlier attack against it in the round;
  an attacker may split its pool among all able enemies (one attack each, the dice
  dealt out as evenly as possible; the first targets get the odd dice).
- **C6** health = Stamina + 3: a combatant drops when its damage reaches its health.
  Willpower = Composure + Resolve is computed but the seed gives it no use in a fight.
- **C-g5** the seed has no death (variant ``death``). Default ``double_health``, from
  Vampire 5th edition, the game the seed derives from: the seed's one kind of damage is
  read as V5's superficial damage (the seed even counts "o peso de uma enorme humilhação
  pública" as damage); a full track impairs and knocks out, each further point upgrades
  a box to aggravated, and a mortal whose track is all aggravated dies — dead when the
  damage reaches 2 × health. ``never`` is the seed's literal silence (no one ever dies:
  the engine would report 0 deaths); ``at_health`` reads every hit as V5's aggravated
  damage of blades and bullets (a combatant that drops is dead).
- **C-g6** neither the seed nor V5 (for mortals) has bleeding or a stabilising rule: a
  fallen combatant that is not dead is **out** (never dying), and the ``first_aid``
  aftermath changes nothing (a gap: no rule to try).
- **C-g7** ``finish``: each standing winner (side 0 first, then by row) makes one attack a
  round (C10, C11) on the first fallen foe still alive, for at most ``finish_rounds``
  rounds (default 10); the helpless target's dodge pool (variant ``helpless_dodge``) is
  0 dice (``zero``, default: it cannot dodge) or its full pool, which loses one die for
  each earlier finishing attack on it in the round (C13, "apanhando = menos um dado a
  cada ataque sucessivo", as in the fight). Under ``death = never`` nothing kills, so the
  foe stays out. The winners' own fallen are left.
- Each combatant makes one attack per round. The seed gives no initiative; variant
  ``order`` (C11, not settled by the seed): a fresh random order every round (default),
  one random order per fight, or side 0 first.

Distance (RULES.md "Distance, movement and cover"; shared names in
:mod:`engines.distance`): a fight starts ``distance`` metres apart (variant, **CT1**;
0, the default, is engaged: the fights without distance, unchanged).

- **CT1** "Armas de distância": a ranged conflict is a conflict like the others but for
  C12's cover; the seed gives shots no range and no range penalty, so a ranged weapon
  shoots from wherever it stands.
- **CT-g1** (movement per turn; variants ``close_band`` 13 m, ``medium_band`` 26 m,
  ``melee_reach`` 1 m): one action a turn; a melee fighter attacks a foe within its
  reach; within the close band it closes and still attacks; from the medium band
  (beyond the close band, up to ``medium_band``) closing takes one turn in which it does
  not attack; from farther each such turn runs ``medium_band`` metres. The metres are
  Vampire: The Masquerade 20th Anniversary Edition's (p. 274: a run covers 20 + 3 ×
  Dexterity metres a turn, and a character may move half of that and still act), at
  Dexterity 2 for everyone: the seed has no movement trait.
- **CT-g2** (variant ``cover_taken``): the plan ``cover`` spends the fighter's first turn
  taking cover (no attack); from then its dodge gets partial cover's +1 die against shots
  (default; ``full``: +2), never less than the cover it stood in (its ``cover`` trait).
- Each combatant's *plan* (default: hold with a ranged weapon, else charge): a melee
  fighter charges and holds alike (its reach is its only band); a shooter charges and
  holds alike (no range penalty); ``kite`` steps the close band back from a melee foe
  within it (it could close and strike next turn) and shoots in the same turn; ``cover``
  needs a ranged weapon (cover counts only against shots).
- In N-vs-M fights every combatant stands on one line (side 0 at 0 m, side 1 at the
  starting distance): a melee fighter closes on its nearest able foe and attacks only
  foes within its reach, a kiter steps back from its nearest melee foe, and C13's split
  shares the pool among the foes it can attack. The aftermath happens engaged (the
  winners walk up to the fallen), with each fallen foe's own ``cover``; :func:`one_hit` at
  a distance reaches with a shot at any distance and with a melee weapon within
  ``melee_reach`` (else ``in_range`` False, every figure 0).

Kernel row layout: the ``C_*`` constants (built by :func:`row`).

Layout: :mod:`.rules` (constants, the ``C_*`` / ``R_*`` layouts, :class:`Variants`,
:class:`Combatant`, :func:`row`), :mod:`.kernel` (the Monte Carlo kernel and its drivers),
:mod:`.attack` (one attack, exact), :mod:`.exact` (the exact duel chain, the aftermath,
:func:`one_hit`); this package re-exports what the rest of the suite uses. The private
names it re-exports (``from .m import _x as _x``) are those the system's campaign module
and the tests reach.
"""

from .attack import attack_damage, hit_probability
from .exact import duel_exact, one_hit
from .kernel import duel_mc, duel_mc_end, fight_mc
from .kernel import fight_kernel as fight_kernel
from .rules import DEFAULT, SYSTEM, Combatant, Variants, Weapon, row, rows
from .rules import as_variants as as_variants

__all__ = [
    "DEFAULT",
    "SYSTEM",
    "Combatant",
    "Variants",
    "Weapon",
    "attack_damage",
    "duel_exact",
    "duel_mc",
    "duel_mc_end",
    "fight_mc",
    "hit_probability",
    "one_hit",
    "row",
    "rows",
]
