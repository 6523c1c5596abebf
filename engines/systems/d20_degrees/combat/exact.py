"""``d20_degrees`` exact duels: the absorbing Markov chain over whole-duel states
(:func:`duel_exact`, package docstring), what one attack does to an unhurt target with
its aftermath (:func:`one_hit`), and E-g2 solved for a duel length
(:func:`hit_points_for_rounds`)."""

from __future__ import annotations

import dataclasses
from array import array

import numpy as np

from engines.constants import ROUND_CAP, STUDY_SEED
from engines.errors import InputError
from engines.fight import DAMAGE_BINS, FightStats, check_round_cap
from engines.rng import Seed

from .attack import (
    L_DEAD,
    L_INCAP,
    attack_dist,
    dash_p,
    dying_code,
    feint_p,
    fortitude_dist,
    impact_dist,
    initiative_first,
)
from .kernel import duel_mc
from .rules import (
    AFT_FIRST_AID,
    AID_DC,
    COVER,
    COVER_PRONE,
    DASH_M,
    DEATH_FAILURES,
    DEFENSIVE,
    DYING_DC,
    EXACT_STATE_LIMIT,
    F_ATHL,
    F_DMG,
    F_DYDC,
    F_EFFORT,
    F_FEINT,
    F_FORT,
    F_HERO,
    F_HP,
    F_HUSE,
    F_IDEG,
    F_MDEF,
    F_MDMG,
    F_MHIT,
    F_PLAN,
    F_RANGED,
    F_REACH,
    F_RECHP,
    F_RECOV,
    F_RLONG,
    F_RMED,
    F_RSHORT,
    KITE,
    MOVE_M,
    PARTIAL_COVER,
    PRONE_MELEE,
    PRONE_RANGED,
    R_AFTERMATH,
    R_AID_BONUS,
    R_AID_TRIES,
    R_COVER,
    R_DASH,
    R_DEFENSIVE_PCT,
    R_DISTANCE,
    R_DYING_ACQ,
    R_FAR,
    R_FINISH,
    R_REC_CAP,
    R_SLAM,
    R_SURPRISE,
    R_SURPRISE_STUN,
    RANGE_PENALTY,
    SYSTEM,
    Variants,
    as_fighter,
    as_variants,
    fight_rule,
)


def _hero_left(f) -> int:
    return int(f[F_HERO]) if f[F_HUSE] != 0 else 0


