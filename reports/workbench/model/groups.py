"""The Groups tab: an N-vs-M fight from a matchup file (``rpg-balance combat FILE``;
the shipped files of ``scenarios/combat/`` or an uploaded one, validated as the command
validates it: :func:`analysis.combat.archetypes.load_matchup_file`), by Monte Carlo under
the engine lock batch by batch (:class:`~.state.Cancelled` between batches stops it),
every figure with its standard error, and the command that prints the same numbers."""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engines.errors import InputError

from .state import ENGINE_LOCK, MAX_UPLOAD, GroupState

__all__ = [
    "GROUP_FIGURES",
    "SCENARIO_DIR",
    "GroupResult",
    "group_command",
    "group_result",
    "load_matchup",
    "load_matchup_upload",
    "shipped_scenarios",
]

#: the shipped matchup files (``rpg-balance combat scenarios/combat/NAME.toml``)
SCENARIO_DIR = Path(__file__).resolve().parents[3] / "scenarios" / "combat"
#: the figures the tab shows, each with its standard error (the summary's columns)
GROUP_FIGURES = (
    ("p_side0", "se_side0"),
    ("p_side1", "se_side1"),
    ("p_neither", "se_neither"),
    ("p_loser_dead", "se_loser_dead"),
    ("p_loser_dying", "se_loser_dying"),
    ("p_loser_out", "se_loser_out"),
    ("p_someone_dead", "se_someone_dead"),
    ("deaths_mean", "se_deaths_mean"),
    ("rounds_mean", "rounds_se"),
)


@dataclasses.dataclass
class GroupResult:
    row: dict  # the command's summary row (with each side's fates)
    figures: pd.DataFrame  # figure, value, se (one row per figure)
    command: str
    title: str


def shipped_scenarios() -> list[str]:
    """The names of the shipped matchup files (without ``.toml``), in name order."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


def _shown(path: Path) -> str:
    """The file as the command names it (relative to the project when shipped)."""
    try:
        return str(path.relative_to(SCENARIO_DIR.parents[1]))
    except ValueError:
        return str(path)


def load_matchup(name: str):
    """A shipped matchup file by name (``ambush_3v1``), validated."""
    from analysis.combat.archetypes import load_matchup_file

    if name not in shipped_scenarios():
        raise InputError(
            f"scenario: {name!r} is not a shipped matchup file; known: "
            + ", ".join(shipped_scenarios())
        )
    return load_matchup_file(SCENARIO_DIR / f"{name}.toml")


def load_matchup_upload(data: bytes, filename: str = "upload.toml"):
    """An uploaded matchup file, validated as ``rpg-balance combat FILE`` validates it
    (its messages name the upload); the bytes are written to a private temporary folder
    under the upload's bare name and read from there (no path of the client is used)."""
    import tempfile

    from analysis.combat.archetypes import load_matchup_file

    name = (Path(str(filename).replace("\\", "/")).name or "upload.toml")[:80]
    if len(data) > MAX_UPLOAD:
        raise InputError(f"{name}: larger than {MAX_UPLOAD // 1000} kB; a matchup file is a few kB")
    with tempfile.TemporaryDirectory(prefix="rpg-balance-upload-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        return load_matchup_file(path)


def group_command(g: GroupState, file: str) -> str:
    """``rpg-balance combat FILE --method mc --trials N --seed S --format csv``."""
    return shlex.join(
        [
            "rpg-balance",
            "combat",
            file,
            "--method",
            "mc",
            "--trials",
            str(g.trials),
            "--seed",
            str(g.seed),
            "--format",
            "csv",
        ]
    )


def group_result(
    g: GroupState, m, file: str, *, on_batch: Callable[[int, int], None] | None = None
) -> GroupResult:
    """The fight of matchup ``m`` by Monte Carlo (``g.trials`` fights from ``g.seed``),
    as ``rpg-balance combat FILE --method mc`` computes it; ``on_batch(done, total)``
    after each batch (raise :class:`~.state.Cancelled` in it to stop). The lock is held
    batch by batch."""
    from analysis.combat import lethality

    def batch(done: int, total: int) -> None:
        ENGINE_LOCK.release()
        try:
            if on_batch is not None:
                on_batch(done, total)
        finally:
            ENGINE_LOCK.acquire()

    v = lethality.combat_variants(m.system, m.variants, None)
    with ENGINE_LOCK:
        st = lethality.run_fight(
            m.system,
            m.sides[0],
            m.sides[1],
            "mc",
            trials=g.trials,
            seed=g.seed,
            variants=v,
            round_cap=m.round_cap,
            progress=False,
            on_batch=batch,
        )
    labels = {
        "fight": m.title,
        "system": m.system,
        "side0": lethality.side_label(m.system, m.specs[0], m.sides[0]),
        "side1": lethality.side_label(m.system, m.specs[1], m.sides[1]),
    }
    row = lethality.summary(st, **labels)
    row.update(lethality.side_fate_columns(st))
    pairs = list(GROUP_FIGURES) + [
        (k, "se" + k[1:]) for k in row if k.startswith("p_side") and k.count("_") == 2
    ]
    figures = pd.DataFrame(
        [{"figure": k, "value": float(row[k]), "se": float(row[s])} for k, s in pairs]
    )
    return GroupResult(row, figures, group_command(g, file), m.title)
