"""The Python side of ``pbta_2d6``'s combat (rules PC1–PC9 and PD1–PD6 in
:mod:`pbta_2d6.combat`, the engine module the suite names, which re-exports all of this):
the combat :class:`Variants`, :class:`Weapon`, :class:`Armour` and :class:`Combatant`
(PC1, PC9, PD4, PD6), one turn's move before any roll (:func:`wants`, :func:`reaches`,
:func:`turn_step`: PD2–PD6), and the exact side — :func:`attack_damage` (one roll,
PC3–PC6), :func:`duel_exact` (the absorbing Markov chain on
:class:`engines.combat_pools.DuelChain`) and :func:`one_hit`.

Nothing here is compiled: the numba kernel, the row and rule-array layouts it reads and
the functions that build them stay in :mod:`pbta_2d6.combat`, because numba keys a
kernel's cache on its own file only (a layout changed in another file would leave a
stale compiled kernel).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines.combat_pools import DuelChain, attack_op, check_variants, finish_duel
from engines.distance import MAX_DISTANCE, check_distance, check_plan
from engines.errors import InputError
from engines.fight import AFTERMATHS, ROUND_CAP, FightStats, check_round_cap
from engines.variants import variant

from . import checks
from .checks import move_odds

__all__ = [
    "DEFAULT",
    "FISTS",
    "NO_ARMOUR",
    "NO_RULE",
    "ORDERS",
    "SYSTEM",
    "TACTICS",
    "Armour",
    "Combatant",
    "Variants",
    "Weapon",
    "attack_damage",
    "checked_variants",
    "duel_exact",
    "one_hit",
    "reaches",
    "turn_step",
    "wants",
]

SYSTEM = checks.SYSTEM
ORDERS = ("stat", "coin", "side0_first")
TACTICS = ("trade", "careful")

#: PD6: the plans this system has no rule for, and why (engines.distance.check_plan)
NO_RULE = {
    "kite": "a turn is a move or a roll and every fighter moves alike (PD2), so a "
    "shooter keeping away would never shoot: pbta_2d6 has no kite rule"
}


@dataclass(frozen=True)
class Variants(checks.Variants):
    """Combat variants of ``pbta_2d6``: the check's P2 thresholds plus these."""

    system: ClassVar[str] = SYSTEM
    order: str = variant(
        "stat",
        rule="PC-g1",
        doc="who acts first each round: the higher "
        "stat (equal stats: a fresh random order), a fresh random order, "
        "or side 0 first",
        choices=ORDERS,
    )
    targeting: str = variant(
        "random",
        rule="PC-g2",
        doc="N-vs-M: each fighter picks a random standing foe, or the first one (focus fire)",
        choices=("random", "first"),
    )
    clock: int = variant(
        6, rule="PC7", doc="harm that takes a fighter out (the clock)", choices=range(2, 13)
    )
    dead_over: int = variant(
        2,
        rule="PC-g3",
        doc="harm beyond the clock, when a fighter "
        "falls, that kills it (less but more than 0: dying)",
        choices=range(1, 7),
    )
    aftermath: str = variant(
        "leave",
        rule="Lethality outcomes",
        doc="what happens to the "
        "fallen when a fight is won: leave them (a dying fighter stays "
        "dying), first aid (PC8: 2d6 to stabilise each dying one), or "
        "the winners finish them (PC8: dead)",
        choices=AFTERMATHS,
    )
    aid_at: int = variant(
        7,
        rule="PC-g4",
        doc="first aid: the 2d6 total (no stat) that stabilises a dying fighter",
        choices=range(2, 13),
    )
    distance: int = variant(
        0,
        rule="PD1",
        doc="metres between the two sides when the "
        "fight starts (0: engaged, as in the fights without distance)",
        term="the starting distance",
    )
    move: int = variant(
        10,
        rule="PD-g1",
        doc="metres a fighter covers in a turn it spends moving (1..MAX_DISTANCE)",
        term="the move",
    )
    reach: int = variant(
        1,
        rule="PD-g2",
        doc="metres within which a melee weapon strikes",
        choices=range(4),
        term="the melee reach",
    )
    far_penalty: int = variant(
        1,
        rule="PD-g3",
        doc="taken off 2d6 + stat when shooting at a foe in a ranged weapon's far band",
        choices=range(4),
        term="the far-band penalty",
    )
    weak_at_range: str = variant(
        "less",
        rule="PD-g4",
        doc="a weak hit on a foe that cannot "
        "strike back: one harm less (the volley's cost) or full "
        "harm",
        choices=("less", "full"),
    )
    cover_armour: int = variant(
        1,
        rule="PD-g5",
        doc="harm taken off every ranged strike on a fighter that has taken cover (plan cover)",
        choices=range(4),
        term="the cover",
    )

    def check(self) -> None:
        """PD1: the starting distance is whole metres 0..MAX_DISTANCE; PD-g1: the move
        at least one metre and no farther than a fight may start."""
        check_distance(self.distance)
        if (
            isinstance(self.move, bool)
            or not isinstance(self.move, int)
            or not 1 <= self.move <= MAX_DISTANCE
        ):
            raise InputError(
                f"variant move: expected whole metres 1..{MAX_DISTANCE}, got {self.move!r}"
            )


