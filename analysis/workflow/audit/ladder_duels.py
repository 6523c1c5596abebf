"""The ladder fighters every finding of :func:`.discovery.discover` is measured on
(:func:`ladder_specs`, the ``[ladder]`` table of the cross-combat file) and their duels,
exact (:func:`ladder_duel`) or Monte Carlo (:func:`ladder_duel_mc`), each solved once per
run (:func:`solved_once` inside :func:`one_run`); :func:`fighter_label` names a ladder
fighter as a finding does."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from analysis.text import Text
from engines.constants import ROUND_CAP

__all__ = [
    "CROSS",
    "fighter_label",
    "ladder_duel",
    "ladder_duel_mc",
    "ladder_specs",
    "one_run",
    "solved_once",
]

CROSS = Path(__file__).resolve().parents[2] / "data" / "cross_combat.toml"


def ladder_specs(path: str | Path | None = None) -> dict:
    """``{system: {rung: fighter spec}}``: the ``[ladder]`` table of the cross-combat
    file (``path``: a designer's, e.g. a plug-in's mapping; None: the packaged
    :data:`CROSS`), the fighters every finding is measured on."""
    from analysis.toml_input import read_toml

    return read_toml(CROSS if path is None else path, "cross-combat file").get("ladder", {})


#: the duels of one :func:`.discovery.discover` run: the same fight is often met again
#: (an option that is the fighter's own gear, a tactic an armour table also plays, the
#: even duel of the gap variants and of the interaction sweep); None outside a run
_DUELS: ContextVar[dict | None] = ContextVar("discovery_duels", default=None)


def solved_once(key: tuple, solve):
    """``solve()``, kept under ``key`` for the rest of the :func:`.discovery.discover` run
    (a key of engine combatants and variants: two specs building the same fighters are the
    same duel; exact duels and seeded Monte Carlo runs are functions of their key)."""
    memo = _DUELS.get()
    if memo is None:
        return solve()
    try:
        found = memo.get(key)
    except TypeError:  # an unhashable combatant: not kept
        return solve()
    if found is None:
        found = memo[key] = solve()
    return found


@contextlib.contextmanager
def one_run() -> Iterator[None]:
    """One :func:`.discovery.discover` run: inside it :func:`solved_once` keeps each duel
    solved; outside, every duel is solved afresh."""
    token = _DUELS.set({})
    try:
        yield
    finally:
        _DUELS.reset(token)


def ladder_duel_mc(system, a, b, trials: int, seed: int, data=None, variants=None):
    """Monte Carlo duel of fighter specs (default variants but ``variants``, the default
    round cap), drawn as ``rpg-balance duel --method mc --trials TRIALS --seed SEED`` draws it."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    mod = reg.engine(system)
    v = reg.combat_variants(system, variants or {})
    fa = archetypes.combatant(system, a, path=data)
    fb = archetypes.combatant(system, b, path=data)
    return solved_once(
        (system, "mc", fa, fb, v, ROUND_CAP, trials, seed),
        lambda: mod.duel_mc(fa, fb, trials, seed, v, ROUND_CAP),
    )


def ladder_duel(system, a, b, data=None, variants=None):
    """Exact duel of fighter specs (``data``: the system's archetype library file)."""
    from analysis.combat import archetypes
    from analysis.combat import fights as reg

    mod = reg.engine(system)
    v = reg.combat_variants(system, variants or {})
    fa = archetypes.combatant(system, a, path=data)
    fb = archetypes.combatant(system, b, path=data)
    return solved_once(
        (system, "exact", fa, fb, v, ROUND_CAP), lambda: mod.duel_exact(fa, fb, v, ROUND_CAP)
    )


def fighter_label(spec) -> Text:
    """A ladder fighter as the finding names it: its rung and the gear it carries
    (``novice (weapon=knife)``)."""
    spec = dict(spec) if not isinstance(spec, str) else {"archetype": spec}
    name = Text(str(spec.pop("archetype")))
    if not spec:
        return name
    gear = ", ".join(f"{k}={v}" for k, v in spec.items())
    return Text("{name} ({gear})", name=name, gear=gear)