class Duel:
    """Half-turn transitions of a duel; states are (turn, f, A, B), A = (life, rec, hero, eff,
    vul): ``vul`` 0 nothing pending, 1 the foe is vulnerable (E17) to A's next attack (a
    won feint or the surprise attack, E16), 2 A's feint failed and it attacks next, 3 A is
    surprised (E17: vulnerable and stunned) and loses its next (first) turn (E-g19
    ``surprise_attack``: a surpriser acting first starts with its foe's flag 0).

    On the line (``rule[R_FAR]``, ET1–ET3) a state carries a fifth part, G = (distance in
    metres, fighter 0 in cover, fighter 1 in cover): the distances that matter are few
    (each move is 8 or 16 m, from the start or back from contact)."""

    def __init__(self, fa: np.ndarray, fb: np.ndarray, rule: np.ndarray):
        self.f = (fa, fb)
        self.rule = rule
        self.finish = 2 * int(rule[R_FINISH])
        self.far = bool(rule[R_FAR])
        self.memo: dict = {}
        self.moves: dict = {}
        self.dash = tuple(dash_p(int(f[F_ATHL])) for f in self.f)

    def _hit_life(self, k: int, life: int, d: int, eff: int) -> dict[int, float]:
        """E12/E13/E14: target ``k``'s new life code after a hit for ``d`` damage."""
        if d < 1:
            return {life: 1.0}
        if life >= 1:
            return {max(life - d, 0): 1.0}
        if life == L_INCAP:
            if 1 + d // 5 >= int(self.f[k][F_IDEG]):
                return {L_DEAD: 1.0}
            if self.rule[R_DYING_ACQ]:
                return fortitude_dist(int(self.f[k][F_FORT]), eff >= 2, 0, int(self.f[k][F_DYDC]))
            return {-1: 1.0}
        return {L_DEAD: 1.0}

    def _switched(self, k: int, life: int) -> bool:
        pct = int(self.rule[R_DEFENSIVE_PCT])
        return pct > 0 and life * 100 <= pct * int(self.f[k][F_HP])

    def _attack(self, k, xs, ys, amod=0, slam=0):
        """Outcomes of fighter k (state xs) attacking the other (state ys); ``amod`` and
        ``slam`` as in :func:`.attack._attack_totals`."""
        moves, new_eff = self._attack_table(k, xs, ys, amod, slam)
        x0, x1, x2 = xs[0], xs[1], xs[2]
        y1, y2, y3, y4 = ys[1], ys[2], ys[3], ys[4]
        return [
            (
                p,
                (x0, x1, x2 - a_sp, new_eff, 0),
                ys if life is None else (life, y1, y2 - t_sp, y3, y4),
                d,
            )
            for p, a_sp, life, t_sp, d in moves
        ]

    def _attack_table(self, k, xs, ys, amod=0, slam=0):
        """``(moves, the attacker's new effort count)`` of :meth:`_attack`: the outcomes as
        (p, attacker hero spent, target's new life or None for a miss, target hero
        spent, damage), kept per key."""
        att, tgt = self.f[k], self.f[1 - k]
        ylife = ys[0]
        a_sw = self._switched(k, xs[0])
        t_sw = ylife >= 1 and self._switched(1 - k, ylife)
        t_hero = ys[2] > 0 and tgt[F_HUSE] == 2
        threshold = ylife if ylife >= 1 else 1
        vul = xs[4] == 1
        key = (
            k,
            xs[3],
            xs[2] > 0,
            ylife < 1,
            ys[1] == 1,
            ys[3] >= 2,
            t_hero,
            threshold if t_hero else 0,
            a_sw,
            t_sw,
            vul,
            amod,
            slam,
            ylife < 0,
        )
        # the outcomes as (p, attacker hero spent, target's new life or None for a miss,
        # target hero spent, damage): the same for every state with this key, the
        # target's life and its effort uses
        moves = self.moves.get((key, ylife, ys[3]))
        if moves is None:
            dist = self.memo.get(key)
            if dist is None:
                if a_sw:
                    att = att.copy()
                    att[F_MHIT], att[F_MDMG] = DEFENSIVE[0], DEFENSIVE[1]
                if t_sw:
                    tgt = tgt.copy()
                    tgt[F_MDEF] = DEFENSIVE[2]
                dist = attack_dist(
                    att,
                    tgt,
                    self.rule,
                    xs[3],
                    xs[2] > 0 and att[F_HUSE] == 1,
                    ylife < 1,
                    ys[1] == 1,
                    ys[3] >= 2,
                    t_hero,
                    threshold,
                    vul,
                    amod,
                    slam,
                    ylife < 0,
                )
                self.memo[key] = dist
            moves = []
            for (d, a_sp, t_sp), p in dist.items():
                if d < 0:
                    moves.append((p, a_sp, None, 0, -1))
                    continue
                for life, q in self._hit_life(1 - k, ylife, d, ys[3]).items():
                    moves.append((p * q, a_sp, life, t_sp, d))
            self.moves[(key, ylife, ys[3])] = moves
        x3 = xs[3]
        return moves, (x3 + 1 if x3 < att[F_EFFORT] else x3)

    def step(self, state):
        """[(p, next state, damage of a hit or -1)] for one half-turn."""
        if self.far:
            return self._step_far(state)
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
            outs = [
                (p, (nl, xs[1], xs[2], xs[3], xs[4]), ys, -1)
                for nl, p in fortitude_dist(
                    int(fx[F_FORT]), xs[3] >= 2, -1 - life, int(fx[F_DYDC])
                ).items()
            ]
        elif xs[4] == 3:
            outs = [(1.0, (*xs[:4], 0), ys, -1)]  # E17 surprised: stunned, loses the turn
        else:
            if xs[1] == 1:
                xs = (xs[0], 2, xs[2], xs[3], xs[4])
            if not decided and xs[1] == 0 and life <= fx[F_RECOV]:
                hp = life + int(fx[F_RECHP])
                if self.rule[R_REC_CAP]:
                    hp = min(hp, int(fx[F_HP]))
                outs = [(1.0, (hp, 1, xs[2], xs[3], xs[4]), ys, -1)]
            elif ys[0] == L_DEAD:
                outs = [(1.0, xs, ys, -1)]
            elif fx[F_FEINT] and not decided and xs[4] == 0:
                # E16 feint (E-g15): the standard action goes on the feint
                p = feint_p(fx, self.f[1 - turn], xs[3] >= 2, ys[3] >= 2)
                outs = [(p, (*xs[:4], 1), ys, -1), (1 - p, (*xs[:4], 2), ys, -1)]
            else:
                # an attack: the next states built in one pass (as the general case
                # below builds them from :meth:`_attack`'s outcomes)
                moves, new_eff = self._attack_table(turn, xs, ys)
                nf = f + 1 if decided else 0
                x0, x1, x2 = xs[0], xs[1], xs[2]
                yl, y1, y2, y3, y4 = ys
                nx0 = (x0, x1, x2, new_eff, 0)
                out = []
                add = out.append
                for p, a_sp, life, t_sp, d in moves:
                    nx = nx0 if a_sp == 0 else (x0, x1, x2 - a_sp, new_eff, 0)
                    if life is None:
                        ny, low = ys, x0 < 1 or yl < 1
                    else:
                        ny, low = (life, y1, y2 - t_sp, y3, y4), x0 < 1 or life < 1
                    add(
                        (p, (1, nf, nx, ny) if low else (1, 0, nx, ny), d)
                        if turn == 0
                        else (p, (0, nf, ny, nx) if low else (0, 0, ny, nx), d)
                    )
                return out
        # the finishing counter runs once the duel is decided (one side below 1 life)
        nt, nf = 1 - turn, (f + 1 if decided else 0)
        if turn == 0:
            return [
                (p, (nt, nf if (nx[0] < 1 or ny[0] < 1) else 0, nx, ny), d) for p, nx, ny, d in outs
            ]
        return [
            (p, (nt, nf if (ny[0] < 1 or nx[0] < 1) else 0, ny, nx), d) for p, nx, ny, d in outs
        ]

    # ---------------------------------------------------------------- on the line

    def _rates(self, k: int, need: int) -> list[tuple[int, float]]:
        """ET1: [(metres per move this turn, p)]: the Athletics dash is tried when ``need``
        exceeds one 8 m move (as the kernel's ``_plan_act``)."""
        if not self.rule[R_DASH] or need <= MOVE_M:
            return [(MOVE_M, 1.0)]
        p = self.dash[k]
        return [(m, q) for m, q in ((DASH_M, p), (MOVE_M, 1.0 - p)) if q > 0]

    def _plan(self, k: int, g: tuple, decided: bool) -> list[tuple]:
        """Fighter ``k``'s moves under its plan (the kernel's ``_plan_act``, for a duel):
        [(p, new distance, own cover flag, attacks now, ET2 charge rank or 0)]."""
        fx, fy = self.f[k], self.f[1 - k]
        plan, reach = int(fx[F_PLAN]), int(fx[F_REACH])
        d, cov = g[0], g[1 + k]
        prone = int(self.rule[R_COVER]) == COVER_PRONE

        def toward(dist: int, m: int) -> int:
            return max(dist - m, reach) if dist > reach else dist

        if plan == COVER:
            engaged = not decided and d == 0
            if cov:
                if engaged and prone:
                    return [(1.0, d, 0, d <= reach, 0)]  # ET3: standing up, the move
                if d <= reach:
                    return [(1.0, d, cov, True, 0)]
                if prone:  # stands up (the move), then the standard traded for one move
                    return [(p, toward(d, m), 0, False, 0) for m, p in self._rates(k, d - reach)]
                cov = 0
            elif d <= reach:
                return [(1.0, d, 0 if (engaged or decided) else 1, True, 0)]
        elif plan == KITE and not decided and int(fy[F_REACH]) == 0 and d <= MOVE_M:
            return [(p, d + m, cov, d + m <= reach, 0) for m, p in self._rates(k, MOVE_M + 1)]
        if d <= reach:
            return [(1.0, d, cov, True, 0)]
        out = []
        for m, p in self._rates(k, d - reach):
            d1 = toward(d, m)
            if d1 <= reach:
                slam = 0
                if self.rule[R_SLAM] and not fx[F_RANGED] and not decided:
                    slam = max(int(fx[F_DMG]), 0) + 1 + (1 if d >= MOVE_M else 0)
                out.append((p, d1, cov, True, slam))
            else:
                out.append((p, toward(d1, m), cov, False, 0))
        return out

    def _mod(self, k: int, d: int, foe_cover: int, foe_able: bool) -> int:
        """The distance modifier of ``k``'s attack (the end of the kernel's ``_plan_act``)."""
        fx = self.f[k]
        ranged = bool(fx[F_RANGED])
        amod = 0
        if ranged:
            if d > fx[F_RMED]:
                amod += RANGE_PENALTY[2]
            elif d > fx[F_RSHORT]:
                amod += RANGE_PENALTY[1]
        if foe_able and foe_cover:
            if int(self.rule[R_COVER]) == COVER_PRONE:
                amod += PRONE_RANGED if ranged else PRONE_MELEE
            elif ranged:
                amod += PARTIAL_COVER
        return amod

    def _step_far(self, state):
        """:meth:`step` on the line: G = (distance, cover of 0, cover of 1) rides along."""
        turn, f, a, b, g = state
        decided = not (a[0] >= 1 and b[0] >= 1)
        if decided and (f >= self.finish or a[0] == L_DEAD or b[0] == L_DEAD):
            return [(1.0, state, -1)]
        xs, ys = (a, b) if turn == 0 else (b, a)
        fx = self.f[turn]
        life = xs[0]
        if life in (L_DEAD, L_INCAP):
            outs = [(1.0, xs, ys, g, -1)]
        elif life < 0:
            outs = [
                (p, (nl, xs[1], xs[2], xs[3], xs[4]), ys, g, -1)
                for nl, p in fortitude_dist(
                    int(fx[F_FORT]), xs[3] >= 2, -1 - life, int(fx[F_DYDC])
                ).items()
            ]
        elif xs[4] == 3:
            outs = [(1.0, (*xs[:4], 0), ys, g, -1)]  # E17 surprised: loses the turn
        else:
            if xs[1] == 1:
                xs = (xs[0], 2, xs[2], xs[3], xs[4])
            if not decided and xs[1] == 0 and life <= fx[F_RECOV]:
                hp = life + int(fx[F_RECHP])
                if self.rule[R_REC_CAP]:
                    hp = min(hp, int(fx[F_HP]))
                outs = [(1.0, (hp, 1, xs[2], xs[3], xs[4]), ys, g, -1)]
            elif ys[0] == L_DEAD:
                outs = [(1.0, xs, ys, g, -1)]
            elif fx[F_FEINT] and not decided and xs[4] == 0 and g[0] <= fx[F_REACH]:
                p = feint_p(fx, self.f[1 - turn], xs[3] >= 2, ys[3] >= 2)
                outs = [(p, (*xs[:4], 1), ys, g, -1), (1 - p, (*xs[:4], 2), ys, g, -1)]
            else:
                outs = []
                for p, d2, cov, attacks, slam in self._plan(turn, g, decided):
                    g2 = (d2, cov, g[2]) if turn == 0 else (d2, g[1], cov)
                    if not attacks:
                        outs.append((p, xs, ys, g2, -1))
                        continue
                    amod = self._mod(turn, d2, g2[2 - turn], ys[0] >= 1)
                    for q, nx, ny, dmg in self._attack(turn, xs, ys, amod, slam):
                        if not slam or dmg < 0:
                            outs.append((p * q, nx, ny, g2, dmg))
                            continue
                        # ET2: the charger resists half the charge's rank after its hit
                        for sd, r in impact_dist(fx, self.rule, slam, nx[3] >= 2).items():
                            nl = max(nx[0] - sd, 0) if sd >= 1 else nx[0]
                            outs.append((p * q * r, (nl, *nx[1:]), ny, g2, dmg))
        nt = 1 - turn
        if turn == 0:
            return [
                (
                    p,
                    (nt, (f + 1 if decided else 0) if (nx[0] < 1 or ny[0] < 1) else 0, nx, ny, g2),
                    d,
                )
                for p, nx, ny, g2, d in outs
            ]
        return [
            (p, (nt, (f + 1 if decided else 0) if (ny[0] < 1 or nx[0] < 1) else 0, ny, nx, g2), d)
            for p, nx, ny, g2, d in outs
        ]