DEFAULT = Variants()


@dataclass(frozen=True)
class Weapon:
    """A weapon: the harm its strikes deal (PC1, PC3); a ranged one reaches ``close``
    metres without penalty and ``far`` metres with one (PD4)."""

    name: str
    harm: int = 1
    ranged: bool = False
    close: int = 0
    far: int = 0


@dataclass(frozen=True)
class Armour:
    """Armour: points taken off every strike on its wearer (PC3)."""

    name: str = "none"
    points: int = 0


FISTS = Weapon("unarmed", 1)
NO_ARMOUR = Armour()


@dataclass(frozen=True)
class Combatant:
    """A ``pbta_2d6`` fighter (PC1, PC9); plain values only. ``careful_less`` is rule data
    it carries (the data file's ``tactic.careful.harm_less``, PC9: the harm a careful
    weak hit holds back; marked by its ``rule`` metadata, so the archetype table leaves
    it out)."""

    name: str
    stat: int
    weapon: Weapon = FISTS
    armour: Armour = NO_ARMOUR
    tactic: str = "trade"
    plan: str | None = None
    careful_less: int = dataclasses.field(
        default=1, metadata={"rule": "PC9", "rule_data": "tactic.careful.harm_less"}
    )

    def check(self) -> None:
        if (
            isinstance(self.stat, bool)
            or not isinstance(self.stat, int)
            or not -3 <= self.stat <= 4
        ):
            raise InputError(f"{self.name}: stat must be an integer -3..4 (P1), got {self.stat!r}")
        if not 0 <= self.weapon.harm <= 6:
            raise InputError(f"{self.name}: weapon harm must be 0..6 (PC1), got {self.weapon.harm}")
        if not 0 <= self.armour.points <= 3:
            raise InputError(
                f"{self.name}: armour must be 0..3 points (PC1), got {self.armour.points}"
            )
        if (
            isinstance(self.careful_less, bool)
            or not isinstance(self.careful_less, int)
            or not 0 <= self.careful_less <= 6
        ):
            raise InputError(
                f"{self.name}: a careful weak hit holds back 0..6 harm (PC9), "
                f"got {self.careful_less!r}"
            )
        if self.tactic not in TACTICS:
            raise InputError(
                f"{self.name}: unknown tactic {self.tactic!r}; known: " + ", ".join(TACTICS)
            )
        w = self.weapon
        if w.ranged and not 0 <= w.close <= w.far:
            raise InputError(
                f"{self.name}: weapon {w.name}: the range bands must be "
                f"0 <= close <= far metres (PD4), got {w.close} and {w.far}"
            )
        _ = self.plan_in_force  # PD6: raises for a plan it cannot follow

    @property
    def plan_in_force(self) -> str:
        """PD6: its plan, else ``hold`` with a ranged weapon and ``charge`` with any other;
        ``cover`` only with a ranged weapon, never ``kite``."""
        plan = check_plan(self.plan, self.name, ranged=self.weapon.ranged, unavailable=NO_RULE)
        if plan == "cover" and not self.weapon.ranged:
            raise InputError(
                f"{self.name}: plan 'cover' takes cover, then shoots (PD6), so "
                "it needs a ranged weapon; a melee fighter charges or holds"
            )
        return plan


