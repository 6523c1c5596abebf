"""``d20_degrees``: d20 + modifier vs DC with degrees (RULES.md section E, seed 004).

Check-level rules implemented here:

- **E1** d20 + modifiers vs DC (0 trivial … 40 near impossible).
- **E2** degrees: each full 5 above the DC one more degree of success; each full 5 below
  one more degree of failure.
- **E3** natural 20: one degree better (variant ``natural_20_degree``); natural 1 always
  fails (variant ``natural_1_fails``).
- **E4** routine check: take 10 (no roll).
- **E5** opposed: compare totals; tie → higher bonus; still tied → roll-off.
- **E6** circumstance ±2 / ±5.
- **E7** assisted checks: helpers vs DC 10, signed degrees summed (E-g1: exactly 3 → +5).
- **E8** extra effort: +2.
- **E9** hero point: reroll, keep the better; a second roll of 1–10 adds 10.

Outcome codes: ``(value − 1) + 30 × nat`` (90 codes; see :func:`engines.rolls.roll_d20`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from engines import checks
from engines.errors import InputError
from engines.rng import Seed
from engines.rolls import D20, HERO_REROLL, ROLL, TAKE_10
from engines.system import (
    Difficulty,
)
from engines.variants import variant

SYSTEM = "d20_degrees"
N_CODES = 90
MODES = {"roll": ROLL, "hero_point": HERO_REROLL, "take_10": TAKE_10}
DCS = {
    "trivial": 0,
    "easy": 5,
    "moderate": 10,
    "hard": 15,
    "challenging": 20,
    "heroic": 30,
    "near_impossible": 40,
}  # E1
CIRCUMSTANCE = {"minor": 2, "major": 5}  # E6
EXTRA_EFFORT = 2  # E8
ASSIST_DC = 10  # E7


@dataclass(frozen=True)
class Variants:
    """Rule variants of ``d20_degrees``."""

    system: ClassVar[str] = SYSTEM
    natural_1_fails: bool = variant(
        True, rule="E3", doc="a natural 1 always fails", term="the natural 1 rule"
    )
    natural_20_degree: bool = variant(
        True,
        rule="E3",
        doc="a natural 20 counts one degree better (as if +5)",
        term="the natural 20 rule",
    )
    reroll_natural: bool = variant(
        False,
        rule="E9",
        doc="a hero-point reroll of 1 (read as 11) is still a natural 1",
        term="a rerolled 1 staying a natural 1",
    )
    assist_three: int = variant(
        5,
        rule="E-g1",
        doc="bonus when helpers total exactly 3 degrees of success (+5 as in M&M 3e, or +2)",
        choices=(2, 5),
        term="the bonus for 3 assisting degrees",
    )
    assist_total: str = variant(
        "net",
        rule="E7",
        doc="helpers' degrees form one signed "
        "total (the rules text: 'the degrees of success (or failure) are "
        "summed'; a total below −2 gives −2); 'separate' sums "
        "successes and failures apart, successes first",
        choices=("net", "separate"),
        term="how helpers' degrees add up",
        words={"net": "one signed total", "separate": "successes and failures apart"},
    )

    def rule(self) -> np.ndarray:
        return np.array([int(self.reroll_natural)], dtype=np.int64)


DEFAULT = Variants()


def mode_codes(modes) -> np.ndarray:
    return checks.parse_modes(modes, MODES)


def code_of(value: int, nat: int) -> int:
    return (value - 1) + 30 * nat


def value_of_codes() -> np.ndarray:
    return np.arange(N_CODES) % 30 + 1


def nat_of_codes() -> np.ndarray:
    return np.arange(N_CODES) // 30


def exact(modes=("roll", "hero_point", "take_10"), variants: Variants = DEFAULT) -> np.ndarray:
    """Exact outcome-code distribution per roll mode (E1, E4, E9), by enumeration."""
    modes = mode_codes(modes)
    probs = np.zeros((modes.size, N_CODES))
    for i, mode in enumerate(modes):
        if mode == TAKE_10:
            probs[i, code_of(10, 0)] = 1.0
            continue
        for first in range(1, 21):
            nat1 = 2 if first == 20 else 1 if first == 1 else 0
            if mode == ROLL:
                probs[i, code_of(first, nat1)] += 1 / 20
                continue
            for second in range(1, 21):
                v2 = second + 10 if second <= 10 else second
                nat2 = 2 if second == 20 else 1 if second == 1 and variants.reroll_natural else 0
                v, nat = (v2, nat2) if v2 > first else (first, nat1)
                probs[i, code_of(v, nat)] += 1 / 400
    return probs


def monte_carlo(
    modes=("roll", "hero_point", "take_10"),
    trials: int = 100_000,
    seed: Seed = None,
    variants: Variants = DEFAULT,
) -> np.ndarray:
    """Monte Carlo outcome-code counts per roll mode (E1, E4, E9)."""
    return checks.run(D20, mode_codes(modes), variants.rule(), N_CODES, trials, seed)


def degrees(total, dc, nat=0, variants: Variants = DEFAULT):
    """E2/E3: signed degree (+k = k degrees of success, −k = k degrees of failure)."""
    total = np.asarray(total)
    nat = np.asarray(nat)
    eff = total + np.where((nat == 2) & variants.natural_20_degree, 5, 0)
    deg = np.where(eff >= dc, 1 + (eff - dc) // 5, -(1 + (dc - eff) // 5))
    if variants.natural_1_fails:
        deg = np.where((nat == 1) & (deg > 0), -1, deg)
    return deg


def degree_of_codes(modifier: int, dc: int, variants: Variants = DEFAULT) -> np.ndarray:
    return degrees(value_of_codes() + modifier, dc, nat_of_codes(), variants)


def p_degree(
    modifier: int, dc: int, degree: int = 1, mode: str = "roll", variants: Variants = DEFAULT
) -> float:
    """P(at least ``degree`` degrees of success) (E1–E3, E4, E9)."""
    return float(exact([mode], variants)[0] @ (degree_of_codes(modifier, dc, variants) >= degree))


def opposed(bonus_a: int, bonus_b: int, variants: Variants = DEFAULT) -> float:
    """E5: P(a wins): higher total; tie → higher bonus; equal bonuses → roll-off (½)."""
    d = np.arange(1, 21)
    diff = (d[:, None] + bonus_a) - (d[None, :] + bonus_b)
    win = (diff > 0).mean()
    tie = (diff == 0).mean()
    share = 1.0 if bonus_a > bonus_b else 0.0 if bonus_a < bonus_b else 0.5
    return float(win + tie * share)


def assist_bonus(helper_bonuses: list[int], variants: Variants = DEFAULT) -> dict[int, float]:
    """E7: distribution of the leader's modifier from helpers rolling vs DC 10.

    By default (``assist_total="net"``) each helper's signed degree (+k success, −k
    failure) is added into one total: 1–2 → +2, exactly 3 → ``assist_three`` (E-g1),
    more → +5, below −2 → −2, otherwise 0. With ``"separate"`` successes and failures
    are summed apart and any success total decides first.
    """
    single = exact(["roll"], variants)[0]
    joint = {(0, 0): 1.0}
    net = variants.assist_total == "net"
    for bonus in helper_bonuses:
        deg = degree_of_codes(bonus, ASSIST_DC, variants)
        dist: dict[int, float] = {}
        for dg, p in zip(deg, single, strict=True):
            if p:
                dist[int(dg)] = dist.get(int(dg), 0.0) + p
        nxt: dict[tuple[int, int], float] = {}
        for (s, f), p in joint.items():
            for dg, q in dist.items():
                key = (s + dg, 0) if net else (s + max(dg, 0), f + max(-dg, 0))
                nxt[key] = nxt.get(key, 0.0) + p * q
        joint = nxt
    out: dict[int, float] = {}
    for (s, f), p in joint.items():
        if net:
            f = max(-s, 0)
        if s >= 4:
            mod = 5
        elif s == 3:
            mod = variants.assist_three
        elif s >= 1:
            mod = 2
        elif f > 2:
            mod = -2
        else:
            mod = 0
        out[mod] = out.get(mod, 0.0) + p
    return out


#: This system as the rest of the suite sees it (:mod:`engines.system`): native check
#: axes of the success-curve table, its opposed rule, combat engine and campaign mechanics.
def check_grid(cells, variants: Variants):
    """Success mask of (modifier, dc, degree) cells: at least ``degree`` degrees of
    success (E1–E3); an optional ``roll`` axis picks the roll mode (E4 take 10, E9 hero
    point), otherwise every cell is a plain roll."""
    n = len(np.asarray(cells["modifier"]))
    if "roll" in cells:
        rolls = np.asarray(cells["roll"]).tolist()
        for mode in set(rolls):
            if mode not in MODES:
                raise InputError(f"roll: unknown mode {mode!r}; known: {', '.join(MODES)}")
        settings = np.array([m for m in MODES if m in set(rolls)])
        setting_of_cell = np.array([settings.tolist().index(m) for m in rolls], dtype=np.int64)
    else:
        settings = np.array(["roll"])
        setting_of_cell = np.zeros(n, dtype=np.int64)
    value, nat = value_of_codes(), nat_of_codes()
    deg = degrees(
        value[None, :] + np.asarray(cells["modifier"])[:, None],
        np.asarray(cells["dc"])[:, None],
        nat[None, :],
        variants,
    )
    mask = deg >= np.asarray(cells["degree"])[:, None]
    return settings, setting_of_cell, mask, value.astype(float)


def check_p(cells, variants: Variants) -> np.ndarray:
    """Exact P(at least ``degree`` degrees) of each cell (E1–E4, E9), one roll mode at a
    time: each mode's success mask times its code distribution."""
    rolls = np.asarray(cells["roll"]).tolist() if "roll" in cells else None
    mods, dcs = np.asarray(cells["modifier"]), np.asarray(cells["dc"])
    need = np.asarray(cells["degree"])
    out = np.zeros(len(mods))
    value, nat = value_of_codes(), nat_of_codes()
    for mode in dict.fromkeys(rolls) if rolls is not None else ["roll"]:
        rows = (
            np.ones(len(mods), dtype=bool)
            if rolls is None
            else np.array([r == mode for r in rolls])
        )
        probs = exact([mode], variants)[0]
        deg = degrees(
            value[None, :] + mods[rows][:, None], dcs[rows][:, None], nat[None, :], variants
        )
        out[rows] = (deg >= need[rows][:, None]) @ probs
    return out


