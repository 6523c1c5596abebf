"""Combat helpers shared by the lethality section and ``notebooks/combat_sandbox.ipynb``.

Combat engines are modules ``engines.combat_<system>`` exposing
``duel_mc(a, b, trials, seed, variants, round_cap)`` → :class:`engines.fight.FightStats`
and a ``Variants`` dataclass. They are looked up lazily: a system whose engine is not in
this build is simply absent from :func:`available_engines`.

Combatants ("archetypes") come from, in order: ``analysis.archetypes.archetypes(system)``
(the data-file catalogue, when present), the engine's own ``ARCHETYPES`` mapping, or the
few starter characters below, built with the engine's combatant class. Tactics and gear
are fields of that class (``tactic`` / ``drama_tactic`` / ``maneuver``; ``weapon`` /
``dice``) whose choices the engine module publishes (``TACTICS``, ``MANEUVERS``).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Iterable

import numpy as np
import pandas as pd

from engines.errors import InputError
from engines.variants import describe, parse_variants

from . import plotting
from .settings import SYSTEM_IDS

#: Starter characters per system: name → builder taking the engine module (rule ids in
#: the engines' docs). Used only when no archetype catalogue is present.
STARTERS: dict[str, dict[str, Callable]] = {
    "dice_pool_7": {
        "average person": lambda m: m.Combatant("average person", FOR=2, DES=2, SAB=2,
                                                CON=2, DET=2, AUT=2),
        "brawler": lambda m: m.Combatant("brawler", FOR=3, DES=3, SAB=2, CON=3, DET=2,
                                         AUT=2, specialized=True),
        "soldier": lambda m: m.Combatant("soldier", FOR=3, DES=3, SAB=2, CON=3, DET=2,
                                         AUT=2, specialized=True,
                                         weapon=m.Weapon("light melee", 1, initiative=-1)),
    },
    "middle_3d10": {
        "average person": lambda m: m.Combatant(name="average person"),
        "brawler": lambda m: m.Combatant(name="brawler", trait=5, combat=5, strength=5,
                                         vigor=4),
        "knife fighter": lambda m: m.Combatant(name="knife fighter", trait=5, combat=6,
                                               strength=3, vigor=3, dice="M"),
    },
    "dice_pool_6": {
        "average person": lambda m: m.Combatant("average person", attack_attribute=2,
                                                attack_skill=1, dodge_attribute=2,
                                                dodge_skill=1, stamina=2),
        "brawler": lambda m: m.Combatant("brawler", attack_attribute=4, attack_skill=3,
                                         dodge_attribute=3, dodge_skill=2, stamina=4,
                                         specialty=True),
        "duelist": lambda m: m.Combatant("duelist", attack_attribute=3, attack_skill=4,
                                         dodge_attribute=4, dodge_skill=3, stamina=3,
                                         weapon=m.Weapon("blade", 2)),
    },
    "percentile": {
        "average person": lambda m: m.Combatant(name="average person"),
        "brawler": lambda m: m.Combatant(name="brawler", strength=70, con=60, siz=65,
                                         fighting=60, dodge=40),
        "gunman": lambda m: m.Combatant(name="gunman", dex=60, firearms=60,
                                        weapon=m.Weapon("handgun", 1, 10, impale=True,
                                                        firearm=True)),
    },
    "d20_degrees": {
        "average person": lambda m: m.Fighter(attack=2, damage=2, toughness=2, parry=2,
                                              dodge=2, fortitude=2, hit_points=10,
                                              name="average person"),
        "hero": lambda m: m.Fighter(attack=8, damage=8, toughness=8, parry=8, dodge=8,
                                    fortitude=8, hit_points=20, agility=4, name="hero"),
        "brute": lambda m: m.Fighter(attack=6, damage=10, toughness=10, parry=4, dodge=4,
                                     fortitude=10, hit_points=25, name="brute"),
    },
}

#: Dataclass fields that choose a tactic, and the engine constant listing the choices.
TACTIC_FIELDS = (("tactic", "TACTICS"), ("drama_tactic", "TACTICS"),
                 ("maneuver", "MANEUVERS"), ("defend", "DEFENCES"))


def engine(system: str):
    """The combat engine module of ``system``; :class:`ImportError` when not in this build."""
    if system not in SYSTEM_IDS:
        raise InputError(f"unknown system {system!r}; known: {', '.join(SYSTEM_IDS)}")
    mod = importlib.import_module(f"engines.combat_{system}")
    if not hasattr(mod, "duel_mc"):
        raise ImportError(f"engines.combat_{system} has no duel_mc")
    return mod


def available_engines(systems: Iterable[str] = SYSTEM_IDS) -> dict:
    """System → engine module, for the systems whose combat engine is present."""
    out = {}
    for system in systems:
        try:
            out[system] = engine(system)
        except ImportError:
            continue
    return out


def archetypes(system: str, mod=None) -> tuple[dict, list[str]]:
    """``(name → combatant, notes)`` for ``system`` (see the module docstring)."""
    mod = mod if mod is not None else engine(system)
    try:
        from analysis.archetypes import archetypes as catalogue
    except ImportError:
        catalogue = None
    if catalogue is not None:
        found = dict(catalogue(system))
        if found:
            return found, []
    if hasattr(mod, "ARCHETYPES"):
        return dict(mod.ARCHETYPES), []
    out, notes = {}, []
    for name, build in STARTERS.get(system, {}).items():
        try:
            out[name] = build(mod)
        except (AttributeError, TypeError, InputError) as exc:  # the engine's class changed
            notes.append(f"starter {name!r} not built: {exc}")
    return out, notes


def tactic_choices(mod, combatant) -> tuple[str | None, list]:
    """``(field, choices)`` of the combatant's tactic, or ``(None, [])``."""
    if not dataclasses.is_dataclass(combatant):
        return None, []
    names = {f.name for f in dataclasses.fields(combatant)}
    for field, const in TACTIC_FIELDS:
        if field in names and hasattr(mod, const):
            return field, list(getattr(mod, const))
    return None, []