def checked_variants(variants) -> Variants:
    """``variants`` (None: :data:`DEFAULT`) checked: a :class:`Variants` (named as the
    engine module's in the message) whose distance and move are in range (PD1, PD-g1)."""
    v = check_variants(variants, Variants, DEFAULT, f"{__package__}.combat")
    v.check()
    return v


def wants(c: Combatant, v: Variants) -> int:
    """PD6: the distance (metres) within which ``c`` rolls rather than closes: its reach
    with a melee weapon (PD3); with a ranged one the close band when it charges, else the
    far band (PD4)."""
    if not c.weapon.ranged:
        return v.reach
    return c.weapon.close if c.plan_in_force == "charge" else c.weapon.far


def reaches(c: Combatant, d: int, v: Variants) -> bool:
    """PD3, PD4: whether ``c``'s weapon reaches a foe ``d`` metres away."""
    return d <= (c.weapon.far if c.weapon.ranged else v.reach)


def turn_step(c: Combatant, covered: bool, d: int, v: Variants) -> tuple[bool, bool, int]:
    """PD2, PD6: ``c``'s turn in a duel at ``d`` metres before any roll: ``(rolls,
    covered after, distance after)``. Farther than it :func:`wants`, it moves up to
    ``move`` metres toward its foe (no roll); a ``cover`` plan's first turn in range takes
    cover (no roll); else it rolls. The kernel's ``_turn`` for one foe."""
    want = wants(c, v)
    if d > want:
        return False, covered, d - min(v.move, d - want)
    if c.plan_in_force == "cover" and not covered:
        return False, True, d
    return True, covered, d


# ---------------------------------------------------------------------------------------
# The exact duel


def _harm(striker: Combatant, struck: Combatant, less: int = 0, shield: int = 0) -> int:
    """PC3: harm of one strike (PC9, PD5: ``less`` taken off for a careful weak hit or
    the volley's cost; PD6: ``shield``, the struck fighter's cover)."""
    return max(striker.weapon.harm - less - struck.armour.points - shield, 0)


def attack_damage(
    attacker: Combatant, target: Combatant, variants: Variants | None = None, at: int = 0
) -> np.ndarray:
    """Exact distribution of the harm ``attacker`` deals ``target`` with one roll (PC3–PC6):
    ``p[k]`` = P(harm ``k``); ``p[0]`` holds the misses (the harm the attacker then takes
    is not counted here). ``at``: metres apart (0 engaged; called in reach only): PD4's
    far band costs ``far_penalty``, and PD5 a weak hit on a foe that cannot reach back
    strikes one harm less under ``weak_at_range = less``."""
    v = checked_variants(variants)
    attacker.check()
    target.check()
    far = at > 0 and attacker.weapon.ranged and at > attacker.weapon.close
    miss, weak, strong = move_odds(attacker.stat - (v.far_penalty if far else 0), v)
    full = _harm(attacker, target)
    volley = at > 0 and not reaches(target, at, v) and v.weak_at_range == "less"
    weak_harm = _harm(attacker, target, _weak_less(attacker, volley))
    p = np.zeros(full + 1)
    p[full] += strong
    p[weak_harm] += weak
    p[0] += miss
    return p


def _weak_less(f: Combatant, volley: bool) -> int:
    """PC9, PD5: the harm a weak hit holds back: a careful fighter's ``careful_less``, the
    volley's 1 (the larger when both)."""
    return max(f.careful_less if f.tactic == "careful" else 0, 1 if volley else 0)


def _aid(v: Variants) -> float:
    """PC8: P(first aid stabilises a dying fighter) = P(2d6 >= aid_at)."""
    return float(checks.exact(["normal"], v)[0][np.arange(2, 13) >= v.aid_at].sum())