def dying_end(
    fort: int, exhausted: bool, failures: int, rule: np.ndarray, dc: int = DYING_DC
) -> float:
    """P(dead) for a combatant dying with ``failures`` at the aftermath's end (``leave``:
    E14 checks until dead or stabilised, closed form; ``first_aid`` first: up to
    ``aid_tries`` Healing checks, each failed one followed by an E14 check, E-g17/E-g18).
    The rest ends stabilised ("out"): E14 always resolves, so nobody stays dying. ``dc``:
    the dying fighter's E14 DC (15)."""
    step = {k: fortitude_dist(fort, exhausted, k, dc) for k in range(DEATH_FAILURES)}
    code = {k: dying_code(k) for k in range(DEATH_FAILURES)}
    # leave: x[k] = P(dead | k failures); a check either stabilises, keeps k (one degree
    # of success) or adds failures, so solve from k = 2 down
    leave: dict[int, float] = {L_DEAD: 1.0, L_INCAP: 0.0}
    for k in range(DEATH_FAILURES - 1, -1, -1):
        stay = step[k].get(code[k], 0.0)
        leave[code[k]] = sum(p * leave[c] for c, p in step[k].items() if c != code[k]) / (
            1.0 - stay
        )
    if int(rule[R_AFTERMATH]) != AFT_FIRST_AID:
        return leave[dying_code(failures)]
    bonus = int(rule[R_AID_BONUS])
    p_aid = sum(1 for r in range(2, 21) if r + bonus + (5 if r == 20 else 0) >= AID_DC) / 20
    dist = {dying_code(failures): 1.0}
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
                pd = dying_end(int(f[F_FORT]), eff >= 2, -1 - life, rule, int(f[F_DYDC]))
                row = (0.0, pd, 0.0, 1.0 - pd)
            memo[key] = row
        out[k] = row
    return out


