"""The one settings object of a report build (frozen, passed down explicitly)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from engines.constants import AFTERMATHS, REPORT_SEED, ROUND_CAP
from engines.errors import InputError
from reports.i18n import N_, check_language

__all__ = [
    "DEFAULT_COMBAT_TRIALS",
    "DEFAULT_OUT",
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "ReportSettings",
    "system_ids",
    "trials_for_se",
]


def system_ids() -> tuple[str, ...]:
    """Every installed system's id, built-ins first (:func:`engines.system.registry`)."""
    from engines.system import registry

    return tuple(registry())


#: Fixed default seed, so the default report is reproducible bit for bit.
DEFAULT_SEED = REPORT_SEED
#: Monte Carlo trials per roll setting in the default report.
DEFAULT_TRIALS = 200_000
#: Monte Carlo fights per group fight (and per duel whose engine has no exact solver).
DEFAULT_COMBAT_TRIALS = 20_000
DEFAULT_OUT = Path("reports") / "out"


def trials_for_se(se: float) -> int:
    """Trials whose worst-case binomial standard error (p = 1/2) is at most ``se``.

    ``sqrt(0.25 / n) <= se``  ⇔  ``n >= 0.25 / se**2``.
    """
    if not (0 < se < 0.5):
        raise InputError(f"--se: expected a standard error between 0 and 0.5, got {se}")
    return math.ceil(0.25 / se**2)


@dataclass(frozen=True)
class ReportSettings:
    """Everything a report build depends on.

    ``variants`` holds ``(system, "NAME=VALUE")`` pairs; systems not named use their
    defaults. ``command`` is the command line that reproduces the build (shown in the
    provenance section).
    """

    #: the systems of the report (default, or None: every installed one,
    #: :func:`system_ids`, read when the settings are made)
    systems: tuple[str, ...] = None  # type: ignore[assignment]  # None: __post_init__
    trials: int = DEFAULT_TRIALS
    seed: int = DEFAULT_SEED
    out: Path = DEFAULT_OUT
    pdf: bool = True
    variants: tuple[tuple[str, str], ...] = ()
    combat_trials: int = DEFAULT_COMBAT_TRIALS
    round_cap: int = ROUND_CAP
    #: Aftermath policy of every combat section (the combat variant ``aftermath``).
    aftermath: str = "leave"
    #: Report language (``--lang``): ``en`` (default) or ``pt-BR``.
    lang: str = "en"
    progress: bool = True
    command: str = "python3 tasks.py report"
    title: str = N_("rpg-balance: single checks and balance across five dice systems")
    dpi: int = 110
    #: the guardrail file of Key findings (``--guardrails``; None: the shipped
    #: ``analysis/data/guardrails.toml``); a ``[tune]`` table adds the Tune section
    guardrails: Path | None = None
    #: the cross-combat mapping of the combat sections (``--cross-combat``, or the
    #: guardrail file's ``cross_combat`` key; None: the packaged
    #: ``analysis/data/cross_combat.toml``), named in the sections when it is another
    cross_combat: Path | None = None
    #: the designer's rules of the build (:class:`analysis.rules.RuleSet`, one per
    #: system; ``--rules FILE``): in force while every section computes
    #: (:func:`reports.rules_words.carrying`), named on the first page, in Assumptions
    #: and in Provenance; empty: the package's rules
    rules: tuple = ()
    #: the paths of those rules files as the command line gave them (``--rules FILE``):
    #: every command the report prints carries them, so it prints the report's numbers
    rule_files: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        known = system_ids()
        if self.systems is None:
            object.__setattr__(self, "systems", known)
        unknown = [s for s in self.systems if s not in known]
        if unknown:
            raise InputError(
                f"--systems: unknown system {unknown[0]!r}; known: " + ", ".join(known)
            )
        if not self.systems:
            raise InputError("--systems: name at least one system")
        if len(set(self.systems)) != len(self.systems):
            raise InputError("--systems: a system is named twice")
        if self.trials < 100:
            raise InputError(f"--trials: at least 100 trials are needed, got {self.trials}")
        for system, _ in self.variants:
            if system not in known:
                raise InputError(f"--variant: unknown system {system!r}")
        check_language(self.lang)
        from reports.rules_words import rules_sets

        object.__setattr__(self, "rules", rules_sets(self.rules))
        if self.aftermath not in AFTERMATHS:
            raise InputError(
                f"--aftermath: {self.aftermath!r} is not allowed; choose " + " | ".join(AFTERMATHS)
            )

    def all_variants_of(self, system: str) -> tuple[str, ...]:
        """Every ``NAME=VALUE`` string given for ``system`` (checks and combat)."""
        return tuple(text for s, text in self.variants if s == system)

    def variants_of(self, system: str) -> tuple[str, ...]:
        """The ``NAME=VALUE`` strings in force for ``system``'s single checks (empty:
        defaults); combat-only variants are left out (:meth:`combat_variants_of`)."""
        from analysis.combat.in_force import split

        return split(system, self.all_variants_of(system))[0]

    def combat_variants_of(self, system: str) -> tuple[str, ...]:
        """The ``NAME=VALUE`` strings the combat sections use for ``system``: its combat
        variants and the check variants its combat engine shares (the d10-pool engines
        roll attacks with the check dice)."""
        from analysis.combat.in_force import split

        return split(system, self.all_variants_of(system))[1]

    def in_force(self, system: str):
        """Every variant in force for ``system``, check and combat ``Variants`` together
        (with the report's aftermath policy): :func:`analysis.combat.in_force.
        variants_in_force`."""
        from analysis.combat.in_force import variants_in_force

        return variants_in_force(system, self.all_variants_of(system), self.aftermath)

    @property
    def cross_label(self) -> str:
        """The cross-combat file as the report names it (the packaged one as
        ``analysis/data/cross_combat.toml``)."""
        from analysis.combat.cross_combat import file_label

        return file_label(self.cross_combat)

    def system_seed(self, system: str) -> int:
        """An independent, reproducible seed per system derived from :attr:`seed`."""
        return self.seed * 16 + system_ids().index(system)

    @property
    def se_max(self) -> float:
        """Largest binomial standard error of one Monte Carlo proportion (p = 1/2)."""
        return math.sqrt(0.25 / self.trials)

    @property
    def html_path(self) -> Path:
        return Path(self.out) / "report.html"

    @property
    def pdf_path(self) -> Path:
        return Path(self.out) / "report.pdf"