def _fate_after(excess: int, v: Variants) -> np.ndarray:
    """PC7, PC8: P(dead), P(dying), P(out) of a loser that fell alive with ``excess`` harm
    beyond the clock (``0 .. dead_over - 1``), after the aftermath."""
    if v.aftermath == "finish":
        return np.array([1.0, 0.0, 0.0])
    if excess == 0:
        return np.array([0.0, 0.0, 1.0])
    if v.aftermath == "first_aid":
        q = _aid(v)
        return np.array([0.0, 1.0 - q, q])
    return np.array([0.0, 1.0, 0.0])


def _strike_op(striker: Combatant, struck: Combatant, v: Variants, less: int = 0, shield: int = 0):
    """One strike (PC3) on the struck fighter's harm axis, with the clock (PC7)."""
    k = _harm(striker, struck, less, shield)
    pmf = np.zeros(k + 1)
    pmf[k] = 1.0
    return attack_op(pmf, pmf, v.clock, True, v.dead_over)


def duel_exact(
    a: Combatant,
    b: Combatant,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
    start_harm: int = 0,
    end_a: np.ndarray | None = None,
) -> FightStats:
    """Exact 1-vs-1 fight (PC2–PC8, PD1–PD6) as an absorbing Markov chain.

    ``start_harm``: the harm ``a`` starts with (0 … clock − 1; campaign attrition's
    fights); ``end_a`` (a float array of ``clock`` cells), when given, receives P(``a``
    ends able with harm ``h``): it won, or the round cap stopped the fight.

    State: the harm each fighter has taken (both still standing), ``clock × clock``
    cells, on planes keyed by (distance, side 0 in cover, side 1 in cover) (PD1, PD6);
    nothing else carries over between rounds. A round is each fighter's turn in the PC2
    order (a fixed order, or an even mixture of both when it is random). A turn first
    moves or takes cover (:func:`turn_step`: no dice, so a plane's mass goes to one key);
    a roll mixes its three results with the P2 odds of 2d6 + stat (PD4: less in the far
    band): PC4 one strike on the foe, PC5 a strike and, on what is left standing, the
    foe's strike back (careful: one weaker strike), PC6 the foe's strike — the foe's
    strikes only where its weapon reaches (PD5). Mass whose harm reaches the clock is
    absorbed as a win for the striker, with the harm beyond the clock that PC7/PC8 turn
    into a fate.
    """
    v = checked_variants(variants)
    cap = check_round_cap(round_cap)
    a.check()
    b.check()
    fighters = (a, b)
    if (
        isinstance(start_harm, bool)
        or not isinstance(start_harm, int | np.integer)
        or not 0 <= start_harm < v.clock
    ):
        raise InputError(
            f"start_harm: expected an integer 0..{v.clock - 1} (PC7), got {start_harm!r}"
        )
    ops: dict = {}

    def strike(m: int, less: int, covered: int):
        """Side ``m``'s strike on the other (``covered``: the struck one is in cover)."""
        key = (m, less, covered)
        if key not in ops:
            shield = v.cover_armour if covered and fighters[m].weapon.ranged else 0
            ops[key] = _strike_op(fighters[m], fighters[1 - m], v, less, shield)
        return ops[key]

    def roll(m: int, key, plane: np.ndarray, nxt: dict) -> None:
        """PC3–PC6, PD4, PD5: side ``m`` rolls at distance ``key[0]``."""
        d, cov_m, cov_t = key[0], key[1 + m], key[2 - m]
        f = fighters[m]
        far = f.weapon.ranged and d > f.weapon.close
        miss, weak, strong = move_odds(f.stat - (v.far_penalty if far else 0), v)
        chain.attack(nxt, m, key, key, strong * plane, strike(m, 0, cov_t))  # PC4
        if not reaches(fighters[1 - m], d, v):  # PD5: no strike back
            less = _weak_less(f, v.weak_at_range == "less")
            chain.attack(nxt, m, key, key, weak * plane, strike(m, less, cov_t))
            chain.add(nxt, key, miss * plane)
            return
        if f.tactic == "careful":  # PC5 / PC9
            chain.attack(nxt, m, key, key, weak * plane, strike(m, f.careful_less, cov_t))
        else:  # PC5: strike, then the foe strikes back if it still stands
            hit: dict = {}
            chain.attack(hit, m, key, key, weak * plane, strike(m, 0, cov_t))
            chain.attack(nxt, 1 - m, key, key, hit[key], strike(1 - m, 0, cov_m))
        chain.attack(nxt, 1 - m, key, key, miss * plane, strike(1 - m, 0, cov_m))  # PC6

    def turn(m: int, cur: dict) -> dict:
        nxt: dict = {}
        for key, plane in cur.items():
            covered = [key[1], key[2]]
            rolls, cov, d = turn_step(fighters[m], bool(covered[m]), key[0], v)
            covered[m] = int(cov)
            if rolls:
                roll(m, key, plane, nxt)
            else:
                chain.add(nxt, (d, *covered), plane)
        return nxt

    if v.order == "side0_first" or (v.order == "stat" and a.stat > b.stat):
        orders = [(1.0, (0, 1))]
    elif v.order == "stat" and a.stat < b.stat:
        orders = [(1.0, (1, 0))]
    else:  # a fresh random order each round (coin, or equal stats)
        orders = [(0.5, (0, 1)), (0.5, (1, 0))]
    chain = DuelChain(
        SYSTEM, (v.clock, v.clock), cap, {(v.distance, 0, 0): _start(v.clock, int(start_harm))}
    )
    for _ in range(cap):
        new: dict = {}
        for w, order in orders:
            cur = {key: w * plane for key, plane in chain.planes.items()}
            for m in order:
                cur = turn(m, cur)
            for key, plane in cur.items():
                chain.add(new, key, plane)
        chain.planes = new
        chain.end_round()
        if chain.total() < 1e-16:
            break
    chain.finish()
    if end_a is not None:  # a won with harm h, or stands at the cap with harm h
        end_a += chain.won_at[0] + sum(p.sum(axis=1) for p in chain.planes.values())
    stats = chain.aftermath(lambda _w, e: _fate_after(e, v))
    return finish_duel(stats, a, b, dataclasses.asdict(v))


