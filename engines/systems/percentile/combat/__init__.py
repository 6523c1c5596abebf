"""``percentile`` combat — an EXTENSION, not from the seed (RULES.md GAP D-g3, "D-ext").

Seed 003 has no combat rules. GAP D-g3 settles this with Call of Cthulhu 7th edition
combat; the rules below carry their own ids **DX1…DX16**, defined here and NOT taken from
the seed. Every result this package returns says so in ``notes["extension"]``.

- **DX1 Turn order:** descending DEX; a readied firearm acts at DEX + 50 (variant
  ``readied_firearms``); ties → the higher combat skill in use, then at random.
- **DX2 Melee:** the attacker rolls Fighting; the defender either *fights back*
  (Fighting) or *dodges* (Dodge), per its tactic; success levels are compared (D1:
  fail < regular < hard < extreme; a critical 01 counts as extreme, D-g1, or as a level
  above extreme with variant ``critical_level``). Fighting back:
  the defender must get a *higher* level (tie → attacker) and then deals its own damage.
  Dodging: the attacker must get a higher level (tie → defender). Both fail → nothing.
- **DX3 Damage** = weapon dice + damage bonus (DB) for melee (firearms add no DB); the DB
  and build come from STR + SIZ: 2–64 → −2, 65–84 → −1, 85–124 → 0, 125–164 → +1D4,
  165–204 → +1D6, then +1D6 per 80 more (205–284 → +2D6 …). Damage never goes below 0.
- **DX4 Extreme success:** blunt weapons deal maximum weapon damage + maximum DB;
  impaling weapons (blades, bullets) maximum weapon damage + maximum DB + one more weapon
  damage roll (variant ``extreme_damage``).
- **DX5 Firearms:** no fighting back and no dodging against gunfire; 2–3 shots in a round
  → a penalty die on each (D4); range (variant ``range``): point-blank gives a bonus die,
  long range needs a hard success; a shotgun rolls its long-range dice far away and never
  impales.
- **DX6 Hit points** = ⌊(CON + SIZ) / 10⌋.
- **DX7 Major wound:** one hit dealing ≥ half the maximum hit points → a CON roll, or the
  victim falls unconscious (out of the fight).
- **DX8 Zero hit points:** with a major wound → dying (out of the fight; a CON roll at the
  end of each round, failure = dead — the published game's "a CON roll at the end of each
  round"; the extension's reading: the first roll comes at the end of the round in which
  the character fell, and a dying character never stabilises by itself); without one →
  unconscious ("out", stable).
- **DX9 Instant death:** one hit dealing more than the maximum hit points kills (gap
  **DX-g1**: ``instant_death`` = ``greater`` (default), ``greater_equal`` or ``off``).
- **DX10 Outnumbered:** once a character has dodged or fought back in a round, later melee
  attacks on it in that round get a bonus die (variant ``outnumbered``; never happens in a
  duel).
- **DX11 Armour** points are subtracted from every hit.
- **DX12 Diving for cover:** a combatant with tactic ``dive_for_cover`` answers every
  firearm action aimed at it (while it can act) with a Dodge roll; on a success the
  shooter's rolls of that action (all its shots) get a penalty die (D4, combined with the
  DX5 dice). Against melee it dodges (DX2). Cost, gap **DX-g5** (variant ``cover_cost``):
  ``forfeit`` (default, the published game) — having dived, successful or not, it loses
  its next action; ``free`` — the dive costs nothing (the digest names only the penalty
  die). A dive does not count as a DX10 defence.
- **DX13 Firing into melee** (variant ``firing_into_melee``, default on: the published
  game and the D-ext digest give such a shot a penalty die): a shot at a target that
  exchanged a melee attack (either way) in this or the previous round with a still-able
  ally of the shooter gets a penalty die. There are no positions, so "engaged" is read
  from those exchanges; it never applies in a duel and is Monte Carlo only.

A fight that starts apart (variant ``distance`` > 0, metres; docs/RULES.md "Distance,
movement and cover in percentile" has the sources). Lengths are whole centimetres in the
engine (1 yard = 91.44 cm, 1 foot = 30.48 cm, rounded). Every fighter has a position on a
line (side 0 at 0, side 1 ``distance`` away) and a plan (``Combatant.plan``,
engines.distance.PLANS; default ``hold`` with a firearm, ``charge`` otherwise).

- **DX14 MOV and movement:** MOV 7 when STR and DEX are both below SIZ, 9 when both are
  above, else 8 (``Combatant.mov`` overrides). In its turn (DX1 order) a fighter moves
  toward its target (a kiter away) and acts: moving no more than MOV it acts normally; a
  charger moving up to ``charge_factor`` × MOV (default 5) reaches melee reach and makes
  one melee attack at the end of the round (after every other turn, on a target still
  able and in reach), or, farther, runs that far without attacking. Plans: a melee
  ``charge`` closes at full speed, a melee ``hold`` a MOV a turn; a shooter with plan
  ``hold`` shoots within extreme range, else closes a MOV and shoots if then in range;
  ``charge`` closes to its base range (a MOV a turn, shooting); ``kite`` steps back a MOV
  whenever its target could strike it next turn, then shoots; ``cover`` takes cover.
- **DX15 Ranges:** a firearm's base range (``Weapon.base_range``, yards): a regular
  success hits within it, a hard one up to 2 × base (long), an extreme one up to 4 × base
  (extreme; every hit there impales, DX4); beyond, no shot. Point-blank (within DEX/5
  feet) gives a bonus die, not with a long arm (gap **DX-g11**,
  ``point_blank_long_arms``). A shotgun deals 4D6 / 2D6 / 1D6 at its three ranges
  (10 / 20 / 50 yards) and (gap **DX-g10**, ``shotgun_difficulty``) needs a regular
  success at each. The ``range`` variant (DX-g2) applies only to a fight that starts
  engaged; with ``distance`` > 0 it must stay ``normal``.
- **DX16 Cover and movement:** a target in cover gives a penalty die (``cover_stance``:
  ``partial`` at every range, ``prone`` not at point-blank); a target that moved more than
  its MOV in its last turn gives a penalty die (``moving_target``: MOV 8+ by default, as
  the published "fast" target); DX12 dives unchanged. A ``cover`` fighter spends its
  first turn reaching cover (gap **DX-g12**, ``take_cover`` = ``turn``; ``free``: it acts
  that turn), then shoots from it and never moves.
- Gap **DX-g9** (``melee_reach``, default 1 m): a melee attack reaches within it.
- Group fights: each fighter its own position; targeting by reach (DX-g3 among the foes it
  can attack this turn, else among all). The aftermath of a fight that started apart is
  at point-blank (the winners walk up to the fallen).

Lethality outcomes (RULES.md "Lethality outcomes"; variant ``aftermath``): when a fight
ends, the fallen go through an aftermath of rounds ``t = 1, 2, …`` (reading **DX-r1**:
round 1 is the rest of the round in which the fight was decided, so its closing CON roll
is the first one of the aftermath; after a fight stopped at the round cap, the round after
the cap). In each round, in this order: under ``finish`` every standing winner (DX1 order)
strikes the first fallen foe not yet dead (t ≤ ``finish_rounds``; **DX-r4**: the first
blow lands in round 1); under ``first_aid`` every dying combatant of either side gets one
First Aid roll from a standing winner (t ≤ ``first_aid_tries``; **DX-r2**: the first try
comes before round 1's CON roll), a success stabilises it (→ out); then every dying
combatant rolls CON (DX8; t ≤ ``dying_horizon``, **DX-r3**: counting round 1, or every
round when it is 0), failure = dead. With
``dying_horizon`` = 0 the clock never stops: after the last strike or aid round every
dying combatant whose CON roll can fail is dead (probability 1, no draw). A fight stopped
at the round cap gets ``leave``. Fates: dead; dying (0 HP with a major wound, alive when
the aftermath ends); out (unconscious or stabilised); standing.

- GAP **DX-g6** (``dying_horizon``, default 0 = never stops): how many aftermath rounds
  the dying keep rolling CON under ``leave``; the published game has no self-stabilising,
  so left alone a dying character dies (``leave`` P(dead) counts them all).
- GAP **DX-g7** (``first_aid_skill`` default 30, the published game's base First Aid;
  ``first_aid_tries`` default 2, one roll per round: the roll and one pushed roll, D2,
  the push's worse failure not modelled): First Aid stabilises a dying character (the
  published game then asks for a Medicine roll within the hour — outside the model: a
  stabilised character counts as out). Each dying combatant is reached at once (as if
  there were enough aiders) — optimistic when the fallen outnumber the standing winners.
- GAP **DX-g8** (``finish_rounds``, default 20): attacks on a helpless (unconscious or
  dying) target — the extension's reading, not checked against the published text: no
  dodge or fight back (a regular success hits), one bonus die (D4) as for a target that
  cannot defend itself (DX5 dice still apply to gunfire), damage by DX3–DX6, DX9 and DX11;
  a hit dealing ≥ half the hit points is a major wound, so an unconscious target at 0 HP
  becomes dying (DX8); no automatic kill ("coup de grâce") and no DX7 roll (it is already
  unconscious). The strikes are not counted in ``hits``.

Gaps of the extension: **DX-g1** instant death ≥ vs >, **DX-g2** range, **DX-g3** target
choice with several opponents, **DX-g4** whether a critical 01 outranks an extreme success
when levels are compared (default: it counts as extreme; the published game ranks it
above), **DX-g5** what a dive for cover costs, **DX-g6**–**DX-g8** the aftermath (above),
**DX-g9**–**DX-g12** a fight that starts apart (above).
Not modelled: prone after a major wound, fumble consequences beyond failing, reloading,
the Medicine roll after First Aid.

The aftermath draws from its own generator stream (one per chunk, derived from the seed),
so ``outcome``, ``rounds``, ``hits`` and ``standing`` are the same numbers under every
aftermath policy and horizon; the default (``leave``, ``dying_horizon`` 0) draws nothing.
Exact duels carry the loser's fallen state (hit points, major wound) out of the chain and
run the aftermath as a small exact chain of its own.

Exact duels (:func:`duel_exact`): 1 vs 1 only, state (hit points, major wound) of each —
at most (HP+1)² · 4 states — and, in a fight that starts apart, the distance: moves never
depend on hit points or dice, so every live state shares one distance after each step
and the chain carries it as one number per step. Several combatants per side are Monte
Carlo only: the state is the product of every track, plus the dying (DX8) and
outnumbered (DX10) flags, the order and the random target choice (DX-g3), exponential in
the head count.

A combatant reaches the kernels as one int64 row (see :meth:`Combatant.row`), with the
numbers of the data file's rule tables it carries (DX6 hit points, DX7 major-wound
divisor, DX14 MOV, DX15 point-blank and range bands, DX1 readied-firearm bonus), so an
edited rule never recompiles and the exact chain reads the same numbers.

Layout: :mod:`.rules` (constants, row and rule-array layouts, :class:`Variants`,
:class:`Weapon`, :class:`Combatant`), :mod:`.kernel` (the Monte Carlo kernel and its
LEAF helpers, all compiled), :mod:`.montecarlo` (its drivers), :mod:`.attack` (one
action, exact), :mod:`.exact` (the exact duel chain, the aftermath, :func:`one_hit`);
this package re-exports what the rest of the suite uses. The private names it re-exports
(``from .m import _x as _x``) are those the system's campaign module and the tests reach.
"""

from .attack import action_outcomes as action_outcomes
from .attack import attack_damage, dives, level_pmf
from .exact import duel_exact, one_hit
from .exact import p_first as p_first
from .kernel import mc_kernel as mc_kernel
from .montecarlo import duel_mc, duel_mc_end, fight_mc
from .rules import DEFAULT, DEFENCES, EXTENSION, SYSTEM, Combatant, Variants, Weapon, damage_bonus

__all__ = [
    "DEFAULT",
    "DEFENCES",
    "EXTENSION",
    "SYSTEM",
    "Combatant",
    "Variants",
    "Weapon",
    "attack_damage",
    "damage_bonus",
    "dives",
    "duel_exact",
    "duel_mc",
    "duel_mc_end",
    "fight_mc",
    "level_pmf",
    "one_hit",
]