def _too_big(fa, fb, count: str) -> str:
    return (
        f"duel_exact: {count} states: hit points {fa[F_HP]} and {fb[F_HP]} (E-g2) times "
        "hero points (E9), recovery (E15), extra effort (E8) and finishing (E-g7) "
        f"counters exceed the limit of {EXACT_STATE_LIMIT}; lower them or use duel_mc"
    )


def duel_exact(
    a,
    b,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
    start_hp: int | None = None,
    end_a: np.ndarray | None = None,
) -> FightStats:
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

    a, b = as_fighter(a, "a"), as_fighter(b, "b")
    fa, fb = a.array(), b.array()
    v = as_variants(variants)
    rule = fight_rule(v, (a, b))
    cap = check_round_cap(round_cap, 1000)
    duel = Duel(fa, fb, rule)
    # fight states: both fighters' (hit points × counters); after the decision the loser
    # has 5 life codes and the winner's hit points are frozen, times the finishing counter
    tact = [
        (3 if f[F_RECOV] > 0 else 1)
        * (_hero_left(f) + 1)
        * (int(f[F_EFFORT]) + 1)
        * (4 if (f[F_FEINT] or rule[R_SURPRISE]) else 1)
        for f in (fa, fb)
    ]
    size = [(int(f[F_HP]) + 5) * t for f, t in zip((fa, fb), tact, strict=True)]
    bound = 2 * size[0] * size[1] + 2 * (duel.finish + 1) * 5 * (
        size[0] * tact[1] + size[1] * tact[0]
    )
    if duel.far:  # ET1: a few distances per pair of hit points, times the cover flags
        bound *= 2 * (4 if COVER in (fa[F_PLAN], fb[F_PLAN]) else 1)
    if bound > 50 * EXACT_STATE_LIMIT:
        raise InputError(_too_big(fa, fb, f"up to {bound:.3g}"))
    surprise = int(rule[R_SURPRISE])
    hp0 = int(fa[F_HP])
    if start_hp is not None:
        if isinstance(start_hp, bool) or not isinstance(start_hp, int) or not 1 <= start_hp <= hp0:
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
    if duel.far:  # ET1: the fight starts apart, nobody in cover
        g0 = (int(rule[R_DISTANCE]), 0, 0)
        starts = [((*st, g0), p) for st, p in starts]
    index: dict = {}
    states: list = []
    for st, _ in starts:
        if st not in index:
            index[st] = len(states)
            states.append(st)
    # every transition (p, next state, damage) in the order the moves come, state by
    # state (the matrices sum duplicates in that order), into typed buffers: the rows
    # follow from the number of moves of each state, the hits from the damage
    cols, dmgs, counts = array("q"), array("q"), array("q")
    probs = array("d")
    step, get, add_state = duel.step, index.get, states.append
    add_col, add_p, add_d, add_count = cols.append, probs.append, dmgs.append, counts.append
    k = 0
    while k < len(states):
        moves = step(states[k])
        for p, nxt, d in moves:
            j = get(nxt)
            if j is None:
                j = index[nxt] = len(states)
                add_state(nxt)
                if j >= EXACT_STATE_LIMIT:
                    raise InputError(_too_big(fa, fb, f"more than {EXACT_STATE_LIMIT}"))
            add_col(j)
            add_p(p)
            add_d(d)
        add_count(len(moves))
        k += 1
    n = len(states)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.frombuffer(counts, np.int64))
    vals = np.frombuffer(probs)
    dmg = np.frombuffer(dmgs, np.int64)
    hit = dmg >= 0
    step_t = sparse.csr_matrix((vals, (np.frombuffer(cols, np.int64), rows)), shape=(n, n))
    hit_t = sparse.csr_matrix(
        (vals[hit], (np.minimum(dmg[hit], DAMAGE_BINS - 1), rows[hit])), shape=(DAMAGE_BINS, n)
    )
    life_a = np.array([s[2][0] for s in states])
    life_b = np.array([s[3][0] for s in states])
    able_a = (life_a >= 1).astype(float)
    able_b = (life_b >= 1).astype(float)
    undecided = (able_a > 0) & (able_b > 0)
    win0 = (able_a > 0) & (able_b == 0)
    win1 = (able_b > 0) & (able_a == 0)
    # both down at once (an ET2 charge's impact): neither side won
    draw = (able_a == 0) & (able_b == 0) if rule[R_SLAM] and duel.far else None
    vec = np.zeros(n)
    for st, p in starts:
        vec[index[st]] += p
    stats = FightStats.empty(SYSTEM, cap, trials=None, dtype=float)
    stats.standing[0] = [1.0, 1.0]
    prev = np.zeros(2)
    drawn = 0.0
    for t in range(1, 2 * cap + 1):
        stats.hits += hit_t @ vec
        vec = step_t @ vec
        now = np.array([vec[win0].sum(), vec[win1].sum()])
        stats.rounds[(t + 1) // 2, :2] += now - prev
        prev = now
        if draw is not None:
            now_drawn = vec[draw].sum()
            stats.rounds[(t + 1) // 2, 2] += now_drawn - drawn
            drawn = now_drawn
        if t % 2 == 0:
            stats.standing[t // 2] = [vec @ able_a, vec @ able_b]
    stats.outcome[:2] = prev
    stats.outcome[2] = vec[undecided].sum()
    capped = stats.outcome[2]
    if draw is None:
        stats.rounds[cap, 2] = stats.outcome[2]
    else:
        stats.rounds[cap, 2] += capped
        stats.outcome[2] += drawn
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
    neither = np.array([capped, 0.0, 0.0, 0.0])
    stats.fates[0] = vec @ fate_a + neither
    stats.fates[1] = vec @ fate_b + neither
    stats.fates_sq[:] = stats.fates  # a duel's per-side counts are 0 or 1
    stats.loser_fate[0] = (vec * win0) @ fate_b[:, 1:]
    stats.loser_fate[1] = (vec * win1) @ fate_a[:, 1:]
    stats.loser_fate_sq[:] = stats.loser_fate
    stats.loser_dead[:] = stats.loser_fate[:, 0]
    stats.deaths[:] = stats.fates[:, 1]
    stats.notes.update(method="exact", states=n, variants=dataclasses.asdict(v), p_first=p_first)
    return stats


def mean_rounds(stats: FightStats) -> float:
    """Mean length of the fights in rounds (a fight stopped at the cap counts the cap)."""
    return float(np.arange(stats.rounds.shape[0]) @ stats.rounds_pmf())


def hit_points_for_rounds(
    fighter,
    rounds: float,
    variants: Variants | None = None,
    round_cap: int = ROUND_CAP,
    max_hit_points: int = 200,
    trials: int = 50_000,
    seed: Seed = STUDY_SEED,
) -> int:
    """E-g2 solved for: the fewest hit points that make an even duel (``fighter`` against
    itself, both with those hit points) last at least ``rounds`` rounds on average.

    Lengths grow with hit points, so a bisection over 1..``max_hit_points`` needs a few
    Monte Carlo runs (``trials`` each; every run uses the same ``seed``, so the search is
    deterministic). Raises :class:`InputError` if even ``max_hit_points`` is too short.
    """
    f = as_fighter(fighter, "fighter")
    if not 0 < rounds <= check_round_cap(round_cap, 1000):
        raise InputError(f"rounds: expected a number in (0, {round_cap}], got {rounds!r}")
    ss = np.random.SeedSequence(seed) if not isinstance(seed, np.random.SeedSequence) else seed

    def length(hp: int) -> float:
        g = dataclasses.replace(f, hit_points=hp)
        return mean_rounds(duel_mc(g, g, trials, ss, variants, round_cap))

    if length(max_hit_points) < rounds:
        raise InputError(
            f"hit_points_for_rounds: even {max_hit_points} hit points give "
            f"duels shorter than {rounds} rounds; raise max_hit_points"
        )
    lo, hi = 0, max_hit_points  # length(lo) < rounds ≤ length(hi), length(0) taken as 0
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

    At a starting distance (variant ``distance`` > 0) the attack is made from there: a
    shot in its ET-g2 band (short, medium −2, long −5; none beyond long), the target
    standing in the open; a melee attack cannot reach (melee is engaged, 0 m). Out of
    reach every figure is 0; with ``distance`` > 0 the result also has ``in_range``. The
    aftermath is engaged (the winner walks up).
    """
    att = as_fighter(attacker, "attacker").array()
    tgt = as_fighter(target, "target").array()
    v = as_variants(variants)
    rule = v.rule()
    amod = 0
    if v.distance > 0:
        far = int(att[F_RLONG]) if att[F_RANGED] else 0
        if v.distance > far:
            return {
                **dict.fromkeys(
                    ("p_hit", "p_incapacitate", "p_kill", "p_dead", "p_dying", "p_out"), 0.0
                ),
                "in_range": False,
            }
        if v.distance > att[F_RMED]:
            amod = RANGE_PENALTY[2]
        elif v.distance > att[F_RSHORT]:
            amod = RANGE_PENALTY[1]
    # E8: after its effort uses: one use only fatigues (no penalty), two exhaust (−2)
    dist = attack_dist(
        att, tgt, rule, int(att[F_EFFORT]), False, False, False, False, False, 1, amod=amod
    )
    hp = int(tgt[F_HP])
    p_inc = float(sum(p for (d, _, _), p in dist.items() if d >= hp))
    # the fallen target, its turn next; the attacker unhurt, after its effort uses
    duel = Duel(att, tgt, rule)
    a0 = (int(att[F_HP]), 0, _hero_left(att), int(att[F_EFFORT]), 0)
    cur = {(1, 0, a0, (L_INCAP, 0, _hero_left(tgt), 0, 0)): 1.0}
    for _ in range(duel.finish):  # 2 × finish_rounds half-turns, 0 unless finish
        nxt: dict = {}
        for st, p in cur.items():
            for q, st2, _d in duel.step(st):
                nxt[st2] = nxt.get(st2, 0.0) + p * q
        cur = nxt
    states = list(cur)
    fate = p_inc * (np.array([cur[st] for st in states]) @ _fates_of(states, 3, tgt, rule))
    odds = {
        "p_hit": float(sum(p for (d, _, _), p in dist.items() if d >= 0)),
        "p_incapacitate": p_inc,
        "p_kill": 0.0,
        "p_dead": float(fate[1]),
        "p_dying": float(fate[2]),
        "p_out": float(fate[3]),
    }
    return {**odds, "in_range": True} if v.distance > 0 else odds