def _start(clock: int, harm_a: int = 0) -> np.ndarray:
    start = np.zeros((clock, clock))
    start[harm_a, 0] = 1.0
    return start


def one_hit(attacker: Combatant, target: Combatant, variants: Variants | None = None) -> dict:
    """What one roll of ``attacker`` does to an unharmed ``target`` (PC3–PC8).

    ``p_hit``: a weak or strong hit (P2); ``p_incapacitate``: its strike reaches the
    clock (PC7: never with the data file's weapons, harm 3 at most on a 6-clock);
    ``p_kill``: it reaches the clock plus ``dead_over``; ``p_dead`` / ``p_dying`` /
    ``p_out``: it takes the target out and the target then ends dead / dying / out after
    the aftermath with the attacker as the winner (they sum to ``p_incapacitate``).

    At a starting distance (variant ``distance`` > 0) the roll is made from there (PD3,
    PD4, PD5; :func:`attack_damage`), and the result also has ``in_range``: False, every
    figure 0, when the attacker's weapon does not reach.
    """
    v = checked_variants(variants)
    if v.distance > 0 and not reaches(attacker, v.distance, v):
        return {
            **dict.fromkeys(
                ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
            ),
            "in_range": False,
        }
    p = attack_damage(attacker, target, v, v.distance)
    far = v.distance > 0 and attacker.weapon.ranged and v.distance > attacker.weapon.close
    _miss, weak, strong = move_odds(attacker.stat - (v.far_penalty if far else 0), v)
    fates = np.zeros(3)
    for k in range(v.clock, p.size):
        if k - v.clock >= v.dead_over:
            fates[0] += p[k]
        else:
            fates += p[k] * _fate_after(k - v.clock, v)
    odds = {
        "p_hit": float(weak + strong),
        "p_incapacitate": float(p[v.clock :].sum()),
        "p_kill": float(p[v.clock + v.dead_over :].sum()),
        "p_dead": float(fates[0]),
        "p_dying": float(fates[1]),
        "p_out": float(fates[2]),
    }
    return {**odds, "in_range": True} if v.distance > 0 else odds
