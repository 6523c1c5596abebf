"""Campaign-scale mechanics: what the rules do to a character over sessions.

A campaign mechanic follows one small integer *state* of a character (Morality 0..10,
arcane degeneration 0..10, a skill 1..99, a point budget ...) from session 0 to session
``N``. Each session applies the same random transition, so a mechanic is a Markov chain
over its states:

- exact results come from the transition matrix ``P[i, j]`` = P(state j after a session |
  state i before): the distribution after ``n`` sessions by repeated products
  (:func:`evolve`), the first session a set of states is reached (:func:`first_passage`),
  and where the chain settles (:func:`settle`);
- Monte Carlo results come from per-session numba kernels of each mechanic (used where
  several resources interact, and for every mechanic as a check of the exact chain); they
  fill the same arrays with counts.

Every mechanic returns :class:`CampaignStats`, so analysis code treats them alike. The
mechanics live in one module per system, the one its ``System.campaign`` names
(``engines/systems/<id>/campaign.py`` for the built-ins).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import InputError
from .variants import parse_variants

__all__ = [
    "DIRECTIONS",
    "MAX_SESSIONS",
    "CampaignStats",
    "Mechanic",
    "Param",
    "campaign_systems",
    "campaign_variants",
    "check_int",
    "check_matrix",
    "check_sessions",
    "evolve",
    "first_passage",
    "mechanic",
    "mechanics",
    "settle",
]

#: The most sessions a campaign run may follow.
MAX_SESSIONS = 1000


@dataclass
class CampaignStats:
    """State distribution per session; probabilities when ``trials`` is None (exact).

    - ``values[S]``: the state value of each state index (e.g. Morality 0..10).
    - ``dist[N + 1, S]``: P(state) (exact) or counts (MC) after each session ``0..N``
      (row 0 is the start).
    - ``passage[N + 2]`` or None: for the ``threshold`` given, P (or counts) that the state
      is first at or beyond the threshold after session ``k`` (``k = 0..N``); the last
      entry is "not by session N".
    - ``extra``: per-session arrays of other tallies a mechanic keeps (e.g. the mean
      number of derangements, ``extra["derangements_mean"][k]``), each documented by the
      mechanic; for MC, ``extra[name + "_se"]`` holds their standard errors.
    """

    system: str
    mechanic: str
    values: np.ndarray
    dist: np.ndarray
    passage: np.ndarray | None = None
    threshold: int | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)
    trials: int | None = None
    notes: dict = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.trials is None

    @property
    def n(self) -> float:
        return 1.0 if self.trials is None else float(self.trials)

    @property
    def sessions(self) -> int:
        return self.dist.shape[0] - 1

    def pmf(self) -> np.ndarray:
        """P(state) per session, ``[N + 1, S]``."""
        return self.dist / self.n

    def mean(self) -> np.ndarray:
        return self.pmf() @ self.values

    def sd(self) -> np.ndarray:
        p = self.pmf()
        m = p @ self.values
        return np.sqrt(np.maximum(p @ (self.values.astype(float) ** 2) - m**2, 0.0))

    def se_mean(self) -> np.ndarray:
        """Standard error of :meth:`mean` per session (zeros when exact)."""
        if self.exact:
            return np.zeros(self.sessions + 1)
        return self.sd() / np.sqrt(self.n)

    def quantile(self, q: float) -> np.ndarray:
        """The smallest state value whose cumulative probability reaches ``q``, per session."""
        order = np.argsort(self.values, kind="stable")
        cdf = np.cumsum(self.pmf()[:, order], axis=1)
        idx = np.argmax(cdf >= q - 1e-12, axis=1)
        return self.values[order][idx]

    def passage_pmf(self) -> np.ndarray:
        if self.passage is None:
            raise InputError(f"{self.system} {self.mechanic}: no threshold was given")
        return self.passage / self.n


def check_int(name: str, value, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi`` (a bool is not an int); InputError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not lo <= value <= hi:
        raise InputError(f"{name}: expected an integer {lo}..{hi}, got {value!r}")
    return int(value)


def campaign_variants(cls: type, given=None):
    """The campaign variants ``given`` as a validated ``cls`` object (every campaign
    module's ``Variants`` goes through here).

    ``given``: None (the defaults), a ``cls`` object, a mapping ``{name: value}`` or
    ``NAME=VALUE`` strings (one, or an iterable of them). Every field is validated by
    :func:`engines.variants.parse_variants` (known name, type, choices), which also calls
    the dataclass's ``check()`` when it has one; a ``cls`` object is checked field by
    field the same way. Anything wrong is an :class:`InputError` of one line.
    """
    if isinstance(given, cls):
        given = {f.name: getattr(given, f.name) for f in dataclasses.fields(cls)}
    elif isinstance(given, str):
        given = [given]
    elif (
        isinstance(given, Iterable)
        and not isinstance(given, Mapping)
        and not dataclasses.is_dataclass(given)
    ):
        given = list(given)
    if not (
        given is None
        or isinstance(given, Mapping)
        or (isinstance(given, list) and all(isinstance(g, str) for g in given))
    ):
        kind = type(given)
        raise InputError(
            f"variants: expected {cls.system} campaign Variants, a mapping or "
            f"NAME=VALUE strings, got {kind.__module__}.{kind.__qualname__}"
        )
    return parse_variants(cls, given)


def check_sessions(sessions) -> int:
    """The number of sessions as an int in ``0..MAX_SESSIONS`` (InputError otherwise)."""
    if (
        isinstance(sessions, bool)
        or not isinstance(sessions, int | np.integer)
        or not 0 <= sessions <= MAX_SESSIONS
    ):
        raise InputError(f"sessions: expected an integer 0..{MAX_SESSIONS}, got {sessions!r}")
    return int(sessions)


def check_matrix(P: np.ndarray) -> np.ndarray:
    """A row-stochastic matrix (rows sum to 1 within 1e-9), as float64."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 2 or P.shape[0] != P.shape[1]:
        raise ValueError(f"transition matrix must be square, got shape {P.shape}")
    if np.any(P < -1e-15) or not np.allclose(P.sum(axis=1), 1.0, atol=1e-9):
        raise ValueError("transition matrix rows must be probabilities summing to 1")
    return P


def evolve(P: np.ndarray, start: np.ndarray, sessions: int) -> np.ndarray:
    """``[sessions + 1, S]``: the state distribution after each session (row 0 = start)."""
    P = check_matrix(P)
    out = np.empty((sessions + 1, P.shape[0]))
    out[0] = start
    for k in range(1, sessions + 1):
        out[k] = out[k - 1] @ P
    return out


def first_passage(P: np.ndarray, start: np.ndarray, hit: np.ndarray, sessions: int) -> np.ndarray:
    """P(the chain is first in a ``hit`` state after session k), k = 0..N, then P(not by N).

    Mass that enters a hit state is counted for that session and removed (the hit states
    are absorbing), so each entry is a first-passage probability (session 0: the start
    itself).
    """
    P = check_matrix(P)
    hit = np.asarray(hit, dtype=bool)
    out = np.zeros(sessions + 2)
    x = np.asarray(start, dtype=float).copy()
    out[0] = x[hit].sum()
    x[hit] = 0.0
    for k in range(1, sessions + 1):
        x = x @ P
        out[k] = x[hit].sum()
        x[hit] = 0.0
    out[-1] = x.sum()
    return out


def settle(
    P: np.ndarray, start: np.ndarray, tol: float = 1e-12, max_sessions: int = 100_000
) -> np.ndarray:
    """Where the chain settles from ``start``: the limit of the distribution (absorbing
    states included), by repeated squaring until it stops moving; an aperiodic chain is
    assumed (a periodic one raises ValueError)."""
    P = check_matrix(P)
    x = np.asarray(start, dtype=float)
    Q = P.copy()
    steps = 1
    while steps < max_sessions:
        nxt = x @ Q
        if np.abs(nxt - x @ Q @ Q).max() < tol:
            return nxt
        Q = Q @ Q
        steps *= 2
    raise ValueError("the chain does not settle (periodic or too slow)")


# ---------------------------------------------------------------- mechanic descriptions

#: Threshold directions: "down" = the state falling to ≤ X, "up" = rising to ≥ X.
DIRECTIONS = ("up", "down")


@dataclass(frozen=True)
class Param:
    """One parameter of a campaign mechanic, as a CLI flag or a notebook slider sees it.

    ``type`` is ``int``, ``str`` or ``bool``; ``range`` is the inclusive ``(lo, hi)`` of an
    int under the default variants (the mechanic's own check is the authority: a variant
    such as a cap may narrow or widen it); ``choices`` lists the values of a str.
    """

    name: str
    type: type
    default: object
    rule: str
    help: str
    range: tuple[int, int] | None = None
    choices: tuple | None = None

    @property
    def flag(self) -> str:
        """The command-line flag: ``per_session`` → ``--per-session``."""
        return "--" + self.name.replace("_", "-")


@dataclass(frozen=True, eq=False)
class Mechanic:
    """What analysis code needs to know about one campaign mechanic (every module's
    ``MECHANICS`` maps the mechanic's kebab-case name to one of these).

    - ``state``: label of the state followed (``CampaignStats.values``);
    - ``direction``: ``"down"`` when the threshold is reached by falling to ≤ X (Morality,
      Health, Luck, hero points), ``"up"`` by rising to ≥ X (degeneration, skill, Hunger);
    - ``params``: the mechanic's parameters (:class:`Param`), passed to ``exact`` and
      ``monte_carlo`` as keywords;
    - ``exact(sessions=, threshold=, variants=, **params)`` and
      ``monte_carlo(sessions=, trials=, seed=, threshold=, variants=, **params)`` both
      return :class:`CampaignStats`;
    - ``variants``: the module's frozen ``Variants`` dataclass;
    - ``threshold_default``: the threshold used when none is given (None: no passage);
    - ``extra``: name → meaning of the per-session tallies in ``CampaignStats.extra``;
    - ``combatants``: the params that name a combat archetype (``""``: the ladder's
      default); the analysis layer passes the engine's combatant objects instead.
    """

    name: str
    system: str
    rules: str
    help: str
    state: str
    direction: str
    params: tuple[Param, ...]
    exact: Callable[..., Any]
    monte_carlo: Callable[..., Any]
    variants: type
    threshold_default: int | None = None
    extra: dict = field(default_factory=dict)
    combatants: tuple[str, ...] = ()

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"{self.name}: direction must be one of {DIRECTIONS}")

    @property
    def threshold_help(self) -> str:
        side = "at or below" if self.direction == "down" else "at or above"
        return f"first session with {self.state} {side} this value"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise InputError(
            f"{self.system} {self.name}: unknown parameter {name!r}; known: "
            f"{', '.join(p.name for p in self.params)}"
        )

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.params}

    def reached(self, values: np.ndarray, threshold: int) -> np.ndarray:
        """Which of ``values`` are at or beyond ``threshold`` in the mechanic's direction."""
        values = np.asarray(values)
        return values <= threshold if self.direction == "down" else values >= threshold


def mechanics(system: str) -> dict[str, Mechanic]:
    """The ``MECHANICS`` of the module ``system``'s ``Campaign`` group names (an
    InputError naming the known systems, or saying the system declares none)."""
    from .system import get

    return get(system).require("campaign").engine().MECHANICS


def campaign_systems() -> list[str]:
    """Ids of every installed system that declares campaign mechanics."""
    from .system import registry

    return [sid for sid, s in registry().items() if s.campaign is not None]


def mechanic(system: str, name: str) -> Mechanic:
    """One mechanic of one system (InputError naming the known ones otherwise)."""
    known = mechanics(system)
    if name not in known:
        import difflib

        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise InputError(
            f"mechanic: unknown {name!r} for {system}{hint}; known: {', '.join(known)}"
        )
    return known[name]
