"""Whole fights in ``dice_pool_7`` (RULES.md A6–A16, seed 000), Monte Carlo and exact.

Rules, as this package reads them:

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

Distance (RULES.md "Distance, movement and cover"; shared names in
:mod:`engines.distance`): a fight starts ``distance`` metres apart (variant, **AT1**;
0, the default, is engaged: the fights without distance, unchanged).

- **AT1** a move action covers Deslocamento = FOR + DES + 5 m and costs one of the two
  actions (A6); **AT2** armour takes its metres off (heavy modern −1, medium archaic −2,
  heavy archaic −3).
- **AT3** a ranged weapon's class: light ranged short ("Alcance Curto"), heavy ranged
  long ("Alcance Longo"). **AT-g1** (variants ``range_short`` 18 m, ``range_long``
  183 m, ``range_penalty`` 2): the World of Darkness bands (2004 rulebook, p. 170:
  pistol 20/40/80 yd, rifle 200/400/800 yd), medium to twice the short band (−2 dice),
  long to four times (−4), no shot beyond; the penalty is a situational modifier inside
  A2's ±5 cap. **AT-g2** (variant ``melee_reach``, 1 m): a melee attack reaches its foe
  within this.
- Each combatant's *plan* (``charge``, ``hold``, ``kite``; ``cover`` is refused: the seed
  has no cover rule; default: hold with a ranged weapon, else charge) spends the turn's
  actions on moves first (:func:`.rules.turn_moves`), then the actions left on attacks:
  none left moving is the A6 tactic as before; after one move, one plain attack.

A fight ends when one side has no one able to act (unconscious or dead), or at the round
cap ("neither"). In N-vs-M fights every combatant stands on one line (side 0 at 0 m,
side 1 at the starting distance) and each attack picks a random able enemy in its reach
or range (variant ``targeting``), and a medium or long burst takes the first able enemies
in range in order.

Kernel row layout (``int64``, one row per combatant, built by :func:`rows`): see the
``C_*`` constants; the kernel reads nothing else.

Layout: :mod:`.rules` (constants, the ``C_*`` / ``R_*`` layouts, :class:`Variants`,
:class:`Combatant`, :func:`rows`), :mod:`.kernel` (the Monte Carlo kernel and its
drivers), :mod:`.attack` (one attack, exact), :mod:`.exact` (the exact duel chain, the
aftermath, :func:`one_hit`); this package re-exports what the rest of the suite uses. The
private names it re-exports (``from .m import _x as _x``) are those the system's campaign
module and the tests reach.
"""

from .attack import attack_damage, hit_probability
from .exact import Duel as Duel
from .exact import duel_exact, one_hit
from .exact import p_first as p_first
from .kernel import duel_mc, duel_mc_end, fight_mc
from .kernel import fight_kernel as fight_kernel
from .kernel import wound as wound
from .rules import (
    BALLISTIC,
    BASHING,
    DEFAULT,
    LETHAL,
    SYSTEM,
    TACTICS,
    Armour,
    Combatant,
    Variants,
    Weapon,
    row,
    rows,
)
from .rules import as_variants as as_variants

__all__ = [
    "BALLISTIC",
    "BASHING",
    "DEFAULT",
    "LETHAL",
    "SYSTEM",
    "TACTICS",
    "Armour",
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