def gear_choices(system: str, mod, combatant) -> tuple[str | None, dict]:
    """``(field, label → value)`` of the gear a combatant can be given, or ``(None, {})``."""
    if not dataclasses.is_dataclass(combatant):
        return None, {}
    names = {f.name for f in dataclasses.fields(combatant)}
    if system == "dice_pool_7" and "weapon" in names and hasattr(mod, "Weapon"):
        weapon = mod.Weapon
        return "weapon", {  # A11
            "unarmed": getattr(mod, "UNARMED", None) or weapon("unarmed", 0,
                                                              damage_type="bashing"),
            "light melee (+1)": weapon("light melee", 1, initiative=-1),
            "heavy melee (+2)": weapon("heavy melee", 2, initiative=-1, defense=-1),
        }
    if system == "dice_pool_6" and "weapon" in names and hasattr(mod, "Weapon"):
        return "weapon", {f"{n} (+{d})": mod.Weapon(n, d) for n, d in  # C11 damage bonus
                          (("unarmed", 0), ("light weapon", 1), ("blade", 2),
                           ("heavy weapon", 3))}
    if system == "percentile" and "weapon" in names and hasattr(mod, "Weapon"):
        w = mod.Weapon
        return "weapon", {  # DX3 damage dice
            "unarmed (1D3 + DB)": w(),
            "small knife (1D4 + DB)": w("small knife", 1, 4, impale=True),
            "club (1D6 + DB)": w("club", 1, 6),
            "machete (1D8 + DB)": w("machete", 1, 8, impale=True),
            "handgun (1D10)": w("handgun", 1, 10, impale=True, firearm=True),
        }
    if system == "middle_3d10" and "dice" in names:
        return "dice", {"unarmed (m)": "m", "light weapon (C)": "C", "blade (M)": "M",
                        "small firearm (m+M)": "mM", "medium firearm (C+M)": "CM"}  # B8
    return None, {}


def equip(combatant, *, tactic=None, tactic_field=None, gear=None, gear_field=None):
    """A copy of ``combatant`` with the chosen tactic and gear (fields left as they are
    when not given)."""
    changes = {}
    if tactic_field and tactic is not None:
        changes[tactic_field] = tactic
    if gear_field and gear is not None:
        changes[gear_field] = gear
    return dataclasses.replace(combatant, **changes) if changes else combatant


def variants(mod, texts: Iterable[str] = ()):
    """The engine's variant object from ``NAME=VALUE`` strings (validated)."""
    texts = [t.strip() for t in texts if t.strip()]
    cls = getattr(mod, "Variants", None)
    if cls is None:
        if texts:
            raise InputError("this combat engine has no variants")
        return None
    return parse_variants(cls, texts)


def variant_rows(mod) -> pd.DataFrame:
    """The engine's variants (name, rule id, default, doc) for display."""
    cls = getattr(mod, "Variants", None)
    if cls is None:
        return pd.DataFrame(columns=["variant", "rule", "default", "doc"])
    return pd.DataFrame(describe(cls()))[["variant", "rule", "default", "doc"]]


def summary(stats, label: str = "") -> dict:
    """One tidy row from a :class:`engines.fight.FightStats` (probabilities ± SE).

    Side 0 is the first combatant named in ``label``; "no result" = still going at the
    round cap; "loser dies" is among decided fights.
    """
    p = stats.p_outcome()
    se = stats.se_outcome()
    decided = float(stats.outcome[0] + stats.outcome[1])
    dead = float(stats.loser_dead.sum()) / decided if decided else float("nan")
    pmf = stats.rounds_pmf()
    total = float(pmf.sum())
    mean_rounds = float(np.arange(len(pmf)) @ pmf) / total if total else float("nan")
    return {"system": stats.system, "matchup": label,
            "P(0 wins)": float(p[0]), "SE(0)": float(se[0]),
            "P(1 wins)": float(p[1]), "SE(1)": float(se[1]),
            "P(no result)": float(p[2]),
            "P(loser dies)": dead, "mean rounds": mean_rounds}


def lethality_frame(results: Iterable[tuple[str, object]]) -> pd.DataFrame:
    """Rows of :func:`summary` for ``(label, FightStats)`` pairs."""
    return pd.DataFrame([summary(stats, label) for label, stats in results])


def rounds_figure(results: list[tuple[str, object]], system: str, *, width: float = 6.4):
    """P(the fight ends in round k) per matchup, in the system's shades."""
    fig, (ax,) = plotting.new_figure(1, width=width, height=2.8)
    last = 1
    for (label, stats), style in zip(results, plotting.line_styles(system, len(results)),
                                     strict=True):
        pmf = stats.rounds_pmf()
        ks = np.arange(len(pmf))
        ax.plot(ks[1:], pmf[1:], label=label, drawstyle="steps-mid", **style)
        nz = np.nonzero(pmf > 1e-4)[0]
        if len(nz):
            last = max(last, int(nz[-1]))
    ax.set_xlim(0.5, min(last + 1.5, len(pmf)))
    ax.set_xlabel("round in which the fight ends (last = the round cap)")
    ax.set_ylabel("probability")
    ax.legend(loc="upper right")
    ax.set_title(f"{system}: fight length")
    return fig