def difficulty_axes() -> tuple[Difficulty, ...]:
    """Difficulty as the DC (E1–E3; the named DCs above 0 in the inverse table)."""
    vals = tuple(range(-10, 71))
    return (
        Difficulty(
            "dc", vals, tuple(f"DC {v}" for v in vals), tuple(v for v in DCS.values() if v > 0)
        ),
    )


def chance_matrix(axis: str, competences, difficulties, variants: Variants) -> np.ndarray:
    """Exact P(at least one degree of success) ``[modifiers, DCs]`` (E1–E3)."""
    comp = np.asarray(list(competences), dtype=np.int64)
    out = np.zeros((comp.size, len(difficulties)))
    dist = exact(["roll"], variants)[0]
    for i, c in enumerate(comp):
        for j, dc in enumerate(difficulties):
            out[i, j] = dist @ (degree_of_codes(int(c), int(dc), variants) >= 1)
    return out


def opposed_tie(cell, variants: Variants) -> tuple[float, bool]:
    """E5: a tie goes to the higher bonus; equal bonuses roll off (½)."""
    a, b = int(cell["modifier_a"]), int(cell["modifier_b"])
    return (1.0 if a > b else 0.0 if a < b else 0.5), False


def ladder_score(c: int, variants: Variants):
    """(d20 + modifier, probabilities) of a plain roll (E1)."""
    probs = exact(["roll"], variants)[0]
    return (value_of_codes() + c).astype(float), probs


def curve_reading(p, tr) -> str:
    """The success-curve section's sentence (report hook): +5 vs DC 15, the natural 1
    and 20, and the degrees."""
    _ = tr._
    return _(
        "d20_degrees: with modifier +5 against DC 15 the chance is {p}; every +1 is "
        "worth {five}. A natural 1 always fails, so the best chance is {best}; a "
        "natural 20 only counts one degree better, so a check out of reach stays out "
        "of reach (modifier −5 vs DC 30: {worst}). Each extra degree of success needs "
        "5 more."
    ).format(
        p=tr.pct(p(modifier=5, dc=15, degree=1)),
        five=tr.percent(0.05, 0),
        best=tr.pct(p(modifier=30, dc=15, degree=1)),
        worst=tr.pct(p(modifier=-5, dc=30, degree=1)),
    )
